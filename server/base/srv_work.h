/* Work off the loop thread, behind one small interface (like srv_time.h): the server runs it on
 * libuv's thread pool (srv_work_uv.h), the unit tests when they choose, so that they can close a
 * connection while its work is in flight.
 *
 * The work function runs on another thread and touches nothing but its argument; the done
 * function runs later on the loop thread, where the result is applied. Every queued work gets
 * exactly one done call, also when it is cancelled (then the work function may not have run).
 */
#ifndef SRV_WORK_H
#define SRV_WORK_H

#include <stdbool.h>

typedef void (*srv_work_fn)(void *arg);
typedef void (*srv_work_done_fn)(void *arg, bool cancelled);

typedef struct srv_work {
  /* Queues work(arg), then done(arg, cancelled) on the loop thread. Returns 0, or a negative
   * SRV_E* code (nothing queued, done is never called). */
  int (*queue)(struct srv_work *w, srv_work_fn work, srv_work_done_fn done, void *arg);
  void *data;
} srv_work;

#endif
