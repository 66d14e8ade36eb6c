/* Per-address bookkeeping (see srv_peer.h): a hash table of reference-counted entries. */
#include "srv_peer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct srv_peers {
  srv_peer **buckets;
  size_t nbuckets; /* A power of two. */
  size_t count;
};

static size_t hash(const char *key, size_t nbuckets) {
  uint32_t h = 2166136261u;
  for (const char *p = key; *p; p++)
    h = (h ^ (uint8_t)*p) * 16777619u;
  return h & (nbuckets - 1);
}

srv_peers *srv_peers_new(void) {
  srv_peers *t = calloc(1, sizeof *t);
  if (t == NULL)
    return NULL;
  t->nbuckets = 256;
  t->buckets = calloc(t->nbuckets, sizeof *t->buckets);
  if (t->buckets == NULL) {
    free(t);
    return NULL;
  }
  return t;
}

void srv_peers_free(srv_peers *t) {
  if (t == NULL)
    return;
  for (size_t b = 0; b < t->nbuckets; b++) {
    srv_peer *p = t->buckets[b];
    while (p != NULL) {
      srv_peer *next = p->next;
      free(p);
      p = next;
    }
  }
  free(t->buckets);
  free(t);
}

static void grow(srv_peers *t) {
  size_t n = t->nbuckets * 2;
  srv_peer **b = calloc(n, sizeof *b);
  if (b == NULL)
    return; /* Longer chains, still correct. */
  for (size_t i = 0; i < t->nbuckets; i++) {
    srv_peer *p = t->buckets[i];
    while (p != NULL) {
      srv_peer *next = p->next;
      size_t k = hash(p->key, n);
      p->next = b[k];
      b[k] = p;
      p = next;
    }
  }
  free(t->buckets);
  t->buckets = b;
  t->nbuckets = n;
}

srv_peer *srv_peers_get(srv_peers *t, const char *key) {
  size_t k = hash(key, t->nbuckets);
  for (srv_peer *p = t->buckets[k]; p != NULL; p = p->next) {
    if (strcmp(p->key, key) == 0) {
      p->refs++;
      return p;
    }
  }
  srv_peer *p = calloc(1, sizeof *p);
  if (p == NULL)
    return NULL;
  snprintf(p->key, sizeof p->key, "%s", key);
  p->refs = 1;
  p->owner = t;
  p->next = t->buckets[k];
  t->buckets[k] = p;
  if (++t->count > t->nbuckets)
    grow(t);
  return p;
}

void srv_peer_ref(srv_peer *p) {
  if (p != NULL)
    p->refs++;
}

void srv_peer_unref(srv_peer *p) {
  if (p == NULL || --p->refs > 0)
    return;
  srv_peers *t = p->owner;
  srv_peer **pp = &t->buckets[hash(p->key, t->nbuckets)];
  while (*pp != p)
    pp = &(*pp)->next;
  *pp = p->next;
  t->count--;
  free(p);
}

size_t srv_peers_count(const srv_peers *t) {
  return t->count;
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
