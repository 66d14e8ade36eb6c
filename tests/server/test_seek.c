/* Quick play from a queue of seekers (one place per player and per address, a player's new seek
 * replacing the old one) and the move deadline of untimed games (issue 25, item 7). Rooms on the
 * fake clock; clients that share an address share a srv_peer, as in the server. */
#include "harness.h"

#include "srv_error.h"
#include "srv_peer.h"

#include <string.h>

static void connect_from(world *w, tclient *t, const char *name, srv_peer *peer) {
  connect_as(w, t, name);
  t->c.peer = peer;
}

static void joined(tclient *t, char out[8]) {
  snprintf(out, 8, "%s", field_s(t, "joined", "room"));
}

#define CREATE(w, t) run(w, t, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"}")
#define QUICK(w, t) run(w, t, "{\"type\":\"quick\",\"game\":\"kalah\"}")

/* The probe's capture: one address with many waiting rooms (two players, three rooms each, all
 * older than anyone else's) took every quick player. Now its rooms are one seeker, whose place in
 * the queue is its oldest room's age, or its last pairing when that is later. Hand-reasoned:
 * the farm's rooms are made at t=0, 500, ... 2500, Lu's at 3000. Quick player 0 (t=4000): the
 * farm (place 0) before Lu (3000): the farm's oldest room; the farm's place is 4000 from then.
 * Quick player 1 (t=5000): Lu (3000) before the farm (4000). Quick player 2 (t=6000): only the
 * farm waits: its oldest room left, the second made. The old rule gave the farm all three. */
TEST_IMPL(one_place_per_address) {
  world w;
  srv_room_limits limits = {60000, 600000, 600000, 10, 1000, 60000, 50, 40, 0, 0, 0};
  world_init(&w, &limits);
  srv_peers *peers = srv_peers_new();
  srv_peer *farm = srv_peers_get(peers, "203.0.113.9");
  srv_peer *home = srv_peers_get(peers, "198.51.100.7");
  srv_peer *away = srv_peers_get(peers, "192.0.2.1");
  tclient ann, bea, lu, q[3];
  connect_from(&w, &ann, "Ann", farm);
  connect_from(&w, &bea, "Bea", farm);
  connect_from(&w, &lu, "Lu", home);
  char farm_rooms[6][8], lu_room[8];
  for (int i = 0; i < 6; i++) {
    tclient *t = i % 2 ? &bea : &ann;
    ASSERT_EQ(CREATE(&w, t), 0);
    joined(t, farm_rooms[i]);
    fake_advance(&w.time, 500);
  }
  ASSERT_EQ(CREATE(&w, &lu), 0); /* t=3000 */
  joined(&lu, lu_room);
  const char *expect[3] = {farm_rooms[0], lu_room, farm_rooms[1]};
  for (int i = 0; i < 3; i++) {
    fake_advance(&w.time, 1000);
    char name[4] = {'Q', (char)('0' + i), 0};
    connect_from(&w, &q[i], name, away);
    ASSERT_EQ(QUICK(&w, &q[i]), 0);
    ASSERT_STR_EQ(field_s(&q[i], "joined", "room"), expect[i]);
    ASSERT_STR_EQ(field_s(&q[i], "state", "status"), "playing");
  }
  ASSERT_EQ(farm->paired_ms, w.time.now);
  ASSERT_EQ(home->paired_ms, w.time.now - 1000);
  disconnect(&w, &ann);
  disconnect(&w, &bea);
  disconnect(&w, &lu);
  for (int i = 0; i < 3; i++)
    disconnect(&w, &q[i]);
  world_free(&w);
  srv_peer_unref(farm);
  srv_peer_unref(home);
  srv_peer_unref(away);
  srv_peers_free(peers);
  return 0;
}

/* One player, several rooms of a pool (no address known): one seeker, its oldest room. */
TEST_IMPL(one_place_per_player) {
  world w;
  world_init(&w, NULL);
  tclient ann, lu, q;
  connect_as(&w, &ann, "Ann");
  connect_as(&w, &lu, "Lu");
  connect_as(&w, &q, "Q");
  char a0[8], a1[8];
  ASSERT_EQ(CREATE(&w, &ann), 0);
  joined(&ann, a0);
  fake_advance(&w.time, 500);
  ASSERT_EQ(CREATE(&w, &ann), 0);
  joined(&ann, a1);
  ASSERT(strcmp(a0, a1) != 0);
  fake_advance(&w.time, 500);
  ASSERT_EQ(CREATE(&w, &lu), 0);
  ASSERT_EQ(QUICK(&w, &q), 0);
  ASSERT_STR_EQ(field_s(&q, "joined", "room"), a0);
  disconnect(&w, &ann);
  disconnect(&w, &lu);
  disconnect(&w, &q);
  world_free(&w);
  return 0;
}

/* One seek per player: a quick play in another pool replaces the player's waiting seek (its room
 * closes, "replaced"); in the same pool it is the same room; rooms made by create are no seeks
 * and stay. */
TEST_IMPL(second_seek_replaces_first) {
  world w;
  world_init(&w, NULL);
  tclient a, b;
  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bob");
  char kalah[8], oware[8], made[8];
  ASSERT_EQ(QUICK(&w, &a), 0);
  joined(&a, kalah);
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"congkak\"}"), 0);
  joined(&a, made);
  ASSERT_EQ(run(&w, &a, "{\"type\":\"quick\",\"game\":\"oware\"}"), 0);
  joined(&a, oware);
  ASSERT(strcmp(kalah, oware) != 0);
  ASSERT(srv_rooms_find(w.rooms, kalah) == NULL);
  ASSERT_STR_EQ(field_s(&a, "closed", "room"), kalah);
  ASSERT_STR_EQ(field_s(&a, "closed", "reason"), "replaced");
  ASSERT(srv_rooms_find(w.rooms, made) != NULL); /* Not a seek. */
  ASSERT_EQ(run(&w, &a, "{\"type\":\"quick\",\"game\":\"oware\"}"), 0);
  ASSERT_STR_EQ(field_s(&a, "joined", "room"), oware);
  /* Bob seeks kalah: Ana no longer does, so Bob waits in a room of his own. */
  ASSERT_EQ(QUICK(&w, &b), 0);
  ASSERT_STR_EQ(field_s(&b, "state", "status"), "waiting");
  /* Bob seeks oware instead: paired with Ana, and his kalah seek is gone. */
  char bob_kalah[8];
  joined(&b, bob_kalah);
  ASSERT_EQ(run(&w, &b, "{\"type\":\"quick\",\"game\":\"oware\"}"), 0);
  ASSERT_STR_EQ(field_s(&b, "joined", "room"), oware);
  ASSERT_STR_EQ(field_s(&b, "state", "status"), "playing");
  ASSERT(srv_rooms_find(w.rooms, bob_kalah) == NULL);
  /* A seek that became a game is no seek any more: a new quick play leaves it alone. */
  ASSERT_EQ(QUICK(&w, &a), 0);
  ASSERT(srv_rooms_find(w.rooms, oware) != NULL);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

/* ---- The move deadline of untimed games ------------------------------------------------------ */

static char room[8];

static json_t *deadline(tclient *t) {
  return json_object_get(last_of(t, "state"), "move_deadline");
}

static long long deadline_ms(tclient *t) {
  return json_integer_value(json_object_get(deadline(t), "ms"));
}

static void pair(world *w, tclient *a, tclient *b, const char *extra) {
  connect_as(w, a, "Ana");
  connect_as(w, b, "Bob");
  ASSERT_EQ(runf(w, a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"%s}", extra), 0);
  joined(a, room);
  ASSERT_EQ(runf(w, b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
}

static int move(world *w, tclient *t, int house, int ply) {
  return runf(w, t, "{\"type\":\"move\",\"room\":\"%s\",\"house\":%d,\"ply\":%d}", room, house,
              ply);
}

static srv_room_limits deadline_limits(int64_t ms) {
  srv_room_limits l = {60000, 600000, 600000, 10, 1000, 60000, 50, 10, 0, 0, ms};
  return l;
}

TEST_IMPL(untimed_move_deadline) {
  world w;
  srv_room_limits limits = deadline_limits(300000);
  world_init(&w, &limits);
  tclient a, b;
  pair(&w, &a, &b, "");
  /* South to move, 5 minutes; no first-move rule, no clock. */
  ASSERT_STR_EQ(path_s(&b, "state", "move_deadline", "seat"), "south");
  ASSERT_EQ(deadline_ms(&b), 300000);
  ASSERT(json_is_null(json_object_get(last_of(&b, "state"), "first_move")));
  fake_advance(&w.time, 200000);
  ASSERT_EQ(move(&w, &a, 1, 0), 0); /* Kalah 6x4, house 1: 4 seeds to houses 2-5, no extra turn. */
  /* North's deadline starts afresh at the move. */
  ASSERT_STR_EQ(path_s(&a, "state", "move_deadline", "seat"), "north");
  ASSERT_EQ(deadline_ms(&a), 300000);
  fake_advance(&w.time, 299999);
  ASSERT_STR_EQ(field_s(&a, "state", "status"), "playing");
  /* A state made meanwhile (a spectator arrives) shows what is left. */
  tclient s;
  connect_as(&w, &s, "Sue");
  ASSERT_EQ(runf(&w, &s, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", room), 0);
  ASSERT_EQ(deadline_ms(&s), 1);
  fake_advance(&w.time, 1);
  /* North did not move: it loses by abandonment, with nobody sending anything. */
  ASSERT_STR_EQ(field_s(&a, "state", "status"), "finished");
  ASSERT_STR_EQ(path_s(&a, "state", "result", "reason"), "abandoned");
  ASSERT_STR_EQ(path_s(&a, "state", "result", "winner"), "south");
  ASSERT(json_is_null(deadline(&a)));
  ASSERT_EQ(move(&w, &b, 1, 1), SRV_EOVER);

  /* A rematch: the new South (Bob) has its deadline; a move that reaches the server after it,
   * before the timer ran, loses the game instead of being played. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), 0);
  ASSERT_STR_EQ(path_s(&a, "state", "move_deadline", "seat"), "south");
  w.time.now += 300000;
  ASSERT_EQ(move(&w, &b, 1, 0), SRV_EOVER);
  ASSERT_STR_EQ(path_s(&a, "state", "result", "reason"), "abandoned");
  ASSERT_STR_EQ(path_s(&a, "state", "result", "winner"), "north"); /* Ana is North now. */
  disconnect(&w, &s);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

/* No move deadline with a clock (the clock decides), in a local room (nobody waits for anyone),
 * or with the limit at 0. */
TEST_IMPL(no_move_deadline) {
  world w;
  srv_room_limits limits = deadline_limits(300000);
  world_init(&w, &limits);
  tclient a, b;
  pair(&w, &a, &b, ",\"clock\":{\"initial_ms\":600000}");
  ASSERT(json_is_null(deadline(&a)));
  ASSERT_EQ(move(&w, &a, 1, 0), 0);
  ASSERT(json_is_null(deadline(&a)));
  tclient l;
  connect_as(&w, &l, "Lee");
  ASSERT_EQ(run(&w, &l, "{\"type\":\"create\",\"game\":\"kalah\",\"opponent\":\"local\"}"), 0);
  ASSERT_STR_EQ(field_s(&l, "state", "status"), "playing");
  ASSERT(json_is_null(deadline(&l)));
  fake_advance(&w.time, 3600000);
  ASSERT_STR_EQ(field_s(&l, "state", "status"), "playing");
  disconnect(&w, &l);
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);

  limits = deadline_limits(0);
  world_init(&w, &limits);
  pair(&w, &a, &b, "");
  ASSERT(json_is_null(deadline(&a)));
  fake_advance(&w.time, 3600000);
  ASSERT_STR_EQ(field_s(&a, "state", "status"), "playing");
  disconnect(&w, &a);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}
