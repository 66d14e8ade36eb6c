/* A latency histogram: see lg_hist.h. */
#include "lg_hist.h"

#include <string.h>

/* The bucket of v: v itself below 128, else 128 + 64 * (msb - 7) + the next 6 bits. */
static unsigned bucket_of(uint64_t v) {
  if (v < 128)
    return (unsigned)v;
  unsigned msb = 63u - (unsigned)__builtin_clzll(v);
  unsigned shift = msb - 6;
  return 128u + 64u * (msb - 7) + (unsigned)((v >> shift) - 64);
}

/* The largest value that falls in bucket b. */
static uint64_t bucket_top(unsigned b) {
  if (b < 128)
    return b;
  unsigned msb = 7 + (b - 128) / 64;
  uint64_t sub = 64 + (b - 128) % 64;
  unsigned shift = msb - 6;
  return ((sub + 1) << shift) - 1;
}

void lg_hist_reset(lg_hist *h) {
  memset(h, 0, sizeof *h);
}

void lg_hist_add(lg_hist *h, uint64_t v) {
  unsigned b = bucket_of(v);
  if (b >= LG_HIST_BUCKETS)
    b = LG_HIST_BUCKETS - 1;
  h->buckets[b]++;
  if (h->count == 0 || v < h->min)
    h->min = v;
  if (v > h->max)
    h->max = v;
  h->count++;
  h->sum += v;
}

uint64_t lg_hist_quantile(const lg_hist *h, double q) {
  if (h->count == 0)
    return 0;
  if (q >= 1.0)
    return h->max;
  /* The rank of the value asked for, 1-based: at least one value. */
  uint64_t rank = (uint64_t)(q * (double)h->count);
  if ((double)rank < q * (double)h->count || rank == 0)
    rank++;
  uint64_t seen = 0;
  for (unsigned b = 0; b < LG_HIST_BUCKETS; b++) {
    seen += h->buckets[b];
    if (seen >= rank) {
      uint64_t top = bucket_top(b);
      return top < h->max ? top : h->max;
    }
  }
  return h->max;
}
