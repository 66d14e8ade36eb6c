// The process: HTTP routes on the same port, options, and a clean exit on SIGTERM.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { Client, pair, startServer } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = process.env.MANCALA_SERVER || path.resolve(here, '../../build-server/bin/mancala-server');

test('HTTP: the client at / and /r/CODE, /healthz and /metrics', async () => {
  const server = await startServer();
  try {
    const a = await Client.connect(server, { name: 'Ana' });
    const b = await Client.connect(server, { name: 'Bob' });
    const { room } = await pair(a, b);
    await a.request({ type: 'move', room, house: 1, ply: 0 });
    await a.request({ type: 'create', game: 'oware', seat: 'north' });
    await a.request({ type: 'dance' });

    const h = await fetch(server.http + '/healthz');
    assert.equal(h.status, 200);
    assert.match(h.headers.get('content-type'), /application\/json/);
    const health = await h.json();
    assert.equal(health.status, 'ok');
    assert.equal(typeof health.version, 'string');
    assert.equal(typeof health.uptime, 'number');
    assert.equal(health.rooms, 2);
    assert.equal(health.connections, 2);

    const m = await fetch(server.http + '/metrics');
    assert.equal(m.status, 200);
    assert.match(m.headers.get('content-type'), /text\/plain/);
    const text = await m.text();
    const metric = (re) => Number(text.match(re)[1]);
    assert.equal(metric(/^mancala_connections (\d+)$/m), 2);
    assert.equal(metric(/^mancala_players (\d+)$/m), 2);
    assert.equal(metric(/^mancala_rooms\{status="waiting"\} (\d+)$/m), 1);
    assert.equal(metric(/^mancala_rooms\{status="playing"\} (\d+)$/m), 1);
    assert.equal(metric(/^mancala_games_started_total\{game="kalah"\} (\d+)$/m), 1);
    assert.equal(metric(/^mancala_moves_total (\d+)$/m), 1);
    assert.equal(metric(/^mancala_errors_total\{code="unknown_type"\} (\d+)$/m), 1);
    assert.ok(metric(/^mancala_message_seconds_count (\d+)$/m) >= 6);
    assert.match(text, /^mancala_message_seconds_bucket\{le="\+Inf"\} \d+$/m);
    assert.match(text, /^mancala_dropped_messages_total \d+$/m);
    await b.request({ type: 'resign', room });
    const text2 = await (await fetch(server.http + '/metrics')).text();
    assert.match(text2, /^mancala_games_finished_total\{game="kalah",reason="resignation"\} 1$/m);

    const page = await fetch(server.http + '/');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type'), /text\/html/);
    const html = await page.text();
    const byCode = await fetch(server.http + '/r/' + room);
    assert.equal(byCode.status, 200);
    assert.equal(await byCode.text(), html);
    assert.equal((await fetch(server.http + '/no-such-file.js')).status, 404);
    await a.close();
    await b.close();
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('SIGTERM: clients are told, closed with 1001, and the process exits 0', async () => {
  const server = await startServer();
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  await pair(a, b, { clock: { initial_ms: 60000, increment_ms: 0 } });
  const watcher = await Client.connect(server, { name: 'Wes' });
  await watcher.request({ type: 'lobby' });
  // One that does not read at all: it cannot hold the shutdown up.
  const deaf = await Client.connect(server, { name: 'Deaf' });
  deaf.ws._socket.pause();
  const t0 = Date.now();
  const exit = server.stop();
  for (const c of [a, b, watcher]) {
    const bye = await c.next('bye');
    assert.equal(bye.reason, 'shutdown');
    assert.equal((await c.closed).code, 1001);
  }
  assert.deepEqual(await exit, { code: 0, signal: null });
  assert.ok(Date.now() - t0 < 10000);
  assert.match(server.log, /stopped cleanly/);
  deaf.ws.terminate();
});

test('SIGTERM with a backlog: a client that stopped reading still gets its bye and the close', async () => {
  const server = await startServer(['--send-queue', '100000', '--send-queue-kib', '65536']);
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bob' });
  const { room } = await pair(a, b);
  // Ana stops reading while Bob says 4,000 things (about 1.5 MB): a backlog in the sockets'
  // buffers and in the server's queue for her. The server drops what it has not written yet at
  // the stop, so that the bye and the close follow what the sockets already hold. (On loopback
  // Linux's buffers can hold all of this; the test checks the outcome, not where the frames were.)
  a.ws._socket.pause();
  const N = 4000;
  const text = 'x'.repeat(300);
  for (let i = 1; i < N; i++) b.send({ type: 'chat', room, text });
  assert.equal((await b.request({ type: 'chat', room, text }, 60000)).type, 'chat');
  const exit = server.stop();
  a.ws._socket.resume();
  assert.equal((await a.next('bye', 30000)).reason, 'shutdown');
  assert.equal((await a.closed).code, 1001);
  assert.ok(a.inbox.filter((m) => m.type === 'chat').length <= N);
  assert.equal((await b.next('bye')).reason, 'shutdown');
  assert.deepEqual(await exit, { code: 0, signal: null });
});

test('options: --help, bad values exit 2, environment variables', () => {
  const help = spawnSync(BIN, ['--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0);
  for (const flag of ['--port', '--bind', '--data', '--web', '--log-level', '--abandon-ms', 'MANCALA_PORT'])
    assert.ok(help.stdout.includes(flag), flag);
  for (const args of [['--port', 'x'], ['--port', '70000'], ['--log-level', 'loud'], ['--nope'], ['--port']]) {
    const r = spawnSync(BIN, args, { encoding: 'utf8' });
    assert.equal(r.status, 2, args.join(' '));
    assert.ok(r.stderr.length > 0);
  }
  const env = spawnSync(BIN, [], { encoding: 'utf8', env: { ...process.env, MANCALA_PORT: '-5' } });
  assert.equal(env.status, 2);
  assert.match(env.stderr, /MANCALA_PORT/);
});

test('a port in use: a message and exit 1', async () => {
  const server = await startServer();
  // Its own data directory: the first server holds the lock of its own, and none is left behind.
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-port-'));
  try {
    const r = spawnSync(BIN, ['--port', String(server.port), '--bind', '127.0.0.1', '--data', data],
      { encoding: 'utf8', timeout: 20000 });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /cannot listen/);
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});
