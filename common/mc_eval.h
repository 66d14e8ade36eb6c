/* Evaluation: what a position is worth to the side to move, when the search cannot look further.
 *
 * Values here and in mc_search.h are store differences for the side to move (its store minus the
 * other store) in hundredths of a seed: MC_SEED is one seed. A value at the end of a game is the
 * final store difference exactly (a multiple of MC_SEED); an evaluation estimates it.
 *
 * MC_EVAL_STORES is the store difference alone. MC_EVAL_FULL adds what each game's board says
 * about the seeds still in play (docs/computer.md lists the terms, their weights and the matches
 * that show they win games): seeds that will fall to their owner at the end, moves that earn an
 * extra turn, captures on offer, houses exposed to capture.
 */
#ifndef MC_EVAL_H
#define MC_EVAL_H

#include "mc_pos.h"
#include "mc_rules.h"

/* One seed in value units. */
#define MC_SEED 100

typedef enum mc_eval_kind {
  MC_EVAL_FULL = 0,  /* The tuned evaluation (default). */
  MC_EVAL_STORES = 1 /* The store difference alone. */
} mc_eval_kind;

/* Returns the evaluation of pos (a position where play goes on) for its side to move, in
 * hundredths of a seed. It trusts its arguments: valid rules, a position that passes
 * mc_pos_check() and a known kind (anything else is treated as MC_EVAL_FULL). */
int mc_eval(const mc_rules *rules, const mc_pos *pos, mc_eval_kind kind);

/* Returns "full" or "stores" (NULL for an unknown kind). */
const char *mc_eval_name(mc_eval_kind kind);

/* Parses "full" or "stores". Returns 0 and sets *kind, or MC_EINVAL. */
int mc_eval_parse(const char *name, mc_eval_kind *kind);

#endif
