/* Room logic without sockets: seats, turns, clocks on a fake time source, reconnection,
 * abandonment, rematch, draw, local rooms, quick pairing, lobby, expiry and limits. */
#include "harness.h"

#include "srv_error.h"

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
  CHECK_INT(runf(w, a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"%s}", extra), 0);
  const char *c = joined_code(a);
  CHECK_INT(runf(w, b, "{\"type\":\"join\",\"room\":\"%s\"}", c), 0);
  return c;
}

static void test_create_join_play(void) {
  world w;
  world_init(&w, NULL);
  tclient a, b, s, x;
  connect_as(&w, &a, "Ana");
  CHECK_INT(run(&w, &a, "{\"type\":\"create\",\"id\":5,\"game\":\"kalah\",\"seat\":\"south\"}"), 0);
  CHECK_INT(field_i(&a, "joined", "id"), 5);
  CHECK_STR(field_s(&a, "joined", "seat"), "south");
  CHECK_STR(field_s(&a, "joined", "role"), "player");
  CHECK_STR(status_of(&a), "waiting");
  CHECK_STR(field_s(&a, "state", "you"), "south");
  CHECK(json_is_null(json_object_get(json_object_get(state_of(&a), "players"), "north")));
  CHECK_INT(json_array_size(json_object_get(state_of(&a), "legal")), 0);
  char room[8];
  snprintf(room, sizeof room, "%s", joined_code(&a));
  CHECK_INT(strlen(room), 6);
  CHECK(srv_rooms_find(w.rooms, room) != NULL);

  /* Moves before the game starts. */
  CHECK_INT(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room),
            SRV_ENOTPLAYING);

  connect_as(&w, &b, "Bob");
  CHECK_INT(runf(&w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
  CHECK_STR(field_s(&b, "joined", "seat"), "north");
  CHECK_STR(status_of(&a), "playing");
  CHECK_STR(status_of(&b), "playing");
  CHECK_STR(field_s(&b, "state", "turn"), "south");
  CHECK_STR(field_s(&b, "state", "you"), "north");
  CHECK_STR(path_s(&a, "state", "players", "north"), ""); /* An object, not a string. */
  CHECK_INT(json_array_size(json_object_get(state_of(&a), "legal")), 6);

  connect_as(&w, &s, "Sue");
  CHECK_INT(runf(&w, &s, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"player\"}", room),
            SRV_EFULL);
  CHECK_INT(runf(&w, &s, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", room), 0);
  CHECK_STR(field_s(&s, "joined", "role"), "spectator");
  CHECK(json_is_null(json_object_get(last_of(&s, "joined"), "seat")));
  CHECK_STR(field_s(&s, "state", "you"), "spectator");
  CHECK_INT(field_i(&a, "state", "spectators"), 1);
  CHECK_INT(runf(&w, &s, "{\"type\":\"join\",\"room\":\"%s\"}", "ZZZZZZ"), SRV_ENOTFOUND);
  CHECK_INT(runf(&w, &s, "{\"type\":\"join\",\"room\":\"%s\"}", "nope"), SRV_ENOTFOUND);

  /* Errors change nothing. */
  CHECK_INT(runf(&w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room),
            SRV_ETURN);
  CHECK_INT(runf(&w, &s, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room),
            SRV_ENOTPLAYER);
  connect_as(&w, &x, "Xan");
  CHECK_INT(runf(&w, &x, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room),
            SRV_ENOTMEMBER);
  CHECK_INT(runf(&w, &x, "{\"type\":\"move\",\"room\":\"ABCDEF\",\"house\":1,\"ply\":0}"),
            SRV_ENOTFOUND);
  CHECK_INT(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":3}", room),
            SRV_ESTALE);
  CHECK_INT(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":7,\"ply\":0}", room),
            SRV_EILLEGAL);
  CHECK_INT(field_i(&a, "state", "ply"), 0);

  /* South 3: 4 seeds land in 4, 5, 6 and the store: an extra turn. */
  CHECK_INT(
      runf(&w, &a, "{\"type\":\"move\",\"id\":\"m1\",\"room\":\"%s\",\"house\":3,\"ply\":0}", room),
      0);
  CHECK_STR(field_s(&a, "state", "id"), "m1");
  CHECK(json_object_get(state_of(&b), "id") == NULL);
  CHECK_INT(field_i(&b, "state", "ply"), 1);
  CHECK_STR(field_s(&b, "state", "turn"), "south");
  json_t *last = json_object_get(state_of(&s), "last");
  CHECK_STR(json_string_value(json_object_get(last, "seat")), "south");
  CHECK_INT(json_integer_value(json_object_get(last, "house")), 3);
  json_t *trace = json_object_get(last, "trace");
  CHECK_INT(json_array_size(trace), 6); /* pick, 4 sows, extra turn */
  CHECK_STR(json_string_value(json_object_get(json_array_get(trace, 0), "kind")), "pick");
  CHECK_STR(json_string_value(json_object_get(json_array_get(trace, 5), "kind")), "extra_turn");
  json_t *pits = json_object_get(state_of(&s), "pits");
  CHECK_INT(json_integer_value(json_array_get(pits, 6)), 1);
  CHECK_INT(json_array_size(json_object_get(state_of(&s), "moves")), 1);
  /* The retried move is stale, not played twice. */
  CHECK_INT(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":3,\"ply\":0}", room),
            SRV_ESTALE);
  CHECK_INT(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":3,\"ply\":1}", room),
            SRV_EILLEGAL);
  CHECK_INT(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":1}", room), 0);
  CHECK_STR(field_s(&b, "state", "turn"), "north");

  /* Chat reaches everyone, with the sender's name. */
  CHECK_INT(runf(&w, &s, "{\"type\":\"chat\",\"id\":3,\"room\":\"%s\",\"text\":\"nice\"}", room),
            0);
  CHECK_STR(field_s(&a, "chat", "from"), "Sue");
  CHECK_STR(field_s(&b, "chat", "text"), "nice");
  CHECK_INT(field_i(&s, "chat", "id"), 3);
  CHECK(field_i(&a, "chat", "at") > 1700000000000LL);
  CHECK_INT(runf(&w, &x, "{\"type\":\"chat\",\"room\":\"%s\",\"text\":\"hi\"}", room),
            SRV_ENOTMEMBER);

  /* Resign: North gives up, South wins. */
  CHECK_INT(runf(&w, &s, "{\"type\":\"resign\",\"room\":\"%s\"}", room), SRV_ENOTPLAYER);
  CHECK_INT(runf(&w, &b, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  CHECK_STR(status_of(&a), "finished");
  CHECK_STR(path_s(&a, "state", "result", "winner"), "south");
  CHECK_STR(path_s(&s, "state", "result", "reason"), "resignation");
  CHECK_INT(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":2}", room),
            SRV_EOVER);
  CHECK_INT(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", room), SRV_EOVER);
  CHECK_INT(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"offer\"}", room),
            SRV_EOVER);
  disconnect(&w, &a);
  disconnect(&w, &b);
  disconnect(&w, &s);
  disconnect(&w, &x);
  world_free(&w);
}

static void test_game_to_the_end(void) {
  world w;
  world_init(&w, NULL);
  tclient a, b;
  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bob");
  CHECK_INT(
      run(&w, &a,
          "{\"type\":\"create\",\"game\":\"kalah\",\"houses\":1,\"seeds\":1,\"seat\":\"south\"}"),
      0);
  const char *room = joined_code(&a);
  CHECK_INT(runf(&w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
  /* South's only seed reaches the store; South's side is empty: North sweeps 1. A draw. */
  CHECK_INT(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  CHECK_STR(status_of(&b), "finished");
  CHECK_STR(path_s(&b, "state", "result", "winner"), "draw");
  CHECK_STR(path_s(&b, "state", "result", "reason"), "no_seeds");
  json_t *score = json_object_get(json_object_get(state_of(&b), "result"), "score");
  CHECK_INT(json_integer_value(json_array_get(score, 0)), 1);
  CHECK_INT(json_integer_value(json_array_get(score, 1)), 1);
  CHECK(json_is_null(json_object_get(state_of(&b), "turn")));
  CHECK_INT(json_array_size(json_object_get(state_of(&b), "legal")), 0);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
}

static void test_clocks(void) {
  world w;
  world_init(&w, NULL);
  tclient a, b;
  const char *room =
      start_pair(&w, &a, &b, ",\"clock\":{\"initial_ms\":1000,\"increment_ms\":500}");
  /* The clock of the first mover starts when the game starts. */
  CHECK_STR(path_s(&a, "state", "clock", "running"), "south");
  CHECK_INT(clock_ms(&a, "south"), 1000);
  fake_advance(&w.time, 400);
  CHECK_INT(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  CHECK_INT(clock_ms(&a, "south"), 1100); /* 1000 - 400 + 500 */
  CHECK_INT(clock_ms(&a, "north"), 1000);
  CHECK_STR(path_s(&a, "state", "clock", "running"), "north");
  fake_advance(&w.time, 999);
  CHECK_STR(status_of(&a), "playing");
  /* The flag falls with nobody sending anything. */
  fake_advance(&w.time, 1);
  CHECK_STR(status_of(&a), "finished");
  CHECK_STR(path_s(&b, "state", "result", "reason"), "timeout");
  CHECK_STR(path_s(&b, "state", "result", "winner"), "south");
  CHECK_INT(clock_ms(&b, "north"), 0);
  CHECK(json_is_null(json_object_get(json_object_get(state_of(&b), "clock"), "running")));
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);

  /* A move that arrives after the flag fell but before the timer ran loses on time. */
  world_init(&w, NULL);
  room = start_pair(&w, &a, &b, ",\"clock\":{\"initial_ms\":1000}");
  w.time.now += 1500; /* Time passes without the timer firing. */
  CHECK_INT(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room),
            SRV_EOVER);
  CHECK_STR(path_s(&b, "state", "result", "reason"), "timeout");
  CHECK_STR(path_s(&b, "state", "result", "winner"), "north");
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
}

static void test_reconnect_and_abandon(void) {
  world w;
  world_init(&w, NULL);
  tclient a, b, a2;
  char room[8];
  snprintf(room, sizeof room, "%s", start_pair(&w, &a, &b, ""));
  srv_player *ana = a.c.player;

  /* North goes away on South's turn: no countdown yet. */
  disconnect(&w, &b);
  json_t *north = json_object_get(json_object_get(state_of(&a), "players"), "north");
  CHECK(json_is_false(json_object_get(north, "connected")));
  CHECK(json_is_null(json_object_get(state_of(&a), "abandon")));
  fake_advance(&w.time, 120000);
  CHECK_STR(status_of(&a), "playing");
  /* South moves: now North's countdown runs. */
  CHECK_INT(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  CHECK_STR(path_s(&a, "state", "abandon", "seat"), "north");
  CHECK_INT(json_integer_value(json_object_get(json_object_get(state_of(&a), "abandon"), "ms")),
            60000);
  fake_advance(&w.time, 59999);
  CHECK_STR(status_of(&a), "playing");
  fake_advance(&w.time, 1);
  CHECK_STR(status_of(&a), "finished");
  CHECK_STR(path_s(&a, "state", "result", "reason"), "abandoned");
  CHECK_STR(path_s(&a, "state", "result", "winner"), "south");
  disconnect(&w, &a);
  world_free(&w);

  /* South drops on their own turn and comes back in time: seat, state and countdown reset. */
  world_init(&w, NULL);
  snprintf(room, sizeof room, "%s", start_pair(&w, &a, &b, ""));
  ana = a.c.player;
  ana->conns++; /* Keep the identity while the connection is gone (as a token would). */
  disconnect(&w, &a);
  CHECK_STR(path_s(&b, "state", "abandon", "seat"), "south");
  fake_advance(&w.time, 30000);
  ana->conns--;
  reconnect_as(&w, &a2, ana);
  CHECK_STR(field_s(&a2, "joined", "room"), room);
  CHECK_STR(field_s(&a2, "joined", "seat"), "south");
  CHECK_STR(field_s(&a2, "state", "you"), "south");
  CHECK(json_is_null(json_object_get(state_of(&b), "abandon")));
  json_t *south = json_object_get(json_object_get(state_of(&b), "players"), "south");
  CHECK(json_is_true(json_object_get(south, "connected")));
  fake_advance(&w.time, 60000);
  CHECK_STR(status_of(&b), "playing");
  CHECK_INT(runf(&w, &a2, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  /* join on a seat you hold gives it back, from any connection of the player. */
  tclient a3;
  reconnect_as(&w, &a3, ana);
  CHECK_INT(runf(&w, &a3, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", room), 0);
  CHECK_STR(field_s(&a3, "joined", "seat"), "south");
  disconnect(&w, &a2);
  disconnect(&w, &a3);
  disconnect(&w, &b);
  world_free(&w);
}

static void test_draw(void) {
  world w;
  world_init(&w, NULL);
  tclient a, b;
  char room[8];
  snprintf(room, sizeof room, "%s", start_pair(&w, &a, &b, ""));
  CHECK_INT(runf(&w, &b, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"accept\"}", room),
            SRV_ENOOFFER);
  CHECK_INT(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"offer\"}", room), 0);
  CHECK_STR(field_s(&b, "state", "draw_offer"), "south");
  /* The one who offered cannot accept their own offer. */
  CHECK_INT(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"accept\"}", room),
            SRV_ENOOFFER);
  CHECK_INT(runf(&w, &b, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"decline\"}", room), 0);
  CHECK(json_is_null(json_object_get(state_of(&a), "draw_offer")));
  /* An offer survives the offerer's own move, and ends with the opponent's. */
  CHECK_INT(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"offer\"}", room), 0);
  CHECK_INT(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  CHECK_STR(field_s(&b, "state", "draw_offer"), "south");
  CHECK_INT(runf(&w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":1}", room), 0);
  CHECK(json_is_null(json_object_get(state_of(&a), "draw_offer")));
  CHECK_INT(runf(&w, &b, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"offer\"}", room), 0);
  CHECK_INT(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"accept\"}", room), 0);
  CHECK_STR(status_of(&b), "finished");
  CHECK_STR(path_s(&b, "state", "result", "winner"), "draw");
  CHECK_STR(path_s(&b, "state", "result", "reason"), "agreement");
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
}

static void test_rematch(void) {
  world w;
  world_init(&w, NULL);
  tclient a, b, s;
  char room[8];
  snprintf(room, sizeof room, "%s", start_pair(&w, &a, &b, ",\"clock\":{\"initial_ms\":60000}"));
  connect_as(&w, &s, "Sue");
  CHECK_INT(runf(&w, &s, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", room), 0);
  CHECK_INT(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), SRV_ENOTOVER);
  CHECK_INT(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  CHECK_INT(runf(&w, &s, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), SRV_ENOTPLAYER);
  CHECK_INT(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), 0);
  CHECK(json_is_true(json_object_get(json_object_get(state_of(&b), "rematch"), "south")));
  CHECK_STR(status_of(&b), "finished");
  CHECK_INT(runf(&w, &b, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), 0);
  /* A new game with the seats swapped: Bob is South now and moves first. */
  CHECK_STR(status_of(&a), "playing");
  CHECK_INT(field_i(&a, "state", "game_no"), 2);
  CHECK_INT(field_i(&a, "state", "ply"), 0);
  CHECK_STR(field_s(&a, "state", "you"), "north");
  CHECK_STR(field_s(&b, "state", "you"), "south");
  CHECK_STR(field_s(&s, "state", "you"), "spectator");
  CHECK(json_is_null(json_object_get(state_of(&a), "result")));
  CHECK(json_is_null(json_object_get(state_of(&a), "last")));
  CHECK_INT(clock_ms(&a, "south"), 60000);
  CHECK_INT(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room),
            SRV_ETURN);
  CHECK_INT(runf(&w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  disconnect(&w, &a);
  disconnect(&w, &b);
  disconnect(&w, &s);
  world_free(&w);
}

static void test_local(void) {
  world w;
  world_init(&w, NULL);
  tclient a;
  connect_as(&w, &a, "Ana");
  CHECK_INT(run(&w, &a, "{\"type\":\"create\",\"game\":\"oware\",\"opponent\":\"local\"}"), 0);
  const char *room = joined_code(&a);
  CHECK_STR(field_s(&a, "joined", "seat"), "both");
  CHECK_STR(field_s(&a, "state", "you"), "both");
  CHECK_STR(status_of(&a), "playing");
  CHECK_INT(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":6,\"ply\":0}", room), 0);
  CHECK_STR(field_s(&a, "state", "turn"), "north");
  CHECK_INT(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":6,\"ply\":1}", room), 0);
  CHECK_STR(field_s(&a, "state", "turn"), "south");
  /* Draws in a local room: offered and accepted on the same screen. */
  CHECK_INT(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"offer\"}", room), 0);
  CHECK_INT(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"decline\"}", room), 0);
  /* Resigning in a local room: the side to move resigns. */
  CHECK_INT(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  CHECK_STR(path_s(&a, "state", "result", "winner"), "north");
  /* One rematch request restarts a local room. */
  CHECK_INT(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), 0);
  CHECK_STR(status_of(&a), "playing");
  /* Not listed in the lobby, and nobody else can sit. */
  CHECK_INT(run(&w, &a, "{\"type\":\"lobby\"}"), 0);
  CHECK_INT(json_array_size(json_object_get(last_of(&a, "lobby"), "rooms")), 0);
  tclient b;
  connect_as(&w, &b, "Bob");
  CHECK_INT(runf(&w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), SRV_EFULL);
  /* A local room has no abandonment: it closes when idle. */
  disconnect(&w, &a);
  fake_advance(&w.time, 60000);
  CHECK(srv_rooms_find(w.rooms, room) != NULL);
  fake_advance(&w.time, 600000);
  CHECK(srv_rooms_find(w.rooms, room) == NULL);
  disconnect(&w, &b);
  world_free(&w);
}

/* Flushes the lobby and lets the clock run past its pace (250 ms), so that a change held back
 * because it came too soon after the last list goes out too. */
static void lobby_settle(world *w) {
  srv_rooms_flush(w->rooms);
  fake_advance(&w->time, 250);
}

static void test_quick_and_lobby(void) {
  world w;
  world_init(&w, NULL);
  tclient a, b, c, d, watcher;
  connect_as(&w, &watcher, "Wes");
  CHECK_INT(run(&w, &watcher, "{\"type\":\"lobby\",\"id\":1}"), 0);
  CHECK_INT(field_i(&watcher, "lobby", "id"), 1);
  CHECK_INT(json_array_size(json_object_get(last_of(&watcher, "lobby"), "rooms")), 0);
  int lobbies = count_of(&watcher, "lobby");

  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bob");
  connect_as(&w, &c, "Cy");
  connect_as(&w, &d, "Di");
  CHECK_INT(run(&w, &a, "{\"type\":\"quick\",\"game\":\"kalah\"}"), 0);
  char room[8];
  snprintf(room, sizeof room, "%s", joined_code(&a));
  CHECK_STR(status_of(&a), "waiting");
  /* Asking twice gives the same room. */
  CHECK_INT(run(&w, &a, "{\"type\":\"quick\",\"game\":\"kalah\"}"), 0);
  CHECK_STR(joined_code(&a), room);
  /* Private rooms are never listed. */
  CHECK_INT(run(&w, &d, "{\"type\":\"create\",\"game\":\"kalah\",\"visibility\":\"private\"}"), 0);
  char priv[8];
  snprintf(priv, sizeof priv, "%s", joined_code(&d));
  /* The lobby goes out once per flush, however many changes. */
  CHECK_INT(count_of(&watcher, "lobby"), lobbies);
  srv_rooms_flush(w.rooms);
  CHECK_INT(count_of(&watcher, "lobby"), lobbies + 1);
  srv_rooms_flush(w.rooms);
  CHECK_INT(count_of(&watcher, "lobby"), lobbies + 1);
  json_t *rooms = json_object_get(last_of(&watcher, "lobby"), "rooms");
  CHECK_INT(json_array_size(rooms), 1);
  json_t *r0 = json_array_get(rooms, 0);
  CHECK_STR(json_string_value(json_object_get(r0, "code")), room);
  CHECK_STR(json_string_value(json_object_get(r0, "status")), "waiting");
  CHECK_STR(json_string_value(json_object_get(r0, "game")), "kalah");
  /* A different game or clock does not pair. */
  CHECK_INT(run(&w, &c, "{\"type\":\"quick\",\"game\":\"kalah\",\"clock\":{\"initial_ms\":60000}}"),
            0);
  CHECK(strcmp(joined_code(&c), room) != 0);
  CHECK_STR(status_of(&c), "waiting");
  /* Same table: paired with the oldest waiting room. */
  CHECK_INT(run(&w, &b, "{\"type\":\"quick\",\"game\":\"kalah\"}"), 0);
  CHECK_STR(joined_code(&b), room);
  CHECK_STR(status_of(&a), "playing");
  CHECK_STR(status_of(&b), "playing");
  lobby_settle(&w);
  rooms = json_object_get(last_of(&watcher, "lobby"), "rooms");
  CHECK_INT(json_array_size(rooms), 2);
  CHECK_STR(json_string_value(json_object_get(json_array_get(rooms, 0), "status")), "playing");
  /* Joining a private room by its code works. */
  CHECK_INT(runf(&w, &watcher, "{\"type\":\"join\",\"room\":\"%s\"}", priv), 0);
  CHECK_STR(status_of(&d), "playing");
  /* A waiting room whose player went away is not offered to anyone. */
  tclient e;
  connect_as(&w, &e, "Eve");
  CHECK_INT(run(&w, &e, "{\"type\":\"create\",\"game\":\"oware\"}"), 0);
  char eve[8];
  snprintf(eve, sizeof eve, "%s", joined_code(&e));
  lobby_settle(&w);
  CHECK_INT(json_array_size(json_object_get(last_of(&watcher, "lobby"), "rooms")), 3);
  srv_player *evep = e.c.player;
  evep->conns++;
  disconnect(&w, &e);
  lobby_settle(&w);
  CHECK_INT(json_array_size(json_object_get(last_of(&watcher, "lobby"), "rooms")), 2);
  evep->conns--;
  reconnect_as(&w, &e, evep);
  lobby_settle(&w);
  CHECK_INT(json_array_size(json_object_get(last_of(&watcher, "lobby"), "rooms")), 3);
  CHECK_STR(joined_code(&e), eve);
  disconnect(&w, &e);
  /* Unwatch. */
  CHECK_INT(run(&w, &watcher, "{\"type\":\"lobby\",\"watch\":false}"), 0);
  lobbies = count_of(&watcher, "lobby");
  CHECK_INT(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  lobby_settle(&w);
  CHECK_INT(count_of(&watcher, "lobby"), lobbies);
  /* quick refuses a computer or a local opponent. */
  CHECK_INT(run(&w, &a, "{\"type\":\"quick\",\"game\":\"kalah\",\"opponent\":\"computer\"}"),
            SRV_EUNSUPPORTED);
  CHECK_INT(
      run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"opponent\":\"computer\",\"level\":2}"),
      SRV_EUNSUPPORTED);
  disconnect(&w, &a);
  disconnect(&w, &b);
  disconnect(&w, &c);
  disconnect(&w, &d);
  disconnect(&w, &watcher);
  world_free(&w);
}

static void test_leave_expiry_limits(void) {
  srv_room_limits limits = {60000, 5000, 20000, 2, 1000};
  world w;
  world_init(&w, &limits);
  tclient a, b;
  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bob");
  /* Leaving a waiting room frees the seat; an empty waiting room closes. */
  CHECK_INT(run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\"}"), 0);
  char room[8];
  snprintf(room, sizeof room, "%s", joined_code(&a));
  CHECK_INT(runf(&w, &b, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", room), 0);
  CHECK_INT(runf(&w, &a, "{\"type\":\"leave\",\"id\":4,\"room\":\"%s\"}", room), 0);
  CHECK_INT(field_i(&a, "left", "id"), 4);
  CHECK(srv_rooms_find(w.rooms, room) == NULL);
  CHECK_STR(field_s(&b, "closed", "room"), room);
  CHECK_INT(runf(&w, &a, "{\"type\":\"leave\",\"room\":\"%s\"}", room), SRV_ENOTFOUND);

  /* Rooms per player. */
  CHECK_INT(run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\"}"), 0);
  CHECK_INT(run(&w, &a, "{\"type\":\"create\",\"game\":\"oware\"}"), 0);
  CHECK_INT(run(&w, &a, "{\"type\":\"create\",\"game\":\"congkak\"}"), SRV_EROOMS);

  /* A room nobody is in closes after idle_ms. */
  snprintf(room, sizeof room, "%s", joined_code(&a));
  srv_player *ana = a.c.player;
  ana->conns++;
  disconnect(&w, &a);
  fake_advance(&w.time, 4999);
  CHECK(srv_rooms_find(w.rooms, room) != NULL);
  fake_advance(&w.time, 1);
  CHECK(srv_rooms_find(w.rooms, room) == NULL);
  ana->conns--;
  srv_ident_release(w.ident, ana);
  disconnect(&w, &b);
  world_free(&w);

  /* A finished room stays for finished_ms, then closes with a notice. */
  world_init(&w, &limits);
  const char *c = start_pair(&w, &a, &b, "");
  snprintf(room, sizeof room, "%s", c);
  CHECK_INT(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  fake_advance(&w.time, 19999);
  CHECK(srv_rooms_find(w.rooms, room) != NULL);
  fake_advance(&w.time, 1);
  CHECK(srv_rooms_find(w.rooms, room) == NULL);
  CHECK_STR(field_s(&b, "closed", "reason"), "expired");
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
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

static void test_congkak_match(void) {
  world w;
  world_init(&w, NULL);
  tclient a;
  connect_as(&w, &a, "Ana");
  CHECK_INT(run(&w, &a,
                "{\"type\":\"create\",\"game\":\"congkak\",\"houses\":3,\"seeds\":2,"
                "\"opponent\":\"local\",\"options\":{\"rounds\":\"match\"}}"),
            0);
  char room[8];
  snprintf(room, sizeof room, "%s", joined_code(&a));
  CHECK_STR(path_s(&a, "state", "options", "rounds"), "match");
  CHECK_INT(field_i(&a, "state", "round"), 1);
  /* First legal houses: the first round ends at ply 4 and South's house 1 burns. */
  for (int i = 0; i < 4; i++)
    CHECK_INT(play_first(&w, &a, room), 0);
  CHECK_INT(field_i(&a, "state", "round"), 2);
  json_t *burnt = json_object_get(state_of(&a), "burnt");
  CHECK_INT(json_array_size(burnt), 1);
  CHECK_INT(json_integer_value(json_array_get(burnt, 0)), 0);
  CHECK(trace_has(&a, "round_end"));
  CHECK(trace_has(&a, "refill"));
  CHECK(trace_has(&a, "burn"));
  /* A burnt house is not legal. */
  json_t *legal = json_object_get(state_of(&a), "legal");
  for (size_t i = 0; i < json_array_size(legal); i++)
    CHECK(json_integer_value(json_array_get(legal, i)) != 1 ||
          strcmp(field_s(&a, "state", "turn"), "south") != 0);
  int guard = 0;
  while (strcmp(status_of(&a), "playing") == 0 && guard++ < 1000)
    CHECK_INT(play_first(&w, &a, room), 0);
  CHECK_STR(status_of(&a), "finished");
  CHECK_STR(path_s(&a, "state", "result", "reason"), "no_seeds");
  disconnect(&w, &a);
  world_free(&w);
}

static int store_calls[6];
static int refuse_moves;

static int store_listener(void *ud, const srv_store_event *ev) {
  (void)ud;
  store_calls[ev->kind]++;
  return ev->kind == SRV_STORE_MOVE && refuse_moves ? SRV_EINTERNAL : 0;
}

static void test_store_seam(void) {
  world w;
  world_init(&w, NULL);
  srv_store_hooks hooks = {store_listener, NULL};
  srv_rooms_set_store(w.rooms, &hooks);
  tclient a, b;
  char room[8];
  snprintf(room, sizeof room, "%s", start_pair(&w, &a, &b, ""));
  CHECK_INT(store_calls[SRV_STORE_ROOM_OPENED], 1);
  CHECK_INT(store_calls[SRV_STORE_GAME_STARTED], 1);
  CHECK_INT(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  CHECK_INT(store_calls[SRV_STORE_MOVE], 1);
  /* A refused move leaves the room as it was. */
  refuse_moves = 1;
  int before = b.n;
  CHECK_INT(runf(&w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":1}", room),
            SRV_EINTERNAL);
  CHECK_INT(b.n, before);
  CHECK_STR(field_s(&b, "state", "turn"), "north");
  CHECK_INT(field_i(&b, "state", "ply"), 1);
  refuse_moves = 0;
  CHECK_INT(runf(&w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":1}", room), 0);
  CHECK_INT(runf(&w, &b, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  CHECK_INT(store_calls[SRV_STORE_GAME_FINISHED], 1);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
}

/* Lobby changes go to the watchers at most every 250 ms, the last one always. */
static void test_lobby_pace(void) {
  world w;
  world_init(&w, NULL);
  tclient watcher, a, b;
  connect_as(&w, &watcher, "Wes");
  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bob");
  CHECK_INT(run(&w, &watcher, "{\"type\":\"lobby\"}"), 0);
  int lobbies = count_of(&watcher, "lobby");
  CHECK_INT(run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\"}"), 0);
  srv_rooms_flush(w.rooms);
  CHECK_INT(count_of(&watcher, "lobby"), lobbies + 1);
  /* A second change 100 ms later waits for the pace... */
  fake_advance(&w.time, 100);
  CHECK_INT(run(&w, &b, "{\"type\":\"create\",\"game\":\"oware\"}"), 0);
  srv_rooms_flush(w.rooms);
  CHECK_INT(count_of(&watcher, "lobby"), lobbies + 1);
  fake_advance(&w.time, 149);
  CHECK_INT(count_of(&watcher, "lobby"), lobbies + 1);
  /* ...and goes out by itself when it is over, with both rooms. */
  fake_advance(&w.time, 1);
  CHECK_INT(count_of(&watcher, "lobby"), lobbies + 2);
  CHECK_INT(json_array_size(json_object_get(last_of(&watcher, "lobby"), "rooms")), 2);
  disconnect(&w, &a);
  disconnect(&w, &b);
  disconnect(&w, &watcher);
  world_free(&w);
}

int main(void) {
  test_create_join_play();
  test_game_to_the_end();
  test_clocks();
  test_reconnect_and_abandon();
  test_draw();
  test_rematch();
  test_local();
  test_quick_and_lobby();
  test_lobby_pace();
  test_leave_expiry_limits();
  test_store_seam();
  test_congkak_match();
  return check_exit("server.room");
}
