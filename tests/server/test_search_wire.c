/* Search jobs and answers as data (srv_search_wire.c), the form the server's queue over Redis
 * Streams and mancala-worker share: a job written and read back is the same game at the same
 * position (its moves replayed, the repetition history with them), a job whose moves, ply or
 * hash do not agree is refused, an answer written and read back is the same result, and what is
 * not a job or an answer is refused without a crash.
 *
 * The hashes are FNV-1a 64 of the position's text and the ply's 8 bytes (little end first),
 * computed apart from this code (Python's own loop over the bytes) for the positions written out
 * by hand below. */
#include <stdlib.h>
#include <string.h>

#include "mc_error.h"
#include "mc_text.h"
#include "srv_search_wire.h"
#include "task.h"

/* Kalah 6x4 at its start: "4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) south", ply 0. */
#define START_HASH UINT64_C(0x26d4f6fc3f82cc8a)
/* After South's house 3: 4 seeds into houses 4, 5, 6 and the store, an extra turn:
 * "4 4 0 5 5 5 (1) 4 4 4 4 4 4 (0) south", ply 1. */
#define AFTER3_HASH UINT64_C(0xe54f67c4320f5b6d)

static mc_game *kalah(const char *moves) {
  mc_rules rules;
  ASSERT_EQ(mc_rules_init(&rules, MC_KALAH), 0);
  mc_game *g = NULL;
  ASSERT_EQ(mc_moves_replay(&rules, moves, &g, NULL), 0);
  return g;
}

static srv_search_wire_job job_for(int level, long ms) {
  srv_search_wire_job j;
  memset(&j, 0, sizeof j);
  strcpy(j.id, "00ff00ff00ff00ff-7");
  strcpy(j.reply, "mancala:search:reply:00ff00ff00ff00ff");
  strcpy(j.game, "ABC234");
  j.level = level;
  j.ms = ms;
  j.seed = UINT64_C(0x0123456789abcdef);
  j.stream = SRV_SEARCH_STREAM_DEEP;
  return j;
}

TEST_IMPL(hash_of_known_positions) {
  mc_game *g = kalah("");
  ASSERT_EQ(srv_search_wire_hash(g), START_HASH);
  ASSERT_EQ(mc_game_play(g, 3, NULL), 0);
  ASSERT_EQ(srv_search_wire_hash(g), AFTER3_HASH);
  mc_game_free(g);
  return 0;
}

TEST_IMPL(job_round_trip) {
  mc_game *g = kalah("3 1");
  srv_search_wire_job j = job_for(6, 400);
  j.max_ms = 1000;
  j.target_ms = 2000;
  j.floor_ms = 5;
  char *text = srv_search_wire_job_encode(&j, g);
  ASSERT_NOT_NULL(text);
  ASSERT_EQ(j.ply, 2u);
  ASSERT(strstr(text, "\"moves\":\"3 1\"") != NULL);
  ASSERT(strstr(text, "\"lane\":\"deep\"") != NULL);
  ASSERT(strstr(text, "\"seed\":\"0123456789abcdef\"") != NULL);
  srv_search_wire_job back;
  mc_game *g2 = NULL;
  ASSERT_EQ(srv_search_wire_job_decode(text, strlen(text), &back, &g2), 0);
  ASSERT_NOT_NULL(g2);
  ASSERT_STR_EQ(back.id, j.id);
  ASSERT_STR_EQ(back.reply, j.reply);
  ASSERT_STR_EQ(back.game, "ABC234");
  ASSERT_EQ(back.ply, 2u);
  ASSERT_EQ(back.hash, j.hash);
  ASSERT_EQ(back.level, 6);
  ASSERT_EQ(back.ms, 400);
  ASSERT_EQ(back.max_ms, 1000);
  ASSERT_EQ(back.target_ms, 2000);
  ASSERT_EQ(back.floor_ms, 5);
  ASSERT_EQ(back.seed, UINT64_C(0x0123456789abcdef));
  ASSERT_EQ(back.stream, SRV_SEARCH_STREAM_DEEP);
  ASSERT_EQ(mc_game_ply(g2), 2u);
  ASSERT(mc_pos_same(mc_game_pos(g2), mc_game_pos(g)));
  size_t n1, n2;
  mc_game_history(g, &n1);
  mc_game_history(g2, &n2);
  ASSERT_EQ(n1, n2);
  free(text);
  mc_game_free(g2);
  mc_game_free(g);
  return 0;
}

/* Replaces the first occurrence of from in text by to (a new string). */
static char *edit(const char *text, const char *from, const char *to) {
  const char *at = strstr(text, from);
  ASSERT_NOT_NULL(at);
  size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
  char *out = malloc(n);
  ASSERT_NOT_NULL(out);
  memcpy(out, text, (size_t)(at - text));
  strcpy(out + (at - text), to);
  strcat(out, at + strlen(from));
  return out;
}

static int decode_rc(const char *text) {
  srv_search_wire_job j;
  mc_game *g = (mc_game *)&j; /* Set to NULL on any error. */
  int rc = srv_search_wire_job_decode(text, strlen(text), &j, &g);
  if (rc != 0)
    ASSERT(g == NULL);
  mc_game_free(g);
  return rc;
}

TEST_IMPL(job_refused) {
  mc_game *g = kalah("3");
  srv_search_wire_job j = job_for(5, 300);
  char *text = srv_search_wire_job_encode(&j, g);
  ASSERT_NOT_NULL(text);
  ASSERT_EQ(j.hash, AFTER3_HASH);
  ASSERT_EQ(decode_rc(text), 0);
  ASSERT(strstr(text, "max_ms") == NULL); /* No policy: the worker keeps ms. */
  struct {
    const char *from, *to;
    int rc;
  } cases[] = {
      {"\"moves\":\"3\"", "\"moves\":\"3 3\"", MC_EILLEGAL}, /* House 3 is empty after it. */
      {"\"moves\":\"3\"", "\"moves\":\"4\"", MC_EINVAL},     /* Another position at ply 1. */
      {"\"ply\":1", "\"ply\":2", MC_EINVAL},
      {"\"hash\":\"e54f67c4320f5b6d\"", "\"hash\":\"e54f67c4320f5b6e\"", MC_EINVAL},
      {"\"hash\":\"e54f67c4320f5b6d\"", "\"hash\":\"E54F67C4320F5B6D\"", MC_ESYNTAX},
      {"\"level\":5", "\"level\":7", MC_ESYNTAX},
      {"\"level\":5", "\"level\":\"5\"", MC_ESYNTAX},
      {"\"ms\":300", "\"ms\":0", MC_ESYNTAX},
      {"\"lane\":\"deep\"", "\"lane\":\"slow\"", MC_ESYNTAX},
      {"\"v\":1", "\"v\":2", MC_ESYNTAX},
      {"\"rules\":\"", "\"rules\":\"chess ", MC_ESYNTAX},
      {"\"id\":\"00ff00ff00ff00ff-7\"", "\"id\":\"\"", MC_ESYNTAX},
      {"{", "[", MC_ESYNTAX},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *bad = edit(text, cases[i].from, cases[i].to);
    ASSERT_EQ(decode_rc(bad), cases[i].rc);
    free(bad);
  }
  ASSERT_EQ(decode_rc("{}"), MC_ESYNTAX);
  ASSERT_EQ(decode_rc("not json"), MC_ESYNTAX);
  ASSERT_EQ(decode_rc(""), MC_ESYNTAX);
  /* A policy must come whole. */
  char *partial = edit(text, "\"ms\":300", "\"ms\":300,\"max_ms\":1000");
  ASSERT_EQ(decode_rc(partial), MC_ESYNTAX);
  free(partial);
  /* Without a game asked for, the fields alone. */
  srv_search_wire_job back;
  ASSERT_EQ(srv_search_wire_job_decode(text, strlen(text), &back, NULL), 0);
  ASSERT_EQ(back.ply, 1u);
  free(text);
  mc_game_free(g);
  return 0;
}

TEST_IMPL(answer_round_trip) {
  srv_search_wire_answer a;
  memset(&a, 0, sizeof a);
  strcpy(a.id, "00ff00ff00ff00ff-7");
  strcpy(a.game, "ABC234");
  a.ply = 12;
  a.hash = UINT64_C(0xfedcba9876543210);
  strcpy(a.worker, "box-1234");
  a.tries = 2;
  a.res.move = 4;
  a.res.best = 5;
  a.res.value = -250;
  a.res.exact = true;
  a.res.depth = 17;
  a.res.nodes = UINT64_C(123456789012);
  a.res.time_ms = 987;
  a.res.stopped = true;
  a.res.pv_len = 3;
  a.res.pv[0] = 5;
  a.res.pv[1] = 2;
  a.res.pv[2] = 6;
  a.res.nmoves = 2;
  a.res.moves[0] = (mc_move_value){4, false, true, -300};
  a.res.moves[1] = (mc_move_value){5, true, true, -250};
  a.overhead_ms = 7;
  a.budget_ms = 333;
  char *text = srv_search_wire_answer_encode(&a);
  ASSERT_NOT_NULL(text);
  ASSERT(strstr(text, "\"pv\":\"5 2 6\"") != NULL);
  srv_search_wire_answer b;
  ASSERT_EQ(srv_search_wire_answer_decode(text, strlen(text), &b), 0);
  ASSERT_STR_EQ(b.id, a.id);
  ASSERT_STR_EQ(b.game, "ABC234");
  ASSERT_STR_EQ(b.worker, "box-1234");
  ASSERT_EQ(b.ply, 12u);
  ASSERT_EQ(b.hash, a.hash);
  ASSERT_EQ(b.tries, 2);
  ASSERT_STR_EQ(b.error, "");
  ASSERT_EQ(b.res.move, 4);
  ASSERT_EQ(b.res.best, 5);
  ASSERT_EQ(b.res.value, -250);
  ASSERT(b.res.exact);
  ASSERT_EQ(b.res.depth, 17);
  ASSERT_EQ(b.res.nodes, UINT64_C(123456789012));
  ASSERT_EQ(b.res.time_ms, 987);
  ASSERT(b.res.stopped);
  ASSERT_EQ(b.res.pv_len, 3);
  ASSERT_EQ(b.res.pv[2], 6);
  ASSERT_EQ(b.res.nmoves, 2);
  ASSERT_EQ(b.res.moves[0].value, -300);
  ASSERT(!b.res.moves[0].exact);
  ASSERT(b.res.moves[1].exact);
  ASSERT_EQ(b.overhead_ms, 7);
  ASSERT_EQ(b.budget_ms, 333);
  free(text);
  /* The swap of the pie rule is a move too. */
  a.res.move = a.res.best = MC_SWAP;
  text = srv_search_wire_answer_encode(&a);
  ASSERT_EQ(srv_search_wire_answer_decode(text, strlen(text), &b), 0);
  ASSERT_EQ(b.res.move, MC_SWAP);
  free(text);
  /* An error answer carries no move. */
  strcpy(a.error, "tried 3 times: its workers stopped");
  a.tries = SRV_SEARCH_MAX_TRIES + 1;
  text = srv_search_wire_answer_encode(&a);
  ASSERT(strstr(text, "\"move\"") == NULL);
  ASSERT_EQ(srv_search_wire_answer_decode(text, strlen(text), &b), 0);
  ASSERT_STR_EQ(b.error, "tried 3 times: its workers stopped");
  ASSERT_EQ(b.tries, 4);
  free(text);
  return 0;
}

TEST_IMPL(analysis_answer_round_trip) {
  /* An analysis of two plies: South's swap-free house 3 (best, proven +2 seeds, its line "3 1"),
   * then North's house 6 that lost a seed against the swap (the pie rule's move 255). */
  mc_ply_eval plies[2];
  memset(plies, 0, sizeof plies);
  plies[0] = (mc_ply_eval){.mover = MC_SOUTH,
                           .played = 3,
                           .best = 3,
                           .depth = 12,
                           .exact = true,
                           .played_known = true,
                           .played_exact = true,
                           .value = 200,
                           .played_value = 200,
                           .pv_len = 2,
                           .pv = {3, 1}};
  plies[1] = (mc_ply_eval){.mover = MC_NORTH,
                           .played = 6,
                           .best = MC_SWAP,
                           .depth = 9,
                           .played_known = true,
                           .value = -150,
                           .played_value = -250,
                           .pv_len = 1,
                           .pv = {MC_SWAP}};
  srv_search_wire_answer a;
  memset(&a, 0, sizeof a);
  strcpy(a.id, "00ff00ff00ff00ff-8");
  strcpy(a.game, "game 17");
  a.ply = 2;
  a.hash = UINT64_C(0x0123456789abcdef);
  strcpy(a.worker, "box-1");
  a.tries = 1;
  a.budget_ms = 150;
  a.plies = plies;
  a.nplies = 2;
  char *text = srv_search_wire_answer_encode(&a);
  ASSERT_NOT_NULL(text);
  ASSERT(strstr(text, "\"move\"") == NULL);
  ASSERT(strstr(text, "[0,3,3,12,true,true,true,200,200,\"3 1\"]") != NULL);
  ASSERT(strstr(text, "[1,6,255,9,false,true,false,-150,-250,\"swap\"]") != NULL);
  srv_search_wire_answer b;
  ASSERT_EQ(srv_search_wire_answer_decode(text, strlen(text), &b), 0);
  free(text);
  ASSERT_STR_EQ(b.game, "game 17");
  ASSERT_EQ(b.nplies, 2u);
  ASSERT_NOT_NULL(b.plies);
  ASSERT_EQ(b.budget_ms, 150);
  for (int i = 0; i < 2; i++) {
    const mc_ply_eval *x = &plies[i], *y = &b.plies[i];
    ASSERT(x->mover == y->mover && x->played == y->played && x->best == y->best);
    ASSERT(x->depth == y->depth && x->exact == y->exact && x->played_known == y->played_known);
    ASSERT(x->played_exact == y->played_exact && x->value == y->value);
    ASSERT(x->played_value == y->played_value && x->pv_len == y->pv_len);
    ASSERT_EQ(memcmp(x->pv, y->pv, x->pv_len), 0);
  }
  srv_search_wire_answer_dispose(&b);
  ASSERT(b.plies == NULL && b.nplies == 0);
  /* A game without moves: an empty analysis. */
  a.nplies = 0;
  text = srv_search_wire_answer_encode(&a);
  ASSERT(strstr(text, "\"plies\":[]") != NULL);
  ASSERT_EQ(srv_search_wire_answer_decode(text, strlen(text), &b), 0);
  ASSERT_EQ(b.nplies, 0u);
  srv_search_wire_answer_dispose(&b);
  free(text);
  /* Plies that are not ones: refused, nothing left to free. */
  static const char *bad[] = {
      "[[0,3,3,12,true,true,true,200,200]]",         /* A field missing. */
      "[[2,3,3,12,true,true,true,200,200,\"\"]]",    /* No such seat. */
      "[[0,10,3,12,true,true,true,200,200,\"\"]]",   /* A house out of 1..9. */
      "[[0,3,0,12,true,true,true,200,200,\"\"]]",    /* No best move. */
      "[[0,3,3,256,true,true,true,200,200,\"\"]]",   /* A depth out of 0..255. */
      "[[0,3,3,12,1,true,true,200,200,\"\"]]",       /* Not a boolean. */
      "[[0,3,3,12,true,true,true,200,200,\"3 x\"]]", /* Not a line. */
      "{\"0\":1}",                                   /* Not an array. */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char buf[512];
    snprintf(buf, sizeof buf,
             "{\"v\":1,\"id\":\"a-1\",\"game\":\"G\",\"ply\":1,\"hash\":\"0000000000000000\","
             "\"worker\":\"w\",\"try\":1,\"plies\":%s}",
             bad[i]);
    memset(&b, 0, sizeof b);
    ASSERT_EQ(srv_search_wire_answer_decode(buf, strlen(buf), &b), MC_ESYNTAX);
    ASSERT(b.plies == NULL);
  }
  return 0;
}

TEST_IMPL(answer_refused) {
  static const char *bad[] = {
      "",
      "[]",
      "{\"v\":1}",
      /* A move out of 1..9 (not the swap). */
      "{\"v\":1,\"id\":\"a-1\",\"game\":\"G\",\"ply\":0,\"hash\":\"0000000000000000\","
      "\"worker\":\"w\",\"try\":1,\"move\":10,\"best\":1,\"value\":0,\"exact\":false,"
      "\"depth\":1,\"nodes\":1,\"time_ms\":1,\"stopped\":false,\"pv\":\"\",\"values\":[]}",
      /* Try 0. */
      "{\"v\":1,\"id\":\"a-1\",\"game\":\"G\",\"ply\":0,\"hash\":\"0000000000000000\","
      "\"worker\":\"w\",\"try\":0,\"move\":1,\"best\":1,\"value\":0,\"exact\":false,"
      "\"depth\":1,\"nodes\":1,\"time_ms\":1,\"stopped\":false,\"pv\":\"\",\"values\":[]}",
      /* A principal variation that is no move list. */
      "{\"v\":1,\"id\":\"a-1\",\"game\":\"G\",\"ply\":0,\"hash\":\"0000000000000000\","
      "\"worker\":\"w\",\"try\":1,\"move\":1,\"best\":1,\"value\":0,\"exact\":false,"
      "\"depth\":1,\"nodes\":1,\"time_ms\":1,\"stopped\":false,\"pv\":\"x\",\"values\":[]}",
      /* A value of a move that is not [move, value, exact, known]. */
      "{\"v\":1,\"id\":\"a-1\",\"game\":\"G\",\"ply\":0,\"hash\":\"0000000000000000\","
      "\"worker\":\"w\",\"try\":1,\"move\":1,\"best\":1,\"value\":0,\"exact\":false,"
      "\"depth\":1,\"nodes\":1,\"time_ms\":1,\"stopped\":false,\"pv\":\"\",\"values\":[[1,2]]}",
      /* A negative overhead. */
      "{\"v\":1,\"id\":\"a-1\",\"game\":\"G\",\"ply\":0,\"hash\":\"0000000000000000\","
      "\"worker\":\"w\",\"try\":1,\"move\":1,\"best\":1,\"value\":0,\"exact\":false,"
      "\"depth\":1,\"nodes\":1,\"time_ms\":1,\"stopped\":false,\"pv\":\"\",\"values\":[],"
      "\"overhead_ms\":-1}",
      /* An empty error. */
      "{\"v\":1,\"id\":\"a-1\",\"game\":\"G\",\"ply\":0,\"hash\":\"0000000000000000\","
      "\"worker\":\"w\",\"try\":1,\"error\":\"\"}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    srv_search_wire_answer a;
    ASSERT_EQ(srv_search_wire_answer_decode(bad[i], strlen(bad[i]), &a), MC_ESYNTAX);
  }
  /* Without an overhead (an older worker): none. */
  static const char *plain =
      "{\"v\":1,\"id\":\"a-1\",\"game\":\"G\",\"ply\":0,\"hash\":\"0000000000000000\","
      "\"worker\":\"w\",\"try\":1,\"move\":1,\"best\":0,\"value\":0,\"exact\":false,"
      "\"depth\":1,\"nodes\":1,\"time_ms\":1,\"stopped\":false,\"pv\":\"\",\"values\":[]}";
  srv_search_wire_answer p;
  ASSERT_EQ(srv_search_wire_answer_decode(plain, strlen(plain), &p), 0);
  ASSERT_EQ(p.overhead_ms, 0);
  ASSERT_EQ(p.res.best, 0);
  return 0;
}
