/* Exact values of small Oware boards: retrograde analysis over the position graph, then a search
 * with the full repetition history where the graph alone does not decide.
 *
 * Oware's rule 6 (a position occurring a third time ends the game, each side taking the seeds of
 * its own houses) makes the value of a position depend on the game before it, so no table of
 * positions can hold it for every history. What can be computed over the graph of every position
 * reachable from the start (both sides to move, every split of the stores):
 *
 *   1. Bounds valid for every history: value iteration from [-total, +total], each move worth
 *      its end of game, or its child's bounds negated, or (a move that stays in its repetition
 *      window) the repetition end at the child, which any history may bring. Where the bounds
 *      meet, the value is the same whatever came before ("forced").
 *   2. The value with no history, at the start and after every capture (the window starts
 *      afresh: stores only grow, so no earlier position can come back): null-window tests at the
 *      start (is the value at least t?) that bisect its bounds, each a depth-first alpha-beta
 *      search that carries the window's positions and applies rule 6 exactly as mc_game.h does,
 *      taking the bounds of step 1 at every node (a node whose bounds meet ends the line there)
 *      and keeping bounds of every capture child's value (a new start: one value, whatever led
 *      to it); transpositions are keyed by the position and its window's counts.
 *
 * The result is exact when step 2 finishes within its node budget; otherwise the bounds of step 1
 * at the start are reported. Memory: a few dozen bytes per reachable position.
 */
#ifndef MC_RETRO_H
#define MC_RETRO_H

#include <stdbool.h>
#include <stdint.h>

#include "mc_rules.h"

typedef struct mc_retro_result {
  bool exact;          /* The value is proven. */
  int value;           /* Exact: South's final store difference from the start with best play. */
  int lo, hi;          /* Bounds at the start that hold in any case (lo == hi when exact). */
  int best;            /* Exact: a best first move (house 1..m). */
  uint64_t positions;  /* Positions reachable from the start (both sides to move). */
  uint64_t components; /* Strongly connected components of the graph of moves. */
  uint64_t largest;    /* Positions in the largest of them. */
  uint64_t forced;     /* Of those, positions whose value is the same for every history. */
  int sweeps;          /* Passes of the value iteration until nothing changed. */
  uint64_t nodes;      /* Nodes of the history search. */
  uint64_t starts;     /* Window starts (the start and capture children) solved by it. */
} mc_retro_result;

/* Solves rules' start position (Oware only, every grand slam option). max_positions caps the
 * reachable positions (0: 4 million, about 400 MB), max_nodes the history search (0: no limit).
 * Returns 0 and fills *out (exact or bounds); MC_EINVAL (not Oware, bad rules, NULL); MC_ELIMIT
 * (more positions than max_positions: nothing solved); MC_ENOMEM. */
int mc_retro_solve(const mc_rules *rules, uint64_t max_positions, uint64_t max_nodes,
                   mc_retro_result *out);

#endif
