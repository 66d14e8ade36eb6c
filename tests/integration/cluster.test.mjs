// A cluster (issue 21): three nodes sharing one PostgreSQL and one Redis, each started by this
// file (tests/pg.sh, tests/redis.sh, loopback ports). Games whose players and spectators are on
// different nodes, a reconnection through another node, and the owner of rooms killed -9 while
// they are played: another node takes them over, every game finishes, no acknowledged move lost.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { Client, followMoves, pair, playOut, sleep, startServer } from './harness.mjs';
import { psql, slowCommits } from './pgslow.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const PG_SH = process.env.MANCALA_PG_SH || path.resolve(here, '../pg.sh');
const REDIS_SH = process.env.MANCALA_REDIS_SH || path.resolve(here, '../redis.sh');
const LEASE_MS = 3000; // Short, so that take-overs come quickly here (the default is 10 s).

const sh = (script, ...args) => execFileSync('sh', [script, ...args], { encoding: 'utf8' }).trim();

let base, pgUrl, redisUrl;
const nodes = [];

before(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-cluster-'));
  fs.chmodSync(base, 0o755); // PostgreSQL runs as its own user.
  pgUrl = sh(PG_SH, 'start', path.join(base, 'pg'), 'auto');
  redisUrl = sh(REDIS_SH, 'start', path.join(base, 'redis'), 'auto');
});

after(async () => {
  for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
  try { sh(PG_SH, 'stop', path.join(base, 'pg')); } catch { /* already gone */ }
  try { sh(REDIS_SH, 'stop', path.join(base, 'redis')); } catch { /* already gone */ }
  fs.rmSync(base, { recursive: true, force: true });
});

async function node() {
  const n = await startServer(['--store', pgUrl, '--cluster', redisUrl, '--cluster-lease-ms', String(LEASE_MS)]);
  nodes.push(n);
  return n;
}

// Plays seats' moves (first legal house) until the game ends, each move sent by the client of the
// side to move, whichever node it is on; every state any of watchers gets is followed.
async function playToEnd(room, seats, first) {
  let st = first;
  const played = [];
  while (st.status === 'playing') {
    const mover = seats[st.turn];
    const reply = await mover.request({ type: 'move', room, house: st.legal[0], ply: st.ply }, 20000);
    assert.equal(reply.type, 'state', JSON.stringify(reply));
    st = reply;
    played.push({ seat: st.last.seat, house: st.last.house });
  }
  return { state: st, played };
}

test('a game whose players and spectator are on three nodes plays to its end; the archive has it', async () => {
  const [n1, n2, n3] = [await node(), await node(), await node()];
  const ana = await Client.connect(n1, { name: 'Ana' });
  const bo = await Client.connect(n2, { name: 'Bo' });
  const cy = await Client.connect(n3, { name: 'Cy' });
  const made = await ana.request({ type: 'create', game: 'kalah', seat: 'south', visibility: 'private' });
  assert.equal(made.type, 'joined', JSON.stringify(made));
  const room = made.room;
  // Bo joins through node 2, Cy watches through node 3: both reach the room on node 1.
  const j = await bo.request({ type: 'join', room }, 20000);
  assert.equal(j.type, 'joined', JSON.stringify(j));
  assert.equal(j.seat, 'north');
  const w = await cy.request({ type: 'join', room, role: 'spectator' }, 20000);
  assert.equal(w.type, 'joined', JSON.stringify(w));
  const first = await ana.state(room, (s) => s.status === 'playing', 20000);
  assert.equal(first.players.north.name, 'Bo');
  const { state, played } = await playToEnd(room, { south: ana, north: bo }, first);
  assert.equal(state.status, 'finished');
  // The spectator on the third node saw every move, in order.
  let list;
  for (;;) {
    const s = await cy.state(room, () => true, 20000);
    list = followMoves(list, s);
    assert.ok(list !== null, 'the spectator missed no state');
    if (s.status === 'finished') break;
  }
  assert.deepEqual(list, played);
  // Stored once, in the one database: any node's archive serves it.
  const res = await fetch(`${n3.http}/api/games/${state.game_id}`);
  assert.equal(res.status, 200);
  const rec = await res.json();
  assert.deepEqual(rec.moves.map((m) => ({ seat: m.seat, house: m.house })), played);
  for (const c of [ana, bo, cy]) await c.close();
});

test('a player reconnects through another node and keeps the seat', async () => {
  const [n1, n2, n3] = nodes.length >= 3 ? nodes : [await node(), await node(), await node()];
  const ana = await Client.connect(n1, { name: 'Ana' });
  const bo = await Client.connect(n2, { name: 'Bo' });
  const made = await ana.request({ type: 'create', game: 'oware', seat: 'south', visibility: 'private' });
  const room = made.room;
  assert.equal((await bo.request({ type: 'join', room }, 20000)).type, 'joined');
  let st = await ana.state(room, (s) => s.status === 'playing', 20000);
  st = await ana.request({ type: 'move', room, house: st.legal[0], ply: st.ply }, 20000);
  assert.equal(st.type, 'state', JSON.stringify(st));
  // Bo's connection drops; Bo comes back through node 3 with the token and asks for the room.
  const token = bo.me.token;
  await bo.close();
  const back = await Client.connect(n3, { token });
  assert.equal(back.me.resumed, true);
  assert.equal(back.me.player, bo.me.player);
  // Its hello alone brings it back into its room on node 1, as a reconnection to node 1 would.
  const auto = await back.next((m) => m.type === 'joined' && m.room === room, 20000);
  assert.equal(auto.seat, 'north');
  const j = await back.request({ type: 'join', room }, 20000);
  assert.equal(j.type, 'joined', JSON.stringify(j));
  assert.equal(j.seat, 'north');
  const full = await back.state(room, (s) => Array.isArray(s.moves), 20000);
  assert.equal(full.turn, 'north');
  const moved = await back.request({ type: 'move', room, house: full.legal[0], ply: full.ply }, 20000);
  assert.equal(moved.type, 'state', JSON.stringify(moved));
  assert.equal(moved.ply, 2);
  for (const c of [ana, back]) await c.close();
});

test('my_rooms through a third node lists the player\'s games on two other nodes, and follows them', async () => {
  const [n1, n2, n3] = nodes.length >= 3 ? nodes : [await node(), await node(), await node()];
  const ana = await Client.connect(n1, { name: 'Ana' });
  const bo = await Client.connect(n1, { name: 'Bo' });
  // Room A on node 1: Ana south, Bo north, playing.
  const a = await ana.request({ type: 'create', game: 'kalah', seat: 'south', visibility: 'private' });
  assert.equal(a.type, 'joined', JSON.stringify(a));
  assert.equal((await bo.request({ type: 'join', room: a.room })).type, 'joined');
  await ana.state(a.room, (s) => s.status === 'playing', 20000);
  // Room B on node 2: Ana (another connection, same token) waits in it, north.
  const ana2 = await Client.connect(n2, { token: ana.me.token });
  const b = await ana2.request({ type: 'create', game: 'oware', seat: 'north', visibility: 'private' }, 20000);
  assert.equal(b.type, 'joined', JSON.stringify(b));
  // Through node 3, which runs neither: both.
  const ana3 = await Client.connect(n3, { token: ana.me.token });
  // Its resumed hello brings it into both rooms (as in the test above).
  for (const room of [a.room, b.room]) await ana3.next((m) => m.type === 'joined' && m.room === room, 20000);
  const mine = await ana3.request({ type: 'my_rooms' }, 20000);
  assert.equal(mine.type, 'my_rooms', JSON.stringify(mine));
  const byRoom = (rooms) => Object.fromEntries(rooms.map((r) => [r.room, r]));
  assert.deepEqual(Object.keys(byRoom(mine.rooms)).sort(), [a.room, b.room].sort());
  assert.deepEqual(byRoom(mine.rooms)[a.room], {
    room: a.room, game: 'kalah', houses: 6, seeds: 4, options: { empty_capture: false },
    clock: null, visibility: 'private', local: false, status: 'playing', you: 'south',
    opponent: { id: bo.me.player, name: 'Bo', connected: true }, turn: 'south', your_turn: true,
    ply: 0, game_no: 1,
  });
  const waiting = byRoom(mine.rooms)[b.room];
  assert.equal(waiting.game, 'oware');
  assert.equal(waiting.status, 'waiting');
  assert.equal(waiting.you, 'north');
  assert.equal(waiting.opponent, null);
  assert.equal(waiting.turn, null);
  assert.equal(waiting.your_turn, false);
  // Followed: Ana's first house (4 seeds into houses 2 to 5, none in the store) gives North the move.
  const list = (pred) => ana3.next((m) => m.type === 'my_rooms' && pred(byRoom(m.rooms)), 20000);
  assert.equal((await ana.request({ type: 'move', room: a.room, house: 1, ply: 0 })).type, 'state');
  const moved = await list((r) => r[a.room] && r[a.room].ply === 1);
  assert.equal(moved.rooms.find((r) => r.room === a.room).turn, 'north');
  assert.equal(moved.rooms.find((r) => r.room === a.room).your_turn, false);
  // A game over leaves the list; so does a waiting room its last player left.
  assert.notEqual((await bo.request({ type: 'resign', room: a.room })).type, 'error');
  await list((r) => !r[a.room] && r[b.room]);
  for (const c of [ana3, ana2]) assert.equal((await c.request({ type: 'leave', room: b.room }, 20000)).type, 'left');
  await list((r) => Object.keys(r).length === 0);
  for (const c of [ana, ana2, ana3, bo]) await c.close();
});

test('an account joins a room on a node that never saw it: its account is read there (off the loop) before its command runs', async () => {
  const [n1, n2] = nodes.length >= 2 ? nodes : [await node(), await node()];
  const ana = await Client.connect(n1, { name: 'Ana' });
  const guest = await Client.connect(n2, { name: 'Guest' });
  const accountName = `Bo_${process.pid % 100000}`;
  const reg = await guest.request({ type: 'register', name: accountName, password: 'correct horse battery staple' }, 20000);
  assert.equal(reg.type, 'account', JSON.stringify(reg));
  const made = await ana.request({ type: 'create', game: 'kalah', seat: 'south', visibility: 'private' });
  // Its join and a chat right behind it reach node 1 together: both wait for the account, in order.
  guest.send({ type: 'join', room: made.room, id: 'j' });
  guest.send({ type: 'chat', room: made.room, text: 'hi', id: 'c' });
  const j = await guest.next((m) => m.id === 'j', 20000);
  assert.equal(j.type, 'joined', JSON.stringify(j));
  const c = await guest.next((m) => m.id === 'c', 20000);
  assert.notEqual(c.type, 'error', JSON.stringify(c));
  const st = await ana.state(made.room, (s) => s.status === 'playing', 20000);
  assert.equal(st.players.north.name, accountName);
  assert.equal(st.players.north.account, true);
  const said = await ana.next((m) => m.type === 'chat' && m.room === made.room, 20000);
  assert.equal(said.text, 'hi');
  for (const x of [ana, guest]) await x.close();
});

test('a create retried through another node with its request id gets the room the first made', async () => {
  const [n1, n2] = nodes.length >= 2 ? nodes : [await node(), await node()];
  const ana = await Client.connect(n1, { name: 'Ana' });
  const create = { type: 'create', game: 'kalah', seat: 'south', visibility: 'private', id: 'create-7' };
  ana.send(create);
  const first = await ana.next((m) => m.id === 'create-7', 20000);
  assert.equal(first.type, 'joined', JSON.stringify(first));
  // Its answer lost with its connection: the same request again, through node 2.
  const token = ana.me.token;
  await ana.close();
  const again = await Client.connect(n2, { token });
  again.send(create);
  const second = await again.next((m) => m.id === 'create-7', 20000);
  assert.equal(second.type, 'joined', JSON.stringify(second));
  assert.equal(second.room, first.room, 'no twin');
  assert.equal(second.seat, 'south');
  // Another request id makes another room.
  const other = await again.request({ type: 'create', game: 'kalah', seat: 'south', visibility: 'private' }, 20000);
  assert.equal(other.type, 'joined');
  assert.notEqual(other.room, first.room);
  await again.close();
});

test('the lobby lists the rooms of every node; quick play pairs players on different nodes', async () => {
  const [n1, n2] = nodes.length >= 3 ? nodes : [await node(), await node()];
  const ana = await Client.connect(n1, { name: 'Ana' });
  const bo = await Client.connect(n2, { name: 'Bo' });
  const watcher = await Client.connect(n2, { name: 'Wes' });
  // A public room waiting on node 1 shows in node 2's lobby (nodes tell each other every second).
  const clock = { initial_ms: 300000, increment_ms: 3000 };
  const seek = await ana.request({ type: 'quick', game: 'oware', clock }, 20000);
  assert.equal(seek.type, 'joined', JSON.stringify(seek));
  let listed = null;
  for (let i = 0; i < 50 && !listed; i++) {
    const lobby = await watcher.request({ type: 'lobby', watch: false }, 20000);
    listed = lobby.rooms.find((r) => r.code === seek.room);
    if (!listed) await sleep(200);
  }
  assert.ok(listed, 'the room of node 1 is in the lobby of node 2');
  assert.equal(listed.status, 'waiting');
  // Bo asks node 2 for the same pool: paired with Ana's room on node 1.
  const paired = await bo.request({ type: 'quick', game: 'oware', clock }, 20000);
  assert.equal(paired.type, 'joined', JSON.stringify(paired));
  assert.equal(paired.room, seek.room);
  const st = await ana.state(seek.room, (s) => s.status === 'playing', 20000);
  assert.equal(st.players.north.name === 'Bo' || st.players.south.name === 'Bo', true);
  for (const c of [ana, bo, watcher]) await c.close();
});

test('the owner killed -9 during games: another node takes them over, every game finishes, no acknowledged move lost', { timeout: 240000 }, async () => {
  const GAMES = 10;
  const owner = await node();
  const others = nodes.filter((n) => n !== owner && n.child.exitCode === null).slice(0, 2);
  while (others.length < 2) others.push(await node());
  // Each game: South on the owner (it creates the room there), North on another node.
  const games = [];
  for (let g = 0; g < GAMES; g++) {
    const south = await Client.connect(owner, { name: `S${g}` });
    const north = await Client.connect(others[g % 2], { name: `N${g}` });
    const made = await south.request({ type: 'create', game: 'kalah', houses: 4, seeds: 3, seat: 'south', visibility: 'private' });
    assert.equal(made.type, 'joined');
    assert.equal((await north.request({ type: 'join', room: made.room }, 20000)).type, 'joined');
    const st = await north.state(made.room, (s) => s.status === 'playing', 20000);
    games.push({ room: made.room, south, north, st, acked: [], southToken: south.me.token });
  }
  // A few moves each, acknowledged, then the owner dies.
  for (const g of games) {
    for (let i = 0; i < 3 && g.st.status === 'playing'; i++) {
      const mover = g.st.turn === 'south' ? g.south : g.north;
      const r = await mover.request({ type: 'move', room: g.room, house: g.st.legal[0], ply: g.st.ply }, 20000);
      assert.equal(r.type, 'state', JSON.stringify(r));
      g.st = r;
      g.acked.push({ seat: r.last.seat, house: r.last.house });
    }
  }
  const killedAt = Date.now();
  owner.child.kill('SIGKILL');
  await owner.exited;
  // South players come back through the surviving nodes; every game is played to its end.
  let firstAccepted = null;
  for (const [i, g] of games.entries()) {
    g.south = await Client.connect(others[i % 2 === 0 ? 1 : 0], { token: g.southToken });
    for (let tries = 0; ; tries++) {
      const j = await g.south.request({ type: 'join', room: g.room }, 20000);
      if (j.type === 'joined') break;
      assert.equal(j.code, 'unavailable', JSON.stringify(j)); // Until its lease lapses.
      assert.ok(tries < 60, 'taken over in time');
      await sleep(500);
    }
    const full = await g.south.state(g.room, (s) => Array.isArray(s.moves), 20000);
    assert.deepEqual(full.moves.map((m) => ({ seat: m.seat, house: m.house })), g.acked, `${g.room}: every acknowledged move is there`);
    g.st = full;
  }
  for (const g of games) {
    while (g.st.status === 'playing') {
      const mover = g.st.turn === 'south' ? g.south : g.north;
      const r = await mover.request({ type: 'move', room: g.room, house: g.st.legal[0], ply: g.st.ply }, 20000);
      if (r.type === 'error' && r.code === 'unavailable') { await sleep(300); continue; }
      if (r.type === 'error' && r.code === 'stale') {
      // Pub/sub is at most once: a resync routed while Redis restarts may get no answer (the
      // client's time limit covers it); the loop asks again.
      const again = await mover.request({ type: 'resync', room: g.room }, 20000).catch(() => null);
      if (again && again.type === 'state') g.st = again;
      continue;
    }
      assert.equal(r.type, 'state', JSON.stringify(r));
      if (firstAccepted === null) firstAccepted = Date.now();
      g.st = r;
      g.acked.push({ seat: r.last.seat, house: r.last.house });
    }
    const res = await fetch(`${others[0].http}/api/games/${g.st.game_id}`);
    assert.equal(res.status, 200);
    const rec = await res.json();
    assert.deepEqual(rec.moves.map((m) => ({ seat: m.seat, house: m.house })), g.acked, `${g.room}: archived as played`);
  }
  console.log(`# take-over: ${firstAccepted - killedAt} ms from the kill -9 to the first accepted move (lease ${LEASE_MS} ms)`);
  for (const g of games) { await g.south.close(); await g.north.close(); }
});

// Plays g's game on from its state until it ends: every move accepted (a state) is kept in acked;
// refusals while a service is down (unavailable, storage_error) are waited out and asked again.
async function finish(g, refusals = new Set(['unavailable', 'storage_error'])) {
  while (g.st.status === 'playing') {
    const mover = g.st.turn === 'south' ? g.south : g.north;
    const r = await mover.request({ type: 'move', room: g.room, house: g.st.legal[0], ply: g.st.ply }, 20000)
      .catch(() => ({ type: 'error', code: 'timeout' }));
    if (r.type === 'error' && (refusals.has(r.code) || r.code === 'timeout' || r.code === 'not_in_room')) {
      await sleep(300);
      const again = await mover.request({ type: 'resync', room: g.room }, 20000).catch(() => null);
      if (again && again.type === 'state') g.st = again;
      continue;
    }
    if (r.type === 'error' && r.code === 'stale') {
      // Pub/sub is at most once: a resync routed while Redis restarts may get no answer (the
      // client's time limit covers it); the loop asks again.
      const again = await mover.request({ type: 'resync', room: g.room }, 20000).catch(() => null);
      if (again && again.type === 'state') g.st = again;
      continue;
    }
    assert.equal(r.type, 'state', JSON.stringify(r));
    g.st = r;
    g.acked.push({ seat: r.last.seat, house: r.last.house });
  }
}

// The archive's moves of g's finished game, from node n.
async function archived(n, g) {
  const res = await fetch(`${n.http}/api/games/${g.st.game_id}`);
  assert.equal(res.status, 200, n.log.split('\n').filter((l) => / (ERROR|WARN) /.test(l)).slice(-10).join('\n'));
  return (await res.json()).moves.map((m) => ({ seat: m.seat, house: m.house }));
}

async function newGame(a, b, name) {
  const south = await Client.connect(a, { name: `${name}S` });
  const north = await Client.connect(b, { name: `${name}N` });
  const made = await south.request({ type: 'create', game: 'kalah', houses: 4, seeds: 3, seat: 'south', visibility: 'private' });
  assert.equal(made.type, 'joined', JSON.stringify(made));
  const j = await north.request({ type: 'join', room: made.room }, 20000);
  assert.equal(j.type, 'joined', JSON.stringify(j));
  const st = await south.state(made.room, (s) => s.status === 'playing', 20000);
  return { room: made.room, south, north, st, acked: [] };
}

test('/healthz names the node, its leases and Redis; Redis restarted during play: refused meanwhile, nothing lost', { timeout: 120000 }, async () => {
  const live = nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
  const [a, b] = live.length >= 2 ? live : [await node(), await node()];
  const g = await newGame(a, b, 'R');
  const health = await (await fetch(`${a.http}/healthz`)).json();
  assert.equal(health.status, 'ok');
  assert.match(health.cluster.node, /^[0-9a-f]{16}$/);
  assert.equal(health.cluster.redis, 'up');
  assert.ok(health.cluster.leases >= 1, JSON.stringify(health));
  const metrics = await (await fetch(`${a.http}/metrics`)).text();
  assert.match(metrics, /mancala_cluster_leases \d+/);
  for (let i = 0; i < 2; i++) {
    const mover = g.st.turn === 'south' ? g.south : g.north;
    const r = await mover.request({ type: 'move', room: g.room, house: g.st.legal[0], ply: g.st.ply }, 20000);
    assert.equal(r.type, 'state', JSON.stringify(r));
    g.st = r;
    g.acked.push({ seat: r.last.seat, house: r.last.house });
  }
  sh(REDIS_SH, 'kill', path.join(base, 'redis'));
  // The node that cannot reach Redis says so; a move through the other node is refused.
  let down = null;
  for (let i = 0; i < 40 && !down; i++) {
    const h = await fetch(`${b.http}/healthz`);
    const body = await h.json();
    if (body.cluster.redis === 'down') down = { code: h.status, body };
    else await sleep(100);
  }
  assert.ok(down, 'healthz says Redis is down');
  assert.equal(down.code, 503);
  assert.equal(down.body.status, 'degraded');
  await sleep(500);
  sh(REDIS_SH, 'restart', path.join(base, 'redis'));
  await finish(g);
  assert.deepEqual(await archived(b, g), g.acked, 'every acknowledged move archived, in order');
  // Once Redis is back, every room of a node holds its lease again, and /healthz counts those
  // (a lease whose taking failed while Redis came back used to stay, counted and never renewed).
  for (const n of [a, b]) {
    let h = null;
    for (let i = 0; i < 100; i++) {
      h = await (await fetch(`${n.http}/healthz`)).json();
      if (h.cluster.redis === 'up' && h.cluster.leases === h.rooms) break;
      await sleep(100);
    }
    assert.equal(h.cluster.leases, h.rooms, JSON.stringify(h));
  }
  await g.south.close();
  await g.north.close();
});

test('leases are renewed in one script a tick, and again after Redis forgot its scripts (NOSCRIPT)', { timeout: 120000 }, async () => {
  const live = nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
  const [a, b] = live.length >= 2 ? live : [await node(), await node()];
  const g = await newGame(a, b, 'L');
  const gauge = async (name) => Number((await (await fetch(`${a.http}/metrics`)).text()).match(new RegExp(`^${name} (\\d+)$`, 'm'))[1]);
  // What an earlier test left (leases lost when Redis restarted) settles first: a renewal tick.
  await sleep(LEASE_MS);
  // The scripts Redis keeps are dropped (as a restart without persistence would): the next
  // renewal's EVALSHA is answered NOSCRIPT and sent again as EVAL.
  execFileSync('redis-cli', ['-u', redisUrl, 'SCRIPT', 'FLUSH']);
  const [batches0, renewals0, lost0] = [await gauge('mancala_cluster_lease_renewal_batches_total'),
    await gauge('mancala_cluster_lease_renewals_total'), await gauge('mancala_cluster_leases_lost_total')];
  // Two leases' time: without renewals the room's lease would lapse and its moves be refused.
  await sleep(2 * LEASE_MS);
  const batches = (await gauge('mancala_cluster_lease_renewal_batches_total')) - batches0;
  const renewals = (await gauge('mancala_cluster_lease_renewals_total')) - renewals0;
  // A renewal each second (a third of 3 s): about 6 ticks, one script each for this node's leases.
  assert.ok(batches >= 4 && batches <= 8, `${batches} batches`);
  assert.ok(renewals >= 4, `${renewals} renewals`); // this game's lease at least, at every tick
  assert.equal(await gauge('mancala_cluster_leases_lost_total'), lost0);
  const mover = g.st.turn === 'south' ? g.south : g.north;
  const r = await mover.request({ type: 'move', room: g.room, house: g.st.legal[0], ply: g.st.ply }, 20000);
  assert.equal(r.type, 'state', JSON.stringify(r));
  await g.south.close();
  await g.north.close();
});

test('PostgreSQL restarted during play: refused meanwhile, nothing lost', { timeout: 120000 }, async () => {
  const live = nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
  const g = await newGame(live[0], live[1], 'P');
  const mover = g.st.turn === 'south' ? g.south : g.north;
  const r = await mover.request({ type: 'move', room: g.room, house: g.st.legal[0], ply: g.st.ply }, 20000);
  assert.equal(r.type, 'state', JSON.stringify(r));
  g.st = r;
  g.acked.push({ seat: r.last.seat, house: r.last.house });
  sh(PG_SH, 'kill', path.join(base, 'pg'));
  const next = g.st.turn === 'south' ? g.south : g.north;
  const refused = await next.request({ type: 'move', room: g.room, house: g.st.legal[0], ply: g.st.ply }, 20000);
  assert.equal(refused.type, 'error', JSON.stringify(refused));
  assert.equal(refused.code, 'storage_error');
  sh(PG_SH, 'restart', path.join(base, 'pg'));
  await finish(g);
  assert.deepEqual(await archived(live[1], g), g.acked, 'every acknowledged move archived, in order');
  await g.south.close();
  await g.north.close();
});

test('an owner paused past its lease commits nothing after another node took its room (the fence)', { timeout: 120000 }, async () => {
  const owner = await node();
  const other = nodes.find((n) => n !== owner && n.child.exitCode === null && n.child.signalCode === null) || await node();
  const g = await newGame(owner, other, 'F');
  const first = g.st.turn === 'south' ? g.south : g.north;
  const r = await first.request({ type: 'move', room: g.room, house: g.st.legal[0], ply: g.st.ply }, 20000);
  assert.equal(r.type, 'state');
  g.st = r;
  g.acked.push({ seat: r.last.seat, house: r.last.house });
  g.north.inbox.length = 0; // What came before the pause (its first join's full state) is read.
  owner.child.kill('SIGSTOP');
  try {
    // The player on the other node: its move goes to the paused owner and gets no answer; once the
    // owner's lease and presence lapse the other node takes the room over and brings it back.
    const mover = g.st.turn === 'south' ? g.south : g.north;
    assert.equal(mover, g.north, 'North, on the other node, is to move');
    const lost = await mover.request({ type: 'move', room: g.room, house: g.st.legal[0], ply: g.st.ply }, 2000)
      .catch(() => null);
    assert.equal(lost, null, 'the paused owner does not answer');
    const back = await g.north.next((m) => m.type === 'joined' && m.room === g.room, 30000);
    assert.equal(back.seat, 'north');
    const full = await g.north.state(g.room, (s) => Array.isArray(s.moves), 20000);
    assert.deepEqual(full.moves.map((m) => ({ seat: m.seat, house: m.house })), g.acked);
    g.st = full;
    const moved = await g.north.request({ type: 'move', room: g.room, house: full.legal[full.legal.length - 1], ply: full.ply }, 20000);
    assert.equal(moved.type, 'state', JSON.stringify(moved));
    g.st = moved;
    g.acked.push({ seat: moved.last.seat, house: moved.last.house });
  } finally {
    owner.child.kill('SIGCONT');
  }
  // The owner wakes up with the room in memory and North's old move in its queue: it may play it,
  // but its commit names the old owner epoch and is refused; its lease is gone, so the room leaves
  // it and South comes back through the new owner.
  await finish(g);
  assert.deepEqual(await archived(other, g), g.acked, 'only the new owner\'s moves are stored');
  // The woken owner found its lease taken and let the room go.
  for (let i = 0; i < 50 && !/lease lost/.test(owner.log); i++) await sleep(100);
  assert.match(owner.log, new RegExp(`room ${g.room}: lease lost`));
  console.log('# the woken owner: ' + owner.log.split('\n').filter((l) => /fence|newer owner|lease lost|epoch/.test(l)).join(' | '));
  await g.south.close();
  await g.north.close();
});

// nginx in front of the nodes, plain round-robin (no sticky sessions), as a site would run it.
async function startNginx(ns) {
  const port = await new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => { const p = srv.address().port; srv.close(() => resolve(p)); });
  });
  const dir = fs.mkdtempSync(path.join(base, 'nginx-'));
  fs.writeFileSync(path.join(dir, 'nginx.conf'), `daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream nodes {
${ns.map((n) => `    server 127.0.0.1:${n.port} max_fails=0;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://nodes;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection "upgrade";
      proxy_read_timeout 300s;
      proxy_next_upstream error timeout;
      proxy_connect_timeout 1s;
    }
  }
}
`);
  const child = spawn('/usr/sbin/nginx', ['-c', path.join(dir, 'nginx.conf'), '-p', dir], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise((resolve) => {
      const c = net.connect(port, '127.0.0.1', () => { c.end(); resolve(true); });
      c.on('error', () => resolve(false));
    });
    if (up) break;
    await sleep(50);
  }
  return { child, url: `ws://127.0.0.1:${port}/ws`, http: `http://127.0.0.1:${port}` };
}

// A player behind the load balancer: moves whenever a state says it is its turn; when its
// connection drops (its node died) it comes back through the balancer with its token and joins
// its room again. seen: room -> the longest move list any client saw (followMoves).
class Bot {
  constructor(name, url, seen) {
    Object.assign(this, { name, url, seen, token: undefined, room: null, done: false, lists: new Map(), sent: -1, acked: [] });
  }

  connect() {
    return new Promise((resolve) => {
      const ws = new WebSocket(this.url, 'mancala.v1');
      this.ws = ws;
      ws.on('error', () => {});
      ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', name: this.name, token: this.token })));
      ws.on('close', () => {
        resolve(false);
        if (!this.done) setTimeout(() => this.reconnect(), 200);
      });
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString());
        if (m.type === 'welcome') {
          this.token = m.token;
          this.sent = -1; // A move sent on the connection that dropped may never have arrived.
          if (this.room) this.send({ type: 'join', room: this.room, id: 'rejoin' });
          resolve(true);
        } else if (m.type === 'joined' && this.onJoined) {
          this.onJoined(m);
        } else if (m.type === 'state' && m.room === this.room) {
          this.onState(m);
        } else if (m.type === 'error' && m.id === 'rejoin') {
          setTimeout(() => this.send({ type: 'join', room: this.room, id: 'rejoin' }), 300);
        } else if (m.type === 'error' && m.id === 'move') {
          this.sent = -1; // Refused (its node went away, a service was down): asked again.
          setTimeout(() => this.send({ type: 'resync', room: this.room }), 300);
        }
      });
    });
  }

  async reconnect() {
    while (!this.done && !(await this.connect())) await sleep(200);
  }

  send(obj) {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(obj));
  }

  onState(s) {
    const list = followMoves(this.lists.get(s.game_no), s);
    this.lists.set(s.game_no, list);
    if (list === null) this.send({ type: 'resync', room: s.room });
    else {
      const prev = this.seen.get(s.room);
      if (!prev || list.length > prev.length) this.seen.set(s.room, list);
    }
    if (s.id === 'move' && s.last) this.acked.push({ ply: s.ply, seat: s.last.seat, house: s.last.house });
    this.last = s;
    // A full state (a join, a resync, a take-over's return) is where the game stands: a move sent
    // before it and not in it was lost with its node, and is sent again.
    if (Array.isArray(s.moves)) this.sent = -1;
    if (s.status === 'finished') { this.finished = s; return; }
    if (s.status === 'playing' && s.turn === this.seat && this.sent !== s.ply) {
      this.sent = s.ply;
      // A moment to think, as people do: the games are still on when a node dies.
      const house = s.legal[Math.floor(Math.random() * s.legal.length)];
      setTimeout(() => this.send({ type: 'move', room: s.room, house, ply: s.ply, id: 'move' }), 20 + Math.random() * 40);
    }
  }
}

test('rooms of a node killed -9 that nobody touches are swept: the clock ends the game, the waiting room runs again', { timeout: 120000 }, async () => {
  const owner = await node();
  const others = nodes.filter((n) => n !== owner && n.child.exitCode === null && n.child.signalCode === null).slice(0, 2);
  while (others.length < 2) others.push(await node());
  // Everyone on the owner: nobody elsewhere brings anything back after the kill.
  const ana = await Client.connect(owner, { name: 'Ana' });
  const bo = await Client.connect(owner, { name: 'Bo' });
  const cy = await Client.connect(owner, { name: 'Cy' });
  const made = await ana.request({ type: 'create', game: 'kalah', seat: 'south', visibility: 'private', clock: { initial_ms: 3000, increment_ms: 0 } });
  assert.equal(made.type, 'joined', JSON.stringify(made));
  const room = made.room;
  assert.equal((await bo.request({ type: 'join', room })).type, 'joined');
  // Both first moves (they cost no time): South's house 1 sows its 4 seeds into houses 2 to 5,
  // North's first house the same on its side; then South's 3 s run.
  let st = await ana.state(room, (s) => s.status === 'playing');
  st = await ana.request({ type: 'move', room, house: 1, ply: 0 });
  assert.equal(st.turn, 'north', JSON.stringify(st));
  st = await bo.request({ type: 'move', room, house: st.legal[0], ply: 1 });
  assert.equal(st.turn, 'south', JSON.stringify(st));
  const waiting = await cy.request({ type: 'create', game: 'oware', seat: 'south', visibility: 'public' });
  assert.equal(waiting.type, 'joined', JSON.stringify(waiting));
  // Any live node may sweep them: the sum over all.
  const survivors = nodes.filter((n) => n !== owner && n.child.exitCode === null && n.child.signalCode === null);
  const swept = async () => {
    let total = 0;
    for (const n of survivors) {
      const text = await (await fetch(`${n.http}/metrics`)).text();
      total += Number(text.match(/^mancala_cluster_swept_total (\d+)$/m)[1]);
    }
    return total;
  };
  const before = await swept();
  owner.child.kill('SIGKILL');
  await owner.exited;
  // Its presence lapses within a lease; a sweep (every second) takes both rooms over.
  let after = before;
  for (let i = 0; i < 100 && after < before + 2; i++) {
    await sleep(200);
    after = await swept();
  }
  assert.equal(after, before + 2, 'both rooms swept');
  // South's clock resumed on the new owner (the gap not charged) and fell with nobody there.
  await sleep(4000);
  const spy = await Client.connect(others[0], { name: 'Spy' });
  const j = await spy.request({ type: 'join', room, role: 'spectator' }, 20000);
  assert.equal(j.type, 'joined', JSON.stringify(j));
  const end = await spy.state(room, () => true, 20000);
  assert.equal(end.status, 'finished', JSON.stringify(end));
  assert.deepEqual([end.result.winner, end.result.reason], ['north', 'timeout']);
  // The waiting room runs on a live node again (its idle timer with it: --idle-room-ms closes it),
  // Cy's seat shown away; the lobby lists a waiting room only while its player is there.
  const w = await spy.request({ type: 'join', room: waiting.room, role: 'spectator' }, 20000);
  assert.equal(w.type, 'joined', JSON.stringify(w));
  const ws = await spy.state(waiting.room, () => true, 20000);
  assert.equal(ws.status, 'waiting');
  assert.equal(ws.players.south.name, 'Cy');
  assert.equal(ws.players.south.connected, false);
  await spy.close();
});

test('30 games through nginx round-robin, a node killed -9 at a random moment: every game finishes, no acknowledged move lost', { timeout: 300000 }, async () => {
  const live = nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
  while (live.length < 3) live.push(await node());
  const lb = await startNginx(live);
  const seen = new Map();
  const bots = [];
  try {
    for (let g = 0; g < 30; g++) {
      const s = new Bot(`LS${g}`, lb.url, seen), n = new Bot(`LN${g}`, lb.url, seen);
      await s.connect();
      await n.connect();
      const joined = new Promise((resolve) => { s.onJoined = resolve; });
      s.send({ type: 'create', game: 'kalah', seat: 'south', visibility: 'private' });
      const j = await joined;
      s.onJoined = null;
      s.room = n.room = j.room;
      s.seat = 'south';
      n.seat = 'north';
      n.send({ type: 'join', room: j.room, id: 'rejoin' });
      bots.push(s, n);
    }
    // Somewhere in the games, one node dies.
    await sleep(200 + Math.floor(Math.random() * 1500));
    const victim = live[Math.floor(Math.random() * live.length)];
    const before = bots.filter((b) => b.finished).length / 2;
    victim.child.kill('SIGKILL');
    await victim.exited;
    console.log(`# a node killed with ${30 - before} of 30 games still on`);
    const until = Date.now() + 120000;
    while (bots.some((b) => !b.finished) && Date.now() < until) await sleep(200);
    const unfinished = bots.filter((b) => !b.finished).map((b) => b.room);
    assert.deepEqual(unfinished, [], 'every game finished: ' + JSON.stringify(bots.filter((b) => !b.finished)
      .map((b) => ({ name: b.name, seat: b.seat, sent: b.sent, ply: b.last && b.last.ply, turn: b.last && b.last.turn, status: b.last && b.last.status, open: b.ws.readyState }))));
    const survivor = live.find((n) => n !== victim);
    for (let i = 0; i < bots.length; i += 2) {
      const s = bots[i];
      const res = await fetch(`${survivor.http}/api/games/${s.finished.game_id}`);
      assert.equal(res.status, 200);
      const moves = (await res.json()).moves.map((m) => ({ seat: m.seat, house: m.house }));
      assert.deepEqual(moves, seen.get(s.room), `${s.room}: archived as its players saw it`);
      for (const b of [s, bots[i + 1]])
        for (const a of b.acked)
          assert.deepEqual(moves[a.ply - 1], { seat: a.seat, house: a.house }, `${s.room}: acknowledged move ${a.ply} kept`);
    }
  } finally {
    for (const b of bots) { b.done = true; b.ws.close(); }
    lb.child.kill('SIGTERM');
  }
});

// docs/cluster.md, "Frames for other nodes' connections": a stand-in's frames carry the storage
// batch of their turn, as a local connection's do, and leave when it is committed. The room's
// owner writes to PostgreSQL through a proxy that holds every answer to its write connection for
// 700 ms, and three pairs playing there keep a batch in flight nearly all the time, so that the
// commands below run in turns whose batch is sealed only once the one in flight is committed.
// Each time a client on the other node reads a state, a chat line or a reply, PostgreSQL itself
// (not through the proxy) already has what it reports. States and chat lines were already
// encoded at their batch's commit; a reply sent at once ("left") left with the commit of the
// batch in flight before, while its own write was still to come (the old sink published every
// stand-in frame at each commit).
test('a client on another node reads a state, a chat line or a reply only once its write is committed', { timeout: 180000 }, async (t) => {
  const proxy = await slowCommits(Number(new URL(pgUrl).port), 700);
  const slowUrl = pgUrl.replace(/:\d+\//, `:${proxy.port}/`);
  const started = [];
  const busy = [];
  try {
    const owner = await startServer(['--store', slowUrl, '--cluster', redisUrl, '--cluster-lease-ms', String(LEASE_MS)]);
    started.push(owner);
    const other = await startServer(['--store', pgUrl, '--cluster', redisUrl, '--cluster-lease-ms', String(LEASE_MS)]);
    started.push(other);
    // Three pairs play game after game on the owner until the end of the test.
    let done = false;
    for (let i = 0; i < 3; i++) {
      const a = await Client.connect(owner, { name: `Busy${i}a` });
      const b = await Client.connect(owner, { name: `Busy${i}b` });
      busy.push(a, b);
      (async () => {
        while (!done) {
          const g = await pair(a, b);
          await playOut(g.room, { south: a, north: b }, g.state);
          await a.request({ type: 'leave', room: g.room });
          await b.request({ type: 'leave', room: g.room });
        }
      })().catch(() => { /* closed at the end */ });
    }
    const ana = await Client.connect(owner, { name: 'Ana' });
    const bo = await Client.connect(other, { name: 'Bo' });
    const made = await ana.request({ type: 'create', game: 'kalah', seat: 'south', visibility: 'private' }, 20000);
    assert.equal(made.type, 'joined', JSON.stringify(made));
    const room = made.room;
    assert.equal((await bo.request({ type: 'join', room }, 20000)).seat, 'north');
    let st = await ana.state(room, (s) => s.status === 'playing', 20000);
    const stored = () => Number(psql(pgUrl, `SELECT count(*) FROM moves m JOIN games g ON g.id = m.game WHERE g.room = '${room}'`));
    let seen = 0;
    for (let k = 0; k < 6 && st.status === 'playing'; k++) {
      if (st.turn === 'south') {
        // Ana's move, on the owner: Bo reads its state through his stand-in there.
        const r = await ana.request({ type: 'move', room, house: st.legal[0], ply: st.ply }, 20000);
        assert.equal(r.type, 'state', JSON.stringify(r));
        const s = await bo.state(room, (x) => x.ply >= r.ply, 20000);
        const n = stored();
        assert.ok(n >= s.ply, `Bo read the state of ply ${s.ply} with ${n} moves committed`);
        st = r;
      } else {
        // Bo's move, routed to the owner: its reply comes back through the stand-in.
        const r = await bo.request({ type: 'move', room, house: st.legal[0], ply: st.ply }, 20000);
        assert.equal(r.type, 'state', JSON.stringify(r));
        const n = stored();
        assert.ok(n >= r.ply, `Bo read the reply to his move (ply ${r.ply}) with ${n} moves committed`);
        st = r;
      }
      seen++;
    }
    assert.ok(seen >= 4, `${seen} plies checked`);
    for (let k = 0; k < 3; k++) {
      const text = `line ${k} from Bo`;
      const said = await bo.request({ type: 'chat', room, text }, 20000);
      assert.equal(said.type, 'chat', JSON.stringify(said));
      assert.equal(psql(pgUrl, `SELECT count(*) FROM chat WHERE room = '${room}' AND text = '${text}'`), '1',
        `Bo read his chat line ${k} once it was stored`);
    }
    // A reply sent at once, not with a room's states: "left". Ana waits alone in a room of the
    // owner's, also through a second connection on the other node (her token); she leaves it
    // here (she is still in it there), then there: her seat is freed, the room closes, and its
    // row is deleted in the batch of that turn. Her "left" comes back through her stand-in.
    const remote = await Client.connect(other, { token: ana.me.token });
    for (let k = 0; k < 3; k++) {
      const w = await ana.request({ type: 'create', game: 'oware', seat: 'south', visibility: 'private' }, 20000);
      assert.equal(w.type, 'joined', JSON.stringify(w));
      const j = await remote.request({ type: 'join', room: w.room }, 20000);
      assert.equal(j.type, 'joined', JSON.stringify(j));
      assert.equal((await ana.request({ type: 'leave', room: w.room }, 20000)).type, 'left');
      assert.equal(psql(pgUrl, `SELECT count(*) FROM rooms WHERE code = '${w.room}'`), '1', 'still open: Ana is in it on the other node');
      const left = await remote.request({ type: 'leave', room: w.room }, 20000);
      assert.equal(left.type, 'left', JSON.stringify(left));
      assert.equal(psql(pgUrl, `SELECT count(*) FROM rooms WHERE code = '${w.room}'`), '0',
        `room ${k}: Ana read "left" once its closing was committed`);
    }
    await remote.close();
    done = true;
    for (const c of [ana, bo, ...busy]) await c.close();
    busy.length = 0;
    for (const n of started) assert.deepEqual(await n.stop(), { code: 0, signal: null });
  } catch (e) {
    for (const n of started) t.diagnostic(`node log:\n${n.log.slice(-3000)}`);
    throw e;
  } finally {
    for (const c of busy) c.ws.close();
    for (const n of started) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
    proxy.close();
  }
});

test('every node stops cleanly', async () => {
  for (const n of nodes) {
    if (n.child.exitCode !== null || n.child.signalCode !== null) continue;
    assert.deepEqual(await n.stop(), { code: 0, signal: null });
  }
});
