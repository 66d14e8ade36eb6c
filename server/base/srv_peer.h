/* Peers: what each client address holds, for the per-address limits. An entry per address key
 * (srv_addr_key(): an IPv4 address, an IPv6 /64) counts its connections, the rooms created from
 * it, its lobby watchers, and a token bucket of the new identities it may make.
 *
 * Entries are reference-counted by what points at them: a connection (srv_client.peer), a room
 * created from the address. The last reference frees the entry. The loop thread owns it all.
 * Nothing here enforces a limit: each module compares the counts with its own limit (srv_net.c
 * connections, srv_room_join.c rooms, srv_lobby.c watchers, srv_hello.c new identities).
 */
#ifndef SRV_PEER_H
#define SRV_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srv_hash.h"

typedef struct srv_peers srv_peers;

typedef struct srv_peer {
  char key[64];     /* srv_addr_key() */
  int connections;  /* Open WebSocket connections. */
  int rooms;        /* Rooms created from it that are not finished (waiting or playing). */
  int public_rooms; /* Of those, public rooms for two people. */
  int watchers;     /* Its connections watching the lobby. */
  /* When quick play last seated a seeker in a room created from it (monotonic ms; 0: never): its
   * rooms wait behind the seekers of other addresses from then on (srv_room_join.c). */
  uint64_t paired_ms;
  /* New identities (hello without a known token): a token bucket. */
  double hello_tokens;
  uint64_t hello_ms; /* Last refill; 0: never (a full bucket). */
  /* The table's own. */
  int refs;
  srv_peers *owner;
  srv_hash_node hnode;
} srv_peer;

/* Returns a new empty table, or NULL when memory runs out. */
srv_peers *srv_peers_new(void);

/* Frees the table and every entry still in it, referenced or not. NULL is allowed. */
void srv_peers_free(srv_peers *peers);

/* Returns the entry of key (borrowed; a new one when none) with a new reference, the caller's,
 * or NULL when memory runs out. */
srv_peer *srv_peers_get(srv_peers *peers, const char *key);

/* Takes a reference to p (NULL allowed). */
void srv_peer_ref(srv_peer *p);

/* Gives back a reference to p (NULL allowed); the last one frees it. */
void srv_peer_unref(srv_peer *p);

/* Returns how many entries the table holds. */
size_t srv_peers_count(const srv_peers *peers);

/* Takes one token from p's bucket of new identities (per_minute tokens a minute, at most burst
 * at once) at monotonic time now_ms. Returns true when one was there. */
bool srv_peer_take_hello(srv_peer *p, uint64_t now_ms, int per_minute, int burst);

#endif
