// The move list of a room as the client keeps it from the server's states, and what each move did
// (read from its trace). No DOM: tests/web/moves.test.mjs runs it in node.
//
// A state comes in one of two forms (docs/protocol.md, "Keeping the move list"). With `moves` (on
// join, resume and resync) the list is replaced by it. Without `moves`, the state's `last` (seat, house,
// trace) is appended when its `ply` is the previous ply + 1; the same ply again (presence, clocks,
// draw offers) changes nothing. Any other ply without `moves` is a gap: the list is kept as it is,
// the new move put at its own ply, and the list marked incomplete until a state with `moves`
// replaces it (the room asks for one with `resync`). Each entry is {seat, house, trace?}, list[i] being ply i + 1; a missing ply is a hole.

const KINDS = ['pick', 'sow', 'relay', 'capture', 'sweep', 'extra_turn', 'round_end', 'refill', 'burn'];

// One trace step in a common shape ({kind, pit, count, store}), whatever names the server chose.
export function normStep(s) {
  if (!s || typeof s !== 'object') return null;
  let kind = s.kind ?? s.step ?? s.type ?? s.k ?? s.what;
  if (typeof kind === 'number') kind = KINDS[kind];
  const num = (...v) => { for (const x of v) if (typeof x === 'number') return x; return undefined; };
  return { kind, pit: num(s.pit, s.p, s.from, s.index), count: num(s.count, s.n, s.seeds, s.round), store: num(s.store, s.to, s.into) };
}

// What a move did, from its trace: relay lifts, seeds captured (and in how many captures), an
// extra turn, the end of a Congkak round (its number) and the houses burnt for the next round.
export function moveEvents(trace) {
  const ev = { relays: 0, captured: 0, captures: 0, extra: false, roundEnd: null, burnt: 0 };
  for (const s of (Array.isArray(trace) ? trace : []).map(normStep)) {
    if (!s) continue;
    if (s.kind === 'relay') ev.relays++;
    else if (s.kind === 'capture') { ev.captures++; ev.captured += s.count ?? 0; }
    else if (s.kind === 'extra_turn') ev.extra = true;
    else if (s.kind === 'round_end') ev.roundEnd = s.count ?? 0;
    else if (s.kind === 'burn') ev.burnt++;
  }
  return ev;
}

export function emptyMoves() { return { list: [], ply: 0, game: null, complete: true }; }

function entry(mv, trace) {
  const e = typeof mv === 'number' ? { house: mv } : { seat: mv.seat, house: mv.house };
  if (mv && mv.swap === true) e.swap = true; // the pie rule's swap: a move without a house
  const t = mv && Array.isArray(mv.trace) ? mv.trace : trace;
  if (Array.isArray(t)) e.trace = t;
  return e;
}

function isComplete(list, ply) {
  if (list.length !== ply) return false;
  for (let i = 0; i < list.length; i++) if (!list[i]) return false;
  return true;
}

// The move list after state s, from the list before it (prev, as returned by emptyMoves() or an
// earlier call). Never changes prev.
export function nextMoves(prev, s) {
  const ply = typeof s.ply === 'number' ? s.ply : 0;
  const game = s.game_no ?? null;
  const last = s.last && typeof s.last === 'object' ? s.last : null;
  const same = prev.game === game;
  if (Array.isArray(s.moves)) {
    // The server's list; the traces seen live are kept for the same moves (the list has none).
    const list = s.moves.map((mv, i) => {
      const old = same ? prev.list[i] : null;
      const e = entry(mv, old && old.seat === (mv && mv.seat) && old.house === (mv && mv.house) ? old.trace : undefined);
      if (i === ply - 1 && last && !e.trace && last.house === e.house && (e.seat === undefined || last.seat === e.seat) && Array.isArray(last.trace)) e.trace = last.trace;
      return e;
    });
    return { list, ply, game, complete: isComplete(list, ply) };
  }
  if (ply === 0) return { list: [], ply: 0, game, complete: true };
  if (same && ply === prev.ply) {
    // The same position again: only a trace the list lacks for its last move is added.
    const cur = prev.list[ply - 1];
    if (cur && !cur.trace && last && last.house === cur.house && Array.isArray(last.trace)) {
      const list = prev.list.slice();
      list[ply - 1] = { ...cur, trace: last.trace };
      return { ...prev, list };
    }
    return prev;
  }
  if (same && ply === prev.ply + 1 && last) {
    return { list: [...prev.list.slice(0, prev.ply), entry(last)], ply, game, complete: prev.complete };
  }
  if (!same && ply === 1 && last) return { list: [entry(last)], ply, game, complete: true };
  if (same && ply < prev.ply) {
    // Moves taken back: the list is cut at the new ply, whose move is the state's last (the entry
    // already there keeps the trace seen when it was played).
    const list = prev.list.slice(0, ply);
    const kept = list[ply - 1];
    if (last && !(kept && kept.house === last.house && (kept.seat === undefined || kept.seat === last.seat))) list[ply - 1] = entry(last);
    return { list, ply, game, complete: isComplete(list, ply) };
  }
  // A gap: what is known stays, the new move goes to its own ply, and the list is incomplete.
  const list = same ? prev.list.slice() : [];
  if (last) list[ply - 1] = entry(last);
  return { list, ply, game, complete: false };
}
