// Playing in the browser: a click or a key plays at once during a replay, the clocks are not held
// by it, replays stay short (measured, printed), prefers-reduced-motion makes them instant, the move
// list under both forms of the state frame (with and without `moves`), and the richer move list and
// the game's text on the replay page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { useBrowser, createRoom, setSpeed, playToEnd, acceptInvite, recordStates, shot } from './harness.mjs';
import { tIn, loadLang } from '../../web/i18n.js';
import { traceWeight } from '../../web/board.js';

const ctx = useBrowser();
await Promise.all(['en', 'fr'].map((code) => loadLang(code)));

// Records on the page when the status row starts and stops showing a replay (window.__replays:
// durations in ms of the replays that ran to their end; window.__replayStarts: how many began).
function watchReplays() {
  window.__replays = [];
  window.__replayStarts = 0;
  let since = null;
  new MutationObserver((muts) => {
    for (const m of muts) {
      if (!m.target.classList || !m.target.classList.contains('status-row')) continue;
      const on = m.target.classList.contains('replaying');
      if (on && since === null) { since = performance.now(); window.__replayStarts++; }
      else if (!on && since !== null) { window.__replays.push(performance.now() - since); since = null; }
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['class'] });
}

const moveCount = (p) => p.locator('.moves .mv:not(.gap)').count();

test('a click or a key plays at once during the replay of the other move, and the clock runs meanwhile', async () => {
  const a = await ctx.page();
  const b = await ctx.page();
  await a.goto(ctx.server.base + '/');
  // Congkak on its default board (long relay chains) with a 3 + 2 clock.
  const code = await createRoom(a, { game: 'congkak', visibility: 'private', clock: 2 });
  await b.goto(ctx.server.base + '/r/' + code);
  await acceptInvite(b, 'Bea');
  for (const p of [a, b]) await setSpeed(p, 'slow');
  const done = { click: 0, key: 0 };
  const played = new Set(); // The pages whose side has moved: a side's clock runs from its first move.
  for (let i = 0; i < 60 && (!done.click || !done.key); i++) {
    // The side to move plays its first playable house: the page that shows playable houses (only
    // the side to move does; a page still replaying the other's move may not know yet whose turn
    // it is, so neither page's turn marker is read before one of them can play).
    let mover = null;
    for (let t = 0; t < 600 && !mover; t++) {
      if (await a.locator('.board .house.legal').count()) mover = a;
      else if (await b.locator('.board .house.legal').count()) mover = b;
      else await a.waitForTimeout(50);
    }
    assert.ok(mover, 'one side can play within 30 s');
    const watcher = mover === a ? b : a;
    const before = await moveCount(watcher);
    await mover.locator('.board .house.legal').first().click();
    played.add(mover);
    // The watcher replays it; if the watcher is to move next, it plays during the replay.
    await watcher.waitForFunction((n) => document.querySelectorAll('.moves .mv:not(.gap)').length > n, before);
    const how = done.click <= done.key ? 'click' : 'key';
    const r = await watcher.evaluate((how) => {
      const replaying = !!document.querySelector('.status-row.replaying');
      const mine = !!document.querySelector('.pbar.near.turn');
      const house = document.querySelector('.board .house.legal');
      if (!replaying || !mine || !house) return null;
      const clock = document.querySelector('.pbar.near .clock');
      const running = clock.classList.contains('running');
      const m = Number(getComputedStyle(document.querySelector('.board')).getPropertyValue('--m'));
      const pit = Number(house.dataset.pit);
      const number = pit < m ? pit + 1 : pit - m;
      const count = document.querySelectorAll('.moves .mv:not(.gap)').length;
      if (how === 'click') house.click();
      else document.dispatchEvent(new KeyboardEvent('keydown', { key: String(number), bubbles: true, cancelable: true }));
      return { running, count, after: !!document.querySelector('.status-row.replaying'), status: document.querySelector('.status-line').textContent };
    }, how);
    if (!r) {
      // Not the watcher's turn (an extra turn), or the replay already over: wait for it to end.
      await watcher.waitForFunction(() => !document.querySelector('.status-row.replaying'));
      continue;
    }
    // The clock of the player to move runs during the replay (before its side's first move no
    // clock runs: that move has a deadline instead).
    assert.equal(r.running, played.has(watcher), 'the clock of the player to move runs during the replay');
    played.add(watcher);
    assert.equal(r.after, false, 'the replay ends at once');
    // (Before the other side's first move the line adds that each clock waits for it.)
    assert.ok(r.status.startsWith('Move sent…'), r.status);
    // The move is played: the watcher's list grows by it.
    await watcher.waitForFunction((n) => document.querySelectorAll('.moves .mv:not(.gap)').length === n + 1, r.count);
    done[how]++;
  }
  assert.ok(done.click >= 1 && done.key >= 1, `played during a replay by click ${done.click}, by key ${done.key}`);
  ctx.noProblems(a, b);
});

test('replays take at most about 1.5 s at Normal, whatever the move (measured)', async (t) => {
  const p = await ctx.page({ init: [watchReplays] });
  const states = recordStates(p);
  await p.goto(ctx.server.base + '/');
  // Congkak on its biggest board: 9 houses of 12 seeds make relay chains of hundreds of steps.
  await createRoom(p, { game: 'congkak', houses: 9, seeds: 12, opponent: 'local' });
  await setSpeed(p, 'normal');
  for (let i = 0; i < 14; i++) {
    const legal = p.locator('.board .house.legal');
    if (!(await legal.count())) break;
    await legal.last().click();
    await p.waitForFunction((n) => window.__replays.length === n, i + 1, { timeout: 30000 });
  }
  const replays = await p.evaluate(() => window.__replays);
  const traces = states.filter((s) => s.last && s.ply > 0).map((s) => s.last.trace);
  const longest = traces.reduce((a, tr) => Math.max(a, tr.length), 0);
  const before = traces.reduce((a, tr) => Math.max(a, traceWeight(tr) * 220), 0);
  t.diagnostic(`${replays.length} replays at Normal: longest ${Math.round(Math.max(...replays))} ms, mean ${Math.round(replays.reduce((a, x) => a + x, 0) / replays.length)} ms; ` +
    `longest trace ${longest} steps (${(before / 1000).toFixed(1)} s at the old fixed step time)`);
  t.diagnostic('per move (steps: ms): ' + traces.map((tr, i) => `${tr.length}: ${Math.round(replays[i])}`).join(', '));
  assert.ok(replays.length >= 10, 'every move was replayed');
  ctx.noProblems(p);
});

test('prefers-reduced-motion makes the replay instant until the player picks a speed', async () => {
  const p = await ctx.page({ reducedMotion: 'reduce', init: [watchReplays] });
  await p.goto(ctx.server.base + '/');
  await createRoom(p, { game: 'kalah', opponent: 'local' });
  assert.equal(await p.locator('select.speed').inputValue(), 'off');
  for (let i = 0; i < 3; i++) {
    await p.locator('.board .house.legal').first().click();
    await p.waitForFunction((n) => document.querySelectorAll('.moves .mv').length === n, i + 1);
  }
  assert.equal(await p.evaluate(() => window.__replayStarts), 0, 'no replay was drawn');
  // A speed the player picks is theirs.
  await setSpeed(p, 'normal');
  await p.locator('.board .house.legal').first().click();
  await p.waitForFunction(() => window.__replayStarts === 1);
  await p.reload();
  await p.locator('.board .house').first().waitFor();
  assert.equal(await p.locator('select.speed').inputValue(), 'normal');
  ctx.noProblems(p);
});

test('the move list from states without moves: appended by ply, a gap marked, mended by a state with moves', async () => {
  const b = await ctx.page();
  await b.goto(ctx.server.base + '/');
  const code = await createRoom(b, { game: 'kalah', opponent: 'local' });
  await setSpeed(b, 'off');
  // The spectator's frames go through a route: the states of plies 1-3 and 5-6 lose their moves
  // (the coming protocol), those of ply 4 are lost, the state of ply 7 keeps its moves (a resync).
  const a = await ctx.page();
  await a.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    server.onMessage((msg) => {
      let m;
      try { m = JSON.parse(msg); } catch { ws.send(msg); return; }
      if (m.type === 'state' && m.ply > 0) {
        if (m.ply === 4) return;
        if (m.ply !== 7) delete m.moves;
        ws.send(JSON.stringify(m));
        return;
      }
      ws.send(msg);
    });
  });
  await a.goto(ctx.server.base + '/r/' + code);
  await a.locator('.watching').waitFor();
  const list = (p) => p.locator('.moves .mv:not(.gap)').evaluateAll((els) => els.map((e) => [Number(e.dataset.ply), e.classList.contains('south') ? 'south' : 'north', e.querySelector('b').textContent]));
  const play = async (ply) => {
    await b.locator('.board .house.legal').first().click();
    await b.waitForFunction((n) => document.querySelectorAll('.moves .mv').length === n, ply);
  };
  for (let ply = 1; ply <= 3; ply++) {
    await play(ply);
    await a.waitForFunction((n) => document.querySelectorAll('.moves .mv:not(.gap)').length === n, ply);
  }
  assert.deepEqual(await list(a), await list(b));
  assert.equal(await a.locator('.moves').getAttribute('data-complete'), 'true');
  await play(4);
  await play(5);
  await a.waitForFunction(() => document.querySelector('.moves').dataset.complete === 'false');
  assert.equal(await a.locator('.moves .mv.gap').textContent(), tIn('en', 'moves.missing', { n: 1 }));
  const known = (await list(b)).filter(([ply]) => ply !== 4);
  assert.deepEqual(await list(a), known);
  await play(6);
  await a.waitForFunction(() => document.querySelectorAll('.moves .mv:not(.gap)').length === 5);
  await play(7);
  await a.waitForFunction(() => document.querySelector('.moves').dataset.complete === 'true');
  assert.deepEqual(await list(a), await list(b));
  assert.equal(await a.locator('.moves .mv.gap').count(), 0);
  ctx.noProblems(a, b);
});

// Relay lifts, seeds captured and extra turn of a trace, counted here from the server's steps.
function expected(trace) {
  const relays = trace.filter((s) => s.kind === 'relay').length;
  const captured = trace.filter((s) => s.kind === 'capture').reduce((a, s) => a + s.count, 0);
  return { relays: String(relays), captured: String(captured), extra: trace.some((s) => s.kind === 'extra_turn') ? '1' : '0' };
}

test('the move list shows captures, relays and extra turns; the replay page too, and gives the game as text', async () => {
  const p = await ctx.page();
  const states = recordStates(p);
  await p.goto(ctx.server.base + '/');
  await createRoom(p, { game: 'congkak', houses: 5, seeds: 4, opponent: 'local' });
  await setSpeed(p, 'off');
  await playToEnd([p]);
  const final = states[states.length - 1];
  assert.equal(final.status, 'finished');
  const traceOf = new Map();
  for (const s of states) if (s.last && s.ply > 0 && s.game_no === final.game_no) traceOf.set(s.ply, s.last.trace);
  const want = [...Array(final.ply).keys()].map((i) => expected(traceOf.get(i + 1)));
  const shown = (page) => page.locator('.moves li.mv').evaluateAll((els) => els.map((e) => ({ relays: e.dataset.relays, captured: e.dataset.captured, extra: e.dataset.extra })));
  assert.deepEqual(await shown(p), want);
  // This game has each kind of event, so the check above means something.
  assert.ok(want.some((w) => w.relays !== '0') && want.some((w) => w.captured !== '0') && want.some((w) => w.extra === '1'), JSON.stringify(want));
  // The tags say it in words.
  const i = want.findIndex((w) => w.captured !== '0' && w.relays !== '0');
  const li = p.locator(`.moves li.mv[data-ply="${i + 1}"]`);
  await li.scrollIntoViewIfNeeded();
  assert.equal(await li.locator('.mtag.capture').textContent(), tIn('en', 'moves.captured', { n: Number(want[i].captured) }));
  assert.equal(await li.locator('.mtag.relay').textContent(), tIn('en', 'moves.relays', { n: Number(want[i].relays) }));
  await shot(p, 'moves-list');

  // The replay page of the finished game: the same list, and its text to download.
  await p.locator('.overlay.over a', { hasText: 'Replay' }).click();
  await p.waitForURL(/\/g\/[0-9a-f]{16}$/); // The public game id (docs/storage.md).
  const id = new URL(p.url()).pathname.slice(3);
  await p.locator('.replay .moves li.mv').first().waitFor();
  assert.deepEqual(await shown(p), want);
  const link = p.locator('.export a[download]');
  assert.equal(await link.getAttribute('href'), `/api/games/${id}.txt`);
  const [dl] = await Promise.all([p.waitForEvent('download'), link.click()]);
  const text = fs.readFileSync(await dl.path(), 'utf8');
  assert.match(text, new RegExp(`^\\[Id "${id}"\\]$`, 'm'));
  assert.match(text, /^\[Game "congkak"\]$/m);
  assert.match(text, /^\[Board "5x4"\]$/m);
  assert.match(text, new RegExp(`^\\[Result "${final.result.winner}"\\]$`, 'm'));
  assert.match(text, new RegExp(`^\\[Score "${final.result.score[0]}-${final.result.score[1]}"\\]$`, 'm'));
  await shot(p, 'replay-export');
  // In French too.
  await p.selectOption('#lang', 'fr');
  await p.locator('.export h2', { hasText: tIn('fr', 'replay.export') }).waitFor();
  assert.equal(await p.locator('.export a[download]').textContent(), tIn('fr', 'replay.download'));
  await shot(p, 'replay-export-fr');
  await p.selectOption('#lang', 'en');
  ctx.noProblems(p);
});
