/* The analyses of finished games: the marks by the value lost (srv_marks.h, hand-worked values in
 * hundredths of a seed), each seat's accuracy, the stored form of the plies, and the analysis lane
 * of the search pool, which gives its CPU up to a move and goes on afterwards (a worker the test
 * runs by hand).
 */
#include <jansson.h>
#include <string.h>

#include "harness.h"
#include "srv_analysis.h"
#include "srv_marks.h"
#include "srv_search_pool.h"

/* The loss in seeds against the thresholds 1, 3 and 6, neither value proven. */
TEST_IMPL(marks_by_loss) {
  ASSERT_EQ(srv_mark_of(300, false, 300, false), SRV_MARK_BEST);
  ASSERT_EQ(srv_mark_of(300, false, 350, false), SRV_MARK_BEST); /* No loss below 0. */
  ASSERT_EQ(srv_mark_of(300, false, 299, false), SRV_MARK_GOOD);
  ASSERT_EQ(srv_mark_of(300, false, 200, false), SRV_MARK_GOOD);       /* 1 seed */
  ASSERT_EQ(srv_mark_of(300, false, 199, false), SRV_MARK_INACCURACY); /* 1.01 */
  ASSERT_EQ(srv_mark_of(300, false, 0, false), SRV_MARK_INACCURACY);   /* 3 */
  ASSERT_EQ(srv_mark_of(300, false, -1, false), SRV_MARK_MISTAKE);     /* 3.01 */
  ASSERT_EQ(srv_mark_of(-200, false, -800, false), SRV_MARK_MISTAKE);  /* 6 */
  ASSERT_EQ(srv_mark_of(-200, false, -801, false), SRV_MARK_BLUNDER);  /* 6.01 */
  ASSERT_EQ(srv_mark_of(2400, true, 0, true), SRV_MARK_BLUNDER);       /* 24 */
  return 0;
}

/* A proven result given away is at least a mistake, however few seeds it costs; unproven values
 * keep the mark of their loss. */
TEST_IMPL(marks_result_given_away) {
  /* Won by 1 seed -> lost by 1: 2 seeds, an inaccuracy by the loss, a mistake by the result. */
  ASSERT_EQ(srv_mark_of(100, true, -100, true), SRV_MARK_MISTAKE);
  ASSERT_EQ(srv_mark_of(100, false, -100, true), SRV_MARK_INACCURACY);
  ASSERT_EQ(srv_mark_of(100, true, -100, false), SRV_MARK_INACCURACY);
  /* Won -> drawn (1 seed, good by the loss), drawn -> lost. */
  ASSERT_EQ(srv_mark_of(100, true, 0, true), SRV_MARK_MISTAKE);
  ASSERT_EQ(srv_mark_of(0, true, -100, true), SRV_MARK_MISTAKE);
  /* Still won, still lost, still drawn: the loss alone. */
  ASSERT_EQ(srv_mark_of(300, true, 200, true), SRV_MARK_GOOD);
  ASSERT_EQ(srv_mark_of(-100, true, -300, true), SRV_MARK_INACCURACY);
  ASSERT_EQ(srv_mark_of(0, true, 0, true), SRV_MARK_BEST);
  /* A blunder stays a blunder. */
  ASSERT_EQ(srv_mark_of(100, true, -700, true), SRV_MARK_BLUNDER);
  ASSERT_STR_EQ(srv_mark_name(SRV_MARK_INACCURACY), "inaccuracy");
  ASSERT_NULL(srv_mark_name(SRV_MARK_NONE));
  return 0;
}

static mc_ply_eval ply(int mover, int played, int best, int value, int played_value, bool known) {
  mc_ply_eval e;
  memset(&e, 0, sizeof e);
  e.mover = (uint8_t)mover;
  e.played = (uint8_t)played;
  e.best = (uint8_t)best;
  e.value = value;
  e.played_value = played_value;
  e.played_known = known;
  e.depth = 9;
  return e;
}

/* South: best, good (0.5 seed), blunder (7 seeds), one not valued; North: one mistake (4 seeds).
 * South's accuracy is 2 of 3 marked moves, North's 0 of 1; a seat with no move has none. */
TEST_IMPL(accuracy_share) {
  mc_ply_eval p[5] = {ply(MC_SOUTH, 3, 3, 150, 150, true), ply(MC_NORTH, 1, 2, 200, -200, true),
                      ply(MC_SOUTH, 4, 6, 50, 0, true), ply(MC_SOUTH, 1, 2, 100, -600, true),
                      ply(MC_SOUTH, 2, 5, 0, 0, false)};
  ASSERT_EQ(srv_mark_ply(&p[4]), SRV_MARK_NONE);
  ASSERT_EQ(srv_mark_ply(&p[1]), SRV_MARK_MISTAKE);
  double acc = -1;
  ASSERT(srv_marks_accuracy(p, 5, MC_SOUTH, &acc));
  ASSERT(acc > 66.66 && acc < 66.67);
  ASSERT(srv_marks_accuracy(p, 5, MC_NORTH, &acc));
  ASSERT(acc == 0.0);
  ASSERT(!srv_marks_accuracy(p, 1, MC_NORTH, &acc));
  return 0;
}

/* The stored form: values in seeds, the loss, eval for South, the swap named, the best line. */
TEST_IMPL(encode_plies) {
  mc_ply_eval p[2] = {ply(MC_SOUTH, 2, 2, 125, 125, true),
                      ply(MC_NORTH, MC_SWAP, 4, 300, -50, true)};
  p[0].exact = true;
  p[0].played_exact = true;
  p[0].pv_len = 3;
  memcpy(p[0].pv, (uint8_t[]){2, MC_SWAP, 1}, 3);
  srv_store_analysis a;
  memset(&a, 0, sizeof a);
  ASSERT_EQ(srv_analysis_encode(p, 2, &a), 0);
  json_t *j = json_loads(a.plies, 0, NULL);
  ASSERT_NOT_NULL(j);
  char *sorted = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
  ASSERT_STR_EQ(sorted,
                "[{\"after\":1.25,\"before\":1.25,\"best\":2,\"depth\":9,\"eval\":1.25,"
                "\"exact\":true,\"line\":[2,\"swap\",1],\"loss\":0.0,\"mark\":\"best\","
                "\"played\":2,\"played_exact\":true,\"ply\":1,\"seat\":\"south\"},"
                "{\"after\":-0.5,\"before\":3.0,\"best\":4,\"depth\":9,\"eval\":-3.0,"
                "\"exact\":false,\"line\":[],\"loss\":3.5,\"mark\":\"mistake\","
                "\"played\":\"swap\",\"played_exact\":false,\"ply\":2,\"seat\":\"north\"}]");
  free(sorted);
  json_decref(j);
  ASSERT(a.accuracy_known[0] && a.accuracy[0] == 100.0);
  ASSERT(a.accuracy_known[1] && a.accuracy[1] == 0.0);
  free(a.plies);
  return 0;
}

/* ---- The analysis lane ------------------------------------------------------------------------
 */

static void on_done(void *arg, const srv_search_answer *a) {
  srv_search_answer *out = arg;
  *out = *a;
  if (a->plies != NULL) { /* Borrowed for the call: keep the count and the first ply. */
    out->plies = NULL;
    out->res.best = a->plies[0].best;
  }
}

/* One CPU: an analysis runs while no move wants it; a move queued stops it (its worker returns
 * at once), it waits while the move runs, and goes on when the move is answered, to answer every
 * ply of the game. */
TEST_IMPL(lane_yields_to_moves) {
  world w;
  world_init(&w, NULL);
  fake_work fw;
  memset(&fw, 0, sizeof fw);
  fake_work_init(&fw, &w);
  srv_search_pool_config pc = {
      .workers = {1, 1, 1}, .target_ms = {60, 2000}, .floor_ms = {1, 5}, .cpus = 1};
  srv_search_queue *q = srv_search_pool_new(&fw.base, &w.time.base, &pc);
  ASSERT_NOT_NULL(q);
  mc_rules rules;
  mc_rules_init(&rules, MC_KALAH);
  rules.houses = 4;
  rules.seeds = 2;
  mc_game *g = mc_game_new(&rules);
  ASSERT_NOT_NULL(g);
  for (int i = 0; i < 6 && !mc_game_over(g, NULL); i++) {
    uint8_t legal[MC_MAX_HOUSES];
    ASSERT(mc_game_legal(g, legal) > 0);
    ASSERT_EQ(mc_game_play(g, legal[0], NULL), 0);
  }
  size_t n = 0;
  mc_game_moves(g, &n);
  ASSERT_EQ(n, 6);
  srv_search_req an = {g, 6, 5, 1, SRV_SEARCH_ANALYSIS, "analysis"};
  srv_search_answer analysis, move;
  memset(&analysis, 0, sizeof analysis);
  memset(&move, 0, sizeof move);
  analysis.rc = 1; /* Not answered yet. */
  srv_search_job *aj, *mj;
  ASSERT_EQ(q->submit(q, &an, on_done, &analysis, &aj), 0);
  srv_search_stats st;
  q->stats(q, &st);
  ASSERT_EQ(st.running[SRV_SEARCH_ANALYSIS], 1);
  ASSERT_EQ(fw.n, 1);
  /* A move wants the one CPU: the analysis is told to stop. */
  mc_game *start = mc_game_new(&rules); /* The move's game: another one, at its start. */
  ASSERT_NOT_NULL(start);
  srv_search_req mv = {start, 6, 5, 2, SRV_SEARCH_DEEP, "move"};
  ASSERT_EQ(q->submit(q, &mv, on_done, &move, &mj), 0);
  ASSERT_EQ(fw.n, 2);
  fake_work_run(&fw, 0); /* The analysis' worker: stopped before its first ply. */
  ASSERT_EQ(analysis.rc, 1);
  q->stats(q, &st);
  ASSERT_EQ(st.running[SRV_SEARCH_ANALYSIS], 0);
  ASSERT_EQ(st.waiting[SRV_SEARCH_ANALYSIS], 1);
  ASSERT_EQ(fw.n, 1); /* Only the move: the analysis waits for its CPU. */
  fake_work_run(&fw, 0);
  ASSERT_EQ(move.rc, 0);
  /* The move answered: the analysis goes on, and answers every ply. */
  ASSERT_EQ(fw.n, 1);
  fake_work_run(&fw, 0);
  ASSERT_EQ(analysis.rc, 0);
  ASSERT_EQ(analysis.nplies, 6);
  ASSERT(analysis.res.best >= 1 && analysis.res.best <= 4);
  q->stats(q, &st);
  ASSERT_EQ(st.running[SRV_SEARCH_ANALYSIS] + st.waiting[SRV_SEARCH_ANALYSIS], 0);
  srv_search_pool_close(q);
  srv_search_pool_free(q);
  mc_game_free(g);
  mc_game_free(start);
  world_free(&w);
  return 0;
}
