// "How to play": each game explained for players, with a small diagram of its default board and the
// way the seeds travel. The rules and what each option changes come from rules.js, worded for the
// game's default board. Text only; the server alone applies the rules.
import { h, clear, GAMES, DEFAULTS } from './ui.js';
import { t, onLang } from './i18n.js';
import { gameTitle, navigate } from './common.js';
import { roomRules, optionHelp } from './rules.js';

// The board of `game` with its default size (DEFAULTS: Congkak 7 houses of 7 seeds, the others 6 of
// 4), seen from your side.
function diagram(game) {
  const { houses: m, seeds: n } = DEFAULTS[game], cw = game === 'congkak';
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
      svg.append(h('svg:circle', { class: 'dia-house', cx: String(cx(i)), cy: String(y), r: String(r), fill: '#3b2210', stroke: mine ? '#ffcf70' : 'none', 'stroke-width': mine ? '1.5' : '0' }));
      // n seeds: one in the middle past six, the others on a ring.
      const ring = n > 6 ? n - 1 : n;
      for (let s = 0; s < n; s++) {
        const a = (s / ring) * 2 * Math.PI + i, d = s < ring && n > 1 ? r * 0.5 : 0;
        svg.append(h('svg:circle', { class: 'dia-seed', cx: String(cx(i) + Math.cos(a) * d), cy: String(y + Math.sin(a) * d), r: String(r * (n > 4 ? 0.22 : 0.28)), fill: ['#e9b949', '#5cb88a', '#d96c5f', '#e8dcc5'][s % 4] }));
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
    const d = DEFAULTS[g];
    const rules = roomRules({ game: g, houses: d.houses, seeds: d.seeds, options: {} });
    const options = optionHelp(g, d.houses, d.seeds);
    this.main.append(h('div', { class: 'how' },
      h('nav', { class: 'tabs', 'aria-label': t('nav.how') }, GAMES.map((x) => h('a', {
        class: 'tab' + (x === g ? ' active' : ''), href: '/?how=' + x, 'data-link': '', 'aria-current': x === g ? 'page' : null,
      }, gameTitle(x)))),
      h('article', { class: 'card how-card' },
        h('h1', {}, t('how.title', { game: gameTitle(g) })),
        h('p', { class: 'lead' }, t('how.' + g + '.intro')),
        h('figure', { class: 'how-fig' }, diagram(g), h('figcaption', {}, t('how.' + g + '.caption'))),
        h('p', { class: 'how-default' }, h('b', {}, t('how.board_label') + ': '), rules.board),
        h('h2', {}, t('how.rules')),
        h('ol', { class: 'how-rules' }, rules.items.map((it) => h('li', { dataset: { rule: it.id } }, it.text))),
        h('h2', {}, t('how.options')),
        h('p', { class: 'how-default' }, t('how.other_boards')),
        h('dl', { class: 'how-options' }, options.map((o) => [
          h('dt', { dataset: { option: o.id } }, o.name, o.default ? h('span', { class: 'tag' }, t('how.default_option')) : null),
          h('dd', {}, o.items.length > 1 ? h('ul', {}, o.items.map((it) => h('li', { dataset: { rule: it.id } }, it.text)))
            : h('p', { dataset: { rule: o.items[0].id } }, o.items[0].text)),
        ])),
        h('h2', {}, t('how.controls_title')),
        h('p', {}, t('how.controls')),
        h('div', { class: 'how-actions' },
          h('button', { class: 'btn primary', type: 'button', onclick: () => navigate('/') }, t('how.play_now'))))));
  }
}
