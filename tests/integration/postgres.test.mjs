// The server on PostgreSQL when PostgreSQL itself fails (issue 20): killed -9 and restarted during
// 20 games, the moves meanwhile refused with storage_error and /healthz degraded naming the
// backend, no acknowledged move lost and every game finished; and the migrate command moving a
// site from SQLite, twice. Each test runs a PostgreSQL of its own (tests/pg.sh), which it kills.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import WebSocket from 'ws';
import { Client, followMoves, pair, playOut, sleep, startServer } from './harness.mjs';

const PG_SH = process.env.MANCALA_PG_SH || path.resolve(path.dirname(new URL(import.meta.url).pathname), '../pg.sh');
const BIN = process.env.MANCALA_SERVER;

function pg(...args) {
  return execFileSync('sh', [PG_SH, ...args], { encoding: 'utf8' }).trim();
}

// A player that moves whenever it is its turn, and tries again after a refusal.
class Player {
  constructor(name, seed) {
    this.name = name;
    this.rand = seed;
    this.lists = new Map(); // room#game_no -> moves seen accepted
    this.refused = 0;
    this.errors = [];
    this.finished = new Map(); // room -> game_id
  }

  connect(server) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(server.url, 'mancala.v1');
      this.ws = ws;
      ws.on('error', () => {});
      ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', name: this.name })));
      ws.once('close', () => reject(new Error('closed')));
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString());
        if (m.type === 'welcome') resolve(m);
        else if (m.type === 'joined' && this.onJoined) this.onJoined(m);
        else if (m.type === 'state') this.onState(m);
        else if (m.type === 'error' && m.code === 'storage_error') {
          this.refused++;
          // The room sends its state as it is now: the move is asked again when it comes, a
          // little later, so that a database that is down is not hammered.
          setTimeout(() => { if (this.last) { this.sentPly = null; this.onState(this.last); } }, 200);
        } else if (m.type === 'error' && !['stale', 'not_your_turn', 'game_over'].includes(m.code)) this.errors.push(m);
      });
    });
  }

  onState(s) {
    this.last = s;
    const key = s.room + '#' + s.game_no;
    const list = followMoves(this.lists.get(key), s);
    if (list === null) {
      this.ws.send(JSON.stringify({ type: 'resync', room: s.room }));
      return;
    }
    this.lists.set(key, list);
    if (s.status === 'finished') {
      this.finished.set(s.room, s.game_id);
      return;
    }
    if (s.status !== 'playing' || s.turn !== s.you || this.sentPly === s.ply) return;
    this.sentPly = s.ply;
    const house = s.legal[Math.floor(this.rand() * s.legal.length)];
    // A person's pace (so that the games outlast the database's two deaths).
    setTimeout(() => this.ws.send(JSON.stringify({ type: 'move', room: s.room, house, ply: s.ply })), 100 + Math.floor(this.rand() * 100));
  }
}

function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// /healthz on a connection of its own (the server may close a kept-alive one after a 503).
function health(server) {
  return new Promise((resolve, reject) => {
    http.get(server.http + '/healthz', { agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(body) }));
    }).on('error', reject);
  });
}

test('PostgreSQL killed -9 and restarted twice during 20 games: refused meanwhile, nothing acknowledged lost, every game finishes', { timeout: 400000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-pg-'));
  fs.chmodSync(dir, 0o755); // PostgreSQL runs as its own user (tests/pg.sh) and must reach DIR/pg.
  const url = pg('start', dir + '/pg', 'auto');
  let server;
  try {
    server = await startServer(['--store', url]);
    const ok = await health(server);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.storage, 'postgresql', '/healthz names the backend');
    const seed = Date.now() % 1000003;
    t.diagnostic(`seed ${seed}`);
    const players = [];
    for (let i = 0; i < 40; i++) {
      const p = new Player('P' + i, mulberry32(seed + i));
      await p.connect(server);
      players.push(p);
    }
    const rooms = [];
    for (let g = 0; g < 20; g++) {
      const a = players[2 * g], b = players[2 * g + 1];
      const joined = new Promise((resolve) => { a.onJoined = resolve; });
      a.ws.send(JSON.stringify({ type: 'create', game: 'kalah', houses: 6, seeds: 4, seat: 'south', visibility: 'private' }));
      const { room } = await joined;
      rooms.push(room);
      b.ws.send(JSON.stringify({ type: 'join', room }));
    }
    let refusedDown = 0;
    for (let k = 0; k < 2; k++) {
      await sleep(400);
      pg('kill', dir + '/pg');
      // Down: moves are refused and /healthz says so, naming the backend.
      let h;
      for (let i = 0; i < 50; i++) {
        h = await health(server);
        if (h.status === 503) break;
        await sleep(100);
      }
      assert.equal(h.status, 503, `/healthz answers 503 while PostgreSQL is down (kill ${k + 1})`);
      assert.equal(h.body.status, 'degraded');
      assert.equal(h.body.storage, 'postgresql');
      assert.match(h.body.reason, /postgresql/);
      const before = players.reduce((n, p) => n + p.refused, 0);
      await sleep(1500);
      refusedDown += players.reduce((n, p) => n + p.refused, 0) - before;
      pg('restart', dir + '/pg');
      for (let i = 0; i < 100; i++) {
        h = await health(server);
        if (h.status === 200) break;
        await sleep(100);
      }
      assert.equal(h.status, 200, `/healthz is ok again after the restart (kill ${k + 1})`);
    }
    assert.ok(refusedDown > 0, 'moves were refused with storage_error while PostgreSQL was down');
    // Every game finishes.
    for (let i = 0; i < 600 && rooms.some((r) => !players.some((p) => p.finished.has(r))); i++) await sleep(100);
    for (const r of rooms) assert.ok(players.some((p) => p.finished.has(r)), `room ${r} finished`);
    // Every move any client saw accepted is in the archive, in order, and nothing else.
    let moves = 0;
    for (let g = 0; g < 20; g++) {
      const a = players[2 * g], b = players[2 * g + 1];
      const room = rooms[g];
      const id = a.finished.get(room) ?? b.finished.get(room);
      const seen = [...a.lists.entries(), ...b.lists.entries()].filter(([key]) => key.startsWith(room + '#1'))
        .map(([, list]) => list).sort((x, y) => y.length - x.length)[0];
      const rec = await (await fetch(`${server.http}/api/games/${id}`)).json();
      assert.ok(Array.isArray(rec.moves), `room ${room}: game ${id} is archived: ${JSON.stringify(rec)}`);
      assert.deepEqual(rec.moves.map((m) => ({ seat: m.seat, house: m.house })), seen, `room ${room}: archived moves`);
      moves += seen.length;
    }
    t.diagnostic(`${moves} moves in 20 games, ${refusedDown} refused while PostgreSQL was down`);
    for (const p of players) assert.deepEqual(p.errors, [], `${p.name}: no unexpected error`);
    for (const p of players) p.ws.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
    // A restart on the same database: every game is there.
    server = await startServer(['--store', url]);
    for (let g = 0; g < 20; g++) {
      const id = players[2 * g].finished.get(rooms[g]) ?? players[2 * g + 1].finished.get(rooms[g]);
      assert.equal((await fetch(`${server.http}/api/games/${id}`)).status, 200);
    }
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  } catch (e) {
    if (server) t.diagnostic(`server (exit ${server.child.exitCode} ${server.child.signalCode}) log:\n` + server.log.slice(0, 3000) + '\n...\n' + server.log.slice(-3000));
    throw e;
  } finally {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    if (!process.env.MANCALA_KEEP_PG) {
      pg('stop', dir + '/pg');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('migrate moves a SQLite site to PostgreSQL (games, accounts, ratings, chat, old game ids), and a second run copies nothing', { timeout: 300000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-migrate-'));
  fs.chmodSync(dir, 0o755);
  const data = path.join(dir, 'data');
  const url = pg('start', dir + '/pg', 'auto');
  let server;
  try {
    // A site on SQLite: two accounts, a rated game played out with chat, a game against the
    // computer, a game still being played.
    server = await startServer([], { data });
    const a = await Client.connect(server, { name: 'Ana' });
    const b = await Client.connect(server, { name: 'Bob' });
    assert.equal((await a.request({ type: 'register', name: 'AnaMigrant', password: 'correct horse 1' })).type, 'account');
    assert.equal((await b.request({ type: 'register', name: 'BobMigrant', password: 'correct horse 2' })).type, 'account');
    const { room, state } = await pair(a, b, { rated: true, clock: { initial_ms: 600000, increment_ms: 0 } });
    await a.request({ type: 'chat', room, text: 'good luck' });
    const end = (await playOut(room, { south: a, north: b }, state)).state;
    assert.equal(end.status, 'finished');
    const id = end.game_id;
    assert.match(id, /^[0-9a-f]{16}$/);
    const { room: room2 } = await pair(a, b);
    const st = await a.request({ type: 'move', room: room2, house: 1, ply: 0 });
    assert.equal(st.type, 'state');
    const before = {
      game: await (await fetch(`${server.http}/api/games/${id}`)).json(),
      text: await (await fetch(`${server.http}/api/games/${id}.txt`)).text(),
      ana: await (await fetch(`${server.http}/api/players/AnaMigrant`)).json(),
      bob: await (await fetch(`${server.http}/api/players/BobMigrant`)).json(),
    };
    a.close();
    b.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });

    // The move, twice.
    const first = execFileSync(BIN, ['migrate', '--from', data, '--to', url], { encoding: 'utf8' });
    assert.match(first, /games\s+\d+ rows,\s+2 copied/, first);
    assert.match(first, /accounts\s+2 rows,\s+2 copied/, first);
    assert.match(first, /done: \d+ rows copied/, first);
    const second = execFileSync(BIN, ['migrate', '--from', data, '--to', url], { encoding: 'utf8' });
    assert.match(second, /nothing new to copy/, second);
    assert.doesNotMatch(second, /[1-9]\d* copied/, second);

    // The site on PostgreSQL reads the same: the archive under the old public id, the profiles,
    // and the game in progress goes on.
    server = await startServer(['--store', url]);
    const after = {
      game: await (await fetch(`${server.http}/api/games/${id}`)).json(),
      text: await (await fetch(`${server.http}/api/games/${id}.txt`)).text(),
      ana: await (await fetch(`${server.http}/api/players/AnaMigrant`)).json(),
      bob: await (await fetch(`${server.http}/api/players/BobMigrant`)).json(),
    };
    assert.deepEqual(after, before);
    const a2 = await Client.connect(server, { name: 'Guest' });
    const w = await a2.request({ type: 'login', name: 'AnaMigrant', password: 'correct horse 1' });
    assert.equal(w.type, 'welcome', 'the account logs in on PostgreSQL');
    a2.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  } finally {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    pg('stop', dir + '/pg');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
