// An aborted game in the browser: a protocol client creates a room with a 1 s clock and takes
// South, a person opens the invite and takes North; South never makes its first move, so the
// game is aborted at its deadline. The result card and the status line say "Game aborted", with
// no winner, no score and no replay, in English and in French, on a desktop (1280 x 800) and on a
// phone (360 x 640), where the card is on the screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { useBrowser, acceptInvite, shot } from './harness.mjs';
import { tIn, loadLang } from '../../web/i18n.js';

const ctx = useBrowser();
await Promise.all(['en', 'fr'].map((code) => loadLang(code)));

// A protocol client that creates a room with a 1 s clock, seated South, and never moves;
// resolves with its code and a close().
function southThatNeverMoves() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(ctx.server.base.replace('http', 'ws') + '/ws', 'mancala.v1');
    ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', name: 'Idle' })));
    ws.on('message', (d) => {
      const m = JSON.parse(d);
      if (m.type === 'welcome') {
        ws.send(JSON.stringify({ type: 'create', game: 'kalah', seat: 'south', visibility: 'private',
          clock: { initial_ms: 1000, increment_ms: 0 } }));
      } else if (m.type === 'joined') {
        resolve({ code: m.room, close: () => ws.close() });
      }
    });
    ws.on('error', reject);
  });
}

const CASES = [['en', 'en-US', 1280, 800], ['fr', 'fr-FR', 1280, 800], ['en', 'en-US', 360, 640], ['fr', 'fr-FR', 360, 640]];
for (const [lang, locale, width, height] of CASES) {
  test(`a game nobody started is aborted: the card says so (${lang}, ${width} x ${height})`, async () => {
    const T = (key) => tIn(lang, key);
    const south = await southThatNeverMoves();
    const p = await ctx.page({ locale, width, height });
    await p.goto(ctx.server.base + '/r/' + south.code);
    await acceptInvite(p, 'Nora');
    // South's first move has its deadline (1 s here): nobody moves, the game is aborted.
    const card = p.locator('.overlay.over .over-card.result');
    await card.waitFor({ timeout: 15000 });
    assert.equal(await card.locator('h2').textContent(), T('result.aborted'));
    assert.equal(await card.locator('.reason').textContent(), T('reason.aborted'));
    assert.equal(await card.getAttribute('aria-label'), T('result.aborted'));
    // No winner, no score, nothing to replay; a rematch is offered as after any game.
    assert.equal(await card.locator('.final-score').count(), 0);
    assert.equal(await card.locator('a[href^="/g/"]').count(), 0);
    assert.equal(await p.locator('.overlay.over .rating-change').count(), 0);
    assert.equal(await card.locator('.over-actions button.primary').count(), 1, 'the rematch button');
    for (const word of ['result.you_won', 'result.you_lost', 'reason.timeout']) {
      assert.ok(!(await card.textContent()).includes(T(word)), `the card does not say ${T(word)}`);
    }
    // The card and its rematch button are on the screen, whatever its size.
    for (const el of [card, card.locator('.over-actions button.primary')]) {
      const b = await el.boundingBox();
      assert.ok(b && b.x >= 0 && b.y >= 0 && b.x + b.width <= width + 0.5 && b.y + b.height <= height + 0.5,
        `on the ${width} x ${height} screen: ${JSON.stringify(b)}`);
    }
    await shot(p, 'aborted-' + lang);
    // The status line, under the card.
    await card.getByRole('button', { name: T('result.see_board') }).click();
    await p.locator('.status-line', { hasText: T('status.aborted') }).waitFor();
    south.close();
    ctx.noProblems(p);
  });
}
