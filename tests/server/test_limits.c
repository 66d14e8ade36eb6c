/* Per-address limits and abuse bounds of the room logic (security probe, findings 1, 2, 6-8): on
 * the test kit's fake clock, with clients that share a client address (srv_peer.h) as the
 * connections of one address do in the server. */
#include "harness.h"

#include "srv_error.h"
#include "srv_lobby.h"
#include "srv_peer.h"

static char code[8];

static const char *joined_code(tclient *t) {
  snprintf(code, sizeof code, "%s", field_s(t, "joined", "room"));
  return code;
}

/* t, a new player named name, connected from the address of peer. */
static void connect_from(world *w, tclient *t, const char *name, srv_peer *peer) {
  connect_as(w, t, name);
  t->c.peer = peer;
}

#define CREATE(w, t, vis)                                                                          \
  runf(w, t, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\",\"visibility\":\"%s\"}",  \
       vis)

/* Finding 7 (the room cap fell to fresh identities from one address) and finding 1 (what one
 * address can list): unfinished rooms and public ones per address, whoever creates them. */
TEST_IMPL(rooms_per_address) {
  world w;
  srv_room_limits limits = {60000, 600000, 600000, 10, 1000, 60000, 4, 2, 0, 0, 0};
  world_init(&w, &limits);
  srv_peers *peers = srv_peers_new();
  srv_peer *p = srv_peers_get(peers, "203.0.113.9"), *q = srv_peers_get(peers, "198.51.100.7");
  tclient a, b, d;
  connect_from(&w, &a, "Ana", p);
  connect_from(&w, &b, "Bo", p); /* Another player of the same address. */
  connect_from(&w, &d, "Dee", q);
  ASSERT_EQ(CREATE(&w, &a, "public"), 0);
  char r1[8];
  snprintf(r1, sizeof r1, "%s", joined_code(&a));
  ASSERT_EQ(CREATE(&w, &b, "public"), 0);
  char r2[8];
  snprintf(r2, sizeof r2, "%s", joined_code(&b));
  ASSERT_EQ(p->rooms, 2);
  ASSERT_EQ(p->public_rooms, 2);
  /* A third public room from the address is refused, for either player; quick too. */
  ASSERT_EQ(CREATE(&w, &a, "public"), SRV_EROOMS);
  ASSERT_EQ(run(&w, &b, "{\"type\":\"quick\",\"game\":\"oware\"}"), SRV_EROOMS);
  ASSERT_EQ(CREATE(&w, &d, "public"), 0); /* Another address is not affected. */
  ASSERT_EQ(q->public_rooms, 1);
  /* A game that ends stops counting: another public room may open. */
  ASSERT_EQ(runf(&w, &d, "{\"type\":\"join\",\"room\":\"%s\"}", r1), 0);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", r1), 0);
  ASSERT_EQ(p->rooms, 1);
  ASSERT_EQ(p->public_rooms, 1);
  ASSERT_EQ(CREATE(&w, &a, "public"), 0);
  ASSERT_EQ(p->rooms, 2);
  /* Rooms of every kind count: two private rooms more, then nothing. */
  ASSERT_EQ(CREATE(&w, &b, "private"), 0);
  ASSERT_EQ(CREATE(&w, &b, "private"), 0);
  ASSERT_EQ(p->rooms, 4);
  ASSERT_EQ(CREATE(&w, &b, "private"), SRV_EROOMS);
  ASSERT_EQ(run(&w, &b, "{\"type\":\"create\",\"game\":\"kalah\",\"opponent\":\"local\"}"),
            SRV_EROOMS);
  /* A room that closes gives its place back. */
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"leave\",\"room\":\"%s\"}", r2), 0);
  ASSERT(srv_rooms_find(w.rooms, r2) == NULL);
  ASSERT_EQ(p->rooms, 3);
  ASSERT_EQ(p->public_rooms, 1);
  ASSERT_EQ(CREATE(&w, &b, "private"), 0);
  disconnect(&w, &a);
  disconnect(&w, &b);
  disconnect(&w, &d);
  world_free(&w);
  /* Every reference was given back: the rooms' and (by the test) the connections'. */
  ASSERT_EQ(p->refs, 1);
  ASSERT_EQ(p->rooms, 0);
  ASSERT_EQ(p->public_rooms, 0);
  srv_peer_unref(p);
  srv_peer_unref(q);
  ASSERT_EQ(srv_peers_count(peers), 0);
  srv_peers_free(peers);
  return 0;
}

/* Finding 7: a waiting room its creator left closes after waiting_ms (60 s by default), not
 * after the 10 minutes of an unfinished game nobody is in. */
TEST_IMPL(waiting_room_reaped) {
  world w;
  srv_room_limits limits = {60000, 600000, 600000, 10, 1000, 60000, 0, 0, 0, 0, 0};
  world_init(&w, &limits);
  tclient a, b, c;
  connect_as(&w, &a, "Ana");
  ASSERT_EQ(CREATE(&w, &a, "private"), 0);
  char waiting[8];
  snprintf(waiting, sizeof waiting, "%s", joined_code(&a));
  disconnect(&w, &a);
  fake_advance(&w.time, 59999);
  ASSERT_NOT_NULL(srv_rooms_find(w.rooms, waiting));
  /* Its creator back in time keeps it. */
  connect_as(&w, &c, "Cy");
  fake_advance(&w.time, 1);
  ASSERT_NULL(srv_rooms_find(w.rooms, waiting));
  /* A game in progress that everybody left is not reaped as a waiting room: its absent player
   * loses by abandonment after 60 s, and the finished room is kept for a rematch. */
  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bo");
  ASSERT_EQ(CREATE(&w, &a, "private"), 0);
  char playing[8];
  snprintf(playing, sizeof playing, "%s", joined_code(&a));
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", playing), 0);
  disconnect(&w, &a);
  disconnect(&w, &b);
  fake_advance(&w.time, 60000);
  const srv_room *r = srv_rooms_find(w.rooms, playing);
  ASSERT_NOT_NULL(r);
  ASSERT_EQ(srv_room_status(r), SRV_FINISHED);
  fake_advance(&w.time, 600000);
  ASSERT_NULL(srv_rooms_find(w.rooms, playing));
  disconnect(&w, &c);
  world_free(&w);
  return 0;
}

/* Finding 2: spectators share one chat bucket per room (here 5 lines a second, 15 at once: the
 * room limits' chat_rate and chat_burst, srv_room_chat.c): 3 spectators sending 10 lines each get
 * 15 through and 15 rate_limited; the players are never limited by it; a second later 5 more go
 * through. */
TEST_IMPL(chat_per_room) {
  world w;
  /* The harness's limits with a room chat allowance of 5 lines a second, 15 at once. */
  srv_room_limits limits = {60000, 600000, 600000, 10, 1000, 60000, 50, 10, 5, 15, 0};
  world_init(&w, &limits);
  tclient a, b, s[3];
  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bo");
  ASSERT_EQ(CREATE(&w, &a, "public"), 0);
  char room[8];
  snprintf(room, sizeof room, "%s", joined_code(&a));
  ASSERT_EQ(runf(&w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
  for (int i = 0; i < 3; i++) {
    connect_as(&w, &s[i], "Spec");
    ASSERT_EQ(runf(&w, &s[i], "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", room),
              0);
  }
  int ok = 0, limited = 0;
  for (int line = 0; line < 10; line++) {
    for (int i = 0; i < 3; i++) {
      int rc =
          runf(&w, &s[i], "{\"type\":\"chat\",\"room\":\"%s\",\"text\":\"spam %d\"}", room, line);
      ok += rc == 0;
      limited += rc == SRV_ERATE;
    }
  }
  ASSERT_EQ(ok, 15);
  ASSERT_EQ(limited, 15);
  tclient_clear(&a);
  for (int i = 0; i < 20; i++)
    ASSERT_EQ(
        runf(&w, i % 2 ? &a : &b, "{\"type\":\"chat\",\"room\":\"%s\",\"text\":\"gg\"}", room), 0);
  ASSERT_EQ(count_of(&a, "chat"), 20);
  fake_advance(&w.time, 1000);
  ok = 0;
  for (int i = 0; i < 8; i++)
    ok += runf(&w, &s[i % 3], "{\"type\":\"chat\",\"room\":\"%s\",\"text\":\"x\"}", room) == 0;
  ASSERT_EQ(ok, 5);
  disconnect(&w, &a);
  disconnect(&w, &b);
  for (int i = 0; i < 3; i++)
    disconnect(&w, &s[i]);
  world_free(&w);
  return 0;
}

/* Finding 1: lobby watchers per address. */
TEST_IMPL(watchers_per_address) {
  world w;
  world_init(&w, NULL);
  srv_lobby_set_limit(w.lobby, 2);
  srv_peers *peers = srv_peers_new();
  srv_peer *p = srv_peers_get(peers, "203.0.113.9"), *q = srv_peers_get(peers, "198.51.100.7");
  tclient t[3], other;
  for (int i = 0; i < 3; i++)
    connect_from(&w, &t[i], "Tab", p);
  connect_from(&w, &other, "Other", q);
  ASSERT_EQ(run(&w, &t[0], "{\"type\":\"lobby\"}"), 0);
  ASSERT_EQ(run(&w, &t[1], "{\"type\":\"lobby\"}"), 0);
  ASSERT_EQ(run(&w, &t[1], "{\"type\":\"lobby\"}"), 0); /* Asking again counts once. */
  ASSERT_EQ(p->watchers, 2);
  ASSERT_EQ(run(&w, &t[2], "{\"type\":\"lobby\"}"), SRV_EWATCHERS);
  ASSERT_EQ(count_of(&t[2], "lobby"), 0);                               /* Nothing changed. */
  ASSERT_EQ(run(&w, &t[2], "{\"type\":\"lobby\",\"watch\":false}"), 0); /* A look is fine. */
  ASSERT_EQ(count_of(&t[2], "lobby"), 1);
  ASSERT_EQ(run(&w, &other, "{\"type\":\"lobby\"}"), 0);
  ASSERT_EQ(run(&w, &t[0], "{\"type\":\"lobby\",\"watch\":false}"), 0);
  ASSERT_EQ(p->watchers, 1);
  ASSERT_EQ(run(&w, &t[2], "{\"type\":\"lobby\"}"), 0);
  disconnect(&w, &t[1]);
  ASSERT_EQ(p->watchers, 1);
  for (int i = 0; i < 3; i++)
    if (i != 1)
      disconnect(&w, &t[i]);
  disconnect(&w, &other);
  ASSERT_EQ(p->watchers, 0);
  ASSERT_EQ(q->watchers, 0);
  world_free(&w);
  srv_peer_unref(p);
  srv_peer_unref(q);
  srv_peers_free(peers);
  return 0;
}

/* Finding 8: new players per address (hello without a known token): 3 a minute, 3 at once; a
 * hello with a known token is not limited; 20 s later one more new player. */
TEST_IMPL(players_per_address) {
  world w;
  world_init(&w, NULL);
  w.dispatch.time = &w.time.base;
  w.dispatch.players_per_addr = 3;
  srv_peers *peers = srv_peers_new();
  srv_peer *p = srv_peers_get(peers, "203.0.113.9");
  tclient t[6];
  for (int i = 0; i < 6; i++) {
    memset(&t[i], 0, sizeof t[i]);
    srv_client_init(&t[i].c, &t[i]);
    t[i].c.peer = p;
  }
  for (int i = 0; i < 3; i++)
    ASSERT_EQ(run(&w, &t[i], "{\"type\":\"hello\"}"), 0);
  ASSERT_EQ(run(&w, &t[3], "{\"type\":\"hello\",\"name\":\"Four\"}"), SRV_ERATE);
  ASSERT_NULL(t[3].c.player);
  char hello[160];
  snprintf(hello, sizeof hello, "{\"type\":\"hello\",\"token\":\"%s\"}",
           field_s(&t[0], "welcome", "token"));
  ASSERT_EQ(run(&w, &t[3], hello), 0); /* Resumed: the same player as t[0]. */
  ASSERT(t[3].c.player == t[0].c.player);
  fake_advance(&w.time, 19000);
  ASSERT_EQ(run(&w, &t[4], "{\"type\":\"hello\"}"), SRV_ERATE);
  fake_advance(&w.time, 1000);
  ASSERT_EQ(run(&w, &t[4], "{\"type\":\"hello\"}"), 0);
  ASSERT_EQ(run(&w, &t[5], "{\"type\":\"hello\"}"), SRV_ERATE);
  for (int i = 0; i < 6; i++)
    disconnect(&w, &t[i]);
  world_free(&w);
  srv_peer_unref(p);
  srv_peers_free(peers);
  return 0;
}
