// Whole games over the real server: each game with two players and a spectator, local rooms,
// resignation, draws and rematches.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, pair, playOut, startServer } from './harness.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { assert.deepEqual(await server.stop(), { code: 0, signal: null }); });

for (const game of ['kalah', 'oware', 'congkak']) {
  test(`a whole game of ${game} with two players and a spectator`, async () => {
    const a = await Client.connect(server, { name: 'Ana' });
    const b = await Client.connect(server, { name: 'Bob' });
    const s = await Client.connect(server, { name: 'Sue' });
    const { room, state } = await pair(a, b, { game, clock: { initial_ms: 600000, increment_ms: 1000 } });
    assert.equal(state.game, game);
    assert.equal(state.pits.length, 2 * state.houses + 2);
    const js = await s.request({ type: 'join', room, role: 'spectator' });
    assert.deepEqual(js, { type: 'joined', id: js.id, room, role: 'spectator', seat: null });
    const first = await s.state(room);
    assert.equal(first.you, 'spectator');
    assert.equal(first.players.south.name, 'Ana');
    assert.equal(first.players.north.name, 'Bob');
    assert.equal(first.players.north.connected, true);
    assert.equal(first.spectators, 1);

    const { state: end, moves, played } = await playOut(room, { south: a, north: b }, state);
    assert.equal(end.status, 'finished');
    assert.ok(['south', 'north', 'draw'].includes(end.result.winner));
    assert.ok(['no_seeds', 'majority', 'cannot_feed', 'repetition'].includes(end.result.reason), end.result.reason);
    assert.equal(end.ply, moves);
    // A state after a move does not list the moves; a resync gives them all, as played.
    assert.equal(end.moves, undefined);
    const full = await s.request({ type: 'resync', room });
    assert.equal(full.type, 'state');
    assert.equal(full.you, 'spectator');
    assert.equal(full.moves.length, moves);
    assert.deepEqual(full.moves, played);
    assert.deepEqual(end.legal, []);
    assert.equal(end.turn, null);
    assert.equal(end.clock.running, null);
    const total = end.pits.reduce((x, y) => x + y, 0);
    assert.equal(total, 2 * end.houses * end.seeds);
    // The spectator saw the same final state, with a trace of the last move.
    const last = await s.state(room, (m) => m.status === 'finished');
    assert.deepEqual(last.pits, end.pits);
    assert.deepEqual(last.result, end.result);
    assert.equal(last.you, 'spectator');
    assert.ok(Array.isArray(last.last.trace) && last.last.trace.length > 0);
    assert.equal(last.last.trace[0].kind, 'pick');
    for (const c of [a, b, s]) await c.close();
  });
}

test('a local room gives one connection both seats', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  const joined = await a.request({ type: 'create', game: 'congkak', houses: 3, seeds: 2, opponent: 'local', options: { rounds: 'match' } });
  assert.equal(joined.seat, 'both');
  assert.equal(joined.role, 'player');
  const st = await a.state(joined.room);
  assert.equal(st.you, 'both');
  assert.equal(st.status, 'playing');
  assert.equal(st.local, true);
  const { state: end } = await playOut(joined.room, { south: a, north: a }, st);
  assert.equal(end.status, 'finished');
  assert.equal(end.options.rounds, 'match');
  await a.close();
});

test('resign, draw offer and answer, and a rematch with seats swapped', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const { room } = await pair(a, b, { game: 'oware' });
  let r = await a.request({ type: 'draw', room, action: 'offer' });
  assert.equal(r.type, 'state');
  assert.equal(r.draw_offer, 'south');
  let seen = await b.state(room, (m) => m.draw_offer === 'south');
  r = await b.request({ type: 'draw', room, action: 'decline' });
  assert.equal(r.draw_offer, null);
  await a.request({ type: 'draw', room, action: 'offer' });
  r = await b.request({ type: 'draw', room, action: 'accept' });
  assert.equal(r.status, 'finished');
  assert.deepEqual([r.result.winner, r.result.reason], ['draw', 'agreement']);

  r = await a.request({ type: 'rematch', room });
  assert.equal(r.rematch.south, true);
  seen = await b.state(room, (m) => m.rematch.south === true);
  assert.equal(seen.status, 'finished');
  r = await b.request({ type: 'rematch', room });
  assert.equal(r.status, 'playing');
  assert.equal(r.game_no, 2);
  assert.equal(r.you, 'south'); // Bob was North: seats swapped, and South moves first.
  assert.equal(r.players.south.name, 'Bob');
  assert.equal(r.turn, 'south');
  const ana = await a.state(room, (m) => m.game_no === 2);
  assert.equal(ana.you, 'north');

  r = await a.request({ type: 'resign', room });
  assert.equal(r.status, 'finished');
  assert.deepEqual([r.result.winner, r.result.reason], ['south', 'resignation']);
  await a.close();
  await b.close();
});

test('chat is broadcast with the sender name and time', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const { room } = await pair(a, b);
  const before = Date.now();
  const mine = await a.request({ type: 'chat', room, text: 'good luck 🙂' });
  assert.equal(mine.type, 'chat');
  const theirs = await b.next('chat');
  assert.deepEqual({ ...theirs, at: 0 }, { type: 'chat', room, from: 'Ana', text: 'good luck 🙂', at: 0,
    player: a.me.player, account: false, seat: 'south', spectator: false });
  assert.ok(theirs.at >= before - 1000 && theirs.at <= Date.now() + 1000);
  await a.close();
  await b.close();
});
