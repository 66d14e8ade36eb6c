// Aborted games through the protocol (docs/protocol.md, "Aborted games"): a side that never makes
// its first move within its deadline aborts the game (finished, a result with no winner and no
// score, no archive id), nobody's list of games shows it, a rematch follows as after any game, and
// a restart keeps it aborted. Rated games: resigning before both sides moved aborts, and a rated
// room's clock has a minimum.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Client, pair, startServer } from './harness.mjs';

const PW = 'correct horse battery';
const ABORTED = { winner: null, reason: 'aborted', score: null };

async function signUp(server, name) {
  const c = await Client.connect(server, {});
  const r = await c.request({ type: 'register', name, password: PW });
  assert.equal(r.type, 'account', JSON.stringify(r));
  return c;
}

async function json(server, route) {
  const res = await fetch(server.http + route);
  return { status: res.status, body: await res.json() };
}

test('North never makes its first move: aborted, listed nowhere, rematch, and a restart keeps it', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-abort-'));
  try {
    let server = await startServer([], { data });
    const a = await Client.connect(server, { name: 'Ana' });
    const b = await Client.connect(server, { name: 'Bob' });
    const watcher = await Client.connect(server, { name: 'Lobbyist' });
    const { room } = await pair(a, b, { clock: { initial_ms: 1000, increment_ms: 0 } });
    const moved = await a.request({ type: 'move', room, house: 1, ply: 0 });
    assert.equal(moved.type, 'state');
    // North's own first move has a deadline (the initial time, shorter than 30 s); no clock runs.
    assert.equal(moved.first_move.seat, 'north');
    assert.ok(moved.first_move.ms > 0 && moved.first_move.ms <= 1000);
    assert.equal(moved.clock.running, null);
    const t0 = Date.now();
    const end = await a.state(room, (s) => s.status === 'finished', 5000);
    assert.ok(Date.now() - t0 >= 800, 'not before the deadline');
    assert.deepEqual(end.result, ABORTED);
    assert.equal(end.game_id, null);
    assert.equal(end.rating_change, null);
    assert.equal(end.turn, null);
    assert.deepEqual(end.legal, []);
    assert.deepEqual([end.clock.south_ms, end.clock.north_ms], [1000, 1000]);
    assert.deepEqual((await b.state(room, (s) => s.status === 'finished')).result, ABORTED);
    assert.equal((await b.request({ type: 'move', room, house: 1, ply: 1 })).code, 'game_over');
    assert.equal((await b.request({ type: 'resign', room })).code, 'game_over');
    // Not a game of anybody's list, not in the lobby's rooms.
    assert.deepEqual((await json(server, `/api/players/${a.me.player}/games`)).body.games ?? [], []);
    assert.deepEqual((await json(server, `/api/players/${b.me.player}/games`)).body.games ?? [], []);
    const lobby = await watcher.request({ type: 'lobby', watch: false });
    assert.equal(lobby.rooms.find((r) => r.code === room), undefined);
    const mine = await a.request({ type: 'my_rooms', watch: false });
    assert.equal(mine.rooms.find((r) => r.room === room), undefined);

    // A restart: the room comes back finished and aborted.
    for (const c of [a, b, watcher]) await c.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
    server = await startServer([], { data });
    const a2 = await Client.connect(server, { token: a.me.token });
    const back = await a2.state(room, (s) => Array.isArray(s.moves));
    assert.equal(back.status, 'finished');
    assert.deepEqual(back.result, ABORTED);
    assert.equal(back.game_id, null);
    assert.equal(back.ply, 1);
    // A rematch works as after a finished game: Bob South now, with its own first-move deadline.
    const b2 = await Client.connect(server, { token: b.me.token });
    await b2.state(room, (s) => Array.isArray(s.moves));
    await a2.request({ type: 'rematch', room });
    const again = await b2.request({ type: 'rematch', room });
    assert.equal(again.status, 'playing');
    assert.equal(again.game_no, 2);
    assert.equal(again.result, null);
    assert.equal(again.players.south.name, 'Bob');
    assert.equal(again.first_move.seat, 'south');
    // This one is played: both move, then Ana resigns. It is the only game in the lists.
    await b2.request({ type: 'move', room, house: 1, ply: 0 });
    await a2.request({ type: 'move', room, house: 1, ply: 1 });
    const over = await a2.request({ type: 'resign', room });
    assert.deepEqual([over.result.winner, over.result.reason], ['south', 'resignation']);
    assert.match(over.game_id, /^[0-9a-f]{16}$/);
    const list = (await json(server, `/api/players/${a.me.player}/games`)).body;
    assert.deepEqual(list.games.map((g) => g.id), [over.game_id]);
    for (const c of [a2, b2]) await c.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});

test('rated: a short clock is refused, resigning before both moved aborts, nothing is rated', async () => {
  const server = await startServer();
  const ana = await signUp(server, 'Ana');
  const bob = await signUp(server, 'Bob');
  // The farmer's 0.1 s room is refused; 15 s + 1 s and 1 minute are the shortest rated clocks.
  const farm = await ana.request({ type: 'create', game: 'kalah', rated: true, clock: { initial_ms: 100, increment_ms: 0 } });
  assert.deepEqual([farm.type, farm.code, farm.field], ['error', 'bad_request', 'clock']);
  const quick = await ana.request({ type: 'quick', game: 'kalah', rated: true, clock: { initial_ms: 59999, increment_ms: 0 } });
  assert.deepEqual([quick.code, quick.field], ['bad_request', 'clock']);
  const { room } = await pair(ana, bob, { rated: true, clock: { initial_ms: 60000, increment_ms: 0 } });
  await ana.request({ type: 'move', room, house: 1, ply: 0 });
  const r = await bob.request({ type: 'resign', room });
  assert.equal(r.status, 'finished');
  assert.deepEqual(r.result, ABORTED);
  assert.equal(r.rating_change, null);
  assert.equal(r.players.south.rating, 1500);
  const p = (await json(server, '/api/players/Ana')).body;
  assert.equal(p.ratings.kalah.games, 0);
  assert.deepEqual(p.games, []);
  assert.deepEqual(p.history.kalah, []);
  const board = (await json(server, '/api/leaderboard/kalah')).body;
  assert.equal(board.total, 0);
  for (const c of [ana, bob]) await c.close();
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});
