/* Metrics: process-wide counters and the one place every metric is rendered, as Prometheus text
 * for /metrics and as JSON for /healthz; the gauges other modules own (connections, players,
 * rooms, the store's counters) come in with each rendering. Only the loop thread touches them.
 */
#ifndef SRV_METRICS_H
#define SRV_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include <stdbool.h>

#include "mc_pos.h"
#include "mc_rules.h"
#include "srv_store.h"

/* What other modules own, read at each rendering. */
/* A cluster's node (server/cluster/srv_cluster.h), as /healthz and /metrics show it. */
typedef struct srv_metrics_cluster {
  char node[17];       /* This node's id. */
  int lane;            /* Its lane of game ids. */
  bool redis_up;       /* Both connections to Redis are up. */
  long leases;         /* Rooms this node holds a lease on. */
  long standins;       /* Connections of other nodes in rooms of this node. */
  uint64_t forwarded;  /* Commands sent to the node that runs their room. */
  uint64_t received;   /* Commands received from other nodes. */
  uint64_t frames_out; /* Frames published for other nodes' connections. */
  uint64_t frames_in;  /* Frames received for this node's connections. */
  uint64_t takeovers;  /* Rooms taken over from a node that stopped. */
  uint64_t renewals;   /* Leases renewed. */
  uint64_t swept;      /* Rooms of gone nodes taken over by the sweep (counted in takeovers too). */
  uint64_t renewal_batches; /* Renewal scripts sent (one a renewal tick for up to 1,000 leases). */
  uint64_t leases_lost;     /* Leases found taken by another node (the room left this node). */
  uint64_t redis_commands;  /* Round trips to Redis, and their mean time. */
  double redis_rtt_avg_ms;
} srv_metrics_cluster;

typedef struct srv_metrics_gauges {
  long connections;
  long players;
  long rooms[3];         /* waiting, playing, finished */
  bool storage;          /* Durable storage is on: its counters are rendered too. */
  srv_store_stats store; /* srv_store_get_stats() */
  const char *backend;   /* srv_store_backend(): "sqlite", "postgresql" (NULL: not said). */
  bool unreachable;      /* The database cannot be reached now (PostgreSQL down): degraded. */
  int inflight;          /* Batches handed over, their outcome not known yet (0 or 1). */
  const srv_metrics_cluster *cluster; /* A cluster's node, or NULL: one process. */
  bool egtb;              /* The computer's endgame tables (server/computer/srv_egtb.h): */
  const char *egtb_state; /* "ready", "building", "missing", "failed", "none". */
  int egtb_loaded;        /* Tables in use, */
  int egtb_tables;        /* of the set. */
  double egtb_seconds;    /* The build's time so far (building) or what it took (ready). */
} srv_metrics_gauges;

/* The counters. They cannot fail; unknown kinds, reasons and codes are ignored or counted as
 * internal. srv_metrics_reset() zeroes everything (tests). */
void srv_metrics_reset(void);
void srv_metrics_game_started(mc_kind kind);
void srv_metrics_game_finished(mc_kind kind, mc_reason reason);
void srv_metrics_move(void);
void srv_metrics_error(int err);
void srv_metrics_dropped(unsigned long messages);
void srv_metrics_handled(uint64_t ns); /* Time spent handling one incoming message. */

/* Writes the Prometheus text exposition into a new malloc'd string (the caller frees it), with
 * the current gauges g (borrowed). Returns NULL when memory runs out. */
char *srv_metrics_prometheus(const srv_metrics_gauges *g);

/* Storage health, for /healthz (as Redis answers MISCONF while it cannot persist). Called once per
 * loop turn after the turn's commit (the network layer does, at the loop boundary) with the store's
 * counters (borrowed). A turn whose commits lost a batch (failed_commits grew) or that answered a
 * request with storage_error makes storage degraded; a later turn with a good commit (commits grew)
 * and neither makes it ok again. The first call only takes the counters as they are. */
void srv_metrics_storage_turn(const srv_store_stats *st);

/* Whether storage is degraded now (see srv_metrics_storage_turn()); a gauge saying the database is
 * unreachable (g, NULL allowed) makes it degraded too. */
bool srv_metrics_storage_degraded(const srv_metrics_gauges *g);

/* Writes the /healthz JSON object into a new malloc'd string (the caller frees it); g and version
 * are borrowed. "status" is "ok", or "degraded" with a "reason" while storage refuses writes (the
 * caller answers 503 then: srv_metrics_storage_degraded()). Returns NULL when memory runs out. */
/* Whether /healthz says degraded (503): storage refuses writes, or a cluster's Redis is down. */
bool srv_metrics_degraded(const srv_metrics_gauges *g);

char *srv_metrics_health(const srv_metrics_gauges *g, const char *version, uint64_t uptime_ms);

#endif
