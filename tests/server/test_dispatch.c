/* The dispatch: hello first, identities and tokens, error frames with the request id, metrics. */
#include "harness.h"

#include "srv_dispatch.h"
#include "srv_metrics.h"

/* The world of the test running: each frame ends a loop turn there. */
static world *frames_world;

/* One frame from t through the dispatch d, and the end of its loop turn. */
static void frame(srv_dispatch *d, tclient *t, const char *json) {
  srv_dispatch_frame(d, &t->c, json, strlen(json));
  if (frames_world != NULL)
    world_turn(frames_world);
}

static void fresh(tclient *t) {
  memset(t, 0, sizeof *t);
  srv_client_init(&t->c, t);
}

TEST_IMPL(hello_errors_metrics) {
  world w;
  world_init(&w, NULL);
  frames_world = &w;
  srv_metrics_reset();
  srv_dispatch d = w.dispatch;

  tclient a, b, a2;
  fresh(&a);
  fresh(&b);
  frame(&d, &a, "{\"type\":\"create\",\"id\":1,\"game\":\"kalah\"}");
  ASSERT_STR_EQ(field_s(&a, "error", "code"), "hello_required");
  ASSERT_EQ(field_i(&a, "error", "id"), 1);
  ASSERT_STR_EQ(field_s(&a, "error", "request"), "create");
  frame(&d, &a, "{\"type\":\"hello\",\"id\":\"h\",\"name\":\" Ana \"}");
  ASSERT_STR_EQ(field_s(&a, "welcome", "id"), "h");
  ASSERT_STR_EQ(field_s(&a, "welcome", "name"), "Ana");
  ASSERT_EQ(field_i(&a, "welcome", "protocol"), 1);
  ASSERT(json_is_false(json_object_get(last_of(&a, "welcome"), "resumed")));
  ASSERT(json_is_false(
      json_object_get(json_object_get(last_of(&a, "welcome"), "features"), "computer")));
  char token[SRV_TOKEN_CHARS + 1], player[SRV_PLAYER_ID_CHARS + 1];
  snprintf(token, sizeof token, "%s", field_s(&a, "welcome", "token"));
  snprintf(player, sizeof player, "%s", field_s(&a, "welcome", "player"));
  ASSERT_EQ(strlen(token), SRV_TOKEN_CHARS);
  ASSERT_EQ(strlen(player), SRV_PLAYER_ID_CHARS);
  frame(&d, &a, "{\"type\":\"hello\",\"id\":2}");
  ASSERT_STR_EQ(field_s(&a, "error", "code"), "already_identified");
  frame(&d, &a, "{\"type\":\"create\",\"id\":3,\"game\":\"kalah\",\"seat\":\"north\"}");
  ASSERT_EQ(field_i(&a, "joined", "id"), 3);
  char room[8];
  snprintf(room, sizeof room, "%s", field_s(&a, "joined", "room"));

  /* Guest names, and errors that name the field or the type. */
  frame(&d, &b, "{\"type\":\"hello\"}");
  ASSERT(strncmp(field_s(&b, "welcome", "name"), "Guest ", 6) == 0);
  ASSERT(strcmp(field_s(&b, "welcome", "player"), player) != 0);
  frame(&d, &b, "{\"type\":\"quick\",\"id\":4,\"game\":\"kalah\",\"opponent\":\"local\"}");
  ASSERT_STR_EQ(field_s(&b, "error", "code"), "bad_request");
  ASSERT_STR_EQ(field_s(&b, "error", "field"), "opponent");
  frame(&d, &b, "{\"type\":\"fly\",\"id\":5}");
  ASSERT_STR_EQ(field_s(&b, "error", "code"), "unknown_type");
  ASSERT_EQ(field_i(&b, "error", "id"), 5);
  ASSERT(json_object_get(last_of(&b, "error"), "request") == NULL);
  frame(&d, &b, "{\"type\":\"move\",\"id\":6,\"room\":\"ABCDEF\",\"house\":0}");
  ASSERT_STR_EQ(field_s(&b, "error", "field"), "house");

  /* The token brings the identity and its seats back on another connection. */
  srv_ident_ref(a.c.player); /* Keep the player while a is gone, like storage would. */
  disconnect(&w, &a);
  a2.c.player = NULL;
  fresh(&a2);
  char hello[256];
  snprintf(hello, sizeof hello, "{\"type\":\"hello\",\"token\":\"%s\"}", token);
  srv_player *ana = srv_ident_find(w.ident, token);
  ASSERT(ana != NULL);
  frame(&d, &a2, hello);
  srv_ident_unref(w.ident, ana);
  ASSERT(json_is_true(json_object_get(last_of(&a2, "welcome"), "resumed")));
  ASSERT_STR_EQ(field_s(&a2, "welcome", "player"), player);
  ASSERT_STR_EQ(field_s(&a2, "welcome", "token"), token);
  ASSERT_STR_EQ(field_s(&a2, "joined", "room"), room);
  ASSERT_STR_EQ(field_s(&a2, "joined", "seat"), "north");
  ASSERT_STR_EQ(field_s(&a2, "state", "you"), "north");

  /* Every error was counted, by code. */
  srv_metrics_gauges g;
  memset(&g, 0, sizeof g);
  char *text = srv_metrics_prometheus(&g);
  ASSERT(strstr(text, "mancala_errors_total{code=\"hello_required\"} 1\n") != NULL);
  ASSERT(strstr(text, "mancala_errors_total{code=\"already_identified\"} 1\n") != NULL);
  ASSERT(strstr(text, "mancala_errors_total{code=\"bad_request\"} 2\n") != NULL);
  ASSERT(strstr(text, "mancala_message_seconds_count 9\n") != NULL);
  free(text);

  disconnect(&w, &a2);
  disconnect(&w, &b);
  world_free(&w);
  return 0;
}

/* A storage whose answers the test gives: the last restore asked for, not yet answered. */
typedef struct slow_store {
  void (*done)(void *arg, srv_player *player);
  void *arg;
  int asked;
} slow_store;

static int slow_restore(void *ud, const char *token, void (*done)(void *arg, srv_player *player),
                        void *arg) {
  slow_store *s = ud;
  (void)token;
  s->done = done;
  s->arg = arg;
  s->asked++;
  return 0;
}

/* A token unknown in memory waits for storage (a network database answers later): meanwhile the
 * connection is not identified and a second hello is busy; storage's answer resumes the player
 * (or makes a new one when storage knows nobody); a connection gone meanwhile gets nothing. */
TEST_IMPL(hello_waits_for_storage) {
  world w;
  world_init(&w, NULL);
  frames_world = &w;
  srv_dispatch d = w.dispatch;
  slow_store store = {NULL, NULL, 0};
  d.store.restore = slow_restore;
  d.store.ud = &store;
  const char *unknown = "{\"type\":\"hello\",\"id\":7,\"token\":"
                        "\"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\"}";

  /* Ana sits north in a room, and her connection goes; storage keeps her player. */
  tclient a, a2, b, c;
  fresh(&a);
  frame(&d, &a, "{\"type\":\"hello\",\"name\":\"Ana\"}");
  ASSERT_EQ(store.asked, 0); /* No token: nothing to look for. */
  frame(&d, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"north\"}");
  char room[8], player[SRV_PLAYER_ID_CHARS + 1];
  snprintf(room, sizeof room, "%s", field_s(&a, "joined", "room"));
  snprintf(player, sizeof player, "%s", field_s(&a, "welcome", "player"));
  srv_player *ana = a.c.player;
  srv_ident_ref(ana);
  disconnect(&w, &a);

  /* A token the registry does not know: storage is asked, and nothing is answered yet. */
  fresh(&a2);
  frame(&d, &a2, unknown);
  ASSERT_EQ(store.asked, 1);
  ASSERT(last_of(&a2, "welcome") == NULL);
  ASSERT(a2.c.player == NULL);
  frame(&d, &a2, "{\"type\":\"hello\",\"id\":8}");
  ASSERT_STR_EQ(field_s(&a2, "error", "code"), "busy");
  ASSERT_EQ(field_i(&a2, "error", "id"), 8);
  frame(&d, &a2, "{\"type\":\"lobby\",\"id\":9}");
  ASSERT_STR_EQ(field_s(&a2, "error", "code"), "hello_required");
  ASSERT_EQ(store.asked, 1);
  /* Storage answers with Ana (a reference of the answer's): she is back, seat included. */
  int refs = ana->refs; /* Her seat's and the answer's. */
  store.done(store.arg, ana);
  world_turn(&w);
  ASSERT_EQ(field_i(&a2, "welcome", "id"), 7);
  ASSERT(json_is_true(json_object_get(last_of(&a2, "welcome"), "resumed")));
  ASSERT_STR_EQ(field_s(&a2, "welcome", "player"), player);
  ASSERT_STR_EQ(field_s(&a2, "welcome", "name"), "Ana");
  ASSERT_STR_EQ(field_s(&a2, "joined", "room"), room);
  ASSERT_STR_EQ(field_s(&a2, "state", "you"), "north");
  ASSERT(a2.c.player == ana);
  ASSERT_EQ(ana->refs, refs); /* The answer's reference went to the connection. */

  /* A connection gone while storage looks: the answer is given back, nothing is sent. */
  fresh(&b);
  frame(&d, &b, unknown);
  ASSERT_EQ(store.asked, 2);
  disconnect(&w, &b);
  refs = ana->refs;
  srv_ident_ref(ana);
  store.done(store.arg, ana);
  world_turn(&w);
  ASSERT_EQ(ana->refs, refs);
  ASSERT(last_of(&b, "welcome") == NULL);

  /* Storage knows nobody by that token: a new player, not resumed. */
  fresh(&c);
  frame(&d, &c, unknown);
  ASSERT_EQ(store.asked, 3);
  store.done(store.arg, NULL);
  world_turn(&w);
  ASSERT(json_is_false(json_object_get(last_of(&c, "welcome"), "resumed")));
  ASSERT(strcmp(field_s(&c, "welcome", "player"), player) != 0);
  ASSERT(c.c.player != NULL && c.c.player != ana);

  /* A hello's error after storage answered names its field and request, as at once. */
  tclient e;
  fresh(&e);
  frame(&d, &e,
        "{\"type\":\"hello\",\"id\":11,\"name\":\"Computer\",\"token\":"
        "\"ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100\"}");
  ASSERT_EQ(store.asked, 4);
  store.done(store.arg, NULL);
  world_turn(&w);
  ASSERT_STR_EQ(field_s(&e, "error", "code"), "name_reserved");
  ASSERT_STR_EQ(field_s(&e, "error", "field"), "name");
  ASSERT_STR_EQ(field_s(&e, "error", "request"), "hello");
  ASSERT_EQ(field_i(&e, "error", "id"), 11);
  ASSERT(e.c.player == NULL);

  disconnect(&w, &a2);
  disconnect(&w, &c);
  disconnect(&w, &e);
  world_free(&w);
  frames_world = NULL;
  return 0;
}
