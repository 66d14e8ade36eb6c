// Hints through the protocol, against the real server: a hint in a game against the computer
// (the best house of a hand-checked position, its value from the asker's side), refused in a
// rated game and in a casual room made without the option, given in one made with it (which both
// players and the lobby see), and the allowance per minute with retry_after_ms. Nothing here
// depends on timing: the positions are proven at once by the search.
//
// The position: Kalah with 2 houses of 1 seed, South to move (S1 S2 [S] N1 N2 [N] = 1 1 (0) 1 1
// (0)). South's house 2 sows into its store (an extra turn), then house 1 sows into the empty
// house 2 and captures it with North's house 1 opposite: South 3, North 1 (its last seed swept),
// South +2. House 1 first sows into house 2 (not empty: no capture) and hands North the move. So
// the hint is house 2, value +2, exact.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Client, pair, startServer } from './harness.mjs';

const TINY = { game: 'kalah', houses: 2, seeds: 1 };
const PW = 'correct horse battery';

async function signUp(server, name) {
  const c = await Client.connect(server, {});
  const r = await c.request({ type: 'register', name, password: PW });
  assert.equal(r.type, 'account', JSON.stringify(r));
  return c;
}

test('a hint in a game against the computer: the best house, its value for the asker, exact', async () => {
  const server = await startServer();
  try {
    const c = await Client.connect(server, { name: 'Ana' });
    const joined = await c.request({ type: 'create', ...TINY, opponent: 'computer', level: 2, seat: 'south' });
    assert.equal(joined.type, 'joined', JSON.stringify(joined));
    const st = await c.state(joined.room);
    assert.equal(st.hints, true, 'a game against the computer gives hints');
    const h = await c.request({ type: 'hint', room: joined.room, ply: st.ply }, 60000);
    assert.equal(h.type, 'hint', JSON.stringify(h));
    assert.deepEqual({ room: h.room, seat: h.seat, ply: h.ply, game_no: h.game_no, house: h.house, value: h.value, exact: h.exact },
      { room: joined.room, seat: 'south', ply: 0, game_no: 1, house: 2, value: 2, exact: true });
    // The hint changed nothing: the suggested house is played like any move.
    const moved = await c.request({ type: 'move', room: joined.room, house: h.house, ply: 0 });
    assert.equal(moved.type, 'state');
    assert.equal(moved.turn, 'south', 'house 2 ends in the store: an extra turn');
    // A hint for a ply that is no longer current is stale.
    const stale = await c.request({ type: 'hint', room: joined.room, ply: 0 });
    assert.equal(stale.type, 'error');
    assert.equal(stale.code, 'stale');
    // Now only house 1 is left: it captures, and the game ends South 3, North 1.
    const h2 = await c.request({ type: 'hint', room: joined.room, ply: 1 }, 60000);
    assert.equal(h2.type, 'hint', JSON.stringify(h2));
    assert.deepEqual([h2.house, h2.value, h2.exact], [1, 2, true]);
    c.close();
  } finally {
    const r = await server.stop();
    assert.equal(r.code, 0, server.log);
  }
});

test('never in a rated game; not in a casual room without the option; given in one with it', async () => {
  const server = await startServer();
  try {
    const ana = await signUp(server, 'Ana_Hints');
    const bob = await signUp(server, 'Bob_Hints');
    // Rated and hints together: bad_request on "hints".
    const both = await ana.request({ type: 'create', game: 'kalah', rated: true, hints: true, clock: { initial_ms: 600000 } });
    assert.equal(both.type, 'error');
    assert.deepEqual([both.code, both.field], ['bad_request', 'hints']);
    // A rated game: hints_rated.
    let { room, state } = await pair(ana, bob, { rated: true, clock: { initial_ms: 600000, increment_ms: 0 } });
    assert.equal(state.rated, true);
    assert.equal(state.hints, false);
    let e = await ana.request({ type: 'hint', room });
    assert.equal(e.type, 'error');
    assert.equal(e.code, 'hints_rated');
    assert.equal(e.request, 'hint');
    // A casual room made without the option: hints_not_allowed.
    ({ room, state } = await pair(ana, bob, TINY));
    assert.equal(state.hints, false);
    e = await ana.request({ type: 'hint', room });
    assert.equal(e.code, 'hints_not_allowed');
    // A casual room made with it: the lobby and both players see it; the side to move gets its
    // hint, the other side is not to move.
    const watcher = await Client.connect(server, { name: 'Watcher' });
    const made = await ana.request({ type: 'create', ...TINY, seat: 'south', hints: true });
    assert.equal(made.type, 'joined', JSON.stringify(made));
    const lobby = await watcher.request({ type: 'lobby', watch: false });
    const entry = lobby.rooms.find((r) => r.room === made.room);
    assert.equal(entry.hints, true, JSON.stringify(entry));
    const j = await bob.request({ type: 'join', room: made.room });
    assert.equal(j.type, 'joined');
    const sb = await bob.state(made.room, (s) => s.status === 'playing');
    const sa = await ana.state(made.room, (s) => s.status === 'playing');
    assert.equal(sa.hints, true);
    assert.equal(sb.hints, true);
    e = await bob.request({ type: 'hint', room: made.room });
    assert.equal(e.code, 'not_your_turn');
    e = await watcher.request({ type: 'hint', room: made.room });
    assert.equal(e.code, 'not_in_room');
    const h = await ana.request({ type: 'hint', room: made.room }, 60000);
    assert.equal(h.type, 'hint', JSON.stringify(h));
    assert.deepEqual([h.seat, h.house, h.value, h.exact], ['south', 2, 2, true]);
    assert.equal(bob.inbox.some((m) => m.type === 'hint'), false, 'the opponent is not told');
    for (const c of [ana, bob, watcher]) c.close();
  } finally {
    const r = await server.stop();
    assert.equal(r.code, 0, server.log);
  }
});

test('the allowance: past it too_many_hints with retry_after_ms; local games have hints', async () => {
  const server = await startServer(['--hints-per-minute', '2']);
  try {
    const c = await Client.connect(server, { name: 'Ana' });
    const joined = await c.request({ type: 'create', game: 'kalah', opponent: 'local' });
    const st = await c.state(joined.room);
    assert.equal(st.hints, true);
    for (let i = 0; i < 2; i++) {
      const h = await c.request({ type: 'hint', room: joined.room }, 60000);
      assert.equal(h.type, 'hint', JSON.stringify(h));
      assert.ok(st.legal.includes(h.house));
      assert.equal(typeof h.value, 'number');
      assert.equal(typeof h.exact, 'boolean');
    }
    const e = await c.request({ type: 'hint', room: joined.room });
    assert.equal(e.type, 'error');
    assert.equal(e.code, 'too_many_hints');
    // Two a minute: the next one is at most half a minute away.
    assert.ok(e.retry_after_ms > 0 && e.retry_after_ms <= 30001, JSON.stringify(e));
    c.close();
  } finally {
    const r = await server.stop();
    assert.equal(r.code, 0, server.log);
  }
});

test('a casual room with hints keeps them over a restart; its hint answers again', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-hints-'));
  try {
    let server = await startServer([], { data });
    let ana = await Client.connect(server, { name: 'Ana' });
    let bob = await Client.connect(server, { name: 'Bob' });
    const { room, state } = await pair(ana, bob, { ...TINY, hints: true });
    assert.equal(state.hints, true);
    const tokens = [ana.me.token, bob.me.token];
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
    server = await startServer([], { data });
    try {
      ana = await Client.connect(server, { name: 'Ana', token: tokens[0] });
      assert.equal(ana.me.resumed, true);
      const back = await ana.state(room);
      assert.equal(back.status, 'playing');
      assert.equal(back.hints, true, 'the option came back from storage');
      const h = await ana.request({ type: 'hint', room }, 60000);
      assert.equal(h.type, 'hint', JSON.stringify(h));
      assert.deepEqual([h.house, h.value, h.exact], [2, 2, true]);
      ana.close();
    } finally {
      assert.deepEqual(await server.stop(), { code: 0, signal: null });
    }
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});

test('--hints-per-minute 0: no hints anywhere, and the states say so', async () => {
  const server = await startServer(['--hints-per-minute', '0']);
  try {
    const c = await Client.connect(server, { name: 'Ana' });
    const joined = await c.request({ type: 'create', ...TINY, opponent: 'local' });
    const st = await c.state(joined.room);
    assert.equal(st.hints, false);
    const e = await c.request({ type: 'hint', room: joined.room });
    assert.deepEqual([e.type, e.code], ['error', 'unsupported']);
    c.close();
  } finally {
    const r = await server.stop();
    assert.equal(r.code, 0, server.log);
  }
});
