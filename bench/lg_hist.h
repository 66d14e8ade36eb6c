/* A latency histogram in the manner of HdrHistogram: fixed memory, constant-time recording, and
 * a relative error of at most 1/64 (1.6%) for any value, from 1 microsecond to hours.
 *
 * Values below 128 have a bucket each; above, every power of two is cut into 64 equal buckets.
 * Percentiles are reported as the upper edge of the bucket that holds them (never below the true
 * value), and the exact minimum, maximum and mean are kept beside the buckets.
 */
#ifndef LG_HIST_H
#define LG_HIST_H

#include <stdint.h>

#define LG_HIST_BUCKETS (128 + 57 * 64)

typedef struct lg_hist {
  uint64_t count, sum, min, max;
  uint64_t buckets[LG_HIST_BUCKETS];
} lg_hist;

/* Empties h. */
void lg_hist_reset(lg_hist *h);

/* Records one value (any unit; the load generator uses microseconds). */
void lg_hist_add(lg_hist *h, uint64_t v);

/* Returns the value at fraction q (0..1) of the recorded values: the smallest bucket edge with at
 * least q of the values at or below it (the exact maximum for q = 1). 0 when h is empty. */
uint64_t lg_hist_quantile(const lg_hist *h, double q);

#endif
