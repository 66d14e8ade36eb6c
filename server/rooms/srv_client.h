/* One connection as the server's logic sees it: the player it said hello as, the rooms it is in
 * and whether it watches the lobby. The network layer embeds one in its per-connection data and
 * hands it to the dispatch; rooms and lobby link it into their lists, so it must be initialised
 * with srv_client_init() and handed back with srv_dispatch_client_gone() before it is freed.
 */
#ifndef SRV_CLIENT_H
#define SRV_CLIENT_H

#include <string.h>

#include "srv_ident.h"
#include "srv_list.h"

typedef struct srv_client {
  srv_player *player;     /* NULL until hello; the client holds a reference to it. */
  srv_list rooms;         /* Its memberships (the rooms' own; see srv_room_int.h)... */
  size_t n_rooms;         /* ...and how many (finished rooms it has not left included). */
  srv_list watch;         /* Its node in the lobby's watchers while it watches (srv_lobby.c)... */
  bool watch_changes;     /* ...of changes (lobby_changes) rather than of whole lists. */
  srv_list of_player;     /* Its node in player->clients while it has a player (srv_rooms.c). */
  uint8_t token_hash[32]; /* The SHA-256 of the token it identified with (its session). */
  char addr[64];          /* The client's address as the limits count it ("" when unknown). */
  void *conn;             /* The owner's data; nothing else touches it. */
  struct srv_peer *peer;  /* Its address's entry (srv_peer.h; the owner holds the reference), or
                           * NULL: not counted by address (the unit tests). */
  /* A cluster (server/cluster/): a connection of another node that sent commands for a room run
   * here has a stand-in client here, remote its node's data (NULL: a connection of this node);
   * route_id names one of this node's connections to the others (0: never named). */
  void *remote;
  uint64_t route_id;
  /* A hello waiting for durable storage to find its token's player (srv_hello.c's), or NULL. */
  void *hello_wait;
} srv_client;

/* Initialises c for the connection conn (borrowed): no player, no room, not watching. */
static inline void srv_client_init(srv_client *c, void *conn) {
  c->player = NULL;
  srv_list_init(&c->rooms);
  c->n_rooms = 0;
  c->watch.prev = c->watch.next = NULL;
  c->watch_changes = false;
  c->of_player.prev = c->of_player.next = NULL;
  memset(c->token_hash, 0, sizeof c->token_hash);
  c->addr[0] = '\0';
  c->conn = conn;
  c->peer = NULL;
  c->remote = NULL;
  c->route_id = 0;
  c->hello_wait = NULL;
}

#endif
