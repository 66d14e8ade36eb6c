/* The pie rule in a room (rule book, option `pie`; docs/protocol.md, "The pie rule"): the swap
 * moves the players to the other seats with their clocks, is final for takebacks, and is refused
 * when it is not the moment; and the stored clocks read back by player. Rooms on the fake clock.
 *
 * Kalah 6x4 with pie, worked by hand (pits: South 1..6, store, North 1..6, store):
 *   ply 0 South 3: 4 seeds to South 4..6 and the store: an extra turn (South's first move: free).
 *   ply 1 South 6: 5 seeds to the store and North 1..4; North to move (before North's first move
 *         no clock runs).
 *   ply 2 North swaps: Bob now holds South, Ana North; North (Ana) to move.
 *   ply 3 North 1: 5 seeds to North 2..6. */
#include "harness.h"

#include "mc_game.h"
#include "srv_store.h"

static char room[8];

static json_t *state_of(tclient *t) {
  return last_of(t, "state");
}

static long long clock_ms(tclient *t, const char *seat) {
  char key[16];
  snprintf(key, sizeof key, "%s_ms", seat);
  return json_integer_value(json_object_get(json_object_get(state_of(t), "clock"), key));
}

static const char *player_name(tclient *t, const char *seat) {
  json_t *p = json_object_get(json_object_get(state_of(t), "players"), seat);
  return json_string_value(json_object_get(p, "name"));
}

static int move(world *w, tclient *t, int house, int ply) {
  return runf(w, t, "{\"type\":\"move\",\"room\":\"%s\",\"house\":%d,\"ply\":%d}", room, house,
              ply);
}

static int swap(world *w, tclient *t, int ply) {
  return runf(w, t, "{\"type\":\"move\",\"room\":\"%s\",\"swap\":true,\"ply\":%d}", room, ply);
}

static int takeback(world *w, tclient *t) {
  return runf(w, t, "{\"type\":\"takeback\",\"room\":\"%s\",\"action\":\"offer\"}", room);
}

static void start_pair(world *w, tclient *a, tclient *b, const char *extra) {
  connect_as(w, a, "Ana");
  connect_as(w, b, "Bob");
  ASSERT_EQ(runf(w, a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"%s}", extra), 0);
  snprintf(room, sizeof room, "%s", field_s(a, "joined", "room"));
  ASSERT_EQ(runf(w, b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
}

TEST_IMPL(swap_moves_players_and_clocks) {
  world w;
  world_init(&w, NULL);
  tclient a, b;
  start_pair(&w, &a, &b,
             ",\"options\":{\"pie\":true},\"clock\":{\"initial_ms\":60000,\"increment_ms\":2000}");
  ASSERT_EQ(swap(&w, &a, 0), SRV_EILLEGAL); /* Nobody has moved. */
  ASSERT_EQ(move(&w, &a, 3, 0), 0);
  ASSERT_EQ(swap(&w, &b, 1), SRV_ETURN); /* Ana's first turn goes on. */
  fake_advance(&w.time, 1000);
  ASSERT_EQ(move(&w, &a, 6, 1), 0);
  /* Ana: 60000 - 1000 + 2000; Bob untouched, no clock runs before his first move. */
  ASSERT_EQ(clock_ms(&b, "south"), 61000);
  ASSERT_EQ(clock_ms(&b, "north"), 60000);
  ASSERT_STR_EQ(field_s(&b, "state", "swap"), "north");
  fake_advance(&w.time, 5000);
  ASSERT_EQ(swap(&w, &b, 2), 0);
  /* The players changed seats with their clocks; Bob's first move (the swap) was free. */
  ASSERT_STR_EQ(player_name(&b, "south"), "Bob");
  ASSERT_STR_EQ(player_name(&b, "north"), "Ana");
  ASSERT_STR_EQ(field_s(&b, "state", "you"), "south");
  ASSERT_STR_EQ(field_s(&b, "state", "turn"), "north");
  ASSERT_EQ(clock_ms(&b, "south"), 60000);
  ASSERT_EQ(clock_ms(&b, "north"), 61000);
  ASSERT_STR_EQ(path_s(&b, "state", "clock", "running"), "north");
  ASSERT(json_is_true(json_object_get(json_object_get(state_of(&b), "last"), "swap")));
  ASSERT(json_is_null(json_object_get(state_of(&b), "swap")));
  ASSERT_EQ(swap(&w, &a, 3), SRV_EILLEGAL); /* Once only. */
  /* Bob has nothing to take back: the swap and what came before it are final. */
  ASSERT_EQ(takeback(&w, &b), SRV_ENOTHINGBACK);
  ASSERT_EQ(takeback(&w, &a), SRV_ENOTHINGBACK);
  fake_advance(&w.time, 3000);
  ASSERT_EQ(move(&w, &a, 1, 3), 0);
  ASSERT_EQ(clock_ms(&a, "north"), 60000); /* 61000 - 3000 + 2000: Ana's clock, on North. */
  ASSERT_EQ(clock_ms(&a, "south"), 60000);
  /* Ana resigns: North loses, and North is Ana. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  ASSERT_STR_EQ(path_s(&b, "state", "result", "winner"), "south");
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

TEST_IMPL(swap_refused_without_the_option) {
  world w;
  world_init(&w, NULL);
  tclient a, b;
  start_pair(&w, &a, &b, "");
  ASSERT_EQ(move(&w, &a, 3, 0), 0);
  ASSERT_EQ(move(&w, &a, 6, 1), 0);
  ASSERT_EQ(swap(&w, &b, 2), SRV_EILLEGAL);
  ASSERT(json_object_get(state_of(&b), "swap") == NULL);
  ASSERT_STR_EQ(player_name(&b, "south"), "Ana");
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

/* The stored clocks by player: a row holds its mover's clock; after the swap's row the players
 * hold the other sides. Initial 60 s. */
TEST_IMPL(stored_clocks_follow_players) {
  srv_store_move moves[4] = {
      {0, MC_SOUTH, 3, 60000, 0},
      {1, MC_SOUTH, 6, 61000, 0},
      {2, MC_NORTH, MC_SWAP, 59000, 0},
      {3, MC_NORTH, 1, 58000, 0},
  };
  srv_store_game g;
  memset(&g, 0, sizeof g);
  g.clocked = true;
  g.initial_ms = 60000;
  g.moves = moves;
  int64_t left[2];
  g.n_moves = 2; /* Before the swap: Ana (South) 61000, Bob (North) 60000. */
  ASSERT_EQ(srv_store_clocks(&g, left), 0);
  ASSERT_EQ(left[MC_SOUTH], 61000);
  ASSERT_EQ(left[MC_NORTH], 60000);
  g.n_moves = 3; /* Bob swapped: his 59000 on South, Ana's 61000 on North. */
  ASSERT_EQ(srv_store_clocks(&g, left), 0);
  ASSERT_EQ(left[MC_SOUTH], 59000);
  ASSERT_EQ(left[MC_NORTH], 61000);
  g.n_moves = 4; /* Ana moved from North. */
  ASSERT_EQ(srv_store_clocks(&g, left), 0);
  ASSERT_EQ(left[MC_SOUTH], 59000);
  ASSERT_EQ(left[MC_NORTH], 58000);
  return 0;
}
