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

/* Sets fn(arg) (or clears it with NULL), called once per loop turn at the loop boundary: after the
 * lobby flush and before the frames queued during the turn are released to the sockets. Durable
 * storage commits the turn's moves here, so that nothing is sent before it is stored. */
void srv_net_set_turn_hook(srv_net *net, void (*fn)(void *arg), void *arg);

/* Drops the frames of room code (borrowed) queued during the current loop turn and not released
 * yet (durable storage lost that turn's writes of the room; it sends the room's state again). */
void srv_net_drop_room(srv_net *net, const char *code);

/* HTTP routes of durable storage: GET /api/... and /g/ID (the web client's page). */
typedef struct srv_net_api {
  /* Answers GET uri (borrowed, without the query; limit is the "limit" query argument or NULL):
   * returns the HTTP status and writes into *body a new malloc'd NUL-terminated body (the network
   * layer frees it) and into *type its static content type; *body NULL: out of memory (500). */
  int (*get)(void *ud, const char *uri, const char *limit, char **body, const char **type);
  /* Extra Prometheus text for /metrics, a new malloc'd string, or NULL. */
  char *(*metrics)(void *ud);
  void *ud;
} srv_net_api;

/* Sets the routes of durable storage (api copied, NULL: none). Call before srv_net_start(). */
void srv_net_set_api(srv_net *net, const srv_net_api *api);

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
