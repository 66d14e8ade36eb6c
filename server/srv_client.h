/* One connection as the server's logic sees it: the player it said hello as, the rooms it is in
 * and whether it watches the lobby. The network layer embeds one in its per-connection data and
 * hands it to the dispatch; rooms and lobby link it into their lists, so it must be initialised
 * with srv_client_init() and handed back with srv_dispatch_client_gone() before it is freed.
 */
#ifndef SRV_CLIENT_H
#define SRV_CLIENT_H

#include "srv_ident.h"
#include "srv_list.h"

typedef struct srv_client {
  srv_player *player; /* NULL until hello; the client holds a reference to it. */
  srv_list rooms;     /* Its memberships (the rooms' own; see srv_room_int.h). */
  srv_list watch;     /* Its node in the lobby's watchers while it watches (srv_lobby.c). */
  void *conn;         /* The owner's data; nothing else touches it. */
} srv_client;

/* Initialises c for the connection conn (borrowed): no player, no room, not watching. */
static inline void srv_client_init(srv_client *c, void *conn) {
  c->player = NULL;
  srv_list_init(&c->rooms);
  c->watch.prev = c->watch.next = NULL;
  c->conn = conn;
}

#endif
