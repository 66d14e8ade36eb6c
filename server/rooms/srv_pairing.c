/* Quick pairing's choice (see srv_pairing.h). */
#include "srv_pairing.h"

#include <math.h>

int srv_pair_choose(double rating, const srv_pair_candidate *c, size_t n) {
  int closest = -1;
  double best = 0;
  for (size_t i = 0; i < n; i++) {
    double gap = fabs(c[i].rating - rating);
    double range = SRV_PAIR_RANGE_MIN + SRV_PAIR_RANGE_PER_S * (double)c[i].waited_ms / 1000.0;
    if (range > SRV_PAIR_RANGE_MAX)
      range = SRV_PAIR_RANGE_MAX;
    if (gap <= range)
      return (int)i;
    if (closest < 0 || gap < best) {
      closest = (int)i;
      best = gap;
    }
  }
  return closest;
}
