// Durable games: kill -9 the server at random moments during several concurrent games, restart it
// on the same --data, reconnect every player with their token, and check that every move any
// client saw accepted (a state with that ply) is still there and that the games go on. The run
// is seeded: the seed is printed, and MANCALA_SEED=N repeats it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import WebSocket from 'ws';
import { followMoves, sleep, startServer } from './harness.mjs';

const GAMES = 6;
const KILLS = 10;

function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A player that moves whenever a state says it is its turn, on whichever connection it has.
class Player {
  constructor(name, rand, seen) {
    this.name = name;
    this.rand = rand;
    this.seen = seen; // room -> {game_no, moves, finished}
    this.token = undefined;
    this.errors = [];
    this.sent = new Map(); // room -> ply of the last move sent
  }

  connect(server) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(server.url, 'mancala.v1');
      this.ws = ws;
      this.states = new Map();
      this.lists = new Map(); // room#game_no -> the moves, kept from the states (followMoves)
      this.resyncing = new Set();
      ws.on('error', () => {});
      ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', name: this.name, token: this.token, id: 'hello' })));
      ws.once('close', () => reject(new Error('closed before welcome')));
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString());
        if (m.type === 'welcome') {
          this.token = m.token;
          this.id = m.player;
          resolve(m);
        } else if (m.type === 'state') {
          this.onState(m);
        } else if (m.type === 'error' && !['stale', 'not_your_turn', 'game_over', 'not_finished'].includes(m.code)) {
          this.errors.push(m);
        } else if (m.type === 'joined' && this.onJoined) {
          this.onJoined(m);
        }
      });
    });
  }

  request(obj) {
    this.ws.send(JSON.stringify(obj));
  }

  onState(s) {
    this.states.set(s.room, s);
    // Everything a client saw: the longest move list of each game, kept as a client keeps it (a
    // gap in the plies asks for a resync, whose full state fills it).
    const key = s.room + '#' + s.game_no;
    const list = followMoves(this.lists.get(key), s);
    this.lists.set(key, list);
    if (Array.isArray(s.moves)) this.resyncing.delete(key);
    if (list === null && !this.resyncing.has(key)) {
      this.resyncing.add(key);
      this.request({ type: 'resync', room: s.room });
    }
    const prev = this.seen.get(key);
    if (list !== null) {
      assert.equal(list.length, s.ply, 'the moves kept have ply entries');
      if (prev) {
        const n = Math.min(prev.moves.length, list.length);
        assert.deepEqual(list.slice(0, n), prev.moves.slice(0, n), `${key}: the moves never change`);
      }
      if (!prev || list.length > prev.moves.length) this.seen.set(key, { room: s.room, game_no: s.game_no, moves: list, finished: false });
    }
    if (s.status === 'finished') {
      const e = this.seen.get(key);
      if (e === undefined) return; /* Not known yet: the resync's state comes next. */
      e.finished = true;
      if (s.game_id != null) e.game_id = s.game_id;
      if (!s.rematch[s.you === 'both' ? 'south' : s.you]) this.request({ type: 'rematch', room: s.room });
      return;
    }
    if (s.status !== 'playing' || (s.turn !== s.you && s.you !== 'both')) return;
    if (this.sent.get(s.room + '#' + s.game_no) === s.ply) return;
    this.sent.set(s.room + '#' + s.game_no, s.ply);
    const house = s.legal[Math.floor(this.rand() * s.legal.length)];
    this.request({ type: 'move', room: s.room, house, ply: s.ply });
  }
}

test('kill -9 at random moments loses no move a client saw accepted', { timeout: 240000 }, async (t) => {
  const seed = process.env.MANCALA_SEED ? Number(process.env.MANCALA_SEED) : Date.now() % 1000000007;
  t.diagnostic(`seed ${seed} (MANCALA_SEED=${seed} repeats this run)`);
  console.log(`# kill -9 test seed ${seed}`);
  const rand = mulberry32(seed);
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-crash-'));
  const seen = new Map();
  const players = [];
  for (let i = 0; i < 2 * GAMES; i++) players.push(new Player('P' + i, mulberry32(seed + i + 1), seen));
  const rooms = [];
  let checked = 0;
  let server;
  try {
    server = await startServer([], { data });
    for (const p of players) await p.connect(server);
    for (let g = 0; g < GAMES; g++) {
      const a = players[2 * g], b = players[2 * g + 1];
      const joined = new Promise((resolve) => { a.onJoined = resolve; });
      a.request({ type: 'create', game: 'kalah', houses: 6, seeds: 5, seat: 'south', visibility: 'private' });
      const { room } = await joined;
      a.onJoined = null;
      rooms.push(room);
      b.request({ type: 'join', room });
    }
    for (let k = 0; k < KILLS; k++) {
      await sleep(50 + Math.floor(rand() * 500));
      server.child.kill('SIGKILL');
      const { signal } = await server.exited;
      assert.equal(signal, 'SIGKILL');
      const before = new Map([...seen].map(([key, e]) => [key, { ...e, moves: e.moves.slice() }]));
      server = await startServer([], { data });
      // Every player back with its token, its seats and the states of its rooms.
      for (const p of players) {
        p.sent.clear();
        const w = await p.connect(server);
        assert.equal(w.resumed, true, `${p.name} is known after the restart`);
        assert.equal(w.player, p.id);
      }
      for (const [key, e] of before) {
        if (e.moves.length === 0) continue;
        // A room's state follows its player's welcome once the turn that resumed it is on the
        // disk (with --sync full, a sync of the log off the loop: tens of ms on a busy disk).
        const holder = () => players.find((q) => q.states.get(e.room));
        for (let i = 0; i < 250 && !holder(); i++) await sleep(20);
        const p = holder();
        const s = p && p.states.get(e.room);
        assert.ok(s, `room ${e.room} is back after restart ${k + 1}`);
        if (s.game_no === e.game_no) {
          // The moves as that client keeps them (a resync may still be on its way).
          for (let i = 0; i < 100 && !p.lists.get(key); i++) await sleep(20);
          const moves = p.lists.get(key);
          assert.ok(moves, `${key}: the client knows the moves after restart ${k + 1}`);
          assert.ok(moves.length >= e.moves.length,
            `${key}: ${e.moves.length} moves seen before the kill, ${moves.length} after restart ${k + 1}`);
          assert.deepEqual(moves.slice(0, e.moves.length), e.moves, `${key}: same moves`);
        } else {
          assert.ok(s.game_no > e.game_no, `${key}: the room went on to a later game`);
        }
        checked++;
      }
    }
    await sleep(300);
    // Every finished game a client saw is in the archive with the moves it saw.
    let archived = 0;
    for (const [key, e] of seen) {
      if (!e.finished || e.game_id == null) continue;
      const res = await fetch(`${server.http}/api/games/${e.game_id}`);
      assert.equal(res.status, 200, `${key}: game ${e.game_id} is archived`);
      const rec = await res.json();
      assert.deepEqual(rec.moves.map((m) => ({ seat: m.seat, house: m.house })), e.moves, `${key}: archived moves`);
      archived++;
    }
    t.diagnostic(`${checked} game checks after ${KILLS} kills, ${archived} finished games archived`);
    for (const p of players) assert.deepEqual(p.errors, [], `${p.name}: no unexpected error`);
    for (const p of players) p.ws.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
    assert.ok(checked >= KILLS, 'games were checked after the restarts');
  } finally {
    // A failed check leaves no server or connection behind to hold the test until its timeout.
    for (const p of players) p.ws?.terminate();
    if (server && !server.child.killed) server.child.kill('SIGKILL');
    fs.rmSync(data, { recursive: true, force: true });
  }
});
