// Chat over the real server: who said a line (seat, spectator, player id), lines cleaned of control
// and reordering characters, the history sent on joining and on resuming (also after a restart),
// and the room's own bound: many spectators chatting at once cannot flood the players.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Client, pair, sleep, startServer } from './harness.mjs';

test('lines say who spoke; text is cleaned; a newcomer and a returning player get the history', async () => {
  const server = await startServer();
  try {
    const a = await Client.connect(server, { name: 'Ana' });
    const b = await Client.connect(server, { name: 'Bob' });
    const s = await Client.connect(server, { name: 'Sue' });
    const { room } = await pair(a, b);
    await s.request({ type: 'join', room, role: 'spectator' });
    const mine = await a.request({ type: 'chat', room, text: 'good luck' });
    assert.equal(mine.type, 'chat');
    assert.equal(mine.from, 'Ana');
    assert.equal(mine.player, a.me.player);
    assert.equal(mine.seat, 'south');
    assert.equal(mine.spectator, false);
    const theirs = await s.request({ type: 'chat', room, text: ' go\tBob\u202e!\n' });
    assert.equal(theirs.text, 'go Bob!');
    assert.equal(theirs.spectator, true);
    assert.equal(theirs.seat, null);
    const heard = await b.next((m) => m.type === 'chat' && m.spectator);
    assert.equal(heard.from, 'Sue');
    assert.equal((await b.request({ type: 'chat', room, text: '\u0007' })).code, 'bad_request');

    // A newcomer: joined, the full state, then the history, oldest first.
    const t = await Client.connect(server, { name: 'Tom' });
    await t.request({ type: 'join', room, role: 'spectator' });
    const full = await t.state(room);
    assert.ok(Array.isArray(full.moves));
    const h = await t.next('chat_history');
    assert.equal(h.room, room);
    assert.deepEqual(h.messages.map((m) => [m.from, m.text, m.seat, m.spectator]),
      [['Ana', 'good luck', 'south', false], ['Sue', 'go Bob!', null, true]]);
    assert.equal(h.messages[0].at, mine.at);
    // Ana comes back on a new connection with her token: joined, state, history.
    await a.close();
    const a2 = await Client.connect(server, { name: 'Ana', token: a.me.token });
    assert.equal((await a2.next('joined')).room, room);
    assert.equal((await a2.next('chat_history')).messages.length, 2);
    for (const c of [a2, b, s, t]) await c.close();
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('the history survives a restart with the game', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-chat-'));
  let server;
  try {
    server = await startServer([], { data });
    const a = await Client.connect(server, { name: 'Ana' });
    const b = await Client.connect(server, { name: 'Bob' });
    const { room } = await pair(a, b);
    await a.request({ type: 'chat', room, text: 'before the restart' });
    await b.request({ type: 'chat', room, text: 'me too' });
    const token = a.me.token;
    await a.close();
    await b.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
    server = await startServer([], { data });
    const back = await Client.connect(server, { token });
    await back.state(room);
    const h = await back.next('chat_history');
    assert.deepEqual(h.messages.map((m) => [m.from, m.text, m.seat]),
      [['Ana', 'before the restart', 'south'], ['Bob', 'me too', 'north']]);
    await back.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
    server = null;
  } finally {
    await server?.stop();
    fs.rmSync(data, { recursive: true, force: true });
  }
});

test('sixty spectators chatting at once: the room lets a burst through, the players are not flooded', async () => {
  // The server's own limits (not the tests' generous ones): 10 lines a second, 30 at once, per
  // connection, and the same for all of a room's spectators together.
  // Only new players per address are let through more (62 here from 127.0.0.1; 60 a minute by
  // default, --players-per-ip).
  const server = await startServer(['--players-per-ip', '1000'], { fast: false });
  try {
    const a = await Client.connect(server, { name: 'Ana' });
    const b = await Client.connect(server, { name: 'Bob' });
    const { room } = await pair(a, b);
    const crowd = [];
    for (let i = 0; i < 60; i++) {
      const c = await Client.connect(server, { name: 'S' + i });
      await c.request({ type: 'join', room, role: 'spectator' });
      crowd.push(c);
    }
    a.drain();
    b.drain();
    const t0 = Date.now();
    for (const c of crowd) for (let k = 0; k < 3; k++) c.send({ type: 'chat', room, text: 'spam ' + k, id: k });
    // Every spectator line is answered: the line, or rate_limited.
    let said = 0, refused = 0;
    for (const c of crowd) {
      for (let k = 0; k < 3; k++) {
        const r = await c.next((m) => m.id === k);
        if (r.type === 'chat') said++;
        else { assert.equal(r.code, 'rate_limited'); refused++; }
      }
    }
    const elapsed = (Date.now() - t0) / 1000;
    // 30 at once, and 10 a second since: far fewer than the 180 sent.
    assert.ok(said >= 30 && said <= 30 + Math.ceil(10 * elapsed) + 1, `${said} lines in ${elapsed} s`);
    assert.equal(said + refused, 180);
    // The players are still there and still speak, from their own allowance.
    const mine = await a.request({ type: 'chat', room, text: 'still here' });
    assert.equal(mine.type, 'chat');
    const move = await a.request({ type: 'move', room, house: 1, ply: 0 });
    assert.equal(move.type, 'state');
    await sleep(100);
    const heard = b.inbox.filter((m) => m.type === 'chat').length;
    assert.ok(heard <= said + 1, `North heard ${heard} lines`);
    for (const c of [a, b, ...crowd]) await c.close();
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});
