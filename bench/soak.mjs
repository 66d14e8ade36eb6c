// The soak (issue 25, "the long runs"): one command,
//
//   node bench/soak.mjs [--server BIN] [--games 20000] [--minutes 30] [--max-minutes 45] [--pairs 120]
//                       [--think 60-250] [--spectators 60] [--watchers 20] [--reconnect 0.1]
//                       [--out docs/soak] [--sample-s 5] [--finished-room-ms 600000]
//
// starts BIN (default build-bench/bin/mancala-server, a Release build) on a free port of
// 127.0.0.1 with its default limits except the per-address ones (everything comes from one
// address here; the soak is about what the server keeps, not about its defences), and plays until
// both GAMES games have finished and MINUTES minutes have passed (at most MAX_MINUTES):
//
// - PAIRS pairs of players, each playing game after game: a room (public or private; Kalah 6x4
//   and 4x3, Oware, Congkak), up to three games in it by rematch, then both leave and the next
//   room; random legal moves after a think time in THINK ms; a chat line every few moves. With
//   probability RECONNECT per game one player drops its connection before a move and comes back
//   with its token a moment later: it must get its seat back (a `joined` and the full state,
//   unasked) and plays on.
// - SPECTATORS connections watching the rooms being played, one after another, chatting now and
//   then; WATCHERS lobby watchers (changes mode, applying every revision, reconnecting every
//   minute).
// - Nothing lost: every move a player sent and saw acknowledged (the state answering it) is
//   remembered per game; when the game ends its archive (GET /api/games/ID, the finished state's
//   game_id) must hold exactly those moves in that order. Every game is checked.
// - Every SAMPLE seconds: the server's RSS (/proc/PID/status VmRSS), its open files (/proc/PID/fd),
//   its CPU, games and moves so far, and the rooms and players it holds (its /metrics). Written to OUT.dat and plotted (gnuplot, bench/soak.gp) to
//   OUT.svg.
//
// It prints a Markdown summary: games, moves checked, lost or mismatched moves (must be 0),
// reconnects and seats back, RSS and open files at the start, after the warm-up (the first
// finished-room lifetime, --finished-room-ms, the server's default 10 minutes unless given:
// finished rooms are kept that long for a rematch) and at the end, and the server's exit status.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { live, open, options, request, sleep, startServer, top } from './kit.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { opt } = options();
const BIN = path.resolve(opt('--server', path.join(top, 'build-bench', 'bin', 'mancala-server')));
const GAMES = Number(opt('--games', '20000'));
const MINUTES = Number(opt('--minutes', '30'));
const MAX_MINUTES = Number(opt('--max-minutes', '45'));
const PAIRS = Number(opt('--pairs', '120'));
const [THINK_MIN, THINK_MAX] = opt('--think', '60-250').split('-').map(Number);
const SPECTATORS = Number(opt('--spectators', '60'));
const WATCHERS = Number(opt('--watchers', '20'));
const RECONNECT = Number(opt('--reconnect', '0.1'));
const OUT = path.resolve(top, opt('--out', 'docs/soak'));
const SAMPLE_S = Number(opt('--sample-s', '5'));
const FINISHED_ROOM_MS = Number(opt('--finished-room-ms', '600000'));
// The warm-up: a finished room is kept --finished-room-ms for a rematch, so the rooms in memory
// grow for that long (at a steady rate of games).
const WARMUP_S = Number(opt('--warmup-s', String(Math.max(60, FINISHED_ROOM_MS / 1000))));

const rand = (n) => Math.floor(Math.random() * n);
const think = () => sleep(THINK_MIN + rand(THINK_MAX - THINK_MIN + 1));
const log = (...a) => console.error(`soak ${new Date().toISOString().slice(11, 19)}:`, ...a);

// ---- Counters ---------------------------------------------------------------------------------

const c = {
  games: 0, movesAcked: 0, movesChecked: 0, gamesChecked: 0, lost: 0, mismatched: 0, extra: 0,
  archiveErrors: 0, refused: {}, unanswered: 0, chats: 0, chatsRefused: 0, reconnects: 0, seatsBack: 0,
  seatsLost: 0, drops: 0, spectated: 0, spectatorFrames: 0, lobbyFrames: 0, lobbyGaps: 0, lobbyResnaps: 0,
  watcherReconnects: 0, aborted: 0,
};
const refuse = (code) => { c.refused[code] = (c.refused[code] || 0) + 1; };
const activeRooms = new Set(); // Rooms being played, for the spectators.
let stopping = false;

// ---- The archive check ---------------------------------------------------------------------------

const checks = [];
let checking = 0;
let server;

// Compares the archive of a finished game with the moves its players saw acknowledged.
async function checkGame(gameId, acked, plies) {
  let g = null;
  for (let attempt = 0; attempt < 5 && !g; attempt++) {
    try {
      const r = await fetch(`${server.http}/api/games/${gameId}`);
      if (r.ok) g = await r.json();
      else if (r.status !== 429 && r.status !== 503) { c.archiveErrors++; log(`archive ${gameId}: ${r.status}`); return; }
    } catch (e) { /* retried */ }
    if (!g) await sleep(500 * (attempt + 1));
  }
  if (!g) { c.archiveErrors++; return; }
  c.gamesChecked++;
  const moves = g.moves || [];
  if (moves.length !== plies) c.extra += Math.max(0, moves.length - plies);
  for (const [ply, mv] of acked) {
    const a = moves[ply];
    if (!a) c.lost++;
    else if (a.seat !== mv.seat || (a.house ?? null) !== (mv.house ?? null)) c.mismatched++;
    else c.movesChecked++;
  }
}

function queueCheck(gameId, acked, plies) {
  checks.push([gameId, acked, plies]);
  pump();
}
function pump() {
  while (checking < 4 && checks.length > 0) {
    const [id, acked, plies] = checks.shift();
    checking++;
    checkGame(id, acked, plies).finally(() => { checking--; pump(); });
  }
}

// ---- Players ------------------------------------------------------------------------------------

const BOARDS = [
  { game: 'kalah', w: 5 }, { game: 'kalah', houses: 4, seeds: 3, w: 3 }, { game: 'oware', w: 1 }, { game: 'congkak', w: 1 },
];
function pickBoard() {
  let r = rand(BOARDS.reduce((s, b) => s + b.w, 0));
  for (const b of BOARDS) { if ((r -= b.w) < 0) return b; }
  return BOARDS[0];
}

// A player: a connection that can drop and come back with its token.
async function connectPlayer(name, token) {
  for (let attempt = 0; attempt < 20; attempt++) {
    const ws = await open(server);
    if (live(ws)) {
      const w = await request(ws, token ? { type: 'hello', token } : { type: 'hello', name });
      if (w && w.type === 'welcome') return { ws, token: w.token, id: w.player, resumed: w.resumed };
      ws.terminate();
    }
    await sleep(500);
  }
  throw new Error(`${name}: cannot connect`);
}

// One pair's life: rooms and games until the soak stops.
async function pair(k) {
  const p = [await connectPlayer(`Soak ${k}a`), await connectPlayer(`Soak ${k}b`)];
  while (!stopping) {
    const board = pickBoard();
    const { w, ...create } = board;
    const created = await request(p[0].ws, { type: 'create', ...create, seat: 'random', visibility: rand(2) ? 'public' : 'private' });
    if (!created || created.type !== 'joined') { refuse(created ? created.code : 'create-unanswered'); await sleep(1000); continue; }
    const room = created.room;
    const joined = await request(p[1].ws, { type: 'join', room });
    if (!joined || joined.type !== 'joined') { refuse(joined ? joined.code : 'join-unanswered'); await request(p[0].ws, { type: 'leave', room }); continue; }
    activeRooms.add(room);
    for (let game = 0; game < 3 && !stopping; game++) {
      if (game > 0) {
        await request(p[0].ws, { type: 'rematch', room });
        const r = await request(p[1].ws, { type: 'rematch', room });
        if (!r || r.type !== 'state') { refuse(r ? r.code : 'rematch-unanswered'); break; }
      }
      if (!(await playGame(p, room))) break;
    }
    activeRooms.delete(room);
    for (const x of p) if (live(x.ws)) await request(x.ws, { type: 'leave', room });
  }
  for (const x of p) x.ws.close();
}

// Plays one game of room to its end; returns false when the room cannot go on.
async function playGame(p, room) {
  let st = await request(p[0].ws, { type: 'resync', room });
  if (!st || st.type !== 'state') { c.unanswered++; return false; }
  const gameNo = st.game_no;
  const acked = new Map(); // ply -> { seat, house }
  let dropThisGame = Math.random() < RECONNECT;
  const dropAt = 2 + rand(20);
  let sinceChat = rand(8);
  while (st.status === 'playing' && !stopping) {
    const seat = st.turn;
    const mover = p.findIndex((x) => st.players[seat] && st.players[seat].id === x.id);
    if (mover < 0) { c.unanswered++; return false; }
    await think();
    if (dropThisGame && st.ply >= dropAt) {
      dropThisGame = false;
      const back = await reconnect(p, mover, room);
      if (!back) return false;
      if (back.ply !== st.ply) { refuse('reconnect-ply'); }
      st = back;
      continue;
    }
    if (--sinceChat <= 0) {
      sinceChat = 6 + rand(6);
      const r = await request(p[mover].ws, { type: 'chat', room, text: `move ${st.ply} in ${room}` }, 10000);
      if (r && r.type === 'chat') c.chats++;
      else c.chatsRefused++;
    }
    const house = st.legal[rand(st.legal.length)];
    const r = await request(p[mover].ws, { type: 'move', room, house, ply: st.ply });
    if (!r) { c.unanswered++; return false; }
    if (r.type !== 'state') {
      refuse(r.code);
      const again = await request(p[mover].ws, { type: 'resync', room });
      if (!again || again.type !== 'state') return false;
      st = again;
      continue;
    }
    acked.set(st.ply, { seat, house });
    c.movesAcked++;
    st = r;
  }
  if (st.status !== 'finished') return false;
  c.games++;
  if (st.game_id) queueCheck(st.game_id, acked, st.ply);
  else c.aborted++;
  return st.game_no === gameNo;
}

// Player i of p drops its connection and comes back with its token; resolves with the room's
// state as the server sends it unasked after the resumed welcome (null: the seat was lost).
async function reconnect(p, i, room) {
  c.reconnects++;
  p[i].ws.terminate();
  await sleep(100 + rand(900));
  const ws = await open(server);
  if (!live(ws)) { c.seatsLost++; return null; }
  const joined = new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), 15000);
    let seen = false;
    ws.onFrame = (m) => {
      if (m.type === 'joined' && m.room === room && m.role === 'player') seen = true;
      if (seen && m.type === 'state' && m.room === room && Array.isArray(m.moves)) { clearTimeout(timer); ws.onFrame = null; resolve(m); }
    };
  });
  const w = await request(ws, { type: 'hello', token: p[i].token });
  if (!w || w.type !== 'welcome' || !w.resumed || w.player !== p[i].id) { c.seatsLost++; ws.terminate(); return null; }
  const st = await joined;
  p[i].ws = ws;
  if (!st) { c.seatsLost++; return null; }
  c.seatsBack++;
  return st;
}

// ---- Spectators and lobby watchers ----------------------------------------------------------------

async function spectator(k) {
  let ws = null;
  while (!stopping) {
    if (!ws || !live(ws)) {
      ws = await open(server);
      if (!live(ws) || !(await request(ws, { type: 'hello', name: `Watcher ${k}` }))) { c.drops++; await sleep(1000); continue; }
      ws.onFrame = (m) => { if (m.type === 'state' && m.id === undefined) c.spectatorFrames++; };
    }
    const rooms = [...activeRooms];
    if (rooms.length === 0) { await sleep(500); continue; }
    const room = rooms[rand(rooms.length)];
    const j = await request(ws, { type: 'join', room, role: 'spectator' });
    if (!j || j.type !== 'joined') { await sleep(200); continue; }
    c.spectated++;
    const until = Date.now() + 10000 + rand(20000);
    while (Date.now() < until && !stopping && activeRooms.has(room) && live(ws)) {
      await sleep(2000 + rand(3000));
      if (rand(4) === 0 && live(ws)) {
        const r = await request(ws, { type: 'chat', room, text: `spectator ${k} says hi` }, 10000);
        if (r && r.type === 'chat') c.chats++;
        else c.chatsRefused++;
      }
    }
    if (live(ws)) await request(ws, { type: 'leave', room }, 10000);
  }
  if (ws) ws.close();
}

async function lobbyWatcher(k) {
  while (!stopping) {
    const ws = await open(server);
    if (!live(ws)) { c.drops++; await sleep(1000); continue; }
    await request(ws, { type: 'hello', name: `Lobby ${k}` });
    let rev = null;
    ws.onFrame = (m) => {
      if (m.type === 'lobby' && m.rev !== undefined) { rev = m.rev; c.lobbyFrames++; }
      else if (m.type === 'lobby_changes') {
        c.lobbyFrames++;
        if (rev !== null && m.rev !== rev + 1) {
          c.lobbyGaps++;
          rev = null;
          c.lobbyResnaps++;
          ws.send(JSON.stringify({ type: 'lobby', changes: true }));
        } else if (rev !== null) rev = m.rev;
      }
    };
    ws.send(JSON.stringify({ type: 'lobby', changes: true }));
    const until = Date.now() + 50000 + rand(20000);
    while (Date.now() < until && !stopping && live(ws)) await sleep(500);
    ws.terminate();
    if (!stopping) c.watcherReconnects++;
  }
}

// ---- Sampling -------------------------------------------------------------------------------------

const samples = [];
// The rooms and players in memory, from the server's /metrics (what RSS should follow: a
// finished room is kept --finished-room-ms for a rematch).
let gauges = { rooms: NaN, players: NaN };
async function pollGauges() {
  try {
    const text = await (await fetch(`${server.http}/metrics`)).text();
    const rooms = [...text.matchAll(/^mancala_rooms\{status="\w+"\} (\d+)/gm)].reduce((a, m) => a + Number(m[1]), 0);
    const players = Number((text.match(/^mancala_players (\d+)/m) || [])[1]);
    gauges = { rooms, players };
  } catch { /* the next poll */ }
}
function sample(t0) {
  try {
    samples.push({ t: (Date.now() - t0) / 1000, rss: server.rss() / 1048576, fds: server.fds(), cpu: server.cpuSeconds(),
      games: c.games, moves: c.movesAcked, rooms: gauges.rooms, players: gauges.players });
  } catch { /* the server is gone: the exit status tells */ }
  pollGauges();
}

// ---- Main -----------------------------------------------------------------------------------------

server = await startServer(BIN, ['--finished-room-ms', String(FINISHED_ROOM_MS), '--players-per-ip', '1000000', '--max-per-ip', '100000', '--rooms-per-ip', '10000000',
  '--public-rooms-per-ip', '10000000', '--watchers-per-ip', '100000']);
log(`server pid ${server.pid} on ${server.url}; ${PAIRS} pairs, ${SPECTATORS} spectators, ${WATCHERS} lobby watchers; ` +
  `until ${GAMES} games and ${MINUTES} minutes`);
const t0 = Date.now();
sample(t0);
const sampler = setInterval(() => sample(t0), SAMPLE_S * 1000);
const progress = setInterval(() => {
  const s = samples.at(-1);
  log(`${((Date.now() - t0) / 60000).toFixed(1)} min: ${c.games} games, ${c.movesAcked} moves, checked ${c.gamesChecked} ` +
    `(${c.lost} lost, ${c.mismatched} mismatched), reconnects ${c.reconnects} (back ${c.seatsBack}), RSS ${s.rss.toFixed(1)} MiB, ` +
    `fds ${s.fds}, refused ${JSON.stringify(c.refused)}`);
}, 60000);
const stagger = async (n, f, ms) => Promise.all(Array.from({ length: n }, async (_, k) => { await sleep((k * ms) / n); return f(k); }));
const crowd = Promise.all([
  stagger(PAIRS, pair, 5000),
  stagger(SPECTATORS, spectator, 5000),
  stagger(WATCHERS, lobbyWatcher, 5000),
]);
while ((c.games < GAMES || Date.now() - t0 < MINUTES * 60000) && Date.now() - t0 < MAX_MINUTES * 60000 &&
  !server.exited) await sleep(1000);
stopping = true;
const elapsed = (Date.now() - t0) / 1000;
await Promise.race([crowd, sleep(60000)]);
while (checks.length > 0 || checking > 0) await sleep(200);
sample(t0);
clearInterval(sampler);
clearInterval(progress);
const cpu = server.cpuSeconds();
const exit = await server.stop();

// ---- Output ---------------------------------------------------------------------------------------

const dat = `${OUT}.dat`;
fs.mkdirSync(path.dirname(dat), { recursive: true });
fs.writeFileSync(dat, [
  `# bench/soak.mjs: ${PAIRS} pairs (think ${THINK_MIN}-${THINK_MAX} ms), ${SPECTATORS} spectators, ${WATCHERS} lobby watchers, reconnect ${RECONNECT} per game`,
  `# ${os.cpus().length} x ${os.cpus()[0]?.model ?? '?'}; ${new Date(t0).toISOString()}; server ${path.relative(top, BIN)}`,
  '# seconds rss_mib open_files server_cpu_s games moves rooms_in_memory players_in_memory',
  ...samples.map((s) => [s.t.toFixed(1), s.rss.toFixed(2), s.fds, s.cpu.toFixed(2), s.games, s.moves, s.rooms, s.players].join(' ')),
].join('\n') + '\n');
try {
  execFileSync('gnuplot', ['-e', `datafile='${dat}'; outfile='${OUT}.svg'; warmup=${WARMUP_S}`, path.join(here, 'soak.gp')],
    { stdio: ['ignore', 'ignore', 'inherit'] });
} catch (e) { log(`gnuplot: ${e.message}`); }

const at = (t) => samples.reduce((best, s) => (Math.abs(s.t - t) < Math.abs(best.t - t) ? s : best), samples[0]);
const after = samples.filter((s) => s.t >= WARMUP_S);
const stats = (xs) => ({ min: Math.min(...xs), max: Math.max(...xs) });
const first = samples[0], warm = at(WARMUP_S), last = samples.at(-1);
// The slope of RSS over the samples after the warm-up (least squares), MiB per hour.
function slope(pts, f) {
  if (pts.length < 2) return NaN;
  const n = pts.length, mx = pts.reduce((a, s) => a + s.t, 0) / n, my = pts.reduce((a, s) => a + f(s), 0) / n;
  const num = pts.reduce((a, s) => a + (s.t - mx) * (f(s) - my), 0), den = pts.reduce((a, s) => a + (s.t - mx) ** 2, 0);
  return (num / den) * 3600;
}
const f1 = (v) => v.toFixed(1);
console.log(`### Soak: ${c.games.toLocaleString('en-US')} games in ${f1(elapsed / 60)} minutes\n`);
console.log(`Finished rooms kept ${FINISHED_ROOM_MS / 1000} s for a rematch (--finished-room-ms); warm-up ${WARMUP_S} s. ` +
  `${PAIRS} pairs playing (think ${THINK_MIN}-${THINK_MAX} ms; Kalah 6x4 and 4x3, Oware, Congkak; public and private rooms; ` +
  `up to 3 games a room by rematch), ${SPECTATORS} spectators, ${WATCHERS} lobby watchers (changes), one player in ` +
  `${Math.round(1 / RECONNECT)} games reconnecting with its token; server ${path.relative(top, BIN)}, ${os.cpus().length} cores.\n`);
console.log('| figure | value |');
console.log('| --- | ---: |');
const row = (k, v) => console.log(`| ${k} | ${v} |`);
row('games finished', c.games.toLocaleString('en-US'));
row('games aborted (no archive)', c.aborted);
row('moves acknowledged', c.movesAcked.toLocaleString('en-US'));
row('games checked against the archive', c.gamesChecked.toLocaleString('en-US'));
row('moves checked, found in order', c.movesChecked.toLocaleString('en-US'));
row('acknowledged moves missing from the archive', c.lost);
row('moves that differ from the archive', c.mismatched);
row('archive moves never acknowledged', c.extra);
row('archive lookups failed', c.archiveErrors);
row('requests refused (by code)', JSON.stringify(c.refused));
row('requests unanswered', c.unanswered);
row('reconnects with a token / seats back / seats lost', `${c.reconnects} / ${c.seatsBack} / ${c.seatsLost}`);
row('chat lines said / refused', `${c.chats} / ${c.chatsRefused}`);
row('rooms spectated / spectator states', `${c.spectated} / ${c.spectatorFrames}`);
row('lobby frames / revision gaps / watcher reconnects', `${c.lobbyFrames} / ${c.lobbyGaps} / ${c.watcherReconnects}`);
row('RSS MiB: start / after warm-up / end', `${f1(first.rss)} / ${f1(warm.rss)} / ${f1(last.rss)}`);
if (after.length) row('RSS MiB after warm-up: min / max; slope MiB per hour', `${f1(stats(after.map((s) => s.rss)).min)} / ${f1(stats(after.map((s) => s.rss)).max)}; ${f1(slope(after, (s) => s.rss))}`);
row('rooms in memory (/metrics): after warm-up / end of play', `${warm.rooms} / ${samples.at(-2)?.rooms}`);
if (after.length) row('rooms in memory after warm-up: min / max', `${stats(after.map((s) => s.rooms).filter((x) => x === x)).min} / ${stats(after.map((s) => s.rooms).filter((x) => x === x)).max}`);
row('open files: start / after warm-up / end', `${first.fds} / ${warm.fds} / ${last.fds}`);
if (after.length) row('open files after warm-up: min / max', `${stats(after.map((s) => s.fds)).min} / ${stats(after.map((s) => s.fds)).max}`);
row('server CPU', `${f1(cpu)} s (${f1((100 * cpu) / elapsed)}% of a core)`);
row('server exit', JSON.stringify(exit));
console.log(`\nData: ${path.relative(top, dat)}; plot: ${path.relative(top, OUT)}.svg`);
process.exit(0);
