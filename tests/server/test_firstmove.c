/* The start of a clocked game (no clock runs before the first move, which has a deadline of its
 * own) and the answers to offers a player sees: a declined draw offer. Rooms on the fake clock. */
#include "harness.h"

static char room[8];

static json_t *state_of(tclient *t) {
  return last_of(t, "state");
}

static json_t *first_move(tclient *t) {
  return json_object_get(state_of(t), "first_move");
}

static long long clock_ms(tclient *t, const char *seat) {
  char key[16];
  snprintf(key, sizeof key, "%s_ms", seat);
  return json_integer_value(json_object_get(json_object_get(state_of(t), "clock"), key));
}

static bool clock_stopped(tclient *t) {
  return json_is_null(json_object_get(json_object_get(state_of(t), "clock"), "running"));
}

/* A (South) and B in a Kalah room with extra create fields; sets room. */
static void start_pair(world *w, tclient *a, tclient *b, const char *extra) {
  connect_as(w, a, "Ana");
  connect_as(w, b, "Bob");
  ASSERT_EQ(runf(w, a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"%s}", extra), 0);
  snprintf(room, sizeof room, "%s", field_s(a, "joined", "room"));
  ASSERT_EQ(runf(w, b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
}

static int move(world *w, tclient *t, int house, int ply) {
  return runf(w, t, "{\"type\":\"move\",\"room\":\"%s\",\"house\":%d,\"ply\":%d}", room, house,
              ply);
}

TEST_IMPL(no_clock_before_the_first_move) {
  world w;
  world_init(&w, NULL);
  tclient a, b;
  start_pair(&w, &a, &b, ",\"clock\":{\"initial_ms\":180000,\"increment_ms\":2000}");
  /* 3+2: no clock runs; South has 30 s (SRV_FIRST_MOVE_MS, shorter than 3 minutes) to move. */
  ASSERT(clock_stopped(&b));
  ASSERT_STR_EQ(path_s(&b, "state", "first_move", "seat"), "south");
  ASSERT_EQ(json_integer_value(json_object_get(first_move(&b), "ms")), 30000);
  fake_advance(&w.time, 29999);
  ASSERT_STR_EQ(field_s(&a, "state", "status"), "playing");
  /* A state made meanwhile (a spectator arrives) shows the time left. */
  tclient s;
  connect_as(&w, &s, "Sue");
  ASSERT_EQ(runf(&w, &s, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", room), 0);
  ASSERT_EQ(json_integer_value(json_object_get(first_move(&s), "ms")), 1);
  ASSERT_EQ(clock_ms(&s, "south"), 180000);
  ASSERT_EQ(move(&w, &a, 1, 0), 0);
  /* The first move cost nothing and added nothing; North's own first move has its deadline now,
   * and no clock runs meanwhile. */
  ASSERT_EQ(clock_ms(&b, "south"), 180000);
  ASSERT_EQ(clock_ms(&b, "north"), 180000);
  ASSERT(clock_stopped(&b));
  ASSERT_STR_EQ(path_s(&b, "state", "first_move", "seat"), "north");
  ASSERT_EQ(json_integer_value(json_object_get(first_move(&b), "ms")), 30000);
  fake_advance(&w.time, 5000);
  ASSERT_EQ(move(&w, &b, 1, 1), 0);
  ASSERT_EQ(clock_ms(&a, "north"), 180000); /* North's first move is free as well. */
  ASSERT_STR_EQ(path_s(&a, "state", "clock", "running"), "south");
  ASSERT(json_is_null(first_move(&a)));
  fake_advance(&w.time, 1000);
  ASSERT_EQ(move(&w, &a, 2, 2), 0);
  ASSERT_EQ(clock_ms(&a, "south"), 181000); /* 180 - 1 + 2: from a side's second move, Fischer. */
  /* South's house 2 (5 seeds) ends in its store: an extra turn, its clock runs again. */
  ASSERT_STR_EQ(path_s(&a, "state", "clock", "running"), "south");
  fake_advance(&w.time, 3000);
  ASSERT_EQ(clock_ms(&a, "south"), 181000); /* As of the last state, made at the move. */
  ASSERT_EQ(move(&w, &a, 3, 3), 0);
  ASSERT_EQ(clock_ms(&a, "south"), 180000); /* 181 - 3 + 2 */
  disconnect(&w, &s);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

/* An aborted state: finished, a result with no winner and no score, no archive id, nothing
 * rated. */
static void assert_aborted(tclient *t) {
  json_t *st = state_of(t);
  ASSERT_STR_EQ(field_s(t, "state", "status"), "finished");
  json_t *res = json_object_get(st, "result");
  ASSERT(json_is_object(res));
  ASSERT_STR_EQ(json_string_value(json_object_get(res, "reason")), "aborted");
  ASSERT(json_is_null(json_object_get(res, "winner")));
  ASSERT(json_is_null(json_object_get(res, "score")));
  ASSERT(json_is_null(json_object_get(st, "game_id")));
  ASSERT(json_is_null(json_object_get(st, "rating_change")));
  ASSERT(json_is_null(json_object_get(st, "turn")));
  ASSERT(json_is_null(first_move(t)));
}

TEST_IMPL(first_move_deadline) {
  world w;
  world_init(&w, NULL);
  tclient a, b;
  /* The deadline is the initial time when that is shorter than 30 s. */
  start_pair(&w, &a, &b, ",\"clock\":{\"initial_ms\":10000}");
  ASSERT_EQ(json_integer_value(json_object_get(first_move(&a), "ms")), 10000);
  fake_advance(&w.time, 9999);
  ASSERT_STR_EQ(field_s(&a, "state", "status"), "playing");
  fake_advance(&w.time, 1);
  /* South never moved: the game is aborted, with nobody sending anything. Nobody lost. */
  assert_aborted(&b);
  assert_aborted(&a);
  ASSERT_EQ(clock_ms(&b, "south"), 10000); /* Its clock never ran. */
  ASSERT_EQ(move(&w, &a, 1, 0), SRV_EOVER);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", room), SRV_EOVER);

  /* A rematch works as after a finished game: the new South (Bob) with its own deadline. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), 0);
  ASSERT_STR_EQ(field_s(&a, "state", "status"), "playing");
  ASSERT(json_is_null(json_object_get(state_of(&a), "result")));
  ASSERT_EQ(json_integer_value(json_object_get(state_of(&a), "game_no")), 2);
  ASSERT(clock_stopped(&a));
  ASSERT_STR_EQ(path_s(&a, "state", "first_move", "seat"), "south");
  ASSERT_EQ(json_integer_value(json_object_get(first_move(&a), "ms")), 10000);
  /* A first move that reaches the server after the deadline, before the timer ran: aborted. */
  w.time.now += 10000;
  ASSERT_EQ(move(&w, &b, 1, 0), SRV_EOVER);
  assert_aborted(&a);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);

  /* Without a clock there is no deadline. */
  world_init(&w, NULL);
  start_pair(&w, &a, &b, "");
  ASSERT(json_is_null(first_move(&a)));
  fake_advance(&w.time, 3600000);
  ASSERT_STR_EQ(field_s(&a, "state", "status"), "playing");
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

/* The second side's first move has its deadline too: South moved, North never does. */
TEST_IMPL(second_first_move_deadline) {
  world w;
  world_init(&w, NULL);
  tclient a, b;
  /* 1+0: the deadline is 30 s. South thinks 20 s (free), then North's 30 s start. */
  start_pair(&w, &a, &b, ",\"clock\":{\"initial_ms\":60000}");
  fake_advance(&w.time, 20000);
  ASSERT_EQ(move(&w, &a, 3, 0), 0); /* Kalah house 3: four seeds, the last in the store. */
  /* An extra turn: South has moved, so its clock runs now, and North has no deadline yet. */
  ASSERT_STR_EQ(field_s(&a, "state", "turn"), "south");
  ASSERT_STR_EQ(path_s(&a, "state", "clock", "running"), "south");
  ASSERT(json_is_null(first_move(&a)));
  fake_advance(&w.time, 2000);
  ASSERT_EQ(move(&w, &a, 1, 1), 0);
  ASSERT_EQ(clock_ms(&b, "south"), 58000);
  ASSERT_STR_EQ(path_s(&b, "state", "first_move", "seat"), "north");
  ASSERT_EQ(json_integer_value(json_object_get(first_move(&b), "ms")), 30000);
  ASSERT(clock_stopped(&b));
  fake_advance(&w.time, 29999);
  ASSERT_STR_EQ(field_s(&b, "state", "status"), "playing");
  ASSERT_EQ(clock_ms(&b, "north"), 60000);
  fake_advance(&w.time, 1);
  /* North never moved: aborted, not a win for South on time. */
  assert_aborted(&a);
  assert_aborted(&b);
  ASSERT_EQ(clock_ms(&b, "north"), 60000);
  ASSERT_EQ(clock_ms(&b, "south"), 58000);
  ASSERT_EQ(move(&w, &b, 1, 2), SRV_EOVER);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

TEST_IMPL(draw_declined_is_shown) {
  world w;
  world_init(&w, NULL);
  tclient a, b;
  start_pair(&w, &a, &b, "");
  ASSERT(json_is_null(json_object_get(state_of(&a), "draw_declined")));
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"offer\"}", room), 0);
  ASSERT_STR_EQ(field_s(&b, "state", "draw_offer"), "south");
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"decline\"}", room), 0);
  /* The offerer sees that the offer was declined, not only that it is gone. */
  ASSERT(json_is_null(json_object_get(state_of(&a), "draw_offer")));
  ASSERT_STR_EQ(field_s(&a, "state", "draw_declined"), "south");
  ASSERT_STR_EQ(field_s(&b, "state", "draw_declined"), "south");
  /* It stays until the next move. */
  ASSERT_EQ(move(&w, &a, 1, 0), 0);
  ASSERT(json_is_null(json_object_get(state_of(&a), "draw_declined")));

  /* A new offer clears the last answer; moving instead of answering declines it. North 1 (4
   * seeds: North 2..5) leaves South to move. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"offer\"}", room), 0);
  ASSERT(json_is_null(json_object_get(state_of(&a), "draw_declined")));
  ASSERT_STR_EQ(field_s(&b, "state", "draw_offer"), "south");
  ASSERT_EQ(move(&w, &b, 1, 1), 0);
  ASSERT(json_is_null(json_object_get(state_of(&a), "draw_offer")));
  ASSERT_STR_EQ(field_s(&a, "state", "draw_declined"), "south");
  /* South 3 (5 seeds: South 4..6, the store, North 1) leaves North to move; North offers. */
  ASSERT_EQ(move(&w, &a, 3, 2), 0);
  ASSERT_STR_EQ(field_s(&a, "state", "turn"), "north");
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"offer\"}", room), 0);
  ASSERT_STR_EQ(field_s(&a, "state", "draw_offer"), "north");
  /* The offerer's own move keeps its offer, and nothing was declined. */
  ASSERT_EQ(move(&w, &b, 2, 3), 0);
  ASSERT_STR_EQ(field_s(&a, "state", "draw_offer"), "north");
  ASSERT(json_is_null(json_object_get(state_of(&a), "draw_declined")));
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}
