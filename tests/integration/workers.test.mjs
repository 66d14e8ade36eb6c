// The computer's searches on mancala-worker processes through Redis Streams (issue 24,
// docs/computer.md "Search workers"): one server started with --search-queue at a Redis of this
// file's own (tests/redis.sh, a loopback port) and two workers. A game against the computer at
// level 5 gets its moves from the workers, one at level 4 (a fixed depth) from the server itself,
// a hint its answer from a worker; a finished game's analysis is made by a worker and stored; a
// worker killed -9 in the middle of a long level-6 search loses the job to the other, which takes
// it over (XAUTOCLAIM, its second try) and the game gets its move; answers for a position that is
// not the job's, or for a job no longer wanted, are ignored; with no worker left the server
// searches itself.
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, pair, playOut, sleep, startServer } from './harness.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const REDIS_SH = process.env.MANCALA_REDIS_SH || path.resolve(here, '../redis.sh');
const WORKER = process.env.MANCALA_WORKER || path.resolve(here, '../../build-server/bin/mancala-worker');
const WAIT = 120000; // A reply on a loaded machine under the sanitizers.
// Level 6 thinks this long: long enough for a worker to be killed in the middle of a search.
const LEVEL6_MS = 5000;
// An analysis' time a ply: a whole game's analysis keeps a worker busy for long enough that a
// move comes while it runs.
const ANALYSIS_MS = 1000;

const sh = (script, ...args) => execFileSync('sh', [script, ...args], { encoding: 'utf8' }).trim();

let base, redisUrl, redisPort, server;
const workers = {};

function redis(...args) {
  return execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', redisPort, ...args], { encoding: 'utf8' }).trim();
}

// A worker logs to a file: once it is stopped (SIGSTOP), what it wrote is all there, no pipe to
// drain first.
function startWorker(name) {
  const file = path.join(base, `${name}.log`);
  const fd = fs.openSync(file, 'a');
  const child = spawn(WORKER, [redisUrl, '--name', name, '--log-level', 'debug'], { stdio: ['ignore', 'ignore', fd] });
  fs.closeSync(fd);
  const w = { name, child, get log() { return fs.readFileSync(file, 'utf8'); } };
  w.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  workers[name] = w;
  return w;
}

// Resolves once get() returns something truthy, looking every 50 ms; fails after ms.
async function until(get, what, ms = WAIT) {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v) return v;
    if (Date.now() > end) throw new Error(`waited in vain for ${what}`);
    await sleep(50);
  }
}

const aliveLine = (n) => new RegExp(`search workers: ${n} fast, ${n} deep, ${n} analysis alive`);

before(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-workers-'));
  redisUrl = sh(REDIS_SH, 'start', path.join(base, 'redis'), 'auto');
  redisPort = redisUrl.match(/:(\d+)$/)[1];
  startWorker('wa');
  startWorker('wb');
  server = await startServer(['--search-queue', redisUrl, '--computer-ms', String(LEVEL6_MS),
    '--computer-reply-ms', '600000', '--analysis-ms', String(ANALYSIS_MS), '--log-level', 'debug']);
  await until(() => aliveLine(2).test(server.log), 'the server to see both workers');
});

after(async () => {
  for (const w of Object.values(workers)) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  if (server) server.child.kill('SIGKILL');
  try { sh(REDIS_SH, 'stop', path.join(base, 'redis')); } catch { /* already gone */ }
  fs.rmSync(base, { recursive: true, force: true });
});

async function newGame(c, fields) {
  const joined = await c.request({ type: 'create', opponent: 'computer', ...fields }, WAIT);
  assert.equal(joined.type, 'joined', JSON.stringify(joined));
  const st = await c.state(joined.room, () => true, WAIT);
  return { room: joined.room, st, me: joined.seat };
}

// Plays as `me` (the first legal house) until the computer has answered `replies` times or the
// game is over; returns the plies at which the computer moved.
async function play(c, room, st, me, replies) {
  const plies = [];
  while (st.status === 'playing' && plies.length < replies) {
    if (st.turn === me) {
      const reply = await c.request({ type: 'move', room, house: st.legal[0], ply: st.ply }, WAIT);
      assert.equal(reply.type, 'state', JSON.stringify(reply));
      st = reply;
    } else {
      const next = await c.state(room, (s) => s.ply > st.ply, WAIT);
      assert.equal(next.ply, st.ply + 1);
      assert.equal(next.last.seat, st.turn, 'the computer moved for its own seat');
      assert.ok(st.legal.includes(next.last.house), `the computer's house ${next.last.house} is legal`);
      plies.push(st.ply);
      st = next;
    }
  }
  return plies;
}

const tookRe = (room, ply) => new RegExp(`took job (\\S+) \\(${room}, ply ${ply}, level (\\d), (\\d+) ms, (\\w+), entry (\\S+), try (\\d)\\)`);

let answered; // A job of the first test, answered: its answer again is one no longer wanted.

const workerTook = (room, ply) => workers.wa.log.match(tookRe(room, ply)) || workers.wb.log.match(tookRe(room, ply));

// A worker lowers its CPU priority by --nice steps (default 10) before it starts any thread, so
// that a server on the same machine (its loop, level 4 in its fast lane) takes the cores first
// (docs/computer.md, "Search workers"). Nice values are os.getPriority()'s; 19 is the lowest.
test('workers run 10 nice steps below where they were started, or --nice N steps; the server is not lowered', async () => {
  const own = os.getPriority();
  for (const w of [workers.wa, workers.wb]) {
    assert.equal(os.getPriority(w.child.pid), Math.min(19, own + 10), `${w.name}'s nice value`);
    assert.match(w.log, new RegExp(`${w.name}: CPU priority nice ${Math.min(19, own + 10)} \\(--nice 10\\)`));
  }
  assert.equal(os.getPriority(server.child.pid), own, 'the server keeps the priority it was started with');
  // --nice 3 (at a Redis nobody listens on: it only tries to connect, and stops on SIGTERM).
  const file = path.join(base, 'nice3.log');
  const fd = fs.openSync(file, 'a');
  const child = spawn(WORKER, ['redis://127.0.0.1:1', '--name', 'n3', '--nice', '3'], { stdio: ['ignore', 'ignore', fd] });
  fs.closeSync(fd);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  await until(() => /CPU priority nice/.test(fs.readFileSync(file, 'utf8')), 'the --nice 3 worker to start');
  assert.equal(os.getPriority(child.pid), Math.min(19, own + 3));
  child.kill('SIGTERM');
  assert.deepEqual(await exited, { code: 0, signal: null });
  // Out of range, or not a number: a usage error, exit 2, before anything runs.
  for (const bad of ['20', '-1', 'x', '']) {
    const r = await new Promise((resolve) => execFile(WORKER, ['redis://127.0.0.1:1', '--nice', bad], (e) => resolve(e ? e.code : 0)));
    assert.equal(r, 2, `--nice '${bad}' is refused`);
  }
});

test('level 5 gets its moves from the workers, level 4 from the server itself, a hint its answer', async () => {
  const c = await Client.connect(server, { name: 'Ana' });
  {
    // Level 4 searches to a fixed depth: faster in process than the way through Redis, whatever
    // the workers (docs/computer.md, "Search workers"; levels 1-3 are searched on the loop).
    const { room, st, me } = await newGame(c, { game: 'kalah', seat: 'south', level: 4 });
    const plies = await play(c, room, st, me, 4);
    assert.ok(plies.length >= 1, 'the computer moved');
    for (const ply of plies) {
      assert.equal(workerTook(room, ply), null, `no worker took ${room}'s job at ply ${ply}`);
      assert.match(server.log, new RegExp(`${room}: level 4 at ply ${ply} searched in process \\(fixed depth\\)`));
    }
  }
  for (const [level, lane] of [[5, 'deep']]) {
    const { room, st, me } = await newGame(c, { game: 'kalah', seat: 'south', level });
    const plies = await play(c, room, st, me, 4);
    assert.ok(plies.length >= 1, 'the computer moved');
    for (const ply of plies) {
      // One of the workers took the job of that position, from the level's lane, on its first try.
      const m = workers.wa.log.match(tookRe(room, ply)) || workers.wb.log.match(tookRe(room, ply));
      assert.ok(m, `a worker took ${room}'s job at ply ${ply}`);
      assert.equal(Number(m[2]), level);
      assert.equal(m[4], lane);
      assert.equal(m[6], '1');
      assert.match(server.log, new RegExp(`${room}: move \\d at ply ${ply} from worker w[ab] \\(try 1\\)`));
      answered = { id: m[1], room, ply };
    }
    assert.doesNotMatch(server.log, new RegExp(`${room}: job .* searched in process`));
  }
  // A hint is a fast-lane job too (level 6 at full strength). Kalah 2x1 at its start, South to
  // move: house 2 sows into the store (an extra turn), then house 1 captures North's seed: South 3,
  // North 1, worth 2 seeds, proved (the vector of hints.test.mjs, worked by hand).
  const joined = await c.request({ type: 'create', game: 'kalah', houses: 2, seeds: 1, opponent: 'computer', level: 2, seat: 'south' });
  assert.equal(joined.type, 'joined', JSON.stringify(joined));
  const st = await c.state(joined.room, () => true, WAIT);
  const h = await c.request({ type: 'hint', room: joined.room, ply: st.ply }, WAIT);
  assert.equal(h.type, 'hint', JSON.stringify(h));
  assert.deepEqual([h.house, h.value, h.exact], [2, 2, true]);
  const m = workers.wa.log.match(tookRe(joined.room, 0)) || workers.wb.log.match(tookRe(joined.room, 0));
  assert.ok(m, 'a worker took the hint\'s job');
  assert.equal(m[2], '6');
  assert.equal(m[4], 'fast');
  await c.close();
});

test('a finished game\'s analysis is made by a worker and stored', async () => {
  // Kalah 2x1 between two people: South's house 2 sows into its store (an extra turn), then its
  // house 1 (its only move) captures North's house 1 with it: South 3, North keeps 1, the game
  // over. Worked by hand: at the start house 2 is the best move, worth +2 seeds to South, proved
  // (house 1 first gives North the move); at ply 2 house 1 is forced, +2 too.
  const a = await Client.connect(server, { name: 'Eli' });
  const b = await Client.connect(server, { name: 'Fay' });
  const { room, state } = await pair(a, b, { houses: 2, seeds: 1 });
  let st = await a.request({ type: 'move', room, house: 2, ply: state.ply }, WAIT);
  assert.equal(st.type, 'state', JSON.stringify(st));
  st = await a.request({ type: 'move', room, house: 1, ply: st.ply }, WAIT);
  assert.equal(st.status, 'finished', JSON.stringify(st));
  await a.close();
  await b.close();
  const id = st.game_id;
  let res;
  for (let i = 0; i < 1200; i++) {
    res = await fetch(`${server.http}/api/games/${id}/analysis`);
    if (res.status !== 202) break;
    await sleep(100);
  }
  assert.equal(res.status, 200);
  const an = await res.json();
  assert.equal(an.status, 'done');
  assert.deepEqual(an.plies.map((p) => [p.ply, p.seat, p.played, p.best, p.before, p.after, p.exact, p.mark]),
    [[1, 'south', 2, 2, 2, 2, true, 'best'], [2, 'south', 1, 1, 2, 2, true, 'best']]);
  // A worker took it from the analysis stream (level 6 at full strength, each ply's budget), the
  // server took its answer.
  const label = "game \\d+";
  const took = [workers.wa, workers.wb].map((w) => w.log.match(new RegExp(
    `took job (\\S+) \\((${label}), ply 2, level 6, (\\d+) ms, analysis, entry \\S+, try 1\\)`))).find(Boolean);
  assert.ok(took, 'a worker took the analysis');
  assert.match(server.log, new RegExp(`${took[2]}: analysis of 2 plies from worker w[ab] \\(try 1\\)`));
  assert.match(server.log, new RegExp(`${took[2]}: 2 plies analysed, stored`));
  assert.doesNotMatch(server.log, new RegExp(`${took[2]}: job .* searched in process`));
  // Served from storage: asked again, the same.
  const again = await fetch(`${server.http}/api/games/${id}/analysis`);
  assert.equal(again.status, 200);
  assert.deepEqual(await again.json(), an);
  // Its entry is acknowledged and deleted.
  assert.equal(redis('XLEN', 'mancala:search:analysis'), '0');
});

test('a worker killed -9 in the middle of a search: the other takes the job over; stale answers are ignored', async () => {
  const c = await Client.connect(server, { name: 'Bo' });
  // The computer plays South and moves first. Its level-6 searches take a good part of a second:
  // the worker that takes one is stopped (SIGSTOP) at once; if it had answered already (its log
  // says so before it publishes), it goes on and the game with it, until a worker is stopped in
  // the middle of a search.
  let { room, st } = await newGame(c, { game: 'kalah', seat: 'north', level: 6 });
  let took = null;
  for (let tries = 0; tries < 40 && !took; tries++) {
    assert.equal(st.status, 'playing');
    if (st.turn === 'north') {
      st = await c.request({ type: 'move', room, house: st.legal[0], ply: st.ply }, WAIT);
      assert.equal(st.type, 'state', JSON.stringify(st));
      continue;
    }
    const ply = st.ply;
    const t = await until(() => {
      for (const w of Object.values(workers)) {
        const m = w.log.match(tookRe(room, ply));
        if (m) return { w, id: m[1], ms: Number(m[3]), entry: m[5], ply };
      }
      return null;
    }, `a worker to take the level-6 job at ply ${ply}`);
    t.w.child.kill('SIGSTOP');
    if (!t.w.log.includes(`answered job ${t.id}:`)) {
      took = t;
    } else {
      t.w.child.kill('SIGCONT');
      st = await c.state(room, (s) => s.ply > ply, WAIT);
    }
  }
  assert.ok(took, 'a worker was stopped in the middle of a search');
  assert.equal(took.ms, LEVEL6_MS, 'the job has level 6\'s whole time (no load)');
  const other = took.w === workers.wa ? workers.wb : workers.wa;
  // The job is pending for that worker (XPENDING).
  const pending = redis('XPENDING', 'mancala:search:deep', 'workers', '-', '+', '10').split('\n');
  assert.ok(pending.includes(took.w.name), `pending for ${took.w.name}: ${pending}`);
  // Its data, as the worker read it.
  const entries = redis('XRANGE', 'mancala:search:deep', '-', '+').split('\n');
  const job = JSON.parse(entries.find((l) => l.includes(took.id)));
  assert.equal(job.id, took.id);
  assert.equal(job.game, room);
  assert.equal(job.ply, took.ply);
  assert.equal(job.level, 6);
  assert.equal(job.moves.split(' ').filter(Boolean).length, took.ply);
  // An answer to this job for another position (the hash of another one) is ignored...
  const forged = {
    v: 1, id: job.id, game: room, ply: job.ply, hash: job.hash.replace(/^./, (d) => (d === '0' ? '1' : '0')),
    worker: 'forger', try: 1, move: st.legal[0], best: st.legal[0], value: 0, exact: false, depth: 1, nodes: 1,
    time_ms: 1, stopped: false, pv: String(st.legal[0]), values: [],
  };
  redis('PUBLISH', job.reply, JSON.stringify(forged));
  await until(() => server.log.includes(`${room}: a stale answer to job ${job.id} ignored`), 'the stale answer to be ignored');
  // ... and so is an answer for a job already answered (the position of the first test's last).
  const old = { ...forged, id: answered.id, game: answered.room, ply: answered.ply, hash: '0123456789abcdef' };
  redis('PUBLISH', job.reply, JSON.stringify(old));
  await until(() => server.log.includes(`the answer of job ${answered.id} (ply ${answered.ply}) is no longer wanted`),
    'the old answer to be ignored');
  took.w.child.kill('SIGKILL');
  await took.w.exited;
  // The computer's move arrives all the same: the other worker took the job over, its second try.
  const moved = await c.state(room, (s) => s.ply > took.ply, WAIT);
  assert.equal(moved.last.seat, 'south');
  const again = other.log.match(tookRe(room, took.ply));
  assert.ok(again, `${other.name} took the job over`);
  assert.equal(again[1], job.id);
  assert.equal(again[6], '2');
  assert.match(server.log, new RegExp(`${room}: move ${moved.last.house} at ply ${took.ply} from worker ${other.name} \\(try 2\\)`));
  assert.doesNotMatch(server.log, new RegExp(`${room}: job .* searched in process`));
  // Its entry is acknowledged and deleted.
  assert.equal(redis('XPENDING', 'mancala:search:deep', 'workers', took.entry, took.entry, '1'), '');
  assert.equal(redis('XRANGE', 'mancala:search:deep', took.entry, took.entry), '');
  await c.close();
});

// Puts a job into the fast lane as if a worker had taken it three times and died each time: added,
// read by a consumer that never answers ('ghost') and claimed by it twice more, in one script
// (no live worker can take it in between).
const GHOST_JOB = `local id = redis.call('XADD', KEYS[1], '*', 'job', ARGV[1])
redis.call('XREADGROUP', 'GROUP', 'workers', 'ghost', 'COUNT', '1', 'STREAMS', KEYS[1], '>')
redis.call('XCLAIM', KEYS[1], 'workers', 'ghost', '0', id)
redis.call('XCLAIM', KEYS[1], 'workers', 'ghost', '0', id)
return id`;
// The workers' own script (srv_search_wire.h): 'ghost' says it is alive, serving the fast lane.
const BEAT = `local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)
for _, k in ipairs(KEYS) do redis.call('ZADD', k, now, ARGV[1]) end return 1`;
const FAST_WORKERS = 'mancala:search:workers:fast';

test('a job delivered three times is answered with an error; an error answer makes the server search itself', async () => {
  const live = Object.values(workers).find((w) => w.child.exitCode === null && w.child.signalCode === null);
  assert.ok(live, 'a worker is left');
  // Worker side: a hand-made job of Kalah's start (ply 0; its hash worked out apart from the code:
  // FNV-1a of "4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) south" and eight zero bytes) with a reply channel
  // of this test's own.
  const channel = 'mancala:search:reply:test';
  const sub = spawn('redis-cli', ['-h', '127.0.0.1', '-p', redisPort, 'SUBSCRIBE', channel], { stdio: ['ignore', 'pipe', 'ignore'] });
  let heard = '';
  sub.stdout.on('data', (d) => { heard += d; });
  try {
    await until(() => heard.includes(channel), 'the subscription');
    const job = {
      v: 1, id: 'test-1', reply: channel, game: 'HAND', ply: 0, hash: '26d4f6fc3f82cc8a', rules: 'kalah 6x4', moves: '',
      level: 3, ms: 50, seed: '0000000000000001', lane: 'fast',
    };
    const entry = redis('EVAL', GHOST_JOB, '1', 'mancala:search:fast', JSON.stringify(job));
    assert.equal(redis('XPENDING', 'mancala:search:fast', 'workers', entry, entry, '1').split('\n')[3], '3');
    // Idle past the reclaim time, the live worker takes it over: its fourth delivery, answered
    // with an error instead of a search.
    const line = await until(() => heard.split('\n').find((l) => l.includes('"id":"test-1"')), 'the error answer');
    const answer = JSON.parse(line);
    assert.equal(answer.try, 4);
    assert.match(answer.error, /tried 3 times/);
    assert.equal(answer.move, undefined);
    assert.equal(answer.game, 'HAND');
    assert.equal(answer.worker, live.name);
    assert.equal(redis('XRANGE', 'mancala:search:fast', entry, entry), '', 'its entry deleted');
  } finally {
    sub.kill();
  }
  // Server side: with the live worker stopped (SIGSTOP) and a worker that says it is alive but
  // takes nothing, the server's job (a hint's) waits in its lane; an error answer to it (what a
  // worker says after three tries) makes the server search the position itself, and the hint
  // comes.
  redis('EVAL', BEAT, '1', FAST_WORKERS, 'ghost');
  const beating = setInterval(() => execFile('redis-cli', ['-h', '127.0.0.1', '-p', redisPort, 'EVAL', BEAT, '1',
    FAST_WORKERS, 'ghost'], () => {}), 500);
  live.child.kill('SIGSTOP');
  try {
    const c = await Client.connect(server, { name: 'Di' });
    const { room, st } = await newGame(c, { game: 'kalah', seat: 'south', level: 3 });
    const hint = c.request({ type: 'hint', room, ply: st.ply }, WAIT);
    const job = await until(() => {
      const l = redis('XRANGE', 'mancala:search:fast', '-', '+').split('\n').find((x) => x.includes(`"game":"${room}"`));
      return l ? JSON.parse(l) : null;
    }, 'the job in the fast lane');
    assert.equal(job.ply, 0);
    assert.equal(job.level, 6);
    const failed = { v: 1, id: job.id, game: room, ply: 0, hash: job.hash, worker: 'forger', try: 4, error: 'tried 3 times: its workers stopped' };
    redis('PUBLISH', job.reply, JSON.stringify(failed));
    const h = await hint;
    assert.equal(h.type, 'hint', JSON.stringify(h));
    assert.ok(st.legal.includes(h.house), `the hint's house ${h.house} is legal`);
    assert.match(server.log, new RegExp(`${room}: job ${job.id} at ply 0 failed on worker forger \\(try 4: tried 3 times: its workers stopped\\): searched in process`));
    await c.close();
  } finally {
    clearInterval(beating);
    redis('ZREM', FAST_WORKERS, 'ghost');
    live.child.kill('SIGCONT');
  }
});

const alive = (w) => w.child.exitCode === null && w.child.signalCode === null;

test('a worker busy with an analysis sets it aside for a move, then goes on with it', async () => {
  const live = Object.values(workers).filter(alive);
  assert.equal(live.length, 1, 'one worker left');
  const w = live[0];
  // A Kalah 6x4 game played out by two people (the first legal house each time): its analysis
  // takes the worker a second for each ply it cannot prove at once.
  const a = await Client.connect(server, { name: 'Gus' });
  const b = await Client.connect(server, { name: 'Hal' });
  const { room, state } = await pair(a, b);
  const { state: end } = await playOut(room, { south: a, north: b }, state);
  assert.equal(end.status, 'finished');
  await a.close();
  await b.close();
  const res = await fetch(`${server.http}/api/games/${end.game_id}/analysis`);
  assert.equal(res.status, 202);
  const took = await until(() => w.log.match(new RegExp(
    `took job (\\S+) \\(game \\d+, ply ${end.ply}, level 6, ${ANALYSIS_MS} ms, analysis, entry \\S+, try 1\\)`)),
  'the worker to take the analysis');
  // A level-5 game whose computer moves first: the only worker reads the move lanes while it
  // analyses, stops the analysis for the move, answers it, and goes on with the analysis.
  const c = await Client.connect(server, { name: 'Ida' });
  const { room: g } = await newGame(c, { game: 'kalah', seat: 'north', level: 5 });
  const moved = await c.state(g, (s) => s.ply >= 1, WAIT);
  assert.equal(moved.last.seat, 'south');
  const m = w.log.match(tookRe(g, 0));
  assert.ok(m, `${w.name} took the move's job`);
  assert.equal(m[4], 'deep');
  assert.match(server.log, new RegExp(`${g}: move \\d at ply 0 from worker ${w.name} \\(try 1\\)`));
  await until(() => w.log.includes(`job ${took[1]}: the analysis goes on from ply`), 'the analysis to go on');
  assert.ok(w.log.indexOf(`took job ${m[1]}`) > w.log.indexOf(`took job ${took[1]}`), 'the move came during the analysis');
  await c.close();
});

test('with no worker alive, the server searches itself; a worker stops cleanly on SIGTERM', async () => {
  for (const w of Object.values(workers)) {
    if (w.child.exitCode !== null || w.child.signalCode !== null) continue;
    w.child.kill('SIGTERM');
    assert.deepEqual(await w.exited, { code: 0, signal: null });
    assert.match(w.log, new RegExp(`${w.name}: stopped`));
    // An analysis it had not finished is answered with an error: the server makes it itself.
    const cut = w.log.match(/job (\S+) \((game \d+)\): the worker stopped before the analysis' end/);
    if (cut) {
      await until(() => server.log.includes(`${cut[2]}: job ${cut[1]} at ply`) &&
        server.log.includes(`failed on worker ${w.name} (try 1: the worker stopped before the analysis' end): searched in process`),
      'the server to analyse the game itself');
    }
  }
  await until(() => aliveLine(0).test(server.log), 'the server to see no worker');
  const c = await Client.connect(server, { name: 'Cy' });
  const { room, st, me } = await newGame(c, { game: 'kalah', seat: 'south', level: 5 });
  const plies = await play(c, room, st, me, 2);
  assert.equal(plies.length, 2);
  await c.close();
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});
