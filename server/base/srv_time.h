/* Time and timers behind one small interface, so that room logic runs on libuv in the server
 * (srv_time_uv.h) and on a fake clock in the unit tests, and never includes <uv.h>.
 *
 * A srv_time is a table of functions plus their context. Timers are one-shot and owned by the
 * caller: create with srv_timer_new(), free with the table's timer_free (which also stops it).
 */
#ifndef SRV_TIME_H
#define SRV_TIME_H

#include <stdint.h>

typedef struct srv_timer srv_timer;
typedef void (*srv_timer_cb)(void *arg);

typedef struct srv_time {
  /* Monotonic milliseconds. */
  uint64_t (*now)(struct srv_time *t);
  /* Wall clock, Unix milliseconds (chat time stamps). */
  int64_t (*wall)(struct srv_time *t);
  /* Returns a new stopped timer that calls cb(arg), or NULL when memory runs out. */
  srv_timer *(*timer_new)(struct srv_time *t, srv_timer_cb cb, void *arg);
  /* (Re)starts timer to fire once after ms milliseconds. */
  void (*timer_start)(srv_timer *timer, uint64_t ms);
  void (*timer_stop)(srv_timer *timer);
  /* Stops and frees timer (NULL allowed). */
  void (*timer_free)(srv_timer *timer);
  void *data;
} srv_time;

static inline srv_timer *srv_timer_new(srv_time *t, srv_timer_cb cb, void *arg) {
  return t->timer_new(t, cb, arg);
}

#endif
