/* Hints (srv_room_hint.c, srv_hints.c over the search pool): where they are given and refused,
 * the answer from the search job queue's fast lane, a stale answer, the allowance per seat and a
 * request whose asker leaves. A worker the test runs by hand and the fake clock: nothing here
 * measures time.
 *
 * The position: Kalah with 2 houses of 1 seed, South to move (pits S1 S2 [S] N1 N2 [N] =
 * 1 1 (0) 1 1 (0)). By the rule book: South's house 2 sows its seed into South's store, an extra
 * turn; then house 1 sows into the empty house 2, capturing it with North's house 1 opposite (2
 * seeds): South has 3, and North's last seed goes to North's store when South has none left:
 * 3-1, South +2 seeds. House 1 first (into house 2, no capture) hands North the move: worse. So
 * the hint is house 2, +2, exact (`mancala hint kalah --houses 2 --seeds 1` says the same).
 */
#include <string.h>

#include "harness.h"
#include "srv_hints.h"
#include "srv_pool.h"
#include "srv_search_pool.h"
#include "srv_settings.h"

typedef struct env {
  world w;
  fake_work fw;
  srv_search_queue *q;
  srv_hints *h;
} env;

/* Hints within per_minute, no computer thinker: the computer's seat never moves by itself here
 * (the tests below let the person move first). */
static void env_open(env *e, int per_minute) {
  world_init(&e->w, NULL);
  memset(&e->fw, 0, sizeof e->fw);
  fake_work_init(&e->fw, &e->w);
  srv_search_pool_config pc = {.workers = {1, 1}, .target_ms = {60, 2000}, .floor_ms = {1, 5}};
  e->q = srv_search_pool_new(&e->fw.base, &e->w.time.base, &pc);
  ASSERT_NOT_NULL(e->q);
  srv_hints_config hc = {50, per_minute};
  e->h = srv_hints_new(e->w.rooms, e->q, &hc);
  ASSERT_NOT_NULL(e->h);
}

static void env_close(env *e) {
  world_close_rooms(&e->w); /* Cancels every hint the rooms asked for. */
  ASSERT_EQ(srv_hints_pending(e->h), 0);
  while (e->fw.n > 0)
    fake_work_run(&e->fw, 0);
  srv_search_pool_close(e->q);
  srv_hints_free(e->h);
  srv_search_pool_free(e->q);
  world_free(&e->w);
}

static void no_think(void *ud, srv_room *room) {
  (void)ud;
  (void)room;
}

static void computer_on(env *e) {
  srv_room_thinker t = {no_think, no_think, NULL};
  srv_rooms_set_thinker(e->w.rooms, &t);
}

#define TINY "\"game\":\"kalah\",\"houses\":2,\"seeds\":1"

static const char *code_of(tclient *t) {
  return field_s(t, "joined", "room");
}

static json_t *hint_of(tclient *t) {
  return last_of(t, "hint");
}

/* ---- Tests ------------------------------------------------------------------------------------
 */

TEST_IMPL(computer_game_best_house) {
  env e;
  env_open(&e, 4);
  computer_on(&e);
  tclient a;
  connect_as(&e.w, &a, "Ana");
  ASSERT_EQ(
      run(&e.w, &a, "{\"type\":\"create\"," TINY ",\"opponent\":\"computer\",\"seat\":\"south\"}"),
      0);
  ASSERT(json_is_true(json_object_get(last_of(&a, "state"), "hints")));
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"hint\",\"id\":7,\"room\":\"%s\",\"ply\":0}", code_of(&a)),
            0);
  ASSERT_EQ(hint_of(&a), NULL); /* Not yet: the search is a job of the fast lane. */
  srv_search_stats s;
  e.q->stats(e.q, &s);
  ASSERT_EQ(s.running[SRV_SEARCH_FAST], 1);
  ASSERT_EQ(s.running[SRV_SEARCH_DEEP] + s.waiting[SRV_SEARCH_DEEP], 0);
  ASSERT_EQ(srv_hints_pending(e.h), 1);
  fake_work_run(&e.fw, 0);
  json_t *h = hint_of(&a);
  ASSERT_NOT_NULL(h);
  ASSERT_EQ(json_integer_value(json_object_get(h, "id")), 7);
  ASSERT_STR_EQ(json_string_value(json_object_get(h, "room")), code_of(&a));
  ASSERT_STR_EQ(json_string_value(json_object_get(h, "seat")), "south");
  ASSERT_EQ(json_integer_value(json_object_get(h, "ply")), 0);
  ASSERT_EQ(json_integer_value(json_object_get(h, "game_no")), 1);
  ASSERT_EQ(json_integer_value(json_object_get(h, "house")), 2);
  ASSERT_EQ(json_integer_value(json_object_get(h, "value")), 2);
  ASSERT(json_is_true(json_object_get(h, "exact")));
  ASSERT_EQ(srv_hints_pending(e.h), 0);
  /* Nothing else changed: the hint went to the asker alone, and no move was played. */
  ASSERT_EQ(mc_game_ply(srv_room_game(srv_rooms_find(e.w.rooms, code_of(&a)))), 0);
  disconnect(&e.w, &a);
  env_close(&e);
  return 0;
}

TEST_IMPL(local_game_north_and_stale) {
  env e;
  env_open(&e, 4);
  tclient a;
  connect_as(&e.w, &a, "Ana");
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"create\"," TINY ",\"opponent\":\"local\"}"), 0);
  char code[8];
  snprintf(code, sizeof code, "%s", code_of(&a));
  /* A hint for an earlier ply is stale at once. */
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"hint\",\"room\":\"%s\",\"ply\":3}", code), SRV_ESTALE);
  /* Asked, then South plays house 1 before the answer: the answer is stale. */
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"hint\",\"id\":\"a\",\"room\":\"%s\"}", code), 0);
  /* One at a time for a seat. */
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"hint\",\"room\":\"%s\"}", code), SRV_EBUSY);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", code), 0);
  tclient_clear(&a);
  fake_work_run(&e.fw, 0);
  ASSERT_EQ(hint_of(&a), NULL);
  ASSERT_STR_EQ(field_s(&a, "error", "code"), "stale");
  ASSERT_STR_EQ(field_s(&a, "error", "id"), "a");
  ASSERT_STR_EQ(field_s(&a, "error", "request"), "hint");
  /* North to move: S 0 2 (0), N 1 1 (0). House 2 goes into North's store (an extra turn), then
   * house 1 into the empty house 2, facing South's empty house 1: no capture, South plays its 2
   * seeds, ends its side and North sweeps: 3-1. House 1 first (into house 2) lets South play
   * its house 2 (1 into its store, 1 to North's house 1) and empty its side: North sweeps 3, 3-1
   * too. Both are North +2: the value is North's, the asker's side, proven. */
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"hint\",\"room\":\"%s\",\"ply\":1}", code), 0);
  fake_work_run(&e.fw, 0);
  json_t *h = hint_of(&a);
  ASSERT_NOT_NULL(h);
  ASSERT_STR_EQ(json_string_value(json_object_get(h, "seat")), "north");
  ASSERT_EQ(json_integer_value(json_object_get(h, "ply")), 1);
  long long house = json_integer_value(json_object_get(h, "house"));
  ASSERT(house == 1 || house == 2);
  ASSERT_EQ(json_integer_value(json_object_get(h, "value")), 2);
  ASSERT(json_is_true(json_object_get(h, "exact")));
  disconnect(&e.w, &a);
  env_close(&e);
  return 0;
}

TEST_IMPL(where_refused) {
  env e;
  env_open(&e, 4);
  tclient a, b, spy;
  connect_as(&e.w, &a, "Ana");
  connect_as(&e.w, &b, "Bo");
  connect_as(&e.w, &spy, "Spy");
  /* A casual room without the option. */
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"create\"," TINY "}"), 0);
  char plain[8];
  snprintf(plain, sizeof plain, "%s", code_of(&a));
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", plain), 0);
  ASSERT(json_is_false(json_object_get(last_of(&b, "state"), "hints")));
  const char *south = field_s(&a, "joined", "seat");
  tclient *mover = strcmp(south, "south") == 0 ? &a : &b;
  ASSERT_EQ(runf(&e.w, mover, "{\"type\":\"hint\",\"room\":\"%s\"}", plain), SRV_EHINTSOFF);
  ASSERT_STR_EQ(srv_err_code(SRV_EHINTSOFF), "hints_not_allowed");
  /* A casual room made with hints: both players see it, the side to move gets one, the other
   * side is not to move, a spectator is no player. */
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"create\"," TINY ",\"hints\":true,\"seat\":\"south\"}"), 0);
  char casual[8];
  snprintf(casual, sizeof casual, "%s", code_of(&a));
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", casual), 0);
  ASSERT(json_is_true(json_object_get(last_of(&a, "state"), "hints")));
  ASSERT(json_is_true(json_object_get(last_of(&b, "state"), "hints")));
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"hint\",\"room\":\"%s\"}", casual), SRV_ETURN);
  ASSERT_EQ(runf(&e.w, &spy, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", casual),
            0);
  ASSERT_EQ(runf(&e.w, &spy, "{\"type\":\"hint\",\"room\":\"%s\"}", casual), SRV_ENOTPLAYER);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"hint\",\"room\":\"%s\"}", casual), 0);
  fake_work_run(&e.fw, 0);
  ASSERT_EQ(json_integer_value(json_object_get(hint_of(&a), "house")), 2);
  ASSERT_EQ(hint_of(&b), NULL); /* The opponent is not told. */
  ASSERT_EQ(hint_of(&spy), NULL);
  /* Hints and rated together: bad_request on "hints". */
  const char *both = "{\"type\":\"create\",\"game\":\"kalah\",\"rated\":true,\"hints\":true,"
                     "\"clock\":{\"initial_ms\":60000}}";
  srv_cmd cmd;
  srv_proto_error perr;
  ASSERT_EQ(srv_proto_decode(both, strlen(both), &cmd, &perr), SRV_EBADREQ);
  ASSERT_STR_EQ(perr.field, "hints");
  /* A rated game: never (two accounts, made so by hand here). */
  a.c.player->account = true;
  b.c.player->account = true;
  ASSERT_EQ(run(&e.w, &a,
                "{\"type\":\"create\",\"game\":\"kalah\",\"rated\":true,\"seat\":\"south\","
                "\"clock\":{\"initial_ms\":60000}}"),
            0);
  char rated[8];
  snprintf(rated, sizeof rated, "%s", code_of(&a));
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", rated), 0);
  ASSERT(json_is_false(json_object_get(last_of(&a, "state"), "hints")));
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"hint\",\"room\":\"%s\"}", rated), SRV_EHINTSRATED);
  ASSERT_STR_EQ(srv_err_code(SRV_EHINTSRATED), "hints_rated");
  ASSERT_EQ(e.fw.n, 0); /* No search was asked for. */
  /* Not a member; a finished game. */
  ASSERT_EQ(runf(&e.w, &spy, "{\"type\":\"hint\",\"room\":\"%s\"}", plain), SRV_ENOTMEMBER);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", casual), 0);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"hint\",\"room\":\"%s\"}", casual), SRV_EOVER);
  disconnect(&e.w, &spy);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);
  return 0;
}

TEST_IMPL(allowance_per_minute) {
  env e;
  env_open(&e, 2); /* Two at once, then one every 30 s. */
  tclient a;
  connect_as(&e.w, &a, "Ana");
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"create\"," TINY ",\"opponent\":\"local\"}"), 0);
  char code[8];
  snprintf(code, sizeof code, "%s", code_of(&a));
  for (int i = 0; i < 2; i++) {
    ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"hint\",\"room\":\"%s\"}", code), 0);
    fake_work_run(&e.fw, 0);
  }
  ASSERT_EQ(count_of(&a, "hint"), 2);
  /* The third within the minute: too_many_hints, and when to ask again (half a minute: one hint
   * of two a minute), answered at once without a search. */
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"hint\",\"id\":3,\"room\":\"%s\"}", code), 0);
  ASSERT_EQ(e.fw.n, 0);
  ASSERT_STR_EQ(field_s(&a, "error", "code"), "too_many_hints");
  ASSERT_EQ(field_i(&a, "error", "id"), 3);
  long long wait = field_i(&a, "error", "retry_after_ms");
  ASSERT(wait > 29000 && wait <= 30001);
  /* A little earlier is still too early; then it is given. */
  fake_advance(&e.w.time, (uint64_t)wait - 1000);
  tclient_clear(&a);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"hint\",\"room\":\"%s\"}", code), 0);
  ASSERT_STR_EQ(field_s(&a, "error", "code"), "too_many_hints");
  ASSERT(field_i(&a, "error", "retry_after_ms") <= 1001);
  fake_advance(&e.w.time, 1000);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"hint\",\"room\":\"%s\"}", code), 0);
  fake_work_run(&e.fw, 0);
  ASSERT_EQ(count_of(&a, "hint"), 1);
  /* Hints off on this server (no hinter): unsupported. */
  srv_rooms_set_hinter(e.w.rooms, NULL, 0);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"hint\",\"room\":\"%s\"}", code), SRV_EUNSUPPORTED);
  disconnect(&e.w, &a);
  env_close(&e);
  return 0;
}

TEST_IMPL(asker_leaves) {
  env e;
  env_open(&e, 4);
  tclient a;
  connect_as(&e.w, &a, "Ana");
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"create\"," TINY ",\"opponent\":\"local\"}"), 0);
  char code[8];
  snprintf(code, sizeof code, "%s", code_of(&a));
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"hint\",\"room\":\"%s\"}", code), 0);
  ASSERT_EQ(srv_hints_pending(e.h), 1);
  /* Leaving the room drops the request and cancels its search: a late answer reaches nobody. */
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"leave\",\"room\":\"%s\"}", code), 0);
  ASSERT_EQ(srv_hints_pending(e.h), 0);
  while (e.fw.n > 0)
    fake_work_run(&e.fw, 0);
  ASSERT_EQ(hint_of(&a), NULL);
  /* Back in the room, asking again works; then the connection goes while it runs. */
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"join\",\"room\":\"%s\"}", code), 0);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"hint\",\"room\":\"%s\"}", code), 0);
  ASSERT_EQ(srv_hints_pending(e.h), 1);
  disconnect(&e.w, &a);
  ASSERT_EQ(srv_hints_pending(e.h), 0);
  env_close(&e);
  return 0;
}

/* Quick play never sits anyone in a room with hints (its players did not ask for them), and such
 * a room is counted in no pool. */
TEST_IMPL(quick_play_keeps_out) {
  env e;
  env_open(&e, 4);
  tclient a, b;
  connect_as(&e.w, &a, "Ana");
  connect_as(&e.w, &b, "Bo");
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"hints\":true}"), 0);
  char with[8];
  snprintf(with, sizeof with, "%s", code_of(&a));
  srv_room_opts o = *srv_room_opts_of(srv_rooms_find(e.w.rooms, with));
  ASSERT(o.hints);
  ASSERT_EQ(srv_pool_of(&o), -1);
  o.hints = false;
  ASSERT(srv_pool_of(&o) >= 0); /* The same room without hints is the untimed Kalah pool's. */
  /* Bo's quick play in that pool makes a room of its own and waits there. */
  ASSERT_EQ(run(&e.w, &b, "{\"type\":\"quick\",\"game\":\"kalah\",\"hints\":true}"), 0);
  ASSERT(strcmp(code_of(&b), with) != 0);
  srv_room *quick = srv_rooms_find(e.w.rooms, code_of(&b));
  ASSERT_EQ(srv_room_status(quick), SRV_WAITING);
  ASSERT(!srv_room_opts_of(quick)->hints); /* quick ignores "hints". */
  ASSERT_EQ(srv_room_status(srv_rooms_find(e.w.rooms, with)), SRV_WAITING);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);
  return 0;
}

/* Durable storage keeps a room's hints in its settings text: written only when set (another
 * room's text is as before, and a server without hints reads it, ignoring the key), read back. */
TEST_IMPL(settings_keep_hints) {
  srv_room_opts o;
  memset(&o, 0, sizeof o);
  ASSERT_EQ(mc_rules_init(&o.rules, MC_KALAH), 0);
  o.level = 1;
  char *plain = srv_settings_format(&o);
  ASSERT_NOT_NULL(plain);
  ASSERT(strstr(plain, "hints") == NULL);
  srv_room_opts back;
  ASSERT_EQ(srv_settings_parse(plain, &back), 0);
  ASSERT(!back.hints);
  o.hints = true;
  char *with = srv_settings_format(&o);
  ASSERT_NOT_NULL(with);
  ASSERT(strstr(with, ",\"hints\":true}") != NULL);
  ASSERT_EQ(srv_settings_parse(with, &back), 0);
  ASSERT(back.hints);
  free(plain);
  free(with);
  return 0;
}

/* The same ply is not the same position: asked at ply 1 after South's house 1, then taken back
 * and South plays house 2 instead (ply 1 again, South to move after its extra turn): stale. */
TEST_IMPL(same_ply_other_position) {
  env e;
  env_open(&e, 4);
  tclient a;
  connect_as(&e.w, &a, "Ana");
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"create\"," TINY ",\"opponent\":\"local\"}"), 0);
  char code[8];
  snprintf(code, sizeof code, "%s", code_of(&a));
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", code), 0);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"hint\",\"id\":1,\"room\":\"%s\",\"ply\":1}", code), 0);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"takeback\",\"room\":\"%s\",\"action\":\"offer\"}", code),
            0);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":2,\"ply\":0}", code), 0);
  ASSERT_EQ(mc_game_ply(srv_room_game(srv_rooms_find(e.w.rooms, code))), 1);
  tclient_clear(&a);
  fake_work_run(&e.fw, 0);
  ASSERT_EQ(hint_of(&a), NULL);
  ASSERT_STR_EQ(field_s(&a, "error", "code"), "stale");
  ASSERT_EQ(field_i(&a, "error", "id"), 1);
  disconnect(&e.w, &a);
  env_close(&e);
  return 0;
}
