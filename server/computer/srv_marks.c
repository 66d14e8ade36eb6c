/* The marks of an analysed game (see srv_marks.h). */
#include "srv_marks.h"

#include "mc_eval.h"

srv_mark srv_mark_of(int best_value, bool best_exact, int played_value, bool played_exact) {
  int lost = best_value - played_value;
  srv_mark m;
  if (lost <= 0)
    m = SRV_MARK_BEST;
  else if (lost <= SRV_MARK_GOOD_SEEDS * MC_SEED)
    m = SRV_MARK_GOOD;
  else if (lost <= SRV_MARK_INACCURACY_SEEDS * MC_SEED)
    m = SRV_MARK_INACCURACY;
  else if (lost <= SRV_MARK_MISTAKE_SEEDS * MC_SEED)
    m = SRV_MARK_MISTAKE;
  else
    m = SRV_MARK_BLUNDER;
  /* The result given away, proven on both sides. */
  bool thrown = (best_value > 0 && played_value <= 0) || (best_value == 0 && played_value < 0);
  if (best_exact && played_exact && thrown && m < SRV_MARK_MISTAKE)
    m = SRV_MARK_MISTAKE;
  return m;
}

srv_mark srv_mark_ply(const mc_ply_eval *e) {
  if (!e->played_known)
    return SRV_MARK_NONE;
  if (e->played == e->best)
    return SRV_MARK_BEST;
  return srv_mark_of(e->value, e->exact, e->played_value, e->played_exact);
}

const char *srv_mark_name(srv_mark mark) {
  static const char *const names[] = {NULL, "best", "good", "inaccuracy", "mistake", "blunder"};
  return mark >= SRV_MARK_NONE && mark <= SRV_MARK_BLUNDER ? names[mark] : NULL;
}

bool srv_marks_accuracy(const mc_ply_eval *plies, size_t n, int seat, double *out) {
  size_t marked = 0, good = 0;
  for (size_t i = 0; i < n; i++) {
    if (plies[i].mover != seat)
      continue;
    srv_mark m = srv_mark_ply(&plies[i]);
    if (m == SRV_MARK_NONE)
      continue;
    marked++;
    good += m == SRV_MARK_BEST || m == SRV_MARK_GOOD;
  }
  if (marked == 0)
    return false;
  *out = 100.0 * (double)good / (double)marked;
  return true;
}
