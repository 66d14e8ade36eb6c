// The sessions page (issue 25, item 11) in the browser: an account logged in on a laptop and on a
// phone sees both devices on /settings (named from each browser's user agent, the laptop marked
// as this device, when each was last used and logged in), logs the phone out from there (the
// phone becomes a guest and says why), and the page in French on a phone. Screenshots in
// tests/artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, shot } from './harness.mjs';
import { tIn, loadLang } from '../../web/i18n.js';

const ctx = useBrowser();
await Promise.all(['en', 'fr'].map((code) => loadLang(code)));
const PW = 'correct horse battery';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

// A page of its own browser (its own storage) with the user agent ua; console errors collected.
async function device(ua, { width = 1280, height = 800, locale = 'en-US' } = {}) {
  const context = await ctx.browser.newContext({ viewport: { width, height }, locale, userAgent: ua });
  const page = await context.newPage();
  page.problems = [];
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push('console: ' + m.text()); });
  page.on('pageerror', (e) => page.problems.push('exception: ' + e.message));
  page.setDefaultTimeout(30000);
  page.setDefaultNavigationTimeout(60000);
  ctx.pages.push(page);
  return page;
}

async function signUp(page, name) {
  await page.locator('.account-login').click();
  const dlg = page.locator('dialog[open]');
  await dlg.locator('.link-btn').click();
  const inputs = dlg.locator('input');
  await inputs.nth(0).fill(name);
  await inputs.nth(1).fill(PW);
  await inputs.nth(2).fill(PW);
  await dlg.locator('button[type=submit]').click();
  await page.locator('.account-btn', { hasText: name }).waitFor();
}

async function logIn(page, name) {
  await page.locator('.account-login').click();
  const dlg = page.locator('dialog[open]');
  await dlg.locator('input[name=username]').fill(name);
  await dlg.locator('input[name=password]').fill(PW);
  await dlg.locator('button[type=submit]').click();
  await page.locator('.account-btn', { hasText: name }).waitFor();
}

const devicesOn = (page) => page.locator('.session-list .session .session-device').allTextContents();

test('the devices of an account on /settings: listed, this one marked, the phone logged out from there', async () => {
  const laptop = await device(FIREFOX);
  await laptop.goto(ctx.server.base + '/');
  await signUp(laptop, 'Ana_Devices');
  const phone = await device(ANDROID, { width: 360, height: 740 });
  await phone.goto(ctx.server.base + '/');
  await logIn(phone, 'ana_devices');

  // Two devices, the most recently used first: this laptop (its page load just said hello with
  // its token, after the phone logged in), then the phone.
  await laptop.goto(ctx.server.base + '/settings');
  await laptop.locator('.session-list .session').nth(1).waitFor();
  assert.deepEqual(await devicesOn(laptop), ['Firefox · Linux', 'Chrome · Android']);
  const mine = laptop.locator('.session-list .session.current');
  assert.equal(await mine.locator('.tag').textContent(), tIn('en', 'account.this_device'));
  assert.equal(await mine.locator('button').count(), 0); // Logout ends this one, not this list.
  const line = await mine.locator('small').textContent();
  assert.ok(line.startsWith(tIn('en', 'account.session_seen', { date: '' }).trim()), line);
  await laptop.locator('.card.sessions button.logout-all').scrollIntoViewIfNeeded();
  await shot(laptop, 'sessions-list');

  // The phone sees the same two, its own marked.
  await phone.goto(ctx.server.base + '/settings');
  await phone.locator('.session-list .session').nth(1).waitFor();
  assert.equal(await phone.locator('.session-list .session.current .session-device').textContent(), 'Chrome · Android');
  await phone.locator('.session-list').scrollIntoViewIfNeeded();
  await shot(phone, 'sessions-list-phone');

  // Log the phone out from the laptop: one device left; the phone is a guest and says why.
  await laptop.locator('.session-list .session', { hasText: 'Chrome · Android' }).locator('button').click();
  await laptop.locator('.toast', { hasText: tIn('en', 'account.revoked', { device: 'Chrome · Android' }) }).waitFor();
  await laptop.waitForFunction(() => document.querySelectorAll('.session-list .session').length === 1);
  assert.deepEqual(await devicesOn(laptop), ['Firefox · Linux']);
  await phone.locator('.toast', { hasText: tIn('en', 'account.signed_out.revoked') }).waitFor();
  await phone.locator('.account-login').waitFor();
  await shot(laptop, 'sessions-revoked');
  await shot(phone, 'sessions-revoked-phone');
  ctx.noProblems(laptop, phone);
});

test('in French, on a phone: the devices card fits the screen', async () => {
  const p = await device(ANDROID, { width: 360, height: 740, locale: 'fr-FR' });
  await p.goto(ctx.server.base + '/');
  await p.locator('.account-login', { hasText: tIn('fr', 'account.login') }).waitFor();
  await signUp(p, 'Élodie_Appareils');
  await p.goto(ctx.server.base + '/settings');
  await p.locator('.session-list .session.current').waitFor();
  assert.equal(await p.locator('.session-list .session.current .tag').textContent(), tIn('fr', 'account.this_device'));
  await p.locator('.card.sessions .session-list').scrollIntoViewIfNeeded();
  const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, 'the page is ' + overflow + ' px wider than the screen');
  await shot(p, 'sessions-fr');
  ctx.noProblems(p);
});
