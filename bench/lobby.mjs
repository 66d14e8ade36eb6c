// What the lobby costs (issue 25, item 4): one command,
//
//   node bench/lobby.mjs [--server BIN] [--mode lists|changes] [--watchers 200] [--rooms 2000]
//                        [--churn 20] [--seconds 10] [--lobby-rooms N] [--rss S]
//
// starts BIN (default build-bench/bin/mancala-server, a Release build) on a free port of
// 127.0.0.1 with the per-address limits raised (everything comes from 127.0.0.1), opens ROOMS
// public waiting rooms (200 creators with ROOMS/200 rooms each, the games in turn, each creator
// connected so that its rooms are listed), then WATCHERS connections that watch the lobby and read
// everything: with --mode lists the contract's way ({"type":"lobby"}: the whole list after each
// change), with --mode changes the addition ({"type":"lobby","changes":true}: one snapshot, then
// lobby_changes). A churn client makes CHURN changes a second that show in the list (it opens a
// public room, then leaves it, which closes it). After 2 s of warm-up it measures for SECONDS:
// the bytes and frames each watcher received a second, and the server's CPU (user + system time
// of its process from /proc, in % of one core). It prints one Markdown table row; the first
// frame's size is the snapshot (or whole list) a new watcher downloads.
//
// Before/after: run it against a build of the commit before the change with --mode lists (the
// only way it had), and against this one with both modes (docs/performance.md, "The lobby").
//
// --rss S (issue 25, item 12: memory after a lobby burst): also samples the server's resident
// memory (VmRSS from /proc) before the rooms are made, every 100 ms during the burst (its peak),
// and S seconds after every client has gone (the rooms then close, their players gone); it prints a
// second row: RSS before, peak, after. Run it a few times: the issue saw the memory kept in one
// run of two.
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
const top = path.resolve(here, '..');
const require = createRequire(path.join(top, 'tests', 'package.json'));
const WebSocket = require('ws');

const argv = process.argv.slice(2);
const opt = (name, def) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : def; };
const BIN = path.resolve(opt('--server', path.join(top, 'build-bench', 'bin', 'mancala-server')));
const MODE = opt('--mode', 'changes');
const WATCHERS = Number(opt('--watchers', '200'));
const ROOMS = Number(opt('--rooms', '2000'));
const CHURN = Number(opt('--churn', '20'));
const SECONDS = Number(opt('--seconds', '10'));
const LOBBY_ROOMS = opt('--lobby-rooms', null); // the server's --lobby-rooms (default: its own)
const RSS_AFTER = opt('--rss', null) === null ? null : Number(opt('--rss'));
const CREATORS = 200;
const GAMES = ['kalah', 'oware', 'congkak'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
if (!['lists', 'changes'].includes(MODE)) throw new Error('--mode lists|changes');

// ---- The server ---------------------------------------------------------------------------------

async function startServer() {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-lobby-'));
  const args = ['--port', '0', '--bind', '127.0.0.1', '--data', data, '--web', path.join(top, 'web'),
    '--rate', '100000', '--burst', '100000', '--players-per-ip', '1000000', '--rooms-per-ip', '10000000',
    '--public-rooms-per-ip', '10000000', '--watchers-per-ip', '1000000', '--max-per-ip', '100000',
    '--max-connections', '100000', '--rooms-per-player', '10000', '--sync', 'normal',
    ...(LOBBY_ROOMS === null ? [] : ['--lobby-rooms', LOBBY_ROOMS])];
  const child = spawn(BIN, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const port = await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      log += d;
      const m = log.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${log}`)));
  });
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    // Resident memory of the server's process, in KiB.
    rss() { return Number(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]); },
    // User + system time of the server's process, in clock ticks (USER_HZ, 100 on Linux).
    ticks() {
      const stat = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(f[11]) + Number(f[12]);
    },
    async stop() { child.kill('SIGTERM'); const r = await exited; fs.rmSync(data, { recursive: true, force: true }); return r; },
  };
}

// ---- Clients ------------------------------------------------------------------------------------

function open(server, name) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(server.url, 'mancala.v1', { perMessageDeflate: false, maxPayload: 64 << 20 });
    ws.waiters = [];
    ws.nextId = 1;
    ws.bytes = 0;
    ws.frames = 0;
    ws.first = 0;
    ws.closed = false;
    ws.on('close', () => { ws.closed = true; });
    ws.on('message', (d) => {
      ws.bytes += d.length;
      ws.frames++;
      if (ws.waiters.length === 0) return; // a watcher only counts: no parsing while measuring
      const m = JSON.parse(d.toString());
      const w = ws.waiters.findIndex((x) => x.pred(m));
      if (w >= 0) ws.waiters.splice(w, 1)[0].resolve(m);
    });
    ws.on('error', reject);
    ws.request = (obj) => new Promise((res) => {
      const id = ws.nextId++;
      ws.waiters.push({ pred: (m) => m.id === id, resolve: res });
      ws.send(JSON.stringify({ ...obj, id }));
    });
    ws.once('open', async () => {
      const w = await ws.request({ type: 'hello', name });
      if (w.type !== 'welcome') reject(new Error(JSON.stringify(w)));
      resolve(ws);
    });
  });
}

async function main() {
  const server = await startServer();
  const all = [];
  const rss = { before: server.rss(), peak: 0, after: 0 };
  const sampler = setInterval(() => { rss.peak = Math.max(rss.peak, server.rss()); }, 100);
  try {
    // The rooms: CREATORS players, each with its share, connected (a waiting room is listed only
    // while its player is there).
    const per = Math.ceil(ROOMS / CREATORS);
    let made = 0;
    for (let c = 0; c < CREATORS && made < ROOMS; c++) {
      const ws = await open(server, `Maker${c}`);
      all.push(ws);
      const reqs = [];
      for (let i = 0; i < per && made < ROOMS; i++, made++) reqs.push(ws.request({ type: 'create', game: GAMES[made % 3] }));
      for (const r of await Promise.all(reqs)) if (r.type !== 'joined') throw new Error('create: ' + JSON.stringify(r));
    }
    // The watchers.
    const watchers = [];
    const ask = MODE === 'changes' ? { type: 'lobby', changes: true } : { type: 'lobby' };
    for (let i = 0; i < WATCHERS; i++) {
      const ws = await open(server, `Watcher${i}`);
      all.push(ws);
      const before = ws.bytes;
      const r = await ws.request(ask);
      if (r.type !== 'lobby') throw new Error('lobby: ' + JSON.stringify(r).slice(0, 200));
      ws.first = ws.bytes - before;
      watchers.push(ws);
    }
    const snapshot = watchers[0].first;
    // The churn: a room opened and closed again, CHURN changes a second.
    const churner = await open(server, 'Churn');
    all.push(churner);
    let stop = false;
    const churn = (async () => {
      for (let k = 0; !stop; k++) {
        const j = await churner.request({ type: 'create', game: GAMES[k % 3] });
        await sleep(1000 / CHURN);
        await churner.request({ type: 'leave', room: j.room });
        await sleep(1000 / CHURN);
      }
    })();
    await sleep(2000);
    const b0 = watchers.reduce((a, w) => a + w.bytes, 0);
    const f0 = watchers.reduce((a, w) => a + w.frames, 0);
    const c0 = server.ticks();
    const t0 = process.hrtime.bigint();
    await sleep(SECONDS * 1000);
    const c1 = server.ticks();
    const t1 = process.hrtime.bigint();
    const b1 = watchers.reduce((a, w) => a + w.bytes, 0);
    const f1 = watchers.reduce((a, w) => a + w.frames, 0);
    stop = true;
    await churn;
    const secs = Number(t1 - t0) / 1e9;
    const cpu = ((c1 - c0) / 100 / secs) * 100;
    const bps = (b1 - b0) / WATCHERS / secs;
    const fps = (f1 - f0) / WATCHERS / secs;
    const kb = (n) => (n / 1024).toFixed(1) + ' KiB';
    const dropped = watchers.filter((w) => w.closed).length;
    console.log('| server | mode | watchers | rooms | changes/s | first frame | bytes/watcher/s | frames/watcher/s | server CPU | watchers dropped |');
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    console.log(`| ${BIN} | ${MODE} | ${WATCHERS} | ${ROOMS} | ${CHURN} | ${kb(snapshot)} | ${kb(bps)} | ${fps.toFixed(2)} | ${cpu.toFixed(0)} % | ${dropped} |`);
    if (RSS_AFTER !== null) {
      for (const ws of all) ws.terminate();
      all.length = 0;
      await sleep(RSS_AFTER * 1000);
      clearInterval(sampler);
      rss.after = server.rss();
      const mib = (k) => (k / 1024).toFixed(1) + ' MiB';
      console.log('');
      console.log(`| server | mode | RSS before | RSS peak | RSS ${RSS_AFTER} s after the clients left |`);
      console.log('| --- | --- | --- | --- | --- |');
      console.log(`| ${BIN} | ${MODE} | ${mib(rss.before)} | ${mib(rss.peak)} | ${mib(rss.after)} |`);
    }
  } finally {
    clearInterval(sampler);
    for (const ws of all) ws.terminate();
    await server.stop();
  }
}

await main();
