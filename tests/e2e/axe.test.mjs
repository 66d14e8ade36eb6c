// axe-core (tests/node_modules/axe-core) on every kind of page: the lobby, a room during a game
// and after 50 plies (the move list scrolls), the game's end, its replay, a profile and a
// leaderboard, at 1280 x 800 and 360 x 640: no serious and no moderate violation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { useBrowser, createRoom, setSpeed, shot } from './harness.mjs';
import { tIn, loadLang } from '../../web/i18n.js';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');
const ctx = useBrowser();
await loadLang('en');

// The serious and moderate violations on the page, one line each (rule, impact, first targets).
async function violations(p, what) {
  if (!(await p.evaluate(() => typeof window.axe === 'object'))) await p.addScriptTag({ path: AXE });
  const found = await p.evaluate(async () => {
    // label-content-name-mismatch (WCAG 2.5.3: a control's name contains its visible label) is
    // one of axe's experimental rules, off unless asked for (issue 23: the pool buttons).
    const r = await window.axe.run(document, { resultTypes: ['violations'], rules: { 'label-content-name-mismatch': { enabled: true } } });
    window.__axeRules = r.passes ? r.passes.length : -1;
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'moderate' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  });
  return found.map((f) => what + ': ' + f);
}

async function signUp(p, name) {
  await p.locator('.account-login').click();
  const dlg = p.locator('dialog[open]');
  await dlg.locator('.link-btn').click();
  const inputs = dlg.locator('input');
  await inputs.nth(2).waitFor();
  await inputs.nth(0).fill(name);
  await inputs.nth(1).fill('correct horse 42');
  await inputs.nth(2).fill('correct horse 42');
  await dlg.locator('button[type=submit]').click();
  await dlg.waitFor({ state: 'detached' }).catch(() => {});
  await p.waitForFunction(() => !document.querySelector('dialog[open]'));
}

for (const [width, height] of [[1280, 800], [360, 640]]) {
  test(`at ${width} x ${height}: axe finds no serious or moderate violation on any page`, async (t) => {
    const p = await ctx.page({ width, height, bypassCSP: true });
    const found = [];
    await p.goto(ctx.server.base + '/');
    await p.locator('.games .game-card').first().waitFor();
    await p.locator('.rooms').waitFor();
    found.push(...await violations(p, 'lobby'));
    const name = 'Axe' + width;
    await signUp(p, name);

    // A game of Congkak (long) against the computer: during play, then after 50 plies.
    await p.locator('label[for="f-opponent-computer"]').click();
    await p.locator('label[for="f-game-congkak"]').click();
    await p.locator('label[for="f-opponent-computer"]').click();
    await p.locator('label[for="f-level-1"]').click();
    // A match of rounds: long enough for fifty plies.
    const match = p.locator('.create-form label.check', { hasText: tIn('en', 'opt.match') }).locator('input');
    if (!(await match.isChecked())) await match.check();
    await createRoom(p, { game: 'congkak', opponent: 'computer', clock: 0 });
    await setSpeed(p, 'off');
    await p.locator('.board .house.legal').first().waitFor({ timeout: 20000 });
    found.push(...await violations(p, 'room'));
    // A chat switch keeps the focus when pressed (the settings are drawn again under it).
    await p.locator('.chat-settings summary').click();
    const spectators = p.locator('.chat-prefs input[data-pref="spectators"]');
    await spectators.focus();
    await p.keyboard.press('Space');
    assert.equal(await p.evaluate(() => document.activeElement?.dataset?.pref), 'spectators', 'the focus stays on the switch');
    assert.equal(await p.locator('.chat-prefs input[data-pref="spectators"]').isChecked(), false);
    await p.keyboard.press('Space');
    assert.equal(await p.evaluate(() => document.activeElement?.dataset?.pref), 'spectators');
    await p.locator('.chat-settings summary').click();
    for (let i = 0; i < 400; i++) {
      if (await p.locator('.overlay.over').count()) break;
      if ((await p.locator('.moves .mv').count()) >= 50) break;
      const legal = p.locator('.board .house.legal');
      if (!(await legal.count())) { await p.waitForTimeout(50); continue; }
      await legal.nth(i % (await legal.count())).click({ timeout: 2000 }).catch(() => {});
    }
    const plies = await p.locator('.moves .mv').count();
    t.diagnostic(`${plies} plies before the second check of the room`);
    assert.ok(plies >= 50 || (await p.locator('.overlay.over').count()), 'fifty plies, or the game ended');
    found.push(...await violations(p, 'room after ' + plies + ' plies'));
    await shot(p, 'axe-room');
    // The end of the game (resigned if it goes on), then its replay.
    if (!(await p.locator('.overlay.over').count())) {
      await p.locator('.actions .btn.danger').click();
      await p.locator('dialog[open] .btn.danger').click();
    }
    await p.locator('.overlay.over').waitFor();
    found.push(...await violations(p, 'result'));
    const replay = await p.locator('.overlay.over a.replay-link').getAttribute('href');
    await p.goto(ctx.server.base + replay);
    await p.locator('.replay .board .pit').first().waitFor();
    found.push(...await violations(p, 'replay'));
    await p.goto(ctx.server.base + '/@/' + name);
    await p.locator('.profile h1').waitFor();
    await p.locator('.profile-games').waitFor().catch(() => {});
    found.push(...await violations(p, 'profile'));
    await p.goto(ctx.server.base + '/leaderboard/kalah');
    await p.locator('.leaderboard h1').waitFor();
    found.push(...await violations(p, 'leaderboard'));
    p.allowed.push(/status of 404/); // the not-found page itself comes with status 404
    await p.goto(ctx.server.base + '/no/such/page');
    await p.locator('[data-notfound]').waitFor();
    found.push(...await violations(p, 'not found'));
    assert.deepEqual(found, []);
    ctx.noProblems(p);
  });
}
