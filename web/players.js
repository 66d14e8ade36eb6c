// The players' pages: /leaderboard/GAME (the best ratings of a game, page by page) and /@/NAME (a
// player's ratings, a rating history graph per game drawn as SVG, and their games, each linking to
// its replay). Both read the server's JSON routes (docs/protocol.md, "Profiles and leaderboards").
import { h, clear, GAMES } from './ui.js';
import { t, onLang } from './i18n.js';
import { conn } from './net.js';
import { gameTitle, playerName, scoreText } from './common.js';

const PAGE = 50;
const SVG = 'svg:';

async function getJSON(url) {
  const res = await fetch(url, { headers: { accept: 'application/json' } });
  if (res.status === 404) return { missing: true };
  if (!res.ok) throw new Error(String(res.status));
  return res.json();
}

function rounded(x) { return Math.round(Number(x) || 0); }

// The player's accuracy in an analysed game, in whole percent (both seats' mean in a game at one
// screen), or null.
function accuracyOf(g) {
  const a = g.accuracy;
  if (!a) return null;
  const v = g.seat === 'both' ? [a.south, a.north].filter((x) => typeof x === 'number') : [a[g.seat === 'north' ? 'north' : 'south']].filter((x) => typeof x === 'number');
  return v.length ? Math.round(v.reduce((s, x) => s + x, 0) / v.length) : null;
}

// "1523" or "1523?" for a provisional rating.
export function ratingText(r) {
  return String(rounded(r.rating)) + (r.provisional ? '?' : '');
}

function signed(x) {
  const n = Math.round(x);
  return (n > 0 ? '+' : n < 0 ? '−' : '±') + Math.abs(n);
}

function date(ms, time = false) {
  return new Date(ms).toLocaleDateString([], time ? { dateStyle: 'medium' } : { year: 'numeric', month: 'short', day: 'numeric' });
}

function profileLink(name, attrs = {}) {
  return h('a', { href: '/@/' + encodeURIComponent(name), 'data-link': '', ...attrs }, name);
}

function gameTabs(current, hrefOf) {
  return h('nav', { class: 'game-tabs', 'aria-label': t('lb.games') },
    GAMES.map((g) => h('a', { class: 'game-tab ' + g, href: hrefOf(g), 'data-link': '', 'aria-current': g === current ? 'page' : null }, gameTitle(g))));
}

function failure(main, title, body) {
  clear(main);
  main.append(h('section', { class: 'card notfound' }, h('h1', {}, title), h('p', {}, body),
    h('a', { class: 'btn primary', href: '/', 'data-link': '' }, t('room.back_lobby'))));
}

// ---- /leaderboard/GAME ---------------------------------------------------------------------------

export class LeaderboardView {
  constructor(main, game, page = 1) {
    this.main = main;
    this.game = game;
    this.page = Math.max(1, page | 0);
    this.data = null;
    this.offs = [onLang(() => this.render())];
    this.render();
    this.load();
  }

  destroy() { for (const f of this.offs) f(); this.gone = true; }

  async load() {
    if (!GAMES.includes(this.game)) { this.data = { missing: true }; this.render(); return; }
    try {
      this.data = await getJSON(`/api/leaderboard/${this.game}?page=${this.page}&limit=${PAGE}`);
    } catch { this.data = { error: true }; }
    if (!this.gone) this.render();
  }

  render() {
    const main = this.main;
    const d = this.data;
    document.title = t('lb.title_of', { game: gameTitle(this.game) }) + ' · Mancala Online';
    if (d && d.missing) return failure(main, t('lb.no_game_title'), t('lb.no_game_body', { game: this.game }));
    clear(main);
    const me = conn.account && conn.account.name;
    const section = h('section', { class: 'leaderboard' },
      h('h1', {}, t('lb.title')),
      gameTabs(this.game, (g) => '/leaderboard/' + g),
      h('p', { class: 'lead' }, t('lb.lead')));
    main.append(section);
    if (!d) { section.append(h('p', { class: 'empty-note' }, t('lb.loading'))); return; }
    if (d.error) { section.append(h('p', { class: 'empty-note' }, t('lb.error'))); return; }
    if (!d.players.length) {
      section.append(h('div', { class: 'card' }, h('p', { class: 'empty-note' }, t('lb.empty', { game: gameTitle(this.game) }))));
      return;
    }
    const table = h('table', { class: 'board-table' },
      h('caption', { class: 'sr-only' }, t('lb.title_of', { game: gameTitle(this.game) })),
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col', class: 'num' }, t('lb.rank')),
        h('th', { scope: 'col' }, t('lb.player')),
        h('th', { scope: 'col', class: 'num' }, t('lb.rating')),
        h('th', { scope: 'col', class: 'num' }, t('lb.games')),
        h('th', { scope: 'col', class: 'num wdl' }, t('lb.wdl')))),
      h('tbody', {}, d.players.map((p) => h('tr', { class: p.name === me ? 'me' : null, dataset: { player: p.player } },
        h('td', { class: 'num rank' }, String(p.rank)),
        h('td', { class: 'who' }, profileLink(p.name)),
        h('td', { class: 'num rating', title: t('lb.rd', { rd: rounded(p.rd) }) }, ratingText(p)),
        h('td', { class: 'num' }, String(p.games)),
        h('td', { class: 'num wdl' }, `${p.wins} / ${p.draws} / ${p.losses}`)))));
    section.append(h('div', { class: 'card table-card' }, table,
      h('p', { class: 'note' }, t('lb.provisional_note'))));
    if (d.pages > 1) {
      const link = (n, key) => h('a', { class: 'btn small', href: `/leaderboard/${this.game}?page=${n}`, 'data-link': '' }, t(key));
      section.append(h('nav', { class: 'pager', 'aria-label': t('lb.pages') },
        this.page > 1 ? link(this.page - 1, 'lb.prev') : null,
        h('span', {}, t('lb.page_of', { page: this.page, pages: d.pages })),
        this.page < d.pages ? link(this.page + 1, 'lb.next') : null));
    }
  }
}

// ---- /@/NAME ------------------------------------------------------------------------------------

// The rating history of one game as an SVG line chart: the rating after each rated game (and the
// rating it started from), a band for the deviation, the lowest and highest values and the first
// and last dates on the axes. Drawn for width px (the width it is shown at, so that its text keeps
// its size on a phone as on a desktop).
export function ratingGraph(game, points, width = 640) {
  const W = Math.max(240, Math.round(width)), H = W < 520 ? 180 : 220, L = 46, R = 12, T = 12, B = 26;
  const title = t('profile.graph_title', { game: gameTitle(game) });
  if (!points.length) return h('p', { class: 'empty-note graph-empty' }, t('profile.no_history'));
  const series = [{ rating: points[0].rating - points[0].diff, rd: null, at: null }, ...points];
  const values = series.map((p) => p.rating);
  // The start carries the deviation of the first game, so that the band runs along the whole line.
  const rd = (i) => (i === 0 ? points[0].rd : series[i].rd) || 0;
  // The scale holds the line and its band, on round ticks (a step of 10, 20, 25, 50, 100...).
  let lo = Math.min(...series.map((p, i) => p.rating - rd(i))), hi = Math.max(...series.map((p, i) => p.rating + rd(i)));
  const spread = Math.max(40, hi - lo);
  const step = [10, 20, 25, 50, 100, 200, 250, 500].find((st) => spread / st <= 4) || 1000;
  lo = Math.floor(lo / step) * step;
  hi = Math.ceil(hi / step) * step;
  if (hi === lo) hi = lo + step;
  const x = (i) => L + (series.length === 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (series.length - 1));
  const y = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo || 1);
  const line = series.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(' ');
  const svg = h(SVG + 'svg', { class: 'rating-graph', viewBox: `0 0 ${W} ${H}`, style: { 'aspect-ratio': `${W} / ${H}` }, role: 'img', 'aria-labelledby': `graph-${game}-t graph-${game}-d`, preserveAspectRatio: 'none' });
  const first = rounded(series[0].rating), last = rounded(series[series.length - 1].rating);
  svg.append(
    h(SVG + 'title', { id: `graph-${game}-t` }, title),
    h(SVG + 'desc', { id: `graph-${game}-d` }, t('profile.graph_desc', { n: points.length, from: first, to: last, low: rounded(Math.min(...values)), high: rounded(Math.max(...values)) })));
  // Grid: a line across at every tick, labelled with its rating.
  for (let v = lo; v <= hi; v += step) {
    svg.append(h(SVG + 'line', { class: 'grid', x1: L, x2: W - R, y1: y(v), y2: y(v) }),
      h(SVG + 'text', { class: 'axis', x: L - 6, y: y(v) + 4, 'text-anchor': 'end' }, String(v)));
  }
  // The deviation band along the line: rating ± deviation at every point.
  if (series.length > 1) {
    const top = series.map((p, i) => `${x(i).toFixed(1)},${y(p.rating + rd(i)).toFixed(1)}`);
    const bottom = series.map((p, i) => `${x(i).toFixed(1)},${y(p.rating - rd(i)).toFixed(1)}`).reverse();
    svg.append(h(SVG + 'polygon', { class: 'band', points: [...top, ...bottom].join(' ') }));
  }
  svg.append(h(SVG + 'polyline', { class: 'line', points: line }));
  series.forEach((p, i) => {
    if (i === 0) return;
    const dot = h(SVG + 'circle', { class: 'dot ' + (p.diff > 0 ? 'up' : p.diff < 0 ? 'down' : 'flat'), cx: x(i), cy: y(p.rating), r: series.length > 60 ? 2 : 3.5 });
    dot.append(h(SVG + 'title', {}, `${rounded(p.rating)} (${signed(p.diff)}) · ${date(p.at)}`));
    svg.append(dot);
  });
  // The first and last games' dates; on the same day, with their times; at the same minute, the
  // games' numbers.
  let from = date(points[0].at), to = date(points[points.length - 1].at);
  if (from === to && points.length > 1) {
    const when = (ms) => new Date(ms).toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
    from = when(points[0].at); to = when(points[points.length - 1].at);
    if (from === to) { from = '#1'; to = '#' + points.length; }
  }
  svg.append(h(SVG + 'text', { class: 'axis', x: L, y: H - 6 }, from),
    h(SVG + 'text', { class: 'axis', x: W - R, y: H - 6, 'text-anchor': 'end' }, to));
  return svg;
}

export class ProfileView {
  constructor(main, name) {
    this.main = main;
    this.name = name;
    this.data = null;
    this.games = [];
    this.next = null;
    this.game = null; // the game whose graph shows
    // The graph is drawn again for its new width when the window's changes.
    let timer = 0;
    const resize = () => { clearTimeout(timer); timer = setTimeout(() => this.drawGraph(), 120); };
    window.addEventListener('resize', resize);
    this.offs = [onLang(() => this.render()), () => { clearTimeout(timer); window.removeEventListener('resize', resize); }];
    this.render();
    this.load();
  }

  destroy() { for (const f of this.offs) f(); this.gone = true; }

  drawGraph() {
    const box = this.graphBox;
    if (!box || !this.data || !this.data.history) return;
    const width = box.clientWidth || 640;
    if (box.firstChild && Math.abs(width - (box.drawnWidth || 0)) < 8) return;
    clear(box);
    box.drawnWidth = width;
    box.append(ratingGraph(this.game, this.data.history[this.game] || [], width));
  }

  async load() {
    try {
      this.data = await getJSON('/api/players/' + encodeURIComponent(this.name) + '?limit=20');
    } catch { this.data = { error: true }; }
    if (this.gone) return;
    if (this.data && this.data.games) {
      this.games = this.data.games;
      this.next = this.data.next_before;
      // The graph of the game played most, rated, first.
      this.game = GAMES.slice().sort((a, b) => (this.data.ratings[b].games - this.data.ratings[a].games))[0];
      // The address names the account as it writes its name.
      if (this.data.name !== this.name && location.pathname.startsWith('/@/')) {
        history.replaceState(null, '', '/@/' + encodeURIComponent(this.data.name));
        this.name = this.data.name;
      }
    }
    this.render();
  }

  async more() {
    if (!this.next) return;
    try {
      const d = await getJSON('/api/players/' + encodeURIComponent(this.name) + '?limit=20&before=' + this.next);
      if (this.gone || !d.games) return;
      this.games = this.games.concat(d.games);
      this.next = d.next_before;
      this.renderGames();
    } catch { /* the button stays */ }
  }

  render() {
    const main = this.main;
    const d = this.data;
    document.title = this.name + ' · Mancala Online';
    if (d && d.missing) return failure(main, t('profile.missing_title'), t('profile.missing_body', { name: this.name }));
    clear(main);
    if (!d) { main.append(h('section', { class: 'profile' }, h('h1', {}, this.name), h('p', { class: 'empty-note' }, t('profile.loading')))); return; }
    if (d.error) { main.append(h('section', { class: 'profile' }, h('h1', {}, this.name), h('p', { class: 'empty-note' }, t('profile.error')))); return; }
    const mine = conn.account && conn.account.name === d.name;
    const cards = GAMES.map((g) => {
      const r = d.ratings[g];
      return h('button', { type: 'button', class: 'rating-card ' + g + (g === this.game ? ' on' : ''), 'aria-pressed': String(g === this.game), dataset: { game: g },
        onclick: () => { this.game = g; this.render(); } },
      h('span', { class: 'rc-game' }, gameTitle(g)),
      h('span', { class: 'rc-rating' }, r.games ? ratingText(r) : '—'),
      h('span', { class: 'rc-meta' }, r.games ? t('profile.games_wdl', { n: r.games, w: r.wins, d: r.draws, l: r.losses }) : t('profile.unrated')),
      r.rank ? h('span', { class: 'rc-rank' }, t('profile.rank', { n: r.rank })) : null);
    });
    this.gamesBox = h('div', { class: 'recent profile-games' });
    this.graphBox = h('div', { class: 'graph-box' });
    main.append(h('section', { class: 'profile' },
      h('div', { class: 'profile-head' },
        h('div', {}, h('h1', {}, d.name), h('p', { class: 'lead' }, t('profile.since', { date: date(d.created, true) }))),
        mine ? h('a', { class: 'btn small', href: '/settings', 'data-link': '' }, t('account.settings')) : null),
      h('div', { class: 'rating-cards' }, cards),
      h('div', { class: 'card graph-card' },
        h('h2', {}, t('profile.graph_title', { game: gameTitle(this.game) }),
          h('a', { class: 'small-link', href: '/leaderboard/' + this.game, 'data-link': '' }, t('lb.title'))),
        this.graphBox),
      h('div', { class: 'card' }, h('h2', {}, t('profile.games')), this.gamesBox)));
    this.drawGraph();
    this.renderGames();
  }

  renderGames() {
    const box = this.gamesBox;
    if (!box) return;
    clear(box);
    const d = this.data;
    if (!this.games.length) { box.append(h('p', { class: 'empty-note' }, t('profile.no_games'))); return; }
    for (const g of this.games) {
      const seat = g.seat === 'north' ? 'north' : 'south';
      const other = seat === 'south' ? 'north' : 'south';
      const opp = g.players && g.players[other];
      const result = g.seat === 'both' ? g.result : g.result === 'draw' ? 'draw' : g.result === seat ? 'win' : 'loss';
      const vs = g.seat === 'both' ? t('opp.local') : opp ? t('recent.vs', { name: playerName(opp) || '?' }) : '';
      box.append(h('a', { class: 'recent-row', href: '/g/' + g.id, 'data-link': '', dataset: { game: String(g.id) } },
        h('span', { class: 'rr-game ' + g.game }, gameTitle(g.game)),
        h('span', { class: 'rr-info' }, h('b', {}, vs),
          h('small', {}, [date(g.started), t('room.board_size', { m: g.houses, n: g.seeds }), scoreText(g), g.rated ? t('profile.rated') : null].filter(Boolean).join(' · '),
            // An analysed game: the player's accuracy in it.
            accuracyOf(g) !== null ? [' · ', h('span', { class: 'rr-acc', title: t('profile.accuracy_title') }, t('profile.accuracy', { n: accuracyOf(g) }))] : null)),
        g.rating ? h('span', { class: 'rr-diff ' + (g.rating.diff > 0 ? 'up' : g.rating.diff < 0 ? 'down' : '') }, signed(g.rating.diff)) : null,
        h('span', { class: 'rr-status ' + (result || '') }, result ? t('recent.' + result) : '')));
    }
    if (this.next) box.append(h('button', { class: 'btn small ghost more', type: 'button', onclick: () => this.more() }, t('profile.more')));
    if (d) box.dataset.count = String(this.games.length);
  }
}
