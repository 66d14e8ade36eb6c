/* The retrograde analysis of small Oware boards (mc_retro.h) against hand-worked values, the plain
 * minimax with the repetition history (minimax.h, written independently) and the solver
 * (mc_solve.h), for every grand slam option.
 *
 * Hand-worked (rule book, Oware):
 *   - 1x1, no_capture: South sows its seed into North's house (2 seeds): a capture of every seed
 *     of North's side, a grand slam, so nothing is captured. North must feed: its 2 seeds lap the
 *     ring (the origin is skipped), both land in South's house (2), again a grand slam. South
 *     feeds back the same way: the positions (S0 N2, North to move) and (S2 N0, South to move)
 *     alternate, and the first comes a third time after four more moves: each side takes its own
 *     houses, North 2, South 0: -2. Three positions: the start, which never comes back (a
 *     component of its own), and the two that alternate (one component of two).
 *   - 1x1, forbidden: the grand slam is the only move each time, so it is played and captures
 *     nothing: the same line, -2.
 *   - 1x1, capture: South's first move captures North's 2 seeds: 2 of 2 is a majority, +2.
 *   - 1x2, no_capture: South's 2 seeds lap into North's house (4: no capture); North feeds its 4
 *     into South's house (4), and back: the cycle ends as above with North's 4 on its side: -4.
 */
#include <stdio.h>

#include "check.h"
#include "mc_error.h"
#include "mc_retro.h"
#include "mc_solve.h"
#include "minimax.h"

static mc_rules oware(int m, int n, mc_grand_slam gs) {
  mc_rules r;
  mc_rules_init(&r, MC_OWARE);
  r.houses = (uint8_t)m;
  r.seeds = (uint8_t)n;
  r.grand_slam = gs;
  return r;
}

static void check_hand_worked(void) {
  static const struct {
    int m, n;
    mc_grand_slam gs;
    int value;
  } cases[] = {
      {1, 1, MC_GS_NO_CAPTURE, -2},
      {1, 1, MC_GS_FORBIDDEN, -2},
      {1, 1, MC_GS_CAPTURE, 2},
      {1, 2, MC_GS_NO_CAPTURE, -4},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    mc_rules r = oware(cases[i].m, cases[i].n, cases[i].gs);
    mc_retro_result res;
    CHECK_INT(mc_retro_solve(&r, 0, 0, &res), 0);
    CHECK(res.exact);
    CHECK_INT(res.value, cases[i].value);
    CHECK_INT(res.best, 1);
    if (i == 0) {
      CHECK_INT((int)res.positions, 3);
      CHECK_INT((int)res.components, 2);
      CHECK_INT((int)res.largest, 2);
    }
  }
}

/* Every board the minimax finishes: the same value; the solver where it proves one: the same. */
static void check_against_minimax(int m, int n, mc_grand_slam gs) {
  mc_rules r = oware(m, n, gs);
  mc_retro_result res;
  CHECK_INT(mc_retro_solve(&r, 0, 1000000, &res), 0);
  CHECK(res.lo <= res.hi);
  minimax mm;
  mm_init(&mm, &r);
  mm.budget = 1000000;
  mc_pos start;
  mc_pos_init(&start, &r);
  const int want = mm_solve(&mm, &start);
  const int mm_done = !mm.overflow;
  if (mm_done) {
    /* Exact or not, the bounds hold the value; exact, they are it. */
    CHECK(res.lo <= want && want <= res.hi);
    if (res.exact)
      CHECK_INT(res.value, want);
  }
  mc_search *s = mc_search_new(NULL);
  mc_solve_result sol;
  const mc_limits lim = {-1, 1000000, 0};
  CHECK_INT(mc_solve(s, &r, &start, NULL, 0, &lim, NULL, &sol), 0);
  if (sol.solved) {
    CHECK(res.lo <= sol.value && sol.value <= res.hi);
    if (res.exact)
      CHECK_INT(res.value, sol.value);
  }
  if (res.exact) {
    /* The best move's value is the position's: the game after it, solved by the minimax. */
    mc_pos c = start;
    mc_result end;
    int rc = mc_pos_play(&c, &r, res.best, NULL, &end);
    CHECK(rc >= 0);
    if (rc == 1) {
      CHECK_INT((int)end.score[0] - (int)end.score[1], res.value);
    } else if (mm_done) {
      const int after = mm_solve_after(&mm, &start, &c);
      if (!mm.overflow)
        CHECK_INT(c.turn == MC_SOUTH ? after : -after, res.value);
    }
  }
  printf("oware %dx%d %s: retrograde %s %+d [%+d, %+d], %llu positions, %llu nodes; minimax %s "
         "%+d; solver %s %+d\n",
         m, n, mc_grand_slam_name(gs), res.exact ? "exact" : "bounds", res.value, res.lo, res.hi,
         (unsigned long long)res.positions, (unsigned long long)res.nodes,
         mm_done ? "exact" : "unfinished", want, sol.solved ? "exact" : "unfinished", sol.value);
  fflush(stdout);
  mc_search_free(s);
  mm_free(&mm);
}

int main(void) {
  check_hand_worked();
  mc_retro_result res;
  mc_rules k;
  mc_rules_init(&k, MC_KALAH);
  CHECK_INT(mc_retro_solve(&k, 0, 0, &res), MC_EINVAL);
  mc_rules big = oware(6, 4, MC_GS_NO_CAPTURE);
  CHECK_INT(mc_retro_solve(&big, 1000, 0, &res), MC_ELIMIT);
  for (int m = 1; m <= 3; m++)
    for (int n = 1; n <= 3; n++)
      for (int gs = 0; gs < 3; gs++)
        if (m * n <= 6)
          check_against_minimax(m, n, (mc_grand_slam)gs);
  return check_exit("retro");
}
