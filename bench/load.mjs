// Shared by the server benchmarks: start a server, protocol clients, and measurement helpers.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from '../tests/node_modules/ws/wrapper.mjs';

// Starts `bin` on a free port of 127.0.0.1 with a fresh data directory under dataRoot and limits
// high enough for a load test; resolves with { child, port, data } once it logs its port.
export function startServer(bin, extra = [], dataRoot = os.tmpdir()) {
  const data = fs.mkdtempSync(path.join(dataRoot, 'mancala-bench-'));
  const child = spawn(bin, ['--port', '0', '--bind', '127.0.0.1', '--data', data, '--rate', '1000000',
    '--burst', '1000000', '--max-per-ip', '100000', '--max-connections', '100000', ...extra,
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

// SIGTERM, wait for the exit, remove the data directory; resolves with the exit status.
export async function stopServer(server) {
  server.child.kill('SIGTERM');
  const code = await new Promise((r) => server.child.once('exit', r));
  fs.rmSync(server.data, { recursive: true, force: true });
  return code;
}

// A protocol client whose request() resolves with the frame that echoes the request's id.
export function connect(port) {
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

// A client with its own local Kalah 6x4 room (one connection holds both seats).
export async function localRoom(port) {
  const c = await connect(port);
  await c.request({ type: 'hello', name: 'Bench' });
  const joined = await c.request({ type: 'create', game: 'kalah', opponent: 'local' });
  return { c, room: joined.room };
}

// Plays the first legal house, one request at a time, until the deadline, starting a rematch when
// a game ends; pushes each move's round trip (ms) to rtts. Resolves with { moves, games }.
export async function playUntil({ c, room }, deadline, rtts) {
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
    if (r.status === 'finished') games++;
    const next = r.status === 'finished' ? await c.request({ type: 'rematch', room }) : r;
    ply = next.ply;
    legal = next.legal;
  }
  return { moves, games };
}

// CPU seconds the process has used (user + system).
export function cpuSeconds(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

export function rssKiB(pid) {
  const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Number(m[1]);
}

// The value at fraction p of an ascending array.
export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}
