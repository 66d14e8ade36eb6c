// Your-turn alerts and sounds: the tab title, a sound and an optional notification when it becomes
// your turn or the game starts while the tab is hidden; sounds (Web Audio) for sowing, captures and
// the end of a game; one mute switch, remembered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, createRoom, setSpeed, playToEnd, acceptInvite, hideable, listenSounds, recordStates } from './harness.mjs';
import { tIn, loadLang } from '../../web/i18n.js';

const ctx = useBrowser();
await Promise.all(['en', 'fr'].map((code) => loadLang(code)));

// An init script: a Notification API that records what the page asks and shows (headless Chromium
// has no notification centre). The permission starts undecided.
function fakeNotification() {
  window.__notes = [];
  window.__asked = 0;
  class FakeNotification {
    constructor(title, opts) { this.title = title; this.body = opts && opts.body; this.closed = false; window.__notes.push(this); }
    close() { this.closed = true; }
  }
  FakeNotification.permission = 'default';
  FakeNotification.requestPermission = async () => { window.__asked++; FakeNotification.permission = 'granted'; return 'granted'; };
  window.Notification = FakeNotification;
}

const notes = (p) => p.evaluate(() => window.__notes.map((n) => ({ title: n.title, body: n.body, closed: n.closed })));
const sounds = (p) => p.evaluate(() => window.__sounds.slice());

test('a hidden tab is told when the game starts and when it is its turn; shown again, it is quiet', async () => {
  const a = await ctx.page({ init: [hideable, listenSounds, fakeNotification] });
  const b = await ctx.page();
  await a.goto(ctx.server.base + '/');
  const code = await createRoom(a, { game: 'kalah', houses: 4, seeds: 3, visibility: 'private' });
  await a.locator('.overlay.waiting').waitFor();
  const title = await a.title();
  assert.equal(title, `Kalah · ${code} · Mancala Online`);

  // Notifications are asked for only when the player presses the switch.
  const bell = a.getByRole('button', { name: tIn('en', 'room.notify') });
  assert.equal(await bell.getAttribute('aria-pressed'), 'false');
  assert.equal(await a.evaluate(() => window.__asked), 0);
  await bell.click();
  await a.waitForFunction(() => window.__asked === 1);
  await a.waitForFunction(() => document.querySelector('[aria-pressed="true"][aria-label="Notify me when it is my turn"]'));

  // The tab is hidden when the second player arrives: the game starts.
  await a.evaluate(() => window.__setHidden(true));
  await b.goto(ctx.server.base + '/r/' + code);
  await acceptInvite(b, 'Bea');
  const aSouth = (await a.locator('.pbar.near').getAttribute('class')).includes('seat-south');
  const want = tIn('en', aSouth ? 'alert.your_move' : 'alert.game_started');
  await a.waitForFunction((w) => document.title === w, want);
  assert.equal(want, aSouth ? '(•) Your move - Mancala Online' : '(•) Game started - Mancala Online');
  assert.deepEqual(await sounds(a), ['turn']);
  let n = await notes(a);
  assert.equal(n.length, 1);
  assert.equal(n[0].title, tIn('en', aSouth ? 'alert.your_move_short' : 'alert.game_started_short'));
  assert.equal(n[0].body, 'Kalah against Bea');
  // Shown again: the page's own title, the notification closed.
  await a.evaluate(() => window.__setHidden(false));
  assert.equal(await a.title(), title);
  assert.equal((await notes(a))[0].closed, true);

  // It becomes a's turn while a's tab is hidden (b plays until it is a's turn).
  for (const p of [a, b]) await setSpeed(p, 'off');
  if (aSouth) { await a.locator('.board .house.legal').first().click(); await a.locator('.pbar.far.turn').waitFor(); }
  await a.evaluate(() => window.__setHidden(true));
  const before = (await sounds(a)).filter((x) => x === 'turn').length;
  const bPlaysUntilATurn = async () => {
    while (!(await a.locator('.pbar.near.turn').count())) {
      const n = await b.locator('.moves .mv').count();
      await b.locator('.board .house.legal').first().click();
      for (const p of [a, b]) await p.waitForFunction((n) => document.querySelectorAll('.moves .mv').length > n, n);
    }
  };
  await bPlaysUntilATurn();
  await a.waitForFunction((w) => document.title === w, tIn('en', 'alert.your_move'));
  assert.equal((await sounds(a)).filter((x) => x === 'turn').length, before + 1);
  n = await notes(a);
  assert.equal(n[n.length - 1].title, tIn('en', 'alert.your_move_short'));
  // While the tab is shown, no alert at all.
  await a.evaluate(() => window.__setHidden(false));
  assert.equal(await a.title(), title);
  const count = (await notes(a)).length;
  const m = await a.locator('.moves .mv').count();
  await a.locator('.board .house.legal').first().click();
  for (const p of [a, b]) await p.waitForFunction((n) => document.querySelectorAll('.moves .mv').length > n, m);
  await bPlaysUntilATurn();
  assert.equal(await a.title(), title);
  assert.equal((await notes(a)).length, count);
  // In French the bell says so, and is still on.
  await a.selectOption('#lang', 'fr');
  assert.equal(await a.getByRole('button', { name: tIn('fr', 'room.notify') }).getAttribute('aria-pressed'), 'true');
  await a.selectOption('#lang', 'en');
  ctx.noProblems(a, b);
});

test('sounds for sowing, captures and the end, made with Web Audio; the mute switch silences them and is kept', async () => {
  const p = await ctx.page({ init: [listenSounds] });
  const states = recordStates(p);
  await p.goto(ctx.server.base + '/');
  await createRoom(p, { game: 'congkak', houses: 5, seeds: 4, opponent: 'local' });
  await setSpeed(p, 'fast');
  const toggle = p.getByRole('button', { name: tIn('en', 'room.sound') });
  assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
  await p.locator('.board .house.legal').first().click();
  await p.waitForFunction(() => window.__sounds.includes('sow'));
  // Played to its end (replays cut short by each click still sound once).
  await playToEnd([p]);
  await p.waitForFunction(() => window.__sounds.some((s) => s === 'win' || s === 'draw'));
  const heard = await sounds(p);
  const captured = states.some((s) => s.last && s.last.trace.some((x) => x.kind === 'capture'));
  assert.ok(captured, 'this game has captures');
  assert.ok(heard.includes('capture'), heard.join());
  assert.ok(await p.evaluate(() => window.__tones) > heard.length, 'the sounds are made of Web Audio oscillators');

  // Muted: a new game makes no sound; the switch is remembered.
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
  assert.equal(await p.evaluate(() => localStorage.getItem('mc.mute')), 'true');
  await p.locator('.overlay.over').getByRole('button', { name: tIn('en', 'room.rematch') }).click();
  await p.locator('.overlay.over').waitFor({ state: 'hidden' });
  const [heardBefore, tonesBefore] = await p.evaluate(() => [window.__sounds.length, window.__tones]);
  for (let i = 0; i < 4; i++) {
    if (!(await p.locator('.board .house.legal').count())) break;
    await p.locator('.board .house.legal').first().click();
    await p.waitForFunction((n) => document.querySelectorAll('.moves .mv').length === n, i + 1);
  }
  assert.deepEqual(await p.evaluate(() => [window.__sounds.length, window.__tones]), [heardBefore, tonesBefore]);
  await p.reload();
  await p.locator('.board .house').first().waitFor();
  assert.equal(await p.getByRole('button', { name: tIn('en', 'room.sound') }).getAttribute('aria-pressed'), 'false');
  // In French the switch says so. (Your-turn notifications are for a player with one side: a game
  // at one screen has no bell.)
  await p.selectOption('#lang', 'fr');
  await p.getByRole('button', { name: tIn('fr', 'room.sound') }).waitFor();
  assert.equal(await p.getByRole('button', { name: tIn('fr', 'room.notify') }).count(), 0);
  ctx.noProblems(p);
});
