/* Solver: the perfect-play value of a position and a principal line to the end of the game.
 *
 * The solver is the search (mc_search.h) at full strength without a depth limit: iterative
 * deepening until the value at the root is proven. The line is then found move by move, each
 * position solved again (cheap: the table holds the proofs), until the game ends.
 */
#ifndef MC_SOLVE_H
#define MC_SOLVE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mc_pos.h"
#include "mc_rules.h"
#include "mc_search.h"

/* Longest principal line reported. */
#define MC_SOLVE_LINE_MAX 1024

typedef struct mc_solve_result {
  bool solved;     /* false: a limit or the cancel flag stopped the solver first. */
  int value;       /* Solved: the final store difference for the side to move at pos, in seeds.
                    * Else the search's estimate, rounded to seeds. */
  int depth;       /* Depth of the last finished iteration of the root search. */
  uint64_t nodes;  /* Positions visited, the line included. */
  long time_ms;    /* Time spent, the line included. */
  size_t line_len; /* Principal line: moves from pos to the end of the game (solved only; */
  uint8_t line[MC_SOLVE_LINE_MAX]; /* cut at MC_SOLVE_LINE_MAX or when a limit stops it). */
  mc_result end;                   /* How the line ends (when line_complete). */
  bool line_complete;
} mc_solve_result;

/* Solves pos (history as in mc_search_request; may be NULL) with the context s (its table and
 * endgame tables are used; its table is not cleared). limits bound the whole work (NULL: none);
 * cancel may be NULL. Returns 0 and fills *out (also when unsolved), or what mc_search_run()
 * returns for bad arguments (MC_EINVAL, MC_EOVER, MC_ENOMEM). */
int mc_solve(mc_search *s, const mc_rules *rules, const mc_pos *pos, const mc_pos *history,
             size_t history_len, const mc_limits *limits, const atomic_bool *cancel,
             mc_solve_result *out);

#endif
