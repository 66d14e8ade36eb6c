// The client's move list (web/moves.js) under both forms of the state frame, and the replay's time
// budget (web/board.js), in node without a browser.
//
// The protocol is changing: after a move, `state` will carry only `last` (seat, house, trace), and
// `moves` only on join, resume and resync. The states below are written by hand from the protocol
// (docs/protocol.md): a Kalah game on 3 houses of 2 seeds, South then North.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyMoves, nextMoves, moveEvents } from '../../web/moves.js';
import { stepUnit, replayUnit, traceWeight, SPEEDS, REPLAY_MS } from '../../web/board.js';

// A state of ply `ply` whose last move is seat/house; `moves` only when given.
function st(ply, last, moves, extra = {}) {
  const s = { type: 'state', room: 'K7QX2M', game_no: 1, ply, last: last ? { seat: last[0], house: last[1], trace: [{ kind: 'pick', pit: 0, count: 2 }] } : null, ...extra };
  if (moves) s.moves = moves.map(([seat, house]) => ({ seat, house }));
  return s;
}
const plain = (log) => Array.from(log.list, (m) => (m ? [m.seat, m.house] : null));

test('states without moves append their last move, one ply at a time', () => {
  let log = emptyMoves();
  log = nextMoves(log, st(0, null, [])); // join before the first move: moves is []
  assert.deepEqual(plain(log), []);
  log = nextMoves(log, st(1, ['south', 1]));
  log = nextMoves(log, st(2, ['north', 3]));
  log = nextMoves(log, st(3, ['south', 2]));
  assert.deepEqual(plain(log), [['south', 1], ['north', 3], ['south', 2]]);
  assert.equal(log.complete, true);
  // The last move keeps the trace it came with, for the move list's tags.
  assert.deepEqual(log.list[2].trace, [{ kind: 'pick', pit: 0, count: 2 }]);
  // The same ply again (a presence change, a draw offer) changes nothing.
  const same = nextMoves(log, st(3, ['south', 2]));
  assert.equal(same, log);
});

test('a state with moves replaces the list and keeps the traces seen live', () => {
  let log = emptyMoves();
  log = nextMoves(log, st(1, ['south', 1]));
  log = nextMoves(log, st(2, ['north', 3], [['south', 1], ['north', 3]]));
  assert.deepEqual(plain(log), [['south', 1], ['north', 3]]);
  assert.ok(log.list[0].trace && log.list[1].trace, 'the live traces stay');
  // A resync that disagrees with what was seen wins.
  log = nextMoves(log, st(2, ['north', 2], [['south', 3], ['north', 2]]));
  assert.deepEqual(plain(log), [['south', 3], ['north', 2]]);
  assert.equal(log.list[0].trace, undefined, 'a different move does not keep another move\'s trace');
  assert.equal(log.complete, true);
});

test('a ply gap without moves keeps the list, marks it incomplete, and a state with moves mends it', () => {
  let log = emptyMoves();
  log = nextMoves(log, st(1, ['south', 1], [['south', 1]]));
  log = nextMoves(log, st(3, ['south', 2])); // ply 2 never arrived
  assert.equal(log.complete, false);
  assert.deepEqual(plain(log), [['south', 1], null, ['south', 2]]);
  log = nextMoves(log, st(4, ['north', 1])); // later moves still append at their own ply
  assert.deepEqual(plain(log), [['south', 1], null, ['south', 2], ['north', 1]]);
  assert.equal(log.complete, false);
  log = nextMoves(log, st(4, ['north', 1], [['south', 1], ['north', 3], ['south', 2], ['north', 1]]));
  assert.deepEqual(plain(log), [['south', 1], ['north', 3], ['south', 2], ['north', 1]]);
  assert.equal(log.complete, true);
});

test('a new game (rematch) starts a new list; moves taken back cut it', () => {
  let log = emptyMoves();
  log = nextMoves(log, st(2, ['north', 3], [['south', 1], ['north', 3]]));
  log = nextMoves(log, st(0, null, undefined, { game_no: 2 }));
  assert.deepEqual(plain(log), []);
  assert.equal(log.complete, true);
  log = nextMoves(log, st(1, ['south', 2], undefined, { game_no: 2 }));
  log = nextMoves(log, st(2, ['north', 1], undefined, { game_no: 2 }));
  log = nextMoves(log, st(1, ['south', 2], undefined, { game_no: 2 }));
  assert.deepEqual(plain(log), [['south', 2]]);
  assert.equal(log.complete, true);
  // Joining a later game in the middle without moves: only its last move is known.
  log = nextMoves(log, st(5, ['south', 3], undefined, { game_no: 3 }));
  assert.equal(log.complete, false);
  assert.deepEqual(plain(log), [null, null, null, null, ['south', 3]]);
});

test('a takeback keeps the trace seen live for the move now last', () => {
  // The server's state after a takeback has the move now last with an empty trace (docs/protocol.md,
  // takeback): nothing to replay. The list keeps the trace it saw when that move was played, so its
  // captures and relays are still shown.
  let log = emptyMoves();
  const seen = [{ kind: 'pick', pit: 1, count: 2 }, { kind: 'sow', pit: 2 }, { kind: 'sow', pit: 3 }, { kind: 'extra_turn', pit: 3 }];
  log = nextMoves(log, { ...st(1, ['south', 2]), last: { seat: 'south', house: 2, trace: seen } });
  log = nextMoves(log, st(2, ['south', 1]));
  log = nextMoves(log, { ...st(1, null), last: { seat: 'south', house: 2, trace: [] } });
  assert.deepEqual(plain(log), [['south', 2]]);
  assert.equal(log.list[0].trace, seen);
  assert.equal(log.complete, true);
  // A different move at that ply (the list was wrong): the state's move replaces it.
  log = nextMoves(log, st(2, ['north', 3]));
  log = nextMoves(log, st(3, ['south', 1]));
  log = nextMoves(log, { ...st(2, null), last: { seat: 'north', house: 1, trace: [] } });
  assert.deepEqual(plain(log), [['south', 2], ['north', 1]]);
});

test('what a move did, read from its trace', () => {
  // Congkak-like: a pick, sowing, two relays, a capture of 4 and 1 seed... then an extra turn.
  const trace = [
    { kind: 'pick', pit: 2, count: 3 }, { kind: 'sow', pit: 3 }, { kind: 'sow', pit: 4 }, { kind: 'sow', pit: 5 },
    { kind: 'relay', pit: 5, count: 2 }, { kind: 'sow', pit: 6 }, { kind: 'sow', pit: 7 },
    { kind: 'relay', pit: 7, count: 1 }, { kind: 'sow', pit: 8 },
    { kind: 'capture', pit: 9, count: 4, store: 7 }, { kind: 'capture', pit: 8, count: 1, store: 7 },
    { kind: 'extra_turn', pit: 7 },
  ];
  assert.deepEqual(moveEvents(trace), { relays: 2, captured: 5, captures: 2, extra: true, roundEnd: null, burnt: 0 });
  assert.deepEqual(moveEvents([{ kind: 'round_end', round: 2 }, { kind: 'burn', pit: 3 }, { kind: 'refill', pit: 1, count: 7, store: 7 }]),
    { relays: 0, captured: 0, captures: 0, extra: false, roundEnd: 2, burnt: 1 });
  assert.deepEqual(moveEvents(undefined), { relays: 0, captured: 0, captures: 0, extra: false, roundEnd: null, burnt: 0 });
});

test('a replay never takes longer than its budget, however long the move', () => {
  // Traces from one sown seed to a 2,000-step relay chain: at every speed, the whole replay (its
  // weight in step units times the unit) fits the speed's budget, and short moves keep the speed's
  // own step time.
  for (const speed of ['slow', 'normal', 'fast']) {
    const base = SPEEDS[speed];
    const budget = REPLAY_MS * base / SPEEDS.normal;
    let shortened = 0;
    for (const n of [1, 2, 5, 10, 30, 100, 300, 1000, 2000]) {
      const trace = [{ kind: 'pick', pit: 0, count: n }, ...Array.from({ length: n }, (_, i) => ({ kind: i % 9 === 8 ? 'relay' : 'sow', pit: i % 14, count: 1 }))];
      const unit = replayUnit(speed, trace);
      assert.ok(unit > 0 && unit <= base, `${speed} ${n}: ${unit}`);
      assert.ok(unit * traceWeight(trace) <= budget + 1e-6, `${speed} ${n}: ${unit * traceWeight(trace)} ms > ${budget}`);
      if (unit < base) shortened++;
      else assert.ok(base * traceWeight(trace) <= budget, `${speed} ${n}: not shortened although too long`);
    }
    assert.ok(shortened >= 5, 'long moves are shortened');
  }
  assert.equal(replayUnit('off', [{ kind: 'sow', pit: 1 }]), 0);
  // Slow and Fast keep their ratio to Normal for a long move.
  const long = Array.from({ length: 500 }, (_, i) => ({ kind: 'sow', pit: i % 10 }));
  assert.ok(Math.abs(replayUnit('slow', long) / replayUnit('normal', long) - 420 / 220) < 1e-9);
  assert.equal(stepUnit(100, 1000, []), 100);
});

test('the pie rule\'s swap is a move without a house, marked in the list live and from a full state', () => {
  // Congkak 2x1: South 2, South 1, then North swaps (docs/protocol.md, "The pie rule").
  let log = nextMoves(emptyMoves(), st(2, ['south', 1], [['south', 2], ['south', 1]]));
  const swap = { type: 'state', room: 'K7QX2M', game_no: 1, ply: 3, last: { seat: 'north', house: null, swap: true, trace: [] } };
  log = nextMoves(log, swap);
  assert.equal(log.ply, 3);
  assert.deepEqual(log.list[2], { seat: 'north', house: null, swap: true, trace: [] });
  assert.equal(log.complete, true);
  const full = { ...swap, moves: [{ seat: 'south', house: 2 }, { seat: 'south', house: 1 }, { seat: 'north', house: null, swap: true }] };
  const again = nextMoves(emptyMoves(), full);
  assert.equal(again.list[2].swap, true);
  assert.equal(again.list[0].swap, undefined);
  assert.deepEqual(moveEvents(again.list[2].trace), { relays: 0, captured: 0, captures: 0, extra: false, roundEnd: null, burnt: 0 });
});
