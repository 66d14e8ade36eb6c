// The benchmarks of docs/performance.md, each one command (Node 18+ built-ins only):
//
//   node bench/bench.mjs closed    (a) 100 connections, closed loop: server CPU per move and
//                                      moves/s; --mode pair (two players a room: the peer, ours
//                                      normal and full), --mode local (one player a room: the
//                                      same and the echo server), and the spectators row (one room,
//                                      2 players, 0 and 50 spectators); --mode both (default): all
//   node bench/bench.mjs think     (b) 10,000 players thinking 1-3 s: achieved rate, p50, p99
//   node bench/bench.mjs idle      (c) server RSS per idle connection that said hello (5,000)
//   node bench/bench.mjs sweep     (d) p99 and moves/s against players, ours beside the peer:
//                                      docs/performance-sweep.dat and docs/performance-sweep.svg
//   node bench/bench.mjs profile       instructions per move under callgrind, and where they go
//                                      (--mode pair: Kalah, two players a room; local: Kalah
//                                      and Oware, one; both, the default: all three)
//   node bench/bench.mjs store         (e) storage backends: 100 players two a room, closed loop,
//                                      SQLite --sync normal and full beside PostgreSQL 15 (a
//                                      throwaway one, tests/pg.sh, synchronous_commit on): server
//                                      CPU per move, PostgreSQL's own CPU per move, p99; then
//                                      10,000 players thinking 1-3 s on PostgreSQL: p99
//   node bench/bench.mjs cluster       (f) a cluster (issue 21), PostgreSQL and Redis on loopback:
//                                      one node against the single process on PostgreSQL and
//                                      SQLite (100 players two a room); a forwarded move's extra
//                                      round trip (one room, its joiner on node B); take-over
//                                      after kill -9 with the default lease (--takeovers N,
//                                      default 5); two nodes against one with every process's
//                                      CPU, and on paper N nodes. --mode one|forward|takeover|two
//                                      runs one part (default both: all)
//   node bench/bench.mjs all           a, b, c and d in one run
//
// Options: --seconds S (measured window of a, b and d), --build DIR (default build-bench),
// --peer DIR (the Node.js peer's sources; default bench/peer, a copy of ../shared/peer, or
// $MANCALA_PEER), --mode pair|local|both (of closed), --sweep-think MIN-MAX (default 1000-3000, as in b), --sweep-players 100,500,...,
// --no-peer (skip the peer), --sync normal|full (the server of b, c, d and profile).
//
// Every run builds the Release server, loadgen and echo-server into the build directory first
// (incremental). The peer is copied there and installed once with `npm ci` from its
// package-lock.json (again when its sources change). Each measurement starts a fresh server on a free port of 127.0.0.1 with a fresh data
// directory, `ulimit -n 65536` (as deploy/mancala-server.service) and limits raised for load
// from one address, runs bin/loadgen against it with --server-pid, and stops it. Only one server
// runs at a time. Figures go to stdout as Markdown tables.
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The servers a benchmark starts build no endgame tables (issue 24: a fresh install builds them
// in the background, minutes of one core and ~80 MB): figures are of the server's steady state.
process.env.MANCALA_EGTB_BUILD ??= 'off';

const here = path.dirname(fileURLToPath(import.meta.url));
const top = path.resolve(here, '..');

// ---- Options ----------------------------------------------------------------------------------

const argv = process.argv.slice(2);
const what = argv[0] && !argv[0].startsWith('--') ? argv.shift() : 'all';
function opt(name, def) {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : def;
}
const flag = (name) => argv.includes(name);
const SECONDS = Number(opt('--seconds', 20));
const ROUNDS = Number(opt('--rounds', 3));
const BUILD = path.resolve(top, opt('--build', 'build-bench'));
const SYNC = opt('--sync', 'normal');
const MODE = opt('--mode', 'both');
const SWEEP_THINK = opt('--sweep-think', '1000-3000');
const SWEEP_PLAYERS = opt('--sweep-players', '100,500,1000,2000,5000,10000').split(',').map(Number);
const NOFILE = 65536;
const MAX_CONNECTIONS = 60000;
const WITH_PEER = !flag('--no-peer');
const known = ['closed', 'think', 'idle', 'sweep', 'profile', 'store', 'cluster', 'all'];
if (!known.includes(what) || !(SECONDS > 0) || !(ROUNDS >= 1) || !['normal', 'full'].includes(SYNC) ||
  !(what === 'cluster' ? ['one', 'forward', 'takeover', 'two', 'both'] : ['pair', 'local', 'both']).includes(MODE)) {
  console.error(`usage: node bench/bench.mjs ${known.join('|')} [--seconds S] [--build DIR] [--peer DIR] ` +
    '[--no-peer] [--sync normal|full] [--mode pair|local|both] [--rounds N] [--sweep-think MIN-MAX] ' +
    '[--sweep-players N,N,...] [--takeovers N]; cluster: --mode one|forward|takeover|two|both');
  process.exit(2);
}

const bin = (name) => path.join(BUILD, 'bin', name);
const log = (...a) => console.error('bench:', ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- Build and the peer -----------------------------------------------------------------------

function build() {
  // The packages (gnuplot, valgrind, Node's build tools for the peer): installed when missing, as
  // root; otherwise install-deps.sh says what is missing.
  execFileSync('sh', [path.join(top, 'deploy/install-deps.sh'), 'bench'], { stdio: ['ignore', 'ignore', 'inherit'] });
  log(`building the Release server, loadgen and echo-server in ${BUILD}`);
  execFileSync('cmake', ['-S', top, '-B', BUILD, '-DCMAKE_BUILD_TYPE=Release', '-DMANCALA_TESTS=OFF'],
    { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('cmake', ['--build', BUILD, '-j', '2', '--target', 'mancala-server', 'loadgen', 'echo-server'],
    { stdio: ['ignore', 'ignore', 'inherit'] });
}

// The peer's sources: bench/peer, the repository's copy of ../shared/peer (so that a fresh
// checkout has it), unless --peer DIR or $MANCALA_PEER names another.
function peerSource() {
  const given = opt('--peer', process.env.MANCALA_PEER);
  const dir = given || path.join(here, 'peer');
  if (!fs.existsSync(path.join(dir, 'peer-server.mjs'))) {
    throw new Error(`the Node.js peer is not in ${dir} (use --peer DIR or --no-peer)`);
  }
  return path.resolve(dir);
}

// Copies the peer into the build directory and installs its packages from the npm registry
// (`npm ci` when it has a package-lock.json: the versions it pins), unless that copy is of the
// same sources already. Returns the path of peer-server.mjs.
function preparePeer() {
  const src = peerSource();
  const files = ['package.json', 'peer-server.mjs', 'package-lock.json'].filter((f) => fs.existsSync(path.join(src, f)));
  const hash = crypto.createHash('sha256');
  for (const f of files) hash.update(f).update(fs.readFileSync(path.join(src, f)));
  const digest = hash.digest('hex');
  const dst = path.join(BUILD, 'peer');
  const stamp = path.join(dst, '.installed');
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== digest) {
    fs.rmSync(dst, { recursive: true, force: true });
    fs.mkdirSync(dst, { recursive: true });
    for (const f of files) fs.copyFileSync(path.join(src, f), path.join(dst, f));
    const locked = files.includes('package-lock.json');
    log(`installing the peer from ${src} into ${dst} (npm ${locked ? 'ci' : 'install'})`);
    execFileSync('npm', [locked ? 'ci' : 'install', '--no-audit', '--no-fund', '--loglevel=error'],
      { cwd: dst, stdio: ['ignore', 'ignore', 'inherit'] });
    fs.writeFileSync(stamp, digest);
  }
  return path.join(dst, 'peer-server.mjs');
}

// ---- Processes --------------------------------------------------------------------------------

// Spawns cmd with the open file limit raised (to the hard limit when NOFILE is not allowed).
function spawnLimited(cmd, args, opts = {}) {
  const script = `ulimit -n ${NOFILE} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$0" "$@"`;
  return spawn('sh', ['-c', script, cmd, ...args], opts);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// Starts a server process and resolves once its log matches re (group 1: the port, unless
// port is given). Resolves with { port, pid, stop() }.
function startProcess(label, cmd, args, re, { port: fixedPort, data, timeoutMs = 60000 } = {}) {
  const child = spawnLimited(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${label}: not listening after ${timeoutMs} ms:\n${text}`));
    }, timeoutMs);
    child.stderr.on('data', (d) => {
      text += d;
      const m = text.match(re);
      if (!m || !timer) return;
      clearTimeout(timer);
      resolve({
        label,
        port: fixedPort || Number(m[1]),
        pid: child.pid,
        get log() { return text; },
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          const kill = setTimeout(() => child.kill('SIGKILL'), 30000);
          const r = await exited;
          clearTimeout(kill);
          if (data) fs.rmSync(data, { recursive: true, force: true });
          return r;
        },
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with ${code}:\n${text}`));
    });
  });
}

const tmpData = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

// Our server, Release build, --sync sync, the per-address limits raised for thousands of
// connections, players and rooms from one address (and the rate limit out of the way of a closed
// loop).
function startOurs(sync, { wrap = [], timeoutMs, store, extra = [], label } = {}) {
  const data = tmpData('mancala-bench-');
  const args = ['--port', '0', '--bind', '127.0.0.1', '--data', data, '--sync', sync, ...(store ? ['--store', store()] : []),
    '--rate', '1000000', '--burst', '1000000', '--max-per-ip', '1000000',
    '--players-per-ip', '1000000', '--rooms-per-ip', '10000000', '--public-rooms-per-ip', '10000000',
    '--watchers-per-ip', '1000000',
    '--max-connections', String(MAX_CONNECTIONS), '--rooms-per-player', '10', ...extra];
  const [cmd, ...rest] = [...wrap, bin('mancala-server'), ...args];
  return startProcess(label || (store ? 'mancala-server --store postgresql' : `mancala-server --sync ${sync}`), cmd, rest,
    /listening on http:\/\/127\.0\.0\.1:(\d+)\//, { data, timeoutMs });
}

async function startPeer(script) {
  const data = tmpData('mancala-peer-');
  const port = await freePort();
  return startProcess('peer (Node.js)', 'node', [script, '--port', String(port), '--data', data],
    /peer listening on (\d+)/, { port, data });
}

function startEcho() {
  return startProcess('echo-server', bin('echo-server'), ['--port', '0', '--max-connections', String(MAX_CONNECTIONS)],
    /listening on http:\/\/127\.0\.0\.1:(\d+)\//);
}

// Runs bin/loadgen against server with args; resolves with its JSON report.
// A server may name more processes (server.measured(): { group: [pid, ...] }, e.g. the other
// nodes of a cluster, Redis, PostgreSQL) whose CPU loadgen reads over its window (--cpu-pid): the
// report's cpu_by gives each group's CPU in % of a core.
function loadgen(server, args) {
  const groups = server.measured ? Object.entries(server.measured()) : [];
  const pids = groups.flatMap(([, ps]) => ps);
  const all = ['--port', String(server.port), '--server-pid', String(server.pid), '--json', ...args,
    ...pids.flatMap((p) => ['--cpu-pid', String(p)])];
  log(`loadgen ${all.join(' ')}  (${server.label})`);
  const child = spawnLimited(bin('loadgen'), all, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      // 3: the report is out but lws did not close the connections in time (see loadgen.c).
      if (code !== 0 && code !== 3) return reject(new Error(`loadgen exited with ${code}`));
      if (code === 3) notes.push(`loadgen against ${server.label} took over 30 s to close its connections`);
      const r = JSON.parse(out);
      r.label = server.label;
      const cpu = new Map(r.cpu.map((c) => [c.pid, Math.max(0, c.cpu_pct)]));
      r.cpu_by = Object.fromEntries(groups.map(([g, ps]) => [g, ps.reduce((t, p) => t + (cpu.get(p) ?? 0), 0)]));
      resolve(r);
    });
  });
}

// Things worth knowing that are not figures (a server that did not stop in time...), printed
// after the figure they belong to.
const notes = [];
function printNotes() {
  for (const n of notes.splice(0)) console.log(`Note: ${n}.\n`);
}

// Starts a server with start(), runs fn(server), stops it; returns what fn returned.
async function withServer(start, fn) {
  const server = await start();
  try {
    await sleep(500);
    return await fn(server);
  } finally {
    const r = await server.stop();
    if (r.signal === 'SIGKILL') notes.push(`${server.label} did not exit within 30 s of SIGTERM and was killed`);
    else if (r.code !== 0 && r.signal !== 'SIGTERM') notes.push(`${server.label} exited with ${r.code ?? r.signal}`);
  }
}

// ---- Output -----------------------------------------------------------------------------------

const f0 = (v) => (v === null || v === undefined || Number.isNaN(v) ? '-' : Math.round(v).toLocaleString('en-US'));
const f1 = (v) => (v === null || v === undefined ? '-' : v.toFixed(1));
const f2 = (v) => (v === null || v === undefined ? '-' : v.toFixed(2));

function errorsOf(r) {
  const e = Object.entries(r.errors).map(([k, v]) => `${k} ${v}`).join(', ');
  return (e || '0') + (r.bad_frames ? `, ${r.bad_frames} bad frames` : '');
}

function table(head, rows) {
  console.log(`| ${head.join(' | ')} |`);
  console.log(`| ${head.map((h, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  console.log('');
}

function machine() {
  const cpus = os.cpus();
  let commit = '?';
  try {
    commit = execFileSync('git', ['-C', top, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch { /* not a git tree */ }
  console.log(`Machine: ${cpus.length} x ${cpus[0]?.model ?? '?'}, Linux ${os.release()}, node ${process.version}; ` +
    `load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; commit ${commit}; ${new Date().toISOString()}\n`);
}

// ---- The figures ------------------------------------------------------------------------------

// (a) 100 connections, closed loop. The headline is the server's CPU time per move (loadgen's
// --server-pid reads it from /proc over the measured window): on a machine whose cores the load
// generator shares, moves/s depend on how the kernel splits the cores, CPU per move much less.
// The machine may be shared: the servers of a group take turns in ROUNDS rounds (in a rotated
// order), each measured SECONDS / ROUNDS seconds a round, so that a change of load on the machine
// falls on all of them; the ratios are given per round as well.
const sum = (rs, f) => rs.reduce((a, r) => a + f(r), 0);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const cpuSeconds = (r) => (r.server ? (r.server.cpu_pct / 100) * r.window_s : 0);
// Server CPU per move in µs over the runs rs (their CPU time over their moves).
const cpuPerMove = (rs) => {
  const moves = sum(rs, (r) => r.moves);
  return moves > 0 ? (1e6 * sum(rs, cpuSeconds)) / moves : null;
};

// Runs each of entries ([key, start, loadgen args]) once a round, ROUNDS rounds, in a rotated
// order; returns key -> aggregate of its runs.
async function rotate(entries) {
  const runs = new Map(entries.map(([k]) => [k, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < entries.length; i++) {
      const [key, start, args] = entries[(i + round) % entries.length];
      runs.get(key).push(await withServer(start, (s) => loadgen(s, typeof args === 'function' ? args(s) : args)));
    }
  }
  return new Map([...runs].map(([key, rs]) => [key, {
    label: rs[0].label, rs,
    rate: sum(rs, (r) => r.moves) / sum(rs, (r) => r.window_s),
    cpm: cpuPerMove(rs),
    p50: median(rs.map((r) => r.rtt_ms.p50)), p99: median(rs.map((r) => r.rtt_ms.p99)),
    cpu: sum(rs, (r) => r.server?.cpu_pct ?? 0) / rs.length, own: sum(rs, (r) => r.loadgen.cpu_pct) / rs.length,
    errors: rs.map(errorsOf).filter((e) => e !== '0').join('; ') || '0',
  }]));
}

function closedTable(agg) {
  table(['server', 'CPU per move, µs', 'per round', 'moves/s', 'per round', 'RTT p50 ms', 'RTT p99 ms',
    'server CPU', 'loadgen CPU', 'errors'],
  [...agg.values()].map((a) => [a.label, f1(a.cpm), a.rs.map((r) => f1(cpuPerMove([r]))).join(', '),
    f0(a.rate), a.rs.map((r) => f0(r.moves_per_s)).join(', '), f2(a.p50), f2(a.p99), `${f0(a.cpu)}%`,
    `${f0(a.own)}%`, a.errors]));
}

// A ratio of x to y over all rounds and per round: of the CPU per move (cpu) or of moves/s.
function ratioRow(agg, name, x, y, { cpu, pct, target = '' }) {
  const fmt = (v) => (v === null || !Number.isFinite(v) ? '-' : pct ? `${f0(100 * v)}%` : f2(v));
  const of = (a, r) => (cpu ? cpuPerMove(r ? [r] : a.rs) : r ? r.moves_per_s : a.rate);
  const ax = agg.get(x), ay = agg.get(y);
  const per = ax.rs.map((r, i) => of(ax, r) / of(ay, ay.rs[i]));
  return [name, fmt(of(ax) / of(ay)), per.map(fmt).join(', '), target];
}

async function closed(peerScript) {
  const secs = Math.max(5, Math.round(SECONDS / ROUNDS));
  const base = ['--players', '100', '--warmup', '3', '--duration', String(secs)];
  const out = {};
  const ours = (sync) => () => startOurs(sync);
  const headline = [];
  if (MODE === 'pair' || MODE === 'both') {
    const args = [...base, '--mode', 'pair'];
    const entries = [];
    if (peerScript) entries.push(['peer', () => startPeer(peerScript), args]);
    entries.push(['normal', ours('normal'), args], ['full', ours('full'), args]);
    const agg = out.pair = await rotate(entries);
    console.log(`### (a) 100 players, two a room (--mode pair), closed loop (private Kalah 6x4 rooms; ${ROUNDS} rounds of ${secs} s per server)\n`);
    closedTable(agg);
    const rows = [];
    if (peerScript) {
      rows.push(ratioRow(agg, 'peer / ours (normal), server CPU per move', 'peer', 'normal', { cpu: true, target: 'at least 2.8' }));
      rows.push(ratioRow(agg, 'peer / ours (full), server CPU per move', 'peer', 'full', { cpu: true }));
      rows.push(ratioRow(agg, 'ours (normal) / peer, moves/s', 'normal', 'peer', {}));
      const p = agg.get('peer'), n = agg.get('normal');
      headline.push(`pair mode: peer / ours (normal) server CPU per move **${f2(p.cpm / n.cpm)}** ` +
        `(${f1(n.cpm)} µs against ${f1(p.cpm)} µs; moves/s ${f0(n.rate)} against ${f0(p.rate)})`);
    }
    rows.push(ratioRow(agg, 'ours (full) / ours (normal), server CPU per move', 'full', 'normal', { cpu: true }));
    table(['ratio', 'measured', 'per round', 'target'], rows);
    printNotes();
  }
  if (MODE === 'local' || MODE === 'both') {
    const args = [...base, '--mode', 'local'];
    const entries = [];
    if (peerScript) entries.push(['peer', () => startPeer(peerScript), args]);
    entries.push(['normal', ours('normal'), args], ['full', ours('full'), args], ['echo', startEcho, args]);
    const agg = out.local = await rotate(entries);
    console.log(`### (a) 100 players, one a room (--mode local), closed loop (local Kalah 6x4 rooms; ${ROUNDS} rounds of ${secs} s per server)\n`);
    closedTable(agg);
    const rows = [];
    if (peerScript) {
      rows.push(ratioRow(agg, 'peer / ours (normal), server CPU per move', 'peer', 'normal', { cpu: true }));
      rows.push(ratioRow(agg, 'ours (normal) / peer, moves/s', 'normal', 'peer', {}));
    }
    rows.push(ratioRow(agg, 'echo / ours (normal), server CPU per move', 'echo', 'normal', { cpu: true, pct: true, target: 'at least 60%' }));
    rows.push(ratioRow(agg, 'ours (normal) / echo, moves/s', 'normal', 'echo', { pct: true }));
    rows.push(ratioRow(agg, 'echo / ours (full), server CPU per move', 'echo', 'full', { cpu: true, pct: true }));
    table(['ratio', 'measured', 'per round', 'target'], rows);
    const e = agg.get('echo'), n = agg.get('normal');
    headline.push(`local mode: echo / ours (normal) server CPU per move **${f0((100 * e.cpm) / n.cpm)}%** ` +
      `(${f1(n.cpm)} µs against ${f1(e.cpm)} µs; moves/s ${f0(n.rate)} against ${f0(e.rate)})`);
    printNotes();
  }
  if (MODE === 'pair' || MODE === 'both') {
    // One room, its 2 players in a closed loop, with 0 and with 50 spectators: what each
    // further recipient of a state costs the server.
    const n = 50;
    const args = (k) => ['--mode', 'pair', '--players', '2', '--spectators', String(k), '--warmup', '3',
      '--duration', String(secs)];
    const agg = out.spectators = await rotate([['none', ours('normal'), args(0)], ['many', ours('normal'), args(n)]]);
    console.log(`### (a) Spectators: one room, 2 players in a closed loop, 0 and ${n} spectators (ours, --sync normal)\n`);
    const none = agg.get('none'), many = agg.get('many');
    const per = (x, y) => (cpuPerMove(x) - cpuPerMove(y)) / n;
    table(['spectators', 'CPU per move, µs', 'per round', 'moves/s', 'spectator lag p50 / p99 ms', 'server CPU', 'errors'],
      [[0, none], [n, many]].map(([k, a]) => [k, f1(a.cpm), a.rs.map((r) => f1(cpuPerMove([r]))).join(', '),
        f0(a.rate), k ? `${f2(median(a.rs.map((r) => r.spectator_lag_ms.p50)))} / ${f2(median(a.rs.map((r) => r.spectator_lag_ms.p99)))}` : '-',
        `${f0(a.cpu)}%`, a.errors]));
    const cost = per(many.rs, none.rs);
    table(['figure', 'measured', 'per round', 'target'],
      [['server CPU per move per extra spectator, µs', f2(cost),
        many.rs.map((r, i) => f2(per([r], [none.rs[i]]))).join(', '), 'at most 2']]);
    headline.push(`spectators: **${f2(cost)} µs** of server CPU per move per extra spectator`);
    printNotes();
  }
  if (headline.length > 0) console.log(`Headline: ${headline.join('; ')}.\n`);
  return out;
}

// (b) 10,000 players thinking 1-3 s.
async function think(peerScript) {
  const args = ['--players', '10000', '--think', '1000-3000', '--ramp', '20', '--warmup', '10',
    '--ready-timeout', '120', '--duration', String(Math.max(SECONDS, 30))];
  const rows = [];
  rows.push(await withServer(() => startOurs(SYNC), (s) => loadgen(s, args)));
  if (peerScript) rows.push(await withServer(() => startPeer(peerScript), (s) => loadgen(s, args)));
  console.log(`### (b) 10,000 players thinking 1-3 s between moves (about 5,000 moves/s offered)\n`);
  table(['server', 'offered/s', 'moves/s', 'of offered', 'RTT p50 ms', 'RTT p99 ms', 'RTT max ms',
    'server CPU', 'players in a room', 'setup s', 'errors'],
  rows.map((r) => [r.label, f0(r.offered_per_s), f0(r.moves_per_s), `${f1(r.achieved_pct)}%`,
    f2(r.rtt_ms.p50), f2(r.rtt_ms.p99), f2(r.rtt_ms.max), `${f0(r.server.cpu_pct)}%`,
    f0(r.connections.players_in_room), f0(r.ramp_s + r.warmup_s + r.ready_wait_s), errorsOf(r)]));
  console.log('Target: at least 95% of the offered rate at p99 <= 10 ms.\n');
  printNotes();
  return rows;
}

// (c) RSS per idle connection that said hello.
async function idle(peerScript) {
  const n = 5000;
  // The window (30 s) opens 35 s after the ramp: it holds one keepalive cycle of every connection
  // (the server pings each one every 30 s), so the CPU they cost is measured with the memory.
  const args = ['--players', '0', '--idle', String(n), '--ramp', '5', '--warmup', '35', '--ready-timeout', '60',
    '--duration', '30'];
  const rows = [];
  rows.push(await withServer(() => startOurs(SYNC), (s) => loadgen(s, args)));
  if (peerScript) rows.push(await withServer(() => startPeer(peerScript), (s) => loadgen(s, args)));
  console.log(`### (c) Server memory per idle connection (${n.toLocaleString('en-US')} connections that said hello)\n`);
  table(['server', 'RSS before, MiB', 'RSS with them, MiB', 'KiB per connection', 'welcomed', 'server CPU while they idle'],
    rows.map((r) => [r.label, f1(r.server.rss_kib_initial / 1024), f1(r.server.rss_kib_end / 1024),
      f1((r.server.rss_kib_end - r.server.rss_kib_initial) / n), f0(r.connections.idle_welcomed), `${f1(r.server.cpu_pct)}%`]));
  console.log('Target: at most 10 KiB per connection. The CPU is measured over 30 s, a whole keepalive cycle.\n');
  printNotes();
  return rows;
}

// (d) The sweep: players against p99 and moves/s, written as data and plotted.
async function sweep(peerScript) {
  const results = [];
  for (const players of SWEEP_PLAYERS) {
    const ramp = Math.max(1, Math.ceil(players / 500));
    const args = ['--players', String(players), '--think', SWEEP_THINK, '--ramp', String(ramp),
      '--warmup', '5', '--ready-timeout', '120', '--duration', String(SECONDS)];
    const ours = await withServer(() => startOurs(SYNC), (s) => loadgen(s, args));
    const peer = peerScript ? await withServer(() => startPeer(peerScript), (s) => loadgen(s, args)) : null;
    results.push({ players, ours, peer });
  }
  console.log(`### (d) Players thinking ${SWEEP_THINK} ms: moves/s and round trip against the number of players\n`);
  table(['players', 'offered/s', 'ours moves/s', 'ours p50 ms', 'ours p99 ms', 'peer moves/s', 'peer p50 ms', 'peer p99 ms'],
    results.map(({ players, ours, peer }) => [f0(players), f0(ours.offered_per_s), f0(ours.moves_per_s),
      f2(ours.rtt_ms.p50), f2(ours.rtt_ms.p99), f0(peer?.moves_per_s), f2(peer?.rtt_ms.p50), f2(peer?.rtt_ms.p99)]));
  const dat = path.join(top, 'docs', 'performance-sweep.dat');
  const lines = [
    `# bench/bench.mjs sweep: local Kalah 6x4 rooms, think ${SWEEP_THINK} ms, ${SECONDS} s measured per point`,
    `# ${os.cpus().length} x ${os.cpus()[0]?.model ?? '?'}; ours: mancala-server --sync ${SYNC}; peer: ../shared/peer`,
    '# players offered_per_s ours_moves_per_s ours_p50_ms ours_p99_ms peer_moves_per_s peer_p50_ms peer_p99_ms',
    ...results.map(({ players, ours, peer }) => [players, ours.offered_per_s.toFixed(1), ours.moves_per_s.toFixed(1),
      ours.rtt_ms.p50.toFixed(3), ours.rtt_ms.p99.toFixed(3), peer ? peer.moves_per_s.toFixed(1) : 'NaN',
      peer ? peer.rtt_ms.p50.toFixed(3) : 'NaN', peer ? peer.rtt_ms.p99.toFixed(3) : 'NaN'].join(' ')),
  ];
  fs.writeFileSync(dat, lines.join('\n') + '\n');
  const svg = path.join(top, 'docs', 'performance-sweep.svg');
  execFileSync('gnuplot', ['-e', `datafile='${dat}'; outfile='${svg}'`, path.join(here, 'sweep.gp')],
    { stdio: ['ignore', 'ignore', 'inherit'] });
  console.log(`Data: ${path.relative(top, dat)}; plot: ${path.relative(top, svg)}\n`);
  printNotes();
  return results;
}

// ---- The services: PostgreSQL and Redis ------------------------------------------------------

const HZ = 100; // USER_HZ on Linux
// CPU ticks (user + system) of the processes pids, from /proc (a process gone counts 0).
const cpuTicks = (pids) => pids.reduce((t, p) => {
  try {
    const f = fs.readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
    return t + Number(f[11]) + Number(f[12]);
  } catch { return t; }
}, 0);
// The nice value of process pid (field 19 of /proc/PID/stat).
const niceOf = (pid) => {
  try { return Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[16]); } catch { return null; }
};

// The scheduler's account of process pid's main thread (/proc/PID/schedstat): ns on a CPU, ns
// waiting on a run queue for one, and timeslices (for a loop that sleeps in epoll: wake-ups).
const schedstat = (pid) => {
  try { return fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number); } catch { return [0, 0, 0]; }
};

// A throwaway PostgreSQL 15 (tests/pg.sh) in the build directory, with its defaults
// (synchronous_commit on, fsync on). fresh() makes a new database in it and returns its URL;
// pids() the postmaster and its children (the backends of the servers connected now).
function startPostgres() {
  const dir = path.join(BUILD, 'postgres');
  const pgsh = path.join(top, 'tests', 'pg.sh');
  const url = execFileSync('sh', [pgsh, 'start', dir, 'auto'], { encoding: 'utf8' }).trim();
  const port = url.match(/:(\d+)\//)[1];
  let n = 0;
  const pids = () => {
    const master = Number(fs.readFileSync(path.join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const kids = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
      try { return Number(fs.readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === master; } catch { return false; }
    });
    return [master, ...kids.map(Number)];
  };
  return {
    fresh() {
      const db = `bench_${process.pid}_${n++}`;
      execFileSync('/usr/lib/postgresql/15/bin/psql', ['-h', '127.0.0.1', '-p', port, '-U', 'postgres', '-qtA',
        '-c', `CREATE DATABASE ${db} OWNER mancala`, 'postgres']);
      return `postgresql://mancala@127.0.0.1:${port}/${db}`;
    },
    pids,
    ticks: () => cpuTicks(pids()),
    stop: () => execFileSync('sh', [pgsh, 'stop', dir]),
  };
}

// (e) The storage backends. A throwaway PostgreSQL 15 (startPostgres()); every run a fresh
// database in it. Besides the server's CPU per move, PostgreSQL's own: the CPU time of all its
// processes over the run (from /proc), divided by the moves.
async function stores() {
  const pg = startPostgres();
  const { fresh, ticks } = pg;
  try {
    const secs = Math.max(5, Math.round(SECONDS / ROUNDS));
    const args = ['--players', '100', '--warmup', '3', '--duration', String(secs), '--mode', 'pair'];
    const pgRuns = [];
    const pgStart = () => startOurs('full', { store: fresh });
    const entries = [['normal', () => startOurs('normal'), args], ['full', () => startOurs('full'), args],
      ['postgresql', pgStart, args]];
    // PostgreSQL's CPU over each of its runs: sampled around loadgen.
    const runs = new Map(entries.map(([k]) => [k, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < entries.length; i++) {
        const [key, start, a] = entries[(i + round) % entries.length];
        runs.get(key).push(await withServer(start, async (srv) => {
          const t0 = ticks();
          const r = await loadgen(srv, a);
          if (key === 'postgresql') pgRuns.push({ cpu_s: (ticks() - t0) / HZ, moves: r.moves, total_s: r.window_s });
          return r;
        }));
      }
    }
    const agg = new Map([...runs].map(([key, rs]) => [key, {
      label: rs[0].label, rs, rate: sum(rs, (r) => r.moves) / sum(rs, (r) => r.window_s), cpm: cpuPerMove(rs),
      p50: median(rs.map((r) => r.rtt_ms.p50)), p99: median(rs.map((r) => r.rtt_ms.p99)),
      cpu: sum(rs, (r) => r.server?.cpu_pct ?? 0) / rs.length, own: sum(rs, (r) => r.loadgen.cpu_pct) / rs.length,
      errors: rs.map(errorsOf).filter((e) => e !== '0').join('; ') || '0',
    }]));
    console.log(`### (e) Storage: 100 players, two a room, closed loop; SQLite beside PostgreSQL 15 (${ROUNDS} rounds of ${secs} s per server)\n`);
    closedTable(agg);
    // PostgreSQL's processes ran over more than loadgen's window (warm-up, the end): their CPU is
    // divided by all the moves of the run, an upper bound of its cost per move.
    const pgCpu = sum(pgRuns, (r) => r.cpu_s);
    const pgMoves = sum(agg.get('postgresql').rs, (r) => r.moves);
    console.log(`PostgreSQL's own processes: ${f1((1e6 * pgCpu) / pgMoves)} µs of CPU per move measured (over each whole run, warm-up included).\n`);
    table(['ratio', 'measured', 'per round', 'target'], [
      ratioRow(agg, 'ours on PostgreSQL / ours on SQLite full, server CPU per move', 'postgresql', 'full', { cpu: true, target: 'at most 1.5' }),
      ratioRow(agg, 'ours on PostgreSQL / ours on SQLite normal, server CPU per move', 'postgresql', 'normal', { cpu: true }),
      ratioRow(agg, 'ours on SQLite full / normal, server CPU per move', 'full', 'normal', { cpu: true }),
    ]);
    printNotes();
    const targs = ['--players', '10000', '--think', '1000-3000', '--ramp', '20', '--warmup', '10',
      '--ready-timeout', '120', '--duration', String(Math.max(SECONDS, 30))];
    const r = await withServer(pgStart, (srv) => loadgen(srv, targs));
    console.log('### (e) 10,000 players thinking 1-3 s between moves, on PostgreSQL\n');
    table(['server', 'offered/s', 'moves/s', 'of offered', 'RTT p50 ms', 'RTT p99 ms', 'RTT max ms', 'server CPU', 'errors'],
      [[r.label, f0(r.offered_per_s), f0(r.moves_per_s), `${f1(r.achieved_pct)}%`, f2(r.rtt_ms.p50), f2(r.rtt_ms.p99),
        f2(r.rtt_ms.max), `${f0(r.server.cpu_pct)}%`, errorsOf(r)]]);
    printNotes();
  } finally {
    pg.stop();
  }
}

// ---- The cluster (issue 21) -------------------------------------------------------------------

// A throwaway Redis 7 (tests/redis.sh) in the build directory, without persistence. stats(): its
// commands processed so far, by kind ({ total, byCmd: { publish: { calls, usec } ... } }).
function startRedis() {
  const dir = path.join(BUILD, 'redis');
  const redissh = path.join(top, 'tests', 'redis.sh');
  const url = execFileSync('sh', [redissh, 'start', dir, 'auto'], { encoding: 'utf8' }).trim();
  const port = url.match(/:(\d+)$/)[1];
  const cli = (...a) => execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', port, ...a], { encoding: 'utf8' });
  return {
    url, port,
    pid: () => Number(fs.readFileSync(path.join(dir, 'pid'), 'utf8')),
    flush: () => cli('FLUSHALL'),
    stats() {
      const text = cli('INFO', 'all');
      const byCmd = {};
      for (const m of text.matchAll(/^cmdstat_(\w+):calls=(\d+),usec=(\d+)/gm)) byCmd[m[1]] = { calls: Number(m[2]), usec: Number(m[3]) };
      return { total: Number(text.match(/^total_commands_processed:(\d+)/m)[1]), byCmd };
    },
    // redis-benchmark's round trip of one command from one connection, one at a time (ms).
    latency(cmd) {
      const out = execFileSync('redis-benchmark', ['-h', '127.0.0.1', '-p', port, '-c', '1', '-n', '20000', '--csv', ...cmd],
        { encoding: 'utf8' });
      const row = out.trim().split('\n').pop().split(',').map((x) => x.replace(/"/g, ''));
      return { p50: Number(row[4]), p99: Number(row[6]) };
    },
    stop: () => execFileSync('sh', [redissh, 'stop', dir]),
  };
}

// A cluster of n nodes (mancala-server --store ... --cluster ..., --sync full as the single
// process on PostgreSQL) sharing a fresh database of svc.pg and svc.redis (emptied first); lease:
// --cluster-lease-ms (undefined: the default, 10 s). Node A (the first) is loadgen's server;
// measured() names the other nodes, Redis and PostgreSQL's processes for loadgen's window.
async function startCluster(n, svc, { lease } = {}) {
  svc.redis.flush();
  const db = svc.pg.fresh();
  const extra = ['--cluster', svc.redis.url, ...(lease ? ['--cluster-lease-ms', String(lease)] : [])];
  const nodes = [];
  try {
    for (let i = 0; i < n; i++) {
      nodes.push(await startOurs('full', { store: () => db, extra, label: `node ${'ABCDEFGH'[i]}` }));
    }
  } catch (e) {
    for (const x of nodes) await x.stop();
    throw e;
  }
  return {
    label: `cluster of ${n} node${n > 1 ? 's' : ''}`, port: nodes[0].port, pid: nodes[0].pid, nodes,
    measured: () => ({ nodes: nodes.slice(1).map((x) => x.pid), redis: [svc.redis.pid()], postgresql: svc.pg.pids() }),
    async stop() {
      let worst = null;
      for (const x of nodes) {
        const r = await x.stop();
        if (worst === null || (r.code !== 0 && r.signal !== 'SIGTERM')) worst = r;
      }
      return worst;
    },
  };
}

// The figures of a cluster: (1) one node against the single process on PostgreSQL and on
// SQLite; (2) the round trip of a forwarded move; (3) take-over after a kill -9 with the default
// lease; (4) two nodes against one, with every process's CPU. PostgreSQL and Redis run on this
// machine beside the nodes and loadgen, at the same nice value (inherited from bench.mjs).
async function cluster() {
  const svc = { pg: startPostgres(), redis: startRedis() };
  const secs = Math.max(5, Math.round(SECONDS / ROUNDS));
  const nice = () => `nice values: bench.mjs ${niceOf(process.pid)}, Redis ${niceOf(svc.redis.pid())}, PostgreSQL ${niceOf(svc.pg.pids()[0])}`;
  const perMove = (pct, r) => (r.moves > 0 ? (1e4 * pct * r.window_s) / r.moves : null); // µs per move from % of a core
  const groupPerMove = (rs, g) => sum(rs, (r) => (g === 'server' ? cpuSeconds(r) : (r.cpu_by[g] / 100) * r.window_s)) * 1e6 / sum(rs, (r) => r.moves);
  try {
    console.log(`Services: PostgreSQL 15 (tests/pg.sh, synchronous_commit on) and Redis ${execFileSync('redis-server', ['--version'], { encoding: 'utf8' }).match(/v=(\S+)/)[1]} (tests/redis.sh) on loopback; ${nice()}.\n`);
    const pair = ['--players', '100', '--warmup', '3', '--duration', String(secs), '--mode', 'pair'];
    if (MODE === 'both' || MODE === 'one') await clusterOne(svc, secs, pair, groupPerMove);
    if (MODE === 'both' || MODE === 'forward') await clusterForward(svc, secs);
    if (MODE === 'both' || MODE === 'takeover') await clusterTakeover(svc);
    if (MODE === 'both' || MODE === 'two') await clusterTwo(svc, secs, pair, groupPerMove, perMove);
  } finally {
    svc.pg.stop();
    svc.redis.stop();
  }
}

// (1) A cluster of one node against the single process, 100 players two a room.
async function clusterOne(svc, secs, args, groupPerMove) {
  const single = () => {
    const p = startOurs('full', { store: svc.pg.fresh, label: 'single process, PostgreSQL' });
    return p.then((s) => Object.assign(s, { measured: () => ({ redis: [], postgresql: svc.pg.pids() }) }));
  };
  const agg = await rotate([
    ['sqlite-normal', () => startOurs('normal', { label: 'single process, SQLite --sync normal' }), args],
    ['sqlite-full', () => startOurs('full', { label: 'single process, SQLite --sync full' }), args],
    ['postgresql', single, args],
    ['cluster', () => startCluster(1, svc), args],
  ]);
  console.log(`### Cluster (1): one node against the single process, 100 players two a room, closed loop (${ROUNDS} rounds of ${secs} s per server, rotated)\n`);
  closedTable(agg);
  table(['server', 'PostgreSQL CPU per move, µs', 'Redis CPU per move, µs'],
    ['postgresql', 'cluster'].map((k) => [agg.get(k).label, f1(groupPerMove(agg.get(k).rs, 'postgresql')),
      k === 'cluster' ? f1(groupPerMove(agg.get(k).rs, 'redis')) : '-']));
  table(['ratio', 'measured', 'per round', 'target'], [
    ratioRow(agg, 'cluster of 1 node / single process on PostgreSQL, server CPU per move', 'cluster', 'postgresql', { cpu: true }),
    ratioRow(agg, 'cluster of 1 node / single process on SQLite full, server CPU per move', 'cluster', 'sqlite-full', { cpu: true }),
    ratioRow(agg, 'cluster of 1 node / single process on SQLite normal, server CPU per move', 'cluster', 'sqlite-normal', { cpu: true }),
  ]);
  printNotes();
}

// (2) A forwarded move: one room, its two players in a closed loop (one move in flight: no
// queueing), on a cluster of two nodes. Direct: both players on node A, which runs the room.
// Forwarded: the joiner on node B (loadgen --port-b): its moves go B -> Redis -> A, its states
// A -> Redis -> B. The joiner's round trip in both, beside Redis's own round trip.
async function clusterForward(svc, secs) {
  const args = (cross) => (s) => ['--players', '2', '--mode', 'pair', '--warmup', '2', '--duration', String(secs),
    ...(cross ? ['--port-b', String(s.nodes[1].port)] : [])];
  // The scheduler's account of the nodes and Redis over each run: how often each woke up per
  // move, and how long each wake-up waited for a CPU (the machine's share of the round trip).
  const sched = new Map();
  const two = (key) => async () => {
    const c = await startCluster(2, svc);
    const pids = { 'node A': c.nodes[0].pid, 'node B': c.nodes[1].pid, Redis: svc.redis.pid() };
    const s0 = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, schedstat(p)]));
    const stop = c.stop.bind(c);
    c.stop = async () => {
      const d = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, schedstat(p).map((v, i) => v - s0[k][i])]));
      sched.set(key, [...(sched.get(key) ?? []), d]);
      return stop();
    };
    return c;
  };
  const agg = await rotate([['direct', two('direct'), args(false)], ['forwarded', two('forwarded'), args(true)]]);
  const ping = svc.redis.latency(['-t', 'ping']);
  const pub = svc.redis.latency(['PUBLISH', 'bench-nobody', 'x'.repeat(300)]);
  const seat = (k, i, q) => median(agg.get(k).rs.map((r) => r.rtt_seat_ms[i][i ? 'joiner' : 'creator'][q]));
  console.log(`### Cluster (2): a forwarded move, one room of 2 players in a closed loop on 2 nodes (${ROUNDS} rounds of ${secs} s, rotated; medians of the rounds)\n`);
  table(['joiner on', 'moves/s', "creator's moves p50 / p99 ms", "joiner's moves p50 / p99 ms", 'per round, joiner p50 / p99', 'errors'],
    [['direct', 'node A (the owner)'], ['forwarded', 'node B']].map(([k, where]) => [where, f0(agg.get(k).rate),
      `${f2(seat(k, 0, 'p50'))} / ${f2(seat(k, 0, 'p99'))}`, `${f2(seat(k, 1, 'p50'))} / ${f2(seat(k, 1, 'p99'))}`,
      agg.get(k).rs.map((r) => `${f2(r.rtt_seat_ms[1].joiner.p50)} / ${f2(r.rtt_seat_ms[1].joiner.p99)}`).join(', '), agg.get(k).errors]));
  // Two comparisons: the joiner on B against the joiner on A (separate runs), and, in the same
  // run, the joiner's forwarded moves against the creator's, played on the owner at the same time
  // (the same PostgreSQL commits, the same load on the machine: the paired figure).
  const extra = (q) => seat('forwarded', 1, q) - seat('direct', 1, q);
  const paired = (q) => median(agg.get('forwarded').rs.map((r) => r.rtt_seat_ms[1].joiner[q] - r.rtt_seat_ms[0].creator[q]));
  const control = (q) => median(agg.get('direct').rs.map((r) => r.rtt_seat_ms[1].joiner[q] - r.rtt_seat_ms[0].creator[q]));
  table(['figure', 'p50 ms', 'p99 ms', 'target'], [
    ['forwarded move, extra round trip: joiner on B minus joiner on A (separate runs)', f2(extra('p50')), f2(extra('p99')), 'p99 under 1 ms'],
    ['forwarded move, extra round trip: joiner on B minus creator on A (same run, paired)', f2(paired('p50')), f2(paired('p99')), 'p99 under 1 ms'],
    ['control: joiner on A minus creator on A (same run)', f2(control('p50')), f2(control('p99')), ''],
    ['Redis PING round trip (redis-benchmark -c 1)', f2(ping.p50), f2(ping.p99), ''],
    ['Redis PUBLISH of 300 bytes, nobody subscribed (redis-benchmark -c 1)', f2(pub.p50), f2(pub.p99), ''],
  ]);
  console.log('A forwarded move crosses Redis twice (the command B -> A, the state A -> B): about two PUBLISH deliveries.\n');
  const rows = [];
  for (const [k, where] of [['direct', 'node A'], ['forwarded', 'node B']]) {
    const runs = sched.get(k) ?? [];
    const moves = sum(agg.get(k).rs, (r) => r.moves_total);
    for (const proc of ['node A', 'node B', 'Redis']) {
      const t = [0, 1, 2].map((i) => sum(runs, (d) => d[proc][i]));
      rows.push([where, proc, f2(t[2] / moves), f1(t[1] / t[2] / 1000), f1(t[0] / t[2] / 1000)]);
    }
  }
  console.log('The scheduler (/proc/PID/schedstat over each whole run): wake-ups per move, and how long each waited for a CPU.\n');
  table(['joiner on', 'process', 'wake-ups per move', 'run-queue wait per wake-up, µs', 'CPU per wake-up, µs'], rows);
  printNotes();
}

// (3) Take-over with the default lease: a room on node A (its creator there), its joiner on B;
// A killed -9 on the joiner's turn, at a random moment of the lease's renewal cycle; the joiner
// sends its move again every 50 ms while refused (unavailable) until B, having taken the lease
// once it lapsed and rebuilt the room from PostgreSQL, accepts it. The protocol client of the
// integration tests (tests/integration/harness.mjs, the ws package of tests/node_modules).
async function clusterTakeover(svc) {
  const { Client } = await import('../tests/integration/harness.mjs');
  const reps = Number(opt('--takeovers', 5));
  const times = [];
  const refusals = [];
  const losses = [];
  let stale = 0;
  for (let i = 0; i < reps; i++) {
    const cl = await startCluster(2, svc);
    const [a, b] = cl.nodes;
    const url = (x) => ({ url: `ws://127.0.0.1:${x.port}/ws` });
    try {
      const south = await Client.connect(url(a), { name: 'Ana' });
      const north = await Client.connect(url(b), { name: 'Bo' });
      const made = await south.request({ type: 'create', game: 'kalah', seat: 'south', visibility: 'private' });
      const room = made.room;
      const j = await north.request({ type: 'join', room }, 20000);
      if (j.type !== 'joined') throw new Error(JSON.stringify(j));
      let st = await north.state(room, (s) => s.status === 'playing', 20000);
      // Moves until it is North's turn (at least one move committed).
      do {
        const mover = st.turn === 'south' ? south : north;
        st = await mover.request({ type: 'move', room, house: st.legal[0], ply: st.ply }, 20000);
        if (st.type !== 'state') throw new Error(JSON.stringify(st));
      } while (st.turn !== 'north' || st.ply === 0);
      await sleep(Math.random() * 3500); // a random moment of the renewal cycle (every 3 s)
      const killed = process.hrtime.bigint();
      process.kill(a.pid, 'SIGKILL');
      // A move forwarded while A's sockets are still being closed is published to a subscriber
      // Redis still counts, and lost (pub/sub is at most once): neither state nor error comes.
      // Like the web client (web/net.js), a request without an answer is given up after a time
      // limit, 1 s here, and the move sent again.
      let refused = 0, lost = 0;
      for (;;) {
        let r;
        try {
          r = await north.request({ type: 'move', room, house: st.legal[0], ply: st.ply }, 1000);
        } catch {
          lost++;
          continue;
        }
        if (r.type === 'state') break;
        // stale: the move was committed by A before it died (its answer lost with A), and the new
        // owner, which rebuilt the room from PostgreSQL, says so: it runs the room now.
        if (r.type === 'error' && r.code === 'stale') {
          stale++;
          break;
        }
        if (r.type !== 'error' || r.code !== 'unavailable') throw new Error(`take-over: ${JSON.stringify(r)}`);
        refused++;
        if (Number(process.hrtime.bigint() - killed) > 60e9) throw new Error('no take-over within 60 s');
        await sleep(50);
      }
      times.push(Number(process.hrtime.bigint() - killed) / 1e6);
      refusals.push(refused);
      losses.push(lost);
      log(`take-over ${i + 1}: ${f0(times.at(-1))} ms, ${refused} moves refused, ${lost} without an answer`);
      for (const c of [south, north]) c.ws.terminate();
    } finally {
      await cl.stop();
    }
  }
  const s = [...times].sort((x, y) => x - y);
  console.log(`### Cluster (3): take-over, from kill -9 of the owner to the first accepted move on the new owner (default lease, 10 s; ${reps} repetitions)\n`);
  table(['figure', 'min', 'median', 'max', 'target'],
    [['kill -9 to the first accepted move, s', f2(s[0] / 1000), f2(median(s) / 1000), f2(s.at(-1) / 1000), 'under 12 s'],
      ['moves refused (unavailable) meanwhile, retried every 50 ms', f0(Math.min(...refusals)), f0(median(refusals)), f0(Math.max(...refusals)), ''],
      ['moves without any answer (lost), given up after 1 s', f0(Math.min(...losses)), f0(median(losses)), f0(Math.max(...losses)), '']]);
  console.log(`Each: ${s.map((t) => f2(t / 1000)).join(', ')} s.${stale ? ` In ${stale} of them the new owner's first answer was stale: ` +
    'the move had been committed by A before the kill (its answer died with A); that answer is counted as the first.' : ''}\n`);
  printNotes();
}

// (4) Two nodes against one: 100 players two a room in a closed loop. Two nodes with every other
// room on node B (no move forwarded: the best case, as behind sticky routing), and with every
// room's joiner on node B (half of the moves forwarded; behind a round-robin balancer a room's
// two players are on different nodes (N-1)/N of the time). The CPU of every process in the
// window; Redis's cost per command over each whole run (its CPU over INFO's commands processed).
async function clusterTwo(svc, secs, pair, groupPerMove, perMove) {
  const redisRuns = new Map();
  const withRedis = (key, n) => async () => {
    const c = await startCluster(n, svc);
    const t0 = cpuTicks([svc.redis.pid()]), s0 = svc.redis.stats();
    const stop = c.stop.bind(c);
    c.stop = async () => {
      const s1 = svc.redis.stats();
      const runs = redisRuns.get(key) ?? [];
      runs.push({ cpu_s: (cpuTicks([svc.redis.pid()]) - t0) / HZ, cmds: s1.total - s0.total,
        publish: (s1.byCmd.publish?.calls ?? 0) - (s0.byCmd.publish?.calls ?? 0),
        eval: (s1.byCmd.eval?.calls ?? 0) - (s0.byCmd.eval?.calls ?? 0),
        usec: Object.keys(s1.byCmd).reduce((t, k) => t + s1.byCmd[k].usec - (s0.byCmd[k]?.usec ?? 0), 0) });
      redisRuns.set(key, runs);
      return stop();
    };
    return c;
  };
  const agg = await rotate([
    ['one', withRedis('one', 1), pair],
    ['rooms', withRedis('rooms', 2), (s) => [...pair, '--port-b', String(s.nodes[1].port), '--spread', 'rooms']],
    ['joiners', withRedis('joiners', 2), (s) => [...pair, '--port-b', String(s.nodes[1].port), '--spread', 'joiners']],
  ]);
  const names = { one: '1 node', rooms: '2 nodes, every other room on B (none forwarded)', joiners: '2 nodes, every joiner on B (half forwarded)' };
  const nodesPerMove = (a) => groupPerMove(a.rs, 'server') + groupPerMove(a.rs, 'nodes');
  console.log(`### Cluster (4): two nodes against one, 100 players two a room, closed loop (${ROUNDS} rounds of ${secs} s, rotated)\n`);
  table(['cluster', 'moves/s', 'per round', 'nodes CPU per move, µs', 'node A CPU', 'node B CPU', 'loadgen CPU',
    'Redis CPU', 'Redis per move, µs', 'PostgreSQL CPU', 'PostgreSQL per move, µs', 'RTT p50 / p99 ms', 'errors'],
  ['one', 'rooms', 'joiners'].map((k) => {
    const a = agg.get(k);
    const avg = (g) => sum(a.rs, (r) => r.cpu_by[g]) / a.rs.length;
    return [names[k], f0(a.rate), a.rs.map((r) => f0(r.moves_per_s)).join(', '), f1(nodesPerMove(a)), `${f0(a.cpu)}%`,
      k === 'one' ? '-' : `${f0(avg('nodes'))}%`, `${f0(a.own)}%`, `${f0(avg('redis'))}%`, f1(groupPerMove(a.rs, 'redis')),
      `${f0(avg('postgresql'))}%`, f1(groupPerMove(a.rs, 'postgresql')), `${f2(a.p50)} / ${f2(a.p99)}`, a.errors];
  }));
  table(['ratio', 'measured', 'per round', 'target'], [
    ratioRow(agg, '2 nodes (none forwarded) / 1 node, moves/s', 'rooms', 'one', {}),
    ratioRow(agg, '2 nodes (half forwarded) / 1 node, moves/s', 'joiners', 'one', {}),
  ]);
  // Redis: its CPU per command processed (each whole run), and commands per move.
  const rr = (k) => redisRuns.get(k) ?? [];
  const rsum = (k, f) => sum(rr(k), f);
  const movesAll = (k) => sum(agg.get(k).rs, (r) => r.moves_total);
  table(['cluster', 'Redis commands per move', 'PUBLISH per move', 'EVAL per move', 'Redis CPU per command, µs (from /proc)', "Redis's own time per command, µs (INFO)"],
    ['one', 'rooms', 'joiners'].map((k) => [names[k], f2(rsum(k, (r) => r.cmds) / movesAll(k)), f2(rsum(k, (r) => r.publish) / movesAll(k)),
      f2(rsum(k, (r) => r.eval) / movesAll(k)), f1((1e6 * rsum(k, (r) => r.cpu_s)) / rsum(k, (r) => r.cmds)), f2(rsum(k, (r) => r.usec) / rsum(k, (r) => r.cmds))]));
  // On paper: N nodes behind a round-robin balancer (no stickiness). A room is run where its
  // creator is; its joiner is on another node (N-1)/N of the time. In such a room every move
  // costs more: half of its moves are forwarded, and every state is published once to the other
  // node. That extra is the difference between the two 2-node runs (every room split, none).
  // A node is one loop on one core.
  const c0 = nodesPerMove(agg.get('rooms')), dc = nodesPerMove(agg.get('joiners')) - c0;
  const r0 = groupPerMove(agg.get('rooms').rs, 'redis'), dr = groupPerMove(agg.get('joiners').rs, 'redis') - r0;
  const p0 = groupPerMove(agg.get('one').rs, 'postgresql');
  const perCmd = (1e6 * rsum('joiners', (r) => r.cpu_s)) / rsum('joiners', (r) => r.cmds);
  console.log(`On paper, from these figures: a move costs the nodes ${f1(c0)} µs of CPU, ${f1(dc)} µs more in a room ` +
    `whose players are on two nodes; Redis ${f1(r0)} µs per move and ${f1(dr)} µs more in such a room ` +
    `(${f1(perCmd)} µs of its CPU per command when most are PUBLISH; Redis runs commands on one thread: one core); ` +
    `PostgreSQL ${f1(p0)} µs per move (1 node).\n`);
  table(['nodes N', 'rooms split over two nodes', 'nodes µs per move', 'moves/s per node (one core)', 'N nodes', 'Redis bound (one core)', 'PostgreSQL bound per core'],
    [1, 2, 4, 8, 16, 32].map((n) => {
      const f = (n - 1) / n;
      const node = c0 + f * dc, redis = r0 + f * dr;
      return [n, `${f0(100 * f)}%`, f1(node), f0(1e6 / node), f0((n * 1e6) / node), f0(1e6 / redis), f0(1e6 / p0)];
    }));
  printNotes();
}

// Instructions per move: the server under callgrind, instrumentation on only while loadgen plays
// a fixed number of moves (10 local rooms, closed loop), for Kalah 6x4 (random games last about
// 45 plies) and Oware 6x4 (about 100): a cost that grows with the game shows as a gap.
async function profileGame(game, moves, mode = 'local') {
  const out = path.join(BUILD, `callgrind.out.${game}-${mode}-${SYNC}`);
  const wrap = ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}`];
  const server = await startOurs(SYNC, { wrap, timeoutMs: 300000 });
  let r;
  try {
    execFileSync('callgrind_control', ['-i', 'on', String(server.pid)], { stdio: 'ignore' });
    r = await loadgen(server, ['--players', '10', '--mode', mode, '--game', game, '--warmup', '0',
      '--moves', String(moves), '--duration', '3600']);
    execFileSync('callgrind_control', ['-i', 'off', String(server.pid)], { stdio: 'ignore' });
  } finally {
    await server.stop();
  }
  const annotated = execFileSync('callgrind_annotate', ['--inclusive=no', '--threshold=99', out],
    { encoding: 'utf8', maxBuffer: 1 << 26 });
  const total = Number(annotated.match(/^([\d,]+)(?: \(100\.0%\))?\s+PROGRAM TOTALS/m)[1].replace(/,/g, ''));
  const fns = [...annotated.matchAll(/^\s*([\d,]+) \(\s*([\d.]+)%\)\s+(\S+):(\S+) \[([^\]]+)\]/gm)]
    .map((m) => ({ ir: Number(m[1].replace(/,/g, '')), fn: m[4], obj: path.basename(m[5]) }));
  const byObj = new Map();
  for (const x of fns) byObj.set(x.obj, (byObj.get(x.obj) || 0) + x.ir);
  // Inclusive costs of the named functions (the server's own, jansson's and libc's API): where
  // the work of a move is spent, callees included. The loop and dispatch frames (all of it) and
  // functions without symbols are left out.
  const inclusive = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=99', out],
    { encoding: 'utf8', maxBuffer: 1 << 26 });
  const incl = [...inclusive.matchAll(/^\s*([\d,]+) \(\s*([\d.]+)%\)\s+(\S+):(\S+) \[([^\]]+)\]/gm)]
    .map((m) => ({ ir: Number(m[1].replace(/,/g, '')), share: Number(m[2]), fn: m[4], obj: path.basename(m[5]) }))
    .filter((x) => x.share < 98 && !x.fn.startsWith('0x') && !x.fn.includes("'") &&
      /^(mancala-server|libjansson|libsqlite3|libc\.)/.test(x.obj));
  return { game, mode, moves: r.moves, games: r.games, total, fns, byObj, incl, out };
}

// Instructions per move: Kalah and Oware with one player a room (--mode local, 10 rooms), Kalah
// with two (--mode pair, 5 rooms: every state encoded for each player), as --mode says (both:
// all three).
async function profile() {
  const runs = [];
  if (MODE === 'pair' || MODE === 'both') runs.push(await profileGame('kalah', 5000, 'pair'));
  if (MODE === 'local' || MODE === 'both') runs.push(await profileGame('kalah', 5000), await profileGame('oware', 5000));
  console.log(`### Instructions per move (callgrind, mancala-server --sync ${SYNC}, 10 players, closed loop)\n`);
  table(['game', 'mode', 'moves', 'plies per game', 'instructions per move'],
    runs.map((p) => [p.game, p.mode, f0(p.moves), p.games ? f0(p.moves / p.games) : '-', f0(p.total / p.moves)]));
  for (const p of runs) {
    console.log(`${p.game} (${p.mode}), by object (connections and new rooms included):\n`);
    table(['object', 'instructions per move', 'share'],
      [...p.byObj.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8)
        .map(([obj, ir]) => [obj, f0(ir / p.moves), `${f1((100 * ir) / p.total)}%`]));
  }
  const k = runs[0];
  console.log(`kalah (${k.mode}), where a move goes (inclusive cost of named functions, callees included):\n`);
  table(['function', 'object', 'instructions per move', 'share'],
    k.incl.slice(0, 20).map((x) => [x.fn, x.obj, f0(x.ir / k.moves), `${f1(x.share)}%`]));
  console.log(`kalah (${k.mode}), the functions that cost most (self cost; addresses are functions without symbols):\n`);
  table(['function', 'object', 'instructions per move', 'share'],
    k.fns.slice(0, 20).map((x) => [x.fn, x.obj, f0(x.ir / k.moves), `${f1((100 * x.ir) / k.total)}%`]));
  console.log(`The profiles: ${runs.map((p) => path.relative(top, p.out)).join(', ')} (callgrind_annotate, kcachegrind).\n`);
}

// ---- Main -------------------------------------------------------------------------------------

build();
const peerScript = WITH_PEER && !['profile', 'cluster'].includes(what) ? preparePeer() : null;
machine();
if (what === 'closed' || what === 'all') await closed(peerScript);
if (what === 'think' || what === 'all') await think(peerScript);
if (what === 'idle' || what === 'all') await idle(peerScript);
if (what === 'sweep' || what === 'all') await sweep(peerScript);
if (what === 'profile') await profile();
if (what === 'store') await stores();
if (what === 'cluster') await cluster();
