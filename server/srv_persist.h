/* Persistence: the adapter between the rooms and durable storage (srv_store.h).
 *
 * Persistence listens; it does not steer. The rooms emit storage events (srv_room.h) and this
 * module turns them into store writes; hello asks it for players known before a restart; once
 * per loop turn (the network layer's turn hook, before any frame of the turn is released) it
 * commits the turn's batch: make it durable before acknowledging. When a commit fails, the rooms
 * whose writes were lost take them back (srv_rooms_store_lost()), their queued frames are dropped
 * and their movers get storage_error. At start it rebuilds the rooms from the store
 * (srv_persist_recover()), and it answers the archive's HTTP routes.
 *
 * The loop thread owns everything here. Every function that can fail returns 0 or a negative
 * SRV_E* code and logs why.
 */
#ifndef SRV_PERSIST_H
#define SRV_PERSIST_H

#include "srv_ident.h"
#include "srv_room.h"
#include "srv_store.h"
#include "srv_time.h"

typedef struct srv_persist srv_persist;

/* Returns a new adapter over store, ident and time (all borrowed; they must outlive it), or NULL
 * when memory runs out. The store stays the caller's to commit and close. */
srv_persist *srv_persist_new(srv_store *store, srv_ident *ident, srv_time *time);

/* Frees p (NULL allowed). */
void srv_persist_free(srv_persist *p);

/* Connects p to rooms (borrowed) and to the network layer's frame dropping: drop(drop_ud, code)
 * discards the unreleased frames of room code queued during the current loop turn. Also installs
 * p as the rooms' storage listener. */
void srv_persist_attach(srv_persist *p, srv_rooms *rooms, void (*drop)(void *ud, const char *code),
                        void *drop_ud);

/* Rebuilds every room the store knows (call after srv_persist_attach(), before listening): the
 * players seated in them, their settings, seats, status and game number, each game replayed
 * through the engine. A stored move that does not replay is logged and dropped with every move
 * after it (the game resumes from the valid prefix). Returns 0, or a negative SRV_E* code when
 * the store cannot be read (after logging it). */
int srv_persist_recover(srv_persist *p);

/* The rooms' recorder (srv_recorder.record; ud is the srv_persist). */
int srv_persist_record(void *ud, const srv_record *ev);

/* Hello's restore hook (srv_dispatch_store.restore): the player storage knows for token
 * (borrowed), adopted into the registry with a new reference (the caller's), or NULL. */
srv_player *srv_persist_restore(void *ud, const char *token);

/* Hello's player hook (srv_dispatch_store.player): records player (borrowed). */
void srv_persist_player(void *ud, const srv_player *player);

/* The turn hook (srv_net_set_turn_hook): commits the turn's batch and handles a lost one. */
void srv_persist_turn(void *ud);

/* The archive routes (srv_net_api.get): GET /api/games/ID, /api/games/ID.txt and
 * /api/players/ID/games?limit=N (limit borrowed, NULL: 20). Returns the HTTP status; *body is a
 * new malloc'd string (NULL when memory runs out) and *type its static content type. */
int srv_persist_http(void *ud, const char *uri, const char *limit, char **body, const char **type);

/* The store's counters as Prometheus text (srv_net_api.metrics): a new malloc'd string, or NULL. */
char *srv_persist_metrics(void *ud);

#endif
