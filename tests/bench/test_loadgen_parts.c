/* The load generator's parts: the frame scanner (lg_json), the latency histogram (lg_hist) and
 * the timer heap (lg_timer). The expected values are worked out by hand in the comments. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lg_hist.h"
#include "lg_json.h"
#include "lg_timer.h"

static lg_msg m;

/* Scans text from a heap copy of exactly its length, so that AddressSanitizer catches a read
 * past the end. */
static int scan(const char *text) {
  size_t n = strlen(text);
  char *copy = malloc(n ? n : 1);
  memcpy(copy, text, n);
  int rc = lg_json_scan(copy, n, &m);
  /* Spans point into the copy: keep what the checks read in static storage. */
  static char type[32], room[32], status[32], turn[32], code[32], seat[32];
  struct {
    lg_span *s;
    char *dst;
  } keep[] = {{&m.type, type}, {&m.room, room}, {&m.status, status},
              {&m.turn, turn}, {&m.code, code}, {&m.seat, seat}};
  for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
    if (keep[i].s->s != NULL && keep[i].s->n < 32) {
      memcpy(keep[i].dst, keep[i].s->s, keep[i].s->n);
      keep[i].dst[keep[i].s->n] = '\0';
      keep[i].s->s = keep[i].dst;
    }
  }
  free(copy);
  return rc;
}

static const char *str(lg_span s) {
  return s.s;
}

/* mancala-server's state after the first move of Kalah 6x4 (captured from the server): South
 * played house 1, so North is to move at ply 1 with every house playable. */
static const char state_ply1[] =
    "{\"type\":\"state\",\"room\":\"6J9ZNA\",\"game\":\"kalah\",\"houses\":6,\"seeds\":4,"
    "\"options\":{\"empty_capture\":false},\"status\":\"playing\",\"ply\":1,\"turn\":\"north\","
    "\"pits\":[0,5,5,5,5,4,0,4,4,4,4,4,4,0],\"legal\":[1,2,3,4,5,6],\"you\":\"both\","
    "\"players\":{\"south\":{\"id\":\"398809f0f95501dc\",\"name\":\"x\",\"connected\":true,"
    "\"computer\":false},\"north\":{\"id\":\"398809f0f95501dc\",\"name\":\"x\",\"connected\":true,"
    "\"computer\":false}},\"clock\":null,\"last\":{\"seat\":\"south\",\"house\":1,\"trace\":[{"
    "\"kind\":\"pick\",\"pit\":0,\"count\":4},{\"kind\":\"sow\",\"pit\":1},{\"kind\":\"sow\","
    "\"pit\":2},{\"kind\":\"sow\",\"pit\":3},{\"kind\":\"sow\",\"pit\":4}]},\"result\":null,"
    "\"visibility\":\"public\",\"local\":true,\"game_no\":1,\"game_id\":null,\"spectators\":0,"
    "\"round\":1,\"burnt\":[],\"moves\":[{\"seat\":\"south\",\"house\":1}],\"draw_offer\":null,"
    "\"rematch\":{\"south\":false,\"north\":false},\"abandon\":null}";

static void test_scan_state(void) {
  CHECK_INT(scan(state_ply1), 0);
  CHECK_STR(str(m.type), "state");
  CHECK_STR(str(m.room), "6J9ZNA");
  CHECK_STR(str(m.status), "playing");
  CHECK_STR(str(m.turn), "north");
  CHECK(m.has_ply);
  CHECK_INT(m.ply, 1);
  CHECK(m.has_legal);
  CHECK_INT(m.nlegal, 6);
  for (int i = 0; i < 6; i++)
    CHECK_INT(m.legal[i], i + 1);
  /* "seat" appears only inside last and moves: not a top-level field. */
  CHECK(m.seat.s == NULL);
  CHECK(m.code.s == NULL);
  CHECK(!m.has_features);
}

static void test_scan_order_and_nesting(void) {
  /* Fields in another order, decoys nested in objects, arrays and strings, and null turn: a
   * finished game at ply 12 with nothing legal. */
  CHECK_INT(scan("{\"moves\":[{\"seat\":\"south\",\"house\":3,\"ply\":99}],"
                 "\"players\":{\"south\":{\"name\":\"a \\\"ply\\\": 9 } [\",\"type\":\"x\"}},"
                 "\"legal\":[],\"ply\":12,\"turn\":null,\"type\":\"state\","
                 "\"room\":\"ABCDEF\",\"status\":\"finished\"}"),
            0);
  CHECK_STR(str(m.type), "state");
  CHECK_INT(m.ply, 12);
  CHECK(m.has_legal);
  CHECK_INT(m.nlegal, 0);
  CHECK(m.turn.s == NULL); /* null is not a string. */
  CHECK(m.seat.s == NULL);
  CHECK_STR(str(m.status), "finished");
  CHECK_STR(str(m.room), "ABCDEF");

  /* Whitespace around every token. */
  CHECK_INT(scan(" { \"type\" : \"state\" ,\n\"ply\" :\t3 , \"legal\" : [ 4 , 2 ] } "), 0);
  CHECK_INT(m.ply, 3);
  CHECK_INT(m.nlegal, 2);
  CHECK_INT(m.legal[0], 4);
  CHECK_INT(m.legal[1], 2);

  /* The other frames loadgen reads. */
  CHECK_INT(scan("{\"type\":\"error\",\"id\":7,\"code\":\"stale\",\"message\":\"The move's ply is "
                 "not the current ply.\",\"request\":\"move\"}"),
            0);
  CHECK_STR(str(m.type), "error");
  CHECK_STR(str(m.code), "stale");
  CHECK(!m.has_ply);
  CHECK_INT(scan("{\"type\":\"joined\",\"room\":\"K7QX2M\",\"role\":\"player\",\"seat\":\"both\"}"),
            0);
  CHECK_STR(str(m.seat), "both");
  CHECK_STR(str(m.room), "K7QX2M");
  CHECK_INT(scan("{\"type\":\"welcome\",\"player\":\"p\",\"protocol\":1,\"resumed\":false,"
                 "\"features\":{\"computer\":false,\"local\":true},\"limits\":{\"frame_bytes\":"
                 "4096}}"),
            0);
  CHECK(m.has_features);
  CHECK_INT(scan("{}"), 0);
  CHECK(m.type.s == NULL);
}

static void test_scan_types(void) {
  /* Wanted fields of the wrong type count as absent; the frame is still well formed. */
  CHECK_INT(scan("{\"type\":\"state\",\"ply\":\"3\",\"legal\":[1.5,2],\"turn\":7}"), 0);
  CHECK(!m.has_ply);
  CHECK(!m.has_legal);
  CHECK(m.turn.s == NULL);
  CHECK_INT(scan("{\"type\":\"state\",\"ply\":1e3}"), 0);
  CHECK(!m.has_ply);
  CHECK_INT(scan("{\"type\":\"state\",\"ply\":-4}"), 0);
  CHECK_INT(m.ply, -4);
  /* More legal houses than kept: the first LG_LEGAL_MAX (16) of 18. */
  CHECK_INT(scan("{\"legal\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18]}"), 0);
  CHECK_INT(m.nlegal, LG_LEGAL_MAX);
  CHECK_INT(m.legal[15], 16);
  /* Escapes inside a wanted string are kept as they are. */
  CHECK_INT(scan("{\"type\":\"chat\",\"room\":\"a\\\"b\\\\\"}"), 0);
  CHECK_STR(str(m.type), "chat");
  CHECK_STR(str(m.room), "a\\\"b\\\\");
}

static void test_scan_malformed(void) {
  const char *bad[] = {
      "",
      "   ",
      "[]",
      "\"state\"",
      "{",
      "{\"type\":\"state\"",
      "{\"type\":\"state\",}",
      "{\"type\" \"state\"}",
      "{\"type\":}",
      "{\"type\":\"state\"} x",
      "{\"type\":\"sta",
      "{\"type\":\"a\nb\"}",  /* A raw control character in a string. */
      "{\"a\":[1,2}",         /* Brackets that do not close. */
      "{\"a\":{\"b\":[1,2]}", /* An object that does not close. */
      "{\"type\":\"state\",\"ply\":}",
      "{\"type\":\"x\\",
      "{type:\"state\"}",
      "{\"a\":@}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    if (scan(bad[i]) != -1)
      fprintf(stderr, "accepted: %s\n", bad[i]);
    CHECK_INT(scan(bad[i]), -1);
  }
  /* No prefix of a frame is a frame: every cut of the real state fails, within the buffer. */
  size_t n = strlen(state_ply1);
  int accepted = 0;
  for (size_t cut = 0; cut < n; cut++) {
    char *copy = malloc(cut ? cut : 1);
    memcpy(copy, state_ply1, cut);
    accepted += lg_json_scan(copy, cut, &m) == 0;
    free(copy);
  }
  CHECK_INT(accepted, 0);
}

static void test_hist(void) {
  lg_hist *h = malloc(sizeof *h);
  lg_hist_reset(h);
  CHECK_INT(lg_hist_quantile(h, 0.5), 0);
  /* 1..100: below 128 every value has its own bucket, so quantiles are exact: the 50th of 100
   * values is 50, the 99th is 99, and q = 1 is the maximum. */
  for (uint64_t v = 1; v <= 100; v++)
    lg_hist_add(h, v);
  CHECK_INT(h->count, 100);
  CHECK_INT(h->min, 1);
  CHECK_INT(h->max, 100);
  CHECK_INT(h->sum, 5050);
  CHECK_INT(lg_hist_quantile(h, 0.5), 50);
  CHECK_INT(lg_hist_quantile(h, 0.99), 99);
  CHECK_INT(lg_hist_quantile(h, 0.001), 1); /* Rank 0.1 rounds up to the first value. */
  CHECK_INT(lg_hist_quantile(h, 1.0), 100);

  /* 1000 = 0b1111101000: its top bit is 2^9, so its bucket is 8 wide (2^9 / 64), holding
   * 1000..1007. The median of {1000, 5000} is the first value, reported as its bucket's top. */
  lg_hist_reset(h);
  lg_hist_add(h, 1000);
  lg_hist_add(h, 5000);
  CHECK_INT(lg_hist_quantile(h, 0.5), 1007);
  /* Never above the true maximum: a single 1000 reports 1000. */
  lg_hist_reset(h);
  lg_hist_add(h, 1000);
  CHECK_INT(lg_hist_quantile(h, 0.5), 1000);

  /* For any value, the reported figure is at or above it and within 1/64 of it. */
  int out_of_bounds = 0;
  for (uint64_t v = 1; v < (1ull << 40); v = v * 3 / 2 + 7) {
    lg_hist_reset(h);
    lg_hist_add(h, v);
    lg_hist_add(h, UINT64_MAX / 2);
    uint64_t top = lg_hist_quantile(h, 0.5);
    if (top < v || top > v + v / 64)
      out_of_bounds++;
  }
  CHECK_INT(out_of_bounds, 0);
  free(h);
}

static void test_timers(void) {
  lg_timers t;
  CHECK_INT(lg_timers_init(&t, 5), 0);
  lg_timer e[6];
  memset(e, 0, sizeof e);
  uint64_t due[5] = {50, 10, 40, 20, 30};
  for (int i = 0; i < 5; i++)
    CHECK_INT(lg_timers_arm(&t, &e[i], due[i]), 0);
  CHECK_INT(lg_timers_arm(&t, &e[5], 1), -1); /* Full: cap is 5. */
  CHECK(!lg_timer_armed(&e[5]));
  CHECK(lg_timers_first(&t) == &e[1]);
  lg_timers_disarm(&t, &e[1]);
  CHECK(!lg_timer_armed(&e[1]));
  CHECK(lg_timers_first(&t) == &e[3]);       /* 20 */
  CHECK_INT(lg_timers_arm(&t, &e[2], 5), 0); /* 40 moves to 5. */
  CHECK(lg_timers_first(&t) == &e[2]);
  CHECK_INT(lg_timers_arm(&t, &e[2], 45), 0); /* and back, after 30. */
  /* Left: e0 50, e2 45, e3 20, e4 30: they come out 20, 30, 45, 50. */
  lg_timer *order[] = {&e[3], &e[4], &e[2], &e[0]};
  for (int i = 0; i < 4; i++) {
    CHECK(lg_timers_first(&t) == order[i]);
    lg_timers_disarm(&t, lg_timers_first(&t));
  }
  CHECK(lg_timers_first(&t) == NULL);
  lg_timers_disarm(&t, &e[0]); /* Not armed: nothing. */
  lg_timers_free(&t);

  /* Random arms, re-arms and disarms against a linear scan for the earliest. */
  enum { N = 200 };
  lg_timer r[N];
  memset(r, 0, sizeof r);
  CHECK_INT(lg_timers_init(&t, N), 0);
  uint64_t s = 12345;
  int wrong = 0;
  for (int step = 0; step < 20000; step++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    int i = (int)((s >> 33) % N);
    if ((s >> 20) % 4 == 0)
      lg_timers_disarm(&t, &r[i]);
    else
      lg_timers_arm(&t, &r[i], (s >> 40) % 1000);
    const lg_timer *best = NULL;
    for (int k = 0; k < N; k++)
      if (lg_timer_armed(&r[k]) && (best == NULL || r[k].due < best->due))
        best = &r[k];
    const lg_timer *first = lg_timers_first(&t);
    if ((best == NULL) != (first == NULL) || (best != NULL && first->due != best->due))
      wrong++;
  }
  CHECK_INT(wrong, 0);
  lg_timers_free(&t);
}

int main(void) {
  test_scan_state();
  test_scan_order_and_nesting();
  test_scan_types();
  test_scan_malformed();
  test_hist();
  test_timers();
  return check_exit("loadgen parts");
}
