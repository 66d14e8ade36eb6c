/* The game archive: stored games turned into what the HTTP routes send.
 *
 *   GET /api/games/ID             srv_archive_game_json()
 *   GET /api/games/ID.txt         srv_archive_game_text()
 *   GET /api/players/ID/games     srv_archive_player_games_json()
 *
 * Pure functions of the rows that srv_store.h reads: no I/O, no HTTP. The moves are replayed
 * through the engine (srv_store_replay()), so a record that does not replay is an error, never a
 * wrong record.
 */
#ifndef SRV_ARCHIVE_H
#define SRV_ARCHIVE_H

#include <jansson.h>

#include "srv_store.h"

/* Returns a new reference to the JSON record of game (borrowed):
 *   {"id":"3f9c0d1e22a7b845","game_no":1,"game":"kalah","houses":6,"seeds":4,
 *    "options":{"empty_capture":false},
 *    "players":{"south":{"id":"…","name":"Ana","computer":false,"level":null},"north":…},
 *    "clock":{"initial_ms":300000,"increment_ms":2000} or null,"rated":false,
 *    "result":"south"|"north"|"draw" or null,"reason":"no_seeds" or null,"score":[s,n] or null,
 *    "started":<unix ms>,"ended":<unix ms> or null,"ply":N,
 *    "moves":[{"ply":0,"seat":"south","house":3,"clock_ms":298000 or null,"at":<unix ms>},…],
 *    "record":"kalah 6x4\n3 1 …\n"}
 * "id" is the public id (srv_gameid.h), never the store's number; the room's code is not shown
 * (security probe, finding 5: a private room's code lets a stranger in as a spectator).
 * "options" holds the options of the game's rules with their values (as in the protocol's
 * create). Returns NULL when memory runs out or when game does not replay (then *bad, when not
 * NULL, says why; see srv_store_replay()). */
json_t *srv_archive_game_json(const srv_store_game *game, srv_store_bad_row *bad);

/* Writes the record of game (borrowed) in the engine's text notation after a header in the spirit
 * of PGN, into a new NUL-terminated string *out (free with free()):
 *
 *   [Event "Mancala Online"]
 *   [Site "?"]
 *   [Id "3f9c0d1e22a7b845"]
 *   [Date "2026.11.29"]
 *   [Game "kalah"]
 *   [Board "6x4"]
 *   [Options "-"]
 *   [South "Ana"]
 *   [North "Bo"]
 *   [TimeControl "300+2"]
 *   [Result "south"]
 *   [Reason "no_seeds"]
 *   [Score "25-23"]
 *
 *   kalah 6x4
 *   3 1 6 ...
 *
 * Date is the UTC start date; TimeControl is "-" without a clock (seconds+seconds, as in PGN);
 * Result, Reason and Score are "*" while the game goes on. Tag values escape '\' and '"' with a
 * backslash, as PGN does. The lines after the blank line are mc_record_format() and parse back
 * with mc_record_parse(). Returns 0, SRV_STORE_ENOMEM, or SRV_STORE_EBADROW (with *bad filled
 * when not NULL) when the moves do not replay. */
int srv_archive_game_text(const srv_store_game *game, char **out, srv_store_bad_row *bad);

/* Returns a new reference to the recent games of player_id (borrowed) from list (borrowed):
 *   {"player":"<id>","games":[{"id":"3f9c0d1e22a7b845","game":"kalah","houses":6,"seeds":4,"options":{…},
 *     "players":{…},"clock":…,"result":…,"reason":…,"score":[s,n],"started":…,"ended":…,
 *     "ply":N,"seat":"south"|"north"|"both","rating":{"after":1512.3,"diff":12.3}},…]}
 * "seat" is where player_id sat; "rating" (a rated game, in a list read with its ratings) is
 * that player's rating after the game and its change. Returns NULL when memory runs out. */
json_t *srv_archive_player_games_json(const char *player_id, const srv_store_game_list *list);

#endif
