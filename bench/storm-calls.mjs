// What one close and one return of a reconnect storm cost the server (issue 25; docs/security.md,
// "Abuse at scale"): its CPU and its system calls, the drop and the return measured apart.
//
//   node bench/storm-calls.mjs [--players 5000] [--server BIN] [--calls] [-- SERVER ARGS...]
//
// Starts BIN (default build-bench/bin/mancala-server, a Release build) with its default limits
// (or the arguments after `--`), seats PLAYERS players two a private Kalah room (each game started:
// two moves), then:
// - drop: every player drops its connection at once (as bench/scale.mjs storm);
// - return: every player comes back with its token at a random moment within the next second, and
//   is back when it has its resumed welcome and its room's full state.
// For each phase (from 1.5 s before until 1.5 s after it) it prints the server's CPU (its main
// thread, /proc/PID/schedstat) per player and, with --calls, the system calls the server made per
// player, counted by the kernel's syscall tracepoints (`perf stat -e syscalls:sys_enter_*`, root;
// unlike strace they do not slow every call down). No victims: bench/scale.mjs storm measures
// what the storm does to other players.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { addr, live, open, options, request, sleep, startServer, top } from './kit.mjs';

const { argv, opt, flag } = options();
const BIN = path.resolve(opt('--server', path.join(top, 'build-bench', 'bin', 'mancala-server')));
const PLAYERS = Number(opt('--players', '5000'));
const CALLS = flag('--calls');
const ARGS = argv.includes('--') ? argv.slice(argv.indexOf('--') + 1) : [];
const NAMES = ['recvfrom', 'sendto', 'shutdown', 'close', 'epoll_ctl', 'epoll_wait', 'accept', 'ioctl',
  'poll', 'getpeername', 'setsockopt', 'fcntl', 'write', 'read'];

const server = await startServer(BIN, ARGS);
const players = [];
const setupPair = async (k) => {
  const from = addr(Math.floor((2 * k) / 50)); // 50 players an address (--max-per-ip is 64).
  const a = await open(server, from), b = await open(server, from);
  const ha = await request(a, { type: 'hello', name: `Storm ${2 * k}` });
  const hb = await request(b, { type: 'hello', name: `Storm ${2 * k + 1}` });
  const j = await request(a, { type: 'create', game: 'kalah', seat: 'south', visibility: 'private' });
  await request(b, { type: 'join', room: j.room });
  let st = await request(a, { type: 'resync', room: j.room });
  for (let i = 0; i < 2; i++) {
    const mover = st.players[st.turn].id === ha.player ? a : b;
    st = await request(mover, { type: 'move', room: j.room, house: st.legal[0], ply: st.ply });
  }
  players.push({ ws: a, token: ha.token, from }, { ws: b, token: hb.token, from });
};
for (let k = 0; k < PLAYERS / 2; k += 50) {
  await Promise.all(Array.from({ length: Math.min(50, PLAYERS / 2 - k) }, (_, i) => setupPair(k + i)));
}
const cpuNs = () => Number(fs.readFileSync(`/proc/${server.pid}/schedstat`, 'utf8').split(' ')[0]);

async function phase(name, fn) {
  const out = path.join(fs.mkdtempSync('/tmp/storm-calls-'), 'stat');
  const stat = CALLS ? spawn('perf', ['stat', '-x', ',', '-o', out, '-e',
    NAMES.map((n) => `syscalls:sys_enter_${n}`).join(','), '-p', String(server.pid)], { stdio: 'ignore' }) : null;
  await sleep(1500);
  const c0 = cpuNs();
  const what = await fn();
  await sleep(1500);
  const us = (cpuNs() - c0) / 1e3;
  let calls = '';
  if (stat) {
    stat.kill('SIGINT');
    await new Promise((r) => stat.once('exit', r));
    calls = fs.readFileSync(out, 'utf8').split('\n').filter((l) => l.includes('syscalls:'))
      .map((l) => l.split(',')).filter((f) => Number(f[0]) > 0)
      .map((f) => `${f[2].replace('syscalls:sys_enter_', '')} ${(Number(f[0]) / players.length).toFixed(2)}`).join(', ');
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }
  console.log(`${name}: server CPU ${(us / 1000).toFixed(1)} ms, ${(us / players.length).toFixed(1)} us a player` +
    `${what ? `; ${what}` : ''}${calls ? `\n  system calls a player: ${calls}` : ''}`);
}

try {
  console.log(`${players.length} players seated; server ${path.relative(top, BIN)} ${ARGS.join(' ')}`);
  await sleep(1000);
  await phase('drop', async () => { for (const p of players) p.ws.terminate(); });
  let back = 0;
  await phase('return', async () => {
    await Promise.all(players.map(async (p) => {
      await sleep(Math.random() * 1000);
      const ws = await open(server, p.from);
      p.ws = ws;
      if (!live(ws)) return;
      const full = new Promise((resolve) => {
        const t = setTimeout(() => resolve(false), 20000);
        ws.onFrame = (m) => { if (m.type === 'state' && Array.isArray(m.moves)) { clearTimeout(t); resolve(true); } };
      });
      const w = await request(ws, { type: 'hello', token: p.token });
      if (w && w.resumed && (await full)) back++;
    }));
    return `${back} of ${players.length} back`;
  });
  for (const p of players) p.ws.terminate();
  await sleep(500);
} finally {
  console.log(`server exit: ${JSON.stringify(await server.stop())}`);
}
