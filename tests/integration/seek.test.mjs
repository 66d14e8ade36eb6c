// Quick play from a queue of seekers and the move deadline of untimed games (issue 25, item 7),
// against the real binary. The deadline is configurable (--move-deadline-ms): short here, and
// nothing asserts how long anything took.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, startServer } from './harness.mjs';

let server;
// The tests' own address plays the nginx, so that each client can come from an address of its own.
before(async () => { server = await startServer(['--move-deadline-ms', '1500', '--trust-proxy', '127.0.0.1']); });
after(async () => { assert.deepEqual(await server.stop(), { code: 0, signal: null }); });

const from = (ip, name) => Client.connect(server, { name, headers: { 'X-Forwarded-For': ip } });

test('an untimed game: the side that does not move before its deadline loses by abandonment', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const j = await a.request({ type: 'create', game: 'kalah', seat: 'south' });
  await b.request({ type: 'join', room: j.room });
  const started = await a.state(j.room, (s) => s.status === 'playing');
  assert.equal(started.move_deadline.seat, 'south');
  assert.ok(started.move_deadline.ms > 0 && started.move_deadline.ms <= 1500);
  assert.equal(started.clock, null);
  // South moves (house 1 of 6x4: no extra turn): North's deadline starts afresh.
  const moved = await a.request({ type: 'move', room: j.room, house: 1, ply: 0 });
  assert.equal(moved.move_deadline.seat, 'north');
  // North never moves: it loses, without anybody sending anything.
  const over = await a.state(j.room, (s) => s.status === 'finished');
  assert.deepEqual([over.result.reason, over.result.winner], ['abandoned', 'south']);
  assert.equal(over.move_deadline, null);
  const late = await b.request({ type: 'move', room: j.room, house: 1, ply: 1 });
  assert.equal(late.code, 'game_over');
  // A clocked game has no move deadline: its clock decides.
  const c = await a.request({ type: 'create', game: 'kalah', seat: 'south', clock: { initial_ms: 600000, increment_ms: 0 } });
  await b.request({ type: 'join', room: c.room });
  const clocked = await a.state(c.room, (s) => s.status === 'playing');
  assert.equal(clocked.move_deadline, null);
  for (const x of [a, b]) await x.close();
});

test('one seek per player: a quick play in another pool replaces the waiting one', async () => {
  const a = await from('198.51.100.20', 'Ana');
  const b = await from('198.51.100.21', 'Bob');
  const k = await a.request({ type: 'quick', game: 'kalah', clock: { initial_ms: 600000, increment_ms: 5000 } });
  assert.equal((await a.state(k.room)).status, 'waiting');
  const o = await a.request({ type: 'quick', game: 'oware', clock: { initial_ms: 600000, increment_ms: 5000 } });
  assert.notEqual(o.room, k.room);
  const closed = await a.next((m) => m.type === 'closed' && m.room === k.room);
  assert.equal(closed.reason, 'replaced');
  assert.equal((await b.request({ type: 'join', room: k.room })).code, 'not_found');
  // The same pool again: the same room.
  assert.equal((await a.request({ type: 'quick', game: 'oware', clock: { initial_ms: 600000, increment_ms: 5000 } })).room, o.room);
  const jb = await b.request({ type: 'quick', game: 'oware', clock: { initial_ms: 600000, increment_ms: 5000 } });
  assert.equal(jb.room, o.room);
  for (const x of [a, b]) await x.close();
});

test('one address with many waiting rooms does not take every quick player', async () => {
  // The probe's farm: one address, two players, six waiting rooms of the pool, all older than
  // Lu's. Quick players from a third address: the first gets the farm's oldest room, the second
  // Lu (the farm, just paired, waits behind it), the third the farm again.
  const clock = { initial_ms: 300000, increment_ms: 3000 };
  const farm = [await from('203.0.113.50', 'Farm1'), await from('203.0.113.50', 'Farm2')];
  const rooms = [];
  for (let i = 0; i < 6; i++) rooms.push((await farm[i % 2].request({ type: 'create', game: 'congkak', clock })).room);
  const lu = await from('198.51.100.30', 'Lu');
  const lroom = (await lu.request({ type: 'create', game: 'congkak', clock })).room;
  const got = [];
  const quick = [];
  for (let i = 0; i < 3; i++) {
    const q = await from('192.0.2.40', `Quick${i}`);
    quick.push(q);
    got.push((await q.request({ type: 'quick', game: 'congkak', clock })).room);
  }
  assert.deepEqual(got, [rooms[0], lroom, rooms[1]]);
  for (const x of [...farm, lu, ...quick]) await x.close();
});
