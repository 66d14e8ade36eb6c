// The room page /r/CODE: board, players and clocks, move list, chat, and the actions of a game.
// Everything shown comes from the server's state frames; clicks and keys become requests.
import { h, append, clear, toast, confirmDialog, fmtClock, clockLabel, storage, store, icon } from './ui.js';
import { t, onLang } from './i18n.js';
import { conn } from './net.js';
import { Board, burntSet } from './board.js';
import { errorText, rememberGame, gameTitle, optionsText } from './common.js';
import { roomRules } from './rules.js';

const SPEEDS = { slow: 420, normal: 220, fast: 90, off: 0 };

export class RoomView {
  constructor(main, code, cached) {
    this.main = main;
    this.code = code.toUpperCase();
    this.shown = null;     // the state on the board
    this.latest = null;    // the newest state received
    this.queue = [];
    this.moves = [];       // seat and house per ply, for the move list
    this.gameNo = null;    // the game the move list belongs to
    this.resyncing = false; // a resync was asked for and its full state has not come yet
    this.pending = null;   // {house, ply} of a move sent and not yet answered
    this.drawFrame = null;
    this.role = storage('mc.role.' + this.code, null);
    this.offs = [];
    this.build();
    this.offs.push(conn.on('state', (s) => { if (s.room && s.room.toUpperCase() === this.code) this.push(s); }));
    this.offs.push(conn.on('chat', (c) => { if (!c.room || c.room.toUpperCase() === this.code) this.addChat(c); }));
    this.offs.push(conn.on('draw', (d) => { if (!d.room || d.room.toUpperCase() === this.code) { this.drawFrame = d; this.renderActions(); } }));
    this.offs.push(conn.on('online', () => this.join()));
    this.offs.push(conn.on('closed', (c) => {
      if (c.room && c.room.toUpperCase() === this.code) { toast(t('room.closed'), 'error', 6000); }
    }));
    this.offs.push(onLang(() => this.relabel()));
    this.onKey = (e) => this.key(e);
    document.addEventListener('keydown', this.onKey);
    this.clockTimer = setInterval(() => this.tickClocks(), 100);
    if (cached) this.push(cached);
    if (!cached && conn.ready) this.join();
  }

  destroy() {
    for (const f of this.offs) f();
    document.removeEventListener('keydown', this.onKey);
    clearInterval(this.clockTimer);
    this.board.skip();
    const s = this.latest;
    if (s && (s.you === 'spectator' || s.status !== 'playing')) conn.send({ type: 'leave', room: this.code });
  }

  async join() {
    const role = this.role === 'spectator' ? 'spectator' : 'player';
    try {
      const r = await conn.request({ type: 'join', room: this.code, role });
      if (r && r.type === 'joined') this.setRole(r.role);
    } catch (e) {
      if (e.code === 'room_full' && role === 'player') {
        try {
          const r = await conn.request({ type: 'join', room: this.code, role: 'spectator' });
          if (r && r.type === 'joined') this.setRole('spectator');
        } catch (e2) { this.fail(e2); }
      } else this.fail(e);
    }
  }

  setRole(role) { this.role = role; store('mc.role.' + this.code, role); }

  fail(e) {
    if (e.code === 'offline') return;
    if (e.code === 'not_found') {
      clear(this.main);
      this.main.append(h('section', { class: 'card notfound' },
        h('h1', { i18n: 'room.not_found_title' }),
        h('p', {}, t('room.not_found_body', { code: this.code })),
        h('a', { class: 'btn primary', href: '/', 'data-link': '' }, t('room.back_lobby'))));
      return;
    }
    toast(errorText(e), 'error');
  }

  build() {
    clear(this.main);
    const speed = storage('mc.speed', 'normal');
    this.el = {};
    const E = this.el;
    E.title = h('h1', { class: 'room-title' });
    E.sub = h('p', { class: 'room-sub' });
    E.code = h('span', { class: 'code-chip', title: t('room.code') }, this.code);
    E.copy = h('button', { class: 'btn small', type: 'button', title: t('room.copy_link'), 'aria-label': t('room.copy_link'), onclick: () => this.copyLink() }, icon('link'), h('span', { class: 'copy-text' }, t('room.copy_link')));
    E.spectN = h('span', {});
    E.spect = h('span', { class: 'spect' }, icon('eye'), E.spectN);
    E.farBar = h('div', { class: 'pbar far' });
    E.nearBar = h('div', { class: 'pbar near' });
    E.boardEl = h('div', { class: 'board' });
    E.overlay = h('div', { class: 'overlay', hidden: true });
    E.status = h('div', { class: 'status-line', role: 'status', 'aria-live': 'polite' });
    E.offer = h('div', { class: 'offer', hidden: true });
    E.speed = h('select', { class: 'speed', 'aria-label': t('room.speed'), onchange: () => store('mc.speed', E.speed.value) },
      Object.keys(SPEEDS).map((k) => h('option', { value: k, selected: k === speed }, t('speed.' + k))));
    E.skip = h('button', { class: 'btn small ghost', type: 'button', hidden: true, onclick: () => this.board.skip() }, t('room.skip'));
    E.actions = h('div', { class: 'actions' });
    E.moves = h('ol', { class: 'moves' });
    E.rules = h('section', { class: 'card panel rules-panel', 'aria-label': t('rules.title') });
    this.rulesKey = '';
    E.chatLog = h('div', { class: 'chat-log', role: 'log', 'aria-live': 'polite' });
    E.chatInput = h('input', { class: 'input', maxlength: '300', placeholder: t('chat.placeholder'), 'aria-label': t('chat.placeholder') });
    E.chatForm = h('form', { class: 'chat-form', onsubmit: (e) => { e.preventDefault(); this.sendChat(); } },
      E.chatInput, h('button', { class: 'btn small primary', type: 'submit' }, t('chat.send')));
    this.board = new Board(E.boardEl, { onPlay: (seat, house) => this.play(seat, house) });
    this.main.append(h('div', { class: 'room' },
      h('header', { class: 'room-head' },
        h('div', {}, E.title, E.sub),
        h('div', { class: 'room-share' }, E.spect, E.code, E.copy)),
      E.area = h('section', { class: 'play-area' },
        E.farBar,
        E.wrap = h('div', { class: 'board-wrap' }, E.boardEl, E.overlay),
        E.nearBar,
        E.status, E.offer,
        h('div', { class: 'toolbar' },
          h('label', { class: 'speed-label' }, h('span', {}, t('room.speed')), E.speed), E.skip,
          h('span', { class: 'grow' }), E.actions)),
      h('aside', { class: 'side' },
        E.rules,
        h('section', { class: 'card panel' }, h('h2', {}, t('room.moves')), E.moves),
        h('section', { class: 'card panel chat' }, h('h2', {}, t('room.chat')), E.chatLog, E.chatForm))));
    E.title.textContent = t('room.loading');
  }

  relabel() {
    const keep = this.el.chatLog;
    this.build();
    this.el.chatLog.replaceWith(keep);
    this.el.chatLog = keep;
    if (this.shown) { this.board.key = ''; this.render(this.shown, false); }
    this.renderMoves();
  }

  push(s) {
    this.latest = s;
    this.latestAt = performance.now();
    if (s.you && s.you !== 'spectator') this.setRole('player');
    else if (s.you === 'spectator') this.setRole('spectator');
    if (this.pending && s.ply !== this.pending.ply) this.pending = null;
    else if (this.pending && conn.ready && this.pending.sentOn !== conn.ws) this.resend();
    this.followMoves(s);
    if (s.you && s.you !== 'spectator') rememberGame(s);
    this.queue.push(s);
    this.tickClocks();
    if (!this.running) this.drain();
  }

  // The move list, kept from the states as docs/protocol.md says: a full state (join, resume,
  // resync) lists every move; any other state adds its "last" when it is one ply further, keeps
  // the list at the same ply, and cuts it back at an earlier ply (a move taken back). A later ply
  // means states were skipped (a slow connection only gets the newest): ask for the full state.
  followMoves(s) {
    const sameGame = this.gameNo === null || s.game_no === undefined || s.game_no === this.gameNo;
    if (s.game_no !== undefined) this.gameNo = s.game_no;
    if (Array.isArray(s.moves)) {
      this.moves = s.moves.map((mv) => (typeof mv === 'number' ? { house: mv } : { seat: mv.seat, house: mv.house }));
      this.resyncing = false;
      return;
    }
    if (!sameGame) this.moves = [];
    const known = this.moves.length;
    if (s.ply === 0) this.moves = [];
    else if (s.ply > known + 1 || (s.ply === known + 1 && !s.last)) this.resync();
    else if (s.last && s.ply > 0) {
      this.moves.length = s.ply - 1;
      this.moves[s.ply - 1] = { seat: s.last.seat, house: s.last.house };
    }
  }

  resync() {
    if (this.resyncing || !conn.ready) return;
    this.resyncing = true;
    conn.request({ type: 'resync', room: this.code }, 5000)
      .catch(() => {}) // not_in_room after a leave, offline: the next join brings the list.
      .finally(() => { this.resyncing = false; });
  }

  async drain() {
    this.running = true;
    while (this.queue.length) {
      const s = this.queue.shift();
      const prev = this.shown;
      const delay = () => (this.queue.length > 1 ? 0 : SPEEDS[this.el.speed.value] ?? 220);
      if (prev && s.last && s.ply === prev.ply + 1 && prev.game === s.game && prev.houses === s.houses && delay() > 0 &&
          Array.isArray(s.last.trace) && s.last.trace.length) {
        this.render(prev, true);
        this.el.skip.hidden = false;
        this.el.status.textContent = t('status.playing_move', { name: this.seatName(s.last.seat), house: s.last.house });
        await this.board.animate(prev.pits, s.last.trace, delay);
        this.el.skip.hidden = true;
      }
      this.render(s, false);
    }
    this.running = false;
  }

  seatOf(s) {
    if (s.you === 'both') return s.turn;
    if (s.you === 'south' || s.you === 'north') return s.you;
    return null;
  }

  seatName(seat) {
    const p = this.latest && this.latest.players && this.latest.players[seat];
    return p ? p.name : t('seat.' + seat);
  }

  canPlay(s) {
    const seat = this.seatOf(s);
    return s.status === 'playing' && seat && seat === s.turn && !this.pending && !this.board.animating;
  }

  render(s, animatingFrom) {
    this.shown = s;
    const E = this.el;
    const bottom = s.you === 'north' ? 'north' : 'south';
    this.bottom = bottom;
    E.title.textContent = gameTitle(s.game) + ' · ' + t('room.board_size', { m: s.houses, n: s.seeds });
    const c = s.clock && s.clock.initial_ms !== undefined ? clockLabel(s.clock) : null;
    E.sub.textContent = [optionsText(s.game, s.options), c, (s.local || s.you === 'both') ? t('opp.local') : (s.players && ['south', 'north'].some((x) => s.players[x] && s.players[x].computer)) ? t('opp.computer') : t(s.visibility === 'private' ? 'create.private' : s.visibility === 'public' ? 'create.public' : '')]
      .filter((x) => x && x.length).join(' · ');
    document.title = gameTitle(s.game) + ' · ' + this.code + ' · Mancala Online';
    const nSpect = typeof s.spectators === 'number' ? s.spectators : Array.isArray(s.spectators) ? s.spectators.length : null;
    E.spectN.textContent = nSpect === null ? '' : t('room.spectators', { n: nSpect });
    E.spect.hidden = nSpect === null;
    this.board.setup(s.game, s.houses, bottom);
    E.area.style.setProperty('--m', String(s.houses));
    const seat = this.seatOf(s);
    const play = !animatingFrom && this.canPlay(s);
    this.board.show(s.pits, { burnt: burntSet(s), legal: play ? s.legal || [] : [], seat: play ? seat : null, last: animatingFrom ? null : s.last });
    this.renderBar(E.nearBar, s, bottom);
    this.renderBar(E.farBar, s, bottom === 'south' ? 'north' : 'south');
    this.tickClocks();
    if (!animatingFrom) this.renderStatus(s);
    this.renderOverlay(s);
    this.renderActions();
    this.renderMoves();
    this.renderRules(s);
  }

  // The rules of this game: the room's board and options, and the rules worded for them (rules.js).
  // Rebuilt when the game, board or options change (a rematch keeps them); the list stays open or
  // closed as the reader left it.
  renderRules(s) {
    const E = this.el;
    const key = JSON.stringify([s.game, s.houses, s.seeds, s.options || {}]);
    if (key === this.rulesKey) return;
    this.rulesKey = key;
    const open = !!E.rules.querySelector('details[open]');
    const r = roomRules(s);
    clear(E.rules);
    append(E.rules, [
      h('h2', {}, t('rules.title')),
      h('p', { class: 'rules-board' }, h('b', {}, t('rules.board_label') + ': '), r.board),
      h('dl', { class: 'rules-opts', 'aria-label': t('rules.options') }, r.options.map((o) =>
        h('div', { class: 'opt-row', dataset: { option: o.id } }, h('dt', {}, o.name), h('dd', {}, o.value)))),
      h('details', { class: 'rules-steps', open },
        h('summary', {}, t('rules.steps')),
        h('ol', {}, r.items.map((it) => h('li', { dataset: { rule: it.id } }, it.text)))),
    ]);
  }

  renderBar(bar, drawn, seat) {
    clear(bar);
    // Who sits where, who is connected and whose clock runs come from the newest state; the store
    // count follows the pits on the board (they lag while a move is being animated).
    const s = this.latest && this.latest.room === drawn.room ? { ...this.latest, pits: drawn.pits, houses: drawn.houses } : drawn;
    const p = s.players && s.players[seat];
    const mine = s.you === seat;
    const turn = s.status === 'playing' && s.turn === seat;
    bar.className = 'pbar ' + (seat === this.bottom ? 'near' : 'far') + (turn ? ' turn' : '') + ' seat-' + seat;
    const name = p ? p.name : t('room.waiting_player');
    const tags = [];
    if (mine) tags.push(h('span', { class: 'tag you' }, t('room.you')));
    if (p && p.computer) tags.push(h('span', { class: 'tag' }, t('room.computer')));
    const online = p ? (p.connected !== false) : false;
    const score = s.pits[seat === 'south' ? s.houses : 2 * s.houses + 1];
    append(bar, [
      h('span', { class: 'avatar ' + seat, 'aria-hidden': 'true' }, p ? Array.from(name)[0].toUpperCase() : '?'),
      h('span', { class: 'pinfo' },
        h('span', { class: 'pname' }, name, ...tags),
        h('span', { class: 'pmeta' },
          h('span', { class: 'dot ' + (p ? (online ? 'on' : 'off') : 'none') }),
          p ? t(online ? 'room.online' : 'room.offline') : t('room.open_seat'),
          ' · ', t('seat.' + seat), ' · ', t('room.store_count', { n: score }))),
      h('span', { class: 'abandon', dataset: { seat }, hidden: !(s.abandon && s.abandon.seat === seat) }),
      turn ? h('span', { class: 'turn-pill' }, t('room.to_move')) : null,
      h('span', { class: 'clock', dataset: { seat }, hidden: !s.clock }, '')]);
  }

  tickClocks() {
    const s = this.latest;
    if (!s) return;
    const el = this.el;
    if (s.abandon && typeof s.abandon.ms === 'number') {
      const a = el.nearBar.querySelector('.abandon:not([hidden])') || el.farBar.querySelector('.abandon:not([hidden])');
      if (a) a.textContent = t('room.abandon', { s: Math.max(0, Math.ceil((s.abandon.ms - (performance.now() - this.latestAt)) / 1000)) });
    }
    if (!s.clock) return;
    for (const seat of ['south', 'north']) {
      const c = (el.nearBar.querySelector('.clock[data-seat="' + seat + '"]') || el.farBar.querySelector('.clock[data-seat="' + seat + '"]'));
      if (!c) continue;
      let ms = s.clock[seat + '_ms'];
      const running = s.clock.running === seat && s.status === 'playing';
      if (running) ms -= performance.now() - this.latestAt;
      c.textContent = fmtClock(ms);
      c.classList.toggle('running', running);
      c.classList.toggle('low', ms < 20000);
    }
  }

  renderStatus(s) {
    const E = this.el;
    const seat = this.seatOf(s);
    let text;
    if (s.status === 'waiting') text = t('status.waiting');
    else if (s.status === 'finished') text = t('status.finished');
    else if (this.pending) text = t('status.sent');
    else if (seat && seat === s.turn) {
      text = s.you === 'both' ? t('status.local_turn', { name: this.seatName(s.turn) }) : t('status.your_turn');
      if ((s.legal || []).length) text += ' ' + t('status.keys', { keys: s.legal.join(', ') });
    } else if (s.you === 'spectator') text = t('status.to_move', { name: this.seatName(s.turn) });
    else text = t('status.their_turn', { name: this.seatName(s.turn) });
    if (s.round && s.options && s.options.rounds === 'match') text = t('status.round', { n: s.round }) + ' · ' + text;
    E.status.textContent = text;
    E.status.classList.toggle('mine', !!seat && seat === s.turn && s.status === 'playing');
  }

  drawOffer() {
    const s = this.latest;
    if (!s || s.status !== 'playing') return null;
    const v = s.draw_offer ?? s.draw_offered ?? (s.draw && (s.draw.offer || s.draw.by || s.draw.from));
    if (typeof v === 'string' && (v === 'south' || v === 'north')) return v;
    if (v === null && 'draw_offer' in s) return null;
    const d = this.drawFrame;
    if (d && d.action === 'offer' && (d.ply === undefined || d.ply === s.ply)) return d.seat || d.by || d.from || 'other';
    return null;
  }

  rematchSeats() {
    const s = this.latest;
    const r = s && (s.rematch ?? s.rematch_requested);
    if (!r) return [];
    if (Array.isArray(r)) return r;
    if (typeof r === 'string') return [r];
    return Object.keys(r).filter((k) => r[k]);
  }

  renderActions() {
    const s = this.latest;
    const E = this.el;
    if (!s || !E) return;
    clear(E.actions);
    clear(E.offer);
    E.offer.hidden = true;
    const seat = s.you === 'south' || s.you === 'north' ? s.you : null;
    const player = seat || s.you === 'both';
    if (s.status === 'playing' && player) {
      const offer = this.drawOffer();
      if (offer && seat && offer !== seat) {
        E.offer.hidden = false;
        E.offer.append(h('span', {}, t('draw.offered', { name: this.seatName(seat === 'south' ? 'north' : 'south') })),
          h('button', { class: 'btn small primary', type: 'button', onclick: () => this.draw('accept') }, t('draw.accept')),
          h('button', { class: 'btn small ghost', type: 'button', onclick: () => this.draw('decline') }, t('draw.decline')));
      } else if (offer && seat === offer) {
        E.offer.hidden = false;
        E.offer.append(h('span', {}, t('draw.sent')));
      }
      if (seat && !s.players?.[seat === 'south' ? 'north' : 'south']?.computer) {
        E.actions.append(h('button', { class: 'btn small', type: 'button', disabled: !!offer, onclick: () => this.draw('offer') }, t('room.offer_draw')));
      }
      E.actions.append(h('button', { class: 'btn small danger', type: 'button', onclick: () => this.resign() }, t('room.resign')));
    }
    if (s.status === 'finished' && player) {
      E.actions.append(this.rematchButton(s));
    }
    E.actions.append(h('a', { class: 'btn small ghost', href: '/?how=' + s.game, target: '_blank', rel: 'noopener' }, t('nav.how')));
    E.actions.append(h('a', { class: 'btn small ghost', href: '/', 'data-link': '' }, t('room.back_lobby')));
  }

  rematchButton(s) {
    const asked = this.rematchSeats();
    const seat = s.you === 'south' || s.you === 'north' ? s.you : null;
    const mineAsked = seat && asked.includes(seat);
    const theirs = seat && asked.some((x) => x !== seat);
    return h('button', { class: 'btn small primary', type: 'button', disabled: mineAsked, onclick: () => this.rematch() },
      mineAsked ? t('rematch.waiting') : theirs ? t('rematch.accept') : t('room.rematch'));
  }

  renderOverlay(s) {
    const O = this.el.overlay;
    clear(O);
    O.hidden = true;
    if (s.status === 'waiting') {
      O.hidden = false;
      O.className = 'overlay waiting';
      const link = location.origin + '/r/' + this.code;
      O.append(h('div', { class: 'card over-card' },
        h('div', { class: 'spinner', 'aria-hidden': 'true' }),
        h('h2', {}, t('room.waiting_title')),
        h('p', {}, t('room.waiting_body')),
        h('div', { class: 'invite' }, h('input', { class: 'input mono', readonly: true, value: link, 'aria-label': t('room.invite_link'), onfocus: (e) => e.target.select() }),
          h('button', { class: 'btn primary', type: 'button', onclick: () => this.copyLink() }, t('room.copy_link')))));
      // Show the end of the link (the room code) rather than its start.
      requestAnimationFrame(() => { const inp = O.querySelector('.invite input'); if (inp) inp.scrollLeft = inp.scrollWidth; });
      return;
    }
    if (s.status === 'finished' && s.result && !this.dismissed?.[s.ply + ':' + s.result.reason]) {
      O.hidden = false;
      O.className = 'overlay over';
      const r = s.result;
      const seat = s.you === 'south' || s.you === 'north' ? s.you : null;
      let head, cls;
      if (r.winner === 'draw') { head = t('result.draw'); cls = 'draw'; }
      else if (seat) { head = r.winner === seat ? t('result.you_won') : t('result.you_lost'); cls = r.winner === seat ? 'win' : 'loss'; }
      else { head = t('result.wins', { name: this.seatName(r.winner) }); cls = 'win'; }
      const score = Array.isArray(r.score) ? r.score : [s.pits[s.houses], s.pits[2 * s.houses + 1]];
      const id = s.game_id ?? s.archive ?? r.game_id ?? r.id;
      O.append(h('div', { class: 'card over-card result ' + cls, role: 'dialog', 'aria-label': head },
        h('div', { class: 'trophy', 'aria-hidden': 'true' }, icon(cls === 'win' ? 'trophy' : cls === 'draw' ? 'scale' : 'seed')),
        h('h2', {}, head),
        h('p', { class: 'reason' }, t('reason.' + r.reason) !== 'reason.' + r.reason ? t('reason.' + r.reason) : r.reason),
        h('div', { class: 'final-score' },
          h('span', { class: 'fs south' }, h('b', {}, String(score[0])), h('small', {}, this.seatName('south'))),
          h('span', { class: 'fs-sep' }, ':'),
          h('span', { class: 'fs north' }, h('b', {}, String(score[1])), h('small', {}, this.seatName('north')))),
        h('div', { class: 'over-actions' },
          (seat || s.you === 'both') ? this.rematchButton(s) : null,
          id ? h('a', { class: 'btn ghost', href: '/g/' + id }, t('result.replay')) : null,
          h('button', { class: 'btn ghost', type: 'button', onclick: () => { this.dismissed = { ...(this.dismissed || {}), [s.ply + ':' + r.reason]: true }; this.renderOverlay(this.shown); } }, t('result.see_board')),
          h('a', { class: 'btn ghost', href: '/', 'data-link': '' }, t('room.back_lobby')))));
    }
  }

  renderMoves() {
    const E = this.el;
    clear(E.moves);
    if (!this.moves.length) { E.moves.append(h('li', { class: 'empty-note' }, t('room.no_moves'))); return; }
    this.moves.forEach((mv, i) => {
      if (!mv) return;
      E.moves.append(h('li', { class: 'mv ' + (mv.seat || '') },
        h('span', { class: 'ply' }, String(i + 1)),
        h('span', { class: 'mdot ' + (mv.seat || ''), 'aria-hidden': 'true' }),
        h('span', { class: 'who' }, mv.seat ? this.seatName(mv.seat) : ''),
        h('b', {}, t('room.house_n', { n: mv.house }))));
    });
    E.moves.scrollTop = E.moves.scrollHeight;
  }

  addChat(c) {
    const at = new Date(c.at || Date.now());
    const me = conn.me && c.from === conn.me.name;
    this.el.chatLog.append(h('div', { class: 'msg' + (me ? ' me' : '') },
      h('span', { class: 'from' }, c.from || '?'),
      h('span', { class: 'time' }, at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })),
      h('p', {}, c.text)));
    this.el.chatLog.scrollTop = this.el.chatLog.scrollHeight;
  }

  sendChat() {
    const text = this.el.chatInput.value.trim();
    if (!text) return;
    conn.request({ type: 'chat', room: this.code, text: text.slice(0, 300) }, 4000).catch((e) => toast(errorText(e), 'error'));
    this.el.chatInput.value = '';
  }

  play(seat, house) {
    const s = this.shown;
    if (!s || !this.canPlay(s) || !(s.legal || []).includes(house) || this.seatOf(s) !== seat) return;
    this.pending = { house, ply: s.ply };
    this.sendMove();
    this.board.show(s.pits, { burnt: burntSet(s), legal: [], seat: null, last: s.last });
    const k = seat === 'south' ? house - 1 : s.houses + house;
    this.board.flash(k, 'picked', 500);
    this.renderStatus(s);
  }

  sendMove() {
    const p = this.pending;
    p.sentOn = conn.ws;
    conn.request({ type: 'move', room: this.code, house: p.house, ply: p.ply }, 8000).catch((e) => {
      if (this.pending === p) {
        this.pending = null;
        if (e.code === 'offline') { this.pending = p; return; }
        if (e.code !== 'stale') toast(errorText(e), 'error');
        if (this.latest) this.render(this.latest, false);
      }
    });
  }

  resend() {
    const s = this.latest;
    if (s.status === 'playing' && s.ply === this.pending.ply && (s.legal || []).includes(this.pending.house)) this.sendMove();
    else this.pending = null;
  }

  key(e) {
    if (e.target && (e.target.tagName === 'INPUT' || e.target.tagName === 'TEXTAREA' || e.target.tagName === 'SELECT')) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (document.querySelector('dialog[open]')) return;
    if (/^[1-9]$/.test(e.key)) {
      const s = this.shown;
      if (s && this.canPlay(s)) {
        const house = Number(e.key);
        if ((s.legal || []).includes(house)) { e.preventDefault(); this.play(this.seatOf(s), house); }
      }
    } else if (e.key === 'Escape' || e.key === ' ') {
      if (this.board.animating) { e.preventDefault(); this.board.skip(); }
    }
  }

  async resign() {
    if (!(await confirmDialog(t('resign.title'), t('resign.body'), 'room.resign', true))) return;
    conn.request({ type: 'resign', room: this.code }, 4000).catch((e) => toast(errorText(e), 'error'));
  }

  draw(action) {
    if (action === 'decline' || action === 'accept') this.drawFrame = null;
    conn.request({ type: 'draw', room: this.code, action }, 4000).catch((e) => toast(errorText(e), 'error'));
    if (action === 'offer') toast(t('draw.sent'));
    if (action === 'decline' && this.latest) { this.latest = { ...this.latest, draw_offer: null }; this.renderActions(); }
  }

  rematch() {
    this.dismissed = {};
    conn.request({ type: 'rematch', room: this.code }, 4000).catch((e) => toast(errorText(e), 'error'));
    toast(t('rematch.sent'));
  }

  async copyLink() {
    const link = location.origin + '/r/' + this.code;
    try {
      await navigator.clipboard.writeText(link);
      toast(t('room.copied'), 'ok');
    } catch {
      const inp = this.main.querySelector('.invite input');
      if (inp) { inp.focus(); inp.select(); }
      toast(link);
    }
  }
}
