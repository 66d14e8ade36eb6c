// Every error code a client can cause: the contract's form, the request id echoed, nothing changed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, pair, startServer } from './harness.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { assert.deepEqual(await server.stop(), { code: 0, signal: null }); });

async function expectError(client, request, code) {
  const r = await client.request(request);
  assert.equal(r.type, 'error', JSON.stringify(r));
  assert.equal(r.code, code, JSON.stringify(r));
  assert.equal(typeof r.message, 'string');
  assert.ok(r.message.length > 0);
  return r;
}

test('hello_required, already_identified, bad_json, bad_request, unknown_type', async () => {
  const c = await Client.connect(server, { hello: false });
  await expectError(c, { type: 'create', game: 'kalah' }, 'hello_required');
  await expectError(c, { type: 'lobby' }, 'hello_required');
  const w = await c.request({ type: 'hello', name: '  Ana ' });
  assert.equal(w.type, 'welcome');
  assert.equal(w.name, 'Ana');
  assert.equal(w.protocol, 1);
  assert.match(w.token, /^[0-9a-f]{64}$/);
  assert.equal(w.features.computer, true);
  await expectError(c, { type: 'hello', name: 'Again' }, 'already_identified');
  c.send('this is not json');
  let e = await c.next('error');
  assert.equal(e.code, 'bad_json');
  assert.equal('id' in e, false);
  c.send('[1,2,3]');
  assert.equal((await c.next('error')).code, 'bad_json');
  e = await expectError(c, { type: 'move', room: 'ABCDEF' }, 'bad_request');
  assert.equal(e.field, 'house');
  assert.equal(e.request, 'move');
  e = await expectError(c, { type: 'create', game: 'kalah', houses: 'six' }, 'bad_request');
  assert.equal(e.field, 'houses');
  e = await expectError(c, { type: 'create', game: 'kalah', options: { grand_slam: 'capture' } }, 'bad_request');
  assert.equal(e.field, 'options.grand_slam');
  e = await expectError(c, { type: 'chat', room: 'ABCDEF', text: 'x'.repeat(301) }, 'bad_request');
  assert.equal(e.field, 'text');
  e = await expectError(c, { type: 'dance' }, 'unknown_type');
  // A string id is echoed as a string.
  c.send({ type: 'dance', id: 'abc' });
  e = await c.next((m) => m.id === 'abc');
  assert.equal(e.code, 'unknown_type');
  // Nothing was created by any of it.
  const lobby = await c.request({ type: 'lobby', watch: false });
  assert.equal(lobby.rooms.filter((r) => r.players.south === 'Ana' || r.players.north === 'Ana').length, 0);
  await c.close();
});

test('room and play errors change nothing', async () => {
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const s = await Client.connect(server, { name: 'Sue' });
  await expectError(a, { type: 'join', room: 'ZZZZZZ' }, 'not_found');
  await expectError(a, { type: 'join', room: 'bad' }, 'not_found');
  const e = await expectError(a, { type: 'create', game: 'kalah', opponent: 'computer', level: 7 }, 'bad_request');
  assert.equal(e.request, 'create');
  const created = await a.request({ type: 'create', game: 'kalah', seat: 'south' });
  const room = created.room;
  await expectError(a, { type: 'move', room, house: 1, ply: 0 }, 'not_playing');
  await expectError(b, { type: 'move', room, house: 1, ply: 0 }, 'not_in_room');
  await b.request({ type: 'join', room });
  await expectError(s, { type: 'join', room, role: 'player' }, 'room_full');
  await s.request({ type: 'join', room, role: 'spectator' });
  await expectError(s, { type: 'move', room, house: 1, ply: 0 }, 'not_a_player');
  await expectError(b, { type: 'move', room, house: 1, ply: 0 }, 'not_your_turn');
  await expectError(a, { type: 'move', room, house: 7, ply: 0 }, 'illegal_move');
  await expectError(a, { type: 'move', room, house: 1, ply: 5 }, 'stale');
  await expectError(b, { type: 'draw', room, action: 'accept' }, 'no_draw_offer');
  await expectError(a, { type: 'rematch', room }, 'not_finished');
  // The position did not move: ply 0 is still the one to play.
  let st = await a.request({ type: 'move', room, house: 1, ply: 0 });
  assert.equal(st.type, 'state');
  assert.equal(st.ply, 1);
  // Retrying the same move is stale, never played twice.
  await expectError(a, { type: 'move', room, house: 1, ply: 0 }, 'stale');
  // An empty house is illegal.
  assert.equal((await b.request({ type: 'move', room, house: 1, ply: 1 })).type, 'state');
  await expectError(a, { type: 'move', room, house: 1, ply: 2 }, 'illegal_move');
  st = await b.request({ type: 'resign', room });
  assert.equal(st.status, 'finished');
  await expectError(a, { type: 'move', room, house: 2, ply: 2 }, 'game_over');
  await expectError(a, { type: 'resign', room }, 'game_over');
  for (const c of [a, b, s]) await c.close();
});

test('too_many_rooms and server_full', async () => {
  const small = await startServer(['--rooms-per-player', '2', '--max-rooms', '3']);
  try {
    const a = await Client.connect(small, { name: 'Ana' });
    const b = await Client.connect(small, { name: 'Bob' });
    assert.equal((await a.request({ type: 'create', game: 'kalah' })).type, 'joined');
    assert.equal((await a.request({ type: 'create', game: 'oware' })).type, 'joined');
    await expectError(a, { type: 'create', game: 'congkak' }, 'too_many_rooms');
    assert.equal((await b.request({ type: 'create', game: 'kalah' })).type, 'joined');
    await expectError(b, { type: 'create', game: 'oware' }, 'server_full');
    await a.close();
    await b.close();
  } finally {
    assert.deepEqual(await small.stop(), { code: 0, signal: null });
  }
});
