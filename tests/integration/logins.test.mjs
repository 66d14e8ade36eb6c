// Logins under attack, against the real server (issue 25, items 2 and 3): a stranger's wrong
// passwords do not keep the owner out (the owner's device with a session is never slowed down,
// a new device only waits), concurrent wrong logins run no more checks than the allowance, and
// many addresses flooding the password checks do not starve a real login from another address.
// Clients name their address in X-Forwarded-For, believed from 127.0.0.1 (--trust-proxy).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, sleep, startServer } from './harness.mjs';

const PW = 'correct horse battery';
const PROXY = ['--trust-proxy', '127.0.0.1'];

const from = (server, ip, opts = {}) => Client.connect(server, { ...opts, headers: { 'X-Forwarded-For': ip } });

test('a stranger\'s wrong passwords do not keep the owner out', async () => {
  const server = await startServer([...PROXY, '--login-attempts', '5', '--login-attempts-ip', '1000']);
  const owner = await from(server, '203.0.113.1');
  assert.equal((await owner.request({ type: 'register', name: 'Ana', password: PW })).type, 'account');
  // The stranger: five wrong passwords, then it hammers on; every further one is refused at once
  // with the wait, none of them locks anything.
  const stranger = await from(server, '198.51.100.7');
  for (let i = 0; i < 5; i++) {
    const r = await stranger.request({ type: 'login', name: 'Ana', password: 'guess ' + i });
    assert.equal(r.code, 'bad_credentials');
  }
  let refused = 0, waitUntil = 0;
  for (let i = 0; i < 30; i++) {
    const r = await stranger.request({ type: 'login', name: 'ana', password: 'guess' });
    if (r.code === 'too_many_attempts') {
      assert.equal(r.request, 'login');
      assert.ok(r.retry_after_ms > 0 && r.retry_after_ms <= 60000, String(r.retry_after_ms));
      waitUntil = Math.max(waitUntil, Date.now() + r.retry_after_ms);
      refused++;
    } else {
      assert.equal(r.code, 'bad_credentials'); // a wait that passed meanwhile: one more check
    }
  }
  assert.ok(refused >= 25, `refused ${refused} of 30`);
  // The owner's device holds a session: its token says hello as Ana, its own login and its
  // password change are checked at once.
  const tab = await from(server, '203.0.113.1', { token: owner.me.token });
  assert.equal(tab.me.player, owner.me.player);
  const again = await owner.request({ type: 'login', name: 'Ana', password: PW });
  assert.equal(again.type, 'welcome', JSON.stringify(again));
  assert.equal(again.player, owner.me.player);
  const ch = await owner.request({ type: 'change_password', password: PW, new_password: 'a new password' });
  assert.equal(ch.type, 'account', JSON.stringify(ch));
  // The stranger is still slowed down while its last wait lasts (on a loaded machine the owner's
  // password checks above may outlast it: then one more check is its due).
  const sentAt = Date.now();
  const late = await stranger.request({ type: 'login', name: 'Ana', password: 'guess' });
  if (sentAt + 1000 < waitUntil) assert.equal(late.code, 'too_many_attempts');
  else assert.ok(['too_many_attempts', 'bad_credentials'].includes(late.code), late.code);
  // The owner's new phone is a stranger to the server: told how long to wait, then it gets in.
  const phone = await from(server, '203.0.113.50');
  let r = await phone.request({ type: 'login', name: 'Ana', password: 'a new password' });
  for (let i = 0; i < 3 && r.code === 'too_many_attempts'; i++) {
    await sleep(r.retry_after_ms + 50);
    r = await phone.request({ type: 'login', name: 'Ana', password: 'a new password' });
  }
  assert.equal(r.type, 'welcome', JSON.stringify(r));
  assert.equal(r.player, owner.me.player);
  for (const c of [owner, stranger, tab, phone]) await c.close();
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

test('20 concurrent wrong logins run 5 checks; the other 15 are told to wait', async () => {
  const server = await startServer([...PROXY, '--login-attempts', '5', '--login-attempts-ip', '1000']);
  const owner = await from(server, '203.0.113.1');
  assert.equal((await owner.request({ type: 'register', name: 'Ana', password: PW })).type, 'account');
  // From 20 addresses, so that the name's allowance is what stops them.
  const xs = await Promise.all(Array.from({ length: 20 }, (_, i) => from(server, `198.51.100.${i + 1}`)));
  const answers = await Promise.all(xs.map((x) => x.request({ type: 'login', name: 'Ana', password: 'wrong horse' })));
  const codes = answers.map((a) => a.code);
  assert.equal(codes.filter((c) => c === 'bad_credentials').length, 5, codes.join());
  assert.equal(codes.filter((c) => c === 'too_many_attempts').length, 15, codes.join());
  for (const a of answers.filter((x) => x.code === 'too_many_attempts'))
    assert.ok(a.retry_after_ms > 0 && a.retry_after_ms <= 1000, String(a.retry_after_ms));
  // The owner's device is not slowed down by them.
  const ch = await owner.request({ type: 'change_password', password: PW, new_password: 'a new password' });
  assert.equal(ch.type, 'account', JSON.stringify(ch));
  for (const c of [owner, ...xs]) await c.close();
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

test('many addresses flooding the password checks do not starve a real login', async () => {
  // The limits raised so that the queue alone stands between the flood and the real logins.
  const server = await startServer([...PROXY, '--login-attempts', '1000000', '--login-attempts-ip', '1000000']);
  const owner = await from(server, '203.0.113.1');
  assert.equal((await owner.request({ type: 'register', name: 'Ana', password: PW })).type, 'account');
  // 40 IPv4 addresses and 24 IPv6 sites, 2 connections each, wrong logins back to back.
  const ips = [...Array.from({ length: 40 }, (_, i) => `10.7.${i}.1`),
    ...Array.from({ length: 24 }, (_, i) => `2001:db8:${(i + 1).toString(16)}::1`)];
  const flood = await Promise.all(ips.flatMap((ip) => [from(server, ip), from(server, ip)]));
  let stop = false;
  const tally = { busy: 0, bad_credentials: 0, other: 0 };
  const loops = flood.map(async (c) => {
    while (!stop) {
      const r = await c.request({ type: 'login', name: 'Nobody', password: 'wrong horse' }, 60000);
      if (r.code in tally) tally[r.code]++;
      else tally.other++;
    }
  });
  await sleep(1000); // the queue is full
  // Ten real logins from an address of their own, one after the other: none is busy.
  const real = await from(server, '192.0.2.10');
  const codes = [];
  for (let i = 0; i < 10; i++) {
    const r = await real.request({ type: 'login', name: 'Ana', password: PW }, 60000);
    codes.push(r.type === 'welcome' ? 'welcome' : r.code);
  }
  stop = true;
  await Promise.all(loops);
  assert.deepEqual(codes, Array(10).fill('welcome'));
  assert.equal(tally.other, 0, JSON.stringify(tally));
  assert.ok(tally.busy > 0, 'the flood filled the queue: ' + JSON.stringify(tally));
  for (const c of [owner, real, ...flood]) await c.close();
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});
