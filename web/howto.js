// "How to play": each game explained for players, with a small diagram of the board and the way the
// seeds travel. Text only; the server alone applies the rules.
import { h, clear, GAMES, DEFAULTS } from './ui.js';
import { t, onLang } from './i18n.js';
import { gameTitle, navigate } from './common.js';

function diagram(game) {
  const m = 6, cw = game === 'congkak';
  const W = 360, H = 150, pad = 12, storeW = 40, gap = 6;
  const cell = (W - 2 * pad - 2 * storeW - 2 * gap) / m;
  const r = cell * 0.38;
  const yTop = 52, yBot = 98;
  const svg = h('svg:svg', { viewBox: `0 0 ${W} ${H + 24}`, class: 'diagram', role: 'img', 'aria-label': t('how.diagram_label', { game: gameTitle(game) }) });
  svg.append(h('svg:defs', {},
    h('svg:marker', { id: 'arr-' + game, viewBox: '0 0 10 10', refX: '6', refY: '5', markerWidth: '6', markerHeight: '6', orient: 'auto-start-reverse' },
      h('svg:path', { d: 'M0,0 L10,5 L0,10 z', fill: '#ffcf70' }))));
  svg.append(h('svg:rect', { x: '4', y: '24', width: String(W - 8), height: '104', rx: '50', fill: '#7a4a26', stroke: '#4d2c14', 'stroke-width': '3' }));
  const x0 = pad + storeW + gap;
  const cx = (col) => x0 + cell * col + cell / 2;
  // stores: yours on the right (Kalah, Oware) or the left (Congkak)
  const leftX = pad + storeW / 2 + 2, rightX = W - pad - storeW / 2 - 2;
  const myStoreX = cw ? leftX : rightX, theirStoreX = cw ? rightX : leftX;
  for (const [x, mine] of [[myStoreX, true], [theirStoreX, false]]) {
    svg.append(h('svg:rect', { x: String(x - storeW / 2 + 2), y: '36', width: String(storeW - 4), height: '80', rx: '18', fill: mine ? '#3b2210' : '#4a2c15', stroke: mine ? '#ffcf70' : 'none', 'stroke-width': '2' }));
  }
  for (let i = 0; i < m; i++) {
    for (const [y, mine] of [[yTop, false], [yBot, true]]) {
      svg.append(h('svg:circle', { cx: String(cx(i)), cy: String(y), r: String(r), fill: '#3b2210', stroke: mine ? '#ffcf70' : 'none', 'stroke-width': mine ? '1.5' : '0' }));
      for (let s = 0; s < 4; s++) {
        const a = s * 1.7 + i;
        svg.append(h('svg:circle', { cx: String(cx(i) + Math.cos(a) * r * 0.38), cy: String(y + Math.sin(a) * r * 0.38), r: String(r * 0.28), fill: ['#e9b949', '#5cb88a', '#d96c5f', '#e8dcc5'][s] }));
      }
    }
    // house numbers under your row: 1 at the left counter-clockwise, at the right clockwise
    const num = cw ? m - i : i + 1;
    svg.append(h('svg:text', { x: String(cx(i)), y: String(yBot + r + 14), 'text-anchor': 'middle', fill: '#f3e6d0', 'font-size': '11', 'font-weight': '700' }, String(num)));
  }
  // arrows: along your row towards your store, then back along the far row
  const yA = yBot + r + 26;
  const xs = cx(0) - 4, xe = cx(m - 1) + 4;
  const bottomPath = cw ? `M${xe},${yA} L${xs},${yA}` : `M${xs},${yA} L${xe},${yA}`;
  svg.append(h('svg:path', { d: bottomPath, stroke: '#ffcf70', 'stroke-width': '2.5', fill: 'none', 'marker-end': `url(#arr-${game})` }));
  const topPath = cw ? `M${xs},14 L${xe},14` : `M${xe},14 L${xs},14`;
  svg.append(h('svg:path', { d: topPath, stroke: '#ffcf70', 'stroke-width': '2.5', fill: 'none', 'stroke-dasharray': '5 4', 'marker-end': `url(#arr-${game})` }));
  svg.append(h('svg:text', { x: String(cw ? 4 : W - 4), y: String(H + 18), 'text-anchor': cw ? 'start' : 'end', fill: '#ffcf70', 'font-size': '13', 'font-weight': '700' }, t('how.your_store')));
  svg.append(h('svg:text', { x: String(W / 2), y: String(H + 18), 'text-anchor': 'middle', fill: '#f3e6d0', 'font-size': '13' }, t('how.your_houses')));
  return svg;
}

export class HowView {
  constructor(main, game) {
    this.main = main;
    this.game = GAMES.includes(game) ? game : 'kalah';
    this.off = onLang(() => this.build());
    this.build();
  }

  destroy() { this.off(); }

  build() {
    const g = this.game;
    clear(this.main);
    document.title = t('nav.how') + ' · ' + gameTitle(g) + ' · Mancala Online';
    const rules = [];
    for (let i = 1; i <= 8; i++) {
      const key = 'how.' + g + '.' + i;
      const txt = t(key);
      if (txt !== key) rules.push(h('li', {}, txt));
    }
    const d = DEFAULTS[g];
    this.main.append(h('div', { class: 'how' },
      h('nav', { class: 'tabs', 'aria-label': t('nav.how') }, GAMES.map((x) => h('a', {
        class: 'tab' + (x === g ? ' active' : ''), href: '/?how=' + x, 'data-link': '', 'aria-current': x === g ? 'page' : null,
      }, gameTitle(x)))),
      h('article', { class: 'card how-card' },
        h('h1', {}, t('how.title', { game: gameTitle(g) })),
        h('p', { class: 'lead' }, t('how.' + g + '.intro')),
        h('figure', { class: 'how-fig' }, diagram(g), h('figcaption', {}, t('how.' + g + '.caption'))),
        h('h2', {}, t('how.rules')),
        h('ol', { class: 'how-rules' }, rules),
        h('p', { class: 'how-default' }, t('how.default_board', { m: d.houses, n: d.seeds })),
        h('h2', {}, t('how.controls_title')),
        h('p', {}, t('how.controls')),
        h('div', { class: 'how-actions' },
          h('button', { class: 'btn primary', type: 'button', onclick: () => navigate('/') }, t('how.play_now'))))));
  }
}
