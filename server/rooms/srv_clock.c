/* Fischer clock arithmetic. */
#include "srv_clock.h"

void srv_clock_init(srv_clock *c, int64_t initial_ms, int64_t increment_ms) {
  c->left_ms[0] = c->left_ms[1] = initial_ms;
  c->increment_ms = increment_ms;
  c->running = -1;
  c->since = 0;
}

void srv_clock_stop(srv_clock *c, uint64_t now) {
  if (c->running < 0)
    return;
  c->left_ms[c->running] -= (int64_t)(now - c->since);
  if (c->left_ms[c->running] < 0)
    c->left_ms[c->running] = 0;
  c->running = -1;
}

void srv_clock_start(srv_clock *c, int seat, uint64_t now) {
  srv_clock_stop(c, now);
  c->running = seat;
  c->since = now;
}

int64_t srv_clock_left(const srv_clock *c, int seat, uint64_t now) {
  int64_t left = c->left_ms[seat];
  if (seat == c->running)
    left -= (int64_t)(now - c->since);
  return left < 0 ? 0 : left;
}

int srv_clock_flagged(const srv_clock *c, uint64_t now) {
  return c->running >= 0 && srv_clock_left(c, c->running, now) <= 0;
}

void srv_clock_moved(srv_clock *c, int next, uint64_t now) {
  int mover = c->running;
  srv_clock_stop(c, now);
  if (mover >= 0)
    c->left_ms[mover] += c->increment_ms;
  if (next >= 0) {
    c->running = next;
    c->since = now;
  }
}

int64_t srv_clock_until_flag(const srv_clock *c, uint64_t now) {
  if (c->running < 0)
    return -1;
  return srv_clock_left(c, c->running, now);
}
