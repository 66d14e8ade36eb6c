// Durable moves per second through the real server (prints figures; not a test). Release builds:
//
//   cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel
//   (cd tests && npm ci)    # the ws package
//   node bench/durable-load.mjs build-rel/bin/mancala-server [seconds] [games] [baseline-server]
//
// `games` (default 1,000) concurrent local games on loopback, one connection each: every client
// plays the first legal house of its room, one request at a time, and starts a rematch when a game
// ends. A move counts once its state came back, and the server sends a state only after the loop
// turn's transaction is committed, so every counted move is durable. Runs, one server each:
//
//   full, disk     --sync full on a directory of os.tmpdir() (the default setting)
//   normal, disk   --sync normal (the WAL is fsync'ed at checkpoints only)
//   full, tmpfs    --sync full on /dev/shm: the same SQLite writes and commits, but the fsync
//                  costs nothing; the difference to "full, disk" is the price of the flush
//   baseline       optional: a server without storage (for example built from the commit before
//                  durable storage), the same load
//
// For each: moves/s, the move round trip, the server's CPU, and from /metrics the commits per
// second, the moves per commit and the mean and longest commit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, localRoom, percentile, playUntil, startServer, stopServer } from './load.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.resolve(process.argv[2] || path.join(here, '../build-rel/bin/mancala-server'));
const seconds = Number(process.argv[3] || 10);
const GAMES = Number(process.argv[4] || 1000);
const baseline = process.argv[5] ? path.resolve(process.argv[5]) : null;

async function metrics(port) {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const get = (name) => {
    const m = text.match(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm'));
    return m ? Number(m[1]) : null;
  };
  return {
    commits: get('mancala_store_commits_total'), commitS: get('mancala_store_commit_seconds_total'),
    commitMax: get('mancala_store_commit_seconds_max'), moves: get('mancala_moves_total'),
  };
}

async function run(label, server, dataRoot, extra) {
  const s = await startServer(server, extra, dataRoot);
  const clients = [];
  for (let i = 0; i < GAMES; i += 100) {
    clients.push(...await Promise.all(Array.from({ length: Math.min(100, GAMES - i) }, () => localRoom(s.port))));
  }
  const m0 = await metrics(s.port);
  const rtts = [];
  const cpu0 = cpuSeconds(s.child.pid);
  const t0 = Date.now();
  const counts = await Promise.all(clients.map((c) => playUntil(c, t0 + seconds * 1000, rtts)));
  const elapsed = (Date.now() - t0) / 1000;
  const cpu = (cpuSeconds(s.child.pid) - cpu0) / elapsed;
  const m1 = await metrics(s.port);
  for (const c of clients) c.c.ws.close();
  await stopServer(s);
  const moves = counts.reduce((a, r) => a + r.moves, 0);
  rtts.sort((a, b) => a - b);
  const row = {
    label, movesPerS: moves / elapsed, p50: percentile(rtts, 0.5), p99: percentile(rtts, 0.99), cpu,
  };
  if (m1.commits !== null) {
    const commits = m1.commits - m0.commits;
    row.commitsPerS = commits / elapsed;
    row.movesPerCommit = (m1.moves - m0.moves) / Math.max(1, commits);
    row.commitMean = ((m1.commitS - m0.commitS) / Math.max(1, commits)) * 1000;
    row.commitMax = m1.commitMax * 1000;
  }
  return row;
}

console.log(`mancala-server: ${bin}${baseline ? `\nbaseline: ${baseline}` : ''}`);
console.log(`machine: ${os.cpus().length} x ${os.cpus()[0].model}, node ${process.version}, data in ${os.tmpdir()}`);
console.log(`${GAMES} concurrent local games, ${seconds} s per run\n`);
const rows = [];
rows.push(await run('full, disk', bin, os.tmpdir(), ['--sync', 'full']));
rows.push(await run('normal, disk', bin, os.tmpdir(), ['--sync', 'normal']));
if (fs.existsSync('/dev/shm')) rows.push(await run('full, tmpfs', bin, '/dev/shm', ['--sync', 'full']));
if (baseline) rows.push(await run('baseline', baseline, os.tmpdir(), []));
const f = (v, d = 0) => (v === undefined || v === null ? '-' : v.toFixed(d));
console.log('| run | moves/s | RTT p50 ms | RTT p99 ms | server CPU | commits/s | moves/commit | commit mean ms | commit max ms |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  console.log(`| ${r.label} | ${f(r.movesPerS)} | ${f(r.p50, 2)} | ${f(r.p99, 2)} | ${f(r.cpu * 100)}% | ${f(r.commitsPerS)} | ` +
    `${f(r.movesPerCommit, 1)} | ${f(r.commitMean, 3)} | ${f(r.commitMax, 2)} |`);
}
