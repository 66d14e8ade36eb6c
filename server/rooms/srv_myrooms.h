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
