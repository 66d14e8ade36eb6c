// Smoke test of the benchmark tools, so that they cannot rot: bin/loadgen plays for about two
// seconds against the real server (in every mode it has) and against bin/echo-server, and must
// report moves and no protocol error. No figure is checked: timing belongs to the benchmarks
// (docs/performance.md), not to tests. MANCALA_SERVER, MANCALA_LOADGEN and MANCALA_ECHO name the
// binaries (ctest sets them).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { startServer } from '../integration/harness.mjs';

const LOADGEN = process.env.MANCALA_LOADGEN;
const ECHO = process.env.MANCALA_ECHO;

// Runs loadgen with args and --json; resolves with its report once it exited with status 0.
function loadgen(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(LOADGEN, [...args, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.once('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`loadgen exited with ${code ?? signal}:\n${err}\n${out}`));
      try {
        resolve(JSON.parse(out));
      } catch (e) {
        reject(new Error(`loadgen printed no JSON report: ${e.message}\n${out}\n${err}`));
      }
    });
  });
}

// What every run must show: moves were played and answered, nothing went wrong on the wire.
function assertClean(r) {
  assert.ok(r.moves > 0, `no moves: ${JSON.stringify(r)}`);
  assert.equal(r.rtt_ms.count, r.moves, 'one round trip per accepted move');
  assert.deepEqual(r.errors, {}, 'error frames by code');
  assert.equal(r.error_frames, 0);
  assert.equal(r.bad_frames, 0, 'frames loadgen could not read');
  assert.equal(r.internal_errors, 0);
  assert.equal(r.connections.connect_errors, 0);
  assert.equal(r.connections.drops, 0);
}

function startEcho() {
  const child = spawn(ECHO, ['--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      log += d;
      const m = log.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve({ port: Number(m[1]), pid: child.pid, stop: () => { child.kill('SIGTERM'); return exited; } });
    });
    child.once('exit', (code) => reject(new Error(`echo-server exited with ${code}:\n${log}`)));
  });
}

test('loadgen plays local games against the server and reads its CPU and memory', async () => {
  const server = await startServer();
  try {
    const r = await loadgen(['--port', String(server.port), '--players', '4', '--duration', '2',
      '--warmup', '0.5', '--server-pid', String(server.child.pid)]);
    assertClean(r);
    assert.equal(r.mode, 'local');
    assert.equal(r.connections.players_in_room, 4);
    assert.ok(r.server.rss_kib_end > 0, 'server RSS from /proc');
    assert.ok(r.server.cpu_pct > 0, 'the server worked during the window');
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('loadgen pairs players, follows rooms with spectators, and holds idle and silent connections', async () => {
  const server = await startServer();
  try {
    const r = await loadgen(['--port', String(server.port), '--mode', 'pair', '--players', '4',
      '--spectators', '1', '--idle', '3', '--silent', '2', '--think', '0-5', '--duration', '2',
      '--warmup', '0.5', '--game', 'oware']);
    assertClean(r);
    assert.equal(r.connections.players_in_room, 4);
    assert.equal(r.connections.spectators_in_room, 2, 'one spectator in each of the 2 rooms');
    assert.equal(r.connections.idle_welcomed, 3);
    assert.equal(r.connections.silent_open, 2);
    assert.ok(r.spectator_frames > 0, 'spectators received the rooms\' states');
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('loadgen plays against the echo server, new games included', async () => {
  const echo = await startEcho();
  try {
    // The window ends after 400 moves (--moves), however long they take: 100 a player, and the
    // echo server ends a game at ply 40, so every player has finished games and made new rooms.
    const r = await loadgen(['--port', String(echo.port), '--players', '4', '--duration', '120',
      '--moves', '400', '--warmup', '0.5', '--server-pid', String(echo.pid)]);
    assertClean(r);
    assert.ok(r.moves >= 400);
    assert.ok(r.games > 0, `no game ended: ${JSON.stringify(r)}`);
  } finally {
    assert.deepEqual(await echo.stop(), { code: 0, signal: null });
  }
});
