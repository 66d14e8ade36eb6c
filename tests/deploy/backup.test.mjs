// The README's backup and restore of the data directory, as an admin would run them: an online
// `sqlite3 .backup` while the server runs and a game is in progress, then a restore into a fresh
// data directory, where the game resumes at the backed-up position with its players' seats.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, Client, pair } from '../integration/harness.mjs';

test('an online backup restores into a new data directory and the game goes on', async () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-backup-'));
  const live = path.join(work, 'live');
  const restored = path.join(work, 'restored');
  try {
    let server = await startServer([], { data: live });
    const a = await Client.connect(server, { name: 'Ana' });
    const b = await Client.connect(server, { name: 'Bo' });
    const { room, state: first } = await pair(a, b);
    // South 1, then North 1 (house numbers of each mover's own side): Kalah 6x4, no extra turn.
    let st = await a.request({ type: 'move', room, house: 1, ply: first.ply });
    assert.equal(st.type, 'state');
    st = await b.request({ type: 'move', room, house: 1, ply: st.ply });
    assert.equal(st.type, 'state');
    assert.equal(st.ply, 2);
    const pits = st.pits;

    // The documented command, against the live database.
    fs.mkdirSync(restored);
    execFileSync('sqlite3', [path.join(live, 'mancala.db'), `.backup '${path.join(restored, 'mancala.db')}'`]);

    // A move after the backup is not in it.
    st = await a.request({ type: 'move', room, house: 2, ply: 2 });
    assert.equal(st.type, 'state');
    await a.close();
    await b.close();
    assert.equal((await server.stop()).code, 0);

    server = await startServer([], { data: restored });
    const a2 = await Client.connect(server, { token: a.me.token });
    assert.equal(a2.me.player, a.me.player);
    const joined = await a2.request({ type: 'join', room });
    assert.equal(joined.type, 'joined');
    assert.equal(joined.seat, 'south');
    const back = await a2.state(room);
    assert.equal(back.status, 'playing');
    assert.equal(back.ply, 2);
    assert.deepEqual(back.pits, pits);
    assert.equal(back.turn, 'south');
    assert.equal(back.players.north.name, 'Bo');
    const next = await a2.request({ type: 'move', room, house: 2, ply: 2 });
    assert.equal(next.type, 'state');
    assert.equal(next.ply, 3);
    await a2.close();
    assert.equal((await server.stop()).code, 0);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});
