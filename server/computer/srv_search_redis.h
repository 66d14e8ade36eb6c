/* The search queue over Redis Streams (srv_search_queue.h): a job is an entry of its lane's
 * stream (srv_search_wire.h), run by one of any number of `mancala-worker` processes on any
 * machines (server/worker/), answered on this node's reply channel (pub/sub) and applied on the
 * loop thread. docs/computer.md, "Search workers", says how it behaves; in short:
 *
 *   - fixed-depth moves (levels 1-4, mc_level.h) stay in `fallback`: they take less than the way
 *     through Redis; levels 5-6, hints and analyses go to the workers (an analysis' answer is its
 *     plies, taken only when there is one a move of the game, each the move played);
 *   - an answer is taken only for a job still wanted whose game, ply and position hash are the
 *     job's; anything else (a cancelled job, a stale or forged position) is ignored and counted;
 *   - cancel() forgets the job at once (its answer will be ignored) and deletes its entry (XDEL):
 *     a waiting job is never run, a running one is stopped by its worker's next look at it;
 *   - the budget policy (srv_search_budget()) travels with the job: its worker applies it when
 *     the search starts and while it runs, from the stream's length then; the node sets a first
 *     budget at submit (the lengths it polls each second, plus its jobs sent since), which a
 *     worker without the policy keeps;
 *   - the in-process queue `fallback` runs a job when no worker was seen alive in the last poll
 *     or Redis is down (at submit), and a shallow search (at most FALLBACK_MS) when a worker
 *     answered an error (its tries used up, a bad job), when the connection to Redis was lost
 *     (answers may be lost with it), and when no answer came within the job's patience,
 *     SRV_SEARCH_MAX_TRIES * (the most it may take + SRV_SEARCH_RECLAIM_MS + 1 s): no game waits
 *     forever (an analysis: SRV_SEARCH_MAX_TRIES * (its plies * each ply's time +
 *     SRV_SEARCH_RECLAIM_ANALYSIS_MS + 1 s)).
 * Everything is called on the loop thread. */
#ifndef SRV_SEARCH_REDIS_H
#define SRV_SEARCH_REDIS_H

#include <uv.h>

#include "srv_search_queue.h"
#include "srv_time.h"

typedef struct srv_search_redis_config {
  const char *url;                  /* redis://HOST:PORT[/DB] (copied). */
  long target_ms[SRV_SEARCH_LANES]; /* The reply time a lane aims at under load. */
  long floor_ms[SRV_SEARCH_LANES];  /* The least time a search of the lane is given. */
  srv_search_queue *fallback;       /* The in-process queue (borrowed; outlives this one). */
} srv_search_redis_config;

/* Makes the queue on loop and time (borrowed). Returns 0 with *out set, SRV_EBADREQ for a bad
 * URL, SRV_ENOMEM. It connects in the background; until a worker is seen, jobs run in
 * fallback. */
int srv_search_redis_new(uv_loop_t *loop, srv_time *time, const srv_search_redis_config *cfg,
                         srv_search_queue **out);

/* What the queue saw (for logs, metrics and tests). */
typedef struct srv_search_redis_stats {
  int workers;          /* Workers of the deep lane seen alive in the last poll. */
  int fast_workers;     /* Of the fast lane. */
  int analysis_workers; /* Of the analysis lane. */
  uint64_t sent;        /* Jobs added to a stream. */
  uint64_t answered;    /* Answers taken from workers. */
  uint64_t ignored;     /* Answers ignored: no longer wanted, or not of the job's position. */
  uint64_t fallbacks;   /* Jobs run in fallback after they were sent (error, lost, late). */
  uint64_t local;       /* Jobs run in fallback at once (no worker, Redis down). */
} srv_search_redis_stats;

void srv_search_redis_stats_get(const srv_search_queue *q, srv_search_redis_stats *out);

/* Stops its timer and closes its Redis connections: call on the loop thread while the loop runs,
 * once nothing will be submitted any more (the rooms are gone). */
void srv_search_redis_close(srv_search_queue *q);

/* Frees it, after uv_run() returned. NULL is allowed. */
void srv_search_redis_free(srv_search_queue *q);

#endif
