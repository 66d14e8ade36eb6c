/* The storage seam's reads (see srv_reader.h): SQLite's run at once, on the loop; a network
 * database's, once srv_reader_use_work() gave a thread pool, run there on a connection of the
 * reader's own, one at a time, and answer on the loop. */
#include "srv_reader.h"

#include <pthread.h>
#include <stdlib.h>

#include "srv_error.h"

struct srv_reader {
  srv_store *store;
  srv_store *own;       /* The pool's connection (a network database), or NULL: at once. */
  srv_work *work;       /* Where jobs run when own is set. */
  pthread_mutex_t lock; /* One job at a time on own (the pool has several threads). */
};

/* A job on the pool. */
typedef struct reader_job {
  srv_reader *r;
  srv_read_fn fn;
  srv_read_done done;
  void *arg;
  int rc;
} reader_job;

srv_reader *srv_reader_new(srv_store *store) {
  srv_reader *r = calloc(1, sizeof *r);
  if (r == NULL)
    return NULL;
  if (pthread_mutex_init(&r->lock, NULL) != 0) {
    free(r);
    return NULL;
  }
  r->store = store;
  return r;
}

int srv_reader_use_work(srv_reader *r, srv_work *work) {
  if (r == NULL || work == NULL)
    return SRV_EINTERNAL;
  if (!srv_store_is_network(r->store) || r->own != NULL)
    return 0; /* SQLite's reads are local: at once stays best. */
  int rc = srv_store_open_reader(r->store, &r->own);
  if (rc != 0)
    return SRV_ESTORAGE;
  r->work = work;
  return 0;
}

void srv_reader_free(srv_reader *r) {
  if (r == NULL)
    return;
  srv_store_close(r->own);
  pthread_mutex_destroy(&r->lock);
  free(r);
}

static void job_run(void *arg) {
  reader_job *j = arg;
  pthread_mutex_lock(&j->r->lock);
  j->rc = j->fn(j->r->own, j->arg);
  pthread_mutex_unlock(&j->r->lock);
}

static void job_done(void *arg, bool cancelled) {
  reader_job *j = arg;
  j->done(j->arg, cancelled ? SRV_STORE_EIO : j->rc);
  free(j);
}

int srv_reader_read(srv_reader *r, srv_read_fn fn, srv_read_done done, void *arg) {
  if (r == NULL || fn == NULL || done == NULL)
    return SRV_EINTERNAL;
  if (r->own == NULL) {
    done(arg, fn(r->store, arg));
    return 0;
  }
  reader_job *j = malloc(sizeof *j);
  if (j == NULL)
    return SRV_ENOMEM;
  *j = (reader_job){r, fn, done, arg, 0};
  int rc = r->work->queue(r->work, job_run, job_done, j);
  if (rc != 0)
    free(j);
  return rc;
}

srv_store *srv_reader_store(const srv_reader *r) {
  return r->store;
}
