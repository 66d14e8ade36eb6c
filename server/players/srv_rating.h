/* The rating policy: which games count, how one rated game changes the two ratings (Glicko-2,
 * srv_glicko.h), and the rating a player is paired by. Pure functions: storage reads the ratings
 * before and writes those after (srv_persist.c), in the batch that records the result.
 *
 * - A game is rated when both seats are accounts (checked by the rooms), it is played against a
 *   person on its game's default board and options (Kalah 6x4, Oware 6x4, Congkak 7x7 in one
 *   round) with a clock, and its room was created rated ("rated":true). The computer is unrated.
 * - Every rated game is a rating period of its own for both players (as on the big sites): each is
 *   rated against the other's rating before the game. Resignation, time and abandonment count as
 *   a loss for the side that lost; an agreed draw as a draw.
 * - A player's deviation grows while they are away: one Glicko-2 period without games per day
 *   since their last rated game of that game (phi^2 + days * sigma^2), never above 350.
 */
#ifndef SRV_RATING_H
#define SRV_RATING_H

#include <stdbool.h>
#include <stdint.h>

#include "mc_rules.h"
#include "srv_ident.h"
#include "srv_msg.h"
#include "srv_store.h"

/* A deviation above this marks a rating as provisional (shown with a "?"). */
#define SRV_RATING_PROVISIONAL_RD 110.0
#define SRV_RATING_MAX_RD 350.0
#define SRV_RATING_DAY_MS 86400000

/* Whether a room with opts (borrowed) may be rated: a person's game on the default board and
 * options of its game, with a clock. */
bool srv_rating_rateable(const srv_room_opts *opts);

/* One rated game that ended at ended_ms with winner: from the ratings of South and North before
 * it (borrowed), writes those after it into after and the difference of each into diff. Returns 0,
 * or -1 when a rating is not a number the arithmetic takes (after untouched). */
int srv_rating_game(const srv_store_rating before[2], mc_winner winner, int64_t ended_ms,
                    srv_store_rating after[2], double diff[2]);

/* The rating player (borrowed) is paired by in kind: an account's, or a new player's 1500. */
double srv_rating_of(const srv_player *player, mc_kind kind);

#endif
