// Integration test harness: the real mancala-server on a free port of 127.0.0.1, and WebSocket
// clients that speak protocol v1 with the `ws` package. MANCALA_SERVER names the binary (ctest sets
// it); without it the sanitized build in build-server/ is used.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const here = path.dirname(fileURLToPath(import.meta.url));
const WEB = path.resolve(here, '../../web');
const BIN = process.env.MANCALA_SERVER || path.resolve(here, '../../build-server/bin/mancala-server');

// Generous limits by default so that tests are not rate limited unless they mean it: every client
// of a test comes from 127.0.0.1, one address for the per-address limits.
const FAST = ['--rate', '100000', '--burst', '100000', '--players-per-ip', '1000000', '--rooms-per-ip', '10000000',
  '--public-rooms-per-ip', '10000000', '--watchers-per-ip', '1000000', '--name-lookups-ip', '1000000'];

// MANCALA_TEST_PG names the directory of a PostgreSQL the tests started (tests/pg.sh): every server
// then stores in a database of its own there (--store), one per data directory, so that a restart
// on the same data finds the same database.
const PG_DIR = process.env.MANCALA_TEST_PG;
function pgStore(data) {
  const port = fs.readFileSync(path.join(PG_DIR, 'port'), 'utf8').trim();
  const db = 'it_' + path.basename(data).replace(/[^A-Za-z0-9]/g, '_').toLowerCase();
  const psql = (sql) => execFileSync('/usr/lib/postgresql/15/bin/psql',
    ['-h', '127.0.0.1', '-p', port, '-U', 'postgres', '-qtA', '-c', sql, 'postgres'], { encoding: 'utf8' });
  if (!psql(`SELECT 1 FROM pg_database WHERE datname = '${db}'`).trim()) psql(`CREATE DATABASE ${db} OWNER mancala`);
  return `postgresql://mancala@127.0.0.1:${port}/${db}`;
}
export const onPostgres = !!PG_DIR;

// Runs SQL on the database of the server of data directory `data` while no server uses it: the
// data directory's mancala.db, or on PostgreSQL the database of its own (pgStore()).
export function storeSql(data, sql) {
  if (!PG_DIR) return execFileSync('sqlite3', ['-cmd', '.timeout 5000', path.join(data, 'mancala.db'), sql], { encoding: 'utf8' });
  const url = new URL(pgStore(data));
  return execFileSync('/usr/lib/postgresql/15/bin/psql', ['-h', url.hostname, '-p', url.port, '-U', 'postgres',
    '-v', 'ON_ERROR_STOP=1', '-qtA', '-c', sql, url.pathname.slice(1)], { encoding: 'utf8' });
}

// Starts the server with extra args; resolves once it logs its port. Its data directory is a new
// one removed at exit, unless `data` names one to keep (restart tests). `wrap` runs it through a
// command that execs it, so that the pid stays the server's (['prlimit', '--nofile=256:256', '--']).
export function startServer(args = [], { fast = true, data: keep, wrap = [] } = {}) {
  const data = keep || fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-it-'));
  const store = PG_DIR ? ['--store', pgStore(data)] : [];
  const all = ['--port', '0', '--bind', '127.0.0.1', '--web', WEB, '--data', data, ...store, ...(fast ? FAST : []), ...args];
  // MANCALA_VALGRIND=1 runs the server under valgrind: any error or leak makes the exit non-zero.
  const child = process.env.MANCALA_VALGRIND
    ? spawn('valgrind', ['--error-exitcode=99', '--leak-check=full', '--show-leak-kinds=definite,indirect',
      '--errors-for-leak-kinds=definite,indirect', '--track-fds=no', BIN, ...all], { stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn(wrap.length ? wrap[0] : BIN, [...wrap.slice(1), ...(wrap.length ? [BIN] : []), ...all],
      { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => {
    // A sanitizer's report says why a test failed far better than the test can: shown in ctest's log.
    if (/AddressSanitizer|LeakSanitizer|runtime error:/.test(log)) process.stderr.write(`server log:\n${log.slice(-20000)}\n`);
    if (!keep) fs.rmSync(data, { recursive: true, force: true });
    resolve({ code, signal });
  }));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no port in the log:\n' + log)), 60000);
    child.stderr.on('data', (d) => {
      log += d;
      const m = log.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m && timer) {
        clearTimeout(timer);
        const port = Number(m[1]);
        resolve({
          port, child, exited,
          url: `ws://127.0.0.1:${port}/ws`,
          http: `http://127.0.0.1:${port}`,
          get log() { return log; },
          // SIGTERM; resolves with {code, signal}. A leak or a crash under the sanitizers is a
          // non-zero code, so every test checks a clean exit.
          async stop() {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            const kill = setTimeout(() => child.kill('SIGKILL'), 15000);
            const r = await exited;
            clearTimeout(kill);
            return r;
          },
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${log}`)));
  });
}

// The size in bytes of each frame a Client received, by its parsed message.
export const frameBytes = new WeakMap();

// A protocol client: every frame received goes to an inbox; next() takes the first match.
export class Client {
  constructor(ws) {
    this.ws = ws;
    this.inbox = [];
    this.waiters = [];
    this.nextId = 1;
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      frameBytes.set(msg, data.length);
      this.inbox.push(msg);
      this.wake();
    });
  }

  static async connect(server, { name, token, hello = true, protocol = 'mancala.v1', headers } = {}) {
    const ws = new WebSocket(server.url, protocol, headers ? { headers } : {});
    const c = new Client(ws);
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    if (hello) {
      const h = { type: 'hello' };
      if (name !== undefined) h.name = name;
      if (token !== undefined) h.token = token;
      c.me = await c.request(h);
      if (c.me.type !== 'welcome') throw new Error('no welcome: ' + JSON.stringify(c.me));
    }
    return c;
  }

  wake() {
    for (const w of [...this.waiters]) {
      const i = this.inbox.findIndex(w.pred);
      if (i >= 0) {
        const [msg] = this.inbox.splice(i, 1);
        this.waiters.splice(this.waiters.indexOf(w), 1);
        clearTimeout(w.timer);
        w.resolve(msg);
      }
    }
  }

  send(obj) { this.ws.send(typeof obj === 'string' ? obj : JSON.stringify(obj)); }

  // Resolves with the first frame (taken out of the inbox) that pred accepts.
  next(pred = () => true, ms = 10000) {
    const p = typeof pred === 'string' ? (m) => m.type === pred : pred;
    const i = this.inbox.findIndex(p);
    if (i >= 0) return Promise.resolve(this.inbox.splice(i, 1)[0]);
    return new Promise((resolve, reject) => {
      const w = { pred: p, resolve };
      w.timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        reject(new Error(`timeout waiting; inbox: ${JSON.stringify(this.inbox).slice(0, 2000)}`));
      }, ms);
      this.waiters.push(w);
    });
  }

  // Sends obj with a fresh id and resolves with the frame that echoes it (a reply or an error).
  request(obj, ms = 10000) {
    const id = this.nextId++;
    this.send({ ...obj, id });
    return this.next((m) => m.id === id, ms);
  }

  // The next state of room that pred accepts.
  state(room, pred = () => true, ms = 10000) {
    return this.next((m) => m.type === 'state' && m.room === room && pred(m), ms);
  }

  // Drops every frame received so far.
  drain() { this.inbox.length = 0; }

  close() { this.ws.close(); return this.closed; }
}

// The list of moves a client keeps from the states it gets (docs/protocol.md, "state"): a full
// state (with "moves") gives it whole; a state one ply further appends its "last"; the same ply
// keeps it; an earlier ply cuts it back (a move taken back); a later ply is a gap: null, ask for a
// "resync". list is the previous list of the same game (undefined: none yet).
export function followMoves(list, s) {
  if (Array.isArray(s.moves)) return s.moves.slice();
  if (list === undefined || list === null) return s.ply === 0 ? [] : null;
  // The pie rule's swap is a move without a house (docs/protocol.md, "The pie rule").
  const move = !s.last ? null
    : s.last.swap ? { seat: s.last.seat, house: null, swap: true } : { seat: s.last.seat, house: s.last.house };
  if (s.ply === list.length + 1 && move) return [...list, move];
  if (s.ply === list.length) return list;
  if (s.ply < list.length) {
    const cut = list.slice(0, s.ply);
    if (s.ply > 0 && move) cut[s.ply - 1] = move;
    return cut;
  }
  return null;
}

// Creates a room with a (South) and joins it with b; resolves with the code and the first states.
export async function pair(a, b, fields = {}) {
  const joined = await a.request({ type: 'create', game: 'kalah', seat: 'south', ...fields });
  if (joined.type !== 'joined') throw new Error(JSON.stringify(joined));
  const room = joined.room;
  const j2 = await b.request({ type: 'join', room });
  if (j2.type !== 'joined') throw new Error(JSON.stringify(j2));
  const st = await b.state(room, (s) => s.status === 'playing');
  await a.state(room, (s) => s.status === 'playing');
  return { room, state: st };
}

// Plays the first legal house until the game ends; seats maps "south"/"north" to clients.
// Resolves with the last state, the number of moves and the moves played, from each reply's last.
export async function playOut(room, seats, first) {
  let st = first;
  let moves = 0;
  const played = [];
  while (st.status === 'playing') {
    const mover = seats[st.turn];
    const reply = await mover.request({ type: 'move', room, house: st.legal[0], ply: st.ply });
    if (reply.type !== 'state') throw new Error('move refused: ' + JSON.stringify(reply));
    st = reply;
    played.push({ seat: st.last.seat, house: st.last.house });
    moves++;
  }
  return { state: st, moves, played };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
