/* Takeback: at once at one screen; on request between people (accept, decline, cancelled by a
 * move, both asking); what is taken back (the asker's last move and everything after it); the
 * clocks; and durable storage (the stored moves are deleted, the clocks kept, and recovery after
 * a restart shows the game as taken back). Rooms on the fake clock, a real SQLite store. */
#include "harness.h"

#include "srv_persist.h"
#include "srv_recover.h"
#include "srv_store.h"
#include "srv_turn.h"
#include "store_util.h"

static char room[8];

static json_t *state_of(tclient *t) {
  return last_of(t, "state");
}

static long long ply_of(tclient *t) {
  return field_i(t, "state", "ply");
}

static long long clock_ms(tclient *t, const char *seat) {
  char key[16];
  snprintf(key, sizeof key, "%s_ms", seat);
  return json_integer_value(json_object_get(json_object_get(state_of(t), "clock"), key));
}

static long long pit(tclient *t, int i) {
  return json_integer_value(json_array_get(json_object_get(state_of(t), "pits"), (size_t)i));
}

static int move(world *w, tclient *t, int house, int ply) {
  return runf(w, t, "{\"type\":\"move\",\"room\":\"%s\",\"house\":%d,\"ply\":%d}", room, house,
              ply);
}

static int takeback(world *w, tclient *t, const char *action) {
  return runf(w, t, "{\"type\":\"takeback\",\"id\":9,\"room\":\"%s\",\"action\":\"%s\"}", room,
              action);
}

static void start_pair(world *w, tclient *a, tclient *b, const char *extra) {
  connect_as(w, a, "Ana");
  connect_as(w, b, "Bob");
  ASSERT_EQ(runf(w, a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"%s}", extra), 0);
  snprintf(room, sizeof room, "%s", field_s(a, "joined", "room"));
  ASSERT_EQ(runf(w, b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
}

/* Kalah 6x4 from the start, worked by hand (pits: South 1..6, store, North 1..6, store):
 *   ply 0 South 1: 4 seeds to South 2..5, North to move.
 *   ply 1 North 3: 4 seeds to North 4..6 and the store: an extra turn.
 *   ply 2 North 1: 4 seeds to North 2..5, South to move. */
static void three_plies(world *w, tclient *a, tclient *b) {
  ASSERT_EQ(move(w, a, 1, 0), 0);
  ASSERT_EQ(move(w, b, 3, 1), 0);
  ASSERT_STR_EQ(field_s(b, "state", "turn"), "north");
  ASSERT_EQ(move(w, b, 1, 2), 0);
  ASSERT_STR_EQ(field_s(a, "state", "turn"), "south");
  ASSERT_EQ(pit(a, 13), 1); /* North's store. */
}

TEST_IMPL(local_takes_back_at_once) {
  world w;
  world_init(&w, NULL);
  tclient a;
  connect_as(&w, &a, "Ana");
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"opponent\":\"local\"}"), 0);
  snprintf(room, sizeof room, "%s", field_s(&a, "joined", "room"));
  ASSERT_EQ(takeback(&w, &a, "offer"), SRV_ENOTHINGBACK); /* Nothing played yet. */
  three_plies(&w, &a, &a);
  /* One move at a time, the last first, whoever played it. */
  ASSERT_EQ(takeback(&w, &a, "offer"), 0);
  ASSERT_EQ(field_i(&a, "state", "id"), 9);
  ASSERT_EQ(ply_of(&a), 2);
  ASSERT_STR_EQ(field_s(&a, "state", "turn"), "north");
  ASSERT_STR_EQ(path_s(&a, "state", "last", "seat"), "north");
  ASSERT_EQ(json_integer_value(json_object_get(json_object_get(state_of(&a), "last"), "house")), 3);
  ASSERT_EQ(json_array_size(json_object_get(json_object_get(state_of(&a), "last"), "trace")), 0);
  ASSERT(json_is_null(json_object_get(state_of(&a), "takeback")));
  ASSERT_EQ(takeback(&w, &a, "offer"), 0);
  ASSERT_EQ(takeback(&w, &a, "offer"), 0);
  ASSERT_EQ(ply_of(&a), 0);
  ASSERT(json_is_null(json_object_get(state_of(&a), "last")));
  for (int i = 0; i < 14; i++)
    ASSERT_EQ(pit(&a, i), i == 6 || i == 13 ? 0 : 4);
  ASSERT_EQ(takeback(&w, &a, "offer"), SRV_ENOTHINGBACK);
  ASSERT_EQ(takeback(&w, &a, "accept"), SRV_ENOTAKEBACK); /* Nobody to answer at one screen. */
  /* The game goes on from there. */
  ASSERT_EQ(move(&w, &a, 3, 0), 0);
  ASSERT_EQ(ply_of(&a), 1);
  disconnect(&w, &a);
  world_free(&w);
  return 0;
}

TEST_IMPL(request_accept_decline) {
  world w;
  world_init(&w, NULL);
  tclient a, b, s;
  start_pair(&w, &a, &b, "");
  connect_as(&w, &s, "Sue");
  ASSERT_EQ(runf(&w, &s, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", room), 0);
  ASSERT_EQ(takeback(&w, &a, "offer"), SRV_ENOTHINGBACK); /* No move of South's yet. */
  ASSERT_EQ(takeback(&w, &s, "offer"), SRV_ENOTPLAYER);
  three_plies(&w, &a, &b);
  ASSERT_EQ(takeback(&w, &b, "accept"), SRV_ENOTAKEBACK);
  ASSERT_EQ(takeback(&w, &b, "decline"), SRV_ENOTAKEBACK);

  /* South asks: everyone sees the request; North declines and South sees the answer. */
  ASSERT_EQ(takeback(&w, &a, "offer"), 0);
  ASSERT_STR_EQ(field_s(&b, "state", "takeback"), "south");
  ASSERT_STR_EQ(field_s(&s, "state", "takeback"), "south");
  ASSERT_EQ(ply_of(&b), 3);
  ASSERT_EQ(takeback(&w, &a, "accept"), SRV_ENOTAKEBACK); /* Not its own request. */
  ASSERT_EQ(takeback(&w, &b, "decline"), 0);
  ASSERT(json_is_null(json_object_get(state_of(&a), "takeback")));
  ASSERT_STR_EQ(field_s(&a, "state", "takeback_declined"), "south");
  ASSERT_EQ(ply_of(&a), 3);

  /* Asked again and accepted: South's last move (ply 0) and North's two after it go. */
  ASSERT_EQ(takeback(&w, &a, "offer"), 0);
  ASSERT(json_is_null(json_object_get(state_of(&a), "takeback_declined")));
  ASSERT_EQ(takeback(&w, &b, "accept"), 0);
  ASSERT_EQ(field_i(&b, "state", "id"), 9);
  for (tclient *t = &a; t != NULL; t = t == &a ? &b : t == &b ? &s : NULL) {
    ASSERT_EQ(ply_of(t), 0);
    ASSERT_STR_EQ(field_s(t, "state", "turn"), "south");
    ASSERT(json_is_null(json_object_get(state_of(t), "last")));
    ASSERT(json_is_null(json_object_get(state_of(t), "takeback")));
    ASSERT_EQ(pit(t, 13), 0);
  }
  ASSERT_STR_EQ(field_s(&a, "state", "status"), "playing");
  disconnect(&w, &s);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

TEST_IMPL(what_is_taken_back) {
  world w;
  world_init(&w, NULL);
  tclient a, b;
  start_pair(&w, &a, &b, "");
  three_plies(&w, &a, &b);
  /* North, whose last move is ply 2, asks on South's turn: only ply 2 goes, North moves again. */
  ASSERT_EQ(takeback(&w, &b, "offer"), 0);
  ASSERT_EQ(takeback(&w, &a, "accept"), 0);
  ASSERT_EQ(ply_of(&a), 2);
  ASSERT_STR_EQ(field_s(&a, "state", "turn"), "north");
  ASSERT_STR_EQ(path_s(&a, "state", "last", "seat"), "north");

  /* A move cancels a standing request: North asks, then plays instead. */
  ASSERT_EQ(takeback(&w, &b, "offer"), 0);
  ASSERT_STR_EQ(field_s(&a, "state", "takeback"), "north");
  ASSERT_EQ(move(&w, &b, 1, 2), 0);
  ASSERT(json_is_null(json_object_get(state_of(&a), "takeback")));
  ASSERT_EQ(takeback(&w, &a, "accept"), SRV_ENOTAKEBACK);

  /* Both ask: the first request is granted (South's, asked first: back to ply 0). */
  ASSERT_EQ(takeback(&w, &a, "offer"), 0);
  ASSERT_EQ(takeback(&w, &b, "offer"), 0);
  ASSERT_EQ(ply_of(&a), 0);

  /* Never in a finished game, nor before one starts. */
  ASSERT_EQ(move(&w, &a, 1, 0), 0);
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(takeback(&w, &a, "offer"), SRV_EOVER);
  tclient c;
  connect_as(&w, &c, "Cy");
  ASSERT_EQ(run(&w, &c, "{\"type\":\"create\",\"game\":\"oware\"}"), 0);
  snprintf(room, sizeof room, "%s", field_s(&c, "joined", "room"));
  ASSERT_EQ(takeback(&w, &c, "offer"), SRV_ENOTPLAYING);
  disconnect(&w, &c);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

TEST_IMPL(clocks_give_no_time_back) {
  world w;
  world_init(&w, NULL);
  tclient a, b;
  start_pair(&w, &a, &b, ",\"clock\":{\"initial_ms\":60000,\"increment_ms\":1000}");
  ASSERT_EQ(move(&w, &a, 1, 0), 0); /* The first move is free. */
  fake_advance(&w.time, 5000);
  /* North's first move is free too (5 s before it, on its deadline): 60 s; an extra turn. */
  ASSERT_EQ(move(&w, &b, 3, 1), 0);
  ASSERT_EQ(clock_ms(&a, "north"), 60000);
  fake_advance(&w.time, 4000);
  ASSERT_EQ(move(&w, &b, 1, 2), 0); /* 60 - 4 + 1 = 57 s. */
  ASSERT_EQ(clock_ms(&a, "north"), 57000);
  fake_advance(&w.time, 2000);
  ASSERT_EQ(move(&w, &a, 2, 3), 0); /* South 2 (5 seeds, South 3..6 and the store): extra turn. */
  ASSERT_EQ(clock_ms(&a, "south"), 59000);
  fake_advance(&w.time, 3000);
  /* North asks to take back its move of ply 2 while South thinks; South accepts 3 s later. */
  ASSERT_EQ(takeback(&w, &b, "offer"), 0);
  ASSERT_EQ(takeback(&w, &a, "accept"), 0);
  ASSERT_EQ(ply_of(&a), 2);
  ASSERT_STR_EQ(field_s(&a, "state", "turn"), "north");
  /* Nobody gets time back: South keeps what it has (59 - 3), North's clock runs from 57 s. */
  ASSERT_EQ(clock_ms(&a, "south"), 56000);
  ASSERT_EQ(clock_ms(&a, "north"), 57000);
  ASSERT_STR_EQ(path_s(&a, "state", "clock", "running"), "north");
  fake_advance(&w.time, 1000);
  ASSERT_EQ(move(&w, &b, 1, 2), 0);
  ASSERT_EQ(clock_ms(&a, "north"), 57000); /* 57 - 1 + 1 */

  /* Back to the first position: no clock runs, the first mover's deadline starts again, and a
   * side with no move left starts from its initial time again. */
  ASSERT_EQ(takeback(&w, &a, "offer"), 0);
  ASSERT_EQ(takeback(&w, &b, "accept"), 0);
  ASSERT_EQ(ply_of(&a), 0);
  ASSERT(json_is_null(json_object_get(json_object_get(state_of(&a), "clock"), "running")));
  ASSERT_STR_EQ(path_s(&a, "state", "first_move", "seat"), "south");
  ASSERT_EQ(clock_ms(&a, "south"), 60000);
  ASSERT_EQ(clock_ms(&a, "north"), 60000);
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

TEST_IMPL(stored_and_recovered) {
  tmp_dir(dir, sizeof dir);
  env e;
  env_open(&e);
  tclient a, b;
  start_pair(&e.w, &a, &b, ",\"clock\":{\"initial_ms\":60000,\"increment_ms\":1000}");
  ASSERT_EQ(move(&e.w, &a, 1, 0), 0);
  fake_advance(&e.w.time, 5000);
  ASSERT_EQ(move(&e.w, &b, 3, 1), 0); /* North: 60 s (its first move is free). */
  ASSERT_EQ(move(&e.w, &b, 1, 2), 0); /* North: 61 s. */
  fake_advance(&e.w.time, 2000);
  ASSERT_EQ(move(&e.w, &a, 3, 3), 0); /* South: 60 - 2 + 1 = 59 s; North to move. */
  srv_turn_end(&e.turn);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM moves"), 4);
  fake_advance(&e.w.time, 4000);
  /* South takes back its move of ply 3 while North thinks (4 s gone from North's 61). */
  ASSERT_EQ(takeback(&e.w, &a, "offer"), 0);
  ASSERT_EQ(takeback(&e.w, &b, "accept"), 0);
  srv_turn_end(&e.turn);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM moves"), 3);
  ASSERT_EQ(raw_int(dir, "SELECT max(ply) FROM moves"), 2);
  /* Each side's last remaining move holds its time at the takeback. */
  ASSERT_EQ(raw_int(dir, "SELECT clock_ms FROM moves WHERE ply = 0"), 59000);
  ASSERT_EQ(raw_int(dir, "SELECT clock_ms FROM moves WHERE ply = 2"), 57000);
  ASSERT_EQ(clock_ms(&a, "south"), 59000);
  ASSERT_EQ(clock_ms(&a, "north"), 57000);
  /* The next move takes ply 3 again. */
  ASSERT_EQ(move(&e.w, &a, 4, 3), 0);
  srv_turn_end(&e.turn);
  ASSERT_EQ(raw_int(dir, "SELECT house FROM moves WHERE ply = 3"), 4);
  /* South's move came at once: 59 + 1 s; taken back, South keeps the 60 s it has. */
  ASSERT_EQ(takeback(&e.w, &a, "offer"), 0);
  ASSERT_EQ(takeback(&e.w, &b, "accept"), 0);
  ASSERT_EQ(clock_ms(&a, "south"), 60000);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);

  /* After a restart the game is as taken back, with the same clocks. */
  env_open(&e);
  srv_room *r = srv_rooms_find(e.w.rooms, room);
  ASSERT_NOT_NULL(r);
  ASSERT_EQ(mc_game_ply(srv_room_game(r)), 3);
  tclient a2;
  reconnect_as(&e.w, &a2, (srv_player *)srv_room_seat(r, 0));
  ASSERT_EQ(ply_of(&a2), 3);
  ASSERT_STR_EQ(field_s(&a2, "state", "turn"), "south");
  ASSERT_STR_EQ(path_s(&a2, "state", "last", "seat"), "north");
  ASSERT_EQ(json_array_size(json_object_get(state_of(&a2), "moves")), 3);
  ASSERT_EQ(clock_ms(&a2, "south"), 60000);
  ASSERT_EQ(clock_ms(&a2, "north"), 57000);
  disconnect(&e.w, &a2);
  env_close(&e);
  rm_tree(dir);
  return 0;
}

TEST_IMPL(lost_takeback_written_again) {
  tmp_dir(dir, sizeof dir);
  env e;
  env_open(&e);
  tclient a, b;
  start_pair(&e.w, &a, &b, "");
  three_plies(&e.w, &a, &b);
  srv_turn_end(&e.turn);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM moves"), 3);
  ASSERT_EQ(takeback(&e.w, &b, "offer"), 0);
  ASSERT_EQ(takeback(&e.w, &a, "accept"), 0);
  ASSERT_EQ(ply_of(&a), 2);
  /* The batch holding the deletion is lost (as a failed commit would lose it): the room, which
   * has the move taken back, records the game as it is again, and the store follows. */
  srv_store_rollback(e.store);
  ASSERT_EQ(srv_rooms_store_lost(e.w.rooms, room, 1, -1, false, SRV_ESTORAGE), 0);
  ASSERT_EQ(ply_of(&a), 2);
  srv_turn_end(&e.turn);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM moves"), 2);
  /* North plays ply 2 again: no conflict with a stale row. */
  ASSERT_EQ(move(&e.w, &b, 2, 2), 0);
  srv_turn_end(&e.turn);
  ASSERT_EQ(raw_int(dir, "SELECT house FROM moves WHERE ply = 2"), 2);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);
  rm_tree(dir);
  return 0;
}
