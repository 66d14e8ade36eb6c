// The board: pits in the rule book's flat layout drawn as a real mancala board, seeds drawn as seeds,
// and the last move replayed step by step from the server's trace. The board never decides a rule:
// it draws the pits it is given and the steps the server sent.
import { h, clear } from './ui.js';
import { t } from './i18n.js';

const KINDS = ['pick', 'sow', 'relay', 'capture', 'sweep', 'extra_turn', 'round_end', 'refill', 'burn'];
const HOUSE_CAP = 28, STORE_CAP = 64;

// One trace step in a common shape, whatever names the server chose for the fields.
export function normStep(s) {
  if (!s || typeof s !== 'object') return null;
  let kind = s.kind ?? s.step ?? s.type ?? s.k ?? s.what;
  if (typeof kind === 'number') kind = KINDS[kind];
  const num = (...v) => { for (const x of v) if (typeof x === 'number') return x; return undefined; };
  return { kind, pit: num(s.pit, s.p, s.from, s.index), count: num(s.count, s.n, s.seeds, s.round), store: num(s.store, s.to, s.into) };
}

// Burnt houses from the state, in whatever form the server sends them: pit indexes, a bit mask, or
// per-seat house numbers.
export function burntSet(state) {
  const out = new Set();
  const b = state && (state.burnt ?? state.burned);
  const m = state && state.houses;
  if (typeof b === 'number') { for (let k = 0; k < 32; k++) if (b & (1 << k)) out.add(k); }
  else if (Array.isArray(b)) b.forEach((v, i) => { if (typeof v === 'number') out.add(v); else if (v === true) out.add(i); });
  else if (b && typeof b === 'object') {
    for (const hn of b.south || []) out.add(hn - 1);
    for (const hn of b.north || []) out.add(m + hn);
  }
  return out;
}

function hash(a, b) {
  let x = (a * 374761393 + b * 668265263) | 0;
  x = (x ^ (x >>> 13)) * 1274126177 | 0;
  return ((x ^ (x >>> 16)) >>> 0) / 4294967296;
}

export function pitSeat(k, m) { return k <= m ? 'south' : 'north'; }
export function isStore(k, m) { return k === m || k === 2 * m + 1; }
export function houseNumber(k, m) { return k < m ? k + 1 : k - m; }
export function pitIndex(seat, house, m) { return seat === 'south' ? house - 1 : m + house; }

export class Board {
  constructor(root, { onPlay, mini = false } = {}) {
    this.root = root;
    this.onPlay = onPlay;
    this.mini = mini;
    this.key = '';
    this.pits = [];
    this.els = [];
    this.counts = [];
    this.burnt = new Set();
    this.anim = null;
  }

  // Builds the pits for a game and board size, with `bottom` (the viewer's seat) nearest the viewer.
  setup(game, m, bottom) {
    const key = game + m + bottom;
    if (key === this.key) return;
    this.key = key;
    this.game = game; this.m = m; this.bottom = bottom;
    const cw = game === 'congkak';
    clear(this.root);
    this.root.className = 'board ' + (cw ? 'cw' : 'ccw') + (this.mini ? ' mini' : '');
    this.root.style.setProperty('--m', String(m));
    if (!this.mini) { this.root.setAttribute('role', 'group'); this.root.setAttribute('aria-label', t('game.' + game)); }
    else this.root.setAttribute('aria-hidden', 'true');
    this.board = this.root;
    this.els = []; this.counts = [];
    const top = bottom === 'south' ? 'north' : 'south';
    for (let k = 0; k < 2 * m + 2; k++) {
      const seat = pitSeat(k, m), store = isStore(k, m), mine = seat === bottom;
      let col, row;
      if (store) { col = (mine !== cw) ? m + 2 : 1; row = '2 / span 2'; }
      else {
        const i = houseNumber(k, m);
        col = (mine !== cw) ? i + 1 : m + 2 - i;
        row = mine ? '3' : '2';
      }
      const el = h(store ? 'div' : 'button', {
        class: 'pit ' + (store ? 'store ' : 'house ') + (mine ? 'near' : 'far') + ' ' + seat,
        dataset: { pit: String(k) },
        style: { 'grid-column': String(col), 'grid-row': row },
        type: store ? null : 'button',
        tabindex: store ? null : '-1',
      }, h('span', { class: 'seeds', 'aria-hidden': 'true' }), h('span', { class: 'count' }, '0'));
      if (!store) el.addEventListener('click', () => { if (el.classList.contains('legal') && this.onPlay) this.onPlay(seat, houseNumber(k, m)); });
      this.els[k] = el;
      this.counts[k] = -1;
      this.root.append(el);
      if (!store && !this.mini) {
        const lab = h('span', { class: 'num ' + (mine ? 'near' : 'far'), style: { 'grid-column': String(col), 'grid-row': mine ? '4' : '1' }, 'aria-hidden': 'true' }, String(houseNumber(k, m)));
        this.root.append(lab);
      }
    }
    this.hand = h('span', { class: 'hand', 'aria-hidden': 'true' });
    this.badge = h('span', { class: 'badge', 'aria-hidden': 'true' });
    this.root.append(this.hand, this.badge);
    this.top = top;
  }

  // Draws the seeds and counts of every pit and marks burnt and playable houses.
  show(pits, { burnt = new Set(), legal = [], seat = null, last = null } = {}) {
    this.pits = pits.slice();
    this.burnt = burnt;
    const m = this.m;
    for (let k = 0; k < pits.length && k < this.els.length; k++) this.drawPit(k, pits[k]);
    const playable = new Set(seat ? legal.map((hn) => pitIndex(seat, hn, m)) : []);
    for (let k = 0; k < this.els.length; k++) {
      const el = this.els[k];
      el.classList.toggle('burnt', burnt.has(k));
      el.classList.remove('hit', 'cap', 'picked');
      if (isStore(k, m)) { el.setAttribute('aria-label', t('board.store_label', { who: this.who(pitSeat(k, m)), n: pits[k] })); continue; }
      const ok = playable.has(k);
      el.classList.toggle('legal', ok);
      el.tabIndex = ok ? 0 : -1;
      el.setAttribute('aria-disabled', ok ? 'false' : 'true');
      el.setAttribute('aria-label', t(burnt.has(k) ? 'board.burnt_label' : 'board.house_label', { who: this.who(pitSeat(k, m)), house: houseNumber(k, m), n: pits[k] }));
    }
    this.markLast(last);
  }

  who(seat) { return t(seat === this.bottom ? 'board.side_near' : 'board.side_far'); }

  markLast(last) {
    for (const el of this.els) el.classList.remove('last-from', 'last-to');
    if (!last) return;
    const steps = (last.trace || []).map(normStep).filter(Boolean);
    const pick = steps.find((s) => s.kind === 'pick');
    const from = pick ? pick.pit : (last.seat && last.house ? pitIndex(last.seat, last.house, this.m) : null);
    if (from !== null && this.els[from]) this.els[from].classList.add('last-from');
    const sows = steps.filter((s) => s.kind === 'sow');
    if (sows.length && this.els[sows[sows.length - 1].pit]) this.els[sows[sows.length - 1].pit].classList.add('last-to');
  }

  drawPit(k, n) {
    const el = this.els[k];
    if (!el) return;
    el.querySelector('.count').textContent = String(n);
    if (this.counts[k] === n) return;
    const box = el.querySelector('.seeds');
    const store = isStore(k, this.m);
    const cap = store ? STORE_CAP : HOUSE_CAP;
    const want = Math.min(n, cap);
    const have = box.childElementCount;
    for (let i = have; i < want; i++) {
      const r = Math.sqrt((i + 0.35) / cap) * 0.95;
      const a = i * 2.39996 + hash(k, 7) * 6.283;
      const j = (hash(k, i) - 0.5) * 0.06;
      const rx = store ? 0.30 : 0.31, ry = store ? 0.40 : 0.31;
      const x = 50 + (Math.cos(a) * r * rx + j) * 100;
      const y = 50 + (Math.sin(a) * r * ry + (hash(i, k) - 0.5) * 0.05) * 100;
      const s = h('span', { class: 'seed c' + Math.floor(hash(k * 31 + i, 3) * 5) + (this.counts[k] >= 0 ? ' drop' : '') });
      s.style.setProperty('left', x.toFixed(1) + '%');
      s.style.setProperty('top', y.toFixed(1) + '%');
      s.style.setProperty('--rot', Math.floor(hash(i, k * 5) * 360) + 'deg');
      box.append(s);
    }
    for (let i = have; i > want; i--) box.lastElementChild.remove();
    el.classList.toggle('empty', n === 0);
    this.counts[k] = n;
  }

  flash(k, cls, ms) {
    const el = this.els[k];
    if (!el) return;
    el.classList.remove(cls);
    void el.offsetWidth;
    el.classList.add(cls);
    setTimeout(() => el.classList.remove(cls), ms);
  }

  moveHand(k, n) {
    const el = this.els[k];
    if (!el || !n) { this.hand.classList.remove('on'); return; }
    this.hand.textContent = String(n);
    this.hand.style.setProperty('left', (el.offsetLeft + el.offsetWidth / 2) + 'px');
    this.hand.style.setProperty('top', (el.offsetTop) + 'px');
    this.hand.classList.add('on');
  }

  showBadge(text) {
    this.badge.textContent = text;
    this.badge.classList.remove('on');
    void this.badge.offsetWidth;
    this.badge.classList.add('on');
  }

  skip() { if (this.anim) this.anim.skip = true; }
  get animating() { return !!this.anim; }

  // Replays trace on top of `from`; resolves when done or skipped. delayFn() gives the step time in ms
  // (0: no animation).
  async animate(from, trace, delayFn) {
    const steps = (trace || []).map(normStep).filter((s) => s && s.kind);
    const w = from.slice();
    const burnt = new Set(this.burnt);
    const anim = { skip: false };
    this.anim = anim;
    for (const el of this.els) el.classList.remove('legal', 'last-from', 'last-to');
    this.root.classList.add('animating');
    let hand = 0;
    const wait = (f) => new Promise((res) => {
      const d = delayFn() * f;
      if (anim.skip || d <= 0) return res();
      const end = Date.now() + d;
      const tick = () => (anim.skip || Date.now() >= end ? res() : setTimeout(tick, Math.min(40, end - Date.now())));
      tick();
    });
    const ok = (k) => typeof k === 'number' && k >= 0 && k < w.length;
    for (const s of steps) {
      if (anim.skip) break;
      switch (s.kind) {
        case 'pick':
        case 'relay':
          if (!ok(s.pit)) break;
          hand = s.count ?? w[s.pit];
          w[s.pit] = Math.max(0, w[s.pit] - hand);
          this.drawPit(s.pit, w[s.pit]);
          this.flash(s.pit, 'picked', 600);
          this.moveHand(s.pit, hand);
          if (s.kind === 'relay') this.showBadge(t('anim.relay', { n: hand }));
          await wait(1.4);
          break;
        case 'sow':
          if (!ok(s.pit)) break;
          w[s.pit] += s.count ?? 1;
          hand = Math.max(0, hand - (s.count ?? 1));
          this.drawPit(s.pit, w[s.pit]);
          this.flash(s.pit, 'hit', 450);
          this.moveHand(s.pit, hand);
          await wait(1);
          break;
        case 'capture':
        case 'sweep':
        case 'refill': {
          this.moveHand(null, 0);
          const src = s.kind === 'refill' ? s.store : s.pit, dst = s.kind === 'refill' ? s.pit : s.store;
          const n = s.count ?? (ok(src) ? w[src] : 0);
          if (ok(src)) { w[src] = Math.max(0, w[src] - n); this.drawPit(src, w[src]); this.flash(src, s.kind === 'capture' ? 'cap' : 'hit', 700); }
          if (ok(dst)) { w[dst] += n; this.drawPit(dst, w[dst]); this.flash(dst, 'hit', 700); }
          // Burning is decided afresh each round: a refilled house that was burnt is played again.
          if (s.kind === 'refill' && ok(dst) && burnt.delete(dst)) this.els[dst].classList.remove('burnt');
          if (s.kind === 'capture') this.showBadge(t('anim.capture', { n }));
          await wait(s.kind === 'capture' ? 2.2 : 1.2);
          break;
        }
        case 'extra_turn':
          this.moveHand(null, 0);
          this.showBadge(t('anim.extra_turn'));
          await wait(2);
          break;
        case 'round_end':
          this.moveHand(null, 0);
          this.showBadge(t('anim.round_end', { n: s.count ?? '' }));
          await wait(3);
          break;
        case 'burn':
          if (!ok(s.pit)) break;
          burnt.add(s.pit);
          this.els[s.pit].classList.add('burnt');
          this.showBadge(t('anim.burn'));
          await wait(1.5);
          break;
        default:
          break;
      }
    }
    this.moveHand(null, 0);
    this.root.classList.remove('animating');
    if (this.anim === anim) this.anim = null;
  }
}

// The pits after replaying trace on top of pits (for the replay page); burnt houses included.
export function applyTrace(pits, trace, burnt) {
  const w = pits.slice();
  const b = new Set(burnt || []);
  const ok = (k) => typeof k === 'number' && k >= 0 && k < w.length;
  for (const s of (trace || []).map(normStep)) {
    if (!s) continue;
    if ((s.kind === 'pick' || s.kind === 'relay') && ok(s.pit)) w[s.pit] -= s.count ?? w[s.pit];
    else if (s.kind === 'sow' && ok(s.pit)) w[s.pit] += s.count ?? 1;
    else if ((s.kind === 'capture' || s.kind === 'sweep') && ok(s.pit) && ok(s.store)) { const n = s.count ?? w[s.pit]; w[s.pit] -= n; w[s.store] += n; }
    else if (s.kind === 'refill' && ok(s.pit) && ok(s.store)) { w[s.store] -= s.count; w[s.pit] += s.count; b.delete(s.pit); }
    else if (s.kind === 'burn' && ok(s.pit)) b.add(s.pit);
  }
  return { pits: w, burnt: b };
}
