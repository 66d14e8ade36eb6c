/* The lobby: the live list of public rooms, and the clients that watch it.
 *
 * The lobby observes the rooms (srv_room_observer): a change only marks the list stale, and the
 * rooms never call the lobby otherwise. A list shows, of each game, the newest per_game listed
 * rooms (SRV_LOBBY_PER_GAME by default) and counts the rest ("more"): its size is bounded
 * however many rooms there are.
 *
 * The list is published as numbered revisions. srv_lobby_flush(), once per loop turn, at most
 * every SRV_LOBBY_EVERY_MS (a timer sends a change that came too soon), publishes the list when
 * a room changed: the watchers of changes ("changes":true) get one lobby_changes frame with what
 * was added, updated and removed since the previous revision (encoded once for all of them, and
 * nothing when the list is the same), the watchers of whole lists the new list. A new watcher of
 * changes starts from the last revision's snapshot and gets the next changes with everybody.
 * A room is listed when it is public, for two people and not finished; a waiting room only while
 * its waiting player is there.
 */
#ifndef SRV_LOBBY_H
#define SRV_LOBBY_H

#include "srv_client.h"
#include "srv_msg.h"
#include "srv_room.h"
#include "srv_send.h"
#include "srv_time.h"

/* Lists go to the watchers at most this often. */
#define SRV_LOBBY_EVERY_MS 250

/* Rooms of one game a list shows by default (the newest). */
#define SRV_LOBBY_PER_GAME 50

typedef struct srv_lobby srv_lobby;

/* Returns a new lobby over rooms (borrowed; it installs itself as their observer), sending
 * through sink (copied) and pacing with time (borrowed), or NULL when memory runs out. */
srv_lobby *srv_lobby_new(srv_rooms *rooms, srv_time *time, const srv_sink *sink);

/* Sets how many connections of one client address (srv_client.peer) may watch at once; 0 (the
 * default) for no limit. A watcher over it gets SRV_EWATCHERS and nothing. */
void srv_lobby_set_limit(srv_lobby *lobby, int watchers_per_addr);

/* Sets how many rooms of one game a list shows (the newest; at least 1). */
void srv_lobby_set_per_game(srv_lobby *lobby, int rooms);

/* Frees the lobby (the watchers must be gone) and stops observing the rooms. NULL is allowed. */
void srv_lobby_free(srv_lobby *lobby);

/* The lobby command (cmd borrowed): the list to c, answering the request, and c watches (or with
 * "watch":false stops); with "changes":true, the last revision's snapshot, then its changes.
 * Returns 0, SRV_EWATCHERS (c's address has its watchers) or SRV_ENOMEM (nothing changed). */
int srv_lobby_request(srv_lobby *lobby, srv_client *c, const srv_cmd *cmd);

/* Sends the list to the watchers when it changed since the last flush (paced, see above). Call
 * once per loop turn. */
void srv_lobby_flush(srv_lobby *lobby);

/* c's connection is gone: it stops watching. */
void srv_lobby_client_gone(srv_lobby *lobby, srv_client *c);

/* ---- A cluster's lobby (server/cluster/): every node lists the rooms of every node ------------
 */

/* A listed room as nodes tell each other: its entry already encoded (srv_proto_lobby_entry()). */
typedef struct srv_lobby_foreign {
  char code[SRV_CODE_LEN + 1];
  int kind;     /* mc_kind */
  int pool;     /* srv_pool_of() of its settings, or -1. */
  bool waiting; /* Waiting for its second player. */
  char *json;
  size_t len;
} srv_lobby_foreign;

/* The rooms other nodes list, shown after this node's own (a list still shows at most per_game
 * of each game): replaces the last set; copied. Returns 0 or SRV_ENOMEM (the last set stays). */
int srv_lobby_set_foreign(srv_lobby *lobby, const srv_lobby_foreign *rooms, size_t n);

/* This node's own listed rooms (at most per_game of each game, the newest) into a new array *out
 * of *n (free with srv_lobby_foreign_free()), and whether they may have changed since the last
 * call (*changed). Returns 0 or SRV_ENOMEM. */
int srv_lobby_local(srv_lobby *lobby, srv_lobby_foreign **out, size_t *n, bool *changed);

void srv_lobby_foreign_free(srv_lobby_foreign *rooms, size_t n);

#endif
