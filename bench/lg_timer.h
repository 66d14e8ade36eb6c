/* One-shot timers for many objects on one libuv timer: a binary min-heap of deadlines.
 *
 * The load generator has a timer per connection (its start in the ramp, its think time, its
 * reconnect). Ten thousand uv_timer_t would work, but each needs a uv_close() and its callback
 * before the memory around it may go; an lg_timer is a plain field that is disarmed by a call.
 * The heap's storage is sized once (lg_timers_init), so arming never allocates or fails.
 */
#ifndef LG_TIMER_H
#define LG_TIMER_H

#include <stddef.h>
#include <stdint.h>

/* A timer, embedded in its owner (find the owner from it by its offset). */
typedef struct lg_timer {
  uint64_t due; /* Deadline, in the clock the caller uses (the load generator: uv_hrtime() ns). */
  size_t pos;   /* 1 + its index in the heap while armed, 0 when not. */
} lg_timer;

typedef struct lg_timers {
  lg_timer **heap;
  size_t n, cap;
} lg_timers;

/* Prepares t for at most cap armed timers at once. Returns 0, or -1 when memory runs out. */
int lg_timers_init(lg_timers *t, size_t cap);

/* Frees the heap's storage; the timers themselves belong to their owners. */
void lg_timers_free(lg_timers *t);

/* Arms e to fire at due, or moves it there when it is armed already. Returns -1, doing nothing,
 * when cap timers are armed already (a caller's bug), else 0. */
int lg_timers_arm(lg_timers *t, lg_timer *e, uint64_t due);

/* Disarms e; nothing when it is not armed. */
void lg_timers_disarm(lg_timers *t, lg_timer *e);

/* Returns the timer that fires first (borrowed; still armed), or NULL when none is armed. */
lg_timer *lg_timers_first(const lg_timers *t);

/* Returns nonzero when e is armed. */
int lg_timer_armed(const lg_timer *e);

#endif
