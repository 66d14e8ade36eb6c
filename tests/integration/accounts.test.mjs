// Accounts through the protocol, against the real server: sign up (claiming the guest), log in on a
// second connection and get the seat back, wrong passwords, the login limits, log out here and
// everywhere, change the password, delete the account, and a restart that keeps all of it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Client, startServer } from './harness.mjs';

const PW = 'correct horse battery';

async function signUp(server, name, password = PW, hello = {}) {
  const c = await Client.connect(server, hello);
  const r = await c.request({ type: 'register', name, password });
  assert.equal(r.type, 'account', JSON.stringify(r));
  return c;
}

async function json(server, p) {
  const res = await fetch(server.http + p);
  return { status: res.status, body: await res.json() };
}

test('sign up claims the guest: same id, same token, its games kept, the name taken', async () => {
  const server = await startServer();
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  assert.equal(a.me.account, null);
  assert.equal(a.me.features.accounts, true);
  assert.deepEqual(a.me.limits.password_chars, [8, 128]);
  // A game as a guest first.
  const j = await a.request({ type: 'create', game: 'kalah', seat: 'south' });
  await b.request({ type: 'join', room: j.room });
  const over = await a.request({ type: 'resign', room: j.room });
  assert.equal(over.status, 'finished');
  const r = await a.request({ type: 'register', name: 'Ana_Lima', password: PW });
  assert.equal(r.type, 'account');
  assert.equal(r.player, a.me.player);
  assert.equal(r.name, 'Ana_Lima');
  assert.equal(r.account.name, 'Ana_Lima');
  assert.deepEqual(r.account.ratings.kalah, { rating: 1500, rd: 350, games: 0, provisional: true });
  // The same token now says hello as the account, whatever name it asks for.
  const again = await Client.connect(server, { token: a.me.token, name: 'Someone' });
  assert.equal(again.me.player, a.me.player);
  assert.equal(again.me.name, 'Ana_Lima');
  assert.equal(again.me.resumed, true);
  assert.equal(again.me.account.name, 'Ana_Lima');
  // The profile, and the guest game in it.
  const p = await json(server, '/api/players/ana_lima');
  assert.equal(p.status, 200);
  assert.equal(p.body.player, a.me.player);
  assert.equal(p.body.name, 'Ana_Lima');
  assert.equal(p.body.games.length, 1);
  assert.equal(p.body.games[0].seat, 'south');
  assert.equal(p.body.games[0].rated, false);
  // Refusals, each with its code, nothing changed.
  const c = await Client.connect(server, {});
  const cases = [
    [{ name: 'ANA-LIMA', password: PW }, 'name_taken'], // a look-alike of the same name
    [{ name: 'Computer', password: PW }, 'name_reserved'],
    [{ name: 'guest_99', password: PW }, 'name_reserved'],
    [{ name: 'ab', password: PW }, 'name_invalid'],
    [{ name: 'Ana Lima', password: PW }, 'name_invalid'],
    [{ name: 'Fine_Name', password: 'short' }, 'weak_password'],
  ];
  for (const [fields, code] of cases) {
    const e = await c.request({ type: 'register', ...fields });
    assert.equal(e.type, 'error', JSON.stringify(fields));
    assert.equal(e.code, code, JSON.stringify(fields));
    assert.equal(e.request, 'register');
  }
  const twice = await a.request({ type: 'register', name: 'Other_Name', password: PW });
  assert.equal(twice.code, 'already_registered');
  // A guest may not take an account's name either.
  const imp = await Client.connect(server, { hello: false });
  const refused = await imp.request({ type: 'hello', name: 'ana lima' });
  assert.equal(refused.code, 'name_taken');
  assert.equal(refused.field, 'name');
  await imp.close();
  for (const x of [a, b, again, c]) await x.close();
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

test('log in on a second connection: the seat comes back; a wrong password is refused', async () => {
  const server = await startServer();
  const ana = await signUp(server, 'Ana');
  const bob = await Client.connect(server, { name: 'Bob' });
  const j = await ana.request({ type: 'create', game: 'oware', seat: 'north', clock: { initial_ms: 600000, increment_ms: 0 } });
  await bob.request({ type: 'join', room: j.room });
  await ana.state(j.room, (s) => s.status === 'playing');
  // Another device, a guest first.
  const dev = await Client.connect(server, { name: 'Phone' });
  const wrong = await dev.request({ type: 'login', name: 'Ana', password: 'not the password' });
  assert.equal(wrong.type, 'error');
  assert.equal(wrong.code, 'bad_credentials');
  const nobody = await dev.request({ type: 'login', name: 'Nobody', password: PW });
  assert.equal(nobody.code, 'bad_credentials'); // The same answer as a wrong password.
  const w = await dev.request({ type: 'login', name: 'ANA', password: PW });
  assert.equal(w.type, 'welcome');
  assert.equal(w.player, ana.me.player);
  assert.equal(w.name, 'Ana');
  assert.equal(w.resumed, true);
  assert.match(w.token, /^[0-9a-f]{64}$/);
  assert.notEqual(w.token, ana.me.token);
  assert.notEqual(w.token, dev.me.token);
  const joined = await dev.next('joined');
  assert.equal(joined.room, j.room);
  assert.equal(joined.seat, 'north');
  const st = await dev.state(j.room);
  assert.equal(st.you, 'north');
  assert.ok(Array.isArray(st.moves));
  // Playing from the new device: Bob moves, then the phone answers as North.
  const moved = await bob.request({ type: 'move', room: j.room, house: st.legal[0], ply: st.ply });
  const mine = await dev.request({ type: 'move', room: j.room, house: moved.legal[0], ply: moved.ply });
  assert.equal(mine.type, 'state');
  assert.equal(mine.last.seat, 'north');
  // Both tokens work: the first device's and the phone's.
  const back = await Client.connect(server, { token: w.token });
  assert.equal(back.me.player, ana.me.player);
  for (const x of [ana, bob, dev, back]) await x.close();
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

test('the login limits: too_many_attempts with retry_after_ms (a growing wait, never a lock), per name and per address', async () => {
  const server = await startServer(['--login-attempts', '3', '--login-attempts-ip', '8', '--login-window-s', '600']);
  const ana = await signUp(server, 'Ana');
  const x = await Client.connect(server, {});
  for (let i = 0; i < 3; i++) {
    const e = await x.request({ type: 'login', name: 'Ana', password: 'guess ' + i });
    assert.equal(e.code, 'bad_credentials');
  }
  const limited = await x.request({ type: 'login', name: 'ana', password: PW });
  assert.equal(limited.type, 'error');
  assert.equal(limited.code, 'too_many_attempts');
  assert.equal(limited.request, 'login');
  // The first wait past the free attempts is 1 s (counted from the last attempt).
  assert.ok(limited.retry_after_ms > 0 && limited.retry_after_ms <= 1000, String(limited.retry_after_ms));
  // Other names go on from this address until its own limit: 4 attempts were made of 8 (the
  // sign-up counts), 4 more.
  for (let i = 0; i < 4; i++) {
    const e = await x.request({ type: 'login', name: 'Other' + i, password: PW });
    assert.equal(e.code, 'bad_credentials');
  }
  const addr = await x.request({ type: 'login', name: 'Other9', password: PW });
  assert.equal(addr.code, 'too_many_attempts');
  // Ana herself, already logged in elsewhere, keeps playing.
  const j = await ana.request({ type: 'create', game: 'kalah' });
  assert.equal(j.type, 'joined');
  await ana.close();
  await x.close();
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

test('log out here, log out everywhere, change the password', async () => {
  const server = await startServer();
  const a = await signUp(server, 'Ana');
  const tab = await Client.connect(server, { token: a.me.token }); // a second tab of that browser
  const phone = await Client.connect(server, {});
  const lw = await phone.request({ type: 'login', name: 'Ana', password: PW });
  assert.equal(lw.type, 'welcome');
  // Logout: this browser's token dies, both its tabs become one new guest; the phone stays.
  const out = await a.request({ type: 'logout' });
  assert.equal(out.type, 'welcome');
  assert.equal(out.resumed, false);
  assert.equal(out.account, null);
  assert.notEqual(out.player, a.me.player);
  const told = await tab.next('welcome');
  assert.equal(told.reason, 'logout');
  assert.equal(told.player, out.player);
  assert.equal(told.token, out.token);
  const old = await Client.connect(server, { token: a.me.token });
  assert.notEqual(old.me.player, a.me.player);
  assert.equal(old.me.resumed, false);
  // The phone is still Ana: change the password from it; a login elsewhere is logged out by it.
  const laptop = await Client.connect(server, {});
  await laptop.request({ type: 'login', name: 'Ana', password: PW });
  const bad = await phone.request({ type: 'change_password', password: 'wrong one', new_password: 'a new password' });
  assert.equal(bad.code, 'bad_credentials');
  const ch = await phone.request({ type: 'change_password', password: PW, new_password: 'a new password' });
  assert.equal(ch.type, 'account');
  assert.equal(ch.player, a.me.player);
  const lt = await laptop.next((m) => m.type === 'welcome' && m.reason);
  assert.equal(lt.reason, 'password_changed');
  const oldpw = await laptop.request({ type: 'login', name: 'Ana', password: PW });
  assert.equal(oldpw.code, 'bad_credentials');
  const newpw = await laptop.request({ type: 'login', name: 'Ana', password: 'a new password' });
  assert.equal(newpw.type, 'welcome');
  // Everywhere: both connections are guests at once, and no token of Ana's says hello as her.
  const all = await phone.request({ type: 'logout_all' });
  assert.equal(all.type, 'welcome');
  assert.equal(all.account, null);
  const lt2 = await laptop.next((m) => m.type === 'welcome' && m.reason === 'logout_all');
  assert.equal(lt2.account, null);
  for (const t of [lw.token, newpw.token]) {
    const c = await Client.connect(server, { token: t });
    assert.notEqual(c.me.player, a.me.player);
    await c.close();
  }
  // A guest cannot log out.
  const g = await Client.connect(server, {});
  assert.equal((await g.request({ type: 'logout' })).code, 'not_registered');
  for (const x of [a, tab, phone, old, laptop, g]) await x.close();
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

test('delete the account: its game in progress is lost, its games stay anonymised, its name is free', async () => {
  const server = await startServer();
  const ana = await signUp(server, 'Ana');
  const bob = await signUp(server, 'Bob');
  const j = await ana.request({ type: 'create', game: 'kalah', seat: 'south', rated: true, clock: { initial_ms: 600000, increment_ms: 0 } });
  await bob.request({ type: 'join', room: j.room });
  await bob.state(j.room, (s) => s.status === 'playing');
  // Both sides move: a rated game where a side never moved would be aborted, not lost.
  assert.equal((await ana.request({ type: 'move', room: j.room, house: 1, ply: 0 })).type, 'state');
  assert.equal((await bob.request({ type: 'move', room: j.room, house: 1, ply: 1 })).type, 'state');
  assert.equal((await ana.request({ type: 'chat', room: j.room, text: 'good luck' })).type, 'chat');
  assert.equal((await bob.request({ type: 'chat', room: j.room, text: 'you too' })).type, 'chat');
  const wrong = await ana.request({ type: 'delete_account', password: 'nope nope' });
  assert.equal(wrong.code, 'bad_credentials');
  const del = await ana.request({ type: 'delete_account', password: PW });
  assert.equal(del.type, 'welcome');
  assert.equal(del.account, null);
  assert.notEqual(del.player, ana.me.player);
  const end = await bob.state(j.room, (s) => s.status === 'finished');
  assert.equal(end.result.winner, 'north');
  assert.equal(end.result.reason, 'resignation');
  assert.ok(end.rating_change.north.after > 1500);
  // Ana's chat line stays, anonymised like her seat; Bob's is his (issue 25, item 8).
  const again = await bob.request({ type: 'join', room: j.room });
  assert.equal(again.type, 'joined');
  const history = await bob.next((m) => m.type === 'chat_history' && m.room === j.room);
  assert.deepEqual(history.messages.map((m) => [m.from, m.player, m.text]),
    [['[deleted]', null, 'good luck'], ['Bob', bob.me.player, 'you too']]);
  assert.equal((await json(server, '/api/players/Ana')).status, 404);
  const bp = await json(server, '/api/players/Bob');
  assert.equal(bp.body.games.length, 1);
  assert.equal(bp.body.games[0].players.south.id, null);
  assert.equal(bp.body.games[0].players.south.name, '[deleted]');
  assert.equal(bp.body.ratings.kalah.games, 1);
  // The login is gone, the old token too, and the name can be taken again.
  const x = await Client.connect(server, {});
  assert.equal((await x.request({ type: 'login', name: 'Ana', password: PW })).code, 'bad_credentials');
  const old = await Client.connect(server, { token: ana.me.token });
  assert.notEqual(old.me.player, ana.me.player);
  assert.equal((await x.request({ type: 'register', name: 'ana', password: PW })).type, 'account');
  for (const c of [ana, bob, x, old]) await c.close();
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

test('a restart keeps accounts, sessions, seats and passwords', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-acc-'));
  try {
    let server = await startServer([], { data });
    const ana = await signUp(server, 'Ana');
    const bob = await signUp(server, 'Bob');
    const j = await ana.request({ type: 'create', game: 'congkak', seat: 'south', rated: true, clock: { initial_ms: 600000, increment_ms: 1000 } });
    await bob.request({ type: 'join', room: j.room });
    await ana.state(j.room, (s) => s.status === 'playing');
    const phone = await Client.connect(server, {});
    const lw = await phone.request({ type: 'login', name: 'Bob', password: PW });
    assert.equal(lw.type, 'welcome');
    assert.deepEqual(await server.stop(), { code: 0, signal: null });

    server = await startServer([], { data });
    // Both sessions of Bob, and Ana's, still say hello as them, with their seats.
    for (const [token, player, seat] of [[ana.me.token, ana.me.player, 'south'], [bob.me.token, bob.me.player, 'north'], [lw.token, bob.me.player, 'north']]) {
      const c = await Client.connect(server, { token });
      assert.equal(c.me.player, player);
      assert.equal(c.me.resumed, true);
      assert.ok(c.me.account);
      const jn = await c.next('joined');
      assert.equal(jn.room, j.room);
      assert.equal(jn.seat, seat);
      const st = await c.state(j.room);
      assert.equal(st.rated, true);
      assert.equal(st.players.south.rating, 1500);
      await c.close();
    }
    // The password logs in after the restart.
    const x = await Client.connect(server, {});
    const w = await x.request({ type: 'login', name: 'ana', password: PW });
    assert.equal(w.type, 'welcome');
    assert.equal(w.player, ana.me.player);
    await x.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});
