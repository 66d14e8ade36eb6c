// The computer under load (docs/computer.md, "Server"): for each load of N games against level 6
// at once (10, 50 and 200 by default), whose person answers at once so that their searches never
// stop, the computer's reply time at every level (a few probe games a level, also answering at
// once: the person's move sent -> the computer's move received) and the round trip of a move in a
// few games between two people meanwhile (request sent -> its state back; they wait --think ms
// between moves). Prints p50, p99 and the maximum of each, and the load average before and after.
// A program that prints figures, not a test: nothing here passes or fails.
//
//   node bench/computer-latency.mjs [--server BIN] [--loads 10,50,200] [--seconds 30]
//                                   [--probes 2] [--pairs 3] [--threads T] [--ms 1000]
//                                   [--reply-ms R] [--think 30] [--probe-think 300]
//                                   [--workers W] [--fast-workers F] [--worker WBIN]
//                                   [--worker-nice N]
//
// BIN defaults to build-rel/bin/mancala-server (cmake -B build-rel -DCMAKE_BUILD_TYPE=Release).
// --workers W: the searches on W mancala-worker processes (WBIN, default beside BIN) through a
// Redis of the run's own (tests/redis.sh, a loopback port): the server runs with --search-queue
// and the load starts once it sees every worker alive; its own --computer-threads stay its
// fallback. --fast-workers F: F more that serve the fast lane only (--lanes fast). --worker-nice N:
// the workers' --nice (their CPU priority lowered by N nice steps; unset: the worker's default,
// 10; 0 runs them at the server's priority, as workers did before they lowered it).
// Every connection comes from 127.0.0.1, so the per-address and per-person caps of games against
// the computer are lifted for the run. Uses the `ws` package of tests/ (npm ci there).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// The servers a benchmark starts build no endgame tables (issue 24: a fresh install builds them
// in the background, minutes of one core and ~80 MB): figures are of the server's steady state.
process.env.MANCALA_EGTB_BUILD ??= 'off';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.resolve(here, '../tests/package.json'));
const WebSocket = require('ws');

const arg = (name, def) => {
  const i = process.argv.indexOf('--' + name);
  return i > 0 ? process.argv[i + 1] : def;
};
const BIN = arg('server', path.resolve(here, '../build-rel/bin/mancala-server'));
const LOADS = arg('loads', '10,50,200').split(',').map(Number);
const SECONDS = Number(arg('seconds', 30));
const PROBES = Number(arg('probes', 2));
const PAIRS = Number(arg('pairs', 3));
const MS = Number(arg('ms', 1000));
const THREADS = arg('threads', '0');
const REPLY = arg('reply-ms', null);
const THINK = Number(arg('think', 30));
const PROBE_THINK = Number(arg('probe-think', 300)); // ms a probe game's person waits before moving
const WORKERS = Number(arg('workers', 0));
const FAST_WORKERS = Number(arg('fast-workers', 0));
const WORKER_BIN = arg('worker', path.join(path.dirname(BIN), 'mancala-worker'));
const WORKER_NICE = arg('worker-nice', null);
const REDIS_SH = path.resolve(here, '../tests/redis.sh');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The Redis and the workers of --workers: {url, stop()}.
function startWorkers() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-clw-'));
  const url = execFileSync('sh', [REDIS_SH, 'start', path.join(dir, 'redis'), 'auto'], { encoding: 'utf8' }).trim();
  const children = [];
  for (let i = 0; i < WORKERS + FAST_WORKERS; i++) {
    const lanes = i < WORKERS ? [] : ['--lanes', 'fast'];
    const nice = WORKER_NICE !== null ? ['--nice', WORKER_NICE] : [];
    children.push(spawn(WORKER_BIN, [url, '--name', `w${i}`, ...lanes, ...nice], { stdio: ['ignore', 'ignore', 'inherit'] }));
  }
  return {
    url,
    async stop() {
      for (const c of children) c.kill('SIGTERM');
      await Promise.all(children.map((c) => (c.exitCode !== null ? null : new Promise((r) => c.once('exit', r)))));
      execFileSync('sh', [REDIS_SH, 'stop', path.join(dir, 'redis')]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function start(queue) {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-cl-'));
  const args = ['--port', '0', '--bind', '127.0.0.1', '--data', data, '--sync', 'normal',
    '--rate', '100000', '--burst', '100000', '--max-per-ip', '100000', '--players-per-ip', '1000000',
    '--rooms-per-ip', '10000000', '--public-rooms-per-ip', '10000000',
    '--computer-games-per-player', '1000000', '--computer-games-per-ip', '1000000',
    '--computer-ms', String(MS), '--computer-threads', THREADS];
  if (REPLY) args.push('--computer-reply-ms', REPLY);
  if (queue) args.push('--search-queue', queue.url);
  const child = spawn(BIN, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      log += d;
      const m = log.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
      // With workers: once the server has seen them all.
      if (m && (!queue || log.includes(`search workers: ${WORKERS + FAST_WORKERS} fast, ${WORKERS} deep, ${WORKERS} analysis alive`)))
        resolve({ url: `ws://127.0.0.1:${m[1]}/ws`, child, data, get log() { return log; } });
    });
    const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
    exited.then((e) => reject(new Error('server exited ' + JSON.stringify(e) + '\n' + log)));
    child.exited = exited;
  });
}

class C {
  constructor(ws) {
    this.ws = ws; this.n = 1; this.wait = new Map(); this.on = null;
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString());
      if (m.id !== undefined && this.wait.has(m.id)) { const f = this.wait.get(m.id); this.wait.delete(m.id); f(m); }
      else if (this.on) this.on(m);
    });
  }
  static async open(url, name) {
    const ws = new WebSocket(url, 'mancala.v1');
    await new Promise((r, j) => { ws.once('open', r); ws.once('error', j); });
    const c = new C(ws);
    c.me = await c.req({ type: 'hello', name });
    return c;
  }
  req(o) { const id = this.n++; this.ws.send(JSON.stringify({ ...o, id })); return new Promise((r) => this.wait.set(id, r)); }
}

const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const fmt = (x) => (x === undefined ? '-' : x >= 100 ? x.toFixed(0) : x.toFixed(1));

// A person playing the computer at level, answering at once (South: moves first), new games as
// games end. Records the time from each of its moves to the computer's next move, while on.
async function opponent(url, name, level, rec, think = 0) {
  const c = await C.open(url, name);
  let room = null, sent = null, movedAt = -1;
  // The reply is taken in the message handler itself: the game's first state may come in the
  // same read as the reply, before an awaiting caller would resume.
  const play = () => new Promise((resolve) => {
    const id = c.n++;
    c.wait.set(id, (j) => {
      if (j.type !== 'joined') throw new Error(JSON.stringify(j));
      room = j.room;
      movedAt = -1;
      resolve();
    });
    c.ws.send(JSON.stringify({ type: 'create', game: 'kalah', opponent: 'computer', level, seat: 'south', id }));
  });
  c.on = (m) => {
    if (m.type !== 'state' || m.room !== room || rec.stop) return;
    // The computer's first move after the person's last one: the reply.
    if (sent !== null && m.last && m.last.seat === 'north') {
      if (rec.on) rec.times.push(Number(process.hrtime.bigint() - sent) / 1e6);
      sent = null;
    }
    if (m.status === 'finished') { sent = null; play(); return; }
    // The person's turn (also its extra turn): it moves at once, once a ply.
    if (m.status === 'playing' && m.turn === 'south' && m.ply > movedAt) {
      movedAt = m.ply;
      const move = () => {
        if (rec.stop) return;
        sent = process.hrtime.bigint();
        c.ws.send(JSON.stringify({ type: 'move', room, house: m.legal[Math.floor(Math.random() * m.legal.length)], ply: m.ply }));
      };
      if (think > 0) setTimeout(move, think); else move();
    }
  };
  await play();
  return c;
}

// Two people playing each other: the round trip of each move, while on.
async function pair(url, i, rec) {
  const a = await C.open(url, 'A' + i), b = await C.open(url, 'B' + i);
  (async () => {
    while (!rec.stop) {
      const j = await a.req({ type: 'create', game: 'kalah', seat: 'south', visibility: 'private' });
      const got = new Promise((r) => { b.on = (m) => { if (m.type === 'state' && m.status === 'playing') r(m); }; });
      await b.req({ type: 'join', room: j.room });
      let st = await got;
      b.on = null;
      while (st.status === 'playing' && !rec.stop) {
        const mover = st.turn === 'south' ? a : b;
        await sleep(THINK);
        const t0 = process.hrtime.bigint();
        st = await mover.req({ type: 'move', room: j.room, house: st.legal[Math.floor(Math.random() * st.legal.length)], ply: st.ply });
        if (rec.on) rec.times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (st.type !== 'state') throw new Error(JSON.stringify(st));
      }
    }
  })();
  return [a, b];
}

const load = () => os.loadavg().map((x) => x.toFixed(1)).join(' ');

console.log(`server ${BIN}, --computer-ms ${MS}, --computer-threads ${THREADS}${REPLY ? `, --computer-reply-ms ${REPLY}` : ''}${WORKERS ? `, ${WORKERS} mancala-worker processes (--search-queue)${FAST_WORKERS ? ` and ${FAST_WORKERS} of the fast lane only` : ''}${WORKER_NICE !== null ? ` at --nice ${WORKER_NICE}` : ' at their default --nice (10)'}` : ''}, ${os.cpus().length} CPUs; ${SECONDS} s measured a load, ${PROBES} probe games a level (${PROBE_THINK} ms before each move), ${PAIRS} pairs of people (${THINK} ms between moves)`);
console.log('');
console.log('| games at level 6 | load average before / after | level | replies | p50 ms | p99 ms | max ms |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const n of LOADS) {
  const before = load();
  const queue = WORKERS > 0 ? startWorkers() : null;
  const srv = await start(queue);
  const conns = [];
  const recs = {};
  try {
    for (let level = 1; level <= 6; level++) recs[level] = { times: [], on: false, stop: false };
    const people = { times: [], on: false, stop: false };
    for (let i = 0; i < n; i++) conns.push(await opponent(srv.url, 'L' + i, 6, recs[6]));
    for (let level = 1; level <= 5; level++)
      for (let i = 0; i < PROBES; i++) conns.push(await opponent(srv.url, `P${level}-${i}`, level, recs[level], PROBE_THINK));
    for (let i = 0; i < PAIRS; i++) conns.push(...await pair(srv.url, i, people));
    await sleep(3000); // Every game under way.
    const all = [...Object.values(recs), people];
    for (const r of all) r.on = true;
    await sleep(SECONDS * 1000);
    for (const r of all) { r.on = false; r.stop = true; }
    const after = load();
    const row = (what, a) => `| ${n} | ${before} / ${after} | ${what} | ${a.length} | ${fmt(pct(a, 0.5))} | ${fmt(pct(a, 0.99))} | ${fmt(a.length ? Math.max(...a) : undefined)} |`;
    for (let level = 1; level <= 6; level++) console.log(row(`computer, level ${level}`, recs[level].times));
    console.log(row('people\'s move round trip', people.times));
    if (queue) {
      // What the server's queue did with the jobs (its log: docs/computer.md, "Search workers").
      const fell = (srv.log.match(/: searched in process$/gm) || []).length;
      const counts = [...srv.log.matchAll(/search workers: (\d+ fast, \d+ deep, \d+ analysis) alive/g)].map((m) => m[1]).join('; ');
      console.log(`|   | jobs searched in process after they were sent: ${fell}; workers alive as the server saw them: ${counts} | | | | | |`);
    }
  } finally {
    for (const c of conns) c.ws.close();
    // A server that stopped before this (a crash) says so: the figures above are not to be used.
    if (srv.child.exitCode !== null || srv.child.signalCode !== null)
      console.log(`SERVER EXITED DURING THE RUN: ${srv.child.exitCode} ${srv.child.signalCode}\n${srv.log.slice(-3000)}`);
    srv.child.kill('SIGTERM');
    const end = await srv.child.exited;
    if (end.code !== 0) console.log(`server stopped with ${JSON.stringify(end)}:\n${srv.log.slice(-3000)}`);
    fs.rmSync(srv.data, { recursive: true, force: true });
    if (queue) await queue.stop();
  }
}
