// Quick pairing and the live lobby.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, startServer } from './harness.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { assert.deepEqual(await server.stop(), { code: 0, signal: null }); });

test('quick pairing joins the oldest waiting room with the same table', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const c = await Client.connect(server, { name: 'Cy' });
  const ja = await a.request({ type: 'quick', game: 'oware', clock: { initial_ms: 180000, increment_ms: 2000 } });
  assert.equal(ja.type, 'joined');
  assert.equal((await a.state(ja.room)).status, 'waiting');
  // Another clock: another room.
  const jc = await c.request({ type: 'quick', game: 'oware' });
  assert.notEqual(jc.room, ja.room);
  const jb = await b.request({ type: 'quick', game: 'oware', clock: { initial_ms: 180000, increment_ms: 2000 } });
  assert.equal(jb.room, ja.room);
  const st = await b.state(ja.room);
  assert.equal(st.status, 'playing');
  // No clock runs before the first move; South has its first-move deadline.
  const started = await a.state(ja.room, (s) => s.status === 'playing');
  assert.equal(started.clock.running, null);
  assert.equal(started.first_move.seat, 'south');
  for (const x of [a, b, c]) await x.close();
});

test('the lobby lists public rooms and keeps sending changes until unwatched', async () => {
  const w = await Client.connect(server, { name: 'Wes' });
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const first = await w.request({ type: 'lobby' });
  assert.equal(first.type, 'lobby');
  assert.ok(Array.isArray(first.rooms));
  const pub = await a.request({ type: 'create', game: 'congkak', clock: { initial_ms: 60000, increment_ms: 0 } });
  const priv = await b.request({ type: 'create', game: 'kalah', visibility: 'private' });
  const listed = await w.next((m) => m.type === 'lobby' && m.rooms.some((r) => r.code === pub.room));
  const entry = listed.rooms.find((r) => r.code === pub.room);
  assert.deepEqual(entry, {
    room: pub.room, code: pub.room, game: 'congkak', houses: 7, seeds: 7,
    options: { lap_capture: false, rounds: 'single' }, clock: { initial_ms: 60000, increment_ms: 0 },
    players: entry.players, status: 'waiting', spectators: 0,
    rated: false, ratings: { south: null, north: null },
  });
  assert.equal(entry.players.south ?? entry.players.north, 'Ana');
  assert.ok(!listed.rooms.some((r) => r.code === priv.room), 'private rooms are never listed');
  // The private room is reachable by its code.
  const j = await w.request({ type: 'join', room: priv.room.toLowerCase() });
  assert.equal(j.type, 'joined');
  assert.equal(j.room, priv.room);
  // Joining the public one changes its status in the list.
  await b.request({ type: 'join', room: pub.room });
  const playing = await w.next((m) => m.type === 'lobby' && m.rooms.some((r) => r.code === pub.room && r.status === 'playing'));
  assert.ok(playing);
  // Unwatch: no more lists.
  const off = await w.request({ type: 'lobby', watch: false });
  assert.equal(off.type, 'lobby');
  w.drain();
  await a.request({ type: 'resign', room: pub.room });
  await a.request({ type: 'create', game: 'oware' });
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(w.inbox.filter((m) => m.type === 'lobby').length, 0);
  for (const x of [w, a, b]) await x.close();
});

// A frame longer than 65,535 bytes has the 64-bit length of RFC 6455 (the server frames what it
// sends itself, srv_net.c): a lobby of 300 public rooms is one list of about 75 KB, read whole.
test('a lobby list longer than 64 KiB arrives whole', async () => {
  const big = await startServer(['--rooms-per-player', '400', '--lobby-rooms', '400']);
  try {
    const a = await Client.connect(big, { name: 'Ana' });
    const made = new Set();
    for (let i = 0; i < 300; i++) made.add((await a.request({ type: 'create', game: 'oware' })).room);
    const w = await Client.connect(big, { name: 'Wes' });
    const list = await w.request({ type: 'lobby' });
    assert.equal(list.type, 'lobby');
    assert.ok(JSON.stringify(list).length > 65535, `a list of ${JSON.stringify(list).length} bytes`);
    assert.deepEqual(new Set(list.rooms.map((r) => r.code)), made);
    // And the connection goes on: the next frame is read as usual.
    assert.equal((await w.request({ type: 'lobby', watch: false })).type, 'lobby');
    for (const x of [a, w]) await x.close();
  } finally {
    assert.deepEqual(await big.stop(), { code: 0, signal: null });
  }
});
