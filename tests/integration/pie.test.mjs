// The pie rule through the protocol (rule book, option `pie`; docs/protocol.md, "The pie rule"):
// the option at creation (on by default for rated Congkak), the state's `swap`, the swap as a
// `move` with "swap": true, the players changing seats with their clocks, the result and the
// archive naming the players at the end, takebacks that stop at the swap, the computer swapping
// and facing a swap, and a restart after a swap.
//
// Positions are worked by hand:
// - Congkak 2x1 (pits S1 S2 (S) N1 N2 (N)), "1 1 (0) 1 1 (0)": South 2 sows its store (again);
//   South 1 lands in its empty house 2, facing North's house 1 (1 seed): 2 captured,
//   "0 0 (3) 0 1 (0)", North to move. North's only move, house 2, sows its store; North moves
//   again with no seeds, so the game ends 3 to 1 for South. Swapping is worth +2 to North's
//   player: the computer swaps there.
// - Kalah 6x4: South 3 ends in its store (again); South 6 sows its store and North 1..4:
//   "4 4 0 5 5 0 (2) 5 5 5 5 4 4 (0)", North to move. North 1 (5 seeds) then leaves
//   "4 4 0 5 5 0 (2) 0 6 6 6 5 5 (0)", South to move.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Client, followMoves, sleep, startServer } from './harness.mjs';

const WAIT = 120000; // The computer's reply on a loaded machine under the sanitizers.
const CONGKAK_2X1 = { game: 'congkak', houses: 2, seeds: 1, options: { pie: true } };

async function stopClean(server) {
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
}

// a creates a room with fields (a is South), b joins; resolves with the room and b's first state.
async function pairUp(a, b, fields) {
  const j = await a.request({ type: 'create', seat: 'south', ...fields });
  assert.equal(j.type, 'joined', JSON.stringify(j));
  const jn = await b.request({ type: 'join', room: j.room });
  assert.equal(jn.type, 'joined', JSON.stringify(jn));
  const st = await b.state(j.room, (s) => s.status === 'playing');
  await a.state(j.room, (s) => s.status === 'playing');
  return { room: j.room, state: st };
}

async function move(c, room, house, ply) {
  const st = await c.request({ type: 'move', room, house, ply });
  assert.equal(st.type, 'state', JSON.stringify(st));
  return st;
}

test('two people: the swap is a move, the players change seats with their clocks, the result and the archive name the players at the end', async () => {
  const server = await startServer();
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bo' });
  const clock = { initial_ms: 60000, increment_ms: 1000 };
  const { room, state } = await pairUp(a, b, { ...CONGKAK_2X1, clock });
  assert.deepEqual(state.options, { lap_capture: false, rounds: 'single', pie: true });
  assert.equal(state.swap, null, 'nobody may swap before the first move');

  // Ana's first turn: 2 (again), then 1. Her swap during her own turn is no move of hers.
  let st = await move(a, room, 2, 0);
  assert.equal(st.turn, 'south');
  assert.equal(st.swap, null, 'the first turn is not over');
  const early = await a.request({ type: 'move', room, swap: true, ply: 1 });
  assert.equal(early.type, 'error');
  assert.equal(early.code, 'illegal_move');
  st = await move(a, room, 1, 1);
  assert.deepEqual(st.pits, [0, 0, 3, 0, 1, 0]);
  assert.equal(st.turn, 'north');
  assert.equal(st.swap, 'north', 'North may swap now');
  assert.deepEqual(st.legal, [2]);
  const before = st.clock;
  assert.equal(before.north_ms, 60000, "Bo has not moved: his clock is whole");
  assert.equal(before.running, null, 'no clock runs before a side\'s first move');

  // Bad swaps change nothing.
  for (const [msg, code, field] of [
    [{ swap: true, house: 2, ply: 2 }, 'bad_request', 'swap'],
    [{ ply: 2 }, 'bad_request', 'house'],
    [{ swap: 'yes', ply: 2 }, 'bad_request', 'house'],
  ]) {
    const e = await b.request({ type: 'move', room, ...msg });
    assert.equal(e.type, 'error', JSON.stringify(e));
    assert.equal(e.code, code);
    assert.equal(e.field, field);
  }
  const notYours = await a.request({ type: 'move', room, swap: true, ply: 2 });
  assert.equal(notYours.code, 'not_your_turn');
  const stale = await b.request({ type: 'move', room, swap: true, ply: 1 });
  assert.equal(stale.code, 'stale');

  // Bo swaps: the board and the side to move stay; Ana now holds North and moves.
  st = await b.request({ type: 'move', room, swap: true, ply: 2 });
  assert.equal(st.type, 'state', JSON.stringify(st));
  assert.equal(st.ply, 3);
  assert.deepEqual(st.pits, [0, 0, 3, 0, 1, 0]);
  assert.equal(st.turn, 'north');
  assert.deepEqual(st.last, { seat: 'north', house: null, swap: true, trace: [] });
  assert.equal(st.you, 'south');
  assert.equal(st.players.south.id, b.me.player);
  assert.equal(st.players.north.id, a.me.player);
  assert.equal(st.swap, null, 'once only');
  // Clocks follow the players: Bo's first move was free (60 s on South now), Ana's time is on
  // North and runs.
  assert.equal(st.clock.south_ms, 60000);
  assert.equal(st.clock.running, 'north');
  assert.ok(st.clock.north_ms <= before.south_ms && st.clock.north_ms > before.south_ms - 2000,
    `Ana's time moved to North: ${before.south_ms} -> ${st.clock.north_ms}`);
  const seenByA = await a.state(room, (s) => s.ply === 3);
  assert.equal(seenByA.you, 'north');
  // The moves list of a full state.
  const full = await b.request({ type: 'resync', room });
  assert.deepEqual(full.moves, [{ seat: 'south', house: 2 }, { seat: 'south', house: 1 },
    { seat: 'north', house: null, swap: true }]);
  assert.deepEqual(followMoves(full.moves.slice(0, 2), st), full.moves, 'the list follows the swap');

  // The swap is final: Bo's takeback would take it back; Ana's would take back her moves before it.
  for (const c of [a, b]) {
    const tb = await c.request({ type: 'takeback', room, action: 'offer' });
    assert.equal(tb.code, 'nothing_to_take_back', JSON.stringify(tb));
  }

  // Ana's only move as North ends the game 3 to 1: South wins, and South is Bo.
  const end = await move(a, room, 2, 3);
  assert.equal(end.status, 'finished');
  assert.deepEqual(end.result, { winner: 'south', reason: 'no_seeds', score: [3, 1] });
  assert.match(end.game_id, /^[0-9a-f]{16}$/);
  const rec = await (await fetch(`${server.http}/api/games/${end.game_id}`)).json();
  assert.equal(rec.players.south.id, b.me.player, 'the archive names the players at the end');
  assert.equal(rec.players.north.id, a.me.player);
  assert.deepEqual(rec.options, { lap_capture: false, rounds: 'single', pie: true });
  assert.equal(rec.result, 'south');
  assert.deepEqual(rec.moves.map((m) => [m.seat, m.house, m.swap === true]),
    [['south', 2, false], ['south', 1, false], ['north', null, true], ['north', 2, false]]);
  assert.deepEqual(rec.moves[2].pits, [0, 0, 3, 0, 1, 0], 'the swap moves no seed');
  assert.deepEqual(rec.moves[2].trace, []);
  assert.equal(rec.record, 'congkak 2x1 pie\n2 1 swap 2\n');
  const txt = await (await fetch(`${server.http}/api/games/${end.game_id}.txt`)).text();
  assert.match(txt, /S2 S1 Nswap N2/);

  // A rematch: the players swap seats again (the former North, Ana, is South and moves first).
  await a.request({ type: 'rematch', room });
  const re = await b.request({ type: 'rematch', room });
  assert.equal(re.game_no, 2);
  assert.equal(re.players.south.id, a.me.player);
  assert.equal(re.players.north.id, b.me.player);
  assert.equal(re.swap, null);
  await a.close();
  await b.close();
  await stopClean(server);
});

test('without the option, or before the first turn is over, the swap is illegal; the option needs a boolean', async () => {
  const server = await startServer();
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bo' });
  const plain = await pairUp(a, b, { game: 'kalah' });
  assert.equal(plain.state.swap, undefined, 'no swap field in a room without the option');
  assert.deepEqual(plain.state.options, { empty_capture: false });
  await move(a, plain.room, 1, 0); // 4 seeds from house 1 end in house 5: North to move.
  const e = await b.request({ type: 'move', room: plain.room, swap: true, ply: 1 });
  assert.equal(e.code, 'illegal_move');
  const first = await pairUp(a, b, { game: 'oware', options: { pie: true } });
  const e0 = await a.request({ type: 'move', room: first.room, swap: true, ply: 0 });
  assert.equal(e0.code, 'illegal_move', 'South cannot swap before anyone moved');
  const bad = await a.request({ type: 'create', game: 'kalah', options: { pie: 1 } });
  assert.equal(bad.code, 'bad_request');
  assert.equal(bad.field, 'options.pie');
  await a.close();
  await b.close();
  await stopClean(server);
});

test('rated Congkak has the pie rule unless the creator turns it off', async () => {
  const server = await startServer();
  const PW = 'correct horse battery';
  const c = await Client.connect(server, {});
  assert.equal((await c.request({ type: 'register', name: 'Pia', password: PW })).type, 'account');
  const clock = { initial_ms: 600000, increment_ms: 0 };
  const rated = await c.request({ type: 'create', game: 'congkak', rated: true, clock });
  assert.equal(rated.type, 'joined', JSON.stringify(rated));
  assert.equal((await c.state(rated.room)).options.pie, true);
  const off = await c.request({ type: 'create', game: 'congkak', rated: true, clock, options: { pie: false } });
  assert.equal((await c.state(off.room)).options.pie, undefined);
  const casual = await c.request({ type: 'create', game: 'congkak', clock });
  assert.equal((await c.state(casual.room)).options.pie, undefined, 'casual rooms default to off');
  const ratedKalah = await c.request({ type: 'create', game: 'kalah', rated: true, clock });
  assert.equal((await c.state(ratedKalah.room)).options.pie, undefined);
  await c.close();
  await stopClean(server);
});

test('the computer swaps when the first turn left the first mover ahead, and moves after a person swaps', async () => {
  const server = await startServer(['--computer-ms', '200', '--computer-threads', '2']);
  const c = await Client.connect(server, { name: 'Ana' });
  const j = await c.request({ type: 'create', opponent: 'computer', level: 4, seat: 'south', ...CONGKAK_2X1 }, WAIT);
  assert.equal(j.type, 'joined', JSON.stringify(j));
  let st = await c.state(j.room, (s) => s.status === 'playing');
  st = await move(c, j.room, 2, 0);
  st = await move(c, j.room, 1, 1);
  assert.equal(st.swap, 'north');
  const swapped = await c.state(j.room, (s) => s.ply === 3, WAIT);
  assert.deepEqual(swapped.last, { seat: 'north', house: null, swap: true, trace: [] });
  assert.equal(swapped.you, 'north');
  assert.equal(swapped.players.south.computer, true);
  assert.equal(swapped.turn, 'north');
  const end = await move(c, j.room, 2, 3);
  assert.deepEqual(end.result, { winner: 'south', reason: 'no_seeds', score: [3, 1] });

  // Against a computer that moves first (Kalah 6x4, the person on North): whatever its first turn,
  // the person swaps and the computer, now North, moves next.
  const k = await c.request({ type: 'create', opponent: 'computer', level: 2, seat: 'north', game: 'kalah', options: { pie: true } }, WAIT);
  st = await c.state(k.room, (s) => s.swap === 'north', WAIT);
  assert.equal(st.you, 'north');
  assert.ok(st.ply >= 1);
  const after = await c.request({ type: 'move', room: k.room, swap: true, ply: st.ply });
  assert.equal(after.type, 'state', JSON.stringify(after));
  assert.equal(after.you, 'south');
  assert.equal(after.players.north.computer, true);
  const reply = await c.state(k.room, (s) => s.ply === st.ply + 2, WAIT);
  assert.equal(reply.last.seat, 'north', 'the computer moved from its new side');
  assert.ok(Number.isInteger(reply.last.house) && reply.last.house >= 1 && reply.last.house <= 6);
  await c.close();
  await stopClean(server);
});

test('after a restart a swapped game comes back with the players on their new sides and their clocks', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-pie-'));
  try {
    let server = await startServer([], { data });
    let a = await Client.connect(server, { name: 'Ana' });
    let b = await Client.connect(server, { name: 'Bo' });
    const clock = { initial_ms: 60000, increment_ms: 2000 };
    const { room } = await pairUp(a, b, { game: 'kalah', options: { pie: true }, clock });
    await move(a, room, 3, 0);
    let st = await move(a, room, 6, 1);
    assert.equal(st.swap, 'north');
    const anaTime = st.clock.south_ms;
    st = await b.request({ type: 'move', room, swap: true, ply: 2 });
    assert.equal(st.type, 'state');
    const tokens = [a.me.token, b.me.token];
    await stopClean(server);
    await sleep(1500);

    server = await startServer([], { data });
    a = await Client.connect(server, { name: 'Ana', token: tokens[0] });
    b = await Client.connect(server, { name: 'Bo', token: tokens[1] });
    assert.equal((await a.next('joined')).seat, 'north');
    assert.equal((await b.next('joined')).seat, 'south');
    const back = await a.state(room);
    assert.equal(back.ply, 3);
    assert.deepEqual(back.pits, [4, 4, 0, 5, 5, 0, 2, 5, 5, 5, 5, 4, 4, 0]);
    assert.equal(back.turn, 'north');
    assert.equal(back.players.north.id, a.me.player);
    assert.equal(back.players.south.id, b.me.player);
    assert.deepEqual(back.last, { seat: 'north', house: null, swap: true, trace: [] });
    assert.deepEqual(back.moves.at(-1), { seat: 'north', house: null, swap: true });
    assert.equal(back.swap, null);
    assert.equal(back.clock.south_ms, 60000, "Bo's time: his one move, the swap, was free");
    assert.ok(back.clock.north_ms <= anaTime && back.clock.north_ms > anaTime - 1500,
      `Ana's time is on North, not charged for the downtime: ${anaTime} -> ${back.clock.north_ms}`);
    // The game goes on: Ana, North, plays 1.
    st = await move(a, room, 1, 3);
    assert.deepEqual(st.pits, [4, 4, 0, 5, 5, 0, 2, 0, 6, 6, 6, 5, 5, 0]);
    // Her takeback, accepted, goes back to the swap and no further; the seats stay.
    const ask = await a.request({ type: 'takeback', room, action: 'offer' });
    assert.equal(ask.takeback, 'north');
    const tb = await b.request({ type: 'takeback', room, action: 'accept' });
    assert.equal(tb.ply, 3);
    assert.equal(tb.players.north.id, a.me.player);
    assert.equal(tb.turn, 'north');
    await a.close();
    await b.close();
    await stopClean(server);

    // And once more after that takeback.
    server = await startServer([], { data });
    a = await Client.connect(server, { name: 'Ana', token: tokens[0] });
    assert.equal((await a.next('joined')).seat, 'north');
    const again = await a.state(room);
    assert.equal(again.ply, 3);
    assert.equal(again.players.south.id, b.me.player);
    await a.close();
    await stopClean(server);
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});
