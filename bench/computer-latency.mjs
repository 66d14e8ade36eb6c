// People's moves while the computer thinks (docs/computer.md, "Server"): the round trip of a move
// in a game between two people (request sent -> its state back; the players wait --think ms between moves), alone and then while N games
// against the computer at level 6 keep the computer's searches busy (their person answers at
// once, so the searches never stop). Prints p50, p99 and the maximum of each phase, and the
// computer's moves played meanwhile.
//
//   node bench/computer-latency.mjs [--server BIN] [--games 50] [--moves 300] [--threads T]
//                                   [--ms 1000] [--think 30]
//
// BIN defaults to build-rel/bin/mancala-server. Uses the `ws` package of tests/ (npm ci there).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.resolve(here, '../tests/package.json'));
const WebSocket = require('ws');

const arg = (name, def) => {
  const i = process.argv.indexOf('--' + name);
  return i > 0 ? process.argv[i + 1] : def;
};
const BIN = arg('server', path.resolve(here, '../build-rel/bin/mancala-server'));
const GAMES = Number(arg('games', 50));
const MOVES = Number(arg('moves', 300));
const MS = Number(arg('ms', 1000));
const THREADS = arg('threads', '0');
const THINK = Number(arg('think', 30)); // ms between a people's game's moves

function start() {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-cl-'));
  const child = spawn(BIN, ['--port', '0', '--bind', '127.0.0.1', '--data', data, '--sync', 'normal',
    '--rate', '100000', '--burst', '100000', '--computer-ms', String(MS), '--computer-threads', THREADS],
  { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      log += d;
      const m = log.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve({ url: `ws://127.0.0.1:${m[1]}/ws`, child, data, get log() { return log; } });
    });
    child.once('exit', (c) => reject(new Error('server exited ' + c + '\n' + log)));
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

// Plays people's games (new ones as they end) until MOVES round trips are measured.
async function people(url) {
  const a = await C.open(url, 'Ana'), b = await C.open(url, 'Bo');
  const rtt = [];
  while (rtt.length < MOVES) {
    const j = await a.req({ type: 'create', game: 'kalah', seat: 'south', visibility: 'private' });
    const room = j.room;
    const got = new Promise((r) => { b.on = (m) => { if (m.type === 'state' && m.status === 'playing') r(m); }; });
    await b.req({ type: 'join', room });
    let st = await got;
    b.on = null;
    while (st.status === 'playing' && rtt.length < MOVES) {
      const mover = st.turn === 'south' ? a : b;
      await new Promise((r) => setTimeout(r, THINK));
      const t0 = process.hrtime.bigint();
      st = await mover.req({ type: 'move', room, house: st.legal[Math.floor(Math.random() * st.legal.length)], ply: st.ply });
      rtt.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (st.type !== 'state') throw new Error(JSON.stringify(st));
    }
  }
  a.ws.close(); b.ws.close();
  return rtt;
}

// N people each playing the computer at level 6, answering at once, new games as games end.
async function computerLoad(url, n) {
  const counter = { computer: 0, stop: false };
  const players = [];
  for (let i = 0; i < n; i++) {
    const c = await C.open(url, 'P' + i);
    const play = async () => {
      const j = await c.req({ type: 'create', game: 'kalah', opponent: 'computer', level: 6, seat: 'north' });
      c.room = j.room;
    };
    c.on = (m) => {
      if (m.type !== 'state' || m.room !== c.room || counter.stop) return;
      if (m.last && m.last.seat === 'south') counter.computer++;
      if (m.status === 'finished') { play(); return; }
      if (m.status === 'playing' && m.turn === 'north') c.ws.send(JSON.stringify({ type: 'move', room: c.room, house: m.legal[0], ply: m.ply }));
    };
    await play();
    players.push(c);
  }
  return { counter, close: () => { counter.stop = true; for (const c of players) c.ws.close(); } };
}

const line = (name, a) => `| ${name} | ${a.length} | ${pct(a, 0.5).toFixed(2)} | ${pct(a, 0.99).toFixed(2)} | ${Math.max(...a).toFixed(2)} |`;

const srv = await start();
try {
  const base = await people(srv.url);
  const load = await computerLoad(srv.url, GAMES);
  await new Promise((r) => setTimeout(r, 2000)); // Every search under way.
  const t0 = Date.now();
  const c0 = load.counter.computer;
  const busy = await people(srv.url);
  const secs = (Date.now() - t0) / 1000;
  const computerMoves = load.counter.computer - c0;
  load.close();
  console.log(`server ${BIN}, --computer-ms ${MS}, --computer-threads ${THREADS}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log('');
  console.log('| phase | moves | p50 ms | p99 ms | max ms |');
  console.log('| --- | --- | --- | --- | --- |');
  console.log(line('people only', base));
  console.log(line(`people while ${GAMES} level-6 games think`, busy));
  console.log('');
  console.log(`computer moves during the second phase: ${computerMoves} in ${secs.toFixed(1)} s`);
} finally {
  srv.child.kill('SIGTERM');
  await new Promise((r) => srv.child.once('exit', r));
  fs.rmSync(srv.data, { recursive: true, force: true });
}
