/* Hints as search jobs of the fast lane (see srv_hints.h). */
#include "srv_hints.h"

#include <stdlib.h>

#include "srv_error.h"
#include "srv_hash.h"
#include "srv_log.h"
#include "srv_rand.h"

/* A hint's search: full strength (level 6 with its tables; the best move is taken, never the
 * level's noisy choice). */
#define HINT_LEVEL 6

typedef struct hint_job {
  srv_hints *owner;
  srv_room *room;
  uint64_t token;
  srv_search_job *job;
  srv_hash_node hnode; /* owner->by_token */
} hint_job;

struct srv_hints {
  srv_rooms *rooms;
  srv_search_queue *queue;
  srv_hints_config cfg;
  srv_hash by_token;
};

static size_t token_hash(uint64_t token) {
  return srv_hash_bytes(&token, sizeof token);
}

static bool job_is(const srv_hash_node *n, const void *key) {
  return srv_hash_entry(n, hint_job, hnode)->token == *(const uint64_t *)key;
}

static hint_job *find(srv_hints *h, uint64_t token) {
  srv_hash_node *n = srv_hash_find(&h->by_token, token_hash(token), job_is, &token);
  return n != NULL ? srv_hash_entry(n, hint_job, hnode) : NULL;
}

static void on_answer(void *arg, const srv_search_answer *a) {
  hint_job *j = arg;
  srv_room *room = j->room;
  const uint64_t token = j->token;
  srv_hash_remove(&j->owner->by_token, &j->hnode);
  free(j);
  if (a->rc != 0)
    srv_room_hint_answer(room, token, a->rc, 0, 0, false, 0);
  else
    srv_room_hint_answer(room, token, 0, a->res.best > 0 ? a->res.best : a->res.move, a->res.value,
                         a->res.exact, a->res.depth);
}

static int ask(void *ud, srv_room *room, uint64_t token) {
  srv_hints *h = ud;
  hint_job *j = calloc(1, sizeof *j);
  if (j == NULL)
    return SRV_ENOMEM;
  j->owner = h;
  j->room = room;
  j->token = token;
  uint64_t seed;
  if (srv_rand_bytes(&seed, sizeof seed) != 0)
    seed = token * UINT64_C(0x9E3779B97F4A7C15);
  srv_search_req req = {srv_room_game(room), HINT_LEVEL,         h->cfg.ms, seed,
                        SRV_SEARCH_FAST,     srv_room_code(room)};
  int rc = h->queue->submit(h->queue, &req, on_answer, j, &j->job);
  if (rc != 0) {
    srv_log_warn("hint", "%s: no search for the hint: %s", srv_room_code(room), srv_err_code(rc));
    free(j);
    return rc;
  }
  srv_hash_insert(&h->by_token, &j->hnode, token_hash(token));
  return 0;
}

static void drop(srv_hints *h, hint_job *j) {
  h->queue->cancel(h->queue, j->job);
  srv_hash_remove(&h->by_token, &j->hnode);
  free(j);
}

static void cancel(void *ud, srv_room *room, uint64_t token) {
  srv_hints *h = ud;
  hint_job *j = find(h, token);
  if (j != NULL && j->room == room)
    drop(h, j);
}

srv_hints *srv_hints_new(srv_rooms *rooms, srv_search_queue *queue, const srv_hints_config *cfg) {
  srv_hints *h = calloc(1, sizeof *h);
  if (h == NULL)
    return NULL;
  h->rooms = rooms;
  h->queue = queue;
  h->cfg = *cfg;
  if (h->cfg.ms < 1)
    h->cfg.ms = 1;
  if (srv_hash_init(&h->by_token, 64) != 0) {
    free(h);
    return NULL;
  }
  srv_room_hinter t = {ask, cancel, h};
  srv_rooms_set_hinter(rooms, &t, cfg->per_minute);
  return h;
}

void srv_hints_free(srv_hints *h) {
  if (h == NULL)
    return;
  srv_hash_node *n;
  while ((n = srv_hash_first(&h->by_token)) != NULL)
    drop(h, srv_hash_entry(n, hint_job, hnode));
  srv_hash_dispose(&h->by_token);
  free(h);
}

int srv_hints_pending(const srv_hints *h) {
  return (int)srv_hash_count(&h->by_token);
}
