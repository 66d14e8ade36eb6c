/* The heap's free memory given back to the system (see srv_heap.h). */
#include "srv_heap.h"

#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_log.h"

/* A sanitizer's allocator is its own: glibc's settings would change nothing it uses. */
#if defined(__SANITIZE_ADDRESS__)
#define HEAP_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define HEAP_SANITIZER 1
#endif
#endif

#if defined(__GLIBC__) && !defined(HEAP_SANITIZER)
#include <malloc.h>
#define HEAP_GLIBC 1
#else
#define HEAP_GLIBC 0
#endif

int srv_heap_init(size_t bytes) {
#if HEAP_GLIBC
  if (bytes == 0 || bytes > (size_t)32 << 20)
    return SRV_EUNSUPPORTED;
  /* Setting it (glibc's mp_.no_dyn_threshold) is what stops it rising. It also stops the trim
   * threshold's rise (glibc keeps it at twice the mmap threshold): at 128 KiB every free() that
   * leaves that much at the heap's top gave it back and the next turn took it again (brk twice a
   * turn: 9% of a move's CPU in pair mode). The trim threshold is set high instead: the trimmer
   * (below) gives the heap's free memory back when there is much of it. */
  if (mallopt(M_MMAP_THRESHOLD, (int)bytes) != 1)
    return SRV_EUNSUPPORTED;
  return mallopt(M_TRIM_THRESHOLD, (int)SRV_HEAP_TRIM_THRESHOLD) == 1 ? 0 : SRV_EUNSUPPORTED;
#else
  (void)bytes;
  return SRV_EUNSUPPORTED;
#endif
}

int srv_heap_stats_get(srv_heap_stats *out) {
  memset(out, 0, sizeof *out);
#if HEAP_GLIBC
  struct mallinfo2 mi = mallinfo2();
  out->free_bytes = mi.fordblks + mi.fsmblks;
  out->in_use_bytes = mi.uordblks + mi.hblkhd;
  out->mapped_bytes = mi.hblkhd;
  out->mapped_blocks = mi.hblks;
  return 0;
#else
  return SRV_EUNSUPPORTED;
#endif
}

int srv_heap_release(size_t min_free, size_t *freed) {
  srv_heap_stats s;
  int rc = srv_heap_stats_get(&s);
  if (freed != NULL)
    *freed = s.free_bytes;
  if (rc != 0)
    return rc;
  if (s.free_bytes <= min_free)
    return 0;
#if HEAP_GLIBC
  (void)malloc_trim(0);
#endif
  return 1;
}

struct srv_heap_trimmer {
  srv_time *time;
  srv_timer *timer;
  uint64_t period_ms;
  size_t min_free;
  unsigned long trims;
};

static void on_trim(void *arg) {
  srv_heap_trimmer *t = arg;
  size_t freed = 0;
  uint64_t t0 = t->time->now(t->time);
  int rc = srv_heap_release(t->min_free, &freed);
  if (rc == 1) {
    t->trims++;
    srv_log_info("heap", "%zu MiB free in the heap given back to the system (%llu ms)", freed >> 20,
                 (unsigned long long)(t->time->now(t->time) - t0));
  }
  if (rc >= 0) /* Unsupported: once is enough to know. */
    t->time->timer_start(t->timer, t->period_ms);
}

srv_heap_trimmer *srv_heap_trimmer_new(srv_time *time, uint64_t period_ms, size_t min_free) {
  if (time == NULL || period_ms == 0)
    return NULL;
  srv_heap_trimmer *t = calloc(1, sizeof *t);
  if (t == NULL)
    return NULL;
  t->time = time;
  t->period_ms = period_ms;
  t->min_free = min_free;
  t->timer = srv_timer_new(time, on_trim, t);
  if (t->timer == NULL) {
    free(t);
    return NULL;
  }
  time->timer_start(t->timer, period_ms);
  return t;
}

unsigned long srv_heap_trimmer_trims(const srv_heap_trimmer *t) {
  return t->trims;
}

void srv_heap_trimmer_free(srv_heap_trimmer *t) {
  if (t == NULL)
    return;
  t->time->timer_free(t->timer);
  free(t);
}
