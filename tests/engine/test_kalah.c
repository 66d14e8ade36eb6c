/* Kalah, rule by rule, on positions worked out by hand (rule book, "Kalah" 1-5).
 *
 * Pits of the 6-house board: South houses 1..6 are pits 0..5, the South store is pit 6, North
 * houses 1..6 are pits 7..12, the North store is pit 13; pit k faces pit 12 - k. Every position
 * holds the 48 seeds of a 6x4 game.
 */
#include "util.h"

static mc_rules kalah(void) {
  return mk_rules(MC_KALAH, 6, 4);
}

/* Rule 1: every own house with seeds is legal; houses are named 1..m on the mover's side. */
static void test_rule1_legal_moves(void) {
  mc_rules r = kalah();
  CHECK_LEGAL(&r, "4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) south", "123456");
  CHECK_LEGAL(&r, "0 5 0 5 5 4 (1) 4 4 4 4 4 4 (0) south", "2456");
  /* North's houses 1..6 are pits 7..12: here North house 2 and 5 are empty. */
  CHECK_LEGAL(&r, "4 4 4 4 4 4 (0) 4 0 5 5 0 6 (4) north", "1346");
  /* A side with no seeds has no legal move. */
  CHECK_LEGAL(&r, "0 0 0 0 0 0 (24) 4 4 4 4 4 4 (0) south", "");
}

/* Rule 1: plain sowing from the start.
 * Before: South house 1 (pit 0) holds 4. Sown: pits 1, 2, 3, 4. The last seed lands in South house
 * 5, which held 4: nothing more happens and North moves. */
static void test_rule1_sowing(void) {
  mc_rules r = kalah();
  mc_pos p;
  mc_result res;
  PLAY(&r, "4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) south", 1, 0, &p, &res);
  CHECK_POS(&p, "0 5 5 5 5 4 (0) 4 4 4 4 4 4 (0) north");
  CHECK_TRACE(the_trace(), 6, "pick0:4 sow1 sow2 sow3 sow4");
}

/* Rule 1: sowing includes the own store and skips the opponent's store.
 * South: house 6 (pit 5) holds 10. Sown: 6 (store), 7..12 (North 1..6), 13 skipped, 0, 1, 2.
 * The last seed lands in South house 3 (pit 2), which held 1: no capture.
 * Before: 1 1 1 0 0 10 (10) 1 1 1 1 1 1 (19)
 * After:  2 2 2 0 0 0 (11) 2 2 2 2 2 2 (19), North to move. */
static void test_rule1_skips_opponent_store_south(void) {
  mc_rules r = kalah();
  mc_pos p;
  mc_result res;
  PLAY(&r, "1 1 1 0 0 10 (10) 1 1 1 1 1 1 (19) south", 6, 0, &p, &res);
  CHECK_POS(&p, "2 2 2 0 0 0 (11) 2 2 2 2 2 2 (19) north");
  CHECK_TRACE(the_trace(), 6, "pick5:10 sow6 sow7 sow8 sow9 sow10 sow11 sow12 sow0 sow1 sow2");
}

/* The same for North: house 6 (pit 12) holds 10. Sown: 13 (North store), 0..5, 6 skipped, 7, 8, 9.
 * The last seed lands in North house 3 (pit 9), which held 1: no capture.
 * Before: 1 1 1 1 1 1 (19) 1 1 1 0 0 10 (10)
 * After:  2 2 2 2 2 2 (19) 2 2 2 0 0 0 (11), South to move. */
static void test_rule1_skips_opponent_store_north(void) {
  mc_rules r = kalah();
  mc_pos p;
  mc_result res;
  PLAY(&r, "1 1 1 1 1 1 (19) 1 1 1 0 0 10 (10) north", 6, 0, &p, &res);
  CHECK_POS(&p, "2 2 2 2 2 2 (19) 2 2 2 0 0 0 (11) south");
  CHECK_TRACE(the_trace(), 6, "pick12:10 sow13 sow0 sow1 sow2 sow3 sow4 sow5 sow7 sow8 sow9");
}

/* Rules 1 and 3, edge case: a lap that ends in the emptied origin house.
 * South house 2 (pit 1) holds 13 = the 13 pits of the ring without North's store. Sown: 2..5,
 * 6 (store), 7..12, 13 skipped, 0, 1. The origin is not skipped, so the 13th seed lands in pit 1,
 * which the pick emptied: it now holds 1 and faces pit 11 (North house 5), which holds 2 + 1 = 3.
 * Capture: 1 + 3 = 4 seeds into the South store (5 + 1 sown + 4 = 10).
 * Before: 0 13 0 0 0 0 (5) 2 2 2 2 2 2 (18)
 * Sown:   1 1 1 1 1 1 (6) 3 3 3 3 3 3 (18)
 * After:  1 0 1 1 1 1 (10) 3 3 3 3 0 3 (18), North to move. */
static void test_rule1_lap_ends_in_origin(void) {
  mc_rules r = kalah();
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 13 0 0 0 0 (5) 2 2 2 2 2 2 (18) south", 2, 0, &p, &res);
  CHECK_POS(&p, "1 0 1 1 1 1 (10) 3 3 3 3 0 3 (18) north");
  CHECK_TRACE(the_trace(), 6,
              "pick1:13 sow2 sow3 sow4 sow5 sow6 sow7 sow8 sow9 sow10 sow11 sow12 sow0 sow1 "
              "cap1:1>6 cap11:3>6");
}

/* Rule 2: the last seed in the own store gives another move.
 * Start, South house 3 (pit 2, 4 seeds): sown 3, 4, 5, 6 (store). South moves again.
 * Then South house 6 (pit 5, now 5 seeds): sown 6 (store), 7, 8, 9, 10: North to move.
 * Then North house 1 (pit 7, 5 seeds): sown 8, 9, 10, 11, 12; pit 12 held 4: no capture. */
static void test_rule2_extra_turn(void) {
  mc_rules r = kalah();
  mc_pos p;
  mc_result res;
  PLAY(&r, "4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) south", 3, 0, &p, &res);
  CHECK_POS(&p, "4 4 0 5 5 5 (1) 4 4 4 4 4 4 (0) south");
  CHECK_TRACE(the_trace(), 6, "pick2:4 sow3 sow4 sow5 sow6 extra6");
  PLAY(&r, "4 4 0 5 5 5 (1) 4 4 4 4 4 4 (0) south", 6, 0, &p, &res);
  CHECK_POS(&p, "4 4 0 5 5 0 (2) 5 5 5 5 4 4 (0) north");
  CHECK_TRACE(the_trace(), 6, "pick5:5 sow6 sow7 sow8 sow9 sow10");
  PLAY(&r, "4 4 0 5 5 0 (2) 5 5 5 5 4 4 (0) north", 1, 0, &p, &res);
  CHECK_POS(&p, "4 4 0 5 5 0 (2) 0 6 6 6 5 5 (0) south");
}

/* Rule 2 for North: North house 3 (pit 9, 4 seeds) sown 10, 11, 12, 13 (North store). */
static void test_rule2_extra_turn_north(void) {
  mc_rules r = kalah();
  mc_pos p;
  mc_result res;
  PLAY(&r, "4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) north", 3, 0, &p, &res);
  CHECK_POS(&p, "4 4 4 4 4 4 (0) 4 4 0 5 5 5 (1) north");
  CHECK_TRACE(the_trace(), 6, "pick9:4 sow10 sow11 sow12 sow13 extra13");
}

/* Rule 2, no limit on repeats, ending with rule 4.
 * 0 0 0 0 2 1 (20) 4 4 4 4 4 5 (0): South 6 (1 seed) -> store 21, again;
 * 0 0 0 0 2 0 (21): South 5 (2 seeds) -> pit 5, store 22, again;
 * 0 0 0 0 0 1 (22): South 6 -> store 23, again, but South's houses are empty: rule 4 ends the
 * game and North sweeps its 25 seeds: North wins 25 to 23. */
static void test_rule2_repeated_extra_turns(void) {
  mc_rules r = kalah();
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 0 0 2 1 (20) 4 4 4 4 4 5 (0) south", 6, 0, &p, &res);
  CHECK_POS(&p, "0 0 0 0 2 0 (21) 4 4 4 4 4 5 (0) south");
  PLAY(&r, "0 0 0 0 2 0 (21) 4 4 4 4 4 5 (0) south", 5, 0, &p, &res);
  CHECK_POS(&p, "0 0 0 0 0 1 (22) 4 4 4 4 4 5 (0) south");
  CHECK_TRACE(the_trace(), 6, "pick4:2 sow5 sow6 extra6");
  PLAY(&r, "0 0 0 0 0 1 (22) 4 4 4 4 4 5 (0) south", 6, 1, &p, &res);
  CHECK_PITS(&p, "0 0 0 0 0 0 (23) 0 0 0 0 0 0 (25)");
  CHECK_RESULT(&res, MC_WIN_NORTH, MC_REASON_NO_SEEDS, 23, 25);
}

/* Rule 3: the last seed in an own empty house captures itself and the facing seeds.
 * South house 1 (pit 0, 1 seed) sows pit 1 (empty, now 1); it faces pit 11 (North house 5) with 5.
 * Capture 1 + 5 = 6: South store 20 -> 26.
 * Before: 1 0 3 0 0 0 (20) 0 2 0 0 5 0 (17)
 * After:  0 0 3 0 0 0 (26) 0 2 0 0 0 0 (17), North to move. */
static void test_rule3_capture_south(void) {
  mc_rules r = kalah();
  mc_pos p;
  mc_result res;
  PLAY(&r, "1 0 3 0 0 0 (20) 0 2 0 0 5 0 (17) south", 1, 0, &p, &res);
  CHECK_POS(&p, "0 0 3 0 0 0 (26) 0 2 0 0 0 0 (17) north");
  CHECK_TRACE(the_trace(), 6, "pick0:1 sow1 cap1:1>6 cap11:5>6");
  /* The option changes nothing when the facing house holds seeds. */
  r.empty_capture = true;
  PLAY(&r, "1 0 3 0 0 0 (20) 0 2 0 0 5 0 (17) south", 1, 0, &p, &res);
  CHECK_POS(&p, "0 0 3 0 0 0 (26) 0 2 0 0 0 0 (17) north");
}

/* Rule 3 for North: North house 1 (pit 7, 1 seed) sows pit 8 (empty), facing pit 4 with 5.
 * Capture 6 into the North store (pit 13): 20 -> 26.
 * Before: 0 2 0 0 5 0 (17) 1 0 3 0 0 0 (20)
 * After:  0 2 0 0 0 0 (17) 0 0 3 0 0 0 (26), South to move. */
static void test_rule3_capture_north(void) {
  mc_rules r = kalah();
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 2 0 0 5 0 (17) 1 0 3 0 0 0 (20) north", 1, 0, &p, &res);
  CHECK_POS(&p, "0 2 0 0 0 0 (17) 0 0 3 0 0 0 (26) south");
  CHECK_TRACE(the_trace(), 6, "pick7:1 sow8 cap4:5>13 cap8:1>13");
}

/* Rule 3, edge case: the facing house is empty.
 * South house 1 (pit 0, 1 seed) sows pit 1 (empty); it faces pit 11, which is empty.
 * Default: nothing is captured, the seed stays.
 *   After: 0 1 3 0 0 0 (20) 0 2 0 5 0 0 (17), North to move.
 * empty_capture: the last seed is captured alone: store 20 -> 21.
 *   After: 0 0 3 0 0 0 (21) 0 2 0 5 0 0 (17), North to move. */
static void test_rule3_empty_facing(void) {
  mc_rules r = kalah();
  mc_pos p;
  mc_result res;
  PLAY(&r, "1 0 3 0 0 0 (20) 0 2 0 5 0 0 (17) south", 1, 0, &p, &res);
  CHECK_POS(&p, "0 1 3 0 0 0 (20) 0 2 0 5 0 0 (17) north");
  CHECK_TRACE(the_trace(), 6, "pick0:1 sow1");
  r.empty_capture = true;
  PLAY(&r, "1 0 3 0 0 0 (20) 0 2 0 5 0 0 (17) south", 1, 0, &p, &res);
  CHECK_POS(&p, "0 0 3 0 0 0 (21) 0 2 0 5 0 0 (17) north");
  CHECK_TRACE(the_trace(), 6, "pick0:1 sow1 cap1:1>6");
}

/* Rule 3: no capture when the last seed lands in an empty house of the opponent, or in an own
 * house that was not empty.
 * South house 5 (pit 4, 3 seeds): sown 5, 6 (store), 7; pit 7 was empty and is North's.
 * Before: 0 0 0 0 3 1 (20) 0 1 1 1 1 1 (19)   After: 0 0 0 0 0 2 (21) 1 1 1 1 1 1 (19)
 * South house 1 (pit 0, 1 seed) onto pit 1 holding 2 (faces 5 seeds): no capture.
 * Before: 1 2 0 0 0 1 (20) 0 1 1 1 5 1 (15)   After: 0 3 0 0 0 1 (20) 0 1 1 1 5 1 (15) */
static void test_rule3_no_capture(void) {
  mc_rules r = kalah();
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 0 0 3 1 (20) 0 1 1 1 1 1 (19) south", 5, 0, &p, &res);
  CHECK_POS(&p, "0 0 0 0 0 2 (21) 1 1 1 1 1 1 (19) north");
  CHECK_TRACE(the_trace(), 6, "pick4:3 sow5 sow6 sow7");
  PLAY(&r, "1 2 0 0 0 1 (20) 0 1 1 1 5 1 (15) south", 1, 0, &p, &res);
  CHECK_POS(&p, "0 3 0 0 0 1 (20) 0 1 1 1 5 1 (15) north");
}

/* Rule 4, edge case: the end sweep after a move that earned an extra turn.
 * South house 6 (pit 5, 1 seed) -> South store 21: an extra turn, but South's houses are now
 * empty, so the game ends at once and North puts its 1 + 2 + 3 + 3 = 9 seeds into its store.
 * Before: 0 0 0 0 0 1 (20) 1 2 3 0 0 3 (18)
 * After:  0 0 0 0 0 0 (21) 0 0 0 0 0 0 (27): North wins 27 to 21. */
static void test_rule4_sweep_after_extra_turn(void) {
  mc_rules r = kalah();
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 0 0 0 1 (20) 1 2 3 0 0 3 (18) south", 6, 1, &p, &res);
  CHECK_PITS(&p, "0 0 0 0 0 0 (21) 0 0 0 0 0 0 (27)");
  CHECK_RESULT(&res, MC_WIN_NORTH, MC_REASON_NO_SEEDS, 21, 27);
  CHECK_TRACE(the_trace(), 6, "pick5:1 sow6 sweep7:1>13 sweep8:2>13 sweep9:3>13 sweep12:3>13");
}

/* Rule 4: a capture empties the opponent's side; the mover sweeps their own houses.
 * South house 1 (pit 0, 1 seed) -> pit 1 (empty), facing pit 11 with 3: capture 4 (22 -> 26).
 * North has no seeds left: South sweeps pit 2 (2 seeds): 28 to 20.
 * Before: 1 0 2 0 0 0 (22) 0 0 0 0 3 0 (20)
 * After:  0 0 0 0 0 0 (28) 0 0 0 0 0 0 (20): South wins. */
static void test_rule4_capture_empties_opponent(void) {
  mc_rules r = kalah();
  mc_pos p;
  mc_result res;
  PLAY(&r, "1 0 2 0 0 0 (22) 0 0 0 0 3 0 (20) south", 1, 1, &p, &res);
  CHECK_PITS(&p, "0 0 0 0 0 0 (28) 0 0 0 0 0 0 (20)");
  CHECK_RESULT(&res, MC_WIN_SOUTH, MC_REASON_NO_SEEDS, 28, 20);
  CHECK_TRACE(the_trace(), 6, "pick0:1 sow1 cap1:1>6 cap11:3>6 sweep2:2>6");
}

/* Rule 4: the mover's last seeds leave their own side (no extra turn).
 * South house 6 (pit 5, 2 seeds): sown 6 (store), 7 (empty North house 1, now 1). South's houses
 * are empty: North sweeps its 6 single seeds, 19 + 6 = 25.
 * Before: 0 0 0 0 0 2 (22) 0 1 1 1 1 1 (19)
 * Sown:   0 0 0 0 0 0 (23) 1 1 1 1 1 1 (19)
 * After:  0 0 0 0 0 0 (23) 0 0 0 0 0 0 (25): North wins 25 to 23. */
static void test_rule4_mover_side_empty(void) {
  mc_rules r = kalah();
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 0 0 0 2 (22) 0 1 1 1 1 1 (19) south", 6, 1, &p, &res);
  CHECK_PITS(&p, "0 0 0 0 0 0 (23) 0 0 0 0 0 0 (25)");
  CHECK_RESULT(&res, MC_WIN_NORTH, MC_REASON_NO_SEEDS, 23, 25);
  CHECK_TRACE(the_trace(), 6,
              "pick5:2 sow6 sow7 sweep7:1>13 sweep8:1>13 sweep9:1>13 sweep10:1>13 sweep11:1>13 "
              "sweep12:1>13");
}

/* Rule 5: equal stores are a draw.
 * South house 6 (pit 5, 1 seed) -> store 24; South's side is empty; North sweeps 1 -> 24.
 * Before: 0 0 0 0 0 1 (23) 0 0 0 0 0 1 (23)   After: 0 0 0 0 0 0 (24) 0 0 0 0 0 0 (24) */
static void test_rule5_draw(void) {
  mc_rules r = kalah();
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 0 0 0 1 (23) 0 0 0 0 0 1 (23) south", 6, 1, &p, &res);
  CHECK_PITS(&p, "0 0 0 0 0 0 (24) 0 0 0 0 0 0 (24)");
  CHECK_RESULT(&res, MC_DRAW, MC_REASON_NO_SEEDS, 24, 24);
}

/* Playing without a trace and a result gives the same position as with them. */
static void test_no_trace_same_position(void) {
  mc_rules r = kalah();
  mc_pos a = mk_pos("0 13 0 0 0 0 (5) 2 2 2 2 2 2 (18) south");
  CHECK_INT(mc_pos_play(&a, &r, 2, NULL, NULL), 0);
  CHECK_POS(&a, "1 0 1 1 1 1 (10) 3 3 3 3 0 3 (18) north");
  mc_pos b = mk_pos("0 0 0 0 0 1 (23) 0 0 0 0 0 1 (23) south");
  CHECK_INT(mc_pos_play(&b, &r, 6, NULL, NULL), 1);
  CHECK_PITS(&b, "0 0 0 0 0 0 (24) 0 0 0 0 0 0 (24)");
}

/* Small boards. Kalah 1x1: "1 (0) 1 (0)"; South's only move sows its store (extra turn), its side
 * is empty, North sweeps 1: a 1-1 draw. Kalah 2x1: "1 1 (0) 1 1 (0)", South house 1 (pit 0)
 * sows pit 1 (held 1, no capture): "0 2 (0) 1 1 (0)", North to move. */
static void test_small_boards(void) {
  mc_rules r = mk_rules(MC_KALAH, 1, 1);
  mc_pos p;
  mc_result res;
  CHECK_INT(mc_pos_init(&p, &r), 0);
  CHECK_POS(&p, "1 (0) 1 (0) south");
  PLAY(&r, "1 (0) 1 (0) south", 1, 1, &p, &res);
  CHECK_PITS(&p, "0 (1) 0 (1)");
  CHECK_RESULT(&res, MC_DRAW, MC_REASON_NO_SEEDS, 1, 1);
  r = mk_rules(MC_KALAH, 2, 1);
  PLAY(&r, "1 1 (0) 1 1 (0) south", 1, 0, &p, &res);
  CHECK_POS(&p, "0 2 (0) 1 1 (0) north");
}

/* Perft by hand. Kalah 6x4: 6 first moves; house 3 ends in the store (South again with 5 moves),
 * the 5 others give North 6 moves each: 5 * 6 + 5 = 35 at depth 2, none ending the game.
 * Kalah 1x1: 1 move, which ends the game. */
static void test_perft(void) {
  mc_rules r = kalah();
  uint64_t counts[2] = {0, 0};
  uint64_t ends[2] = {9, 9};
  CHECK_INT(mc_perft(&r, 2, counts, ends), 0);
  CHECK_INT(counts[0], 6);
  CHECK_INT(counts[1], 35);
  CHECK_INT(ends[0], 0);
  CHECK_INT(ends[1], 0);
  r = mk_rules(MC_KALAH, 1, 1);
  CHECK_INT(mc_perft(&r, 2, counts, ends), 0);
  CHECK_INT(counts[0], 1);
  CHECK_INT(counts[1], 0);
  CHECK_INT(ends[0], 1);
  CHECK_INT(ends[1], 0);
}

/* The start position of every board: n seeds per house, empty stores, South first, round 1. */
static void test_start_positions(void) {
  mc_rules r;
  mc_pos p;
  CHECK_INT(mc_rules_init(&r, MC_KALAH), 0);
  CHECK_INT(r.houses, 6);
  CHECK_INT(r.seeds, 4);
  CHECK(!r.empty_capture);
  CHECK_INT(mc_pos_init(&p, &r), 0);
  CHECK_POS(&p, "4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) south");
  r.houses = 3;
  r.seeds = 6;
  CHECK_INT(mc_pos_init(&p, &r), 0);
  CHECK_POS(&p, "6 6 6 (0) 6 6 6 (0) south");
  r.houses = 9;
  r.seeds = 12;
  CHECK_INT(mc_pos_init(&p, &r), 0);
  CHECK_POS(&p, "12 12 12 12 12 12 12 12 12 (0) 12 12 12 12 12 12 12 12 12 (0) south");
  CHECK_INT(mc_pos_total(&p), 216);
  CHECK_INT(mc_rules_total(&r), 216);
}

int main(void) {
  test_rule1_legal_moves();
  test_rule1_sowing();
  test_rule1_skips_opponent_store_south();
  test_rule1_skips_opponent_store_north();
  test_rule1_lap_ends_in_origin();
  test_rule2_extra_turn();
  test_rule2_extra_turn_north();
  test_rule2_repeated_extra_turns();
  test_rule3_capture_south();
  test_rule3_capture_north();
  test_rule3_empty_facing();
  test_rule3_no_capture();
  test_rule4_sweep_after_extra_turn();
  test_rule4_capture_empties_opponent();
  test_rule4_mover_side_empty();
  test_rule5_draw();
  test_no_trace_same_position();
  test_small_boards();
  test_perft();
  test_start_positions();
  return check_exit("kalah");
}
