/* The server tests' harness (compiled once into the test kit, harness.c): a fake clock (srv_time)
 * whose timers fire only when the test advances time, and recording clients that keep every frame
 * they were sent, encoded by the real protocol layer, as JSON to inspect.
 */
#ifndef HARNESS_H
#define HARNESS_H

#include <jansson.h>
#include <stdint.h>

#include "srv_dispatch.h"
#include "srv_error.h"
#include "srv_proto.h"
#include "srv_room.h"
#include "srv_time.h"
#include "srv_work.h"
#include "task.h"

/* ---- Fake time ----------------------------------------------------------------------------- */

typedef struct fake_time {
  srv_time base; /* First: a srv_time * is a fake_time *. */
  uint64_t now;
  int64_t wall;
  srv_timer *timers[4096];
  int ntimers;
  /* Called after each timer's callback, as the end of the loop turn that ran it (NULL: none). */
  void (*turn_end)(void *arg);
  void *turn_end_arg;
} fake_time;

/* A fake clock at a fixed start (monotonic 1,000,000 ms; wall time 2023-11-14). */
void fake_init(fake_time *f);

/* Advances time by ms, firing due timers in order (each at its own due time). */
void fake_advance(fake_time *f, uint64_t ms);

/* ---- Recording clients --------------------------------------------------------------------- */

#define MAX_EVENTS 512

typedef struct tclient {
  srv_client c;
  json_t *events[MAX_EVENTS]; /* The frames received, oldest first (the oldest are forgotten). */
  int n;
  const char *label;
} tclient;

/* Forgets every frame t received. */
void tclient_clear(tclient *t);

/* The last frame of a type (borrowed), or NULL. */
json_t *last_of(tclient *t, const char *type);

/* How many frames of a type t kept. */
int count_of(tclient *t, const char *type);

/* A string field of the last frame of a type ("" when absent). */
const char *field_s(tclient *t, const char *type, const char *field);

/* An integer field of the last frame of a type (-1 when absent). */
long long field_i(tclient *t, const char *type, const char *field);

/* A string at a path "a.b" inside the last frame of a type ("" when absent). */
const char *path_s(tclient *t, const char *type, const char *a, const char *b);

/* ---- The world: rooms over the fake clock --------------------------------------------------- */

typedef struct world {
  fake_time time;
  srv_ident *ident;
  srv_rooms *rooms;
  srv_lobby *lobby;
  srv_myrooms *myrooms;
  srv_dispatch dispatch; /* The server's own dispatch table over these rooms. */
} world;

/* Makes the rooms of a world with limits (NULL: the server's defaults). */
void world_init(world *w, const srv_room_limits *limits);
void world_free(world *w);

/* Frees the rooms of w and what observes them (the lobby, the players' lists), not its players:
 * for tests that close a store in between. */
void world_close_rooms(world *w);

/* Ends the loop turn (the fake clock's turn_end: in a plain world the rooms' owed states are
 * encoded; a test with storage sets its own, srv_turn_end()). run(), connect_as(), reconnect_as(),
 * disconnect() and each timer of fake_advance() end their turn themselves. */
void world_turn(world *w);

/* ---- A worker the test drives (srv_work.h): work waits until the test runs it ---------------- */

typedef struct fake_work_item {
  srv_work_fn work;
  srv_work_done_fn done;
  void *arg;
} fake_work_item;

typedef struct fake_work {
  srv_work base; /* First: a srv_work * is a fake_work *. */
  fake_work_item q[64];
  int n;
  int total; /* Works queued since the start. */
  world *w;  /* Each done call ends a loop turn of this world (NULL: none). */
} fake_work;

/* An empty queue whose done calls end turns of w (NULL: none). */
void fake_work_init(fake_work *f, world *w);

/* Runs the i-th queued work and its done call. */
void fake_work_run(fake_work *f, int i);

/* Runs every queued work and its done call in order, what they queue meanwhile too. */
void fake_work_run_all(fake_work *f);

/* Connects t and says hello as a new player named name. */
void connect_as(world *w, tclient *t, const char *name);

/* A new connection t for player p (a reconnection: t rejoins p's seats). */
void reconnect_as(world *w, tclient *t, srv_player *p);

/* t's connection is gone; its frames are forgotten. */
void disconnect(world *w, tclient *t);

/* Decodes a JSON command (it must be valid) and runs its handler through the real dispatch table
 * (srv_dispatch_command()); returns the handler's result. */
int run(world *w, tclient *t, const char *json);

/* run() with a printf-style command. */
int runf(world *w, tclient *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
