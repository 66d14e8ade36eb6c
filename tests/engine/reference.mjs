// An independent reference model of the rule book (/work/shared/rules.md), written straight from
// its text without reading the C engine. The differential test compares the engine with it.
//
// A position is { m, pits, turn, round, first, burnt } with the rule book's flat layout:
// pits[0..m-1] South houses 1..m, pits[m] South store, pits[m+1..2m] North houses 1..m,
// pits[2m+1] North store; burnt is a bit mask over pit indices (Congkak match only).

export const GAMES = ['kalah', 'oware', 'congkak'];
export const SEATS = ['south', 'north'];

// Returns rules with the game's default board and every option off unless given.
export function makeRules(game, opts = {}) {
  if (!GAMES.includes(game)) throw new Error(`unknown game ${game}`);
  const board = game === 'congkak' ? [7, 7] : [6, 4];
  return {
    game,
    m: opts.houses ?? board[0],
    n: opts.seeds ?? board[1],
    emptyCapture: !!opts.emptyCapture,
    grandSlam: opts.grandSlam ?? 'no_capture',
    lapCapture: !!opts.lapCapture,
    match: !!opts.match,
    // Congkak 7: 'round' (the rule book: burning is decided afresh at every round) or 'match' (the
    // rule book's earlier edition, kept for old stored games: a burnt house stays burnt).
    burn: opts.burn ?? 'round',
  };
}

// The command-line options of `mancala perft|replay` that select these rules.
export function ruleArgs(r) {
  const args = ['--houses', String(r.m), '--seeds', String(r.n)];
  if (r.emptyCapture) args.push('--empty-capture');
  if (r.game === 'oware') args.push('--grand-slam', r.grandSlam);
  if (r.lapCapture) args.push('--lap-capture');
  if (r.game === 'congkak') args.push('--rounds', r.match ? 'match' : 'single');
  if (r.burn === 'match') args.push('--burn', 'match');
  return args;
}

export function startPos(r) {
  const pits = new Array(2 * r.m + 2).fill(r.n);
  pits[r.m] = 0;
  pits[2 * r.m + 1] = 0;
  return { m: r.m, pits, turn: 0, round: 1, first: 0, burnt: 0 };
}

function clonePos(p) {
  const { m, turn, round, first, burnt } = p;
  return { m, pits: p.pits.slice(), turn, round, first, burnt };
}

const storeOf = (m, seat) => (seat === 0 ? m : 2 * m + 1);
const houseIndex = (m, seat, h) => seat * (m + 1) + h - 1;
const ownerOf = (m, k) => (k < m ? 0 : k > m && k < 2 * m + 1 ? 1 : -1);
const isBurnt = (p, k) => ((p.burnt >>> k) & 1) === 1;

function sideSum(p, seat) {
  let s = 0;
  for (let h = 1; h <= p.m; h++) s += p.pits[houseIndex(p.m, seat, h)];
  return s;
}

function total(p) {
  return p.pits.reduce((a, b) => a + b, 0);
}

// Every house goes to its owner's store (Kalah 4, Congkak 6, Oware 6).
function sweepOwn(p) {
  for (let k = 0; k < p.pits.length; k++) {
    const o = ownerOf(p.m, k);
    if (o >= 0 && p.pits[k] > 0) {
      p.pits[storeOf(p.m, o)] += p.pits[k];
      p.pits[k] = 0;
    }
  }
}

// Every house goes to the store of seat (Oware 4).
function sweepTo(p, seat) {
  for (let k = 0; k < p.pits.length; k++) {
    if (ownerOf(p.m, k) >= 0 && p.pits[k] > 0) {
      p.pits[storeOf(p.m, seat)] += p.pits[k];
      p.pits[k] = 0;
    }
  }
}

function resultOf(p, reason) {
  const s = p.pits[p.m];
  const n = p.pits[2 * p.m + 1];
  return { winner: s > n ? 'south' : n > s ? 'north' : 'draw', reason, score: [s, n] };
}

// ---- Oware ----

// Sows house h of the side to move; returns the new pits and the last pit. Stores are skipped and
// so is the origin house (Oware 1 and 2).
function owareSow(p, h) {
  const m = p.m;
  const pits = p.pits.slice();
  const origin = houseIndex(m, p.turn, h);
  let k = pits[origin];
  pits[origin] = 0;
  let pos = origin;
  while (k > 0) {
    pos = (pos + 1) % pits.length;
    if (pos === m || pos === 2 * m + 1 || pos === origin) continue;
    pits[pos]++;
    k--;
  }
  return { pits, last: pos };
}

// The houses that Oware 3 captures after a sowing that ended in last, in capture order.
function owareChain(m, pits, mover, last) {
  const chain = [];
  const opp = 1 - mover;
  let k = last;
  while (ownerOf(m, k) === opp && (pits[k] === 2 || pits[k] === 3)) {
    chain.push(k);
    k--;
  }
  return chain;
}

function owareInfo(p, h) {
  const { pits, last } = owareSow(p, h);
  const chain = owareChain(p.m, pits, p.turn, last);
  const opp = 1 - p.turn;
  let oppSeeds = 0;
  for (let i = 1; i <= p.m; i++) oppSeeds += pits[houseIndex(p.m, opp, i)];
  const taken = chain.reduce((a, k) => a + pits[k], 0);
  const feeds = oppSeeds > 0;
  return { pits, chain, grandSlam: chain.length > 0 && taken === oppSeeds, feeds };
}

function owareLegal(r, p) {
  let moves = [];
  for (let h = 1; h <= p.m; h++) if (p.pits[houseIndex(p.m, p.turn, h)] > 0) moves.push(h);
  if (sideSum(p, 1 - p.turn) === 0) moves = moves.filter((h) => owareInfo(p, h).feeds);
  if (r.grandSlam === 'forbidden') {
    const plain = moves.filter((h) => !owareInfo(p, h).grandSlam);
    if (plain.length > 0) moves = plain;
  }
  return moves;
}

function owarePlay(r, p, h) {
  const info = owareInfo(p, h);
  const q = clonePos(p);
  q.pits = info.pits;
  const mover = p.turn;
  if (info.chain.length > 0 && !(info.grandSlam && r.grandSlam !== 'capture')) {
    for (const k of info.chain) {
      q.pits[storeOf(q.m, mover)] += q.pits[k];
      q.pits[k] = 0;
    }
  }
  q.turn = 1 - mover;
  // Oware 5 first: the game ends as soon as a store holds more than half.
  const all = total(q);
  const s = q.pits[q.m];
  const n = q.pits[2 * q.m + 1];
  if (2 * s > all || 2 * n > all || (2 * s === all && 2 * n === all)) {
    return { pos: q, result: resultOf(q, 'majority') };
  }
  // Oware 4: the player to move has no seeds (only with grand_slam = capture).
  if (sideSum(q, q.turn) === 0) {
    sweepTo(q, mover);
    return { pos: q, result: resultOf(q, 'no_seeds') };
  }
  if (owareLegal(r, q).length === 0) {
    sweepTo(q, q.turn);
    return { pos: q, result: resultOf(q, 'cannot_feed') };
  }
  return { pos: q, result: null };
}

// ---- Kalah ----

function kalahPlay(r, p, h) {
  const q = clonePos(p);
  const m = q.m;
  const me = q.turn;
  const mine = storeOf(m, me);
  const theirs = storeOf(m, 1 - me);
  const origin = houseIndex(m, me, h);
  let k = q.pits[origin];
  q.pits[origin] = 0;
  let pos = origin;
  while (k > 0) {
    pos = (pos + 1) % q.pits.length;
    if (pos === theirs) continue;
    q.pits[pos]++;
    k--;
  }
  let extra = false;
  if (pos === mine) {
    extra = true;
  } else if (ownerOf(m, pos) === me && q.pits[pos] === 1) {
    const facing = 2 * m - pos;
    if (q.pits[facing] > 0 || r.emptyCapture) {
      q.pits[mine] += 1 + q.pits[facing];
      q.pits[pos] = 0;
      q.pits[facing] = 0;
    }
  }
  q.turn = extra ? me : 1 - me;
  if (sideSum(q, 0) === 0 || sideSum(q, 1) === 0) {
    sweepOwn(q);
    return { pos: q, result: resultOf(q, 'no_seeds') };
  }
  return { pos: q, result: null };
}

// ---- Congkak ----

function congkakPlay(r, p, h) {
  const q = clonePos(p);
  const m = q.m;
  const me = q.turn;
  const mine = storeOf(m, me);
  const theirs = storeOf(m, 1 - me);
  const origin = houseIndex(m, me, h);
  let k = q.pits[origin];
  q.pits[origin] = 0;
  let pos = origin;
  let storeDrop = false;
  let extra = false;
  let drops = 0;
  for (;;) {
    while (k > 0) {
      pos = (pos + 1) % q.pits.length;
      if (pos === theirs || isBurnt(q, pos)) continue;
      q.pits[pos]++;
      k--;
      if (pos === mine) storeDrop = true;
      if (++drops > 1e7) throw new Error('relay does not end');
    }
    if (pos === mine) {
      extra = true;
      break;
    }
    if (q.pits[pos] > 1) {
      k = q.pits[pos];
      q.pits[pos] = 0;
      continue;
    }
    if (ownerOf(m, pos) === me) {
      const facing = 2 * m - pos;
      if (q.pits[facing] > 0 && (!r.lapCapture || storeDrop)) {
        q.pits[mine] += 1 + q.pits[facing];
        q.pits[pos] = 0;
        q.pits[facing] = 0;
      }
    }
    break;
  }
  q.turn = extra ? me : 1 - me;
  if (sideSum(q, q.turn) > 0) return { pos: q, result: null };
  // Congkak 6: round end.
  sweepOwn(q);
  const s = q.pits[m];
  const n = q.pits[2 * m + 1];
  if (!r.match || q.round >= 9) return { pos: q, result: resultOf(q, 'no_seeds') };
  if (s < r.n || n < r.n) return { pos: q, result: resultOf(q, 'no_seeds') };
  // Congkak 7: each player refills their own houses from their own store, n seeds each, from the
  // house next to the store (house m) towards house 1; a house that cannot be filled is burnt for
  // this round. Burning is decided afresh: a house burnt before is filled again when the store holds
  // enough. Under the old rule (burn 'match') a burnt house stays burnt and is not filled.
  const before = q.burnt;
  if (r.burn !== 'match') q.burnt = 0;
  let back = 0;
  for (const seat of [0, 1]) {
    const store = storeOf(m, seat);
    for (let i = m; i >= 1; i--) {
      const kk = houseIndex(m, seat, i);
      if (isBurnt(q, kk)) continue;
      if (q.pits[store] >= r.n) {
        q.pits[store] -= r.n;
        q.pits[kk] = r.n;
        if ((before >>> kk) & 1) back++;
      } else {
        q.burnt |= 1 << kk;
      }
    }
  }
  q.first = s > n ? 1 : n > s ? 0 : 1 - q.first;
  q.turn = q.first;
  q.round++;
  // unburnt: how many houses burnt in the round that ended are played again in the next one.
  return { pos: q, result: null, newRound: true, unburnt: back };
}

// ---- The public model ----

export function legal(r, p) {
  if (r.game === 'oware') return owareLegal(r, p);
  const moves = [];
  for (let h = 1; h <= p.m; h++) if (p.pits[houseIndex(p.m, p.turn, h)] > 0) moves.push(h);
  return moves;
}

// Plays house h (assumed legal); returns { pos, result, newRound }.
export function play(r, p, h) {
  if (r.game === 'kalah') return kalahPlay(r, p, h);
  if (r.game === 'oware') return owarePlay(r, p, h);
  return congkakPlay(r, p, h);
}

export function posKey(p) {
  return p.pits.join(',') + '/' + p.turn;
}

const storesKey = (p) => `${p.pits[p.m]},${p.pits[2 * p.m + 1]},${p.round}`;

// A game: a position, its history since the last change of the stores (repetition, Oware 6 and
// Congkak 8), the moves played and the result.
export class Game {
  constructor(r) {
    this.rules = r;
    this.pos = startPos(r);
    this.history = [posKey(this.pos)];
    this.moves = [];
    this.result = null;
    this.unburnt = 0; // houses burnt in one round and played again in the next (Congkak 7)
  }

  legal() {
    return this.result ? [] : legal(this.rules, this.pos);
  }

  play(h) {
    if (this.result) throw new Error('game over');
    if (!this.legal().includes(h)) throw new Error(`illegal move ${h}`);
    const before = storesKey(this.pos);
    const out = play(this.rules, this.pos, h);
    this.pos = out.pos;
    this.moves.push(h);
    this.unburnt += out.unburnt ?? 0;
    if (out.result) {
      this.result = out.result;
      return;
    }
    const key = posKey(this.pos);
    if (storesKey(this.pos) !== before) this.history = [];
    this.history.push(key);
    if (this.rules.game !== 'kalah' && this.history.filter((x) => x === key).length >= 3) {
      sweepOwn(this.pos);
      this.result = resultOf(this.pos, 'repetition');
    }
  }
}

// Counts the move sequences of exactly d moves for d = 1..depth; stops early (returning fewer
// entries) when the node count would pass budget.
export function perft(r, depth, budget = Infinity) {
  const counts = new Array(depth).fill(0);
  let nodes = 0;
  const walk = (p, history, d) => {
    const moves = legal(r, p);
    for (const h of moves) {
      counts[d]++;
      if (++nodes > budget) throw new Error('budget');
      const out = play(r, p, h);
      if (out.result || d + 1 >= depth) continue;
      const key = posKey(out.pos);
      const fresh = storesKey(out.pos) !== storesKey(p);
      const next = fresh ? [key] : history.concat([key]);
      if (r.game !== 'kalah' && next.filter((x) => x === key).length >= 3) continue;
      walk(out.pos, next, d + 1);
    }
  };
  const p = startPos(r);
  walk(p, [posKey(p)], 0);
  return counts;
}

export function formatPos(p) {
  const parts = p.pits.map((v, k) => (isBurnt(p, k) ? 'x' : String(v)));
  parts[p.m] = `(${parts[p.m]})`;
  parts[2 * p.m + 1] = `(${parts[2 * p.m + 1]})`;
  let text = parts.join(' ') + ' ' + SEATS[p.turn];
  if (p.round !== 1 || p.first !== 0) text += ` round ${p.round} first ${SEATS[p.first]}`;
  return text;
}

// The position text without the side to move and round: what stays meaningful after the end.
export function formatPits(p) {
  return formatPos(p).split(/ (south|north)/)[0];
}

export function formatResult(res) {
  if (!res) return 'result none';
  return `result ${res.winner} ${res.reason} ${res.score[0]} ${res.score[1]}`;
}

// Parses the text form of formatPos() (the differential test checks the engine's text with it).
export function parsePos(text) {
  const tokens = text.trim().split(/\s+/);
  const side = tokens.findIndex((t) => t === 'south' || t === 'north');
  if (side < 0 || side % 2 !== 0) throw new Error(`bad position ${text}`);
  const m = side / 2 - 1;
  const p = { m, pits: [], turn: SEATS.indexOf(tokens[side]), round: 1, first: 0, burnt: 0 };
  tokens.slice(0, side).forEach((t, k) => {
    const v = t.replace(/[()]/g, '');
    if (v === 'x') p.burnt |= 1 << k;
    p.pits.push(v === 'x' ? 0 : Number(v));
  });
  if (tokens[side + 1] === 'round') {
    p.round = Number(tokens[side + 2]);
    p.first = SEATS.indexOf(tokens[side + 4]);
  }
  return p;
}
