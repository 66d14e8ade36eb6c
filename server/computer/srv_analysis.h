/* The analyses of finished games (GET /api/games/ID/analysis, docs/protocol.md): each game is
 * analysed once, ply by ply (mc_analysis.h), as a job of the search queue's analysis lane (never
 * ahead of a move: srv_search_queue.h), and the result is stored (srv_store_analysis_put()) for
 * the API to serve from storage. The analyser keeps, on the loop thread, the games being analysed
 * (at most cfg->queue at once, server-wide), the ones whose analysis is being stored, and how many
 * analyses each client address started (a bucket of cfg->per_hour, refilled at that rate).
 *
 * Each ply's entry (a JSON object of the stored array): ply (1..), seat, played, best (a house
 * 1..m, or "swap"), before (the position's value for the mover, in seeds, with the best move),
 * after (the value of the move played for the mover, null when not found), loss (before - after),
 * mark (srv_marks.h, null when not found), eval (before, for South), exact (before is proven),
 * played_exact, depth, and line (the best line from the position: houses and "swap").
 */
#ifndef SRV_ANALYSIS_H
#define SRV_ANALYSIS_H

#include <stdint.h>

#include "mc_game.h"
#include "srv_search_queue.h"
#include "srv_store.h"
#include "srv_time.h"

typedef struct srv_analysis srv_analysis;

typedef struct srv_analysis_config {
  long ply_ms;  /* The search time of each ply. */
  int per_hour; /* Analyses one address may start an hour (and at once); 0: none at all. */
  int queue;    /* Games analysed or waiting at once, server-wide. */
} srv_analysis_config;

/* Where a game's analysis is. */
typedef enum srv_analysis_state {
  SRV_ANALYSIS_QUEUED = 0, /* Waiting for the lane (ahead: the games before it). */
  SRV_ANALYSIS_RUNNING,    /* Being searched. */
  SRV_ANALYSIS_SAVING      /* Done, waiting for its commit: served from storage in a moment. */
} srv_analysis_state;

typedef struct srv_analysis_status {
  srv_analysis_state state;
  int ahead;              /* QUEUED: analyses before it. */
  int plies;              /* Plies of the game. */
  long ply_ms;            /* Each ply's budget. */
  int64_t retry_after_ms; /* SRV_ERATE: when the address may start another. */
} srv_analysis_status;

/* Returns the analyser searching through queue and storing into store (both borrowed; they must
 * outlive it), its clock time, or NULL when memory runs out. */
srv_analysis *srv_analysis_new(srv_search_queue *queue, srv_store *store, srv_time *time,
                               const srv_analysis_config *cfg);

/* Frees it, cancelling the analyses under way. NULL is allowed. */
void srv_analysis_free(srv_analysis *a);

/* Asks for the analysis of finished game id, game its moves replayed (borrowed: copied), for the
 * client at address addr (its key, srv_addr_key()). A game already asked for is not asked again:
 * 0 with *out saying where it is; a new one is counted against addr and queued: 0, or SRV_ERATE
 * (out->retry_after_ms set), SRV_EBUSY (the queue is full), SRV_EUNSUPPORTED (no analyses),
 * SRV_ENOMEM. */
int srv_analysis_request(srv_analysis *a, int64_t id, const mc_game *game, const char *addr,
                         srv_analysis_status *out);

/* Says whether game id is being analysed or stored, filling *out (NULL allowed). */
bool srv_analysis_status_of(srv_analysis *a, int64_t id, srv_analysis_status *out);

/* The stored analysis of game id was read back: the analyser forgets it. */
void srv_analysis_stored(srv_analysis *a, int64_t id);

/* Games being analysed or waiting (not those being stored). */
int srv_analysis_pending(const srv_analysis *a);

/* The API's answer for finished game id (gid its public id, game its moves replayed) whose
 * analysis is not stored (srv_api_analyser.request, ud the analyser): srv_analysis_request() for
 * addr, and the HTTP status with a new JSON *body: 202 {game, status: "queued", "running" or
 * "saving", ahead, plies, ply_ms, retry_ms}, 429 {error: "rate_limited", retry_after_ms}, 503
 * {error: "busy"} (the queue is full) or {error: "unsupported"}, 500. */
int srv_analysis_answer(void *ud, int64_t id, const char *gid, const mc_game *game,
                        const char *addr, char **body);

/* srv_analysis_stored() as srv_api_analyser.stored (ud the analyser). */
void srv_analysis_served(void *ud, int64_t id);

/* Builds the stored form of an analysis of game's plies[0..n) (rules: its rules) into *out: its
 * plies as a new JSON array text (out->plies, free() it) and each seat's accuracy. Returns 0 or
 * SRV_ENOMEM. Pure: the unit tests call it. */
int srv_analysis_encode(const mc_ply_eval *plies, size_t n, srv_store_analysis *out);

#endif
