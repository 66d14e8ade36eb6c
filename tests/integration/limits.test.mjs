// Abuse and overload: rate limiting, oversize frames, slow readers, connection limits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import WebSocket from 'ws';
import { Client, pair, sleep, startServer } from './harness.mjs';

test('flooding gets rate_limited errors, then close 1008; others are unaffected', async () => {
  const server = await startServer(['--rate', '5', '--burst', '10'], { fast: false });
  try {
    const calm = await Client.connect(server, { name: 'Calm' });
    const c = await Client.connect(server, { name: 'Flood' });
    for (let i = 0; i < 40; i++) c.send({ type: 'lobby', watch: false, id: i });
    const closed = await c.closed;
    assert.equal(closed.code, 1008);
    const limited = c.inbox.filter((m) => m.type === 'error' && m.code === 'rate_limited');
    assert.ok(limited.length >= 1, 'some rate_limited errors');
    assert.ok(limited.every((m) => typeof m.id === 'number'), 'rate_limited echoes the id');
    assert.ok(c.inbox.filter((m) => m.type === 'lobby').length >= 8, 'the burst was served');
    // A client under the limit is served normally.
    assert.equal((await calm.request({ type: 'lobby', watch: false })).type, 'lobby');
    await calm.close();
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('binary frames count against the rate limit too: close 1008', async () => {
  const server = await startServer(['--rate', '5', '--burst', '10'], { fast: false });
  try {
    const c = await Client.connect(server, { name: 'Binary' });
    for (let i = 0; i < 40; i++) c.ws.send(Buffer.from([0x7b, 0x7d]), { binary: true });
    const closed = await c.closed;
    assert.equal(closed.code, 1008);
    assert.ok(c.inbox.some((m) => m.type === 'error' && m.code === 'bad_json'), 'refused as bad_json');
    assert.ok(c.inbox.some((m) => m.type === 'error' && m.code === 'rate_limited'), 'then rate_limited');
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('a frame over 4 KiB gets too_large and close 1009; 4 KiB is fine', async () => {
  const server = await startServer();
  try {
    const c = await Client.connect(server, { name: 'Big' });
    const pad = (n) => JSON.stringify({ type: 'lobby', watch: false, pad: 'x'.repeat(n) });
    const exact = pad(4096 - pad(0).length);
    assert.equal(Buffer.byteLength(exact), 4096);
    c.send(exact);
    assert.equal((await c.next('lobby')).rooms.length, 0);
    c.send(pad(5000));
    const e = await c.next('error');
    assert.equal(e.code, 'too_large');
    assert.equal((await c.closed).code, 1009);
    // A binary frame is not JSON text.
    const d = await Client.connect(server, { name: 'Bin' });
    d.ws.send(Buffer.from('{"type":"lobby"}'), { binary: true });
    assert.equal((await d.next('error')).code, 'bad_json');
    await d.close();
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('a client that does not read is dropped without slowing anyone else', async () => {
  const server = await startServer(['--send-queue', '64', '--send-queue-kib', '64']);
  try {
    const a = await Client.connect(server, { name: 'Ana' });
    const b = await Client.connect(server, { name: 'Bob' });
    const slow = await Client.connect(server, { name: 'Slow' });
    const { room } = await pair(a, b);
    await slow.request({ type: 'join', room, role: 'spectator' });
    slow.ws._socket.pause(); // Stop reading: the kernel buffers fill, then the server's queue.
    const text = 'y'.repeat(290);
    let dropped = false;
    let worst = 0;
    for (let round = 0; round < 3000 && !dropped; round++) {
      const t0 = Date.now();
      for (let i = 0; i < 20; i++) a.send({ type: 'chat', room, text });
      // The others keep getting everything promptly.
      const echo = await a.request({ type: 'chat', room, text: 'ping' });
      assert.equal(echo.type, 'chat');
      worst = Math.max(worst, Date.now() - t0);
      a.drain();
      b.drain();
      if (round % 20 === 19) dropped = (await (await fetch(server.http + '/healthz')).json()).connections === 2;
    }
    assert.ok(worst < 5000, `a round took ${worst} ms`);
    assert.ok(dropped, 'the slow reader was dropped');
    const m = await (await fetch(server.http + '/metrics')).text();
    const n = Number(m.match(/^mancala_dropped_messages_total (\d+)$/m)[1]);
    assert.ok(n > 0);
    // The players' game goes on.
    const st = await a.request({ type: 'move', room, house: 1, ply: 0 });
    assert.equal(st.type, 'state');
    slow.ws._socket.resume();
    await slow.closed;
    await a.close();
    await b.close();
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('a client that reads is never dropped, however busy its rooms', async () => {
  // A short queue (16 frames) and twenty players chatting as fast as they can for a while, each in
  // a room of their own that the reader watches (a room's spectators share a small chat budget,
  // its players do not): the reader gets many frames every loop turn, and the server writes them
  // all while its socket takes them (not one per turn), so its queue never fills up.
  const server = await startServer(['--send-queue', '16']);
  const reader = await Client.connect(server, { name: 'Reader' });
  const talkers = [];
  const rooms = [];
  for (let i = 0; i < 20; i++) {
    const c = await Client.connect(server, { name: 'T' + i });
    const j = await c.request({ type: 'create', game: 'kalah', visibility: 'private' });
    assert.equal((await reader.request({ type: 'join', room: j.room, role: 'spectator' })).type, 'joined');
    talkers.push(c);
    rooms.push(j.room);
  }
  reader.drain();
  const LINES = 40;
  await Promise.all(talkers.map(async (c, i) => {
    for (let k = 0; k < LINES; k++) {
      // Two lines at once, then a breath: a steady stream, several frames per loop turn.
      c.send({ type: 'chat', room: rooms[i], text: `T${i} line ${k}` });
      if (k % 2 === 1) await sleep(1);
    }
  }));
  for (let n = 0; n < talkers.length * LINES; n++) await reader.next('chat', 15000);
  assert.equal(reader.ws.readyState, 1, 'the reader is still connected');
  assert.equal((await reader.request({ type: 'lobby', watch: false })).type, 'lobby');
  for (const c of [reader, ...talkers]) await c.close();
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

test('connections per address: the one too many gets too_many_connections and close 1013', async () => {
  const server = await startServer(['--max-per-ip', '2']);
  try {
    const a = await Client.connect(server, { name: 'A' });
    const b = await Client.connect(server, { name: 'B' });
    const c = await Client.connect(server, { hello: false });
    const e = await c.next('error');
    assert.equal(e.code, 'too_many_connections');
    assert.equal((await c.closed).code, 1013);
    await a.close();
    await sleep(100);
    const d = await Client.connect(server, { name: 'D' });
    assert.equal(d.me.type, 'welcome');
    await b.close();
    await d.close();
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('behind a trusted proxy, connections count per X-Forwarded-For address', async () => {
  const server = await startServer(['--max-per-ip', '1', '--trust-proxy', '127.0.0.1']);
  try {
    const via = (ip) => Client.connect(server, { name: 'P', headers: { 'X-Forwarded-For': ip } });
    const a = await via('198.51.100.1');
    const b = await via('198.51.100.2');
    const c = await Client.connect(server, { hello: false, headers: { 'X-Forwarded-For': '198.51.100.1' } });
    assert.equal((await c.next('error')).code, 'too_many_connections');
    await c.closed;
    for (const x of [a, b]) await x.close();
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
  // By default no proxy is trusted, not even 127.0.0.1 (a TCP forwarder there would pass every
  // client's own header through): the header means nothing.
  const strict = await startServer(['--max-per-ip', '1']);
  try {
    const a = await Client.connect(strict, { name: 'P', headers: { 'X-Forwarded-For': '198.51.100.1' } });
    const b = await Client.connect(strict, { hello: false, headers: { 'X-Forwarded-For': '198.51.100.2' } });
    assert.equal((await b.next('error')).code, 'too_many_connections');
    await b.closed;
    await a.close();
  } finally {
    assert.deepEqual(await strict.stop(), { code: 0, signal: null });
  }
});

test('connections in total: the one too many gets too_many_connections', async () => {
  const server = await startServer(['--max-connections', '1']);
  try {
    const a = await Client.connect(server, { name: 'A' });
    const b = await Client.connect(server, { hello: false });
    assert.equal((await b.next('error')).code, 'too_many_connections');
    assert.equal((await b.closed).code, 1013);
    assert.equal((await a.request({ type: 'lobby', watch: false })).type, 'lobby');
    await a.close();
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('only /ws with the mancala.v1 subprotocol is a WebSocket', async () => {
  const server = await startServer();
  try {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/other`, 'mancala.v1');
    await assert.rejects(new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); }));
    // Without the subprotocol: closed at once, never served.
    const bare = new WebSocket(`ws://127.0.0.1:${server.port}/ws`);
    bare.on('error', () => {});
    bare.on('open', () => bare.send(JSON.stringify({ type: 'hello' })));
    let got = 0;
    bare.on('message', () => got++);
    await new Promise((resolve) => bare.once('close', resolve));
    assert.equal(got, 0);
    const other = new WebSocket(`ws://127.0.0.1:${server.port}/ws`, 'chat');
    other.on('error', () => {});
    await new Promise((resolve) => other.once('close', resolve));
    assert.equal(other.readyState, WebSocket.CLOSED);
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('keepalive: the server pings; a connection that never answers is dropped, one that does stays', async () => {
  const server = await startServer(['--ping-s', '1', '--hangup-s', '3']);
  try {
    const live = await Client.connect(server, { name: 'Live' });
    let pings = 0;
    live.ws.on('ping', () => pings++);
    const ws = new WebSocket(server.url, 'mancala.v1', { autoPong: false });
    const silent = new Client(ws);
    await new Promise((resolve) => ws.once('open', resolve));
    silent.send({ type: 'hello', name: 'Silent' });
    const t0 = Date.now();
    await silent.closed;
    const waited = Date.now() - t0;
    assert.ok(waited >= 2000 && waited < 8000, `dropped after ${waited} ms`);
    // The live client has sent nothing since its hello either, but answers every ping: it stays
    // well past --hangup-s (the pong is what keeps it, not the server's own traffic).
    await new Promise((resolve) => setTimeout(resolve, 5000));
    assert.ok(pings >= 2, `the live client was pinged ${pings} times`);
    assert.equal(live.ws.readyState, WebSocket.OPEN);
    assert.equal((await live.request({ type: 'lobby', watch: false })).type, 'lobby');
    await live.close();
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});
