/* Attempt counters in a sliding window (see srv_attempts.h): a hash table of keys (srv_hash.h),
 * each with the times of its last max attempts in a ring, and a list of keys by last attempt for
 * eviction. */
#include "srv_attempts.h"

#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_hash.h"
#include "srv_list.h"

typedef struct entry {
  char *key;
  srv_hash_node hnode; /* a->by_key */
  srv_list lru;        /* a->lru: least recently tried first. */
  int n, head;         /* Attempts kept; the ring's oldest slot. */
  uint64_t times[];    /* max slots. */
} entry;

struct srv_attempts {
  int max;
  uint64_t window;
  size_t max_keys;
  srv_hash by_key;
  srv_list lru;
};

static bool entry_is(const srv_hash_node *node, const void *key) {
  return strcmp(srv_hash_entry(node, entry, hnode)->key, key) == 0;
}

srv_attempts *srv_attempts_new(int max, uint64_t window_ms, size_t max_keys) {
  if (max < 1 || window_ms < 1 || max_keys < 1)
    return NULL;
  srv_attempts *a = calloc(1, sizeof *a);
  if (a == NULL)
    return NULL;
  a->max = max;
  a->window = window_ms;
  a->max_keys = max_keys;
  if (srv_hash_init(&a->by_key, 256) != 0) {
    free(a);
    return NULL;
  }
  srv_list_init(&a->lru);
  return a;
}

static void entry_unlink(srv_attempts *a, entry *e) {
  srv_hash_remove(&a->by_key, &e->hnode);
  srv_list_remove(&e->lru);
  free(e->key);
  free(e);
}

void srv_attempts_free(srv_attempts *a) {
  if (a == NULL)
    return;
  srv_list_foreach_safe (it, &a->lru)
    entry_unlink(a, srv_list_entry(it, entry, lru));
  srv_hash_dispose(&a->by_key);
  free(a);
}

static entry *find(const srv_attempts *a, const char *key) {
  srv_hash_node *node = srv_hash_find(&a->by_key, srv_hash_str(key), entry_is, key);
  return node ? srv_hash_entry(node, entry, hnode) : NULL;
}

/* Drops the attempts of e that left the window at now. */
static void expire(const srv_attempts *a, entry *e, uint64_t now) {
  while (e->n > 0 && now - e->times[e->head] >= a->window) {
    e->head = (e->head + 1) % a->max;
    e->n--;
  }
}

uint64_t srv_attempts_wait(srv_attempts *a, const char *key, uint64_t now) {
  entry *e = find(a, key);
  if (e == NULL)
    return 0;
  expire(a, e, now);
  if (e->n < a->max)
    return 0;
  return e->times[e->head] + a->window - now;
}

int srv_attempts_add(srv_attempts *a, const char *key, uint64_t now) {
  entry *e = find(a, key);
  if (e == NULL) {
    if (srv_hash_count(&a->by_key) >= a->max_keys)
      entry_unlink(a, srv_list_entry(srv_list_first(&a->lru), entry, lru));
    size_t len = strlen(key);
    e = calloc(1, sizeof *e + (size_t)a->max * sizeof e->times[0]);
    if (e == NULL || (e->key = malloc(len + 1)) == NULL) {
      free(e);
      return SRV_ENOMEM;
    }
    memcpy(e->key, key, len + 1);
    srv_hash_insert(&a->by_key, &e->hnode, srv_hash_str(key));
  } else {
    srv_list_remove(&e->lru);
    expire(a, e, now);
  }
  srv_list_push_back(&a->lru, &e->lru);
  if (e->n == a->max) {
    e->head = (e->head + 1) % a->max; /* The oldest gives way. */
    e->n--;
  }
  e->times[(e->head + e->n) % a->max] = now;
  e->n++;
  return 0;
}

void srv_attempts_clear(srv_attempts *a, const char *key) {
  entry *e = find(a, key);
  if (e != NULL)
    entry_unlink(a, e);
}

size_t srv_attempts_count(const srv_attempts *a) {
  return srv_hash_count(&a->by_key);
}
