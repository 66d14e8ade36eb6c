/* srv_work on libuv's thread pool (uv_queue_work()). */
#ifndef SRV_WORK_UV_H
#define SRV_WORK_UV_H

#include <uv.h>

#include "srv_work.h"

/* Fills *w to queue work on loop (borrowed; it must outlive every queued work). Work in flight
 * keeps uv_run() going until its done call has run. */
void srv_work_init_uv(srv_work *w, uv_loop_t *loop);

#endif
