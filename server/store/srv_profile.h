/* Profiles and leaderboards as the HTTP routes send them (GET /api/players/NAME and
 * /api/leaderboard/GAME, docs/protocol.md): pure functions of what srv_store.h reads, like the
 * archive (srv_archive.h). Ratings are shown as stored (the client rounds them); "provisional"
 * marks a deviation above SRV_RATING_PROVISIONAL_RD.
 */
#ifndef SRV_PROFILE_H
#define SRV_PROFILE_H

#include <jansson.h>

#include "srv_store.h"

/* A player's profile, as the caller read it. */
typedef struct srv_profile {
  const srv_store_account *account; /* Its password field is not read. */
  srv_store_rating ratings[SRV_STORE_RATED_GAMES];
  long ranks[SRV_STORE_RATED_GAMES]; /* 1-based place on each leaderboard, 0: not on it. */
  const srv_store_rating_point *history[SRV_STORE_RATED_GAMES];
  size_t n_history[SRV_STORE_RATED_GAMES];
  const srv_store_game_list *games; /* Newest first, with the player's rating changes. */
  int64_t next_before;              /* The "before" of the next page of games, 0: none. */
} srv_profile;

/* Returns a new reference to the JSON of p (borrowed):
 *   {"player":"<id>","name":"Ana","created":<unix ms>,
 *    "ratings":{"kalah":{"rating":1523.4,"rd":120.2,"vol":0.06,"games":5,"wins":3,"losses":2,
 *                        "draws":0,"provisional":true,"rank":2},…},
 *    "history":{"kalah":[{"game":12,"at":<unix ms>,"rating":1523.4,"rd":120.2,"diff":12.1},…],…},
 *    "games":[…as /api/players/ID/games…],"next_before":41 or null}
 * NULL when memory runs out. */
json_t *srv_profile_json(const srv_profile *p);

/* Returns a new reference to the JSON of one page of kind's leaderboard (b borrowed), page
 * page (1-based) of limit rows:
 *   {"game":"kalah","page":1,"limit":50,"total":123,"pages":3,
 *    "players":[{"rank":1,"player":"<id>","name":"Ana","rating":1620.5,"rd":60.1,"games":40,
 *                "wins":30,"losses":8,"draws":2,"provisional":false},…]}
 * NULL when memory runs out. */
json_t *srv_profile_leaderboard_json(mc_kind kind, long page, int limit, const srv_store_board *b);

#endif
