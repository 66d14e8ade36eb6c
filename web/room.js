// The room page /r/CODE: board, players and clocks, move list, chat, and the actions of a game.
// Everything shown comes from the server's state frames; clicks and keys become requests.
//
// Account badges: a seat's name and a chat line's speaker that are an account's (the server's
// `account`) carry a small shield, labelled for screen readers, so that a guest with a look-alike
// name cannot pass for the account.
// Chat: the room's last lines come with chat_history on entering; spectators' lines are marked; the
// reader can hide the spectators' lines, mute the opponent or turn chat off (mc.chat, this browser).
// Takeback: at one screen at once, between people on request (the other side accepts or declines);
// a declined draw offer or takeback request is shown to the one who asked.
// Hint: where the state's `hints` says the room gives them (against the computer, at one screen,
// casual rooms made with hints), the side to move may ask the server for the best house: the
// answer rings that house on the board and says its value, until the position changes.
//
// A move arriving is replayed on the board from its trace, in at most REPLAY_MS (board.js) at
// Normal speed (the other speeds in proportion; instant with prefers-reduced-motion unless the
// player picks a speed). The replay never holds the game: the clocks count from the newest state, and the
// player's playable houses take a click or a key at once, which ends the replay and plays.
import { LobbyList } from './lobbylist.js';
import { h, append, clear, toast, confirmDialog, promptDialog, fmtClock, clockLabel, storage, store, icon } from './ui.js';
import { t, onLang } from './i18n.js';
import { conn } from './net.js';
import { Board, burntSet, replayUnit, SPEEDS, pitIndex } from './board.js';
import { errorText, rememberGame, gameTitle, playerName, seekOf, forgetSeek, navigate, optionsText, localName, setLocalName, moveItem, movesEventsText, playerSeat } from './common.js';
import { roomRules } from './rules.js';
import { emptyMoves, nextMoves, moveEvents } from './moves.js';
import * as sound from './sound.js';
import { setTitle, alertHidden, clearAlert, notifySupported, notifyOn, toggleNotify } from './alerts.js';

// An untimed game's move deadline (state.move_deadline) shows when this many seconds are left.
const MOVE_DEADLINE_SHOW_S = 60;

// The badge of an account's name: an icon with its name for screen readers and a tooltip.
function accountBadge() {
  return h('span', { class: 'account-badge', role: 'img', 'aria-label': t('badge.account'), title: t('badge.account') }, icon('shield'));
}

function reducedMotion() {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}

export class RoomView {
  // cached: the newest state of this room already received, if any. invite: this room is the first
  // page of the visit (someone opened a link to it): a newcomer is asked for a name before sitting.
  constructor(main, code, cached, { invite = false } = {}) {
    this.main = main;
    this.code = code.toUpperCase();
    this.shown = null;     // the state on the board
    this.latest = null;    // the newest state received
    this.queue = [];
    this.gen = 0;          // counts replays cut short (a move played, Skip)
    this.log = emptyMoves(); // the move list (moves.js)
    this.resyncing = false; // a resync was asked for and its full state has not come yet
    this.pending = null;   // {house, ply} of a move sent and not yet answered
    this.hint = null;      // the server's last hint frame for this room (shown while its ply is current)
    this.hinting = false;  // a hint was asked for and its answer has not come yet
    this.drawFrame = null;
    this.role = storage('mc.role.' + this.code, null);
    this.invite = invite && !this.role;
    this.peek = false;     // joined as a spectator to look before asking for a name
    this.messages = [];    // the chat lines of this room, oldest first (shown or not: chatPrefs)
    this.chatPrefs = { off: false, spectators: true, muted: [], ...storage('mc.chat', {}) };
    this.offs = [];
    this.build();
    this.offs.push(conn.on('state', (s) => { if (s.room && s.room.toUpperCase() === this.code) this.push(s); }));
    this.offs.push(conn.on('chat', (c) => { if (!c.room || c.room.toUpperCase() === this.code) this.addChat(c); }));
    this.offs.push(conn.on('chat_history', (m) => {
      if (m.room && m.room.toUpperCase() === this.code && Array.isArray(m.messages)) { this.messages = m.messages.slice(); this.renderChat(); }
    }));
    this.offs.push(conn.on('draw', (d) => { if (!d.room || d.room.toUpperCase() === this.code) { this.drawFrame = d; this.renderActions(); } }));
    this.offs.push(conn.on('online', () => this.join()));
    this.offs.push(conn.on('closed', (c) => {
      if (c.room && c.room.toUpperCase() === this.code) { toast(t('room.closed'), 'error', 6000); }
    }));
    this.offs.push(onLang(() => this.relabel()));
    this.offs.push(sound.onMute(() => this.syncToggles()));
    this.onKey = (e) => this.key(e);
    document.addEventListener('keydown', this.onKey);
    this.clockTimer = setInterval(() => this.tickClocks(), 100);
    this.onResize = () => this.fit();
    window.addEventListener('resize', this.onResize);
    if (cached) this.push(cached);
    // Joining again is harmless (the server sends joined and a state with the whole move list), and
    // a room left earlier in this visit needs it.
    if (conn.ready) this.join();
  }

  destroy() {
    for (const f of this.offs) f();
    document.removeEventListener('keydown', this.onKey);
    if (this.poolWatch) this.watchPools(false);
    window.removeEventListener('resize', this.onResize);
    clearInterval(this.clockTimer);
    this.board.skip();
    clearAlert();
    const s = this.latest;
    if (s && (s.you === 'spectator' || s.status !== 'playing')) conn.send({ type: 'leave', room: this.code });
  }

  async join() {
    let role = this.role === 'spectator' ? 'spectator' : 'player';
    if (this.invite && this.role !== 'player') { role = 'spectator'; this.peek = true; }
    try {
      const r = await conn.request({ type: 'join', room: this.code, role });
      if (r && r.type === 'joined' && !this.peek) this.setRole(r.role);
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

  // A seat is free and this visitor has none: they pick the name the other player will see (their
  // saved name or the guest name the server gave), then sit down; or they only watch.
  async askName() {
    if (this.asking) return;
    this.asking = true;
    const current = (conn.account && conn.account.name) || conn.name || (conn.me && conn.me.name) || '';
    const name = await promptDialog({
      title: t('invite.title'), body: t('invite.body'), label: t('lobby.your_name'), value: current,
      okKey: 'invite.join', cancelKey: 'invite.watch', maxlength: 24,
    });
    this.asking = false;
    this.invite = false;
    this.peek = false;
    if (name === null) { this.setRole('spectator'); this.render(this.latest, false); return; }
    this.setRole('player');
    if (name !== current) {
      // The name goes to the server in hello: a new connection carries it, then joins (online).
      conn.name = name;
      conn.restart();
      return;
    }
    this.join();
  }

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
    const saved = storage('mc.speed', null);
    const speed = SPEEDS[saved] !== undefined ? saved : reducedMotion() ? 'off' : 'normal';
    this.el = {};
    const E = this.el;
    E.title = h('h1', { class: 'room-title' });
    E.sub = h('p', { class: 'room-sub' });
    E.watching = h('p', { class: 'watching', hidden: true }, icon('eye'), h('span', {}, t('room.watching')));
    E.code = h('span', { class: 'code-chip', title: t('room.code') }, this.code);
    E.copy = h('button', { class: 'btn small', type: 'button', title: t('room.copy_link'), 'aria-label': t('room.copy_link'), onclick: () => this.copyLink() }, icon('link'), h('span', { class: 'copy-text' }, t('room.copy_link')));
    E.spectN = h('span', {});
    E.spect = h('span', { class: 'spect' }, icon('eye'), E.spectN);
    E.farBar = h('div', { class: 'pbar far' });
    E.nearBar = h('div', { class: 'pbar near' });
    E.boardEl = h('div', { class: 'board' });
    E.overlay = h('div', { class: 'overlay', hidden: true });
    // The status line (a live region), and over it while a move is replayed, what is being played
    // and its badges (relay, capture, extra turn): they never cover the board's counts.
    E.status = h('p', { class: 'status-line', role: 'status', 'aria-live': 'polite' });
    E.replayLine = h('p', { class: 'replay-line', 'aria-hidden': 'true' });
    E.badges = h('div', { class: 'badge-host', 'aria-hidden': 'true' });
    E.statusRow = h('div', { class: 'status-row' }, E.status, E.replayLine, E.badges);
    // What each move did (captures, relays, extra turns), for screen readers.
    E.announce = h('div', { class: 'sr-only announce', role: 'log', 'aria-live': 'polite', 'aria-relevant': 'additions' });
    E.offer = h('div', { class: 'offers', hidden: true });
    E.speed = h('select', { class: 'speed', 'aria-label': t('room.speed'), onchange: () => store('mc.speed', E.speed.value) },
      Object.keys(SPEEDS).map((k) => h('option', { value: k, selected: k === speed }, t('speed.' + k))));
    E.skip = h('button', { class: 'btn small ghost', type: 'button', hidden: true, onclick: () => this.finishReplay() }, t('room.skip'));
    E.sound = h('button', { class: 'btn small ghost icon-btn', type: 'button', onclick: () => sound.setMuted(!sound.muted()) });
    E.notify = notifySupported() ? h('button', { class: 'btn small ghost icon-btn', type: 'button', onclick: () => this.toggleNotify() }) : null;
    E.actions = h('div', { class: 'actions' });
    // A long game makes the list scroll: it takes the focus so that keys scroll it too.
    E.moves = h('ol', { class: 'moves', 'aria-label': t('room.moves'), tabindex: '0' });
    E.rules = h('section', { class: 'card panel rules-panel', 'aria-label': t('rules.title') });
    this.rulesKey = '';
    E.chatLog = h('div', { class: 'chat-log', role: 'log', 'aria-live': 'polite', 'aria-label': t('room.chat') });
    E.chatOff = h('p', { class: 'empty-note chat-off', hidden: true }, t('chat.off_note'));
    E.chatSettings = h('details', { class: 'chat-settings' });
    E.chatInput = h('input', { class: 'input', maxlength: '300', placeholder: t('chat.placeholder'), 'aria-label': t('chat.placeholder') });
    E.chatForm = h('form', { class: 'chat-form', onsubmit: (e) => { e.preventDefault(); this.sendChat(); } },
      E.chatInput, h('button', { class: 'btn small primary', type: 'submit' }, t('chat.send')));
    this.board = new Board(E.boardEl, { onPlay: (seat, house) => this.play(seat, house), badgeHost: E.badges });
    this.main.append(h('div', { class: 'room' },
      E.head = h('header', { class: 'room-head' },
        h('div', {}, E.title, E.sub, E.watching),
        h('div', { class: 'room-share' }, E.spect, E.code, E.copy)),
      E.area = h('section', { class: 'play-area' },
        E.farBar,
        E.wrap = h('div', { class: 'board-wrap' }, E.boardEl, E.overlay),
        E.nearBar,
        E.statusRow, E.announce, E.offer,
        h('div', { class: 'toolbar' },
          h('label', { class: 'speed-label' }, h('span', {}, t('room.speed')), E.speed), E.skip, E.sound, E.notify,
          h('span', { class: 'grow' }), E.actions)),
      h('aside', { class: 'side' },
        E.rules,
        h('section', { class: 'card panel' }, h('h2', {}, t('room.moves')), E.moves),
        E.chat = h('section', { class: 'card panel chat' }, h('div', { class: 'chat-head' }, h('h2', {}, t('room.chat')), E.chatSettings), E.chatOff, E.chatLog, E.chatForm))));
    E.title.textContent = t('room.loading');
    this.syncToggles();
    this.renderChat();
  }

  // The sound and notification switches show their state (aria-pressed) and what they do.
  syncToggles() {
    const E = this.el;
    const on = !sound.muted();
    clear(E.sound);
    E.sound.append(icon(on ? 'sound' : 'mute'));
    E.sound.setAttribute('aria-pressed', String(on));
    E.sound.setAttribute('aria-label', t('room.sound'));
    E.sound.title = t(on ? 'room.sound_on' : 'room.sound_off');
    if (E.notify) {
      const n = notifyOn();
      clear(E.notify);
      E.notify.append(icon(n ? 'bell' : 'bell-off'));
      E.notify.setAttribute('aria-pressed', String(n));
      E.notify.setAttribute('aria-label', t('room.notify'));
      E.notify.title = t(n ? 'room.notify_on' : 'room.notify_off');
    }
  }

  async toggleNotify() {
    const r = await toggleNotify();
    if (r.denied) toast(t('room.notify_denied'), 'error', 6000);
    else toast(t(r.on ? 'room.notify_on' : 'room.notify_off'), 'ok');
    this.syncToggles();
  }

  relabel() {
    this.build();
    if (this.shown) { this.board.key = ''; this.render(this.shown, false); }
    this.renderMoves();
    this.renderChat();
  }

  push(s) {
    const prev = this.latest;
    this.latest = s;
    this.latestAt = performance.now();
    if (s.you && s.you !== 'spectator') { this.peek = false; this.setRole('player'); }
    else if (s.you === 'spectator' && !this.peek) this.setRole('spectator');
    if (this.pending && s.ply !== this.pending.ply) this.pending = null;
    else if (this.pending && conn.ready && this.pending.sentOn !== conn.ws) this.resend();
    this.log = nextMoves(this.log, s);
    if (!this.log.complete) this.resync(); // states were skipped: ask for the full one
    if (s.you && s.you !== 'spectator') rememberGame(s);
    this.notice(prev, s);
    if (this.peek && s.you === 'spectator') {
      // Looked first: a free seat asks for a name; a full room is simply watched (and a seat taken
      // by someone else while the name was asked closes the question).
      const free = s.status === 'waiting' && !(s.players && s.players.south && s.players.north);
      if (free) this.askName();
      else if (this.asking) document.getElementById('dialog').close();
      else { this.peek = false; this.invite = false; this.setRole('spectator'); }
    }
    this.queue.push(s);
    this.tickClocks();
    if (!this.running) this.drain();
  }

  // The move list follows docs/protocol.md (moves.js): a full state (join, resume, resync) lists
  // every move, other states add their "last". A gap in ply means states were skipped (a slow
  // connection only gets the newest): ask once for the full state.
  resync() {
    if (this.resyncing || !conn.ready) return;
    this.resyncing = true;
    conn.request({ type: 'resync', room: this.code }, 5000)
      .catch(() => {}) // not_in_room after a leave, offline: the next join brings the list.
      .finally(() => { this.resyncing = false; });
  }

  // What a new state means for the player at once (not after its replay): the move announced for
  // screen readers, the your-turn alert when the tab is hidden, the end of the game.
  notice(prev, s) {
    if (!prev || prev.room !== s.room) return;
    const sameGame = (prev.game_no ?? 0) === (s.game_no ?? 0);
    if (sameGame && s.last && s.ply === prev.ply + 1) {
      if (s.last.swap) this.tell(this.moveText(s.last)); // Everyone sees that the players changed sides.
      else this.announce(this.moveText(s.last));
    }
    const mine = (x) => x.status === 'playing' && (x.you === 'south' || x.you === 'north') && x.turn === x.you;
    const started = s.status === 'playing' && (prev.status !== 'playing' || !sameGame) && (s.you === 'south' || s.you === 'north');
    if ((mine(s) && !(mine(prev) && sameGame)) || started) {
      const title = t(mine(s) ? 'alert.your_move' : 'alert.game_started');
      const other = s.you === 'south' ? 'north' : 'south';
      const note = { title: t(mine(s) ? 'alert.your_move_short' : 'alert.game_started_short'),
        body: t('alert.body', { game: gameTitle(s.game), name: this.seatName(other, s) }), tag: 'mancala-' + this.code };
      if (alertHidden(title, note)) sound.play('turn');
    } else if (mine(prev) && !mine(s)) clearAlert(); // the turn passed (played elsewhere, or the game ended)
    const seat = s.you === 'south' || s.you === 'north' ? s.you : null;
    const them = seat && this.seatName(seat === 'south' ? 'north' : 'south', s);
    if (seat && s.draw_declined === seat && prev.draw_declined !== seat) this.tell(t('draw.declined', { name: them }));
    if (seat && s.takeback_declined === seat && prev.takeback_declined !== seat) this.tell(t('takeback.declined', { name: them }));
    if (seat && s.draw_offer && s.draw_offer !== seat && prev.draw_offer !== s.draw_offer) this.tell(t('draw.offered', { name: them }));
    if (seat && s.takeback && s.takeback !== seat && prev.takeback !== s.takeback) this.tell(t('takeback.asked', { name: them }));
    if (sameGame && s.ply < prev.ply && s.status === 'playing') this.tell(t('takeback.done', { n: prev.ply - s.ply }));
    if (prev.status === 'playing' && s.status === 'finished' && s.result) {
      const seat = s.you === 'south' || s.you === 'north' ? s.you : null;
      const w = s.result.winner;
      // A player hears whether they won; at one screen somebody won; a spectator hears the end.
      // An aborted game (no winner) sounds like a draw: nobody won.
      this.endSound = !w || w === 'draw' ? 'draw' : seat ? (w === seat ? 'win' : 'loss') : s.you === 'both' ? 'win' : 'draw';
      this.announce(this.resultText(s));
    }
  }

  // "Ana played house 3: 2 relays, captured 5 seeds, extra turn."
  moveText(last) {
    // The swapper played from the side to move and holds the other one now.
    if (last.swap) return t('pie.swapped', { name: this.seatName(last.seat === 'south' ? 'north' : 'south') });
    const name = this.seatName(last.seat);
    const events = movesEventsText(moveEvents(last.trace));
    return events ? t('announce.move_events', { name, house: last.house, events }) : t('announce.move', { name, house: last.house });
  }

  // Why the game ended, from the reader's side: a player who lost by abandonment left, or did not
  // move before an untimed game's move deadline, and is not told that its opponent left.
  reasonText(s) {
    const r = s.result;
    const seat = s.you === 'south' || s.you === 'north' ? s.you : null;
    if (r.reason === 'abandoned' && seat && r.winner && r.winner !== seat && r.winner !== 'draw') return t('reason.abandoned_you');
    return t('reason.' + r.reason) !== 'reason.' + r.reason ? t('reason.' + r.reason) : r.reason;
  }

  resultText(s) {
    const r = s.result;
    if (r.reason === 'aborted') return t('result.aborted') + '. ' + t('reason.aborted');
    const seat = s.you === 'south' || s.you === 'north' ? s.you : null;
    const head = r.winner === 'draw' ? t('result.draw') : seat ? t(r.winner === seat ? 'result.you_won' : 'result.you_lost') : t('result.wins', { name: this.seatName(r.winner) });
    const score = Array.isArray(r.score) ? r.score.join(' : ') : '';
    return t('announce.result', { result: head, score, reason: this.reasonText(s) });
  }

  // Tells the player something that happened: a toast, and the live region for screen readers.
  tell(text) {
    toast(text);
    this.announce(text);
  }

  // Adds a line to the live region (screen readers read each addition once); keeps the last few.
  announce(text) {
    const A = this.el.announce;
    A.append(h('p', {}, text));
    while (A.childElementCount > 3) A.firstElementChild.remove();
  }

  // The time of one replay step for trace at the chosen speed (0: no replay).
  unit(trace) { return replayUnit(this.el.speed.value, trace); }

  async drain() {
    this.running = true;
    while (this.queue.length) {
      const s = this.queue.shift();
      const prev = this.shown;
      const gen = this.gen;
      const next = prev && s.last && s.ply === prev.ply + 1 && prev.game === s.game && prev.houses === s.houses &&
        (prev.game_no ?? 0) === (s.game_no ?? 0);
      const trace = next && Array.isArray(s.last.trace) && s.last.trace.length ? s.last.trace : null;
      if (trace && !this.queue.length && this.unit(trace) > 0) {
        this.render(prev, true);
        this.el.statusRow.classList.add('replaying');
        this.el.skip.hidden = false;
        this.el.replayLine.textContent = t('status.playing_move', { name: this.seatName(s.last.seat), house: s.last.house });
        this.replay = { trace, captureHeard: false };
        const run = this.board.animate(prev.pits, trace, () => (this.queue.length ? 0 : this.unit(trace)), (step) => this.stepSound(step));
        this.markPlayable();
        await run;
        this.replay = null;
        this.board.clearBadge();
        if (gen !== this.gen) continue; // cut short: the newest state is already drawn
        this.el.statusRow.classList.remove('replaying');
        this.el.skip.hidden = true;
      } else if (trace) this.moveSound(trace);
      this.render(s, false);
      if (this.endSound && s.status === 'finished') { sound.play(this.endSound); this.endSound = null; }
    }
    this.running = false;
  }

  // Ends the replay in progress at once and draws the newest state.
  finishReplay() {
    if (!this.running || !this.latest) return;
    this.gen++;
    this.queue.length = 0;
    this.board.skip();
    // A capture the replay had not reached yet is still heard.
    if (this.replay && !this.replay.captureHeard && moveEvents(this.replay.trace).captures) sound.play('capture');
    this.replay = null;
    this.board.clearBadge();
    this.el.statusRow.classList.remove('replaying');
    this.el.skip.hidden = true;
    this.render(this.latest, false);
    if (this.endSound && this.latest.status === 'finished') { sound.play(this.endSound); this.endSound = null; }
  }

  stepSound(step) {
    if (step.kind === 'sow') sound.play('sow');
    else if (step.kind === 'capture') { sound.play('capture'); if (this.replay) this.replay.captureHeard = true; }
  }

  // A move drawn without its replay still sounds: one seed, and a capture when it took some.
  moveSound(trace) {
    const ev = moveEvents(trace);
    if (ev.captures) sound.play('capture'); else sound.play('sow');
  }

  // While a move is replayed, the houses the newest state lets the player choose take clicks.
  markPlayable() {
    const s = this.latest;
    if (s && this.canPlay(s)) this.board.setPlayable(this.seatOf(s), s.legal || []);
  }

  seatOf(s) {
    if (s.you === 'both') return s.turn;
    if (s.you === 'south' || s.you === 'north') return s.you;
    return null;
  }

  isLocal(s) { return !!s && (s.you === 'both' || s.local === true); }

  // The name shown for a seat everywhere (bars, result, moves, announcements): in a game at one
  // screen the names the players typed here (Player 1 / Player 2 until then), to its spectators
  // the seats (South / North), otherwise the player's name.
  seatName(seat, s = this.latest) {
    if (s && s.you === 'both') return localName(seat);
    if (s && s.local) return t('seat.' + seat);
    const p = s && s.players && s.players[seat];
    return p ? playerName(p) : t('seat.' + seat);
  }

  canPlay(s) {
    const seat = this.seatOf(s);
    return s.status === 'playing' && seat && seat === s.turn && !this.pending;
  }

  // Per seat, what a screen reader calls its houses and store.
  sides(s) {
    const out = {};
    for (const seat of ['south', 'north']) out[seat] = s.you === seat ? { you: true } : { name: this.seatName(seat, s) };
    return out;
  }

  render(s, animatingFrom) {
    this.shown = s;
    const E = this.el;
    const bottom = s.you === 'north' ? 'north' : 'south';
    this.bottom = bottom;
    E.title.textContent = gameTitle(s.game) + ' · ' + t('room.board_size', { m: s.houses, n: s.seeds });
    const c = s.clock && s.clock.initial_ms !== undefined ? clockLabel(s.clock) : null;
    E.sub.textContent = [optionsText(s.game, s.options), c, this.isLocal(s) ? t('opp.local') : (s.players && ['south', 'north'].some((x) => s.players[x] && s.players[x].computer)) ? t('opp.computer') : t(s.visibility === 'private' ? 'create.private' : s.visibility === 'public' ? 'create.public' : ''), s.rated ? t('room.rated') : t('room.casual'),
      s.hints === true && !this.isLocal(s) && !(s.players && ['south', 'north'].some((x) => s.players[x] && s.players[x].computer)) ? t('room.hints_tag') : '']
      .filter((x) => x && x.length).join(' · ');
    E.watching.hidden = !(this.latest && this.latest.you === 'spectator');
    // Your-turn notifications are for a player with one side.
    if (E.notify) E.notify.hidden = !(s.you === 'south' || s.you === 'north');
    setTitle(gameTitle(s.game) + ' · ' + this.code + ' · Mancala Online');
    const nSpect = typeof s.spectators === 'number' ? s.spectators : Array.isArray(s.spectators) ? s.spectators.length : null;
    E.spectN.textContent = nSpect === null ? '' : t('room.spectators', { n: nSpect });
    // A game at one screen has nobody to chat with or to invite: no chat, no spectators' count,
    // no invite link.
    const oneScreen = s.you === 'both';
    E.spect.hidden = nSpect === null || oneScreen;
    E.copy.hidden = oneScreen;
    E.chat.hidden = oneScreen;
    this.board.setup(s.game, s.houses, bottom);
    E.area.style.setProperty('--m', String(s.houses));
    const seat = this.seatOf(s);
    const play = !animatingFrom && this.canPlay(s);
    this.board.show(s.pits, { burnt: burntSet(s), legal: play ? s.legal || [] : [], seat: play ? seat : null, last: animatingFrom ? null : s.last, sides: this.sides(s) });
    this.renderBar(E.nearBar, s, bottom);
    this.renderBar(E.farBar, s, bottom === 'south' ? 'north' : 'south');
    this.tickClocks();
    if (!animatingFrom) this.renderStatus(s);
    this.renderOverlay(s);
    this.renderActions();
    this.renderMoves();
    this.renderRules(s);
    this.fit();
    const opp = (s.you === 'south' || s.you === 'north') && s.players && s.players[s.you === 'south' ? 'north' : 'south'];
    if ((opp && opp.id ? opp.id + ':' + opp.name : '') !== this.chatSettingsKey) this.renderChatSettings();
  }

  // On a phone the board is sized so that both players' bars, the board and the status line fit
  // the screen (style.css turns --fixed, the height of everything else, into the size of a house).
  fit() {
    const E = this.el;
    if (!E || !this.shown || typeof matchMedia !== 'function') return;
    if (!matchMedia('(max-width: 640px)').matches) { E.area.style.removeProperty('--fixed'); return; }
    const px = (v) => parseFloat(v) || 0;
    const area = getComputedStyle(E.area), board = getComputedStyle(E.boardEl);
    const top = E.area.getBoundingClientRect().top + window.scrollY;
    const fixed = top + E.farBar.offsetHeight + E.nearBar.offsetHeight + E.statusRow.offsetHeight + 3 * px(area.rowGap) +
      px(board.paddingTop) + px(board.paddingBottom) + (this.shown.houses + 1) * px(board.rowGap) + 8;
    const v = Math.ceil(fixed) + 'px';
    if (E.area.style.getPropertyValue('--fixed') !== v) E.area.style.setProperty('--fixed', v);
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
    if (bar.contains(document.activeElement) && document.activeElement.classList.contains('name-input')) return; // being renamed
    clear(bar);
    // Who sits where, who is connected and whose clock runs come from the newest state; the store
    // count follows the pits on the board (they lag while a move is being animated).
    const s = this.latest && this.latest.room === drawn.room ? { ...this.latest, pits: drawn.pits, houses: drawn.houses } : drawn;
    const p = s.players && s.players[seat];
    const mine = s.you === seat;
    const turn = s.status === 'playing' && s.turn === seat;
    const local = s.you === 'both';
    bar.className = 'pbar ' + (seat === this.bottom ? 'near' : 'far') + (turn ? ' turn' : '') + ' seat-' + seat;
    const name = local || s.local ? this.seatName(seat, s) : p ? playerName(p) : t('room.waiting_player');
    const tags = [];
    // An account's name: its badge right after it (a guest cannot pass for it).
    if (p && p.account && !local) tags.push(accountBadge());
    if (p && typeof p.rating === 'number' && !local) tags.push(h('span', { class: 'prating', title: t('room.rating') }, String(p.rating) + (p.provisional ? '?' : '')));
    if (mine) tags.push(h('span', { class: 'tag you' }, t('room.you')));
    // The computer's name says what it is; the tag marks a computer named otherwise.
    if (p && p.computer && !/^Computer \(level/.test(p.name || '')) tags.push(h('span', { class: 'tag' }, t('room.computer')));
    const online = p ? (p.connected !== false) : false;
    const score = s.pits[seat === 'south' ? s.houses : 2 * s.houses + 1];
    const label = p && typeof p.rating === 'number' && !local
      ? h('a', { class: 'pname-text', href: '/@/' + encodeURIComponent(p.name), target: '_blank', rel: 'noopener' }, name)
      : h('span', { class: 'pname-text' }, name);
    append(bar, [
      h('span', { class: 'avatar ' + seat, 'aria-hidden': 'true' }, Array.from(name)[0] ? Array.from(name)[0].toUpperCase() : '?'),
      h('span', { class: 'pinfo' },
        h('span', { class: 'pname' }, label, ...tags,
          local ? h('button', { class: 'btn small ghost icon-btn rename', type: 'button', 'aria-label': t('local.rename', { name }), title: t('local.rename', { name }), onclick: () => this.rename(bar, seat) }, icon('pencil')) : null),
        h('span', { class: 'pmeta' },
          local ? null : h('span', { class: 'dot ' + (p ? (online ? 'on' : 'off') : 'none') }),
          // "Online" is the usual case: a phone keeps it for screen readers only (the dot shows it),
          // so that the store count is not cut; "offline" and an open seat stay in words.
          local ? null : h('span', { class: 'presence' + (p && online ? ' usual' : '') }, p ? t(online ? 'room.online' : 'room.offline') : t('room.open_seat'), ' · '),
          t('seat.' + seat), ' · ', t('room.store_count', { n: score })),
        // The countdowns take the line under the name (on phones, in place of the line above), so
        // that the name keeps its width.
        h('span', { class: 'pnote' },
          h('span', { class: 'abandon', dataset: { seat }, hidden: !(s.abandon && s.abandon.seat === seat) }),
          h('span', { class: 'first-move', dataset: { seat }, hidden: !(s.status === 'playing' && s.first_move && s.first_move.seat === seat) }),
          // An untimed game's move deadline: shown by tickClocks() once it is running out.
          h('span', { class: 'move-deadline', dataset: { seat }, hidden: true }))),
      turn ? h('span', { class: 'turn-pill' }, t('room.to_move')) : null,
      h('span', { class: 'clock', dataset: { seat }, hidden: !s.clock }, '')]);
  }

  // A player at one screen renames a seat: the name shows everywhere and is kept in this browser.
  rename(bar, seat) {
    const pname = bar.querySelector('.pname');
    const old = localName(seat);
    const input = h('input', { class: 'input name-input', maxlength: '24', value: old, 'aria-label': t('local.name_of', { seat: t('seat.' + seat) }) });
    let done = false;
    const finish = (save) => {
      if (done) return;
      done = true;
      if (save) setLocalName(seat, input.value);
      input.blur();
      const s = this.latest;
      if (s) { this.renderBar(this.el.nearBar, this.shown || s, this.bottom); this.renderBar(this.el.farBar, this.shown || s, this.bottom === 'south' ? 'north' : 'south'); }
      this.refreshNames();
      const btn = bar.querySelector('.rename');
      if (btn) btn.focus();
    };
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') { e.preventDefault(); finish(true); }
      else if (e.key === 'Escape') { e.preventDefault(); finish(false); }
    });
    input.addEventListener('blur', () => finish(true));
    clear(pname);
    pname.append(input);
    input.focus();
    input.select();
  }

  // Everything that shows names, drawn again.
  refreshNames() {
    const s = this.shown;
    if (!s) return;
    if (!this.running) this.renderStatus(s);
    this.renderOverlay(s);
    this.renderActions();
    this.renderMoves();
    this.board.show(this.board.pits, { burnt: this.board.burnt, legal: this.canPlay(s) && !this.running ? s.legal || [] : [], seat: this.canPlay(s) && !this.running ? this.seatOf(s) : null, last: s.last, sides: this.sides(s) });
  }

  tickClocks() {
    const s = this.latest;
    if (!s) return;
    const el = this.el;
    if (s.abandon && typeof s.abandon.ms === 'number') {
      const a = el.nearBar.querySelector('.abandon:not([hidden])') || el.farBar.querySelector('.abandon:not([hidden])');
      if (a) a.textContent = t('room.abandon', { s: Math.max(0, Math.ceil((s.abandon.ms - (performance.now() - this.latestAt)) / 1000)) });
    }
    if (s.first_move && typeof s.first_move.ms === 'number') {
      const f = el.nearBar.querySelector('.first-move:not([hidden])') || el.farBar.querySelector('.first-move:not([hidden])');
      if (f) f.textContent = t('room.first_move', { s: Math.max(0, Math.ceil((s.first_move.ms - (performance.now() - this.latestAt)) / 1000)) });
    }
    for (const d of [el.nearBar, el.farBar].map((b) => b.querySelector('.move-deadline')).filter(Boolean)) {
      const m = s.move_deadline;
      const left = m && typeof m.ms === 'number' && s.status === 'playing' && m.seat === d.dataset.seat
        ? Math.max(0, Math.ceil((m.ms - (performance.now() - this.latestAt)) / 1000)) : null;
      d.hidden = left === null || left > MOVE_DEADLINE_SHOW_S;
      if (!d.hidden) d.textContent = t('room.move_deadline', { s: left });
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
    let text, keys = '';
    if (s.status === 'waiting') text = t('status.waiting');
    else if (s.status === 'finished') text = t(s.result && s.result.reason === 'aborted' ? 'status.aborted' : 'status.finished');
    else if (this.pending) text = t('status.sent');
    else if (seat && seat === s.turn) {
      text = s.you === 'both' ? t('status.local_turn', { name: this.seatName(s.turn) }) : t('status.your_turn');
      if ((s.legal || []).length) keys = t('status.keys', { keys: s.legal.join(', ') });
    } else if (s.you === 'spectator') text = t('status.to_move', { name: this.seatName(s.turn) });
    else text = t('status.their_turn', { name: this.seatName(s.turn) });
    if (s.round && s.options && s.options.rounds === 'match') text = t('status.round', { n: s.round }) + ' · ' + text;
    const wait = s.status === 'playing' && s.first_move ? t('status.clocks_wait') : '';
    // The number keys are for a keyboard, and the first-move countdown shows in the player's bar:
    // phones do without those parts (style.css), so that the line stays within its two lines.
    if (E.status.textContent !== text + (keys ? ' ' + keys : '') + (wait ? ' ' + wait : '')) {
      clear(E.status);
      E.status.append(text, keys ? h('span', { class: 'keys-hint' }, ' ' + keys) : '', wait ? h('span', { class: 'keys-hint' }, ' ' + wait) : '');
    }
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
    const seat = s.you === 'south' || s.you === 'north' ? s.you : null;
    const player = seat || s.you === 'both';
    // A note for each offer and each answer: what the other side asks, with its buttons, what I
    // asked, and what they declined (until the next move).
    const note = (text, ...buttons) => E.offer.append(h('div', { class: 'offer' }, h('span', {}, text), ...buttons));
    const button = (text, cls, onclick) => h('button', { class: 'btn small ' + cls, type: 'button', onclick }, text);
    if (s.status === 'playing' && player) {
      const them = seat && this.seatName(seat === 'south' ? 'north' : 'south');
      const human = seat && !s.players?.[seat === 'south' ? 'north' : 'south']?.computer;
      const offer = this.drawOffer();
      if (offer && seat && offer !== seat) {
        note(t('draw.offered', { name: them }),
          button(t('draw.accept'), 'primary', () => this.draw('accept')), button(t('draw.decline'), 'ghost', () => this.draw('decline')));
      } else if (offer && seat === offer) {
        note(t('draw.sent'));
      } else if (seat && s.draw_declined === seat) {
        note(t('draw.declined', { name: them }));
      }
      if (seat && s.takeback && s.takeback !== seat) {
        note(t('takeback.asked', { name: them }),
          button(t('takeback.accept'), 'primary', () => this.takeback('accept')), button(t('takeback.decline'), 'ghost', () => this.takeback('decline')));
      } else if (seat && s.takeback === seat) {
        note(t('takeback.sent'));
      } else if (seat && s.takeback_declined === seat) {
        note(t('takeback.declined', { name: them }));
      }
      if (s.swap && (s.swap === seat || s.you === 'both')) {
        note(t('pie.offer'), h('button', { class: 'btn small primary', type: 'button', dataset: { action: 'swap' }, onclick: () => this.swap() }, t('pie.swap')));
        // A choice made once a game: on a phone the offer is below the board, so it is brought
        // into view (once per game) when it appears.
        const key = this.code + ':' + (s.game_no ?? 0);
        if (this.swapShown !== key) {
          this.swapShown = key;
          requestAnimationFrame(() => { if (E.offer.isConnected) E.offer.scrollIntoView({ block: 'nearest' }); });
        }
      }
      if (s.you === 'both' && s.ply > 0) {
        E.actions.append(h('button', { class: 'btn small', type: 'button', dataset: { action: 'undo' }, onclick: () => this.takeback('offer') }, t('room.undo')));
      } else if (human && this.hasMove(seat)) {
        E.actions.append(h('button', { class: 'btn small', type: 'button', dataset: { action: 'takeback' }, disabled: s.takeback === seat,
          onclick: () => this.takeback('offer') }, t('room.takeback')));
      }
      if (human) {
        E.actions.append(h('button', { class: 'btn small', type: 'button', disabled: !!offer, onclick: () => this.draw('offer') }, t('room.offer_draw')));
      }
      if (s.hints === true) {
        const mine = (seat && s.turn === seat) || s.you === 'both';
        E.actions.append(h('button', { class: 'btn small hint-btn', type: 'button', dataset: { action: 'hint' },
          disabled: !mine || this.hinting || !!this.currentHint(s), 'aria-busy': this.hinting ? 'true' : null,
          title: t('hint.title'), onclick: () => this.askHint() }, this.hinting ? t('hint.thinking') : t('room.hint')));
      }
      E.actions.append(h('button', { class: 'btn small danger', type: 'button', onclick: () => this.resign() }, t('room.resign')));
      const hint = this.currentHint(s);
      if (hint) {
        const v = (hint.value > 0 ? '+' : hint.value < 0 ? '\u2212' : '') + String(Math.abs(hint.value));
        note(t('hint.best', { house: hint.house }) + ' ' + t(hint.exact ? 'hint.value_exact' : 'hint.value_estimate', { v }));
        E.offer.lastChild.classList.add('hint-note');
        E.offer.lastChild.setAttribute('role', 'status');
      }
    }
    const shownHint = this.currentHint(s);
    if (this.board) this.board.markHint(shownHint ? pitIndex(shownHint.seat, shownHint.house, s.houses) : null);
    E.offer.hidden = !E.offer.childElementCount;
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
    const wrap = this.el.wrap;
    clear(O);
    O.hidden = true;
    wrap.style.removeProperty('min-height');
    // A seek is the first game's wait only (game_no 0): once a game starts it is forgotten.
    if (s.status !== 'waiting' || (s.game_no ?? 0) > 0) forgetSeek(this.code);
    const seek = s.status === 'waiting' && (s.game_no ?? 0) === 0 && (s.you === 'south' || s.you === 'north') ? seekOf(this.code) : null;
    this.watchPools(!!seek);
    if (seek) {
      // Quick play: this room waits in a pool for whoever picks it next.
      O.hidden = false;
      O.className = 'overlay waiting seeking';
      const clock = seek.clock ? clockLabel(seek.clock) : t('clock.none');
      this.seekCount = h('p', { class: 'seek-count', 'aria-live': 'polite' });
      O.append(h('div', { class: 'card over-card seek', role: 'status' },
        h('div', { class: 'spinner', 'aria-hidden': 'true' }),
        h('h2', {}, t('seek.title')),
        h('p', {}, t('seek.body', { game: gameTitle(s.game), clock })),
        this.seekCount,
        h('button', { class: 'btn primary seek-cancel', type: 'button', onclick: () => this.cancelSeek() }, t('seek.cancel'))));
      this.renderSeekCount();
      return;
    }
    if (s.status === 'waiting') {
      O.hidden = false;
      O.className = 'overlay waiting';
      const link = location.origin + '/r/' + this.code;
      const watching = s.you === 'spectator';
      const free = !(s.players && s.players.south && s.players.north);
      O.append(h('div', { class: 'card over-card' },
        h('div', { class: 'spinner', 'aria-hidden': 'true' }),
        h('h2', {}, t('room.waiting_title')),
        h('p', {}, t(watching ? 'room.waiting_body_watch' : 'room.waiting_body')),
        watching && free ? h('button', { class: 'btn primary join-seat', type: 'button', onclick: () => this.askName() }, t('invite.join')) : null,
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
      // Aborted (docs/protocol.md): no winner, no score, nothing to replay.
      const aborted = r.reason === 'aborted';
      if (aborted) { head = t('result.aborted'); cls = 'draw aborted'; }
      else if (r.winner === 'draw') { head = t('result.draw'); cls = 'draw'; }
      else if (seat) { head = r.winner === seat ? t('result.you_won') : t('result.you_lost'); cls = r.winner === seat ? 'win' : 'loss'; }
      else { head = t('result.wins', { name: this.seatName(r.winner) }); cls = 'win'; }
      const score = Array.isArray(r.score) ? r.score : [s.pits[s.houses], s.pits[2 * s.houses + 1]];
      const id = s.game_id ?? s.archive ?? r.game_id ?? r.id;
      const card = h('div', { class: 'card over-card result ' + cls, role: 'dialog', 'aria-label': head },
        h('div', { class: 'result-head' },
          h('div', { class: 'trophy', 'aria-hidden': 'true' }, icon(cls === 'win' ? 'trophy' : cls === 'draw' ? 'scale' : 'seed')),
          h('div', {}, h('h2', {}, head),
            h('p', { class: 'reason' }, this.reasonText(s)))),
        aborted ? null : h('div', { class: 'final-score' },
          h('span', { class: 'fs south' }, h('b', {}, String(score[0])), h('small', {}, this.seatName('south'))),
          h('span', { class: 'fs-sep' }, ':'),
          h('span', { class: 'fs north' }, h('b', {}, String(score[1])), h('small', {}, this.seatName('north')))),
        s.rating_change ? this.ratingChange(s) : null,
        h('div', { class: 'over-actions' },
          (seat || s.you === 'both') ? this.rematchButton(s) : null,
          id ? h('a', { class: 'btn ghost replay-link', href: '/g/' + id }, t('result.replay')) : null,
          id ? h('a', { class: 'btn ghost analyse-link', href: '/g/' + id + '?analyse=1' }, t('result.analyse')) : null,
          h('button', { class: 'btn ghost', type: 'button', onclick: () => { this.dismissed = { ...(this.dismissed || {}), [s.ply + ':' + r.reason]: true }; this.renderOverlay(this.shown); } }, t('result.see_board')),
          h('a', { class: 'btn ghost', href: '/', 'data-link': '' }, t('room.back_lobby'))));
      O.append(card);
      // The card stays over the board: on a board lower than the card, the board's place grows
      // (the players' bars move down) rather than the card covering them. On phones the card
      // covers the whole screen (style.css) and the board keeps its place.
      if (getComputedStyle(O).position === 'absolute') {
        // Its content's height and borders: the card's own height is capped at the board's
        // (max-height: 100%).
        const need = card.scrollHeight + card.offsetHeight - card.clientHeight + 24;
        if (need > wrap.offsetHeight) wrap.style.setProperty('min-height', need + 'px');
      }
    }
  }

  // While seeking, the room watches the lobby for how many wait in its pool.
  watchPools(on) {
    if (on === !!this.poolWatch) return;
    if (on) {
      const list = new LobbyList();
      const onList = (m) => {
        const r = list.apply(m);
        if (r === 'resync') conn.send({ type: 'lobby', changes: true });
        else if (r && Array.isArray(m.pools)) { this.pools = list.pools; this.renderSeekCount(); }
      };
      const offs = [conn.on('lobby', onList), conn.on('lobby_changes', onList)];
      this.poolWatch = () => offs.forEach((f) => f());
      conn.send({ type: 'lobby', changes: true });
    } else {
      this.poolWatch();
      this.poolWatch = null;
      this.seekCount = null;
      conn.send({ type: 'lobby', watch: false });
    }
  }

  renderSeekCount() {
    const el = this.seekCount, seek = seekOf(this.code), s = this.latest;
    if (!el || !seek || !s) return;
    const c = seek.clock;
    const pool = !seek.rated && (this.pools || []).find((p) => p.game === s.game &&
      (c ? p.clock && p.clock.initial_ms === c.initial_ms && p.clock.increment_ms === c.increment_ms : !p.clock));
    el.hidden = !pool;
    if (pool) el.textContent = t('seek.waiting', { n: pool.waiting });
  }

  // Cancel a seek: the room is left (a waiting room nobody sits in closes) and the lobby shows.
  cancelSeek() {
    forgetSeek(this.code);
    conn.request({ type: 'leave', room: this.code }, 4000).catch(() => {});
    navigate('/');
  }

  // What a rated game changed: each side's rating before and after, the viewer's own first.
  ratingChange(s) {
    const c = s.rating_change;
    const seats = s.you === 'north' ? ['north', 'south'] : ['south', 'north'];
    return h('div', { class: 'rating-change', 'aria-label': t('room.rating_change') }, seats.map((seat) => {
      const d = c[seat].after - c[seat].before;
      return h('span', { class: 'rc ' + seat + (d > 0 ? ' up' : d < 0 ? ' down' : ''), dataset: { seat } },
        h('small', {}, this.seatName(seat)),
        h('b', {}, String(c[seat].after)),
        h('span', { class: 'rc-diff' }, (d > 0 ? '+' : d < 0 ? '−' : '±') + Math.abs(d)));
    }));
  }

  renderMoves() {
    const E = this.el;
    clear(E.moves);
    const { list, complete } = this.log;
    E.moves.dataset.complete = String(complete);
    if (!list.length) { E.moves.append(h('li', { class: 'empty-note' }, t('room.no_moves'))); return; }
    let gap = 0;
    for (let i = 0; i <= list.length; i++) {
      const mv = list[i];
      if (i < list.length && !mv) { gap++; continue; }
      if (gap) { E.moves.append(h('li', { class: 'mv gap' }, t('moves.missing', { n: gap }))); gap = 0; }
      if (i < list.length) E.moves.append(moveItem(mv, i + 1, mv.seat ? this.seatName(playerSeat(list, i)) : ''));
    }
    if (!complete && list.length < this.log.ply) E.moves.append(h('li', { class: 'mv gap' }, t('moves.missing', { n: this.log.ply - list.length })));
    E.moves.scrollTop = E.moves.scrollHeight;
  }

  // A chat line as shown: its speaker (marked when an account's name, or a spectator), its time
  // and its text.
  chatLine(c) {
    const at = new Date(c.at || Date.now());
    const me = this.isMe(c);
    return h('div', { class: 'msg' + (me ? ' me' : '') + (c.spectator ? ' spectator' : ''), dataset: { player: c.player || '' } },
      h('span', { class: 'from' }, playerName(c.from) || '?'),
      c.account ? accountBadge() : null,
      c.spectator ? h('span', { class: 'tag' }, t('chat.spectator')) : null,
      h('span', { class: 'time' }, at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })),
      h('p', {}, c.text));
  }

  isMe(c) { return !!conn.me && (c.player ? c.player === conn.me.player : c.from === conn.me.name); }

  // Whether the reader's settings show line c: chat on, spectators shown, speaker not muted.
  chatShown(c) {
    const p = this.chatPrefs;
    if (this.isMe(c)) return !p.off;
    return !p.off && !(c.spectator && !p.spectators) && !(c.player && p.muted.includes(c.player));
  }

  addChat(c) {
    this.messages.push(c);
    if (this.messages.length > 200) this.messages.splice(0, this.messages.length - 200);
    if (!this.chatShown(c)) return;
    this.el.chatLog.append(this.chatLine(c));
    this.el.chatLog.scrollTop = this.el.chatLog.scrollHeight;
  }

  // The whole chat panel again: the lines the settings show, and the settings. The log is quiet
  // while it is filled (a screen reader reads new lines, not the history again).
  renderChat() {
    const E = this.el;
    const p = this.chatPrefs;
    E.chatLog.setAttribute('aria-live', 'off');
    clear(E.chatLog);
    for (const c of this.messages) if (this.chatShown(c)) E.chatLog.append(this.chatLine(c));
    E.chatLog.scrollTop = E.chatLog.scrollHeight;
    setTimeout(() => E.chatLog.setAttribute('aria-live', 'polite'), 0);
    E.chatLog.hidden = p.off;
    E.chatForm.hidden = p.off;
    E.chatOff.hidden = !p.off;
    this.renderChatSettings();
  }

  // The chat settings: spectators' lines shown, the opponent muted (a player's), chat off.
  renderChatSettings() {
    const E = this.el;
    const p = this.chatPrefs;
    const open = E.chatSettings.open;
    clear(E.chatSettings);
    const s = this.latest;
    const seat = s && (s.you === 'south' || s.you === 'north') ? s.you : null;
    const opp = seat && s.players && s.players[seat === 'south' ? 'north' : 'south'];
    this.chatSettingsKey = opp && opp.id ? opp.id + ':' + opp.name : '';
    const check = (label, checked, onchange, id) => h('label', { class: 'check' },
      h('input', { type: 'checkbox', checked, dataset: { pref: id }, onchange: (e) => { onchange(e.target.checked); this.saveChatPrefs(); } }), h('span', {}, label));
    append(E.chatSettings, [
      h('summary', { class: 'btn small ghost icon-btn', 'aria-label': t('chat.settings'), title: t('chat.settings') }, icon('sliders')),
      h('div', { class: 'chat-prefs' },
        check(t('chat.show_spectators'), p.spectators, (v) => { p.spectators = v; }, 'spectators'),
        opp && opp.id ? check(t('chat.mute', { name: playerName(opp) }), p.muted.includes(opp.id), (v) => {
          p.muted = p.muted.filter((x) => x !== opp.id);
          if (v) p.muted.push(opp.id);
        }, 'mute') : null,
        check(t('chat.turn_off'), p.off, (v) => { p.off = v; }, 'off')),
    ]);
    E.chatSettings.open = open;
  }

  // The settings are drawn again: the switch just pressed keeps the focus (WCAG 2.4.3).
  saveChatPrefs() {
    this.chatPrefs.muted = this.chatPrefs.muted.slice(-100);
    store('mc.chat', this.chatPrefs);
    const pref = document.activeElement && document.activeElement.dataset && document.activeElement.dataset.pref;
    this.renderChat();
    const again = pref && this.el.chatSettings.querySelector(`input[data-pref="${pref}"]`);
    if (again) again.focus();
  }

  sendChat() {
    const text = this.el.chatInput.value.trim();
    if (!text) return;
    conn.request({ type: 'chat', room: this.code, text: text.slice(0, 300) }, 4000).catch((e) => toast(errorText(e), 'error'));
    this.el.chatInput.value = '';
  }

  // A click on a playable house or its number key: plays at once, ending a replay in progress.
  play(seat, house) {
    const s = this.latest;
    if (!s || !this.canPlay(s) || !(s.legal || []).includes(house) || this.seatOf(s) !== seat) return;
    // The move goes first; then the replay in progress ends and the board shows the position the
    // move was chosen on (never a mid-sowing one).
    this.pending = { house, ply: s.ply };
    this.sendMove();
    if (this.running) this.finishReplay();
    this.board.show(s.pits, { burnt: burntSet(s), legal: [], seat: null, last: s.last, sides: this.sides(s) });
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
    // Typing goes to text fields; a switch (the chat settings' checkboxes) keeps the number keys.
    const tg = e.target;
    if (tg && ((tg.tagName === 'INPUT' && !['checkbox', 'radio', 'button'].includes(tg.type)) || tg.tagName === 'TEXTAREA' || tg.tagName === 'SELECT')) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (document.querySelector('dialog[open]')) return;
    if (/^[1-9]$/.test(e.key)) {
      const s = this.latest;
      if (s && this.canPlay(s)) {
        const house = Number(e.key);
        if ((s.legal || []).includes(house)) { e.preventDefault(); this.play(this.seatOf(s), house); }
      }
    } else if (e.key === 'Escape' || (e.key === ' ' && !(e.target && e.target.closest && e.target.closest('button, a, input, summary')))) {
      if (this.running) { e.preventDefault(); this.finishReplay(); }
    }
  }

  async resign() {
    if (!(await confirmDialog(t('resign.title'), t('resign.body'), 'room.resign', true))) return;
    conn.request({ type: 'resign', room: this.code }, 4000).catch((e) => toast(errorText(e), 'error'));
  }

  // Whether seat has a move in this game that a takeback can reach (the move list, or the ply when
  // the list is not whole): the pie rule's swap is final, so only moves after it count
  // (docs/protocol.md, "The pie rule").
  hasMove(seat) {
    const { list, complete } = this.log;
    const swap = list.findIndex((m) => m && m.swap);
    return list.some((m, i) => m && m.seat === seat && i > swap) || (!complete && (this.latest?.ply ?? 0) > 0);
  }

  // The pie rule's swap: a move without a house, for the side to move (the state's `swap`).
  swap() {
    const s = this.latest;
    if (!s || !s.swap || s.status !== 'playing') return;
    conn.request({ type: 'move', room: this.code, swap: true, ply: s.ply }, 8000).catch((e) => {
      if (e.code !== 'stale') toast(errorText(e), 'error');
    });
  }

  // The hint shown now: the last one, while the game is at the position it was for.
  currentHint(s = this.latest) {
    const x = this.hint;
    return x && s && s.status === 'playing' && x.ply === s.ply && (x.game_no === undefined || x.game_no === s.game_no) && x.seat === s.turn ? x : null;
  }

  async askHint() {
    const s = this.latest;
    if (!s || this.hinting) return;
    this.hinting = true;
    this.renderActions();
    try {
      const r = await conn.request({ type: 'hint', room: this.code, ply: s.ply }, 15000);
      if (r && r.type === 'hint') {
        this.hint = r;
        if (!this.currentHint()) toast(t('hint.stale'));
      } else if (r === null) toast(t('err.timeout'), 'error');
    } catch (e) {
      if (e.code === 'too_many_hints') toast(t('hint.wait', { s: Math.max(1, Math.ceil((e.retry_after_ms || 1000) / 1000)) }), 'error');
      else if (e.code === 'stale') toast(t('hint.stale'));
      else toast(errorText(e), 'error');
    } finally {
      this.hinting = false;
      this.renderActions();
      const btn = this.el && this.el.actions.querySelector('[data-action=hint]');
      if (btn && document.activeElement === document.body) btn.focus({ preventScroll: true });
    }
  }

  takeback(action) {
    conn.request({ type: 'takeback', room: this.code, action }, 4000).catch((e) => toast(errorText(e), 'error'));
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
