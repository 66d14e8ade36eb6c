/* One-shot timers on a binary min-heap: see lg_timer.h. */
#include "lg_timer.h"

#include <stdlib.h>

int lg_timers_init(lg_timers *t, size_t cap) {
  t->n = 0;
  t->cap = cap;
  t->heap = calloc(cap > 0 ? cap : 1, sizeof *t->heap);
  return t->heap != NULL ? 0 : -1;
}

void lg_timers_free(lg_timers *t) {
  free(t->heap);
  t->heap = NULL;
  t->n = t->cap = 0;
}

static void place(lg_timers *t, size_t i, lg_timer *e) {
  t->heap[i] = e;
  e->pos = i + 1;
}

static void sift_up(lg_timers *t, size_t i) {
  lg_timer *e = t->heap[i];
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (t->heap[parent]->due <= e->due)
      break;
    place(t, i, t->heap[parent]);
    i = parent;
  }
  place(t, i, e);
}

static void sift_down(lg_timers *t, size_t i) {
  lg_timer *e = t->heap[i];
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= t->n)
      break;
    if (child + 1 < t->n && t->heap[child + 1]->due < t->heap[child]->due)
      child++;
    if (e->due <= t->heap[child]->due)
      break;
    place(t, i, t->heap[child]);
    i = child;
  }
  place(t, i, e);
}

int lg_timers_arm(lg_timers *t, lg_timer *e, uint64_t due) {
  if (e->pos != 0) {
    size_t i = e->pos - 1;
    uint64_t old = e->due;
    e->due = due;
    if (due < old)
      sift_up(t, i);
    else
      sift_down(t, i);
    return 0;
  }
  if (t->n == t->cap)
    return -1;
  e->due = due;
  place(t, t->n, e);
  t->n++;
  sift_up(t, t->n - 1);
  return 0;
}

void lg_timers_disarm(lg_timers *t, lg_timer *e) {
  if (e->pos == 0)
    return;
  size_t i = e->pos - 1;
  e->pos = 0;
  t->n--;
  if (i == t->n)
    return;
  lg_timer *last = t->heap[t->n];
  place(t, i, last);
  sift_down(t, i);
  sift_up(t, last->pos - 1);
}

lg_timer *lg_timers_first(const lg_timers *t) {
  return t->n > 0 ? t->heap[0] : NULL;
}

int lg_timer_armed(const lg_timer *e) {
  return e->pos != 0;
}
