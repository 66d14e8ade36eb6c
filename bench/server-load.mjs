// Server load benchmark (prints figures; not a test). Run it on a Release build:
//
//   cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel
//   (cd tests && npm ci)    # the ws package
//   node bench/server-load.mjs build-rel/bin/mancala-server [seconds]
//
// 1. 100 concurrent local games on loopback: each client plays the first legal house of its own
//    local room, one request at a time (a local room gives one connection both seats), and starts
//    a rematch whenever a game ends. Reports moves per second and the move round-trip time.
// 2. 1,000 idle connections (each said hello): the server's resident memory before and after.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from '../tests/node_modules/ws/wrapper.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.resolve(process.argv[2] || path.join(here, '../build-server-rel/bin/mancala-server'));
const seconds = Number(process.argv[3] || 10);
const GAMES = 100;
const IDLE = 1000;

function start() {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-bench-'));
  const child = spawn(bin, ['--port', '0', '--bind', '127.0.0.1', '--data', data, '--rate', '1000000',
    '--burst', '1000000', '--max-per-ip', '5000', '--max-connections', '5000', '--rooms-per-player', '10',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      log += d;
      const m = log.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve({ child, port: Number(m[1]), data });
    });
    child.once('exit', (c) => reject(new Error('server exited ' + c + '\n' + log)));
  });
}

function rssKiB(pid) {
  const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Number(m[1]);
}

function connect(port) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, 'mancala.v1');
    const pending = new Map();
    let nextId = 1;
    ws.on('message', (d) => {
      const m = JSON.parse(d);
      if (m.id !== undefined && pending.has(m.id)) {
        const r = pending.get(m.id);
        pending.delete(m.id);
        r(m);
      }
    });
    ws.once('error', reject);
    ws.once('open', () => resolve({
      ws,
      request(obj) {
        const id = nextId++;
        return new Promise((res) => { pending.set(id, res); ws.send(JSON.stringify({ ...obj, id })); });
      },
    }));
  });
}

// CPU seconds the process has used (user + system).
function cpuSeconds(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

async function player(port, deadline, rtts) {
  const c = await connect(port);
  await c.request({ type: 'hello', name: 'Bench' });
  const joined = await c.request({ type: 'create', game: 'kalah', opponent: 'local' });
  const room = joined.room;
  // The start position of Kalah 6x4: ply 0, every house playable.
  let ply = 0;
  let legal = [1, 2, 3, 4, 5, 6];
  let moves = 0;
  let games = 0;
  while (Date.now() < deadline) {
    const t0 = process.hrtime.bigint();
    const r = await c.request({ type: 'move', room, house: legal[0], ply });
    rtts.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.type !== 'state') throw new Error(JSON.stringify(r));
    moves++;
    if (r.status === 'finished') {
      games++;
      const again = await c.request({ type: 'rematch', room });
      ply = again.ply;
      legal = again.legal;
    } else {
      ply = r.ply;
      legal = r.legal;
    }
  }
  c.ws.close();
  return { moves, games };
}

const server = await start().catch(async () => null);
if (!server) process.exit(1);
const { child, port } = server;
console.log(`mancala-server: ${bin}`);
console.log(`machine: ${os.cpus().length} x ${os.cpus()[0].model}, node ${process.version}`);
const rssStart = rssKiB(child.pid);

// 1. Throughput and latency.
const rtts = [];
const deadline = Date.now() + seconds * 1000;
const t0 = Date.now();
const cpu0 = process.cpuUsage();
const srvCpu0 = cpuSeconds(child.pid);
const results = await Promise.all(Array.from({ length: GAMES }, () => player(port, deadline, rtts)));
const elapsed = (Date.now() - t0) / 1000;
const moves = results.reduce((a, r) => a + r.moves, 0);
const games = results.reduce((a, r) => a + r.games, 0);
rtts.sort((a, b) => a - b);
console.log(`\n${GAMES} concurrent local games for ${elapsed.toFixed(1)} s on loopback:`);
console.log(`  moves: ${moves} (${(moves / elapsed).toFixed(0)} moves/s), games finished: ${games}`);
console.log(`  move round trip: p50 ${percentile(rtts, 0.5).toFixed(2)} ms, p90 ${percentile(rtts, 0.9).toFixed(2)} ms, ` +
  `p99 ${percentile(rtts, 0.99).toFixed(2)} ms, max ${rtts[rtts.length - 1].toFixed(2)} ms`);
const cpu = process.cpuUsage(cpu0);
console.log(`  the server used ${((cpuSeconds(child.pid) - srvCpu0) / elapsed * 100).toFixed(0)}% of a core`);
console.log(`  (the load generator itself used ${((cpu.user + cpu.system) / 1e6 / elapsed * 100).toFixed(0)}% of a core)`);
await new Promise((r) => setTimeout(r, 500));

// 2. Memory with idle connections.
const rssBefore = rssKiB(child.pid);
const idle = [];
for (let i = 0; i < IDLE; i += 50) {
  const batch = await Promise.all(Array.from({ length: Math.min(50, IDLE - i) }, () => connect(port)));
  await Promise.all(batch.map((c) => c.request({ type: 'hello', name: 'Idle' })));
  idle.push(...batch);
}
await new Promise((r) => setTimeout(r, 1000));
const rssAfter = rssKiB(child.pid);
const health = await (await fetch(`http://127.0.0.1:${port}/healthz`)).json();
console.log(`\n${IDLE} idle connections (hello sent), ${health.connections} open on the server:`);
console.log(`  server RSS: ${(rssStart / 1024).toFixed(1)} MiB at start, ${(rssBefore / 1024).toFixed(1)} MiB before, ` +
  `${(rssAfter / 1024).toFixed(1)} MiB with them: ${((rssAfter - rssBefore) / IDLE).toFixed(1)} KiB per connection`);
for (const c of idle) c.ws.close();
child.kill('SIGTERM');
const code = await new Promise((r) => child.once('exit', r));
fs.rmSync(server.data, { recursive: true, force: true });
console.log(`\nserver exit status after SIGTERM: ${code}`);
