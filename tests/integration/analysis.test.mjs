// GET /api/games/ID/analysis (docs/protocol.md, "Analysis"): 404 for no game, 202 while a finished
// game is analysed then 200 with one entry per ply, its best moves legal in the archive's positions,
// stored (a restart serves it without analysing again), the per-address limit (429) and the
// server-wide queue (503), a clean stop with an analysis under way, and `mancala-server migrate`
// carrying the analyses from SQLite to PostgreSQL. The PostgreSQL variant (MANCALA_TEST_PG) runs
// all but the migration on PostgreSQL.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { Client, onPostgres, pair, playOut, sleep, startServer } from './harness.mjs';

const PG_SH = process.env.MANCALA_PG_SH || path.resolve(path.dirname(new URL(import.meta.url).pathname), '../pg.sh');
const BIN = process.env.MANCALA_SERVER;

// Plays one Kalah 6x4 game to its end between two new clients; resolves with its archive id.
async function finishedGame(server) {
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bo' });
  const { room, state } = await pair(a, b);
  const { state: end } = await playOut(room, { south: a, north: b }, state);
  assert.equal(end.status, 'finished');
  await a.close();
  await b.close();
  return end.game_id;
}

// Every server a test starts is stopped after the file's tests, also when an assertion failed
// before the test's own stop (a server left running kept the file from ending: a 300 s timeout).
const started = [];
async function start(...args) {
  const server = await startServer(...args);
  started.push(server);
  return server;
}
after(async () => {
  for (const server of started) await server.stop();
});

async function getAnalysis(server, id) {
  const res = await fetch(`${server.http}/api/games/${id}/analysis`);
  assert.match(res.headers.get('content-type'), /^application\/json/);
  return { status: res.status, body: await res.json() };
}

// Polls until the analysis is stored; returns the answers seen on the way and the last.
async function untilDone(server, id) {
  const seen = [];
  for (let i = 0; i < 600; i++) {
    const r = await getAnalysis(server, id);
    seen.push(r);
    if (r.status !== 202) return { seen, last: r };
    await sleep(Math.min(r.body.retry_ms, 200));
  }
  throw new Error('the analysis never ended: ' + JSON.stringify(seen.at(-1)));
}

async function stopClean(server) {
  const { code, signal } = await server.stop();
  assert.equal(signal, null);
  assert.equal(code, 0, 'a clean exit (no leak, no crash)');
}

// The house h (1..m) of seat in pits (South's houses, South's store, North's houses, North's
// store) holds seeds: the move is legal in Kalah.
function legal(pits, m, seat, h) {
  const i = seat === 'south' ? h - 1 : m + h;
  return Number.isInteger(h) && h >= 1 && h <= m && pits[i] > 0;
}

test('analysis: 404, 202 then 200 with a legal best move per ply, stored across a restart', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-it-analysis-'));
  try {
    let server = await start(['--analysis-ms', '20'], { data });
    for (const bad of ['0123456789abcdef', '1', 'zz', '0000000000000000']) {
      const r = await getAnalysis(server, bad);
      assert.equal(r.status, 404, bad);
      assert.equal(r.body.error, 'not_found');
    }
    const id = await finishedGame(server);
    const rec = await (await fetch(`${server.http}/api/games/${id}`)).json();
    const m = rec.houses;

    const { seen, last } = await untilDone(server, id);
    assert.equal(seen[0].status, 202, 'the first request starts it');
    assert.ok(['queued', 'running', 'saving'].includes(seen[0].body.status), JSON.stringify(seen[0].body));
    assert.equal(seen[0].body.game, id);
    assert.equal(seen[0].body.plies, rec.moves.length);
    assert.equal(last.status, 200, JSON.stringify(last.body));
    const an = last.body;
    assert.equal(an.game, id);
    assert.equal(an.status, 'done');
    assert.equal(an.ply_ms, 20);
    assert.equal(an.plies.length, rec.moves.length, 'one entry per ply of the game');
    const marks = new Set(['best', 'good', 'inaccuracy', 'mistake', 'blunder']);
    an.plies.forEach((p, i) => {
      const before = i === 0 ? rec.start.pits : rec.moves[i - 1].pits;
      const mv = rec.moves[i];
      assert.equal(p.ply, i + 1);
      assert.equal(p.seat, mv.seat, `ply ${i + 1}: the mover`);
      assert.equal(p.played, mv.house, `ply ${i + 1}: the move played`);
      // The formula of legal() holds for the move the server accepted, so it tests the best one.
      assert.ok(legal(before, m, mv.seat, mv.house), `ply ${i + 1}: the played house is legal`);
      assert.ok(legal(before, m, p.seat, p.best), `ply ${i + 1}: best ${p.best} is legal in ${before}`);
      assert.equal(typeof p.before, 'number');
      assert.equal(p.eval, p.seat === 'south' ? p.before : -p.before);
      if (p.after !== null) {
        assert.ok(marks.has(p.mark), p.mark);
        assert.ok(Math.abs(p.loss - (p.before - p.after)) < 1e-6);
        assert.ok(p.loss >= 0, `ply ${i + 1}: no move is better than the best (${p.loss})`);
        if (p.played === p.best) assert.equal(p.mark, 'best');
        if (p.loss > 6) assert.equal(p.mark, 'blunder');
      } else {
        assert.equal(p.mark, null);
      }
      assert.ok(Array.isArray(p.line));
      if (p.line.length) assert.equal(p.line[0], p.best, 'the best line starts with the best move');
    });
    // The last ply ends the game: its value is proven, the final margin for its mover or better.
    for (const seat of ['south', 'north']) {
      const acc = an.accuracy[seat];
      assert.ok(acc === null || (acc >= 0 && acc <= 100), `${seat}: ${acc}`);
    }
    // Served from storage: asked again, the same answer, and no new analysis in the log.
    const again = await getAnalysis(server, id);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, an);
    const queuedLines = (log) => (log.match(/queued for analysis/g) || []).length;
    assert.equal(queuedLines(server.log), 1, 'analysed once');
    await stopClean(server);

    server = await start(['--analysis-ms', '20'], { data });
    const after = await getAnalysis(server, id);
    assert.equal(after.status, 200, 'a restart serves it from storage');
    assert.deepEqual(after.body, an);
    assert.equal(queuedLines(server.log), 0, 'nothing analysed again after the restart');
    await stopClean(server);
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});

test('analysis: a profile shows each analysed game\'s accuracy for its player', async () => {
  const server = await start(['--analysis-ms', '20']);
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bo' });
  assert.equal((await a.request({ type: 'register', name: 'Accurate_Ana', password: 'correct horse 1' })).type, 'account');
  assert.equal((await b.request({ type: 'register', name: 'Accurate_Bo', password: 'correct horse 2' })).type, 'account');
  const { room, state } = await pair(a, b);
  const { state: end } = await playOut(room, { south: a, north: b }, state);
  const id = end.game_id;
  let profile = await (await fetch(`${server.http}/api/players/Accurate_Ana`)).json();
  assert.equal(profile.games[0].id, id);
  assert.equal(profile.games[0].accuracy, undefined, 'no accuracy before the analysis');
  const { last } = await untilDone(server, id);
  assert.equal(last.status, 200);
  // Recomputed here from the marks, independently of the server's sum.
  const share = (seat) => {
    const marked = last.body.plies.filter((p) => p.seat === seat && p.mark !== null);
    return marked.length ? (100 * marked.filter((p) => p.mark === 'best' || p.mark === 'good').length) / marked.length : null;
  };
  for (const [name, seat] of [['Accurate_Ana', 'south'], ['Accurate_Bo', 'north']]) {
    profile = await (await fetch(`${server.http}/api/players/${name}`)).json();
    const g = profile.games[0];
    assert.equal(g.seat, seat);
    for (const s of ['south', 'north']) {
      const want = share(s);
      if (want === null) assert.equal(g.accuracy[s], null);
      else assert.ok(Math.abs(g.accuracy[s] - want) < 1e-3, `${name}: ${s} ${g.accuracy[s]} vs ${want}`);
      assert.ok(g.accuracy[s] === last.body.accuracy[s] || Math.abs(g.accuracy[s] - last.body.accuracy[s]) < 1e-6);
    }
  }
  await a.close();
  await b.close();
  await stopClean(server);
});

test('analysis: the per-address limit (429) and the queue cap (503); a stop during an analysis', async () => {
  // One analysis an hour for an address.
  let server = await start(['--analysis-ms', '20', '--analyses-per-hour', '1']);
  const a = await finishedGame(server), b = await finishedGame(server);
  assert.equal((await getAnalysis(server, a)).status, 202);
  const limited = await getAnalysis(server, b);
  assert.equal(limited.status, 429);
  assert.equal(limited.body.error, 'rate_limited');
  assert.ok(limited.body.retry_after_ms > 0 && limited.body.retry_after_ms <= 3600000, JSON.stringify(limited.body));
  // Asking about the game already started is no new start: never limited.
  assert.notEqual((await getAnalysis(server, a)).status, 429);
  await stopClean(server);

  // One game analysed at once, each ply searched for up to a minute: the second waits for room.
  server = await start(['--analysis-ms', '60000', '--analysis-queue', '1']);
  const c = await finishedGame(server), d = await finishedGame(server);
  const first = await getAnalysis(server, c);
  assert.equal(first.status, 202);
  const full = await getAnalysis(server, d);
  assert.equal(full.status, 503);
  assert.equal(full.body.error, 'busy');
  // Stopping does not wait for the long analysis: it is cancelled, and the exit is clean.
  const t0 = Date.now();
  await stopClean(server);
  assert.ok(Date.now() - t0 < 15000, 'the stop did not wait for the analysis');
});

// The SQLite variant only: the migration's source is a SQLite site (a PostgreSQL of its own).
if (!onPostgres) {
  test('analysis: migrate carries the stored analyses from SQLite to PostgreSQL', { timeout: 240000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-it-analysis-migrate-'));
    fs.chmodSync(dir, 0o755);
    const data = path.join(dir, 'data');
    const pg = (...args) => execFileSync('sh', [PG_SH, ...args], { encoding: 'utf8' }).trim();
    const url = pg('start', dir + '/pg', 'auto');
    let server;
    try {
      server = await start(['--analysis-ms', '20'], { data });
      const ids = [await finishedGame(server), await finishedGame(server), await finishedGame(server)];
      const before = [];
      for (const id of ids.slice(0, 2)) before.push((await untilDone(server, id)).last.body);
      await stopClean(server);
      const out = execFileSync(BIN, ['migrate', '--from', data, '--to', url], { encoding: 'utf8' });
      assert.match(out, /analyses\s+2 rows,\s+2 copied/, out);
      server = await start(['--store', url, '--analysis-ms', '20']);
      for (let i = 0; i < 2; i++) {
        const r = await getAnalysis(server, ids[i]);
        assert.equal(r.status, 200, 'served from PostgreSQL at once');
        assert.deepEqual(r.body, before[i]);
        const rec = await (await fetch(`${server.http}/api/games/${ids[i]}`)).json();
        assert.equal(rec.analysed, true);
      }
      // The third was never analysed: it is on PostgreSQL now.
      const third = await (await fetch(`${server.http}/api/games/${ids[2]}`)).json();
      assert.equal(third.analysed, false);
      const { seen, last } = await untilDone(server, ids[2]);
      assert.equal(seen[0].status, 202);
      assert.equal(last.status, 200);
      assert.equal(last.body.plies.length, third.moves.length);
      await stopClean(server);
    } finally {
      if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
      pg('stop', dir + '/pg');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
