// The cost of a move does not grow with the game: a state after a move carries the move in "last"
// and not the game's move list, so its size depends on the board only; a full state (join,
// resync) lists every move. A client that reads promptly gets a state for every ply; one that has
// not read what it was sent before skips states (the newest replaces the unsent older ones) and
// catches up with resync, following docs/protocol.md.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { makeRules, Game } from '../engine/reference.mjs';
import { Client, followMoves, frameBytes, startServer } from './harness.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { assert.deepEqual(await server.stop(), { code: 0, signal: null }); });

const digits = (n) => String(n).length;
const bytes = (v) => Buffer.byteLength(JSON.stringify(v));

test('a state after a move has the same size at ply 1 and at ply 400', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  // Oware 9x12 with this sequence of choices lasts more than a thousand plies (worked out with the
  // independent reference model of the rule book, tests/engine/reference.mjs).
  const j = await a.request({ type: 'create', game: 'oware', houses: 9, seeds: 12, opponent: 'local' });
  const room = j.room;
  let st = await a.state(room);
  const reference = new Game(makeRules('oware', { houses: 9, seeds: 12 }));
  let x = 39;
  const residues = new Map(); // the size without the parts that depend on the position
  const sizes = new Map();
  while (st.status === 'playing' && st.ply < 420) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const house = st.legal[(x >>> 16) % st.legal.length];
    reference.play(house);
    st = await a.request({ type: 'move', room, house, ply: st.ply });
    assert.equal(st.type, 'state', JSON.stringify(st));
    assert.equal(st.moves, undefined, 'a state after a move does not list the moves');
    if (st.status !== 'playing') break;
    const size = frameBytes.get(st);
    sizes.set(st.ply, size);
    // Everything else is the same from one state to the next: only the position (pits, legal
    // houses, the steps of the last move) and the digits of ply and id differ.
    residues.set(st.ply, size - bytes(st.pits) - bytes(st.legal) - bytes(st.last.trace) -
      digits(st.ply) - digits(st.id));
  }
  assert.ok(st.ply >= 400, `the game reached ply ${st.ply}`);
  const r1 = residues.get(1);
  for (const [ply, r] of residues) assert.equal(r, r1, `ply ${ply}: ${sizes.get(ply)} bytes`);
  // A full state lists every move: it grows with the game.
  const full = await a.request({ type: 'resync', room });
  assert.equal(full.moves.length, full.ply);
  assert.deepEqual(full.moves.map((m) => m.house), reference.moves);
  assert.ok(frameBytes.get(full) > sizes.get(400) + 20 * full.ply,
    `${frameBytes.get(full)} bytes of full state, ${sizes.get(400)} bytes at ply 400`);
  await a.close();
});

test('resync: the full state to the requester alone; not_found, not_in_room', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bo' });
  const j = await a.request({ type: 'create', game: 'kalah', opponent: 'local' });
  const st = await a.state(j.room);
  await a.request({ type: 'move', room: j.room, house: st.legal[0], ply: 0 });
  const r = await a.request({ type: 'resync', room: j.room.toLowerCase() });
  assert.equal(r.type, 'state');
  assert.equal(r.you, 'both');
  assert.deepEqual(r.moves, [{ seat: 'south', house: st.legal[0] }]);
  const notIn = await b.request({ type: 'resync', room: j.room });
  assert.equal(notIn.code, 'not_in_room');
  assert.equal(notIn.request, 'resync');
  assert.equal((await b.request({ type: 'resync', room: 'ZZZZZZ' })).code, 'not_found');
  assert.equal((await b.request({ type: 'resync' })).field, 'room');
  await a.close();
  await b.close();
});

test('a spectator that reads promptly gets a state for every ply, also of moves sent in one burst', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  const s = await Client.connect(server, { name: 'Sue' });
  const j = await a.request({ type: 'create', game: 'oware', opponent: 'local' });
  const room = j.room;
  await a.state(room);
  assert.equal((await s.request({ type: 'join', room, role: 'spectator' })).type, 'joined');
  let list = followMoves(undefined, await s.state(room));
  const reference = new Game(makeRules('oware'));
  const plies = [];
  // Bursts of moves in one write: the server plays them in one loop turn, and owes a state for
  // each ply of the burst.
  for (let burst = 0; burst < 5 && !reference.result; burst++) {
    a.ws._socket.cork();
    let sent = 0;
    while (sent < 8 && !reference.result) {
      const house = reference.legal()[0];
      a.send({ type: 'move', room, house, ply: reference.moves.length, id: `m${reference.moves.length}` });
      reference.play(house);
      sent++;
    }
    a.ws._socket.uncork();
    for (let i = 0; i < sent; i++) assert.equal((await a.next((m) => typeof m.id === 'string' && m.id[0] === 'm')).type, 'state');
    while (list.length < reference.moves.length) {
      const st = await s.state(room);
      plies.push(st.ply);
      list = followMoves(list, st);
      assert.notEqual(list, null, `a gap in ply at ${st.ply}`);
    }
  }
  assert.deepEqual(plies, reference.moves.map((_, i) => i + 1), 'one state per ply, in order');
  assert.deepEqual(list.map((m) => m.house), reference.moves);
  await a.close();
  await s.close();
});

test('a spectator that does not read skips states (the newest replaces unsent ones) and catches up with resync', async () => {
  const s = await Client.connect(server, { name: 'Sue' });
  // Many long local games at once (four players, six rooms each: a player's room limit), so that
  // what the spectator leaves unread fills the socket's buffers (several MB on loopback).
  const players = [], rooms = [];
  for (let p = 0; p < 4; p++) {
    const a = await Client.connect(server, { name: `Ana${p}` });
    players.push(a);
    for (let r = 0; r < 6; r++) {
      const j = await a.request({ type: 'create', game: 'oware', houses: 9, seeds: 12, opponent: 'local' });
      assert.equal(j.type, 'joined', JSON.stringify(j));
      await a.state(j.room);
      assert.equal((await s.request({ type: 'join', room: j.room, role: 'spectator' })).type, 'joined');
      rooms.push({ a, room: j.room, reference: new Game(makeRules('oware', { houses: 9, seeds: 12 })), list: followMoves(undefined, await s.state(j.room)) });
    }
  }
  // The spectator stops reading: its socket fills, and the server sees a client that has not read
  // what it was sent before. At most 1,000 moves a room.
  s.ws._socket.pause();
  let played = 0;
  for (let round = 0; round < 1000; round++) {
    const sent = new Map();
    for (const a of players) a.ws._socket.cork();
    for (const r of rooms) {
      if (r.reference.result) continue;
      const house = r.reference.legal()[0];
      r.a.send({ type: 'move', room: r.room, house, ply: r.reference.moves.length, id: `m${played}` });
      r.reference.play(house);
      sent.set(r.a, (sent.get(r.a) || 0) + 1);
      played++;
    }
    for (const a of players) a.ws._socket.uncork();
    if (sent.size === 0) break;
    for (const [a, n] of sent)
      for (let i = 0; i < n; i++) assert.equal((await a.next((m) => typeof m.id === 'string' && m.id[0] === 'm')).type, 'state');
    for (const a of players) a.drain();
  }
  s.ws._socket.resume();
  // It reads again: states of each room with gaps, each gap filled by the full state of a resync.
  let gaps = 0;
  for (const r of rooms) {
    while (r.list.length < r.reference.moves.length) {
      const next = followMoves(r.list, await s.state(r.room));
      if (next !== null) {
        r.list = next;
        continue;
      }
      gaps++;
      const full = await s.request({ type: 'resync', room: r.room });
      assert.ok(Array.isArray(full.moves), 'a resync answers with the full state');
      r.list = followMoves(r.list, full);
    }
    assert.deepEqual(r.list.map((m) => m.house), r.reference.moves);
  }
  assert.ok(gaps > 0, `the spectator skipped states (${played} moves played while it did not read)`);
  for (const a of players) await a.close();
  await s.close();
});
