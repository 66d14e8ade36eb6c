/* The search queue over Redis Streams (see srv_search_redis.h). */
#include "srv_search_redis.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_error.h"
#include "mc_level.h"
#include "srv_error.h"
#include "srv_hash.h"
#include "srv_list.h"
#include "srv_log.h"
#include "srv_rand.h"
#include "srv_redis.h"
#include "srv_search_wire.h"

/* The tick checks the jobs' patience; every POLL_TICKS-th one asks Redis for the lanes' lengths
 * and the workers. */
#define TICK_MS 250
#define POLL_TICKS 4
/* The most a job run in fallback after it was sent may take: the game has waited already. */
#define FALLBACK_MS 300
/* The moving average of the overhead: each answer weighs 1/OVERHEAD_WEIGHT. */
#define OVERHEAD_WEIGHT 8

typedef struct rq rq;

struct srv_search_job {
  rq *owner;
  uint64_t number; /* The job's id is "<node>-<number>". */
  srv_search_lane lane;
  mc_game *game; /* A copy: the fallback's search and the answer's check. */
  size_t nplies; /* Its game's moves: an analysis answers one entry each. */
  char label[64];
  uint64_t ply, hash;
  int level;
  long ms;     /* As asked (an analysis: each ply's). */
  long budget; /* As sent. */
  uint64_t seed;
  srv_search_done_fn done;
  void *arg;
  uint64_t sent_at, patience_at;
  uint64_t
      epoch;    /* The owner's poll count when it was sent: counted in `since` while this poll's. */
  bool sending; /* Its XADD is under way (its answer frees a cancelled job). */
  bool cancelled;        /* Cancelled while sending: no longer in the table. */
  char entry[48];        /* The stream entry's id, once known. */
  srv_search_job *local; /* Run in fallback. */
  srv_hash_node hnode;   /* owner->jobs, by number */
};

typedef struct lane_seen {
  long long length, held; /* XLEN, and the jobs workers hold (pending). */
  int since;              /* Jobs this node sent since the poll, still unanswered. */
  double overhead;        /* ms a job costs a worker beside its search: a moving average. */
  long last_budget;
} lane_seen;

typedef struct poll_arg {
  rq *r;
  srv_search_lane lane;
} poll_arg;

struct rq {
  srv_search_queue q; /* First: a srv_search_queue * is an rq *. */
  srv_time *time;
  srv_redis *redis;
  srv_search_queue *fallback;
  char node[17];
  char channel[sizeof SRV_SEARCH_REPLY_PREFIX + 17];
  long target[SRV_SEARCH_LANES], floor[SRV_SEARCH_LANES];
  srv_hash jobs;
  uint64_t next_number;
  srv_timer *tick;
  int ticks;
  bool closing;
  /* The poll: its answers, in the order asked. */
  int polling;    /* Answers still to come. */
  uint64_t epoch; /* Polls answered so far. */
  poll_arg polls[SRV_SEARCH_LANES];
  lane_seen lanes[SRV_SEARCH_LANES];
  int nalive[SRV_SEARCH_LANES];  /* As the poll under way counts them. */
  int workers[SRV_SEARCH_LANES]; /* Alive, serving each lane, as the last poll counted them. */
  int running[SRV_SEARCH_LANES];
  srv_search_redis_stats stats;
  uint64_t done, cut;
};

/* A lane's stream: the same order (srv_search_wire.h). */
static srv_search_stream stream_of(srv_search_lane lane) {
  return lane == SRV_SEARCH_FAST   ? SRV_SEARCH_STREAM_FAST
         : lane == SRV_SEARCH_DEEP ? SRV_SEARCH_STREAM_DEEP
                                   : SRV_SEARCH_STREAM_ANALYSIS;
}

/* Whether a move at level is searched to a fixed depth (levels 1-4, mc_level.h): such a search
 * takes microseconds to a few milliseconds, less than the way through Redis and back, and stays
 * in process whatever the load (docs/computer.md, "Search workers"). */
static bool fixed_depth(int level) {
  mc_level lv;
  return mc_level_get(level, &lv) == 0 && lv.depth > 0;
}

static bool number_is(const srv_hash_node *n, const void *key) {
  return srv_hash_entry(n, srv_search_job, hnode)->number == *(const uint64_t *)key;
}

static size_t number_hash(uint64_t n) {
  return srv_hash_bytes(&n, sizeof n);
}

static srv_search_job *find(rq *r, uint64_t number) {
  srv_hash_node *n = srv_hash_find(&r->jobs, number_hash(number), number_is, &number);
  return n != NULL ? srv_hash_entry(n, srv_search_job, hnode) : NULL;
}

static void job_free(srv_search_job *j) {
  mc_game_free(j->game);
  free(j);
}

static uint64_t now_ms(rq *r) {
  return r->time->now(r->time);
}

/* j no longer waits in its lane's stream as this node counts it. */
static void settled(rq *r, srv_search_job *j) {
  if (j->epoch == r->epoch && j->epoch != 0 && r->lanes[j->lane].since > 0)
    r->lanes[j->lane].since--;
  j->epoch = 0;
}

static void forget(rq *r, srv_search_job *j) {
  srv_hash_remove(&r->jobs, &j->hnode);
  settled(r, j);
  if (!j->sending)
    r->running[j->lane]--;
}

/* Deletes j's entry from its stream: a waiting job is never run, a running one stops. */
static void delete_entry(rq *r, const srv_search_job *j) {
  if (j->entry[0] != '\0' && !r->closing)
    (void)srv_redis_commandf(r->redis, NULL, NULL, "XDEL %s %s", srv_search_stream_key[j->lane],
                             j->entry);
}

/* ---- Answers ------------------------------------------------------------------------------- */

static void finish(rq *r, srv_search_job *j, const srv_search_answer *a) {
  r->done++;
  r->cut += a->cut;
  srv_search_done_fn done = j->done;
  void *arg = j->arg;
  if (j->sending)
    j->cancelled = true; /* Answered before its XADD's answer came: on_added() frees it. */
  else
    job_free(j);
  done(arg, a); /* May submit or cancel others. */
}

static void on_local(void *arg, const srv_search_answer *a) {
  srv_search_job *j = arg;
  rq *r = j->owner;
  srv_hash_remove(&r->jobs, &j->hnode);
  srv_search_answer out = *a;
  out.cut = a->cut || a->budget_ms < j->ms;
  finish(r, j, &out);
}

/* Runs j in the in-process queue (at most ms), its answer given as this queue's. */
static void run_local(rq *r, srv_search_job *j, long ms) {
  srv_search_req req = {j->game, j->level, ms < j->ms ? ms : j->ms, j->seed, j->lane, j->label};
  j->local = NULL;
  int rc = r->fallback->submit(r->fallback, &req, on_local, j, &j->local);
  if (rc != 0) {
    srv_log_error("search", "%s: no search in process either: %s", j->label, srv_err_code(rc));
    srv_hash_remove(&r->jobs, &j->hnode);
    srv_search_answer a = {.rc = rc, .budget_ms = 0, .cut = false};
    finish(r, j, &a);
  }
}

/* j was sent and will not be answered by a worker: a shallow search here. */
static void fall_back(rq *r, srv_search_job *j, const char *why) {
  srv_log_warn("search", "%s: job %s-%" PRIu64 " at ply %" PRIu64 " %s: searched in process",
               j->label, r->node, j->number, j->ply, why);
  r->stats.fallbacks++;
  settled(r, j);
  if (!j->sending) {
    r->running[j->lane]--;
    delete_entry(r, j);
    j->entry[0] = '\0';
  }
  run_local(r, j, FALLBACK_MS); /* An analysis: each ply's budget, at most that. */
}

/* Whether move is one the game's side to move may play. */
static bool legal(const mc_game *game, int move) {
  if (move == MC_SWAP)
    return mc_game_can_swap(game);
  uint8_t moves[MC_MAX_HOUSES];
  int n = mc_game_legal(game, moves);
  for (int i = 0; i < n; i++)
    if (moves[i] == move)
      return true;
  return false;
}

/* Whether an analysis' plies are one a move of j's game, each the move played there. */
static bool analysis_fits(const srv_search_job *j, const srv_search_wire_answer *a) {
  size_t n = 0;
  const uint8_t *moves = mc_game_moves(j->game, &n);
  if (a->plies == NULL || a->nplies != n)
    return false;
  for (size_t i = 0; i < n; i++)
    if (a->plies[i].played != moves[i])
      return false;
  return true;
}

static void take_answer(rq *r, srv_search_wire_answer *a);

static void on_message(void *ud, const char *channel, size_t clen, const char *msg, size_t len) {
  rq *r = ud;
  (void)channel;
  (void)clen;
  srv_search_wire_answer a;
  if (srv_search_wire_answer_decode(msg, len, &a) != 0) {
    srv_log_warn("search", "an answer that is not one (%zu bytes): ignored", len);
    r->stats.ignored++;
    return;
  }
  take_answer(r, &a);
  srv_search_wire_answer_dispose(&a);
}

/* An answer decoded: given to its job when it is one still wanted, of the job's position. */
static void take_answer(rq *r, srv_search_wire_answer *ap) {
  const srv_search_wire_answer a = *ap;
  size_t nl = strlen(r->node);
  uint64_t number = 0;
  srv_search_job *j = NULL;
  if (strncmp(a.id, r->node, nl) == 0 && a.id[nl] == '-' &&
      sscanf(a.id + nl + 1, "%" SCNu64, &number) == 1)
    j = find(r, number);
  if (j == NULL || j->local != NULL) {
    srv_log_debug("search",
                  "%s: the answer of job %s (ply %" PRIu64 ") is no longer wanted: ignored", a.game,
                  a.id, a.ply);
    r->stats.ignored++;
    return;
  }
  if (strcmp(a.game, j->label) != 0 || a.ply != j->ply || a.hash != j->hash) {
    srv_log_warn("search",
                 "%s: a stale answer to job %s ignored: it is for %s at ply %" PRIu64
                 " (hash %016" PRIx64 "), the job's position is ply %" PRIu64 " (hash %016" PRIx64
                 ")",
                 j->label, a.id, a.game, a.ply, a.hash, j->ply, j->hash);
    r->stats.ignored++;
    return;
  }
  if (a.error[0] != '\0') {
    char why[sizeof a.worker + sizeof a.error + 32];
    snprintf(why, sizeof why, "failed on worker %s (try %d: %s)", a.worker, a.tries, a.error);
    fall_back(r, j, why);
    return;
  }
  if (j->lane == SRV_SEARCH_ANALYSIS) {
    if (!analysis_fits(j, &a)) {
      fall_back(r, j, "was answered with an analysis of another game");
      return;
    }
    srv_log_info("search", "%s: analysis of %zu plies from worker %s (try %d)", j->label, a.nplies,
                 a.worker, a.tries);
  } else if (a.plies != NULL || !legal(j->game, a.res.move) ||
             (a.res.best != 0 && !legal(j->game, a.res.best))) {
    fall_back(r, j, "was answered with an illegal move");
    return;
  } else {
    srv_log_debug(
        "search",
        "%s: move %d at ply %" PRIu64 " from worker %s (try %d), depth %d in %ld ms of %ld",
        j->label, a.res.move, j->ply, a.worker, a.tries, a.res.depth, a.res.time_ms, j->budget);
  }
  /* What a job costs beside its search: the worker's own (it alone knows when it took the job;
   * the wait in the stream is the jobs ahead, which the budget counts already). */
  lane_seen *l = &r->lanes[j->lane];
  l->overhead += ((double)a.overhead_ms - l->overhead) / OVERHEAD_WEIGHT;
  r->stats.answered++;
  forget(r, j);
  long budget = a.budget_ms > 0 ? a.budget_ms : j->budget;
  srv_search_answer out = {0, a.res, budget, budget < j->ms, a.plies, a.nplies};
  finish(r, j, &out);
}

/* ---- Submit and cancel --------------------------------------------------------------------- */

static void on_added(void *arg, const redisReply *reply) {
  srv_search_job *j = arg;
  rq *r = j->owner;
  j->sending = false;
  bool ok = reply != NULL && reply->type == REDIS_REPLY_STRING && reply->len < (int)sizeof j->entry;
  if (ok)
    memcpy(j->entry, reply->str, (size_t)reply->len + 1);
  if (j->cancelled) {
    delete_entry(r, j);
    job_free(j);
    return;
  }
  if (j->local != NULL) { /* Fell back meanwhile (an error answer, Redis lost): not wanted. */
    delete_entry(r, j);
    j->entry[0] = '\0';
    return;
  }
  r->running[j->lane]++;
  if (!ok) {
    fall_back(r, j, reply == NULL ? "could not be sent (Redis)" : "was refused by Redis");
    return;
  }
  r->stats.sent++;
}

/* A new job j straight to the in-process queue, at its full time (the pool cuts it under load):
 * 0, or the pool's error with j gone. */
static int submit_local(rq *r, srv_search_job *j) {
  srv_search_req req = {j->game, j->level, j->ms, j->seed, j->lane, j->label};
  int rc = r->fallback->submit(r->fallback, &req, on_local, j, &j->local);
  if (rc != 0) {
    srv_hash_remove(&r->jobs, &j->hnode);
    job_free(j);
    return rc;
  }
  r->stats.local++;
  return 0;
}

static int submit(srv_search_queue *q, const srv_search_req *req, srv_search_done_fn done,
                  void *arg, srv_search_job **out) {
  rq *r = (rq *)q;
  if (req->lane < 0 || req->lane >= SRV_SEARCH_LANES || done == NULL || r->closing)
    return SRV_EINTERNAL;
  srv_search_job *j = calloc(1, sizeof *j);
  if (j == NULL || (j->game = mc_game_copy(req->game)) == NULL) {
    free(j);
    return SRV_ENOMEM;
  }
  j->owner = r;
  j->number = ++r->next_number;
  j->lane = req->lane;
  snprintf(j->label, sizeof j->label, "%s", req->label != NULL ? req->label : "");
  j->level = req->level;
  j->ms = req->ms > 0 ? req->ms : 1;
  j->seed = req->seed;
  j->done = done;
  j->arg = arg;
  mc_game_moves(j->game, &j->nplies);
  srv_hash_insert(&r->jobs, &j->hnode, number_hash(j->number));
  const bool analysis = j->lane == SRV_SEARCH_ANALYSIS;
  if ((j->lane == SRV_SEARCH_FAST && fixed_depth(j->level)) || r->workers[j->lane] == 0 ||
      !srv_redis_up(r->redis)) {
    /* A fixed-depth move (faster here than the way through Redis), or nobody to run it: in
     * process, at its full time (the pool cuts a move's under load). */
    srv_log_debug("search", "%s: level %d at ply %zu searched in process (%s)", j->label, j->level,
                  mc_game_ply(j->game),
                  r->workers[j->lane] > 0 && srv_redis_up(r->redis) ? "fixed depth" : "no worker");
    int rc = submit_local(r, j);
    if (rc == 0)
      *out = j;
    return rc;
  }
  lane_seen *l = &r->lanes[j->lane];
  long long waiting = l->length - l->held;
  if (waiting < 0)
    waiting = 0;
  waiting += l->since;
  /* An analysis' budget is each ply's, never cut (moves go first on the worker instead). */
  j->budget = analysis ? j->ms
                       : srv_search_budget(j->ms, waiting > INT32_MAX ? INT32_MAX : (int)waiting,
                                           r->workers[j->lane], r->target[j->lane],
                                           r->floor[j->lane], (long)l->overhead);
  l->last_budget = j->budget;
  l->since++;
  j->epoch = r->epoch;
  srv_search_wire_job w = {.level = j->level,
                           .ms = j->budget,
                           .max_ms = analysis ? 0 : j->ms,
                           .target_ms = analysis ? 0 : r->target[j->lane],
                           .floor_ms = r->floor[j->lane] > 0 ? r->floor[j->lane] : 1,
                           .seed = j->seed,
                           .stream = stream_of(j->lane)};
  snprintf(w.id, sizeof w.id, "%s-%" PRIu64, r->node, j->number);
  snprintf(w.reply, sizeof w.reply, "%s", r->channel);
  snprintf(w.game, sizeof w.game, "%s", j->label);
  char *text = srv_search_wire_job_encode(&w, j->game);
  if (text == NULL) {
    srv_hash_remove(&r->jobs, &j->hnode);
    job_free(j);
    return SRV_ENOMEM;
  }
  j->ply = w.ply;
  j->hash = w.hash;
  j->sent_at = now_ms(r);
  /* Its worker may give it up to ms (its budget at the search's start), an analysis ms a ply,
   * and a take-over comes after the reclaim time: three tries of that, and a second each. */
  j->patience_at = j->sent_at + (uint64_t)SRV_SEARCH_MAX_TRIES *
                                    (analysis ? (uint64_t)j->ms * (j->nplies > 0 ? j->nplies : 1) +
                                                    SRV_SEARCH_RECLAIM_ANALYSIS_MS + 1000
                                              : (uint64_t)j->ms + SRV_SEARCH_RECLAIM_MS + 1000);
  j->sending = true;
  char maxlen[24];
  snprintf(maxlen, sizeof maxlen, "%d", SRV_SEARCH_STREAM_MAX);
  const char *argv[] = {"XADD", srv_search_stream_key[w.stream], "MAXLEN", "~", maxlen, "*", "job",
                        text};
  int rc = srv_redis_command(r->redis, on_added, j, 8, argv, NULL);
  free(text);
  if (rc != 0) {
    j->sending = false;
    rc = submit_local(r, j);
  }
  if (rc == 0)
    *out = j;
  return rc;
}

static void cancel(srv_search_queue *q, srv_search_job *j) {
  rq *r = (rq *)q;
  srv_hash_remove(&r->jobs, &j->hnode);
  settled(r, j);
  if (j->local != NULL) {
    r->fallback->cancel(r->fallback, j->local);
    j->local = NULL;
    if (j->sending)
      j->cancelled = true; /* on_added() frees it. */
    else
      job_free(j);
    return;
  }
  if (j->sending) {
    j->cancelled = true; /* on_added() frees it. */
    return;
  }
  r->running[j->lane]--;
  delete_entry(r, j);
  job_free(j);
}

static void stats(const srv_search_queue *q, srv_search_stats *out) {
  const rq *r = (const rq *)q;
  srv_search_stats local;
  r->fallback->stats(r->fallback, &local);
  for (int i = 0; i < SRV_SEARCH_LANES; i++) {
    long long waiting = r->lanes[i].length - r->lanes[i].held;
    out->running[i] = r->running[i] + local.running[i];
    out->waiting[i] = (int)(waiting > 0 ? waiting : 0) + local.waiting[i];
    out->workers[i] = r->workers[i] + local.workers[i];
    out->last_budget_ms[i] = r->lanes[i].last_budget;
  }
  out->done = r->done;
  out->cut = r->cut;
}

void srv_search_redis_stats_get(const srv_search_queue *q, srv_search_redis_stats *out) {
  const rq *r = (const rq *)q;
  *out = r->stats;
  out->workers = r->workers[SRV_SEARCH_DEEP];
  out->fast_workers = r->workers[SRV_SEARCH_FAST];
  out->analysis_workers = r->workers[SRV_SEARCH_ANALYSIS];
}

/* ---- The poll, the patience, the connection ----------------------------------------------- */

/* A field of a flat [key, value, ...] array reply, or NULL. */
static const redisReply *field(const redisReply *a, const char *key) {
  if (a == NULL || a->type != REDIS_REPLY_ARRAY)
    return NULL;
  for (size_t i = 0; i + 1 < a->elements; i += 2)
    if (a->element[i]->type == REDIS_REPLY_STRING && strcmp(a->element[i]->str, key) == 0)
      return a->element[i + 1];
  return NULL;
}

/* The workers alive per lane, as counted; a change is logged. */
static void set_workers(rq *r, const int alive[SRV_SEARCH_LANES]) {
  bool changed = false;
  for (int i = 0; i < SRV_SEARCH_LANES; i++) {
    changed |= r->workers[i] != alive[i];
    r->workers[i] = alive[i];
  }
  if (changed)
    srv_log_info("search", "search workers: %d fast, %d deep, %d analysis alive%s",
                 r->workers[SRV_SEARCH_FAST], r->workers[SRV_SEARCH_DEEP],
                 r->workers[SRV_SEARCH_ANALYSIS],
                 r->workers[SRV_SEARCH_FAST] == 0 || r->workers[SRV_SEARCH_DEEP] == 0 ||
                         r->workers[SRV_SEARCH_ANALYSIS] == 0
                     ? " (a lane without workers is searched in process)"
                     : "");
}

static void poll_answered(rq *r) {
  if (--r->polling > 0 || r->closing)
    return;
  /* The lengths now count every job sent so far. */
  r->epoch++;
  for (int i = 0; i < SRV_SEARCH_LANES; i++)
    r->lanes[i].since = 0;
  set_workers(r, r->nalive);
}

static void on_length(void *arg, const redisReply *reply) {
  lane_seen *l = arg;
  if (reply != NULL && reply->type == REDIS_REPLY_INTEGER)
    l->length = reply->integer;
}

/* XINFO GROUPS of a lane's stream: the jobs its workers hold (pending). */
static void on_groups(void *arg, const redisReply *reply) {
  poll_arg *p = arg;
  lane_seen *l = &p->r->lanes[p->lane];
  for (size_t i = 0; reply != NULL && reply->type == REDIS_REPLY_ARRAY && i < reply->elements;
       i++) {
    const redisReply *name = field(reply->element[i], "name");
    const redisReply *pending = field(reply->element[i], "pending");
    if (name != NULL && name->type == REDIS_REPLY_STRING &&
        strcmp(name->str, SRV_SEARCH_GROUP) == 0 && pending != NULL &&
        pending->type == REDIS_REPLY_INTEGER) {
      l->held = pending->integer;
    }
  }
  poll_answered(p->r);
}

static void on_alive(void *arg, const redisReply *reply) {
  poll_arg *p = arg;
  p->r->nalive[p->lane] =
      reply != NULL && reply->type == REDIS_REPLY_INTEGER ? (int)reply->integer : 0;
  poll_answered(p->r);
}

static void poll(rq *r) {
  if (r->polling > 0 || !srv_redis_up(r->redis))
    return;
  for (int i = 0; i < SRV_SEARCH_LANES; i++) {
    const char *key = srv_search_stream_key[stream_of((srv_search_lane)i)];
    r->polls[i] = (poll_arg){r, (srv_search_lane)i};
    const char *alive = srv_search_workers_key[stream_of((srv_search_lane)i)];
    if (srv_redis_commandf(r->redis, on_length, &r->lanes[i], "XLEN %s", key) != 0 ||
        srv_redis_commandf(r->redis, on_groups, &r->polls[i], "XINFO GROUPS %s", key) != 0)
      return; /* Down: the state callback says so. */
    r->polling++;
    if (srv_redis_commandf(r->redis, on_alive, &r->polls[i], "EVAL %s 1 %s %d",
                           SRV_SEARCH_ALIVE_LUA, alive, SRV_SEARCH_LIVE_MS) != 0)
      return;
    r->polling++;
  }
}

static void on_tick(void *arg) {
  rq *r = arg;
  uint64_t now = now_ms(r);
  /* Jobs past their patience: collected first, since falling back may finish others. */
  srv_search_job *late[64];
  int n = 0;
  for (srv_hash_node *it = srv_hash_first(&r->jobs); it != NULL && n < 64;
       it = srv_hash_next(&r->jobs, it)) {
    srv_search_job *j = srv_hash_entry(it, srv_search_job, hnode);
    if (j->local == NULL && !j->sending && now >= j->patience_at)
      late[n++] = j;
  }
  for (int i = 0; i < n; i++)
    fall_back(r, late[i], "got no answer in time");
  if (++r->ticks % POLL_TICKS == 0)
    poll(r);
  r->time->timer_start(r->tick, TICK_MS);
}

static void on_group(void *arg, const redisReply *reply) {
  (void)arg;
  if (reply != NULL && reply->type == REDIS_REPLY_ERROR && strncmp(reply->str, "BUSYGROUP", 9) != 0)
    srv_log_warn("search", "cannot make the workers' group: %s", reply->str);
}

static void on_state(void *ud, bool up) {
  rq *r = ud;
  if (up) {
    srv_log_info("search", "search queue: Redis is up; answers on %s", r->channel);
    for (int i = 0; i < SRV_SEARCH_STREAMS; i++)
      (void)srv_redis_commandf(r->redis, on_group, NULL, "XGROUP CREATE %s %s 0 MKSTREAM",
                               srv_search_stream_key[i], SRV_SEARCH_GROUP);
    poll(r);
    return;
  }
  srv_log_warn("search", "search queue: Redis is down; searches run in process");
  static const int none[SRV_SEARCH_LANES] = {0};
  set_workers(r, none);
  /* The jobs sent may have lost their answers with the reply connection. */
  srv_search_job *sent[64];
  int n;
  do {
    n = 0;
    for (srv_hash_node *it = srv_hash_first(&r->jobs); it != NULL && n < 64;
         it = srv_hash_next(&r->jobs, it)) {
      srv_search_job *j = srv_hash_entry(it, srv_search_job, hnode);
      if (j->local == NULL && !j->sending)
        sent[n++] = j;
    }
    for (int i = 0; i < n; i++)
      fall_back(r, sent[i], "lost its answer's way (Redis down)");
  } while (n == 64);
}

int srv_search_redis_new(uv_loop_t *loop, srv_time *time, const srv_search_redis_config *cfg,
                         srv_search_queue **out) {
  rq *r = calloc(1, sizeof *r);
  if (r == NULL)
    return SRV_ENOMEM;
  r->q = (srv_search_queue){submit, cancel, stats, r};
  r->time = time;
  r->fallback = cfg->fallback;
  r->epoch = 1;
  for (int i = 0; i < SRV_SEARCH_LANES; i++) {
    r->target[i] = cfg->target_ms[i];
    r->floor[i] = cfg->floor_ms[i];
  }
  uint64_t id;
  if (srv_rand_bytes(&id, sizeof id) != 0)
    id = (uint64_t)uv_os_getpid() * UINT64_C(0x9E3779B97F4A7C15) ^ uv_hrtime();
  snprintf(r->node, sizeof r->node, "%016" PRIx64, id);
  snprintf(r->channel, sizeof r->channel, "%s%s", SRV_SEARCH_REPLY_PREFIX, r->node);
  if (srv_hash_init(&r->jobs, 64) != 0) {
    free(r);
    return SRV_ENOMEM;
  }
  srv_redis_config rc = {.url = cfg->url, .message = on_message, .state = on_state, .ud = r};
  int err = srv_redis_new(loop, &rc, &r->redis);
  if (err == 0 && srv_redis_subscribe(r->redis, r->channel) != 0)
    err = SRV_ENOMEM;
  if (err == 0 && (r->tick = srv_timer_new(time, on_tick, r)) == NULL)
    err = SRV_ENOMEM;
  if (err != 0) {
    if (r->redis != NULL)
      srv_redis_close(r->redis);
    srv_hash_dispose(&r->jobs);
    free(r);
    return err;
  }
  time->timer_start(r->tick, TICK_MS);
  *out = &r->q;
  return 0;
}

void srv_search_redis_close(srv_search_queue *q) {
  rq *r = (rq *)q;
  if (r == NULL || r->closing)
    return;
  r->time->timer_free(r->tick);
  r->tick = NULL;
  r->closing = true;
  srv_redis_close(r->redis); /* Pending commands answered (NULL) now: nothing is sent from them. */
  r->redis = NULL;
}

void srv_search_redis_free(srv_search_queue *q) {
  if (q == NULL)
    return;
  rq *r = (rq *)q;
  srv_hash_node *n;
  while ((n = srv_hash_first(&r->jobs)) != NULL) {
    srv_search_job *j = srv_hash_entry(n, srv_search_job, hnode);
    srv_hash_remove(&r->jobs, n);
    job_free(j);
  }
  srv_hash_dispose(&r->jobs);
  if (r->tick != NULL)
    r->time->timer_free(r->tick);
  if (!r->closing && r->redis != NULL)
    srv_redis_close(r->redis);
  free(r);
}
