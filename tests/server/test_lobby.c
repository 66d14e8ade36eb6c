/* The lobby as revisions (issue 25, item 4): a watcher of changes gets one snapshot, then only
 * what was added, updated and removed; lists show the newest rooms of each game and count the
 * rest. Rooms on the fake clock; the flush runs as at the end of a loop turn. */
#include "harness.h"

#include <string.h>

#include "srv_lobby.h"

/* The end of a loop turn a pacing period later: the lobby goes out. */
static void later(world *w) {
  fake_advance(&w->time, SRV_LOBBY_EVERY_MS);
  srv_lobby_flush(w->lobby);
}

static json_t *arr(json_t *o, const char *key) {
  json_t *a = json_object_get(o, key);
  ASSERT(json_is_array(a));
  return a;
}

static const char *code_at(json_t *a, size_t i) {
  return json_string_value(json_object_get(json_array_get(a, i), "code"));
}

static long long more_of(json_t *o, const char *game) {
  return json_integer_value(json_object_get(json_object_get(o, "more"), game));
}

static char made[8][8];

static void create(world *w, tclient *t, const char *game, int i, const char *vis) {
  ASSERT_EQ(runf(w, t, "{\"type\":\"create\",\"game\":\"%s\",\"visibility\":\"%s\"}", game, vis),
            0);
  snprintf(made[i], sizeof made[i], "%s", field_s(t, "joined", "room"));
}

TEST_IMPL(changes_after_one_snapshot) {
  world w;
  world_init(&w, NULL);
  tclient wes, a, b;
  connect_as(&w, &wes, "Wes");
  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bob");
  ASSERT_EQ(run(&w, &wes, "{\"type\":\"lobby\",\"changes\":true}"), 0);
  json_t *snap = last_of(&wes, "lobby");
  ASSERT_EQ(json_array_size(arr(snap, "rooms")), 0);
  ASSERT_EQ(json_array_size(arr(snap, "pools")), 15);
  ASSERT_EQ(more_of(snap, "kalah"), 0);
  long long rev = json_integer_value(json_object_get(snap, "rev"));
  ASSERT(rev >= 1);
  /* A public room: added, and the Kalah untimed pool counts one waiting. */
  create(&w, &a, "kalah", 0, "public");
  later(&w);
  ASSERT_EQ(count_of(&wes, "lobby_changes"), 1);
  json_t *c = last_of(&wes, "lobby_changes");
  ASSERT_EQ(json_integer_value(json_object_get(c, "rev")), rev + 1);
  ASSERT_EQ(json_array_size(arr(c, "add")), 1);
  ASSERT_STR_EQ(code_at(arr(c, "add"), 0), made[0]);
  ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(arr(c, "add"), 0), "status")),
                "waiting");
  ASSERT_EQ(json_array_size(arr(c, "update")), 0);
  ASSERT_EQ(json_array_size(arr(c, "remove")), 0);
  ASSERT_EQ(json_integer_value(json_object_get(json_array_get(arr(c, "pools"), 0), "waiting")), 1);
  /* Bob sits down: the room is updated (playing), the pool is empty again. */
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", made[0]), 0);
  later(&w);
  c = last_of(&wes, "lobby_changes");
  ASSERT_EQ(json_integer_value(json_object_get(c, "rev")), rev + 2);
  ASSERT_EQ(json_array_size(arr(c, "add")), 0);
  ASSERT_EQ(json_array_size(arr(c, "update")), 1);
  ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(arr(c, "update"), 0), "status")),
                "playing");
  ASSERT_EQ(json_integer_value(json_object_get(json_array_get(arr(c, "pools"), 0), "waiting")), 0);
  /* A private room changes nothing listed: nothing is sent, the revision stays. */
  create(&w, &b, "oware", 1, "private");
  later(&w);
  ASSERT_EQ(count_of(&wes, "lobby_changes"), 2);
  /* The game ends: removed; the pools did not change, so they are not in the frame. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", made[0]), 0);
  later(&w);
  c = last_of(&wes, "lobby_changes");
  ASSERT_EQ(json_integer_value(json_object_get(c, "rev")), rev + 3);
  ASSERT_EQ(json_array_size(arr(c, "remove")), 1);
  ASSERT_STR_EQ(json_string_value(json_array_get(arr(c, "remove"), 0)), made[0]);
  ASSERT(json_object_get(c, "pools") == NULL);
  ASSERT_EQ(count_of(&wes, "lobby"), 1); /* One snapshot in all. */
  /* Unwatched: nothing more. */
  ASSERT_EQ(run(&w, &wes, "{\"type\":\"lobby\",\"watch\":false}"), 0);
  create(&w, &a, "kalah", 2, "public");
  later(&w);
  ASSERT_EQ(count_of(&wes, "lobby_changes"), 3);
  disconnect(&w, &wes);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

/* A list shows the newest rooms of each game (2 here) and counts the rest in more; when a newer
 * room comes, the oldest shown leaves the list (removed) and more grows. */
TEST_IMPL(newest_per_game) {
  world w;
  world_init(&w, NULL);
  srv_lobby_set_per_game(w.lobby, 2);
  tclient p[5], wes, lou;
  const char *names[5] = {"P0", "P1", "P2", "P3", "P4"};
  for (int i = 0; i < 5; i++)
    connect_as(&w, &p[i], names[i]);
  connect_as(&w, &wes, "Wes");
  connect_as(&w, &lou, "Lou");
  create(&w, &p[0], "kalah", 0, "public");
  create(&w, &p[1], "kalah", 1, "public");
  create(&w, &p[2], "kalah", 2, "public");
  create(&w, &p[3], "oware", 3, "public");
  ASSERT_EQ(run(&w, &wes, "{\"type\":\"lobby\",\"changes\":true}"), 0);
  ASSERT_EQ(run(&w, &lou, "{\"type\":\"lobby\"}"), 0); /* A watcher of whole lists. */
  json_t *rooms = arr(last_of(&wes, "lobby"), "rooms");
  ASSERT_EQ(json_array_size(rooms), 3); /* Kalah's newest two and Oware's, oldest first. */
  ASSERT_STR_EQ(code_at(rooms, 0), made[1]);
  ASSERT_STR_EQ(code_at(rooms, 1), made[2]);
  ASSERT_STR_EQ(code_at(rooms, 2), made[3]);
  ASSERT_EQ(more_of(last_of(&wes, "lobby"), "kalah"), 1);
  ASSERT_EQ(more_of(last_of(&wes, "lobby"), "oware"), 0);
  ASSERT_EQ(json_array_size(arr(last_of(&lou, "lobby"), "rooms")), 3);
  ASSERT_EQ(more_of(last_of(&lou, "lobby"), "kalah"), 1);
  create(&w, &p[4], "kalah", 4, "public");
  later(&w);
  json_t *c = last_of(&wes, "lobby_changes");
  ASSERT_EQ(json_array_size(arr(c, "add")), 1);
  ASSERT_STR_EQ(code_at(arr(c, "add"), 0), made[4]);
  ASSERT_EQ(json_array_size(arr(c, "remove")), 1);
  ASSERT_STR_EQ(json_string_value(json_array_get(arr(c, "remove"), 0)), made[1]);
  ASSERT_EQ(more_of(c, "kalah"), 2);
  /* The whole list: the same three rooms, in the order they were made. */
  rooms = arr(last_of(&lou, "lobby"), "rooms");
  ASSERT_EQ(json_array_size(rooms), 3);
  ASSERT_STR_EQ(code_at(rooms, 0), made[2]);
  ASSERT_STR_EQ(code_at(rooms, 1), made[3]);
  ASSERT_STR_EQ(code_at(rooms, 2), made[4]);
  ASSERT_EQ(more_of(last_of(&lou, "lobby"), "kalah"), 2);
  /* The newest leaves: the one before it comes back into the list (added). */
  ASSERT_EQ(runf(&w, &p[4], "{\"type\":\"leave\",\"room\":\"%s\"}", made[4]), 0);
  later(&w);
  c = last_of(&wes, "lobby_changes");
  ASSERT_STR_EQ(code_at(arr(c, "add"), 0), made[1]);
  ASSERT_STR_EQ(json_string_value(json_array_get(arr(c, "remove"), 0)), made[4]);
  ASSERT_EQ(more_of(c, "kalah"), 1);
  for (int i = 0; i < 5; i++)
    disconnect(&w, &p[i]);
  disconnect(&w, &wes);
  disconnect(&w, &lou);
  world_free(&w);
  return 0;
}

/* A watcher of changes who comes between two publications starts from the last revision and gets
 * the next changes with everybody: both end with the same list. */
TEST_IMPL(late_watcher_joins_the_revision) {
  world w;
  world_init(&w, NULL);
  tclient w1, w2, a;
  connect_as(&w, &w1, "One");
  connect_as(&w, &w2, "Two");
  connect_as(&w, &a, "Ana");
  ASSERT_EQ(run(&w, &w1, "{\"type\":\"lobby\",\"changes\":true}"), 0);
  long long rev = json_integer_value(json_object_get(last_of(&w1, "lobby"), "rev"));
  create(&w, &a, "congkak", 0, "public"); /* Not published yet: no flush. */
  ASSERT_EQ(run(&w, &w2, "{\"type\":\"lobby\",\"changes\":true,\"id\":7}"), 0);
  json_t *snap = last_of(&w2, "lobby");
  ASSERT_EQ(json_integer_value(json_object_get(snap, "rev")), rev);
  ASSERT_EQ(json_integer_value(json_object_get(snap, "id")), 7);
  ASSERT_EQ(json_array_size(arr(snap, "rooms")), 0);
  later(&w);
  for (tclient *t = &w1; t != NULL; t = t == &w1 ? &w2 : NULL) {
    json_t *c = last_of(t, "lobby_changes");
    ASSERT_EQ(json_integer_value(json_object_get(c, "rev")), rev + 1);
    ASSERT_STR_EQ(code_at(arr(c, "add"), 0), made[0]);
  }
  /* A look ("watch":false) sees the list as it is now, without waiting for the flush. */
  tclient look;
  connect_as(&w, &look, "Look");
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"leave\",\"room\":\"%s\"}", made[0]), 0);
  ASSERT_EQ(run(&w, &look, "{\"type\":\"lobby\",\"watch\":false}"), 0);
  ASSERT_EQ(json_array_size(arr(last_of(&look, "lobby"), "rooms")), 0);
  disconnect(&w, &look);
  disconnect(&w, &w1);
  disconnect(&w, &w2);
  disconnect(&w, &a);
  world_free(&w);
  return 0;
}
