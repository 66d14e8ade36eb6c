// The board: pits in the rule book's flat layout drawn as a real mancala board, seeds drawn as seeds,
// and the last move replayed step by step from the server's trace. The board never decides a rule:
// it draws the pits it is given and the steps the server sent.
//
// Two layouts from the same elements: across (stores at the ends, the viewer's row at the bottom)
// and, on narrow screens (style.css), upright (the board turned a quarter clockwise: the viewer's
// houses in the left column, the stores at the top and bottom), so that houses stay big enough to
// tap. Each pit carries its grid place in both (--col/--row and --vcol/--vrow).
import { h, clear } from './ui.js';
import { t } from './i18n.js';
import { normStep } from './moves.js';

export { normStep };

const HOUSE_CAP = 28, STORE_CAP = 64;

// How long each kind of step holds, in step units (a capture holds longer than a sown seed).
export const STEP_WEIGHT = { pick: 1.4, relay: 1.4, sow: 1, capture: 2.2, sweep: 1.2, refill: 1.2, extra_turn: 2, round_end: 3, burn: 1.5 };

// The step units of a whole trace.
export function traceWeight(trace) {
  let w = 0;
  for (const s of (Array.isArray(trace) ? trace : []).map(normStep)) if (s && STEP_WEIGHT[s.kind]) w += STEP_WEIGHT[s.kind];
  return w;
}

// The time of one step unit: `base` ms, shortened so that the whole trace takes at most `budget` ms.
export function stepUnit(base, budget, trace) {
  const w = traceWeight(trace);
  return w > 0 && base * w > budget ? budget / w : base;
}

// Replay speeds: the time of one step unit in ms ('off': no replay).
export const SPEEDS = { slow: 420, normal: 220, fast: 90, off: 0 };
// The longest replay at Normal, in ms; Slow and Fast in proportion to their step times (about 2.9 s
// and 0.6 s), however many seeds the move sows.
export const REPLAY_MS = 1500;

// The time of one step unit of trace at speed (a key of SPEEDS); 0: no replay.
export function replayUnit(speed, trace) {
  const base = SPEEDS[speed] ?? SPEEDS.normal;
  return base ? stepUnit(base, REPLAY_MS * base / SPEEDS.normal, trace) : 0;
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
  // onPlay(seat, house): a playable house was clicked. badgeHost: where the move's badges (relay,
  // capture, extra turn) show, instead of over the middle of the board. mini: a small picture.
  constructor(root, { onPlay, mini = false, badgeHost = null } = {}) {
    this.root = root;
    this.onPlay = onPlay;
    this.mini = mini;
    this.badgeHost = badgeHost;
    this.key = '';
    this.pits = [];
    this.els = [];
    this.counts = [];
    this.labels = [];
    this.burnt = new Set();
    this.anim = null;
    this.sides = null;
  }

  // Builds the pits for a game and board size, with `bottom` (the viewer's seat) nearest the viewer.
  setup(game, m, bottom) {
    const key = game + m + bottom + (this.mini ? 'mini' : '');
    if (key === this.key) return;
    this.key = key;
    this.game = game; this.m = m; this.bottom = bottom;
    const cw = game === 'congkak';
    clear(this.root);
    this.root.className = 'board ' + (cw ? 'cw' : 'ccw') + (this.mini ? ' mini' : '');
    this.root.style.setProperty('--m', String(m));
    if (!this.mini) {
      this.root.setAttribute('role', 'group');
      this.root.setAttribute('aria-label', t('game.' + game));
      this.root.tabIndex = -1; // focus lands here when the focused house stops being playable
    } else this.root.setAttribute('aria-hidden', 'true');
    this.board = this.root;
    this.els = []; this.counts = []; this.labels = [];
    // Grid places: across, rows 1 (far numbers), 2 (far houses), 3 (near houses), 4 (near numbers)
    // and columns 1..m+2; upright, the same turned a quarter clockwise (column 5 - row, row = column).
    const place = (el, col, row, span) => {
      el.style.setProperty('--col', String(col));
      el.style.setProperty('--row', span ? row + ' / span 2' : String(row));
      el.style.setProperty('--vcol', span ? (5 - row - 1) + ' / span 2' : String(5 - row));
      el.style.setProperty('--vrow', String(col));
    };
    for (let k = 0; k < 2 * m + 2; k++) {
      const seat = pitSeat(k, m), store = isStore(k, m), mine = seat === bottom;
      const button = !store && !this.mini; // a mini board is a picture: nothing to press
      const el = h(button ? 'button' : 'div', {
        class: 'pit ' + (store ? 'store ' : 'house ') + (mine ? 'near' : 'far') + ' ' + seat,
        dataset: { pit: String(k) },
        type: button ? 'button' : null,
        tabindex: button ? '-1' : null,
      }, h('span', { class: 'seeds', 'aria-hidden': 'true' }), h('span', { class: 'count', 'aria-hidden': store ? 'true' : null }, '0'));
      if (store) {
        place(el, (mine !== cw) ? m + 2 : 1, 2, true);
        if (!this.mini) { this.labels[k] = h('span', { class: 'sr-only store-label' }); el.append(this.labels[k]); }
      } else {
        const i = houseNumber(k, m);
        place(el, (mine !== cw) ? i + 1 : m + 2 - i, mine ? 3 : 2, false);
        if (button) el.addEventListener('click', () => { if (el.classList.contains('legal') && this.onPlay) this.onPlay(seat, houseNumber(k, m)); });
      }
      this.els[k] = el;
      this.counts[k] = -1;
      this.root.append(el);
      if (!store && !this.mini) {
        const i = houseNumber(k, m);
        const lab = h('span', { class: 'num ' + (mine ? 'near' : 'far'), 'aria-hidden': 'true' }, String(i));
        place(lab, (mine !== cw) ? i + 1 : m + 2 - i, mine ? 4 : 1, false);
        this.root.append(lab);
      }
    }
    this.hand = h('span', { class: 'hand', 'aria-hidden': 'true' });
    this.root.append(this.hand);
    if (!this.badge) this.badge = h('span', { class: 'badge', 'aria-hidden': 'true' });
    if (this.badgeHost) this.badgeHost.append(this.badge); else this.root.append(this.badge);
    this.top = bottom === 'south' ? 'north' : 'south';
  }

  // Draws the seeds and counts of every pit and marks burnt and playable houses. sides: per seat,
  // {you: true} for the viewer's own side or {name} for someone else's, for what a screen reader
  // hears ("Your store: 12 seeds", "Ana's store: 9 seeds"); without it, the seats' names.
  show(pits, { burnt = new Set(), legal = [], seat = null, last = null, sides = null } = {}) {
    this.pits = pits.slice();
    this.burnt = burnt;
    if (sides) this.sides = sides;
    const m = this.m;
    for (let k = 0; k < pits.length && k < this.els.length; k++) this.drawPit(k, pits[k]);
    for (let k = 0; k < this.els.length; k++) {
      const el = this.els[k];
      el.classList.toggle('burnt', burnt.has(k));
      el.classList.remove('hit', 'cap', 'picked');
    }
    this.setPlayable(seat, legal);
    this.markLast(last);
  }

  // Marks the houses of seat listed in legal (house numbers) as playable, and no others.
  setPlayable(seat, legal) {
    const m = this.m;
    const playable = new Set(seat ? (legal || []).map((hn) => pitIndex(seat, hn, m)) : []);
    let lostFocus = false;
    for (let k = 0; k < this.els.length; k++) {
      if (isStore(k, m) || this.mini) continue;
      const el = this.els[k];
      const ok = playable.has(k);
      if (!ok && document.activeElement === el) lostFocus = true;
      el.classList.toggle('legal', ok);
      el.tabIndex = ok ? 0 : -1;
      el.setAttribute('aria-disabled', ok ? 'false' : 'true');
    }
    // A house that was focused (clicked or tabbed to) and is no longer playable gives the focus to
    // the board, so it keeps no ring that looks like "play here".
    if (lostFocus && !this.mini) this.root.focus({ preventScroll: true });
    this.relabel();
  }

  side(seat) {
    const s = this.sides && this.sides[seat];
    return s || { name: t('seat.' + seat) };
  }

  // The names a screen reader reads: each house and store with its seeds.
  relabel() {
    if (this.mini) return;
    const m = this.m;
    for (let k = 0; k < this.els.length; k++) {
      const seat = pitSeat(k, m), side = this.side(seat);
      const n = this.counts[k] < 0 ? 0 : this.counts[k];
      if (isStore(k, m)) {
        const text = side.you ? t('board.store_you', { n }) : t('board.store_of', { name: side.name, n });
        if (this.labels[k] && this.labels[k].textContent !== text) this.labels[k].textContent = text;
        continue;
      }
      const who = side.you ? t('board.side_near') : side.name;
      this.els[k].setAttribute('aria-label', t(this.burnt.has(k) ? 'board.burnt_label' : 'board.house_label', { who, house: houseNumber(k, m), n }));
    }
  }

  // Marks the pit suggested by a hint (a pit index, or null for none): a ring and the house's
  // label says so to a screen reader.
  markHint(pit) {
    if (this.mini) return;
    for (let k = 0; k < this.els.length; k++) {
      const on = k === pit;
      const el = this.els[k];
      if (el.classList.contains('hinted') === on) continue;
      el.classList.toggle('hinted', on);
      if (on) el.setAttribute('aria-description', t('hint.marked'));
      else el.removeAttribute('aria-description');
    }
  }

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

  // Marks pit k with cls for ms (again: for ms from now). No layout is forced: a replay may draw
  // hundreds of steps a second.
  flash(k, cls, ms) {
    const el = this.els[k];
    if (!el) return;
    if (!this.flashes) this.flashes = new Map();
    const key = k + cls;
    clearTimeout(this.flashes.get(key));
    el.classList.add(cls);
    this.flashes.set(key, setTimeout(() => { el.classList.remove(cls); this.flashes.delete(key); }, ms));
  }

  // The point above each pit where the hand holding the seeds shows (measured once per replay).
  measure() {
    this.spots = this.els.map((el) => ({ x: el.offsetLeft + el.offsetWidth / 2, y: el.offsetTop }));
  }

  moveHand(k, n) {
    const at = this.spots && this.spots[k];
    if (!at || !n) { this.hand.classList.remove('on'); return; }
    this.hand.textContent = String(n);
    this.hand.style.setProperty('left', at.x + 'px');
    this.hand.style.setProperty('top', at.y + 'px');
    this.hand.classList.add('on');
  }

  // A badge for a moment (relay, capture, extra turn...); a new one restarts the fade by swapping
  // between two identical animations rather than forcing a layout.
  showBadge(text) {
    this.badge.textContent = text;
    const on = this.badge.classList.contains('on') ? 'on2' : 'on';
    this.badge.classList.remove('on', 'on2');
    this.badge.classList.add(on);
    if (this.badgeHost) this.badgeHost.classList.add('badged');
    clearTimeout(this.badgeTimer);
    this.badgeTimer = setTimeout(() => { this.badge.classList.remove('on', 'on2'); if (this.badgeHost) this.badgeHost.classList.remove('badged'); }, 1500);
  }

  // Takes the badge away at once (the replay it belonged to is over: the status line is back).
  clearBadge() {
    if (!this.badge) return;
    clearTimeout(this.badgeTimer);
    this.badge.classList.remove('on', 'on2');
    if (this.badgeHost) this.badgeHost.classList.remove('badged');
  }

  // Ends the replay in progress at once (its last steps are not drawn: the caller draws the state).
  skip() {
    if (!this.anim) return;
    this.anim.skip = true;
    if (this.anim.wake) this.anim.wake();
    this.root.classList.remove('animating');
    this.moveHand(null, 0);
  }
  get animating() { return !!this.anim; }

  // Replays trace on top of `from`; resolves when done or skipped. unit() gives the time of one step
  // unit in ms (STEP_WEIGHT; 0: no animation), asked at each step so that a speed change applies
  // at once; onStep(step) is called as each step is drawn (for sounds). Steps are timed from the
  // start, so that a slow frame does not make the replay longer.
  async animate(from, trace, unit, onStep) {
    const steps = (trace || []).map(normStep).filter((s) => s && s.kind);
    const w = from.slice();
    const burnt = new Set(this.burnt);
    const anim = { skip: false, wake: null };
    this.anim = anim;
    for (const el of this.els) el.classList.remove('legal', 'last-from', 'last-to');
    this.root.classList.add('animating');
    this.measure();
    let hand = 0;
    const start = performance.now();
    let due = start;
    // Behind time (a long move on a slow machine): steps are drawn without their flashes until
    // the replay is on time again, and past the whole replay's time (plus a frame or so) the rest
    // is not drawn at all: the caller draws the new position.
    const late = () => performance.now() - due > 40;
    const weight = steps.reduce((a, s) => a + (STEP_WEIGHT[s.kind] || 0), 0);
    const over = () => performance.now() - start > unit() * weight + 40;
    const wait = (f) => new Promise((res) => {
      const d = unit() * f;
      if (anim.skip || d <= 0) return res();
      // Never past the whole replay's time: a late step does not push the later ones further.
      due = Math.min(due + d, start + unit() * weight);
      const left = due - performance.now();
      if (left <= 0) return res(); // behind: draw the next step in the same frame
      const timer = setTimeout(() => { anim.wake = null; res(); }, left);
      anim.wake = () => { clearTimeout(timer); anim.wake = null; res(); };
    });
    const ok = (k) => typeof k === 'number' && k >= 0 && k < w.length;
    for (const s of steps) {
      if (anim.skip || over()) break;
      if (onStep) onStep(s);
      switch (s.kind) {
        case 'pick':
        case 'relay':
          if (!ok(s.pit)) break;
          hand = s.count ?? w[s.pit];
          w[s.pit] = Math.max(0, w[s.pit] - hand);
          this.drawPit(s.pit, w[s.pit]);
          if (!late()) { this.flash(s.pit, 'picked', 600); this.moveHand(s.pit, hand); }
          if (s.kind === 'relay') this.showBadge(t('anim.relay', { n: hand }));
          break;
        case 'sow':
          if (!ok(s.pit)) break;
          w[s.pit] += s.count ?? 1;
          hand = Math.max(0, hand - (s.count ?? 1));
          this.drawPit(s.pit, w[s.pit]);
          if (!late()) { this.flash(s.pit, 'hit', 450); this.moveHand(s.pit, hand); }
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
          break;
        }
        case 'extra_turn':
          this.moveHand(null, 0);
          this.showBadge(t('anim.extra_turn'));
          break;
        case 'round_end':
          this.moveHand(null, 0);
          this.showBadge(t('anim.round_end', { n: s.count ?? '' }));
          break;
        case 'burn':
          if (!ok(s.pit)) break;
          burnt.add(s.pit);
          this.els[s.pit].classList.add('burnt');
          this.showBadge(t('anim.burn'));
          break;
        default:
          break;
      }
      if (STEP_WEIGHT[s.kind]) await wait(STEP_WEIGHT[s.kind]);
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
