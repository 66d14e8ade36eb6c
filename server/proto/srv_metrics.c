/* Counters and their two renderings. */
#include "srv_metrics.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srv_error.h"
#include "srv_msg.h"

#define N_KINDS 3
#define N_REASONS 9
/* Upper bounds of the message handling histogram, in seconds. */
static const double bounds[] = {0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005,
                                0.001,   0.0025,   0.005,   0.01,   0.05};
#define N_BOUNDS (sizeof bounds / sizeof bounds[0])

static struct {
  unsigned long long started[N_KINDS];
  unsigned long long finished[N_KINDS][N_REASONS];
  unsigned long long moves;
  unsigned long long errors[SRV_ERROR_COUNT];
  unsigned long long dropped;
  unsigned long long buckets[N_BOUNDS + 1];
  unsigned long long handled;
  double handled_sum;
  struct {
    bool sampled;                 /* The counters below were taken once. */
    uint64_t game_writes, failed; /* The store's counters at the last turn. */
    unsigned long long answered;  /* storage_error answers at the last turn. */
    bool degraded;
    time_t since;                     /* When it became degraded (wall clock). */
    unsigned long long lost, refused; /* Failed commits, storage_error answers since. */
  } storage;
} m;

void srv_metrics_reset(void) {
  memset(&m, 0, sizeof m);
}

void srv_metrics_game_started(mc_kind kind) {
  if ((unsigned)kind < N_KINDS)
    m.started[kind]++;
}

void srv_metrics_game_finished(mc_kind kind, mc_reason reason) {
  if ((unsigned)kind < N_KINDS && (unsigned)reason < N_REASONS)
    m.finished[kind][reason]++;
}

void srv_metrics_move(void) {
  m.moves++;
}

void srv_metrics_error(int err) {
  m.errors[srv_err_index(err)]++;
}

void srv_metrics_dropped(unsigned long messages) {
  m.dropped += messages;
}

void srv_metrics_handled(uint64_t ns) {
  double s = (double)ns / 1e9;
  size_t i = 0;
  while (i < N_BOUNDS && s > bounds[i])
    i++;
  m.buckets[i]++;
  m.handled++;
  m.handled_sum += s;
}

void srv_metrics_storage_turn(const srv_store_stats *st) {
  unsigned long long answered = m.errors[srv_err_index(SRV_ESTORAGE)];
  /* Good: a commit that stored a game's writes (a move, a start, a result). The writes a lost batch
   * has its rooms record again commit without them: they do not say storage takes writes again. */
  uint64_t good = st->game_writes - m.storage.game_writes;
  uint64_t lost = st->failed_commits - m.storage.failed;
  unsigned long long refused = answered - m.storage.answered;
  if (!m.storage.sampled) {
    m.storage.sampled = true;
    good = lost = refused = 0;
  }
  m.storage.game_writes = st->game_writes;
  m.storage.failed = st->failed_commits;
  m.storage.answered = answered;
  if (lost > 0 || refused > 0) {
    if (!m.storage.degraded) {
      m.storage.degraded = true;
      m.storage.since = time(NULL);
      m.storage.lost = m.storage.refused = 0;
    }
    m.storage.lost += lost;
    m.storage.refused += refused;
  } else if (good > 0) {
    m.storage.degraded = false;
  }
}

/* A cluster's node whose Redis is down serves no room of another node and keeps its own only
 * while their leases last. */
static bool cluster_down(const srv_metrics_gauges *g) {
  return g != NULL && g->cluster != NULL && !g->cluster->redis_up;
}

bool srv_metrics_storage_degraded(const srv_metrics_gauges *g) {
  if (g != NULL && g->storage && g->unreachable)
    return true;
  return m.storage.degraded;
}

/* A growing string buffer for the text rendering. */
typedef struct sbuf {
  char *p;
  size_t len, cap;
  int failed;
} sbuf;

__attribute__((format(printf, 2, 3))) static void put(sbuf *b, const char *fmt, ...) {
  if (b->failed)
    return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->failed = 1;
      return;
    }
    if ((size_t)n < b->cap - b->len) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = b->cap * 2 + (size_t)n;
    char *p = realloc(b->p, cap);
    if (p == NULL) {
      b->failed = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
}

char *srv_metrics_prometheus(const srv_metrics_gauges *g) {
  sbuf b = {malloc(4096), 0, 4096, 0};
  if (b.p == NULL)
    return NULL;
  b.p[0] = '\0';
  put(&b,
      "# HELP mancala_connections Open WebSocket connections.\n"
      "# TYPE mancala_connections gauge\nmancala_connections %ld\n",
      g->connections);
  put(&b,
      "# HELP mancala_players Players in memory (with a connection or a seat).\n"
      "# TYPE mancala_players gauge\nmancala_players %ld\n",
      g->players);
  put(&b, "# HELP mancala_rooms Rooms by status.\n# TYPE mancala_rooms gauge\n");
  for (int s = 0; s < 3; s++)
    put(&b, "mancala_rooms{status=\"%s\"} %ld\n", srv_status_names[s], g->rooms[s]);
  put(&b, "# HELP mancala_games_started_total Games started, by game.\n"
          "# TYPE mancala_games_started_total counter\n");
  for (int k = 0; k < N_KINDS; k++)
    put(&b, "mancala_games_started_total{game=\"%s\"} %llu\n", mc_kind_name((mc_kind)k),
        m.started[k]);
  put(&b, "# HELP mancala_games_finished_total Games finished, by game and reason.\n"
          "# TYPE mancala_games_finished_total counter\n");
  for (int k = 0; k < N_KINDS; k++) {
    for (int r = 1; r < N_REASONS; r++)
      put(&b, "mancala_games_finished_total{game=\"%s\",reason=\"%s\"} %llu\n",
          mc_kind_name((mc_kind)k), mc_reason_name((mc_reason)r), m.finished[k][r]);
  }
  put(&b,
      "# HELP mancala_moves_total Moves accepted.\n# TYPE mancala_moves_total counter\n"
      "mancala_moves_total %llu\n",
      m.moves);
  put(&b, "# HELP mancala_errors_total Error frames sent, by code.\n"
          "# TYPE mancala_errors_total counter\n");
  for (int i = 0; i < SRV_ERROR_COUNT; i++)
    put(&b, "mancala_errors_total{code=\"%s\"} %llu\n", srv_err_code(i + SRV_E_BASE_ + 1),
        m.errors[i]);
  put(&b,
      "# HELP mancala_dropped_messages_total Outgoing messages never sent: superseded by a "
      "newer state or dropped with a connection that did not read.\n"
      "# TYPE mancala_dropped_messages_total counter\nmancala_dropped_messages_total %llu\n",
      m.dropped);
  put(&b, "# HELP mancala_message_seconds Time to handle one incoming message.\n"
          "# TYPE mancala_message_seconds histogram\n");
  unsigned long long cum = 0;
  for (size_t i = 0; i < N_BOUNDS; i++) {
    cum += m.buckets[i];
    put(&b, "mancala_message_seconds_bucket{le=\"%g\"} %llu\n", bounds[i], cum);
  }
  cum += m.buckets[N_BOUNDS];
  put(&b, "mancala_message_seconds_bucket{le=\"+Inf\"} %llu\n", cum);
  put(&b, "mancala_message_seconds_sum %.9f\nmancala_message_seconds_count %llu\n", m.handled_sum,
      m.handled);
  if (g->storage) {
    const srv_store_stats *st = &g->store;
    put(&b,
        "# HELP mancala_store_commits_total Transactions committed (one per loop turn with "
        "writes).\n# TYPE mancala_store_commits_total counter\n"
        "mancala_store_commits_total %" PRIu64 "\n"
        "# HELP mancala_store_failed_commits_total Batches lost to a storage error.\n"
        "# TYPE mancala_store_failed_commits_total counter\n"
        "mancala_store_failed_commits_total %" PRIu64 "\n"
        "# HELP mancala_store_writes_total Rows written.\n"
        "# TYPE mancala_store_writes_total counter\n"
        "mancala_store_writes_total %" PRIu64 "\n"
        "# HELP mancala_store_commit_seconds_total Time spent committing.\n"
        "# TYPE mancala_store_commit_seconds_total counter\n"
        "mancala_store_commit_seconds_total %.6f\n"
        "# HELP mancala_store_commit_seconds_max The longest commit.\n"
        "# TYPE mancala_store_commit_seconds_max gauge\n"
        "mancala_store_commit_seconds_max %.6f\n",
        st->commits, st->failed_commits, st->writes, (double)st->commit_ns_total / 1e9,
        (double)st->commit_ns_max / 1e9);
    put(&b,
        "# HELP mancala_store_checkpoints_total Copies of SQLite's log into the database, by "
        "the store's thread (thread) and of the rest on the loop between two batches (loop).\n"
        "# TYPE mancala_store_checkpoints_total counter\n"
        "mancala_store_checkpoints_total{on=\"thread\"} %" PRIu64 "\n"
        "mancala_store_checkpoints_total{on=\"loop\"} %" PRIu64 "\n"
        "# HELP mancala_store_checkpoint_failures_total Checkpoints that failed (tried again).\n"
        "# TYPE mancala_store_checkpoint_failures_total counter\n"
        "mancala_store_checkpoint_failures_total %" PRIu64 "\n"
        "# HELP mancala_store_checkpoint_seconds_max The longest checkpoint.\n"
        "# TYPE mancala_store_checkpoint_seconds_max gauge\n"
        "mancala_store_checkpoint_seconds_max{on=\"thread\"} %.6f\n"
        "mancala_store_checkpoint_seconds_max{on=\"loop\"} %.6f\n",
        st->checkpoints, st->loop_checkpoints, st->checkpoint_failures,
        (double)st->checkpoint_ns_max / 1e9, (double)st->loop_checkpoint_ns_max / 1e9);
    put(&b,
        "# HELP mancala_store_degraded 1 while storage refuses writes (no good commit since the "
        "last failure): /healthz answers 503.\n# TYPE mancala_store_degraded gauge\n"
        "mancala_store_degraded %d\n"
        "# HELP mancala_store_commit_seconds_avg The mean time from a batch handed over to its "
        "commit known.\n# TYPE mancala_store_commit_seconds_avg gauge\n"
        "mancala_store_commit_seconds_avg %.6f\n"
        "# HELP mancala_store_inflight_batches Batches handed over whose outcome is not known "
        "yet.\n"
        "# TYPE mancala_store_inflight_batches gauge\nmancala_store_inflight_batches %d\n"
        "# HELP mancala_store_reachable 0 while the database cannot be reached (PostgreSQL).\n"
        "# TYPE mancala_store_reachable gauge\nmancala_store_reachable %d\n",
        srv_metrics_storage_degraded(g) ? 1 : 0,
        st->commits ? (double)st->commit_ns_total / 1e9 / (double)st->commits : 0.0, g->inflight,
        g->unreachable ? 0 : 1);
  }
  if (g->egtb)
    put(&b,
        "# HELP mancala_egtb_tables The computer's endgame tables in use, of the default set.\n"
        "# TYPE mancala_egtb_tables gauge\nmancala_egtb_tables{state=\"loaded\"} %d\n"
        "mancala_egtb_tables{state=\"all\"} %d\n"
        "# HELP mancala_egtb_building 1 while the missing tables are being built in the "
        "background.\n# TYPE mancala_egtb_building gauge\nmancala_egtb_building %d\n"
        "# HELP mancala_egtb_build_seconds The build's time so far, or what it took.\n"
        "# TYPE mancala_egtb_build_seconds gauge\nmancala_egtb_build_seconds %.3f\n",
        g->egtb_loaded, g->egtb_tables, strcmp(g->egtb_state, "building") == 0 ? 1 : 0,
        g->egtb_seconds);
  const srv_metrics_cluster *c = g->cluster;
  if (c != NULL)
    put(&b,
        "# HELP mancala_cluster_redis_up 1 while both connections to Redis are up.\n"
        "# TYPE mancala_cluster_redis_up gauge\nmancala_cluster_redis_up %d\n"
        "# HELP mancala_cluster_leases Rooms this node holds a lease on.\n"
        "# TYPE mancala_cluster_leases gauge\nmancala_cluster_leases %ld\n"
        "# HELP mancala_cluster_standins Connections of other nodes in rooms of this node.\n"
        "# TYPE mancala_cluster_standins gauge\nmancala_cluster_standins %ld\n"
        "# HELP mancala_cluster_forwarded_total Commands sent to the node that runs their room.\n"
        "# TYPE mancala_cluster_forwarded_total counter\nmancala_cluster_forwarded_total %" PRIu64
        "\n# HELP mancala_cluster_received_total Commands received from other nodes.\n"
        "# TYPE mancala_cluster_received_total counter\nmancala_cluster_received_total %" PRIu64
        "\n# HELP mancala_cluster_frames_out_total Frames published for other nodes' "
        "connections.\n# TYPE mancala_cluster_frames_out_total counter\n"
        "mancala_cluster_frames_out_total %" PRIu64
        "\n# HELP mancala_cluster_frames_in_total Frames received for this node's connections.\n"
        "# TYPE mancala_cluster_frames_in_total counter\nmancala_cluster_frames_in_total %" PRIu64
        "\n# HELP mancala_cluster_takeovers_total Rooms taken over from a node that stopped.\n"
        "# TYPE mancala_cluster_takeovers_total counter\nmancala_cluster_takeovers_total %" PRIu64
        "\n# HELP mancala_cluster_swept_total Rooms of gone nodes taken over by the sweep.\n"
        "# TYPE mancala_cluster_swept_total counter\nmancala_cluster_swept_total %" PRIu64
        "\n# HELP mancala_cluster_lease_renewals_total Leases renewed.\n"
        "# TYPE mancala_cluster_lease_renewals_total counter\n"
        "mancala_cluster_lease_renewals_total %" PRIu64
        "\n# HELP mancala_cluster_lease_renewal_batches_total Renewal scripts sent to Redis "
        "(EVALSHA, up to 1,000 leases each).\n"
        "# TYPE mancala_cluster_lease_renewal_batches_total counter\n"
        "mancala_cluster_lease_renewal_batches_total %" PRIu64
        "\n# HELP mancala_cluster_leases_lost_total Leases found held by another node.\n"
        "# TYPE mancala_cluster_leases_lost_total counter\nmancala_cluster_leases_lost_total "
        "%" PRIu64 "\n# HELP mancala_cluster_redis_commands_total Round trips to Redis.\n"
        "# TYPE mancala_cluster_redis_commands_total counter\n"
        "mancala_cluster_redis_commands_total %" PRIu64
        "\n# HELP mancala_cluster_redis_rtt_seconds_avg The mean round trip to Redis.\n"
        "# TYPE mancala_cluster_redis_rtt_seconds_avg gauge\nmancala_cluster_redis_rtt_seconds_avg "
        "%.6f\n",
        c->redis_up ? 1 : 0, c->leases, c->standins, c->forwarded, c->received, c->frames_out,
        c->frames_in, c->takeovers, c->swept, c->renewals, c->renewal_batches, c->leases_lost,
        c->redis_commands, c->redis_rtt_avg_ms / 1000.0);
  if (b.failed) {
    free(b.p);
    return NULL;
  }
  return b.p;
}

/* Why storage is degraded, into buf. */
static void degraded_reason(char *buf, size_t size) {
  char since[32] = "?";
  struct tm tm;
  if (gmtime_r(&m.storage.since, &tm) != NULL)
    strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", &tm);
  snprintf(buf, size,
           "storage refuses writes: %llu commits lost their batch and %llu requests were answered "
           "storage_error since %s, and no commit has succeeded since (the log says why)",
           m.storage.lost, m.storage.refused, since);
}

bool srv_metrics_degraded(const srv_metrics_gauges *g) {
  return (g->storage && srv_metrics_storage_degraded(g)) || cluster_down(g);
}

char *srv_metrics_health(const srv_metrics_gauges *g, const char *version, uint64_t uptime_ms) {
  bool degraded = srv_metrics_degraded(g);
  json_t *o = json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I}", "status", degraded ? "degraded" : "ok",
                        "version", version, "uptime", (json_int_t)(uptime_ms / 1000), "uptime_ms",
                        (json_int_t)uptime_ms, "rooms",
                        (json_int_t)(g->rooms[0] + g->rooms[1] + g->rooms[2]), "connections",
                        (json_int_t)g->connections, "players", (json_int_t)g->players,
                        "games_playing", (json_int_t)g->rooms[1]);
  if (o == NULL)
    return NULL;
  if (g->storage && g->backend && json_object_set_new(o, "storage", json_string(g->backend)) != 0) {
    json_decref(o);
    return NULL;
  }
  if (g->egtb) {
    json_t *t = json_pack("{s:s,s:i,s:i}", "state", g->egtb_state, "loaded", g->egtb_loaded,
                          "tables", g->egtb_tables);
    if (t == NULL || json_object_set_new(o, "endgame_tables", t) != 0) {
      json_decref(o);
      return NULL;
    }
  }
  if (g->cluster != NULL) {
    const srv_metrics_cluster *c = g->cluster;
    json_t *cl = json_pack("{s:s,s:i,s:s,s:I,s:I}", "node", c->node, "lane", c->lane, "redis",
                           c->redis_up ? "up" : "down", "leases", (json_int_t)c->leases, "standins",
                           (json_int_t)c->standins);
    if (cl == NULL || json_object_set_new(o, "cluster", cl) != 0) {
      json_decref(o);
      return NULL;
    }
  }
  if (degraded) {
    char reason[256];
    if (cluster_down(g) && !(g->storage && srv_metrics_storage_degraded(g)))
      snprintf(reason, sizeof reason,
               "Redis cannot be reached: rooms of other nodes cannot be played through this one, "
               "and this node's own refuse moves (unavailable) once their leases cannot be kept "
               "(the node connects again by itself)");
    else if (g->unreachable)
      snprintf(reason, sizeof reason,
               "the %s database cannot be reached: moves are refused with storage_error until it "
               "is back (the server connects again by itself; the log says why)",
               g->backend ? g->backend : "storage");
    else
      degraded_reason(reason, sizeof reason);
    if (json_object_set_new(o, "reason", json_string(reason)) != 0) {
      json_decref(o);
      return NULL;
    }
  }
  char *s = json_dumps(o, JSON_COMPACT);
  json_decref(o);
  return s;
}
