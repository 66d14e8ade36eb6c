// The move deadline of an untimed game in the browser (issue 25, item 7): the server runs with a
// short deadline (MANCALA_MOVE_DEADLINE_MS, 4 s: under the minute from which the client shows it).
// A protocol client creates an untimed room seated North; a person opens the invite and takes
// South, to move first. The person's bar shows the deadline running out; nobody moves, and the
// game ends by abandonment: the person lost. Nothing asserts how long anything took.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { useBrowser, acceptInvite, shot } from './harness.mjs';
import { tIn, loadLang } from '../../web/i18n.js';

process.env.MANCALA_MOVE_DEADLINE_MS = '4000';
const ctx = useBrowser();
await loadLang('en');

function northThatWaits() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(ctx.server.base.replace('http', 'ws') + '/ws', 'mancala.v1');
    ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', name: 'Waiter' })));
    ws.on('message', (d) => {
      const m = JSON.parse(d);
      if (m.type === 'welcome') ws.send(JSON.stringify({ type: 'create', game: 'kalah', seat: 'north', visibility: 'private' }));
      else if (m.type === 'joined') resolve({ code: m.room, close: () => ws.close() });
    });
    ws.on('error', reject);
  });
}

test('an untimed game shows the move deadline running out, then the side that did not move loses', async () => {
  const north = await northThatWaits();
  const p = await ctx.page({ locale: 'en-US' });
  await p.goto(ctx.server.base + '/r/' + north.code);
  await acceptInvite(p, 'Nora');
  // The person (South) is to move: its own bar says how long it has left.
  const note = p.locator('.pbar.near .move-deadline:not([hidden])');
  await note.waitFor({ timeout: 15000 });
  const [before, after] = tIn('en', 'room.move_deadline', { s: '\u0000' }).split('\u0000');
  const text = await note.textContent();
  assert.ok(text.startsWith(before) && text.endsWith(after) && /^\d+$/.test(text.slice(before.length, text.length - after.length)), text);
  assert.equal(await p.locator('.pbar.far .move-deadline:not([hidden])').count(), 0, 'not on the opponent\'s bar');
  await shot(p, 'move-deadline');
  // Nobody moves: the game ends, lost by abandonment.
  const card = p.locator('.overlay.over .over-card.result');
  await card.waitFor({ timeout: 15000 });
  assert.equal(await card.locator('h2').textContent(), tIn('en', 'result.you_lost'));
  assert.equal(await card.locator('.reason').textContent(), tIn('en', 'reason.abandoned_you'));
  assert.equal(await p.locator('.move-deadline:not([hidden])').count(), 0);
  north.close();
  ctx.noProblems(p);
});
