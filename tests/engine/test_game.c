/* Games (mc_game.h): moves and movers, repetition (Oware 6), whole Congkak matches, finishing from
 * outside the board, copies, undo, and errors that leave the game unchanged. All values worked by
 * hand.
 */
#include "util.h"

/* Everything observable of a game, to compare before and after a call. */
typedef struct snapshot {
  mc_pos pos;
  size_t ply;
  uint8_t moves[512];
  int over;
  mc_result result;
  char record[2048];
} snapshot;

static void take(const mc_game *g, snapshot *s) {
  size_t n = 0;
  const uint8_t *moves = mc_game_moves(g, &n);
  memset(s, 0, sizeof *s);
  s->pos = *mc_game_pos(g);
  s->ply = mc_game_ply(g);
  if (n > 0 && n <= sizeof s->moves) {
    memcpy(s->moves, moves, n);
  }
  s->over = mc_game_over(g, &s->result);
  mc_record_format(g, s->record, sizeof s->record);
}

static int same_snapshot(const snapshot *a, const snapshot *b) {
  return memcmp(&a->pos, &b->pos, sizeof a->pos) == 0 && a->ply == b->ply &&
         memcmp(a->moves, b->moves, sizeof a->moves) == 0 && a->over == b->over &&
         (!a->over || memcmp(&a->result, &b->result, sizeof a->result) == 0) &&
         strcmp(a->record, b->record) == 0;
}

/* Kalah 6x4: "3 6 1". South 3 ends in the store (South again), South 6 ends in North house 4,
 * North 1 (5 seeds) ends in its own house 6, which held 4.
 * 4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) -> 4 4 0 5 5 5 (1) ... -> 4 4 0 5 5 0 (2) 5 5 5 5 4 4 (0)
 * -> 4 4 0 5 5 0 (2) 0 6 6 6 5 5 (0), South to move. */
static void test_moves_and_movers(void) {
  mc_rules r = mk_rules(MC_KALAH, 6, 4);
  mc_game *g = mc_game_new(&r);
  uint8_t legal[MC_MAX_HOUSES];
  size_t n = 99;
  CHECK(g != NULL);
  CHECK(memcmp(mc_game_rules(g), &r, sizeof r) == 0);
  CHECK_INT(mc_game_ply(g), 0);
  mc_game_moves(g, &n);
  CHECK_INT(n, 0);
  CHECK_INT(mc_game_mover(g, 0), -1);
  CHECK_POS(mc_game_pos(g), "4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) south");
  CHECK_INT(mc_game_legal(g, legal), 6);
  CHECK(!mc_game_over(g, NULL));

  mc_trace *tr = the_trace();
  CHECK_INT(mc_game_play(g, 3, tr), 0);
  CHECK_TRACE(tr, 6, "pick2:4 sow3 sow4 sow5 sow6 extra6");
  CHECK_INT(mc_game_legal(g, legal), 5);
  CHECK_INT(legal[2], 4);
  CHECK_INT(mc_game_play(g, 6, NULL), 0);
  CHECK_INT(mc_game_play(g, 1, tr), 0);
  CHECK_TRACE(tr, 6, "pick7:5 sow8 sow9 sow10 sow11 sow12");
  CHECK_POS(mc_game_pos(g), "4 4 0 5 5 0 (2) 0 6 6 6 5 5 (0) south");
  CHECK_INT(mc_game_ply(g), 3);
  const uint8_t *moves = mc_game_moves(g, &n);
  CHECK_INT(n, 3);
  CHECK(moves != NULL && moves[0] == 3 && moves[1] == 6 && moves[2] == 1);
  CHECK_INT(mc_game_mover(g, 0), MC_SOUTH);
  CHECK_INT(mc_game_mover(g, 1), MC_SOUTH);
  CHECK_INT(mc_game_mover(g, 2), MC_NORTH);
  CHECK_INT(mc_game_mover(g, 3), -1);
  CHECK_INT(mc_game_mover(g, 1000), -1);
  mc_game_free(g);
}

/* Errors leave the game unchanged: house 0 and m + 1 are MC_EINVAL, an empty house MC_EILLEGAL.
 * After South 3 (an extra turn) South's house 3 is empty. */
static void test_errors_leave_game_unchanged(void) {
  mc_rules r = mk_rules(MC_KALAH, 6, 4);
  mc_game *g = mc_game_new(&r);
  snapshot before, after;
  CHECK_INT(mc_game_play(g, 3, NULL), 0);
  take(g, &before);
  the_trace()->len = 4242;
  CHECK_INT(mc_game_play(g, 0, the_trace()), MC_EINVAL);
  CHECK_INT(mc_game_play(g, 7, the_trace()), MC_EINVAL);
  CHECK_INT(mc_game_play(g, -1, the_trace()), MC_EINVAL);
  CHECK_INT(mc_game_play(g, 3, the_trace()), MC_EILLEGAL);
  CHECK_INT(the_trace()->len, 4242);
  take(g, &after);
  CHECK(same_snapshot(&before, &after));
  mc_game_free(g);
  mc_game_free(NULL);
}

/* Oware 6, edge case: repetition through mc_game, on Oware 1x1 (see test_oware.c):
 * P1 = "0 (0) 2 (0) north" after moves 1, 3 and 5; P2 = "2 (0) 0 (0) south" after 2 and 4.
 * Move 5 makes P1 occur for the third time: the game ends and each player takes the seeds of their
 * own houses: North 2, South 0. The trace of move 5 ends with that sweep. */
static void test_repetition(void) {
  mc_rules r = mk_rules(MC_OWARE, 1, 1);
  mc_game *g = mc_game_new(&r);
  mc_result res;
  uint8_t legal[MC_MAX_HOUSES];
  for (int i = 0; i < 4; i++) {
    CHECK_INT(mc_game_play(g, 1, NULL), 0);
    CHECK(!mc_game_over(g, &res));
  }
  CHECK_POS(mc_game_pos(g), "2 (0) 0 (0) south");
  CHECK_INT(mc_game_play(g, 1, the_trace()), 0);
  CHECK_TRACE_EXACT(the_trace(), 1, "pick0:2 sow2 sow2 sweep2:2>3");
  CHECK(mc_game_over(g, &res));
  CHECK_RESULT(&res, MC_WIN_NORTH, MC_REASON_REPETITION, 0, 2);
  CHECK_PITS(mc_game_pos(g), "0 (0) 0 (2)");
  CHECK_INT(mc_game_ply(g), 5);
  CHECK_INT(mc_game_legal(g, legal), 0);
  snapshot before, after;
  take(g, &before);
  CHECK_INT(mc_game_play(g, 1, NULL), MC_EOVER);
  take(g, &after);
  CHECK(same_snapshot(&before, &after));
  CHECK_INT(mc_game_finish(g, MC_REASON_RESIGNATION, MC_WIN_SOUTH), MC_EOVER);
  mc_game_free(g);

  /* Oware 1x2: "2 (0) 2 (0)": South sows N, skips itself, N: "0 (0) 4 (0) north"; North feeds
   * with 4 seeds all into S: "4 (0) 0 (0) south"; and back. The 5th move makes "0 (0) 4 (0)
   * north" the third time: North takes 4. The start position never comes back. */
  r = mk_rules(MC_OWARE, 1, 2);
  g = mc_game_new(&r);
  for (int i = 0; i < 5; i++) {
    CHECK(!mc_game_over(g, NULL));
    CHECK_INT(mc_game_play(g, 1, NULL), 0);
  }
  CHECK(mc_game_over(g, &res));
  CHECK_RESULT(&res, MC_WIN_NORTH, MC_REASON_REPETITION, 0, 4);
  mc_game_free(g);
}

/* Oware 6 after a capture: the history starts afresh at the first position after the change of
 * the stores, and that position counts as an occurrence. Oware 2x1 (pits: S 0 1, store 2, N 3 4,
 * store 5; sowing ring 0 1 3 4), moves "1 2 2 1 1 2" then "1 1 2 2" three times:
 *  1. S1 (pit 0): 1 (1 -> 2).                          -> 0 2 (0) 1 1 (0) north
 *  2. N2 (pit 4): 0 (0 -> 1).                          -> 1 2 (0) 1 0 (0) south
 *  3. S2 (pit 1, 2): 3 (1 -> 2), 4 (0 -> 1): no capture. -> 1 0 (0) 2 1 (0) north
 *  4. N1 (pit 3, 2): 4, 0 (1 -> 2): would take all of South's seeds: a grand slam, no capture.
 *                                                      -> 2 0 (0) 0 2 (0) south
 *  5. S1 (pit 0, 2): 1, 3 (0 -> 1).                    -> 0 1 (0) 1 2 (0) north
 *  6. N2 (pit 4, 2): 0 (0 -> 1), 1 (1 -> 2): capture 2 (pit 0 holds 1: stop); South keeps 1.
 *     P = 1 0 (0) 1 0 (2) south, the first position after the change.
 *  7. S1: 1.   8. N1: 4.   9. S2: 3 (North must then feed: only N2 reaches pit 0).  10. N2: 0.
 *     -> P again (second time); 11-14 the same: P for the third time: the game ends, each side
 *     takes its houses: South 0 + 1, North 2 + 1: North wins 3 to 1. */
static void test_repetition_after_capture(void) {
  mc_rules r = mk_rules(MC_OWARE, 2, 1);
  mc_game *g = mc_game_new(&r);
  mc_result res;
  const int moves[] = {1, 2, 2, 1, 1, 2, 1, 1, 2, 2, 1, 1, 2, 2};
  const char *after[] = {"0 2 (0) 1 1 (0) north", "1 2 (0) 1 0 (0) south", "1 0 (0) 2 1 (0) north",
                         "2 0 (0) 0 2 (0) south", "0 1 (0) 1 2 (0) north", "1 0 (0) 1 0 (2) south",
                         "0 1 (0) 1 0 (2) north", "0 1 (0) 0 1 (2) south", "0 0 (0) 1 1 (2) north",
                         "1 0 (0) 1 0 (2) south"};
  for (int i = 0; i < 13; i++) {
    CHECK_INT(mc_game_play(g, moves[i], NULL), 0);
    CHECK(!mc_game_over(g, NULL));
    CHECK_POS(mc_game_pos(g), after[i < 10 ? i : i - 4]);
  }
  CHECK_INT(mc_game_play(g, moves[13], the_trace()), 0);
  CHECK_TRACE_EXACT(the_trace(), 2, "pick4:1 sow0 sweep0:1>2 sweep3:1>5");
  CHECK(mc_game_over(g, &res));
  CHECK_RESULT(&res, MC_WIN_NORTH, MC_REASON_REPETITION, 1, 3);
  CHECK_PITS(mc_game_pos(g), "0 0 (1) 0 0 (3)");
  mc_game_free(g);
}

/* Trying a move and taking it back leaves the repetition history as it was, also when the move
 * tried starts a new epoch (a capture empties the history). Found by the engine's fuzz target
 * (tests/fuzz): an undone capture used to leave the history empty, so earlier occurrences of a
 * position were forgotten (and a copy then passed a NULL history to memcpy). The Oware 2x1 game
 * below (found by a search over random games) ends by repetition on its 26th move when played
 * straight; trying and undoing every legal move before each move must not change that. */
static void test_undo_keeps_history(void) {
  mc_rules r = mk_rules(MC_OWARE, 2, 1);
  const int moves[] = {1, 2, 1, 1, 2, 1, 1, 2, 2, 1, 1, 1, 2,
                       2, 2, 1, 2, 1, 1, 1, 2, 2, 2, 1, 2, 1};
  const int n_moves = (int)(sizeof moves / sizeof moves[0]);
  mc_game *ref = mc_game_new(&r), *g = mc_game_new(&r);
  for (int i = 0; i < n_moves; i++) {
    CHECK(!mc_game_over(ref, NULL));
    CHECK_INT(mc_game_play(ref, moves[i], NULL), 0);
  }
  mc_result want, got;
  CHECK(mc_game_over(ref, &want));
  CHECK_INT(want.reason, MC_REASON_REPETITION);
  for (int i = 0; i < n_moves; i++) {
    uint8_t legal[MC_MAX_HOUSES];
    int n = mc_game_legal(g, legal);
    for (int k = 0; k < n; k++) {
      CHECK_INT(mc_game_play(g, legal[k], NULL), 0);
      CHECK_INT(mc_game_undo(g), 0);
      mc_game *c = mc_game_copy(g);
      CHECK(c != NULL);
      mc_game_free(c);
    }
    CHECK(!mc_game_over(g, NULL));
    CHECK_INT(mc_game_play(g, moves[i], NULL), 0);
  }
  CHECK(mc_game_over(g, &got));
  CHECK(memcmp(&got, &want, sizeof got) == 0);
  mc_game_free(ref);
  mc_game_free(g);
}

/* A whole Congkak match on 1x1: each round South or North sows its one seed into its store, has no
 * seeds, and the round ends 1 to 1 (the other player's seed swept into their store). Both refill
 * their single house. The player who moved second starts the next round: North in round 2, South
 * in round 3, ... After the 9th round the match ends: a 1-1 draw. */
static void test_congkak_match_1x1(void) {
  mc_rules r = mk_rules(MC_CONGKAK, 1, 1);
  r.match = true;
  mc_game *g = mc_game_new(&r);
  mc_result res;
  char want[64];
  for (int round = 1; round <= 9; round++) {
    int seat = (round - 1) % 2;
    snprintf(want, sizeof want, "1 (0) 1 (0) %s round %d first %s", seat ? "north" : "south", round,
             seat ? "north" : "south");
    if (round == 1) {
      snprintf(want, sizeof want, "1 (0) 1 (0) south");
    }
    CHECK_POS(mc_game_pos(g), want);
    CHECK(!mc_game_over(g, NULL));
    CHECK_INT(mc_game_play(g, 1, the_trace()), 0);
    CHECK_INT(mc_game_mover(g, (size_t)round - 1), seat);
    if (round == 1) {
      CHECK_TRACE(the_trace(), 1, "pick0:1 sow1 sweep2:1>3 end1 refill0:1<1 refill2:1<3");
    }
  }
  CHECK(mc_game_over(g, &res));
  CHECK_RESULT(&res, MC_DRAW, MC_REASON_NO_SEEDS, 1, 1);
  CHECK_PITS(mc_game_pos(g), "0 (1) 0 (1)");
  CHECK_INT(mc_game_ply(g), 9);
  mc_game_free(g);
}

/* A whole Congkak match on 2x1 (pits: S 0 1, store 2, N 3 4, store 5; 0 faces 4, 1 faces 3).
 * Round 1: South 2 (pit 1) sows its store: again. South 1 (pit 0) sows pit 1 (empty, facing pit 3
 * with 1): capture 2, store 3. North 2 (pit 4) sows its store: again, but North has no seeds: the
 * round ends 3 to 1. Refill (n = 1): South pits 1, 0 (1 left); North pit 4, then pit 3 cannot be
 * filled: burnt. North lost: it starts round 2: "1 1 (1) x 1 (0) north round 2 first north".
 * Rounds 2..9: North's only move (house 2) sows its store and North has no seeds; South sweeps 2:
 * 3 to 1 each time; North keeps losing and starting; its 1 seed fills house 2 again and house 1 is
 * burnt again, round after round (burning is decided afresh). After round 9: South wins 3 to 1.
 * 3 + 8 = 11 moves. */
static void test_congkak_match_2x1(void) {
  mc_rules r = mk_rules(MC_CONGKAK, 2, 1);
  r.match = true;
  mc_game *g = mc_game_new(&r);
  mc_result res;
  uint8_t legal[MC_MAX_HOUSES];
  CHECK_INT(mc_game_play(g, 2, NULL), 0);
  CHECK_POS(mc_game_pos(g), "1 0 (1) 1 1 (0) south");
  CHECK_INT(mc_game_play(g, 1, NULL), 0);
  CHECK_POS(mc_game_pos(g), "0 0 (3) 0 1 (0) north");
  CHECK_INT(mc_game_play(g, 2, the_trace()), 0);
  CHECK_TRACE(the_trace(), 2, "pick4:1 sow5 end1 refill1:1<2 refill0:1<2 refill4:1<5 burn3");
  CHECK_POS(mc_game_pos(g), "1 1 (1) x 1 (0) north round 2 first north");
  CHECK_INT(mc_game_legal(g, legal), 1);
  CHECK_INT(legal[0], 2);
  CHECK_INT(mc_game_play(g, 1, NULL), MC_EILLEGAL);
  char want[64];
  for (int round = 2; round <= 9; round++) {
    snprintf(want, sizeof want, "1 1 (1) x 1 (0) north round %d first north", round);
    CHECK_POS(mc_game_pos(g), want);
    CHECK_INT(mc_game_play(g, 2, the_trace()), 0);
    if (round == 2) {
      /* Pit 3 cannot be filled for round 3 either: burnt again, with a step of its own. */
      CHECK_TRACE(the_trace(), 2,
                  "pick4:1 sow5 sweep0:1>2 sweep1:1>2 end2 refill1:1<2 refill0:1<2 refill4:1<5 "
                  "burn3");
    }
  }
  CHECK(mc_game_over(g, &res));
  CHECK_RESULT(&res, MC_WIN_SOUTH, MC_REASON_NO_SEEDS, 3, 1);
  CHECK_PITS(mc_game_pos(g), "0 0 (3) x 0 (1)");
  CHECK_INT(mc_game_ply(g), 11);
  CHECK_INT(mc_game_mover(g, 10), MC_NORTH);
  mc_game_free(g);
}

/* A whole Congkak match on 3x2 (12 seeds; pits: S 0 1 2, store 3, N 4 5 6, store 7; pit k faces
 * pit 6 - k) that ends because North cannot fill a house. Moves "1 2 1 3 2 3 2":
 * 1. South 1 (pit 0, 2): 1, 2 (2 -> 3): relay 3: 3 (store), 4, 5 (-> 3): relay 3: 6, 7 skipped,
 *    0, 1 (3 -> 4): relay 4: 2, 3 (store), 4, 5 (relayed, empty; North's): stays.
 *    -> 1 0 1 (2) 4 1 3 (0) north
 * 2. North 2 (pit 5, 1): 6 (3 -> 4): relay 4: 7 (store), 0, 1, 2 (1 -> 2): relay 2: 3 skipped, 4,
 *    5 (its emptied origin) facing pit 1 with 1: capture 2.  -> 2 0 0 (2) 5 0 0 (3) south
 * 3. South 1 (pit 0, 2): 1, 2 (empty own house) facing pit 4 with 5: capture 6 (store 8). North has
 *    no seeds: round 1 ends, pit 1 swept (9 to 3). Refill n = 2: South pits 2, 1, 0 (3 left);
 *    North pit 6 (1 left), pits 5 and 4 burnt. North lost: it starts round 2.
 *    -> 2 2 2 (3) x x 2 (1) north round 2 first north
 * 4. North 3 (pit 6, 2): 7 (store), 0 (2 -> 3): relay 3: 1, 2, 3 skipped, 4 and 5 burnt: skipped,
 *    6 (its emptied origin) facing pit 0, just emptied: no capture.
 *    -> 0 3 3 (3) x x 1 (2) south round 2 first north
 * 5. South 2 (pit 1, 3): 2, 3 (store), burnt 4 and 5 skipped, 6 (1 -> 2): relay 2: 7 skipped, 0,
 *    1 (emptied origin) facing burnt pit 5: no capture. North has no seeds: round 2 ends, South
 *    sweeps 1 + 1 + 4 (10 to 2). Refill: South 3 houses (4 left), North pit 6 (0 left); pits 5
 *    and 4 cannot be filled: burnt again for round 3.  -> 2 2 2 (4) x x 2 (0) north round 3 first
 *    north
 * 6. North 3 as in 4.  -> 0 3 3 (4) x x 1 (1) south round 3 first north
 * 7. South 2 as in 5: round 3 ends 11 to 1; North cannot fill a house of 2: South wins the match.
 *    -> 0 0 0 (11) x x 0 (1) */
static void test_congkak_match_3x2(void) {
  mc_rules r = mk_rules(MC_CONGKAK, 3, 2);
  r.match = true;
  mc_game *g = mc_game_new(&r);
  mc_result res;
  struct {
    int house;
    const char *pos;
    const char *trace;
  } steps[] = {
      {1, "1 0 1 (2) 4 1 3 (0) north",
       "pick0:2 sow1 sow2 relay2:3 sow3 sow4 sow5 relay5:3 sow6 sow0 sow1 relay1:4 sow2 sow3 sow4 "
       "sow5"},
      {2, "2 0 0 (2) 5 0 0 (3) south",
       "pick5:1 sow6 relay6:4 sow7 sow0 sow1 sow2 relay2:2 sow4 sow5 cap1:1>7 cap5:1>7"},
      {1, "2 2 2 (3) x x 2 (1) north round 2 first north",
       "pick0:2 sow1 sow2 cap2:1>3 cap4:5>3 sweep1:1>3 end1 refill2:2<3 refill1:2<3 refill0:2<3 "
       "refill6:2<7 burn5 burn4"},
      {3, "0 3 3 (3) x x 1 (2) south round 2 first north",
       "pick6:2 sow7 sow0 relay0:3 sow1 sow2 sow6"},
      {2, "2 2 2 (4) x x 2 (0) north round 3 first north",
       "pick1:3 sow2 sow3 sow6 relay6:2 sow0 sow1 sweep0:1>3 sweep1:1>3 sweep2:4>3 end2 "
       "refill2:2<3 refill1:2<3 refill0:2<3 refill6:2<7 burn5 burn4"},
      {3, "0 3 3 (4) x x 1 (1) south round 3 first north", NULL},
  };
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    CHECK_INT(mc_game_play(g, steps[i].house, the_trace()), 0);
    CHECK_POS(mc_game_pos(g), steps[i].pos);
    if (steps[i].trace != NULL) {
      CHECK_TRACE(the_trace(), 3, steps[i].trace);
    }
    CHECK(!mc_game_over(g, NULL));
  }
  CHECK_INT(mc_game_play(g, 2, NULL), 0);
  CHECK(mc_game_over(g, &res));
  CHECK_RESULT(&res, MC_WIN_SOUTH, MC_REASON_NO_SEEDS, 11, 1);
  CHECK_PITS(mc_game_pos(g), "0 0 0 (11) x x 0 (1)");
  CHECK_INT(mc_game_ply(g), 7);
  mc_game_free(g);
}

/* Ending from outside the board: the score is the stores as they are. */
static void test_finish(void) {
  mc_rules r = mk_rules(MC_KALAH, 6, 4);
  mc_game *g = mc_game_new(&r);
  mc_result res;
  uint8_t legal[MC_MAX_HOUSES];
  snapshot before, after;
  CHECK_INT(mc_game_play(g, 3, NULL), 0);
  take(g, &before);
  CHECK_INT(mc_game_finish(g, MC_REASON_NONE, MC_WIN_NORTH), MC_EINVAL);
  CHECK_INT(mc_game_finish(g, MC_REASON_NO_SEEDS, MC_WIN_NORTH), MC_EINVAL);
  CHECK_INT(mc_game_finish(g, MC_REASON_MAJORITY, MC_WIN_NORTH), MC_EINVAL);
  CHECK_INT(mc_game_finish(g, MC_REASON_CANNOT_FEED, MC_WIN_NORTH), MC_EINVAL);
  CHECK_INT(mc_game_finish(g, MC_REASON_REPETITION, MC_WIN_NORTH), MC_EINVAL);
  CHECK_INT(mc_game_finish(g, (mc_reason)9, MC_WIN_NORTH), MC_EINVAL);
  CHECK_INT(mc_game_finish(g, MC_REASON_RESIGNATION, (mc_winner)3), MC_EINVAL);
  take(g, &after);
  CHECK(same_snapshot(&before, &after));
  CHECK_INT(mc_game_finish(g, MC_REASON_RESIGNATION, MC_WIN_NORTH), 0);
  CHECK(mc_game_over(g, &res));
  CHECK_RESULT(&res, MC_WIN_NORTH, MC_REASON_RESIGNATION, 1, 0);
  CHECK_INT(mc_game_play(g, 1, NULL), MC_EOVER);
  CHECK_INT(mc_game_legal(g, legal), 0);
  CHECK_INT(mc_game_finish(g, MC_REASON_TIMEOUT, MC_WIN_SOUTH), MC_EOVER);
  CHECK_INT(mc_game_ply(g), 1);
  mc_game_free(g);

  const mc_reason reasons[] = {MC_REASON_TIMEOUT, MC_REASON_AGREEMENT, MC_REASON_ABANDONED};
  const mc_winner winners[] = {MC_WIN_SOUTH, MC_DRAW, MC_WIN_NORTH};
  for (int i = 0; i < 3; i++) {
    g = mc_game_new(&r);
    CHECK_INT(mc_game_finish(g, reasons[i], winners[i]), 0);
    CHECK(mc_game_over(g, &res));
    CHECK_RESULT(&res, winners[i], reasons[i], 0, 0);
    mc_game_free(g);
  }
}

/* A copy is independent of its original, both ways. */
static void test_copy(void) {
  mc_rules r = mk_rules(MC_OWARE, 1, 1);
  mc_game *g = mc_game_new(&r);
  CHECK_INT(mc_game_play(g, 1, NULL), 0);
  CHECK_INT(mc_game_play(g, 1, NULL), 0);
  mc_game *c = mc_game_copy(g);
  CHECK(c != NULL);
  snapshot a, b;
  take(g, &a);
  take(c, &b);
  CHECK(same_snapshot(&a, &b));
  /* The copy carries the repetition history: three more moves end it as well. */
  for (int i = 0; i < 3; i++) {
    CHECK_INT(mc_game_play(c, 1, NULL), 0);
  }
  CHECK(mc_game_over(c, NULL));
  take(g, &b);
  CHECK(same_snapshot(&a, &b));
  CHECK(!mc_game_over(g, NULL));
  mc_game *c2 = mc_game_copy(g);
  CHECK_INT(mc_game_finish(g, MC_REASON_AGREEMENT, MC_DRAW), 0);
  CHECK(!mc_game_over(c2, NULL));
  CHECK_INT(mc_game_ply(c2), 2);
  mc_game_free(g);
  mc_game_free(c);
  CHECK_INT(mc_game_play(c2, 1, NULL), 0);
  CHECK_INT(mc_game_ply(c2), 3);
  mc_game_free(c2);
}

/* Undo takes back exactly the last move: in long random games of every kind on full and tiny
 * boards (captures, new epochs, repetitions, Congkak rounds and burnt houses, game ends), each
 * move is first tried and undone (the game is as it was), then another random move is played; a
 * reference game that never undoes plays only the second ones and must stay identical, repetition
 * history included (it decides when small games end). */
static void test_undo(void) {
  static const mc_kind kinds[] = {MC_KALAH, MC_OWARE, MC_CONGKAK};
  unsigned seed = 12345;
  static mc_trace t1, t2;
  for (int k = 0; k < 3; k++) {
    for (int round = 0; round < 40; round++) {
      mc_rules r;
      CHECK_INT(mc_rules_init(&r, kinds[k]), 0);
      r.match = kinds[k] == MC_CONGKAK && round % 2 == 0;
      if (round % 4 >= 2) {
        r.houses = (uint8_t)(1 + round % 3);
        r.seeds = (uint8_t)(1 + round % 2);
      }
      mc_game *g = mc_game_new(&r);
      mc_game *ref = mc_game_new(&r);
      CHECK_INT(mc_game_undo(g), MC_EINVAL); /* Nothing played yet. */
      while (!mc_game_over(g, NULL) && mc_game_ply(g) < 500) {
        uint8_t legal[MC_MAX_HOUSES];
        int n = mc_game_legal(g, legal);
        seed = seed * 1103515245u + 12345u;
        int tried = legal[(seed >> 16) % (unsigned)n];
        seed = seed * 1103515245u + 12345u;
        int house = legal[(seed >> 16) % (unsigned)n];
        snapshot before, after, again;
        take(g, &before);
        for (int i = -1; i < n; i++) { /* The random move, then every legal one. */
          CHECK_INT(mc_game_play(g, i < 0 ? tried : legal[i], &t1), 0);
          CHECK_INT(mc_game_undo(g), 0);
          take(g, &again);
          CHECK(same_snapshot(&before, &again));
          CHECK_INT(mc_game_undo(g), MC_EINVAL); /* One level only. */
        }
        CHECK_INT(mc_game_play(g, house, &t1), 0);
        CHECK_INT(mc_game_play(ref, house, &t2), 0);
        take(g, &after);
        take(ref, &again);
        CHECK(same_snapshot(&after, &again));
        CHECK(t1.len == t2.len && memcmp(t1.steps, t2.steps, t1.len * sizeof t1.steps[0]) == 0);
      }
      CHECK(mc_game_over(g, NULL) == mc_game_over(ref, NULL));
      mc_game_free(ref);
      mc_game_free(g);
    }
  }
  /* Oware 1x1 ends by repetition on the fifth move (see test_copy): undo reopens the game, the
   * same move ends it again. */
  mc_rules r = mk_rules(MC_OWARE, 1, 1);
  mc_game *g = mc_game_new(&r);
  for (int i = 0; i < 4; i++) {
    CHECK_INT(mc_game_play(g, 1, NULL), 0);
  }
  CHECK(!mc_game_over(g, NULL));
  CHECK_INT(mc_game_play(g, 1, NULL), 0);
  mc_result res;
  CHECK(mc_game_over(g, &res));
  CHECK_INT(res.reason, MC_REASON_REPETITION);
  CHECK_INT(mc_game_undo(g), 0);
  CHECK(!mc_game_over(g, NULL));
  CHECK_INT(mc_game_ply(g), 4);
  CHECK_INT(mc_game_play(g, 1, NULL), 0);
  CHECK(mc_game_over(g, &res));
  CHECK_INT(res.reason, MC_REASON_REPETITION);
  mc_game_free(g);
  /* A game finished from outside, or a copy, has nothing to take back. */
  g = mc_game_new(&r);
  CHECK_INT(mc_game_play(g, 1, NULL), 0);
  mc_game *c = mc_game_copy(g);
  CHECK_INT(mc_game_undo(c), MC_EINVAL);
  CHECK_INT(mc_game_finish(g, MC_REASON_RESIGNATION, MC_WIN_SOUTH), 0);
  CHECK_INT(mc_game_undo(g), MC_EINVAL);
  CHECK(mc_game_over(g, NULL));
  CHECK_INT(mc_game_ply(g), 1);
  CHECK_INT(mc_game_undo(NULL), MC_EINVAL);
  mc_game_free(c);
  mc_game_free(g);
}

/* Bad rules give no game. */
static void test_bad_rules(void) {
  mc_rules r = mk_rules(MC_KALAH, 10, 4);
  CHECK(mc_game_new(&r) == NULL);
  r = mk_rules(MC_OWARE, 6, 4);
  r.lap_capture = true;
  CHECK(mc_game_new(&r) == NULL);
}

/* A Kalah 1x1 game ends after its single move (a 1-1 draw). */
static void test_kalah_1x1(void) {
  mc_rules r = mk_rules(MC_KALAH, 1, 1);
  mc_game *g = mc_game_new(&r);
  mc_result res;
  CHECK_INT(mc_game_play(g, 1, NULL), 0);
  CHECK(mc_game_over(g, &res));
  CHECK_RESULT(&res, MC_DRAW, MC_REASON_NO_SEEDS, 1, 1);
  mc_game_free(g);
}

int main(void) {
  test_moves_and_movers();
  test_errors_leave_game_unchanged();
  test_repetition();
  test_repetition_after_capture();
  test_congkak_match_1x1();
  test_congkak_match_2x1();
  test_congkak_match_3x2();
  test_finish();
  test_copy();
  test_undo();
  test_undo_keeps_history();
  test_bad_rules();
  test_kalah_1x1();
  return check_exit("game");
}
