// A player's games in progress (my_rooms) and quick play's pools in the lobby, over the real
// server: the list follows the player's rooms as they open, start, move, end and come back with a
// rematch; the lobby shows how many players wait in each pool, live.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, pair, startServer } from './harness.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { assert.deepEqual(await server.stop(), { code: 0, signal: null }); });

// The next my_rooms list of c that pred accepts.
const list = (c, pred) => c.next((m) => m.type === 'my_rooms' && pred(m.rooms));

test('my_rooms lists the unfinished rooms where I sit, and follows them', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const first = await a.request({ type: 'my_rooms' });
  assert.equal(first.type, 'my_rooms');
  assert.deepEqual(first.rooms, []);
  // A private room: not in the lobby, in my list.
  const { room } = await pair(a, b, { game: 'congkak', visibility: 'private', clock: { initial_ms: 300000, increment_ms: 3000 } });
  const playing = await list(a, (r) => r.length === 1 && r[0].status === 'playing');
  assert.deepEqual(playing.rooms[0], {
    room, game: 'congkak', houses: 7, seeds: 7, options: { lap_capture: false, rounds: 'single' },
    clock: { initial_ms: 300000, increment_ms: 3000 }, visibility: 'private', local: false,
    status: 'playing', you: 'south', opponent: { id: b.me.player, name: 'Bob', connected: true },
    turn: 'south', your_turn: true, ply: 0, game_no: 1,
  });
  await a.request({ type: 'move', room, house: 1, ply: 0 });
  const moved = await list(a, (r) => r.length === 1 && r[0].ply >= 1);
  assert.equal(moved.rooms[0].your_turn, moved.rooms[0].turn === 'south');
  // The game ends: gone from the list; a rematch brings the room back, game 2, seats swapped.
  await b.request({ type: 'resign', room });
  await list(a, (r) => r.length === 0);
  await a.request({ type: 'rematch', room });
  await b.request({ type: 'rematch', room });
  const again = await list(a, (r) => r.length === 1 && r[0].game_no === 2);
  assert.equal(again.rooms[0].game_no, 2);
  assert.equal(again.rooms[0].you, 'north');
  assert.equal(again.rooms[0].your_turn, false);
  // Unwatched: the last list, and no more.
  assert.equal((await a.request({ type: 'my_rooms', watch: false })).rooms.length, 1);
  a.drain();
  await b.request({ type: 'resign', room });
  await a.state(room, (s) => s.status === 'finished');
  assert.equal(a.inbox.filter((m) => m.type === 'my_rooms').length, 0);
  await a.close();
  await b.close();
});

test('the lobby shows how many wait in each pool, live; quick play pairs within a pool', async () => {
  const w = await Client.connect(server, { name: 'Wes' });
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const first = await w.request({ type: 'lobby' });
  assert.equal(first.pools.length, 15);
  assert.deepEqual(first.pools.slice(0, 5).map((p) => [p.game, p.clock && [p.clock.initial_ms, p.clock.increment_ms]]),
    [['kalah', null], ['kalah', [60000, 0]], ['kalah', [180000, 2000]], ['kalah', [300000, 3000]], ['kalah', [600000, 5000]]]);
  assert.deepEqual([...new Set(first.pools.map((p) => p.game))], ['kalah', 'oware', 'congkak']);
  const count = (m, game, ms) => m.pools.find((p) => p.game === game && (ms ? p.clock && p.clock.initial_ms === ms : !p.clock)).waiting;
  const before = count(first, 'oware', 300000);
  const j = await a.request({ type: 'quick', game: 'oware', clock: { initial_ms: 300000, increment_ms: 3000 } });
  const up = await w.next((m) => m.type === 'lobby' && count(m, 'oware', 300000) === before + 1);
  assert.ok(up.rooms.some((r) => r.code === j.room));
  // Another pool: Bob waits on his own.
  const jb = await b.request({ type: 'quick', game: 'oware', clock: { initial_ms: 600000, increment_ms: 5000 } });
  assert.notEqual(jb.room, j.room);
  await w.next((m) => m.type === 'lobby' && count(m, 'oware', 600000) >= 1);
  await b.request({ type: 'leave', room: jb.room });
  // The same pool: paired with Ana, and the pool is empty again.
  const c = await Client.connect(server, { name: 'Cy' });
  const jc = await c.request({ type: 'quick', game: 'oware', clock: { initial_ms: 300000, increment_ms: 3000 } });
  assert.equal(jc.room, j.room);
  await w.next((m) => m.type === 'lobby' && count(m, 'oware', 300000) === before && count(m, 'oware', 600000) === 0);
  for (const x of [w, a, b, c]) await x.close();
});
