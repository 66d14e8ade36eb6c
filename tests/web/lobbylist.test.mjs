// The lobby's list in the client (web/lobbylist.js): a snapshot, then changes in revision order;
// a missing revision asks for the list again. Hand-written frames, in node without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LobbyList } from '../../web/lobbylist.js';

const room = (code, status = 'waiting') => ({ room: code, code, game: 'kalah', status });
const codes = (l) => l.list().map((r) => r.code);

test('a snapshot, then rooms added, updated and removed', () => {
  const l = new LobbyList();
  // Changes before any snapshot change nothing.
  assert.equal(l.apply({ type: 'lobby_changes', rev: 4, add: [room('AAAAAA')], update: [], remove: [] }), false);
  assert.equal(l.apply({ type: 'lobby', rev: 4, rooms: [room('AAAAAA'), room('BBBBBB')], pools: [{ game: 'kalah', clock: null, waiting: 2 }], more: { kalah: 3, oware: 0, congkak: 0 } }), true);
  assert.deepEqual(codes(l), ['AAAAAA', 'BBBBBB']);
  assert.equal(l.hidden(), 3);
  // rev 5: B plays, C is new (last), A is gone; more changes; the pools did not.
  assert.equal(l.apply({ type: 'lobby_changes', rev: 5, add: [room('CCCCCC')], update: [room('BBBBBB', 'playing')], remove: ['AAAAAA'], more: { kalah: 2, oware: 0, congkak: 0 } }), true);
  assert.deepEqual(codes(l), ['BBBBBB', 'CCCCCC']);
  assert.equal(l.rooms.get('BBBBBB').status, 'playing');
  assert.equal(l.pools[0].waiting, 2);
  assert.equal(l.hidden(), 2);
  // An update keeps the room's place; an older or repeated revision changes nothing.
  assert.equal(l.apply({ type: 'lobby_changes', rev: 6, add: [], update: [room('BBBBBB', 'waiting')], remove: [], pools: [{ game: 'kalah', clock: null, waiting: 1 }] }), true);
  assert.deepEqual(codes(l), ['BBBBBB', 'CCCCCC']);
  assert.equal(l.pools[0].waiting, 1);
  assert.equal(l.apply({ type: 'lobby_changes', rev: 6, add: [room('DDDDDD')], update: [], remove: [] }), false);
  assert.deepEqual(codes(l), ['BBBBBB', 'CCCCCC']);
});

test('a missing revision asks for the list again; the next snapshot starts over', () => {
  const l = new LobbyList();
  l.apply({ type: 'lobby', rev: 1, rooms: [room('AAAAAA')] });
  assert.equal(l.apply({ type: 'lobby_changes', rev: 3, add: [room('CCCCCC')], update: [], remove: [] }), 'resync');
  // Until the new snapshot comes, changes are ignored.
  assert.equal(l.apply({ type: 'lobby_changes', rev: 4, add: [room('DDDDDD')], update: [], remove: [] }), false);
  assert.equal(l.apply({ type: 'lobby', rev: 4, rooms: [room('CCCCCC'), room('DDDDDD')] }), true);
  assert.deepEqual(codes(l), ['CCCCCC', 'DDDDDD']);
  // A whole list without a revision (a server or a request without changes) is shown as it is.
  assert.equal(l.apply({ type: 'lobby', rooms: [room('EEEEEE')] }), true);
  assert.deepEqual(codes(l), ['EEEEEE']);
  assert.equal(l.apply({ type: 'lobby_changes', rev: 5, add: [room('FFFFFF')], update: [], remove: [] }), false);
});
