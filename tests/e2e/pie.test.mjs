// The pie rule in the browser (rule book, option `pie`): the create form's option, the Swap button
// the second player gets after the first player's first turn, the swap in the move list, and the
// computer moving on from its new side; on the phone layout and in French on a desktop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, createRoom, recordStates, shot } from './harness.mjs';

const ctx = useBrowser();

// Creates a Kalah game with the pie rule against the computer at level 1, the person on North (the
// computer moves first), from the lobby form of page.
async function pieGame(page) {
  await page.goto(ctx.server.base + '/');
  await page.locator('label[for="f-game-kalah"]').waitFor();
  await page.locator('label[for="f-game-kalah"]').click();
  await page.locator('label[for="f-opponent-computer"]').click();
  await page.locator('label[for="f-level-1"]').click();
  await page.locator('label[for="f-seat-north"]').click();
  const pie = page.locator('input[name=pie]');
  assert.equal(await pie.isChecked(), false, 'off by default in a casual game');
  await pie.check();
  return createRoom(page, { game: 'kalah', opponent: 'computer' });
}

test('phone: the Swap button after the computer\'s first turn; the move list shows the swap', async () => {
  const page = await ctx.page({ width: 360, height: 740 });
  const states = recordStates(page);
  await pieGame(page);
  const swap = page.locator('button[data-action=swap]');
  await swap.waitFor({ timeout: 60000 });
  assert.equal((await swap.textContent()).trim(), 'Swap sides');
  const before = states[states.length - 1];
  assert.equal(before.swap, 'north', 'the server says North may swap');
  assert.equal(before.you, 'north');
  // The offer is brought into view on the phone (it sits below the board).
  await page.waitForFunction(() => {
    const r = document.querySelector('button[data-action=swap]').getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
  }, null, { timeout: 5000 });
  await shot(page, 'pie-swap');
  await swap.click();
  // The move list names the swap; the person now holds South and the computer moves from North.
  const item = page.locator('.moves .mv.swap');
  await item.first().waitFor();
  assert.match(await item.first().textContent(), /swapped sides/);
  await page.waitForFunction(() => !document.querySelector('button[data-action=swap]'));
  const after = states.find((s) => s.last && s.last.swap);
  assert.ok(after, 'a state with the swap as its last move');
  assert.equal(after.you, 'south');
  assert.equal(after.players.north.computer, true);
  assert.equal(after.ply, before.ply + 1);
  const deadline = Date.now() + 60000;
  while (!states.some((s) => s.ply === after.ply + 1) && Date.now() < deadline) await page.waitForTimeout(50);
  const reply = states.find((s) => s.ply === after.ply + 1);
  assert.ok(reply, 'the computer moved after the swap');
  assert.equal(reply.last.seat, 'north');
  await page.locator('.moves .mv').nth(after.ply).waitFor();
  await shot(page, 'pie-swapped');
  ctx.noProblems(page);
});

test('desktop, in French: the option in the form and the button in the room are translated', async () => {
  const page = await ctx.page({ locale: 'fr-FR' });
  await pieGame(page);
  const swap = page.locator('button[data-action=swap]');
  await swap.waitFor({ timeout: 60000 });
  assert.equal((await swap.textContent()).trim(), 'Échanger les camps');
  assert.match(await page.locator('.offer').first().textContent(), /Règle du gâteau/);
  await shot(page, 'pie-swap-fr');
  ctx.noProblems(page);
});
