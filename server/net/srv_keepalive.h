/* Keepalive: which connections to ping and which to hang up, in O(1) per message and O(due) per
 * tick, whatever the number of connections.
 *
 * A connection is pinged once it has sent nothing for ping_ms, and hung up once it has sent
 * nothing (no message, no pong) for hangup_ms. Every connection has the same two delays, so a list
 * kept in the order of each connection's last traffic is also the order of its deadlines: traffic
 * moves the connection to the back of the list (O(1)), and a tick walks from the front only as far
 * as the deadlines that have passed. Two lists: connections not pinged yet, and pinged ones waiting
 * for an answer or their hangup.
 *
 * libwebsockets has the same service built in (its "validity" timers), but lws 4.1 keeps all of
 * its timers in one sorted list, a walk per insertion: with 10,000 connections that walk was most
 * of the server's CPU (docs/performance.md). The network layer drives this module from one coarse
 * libuv timer instead. Nothing here knows lws or libuv: time is a number of milliseconds passed in.
 */
#ifndef SRV_KEEPALIVE_H
#define SRV_KEEPALIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "srv_list.h"

/* One connection's keepalive state, inside the connection (zeroed memory is a valid unlinked one).
 */
typedef struct srv_keepalive_conn {
  srv_list link;    /* In fresh or pinged of its srv_keepalive; unlinked: not watched. */
  uint64_t seen_ms; /* When it last sent anything. */
  bool pinged;      /* In pinged: a ping is (or was) due and no traffic came since. */
} srv_keepalive_conn;

typedef struct srv_keepalive {
  uint64_t ping_ms, hangup_ms;
  srv_list fresh;  /* Not pinged since their last traffic, oldest traffic first. */
  srv_list pinged; /* Pinged, waiting for traffic or the hangup, oldest traffic first. */
} srv_keepalive;

/* What a tick found due: ping kc, or hang it up (it is unlinked before the call: the callback may
 * free it). */
typedef struct srv_keepalive_ops {
  void (*ping)(void *ud, srv_keepalive_conn *kc);
  void (*hangup)(void *ud, srv_keepalive_conn *kc);
  void *ud;
} srv_keepalive_ops;

/* Sets ka up with no connection: ping after ping_ms of silence, hang up after hangup_ms
 * (hangup_ms > ping_ms). */
void srv_keepalive_init(srv_keepalive *ka, uint64_t ping_ms, uint64_t hangup_ms);

/* Starts watching kc (not watched yet), as if it had just sent something at now_ms. */
void srv_keepalive_add(srv_keepalive *ka, srv_keepalive_conn *kc, uint64_t now_ms);

/* kc sent something at now_ms (a message or a pong): its deadlines start again. O(1). A
 * connection that is not watched is left alone. */
void srv_keepalive_seen(srv_keepalive *ka, srv_keepalive_conn *kc, uint64_t now_ms);

/* Stops watching kc (watched or not). */
void srv_keepalive_remove(srv_keepalive_conn *kc);

/* Calls ops->hangup for every connection silent for hangup_ms at now_ms (unlinking it first) and
 * ops->ping once for every connection silent for ping_ms that was not pinged yet. The cost is the
 * number of connections due, plus one. */
void srv_keepalive_tick(srv_keepalive *ka, uint64_t now_ms, const srv_keepalive_ops *ops);

#endif
