// Hints in the browser: in a game against the computer the Hint button (reached and pressed with
// the keyboard) rings the suggested house and says its value; on a phone, in French, at one
// screen, the button fits and works; the create form offers the hints option for a casual room
// between people and sends it, and both players' room and the lobby show it.
//
// The position is hand-checked (tests/integration/hints.test.mjs): Kalah with 2 houses of 1 seed,
// South to move: house 2 ends in the store (an extra turn) and house 1 then captures, South +2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { useBrowser, createRoom, acceptInvite, shot } from './harness.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const ctx = useBrowser();

// axe-core's serious, moderate and critical violations on the page (as e2e/axe.test.mjs).
async function violations(p) {
  await p.addScriptTag({ path: AXE });
  return p.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => ['serious', 'moderate', 'critical'].includes(v.impact))
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  });
}

test('the Hint button against the computer, with the keyboard: house 2 rings, value +2 proven', async () => {
  const page = await ctx.page({ bypassCSP: true });
  const sent = [];
  page.on('websocket', (ws) => ws.on('framesent', (f) => { try { sent.push(JSON.parse(f.payload)); } catch { /* not JSON */ } }));
  await page.goto(ctx.server.base + '/');
  await page.locator('label[for="f-opponent-computer"]').waitFor();
  await page.locator('label[for="f-game-kalah"]').click();
  await page.locator('label[for="f-opponent-computer"]').click();
  // No hints option here: games against the computer always have them.
  assert.equal(await page.locator('input[name=hints]').count(), 0);
  await page.locator('label[for="f-level-1"]').click();
  await page.locator('label[for="f-seat-south"]').click();
  await createRoom(page, { game: 'kalah', houses: 2, seeds: 1, opponent: 'computer' });
  const button = page.locator('button[data-action=hint]');
  await button.waitFor();
  assert.equal((await button.textContent()).trim(), 'Hint');
  await page.locator('.board .house.legal').first().waitFor();
  // Keyboard: the button takes the focus and Enter presses it.
  await button.focus();
  await page.keyboard.press('Enter');
  const hinted = page.locator('.board .pit.hinted');
  await hinted.waitFor();
  assert.equal(await hinted.count(), 1);
  assert.equal(await hinted.getAttribute('data-pit'), '1', 'South house 2 is pit 1');
  assert.match(await hinted.getAttribute('aria-label'), /^House 2/);
  const note = page.locator('.offer.hint-note');
  assert.equal((await note.textContent()).trim(), 'Hint: house 2 (value +2, proven)');
  assert.equal(await button.isDisabled(), true, 'one hint per position');
  const ask = sent.find((m) => m.type === 'hint');
  assert.equal(ask.ply, 0);
  await shot(page, 'hint-computer');
  assert.deepEqual(await violations(page), [], 'the room with its hint shown');
  // Playing the house: the position changes, the ring and the note go.
  await hinted.click();
  await page.waitForFunction(() => !document.querySelector('.board .pit.hinted') && !document.querySelector('.offer.hint-note'));
  ctx.noProblems(page);
});

test('on a phone, in French, at one screen: the button fits and rings a house', async () => {
  const page = await ctx.page({ width: 390, height: 844, locale: 'fr-FR' });
  await page.goto(ctx.server.base + '/');
  await page.locator('label[for="f-opponent-local"]').waitFor();
  await createRoom(page, { game: 'kalah', houses: 2, seeds: 1, opponent: 'local' });
  const button = page.locator('button[data-action=hint]');
  await button.waitFor();
  assert.equal((await button.textContent()).trim(), 'Indice');
  const box = await button.boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `inside the screen: ${JSON.stringify(box)}`);
  assert.ok(box.height >= 40, `a finger's target: ${box.height}`);
  await button.scrollIntoViewIfNeeded();
  await button.click();
  await page.locator('.board .pit.hinted[data-pit="1"]').waitFor();
  assert.equal((await page.locator('.offer.hint-note').textContent()).trim(), 'Indice : maison 2 (valeur +2, prouvée)');
  await shot(page, 'hint-phone');
  ctx.noProblems(page);
});

test('the create form: hints for a casual room, shown to both players and in the lobby', async () => {
  const ana = await ctx.page();
  const sent = [];
  ana.on('websocket', (ws) => ws.on('framesent', (f) => { try { sent.push(JSON.parse(f.payload)); } catch { /* not JSON */ } }));
  await ana.goto(ctx.server.base + '/');
  await ana.locator('label[for="f-opponent-human"]').waitFor();
  await ana.locator('label[for="f-opponent-human"]').click();
  const box = ana.locator('input[name=hints]');
  await box.check();
  await ana.locator('label[for="f-seat-south"]').click();
  const code = await createRoom(ana, { game: 'kalah', houses: 2, seeds: 1, opponent: 'human' });
  const create = sent.find((m) => m.type === 'create');
  assert.equal(create.hints, true);
  // Another person sees the room's tag in the lobby and joins it.
  const bob = await ctx.page();
  await bob.goto(ctx.server.base + '/');
  const row = bob.locator('.room-row', { has: bob.locator(`a[href="/r/${code}"]`) });
  await row.locator('.tag.hints').waitFor();
  assert.equal((await row.locator('.tag.hints').textContent()).trim(), 'Hints');
  await bob.goto(ctx.server.base + '/r/' + code);
  await acceptInvite(bob, 'Bob');
  // Both have the button; only the side to move (Ana, South) can press it.
  await ana.locator('button[data-action=hint]').waitFor();
  await bob.locator('button[data-action=hint]').waitFor();
  assert.equal(await bob.locator('button[data-action=hint]').isDisabled(), true);
  await ana.locator('button[data-action=hint]').click();
  await ana.locator('.board .pit.hinted').waitFor();
  assert.equal(await bob.locator('.board .pit.hinted').count(), 0, 'the opponent sees no hint');
  // Both see that the room gives hints, under its title.
  for (const p of [ana, bob]) assert.match(await p.locator('.room-sub').textContent(), /Hints/);
  await shot(ana, 'hint-casual');
  ctx.noProblems(ana, bob);
});
