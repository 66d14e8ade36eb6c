// Identity and time: reconnection with the token, abandonment, and a flag falling on its own.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, pair, sleep, startServer } from './harness.mjs';

let server;
before(async () => { server = await startServer(['--abandon-ms', '600']); });
after(async () => { assert.deepEqual(await server.stop(), { code: 0, signal: null }); });

test('a player reconnecting with the token gets the same identity, seat and state', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const { room } = await pair(a, b);
  await a.request({ type: 'move', room, house: 1, ply: 0 }); // Now North's turn.
  const { player, token } = a.me;
  await a.close();
  const gone = await b.state(room, (s) => s.players.south.connected === false);
  assert.equal(gone.abandon, null, 'no countdown while it is not the absent player\'s turn');

  const back = await Client.connect(server, { name: 'Ana', token });
  assert.equal(back.me.player, player);
  assert.equal(back.me.token, token);
  assert.equal(back.me.resumed, true);
  const joined = await back.next('joined');
  assert.deepEqual(joined, { type: 'joined', room, role: 'player', seat: 'south' });
  const st = await back.state(room);
  assert.equal(st.you, 'south');
  assert.equal(st.ply, 1);
  assert.equal((await b.state(room, (s) => s.players.south.connected)).players.south.connected, true);
  // An unknown token is simply a new identity.
  const other = await Client.connect(server, { token: 'f'.repeat(64) });
  assert.notEqual(other.me.player, player);
  assert.equal(other.me.resumed, false);
  assert.match(other.me.name, /^Guest \d{4}$/);
  for (const c of [back, b, other]) await c.close();
});

test('an absent player loses by abandonment only after the countdown on their own turn', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const { room } = await pair(a, b);
  await b.close(); // North leaves on South's turn: nothing happens.
  await sleep(900);
  let st = await a.request({ type: 'move', room, house: 1, ply: 0 });
  assert.equal(st.status, 'playing');
  assert.equal(st.abandon.seat, 'north');
  assert.ok(st.abandon.ms > 0 && st.abandon.ms <= 600);
  st = await a.state(room, (s) => s.status === 'finished', 5000);
  assert.deepEqual([st.result.winner, st.result.reason], ['south', 'abandoned']);
  await a.close();
});

test('a flag falls on a short clock with nobody sending anything', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const { room, state } = await pair(a, b, { clock: { initial_ms: 400, increment_ms: 0 } });
  // Each side's first move is free; then South's clock runs out.
  assert.equal(state.clock.running, null);
  assert.equal(state.first_move.seat, 'south');
  assert.ok(state.first_move.ms <= 400);
  const moved = await a.request({ type: 'move', room, house: 1, ply: 0 });
  assert.equal(moved.clock.running, null);
  assert.equal(moved.clock.south_ms, 400);
  assert.equal(moved.first_move.seat, 'north'); // North's own first move has its deadline.
  const answered = await b.request({ type: 'move', room, house: 1, ply: 1 });
  assert.equal(answered.clock.running, 'south');
  assert.equal(answered.clock.north_ms, 400);
  assert.equal(answered.first_move, null);
  const t0 = Date.now();
  const end = await b.state(room, (s) => s.status === 'finished', 5000);
  assert.ok(Date.now() - t0 < 5000);
  assert.deepEqual([end.result.winner, end.result.reason], ['north', 'timeout']);
  assert.equal(end.clock.south_ms, 0);
  assert.equal(end.clock.running, null);
  await a.close();
  await b.close();
});

test('the first mover who never moves: the game is aborted at the first-move deadline', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const { room, state } = await pair(a, b, { clock: { initial_ms: 700, increment_ms: 0 } });
  // The deadline is the initial time here (shorter than 30 s); neither clock runs meanwhile.
  assert.equal(state.clock.running, null);
  assert.ok(state.first_move.ms > 0 && state.first_move.ms <= 700);
  const end = await b.state(room, (s) => s.status === 'finished', 5000);
  assert.deepEqual(end.result, { winner: null, reason: 'aborted', score: null });
  assert.equal(end.game_id, null);
  assert.equal(end.clock.south_ms, 700);
  assert.equal(end.first_move, null);
  const late = await a.request({ type: 'move', room, house: 1, ply: 0 });
  assert.equal(late.code, 'game_over');
  await a.close();
  await b.close();
});
