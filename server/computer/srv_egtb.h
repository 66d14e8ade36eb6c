/* The server's endgame tables (common/mc_egtb.h): the default set (Kalah and Oware, 6 houses, every
 * variant) read from the data directory at start, and the missing ones built once in the
 * background, so that a fresh install gets them without a manual step.
 *
 * The build runs on one thread of its own at idle priority (SCHED_IDLE, and nice 19 should that be
 * refused), never on the loop thread and never in the search pool; it writes each table to a
 * temporary file renamed into place (mc_egtb_load()), and when it is over the loop thread hands the
 * new set to ready(): the server swaps it into its searches without a restart. Start-up does not
 * wait for it. The log says what was loaded, what is being built and about how long it will take,
 * and when it is done; srv_egtb_status() is what /healthz and /metrics show.
 *
 * Everything here is called on the loop thread.
 */
#ifndef SRV_EGTB_H
#define SRV_EGTB_H

#include <stdbool.h>
#include <uv.h>

#include "mc_egtb.h"

/* Tables of the default set. */
#define SRV_EGTB_TABLES 5

typedef struct srv_egtb srv_egtb;

typedef struct srv_egtb_config {
  const char *dir; /* The data directory (copied); NULL: no tables at all. */
  bool build;      /* Build the missing tables in the background (--egtb-build on). */
  int max_seeds;   /* Board seeds of every table, at most each one's default; 0: the defaults. */
} srv_egtb_config;

/* What the server's tables are doing. */
typedef enum srv_egtb_state {
  SRV_EGTB_NONE,     /* No data directory: no tables. */
  SRV_EGTB_READY,    /* Every table of the set is loaded. */
  SRV_EGTB_BUILDING, /* Some are missing and being built. */
  SRV_EGTB_MISSING,  /* Some are missing and nothing builds them (--egtb-build off). */
  SRV_EGTB_FAILED    /* The build failed (the log says why); what was there stays loaded. */
} srv_egtb_state;

typedef struct srv_egtb_status {
  srv_egtb_state state;
  int loaded;        /* Tables the searches use now. */
  int tables;        /* SRV_EGTB_TABLES. */
  int built;         /* Tables the build has finished (building). */
  double expected_s; /* The build's expected time on one core (building). */
  double elapsed_s;  /* Time since the build started (building), or what it took (ready). */
} srv_egtb_status;

/* Called on the loop thread when a build is over with the new set (owned by the callee from then
 * on), which holds every table the build could load or build. */
typedef void (*srv_egtb_ready_fn)(void *arg, mc_egtb *tables);

/* Reads the default tables found in cfg->dir (none is built here) and logs what it loaded.
 * Returns the module and puts the set in *tables (a new set the caller owns, maybe empty), or
 * NULL when memory runs out. */
srv_egtb *srv_egtb_new(uv_loop_t *loop, const srv_egtb_config *cfg, mc_egtb **tables);

/* Starts building the missing tables when cfg->build asked for it (else logs how to build them).
 * ready is called once with the result, on the loop thread; never after srv_egtb_stop(). Returns
 * 0 (also when nothing is missing: ready is then never called) or a negative SRV_E* code (no
 * thread: the server runs on with what it has). */
int srv_egtb_start(srv_egtb *e, srv_egtb_ready_fn ready, void *arg);

/* Fills *out. */
void srv_egtb_status_get(const srv_egtb *e, srv_egtb_status *out);

/* Name of a state: "none", "ready", "building", "missing", "failed". */
const char *srv_egtb_state_name(srv_egtb_state state);

/* Stops a build under way (it ends within a moment: the build checks a cancel flag), waits for its
 * thread and closes the module's handle; the loop must run once more for the handle to close. */
void srv_egtb_stop(srv_egtb *e);

/* Frees the module (after srv_egtb_stop() and the loop's last run). NULL is allowed. */
void srv_egtb_free(srv_egtb *e);

#endif
