/* Chat in a room: who said a line (seat, spectator, id), the history a newcomer or a returning
 * player gets, its bounds, the room's own rate limit per voice, and durable storage (lines kept
 * with the game, given back after a restart, detached from a room code when it closes). */
#include "harness.h"

#include "srv_persist.h"
#include "srv_recover.h"
#include "srv_store.h"
#include "srv_turn.h"
#include "store_util.h"

static char room[8];

static int say(world *w, tclient *t, const char *text) {
  return runf(w, t, "{\"type\":\"chat\",\"room\":\"%s\",\"text\":\"%s\"}", room, text);
}

static json_t *history(tclient *t) {
  return json_object_get(last_of(t, "chat_history"), "messages");
}

static void start_pair(world *w, tclient *a, tclient *b) {
  connect_as(w, a, "Ana");
  connect_as(w, b, "Bob");
  ASSERT_EQ(run(w, a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"}"), 0);
  snprintf(room, sizeof room, "%s", field_s(a, "joined", "room"));
  ASSERT_EQ(runf(w, b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
}

static void spectate(world *w, tclient *t, const char *name) {
  connect_as(w, t, name);
  ASSERT_EQ(runf(w, t, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", room), 0);
}

TEST_IMPL(speakers_are_marked) {
  world w;
  world_init(&w, NULL);
  tclient a, b, s;
  start_pair(&w, &a, &b);
  spectate(&w, &s, "Sue");
  ASSERT_EQ(say(&w, &a, "hello"), 0);
  json_t *m = last_of(&s, "chat");
  ASSERT_STR_EQ(field_s(&s, "chat", "from"), "Ana");
  ASSERT_STR_EQ(field_s(&s, "chat", "player"), a.c.player->id);
  ASSERT_STR_EQ(field_s(&s, "chat", "seat"), "south");
  ASSERT(json_is_false(json_object_get(m, "spectator")));
  ASSERT_EQ(say(&w, &s, "nice"), 0);
  m = last_of(&a, "chat");
  ASSERT(json_is_true(json_object_get(m, "spectator")));
  ASSERT(json_is_null(json_object_get(m, "seat")));
  ASSERT_STR_EQ(field_s(&a, "chat", "player"), s.c.player->id);
  /* Cleaned: a line break is a space, an override is dropped. */
  ASSERT_EQ(say(&w, &b, "g\\ng\\u202e!"), 0);
  ASSERT_STR_EQ(field_s(&a, "chat", "text"), "g g!");
  ASSERT_STR_EQ(field_s(&a, "chat", "seat"), "north");
  disconnect(&w, &s);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

TEST_IMPL(history_on_entering) {
  world w;
  world_init(&w, NULL);
  tclient a, b, s, t, a2;
  start_pair(&w, &a, &b);
  /* No line yet: no history frame. */
  spectate(&w, &s, "Sue");
  ASSERT_EQ(count_of(&s, "chat_history"), 0);
  ASSERT_EQ(say(&w, &a, "one"), 0);
  ASSERT_EQ(say(&w, &s, "two"), 0);
  ASSERT_EQ(say(&w, &b, "three"), 0);
  /* A newcomer gets the lines after the full state, oldest first, marked as they were. */
  tclient_clear(&s);
  spectate(&w, &t, "Tom");
  ASSERT_EQ(count_of(&t, "chat_history"), 1);
  ASSERT(t.n >= 3);
  ASSERT_STR_EQ(json_string_value(json_object_get(t.events[t.n - 1], "type")), "chat_history");
  ASSERT_STR_EQ(field_s(&t, "chat_history", "room"), room);
  json_t *h = history(&t);
  ASSERT_EQ(json_array_size(h), 3);
  ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(h, 0), "text")), "one");
  ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(h, 0), "from")), "Ana");
  ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(h, 0), "seat")), "south");
  ASSERT(json_is_true(json_object_get(json_array_get(h, 1), "spectator")));
  ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(h, 2), "text")), "three");
  ASSERT_EQ(count_of(&s, "chat_history"), 0); /* The others get nothing again. */
  /* A resync does not send it again; a player coming back does. */
  ASSERT_EQ(runf(&w, &t, "{\"type\":\"resync\",\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(count_of(&t, "chat_history"), 1);
  srv_player *ana = a.c.player;
  srv_ident_ref(ana);
  disconnect(&w, &a);
  reconnect_as(&w, &a2, ana);
  srv_ident_unref(w.ident, ana);
  ASSERT_EQ(count_of(&a2, "chat_history"), 1);
  ASSERT_EQ(json_array_size(history(&a2)), 3);
  disconnect(&w, &t);
  disconnect(&w, &s);
  disconnect(&w, &a2);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

TEST_IMPL(history_bounds) {
  world w;
  world_init(&w, NULL);
  tclient a, b, s;
  start_pair(&w, &a, &b);
  /* 60 short lines: the last 50 are kept. */
  for (int i = 0; i < 60; i++) {
    char text[16];
    snprintf(text, sizeof text, "line %d", i);
    ASSERT_EQ(say(&w, &a, text), 0);
  }
  spectate(&w, &s, "Sue");
  json_t *h = history(&s);
  ASSERT_EQ(json_array_size(h), SRV_CHAT_HISTORY);
  ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(h, 0), "text")), "line 10");
  ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(h, 49), "text")), "line 59");
  disconnect(&w, &s);
  /* Long lines: 300 two-byte characters are 600 bytes; 16384 bytes hold 27 of them. */
  char big[700];
  for (int i = 0; i < 300; i++)
    memcpy(big + 2 * i, "\xc3\xa9", 2);
  big[600] = '\0';
  for (int i = 0; i < 40; i++)
    ASSERT_EQ(say(&w, &b, big), 0);
  tclient t;
  spectate(&w, &t, "Tom");
  ASSERT_EQ(json_array_size(history(&t)), SRV_CHAT_HISTORY_BYTES / 600);
  disconnect(&w, &t);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

TEST_IMPL(room_rate_per_voice) {
  world w;
  /* Each voice: 10 lines a second, 30 at once. */
  srv_room_limits limits = {60000, 600000, 600000, 10, 1000, 0, 0, 0, 10, 30, 0};
  world_init(&w, &limits);
  tclient a, b, s[40];
  start_pair(&w, &a, &b);
  for (int i = 0; i < 40; i++) {
    char name[8];
    snprintf(name, sizeof name, "S%d", i);
    spectate(&w, &s[i], name);
  }
  /* Forty spectators at the same instant: the spectators' bucket lets 30 through. */
  int passed = 0, refused = 0;
  for (int i = 0; i < 40; i++) {
    int rc = say(&w, &s[i], "hi");
    passed += rc == 0;
    refused += rc == SRV_ERATE;
  }
  ASSERT_EQ(passed, 30);
  ASSERT_EQ(refused, 10);
  /* The players still speak, each from a bucket of their own. */
  for (int i = 0; i < 30; i++)
    ASSERT_EQ(say(&w, &a, "me"), 0);
  ASSERT_EQ(say(&w, &a, "me"), SRV_ERATE);
  ASSERT_EQ(say(&w, &b, "me too"), 0);
  /* A second later the spectators have 10 lines again, not more. */
  fake_advance(&w.time, 1000);
  passed = 0;
  for (int i = 0; i < 40; i++)
    passed += say(&w, &s[i], "again") == 0;
  ASSERT_EQ(passed, 10);
  for (int i = 0; i < 40; i++)
    disconnect(&w, &s[i]);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

/* ---- Durable storage ------------------------------------------------------------------------- */

static char dir[256];

typedef struct env {
  world w;
  srv_store *store;
  srv_persist *persist;
  srv_turn turn;
} env;

static void env_open(env *e) {
  world_init(&e->w, NULL);
  char err[SRV_STORE_ERR_SIZE];
  ASSERT_EQ(srv_store_open(dir, NULL, &e->store, err), 0);
  e->persist = srv_persist_new(e->store, e->w.ident, &e->w.time.base);
  ASSERT_NOT_NULL(e->persist);
  srv_recorder recorder = {srv_persist_record, e->persist};
  srv_rooms_set_recorder(e->w.rooms, &recorder);
  e->turn = (srv_turn){
      .lobby = e->w.lobby, .persist = e->persist, .rooms = e->w.rooms, .myrooms = e->w.myrooms};
  e->w.time.turn_end = srv_turn_end;
  e->w.time.turn_end_arg = &e->turn;
  ASSERT_EQ(srv_recover(e->store, e->w.ident, e->w.rooms, &e->w.time.base), 0);
}

static void env_close(env *e) {
  srv_turn_end(&e->turn);
  world_close_rooms(&e->w);
  srv_persist_free(e->persist);
  srv_ident_free(e->w.ident);
  srv_store_close(e->store);
}

TEST_IMPL(stored_with_the_game) {
  tmp_dir(dir, sizeof dir);
  env e;
  env_open(&e);
  tclient a, b, s;
  connect_as(&e.w, &a, "Ana");
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"}"), 0);
  snprintf(room, sizeof room, "%s", field_s(&a, "joined", "room"));
  ASSERT_EQ(say(&e.w, &a, "anyone?"), 0); /* Before the game: no game yet. */
  connect_as(&e.w, &b, "Bob");
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
  spectate(&e.w, &s, "Sue");
  ASSERT_EQ(say(&e.w, &b, "hi Ana"), 0);
  ASSERT_EQ(say(&e.w, &s, "go Bob"), 0);
  long long said_at = field_i(&a, "chat", "at");
  ASSERT_GT(said_at, 0);
  srv_turn_end(&e.turn);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM chat"), 3);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM chat WHERE game IS NULL AND text = 'anyone?'"), 1);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM chat WHERE game = 1 AND seat = 'north'"), 1);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM chat WHERE game = 1 AND seat IS NULL"), 1);
  disconnect(&e.w, &s);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);

  /* After a restart the room has its lines back: a player who resumes gets them. */
  env_open(&e);
  srv_room *r = srv_rooms_find(e.w.rooms, room);
  ASSERT_NOT_NULL(r);
  tclient a2;
  reconnect_as(&e.w, &a2, (srv_player *)srv_room_seat(r, 0));
  json_t *h = history(&a2);
  ASSERT_EQ(json_array_size(h), 3);
  ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(h, 0), "text")), "anyone?");
  ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(h, 1), "seat")), "north");
  ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(h, 1), "from")), "Bob");
  ASSERT(json_is_true(json_object_get(json_array_get(h, 2), "spectator")));
  ASSERT_EQ(json_integer_value(json_object_get(json_array_get(h, 2), "at")), said_at);
  /* The room closes: its lines stay with their game, no longer under the code (codes are
   * reused); the line said before any game goes. */
  ASSERT_EQ(runf(&e.w, &a2, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  disconnect(&e.w, &a2);
  fake_advance(&e.w.time, 600001);
  ASSERT_NULL(srv_rooms_find(e.w.rooms, room));
  srv_turn_end(&e.turn);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM chat"), 2);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM chat WHERE room IS NULL AND game = 1"), 2);
  env_close(&e);
  rm_tree(dir);
  return 0;
}

/* Migration 4 -> 5 adds the chat table to a database of version 4; what was there stays. */
TEST_IMPL(migrate_from_v4) {
  tmp_dir(dir, sizeof dir);
  env e;
  env_open(&e);
  tclient a, b;
  start_pair(&e.w, &a, &b);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);
  /* Back to version 4 as it shipped: no chat table (nor version 6's secrets). */
  raw_exec(dir,
           "DROP TABLE chat; DROP TABLE secrets; DROP TABLE commit_marks; DROP TABLE analyses; "
           "ALTER TABLE games DROP COLUMN owner_epoch; ALTER TABLE sessions DROP COLUMN seen_ms; "
           "ALTER TABLE sessions DROP COLUMN label; PRAGMA user_version = 4;");
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM sqlite_schema WHERE name = 'chat'"), 0);
  env_open(&e);
  ASSERT_EQ(raw_int(dir, "PRAGMA user_version"),
            SRV_STORE_SCHEMA_VERSION); /* and on through 5 -> 6 (secrets), 6 -> 7, ... */
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM sqlite_schema WHERE name IN ('chat', "
                         "'chat_room', 'chat_game')"),
            3);
  srv_room *r = srv_rooms_find(e.w.rooms, room);
  ASSERT_NOT_NULL(r);
  ASSERT_EQ(mc_game_ply(srv_room_game(r)), 1);
  tclient a2;
  reconnect_as(&e.w, &a2, (srv_player *)srv_room_seat(r, 0));
  ASSERT_EQ(count_of(&a2, "chat_history"), 0);
  ASSERT_EQ(say(&e.w, &a2, "after the upgrade"), 0);
  srv_turn_end(&e.turn);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM chat"), 1);
  disconnect(&e.w, &a2);
  env_close(&e);
  rm_tree(dir);
  return 0;
}
