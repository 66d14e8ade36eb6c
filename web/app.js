// Entry point: the router (/, /r/CODE, /g/ID, /?how=GAME), the header, the offline banner and the
// language switch. The server serves this same page at / and /r/CODE.
import { t, lang, setLang, LANGS, LANG_NAMES, applyI18n } from './i18n.js';
import { h } from './ui.js';
import { conn } from './net.js';
import { setRouter } from './common.js';
import { LobbyView } from './lobby.js';
import { RoomView } from './room.js';
import { ReplayView } from './replay.js';
import { HowView } from './howto.js';

const main = document.getElementById('main');
const banner = document.getElementById('offline');
let view = null;
const lastStates = new Map();

conn.on('state', (s) => { if (s.room) lastStates.set(s.room.toUpperCase(), s); });

function route(path, push) {
  if (push) history.pushState(null, '', path);
  const url = new URL(location.href);
  if (view) { view.destroy(); view = null; }
  window.scrollTo(0, 0);
  let m;
  if ((m = url.pathname.match(/^\/r\/([A-Za-z0-9]{4,12})\/?$/))) {
    const code = m[1].toUpperCase();
    view = new RoomView(main, code, lastStates.get(code));
  } else if ((m = url.pathname.match(/^\/g\/([A-Za-z0-9_-]{1,64})\/?$/)) || (m = [null, url.searchParams.get('g')])[1]) {
    view = new ReplayView(main, m[1]);
  } else if (url.searchParams.get('how')) {
    view = new HowView(main, url.searchParams.get('how'));
  } else {
    view = new LobbyView(main);
  }
  document.body.dataset.view = view.constructor.name.replace('View', '').toLowerCase();
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
  if (resumed && wasShown) {
    import('./ui.js').then(({ toast }) => toast(t('net.back'), 'ok'));
  }
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

// Language switch in the header.
const sel = document.getElementById('lang');
for (const code of Object.keys(LANGS)) sel.append(h('option', { value: code, selected: code === lang() }, LANG_NAMES[code]));
sel.addEventListener('change', () => setLang(sel.value));
applyI18n(document);

route(location.pathname + location.search, false);
conn.connect();
