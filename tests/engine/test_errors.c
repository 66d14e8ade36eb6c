/* Every documented bad argument of every engine function: the error code, and outputs untouched
 * ("Every engine function that can fail returns a negative MC_E* code and leaves its outputs
 * unchanged", mc_error.h).
 */
#include "util.h"

/* Rules that mc_rules_check() must refuse, each with one thing wrong. */
static void test_bad_rules(void) {
  mc_rules r, sentinel;
  memset(&r, 0x5a, sizeof r);
  sentinel = r;
  CHECK_INT(mc_rules_init(&r, (mc_kind)3), MC_EINVAL);
  CHECK_INT(mc_rules_init(&r, (mc_kind)-1), MC_EINVAL);
  CHECK(memcmp(&r, &sentinel, sizeof r) == 0);

  mc_rules bad[24];
  int n = 0;
  bad[n++] = mk_rules((mc_kind)3, 6, 4);
  bad[n++] = mk_rules(MC_KALAH, 0, 4);
  bad[n++] = mk_rules(MC_KALAH, 10, 4);
  bad[n++] = mk_rules(MC_OWARE, 6, 0);
  bad[n++] = mk_rules(MC_OWARE, 6, 13);
  bad[n++] = mk_rules(MC_CONGKAK, 255, 7);
  bad[n] = mk_rules(MC_KALAH, 6, 4);
  bad[n++].lap_capture = true;
  bad[n] = mk_rules(MC_KALAH, 6, 4);
  bad[n++].match = true;
  bad[n] = mk_rules(MC_KALAH, 6, 4);
  bad[n++].grand_slam = MC_GS_FORBIDDEN;
  bad[n] = mk_rules(MC_OWARE, 6, 4);
  bad[n++].empty_capture = true;
  bad[n] = mk_rules(MC_OWARE, 6, 4);
  bad[n++].lap_capture = true;
  bad[n] = mk_rules(MC_OWARE, 6, 4);
  bad[n++].match = true;
  bad[n] = mk_rules(MC_OWARE, 6, 4);
  bad[n++].grand_slam = (mc_grand_slam)3;
  bad[n] = mk_rules(MC_CONGKAK, 7, 7);
  bad[n++].empty_capture = true;
  bad[n] = mk_rules(MC_CONGKAK, 7, 7);
  bad[n++].grand_slam = MC_GS_CAPTURE;
  /* The old burn rule: only in a Congkak match, and only its two modes. */
  bad[n] = mk_rules(MC_CONGKAK, 7, 7);
  bad[n++].burn = MC_BURN_MATCH;
  bad[n] = mk_rules(MC_KALAH, 6, 4);
  bad[n++].burn = MC_BURN_MATCH;
  bad[n] = mk_rules(MC_CONGKAK, 7, 7);
  bad[n].match = true;
  bad[n++].burn = (mc_burn)2;
  for (int i = 0; i < n; i++) {
    mc_pos p, psent;
    memset(&p, 0x33, sizeof p);
    psent = p;
    uint64_t counts[2] = {7, 7};
    CHECK_INT(mc_rules_check(&bad[i]), MC_EINVAL);
    CHECK_INT(mc_pos_init(&p, &bad[i]), MC_EINVAL);
    CHECK(memcmp(&p, &psent, sizeof p) == 0);
    CHECK(mc_game_new(&bad[i]) == NULL);
    CHECK_INT(mc_perft(&bad[i], 1, counts, NULL), MC_EINVAL);
    CHECK(counts[0] == 7 && counts[1] == 7);
    /* Functions on a position check the rules as well. */
    mc_pos q = mk_pos("4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) south");
    mc_pos qsent = q;
    uint8_t moves[MC_MAX_HOUSES];
    CHECK_INT(mc_pos_check(&q, &bad[i]), MC_EINVAL);
    CHECK_INT(mc_pos_legal(&q, &bad[i], moves), MC_EINVAL);
    CHECK_INT(mc_pos_is_legal(&q, &bad[i], 1), 0);
    CHECK_INT(mc_pos_play(&q, &bad[i], 1, NULL, NULL), MC_EINVAL);
    CHECK_INT(mc_pos_end_repetition(&q, &bad[i], NULL, NULL), MC_EINVAL);
    CHECK(memcmp(&q, &qsent, sizeof q) == 0);
  }

  /* The extremes and every option on its own game are fine. */
  mc_rules good[8];
  n = 0;
  good[n++] = mk_rules(MC_KALAH, 1, 1);
  good[n++] = mk_rules(MC_OWARE, 9, 12);
  good[n] = mk_rules(MC_KALAH, 6, 4);
  good[n++].empty_capture = true;
  good[n] = mk_rules(MC_OWARE, 6, 4);
  good[n++].grand_slam = MC_GS_CAPTURE;
  good[n] = mk_rules(MC_CONGKAK, 9, 1);
  good[n].lap_capture = true;
  good[n++].match = true;
  good[n] = mk_rules(MC_CONGKAK, 7, 7);
  good[n].match = true;
  good[n++].burn = MC_BURN_MATCH;
  for (int i = 0; i < n; i++) {
    CHECK_INT(mc_rules_check(&good[i]), 0);
  }
  for (int k = 0; k < 3; k++) {
    CHECK_INT(mc_rules_init(&r, (mc_kind)k), 0);
    CHECK_INT(mc_rules_check(&r), 0);
  }
}

/* Positions that mc_pos_check() must refuse under their rules, and what the position functions
 * do with them. */
static void test_bad_positions(void) {
  mc_rules kalah = mk_rules(MC_KALAH, 6, 4);
  mc_rules match = mk_rules(MC_CONGKAK, 3, 3);
  match.match = true;
  mc_pos ok = mk_pos("4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) south");
  mc_pos okm = mk_pos("3 3 3 (1) x 3 3 (2) north round 2 first north");
  CHECK_INT(mc_pos_check(&ok, &kalah), 0);
  CHECK_INT(mc_pos_check(&okm, &match), 0);
  /* 255 seeds in all still fit a store; 256 do not. */
  mc_pos full = mk_pos("0 0 0 0 0 0 (255) 0 0 0 0 0 0 (0) north");
  CHECK_INT(mc_pos_check(&full, &kalah), 0);
  full = mk_pos("0 0 0 0 0 0 (255) 1 0 0 0 0 0 (0) north");
  CHECK_INT(mc_pos_check(&full, &kalah), MC_EINVAL);

  mc_pos bad[20];
  const mc_rules *rules[20];
  int n = 0;
  /* Wrong number of houses for the rules. */
  bad[n] = mk_pos("4 4 4 4 4 (0) 4 4 4 4 4 (0) south");
  rules[n++] = &kalah;
  /* A seed in an unused pit past the ring. */
  bad[n] = ok;
  bad[n].pits[14] = 1;
  rules[n++] = &kalah;
  bad[n] = ok;
  bad[n].pits[MC_MAX_PITS - 1] = 1;
  rules[n++] = &kalah;
  /* A burnt house in Kalah. */
  bad[n] = mk_pos("4 4 4 4 4 0 (4) 4 4 4 4 4 4 (0) south");
  bad[n].burnt = 1u << 5;
  rules[n++] = &kalah;
  /* Seeds in a burnt house. */
  bad[n] = okm;
  bad[n].pits[4] = 3;
  rules[n++] = &match;
  bad[n] = mk_pos("3 3 3 (0) 3 3 3 (3) north round 2 first north");
  bad[n].burnt = 1u << 0;
  rules[n++] = &match;
  /* A burnt store (South's, North's), and a burnt bit past the ring. */
  bad[n] = mk_pos("3 3 3 (0) 3 3 3 (3) north round 2 first north");
  bad[n].burnt = 1u << 3;
  rules[n++] = &match;
  bad[n] = mk_pos("3 3 3 (3) 3 3 3 (0) north round 2 first north");
  bad[n].burnt = 1u << 7;
  rules[n++] = &match;
  bad[n] = mk_pos("3 3 3 (0) 3 3 3 (3) north round 2 first north");
  bad[n].burnt = 1u << 8;
  rules[n++] = &match;
  /* More seeds than a store can count (pits are bytes). */
  bad[n] = mk_pos("200 200 200 200 200 200 (0) 4 4 4 4 4 4 (0) south");
  rules[n++] = &kalah;
  /* Seats and rounds out of range. */
  bad[n] = ok;
  bad[n].turn = 2;
  rules[n++] = &kalah;
  bad[n] = okm;
  bad[n].first = 2;
  rules[n++] = &match;
  bad[n] = okm;
  bad[n].round = 0;
  rules[n++] = &match;
  bad[n] = okm;
  bad[n].round = 10;
  rules[n++] = &match;
  for (int i = 0; i < n; i++) {
    mc_pos p = bad[i];
    mc_result res, rsent;
    uint8_t moves[MC_MAX_HOUSES];
    memset(&res, 0x44, sizeof res);
    rsent = res;
    the_trace()->len = 31;
    CHECK_INT(mc_pos_check(&p, rules[i]), MC_EINVAL);
    CHECK_INT(mc_pos_legal(&p, rules[i], moves), MC_EINVAL);
    CHECK_INT(mc_pos_is_legal(&p, rules[i], 2), 0);
    CHECK_INT(mc_pos_play(&p, rules[i], 2, the_trace(), &res), MC_EINVAL);
    CHECK_INT(mc_pos_end_repetition(&p, rules[i], the_trace(), &res), MC_EINVAL);
    CHECK(memcmp(&p, &bad[i], sizeof p) == 0);
    CHECK(memcmp(&res, &rsent, sizeof res) == 0);
    CHECK_INT(the_trace()->len, 31);
  }
}

/* House numbers out of 1..m and empty houses, for both seats; nothing changes on error. */
static void test_bad_houses(void) {
  mc_rules r = mk_rules(MC_KALAH, 6, 4);
  const char *texts[] = {"4 4 0 4 4 4 (0) 4 4 4 4 4 4 (0) south",
                         "4 4 4 4 4 4 (0) 4 4 0 4 4 4 (0) north"};
  for (int t = 0; t < 2; t++) {
    mc_pos p = mk_pos(texts[t]);
    mc_pos sentinel = p;
    mc_result res, rsent;
    memset(&res, 0x44, sizeof res);
    rsent = res;
    const int houses[] = {0, 7, -1, 9, 100, 255, 256};
    for (size_t i = 0; i < sizeof houses / sizeof houses[0]; i++) {
      the_trace()->len = 17;
      CHECK_INT(mc_pos_play(&p, &r, houses[i], the_trace(), &res), MC_EINVAL);
      CHECK_INT(mc_pos_is_legal(&p, &r, houses[i]), 0);
      CHECK_INT(the_trace()->len, 17);
    }
    the_trace()->len = 17;
    CHECK_INT(mc_pos_play(&p, &r, 3, the_trace(), &res), MC_EILLEGAL);
    CHECK_INT(the_trace()->len, 17);
    CHECK(memcmp(&p, &sentinel, sizeof p) == 0);
    CHECK(memcmp(&res, &rsent, sizeof res) == 0);
    CHECK_INT(mc_pos_is_legal(&p, &r, 3), 0);
  }
  /* A Congkak burnt house is not a move (and not out of range: MC_EILLEGAL). */
  mc_rules m = mk_rules(MC_CONGKAK, 3, 3);
  m.match = true;
  mc_pos q = mk_pos("3 3 3 (1) x 3 3 (2) north round 2 first north");
  CHECK_INT(mc_pos_play(&q, &m, 1, NULL, NULL), MC_EILLEGAL);
  CHECK_INT(mc_pos_play(&q, &m, 4, NULL, NULL), MC_EINVAL);
}

/* Perft's documented range: depth 1..64 and counts not NULL. */
static void test_bad_perft(void) {
  mc_rules r = mk_rules(MC_KALAH, 1, 1);
  uint64_t counts[65], ends[65];
  for (int i = 0; i < 65; i++) {
    counts[i] = ends[i] = 12345;
  }
  CHECK_INT(mc_perft(&r, 0, counts, ends), MC_EINVAL);
  CHECK_INT(mc_perft(&r, 65, counts, ends), MC_EINVAL);
  CHECK_INT(mc_perft(&r, 1, NULL, ends), MC_EINVAL);
  CHECK(counts[0] == 12345 && ends[0] == 12345);
  /* Depth 64 is allowed (Kalah 1x1 ends after one move). */
  CHECK_INT(mc_perft(&r, 64, counts, ends), 0);
  CHECK_INT(counts[0], 1);
  CHECK_INT(counts[63], 0);
  CHECK_INT(counts[64], 12345);
}

/* Names of values out of range, and names that do not parse. */
static void test_bad_names(void) {
  CHECK(mc_kind_name((mc_kind)3) == NULL);
  CHECK(mc_grand_slam_name((mc_grand_slam)3) == NULL);
  CHECK(mc_seat_name((mc_seat)2) == NULL);
  CHECK(mc_winner_name((mc_winner)3) == NULL);
  CHECK(mc_step_name((mc_step_kind)9) == NULL);
  CHECK(mc_reason_name((mc_reason)9) == NULL);
  CHECK_STR(mc_strerror(-99), "unknown error");
  CHECK_STR(mc_err_name(-99), "EUNKNOWN");
  CHECK_STR(mc_strerror(7), "unknown error");

  mc_kind k = MC_OWARE;
  const char *bad_kinds[] = {"", "Kalah", "kalah ", "kalahx", "mancala"};
  for (size_t i = 0; i < sizeof bad_kinds / sizeof bad_kinds[0]; i++) {
    CHECK_INT(mc_kind_parse(bad_kinds[i], &k), MC_EINVAL);
  }
  CHECK_INT(k, MC_OWARE);
  mc_grand_slam g = MC_GS_CAPTURE;
  CHECK_INT(mc_grand_slam_parse("none", &g), MC_EINVAL);
  CHECK_INT(mc_grand_slam_parse("", &g), MC_EINVAL);
  CHECK_INT(mc_grand_slam_parse("Capture", &g), MC_EINVAL);
  CHECK_INT(g, MC_GS_CAPTURE);
  mc_reason re = MC_REASON_TIMEOUT;
  CHECK_INT(mc_reason_parse("nope", &re), MC_EINVAL);
  CHECK_INT(mc_reason_parse("", &re), MC_EINVAL);
  CHECK_INT(mc_reason_parse("No_seeds", &re), MC_EINVAL);
  CHECK_INT(re, MC_REASON_TIMEOUT);
}

/* Game functions: errors leave the game as it was (more in test_game.c). */
static void test_bad_game_calls(void) {
  mc_rules r = mk_rules(MC_CONGKAK, 7, 7);
  mc_game *g = mc_game_new(&r);
  CHECK(g != NULL);
  CHECK_INT(mc_game_play(g, 0, NULL), MC_EINVAL);
  CHECK_INT(mc_game_play(g, 8, NULL), MC_EINVAL);
  CHECK_INT(mc_game_ply(g), 0);
  CHECK_INT(mc_game_mover(g, 0), -1);
  CHECK_INT(mc_game_finish(g, MC_REASON_NONE, MC_WIN_SOUTH), MC_EINVAL);
  CHECK(!mc_game_over(g, NULL));
  CHECK_POS(mc_game_pos(g), "7 7 7 7 7 7 7 (0) 7 7 7 7 7 7 7 (0) south");
  mc_game_free(g);
}

/* Text parsers with outputs: a bad rules line in a replay or record gives no game. */
static void test_bad_text_calls(void) {
  mc_rules bad = mk_rules(MC_KALAH, 10, 4);
  static int dummy;
  mc_game *g = (mc_game *)&dummy;
  mc_text_error err;
  int rc = mc_moves_replay(&bad, "1", &g, &err);
  CHECK(rc == MC_EINVAL || rc == MC_ESYNTAX);
  CHECK(g == (mc_game *)&dummy);
}

int main(void) {
  test_bad_rules();
  test_bad_positions();
  test_bad_houses();
  test_bad_perft();
  test_bad_names();
  test_bad_game_calls();
  test_bad_text_calls();
  return check_exit("errors");
}
