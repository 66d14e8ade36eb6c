// Phones and tablets: at 360 and 390 px wide every house and button is at least 40 px to tap (the
// board stands upright), house numbers and counts are at least 12 px, nothing is wider than the
// screen, the lobby's game titles are never clipped (in every language); at 768 x 1024 the lobby's
// mini boards are readable. Screenshots at 360, 390, 768 and 1280 px in English and French.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, createRoom, setSpeed, shot } from './harness.mjs';

const ctx = useBrowser();

// Every visible control of the page smaller than 40 x 40 px (checkboxes and radios count by their
// label, which is what a finger hits).
function smallTargets() {
  const out = [];
  const sel = 'button, a.btn, select, input:not([type=radio]):not([type=checkbox]):not([type=range]), .seg label, label.check, .topnav a, summary, .replay .mv';
  for (const el of document.querySelectorAll(sel)) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') continue;
    if (el.closest('[hidden], .sr-only, .skip-link')) continue;
    if (r.width < 40 || r.height < 40) out.push(`${el.tagName.toLowerCase()}.${el.className} "${(el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 30)}" ${Math.round(r.width)}x${Math.round(r.height)}`);
  }
  return out;
}

// Texts set in less than 12 px among house numbers and counts.
function smallNumbers() {
  return [...document.querySelectorAll('.board .count, .board .num')]
    .filter((el) => el.getBoundingClientRect().width && parseFloat(getComputedStyle(el).fontSize) < 12)
    .map((el) => el.className + ' ' + getComputedStyle(el).fontSize);
}

// Elements whose text is cut: wider content than box (titles, buttons), or outside their card.
function clipped(selector) {
  const out = [];
  for (const el of document.querySelectorAll(selector)) {
    const card = el.closest('.game-card, .card') || document.body;
    const r = el.getBoundingClientRect(), c = card.getBoundingClientRect();
    if (el.scrollWidth > el.clientWidth + 1 || r.right > c.right + 1 || r.left < c.left - 1) out.push(el.textContent.trim());
  }
  return out;
}

const overflow = (p) => p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

for (const [width, height] of [[360, 640], [390, 844]]) {
  test(`at ${width} x ${height}: the lobby and a room fit, with big enough houses, buttons and numbers`, async () => {
    for (const lang of ['en', 'fr']) {
      const p = await ctx.page({ width, height, locale: lang === 'fr' ? 'fr-FR' : 'en-US' });
      await p.goto(ctx.server.base + '/');
      await p.locator('.games .game-card h3').first().waitFor();
      await p.locator('.rooms').waitFor();
      assert.equal(await overflow(p), 0, `${lang}: the lobby is no wider than the screen`);
      assert.deepEqual(await p.evaluate(clipped, '.game-card h3, .game-card .btn'), [], `${lang}: lobby titles and buttons`);
      assert.deepEqual(await p.evaluate(smallTargets), [], `${lang}: lobby controls`);
      assert.deepEqual(await p.evaluate(smallNumbers), [], `${lang}: lobby numbers`);
      await shot(p, `phone-lobby-${lang}`);

      // A Congkak room on its default board (7 houses a side), and one with 9 houses.
      for (const houses of [7, 9]) {
        await p.goto(ctx.server.base + '/');
        await createRoom(p, { game: 'congkak', houses, opponent: 'local' });
        await p.locator('.board .house.legal').first().waitFor();
        await setSpeed(p, 'off');
        await p.locator('.board .house.legal').first().click();
        await p.waitForFunction(() => document.querySelectorAll('.moves .mv').length === 1);
        const houseSizes = await p.locator('.board .house').evaluateAll((els) => els.map((e) => { const r = e.getBoundingClientRect(); return Math.min(r.width, r.height); }));
        assert.equal(houseSizes.length, 2 * houses);
        assert.ok(Math.min(...houseSizes) >= 40, `${lang} ${houses}: houses of ${Math.min(...houseSizes)} px`);
        assert.equal(await overflow(p), 0, `${lang} ${houses}: the room is no wider than the screen`);
        assert.deepEqual(await p.evaluate(smallTargets), [], `${lang} ${houses}: room controls`);
        assert.deepEqual(await p.evaluate(smallNumbers), [], `${lang} ${houses}: house numbers and counts`);
        // The board stands upright: the own houses one above the other.
        const [h1, h2] = await Promise.all([0, 1].map((k) => p.locator(`.pit[data-pit="${k}"]`).boundingBox()));
        assert.ok(Math.abs(h1.x - h2.x) < 1 && h1.y !== h2.y, 'upright board');
        if (houses === 7) { await p.evaluate(() => window.scrollTo(0, 0)); await shot(p, `phone-room-${lang}`); }
      }
      ctx.noProblems(p);
      await p.context().close();
    }
  });
}

test('at 360 px, the lobby\'s game titles and buttons are whole in every language', async () => {
  for (const locale of ['en-US', 'fr-FR', 'pt-BR', 'ru-RU', 'pl-PL']) {
    const p = await ctx.page({ width: 360, height: 640, locale });
    await p.goto(ctx.server.base + '/');
    await p.locator('.games .game-card h3').first().waitFor();
    assert.deepEqual(await p.evaluate(clipped, '.game-card h3, .game-card .btn, .topnav a'), [], locale);
    assert.equal(await overflow(p), 0, locale);
    await p.context().close();
  }
});

test('on a tablet (768 x 1024) the lobby\'s mini boards are readable; desktop screenshots', async () => {
  for (const lang of ['en', 'fr']) {
    const p = await ctx.page({ width: 768, height: 1024, locale: lang === 'fr' ? 'fr-FR' : 'en-US' });
    await p.goto(ctx.server.base + '/');
    await p.locator('.games .board.mini').first().waitFor();
    const minis = await p.locator('.games .board.mini').evaluateAll((boards) => boards.map((b) => {
      const house = b.querySelector('.house').getBoundingClientRect();
      const count = b.querySelector('.house .count');
      return { house: Math.round(house.width), font: parseFloat(getComputedStyle(count).fontSize), fits: count.getBoundingClientRect().width <= house.width + 1 };
    }));
    for (const m of minis) {
      assert.ok(m.house >= 24, `a mini house of ${m.house} px`);
      assert.ok(m.font >= 12, `mini counts in ${m.font} px`);
      assert.ok(m.fits, 'a count fits its house');
    }
    assert.deepEqual(await p.evaluate(clipped, '.game-card h3, .game-card .btn'), []);
    await shot(p, `tablet-lobby-${lang}`);
    await p.context().close();
    const d = await ctx.page({ width: 1280, height: 800, locale: lang === 'fr' ? 'fr-FR' : 'en-US' });
    await d.goto(ctx.server.base + '/');
    await d.locator('.games .board.mini').first().waitFor();
    assert.deepEqual(await d.evaluate(smallNumbers), []);
    await shot(d, `desktop-lobby-${lang}`);
    await createRoom(d, { game: 'congkak', opponent: 'local' });
    await setSpeed(d, 'off');
    await d.locator('.board .house.legal').first().click();
    await d.waitForFunction(() => document.querySelectorAll('.moves .mv').length === 1);
    assert.deepEqual(await d.evaluate(smallNumbers), []);
    await shot(d, `desktop-room-${lang}`);
    ctx.noProblems(d);
    await d.context().close();
  }
});
