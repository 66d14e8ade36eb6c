// A batch the disk loses after its moves were written is taken back: the fault is a trigger, added
// to the live database by another connection, that makes every result update fail and roll back
// the loop turn's transaction, as an I/O error would. The move that ended the game was in that
// transaction, so it is refused with storage_error and the game is back where it was; once the
// disk takes writes again the same move ends the game for good, and a restart shows it finished.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Client, pair, sleep, startServer } from './harness.mjs';

const sql = (db, statement) => execFileSync('sqlite3', ['-cmd', '.timeout 5000', db, statement]);

// Closes the clients, stops the server cleanly, starts a new one on the same data directory and
// brings the first client back by its token into room; resolves with its state and the new server.
async function restart(server, data, clients, room) {
  for (const c of clients) await c.close();
  assert.equal((await server.stop()).code, 0);
  const again = await startServer([], { data });
  const back = await Client.connect(again, { token: clients[0].me.token });
  assert.equal((await back.request({ type: 'join', room })).type, 'joined');
  return { server: again, client: back, state: await back.state(room) };
}

test('a lost batch takes back the move in it; the game ends once the disk takes it', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-lost-'));
  const db = path.join(data, 'mancala.db');
  try {
    const server = await startServer([], { data });
    const a = await Client.connect(server, { name: 'Ana' });
    const b = await Client.connect(server, { name: 'Bo' });
    // Kalah 1x1: South's only seed goes to the store and South has nothing left: the game ends.
    const { room } = await pair(a, b, { houses: 1, seeds: 1 });

    sql(db, 'CREATE TRIGGER refuse_result BEFORE UPDATE OF ended_ms ON games ' +
      "BEGIN SELECT RAISE(ROLLBACK, 'refused by the test'); END;");
    const refused = await a.request({ type: 'move', room, house: 1, ply: 0 });
    assert.equal(refused.type, 'error');
    assert.equal(refused.code, 'storage_error');
    const seen = await b.state(room, (s) => s.ply === 0);
    assert.equal(seen.status, 'playing');
    assert.deepEqual(seen.pits, [1, 0, 1, 0]);

    sql(db, 'DROP TRIGGER refuse_result;');
    const ended = await a.request({ type: 'move', room, house: 1, ply: 0 });
    assert.equal(ended.type, 'state');
    assert.equal(ended.status, 'finished');
    const again = await restart(server, data, [a, b], room);
    assert.equal(sql(db, 'SELECT count(*) FROM moves;').toString().trim(), '1');
    assert.equal(again.state.status, 'finished');
    assert.equal(again.state.ply, 1);
    await again.client.close();
    assert.equal((await again.server.stop()).code, 0);
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});

test('a result the disk refuses at once is written again later and survives a restart', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-lost-'));
  const db = path.join(data, 'mancala.db');
  try {
    const server = await startServer([], { data });
    const a = await Client.connect(server, { name: 'Ana' });
    const b = await Client.connect(server, { name: 'Bo' });
    const { room } = await pair(a, b);
    assert.equal((await a.request({ type: 'move', room, house: 1, ply: 0 })).type, 'state');

    // The resignation's result is the only write of its turn, refused when it is made.
    sql(db, 'CREATE TRIGGER refuse_result BEFORE UPDATE OF ended_ms ON games ' +
      "BEGIN SELECT RAISE(ROLLBACK, 'refused by the test'); END;");
    const resigned = await b.request({ type: 'resign', room });
    assert.equal(resigned.status, 'finished');
    assert.equal(resigned.result.reason, 'resignation');
    // Retried about once a second while the disk still refuses it: no storm of retries.
    for (let i = 0; i < 6; i++) {
      assert.equal((await a.request({ type: 'chat', room, text: `still refused ${i}` })).type, 'chat');
      await sleep(250);
    }
    const refusals = server.log.split('\n').filter((l) => l.includes('refused by the test')).length;
    assert.ok(refusals >= 2 && refusals <= 4, `${refusals} attempts in 1.5 s`);

    sql(db, 'DROP TRIGGER refuse_result;');
    for (let i = 0; i < 6; i++) {
      await a.request({ type: 'chat', room, text: `disk back ${i}` });
      await sleep(250);
    }
    assert.match(server.log, /its result is stored now/);
    const again = await restart(server, data, [a, b], room);
    assert.equal(sql(db, 'SELECT reason FROM games;').toString().trim(), 'resignation');
    assert.equal(again.state.status, 'finished');
    assert.equal(again.state.result.reason, 'resignation');
    assert.equal(again.state.result.winner, 'south');
    await again.client.close();
    assert.equal((await again.server.stop()).code, 0);
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});
