/* The lobby and quick play across nodes (srv_cluster.h): each node keeps its own listed rooms in
 * Redis (mancala:lobby:NODE, one value, PX a lease, written when they change and at every
 * renewal) and says so on mancala:lobby; the others read it and list those rooms after their own
 * (srv_lobby_set_foreign()). Quick play on a node with nobody waiting in the pool joins a room
 * waiting in that pool on another node, through the owner as any join.
 *
 * A value is one line per room: CODE \t kind \t pool \t waiting \t entry's JSON \n. */
#include "srv_cluster_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_log.h"
#include "srv_pool.h"

#define LOBBY_CHANNEL "mancala:lobby"

/* One other node's listed rooms. */
typedef struct node_list {
  char node[NODE_ID_LEN + 1];
  uint64_t at; /* Loop time it was read: a node rewrites it at every renewal. */
  srv_lobby_foreign *rooms;
  size_t n;
} node_list;

struct srv_cluster_lobby {
  node_list *nodes;
  size_t nnodes;
};

static void set_foreign(srv_cluster *cl) {
  srv_cluster_lobby *lb = cl->lobby;
  size_t total = 0;
  for (size_t i = 0; i < lb->nnodes; i++)
    total += lb->nodes[i].n;
  srv_lobby_foreign *all = calloc(total ? total : 1, sizeof *all);
  if (all == NULL)
    return;
  size_t k = 0;
  for (size_t i = 0; i < lb->nnodes; i++)
    for (size_t j = 0; j < lb->nodes[i].n; j++)
      all[k++] = lb->nodes[i].rooms[j]; /* Borrowed: set_foreign copies. */
  (void)srv_lobby_set_foreign(cl->d.lobby, all, total);
  free(all);
}

static node_list *list_of(srv_cluster *cl, const char *node, bool make) {
  srv_cluster_lobby *lb = cl->lobby;
  for (size_t i = 0; i < lb->nnodes; i++)
    if (strcmp(lb->nodes[i].node, node) == 0)
      return &lb->nodes[i];
  if (!make)
    return NULL;
  node_list *grown = realloc(lb->nodes, (lb->nnodes + 1) * sizeof *grown);
  if (grown == NULL)
    return NULL;
  lb->nodes = grown;
  node_list *l = &lb->nodes[lb->nnodes++];
  memset(l, 0, sizeof *l);
  snprintf(l->node, sizeof l->node, "%s", node);
  return l;
}

/* Parses a node's value into rooms; false when memory ran out. */
static bool parse(const char *text, size_t len, srv_lobby_foreign **out, size_t *n) {
  size_t lines = 0;
  for (size_t i = 0; i < len; i++)
    lines += text[i] == '\n';
  srv_lobby_foreign *rooms = calloc(lines ? lines : 1, sizeof *rooms);
  if (rooms == NULL)
    return false;
  size_t k = 0;
  const char *p = text, *end = text + len;
  while (p < end && k < lines) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (nl == NULL)
      break;
    char code[16];
    int kind, pool, waiting, used = 0;
    char head[64];
    size_t hl = (size_t)(nl - p) < sizeof head - 1 ? (size_t)(nl - p) : sizeof head - 1;
    memcpy(head, p, hl);
    head[hl] = '\0';
    if (sscanf(head, "%15s\t%d\t%d\t%d\t%n", code, &kind, &pool, &waiting, &used) == 4 &&
        used > 0 && strlen(code) == SRV_CODE_LEN) {
      srv_lobby_foreign *e = &rooms[k];
      memcpy(e->code, code, sizeof e->code);
      e->kind = kind;
      e->pool = pool;
      e->waiting = waiting != 0;
      e->len = (size_t)(nl - p) - (size_t)used;
      if ((e->json = malloc(e->len + 1)) == NULL) {
        srv_lobby_foreign_free(rooms, k);
        return false;
      }
      memcpy(e->json, p + used, e->len);
      e->json[e->len] = '\0';
      k++;
    }
    p = nl + 1;
  }
  *out = rooms;
  *n = k;
  return true;
}

typedef struct lobby_read {
  srv_cluster *cl;
  char node[NODE_ID_LEN + 1];
} lobby_read;

static void read_answered(void *arg, const redisReply *reply) {
  lobby_read *r = arg;
  srv_cluster *cl = r->cl;
  if (reply != NULL && !cl->stopping &&
      (reply->type == REDIS_REPLY_STRING || reply->type == REDIS_REPLY_NIL)) {
    srv_lobby_foreign *rooms = NULL;
    size_t n = 0;
    bool ok = reply->type == REDIS_REPLY_NIL || parse(reply->str, reply->len, &rooms, &n);
    node_list *l = ok ? list_of(cl, r->node, true) : NULL;
    if (l != NULL) {
      srv_lobby_foreign_free(l->rooms, l->n);
      l->rooms = rooms;
      l->n = n;
      l->at = srv_cluster__now(cl);
      set_foreign(cl);
    } else {
      srv_lobby_foreign_free(rooms, n);
    }
  }
  free(r);
}

void srv_cluster__lobby_message(srv_cluster *cl, const char *msg, size_t len) {
  if (len != NODE_ID_LEN || memcmp(msg, cl->node, NODE_ID_LEN) == 0)
    return;
  lobby_read *r = malloc(sizeof *r);
  if (r == NULL)
    return;
  r->cl = cl;
  memcpy(r->node, msg, NODE_ID_LEN);
  r->node[NODE_ID_LEN] = '\0';
  char key[KEY_SIZE];
  srv_cluster__key(key, "lobby", r->node);
  const char *argv[] = {"GET", key};
  if (srv_redis_command(cl->redis, read_answered, r, 2, argv, NULL) != 0)
    free(r);
}

void srv_cluster__lobby_tick(srv_cluster *cl, bool renew) {
  if (cl->d.lobby == NULL || !srv_redis_up(cl->redis))
    return;
  /* A node not heard of for two leases is gone (stopped, or dead without anyone depending on
   * it): its rooms leave the list. */
  srv_cluster_lobby *lb = cl->lobby;
  for (size_t i = 0; i < lb->nnodes;) {
    if (srv_cluster__now(cl) - lb->nodes[i].at > 2 * (uint64_t)cl->cfg.lease_ms)
      srv_cluster__lobby_node_dead(cl, lb->nodes[i].node);
    else
      i++;
  }
  srv_lobby_foreign *rooms = NULL;
  size_t n = 0;
  bool changed = false;
  if (srv_lobby_local(cl->d.lobby, &rooms, &n, &changed) != 0)
    return;
  if (changed || renew) {
    size_t size = 1;
    for (size_t i = 0; i < n; i++)
      size += rooms[i].len + 48;
    char *text = malloc(size);
    size_t used = 0;
    for (size_t i = 0; text != NULL && i < n; i++) {
      const srv_lobby_foreign *e = &rooms[i];
      used += (size_t)snprintf(text + used, size - used, "%s\t%d\t%d\t%d\t", e->code, e->kind,
                               e->pool, e->waiting ? 1 : 0);
      memcpy(text + used, e->json, e->len);
      used += e->len;
      text[used++] = '\n';
    }
    if (text != NULL) {
      char key[KEY_SIZE], ms[24];
      srv_cluster__key(key, "lobby", cl->node);
      snprintf(ms, sizeof ms, "%lld", (long long)cl->cfg.lease_ms);
      const char *argv[] = {"SET", key, text, "PX", ms};
      const size_t lens[] = {3, strlen(key), used, 2, strlen(ms)};
      if (srv_redis_command(cl->redis, NULL, NULL, 5, argv, lens) == 0)
        (void)srv_redis_publish(cl->redis, LOBBY_CHANNEL, cl->node, NODE_ID_LEN);
      free(text);
    }
  }
  srv_lobby_foreign_free(rooms, n);
}

void srv_cluster__lobby_node_dead(srv_cluster *cl, const char *node) {
  node_list *l = list_of(cl, node, false);
  if (l == NULL)
    return;
  srv_lobby_foreign_free(l->rooms, l->n);
  srv_cluster_lobby *lb = cl->lobby;
  *l = lb->nodes[--lb->nnodes];
  set_foreign(cl);
}

void srv_cluster__lobby_stop(srv_cluster *cl) {
  char key[KEY_SIZE];
  srv_cluster__key(key, "lobby", cl->node);
  const char *argv[] = {"DEL", key};
  if (srv_redis_command(cl->redis, NULL, NULL, 2, argv, NULL) == 0)
    (void)srv_redis_publish(cl->redis, LOBBY_CHANNEL, cl->node, NODE_ID_LEN);
}

const char *srv_cluster__lobby_seek(srv_cluster *cl, int pool) {
  srv_cluster_lobby *lb = cl->lobby;
  for (size_t i = 0; lb != NULL && i < lb->nnodes; i++)
    for (size_t j = 0; j < lb->nodes[i].n; j++) {
      const srv_lobby_foreign *e = &lb->nodes[i].rooms[j];
      if (e->waiting && e->pool == pool)
        return e->code;
    }
  return NULL;
}

int srv_cluster__lobby_new(srv_cluster *cl) {
  if ((cl->lobby = calloc(1, sizeof *cl->lobby)) == NULL)
    return SRV_ENOMEM;
  return srv_redis_subscribe(cl->redis, LOBBY_CHANNEL);
}

void srv_cluster__lobby_free(srv_cluster *cl) {
  srv_cluster_lobby *lb = cl->lobby;
  if (lb == NULL)
    return;
  for (size_t i = 0; i < lb->nnodes; i++)
    srv_lobby_foreign_free(lb->nodes[i].rooms, lb->nodes[i].n);
  free(lb->nodes);
  free(lb);
  cl->lobby = NULL;
}
