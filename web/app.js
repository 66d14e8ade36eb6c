// Entry point: the router (/, /r/CODE, /g/ID, /?how=GAME, /leaderboard/GAME, /@/NAME, /settings),
// the header with the account menu, the offline banner and the language switch. The server serves
// this same page at all of these. Only what the first page needs is loaded at first: the active
// language (i18n.js) and the module of the current view; the other views, and the account
// dialogs, are imported when first needed.
import { t, lang, setLang, initLang, LANG_NAMES, applyI18n, onLang } from './i18n.js';
import { h, clear, toast, icon } from './ui.js';
import { conn } from './net.js';
import { setRouter, errorText, playerName } from './common.js';

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
  leaderboard: () => import('./players.js').then((m) => m.LeaderboardView),
  profile: () => import('./players.js').then((m) => m.ProfileView),
  settings: () => import('./account.js').then((m) => m.SettingsView),
  notfound: async () => NotFoundView,
};

// Any other address (the server answers it with this page and status 404): says so in the
// reader's language, with the way back to the lobby.
class NotFoundView {
  constructor(root) {
    this.root = root;
    this.off = onLang(() => this.build());
    this.build();
  }

  build() {
    clear(this.root);
    document.title = t('notfound.title') + ' · Mancala Online';
    this.root.append(h('section', { class: 'card notfound', dataset: { notfound: '' } },
      h('h1', {}, t('notfound.title')),
      h('p', {}, t('notfound.body')),
      h('a', { class: 'btn primary', href: '/', 'data-link': '' }, t('notfound.home'))));
  }

  destroy() { this.off(); }
}

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
  } else if ((m = url.pathname.match(/^\/leaderboard(?:\/([a-z]+))?\/?$/))) {
    kind = 'leaderboard'; args = [m[1] || 'kalah', Number(url.searchParams.get('page')) || 1];
  } else if ((m = url.pathname.match(/^\/@\/([^/]+)\/?$/))) {
    let name = m[1];
    try { name = decodeURIComponent(name); } catch { /* shown as typed */ }
    kind = 'profile'; args = [name];
  } else if (url.pathname === '/settings') {
    kind = 'settings'; args = [];
  } else if (url.pathname === '/' || url.pathname === '/index.html') {
    kind = 'lobby'; args = [];
  } else {
    kind = 'notfound'; args = [];
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
});
// Who this connection is (a welcome, or an account made or changed) draws the header again.
conn.on('me', () => renderAccount());
// Another device (or this one in another tab) ended this account's session here.
conn.on('signed_out', (w) => toast(t('account.signed_out.' + w.reason), 'info', 7000));
// The name saved in this browser was refused (an account's, or reserved): play as a guest name.
conn.on('name_refused', (e) => toast(t('account.name_refused', { reason: errorText(e) }), 'error', 7000));

// The account area of the header: the player's name, and for a guest "Log in" (the dialogs load
// on first use), for an account a menu with the profile, the settings and "Log out".
const accountBox = document.getElementById('account');
let menuOpen = false;
function openAccount(what) {
  import('./account.js').then((m) => (what === 'signup' ? m.signupDialog() : m.loginDialog()))
    .catch(() => toast(t('err.load'), 'error', 8000));
}
function closeMenu() {
  menuOpen = false;
  const menu = accountBox.querySelector('.account-menu');
  const btn = accountBox.querySelector('.account-btn');
  if (menu) menu.hidden = true;
  if (btn) btn.setAttribute('aria-expanded', 'false');
}
export function renderAccount() {
  const who = document.getElementById('who');
  const w = conn.me;
  const acc = conn.account;
  who.textContent = w && !acc ? playerName(w.name) : '';
  who.hidden = !(w && w.name) || !!acc;
  clear(accountBox);
  menuOpen = false;
  if (!w || !conn.features.accounts) return;
  if (!acc) {
    accountBox.append(h('button', { class: 'btn small account-login', type: 'button', onclick: () => openAccount('login') }, icon('user'), h('span', { class: 'btn-text' }, t('account.login'))));
    return;
  }
  const menu = h('div', { class: 'account-menu', id: 'account-menu', hidden: true },
    h('a', { href: '/@/' + encodeURIComponent(acc.name), 'data-link': '', onclick: closeMenu }, t('account.profile')),
    h('a', { href: '/leaderboard/kalah', 'data-link': '', onclick: closeMenu }, t('lb.title')),
    h('a', { href: '/settings', 'data-link': '', onclick: closeMenu }, t('account.settings')),
    h('button', { type: 'button', class: 'account-logout', onclick: async () => {
      closeMenu();
      try { await conn.request({ type: 'logout' }); toast(t('account.logged_out'), 'ok'); } catch (e) { toast(errorText(e), 'error'); }
    } }, t('account.logout')));
  const btn = h('button', { class: 'btn small account-btn', type: 'button', 'aria-expanded': 'false', 'aria-controls': 'account-menu',
    onclick: () => { menuOpen = !menuOpen; menu.hidden = !menuOpen; btn.setAttribute('aria-expanded', String(menuOpen)); } },
  icon('user'), h('span', { class: 'account-name' }, acc.name));
  accountBox.append(btn, menu);
}
document.addEventListener('click', (e) => { if (menuOpen && !accountBox.contains(e.target)) closeMenu(); });
document.addEventListener('keydown', (e) => { if (menuOpen && e.key === 'Escape') { closeMenu(); const b = accountBox.querySelector('.account-btn'); if (b) b.focus(); } });
document.addEventListener('mc:account', (e) => openAccount(e.detail));

// Language switch in the header. The connection opens while the language loads.
conn.connect();
await initLang();
const sel = document.getElementById('lang');
for (const code of Object.keys(LANG_NAMES)) sel.append(h('option', { value: code, selected: code === lang() }, LANG_NAMES[code]));
sel.addEventListener('change', async () => {
  if (!(await setLang(sel.value))) { sel.value = lang(); toast(t('err.load'), 'error'); }
  renderAccount();
});
applyI18n(document);
const boardLink = document.querySelector('.nav-board');
if (boardLink) boardLink.prepend(icon('trophy'));
renderAccount();

route(location.pathname + location.search, false);
