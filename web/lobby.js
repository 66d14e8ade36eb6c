// The lobby: name, my games in progress (my_rooms, with Resume), quick play per game and time control
// (the pools, with how many wait in each, live), create a room, join by code, the live list of public
// rooms and my recent games.
import { h, clear, toast, storage, store, clockLabel, GAMES, DEFAULTS } from './ui.js';
import { t, onLang } from './i18n.js';
import { conn } from './net.js';
import { errorText, gameTitle, optionsText, recentGames, navigate, playerName, scoreText, rememberSeek } from './common.js';
import { Board } from './board.js';
import { LobbyList } from './lobbylist.js';

const CLOCKS = [null, [1, 0], [3, 2], [5, 3], [10, 5], [30, 20], 'custom'];
// Rated quick play needs a clock: 5 minutes and 3 seconds a move.
const RATED_CLOCK = { initial_ms: 300000, increment_ms: 3000 };
// Quick play's pools: per game, untimed and these time controls (minutes + seconds a move).
const POOLS = [null, [1, 0], [3, 2], [5, 3], [10, 5]];
const poolKey = (c) => (c ? c[0] + '+' + c[1] : 'untimed');
const poolClock = (c) => (c ? { initial_ms: c[0] * 60000, increment_ms: c[1] * 1000 } : null);
const CODE_RE = /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{6}$/;

export class LobbyView {
  constructor(main) {
    this.main = main;
    this.rooms = null;
    this.pools = null;   // the lobby's pools: {game, clock, waiting}
    this.mine = null;    // my games in progress (my_rooms)
    this.offs = [];
    this.form = storage('mc.create', { game: 'kalah', houses: 6, seeds: 4, options: {}, clock: 0, custom: [5, 3], visibility: 'public', seat: 'random', opponent: 'human', level: 3 });
    this.build();
    // The list comes once, then as changes (lobby_changes): a missing revision asks for it again.
    this.list = new LobbyList();
    const onList = (m) => {
      const r = this.list.apply(m);
      if (r === 'resync') { conn.send({ type: 'lobby', changes: true }); return; }
      if (!r) return;
      this.rooms = this.list.list();
      this.renderRooms();
      if (Array.isArray(m.pools)) { this.pools = this.list.pools; this.renderPools(); }
    };
    this.offs.push(conn.on('lobby', onList));
    this.offs.push(conn.on('lobby_changes', onList));
    this.offs.push(conn.on('my_rooms', (m) => { if (Array.isArray(m.rooms)) { this.mine = m.rooms; this.renderMine(); } }));
    this.offs.push(conn.on('online', () => { this.watch(); this.renderForm(); this.showComputer(); }));
    this.offs.push(conn.on('me', () => { this.renderAccount(); this.renderForm(); }));
    this.offs.push(conn.on('welcome', (w) => {
      this.fetchArchive();
      this.showComputer();
      if (this.nameInput && !this.nameInput.value && document.activeElement !== this.nameInput) this.nameInput.value = w.name || '';
    }));
    this.offs.push(onLang(() => this.build()));
    if (conn.ready) { this.watch(); this.fetchArchive(); }
  }

  destroy() {
    for (const f of this.offs) f();
    if (conn.ready) { conn.send({ type: 'lobby', watch: false }); conn.send({ type: 'my_rooms', watch: false }); }
  }

  watch() { conn.send({ type: 'lobby', changes: true }); conn.send({ type: 'my_rooms' }); }

  build() {
    this.cpuButtons = [];
    clear(this.main);
    document.title = 'Mancala Online';
    this.nameInput = h('input', { class: 'input', id: 'name', maxlength: '24', autocomplete: 'nickname', value: conn.name || (conn.me && conn.me.name) || '', placeholder: t('lobby.name_placeholder') });
    const saveName = () => {
      const v = this.nameInput.value.trim().replace(/\s+/g, ' ');
      if (!v || v === conn.name) return;
      conn.name = v;
      conn.restart();
      toast(t('lobby.name_saved', { name: v }), 'ok');
    };
    this.nameInput.addEventListener('change', saveName);
    this.nameInput.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); saveName(); } });
    this.codeInput = h('input', { class: 'input mono code-input', maxlength: '6', autocomplete: 'off', spellcheck: 'false', placeholder: 'K7QX2M', 'aria-label': t('lobby.code') });
    this.roomsBox = h('div', { class: 'rooms', 'aria-live': 'polite' });
    this.recentBox = h('div', { class: 'recent' });
    this.formBox = h('form', { class: 'create-form', onsubmit: (e) => { e.preventDefault(); this.create(); } });
    this.mineBox = h('div', { class: 'mine-list' });
    this.mineSection = h('section', { class: 'card in-progress', hidden: true, 'aria-labelledby': 'in-progress-title' },
      h('h2', { id: 'in-progress-title' }, t('lobby.in_progress')), this.mineBox);
    this.poolBtns = new Map();
    const gameCard = (g) => {
      const mini = h('div', { class: 'board' });
      const b = new Board(mini, { mini: true });
      const d = DEFAULTS[g];
      b.setup(g, d.houses, 'south');
      const pits = new Array(2 * d.houses + 2).fill(g === 'congkak' ? 5 : 4);
      pits[d.houses] = g === 'oware' ? 0 : 3; pits[2 * d.houses + 1] = g === 'kalah' ? 5 : 2;
      b.show(pits);
      // Quick play: one button per pool, with how many wait there.
      const pools = h('div', { class: 'pools', role: 'group', 'aria-labelledby': 'quick-' + g + ' title-' + g },
        POOLS.map((c) => {
          const count = h('span', { class: 'pool-n', 'aria-hidden': 'true' });
          const btn = h('button', { class: 'btn pool', type: 'button', dataset: { quick: g, pool: poolKey(c) }, onclick: () => this.quick(g, c) },
            h('span', { class: 'pool-clock', 'aria-hidden': 'true' }, c ? c[0] + '+' + c[1] : '∞'), count);
          this.poolBtns.set(g + ':' + poolKey(c), { btn, count, c, g });
          return btn;
        }));
      return h('article', { class: 'game-card ' + g },
        h('div', { class: 'gc-art', 'aria-hidden': 'true' }, mini),
        h('h3', { id: 'title-' + g }, gameTitle(g)),
        h('p', {}, t('game.' + g + '.blurb')),
        h('div', { class: 'gc-quick' }, h('span', { class: 'gc-quick-label', id: 'quick-' + g }, t('lobby.quick')), pools),
        h('div', { class: 'gc-actions', dataset: { game: g } },
          this.cpuButton(g),
          h('a', { class: 'btn ghost', href: '/?how=' + g, 'data-link': '' }, t('nav.how'))));
    };
    this.main.append(
      h('section', { class: 'hero' },
        h('div', { class: 'hero-text' },
          h('h1', {}, t('lobby.title')),
          h('p', { class: 'lead' }, t('lobby.lead'))),
        this.accountBox = h('div', { class: 'hero-account' })),
      this.mineSection,
      // The games' titles (h3) come under a heading of their own, for the outline of the page.
      h('section', { class: 'games', 'aria-labelledby': 'games-title' },
        h('h2', { class: 'sr-only', id: 'games-title' }, t('lobby.games')), GAMES.map(gameCard)),
      h('nav', { class: 'board-links', 'aria-label': t('lb.title') }, h('span', {}, t('lb.title') + ':'),
        GAMES.map((g) => h('a', { href: '/leaderboard/' + g, 'data-link': '' }, gameTitle(g)))),
      h('div', { class: 'lobby-grid' },
        h('section', { class: 'card' },
          h('h2', {}, t('lobby.create')),
          this.formBox),
        h('div', { class: 'col' },
          h('section', { class: 'card' },
            h('h2', {}, t('lobby.join')),
            h('form', { class: 'join-form', onsubmit: (e) => { e.preventDefault(); this.joinCode(); } },
              this.codeInput, h('button', { class: 'btn primary', type: 'submit' }, t('lobby.join_btn')))),
          h('section', { class: 'card' },
            h('h2', {}, t('lobby.open_rooms'), h('span', { class: 'live' }, t('lobby.live'))),
            this.roomsBox),
          h('section', { class: 'card' },
            h('h2', {}, t('lobby.recent')),
            this.recentBox))));
    this.renderAccount();
    this.renderForm();
    this.renderRooms();
    this.renderRecent();
    this.renderPools();
    this.renderMine();
  }

  // How many wait in each pool (the lobby's pools, live): on each button, and in its name.
  renderPools() {
    for (const { btn, count, c, g } of this.poolBtns.values()) {
      const pool = (this.pools || []).find((p) => p.game === g && (c ? p.clock && p.clock.initial_ms === c[0] * 60000 && p.clock.increment_ms === c[1] * 1000 : !p.clock));
      const n = pool ? pool.waiting : 0;
      count.textContent = n > 0 ? String(n) : '';
      btn.classList.toggle('waiting', n > 0);
      btn.dataset.waiting = String(n);
      // The name starts with what the button shows ("3+2"), so that it can be said to a voice
      // control (WCAG 2.5.3).
      const label = (c ? c[0] + '+' + c[1] : '∞') + ' · ' + t('pool.label', { game: gameTitle(g), clock: c ? clockLabel(poolClock(c)) : t('clock.none'), n });
      btn.setAttribute('aria-label', label);
      btn.title = label;
    }
  }

  // My games in progress (the server's my_rooms, live): each with whose move it is and Resume.
  renderMine() {
    const box = this.mineBox;
    if (!box) return;
    clear(box);
    const list = this.mine || [];
    this.mineSection.hidden = list.length === 0;
    for (const r of list) {
      const vs = r.local ? t('opp.local') : r.opponent ? t('recent.vs', { name: playerName(r.opponent) }) : t('room.waiting_player');
      const state = r.status === 'waiting' ? 'waiting' : r.your_turn ? 'your_move' : 'their_move';
      const details = [t('room.board_size', { m: r.houses, n: r.seeds }), clockLabel(r.clock), r.visibility === 'private' && !r.local ? t('create.private') : null,
        r.opponent && !r.opponent.connected ? t('inprogress.away', { name: playerName(r.opponent) }) : null].filter(Boolean).join(' · ');
      box.append(h('div', { class: 'room-row mine-row', dataset: { room: r.room, state } },
        h('span', { class: 'rr-game ' + r.game }, gameTitle(r.game)),
        h('span', { class: 'rr-info' }, h('b', {}, vs), h('small', {}, details)),
        h('span', { class: 'rr-status ' + state }, t('inprogress.' + state)),
        h('a', { class: 'btn small ' + (r.your_turn ? 'primary' : 'ghost'), href: '/r/' + r.room, 'data-link': '',
          'aria-label': t('inprogress.resume_label', { game: gameTitle(r.game), vs }),
          onclick: () => store('mc.role.' + r.room, 'player') }, t('inprogress.resume'))));
    }
  }

  // A guest names itself here and is offered an account; a player with one sees its name, its
  // ratings and the way to its profile.
  renderAccount() {
    const box = this.accountBox;
    if (!box) return;
    const acc = conn.account;
    // Rated quick play, for an account only (right after the casual one).
    for (const row of this.main.querySelectorAll('.gc-actions[data-game]')) {
      const old = row.querySelector('.rated-quick');
      if (old && !acc) old.remove();
      if (!old && acc) {
        const g = row.dataset.game;
        row.prepend(h('button', { class: 'btn rated-quick', type: 'button', dataset: { quickRated: g }, onclick: () => this.quick(g, null, true) }, t('lobby.quick_rated')));
      }
    }
    if (this.nameInput && this.nameInput.parentNode && !acc && box.contains(this.nameInput)) return;
    clear(box);
    if (acc) {
      const r = acc.ratings || {};
      box.append(h('div', { class: 'me-card' },
        h('a', { class: 'me-name', href: '/@/' + encodeURIComponent(acc.name), 'data-link': '' }, acc.name),
        h('span', { class: 'me-ratings' }, GAMES.map((g) => r[g] ? h('span', { class: 'me-r ' + g, title: gameTitle(g) }, gameTitle(g) + ' ' + Math.round(r[g].rating) + (r[g].provisional ? '?' : '')) : null))));
      return;
    }
    box.append(h('label', { class: 'name-field' }, h('span', {}, t('lobby.your_name')), this.nameInput));
    if (conn.features && conn.features.accounts) {
      box.append(h('p', { class: 'signup-hint' }, t('lobby.signup_hint') + ' ',
        h('button', { type: 'button', class: 'link-btn', onclick: () => document.dispatchEvent(new CustomEvent('mc:account', { detail: 'signup' })) }, t('account.signup'))));
    }
  }

  // Drawn again whenever a choice changes what the form offers; the focused control keeps the focus
  // (arrow keys move through a radio group, each step redraws the form).
  renderForm() {
    const f = this.form;
    const F = this.formBox;
    const focused = F.contains(document.activeElement) && document.activeElement.id ? document.activeElement.id : null;
    clear(F);
    const save = () => { store('mc.create', f); };
    const seg = (name, values, cur, label, onpick) => h('fieldset', { class: 'seg' },
      h('legend', {}, label),
      h('div', { class: 'seg-row' }, values.map(([v, text]) => {
        const id = 'f-' + name + '-' + v;
        return [h('input', { type: 'radio', name, id, value: String(v), checked: String(cur) === String(v), onchange: () => { onpick(v); save(); this.renderForm(); } }),
          h('label', { for: id }, text)];
      })));
    const num = (label, key, min, max) => h('label', { class: 'field' }, h('span', {}, label),
      h('select', { class: 'input', name: key, onchange: (e) => { f[key] = Number(e.target.value); save(); } },
        Array.from({ length: max - min + 1 }, (_, i) => h('option', { value: String(min + i), selected: f[key] === min + i }, String(min + i)))));
    const check = (key, label) => h('label', { class: 'check' },
      h('input', { type: 'checkbox', checked: !!f.options[key], onchange: (e) => { f.options[key] = e.target.checked; save(); } }), h('span', {}, label));
    F.append(seg('game', GAMES.map((g) => [g, gameTitle(g)]), f.game, t('create.game'), (g) => {
      f.game = g; f.houses = DEFAULTS[g].houses; f.seeds = DEFAULTS[g].seeds; f.options = {};
    }));
    F.append(h('div', { class: 'row2' }, num(t('create.houses'), 'houses', 1, 9), num(t('create.seeds'), 'seeds', 1, 12)));
    const opts = h('div', { class: 'opts' });
    if (f.game === 'kalah') opts.append(check('empty_capture', t('opt.empty_capture')));
    if (f.game === 'oware') opts.append(h('label', { class: 'field' }, h('span', {}, t('opt.grand_slam')),
      h('select', { class: 'input', onchange: (e) => { f.options.grand_slam = e.target.value; save(); } },
        ['no_capture', 'forbidden', 'capture'].map((v) => h('option', { value: v, selected: (f.options.grand_slam || 'no_capture') === v }, t('gs.' + v))))));
    if (f.game === 'congkak') {
      opts.append(check('lap_capture', t('opt.lap_capture')));
      opts.append(h('label', { class: 'check' }, h('input', { type: 'checkbox', checked: f.options.rounds === 'match', onchange: (e) => { f.options.rounds = e.target.checked ? 'match' : 'single'; save(); } }), h('span', {}, t('opt.match'))));
    }
    F.append(opts);
    // The pie rule, every game's option (on by default in rated Congkak, where the server turns it
    // on when the form says nothing): outside .opts, so that a rated game may still choose it.
    const pieOn = f.options.pie ?? (!!conn.account && f.opponent === 'human' && !!f.rated && f.game === 'congkak');
    F.append(h('label', { class: 'check pie-check' }, h('input', { type: 'checkbox', name: 'pie', checked: pieOn,
      onchange: (e) => { f.options.pie = e.target.checked; save(); } }), h('span', {}, t('opt.pie'))));
    F.append(seg('clock', CLOCKS.map((c, i) => [i, c === null ? t('clock.none') : c === 'custom' ? t('clock.custom') : c[0] + '+' + c[1]]), f.clock, t('create.clock'), (i) => { f.clock = Number(i); }));
    if (CLOCKS[f.clock] === 'custom') {
      F.append(h('div', { class: 'row2' },
        h('label', { class: 'field' }, h('span', {}, t('clock.minutes')), h('input', { class: 'input', type: 'number', min: '0.5', max: '180', step: '0.5', value: String(f.custom[0]), onchange: (e) => { f.custom[0] = Number(e.target.value) || 5; save(); } })),
        h('label', { class: 'field' }, h('span', {}, t('clock.increment')), h('input', { class: 'input', type: 'number', min: '0', max: '60', step: '1', value: String(f.custom[1]), onchange: (e) => { f.custom[1] = Number(e.target.value) || 0; save(); } }))));
    }
    // Rated (accounts only): the game's own board and options, with a clock, against a person.
    const canRate = !!conn.account && f.opponent === 'human';
    if (canRate) {
      F.append(h('label', { class: 'check rated-check' }, h('input', { type: 'checkbox', name: 'rated', checked: !!f.rated, onchange: (e) => {
        f.rated = e.target.checked;
        if (f.rated) {
          f.houses = DEFAULTS[f.game].houses; f.seeds = DEFAULTS[f.game].seeds; f.options = {};
          if (!CLOCKS[f.clock]) f.clock = 3;
        }
        save(); this.renderForm();
      } }), h('span', {}, t('create.rated'))));
      if (f.rated) F.append(h('p', { class: 'field-hint' }, t('create.rated_hint')));
    }
    const rated = canRate && f.rated;
    // Hints: a casual room between people may allow them (the computer and one screen always do).
    if (f.opponent === 'human' && !rated) {
      F.append(h('label', { class: 'check hints-check' }, h('input', { type: 'checkbox', name: 'hints', checked: !!f.hints, onchange: (e) => {
        f.hints = e.target.checked; save();
      } }), h('span', {}, t('create.hints'))));
      F.append(h('p', { class: 'field-hint' }, t('create.hints_hint')));
    }
    if (rated) for (const el of F.querySelectorAll('select[name=houses], select[name=seeds], .opts input, .opts select, input[name=clock][value="0"]')) el.disabled = true;
    const opponents = [['human', t('opp.human')], ['local', t('opp.local')]];
    if (conn.features && (conn.features.computer || conn.features.ai)) opponents.push(['computer', t('opp.computer')]);
    else if (f.opponent === 'computer') f.opponent = 'human';
    F.append(seg('opponent', opponents, f.opponent, t('create.opponent'), (v) => { f.opponent = v; }));
    if (f.opponent === 'computer') {
      F.append(seg('level', [1, 2, 3, 4, 5, 6].map((l) => [l, l + ' · ' + t('level.' + l)]), f.level, t('create.level'), (v) => { f.level = Number(v); }));
    }
    if (f.opponent === 'human') {
      F.append(seg('visibility', [['public', t('create.public')], ['private', t('create.private')]], f.visibility, t('create.visibility'), (v) => { f.visibility = v; }));
    }
    if (f.opponent !== 'local') {
      F.append(seg('seat', [['random', t('create.seat_random')], ['south', t('create.seat_south')], ['north', t('create.seat_north')]], f.seat, t('create.seat'), (v) => { f.seat = v; }));
    }
    F.append(h('button', { class: 'btn primary wide', type: 'submit' }, t('create.submit')));
    if (focused) { const el = document.getElementById(focused); if (el) el.focus(); }
  }

  clockValue() {
    const c = CLOCKS[this.form.clock];
    if (!c) return null;
    if (c === 'custom') return { initial_ms: Math.round(this.form.custom[0] * 60000), increment_ms: Math.round(this.form.custom[1] * 1000) };
    return { initial_ms: c[0] * 60000, increment_ms: c[1] * 1000 };
  }

  async enter(msg) {
    try {
      const r = await conn.request(msg);
      if (r && r.type === 'joined' && r.room) {
        const code = r.room.toUpperCase();
        store('mc.role.' + code, r.role);
        if (msg.type === 'quick' && msg.opponent !== 'computer') rememberSeek(code, msg);
        navigate('/r/' + code);
      }
      else if (r === null) toast(t('err.timeout'), 'error');
    } catch (e) { toast(errorText(e), 'error'); }
  }

  create() {
    const f = this.form;
    const options = {};
    if (f.game === 'kalah' && f.options.empty_capture) options.empty_capture = true;
    if (f.game === 'oware' && f.options.grand_slam) options.grand_slam = f.options.grand_slam;
    if (f.game === 'congkak') { if (f.options.lap_capture) options.lap_capture = true; if (f.options.rounds) options.rounds = f.options.rounds; }
    if (typeof f.options.pie === 'boolean') options.pie = f.options.pie;
    const msg = { type: 'create', game: f.game, houses: f.houses, seeds: f.seeds, options, clock: this.clockValue(), opponent: f.opponent };
    if (f.opponent === 'human') msg.visibility = f.visibility; else msg.visibility = 'private';
    if (f.opponent === 'human' && f.rated && conn.account) msg.rated = true;
    else if (f.opponent === 'human' && f.hints) msg.hints = true;
    if (f.opponent !== 'local') msg.seat = f.seat;
    if (f.opponent === 'computer') msg.level = f.level;
    this.enter(msg);
  }

  // Quick play in a pool (clock: [minutes, seconds a move], or null for untimed); rated quick play
  // (an account's) has its own clock: rated games are timed.
  quick(game, clock, rated = false) {
    this.enter(rated ? { type: 'quick', game, rated: true, clock: RATED_CLOCK } : { type: 'quick', game, clock: poolClock(clock) });
  }

  // Quick play against the computer from a game's card, at the level last chosen in the form;
  // shown only when the server has the computer (welcome.features.computer).
  cpuButton(g) {
    const b = h('button', { class: 'btn ghost', type: 'button', dataset: { quickComputer: g },
      onclick: () => this.enter({ type: 'quick', game: g, opponent: 'computer', level: this.form.level }) },
    t('lobby.quick_computer'));
    this.cpuButtons.push(b);
    this.showComputer();
    return b;
  }

  showComputer() {
    const on = !!(conn.features && conn.features.computer);
    for (const b of this.cpuButtons || []) b.hidden = !on;
  }

  joinCode() {
    let v = this.codeInput.value.trim().toUpperCase();
    const m = v.match(/\/r\/([A-Za-z0-9]{6})/);
    if (m) v = m[1].toUpperCase();
    if (!CODE_RE.test(v)) { toast(t('lobby.bad_code'), 'error'); this.codeInput.focus(); return; }
    navigate('/r/' + v);
  }

  renderRooms() {
    const box = this.roomsBox;
    if (!box) return;
    clear(box);
    if (this.rooms === null) { box.append(h('p', { class: 'empty-note' }, t('lobby.loading'))); return; }
    if (!this.rooms.length) { box.append(h('p', { class: 'empty-note' }, t('lobby.no_rooms'))); return; }
    for (const r of this.rooms) {
      const names = Array.isArray(r.players) ? r.players.filter(Boolean).map(playerName)
        : r.players ? ['south', 'north'].map((s) => r.players[s]).filter(Boolean).map(playerName) : [];
      const waiting = r.status === 'waiting';
      const ratings = r.ratings ? ['south', 'north'].map((s) => r.ratings[s]).filter((x) => typeof x === 'number') : [];
      box.append(h('div', { class: 'room-row' + (r.rated ? ' rated' : '') },
        h('span', { class: 'rr-game ' + r.game }, gameTitle(r.game)),
        h('span', { class: 'rr-info' },
          h('b', {}, names.join(' – ') || '—', r.rated ? h('span', { class: 'tag rated' }, t('room.rated')) : null, r.hints ? h('span', { class: 'tag hints' }, t('room.hints_tag')) : null, ratings.length ? h('span', { class: 'rr-ratings' }, ' ' + ratings.join(' – ')) : null),
          h('small', {}, [t('room.board_size', { m: r.houses, n: r.seeds }), clockLabel(r.clock), optionsText(r.game, r.options)].filter(Boolean).join(' · '))),
        h('span', { class: 'rr-status ' + r.status }, t('status.' + r.status + '_short')),
        h('a', { class: 'btn small ' + (waiting ? 'primary' : 'ghost'), href: '/r/' + r.code, 'data-link': '', dataset: { role: waiting ? 'player' : 'spectator' },
          onclick: () => store('mc.role.' + r.code, waiting ? 'player' : 'spectator') }, t(waiting ? 'lobby.join_btn' : 'lobby.watch'))));
    }
    // The server lists the newest rooms of each game and counts the others.
    const hidden = this.list ? this.list.hidden() : 0;
    if (hidden > 0) box.append(h('p', { class: 'empty-note more-rooms' }, t('lobby.more_rooms', { n: hidden })));
  }

  // With the durable archive (welcome.features.storage), finished games come from the server with
  // their replay ids; otherwise this browser's own list is all there is.
  async fetchArchive() {
    if (!conn.features || !conn.features.storage || !conn.me || !conn.me.player || this.archiveFor === conn.me.player) return;
    this.archiveFor = conn.me.player;
    try {
      const res = await fetch('/api/players/' + encodeURIComponent(conn.me.player) + '/games', { headers: { accept: 'application/json' } });
      if (!res.ok) throw new Error(String(res.status));
      const data = await res.json();
      this.archive = Array.isArray(data.games) ? data.games : [];
      this.renderRecent();
    } catch {
      // The local list stays; the next welcome (after a reconnection) asks again.
      this.archiveFor = null;
    }
  }

  renderRecent() {
    const box = this.recentBox;
    clear(box);
    if (this.archive && this.archive.length) return this.renderArchive(box);
    const list = recentGames();
    if (!list.length) { box.append(h('p', { class: 'empty-note' }, t('lobby.no_recent'))); return; }
    for (const g of list.slice(0, 8)) {
      const res = g.result ? t('recent.' + g.result) : t('status.' + g.status + '_short');
      const vs = g.local ? t('opp.local') : g.opponent ? t('recent.vs', { name: playerName(g.opponent) }) : t('room.waiting_player');
      box.append(h('a', { class: 'recent-row', href: g.id && g.status === 'finished' ? '/g/' + g.id : '/r/' + g.room, 'data-link': g.id && g.status === 'finished' ? null : '' },
        h('span', { class: 'rr-game ' + g.game }, gameTitle(g.game)),
        h('span', { class: 'rr-info' }, h('b', {}, vs), h('small', {}, new Date(g.at).toLocaleString([], { dateStyle: 'short', timeStyle: 'short' }) + ' · ' + g.room)),
        h('span', { class: 'rr-status ' + (g.result || g.status) }, res)));
    }
  }

  renderArchive(box) {
    const me = conn.me && conn.me.player;
    for (const g of this.archive.slice(0, 8)) {
      const seat = g.seat === 'north' ? 'north' : 'south';
      const other = seat === 'south' ? 'north' : 'south';
      const opp = g.players && g.players[other];
      const mine = g.seat === 'both' ? null : seat;
      const result = !g.result ? null : g.result === 'draw' ? 'draw' : !mine ? g.result : g.result === mine ? 'win' : 'loss';
      const vs = g.seat === 'both' ? t('opp.local') : opp ? t('recent.vs', { name: playerName(opp) || '?' }) : '';
      box.append(h('a', { class: 'recent-row', href: '/g/' + g.id, 'data-link': '', dataset: { player: me || '' } },
        h('span', { class: 'rr-game ' + g.game }, gameTitle(g.game)),
        h('span', { class: 'rr-info' }, h('b', {}, vs),
          h('small', {}, [g.started ? new Date(g.started).toLocaleString([], { dateStyle: 'short', timeStyle: 'short' }) : null, t('room.board_size', { m: g.houses, n: g.seeds }),
            scoreText(g)].filter(Boolean).join(' · '))),
        h('span', { class: 'rr-status ' + (result || 'playing') }, result ? t('recent.' + result) : t('status.playing_short'))));
    }
  }
}
