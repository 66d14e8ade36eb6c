// Browser end-to-end tests of the web client against the real server (MANCALA_SERVER), in Debian's
// headless chromium. Screenshots land in tests/artifacts/ (git-ignored).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, newPage, shot, createRoom, setSpeed, playToEnd, acceptInvite } from './harness.mjs';
import WebSocket from 'ws';
import fr from '../../web/lang-fr.js';
import en from '../../web/lang-en.js';
import ru from '../../web/lang-ru.js';
import pl from '../../web/lang-pl.js';

let server, browser;
const pages = [];

async function page(opts) {
  const p = await newPage(browser, opts);
  pages.push(p);
  return p;
}

// What the server's welcome advertises (features.computer decides whether the computer is offered).
function welcome() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(server.base.replace('http', 'ws') + '/ws', 'mancala.v1');
    ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', name: 'probe' })));
    ws.on('message', (d) => { const m = JSON.parse(d); if (m.type === 'welcome') { ws.close(); resolve(m); } });
    ws.on('error', reject);
  });
}

function noProblems(...ps) {
  for (const p of ps) assert.deepEqual(p.problems, [], 'console errors or exceptions');
}

before(async () => {
  server = await startServer();
  browser = await launch();
});

after(async () => {
  for (const p of pages) await p.context().close().catch(() => {});
  if (browser) await browser.close();
  if (server) await server.stop();
});

test('lobby renders, with screenshots at both sizes', async () => {
  for (const [width, height] of [[1280, 800], [360, 640]]) {
    const p = await page({ width, height });
    await p.goto(server.base + '/');
    await p.locator('h1', { hasText: en['lobby.title'] }).waitFor();
    await p.locator('.rooms').waitFor();
    await p.waitForFunction(() => !document.querySelector('.rooms').textContent.includes('…'));
    await shot(p, 'lobby');
    const w = await welcome();
    assert.equal(await p.locator('label[for="f-opponent-computer"]').count(), w.features && w.features.computer ? 1 : 0,
      'the computer is offered exactly when welcome advertises it');
    // A game on the default board, on one screen, a few moves in.
    await createRoom(p, { game: 'kalah', opponent: 'local' });
    await setSpeed(p, 'off');
    for (let i = 0; i < 3; i++) {
      await p.locator('.board .house.legal').first().click();
      await p.waitForFunction((n) => document.querySelectorAll('.moves .mv').length === n, i + 1);
    }
    await setSpeed(p, 'normal');
    await shot(p, 'room-default-board');
    await p.goto(server.base + '/');
    await p.goto(server.base + '/?how=kalah');
    await p.locator('.how-card h1').waitFor();
    assert.match(await p.locator('.how-card h1').textContent(), /Kalah/);
    await shot(p, 'how-to-play');
    noProblems(p);
    await p.context().close();
  }
});

test('two people play a whole private Kalah game by clicking; a spectator watches; a reload keeps the seat', async () => {
  const a = await page();
  const b = await page({ width: 360, height: 640 });
  const c = await page();
  await a.goto(server.base + '/');
  const code = await createRoom(a, { game: 'kalah', houses: 3, seeds: 2, visibility: 'private' });
  await a.locator('.overlay.waiting').waitFor();
  const link = await a.locator('.invite input').inputValue();
  await a.locator('.invite button').click();
  await a.locator('.toast', { hasText: en['room.copied'] }).waitFor();
  assert.equal(await a.evaluate(() => navigator.clipboard.readText()), link);
  assert.equal(link, server.base + '/r/' + code);
  await shot(a, 'room-waiting');

  // The private room is not in the lobby; the link brings the second player in.
  await c.goto(server.base + '/');
  await c.locator('.rooms').waitFor();
  await c.waitForTimeout(300);
  assert.equal(await c.locator(`.rooms a[href="/r/${code}"]`).count(), 0, 'a private room is never listed');
  // The friend picks the name the other player sees (their guest name is offered) before sitting.
  await b.goto(link);
  const offered = await b.locator('dialog[open] input').inputValue();
  assert.match(offered, /\S/, 'a name is offered');
  assert.equal(await b.getByRole('dialog', { name: en['invite.title'] }).count(), 1);
  await shot(b, 'invite-prompt');
  await acceptInvite(b, 'Bea');
  await a.locator('.overlay.waiting').waitFor({ state: 'hidden' });
  await a.locator('.pbar.far .pname', { hasText: 'Bea' }).waitFor();

  // A third person with the link finds the room full: no name asked, watching, and told so.
  await c.goto(link);
  await c.locator('.pbar').first().waitFor();
  await c.waitForFunction(() => document.querySelectorAll('.pbar .tag.you').length === 0 && document.querySelectorAll('.board .house').length === 6);
  await c.locator('.watching', { hasText: en['room.watching'] }).waitFor();
  await shot(c, 'watching');
  assert.equal(await c.locator('dialog[open]').count(), 0);
  assert.equal(await a.locator('.watching').isVisible(), false);
  await a.waitForFunction(() => /1/.test(document.querySelector('.spect').textContent));

  for (const p of [a, b, c]) await setSpeed(p, 'fast');
  // A couple of moves, then the second player reloads and must keep the seat.
  const seatB = await b.locator('.pbar.near').getAttribute('class');
  let clicks = 0;
  while (clicks < 2) {
    for (const p of [a, b]) {
      const legal = p.locator('.board .house.legal');
      if (await legal.count()) { await legal.first().click(); clicks++; await p.waitForTimeout(100); break; }
    }
    await a.waitForTimeout(50);
  }
  await shot(a, 'room-playing');
  await shot(b, 'room-playing');
  await b.reload();
  await b.locator('.pbar.near .tag.you').waitFor();
  assert.equal(await b.locator('.pbar.near').getAttribute('class').then((x) => x.match(/seat-\w+/)[0]), seatB.match(/seat-\w+/)[0]);
  await setSpeed(b, 'fast');

  await playToEnd([a, b]);
  for (const p of [a, b, c]) await p.locator('.overlay.over').waitFor();
  await shot(a, 'game-over');
  await shot(b, 'game-over');
  const heads = await Promise.all([a, b].map((p) => p.locator('.overlay.over h2').textContent()));
  const results = [en['result.you_won'], en['result.you_lost'], en['result.draw']];
  for (const hd of heads) assert.ok(results.includes(hd), hd);
  if (heads[0] !== en['result.draw']) assert.notEqual(heads[0], heads[1]);
  // The spectator saw every move.
  const moves = await a.locator('.moves .mv').count();
  assert.ok(moves >= 2);
  await c.waitForFunction((n) => document.querySelectorAll('.moves .mv').length === n, moves);
  noProblems(a, b, c);
});

test('an Oware game on one screen reaches its end', async () => {
  const p = await page();
  await p.goto(server.base + '/');
  await createRoom(p, { game: 'oware', houses: 3, seeds: 2, opponent: 'local' });
  await p.locator('.board .house.legal').first().waitFor();
  await setSpeed(p, 'off');
  await playToEnd([p], { pick: 'random' });
  assert.ok(await p.locator('.overlay.over .reason').textContent());
  noProblems(p);
});

test('a Congkak game reaches its end, board mirrored with the store on the left (at the top upright)', async () => {
  const wide = await page();
  await wide.goto(server.base + '/');
  await createRoom(wide, { game: 'congkak', houses: 3, seeds: 2, opponent: 'local' });
  await wide.locator('.board .house.legal').first().waitFor();
  // Congkak: the near store (South, pit m=3) is drawn left of the near houses.
  const storeX = (await wide.locator('.pit[data-pit="3"]').boundingBox()).x;
  const houseX = (await wide.locator('.pit[data-pit="0"]').boundingBox()).x;
  assert.ok(storeX < houseX, 'the own store is on the left in Congkak');
  await wide.context().close();
  // On a phone the board stands upright (turned a quarter clockwise): the own store on top, the
  // own houses in the left column, house 1 at the bottom.
  const p = await page({ width: 360, height: 640 });
  await p.goto(server.base + '/');
  await createRoom(p, { game: 'congkak', houses: 3, seeds: 2, opponent: 'local' });
  await p.locator('.board .house.legal').first().waitFor();
  const box = (k) => p.locator(`.pit[data-pit="${k}"]`).boundingBox();
  const [store, h1, h3, far1] = await Promise.all([box(3), box(0), box(2), box(4)]);
  assert.ok(store.y + store.height <= h3.y + 1 && h3.y < h1.y, 'own store on top, then houses 3, 2, 1 downwards');
  assert.ok(h1.x + h1.width <= far1.x, 'own houses on the left of the far ones');
  await setSpeed(p, 'normal');
  await p.locator('.board .house.legal').first().click();
  await p.waitForTimeout(250);
  await shot(p, 'congkak-sowing');
  await setSpeed(p, 'off');
  await playToEnd([p], { pick: 'random' });
  await shot(p, 'congkak-over');
  noProblems(p);
});

test('switching the language changes the text and is remembered', async () => {
  const p = await page();
  await p.goto(server.base + '/');
  await p.locator('h1', { hasText: en['lobby.title'] }).waitFor();
  await p.selectOption('#lang', 'fr');
  await p.locator('h1', { hasText: fr['lobby.title'] }).waitFor();
  assert.equal(await p.locator('.topnav a[href="/?how=kalah"]').textContent(), fr['nav.how']);
  assert.equal(await p.evaluate(() => document.documentElement.lang), 'fr');
  await p.reload();
  await p.locator('h1', { hasText: fr['lobby.title'] }).waitFor();
  await p.selectOption('#lang', 'en');
  noProblems(p);
});

test('a room code that does not exist says so', async () => {
  const p = await page();
  await p.goto(server.base + '/r/ZZZZZZ');
  await p.locator('.notfound h1', { hasText: en['room.not_found_title'] }).waitFor();
  noProblems(p);
});

test('an unknown address gets the site\'s own 404 page in the player\'s language, with a way home', async () => {
  for (const [locale, words] of [['fr-FR', fr], ['ru-RU', ru]]) {
    const p = await page({ width: 360, height: 640, locale });
    p.allowed.push(/status of 404/); // the page itself comes with status 404
    const res = await p.goto(server.base + '/no/such/page');
    assert.equal(res.status(), 404, locale);
    await p.locator('[data-notfound] h1', { hasText: words['notfound.title'] }).waitFor();
    assert.equal(await p.locator('[data-notfound] p').textContent(), words['notfound.body']);
    const home = p.locator('[data-notfound] a', { hasText: words['notfound.home'] });
    await home.click();
    await p.waitForURL(server.base + '/');
    await p.locator('.games .game-card').first().waitFor();
    noProblems(p);
  }
});

test('a replay of an unknown game shows a clear state', async () => {
  const p = await page();
  p.allowed.push(/Failed to load resource: the server responded with a status of 404/);
  const res = await p.goto(server.base + '/g/nosuchgame');
  if (!res || res.status() !== 200) {
    // The server does not serve the client at /g/ID yet: the same page answers at /?g=ID.
    await p.goto(server.base + '/?g=nosuchgame');
  }
  await p.locator('.notfound[data-state]').waitFor();
  assert.equal(await p.locator('.notfound').getAttribute('data-state'), 'missing');
  noProblems(p);
});

test('live lobby, clock, keys, chat, draw offer and answer, rematch and resignation', async () => {
  const a = await page();
  const b = await page();
  await b.goto(server.base + '/');
  await b.locator('.rooms').waitFor();
  await a.goto(server.base + '/');
  const code = await createRoom(a, { game: 'kalah', houses: 4, seeds: 3, visibility: 'public', clock: 2 });
  // The public room shows up in the other person's live lobby; joining it starts the game.
  const row = b.locator(`.rooms a[href="/r/${code}"]`);
  await row.waitFor();
  await row.click();
  await b.waitForURL(new RegExp('/r/' + code + '$'));
  for (const p of [a, b]) await p.locator('.clock:not([hidden])').first().waitFor();
  assert.match(await a.locator('.clock').first().textContent(), /^[23]:\d\d$/);
  for (const p of [a, b]) await setSpeed(p, 'off');

  // The player to move plays with the keyboard.
  const mover = (await a.locator('.board .house.legal').count()) ? a : b;
  await mover.locator('.board .house.legal').first().waitFor();
  const before = await mover.locator('.moves .mv').count();
  const key = await mover.locator('.board .house.legal').first().getAttribute('data-pit');
  const house = Number(key) < 4 ? Number(key) + 1 : Number(key) - 4;
  await mover.keyboard.press(String(house));
  await mover.waitForFunction((n) => document.querySelectorAll('.moves .mv').length === n + 1, before);

  // Chat both ways.
  await a.fill('.chat-form input', 'Good luck!');
  await a.press('.chat-form input', 'Enter');
  await b.locator('.chat-log .msg p', { hasText: 'Good luck!' }).waitFor();

  // A draw offer declined, then one accepted.
  await a.getByRole('button', { name: en['room.offer_draw'] }).click();
  await b.locator('.offer', { hasText: en['draw.decline'] }).waitFor();
  const nameA = await b.locator('.pbar.far .pname-text').textContent();
  // Told as a toast too (under the board on a phone), and in the live region.
  await b.locator('.toast', { hasText: en['draw.offered'].replace('{name}', nameA) }).waitFor();
  await b.getByRole('button', { name: en['draw.decline'] }).click();
  await b.locator('.offer').waitFor({ state: 'hidden' });
  // The offerer learns the answer.
  await a.locator('.offer', { hasText: en['draw.declined'].replace('{name}', await a.locator('.pbar.far .pname-text').textContent()) }).waitFor();
  await a.getByRole('button', { name: en['room.offer_draw'] }).click();
  await b.getByRole('button', { name: en['draw.accept'] }).click();
  for (const p of [a, b]) {
    await p.locator('.overlay.over h2', { hasText: en['result.draw'] }).waitFor();
    assert.equal(await p.locator('.overlay.over .reason').textContent(), en['reason.agreement']);
  }

  // Rematch: both ask, a new game starts with the seats swapped.
  const seatA = (await a.locator('.pbar.near').getAttribute('class')).match(/seat-\w+/)[0];
  await a.locator('.overlay.over').getByRole('button', { name: en['room.rematch'] }).click();
  await b.locator('.overlay.over').getByRole('button', { name: en['rematch.accept'] }).click();
  for (const p of [a, b]) await p.locator('.overlay.over').waitFor({ state: 'hidden' });
  const seatA2 = (await a.locator('.pbar.near').getAttribute('class')).match(/seat-\w+/)[0];
  assert.notEqual(seatA2, seatA, 'seats are swapped in the rematch');

  // Resignation, confirmed in a dialog.
  await b.getByRole('button', { name: en['room.resign'] }).click();
  await b.locator('dialog[open]').getByRole('button', { name: en['room.resign'] }).click();
  await a.locator('.overlay.over h2', { hasText: en['result.you_won'] }).waitFor();
  assert.equal(await a.locator('.overlay.over .reason').textContent(), en['reason.resignation']);
  await b.locator('.overlay.over h2', { hasText: en['result.you_lost'] }).waitFor();
  noProblems(a, b);
});

test('quick play pairs two people in the same room', async () => {
  const a = await page();
  const b = await page({ width: 360, height: 640 });
  await a.goto(server.base + '/');
  await a.locator('button[data-quick="oware"][data-pool="untimed"]').click();
  await a.waitForURL(/\/r\/[A-Z2-9]{6}$/);
  await a.locator('.overlay.waiting').waitFor();
  await b.goto(server.base + '/');
  // The lobby shows who waits in which pool: one player in Oware's untimed pool, nobody elsewhere.
  const pool = b.locator('button[data-quick="oware"][data-pool="untimed"]');
  await b.waitForFunction(() => document.querySelector('button[data-quick="oware"][data-pool="untimed"]')?.dataset.waiting === '1');
  assert.equal(await pool.locator('.pool-n').textContent(), '1');
  assert.match(await pool.getAttribute('aria-label'), /1 player waiting/);
  assert.equal(await b.locator('button[data-quick="oware"][data-pool="3+2"]').getAttribute('data-waiting'), '0');
  assert.equal(await b.locator('button[data-quick="kalah"][data-pool="untimed"]').getAttribute('data-waiting'), '0');
  await pool.click();
  await b.waitForURL(a.url());
  for (const p of [a, b]) await p.locator('.overlay.waiting').waitFor({ state: 'hidden' });
  assert.equal(await a.locator('.room-title').textContent(), en['game.oware'] + ' · 6 × 4');
  await a.getByRole('button', { name: en['room.resign'] }).click();
  await a.locator('dialog[open]').getByRole('button', { name: en['room.resign'] }).click();
  await b.locator('.overlay.over h2', { hasText: en['result.you_won'] }).waitFor();
  noProblems(a, b);
});

// The integers of a text, in order.
const numbers = (text) => (text.match(/\d+/g) || []).map(Number);

test('a room shows the rules of its own game and options; How to play draws the default board', async () => {
  for (const [width, height, code] of [[1280, 800, 'en'], [360, 640, 'ru'], [1280, 800, 'pl']]) {
    const L = { en, ru, pl }[code];
    const p = await page({ width, height });
    await p.goto(server.base + '/');
    await p.selectOption('#lang', code);
    await p.locator('h1', { hasText: L['lobby.title'] }).waitFor();
    // Congkak on 5 x 3, a match with the lap capture, on one screen.
    await p.locator('label[for="f-game-congkak"]').click();
    await p.selectOption('select[name=houses]', '5');
    await p.selectOption('select[name=seeds]', '3');
    await p.locator('label.check', { hasText: L['opt.lap_capture'] }).click();
    await p.locator('label.check', { hasText: L['opt.match'] }).click();
    await p.locator('label[for="f-clock-0"]').click();
    await p.locator('label[for="f-opponent-local"]').click();
    await p.locator('.create-form button[type=submit]').click();
    await p.waitForURL(/\/r\/[A-Z2-9]{6}$/);
    const panel = p.locator('.rules-panel');
    await panel.locator('h2', { hasText: L['rules.title'] }).waitFor();
    // The room's board: 5 houses a side, 3 seeds each, 30 in all.
    assert.deepEqual(numbers(await panel.locator('.rules-board').textContent()), [5, 3, 30]);
    // The room's options, with their values.
    const rows = await panel.locator('.opt-row').evaluateAll((els) => els.map((e) => [e.dataset.option, e.querySelector('dt').textContent, e.querySelector('dd').textContent]));
    assert.deepEqual(rows, [['lap_capture', L['opt.lap_capture'], L['opt.yes']], ['rounds', L['opt.rounds'], L['rounds.match']]]);
    // The rules, step by step: the lap capture and the whole match, worded for 5 x 3.
    await panel.locator('summary').click();
    const ids = await panel.locator('li[data-rule]').evaluateAll((els) => els.map((e) => e.dataset.rule));
    for (const id of ['congkak.capture_lap', 'congkak.round_end', 'congkak.match.refill', 'congkak.match.burn', 'congkak.match.first', 'congkak.match.end', 'congkak.repetition']) {
      assert.ok(ids.includes(id), id);
    }
    assert.ok(!ids.includes('congkak.capture') && !ids.includes('congkak.end'));
    assert.deepEqual(numbers(await panel.locator('li[data-rule="congkak.match.refill"]').textContent()), [3, 15]);
    assert.doesNotMatch(await panel.textContent(), /[{}#]/);
    await panel.scrollIntoViewIfNeeded();
    await shot(p, 'rules-panel-' + code);
    // A move keeps the panel as it is (open).
    await setSpeed(p, 'off');
    await p.locator('.board .house.legal').first().click();
    await p.waitForFunction(() => document.querySelectorAll('.moves .mv').length === 1);
    assert.equal(await panel.locator('details[open]').count(), 1);

    // How to play Congkak: the default board, 7 houses of 7 seeds a side.
    await p.goto(server.base + '/?how=congkak');
    await p.locator('.how-card h1').waitFor();
    assert.equal(await p.locator('.diagram .dia-house').count(), 14);
    assert.equal(await p.locator('.diagram .dia-seed').count(), 98);
    assert.deepEqual(numbers(await p.locator('.how-card .how-default').first().textContent()), [7, 7, 98]);
    // Its two options and the pie rule, every game's.
    assert.equal(await p.locator('.how-options dt').count(), 3);
    assert.equal(await p.locator('.how-options dt[data-option="pie"]').textContent(), L['opt.pie']);
    await shot(p, 'how-congkak-' + code);
    noProblems(p);
    await p.context().close();
  }
});

// Stops the shared server: keep this test last.
test('an offline banner shows while the server is away and goes once it is back', async () => {
  const p = await page({ width: 360, height: 640 });
  // Chromium itself logs each refused reconnection attempt while the server is down.
  p.allowed.push(/WebSocket connection to .* failed/);
  await p.goto(server.base + '/');
  await p.waitForFunction(() => document.getElementById('who').textContent.length > 0);
  // The lobby's requests (the archive of this player's games) are answered before the server goes:
  // one refused while it is down would be a real console error.
  await p.waitForLoadState('networkidle');
  const port = server.port;
  await server.stop();
  await p.locator('#offline').waitFor({ state: 'visible', timeout: 10000 });
  await shot(p, 'offline');
  server = await startServer({ port });
  await p.locator('#offline').waitFor({ state: 'hidden', timeout: 30000 });
  await p.locator('.rooms').waitFor();
  noProblems(p);
});
