/* Games: a position plus what a position alone cannot know.
 *
 * An mc_game owns the list of moves played, the history of positions since the last irreversible
 * change (for the repetition rule, Oware 6 and Congkak 8), and the result. It is opaque and lives
 * on the heap; it is not thread-safe (one owner at a time).
 *
 * Repetition: positions compare by pits and side to move. Store totals never decrease within a
 * round, so only positions since the last change of the store totals are kept. In a Congkak
 * match the history starts afresh each round, and a repetition ends the whole match.
 */
#ifndef MC_GAME_H
#define MC_GAME_H

#include <stdbool.h>
#include <stddef.h>

#include "mc_pos.h"
#include "mc_rules.h"

typedef struct mc_game mc_game;

/* The swap of the pie rule (rule book, option `pie`) as a move: a value that is no house number.
 * It is played with mc_game_play() and listed by mc_game_moves() like a house; the position (pits,
 * stores, side to move) does not change, only which player owns which side. The engine knows
 * players only as "the one who started on South" (the first mover) and "the one who started on
 * North" (mc_game_player()); whoever seats them maps sides to players with mc_game_swap_ply(). */
#define MC_SWAP 255

/* Returns a new game at the start position of rules (the caller frees it with mc_game_free()), or
 * NULL when rules are bad or memory runs out. */
mc_game *mc_game_new(const mc_rules *rules);

/* Returns a new independent copy of game, or NULL when memory runs out. */
mc_game *mc_game_copy(const mc_game *game);

/* Frees game and everything it owns. NULL is allowed. */
void mc_game_free(mc_game *game);

/* Returns the game's rules (borrowed, valid while game lives). */
const mc_rules *mc_game_rules(const mc_game *game);

/* Returns the current position (borrowed, valid until the next call that changes game). */
const mc_pos *mc_game_pos(const mc_game *game);

/* Returns the positions since the last change of the store totals or of the Congkak round, oldest
 * first, the current position last (borrowed, valid until the game changes); sets *n to their
 * count (at least 1). These are the positions the repetition rule (Oware 6, Congkak 8) compares a
 * new position with: a search that starts from the current position needs them to judge a
 * repetition exactly. */
const mc_pos *mc_game_history(const mc_game *game, size_t *n);

/* Returns the number of moves played (an extra turn is a move of its own). */
size_t mc_game_ply(const mc_game *game);

/* Returns the houses played so far, in order (borrowed, valid until the game changes); sets *n to
 * their count. Each is the mover's house number 1..m. */
const uint8_t *mc_game_moves(const mc_game *game, size_t *n);

/* Returns the seat that played move i (0-based), or -1 when i >= ply. A swap is played by the
 * side to move (North, the second player). */
int mc_game_mover(const mc_game *game, size_t i);

/* Returns the player that played move i, named by the seat it held at the start of the game
 * (MC_SOUTH: the first mover), or -1 when i >= ply. Without a swap this is mc_game_mover(); after
 * a swap the sides' owners are exchanged. */
int mc_game_player(const mc_game *game, size_t i);

/* Returns the ply of the swap (the index of MC_SWAP in the moves), or -1 when none was played. */
long mc_game_swap_ply(const mc_game *game);

/* Returns true when MC_SWAP is a legal move now: the rules have `pie`, the game goes on, the
 * first player's whole first turn is over (its first move and every extra turn it earned, so the
 * other side is to move and nobody else has moved), and in a Congkak match it is still round 1. */
bool mc_game_can_swap(const mc_game *game);

/* Writes the legal houses of the side to move (see mc_pos_legal()) and returns their count; 0 when
 * the game is over. The swap is not among them: see mc_game_can_swap(). */
int mc_game_legal(const mc_game *game, uint8_t moves[MC_MAX_HOUSES]);

/* Plays house for the side to move, or MC_SWAP (when mc_game_can_swap()). trace, when not NULL,
 * receives the steps of the move (the repetition sweep included; a swap has none). Returns 0, or
 * MC_EOVER (game over), MC_EINVAL (house out of 1..m and not MC_SWAP), MC_EILLEGAL (not a legal
 * move, a swap included), MC_ENOMEM; on error the game is unchanged. A swap adds no position to
 * the repetition history: the position it leaves is the one before it, which occurred once. */
int mc_game_play(mc_game *game, int house, mc_trace *trace);

/* Takes back the last move when it is the last change made to game (by mc_game_play(); not after
 * mc_game_finish(), a copy, or another undo): the game is exactly as it was before that move,
 * repetition history and result included. One level only, with no memory allocated: a caller can
 * play a move in place, offer it to storage, and take it back when storage refuses it. Returns 0,
 * or MC_EINVAL when there is nothing to take back (the game is unchanged). */
int mc_game_undo(mc_game *game);

/* Returns true when the game is over and, when result is not NULL, fills it. */
bool mc_game_over(const mc_game *game, mc_result *result);

/* Ends a game in progress for a reason from outside the board (MC_REASON_RESIGNATION, TIMEOUT,
 * AGREEMENT, ABANDONED) with the given winner; the score is the stores as they are. Returns 0,
 * MC_EOVER when already over, or MC_EINVAL for another reason or winner. */
int mc_game_finish(mc_game *game, mc_reason reason, mc_winner winner);

#endif
