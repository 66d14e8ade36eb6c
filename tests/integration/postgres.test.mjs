// The server on PostgreSQL when PostgreSQL itself fails (issue 20): killed -9 and restarted during
// 20 games, the moves meanwhile refused with storage_error and /healthz degraded naming the
// backend, no acknowledged move lost and every game finished; paused (SIGSTOP) in the same games,
// a batch in flight that /metrics counts and no state sent until its COMMIT's result arrives; an
// account's reply sent only once its write is committed, while later turns run with a batch in
// flight; the lease (a server killed with a batch in PostgreSQL, a second server, the server's
// connections cut at a proxy that PostgreSQL's side never hears of, migrate against a database in
// use); and the migrate command moving a site from SQLite, twice. Each test runs a PostgreSQL of
// its own (tests/pg.sh), which it kills.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import WebSocket from 'ws';
import { Client, followMoves, pair, playOut, sleep, startServer } from './harness.mjs';
import { cuttable, psql, slowCommits } from './pgslow.mjs';

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
    this.received = 0; // state frames received
    this.errors = [];
    this.finished = new Map(); // room -> game_id
  }

  connect(server) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(server.url, 'mancala.v1');
      this.ws = ws;
      this.sentPly = null;
      ws.on('error', () => {});
      ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', name: this.name, token: this.token })));
      ws.once('close', () => reject(new Error('closed')));
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString());
        if (m.type === 'welcome') {
          this.token = m.token;
          resolve(m);
        }
        else if (m.type === 'joined' && this.onJoined) this.onJoined(m);
        else if (m.type === 'state') {
          this.received++;
          this.onState(m);
        }
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
    const ws = this.ws;
    setTimeout(() => { if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'move', room: s.room, house, ply: s.ply })); },
      100 + Math.floor(this.rand() * 100));
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

// 40 players (name prefix, seeded moves) in 20 private Kalah 6x4 rooms, two a room, playing.
async function twentyGames(server, prefix, seed) {
  const players = [];
  for (let i = 0; i < 40; i++) {
    const p = new Player(prefix + i, mulberry32(seed + i));
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
  return { players, rooms };
}

// Every game of twentyGames() finished, and archived with the moves its clients saw accepted;
// resolves with the number of moves.
async function archivedAsSeen(server, players, rooms) {
  let moves = 0;
  for (let g = 0; g < 20; g++) {
    const a = players[2 * g], b = players[2 * g + 1];
    const room = rooms[g];
    const id = a.finished.get(room) ?? b.finished.get(room);
    assert.ok(id, `room ${room} finished`);
    const seen = [...a.lists.entries(), ...b.lists.entries()].filter(([key]) => key.startsWith(room + '#1'))
      .map(([, list]) => list).sort((x, y) => y.length - x.length)[0];
    const rec = await (await fetch(`${server.http}/api/games/${id}`)).json();
    assert.ok(Array.isArray(rec.moves), `room ${room}: game ${id} is archived: ${JSON.stringify(rec)}`);
    assert.deepEqual(rec.moves.map((m) => ({ seat: m.seat, house: m.house })), seen, `room ${room}: archived moves`);
    moves += seen.length;
  }
  return moves;
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

// The storage lines of /metrics, by name (a connection of its own, as health()).
function storeMetrics(server) {
  return new Promise((resolve, reject) => {
    http.get(server.http + '/metrics', { agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => {
        const m = {};
        for (const line of body.split('\n')) {
          const r = line.match(/^(mancala_store_\w+) (\S+)$/);
          if (r) m[r[1]] = Number(r[2]);
        }
        resolve(m);
      });
    }).on('error', reject);
  });
}

// Stops (SIGSTOP) or continues (SIGCONT) the PostgreSQL of DIR/pg: the postmaster and its
// children. Stopped, it keeps its connections open and answers nothing.
function pgSignal(dir, signal) {
  const pid = Number(fs.readFileSync(dir + '/pg/data/postmaster.pid', 'utf8').split('\n')[0]);
  const children = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  for (const p of [pid, ...children]) process.kill(p, signal);
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
    const { players, rooms } = await twentyGames(server, 'P', seed);
    // /metrics: commits and their latency, reachable, and PostgreSQL paused: the batch it was
    // sent stays in flight and no state leaves the server until its COMMIT's result arrives.
    await sleep(400);
    const m0 = await storeMetrics(server);
    assert.equal(m0.mancala_store_reachable, 1, JSON.stringify(m0));
    assert.ok(m0.mancala_store_commits_total > 0, JSON.stringify(m0));
    assert.ok(m0.mancala_store_commit_seconds_max > 0 && m0.mancala_store_commit_seconds_avg > 0, JSON.stringify(m0));
    assert.ok(m0.mancala_store_commit_seconds_avg <= m0.mancala_store_commit_seconds_max, JSON.stringify(m0));
    pgSignal(dir, 'SIGSTOP');
    let paused;
    try {
      let m;
      for (let i = 0; i < 40; i++) {
        m = await storeMetrics(server);
        if (m.mancala_store_inflight_batches === 1) break;
        await sleep(50);
      }
      assert.equal(m.mancala_store_inflight_batches, 1, 'a batch in flight while PostgreSQL does not answer');
      // Frames released before the pause may still be on their way: count from a moment later.
      await sleep(300);
      const before = players.reduce((n, p) => n + p.received, 0);
      await sleep(1500);
      paused = { states: players.reduce((n, p) => n + p.received, 0) - before, metrics: await storeMetrics(server),
        commitsAt: m.mancala_store_commits_total };
    } finally {
      pgSignal(dir, 'SIGCONT');
    }
    assert.equal(paused.states, 0, 'no state sent while its batch waits for its COMMIT');
    assert.equal(paused.metrics.mancala_store_inflight_batches, 1);
    assert.equal(paused.metrics.mancala_store_commits_total, paused.commitsAt, 'no commit while PostgreSQL is paused');
    const resumed = players.reduce((n, p) => n + p.received, 0);
    for (let i = 0; i < 100 && players.reduce((n, p) => n + p.received, 0) === resumed; i++) await sleep(50);
    assert.ok(players.reduce((n, p) => n + p.received, 0) > resumed, 'states flow again once PostgreSQL answers');
    const m1 = await storeMetrics(server);
    assert.ok(m1.mancala_store_commits_total > paused.metrics.mancala_store_commits_total, 'the batch committed');
    assert.ok(m1.mancala_store_commit_seconds_max >= 1.5, `the paused commit is the longest: ${m1.mancala_store_commit_seconds_max} s`);
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
      const down = await storeMetrics(server);
      assert.equal(down.mancala_store_reachable, 0, '/metrics: unreachable');
      assert.equal(down.mancala_store_degraded, 1, '/metrics: degraded');
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
      assert.equal((await storeMetrics(server)).mancala_store_reachable, 1, '/metrics: reachable again');
    }
    assert.ok(refusedDown > 0, 'moves were refused with storage_error while PostgreSQL was down');
    // Every game finishes.
    for (let i = 0; i < 600 && rooms.some((r) => !players.some((p) => p.finished.has(r))); i++) await sleep(100);
    for (const r of rooms) assert.ok(players.some((p) => p.finished.has(r)), `room ${r} finished`);
    // Every move any client saw accepted is in the archive, in order, and nothing else.
    const moves = await archivedAsSeen(server, players, rooms);
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

test('an account\'s reply leaves only once its write is committed, also while another batch is in flight', { timeout: 300000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-pgslow-'));
  fs.chmodSync(dir, 0o755);
  const url = pg('start', dir + '/pg', 'auto');
  const proxy = await slowCommits(Number(new URL(url).port), 1000);
  const slow = url.replace(/:\d+\//, `:${proxy.port}/`);
  let server;
  const clients = [];
  try {
    server = await startServer(['--store', slow]);
    const ana = await Client.connect(server, {});
    clients.push(ana);
    const PW0 = 'correct horse 0';
    assert.equal((await ana.request({ type: 'register', name: 'Ana', password: PW0 }, 30000)).type, 'account');
    // Games at a person's pace keep a batch in flight nearly all the time.
    const { players } = await twentyGames(server, 'S', Date.now() % 1000003);
    await sleep(500);
    let pw = PW0;
    let changed = psql(url, "SELECT password_ms FROM accounts WHERE name = 'Ana'");
    assert.match(changed, /^\d+$/);
    for (let k = 1; k <= 3; k++) {
      const next = 'correct horse ' + k;
      const ch = await ana.request({ type: 'change_password', password: pw, new_password: next }, 30000);
      assert.equal(ch.type, 'account', JSON.stringify(ch));
      // PostgreSQL itself (not through the proxy) holds the new password when the answer comes.
      const stored = psql(url, "SELECT password_ms FROM accounts WHERE name = 'Ana'");
      t.diagnostic(`change ${k}: password_ms ${stored} (was ${changed})`);
      assert.notEqual(stored, changed, `change ${k}: the new password is committed when the answer comes`);
      changed = stored;
      // Told the password changed: from now on the old one is refused, wherever one logs in.
      const other = await Client.connect(server, {});
      clients.push(other);
      const old = await other.request({ type: 'login', name: 'Ana', password: pw }, 30000);
      assert.equal(old.code, 'bad_credentials', `change ${k}: the old password after the answer: ${JSON.stringify(old)}`);
      const now = await other.request({ type: 'login', name: 'Ana', password: next }, 30000);
      assert.equal(now.type, 'welcome', `change ${k}: the new password: ${JSON.stringify(now)}`);
      pw = next;
    }
    const m = await storeMetrics(server);
    t.diagnostic(`${m.mancala_store_commits_total} commits, ${m.mancala_store_commit_seconds_avg} s on average`);
    for (const p of players) p.ws.close();
    for (const c of clients) c.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  } catch (e) {
    if (server) t.diagnostic(`server log:\n` + server.log.slice(-3000));
    throw e;
  } finally {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    proxy.close();
    if (!process.env.MANCALA_KEEP_PG) {
      pg('stop', dir + '/pg');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('the server killed -9 three times during 20 games on PostgreSQL: nothing acknowledged lost, every game finishes', { timeout: 400000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-pgkill-'));
  fs.chmodSync(dir, 0o755);
  const data = path.join(dir, 'data');
  const url = pg('start', dir + '/pg', 'auto');
  let server;
  try {
    server = await startServer(['--store', url], { data });
    const seed = Date.now() % 1000003;
    t.diagnostic(`seed ${seed}`);
    const { players, rooms } = await twentyGames(server, 'K', seed);
    for (let k = 0; k < 3; k++) {
      await sleep(700);
      server.child.kill('SIGKILL');
      assert.equal((await server.exited).signal, 'SIGKILL');
      // What every client saw accepted before the kill must still be there after it.
      const before = new Map();
      for (const p of players) for (const [key, list] of p.lists) if (!before.has(key) || before.get(key).length < list.length) before.set(key, list.slice());
      server = await startServer(['--store', url], { data });
      for (const p of players) {
        const w = await p.connect(server);
        assert.equal(w.resumed, true, `${p.name} is known after restart ${k + 1}`);
      }
      await sleep(300);
      for (const [key, seen] of before) {
        const now = players.map((p) => p.lists.get(key)).filter(Boolean).sort((x, y) => y.length - x.length)[0];
        assert.ok(now && now.length >= seen.length, `${key}: ${seen.length} moves before kill ${k + 1}, ${now?.length} after`);
        assert.deepEqual(now.slice(0, seen.length), seen, `${key}: the same moves after kill ${k + 1}`);
      }
    }
    for (let i = 0; i < 900 && rooms.some((r) => !players.some((p) => p.finished.has(r))); i++) await sleep(100);
    const moves = await archivedAsSeen(server, players, rooms);
    t.diagnostic(`${moves} moves in 20 games across 3 kills`);
    for (const p of players) assert.deepEqual(p.errors, [], `${p.name}: no unexpected error`);
    for (const p of players) p.ws.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  } finally {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    pg('stop', dir + '/pg');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// The next move inserted waits ms inside PostgreSQL, once (a trigger as the database's owner): the
// batch that carries it is still in PostgreSQL, its COMMIT queued behind it, when its server dies.
function slowNextMove(url, ms) {
  psql(url, `CREATE TABLE slow_once (x int); INSERT INTO slow_once VALUES (1);
    CREATE FUNCTION slow_move() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
    DECLARE f int; BEGIN DELETE FROM slow_once RETURNING x INTO f;
    IF f IS NOT NULL THEN PERFORM pg_sleep(${ms / 1000}); END IF; RETURN NEW; END $$;
    CREATE TRIGGER slow_move BEFORE INSERT ON moves FOR EACH ROW EXECUTE FUNCTION slow_move()`);
}

test('a server killed -9 while PostgreSQL still runs its last batch: the next server loads that batch before it serves', { timeout: 120000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-pglease-'));
  fs.chmodSync(dir, 0o755);
  const data = path.join(dir, 'data');
  const url = pg('start', dir + '/pg', 'auto');
  let a, b;
  try {
    a = await startServer(['--store', url], { data });
    const s = await Client.connect(a, { name: 'Sol' }), n = await Client.connect(a, { name: 'Nia' });
    const { room, state } = await pair(s, n);
    assert.equal(state.ply, 0);
    slowNextMove(url, 2500);
    (state.turn === 'south' ? s : n).send({ type: 'move', room, house: state.legal[0], ply: 0 });
    // The batch is in PostgreSQL, asleep in the trigger, when the server dies.
    let sleeping = '0';
    for (let i = 0; i < 100 && sleeping !== '1'; i++) {
      await sleep(20);
      sleeping = psql(url, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'");
    }
    assert.equal(sleeping, '1', 'the move\'s batch is in PostgreSQL');
    a.child.kill('SIGKILL');
    assert.equal((await a.exited).signal, 'SIGKILL');
    b = await startServer(['--store', url], { data });
    // The killed server's backend still held the lease: the new server waited for it to end, so
    // that batch is in and the new server's rooms include it.
    assert.match(b.log, /another connection holds the lease/);
    assert.equal(psql(url, 'SELECT count(*) FROM moves'), '1', 'the killed server\'s last batch went in before the new server was up');
    const s2 = await Client.connect(b, { token: s.me.token }), n2 = await Client.connect(b, { token: n.me.token });
    const st = await s2.state(room);
    assert.equal(st.ply, 1, 'the new server\'s room has the move of that batch');
    assert.equal(st.moves.length, 1);
    // And it stores the next one (without the wait it found ply 0 taken: storage_error).
    const reply = await (st.turn === 'south' ? s2 : n2).request({ type: 'move', room, house: st.legal[0], ply: 1 });
    assert.equal(reply.type, 'state', JSON.stringify(reply));
    assert.equal(reply.ply, 2);
    assert.equal(psql(url, 'SELECT count(*) FROM moves'), '2');
    for (const c of [s, n, s2, n2]) c.ws.terminate();
    assert.deepEqual(await b.stop(), { code: 0, signal: null });
  } finally {
    for (const x of [a, b]) if (x && x.child.exitCode === null && x.child.signalCode === null) x.child.kill('SIGKILL');
    pg('stop', dir + '/pg');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a second server on the same PostgreSQL outside a cluster takes the lease over; the first stores nothing from then on', { timeout: 120000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-pglease-'));
  fs.chmodSync(dir, 0o755);
  const url = pg('start', dir + '/pg', 'auto');
  let a, b;
  try {
    a = await startServer(['--store', url], { data: path.join(dir, 'a') });
    const s = await Client.connect(a, { name: 'Sol' }), n = await Client.connect(a, { name: 'Nia' });
    const { room, state } = await pair(s, n);
    const mover = state.turn === 'south' ? s : n;
    // The first server is alive and holds the lease: the second waits for it, then takes it over.
    b = await startServer(['--store', url], { data: path.join(dir, 'b') });
    assert.match(b.log, /another connection holds the lease/);
    assert.match(b.log, /taken over from backend \d+ \(mancala-server from 127\.0\.0\.1\)/);
    // The first server's moves are refused from then on: it reconnects, and its first batch asks
    // for the lease in vain; after that it does not even ask.
    for (let i = 0; i < 5 && !/another server took this database's lease/.test(a.log); i++) {
      const reply = await mover.request({ type: 'move', room, house: state.legal[0], ply: 0 }, 20000);
      assert.equal(reply.code, 'storage_error', JSON.stringify(reply));
    }
    assert.match(a.log, /another server took this database's lease/);
    const again = await mover.request({ type: 'move', room, house: state.legal[0], ply: 0 }, 20000);
    assert.equal(again.code, 'storage_error', JSON.stringify(again));
    assert.equal(psql(url, 'SELECT count(*) FROM moves'), '0', 'the deposed server stored no move');
    // The second server has the room as stored, and plays it.
    const s2 = await Client.connect(b, { token: s.me.token }), n2 = await Client.connect(b, { token: n.me.token });
    const st = await s2.state(room);
    assert.equal(st.ply, 0);
    const reply = await (st.turn === 'south' ? s2 : n2).request({ type: 'move', room, house: st.legal[0], ply: 0 });
    assert.equal(reply.type, 'state', JSON.stringify(reply));
    assert.equal(psql(url, 'SELECT count(*) FROM moves'), '1');
    for (const c of [s, n, s2, n2]) c.ws.terminate();
    assert.deepEqual(await a.stop(), { code: 0, signal: null });
    assert.deepEqual(await b.stop(), { code: 0, signal: null });
  } finally {
    for (const x of [a, b]) if (x && x.child.exitCode === null && x.child.signalCode === null) x.child.kill('SIGKILL');
    pg('stop', dir + '/pg');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the server\'s connections cut without PostgreSQL noticing: its old backend keeps the lease, the new connection ends it and the server stores on', { timeout: 120000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-pgcut-'));
  fs.chmodSync(dir, 0o755);
  const url = pg('start', dir + '/pg', 'auto');
  const proxy = await cuttable(Number(new URL(url).port));
  const through = url.replace(/:\d+\//, `:${proxy.port}/`);
  let a;
  try {
    a = await startServer(['--store', through], { data: path.join(dir, 'a') });
    const s = await Client.connect(a, { name: 'Sol' }), n = await Client.connect(a, { name: 'Nia' });
    const { room, state } = await pair(s, n);
    const first = await (state.turn === 'south' ? s : n).request({ type: 'move', room, house: state.legal[0], ply: 0 });
    assert.equal(first.type, 'state', JSON.stringify(first));
    const holder = "SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objid = 1296256066";
    const old = psql(url, holder);
    assert.match(old, /^\d+$/, 'one backend holds the lease');
    proxy.cut();
    // The server sees its connections end; PostgreSQL does not: the old backend, idle, still
    // holds the lease.
    for (let i = 0; i < 100 && !/connected again/.test(a.log); i++) await sleep(100);
    assert.match(a.log, /the connection broke/);
    assert.match(a.log, /connected again/);
    assert.equal(psql(url, holder), old, 'the cut backend still holds the lease');
    // The next move's batch ends that backend before it asks for the lease (without that it
    // waited 5 s for the lease and then refused every write: "another server took ...").
    const mover = first.turn === 'south' ? s : n;
    const st = await mover.state(room);
    assert.equal(st.ply, 1);
    const reply = await mover.request({ type: 'move', room, house: st.legal[0], ply: 1 }, 30000);
    assert.equal(reply.type, 'state', JSON.stringify(reply));
    assert.doesNotMatch(a.log, /another server took this database's lease/);
    assert.match(a.log, new RegExp(`the lease is ours again \\(the backend of the dropped connection, ${old},`));
    const now = psql(url, holder);
    assert.match(now, /^\d+$/);
    assert.notEqual(now, old, 'the lease is held by the new connection');
    assert.equal(psql(url, `SELECT count(*) FROM pg_stat_activity WHERE pid = ${old}`), '0', 'the cut backend ended');
    assert.equal(psql(url, 'SELECT count(*) FROM moves'), '2');
    for (const c of [s, n]) c.ws.terminate();
    assert.deepEqual(await a.stop(), { code: 0, signal: null });
  } catch (e) {
    if (a) t.diagnostic(`server log:\n` + a.log.slice(-3000));
    throw e;
  } finally {
    if (a && a.child.exitCode === null && a.child.signalCode === null) a.child.kill('SIGKILL');
    proxy.close();
    pg('stop', dir + '/pg');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('migrate refuses a PostgreSQL a server is running on, after waiting for its lease, and leaves that server storing', { timeout: 120000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-pgmig-'));
  fs.chmodSync(dir, 0o755);
  const url = pg('start', dir + '/pg', 'auto');
  let a;
  try {
    a = await startServer(['--store', url], { data: path.join(dir, 'a') });
    const s = await Client.connect(a, { name: 'Sol' }), n = await Client.connect(a, { name: 'Nia' });
    const { room, state } = await pair(s, n);
    const from = path.join(dir, 'site');
    fs.mkdirSync(from);
    const t0 = Date.now();
    let status = 0, out = '';
    try {
      out = execFileSync(BIN, ['migrate', '--from', from, '--to', url], { encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      status = e.status;
      out = String(e.stderr);
    }
    assert.equal(status, 1, `migrate refused while a server runs on the database: ${out}`);
    assert.match(out, /cannot take the lease: a server is running on this database \(stop it first\)/);
    assert.ok(Date.now() - t0 >= 5000, 'migrate waited for the lease first');
    // The server was not deposed: it stores the next move.
    const reply = await (state.turn === 'south' ? s : n).request({ type: 'move', room, house: state.legal[0], ply: 0 }, 30000);
    assert.equal(reply.type, 'state', JSON.stringify(reply));
    assert.doesNotMatch(a.log, /another server took this database's lease/);
    assert.equal(psql(url, 'SELECT count(*) FROM moves'), '1');
    for (const c of [s, n]) c.ws.terminate();
    assert.deepEqual(await a.stop(), { code: 0, signal: null });
  } finally {
    if (a && a.child.exitCode === null && a.child.signalCode === null) a.child.kill('SIGKILL');
    pg('stop', dir + '/pg');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('migrate moves a SQLite site of 1,000 games to PostgreSQL (archives, profiles, ratings, chat, old game ids read the same), and a second run copies nothing', { timeout: 600000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-migrate-'));
  fs.chmodSync(dir, 0o755);
  const data = path.join(dir, 'data');
  const url = pg('start', dir + '/pg', 'auto');
  let server;
  try {
    // A site on SQLite: 20 accounts in 10 pairs, each pair 100 short games (every other one rated),
    // a chat line in each room, and one game still being played.
    server = await startServer([], { data });
    const pairs = [];
    for (let p = 0; p < 10; p++) {
      const a = await Client.connect(server, { name: `A${p}` });
      const b = await Client.connect(server, { name: `B${p}` });
      assert.equal((await a.request({ type: 'register', name: `Mover${p}a`, password: 'correct horse 1' })).type, 'account');
      assert.equal((await b.request({ type: 'register', name: `Mover${p}b`, password: 'correct horse 2' })).type, 'account');
      pairs.push([a, b]);
    }
    const ids = [];
    const games = async ([a, b], n) => {
      for (let g = 0; g < n; g++) {
        // Rated games are played on the standard board; the others on a short one.
        const fields = g % 2 ? { rated: true, clock: { initial_ms: 600000, increment_ms: 0 } } : { houses: 4, seeds: 2 };
        const { room, state } = await pair(a, b, fields);
        if (g % 10 === 0) await a.request({ type: 'chat', room, text: `game ${g}` });
        const end = (await playOut(room, { south: a, north: b }, state)).state;
        assert.equal(end.status, 'finished');
        ids.push(end.game_id);
        await a.request({ type: 'leave', room });
        await b.request({ type: 'leave', room });
      }
    };
    await Promise.all(pairs.map((p) => games(p, 100)));
    assert.equal(ids.length, 1000);
    const [a0, b0] = pairs[0];
    const { room: open } = await pair(a0, b0);
    const st = await a0.request({ type: 'move', room: open, house: 1, ply: 0 });
    assert.equal(st.type, 'state');
    const read = async () => {
      const out = { games: [], profiles: [] };
      for (const id of ids) out.games.push(await (await fetch(`${server.http}/api/games/${id}`)).json());
      for (let p = 0; p < 10; p++) {
        for (const side of ['a', 'b']) out.profiles.push(await (await fetch(`${server.http}/api/players/Mover${p}${side}`)).json());
      }
      out.board = await (await fetch(`${server.http}/api/leaderboard/kalah`)).json();
      return out;
    };
    const before = await read();
    assert.ok(before.profiles.some((p) => p.ratings && JSON.stringify(p.ratings).includes('"games":')), 'ratings were made');
    for (const [a, b] of pairs) await Promise.all([a.close(), b.close()]);
    assert.deepEqual(await server.stop(), { code: 0, signal: null });

    // The move, twice.
    let t0 = Date.now();
    const first = execFileSync(BIN, ['migrate', '--from', data, '--to', url], { encoding: 'utf8' });
    t.diagnostic(`migrate: ${Date.now() - t0} ms\n${first}`);
    assert.match(first, /games\s+1001 rows,\s+1001 copied/, first);
    assert.match(first, /accounts\s+20 rows,\s+20 copied/, first);
    assert.match(first, /done: \d+ rows copied/, first);
    t0 = Date.now();
    const second = execFileSync(BIN, ['migrate', '--from', data, '--to', url], { encoding: 'utf8' });
    t.diagnostic(`second run: ${Date.now() - t0} ms`);
    assert.match(second, /nothing new to copy/, second);
    assert.doesNotMatch(second, / [1-9]\d* copied/, second);

    // The site on PostgreSQL reads the same: every archive under its old public id, every
    // profile, the leaderboard; an account logs in; the game in progress goes on.
    server = await startServer(['--store', url]);
    const after = await read();
    assert.deepEqual(after.games, before.games);
    assert.deepEqual(after.profiles, before.profiles);
    assert.deepEqual(after.board, before.board);
    const g = await Client.connect(server, { name: 'Guest' });
    assert.equal((await g.request({ type: 'login', name: 'Mover0a', password: 'correct horse 1' })).type, 'welcome');
    g.close();
    // The session token of before (sessions moved too) gives the seat back.
    const back = await Client.connect(server, { token: a0.me.token });
    assert.equal(back.me.resumed, true);
    const st2 = await back.next((m) => m.type === 'state' && m.room === open);
    assert.equal(st2.ply, 1);
    assert.equal((await back.request({ type: 'chat', room: open, text: 'still here' })).type, 'chat');
    back.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  } finally {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    pg('stop', dir + '/pg');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
