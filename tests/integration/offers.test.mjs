// Takeback and the answers to offers over the real server: a same-screen game takes back at once;
// between people a request is accepted or declined and the asker sees the answer; a declined draw
// offer shows to the player who offered; the stored moves follow a takeback across a restart.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, followMoves, pair, startServer } from './harness.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { assert.deepEqual(await server.stop(), { code: 0, signal: null }); });

// Kalah 6x4 by hand: South 1 (North to move), North 3 (4 seeds reach North's store: extra turn),
// North 1 (South to move).
const OPENING = [['south', 1], ['north', 3], ['north', 1]];

async function play(room, seats, moves, from = 0) {
  let st;
  for (const [i, [seat, house]] of moves.entries()) {
    st = await seats[seat].request({ type: 'move', room, house, ply: from + i });
    assert.equal(st.type, 'state', JSON.stringify(st));
  }
  return st;
}

test('a same-screen game takes back its last move at once, one move at a time', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  const j = await a.request({ type: 'create', game: 'kalah', opponent: 'local' });
  const room = j.room;
  let list = (await a.state(room)).moves;
  assert.deepEqual(list, []);
  let st = await play(room, { south: a, north: a }, OPENING);
  st = await a.request({ type: 'takeback', room, action: 'offer' });
  assert.equal(st.type, 'state');
  assert.equal(st.ply, 2);
  assert.equal(st.turn, 'north');
  assert.deepEqual({ seat: st.last.seat, house: st.last.house }, { seat: 'north', house: 3 });
  // A client following the list (docs/protocol.md) cuts it to the new ply.
  list = followMoves([{ seat: 'south', house: 1 }, { seat: 'north', house: 3 }, { seat: 'north', house: 1 }], st);
  assert.deepEqual(list, [{ seat: 'south', house: 1 }, { seat: 'north', house: 3 }]);
  st = await a.request({ type: 'takeback', room, action: 'offer' });
  st = await a.request({ type: 'takeback', room, action: 'offer' });
  assert.equal(st.ply, 0);
  assert.equal(st.last, null);
  const none = await a.request({ type: 'takeback', room, action: 'offer' });
  assert.equal(none.code, 'nothing_to_take_back');
  assert.equal(none.request, 'takeback');
  await a.close();
});

test('between people the other side accepts or declines; the asker sees a refusal', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const s = await Client.connect(server, { name: 'Sue' });
  const { room } = await pair(a, b);
  await s.request({ type: 'join', room, role: 'spectator' });
  await play(room, { south: a, north: b }, OPENING);
  assert.equal((await s.request({ type: 'takeback', room, action: 'offer' })).code, 'not_a_player');
  assert.equal((await b.request({ type: 'takeback', room, action: 'accept' })).code, 'no_takeback_offer');
  let r = await a.request({ type: 'takeback', room, action: 'offer' });
  assert.equal(r.takeback, 'south');
  assert.equal((await b.state(room, (x) => x.takeback === 'south')).ply, 3);
  r = await b.request({ type: 'takeback', room, action: 'decline' });
  assert.equal(r.takeback, null);
  assert.equal(r.takeback_declined, 'south');
  const seen = await a.state(room, (x) => x.takeback_declined === 'south');
  assert.equal(seen.ply, 3);
  // Asked again and accepted: South's move and North's two after it.
  await a.request({ type: 'takeback', room, action: 'offer' });
  r = await b.request({ type: 'takeback', room, action: 'accept' });
  assert.equal(r.ply, 0);
  assert.equal(r.turn, 'south');
  const watched = await s.state(room, (x) => x.ply === 0);
  assert.equal(watched.takeback, null);
  assert.equal(watched.takeback_declined, null);
  // The game goes on; it ends; no takeback in a finished game.
  await a.request({ type: 'move', room, house: 2, ply: 0 });
  await b.request({ type: 'resign', room });
  assert.equal((await a.request({ type: 'takeback', room, action: 'offer' })).code, 'game_over');
  for (const c of [a, b, s]) await c.close();
});

test('a declined draw offer shows to the player who offered it', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const { room, state } = await pair(a, b, { game: 'oware' });
  assert.equal(state.draw_declined, null);
  await a.request({ type: 'draw', room, action: 'offer' });
  await b.state(room, (x) => x.draw_offer === 'south');
  await b.request({ type: 'draw', room, action: 'decline' });
  const seen = await a.state(room, (x) => x.draw_declined === 'south');
  assert.equal(seen.draw_offer, null);
  // Until the next move.
  const moved = await a.request({ type: 'move', room, house: 1, ply: 0 });
  assert.equal(moved.draw_declined, null);
  await a.close();
  await b.close();
});

test('a takeback reaches the database: after a restart the game is as taken back', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-takeback-'));
  let srv;
  try {
    srv = await startServer([], { data });
    let a = await Client.connect(srv, { name: 'Ana' });
    let b = await Client.connect(srv, { name: 'Bob' });
    const { room } = await pair(a, b, { clock: { initial_ms: 600000, increment_ms: 0 } });
    await play(room, { south: a, north: b }, OPENING);
    await b.request({ type: 'takeback', room, action: 'offer' });
    const taken = await a.request({ type: 'takeback', room, action: 'accept' });
    assert.equal(taken.ply, 2);
    assert.equal(taken.turn, 'north');
    const tokens = [a.me.token, b.me.token];
    await a.close();
    await b.close();
    assert.deepEqual(await srv.stop(), { code: 0, signal: null });

    srv = await startServer([], { data });
    a = await Client.connect(srv, { token: tokens[0] });
    const back = await a.state(room);
    assert.equal(back.ply, 2);
    assert.deepEqual(back.moves, [{ seat: 'south', house: 1 }, { seat: 'north', house: 3 }]);
    assert.deepEqual(back.pits, taken.pits);
    assert.equal(back.turn, 'north');
    // North's clock runs again from its time at the takeback (the few ms since the restart).
    const spent = taken.clock.north_ms - back.clock.north_ms;
    assert.ok(spent >= 0 && spent < 1500, `North lost ${spent} ms`);
    assert.equal(back.clock.south_ms, taken.clock.south_ms);
    // North plays ply 2 again (another house) and it is stored.
    b = await Client.connect(srv, { token: tokens[1] });
    const again = await b.request({ type: 'move', room, house: 2, ply: 2 });
    assert.equal(again.type, 'state');
    assert.equal(again.ply, 3);
    await a.close();
    await b.close();
    assert.deepEqual(await srv.stop(), { code: 0, signal: null });
  } finally {
    await srv?.stop();
    fs.rmSync(data, { recursive: true, force: true });
  }
});
