/* SQLite's durable commit without stopping the loop (see srv_store.h, "Durability").
 *
 * With --sync full a commit must reach the disk before its moves are acknowledged. SQLite's own
 * way (synchronous = FULL) fsyncs the write-ahead log inside COMMIT, on the loop thread: under
 * another program's disk traffic one fsync took 10 to 250 ms here, and every room of the server
 * waited for it. So once the store is bound to a loop (srv_store_watch()), the connection runs
 * with synchronous = NORMAL (COMMIT writes the log without syncing it; checkpoints still sync
 * the log before and the database after, as FULL does) and this file's thread syncs the log
 * (fdatasync() on a descriptor of our own of the same file) after each COMMIT, off the loop. The
 * batch's callback runs on the loop when the sync is done, as PostgreSQL's runs when its
 * COMMIT's result arrives: the turn pipeline already waits for that, and the writes of the turns
 * in between form the next batch (one sync then covers them all). So an acknowledged move is on
 * the disk as with FULL; what differs is that a read (another connection) may see a batch whose
 * sync is still under way.
 *
 * A failed sync cannot be retried (after a failed fsync Linux may have dropped the pages it
 * could not write, and the next fsync succeeds without them): the batch is reported lost and the
 * store refuses every later write until a restart, which recovers from what is on the disk.
 *
 * The thread touches nothing but this struct's fields under its lock and the descriptor; it
 * never calls SQLite. */
#include "srv_store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "srv_log.h"
#include "srv_time_uv.h" /* SRV_OWN_TAG */

struct srv_store_syncer {
  srv_store *store;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uv_async_t *async; /* Freed by its close callback. */
  int fd;            /* The write-ahead log, opened by us (-1: not yet). */
  /* Under mu: the loop asks (want), the thread answers (done, err). */
  bool want, done, quit;
  int err; /* errno of the failed sync, or 0. */
  /* The loop's only: the batch whose sync is under way. */
  bool busy;
  srv_store_commit_cb cb;
  void *arg;
  srv_store_op *ops; /* Its writes, reported lost if the sync fails. */
  size_t n_ops, cap_ops;
  uint64_t t0;
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *sync_thread(void *arg) {
  srv_store_syncer *s = arg;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    while (!s->want && !s->quit)
      pthread_cond_wait(&s->cv, &s->mu);
    if (s->quit)
      break;
    s->want = false;
    int fd = s->fd;
    pthread_mutex_unlock(&s->mu);
    int err = fdatasync(fd) == 0 ? 0 : errno;
    pthread_mutex_lock(&s->mu);
    s->err = err;
    s->done = true;
    pthread_cond_broadcast(&s->cv); /* srv_store__sync_wait() */
    uv_async_send(s->async);
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

/* Opens the write-ahead log for syncing, once it exists (the first COMMIT made it). */
static int open_log(srv_store *store, srv_store_syncer *s) {
  if (s->fd >= 0)
    return 0;
  int fd = open(store->wal_path, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    srv_store__set_error(store->error, "%s: cannot open the write-ahead log to sync it: %s",
                         store->wal_path, strerror(e));
    return SRV_STORE_EIO;
  }
  struct stat st;
  srv_store__note_wal(store);
  if (fstat(fd, &st) != 0 || (store->wal_ino != 0 && st.st_ino != store->wal_ino)) {
    close(fd);
    srv_store__set_error(store->error, "%s: the write-ahead log is not the one the store opened",
                         store->wal_path);
    return SRV_STORE_EMOVED;
  }
  s->fd = fd;
  return 0;
}

/* The sync failed: what was written since the last good one may not be on the disk. */
static void sync_failed(srv_store *store, int err) {
  store->broken = true;
  srv_store__set_error(store->error,
                       "%s: syncing the write-ahead log failed (%s): what the last batch wrote may "
                       "not be on the disk; nothing is written any more; restart the server",
                       store->wal_path, strerror(err));
  srv_log_error("store", "%s", store->error);
}

/* The sync's outcome, on the loop: the store's books as srv_store_commit() keeps them, then the
 * batch's callback. */
static void sync_end(srv_store *store, int err) {
  srv_store_syncer *s = store->syncer;
  s->busy = false;
  uv_unref((uv_handle_t *)s->async);
  int rc = 0;
  if (err != 0) {
    sync_failed(store, err);
    if (store->failed_reported) {
      store->n_failed = 0;
      store->failed_reported = false;
    }
    if (srv_store__grow((void **)&store->failed, &store->cap_failed, store->n_failed + s->n_ops,
                        sizeof *store->failed) == 0) {
      memcpy(store->failed + store->n_failed, s->ops, s->n_ops * sizeof *store->failed);
      store->n_failed += s->n_ops;
    }
    rc = SRV_STORE_EIO;
  } else {
    uint64_t dt = now_ns() - s->t0;
    store->stats.commit_ns_total += dt;
    if (dt > store->stats.commit_ns_max)
      store->stats.commit_ns_max = dt;
  }
  s->n_ops = 0;
  rc = srv_store__commit_report(store, rc);
  srv_store_commit_cb cb = s->cb;
  void *arg = s->arg;
  s->cb = NULL;
  cb(arg, rc);
}

static void on_synced(uv_async_t *h) {
  srv_store_syncer *s = *(srv_store_syncer **)(h + 1);
  pthread_mutex_lock(&s->mu);
  bool done = s->done;
  int err = s->err;
  s->done = false;
  pthread_mutex_unlock(&s->mu);
  if (done && s->busy)
    sync_end(s->store, err);
}

/* The async handle and a pointer back to its syncer, in one allocation (the handle's data is
 * SRV_OWN_TAG: shutdown tells our handles from lws' by it). */
static uv_async_t *async_new(uv_loop_t *loop, srv_store_syncer *s) {
  uv_async_t *h = malloc(sizeof *h + sizeof s);
  if (h == NULL)
    return NULL;
  if (uv_async_init(loop, h, on_synced) != 0) {
    free(h);
    return NULL;
  }
  h->data = SRV_OWN_TAG;
  memcpy(h + 1, &s, sizeof s);
  uv_unref((uv_handle_t *)h); /* A sync under way keeps the loop alive through its batch. */
  return h;
}

static void async_closed(uv_handle_t *h) {
  free(h);
}

int srv_store__sync_start(srv_store *store, uv_loop_t *loop) {
  if (store->syncer != NULL || store->reader)
    return 0;
  srv_store_syncer *s = calloc(1, sizeof *s);
  if (s == NULL)
    return SRV_STORE_ENOMEM;
  s->store = store;
  s->fd = -1;
  if ((s->async = async_new(loop, s)) == NULL) {
    free(s);
    return SRV_STORE_ENOMEM;
  }
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv, NULL);
  if (pthread_create(&s->thread, NULL, sync_thread, s) != 0) {
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    uv_close((uv_handle_t *)s->async, async_closed);
    free(s);
    srv_store__set_error(store->error, "%s: cannot start the thread that syncs the log",
                         store->path);
    return SRV_STORE_EIO;
  }
  /* COMMIT no longer syncs the log: the thread does, before the batch is called committed. */
  int rc = sqlite3_exec(store->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
  store->syncer = s;
  if (rc != SQLITE_OK)
    return srv_store__fail(store, rc, "cannot configure the database");
  return 0;
}

bool srv_store__sync_busy(const srv_store *store) {
  return store->syncer != NULL && store->syncer->busy;
}

int srv_store__sync_hand(srv_store *store, const srv_store_op *ops, size_t n,
                         srv_store_commit_cb cb, void *arg, uint64_t t0) {
  srv_store_syncer *s = store->syncer;
  int rc = open_log(store, s);
  if (rc != 0)
    return rc;
  if (srv_store__grow((void **)&s->ops, &s->cap_ops, n ? n : 1, sizeof *s->ops) != 0)
    return SRV_STORE_ENOMEM;
  if (n > 0)
    memcpy(s->ops, ops, n * sizeof *ops);
  s->n_ops = n;
  s->cb = cb;
  s->arg = arg;
  s->t0 = t0;
  s->busy = true;
  uv_ref((uv_handle_t *)s->async);
  pthread_mutex_lock(&s->mu);
  s->want = true;
  pthread_cond_signal(&s->cv);
  pthread_mutex_unlock(&s->mu);
  return 0;
}

int srv_store__sync_now(srv_store *store) {
  srv_store_syncer *s = store->syncer;
  int rc = open_log(store, s);
  if (rc != 0)
    return rc;
  if (fdatasync(s->fd) != 0) {
    sync_failed(store, errno);
    return SRV_STORE_EIO;
  }
  return 0;
}

void srv_store__sync_wait(srv_store *store) {
  srv_store_syncer *s = store->syncer;
  if (s == NULL || !s->busy)
    return;
  pthread_mutex_lock(&s->mu);
  while (!s->done)
    pthread_cond_wait(&s->cv, &s->mu);
  int err = s->err;
  s->done = false;
  pthread_mutex_unlock(&s->mu);
  sync_end(store, err);
}

void srv_store__sync_close(srv_store *store) {
  srv_store_syncer *s = store->syncer;
  if (s == NULL)
    return;
  srv_store__sync_wait(store);
  pthread_mutex_lock(&s->mu);
  s->quit = true;
  pthread_cond_signal(&s->cv);
  pthread_mutex_unlock(&s->mu);
  pthread_join(s->thread, NULL);
  pthread_cond_destroy(&s->cv);
  pthread_mutex_destroy(&s->mu);
  uv_close((uv_handle_t *)s->async, async_closed);
  if (s->fd >= 0)
    close(s->fd);
  free(s->ops);
  free(s);
  store->syncer = NULL;
}

int srv_store__sync_set_fd(srv_store *store, int fd) {
  srv_store_syncer *s = store->syncer;
  if (s == NULL || s->busy)
    return SRV_STORE_EINVAL;
  if (s->fd >= 0)
    close(s->fd);
  s->fd = fd;
  return 0;
}
