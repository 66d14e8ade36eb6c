/* The marks of an analysed game (mc_analysis.h): what each move lost against the best one, its
 * mark, and each player's accuracy. Pure: no I/O, no allocation.
 *
 * A move's loss is the value of the best move less the value of the move played, for the mover,
 * in seeds (mc_search.h values are hundredths of a seed). Marks, by the loss:
 *
 *   best         nothing lost (the move played is the best, or as good as it)
 *   good         at most SRV_MARK_GOOD_SEEDS seeds
 *   inaccuracy   at most SRV_MARK_INACCURACY_SEEDS
 *   mistake      at most SRV_MARK_MISTAKE_SEEDS
 *   blunder      more
 *
 * and, where both values are proven (exact), a move that gives away the result is at least a
 * mistake: a won position left for a drawn or lost one, or a drawn one for a lost one. A Kalah
 * 6x4 game shares 48 seeds: a seed or two is a margin, four a swing, seven usually the game.
 * A move whose value the analysis did not find within its budget has no mark.
 *
 * A player's accuracy in a game is the share of its marked moves marked best or good, in percent
 * (no marked move: none).
 */
#ifndef SRV_MARKS_H
#define SRV_MARKS_H

#include <stdbool.h>
#include <stddef.h>

#include "mc_analysis.h"

#define SRV_MARK_GOOD_SEEDS 1
#define SRV_MARK_INACCURACY_SEEDS 3
#define SRV_MARK_MISTAKE_SEEDS 6

typedef enum srv_mark {
  SRV_MARK_NONE = 0, /* Not valued within the budget. */
  SRV_MARK_BEST,
  SRV_MARK_GOOD,
  SRV_MARK_INACCURACY,
  SRV_MARK_MISTAKE,
  SRV_MARK_BLUNDER
} srv_mark;

/* The mark of a move whose best value was best_value and whose own played_value (for the mover,
 * hundredths of a seed), each proven or not (best_exact, played_exact). */
srv_mark srv_mark_of(int best_value, bool best_exact, int played_value, bool played_exact);

/* The mark of ply e (SRV_MARK_NONE when its value was not found). */
srv_mark srv_mark_ply(const mc_ply_eval *e);

/* The mark's name ("best", "good", "inaccuracy", "mistake", "blunder"; NULL for none). */
const char *srv_mark_name(srv_mark mark);

/* The accuracy of seat (mc_seat) over plies[0..n) into *out, percent: false when that seat has no
 * marked move. */
bool srv_marks_accuracy(const mc_ply_eval *plies, size_t n, int seat, double *out);

#endif
