/* Positions and moves: the rule book applied to one position, one move at a time.
 *
 * A position is a small fixed-size value with no heap memory: copy it with `=`. Its pits follow the
 * rule book's flat layout: pits[0..m-1] South houses 1..m, pits[m] South store, pits[m+1..2m] North
 * houses 1..m, pits[2m+1] North store; pits[k] faces pits[2m-k]. Unused tail pits are zero.
 *
 * Repetition (Oware 6, Congkak 8) needs the history of a game and lives in mc_game.h; everything
 * else in the rule book, Congkak match rounds included, is decided here.
 */
#ifndef MC_POS_H
#define MC_POS_H

#include <stddef.h>
#include <stdint.h>

#include "mc_rules.h"

typedef struct mc_pos {
  uint8_t pits[MC_MAX_PITS]; /* Seeds per pit, rule book layout. */
  uint8_t houses;            /* m: the ring has 2m+2 pits. */
  uint8_t turn;              /* mc_seat to move. */
  uint8_t round;             /* Congkak match round, 1..9; 1 in every other game. */
  uint8_t first;             /* mc_seat that moved first in this round. */
  uint32_t burnt;            /* Bit k set: pits[k] is a burnt Congkak house in this round (always
                              * empty). */
} mc_pos;

typedef enum mc_winner { MC_WIN_SOUTH = 0, MC_WIN_NORTH = 1, MC_DRAW = 2 } mc_winner;

/* Why a game ended (rule book, Results). */
typedef enum mc_reason {
  MC_REASON_NONE = 0, /* The game is not over. */
  MC_REASON_NO_SEEDS,
  MC_REASON_MAJORITY,
  MC_REASON_CANNOT_FEED,
  MC_REASON_REPETITION,
  MC_REASON_RESIGNATION,
  MC_REASON_TIMEOUT,
  MC_REASON_AGREEMENT,
  MC_REASON_ABANDONED
} mc_reason;

typedef struct mc_result {
  mc_winner winner;
  mc_reason reason;
  uint16_t score[2]; /* Seeds in the South and North stores when the game ended. */
} mc_result;

/* One step of a move, in the order it happens. `pit` is a rule book pit index. */
typedef enum mc_step_kind {
  MC_STEP_PICK = 0,   /* The mover lifts `count` seeds from house `pit` (the first step). */
  MC_STEP_SOW,        /* One seed dropped into `pit` (a house or the mover's store). */
  MC_STEP_RELAY,      /* Congkak relay: `count` seeds lifted from `pit`; sowing goes on after it. */
  MC_STEP_CAPTURE,    /* `count` seeds taken from `pit` into store `store`. */
  MC_STEP_SWEEP,      /* Game or round end: `count` seeds of house `pit` into store `store`. */
  MC_STEP_EXTRA_TURN, /* The mover moves again (the last step; not when the move ends the game
                       * or the round); `pit` is the mover's store. */
  MC_STEP_ROUND_END,  /* A Congkak match round ended; `count` is the round that ended. When the
                       * match goes on, a REFILL or BURN step follows for every house (under
                       * MC_BURN_MATCH, for every house not burnt before); when it ends, none. */
  MC_STEP_REFILL,     /* `count` seeds from store `store` into house `pit` for the next round. */
  MC_STEP_BURN        /* House `pit` is burnt for the next round (a round end lists every house
                       * burnt in the new round; a refill step unburns a house burnt before).
                       * Under MC_BURN_MATCH: burnt for the rest of the match, listed once. */
} mc_step_kind;

typedef struct mc_step {
  uint8_t kind; /* mc_step_kind */
  uint8_t pit;
  uint8_t store; /* CAPTURE, SWEEP, REFILL: the store involved; else 0. */
  uint8_t pad;
  uint16_t count; /* PICK, RELAY, CAPTURE, SWEEP, REFILL: seeds moved; SOW: 1; ROUND_END: round. */
} mc_step;

/* Upper bound on the steps of one move: at most (total seeds + 1) laps of at most 2m+1 drops each
 * (every lap drops a seed into the mover's store), one relay lift per drop, plus the end of a
 * round. */
#define MC_TRACE_MAX 8320

/* A caller-owned buffer that receives the steps of one move. About 50 KiB: allocate it once. */
typedef struct mc_trace {
  size_t len;
  mc_step steps[MC_TRACE_MAX];
} mc_trace;

/* Returns the name of a step kind ("pick", "sow", "relay", "capture", "sweep", "extra_turn",
 * "round_end", "refill", "burn"), or NULL. */
const char *mc_step_name(mc_step_kind kind);

/* Returns the rule book's name of a reason ("no_seeds", ...; "none" for MC_REASON_NONE), or NULL.
 */
const char *mc_reason_name(mc_reason reason);

/* Parses a reason name. Returns 0 and sets *reason, or MC_EINVAL. */
int mc_reason_parse(const char *name, mc_reason *reason);

/* Returns "south", "north" or "draw", or NULL. */
const char *mc_winner_name(mc_winner winner);

/* Sets *pos to the start position of rules: n seeds in every house, South to move, round 1.
 * Returns 0, or MC_EINVAL for bad rules (pos untouched). */
int mc_pos_init(mc_pos *pos, const mc_rules *rules);

/* Checks that pos can be played under rules: same number of houses, empty unused pits, no seeds
 * in burnt houses, burnt pits only on Congkak houses, turn and first a seat, round 1..9, and a
 * seed total that fits the counters. Returns 0 or MC_EINVAL. */
int mc_pos_check(const mc_pos *pos, const mc_rules *rules);

/* Writes the house numbers (1..m, increasing) that the side to move may play into moves and
 * returns how many, 0 when there are none. This applies Oware's must-feed rule and the forbidden
 * grand slam. Repetition is not known here. Returns MC_EINVAL for bad rules or position. */
int mc_pos_legal(const mc_pos *pos, const mc_rules *rules, uint8_t moves[MC_MAX_HOUSES]);

/* Returns nonzero when house (1..m) is a legal move for the side to move. */
int mc_pos_is_legal(const mc_pos *pos, const mc_rules *rules, int house);

/* Plays house (1..m, on the side to move) on *pos: sowing, relays, captures, extra turns, the end
 * of the game, Congkak round ends with their refills. When trace is not NULL, its previous content
 * is replaced by the steps of this move; when it is NULL no trace work is done.
 *
 * Returns 0 when play goes on, 1 when this move ended the game (then *result, if not NULL, is
 * filled; the position holds the final seeds and its turn is meaningless), or a negative error:
 * MC_EINVAL (bad rules, position or house number), MC_EILLEGAL (not in mc_pos_legal()). On error
 * *pos, *trace and *result are untouched. */
int mc_pos_play(mc_pos *pos, const mc_rules *rules, int house, mc_trace *trace, mc_result *result);

/* Ends the game at pos after a repetition (Oware 6, Congkak 8): every house is swept into its
 * owner's store (steps appended to trace when not NULL), and *result is filled with reason
 * MC_REASON_REPETITION. Returns 0 or MC_EINVAL. */
int mc_pos_end_repetition(mc_pos *pos, const mc_rules *rules, mc_trace *trace, mc_result *result);

/* Returns the sum of all pits. */
unsigned mc_pos_total(const mc_pos *pos);

/* Returns nonzero when a and b hold the same pits and side to move (the repetition test). */
int mc_pos_same(const mc_pos *a, const mc_pos *b);

#endif
