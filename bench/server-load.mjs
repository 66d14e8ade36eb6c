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
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, cpuSeconds, localRoom, percentile, playUntil, rssKiB, startServer, stopServer } from './load.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.resolve(process.argv[2] || path.join(here, '../build-server-rel/bin/mancala-server'));
const seconds = Number(process.argv[3] || 10);
const GAMES = 100;
const IDLE = 1000;

async function player(port, deadline, rtts) {
  const game = await localRoom(port);
  const result = await playUntil(game, deadline, rtts);
  game.c.ws.close();
  return result;
}

const server = await startServer(bin, ['--rooms-per-player', '10']).catch(async () => null);
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
const code = await stopServer(server);
console.log(`\nserver exit status after SIGTERM: ${code}`);
