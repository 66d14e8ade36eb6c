/* The computer's searches on the libuv thread pool (see srv_computer.h). */
#include "srv_computer.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mc_egtb.h"
#include "mc_error.h"
#include "mc_search.h"
#include "srv_list.h"
#include "srv_log.h"
#include "srv_rand.h"

/* Transposition table of each search context. */
#define TT_BYTES (16u << 20)
/* A clocked computer spends at most this share of what its clock has left on a move, and keeps
 * this much in reserve for the way back to the loop. */
#define CLOCK_SHARE 20
#define CLOCK_RESERVE_MS 300

typedef struct job {
  uv_work_t req;
  srv_computer *owner;
  srv_room *room; /* NULL once detached: the result is dropped. */
  int game_no;
  size_t ply;
  mc_game *game; /* The copy the worker searches (owned). */
  int level;
  long ms;
  uint64_t seed;
  atomic_bool cancel;
  mc_search *search; /* A context of the pool while running. */
  bool running;
  int rc;
  mc_search_result res;
  srv_list link; /* owner->waiting or owner->running. */
} job;

struct srv_computer {
  uv_loop_t *loop;
  srv_rooms *rooms;
  srv_computer_config cfg;
  mc_egtb *egtb;
  mc_search **pool; /* Free contexts: npool of them. */
  int npool;
  srv_list waiting, running;
  int nwaiting, nrunning;
};

static void job_free(job *j) {
  mc_game_free(j->game);
  free(j);
}

static job *find(srv_computer *c, const srv_room *room) {
  srv_list *lists[2] = {&c->running, &c->waiting};
  for (int i = 0; i < 2; i++) {
    srv_list_foreach (it, lists[i]) {
      job *j = srv_list_entry(it, job, link);
      if (j->room == room)
        return j;
    }
  }
  return NULL;
}

/* Detaches j from its room: a running search is cancelled (its callback frees it), a waiting one
 * is freed now. */
static void detach(srv_computer *c, job *j) {
  j->room = NULL;
  if (j->running) {
    atomic_store(&j->cancel, true);
    return;
  }
  srv_list_remove(&j->link);
  c->nwaiting--;
  job_free(j);
}

static void work(uv_work_t *req) {
  job *j = req->data;
  j->rc = mc_search_game(j->search, j->game, j->level, j->ms, j->seed, &j->cancel, &j->res);
}

static void pump(srv_computer *c);

static void after(uv_work_t *req, int status) {
  job *j = req->data;
  srv_computer *c = j->owner;
  srv_list_remove(&j->link);
  c->nrunning--;
  c->pool[c->npool++] = j->search;
  srv_room *room = j->room;
  if (room != NULL && status == 0 && j->rc == 0) {
    srv_room_computer_move(room, j->game_no, j->ply, j->res.move);
  } else if (room != NULL) {
    srv_log_error("computer", "%s: the search failed: %s", srv_room_code(room),
                  status != 0 ? uv_strerror(status) : mc_strerror(j->rc));
  }
  job_free(j);
  pump(c);
}

static void pump(srv_computer *c) {
  while (c->npool > 0 && !srv_list_empty(&c->waiting)) {
    job *j = srv_list_entry(srv_list_first(&c->waiting), job, link);
    srv_list_remove(&j->link);
    c->nwaiting--;
    j->search = c->pool[--c->npool];
    j->running = true;
    j->req.data = j;
    int rc = uv_queue_work(c->loop, &j->req, work, after);
    if (rc != 0) {
      srv_log_error("computer", "uv_queue_work: %s", uv_strerror(rc));
      c->pool[c->npool++] = j->search;
      job_free(j);
      continue;
    }
    srv_list_push_back(&c->running, &j->link);
    c->nrunning++;
  }
}

static void think(void *ud, srv_room *room) {
  srv_computer *c = ud;
  const mc_game *game = srv_room_game(room);
  const size_t ply = mc_game_ply(game);
  const int game_no = srv_room_game_no(room);
  job *old = find(c, room);
  if (old != NULL) {
    if (old->game_no == game_no && old->ply == ply)
      return; /* Already thinking about this position. */
    detach(c, old);
  }
  const int seat = mc_game_pos(game)->turn;
  job *j = calloc(1, sizeof *j);
  if (j == NULL || (j->game = mc_game_copy(game)) == NULL) {
    free(j);
    srv_log_error("computer", "%s: out of memory: the computer cannot move", srv_room_code(room));
    return;
  }
  j->owner = c;
  j->room = room;
  j->game_no = game_no;
  j->ply = ply;
  j->level = srv_room_computer_level(room, seat);
  j->ms = c->cfg.ms;
  int64_t left = srv_room_clock_left(room, seat);
  if (left >= 0) {
    int64_t share = (left - CLOCK_RESERVE_MS) / CLOCK_SHARE;
    if (share < 10)
      share = 10;
    if (share < j->ms)
      j->ms = (long)share;
  }
  if (srv_rand_bytes(&j->seed, sizeof j->seed) != 0)
    j->seed = ply * UINT64_C(0x9E3779B97F4A7C15);
  atomic_init(&j->cancel, false);
  srv_list_push_back(&c->waiting, &j->link);
  c->nwaiting++;
  pump(c);
}

static void stop(void *ud, srv_room *room) {
  srv_computer *c = ud;
  job *j = find(c, room);
  if (j != NULL)
    detach(c, j);
}

srv_computer *srv_computer_new(uv_loop_t *loop, srv_rooms *rooms, const srv_computer_config *cfg) {
  srv_computer *c = calloc(1, sizeof *c);
  if (c == NULL)
    return NULL;
  c->loop = loop;
  c->rooms = rooms;
  c->cfg = *cfg;
  c->cfg.data_dir = NULL;
  if (c->cfg.threads < 1)
    c->cfg.threads = 1;
  srv_list_init(&c->waiting);
  srv_list_init(&c->running);
  c->egtb = mc_egtb_new();
  c->pool = calloc((size_t)c->cfg.threads, sizeof *c->pool);
  if (c->egtb == NULL || c->pool == NULL) {
    srv_computer_free(c);
    return NULL;
  }
  if (cfg->data_dir != NULL) {
    mc_egtb_options opts = {.dir = cfg->data_dir};
    int rc = mc_egtb_load_defaults(c->egtb, &opts);
    if (rc != 0)
      srv_log_info("computer",
                   "endgame tables: %d loaded from %s (%s for the others; `mancala egtb build "
                   "--dir %s` builds them)",
                   mc_egtb_count(c->egtb), cfg->data_dir, mc_strerror(rc), cfg->data_dir);
    else
      srv_log_info("computer", "endgame tables: %d loaded from %s", mc_egtb_count(c->egtb),
                   cfg->data_dir);
  }
  mc_search_config sc = {.tt_bytes = TT_BYTES, .egtb = c->egtb};
  for (int i = 0; i < c->cfg.threads; i++) {
    if ((c->pool[i] = mc_search_new(&sc)) == NULL) {
      srv_computer_free(c);
      return NULL;
    }
    c->npool++;
  }
  srv_room_thinker t = {think, stop, c};
  srv_rooms_set_thinker(rooms, &t);
  return c;
}

void srv_computer_free(srv_computer *c) {
  if (c == NULL)
    return;
  srv_list_foreach_safe (it, &c->waiting)
    job_free(srv_list_entry(it, job, link));
  if (c->pool != NULL)
    for (int i = 0; i < c->npool; i++)
      mc_search_free(c->pool[i]);
  free(c->pool);
  mc_egtb_free(c->egtb);
  free(c);
}

void srv_computer_counts(const srv_computer *c, int *running, int *waiting) {
  *running = c->nrunning;
  *waiting = c->nwaiting;
}
