/* Batches: the first write of a loop turn begins a transaction, srv_store_commit() makes the turn
 * durable, and a lost batch is remembered so that the rooms learn what to take back (see
 * srv_store.h). Every write goes through srv_store__write_begin() and srv_store__write_end(). */
#include "srv_store_int.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Forgets a failed list that was already reported. */
static void failed_expire(srv_store *store) {
  if (store->failed_reported) {
    store->n_failed = 0;
    store->failed_reported = false;
  }
}

/* The open batch is gone (rolled back by us or by SQLite): its writes join the failed list. */
void srv_store__batch_lost(srv_store *store) {
  if (store->pg != NULL)
    srv_store__pg_drop(store);
  else if (store->in_txn && !sqlite3_get_autocommit(store->db))
    srv_store__exec(store, STMT_ROLLBACK, NULL, 0);
  store->in_txn = false;
  /* write_begin() made the room, for the moves that wait too. */
  if (store->n_ops > 0)
    memcpy(store->failed + store->n_failed, store->ops, store->n_ops * sizeof *store->ops);
  store->n_failed += store->n_ops;
  store->n_ops = 0;
  for (size_t i = 0; i < store->n_moves; i++)
    store->failed[store->n_failed++] =
        srv_store__op(SRV_STORE_OP_MOVE, "", store->moves[i].game, store->moves[i].ply);
  store->n_moves = 0;
}

/* Begins the batch when none is open; reserves room for one more op, in the batch and in the
 * failed list, so that losing the batch never needs memory (a lost write is always reported).
 * The moves that wait count as ops: they join the batch's list when they are inserted. */
int srv_store__write_begin(srv_store *store) {
  if (store->reader) {
    srv_store__set_error(store->error, "%s: a reader does not write", store->path);
    return SRV_STORE_EREADONLY;
  }
  failed_expire(store);
  size_t ops = store->n_ops + store->n_moves + 1;
  if (srv_store__grow((void **)&store->ops, &store->cap_ops, ops, sizeof *store->ops) != 0 ||
      srv_store__grow((void **)&store->failed, &store->cap_failed, store->n_failed + ops,
                      sizeof *store->failed) != 0)
    return SRV_STORE_ENOMEM;
  if (store->in_txn)
    return 0;
  if (store->broken) {
    srv_store__set_error(store->error,
                         "%s: a sync of the write-ahead log failed: nothing is written any more; "
                         "restart the server",
                         store->path);
    return SRV_STORE_EIO;
  }
  if (store->pg != NULL) { /* The batch is kept in memory until the commit sends it. */
    store->in_txn = true;
    store->n_ops = 0;
    return 0;
  }
  int rc = srv_store__check_files(store, true);
  if (rc != 0)
    return rc;
  rc = srv_store__exec(store, STMT_BEGIN, NULL, 0);
  if (rc != SQLITE_OK)
    return srv_store__fail(store, rc, "cannot begin a transaction");
  store->in_txn = true;
  store->n_ops = 0;
  return 0;
}

/* Ends one write whose statements returned rc. A constraint failure only undoes that statement;
 * any other failure may have cost the whole transaction, so the batch is rolled back and
 * reported. */
int srv_store__write_end(srv_store *store, int rc, const srv_store_op *op, const char *what) {
  if (rc == SQLITE_OK) {
    store->ops[store->n_ops++] = *op;
    store->stats.writes++;
    return 0;
  }
  int err = srv_store__fail(store, rc, what);
  if (err != SRV_STORE_ECONFLICT || store->pg != NULL || sqlite3_get_autocommit(store->db))
    srv_store__batch_lost(store);
  return err;
}

bool srv_store_pending(const srv_store *store) {
  return store != NULL && store->in_txn;
}

/* COMMITs SQLite's open batch. Returns 0 with the batch committed (store->ops still lists its
 * writes, for the caller), or a code with the batch lost (rolled back, its writes in the failed
 * list). */
static int sqlite_commit(srv_store *store) {
  int err = store->n_moves > 0 ? srv_store__moves_flush(store) : 0;
  if (err != 0)
    return err; /* The batch is lost, and reported. */
  err = srv_store__check_files(store, true);
  if (err != 0) {
    srv_store__batch_lost(store); /* Its writes would go where no restart finds them. */
    return err;
  }
  int rc = srv_store__exec(store, STMT_COMMIT, NULL, 0);
  if (rc != SQLITE_OK) {
    err = srv_store__fail(store, rc, "commit failed");
    srv_store__batch_lost(store);
    return err;
  }
  for (size_t i = 0; i < store->n_ops; i++) {
    srv_store_op_kind k = store->ops[i].kind;
    store->stats.game_writes +=
        k == SRV_STORE_OP_GAME_START || k == SRV_STORE_OP_MOVE || k == SRV_STORE_OP_GAME_FINISH;
  }
  store->in_txn = false;
  store->stats.commits++;
  srv_store__note_wal(store);
  return 0;
}

static void note_commit_time(srv_store *store, uint64_t t0) {
  uint64_t dt = now_ns() - t0;
  store->stats.commit_ns_total += dt;
  if (dt > store->stats.commit_ns_max)
    store->stats.commit_ns_max = dt;
}

int srv_store__commit_report(srv_store *store, int err) {
  if (store->n_failed > 0 && !store->failed_reported) {
    /* Part of this turn was lost earlier (a write failed); the rest, if any, is durable. */
    if (err == 0)
      err = SRV_STORE_EIO;
    store->failed_reported = true;
    store->stats.failed_commits++;
  } else {
    failed_expire(store);
  }
  return err;
}

int srv_store_commit(srv_store *store) {
  if (store == NULL)
    return SRV_STORE_EINVAL;
  if (store->pg != NULL)
    return srv_store__pg_commit(store);
  int err = 0;
  if (store->in_txn) {
    uint64_t t0 = now_ns();
    err = sqlite_commit(store);
    if (err == 0 && store->syncer != NULL && (err = srv_store__sync_now(store)) != 0)
      srv_store__batch_lost(store); /* Committed, but not known to be on the disk. */
    if (err == 0)
      note_commit_time(store, t0);
    store->n_ops = 0;
  }
  return srv_store__commit_report(store, err);
}

int srv_store_commit_async(srv_store *store, struct uv_loop_s *loop, srv_store_commit_cb cb,
                           void *arg) {
  if (store == NULL || cb == NULL || loop == NULL)
    return SRV_STORE_EINVAL;
  if (store->pg != NULL)
    return srv_store__pg_commit_async(store, loop, cb, arg);
  if (store->syncer == NULL || !store->in_txn) {
    cb(arg, srv_store_commit(store));
    return 0;
  }
  if (srv_store__sync_busy(store))
    return SRV_STORE_EINVAL; /* One batch at a time. */
  /* COMMIT here (it writes the log), the log's sync on the syncer's thread: the loop serves
   * meanwhile, and cb runs when the batch is on the disk. */
  uint64_t t0 = now_ns();
  int err = sqlite_commit(store);
  if (err == 0) {
    err = srv_store__sync_hand(store, store->ops, store->n_ops, cb, arg, t0);
    if (err == 0) {
      store->n_ops = 0;
      return 0;
    }
    srv_store__batch_lost(store); /* Committed, but not known to be on the disk. */
  }
  store->n_ops = 0;
  cb(arg, srv_store__commit_report(store, err));
  return 0;
}

int srv_store_watch(srv_store *store, struct uv_loop_s *loop) {
  if (store == NULL || loop == NULL)
    return SRV_STORE_EINVAL;
  if (store->pg != NULL)
    return srv_store__pg_watch(store, loop);
  int rc = srv_store__ckpt_start(store, loop);
  if (rc == 0 && store->sync_full)
    rc = srv_store__sync_start(store, loop);
  return rc;
}

void srv_store_commit_wait(srv_store *store) {
  if (store == NULL)
    return;
  if (store->pg != NULL)
    srv_store__pg_commit_wait(store);
  else
    srv_store__sync_wait(store);
}

bool srv_store_commit_busy(const srv_store *store) {
  if (store == NULL)
    return false;
  return store->pg != NULL ? srv_store__pg_busy(store) : srv_store__sync_busy(store);
}

void srv_store_rollback(srv_store *store) {
  if (store == NULL)
    return;
  failed_expire(store);
  srv_store__batch_lost(store);
  store->failed_reported = true;
}

const srv_store_op *srv_store_failed(const srv_store *store, size_t *n) {
  if (store == NULL || store->n_failed == 0 || !store->failed_reported) {
    if (n)
      *n = 0;
    return NULL;
  }
  if (n)
    *n = store->n_failed;
  return store->failed;
}

void srv_store_get_stats(const srv_store *store, srv_store_stats *stats) {
  if (store && stats)
    *stats = store->stats;
}

srv_store_op srv_store__op(srv_store_op_kind kind, const char *key, int64_t game, int ply) {
  srv_store_op op = {.kind = kind, .game = game, .ply = ply}; /* The rest zero. */
  if (key != NULL) /* Cut to fit, as snprintf() would; one of these per write. */
    memcpy(op.key, key, strnlen(key, sizeof op.key - 1));
  return op;
}

int srv_store__write(srv_store *store, srv_store_op op, srv_store__stmt id,
                     const srv_store__val *args, size_t n, const char *what) {
  int rc = srv_store__write_begin(store);
  if (rc != 0)
    return rc;
  return srv_store__write_end(store, srv_store__exec(store, id, args, n), &op, what);
}
