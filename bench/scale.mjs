// Abuse at scale (issue 25, "the long runs"): one command per figure,
//
//   node bench/scale.mjs hello [--connections 10000] [--victims 20] [--moves 100] [--server BIN]
//   node bench/scale.mjs storm [--players 5000] [--storms 5] [--victims 20] [--moves 100] [--server BIN]
//   node bench/scale.mjs both  (the two, one after the other, each with a fresh server)
//
// Both start BIN (default build-bench/bin/mancala-server, a Release build) on a free port of
// 127.0.0.1 with its default limits (the defences as deployed: only --max-connections is raised
// to CONNECTIONS + 100 for `hello`, so that all the attackers fit beside the victims), and measure
// the victims' move round trip (bench/kit.mjs: VICTIMS players, two a private Kalah room, each
// room's moves paced at 10/s; request sent -> answering state received) idle and then under the
// load, in the same run, MOVES moves per room in each phase.
//
// - hello: CONNECTIONS WebSocket connections that never say hello, from loopback addresses
//   127.0.x.y (50 per address: the default --max-per-ip is 64), opened over 10 s and kept open:
//   each one the server closes (the hello deadline, 10 s) is opened again 100 ms later, so the
//   server holds about CONNECTIONS of them and accepts and closes about CONNECTIONS / 10 a
//   second while the victims play.
// - storm: PLAYERS players (50 per address), two a private Kalah room, each game started (two
//   moves played). Then STORMS times: every player drops its connection at once and comes back
//   with its token at a random moment within the next second; a player is back when it has its
//   resumed `welcome`, the `joined` of its room (as a player) and the room's full state at the
//   ply it left. The victims' round trips are measured from each drop until every player is back
//   (and 1 s more), until MOVES per room have been measured.
//
// The attackers and the stormers run in worker threads (an event loop each), so that their work
// does not delay the victims' timers and sockets. Figures: a Markdown table per mode on stdout.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  addr, keepOpening, live, open, options, playPaced, quantiles, request, sleep, startServer, top, victimGame,
} from './kit.mjs';

const { argv, opt } = options();
const what = argv[0] && !argv[0].startsWith('--') ? argv[0] : 'both';
const BIN = path.resolve(opt('--server', path.join(top, 'build-bench', 'bin', 'mancala-server')));
const CONNECTIONS = Number(opt('--connections', '10000'));
const PLAYERS = Number(opt('--players', '5000'));
const STORMS = Number(opt('--storms', '5'));
const VICTIMS = Number(opt('--victims', '20'));
const MOVES = Number(opt('--moves', '100'));
const WORKERS = Number(opt('--workers', '2'));
const PER_ADDR = 50;
const self = fileURLToPath(import.meta.url);
const log = (...a) => console.error(`scale ${new Date().toISOString().slice(11, 19)}:`, ...a);

// ---- Workers ------------------------------------------------------------------------------------
// workerData: { job: 'hello' | 'storm', url, first (address group), count }. Messages from the
// main thread: 'status', 'drop' (storm), 'stop'; each is answered with an object.

async function helloWorker({ url, first, count }) {
  const st = keepOpening({ url }, count, PER_ADDR, first, null, { rampMs: 10000 });
  parentPort.on('message', async (m) => {
    if (m === 'status') parentPort.postMessage({ open: st.open, opened: st.opened, closed: st.closedByServer, refused: st.refused });
    if (m === 'stop') {
      await st.stop();
      parentPort.postMessage({ open: 0, opened: st.opened, closed: st.closedByServer, refused: st.refused });
    }
  });
  parentPort.postMessage('ready');
}

// A stormer: a player seated in a started game, who can drop and come back with its token.
async function stormWorker({ url, first, count }) {
  const server = { url };
  const players = [];
  let failed = 0;
  // Pairs, 50 players an address, set up 100 at a time.
  const setupPair = async (k) => {
    const from = addr(first + Math.floor((2 * k) / PER_ADDR));
    const a = await open(server, from), b = await open(server, from);
    const ha = await request(a, { type: 'hello', name: `Storm ${first}-${2 * k}` });
    const hb = await request(b, { type: 'hello', name: `Storm ${first}-${2 * k + 1}` });
    if (!ha || !hb || ha.type !== 'welcome' || hb.type !== 'welcome') { failed += 2; return; }
    const j = await request(a, { type: 'create', game: 'kalah', seat: 'south', visibility: 'private' });
    if (!j || j.type !== 'joined') { failed += 2; return; }
    const jb = await request(b, { type: 'join', room: j.room });
    if (!jb || jb.type !== 'joined') { failed += 2; return; }
    let st = await request(a, { type: 'resync', room: j.room });
    for (let i = 0; i < 2 && st && st.type === 'state'; i++) {
      const mover = st.players[st.turn].id === ha.player ? a : b;
      st = await request(mover, { type: 'move', room: j.room, house: st.legal[0], ply: st.ply });
    }
    if (!st || st.type !== 'state') { failed += 2; return; }
    players.push({ ws: a, token: ha.token, id: ha.player, room: j.room, from, ply: st.ply },
      { ws: b, token: hb.token, id: hb.player, room: j.room, from, ply: st.ply });
  };
  for (let k = 0; k < count / 2; k += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count / 2 - k) }, (_, i) => setupPair(k + i)));
  }
  // One player back: a resumed welcome for its id, then the joined of its room and its full state.
  const comeBack = async (p, t0) => {
    await sleep(Math.random() * 1000);
    const ws = await open(server, p.from);
    if (!live(ws)) return { ok: false, why: 'connect' };
    const back = new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), 30000);
      let joined = false;
      ws.onFrame = (m) => {
        if (m.type === 'joined' && m.room === p.room && m.role === 'player') joined = true;
        if (joined && m.type === 'state' && m.room === p.room && Array.isArray(m.moves)) {
          clearTimeout(timer);
          ws.onFrame = null;
          resolve(m);
        }
      };
    });
    const w = await request(ws, { type: 'hello', token: p.token });
    if (!w || w.type !== 'welcome' || !w.resumed || w.player !== p.id) { ws.terminate(); return { ok: false, why: 'welcome' }; }
    const st = await back;
    p.ws = ws;
    if (!st) return { ok: false, why: 'seat' };
    if (st.ply !== p.ply || st.moves.length !== p.ply) return { ok: false, why: 'ply' };
    return { ok: true, ms: performance.now() - t0 };
  };
  parentPort.on('message', async (m) => {
    if (m === 'drop') {
      const t0 = performance.now();
      for (const p of players) p.ws.terminate();
      const rs = await Promise.all(players.map((p) => comeBack(p, t0)));
      const why = {};
      for (const r of rs) if (!r.ok) why[r.why] = (why[r.why] || 0) + 1;
      const ms = rs.filter((r) => r.ok).map((r) => r.ms);
      parentPort.postMessage({ back: ms.length, lost: rs.length - ms.length, why, ...quantiles(ms) });
    }
    if (m === 'stop') {
      for (const p of players) p.ws.terminate();
      parentPort.postMessage({});
    }
  });
  parentPort.postMessage({ ready: players.length, failed });
}


// ---- Main ---------------------------------------------------------------------------------------

function spawnWorkers(job, url, total, firstGroup) {
  const per = Math.ceil(total / WORKERS / PER_ADDR) * PER_ADDR;
  const ws = [];
  for (let i = 0; i < WORKERS; i++) {
    const count = Math.min(per, total - i * per);
    if (count <= 0) break;
    const w = new Worker(self, { workerData: { job, url, first: firstGroup + (i * per) / PER_ADDR, count }, argv });
    w.ask = (msg) => new Promise((r) => { w.once('message', r); if (msg) w.postMessage(msg); });
    w.firstReply = w.ask(null);
    ws.push(w);
  }
  return ws;
}
const askAll = (ws, msg) => Promise.all(ws.map((w) => w.ask(msg)));
const sumOf = (rs, k) => rs.reduce((a, r) => a + (r[k] || 0), 0);

async function victims(server) {
  const vs = [];
  for (let i = 0; i < VICTIMS / 2; i++) vs.push(await victimGame(server, `Victim ${i}`));
  await Promise.all(vs.map((v) => playPaced(v, 10))); // Warm up.
  return vs;
}
const allRtt = async (vs, moves, opts) => (await Promise.all(vs.map((v) => playPaced(v, moves, opts)))).flat();
const errors = (vs) => vs.reduce((a, v) => a + v.errors, 0);
const ms = (x) => (x === undefined ? '-' : x.toFixed(1));
const mib = (b) => (b / 1048576).toFixed(1);

async function helloRun() {
  const server = await startServer(BIN, ['--max-connections', String(CONNECTIONS + 100)]);
  log(`hello: server pid ${server.pid}, ${CONNECTIONS} connections that never say hello`);
  const rows = [];
  try {
    const vs = await victims(server);
    const idle = quantiles(await allRtt(vs, MOVES));
    const base = { rss: server.rss(), fds: server.fds() };
    rows.push(['idle', idle, 0, `${mib(base.rss)} MiB, ${base.fds} files`, '']);
    const workers = spawnWorkers('hello', server.url, CONNECTIONS, 0);
    await Promise.all(workers.map((w) => w.firstReply));
    // Until every attacker has been opened once (the ramp, 10 s), then 2 s more.
    for (let t = 0; t < 120; t++) {
      const s = await askAll(workers, 'status');
      if (sumOf(s, 'opened') >= CONNECTIONS) break;
      await sleep(500);
    }
    await sleep(2000);
    const cpu0 = server.cpuSeconds(), t0 = performance.now();
    const e0 = errors(vs);
    let peakOpen = 0, peakFds = 0, peakRss = 0;
    const sampler = setInterval(async () => {
      try { peakFds = Math.max(peakFds, server.fds()); peakRss = Math.max(peakRss, server.rss()); } catch { /* gone */ }
      const s = await askAll(workers, 'status');
      peakOpen = Math.max(peakOpen, sumOf(s, 'open'));
    }, 1000);
    const abused = quantiles(await allRtt(vs, MOVES));
    clearInterval(sampler);
    const cpu = (100 * (server.cpuSeconds() - cpu0)) / ((performance.now() - t0) / 1000);
    const end = await askAll(workers, 'stop');
    for (const w of workers) await w.terminate();
    rows.push([`${CONNECTIONS.toLocaleString('en-US')} connections that never say hello`, abused, errors(vs) - e0,
      `${mib(peakRss)} MiB, ${peakFds} files (peaks)`,
      `${sumOf(end, 'opened')} opened, ${sumOf(end, 'closed')} closed by the server, ${sumOf(end, 'refused')} refused; ` +
      `up to ${peakOpen} open at once (attackers' count); server CPU ${cpu.toFixed(0)}%`]);
    await sleep(3000);
    rows.push(['after (3 s)', null, 0, `${mib(server.rss())} MiB, ${server.fds()} files`, '']);
    for (const v of vs) { v.a.close(); v.b.close(); }
  } finally {
    rows.exit = await server.stop();
  }
  return rows;
}

async function stormRun() {
  const server = await startServer(BIN);
  log(`storm: server pid ${server.pid}, ${PLAYERS} players`);
  const rows = [];
  try {
    const vs = await victims(server);
    const idle = quantiles(await allRtt(vs, MOVES));
    rows.push(['idle', idle, 0, `${mib(server.rss())} MiB, ${server.fds()} files`, '']);
    // Address groups after the victims' (127.0.0.1) and clear of the hello run's.
    const workers = spawnWorkers('storm', server.url, PLAYERS, 0);
    const ready = await Promise.all(workers.map((w) => w.firstReply));
    log(`storm: ${sumOf(ready, 'ready')} players seated, ${sumOf(ready, 'failed')} failed to set up`);
    const e0 = errors(vs);
    const storms = [];
    const rtt = [];
    let peakRss = 0, peakFds = 0;
    for (let i = 0; i < STORMS || rtt.length < (MOVES * VICTIMS) / 2; i++) {
      if (i >= 3 * STORMS) break;
      let done = false;
      const cpu0 = server.cpuSeconds(), t0 = performance.now();
      const measuring = allRtt(vs, 1e9, { until: () => done });
      const sampler = setInterval(() => {
        try { peakFds = Math.max(peakFds, server.fds()); peakRss = Math.max(peakRss, server.rss()); } catch { /* gone */ }
      }, 200);
      const rs = await askAll(workers, 'drop');
      await sleep(1000);
      done = true;
      rtt.push(...(await measuring));
      clearInterval(sampler);
      const secs = (performance.now() - t0) / 1000;
      storms.push({ back: sumOf(rs, 'back'), lost: sumOf(rs, 'lost'), why: rs.map((r) => JSON.stringify(r.why)).join(' '),
        p50: Math.max(...rs.map((r) => r.p50 ?? 0)), max: Math.max(...rs.map((r) => r.max ?? 0)), secs,
        cpu: (100 * (server.cpuSeconds() - cpu0)) / secs });
      log(`storm ${i + 1}: ${JSON.stringify(storms.at(-1))}; ${rtt.length} victim moves so far`);
      await sleep(2000);
    }
    const stormed = quantiles(rtt);
    const back = storms.reduce((a, s) => a + s.back, 0), lost = storms.reduce((a, s) => a + s.lost, 0);
    rows.push([`${PLAYERS.toLocaleString('en-US')} players drop and come back with their tokens within 1 s, ${storms.length} times`,
      stormed, errors(vs) - e0, `${mib(peakRss)} MiB, ${peakFds} files (peaks)`,
      `${back} of ${back + lost} seats back (${lost} not); all back ${storms.map((s) => (s.max / 1000).toFixed(1)).join(', ')} s ` +
      `after the drop; server CPU ${storms.map((s) => s.cpu.toFixed(0)).join(', ')}%` + (lost ? `; not back: ${storms.map((s) => s.why).join(' ')}` : '')]);
    await askAll(workers, 'stop');
    for (const w of workers) await w.terminate();
    await sleep(3000);
    rows.push(['after (3 s)', null, 0, `${mib(server.rss())} MiB, ${server.fds()} files`, '']);
    for (const v of vs) { v.a.close(); v.b.close(); }
  } finally {
    rows.exit = await server.stop();
  }
  return rows;
}

function print(title, rows) {
  const idle = rows[0][1];
  console.log(`### ${title}\n`);
  console.log(`Victims: ${VICTIMS} players, two a private Kalah room, each room's moves paced at 10/s; server ${path.relative(top, BIN)}, ` +
    `${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${new Date().toISOString()}\n`);
  console.log('| phase | moves | p50 ms | p99 ms | max ms | p99 / idle | victims\' errors | server memory and files | what the load did |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |');
  for (const [name, q, errs, mem, what] of rows) {
    console.log(`| ${name} | ${q ? q.n : ''} | ${q ? ms(q.p50) : ''} | ${q ? ms(q.p99) : ''} | ${q ? ms(q.max) : ''} | ` +
      `${q ? (q.p99 / idle.p99).toFixed(2) : ''} | ${q ? errs : ''} | ${mem} | ${what} |`);
  }
  console.log(`\nserver exit: ${JSON.stringify(rows.exit)}\n`);
}

async function main() {
  if (!['hello', 'storm', 'both'].includes(what)) {
    console.error('usage: node bench/scale.mjs hello|storm|both [--connections N] [--players N] [--storms N] [--victims N] [--moves N] [--server BIN]');
    process.exit(2);
  }
  if (what === 'hello' || what === 'both') print(`${CONNECTIONS.toLocaleString('en-US')} connections that never say hello`, await helloRun());
  if (what === 'storm' || what === 'both') print(`Reconnect storm: ${PLAYERS.toLocaleString('en-US')} players`, await stormRun());
  process.exit(0);
}

// Last, once every declaration above has run.
if (!isMainThread) {
  if (workerData.job === 'hello') await helloWorker(workerData);
  else await stormWorker(workerData);
} else {
  await main();
}
