/* Perft: counting move sequences from the start position, to test and time the engine.
 *
 * Every move is made, the last ply included (no counting shortcuts). An extra turn is a move of its
 * own; a finished game (repetition included) has no moves.
 */
#ifndef MC_PERFT_H
#define MC_PERFT_H

#include <stdint.h>

#include "mc_rules.h"

/* Fills counts[0..depth-1]: counts[d-1] is the number of sequences of exactly d moves from the
 * start position of rules. When ends is not NULL, ends[d-1] receives how many of those sequences
 * end the game with their last move. Returns 0, or MC_EINVAL for bad rules, NULL counts or a depth
 * outside 1..64 (outputs untouched). */
int mc_perft(const mc_rules *rules, unsigned depth, uint64_t *counts, uint64_t *ends);

#endif
