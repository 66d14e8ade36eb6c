/* The cluster's Redis client (server/cluster/srv_redis.c) on a real libuv loop against a real
 * redis-server: commands answered in order and binary-safe, publish and subscribe between two
 * clients, a command answered NULL when Redis dies, the reconnection and re-subscription after it
 * restarts, the command time limit, refusal while down, and a close with commands pending. The
 * tests that only talk share the fixture's Redis (MANCALA_TEST_REDIS: tests/redis.sh); those that
 * kill, restart or stall one start their own in MANCALA_TEST_REDIS/own-NAME. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "srv_error.h"
#include "srv_redis.h"
#include "task.h"

/* ---- Redis ---------------------------------------------------------------------------------- */

/* The fixture's Redis as a URL. */
static void shared_url(char *url, size_t size) {
  const char *dir = getenv("MANCALA_TEST_REDIS");
  ASSERT_NOT_NULL(dir); /* Run by ctest with the redis fixture: never a silent skip. */
  snprintf(url, size, "redis://127.0.0.1:%d", test_port_in(dir));
}

/* Runs tests/redis.sh verb on this test's own Redis (DIR/own-name). */
static void own_redis(const char *verb, const char *name) {
  const char *dir = getenv("MANCALA_TEST_REDIS"), *sh = getenv("MANCALA_REDIS_SH");
  ASSERT_NOT_NULL(dir);
  ASSERT_NOT_NULL(sh);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "sh %s %s %s/own-%s %s >/dev/null", sh, verb, dir, name,
           strcmp(verb, "start") == 0 ? "auto" : "");
  ASSERT_EQ(system(cmd), 0);
}

/* Starts this test's own Redis; its URL into url. */
static void own_start(const char *name, char *url, size_t size) {
  own_redis("start", name);
  char dir[600];
  snprintf(dir, sizeof dir, "%s/own-%s", getenv("MANCALA_TEST_REDIS"), name);
  snprintf(url, size, "redis://127.0.0.1:%d", test_port_in(dir));
}

/* ---- The loop ------------------------------------------------------------------------------- */

static void on_guard(uv_timer_t *t) {
  (void)t; /* A tick: uv_run(UV_RUN_ONCE) returns, the condition is looked at again. */
}

/* Runs loop until cond(arg) or about s seconds have passed; returns cond(arg). */
static bool run_until(uv_loop_t *loop, bool (*cond)(void *), void *arg, int s) {
  uv_timer_t guard;
  uv_timer_init(loop, &guard);
  uv_timer_start(&guard, on_guard, 50, 50);
  uint64_t end = uv_hrtime() + (uint64_t)s * 1000000000u;
  while (!cond(arg) && uv_hrtime() < end)
    uv_run(loop, UV_RUN_ONCE);
  uv_close((uv_handle_t *)&guard, NULL);
  uv_run(loop, UV_RUN_NOWAIT);
  return cond(arg);
}

/* Runs loop until it has no handle left (every client closed) and closes it. */
static void loop_finish(uv_loop_t *loop) {
  uv_run(loop, UV_RUN_DEFAULT);
  ASSERT_EQ(uv_loop_close(loop), 0);
}

/* ---- Clients -------------------------------------------------------------------------------- */

typedef struct client {
  srv_redis *r;
  int ups, downs;
  int msgs;
  char channel[64];
  char msg[64];
  size_t msg_len;
} client;

static void on_state(void *ud, bool up) {
  client *c = ud;
  if (up)
    c->ups++;
  else
    c->downs++;
}

static void on_message(void *ud, const char *channel, size_t channel_len, const char *msg,
                       size_t len) {
  client *c = ud;
  ASSERT_LT(channel_len, sizeof c->channel);
  ASSERT_LE(len, sizeof c->msg);
  memcpy(c->channel, channel, channel_len);
  c->channel[channel_len] = '\0';
  memcpy(c->msg, msg, len);
  c->msg_len = len;
  c->msgs++;
}

static void client_new(uv_loop_t *loop, client *c, const char *url, int64_t timeout_ms) {
  memset(c, 0, sizeof *c);
  srv_redis_config cfg = {
      .url = url, .timeout_ms = timeout_ms, .message = on_message, .state = on_state, .ud = c};
  ASSERT_EQ(srv_redis_new(loop, &cfg, &c->r), 0);
}

static bool is_up(void *arg) {
  return srv_redis_up(((client *)arg)->r);
}

static bool is_down(void *arg) {
  return !srv_redis_up(((client *)arg)->r);
}

/* ---- Answers -------------------------------------------------------------------------------- */

typedef struct answer {
  int calls;
  int order; /* When it came, among every answer of the test (1, 2...). */
  bool null;
  int type;
  long long integer;
  char str[512]; /* NUL-terminated. */
  size_t len;
} answer;

static int answers_seen;

static void on_answer(void *arg, const redisReply *reply) {
  answer *a = arg;
  a->calls++;
  a->order = ++answers_seen;
  a->null = reply == NULL;
  if (reply == NULL)
    return;
  a->type = reply->type;
  a->integer = reply->integer;
  /* PUBSUB NUMSUB's answer [channel, count]: its count. */
  if (reply->type == REDIS_REPLY_ARRAY && reply->elements == 2 &&
      reply->element[1]->type == REDIS_REPLY_INTEGER)
    a->integer = reply->element[1]->integer;
  if (reply->str != NULL) {
    ASSERT_LT(reply->len, sizeof a->str);
    memcpy(a->str, reply->str, reply->len);
    a->str[reply->len] = '\0';
    a->len = reply->len;
  }
}

static bool answered(void *arg) {
  return ((answer *)arg)->calls > 0;
}

/* A key of this process's own in the shared Redis. */
static const char *key(const char *name) {
  static char buf[8][64];
  static int i;
  char *k = buf[i++ % 8];
  snprintf(k, 64, "test:%ld:%s", (long)getpid(), name);
  return k;
}

/* ---- Tests ---------------------------------------------------------------------------------- */

TEST_IMPL(bad_url) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  const char *bad[] = {"",
                       "http://127.0.0.1:6379",
                       "redis://",
                       "redis://:6379",
                       "redis://127.0.0.1:0",
                       "redis://127.0.0.1:65536",
                       "redis://127.0.0.1:x",
                       "redis://user:pw@127.0.0.1:6379",
                       "redis://127.0.0.1:6379/x",
                       "redis://127.0.0.1:6379/0?a=b",
                       "redis://[::1:6379"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    srv_redis_config cfg = {.url = bad[i]};
    srv_redis *r = (srv_redis *)&cfg;
    ASSERT_EQ(srv_redis_new(&loop, &cfg, &r), SRV_EBADREQ);
    ASSERT_NULL(r);
  }
  const char *good[] = {"redis://127.0.0.1", "redis://localhost:6380/2", "redis://[::1]:6379/0",
                        "redis://redis.example:1/"};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    srv_redis_config cfg = {.url = good[i]};
    srv_redis *r = NULL;
    ASSERT_EQ(srv_redis_new(&loop, &cfg, &r), 0);
    srv_redis_close(r);
  }
  loop_finish(&loop);
  return 0;
}

TEST_IMPL(commands_in_order) {
  char url[128];
  shared_url(url, sizeof url);
  uv_loop_t loop;
  uv_loop_init(&loop);
  client c;
  client_new(&loop, &c, url, 0);
  ASSERT(run_until(&loop, is_up, &c, 10));
  ASSERT_EQ(c.ups, 1);

  /* A value with NUL bytes, through the argv form and through %b. */
  static const char value[] = {'a', '\0', 'b', '\0', '\n', 'c'};
  const char *set[] = {"SET", key("bin"), value};
  size_t set_len[] = {3, strlen(key("bin")), sizeof value};
  answer a[7] = {0};
  ASSERT_EQ(srv_redis_command(c.r, on_answer, &a[0], 3, set, set_len), 0);
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &a[1], "GET %s", key("bin")), 0);
  ASSERT_EQ(
      srv_redis_commandf(c.r, on_answer, &a[2], "SET %s %b", key("bin2"), value, sizeof value), 0);
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &a[3], "GET %s", key("bin2")), 0);
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &a[4], "DEL %s", key("n")), 0);
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &a[5], "INCR %s", key("n")), 0);
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &a[6], "INCRBY %s %d", key("n"), 41), 0);
  ASSERT_EQ(srv_redis_commandf(c.r, NULL, NULL, "DEL %s %s %s", key("bin"), key("bin2"), key("n")),
            0);
  for (int i = 0; i < 7; i++)
    ASSERT_EQ(a[i].calls, 0); /* Never from inside the call. */
  ASSERT(run_until(&loop, answered, &a[6], 10));
  for (int i = 0; i < 7; i++) {
    ASSERT_EQ(a[i].calls, 1);
    ASSERT_EQ(a[i].order, i + 1);
    ASSERT(!a[i].null);
  }
  ASSERT_EQ(a[0].type, REDIS_REPLY_STATUS);
  ASSERT_EQ(a[1].type, REDIS_REPLY_STRING);
  ASSERT_EQ(a[1].len, sizeof value);
  ASSERT_EQ(memcmp(a[1].str, value, sizeof value), 0);
  ASSERT_EQ(a[3].len, sizeof value);
  ASSERT_EQ(memcmp(a[3].str, value, sizeof value), 0);
  ASSERT_EQ(a[5].type, REDIS_REPLY_INTEGER);
  ASSERT_EQ(a[5].integer, 1);
  ASSERT_EQ(a[6].integer, 42);

  /* An error reply is an answer. */
  answer e = {0};
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &e, "NOSUCHCOMMAND"), 0);
  ASSERT(run_until(&loop, answered, &e, 10));
  ASSERT(!e.null);
  ASSERT_EQ(e.type, REDIS_REPLY_ERROR);
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &e, "GET %q"), SRV_EBADREQ);

  srv_redis_stats st;
  srv_redis_stats_get(c.r, &st);
  ASSERT_EQ(st.commands, 9);
  ASSERT_EQ(st.failures, 0);
  ASSERT_EQ(st.timeouts, 0);
  ASSERT(st.up);
  ASSERT(st.rtt_avg_ms > 0);
  srv_redis_close(c.r);
  loop_finish(&loop);
  ASSERT_EQ(c.downs, 0); /* A close reports nothing. */
  return 0;
}

TEST_IMPL(hostname) {
  char url[128];
  shared_url(url, sizeof url);
  char named[160];
  snprintf(named, sizeof named, "redis://localhost:%s/1", strrchr(url, ':') + 1);
  uv_loop_t loop;
  uv_loop_init(&loop);
  client c;
  client_new(&loop, &c, named, 0);
  ASSERT(run_until(&loop, is_up, &c, 15)); /* localhost: one address or two, tried in turn. */
  answer a = {0};
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &a, "CLIENT INFO"), 0);
  ASSERT(run_until(&loop, answered, &a, 10));
  ASSERT_EQ(a.type, REDIS_REPLY_STRING);
  ASSERT_NOT_NULL(strstr(a.str, " db=1 ")); /* The URL's database was selected. */
  srv_redis_close(c.r);
  loop_finish(&loop);
  return 0;
}

static bool got_two(void *arg) {
  return ((client *)arg)->msgs >= 2;
}

static bool got_one(void *arg) {
  return ((client *)arg)->msgs >= 1;
}

TEST_IMPL(publish_subscribe) {
  char url[128];
  shared_url(url, sizeof url);
  uv_loop_t loop;
  uv_loop_init(&loop);
  client a, b;
  client_new(&loop, &a, url, 0);
  client_new(&loop, &b, url, 0);
  ASSERT_EQ(srv_redis_subscribe(b.r, key("room")), 0); /* Before it is up: remembered. */
  ASSERT_EQ(srv_redis_subscribe(b.r, key("room")), 0); /* Idempotent. */
  ASSERT_EQ(srv_redis_subscribe(b.r, key("other")), 0);
  ASSERT(run_until(&loop, is_up, &a, 10));
  ASSERT(run_until(&loop, is_up, &b, 10)); /* Up: subscribed. */

  static const char msg[] = {'m', 'o', 'v', 'e', '\0', '3'};
  ASSERT_EQ(srv_redis_publish(a.r, key("room"), msg, sizeof msg), 0);
  ASSERT(run_until(&loop, got_one, &b, 10));
  ASSERT_STR_EQ(b.channel, key("room"));
  ASSERT_EQ(b.msg_len, sizeof msg);
  ASSERT_EQ(memcmp(b.msg, msg, sizeof msg), 0);

  /* Unsubscribed from room: what is published there after is not delivered. Messages of one
   * publisher reach a subscriber in order, so the one on other, published after, proves it. */
  ASSERT_EQ(srv_redis_unsubscribe(b.r, key("room")), 0);
  ASSERT_EQ(srv_redis_unsubscribe(b.r, key("room")), 0);
  /* Redis has carried it out once it counts no subscriber on room (it goes on another
   * connection than the commands). */
  for (int i = 0;; i++) {
    ASSERT_LT(i, 100);
    answer n = {0};
    ASSERT_EQ(srv_redis_commandf(a.r, on_answer, &n, "PUBSUB NUMSUB %s", key("room")), 0);
    ASSERT(run_until(&loop, answered, &n, 10));
    ASSERT_EQ(n.type, REDIS_REPLY_ARRAY);
    if (n.integer == 0)
      break;
  }
  ASSERT_EQ(srv_redis_publish(a.r, key("room"), "lost", 4), 0);
  ASSERT_EQ(srv_redis_publish(a.r, key("other"), "seen", 4), 0);
  ASSERT(run_until(&loop, got_two, &b, 10));
  ASSERT_EQ(b.msgs, 2);
  ASSERT_STR_EQ(b.channel, key("other"));
  ASSERT_EQ(b.msg_len, 4);
  ASSERT_EQ(memcmp(b.msg, "seen", 4), 0);
  ASSERT_EQ(a.msgs, 0);

  srv_redis_stats st;
  srv_redis_stats_get(b.r, &st);
  ASSERT_EQ(st.messages, 2);
  srv_redis_close(a.r);
  srv_redis_close(b.r);
  loop_finish(&loop);
  return 0;
}

static bool never_up(void *arg) {
  client *c = arg;
  return c->ups > 0;
}

TEST_IMPL(unavailable_while_down) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  client c;
  /* Nothing listens on port 1 of loopback: it never comes up and tries again every second. */
  client_new(&loop, &c, "redis://127.0.0.1:1", 0);
  answer a = {0};
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &a, "PING"), SRV_EUNAVAILABLE);
  ASSERT(!run_until(&loop, never_up, &c, 3));
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &a, "PING"), SRV_EUNAVAILABLE);
  const char *argv[] = {"PING"};
  ASSERT_EQ(srv_redis_command(c.r, on_answer, &a, 1, argv, NULL), SRV_EUNAVAILABLE);
  ASSERT_EQ(srv_redis_publish(c.r, "ch", "x", 1), SRV_EUNAVAILABLE);
  ASSERT_EQ(srv_redis_subscribe(c.r, "ch"), 0); /* Remembered for when it comes. */
  ASSERT_EQ(a.calls, 0);
  ASSERT_EQ(c.downs, 0);
  ASSERT(!srv_redis_up(c.r));
  srv_redis_close(c.r);
  loop_finish(&loop);
  return 0;
}

TEST_IMPL(killed) {
  char url[128];
  own_start("killed", url, sizeof url);
  uv_loop_t loop;
  uv_loop_init(&loop);
  client c;
  client_new(&loop, &c, url, 60000);
  ASSERT(run_until(&loop, is_up, &c, 10));
  /* Pending when Redis dies: BLPOP waits for ever. */
  answer a = {0}, b = {0};
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &a, "BLPOP %s 0", key("never")), 0);
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &b, "BLPOP %s 0", key("never")), 0);
  ASSERT(!run_until(&loop, answered, &a, 1));
  own_redis("kill", "killed");
  ASSERT(run_until(&loop, answered, &b, 10));
  ASSERT_EQ(a.calls, 1);
  ASSERT(a.null);
  ASSERT_EQ(b.calls, 1);
  ASSERT(b.null);
  ASSERT_LT(a.order, b.order);
  ASSERT(run_until(&loop, is_down, &c, 10));
  ASSERT_EQ(c.downs, 1);
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &a, "PING"), SRV_EUNAVAILABLE);
  srv_redis_stats st;
  srv_redis_stats_get(c.r, &st);
  ASSERT_EQ(st.failures, 2);
  ASSERT(!st.up);
  srv_redis_close(c.r);
  loop_finish(&loop);
  ASSERT_EQ(a.calls, 1);
  own_redis("stop", "killed");
  return 0;
}

TEST_IMPL(reconnect_resubscribes) {
  char url[128];
  own_start("reconnect", url, sizeof url);
  uv_loop_t loop;
  uv_loop_init(&loop);
  client pub, sub;
  client_new(&loop, &pub, url, 0);
  client_new(&loop, &sub, url, 0);
  ASSERT_EQ(srv_redis_subscribe(sub.r, "events"), 0);
  ASSERT(run_until(&loop, is_up, &pub, 10));
  ASSERT(run_until(&loop, is_up, &sub, 10));

  own_redis("kill", "reconnect");
  ASSERT(run_until(&loop, is_down, &pub, 10));
  ASSERT(run_until(&loop, is_down, &sub, 10));
  ASSERT_EQ(srv_redis_publish(pub.r, "events", "x", 1), SRV_EUNAVAILABLE);
  own_redis("restart", "reconnect");
  ASSERT(run_until(&loop, is_up, &pub, 10));
  ASSERT(run_until(&loop, is_up, &sub, 10)); /* Up again: subscribed again. */
  ASSERT_EQ(sub.ups, 2);
  ASSERT_EQ(sub.downs, 1);

  ASSERT_EQ(srv_redis_publish(pub.r, "events", "after", 5), 0);
  ASSERT(run_until(&loop, got_one, &sub, 10));
  ASSERT_STR_EQ(sub.channel, "events");
  ASSERT_EQ(sub.msg_len, 5);
  ASSERT_EQ(memcmp(sub.msg, "after", 5), 0);
  answer a = {0};
  ASSERT_EQ(srv_redis_commandf(pub.r, on_answer, &a, "INCR %s", key("n")), 0);
  ASSERT(run_until(&loop, answered, &a, 10));
  ASSERT_EQ(a.integer, 1); /* A new Redis (no persistence). */

  srv_redis_stats st;
  srv_redis_stats_get(sub.r, &st);
  ASSERT_EQ(st.reconnects, 2); /* Both connections. */
  srv_redis_close(pub.r);
  srv_redis_close(sub.r);
  loop_finish(&loop);
  own_redis("stop", "reconnect");
  return 0;
}

TEST_IMPL(timeout) {
  char url[128];
  own_start("timeout", url, sizeof url);
  uv_loop_t loop;
  uv_loop_init(&loop);
  client c;
  client_new(&loop, &c, url, 200);
  ASSERT(run_until(&loop, is_up, &c, 10));
  /* Redis stops answering for 2 s: the command fails after 200 ms, so does the one behind it,
   * and the connection is made again once Redis answers again. */
  answer a = {0}, b = {0};
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &a, "DEBUG SLEEP 2"), 0);
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &b, "PING"), 0);
  ASSERT(run_until(&loop, answered, &b, 10));
  ASSERT_EQ(a.calls, 1);
  ASSERT(a.null);
  ASSERT_EQ(b.calls, 1);
  ASSERT(b.null);
  ASSERT_LT(a.order, b.order);
  ASSERT_EQ(c.downs, 1);
  ASSERT(run_until(&loop, is_up, &c, 15));
  answer p = {0};
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &p, "PING"), 0);
  ASSERT(run_until(&loop, answered, &p, 10));
  ASSERT(!p.null);
  ASSERT_EQ(p.type, REDIS_REPLY_STATUS);

  srv_redis_stats st;
  srv_redis_stats_get(c.r, &st);
  ASSERT_EQ(st.timeouts, 1);
  ASSERT_EQ(st.failures, 2);
  ASSERT_GE(st.reconnects, 1);
  srv_redis_close(c.r);
  loop_finish(&loop);
  own_redis("stop", "timeout");
  return 0;
}

TEST_IMPL(close_pending) {
  char url[128];
  shared_url(url, sizeof url);
  uv_loop_t loop;
  uv_loop_init(&loop);
  client c;
  client_new(&loop, &c, url, 60000);
  ASSERT_EQ(srv_redis_subscribe(c.r, key("ch")), 0);
  ASSERT(run_until(&loop, is_up, &c, 10));
  answer a[3] = {0};
  for (int i = 0; i < 3; i++)
    ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &a[i], "BLPOP %s 0", key("never")), 0);
  ASSERT_EQ(srv_redis_commandf(c.r, NULL, NULL, "BLPOP %s 0", key("never")), 0);
  ASSERT(!run_until(&loop, answered, &a[0], 1));
  srv_redis_close(c.r);
  for (int i = 0; i < 3; i++) { /* Before it returned, once each, in order. */
    ASSERT_EQ(a[i].calls, 1);
    ASSERT(a[i].null);
    ASSERT_EQ(a[i].order, i + 1);
  }
  loop_finish(&loop); /* ASan's leak check ends the test. */
  for (int i = 0; i < 3; i++)
    ASSERT_EQ(a[i].calls, 1);
  ASSERT_EQ(c.downs, 0);
  return 0;
}

/* Closes the client in its own answer's callback. */
typedef struct closer {
  answer a;
  srv_redis *r;
} closer;

static void on_answer_close(void *arg, const redisReply *reply) {
  closer *k = arg;
  on_answer(&k->a, reply);
  srv_redis_close(k->r);
  const char *argv[] = {"PING"};
  ASSERT_EQ(srv_redis_command(k->r, NULL, NULL, 1, argv, NULL), SRV_EUNAVAILABLE);
}

TEST_IMPL(close_in_callback) {
  char url[128];
  shared_url(url, sizeof url);
  uv_loop_t loop;
  uv_loop_init(&loop);
  client c;
  client_new(&loop, &c, url, 0);
  ASSERT(run_until(&loop, is_up, &c, 10));
  closer k = {.r = c.r};
  answer after = {0};
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer_close, &k, "PING"), 0);
  ASSERT_EQ(srv_redis_commandf(c.r, on_answer, &after, "PING"), 0);
  ASSERT(run_until(&loop, answered, &k.a, 10));
  ASSERT(!k.a.null);
  ASSERT_EQ(after.calls, 1); /* Answered NULL by the close, inside the first's callback. */
  ASSERT(after.null);
  loop_finish(&loop);
  ASSERT_EQ(after.calls, 1);
  return 0;
}
