// The endgame tables a fresh install gets without a manual step (issue 24): a server started with
// an empty --data builds the missing tables in the background and then uses them, without a
// restart; /healthz and /metrics say so, and the next start loads the files it wrote. The tables
// are tiny here (--egtb-seeds 2: every board of up to 2 seeds) so that the build takes moments;
// every other test runs with MANCALA_EGTB_BUILD=off (tests/CMakeLists.txt).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startServer, sleep } from './harness.mjs';

const NAMES = ['kalah-6-standard.egtb', 'kalah-6-empty-capture.egtb', 'oware-6-no_capture.egtb',
  'oware-6-forbidden.egtb', 'oware-6-capture.egtb'];

async function get(server, p) {
  const r = await fetch(`${server.http}${p}`);
  return { status: r.status, body: await r.text() };
}

// Polls /healthz until its tables' state is `state` (30 s at most: the build takes well under one).
async function tablesState(server, state) {
  let last;
  for (let i = 0; i < 300; i++) {
    last = JSON.parse((await get(server, '/healthz')).body).endgame_tables;
    if (last && last.state === state) return last;
    await sleep(100);
  }
  assert.fail(`endgame tables never ${state}: ${JSON.stringify(last)}`);
}

test('an empty data directory: the tables are built in the background, then used', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-egtb-'));
  try {
    const server = await startServer(['--egtb-build', 'on', '--egtb-seeds', '2'], { data });
    try {
      assert.match(server.log, /endgame tables: 0 of 5 loaded from .*; missing or too small: kalah-6-standard\.egtb/);
      assert.match(server.log, /endgame tables: building the 5 missing \(in .*\), .* expected to take/);
      const t = await tablesState(server, 'ready');
      assert.deepEqual(t, { state: 'ready', loaded: 5, tables: 5 });
      assert.match(server.log, /endgame tables: built in [0-9.]+ s at .*; all 5 loaded and in use/);
      const m = (await get(server, '/metrics')).body;
      assert.match(m, /^mancala_egtb_tables\{state="loaded"\} 5$/m);
      assert.match(m, /^mancala_egtb_building 0$/m);
      // Written into place: no temporary file left.
      assert.deepEqual(fs.readdirSync(data).filter((f) => f.includes('.egtb')).sort(), [...NAMES].sort());
    } finally {
      assert.deepEqual(await server.stop(), { code: 0, signal: null });
    }
    // The next start loads them and builds nothing.
    const again = await startServer(['--egtb-build', 'on', '--egtb-seeds', '2'], { data });
    try {
      assert.match(again.log, /endgame tables: all 5 loaded from /);
      assert.doesNotMatch(again.log, /building/);
      assert.deepEqual(JSON.parse((await get(again, '/healthz')).body).endgame_tables,
        { state: 'ready', loaded: 5, tables: 5 });
    } finally {
      assert.deepEqual(await again.stop(), { code: 0, signal: null });
    }
    // Asked for more seeds than they hold, the same files are too small: none counts as loaded,
    // in the log as in /healthz.
    const more = await startServer(['--egtb-build', 'off', '--egtb-seeds', '3'], { data });
    try {
      assert.match(more.log, /endgame tables: 0 of 5 loaded from .*; missing or too small: kalah-6-standard\.egtb/);
      assert.deepEqual(JSON.parse((await get(more, '/healthz')).body).endgame_tables,
        { state: 'missing', loaded: 0, tables: 5 });
    } finally {
      assert.deepEqual(await more.stop(), { code: 0, signal: null });
    }
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});

test('--egtb-build off: nothing is built and the state says missing', async () => {
  const server = await startServer(['--egtb-build', 'off', '--egtb-seeds', '2']);
  try {
    assert.match(server.log, /not building the missing ones \(--egtb-build off\); `mancala egtb build --dir /);
    await sleep(300);
    assert.deepEqual(JSON.parse((await get(server, '/healthz')).body).endgame_tables,
      { state: 'missing', loaded: 0, tables: 5 });
    assert.match((await get(server, '/metrics')).body, /^mancala_egtb_tables\{state="loaded"\} 0$/m);
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('a build under way stops with the server, which exits cleanly at once', async () => {
  // The default sizes take many minutes: stopped long before it finishes.
  const server = await startServer(['--egtb-build', 'on']);
  try {
    assert.equal(JSON.parse((await get(server, '/healthz')).body).endgame_tables.state, 'building');
    assert.match((await get(server, '/metrics')).body, /^mancala_egtb_building 1$/m);
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
  assert.match(server.log, /endgame tables: build stopped after/);
});
