/* Oware (abapa), rule by rule, on positions worked out by hand (rule book, "Oware" 1-6).
 *
 * Pits of the 6-house board: South houses 1..6 are pits 0..5, the South store is pit 6, North
 * houses 1..6 are pits 7..12, the North store is pit 13. Stores are never sown, so the sowing ring
 * is 0..5, 7..12. Every position holds the 48 seeds of a 6x4 game (half is 24).
 */
#include "util.h"

static mc_rules oware(void) {
  return mk_rules(MC_OWARE, 6, 4);
}

static mc_rules oware_gs(mc_grand_slam mode) {
  mc_rules r = oware();
  r.grand_slam = mode;
  return r;
}

/* Rule 1: stores are never sown into.
 * South house 6 (pit 5, 4 seeds) sows 7, 8, 9, 10 (pit 6 skipped); pit 10 held 4: no capture.
 * North house 6 (pit 12, 4 seeds) sows 0, 1, 2, 3 (pit 13 skipped). */
static void test_rule1_stores_skipped(void) {
  mc_rules r = oware();
  mc_pos p;
  mc_result res;
  CHECK_LEGAL(&r, "4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) south", "123456");
  PLAY(&r, "4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) south", 6, 0, &p, &res);
  CHECK_POS(&p, "4 4 4 4 4 0 (0) 5 5 5 5 4 4 (0) north");
  CHECK_TRACE_EXACT(the_trace(), 6, "pick5:4 sow7 sow8 sow9 sow10");
  PLAY(&r, "4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) north", 6, 0, &p, &res);
  CHECK_POS(&p, "5 5 5 5 4 4 (0) 4 4 4 4 4 0 (0) south");
  CHECK_TRACE_EXACT(the_trace(), 6, "pick12:4 sow0 sow1 sow2 sow3");
}

/* Rule 2, 11 seeds: no lap. South house 1 (pit 0) sows 1..5 and 7..12: every other house gets
 * one, the last lands in pit 12 (4 -> 5): no capture.
 * Before: 11 0 0 0 0 0 (13) 4 4 4 4 4 4 (0)   After: 0 1 1 1 1 1 (13) 5 5 5 5 5 5 (0) */
static void test_rule2_sow_11(void) {
  mc_rules r = oware();
  mc_pos p;
  mc_result res;
  PLAY(&r, "11 0 0 0 0 0 (13) 4 4 4 4 4 4 (0) south", 1, 0, &p, &res);
  CHECK_POS(&p, "0 1 1 1 1 1 (13) 5 5 5 5 5 5 (0) north");
  CHECK_TRACE_EXACT(the_trace(), 6,
                    "pick0:11 sow1 sow2 sow3 sow4 sow5 sow7 sow8 sow9 sow10 sow11 sow12");
}

/* Rule 2, 12 seeds: the 12th seed would reach the origin (pit 0), which is skipped: it goes to
 * pit 1. Pit 1 is South's own house, so its 2 seeds are not captured (rule 3).
 * Before: 12 0 0 0 0 0 (12) 4 4 4 4 4 4 (0)   After: 0 2 1 1 1 1 (12) 5 5 5 5 5 5 (0) */
static void test_rule2_sow_12(void) {
  mc_rules r = oware();
  mc_pos p;
  mc_result res;
  PLAY(&r, "12 0 0 0 0 0 (12) 4 4 4 4 4 4 (0) south", 1, 0, &p, &res);
  CHECK_POS(&p, "0 2 1 1 1 1 (12) 5 5 5 5 5 5 (0) north");
  CHECK_TRACE_EXACT(the_trace(), 6,
                    "pick0:12 sow1 sow2 sow3 sow4 sow5 sow7 sow8 sow9 sow10 sow11 sow12 sow1");
}

/* Rule 2, 23 seeds from South house 6 (pit 5): two laps of 11 (7..12, 0..4, origin skipped each
 * time) and one more seed into pit 7. North houses get 2 each and pit 7 one more; South houses 1-5
 * get 2 each; the origin stays empty. Pit 7 ends with 7: no capture.
 * Before: 0 0 0 0 0 23 (1) 4 4 4 4 4 4 (0)   After: 2 2 2 2 2 0 (1) 7 6 6 6 6 6 (0) */
static void test_rule2_sow_23(void) {
  mc_rules r = oware();
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 0 0 0 23 (1) 4 4 4 4 4 4 (0) south", 6, 0, &p, &res);
  CHECK_POS(&p, "2 2 2 2 2 0 (1) 7 6 6 6 6 6 (0) north");
  CHECK_TRACE_EXACT(the_trace(), 6,
                    "pick5:23 sow7 sow8 sow9 sow10 sow11 sow12 sow0 sow1 sow2 sow3 sow4 "
                    "sow7 sow8 sow9 sow10 sow11 sow12 sow0 sow1 sow2 sow3 sow4 sow7");
}

/* Rule 3, edge case: a chain capture that stops at the edge of the opponent's row.
 * South house 6 (pit 5, 3 seeds) sows 7 (1 -> 2), 8 (2 -> 3), 9 (1 -> 2). The last house holds 2:
 * captured; then pit 8 (3) and pit 7 (2); the previous pit is South's store: the chain stops.
 * 2 + 3 + 2 = 7 seeds: store 10 -> 17. North keeps 5 4 4 (not a grand slam); 17 < 24.
 * Before: 0 0 0 0 0 3 (10) 1 2 1 5 4 4 (18)   After: 0 0 0 0 0 0 (17) 0 0 0 5 4 4 (18), North
 * to move (North can feed: house 4 holds 5 and reaches pit 0). */
static void test_rule3_chain_to_edge(void) {
  mc_rules r = oware();
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 0 0 0 3 (10) 1 2 1 5 4 4 (18) south", 6, 0, &p, &res);
  CHECK_POS(&p, "0 0 0 0 0 0 (17) 0 0 0 5 4 4 (18) north");
  CHECK_TRACE_EXACT(the_trace(), 6, "pick5:3 sow7 sow8 sow9 cap9:2>6 cap8:3>6 cap7:2>6");
}

/* Rule 3 for North, the chain stopping at the edge where the ring wraps (pit 0 back to pit 13).
 * North house 6 (pit 12, 3 seeds) sows 0 (1 -> 2), 1 (2 -> 3), 2 (1 -> 2): captures pits 2, 1, 0,
 * then the previous pit is North's own store: stop. 7 seeds: store 10 -> 17.
 * Before: 1 2 1 5 4 4 (18) 0 0 0 0 0 3 (10)   After: 0 0 0 5 4 4 (18) 0 0 0 0 0 0 (17) */
static void test_rule3_chain_to_edge_north(void) {
  mc_rules r = oware();
  mc_pos p;
  mc_result res;
  PLAY(&r, "1 2 1 5 4 4 (18) 0 0 0 0 0 3 (10) north", 6, 0, &p, &res);
  CHECK_POS(&p, "0 0 0 5 4 4 (18) 0 0 0 0 0 0 (17) south");
  CHECK_TRACE_EXACT(the_trace(), 6, "pick12:3 sow0 sow1 sow2 cap2:2>13 cap1:3>13 cap0:2>13");
}

/* Rule 3, edge case: a chain that stops at a house of 4.
 * South house 6 (pit 5, 3 seeds) sows 7 (3 -> 4), 8 (2 -> 3), 9 (1 -> 2): captures pit 9 (2) and
 * pit 8 (3), then pit 7 holds 4: stop. 5 seeds: store 10 -> 15.
 * Before: 0 0 0 0 0 3 (10) 3 2 1 5 4 4 (16)   After: 0 0 0 0 0 0 (15) 4 0 0 5 4 4 (16) */
static void test_rule3_chain_stops_at_4(void) {
  mc_rules r = oware();
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 0 0 0 3 (10) 3 2 1 5 4 4 (16) south", 6, 0, &p, &res);
  CHECK_POS(&p, "0 0 0 0 0 0 (15) 4 0 0 5 4 4 (16) north");
  CHECK_TRACE_EXACT(the_trace(), 6, "pick5:3 sow7 sow8 sow9 cap9:2>6 cap8:3>6");
}

/* Rule 3: a last seed making 4 captures nothing, even with houses of 2 and 3 before it.
 * South house 6 (pit 5, 3 seeds) sows 7 (1 -> 2), 8 (2 -> 3), 9 (3 -> 4).
 * Before: 0 0 0 0 0 3 (10) 1 2 3 5 4 4 (20)   After: 0 0 0 0 0 0 (10) 2 3 4 5 4 4 (20) */
static void test_rule3_no_capture_on_4(void) {
  mc_rules r = oware();
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 0 0 0 3 (10) 1 2 3 5 4 4 (20) south", 6, 0, &p, &res);
  CHECK_POS(&p, "0 0 0 0 0 0 (10) 2 3 4 5 4 4 (20) north");
  CHECK_TRACE_EXACT(the_trace(), 6, "pick5:3 sow7 sow8 sow9");
}

/* Rule 3, grand slam, a position where the only legal move is one.
 * South house 6 (pit 5, 6 seeds) sows 7..12: 1 1 1 1 1 2 become 2 2 2 2 2 3, and the chain would
 * take all 13 seeds of North's side.
 * no_capture: played, nothing captured: 0 0 0 0 0 0 (12) 2 2 2 2 2 3 (23), North to move, and
 *   North must feed South: houses 5 (2 seeds: 12, 0) and 6 (3 seeds: 0, 1, 2) can.
 * forbidden: illegal unless every legal move is a grand slam; here it is the only one: the same.
 * capture: 12 + 13 = 25 > 24: South wins by majority, 25 to 23. */
static void test_rule3_grand_slam_only_move(void) {
  const char *before = "0 0 0 0 0 6 (12) 1 1 1 1 1 2 (23) south";
  mc_pos p;
  mc_result res;
  for (int mode = MC_GS_NO_CAPTURE; mode <= MC_GS_FORBIDDEN; mode++) {
    mc_rules r = oware_gs((mc_grand_slam)mode);
    CHECK_LEGAL(&r, before, "6");
    PLAY(&r, before, 6, 0, &p, &res);
    CHECK_POS(&p, "0 0 0 0 0 0 (12) 2 2 2 2 2 3 (23) north");
    CHECK_TRACE_EXACT(the_trace(), 6, "pick5:6 sow7 sow8 sow9 sow10 sow11 sow12");
    CHECK_LEGAL(&r, "0 0 0 0 0 0 (12) 2 2 2 2 2 3 (23) north", "56");
  }
  mc_rules r = oware_gs(MC_GS_CAPTURE);
  PLAY(&r, before, 6, 1, &p, &res);
  CHECK_PITS(&p, "0 0 0 0 0 0 (25) 0 0 0 0 0 0 (23)");
  CHECK_RESULT(&res, MC_WIN_SOUTH, MC_REASON_MAJORITY, 25, 23);
  CHECK_TRACE_EXACT(the_trace(), 6,
                    "pick5:6 sow7 sow8 sow9 sow10 sow11 sow12 cap12:3>6 cap11:2>6 cap10:2>6 "
                    "cap9:2>6 cap8:2>6 cap7:2>6");
}

/* Rule 3, grand slam with another move available.
 * South house 6 (pit 5, 2 seeds) sows 7 (1 -> 2), 8 (2 -> 3): the chain takes all 5 of North's
 * seeds. South house 1 (pit 0, 1 seed) would sow pit 1 and capture nothing.
 * no_capture: both legal; house 6 captures nothing: 1 0 0 0 0 0 (19) 2 3 0 0 0 0 (23).
 * forbidden: house 6 is illegal (house 1 is not a grand slam).
 * capture: 19 + 5 = 24 (not more than half); North, to move, has no seeds at all: the game ends
 *   and South takes every seed on the board (its 1): South wins 25 to 23. The rule book names no
 *   reason for this end; the tests expect no_seeds (the player to move has no seeds). */
static void test_rule3_grand_slam_modes(void) {
  const char *before = "1 0 0 0 0 2 (19) 1 2 0 0 0 0 (23) south";
  mc_rules r = oware_gs(MC_GS_NO_CAPTURE);
  mc_pos p;
  mc_result res;
  CHECK_LEGAL(&r, before, "16");
  PLAY(&r, before, 6, 0, &p, &res);
  CHECK_POS(&p, "1 0 0 0 0 0 (19) 2 3 0 0 0 0 (23) north");
  CHECK_TRACE_EXACT(the_trace(), 6, "pick5:2 sow7 sow8");

  r = oware_gs(MC_GS_FORBIDDEN);
  CHECK_LEGAL(&r, before, "1");
  p = mk_pos(before);
  mc_pos copy = p;
  CHECK_INT(mc_pos_play(&p, &r, 6, NULL, NULL), MC_EILLEGAL);
  CHECK(memcmp(&p, &copy, sizeof p) == 0);
  PLAY(&r, before, 1, 0, &p, &res);
  CHECK_POS(&p, "0 1 0 0 0 2 (19) 1 2 0 0 0 0 (23) north");

  r = oware_gs(MC_GS_CAPTURE);
  CHECK_LEGAL(&r, before, "16");
  PLAY(&r, before, 6, 1, &p, &res);
  CHECK_PITS(&p, "0 0 0 0 0 0 (25) 0 0 0 0 0 0 (23)");
  CHECK_RESULT(&res, MC_WIN_SOUTH, MC_REASON_NO_SEEDS, 25, 23);
  CHECK_TRACE_EXACT(the_trace(), 6, "pick5:2 sow7 sow8 cap8:3>6 cap7:2>6 sweep0:1>6");
}

/* Rule 4, edge case: a forced feeding move. North's houses are empty; South house 1 (pit 0) would
 * sow only pit 1, house 6 (pit 5) reaches pit 7: only house 6 is legal.
 * Before: 1 0 0 0 0 1 (23) 0 0 0 0 0 0 (23)   After house 6: 1 0 0 0 0 0 (23) 1 0 0 0 0 0 (23) */
static void test_rule4_forced_feeding(void) {
  const char *before = "1 0 0 0 0 1 (23) 0 0 0 0 0 0 (23) south";
  mc_rules r = oware();
  mc_pos p = mk_pos(before);
  mc_pos copy = p;
  mc_result res;
  CHECK_LEGAL(&r, before, "6");
  CHECK_INT(mc_pos_play(&p, &r, 1, the_trace(), &res), MC_EILLEGAL);
  CHECK(memcmp(&p, &copy, sizeof p) == 0);
  PLAY(&r, before, 6, 0, &p, &res);
  CHECK_POS(&p, "1 0 0 0 0 0 (23) 1 0 0 0 0 0 (23) north");
  CHECK_TRACE_EXACT(the_trace(), 6, "pick5:1 sow7");
  /* A feeding move may come from a lap: 12 seeds in South house 1 feed as well as house 6. */
  CHECK_LEGAL(&r, "12 0 0 0 0 1 (17) 0 0 0 0 0 0 (18) south", "16");
}

/* Rules 3 and 4 together: every feeding move counts, and the forbidden grand slam filters them.
 * Oware 2x2 (pits: S 0 1, store 2, N 3 4, store 5), North empty: South must feed.
 * House 1 (pit 0, 3 seeds): 1, 3, 4 (0 -> 1): feeds, no capture.
 * House 2 (pit 1, 5 seeds): 3, 4, 0, origin skipped, 3, 4: North 2 2, both captured = every North
 *   seed: a grand slam that feeds.
 * no_capture: both legal; house 2 captures nothing: 4 0 (0) 2 2 (0), North to move.
 * forbidden: only house 1 (not a grand slam): 0 6 (0) 1 1 (0).
 * capture: house 2 takes 4 (exactly half, no majority); North has no seeds: South takes the 4 on
 *   its side: South 8 to 0. */
static void test_rule4_feeding_grand_slam(void) {
  const char *before = "3 5 (0) 0 0 (0) south";
  mc_rules r = mk_rules(MC_OWARE, 2, 2);
  mc_pos p;
  mc_result res;
  CHECK_LEGAL(&r, before, "12");
  PLAY(&r, before, 2, 0, &p, &res);
  CHECK_POS(&p, "4 0 (0) 2 2 (0) north");
  CHECK_TRACE_EXACT(the_trace(), 2, "pick1:5 sow3 sow4 sow0 sow3 sow4");
  r.grand_slam = MC_GS_FORBIDDEN;
  CHECK_LEGAL(&r, before, "1");
  PLAY(&r, before, 1, 0, &p, &res);
  CHECK_POS(&p, "0 6 (0) 1 1 (0) north");
  r.grand_slam = MC_GS_CAPTURE;
  CHECK_LEGAL(&r, before, "12");
  PLAY(&r, before, 2, 1, &p, &res);
  CHECK_PITS(&p, "0 0 (8) 0 0 (0)");
  CHECK_RESULT(&res, MC_WIN_SOUTH, MC_REASON_NO_SEEDS, 8, 0);
  CHECK_TRACE_EXACT(the_trace(), 2,
                    "pick1:5 sow3 sow4 sow0 sow3 sow4 cap4:2>2 cap3:2>2 sweep0:4>2");
}

/* Rule 4, edge case: no feeding move possible: the mover takes every seed on the board.
 * North house 6 (pit 12, 1 seed) sows pit 0 (3 -> 4: no capture). South is to move and North's
 * houses are empty; South house 1 (4 seeds: 1..4) and house 2 (1 seed: pit 2) cannot reach them.
 * The game ends: South takes its 4 + 1 seeds.
 * Before: 3 1 0 0 0 0 (20) 0 0 0 0 0 1 (23)   After: 0 0 0 0 0 0 (25) 0 0 0 0 0 0 (23)
 * With 19 and 24 in the stores the same ending is a 24-24 draw. */
static void test_rule4_cannot_feed(void) {
  mc_rules r = oware();
  mc_pos p;
  mc_result res;
  PLAY(&r, "3 1 0 0 0 0 (20) 0 0 0 0 0 1 (23) north", 6, 1, &p, &res);
  CHECK_PITS(&p, "0 0 0 0 0 0 (25) 0 0 0 0 0 0 (23)");
  CHECK_RESULT(&res, MC_WIN_SOUTH, MC_REASON_CANNOT_FEED, 25, 23);
  CHECK_TRACE_EXACT(the_trace(), 6, "pick12:1 sow0 sweep0:4>6 sweep1:1>6");
  PLAY(&r, "3 1 0 0 0 0 (19) 0 0 0 0 0 1 (24) north", 6, 1, &p, &res);
  CHECK_PITS(&p, "0 0 0 0 0 0 (24) 0 0 0 0 0 0 (24)");
  CHECK_RESULT(&res, MC_DRAW, MC_REASON_CANNOT_FEED, 24, 24);
  /* Such a position has no legal move at all. */
  CHECK_LEGAL(&r, "4 1 0 0 0 0 (20) 0 0 0 0 0 0 (23) south", "");
  p = mk_pos("4 1 0 0 0 0 (20) 0 0 0 0 0 0 (23) south");
  CHECK_INT(mc_pos_play(&p, &r, 1, NULL, NULL), MC_EILLEGAL);
}

/* Rule 5, majority: South house 6 (pit 5, 3 seeds) sows 7, 8, 9 (1 2 1 -> 2 3 2) and captures
 * 7: store 18 -> 25 > 24. The game ends at once; the houses keep their seeds.
 * Before: 2 0 0 0 0 3 (18) 1 2 1 5 4 4 (8)   After: 2 0 0 0 0 0 (25) 0 0 0 5 4 4 (8) */
static void test_rule5_majority(void) {
  mc_rules r = oware();
  mc_pos p;
  mc_result res;
  PLAY(&r, "2 0 0 0 0 3 (18) 1 2 1 5 4 4 (8) south", 6, 1, &p, &res);
  CHECK_PITS(&p, "2 0 0 0 0 0 (25) 0 0 0 5 4 4 (8)");
  CHECK_RESULT(&res, MC_WIN_SOUTH, MC_REASON_MAJORITY, 25, 8);
  CHECK_TRACE_EXACT(the_trace(), 6, "pick5:3 sow7 sow8 sow9 cap9:2>6 cap8:3>6 cap7:2>6");
  /* A store of exactly half is not a majority: 17 + 7 = 24 goes on. */
  PLAY(&r, "3 0 0 0 0 3 (17) 1 2 1 5 4 4 (8) south", 6, 0, &p, &res);
  CHECK_POS(&p, "3 0 0 0 0 0 (24) 0 0 0 5 4 4 (8) north");
}

/* Rule 5, exact-half draw (grand_slam = capture, the only way to empty the board by a capture):
 * South house 6 (pit 5, 1 seed) sows pit 7 (1 -> 2), captured: stores 24 and 24: a draw.
 * Before: 0 0 0 0 0 1 (22) 1 0 0 0 0 0 (24)   After: 0 0 0 0 0 0 (24) 0 0 0 0 0 0 (24) */
static void test_rule5_exact_half_draw(void) {
  mc_rules r = oware_gs(MC_GS_CAPTURE);
  mc_pos p;
  mc_result res;
  PLAY(&r, "0 0 0 0 0 1 (22) 1 0 0 0 0 0 (24) south", 6, 1, &p, &res);
  CHECK_PITS(&p, "0 0 0 0 0 0 (24) 0 0 0 0 0 0 (24)");
  CHECK_RESULT(&res, MC_DRAW, MC_REASON_MAJORITY, 24, 24);
}

/* Rule 6 at the position level: each player takes the seeds of their own houses.
 * 2 0 1 0 0 0 (20) 0 3 0 0 0 1 (21): South 20 + 3 = 23, North 21 + 4 = 25: North wins. */
static void test_rule6_end_repetition(void) {
  mc_rules r = oware();
  mc_pos p = mk_pos("2 0 1 0 0 0 (20) 0 3 0 0 0 1 (21) south");
  mc_result res;
  the_trace()->len = 0;
  CHECK_INT(mc_pos_end_repetition(&p, &r, the_trace(), &res), 0);
  CHECK_PITS(&p, "0 0 0 0 0 0 (23) 0 0 0 0 0 0 (25)");
  CHECK_RESULT(&res, MC_WIN_NORTH, MC_REASON_REPETITION, 23, 25);
  CHECK_TRACE(the_trace(), 6, "sweep0:2>6 sweep2:1>6 sweep8:3>13 sweep12:1>13");
}

/* Small boards and perft by hand.
 * Oware 1x1, pits S (0), store (1), N (2), store (3). South sows its seed into N (2): a capture
 * of every North seed, a grand slam, so nothing is taken (no_capture): "0 (0) 2 (0)", North to
 * move. North must feed: 2 seeds, S, origin skipped, S again: "2 (0) 0 (0)" (again a grand
 * slam). South: "0 (0) 2 (0)" for the second time, and so on: the 5th move makes it the third
 * time, which ends the game by repetition (seen by mc_game, not by mc_pos).
 * perft: 1 1 1 1 1 0, and only the 5th ply ends the game.
 * grand_slam = capture: South captures 2 > 1 = half: 1 move, which ends the game. */
static void test_small_boards(void) {
  mc_rules r = mk_rules(MC_OWARE, 1, 1);
  mc_pos p;
  mc_result res;
  PLAY(&r, "1 (0) 1 (0) south", 1, 0, &p, &res);
  CHECK_POS(&p, "0 (0) 2 (0) north");
  CHECK_TRACE_EXACT(the_trace(), 1, "pick0:1 sow2");
  PLAY(&r, "0 (0) 2 (0) north", 1, 0, &p, &res);
  CHECK_POS(&p, "2 (0) 0 (0) south");
  CHECK_TRACE_EXACT(the_trace(), 1, "pick2:2 sow0 sow0");

  uint64_t counts[6], ends[6];
  CHECK_INT(mc_perft(&r, 6, counts, ends), 0);
  for (int d = 0; d < 5; d++) {
    CHECK_INT(counts[d], 1);
    CHECK_INT(ends[d], d == 4);
  }
  CHECK_INT(counts[5], 0);
  CHECK_INT(ends[5], 0);

  r.grand_slam = MC_GS_CAPTURE;
  PLAY(&r, "1 (0) 1 (0) south", 1, 1, &p, &res);
  CHECK_PITS(&p, "0 (2) 0 (0)");
  CHECK_RESULT(&res, MC_WIN_SOUTH, MC_REASON_MAJORITY, 2, 0);
  CHECK_INT(mc_perft(&r, 2, counts, ends), 0);
  CHECK_INT(counts[0], 1);
  CHECK_INT(ends[0], 1);
  CHECK_INT(counts[1], 0);

  /* Oware 6x4: 6 moves; none captures or ends, so North has 6 answers to each: 36. */
  r = oware();
  CHECK_INT(mc_perft(&r, 2, counts, NULL), 0);
  CHECK_INT(counts[0], 6);
  CHECK_INT(counts[1], 36);
}

/* Defaults: Oware 6x4, grand slam no_capture. */
static void test_defaults(void) {
  mc_rules r;
  mc_pos p;
  CHECK_INT(mc_rules_init(&r, MC_OWARE), 0);
  CHECK_INT(r.kind, MC_OWARE);
  CHECK_INT(r.houses, 6);
  CHECK_INT(r.seeds, 4);
  CHECK_INT(r.grand_slam, MC_GS_NO_CAPTURE);
  CHECK_INT(mc_pos_init(&p, &r), 0);
  CHECK_POS(&p, "4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) south");
}

int main(void) {
  test_rule1_stores_skipped();
  test_rule2_sow_11();
  test_rule2_sow_12();
  test_rule2_sow_23();
  test_rule3_chain_to_edge();
  test_rule3_chain_to_edge_north();
  test_rule3_chain_stops_at_4();
  test_rule3_no_capture_on_4();
  test_rule3_grand_slam_only_move();
  test_rule3_grand_slam_modes();
  test_rule4_forced_feeding();
  test_rule4_cannot_feed();
  test_rule4_feeding_grand_slam();
  test_rule5_majority();
  test_rule5_exact_half_draw();
  test_rule6_end_repetition();
  test_small_boards();
  test_defaults();
  return check_exit("oware");
}
