/* The server tests' harness (see harness.h). */
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Fake time ----------------------------------------------------------------------------- */

struct srv_timer {
  srv_timer_cb cb;
  void *arg;
  int armed;
  uint64_t due;
  struct fake_time *owner;
};

static uint64_t fake_now(srv_time *t) {
  return ((fake_time *)t)->now;
}

static int64_t fake_wall(srv_time *t) {
  return ((fake_time *)t)->wall + (int64_t)((fake_time *)t)->now;
}

static srv_timer *fake_timer_new(srv_time *t, srv_timer_cb cb, void *arg) {
  fake_time *f = (fake_time *)t;
  ASSERT_LT(f->ntimers, (int)(sizeof f->timers / sizeof f->timers[0]));
  srv_timer *timer = calloc(1, sizeof *timer);
  ASSERT_NOT_NULL(timer);
  timer->cb = cb;
  timer->arg = arg;
  timer->owner = f;
  f->timers[f->ntimers++] = timer;
  return timer;
}

static void fake_timer_start(srv_timer *timer, uint64_t ms) {
  timer->armed = 1;
  timer->due = timer->owner->now + ms;
}

static void fake_timer_stop(srv_timer *timer) {
  timer->armed = 0;
}

static void fake_timer_free(srv_timer *timer) {
  if (timer == NULL)
    return;
  fake_time *f = timer->owner;
  for (int i = 0; i < f->ntimers; i++) {
    if (f->timers[i] == timer) {
      f->timers[i] = f->timers[--f->ntimers];
      break;
    }
  }
  free(timer);
}

void fake_init(fake_time *f) {
  memset(f, 0, sizeof *f);
  f->now = 1000000;
  f->wall = 1700000000000LL;
  f->base.now = fake_now;
  f->base.wall = fake_wall;
  f->base.timer_new = fake_timer_new;
  f->base.timer_start = fake_timer_start;
  f->base.timer_stop = fake_timer_stop;
  f->base.timer_free = fake_timer_free;
}

void fake_advance(fake_time *f, uint64_t ms) {
  uint64_t target = f->now + ms;
  for (;;) {
    srv_timer *next = NULL;
    for (int i = 0; i < f->ntimers; i++) {
      srv_timer *t = f->timers[i];
      if (t->armed && t->due <= target && (next == NULL || t->due < next->due))
        next = t;
    }
    if (next == NULL)
      break;
    f->now = next->due;
    next->armed = 0;
    next->cb(next->arg); /* May free next. */
    if (f->turn_end != NULL)
      f->turn_end(f->turn_end_arg);
  }
  f->now = target;
}

/* ---- Recording clients --------------------------------------------------------------------- */

/* The sink's queue: every frame must be one valid JSON object. */
static void record(void *ud, srv_client *to, srv_frame *f) {
  (void)ud;
  tclient *t = to->conn;
  json_error_t err;
  json_t *j = json_loadb(srv_frame_text(f), f->len, JSON_REJECT_DUPLICATES, &err);
  if (!json_is_object(j))
    TEST_FAIL_("a frame that is not a JSON object: %s (%s)", srv_frame_text(f), err.text);
  if (t->n == MAX_EVENTS) {
    json_decref(t->events[0]);
    memmove(t->events, t->events + 1, sizeof t->events[0] * (MAX_EVENTS - 1));
    t->n--;
  }
  t->events[t->n++] = j;
}

/* The sink's lost: no frame may fail to be made in a test. */
static void lost(void *ud, srv_client *to) {
  (void)ud;
  (void)to;
  TEST_FAIL_("%s", "a frame could not be made");
}

void tclient_clear(tclient *t) {
  for (int i = 0; i < t->n; i++)
    json_decref(t->events[i]);
  t->n = 0;
}

json_t *last_of(tclient *t, const char *type) {
  for (int i = t->n - 1; i >= 0; i--) {
    if (strcmp(json_string_value(json_object_get(t->events[i], "type")), type) == 0)
      return t->events[i];
  }
  return NULL;
}

int count_of(tclient *t, const char *type) {
  int n = 0;
  for (int i = 0; i < t->n; i++)
    n += strcmp(json_string_value(json_object_get(t->events[i], "type")), type) == 0;
  return n;
}

const char *field_s(tclient *t, const char *type, const char *field) {
  json_t *e = last_of(t, type);
  json_t *v = e ? json_object_get(e, field) : NULL;
  return json_is_string(v) ? json_string_value(v) : "";
}

long long field_i(tclient *t, const char *type, const char *field) {
  json_t *e = last_of(t, type);
  json_t *v = e ? json_object_get(e, field) : NULL;
  return json_is_integer(v) ? json_integer_value(v) : -1;
}

const char *path_s(tclient *t, const char *type, const char *a, const char *b) {
  json_t *e = last_of(t, type);
  json_t *v = e ? json_object_get(json_object_get(e, a), b) : NULL;
  return json_is_string(v) ? json_string_value(v) : "";
}

/* ---- The world: rooms over the fake clock --------------------------------------------------- */

/* The end of a loop turn in a world without storage: the states the rooms owe are encoded. */
static void world_turn_end(void *arg) {
  world *w = arg;
  if (w->rooms != NULL)
    srv_rooms_flush(w->rooms, srv_rooms_seal(w->rooms));
}

void world_turn(world *w) {
  if (w->time.turn_end != NULL)
    w->time.turn_end(w->time.turn_end_arg);
}

void world_init(world *w, const srv_room_limits *limits) {
  static const srv_room_limits defaults = {60000, 600000, 600000, 10, 1000, 60000, 50, 10, 0, 0, 0};
  fake_init(&w->time);
  w->ident = srv_ident_new();
  ASSERT_NOT_NULL(w->ident);
  srv_sink sink = {record, lost, NULL};
  w->rooms = srv_rooms_new(&w->time.base, w->ident, &sink, limits ? limits : &defaults);
  ASSERT_NOT_NULL(w->rooms);
  w->lobby = srv_lobby_new(w->rooms, &w->time.base, &sink);
  ASSERT_NOT_NULL(w->lobby);
  w->myrooms = srv_myrooms_new(w->rooms, &sink);
  ASSERT_NOT_NULL(w->myrooms);
  memset(&w->dispatch, 0, sizeof w->dispatch);
  w->dispatch.rooms = w->rooms;
  w->dispatch.lobby = w->lobby;
  w->dispatch.myrooms = w->myrooms;
  w->dispatch.ident = w->ident;
  w->dispatch.sink = sink;
  w->time.turn_end = world_turn_end;
  w->time.turn_end_arg = w;
}

void world_close_rooms(world *w) {
  srv_lobby_free(w->lobby);
  srv_myrooms_free(w->myrooms);
  srv_rooms_free(w->rooms);
  w->lobby = NULL;
  w->myrooms = NULL;
  w->rooms = NULL;
}

void world_free(world *w) {
  world_close_rooms(w);
  srv_ident_free(w->ident);
}

void connect_as(world *w, tclient *t, const char *name) {
  memset(t, 0, sizeof *t);
  srv_client_init(&t->c, t);
  srv_player *p;
  char token[SRV_TOKEN_CHARS + 1];
  ASSERT_EQ(srv_ident_create(w->ident, name, &p, token), 0);
  srv_rooms_identify(w->rooms, &t->c, p, false);
  srv_ident_unref(w->ident, p); /* The client holds its own reference. */
  world_turn(w);
}

void reconnect_as(world *w, tclient *t, srv_player *p) {
  memset(t, 0, sizeof *t);
  srv_client_init(&t->c, t);
  srv_rooms_identify(w->rooms, &t->c, p, true);
  world_turn(w);
}

void disconnect(world *w, tclient *t) {
  srv_dispatch_client_gone(&w->dispatch, &t->c);
  world_turn(w);
  tclient_clear(t);
}

int run(world *w, tclient *t, const char *json) {
  srv_cmd cmd;
  srv_proto_error err;
  int rc = srv_proto_decode(json, strlen(json), &cmd, &err);
  if (rc != 0)
    TEST_FAIL_("cannot decode %s: %s", json, srv_err_code(rc));
  rc = srv_dispatch_command(&w->dispatch, &t->c, &cmd);
  world_turn(w);
  return rc;
}

int runf(world *w, tclient *t, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  ASSERT(n > 0 && (size_t)n < sizeof buf);
  return run(w, t, buf);
}
