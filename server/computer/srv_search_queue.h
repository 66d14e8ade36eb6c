/* The seam for search jobs (a computer's move now; hints and analysis later): a queue that takes
 * a search, runs it somewhere, and answers on the loop thread. The server's implementation is the
 * in-process thread pool (srv_search_pool.h); a queue over Redis Streams with workers on other
 * machines can implement the same table (a job is data: the game's rules and moves, a level, a
 * time, a seed; the answer is a move).
 *
 * Lanes: a queue keeps its fast lane (shallow levels, answered in milliseconds) apart from its
 * deep lane (levels 5-6), so that a shallow search never waits behind a deep one.
 *
 * Budgets: a queue cuts a deep search's time when its lane is long, when the search starts and
 * again while it runs (srv_search_budget()): under load the computer plays faster before anyone
 * waits longer. A search stopped early still answers with a legal move (mc_search.h).
 *
 * Analysis: a finished game analysed ply by ply (mc_analysis.h) is a job of its own lane
 * (SRV_SEARCH_ANALYSIS), whose budget is per ply and never cut. Moves are never behind an analysis:
 * an implementation runs analyses only on CPUs the move lanes leave free, and stops one as soon as
 * a move needs its CPU, to resume it later from the ply where it stopped.
 *
 * Everything here is called on the loop thread. A job's done function is called exactly once, on
 * the loop thread, unless the job was cancelled first: after cancel() it is never called.
 */
#ifndef SRV_SEARCH_QUEUE_H
#define SRV_SEARCH_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mc_analysis.h"
#include "mc_game.h"
#include "mc_search.h"

typedef enum srv_search_lane {
  SRV_SEARCH_FAST = 0,     /* Fixed shallow depth (levels 3-4): never behind a deep search. */
  SRV_SEARCH_DEEP = 1,     /* Levels 5-6: the budget shrinks when the lane is long. */
  SRV_SEARCH_ANALYSIS = 2, /* Whole games analysed (every ply of the game's moves, each within
                            * ms: mc_analyse()), only on CPUs the lanes above leave free. */
  SRV_SEARCH_LANES
} srv_search_lane;

/* A search to run. */
typedef struct srv_search_req {
  const mc_game *game; /* Borrowed for the call: the queue copies what it needs. */
  int level;           /* 1..6 (mc_level.h). */
  long ms;             /* The most it may take (level 6's time, a clock's share); the queue may cut
                        * it under load, never raise it. */
  uint64_t seed;
  srv_search_lane lane;
  const char *label; /* The game's name for logs and a job's checks (its room's code; borrowed for
                      * the call); NULL: none. */
} srv_search_req;

/* What a search answered (borrowed for the done call). */
typedef struct srv_search_answer {
  int rc;               /* 0, or an MC_E* / SRV_E* code (then res is unset). */
  mc_search_result res; /* res.move is the move. */
  long budget_ms;       /* The time it was given in the end (after any cut). */
  bool cut;             /* The queue cut its budget below req.ms. */
  /* An analysis (lane SRV_SEARCH_ANALYSIS) with rc 0: one entry per move of the game, in ply order
   * (res is then unset). */
  const mc_ply_eval *plies;
  size_t nplies;
} srv_search_answer;

typedef void (*srv_search_done_fn)(void *arg, const srv_search_answer *answer);

/* The implementation's handle of a queued job: valid from submit until its done call or cancel. */
typedef struct srv_search_job srv_search_job;

typedef struct srv_search_stats {
  int running[SRV_SEARCH_LANES];         /* Searches under way. */
  int waiting[SRV_SEARCH_LANES];         /* Searches waiting for a worker. */
  int workers[SRV_SEARCH_LANES];         /* Searches a lane runs at once. */
  long last_budget_ms[SRV_SEARCH_LANES]; /* The budget of the lane's last started search. */
  uint64_t done;                         /* Answers given. */
  uint64_t cut;                          /* Of those, searches whose budget was cut. */
} srv_search_stats;

typedef struct srv_search_queue {
  /* Queues req; done(arg, answer) follows on the loop thread. Returns 0 with *job set, or a
   * negative SRV_E* code (nothing queued, done is never called). */
  int (*submit)(struct srv_search_queue *q, const srv_search_req *req, srv_search_done_fn done,
                void *arg, srv_search_job **job);
  /* The job's answer is no longer wanted: a waiting job goes, a running one is stopped and its
   * answer dropped. done is never called for it; the handle is invalid after the call. */
  void (*cancel)(struct srv_search_queue *q, srv_search_job *job);
  void (*stats)(const struct srv_search_queue *q, srv_search_stats *out);
  void *data;
} srv_search_queue;

/* The budget policy every implementation applies: a search of a lane with `workers` searches at
 * once, `waiting` more behind it, should answer within about target_ms of being queued, so each
 * of the jobs ahead and the search itself get target_ms * workers / (waiting + workers), less
 * overhead_ms (what a job costs beside its search: the hand-over to a worker and back, as the
 * queue measures it), never more than ms nor less than floor_ms (the least time a search is
 * worth). With nobody waiting it gets ms, whatever target_ms (--computer-ms above
 * --computer-reply-ms): the queues cut a running search when jobs queue up behind it. */
long srv_search_budget(long ms, int waiting, int workers, long target_ms, long floor_ms,
                       long overhead_ms);

#endif
