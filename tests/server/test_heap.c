/* The heap's free memory given back (srv_heap.h, issue 25 item 12): with the mmap threshold fixed,
 * a large block is mapped on its own again after one of its size was freed (glibc would otherwise
 * have raised the threshold past it and served it from the heap); a release below its bound does
 * nothing; the trimmer runs on its timer. No figure of memory is asserted: only what the
 * allocator says it did with each block. Under a sanitizer (its own allocator) the calls say
 * unsupported, and that is what is checked. */
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "srv_error.h"
#include "srv_heap.h"

TEST_IMPL(threshold_stays_fixed) {
  srv_heap_stats s0, s1;
  if (srv_heap_init(SRV_HEAP_MMAP_THRESHOLD) == SRV_EUNSUPPORTED) {
    ASSERT_EQ(srv_heap_stats_get(&s0), SRV_EUNSUPPORTED);
    ASSERT_EQ(s0.free_bytes, 0);
    ASSERT_EQ(srv_heap_release(0, NULL), SRV_EUNSUPPORTED);
    return 0;
  }
  ASSERT_EQ(srv_heap_init(0), SRV_EUNSUPPORTED); /* No threshold of 0. */
  for (int round = 0; round < 3; round++) {
    ASSERT_EQ(srv_heap_stats_get(&s0), 0);
    volatile char *p = malloc(1 << 20); /* A lobby list's size, and more. */
    ASSERT_NOT_NULL(p);
    p[0] = 1;
    ASSERT_EQ(srv_heap_stats_get(&s1), 0);
    /* Mapped on its own every round: the first free did not raise the threshold. */
    ASSERT_EQ(s1.mapped_blocks, s0.mapped_blocks + 1);
    ASSERT(s1.mapped_bytes >= s0.mapped_bytes + (1 << 20));
    free((void *)p);
    ASSERT_EQ(srv_heap_stats_get(&s1), 0);
    ASSERT_EQ(s1.mapped_blocks, s0.mapped_blocks);
  }
  /* Below the bound, nothing; above it, a trim. */
  size_t seen = 0;
  ASSERT_EQ(srv_heap_release(SIZE_MAX, &seen), 0);
  ASSERT_EQ(srv_heap_stats_get(&s0), 0);
  ASSERT_EQ(seen, s0.free_bytes);
  /* Small blocks freed leave free memory inside the heap; a bound of 0 trims it. */
  void *small[1000];
  for (int i = 0; i < 1000; i++)
    ASSERT_NOT_NULL(small[i] = malloc(1000));
  for (int i = 0; i < 1000; i++)
    free(small[i]);
  ASSERT_EQ(srv_heap_release(0, &seen), 1);
  ASSERT(seen > 0);
  return 0;
}

TEST_IMPL(trimmer_runs_on_its_timer) {
  fake_time ft;
  fake_init(&ft);
  bool supported = srv_heap_init(SRV_HEAP_MMAP_THRESHOLD) == 0;
  srv_heap_trimmer *t = srv_heap_trimmer_new(&ft.base, 1000, 0);
  ASSERT_NOT_NULL(t);
  ASSERT_NULL(srv_heap_trimmer_new(&ft.base, 0, 0)); /* A period of 0 is refused. */
  ASSERT_EQ(srv_heap_trimmer_trims(t), 0);
  fake_advance(&ft, 999);
  ASSERT_EQ(srv_heap_trimmer_trims(t), 0);
  fake_advance(&ft, 1);
  /* A bound of 0: any free byte is worth a trim (the test's own frees leave some). */
  ASSERT_EQ(srv_heap_trimmer_trims(t), supported ? 1 : 0);
  fake_advance(&ft, 2000);
  ASSERT_EQ(srv_heap_trimmer_trims(t), supported ? 3 : 0); /* Again, every period. */
  srv_heap_trimmer_free(t);
  srv_heap_trimmer_free(NULL);
  /* A bound nothing reaches: the timer runs, nothing is trimmed. */
  t = srv_heap_trimmer_new(&ft.base, 1000, SIZE_MAX);
  ASSERT_NOT_NULL(t);
  fake_advance(&ft, 5000);
  ASSERT_EQ(srv_heap_trimmer_trims(t), 0);
  srv_heap_trimmer_free(t);
  return 0;
}
