/* The libuv time source: monotonic time from uv_hrtime(), timers on uv_timer_t. */
#include "srv_time_uv.h"

#include <stdlib.h>
#include <time.h>

struct srv_timer {
  uv_timer_t handle; /* First member: the handle pointer is the timer pointer. */
  srv_timer_cb cb;
  void *arg;
};

char srv_own_tag;

static int live_timers;

static uint64_t uv_now_ms(srv_time *t) {
  (void)t;
  return uv_hrtime() / 1000000u;
}

static int64_t uv_wall_ms(srv_time *t) {
  (void)t;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void on_uv_timer(uv_timer_t *handle) {
  srv_timer *timer = (srv_timer *)handle;
  timer->cb(timer->arg);
}

static srv_timer *uv_timer_new(srv_time *t, srv_timer_cb cb, void *arg) {
  srv_timer *timer = calloc(1, sizeof *timer);
  if (timer == NULL)
    return NULL;
  if (uv_timer_init((uv_loop_t *)t->data, &timer->handle) != 0) {
    free(timer);
    return NULL;
  }
  timer->handle.data = SRV_OWN_TAG;
  timer->cb = cb;
  timer->arg = arg;
  live_timers++;
  return timer;
}

static void uv_timer_start_ms(srv_timer *timer, uint64_t ms) {
  /* uv_timer_start() only fails for a closing handle or a NULL callback, neither possible here. */
  (void)uv_timer_start(&timer->handle, on_uv_timer, ms, 0);
}

static void uv_timer_stop_ms(srv_timer *timer) {
  (void)uv_timer_stop(&timer->handle);
}

static void on_timer_closed(uv_handle_t *handle) {
  live_timers--;
  free(handle);
}

static void uv_timer_free_ms(srv_timer *timer) {
  if (timer == NULL)
    return;
  uv_close((uv_handle_t *)&timer->handle, on_timer_closed);
}

void srv_time_init_uv(srv_time *t, uv_loop_t *loop) {
  t->now = uv_now_ms;
  t->wall = uv_wall_ms;
  t->timer_new = uv_timer_new;
  t->timer_start = uv_timer_start_ms;
  t->timer_stop = uv_timer_stop_ms;
  t->timer_free = uv_timer_free_ms;
  t->data = loop;
}

int srv_time_uv_live(void) {
  return live_timers;
}
