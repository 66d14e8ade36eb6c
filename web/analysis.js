// A finished game's analysis on the replay page /g/ID (GET /api/games/ID/analysis, docs/protocol.md
// "Analysis"): asked for with the Analyse button (the server answers 202 while it analyses, and the
// page asks again every retry_ms), then an evaluation graph across the plies (inline SVG, South's
// view: above the middle South is ahead), each move's mark in the move list, and at the step shown
// the best move with its line and what the move just played lost.
import { h } from './ui.js';
import { t, lang, LOCALES } from './i18n.js';

const SVG = 'svg:';
const W = 600, H = 150, PAD = 6;

// The marks' short signs, as chess notation has them (the word is the label).
export const MARK_SIGNS = { best: '★', good: '✓', inaccuracy: '?!', mistake: '?', blunder: '??' };

const seeds = (v) => (Math.round(v * 10) / 10).toLocaleString(undefined, { maximumFractionDigits: 1 });
const signedSeeds = (v) => (v > 0 ? '+' : v < 0 ? '−' : '') + seeds(Math.abs(v));

export function moveText(m) {
  return m === 'swap' ? t('analysis.swap') : String(m);
}

// The analysis of one game: its state, and the requests that bring it.
export class GameAnalysis {
  constructor(id, onChange) {
    this.id = id;
    this.onChange = onChange;
    this.state = 'none'; // none | asking | queued | running | saving | done | error | rate_limited | busy | unsupported
    this.data = null;
    this.timer = null;
    this.alive = true;
  }

  destroy() { this.alive = false; clearTimeout(this.timer); }

  // Asks for it (the Analyse button, or a page whose game is analysed already); polls while the
  // server makes it.
  async fetch() {
    clearTimeout(this.timer);
    if (this.state === 'none' || this.state === 'error' || this.state === 'busy') { this.state = 'asking'; this.onChange(); }
    let res, body;
    try {
      res = await fetch('/api/games/' + encodeURIComponent(this.id) + '/analysis', { headers: { accept: 'application/json' } });
      body = await res.json();
    } catch {
      res = null;
    }
    if (!this.alive) return;
    if (!res) this.state = 'error';
    else if (res.status === 200 && Array.isArray(body.plies)) { this.state = 'done'; this.data = body; }
    else if (res.status === 202) {
      this.state = body.status;
      this.progress = body;
      this.timer = setTimeout(() => this.fetch(), Math.max(250, Math.min(5000, body.retry_ms || 1000)));
    } else if (res.status === 429) { this.state = 'rate_limited'; this.retry = body.retry_after_ms; }
    else if (res.status === 503) this.state = body.error === 'unsupported' ? 'unsupported' : 'busy';
    else this.state = 'error';
    this.onChange();
  }

  ply(i) { return this.data && this.data.plies[i]; }
}

// The evaluation at each position 0..n for South, in seeds: each ply's value before it, and the
// final score's difference at the end.
function series(plies, score) {
  const v = plies.map((p) => p.eval);
  v.push(Array.isArray(score) ? score[0] - score[1] : plies.length ? -plies[plies.length - 1].eval : 0);
  return v;
}

// The graph: the evaluation for South across the positions, a cursor at the one shown, a dot on
// each mistake and blunder; a click (or a tap) goes to the position under it.
export function evalGraph(plies, score, ply, names, go) {
  const v = series(plies, score);
  const n = v.length - 1;
  const top = Math.max(4, Math.ceil(Math.max(...v.map((x) => Math.abs(x)))));
  const x = (i) => PAD + (n ? (i * (W - 2 * PAD)) / n : 0);
  const y = (val) => H / 2 - (Math.max(-top, Math.min(top, val)) * (H / 2 - PAD)) / top;
  const pts = v.map((val, i) => `${x(i).toFixed(1)},${y(val).toFixed(1)}`);
  const worst = v.reduce((a, val, i) => (Math.abs(val) > Math.abs(v[a]) ? i : a), 0);
  const svg = h(SVG + 'svg', { class: 'eval-graph', viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none', role: 'img',
    'aria-label': t('analysis.graph', { name: names.south }) + '. ' + t('analysis.graph_range', { n, max: signedSeeds(v[worst]), at: worst }) });
  svg.append(h(SVG + 'title', {}, t('analysis.graph', { name: names.south })));
  // South's side of the middle, then the line over it.
  svg.append(h(SVG + 'rect', { class: 'north-side', x: 0, y: H / 2, width: W, height: H / 2 }));
  svg.append(h(SVG + 'polygon', { class: 'area', points: `${x(0).toFixed(1)},${H / 2} ${pts.join(' ')} ${x(n).toFixed(1)},${H / 2}` }));
  svg.append(h(SVG + 'line', { class: 'mid', x1: 0, x2: W, y1: H / 2, y2: H / 2 }));
  svg.append(h(SVG + 'polyline', { class: 'line', points: pts.join(' ') }));
  plies.forEach((p, i) => {
    if (p.mark !== 'mistake' && p.mark !== 'blunder') return;
    // The dot sits where the move led: the position after ply i + 1.
    const dot = h(SVG + 'circle', { class: 'mark-dot ' + p.mark, cx: x(i + 1), cy: y(v[i + 1]), r: 4 });
    dot.append(h(SVG + 'title', {}, `${i + 1}. ${moveText(p.played)}: ${t('mark.' + p.mark)}`));
    svg.append(dot);
  });
  svg.append(h(SVG + 'line', { class: 'cursor', x1: x(ply), x2: x(ply), y1: 0, y2: H }));
  svg.addEventListener('click', (e) => {
    const r = svg.getBoundingClientRect();
    if (!r.width) return;
    const frac = (e.clientX - r.left) / r.width;
    go(Math.round(((frac * W - PAD) / (W - 2 * PAD)) * n));
  });
  // The scale beside it, in HTML (the drawing stretches to its box; text there would too).
  return h('div', { class: 'eval-wrap' }, svg,
    h('span', { class: 'eval-scale top', 'aria-hidden': 'true' }, '+' + top),
    h('span', { class: 'eval-scale bottom', 'aria-hidden': 'true' }, '−' + top));
}

// A move's mark in the move list: its sign, its word for screen readers and as a tooltip.
export function markBadge(p) {
  if (!p || !p.mark) return null;
  return h('span', { class: 'mark ' + p.mark, title: t('mark.' + p.mark), dataset: { mark: p.mark } },
    h('span', { 'aria-hidden': 'true' }, MARK_SIGNS[p.mark]), h('span', { class: 'sr-only' }, t('mark.' + p.mark)));
}

// What the panel says at position ply (0..n): the move just played (its mark, what it lost) and the
// best move from here with its line and value.
export function stepInfo(a, ply, names) {
  const out = [];
  const prev = a.ply(ply - 1);
  if (prev) {
    const name = names[prev.seat];
    out.push(h('p', { class: 'an-played' }, markBadge(prev),
      ' ' + t('analysis.played', { name, move: moveText(prev.played) }) +
      (prev.mark ? ' — ' + t('mark.' + prev.mark) + (prev.loss > 0 ? ' (' + t('analysis.loss', { n: seeds(prev.loss) }) + ')' : '') : '')));
  }
  const next = a.ply(ply);
  if (!next) { out.push(h('p', { class: 'an-best' }, t('analysis.end'))); return out; }
  const name = names[next.seat];
  out.push(h('p', { class: 'an-best', dataset: { best: String(next.best) } },
    h('b', {}, t('analysis.best_here', { name, move: moveText(next.best) })),
    ' · ' + t('analysis.value', { v: signedSeeds(next.before), name }) + (next.exact ? ' · ' + t('analysis.exact') : '')));
  if (next.line && next.line.length > 1)
    out.push(h('p', { class: 'an-line' }, t('analysis.line', { line: next.line.map(moveText).join(' ') })));
  return out;
}

// A percentage as the page's language writes it ("50%", "50 %").
export function percent(v) {
  return new Intl.NumberFormat(LOCALES[lang()] || 'en', { style: 'percent', maximumFractionDigits: 0 }).format(v / 100);
}

// The accuracy line: each side's share of best and good moves, a side never split over two lines.
export function accuracyLine(data, names) {
  const acc = data.accuracy || {};
  const part = (seat) => h('span', { class: 'an-acc ' + seat },
    names[seat] + '\u00a0' + (typeof acc[seat] === 'number' ? percent(acc[seat]) : '—'));
  const [before, after] = t('analysis.accuracy', { list: '\u0000' }).split('\u0000');
  return h('p', { class: 'an-accuracy' }, before, part('south'), ' · ', part('north'), after || '');
}
