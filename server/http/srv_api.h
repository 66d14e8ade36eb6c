/* The game archive over HTTP: GET /api/games/ID, /api/games/ID.txt, /api/games/ID/analysis and
 * /api/players/ID/games?limit=N (docs/storage.md), and the players' pages: GET /api/players/NAME
 * (a profile, its games paginated by ?limit=N&before=ID) and /api/leaderboard/GAME?page=P&limit=N
 * (docs/protocol.md), read through the storage seam (srv_reader.h) on a connection of its own to
 * the database that sees only what is committed (srv_store_open_reader()): a game is never served
 * before it is durable, and a request never commits the loop turn's batch early.
 */
#ifndef SRV_API_H
#define SRV_API_H

#include "mc_game.h"
#include "srv_store.h"
#include "srv_work.h"

typedef struct srv_api srv_api;

/* The analyses of finished games (GET /api/games/ID/analysis): answered from storage when the
 * game's analysis is stored, else by the analyser on the loop thread (srv_analysis.h). */
typedef struct srv_api_analyser {
  /* The analysis of finished game id (gid: its public id; game: its moves replayed; both
   * borrowed) is not stored: asks for it for the client at addr (its key) and returns the HTTP
   * status with *body (a new JSON text, NULL when memory ran out): 202 while it is made, 429, 503.
   */
  int (*request)(void *ud, int64_t id, const char *gid, const mc_game *game, const char *addr,
                 char **body);
  /* Game id's stored analysis was served. */
  void (*stored)(void *ud, int64_t id);
  void *ud;
} srv_api_analyser;

/* Sets the analyser (copied; NULL: none, the route answers 503 for a game not analysed). */
void srv_api_set_analyser(srv_api *api, const srv_api_analyser *analyser);

/* Returns the routes over a reader of store (borrowed; it must outlive them), or NULL when the
 * reader cannot be opened (logged) or memory runs out. */
srv_api *srv_api_new(const srv_store *store);

/* Closes the reader and frees api (NULL allowed). */
void srv_api_free(srv_api *api);

/* Reads on work's threads (a network database: srv_reader_use_work()). Returns 0 or SRV_E*. */
int srv_api_use_work(srv_api *api, srv_work *work);

/* An answer: the HTTP status, a new malloc'd NUL-terminated body (the callee's; NULL when memory
 * ran out) and its static content type. */
typedef void (*srv_api_done)(void *arg, int status, char *body, const char *type);

/* Answers GET uri (borrowed, URL-decoded, without the query; query holds the query's arguments,
 * decoded, joined by '&', or NULL) from the client at addr (its key, srv_addr_key(); NULL: not
 * known) through the storage seam's reads (srv_reader.h): done(arg, ...) on the loop thread once
 * the answer is read, perhaps before this returns. ud is the srv_api. Returns 0, or SRV_ENOMEM
 * (done is never called). */
int srv_api_get(void *ud, const char *uri, const char *query, const char *addr, srv_api_done done,
                void *arg);

#endif
