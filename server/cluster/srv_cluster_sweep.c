/* The sweep (srv_cluster.h): the rooms of a node that is gone are taken over without waiting for
 * a command, so that their clocks and countdowns run and their waiting rooms are listed again.
 *
 * Every node is in the set mancala:nodes from its start, and every room whose lease it takes is
 * in its set mancala:rooms:NODE (the take script adds it; giving a lease back because the room
 * closed removes it; a clean stop gives its leases back but leaves the set, so that its rooms are
 * swept too). Each second a node asks Redis (one script) which nodes of mancala:nodes have no
 * presence key any more; it takes one of them, reads up to SWEEP_RATE of its rooms (SRANDMEMBER)
 * and takes each over as a command would (the lease with SET NX, so that one node wins; then the
 * claim of the game's epoch and the room read from PostgreSQL). A room that another node holds,
 * that another node took over meanwhile, or that is no longer open leaves the gone node's set; a
 * gone node with an empty set leaves mancala:nodes. */
#include "srv_cluster_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_log.h"

/* Rooms of gone nodes one node takes over a tick (a second), at most. */
#define SWEEP_RATE_S "20"

/* The members of mancala:nodes (KEYS[1]) other than ARGV[1] whose presence lapsed. */
static const char gone_script[] =
    "local gone = {} for _, n in ipairs(redis.call('smembers', KEYS[1])) do "
    "if n ~= ARGV[1] and redis.call('exists', 'mancala:node:' .. n) == 0 then "
    "gone[#gone + 1] = n end end return gone";

/* One room of a gone node being taken over. */
typedef struct sweep_item {
  char node[NODE_ID_LEN + 1]; /* The gone node. */
} sweep_item;

static void sweep_done_one(srv_cluster *cl) {
  if (--cl->sweep_left == 0)
    cl->sweeping = false;
}

/* code leaves the set of the gone node. */
static void forget(srv_cluster *cl, const char *node, const char *code) {
  char key[KEY_SIZE];
  srv_cluster__key(key, "rooms", node);
  const char *argv[] = {"SREM", key, code};
  (void)srv_redis_command(cl->redis, NULL, NULL, 3, argv, NULL);
}

/* A room of a gone node taken over here (or not). */
static void swept_over(srv_cluster *cl, const char *code, int rc, void *arg) {
  sweep_item *it = arg;
  if (cl->stopping) {
    /* Redis may be closed: nothing more. */
  } else if (rc == 0) {
    cl->stats.swept++;
    srv_log_info("cluster", "room %s of gone node %s swept here", code, it->node);
    forget(cl, it->node, code);
  } else {
    srv_cluster__drop_lease(cl, code, true);
    if (rc == SRV_ENOTFOUND)
      forget(cl, it->node, code); /* Closed or over: nothing to run. */
    /* Else (PostgreSQL down, its lease gone meanwhile): tried again at a later sweep. */
  }
  free(it);
  sweep_done_one(cl);
}

static void swept(srv_cluster *cl, const char *code, bool ok, const char *owner, void *arg) {
  sweep_item *it = arg;
  if (cl->stopping) {
    if (ok)
      srv_cluster__drop_lease(cl, code, true); /* Taken as the others were given back. */
  } else if (ok && srv_rooms_find(cl->d.rooms, code) != NULL) {
    forget(cl, it->node, code); /* Here already (a command brought it). */
  } else if (ok) {
    int rc = srv_cluster__take_over(cl, code, swept_over, it);
    if (rc == 0)
      return;              /* swept_over() ends it. */
    if (rc != SRV_EBUSY) { /* EBUSY: a command's take-over is bringing it. */
      swept_over(cl, code, rc, it);
      return;
    }
  } else if (owner[0] != '\0' && strcmp(owner, it->node) != 0) {
    forget(cl, it->node, code); /* Another node runs it now. */
  } /* Else its lease has not lapsed yet (or Redis did not answer): at a later sweep. */
  free(it);
  sweep_done_one(cl);
}

/* A gone node whose rooms are being read. */
typedef struct sweep_node {
  srv_cluster *cl;
  char node[NODE_ID_LEN + 1];
} sweep_node;

static void members_answered(void *arg, const redisReply *reply) {
  sweep_node *g = arg;
  srv_cluster *cl = g->cl;
  if (cl->stopping || reply == NULL || reply->type != REDIS_REPLY_ARRAY) {
    cl->sweeping = false;
    free(g);
    return;
  }
  if (reply->elements == 0) {
    /* All its rooms are elsewhere or over: the node is forgotten. */
    const char *argv[] = {"SREM", "mancala:nodes", g->node};
    (void)srv_redis_command(cl->redis, NULL, NULL, 3, argv, NULL);
    srv_log_info("cluster", "gone node %s: every room of it swept", g->node);
    cl->sweeping = false;
    free(g);
    return;
  }
  cl->sweep_left = 1; /* Until every take is sent. */
  for (size_t i = 0; i < reply->elements; i++) {
    const redisReply *e = reply->element[i];
    if (e->type != REDIS_REPLY_STRING || e->len != SRV_CODE_LEN)
      continue;
    char code[SRV_CODE_LEN + 1];
    memcpy(code, e->str, SRV_CODE_LEN);
    code[SRV_CODE_LEN] = '\0';
    sweep_item *it = malloc(sizeof *it);
    if (it == NULL)
      break;
    memcpy(it->node, g->node, sizeof it->node);
    if (srv_cluster__take(cl, code, swept, it) != 0) {
      free(it);
      break;
    }
    cl->sweep_left++;
  }
  free(g);
  sweep_done_one(cl);
}

static void gone_answered(void *arg, const redisReply *reply) {
  srv_cluster *cl = arg;
  if (cl->stopping || reply == NULL || reply->type != REDIS_REPLY_ARRAY || reply->elements == 0) {
    cl->sweeping = false;
    return;
  }
  /* One gone node a tick, in turn when there are several. */
  const redisReply *e = reply->element[cl->ticks % reply->elements];
  sweep_node *g = malloc(sizeof *g);
  if (e->type != REDIS_REPLY_STRING || e->len == 0 || e->len > NODE_ID_LEN || g == NULL) {
    free(g);
    cl->sweeping = false;
    return;
  }
  g->cl = cl;
  memcpy(g->node, e->str, e->len);
  g->node[e->len] = '\0';
  char key[KEY_SIZE];
  srv_cluster__key(key, "rooms", g->node);
  const char *argv[] = {"SRANDMEMBER", key, SWEEP_RATE_S};
  if (srv_redis_command(cl->redis, members_answered, g, 3, argv, NULL) != 0) {
    free(g);
    cl->sweeping = false;
  }
}

void srv_cluster__sweep_tick(srv_cluster *cl) {
  if (cl->stopping || cl->sweeping || !srv_redis_up(cl->redis) ||
      srv_cluster__now(cl) < cl->peers_from)
    return; /* Nobody's presence is judged before everyone could say so again. */
  const char *argv[] = {"EVAL", gone_script, "1", "mancala:nodes", cl->node};
  cl->sweeping = true;
  if (srv_redis_command(cl->redis, gone_answered, cl, 5, argv, NULL) != 0)
    cl->sweeping = false;
}

void srv_cluster__sweep_join(srv_cluster *cl) {
  const char *argv[] = {"SADD", "mancala:nodes", cl->node};
  (void)srv_redis_command(cl->redis, NULL, NULL, 3, argv, NULL);
}
