// The replay page (/g/ID) at 360 x 640 and 1280 x 800: a step forward is sown from its trace (the
// board animates), Play steps through the game by itself until the end or Pause, Flip shows it
// from North, and the game's text says whose move each is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, createRoom, setSpeed, playToEnd, shot } from './harness.mjs';

const ctx = useBrowser();

for (const [width, height, locale] of [[360, 640, 'fr-FR'], [1280, 800, 'en-US']]) {
  test(`at ${width} x ${height}: the replay sows each step, plays by itself and flips`, async () => {
    const p = await ctx.page({ width, height, locale });
    await p.goto(ctx.server.base + '/');
    await createRoom(p, { game: 'congkak', houses: 4, seeds: 3, opponent: 'local' });
    await setSpeed(p, 'off');
    await playToEnd([p], { timeout: 60000 });
    const href = await p.locator('.overlay.over a.replay-link').getAttribute('href');
    await p.evaluate(() => localStorage.setItem('mc.speed', '"normal"'));
    await p.goto(ctx.server.base + href);
    await p.locator('.replay .board .pit').first().waitFor();
    const total = Number(await p.locator('.replay-controls input[type=range]').getAttribute('max'));
    assert.ok(total > 2);
    // From the start, one step forward is sown (the board animates), then shows move 1.
    await p.locator('.replay-controls .btn').first().click();
    assert.equal(await p.locator('.replay-controls input[type=range]').inputValue(), '0');
    await p.keyboard.press('ArrowRight');
    await p.locator('.replay .board.animating').waitFor({ timeout: 3000 });
    await p.waitForFunction(() => !document.querySelector('.replay .board.animating'));
    assert.equal(await p.locator('.replay-controls input[type=range]').inputValue(), '1');
    // Play: the game goes on by itself, move after move; Pause stops it.
    const play = p.locator('.replay-auto');
    await play.click();
    assert.equal(await play.getAttribute('aria-pressed'), 'true');
    await p.waitForFunction(() => Number(document.querySelector('.replay-controls input[type=range]').value) >= 3, null, { timeout: 15000 });
    await shot(p, 'replay-playing');
    await play.click();
    assert.equal(await play.getAttribute('aria-pressed'), 'false');
    const at = await p.locator('.replay-controls input[type=range]').inputValue();
    await p.waitForTimeout(1500);
    assert.equal(await p.locator('.replay-controls input[type=range]').inputValue(), at, 'paused');
    // Flip: South's first house moves to the other side of the board.
    const before = await p.locator('.pit[data-pit="0"]').boundingBox();
    await p.locator('.replay-flip').click();
    const after = await p.locator('.pit[data-pit="0"]').boundingBox();
    assert.ok(Math.abs(before.x - after.x) > 10 || Math.abs(before.y - after.y) > 10, 'the board turned');
    assert.equal(await p.locator('.replay-flip').getAttribute('aria-pressed'), 'true');
    // The text export says whose move each is.
    const txt = await p.evaluate(async (h) => (await fetch(h.replace('/g/', '/api/games/') + '.txt')).text(), href);
    const movesTag = txt.match(/^\[Moves "([^"]*)"\]$/m);
    assert.ok(movesTag, 'a Moves tag');
    const marked = movesTag[1].split(' ');
    assert.equal(marked.length, total);
    assert.ok(marked.every((m) => /^[SN][1-4]$/.test(m)), movesTag[1]);
    assert.equal(marked.map((m) => m.slice(1)).join(' '), txt.trim().split('\n').pop(), 'the same houses as the record\'s moves line');
    ctx.noProblems(p);
  });
}
