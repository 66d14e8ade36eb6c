/* A node of a cluster (issue 21, docs/cluster.md): several mancala-server processes share one
 * PostgreSQL (everything durable) and one Redis (who runs which room, and the messages between
 * nodes), behind a plain load balancer; any node accepts any client for any room.
 *
 * - Ownership: one node runs a room at a time, under a lease in Redis (mancala:lease:CODE, the
 *   node's id, PX --cluster-lease-ms, renewed every third of it by a compare-and-extend script,
 *   released on a clean stop). Taking a room over raises its game's owner epoch in PostgreSQL
 *   (srv_store_game_claim()): a node that lost its lease during a pause can never commit a move
 *   of it (a fencing token; a Redis lock alone is not a guarantee).
 * - Routing: a command for a room run elsewhere is published to the owner's channel
 *   (mancala:to:ID) with the connection's id and player; the owner runs it for a stand-in client
 *   of that connection and publishes every frame for it back to the connection's node, in order
 *   (one publisher, one subscriber: Redis keeps the order). Nothing durable depends on pub/sub:
 *   a lost message is a lost request or frame, which the client's request timeout and resync
 *   already cover (docs/protocol.md).
 * - Take-over: a node whose presence key (mancala:node:ID) lapsed is dead; the rooms it ran are
 *   taken over by the next node that needs them (a command, or a member of its own to bring
 *   back), which rebuilds the room from PostgreSQL (srv_recover_room_from()), clocks resuming
 * without charging the gap. Its members on other nodes enter again through the new owner. Rooms
 * nobody asks for are swept (srv_cluster_sweep.c): each node takes over, a few a second, the rooms
 * of the nodes whose presence lapsed (mancala:rooms:NODE), so that their clocks run.
 * - Games in progress: each room's my_rooms entry is written by its owner into its seated
 *   players' hashes in Redis (mancala:mine:PLAYER); a player's list on any node adds them
 *   (srv_cluster_mine.c, srv_myrooms_remote).
 * - Game ids: each node has a lane (srv_rooms_set_game_id_lane()) from a counter in Redis; room
 *   codes are reserved in Redis (the lease itself, SET NX) before a room is made.
 *
 * Everything runs on the loop thread. The rooms stay the loop's: a stand-in is an ordinary
 * srv_client whose frames leave through the cluster's sink instead of a socket.
 */
#ifndef SRV_CLUSTER_H
#define SRV_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "srv_dispatch.h"
#include "srv_ident.h"
#include "srv_lobby.h"
#include "srv_metrics.h"
#include "srv_myrooms.h"
#include "srv_room.h"
#include "srv_send.h"
#include "srv_store.h"
#include "srv_time.h"
#include "srv_work.h"

typedef struct srv_cluster srv_cluster;

typedef struct srv_cluster_config {
  const char *redis_url; /* redis://HOST:PORT[/DB] */
  int64_t lease_ms;      /* A room's lease and a node's presence; 0: 10000. */
  int64_t wait_ms;       /* How long srv_cluster_new() waits for Redis at start; 0: 60000. */
} srv_cluster_config;

/* What the node works with, all borrowed and owned by main. */
typedef struct srv_cluster_deps {
  uv_loop_t *loop;
  srv_time *time;
  srv_rooms *rooms;
  srv_lobby *lobby;     /* Lists the rooms of every node. */
  srv_myrooms *myrooms; /* The players' own lists: their rooms on every node. */
  srv_ident *ident;
  srv_store *store;       /* PostgreSQL (srv_store_is_network()). */
  srv_dispatch *dispatch; /* Its router is set here. */
  srv_work *work;         /* The thread pool its PostgreSQL reads run on (srv_reader.h). */
  srv_sink net;           /* The network layer's sink: this node's own connections. */
  /* The stamp the network layer gives a frame queued now (srv_net_stamp(stamp_ud)): a frame for a
   * stand-in carries it too and leaves when its cut is released, as a local connection's does.
   * NULL: every frame has stamp 0 (released by any cut). */
  uint64_t (*stamp)(void *ud);
  void *stamp_ud;
} srv_cluster_deps;

/* Joins the cluster: connects to Redis (waiting up to wait_ms, running the loop), takes a lane
 * for the game ids, announces the node's presence, and sets the dispatch's router. Returns 0 with
 * *out, SRV_EBADREQ (a bad URL, a store that is not PostgreSQL), SRV_EUNAVAILABLE (no Redis in
 * time), SRV_ESTORAGE (no connection for its reads of PostgreSQL), SRV_ENOMEM. */
int srv_cluster_new(const srv_cluster_config *cfg, const srv_cluster_deps *deps, srv_cluster **out);

/* The sink the rooms, the lobby, the dispatch and the accounts send through: frames for a
 * stand-in go to its node (at srv_cluster_release()), the others to the network layer's sink. */
void srv_cluster_sink(srv_cluster *cl, srv_sink *out);

/* The end of a loop turn, once the storage batch of cut is committed (srv_turn's release, with the
 * cut the network layer releases): the frames queued for stand-ins with a stamp up to cut are
 * published to their nodes, each connection's in the order they were queued (a frame of a later
 * cut holds back those queued after it for its connection, as srv_net's queues do). So a remote
 * client, like a local one, never reads a reply or a state before the writes it reports are
 * durable. */
void srv_cluster_release(srv_cluster *cl, uint64_t cut);

/* The node stops cleanly (after the last commit): its leases are released and its presence
 * removed, so that other nodes take its rooms over at once; then the connections to Redis close.
 * done(arg) runs once that is over (at most about a second). */
void srv_cluster_stop(srv_cluster *cl, void (*done)(void *arg), void *arg);

/* Frees what is left (after srv_cluster_stop()'s done and the loop's handles closed). */
void srv_cluster_free(srv_cluster *cl);

/* What /healthz and /metrics show of the node (srv_metrics.h). */
typedef srv_metrics_cluster srv_cluster_stats;

void srv_cluster_stats_get(const srv_cluster *cl, srv_cluster_stats *out);

#endif
