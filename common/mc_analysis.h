/* Analysis of a game: for every ply, the value of the position, the best move and the value of
 * the move played, so that a player can see where a game was won or lost.
 *
 * Each position is searched at full strength with every legal move valued (mc_search.h,
 * all_moves), within a budget per ply the caller gives. Values are exact where the search proves
 * them (the endgame tables, the end of the game in reach), evaluations with their depth
 * elsewhere. The plies are searched from the last to the first, so that proofs found near the end
 * help the plies before them.
 */
#ifndef MC_ANALYSIS_H
#define MC_ANALYSIS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mc_rules.h"
#include "mc_search.h"

typedef struct mc_ply_eval {
  uint8_t mover;         /* Seat that played the ply (mc_seat). */
  uint8_t played;        /* House played, or MC_SWAP. */
  uint8_t best;          /* Best house found, or MC_SWAP where the swap is legal and better. */
  uint8_t depth;         /* Depth of the search (0: none finished within the budget). */
  bool exact;            /* value is the perfect-play value. */
  bool played_known;     /* played_value was found (false: the budget ran out first). */
  bool played_exact;     /* played_value is the perfect-play value of the move played. */
  int value;             /* The position before the ply, for the mover: the value of best. */
  int played_value;      /* The value of the move played, for the mover. value - played_value is
                          * what the move lost (0 for the best move). */
  uint8_t pv_len;        /* The best line from the position before the ply: best first, then the */
  uint8_t pv[MC_PV_MAX]; /* expected replies (mc_search_result.pv), up to MC_PV_MAX moves. */
} mc_ply_eval;

/* Analyses the game of rules with moves[0..n-1] (a whole game or its beginning) into
 * out[0..n-1], each ply searched within per_ply (NULL: 200 ms; the caller should always bound
 * it), with the context s (its table is reused, not cleared). cancel may be NULL. Returns 0;
 * MC_EINVAL (NULL arguments, bad rules); MC_EILLEGAL or MC_EOVER (moves is not a game: *bad_ply,
 * when not NULL, gets the index of the first bad move); MC_ENOMEM; MC_ECANCELED (out is then
 * partly filled: the plies after the one being searched). */
int mc_analyse(mc_search *s, const mc_rules *rules, const uint8_t *moves, size_t n,
               const mc_limits *per_ply, const atomic_bool *cancel, mc_ply_eval *out,
               size_t *bad_ply);

#endif
