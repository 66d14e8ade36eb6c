/* A player's own games in progress (my_rooms, srv_myrooms.c) and quick play's pools with their
 * waiting counts in the lobby (srv_pool.c): rooms on the fake clock. */
#include "harness.h"

#include "srv_pool.h"

static char room[8];

static json_t *mine(tclient *t) {
  return json_object_get(last_of(t, "my_rooms"), "rooms");
}

static json_t *entry(tclient *t, size_t i) {
  return json_array_get(mine(t), i);
}

static const char *entry_s(tclient *t, size_t i, const char *key) {
  json_t *v = json_object_get(entry(t, i), key);
  return json_is_string(v) ? json_string_value(v) : "";
}

static void flush(world *w) {
  srv_myrooms_flush(w->myrooms);
}

TEST_IMPL(games_in_progress) {
  world w;
  world_init(&w, NULL);
  tclient a, b, c;
  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bob");
  connect_as(&w, &c, "Cy");
  ASSERT_EQ(run(&w, &a, "{\"type\":\"my_rooms\",\"id\":3}"), 0);
  ASSERT_EQ(field_i(&a, "my_rooms", "id"), 3);
  ASSERT_EQ(json_array_size(mine(&a)), 0);
  ASSERT_EQ(run(&w, &c, "{\"type\":\"my_rooms\"}"), 0);
  tclient_clear(&c);

  /* A private room: waiting, nobody to play yet. */
  ASSERT_EQ(run(&w, &a,
                "{\"type\":\"create\",\"game\":\"oware\",\"seat\":\"south\",\"visibility\":"
                "\"private\",\"clock\":{\"initial_ms\":180000,\"increment_ms\":2000}}"),
            0);
  snprintf(room, sizeof room, "%s", field_s(&a, "joined", "room"));
  tclient_clear(&a);
  flush(&w);
  ASSERT_EQ(count_of(&a, "my_rooms"), 1);
  ASSERT_EQ(json_array_size(mine(&a)), 1);
  ASSERT_STR_EQ(entry_s(&a, 0, "room"), room);
  ASSERT_STR_EQ(entry_s(&a, 0, "game"), "oware");
  ASSERT_STR_EQ(entry_s(&a, 0, "status"), "waiting");
  ASSERT_STR_EQ(entry_s(&a, 0, "visibility"), "private");
  ASSERT_STR_EQ(entry_s(&a, 0, "you"), "south");
  ASSERT(json_is_null(json_object_get(entry(&a, 0), "opponent")));
  ASSERT(json_is_null(json_object_get(entry(&a, 0), "turn")));
  ASSERT_EQ(
      json_integer_value(json_object_get(json_object_get(entry(&a, 0), "clock"), "initial_ms")),
      180000);
  ASSERT_EQ(count_of(&c, "my_rooms"), 0); /* Not Cy's room: nothing for Cy. */

  /* Bob sits down: Ana's list says it is her move, against Bob. Several changes, one list. */
  tclient_clear(&a);
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
  flush(&w);
  ASSERT_EQ(count_of(&a, "my_rooms"), 1);
  ASSERT_STR_EQ(entry_s(&a, 0, "status"), "playing");
  ASSERT_STR_EQ(entry_s(&a, 0, "turn"), "south");
  ASSERT(json_is_true(json_object_get(entry(&a, 0), "your_turn")));
  json_t *opp = json_object_get(entry(&a, 0), "opponent");
  ASSERT_STR_EQ(json_string_value(json_object_get(opp, "name")), "Bob");
  ASSERT_STR_EQ(json_string_value(json_object_get(opp, "id")), b.c.player->id);
  ASSERT(json_is_true(json_object_get(opp, "connected")));
  ASSERT_EQ(count_of(&b, "my_rooms"), 0); /* Bob does not watch. */

  /* A move: it is Bob's turn now. */
  tclient_clear(&a);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  flush(&w);
  ASSERT(json_is_false(json_object_get(entry(&a, 0), "your_turn")));
  ASSERT_EQ(json_integer_value(json_object_get(entry(&a, 0), "ply")), 1);
  /* Nothing changed: nothing sent. */
  tclient_clear(&a);
  flush(&w);
  ASSERT_EQ(count_of(&a, "my_rooms"), 0);

  /* Bob goes away: still Ana's game, her opponent offline. */
  disconnect(&w, &b);
  flush(&w);
  ASSERT(json_is_false(json_object_get(json_object_get(entry(&a, 0), "opponent"), "connected")));

  /* A same-screen game is listed too, with both seats. */
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"opponent\":\"local\"}"), 0);
  flush(&w);
  ASSERT_EQ(json_array_size(mine(&a)), 2);
  ASSERT_STR_EQ(entry_s(&a, 1, "you"), "both");
  ASSERT(json_is_true(json_object_get(entry(&a, 1), "local")));
  ASSERT(json_is_true(json_object_get(entry(&a, 1), "your_turn")));
  char local[8];
  snprintf(local, sizeof local, "%s", entry_s(&a, 1, "room"));

  /* A finished game leaves the list; its live rematch comes back (game 2). */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", local), 0);
  flush(&w);
  ASSERT_EQ(json_array_size(mine(&a)), 1);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", local), 0);
  flush(&w);
  ASSERT_EQ(json_array_size(mine(&a)), 2);
  ASSERT_EQ(json_integer_value(json_object_get(entry(&a, 1), "game_no")), 2);

  /* Unwatched: the list once more, then nothing. */
  ASSERT_EQ(run(&w, &a, "{\"type\":\"my_rooms\",\"watch\":false}"), 0);
  tclient_clear(&a);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", local), 0);
  flush(&w);
  ASSERT_EQ(count_of(&a, "my_rooms"), 0);
  disconnect(&w, &a);
  disconnect(&w, &c);
  world_free(&w);
  return 0;
}

TEST_IMPL(watchers_of_one_player) {
  world w;
  world_init(&w, NULL);
  tclient a, a2, b;
  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bob");
  srv_player *ana = a.c.player;
  srv_ident_ref(ana);
  reconnect_as(&w, &a2, ana); /* A second tab of Ana's. */
  srv_ident_unref(w.ident, ana);
  ASSERT_EQ(run(&w, &a, "{\"type\":\"my_rooms\"}"), 0);
  ASSERT_EQ(run(&w, &a2, "{\"type\":\"my_rooms\"}"), 0);
  ASSERT_EQ(run(&w, &b, "{\"type\":\"my_rooms\"}"), 0);
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"north\"}"), 0);
  snprintf(room, sizeof room, "%s", field_s(&a, "joined", "room"));
  flush(&w);
  ASSERT_EQ(json_array_size(mine(&a2)), 1); /* The other tab sees the new game. */
  ASSERT_STR_EQ(entry_s(&a2, 0, "you"), "north");
  ASSERT_EQ(json_array_size(mine(&b)), 0);
  /* Ana leaves the waiting room (her other tab is not in it): it closes; both tabs see it go. */
  tclient_clear(&a2);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"leave\",\"room\":\"%s\"}", room), 0);
  flush(&w);
  ASSERT_EQ(json_array_size(mine(&a)), 0);
  ASSERT_EQ(count_of(&a2, "my_rooms"), 1);
  ASSERT_EQ(json_array_size(mine(&a2)), 0);
  /* A watcher that goes leaves nothing behind (the sanitizers check the rest). */
  disconnect(&w, &a2);
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\"}"), 0);
  flush(&w);
  ASSERT_EQ(json_array_size(mine(&a)), 1);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

TEST_IMPL(pool_of_settings) {
  srv_room_opts o;
  memset(&o, 0, sizeof o);
  ASSERT_EQ(mc_rules_init(&o.rules, MC_KALAH), 0);
  o.visibility = SRV_PUBLIC;
  o.opponent = SRV_OPP_HUMAN;
  ASSERT_EQ(srv_pool_of(&o), 0); /* Kalah, untimed. */
  o.clocked = true;
  o.initial_ms = 180000;
  o.increment_ms = 2000;
  ASSERT_EQ(srv_pool_of(&o), 2); /* Kalah 3+2. */
  srv_pool_view p;
  ASSERT_EQ(srv_pool_get(2, &p), 0);
  ASSERT_EQ(p.game, MC_KALAH);
  ASSERT_EQ(p.initial_ms, 180000);
  ASSERT_EQ(p.increment_ms, 2000);
  o.increment_ms = 3000;
  ASSERT_EQ(srv_pool_of(&o), -1); /* 3+3 is no pool. */
  o.initial_ms = 600000;
  o.increment_ms = 5000;
  ASSERT_EQ(srv_pool_of(&o), 4);
  o.rules.houses = 5;
  ASSERT_EQ(srv_pool_of(&o), -1); /* Not the default board. */
  ASSERT_EQ(mc_rules_init(&o.rules, MC_KALAH), 0);
  o.rules.empty_capture = true;
  ASSERT_EQ(srv_pool_of(&o), -1); /* Not the default options. */
  ASSERT_EQ(mc_rules_init(&o.rules, MC_CONGKAK), 0);
  o.clocked = true;
  o.initial_ms = 60000;
  o.increment_ms = 0;
  ASSERT_EQ(srv_pool_of(&o), 2 * SRV_POOL_CLOCKS + 1); /* Congkak 1+0. */
  o.visibility = SRV_PRIVATE;
  ASSERT_EQ(srv_pool_of(&o), -1);
  o.visibility = SRV_PUBLIC;
  o.rated = true;
  ASSERT_EQ(srv_pool_of(&o), -1); /* A rated room waits for rated players only. */
  o.rated = false;
  o.opponent = SRV_OPP_LOCAL;
  ASSERT_EQ(srv_pool_of(&o), -1);
  ASSERT_EQ(srv_pool_get(SRV_POOLS, &p), -1);
  ASSERT_EQ(srv_pool_get(-1, &p), -1);
  return 0;
}

/* The waiting count of pool (game, minutes, seconds; 0 minutes: untimed) in t's last lobby. */
static long long waiting(tclient *t, const char *game, int minutes, int seconds) {
  json_t *pools = json_object_get(last_of(t, "lobby"), "pools");
  ASSERT_EQ(json_array_size(pools), SRV_POOLS);
  size_t i;
  json_t *p;
  json_array_foreach(pools, i, p) {
    json_t *clock = json_object_get(p, "clock");
    long long ms = json_integer_value(json_object_get(clock, "initial_ms"));
    long long inc = json_integer_value(json_object_get(clock, "increment_ms"));
    if (strcmp(json_string_value(json_object_get(p, "game")), game) == 0 &&
        (minutes == 0 ? json_is_null(clock) : ms == minutes * 60000LL && inc == seconds * 1000LL))
      return json_integer_value(json_object_get(p, "waiting"));
  }
  return -1;
}

TEST_IMPL(pools_in_the_lobby) {
  world w;
  world_init(&w, NULL);
  tclient a, b, c, d, l;
  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bob");
  connect_as(&w, &c, "Cy");
  connect_as(&w, &d, "Di");
  connect_as(&w, &l, "Lou");
  ASSERT_EQ(run(&w, &l, "{\"type\":\"lobby\"}"), 0);
  ASSERT_EQ(waiting(&l, "kalah", 3, 2), 0);
  ASSERT_EQ(waiting(&l, "congkak", 0, 0), 0);
  /* Ana waits in Kalah 3+2; Cy in Kalah untimed; Di in a Kalah 3+2 of another board (no pool). */
  ASSERT_EQ(run(&w, &a,
                "{\"type\":\"quick\",\"game\":\"kalah\",\"clock\":{\"initial_ms\":180000,"
                "\"increment_ms\":2000}}"),
            0);
  ASSERT_EQ(run(&w, &c, "{\"type\":\"quick\",\"game\":\"kalah\"}"), 0);
  ASSERT_EQ(run(&w, &d,
                "{\"type\":\"quick\",\"game\":\"kalah\",\"houses\":4,\"clock\":{\"initial_ms\":"
                "180000,\"increment_ms\":2000}}"),
            0);
  ASSERT_EQ(run(&w, &l, "{\"type\":\"lobby\"}"), 0);
  ASSERT_EQ(waiting(&l, "kalah", 3, 2), 1);
  ASSERT_EQ(waiting(&l, "kalah", 0, 0), 1);
  ASSERT_EQ(waiting(&l, "kalah", 1, 0), 0);
  ASSERT_EQ(waiting(&l, "oware", 3, 2), 0);
  /* Bob asks for Kalah 3+2: he is paired with Ana, the oldest waiting there. */
  char ana_room[8];
  snprintf(ana_room, sizeof ana_room, "%s", field_s(&a, "joined", "room"));
  ASSERT_EQ(run(&w, &b,
                "{\"type\":\"quick\",\"game\":\"kalah\",\"clock\":{\"initial_ms\":180000,"
                "\"increment_ms\":2000}}"),
            0);
  ASSERT_STR_EQ(field_s(&b, "joined", "room"), ana_room);
  ASSERT_EQ(run(&w, &l, "{\"type\":\"lobby\"}"), 0);
  ASSERT_EQ(waiting(&l, "kalah", 3, 2), 0);
  /* A waiting player who is gone is not counted (nobody to play). */
  disconnect(&w, &c);
  ASSERT_EQ(run(&w, &l, "{\"type\":\"lobby\"}"), 0);
  ASSERT_EQ(waiting(&l, "kalah", 0, 0), 0);
  disconnect(&w, &a);
  disconnect(&w, &b);
  disconnect(&w, &d);
  disconnect(&w, &l);
  world_free(&w);
  return 0;
}
