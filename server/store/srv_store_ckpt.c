/* SQLite's checkpoint off the loop (see srv_store.h, "Durability", and docs/storage.md).
 *
 * In WAL mode every commit appends pages to the log; a checkpoint copies them back into the
 * database and syncs it. SQLite runs its own (the automatic checkpoint) inside the COMMIT that
 * takes the log past a threshold, on the loop thread: with 5,000 live games it copies thousands
 * of scattered pages and syncs the database, 40 to 60 ms in which no room is served (issue 22).
 * So once the store is bound to a loop (srv_store_watch()), this file's hook replaces the
 * automatic checkpoint (sqlite3_wal_hook() is what wal_autocheckpoint installs) and a thread of
 * its own, on a connection of its own to the same file, runs the checkpoint instead: PASSIVE,
 * which never waits for the writer and never stops it.
 *
 * Only a writer can start the log again from its beginning: SQLite does it when a write
 * transaction begins while every frame of the log is in the database. Under steady load the loop
 * commits while the thread copies, so the thread's checkpoint always leaves the frames of those
 * commits behind and the log would grow without end. So the thread copies again what was
 * committed during its last run, a shorter run each time, until what is left is small (TAIL_MIN
 * frames or a hundredth of the threshold) or it ran PASSES times; then the loop copies that tail
 * itself, at the next commit (from the hook, between two batches, as SQLite's automatic
 * checkpoint does), and its next batch starts the log again.
 *
 * A failed checkpoint changes nothing that a later one does not redo (SQLite copies every frame
 * past the last completed checkpoint again, and the log stays the truth until a checkpoint has
 * synced the database): it is logged, at most once a minute, and tried again at the next commit
 * past the threshold. A database deleted, replaced or made unwritable is the file checks' to
 * report (srv_store__check_files(), before every batch), as before.
 *
 * The thread calls SQLite on its own connection only, and touches this struct's fields under its
 * lock. Two connections on two threads need SQLite's global mutexes (SQLITE_CONFIG_MULTITHREAD,
 * srv_store_config.multi_thread; its unix file system's list of open files is shared). */
#include "srv_store_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#include "srv_log.h"
#include "srv_time_uv.h" /* SRV_OWN_TAG */

/* The thread's runs before the loop copies the rest, and the rest the loop copies at once. */
#define PASSES 4
#define TAIL_MIN 64

/* What the loop waits for. */
typedef enum ckpt_state {
  CKPT_IDLE, /* The log is below the threshold, or a checkpoint may be asked for. */
  CKPT_COPY, /* The thread was asked, or copies. */
  CKPT_TAIL  /* The thread is done: the next commit past the threshold copies what is left. */
} ckpt_state;

struct srv_store_ckpter {
  srv_store *store;
  sqlite3 *db; /* The thread's connection (the loop's only before the thread starts and after it
                * is joined). */
  int pages;   /* The threshold: the log's length in pages that asks for a checkpoint. */
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uv_async_t *async; /* Freed by its close callback. */
  /* Under mu: the loop asks (want), the thread answers. */
  bool want, running, quit;
  uint64_t ok, failed; /* Checkpoints completed and failed by the thread. */
  uint64_t ns_total, ns_max;
  int done; /* The frames of the log in the database after the last run. */
  int rc;   /* The last failure's SQLite code, and its message. */
  char message[SRV_STORE_ERR_SIZE];
  /* The loop's only. */
  ckpt_state state;
  int passes;   /* The thread's runs since the log last started again. */
  int backfill; /* done, as the loop last read it. */
  uint64_t seen_ok, seen_failed;
  uint64_t warned_ns; /* When a failure was last logged (0: never). */
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *ckpt_thread(void *arg) {
  srv_store_ckpter *c = arg;
  pthread_mutex_lock(&c->mu);
  for (;;) {
    while (!c->want && !c->quit)
      pthread_cond_wait(&c->cv, &c->mu);
    if (c->quit)
      break;
    c->want = false;
    c->running = true;
    pthread_mutex_unlock(&c->mu);
    uint64_t t0 = now_ns();
    int log = 0, done = 0;
    int rc = sqlite3_wal_checkpoint_v2(c->db, "main", SQLITE_CHECKPOINT_PASSIVE, &log, &done);
    uint64_t dt = now_ns() - t0;
    char message[SRV_STORE_ERR_SIZE] = "";
    if (rc != SQLITE_OK)
      snprintf(message, sizeof message, "%s", sqlite3_errmsg(c->db));
    pthread_mutex_lock(&c->mu);
    c->running = false;
    if (rc == SQLITE_OK) {
      c->ok++;
      c->done = done;
      c->ns_total += dt;
      if (dt > c->ns_max)
        c->ns_max = dt;
    } else {
      c->failed++;
      c->rc = rc;
      memcpy(c->message, message, sizeof message);
    }
    pthread_cond_broadcast(&c->cv); /* srv_store__ckpt_wait() */
    uv_async_send(c->async);
  }
  pthread_mutex_unlock(&c->mu);
  return NULL;
}

/* The thread's answers, on the loop: the counters, a failure's warning, the next state. */
static void ckpt_report(srv_store_ckpter *c) {
  pthread_mutex_lock(&c->mu);
  bool idle = !c->want && !c->running;
  uint64_t ok = c->ok, failed = c->failed;
  uint64_t ns_total = c->ns_total, ns_max = c->ns_max;
  int rc = c->rc, done = c->done;
  char message[SRV_STORE_ERR_SIZE];
  memcpy(message, c->message, sizeof message);
  pthread_mutex_unlock(&c->mu);
  srv_store *store = c->store;
  store->stats.checkpoints = ok;
  store->stats.checkpoint_failures = failed + store->stats.loop_checkpoint_failures;
  store->stats.checkpoint_ns_total = ns_total;
  store->stats.checkpoint_ns_max = ns_max;
  if (failed != c->seen_failed) {
    c->seen_failed = failed;
    uint64_t now = now_ns();
    if (c->warned_ns == 0 || now - c->warned_ns >= 60 * 1000000000ull) {
      c->warned_ns = now;
      srv_log_warn("store",
                   "%s: a checkpoint of the write-ahead log failed (SQLite code %d: %s); it is "
                   "tried again at the next commit",
                   store->path, rc, message);
    }
  }
  if (c->state != CKPT_COPY || !idle)
    return;
  if (ok != c->seen_ok) {
    c->seen_ok = ok;
    c->backfill = done;
    c->passes++;
    c->state = CKPT_TAIL;
  } else {
    c->state = CKPT_IDLE; /* It failed: asked again at the next commit past the threshold. */
  }
  uv_unref((uv_handle_t *)c->async);
}

static void on_ckpt(uv_async_t *h) {
  srv_store_ckpter *c = *(srv_store_ckpter **)(h + 1);
  ckpt_report(c);
}

/* The loop copies what the thread left (see the top of this file): between two batches, so that
 * the next one starts the log again. */
static void copy_tail(srv_store_ckpter *c, sqlite3 *db, const char *name) {
  srv_store *store = c->store;
  uint64_t t0 = now_ns();
  int rc = sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
  uint64_t dt = now_ns() - t0;
  if (rc != SQLITE_OK) {
    store->stats.loop_checkpoint_failures++;
    store->stats.checkpoint_failures++;
    return;
  }
  store->stats.loop_checkpoints++;
  store->stats.loop_checkpoint_ns_total += dt;
  if (dt > store->stats.loop_checkpoint_ns_max)
    store->stats.loop_checkpoint_ns_max = dt;
}

/* SQLite's wal hook, on the loop after every commit: pages is the log's length. It never blocks:
 * the lock is held by the thread only to read or set a few fields. */
static void ask_thread(srv_store_ckpter *c) {
  c->state = CKPT_COPY;
  uv_ref((uv_handle_t *)c->async); /* Its answer keeps the loop alive. */
  pthread_mutex_lock(&c->mu);
  c->want = true;
  pthread_cond_signal(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

static int on_commit(void *arg, sqlite3 *db, const char *name, int pages) {
  srv_store_ckpter *c = arg;
  if (pages < c->pages) {
    if (c->state == CKPT_TAIL)
      c->state = CKPT_IDLE; /* The log started again (the thread copied every frame). */
    c->passes = 0;
    return SQLITE_OK;
  }
  int tail = c->pages / 100 > TAIL_MIN ? c->pages / 100 : TAIL_MIN;
  switch (c->state) {
  case CKPT_IDLE:
    ask_thread(c);
    break;
  case CKPT_COPY:
    break;
  case CKPT_TAIL:
    if (pages - c->backfill > tail && c->passes < PASSES) {
      ask_thread(c); /* Again: what was committed during its last run. */
    } else {
      c->state = CKPT_IDLE;
      copy_tail(c, db, name);
      c->passes = 0;
    }
    break;
  }
  return SQLITE_OK;
}

/* The async handle and a pointer back to its checkpointer, in one allocation (the handle's data
 * is SRV_OWN_TAG: shutdown tells our handles from lws' by it). */
static uv_async_t *async_new(uv_loop_t *loop, srv_store_ckpter *c) {
  uv_async_t *h = malloc(sizeof *h + sizeof c);
  if (h == NULL)
    return NULL;
  if (uv_async_init(loop, h, on_ckpt) != 0) {
    free(h);
    return NULL;
  }
  h->data = SRV_OWN_TAG;
  memcpy(h + 1, &c, sizeof c);
  uv_unref((uv_handle_t *)h);
  return h;
}

static void async_closed(uv_handle_t *h) {
  free(h);
}

/* Opens the thread's connection to the store's file. */
static int open_conn(srv_store *store, sqlite3 **out) {
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(store->path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_extended_result_codes(db, 1);
    /* NORMAL and FULL alike sync the log before a checkpoint and the database after it. */
    rc = sqlite3_exec(db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
  }
  if (rc != SQLITE_OK) {
    srv_store__set_error(store->error, "%s: cannot open a connection for checkpoints: %s",
                         store->path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return SRV_STORE_EIO;
  }
  *out = db;
  return 0;
}

int srv_store__ckpt_start(srv_store *store, uv_loop_t *loop) {
  if (store->ckpter != NULL || store->reader || store->pg != NULL)
    return 0;
  srv_store_ckpter *c = calloc(1, sizeof *c);
  if (c == NULL)
    return SRV_STORE_ENOMEM;
  c->store = store;
  c->pages = store->ckpt_pages;
  int rc = open_conn(store, &c->db);
  if (rc != 0) {
    free(c);
    return rc;
  }
  if ((c->async = async_new(loop, c)) == NULL) {
    sqlite3_close(c->db);
    free(c);
    return SRV_STORE_ENOMEM;
  }
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->cv, NULL);
  if (pthread_create(&c->thread, NULL, ckpt_thread, c) != 0) {
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    uv_close((uv_handle_t *)c->async, async_closed);
    sqlite3_close(c->db);
    free(c);
    srv_store__set_error(store->error, "%s: cannot start the thread of the checkpoints",
                         store->path);
    return SRV_STORE_EIO;
  }
  store->ckpter = c;
  /* Replaces SQLite's automatic checkpoint (itself a wal hook) on the loop's connection. */
  sqlite3_wal_hook(store->db, on_commit, c);
  return 0;
}

void srv_store__ckpt_wait(srv_store *store) {
  srv_store_ckpter *c = store->ckpter;
  if (c == NULL)
    return;
  pthread_mutex_lock(&c->mu);
  while (c->want || c->running)
    pthread_cond_wait(&c->cv, &c->mu);
  pthread_mutex_unlock(&c->mu);
  ckpt_report(c);
}

void srv_store__ckpt_close(srv_store *store) {
  srv_store_ckpter *c = store->ckpter;
  if (c == NULL)
    return;
  pthread_mutex_lock(&c->mu);
  c->quit = true;
  pthread_cond_signal(&c->cv);
  pthread_mutex_unlock(&c->mu);
  pthread_join(c->thread, NULL);
  ckpt_report(c);
  /* The loop's connection closes last: its close copies the log and removes it, as before. */
  sqlite3_wal_hook(store->db, NULL, NULL);
  pthread_cond_destroy(&c->cv);
  pthread_mutex_destroy(&c->mu);
  uv_close((uv_handle_t *)c->async, async_closed);
  sqlite3_close(c->db);
  free(c);
  store->ckpter = NULL;
}
