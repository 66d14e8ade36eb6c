/* The game archive over HTTP: GET /api/games/ID, /api/games/ID.txt and
 * /api/players/ID/games?limit=N (docs/storage.md), and the players' pages: GET /api/players/NAME
 * (a profile, its games paginated by ?limit=N&before=ID) and /api/leaderboard/GAME?page=P&limit=N
 * (docs/protocol.md), answered from a connection of its own to the
 * database that sees only what is committed (srv_store_open_reader()): a game is never served
 * before it is durable, and a request never commits the loop turn's batch early.
 */
#ifndef SRV_API_H
#define SRV_API_H

#include "srv_store.h"

typedef struct srv_api srv_api;

/* Returns the routes over a reader of store (borrowed; it must outlive them), or NULL when the
 * reader cannot be opened (logged) or memory runs out. */
srv_api *srv_api_new(const srv_store *store);

/* Closes the reader and frees api (NULL allowed). */
void srv_api_free(srv_api *api);

/* Answers GET uri (borrowed, URL-decoded, without the query; query holds the query's arguments,
 * decoded, joined by '&', or NULL): returns the HTTP status and writes into *body a new malloc'd
 * NUL-terminated body (NULL when memory runs out) and into *type its static content type. ud is
 * the srv_api. */
int srv_api_get(void *ud, const char *uri, const char *query, char **body, const char **type);

#endif
