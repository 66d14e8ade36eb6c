/* The node (srv_cluster.h): Redis, its id, lane and presence, the tick, the messages between
 * nodes, the stop. */
#include "srv_cluster_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_log.h"
#include "srv_rand.h"
#include "srv_time_uv.h"

/* The node of its tick timer (the timer's data is SRV_OWN_TAG, as every handle of ours). */
#define OF_TICK(t) ((srv_cluster *)((char *)(t)-offsetof(srv_cluster, tick)))

/* The tick: leases and presence renewed every third of a lease, the nodes this one depends on
 * checked and waiting commands retried every second. */
#define TICK_MS 1000

uint64_t srv_cluster__now(const srv_cluster *cl) {
  return cl->d.time->now(cl->d.time);
}

void srv_cluster__key(char out[KEY_SIZE], const char *prefix, const char *name) {
  snprintf(out, KEY_SIZE, "mancala:%.24s:%.24s", prefix, name); /* Ids and codes: 6 to 16. */
}

void srv_cluster__run_here(srv_cluster *cl, srv_client *c, const char *frame, size_t len) {
  bool was = cl->bypass;
  cl->bypass = true;
  srv_dispatch_frame(cl->d.dispatch, c, frame, len);
  cl->bypass = was;
}

/* ---- Messages from other nodes ------------------------------------------------------------ */

/* Every message starts with its kind: C a command, O a frame, G a connection gone, M a room that
 * moved, R a command back from a node that does not run its room (srv_cluster_route.c). */
static void on_message(void *ud, const char *channel, size_t clen, const char *msg, size_t len) {
  srv_cluster *cl = ud;
  if (cl->stopping)
    return; /* Its leases are being given back: nothing more is run here. */
  if (clen == strlen("mancala:lobby") && memcmp(channel, "mancala:lobby", clen) == 0) {
    srv_cluster__lobby_message(cl, msg, len);
    return;
  }
  if (clen == strlen("mancala:mine") && memcmp(channel, "mancala:mine", clen) == 0) {
    srv_cluster__mine_message(cl, msg, len);
    return;
  }
  if (len < 2)
    return;
  switch (msg[0]) {
  case 'C':
    srv_cluster__on_command(cl, msg + 1, len - 1);
    break;
  case 'O':
    srv_cluster__on_frame(cl, msg + 1, len - 1);
    break;
  case 'G':
    srv_cluster__on_gone(cl, msg + 1, len - 1);
    break;
  case 'M':
    srv_cluster__on_moved(cl, msg + 1, len - 1);
    break;
  case 'R':
    srv_cluster__on_redirect(cl, msg + 1, len - 1);
    break;
  default:
    srv_log_warn("cluster", "a message of unknown kind '%c' on %.*s", msg[0], (int)clen, channel);
  }
}

static void announce(srv_cluster *cl);

static void on_state(void *ud, bool up) {
  srv_cluster *cl = ud;
  cl->stats.redis_up = up;
  if (up) {
    srv_log_info("cluster", "Redis is up (node %s)", cl->node);
    /* Present again at once (a Redis that restarted lost every key), and the others' presence
     * not judged before they could say so too. */
    if (!cl->stopping) {
      announce(cl);
      srv_cluster__leases_load(cl); /* A Redis that restarted lost its scripts, */
      srv_cluster__sweep_join(cl);  /* and the nodes' set. */
    }
    cl->peers_from = srv_cluster__now(cl) + (uint64_t)cl->cfg.lease_ms;
  } else
    srv_log_warn("cluster", "Redis is down: rooms whose lease cannot be renewed refuse moves "
                            "(unavailable) until it is back");
}

/* ---- Presence and the tick ------------------------------------------------------------------ */

static void announce(srv_cluster *cl) {
  char key[KEY_SIZE], ms[24];
  srv_cluster__key(key, "node", cl->node);
  snprintf(ms, sizeof ms, "%lld", (long long)cl->cfg.lease_ms);
  const char *argv[] = {"SET", key, "1", "PX", ms};
  (void)srv_redis_command(cl->redis, NULL, NULL, 5, argv, NULL);
}

/* A node this one depends on: alive (its presence key is there) or dead. */
typedef struct presence_check {
  srv_cluster *cl;
  char node[NODE_ID_LEN + 1];
} presence_check;

static void presence_answered(void *arg, const redisReply *reply) {
  presence_check *p = arg;
  if (reply != NULL && reply->type == REDIS_REPLY_INTEGER && reply->integer == 0 &&
      !p->cl->stopping) {
    srv_log_warn("cluster", "node %s is gone (its presence lapsed)", p->node);
    srv_cluster__node_dead(p->cl, p->node);
    srv_cluster__lobby_node_dead(p->cl, p->node);
  }
  free(p);
}

static void check_peers(srv_cluster *cl) {
  if (srv_cluster__now(cl) < cl->peers_from)
    return;
  char peers[64][NODE_ID_LEN + 1];
  int n = srv_cluster__peers(cl, peers, 64);
  for (int i = 0; i < n; i++) {
    presence_check *p = malloc(sizeof *p);
    if (p == NULL)
      return;
    p->cl = cl;
    memcpy(p->node, peers[i], sizeof p->node);
    char key[KEY_SIZE];
    srv_cluster__key(key, "node", peers[i]);
    const char *argv[] = {"EXISTS", key};
    if (srv_redis_command(cl->redis, presence_answered, p, 2, argv, NULL) != 0)
      free(p);
  }
}

static void on_tick(uv_timer_t *t) {
  srv_cluster *cl = OF_TICK(t);
  if (cl->stopping)
    return;
  cl->ticks++;
  uint64_t per_renewal = (uint64_t)cl->cfg.lease_ms / 3 / TICK_MS;
  bool renew = per_renewal == 0 || cl->ticks % per_renewal == 0;
  if (srv_redis_up(cl->redis)) {
    if (renew)
      announce(cl);
    check_peers(cl);
    srv_cluster__sweep_tick(cl);
  }
  srv_cluster__leases_tick(cl, renew);
  srv_cluster__routes_tick(cl);
  srv_cluster__lobby_tick(cl, renew);
}

/* ---- Start ---------------------------------------------------------------------------------- */

typedef struct start_wait {
  bool answered;
  long long value;
} start_wait;

static void lane_answered(void *arg, const redisReply *reply) {
  start_wait *w = arg;
  w->answered = true;
  w->value = reply != NULL && reply->type == REDIS_REPLY_INTEGER ? reply->integer : -1;
}

/* Runs the loop until pred(arg) or ms pass. */
static bool run_until(srv_cluster *cl, bool (*pred)(void *), void *arg, int64_t ms) {
  uint64_t until = uv_now(cl->d.loop) + (uint64_t)ms;
  while (!pred(arg)) {
    if (uv_now(cl->d.loop) >= until)
      return false;
    uv_run(cl->d.loop, UV_RUN_ONCE);
  }
  return true;
}

static bool is_up(void *arg) {
  return srv_redis_up(((srv_cluster *)arg)->redis);
}

static bool is_answered(void *arg) {
  return ((start_wait *)arg)->answered;
}

/* A timer that keeps the loop from blocking for ever in run_until() while nothing else is due. */
static void on_nudge(uv_timer_t *t) {
  (void)t;
}

int srv_cluster_new(const srv_cluster_config *cfg, const srv_cluster_deps *deps,
                    srv_cluster **out) {
  *out = NULL;
  if (cfg == NULL || cfg->redis_url == NULL || deps == NULL || deps->store == NULL ||
      !srv_store_is_network(deps->store) || strlen(cfg->redis_url) >= 256)
    return SRV_EBADREQ;
  srv_cluster *cl = calloc(1, sizeof *cl);
  if (cl == NULL)
    return SRV_ENOMEM;
  cl->cfg = *cfg;
  snprintf(cl->url, sizeof cl->url, "%s", cfg->redis_url);
  cl->cfg.redis_url = cl->url;
  if (cl->cfg.lease_ms <= 0)
    cl->cfg.lease_ms = 10000;
  if (cl->cfg.wait_ms <= 0)
    cl->cfg.wait_ms = 60000;
  cl->d = *deps;
  cl->next_conn = 1;
  uint8_t raw[NODE_ID_LEN / 2];
  int rc = srv_rand_bytes(raw, sizeof raw);
  if (rc != 0) {
    free(cl);
    return rc;
  }
  for (size_t i = 0; i < sizeof raw; i++)
    snprintf(cl->node + 2 * i, 3, "%02x", raw[i]);
  srv_cluster__key(cl->channel, "to", cl->node);
  snprintf(cl->stats.node, sizeof cl->stats.node, "%s", cl->node);
  if (srv_hash_init(&cl->leases, 64) != 0 || srv_hash_init(&cl->routes, 64) != 0 ||
      srv_hash_init(&cl->routed, 64) != 0 || srv_hash_init(&cl->standins, 64) != 0 ||
      srv_hash_init(&cl->held_conns, 64) != 0) {
    srv_cluster_free(cl);
    return SRV_ENOMEM;
  }
  if ((cl->reader = srv_reader_new(deps->store)) == NULL ||
      (deps->work != NULL && srv_reader_use_work(cl->reader, deps->work) != 0)) {
    srv_log_error("cluster", "cannot open the cluster's reader of PostgreSQL");
    srv_cluster_free(cl);
    return SRV_ESTORAGE;
  }
  srv_redis_config rc_cfg = {.url = cl->url, .message = on_message, .state = on_state, .ud = cl};
  if ((rc = srv_redis_new(deps->loop, &rc_cfg, &cl->redis)) != 0) {
    srv_log_error("cluster", "bad Redis URL %s", cl->url);
    srv_cluster_free(cl);
    return rc;
  }
  if (srv_redis_subscribe(cl->redis, cl->channel) != 0 || srv_cluster__lobby_new(cl) != 0 ||
      srv_cluster__mine_new(cl) != 0) {
    srv_cluster_free(cl);
    return SRV_ENOMEM;
  }
  /* Before serving: Redis up, and a lane of game ids. */
  uv_timer_t nudge;
  uv_timer_init(deps->loop, &nudge);
  nudge.data = SRV_OWN_TAG;
  uv_timer_start(&nudge, on_nudge, 100, 100);
  srv_log_info("cluster", "node %s: waiting for Redis at %s", cl->node, cl->url);
  start_wait w = {false, -1};
  bool up = run_until(cl, is_up, cl, cl->cfg.wait_ms);
  if (up) {
    const char *argv[] = {"INCR", "mancala:lanes"};
    if (srv_redis_command(cl->redis, lane_answered, &w, 2, argv, NULL) == 0)
      run_until(cl, is_answered, &w, 10000);
  }
  uv_close((uv_handle_t *)&nudge, NULL);
  uv_run(deps->loop, UV_RUN_NOWAIT);
  if (!up || w.value <= 0) {
    srv_log_error("cluster", "Redis at %s %s", cl->url,
                  up ? "gave no lane for the game ids" : "did not answer in time");
    srv_redis_close(cl->redis);
    cl->redis = NULL;
    uv_run(deps->loop, UV_RUN_NOWAIT);
    srv_cluster_free(cl);
    return SRV_EUNAVAILABLE;
  }
  if (srv_store_fence_all(deps->store) != 0) {
    srv_cluster_free(cl);
    return SRV_EBADREQ;
  }
  cl->lane = (int)((w.value - 1) % SRV_GAME_ID_LANES);
  cl->stats.lane = cl->lane;
  srv_rooms_set_game_id_lane(deps->rooms, cl->lane);
  announce(cl);
  uv_timer_init(deps->loop, &cl->tick);
  cl->tick.data = SRV_OWN_TAG;
  uv_timer_start(&cl->tick, on_tick, TICK_MS, TICK_MS);
  cl->d.dispatch->router.route = srv_cluster__route;
  cl->d.dispatch->router.gone = srv_cluster__gone;
  cl->d.dispatch->router.resumed = srv_cluster__resumed;
  cl->d.dispatch->router.ud = cl;
  srv_log_info("cluster",
               "node %s joined through Redis at %s (lane %d of the game ids, leases "
               "of %lld ms)",
               cl->node, cl->url, cl->lane, (long long)cl->cfg.lease_ms);
  *out = cl;
  return 0;
}

void srv_cluster_sink(srv_cluster *cl, srv_sink *out) {
  *out = (srv_sink){srv_cluster__queue, srv_cluster__lost, cl};
}

/* ---- Stop ------------------------------------------------------------------------------------ */

static void stop_over(srv_cluster *cl) {
  if (cl->stop_done == NULL)
    return;
  void (*done)(void *) = cl->stop_done;
  cl->stop_done = NULL;
  uv_timer_stop(&cl->tick);
  uv_close((uv_handle_t *)&cl->tick, NULL);
  srv_redis_close(cl->redis);
  cl->redis = NULL;
  done(cl->stop_arg);
}

static void stop_answered(void *arg, const redisReply *reply) {
  srv_cluster *cl = arg;
  (void)reply;
  if (--cl->stop_left == 0)
    stop_over(cl);
}

static void on_stop_timeout(uv_timer_t *t) {
  stop_over(OF_TICK(t));
}

void srv_cluster_stop(srv_cluster *cl, void (*done)(void *arg), void *arg) {
  cl->stopping = true;
  srv_cluster__standins_drop(cl);
  srv_cluster__mine_stop(cl);
  cl->stop_done = done;
  cl->stop_arg = arg;
  cl->stop_left = 1; /* Until every release is sent. */
  srv_cluster__leases_stop(cl, stop_answered);
  srv_cluster__lobby_stop(cl);
  char key[KEY_SIZE];
  srv_cluster__key(key, "node", cl->node);
  const char *argv[] = {"DEL", key};
  if (srv_redis_command(cl->redis, stop_answered, cl, 2, argv, NULL) == 0)
    cl->stop_left++;
  /* Redis answers in about a millisecond; one that does not answer is not waited for long (the
   * leases lapse by themselves). */
  uv_timer_stop(&cl->tick);
  uv_timer_start(&cl->tick, on_stop_timeout, 1000, 0);
  stop_answered(cl, NULL);
}

void srv_cluster_release(srv_cluster *cl, uint64_t cut) {
  srv_cluster__mine_flush(cl);
  srv_cluster__publish(cl, cut);
}

void srv_cluster_free(srv_cluster *cl) {
  if (cl == NULL)
    return;
  outgoing *o;
  while ((o = cl->out_head) != NULL) {
    cl->out_head = o->next;
    srv_frame_unref(o->frame);
    free(o);
  }
  srv_cluster__routes_free(cl);
  srv_cluster__leases_free(cl);
  srv_cluster__lobby_free(cl);
  srv_cluster__mine_free(cl);
  srv_reader_free(cl->reader); /* After the loop ran its last jobs' answers. */
  srv_hash_dispose(&cl->leases);
  srv_hash_dispose(&cl->routes);
  srv_hash_dispose(&cl->routed);
  srv_hash_dispose(&cl->standins);
  srv_hash_dispose(&cl->held_conns); /* Empty between two walks: nothing to unlink. */
  free(cl);
}

void srv_cluster_stats_get(const srv_cluster *cl, srv_cluster_stats *out) {
  *out = cl->stats;
  out->leases = cl->held; /* Not those being taken: their answer has not come yet. */
  out->standins = (long)srv_hash_count(&cl->standins);
  if (cl->redis != NULL) {
    srv_redis_stats rs;
    srv_redis_stats_get(cl->redis, &rs);
    out->redis_up = rs.up;
    out->redis_commands = rs.commands;
    out->redis_rtt_avg_ms = rs.rtt_avg_ms;
  }
}
