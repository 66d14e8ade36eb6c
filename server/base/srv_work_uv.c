/* srv_work on libuv's thread pool (see srv_work_uv.h). */
#include "srv_work_uv.h"

#include <stdlib.h>

#include "srv_error.h"

typedef struct uv_job {
  uv_work_t req;
  srv_work_fn work;
  srv_work_done_fn done;
  void *arg;
} uv_job;

static void on_work(uv_work_t *req) {
  uv_job *j = req->data;
  j->work(j->arg);
}

static void on_after(uv_work_t *req, int status) {
  uv_job *j = req->data;
  j->done(j->arg, status == UV_ECANCELED);
  free(j);
}

static int queue_uv(srv_work *w, srv_work_fn work, srv_work_done_fn done, void *arg) {
  uv_job *j = calloc(1, sizeof *j);
  if (j == NULL)
    return SRV_ENOMEM;
  j->work = work;
  j->done = done;
  j->arg = arg;
  j->req.data = j;
  if (uv_queue_work(w->data, &j->req, on_work, on_after) != 0) {
    free(j);
    return SRV_EINTERNAL;
  }
  return 0;
}

void srv_work_init_uv(srv_work *w, uv_loop_t *loop) {
  w->queue = queue_uv;
  w->data = loop;
}
