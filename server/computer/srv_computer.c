/* The computer's searches, fair across games (see srv_computer.h). */
#include "srv_computer.h"

#include <stdlib.h>
#include <string.h>

#include "mc_error.h"
#include "srv_error.h"
#include "srv_hash.h"
#include "srv_list.h"
#include "srv_log.h"
#include "srv_rand.h"

/* A clocked computer spends at most this share of what its clock has left on a move, and keeps
 * this much in reserve for the way back to the loop. */
#define CLOCK_SHARE 20
#define CLOCK_RESERVE_MS 300
/* A loop search's cap: levels 1-2 take a few hundredths of this, level 3 at most about a tenth
 * (docs/computer.md, bin/level-cost). */
#define LOOP_CAP_MS 5
/* The loop's search context: small, levels 1-3 look four moves ahead at most. */
#define LOOP_TT_BYTES (1u << 20)

/* A room's wish for the computer's move at one position: at most one a room. */
typedef struct want {
  srv_computer *owner;
  srv_room *room;
  int game_no;
  size_t ply;
  int level;
  long ms;
  uint64_t seed;
  srv_search_job *job; /* In the queue; NULL for a loop search (then in owner->soon). */
  srv_list soon;
  srv_hash_node hnode; /* owner->by_room */
} want;

struct srv_computer {
  srv_rooms *rooms;
  srv_search_queue *queue;
  srv_time *time;
  srv_computer_config cfg;
  srv_hash by_room;
  srv_list soon; /* Loop searches, in the order they were asked for. */
  int nsoon;
  srv_timer *soon_timer; /* Runs them in a callback of their own. */
  bool in_batch;         /* on_soon() is running them. */
  mc_search *loop_search;
};

static bool want_is(const srv_hash_node *n, const void *key) {
  return srv_hash_entry(n, want, hnode)->room == key;
}

static want *find(srv_computer *c, const srv_room *room) {
  srv_hash_node *n = srv_hash_find(&c->by_room, srv_hash_ptr(room), want_is, room);
  return n != NULL ? srv_hash_entry(n, want, hnode) : NULL;
}

static void forget(srv_computer *c, want *w) {
  srv_hash_remove(&c->by_room, &w->hnode);
  if (w->job == NULL) {
    srv_list_remove(&w->soon);
    c->nsoon--;
  }
  free(w);
}

/* The room no longer wants w's answer. */
static void drop(srv_computer *c, want *w) {
  if (w->job != NULL)
    c->queue->cancel(c->queue, w->job);
  forget(c, w);
}

static void play(srv_room *room, int game_no, size_t ply, int rc, int move) {
  if (rc == 0)
    srv_room_computer_move(room, game_no, ply, move);
  else
    srv_log_error("computer", "%s: the search failed: %s", srv_room_code(room),
                  rc > SRV_E_BASE_ && rc < SRV_E_END_ ? srv_err_code(rc) : mc_strerror(rc));
}

static void on_answer(void *arg, const srv_search_answer *a) {
  want *w = arg;
  srv_room *room = w->room;
  const int game_no = w->game_no;
  const size_t ply = w->ply;
  w->job = NULL; /* Done: nothing to cancel. */
  srv_hash_remove(&w->owner->by_room, &w->hnode);
  free(w);
  play(room, game_no, ply, a->rc, a->res.move); /* May ask again (an extra turn). */
}

/* The first SRV_COMPUTER_LOOP_BATCH loop searches asked for; the others, and those asked for
 * meanwhile, wait for the next callback. */
static void on_soon(void *arg) {
  srv_computer *c = arg;
  srv_list batch;
  srv_list_init(&batch);
  for (int n = 0; n < SRV_COMPUTER_LOOP_BATCH && !srv_list_empty(&c->soon); n++) {
    srv_list *it = srv_list_first(&c->soon);
    srv_list_remove(it);
    srv_list_push_back(&batch, it);
  }
  c->in_batch = true; /* think() leaves the timer to the end of the batch. */
  while (!srv_list_empty(&batch)) {
    want *w = srv_list_entry(srv_list_first(&batch), want, soon);
    srv_room *room = w->room;
    const int game_no = w->game_no;
    const size_t ply = w->ply;
    mc_search_result res;
    int rc =
        mc_search_game(c->loop_search, srv_room_game(room), w->level, w->ms, w->seed, NULL, &res);
    forget(c, w);
    play(room, game_no, ply, rc, res.move); /* May drop or add others: the lists stay sound. */
  }
  c->in_batch = false;
  /* The rest (extra turns too) in a millisecond: a timer of 0 would run again in this turn of the
   * loop (libuv runs every timer due, those started by a timer's callback too), before any
   * message is read. */
  if (!srv_list_empty(&c->soon) && c->soon_timer != NULL)
    c->time->timer_start(c->soon_timer, 1);
}

static void think(void *ud, srv_room *room) {
  srv_computer *c = ud;
  const mc_game *game = srv_room_game(room);
  const size_t ply = mc_game_ply(game);
  const int game_no = srv_room_game_no(room);
  want *old = find(c, room);
  if (old != NULL) {
    if (old->game_no == game_no && old->ply == ply)
      return; /* Already asked for this position: its place in line stays. */
    drop(c, old);
  }
  const int seat = mc_game_pos(game)->turn;
  want *w = calloc(1, sizeof *w);
  if (w == NULL) {
    srv_log_error("computer", "%s: out of memory: the computer cannot move", srv_room_code(room));
    return;
  }
  w->owner = c;
  w->room = room;
  w->game_no = game_no;
  w->ply = ply;
  w->level = srv_room_computer_level(room, seat);
  w->ms = c->cfg.ms;
  int64_t left = srv_room_clock_left(room, seat);
  if (left >= 0) {
    int64_t share = (left - CLOCK_RESERVE_MS) / CLOCK_SHARE;
    if (share < 10)
      share = 10;
    if (share < w->ms)
      w->ms = (long)share;
  }
  if (srv_rand_bytes(&w->seed, sizeof w->seed) != 0)
    w->seed = ply * UINT64_C(0x9E3779B97F4A7C15);
  srv_hash_insert(&c->by_room, &w->hnode, srv_hash_ptr(room));
  if (w->level <= SRV_COMPUTER_LOOP_LEVEL) {
    if (w->ms > LOOP_CAP_MS)
      w->ms = LOOP_CAP_MS;
    srv_list_push_back(&c->soon, &w->soon);
    c->nsoon++;
    if (c->soon_timer != NULL && !c->in_batch)
      c->time->timer_start(c->soon_timer, 0);
    return;
  }
  srv_search_req req = {game,
                        w->level,
                        w->ms,
                        w->seed,
                        w->level <= SRV_COMPUTER_FAST_LEVEL ? SRV_SEARCH_FAST : SRV_SEARCH_DEEP,
                        srv_room_code(room)};
  int rc = c->queue->submit(c->queue, &req, on_answer, w, &w->job);
  if (rc != 0) {
    srv_log_error("computer", "%s: the computer cannot move: %s", srv_room_code(room),
                  srv_err_code(rc));
    w->job = NULL;
    srv_hash_remove(&c->by_room, &w->hnode);
    free(w);
  }
}

static void stop(void *ud, srv_room *room) {
  srv_computer *c = ud;
  want *w = find(c, room);
  if (w != NULL)
    drop(c, w);
}

srv_computer *srv_computer_new(srv_rooms *rooms, srv_search_queue *queue, srv_time *time,
                               const srv_computer_config *cfg) {
  srv_computer *c = calloc(1, sizeof *c);
  if (c == NULL)
    return NULL;
  c->rooms = rooms;
  c->queue = queue;
  c->time = time;
  c->cfg = *cfg;
  srv_list_init(&c->soon);
  mc_search_config sc = {.tt_bytes = LOOP_TT_BYTES};
  if (srv_hash_init(&c->by_room, 64) != 0) {
    free(c);
    return NULL;
  }
  c->soon_timer = srv_timer_new(time, on_soon, c);
  c->loop_search = mc_search_new(&sc);
  if (c->soon_timer == NULL || c->loop_search == NULL) {
    srv_computer_free(c);
    return NULL;
  }
  srv_room_thinker t = {think, stop, c};
  srv_rooms_set_thinker(rooms, &t);
  return c;
}

void srv_computer_close(srv_computer *c) {
  if (c == NULL)
    return;
  c->time->timer_free(c->soon_timer);
  c->soon_timer = NULL;
}

void srv_computer_free(srv_computer *c) {
  if (c == NULL)
    return;
  srv_hash_node *n;
  while ((n = srv_hash_first(&c->by_room)) != NULL) {
    want *w = srv_hash_entry(n, want, hnode);
    drop(c, w);
  }
  srv_hash_dispose(&c->by_room);
  if (c->soon_timer != NULL)
    c->time->timer_free(c->soon_timer);
  mc_search_free(c->loop_search);
  free(c);
}

int srv_computer_loop_waiting(const srv_computer *c) {
  return c->nsoon;
}
