// Page weight: the lobby's first load brings only the active language and the lobby's own modules;
// other languages and views come when they are needed.
// The bytes transferred (Resource Timing, gzipped) are printed and kept under 100 KB;
// bench/web-weight.mjs measures them in every language.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, createRoom } from './harness.mjs';

const ctx = useBrowser();

const loaded = (p) => p.evaluate(() => [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
  .map((e) => ({ name: new URL(e.name).pathname, bytes: e.transferSize })));
const files = (list, re) => list.map((e) => e.name).filter((n) => re.test(n)).sort();

test('the lobby loads one language and its own modules; the rest comes on demand', async (t) => {
  for (const [locale, langs] of [['en-US', ['/lang-en.js']], ['fr-FR', ['/lang-fr.js']], ['pl-PL', ['/lang-pl.js']]]) {
    const p = await ctx.page({ locale });
    await p.goto(ctx.server.base + '/');
    await p.locator('.games .game-card').first().waitFor();
    await p.locator('.rooms').waitFor();
    await p.waitForLoadState('networkidle');
    const first = await loaded(p);
    assert.deepEqual(files(first, /^\/lang-/), langs, locale);
    assert.deepEqual(files(first, /^\/(room|replay|howto|rules|sound|alerts)\.js$/), [], `${locale}: only the lobby's modules`);
    const bytes = first.reduce((a, e) => a + e.bytes, 0);
    t.diagnostic(`${locale}: first load of the lobby ${first.length} requests, ${bytes} bytes transferred`);
    assert.ok(bytes < 100 * 1024, `${locale}: the lobby's first load is ${bytes} bytes, over 100 KB`);
    if (locale === 'en-US') {
      // Another language when it is picked; the room's modules when a room opens.
      await p.selectOption('#lang', 'ru');
      await p.locator('html[lang="ru"]').waitFor();
      assert.deepEqual(files(await loaded(p), /^\/lang-/), ['/lang-en.js', '/lang-ru.js']);
      await p.selectOption('#lang', 'en');
      await createRoom(p, { game: 'kalah', opponent: 'local' });
      await p.locator('.board .house').first().waitFor();
      // Resource Timing lists a file a moment after it has run: give it that moment.
      const room = /^\/(room|rules|sound|alerts|replay|howto)\.js$/;
      await p.waitForFunction(() => performance.getEntriesByType('resource').filter((e) => /\/(room|rules|sound|alerts)\.js$/.test(e.name)).length >= 4, null, { timeout: 5000 }).catch(() => {});
      assert.deepEqual(files(await loaded(p), room), ['/alerts.js', '/room.js', '/rules.js', '/sound.js']);
    }
    ctx.noProblems(p);
    await p.context().close();
  }
});
