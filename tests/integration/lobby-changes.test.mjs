// The lobby as one snapshot, then changes (issue 25, item 4), against the real binary: a watcher
// with "changes":true follows rooms added, updated and removed, revision by revision, and a list
// shows the newest rooms of each game (--lobby-rooms) with a count of the others.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, startServer } from './harness.mjs';

let server;
before(async () => { server = await startServer(['--lobby-rooms', '2']); });
after(async () => { assert.deepEqual(await server.stop(), { code: 0, signal: null }); });

// Applies the frames of a watcher of changes as a client does (web/lobbylist.js), checking that the
// revisions follow each other.
function follower(snapshot) {
  const f = { rev: snapshot.rev, rooms: new Map(snapshot.rooms.map((r) => [r.code, r])), more: snapshot.more };
  f.apply = (m) => {
    assert.equal(m.rev, f.rev + 1, 'revisions follow each other');
    for (const c of m.remove) f.rooms.delete(c);
    for (const r of [...m.update, ...m.add]) f.rooms.set(r.code, r);
    f.more = m.more;
    f.rev = m.rev;
  };
  return f;
}

test('a watcher of changes: one snapshot, then rooms added, updated, removed', async () => {
  const w = await Client.connect(server, { name: 'Wes' });
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const snap = await w.request({ type: 'lobby', changes: true });
  assert.equal(snap.type, 'lobby');
  assert.equal(typeof snap.rev, 'number');
  assert.deepEqual(snap.more, { kalah: 0, oware: 0, congkak: 0 });
  const f = follower(snap);
  const next = async (pred) => {
    for (;;) {
      const m = await w.next((x) => x.type === 'lobby_changes');
      w.inbox.splice(w.inbox.indexOf(m), 1);
      f.apply(m);
      if (pred(m)) return m;
    }
  };
  const pub = await a.request({ type: 'create', game: 'congkak' });
  const added = await next(() => f.rooms.has(pub.room));
  assert.ok(added.add.some((r) => r.code === pub.room));
  const entry = f.rooms.get(pub.room);
  assert.equal(entry.players.south ?? entry.players.north, 'Ana');
  assert.equal(entry.status, 'waiting');
  await b.request({ type: 'join', room: pub.room });
  await next(() => f.rooms.get(pub.room).status === 'playing');
  await a.request({ type: 'resign', room: pub.room });
  const removed = await next(() => !f.rooms.has(pub.room));
  assert.deepEqual(removed.remove, [pub.room]);
  // Only one snapshot came: everything else was changes.
  assert.equal(w.inbox.filter((m) => m.type === 'lobby').length, 0);
  // A look at the whole list agrees with what the changes made.
  const look = await b.request({ type: 'lobby', watch: false });
  assert.deepEqual(look.rooms.map((r) => r.code).sort(), [...f.rooms.keys()].sort());
  for (const x of [w, a, b]) await x.close();
});

test('a list shows the newest rooms of each game and counts the others', async () => {
  const w = await Client.connect(server, { name: 'Wes' });
  const players = [];
  const rooms = [];
  for (let i = 0; i < 3; i++) {
    const p = await Client.connect(server, { name: `Ow${i}` });
    players.push(p);
    rooms.push((await p.request({ type: 'create', game: 'oware' })).room);
  }
  const whole = await w.request({ type: 'lobby', watch: false });
  const oware = whole.rooms.filter((r) => r.game === 'oware').map((r) => r.code);
  assert.deepEqual(oware, rooms.slice(1)); // --lobby-rooms 2: the newest two, oldest first
  assert.equal(whole.more.oware, 1);
  // The oldest comes back into the list when a newer one goes.
  const snap = await w.request({ type: 'lobby', changes: true });
  const f = follower(snap);
  await players[2].request({ type: 'leave', room: rooms[2] });
  for (;;) {
    const m = await w.next((x) => x.type === 'lobby_changes');
    w.inbox.splice(w.inbox.indexOf(m), 1);
    f.apply(m);
    if (!f.rooms.has(rooms[2])) break;
  }
  assert.ok(f.rooms.has(rooms[0]) && f.rooms.has(rooms[1]));
  assert.equal(f.more.oware, 0);
  for (const x of [w, ...players]) await x.close();
});
