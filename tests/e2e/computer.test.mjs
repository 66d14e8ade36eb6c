// Playing the computer in the browser: the lobby offers it (the server's welcome says it has one)
// with a level picker in words; a game created from the form is played to its end, the computer
// answering every move; a game card's "Play the computer" starts a game at once; the words are
// translated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, createRoom, playToEnd, recordStates, shot } from './harness.mjs';

const ctx = useBrowser();

test('a game against the computer from the lobby form, played to its end', async () => {
  const page = await ctx.page();
  const states = recordStates(page);
  await page.goto(ctx.server.base + '/');
  // The opponent choice holds the computer; choosing it shows the six levels with their words.
  await page.locator('label[for="f-opponent-computer"]').waitFor();
  await page.locator('label[for="f-game-kalah"]').click();
  await page.locator('label[for="f-opponent-computer"]').click();
  const levels = await page.locator('fieldset.seg input[name=level]').count();
  assert.equal(levels, 6);
  assert.equal((await page.locator('label[for="f-level-1"]').textContent()).trim(), '1 · beginner');
  assert.equal((await page.locator('label[for="f-level-6"]').textContent()).trim(), '6 · master');
  await page.locator('label[for="f-level-2"]').click();
  await page.locator('label[for="f-seat-south"]').click();
  // A short game: Kalah with 4 houses of 3 seeds.
  const code = await createRoom(page, { game: 'kalah', houses: 4, seeds: 3, opponent: 'computer' });
  assert.match(code, /^[A-Z2-9]{6}$/);
  const far = page.locator('.pbar.far');
  await far.locator('.pname-text').waitFor();
  assert.equal((await far.locator('.pname-text').textContent()).trim(), 'Computer (level 2)');
  assert.match(await far.textContent(), /computer/i, 'the far bar says it is the computer');
  await shot(page, 'computer-start');
  const clicks = await playToEnd([page], { timeout: 180000 });
  assert.ok(clicks > 0);
  await page.locator('.overlay.over').waitFor();
  await shot(page, 'computer-over');
  // Every state came from the server; the computer's moves are in them (North's), each one ply on.
  const last = states[states.length - 1];
  assert.equal(last.status, 'finished');
  const north = states.filter((s) => s.last && s.last.seat === 'north').length;
  assert.ok(north > 0, 'the computer moved');
  assert.equal(last.players.north.computer, true);
  ctx.noProblems(page);
});

test('"Play the computer" on a game card starts a game at once; the level words are translated', async () => {
  const page = await ctx.page({ locale: 'fr-FR' });
  await page.goto(ctx.server.base + '/');
  const button = page.locator('button[data-quick-computer="oware"]');
  await button.waitFor();
  assert.equal((await button.textContent()).trim(), 'Jouer contre l’ordinateur');
  await page.locator('label[for="f-opponent-computer"]').click();
  assert.equal((await page.locator('label[for="f-level-6"]').textContent()).trim(), '6 · maître');
  await button.click();
  await page.waitForURL(/\/r\/[A-Z2-9]{6}$/);
  const far = page.locator('.pbar.far .pname-text');
  await far.waitFor();
  // The computer's name is worded in the reader's language (from the seat's level).
  assert.match((await far.textContent()).trim(), /^Ordinateur \(niveau [1-6]\)$/);
  // The game is on: either the person has a house to play or the computer is about to move.
  await page.locator('.board .house.legal').first().waitFor({ timeout: 60000 });
  ctx.noProblems(page);
});
