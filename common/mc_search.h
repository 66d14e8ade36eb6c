/* Search: the computer player's move, hints, and the engine under the solver and the analysis.
 *
 * One search for every game and option of the rule book: iterative deepening over a principal
 * variation search (alpha-beta with null windows), a transposition table, move ordering (the
 * table's move, then captures and extra turns, killer moves and a history table), the evaluation
 * of mc_eval.h at the horizon and the endgame tables of mc_egtb.h where they reach. Moves are
 * made by the engine's own move function, so the search follows the rule book as mc_pos.h does.
 *
 * Values (mc_eval.h): the final store difference for the side to move, in hundredths of a seed
 * (MC_SEED). A value is exact when the search proved it: every line it rests on reached the end
 * of the game, a table entry, or a repetition; otherwise it is an evaluation at the depth given.
 * An extra turn (Kalah, Congkak) is a move of its own and the same side moves again: values are
 * negated only when the side to move changes.
 *
 * Repetition (Oware 6, Congkak 8): a request carries the positions since the last change of the
 * stores (mc_game_history()), so a move that repeats a position for the third time is seen as
 * the end of the game it is, at the root as deep in the tree. Values that depend on that history
 * are never kept in the table as exact; docs/computer.md explains the rule.
 *
 * Limits: time, nodes and depth; a cancel flag the caller owns may be raised from any thread at
 * any moment. The search then stops within a few thousand nodes and returns the best move of the
 * last finished iteration (or of the current one, when it already found a better move). Under
 * any limit, even an expired one, the move returned is legal.
 *
 * Threads: a search context is used by one thread at a time; every context owns its table.
 * Several contexts may run at once and share one endgame table set (read-only). There is no
 * global state: the result depends only on the context's table, the request and its seed
 * (with a time limit, also on how fast the machine is).
 */
#ifndef MC_SEARCH_H
#define MC_SEARCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mc_egtb.h"
#include "mc_eval.h"
#include "mc_game.h"
#include "mc_level.h"
#include "mc_pos.h"
#include "mc_rules.h"

/* Default transposition table size. */
#define MC_SEARCH_TT_DEFAULT (16u << 20)
/* Deepest line the search follows (moves from the root). */
#define MC_SEARCH_MAX_DEPTH 400
/* Longest principal variation reported. */
#define MC_PV_MAX 64

typedef struct mc_search mc_search;

typedef struct mc_search_config {
  size_t tt_bytes;     /* Transposition table bytes (rounded down to a power of two, at least
                        * 64 KiB); 0: MC_SEARCH_TT_DEFAULT. */
  const mc_egtb *egtb; /* Endgame tables (borrowed, read-only, must outlive the context); NULL:
                        * none. */
} mc_search_config;

typedef struct mc_limits {
  long time_ms;   /* Wall-clock budget from the call; < 0: none; 0: stop at once. */
  uint64_t nodes; /* Node budget; 0: none. */
  int depth;      /* Deepest iteration in moves; 0: none (up to MC_SEARCH_MAX_DEPTH). */
} mc_limits;

/* No limit at all (the search stops when the value is exact, or at MC_SEARCH_MAX_DEPTH). */
#define MC_LIMITS_NONE ((mc_limits){-1, 0, 0})

typedef struct mc_search_request {
  const mc_rules *rules; /* Borrowed. */
  const mc_pos *pos;     /* Borrowed: the position to move from; play must go on there. */
  const mc_pos *history; /* Borrowed, may be NULL: the positions since the last change of the
                          * stores or round, oldest first, ending with pos (as
                          * mc_game_history() returns them). NULL: pos alone. */
  size_t history_len;
  mc_limits limits;          /* The caller's budget (a server passes the lesser of its budget
                              * and the clock). The level's own limits apply as well. */
  const mc_level *level;     /* Borrowed; NULL: full strength (mc_level_full()). */
  uint64_t seed;             /* Drives the level's noise. */
  const atomic_bool *cancel; /* Borrowed, may be NULL: raise it to stop the search. */
  bool all_moves;            /* Give every legal move a value as precise as the best one's
                              * (analysis); costs up to m times more. */
  bool solve;                /* Prove the value (mc_solve.h): after iterative deepening, null-
                              * window searches to the end of the game. Needs no depth limit. */
} mc_search_request;

typedef struct mc_move_value {
  uint8_t move; /* House 1..m. */
  bool exact;   /* value is proved. */
  bool known;   /* false: the search stopped before it valued this move (value meaningless). */
  int value;    /* For the side to move, after this move. With all_moves or a noisy level, the
                 * value; otherwise moves other than the best carry upper bounds. */
} mc_move_value;

typedef struct mc_search_result {
  int move;              /* The move to play, house 1..m (or MC_SWAP from mc_search_game()):
                          * always legal. */
  int best;              /* The best move found (move differs when the level's noise chose). */
  int value;             /* Value of best for the side to move (hundredths of a seed). */
  bool exact;            /* value is the perfect-play value. */
  int depth;             /* Depth of the last finished iteration; 0 when none finished (then move is
                          * the first by move ordering and value an evaluation). */
  uint64_t nodes;        /* Positions visited. */
  long time_ms;          /* Time spent. */
  bool stopped;          /* A limit or the cancel flag ended the search. */
  int pv_len;            /* Principal variation: best first, then the expected replies (an extra */
  uint8_t pv[MC_PV_MAX]; /* turn is a move of its own), up to MC_PV_MAX moves. */
  int nmoves;            /* Legal moves, each with what is known of its value. */
  mc_move_value moves[MC_MAX_HOUSES];
} mc_search_result;

/* Returns a new search context (free it with mc_search_free()), or NULL when config is bad or
 * memory runs out. config may be NULL (defaults). */
mc_search *mc_search_new(const mc_search_config *config);

/* Frees the context and its table. NULL is allowed. */
void mc_search_free(mc_search *s);

/* Gives the context other endgame tables (borrowed, read-only, must outlive the context; NULL:
 * none). Only between searches: never while a search runs in the context (a server switches a
 * worker's context when its search is over). Entries already in the transposition table stay
 * valid (they are values of the same positions). */
void mc_search_set_egtb(mc_search *s, const mc_egtb *egtb);

/* Empties the transposition table (a new game; results are then independent of earlier runs). */
void mc_search_clear(mc_search *s);

/* Runs a search. Returns 0 and fills *out; MC_EINVAL (NULL arguments, bad rules or position,
 * a history that does not end with pos); MC_EOVER (no legal move: the game is over);
 * MC_ENOMEM (a history too long to copy). Cancellation and limits are not errors. */
int mc_search_run(mc_search *s, const mc_search_request *req, mc_search_result *out);

/* The computer's move in a game: level 1..6, time_ms the caller's budget (< 0: the level's own,
 * MC_LEVEL_DEFAULT_MS at level 6; level 6 thinks for time_ms, above that default too: a cap on
 * the other levels, mc_level_time()), seed and cancel as in a request. Where the pie rule's swap is
 * legal, out->move may be MC_SWAP (mc_search_pie()). Returns what mc_search_run()
 * returns, MC_EOVER for a finished game, MC_EINVAL for a bad level. */
int mc_search_game(mc_search *s, const mc_game *game, int level, long time_ms, uint64_t seed,
                   const atomic_bool *cancel, mc_search_result *out);

/* The pie rule's choice after a search of the position where the swap is legal (the second
 * player to move after the first turn, mc_game_can_swap()): r holds that search of the position
 * for the side to move. When its value is below 0 (the first turn left the first mover ahead),
 * r becomes the swap: move, best and pv MC_SWAP, value the negation (for the player who swaps);
 * otherwise r is unchanged (the best house is better than swapping). mc_search_game() applies it
 * whenever the swap is legal. */
void mc_search_pie(mc_search_result *r);

/* The first player's choice under the pie rule, during its first turn (only South has moved,
 * South to move, round 1): the ends of the turn reachable from here (its extra turns played out,
 * breadth first, at most 48 positions) are searched within a share of the budget (time_ms as in
 * mc_search_game(), the level's limits; the level's noise is not applied), and each is worth to
 * the first player the worse of the two sides' values there, since the second player may swap:
 * -|value|, or the result when the turn ends the game (a Congkak round ended within it: its value
 * as it is, no swap). Where the turn has more lines than that (Congkak 7x7: millions), positions
 * within it are valued instead, at -|value| too: the least the first player can make of them.
 * The move leading to the best is chosen. Returns 1 with *out filled (move, best, value for
 * South, exact when every end was proved, moves[] with the best of each move), 0 when it is not
 * that moment, or an error (MC_EINVAL, MC_ENOMEM). mc_search_game() applies it. */
int mc_search_pie_first(mc_search *s, const mc_game *game, const mc_level *level, long time_ms,
                        uint64_t seed, const atomic_bool *cancel, mc_search_result *out);

/* Whether the computer should accept a draw offer, given a search of the position from its own
 * side: yes when it cannot do better than a draw (an exact value <= 0), or when its evaluation
 * says it is not ahead by half a seed. */
bool mc_search_accepts_draw(const mc_search_result *r);

#endif
