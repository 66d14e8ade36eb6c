/* The analyses of finished games as jobs of the analysis lane (see srv_analysis.h). */
#include "srv_analysis.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_eval.h"
#include "srv_error.h"
#include "srv_hash.h"
#include "srv_list.h"
#include "srv_log.h"
#include "srv_marks.h"

/* How long an analysis handed to storage is remembered: a lost write is made again after it. */
#define SAVING_KEEP_MS 60000
/* The addresses' buckets kept at most; past it, full ones are forgotten. */
#define ADDR_MAX 4096
#define HOUR_MS 3600000.0

typedef struct job {
  srv_analysis *owner;
  int64_t id;
  srv_search_job *search; /* NULL once answered. */
  srv_analysis_state state;
  uint64_t saved_at; /* SAVING: when it was handed to storage. */
  int plies;
  srv_list link; /* owner->jobs, in the order asked. */
} job;

typedef struct bucket {
  char addr[64];
  double tokens;
  uint64_t at; /* When tokens was counted. */
  srv_hash_node hnode;
} bucket;

struct srv_analysis {
  srv_search_queue *queue;
  srv_store *store;
  srv_time *time;
  srv_analysis_config cfg;
  srv_list jobs;
  int pending; /* Jobs QUEUED or RUNNING. */
  srv_hash addrs;
};

static uint64_t now_ms(srv_analysis *a) {
  return a->time->now(a->time);
}

static bool bucket_is(const srv_hash_node *n, const void *key) {
  return strcmp(srv_hash_entry(n, bucket, hnode)->addr, key) == 0;
}

/* Refills b to now. */
static void refill(srv_analysis *a, bucket *b, uint64_t now) {
  b->tokens += (double)(now - b->at) * a->cfg.per_hour / HOUR_MS;
  if (b->tokens > a->cfg.per_hour)
    b->tokens = a->cfg.per_hour;
  b->at = now;
}

/* Forgets the buckets that are full again (nothing to remember of them). */
static void prune(srv_analysis *a, uint64_t now) {
  for (srv_hash_node *n = srv_hash_first(&a->addrs), *next; n != NULL; n = next) {
    next = srv_hash_next(&a->addrs, n);
    bucket *b = srv_hash_entry(n, bucket, hnode);
    refill(a, b, now);
    if (b->tokens >= a->cfg.per_hour) {
      srv_hash_remove(&a->addrs, n);
      free(b);
    }
  }
}

/* Takes one start from addr's bucket: 0, SRV_ERATE with *wait_ms, or SRV_ENOMEM. */
static int take(srv_analysis *a, const char *addr, int64_t *wait_ms) {
  uint64_t now = now_ms(a);
  srv_hash_node *n = srv_hash_find(&a->addrs, srv_hash_str(addr), bucket_is, addr);
  bucket *b = n != NULL ? srv_hash_entry(n, bucket, hnode) : NULL;
  if (b == NULL) {
    if (srv_hash_count(&a->addrs) >= ADDR_MAX)
      prune(a, now);
    if (srv_hash_count(&a->addrs) >= ADDR_MAX)
      return SRV_EBUSY;
    if ((b = calloc(1, sizeof *b)) == NULL)
      return SRV_ENOMEM;
    snprintf(b->addr, sizeof b->addr, "%s", addr);
    b->tokens = a->cfg.per_hour;
    b->at = now;
    srv_hash_insert(&a->addrs, &b->hnode, srv_hash_str(b->addr));
  }
  refill(a, b, now);
  if (b->tokens < 1.0) {
    *wait_ms = (int64_t)((1.0 - b->tokens) * HOUR_MS / a->cfg.per_hour) + 1;
    return SRV_ERATE;
  }
  b->tokens -= 1.0;
  return 0;
}

static job *find(srv_analysis *a, int64_t id) {
  uint64_t now = now_ms(a);
  srv_list_foreach_safe (it, &a->jobs) {
    job *j = srv_list_entry(it, job, link);
    if (j->state == SRV_ANALYSIS_SAVING && now - j->saved_at > SAVING_KEEP_MS) {
      srv_list_remove(&j->link); /* Its write was lost, or nobody asked since. */
      free(j);
      continue;
    }
    if (j->id == id)
      return j;
  }
  return NULL;
}

static void status_of(srv_analysis *a, const job *j, srv_analysis_status *out) {
  memset(out, 0, sizeof *out);
  out->state = j->state;
  out->plies = j->plies;
  out->ply_ms = a->cfg.ply_ms;
  if (j->state == SRV_ANALYSIS_SAVING)
    return;
  srv_list_foreach (it, &a->jobs) {
    const job *o = srv_list_entry(it, job, link);
    if (o == j)
      break;
    out->ahead += o->state != SRV_ANALYSIS_SAVING;
  }
  /* The lane runs its jobs in the order they were asked for: the first ones run. */
  srv_search_stats st;
  a->queue->stats(a->queue, &st);
  if (out->ahead < st.running[SRV_SEARCH_ANALYSIS]) {
    out->state = SRV_ANALYSIS_RUNNING;
    out->ahead = 0;
  }
}

/* ---- The stored form ------------------------------------------------------------------------ */

static json_t *move_json(uint8_t house) {
  return house == MC_SWAP ? json_string("swap") : json_integer(house);
}

static json_t *seeds(int value) {
  return json_real((double)value / MC_SEED);
}

static json_t *ply_json(const mc_ply_eval *e, size_t i) {
  srv_mark mark = srv_mark_ply(e);
  json_t *line = json_array();
  for (int k = 0; line != NULL && k < e->pv_len; k++)
    if (json_array_append_new(line, move_json(e->pv[k])) != 0) {
      json_decref(line);
      line = NULL;
    }
  if (line == NULL)
    return NULL;
  return json_pack("{s:I,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:b,s:i,s:o}", "ply",
                   (json_int_t)(i + 1), "seat", e->mover == MC_SOUTH ? "south" : "north", "played",
                   move_json(e->played), "best", move_json(e->best), "before", seeds(e->value),
                   "after", e->played_known ? seeds(e->played_value) : json_null(), "loss",
                   e->played_known ? seeds(e->value - e->played_value) : json_null(), "mark",
                   mark != SRV_MARK_NONE ? json_string(srv_mark_name(mark)) : json_null(), "eval",
                   seeds(e->mover == MC_SOUTH ? e->value : -e->value), "exact", e->exact,
                   "played_exact", e->played_known && e->played_exact, "depth", (int)e->depth,
                   "line", line);
}

int srv_analysis_encode(const mc_ply_eval *plies, size_t n, srv_store_analysis *out) {
  json_t *arr = json_array();
  for (size_t i = 0; arr != NULL && i < n; i++) {
    json_t *p = ply_json(&plies[i], i);
    if (p == NULL || json_array_append_new(arr, p) != 0) {
      json_decref(arr);
      arr = NULL;
    }
  }
  out->plies = arr != NULL ? json_dumps(arr, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
  json_decref(arr);
  if (out->plies == NULL)
    return SRV_ENOMEM;
  for (int seat = 0; seat < 2; seat++)
    out->accuracy_known[seat] = srv_marks_accuracy(plies, n, seat, &out->accuracy[seat]);
  return 0;
}

/* ---- Jobs ----------------------------------------------------------------------------------- */

static void on_answer(void *arg, const srv_search_answer *ans) {
  job *j = arg;
  srv_analysis *a = j->owner;
  j->search = NULL;
  a->pending--;
  srv_store_analysis sa = {.game = j->id, .ply_ms = a->cfg.ply_ms};
  int rc = ans->rc;
  if (rc == 0)
    rc = srv_analysis_encode(ans->plies, ans->nplies, &sa);
  if (rc == 0) {
    sa.analysed_ms = a->time->wall(a->time);
    rc = srv_store_analysis_put(a->store, &sa);
    free(sa.plies);
  }
  if (rc != 0) {
    srv_log_error("analysis", "game %" PRId64 ": no analysis: %s", j->id, srv_err_code(rc));
    srv_list_remove(&j->link); /* Asked again, it is made again. */
    free(j);
    return;
  }
  srv_log_info("analysis", "game %" PRId64 ": %d plies analysed, stored", j->id, j->plies);
  j->state = SRV_ANALYSIS_SAVING;
  j->saved_at = now_ms(a);
}

int srv_analysis_request(srv_analysis *a, int64_t id, const mc_game *game, const char *addr,
                         srv_analysis_status *out) {
  memset(out, 0, sizeof *out);
  job *j = find(a, id);
  if (j != NULL) {
    status_of(a, j, out);
    return 0;
  }
  if (a->cfg.per_hour <= 0)
    return SRV_EUNSUPPORTED;
  if (a->pending >= a->cfg.queue)
    return SRV_EBUSY;
  int rc = take(a, addr, &out->retry_after_ms);
  if (rc != 0)
    return rc;
  if ((j = calloc(1, sizeof *j)) == NULL)
    return SRV_ENOMEM;
  j->owner = a;
  j->id = id;
  j->state = SRV_ANALYSIS_QUEUED;
  size_t n = 0;
  mc_game_moves(game, &n);
  j->plies = (int)n;
  char label[32];
  snprintf(label, sizeof label, "game %" PRId64, id);
  srv_search_req req = {game, 6, a->cfg.ply_ms, (uint64_t)id, SRV_SEARCH_ANALYSIS, label};
  srv_list_push_back(&a->jobs, &j->link);
  a->pending++;
  rc = a->queue->submit(a->queue, &req, on_answer, j, &j->search);
  if (rc != 0) {
    a->pending--;
    srv_list_remove(&j->link);
    free(j);
    return rc;
  }
  srv_log_info("analysis", "game %" PRId64 ": %zu plies queued for analysis", id, n);
  status_of(a, j, out);
  return 0;
}

bool srv_analysis_status_of(srv_analysis *a, int64_t id, srv_analysis_status *out) {
  job *j = find(a, id);
  if (j != NULL && out != NULL)
    status_of(a, j, out);
  return j != NULL;
}

void srv_analysis_stored(srv_analysis *a, int64_t id) {
  job *j = find(a, id);
  if (j != NULL && j->state == SRV_ANALYSIS_SAVING) {
    srv_list_remove(&j->link);
    free(j);
  }
}

/* How soon a page should ask again while an analysis is made, in ms. */
#define POLL_MS 1000

int srv_analysis_answer(void *ud, int64_t id, const char *gid, const mc_game *game,
                        const char *addr, char **body) {
  static const char *const states[] = {"queued", "running", "saving"};
  srv_analysis_status st;
  int rc = srv_analysis_request(ud, id, game, addr, &st);
  json_t *o;
  int status;
  if (rc == 0) {
    status = 202;
    o = json_pack("{s:s,s:s,s:i,s:i,s:I,s:i}", "game", gid, "status", states[st.state], "ahead",
                  st.ahead, "plies", st.plies, "ply_ms", (json_int_t)st.ply_ms, "retry_ms",
                  POLL_MS);
  } else if (rc == SRV_ERATE) {
    status = 429;
    o = json_pack("{s:s,s:s,s:I}", "error", "rate_limited", "message",
                  "Too many analyses from your address: wait before asking for another.",
                  "retry_after_ms", (json_int_t)st.retry_after_ms);
  } else if (rc == SRV_EBUSY || rc == SRV_EUNSUPPORTED) {
    status = 503;
    o = json_pack("{s:s,s:s}", "error", srv_err_code(rc), "message",
                  rc == SRV_EBUSY ? "Too many games are being analysed: try again later."
                                  : "This server does not analyse games.");
  } else {
    status = 500;
    o = json_pack("{s:s,s:s}", "error", srv_err_code(rc), "message", srv_err_message(rc));
  }
  *body = o != NULL ? json_dumps(o, JSON_COMPACT) : NULL;
  json_decref(o);
  return status;
}

void srv_analysis_served(void *ud, int64_t id) {
  srv_analysis_stored(ud, id);
}

int srv_analysis_pending(const srv_analysis *a) {
  return a->pending;
}

srv_analysis *srv_analysis_new(srv_search_queue *queue, srv_store *store, srv_time *time,
                               const srv_analysis_config *cfg) {
  srv_analysis *a = calloc(1, sizeof *a);
  if (a == NULL)
    return NULL;
  if (srv_hash_init(&a->addrs, 64) != 0) {
    free(a);
    return NULL;
  }
  a->queue = queue;
  a->store = store;
  a->time = time;
  a->cfg = *cfg;
  if (a->cfg.queue < 1)
    a->cfg.queue = 1;
  srv_list_init(&a->jobs);
  return a;
}

void srv_analysis_free(srv_analysis *a) {
  if (a == NULL)
    return;
  srv_list_foreach_safe (it, &a->jobs) {
    job *j = srv_list_entry(it, job, link);
    if (j->search != NULL)
      a->queue->cancel(a->queue, j->search);
    free(j);
  }
  for (srv_hash_node *n = srv_hash_first(&a->addrs), *next; n != NULL; n = next) {
    next = srv_hash_next(&a->addrs, n);
    free(srv_hash_entry(n, bucket, hnode));
  }
  srv_hash_dispose(&a->addrs);
  free(a);
}
