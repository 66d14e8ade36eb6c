// Accounts in the browser: sign up from the header (a guest claiming its identity), a wrong
// password refused, log in on a second browser context and get the seat back, a rated game whose
// end shows the rating change, the profile with its rating graph and games, the leaderboard,
// settings (log out everywhere), in English and French, at 1280 and 360 px; screenshots in
// tests/artifacts/. And the account badge: in a room's seats and chat, in French at 1280 and 360 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, createRoom, setSpeed, shot, acceptInvite } from './harness.mjs';
import { tIn, loadLang } from '../../web/i18n.js';

const ctx = useBrowser();
await Promise.all(['en', 'fr'].map((code) => loadLang(code)));
const PW = 'correct horse battery';

// Opens the sign-up dialog from the header (Log in, then its Sign up link) and creates name.
async function signUp(page, name, lang = 'en') {
  await page.locator('.account-login').click();
  const dlg = page.locator('dialog[open]');
  await dlg.locator('.link-btn').click();
  await dlg.locator('h2', { hasText: tIn(lang, 'account.signup_title') }).waitFor();
  const inputs = dlg.locator('input');
  await inputs.nth(0).fill(name);
  await inputs.nth(1).fill(PW);
  await inputs.nth(2).fill(PW);
  return dlg;
}

async function logIn(page, name, password) {
  await page.locator('.account-login').click();
  const dlg = page.locator('dialog[open]');
  await dlg.locator('input[name=username]').fill(name);
  await dlg.locator('input[name=password]').fill(password);
  await dlg.locator('button[type=submit]').click();
  return dlg;
}

test('sign up, log in on another device with the seat back, a rated game, profile and leaderboard', async () => {
  const ana = await ctx.page();
  await ana.goto(ctx.server.base + '/');
  await ana.locator('.account-login').waitFor();
  // Sign up: a mismatch is caught before asking the server, then the account is made.
  const dlg = await signUp(ana, 'Ana_E2E');
  await dlg.locator('input').nth(2).fill('something else');
  await dlg.locator('button[type=submit]').click();
  await dlg.locator('.field-error', { hasText: tIn('en', 'account.password_mismatch') }).waitFor();
  await shot(ana, 'account-signup-dialog');
  await dlg.locator('input').nth(2).fill(PW);
  await dlg.locator('button[type=submit]').click();
  await ana.locator('.account-btn', { hasText: 'Ana_E2E' }).waitFor();
  assert.equal(await ana.locator('dialog[open]').count(), 0);
  // The lobby shows the account and its ratings, and offers rated quick play.
  await ana.locator('.me-card .me-name', { hasText: 'Ana_E2E' }).waitFor();
  assert.equal(await ana.locator('.rated-quick').count(), 3);
  await shot(ana, 'account-lobby');

  // Bob signs up in his own browser; Ana creates a rated room, Bob takes the seat.
  const bob = await ctx.page();
  await bob.goto(ctx.server.base + '/');
  await (await signUp(bob, 'Bob_E2E')).locator('button[type=submit]').click();
  await bob.locator('.account-btn', { hasText: 'Bob_E2E' }).waitFor();
  await ana.locator('label[for="f-game-kalah"]').click();
  await ana.locator('label[for="f-opponent-human"]').click();
  await ana.locator('input[name=rated]').check();
  await ana.locator('.field-hint', { hasText: tIn('en', 'create.rated_hint') }).waitFor();
  const code = await createRoom(ana, { game: 'kalah', visibility: 'private', clock: 3 });
  await bob.goto(ctx.server.base + '/r/' + code);
  const invite = bob.locator('dialog[open]');
  await invite.locator('input').waitFor();
  await invite.locator('button[type=submit]').click();
  await bob.locator('.pbar.near .tag.you').waitFor();
  await ana.locator('.pbar .prating').first().waitFor();
  assert.match(await ana.locator('.room-sub').textContent(), new RegExp(tIn('en', 'room.rated')));

  // Another device: a wrong password is refused in the dialog, the right one brings the seat back.
  const phone = await ctx.page({ width: 360, height: 740 });
  await phone.goto(ctx.server.base + '/');
  const bad = await logIn(phone, 'ana_e2e', 'not the password');
  await bad.locator('.form-error', { hasText: tIn('en', 'err.bad_credentials') }).waitFor();
  await shot(phone, 'account-login-refused');
  await bad.locator('input[name=password]').fill(PW);
  await bad.locator('button[type=submit]').click();
  await phone.waitForURL(new RegExp('/r/' + code + '$'));
  await phone.locator('.pbar.near .tag.you').waitFor();
  await phone.locator('.account-btn', { hasText: 'Ana_E2E' }).waitFor();
  assert.equal(await phone.locator('.board .house.legal').count() > 0 || await bob.locator('.board .house.legal').count() > 0, true);
  await shot(phone, 'account-seat-recovered');

  // Both sides move (a rated game where a side never moved is aborted, not rated), then Bob
  // resigns: the result shows both ratings after the game, +/-.
  for (const p of [ana, bob]) await setSpeed(p, 'off');
  // The side to move plays its first legal house (Ana on her first device), until both moved.
  const moved = new Set();
  while (moved.size < 2) {
    const p = (await bob.locator('.board .house.legal').count()) ? bob : (await ana.locator('.board .house.legal').count()) ? ana : null;
    if (!p) { await bob.waitForTimeout(50); continue; }
    const n = await p.locator('.moves .mv:not(.gap)').count();
    await p.locator('.board .house.legal').first().click();
    for (const q of [ana, bob]) await q.waitForFunction((n) => document.querySelectorAll('.moves .mv:not(.gap)').length > n, n);
    moved.add(p);
  }
  await bob.locator('.actions .btn.danger').click();
  await bob.locator('dialog[open] .btn.danger').click();
  await ana.locator('.overlay.over .rating-change').waitFor();
  const change = await ana.locator('.overlay.over .rating-change').textContent();
  assert.match(change, /1662/);
  assert.match(change, /1338/);
  await shot(ana, 'account-rating-change');

  // The profile: the name, the Kalah card, a graph with the game, the game linking to its replay.
  await ana.goto(ctx.server.base + '/@/ANA_E2E');
  await ana.locator('.profile h1', { hasText: 'Ana_E2E' }).waitFor();
  await ana.waitForURL(/\/@\/Ana_E2E$/); // the address names the account as it writes its name
  await ana.locator('.rating-card.kalah .rc-rating', { hasText: '1662?' }).waitFor();
  assert.equal(await ana.locator('svg.rating-graph circle.dot').count(), 1);
  assert.match(await ana.locator('svg.rating-graph desc').textContent(), /1500.*1662/);
  const replay = ana.locator('.profile-games a.recent-row').first();
  assert.match(await replay.getAttribute('href'), /^\/g\/[0-9a-f]{16}$/);
  assert.match(await replay.locator('.rr-diff').textContent(), /\+162/);
  await shot(ana, 'account-profile');
  await replay.click();
  await ana.waitForURL(/\/g\/[0-9a-f]{16}$/);

  // The leaderboard of Kalah: Ana first, Bob second; Oware is empty.
  await ana.goto(ctx.server.base + '/leaderboard/kalah');
  await ana.locator('.board-table tbody tr').nth(1).waitFor();
  const rows = await ana.locator('.board-table tbody td.who').allTextContents();
  assert.deepEqual(rows, ['Ana_E2E', 'Bob_E2E']);
  await shot(ana, 'account-leaderboard');
  await ana.locator('.game-tab.oware').click();
  await ana.waitForURL(/\/leaderboard\/oware$/);
  await ana.locator('.leaderboard .empty-note').waitFor();

  // Settings: log out everywhere; the phone becomes a guest and says why.
  await ana.goto(ctx.server.base + '/settings');
  await ana.locator('.settings h1').waitFor();
  await shot(ana, 'account-settings');
  await ana.locator('.settings .card button.logout-all').click();
  await ana.locator('dialog[open] .btn.primary, dialog[open] .btn.danger').last().click();
  await ana.locator('.account-login').waitFor();
  await phone.locator('.account-login').waitFor();
  await phone.locator('.toast', { hasText: tIn('en', 'account.signed_out.logout_all') }).waitFor();
  ctx.noProblems(ana, bob, phone);
});

test('in French, on a phone: the sign-up dialog, the profile and the leaderboard', async () => {
  const p = await ctx.page({ width: 360, height: 740, locale: 'fr-FR' });
  await p.goto(ctx.server.base + '/');
  await p.locator('.account-login', { hasText: tIn('fr', 'account.login') }).waitFor();
  const dlg = await signUp(p, 'Élodie_fr', 'fr');
  await shot(p, 'account-signup-fr');
  await dlg.locator('button[type=submit]').click();
  await p.locator('.account-btn').waitFor();
  // The header still fits: nothing wider than the screen.
  const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, 'the page is ' + overflow + ' px wider than the screen');
  await shot(p, 'account-lobby-fr');
  await p.goto(ctx.server.base + '/@/' + encodeURIComponent('élodie_fr'));
  await p.locator('.profile h1', { hasText: 'Élodie_fr' }).waitFor();
  await p.locator('.graph-card .empty-note', { hasText: tIn('fr', 'profile.no_history') }).waitFor();
  await shot(p, 'account-profile-fr');
  await p.goto(ctx.server.base + '/leaderboard/kalah');
  await p.locator('.leaderboard h1', { hasText: tIn('fr', 'lb.title') }).waitFor();
  await p.locator('.board-table tbody tr').first().waitFor();
  await shot(p, 'account-leaderboard-fr');
  const wide = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(wide <= 0, 'the leaderboard is ' + wide + ' px wider than the screen');
  // A player who does not exist (the browser logs the route's 404).
  p.allowed.push(/status of 404/);
  await p.goto(ctx.server.base + '/@/Personne');
  await p.locator('h1', { hasText: tIn('fr', 'profile.missing_title') }).waitFor();
  ctx.noProblems(p);
});

test('in French: an account name carries a badge in the room and in chat; a guest name does not', async () => {
  // The account plays at 1280 px, a guest joins by the invite link on a phone (360 px).
  const acc = await ctx.page({ locale: 'fr-FR' });
  await acc.goto(ctx.server.base + '/');
  await (await signUp(acc, 'Magnus_Oak', 'fr')).locator('button[type=submit]').click();
  await acc.locator('.account-btn', { hasText: 'Magnus_Oak' }).waitFor();
  const code = await createRoom(acc, { visibility: 'private' });
  const guest = await ctx.page({ width: 360, height: 740, locale: 'fr-FR' });
  await guest.goto(ctx.server.base + '/r/' + code);
  await acceptInvite(guest, 'Visiteur');
  await acc.locator('.pbar .pname-text', { hasText: 'Visiteur' }).waitFor();
  await acc.fill('.chat-form input', 'Bonjour !');
  await acc.press('.chat-form input', 'Enter');
  await guest.locator('.chat-log .msg p', { hasText: 'Bonjour !' }).waitFor();
  await guest.fill('.chat-form input', 'Salut');
  await guest.press('.chat-form input', 'Enter');
  await acc.locator('.chat-log .msg p', { hasText: 'Salut' }).waitFor();
  const label = tIn('fr', 'badge.account');
  assert.equal(label, 'compte enregistré');
  for (const p of [acc, guest]) {
    // One badge on the seats, by the account's name, named for screen readers.
    const seats = p.locator('.pbar .account-badge');
    assert.equal(await seats.count(), 1);
    assert.equal(await seats.getAttribute('aria-label'), label);
    assert.equal(await seats.getAttribute('role'), 'img');
    await p.locator('.pbar', { has: p.locator('.account-badge') }).locator('.pname-text', { hasText: 'Magnus_Oak' }).waitFor();
    // In chat: the account's line has it, the guest's has not.
    const lines = p.locator('.chat-log .msg');
    assert.equal(await lines.filter({ hasText: 'Bonjour !' }).locator('.account-badge').count(), 1);
    assert.equal(await lines.filter({ hasText: 'Salut' }).locator('.account-badge').count(), 0);
    assert.equal(await lines.filter({ hasText: 'Bonjour !' }).locator('.account-badge').getAttribute('aria-label'), label);
  }
  // The phone's page still fits its screen with the badge.
  const overflow = await guest.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, 'the page is ' + overflow + ' px wider than the screen');
  await acc.locator('.chat-log').scrollIntoViewIfNeeded();
  await shot(acc, 'account-badge-fr');
  await guest.locator('.chat-log').scrollIntoViewIfNeeded();
  await shot(guest, 'account-badge-fr');
  await guest.locator('.pbar').first().scrollIntoViewIfNeeded();
  await shot(guest, 'account-badge-seats-fr');
  ctx.noProblems(acc, guest);
});
