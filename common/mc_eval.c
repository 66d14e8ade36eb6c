/* Evaluation of positions for the search: the store difference plus a few board terms per game.
 *
 * Every term is counted for the side to move ("me") against the other side, and weighted in
 * hundredths of a seed per unit. The weights were tuned by matches at a fixed depth (`mancala
 * match --a 4 --b 4:eval=stores`, docs/computer.md).
 */
#include "mc_eval.h"

#include <string.h>

#include "mc_error.h"
#include "mc_internal.h"
#include "mc_search_internal.h"

/* Kalah: own-side seeds (they fall to their owner when a side runs dry), moves that end in the
 * store (an extra turn), the best capture on offer to me now and to the other side next. */
static int eval_kalah(const mc_pos *p, const int16_t *w) {
  const int m = p->houses, me = p->turn, mb = MC__BASE(m, me), ob = MC__BASE(m, !me);
  int extra = 0, cap_me = 0, cap_opp = 0;
  for (int i = 0; i < m; i++) {
    const int k = p->pits[mb + i];
    if (k == m - i)
      extra++;
    else if (k > 0 && k < m - i) {
      /* The last seed lands on my side at house i + k: a capture if it was empty. */
      const int t = i + k;
      if (p->pits[mb + t] == 0 && p->pits[MC__FACING(m, mb + t)])
        cap_me = cap_me > p->pits[MC__FACING(m, mb + t)] + 1 ? cap_me
                                                             : p->pits[MC__FACING(m, mb + t)] + 1;
    }
    const int ko = p->pits[ob + i];
    if (ko > 0 && ko < m - i) {
      const int t = i + ko;
      const int f = p->pits[MC__FACING(m, ob + t)];
      if (p->pits[ob + t] == 0 && f && f + 1 > cap_opp)
        cap_opp = f + 1;
    }
  }
  const int side = (int)mc__side_seeds(p, m, me) - (int)mc__side_seeds(p, m, !me);
  return side * w[0] + extra * w[1] + cap_me * w[2] - cap_opp * w[3];
}

/* The seeds a sowing from house i (0-based, of side `s`) would capture, ignoring laps. */
static int oware_capture(const mc_pos *p, int s, int i) {
  const int m = p->houses, k = p->pits[MC__BASE(m, s) + i];
  if (k == 0 || k >= 2 * m - 1)
    return 0;
  /* Houses in ring order from my house i: the opponent's row starts after my house m-1. */
  const int reach = i + k; /* 0-based house index along my row then the other row */
  if (reach < m || reach >= 2 * m)
    return 0;
  const int ob = MC__BASE(m, !s);
  int last = reach - m; /* opponent house 0-based */
  int got = 0;
  for (int j = last; j >= 0; j--) {
    const int v = p->pits[ob + j] + 1;
    if (v != 2 && v != 3)
      break;
    got += v;
  }
  return got;
}

/* Oware: own-side seeds (mobility, and the other side must feed me), houses with one or two
 * seeds (a capture target) on each side, the best capture on offer to me now and to the other
 * side next. */
static int eval_oware(const mc_pos *p, const int16_t *w) {
  const int m = p->houses, me = p->turn, mb = MC__BASE(m, me), ob = MC__BASE(m, !me);
  int weak_me = 0, weak_opp = 0, cap_me = 0, cap_opp = 0;
  for (int i = 0; i < m; i++) {
    weak_me += p->pits[mb + i] == 1 || p->pits[mb + i] == 2;
    weak_opp += p->pits[ob + i] == 1 || p->pits[ob + i] == 2;
    int c = oware_capture(p, me, i);
    cap_me = c > cap_me ? c : cap_me;
    c = oware_capture(p, !me, i);
    cap_opp = c > cap_opp ? c : cap_opp;
  }
  const int side = (int)mc__side_seeds(p, m, me) - (int)mc__side_seeds(p, m, !me);
  return side * w[0] + (weak_opp - weak_me) * w[1] + cap_me * w[2] - cap_opp * w[3];
}

/* Congkak: own-side seeds (they go to their owner when the round ends), moves that end in the
 * store without relaying (an extra turn), and the largest house facing an empty house of mine
 * (what a capture could take) and of the other side's. */
static int eval_congkak(const mc_pos *p, const int16_t *w) {
  const int m = p->houses, me = p->turn, mb = MC__BASE(m, me), ob = MC__BASE(m, !me);
  int extra = 0, target_me = 0, target_opp = 0;
  for (int i = 0; i < m; i++) {
    extra += p->pits[mb + i] == m - i;
    if (p->pits[mb + i] == 0 && !(p->burnt & (1u << (mb + i)))) {
      const int f = p->pits[MC__FACING(m, mb + i)];
      target_me = f > target_me ? f : target_me;
    }
    if (p->pits[ob + i] == 0 && !(p->burnt & (1u << (ob + i)))) {
      const int f = p->pits[MC__FACING(m, ob + i)];
      target_opp = f > target_opp ? f : target_opp;
    }
  }
  const int side = (int)mc__side_seeds(p, m, me) - (int)mc__side_seeds(p, m, !me);
  return side * w[0] + extra * w[1] + target_me * w[2] - target_opp * w[3];
}

/* The tuned weights (hundredths of a seed per unit), by game. */
static const int16_t weights[3][MC__EVAL_TERMS] = {
    [MC_KALAH] = {15, 150, 40, 40},
    [MC_OWARE] = {15, -25, 20, 0},
    /* No Congkak term won games (docs/computer.md): the store difference alone. */
    [MC_CONGKAK] = {0, 0, 0, 0},
};

const int16_t *mc__eval_default_weights(mc_kind kind) {
  return weights[(unsigned)kind <= MC_CONGKAK ? kind : 0];
}

int mc__eval_w(const mc_rules *r, const mc_pos *p, const int16_t *w) {
  const int m = p->houses, me = p->turn;
  const int diff = ((int)p->pits[MC__STORE(m, me)] - (int)p->pits[MC__STORE(m, !me)]) * MC_SEED;
  if (w == NULL)
    return diff;
  switch (r->kind) {
  case MC_KALAH:
    return diff + eval_kalah(p, w);
  case MC_OWARE:
    return diff + eval_oware(p, w);
  default:
    return diff + eval_congkak(p, w);
  }
}

int mc_eval(const mc_rules *rules, const mc_pos *pos, mc_eval_kind kind) {
  return mc__eval_w(rules, pos,
                    kind == MC_EVAL_STORES ? NULL : mc__eval_default_weights(rules->kind));
}

const char *mc_eval_name(mc_eval_kind kind) {
  switch (kind) {
  case MC_EVAL_FULL:
    return "full";
  case MC_EVAL_STORES:
    return "stores";
  default:
    return NULL;
  }
}

int mc_eval_parse(const char *name, mc_eval_kind *kind) {
  if (name == NULL || kind == NULL)
    return MC_EINVAL;
  if (strcmp(name, "full") == 0)
    *kind = MC_EVAL_FULL;
  else if (strcmp(name, "stores") == 0)
    *kind = MC_EVAL_STORES;
  else
    return MC_EINVAL;
  return 0;
}
