// Two people at one screen: the sides are Player 1 and Player 2 (South and North to spectators),
// renamed in the room, and the names show everywhere: bars, status, move list, announcements, the
// result, the replay page; they are kept in the browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, createRoom, setSpeed, playToEnd, shot } from './harness.mjs';
import { tIn, loadLang } from '../../web/i18n.js';

const ctx = useBrowser();
await Promise.all(['en', 'fr'].map((code) => loadLang(code)));

const barName = (p, which) => p.locator(`.pbar.${which} .pname-text`).textContent();

async function rename(p, which, name, key = 'Enter') {
  await p.locator(`.pbar.${which} .rename`).click();
  const input = p.locator(`.pbar.${which} .name-input`);
  await input.fill(name);
  await input.press(key);
}

test('same-screen games name both sides, renamed everywhere and remembered', async () => {
  const p = await ctx.page();
  await p.goto(ctx.server.base + '/');
  await p.waitForFunction(() => document.getElementById('who').textContent.length > 0);
  const guest = await p.locator('#who').textContent();
  await createRoom(p, { game: 'kalah', houses: 3, seeds: 2, opponent: 'local' });
  await setSpeed(p, 'off');
  await p.locator('.board .house.legal').first().waitFor();
  assert.equal(await barName(p, 'near'), tIn('en', 'local.player1'));
  assert.equal(await barName(p, 'far'), tIn('en', 'local.player2'));
  assert.equal(await p.locator('.pbar', { hasText: guest }).count(), 0, 'the connection\'s own name is not a side\'s name');
  await shot(p, 'local-names-default');

  // Renamed with the pencil: Enter keeps, Escape cancels.
  await rename(p, 'near', 'Ana');
  await rename(p, 'far', 'Zed', 'Escape');
  assert.equal(await barName(p, 'far'), tIn('en', 'local.player2'));
  await rename(p, 'far', '  Bo   Li ');
  assert.equal(await barName(p, 'near'), 'Ana');
  assert.equal(await barName(p, 'far'), 'Bo Li');
  assert.match(await p.locator('.status-line').textContent(), /^Ana to move/);
  // The pencil says whom it renames (screen readers).
  assert.equal(await p.locator('.pbar.near .rename').getAttribute('aria-label'), tIn('en', 'local.rename', { name: 'Ana' }));

  // Moves: each line and each announcement names the side that played.
  for (let i = 0; i < 3; i++) {
    if (!(await p.locator('.board .house.legal').count())) break;
    await p.locator('.board .house.legal').first().click();
    await p.waitForFunction((n) => document.querySelectorAll('.moves .mv').length === n, i + 1);
  }
  const lines = await p.locator('.moves .mv').evaluateAll((els) => els.map((e) => [e.classList.contains('south') ? 'south' : 'north', e.querySelector('.who').textContent]));
  for (const [seat, who] of lines) assert.equal(who, seat === 'south' ? 'Ana' : 'Bo Li');
  assert.match(await p.locator('.announce p').last().textContent(), /^(Ana|Bo Li) played house \d/);

  // Kept in this browser.
  await p.reload();
  await p.locator('.board .house').first().waitFor();
  assert.equal(await barName(p, 'near'), 'Ana');
  assert.equal(await barName(p, 'far'), 'Bo Li');

  // The result and its score name them.
  await setSpeed(p, 'off');
  await playToEnd([p]);
  const head = await p.locator('.overlay.over h2').textContent();
  assert.ok([tIn('en', 'result.wins', { name: 'Ana' }), tIn('en', 'result.wins', { name: 'Bo Li' }), tIn('en', 'result.draw')].includes(head), head);
  assert.deepEqual(await p.locator('.overlay.over .fs small').allTextContents(), ['Ana', 'Bo Li']);
  await shot(p, 'local-result');
  // So does the replay page.
  await p.locator('.overlay.over a', { hasText: 'Replay' }).click();
  await p.locator('.replay .moves li.mv').first().waitFor();
  assert.match(await p.locator('.room-sub').textContent(), /^Ana – Bo Li/);
  const who = await p.locator('.replay .moves .who').allTextContents();
  assert.ok(who.every((w) => w === 'Ana' || w === 'Bo Li'), who.join());
  ctx.noProblems(p);
});

test('in French, at 360 px: Joueur 1 and Joueur 2; a spectator sees South and North', async () => {
  const p = await ctx.page({ width: 360, height: 640, locale: 'fr-FR' });
  await p.goto(ctx.server.base + '/');
  const code = await createRoom(p, { game: 'congkak', houses: 5, seeds: 3, opponent: 'local' });
  await p.locator('.board .house.legal').first().waitFor();
  assert.equal(await barName(p, 'near'), tIn('fr', 'local.player1'));
  assert.equal(await barName(p, 'far'), tIn('fr', 'local.player2'));
  await setSpeed(p, 'off');
  await p.locator('.board .house.legal').first().click();
  await p.waitForFunction(() => document.querySelectorAll('.moves .mv').length === 1);
  await shot(p, 'local-names-fr');
  const s = await ctx.page();
  await s.goto(ctx.server.base + '/r/' + code);
  await s.locator('.watching').waitFor();
  assert.equal(await barName(s, 'near'), tIn('en', 'seat.south'));
  assert.equal(await barName(s, 'far'), tIn('en', 'seat.north'));
  assert.equal(await s.locator('.pbar .rename').count(), 0, 'only the players rename');
  assert.equal(await s.locator('.moves .mv .who').first().textContent(), tIn('en', 'seat.south'));
  ctx.noProblems(p, s);
});

// How many elements of sel are laid out (not hidden).
const shown = (p, sel) => p.evaluate((s) => [...document.querySelectorAll(s)].filter((e) => e.getClientRects().length).length, sel);

// The houses shown (below the sticky header, inside the window) and those the first toast covers.
function coveredHouses() {
  const t = document.querySelector('.toast').getBoundingClientRect();
  const top = document.querySelector('.topbar').getBoundingClientRect().bottom;
  const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const all = [...document.querySelectorAll('.board .pit')].map((e) => e.getBoundingClientRect());
  const pits = all.map((r) => ({ left: r.left, right: r.right, top: Math.max(r.top, top), bottom: Math.min(r.bottom, window.innerHeight) }))
    .filter((r) => r.bottom - r.top >= 1);
  const box = (r) => [r.left, r.top, r.right, r.bottom].map(Math.round).join(',');
  return { all: all.length, inView: pits.length, covered: pits.filter((r) => meets(r, t)).length, toast: box(t), header: Math.round(top) };
}

// Issue 23, item 12: a same-screen room has nobody to chat with, to invite or to be watched by, and
// on a phone the "move taken back" toast covers no part of a house in view (below the sticky header).
for (const [width, height, locale, lang] of [[360, 640, 'fr-FR', 'fr'], [390, 844, 'en-US', 'en']]) {
  test(`at ${width} x ${height} (${lang}): a same-screen room shows no chat, spectators or invite link; the takeback's toast covers no house`, async () => {
    const p = await ctx.page({ width, height, locale });
    const parts = ['.room .chat', '.room .room-share .spect', '.room .room-share .btn'];
    // A room against the computer shows the three.
    await p.goto(ctx.server.base + '/');
    await createRoom(p, { game: 'kalah', opponent: 'computer' });
    await p.locator('.board .house.legal').first().waitFor();
    for (const sel of parts) assert.equal(await shown(p, sel), 1, `${sel} against the computer`);
    // A same-screen room does not.
    await p.goto(ctx.server.base + '/');
    await createRoom(p, { game: 'kalah', opponent: 'local' });
    await setSpeed(p, 'off');
    await p.locator('.board .house.legal').first().waitFor();
    for (const sel of parts) assert.equal(await shown(p, sel), 0, `${sel} at one screen`);
    // South's house 3 (an extra turn), then house 1; the second is taken back.
    await p.keyboard.press('3');
    await p.waitForFunction(() => document.querySelectorAll('.moves .mv').length === 1);
    await p.keyboard.press('1');
    await p.waitForFunction(() => document.querySelectorAll('.moves .mv').length === 2);
    await p.locator('[data-action="undo"]').click();
    const toast = p.locator('.toast', { hasText: tIn(lang, 'takeback.done', { n: 1 }) });
    await toast.waitFor();
    await p.waitForTimeout(400); // its entrance ends
    // Where the button left the page (scrolled down to it), then scrolled back to the board.
    for (const where of ['at the button', 'back at the top']) {
      if (where === 'back at the top') await p.evaluate(() => window.scrollTo(0, 0));
      const seen = await p.evaluate(coveredHouses);
      assert.ok(seen.inView > 0, `${where}: some houses are in view`);
      if (where === 'back at the top') assert.equal(seen.inView, seen.all, 'back at the top: the whole board is in view');
      assert.equal(seen.covered, 0, `${where}: the toast covers ${seen.covered} of the ${seen.inView} houses in view: ${JSON.stringify(seen)}`);
    }
    // Wherever the page is scrolled, the toast stays within the header's band, where no house shows.
    const band = await p.evaluate(() => ({ toast: document.querySelector('.toast').getBoundingClientRect().bottom, header: document.querySelector('.topbar').getBoundingClientRect().bottom }));
    assert.ok(band.toast <= band.header, `the toast (to y=${band.toast}) within the header (to y=${band.header})`);
    assert.equal(await toast.count(), 1, 'the toast still shows');
    await shot(p, 'local-undo-' + lang);
    ctx.noProblems(p);
  });
}
