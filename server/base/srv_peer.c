/* Per-address bookkeeping (see srv_peer.h): a hash table (srv_hash.h) of reference-counted
 * entries. */
#include "srv_peer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct srv_peers {
  srv_hash by_key; /* srv_peer.hnode */
};

static bool peer_is(const srv_hash_node *node, const void *key) {
  return strcmp(srv_hash_entry(node, srv_peer, hnode)->key, key) == 0;
}

srv_peers *srv_peers_new(void) {
  srv_peers *t = calloc(1, sizeof *t);
  if (t == NULL)
    return NULL;
  if (srv_hash_init(&t->by_key, 256) != 0) {
    free(t);
    return NULL;
  }
  return t;
}

void srv_peers_free(srv_peers *t) {
  if (t == NULL)
    return;
  for (srv_hash_node *node = srv_hash_first(&t->by_key), *next; node != NULL; node = next) {
    next = srv_hash_next(&t->by_key, node);
    free(srv_hash_entry(node, srv_peer, hnode));
  }
  srv_hash_dispose(&t->by_key);
  free(t);
}

srv_peer *srv_peers_get(srv_peers *t, const char *key) {
  size_t h = srv_hash_str(key);
  srv_hash_node *node = srv_hash_find(&t->by_key, h, peer_is, key);
  if (node != NULL) {
    srv_peer *p = srv_hash_entry(node, srv_peer, hnode);
    p->refs++;
    return p;
  }
  srv_peer *p = calloc(1, sizeof *p);
  if (p == NULL)
    return NULL;
  snprintf(p->key, sizeof p->key, "%s", key);
  p->refs = 1;
  p->owner = t;
  srv_hash_insert(&t->by_key, &p->hnode, h);
  return p;
}

void srv_peer_ref(srv_peer *p) {
  if (p != NULL)
    p->refs++;
}

void srv_peer_unref(srv_peer *p) {
  if (p == NULL || --p->refs > 0)
    return;
  srv_hash_remove(&p->owner->by_key, &p->hnode);
  free(p);
}

size_t srv_peers_count(const srv_peers *t) {
  return srv_hash_count(&t->by_key);
}

bool srv_peer_take_hello(srv_peer *p, uint64_t now_ms, int per_minute, int burst) {
  if (p->hello_ms == 0 || now_ms < p->hello_ms) {
    p->hello_tokens = burst;
  } else {
    p->hello_tokens += (double)(now_ms - p->hello_ms) * per_minute / 60000.0;
    if (p->hello_tokens > burst)
      p->hello_tokens = burst;
  }
  p->hello_ms = now_ms;
  if (p->hello_tokens < 1.0)
    return false;
  p->hello_tokens -= 1.0;
  return true;
}
