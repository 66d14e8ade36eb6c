// A finished game's analysis on the replay page (/g/ID, analysis.js): the game-over card's Analyse
// link opens the replay and asks for it, the panel's Analyse button asks for another game's; once
// it is there the evaluation graph, the marks in the move list and the best move at the step shown
// (which follows the keyboard). Screenshots at 360 x 640 and 1280 x 800, in English and French.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { useBrowser, createRoom, setSpeed, playToEnd, shot } from './harness.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

const ctx = useBrowser();
const games = []; // The replay addresses of the games played here, in order.

// Plays a Kalah 4x3 game at one screen on p to its end; returns its replay and analyse links.
async function playLocal(p) {
  await p.goto(ctx.server.base + '/');
  await createRoom(p, { game: 'kalah', houses: 4, seeds: 3, opponent: 'local' });
  await setSpeed(p, 'off');
  await playToEnd([p], { timeout: 60000 });
  const replay = await p.locator('.overlay.over a.replay-link').getAttribute('href');
  const analyse = p.locator('.overlay.over a.analyse-link');
  assert.equal(await analyse.getAttribute('href'), replay + '?analyse=1');
  return { replay, analyse };
}

// Waits for the analysis on the replay page p and checks what it shows.
async function checkShown(p) {
  const graph = p.locator('.analysis .eval-graph');
  await graph.waitFor({ timeout: 120000 });
  assert.equal(await graph.getAttribute('role'), 'img');
  assert.ok((await graph.getAttribute('aria-label')).length > 10, 'the graph is labelled');
  assert.equal(await p.locator('.eval-graph polyline.line').count(), 1);
  const total = Number(await p.locator('.replay-controls input[type=range]').getAttribute('max'));
  const points = (await p.locator('.eval-graph polyline.line').getAttribute('points')).trim().split(/\s+/);
  assert.equal(points.length, total + 1, 'one point per position of the game');
  // Every move the analysis valued carries its mark, with a word for screen readers.
  const marks = p.locator('.replay .moves .mark');
  assert.ok(await marks.count() >= 1, 'marks in the move list');
  assert.ok(await marks.count() <= total);
  const word = await marks.first().locator('.sr-only').textContent();
  assert.ok(word.length > 2, word);
  assert.match(await p.locator('.analysis .an-accuracy').textContent(), /\d+\s?%/);
  // At the start, the best move from the first position; a step forward names the move played.
  await p.keyboard.press('Home');
  await p.locator('.analysis .an-best[data-best]').waitFor();
  const best = Number(await p.locator('.analysis .an-best').getAttribute('data-best'));
  assert.ok(best >= 1 && best <= 4, 'a house of a 4-house board: ' + best);
  assert.equal(await p.locator('.analysis .an-played').count(), 0);
  await p.keyboard.press('ArrowRight');
  await p.locator('.analysis .an-played').waitFor();
  await p.keyboard.press('End');
}

// axe-core's serious, moderate and critical violations on the page (none expected).
async function axeViolations(p) {
  if (!(await p.evaluate(() => typeof window.axe === 'object'))) await p.addScriptTag({ path: AXE });
  return p.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => ['serious', 'moderate', 'critical'].includes(v.impact))
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  });
}

// Shows the position after two moves (its best move and line, the second move's mark) for the
// screenshot.
async function stepTwo(p) {
  await p.keyboard.press('Home');
  await p.keyboard.press('ArrowRight');
  await p.keyboard.press('ArrowRight');
  await p.waitForFunction(() => document.querySelector('.replay-controls input[type=range]').value === '2');
  await p.locator('.analysis .an-played').waitFor();
  await p.locator('.analysis').scrollIntoViewIfNeeded();
}

for (const [width, height, locale, lang] of [[1280, 800, 'en-US', 'en'], [360, 640, 'fr-FR', 'fr']]) {
  test(`at ${width} x ${height} (${lang}): a game analysed, its graph and marks shown`, async () => {
    const p = await ctx.page({ width, height, locale, bypassCSP: true }); // axe is injected below
    // An account plays it, so that its profile lists the game with its accuracy.
    const name = 'Analyst_' + lang;
    await p.goto(ctx.server.base + '/');
    await p.locator('.account-login').click();
    const dlg = p.locator('dialog[open]');
    await dlg.locator('.link-btn').click();
    await dlg.locator('input').nth(2).waitFor();
    for (const [i, v] of [[0, name], [1, 'correct horse battery'], [2, 'correct horse battery']]) await dlg.locator('input').nth(i).fill(v);
    await dlg.locator('button[type=submit]').click();
    await p.locator('.account-btn', { hasText: name }).waitFor();
    const { replay, analyse } = await playLocal(p);
    games.push(replay);
    if (games.length === 1) {
      // The game-over card's Analyse: the replay asks for the analysis at once.
      await analyse.click();
      await p.waitForURL(/\/g\/[0-9a-f]{16}\?analyse=1$/);
    } else {
      // The replay of a game not analysed offers the button, which asks for it.
      await p.goto(ctx.server.base + replay);
      const go = p.locator('.analysis .an-go');
      await go.waitFor();
      assert.equal(await p.locator('.analysis .eval-graph').count(), 0);
      await go.focus();
      await p.keyboard.press('Enter');
    }
    await checkShown(p);
    await stepTwo(p);
    await shot(p, `analysis-${lang}`);
    assert.deepEqual(await axeViolations(p), [], 'axe on the analysed replay');
    // The player's profile shows the game's accuracy.
    await p.goto(ctx.server.base + '/@/' + name);
    const acc = p.locator('.recent-row .rr-acc').first();
    await acc.waitFor();
    assert.match(await acc.textContent(), /\d+\s?%$/);
    assert.ok((await acc.getAttribute('title')).length > 10, 'the accuracy says what it is');
    await acc.scrollIntoViewIfNeeded();
    await shot(p, `analysis-profile-${lang}`);
    ctx.noProblems(p);
  });
}

for (const [width, height, locale, lang] of [[360, 640, 'en-US', 'en'], [1280, 800, 'fr-FR', 'fr']]) {
  test(`at ${width} x ${height} (${lang}): an analysed game shows its analysis when its replay opens`, async () => {
    assert.ok(games.length > 0, 'a game was analysed above');
    const p = await ctx.page({ width, height, locale });
    await p.goto(ctx.server.base + games[0]);
    await checkShown(p);
    assert.equal(await p.locator('.analysis .an-go').count(), 0, 'no Analyse button once analysed');
    // The page fits the phone: nothing wider than the viewport.
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
    await stepTwo(p);
    await shot(p, `analysis-${lang}`);
    ctx.noProblems(p);
  });
}
