/* Search internals shared by mc_search.c, mc_eval.c, mc_level.c, mc_solve.c, mc_analysis.c and
 * mc_egtb.c. Not a public header.
 */
#ifndef MC_SEARCH_INTERNAL_H
#define MC_SEARCH_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "mc_eval.h"
#include "mc_internal.h"
#include "mc_pos.h"
#include "mc_rules.h"

/* Board terms of the evaluation (mc_eval.c); a weight vector has this many entries. */
#define MC__EVAL_TERMS 4

/* The tuned weights of a game (static, never NULL). */
const int16_t *mc__eval_default_weights(mc_kind kind);

/* The evaluation with explicit weights; NULL weights: the store difference alone. */
int mc__eval_w(const mc_rules *r, const mc_pos *p, const int16_t *w);

/* splitmix64: a small, good and stateless-per-call generator; *state is the caller's. */
static inline uint64_t mc__rng(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* A uniform number in [0, n) (n > 0). */
static inline uint32_t mc__rng_below(uint64_t *state, uint32_t n) {
  return (uint32_t)(((mc__rng(state) >> 32) * (uint64_t)n) >> 32);
}

static inline uint64_t mc__mix(uint64_t h) {
  h ^= h >> 33;
  h *= UINT64_C(0xFF51AFD7ED558CCD);
  h ^= h >> 33;
  h *= UINT64_C(0xC4CEB9FE1A85EC53);
  h ^= h >> 33;
  return h;
}

/* A 64-bit key of everything in a position that its future depends on: pits, side to move,
 * round, who moved first in the round, burnt houses. Kalah's future does not depend on the
 * stores (values are kept relative to the store difference), so `no_stores` leaves them out.
 * salt separates rule variants. Never 0. */
static inline uint64_t mc__key(const mc_pos *p, uint64_t salt, int no_stores) {
  mc_pos q = *p;
  if (no_stores) {
    q.pits[q.houses] = 0;
    q.pits[2 * q.houses + 1] = 0;
  }
  uint64_t w[4] = {0, 0, 0, 0};
  _Static_assert(sizeof(mc_pos) <= sizeof(w), "a position fits four words");
  memcpy(w, &q, sizeof q);
  uint64_t h = salt;
  h = mc__mix(h ^ w[0]) + w[1];
  h = mc__mix(h) ^ w[2];
  h = mc__mix(h + w[3]);
  return h | 1;
}

/* Seeds in all houses. */
static inline int mc__board(const mc_pos *p) {
  return (int)mc__side_seeds(p, p->houses, 0) + (int)mc__side_seeds(p, p->houses, 1);
}

/* The final store difference (times MC_SEED) for seat `me` of a finished position. */
static inline int mc__final(const mc_pos *p, int me) {
  const int m = p->houses;
  return ((int)p->pits[MC__STORE(m, me)] - (int)p->pits[MC__STORE(m, !me)]) * MC_SEED;
}

#endif
