// Shared pieces of the browser end-to-end tests: the real server on a free port of 127.0.0.1,
// Debian's chromium driven by playwright-core, console error collection and screenshots.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WEB = path.resolve(here, '../../web');
export const ARTIFACTS = path.resolve(here, '../artifacts');

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// Starts MANCALA_SERVER with --port 0 and resolves once its log names the port it listens on.
export function startServer({ port = 0 } = {}) {
  const bin = process.env.MANCALA_SERVER;
  if (!bin) throw new Error('MANCALA_SERVER is not set: the path of the mancala-server binary');
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--web', WEB];
  // Every page of a suite comes from 127.0.0.1, and a test may open many games against the
  // computer one after the other: the per-player and per-address caps (3 and 12 unfinished games)
  // would refuse them.
  if (!bin.endsWith('.mjs') && !bin.endsWith('.js'))
    args.push('--computer-games-per-player', '1000', '--computer-games-per-ip', '100000');
  // A fresh data directory per server, removed when it stops.
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-e2e-data-'));
  const env = { ...process.env, MANCALA_DATA: data };
  const child = bin.endsWith('.mjs') || bin.endsWith('.js') ? spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env })
    : spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  const cleanup = () => fs.rmSync(data, { recursive: true, force: true });
  let log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not report its port:\n' + log)), 15000);
    const onData = (d) => {
      log += d;
      const m = log.match(/listening[^\n]*?:(\d{2,5})\b/i) || log.match(/\bport[ =:]+([1-9]\d{1,4})\b/i);
      if (m) {
        clearTimeout(timer);
        const port = Number(m[1]);
        resolve({
          port, base: `http://127.0.0.1:${port}`, get log() { return log; },
          stop: () => new Promise((res) => {
            if (child.exitCode !== null) { cleanup(); return res(); }
            child.once('exit', () => { cleanup(); res(); });
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 5000).unref();
          }),
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => { clearTimeout(timer); cleanup(); reject(new Error('server exited with ' + code + ':\n' + log)); });
  });
}

export async function launch() {
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}

// A fresh browser context (its own localStorage, like another person) with one page whose console
// errors and uncaught exceptions are collected in page.problems. reducedMotion: 'reduce' emulates
// the system setting; init: scripts run before the page's own.
// bypassCSP: scripts may be added to the page (axe-core, in the axe test).
export async function newPage(browser, { width = 1280, height = 800, locale = 'en-US', reducedMotion = 'no-preference', init = [], bypassCSP = false } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, locale, reducedMotion, bypassCSP, permissions: ['clipboard-read', 'clipboard-write'] });
  for (const f of init) await context.addInitScript(f);
  const page = await context.newPage();
  page.problems = [];
  page.allowed = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const text = m.text();
    if (page.allowed.some((re) => re.test(text))) return;
    page.problems.push('console: ' + text);
  });
  page.on('pageerror', (e) => page.problems.push('exception: ' + e.message));
  // Generous: several Chromium pages, the server under ASan and other tests share two cores, and a
  // page load took over 15 s on a loaded machine. A wait that never ends still fails.
  page.setDefaultTimeout(30000);
  page.setDefaultNavigationTimeout(60000);
  return page;
}

export async function shot(page, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const { width } = page.viewportSize();
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${width}.png`), fullPage: false });
}

// Fills the lobby's create form and submits it; resolves with the room code from the new URL.
export async function createRoom(page, { game = 'kalah', houses, seeds, opponent = 'human', visibility = 'public', clock = 0 }) {
  await page.locator(`label[for="f-game-${game}"]`).click();
  if (houses) await page.selectOption('select[name=houses]', String(houses));
  if (seeds) await page.selectOption('select[name=seeds]', String(seeds));
  await page.locator(`label[for="f-clock-${clock}"]`).click();
  await page.locator(`label[for="f-opponent-${opponent}"]`).click();
  if (opponent === 'human') await page.locator(`label[for="f-visibility-${visibility}"]`).click();
  await page.locator('.create-form button[type=submit]').click();
  await page.waitForURL(/\/r\/[A-Z2-9]{6}$/);
  return new URL(page.url()).pathname.slice(3);
}

export async function setSpeed(page, speed) {
  await page.selectOption('select.speed', speed);
}

// Clicks a glowing house on whichever page has one until a game-over panel shows. Returns the number
// of clicks.
export async function playToEnd(pages, { pick = 'first', timeout = 90000 } = {}) {
  const end = Date.now() + timeout;
  let clicks = 0;
  while (Date.now() < end) {
    for (const p of pages) if (await p.locator('.overlay.over').count()) return clicks;
    let moved = false;
    for (const p of pages) {
      const legal = p.locator('.board .house.legal');
      const n = await legal.count();
      if (n > 0) {
        const i = pick === 'random' ? Math.floor(Math.random() * n) : 0;
        try { await legal.nth(i).click({ timeout: 2000 }); clicks++; moved = true; } catch { /* re-rendered meanwhile */ }
        break;
      }
    }
    if (!moved) await pages[0].waitForTimeout(40);
  }
  throw new Error('the game did not end in time');
}

// One server and one browser for the tests of a file: ctx.server, ctx.page(opts) (closed at the
// end), ctx.noProblems(...pages).
export function useBrowser() {
  const ctx = { server: null, browser: null, pages: [] };
  before(async () => {
    ctx.server = await startServer();
    ctx.browser = await launch();
  });
  after(async () => {
    for (const p of ctx.pages) await p.context().close().catch(() => {});
    if (ctx.browser) await ctx.browser.close();
    if (ctx.server) await ctx.server.stop();
  });
  ctx.page = async (opts) => {
    const p = await newPage(ctx.browser, opts);
    ctx.pages.push(p);
    return p;
  };
  ctx.noProblems = (...ps) => { for (const p of ps) assert.deepEqual(p.problems, [], 'console errors or exceptions'); };
  return ctx;
}

// The state frames the page receives from the server, in order (as the server sent them, before
// any route changes them).
export function recordStates(page) {
  const states = [];
  page.on('websocket', (ws) => ws.on('framereceived', (f) => {
    try { const m = JSON.parse(f.payload); if (m && m.type === 'state') states.push(m); } catch { /* not JSON */ }
  }));
  return states;
}

// An init script: document.visibilityState and document.hidden follow window.__setHidden(bool),
// which also fires visibilitychange (a headless page is always visible otherwise).
export function hideable() {
  let hidden = false;
  Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get() { return hidden ? 'hidden' : 'visible'; } });
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get() { return hidden; } });
  window.__setHidden = (v) => { hidden = !!v; document.dispatchEvent(new Event('visibilitychange')); };
}

// An init script: counts the oscillators the page starts (window.__tones) and lists the sounds it
// announces (window.__sounds, from the client's mc:sound events).
export function listenSounds() {
  window.__tones = 0;
  window.__sounds = [];
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...a) { window.__tones++; return start.apply(this, a); };
  document.addEventListener('mc:sound', (e) => window.__sounds.push(e.detail.name));
}

// Answers the name prompt a person gets when they open an invite link to a room with a free seat.
export async function acceptInvite(page, name) {
  const dlg = page.locator('dialog[open]');
  await dlg.locator('input').waitFor();
  if (name !== undefined) await dlg.locator('input').fill(name);
  await dlg.locator('button[type=submit]').click();
  await page.locator('.pbar.near .tag.you').waitFor();
}

// The first legal house of the page (or null): its pit index and house number.
export async function firstLegal(page) {
  return page.evaluate(() => {
    const el = document.querySelector('.board .house.legal');
    if (!el) return null;
    return { pit: Number(el.dataset.pit), label: el.getAttribute('aria-label') };
  });
}
