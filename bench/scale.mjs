// Abuse at scale (issue 25, "the long runs"): one command per figure,
//
//   node bench/scale.mjs hello [--connections 10000] [--victims 20] [--moves 100] [--server BIN]
//   node bench/scale.mjs storm [--players 5000] [--storms 5] [--victims 20] [--moves 100] [--server BIN]
//   node bench/scale.mjs both  (the two, one after the other, each with a fresh server)
//   [--no-control] (skip the control phases, below) [--attackers-nice N] [--measure-nice N] (below)
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
// does not delay the victims' timers and sockets. But they share the machine's cores with the
// victims and the server: on a small machine the victims' round trips grow under load whoever
// handles it. So each mode also runs a control (unless --no-control): the same load aimed at a
// second server process on the same machine while the victims play on the first, then idle
// again. The victims' p99 under the load against under the control is the server's own share;
// the table also gives the victims' server's CPU and its time runnable but waiting for a CPU
// (/proc/PID/schedstat), and the load generator's CPU. Figures: a Markdown table per mode.
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
const CONTROL = !argv.includes('--no-control');
// The attackers' and stormers' threads run at this nice value (Linux: per thread), the victims and
// the servers at the caller's: in a real attack the load comes from other machines, and on a small
// machine shared with the load generator its threads would otherwise take the CPU the server
// under test needs for the very work the figure is about. --attackers-nice 0 turns it off.
const ATTACKERS_NICE = Number(opt('--attackers-nice', '19'));
// The victims' thread and the servers (started from it, so they inherit it) run at this nice
// value: what is measured is the server's answer to the load, and a machine shared with other
// work (builds, tests) would otherwise decide the victims' tail. Needs root below 0; without it
// the run goes on at the caller's priority and says so. --measure-nice 0 turns it off.
const MEASURE_NICE = Number(opt('--measure-nice', '-10'));
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

// What a phase cost: the victims' server's CPU and its time waiting for a CPU (runnable, not
// running: the machine's share, not the server's), and this process's CPU (all its threads),
// each in % of the phase's wall time.
function usage(server) {
  const t0 = performance.now(), [run0, wait0] = server.schedstat(), c0 = process.cpuUsage();
  return () => {
    const secs = (performance.now() - t0) / 1000, [run1, wait1] = server.schedstat(), c = process.cpuUsage(c0);
    return { cpu: (run1 - run0) / 1e7 / secs, wait: (wait1 - wait0) / 1e7 / secs, gen: (c.user + c.system) / 1e4 / secs };
  };
}
const usageText = (u) => `${u.cpu.toFixed(0)}% / ${u.wait.toFixed(0)}% / ${u.gen.toFixed(0)}%`;

// The victims play on server while CONNECTIONS silent connections are held open on target (the
// same server, or for the control, another server process on the same machine).
async function helloPhase(server, target, vs, name) {
  const workers = spawnWorkers('hello', target.url, CONNECTIONS, 0);
  await Promise.all(workers.map((w) => w.firstReply));
  // Until every attacker has been opened once (the ramp, 10 s), then 2 s more.
  for (let t = 0; t < 120; t++) {
    const st = await askAll(workers, 'status');
    if (sumOf(st, 'opened') >= CONNECTIONS) break;
    await sleep(500);
  }
  await sleep(2000);
  const e0 = errors(vs);
  let peakOpen = 0, peakFds = 0, peakRss = 0;
  const sampler = setInterval(async () => {
    try { peakFds = Math.max(peakFds, await target.fdsLater()); peakRss = Math.max(peakRss, target.rss()); } catch { /* gone */ }
    const st = await askAll(workers, 'status');
    peakOpen = Math.max(peakOpen, sumOf(st, 'open'));
  }, 1000);
  const u = usage(server);
  const q = quantiles(await allRtt(vs, MOVES));
  const used = u();
  clearInterval(sampler);
  const end = await askAll(workers, 'stop');
  for (const w of workers) await w.terminate();
  return [name, q, errors(vs) - e0, used, `${mib(peakRss)} MiB, ${peakFds} files (peaks${target === server ? '' : ', the other server'})`,
    `${sumOf(end, 'opened')} opened, ${sumOf(end, 'closed')} closed by the server, ${sumOf(end, 'refused')} refused; ` +
    `up to ${peakOpen} open at once`];
}

async function helloRun() {
  const args = ['--max-connections', String(CONNECTIONS + 100)];
  const server = await startServer(BIN, args);
  log(`hello: server pid ${server.pid}, ${CONNECTIONS} connections that never say hello`);
  const rows = [];
  try {
    const vs = await victims(server);
    let u = usage(server);
    const idle = quantiles(await allRtt(vs, MOVES));
    rows.push(['idle', idle, 0, u(), `${mib(server.rss())} MiB, ${server.fds()} files`, '']);
    rows.push(await helloPhase(server, server, vs, `${CONNECTIONS.toLocaleString('en-US')} connections that never say hello`));
    await sleep(3000);
    rows.push(['after (3 s)', null, 0, null, `${mib(server.rss())} MiB, ${server.fds()} files`, '']);
    if (CONTROL) {
      const sink = await startServer(BIN, args);
      try {
        rows.push(await helloPhase(server, sink, vs, 'control: the same connections held by another server process'));
      } finally {
        await sink.stop();
      }
      await sleep(2000);
      u = usage(server);
      rows.push(['idle again', quantiles(await allRtt(vs, MOVES)), 0, u(), `${mib(server.rss())} MiB, ${server.fds()} files`, '']);
    }
    for (const v of vs) { v.a.close(); v.b.close(); }
  } finally {
    rows.exit = await server.stop();
  }
  return rows;
}

// The victims play on server while PLAYERS stormers (seated on target) drop and come back,
// STORMS times at least and until MOVES per room were measured during storms.
async function stormPhase(server, target, vs, name) {
  const workers = spawnWorkers('storm', target.url, PLAYERS, 0);
  const ready = await Promise.all(workers.map((w) => w.firstReply));
  log(`storm: ${sumOf(ready, 'ready')} players seated, ${sumOf(ready, 'failed')} failed to set up`);
  const e0 = errors(vs);
  const storms = [];
  const rtt = [];
  let peakRss = 0, peakFds = 0;
  const all = { cpu: 0, wait: 0, gen: 0 };
  for (let i = 0; i < STORMS || rtt.length < (MOVES * VICTIMS) / 2; i++) {
    if (i >= 3 * STORMS) break;
    let done = false;
    const u = usage(server);
    const measuring = allRtt(vs, 1e9, { until: () => done });
    const sampler = setInterval(async () => {
      try { peakFds = Math.max(peakFds, await target.fdsLater()); peakRss = Math.max(peakRss, target.rss()); } catch { /* gone */ }
    }, 200);
    const rs = await askAll(workers, 'drop');
    await sleep(1000);
    done = true;
    rtt.push(...(await measuring));
    const used = u();
    for (const k of Object.keys(all)) all[k] += used[k];
    clearInterval(sampler);
    storms.push({ back: sumOf(rs, 'back'), lost: sumOf(rs, 'lost'), why: rs.map((r) => JSON.stringify(r.why)).join(' '),
      p50: Math.max(...rs.map((r) => r.p50 ?? 0)), max: Math.max(...rs.map((r) => r.max ?? 0)), used });
    log(`storm ${i + 1}: ${JSON.stringify(storms.at(-1))}; ${rtt.length} victim moves so far`);
    await sleep(2000);
  }
  for (const k of Object.keys(all)) all[k] /= storms.length;
  await askAll(workers, 'stop');
  for (const w of workers) await w.terminate();
  const back = storms.reduce((a, x) => a + x.back, 0), lost = storms.reduce((a, x) => a + x.lost, 0);
  return [name, quantiles(rtt), errors(vs) - e0, all,
    `${mib(peakRss)} MiB, ${peakFds} files (peaks${target === server ? '' : ', the other server'})`,
    `${back} of ${back + lost} seats back (${lost} not) in ${storms.length} storms; all back ` +
    `${storms.map((x) => (x.max / 1000).toFixed(1)).join(', ')} s after the drop` +
    (lost ? `; not back: ${storms.map((x) => x.why).join(' ')}` : '')];
}

async function stormRun() {
  const server = await startServer(BIN);
  log(`storm: server pid ${server.pid}, ${PLAYERS} players`);
  const rows = [];
  try {
    const vs = await victims(server);
    let u = usage(server);
    const idle = quantiles(await allRtt(vs, MOVES));
    rows.push(['idle', idle, 0, u(), `${mib(server.rss())} MiB, ${server.fds()} files`, '']);
    rows.push(await stormPhase(server, server, vs,
      `${PLAYERS.toLocaleString('en-US')} players drop and come back with their tokens within 1 s`));
    await sleep(3000);
    rows.push(['after (3 s)', null, 0, null, `${mib(server.rss())} MiB, ${server.fds()} files`, '']);
    if (CONTROL) {
      const sink = await startServer(BIN);
      try {
        rows.push(await stormPhase(server, sink, vs, 'control: the same storm on another server process'));
      } finally {
        await sink.stop();
      }
      await sleep(2000);
      u = usage(server);
      rows.push(['idle again', quantiles(await allRtt(vs, MOVES)), 0, u(), `${mib(server.rss())} MiB, ${server.fds()} files`, '']);
    }
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
    `${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; victims and servers at nice ` +
    `${os.getPriority(0)}, attackers at ${ATTACKERS_NICE}; ${new Date().toISOString()}\n`);
  console.log('| phase | moves | p50 ms | p99 ms | max ms | p99 / idle | victims\' errors | victims\' server CPU / waiting for a CPU / load generator CPU | server memory and files | what the load did |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |');
  for (const [name, q, errs, used, mem, what] of rows) {
    console.log(`| ${name} | ${q ? q.n : ''} | ${q ? ms(q.p50) : ''} | ${q ? ms(q.p99) : ''} | ${q ? ms(q.max) : ''} | ` +
      `${q ? (q.p99 / idle.p99).toFixed(2) : ''} | ${q ? errs : ''} | ${used ? usageText(used) : ''} | ${mem} | ${what} |`);
  }
  console.log(`\nserver exit: ${JSON.stringify(rows.exit)}\n`);
}

async function main() {
  if (!['hello', 'storm', 'both'].includes(what)) {
    console.error('usage: node bench/scale.mjs hello|storm|both [--connections N] [--players N] [--storms N] [--victims N] [--moves N] [--server BIN] [--no-control]');
    process.exit(2);
  }
  if (MEASURE_NICE) {
    try { os.setPriority(0, MEASURE_NICE); } catch (e) { log(`cannot run at nice ${MEASURE_NICE} (${e.code}): at the caller's priority`); }
  }
  if (what === 'hello' || what === 'both') print(`${CONNECTIONS.toLocaleString('en-US')} connections that never say hello`, await helloRun());
  if (what === 'storm' || what === 'both') print(`Reconnect storm: ${PLAYERS.toLocaleString('en-US')} players`, await stormRun());
  process.exit(0);
}

// Last, once every declaration above has run.
if (!isMainThread) {
  if (ATTACKERS_NICE) os.setPriority(0, ATTACKERS_NICE); // This thread only (Linux).
  if (workerData.job === 'hello') await helloWorker(workerData);
  else await stormWorker(workerData);
} else {
  await main();
}
