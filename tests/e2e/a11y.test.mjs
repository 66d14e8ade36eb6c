// Keyboard and screen readers, checked through the accessibility tree (Playwright's ARIA snapshot
// and role queries): radio groups keep the focus under the arrow keys, a clicked house keeps no
// "playable" ring, stores are read with their seeds in each language's plural forms, moves are
// announced in a live region, and focus goes to the new page's heading. And the small defects:
// the result card leaves the players' bars uncovered, the relay badge never covers a count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, createRoom, setSpeed, playToEnd, acceptInvite, recordStates, shot } from './harness.mjs';
import { tIn, loadLang } from '../../web/i18n.js';

const ctx = useBrowser();
for (const code of ['en', 'fr', 'ru', 'pl', 'pt']) await loadLang(code);

test('arrow keys move through the create form\'s radio groups without losing the focus', async () => {
  const p = await ctx.page();
  await p.goto(ctx.server.base + '/');
  await p.locator('#f-game-kalah').focus();
  await p.keyboard.press('ArrowRight');
  await p.waitForFunction(() => document.getElementById('f-game-oware').checked);
  assert.equal(await p.evaluate(() => document.activeElement.id), 'f-game-oware');
  await p.keyboard.press('ArrowRight');
  assert.equal(await p.evaluate(() => document.activeElement.id), 'f-game-congkak');
  // The form changed under the focus (Congkak's options), the focus stayed.
  await p.locator('label.check', { hasText: tIn('en', 'opt.lap_capture') }).waitFor();
  await p.locator('#f-clock-0').focus();
  for (let i = 1; i <= 3; i++) {
    await p.keyboard.press('ArrowRight');
    assert.equal(await p.evaluate(() => document.activeElement.id), 'f-clock-' + i);
  }
  assert.equal(await p.evaluate(() => JSON.parse(localStorage.getItem('mc.create')).clock), 3);
  ctx.noProblems(p);
});

test('a clicked house keeps no playable-looking ring; Tab and the number keys still play', async () => {
  const p = await ctx.page();
  await p.goto(ctx.server.base + '/');
  await createRoom(p, { game: 'kalah', houses: 4, seeds: 3, opponent: 'local' });
  await setSpeed(p, 'off');
  const house = p.locator('.board .house.legal').first();
  const pit = await house.getAttribute('data-pit');
  await house.click();
  await p.waitForFunction(() => document.querySelectorAll('.moves .mv').length === 1);
  const clicked = p.locator(`.pit[data-pit="${pit}"]`);
  assert.equal(await clicked.evaluate((el) => el.classList.contains('legal')), false);
  assert.equal(await clicked.evaluate((el) => document.activeElement === el), false, 'the played house lost the focus');
  assert.equal(await clicked.evaluate((el) => getComputedStyle(el).outlineStyle), 'none');
  assert.equal(await p.evaluate(() => document.activeElement.classList.contains('board')), true, 'the focus is on the board');
  // From there Tab reaches a playable house, which shows the ring.
  await p.keyboard.press('Tab');
  assert.equal(await p.evaluate(() => document.activeElement.classList.contains('legal')), true);
  assert.notEqual(await p.evaluate(() => getComputedStyle(document.activeElement).boxShadow), 'none');
  // Enter plays the focused house; a number key plays its house.
  await p.keyboard.press('Enter');
  await p.waitForFunction(() => document.querySelectorAll('.moves .mv').length === 2);
  const number = await p.evaluate(() => { const el = document.querySelector('.board .house.legal'); const k = Number(el.dataset.pit); return k < 4 ? k + 1 : k - 4; });
  await p.keyboard.press(String(number));
  await p.waitForFunction(() => document.querySelectorAll('.moves .mv').length === 3);
  ctx.noProblems(p);
});

test('stores and houses are read with their seeds, in each language\'s plural forms', async () => {
  const a = await ctx.page();
  const b = await ctx.page();
  await a.goto(ctx.server.base + '/');
  const code = await createRoom(a, { game: 'kalah', houses: 4, seeds: 3, visibility: 'private' });
  await b.goto(ctx.server.base + '/r/' + code);
  await acceptInvite(b, 'Bea');
  for (const p of [a, b]) await setSpeed(p, 'off');
  // A few moves, so that stores hold seeds.
  for (let i = 0; i < 6; i++) {
    const mover = (await a.locator('.board .house.legal').count()) ? a : b;
    if (!(await mover.locator('.board .house.legal').count())) break;
    await mover.locator('.board .house.legal').first().click();
    for (const p of [a, b]) await p.waitForFunction((n) => document.querySelectorAll('.moves .mv').length === n, i + 1);
  }
  const stores = await a.evaluate(() => [...document.querySelectorAll('.board .store')].map((s) => ({ near: s.classList.contains('near'), n: Number(s.querySelector('.count').textContent) })));
  const mine = stores.find((s) => s.near).n, theirs = stores.find((s) => !s.near).n;
  for (const code of ['en', 'ru', 'pl', 'fr', 'pt']) {
    if (code !== 'en') { await a.selectOption('#lang', code); await a.locator('html[lang^="' + code + '"]').waitFor(); }
    const tree = await a.locator('.board').ariaSnapshot();
    assert.ok(tree.includes(`text: "${tIn(code, 'board.store_you', { n: mine })}"`), `${code}: ${tree}`);
    assert.ok(tree.includes(`text: "${tIn(code, 'board.store_of', { name: 'Bea', n: theirs })}"`), `${code}: ${tree}`);
    // Houses: buttons named with their seeds; the opponent's are disabled.
    const name = tIn(code, 'board.house_label', { house: 1, who: 'Bea', n: Number(await a.locator(`.board .house.far`).first().locator('.count').textContent()) });
    assert.ok(tree.includes(name), `${code}: ${name}`);
  }
  // Russian and Polish counts take their own forms (one/few/many): 1, 3 and 5 seeds.
  assert.equal(tIn('ru', 'board.store_you', { n: 1 }), 'Ваше хранилище: 1 семя');
  assert.equal(tIn('ru', 'board.store_you', { n: 3 }), 'Ваше хранилище: 3 семени');
  assert.equal(tIn('ru', 'board.store_you', { n: 5 }), 'Ваше хранилище: 5 семян');
  assert.equal(tIn('pl', 'board.store_you', { n: 22 }), 'Twój sklep: 22 nasiona');
  assert.equal(tIn('pl', 'board.store_you', { n: 25 }), 'Twój sklep: 25 nasion');
  await a.selectOption('#lang', 'en');
  ctx.noProblems(a, b);
});

test('captures, relays and extra turns are announced in a live region', async () => {
  const p = await ctx.page();
  const states = recordStates(p);
  await p.goto(ctx.server.base + '/');
  await createRoom(p, { game: 'congkak', houses: 5, seeds: 4, opponent: 'local' });
  await setSpeed(p, 'off');
  const region = p.locator('.announce');
  assert.equal(await region.getAttribute('aria-live'), 'polite');
  assert.equal(await region.getAttribute('role'), 'log');
  const seen = { relay: 0, capture: 0, extra: 0 };
  for (let ply = 1; ply <= 40 && (!seen.relay || !seen.capture || !seen.extra); ply++) {
    if (!(await p.locator('.board .house.legal').count())) break;
    await p.locator('.board .house.legal').first().click();
    await p.waitForFunction((n) => document.querySelectorAll('.moves .mv').length === n, ply);
    const s = states.filter((x) => x.ply === ply).pop();
    const tr = s.last.trace;
    // The sentence, built here from the server's trace.
    const parts = [];
    const relays = tr.filter((x) => x.kind === 'relay').length;
    const captured = tr.filter((x) => x.kind === 'capture').reduce((a, x) => a + x.count, 0);
    const extra = tr.some((x) => x.kind === 'extra_turn');
    if (relays) { parts.push(tIn('en', 'moves.relays', { n: relays })); seen.relay++; }
    if (captured) { parts.push(tIn('en', 'moves.captured', { n: captured })); seen.capture++; }
    if (extra) { parts.push(tIn('en', 'moves.extra')); seen.extra++; }
    const name = tIn('en', s.last.seat === 'south' ? 'local.player1' : 'local.player2');
    const want = parts.length ? `${name} played house ${s.last.house}: ${parts.join(', ')}.` : `${name} played house ${s.last.house}.`;
    assert.equal(await region.locator('p').last().textContent(), want);
  }
  assert.ok(seen.relay && seen.capture && seen.extra, JSON.stringify(seen));
  // The end of the game too.
  await playToEnd([p]);
  await p.waitForFunction(() => /—/.test(document.querySelector('.announce p:last-child').textContent));
  const fin = states[states.length - 1];
  const last = await region.locator('p').last().textContent();
  assert.ok(last.includes(fin.result.score.join(' : ')) && last.includes(tIn('en', 'reason.' + fin.result.reason)), last);
  ctx.noProblems(p);
});

test('after a page change the focus is on the new page\'s main heading', async () => {
  const p = await ctx.page();
  await p.goto(ctx.server.base + '/');
  await p.locator('h1').waitFor();
  const focused = () => p.evaluate(() => (document.activeElement.tagName === 'H1' ? document.activeElement.textContent : document.activeElement.tagName));
  await p.getByRole('link', { name: tIn('en', 'nav.how') }).first().click();
  await p.locator('.how-card h1').waitFor();
  assert.equal(await focused(), tIn('en', 'how.title', { game: 'Kalah' }));
  await p.goBack();
  await p.locator('.hero h1').waitFor();
  assert.equal(await focused(), tIn('en', 'lobby.title'));
  await createRoom(p, { game: 'oware', opponent: 'local' });
  await p.waitForFunction(() => document.activeElement.tagName === 'H1');
  assert.match(await focused(), /^(Oware · 6 × 4|Joining the room…)$/);
  // The heading is named in the accessibility tree as the page's level-1 heading.
  await p.getByRole('heading', { level: 1, name: /Oware/ }).waitFor();
  ctx.noProblems(p);
});

// Whether two boxes overlap.
const overlap = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

test('on a desktop the result card covers neither player\'s bar', async () => {
  for (const [houses, seeds] of [[2, 1], [3, 2], [6, 2]]) {
    const p = await ctx.page({ width: 1280, height: 800 });
    await p.goto(ctx.server.base + '/');
    await createRoom(p, { game: 'kalah', houses, seeds, opponent: 'local' });
    await setSpeed(p, 'off');
    await playToEnd([p]);
    const card = await p.locator('.overlay.over .over-card').boundingBox();
    for (const bar of ['near', 'far']) {
      const box = await p.locator('.pbar.' + bar).boundingBox();
      assert.ok(!overlap(card, box), `${houses}x${seeds}: the card covers the ${bar} bar`);
    }
    if (houses === 2) await shot(p, 'result-small-board');
    ctx.noProblems(p);
    await p.context().close();
  }
});

test('the relay badge never covers a count', async () => {
  const p = await ctx.page();
  await p.goto(ctx.server.base + '/');
  await createRoom(p, { game: 'congkak', opponent: 'local' });
  await setSpeed(p, 'slow');
  // Watches every frame of the replays: whenever a badge shows, does it meet a count?
  await p.evaluate(() => {
    window.__badges = 0; window.__covers = [];
    const check = () => {
      const b = document.querySelector('.badge.on, .badge.on2');
      if (b && getComputedStyle(b).opacity > 0.05) {
        window.__badges++;
        const r = b.getBoundingClientRect();
        for (const c of document.querySelectorAll('.board .count')) {
          const q = c.getBoundingClientRect();
          if (r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom) window.__covers.push(b.textContent + ' / pit ' + c.parentElement.dataset.pit);
        }
      }
      requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  });
  let relays = 0;
  for (let i = 0; i < 8 && relays < 2; i++) {
    await p.locator('.board .house.legal').first().click();
    await p.waitForFunction(() => document.querySelector('.status-row.replaying'));
    await p.waitForFunction(() => !document.querySelector('.status-row.replaying'), null, { timeout: 30000 });
    relays = await p.locator('.moves .mtag.relay').count();
  }
  assert.ok(relays > 0 && await p.evaluate(() => window.__badges) > 0, 'badges were shown');
  assert.deepEqual(await p.evaluate(() => window.__covers), []);
  ctx.noProblems(p);
});
