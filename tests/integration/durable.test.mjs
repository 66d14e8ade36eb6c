// Durable games: a restart resumes unfinished games without charging the downtime; the archive
// endpoints; databases the server must refuse at start; a storage error while running.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { Client, followMoves, onPostgres, pair, playOut, sleep, startServer } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = process.env.MANCALA_SERVER || path.resolve(here, '../../build-server/bin/mancala-server');
const TOOL = path.join(path.dirname(BIN), 'mancala');

const tmpData = () => fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-durable-'));

// Runs the server until it exits on its own (it is expected to refuse to start).
function runToExit(args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(BIN, ['--port', '0', '--bind', '127.0.0.1', ...args], { stdio: ['ignore', 'ignore', 'pipe'], ...opts });
    let log = '';
    child.stderr.on('data', (d) => { log += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
    child.once('exit', (code, signal) => { clearTimeout(timer); resolve({ code, signal, log }); });
  });
}

async function stopClean(server) {
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
}

test('a restart after SIGTERM resumes the game; the clocks are not charged for the downtime', async () => {
  const data = tmpData();
  try {
    let server = await startServer([], { data });
    let a = await Client.connect(server, { name: 'Ana' });
    let b = await Client.connect(server, { name: 'Bo' });
    const { room, state } = await pair(a, b, { clock: { initial_ms: 60000, increment_ms: 2000 } });
    let st = state;
    for (let i = 0; i < 3; i++) {
      const mover = st.turn === 'south' ? a : b;
      st = await mover.request({ type: 'move', room, house: st.legal[0], ply: st.ply });
      assert.equal(st.type, 'state');
    }
    const last = st;
    const lastMoves = (await a.request({ type: 'resync', room })).moves;
    assert.equal(lastMoves.length, last.ply);
    const tokens = [a.me.token, b.me.token];
    await stopClean(server);
    await sleep(2500); // The downtime.

    const restarted = Date.now(); // The clocks run again from the recovery, after this.
    server = await startServer([], { data });
    a = await Client.connect(server, { name: 'Ana', token: tokens[0] });
    b = await Client.connect(server, { name: 'Bo', token: tokens[1] });
    assert.equal(a.me.resumed, true);
    assert.equal((await a.next('joined')).seat, 'south');
    // The state of the resume is full (it lists the moves); then Bo's return shows.
    const resumed = await a.state(room);
    assert.deepEqual(resumed.moves, lastMoves);
    const back = resumed.players.north.connected ? resumed
      : await a.state(room, (s) => s.players.north.connected);
    assert.equal(back.status, 'playing');
    assert.equal(back.ply, last.ply);
    assert.deepEqual(back.pits, last.pits);
    assert.equal(back.turn, last.turn);
    assert.equal(back.clock.running, last.turn);
    const key = last.turn + '_ms', other = (last.turn === 'south' ? 'north' : 'south') + '_ms';
    assert.equal(back.clock[other], last.clock[other], 'the waiting side keeps its time exactly');
    // Charged only from the recovery on: at most the time since the restart began (however slow a
    // loaded machine makes it), never the 2.5 s of downtime before.
    const spent = last.clock[key] - back.clock[key];
    const since = Date.now() - restarted;
    assert.ok(spent >= 0 && spent <= since + 50,
      `the side to move lost ${spent} ms, ${since} ms after the restart began, over a 2500 ms downtime`);
    // The game goes on.
    const mover = back.turn === 'south' ? a : b;
    const next = await mover.request({ type: 'move', room, house: back.legal[0], ply: back.ply });
    assert.equal(next.type, 'state');
    assert.equal(next.ply, last.ply + 1);
    await a.close();
    await b.close();
    await stopClean(server);
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});

test('the archive: /api/games/ID, ID.txt, a player\'s games, /g/ID, and 404s', async () => {
  const server = await startServer();
  const a = await Client.connect(server, { name: 'Ana "A"' });
  const b = await Client.connect(server, { name: 'Bo' });
  const { room, state } = await pair(a, b, { houses: 5, seeds: 3, clock: { initial_ms: 300000, increment_ms: 2000 } });
  const { state: end, moves, played } = await playOut(room, { south: a, north: b }, state);
  assert.equal(end.status, 'finished');
  // Security probe, finding 5: the archive id is 16 hex digits, not the store's number 1, 2...
  assert.match(end.game_id, /^[0-9a-f]{16}$/, 'a finished game\'s state carries its archive id');
  end.moves = played;
  const id = end.game_id;

  const res = await fetch(`${server.http}/api/games/${id}`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /^application\/json/);
  const rec = await res.json();
  assert.equal(rec.id, id);
  assert.equal(rec.room, undefined, 'no room code in the public archive');
  assert.ok(!JSON.stringify(rec).includes(room), 'the room code appears nowhere');
  assert.equal(rec.game, 'kalah');
  assert.equal(rec.houses, 5);
  assert.equal(rec.seeds, 3);
  assert.deepEqual(rec.options, { empty_capture: false });
  assert.equal(rec.players.south.name, 'Ana "A"');
  assert.equal(rec.players.south.id, a.me.player);
  assert.equal(rec.players.north.id, b.me.player);
  assert.deepEqual(rec.clock, { initial_ms: 300000, increment_ms: 2000 });
  assert.equal(rec.result, end.result.winner);
  assert.equal(rec.reason, end.result.reason);
  assert.deepEqual(rec.score, end.result.score);
  assert.equal(rec.ply, moves);
  assert.ok(rec.ended >= rec.started);
  assert.deepEqual(rec.start.pits, [3, 3, 3, 3, 3, 0, 3, 3, 3, 3, 3, 0]);
  assert.equal(rec.moves.length, moves);
  assert.deepEqual(rec.moves.map((m) => ({ seat: m.seat, house: m.house })), end.moves);
  rec.moves.forEach((m, i) => {
    assert.equal(m.ply, i);
    assert.equal(m.pits.length, 12);
    assert.ok(Array.isArray(m.burnt));
    assert.equal(m.trace[0].kind, 'pick');
    assert.ok(m.clock_ms > 0 && m.clock_ms <= 300000 + 2000 * (i + 1), JSON.stringify(m));
  });
  assert.deepEqual(rec.moves.at(-1).pits, end.pits, 'the last position is the final state\'s');

  const txt = await fetch(`${server.http}/api/games/${id}.txt`);
  assert.equal(txt.status, 200);
  assert.equal(txt.headers.get('content-type'), 'text/plain; charset=utf-8');
  const text = await txt.text();
  assert.match(text, /^\[Event "Mancala Online"\]\n/);
  assert.match(text, /\[Site "\?"\]/);
  assert.ok(!text.includes(room), 'the room code appears nowhere');
  assert.match(text, new RegExp(`\\[Id "${id}"\\]`));
  assert.match(text, /\[South "Ana \\"A\\""\]/);
  assert.match(text, /\[North "Bo"\]/);
  assert.match(text, /\[Board "5x3"\]/);
  assert.match(text, /\[TimeControl "300\+2"\]/);
  assert.match(text, new RegExp(`\\[Result "${end.result.winner}"\\]`));
  const [, body] = text.split('\n\n');
  const [rulesLine, movesLine] = body.trim().split('\n');
  assert.equal(rulesLine, 'kalah 5x3');
  assert.deepEqual(movesLine.split(' ').map(Number), end.moves.map((m) => m.house));
  if (fs.existsSync(TOOL)) {
    const out = execFileSync(TOOL, ['replay', 'kalah', '--houses', '5', '--seeds', '3', movesLine]).toString();
    assert.match(out, new RegExp(`result ${end.result.winner} ${end.result.reason} ${end.result.score[0]} ${end.result.score[1]}`));
  }

  // A player's games, newest first; limit 1..100.
  const second = await a.request({ type: 'create', game: 'oware', seat: 'north' }); // Unfinished.
  assert.equal(second.type, 'joined');
  const list = await (await fetch(`${server.http}/api/players/${a.me.player}/games`)).json();
  assert.equal(list.player, a.me.player);
  assert.equal(list.games.length, 1);
  assert.equal(list.games[0].id, id);
  assert.equal(list.games[0].seat, 'south');
  assert.equal(list.games[0].ply, moves);
  assert.equal((await (await fetch(`${server.http}/api/players/${b.me.player}/games?limit=1`)).json()).games[0].seat, 'north');
  assert.deepEqual((await (await fetch(`${server.http}/api/players/0123456789abcdef/games`)).json()).games, []);
  for (const bad of ['0', '101', 'x', '']) {
    assert.equal((await fetch(`${server.http}/api/players/${a.me.player}/games?limit=${bad}`)).status, 400, `limit=${bad}`);
  }
  // Store numbers, and the id with a digit changed, name no game.
  const other = id.slice(0, 15) + (id[15] === '0' ? '1' : '0');
  for (const uri of [`/api/games/${other}`, `/api/games/${other}.txt`, '/api/games/1', '/api/games/1.txt',
    ...(/[a-f]/.test(id) ? [`/api/games/${id.toUpperCase()}`] : []), '/api/games/0', '/api/games/abc', '/api/games/',
    '/api/players/NOT-AN-ID/games', `/api/players/${a.me.player}`, '/api/nothing']) {
    const r = await fetch(server.http + uri);
    assert.equal(r.status, 404, uri);
    assert.equal((await r.json()).error, 'not_found');
  }
  // The replay page is the web client's page.
  const page = await fetch(`${server.http}/g/${id}`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<!doctype html>/i);
  // The store's counters.
  const metrics = await (await fetch(`${server.http}/metrics`)).text();
  assert.match(metrics, /^mancala_store_commits_total [1-9]\d*$/m);
  assert.match(metrics, /^mancala_store_failed_commits_total 0$/m);
  await a.close();
  await b.close();
  await stopClean(server);
});

// SQLite's files (a PostgreSQL run has its own faults: postgres.test.mjs).
if (!onPostgres) test('a database that cannot be used stops the server at start with a clear message', async () => {
  // Newer schema: user_version (offset 60 of the header, big-endian) beyond what the server knows.
  const newer = tmpData();
  try {
    await stopClean(await startServer([], { data: newer }));
    const db = path.join(newer, 'mancala.db');
    const fd = fs.openSync(db, 'r+');
    const v = Buffer.alloc(4);
    v.writeUInt32BE(99);
    fs.writeSync(fd, v, 0, 4, 60);
    fs.closeSync(fd);
    const r = await runToExit(['--data', newer]);
    assert.equal(r.code, 1, r.log);
    assert.match(r.log, /newer/i);
    assert.match(r.log, /mancala\.db/);
  } finally {
    fs.rmSync(newer, { recursive: true, force: true });
  }

  // Corrupt: not a database at all.
  const corrupt = tmpData();
  try {
    fs.writeFileSync(path.join(corrupt, 'mancala.db'), 'this is not a database\n'.repeat(300));
    const r = await runToExit(['--data', corrupt]);
    assert.equal(r.code, 1, r.log);
    assert.match(r.log, /cannot open the database: .*mancala\.db/);
    assert.match(r.log, /not a database|corrupt|damaged/i);
  } finally {
    fs.rmSync(corrupt, { recursive: true, force: true });
  }

  // Locked: a second server on the same directory.
  const shared = tmpData();
  try {
    const first = await startServer([], { data: shared });
    const r = await runToExit(['--data', shared]);
    assert.equal(r.code, 1, r.log);
    assert.match(r.log, /lock|another/i);
    await stopClean(first);
  } finally {
    fs.rmSync(shared, { recursive: true, force: true });
  }

  // Read-only: root ignores file modes, so the server runs as nobody when we are root.
  const ro = tmpData();
  try {
    await stopClean(await startServer([], { data: ro }));
    fs.chmodSync(path.join(ro, 'mancala.db'), 0o444);
    fs.chmodSync(ro, 0o755);
    let opts = {};
    if (process.getuid && process.getuid() === 0) {
      let uid;
      try { uid = Number(execFileSync('id', ['-u', 'nobody']).toString()); } catch { uid = undefined; }
      if (uid === undefined) return; // No unprivileged user to test with.
      opts = { uid, gid: Number(execFileSync('id', ['-g', 'nobody']).toString()) };
    }
    const r = await runToExit(['--data', ro], opts);
    assert.equal(r.code, 1, r.log);
    assert.match(r.log, /cannot open the database: .*mancala\.(db|lock)/);
    assert.match(r.log, /read-only|permission|cannot be (read|written)|denied/i);
  } finally {
    fs.rmSync(ro, { recursive: true, force: true });
  }
});

if (!onPostgres) test('a storage error while running refuses the move with storage_error; the room stays consistent', async () => {
  // The fault: --data-max-kib, the database's size quota. Past it SQLite refuses to grow the file
  // (SQLITE_FULL), exactly as on a full disk, whoever runs the server (root included).
  // The empty database (schema 10: 27 pages of 4 KiB) fills the quota's 104 KiB and its one page
  // more (schema 9 took 25 pages of 96 KiB's 25).
  const server = await startServer(['--data-max-kib', '104']);
  const a = await Client.connect(server, { name: 'Ana' });
  let refused = null, room, before;
  for (let game = 0; game < 200 && !refused; game++) {
    const j = await a.request({ type: 'create', game: 'kalah', houses: 9, seeds: 12, opponent: 'local' });
    if (j.type === 'error') { refused = { error: j }; break; }
    room = j.room;
    let st = await a.state(room, (s) => s.status === 'playing');
    let list = followMoves(undefined, st);
    while (st.status === 'playing') {
      const reply = await a.request({ type: 'move', room, house: st.legal[0], ply: st.ply });
      if (reply.type === 'error') { refused = { error: reply }; before = { ...st, moves: list }; break; }
      st = reply;
      list = followMoves(list, st);
    }
    if (!refused) await a.request({ type: 'leave', room });
  }
  assert.ok(refused, 'the quota was reached');
  assert.equal(refused.error.code, 'storage_error');
  assert.equal(refused.error.request, 'move');
  if (before) {
    // Nothing changed: the same position, and the same refusal when tried again.
    a.drain();
    const again = await a.request({ type: 'join', room });
    assert.equal(again.type, 'joined');
    // The full state that answers the join (the room's state as it is now, after the loss, may
    // arrive before it: states of one ply can come at any time).
    const st = await a.state(room, (s) => Array.isArray(s.moves));
    assert.equal(st.status, 'playing');
    assert.equal(st.ply, before.ply);
    assert.deepEqual(st.pits, before.pits);
    assert.deepEqual(st.moves, before.moves);
    const retry = await a.request({ type: 'move', room, house: st.legal[0], ply: st.ply });
    assert.equal(retry.code, 'storage_error');
  }
  // The server keeps serving: chat, health, a new connection, the lobby. /healthz says that
  // storage refuses writes (503 degraded: no commit has succeeded since the refusal).
  const b = await Client.connect(server, { name: 'Bo' });
  assert.equal((await b.request({ type: 'lobby', watch: false })).type, 'lobby');
  const health = await fetch(`${server.http}/healthz`);
  assert.equal(health.status, 503);
  const h = await health.json();
  assert.equal(h.status, 'degraded');
  assert.match(h.reason, /^storage refuses writes: /);
  const metrics = await (await fetch(`${server.http}/metrics`)).text();
  assert.match(metrics, /^mancala_errors_total\{code="storage_error"\} [1-9]/m);
  // Logged with what could not be stored: a write refused at once, or (a move: SQLite inserts a
  // batch's moves together before its COMMIT) the commit that lost it.
  assert.match(server.log, /ERROR persist: (cannot store|commit failed: .*cannot store a move)/);
  await a.close();
  await b.close();
  await stopClean(server);
});
