/* The pie rule (rule book, option `pie`): the swap as a move of its own (MC_SWAP), legal only
 * after the first player's whole first turn (in a Congkak match only in round 1), its notation,
 * undo, replay and records, the players behind the sides, and the computer's choice. Every
 * position and value is worked by hand in the comment above its test.
 */
#include "mc_analysis.h"
#include "mc_search.h"
#include "util.h"

/* Kalah 6x4 with pie: "3 6" is South's whole first turn (3 ends in its store: again; 6 sows
 * 5 seeds from pit 5 into its store and North houses 1..4, ending on North's side):
 * 4 4 0 5 5 0 (2) 5 5 5 5 4 4 (0) north. Then North may swap; the position stays, North is
 * still to move, now played by the first player. North 1 (5 seeds from pit 7 to pits 8..12)
 * ends in its own house 6, which held 4: 4 4 0 5 5 0 (2) 0 6 6 6 5 5 (0) south. */
static void test_swap_kalah(void) {
  mc_rules r = mk_rules(MC_KALAH, 6, 4);
  r.pie = true;
  mc_game *g = mc_game_new(&r);
  CHECK(!mc_game_can_swap(g)); /* Nobody has moved. */
  CHECK_INT(mc_game_play(g, MC_SWAP, NULL), MC_EILLEGAL);
  CHECK_INT(mc_game_play(g, 3, NULL), 0);
  CHECK(!mc_game_can_swap(g)); /* South's first turn goes on (extra turn). */
  CHECK_INT(mc_game_play(g, MC_SWAP, NULL), MC_EILLEGAL);
  CHECK_INT(mc_game_play(g, 6, NULL), 0);
  CHECK_POS(mc_game_pos(g), "4 4 0 5 5 0 (2) 5 5 5 5 4 4 (0) north");
  CHECK(mc_game_can_swap(g));
  CHECK_INT(mc_game_swap_ply(g), -1);
  size_t hist_before = 0, hist_after = 0;
  mc_game_history(g, &hist_before);

  mc_trace *tr = the_trace();
  tr->len = 77;
  CHECK_INT(mc_game_play(g, MC_SWAP, tr), 0);
  CHECK_INT(tr->len, 0); /* Nothing moves on the board. */
  CHECK_POS(mc_game_pos(g), "4 4 0 5 5 0 (2) 5 5 5 5 4 4 (0) north");
  CHECK_INT(mc_game_ply(g), 3);
  CHECK_INT(mc_game_swap_ply(g), 2);
  CHECK(!mc_game_can_swap(g)); /* Once only. */
  CHECK_INT(mc_game_play(g, MC_SWAP, NULL), MC_EILLEGAL);
  mc_game_history(g, &hist_after);
  CHECK_INT(hist_after, hist_before); /* The same occurrence of the same position. */
  CHECK_INT(mc_game_mover(g, 2), MC_NORTH);
  CHECK_INT(mc_game_player(g, 2), MC_NORTH); /* The second player swapped... */

  CHECK_INT(mc_game_play(g, 1, NULL), 0);
  CHECK_POS(mc_game_pos(g), "4 4 0 5 5 0 (2) 0 6 6 6 5 5 (0) south");
  size_t n = 0;
  const uint8_t *moves = mc_game_moves(g, &n);
  CHECK_INT(n, 4);
  CHECK(moves[0] == 3 && moves[1] == 6 && moves[2] == MC_SWAP && moves[3] == 1);
  /* ...and the first player, now on North, moved next. */
  CHECK_INT(mc_game_mover(g, 3), MC_NORTH);
  CHECK_INT(mc_game_player(g, 3), MC_SOUTH);
  CHECK_INT(mc_game_player(g, 0), MC_SOUTH);
  CHECK_INT(mc_game_player(g, 1), MC_SOUTH);
  CHECK_INT(mc_game_player(g, 4), -1);

  char rec[256];
  CHECK(mc_record_format(g, rec, sizeof rec) > 0);
  CHECK_STR(rec, "kalah 6x4 pie\n3 6 swap 1\n");
  mc_game *back = NULL;
  CHECK_INT(mc_record_parse(rec, &back, NULL), 0);
  CHECK(back != NULL && mc_game_ply(back) == 4 && mc_game_swap_ply(back) == 2);
  if (back != NULL)
    CHECK_POS(mc_game_pos(back), "4 4 0 5 5 0 (2) 0 6 6 6 5 5 (0) south");
  mc_game_free(back);

  mc_game *copy = mc_game_copy(g);
  CHECK(copy != NULL && mc_game_swap_ply(copy) == 2 && mc_game_player(copy, 3) == MC_SOUTH);
  mc_game_free(copy);
  mc_game_free(g);
}

/* Undo takes the swap back like any move: the swap is legal again, no player changed sides. */
static void test_swap_undo(void) {
  mc_rules r = mk_rules(MC_KALAH, 6, 4);
  r.pie = true;
  mc_game *g = mc_game_new(&r);
  CHECK_INT(mc_game_play(g, 3, NULL), 0);
  CHECK_INT(mc_game_play(g, 6, NULL), 0);
  CHECK_INT(mc_game_play(g, MC_SWAP, NULL), 0);
  CHECK_INT(mc_game_undo(g), 0);
  CHECK_INT(mc_game_ply(g), 2);
  CHECK_INT(mc_game_swap_ply(g), -1);
  CHECK(mc_game_can_swap(g));
  CHECK_POS(mc_game_pos(g), "4 4 0 5 5 0 (2) 5 5 5 5 4 4 (0) north");
  /* North declines by moving: North 1 as above, and the swap is gone for good. */
  CHECK_INT(mc_game_play(g, 1, NULL), 0);
  CHECK(!mc_game_can_swap(g));
  CHECK_INT(mc_game_player(g, 2), MC_NORTH);
  mc_game_free(g);
}

/* Without the option the swap is never legal, and a bad value is no house either. */
static void test_swap_needs_pie(void) {
  mc_rules r = mk_rules(MC_KALAH, 6, 4);
  mc_game *g = mc_game_new(&r);
  CHECK_INT(mc_game_play(g, 3, NULL), 0);
  CHECK_INT(mc_game_play(g, 6, NULL), 0);
  CHECK(!mc_game_can_swap(g));
  CHECK_INT(mc_game_play(g, MC_SWAP, NULL), MC_EILLEGAL);
  CHECK_INT(mc_game_play(g, 0, NULL), MC_EINVAL);
  CHECK_INT(mc_game_play(g, 10, NULL), MC_EINVAL);
  CHECK_INT(mc_game_ply(g), 2);
  mc_game *h = NULL;
  mc_text_error err;
  CHECK_INT(mc_moves_replay(&r, "3 6 swap", &h, &err), MC_EILLEGAL);
  CHECK_INT(err.offset, 4);
  CHECK(strstr(err.message, "swap") != NULL);
  mc_game_free(g);
}

/* Oware 6x4 with pie: South 1 sows pits 1..4 and the turn is over:
 * 0 5 5 5 5 4 (0) 4 4 4 4 4 4 (0) north; North may swap. */
static void test_swap_oware(void) {
  mc_rules r = mk_rules(MC_OWARE, 6, 4);
  r.pie = true;
  mc_game *g = mc_game_new(&r);
  CHECK_INT(mc_game_play(g, 1, NULL), 0);
  CHECK_POS(mc_game_pos(g), "0 5 5 5 5 4 (0) 4 4 4 4 4 4 (0) north");
  CHECK(mc_game_can_swap(g));
  CHECK_INT(mc_game_play(g, MC_SWAP, NULL), 0);
  CHECK_POS(mc_game_pos(g), "0 5 5 5 5 4 (0) 4 4 4 4 4 4 (0) north");
  uint8_t legal[MC_MAX_HOUSES];
  CHECK_INT(mc_game_legal(g, legal), 6); /* North's houses, as before the swap. */
  mc_game_free(g);
}

/* Congkak 1x1 match with pie (1 (0) 1 (0)): South 1 sows its store and South has no seeds: the
 * round ends at once and North starts round 2. The first turn is over, but the swap belongs to
 * round 1 only. */
static void test_swap_not_in_round_2(void) {
  mc_rules r = mk_rules(MC_CONGKAK, 1, 1);
  r.match = true;
  r.pie = true;
  mc_game *g = mc_game_new(&r);
  CHECK_INT(mc_game_play(g, 1, NULL), 0);
  CHECK_POS(mc_game_pos(g), "1 (0) 1 (0) north round 2 first north");
  CHECK(!mc_game_can_swap(g));
  CHECK_INT(mc_game_play(g, MC_SWAP, NULL), MC_EILLEGAL);
  mc_game_free(g);
}

/* A first turn that ends the game leaves nothing to swap: Kalah 2x1 (1 1 (0) 1 1 (0)), South 2
 * sows its store (again), South 1 lands in its empty house 2 facing North's house 1 (1 seed):
 * 2 captured, 3 in South's store, South has no seeds: the game is over. */
static void test_no_swap_after_the_end(void) {
  mc_rules r = mk_rules(MC_KALAH, 2, 1);
  r.pie = true;
  mc_game *g = mc_game_new(&r);
  CHECK_INT(mc_game_play(g, 2, NULL), 0);
  CHECK_INT(mc_game_play(g, 1, NULL), 0);
  CHECK(mc_game_over(g, NULL));
  CHECK(!mc_game_can_swap(g));
  CHECK_INT(mc_game_play(g, MC_SWAP, NULL), MC_EOVER);
  mc_game_free(g);
}

/* Text: the option and the notation. */
static void test_swap_text(void) {
  mc_rules r;
  CHECK_INT(mc_rules_parse("oware 6x4 grand_slam=forbidden pie", &r, NULL), 0);
  CHECK(r.pie && r.kind == MC_OWARE && r.grand_slam == MC_GS_FORBIDDEN);
  CHECK_INT(mc_rules_parse("congkak 7x7 pie rounds=match", &r, NULL), 0);
  CHECK(r.pie && r.match);
  char buf[96];
  CHECK(mc_rules_format(&r, buf, sizeof buf) > 0);
  CHECK_STR(buf, "congkak 7x7 rounds=match pie");
  mc_text_error err;
  CHECK_INT(mc_rules_parse("kalah 6x4 pie pie", &r, &err), MC_ESYNTAX);
  CHECK_INT(err.offset, 14);
  CHECK_INT(mc_rules_parse("kalah 6x4", &r, NULL), 0);
  CHECK(!r.pie);

  uint8_t moves[8];
  size_t n = 0;
  CHECK_INT(mc_moves_parse("3 6 swap 1", moves, 8, &n, NULL), 0);
  CHECK_INT(n, 4);
  CHECK(moves[2] == MC_SWAP && moves[3] == 1);
  CHECK(mc_moves_format(moves, n, buf, sizeof buf) > 0);
  CHECK_STR(buf, "3 6 swap 1");
  CHECK_INT(mc_moves_parse("3 swp", moves, 8, &n, &err), MC_ESYNTAX);
  CHECK_INT(err.offset, 2);
  CHECK_INT(mc_move_format(MC_SWAP, buf, sizeof buf), 4);
  CHECK_STR(buf, "swap");
  CHECK_INT(mc_move_format(7, buf, sizeof buf), 1);
  CHECK_STR(buf, "7");
  CHECK_INT(mc_move_format(0, buf, sizeof buf), MC_EINVAL);
}

/* The computer's choice. Congkak 2x1 (1 1 (0) 1 1 (0)) with pie: South 2 sows its store (again),
 * South 1 lands in its empty house 2 facing North's house 1 (1 seed) and captures 2:
 * 0 0 (3) 0 1 (0) north. North's only move sows its store; it moves again with no seeds, so the
 * game ends 3 to 1: North's value is -2 seeds. The swap is worth +2 to North's player: the
 * computer swaps.
 *
 * Kalah 2x1 with pie: South 1 lands in its house 2, which held 1: 0 2 (0) 1 1 (0) north. North 1
 * (to its house 2, which held 1) leaves 0 2 (0) 0 2 (0) south; South's only move sows its store
 * and North's house 1, South has no seeds and North sweeps 3: 1 to 3. North 2 sows its store
 * (again), North 1 lands in its empty house 2 facing South's empty house 1 (no capture); South's
 * only move sows its store and North's house 1 and North sweeps 2: 1 to 3. North is +2 either
 * way: the computer keeps its side and plays a house. */
static void test_computer_swaps(void) {
  mc_search *s = mc_search_new(&(mc_search_config){.tt_bytes = 1u << 20});
  mc_rules r = mk_rules(MC_CONGKAK, 2, 1);
  r.pie = true;
  mc_game *g = mc_game_new(&r);
  CHECK_INT(mc_game_play(g, 2, NULL), 0);
  CHECK_INT(mc_game_play(g, 1, NULL), 0);
  CHECK_POS(mc_game_pos(g), "0 0 (3) 0 1 (0) north");
  mc_search_result res;
  for (int level = 1; level <= 6; level++) {
    CHECK_INT(mc_search_game(s, g, level, 200, 1, NULL, &res), 0);
    CHECK_INT(res.move, MC_SWAP);
    CHECK_INT(res.value, 2 * MC_SEED);
  }
  CHECK(res.exact);
  CHECK_INT(mc_game_play(g, res.move, NULL), 0);
  /* The first player, now North, has one move and the game ends 3 to 1 for South: the swapper. */
  CHECK_INT(mc_game_play(g, 2, NULL), 0);
  mc_result end;
  CHECK(mc_game_over(g, &end));
  CHECK_RESULT(&end, MC_WIN_SOUTH, MC_REASON_NO_SEEDS, 3, 1);
  CHECK_INT(mc_game_player(g, 3), MC_SOUTH);
  mc_game_free(g);

  mc_rules k = mk_rules(MC_KALAH, 2, 1);
  k.pie = true;
  g = mc_game_new(&k);
  CHECK_INT(mc_game_play(g, 1, NULL), 0);
  CHECK_POS(mc_game_pos(g), "0 2 (0) 1 1 (0) north");
  CHECK(mc_game_can_swap(g));
  CHECK_INT(mc_search_game(s, g, 6, 200, 1, NULL, &res), 0);
  CHECK(res.move == 1 || res.move == 2);
  CHECK_INT(res.value, 2 * MC_SEED);
  CHECK(res.exact);
  mc_game_free(g);

  /* The rule alone: a value below 0 becomes the swap, negated; 0 and above stay. */
  mc_search_result x = {.move = 3, .best = 3, .value = -150, .pv_len = 2, .pv = {3, 1}};
  mc_search_pie(&x);
  CHECK(x.move == MC_SWAP && x.best == MC_SWAP && x.value == 150 && x.pv_len == 1);
  x = (mc_search_result){.move = 3, .best = 4, .value = 0};
  mc_search_pie(&x);
  CHECK(x.move == 3 && x.best == 4 && x.value == 0);
  mc_search_free(s);
}

/* The first player plans its first turn knowing the other may swap: each end of the turn is
 * worth the worse of the two sides' values.
 *
 * Congkak 2x1 (1 1 (0) 1 1 (0)) with pie: South 1 drops its seed in house 2 (1 -> 2): relay, 2
 * seeds to its store and North's house 1 (1 -> 2): relay, 2 seeds to North's house 2 (1 -> 2)
 * and, skipping North's store, South's empty house 1: the last seed and North's house 2 facing
 * it (2 seeds) go to the store: 4 to 0, the game is over: +4. South 2 then 1 ends the turn at
 * 0 0 (3) 0 1 (0) north (the computer's test above: North's value -2), where the second
 * player would swap: -2 for the first player. South plays 1.
 *
 * Kalah 2x1 with pie: South 2 (again) then 1 ends the game 3 to 1: +2. South 1 ends the turn at
 * 0 2 (0) 1 1 (0) north, worth +2 to North (above): the first player would get -2 either way.
 * South plays 2, and after it (its turn goes on) 1. */
static void test_first_player_plans(void) {
  mc_search *s = mc_search_new(&(mc_search_config){.tt_bytes = 1u << 20});
  mc_rules r = mk_rules(MC_CONGKAK, 2, 1);
  r.pie = true;
  mc_game *g = mc_game_new(&r);
  mc_search_result res;
  CHECK_INT(mc_search_game(s, g, 6, 200, 1, NULL, &res), 0);
  CHECK_INT(res.move, 1);
  CHECK_INT(res.value, 4 * MC_SEED);
  CHECK(res.exact);
  CHECK_INT(res.nmoves, 2);
  CHECK(res.moves[1].move == 2 && res.moves[1].value == -2 * MC_SEED);
  mc_game_free(g);

  mc_rules k = mk_rules(MC_KALAH, 2, 1);
  k.pie = true;
  g = mc_game_new(&k);
  CHECK_INT(mc_search_game(s, g, 6, 200, 1, NULL, &res), 0);
  CHECK_INT(res.move, 2);
  CHECK_INT(res.value, 2 * MC_SEED);
  CHECK(res.moves[0].move == 1 && res.moves[0].value == -2 * MC_SEED);
  CHECK_INT(mc_game_play(g, 2, NULL), 0);
  CHECK_INT(mc_search_game(s, g, 1, -1, 1, NULL, &res), 0);
  CHECK_INT(res.move, 1);
  CHECK_INT(res.value, 2 * MC_SEED);
  /* Not its moment: without the rule, or once North has moved. */
  mc_level lv;
  mc_level_get(6, &lv);
  CHECK_INT(mc_search_pie_first(s, g, &lv, 100, 1, NULL, &res), 1);
  CHECK_INT(mc_game_play(g, 1, NULL), 0);
  CHECK_INT(mc_search_pie_first(s, g, &lv, 100, 1, NULL, &res), 0); /* The game is over. */
  mc_game_free(g);
  mc_rules plain = mk_rules(MC_KALAH, 6, 4);
  g = mc_game_new(&plain);
  CHECK_INT(mc_search_pie_first(s, g, &lv, 100, 1, NULL, &res), 0);
  mc_game_free(g);
  mc_search_free(s);
}

/* The analysis of "2 1 swap 2" (the Congkak 2x1 game above): at the swap the best move is the
 * swap, worth +2 seeds to its player, and it was played: nothing lost. */
static void test_analysis_of_a_swap(void) {
  mc_search *s = mc_search_new(&(mc_search_config){.tt_bytes = 1u << 20});
  mc_rules r = mk_rules(MC_CONGKAK, 2, 1);
  r.pie = true;
  const uint8_t moves[] = {2, 1, MC_SWAP, 2};
  mc_ply_eval out[4];
  size_t bad = 99;
  mc_limits per = {200, 0, 0};
  CHECK_INT(mc_analyse(s, &r, moves, 4, &per, NULL, out, &bad), 0);
  /* South's first turn, planned against the swap: South 2 then 1 ends where North would swap
   * (-2), South 1 ends the game at once (+4, test_first_player_plans). */
  CHECK_INT(out[0].best, 1);
  CHECK_INT(out[0].value, 4 * MC_SEED);
  CHECK_INT(out[0].played_value, -2 * MC_SEED);
  CHECK_INT(out[1].played_value, -2 * MC_SEED);
  CHECK_INT(out[2].mover, MC_NORTH);
  CHECK_INT(out[2].played, MC_SWAP);
  CHECK_INT(out[2].best, MC_SWAP);
  CHECK_INT(out[2].value, 2 * MC_SEED);
  CHECK(out[2].played_known);
  CHECK_INT(out[2].played_value, 2 * MC_SEED);
  /* North's last move, from the same position, by the first player: -2 for the mover. */
  CHECK_INT(out[3].played, 2);
  CHECK_INT(out[3].value, -2 * MC_SEED);
  const uint8_t bad_moves[] = {2, MC_SWAP};
  CHECK_INT(mc_analyse(s, &r, bad_moves, 2, &per, NULL, out, &bad), MC_EILLEGAL);
  CHECK_INT(bad, 1);
  mc_search_free(s);
}

int main(void) {
  test_swap_kalah();
  test_swap_undo();
  test_swap_needs_pie();
  test_swap_oware();
  test_swap_not_in_round_2();
  test_no_swap_after_the_end();
  test_swap_text();
  test_computer_swaps();
  test_first_player_plans();
  test_analysis_of_a_swap();
  return check_exit("pie");
}
