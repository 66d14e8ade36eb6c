/* The rating policy: which games count, how one rated game changes the two ratings (Glicko-2,
 * srv_glicko.h), and the rating a player is paired by. Pure functions: storage reads the ratings
 * before and writes those after (srv_persist.c), in the batch that records the result.
 *
 * - A game is rated when both seats are accounts (checked by the rooms), it is played against a
 *   person on its game's default board and options (Kalah 6x4, Oware 6x4, Congkak 7x7 in one
 *   round) with a clock, and its room was created rated ("rated":true). The computer is unrated.
 * - Every rated game is a rating period of its own for both players (as on the big sites): each is
 *   rated against the other's rating before the game. Resignation, time and abandonment count as
 *   a loss for the side that lost; an agreed draw as a draw; only once both sides have moved.
 * - A player's deviation grows while they are away: one Glicko-2 period without games per day
 *   since their last rated game of that game (phi^2 + days * sigma^2), never above 350.
 * - Against rating farming (as lichess does): a rated clock has a minimum (srv_rating_clock_ok()),
 *   a game where one side never moved is aborted, not rated (the rooms), and repeated rated games
 *   of one pair of players, or of two players on one address, count less, then not at all, within
 *   a window (srv_rating_weight(), counted by an srv_rating_repeats table the rooms keep in
 *   memory; a restart forgets it).
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

/* Rated clocks: at least a minute, or at least 15 s with an increment of at least 1 s. */
#define SRV_RATING_MIN_INITIAL_MS 60000
#define SRV_RATING_MIN_INITIAL_INC_MS 15000
#define SRV_RATING_MIN_INCREMENT_MS 1000

/* Repeated games: the window, and the table's bound (the least recently started windows go
 * first when it is full). */
#define SRV_RATING_REPEAT_WINDOW_MS SRV_RATING_DAY_MS
#define SRV_RATING_REPEAT_KEYS 4096

/* Whether a clock of initial_ms and increment_ms is long enough for a rated game. */
bool srv_rating_clock_ok(int64_t initial_ms, int64_t increment_ms);

/* How much a rated game counts when its pair of players already had `earlier` rated games in the
 * window: the first two fully (1), the 3rd to 5th half (0.5), the 6th on not at all (0). */
double srv_rating_weight(int earlier);

/* The same for the rated games of two players who sat down from one address (any pairs): the
 * first 10 fully, the 11th to 20th half, the 21st on not at all. An address may be a whole
 * school or office behind one NAT, hence more than for one pair. */
double srv_rating_weight_addr(int earlier);

/* Scales what one rated game changed (before -> after, diff; as srv_rating_game() wrote them) by
 * weight in [0, 1]: rating, deviation and volatility move that fraction of the way; the counts of
 * games, wins, losses and draws and last_ms are kept. */
void srv_rating_scale(const srv_store_rating before[2], double weight, srv_store_rating after[2],
                      double diff[2]);

/* Recent rated games by key (a pair of players, an address): a bounded table in memory. */
typedef struct srv_rating_repeats srv_rating_repeats;

/* Returns a new empty table, or NULL when memory runs out. Free with srv_rating_repeats_free(). */
srv_rating_repeats *srv_rating_repeats_new(void);
void srv_rating_repeats_free(srv_rating_repeats *t);

/* Counts one rated game of key (borrowed; cut at 80 bytes) at now_ms and returns how many the key
 * had in its window before it. A window starts at a key's first game and lasts
 * SRV_RATING_REPEAT_WINDOW_MS; a key whose window passed starts again at 0. When the table is
 * full, the key whose window started first is forgotten. t NULL: 0. */
int srv_rating_repeats_add(srv_rating_repeats *t, const char *key, int64_t now_ms);

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
