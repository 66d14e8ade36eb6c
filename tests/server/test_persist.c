/* Persistence (srv_persist.c) with the real rooms on a fake clock and a real SQLite store in a
 * temporary directory: moves reach the store, a lost batch takes the room back and answers the
 * mover with storage_error, and recovery rebuilds playing and finished rooms with their seats,
 * positions and clocks. */
#include "harness.h"

#include <sqlite3.h>
#include <unistd.h>

#include "srv_persist.h"
#include "srv_store.h"

static char dir[64];
static int drops;

static void drop(void *ud, const char *code) {
  (void)ud;
  (void)code;
  drops++;
}

typedef struct env {
  world w;
  srv_store *store;
  srv_persist *persist;
} env;

static void env_open(env *e) {
  world_init(&e->w, NULL);
  char err[SRV_STORE_ERR_SIZE];
  CHECK_INT(srv_store_open(dir, NULL, &e->store, err), 0);
  e->persist = srv_persist_new(e->store, e->w.ident, &e->w.time.base);
  CHECK(e->persist != NULL);
  srv_persist_attach(e->persist, e->w.rooms, drop, NULL);
  CHECK_INT(srv_persist_recover(e->persist), 0);
}

static void env_close(env *e) {
  srv_persist_turn(e->persist);
  srv_rooms_free(e->w.rooms);
  e->w.rooms = NULL;
  srv_persist_free(e->persist);
  srv_ident_free(e->w.ident);
  srv_store_close(e->store);
}

static int64_t stored_moves(env *e, int64_t game) {
  srv_store_game *g = NULL;
  if (srv_store_game_get(e->store, game, &g) != 0)
    return -1;
  int64_t n = (int64_t)g->n_moves;
  srv_store_game_free(g);
  return n;
}

static char room[8];

static void test_lost_batch(void) {
  env e;
  env_open(&e);
  tclient a, b;
  connect_as(&e.w, &a, "Ana");
  connect_as(&e.w, &b, "Bob");
  srv_persist_player(e.persist, a.c.player);
  srv_persist_player(e.persist, b.c.player);
  CHECK_INT(runf(&e.w, &a,
                 "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\","
                 "\"clock\":{\"initial_ms\":60000,\"increment_ms\":1000}}"),
            0);
  snprintf(room, sizeof room, "%s", field_s(&a, "joined", "room"));
  CHECK_INT(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
  srv_persist_turn(e.persist);
  fake_advance(&e.w.time, 3000);
  CHECK_INT(runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  srv_persist_turn(e.persist);
  CHECK_INT(stored_moves(&e, 1), 1);

  /* North's move joins a batch that is lost (rolled back, as a failed commit would be). */
  fake_advance(&e.w.time, 2000);
  long long north_before = field_i(&b, "state", "ply");
  CHECK_INT(north_before, 1);
  CHECK_INT(
      runf(&e.w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":2,\"ply\":1,\"id\":7}", room),
      0);
  CHECK_INT(field_i(&b, "state", "ply"), 2);
  srv_store_rollback(e.store);
  CHECK_INT(srv_rooms_store_lost(e.w.rooms, room, 1, 1, false, SRV_ESTORAGE), 0);
  CHECK_STR(field_s(&b, "error", "code"), "storage_error");
  CHECK_INT(field_i(&b, "error", "id"), 7);
  CHECK_INT(count_of(&a, "error"), 0);
  CHECK_INT(field_i(&b, "state", "ply"), 1);
  CHECK_STR(field_s(&b, "state", "turn"), "north");
  CHECK_STR(path_s(&b, "state", "clock", "running"), "north");
  CHECK_INT(field_i(&a, "state", "ply"), 1);
  srv_persist_turn(e.persist); /* The room is recorded again. */
  CHECK_INT(stored_moves(&e, 1), 1);

  /* The same move again is accepted and stored. */
  CHECK_INT(runf(&e.w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":2,\"ply\":1}", room), 0);
  srv_persist_turn(e.persist);
  CHECK_INT(stored_moves(&e, 1), 2);
  CHECK_INT(srv_rooms_store_lost(e.w.rooms, "ZZZZZZ", 1, 0, false, SRV_ESTORAGE), SRV_ENOTFOUND);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);
}

static void test_recovery(void) {
  env e;
  env_open(&e);
  srv_room *r = srv_rooms_find(e.w.rooms, room);
  CHECK(r != NULL);
  if (r == NULL) {
    env_close(&e);
    return;
  }
  CHECK_INT(srv_room_status(r), SRV_PLAYING);
  CHECK_INT(mc_game_ply(srv_room_game(r)), 2);
  CHECK_STR(srv_room_seat(r, 0)->name, "Ana");
  CHECK_STR(srv_room_seat(r, 1)->name, "Bob");
  /* The players come back disconnected; Ana reconnects with her seat. */
  tclient a, b;
  reconnect_as(&e.w, &a, (srv_player *)srv_room_seat(r, 0));
  CHECK_STR(field_s(&a, "joined", "room"), room);
  CHECK_INT(field_i(&a, "state", "ply"), 2);
  CHECK_STR(path_s(&a, "state", "last", "seat"), "north");
  /* South's clock: 60 s, 3 s spent, 1 s increment: the downtime of the restart is not charged. */
  json_t *clock = json_object_get(last_of(&a, "state"), "clock");
  CHECK_INT(json_integer_value(json_object_get(clock, "south_ms")), 58000);
  CHECK_INT(json_integer_value(json_object_get(clock, "north_ms")), 59000);
  reconnect_as(&e.w, &b, (srv_player *)srv_room_seat(r, 1));
  CHECK_INT(runf(&e.w, &b, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  srv_persist_turn(e.persist);
  CHECK_INT(field_i(&a, "state", "game_id"), 1);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);

  /* A finished room comes back finished, with its result and archive id. */
  env_open(&e);
  r = srv_rooms_find(e.w.rooms, room);
  CHECK(r != NULL);
  if (r != NULL) {
    CHECK_INT(srv_room_status(r), SRV_FINISHED);
    mc_result res;
    CHECK(mc_game_over(srv_room_game(r), &res));
    CHECK_INT(res.reason, MC_REASON_RESIGNATION);
    CHECK_INT(res.winner, MC_WIN_SOUTH);
    reconnect_as(&e.w, &a, (srv_player *)srv_room_seat(r, 0));
    CHECK_INT(field_i(&a, "state", "game_id"), 1);
    CHECK_STR(path_s(&a, "state", "result", "reason"), "resignation");
    disconnect(&e.w, &a);
    /* Its expiry timer runs again: the room closes and is forgotten. */
    fake_advance(&e.w.time, 600001);
    CHECK(srv_rooms_find(e.w.rooms, room) == NULL);
  }
  env_close(&e);
  env_open(&e);
  CHECK(srv_rooms_find(e.w.rooms, room) == NULL);
  env_close(&e);
}

/* A stored move the engine refuses is not trusted: the game resumes from the moves before it. */
static void test_bad_row(void) {
  env e;
  env_open(&e);
  tclient a, b;
  connect_as(&e.w, &a, "Ana");
  connect_as(&e.w, &b, "Bob");
  CHECK_INT(runf(&e.w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"}"), 0);
  snprintf(room, sizeof room, "%s", field_s(&a, "joined", "room"));
  CHECK_INT(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
  CHECK_INT(runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  CHECK_INT(runf(&e.w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":1}", room), 0);
  CHECK_INT(runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":2,\"ply\":2}", room), 0);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);

  /* North's move becomes an impossible house. */
  char path[128];
  snprintf(path, sizeof path, "%s/mancala.db", dir);
  sqlite3 *db = NULL;
  CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
  CHECK_INT(sqlite3_exec(db,
                         "UPDATE moves SET house = 8 WHERE ply = 1 AND "
                         "game = (SELECT max(game) FROM moves)",
                         NULL, NULL, NULL),
            SQLITE_OK);
  CHECK_INT(sqlite3_changes(db), 1);
  sqlite3_close(db);

  env_open(&e);
  srv_room *r = srv_rooms_find(e.w.rooms, room);
  CHECK(r != NULL);
  if (r != NULL) {
    CHECK_INT(srv_room_status(r), SRV_PLAYING);
    CHECK_INT(mc_game_ply(srv_room_game(r)), 1);
    CHECK_INT(mc_game_pos(srv_room_game(r))->turn, MC_NORTH);
  }
  env_close(&e);
  /* The bad row and the move after it are gone from the store too. */
  env_open(&e);
  r = srv_rooms_find(e.w.rooms, room);
  CHECK(r != NULL && mc_game_ply(srv_room_game(r)) == 1);
  env_close(&e);
}

/* A Congkak match stored under the old burn rule (what migration 2 -> 3 of the store marks with
 * burn=match) is recovered and goes on under that rule, and says so in its state; its rematch is
 * played under the new rule. The moves are the 7x7 match (issue 9, tests/engine/cli.sh):
 * after move 29 South's houses 1-4 are burnt (old rule) and North moves first in round 3. */
static void test_old_burn_rule(void) {
  static const int moves[] = {6, 1, 7, 6, 5, 6, 2, 7, 7, 5, 1, 3, 5, 6, 6,
                              7, 6, 5, 5, 2, 7, 6, 7, 2, 6, 5, 6, 6, 2};
  const int n = (int)(sizeof moves / sizeof moves[0]);
  char code[8];
  env e;
  env_open(&e);
  tclient a;
  connect_as(&e.w, &a, "Ana");
  srv_persist_player(e.persist, a.c.player);
  CHECK_INT(runf(&e.w, &a,
                 "{\"type\":\"create\",\"game\":\"congkak\",\"opponent\":\"local\","
                 "\"options\":{\"rounds\":\"match\"}}"),
            0);
  snprintf(code, sizeof code, "%s", field_s(&a, "joined", "room"));
  /* The old rule is not a player's option: create refuses it. */
  const char *old_rule = "{\"type\":\"create\",\"game\":\"congkak\",\"options\":{\"rounds\":"
                         "\"match\",\"burn\":\"match\"}}";
  srv_cmd cmd;
  srv_proto_error perr;
  memset(&perr, 0, sizeof perr);
  CHECK_INT(srv_proto_decode(old_rule, strlen(old_rule), &cmd, &perr), SRV_EBADREQ);
  CHECK(perr.field != NULL && strcmp(perr.field, "options.burn") == 0);
  /* The protocol's rules: no burn option in a new game's state. */
  json_t *opts = json_object_get(last_of(&a, "state"), "options");
  CHECK(json_object_get(opts, "burn") == NULL);
  for (int i = 0; i < n; i++)
    CHECK_INT(runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":%d,\"ply\":%d}", code,
                   moves[i], i),
              0);
  /* Under the new rule South fills all seven houses for round 3. */
  json_t *burnt = json_object_get(last_of(&a, "state"), "burnt");
  CHECK_INT(json_array_size(burnt), 2);
  CHECK_INT(field_i(&a, "state", "ply"), n);
  srv_persist_turn(e.persist);
  disconnect(&e.w, &a);
  env_close(&e);

  /* The game becomes one stored before schema 3. */
  char path[128];
  snprintf(path, sizeof path, "%s/mancala.db", dir);
  sqlite3 *db = NULL;
  CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
  CHECK_INT(sqlite3_exec(db,
                         "UPDATE games SET options = 'rounds=match burn=match' "
                         "WHERE id = (SELECT game FROM rooms WHERE settings LIKE '%congkak%')",
                         NULL, NULL, NULL),
            SQLITE_OK);
  CHECK_INT(sqlite3_changes(db), 1);
  sqlite3_close(db);

  env_open(&e);
  srv_room *r = srv_rooms_find(e.w.rooms, code);
  CHECK(r != NULL);
  if (r != NULL) {
    CHECK_INT(srv_room_status(r), SRV_PLAYING);
    CHECK_INT(mc_game_rules(srv_room_game(r))->burn, MC_BURN_MATCH);
    reconnect_as(&e.w, &a, (srv_player *)srv_room_seat(r, 0));
    json_t *st = last_of(&a, "state");
    CHECK_INT(field_i(&a, "state", "ply"), n);
    CHECK_STR(json_string_value(json_object_get(json_object_get(st, "options"), "burn")), "match");
    CHECK_STR(json_string_value(json_object_get(json_object_get(st, "options"), "rounds")),
              "match");
    CHECK_INT(field_i(&a, "state", "round"), 3);
    /* South houses 1-4 (pits 0-3) and North houses 1, 2 (pits 8, 9) are burnt; 39 idle seeds. */
    burnt = json_object_get(st, "burnt");
    CHECK_INT(json_array_size(burnt), 6);
    CHECK_INT(json_integer_value(json_array_get(burnt, 3)), 3);
    CHECK_INT(json_integer_value(json_array_get(json_object_get(st, "pits"), 7)), 39);
    /* The game ends (resignation) and the rematch is a new game under the new rule. */
    CHECK_INT(runf(&e.w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", code), 0);
    CHECK_INT(runf(&e.w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", code), 0);
    CHECK_INT(field_i(&a, "state", "ply"), 0);
    CHECK_STR(field_s(&a, "state", "status"), "playing");
    CHECK(json_object_get(json_object_get(last_of(&a, "state"), "options"), "burn") == NULL);
    CHECK_INT(mc_game_rules(srv_room_game(r))->burn, MC_BURN_ROUND);
    srv_persist_turn(e.persist);
    disconnect(&e.w, &a);
  }
  env_close(&e);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/mancala-persist-XXXXXX");
  if (mkdtemp(dir) == NULL)
    return 1;
  test_lost_batch();
  test_recovery();
  test_bad_row();
  test_old_burn_rule();
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "cannot remove %s\n", dir);
  return check_exit("server.persist");
}
