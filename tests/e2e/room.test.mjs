// What the server keeps for a room, seen in the browser: the clocks wait for the first move,
// takeback (asked, refused, allowed between two people; at once at one screen), the chat's history
// after a reload with spectators' lines marked and cleaned, and the lobby's "Games in progress"
// (my_rooms), live, with Resume. The two players use French (1280 px and 360 px, screenshots of
// both); a third person watches in English.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, createRoom, setSpeed, acceptInvite, shot } from './harness.mjs';
import { tIn, loadLang } from '../../web/i18n.js';

const ctx = useBrowser();
await Promise.all(['en', 'fr'].map((code) => loadLang(code)));
const fr = (key, vars) => tIn('fr', key, vars);

const moves = (p) => p.locator('.moves .mv:not(.gap)').count();
const waitMoves = (p, n) => p.waitForFunction((n) => document.querySelectorAll('.moves .mv:not(.gap)').length === n, n);
const clocks = (p) => p.evaluate(() => [...document.querySelectorAll('.pbar .clock')].map((c) => ({ seat: c.dataset.seat, text: c.textContent, running: c.classList.contains('running') })));
// The live region's lines (what a screen reader is told).
const announced = (p) => p.evaluate(() => [...document.querySelectorAll('.announce > *')].map((e) => e.textContent));

test('two people: the clocks wait for the first move; takeback refused, then allowed; chat history; games in progress', async () => {
  const a = await ctx.page({ locale: 'fr-FR' });
  const b = await ctx.page({ locale: 'fr-FR', width: 360, height: 640 });
  const c = await ctx.page();
  await a.goto(ctx.server.base + '/');
  // A private Kalah 6 x 4 with a 3 + 2 clock (the create form's third clock).
  const code = await createRoom(a, { game: 'kalah', visibility: 'private', clock: 2 });
  await b.goto(ctx.server.base + '/r/' + code);
  await acceptInvite(b, 'Bea');
  await a.locator('.pbar.far .pname', { hasText: 'Bea' }).waitFor();
  for (const p of [a, b]) await setSpeed(p, 'off');

  // ---- Before the first move no clock runs; the first mover is told it has 30 s.
  await a.locator('.pbar.turn').first().waitFor();
  const [mover, waiter] = (await a.locator('.pbar.near.turn').count()) ? [a, b] : [b, a];
  await mover.locator('.pbar.near .first-move:not([hidden])').waitFor();
  assert.match(await mover.locator('.pbar.near .first-move').textContent(), /^premier coup dans ([1-2]\d|30|\d) s$/);
  assert.equal(await waiter.locator('.pbar.far .first-move:not([hidden])').count(), 1, 'the other side sees it too');
  assert.ok((await mover.locator('.status-line').textContent()).includes(fr('status.clocks_wait')));
  const before = await clocks(mover);
  assert.deepEqual(before.map((k) => [k.text, k.running]), [['3:00', false], ['3:00', false]]);
  await mover.waitForTimeout(1500);
  assert.deepEqual(await clocks(mover), before, 'nothing counts down before the first move');
  assert.deepEqual((await clocks(waiter)).map((k) => [k.text, k.running]), [['3:00', false], ['3:00', false]]);

  // The first move (house 1: four seeds to houses 2..5, no capture, no extra turn) is free, and
  // the other side's own first move has its deadline now: still no clock runs.
  await mover.keyboard.press('1');
  for (const p of [a, b]) await waitMoves(p, 1);
  await waiter.locator('.pbar.near .first-move:not([hidden])').waitFor();
  await mover.locator('.pbar.far .first-move:not([hidden])').waitFor();
  assert.equal(await mover.locator('.pbar.near .first-move:not([hidden])').count(), 0);
  // The first move took nothing from the mover's clock (and, its clock not running, adds no increment).
  assert.deepEqual((await clocks(mover)).map((k) => [k.text, k.running]), [['3:00', false], ['3:00', false]]);

  // ---- Takeback: only a side that has moved may ask.
  assert.equal(await waiter.locator('[data-action="takeback"]').count(), 0, 'nothing of the waiter\'s to take back');
  const ask = mover.locator('[data-action="takeback"]');
  assert.equal(await ask.textContent(), fr('room.takeback'));
  await ask.click();
  await mover.locator('.offer', { hasText: fr('takeback.sent') }).waitFor();
  const asked = fr('takeback.asked', { name: await waiter.locator('.pbar.far .pname-text').textContent() });
  const note = waiter.locator('.offer', { hasText: asked });
  await note.waitFor();
  await waiter.waitForFunction((t) => [...document.querySelectorAll('.announce > *')].some((e) => e.textContent === t), asked);
  // The request shows as a toast too (on a phone the offer's buttons are under the board).
  await waiter.locator('.toast', { hasText: asked }).waitFor();
  for (const p of [a, b]) await p.locator('.offers').scrollIntoViewIfNeeded();
  await shot(a, 'takeback-asked-fr');
  await shot(b, 'takeback-asked-fr');
  // Refused: the asker is told, and nothing changes.
  await note.getByRole('button', { name: fr('takeback.decline') }).click();
  const refused = fr('takeback.declined', { name: await mover.locator('.pbar.far .pname-text').textContent() });
  await mover.locator('.offer', { hasText: refused }).waitFor();
  assert.ok((await announced(mover)).includes(refused));
  await waiter.locator('.offer').waitFor({ state: 'detached' });
  assert.equal(await moves(a), 1);
  // Asked again and allowed: the move goes on both screens, the same side is to move again, and
  // the game waits for its first move again (no clock runs).
  await mover.locator('[data-action="takeback"]').click();
  await waiter.locator('.offer', { hasText: asked }).getByRole('button', { name: fr('takeback.accept') }).click();
  for (const p of [a, b]) await waitMoves(p, 0);
  const done = fr('takeback.done', { n: 1 });
  for (const p of [a, b]) await p.waitForFunction((t) => [...document.querySelectorAll('.announce > *')].some((e) => e.textContent === t), done);
  await mover.locator('.pbar.near.turn').waitFor();
  assert.equal(await mover.locator('.board .house.legal').count(), 6, 'every house playable again');
  await mover.locator('.pbar.near .first-move:not([hidden])').waitFor();
  assert.equal((await clocks(mover)).filter((k) => k.running).length, 0);
  assert.equal(await mover.locator('.offer').count(), 0);

  // ---- Chat: both players and a spectator; the spectator's line is marked and cleaned.
  await a.fill('.chat-form input', 'Bonne chance !');
  await a.press('.chat-form input', 'Enter');
  await b.locator('.chat-log .msg p', { hasText: 'Bonne chance !' }).waitFor();
  await b.fill('.chat-form input', 'Merci');
  await b.press('.chat-form input', 'Enter');
  await a.locator('.chat-log .msg p', { hasText: 'Merci' }).waitFor();
  await c.goto(ctx.server.base + '/r/' + code);
  await c.locator('.watching').waitFor();
  // The room's lines come with entering: the spectator reads what was said before.
  await c.locator('.chat-log .msg p', { hasText: 'Merci' }).waitFor();
  // A right-to-left override would turn the line around for everyone: the server drops it.
  await c.fill('.chat-form input', 'Allez \u202Eles deux');
  await c.press('.chat-form input', 'Enter');
  const spect = a.locator('.chat-log .msg.spectator');
  await spect.waitFor();
  assert.equal(await spect.locator('p').textContent(), 'Allez les deux');
  assert.equal(await spect.locator('.tag').textContent(), fr('chat.spectator'));
  const lines = (p) => p.evaluate(() => [...document.querySelectorAll('.chat-log .msg')].map((m) => [m.querySelector('p').textContent, m.classList.contains('spectator')]));
  const said = [['Bonne chance !', false], ['Merci', false], ['Allez les deux', true]];
  // After a reload the player finds the room's chat as it was, in order.
  await b.locator('.chat-log .msg.spectator').waitFor();
  await b.reload();
  await b.locator('.pbar.near .tag.you').waitFor();
  await b.waitForFunction(() => document.querySelectorAll('.chat-log .msg').length === 3);
  assert.deepEqual(await lines(b), said);
  await b.locator('.chat').scrollIntoViewIfNeeded();
  await shot(b, 'chat-history-fr');
  // The reader may hide the spectators' lines (kept in this browser).
  await b.locator('.chat-settings summary').click();
  await b.locator('.chat-prefs input[data-pref="spectators"]').uncheck();
  assert.deepEqual(await lines(b), said.slice(0, 2));
  await b.reload();
  await b.waitForFunction(() => document.querySelectorAll('.chat-log .msg').length === 2);
  assert.deepEqual(await lines(b), said.slice(0, 2));
  // ... and mute the opponent: A's lines go, A's new ones are not shown; unmuted, they are back.
  await b.locator('.chat-settings summary').click();
  const mute = b.locator('.chat-prefs input[data-pref="mute"]');
  assert.equal(await b.locator('.chat-prefs label', { has: b.locator('input[data-pref="mute"]') }).textContent(), fr('chat.mute', { name: await b.locator('.pbar.far .pname-text').textContent() }));
  await mute.check();
  assert.deepEqual(await lines(b), [['Merci', false]]);
  await a.fill('.chat-form input', 'Tu m’entends ?');
  await a.press('.chat-form input', 'Enter');
  await c.locator('.chat-log .msg p', { hasText: 'Tu m’entends ?' }).waitFor();
  assert.deepEqual(await lines(b), [['Merci', false]]);
  await mute.uncheck();
  assert.deepEqual(await lines(b), [['Bonne chance !', false], ['Merci', false], ['Tu m’entends ?', false]]);
  await setSpeed(b, 'off');

  // ---- Games in progress: the private room is in the player's lobby, live, with Resume.
  const aMoves = mover === a;
  await a.goto(ctx.server.base + '/');
  const row = a.locator(`.in-progress .mine-row[data-room="${code}"]`);
  await row.waitFor();
  // A region named for screen readers, its Resume link named with the game and the opponent.
  const region = a.getByRole('region', { name: fr('lobby.in_progress') });
  assert.equal(await region.getByRole('link').count(), 1);
  assert.ok((await row.textContent()).includes('Bea'), 'the opponent is named');
  assert.equal(await row.getAttribute('data-state'), aMoves ? 'your_move' : 'their_move');
  assert.equal(await row.locator('.rr-status').textContent(), fr(aMoves ? 'inprogress.your_move' : 'inprogress.their_move'));
  await shot(a, 'lobby-in-progress-fr');
  if (aMoves) {
    // A resumes, plays, and is back in the lobby: now it is the other side's move.
    await row.getByRole('link', { name: fr('inprogress.resume_label', { game: fr('game.kalah'), vs: fr('recent.vs', { name: 'Bea' }) }) }).click();
    await a.waitForURL(new RegExp('/r/' + code + '$'));
    await a.locator('.pbar.near.turn').waitFor();
    await a.keyboard.press('1');
    await waitMoves(b, 1);
    await a.goto(ctx.server.base + '/');
    await row.waitFor();
    assert.equal(await row.getAttribute('data-state'), 'their_move');
  }
  // Bea moves (house 1 of her side) while A looks at the lobby: A's row says so without a reload.
  await b.locator('.pbar.near.turn').waitFor();
  const n = await moves(b);
  await b.keyboard.press('1');
  await waitMoves(b, n + 1);
  await a.waitForFunction((code) => document.querySelector(`.mine-row[data-room="${code}"]`)?.dataset.state === 'your_move', code);
  assert.equal(await row.locator('.rr-status').textContent(), fr('inprogress.your_move'));
  // The phone's lobby lists it too, with the other's move.
  await b.goto(ctx.server.base + '/');
  await b.locator(`.in-progress .mine-row[data-room="${code}"][data-state="their_move"]`).waitFor();
  await shot(b, 'lobby-in-progress-fr');
  // Resume brings A back to its seat, to move.
  await row.getByRole('link').click();
  await a.waitForURL(new RegExp('/r/' + code + '$'));
  await a.locator('.pbar.near .tag.you').waitFor();
  await a.locator('.board .house.legal').first().waitFor();
  ctx.noProblems(a, b, c);
});

test('at one screen the last move is taken back at once', async () => {
  const p = await ctx.page();
  await p.goto(ctx.server.base + '/');
  await createRoom(p, { game: 'kalah', opponent: 'local' });
  await setSpeed(p, 'off');
  await p.locator('.board .house.legal').first().waitFor();
  assert.equal(await p.locator('[data-action="undo"]').count(), 0, 'nothing to take back before the first move');
  assert.equal(await p.locator('[data-action="takeback"]').count(), 0);
  // South's house 3: four seeds to 4, 5, 6 and the store: an extra turn. Then house 1.
  await p.keyboard.press('3');
  await waitMoves(p, 1);
  await p.keyboard.press('1');
  await waitMoves(p, 2);
  const undo = p.locator('[data-action="undo"]');
  assert.equal(await undo.textContent(), tIn('en', 'room.undo'));
  await undo.click();
  await waitMoves(p, 1);
  // South is to move again, after its extra turn: house 3 is empty, the others playable.
  await p.waitForFunction(() => document.querySelectorAll('.board .house.legal').length === 5);
  await undo.click();
  await waitMoves(p, 0);
  await p.waitForFunction(() => document.querySelectorAll('.board .house.legal').length === 6);
  await p.locator('[data-action="undo"]').waitFor({ state: 'detached' });
  ctx.noProblems(p);
});
