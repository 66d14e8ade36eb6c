// Differential tests: the engine (through the `mancala` tool) against the independent reference
// model of the rule book in reference.mjs. Run with `node --test`; MANCALA_TOOL is the absolute
// path of the tool. Deterministic: a fixed-seed generator chooses boards and moves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as R from './reference.mjs';

const TOOL = process.env.MANCALA_TOOL;

// Every game with every combination of its options.
const VARIANTS = [
  ['kalah', {}],
  ['kalah', { emptyCapture: true }],
  ['oware', { grandSlam: 'no_capture' }],
  ['oware', { grandSlam: 'forbidden' }],
  ['oware', { grandSlam: 'capture' }],
  ['congkak', {}],
  ['congkak', { lapCapture: true }],
  ['congkak', { match: true }],
  ['congkak', { lapCapture: true, match: true }],
  // The old burn rule, which games stored before it changed still replay under.
  ['congkak', { match: true, burn: 'match' }],
];

function describe(r) {
  return `${r.game} ${R.ruleArgs(r).join(' ')}`;
}

function tool(args) {
  const out = spawnSync(TOOL, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (out.error) throw out.error;
  return out;
}

// xorshift32, seeded: the same boards and games on every run.
let seed = 0x2545f491;
function rnd(n) {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed % n;
}

// The deepest perft of the reference within a node budget (at least depth 1).
function referencePerft(r, maxDepth, budget) {
  let best = null;
  for (let depth = 1; depth <= maxDepth; depth++) {
    let counts;
    try {
      counts = R.perft(r, depth, budget);
    } catch (e) {
      if (e.message === 'budget') break;
      throw e;
    }
    best = counts;
    if (counts[depth - 1] === 0) break;
  }
  return best;
}

test('the tool is given', () => {
  assert.ok(TOOL, 'set MANCALA_TOOL to the absolute path of the mancala tool');
});

test('perft counts agree with the reference, every game, option and small board', () => {
  const boards = [];
  for (const m of [1, 2, 3, 4]) for (const n of [1, 2, 3, 4]) boards.push([m, n]);
  boards.push([5, 2], [6, 1], [9, 1], [2, 12]);
  const failures = [];
  let compared = 0;
  for (const [game, opts] of VARIANTS) {
    for (const [m, n] of boards) {
      const r = R.makeRules(game, { ...opts, houses: m, seeds: n });
      const want = referencePerft(r, 14, 30000);
      if (!want) continue;
      const out = tool(['perft', game, String(want.length), ...R.ruleArgs(r)]);
      const expected = want.map((c, i) => `${i + 1} ${c}`).join('\n') + '\n';
      compared++;
      if (out.status !== 0 || out.stdout !== expected) {
        failures.push(
          `${describe(r)} depth ${want.length}: tool exit ${out.status}\n` +
            `  tool:      ${out.stdout.trim().split('\n').join(' | ')}\n` +
            `  reference: ${expected.trim().split('\n').join(' | ')}`,
        );
      }
    }
  }
  // The default boards at a small depth.
  for (const [game, opts] of VARIANTS) {
    const r = R.makeRules(game, opts);
    const depth = game === 'congkak' ? 3 : 4;
    const want = R.perft(r, depth);
    const out = tool(['perft', game, String(depth), ...R.ruleArgs(r)]);
    const expected = want.map((c, i) => `${i + 1} ${c}`).join('\n') + '\n';
    compared++;
    if (out.status !== 0 || out.stdout !== expected) {
      failures.push(
        `${describe(r)}: tool ${JSON.stringify(out.stdout)} reference ${JSON.stringify(expected)}`,
      );
    }
  }
  assert.ok(compared > 150);
  assert.deepEqual(failures, [], failures.join('\n'));
});

// Plays a random game with the reference; stops at the end or, for some games, earlier.
function randomGame(r, stopEarly) {
  const g = new R.Game(r);
  const limit = stopEarly ? rnd(60) : Infinity;
  while (!g.result && g.moves.length < limit) {
    const legal = g.legal();
    g.play(legal[rnd(legal.length)]);
    if (g.moves.length > 100000) throw new Error(`reference game does not end: ${describe(r)}`);
  }
  return g;
}

test('replayed random games end in the same position, ply and result', () => {
  const failures = [];
  let games = 0;
  let finished = 0;
  let unburnt = 0;
  const reasons = new Set();
  for (let i = 0; i < 360; i++) {
    const [game, opts] = VARIANTS[i % VARIANTS.length];
    const m = i % 4 === 0 ? undefined : 1 + rnd(9);
    const n = m === undefined ? undefined : 1 + rnd(12);
    const r = R.makeRules(game, { ...opts, houses: m, seeds: n });
    const g = randomGame(r, i % 3 === 1);
    const moves = g.moves.join(' ');
    const out = tool(['replay', game, ...R.ruleArgs(r), moves]);
    games++;
    if (r.burn !== 'match' && g.unburnt > 0) unburnt++;
    if (g.result) {
      finished++;
      reasons.add(`${game} ${g.result.reason}`);
    }
    const lines = out.stdout.split('\n');
    const want = {
      position: g.result ? R.formatPits(g.pos) : R.formatPos(g.pos),
      ply: `ply ${g.moves.length}`,
      result: R.formatResult(g.result),
    };
    let got = lines[0] ?? '';
    got = got.replace(/^position /, '');
    if (g.result) got = got.split(/ (south|north)/)[0];
    const ok =
      out.status === 0 &&
      lines.length === 4 &&
      lines[3] === '' &&
      lines[0].startsWith('position ') &&
      got === want.position &&
      lines[1] === want.ply &&
      lines[2] === want.result;
    if (!ok) {
      failures.push(
        `${describe(r)} "${moves}"\n  tool (exit ${out.status}): ${lines.slice(0, 3).join(' | ')}` +
          `${out.stderr ? ' | stderr: ' + out.stderr.trim().split('\n')[0] : ''}\n` +
          `  reference: position ${want.position} | ${want.ply} | ${want.result}`,
      );
    }
  }
  assert.ok(finished > 200, `only ${finished} of ${games} games finished`);
  const wanted = ['kalah no_seeds', 'oware majority', 'oware cannot_feed', 'congkak no_seeds'];
  for (const reason of wanted) {
    assert.ok(reasons.has(reason), `no random game ended with ${reason}`);
  }
  // Congkak 7: the games compared include houses burnt in one round and played in a later one.
  assert.ok(unburnt >= 20, `only ${unburnt} Congkak matches played a burnt house again`);
  const shown = failures.slice(0, 12);
  assert.deepEqual(shown, [], `${failures.length} of ${games} games differ:\n${shown.join('\n')}`);
});

test('a move that the reference finds illegal is refused with exit status 1', () => {
  const failures = [];
  let tried = 0;
  for (let i = 0; i < 180 && tried < 120; i++) {
    const [game, opts] = VARIANTS[i % VARIANTS.length];
    const m = 1 + rnd(9);
    const r = R.makeRules(game, { ...opts, houses: m, seeds: 1 + rnd(12) });
    const g = randomGame(r, i % 2 === 0);
    let bad;
    if (g.result) {
      bad = 1 + rnd(m);
    } else {
      const legal = g.legal();
      const illegal = [];
      for (let h = 1; h <= m; h++) if (!legal.includes(h)) illegal.push(h);
      if (illegal.length === 0) continue;
      bad = illegal[rnd(illegal.length)];
    }
    tried++;
    const moves = [...g.moves, bad].join(' ');
    const out = tool(['replay', game, ...R.ruleArgs(r), moves]);
    if (out.status !== 1 || out.stderr.trim() === '') {
      failures.push(
        `${describe(r)} "${moves}" (last move ${g.result ? 'after the end' : 'illegal'}): ` +
          `exit ${out.status}, stderr ${JSON.stringify(out.stderr.slice(0, 200))}`,
      );
    }
  }
  assert.ok(tried >= 100);
  const shown = failures.slice(0, 12);
  assert.deepEqual(shown, [], `${failures.length} of ${tried} differ:\n${shown.join('\n')}`);
});
