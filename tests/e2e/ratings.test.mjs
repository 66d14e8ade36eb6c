// Ratings in the browser, in Polish: two guests play a casual game, both sign up (keeping it), play
// two rated Kalah games (one won by each), and every rating the pages show is the one Glicko-2
// gives, worked out here from Glickman's formulas; then one of them logs in from a fresh browser
// context on a phone, finds the games in the profile, and the leaderboard shows both. A name past
// its failed-login limit is refused with the wait. Screenshots at 360 and 1280 px in
// tests/artifacts/ (ratings-*).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setSpeed, useBrowser, createRoom, acceptInvite, shot } from './harness.mjs';
import { tIn, loadLang } from '../../web/i18n.js';

const LANG = 'pl';
const LOCALE = 'pl-PL';
const PW = 'poprawne konie baterii';
const ctx = useBrowser();
await loadLang(LANG);
const T = (key, vars) => tIn(LANG, key, vars);

// ---- Glicko-2, from Mark Glickman, "Example of the Glicko-2 system" (2013) ----------------------
// Written from the paper's steps, not from the server: a rating period with the games of games
// ({r, rd, score}: the opponent's rating and deviation before the period and the score), tau the
// system constant. The server rates every rated game as one period for each player (docs/
// protocol.md, "Rated games"), new players at 1500 / 350 / 0.06, tau 0.5.
const SCALE = 173.7178;
function glicko2({ r, rd, vol }, games, tau = 0.5) {
  // Step 2: to the Glicko-2 scale.
  const mu = (r - 1500) / SCALE, phi = rd / SCALE;
  const g = (p) => 1 / Math.sqrt(1 + (3 * p * p) / (Math.PI * Math.PI));
  const E = (muj, phij) => 1 / (1 + Math.exp(-g(phij) * (mu - muj)));
  const opp = games.map((x) => ({ mu: (x.r - 1500) / SCALE, phi: x.rd / SCALE, s: x.score }));
  // Steps 3 and 4: the estimated variance v and the improvement delta.
  let inv = 0, sum = 0;
  for (const o of opp) {
    const e = E(o.mu, o.phi);
    inv += g(o.phi) ** 2 * e * (1 - e);
    sum += g(o.phi) * (o.s - e);
  }
  const v = 1 / inv, delta = v * sum;
  // Step 5: the new volatility, by the Illinois algorithm on f, to 0.000001.
  const a = Math.log(vol * vol);
  const f = (x) => (Math.exp(x) * (delta * delta - phi * phi - v - Math.exp(x))) /
    (2 * (phi * phi + v + Math.exp(x)) ** 2) - (x - a) / (tau * tau);
  let A = a, B;
  if (delta * delta > phi * phi + v) {
    B = Math.log(delta * delta - phi * phi - v);
  } else {
    let k = 1;
    while (f(a - k * tau) < 0) k++;
    B = a - k * tau;
  }
  let fA = f(A), fB = f(B);
  while (Math.abs(B - A) > 0.000001) {
    const C = A + ((A - B) * fA) / (fB - fA), fC = f(C);
    if (fC * fB <= 0) { A = B; fA = fB; } else { fA /= 2; }
    B = C; fB = fC;
  }
  const vol2 = Math.exp(A / 2);
  // Steps 6 and 7: the pre-period deviation, then the new deviation and rating.
  const phiStar = Math.sqrt(phi * phi + vol2 * vol2);
  const phi2 = 1 / Math.sqrt(1 / (phiStar * phiStar) + 1 / v);
  const mu2 = mu + phi2 * phi2 * sum;
  // Step 8: back to the Glicko scale.
  return { r: 1500 + SCALE * mu2, rd: SCALE * phi2, vol: vol2 };
}

// One rated game between a and b (before it); scoreA is a's score. Returns [a after, b after].
function rateGame(a, b, scoreA) {
  return [glicko2(a, [{ r: b.r, rd: b.rd, score: scoreA }]), glicko2(b, [{ r: a.r, rd: a.rd, score: 1 - scoreA }])];
}

test('the Glicko-2 of this test reproduces the paper\'s worked example', () => {
  // The paper: a 1500 / 200 / 0.06 player beats 1400 / 30, loses to 1550 / 100 and to 1700 / 300
  // with tau 0.5, and ends the period at r' = 1464.06, RD' = 151.52, sigma' = 0.05999. The paper
  // rounds its intermediate values (mu' = -0.2069, ...): without rounding r' is 1464.0507, so the
  // rating is held to a hundredth, not half of one.
  const out = glicko2({ r: 1500, rd: 200, vol: 0.06 },
    [{ r: 1400, rd: 30, score: 1 }, { r: 1550, rd: 100, score: 0 }, { r: 1700, rd: 300, score: 0 }]);
  assert.ok(Math.abs(out.r - 1464.06) < 0.01, String(out.r));
  assert.ok(Math.abs(out.rd - 151.52) < 0.005, String(out.rd));
  assert.ok(Math.abs(out.vol - 0.05999) < 0.00001, String(out.vol)); // 0.0599960 unrounded
});

// ---- The pages ----------------------------------------------------------------------------------

const round = (x) => Math.round(x);
const signed = (x) => { const n = Math.round(x); return (n > 0 ? '+' : n < 0 ? '−' : '±') + Math.abs(n); };
// A rating as the pages write it: rounded, "?" while the deviation is above 110.
const shown = (x) => String(round(x.r)) + (x.rd > 110 ? '?' : '');

// Screenshots of page at both widths (the page keeps the width it had).
async function shots(page, name) {
  const size = page.viewportSize();
  for (const [width, height] of [[360, 740], [1280, 800]]) {
    await page.setViewportSize({ width, height });
    await page.waitForTimeout(400); // layout settles, the graph is drawn for the new width
    await shot(page, 'ratings-' + name);
    const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(over <= 0, `${name} at ${width} px is ${over} px wider than the screen`);
  }
  await page.setViewportSize(size);
}

async function signUp(page, name) {
  await page.locator('.account-login').click();
  const dlg = page.locator('dialog[open]');
  await dlg.locator('.link-btn').click();
  await dlg.locator('h2', { hasText: T('account.signup_title') }).waitFor();
  const inputs = dlg.locator('input');
  await inputs.nth(0).fill(name);
  await inputs.nth(1).fill(PW);
  await inputs.nth(2).fill(PW);
  return dlg;
}

async function tryLogIn(page, name, password) {
  const dlg = page.locator('dialog[open]');
  if (!(await dlg.count())) await page.locator('.account-login').click();
  await dlg.locator('input[name=username]').fill(name);
  await dlg.locator('input[name=password]').fill(password);
  await dlg.locator('button[type=submit]').click();
  return dlg;
}

// The player on page resigns its game in the room it shows (and confirms).
async function resign(page) {
  await page.locator('.actions .btn.danger').click();
  await page.locator('dialog[open] .btn.danger').click();
}

// Both players make a move, the one to move first (the first legal house): a rated game where a
// side never moved is aborted, not rated.
async function bothMove(pages) {
  // No sowing animation: its hand, left where the 1280 px board had it, would stick out of the
  // 360 px screenshots that follow.
  for (const p of pages) await setSpeed(p, 'off');
  const moved = new Set();
  while (moved.size < pages.length) {
    let mover = null;
    for (const p of pages) if (await p.locator('.board .house.legal').count()) mover = p;
    if (!mover) { await pages[0].waitForTimeout(50); continue; }
    const n = await mover.locator('.moves .mv:not(.gap)').count();
    await mover.locator('.board .house.legal').first().click();
    for (const p of pages) await p.waitForFunction((n) => document.querySelectorAll('.moves .mv:not(.gap)').length > n, n);
    // The move's replay (its sowing animation) ends before anything else is looked at.
    for (const p of pages) await p.waitForFunction(() => !document.querySelector('.status-row.replaying'));
    moved.add(mover);
  }
}

// The rating change of the finished game on page, by player name: {NAME: {after, diff}} as shown
// (the room gives its creator a seat at random).
async function shownChange(page) {
  const box = page.locator('.overlay.over .rating-change');
  await box.waitFor();
  const out = {};
  for (const seat of ['south', 'north']) {
    const rc = box.locator(`.rc[data-seat=${seat}]`);
    out[await rc.locator('small').textContent()] = { after: await rc.locator('b').textContent(), diff: await rc.locator('.rc-diff').textContent() };
  }
  return out;
}

async function apiProfile(name) {
  const res = await fetch(ctx.server.base + '/api/players/' + encodeURIComponent(name));
  assert.equal(res.status, 200);
  return res.json();
}

test('guests sign up keeping their game, two rated games rate as Glicko-2 says, profile and leaderboard on another device', async () => {
  const ola = await ctx.page({ locale: LOCALE });
  const bartek = await ctx.page({ locale: LOCALE });
  for (const p of [ola, bartek]) {
    await p.goto(ctx.server.base + '/');
    await p.locator('.account-login', { hasText: T('account.login') }).waitFor();
  }

  // 1. As guests: a casual game without a clock, Bartek resigns.
  const casual = await createRoom(ola, { game: 'kalah', visibility: 'private', clock: 0 });
  await bartek.goto(ctx.server.base + '/r/' + casual);
  await acceptInvite(bartek);
  await resign(bartek);
  await ola.locator('.overlay.over').waitFor();
  assert.equal(await ola.locator('.overlay.over .rating-change').count(), 0); // unrated

  // 2. Both sign up: the guest becomes the account, with its game.
  await ola.goto(ctx.server.base + '/');
  const dlg = await signUp(ola, 'Ola_Kowalska');
  await shots(ola, 'signup');
  await dlg.locator('button[type=submit]').click();
  await ola.locator('.account-btn', { hasText: 'Ola_Kowalska' }).waitFor();
  await bartek.goto(ctx.server.base + '/');
  await (await signUp(bartek, 'Bartek')).locator('button[type=submit]').click();
  await bartek.locator('.account-btn', { hasText: 'Bartek' }).waitFor();
  await shots(ola, 'lobby');

  // 3. A rated Kalah game created by Ola; both move, Bartek resigns. Both are new: 1500 / 350 / 0.06.
  const fresh = { r: 1500, rd: 350, vol: 0.06 };
  let [olaR, bartekR] = rateGame(fresh, fresh, 1);
  await ola.locator('label[for="f-opponent-human"]').click();
  await ola.locator('input[name=rated]').check();
  const rated1 = await createRoom(ola, { game: 'kalah', visibility: 'private', clock: 3 });
  await bartek.goto(ctx.server.base + '/r/' + rated1);
  await acceptInvite(bartek);
  await ola.locator('.pbar .prating').first().waitFor();
  assert.match(await ola.locator('.room-sub').textContent(), new RegExp(T('room.rated')));
  await bothMove([ola, bartek]);
  await resign(bartek);
  let seen = await shownChange(ola);
  assert.deepEqual(seen, {
    Ola_Kowalska: { after: String(round(olaR.r)), diff: signed(round(olaR.r) - 1500) },
    Bartek: { after: String(round(bartekR.r)), diff: signed(round(bartekR.r) - 1500) },
  });
  await shots(ola, 'rating-change');
  // The result card shows whole over the board (its buttons were cut off under the rating row).
  const card = await ola.locator('.overlay.over .over-card').evaluate((el) => ({ full: el.scrollHeight, shown: el.clientHeight }));
  assert.ok(card.full <= card.shown + 1, `the result card shows ${card.shown} of its ${card.full} px`);

  // 4. A second rated game, created by Bartek from the lobby; both move, Ola resigns. Now the two
  // come in with different ratings, so nothing here is symmetric. (Between the games each deviation
  // grows by one period per day away: a few seconds here, 1e-4 of a period, far below the
  // hundredths compared below.)
  const before2 = { ola: olaR, bartek: bartekR };
  [bartekR, olaR] = rateGame(bartekR, olaR, 1);
  await bartek.goto(ctx.server.base + '/');
  await bartek.locator('label[for="f-opponent-human"]').click();
  await bartek.locator('input[name=rated]').check();
  const rated2 = await createRoom(bartek, { game: 'kalah', visibility: 'private', clock: 3 });
  await ola.goto(ctx.server.base + '/r/' + rated2);
  await acceptInvite(ola);
  await bothMove([ola, bartek]);
  await resign(ola);
  seen = await shownChange(bartek);
  assert.deepEqual(seen, {
    Bartek: { after: String(round(bartekR.r)), diff: signed(round(bartekR.r) - round(before2.bartek.r)) },
    Ola_Kowalska: { after: String(round(olaR.r)), diff: signed(round(olaR.r) - round(before2.ola.r)) },
  });
  // The stored ratings, unrounded, to the hundredth.
  const api = { ola: await apiProfile('ola_kowalska'), bartek: await apiProfile('BARTEK') };
  for (const [who, want] of [['ola', olaR], ['bartek', bartekR]]) {
    const got = api[who].ratings.kalah;
    assert.ok(Math.abs(got.rating - want.r) < 0.01, `${who}: rating ${got.rating}, Glicko-2 says ${want.r}`);
    assert.ok(Math.abs(got.rd - want.rd) < 0.01, `${who}: deviation ${got.rd}, Glicko-2 says ${want.rd}`);
    assert.ok(Math.abs(got.vol - want.vol) < 0.000001, `${who}: volatility ${got.vol}, Glicko-2 says ${want.vol}`);
    assert.equal(got.games, 2);
  }

  // 5. A phone, a fresh browser: a name past its free logins (5 in 10 minutes, the server's
  // default) is told to wait a few seconds (1 s after the last attempt, doubling with each more:
  // nothing locks an account), then Ola logs in.
  const phone = await ctx.page({ width: 360, height: 740, locale: LOCALE });
  await phone.goto(ctx.server.base + '/');
  let login;
  for (let i = 0; i < 5; i++) {
    login = await tryLogIn(phone, 'Ola_Kowalska_2', 'nie to hasło');
    await login.locator('.form-error', { hasText: T('err.bad_credentials') }).waitFor();
    await login.locator('.form-error').evaluate((el) => { el.textContent = ''; });
  }
  // The wait is 1 s after the fifth: on a slow machine the sixth may come later and be checked
  // (then the next waits 2 s, and so on), so try until the wait is shown.
  const waits = new Set(Array.from({ length: 60 }, (_, k) => T('account.retry_in_s', { n: k + 1 })));
  let said = '';
  for (let i = 0; i < 8 && !waits.has(said); i++) {
    await login.locator('.form-error').evaluate((el) => { el.textContent = ''; });
    await tryLogIn(phone, 'Ola_Kowalska_2', 'nie to hasło');
    await login.locator('.form-error').filter({ hasText: /\S/ }).waitFor();
    said = (await login.locator('.form-error').textContent()).trim();
    assert.ok(waits.has(said) || said === T('err.bad_credentials'), said);
  }
  assert.ok(waits.has(said), said);
  await shots(phone, 'login-limited');
  await tryLogIn(phone, 'OLA_kowalska', PW);
  await phone.locator('.account-btn', { hasText: 'Ola_Kowalska' }).waitFor();
  assert.equal(await phone.locator('dialog[open]').count(), 0);
  // Her seats are in finished games only: she stays on the lobby.
  await phone.locator('.toast', { hasText: T('account.welcome_back', { name: 'Ola_Kowalska' }) }).waitFor();
  assert.equal(new URL(phone.url()).pathname, '/');

  // Her profile, from the account menu: the Kalah rating, two points on the graph, three games
  // (the casual one she played as a guest included), the rated ones with their change.
  await phone.locator('.account-btn').click();
  await phone.locator('.account-menu a', { hasText: T('account.profile') }).click();
  await phone.waitForURL(/\/@\/Ola_Kowalska$/);
  await phone.locator('.profile h1', { hasText: 'Ola_Kowalska' }).waitFor();
  await phone.locator('.rating-card.kalah .rc-rating', { hasText: shown(olaR) }).waitFor();
  assert.equal(await phone.locator('svg.rating-graph circle.dot').count(), 2);
  // The graph (issue 23, item 8): the deviation is a band along the whole line, not a block over
  // one segment; the rating axis is on round ticks, evenly spaced, holding both ratings; the two
  // dates under it differ (both games were played within a minute: then they are numbered).
  const graph = await phone.evaluate(() => {
    const svg = document.querySelector('svg.rating-graph');
    const pts = (el) => el.getAttribute('points').trim().split(/\s+/).map((xy) => xy.split(',').map(Number));
    const texts = [...svg.querySelectorAll('text.axis')].map((e) => e.textContent);
    return { line: pts(svg.querySelector('polyline.line')), band: [...svg.querySelectorAll('polygon.band')].map(pts), ticks: texts.slice(0, -2), dates: texts.slice(-2) };
  });
  assert.equal(graph.line.length, 3, 'the line: the start and two games');
  assert.equal(graph.band.length, 1, 'one band');
  const xs = (list) => [Math.min(...list.map((p) => p[0])), Math.max(...list.map((p) => p[0]))];
  assert.deepEqual(xs(graph.band[0]), xs(graph.line), 'the band runs along the whole line');
  assert.equal(graph.band[0].length, 2 * graph.line.length, 'the band has a top and a bottom point at every point of the line');
  const ticks = graph.ticks.map(Number);
  assert.ok(ticks.length >= 2 && ticks.every((v) => Number.isInteger(v) && v % 10 === 0), `round ticks: ${graph.ticks}`);
  const steps = new Set(ticks.slice(1).map((v, i) => Math.abs(v - ticks[i])));
  assert.equal(steps.size, 1, `evenly spaced ticks: ${graph.ticks}`);
  for (const r of [1500, before2.ola.r, olaR.r]) assert.ok(Math.min(...ticks) <= r && r <= Math.max(...ticks), `${r} within the axis ${graph.ticks}`);
  assert.notEqual(graph.dates[0], graph.dates[1], `the axis' dates differ: ${graph.dates}`);
  const rows = phone.locator('.profile-games a.recent-row');
  await rows.nth(2).waitFor();
  assert.equal(await rows.count(), 3);
  const diffs = await phone.locator('.profile-games a.recent-row .rr-diff').allTextContents();
  assert.deepEqual(diffs, [signed(olaR.r - before2.ola.r), signed(before2.ola.r - 1500)]);
  assert.deepEqual(await rows.locator('.rr-status').allTextContents(), [T('recent.loss'), T('recent.win'), T('recent.win')]);
  assert.equal(await rows.nth(2).locator('.rr-diff').count(), 0); // the casual game
  assert.ok(!(await rows.nth(2).textContent()).includes(T('profile.rated')));
  await shots(phone, 'profile');
  // The rated game she lost opens its replay.
  await rows.first().click();
  await phone.waitForURL(/\/g\/[0-9a-f]{16}$/);

  // The leaderboard of Kalah, from the account menu (a phone's header has no room for its link):
  // Bartek first (he beat her with the lower rating and
  // ends higher), Ola second, each as Glicko-2 says.
  const order = [['Bartek', bartekR], ['Ola_Kowalska', olaR]].sort((x, y) => y[1].r - x[1].r);
  await phone.locator('.account-btn').click();
  await phone.locator('.account-menu a', { hasText: T('lb.title') }).click();
  await phone.waitForURL(/\/leaderboard\/kalah$/);
  await phone.locator('.board-table tbody tr').nth(1).waitFor();
  assert.deepEqual(await phone.locator('.board-table tbody td.who').allTextContents(), order.map((o) => o[0]));
  assert.deepEqual(await phone.locator('.board-table tbody td.rating').allTextContents(), order.map((o) => shown(o[1])));
  assert.equal(await phone.locator('.board-table tbody tr.me td.who').textContent(), 'Ola_Kowalska');
  await shots(phone, 'leaderboard');
  ctx.noProblems(ola, bartek, phone);
});
