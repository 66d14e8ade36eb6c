// The lobby's first-load weight, as the browser counts it: a fresh Chromium context (empty cache)
// opens / in each language, waits for the lobby to be drawn, and reads the Resource Timing entries
// (the navigation and every resource): bytes transferred (headers included) and body bytes. Prints
// one line per language and the files of the first; no assertion, a measurement.
//
//   node bench/web-weight.mjs [SERVER_BINARY] [WEB_DIR]
//
// SERVER_BINARY defaults to build-test/bin/mancala-server (or $MANCALA_SERVER), WEB_DIR to web/.
// Pointing WEB_DIR at another checkout's web/ measures that client with the same server.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '../tests/node_modules/playwright-core/index.mjs';

// The servers a benchmark starts build no endgame tables (issue 24: a fresh install builds them
// in the background, minutes of one core and ~80 MB): figures are of the server's steady state.
process.env.MANCALA_EGTB_BUILD ??= 'off';

const top = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = process.argv[2] || process.env.MANCALA_SERVER || path.join(top, 'build-test/bin/mancala-server');
const web = path.resolve(process.argv[3] || path.join(top, 'web'));

function start() {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-weight-'));
  const child = spawn(bin, ['--port', '0', '--bind', '127.0.0.1', '--data', data, '--web', web], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      log += d;
      const m = log.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve({ child, data, base: 'http://127.0.0.1:' + m[1] });
    });
    child.once('exit', (c) => reject(new Error('server exited ' + c + '\n' + log)));
  });
}

const server = await start();
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'] });
try {
  console.log(`web: ${web}`);
  for (const locale of ['en-US', 'fr-FR', 'pt-BR', 'ru-RU', 'pl-PL']) {
    const context = await browser.newContext({ locale, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(server.base + '/');
    await page.locator('.games .game-card').first().waitFor();
    await page.locator('.rooms').waitFor();
    await page.waitForLoadState('networkidle');
    const entries = await page.evaluate(() => [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
      .map((e) => ({ name: new URL(e.name).pathname, transfer: e.transferSize, body: e.encodedBodySize, decoded: e.decodedBodySize })));
    const sum = (k) => entries.reduce((a, e) => a + e[k], 0);
    console.log(`${locale}: ${entries.length} requests, ${sum('transfer')} bytes transferred, ${sum('body')} bytes of bodies (${sum('decoded')} decoded)`);
    if (locale === 'en-US' || locale === 'fr-FR') {
      for (const e of entries.sort((a, b) => b.transfer - a.transfer)) console.log(`  ${String(e.transfer).padStart(7)}  ${e.name}`);
    }
    await context.close();
  }
} finally {
  await browser.close();
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
  fs.rmSync(server.data, { recursive: true, force: true });
}
