/* Time and timers behind one small interface, so that room logic runs on libuv in the server and on
 * a fake clock in the unit tests.
 *
 * A srv_time is a table of functions plus their context. Timers are one-shot and owned by the
 * caller: create with srv_timer_new(), free with srv_timer_free() (which also stops it).
 */
#ifndef SRV_TIME_H
#define SRV_TIME_H

#include <stdint.h>

#include <uv.h>

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

/* Initialises *t as the libuv time source of loop (borrowed; it must outlive every timer). Its
 * timers are uv_timer_t handles; srv_timer_free() closes them asynchronously. */
void srv_time_init_uv(srv_time *t, uv_loop_t *loop);

/* Returns how many timers of the libuv source are still allocated (freed ones finish closing on the
 * next loop iteration). */
int srv_time_uv_live(void);

/* Every uv handle the server itself owns has this as its data pointer, so that shutdown can tell
 * its own handles from those of libwebsockets. */
extern char srv_own_tag;
#define SRV_OWN_TAG ((void *)&srv_own_tag)
#endif
