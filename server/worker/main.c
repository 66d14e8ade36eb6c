/* mancala-worker: runs the computer's searches for the servers of a site, from Redis Streams
 * (server/computer/srv_search_wire.h says what a job and its answer are; docs/computer.md,
 * "Search workers", how to run it). Any number of workers on any machines share the work: each
 * is a consumer of the streams' group, takes one job at a time (moves before analysis), searches
 * it with the engine of common/ for the job's budget, publishes the answer on the job's reply
 * channel, acknowledges it (XACK) and deletes its entry (XDEL). A job whose worker died (its entry
 * idle SRV_SEARCH_RECLAIM_MS: a running job is kept fresh every second) is taken by another with
 * XAUTOCLAIM; past SRV_SEARCH_MAX_TRIES deliveries it is answered with an error, so that its node
 * searches it itself. A job deleted while it runs (its node cancelled it) is stopped and not
 * answered. An analysis (a finished game, ply by ply) gives way to moves: while it runs, the
 * worker reads the move streams it serves every LOOK_MS, and a move job found stops the analysis,
 * is searched and answered (the analysis' entry kept fresh meanwhile), and the analysis goes on
 * from the last ply it valued. SIGTERM or SIGINT: the search under way is stopped early and
 * answered with the move found so far (an analysis under way with an error: its node analyses the
 * game itself), and the worker leaves the group and exits 0.
 *
 * Blocking hiredis on its own thread (a worker has no event loop); the search runs on a second
 * thread so that the first can keep the job fresh and see a cancel or a signal. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <hiredis/hiredis.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mc_analysis.h"
#include "mc_egtb.h"
#include "mc_error.h"
#include "srv_log.h"
#include "srv_prio.h"
#include "srv_search_queue.h"
#include "srv_search_wire.h"

#define LOG_MOD "worker"
/* Nice steps a worker lowers its CPU priority by unless --nice says otherwise: a server on the same
 * machine (its loop, level 4 in its fast lane) takes the cores first (docs/computer.md). */
#define NICE_DEFAULT 10
/* A blocking read waits this long for a job, so that a signal is seen within it. */
#define BLOCK_MS 1000
/* A running job is kept fresh (XCLAIM JUSTID) this often, and the worker says it is alive. */
#define FRESH_MS SRV_SEARCH_BEAT_MS
/* A running search's budget is looked at again this often (its stream's length now). */
#define CUT_MS 250
/* The moving average of this worker's overhead a job: each weighs 1/OVERHEAD_WEIGHT. */
#define OVERHEAD_WEIGHT 8
/* Redis' own time limit on a command: above BLOCK_MS. */
#define TIMEOUT_MS 5000
/* The search context's transposition table. */
#define TT_BYTES (64u << 20)
/* While an analysis runs, the move streams are read this often: a move waits at most this long
 * (and its analysis' current ply) for a worker busy with an analysis. */
#define LOOK_MS 100
/* Marks a ply an analysis has not valued yet (no house is numbered so). */
#define PLY_UNDONE 254

static volatile sig_atomic_t stopping;
/* When the previous answer went out, while the worker has looked for jobs without waiting since
 * (0 after a blocking read): the time between is what a job costs it in Redis commands. */
static uint64_t free_at;
static double overhead_avg; /* ms a job costs beside its search, a moving average. */
/* The entry of an analysis set aside for a move (analyse()): the move's search keeps it fresh
 * too; held_gone when its node deleted it meanwhile (the analysis is no longer wanted). */
static char held[48];
static bool held_gone;

static void on_signal(int sig) {
  (void)sig;
  stopping = 1;
}

typedef struct options {
  char host[256];
  int port, db;
  const char *data;
  char name[64];
  bool lanes[SRV_SEARCH_STREAMS]; /* The streams it serves (--lanes; default all). */
  int nice;                       /* Nice steps its priority is lowered by (--nice). */
} options;

static void usage(FILE *out) {
  fprintf(out,
          "usage: mancala-worker [redis://HOST[:PORT][/DB]] [--data DIR] [--name NAME] [--lanes L] "
          "[--nice N] [--log-level L]\n"
          "  the URL defaults to MANCALA_SEARCH_QUEUE, --data to MANCALA_DATA\n"
          "  runs the computer's searches of the servers started with --search-queue at the same "
          "Redis\n"
          "  --data DIR       endgame tables (`mancala egtb build --dir DIR`), when present\n"
          "  --name NAME      this worker's name in the group (default HOST-PID), unique\n"
          "  --lanes LIST     the streams it serves, of fast,deep,analysis (default all)\n"
          "  --nice N         lowers its CPU priority by N nice steps, 0-19 (default 10; 0 keeps\n"
          "                   it): a game server on the same machine takes the cores first\n"
          "  --log-level L    error, warn, info (default) or debug (a line per job)\n");
}

/* redis://HOST[:PORT][/DB] (an IPv6 HOST in brackets). Returns 0 or -1. */
static int parse_url(const char *url, options *o) {
  static const char scheme[] = "redis://";
  if (strncmp(url, scheme, sizeof scheme - 1) != 0)
    return -1;
  const char *p = url + sizeof scheme - 1, *h = p, *end;
  if (*p == '[') {
    h = ++p;
    if ((end = strchr(p, ']')) == NULL)
      return -1;
    p = end + 1;
  } else {
    end = p + strcspn(p, ":/@?#");
    p = end;
  }
  size_t n = (size_t)(end - h);
  if (n == 0 || n >= sizeof o->host || memchr(h, '@', n) != NULL || *p == '@')
    return -1;
  memcpy(o->host, h, n);
  o->host[n] = '\0';
  o->port = 6379;
  o->db = 0;
  char *e;
  if (*p == ':') {
    long v = strtol(p + 1, &e, 10);
    if (e == p + 1 || v < 1 || v > 65535)
      return -1;
    o->port = (int)v;
    p = e;
  }
  if (*p == '/' && p[1] != '\0') {
    long v = strtol(p + 1, &e, 10);
    if (e == p + 1 || v < 0 || v > 1000000)
      return -1;
    o->db = (int)v;
    p = e;
  } else if (*p == '/') {
    p++;
  }
  return *p == '\0' ? 0 : -1;
}

/* ---- Redis ----------------------------------------------------------------------------------- */

/* Runs a command; NULL (and the context is broken) on a lost connection. The caller frees the
 * reply. */
static redisReply *cmd(redisContext *c, int argc, const char **argv) {
  return redisCommandArgv(c, argc, argv, NULL);
}

static redisContext *connect_redis(const options *o) {
  struct timeval tv = {TIMEOUT_MS / 1000, (TIMEOUT_MS % 1000) * 1000};
  redisContext *c = redisConnectWithTimeout(o->host, o->port, tv);
  if (c == NULL || c->err) {
    srv_log_warn(LOG_MOD, "cannot reach Redis at %s:%d: %s", o->host, o->port,
                 c != NULL ? c->errstr : "out of memory");
    redisFree(c);
    return NULL;
  }
  redisSetTimeout(c, tv);
  bool ok = true;
  if (o->db != 0) {
    redisReply *r = redisCommand(c, "SELECT %d", o->db);
    ok = r != NULL && r->type != REDIS_REPLY_ERROR;
    freeReplyObject(r);
  }
  for (int i = 0; ok && i < SRV_SEARCH_STREAMS; i++) {
    redisReply *r = redisCommand(c, "XGROUP CREATE %s %s 0 MKSTREAM", srv_search_stream_key[i],
                                 SRV_SEARCH_GROUP);
    ok = r != NULL && (r->type != REDIS_REPLY_ERROR || strncmp(r->str, "BUSYGROUP", 9) == 0);
    if (r != NULL && !ok)
      srv_log_error(LOG_MOD, "cannot make the group of %s: %s", srv_search_stream_key[i], r->str);
    freeReplyObject(r);
  }
  if (!ok) {
    redisFree(c);
    return NULL;
  }
  srv_log_info(LOG_MOD, "%s: connected to Redis at %s:%d, waiting for jobs (%s%s%s)", o->name,
               o->host, o->port, o->lanes[0] ? "fast " : "", o->lanes[1] ? "deep " : "",
               o->lanes[2] ? "analysis" : "");
  return c;
}

static uint64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Says this worker is alive (srv_search_workers_key of the streams it serves), at most every
 * SRV_SEARCH_BEAT_MS / 2 unless now is true. Returns false when Redis was lost. */
static bool beat(redisContext *c, const options *o, bool now) {
  static uint64_t last;
  uint64_t t = mono_ms();
  if (!now && last != 0 && t - last < SRV_SEARCH_BEAT_MS / 2)
    return true;
  const char *argv[4 + SRV_SEARCH_STREAMS] = {"EVAL", SRV_SEARCH_BEAT_LUA};
  int argc = 3;
  for (int i = 0; i < SRV_SEARCH_STREAMS; i++)
    if (o->lanes[i])
      argv[argc++] = srv_search_workers_key[i];
  char nkeys[16];
  snprintf(nkeys, sizeof nkeys, "%d", argc - 3);
  argv[2] = nkeys;
  argv[argc++] = o->name;
  redisReply *r = cmd(c, argc, argv);
  if (r != NULL && r->type == REDIS_REPLY_ERROR)
    srv_log_error(LOG_MOD, "cannot say it is alive: %s", r->str);
  bool ok = r != NULL;
  freeReplyObject(r);
  if (ok)
    last = t;
  return ok;
}

/* ---- One job ------------------------------------------------------------------------------- */

/* The budget policy (srv_search_budget()) for job now, from its stream's length (XLEN less the
 * jobs workers hold) and the workers alive: *out set, or false when Redis was lost. Without the
 * policy's fields, the job's own budget. */
static bool budget_now(redisContext *c, srv_search_stream stream, const srv_search_wire_job *job,
                       long *out) {
  if (job->max_ms <= 0) {
    *out = job->ms;
    return true;
  }
  const char *key = srv_search_stream_key[stream];
  redisReply *len = redisCommand(c, "XLEN %s", key);
  redisReply *groups = len != NULL ? redisCommand(c, "XINFO GROUPS %s", key) : NULL;
  redisReply *alive = groups != NULL
                          ? redisCommand(c, "EVAL %s 1 %s %d", SRV_SEARCH_ALIVE_LUA,
                                         srv_search_workers_key[stream], SRV_SEARCH_LIVE_MS)
                          : NULL;
  bool ok = alive != NULL;
  long long waiting = len != NULL && len->type == REDIS_REPLY_INTEGER ? len->integer : 0;
  for (size_t i = 0; ok && groups->type == REDIS_REPLY_ARRAY && i < groups->elements; i++) {
    const redisReply *g = groups->element[i];
    bool ours = false;
    for (size_t k = 0; g->type == REDIS_REPLY_ARRAY && k + 1 < g->elements; k += 2) {
      const redisReply *f = g->element[k], *v = g->element[k + 1];
      if (f->type != REDIS_REPLY_STRING)
        continue;
      if (strcmp(f->str, "name") == 0)
        ours = v->type == REDIS_REPLY_STRING && strcmp(v->str, SRV_SEARCH_GROUP) == 0;
      else if (ours && strcmp(f->str, "pending") == 0 && v->type == REDIS_REPLY_INTEGER)
        waiting -= v->integer;
    }
  }
  int workers = ok && alive->type == REDIS_REPLY_INTEGER ? (int)alive->integer : 1;
  freeReplyObject(len);
  freeReplyObject(groups);
  freeReplyObject(alive);
  if (!ok)
    return false;
  if (waiting < 0)
    waiting = 0;
  *out = srv_search_budget(job->max_ms, waiting > INT32_MAX ? INT32_MAX : (int)waiting,
                           workers > 0 ? workers : 1, job->target_ms, job->floor_ms,
                           (long)overhead_avg);
  return true;
}

/* Keeps entry of stream fresh (XCLAIM JUSTID: its idle time starts again; the deliveries stay).
 * Returns 1, 0 when the entry is gone (its node deleted it), -1 when Redis was lost. */
static int keep_fresh(redisContext *c, const options *o, srv_search_stream stream,
                      const char *entry) {
  const char *argv[] = {
      "XCLAIM", srv_search_stream_key[stream], SRV_SEARCH_GROUP, o->name, "0", entry, "JUSTID"};
  redisReply *rep = cmd(c, 7, argv);
  int rc = rep == NULL ? -1 : rep->type == REDIS_REPLY_ARRAY && rep->elements > 0 ? 1 : 0;
  freeReplyObject(rep);
  return rc;
}

/* Waits up to ms for a search thread's done (under lock, signalled on cond), or less when a
 * signal asks to stop and the thread was not told yet (stop). Returns done. */
static bool wait_done(pthread_mutex_t *lock, pthread_cond_t *cond, const bool *done,
                      atomic_bool *stop, long ms) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_nsec += ms * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(lock);
  while (!*done && !(stopping && !atomic_load(stop))) {
    if (pthread_cond_timedwait(cond, lock, &until) == ETIMEDOUT)
      break;
  }
  bool was = *done;
  pthread_mutex_unlock(lock);
  return was;
}

typedef struct run {
  mc_search *search;
  const mc_game *game;
  int level;
  long ms;
  uint64_t seed;
  atomic_bool stop;
  mc_search_result res;
  int rc;
  bool done;
  pthread_mutex_t lock;
  pthread_cond_t cond;
} run;

static void *search_thread(void *arg) {
  run *r = arg;
  r->rc = mc_search_game(r->search, r->game, r->level, r->ms, r->seed, &r->stop, &r->res);
  pthread_mutex_lock(&r->lock);
  r->done = true;
  pthread_cond_signal(&r->cond);
  pthread_mutex_unlock(&r->lock);
  return NULL;
}

typedef enum outcome { RUN_DONE, RUN_CANCELLED, RUN_LOST } outcome;

/* Searches game for job on a thread of its own for *budget ms, keeping the job's entry fresh
 * every FRESH_MS and cutting *budget every CUT_MS to what the lane's length allows then (stopping
 * the search once past it). RUN_DONE with *res and *rc set; RUN_CANCELLED when the entry was
 * deleted (its node no longer wants it); RUN_LOST when Redis was lost meanwhile (the job stays
 * pending: another worker will take it). A signal stops the search early: RUN_DONE with what it
 * found. */
static outcome search(redisContext *c, mc_search *s, const options *o, srv_search_stream stream,
                      const char *entry, const srv_search_wire_job *job, const mc_game *game,
                      long *budget, mc_search_result *res, int *rc) {
  run r = {.search = s, .game = game, .level = job->level, .ms = *budget, .seed = job->seed};
  atomic_init(&r.stop, false);
  pthread_mutex_init(&r.lock, NULL);
  pthread_cond_init(&r.cond, NULL);
  /* The signals go to this thread (the search's blocks them), whose waits they end. */
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGINT);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  const uint64_t started = mono_ms();
  pthread_t t;
  int created = pthread_create(&t, NULL, search_thread, &r);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (created != 0)
    search_thread(&r); /* No thread: searched here, without freshness. */
  outcome out = RUN_DONE;
  const bool threaded = created == 0;
  uint64_t fresh_at = started;
  while (threaded) {
    if (wait_done(&r.lock, &r.cond, &r.done, &r.stop, CUT_MS))
      break;
    if (stopping) {
      atomic_store(&r.stop, true); /* Answered with the move found so far. */
      continue;
    }
    if (atomic_load(&r.stop))
      continue; /* Already stopping it. */
    uint64_t now = mono_ms();
    long cut;
    if (!budget_now(c, stream, job, &cut)) {
      out = RUN_LOST;
      atomic_store(&r.stop, true);
      continue;
    }
    if (cut < *budget) {
      *budget = cut;
      if (now - started >= (uint64_t)cut) {
        atomic_store(&r.stop, true); /* The lane grew: the move found so far. */
        continue;
      }
    }
    if (now - fresh_at < FRESH_MS)
      continue;
    fresh_at = now;
    const char *argv[] = {
        "XCLAIM", srv_search_stream_key[stream], SRV_SEARCH_GROUP, o->name, "0", entry, "JUSTID"};
    redisReply *rep = beat(c, o, true) ? cmd(c, 7, argv) : NULL;
    if (rep == NULL || rep->type != REDIS_REPLY_ARRAY || rep->elements == 0) {
      out = rep == NULL ? RUN_LOST : RUN_CANCELLED;
      atomic_store(&r.stop, true);
    }
    freeReplyObject(rep);
    if (held[0] != '\0' && out == RUN_DONE) {
      int f = keep_fresh(c, o, SRV_SEARCH_STREAM_ANALYSIS, held);
      if (f < 0) {
        out = RUN_LOST;
        atomic_store(&r.stop, true);
      }
      held_gone = held_gone || f == 0;
    }
  }
  if (threaded)
    pthread_join(t, NULL);
  pthread_mutex_destroy(&r.lock);
  pthread_cond_destroy(&r.cond);
  *res = r.res;
  *rc = r.rc;
  return out;
}

/* Publishes answer a on channel; false when Redis was lost. */
static bool answer(redisContext *c, const char *channel, const srv_search_wire_answer *a) {
  char *text = srv_search_wire_answer_encode(a);
  if (text == NULL) {
    srv_log_error(LOG_MOD, "out of memory: job %s not answered", a->id);
    return true;
  }
  const char *argv[] = {"PUBLISH", channel, text};
  redisReply *r = cmd(c, 3, argv);
  free(text);
  bool ok = r != NULL;
  freeReplyObject(r);
  return ok;
}

/* The job's entry acknowledged and deleted; false when Redis was lost. */
static bool finish(redisContext *c, srv_search_stream stream, const char *entry) {
  const char *ack[] = {"XACK", srv_search_stream_key[stream], SRV_SEARCH_GROUP, entry};
  const char *del[] = {"XDEL", srv_search_stream_key[stream], entry};
  redisReply *r = cmd(c, 4, ack);
  bool ok = r != NULL;
  freeReplyObject(r);
  if (ok) {
    r = cmd(c, 3, del);
    ok = r != NULL;
    freeReplyObject(r);
  }
  return ok;
}

/* How many times entry was delivered (XPENDING), 0 when unknown; -1 when Redis was lost. */
static int deliveries(redisContext *c, srv_search_stream stream, const char *entry) {
  const char *argv[] = {"XPENDING", srv_search_stream_key[stream], SRV_SEARCH_GROUP, entry, entry,
                        "1"};
  redisReply *r = cmd(c, 6, argv);
  if (r == NULL)
    return -1;
  int n = 0;
  if (r->type == REDIS_REPLY_ARRAY && r->elements == 1 &&
      r->element[0]->type == REDIS_REPLY_ARRAY && r->element[0]->elements == 4 &&
      r->element[0]->element[3]->type == REDIS_REPLY_INTEGER)
    n = (int)r->element[0]->element[3]->integer;
  freeReplyObject(r);
  return n;
}

static outcome analyse(redisContext *c, mc_search *s, const options *o, const char *entry,
                       const srv_search_wire_job *job, const mc_game *game, mc_ply_eval *plies,
                       int *rc);

/* Answers an analysis job (its entry, job and game decoded; a already says who and which try)
 * with its plies, or an error. Returns false when Redis was lost. */
static bool handle_analysis(redisContext *c, mc_search *s, const options *o, const char *entry,
                            const srv_search_wire_job *job, const mc_game *game,
                            srv_search_wire_answer *a) {
  size_t n = 0;
  mc_game_moves(game, &n);
  mc_ply_eval *plies = calloc(n ? n : 1, sizeof *plies);
  int rc = MC_ENOMEM;
  outcome out = plies != NULL ? analyse(c, s, o, entry, job, game, plies, &rc) : RUN_DONE;
  if (out != RUN_DONE) {
    free(plies);
    if (out == RUN_CANCELLED)
      srv_log_debug(LOG_MOD, "job %s was cancelled by its node: stopped", job->id);
    return out == RUN_CANCELLED;
  }
  if (rc == MC_ECANCELED && stopping)
    snprintf(a->error, sizeof a->error, "the worker stopped before the analysis' end");
  else if (rc != 0)
    snprintf(a->error, sizeof a->error, "the analysis failed: %s", mc_strerror(rc));
  else
    a->plies = plies, a->nplies = n;
  a->budget_ms = job->ms;
  if (a->error[0] != '\0')
    srv_log_warn(LOG_MOD, "job %s (%s): %s", job->id, job->game, a->error);
  else
    srv_log_debug(LOG_MOD, "answered job %s: %zu plies analysed", job->id, n);
  bool ok = answer(c, job->reply, a);
  a->plies = NULL;
  free(plies);
  free_at = 0; /* An analysis' time is not what a move job costs beside its search. */
  return ok && finish(c, SRV_SEARCH_STREAM_ANALYSIS, entry);
}

/* Handles one entry ([id, [field, value, ...]]) of stream, delivered for the first time or taken
 * over (then its deliveries are asked). Returns false when Redis was lost. */
static bool handle(redisContext *c, mc_search *s, const options *o, srv_search_stream stream,
                   const redisReply *e, bool reclaimed) {
  const uint64_t took_at = mono_ms();
  if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 || e->element[0]->type != REDIS_REPLY_STRING)
    return true;
  const char *entry = e->element[0]->str;
  const redisReply *fields = e->element[1];
  const char *text = NULL;
  size_t len = 0;
  for (size_t i = 0; fields->type == REDIS_REPLY_ARRAY && i + 1 < fields->elements; i += 2)
    if (fields->element[i]->type == REDIS_REPLY_STRING &&
        fields->element[i + 1]->type == REDIS_REPLY_STRING &&
        strcmp(fields->element[i]->str, "job") == 0) {
      text = fields->element[i + 1]->str;
      len = fields->element[i + 1]->len;
    }
  int tries = reclaimed ? deliveries(c, stream, entry) : 1;
  if (tries < 0)
    return false;
  srv_search_wire_job job;
  mc_game *game = NULL;
  int rc = text != NULL ? srv_search_wire_job_decode(text, len, &job, &game) : MC_ESYNTAX;
  srv_search_wire_answer a;
  memset(&a, 0, sizeof a);
  snprintf(a.worker, sizeof a.worker, "%s", o->name);
  a.tries = tries < 1 ? 1 : tries > SRV_SEARCH_MAX_TRIES + 1 ? SRV_SEARCH_MAX_TRIES + 1 : tries;
  if (rc == MC_ESYNTAX) {
    srv_log_warn(LOG_MOD, "%s %s: not a job: deleted", srv_search_stream_key[stream], entry);
    return finish(c, stream, entry);
  }
  snprintf(a.id, sizeof a.id, "%s", job.id);
  snprintf(a.game, sizeof a.game, "%s", job.game);
  a.ply = job.ply;
  a.hash = job.hash;
  if (rc != 0) {
    snprintf(a.error, sizeof a.error, "bad job: %s", mc_strerror(rc));
  } else if (tries > SRV_SEARCH_MAX_TRIES) {
    snprintf(a.error, sizeof a.error, "tried %d times: its workers stopped", tries - 1);
  }
  if (a.error[0] != '\0') {
    srv_log_warn(LOG_MOD, "job %s (%s, ply %" PRIu64 "): %s", job.id, job.game, job.ply, a.error);
    mc_game_free(game);
    return answer(c, job.reply, &a) && finish(c, stream, entry);
  }
  srv_log_debug(LOG_MOD,
                "took job %s (%s, ply %" PRIu64 ", level %d, %ld ms, %s, entry %s, try %d)", job.id,
                job.game, job.ply, job.level, job.ms, srv_search_stream_name[stream], entry, tries);
  if (stream == SRV_SEARCH_STREAM_ANALYSIS) {
    bool ok = handle_analysis(c, s, o, entry, &job, game, &a);
    mc_game_free(game);
    return ok;
  }
  long budget;
  if (!budget_now(c, stream, &job, &budget)) {
    mc_game_free(game);
    return false;
  }
  outcome out = search(c, s, o, stream, entry, &job, game, &budget, &a.res, &rc);
  mc_game_free(game);
  if (out == RUN_LOST)
    return false;
  if (out == RUN_CANCELLED) {
    srv_log_debug(LOG_MOD, "job %s was cancelled by its node: stopped", job.id);
    return true;
  }
  if (rc != 0)
    snprintf(a.error, sizeof a.error, "the search failed: %s", mc_strerror(rc));
  uint64_t now = mono_ms();
  long overhead =
      (long)(now - took_at) - a.res.time_ms + (free_at != 0 ? (long)(took_at - free_at) : 0);
  a.overhead_ms = overhead > 0 ? overhead : 0;
  a.budget_ms = budget;
  overhead_avg += ((double)a.overhead_ms - overhead_avg) / OVERHEAD_WEIGHT;
  srv_log_debug(LOG_MOD, "answered job %s: move %d, depth %d, %ld ms (and %ld ms beside)", job.id,
                a.res.move, a.res.depth, a.res.time_ms, a.overhead_ms);
  bool ok = answer(c, job.reply, &a);
  free_at = mono_ms();
  return ok && finish(c, stream, entry);
}

/* ---- The loop ------------------------------------------------------------------------------ */

/* The first entry of an XREADGROUP answer ([[key, [entry...]]...]) for stream i, or NULL. */
static const redisReply *entries_of(const redisReply *r, const char *key) {
  if (r == NULL || r->type != REDIS_REPLY_ARRAY)
    return NULL;
  for (size_t i = 0; i < r->elements; i++) {
    const redisReply *k = r->element[i];
    if (k->type == REDIS_REPLY_ARRAY && k->elements == 2 &&
        k->element[0]->type == REDIS_REPLY_STRING && strcmp(k->element[0]->str, key) == 0 &&
        k->element[1]->type == REDIS_REPLY_ARRAY)
      return k->element[1];
  }
  return NULL;
}

/* ---- Analyses, moves first ------------------------------------------------------------------ */

/* An analysis on its thread: plies[0..todo) still to value (those after were valued before it
 * was stopped for a move). */
typedef struct arun {
  mc_search *search;
  const mc_game *game;
  long ms;
  mc_ply_eval *plies;
  size_t todo;
  atomic_bool stop;
  int rc;
  bool done;
  pthread_mutex_t lock;
  pthread_cond_t cond;
} arun;

/* Values plies[0..todo) from the last (mc_analyse()). Stopped, it leaves todo at the lowest ply
 * valued plus one (that one's search may have been cut short: it is valued again). */
static void *analysis_thread(void *arg) {
  arun *r = arg;
  size_t n = 0;
  const uint8_t *moves = mc_game_moves(r->game, &n);
  for (size_t i = 0; i < r->todo; i++)
    r->plies[i].best = PLY_UNDONE;
  const mc_limits per_ply = {r->ms, 0, 0};
  int rc = mc_analyse(r->search, mc_game_rules(r->game), moves, r->todo, &per_ply, &r->stop,
                      r->plies, NULL);
  if (rc == 0) {
    r->todo = 0;
  } else {
    size_t lowest = r->todo;
    for (size_t i = r->todo; i-- > 0;)
      if (r->plies[i].best != PLY_UNDONE)
        lowest = i;
    if (lowest < r->todo)
      r->todo = lowest + 1;
  }
  pthread_mutex_lock(&r->lock);
  r->rc = rc;
  r->done = true;
  pthread_cond_signal(&r->cond);
  pthread_mutex_unlock(&r->lock);
  return NULL;
}

/* Whether an XREADGROUP reply holds an entry of stream. */
static bool has_entries(const redisReply *r, srv_search_stream stream) {
  const redisReply *es = entries_of(r, srv_search_stream_key[stream]);
  return es != NULL && es->elements > 0;
}

/* A read of the move streams this worker serves, without waiting: the reply (the caller frees
 * it; an empty one when none waits), or NULL when Redis was lost. */
static redisReply *read_moves(redisContext *c, const options *o) {
  const char *argv[7 + 2 * SRV_SEARCH_STREAMS] = {"XREADGROUP", "GROUP", SRV_SEARCH_GROUP, o->name,
                                                  "COUNT",      "1",     "STREAMS"};
  int argc = 7, n = 0;
  for (int i = 0; i < SRV_SEARCH_STREAM_ANALYSIS; i++)
    if (o->lanes[i])
      argv[argc + n++] = srv_search_stream_key[i];
  for (int i = 0; i < n; i++)
    argv[argc + n + i] = ">";
  return cmd(c, argc + 2 * n, argv);
}

/* Handles the move jobs of a read_moves() reply, the most urgent first. Returns false when Redis
 * was lost; *took says whether there was one. */
static bool handle_moves(redisContext *c, mc_search *s, const options *o, const redisReply *r,
                         bool *took) {
  bool ok = true;
  *took = false;
  for (int i = 0; ok && i < SRV_SEARCH_STREAM_ANALYSIS; i++) {
    const redisReply *es = entries_of(r, srv_search_stream_key[i]);
    if (es != NULL && es->elements > 0) {
      *took = true;
      ok = handle(c, s, o, (srv_search_stream)i, es->element[0], false);
    }
  }
  return ok;
}

/* Analyses game for job (entry its stream entry) into plies, each ply within job->ms, on a thread
 * of its own, keeping the entry fresh every FRESH_MS. Every LOOK_MS it reads the move streams it
 * serves; a move job there stops the analysis, is handled with every other waiting, and the
 * analysis goes on from the last ply it valued. RUN_DONE with *rc (0, or why not: MC_ECANCELED
 * when a signal stopped it); RUN_CANCELLED when its entry was deleted; RUN_LOST when Redis was
 * lost (the job stays pending: another worker will take it over). */
static outcome analyse(redisContext *c, mc_search *s, const options *o, const char *entry,
                       const srv_search_wire_job *job, const mc_game *game, mc_ply_eval *plies,
                       int *rc) {
  arun r = {.search = s, .game = game, .ms = job->ms, .plies = plies};
  mc_game_moves(game, &r.todo);
  pthread_mutex_init(&r.lock, NULL);
  pthread_cond_init(&r.cond, NULL);
  const bool moves = o->lanes[SRV_SEARCH_STREAM_FAST] || o->lanes[SRV_SEARCH_STREAM_DEEP];
  outcome out = RUN_DONE;
  uint64_t fresh_at = mono_ms();
  *rc = 0;
  for (;;) {
    atomic_init(&r.stop, false);
    r.done = false;
    free_at = 0; /* The analysis' time is not what the next move job costs beside its search. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    pthread_t t;
    int created = pthread_create(&t, NULL, analysis_thread, &r);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (created != 0)
      analysis_thread(&r);      /* No thread: analysed here, moves waiting. */
    redisReply *waiting = NULL; /* Move jobs read while it ran. */
    while (created == 0) {
      if (wait_done(&r.lock, &r.cond, &r.done, &r.stop, LOOK_MS))
        break;
      if (atomic_load(&r.stop))
        continue; /* Already stopping it. */
      if (stopping) {
        atomic_store(&r.stop, true);
        continue;
      }
      uint64_t now = mono_ms();
      if (now - fresh_at >= FRESH_MS) {
        fresh_at = now;
        int f = beat(c, o, true) ? keep_fresh(c, o, SRV_SEARCH_STREAM_ANALYSIS, entry) : -1;
        if (f <= 0) {
          out = f < 0 ? RUN_LOST : RUN_CANCELLED;
          atomic_store(&r.stop, true);
          continue;
        }
      }
      if (!moves)
        continue;
      if ((waiting = read_moves(c, o)) == NULL) {
        out = RUN_LOST;
        atomic_store(&r.stop, true);
      } else if (has_entries(waiting, SRV_SEARCH_STREAM_FAST) ||
                 has_entries(waiting, SRV_SEARCH_STREAM_DEEP)) {
        atomic_store(&r.stop, true); /* A move: it goes first. */
      } else {
        freeReplyObject(waiting);
        waiting = NULL;
      }
    }
    if (created == 0)
      pthread_join(t, NULL);
    *rc = r.rc;
    if (out != RUN_DONE || waiting == NULL) {
      freeReplyObject(waiting);
      break; /* Done, failed, stopped by a signal, cancelled or lost. */
    }
    /* Moves first: this one and every other waiting, the analysis' entry kept fresh by them. */
    snprintf(held, sizeof held, "%s", entry);
    held_gone = false;
    bool took = true, ok = true;
    /* Every move read is handled (a signal only makes its search short): a move left pending
     * here would wait for a take-over. */
    while (ok && took) {
      ok = handle_moves(c, s, o, waiting, &took);
      freeReplyObject(waiting);
      waiting = NULL;
      /* A move's search keeps it fresh only when it lasts a second: short ones one after the
       * other must not leave it idle long enough for another worker to take it over. */
      if (ok && mono_ms() - fresh_at >= FRESH_MS) {
        int f = keep_fresh(c, o, SRV_SEARCH_STREAM_ANALYSIS, entry);
        ok = f >= 0;
        held_gone = held_gone || f == 0;
        fresh_at = mono_ms();
      }
      if (ok && took && !stopping && (waiting = read_moves(c, o)) == NULL)
        ok = false;
      took = took && waiting != NULL;
    }
    freeReplyObject(waiting);
    held[0] = '\0';
    int f = ok ? keep_fresh(c, o, SRV_SEARCH_STREAM_ANALYSIS, entry) : -1;
    fresh_at = mono_ms();
    if (f <= 0 || held_gone) {
      out = f < 0 ? RUN_LOST : RUN_CANCELLED;
      break;
    }
    if (r.todo == 0 || stopping) {
      *rc = r.todo == 0 ? 0 : MC_ECANCELED;
      break;
    }
    srv_log_debug(LOG_MOD, "job %s: the analysis goes on from ply %zu", job->id, r.todo);
  }
  pthread_mutex_destroy(&r.lock);
  pthread_cond_destroy(&r.cond);
  return out;
}

/* One step: a job taken over, else a new one, most urgent stream first; else a blocking read of
 * them all. Returns false when Redis was lost. */
static bool step(redisContext *c, mc_search *s, const options *o) {
  if (!beat(c, o, false))
    return false;
  for (int i = 0; i < SRV_SEARCH_STREAMS; i++) {
    if (!o->lanes[i])
      continue;
    char idle[16];
    snprintf(idle, sizeof idle, "%d",
             i == SRV_SEARCH_STREAM_ANALYSIS ? SRV_SEARCH_RECLAIM_ANALYSIS_MS
                                             : SRV_SEARCH_RECLAIM_MS);
    const char *argv[] = {
        "XAUTOCLAIM", srv_search_stream_key[i], SRV_SEARCH_GROUP, o->name, idle, "0-0", "COUNT",
        "1"};
    redisReply *r = cmd(c, 8, argv);
    if (r == NULL)
      return false;
    bool ok = true, took = false;
    if (r->type == REDIS_REPLY_ARRAY && r->elements >= 2 &&
        r->element[1]->type == REDIS_REPLY_ARRAY && r->element[1]->elements > 0) {
      took = true;
      ok = handle(c, s, o, (srv_search_stream)i, r->element[1]->element[0], true);
    }
    freeReplyObject(r);
    if (took || !ok)
      return ok;
  }
  for (int i = 0; i < SRV_SEARCH_STREAMS; i++) {
    if (!o->lanes[i])
      continue;
    const char *argv[] = {"XREADGROUP", "GROUP",   SRV_SEARCH_GROUP,         o->name, "COUNT",
                          "1",          "STREAMS", srv_search_stream_key[i], ">"};
    redisReply *r = cmd(c, 9, argv);
    if (r == NULL)
      return false;
    const redisReply *es = entries_of(r, srv_search_stream_key[i]);
    bool ok = true, took = es != NULL && es->elements > 0;
    if (took)
      ok = handle(c, s, o, (srv_search_stream)i, es->element[0], false);
    freeReplyObject(r);
    if (took || !ok)
      return ok;
  }
  if (stopping)
    return true;
  free_at = 0; /* What comes now waits for a job: not a job's cost. */
  char block[16];
  snprintf(block, sizeof block, "%d", BLOCK_MS);
  const char *argv[9 + 2 * SRV_SEARCH_STREAMS] = {
      "XREADGROUP", "GROUP", SRV_SEARCH_GROUP, o->name, "COUNT", "1", "BLOCK", block, "STREAMS"};
  int argc = 9, n = 0;
  for (int i = 0; i < SRV_SEARCH_STREAMS; i++)
    if (o->lanes[i])
      argv[argc + n++] = srv_search_stream_key[i];
  for (int i = 0; i < n; i++)
    argv[argc + n + i] = ">";
  argc += 2 * n;
  redisReply *r = cmd(c, argc, argv);
  if (r == NULL)
    return false;
  bool ok = true;
  /* Rarely more than one stream's: each is handled, the most urgent first. */
  for (int i = 0; ok && i < SRV_SEARCH_STREAMS; i++) {
    const redisReply *es = entries_of(r, srv_search_stream_key[i]);
    if (es != NULL && es->elements > 0)
      ok = handle(c, s, o, (srv_search_stream)i, es->element[0], false);
  }
  freeReplyObject(r);
  return ok;
}

/* Leaves the group on a clean stop (nothing of ours is pending then). */
static void leave(redisContext *c, const options *o) {
  for (int i = 0; i < SRV_SEARCH_STREAMS; i++) {
    redisReply *z = redisCommand(c, "ZREM %s %s", srv_search_workers_key[i], o->name);
    freeReplyObject(z);
    redisReply *r = redisCommand(c, "XGROUP DELCONSUMER %s %s %s", srv_search_stream_key[i],
                                 SRV_SEARCH_GROUP, o->name);
    freeReplyObject(r);
  }
}

static void pause_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL); /* A signal ends it early. */
}

/* "fast,deep,analysis" (any of them, in any order) into o->lanes. Returns 0 or -1. */
static int parse_lanes(const char *text, options *o) {
  bool any = false;
  memset(o->lanes, 0, sizeof o->lanes);
  while (*text != '\0') {
    size_t n = strcspn(text, ",");
    int found = -1;
    for (int i = 0; i < SRV_SEARCH_STREAMS; i++)
      if (strlen(srv_search_stream_name[i]) == n &&
          strncmp(text, srv_search_stream_name[i], n) == 0)
        found = i;
    if (found < 0)
      return -1;
    o->lanes[found] = any = true;
    text += n + (text[n] == ',');
  }
  return any ? 0 : -1;
}

static int parse_args(int argc, char **argv, options *o) {
  const char *url = NULL;
  for (int i = 0; i < SRV_SEARCH_STREAMS; i++)
    o->lanes[i] = true;
  o->nice = NICE_DEFAULT;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      exit(0);
    }
    if (strcmp(a, "--data") == 0 && i + 1 < argc) {
      o->data = argv[++i];
    } else if (strcmp(a, "--name") == 0 && i + 1 < argc) {
      const char *n = argv[++i];
      if (n[0] == '\0' || strlen(n) >= sizeof o->name)
        return -1;
      snprintf(o->name, sizeof o->name, "%s", n);
    } else if (strcmp(a, "--lanes") == 0 && i + 1 < argc) {
      if (parse_lanes(argv[++i], o) != 0)
        return -1;
    } else if (strcmp(a, "--nice") == 0 && i + 1 < argc) {
      if (srv_prio_parse(argv[++i], &o->nice) != 0)
        return -1;
    } else if (strcmp(a, "--log-level") == 0 && i + 1 < argc) {
      srv_log_level level;
      if (srv_log_level_parse(argv[++i], &level) != 0)
        return -1;
      srv_log_set_level(level);
    } else if (a[0] != '-' && url == NULL) {
      url = a;
    } else {
      return -1;
    }
  }
  if (url == NULL)
    url = getenv("MANCALA_SEARCH_QUEUE"); /* The server's variable: one file for both. */
  if (url == NULL || parse_url(url, o) != 0)
    return -1;
  if (o->name[0] == '\0') {
    char host[40] = "worker";
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    snprintf(o->name, sizeof o->name, "%s-%ld", host, (long)getpid());
  }
  return 0;
}

int main(int argc, char **argv) {
  options o = {0};
  if (getenv("MANCALA_DATA") != NULL)
    o.data = getenv("MANCALA_DATA");
  if (parse_args(argc, argv, &o) != 0) {
    usage(stderr);
    return 2;
  }
  /* Before any thread starts: the search threads inherit it (Linux keeps it per thread). */
  int nice_now;
  int prc = srv_prio_lower(o.nice, &nice_now);
  if (prc != 0) {
    srv_log_error(LOG_MOD, "cannot lower its CPU priority by %d (%s): --nice 0 runs it as it is",
                  o.nice, strerror(-prc));
    srv_log_flush();
    return 1;
  }
  srv_log_info(LOG_MOD, "%s: CPU priority nice %d (--nice %d)", o.name, nice_now, o.nice);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal; /* No SA_RESTART: a blocking read ends at once. */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);

  mc_egtb *tables = mc_egtb_new();
  mc_search *s = NULL;
  if (tables != NULL) {
    if (o.data != NULL) {
      mc_egtb_options eo = {.dir = o.data};
      int rc = mc_egtb_load_defaults(tables, &eo);
      srv_log_info(LOG_MOD, "endgame tables: %d loaded from %s%s%s", mc_egtb_count(tables), o.data,
                   rc != 0 ? " " : "", rc != 0 ? mc_strerror(rc) : "");
    } else {
      srv_log_info(LOG_MOD, "endgame tables: none (no --data)");
    }
    mc_search_config sc = {.tt_bytes = TT_BYTES, .egtb = tables};
    s = mc_search_new(&sc);
  }
  if (s == NULL) {
    srv_log_error(LOG_MOD, "out of memory");
    mc_egtb_free(tables);
    return 1;
  }
  redisContext *c = NULL;
  while (!stopping) {
    if (c == NULL && (c = connect_redis(&o)) == NULL) {
      pause_ms(1000);
      continue;
    }
    if (!step(c, s, &o)) {
      if (stopping && c->err == REDIS_ERR_IO && errno == EINTR)
        break; /* A signal ended a blocking read: nothing was taken. */
      srv_log_warn(LOG_MOD, "lost Redis (%s): connecting again", c->errstr);
      redisFree(c);
      c = NULL;
    }
  }
  if (c != NULL && !c->err)
    leave(c, &o);
  else if (c != NULL) {
    redisFree(c);
    c = connect_redis(&o); /* A signal broke the connection: leave the group on a new one. */
    if (c != NULL)
      leave(c, &o);
  }
  redisFree(c);
  srv_log_info(LOG_MOD, "%s: stopped", o.name);
  srv_log_flush();
  mc_search_free(s);
  mc_egtb_free(tables);
  return 0;
}
