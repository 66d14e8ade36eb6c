/* Engine internals shared by mc_pos.c, mc_game.c and mc_perft.c. Not a public header.
 *
 * mc__play() is the rule book in one function. It trusts its caller: the rules and the position
 * are valid and house is a legal move. It is inlined so that a call with a NULL trace compiles to
 * a version without any trace work, which perft and search depend on for speed.
 */
#ifndef MC_INTERNAL_H
#define MC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mc_error.h"
#include "mc_pos.h"
#include "mc_rules.h"

#if defined(__GNUC__)
#define MC__INLINE static inline __attribute__((always_inline))
#else
#define MC__INLINE static inline
#endif

/* Index of the store of seat s, of the first house of seat s, and of the pit facing house k. */
#define MC__STORE(m, s) ((s) ? 2 * (m) + 1 : (m))
#define MC__BASE(m, s) ((s) ? (m) + 1 : 0)
#define MC__FACING(m, k) (2 * (m) - (k))

/* Appends one step to trace (when there is one); a full trace is MC_ELIMIT. */
#define MC__STEP(tr, k, p, st, c)                                                                  \
  do {                                                                                             \
    if (tr) {                                                                                      \
      if ((tr)->len >= MC_TRACE_MAX)                                                               \
        return MC_ELIMIT;                                                                          \
      mc_step *step_ = &(tr)->steps[(tr)->len++];                                                  \
      step_->kind = (uint8_t)(k);                                                                  \
      step_->pit = (uint8_t)(p);                                                                   \
      step_->store = (uint8_t)(st);                                                                \
      step_->pad = 0;                                                                              \
      step_->count = (uint16_t)(c);                                                                \
    }                                                                                              \
  } while (0)

_Static_assert(
    offsetof(mc_pos, pits) == 0 && sizeof(mc_pos) >= MC_MAX_HOUSES + 1 + 8,
    "mc__side_any() and mc__side_seeds() read 8 bytes from the first house of either side");

/* Returns nonzero when any house of seat s holds seeds: one 8-byte load instead of a loop. */
MC__INLINE int mc__side_any(const mc_pos *p, int m, int s) {
  const int b = MC__BASE(m, s);
  uint64_t w;
  /* Houses and stores come first in mc_pos and 8 bytes from any house stay inside it. */
  memcpy(&w, (const unsigned char *)p + b, sizeof(w));
  if (m >= 8)
    return w != 0 || (m == 9 && p->pits[b + 8]);
  return (w & ((UINT64_C(1) << (8 * m)) - 1)) != 0;
}

MC__INLINE unsigned mc__total(const mc_pos *p) {
  int n = 2 * p->houses + 2;
  unsigned sum = 0;
  for (int i = 0; i < n; i++)
    sum += p->pits[i];
  return sum;
}

/* The seeds in the houses of seat s of a playable position (at most 255 seeds in all): eight
 * bytes summed by one multiplication, whose top byte is the exact sum when it fits a byte. */
MC__INLINE unsigned mc__side_seeds(const mc_pos *p, int m, int s) {
  const int b = MC__BASE(m, s);
  uint64_t w;
  memcpy(&w, (const unsigned char *)p + b, sizeof(w));
  if (m < 8)
    w &= (UINT64_C(1) << (8 * m)) - 1;
  const unsigned sum = (unsigned)((w * UINT64_C(0x0101010101010101)) >> 56);
  return m == 9 ? sum + p->pits[b + 8] : sum;
}

MC__INLINE void mc__result_by_stores(const mc_pos *p, mc_reason reason, mc_result *res) {
  int m = p->houses;
  unsigned s = p->pits[MC__STORE(m, 0)], n = p->pits[MC__STORE(m, 1)];
  res->winner = s > n ? MC_WIN_SOUTH : n > s ? MC_WIN_NORTH : MC_DRAW;
  res->reason = reason;
  res->score[0] = (uint16_t)s;
  res->score[1] = (uint16_t)n;
}

/* Moves every seed in the houses of seat `side` into store `to`. */
MC__INLINE int mc__sweep_side(mc_pos *p, int side, int to, mc_trace *tr) {
  int m = p->houses, b = MC__BASE(m, side);
  for (int i = b; i < b + m; i++) {
    if (p->pits[i]) {
      MC__STEP(tr, MC_STEP_SWEEP, i, to, p->pits[i]);
      p->pits[to] = (uint8_t)(p->pits[to] + p->pits[i]);
      p->pits[i] = 0;
    }
  }
  return 0;
}

/* Every house into its owner's store (Kalah 4, Oware 6, Congkak 6). */
MC__INLINE int mc__sweep_owners(mc_pos *p, mc_trace *tr) {
  int m = p->houses;
  if (mc__sweep_side(p, 0, MC__STORE(m, 0), tr) < 0)
    return MC_ELIMIT;
  return mc__sweep_side(p, 1, MC__STORE(m, 1), tr);
}

/* ---- Kalah ---------------------------------------------------------------------------------- */

MC__INLINE int mc__play_kalah(mc_pos *p, const mc_rules *r, int house, mc_trace *tr,
                              mc_result *res) {
  const int m = p->houses, ring = 2 * m + 2, s = p->turn;
  const int own = MC__STORE(m, s), opp = MC__STORE(m, !s);
  int pos = MC__BASE(m, s) + house - 1;
  unsigned k = p->pits[pos];

  p->pits[pos] = 0;
  MC__STEP(tr, MC_STEP_PICK, pos, 0, k);
  if (!tr && k > (unsigned)ring - 1) {
    /* Whole laps drop one seed in every pit but the opponent's store, the origin included. At
     * least one seed is left for the loop below, which finds where the last one falls. */
    unsigned laps = (k - 1) / (unsigned)(ring - 1);
    for (int i = 0; i < ring; i++)
      p->pits[i] = (uint8_t)(p->pits[i] + laps);
    p->pits[opp] = (uint8_t)(p->pits[opp] - laps);
    k -= laps * (unsigned)(ring - 1);
  }
  while (k) {
    if (++pos == ring)
      pos = 0;
    if (pos == opp)
      continue;
    p->pits[pos]++;
    k--;
    MC__STEP(tr, MC_STEP_SOW, pos, 0, 1);
  }

  if (pos != own) {
    const int b = MC__BASE(m, s);
    if (p->pits[pos] == 1 && pos >= b && pos < b + m) {
      /* The last seed fell into an own house that was empty. */
      const int f = MC__FACING(m, pos), seeds = p->pits[f];
      if (seeds) {
        MC__STEP(tr, MC_STEP_CAPTURE, f, own, seeds);
        MC__STEP(tr, MC_STEP_CAPTURE, pos, own, 1);
        p->pits[own] = (uint8_t)(p->pits[own] + seeds + 1);
        p->pits[f] = 0;
        p->pits[pos] = 0;
      } else if (r->empty_capture) {
        MC__STEP(tr, MC_STEP_CAPTURE, pos, own, 1);
        p->pits[own]++;
        p->pits[pos] = 0;
      }
    }
    p->turn = (uint8_t)!s;
  }

  if (!mc__side_any(p, m, 0) || !mc__side_any(p, m, 1)) {
    if (mc__sweep_owners(p, tr) < 0)
      return MC_ELIMIT;
    if (res)
      mc__result_by_stores(p, MC_REASON_NO_SEEDS, res);
    return 1;
  }
  if (pos == own)
    MC__STEP(tr, MC_STEP_EXTRA_TURN, own, 0, 0);
  return 0;
}

/* ---- Oware ---------------------------------------------------------------------------------- */

/* Sows house `pos` of seat s (Oware 1-2) and returns the pit of the last seed. */
MC__INLINE int mc__sow_oware(mc_pos *p, int pos, mc_trace *tr) {
  const int m = p->houses, ring = 2 * m + 2, origin = pos;
  unsigned k = p->pits[pos];

  p->pits[pos] = 0;
  MC__STEP(tr, MC_STEP_PICK, pos, 0, k);
  if (!tr && k > 2u * m - 1) {
    /* Whole laps drop one seed in every house but the origin; at least one seed is left for the
     * loop below, which finds where the last one falls. */
    unsigned laps = (k - 1) / (2u * m - 1);
    for (int i = 0; i < ring; i++)
      p->pits[i] = (uint8_t)(p->pits[i] + laps);
    p->pits[m] = (uint8_t)(p->pits[m] - laps);
    p->pits[2 * m + 1] = (uint8_t)(p->pits[2 * m + 1] - laps);
    p->pits[origin] = 0;
    k -= laps * (2u * m - 1);
  }
  while (k) {
    if (++pos == ring)
      pos = 0;
    if (pos == m || pos == 2 * m + 1 || pos == origin)
      continue;
    p->pits[pos]++;
    k--;
    MC__STEP(tr, MC_STEP_SOW, pos, 0, 1);
  }
  return pos;
}

/* The houses a capture ending at `last` would take (Oware 3): sets *from..last, or returns 0 when
 * nothing is captured. Returns 1 for a capture and 2 for a grand slam. */
MC__INLINE int mc__oware_capture_span(const mc_pos *p, int s, int last, int *from) {
  const int m = p->houses, ob = MC__BASE(m, !s);
  if (last < ob || last >= ob + m || p->pits[last] < 2 || p->pits[last] > 3)
    return 0;
  int j = last;
  while (j >= ob && (p->pits[j] == 2 || p->pits[j] == 3))
    j--;
  *from = j + 1;
  for (int i = ob; i < ob + m; i++)
    if ((i < *from || i > last) && p->pits[i])
      return 1;
  return 2;
}

/* Ends an Oware game if rule 4 or 5 says so, before the player to move plays. */
MC__INLINE int mc__oware_end(mc_pos *p, mc_trace *tr, mc_result *res) {
  const int m = p->houses, t = p->turn;
  const unsigned total = mc__side_seeds(p, m, 0) + mc__side_seeds(p, m, 1) +
                         p->pits[MC__STORE(m, 0)] + p->pits[MC__STORE(m, 1)];
  const unsigned ss = p->pits[MC__STORE(m, 0)], ns = p->pits[MC__STORE(m, 1)];

  if (2 * ss > total || 2 * ns > total || (2 * ss == total && 2 * ns == total)) {
    if (res)
      mc__result_by_stores(p, MC_REASON_MAJORITY, res);
    return 1;
  }
  if (!mc__side_any(p, m, t)) {
    /* Only after a grand slam that captured: the opponent takes every seed on the board. */
    if (mc__sweep_side(p, !t, MC__STORE(m, !t), tr) < 0)
      return MC_ELIMIT;
    if (res)
      mc__result_by_stores(p, MC_REASON_NO_SEEDS, res);
    return 1;
  }
  if (!mc__side_any(p, m, !t)) {
    const int b = MC__BASE(m, t);
    for (int h = 0; h < m; h++)
      if (p->pits[b + h] >= (unsigned)(m - h))
        return 0; /* A feeding move exists. */
    if (mc__sweep_side(p, t, MC__STORE(m, t), tr) < 0)
      return MC_ELIMIT;
    if (res)
      mc__result_by_stores(p, MC_REASON_CANNOT_FEED, res);
    return 1;
  }
  return 0;
}

/* Under `forbidden` a grand slam is only played when every legal move is one: it captures nothing.
 */
MC__INLINE int mc__play_oware(mc_pos *p, const mc_rules *r, int house, mc_trace *tr,
                              mc_result *res) {
  const int m = p->houses, s = p->turn, own = MC__STORE(m, s);
  const int last = mc__sow_oware(p, MC__BASE(m, s) + house - 1, tr);
  int from = 0;
  int span = mc__oware_capture_span(p, s, last, &from);

  if (span == 1 || (span == 2 && r->grand_slam == MC_GS_CAPTURE)) {
    for (int i = last; i >= from; i--) {
      MC__STEP(tr, MC_STEP_CAPTURE, i, own, p->pits[i]);
      p->pits[own] = (uint8_t)(p->pits[own] + p->pits[i]);
      p->pits[i] = 0;
    }
  }
  p->turn = (uint8_t)!s;
  return mc__oware_end(p, tr, res);
}

/* Returns nonzero when playing house would be a grand slam (its captures take every seed on the
 * opponent's side). */
MC__INLINE int mc__oware_is_grand_slam(const mc_pos *p, int house) {
  mc_pos q = *p;
  const int m = p->houses;
  int from;
  int last = mc__sow_oware(&q, MC__BASE(m, p->turn) + house - 1, NULL);
  return mc__oware_capture_span(&q, p->turn, last, &from) == 2;
}

/* ---- Congkak -------------------------------------------------------------------------------- */

/* After a Congkak round: refill for the next round, or end the match. Returns 1 when the game is
 * over (result filled), 0 when the next round starts. */
MC__INLINE int mc__congkak_round_end(mc_pos *p, const mc_rules *r, mc_trace *tr, mc_result *res) {
  const int m = p->houses, n = r->seeds;
  const unsigned ss = p->pits[MC__STORE(m, 0)], ns = p->pits[MC__STORE(m, 1)];

  if (!r->match) {
    if (res)
      mc__result_by_stores(p, MC_REASON_NO_SEEDS, res);
    return 1;
  }
  MC__STEP(tr, MC_STEP_ROUND_END, 0, 0, p->round);
  bool starved[2] = {ss < (unsigned)n, ns < (unsigned)n};
  if (p->round >= MC_MAX_ROUNDS || starved[0] || starved[1]) {
    if (res) {
      mc__result_by_stores(p, MC_REASON_NO_SEEDS, res);
      if (starved[0] != starved[1])
        res->winner = starved[0] ? MC_WIN_NORTH : MC_WIN_SOUTH;
    }
    return 1;
  }
  /* The loser of the round starts the next; after a draw, the player who moved second. */
  int next = ss > ns ? MC_NORTH : ns > ss ? MC_SOUTH : !p->first;
  /* Every house is empty now (swept). Burning is decided afresh from what each store holds: a
   * house burnt in an earlier round is refilled when the store can fill it, and every house that
   * cannot be filled gets a burn step. Under MC_BURN_MATCH (old stored games) a burnt house stays
   * burnt, with no new step. */
  const uint32_t kept = r->burn == MC_BURN_MATCH ? p->burnt : 0;
  p->burnt = kept;
  for (int side = 0; side < 2; side++) {
    const int st = MC__STORE(m, side), b = MC__BASE(m, side);
    for (int i = b + m - 1; i >= b; i--) {
      if (kept & (1u << i))
        continue;
      if (p->pits[st] >= n) {
        MC__STEP(tr, MC_STEP_REFILL, i, st, n);
        p->pits[st] = (uint8_t)(p->pits[st] - n);
        p->pits[i] = (uint8_t)n;
      } else {
        MC__STEP(tr, MC_STEP_BURN, i, 0, 0);
        p->burnt |= 1u << i;
      }
    }
  }
  p->round++;
  p->first = (uint8_t)next;
  p->turn = (uint8_t)next;
  return 0;
}

MC__INLINE int mc__play_congkak(mc_pos *p, const mc_rules *r, int house, mc_trace *tr,
                                mc_result *res) {
  const int m = p->houses, ring = 2 * m + 2, s = p->turn;
  const int own = MC__STORE(m, s), opp = MC__STORE(m, !s);
  /* Rule 9: every lap drops a seed into the mover's store, so a move makes at most (total + 1)
   * laps of at most 2m+1 drops, and a playable position holds at most 255 seeds (mc_pos_check).
   * Counting the drops bounds the work even if that reasoning were wrong. */
  const unsigned limit = 256u * (unsigned)(ring - 1);
  const uint32_t burnt = p->burnt;
  const unsigned store_before = p->pits[own];
  unsigned drops = 0;
  int pos = MC__BASE(m, s) + house - 1;
  unsigned k = p->pits[pos];

  p->pits[pos] = 0;
  MC__STEP(tr, MC_STEP_PICK, pos, 0, k);
  for (;;) {
    while (k) {
      if (++pos == ring)
        pos = 0;
      if (pos == opp || (burnt & (1u << pos)))
        continue;
      p->pits[pos]++;
      k--;
      MC__STEP(tr, MC_STEP_SOW, pos, 0, 1);
      if (++drops > limit)
        return MC_ELIMIT;
    }
    if (pos == own || p->pits[pos] == 1)
      break;
    /* Rule 2: the last seed fell into a house that was not empty: lift it and sow on. */
    k = p->pits[pos];
    p->pits[pos] = 0;
    MC__STEP(tr, MC_STEP_RELAY, pos, 0, k);
  }

  if (pos != own) {
    const int b = MC__BASE(m, s);
    if (pos >= b && pos < b + m) {
      /* Rule 4: an own house that was empty. Seeds only reach the store by this move's sowing,
       * so a store that grew means the sowing passed through it (lap_capture). */
      int f = MC__FACING(m, pos);
      if (p->pits[f] && (!r->lap_capture || p->pits[own] > store_before)) {
        MC__STEP(tr, MC_STEP_CAPTURE, f, own, p->pits[f]);
        MC__STEP(tr, MC_STEP_CAPTURE, pos, own, 1);
        p->pits[own] = (uint8_t)(p->pits[own] + p->pits[f] + 1);
        p->pits[f] = 0;
        p->pits[pos] = 0;
      }
    }
    p->turn = (uint8_t)!s;
  }

  /* Rule 6: the round ends when the player to move has no seeds in their houses. */
  if (mc__side_any(p, m, p->turn)) {
    if (pos == own)
      MC__STEP(tr, MC_STEP_EXTRA_TURN, own, 0, 0);
    return 0;
  }
  if (mc__sweep_owners(p, tr) < 0)
    return MC_ELIMIT;
  return mc__congkak_round_end(p, r, tr, res);
}

/* Plays a trusted legal move: 0 when play goes on, 1 when the game ended, MC_ELIMIT. */
MC__INLINE int mc__play(mc_pos *p, const mc_rules *r, int house, mc_trace *tr, mc_result *res) {
  switch (r->kind) {
  case MC_KALAH:
    return mc__play_kalah(p, r, house, tr, res);
  case MC_OWARE:
    return mc__play_oware(p, r, house, tr, res);
  default:
    return mc__play_congkak(p, r, house, tr, res);
  }
}

/* Writes the legal moves of a trusted position (see mc_pos_legal()) and returns their count. */
MC__INLINE int mc__legal(const mc_pos *p, const mc_rules *r, uint8_t moves[MC_MAX_HOUSES]) {
  const int m = p->houses, b = MC__BASE(m, p->turn);
  int n = 0;

  if (r->kind != MC_OWARE) {
    /* Without a branch: which houses hold seeds is what a processor cannot predict. */
    for (int h = 0; h < m; h++) {
      moves[n] = (uint8_t)(h + 1);
      n += p->pits[b + h] != 0;
    }
    return n;
  }
  const bool feed = !mc__side_any(p, m, !p->turn);
  for (int h = 0; h < m; h++)
    if (p->pits[b + h] && (!feed || p->pits[b + h] >= (unsigned)(m - h)))
      moves[n++] = (uint8_t)(h + 1);
  if (r->grand_slam == MC_GS_FORBIDDEN && n > 0) {
    uint8_t keep[MC_MAX_HOUSES];
    int kept = 0;
    for (int i = 0; i < n; i++)
      if (!mc__oware_is_grand_slam(p, moves[i]))
        keep[kept++] = moves[i];
    if (kept > 0) {
      memcpy(moves, keep, (size_t)kept);
      n = kept;
    }
  }
  return n;
}

/* Store totals and round: when they change, no earlier position can come back (repetition). */
MC__INLINE unsigned mc__epoch(const mc_pos *p) {
  const int m = p->houses;
  return (unsigned)p->pits[MC__STORE(m, 0)] + p->pits[MC__STORE(m, 1)] + ((unsigned)p->round << 9);
}

#endif
