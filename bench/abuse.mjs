// What abuse does to other players (issue 13, "abuse with figures"): one command,
//
//   node bench/abuse.mjs [--server BIN] [--moves N] [--scale F]
//
// starts the server with its default limits (the defences as deployed; only --port and --data
// are given) on a free port of 127.0.0.1, and measures a well-behaved game's move round trip
// (request sent -> answering state received, N moves per phase, default 150, paced at 10 moves/s
// as two humans clicking fast) while idle, then during each abuse in turn, each abuse stopped
// and the server left 3 s to settle before the next. It prints one Markdown table: p50, p99 and
// max of the round trip, p99 against idle, what the abuse achieved and how the server answered
// it, the victims' errors (must be 0: nothing acknowledged lost, nobody dropped), and the
// server's RSS after the abuse against the baseline.
//
// Attackers come from many loopback addresses (127.0.1.x, 127.0.2.x...: Linux routes all of
// 127/8 to lo) so that per-address limits do not hide what the global defences do; the victims
// use 127.0.0.1. --scale multiplies every attacker count (default 1). The server is BIN, by
// default build-bench/bin/mancala-server (a Release build:
// `cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release && cmake --build build-bench -j2`).
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { keepOpening, live, measure, options, request, sleep, startServer, top, victimGame } from './kit.mjs';

const { argv, opt } = options();
const BIN = path.resolve(opt('--server', path.join(top, 'build-bench', 'bin', 'mancala-server')));
const MOVES = Number(opt('--moves', '150'));
const SCALE = Number(opt('--scale', '1'));
const n = (x) => Math.max(1, Math.round(x * SCALE));

// ---- The abuses ---------------------------------------------------------------------------------
// Each is { name, start(server, v) -> state, stop(state) -> what it achieved }. They keep their
// pressure up for the whole measurement: connections the server closes are opened again
// (keepOpening, bench/kit.mjs).

const abuses = [
  {
    name: `${n(2000)} connections that never say hello`,
    start: (server) => keepOpening(server, n(2000), 50, 0),
    stop: async (s) => { await s.stop(); return `${s.opened} opened, ${s.closedByServer} closed by the hello deadline or limits, ${s.refused} refused`; },
  },
  {
    name: `${n(500)} that say hello and go silent`,
    start: (server) => keepOpening(server, n(500), 50, 100, async (ws, st) => {
      const r = await request(ws, { type: 'hello', name: 'silent' });
      if (!r || r.type !== 'welcome') st.helloRefused = (st.helloRefused || 0) + 1;
    }),
    stop: async (s) => { await s.stop(); return `${s.opened} opened, ${s.helloRefused || 0} hellos refused (new players per address and minute)`; },
  },
  {
    name: `${n(20)} clients flooding past the rate limit`,
    start: (server) => keepOpening(server, n(20), 1, 200, async (ws, st) => {
      const msg = JSON.stringify({ type: 'lobby', watch: false });
      while (live(ws) && !st.stopping) {
        if (ws.bufferedAmount > 1 << 20) { await sleep(10); continue; }
        for (let i = 0; i < 100 && live(ws); i++) ws.send(msg);
        st.sent = (st.sent || 0) + 100;
        await sleep(10);
      }
    }),
    stop: async (s) => { await s.stop(); return `${s.sent || 0} messages sent, ${s.closedByServer} connections closed (1008)`; },
  },
  {
    name: `${n(20)} clients sending oversize and fragmented frames`,
    start: (server) => {
      const big = 'x'.repeat(1 << 20);
      return keepOpening(server, n(20), 1, 300, async (ws, st) => {
        while (live(ws) && !st.stopping) {
          // As fast as the server takes them: no more than 2 MiB waiting in this process.
          if (ws.bufferedAmount > 2 << 20) { await sleep(20); continue; }
          ws.send(big);
          // A message in 4 KiB fragments that never ends.
          for (let i = 0; i < 64 && live(ws); i++) ws.send('y'.repeat(4096), { fin: false });
          st.sent = (st.sent || 0) + 1;
          await sleep(20);
        }
      });
    },
    stop: async (s) => { await s.stop(); return `${s.sent || 0} oversize frames sent, ${s.closedByServer} connections closed`; },
  },
  {
    name: `${n(60)} spectators spamming the victims' chat`,
    start: (server, v) => keepOpening(server, n(60), 60, 400, async (ws, st) => {
      await request(ws, { type: 'hello', name: 'spam' });
      const j = await request(ws, { type: 'join', room: v.room, role: 'spectator' });
      if (!j || j.type !== 'joined') { st.joinRefused = (st.joinRefused || 0) + 1; return; }
      const text = 'z'.repeat(300);
      while (live(ws) && !st.stopping) {
        ws.send(JSON.stringify({ type: 'chat', room: v.room, text }));
        st.sent = (st.sent || 0) + 1;
        await sleep(100);
      }
    }),
    stop: async (s) => { await s.stop(); return `${s.sent || 0} chat messages sent, ${s.joinRefused || 0} joins refused, ${s.closedByServer} spammers closed`; },
  },
  {
    name: `${n(300)} lobby watchers that never read, ${n(40)} clients churning public rooms`,
    start: (server) => {
      const readers = keepOpening(server, n(300), 30, 500, async (ws) => {
        await request(ws, { type: 'hello', name: 'slow' });
        ws.send(JSON.stringify({ type: 'lobby', watch: true }));
        ws._socket.pause(); // Never reads again: the server's queue for it fills.
      });
      const churn = keepOpening(server, n(40), 10, 600, async (ws, st) => {
        await request(ws, { type: 'hello', name: 'churn' });
        while (live(ws) && !st.stopping) {
          const j = await request(ws, { type: 'create', game: 'kalah', visibility: 'public' }, 5000);
          if (j && j.type === 'joined') await request(ws, { type: 'leave', room: j.room }, 5000);
          st.churned = (st.churned || 0) + 1;
          await sleep(150);
        }
      });
      return { readers, churn };
    },
    stop: async (s) => {
      await Promise.all([s.readers.stop(), s.churn.stop()]);
      return `${s.churn.churned || 0} rooms created and left; ${s.readers.closedByServer} slow readers closed`;
    },
  },
];

// ---- Main ---------------------------------------------------------------------------------------
// Each abuse runs in a worker thread, an event loop of its own, so that the attackers' work never
// delays the victims' timers and sockets in this one.

if (!isMainThread) {
  const ab = abuses[workerData.index];
  const srv = { url: workerData.url };
  const s = await ab.start(srv, { room: workerData.room });
  parentPort.postMessage('started');
  parentPort.once('message', async () => parentPort.postMessage(await ab.stop(s)));
} else {
  const server = await startServer(BIN);
  const v = await victimGame(server);
  await measure(v, 20); // Warm up.
  const idle = await measure(v, MOVES);
  const baseline = server.rss();
  const rows = [];
  const ms = (x) => x.toFixed(1);
  rows.push(`| idle | ${ms(idle.p50)} | ${ms(idle.p99)} | ${ms(idle.max)} | 1.0 | | 0 | ${(baseline / 1048576).toFixed(1)} MiB |`);
  for (let index = 0; index < abuses.length; index++) {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { index, url: server.url, room: v.room }, argv });
    const next = () => new Promise((r) => worker.once('message', r));
    await next();
    await sleep(1500); // The abuse at full strength.
    const errorsBefore = v.errors;
    const r = await measure(v, MOVES);
    worker.postMessage('stop');
    const what = await next();
    await worker.terminate();
    await sleep(3000);
    const rss = server.rss();
    rows.push(`| ${abuses[index].name} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ${(r.p99 / idle.p99).toFixed(1)} | ${what} | ${v.errors - errorsBefore} | ${(rss / 1048576).toFixed(1)} MiB (${rss >= baseline ? '+' : ''}${((rss - baseline) / 1048576).toFixed(1)}) |`);
    process.stderr.write(rows.at(-1) + '\n');
  }
  v.a.close();
  v.b.close();
  const exit = await server.stop();
  console.log(`Move round trip of a well-behaved game (${MOVES} moves per row, 10 moves/s), server ${path.relative(top, BIN)} with its default limits, ${os.cpus().length} cores:\n`);
  console.log('| abuse | p50 ms | p99 ms | max ms | p99 / idle | what the abuse did, how the server answered | victims\' errors | RSS after |');
  console.log('| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |');
  for (const row of rows) console.log(row);
  console.log(`\nserver exit: ${JSON.stringify(exit)}`);
}
