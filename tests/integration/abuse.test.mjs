// What one client address can hold (security probe, findings 1, 2, 6-8, 13), against the real
// server: connections that never say hello, rooms, public rooms, lobby watchers and new players
// per address, spectators' chat per room, and IPv6 clients counted by /64. Addresses come from
// X-Forwarded-For through 127.0.0.1 named as the trusted proxy (PROXY), as behind nginx.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, startServer } from './harness.mjs';

// No proxy is trusted unless named (--trust-proxy): the tests' own address plays the nginx.
const PROXY = ['--trust-proxy', '127.0.0.1'];
const from = (server, ip, opts = {}) => Client.connect(server, { ...opts, headers: { 'X-Forwarded-For': ip } });

test('a connection that never says hello is closed after --hello-s; one that does stays', async () => {
  const server = await startServer(['--hello-s', '1']);
  try {
    const silent = await Client.connect(server, { hello: false });
    const talker = await Client.connect(server, { name: 'Talker' });
    const closed = await silent.closed;
    assert.equal(closed.code, 1008);
    const err = silent.inbox.find((m) => m.type === 'error');
    assert.equal(err && err.code, 'hello_required');
    // Well past the deadline the identified one is still served.
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal((await talker.request({ type: 'lobby', watch: false })).type, 'lobby');
    assert.match(server.log, /no hello within 1 s/);
    // Nobody waits for a hello now (the deadline's timer stopped); the next silent ones are
    // closed too, the second on its own deadline half a second after the first's.
    const late = await Client.connect(server, { hello: false });
    await new Promise((r) => setTimeout(r, 500));
    const later = await Client.connect(server, { hello: false });
    assert.equal((await late.closed).code, 1008);
    assert.equal(later.ws.readyState, 1); // Its own deadline is still ahead.
    assert.equal((await later.closed).code, 1008);
    await talker.close();
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('IPv6 clients are counted by /64', async () => {
  const server = await startServer(['--max-per-ip', '3', ...PROXY]);
  try {
    const in64 = [];
    for (let i = 1; i <= 3; i++) in64.push(await from(server, `2001:db8:1:2::${i}`, { name: `Six${i}` }));
    // A fourth address of the same /64 is one client too many...
    const fourth = await from(server, '2001:db8:1:2:aaaa:bbbb:cccc:dddd', { hello: false });
    assert.equal((await fourth.closed).code, 1013);
    // ...another /64 is another client.
    const other = await from(server, '2001:db8:1:3::1', { name: 'Other' });
    assert.equal((await other.request({ type: 'lobby', watch: false })).type, 'lobby');
    for (const c of [...in64, other]) await c.close();
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('rooms, public rooms, lobby watchers and new players per address', async () => {
  const server = await startServer([...PROXY, '--rooms-per-ip', '3', '--public-rooms-per-ip', '1', '--watchers-per-ip', '1',
    '--players-per-ip', '4']);
  try {
    const a = await from(server, '203.0.113.9', { name: 'A' });
    const b = await from(server, '203.0.113.9', { name: 'B' });
    const x = await from(server, '198.51.100.7', { name: 'X' });
    assert.equal((await a.request({ type: 'create', game: 'kalah' })).type, 'joined');
    const second = await b.request({ type: 'create', game: 'kalah' });
    assert.equal(second.code, 'too_many_rooms', 'a second public room from the address');
    assert.equal((await x.request({ type: 'create', game: 'kalah' })).type, 'joined', 'another address');
    assert.equal((await b.request({ type: 'create', game: 'kalah', visibility: 'private' })).type, 'joined');
    assert.equal((await b.request({ type: 'create', game: 'oware', visibility: 'private' })).type, 'joined');
    assert.equal((await a.request({ type: 'create', game: 'kalah', visibility: 'private' })).code, 'too_many_rooms');
    // Lobby watchers.
    assert.equal((await a.request({ type: 'lobby' })).type, 'lobby');
    const w = await b.request({ type: 'lobby' });
    assert.equal(w.code, 'too_many_watchers');
    assert.equal((await b.request({ type: 'lobby', watch: false })).type, 'lobby', 'a look is fine');
    assert.equal((await x.request({ type: 'lobby' })).type, 'lobby');
    // New players: A and B were two of the four; two more, then rate_limited; a known token is fine.
    await from(server, '203.0.113.9', { name: 'C' });
    await from(server, '203.0.113.9', { name: 'D' });
    const e = await from(server, '203.0.113.9', { hello: false });
    assert.equal((await e.request({ type: 'hello', name: 'E' })).code, 'rate_limited');
    const back = await e.request({ type: 'hello', token: a.me.token });
    assert.equal(back.type, 'welcome');
    assert.equal(back.resumed, true);
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('spectators of a room share one chat bucket; the players always talk', async () => {
  // The room's chat allowance is each connection's --rate and --burst (srv_room_chat.c): 5 lines
  // a second and 15 at once here, for the four spectators together.
  const server = await startServer(['--rate', '5', '--burst', '15', ...PROXY]);
  try {
    const a = await Client.connect(server, { name: 'A' });
    const b = await Client.connect(server, { name: 'B' });
    const { room } = await (async () => {
      const j = await a.request({ type: 'create', game: 'kalah', seat: 'south' });
      await b.request({ type: 'join', room: j.room });
      return j;
    })();
    const specs = [];
    for (let i = 0; i < 4; i++) {
      const s = await from(server, `198.51.100.${i + 1}`, { name: `S${i}` });
      await s.request({ type: 'join', room, role: 'spectator' });
      specs.push(s);
    }
    const replies = [];
    for (let k = 0; k < 10; k++) for (const s of specs) replies.push(s.request({ type: 'chat', room, text: 'x'.repeat(300) }));
    const got = await Promise.all(replies);
    const limited = got.filter((m) => m.type === 'error' && m.code === 'rate_limited').length;
    assert.ok(limited >= 20, `most of 40 quick lines are refused (${limited})`);
    assert.ok(got.filter((m) => m.type === 'chat').length >= 15, 'the burst goes through');
    assert.equal((await a.request({ type: 'chat', room, text: 'gg' })).type, 'chat');
    assert.equal((await b.request({ type: 'chat', room, text: 'gg' })).type, 'chat');
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});
