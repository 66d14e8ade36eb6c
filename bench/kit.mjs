// What the abuse and soak benchmarks share (bench/abuse.mjs, bench/scale.mjs, bench/soak.mjs):
// starting the server, WebSocket clients with a request/reply helper, attackers that keep their
// connections open, the victims' paced game and its round trips. Node 18+ and the `ws` package of
// tests/package-lock.json (`cd tests && npm ci`).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The servers a benchmark starts build no endgame tables (issue 24: a fresh install builds them
// in the background, minutes of one core and ~80 MB): figures are of the server's steady state.
process.env.MANCALA_EGTB_BUILD ??= 'off';

const here = path.dirname(fileURLToPath(import.meta.url));
export const top = path.resolve(here, '..');
const require = createRequire(path.join(top, 'tests', 'package.json'));
export const WebSocket = require('ws');

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Command-line options: opt('--name', default) and flag('--name').
export function options(argv = process.argv.slice(2)) {
  return {
    argv,
    opt: (name, def) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : def; },
    flag: (name) => argv.includes(name),
  };
}

// ---- The server ---------------------------------------------------------------------------------

// Starts BIN on a free port of 127.0.0.1 with a fresh data directory and ARGS (besides --port,
// --bind, --data and --web). The open-file limit is raised to the hard limit first (the server
// clamps its connections to what that allows). Resolves with { url, http, port, pid, rss(),
// fds(), fdsLater(), schedstat(), cpuSeconds(), exited, log, stop() }.
export async function startServer(bin, args = []) {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-bench-'));
  const script = 'ulimit -n "$(ulimit -Hn)"; exec "$0" "$@"';
  const child = spawn('sh', ['-c', script, bin, '--port', '0', '--bind', '127.0.0.1', '--data', data,
    '--web', path.join(top, 'web'), ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const port = await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      log += d;
      if (log.length > 1 << 20) log = log.slice(-(1 << 19));
      const m = log.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${log}`)));
  });
  let gone = false;
  const exited = new Promise((r) => child.once('exit', (code, signal) => { gone = true; r({ code, signal }); }));
  const pid = child.pid;
  return {
    get exited() { return gone; },
    url: `ws://127.0.0.1:${port}/ws`,
    http: `http://127.0.0.1:${port}`,
    port,
    pid,
    data,
    rss() { return Number(fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]) * 1024; },
    fds() { return fs.readdirSync(`/proc/${pid}/fd`).length; },
    // The same off the caller's thread (libuv's pool): listing 10,000 descriptors takes tens of
    // milliseconds, which a sampler on the victims' thread added to their round trips.
    async fdsLater() { return (await fs.promises.readdir(`/proc/${pid}/fd`)).length; },
    // The scheduler's account of the process's main thread: [ns on a CPU, ns runnable but
    // waiting for a CPU] (/proc/PID/schedstat): the second says when the machine, not the
    // server, is what is slow.
    schedstat() { return fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').slice(0, 2).map(Number); },
    cpuSeconds() {
      const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(f[11]) + Number(f[12])) / 100; // USER_HZ
    },
    get log() { return log; },
    async stop() {
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), 30000);
      const r = await exited;
      clearTimeout(kill);
      fs.rmSync(data, { recursive: true, force: true });
      return r;
    },
  };
}

// ---- Clients ------------------------------------------------------------------------------------

// A loopback source address per group k: 127.0.<1 + k / 250>.<1 + k % 250> (Linux routes all of
// 127/8 to lo), so that attackers and crowds are many addresses, as on the Internet.
export const addr = (k) => `127.0.${1 + Math.floor(k / 250)}.${1 + (k % 250)}`;

// Opens a WebSocket to server.url; resolves when it is open or has failed (check live()). Frames
// are parsed and offered to the waiters of request(), then to ws.onFrame when set.
export function open(server, localAddress = '127.0.0.1') {
  return new Promise((resolve) => {
    const ws = new WebSocket(server.url, 'mancala.v1', { localAddress, perMessageDeflate: false, maxPayload: 64 << 20 });
    ws.waiters = [];
    ws.nextId = 1;
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString());
      const w = ws.waiters.findIndex((x) => x.pred(m));
      if (w >= 0) ws.waiters.splice(w, 1)[0].resolve(m);
      if (ws.onFrame) ws.onFrame(m);
    });
    ws.on('error', () => {});
    ws.once('open', () => resolve(ws));
    ws.once('close', () => { resolve(ws); for (const w of ws.waiters) w.resolve(null); ws.waiters = []; });
  });
}

// Sends obj with a fresh id; resolves with the reply of that id, or null after ms or a close.
export function request(ws, obj, ms = 30000) {
  const id = ws.nextId++;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    ws.waiters.push({ pred: (m) => m.id === id, resolve: (m) => { clearTimeout(timer); resolve(m); } });
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ ...obj, id }));
  });
}

// Resolves with the next frame that satisfies pred (null after ms or a close).
export function expect(ws, pred, ms = 30000) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    ws.waiters.push({ pred, resolve: (m) => { clearTimeout(timer); resolve(m); } });
  });
}

export const live = (ws) => ws.readyState === WebSocket.OPEN;

// count connections kept open for as long as the returned state's stop() is not called: from
// addr(first + k / perAddr), each one opened again 100 ms after the server closes it. onOpen(ws,
// st) runs on each new connection. st counts opened, refused and closedByServer, and open (the
// connections open now). With rampMs, connection k first opens at k * rampMs / count.
export function keepOpening(server, count, perAddr, first, onOpen, { rampMs = 0 } = {}) {
  const st = { socks: new Set(), opened: 0, refused: 0, closedByServer: 0, stopping: false };
  const one = async (k) => {
    if (rampMs > 0) await sleep((k * rampMs) / count);
    while (!st.stopping) {
      const ws = await open(server, addr(first + Math.floor(k / perAddr)));
      if (!live(ws)) { st.refused++; await sleep(200); continue; }
      st.opened++;
      st.socks.add(ws);
      if (onOpen) await onOpen(ws, st);
      await new Promise((r) => (live(ws) ? ws.once('close', r) : r()));
      st.socks.delete(ws);
      if (!st.stopping) { st.closedByServer++; await sleep(100); }
    }
  };
  st.done = Promise.all(Array.from({ length: count }, (_, k) => one(k)));
  Object.defineProperty(st, 'open', { get: () => st.socks.size });
  st.stop = async () => { st.stopping = true; for (const ws of st.socks) ws.terminate(); await st.done; };
  return st;
}

// ---- The victims: games whose moves are paced at 10/s ---------------------------------------------

// One private Kalah game between two fresh players, from localAddress.
export async function victimGame(server, name = 'Victim', localAddress = '127.0.0.1') {
  const a = await open(server, localAddress), b = await open(server, localAddress);
  const ha = await request(a, { type: 'hello', name: `${name} A` });
  await request(b, { type: 'hello', name: `${name} B` });
  const joined = await request(a, { type: 'create', game: 'kalah', seat: 'south', visibility: 'private' });
  const room = joined.room;
  await request(b, { type: 'join', room });
  const st = await request(a, { type: 'resync', room });
  return { a, b, room, me: ha.player, st, errors: 0 };
}

// Plays moves of game v, one at a time, each sent 100 ms after the previous one was sent (or at
// once when its answer took longer); returns the round trips (request sent -> answering state).
// A refused or unanswered move counts in v.errors; a dropped victim throws.
export async function playPaced(v, moves, { until } = {}) {
  const rtt = [];
  let st = v.st;
  while (rtt.length < moves && !(until && until())) {
    const t0 = performance.now();
    let r;
    if (st.status === 'finished') {
      await request(v.a, { type: 'rematch', room: v.room });
      r = await request(v.b, { type: 'rematch', room: v.room });
    } else {
      const mover = st.players[st.turn].id === v.me ? v.a : v.b;
      r = await request(mover, { type: 'move', room: v.room, house: st.legal[0], ply: st.ply });
      if (r && r.type === 'state') rtt.push(performance.now() - t0);
    }
    if (!r || r.type !== 'state') {
      v.errors++;
      if (!live(v.a) || !live(v.b)) throw new Error('a victim was disconnected: ' + JSON.stringify(r));
      r = await request(v.a, { type: 'resync', room: v.room });
    }
    st = r;
    const wait = 100 - (performance.now() - t0);
    if (wait > 0) await sleep(wait);
  }
  v.st = st;
  return rtt;
}

// p50, p99 and max of round trips (ms), and how many.
export function quantiles(rtt) {
  const s = [...rtt].sort((x, y) => x - y);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { n: s.length, p50: q(0.5), p99: q(0.99), max: s[s.length - 1] };
}

// The round trips of one game over moves moves.
export async function measure(v, moves) {
  return quantiles(await playPaced(v, moves));
}
