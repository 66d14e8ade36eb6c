/* The storage seam's reads (see srv_reader.h): SQLite's run at once, on the loop; a network
 * database's, once srv_reader_use_work() gave a thread pool, run there on a connection of the
 * reader's own, and answer on the loop. One job of a reader is on the pool at a time, the others
 * wait in the reader's own queue (in order), never on a pool thread: the pool's threads are the
 * computer's and the password checks' too. */
#include "srv_reader.h"

#include <stdlib.h>

#include "srv_error.h"

/* A job, waiting in the reader's queue or on the pool. */
typedef struct reader_job {
  struct srv_reader *r;
  srv_read_fn fn;
  srv_read_done done;
  void *arg;
  int rc;
  struct reader_job *next; /* The next one waiting. */
} reader_job;

struct srv_reader {
  srv_store *store;
  srv_store *own;          /* The pool's connection (a network database), or NULL: at once. */
  srv_work *work;          /* Where jobs run when own is set. */
  reader_job *head, *tail; /* The jobs waiting, oldest first. */
  bool running;            /* A job is on the pool (only the loop thread reads or writes it). */
};

srv_reader *srv_reader_new(srv_store *store) {
  srv_reader *r = calloc(1, sizeof *r);
  if (r == NULL)
    return NULL;
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
  /* No job may be in flight; those still waiting are answered as cancelled reads. */
  reader_job *j;
  while ((j = r->head) != NULL) {
    r->head = j->next;
    j->done(j->arg, SRV_STORE_EIO);
    free(j);
  }
  srv_store_close(r->own);
  free(r);
}

static void job_run(void *arg) {
  reader_job *j = arg;
  j->rc = j->fn(j->r->own, j->arg); /* Alone on own: the reader gives the pool one at a time. */
}

static void job_done(void *arg, bool cancelled);

/* Gives the oldest waiting job to the pool when none is there. A job the pool refuses is answered
 * at once (as a cancelled read) and the next one tried. */
static void pump(srv_reader *r) {
  while (!r->running && r->head != NULL) {
    reader_job *j = r->head;
    r->head = j->next;
    if (r->head == NULL)
      r->tail = NULL;
    r->running = true;
    if (r->work->queue(r->work, job_run, job_done, j) == 0)
      return;
    r->running = false;
    j->done(j->arg, SRV_STORE_EIO);
    free(j);
  }
}

static void job_done(void *arg, bool cancelled) {
  reader_job *j = arg;
  srv_reader *r = j->r;
  r->running = false;
  j->done(j->arg, cancelled ? SRV_STORE_EIO : j->rc);
  free(j);
  pump(r);
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
  *j = (reader_job){r, fn, done, arg, 0, NULL};
  if (r->tail != NULL)
    r->tail->next = j;
  else
    r->head = j;
  r->tail = j;
  if (!r->running)
    pump(r); /* The pool answers later; a job it refuses is answered at once, as SQLite's are. */
  return 0;
}

srv_store *srv_reader_store(const srv_reader *r) {
  return r->store;
}
