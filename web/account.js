// Accounts: the sign-up and log-in dialogs, and the settings page (/settings): change the
// password, the devices logged in (each can be logged out), log out, log out everywhere, delete
// the account. Loaded on first use. The server checks
// everything (docs/protocol.md, "Accounts"); the forms only say early what it would refuse.
import { h, clear, toast, confirmDialog } from './ui.js';
import { t, onLang } from './i18n.js';
import { conn } from './net.js';
import { errorText, navigate } from './common.js';

const NAME_RE = /^[\p{L}][\p{L}\p{N}]*(?:[-_][\p{L}\p{N}]+)*$/u;

function limits() {
  const l = (conn.me && conn.me.limits) || {};
  return { name: l.account_name_chars || [3, 20], password: l.password_chars || [8, 128] };
}

// The message for a refused account request: the wait of too_many_attempts in seconds under a
// minute (the waits grow from 1 s), in minutes above; busy with a wait is the server's queue of
// password checks, not this page's last request.
export function accountError(e) {
  if (e && e.code === 'too_many_attempts' && e.retry_after_ms) {
    if (e.retry_after_ms < 60000) return t('account.retry_in_s', { n: Math.max(1, Math.ceil(e.retry_after_ms / 1000)) });
    return t('account.retry_in', { n: Math.ceil(e.retry_after_ms / 60000) });
  }
  if (e && e.code === 'busy' && e.retry_after_ms) return t('account.busy_server');
  return errorText(e);
}

// This device as the sessions page names it (sent with login and register): the browser and the
// system, read from the user agent; product names, the same in every language.
export function deviceLabel(ua = navigator.userAgent) {
  const browser = /Edg\//.test(ua) ? 'Edge' : /OPR\/|Opera/.test(ua) ? 'Opera' : /Firefox\//.test(ua) ? 'Firefox'
    : /Chromium\//.test(ua) ? 'Chromium' : /Chrome\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : 'Browser';
  const os = /Android/.test(ua) ? 'Android' : /iPhone|iPad|iPod/.test(ua) ? 'iOS' : /Windows/.test(ua) ? 'Windows'
    : /Macintosh|Mac OS X/.test(ua) ? 'macOS' : /CrOS/.test(ua) ? 'ChromeOS' : /Linux/.test(ua) ? 'Linux' : '';
  return os ? browser + ' · ' + os : browser;
}

// What the client can tell about a name before the server does ('' when it looks fine).
function nameProblem(name) {
  const [min, max] = limits().name;
  const n = Array.from(name).length;
  if (n < min || n > max) return t('account.name_length', { min, max });
  if (!NAME_RE.test(name)) return t('account.name_rules');
  return '';
}

function passwordProblem(pw) {
  const [min, max] = limits().password;
  const n = Array.from(pw).length;
  return n < min || n > max ? t('account.password_length', { min, max }) : '';
}

let seq = 0;
// A labelled field of a form, its input and a line for its error.
function field(label, attrs) {
  const id = 'acc-' + ++seq;
  const err = h('span', { class: 'field-error', id: id + '-err', role: 'alert' });
  const input = h('input', { class: 'input', id, 'aria-describedby': id + '-err', ...attrs });
  const box = h('label', { class: 'field', for: id }, h('span', {}, label), input, err);
  return { box, input, err, set(msg) { err.textContent = msg || ''; input.setAttribute('aria-invalid', msg ? 'true' : 'false'); } };
}

// A modal form in the page's dialog: build(form) fills it and returns {first, submit(done)}; the
// dialog stays open while submit runs and until it calls done().
function formDialog(title, build) {
  const dlg = document.getElementById('dialog');
  clear(dlg);
  const status = h('p', { class: 'form-error', role: 'alert' });
  const form = h('form', { class: 'dlg-form account-form', novalidate: true });
  const head = h('h2', { class: 'dlg-title', id: 'dlg-title' }, title);
  const close = () => { if (dlg.open) dlg.close(); };
  const parts = build({ form, status, close });
  let busy = false;
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (busy) return;
    status.textContent = '';
    busy = true;
    const btn = form.querySelector('button[type=submit]');
    if (btn) btn.disabled = true;
    try { await parts.submit(); } finally {
      busy = false;
      if (btn) btn.disabled = false;
    }
  });
  dlg.append(head, form);
  // The form's error above its buttons, where the eye is after pressing one.
  const actions = form.querySelector('.dlg-actions');
  if (actions) form.insertBefore(status, actions);
  else form.append(status);
  dlg.setAttribute('aria-labelledby', 'dlg-title');
  dlg.onclose = null;
  dlg.showModal();
  if (parts.first) parts.first.focus();
}

export function loginDialog() {
  formDialog(t('account.login_title'), ({ form, status, close }) => {
    const name = field(t('account.name'), { autocomplete: 'username', name: 'username', maxlength: '24', required: true, spellcheck: 'false', autocapitalize: 'off' });
    const pw = field(t('account.password'), { type: 'password', autocomplete: 'current-password', name: 'password', required: true, maxlength: '128' });
    form.append(name.box, pw.box,
      h('p', { class: 'dlg-note' }, t('account.no_account') + ' ',
        h('button', { type: 'button', class: 'link-btn', onclick: () => signupDialog() }, t('account.signup'))),
      h('div', { class: 'dlg-actions' },
        h('button', { class: 'btn ghost', type: 'button', onclick: close }, t('common.cancel')),
        h('button', { class: 'btn primary', type: 'submit' }, t('account.login'))));
    return {
      first: name.input,
      async submit() {
        const n = name.input.value.trim(), p = pw.input.value;
        name.set(n ? '' : t('account.required'));
        pw.set(p ? '' : t('account.required'));
        if (!n || !p) return;
        // The account's seats come back right after the welcome (joined, then state, per room);
        // the games still to play are those whose state is not finished.
        const seats = [], live = new Set();
        const offs = [conn.on('joined', (j) => { if (j.room && j.role === 'player') seats.push(j.room.toUpperCase()); }),
          conn.on('state', (s) => { if (s.room && s.status !== 'finished') live.add(s.room.toUpperCase()); })];
        try {
          const w = await conn.request({ type: 'login', name: n, password: p, device: deviceLabel() });
          if (!w) { status.textContent = t('err.timeout'); return; }
          close();
          await new Promise((r) => setTimeout(r, 150));
          const games = seats.filter((r) => live.has(r));
          toast(games.length ? t('account.welcome_back_games', { name: w.name, n: games.length }) : t('account.welcome_back', { name: w.name }), 'ok', 5000);
          // One game in progress: straight back to it; several: the first (the lobby lists them).
          // A finished game whose room is still open is no reason to leave this page.
          if (games.length && !location.pathname.startsWith('/r/' + games[0])) navigate('/r/' + games[0]);
        } catch (e) {
          status.textContent = accountError(e);
          if (e.code === 'bad_credentials') { pw.input.value = ''; pw.input.focus(); }
        } finally { for (const off of offs) off(); }
      },
    };
  });
}

export function signupDialog() {
  formDialog(t('account.signup_title'), ({ form, status, close }) => {
    const [min, max] = limits().name;
    const current = conn.me && !conn.account ? conn.me.name || '' : '';
    const name = field(t('account.name'), { autocomplete: 'username', name: 'username', maxlength: String(max), required: true, spellcheck: 'false', autocapitalize: 'off',
      value: nameProblem(current) ? '' : current });
    const pw = field(t('account.password'), { type: 'password', autocomplete: 'new-password', name: 'new-password', required: true, maxlength: '128' });
    const pw2 = field(t('account.password_again'), { type: 'password', autocomplete: 'new-password', required: true, maxlength: '128' });
    form.append(
      h('p', { class: 'dlg-note' }, t('account.signup_body')),
      name.box, h('p', { class: 'field-hint' }, t('account.name_hint', { min, max })),
      pw.box, pw2.box,
      h('p', { class: 'dlg-note' }, t('account.have_account') + ' ',
        h('button', { type: 'button', class: 'link-btn', onclick: () => loginDialog() }, t('account.login'))),
      h('div', { class: 'dlg-actions' },
        h('button', { class: 'btn ghost', type: 'button', onclick: close }, t('common.cancel')),
        h('button', { class: 'btn primary', type: 'submit' }, t('account.signup'))));
    return {
      first: name.input,
      async submit() {
        const n = name.input.value.trim().normalize('NFC'), p = pw.input.value;
        name.set(nameProblem(n));
        pw.set(passwordProblem(p));
        pw2.set(p === pw2.input.value ? '' : t('account.password_mismatch'));
        if (form.querySelector('[aria-invalid=true]')) { form.querySelector('[aria-invalid=true]').focus(); return; }
        try {
          const r = await conn.request({ type: 'register', name: n, password: p, device: deviceLabel() });
          if (!r) { status.textContent = t('err.timeout'); return; }
          close();
          toast(t('account.created', { name: r.name }), 'ok', 6000);
        } catch (e) {
          if (e.field === 'name') { name.set(accountError(e)); name.input.focus(); }
          else if (e.field === 'password') { pw.set(accountError(e)); pw.input.focus(); }
          else status.textContent = accountError(e);
        }
      },
    };
  });
}

// Asks for the password before something that needs it (delete). Resolves with it, or null.
function passwordPrompt(title, body, okKey) {
  return new Promise((resolve) => {
    formDialog(title, ({ form, close }) => {
      const pw = field(t('account.password'), { type: 'password', autocomplete: 'current-password', required: true, maxlength: '128' });
      let done = false;
      const dlg = document.getElementById('dialog');
      dlg.onclose = () => { if (!done) resolve(null); };
      form.append(h('p', { class: 'dlg-note' }, body), pw.box,
        h('div', { class: 'dlg-actions' },
          h('button', { class: 'btn ghost', type: 'button', onclick: close }, t('common.cancel')),
          h('button', { class: 'btn danger', type: 'submit' }, t(okKey))));
      return {
        first: pw.input,
        async submit() {
          if (!pw.input.value) { pw.set(t('account.required')); return; }
          done = true;
          const v = pw.input.value;
          close();
          resolve(v);
        },
      };
    });
  });
}

// /settings: the account's name and what it can do with it; a guest is offered to sign up.
export class SettingsView {
  constructor(main) {
    this.main = main;
    this.offs = [onLang(() => this.build()), conn.on('me', () => this.build())];
    this.build();
  }

  destroy() { for (const f of this.offs) f(); }

  build() {
    clear(this.main);
    document.title = t('account.settings') + ' · Mancala Online';
    const acc = conn.account;
    if (!acc) {
      this.main.append(h('section', { class: 'card settings' },
        h('h1', {}, t('account.settings')),
        h('p', {}, conn.ready ? t('account.guest_body') : t('room.loading')),
        conn.ready ? h('div', { class: 'dlg-actions start' },
          h('button', { class: 'btn primary', type: 'button', onclick: () => signupDialog() }, t('account.signup')),
          h('button', { class: 'btn', type: 'button', onclick: () => loginDialog() }, t('account.login'))) : null));
      return;
    }
    const cur = field(t('account.current_password'), { type: 'password', autocomplete: 'current-password', maxlength: '128' });
    const next = field(t('account.new_password'), { type: 'password', autocomplete: 'new-password', maxlength: '128' });
    const again = field(t('account.password_again'), { type: 'password', autocomplete: 'new-password', maxlength: '128' });
    const status = h('p', { class: 'form-error', role: 'alert' });
    const change = h('form', { class: 'account-form', novalidate: true, onsubmit: async (e) => {
      e.preventDefault();
      status.textContent = '';
      cur.set(cur.input.value ? '' : t('account.required'));
      next.set(passwordProblem(next.input.value));
      again.set(next.input.value === again.input.value ? '' : t('account.password_mismatch'));
      if (change.querySelector('[aria-invalid=true]')) return;
      const btn = change.querySelector('button[type=submit]');
      btn.disabled = true;
      try {
        await conn.request({ type: 'change_password', password: cur.input.value, new_password: next.input.value });
        for (const f of [cur, next, again]) f.input.value = '';
        toast(t('account.password_changed'), 'ok', 6000);
      } catch (err) {
        if (err.code === 'bad_credentials') cur.set(accountError(err));
        else if (err.field === 'new_password') next.set(accountError(err));
        else status.textContent = accountError(err);
      } finally { btn.disabled = false; }
    } },
    cur.box, next.box, again.box, status,
    h('button', { class: 'btn primary', type: 'submit' }, t('account.change_password')));
    this.main.append(h('section', { class: 'settings' },
      h('h1', {}, t('account.settings')),
      h('div', { class: 'card settings-who' },
        h('p', {}, t('account.signed_in_as'), ' ', h('a', { href: '/@/' + encodeURIComponent(acc.name), 'data-link': '' }, h('b', {}, acc.name))),
        h('div', { class: 'dlg-actions start' },
          h('button', { class: 'btn', type: 'button', onclick: () => this.logout() }, t('account.logout')))),
      h('div', { class: 'card' }, h('h2', {}, t('account.change_password')), change),
      h('div', { class: 'card sessions' }, h('h2', {}, t('account.sessions')),
        h('p', { class: 'muted' }, t('account.sessions_body')),
        this.sessionList = h('ul', { class: 'session-list', 'aria-live': 'polite' }, h('li', { class: 'muted' }, t('room.loading'))),
        h('p', { class: 'muted' }, t('account.logout_all_body')),
        h('button', { class: 'btn logout-all', type: 'button', onclick: () => this.logoutAll() }, t('account.logout_all'))),
      h('div', { class: 'card danger-zone' }, h('h2', {}, t('account.delete')),
        h('p', { class: 'muted' }, t('account.delete_body')),
        h('button', { class: 'btn danger', type: 'button', onclick: () => this.remove() }, t('account.delete')))));
    this.loadSessions();
  }

  // The account's sessions from the server, into the list (a newer build's list wins).
  async loadSessions() {
    const list = this.sessionList;
    try {
      const r = await conn.request({ type: 'sessions' });
      if (r && list === this.sessionList) this.renderSessions(r.sessions || []);
    } catch (e) {
      if (list !== this.sessionList) return;
      clear(list);
      list.append(h('li', { class: 'form-error' }, accountError(e)));
    }
  }

  // One line per session, the most recently used first: its device, when it was last used and
  // made, this device marked, the others with a button that logs them out.
  renderSessions(sessions) {
    const list = this.sessionList;
    clear(list);
    const when = (ms) => new Date(ms).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
    for (const s of sessions) {
      list.append(h('li', { class: 'session' + (s.current ? ' current' : ''), dataset: { session: s.id } },
        h('div', { class: 'session-info' },
          h('b', { class: 'session-device' }, s.device || t('account.device_unknown')),
          s.current ? h('span', { class: 'tag' }, t('account.this_device')) : null,
          h('small', {}, t('account.session_seen', { date: when(s.seen) }) + ' · ' + t('account.session_created', { date: when(s.created) }))),
        s.current ? null : h('button', { class: 'btn small', type: 'button', 'aria-label': t('account.revoke_device', { device: s.device || t('account.device_unknown') }),
          onclick: () => this.revoke(s) }, t('account.revoke'))));
    }
  }

  async revoke(s) {
    try {
      const r = await conn.request({ type: 'revoke_session', session: s.id });
      toast(t('account.revoked', { device: s.device || t('account.device_unknown') }), 'ok');
      if (r) this.renderSessions(r.sessions || []);
    } catch (e) {
      toast(accountError(e), 'error');
      this.loadSessions();
    }
  }

  async logout() {
    try { await conn.request({ type: 'logout' }); toast(t('account.logged_out'), 'ok'); navigate('/'); } catch (e) { toast(accountError(e), 'error'); }
  }

  async logoutAll() {
    if (!(await confirmDialog(t('account.logout_all'), t('account.logout_all_confirm'), 'account.logout_all'))) return;
    try { await conn.request({ type: 'logout_all' }); toast(t('account.logged_out_all'), 'ok', 6000); navigate('/'); } catch (e) { toast(accountError(e), 'error'); }
  }

  async remove() {
    const pw = await passwordPrompt(t('account.delete'), t('account.delete_confirm'), 'account.delete');
    if (pw === null) return;
    try {
      await conn.request({ type: 'delete_account', password: pw });
      toast(t('account.deleted'), 'ok', 7000);
      navigate('/');
    } catch (e) { toast(accountError(e), 'error', 6000); }
  }
}
