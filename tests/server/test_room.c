/* Room logic without sockets: seats, turns, clocks on a fake time source, reconnection,
 * abandonment, rematch, draw, local rooms, quick pairing, lobby, expiry and limits. */
#include "harness.h"

#include "srv_error.h"
#include "srv_room_int.h"

static char code[8];

/* The room code from the last joined event of t. */
static const char *joined_code(tclient *t) {
  snprintf(code, sizeof code, "%s", field_s(t, "joined", "room"));
  return code;
}

static json_t *state_of(tclient *t) {
  return last_of(t, "state");
}

static const char *status_of(tclient *t) {
  return field_s(t, "state", "status");
}

static long long clock_ms(tclient *t, const char *seat) {
  json_t *c = json_object_get(state_of(t), "clock");
  char key[16];
  snprintf(key, sizeof key, "%s_ms", seat);
  return json_integer_value(json_object_get(c, key));
}

/* A and B in a Kalah room, A South; returns the code. */
static const char *start_pair(world *w, tclient *a, tclient *b, const char *extra) {
  connect_as(w, a, "Ana");
  connect_as(w, b, "Bob");
  ASSERT_EQ(runf(w, a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"%s}", extra), 0);
  const char *c = joined_code(a);
  ASSERT_EQ(runf(w, b, "{\"type\":\"join\",\"room\":\"%s\"}", c), 0);
  return c;
}

TEST_IMPL(create_join_play) {
  world w;
  world_init(&w, NULL);
  tclient a, b, s, x;
  connect_as(&w, &a, "Ana");
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"id\":5,\"game\":\"kalah\",\"seat\":\"south\"}"), 0);
  ASSERT_EQ(field_i(&a, "joined", "id"), 5);
  ASSERT_STR_EQ(field_s(&a, "joined", "seat"), "south");
  ASSERT_STR_EQ(field_s(&a, "joined", "role"), "player");
  ASSERT_STR_EQ(status_of(&a), "waiting");
  ASSERT_STR_EQ(field_s(&a, "state", "you"), "south");
  ASSERT(json_is_null(json_object_get(json_object_get(state_of(&a), "players"), "north")));
  ASSERT_EQ(json_array_size(json_object_get(state_of(&a), "legal")), 0);
  char room[8];
  snprintf(room, sizeof room, "%s", joined_code(&a));
  ASSERT_EQ(strlen(room), 6);
  ASSERT(srv_rooms_find(w.rooms, room) != NULL);

  /* Moves before the game starts. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room),
            SRV_ENOTPLAYING);

  connect_as(&w, &b, "Bob");
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
  ASSERT_STR_EQ(field_s(&b, "joined", "seat"), "north");
  ASSERT_STR_EQ(status_of(&a), "playing");
  ASSERT_STR_EQ(status_of(&b), "playing");
  ASSERT_STR_EQ(field_s(&b, "state", "turn"), "south");
  ASSERT_STR_EQ(field_s(&b, "state", "you"), "north");
  ASSERT_STR_EQ(path_s(&a, "state", "players", "north"), ""); /* An object, not a string. */
  ASSERT_EQ(json_array_size(json_object_get(state_of(&a), "legal")), 6);

  connect_as(&w, &s, "Sue");
  ASSERT_EQ(runf(&w, &s, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"player\"}", room),
            SRV_EFULL);
  ASSERT_EQ(runf(&w, &s, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", room), 0);
  ASSERT_STR_EQ(field_s(&s, "joined", "role"), "spectator");
  ASSERT(json_is_null(json_object_get(last_of(&s, "joined"), "seat")));
  ASSERT_STR_EQ(field_s(&s, "state", "you"), "spectator");
  ASSERT_EQ(field_i(&a, "state", "spectators"), 1);
  ASSERT_EQ(runf(&w, &s, "{\"type\":\"join\",\"room\":\"%s\"}", "ZZZZZZ"), SRV_ENOTFOUND);
  ASSERT_EQ(runf(&w, &s, "{\"type\":\"join\",\"room\":\"%s\"}", "nope"), SRV_ENOTFOUND);

  /* Errors change nothing. */
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room),
            SRV_ETURN);
  ASSERT_EQ(runf(&w, &s, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room),
            SRV_ENOTPLAYER);
  connect_as(&w, &x, "Xan");
  ASSERT_EQ(runf(&w, &x, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room),
            SRV_ENOTMEMBER);
  ASSERT_EQ(runf(&w, &x, "{\"type\":\"move\",\"room\":\"ABCDEF\",\"house\":1,\"ply\":0}"),
            SRV_ENOTFOUND);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":3}", room),
            SRV_ESTALE);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":7,\"ply\":0}", room),
            SRV_EILLEGAL);
  ASSERT_EQ(field_i(&a, "state", "ply"), 0);

  /* South 3: 4 seeds land in 4, 5, 6 and the store: an extra turn. */
  ASSERT_EQ(
      runf(&w, &a, "{\"type\":\"move\",\"id\":\"m1\",\"room\":\"%s\",\"house\":3,\"ply\":0}", room),
      0);
  ASSERT_STR_EQ(field_s(&a, "state", "id"), "m1");
  ASSERT(json_object_get(state_of(&b), "id") == NULL);
  ASSERT_EQ(field_i(&b, "state", "ply"), 1);
  ASSERT_STR_EQ(field_s(&b, "state", "turn"), "south");
  json_t *last = json_object_get(state_of(&s), "last");
  ASSERT_STR_EQ(json_string_value(json_object_get(last, "seat")), "south");
  ASSERT_EQ(json_integer_value(json_object_get(last, "house")), 3);
  json_t *trace = json_object_get(last, "trace");
  ASSERT_EQ(json_array_size(trace), 6); /* pick, 4 sows, extra turn */
  ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(trace, 0), "kind")), "pick");
  ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(trace, 5), "kind")), "extra_turn");
  json_t *pits = json_object_get(state_of(&s), "pits");
  ASSERT_EQ(json_integer_value(json_array_get(pits, 6)), 1);
  /* A state after a move does not list the moves (its last holds this one); a full state, on
   * join or resync, lists them all. */
  ASSERT_NULL(json_object_get(state_of(&s), "moves"));
  ASSERT_EQ(runf(&w, &s, "{\"type\":\"resync\",\"id\":4,\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(field_i(&s, "state", "id"), 4);
  ASSERT_EQ(json_array_size(json_object_get(state_of(&s), "moves")), 1);
  ASSERT_STR_EQ(json_string_value(json_object_get(
                    json_array_get(json_object_get(state_of(&s), "moves"), 0), "seat")),
                "south");
  ASSERT_EQ(field_i(&b, "state", "id"), -1);
  /* The retried move is stale, not played twice. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":3,\"ply\":0}", room),
            SRV_ESTALE);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":3,\"ply\":1}", room),
            SRV_EILLEGAL);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":1}", room), 0);
  ASSERT_STR_EQ(field_s(&b, "state", "turn"), "north");

  /* Chat reaches everyone, with the sender's name. */
  ASSERT_EQ(runf(&w, &s, "{\"type\":\"chat\",\"id\":3,\"room\":\"%s\",\"text\":\"nice\"}", room),
            0);
  ASSERT_STR_EQ(field_s(&a, "chat", "from"), "Sue");
  ASSERT_STR_EQ(field_s(&b, "chat", "text"), "nice");
  ASSERT_EQ(field_i(&s, "chat", "id"), 3);
  ASSERT(field_i(&a, "chat", "at") > 1700000000000LL);
  ASSERT_EQ(runf(&w, &x, "{\"type\":\"chat\",\"room\":\"%s\",\"text\":\"hi\"}", room),
            SRV_ENOTMEMBER);

  /* Resign: North gives up, South wins. */
  ASSERT_EQ(runf(&w, &s, "{\"type\":\"resign\",\"room\":\"%s\"}", room), SRV_ENOTPLAYER);
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  ASSERT_STR_EQ(status_of(&a), "finished");
  ASSERT_STR_EQ(path_s(&a, "state", "result", "winner"), "south");
  ASSERT_STR_EQ(path_s(&s, "state", "result", "reason"), "resignation");
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":2}", room),
            SRV_EOVER);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", room), SRV_EOVER);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"offer\"}", room),
            SRV_EOVER);
  disconnect(&w, &a);
  disconnect(&w, &b);
  disconnect(&w, &s);
  disconnect(&w, &x);
  world_free(&w);
  return 0;
}

/* A move for another ply than the room's is stale and changes nothing: a retried move is never
 * played twice. */
TEST_IMPL(move_stale) {
  world w;
  world_init(&w, NULL);
  tclient a, b;
  char room[8];
  snprintf(room, sizeof room, "%s", start_pair(&w, &a, &b, ""));
  /* South 3 of Kalah 6x4: 4 seeds reach houses 4, 5, 6 and the store, an extra turn: ply 1. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":3,\"ply\":0}", room), 0);
  ASSERT_EQ(field_i(&b, "state", "ply"), 1);
  int seen = b.n;
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":3,\"ply\":0}", room),
            SRV_ESTALE);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":2}", room),
            SRV_ESTALE);
  ASSERT_EQ(b.n, seen);
  ASSERT_EQ(field_i(&b, "state", "ply"), 1);
  ASSERT_STR_EQ(field_s(&b, "state", "turn"), "south");
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

TEST_IMPL(game_to_the_end) {
  world w;
  world_init(&w, NULL);
  tclient a, b;
  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bob");
  ASSERT_EQ(
      run(&w, &a,
          "{\"type\":\"create\",\"game\":\"kalah\",\"houses\":1,\"seeds\":1,\"seat\":\"south\"}"),
      0);
  const char *room = joined_code(&a);
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
  /* South's only seed reaches the store; South's side is empty: North sweeps 1. A draw. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  ASSERT_STR_EQ(status_of(&b), "finished");
  ASSERT_STR_EQ(path_s(&b, "state", "result", "winner"), "draw");
  ASSERT_STR_EQ(path_s(&b, "state", "result", "reason"), "no_seeds");
  json_t *score = json_object_get(json_object_get(state_of(&b), "result"), "score");
  ASSERT_EQ(json_integer_value(json_array_get(score, 0)), 1);
  ASSERT_EQ(json_integer_value(json_array_get(score, 1)), 1);
  ASSERT(json_is_null(json_object_get(state_of(&b), "turn")));
  ASSERT_EQ(json_array_size(json_object_get(state_of(&b), "legal")), 0);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

TEST_IMPL(clocks) {
  world w;
  world_init(&w, NULL);
  tclient a, b;
  const char *room =
      start_pair(&w, &a, &b, ",\"clock\":{\"initial_ms\":1000,\"increment_ms\":500}");
  /* No clock runs before the first move (docs/protocol.md, "When clocks start"). */
  ASSERT(json_is_null(json_object_get(json_object_get(state_of(&a), "clock"), "running")));
  ASSERT_EQ(clock_ms(&a, "south"), 1000);
  fake_advance(&w.time, 400);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  ASSERT_EQ(clock_ms(&a, "south"), 1000); /* The first move: nothing ran, nothing added. */
  ASSERT_EQ(clock_ms(&a, "north"), 1000);
  /* North's first move has its own deadline: no clock runs yet. */
  ASSERT(json_is_null(json_object_get(json_object_get(state_of(&a), "clock"), "running")));
  fake_advance(&w.time, 300);
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":1}", room), 0);
  ASSERT_EQ(clock_ms(&a, "north"), 1000); /* Free as well. */
  ASSERT_STR_EQ(path_s(&a, "state", "clock", "running"), "south");
  fake_advance(&w.time, 999);
  ASSERT_STR_EQ(status_of(&a), "playing");
  /* The flag falls with nobody sending anything. */
  fake_advance(&w.time, 1);
  ASSERT_STR_EQ(status_of(&a), "finished");
  ASSERT_STR_EQ(path_s(&b, "state", "result", "reason"), "timeout");
  ASSERT_STR_EQ(path_s(&b, "state", "result", "winner"), "north");
  ASSERT_EQ(clock_ms(&b, "south"), 0);
  ASSERT(json_is_null(json_object_get(json_object_get(state_of(&b), "clock"), "running")));
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);

  /* A move that arrives after the flag fell but before the timer ran loses on time. */
  world_init(&w, NULL);
  room = start_pair(&w, &a, &b, ",\"clock\":{\"initial_ms\":1000}");
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":1}", room), 0);
  w.time.now += 1500; /* Time passes without the timer firing. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":2,\"ply\":2}", room),
            SRV_EOVER);
  ASSERT_STR_EQ(path_s(&b, "state", "result", "reason"), "timeout");
  ASSERT_STR_EQ(path_s(&b, "state", "result", "winner"), "north");
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

TEST_IMPL(reconnect_and_abandon) {
  world w;
  world_init(&w, NULL);
  tclient a, b, a2;
  char room[8];
  snprintf(room, sizeof room, "%s", start_pair(&w, &a, &b, ""));
  srv_player *ana = a.c.player;

  /* North goes away on South's turn: no countdown yet. */
  disconnect(&w, &b);
  json_t *north = json_object_get(json_object_get(state_of(&a), "players"), "north");
  ASSERT(json_is_false(json_object_get(north, "connected")));
  ASSERT(json_is_null(json_object_get(state_of(&a), "abandon")));
  fake_advance(&w.time, 120000);
  ASSERT_STR_EQ(status_of(&a), "playing");
  /* South moves: now North's countdown runs. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  ASSERT_STR_EQ(path_s(&a, "state", "abandon", "seat"), "north");
  ASSERT_EQ(json_integer_value(json_object_get(json_object_get(state_of(&a), "abandon"), "ms")),
            60000);
  fake_advance(&w.time, 59999);
  ASSERT_STR_EQ(status_of(&a), "playing");
  fake_advance(&w.time, 1);
  ASSERT_STR_EQ(status_of(&a), "finished");
  ASSERT_STR_EQ(path_s(&a, "state", "result", "reason"), "abandoned");
  ASSERT_STR_EQ(path_s(&a, "state", "result", "winner"), "south");
  disconnect(&w, &a);
  world_free(&w);

  /* South drops on their own turn and comes back in time: seat, state and countdown reset. */
  world_init(&w, NULL);
  snprintf(room, sizeof room, "%s", start_pair(&w, &a, &b, ""));
  ana = a.c.player;
  srv_ident_ref(ana); /* Keep the identity while the connection is gone (as a token would). */
  disconnect(&w, &a);
  ASSERT_STR_EQ(path_s(&b, "state", "abandon", "seat"), "south");
  fake_advance(&w.time, 30000);
  reconnect_as(&w, &a2, ana);
  srv_ident_unref(w.ident, ana);
  ASSERT_STR_EQ(field_s(&a2, "joined", "room"), room);
  ASSERT_STR_EQ(field_s(&a2, "joined", "seat"), "south");
  ASSERT_STR_EQ(field_s(&a2, "state", "you"), "south");
  ASSERT(json_is_null(json_object_get(state_of(&b), "abandon")));
  json_t *south = json_object_get(json_object_get(state_of(&b), "players"), "south");
  ASSERT(json_is_true(json_object_get(south, "connected")));
  fake_advance(&w.time, 60000);
  ASSERT_STR_EQ(status_of(&b), "playing");
  ASSERT_EQ(runf(&w, &a2, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  /* join on a seat you hold gives it back, from any connection of the player. */
  tclient a3;
  reconnect_as(&w, &a3, ana);
  ASSERT_EQ(runf(&w, &a3, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", room), 0);
  ASSERT_STR_EQ(field_s(&a3, "joined", "seat"), "south");
  disconnect(&w, &a2);
  disconnect(&w, &a3);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

TEST_IMPL(draw) {
  world w;
  world_init(&w, NULL);
  tclient a, b;
  char room[8];
  snprintf(room, sizeof room, "%s", start_pair(&w, &a, &b, ""));
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"accept\"}", room),
            SRV_ENOOFFER);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"offer\"}", room), 0);
  ASSERT_STR_EQ(field_s(&b, "state", "draw_offer"), "south");
  /* The one who offered cannot accept their own offer. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"accept\"}", room),
            SRV_ENOOFFER);
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"decline\"}", room), 0);
  ASSERT(json_is_null(json_object_get(state_of(&a), "draw_offer")));
  /* An offer survives the offerer's own move, and ends with the opponent's. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"offer\"}", room), 0);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  ASSERT_STR_EQ(field_s(&b, "state", "draw_offer"), "south");
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":1}", room), 0);
  ASSERT(json_is_null(json_object_get(state_of(&a), "draw_offer")));
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"offer\"}", room), 0);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"accept\"}", room), 0);
  ASSERT_STR_EQ(status_of(&b), "finished");
  ASSERT_STR_EQ(path_s(&b, "state", "result", "winner"), "draw");
  ASSERT_STR_EQ(path_s(&b, "state", "result", "reason"), "agreement");
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

TEST_IMPL(rematch) {
  world w;
  world_init(&w, NULL);
  tclient a, b, s;
  char room[8];
  snprintf(room, sizeof room, "%s", start_pair(&w, &a, &b, ",\"clock\":{\"initial_ms\":60000}"));
  connect_as(&w, &s, "Sue");
  ASSERT_EQ(runf(&w, &s, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", room), 0);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), SRV_ENOTOVER);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(runf(&w, &s, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), SRV_ENOTPLAYER);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), 0);
  ASSERT(json_is_true(json_object_get(json_object_get(state_of(&b), "rematch"), "south")));
  ASSERT_STR_EQ(status_of(&b), "finished");
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), 0);
  /* A new game with the seats swapped: Bob is South now and moves first. */
  ASSERT_STR_EQ(status_of(&a), "playing");
  ASSERT_EQ(field_i(&a, "state", "game_no"), 2);
  ASSERT_EQ(field_i(&a, "state", "ply"), 0);
  ASSERT_STR_EQ(field_s(&a, "state", "you"), "north");
  ASSERT_STR_EQ(field_s(&b, "state", "you"), "south");
  ASSERT_STR_EQ(field_s(&s, "state", "you"), "spectator");
  ASSERT(json_is_null(json_object_get(state_of(&a), "result")));
  ASSERT(json_is_null(json_object_get(state_of(&a), "last")));
  ASSERT_EQ(clock_ms(&a, "south"), 60000);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room),
            SRV_ETURN);
  ASSERT_EQ(
      runf(&w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0,\"id\":7}", room), 0);
  /* One state, three views (the mover's copy answering its request): only "you" differs. */
  ASSERT_STR_EQ(field_s(&a, "state", "you"), "north");
  ASSERT_STR_EQ(field_s(&b, "state", "you"), "south");
  ASSERT_STR_EQ(field_s(&s, "state", "you"), "spectator");
  json_t *views[3] = {json_deep_copy(state_of(&a)), json_deep_copy(state_of(&b)),
                      json_deep_copy(state_of(&s))};
  ASSERT_EQ(json_integer_value(json_object_get(views[1], "id")), 7);
  ASSERT_NULL(json_object_get(views[0], "id"));
  for (int i = 0; i < 3; i++) {
    ASSERT_EQ(json_integer_value(json_object_get(views[i], "ply")), 1);
    json_object_del(views[i], "you");
    json_object_del(views[i], "id");
  }
  ASSERT(json_equal(views[0], views[1]));
  ASSERT(json_equal(views[0], views[2]));
  for (int i = 0; i < 3; i++)
    json_decref(views[i]);
  disconnect(&w, &a);
  disconnect(&w, &b);
  disconnect(&w, &s);
  world_free(&w);
  return 0;
}

TEST_IMPL(local) {
  world w;
  world_init(&w, NULL);
  tclient a;
  connect_as(&w, &a, "Ana");
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"oware\",\"opponent\":\"local\"}"), 0);
  const char *room = joined_code(&a);
  ASSERT_STR_EQ(field_s(&a, "joined", "seat"), "both");
  ASSERT_STR_EQ(field_s(&a, "state", "you"), "both");
  ASSERT_STR_EQ(status_of(&a), "playing");
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":6,\"ply\":0}", room), 0);
  ASSERT_STR_EQ(field_s(&a, "state", "turn"), "north");
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":6,\"ply\":1}", room), 0);
  ASSERT_STR_EQ(field_s(&a, "state", "turn"), "south");
  /* Draws in a local room: offered and accepted on the same screen. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"offer\"}", room), 0);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"decline\"}", room), 0);
  /* Resigning in a local room: the side to move resigns. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  ASSERT_STR_EQ(path_s(&a, "state", "result", "winner"), "north");
  /* One rematch request restarts a local room. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), 0);
  ASSERT_STR_EQ(status_of(&a), "playing");
  /* Not listed in the lobby, and nobody else can sit. */
  ASSERT_EQ(run(&w, &a, "{\"type\":\"lobby\"}"), 0);
  ASSERT_EQ(json_array_size(json_object_get(last_of(&a, "lobby"), "rooms")), 0);
  tclient b;
  connect_as(&w, &b, "Bob");
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), SRV_EFULL);
  /* A local room has no abandonment: it closes when idle. */
  disconnect(&w, &a);
  fake_advance(&w.time, 60000);
  ASSERT(srv_rooms_find(w.rooms, room) != NULL);
  fake_advance(&w.time, 600000);
  ASSERT(srv_rooms_find(w.rooms, room) == NULL);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

/* Flushes the lobby and lets the clock run past its pace (250 ms), so that a change held back
 * because it came too soon after the last list goes out too. */
static void lobby_settle(world *w) {
  srv_lobby_flush(w->lobby);
  fake_advance(&w->time, 250);
}

TEST_IMPL(quick_and_lobby) {
  world w;
  world_init(&w, NULL);
  tclient a, b, c, d, watcher;
  connect_as(&w, &watcher, "Wes");
  ASSERT_EQ(run(&w, &watcher, "{\"type\":\"lobby\",\"id\":1}"), 0);
  ASSERT_EQ(field_i(&watcher, "lobby", "id"), 1);
  ASSERT_EQ(json_array_size(json_object_get(last_of(&watcher, "lobby"), "rooms")), 0);
  int lobbies = count_of(&watcher, "lobby");

  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bob");
  connect_as(&w, &c, "Cy");
  connect_as(&w, &d, "Di");
  ASSERT_EQ(run(&w, &a, "{\"type\":\"quick\",\"game\":\"kalah\"}"), 0);
  char room[8];
  snprintf(room, sizeof room, "%s", joined_code(&a));
  ASSERT_STR_EQ(status_of(&a), "waiting");
  /* Asking twice gives the same room. */
  ASSERT_EQ(run(&w, &a, "{\"type\":\"quick\",\"game\":\"kalah\"}"), 0);
  ASSERT_STR_EQ(joined_code(&a), room);
  /* Private rooms are never listed. */
  ASSERT_EQ(run(&w, &d, "{\"type\":\"create\",\"game\":\"kalah\",\"visibility\":\"private\"}"), 0);
  char priv[8];
  snprintf(priv, sizeof priv, "%s", joined_code(&d));
  /* The lobby goes out once per flush, however many changes. */
  ASSERT_EQ(count_of(&watcher, "lobby"), lobbies);
  srv_lobby_flush(w.lobby);
  ASSERT_EQ(count_of(&watcher, "lobby"), lobbies + 1);
  srv_lobby_flush(w.lobby);
  ASSERT_EQ(count_of(&watcher, "lobby"), lobbies + 1);
  json_t *rooms = json_object_get(last_of(&watcher, "lobby"), "rooms");
  ASSERT_EQ(json_array_size(rooms), 1);
  json_t *r0 = json_array_get(rooms, 0);
  ASSERT_STR_EQ(json_string_value(json_object_get(r0, "code")), room);
  ASSERT_STR_EQ(json_string_value(json_object_get(r0, "status")), "waiting");
  ASSERT_STR_EQ(json_string_value(json_object_get(r0, "game")), "kalah");
  /* A different game or clock does not pair. */
  ASSERT_EQ(run(&w, &c, "{\"type\":\"quick\",\"game\":\"kalah\",\"clock\":{\"initial_ms\":60000}}"),
            0);
  ASSERT(strcmp(joined_code(&c), room) != 0);
  ASSERT_STR_EQ(status_of(&c), "waiting");
  /* Same table: paired with the oldest waiting room. */
  ASSERT_EQ(run(&w, &b, "{\"type\":\"quick\",\"game\":\"kalah\"}"), 0);
  ASSERT_STR_EQ(joined_code(&b), room);
  ASSERT_STR_EQ(status_of(&a), "playing");
  ASSERT_STR_EQ(status_of(&b), "playing");
  lobby_settle(&w);
  rooms = json_object_get(last_of(&watcher, "lobby"), "rooms");
  ASSERT_EQ(json_array_size(rooms), 2);
  ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(rooms, 0), "status")), "playing");
  /* Joining a private room by its code works. */
  ASSERT_EQ(runf(&w, &watcher, "{\"type\":\"join\",\"room\":\"%s\"}", priv), 0);
  ASSERT_STR_EQ(status_of(&d), "playing");
  /* A waiting room whose player went away is not offered to anyone. */
  tclient e;
  connect_as(&w, &e, "Eve");
  ASSERT_EQ(run(&w, &e, "{\"type\":\"create\",\"game\":\"oware\"}"), 0);
  char eve[8];
  snprintf(eve, sizeof eve, "%s", joined_code(&e));
  lobby_settle(&w);
  ASSERT_EQ(json_array_size(json_object_get(last_of(&watcher, "lobby"), "rooms")), 3);
  srv_player *evep = e.c.player;
  srv_ident_ref(evep);
  disconnect(&w, &e);
  lobby_settle(&w);
  ASSERT_EQ(json_array_size(json_object_get(last_of(&watcher, "lobby"), "rooms")), 2);
  reconnect_as(&w, &e, evep);
  srv_ident_unref(w.ident, evep);
  lobby_settle(&w);
  ASSERT_EQ(json_array_size(json_object_get(last_of(&watcher, "lobby"), "rooms")), 3);
  ASSERT_STR_EQ(joined_code(&e), eve);
  disconnect(&w, &e);
  /* Unwatch. */
  ASSERT_EQ(run(&w, &watcher, "{\"type\":\"lobby\",\"watch\":false}"), 0);
  lobbies = count_of(&watcher, "lobby");
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  lobby_settle(&w);
  ASSERT_EQ(count_of(&watcher, "lobby"), lobbies);
  /* quick and create refuse a computer where none runs (this world has no thinker), quick a
   * local opponent. */
  ASSERT_EQ(run(&w, &a, "{\"type\":\"quick\",\"game\":\"kalah\",\"opponent\":\"computer\"}"),
            SRV_EUNSUPPORTED);
  ASSERT_EQ(
      run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"opponent\":\"computer\",\"level\":2}"),
      SRV_EUNSUPPORTED);
  disconnect(&w, &a);
  disconnect(&w, &b);
  disconnect(&w, &c);
  disconnect(&w, &d);
  disconnect(&w, &watcher);
  world_free(&w);
  return 0;
}

TEST_IMPL(leave_expiry_limits) {
  srv_room_limits limits = {60000, 5000, 20000, 2, 1000, 0, 0, 0, 0, 0, 0};
  world w;
  world_init(&w, &limits);
  tclient a, b;
  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bob");
  /* Leaving a waiting room frees the seat; an empty waiting room closes. */
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\"}"), 0);
  char room[8];
  snprintf(room, sizeof room, "%s", joined_code(&a));
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", room), 0);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"leave\",\"id\":4,\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(field_i(&a, "left", "id"), 4);
  ASSERT(srv_rooms_find(w.rooms, room) == NULL);
  ASSERT_STR_EQ(field_s(&b, "closed", "room"), room);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"leave\",\"room\":\"%s\"}", room), SRV_ENOTFOUND);

  /* Rooms per player. */
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\"}"), 0);
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"oware\"}"), 0);
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"congkak\"}"), SRV_EROOMS);

  /* A room nobody is in closes after idle_ms. */
  snprintf(room, sizeof room, "%s", joined_code(&a));
  srv_player *ana = a.c.player;
  srv_ident_ref(ana);
  disconnect(&w, &a);
  fake_advance(&w.time, 4999);
  ASSERT(srv_rooms_find(w.rooms, room) != NULL);
  fake_advance(&w.time, 1);
  ASSERT(srv_rooms_find(w.rooms, room) == NULL);
  srv_ident_unref(w.ident, ana);
  disconnect(&w, &b);
  world_free(&w);

  /* A finished room stays for finished_ms, then closes with a notice. */
  world_init(&w, &limits);
  const char *c = start_pair(&w, &a, &b, "");
  snprintf(room, sizeof room, "%s", c);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  fake_advance(&w.time, 19999);
  ASSERT(srv_rooms_find(w.rooms, room) != NULL);
  fake_advance(&w.time, 1);
  ASSERT(srv_rooms_find(w.rooms, room) == NULL);
  ASSERT_STR_EQ(field_s(&b, "closed", "reason"), "expired");
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

/* Plays the first legal house of the last state t saw. */
static int play_first(world *w, tclient *t, const char *room) {
  json_t *st = state_of(t);
  long long house = json_integer_value(json_array_get(json_object_get(st, "legal"), 0));
  long long ply = json_integer_value(json_object_get(st, "ply"));
  return runf(w, t, "{\"type\":\"move\",\"room\":\"%s\",\"house\":%lld,\"ply\":%lld}", room, house,
              ply);
}

static bool trace_has(tclient *t, const char *kind) {
  json_t *trace = json_object_get(json_object_get(state_of(t), "last"), "trace");
  for (size_t i = 0; i < json_array_size(trace); i++) {
    if (strcmp(json_string_value(json_object_get(json_array_get(trace, i), "kind")), kind) == 0)
      return true;
  }
  return false;
}

TEST_IMPL(congkak_match) {
  world w;
  world_init(&w, NULL);
  tclient a;
  connect_as(&w, &a, "Ana");
  ASSERT_EQ(run(&w, &a,
                "{\"type\":\"create\",\"game\":\"congkak\",\"houses\":3,\"seeds\":2,"
                "\"opponent\":\"local\",\"options\":{\"rounds\":\"match\"}}"),
            0);
  char room[8];
  snprintf(room, sizeof room, "%s", joined_code(&a));
  ASSERT_STR_EQ(path_s(&a, "state", "options", "rounds"), "match");
  ASSERT_EQ(field_i(&a, "state", "round"), 1);
  /* First legal houses: the first round ends at ply 4 and South's house 1 burns. */
  for (int i = 0; i < 4; i++)
    ASSERT_EQ(play_first(&w, &a, room), 0);
  ASSERT_EQ(field_i(&a, "state", "round"), 2);
  json_t *burnt = json_object_get(state_of(&a), "burnt");
  ASSERT_EQ(json_array_size(burnt), 1);
  ASSERT_EQ(json_integer_value(json_array_get(burnt, 0)), 0);
  ASSERT(trace_has(&a, "round_end"));
  ASSERT(trace_has(&a, "refill"));
  ASSERT(trace_has(&a, "burn"));
  /* A burnt house is not legal. */
  json_t *legal = json_object_get(state_of(&a), "legal");
  for (size_t i = 0; i < json_array_size(legal); i++)
    ASSERT(json_integer_value(json_array_get(legal, i)) != 1 ||
           strcmp(field_s(&a, "state", "turn"), "south") != 0);
  int guard = 0;
  while (strcmp(status_of(&a), "playing") == 0 && guard++ < 1000)
    ASSERT_EQ(play_first(&w, &a, room), 0);
  ASSERT_STR_EQ(status_of(&a), "finished");
  ASSERT_STR_EQ(path_s(&a, "state", "result", "reason"), "no_seeds");
  disconnect(&w, &a);
  world_free(&w);
  return 0;
}

static int store_calls[SRV_RECORD_KINDS];
static int64_t store_game_ids[8];
static int store_games;

static void store_listener(void *ud, const srv_record *ev) {
  (void)ud;
  store_calls[ev->kind]++;
  if (ev->kind == SRV_RECORD_GAME_STARTED && store_games < 8)
    store_game_ids[store_games++] = ev->game_id;
}

/* Storage only listens: every change is recorded as it happens, and the games' ids come from the
 * rooms (one after another from where recovery set them), never from storage. */
TEST_IMPL(store_seam) {
  world w;
  world_init(&w, NULL);
  srv_recorder recorder = {store_listener, NULL};
  srv_rooms_set_recorder(w.rooms, &recorder);
  tclient a, b;
  char room[8];
  snprintf(room, sizeof room, "%s", start_pair(&w, &a, &b, ""));
  ASSERT_EQ(store_calls[SRV_RECORD_ROOM_OPENED], 1);
  ASSERT_EQ(store_calls[SRV_RECORD_GAME_STARTED], 1);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  ASSERT_EQ(store_calls[SRV_RECORD_MOVE], 1);
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":1}", room), 0);
  ASSERT_EQ(store_calls[SRV_RECORD_MOVE], 2);
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(store_calls[SRV_RECORD_GAME_FINISHED], 1);
  /* The first game got id 1; after recovery set the next id to 41, a rematch's game is 41. */
  ASSERT_EQ(store_games, 1);
  ASSERT_EQ(store_game_ids[0], 1);
  srv_rooms_set_next_game_id(w.rooms, 41);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(store_games, 2);
  ASSERT_EQ(store_game_ids[1], 41);
  ASSERT_EQ(store_calls[SRV_RECORD_GAME_STARTED], 2);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

/* A cluster's node gives ids from the time and its lane: two games started in one millisecond
 * get the next millisecond's id, and a single process's counted ids stay below them. */
TEST_IMPL(game_id_lanes) {
  world w;
  world_init(&w, NULL);
  memset(store_game_ids, 0, sizeof store_game_ids);
  store_games = 0;
  srv_recorder recorder = {store_listener, NULL};
  srv_rooms_set_recorder(w.rooms, &recorder);
  srv_rooms_set_game_id_lane(w.rooms, 5);
  tclient a, b, c, d;
  char room[8];
  snprintf(room, sizeof room, "%s", start_pair(&w, &a, &b, ""));
  start_pair(&w, &c, &d, ""); /* The same millisecond of the fake clock. */
  ASSERT_EQ(store_games, 2);
  /* The fake wall clock reads 1,700,001,000,000 ms (its epoch plus its monotonic start):
   * (ms << 12) | 5, then one millisecond on. */
  ASSERT_EQ(store_game_ids[0], 6963204096000005LL);
  ASSERT_EQ(store_game_ids[1], 6963204096004101LL);
  /* 2 s later a rematch takes the clock's own millisecond. */
  fake_advance(&w.time, 2000);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(store_games, 3);
  ASSERT_EQ(store_game_ids[2], 6963204104192005LL);
  disconnect(&w, &a);
  disconnect(&w, &b);
  disconnect(&w, &c);
  disconnect(&w, &d);
  world_free(&w);
  return 0;
}

/* Lobby changes go to the watchers at most every 250 ms, the last one always. */
TEST_IMPL(lobby_pace) {
  world w;
  world_init(&w, NULL);
  tclient watcher, a, b;
  connect_as(&w, &watcher, "Wes");
  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bob");
  ASSERT_EQ(run(&w, &watcher, "{\"type\":\"lobby\"}"), 0);
  int lobbies = count_of(&watcher, "lobby");
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\"}"), 0);
  srv_lobby_flush(w.lobby);
  ASSERT_EQ(count_of(&watcher, "lobby"), lobbies + 1);
  /* A second change 100 ms later waits for the pace... */
  fake_advance(&w.time, 100);
  ASSERT_EQ(run(&w, &b, "{\"type\":\"create\",\"game\":\"oware\"}"), 0);
  srv_lobby_flush(w.lobby);
  ASSERT_EQ(count_of(&watcher, "lobby"), lobbies + 1);
  fake_advance(&w.time, 149);
  ASSERT_EQ(count_of(&watcher, "lobby"), lobbies + 1);
  /* ...and goes out by itself when it is over, with both rooms. */
  fake_advance(&w.time, 1);
  ASSERT_EQ(count_of(&watcher, "lobby"), lobbies + 2);
  ASSERT_EQ(json_array_size(json_object_get(last_of(&watcher, "lobby"), "rooms")), 2);
  disconnect(&w, &a);
  disconnect(&w, &b);
  disconnect(&w, &watcher);
  world_free(&w);
  return 0;
}

/* The --rooms-per-player count (srv_player.active_rooms, kept where rooms change rather than
 * counted by a walk over every room): after each change, the number of unfinished rooms where the
 * player holds a seat, counted here by hand. */
TEST_IMPL(active_rooms) {
  srv_room_limits limits = {60000, 5000, 20000, 3, 1000, 0, 0, 0, 0, 0, 0};
  world w;
  world_init(&w, &limits);
  tclient a, b;
  char pair[8], local[8], third[8];
  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bob");
  srv_player *ana = a.c.player, *bob = b.c.player;
  ASSERT_EQ(ana->active_rooms, 0);
  /* Ana creates a room: waiting, her seat counts. */
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"}"), 0);
  snprintf(pair, sizeof pair, "%s", joined_code(&a));
  ASSERT_EQ(ana->active_rooms, 1);
  ASSERT_EQ(bob->active_rooms, 0);
  /* Bob joins as the player: the game starts, one room each. */
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", pair), 0);
  ASSERT_STR_EQ(status_of(&a), "playing");
  ASSERT_EQ(ana->active_rooms, 1);
  ASSERT_EQ(bob->active_rooms, 1);
  /* A local room: both seats are Ana's, one room. */
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"oware\",\"opponent\":\"local\"}"), 0);
  snprintf(local, sizeof local, "%s", joined_code(&a));
  ASSERT_EQ(ana->active_rooms, 2);
  /* A third, waiting; Bob watches it: spectators hold no seat. */
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"congkak\"}"), 0);
  snprintf(third, sizeof third, "%s", joined_code(&a));
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", third), 0);
  ASSERT_EQ(ana->active_rooms, 3);
  ASSERT_EQ(bob->active_rooms, 1);
  /* At the limit (3): a fourth is refused. */
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\"}"), SRV_EROOMS);
  ASSERT_EQ(ana->active_rooms, 3);
  /* Leaving the waiting room frees her seat (and closes it). */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"leave\",\"room\":\"%s\"}", third), 0);
  ASSERT(srv_rooms_find(w.rooms, third) == NULL);
  ASSERT_EQ(ana->active_rooms, 2);
  ASSERT_EQ(bob->active_rooms, 1);
  /* Finished: the pair's room no longer counts for either, though both still hold their seat. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", pair), 0);
  ASSERT_STR_EQ(status_of(&b), "finished");
  ASSERT_EQ(ana->active_rooms, 1);
  ASSERT_EQ(bob->active_rooms, 0);
  /* The local room finished too; then restarted by a rematch: it counts again. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", local), 0);
  ASSERT_EQ(ana->active_rooms, 0);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", local), 0);
  ASSERT_EQ(ana->active_rooms, 1);
  /* The pair's rematch (seats swapped): one room each again. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", pair), 0);
  ASSERT_EQ(ana->active_rooms, 1);
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"rematch\",\"room\":\"%s\"}", pair), 0);
  ASSERT_STR_EQ(status_of(&a), "playing");
  ASSERT_EQ(ana->active_rooms, 2);
  ASSERT_EQ(bob->active_rooms, 1);
  /* Finished again, then closed after finished_ms: closing a finished room changes nothing. */
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"resign\",\"room\":\"%s\"}", pair), 0);
  ASSERT_EQ(ana->active_rooms, 1);
  ASSERT_EQ(bob->active_rooms, 0);
  fake_advance(&w.time, 20000);
  ASSERT(srv_rooms_find(w.rooms, pair) == NULL);
  ASSERT_EQ(ana->active_rooms, 1);
  ASSERT_EQ(bob->active_rooms, 0);
  /* A waiting room of Bob's that closes when idle (nobody in it) gives his seat back. */
  ASSERT_EQ(run(&w, &b, "{\"type\":\"create\",\"game\":\"kalah\"}"), 0);
  ASSERT_EQ(bob->active_rooms, 1);
  srv_ident_ref(bob);
  disconnect(&w, &b);
  fake_advance(&w.time, 5000);
  ASSERT_EQ(bob->active_rooms, 0);
  srv_ident_unref(w.ident, bob);
  /* The unfinished local room closes when idle too: Ana holds nothing. */
  srv_ident_ref(ana);
  disconnect(&w, &a);
  fake_advance(&w.time, 600000);
  ASSERT(srv_rooms_find(w.rooms, local) == NULL);
  ASSERT_EQ(ana->active_rooms, 0);
  srv_ident_unref(w.ident, ana);
  world_free(&w);
  return 0;
}

/* Whether each link of p's seats is the link of a seat p holds (srv_room.seated[s] for seat[s]):
 * what lets freeing one seat unlink the right player's link. */
static bool links_follow_seats(const srv_player *p) {
  srv_list_foreach (it, &p->seats) {
    const srv_seat_link *l = srv_list_entry(it, srv_seat_link, node);
    int s = l == &l->room->seated[0] ? 0 : 1;
    if (l->room->seat[s] != p)
      return false;
  }
  return true;
}

/* The seat t's joined frames gave it in room ("" when none came), and how many came for room. */
static int joined_in(tclient *t, const char *room, const char **seat) {
  int n = 0;
  *seat = "";
  for (int i = 0; i < t->n; i++) {
    json_t *e = t->events[i];
    if (strcmp(json_string_value(json_object_get(e, "type")), "joined") != 0 ||
        strcmp(json_string_value(json_object_get(e, "room")), room) != 0)
      continue;
    n++;
    const char *s = json_string_value(json_object_get(e, "seat"));
    *seat = s ? s : "";
  }
  return n;
}

/* A resumed player gets back each room where it holds a seat, once, with the seat it holds now
 * (its seats are kept per player, srv_player.seats, not found by visiting every room): seats
 * exchanged by a rematch, both seats of a local room, a seat taken by joining; not a seat given
 * up by leaving a waiting room, nor a room closed since, nor rooms it only watched. */
TEST_IMPL(resume_own_seats) {
  world w;
  world_init(&w, NULL);
  tclient a, b, a2, b2;
  char pair[8], local[8], bobs[8], left[8], watched[8];
  snprintf(pair, sizeof pair, "%s", start_pair(&w, &a, &b, ""));
  srv_player *ana = a.c.player, *bob = b.c.player;
  srv_ident_ref(ana);
  srv_ident_ref(bob);
  /* Resign, rematch: Ana is North now. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", pair), 0);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", pair), 0);
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"rematch\",\"room\":\"%s\"}", pair), 0);
  ASSERT_STR_EQ(field_s(&a, "state", "you"), "north");
  ASSERT(links_follow_seats(ana));
  ASSERT(links_follow_seats(bob));
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"oware\",\"opponent\":\"local\"}"), 0);
  snprintf(local, sizeof local, "%s", joined_code(&a));
  /* Bob's room, Ana joins it: South is Bob's. */
  ASSERT_EQ(run(&w, &b, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"}"), 0);
  snprintf(bobs, sizeof bobs, "%s", joined_code(&b));
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"join\",\"room\":\"%s\"}", bobs), 0);
  /* A waiting room of Ana's that she leaves: seat given up, room closed. */
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"congkak\"}"), 0);
  snprintf(left, sizeof left, "%s", joined_code(&a));
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"leave\",\"room\":\"%s\"}", left), 0);
  ASSERT(srv_rooms_find(w.rooms, left) == NULL);
  /* A room of Bob's that Ana only watches. */
  ASSERT_EQ(run(&w, &b, "{\"type\":\"create\",\"game\":\"kalah\"}"), 0);
  snprintf(watched, sizeof watched, "%s", joined_code(&b));
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", watched), 0);
  disconnect(&w, &a);
  disconnect(&w, &b);

  reconnect_as(&w, &a2, ana);
  const char *seat;
  ASSERT_EQ(count_of(&a2, "joined"), 3);
  ASSERT_EQ(joined_in(&a2, pair, &seat), 1);
  ASSERT_STR_EQ(seat, "north");
  ASSERT_EQ(joined_in(&a2, local, &seat), 1);
  ASSERT_STR_EQ(seat, "both");
  ASSERT_EQ(joined_in(&a2, bobs, &seat), 1);
  ASSERT_STR_EQ(seat, "north");
  ASSERT_EQ(joined_in(&a2, watched, &seat), 0);
  ASSERT_EQ(count_of(&a2, "state"), 3);
  ASSERT(links_follow_seats(ana));
  reconnect_as(&w, &b2, bob);
  ASSERT_EQ(count_of(&b2, "joined"), 3); /* Pair, his own and the one Ana watched. */
  ASSERT_EQ(joined_in(&b2, pair, &seat), 1);
  ASSERT_STR_EQ(seat, "south");
  ASSERT_EQ(joined_in(&b2, bobs, &seat), 1);
  ASSERT_STR_EQ(seat, "south");
  ASSERT_EQ(joined_in(&b2, watched, &seat), 1);
  /* Moves go on from the resumed connections: Bob is South in the rematch. */
  ASSERT_EQ(runf(&w, &b2, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", pair), 0);
  ASSERT_EQ(runf(&w, &a2, "{\"type\":\"resign\",\"room\":\"%s\"}", bobs), 0);
  /* Bob's seats end with his rooms: once they are gone, a resumed Bob gets nothing back. */
  disconnect(&w, &a2);
  disconnect(&w, &b2);
  fake_advance(&w.time, 24 * 3600 * 1000ULL);
  ASSERT(srv_rooms_find(w.rooms, pair) == NULL);
  ASSERT(srv_rooms_find(w.rooms, bobs) == NULL);
  ASSERT(srv_list_empty(&bob->seats));
  ASSERT(srv_list_empty(&ana->seats));
  reconnect_as(&w, &b2, bob);
  ASSERT_EQ(count_of(&b2, "joined"), 0);
  disconnect(&w, &b2);
  srv_ident_unref(w.ident, ana);
  srv_ident_unref(w.ident, bob);
  world_free(&w);
  return 0;
}

/* Whether c is a member of the room of code, by srv_room__member() (it walks the shorter of the
 * room's members and the client's rooms). */
static bool member_of(world *w, tclient *t, const char *room_code) {
  srv_room *r = srv_rooms_find(w->rooms, room_code);
  ASSERT_NOT_NULL(r);
  srv_member *m = srv_room__member(r, &t->c);
  if (m == NULL)
    return false;
  ASSERT(m->room == r);
  ASSERT(m->client == &t->c);
  return true;
}

/* Membership found both ways: a client in five rooms of one member each (the room's list is the
 * shorter), and in one room of four members (the client's list is); joining twice is one
 * membership; a leave ends it and the counts follow. */
TEST_IMPL(membership_both_ways) {
  world w;
  world_init(&w, NULL);
  tclient a, b, s[3];
  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bob");
  char rooms[5][8];
  for (int i = 0; i < 5; i++) {
    ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\"}"), 0);
    snprintf(rooms[i], sizeof rooms[i], "%s", joined_code(&a));
  }
  ASSERT_EQ(a.c.n_rooms, 5);
  for (int i = 0; i < 5; i++) {
    ASSERT_EQ(srv_rooms_find(w.rooms, rooms[i])->n_members, 1);
    ASSERT(member_of(&w, &a, rooms[i]));
    ASSERT(!member_of(&w, &b, rooms[i]));
  }
  static const char *const names[] = {"Cy", "Di", "Ed"};
  for (int i = 0; i < 3; i++) {
    connect_as(&w, &s[i], names[i]);
    ASSERT_EQ(
        runf(&w, &s[i], "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", rooms[2]), 0);
  }
  srv_room *r = srv_rooms_find(w.rooms, rooms[2]);
  ASSERT_EQ(r->n_members, 4);
  for (int i = 0; i < 3; i++) {
    ASSERT_EQ(s[i].c.n_rooms, 1);
    ASSERT(member_of(&w, &s[i], rooms[2]));
    ASSERT(!member_of(&w, &s[i], rooms[1]));
  }
  ASSERT(member_of(&w, &a, rooms[2]));
  ASSERT(!member_of(&w, &b, rooms[2]));
  /* Joining again is the same membership. */
  ASSERT_EQ(runf(&w, &s[0], "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", rooms[2]),
            0);
  ASSERT_EQ(r->n_members, 4);
  ASSERT_EQ(s[0].c.n_rooms, 1);
  /* A leave ends it. */
  ASSERT_EQ(runf(&w, &s[1], "{\"type\":\"leave\",\"room\":\"%s\"}", rooms[2]), 0);
  ASSERT_EQ(r->n_members, 3);
  ASSERT_EQ(s[1].c.n_rooms, 0);
  ASSERT(!member_of(&w, &s[1], rooms[2]));
  ASSERT(member_of(&w, &s[2], rooms[2]));
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"leave\",\"room\":\"%s\"}", rooms[4]), 0);
  ASSERT_EQ(a.c.n_rooms, 4);
  ASSERT(member_of(&w, &a, rooms[3]));
  /* A client gone is in no room. */
  disconnect(&w, &s[2]);
  ASSERT_EQ(r->n_members, 2);
  disconnect(&w, &a);
  disconnect(&w, &b);
  for (int i = 0; i < 2; i++)
    disconnect(&w, &s[i]);
  world_free(&w);
  return 0;
}
