/* The server's endgame tables: loaded at start, the missing ones built in the background (see
 * srv_egtb.h). The building thread touches only its own fields (the cancel flag, the progress
 * counters and, once, the result); it never logs: the loop thread does, woken by the async handle.
 */
#define _GNU_SOURCE /* SCHED_IDLE, syscall(SYS_gettid): Linux's per-thread priority. */
#include "srv_egtb.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mc_error.h"
#include "srv_error.h"
#include "srv_log.h"
#include "srv_time_uv.h"

/* A build's cost on one core, microseconds an entry, from docs/computer.md's measured builds
 * (294.7 s for Kalah's 30.4 million entries, 677.4 s for Oware's 2.7 million, on a 2-core machine
 * with a load of 15-34): a pessimistic estimate, an idle machine builds faster. */
#define KALAH_US_PER_ENTRY 9.7
#define OWARE_US_PER_ENTRY 248.0

/* How the thread's priority was lowered (read on the loop once the build is over). */
enum { PRIO_UNKNOWN, PRIO_IDLE, PRIO_NICE, PRIO_NONE };

struct srv_egtb {
  uv_loop_t *loop;
  uv_async_t async;
  bool async_open;
  uv_thread_t thread;
  bool thread_running;
  char *dir;
  bool keep; /* dir is a directory: tables are read from it and written to it. */
  bool build;
  int max_seeds;
  int loaded;
  bool missing[SRV_EGTB_TABLES];
  srv_egtb_state state;
  srv_egtb_ready_fn ready;
  void *arg;
  struct timespec started;
  double expected_s, took_s;
  int built_logged;
  /* Shared with the building thread. */
  atomic_bool cancel;
  atomic_int built;    /* Missing tables finished. */
  atomic_bool over;    /* The thread has set result and rc. */
  atomic_int priority; /* PRIO_* */
  mc_egtb *result;
  int rc, failed_table;
  int wrote_errno; /* A table built but not written (1 from mc_egtb_load()): why. */
};

/* Table i of the default set (the order of mc_egtb_load_defaults()). */
static void table_rules(int i, mc_rules *r) {
  mc_rules_init(r, i < 2 ? MC_KALAH : MC_OWARE);
  if (i < 2)
    r->empty_capture = i == 1;
  else
    r->grand_slam = (mc_grand_slam)(i - 2);
}

static int table_seeds(const srv_egtb *e, const mc_rules *r) {
  int d = mc_egtb_default_seeds(r);
  return e->max_seeds > 0 && e->max_seeds < d ? e->max_seeds : d;
}

static double secs_since(const struct timespec *t0) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* "about 12 minutes", "about 40 s", "under a second". */
static void duration(double s, char *buf, size_t size) {
  if (s < 1)
    snprintf(buf, size, "under a second");
  else if (s < 120)
    snprintf(buf, size, "about %.0f s", s);
  else
    snprintf(buf, size, "about %.0f minutes", s / 60);
}

srv_egtb *srv_egtb_new(uv_loop_t *loop, const srv_egtb_config *cfg, mc_egtb **tables) {
  srv_egtb *e = calloc(1, sizeof *e);
  mc_egtb *tb = mc_egtb_new();
  if (e == NULL || tb == NULL || (cfg->dir != NULL && (e->dir = strdup(cfg->dir)) == NULL)) {
    free(e);
    mc_egtb_free(tb);
    return NULL;
  }
  e->loop = loop;
  e->build = cfg->build;
  e->max_seeds = cfg->max_seeds;
  atomic_init(&e->cancel, false);
  atomic_init(&e->built, 0);
  atomic_init(&e->over, false);
  atomic_init(&e->priority, PRIO_UNKNOWN);
  e->state = SRV_EGTB_NONE;
  *tables = tb;
  if (e->dir == NULL)
    return e;
  struct stat st;
  e->keep = stat(e->dir, &st) == 0 && S_ISDIR(st.st_mode);
  if (!e->keep)
    srv_log_warn("computer",
                 "endgame tables: %s is not a directory (a PostgreSQL site's --data need not "
                 "be): none loaded%s",
                 e->dir, e->build ? "; the missing ones are built in memory and not kept" : "");
  char names[256] = "";
  size_t used = 0;
  for (int i = 0; i < SRV_EGTB_TABLES; i++) {
    mc_rules r;
    table_rules(i, &r);
    mc_egtb_options o = {.dir = e->dir, .max_seeds = table_seeds(e, &r)};
    int rc = e->keep ? mc_egtb_load(tb, &r, &o) : MC_EIO;
    char name[64];
    mc_egtb_file_name(&r, name, sizeof name);
    if (rc == 0 && mc_egtb_max_seeds(tb, &r) >= o.max_seeds) {
      e->loaded++;
      continue;
    }
    /* Missing, too small (kept until the build replaces it), corrupt or unreadable. */
    e->missing[i] = true;
    if (rc != 0 && rc != MC_EIO)
      srv_log_warn("computer", "endgame table %s in %s cannot be used: %s", name, e->dir,
                   mc_strerror(rc));
    int n = snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", name);
    if (n > 0 && (size_t)n < sizeof names - used)
      used += (size_t)n;
  }
  e->state = e->loaded == SRV_EGTB_TABLES ? SRV_EGTB_READY : SRV_EGTB_MISSING;
  if (e->loaded == SRV_EGTB_TABLES)
    srv_log_info("computer", "endgame tables: all %d loaded from %s", SRV_EGTB_TABLES, e->dir);
  else
    srv_log_info("computer", "endgame tables: %d of %d loaded from %s; missing or too small: %s",
                 e->loaded, SRV_EGTB_TABLES, e->dir, names);
  return e;
}

/* ---- The building thread ----------------------------------------------------------------------
 */

/* Lowers the calling thread's priority: SCHED_IDLE (runs only when a core has nothing else to
 * do), else nice 19. Linux keeps both per thread. */
static int lower_priority(void) {
  struct sched_param sp;
  memset(&sp, 0, sizeof sp);
  if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp) == 0)
    return PRIO_IDLE;
  if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19) == 0)
    return PRIO_NICE;
  return PRIO_NONE;
}

static void build_thread(void *arg) {
  srv_egtb *e = arg;
  atomic_store(&e->priority, lower_priority());
  mc_egtb *tb = mc_egtb_new();
  int rc = tb ? 0 : MC_ENOMEM;
  e->failed_table = -1;
  for (int i = 0; i < SRV_EGTB_TABLES && rc == 0; i++) {
    mc_rules r;
    table_rules(i, &r);
    mc_egtb_options o = {
        .dir = e->dir, .max_seeds = table_seeds(e, &r), .build = true, .cancel = &e->cancel};
    int lr = mc_egtb_load(tb, &r, &o);
    if (lr < 0) {
      rc = lr;
      e->failed_table = i;
    } else if (lr == 1) {
      e->wrote_errno = errno ? errno : EIO;
    }
    if (e->missing[i] && lr >= 0) {
      atomic_fetch_add(&e->built, 1);
      uv_async_send(&e->async);
    }
  }
  e->result = tb;
  e->rc = rc;
  atomic_store(&e->over, true);
  uv_async_send(&e->async);
}

/* ---- The loop thread ----------------------------------------------------------------------- */

static void on_async(uv_async_t *h) {
  srv_egtb *e = (srv_egtb *)((char *)h - offsetof(srv_egtb, async));
  int missing = 0;
  for (int i = 0; i < SRV_EGTB_TABLES; i++)
    missing += e->missing[i];
  int built = atomic_load(&e->built);
  if (built > e->built_logged && built < missing)
    srv_log_info("computer", "endgame tables: %d of %d missing tables built (%.0f s so far)", built,
                 missing, secs_since(&e->started));
  e->built_logged = built;
  if (!atomic_load(&e->over) || !e->thread_running)
    return;
  uv_thread_join(&e->thread);
  e->thread_running = false;
  e->took_s = secs_since(&e->started);
  mc_egtb *tb = e->result;
  e->result = NULL;
  if (e->rc == MC_ECANCELED) {
    mc_egtb_free(tb);
    return;
  }
  if (e->rc != 0) {
    char name[64] = "?";
    if (e->failed_table >= 0) {
      mc_rules r;
      table_rules(e->failed_table, &r);
      mc_egtb_file_name(&r, name, sizeof name);
    }
    srv_log_error("computer",
                  "endgame tables: building %s in %s failed after %.0f s: %s (the server goes on "
                  "with the %d tables it had; `mancala egtb build --dir %s` builds them by hand)",
                  name, e->dir, e->took_s, mc_strerror(e->rc), e->loaded, e->dir);
    e->state = SRV_EGTB_FAILED;
    mc_egtb_free(tb);
    return;
  }
  if (e->wrote_errno)
    srv_log_warn("computer",
                 "endgame tables: built, but some could not be written to %s (%s): they are used "
                 "now and built again at the next start",
                 e->dir, strerror(e->wrote_errno));
  static const char *const prio[] = {"?", "idle priority (SCHED_IDLE)", "nice 19",
                                     "normal priority (it could not be lowered)"};
  e->loaded = mc_egtb_count(tb);
  e->state = SRV_EGTB_READY;
  srv_log_info("computer", "endgame tables: built in %.1f s at %s; all %d loaded and in use",
               e->took_s, prio[atomic_load(&e->priority)], e->loaded);
  e->ready(e->arg, tb);
}

int srv_egtb_start(srv_egtb *e, srv_egtb_ready_fn ready, void *arg) {
  if (e->dir == NULL || e->state != SRV_EGTB_MISSING)
    return 0;
  if (!e->build) {
    srv_log_info("computer",
                 "endgame tables: not building the missing ones (--egtb-build off); `mancala "
                 "egtb build --dir %s` builds them, the next start loads them",
                 e->dir);
    return 0;
  }
  double expected = 0;
  for (int i = 0; i < SRV_EGTB_TABLES; i++) {
    if (!e->missing[i])
      continue;
    mc_rules r;
    table_rules(i, &r);
    double entries = (double)mc_egtb_entries(&r, table_seeds(e, &r));
    expected += entries * (r.kind == MC_KALAH ? KALAH_US_PER_ENTRY : OWARE_US_PER_ENTRY) / 1e6;
  }
  e->ready = ready;
  e->arg = arg;
  e->expected_s = expected;
  int rc = uv_async_init(e->loop, &e->async, on_async);
  e->async.data = SRV_OWN_TAG; /* Not lws's: the network's shutdown does not wait for it. */
  if (rc != 0) {
    srv_log_error("computer", "endgame tables: cannot build them: %s", uv_strerror(rc));
    return SRV_EINTERNAL;
  }
  e->async_open = true;
  clock_gettime(CLOCK_MONOTONIC, &e->started);
  if ((rc = uv_thread_create(&e->thread, build_thread, e)) != 0) {
    srv_log_error("computer", "endgame tables: cannot start the building thread: %s",
                  uv_strerror(rc));
    return SRV_EINTERNAL;
  }
  e->thread_running = true;
  e->state = SRV_EGTB_BUILDING;
  char d[32];
  duration(expected, d, sizeof d);
  srv_log_info(
      "computer",
      "endgame tables: building the %d missing (in %s), in the background on one thread at "
      "idle priority (play goes on meanwhile, the computer without them); expected to "
      "take %s of one core at most (measured on a busy machine), longer while the "
      "server is busy; they are used as soon as they are done",
      SRV_EGTB_TABLES - e->loaded, e->keep ? e->dir : "memory only", d);
  return 0;
}

void srv_egtb_status_get(const srv_egtb *e, srv_egtb_status *out) {
  out->state = e->state;
  out->loaded = e->loaded;
  out->tables = SRV_EGTB_TABLES;
  out->built = atomic_load(&e->built);
  out->expected_s = e->expected_s;
  out->elapsed_s = e->state == SRV_EGTB_BUILDING ? secs_since(&e->started) : e->took_s;
}

const char *srv_egtb_state_name(srv_egtb_state state) {
  static const char *const names[] = {"none", "ready", "building", "missing", "failed"};
  return state >= 0 && state <= SRV_EGTB_FAILED ? names[state] : "?";
}

void srv_egtb_stop(srv_egtb *e) {
  if (e == NULL)
    return;
  if (e->thread_running) {
    atomic_store(&e->cancel, true);
    /* At idle priority on a busy machine the thread may not run for seconds, so it would not see
     * the flag: it gets the normal priority back to stop (Linux lets a thread with CAP_SYS_NICE,
     * root's, do that; without it the stop waits for the thread's next turn on a CPU). */
    struct sched_param sp;
    memset(&sp, 0, sizeof sp);
    (void)pthread_setschedparam(e->thread, SCHED_OTHER, &sp);
    uv_thread_join(&e->thread);
    e->thread_running = false;
    mc_egtb_free(e->result);
    e->result = NULL;
    srv_log_info("computer",
                 "endgame tables: build stopped after %.0f s (tables already written stay; the "
                 "next start builds the others)",
                 secs_since(&e->started));
  }
  if (e->async_open) {
    uv_close((uv_handle_t *)&e->async, NULL);
    e->async_open = false;
  }
}

void srv_egtb_free(srv_egtb *e) {
  if (e == NULL)
    return;
  free(e->dir);
  free(e);
}
