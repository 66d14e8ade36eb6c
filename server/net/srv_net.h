/* The network layer: libwebsockets on the server's libuv loop. It serves HTTP (the web client,
 * /r/CODE, /healthz, /metrics) and WebSocket /ws (subprotocol mancala.v1) on one port, owns each
 * connection's bounded outgoing queue, enforces the rate and connection limits and keepalive, and
 * runs the clean shutdown.
 */
#ifndef SRV_NET_H
#define SRV_NET_H

#include <uv.h>

#include "srv_config.h"
#include "srv_dispatch.h"
#include "srv_metrics.h"
#include "srv_msg.h"
#include "srv_room.h"

typedef struct srv_net srv_net;

/* Returns a new idle network layer on loop (borrowed; cfg is copied), or NULL when memory runs
 * out. Nothing listens before srv_net_start(). */
srv_net *srv_net_new(uv_loop_t *loop, const srv_config *cfg, const char *version);

/* Writes into *out the network layer's sink (srv_send.h): a frame queues for the client's
 * connection, written when its loop turn is released and the socket is writeable; a client that
 * is lost is dropped. Never closes anything synchronously. */
void srv_net_sink(srv_net *net, srv_sink *out);

/* Creates the lws context and the listening vhost; frames go to d (borrowed). Returns 0, or
 * SRV_EINTERNAL after logging why (then call srv_net_stop() and run the loop to clean up). */
int srv_net_start(srv_net *net, srv_dispatch *d);

/* Sets fn(arg) (or clears it with NULL), called once per loop turn at the loop boundary, before
 * the loop polls: the end of the turn (srv_turn_end()), which releases the turn's frames last with
 * srv_net_release(). Without a hook the frames are released at once. */
void srv_net_set_turn_hook(srv_net *net, void (*fn)(void *arg), void *arg);

/* Releases every frame queued so far to the sockets (without a turn hook, at every turn's end). */
void srv_net_release(void *ud);

/* The network's part in the end of a turn (srv_turn_net; ud is the srv_net). Frames are stamped
 * when queued, and written only once their stamp is released:
 * - srv_net_cut(): the frames queued so far belong to the storage batch being sealed, those
 *   queued from now on to the next one; returns the cut;
 * - srv_net_restamp(): frames queued from now on belong to cut (the batch whose result has
 *   arrived: what it settles and encodes); returns the stamp it replaced, to restore;
 * - srv_net_release_cut(): releases the frames of cut and of every earlier cut. A connection's
 *   frames are written in the order they were queued: one not released holds back those after. */
uint64_t srv_net_cut(void *ud);
uint64_t srv_net_restamp(void *ud, uint64_t cut);
void srv_net_release_cut(void *ud, uint64_t cut);
/* The stamp a frame queued now gets: another sink whose frames must leave with the same batches
 * (a cluster's stand-ins: srv_cluster.h) stamps its own with it and releases them by the same
 * cuts. */
uint64_t srv_net_stamp(void *ud);

/* The HTTP routes the network layer does not own. */
typedef struct srv_net_routes {
  /* Fills *g (zeroed) for /healthz and /metrics; the network layer fills the connections. */
  void (*gauges)(void *ud, srv_metrics_gauges *g);
  void *gauges_ud;
  /* The archive and the players' pages (srv_api_get()): GET /api/... and the pages /g/ID,
   * /@/NAME, /leaderboard/GAME and /settings exist when it is set. query: the URI's arguments.
   * addr: the client's address (its key, srv_addr_key()). The answer comes through done,
   * perhaps later (the storage seam's reads). */
  int (*api)(void *ud, const char *uri, const char *query, const char *addr,
             void (*done)(void *arg, int status, char *body, const char *type), void *arg);
  void *api_ud;
  /* A lookup of an account name (GET /api/players/NAME) from the client's address (its key,
   * srv_addr_key()): 0 when it may happen (counted), else the milliseconds until it may (the
   * answer is then 429). NULL: not counted. */
  int64_t (*lookup)(void *ud, const char *addr);
  void *lookup_ud;
} srv_net_routes;

/* Sets the routes (copied, NULL: none). Call before srv_net_start(). */
void srv_net_set_routes(srv_net *net, const srv_net_routes *routes);

/* Returns the port actually listened on (useful with --port 0), or -1. */
int srv_net_port(const srv_net *net);

/* Starts the shutdown: no new connections, a bye and close 1001 to every client, then lws is torn
 * down. done(arg) is called from the loop once no libwebsockets handle remains; the rooms may
 * then be freed. */
void srv_net_stop(srv_net *net, void (*done)(void *arg), void *arg);

/* Closes the network layer's own handles and frees it (after done was called). The memory is
 * released when the loop has run the close callbacks. */
void srv_net_free(srv_net *net);

#endif
