// The replay page /g/ID: an archived game (GET /api/games/ID, see the durable games issue), stepped
// forward and back, with what each move did, and the game as text (GET /api/games/ID.txt) to
// download. Positions come from the record: per-move pits when the record has them, otherwise the
// server's traces replayed from the start position. A finished game can be analysed (analysis.js):
// the evaluation graph, the marks in the move list and the best move at each step; /g/ID?analyse=1
// (the room's game-over card) asks for it at once. A step forward is sown seed by seed from its
// trace (at the room's animation speed, mc.speed); Play steps through the game by itself; the
// board can be turned to see it from North.
import { h, clear, icon, storage } from './ui.js';
import { t, onLang } from './i18n.js';
import { Board, burntSet, applyTrace, replayUnit, SPEEDS } from './board.js';
import { gameTitle, optionsText, localName, moveItem, playerName, playerSeat } from './common.js';
import { GameAnalysis, evalGraph, markBadge, stepInfo, accuracyLine } from './analysis.js';

// The pause between two moves when the game plays by itself, in ms.
const AUTO_PAUSE_MS = 700;

export class ReplayView {
  constructor(main, id) {
    this.main = main;
    this.id = id;
    this.rec = null;
    this.ply = 0;
    this.bottom = 'south'; // the seat nearest the viewer (Flip turns the board)
    this.auto = false;     // the game plays by itself
    this.gen = 0;          // counts steps started (a newer one ends the sowing of an older one)
    this.off = onLang(() => this.render());
    this.onKey = (e) => {
      if (!this.positions || (e.target && (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT'))) return;
      if (e.key === 'ArrowRight') { e.preventDefault(); this.user(this.ply + 1, true); }
      else if (e.key === 'ArrowLeft') { e.preventDefault(); this.user(this.ply - 1); }
      else if (e.key === 'Home') { e.preventDefault(); this.user(0); }
      else if (e.key === 'End') { e.preventDefault(); this.user(this.positions.length - 1); }
    };
    document.addEventListener('keydown', this.onKey);
    this.render();
    this.load();
  }

  destroy() { this.off(); document.removeEventListener('keydown', this.onKey); this.auto = false; this.gen++; if (this.board) this.board.skip(); if (this.analysis) this.analysis.destroy(); }

  async load() {
    try {
      const res = await fetch('/api/games/' + encodeURIComponent(this.id), { headers: { accept: 'application/json' } });
      if (res.status === 404) { this.state = 'missing'; this.render(); return; }
      if (!res.ok) throw new Error('http ' + res.status);
      const rec = await res.json();
      this.rec = rec.game && typeof rec.game === 'object' ? { ...rec, ...rec.game } : rec;
      this.prepare();
      this.state = 'ok';
      this.analysis = new GameAnalysis(this.id, () => this.renderAnalysis());
      const ask = typeof location !== 'undefined' && new URLSearchParams(location.search).has('analyse');
      if (this.rec.analysed || ask) this.analysis.fetch();
    } catch {
      this.state = 'error';
    }
    this.render();
  }

  prepare() {
    const r = this.rec;
    const m = r.houses ?? r.board?.houses, n = r.seeds ?? r.board?.seeds;
    this.m = m;
    const moves = r.moves || [];
    const start = r.start?.pits || r.initial?.pits || (() => { const p = new Array(2 * m + 2).fill(n); p[m] = 0; p[2 * m + 1] = 0; return p; })();
    const positions = [{ pits: start, burnt: new Set() }];
    let ok = true;
    for (const mv of moves) {
      const prev = positions[positions.length - 1];
      const after = mv.pits || mv.state?.pits || mv.after;
      if (Array.isArray(after)) positions.push({ pits: after, burnt: burntSet({ burnt: mv.burnt, houses: m }), mv });
      else if (Array.isArray(mv.trace)) { const x = applyTrace(prev.pits, mv.trace, prev.burnt); positions.push({ pits: x.pits, burnt: x.burnt, mv }); }
      else { ok = false; break; }
    }
    this.positions = ok ? positions : null;
    this.ply = ok ? positions.length - 1 : 0;
  }

  // A step the reader asked for: it stops the game playing by itself.
  user(p, animate = false) {
    if (this.auto) this.setAuto(false);
    return this.go(p, animate);
  }

  // Shows position p; one step forward with animate is sown from its trace first (at the room's
  // animation speed; none with "off" or prefers-reduced-motion and no speed chosen).
  async go(p, animate = false) {
    if (!this.positions) return;
    const to = Math.max(0, Math.min(this.positions.length - 1, p));
    const gen = ++this.gen;
    this.board.skip();
    const next = this.positions[to], from = this.positions[this.ply];
    const trace = next.mv && Array.isArray(next.mv.trace) && next.mv.trace.length ? next.mv.trace : null;
    const saved = storage('mc.speed', null);
    const reduced = typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
    const speed = SPEEDS[saved] !== undefined ? saved : reduced ? 'off' : 'normal';
    if (animate && trace && to === this.ply + 1 && replayUnit(speed, trace) > 0) {
      this.ply = to;
      this.labels();
      this.board.show(from.pits, { burnt: from.burnt, sides: this.sides() });
      await this.board.animate(from.pits, trace, () => replayUnit(speed, trace));
      if (gen !== this.gen) return;
    }
    this.ply = to;
    this.draw();
  }

  // Play / Pause: the game steps forward by itself, each move sown, until its end.
  setAuto(on) {
    this.auto = on;
    if (this.autoBtn) {
      this.autoBtn.replaceChildren(icon(on ? 'pause' : 'play'));
      this.autoBtn.setAttribute('aria-label', t(on ? 'replay.pause' : 'replay.play'));
      this.autoBtn.title = t(on ? 'replay.pause' : 'replay.play');
      this.autoBtn.setAttribute('aria-pressed', String(on));
    }
    if (on) this.run();
  }

  async run() {
    if (this.ply >= this.positions.length - 1) await this.go(0);
    while (this.auto && this.ply < this.positions.length - 1) {
      await this.go(this.ply + 1, true);
      if (!this.auto) return;
      await new Promise((res) => setTimeout(res, AUTO_PAUSE_MS));
    }
    if (this.auto) this.setAuto(false);
  }

  flip() {
    this.bottom = this.bottom === 'south' ? 'north' : 'south';
    this.gen++;
    this.board.skip();
    this.board.setup(this.gameKind, this.m, this.bottom);
    this.flipBtn.setAttribute('aria-pressed', String(this.bottom === 'north'));
    this.draw();
  }

  sides() { return { south: { name: this.playerName('south') }, north: { name: this.playerName('north') } }; }

  labels() {
    this.plyLabel.textContent = t('replay.ply', { n: this.ply, total: this.positions.length - 1 });
    this.slider.value = String(this.ply);
    for (const li of this.list.children) li.classList.toggle('current', Number(li.dataset.ply) === this.ply);
    this.renderStep();
  }

  names() { return { south: this.playerName('south'), north: this.playerName('north') }; }

  // The analysis panel: the Analyse button, its progress, or the graph and the accuracy; and the
  // marks in the move list.
  renderAnalysis() {
    const box = this.anBox, a = this.analysis;
    if (!box || !a) return;
    box.replaceChildren();
    box.dataset.state = a.state;
    const status = (key, vars) => h('p', { class: 'an-status', role: 'status' }, t(key, vars));
    if (a.state === 'done') {
      const d = a.data, res = this.rec.score ?? this.rec.result?.score;
      box.append(accuracyLine(d, this.names()),
        this.graph = evalGraph(d.plies, res, this.ply, this.names(), (p) => this.user(p)),
        this.stepBox = h('div', { class: 'an-step', 'aria-live': 'polite' }));
      for (const li of this.list.children) {
        const p = a.ply(Number(li.dataset.ply) - 1);
        li.querySelector('.mark')?.remove();
        const badge = markBadge(p);
        if (badge) li.querySelector('b')?.after(badge);
      }
      this.renderStep();
      return;
    }
    this.graph = null;
    this.stepBox = null;
    if (a.state === 'none' || a.state === 'error' || a.state === 'asking') {
      if (a.state === 'error') box.append(status('analysis.error'));
      else box.append(h('p', {}, t('analysis.none')));
      box.append(h('button', { class: 'btn small primary an-go', type: 'button', disabled: a.state === 'asking', onclick: () => a.fetch() }, t('analysis.analyse')));
    } else if (a.state === 'queued') box.append(status('analysis.queued', { n: a.progress?.ahead ?? 0 }));
    else if (a.state === 'running' || a.state === 'saving') box.append(status('analysis.running', { n: a.progress?.plies ?? this.positions.length - 1 }));
    else if (a.state === 'rate_limited') box.append(status('analysis.rate_limited', { min: Math.max(1, Math.ceil((a.retry || 60000) / 60000)) }));
    else if (a.state === 'unsupported') box.append(status('analysis.unsupported'));
    else box.append(status('analysis.busy'), h('button', { class: 'btn small an-go', type: 'button', onclick: () => a.fetch() }, t('analysis.analyse')));
  }

  // The step shown: the graph's cursor, the best move from here and what the last move lost.
  renderStep() {
    if (!this.stepBox || !this.analysis || this.analysis.state !== 'done') return;
    this.stepBox.replaceChildren(...stepInfo(this.analysis, this.ply, this.names()));
    const cur = this.graph?.querySelector('.cursor');
    if (cur) {
      const n = this.analysis.data.plies.length, x = 6 + (n ? (this.ply * (600 - 12)) / n : 0);
      cur.setAttribute('x1', String(x));
      cur.setAttribute('x2', String(x));
    }
  }

  draw() {
    const pos = this.positions[this.ply];
    this.board.show(pos.pits, { burnt: pos.burnt, last: pos.mv ? { seat: pos.mv.seat, house: pos.mv.house, trace: pos.mv.trace } : null,
      sides: this.sides() });
    this.labels();
  }

  // A game at one screen (the same player in both seats) shows the names typed in this browser
  // (Player 1 / Player 2 until then), as the room did.
  local() {
    const p = this.rec.players || {};
    return !!(p.south && p.north && typeof p.south === 'object' && p.south.id && p.south.id === p.north.id);
  }

  playerName(seat) {
    if (this.local()) return localName(seat);
    const p = this.rec.players && this.rec.players[seat];
    if (!p) return t('seat.' + seat);
    return playerName(p) || t('seat.' + seat);
  }

  render() {
    clear(this.main);
    document.title = t('replay.title') + ' · Mancala Online';
    if (!this.state) { this.main.append(h('section', { class: 'card notfound' }, h('h1', {}, t('replay.title')), h('p', {}, t('replay.loading')))); return; }
    if (this.state !== 'ok') {
      this.main.append(h('section', { class: 'card notfound', dataset: { state: this.state } },
        h('div', { class: 'big-icon', 'aria-hidden': 'true' }, icon('scroll')),
        h('h1', {}, t(this.state === 'missing' ? 'replay.missing_title' : 'replay.error_title')),
        h('p', {}, t(this.state === 'missing' ? 'replay.missing_body' : 'replay.error_body', { id: this.id })),
        h('a', { class: 'btn primary', href: '/', 'data-link': '' }, t('room.back_lobby'))));
      return;
    }
    const r = this.rec;
    const game = r.game && typeof r.game === 'string' ? r.game : r.kind;
    const boardEl = h('div', { class: 'board' });
    // The badges of a move being sown (relay, capture...) show in a line under the board, never
    // over its counts.
    const badges = h('div', { class: 'badge-host', 'aria-hidden': 'true' });
    this.board = new Board(boardEl, { badgeHost: badges });
    this.gameKind = game;
    this.board.setup(game, this.m, this.bottom);
    this.plyLabel = h('span', { class: 'ply-label' });
    this.list = h('ol', { class: 'moves' });
    const moves = r.moves || [];
    moves.forEach((mv, i) => this.list.append(moveItem(mv, i + 1, mv.seat ? this.playerName(playerSeat(moves, i)) : '', {
      tabindex: '0', onclick: () => this.user(i + 1), onkeydown: (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); this.user(i + 1); } } })));
    this.slider = h('input', { type: 'range', min: '0', max: String(this.positions ? this.positions.length - 1 : 0), value: '0', 'aria-label': t('replay.position'), oninput: (e) => this.user(Number(e.target.value)) });
    // The archive record (durable games issue) has result as the winner's name and reason beside
    // it; a result object in the state's shape is accepted too.
    const res = typeof r.result === 'string' ? { winner: r.result, reason: r.reason, score: r.score } : (r.result || {});
    const btn = (label, key, f) => h('button', { class: 'btn small', type: 'button', 'aria-label': t(key), title: t(key), onclick: f }, label);
    this.main.append(h('div', { class: 'room replay' },
      h('header', { class: 'room-head' }, h('div', {},
        h('h1', { class: 'room-title' }, t('replay.title') + ' · ' + gameTitle(game) + ' · ' + t('room.board_size', { m: this.m, n: r.seeds ?? r.board?.seeds })),
        h('p', { class: 'room-sub' }, [this.playerName('south') + ' – ' + this.playerName('north'), optionsText(game, r.options),
          res.winner ? (res.winner === 'draw' ? t('result.draw') : t('result.wins', { name: this.playerName(res.winner) })) + (res.reason ? ' (' + t('reason.' + res.reason) + ')' : '') : null].filter(Boolean).join(' · ')))),
      h('section', { class: 'play-area', style: { '--m': String(this.m) } },
        h('div', { class: 'board-wrap' }, boardEl),
        h('div', { class: 'status-row replay-badges' }, badges),
        this.positions ? h('div', { class: 'replay-controls' },
          btn(icon('first'), 'replay.first', () => this.user(0)), btn(icon('back'), 'replay.back', () => this.user(this.ply - 1)),
          this.autoBtn = h('button', { class: 'btn small primary replay-auto', type: 'button', 'aria-pressed': 'false', onclick: () => this.setAuto(!this.auto) }),
          btn(icon('fwd'), 'replay.forward', () => this.user(this.ply + 1, true)), btn(icon('last'), 'replay.last', () => this.user(this.positions.length - 1)),
          this.slider,
          this.plyLabel,
          this.flipBtn = h('button', { class: 'btn small replay-flip', type: 'button', 'aria-pressed': String(this.bottom === 'north'), 'aria-label': t('replay.flip'), title: t('replay.flip'), onclick: () => this.flip() }, icon('flip'))) : h('p', { class: 'status-line' }, t('replay.no_positions')),
        Array.isArray(res.score) ? h('div', { class: 'final-score' },
          h('span', { class: 'fs south' }, h('b', {}, String(res.score[0])), h('small', {}, this.playerName('south'))),
          h('span', { class: 'fs-sep' }, ':'),
          h('span', { class: 'fs north' }, h('b', {}, String(res.score[1])), h('small', {}, this.playerName('north')))) : null),
      h('aside', { class: 'side' },
        this.positions ? h('section', { class: 'card panel analysis', 'aria-labelledby': 'an-title' },
          h('h2', { id: 'an-title' }, t('analysis.title')), this.anBox = h('div', { class: 'an-box' })) : null,
        h('section', { class: 'card panel' }, h('h2', {}, t('room.moves')), this.list),
        h('section', { class: 'card panel export' },
          h('h2', {}, t('replay.export')),
          h('p', {}, t('replay.export_body')),
          h('a', { class: 'btn small', href: '/api/games/' + encodeURIComponent(this.id) + '.txt', download: 'mancala-' + this.id + '.txt', type: 'text/plain' },
            icon('download'), t('replay.download'))))));
    if (this.positions) { this.setAuto(false); this.renderAnalysis(); this.draw(); }
    else if (Array.isArray(r.pits)) this.board.show(r.pits, {});
    else boardEl.parentElement.hidden = true;
  }
}
