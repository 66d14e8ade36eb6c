// Issue 25, item 11, against the real server: an account's sessions page (device, created, last
// used, this device) and revoking one, the cap of sessions per account (the least recently used
// ends, an unused one before one a connection uses), sessions unused for long ending at start,
// and lookups of account names (names register and hello find taken, GET /api/players/NAME)
// counted per address.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Client, startServer, storeSql } from './harness.mjs';

const PW = 'correct horse battery';

async function login(server, device) {
  const c = await Client.connect(server, {});
  const w = await c.request({ type: 'login', name: 'Ana', password: PW, device });
  assert.equal(w.type, 'welcome', JSON.stringify(w));
  c.me = w;
  return c;
}

const devices = (list) => list.map((s) => s.device);

test('the sessions page: listed with their devices, one revoked, the cap ends the least recently used', async () => {
  const server = await startServer(['--sessions-per-account', '3']);
  const ana = await Client.connect(server, {});
  const r = await ana.request({ type: 'register', name: 'Ana', password: PW, device: 'Firefox on Linux' });
  assert.equal(r.type, 'account');
  const phone = await login(server, 'Chrome on Android');
  // Two: the phone's, made after the first (whose sign-up hashed a password meanwhile), then the
  // first; each connection sees its own marked.
  let list = (await ana.request({ type: 'sessions' })).sessions;
  assert.deepEqual(devices(list), ['Chrome on Android', 'Firefox on Linux']);
  assert.deepEqual(list.map((s) => s.current), [false, true]);
  assert.ok(list.every((s) => /^[0-9a-f]{16}$/.test(s.id) && s.seen >= s.created));
  assert.ok(list[0].created > list[1].created);
  assert.deepEqual((await phone.request({ type: 'sessions' })).sessions.map((s) => s.current), [true, false]);
  // The first browser comes back with its token: its session was used last now.
  const again = await Client.connect(server, { token: ana.me.token });
  assert.equal(again.me.name, 'Ana');
  list = (await ana.request({ type: 'sessions' })).sessions;
  assert.deepEqual(devices(list), ['Firefox on Linux', 'Chrome on Android']);
  assert.ok(list[0].seen > list[0].created);
  // Revoke the phone: its connection is a guest now, told why, and its token names nobody.
  const rev = await ana.request({ type: 'revoke_session', session: list[1].id });
  assert.equal(rev.type, 'sessions');
  assert.deepEqual(devices(rev.sessions), ['Firefox on Linux']);
  const told = await phone.next((m) => m.type === 'welcome' && m.reason === 'revoked');
  assert.equal(told.account, null);
  assert.notEqual(told.player, ana.me.player);
  const old = await Client.connect(server, { token: phone.me.token });
  assert.notEqual(old.me.player, ana.me.player);
  // Refusals: the same session again, this device's own, a guest.
  assert.equal((await ana.request({ type: 'revoke_session', session: list[1].id })).code, 'unknown_session');
  const own = await ana.request({ type: 'revoke_session', session: list[0].id });
  assert.deepEqual([own.code, own.field], ['bad_request', 'session']);
  assert.equal((await old.request({ type: 'sessions' })).code, 'not_registered');
  // The cap of 3: two more devices fill it; the second of them leaves. The fourth session ends
  // the least recently used that no connection uses (the one that left), not the first, which
  // is older but in use.
  const one = await login(server, 'One');
  const two = await login(server, 'Two');
  await two.close();
  const three = await login(server, 'Three');
  list = (await ana.request({ type: 'sessions' })).sessions;
  assert.deepEqual(devices(list), ['Three', 'One', 'Firefox on Linux']);
  const gone = await Client.connect(server, { token: two.me.token });
  assert.notEqual(gone.me.player, ana.me.player);
  // All three in use: a fifth ends the least recently used of them, the first browser's (last
  // used when it came back, before One was made); both its connections are told.
  const four = await login(server, 'Four');
  for (const c of [ana, again]) await c.next((m) => m.type === 'welcome' && m.reason === 'revoked');
  list = (await four.request({ type: 'sessions' })).sessions;
  assert.deepEqual(devices(list), ['Four', 'Three', 'One']);
  for (const c of [ana, phone, again, old, one, three, gone, four]) await c.close();
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

test('a session unused for --session-idle-days ends at the next start', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-sessions-'));
  try {
    let server = await startServer([], { data });
    const ana = await Client.connect(server, {});
    assert.equal((await ana.request({ type: 'register', name: 'Ana', password: PW })).type, 'account');
    const laptop = await login(server, 'Laptop');
    await ana.close();
    await laptop.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
    // The laptop's session was last used 61 days ago, the first one 59 days ago.
    const day = 86400000, now = Date.now();
    storeSql(data, `UPDATE sessions SET created_ms = ${now - 70 * day}, seen_ms = ${now - 59 * day} WHERE label IS NULL;` +
      `UPDATE sessions SET created_ms = ${now - 70 * day}, seen_ms = ${now - 61 * day} WHERE label = 'Laptop';`);
    server = await startServer([], { data });
    const first = await Client.connect(server, { token: ana.me.token });
    assert.equal(first.me.name, 'Ana'); // Its start expired what was due; 59 days is not.
    const ended = await Client.connect(server, { token: laptop.me.token });
    assert.equal(ended.me.account, null);
    assert.deepEqual(devices((await first.request({ type: 'sessions' })).sessions), [null]);
    await first.close();
    await ended.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});

test('lookups of account names are counted per address: names found taken, and /api/players/NAME', async () => {
  // Past the allowance a lookup waits a second after the last one. The steps from the third lookup
  // to the sign-up below must fall within that second; on a loaded machine they may not, and then
  // the whole run is made again on a fresh server (at most five times) rather than read as wrong.
  for (let attempt = 1; ; attempt++) {
    const server = await startServer(['--name-lookups-ip', '3']);
    const clients = [];
    try {
      const ana = await Client.connect(server, {});
      clients.push(ana);
      assert.equal((await ana.request({ type: 'register', name: 'Ana', password: PW })).type, 'account');
      // Guests with free names cost nothing, however many.
      for (let i = 0; i < 10; i++) (await Client.connect(server, { name: `Guest_${i}` })).close();
      assert.equal((await fetch(server.http + '/api/players/Ana')).status, 200); // 1
      assert.equal((await fetch(server.http + '/api/players/Nobody')).status, 404); // 2
      const g = await Client.connect(server, { hello: false });
      clients.push(g);
      assert.equal((await g.request({ type: 'hello', name: 'ANA' })).code, 'name_taken'); // 3
      const third = Date.now();
      // Past them every lookup waits (a second after the last, less what went by), whatever the name.
      const res = await fetch(server.http + '/api/players/Nobody');
      const body = await res.json();
      const h = await g.request({ type: 'hello', name: 'Zed' });
      // A hello without a name is no lookup: the guest arrives; its sign-up is one, and waits.
      const w = await g.request({ type: 'hello' });
      const reg = await g.request({ type: 'register', name: 'Zed', password: PW });
      if (Date.now() - third > 800 && attempt < 5)
        continue; // Slower than the wait: not a verdict on the server.
      assert.equal(res.status, 429);
      assert.equal(body.error, 'too_many_attempts');
      assert.ok(body.retry_after_ms > 0 && body.retry_after_ms <= 1000);
      assert.deepEqual([h.type, h.code, h.field, h.request], ['error', 'too_many_attempts', 'name', 'hello']);
      assert.ok(h.retry_after_ms > 0 && h.retry_after_ms <= 1000);
      assert.equal(w.type, 'welcome');
      assert.equal(reg.code, 'too_many_attempts');
      assert.ok(reg.retry_after_ms > 0);
      // Other routes are not lookups.
      assert.equal((await fetch(server.http + '/api/leaderboard/kalah')).status, 200);
      break;
    } finally {
      for (const c of clients) await c.close();
      assert.deepEqual(await server.stop(), { code: 0, signal: null });
    }
  }
});
