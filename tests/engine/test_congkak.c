/* Congkak, rule by rule, on positions worked out by hand (rule book, "Congkak" 1-9).
 *
 * Most positions use a 3-house board with 3 seeds a house (18 seeds): South houses 1..3 are pits
 * 0..2, the South store is pit 3, North houses 1..3 are pits 4..6, the North store is pit 7; pit k
 * faces pit 6 - k. House 3 of each side is the one next to its own store.
 */
#include "util.h"

static mc_rules congkak(int lap_capture, int match) {
  mc_rules r = mk_rules(MC_CONGKAK, 3, 3);
  r.lap_capture = lap_capture != 0;
  r.match = match != 0;
  return r;
}

/* Counts the steps of one kind in the last trace. */
static int count_steps(mc_step_kind kind) {
  int n = 0;
  for (size_t i = 0; i < the_trace()->len; i++) {
    n += the_trace()->steps[i].kind == kind;
  }
  return n;
}

/* Defaults: Congkak 7x7, single round, every option off. */
static void test_defaults(void) {
  mc_rules r;
  mc_pos p;
  CHECK_INT(mc_rules_init(&r, MC_CONGKAK), 0);
  CHECK_INT(r.kind, MC_CONGKAK);
  CHECK_INT(r.houses, 7);
  CHECK_INT(r.seeds, 7);
  CHECK(!r.lap_capture);
  CHECK(!r.match);
  CHECK_INT(mc_pos_init(&p, &r), 0);
  CHECK_POS(&p, "7 7 7 7 7 7 7 (0) 7 7 7 7 7 7 7 (0) south");
  CHECK_LEGAL(&r, "7 7 7 7 7 7 7 (0) 7 7 7 7 7 7 7 (0) south", "1234567");
}

/* Rules 1 and 3: sowing includes the own store; the last seed there gives another move.
 * Start, South house 1 (pit 0, 3 seeds): sown 1, 2, 3 (store). South moves again.
 * Before: 3 3 3 (0) 3 3 3 (0)   After: 0 4 4 (1) 3 3 3 (0), South to move. */
static void test_rule1_rule3_extra_turn(void) {
  mc_rules r = congkak(0, 0);
  mc_pos p;
  mc_result res;
  PLAY(&r, "3 3 3 (0) 3 3 3 (0) south", 1, 0, &p, &res);
  CHECK_POS(&p, "0 4 4 (1) 3 3 3 (0) south");
  CHECK_TRACE(the_trace(), 3, "pick0:3 sow1 sow2 sow3 extra3");
  CHECK_LEGAL(&r, "0 4 4 (1) 3 3 3 (0) south", "23");
}

/* Rule 1: the opponent's store is skipped and the origin is not; then rule 4.
 * South house 1 (pit 0, 7 seeds): sown 1, 2, 3 (store), 4, 5, 6, 7 skipped, 0 (the origin, emptied
 * by the pick). The last seed is in an own empty house facing pit 6 (0 + 1 = 1 seed): capture 2.
 * Before: 7 0 0 (2) 1 0 0 (8)   Sown: 1 1 1 (3) 2 1 1 (8)   After: 0 1 1 (5) 2 1 0 (8)
 * The same for North: North house 1 (pit 4, 7): 5, 6, 7 (store), 0, 1, 2, 3 skipped, 4; capture
 * with pit 2. Before: 1 0 0 (8) 7 0 0 (2)   After: 2 1 0 (8) 0 1 1 (5). */
static void test_rule1_lap_and_stores(void) {
  mc_rules r = congkak(0, 0);
  mc_pos p;
  mc_result res;
  PLAY(&r, "7 0 0 (2) 1 0 0 (8) south", 1, 0, &p, &res);
  CHECK_POS(&p, "0 1 1 (5) 2 1 0 (8) north");
  CHECK_TRACE(the_trace(), 3, "pick0:7 sow1 sow2 sow3 sow4 sow5 sow6 sow0 cap0:1>3 cap6:1>3");
  PLAY(&r, "1 0 0 (8) 7 0 0 (2) north", 1, 0, &p, &res);
  CHECK_POS(&p, "2 1 0 (8) 0 1 1 (5) south");
  CHECK_TRACE(the_trace(), 3, "pick4:7 sow5 sow6 sow7 sow0 sow1 sow2 sow4 cap2:1>7 cap4:1>7");
}

/* Rule 2, edge case: a relay across both sides, ending in a capture (rule 4).
 * Start, South house 2 (pit 1, 3 seeds): sown 2, 3 (store), 4. Pit 4 (North house 1) held 3, now
 * 4: lift 4 and sow 5, 6, 7 skipped, 0, 1. Pit 1 is the emptied origin: own empty house, facing
 * pit 5 with 4: capture 1 + 4 = 5, store 1 -> 6. The move dropped a seed in the store, so
 * lap_capture allows the capture too.
 * Before: 3 3 3 (0) 3 3 3 (0)   After: 4 0 4 (6) 0 0 4 (0), North to move. */
static void test_rule2_relay_across_sides(void) {
  for (int lap = 0; lap <= 1; lap++) {
    mc_rules r = congkak(lap, 0);
    mc_pos p;
    mc_result res;
    PLAY(&r, "3 3 3 (0) 3 3 3 (0) south", 2, 0, &p, &res);
    CHECK_POS(&p, "4 0 4 (6) 0 0 4 (0) north");
    CHECK_TRACE(the_trace(), 3,
                "pick1:3 sow2 sow3 sow4 relay4:4 sow5 sow6 sow0 sow1 cap1:1>3 cap5:4>3");
  }
}

/* Rules 2 and 3, edge case: a relay that ends in the own store, then an extra turn.
 * South house 3 (pit 2, 4 seeds): sown 3 (store), 4, 5, 6; pit 6 held 3, now 4: lift 4 and sow
 * 7 skipped, 0, 1, 2, 3 (store): South moves again.
 * Before: 2 2 4 (0) 3 3 3 (1)   After: 3 3 1 (2) 4 4 0 (1), South to move. */
static void test_rule2_relay_into_store(void) {
  mc_rules r = congkak(0, 0);
  mc_pos p;
  mc_result res;
  PLAY(&r, "2 2 4 (0) 3 3 3 (1) south", 3, 0, &p, &res);
  CHECK_POS(&p, "3 3 1 (2) 4 4 0 (1) south");
  CHECK_TRACE(the_trace(), 3, "pick2:4 sow3 sow4 sow5 sow6 relay6:4 sow0 sow1 sow2 sow3 extra3");
}

/* Rule 4 with and without lap_capture.
 * South house 1 (pit 0, 1 seed) sows pit 1 (empty), facing pit 5 with 3; no seed reached the store.
 * Default: capture 1 + 3: store 2 -> 6.  After: 0 0 3 (6) 3 0 1 (5), North to move.
 * lap_capture: not allowed, the seed stays. After: 0 1 3 (2) 3 3 1 (5), North to move. */
static void test_rule4_capture_and_lap_capture(void) {
  mc_rules r = congkak(0, 0);
  mc_pos p;
  mc_result res;
  PLAY(&r, "1 0 3 (2) 3 3 1 (5) south", 1, 0, &p, &res);
  CHECK_POS(&p, "0 0 3 (6) 3 0 1 (5) north");
  CHECK_TRACE(the_trace(), 3, "pick0:1 sow1 cap1:1>3 cap5:3>3");
  r = congkak(1, 0);
  PLAY(&r, "1 0 3 (2) 3 3 1 (5) south", 1, 0, &p, &res);
  CHECK_POS(&p, "0 1 3 (2) 3 3 1 (5) north");
  CHECK_TRACE(the_trace(), 3, "pick0:1 sow1");
}

/* Rule 4, edge case: an empty facing house. South house 1 (pit 0) sows pit 1 (empty); pit 5 is
 * empty: nothing is captured and the turn ends.
 * Before: 1 0 3 (2) 3 0 4 (5)   After: 0 1 3 (2) 3 0 4 (5), North to move. */
static void test_rule4_empty_facing(void) {
  mc_rules r = congkak(0, 0);
  mc_pos p;
  mc_result res;
  PLAY(&r, "1 0 3 (2) 3 0 4 (5) south", 1, 0, &p, &res);
  CHECK_POS(&p, "0 1 3 (2) 3 0 4 (5) north");
  CHECK_TRACE(the_trace(), 3, "pick0:1 sow1");
}

/* Rule 5: the last seed in an empty opponent house stays; the turn ends.
 * South house 3 (pit 2, 2 seeds): sown 3 (store), 4 (empty North house 1).
 * Before: 0 0 2 (5) 0 4 3 (4)   After: 0 0 0 (6) 1 4 3 (4), North to move (South's side is empty,
 * but North, the player to move, has seeds: the round goes on). */
static void test_rule5_empty_opponent_house(void) {
  mc_rules r = congkak(0, 0);
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 2 (5) 0 4 3 (4) south", 3, 0, &p, &res);
  CHECK_POS(&p, "0 0 0 (6) 1 4 3 (4) north");
  CHECK_TRACE(the_trace(), 3, "pick2:2 sow3 sow4");
}

/* Rule 6 (single round): the player to move has no seeds in their houses.
 * a) South house 3 (pit 2, 1 seed) sows the store: South moves again but has no seeds: the round
 *    and game end; North's 2 seeds go to its store: 10 to 8, South wins.
 *    Before: 0 0 1 (9) 0 0 2 (6)   After: 0 0 0 (10) 0 0 0 (8)
 * b) A capture takes North's last seeds: South house 1 (pit 0) sows pit 1, facing pit 5 with 4:
 *    capture 5 (8 -> 13); North, to move, has none: 13 to 5.
 *    Before: 1 0 0 (8) 0 4 0 (5)   After: 0 0 0 (13) 0 0 0 (5)
 *    With lap_capture there is no capture and North moves: 0 1 0 (8) 0 4 0 (5) north. */
static void test_rule6_round_end(void) {
  mc_rules r = congkak(0, 0);
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 1 (9) 0 0 2 (6) south", 3, 1, &p, &res);
  CHECK_PITS(&p, "0 0 0 (10) 0 0 0 (8)");
  CHECK_RESULT(&res, MC_WIN_SOUTH, MC_REASON_NO_SEEDS, 10, 8);
  CHECK_TRACE(the_trace(), 3, "pick2:1 sow3 sweep6:2>7");
  CHECK_INT(count_steps(MC_STEP_REFILL), 0);
  PLAY(&r, "1 0 0 (8) 0 4 0 (5) south", 1, 1, &p, &res);
  CHECK_PITS(&p, "0 0 0 (13) 0 0 0 (5)");
  CHECK_RESULT(&res, MC_WIN_SOUTH, MC_REASON_NO_SEEDS, 13, 5);
  r = congkak(1, 0);
  PLAY(&r, "1 0 0 (8) 0 4 0 (5) south", 1, 0, &p, &res);
  CHECK_POS(&p, "0 1 0 (8) 0 4 0 (5) north");
  /* Draw: 9 and 9. */
  r = congkak(0, 0);
  PLAY(&r, "0 0 1 (8) 0 0 2 (7) south", 3, 1, &p, &res);
  CHECK_RESULT(&res, MC_DRAW, MC_REASON_NO_SEEDS, 9, 9);
}

/* Rule 7: the end of round 1 of a match, the refill from the house next to the store, burning, and
 * the loser moving first.
 * South house 3 (pit 2, 1 seed) sows the store: South has no seeds: the round ends; North's 2
 * seeds go to its store. Stores 10 and 8: South won round 1.
 * Refill, n = 3: South 10: pit 2 (house 3), pit 1, pit 0 get 3 each, 1 left.
 *                North 8: pit 6 (house 3), pit 5 get 3 each, 2 left: pit 4 (house 1) is burnt.
 * North, the loser, moves first in round 2.
 * Before: 0 0 1 (9) 0 0 2 (6)   After: 3 3 3 (1) x 3 3 (2) north round 2 first north */
static void test_rule7_refill_burn_loser_starts(void) {
  mc_rules r = congkak(0, 1);
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 1 (9) 0 0 2 (6) south", 3, 0, &p, &res);
  CHECK_POS(&p, "3 3 3 (1) x 3 3 (2) north round 2 first north");
  CHECK_TRACE(the_trace(), 3,
              "pick2:1 sow3 sweep6:2>7 end1 refill2:3<3 refill1:3<3 refill0:3<3 refill6:3<7 "
              "refill5:3<7 burn4");
  CHECK_LEGAL(&r, "3 3 3 (1) x 3 3 (2) north round 2 first north", "23");
  CHECK_INT(mc_pos_total(&p), 18);
}

/* Rule 7: South loses round 1 and moves first in round 2.
 * Before: 0 0 1 (5) 0 0 2 (10); the round ends with stores 6 and 12.
 * South 6: pits 2 and 1 get 3, pit 0 (house 1) is burnt. North 12: three houses, 3 left.
 * After: x 3 3 (0) 3 3 3 (3) south round 2 first south */
static void test_rule7_south_loses(void) {
  mc_rules r = congkak(0, 1);
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 1 (5) 0 0 2 (10) south", 3, 0, &p, &res);
  CHECK_POS(&p, "x 3 3 (0) 3 3 3 (3) south round 2 first south");
  CHECK_TRACE(the_trace(), 3,
              "pick2:1 sow3 sweep6:2>7 end1 refill2:3<3 refill1:3<3 burn0 refill6:3<7 "
              "refill5:3<7 refill4:3<7");
}

/* Rule 7: burnt houses are skipped by sowing (and by relays).
 * Round 2, pit 4 (North house 1) burnt. North house 3 (pit 6, 3 seeds): sown 7 (store), 0, 1;
 * pit 1 held 3, now 4: lift 4 and sow 2, 3 skipped (South's store), 4 skipped (burnt), 5, 6, 7
 * (store): North moves again.
 * Before: 3 3 3 (1) x 3 3 (2)   After: 4 0 4 (1) x 4 1 (4), North to move. */
static void test_rule7_burnt_skipped(void) {
  mc_rules r = congkak(0, 1);
  mc_pos p;
  mc_result res;
  PLAY(&r, "3 3 3 (1) x 3 3 (2) north round 2 first north", 3, 0, &p, &res);
  CHECK_POS(&p, "4 0 4 (1) x 4 1 (4) north round 2 first north");
  CHECK_TRACE(the_trace(), 3, "pick6:3 sow7 sow0 sow1 relay1:4 sow2 sow5 sow6 sow7 extra7");
  /* A burnt house is never a legal move. */
  mc_pos q = mk_pos("3 3 3 (1) x 3 3 (2) north round 2 first north");
  CHECK_INT(mc_pos_play(&q, &r, 1, NULL, NULL), MC_EILLEGAL);
}

/* Rule 7: a burnt house captures nothing and is never captured.
 * South house 2 (pit 1, 1 seed) sows pit 2, an empty own house facing pit 4, which is burnt:
 * no capture, the seed stays. Before: 0 1 0 (6) x 3 3 (5)   After: 0 0 1 (6) x 3 3 (5) north */
static void test_rule7_burnt_never_captured(void) {
  mc_rules r = congkak(0, 1);
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 1 0 (6) x 3 3 (5) south round 2 first north", 2, 0, &p, &res);
  CHECK_POS(&p, "0 0 1 (6) x 3 3 (5) north round 2 first north");
  CHECK_TRACE(the_trace(), 3, "pick1:1 sow2");
}

/* Rule 7: burning is decided afresh at every round end: a house burnt in round 2 is filled again
 * for round 3 when its owner's store holds enough.
 * Round 2, North house 1 (pit 4) burnt. South house 3 (pit 2, 1 seed) sows its store; South has no
 * seeds: the round ends, North sweeps 2: 9 to 9, a draw; North moved first in round 2, so South
 * starts round 3. Refill, n = 3: South 9 fills pits 2, 1, 0 (0 left); North 9 fills pits 6, 5 and
 * pit 4, burnt in round 2 (0 left): nothing is burnt in round 3.
 * Before: 0 0 1 (8) x 0 2 (7)   After: 3 3 3 (0) 3 3 3 (0) south round 3 first south
 * Under the old rule of stored games (burn = match) pit 4 stays burnt and North keeps 3:
 *                               After: 3 3 3 (0) x 3 3 (3) south round 3 first south */
static void test_rule7_burning_decided_afresh(void) {
  mc_rules r = congkak(0, 1);
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 1 (8) x 0 2 (7) south round 2 first north", 3, 0, &p, &res);
  CHECK_POS(&p, "3 3 3 (0) 3 3 3 (0) south round 3 first south");
  CHECK_TRACE(the_trace(), 3,
              "pick2:1 sow3 sweep6:2>7 end2 refill2:3<3 refill1:3<3 refill0:3<3 refill6:3<7 "
              "refill5:3<7 refill4:3<7");
  CHECK_LEGAL(&r, "3 3 3 (0) 3 3 3 (0) north round 3 first north", "123");
  r.burn = MC_BURN_MATCH;
  PLAY(&r, "0 0 1 (8) x 0 2 (7) south round 2 first north", 3, 0, &p, &res);
  CHECK_POS(&p, "3 3 3 (0) x 3 3 (3) south round 3 first south");
  CHECK_TRACE(the_trace(), 3,
              "pick2:1 sow3 sweep6:2>7 end2 refill2:3<3 refill1:3<3 refill0:3<3 refill6:3<7 "
              "refill5:3<7");
}

/* Rule 7: a house that stays burnt is burnt again, with a step of its own, and a house that was
 * playable can be burnt in the next round.
 * Round 2, North house 1 (pit 4) burnt. South house 3 (pit 2, 1 seed) sows its store; South has no
 * seeds: the round ends 13 to 5 (North sweeps 2 + 1). North lost: it starts round 3.
 * Refill, n = 3: South 13 fills pits 2, 1, 0 (4 left). North 5 fills pit 6 (2 left); pit 5,
 * playable in round 2, and pit 4 cannot be filled: both are burnt for round 3.
 * Before: 0 0 1 (12) x 1 2 (2)   After: 3 3 3 (4) x x 3 (2) north round 3 first north */
static void test_rule7_burnt_again(void) {
  mc_rules r = congkak(0, 1);
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 1 (12) x 1 2 (2) south round 2 first south", 3, 0, &p, &res);
  CHECK_POS(&p, "3 3 3 (4) x x 3 (2) north round 3 first north");
  CHECK_TRACE(the_trace(), 3,
              "pick2:1 sow3 sweep5:1>7 sweep6:2>7 end2 refill2:3<3 refill1:3<3 refill0:3<3 "
              "refill6:3<7 burn5 burn4");
  CHECK_INT(count_steps(MC_STEP_BURN), 2);
}

/* A whole match on 2x3 (12 seeds), four rounds from the start, worked by hand. Pits: South houses
 * 1, 2 are pits 0, 1, the South store pit 2, North houses 1, 2 pits 3, 4, the North store pit 5;
 * pit k faces pit 4 - k. South skips pit 5 and North pit 2; nobody sows a burnt house.
 * Round 1
 *  1. S2 (pit 1, 3): 2 (store 1), 3 (3 -> 4), 4 (3 -> 4): relay 4: 0 (-> 4), 1 (-> 1), 2 (store 2),
 *     3 (4 -> 5): relay 5: 4 (-> 1), 0 (-> 5), 1 (-> 2), 2 (store 3), 3 (emptied, now 1): an empty
 *     North house: it stays.                                     -> 5 2 (3) 1 1 (0) north
 *  2. N1 (pit 3, 1): 4 (1 -> 2): relay 2: 5 (store 1), 0 (5 -> 6): relay 6: 1 (-> 3), 3 (-> 1),
 *     4 (-> 1), 5 (store 2), 0 (-> 1), 1 (3 -> 4): relay 4: 3 (-> 2), 4 (-> 2), 5 (store 3),
 *     0 (1 -> 2): relay 2: 1 (-> 1), 3 (2 -> 3): relay 3: 4 (-> 3), 5 (store 4), 0 (emptied, now
 *     1): an empty South house: it stays.                        -> 1 1 (3) 0 3 (4) south
 *  3. S1 (pit 0, 1): 1 (1 -> 2): relay 2: 2 (store 4), 3 (empty North house).
 *                                                                -> 0 0 (4) 1 3 (4) north
 *  4. N1 (pit 3, 1): 4 (3 -> 4): relay 4: 5 (store 5), 0 (-> 1), 1 (-> 1), 3 (its emptied origin,
 *     now 1): own empty house facing pit 1 with 1: capture 2 (store 7).
 *                                                                -> 1 0 (4) 0 0 (7) south
 *  5. S1 (pit 0, 1): 1, an own empty house facing pit 3, empty: no capture. North, to move, has no
 *     seeds: round 1 ends; South sweeps pit 1: 5 to 7. North won: South starts round 2.
 *     Refill, n = 3: South 5 fills pit 1 (2 left); pit 0 (South house 1) is burnt. North 7 fills
 *     pits 4 and 3 (1 left).                                     -> x 3 (2) 3 3 (1) south round 2
 * Round 2 (South first; pit 0 burnt)
 *  6. S2 (pit 1, 3): 2 (store 3), 3 (-> 4), 4 (3 -> 4): relay 4: 5 and 0 (burnt) skipped, 1 (-> 1),
 *     2 (store 4), 3 (-> 5), 4 (emptied, now 1): an empty North house.
 *                                                                -> x 1 (4) 5 1 (1) north
 *  7. N1 (pit 3, 5): 4 (-> 2), 5 (store 2), 0 skipped, 1 (-> 2), 2 skipped, 3 (-> 1), 4 (2 -> 3):
 *     relay 3: 5 (store 3), 1 (-> 3), 3 (1 -> 2): relay 2: 4 (-> 1), 5 (store 4): North again.
 *                                                                -> x 3 (4) 0 1 (4) north
 *  8. N2 (pit 4, 1): 5 (store 5). North moves again but has no seeds: round 2 ends; South sweeps 3:
 *     7 to 5. South won: North starts round 3. Refill: South 7 fills pit 1 and pit 0, burnt in
 * round 2 (1 left). North 5 fills pit 4 (2 left); pit 3 (North house 1) is burnt.
 *                                                                -> 3 3 (1) x 3 (2) north round 3
 * Round 3 (North first; pit 3 burnt; South house 1 is back)
 *  9. N2 (pit 4, 3): 5 (store 3), 0 (-> 4), 1 (3 -> 4): relay 4: 2 and 3 (burnt) skipped, 4 (-> 1),
 *     5 (store 4), 0 (-> 5), 1 (emptied, now 1): an empty South house.
 *                                                                -> 5 1 (1) x 1 (4) south
 * 10. S1 (pit 0, 5), the house burnt in round 2: 1 (-> 2), 2 (store 2), 3 skipped, 4 (-> 2),
 *     0 (-> 1), 1 (2 -> 3): relay 3: 2 (store 3), 4 (-> 3), 0 (1 -> 2): relay 2: 1 (-> 1),
 *     2 (store 4): South again.                                  -> 0 1 (4) x 3 (4) south
 * 11. S2 (pit 1, 1): 2 (store 5). South moves again but has no seeds: round 3 ends; North sweeps 3:
 *     5 to 7. North won: South starts round 4. Refill: South 5 fills pit 1 (2 left), pit 0 burnt
 *     again; North 7 fills pit 4 and pit 3, burnt in round 3 (1 left).
 *                                                                -> x 3 (2) 3 3 (1) south round 4
 * Under the old rule (burn = match) moves 1-8 are the same but pit 0 stays burnt after round 2:
 * South 7 fills pit 1 only (4 left): x 3 (4) x 3 (2). Then N2 (pit 4, 3): 5 (store 3), 0 skipped,
 * 1 (-> 4), 2 and 3 skipped, 4 (its emptied origin, now 1) facing pit 0, burnt: no capture
 * (-> x 4 (4) x 1 (3) south), and South house 1 is not a legal move. */
static void test_rule7_match_from_the_start(void) {
  mc_rules r = mk_rules(MC_CONGKAK, 2, 3);
  r.match = true;
  struct {
    int house;
    const char *pos;
    const char *trace;
  } steps[] = {
      {2, "5 2 (3) 1 1 (0) north",
       "pick1:3 sow2 sow3 sow4 relay4:4 sow0 sow1 sow2 sow3 relay3:5 sow4 sow0 sow1 sow2 sow3"},
      {1, "1 1 (3) 0 3 (4) south",
       "pick3:1 sow4 relay4:2 sow5 sow0 relay0:6 sow1 sow3 sow4 sow5 sow0 sow1 relay1:4 sow3 sow4 "
       "sow5 sow0 relay0:2 sow1 sow3 relay3:3 sow4 sow5 sow0"},
      {1, "0 0 (4) 1 3 (4) north", "pick0:1 sow1 relay1:2 sow2 sow3"},
      {1, "1 0 (4) 0 0 (7) south", "pick3:1 sow4 relay4:4 sow5 sow0 sow1 sow3 cap1:1>5 cap3:1>5"},
      {1, "x 3 (2) 3 3 (1) south round 2 first south",
       "pick0:1 sow1 sweep1:1>2 end1 refill1:3<2 burn0 refill4:3<5 refill3:3<5"},
      {2, "x 1 (4) 5 1 (1) north round 2 first south",
       "pick1:3 sow2 sow3 sow4 relay4:4 sow1 sow2 sow3 sow4"},
      {1, "x 3 (4) 0 1 (4) north round 2 first south",
       "pick3:5 sow4 sow5 sow1 sow3 sow4 relay4:3 sow5 sow1 sow3 relay3:2 sow4 sow5 extra5"},
      {2, "3 3 (1) x 3 (2) north round 3 first north",
       "pick4:1 sow5 sweep1:3>2 end2 refill1:3<2 refill0:3<2 refill4:3<5 burn3"},
      {2, "5 1 (1) x 1 (4) south round 3 first north",
       "pick4:3 sow5 sow0 sow1 relay1:4 sow4 sow5 sow0 sow1"},
      {1, "0 1 (4) x 3 (4) south round 3 first north",
       "pick0:5 sow1 sow2 sow4 sow0 sow1 relay1:3 sow2 sow4 sow0 relay0:2 sow1 sow2 extra2"},
      {2, "x 3 (2) 3 3 (1) south round 4 first south",
       "pick1:1 sow2 sweep4:3>5 end3 refill1:3<2 burn0 refill4:3<5 refill3:3<5"},
  };
  mc_game *g = mc_game_new(&r);
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    CHECK_INT(mc_game_play(g, steps[i].house, the_trace()), 0);
    CHECK_POS(mc_game_pos(g), steps[i].pos);
    CHECK_TRACE(the_trace(), 2, steps[i].trace);
    CHECK(!mc_game_over(g, NULL));
  }
  CHECK_INT(mc_game_ply(g), 11);
  mc_game_free(g);

  /* The same moves under the old rule of stored games. */
  r.burn = MC_BURN_MATCH;
  g = mc_game_new(&r);
  for (size_t i = 0; i < 7; i++) {
    CHECK_INT(mc_game_play(g, steps[i].house, NULL), 0);
    CHECK_POS(mc_game_pos(g), steps[i].pos);
  }
  CHECK_INT(mc_game_play(g, 2, the_trace()), 0);
  CHECK_POS(mc_game_pos(g), "x 3 (4) x 3 (2) north round 3 first north");
  CHECK_TRACE(the_trace(), 2, "pick4:1 sow5 sweep1:3>2 end2 refill1:3<2 refill4:3<5 burn3");
  CHECK_INT(mc_game_play(g, 2, the_trace()), 0);
  CHECK_POS(mc_game_pos(g), "x 4 (4) x 1 (3) south round 3 first north");
  CHECK_TRACE(the_trace(), 2, "pick4:3 sow5 sow1 sow4");
  CHECK_INT(mc_game_play(g, 1, NULL), MC_EILLEGAL);
  mc_game_free(g);
}

/* Rule 7: after a drawn round, the player who moved second in it moves first.
 * Round 1 (South first): stores end 9 and 9; everybody refills 3 houses: North starts round 2.
 * Round 2 (North first): the same draw: South starts round 3. */
static void test_rule7_drawn_round(void) {
  mc_rules r = congkak(0, 1);
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 1 (8) 0 0 2 (7) south", 3, 0, &p, &res);
  CHECK_POS(&p, "3 3 3 (0) 3 3 3 (0) north round 2 first north");
  PLAY(&r, "0 0 1 (8) 0 0 2 (7) south round 2 first north", 3, 0, &p, &res);
  CHECK_POS(&p, "3 3 3 (0) 3 3 3 (0) south round 3 first south");
  CHECK_TRACE(the_trace(), 3,
              "pick2:1 sow3 sweep6:2>7 end2 refill2:3<3 refill1:3<3 refill0:3<3 refill6:3<7 "
              "refill5:3<7 refill4:3<7");
}

/* Rule 7: the match ends when a player cannot fill a single house; that player loses.
 * Round 3 ends with stores 2 and 16: South cannot fill a house of 3: North wins 16 to 2 and
 * nothing is refilled. Before: 0 0 1 (1) 0 0 2 (14)   After: 0 0 0 (2) 0 0 0 (16) */
static void test_rule7_match_end_cannot_fill(void) {
  mc_rules r = congkak(0, 1);
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 1 (1) 0 0 2 (14) south round 3 first north", 3, 1, &p, &res);
  CHECK_PITS(&p, "0 0 0 (2) 0 0 0 (16)");
  CHECK_RESULT(&res, MC_WIN_NORTH, MC_REASON_NO_SEEDS, 2, 16);
  CHECK_INT(count_steps(MC_STEP_REFILL), 0);
  CHECK_INT(count_steps(MC_STEP_BURN), 0);
}

/* Rule 7: the match ends after the ninth round; more seeds wins, equal is a draw. */
static void test_rule7_match_end_round_9(void) {
  mc_rules r = congkak(0, 1);
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 1 (9) 0 0 2 (6) south round 9 first south", 3, 1, &p, &res);
  CHECK_PITS(&p, "0 0 0 (10) 0 0 0 (8)");
  CHECK_RESULT(&res, MC_WIN_SOUTH, MC_REASON_NO_SEEDS, 10, 8);
  CHECK_INT(count_steps(MC_STEP_REFILL), 0);
  PLAY(&r, "0 0 1 (8) 0 0 2 (7) south round 9 first north", 3, 1, &p, &res);
  CHECK_PITS(&p, "0 0 0 (9) 0 0 0 (9)");
  CHECK_RESULT(&res, MC_DRAW, MC_REASON_NO_SEEDS, 9, 9);
  /* Round 8 still refills. */
  PLAY(&r, "0 0 1 (9) 0 0 2 (6) south round 8 first south", 3, 0, &p, &res);
  CHECK_POS(&p, "3 3 3 (1) x 3 3 (2) north round 9 first north");
}

/* Rule 8: repetition ends the game with each player taking their own houses (mc_pos level).
 * Note that a Congkak position cannot repeat in play: a seed leaves a side only through that
 * side's store, so every move either changes a store or moves the mover's seeds strictly towards
 * their store; rule 8 can only be exercised here.
 * 3 0 x (5) 2 x 1 (7): South 5 + 3 = 8, North 7 + 3 = 10: North wins. */
static void test_rule8_end_repetition(void) {
  mc_rules r = congkak(0, 1);
  mc_pos p = mk_pos("3 0 x (5) 2 x 1 (7) south round 2 first north");
  mc_result res;
  the_trace()->len = 0;
  CHECK_INT(mc_pos_end_repetition(&p, &r, the_trace(), &res), 0);
  CHECK_PITS(&p, "0 0 x (8) 0 x 0 (10)");
  CHECK_RESULT(&res, MC_WIN_NORTH, MC_REASON_REPETITION, 8, 10);
  CHECK_TRACE(the_trace(), 3, "sweep0:3>3 sweep4:2>7 sweep6:1>7");
}

/* Rule 9: the longest relays end. Every first move of the largest board (9x12, 216 seeds) plays,
 * conserves the seeds and fits its trace. */
static void test_rule9_relays_end(void) {
  mc_rules r = mk_rules(MC_CONGKAK, 9, 12);
  for (int h = 1; h <= 9; h++) {
    mc_pos p;
    mc_result res;
    CHECK_INT(mc_pos_init(&p, &r), 0);
    int rc = mc_pos_play(&p, &r, h, the_trace(), &res);
    CHECK(rc == 0 || rc == 1);
    CHECK_INT(mc_pos_total(&p), 216);
    CHECK(the_trace()->len > 12 && the_trace()->len <= MC_TRACE_MAX);
    CHECK_INT(the_trace()->steps[0].kind, MC_STEP_PICK);
    CHECK_INT(the_trace()->steps[0].count, 12);
  }
}

/* Perft by hand. Congkak 1x1: South sows its one seed into its store, has no seeds: the game ends
 * after 1 move. As a match every round is that one move and a draw (1 to 1), the players
 * alternating (the second mover of a drawn round starts the next), for 9 rounds. */
static void test_perft(void) {
  mc_rules r = mk_rules(MC_CONGKAK, 1, 1);
  uint64_t counts[10], ends[10];
  CHECK_INT(mc_perft(&r, 2, counts, ends), 0);
  CHECK_INT(counts[0], 1);
  CHECK_INT(ends[0], 1);
  CHECK_INT(counts[1], 0);
  r.match = true;
  CHECK_INT(mc_perft(&r, 10, counts, ends), 0);
  for (int d = 0; d < 9; d++) {
    CHECK_INT(counts[d], 1);
    CHECK_INT(ends[d], d == 8);
  }
  CHECK_INT(counts[9], 0);
  /* Congkak 7x7 has 7 first moves. */
  r = mk_rules(MC_CONGKAK, 7, 7);
  CHECK_INT(mc_perft(&r, 1, counts, NULL), 0);
  CHECK_INT(counts[0], 7);
}

int main(void) {
  test_defaults();
  test_rule1_rule3_extra_turn();
  test_rule1_lap_and_stores();
  test_rule2_relay_across_sides();
  test_rule2_relay_into_store();
  test_rule4_capture_and_lap_capture();
  test_rule4_empty_facing();
  test_rule5_empty_opponent_house();
  test_rule6_round_end();
  test_rule7_refill_burn_loser_starts();
  test_rule7_south_loses();
  test_rule7_burnt_skipped();
  test_rule7_burnt_never_captured();
  test_rule7_drawn_round();
  test_rule7_burning_decided_afresh();
  test_rule7_burnt_again();
  test_rule7_match_from_the_start();
  test_rule7_match_end_cannot_fill();
  test_rule7_match_end_round_9();
  test_rule8_end_repetition();
  test_rule9_relays_end();
  test_perft();
  return check_exit("congkak");
}
