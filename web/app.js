// Entry point: the router (/, /r/CODE, /g/ID, /?how=GAME), the header, the offline banner and the
// language switch. The server serves this same page at / and /r/CODE. Only what the first page
// needs is loaded at first: the active language (i18n.js) and the module of the current view; the
// other views are imported when the router first needs them.
import { t, lang, setLang, initLang, LANG_NAMES, applyI18n } from './i18n.js';
import { h, toast } from './ui.js';
import { conn } from './net.js';
import { setRouter } from './common.js';

const main = document.getElementById('main');
const banner = document.getElementById('offline');
let view = null;
let routed = 0;
const lastStates = new Map();

conn.on('state', (s) => { if (s.room) lastStates.set(s.room.toUpperCase(), s); });

const VIEWS = {
  lobby: () => import('./lobby.js').then((m) => m.LobbyView),
  room: () => import('./room.js').then((m) => m.RoomView),
  replay: () => import('./replay.js').then((m) => m.ReplayView),
  how: () => import('./howto.js').then((m) => m.HowView),
};

// After an in-page navigation, focus goes to the new page's main heading (or the main region), so
// that a screen reader starts reading the new page and Tab starts from its top.
function focusHeading() {
  const h1 = main.querySelector('h1');
  const target = h1 || main;
  if (h1 && !h1.hasAttribute('tabindex')) h1.tabIndex = -1;
  target.focus({ preventScroll: true });
}

async function route(path, push) {
  if (push) history.pushState(null, '', path);
  const url = new URL(location.href);
  const seq = ++routed;
  if (view) { view.destroy(); view = null; }
  window.scrollTo(0, 0);
  let m, kind, args;
  if ((m = url.pathname.match(/^\/r\/([A-Za-z0-9]{4,12})\/?$/))) {
    const code = m[1].toUpperCase();
    // The first page of this visit being a room means someone opened a link to it (an invite).
    kind = 'room'; args = [code, lastStates.get(code), { invite: seq === 1 }];
  } else if ((m = url.pathname.match(/^\/g\/([A-Za-z0-9_-]{1,64})\/?$/)) || (m = [null, url.searchParams.get('g')])[1]) {
    kind = 'replay'; args = [m[1]];
  } else if (url.searchParams.get('how')) {
    kind = 'how'; args = [url.searchParams.get('how')];
  } else {
    kind = 'lobby'; args = [];
  }
  let View;
  try { View = await VIEWS[kind](); } catch {
    if (seq === routed) toast(t('err.load'), 'error', 8000);
    return;
  }
  if (seq !== routed) return; // another navigation came first
  view = new View(main, ...args);
  document.body.dataset.view = kind;
  if (seq > 1) focusHeading();
}
setRouter(route);

// Internal links change the view without reloading the page.
document.addEventListener('click', (e) => {
  const a = e.target.closest && e.target.closest('a[data-link]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin) return;
  e.preventDefault();
  if (url.pathname + url.search !== location.pathname + location.search) route(url.pathname + url.search, true);
});
window.addEventListener('popstate', () => route(location.pathname + location.search, false));

// Offline banner: shown while the connection is down, with the retry in progress.
let offlineTimer = null;
conn.on('offline', () => {
  clearTimeout(offlineTimer);
  offlineTimer = setTimeout(() => { banner.hidden = false; document.body.classList.add('is-offline'); }, conn.everConnected ? 300 : 1500);
});
conn.on('online', ({ resumed }) => {
  clearTimeout(offlineTimer);
  const wasShown = !banner.hidden;
  banner.hidden = true;
  document.body.classList.remove('is-offline');
  if (resumed && wasShown) toast(t('net.back'), 'ok');
});
conn.on('bye', () => {
  banner.querySelector('[data-i18n]').dataset.i18n = 'net.bye';
  banner.querySelector('[data-i18n]').textContent = t('net.bye');
});
conn.on('welcome', (w) => {
  const msg = banner.querySelector('[data-i18n]');
  msg.dataset.i18n = 'net.offline';
  msg.textContent = t('net.offline');
  const who = document.getElementById('who');
  who.textContent = w.name || '';
  who.hidden = !w.name;
});

// Language switch in the header. The connection opens while the language loads.
conn.connect();
await initLang();
const sel = document.getElementById('lang');
for (const code of Object.keys(LANG_NAMES)) sel.append(h('option', { value: code, selected: code === lang() }, LANG_NAMES[code]));
sel.addEventListener('change', async () => {
  if (!(await setLang(sel.value))) { sel.value = lang(); toast(t('err.load'), 'error'); }
});
applyI18n(document);

route(location.pathname + location.search, false);
