// The server under valgrind (run when not built with the sanitizers): start, a few clients play,
// chat, watch the lobby and drop out, then SIGTERM; valgrind must report no error and no leak.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, pair, playOut, sleep, startServer } from './harness.mjs';

test('valgrind: a short session and a clean exit', { timeout: 300000 }, async () => {
  process.env.MANCALA_VALGRIND = '1';
  const server = await startServer(['--abandon-ms', '300']);
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const s = await Client.connect(server, { name: 'Sue' });
  await s.request({ type: 'lobby' });
  const { room, state } = await pair(a, b, { game: 'oware', clock: { initial_ms: 600000, increment_ms: 1000 } });
  await s.request({ type: 'join', room, role: 'spectator' });
  await a.request({ type: 'chat', room, text: 'hello' });
  await playOut(room, { south: a, north: b }, state);
  await a.request({ type: 'rematch', room });
  await b.request({ type: 'rematch', room });
  const local = await s.request({ type: 'create', game: 'congkak', opponent: 'local', houses: 3, seeds: 2 });
  await s.request({ type: 'move', room: local.room, house: 1, ply: 0 });
  a.send('not json');
  const c = await Client.connect(server, { name: 'Gone' });
  const joined = await c.request({ type: 'create', game: 'kalah', seat: 'south' });
  const d = await Client.connect(server, { name: 'Dee' });
  await d.request({ type: 'join', room: joined.room });
  await c.close(); // Abandons on its own turn: the countdown ends that game.
  await sleep(800);
  // Accounts: a sign-up, a login on another connection, and a login whose connection closes
  // while its password is hashed (the job is forgotten, nothing leaks).
  const reg = await Client.connect(server, {});
  assert.equal((await reg.request({ type: 'register', name: 'Valery', password: 'valgrind pw' })).type, 'account');
  const other = await Client.connect(server, {});
  assert.equal((await other.request({ type: 'login', name: 'Valery', password: 'valgrind pw' })).type, 'welcome');
  const gone = await Client.connect(server, {});
  gone.send({ type: 'login', name: 'Valery', password: 'valgrind pw' });
  gone.ws.terminate();
  await sleep(200);
  // A token nobody knows is looked up in storage (off the loop on PostgreSQL): a new player; and a
  // connection that goes while its token is looked up (the answer is given back, nothing leaks).
  const stranger = await Client.connect(server, { hello: false });
  const hi = await stranger.request({ type: 'hello', token: 'ab'.repeat(32) });
  assert.equal(hi.type, 'welcome');
  assert.equal(hi.resumed, false);
  const hasty = await Client.connect(server, { hello: false });
  hasty.send({ type: 'hello', token: 'cd'.repeat(32) });
  hasty.ws.terminate();
  await sleep(200);
  const deaf = await Client.connect(server, { name: 'Deaf' }); // Killed at shutdown, not closed.
  await deaf.request({ type: 'join', room, role: 'spectator' });
  deaf.ws._socket.pause();
  const r = await server.stop();
  deaf.ws.terminate();
  assert.deepEqual(r, { code: 0, signal: null }, server.log.split('\n').filter((l) => l.startsWith('==')).join('\n'));
  assert.match(server.log, /ERROR SUMMARY: 0 errors/);
});
