/* The in-process search queue on worker threads (see srv_search_pool.h). */
#include "srv_search_pool.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "mc_egtb.h"
#include "mc_error.h"
#include "srv_error.h"
#include "srv_list.h"
#include "srv_log.h"

/* The moving average of the overhead: each job weighs 1/OVERHEAD_WEIGHT. */
#define OVERHEAD_WEIGHT 8

/* Transposition table of each slot's search context, by lane. */
static const size_t TT_BYTES[SRV_SEARCH_LANES] = {1u << 20, 16u << 20, 16u << 20};

/* Marks a ply an analysis has not valued yet (no house is numbered so). */
#define PLY_UNDONE 254

typedef struct pool pool;
typedef struct slot slot;

struct srv_search_job {
  pool *owner;
  srv_search_lane lane;
  mc_game *game; /* The copy the worker searches (owned). */
  int level;
  long ms; /* As asked. */
  uint64_t seed;
  srv_search_done_fn done;
  void *arg;
  slot *slot;       /* While running. */
  bool cancelled;   /* Loop side: the answer is dropped. */
  atomic_bool stop; /* Raised to end the search early (a cancel or a cut). */
  uint64_t started; /* Loop time it started. */
  long budget;      /* Its time now (cut at most; the loop's: hurry() may lower it). */
  long run_ms;      /* The budget it was started with: the worker's own copy, never written
                     * again (a cut reaches the worker through stop and the slot's timer). */
  srv_search_answer answer;
  srv_list link; /* Its lane's waiting list. */
  /* An analysis (lane SRV_SEARCH_ANALYSIS): plies[0..nplies) for the game's moves, the first
   * todo of them still to value (the ones after were valued before it was stopped). */
  mc_ply_eval *plies;
  size_t nplies, todo;
  bool yielded; /* Loop side: stopped for a move, to go on later. */
};

struct slot {
  pool *owner;
  mc_search *search;
  srv_search_job *job; /* Running here, or NULL. */
  srv_timer *timer;    /* Raises the job's stop flag at a cut deadline. */
  const mc_egtb *egtb; /* The tables its context uses. */
};

typedef struct lane {
  srv_list waiting;
  int nwaiting, nrunning;
  slot *slots;
  int nslots;
  long target, floor, last_budget;
  double overhead; /* What a search costs beside its own time, in ms: a moving average. */
} lane;

struct pool {
  srv_search_queue q; /* First: a srv_search_queue * is a pool *. */
  srv_work *work;
  srv_time *time;
  mc_egtb *egtb;    /* The tables new searches use. */
  mc_egtb *retired; /* Tables a running search may still use (srv_search_pool_set_egtb()). */
  int cpus;         /* Searches the machine runs at once: analyses only use what moves leave. */
  lane lanes[SRV_SEARCH_LANES];
  uint64_t done, cut;
};

static void job_free(srv_search_job *j) {
  mc_game_free(j->game);
  free(j->plies);
  free(j);
}

static uint64_t now_ms(pool *p) {
  return p->time->now(p->time);
}

/* ---- The worker thread: the job's copy, the slot's context, nothing else -------------------- */

/* The plies still to value, j->plies[0..todo): from the end, so that proofs near it help the
 * plies before (mc_analyse()). Stopped, it leaves todo at the lowest ply valued plus one (that
 * one's search may have been cut short: it is valued again). */
static void work_analysis(srv_search_job *j) {
  size_t n = 0;
  const uint8_t *moves = mc_game_moves(j->game, &n);
  for (size_t i = 0; i < j->todo; i++)
    j->plies[i].best = PLY_UNDONE;
  const mc_limits per_ply = {j->run_ms, 0, 0};
  j->answer.rc = mc_analyse(j->slot->search, mc_game_rules(j->game), moves, j->todo, &per_ply,
                            &j->stop, j->plies, NULL);
  if (j->answer.rc == 0) {
    j->todo = 0;
    return;
  }
  size_t lowest = j->todo;
  for (size_t i = j->todo; i-- > 0;)
    if (j->plies[i].best != PLY_UNDONE)
      lowest = i;
  if (lowest < j->todo)
    j->todo = lowest + 1;
}

static void work(void *arg) {
  srv_search_job *j = arg;
  if (j->lane == SRV_SEARCH_ANALYSIS)
    work_analysis(j);
  else
    j->answer.rc = mc_search_game(j->slot->search, j->game, j->level, j->run_ms, j->seed, &j->stop,
                                  &j->answer.res);
}

/* ---- The loop thread ----------------------------------------------------------------------- */

static void pump(pool *p, srv_search_lane which);

/* Move searches running or waiting. */
static int moves_busy(const pool *p) {
  return p->lanes[SRV_SEARCH_FAST].nrunning + p->lanes[SRV_SEARCH_FAST].nwaiting +
         p->lanes[SRV_SEARCH_DEEP].nrunning + p->lanes[SRV_SEARCH_DEEP].nwaiting;
}

/* Stops running analyses while moves need their CPUs (each goes on later from where it was). */
static void yield_to_moves(pool *p) {
  lane *l = &p->lanes[SRV_SEARCH_ANALYSIS];
  int over = moves_busy(p) + l->nrunning - p->cpus;
  for (int i = 0; i < l->nslots && over > 0; i++) {
    srv_search_job *j = l->slots[i].job;
    if (j == NULL || j->cancelled || j->yielded)
      continue;
    j->yielded = true;
    atomic_store(&j->stop, true);
    over--;
  }
}

/* Switches an idle slot to the pool's current tables, and frees the retired set once no slot uses
 * it. */
static void switch_tables(pool *p, slot *s) {
  if (s->job == NULL && s->egtb != p->egtb) {
    mc_search_set_egtb(s->search, p->egtb);
    s->egtb = p->egtb;
  }
  if (p->retired == NULL)
    return;
  for (int i = 0; i < SRV_SEARCH_LANES; i++)
    for (int k = 0; k < p->lanes[i].nslots; k++)
      if (p->lanes[i].slots[k].egtb == p->retired)
        return;
  mc_egtb_free(p->retired);
  p->retired = NULL;
}

int srv_search_pool_set_egtb(srv_search_queue *q, mc_egtb *tb) {
  pool *p = (pool *)q;
  if (p->retired != NULL) {
    mc_egtb_free(tb);
    return SRV_EINTERNAL;
  }
  p->retired = p->egtb;
  p->egtb = tb;
  for (int i = 0; i < SRV_SEARCH_LANES; i++)
    for (int k = 0; k < p->lanes[i].nslots; k++)
      switch_tables(p, &p->lanes[i].slots[k]);
  int slots = 0;
  for (int i = 0; i < SRV_SEARCH_LANES; i++)
    slots += p->lanes[i].nslots;
  if (p->retired != NULL && slots == 0) {
    mc_egtb_free(p->retired);
    p->retired = NULL;
  }
  return 0;
}

static void after(void *arg, bool cancelled) {
  srv_search_job *j = arg;
  pool *p = j->owner;
  const srv_search_lane which = j->lane;
  lane *l = &p->lanes[which];
  slot *s = j->slot;
  s->job = NULL;
  switch_tables(p, s);
  if (s->timer != NULL)
    p->time->timer_stop(s->timer);
  l->nrunning--;
  if (j->lane == SRV_SEARCH_ANALYSIS && !j->cancelled && !cancelled && j->yielded &&
      j->answer.rc == MC_ECANCELED && j->todo > 0) {
    /* Stopped for a move: it waits at the head of its lane to go on. */
    j->yielded = false;
    j->slot = NULL;
    j->answer.rc = 0;
    atomic_store(&j->stop, false);
    srv_list_push_front(&l->waiting, &j->link);
    l->nwaiting++;
    return;
  }
  if (!j->cancelled && !cancelled && j->answer.rc == 0 && j->lane != SRV_SEARCH_ANALYSIS) {
    /* The hand-over to the worker and back, the loop's delays included: each job of a long lane
     * costs it, so the budget leaves room for it. */
    double o = (double)(now_ms(p) - j->started) - (double)j->answer.res.time_ms;
    l->overhead += ((o > 0 ? o : 0) - l->overhead) / OVERHEAD_WEIGHT;
  }
  if (!j->cancelled) {
    if (cancelled)
      j->answer.rc = SRV_EINTERNAL;
    j->answer.budget_ms = j->budget;
    j->answer.cut = j->budget < j->ms;
    if (j->lane == SRV_SEARCH_ANALYSIS && j->answer.rc == 0) {
      j->answer.plies = j->plies;
      j->answer.nplies = j->nplies;
    }
    p->done++;
    p->cut += j->answer.cut;
    j->done(j->arg, &j->answer); /* May submit: the free slot is taken by pump() there. */
  }
  job_free(j);
  pump(p, which);
  if (which != SRV_SEARCH_ANALYSIS)
    pump(p, SRV_SEARCH_ANALYSIS); /* A CPU a move left. */
}

static void pump(pool *p, srv_search_lane which) {
  lane *l = &p->lanes[which];
  for (int i = 0; i < l->nslots && !srv_list_empty(&l->waiting); i++) {
    slot *s = &l->slots[i];
    if (s->job != NULL)
      continue;
    if (which == SRV_SEARCH_ANALYSIS && moves_busy(p) + l->nrunning >= p->cpus)
      return; /* No CPU free of moves. */
    srv_search_job *j = srv_list_entry(srv_list_first(&l->waiting), srv_search_job, link);
    srv_list_remove(&j->link);
    l->nwaiting--;
    j->budget = which == SRV_SEARCH_ANALYSIS
                    ? j->ms /* per ply, never cut */
                    : srv_search_budget(j->ms, l->nwaiting, l->nslots, l->target, l->floor,
                                        (long)l->overhead);
    j->run_ms = j->budget;
    j->started = now_ms(p);
    j->slot = s;
    s->job = j;
    l->nrunning++;
    int rc = p->work->queue(p->work, work, after, j);
    if (rc != 0) {
      /* Nothing queued: the job waits at the head for the next pump. */
      srv_log_error("computer", "cannot queue a search: %s", srv_err_code(rc));
      s->job = NULL;
      j->slot = NULL;
      l->nrunning--;
      srv_list_push_front(&l->waiting, &j->link);
      l->nwaiting++;
      return;
    }
    l->last_budget = j->budget;
  }
}

/* Cuts the budgets of l's running searches to what its length now allows. */
static void hurry(pool *p, lane *l) {
  if (l == &p->lanes[SRV_SEARCH_ANALYSIS])
    return;
  uint64_t now = now_ms(p);
  for (int i = 0; i < l->nslots; i++) {
    slot *s = &l->slots[i];
    srv_search_job *j = s->job;
    if (j == NULL || j->cancelled)
      continue;
    long b =
        srv_search_budget(j->ms, l->nwaiting, l->nslots, l->target, l->floor, (long)l->overhead);
    if (b >= j->budget)
      continue;
    j->budget = b;
    uint64_t spent = now - j->started;
    if (spent >= (uint64_t)b || s->timer == NULL)
      atomic_store(&j->stop, true);
    else
      p->time->timer_start(s->timer, (uint64_t)b - spent);
  }
}

static void on_cut(void *arg) {
  slot *s = arg;
  if (s->job != NULL)
    atomic_store(&s->job->stop, true);
}

static int submit(srv_search_queue *q, const srv_search_req *req, srv_search_done_fn done,
                  void *arg, srv_search_job **out) {
  pool *p = (pool *)q;
  if (req->lane < 0 || req->lane >= SRV_SEARCH_LANES || done == NULL)
    return SRV_EINTERNAL;
  srv_search_job *j = calloc(1, sizeof *j);
  if (j == NULL || (j->game = mc_game_copy(req->game)) == NULL) {
    free(j);
    return SRV_ENOMEM;
  }
  if (req->lane == SRV_SEARCH_ANALYSIS) {
    mc_game_moves(j->game, &j->nplies);
    j->todo = j->nplies;
    if ((j->plies = calloc(j->nplies ? j->nplies : 1, sizeof *j->plies)) == NULL) {
      job_free(j);
      return SRV_ENOMEM;
    }
  }
  j->owner = p;
  j->lane = req->lane;
  j->level = req->level;
  j->ms = req->ms > 0 ? req->ms : 1;
  j->seed = req->seed;
  j->done = done;
  j->arg = arg;
  atomic_init(&j->stop, false);
  lane *l = &p->lanes[req->lane];
  srv_list_push_back(&l->waiting, &j->link);
  l->nwaiting++;
  *out = j;
  pump(p, req->lane);
  hurry(p, l);
  if (req->lane != SRV_SEARCH_ANALYSIS)
    yield_to_moves(p);
  return 0;
}

static void cancel(srv_search_queue *q, srv_search_job *j) {
  pool *p = (pool *)q;
  if (j->slot != NULL) {
    j->cancelled = true;
    atomic_store(&j->stop, true); /* Its done call frees it. */
    return;
  }
  srv_list_remove(&j->link);
  p->lanes[j->lane].nwaiting--;
  job_free(j);
}

static void stats(const srv_search_queue *q, srv_search_stats *out) {
  const pool *p = (const pool *)q;
  for (int i = 0; i < SRV_SEARCH_LANES; i++) {
    out->running[i] = p->lanes[i].nrunning;
    out->waiting[i] = p->lanes[i].nwaiting;
    out->workers[i] = p->lanes[i].nslots;
    out->last_budget_ms[i] = p->lanes[i].last_budget;
  }
  out->done = p->done;
  out->cut = p->cut;
}

srv_search_queue *srv_search_pool_new(srv_work *work, srv_time *time,
                                      const srv_search_pool_config *cfg) {
  pool *p = calloc(1, sizeof *p);
  if (p == NULL) {
    mc_egtb_free(cfg->egtb);
    return NULL;
  }
  p->q = (srv_search_queue){submit, cancel, stats, p};
  p->work = work;
  p->time = time;
  p->cpus = cfg->cpus;
  if (p->cpus <= 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    p->cpus = n > 0 ? (int)n : 1;
  }
  for (int i = 0; i < SRV_SEARCH_LANES; i++)
    srv_list_init(&p->lanes[i].waiting);
  p->egtb = cfg->egtb;
  for (int i = 0; i < SRV_SEARCH_LANES; i++) {
    lane *l = &p->lanes[i];
    int n = cfg->workers[i] > 0 ? cfg->workers[i] : 1;
    l->target = cfg->target_ms[i];
    l->floor = cfg->floor_ms[i];
    if ((l->slots = calloc((size_t)n, sizeof *l->slots)) == NULL) {
      srv_search_pool_free(&p->q);
      return NULL;
    }
    l->nslots = n;
    mc_search_config sc = {.tt_bytes = TT_BYTES[i], .egtb = p->egtb};
    for (int k = 0; k < n; k++)
      l->slots[k].egtb = p->egtb;
    for (int k = 0; k < n; k++) {
      slot *s = &l->slots[k];
      s->owner = p;
      s->search = mc_search_new(&sc);
      s->timer = srv_timer_new(time, on_cut, s);
      if (s->search == NULL || s->timer == NULL) {
        srv_search_pool_free(&p->q);
        return NULL;
      }
    }
  }
  return &p->q;
}

void srv_search_pool_close(srv_search_queue *q) {
  pool *p = (pool *)q;
  for (int i = 0; i < SRV_SEARCH_LANES; i++)
    for (int k = 0; k < p->lanes[i].nslots; k++) {
      p->time->timer_free(p->lanes[i].slots[k].timer);
      p->lanes[i].slots[k].timer = NULL;
    }
}

void srv_search_pool_free(srv_search_queue *q) {
  if (q == NULL)
    return;
  pool *p = (pool *)q;
  for (int i = 0; i < SRV_SEARCH_LANES; i++) {
    lane *l = &p->lanes[i];
    srv_list_foreach_safe (it, &l->waiting)
      job_free(srv_list_entry(it, srv_search_job, link));
    for (int k = 0; k < l->nslots; k++) {
      if (l->slots[k].timer != NULL)
        p->time->timer_free(l->slots[k].timer);
      mc_search_free(l->slots[k].search);
    }
    free(l->slots);
  }
  mc_egtb_free(p->egtb);
  mc_egtb_free(p->retired);
  free(p);
}
