/* A player's own games in progress: the live list behind the lobby's "Games in progress".
 *
 * {"type":"my_rooms"} answers the list of the unfinished rooms (waiting or playing: private rooms,
 * same-screen games and live rematches included) where the client's player holds a seat, and
 * keeps sending it whenever one of them changes (opened, closed, seats, presence, status, a move
 * played or taken back) until {"type":"my_rooms","watch":false} or disconnect. Like the lobby it
 * observes the rooms (srv_room_observer) and the rooms never call it: a change marks the watchers
 * of the room's seated players (found through a table by player), and srv_myrooms_flush(), once
 * per loop turn, sends each marked watcher its list once, however many of its rooms changed.
 * Making a list walks the rooms once (as the room limit per player does).
 *
 * In a cluster the player's rooms run on other nodes come from outside (srv_myrooms_remote: the
 * cluster keeps them in Redis, server/cluster/srv_cluster_mine.c): a request is answered once they
 * were fetched, and their changes mark the player's watchers (srv_myrooms_player_changed()).
 */
#ifndef SRV_MYROOMS_H
#define SRV_MYROOMS_H

#include "srv_client.h"
#include "srv_msg.h"
#include "srv_room.h"
#include "srv_send.h"

typedef struct srv_myrooms srv_myrooms;

/* Returns a new list keeper over rooms (borrowed; it adds itself to their observers), sending
 * through sink (copied), or NULL when memory runs out. */
srv_myrooms *srv_myrooms_new(srv_rooms *rooms, const srv_sink *sink);

/* The entry of room r in p's list (out's pointers borrowed from r and p). Returns false when p
 * holds no seat of r or r's game is over (not in the list). */
bool srv_myrooms_entry(const srv_room *r, const srv_player *p, srv_my_room *out);

/* Where the rooms of other nodes come from (a cluster's node); every function on the loop. */
typedef struct srv_myrooms_remote {
  /* c (one of this node's connections) asked for its list, answering id: returns 1 when the
   * other nodes' rooms are being fetched (srv_myrooms_answer() sends the list later, or nothing
   * when c is gone by then), 0 to answer now with what entries() has. */
  int (*fetch)(void *ud, srv_client *c, const srv_req_id *id);
  /* p's rooms on other nodes, encoded entries (srv_proto_my_room_entry()), borrowed until the
   * next call into the remote; 0 when none are known. */
  size_t (*entries)(void *ud, const srv_player *p, const srv_lobby_text **out);
  /* Nobody here watches p's list any more: what was kept for it may go. */
  void (*forget)(void *ud, const srv_player *p);
  void *ud;
} srv_myrooms_remote;

/* Sets the remote (copied; NULL: none, the default). */
void srv_myrooms_set_remote(srv_myrooms *m, const srv_myrooms_remote *remote);

/* Sends c its list answering id (borrowed; NULL: none): the end of a remote fetch. */
void srv_myrooms_answer(srv_myrooms *m, srv_client *c, const srv_req_id *id);

/* p's rooms on other nodes changed: its watchers get their list at the next flush. */
void srv_myrooms_player_changed(srv_myrooms *m, const srv_player *p);

/* Stops observing the rooms and frees m (the watchers must be gone). NULL is allowed. */
void srv_myrooms_free(srv_myrooms *m);

/* The my_rooms command (cmd borrowed): the list to c, answering the request, and c watches (or
 * with "watch":false stops). Returns 0 or SRV_ENOMEM (nothing changed). */
int srv_myrooms_request(srv_myrooms *m, srv_client *c, const srv_cmd *cmd);

/* Sends their list to the watchers whose rooms changed since the last flush. Once per loop turn.
 */
void srv_myrooms_flush(srv_myrooms *m);

/* c's connection is gone: it stops watching. */
void srv_myrooms_client_gone(srv_myrooms *m, srv_client *c);

#endif
