/* The in-process search queue (srv_search_queue.h): each lane runs at most its number of searches
 * at once on worker threads (srv_work.h: libuv's pool in the server, a worker the test drives in
 * the unit tests), the others wait in order. One search context (and transposition table) per
 * worker slot; the endgame tables are loaded once and shared read-only.
 *
 * Analyses (lane SRV_SEARCH_ANALYSIS) run on CPUs the move lanes leave free (cfg->cpus): a move
 * search queued while every CPU is busy stops a running analysis, which waits at the head of its
 * lane and goes on from the last ply it valued once a CPU is free again.
 *
 * A search's budget is set when it starts, from its lane's length then (srv_search_budget()), and
 * cut again while it runs when more jobs queue up behind it: a timer (srv_time.h) raises its stop
 * flag at the new deadline, and the move it found so far is the answer.
 */
#ifndef SRV_SEARCH_POOL_H
#define SRV_SEARCH_POOL_H

#include "mc_egtb.h"
#include "srv_search_queue.h"
#include "srv_time.h"
#include "srv_work.h"

typedef struct srv_search_pool_config {
  int workers[SRV_SEARCH_LANES];    /* Searches at once per lane (at least 1). */
  long target_ms[SRV_SEARCH_LANES]; /* The reply time a lane aims at under load. */
  long floor_ms[SRV_SEARCH_LANES];  /* The least time a search of the lane is given. */
  mc_egtb *egtb; /* The endgame tables (the pool owns them from srv_search_pool_new() on, also
                  * when it fails); NULL: none. */
  int cpus;      /* Searches the machine runs at once (0: its CPUs): an analysis runs only while the
                  * move searches running and waiting leave one of them free, and stops when they
                  * need it. */
} srv_search_pool_config;

/* Returns a new pool queueing its searches on work and its timers on time (both borrowed; they
 * must outlive it), or NULL when memory runs out. Its searches use cfg->egtb (srv_egtb.h loads
 * them). */
srv_search_queue *srv_search_pool_new(srv_work *work, srv_time *time,
                                      const srv_search_pool_config *cfg);

/* Gives the pool's searches new endgame tables (owned by the pool from then on; a build that has
 * finished, srv_egtb.h). A worker's context switches when its search is over; the old set is freed
 * once no search uses it. Returns 0, or SRV_EINTERNAL when an earlier switch is not over yet (tb
 * is then freed). */
int srv_search_pool_set_egtb(srv_search_queue *q, mc_egtb *tb);

/* Frees the pool's timers: call on the loop thread while the loop still runs, once nothing will
 * be submitted any more (the rooms are gone). Searches in flight finish and are freed by their
 * done calls; no budget is cut after this. */
void srv_search_pool_close(srv_search_queue *q);

/* Frees the pool. Every job must be over (after uv_run() returned). NULL is allowed. */
void srv_search_pool_free(srv_search_queue *q);

#endif
