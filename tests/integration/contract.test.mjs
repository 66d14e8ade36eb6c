// Black-box conformance suite: the real server against ../shared/protocol-v1.md (the external
// contract) and the server issue's requirements. Written from the contract and the rule book
// only, without the server's sources or the other integration tests, so that it catches the
// places where the server and the contract disagree. Self-contained: node:test, node:assert and
// ws, nothing else. The server binary comes from MANCALA_SERVER (set by ctest).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SERVER = process.env.MANCALA_SERVER ||
  ['build-contract', 'build', 'build-server']
    .map((d) => path.join(ROOT, d, 'bin', 'mancala-server'))
    .find((p) => existsSync(p));
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const CODE_RE = new RegExp(`^[${CODE_ALPHABET}]{6}$`);
const SEATS = ['south', 'north'];
const REASONS = ['no_seeds', 'majority', 'cannot_feed', 'repetition', 'resignation', 'timeout',
  'agreement', 'abandoned'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const startPits = (m, n) => [...Array(m).fill(n), 0, ...Array(m).fill(n), 0];
let uniq = 0;
const uname = (base) => `${base}${++uniq}`.slice(0, 24);

// ---- the server -------------------------------------------------------------------------------
async function startServer(args = [], keepData = null) {
  assert.ok(SERVER, 'no server binary: set MANCALA_SERVER');
  const data = keepData ?? mkdtempSync(path.join(tmpdir(), 'mancala-contract-'));
  // Every client of this suite comes from 127.0.0.1: the server's per-address limits (an
  // addition, docs/server.md) are raised so that they do not count the whole suite as one user.
  const perAddress = ['--players-per-ip', '1000000', '--rooms-per-ip', '10000000', '--public-rooms-per-ip', '10000000',
    '--watchers-per-ip', '1000000'];
  const proc = spawn(SERVER, ['--port', '0', '--bind', '127.0.0.1', '--data', data, ...perAddress, ...args],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 15000);
    proc.stderr.on('data', (d) => {
      log += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(log);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${code}:\n${log}`));
    });
  });
  const exited = new Promise((r) => proc.on('exit', (code, sig) => r({ code, sig })));
  return {
    port,
    http: `http://127.0.0.1:${port}`,
    log: () => log,
    data,
    async stop({ keep = false } = {}) {
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 10000);
      const r = await exited;
      clearTimeout(t);
      if (!keep) rmSync(data, { recursive: true, force: true });
      return r;
    },
  };
}

// ---- a WebSocket client with an inbox -----------------------------------------------------------
let nextId = 1;
class Client {
  constructor(ws) {
    this.ws = ws;
    this.inbox = [];
    this.waiters = [];
    this.seq = 0;
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        this.isClosed = true;
        resolve({ code, reason: String(reason) });
      });
    });
    ws.on('message', (data, isBinary) => {
      let msg;
      try {
        msg = JSON.parse(String(data));
      } catch {
        msg = { type: '<unparsable>', raw: String(data), isBinary };
      }
      Object.defineProperty(msg, '_seq', { value: ++this.seq, enumerable: false });
      const i = this.waiters.findIndex((w) => w.pred(msg));
      if (i < 0) { this.inbox.push(msg); return; }
      const [w] = this.waiters.splice(i, 1);
      clearTimeout(w.timer);
      w.resolve(msg);
    });
    ws.on('error', () => {});
  }

  static async open(srv, protocol = 'mancala.v1') {
    const url = `ws://127.0.0.1:${srv.port}/ws`;
    const ws = new WebSocket(url, protocol === null ? undefined : protocol);
    const c = new Client(ws);
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    return c;
  }

  send(obj) { this.ws.send(typeof obj === 'string' ? obj : JSON.stringify(obj)); }

  next(pred, timeout = 4000, what = 'a message') {
    const i = this.inbox.findIndex(pred);
    if (i >= 0) return Promise.resolve(this.inbox.splice(i, 1)[0]);
    return new Promise((resolve, reject) => {
      const w = { pred, resolve };
      w.timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        const inbox = JSON.stringify(this.inbox).slice(-1500);
        reject(new Error(`timed out waiting for ${what}; inbox: ${inbox}`));
      }, timeout);
      this.waiters.push(w);
    });
  }

  // Sends a request with an id and resolves with the first frame echoing that id.
  // With keep, the reply also stays in the inbox (for replies that are states).
  async req(obj, timeout, keep = false) {
    const id = obj.id ?? `r${nextId++}`;
    this.send({ ...obj, id });
    const what = `the reply to ${JSON.stringify(obj).slice(0, 200)}`;
    const m = await this.next((x) => x.id === id, timeout, what);
    if (keep) {
      const i = this.inbox.findIndex((x) => x._seq > m._seq);
      this.inbox.splice(i < 0 ? this.inbox.length : i, 0, m);
    }
    return m;
  }

  async error(obj, code) {
    const m = await this.req(obj);
    const sent = JSON.stringify(obj).slice(0, 200);
    assert.equal(m.type, 'error', `expected an error for ${sent}, got ${JSON.stringify(m)}`);
    assert.equal(typeof m.code, 'string');
    if (code) assert.equal(m.code, code, `error code for ${sent}: ${JSON.stringify(m)}`);
    return m;
  }

  state(room, pred = () => true, timeout) {
    return this.next((m) => m.type === 'state' && sameCode(m.room, room) && pred(m), timeout,
      `a state of ${room}`);
  }

  // Asserts that no frame matching pred arrives within ms (frames already queued count too).
  async none(pred, ms = 400, what = 'frame') {
    await sleep(ms);
    const hit = this.inbox.find(pred);
    assert.equal(hit, undefined, `unexpected ${what}: ${JSON.stringify(hit)}`);
  }

  drain() { this.inbox.length = 0; }

  close() { this.ws.close(); return this.closed; }
}

const sameCode = (a, b) =>
  typeof a === 'string' && typeof b === 'string' && a.toUpperCase() === b.toUpperCase();

async function hello(srv, name, extra = {}) {
  const c = await Client.open(srv);
  const w = await c.req({ type: 'hello', ...(name === undefined ? {} : { name }), ...extra });
  assert.equal(w.type, 'welcome', JSON.stringify(w));
  c.welcome = w;
  c.name = w.name;
  return c;
}

// create: resolves with { joined, state } checking the order joined, then state.
async function create(c, fields) {
  const joined = await c.req({ type: 'create', ...fields });
  assert.equal(joined.type, 'joined',
    `create ${JSON.stringify(fields)}: ${JSON.stringify(joined)}`);
  const state = await c.state(joined.room);
  assert.ok(state._seq > joined._seq, 'joined comes before state');
  checkState(state);
  return { joined, state, room: joined.room };
}

// A two-player room: a is South, b is North, both saw the playing state.
async function pair(srv, fields = {}, names = ['South', 'North']) {
  const a = await hello(srv, uname(names[0]));
  const b = await hello(srv, uname(names[1]));
  const { room } = await create(a, { game: 'kalah', seat: 'south', ...fields });
  const j = await b.req({ type: 'join', room, role: 'player' });
  assert.equal(j.type, 'joined', JSON.stringify(j));
  assert.equal(j.seat, 'north');
  const sa = await a.state(room, (s) => s.status === 'playing');
  const sb = await b.state(room, (s) => s.status === 'playing');
  checkState(sa); checkState(sb);
  return { a, b, room, state: sa };
}

function isInt(x) { return Number.isInteger(x); }

// Every field of the contract's state, with its type and the invariants the contract states.
function checkState(s) {
  const where = JSON.stringify(s);
  assert.equal(s.type, 'state');
  assert.ok(CODE_RE.test(String(s.room).toUpperCase()), `room code ${s.room}`);
  assert.ok(['kalah', 'oware', 'congkak'].includes(s.game), `game in ${where}`);
  assert.ok(isInt(s.houses) && s.houses >= 1 && s.houses <= 9, `houses in ${where}`);
  assert.ok(isInt(s.seeds) && s.seeds >= 1 && s.seeds <= 12, `seeds in ${where}`);
  assert.ok(s.options && typeof s.options === 'object' && !Array.isArray(s.options),
    `options in ${where}`);
  assert.ok(['waiting', 'playing', 'finished'].includes(s.status), `status in ${where}`);
  assert.ok(isInt(s.ply) && s.ply >= 0, `ply in ${where}`);
  assert.ok([...SEATS, null].includes(s.turn), `turn in ${where}`);
  const m = s.houses;
  assert.ok(Array.isArray(s.pits) && s.pits.length === 2 * m + 2, `pits length in ${where}`);
  assert.ok(s.pits.every((x) => isInt(x) && x >= 0), `pits in ${where}`);
  assert.equal(s.pits.reduce((x, y) => x + y, 0), 2 * m * s.seeds,
    `seeds are conserved in ${where}`);
  assert.ok(Array.isArray(s.legal) && s.legal.every((h) => isInt(h) && h >= 1 && h <= m),
    `legal in ${where}`);
  if (s.status !== 'playing') {
    assert.deepEqual(s.legal, [], `legal is empty when not playing: ${where}`);
  }
  assert.ok(['south', 'north', 'both', 'spectator'].includes(s.you), `you in ${where}`);
  assert.ok(s.players && typeof s.players === 'object', `players in ${where}`);
  for (const seat of SEATS) {
    assert.ok(seat in s.players, `players.${seat} in ${where}`);
    const p = s.players[seat];
    if (p !== null) {
      assert.equal(typeof p.name, 'string', `players.${seat}.name in ${where}`);
      assert.equal(typeof p.connected, 'boolean', `players.${seat}.connected in ${where}`);
      assert.equal(typeof p.computer, 'boolean', `players.${seat}.computer in ${where}`);
    }
  }
  assert.ok('clock' in s, `clock in ${where}`);
  if (s.clock !== null) {
    assert.ok(isInt(s.clock.south_ms) && s.clock.south_ms >= 0, `clock.south_ms in ${where}`);
    assert.ok(isInt(s.clock.north_ms) && s.clock.north_ms >= 0, `clock.north_ms in ${where}`);
    assert.ok([...SEATS, null].includes(s.clock.running), `clock.running in ${where}`);
  }
  assert.ok('last' in s, `last in ${where}`);
  if (s.last !== null) {
    assert.ok(SEATS.includes(s.last.seat), `last.seat in ${where}`);
    assert.ok(isInt(s.last.house) && s.last.house >= 1 && s.last.house <= m,
      `last.house in ${where}`);
    assert.ok(Array.isArray(s.last.trace) && s.last.trace.length > 0, `last.trace in ${where}`);
  }
  assert.ok('result' in s, `result in ${where}`);
  if (s.status === 'finished' && s.result && s.result.reason === 'aborted') {
    // The server's addition (docs/protocol.md, "Aborted games"): no winner, no score.
    assert.equal(s.result.winner, null, `an aborted game has no winner: ${where}`);
    assert.equal(s.result.score, null, `an aborted game has no score: ${where}`);
  } else if (s.status === 'finished') {
    assert.ok(s.result, `a finished state has a result: ${where}`);
    assert.ok([...SEATS, 'draw'].includes(s.result.winner), `result.winner in ${where}`);
    assert.ok(REASONS.includes(s.result.reason), `result.reason in ${where}`);
    const score = s.result.score;
    assert.ok(Array.isArray(score) && score.length === 2 && score.every(isInt),
      `result.score in ${where}`);
  } else {
    assert.equal(s.result, null, `no result before the end: ${where}`);
  }
}

// Reference Kalah from the rule book, for whole games.
function kalahRef(pits, m, seat, house, emptyCapture = false) {
  const p = pits.slice();
  const base = seat === 'south' ? 0 : m + 1;
  const store = seat === 'south' ? m : 2 * m + 1;
  const oppStore = seat === 'south' ? 2 * m + 1 : m;
  let i = base + house - 1;
  let k = p[i];
  p[i] = 0;
  while (k > 0) { i = (i + 1) % (2 * m + 2); if (i === oppStore) continue; p[i]++; k--; }
  const again = i === store;
  if (!again && i >= base && i < base + m && p[i] === 1) {
    const f = 2 * m - i;
    if (p[f] > 0 || emptyCapture) { p[store] += p[f] + 1; p[f] = 0; p[i] = 0; }
  }
  const sum = (a, b) => p.slice(a, b).reduce((x, y) => x + y, 0);
  const s = sum(0, m); const n = sum(m + 1, 2 * m + 1);
  if (s === 0 || n === 0) {
    p[m] += s; p[2 * m + 1] += n;
    for (let j = 0; j < m; j++) { p[j] = 0; p[m + 1 + j] = 0; }
    const winner = p[m] > p[2 * m + 1] ? 'south' : p[m] < p[2 * m + 1] ? 'north' : 'draw';
    return { pits: p, turn: null, result: { winner, score: [p[m], p[2 * m + 1]] } };
  }
  return { pits: p, turn: again ? seat : seat === 'south' ? 'north' : 'south', result: null };
}

function legalOf(pits, m, seat) {
  const base = seat === 'south' ? 0 : m + 1;
  return range(1, m).filter((h) => pits[base + h - 1] > 0);
}

async function fetchText(url) {
  const r = await fetch(url);
  return { status: r.status, type: r.headers.get('content-type') || '', body: await r.text() };
}

// =================================================================================================
let srv;
before(async () => { srv = await startServer(['--rate', '1000', '--burst', '1000']); });
after(async () => {
  const r = await srv.stop();
  assert.equal(r.code, 0, `server exit: ${JSON.stringify(r)}`);
});

describe('transport', () => {
  test('subprotocol mancala.v1 is negotiated on /ws', async () => {
    const c = await Client.open(srv);
    assert.equal(c.ws.protocol, 'mancala.v1');
    await c.close();
  });

  test('hello must come first: error hello_required, id echoed; hello still works', async () => {
    const c = await Client.open(srv);
    for (const t of [{ type: 'lobby', id: 'x1' }, { type: 'create', game: 'kalah', id: 77 },
      { type: 'join', room: 'ABCDEF', role: 'player', id: 'x2' }]) {
      const e = await c.error(t, 'hello_required');
      assert.equal(e.id, t.id);
    }
    const w = await c.req({ type: 'hello', name: 'Late' });
    assert.equal(w.type, 'welcome');
    await c.close();
  });

  test('the id of a request (string or integer) is echoed on its direct reply', async () => {
    const c = await Client.open(srv);
    const w = await c.req({ type: 'hello', name: 'Echo', id: 'hello-1' });
    assert.equal(w.type, 'welcome'); assert.equal(w.id, 'hello-1');
    const l = await c.req({ type: 'lobby', id: 42 });
    assert.equal(l.type, 'lobby'); assert.strictEqual(l.id, 42);
    const big = await c.req({ type: 'lobby', id: 1234567890123 });
    assert.equal(big.type, 'lobby'); assert.strictEqual(big.id, 1234567890123);
    const j = await c.req({ type: 'create', game: 'kalah', id: 0 });
    assert.equal(j.type, 'joined'); assert.strictEqual(j.id, 0);
    const d = await Client.open(srv);
    await d.req({ type: 'hello', name: 'Echo2' });
    const j2 = await d.req({ type: 'join', room: j.room, role: 'spectator', id: 'join-7' });
    assert.equal(j2.type, 'joined'); assert.equal(j2.id, 'join-7');
    const q = await d.req({ type: 'quick', game: 'oware', houses: 3, seeds: 6, id: -5 });
    assert.equal(q.type, 'joined'); assert.strictEqual(q.id, -5);
    // Errors of every request type echo the id too.
    const bad = [
      { type: 'move', room: 'ZZZZZZ', house: 1, ply: 0, id: 'm' },
      { type: 'resign', room: 'ZZZZZZ', id: 11 },
      { type: 'draw', room: 'ZZZZZZ', action: 'offer', id: 'd' },
      { type: 'rematch', room: 'ZZZZZZ', id: 12 },
      { type: 'chat', room: 'ZZZZZZ', text: 'x', id: 'c' },
      { type: 'leave', room: 'ZZZZZZ', id: 13 },
      { type: 'join', room: 'ZZZZZZ', role: 'player', id: 'j' },
      { type: 'nope', id: 14 },
      { type: 'create', game: 'chess', id: 'cr' },
    ];
    for (const f of bad) {
      const e = await c.req(f);
      assert.equal(e.type, 'error', JSON.stringify(f) + ' -> ' + JSON.stringify(e));
      assert.strictEqual(e.id, f.id);
    }
    await c.close(); await d.close();
  });

  test('invalid JSON, unknown type, missing or mistyped fields: error, kept open', async () => {
    const c = await hello(srv, 'Bad');
    const raws = ['nonsense', '{"type":', '[1,2,3]', '"hello"', '42', 'null', '{}', '{"type":5}',
      '{"id":"q"}'];
    for (const raw of raws) {
      c.send(raw);
      const e = await c.next((m) => m.type === 'error', 3000, `an error for ${raw}`);
      assert.equal(typeof e.code, 'string');
    }
    await c.error({ type: 'frobnicate' });
    await c.error({ type: 'create' });
    await c.error({ type: 'create', game: 7 });
    await c.error({ type: 'join', role: 'player' });
    await c.error({ type: 'join', room: 123456, role: 'player' });
    // A mistyped id (neither string nor integer) is a mistyped field too.
    for (const id of [{ nested: true }, 1.5, true, [1]]) {
      c.send({ type: 'lobby', id });
      const e = await c.next((m) => m.type === 'error' || m.type === 'lobby', 3000);
      assert.equal(e.type, 'error', `id ${JSON.stringify(id)}: ${JSON.stringify(e)}`);
    }
    // Still usable.
    const l = await c.req({ type: 'lobby' });
    assert.equal(l.type, 'lobby');
    assert.equal(c.isClosed, undefined);
    await c.close();
  });

  test('a 4 KiB frame is accepted; 4 KiB + 1 closes with 1009; others unaffected', async () => {
    const other = await hello(srv, 'Bystander');
    const c = await hello(srv, 'Big');
    // JSON whitespace pads a valid request to the exact size.
    const frame = (len) => {
      const body = '{"type":"lobby","id":"aaaa-4k"}';
      return body + ' '.repeat(len - body.length);
    };
    const ok = frame(4096);
    assert.equal(Buffer.byteLength(ok), 4096);
    c.send(ok);
    const r = await c.next((m) => m.id === 'aaaa-4k', 3000, 'the 4096-byte reply');
    assert.equal(r.type, 'lobby');
    const big = frame(4097);
    c.send(big);
    const closed = await Promise.race([c.closed, sleep(4000).then(() => ({ code: 'not closed' }))]);
    assert.equal(closed.code, 1009);
    const l = await other.req({ type: 'lobby' });
    assert.equal(l.type, 'lobby');
    await other.close();
  });

  test('chat text of a large frame under 4 KiB: 300 two-byte characters are accepted', async () => {
    const { a, b, room } = await pair(srv);
    const text = 'é'.repeat(300);
    a.send({ type: 'chat', room, text });
    const m = await b.next((x) => x.type === 'chat');
    assert.equal(m.text, text);
    await a.close(); await b.close();
  });
});

describe('rate limit', () => {
  let rs;
  before(async () => { rs = await startServer(['--rate', '10', '--burst', '30']); });
  after(async () => { await rs.stop(); });

  test('a flood gets rate_limited errors, then close 1008; others unaffected', async () => {
    const other = await hello(rs, 'Calm');
    const { room } = await create(other, { game: 'kalah', opponent: 'local' });
    const c = await hello(rs, 'Flood');
    for (let i = 0; i < 400 && !c.isClosed; i++) c.send({ type: 'lobby', watch: false, id: i });
    const closed = await Promise.race([c.closed, sleep(6000).then(() => ({ code: 'not closed' }))]);
    const limited = c.inbox.filter((m) => m.type === 'error' && m.code === 'rate_limited');
    assert.ok(limited.length >= 1,
      `rate_limited errors before the close: ${JSON.stringify(c.inbox.slice(-3))}`);
    assert.ok(limited.every((e) => isInt(e.id)), 'rate_limited errors echo the id');
    assert.equal(closed.code, 1008);
    // The other connection and its room are untouched.
    other.send({ type: 'move', room, house: 3, ply: 0 });
    const s = await other.state(room, (x) => x.ply === 1);
    assert.deepEqual(s.pits, [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0]);
    await other.close();
  });
});

describe('identity', () => {
  test('welcome has player, name, token and protocol 1', async () => {
    const c = await Client.open(srv);
    const w = await c.req({ type: 'hello', name: 'Ana' });
    assert.equal(w.type, 'welcome');
    assert.equal(typeof w.player, 'string'); assert.ok(w.player.length > 0);
    assert.equal(w.name, 'Ana');
    assert.equal(typeof w.token, 'string');
    assert.strictEqual(w.protocol, 1);
    await c.close();
  });

  test('tokens carry at least 128 bits and are all different', async () => {
    const tokens = new Set(); const players = new Set();
    for (let i = 0; i < 6; i++) {
      const c = await hello(srv, `T${i}`);
      const t = c.welcome.token;
      let bitsPerChar;
      if (/^[0-9a-fA-F]+$/.test(t)) bitsPerChar = 4;
      else if (/^[A-Za-z0-9_-]+=*$/.test(t) || /^[A-Za-z0-9+/]+=*$/.test(t)) bitsPerChar = 6;
      else bitsPerChar = Math.log2(new Set(t).size);
      assert.ok(t.replace(/=+$/, '').length * bitsPerChar >= 128, `token ${t} is too short`);
      tokens.add(t); players.add(c.welcome.player);
      await c.close();
    }
    assert.equal(tokens.size, 6); assert.equal(players.size, 6);
  });

  test('names are trimmed; 1-24 characters; no control characters', async () => {
    const ok = [['  Ana  ', 'Ana'], [' ' + 'x'.repeat(24) + ' ', 'x'.repeat(24)],
      ['é'.repeat(24), 'é'.repeat(24)], ['Ünïcødé 名前', 'Ünïcødé 名前'], ['a', 'a']];
    for (const [given, want] of ok) {
      const c = await Client.open(srv);
      const w = await c.req({ type: 'hello', name: given });
      assert.equal(w.type, 'welcome', `${JSON.stringify(given)} -> ${JSON.stringify(w)}`);
      assert.equal(w.name, want);
      await c.close();
    }
    const bad = ['', '   ', 'x'.repeat(25), 'é'.repeat(25), 'An\u0007a', 'Tab\there', 'New\nline',
      'Del\u007f', 'C1\u0085x', 42, ['Ana']];
    for (const name of bad) {
      const c = await Client.open(srv);
      const e = await c.error({ type: 'hello', name });
      assert.ok(e, JSON.stringify(name));
      // Nothing changed: still no identity.
      await c.error({ type: 'lobby' }, 'hello_required');
      const w = await c.req({ type: 'hello', name: 'Fixed' });
      assert.equal(w.type, 'welcome');
      await c.close();
    }
  });

  test('a missing name gets a generated guest name', async () => {
    for (let i = 0; i < 3; i++) {
      const c = await Client.open(srv);
      const w = await c.req({ type: 'hello' });
      assert.equal(w.type, 'welcome');
      assert.equal(typeof w.name, 'string');
      const n = w.name.trim();
      assert.ok(n.length >= 1 && [...n].length <= 24, `guest name ${JSON.stringify(w.name)}`);
      assert.equal(n, w.name);
      assert.ok(!/[\u0000-\u001f\u007f-\u009f]/.test(w.name));
      await c.close();
    }
  });

  test('a mistyped token is an error', async () => {
    const c = await Client.open(srv);
    await c.error({ type: 'hello', name: 'Tok', token: 12345 });
    await c.close();
  });

  test('reconnect with the token: same identity, seat back; opponent sees connected', async () => {
    const { a, b, room } = await pair(srv);
    const { player, token } = b.welcome;
    a.send({ type: 'move', room, house: 1, ply: 0 });
    await b.state(room, (s) => s.ply === 1);
    await a.state(room, (s) => s.ply === 1);
    await b.close();
    const gone = await a.state(room, (s) => s.players.north && s.players.north.connected === false);
    checkState(gone);
    assert.equal(gone.status, 'playing');
    assert.equal(gone.players.north.name, b.name);
    const b2 = await Client.open(srv);
    const w = await b2.req({ type: 'hello', name: b.name, token });
    assert.equal(w.type, 'welcome');
    assert.equal(w.player, player);
    assert.equal(w.name, b.name);
    const j = await b2.req({ type: 'join', room, role: 'player' });
    assert.equal(j.type, 'joined', JSON.stringify(j));
    assert.equal(j.role, 'player'); assert.equal(j.seat, 'north');
    const s = await b2.state(room, (x) => x.you === 'north');
    assert.equal(s.ply, 1); assert.equal(s.turn, 'north');
    await a.state(room, (x) => x.players.north && x.players.north.connected === true);
    b2.send({ type: 'move', room, house: 1, ply: 1 });
    await a.state(room, (x) => x.ply === 2);
    await a.close(); await b2.close();
  });
});

describe('rooms', () => {
  test('room codes: 6 characters of the alphabet, matched case-insensitively', async () => {
    const c = await hello(srv, 'Codes');
    const codes = new Set();
    for (let i = 0; i < 5; i++) {
      const { room, joined } = await create(c, { game: 'kalah', visibility: 'private' });
      assert.ok(CODE_RE.test(room), `room code ${room}`);
      codes.add(room);
      await c.req({ type: 'leave', room: joined.room });
    }
    assert.equal(codes.size, 5);
    const owner = await hello(srv, 'Owner');
    const { room } = await create(owner, { game: 'kalah' });
    const d = await hello(srv, 'Lower');
    const j = await d.req({ type: 'join', room: room.toLowerCase(), role: 'player' });
    assert.equal(j.type, 'joined', JSON.stringify(j));
    assert.ok(sameCode(j.room, room));
    const s = await d.state(room);
    checkState(s);
    // Moves address the room case-insensitively too.
    const mover = s.turn === s.you ? d : owner;
    mover.send({ type: 'move', room: room.toLowerCase(), house: 1, ply: 0 });
    await owner.state(room, (x) => x.ply === 1);
    await c.close(); await owner.close(); await d.close();
  });

  for (const [game, m, n] of [['kalah', 6, 4], ['oware', 6, 4], ['congkak', 7, 7]]) {
    test(`create ${game} defaults: ${m}x${n}, public, human, no clock; joined, state`, async () => {
      const c = await hello(srv, uname('Def'));
      const { joined, state } = await create(c, { game });
      assert.deepEqual(Object.keys(joined).filter((k) => k !== 'id').sort(),
        ['role', 'room', 'seat', 'type']);
      assert.equal(joined.role, 'player');
      assert.ok(SEATS.includes(joined.seat));
      assert.equal(state.game, game);
      assert.equal(state.houses, m); assert.equal(state.seeds, n);
      assert.deepEqual(state.pits, startPits(m, n));
      assert.equal(state.status, 'waiting');
      assert.equal(state.ply, 0);
      assert.deepEqual(state.legal, []);
      assert.equal(state.you, joined.seat);
      assert.equal(state.clock, null);
      assert.equal(state.last, null); assert.equal(state.result, null);
      assert.equal(state.players[joined.seat].name, c.name);
      assert.equal(state.players[joined.seat].connected, true);
      assert.equal(state.players[joined.seat].computer, false);
      assert.equal(state.players[joined.seat === 'south' ? 'north' : 'south'], null);
      const l = await c.req({ type: 'lobby' });
      const entry = l.rooms.find((r) => sameCode(r.code, joined.room));
      assert.ok(entry, 'public by default: listed in the lobby');
      await c.req({ type: 'lobby', watch: false });
      await c.close();
    });
  }

  test('create: the random seat gives both seats', async () => {
    const seats = new Set();
    for (let p = 0; p < 4; p++) {
      const c = await hello(srv, uname('Rnd'));
      for (let i = 0; i < 4; i++) {
        const { joined } = await create(c,
          { game: 'kalah', visibility: 'private', seat: 'random' });
        seats.add(joined.seat);
      }
      await c.close();
    }
    assert.deepEqual([...seats].sort(), ['north', 'south']);
  });

  test('create with every field is honoured', async () => {
    const c = await hello(srv, uname('Full'));
    const clock = { initial_ms: 90000, increment_ms: 1000 };
    const { joined, state } = await create(c, {
      game: 'oware', houses: 5, seeds: 3, options: { grand_slam: 'capture' }, visibility: 'private',
      seat: 'north', clock, opponent: 'human',
    });
    assert.equal(joined.seat, 'north'); assert.equal(state.you, 'north');
    assert.equal(state.game, 'oware'); assert.equal(state.houses, 5); assert.equal(state.seeds, 3);
    assert.equal(state.options.grand_slam, 'capture');
    assert.deepEqual(state.pits, startPits(5, 3));
    assert.equal(state.status, 'waiting');
    assert.ok(state.clock && typeof state.clock === 'object');
    const s2 = await create(c,
      { game: 'kalah', seat: 'south', options: { empty_capture: true }, houses: 4, seeds: 6 });
    assert.equal(s2.joined.seat, 'south'); assert.equal(s2.state.options.empty_capture, true);
    assert.deepEqual(s2.state.pits, startPits(4, 6));
    const s3 = await create(c,
      { game: 'congkak', options: { lap_capture: true, rounds: 'match' }, houses: 5, seeds: 5 });
    assert.equal(s3.state.options.lap_capture, true);
    assert.equal(s3.state.options.rounds, 'match');
    const s4 = await create(c,
      { game: 'oware', options: { grand_slam: 'forbidden' }, clock: null, seat: 'random' });
    assert.equal(s4.state.options.grand_slam, 'forbidden'); assert.equal(s4.state.clock, null);
    await c.close();
  });

  test('a waiting room with a clock shows the full initial time on both clocks, none running',
    async () => {
    const c = await hello(srv, uname('Wait'));
    const clock = { initial_ms: 90000, increment_ms: 1000 };
    const { state } = await create(c, { game: 'kalah', seat: 'south', clock });
    assert.equal(state.status, 'waiting');
    const seen = JSON.stringify(state.clock);
    assert.equal(state.clock.south_ms, 90000, `south_ms while waiting: ${seen}`);
    assert.equal(state.clock.north_ms, 90000, `north_ms while waiting: ${seen}`);
    assert.equal(state.clock.running, null, `no clock runs while waiting: ${seen}`);
    await c.close();
  });

  test('create with bad fields: an error and no room', async () => {
    const c = await hello(srv, uname('Wrong'));
    const w = await hello(srv, uname('Watch'));
    await w.req({ type: 'lobby' });
    const bad = [
      { game: 'chess' }, { game: 'kalah', houses: 0 }, { game: 'kalah', houses: 10 },
      { game: 'kalah', seeds: 0 }, { game: 'kalah', seeds: 13 }, { game: 'kalah', houses: '6' },
      { game: 'kalah', visibility: 'secret' }, { game: 'kalah', seat: 'east' },
      { game: 'kalah', clock: { initial_ms: 'x', increment_ms: 0 } }, { game: 'kalah', clock: 5 },
      { game: 'kalah', opponent: 'robot' }, { game: 'kalah', opponent: 'computer', level: 7 },
      { game: 'kalah', opponent: 'computer', level: 0 }, { game: 'kalah', options: 'x' },
      { game: 'oware', options: { grand_slam: 'sometimes' } },
      { game: 'congkak', options: { rounds: 3 } },
      { game: 'kalah', options: { empty_capture: 'yes' } },
    ];
    for (const f of bad) await c.error({ type: 'create', ...f });
    await c.none((m) => m.type === 'joined' || m.type === 'state', 300);
    await w.none((m) => m.type === 'lobby' && JSON.stringify(m).includes(c.name), 100,
      'lobby entry');
    await c.close(); await w.close();
  });

  test('computer opponent fills the other seat', async () => {
    const c = await hello(srv, uname('Cpu'));
    const { state } = await create(c,
      { game: 'kalah', opponent: 'computer', level: 1, seat: 'south' });
    assert.equal(state.status, 'playing');
    assert.equal(state.players.north.computer, true);
    await c.close();
  });

  test('join as player and as spectator; joined shape; every member gets the state', async () => {
    const a = await hello(srv, uname('Host'));
    const b = await hello(srv, uname('Guest'));
    const v = await hello(srv, uname('Viewer'));
    const { room } = await create(a, { game: 'kalah', seat: 'north' });
    const js = await v.req({ type: 'join', room, role: 'spectator' });
    assert.deepEqual({ ...js, id: undefined },
      { type: 'joined', room, role: 'spectator', seat: null, id: undefined });
    const sv = await v.state(room);
    assert.equal(sv.you, 'spectator'); assert.equal(sv.status, 'waiting');
    const jp = await b.req({ type: 'join', room, role: 'player' });
    assert.deepEqual({ ...jp, id: undefined },
      { type: 'joined', room, role: 'player', seat: 'south', id: undefined });
    for (const [c, you] of [[a, 'north'], [b, 'south'], [v, 'spectator']]) {
      const s = await c.state(room, (x) => x.status === 'playing');
      checkState(s);
      assert.equal(s.you, you);
      assert.equal(s.turn, 'south');
      assert.equal(s.ply, 0);
      assert.deepEqual(s.legal, [1, 2, 3, 4, 5, 6]);
      assert.deepEqual(s.pits, startPits(6, 4));
      assert.equal(s.players.south.name, b.name); assert.equal(s.players.north.name, a.name);
      assert.equal(s.players.south.connected, true); assert.equal(s.players.north.connected, true);
      assert.equal(s.players.south.computer, false); assert.equal(s.players.north.computer, false);
      assert.equal(s.last, null); assert.equal(s.result, null);
    }
    // A third player: room_full. A player already seated gets the seat back.
    const x = await hello(srv, uname('Third'));
    await x.error({ type: 'join', room, role: 'player' }, 'room_full');
    const again = await a.req({ type: 'join', room, role: 'player' });
    assert.equal(again.type, 'joined'); assert.equal(again.seat, 'north');
    // not_found, for a well-formed and a malformed code.
    await x.error({ type: 'join', room: 'ZZZZZZ', role: 'player' }, 'not_found');
    await x.error({ type: 'join', room: 'ZZZZZZ', role: 'spectator' }, 'not_found');
    await x.error({ type: 'join', room: 'abc', role: 'player' });
    await x.error({ type: 'join', room, role: 'referee' });
    for (const c of [a, b, v, x]) await c.close();
  });

  test('quick pairing: oldest waiting public room with the same game, board, clock', async () => {
    const [p1, p2, p3, p4, p5, p6, p7] =
      await Promise.all(range(1, 7).map((i) => hello(srv, uname(`Q${i}`))));
    const clock = { initial_ms: 120000, increment_ms: 0 };
    // Two waiting public rooms; the older one is chosen.
    const r1 = await create(p1, { game: 'oware', houses: 5, seeds: 3 });
    await sleep(20);
    const r2 = await create(p2, { game: 'oware', houses: 5, seeds: 3 });
    // A private room and rooms with another board or clock are never picked.
    const rp = await create(p3, { game: 'oware', houses: 5, seeds: 5, visibility: 'private' });
    const rc = await create(p4, { game: 'oware', houses: 5, seeds: 5, clock });
    const q1 = await p5.req({ type: 'quick', game: 'oware', houses: 5, seeds: 3 });
    assert.equal(q1.type, 'joined'); assert.equal(q1.room, r1.room);
    const s = await p1.state(r1.room, (x) => x.status === 'playing');
    assert.equal(s.players[q1.seat].name, p5.name);
    const q2 = await p6.req({ type: 'quick', game: 'oware', houses: 5, seeds: 3 });
    assert.equal(q2.room, r2.room);
    const q3 = await p7.req({ type: 'quick', game: 'oware', houses: 5, seeds: 5 });
    assert.equal(q3.type, 'joined');
    assert.notEqual(q3.room, rp.room); assert.notEqual(q3.room, rc.room);
    const s3 = await p7.state(q3.room);
    assert.equal(s3.status, 'waiting'); assert.equal(s3.houses, 5); assert.equal(s3.seeds, 5);
    const q4 = await p5.req({ type: 'quick', game: 'oware', houses: 5, seeds: 5, clock });
    assert.equal(q4.room, rc.room);
    await p4.state(rc.room, (x) => x.status === 'playing');
    // Another game never matches.
    const q5 = await p6.req({ type: 'quick', game: 'kalah', houses: 5, seeds: 5 });
    assert.ok(![r1, r2, rp, rc].some((r) => r.room === q5.room) && q5.room !== q3.room);
    for (const c of [p1, p2, p3, p4, p5, p6, p7]) await c.close();
  });

  test('leave: a spectator who left gets no more states', async () => {
    const { a, b, room } = await pair(srv);
    const v = await hello(srv, uname('Leaver'));
    await v.req({ type: 'join', room, role: 'spectator' });
    await v.state(room);
    const r = await v.req({ type: 'leave', room }, undefined, true);
    assert.notEqual(r.type, 'error', JSON.stringify(r));
    v.drain();
    a.send({ type: 'move', room, house: 1, ply: 0 });
    await b.state(room, (x) => x.ply === 1);
    await v.none((m) => m.type === 'state', 400, 'state after leave');
    await v.error({ type: 'leave' });
    for (const c of [a, b, v]) await c.close();
  });

  test('lobby: public rooms, fields, live updates, watch:false; private never listed', async () => {
    const w = await hello(srv, uname('Watcher'));
    const c = await hello(srv, uname('Lister'));
    const l0 = await w.req({ type: 'lobby' });
    assert.equal(l0.type, 'lobby'); assert.ok(Array.isArray(l0.rooms));
    const clock = { initial_ms: 180000, increment_ms: 3000 };
    const { room } = await create(c,
      { game: 'congkak', houses: 4, seeds: 3, seat: 'south', clock });
    const upd = await w.next(
      (m) => m.type === 'lobby' && m.rooms.some((r) => sameCode(r.code, room)), 3000,
      'a lobby update with the new room');
    const e = upd.rooms.find((r) => sameCode(r.code, room));
    assert.equal(e.game, 'congkak'); assert.equal(e.houses, 4); assert.equal(e.seeds, 3);
    assert.ok(e.options && typeof e.options === 'object');
    assert.deepEqual(e.clock, clock);
    assert.equal(e.status, 'waiting');
    assert.ok(JSON.stringify(e).includes(c.name), `player names in ${JSON.stringify(e)}`);
    // A second player: the listing changes (status, names).
    const d = await hello(srv, uname('Joiner'));
    await d.req({ type: 'join', room, role: 'player' });
    const upd2 = await w.next((m) => m.type === 'lobby' &&
      m.rooms.some((r) => sameCode(r.code, room) && JSON.stringify(r).includes(d.name)), 3000,
      'lobby with both names');
    const e2 = upd2.rooms.find((r) => sameCode(r.code, room));
    assert.equal(e2.status, 'playing');
    // Private rooms: never listed, not even once they are playing.
    const { room: priv } = await create(c, { game: 'kalah', visibility: 'private', seat: 'south' });
    await d.req({ type: 'join', room: priv, role: 'player' });
    await d.state(priv, (x) => x.status === 'playing');
    const l1 = await w.req({ type: 'lobby' });
    assert.ok(!l1.rooms.some((r) => sameCode(r.code, priv)));
    await sleep(200);
    const listsPriv = (m) => m.type === 'lobby' && m.rooms.some((r) => sameCode(r.code, priv));
    assert.ok(!w.inbox.some(listsPriv), 'a private room appeared in a lobby update');
    const x = await hello(srv, uname('Other'));
    const lx = await x.req({ type: 'lobby' });
    assert.ok(!lx.rooms.some((r) => sameCode(r.code, priv)));
    // Stop watching.
    await w.req({ type: 'lobby', watch: false });
    await sleep(100);
    w.drain();
    await create(c, { game: 'kalah' });
    await w.none((m) => m.type === 'lobby', 600, 'lobby update after watch:false');
    for (const k of [w, c, d, x]) await k.close();
  });
});

describe('play', () => {
  test('Kalah by hand: South 3 is an extra turn; stale, not_your_turn, illegal_move', async () => {
    const { a, b, room } = await pair(srv);
    const v = await hello(srv, uname('Spec'));
    await v.req({ type: 'join', room, role: 'spectator' });
    await v.state(room);
    await sleep(100);
    a.drain(); b.drain();
    // Stale before anything: no effect.
    await a.error({ type: 'move', room, house: 3, ply: 5 }, 'stale');
    await b.error({ type: 'move', room, house: 1, ply: 0 }, 'not_your_turn');
    await v.error({ type: 'move', room, house: 1, ply: 0 });
    for (const f of [{ house: '3', ply: 0 }, { ply: 0 }, { house: 3, ply: '0' },
      { house: 0, ply: 0 }, { house: 7, ply: 0 }, { house: 2.5, ply: 0 }]) {
      await a.error({ type: 'move', room, ...f });
    }
    await a.error({ type: 'move', house: 3, ply: 0 });
    await b.none((m) => m.type === 'state', 200, 'state after refused moves');
    a.send({ type: 'move', room, house: 3, ply: 0 });
    for (const c of [a, b, v]) {
      const s = await c.state(room, (x) => x.ply === 1);
      checkState(s);
      assert.deepEqual(s.pits, [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0]);
      assert.equal(s.turn, 'south');
      assert.deepEqual(s.legal, [1, 2, 4, 5, 6]);
      assert.equal(s.last.seat, 'south'); assert.equal(s.last.house, 3);
      assert.ok(s.last.trace.length >= 4,
        `the trace has the 4 sown seeds: ${JSON.stringify(s.last.trace)}`);
    }
    // The same move retried with its old ply: stale, not played twice.
    await a.error({ type: 'move', room, house: 3, ply: 0 }, 'stale');
    await a.error({ type: 'move', room, house: 4, ply: 0 }, 'stale');
    await a.error({ type: 'move', room, house: 3, ply: 1 }, 'illegal_move');
    await b.error({ type: 'move', room, house: 1, ply: 1 }, 'not_your_turn');
    await b.none((m) => m.type === 'state', 200, 'state after refused moves');
    a.send({ type: 'move', room, house: 6, ply: 1 });
    let s = await b.state(room, (x) => x.ply === 2);
    assert.deepEqual(s.pits, [4, 4, 0, 5, 5, 0, 2, 5, 5, 5, 5, 4, 4, 0]);
    assert.equal(s.turn, 'north'); assert.deepEqual(s.legal, [1, 2, 3, 4, 5, 6]);
    await a.error({ type: 'move', room, house: 1, ply: 2 }, 'not_your_turn');
    // North's house 1 is pits[7].
    b.send({ type: 'move', room, house: 1, ply: 2 });
    s = await a.state(room, (x) => x.ply === 3);
    assert.deepEqual(s.pits, [4, 4, 0, 5, 5, 0, 2, 0, 6, 6, 6, 5, 5, 0]);
    assert.equal(s.turn, 'south'); assert.deepEqual(s.last, { ...s.last, seat: 'north', house: 1 });
    for (const c of [a, b, v]) await c.close();
  });

  test('a move without its ply is a missing field: error, not played',
    async () => {
    const { a, b, room } = await pair(srv);
    const r = await a.req({ type: 'move', room, house: 3 }, undefined, true);
    assert.equal(r.type, 'error', `move without ply: ${JSON.stringify(r).slice(0, 300)}`);
    await b.none((m) => m.type === 'state', 300, 'state after a move without ply');
    a.send({ type: 'move', room, house: 3, ply: 0 });
    const s = await b.state(room, (x) => x.ply === 1);
    assert.deepEqual(s.pits, [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0]);
    await a.close(); await b.close();
  });

  test('Kalah 3x1 by hand: a capture of the facing house', async () => {
    const c = await hello(srv, uname('Cap'));
    const { room, state } = await create(c,
      { game: 'kalah', houses: 3, seeds: 1, opponent: 'local' });
    assert.deepEqual(state.pits, [1, 1, 1, 0, 1, 1, 1, 0]);
    c.send({ type: 'move', room, house: 3, ply: 0 });
    let s = await c.state(room, (x) => x.ply === 1);
    assert.deepEqual(s.pits, [1, 1, 0, 1, 1, 1, 1, 0]); assert.equal(s.turn, 'south');
    c.send({ type: 'move', room, house: 2, ply: 1 });
    s = await c.state(room, (x) => x.ply === 2);
    assert.deepEqual(s.pits, [1, 0, 0, 3, 0, 1, 1, 0]); assert.equal(s.turn, 'north');
    assert.deepEqual(s.legal, [2, 3]);
    assert.ok(s.last.trace.length >= 2, 'sowing and capture in the trace');
    await c.close();
  });

  test('Kalah empty_capture by hand: the last seed is captured alone', async () => {
    // 3x1: South 1 -> [0,2,1,0|1,1,1,0]; North 3 -> store, again; North 2 lands in North's empty
    // house 3 facing South's empty house 1: captured alone with the option, left there without.
    const c = await hello(srv, uname('Empty'));
    const cases = [[{ empty_capture: true }, [0, 2, 1, 0, 1, 0, 0, 2]],
      [{ empty_capture: false }, [0, 2, 1, 0, 1, 0, 1, 1]], [undefined, [0, 2, 1, 0, 1, 0, 1, 1]]];
    for (const [options, last] of cases) {
      const { room, state } = await create(c,
        { game: 'kalah', houses: 3, seeds: 1, opponent: 'local', ...(options ? { options } : {}) });
      assert.equal(state.options.empty_capture, options ? options.empty_capture : false);
      const plan = [[1, [0, 2, 1, 0, 1, 1, 1, 0], 'north'], [3, [0, 2, 1, 0, 1, 1, 0, 1], 'north'],
        [2, last, 'south']];
      for (const [ply, [house, pits, turn]] of plan.entries()) {
        c.send({ type: 'move', room, house, ply });
        const s = await c.state(room, (x) => x.ply === ply + 1);
        assert.deepEqual(s.pits, pits, `${JSON.stringify(options)} ply ${ply + 1}`);
        assert.equal(s.turn, turn);
      }
    }
    await c.close();
  });

  test('Oware by hand: stores are never sown', async () => {
    const c = await hello(srv, uname('Ow'));
    const { room } = await create(c, { game: 'oware', opponent: 'local' });
    c.send({ type: 'move', room, house: 6, ply: 0 });
    const s = await c.state(room, (x) => x.ply === 1);
    assert.deepEqual(s.pits, [4, 4, 4, 4, 4, 0, 0, 5, 5, 5, 5, 4, 4, 0]);
    assert.equal(s.turn, 'north');
    assert.deepEqual(s.legal, [1, 2, 3, 4, 5, 6]);
    await c.close();
  });

  test('Congkak 3x2 by hand: relay sowing ends in an empty opponent house', async () => {
    const c = await hello(srv, uname('Relay'));
    const { room, state } = await create(c,
      { game: 'congkak', houses: 3, seeds: 2, opponent: 'local' });
    assert.deepEqual(state.pits, [2, 2, 2, 0, 2, 2, 2, 0]);
    c.send({ type: 'move', room, house: 1, ply: 0 });
    const s = await c.state(room, (x) => x.ply === 1);
    assert.deepEqual(s.pits, [1, 0, 1, 2, 4, 1, 3, 0]);
    assert.equal(s.turn, 'north');
    // 2 + 3 + 3 + 4 seeds sown, 3 relay lifts.
    assert.ok(s.last.trace.length >= 15,
      `trace of the relay move: ${JSON.stringify(s.last.trace)}`);
    await c.close();
  });

  test('local room: seat both, one connection plays both sides; a whole Kalah game', async () => {
    const c = await hello(srv, uname('Local'));
    const { joined, state, room } = await create(c,
      { game: 'kalah', opponent: 'local', seat: 'north' });
    assert.equal(joined.seat, 'both'); assert.equal(joined.role, 'player');
    assert.equal(state.you, 'both'); assert.equal(state.status, 'playing');
    assert.equal(state.turn, 'south');
    assert.equal(state.players.south.name, c.name); assert.equal(state.players.north.name, c.name);
    let seed = 12345;
    const rnd = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed; };
    let pits = startPits(6, 4); let turn = 'south'; let ply = 0; let res = null;
    while (!res) {
      const legal = legalOf(pits, 6, turn);
      const house = legal[rnd() % legal.length];
      const r = kalahRef(pits, 6, turn, house);
      c.send({ type: 'move', room, house, ply });
      const s = await c.state(room, (x) => x.ply === ply + 1);
      checkState(s);
      assert.deepEqual(s.pits, r.pits, `ply ${ply}: ${turn} ${house}`);
      assert.deepEqual(s.last.seat, turn); assert.equal(s.last.house, house);
      ply++; pits = r.pits; res = r.result;
      if (res) {
        assert.equal(s.status, 'finished');
        assert.equal(s.result.winner, res.winner); assert.deepEqual(s.result.score, res.score);
        assert.equal(s.result.reason, 'no_seeds');
        assert.deepEqual(s.legal, []);
      } else {
        turn = r.turn;
        assert.equal(s.turn, turn); assert.deepEqual(s.legal, legalOf(pits, 6, turn));
      }
    }
    await c.error({ type: 'move', room, house: 1, ply }, 'game_over');
    await c.close();
  });

  test('finished games played to the end on tiny boards: result winner/reason/score', async () => {
    // Two players and a spectator; Kalah 2x1: South 2 (store, again), South 1 captures,
    // South is empty.
    const { a, b, room } = await pair(srv, { houses: 2, seeds: 1 });
    const v = await hello(srv, uname('Fin'));
    await v.req({ type: 'join', room, role: 'spectator' });
    await v.state(room);
    a.send({ type: 'move', room, house: 2, ply: 0 });
    let s = await a.state(room, (x) => x.ply === 1);
    assert.deepEqual(s.pits, [1, 0, 1, 1, 1, 0]); assert.equal(s.turn, 'south');
    a.send({ type: 'move', room, house: 1, ply: 1 });
    for (const c of [a, b, v]) {
      s = await c.state(room, (x) => x.ply === 2);
      checkState(s);
      assert.equal(s.status, 'finished');
      assert.deepEqual(s.pits, [0, 0, 3, 0, 0, 1]);
      assert.deepEqual(s.result, { winner: 'south', reason: 'no_seeds', score: [3, 1] });
      assert.deepEqual(s.legal, []);
      assert.ok(s.last.trace.length >= 3,
        `sow, capture and sweep in ${JSON.stringify(s.last.trace)}`);
    }
    await b.error({ type: 'move', room, house: 1, ply: 2 }, 'game_over');
    await a.error({ type: 'move', room, house: 1, ply: 2 }, 'game_over');
    for (const c of [a, b, v]) await c.close();

    const c = await hello(srv, uname('Tiny'));
    // Kalah 1x1: South 1 -> store; South is empty, North sweeps its seed: a draw.
    let r = await create(c, { game: 'kalah', houses: 1, seeds: 1, opponent: 'local' });
    c.send({ type: 'move', room: r.room, house: 1, ply: 0 });
    s = await c.state(r.room, (x) => x.ply === 1);
    assert.deepEqual(s.pits, [0, 1, 0, 1]);
    assert.deepEqual(s.result, { winner: 'draw', reason: 'no_seeds', score: [1, 1] });
    // Oware 2x1: S1 [0,2,0,1,1,0]; N1 [0,2,0,0,2,0]; S2 sows N1, N2 -> 1, 3: captures 3, majority.
    r = await create(c, { game: 'oware', houses: 2, seeds: 1, opponent: 'local' });
    for (const [house, ply, pits] of [[1, 0, [0, 2, 0, 1, 1, 0]], [1, 1, [0, 2, 0, 0, 2, 0]]]) {
      c.send({ type: 'move', room: r.room, house, ply });
      s = await c.state(r.room, (x) => x.ply === ply + 1);
      assert.deepEqual(s.pits, pits); assert.equal(s.status, 'playing');
    }
    c.send({ type: 'move', room: r.room, house: 2, ply: 2 });
    s = await c.state(r.room, (x) => x.ply === 3);
    assert.equal(s.status, 'finished');
    assert.equal(s.result.winner, 'south'); assert.equal(s.result.reason, 'majority');
    assert.equal(s.result.score[0], 3);
    // Congkak 2x1: S2 store (again); S1 captures 1+1; N2 store; North has no seeds:
    // the round is over, 3-1.
    r = await create(c, { game: 'congkak', houses: 2, seeds: 1, opponent: 'local' });
    const plan = [[2, [1, 0, 1, 1, 1, 0], 'south'], [1, [0, 0, 3, 0, 1, 0], 'north']];
    for (const [i, [house, pits, turn]] of plan.entries()) {
      c.send({ type: 'move', room: r.room, house, ply: i });
      s = await c.state(r.room, (x) => x.ply === i + 1);
      assert.deepEqual(s.pits, pits); assert.equal(s.turn, turn);
    }
    assert.deepEqual(s.legal, [2]);
    c.send({ type: 'move', room: r.room, house: 2, ply: 2 });
    s = await c.state(r.room, (x) => x.ply === 3);
    assert.equal(s.status, 'finished');
    assert.deepEqual(s.pits, [0, 0, 3, 0, 0, 1]);
    assert.deepEqual(s.result, { winner: 'south', reason: 'no_seeds', score: [3, 1] });
    await c.close();
  });

  test('resign, then a rematch with seats swapped: the other player is South, first', async () => {
    const { a, b, room } = await pair(srv);
    a.send({ type: 'move', room, house: 1, ply: 0 });
    await b.state(room, (x) => x.ply === 1);
    const r = await b.req({ type: 'resign', room }, undefined, true);
    assert.notEqual(r.type, 'error', JSON.stringify(r));
    for (const c of [a, b]) {
      const s = await c.state(room, (x) => x.status === 'finished');
      checkState(s);
      assert.equal(s.result.winner, 'south'); assert.equal(s.result.reason, 'resignation');
      assert.deepEqual(s.result.score, [s.pits[6], s.pits[13]]);
    }
    await a.error({ type: 'resign', room }, 'game_over');
    a.drain(); b.drain();
    a.send({ type: 'rematch', room });
    // One request alone starts nothing.
    await b.none((m) => m.type === 'state' && m.status === 'playing', 300,
      'new game after one rematch request');
    b.send({ type: 'rematch', room });
    const sa = await a.state(room, (x) => x.status === 'playing');
    const sb = await b.state(room, (x) => x.status === 'playing');
    for (const s of [sa, sb]) {
      checkState(s);
      assert.equal(s.ply, 0); assert.equal(s.turn, 'south');
      assert.deepEqual(s.pits, startPits(6, 4));
      assert.equal(s.last, null); assert.equal(s.result, null);
      assert.equal(s.players.south.name, b.name); assert.equal(s.players.north.name, a.name);
    }
    assert.equal(sa.you, 'north'); assert.equal(sb.you, 'south');
    await a.error({ type: 'move', room, house: 1, ply: 0 }, 'not_your_turn');
    b.send({ type: 'move', room, house: 1, ply: 0 });
    const s1 = await a.state(room, (x) => x.ply === 1);
    assert.equal(s1.last.seat, 'south');
    await a.close(); await b.close();
  });

  test('draw: offer and decline keeps playing; offer and accept: draw by agreement', async () => {
    const { a, b, room } = await pair(srv);
    const o = await a.req({ type: 'draw', room, action: 'offer' }, undefined, true);
    assert.notEqual(o.type, 'error', JSON.stringify(o));
    await sleep(100);
    const d = await b.req({ type: 'draw', room, action: 'decline' }, undefined, true);
    assert.notEqual(d.type, 'error', JSON.stringify(d));
    await a.none((m) => m.type === 'state' && m.status === 'finished', 200, 'finished state');
    a.send({ type: 'move', room, house: 1, ply: 0 });
    await b.state(room, (x) => x.ply === 1 && x.status === 'playing');
    await b.error({ type: 'draw', room, action: 'maybe' });
    await b.error({ type: 'draw', room });
    await b.req({ type: 'draw', room, action: 'offer' }, undefined, true);
    await sleep(100);
    a.send({ type: 'draw', room, action: 'accept' });
    for (const c of [a, b]) {
      const s = await c.state(room, (x) => x.status === 'finished');
      assert.equal(s.result.winner, 'draw'); assert.equal(s.result.reason, 'agreement');
      assert.deepEqual(s.result.score, [s.pits[6], s.pits[13]]);
    }
    await a.close(); await b.close();
  });

  test('chat: 1-300 characters, broadcast with from/text/at to every member', async () => {
    const { a, b, room } = await pair(srv);
    const v = await hello(srv, uname('Chatty'));
    await v.req({ type: 'join', room, role: 'spectator' });
    const before = Date.now();
    a.send({ type: 'chat', room, text: 'hello there' });
    for (const c of [a, b, v]) {
      const m = await c.next((x) => x.type === 'chat');
      assert.ok(sameCode(m.room, room));
      assert.equal(m.from, a.name); assert.equal(m.text, 'hello there');
      assert.ok(isInt(m.at) && Math.abs(m.at - before) < 60000, `at ${m.at}`);
    }
    const long = 'y'.repeat(300);
    b.send({ type: 'chat', room, text: long });
    assert.equal((await a.next((x) => x.type === 'chat')).text, long);
    assert.equal((await b.next((x) => x.type === 'chat')).text, long);
    // Characters, not bytes or UTF-16 units: 300 emoji (1200 bytes) are 300 characters.
    const emoji = '\u{1F600}'.repeat(300);
    b.send({ type: 'chat', room, text: emoji });
    assert.equal((await a.next((x) => x.type === 'chat')).text, emoji);
    assert.equal((await b.next((x) => x.type === 'chat')).text, emoji);
    await a.error({ type: 'chat', room, text: 'z'.repeat(301) });
    await a.error({ type: 'chat', room, text: '' });
    await a.error({ type: 'chat', room, text: 5 });
    await a.error({ type: 'chat', room });
    await b.none((m) => m.type === 'chat', 300, 'chat after refused ones');
    for (const c of [a, b, v]) await c.close();
  });
});

describe('clocks', () => {
  test('Fischer increment is visible in the clock values', async () => {
    const clock = { initial_ms: 60000, increment_ms: 2000 };
    const { a, b, room, state } = await pair(srv, { clock });
    assert.ok(state.clock.south_ms <= 60000 && state.clock.south_ms > 55000);
    assert.ok(state.clock.north_ms <= 60000 && state.clock.north_ms > 55000);
    a.send({ type: 'move', room, house: 1, ply: 0 });
    await b.state(room, (x) => x.ply === 1);
    b.send({ type: 'move', room, house: 1, ply: 1 });
    const s2 = await a.state(room, (x) => x.ply === 2);
    assert.equal(s2.turn, 'south'); assert.equal(s2.clock.running, 'south');
    await sleep(300);
    a.send({ type: 'move', room, house: 3, ply: 2 });
    const s3 = await a.state(room, (x) => x.ply === 3);
    assert.deepEqual(s3.pits, [0, 5, 0, 6, 6, 5, 1, 1, 5, 5, 5, 5, 4, 0]);
    assert.equal(s3.turn, 'north'); assert.equal(s3.clock.running, 'north');
    const gain = s3.clock.south_ms - s2.clock.south_ms;
    assert.ok(gain > 1000 && gain <= 2000 - 250,
      `south gained ${gain} ms: 2000 increment minus ~300 thought`);
    assert.ok(s3.clock.north_ms <= s2.clock.north_ms && s2.clock.north_ms - s3.clock.north_ms < 200,
      'the clock of the player not to move does not run');
    await a.close(); await b.close();
  });

  test('a flag falls on time with nobody sending anything: timeout', async () => {
    const { a, b, room } = await pair(srv, { clock: { initial_ms: 1500, increment_ms: 0 } });
    // Each side's first move is free (docs/protocol.md: a side that never moves aborts the
    // game); from then on South's clock runs out.
    a.send({ type: 'move', room, house: 1, ply: 0 });
    await b.state(room, (x) => x.ply === 1);
    b.send({ type: 'move', room, house: 1, ply: 1 });
    await a.state(room, (x) => x.ply === 2);
    const t0 = Date.now();
    for (const c of [a, b]) {
      const s = await c.state(room, (x) => x.status === 'finished', 5000);
      checkState(s);
      assert.equal(s.result.winner, 'north'); assert.equal(s.result.reason, 'timeout');
      assert.equal(s.clock.south_ms, 0);
      assert.equal(s.clock.running, null);
    }
    assert.ok(Date.now() - t0 < 4000);
    await a.error({ type: 'move', room, house: 2, ply: 2 }, 'game_over');
    await a.close(); await b.close();
  });
});

describe('abandonment', () => {
  let as;
  before(async () => {
    as = await startServer(['--abandon-ms', '1000', '--rate', '1000', '--burst', '1000']);
  });
  after(async () => { await as.stop(); });

  test('the countdown runs only on the absent player\'s turn, then: abandoned', async () => {
    const { a, b, room } = await pair(as);
    await b.close();
    const s = await a.state(room, (x) => x.players.north && x.players.north.connected === false);
    assert.equal(s.status, 'playing'); assert.equal(s.players.north.name, b.name);
    // South (present) to move: nothing happens however long North is away.
    await a.none((m) => m.type === 'state' && m.status === 'finished', 1800,
      'finished state on South\'s turn');
    const t0 = Date.now();
    a.send({ type: 'move', room, house: 1, ply: 0 });
    await a.state(room, (x) => x.ply === 1);
    const f = await a.state(room, (x) => x.status === 'finished', 5000);
    const took = Date.now() - t0;
    checkState(f);
    assert.equal(f.result.winner, 'south'); assert.equal(f.result.reason, 'abandoned');
    assert.ok(took >= 900, `the countdown started at North's turn (${took} ms)`);
    await a.close();
  });

  test('a player absent on their own turn loses; a watching spectator sees it', async () => {
    const { a, b, room } = await pair(as);
    const v = await hello(as, uname('Witness'));
    await v.req({ type: 'join', room, role: 'spectator' });
    await a.close();
    await b.state(room, (x) => x.players.south && x.players.south.connected === false);
    for (const c of [b, v]) {
      const f = await c.state(room, (x) => x.status === 'finished', 5000);
      assert.equal(f.result.winner, 'north'); assert.equal(f.result.reason, 'abandoned');
    }
    await b.close(); await v.close();
  });
});

describe('http', () => {
  test('GET /healthz: 200 JSON with status, version, uptime, rooms, connections', async () => {
    const r = await fetchText(`${srv.http}/healthz`);
    assert.equal(r.status, 200);
    assert.match(r.type, /json/);
    const j = JSON.parse(r.body);
    for (const k of ['status', 'version', 'uptime', 'rooms', 'connections']) {
      assert.ok(k in j, `${k} in ${r.body}`);
    }
    assert.equal(typeof j.uptime, 'number');
  });

  test('GET /metrics: Prometheus text format', async () => {
    const SAMPLE =
      /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})? [-+]?([0-9.eE+-]+|NaN|Inf|\+Inf|-Inf)( -?\d+)?$/;
    const r = await fetchText(`${srv.http}/metrics`);
    assert.equal(r.status, 200);
    assert.match(r.type, /^text\/plain/);
    const lines = r.body.split('\n').filter((l) => l && !l.startsWith('#'));
    assert.ok(lines.length > 0);
    for (const l of lines) {
      assert.match(l, SAMPLE, l);
    }
    assert.ok(/^# TYPE /m.test(r.body));
  });

  test('GET / and /r/CODE serve the same HTML page', async () => {
    const c = await hello(srv, uname('Web'));
    const { room } = await create(c, { game: 'kalah' });
    const root = await fetchText(`${srv.http}/`);
    const page = await fetchText(`${srv.http}/r/${room}`);
    assert.equal(root.status, 200); assert.equal(page.status, 200);
    assert.match(root.type, /text\/html/); assert.match(page.type, /text\/html/);
    assert.equal(page.body, root.body);
    assert.match(root.body, /<html/i);
    await c.close();
  });
});

describe('durability', () => {
  test('after a restart an unfinished game continues; players come back with their token',
    async () => {
      const first = await startServer(['--rate', '1000', '--burst', '1000']);
      let second;
      try {
        const { a, b, room } = await pair(first);
        a.send({ type: 'move', room, house: 3, ply: 0 });
        await b.state(room, (x) => x.ply === 1);
        a.send({ type: 'move', room, house: 6, ply: 1 });
        const before = await b.state(room, (x) => x.ply === 2);
        const tokens = [a.welcome, b.welcome];
        await first.stop({ keep: true });
        second = await startServer(['--rate', '1000', '--burst', '1000'], first.data);
        const seats = ['south', 'north'];
        const back = [];
        for (const [i, w] of tokens.entries()) {
          const c = await Client.open(second);
          const r = await c.req({ type: 'hello', name: w.name, token: w.token });
          assert.equal(r.player, w.player);
          const j = await c.req({ type: 'join', room, role: 'player' });
          assert.equal(j.type, 'joined', JSON.stringify(j)); assert.equal(j.seat, seats[i]);
          const s = await c.state(room, (x) => x.ply === 2);
          assert.deepEqual(s.pits, before.pits);
          assert.equal(s.turn, 'north');
          assert.equal(s.status, 'playing');
          back.push(c);
        }
        back[1].send({ type: 'move', room, house: 1, ply: 2 });
        await back[0].state(room, (x) => x.ply === 3);
        for (const c of back) await c.close();
      } finally {
        if (second) await second.stop(); else await first.stop().catch(() => {});
        rmSync(first.data, { recursive: true, force: true });
      }
    });
});
