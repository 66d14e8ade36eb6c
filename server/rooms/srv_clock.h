/* Fischer chess clocks for two seats: pure arithmetic on millisecond time stamps, no timers.
 *
 * The room that owns a clock arms one timer for srv_clock_until_flag() whenever a clock runs; the
 * flag falls when that timer fires, even if nobody sends anything.
 */
#ifndef SRV_CLOCK_H
#define SRV_CLOCK_H

#include <stdint.h>

typedef struct srv_clock {
  int64_t left_ms[2];   /* Time left per seat, as of `since` for the running seat. */
  int64_t increment_ms; /* Added to the mover's clock after each accepted move. */
  int running;          /* The seat whose clock runs, or -1. */
  uint64_t since;       /* Monotonic ms when the running clock was last started. */
} srv_clock;

/* Sets both clocks to initial_ms, stopped. */
void srv_clock_init(srv_clock *c, int64_t initial_ms, int64_t increment_ms);

/* Starts seat's clock at now (stopping the other one first, charging it). */
void srv_clock_start(srv_clock *c, int seat, uint64_t now);

/* Stops the running clock at now, charging the elapsed time; no-op when stopped. */
void srv_clock_stop(srv_clock *c, uint64_t now);

/* Returns seat's time left at now (never negative). */
int64_t srv_clock_left(const srv_clock *c, int seat, uint64_t now);

/* Returns nonzero when the running seat has no time left at now. */
int srv_clock_flagged(const srv_clock *c, uint64_t now);

/* The running seat made a move at now: charges the elapsed time, adds the increment, and starts
 * the clock of next (-1: leave both stopped). Call only when not flagged. */
void srv_clock_moved(srv_clock *c, int next, uint64_t now);

/* Returns the milliseconds until the running seat's flag falls, or -1 when no clock runs. */
int64_t srv_clock_until_flag(const srv_clock *c, uint64_t now);

#endif
