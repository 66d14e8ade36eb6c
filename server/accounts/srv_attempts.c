/* Attempt counters with growing delays (see srv_attempts.h): a hash table of keys (srv_hash.h),
 * each with the times of its last attempts in a ring, and a list of keys by last attempt for
 * eviction. */
#include "srv_attempts.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_hash.h"
#include "srv_list.h"

typedef struct entry {
  char *key;
  srv_hash_node hnode; /* a->by_key */
  srv_list lru;        /* a->lru: least recently tried first. */
  int n, head, size;   /* Attempts kept; the ring's oldest slot; its slots. */
  uint64_t *times;     /* The ring: size slots, grown up to a->slots, oldest first from head. */
} entry;

struct srv_attempts {
  srv_attempts_config cfg;
  int slots; /* Times kept per key: free + the doublings that reach the bound. */
  srv_hash by_key;
  srv_list lru;
};

static bool entry_is(const srv_hash_node *node, const void *key) {
  return strcmp(srv_hash_entry(node, entry, hnode)->key, key) == 0;
}

srv_attempts *srv_attempts_new(const srv_attempts_config *cfg) {
  if (cfg->free < 1 || cfg->free > INT_MAX - 64 || cfg->window_ms < 1 || cfg->delay_ms < 1 ||
      cfg->max_delay_ms < cfg->delay_ms || cfg->max_delay_ms > (UINT64_C(1) << 62) ||
      cfg->max_keys < 1)
    return NULL;
  srv_attempts *a = calloc(1, sizeof *a);
  if (a == NULL)
    return NULL;
  a->cfg = *cfg;
  /* With n = free + k attempts kept the wait is already the bound: forgetting older ones (the
   * ring full) cannot shorten it. */
  int k = 1;
  for (uint64_t d = cfg->delay_ms; d < cfg->max_delay_ms; d *= 2)
    k++;
  a->slots = cfg->free + k;
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
  free(e->times);
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

static uint64_t at(const entry *e, int i) {
  return e->times[(e->head + i) % e->size];
}

/* Drops the attempts of e that left the window at now. */
static void expire(const srv_attempts *a, entry *e, uint64_t now) {
  while (e->n > 0 && now - e->times[e->head] >= a->cfg.window_ms) {
    e->head = (e->head + 1) % e->size;
    e->n--;
  }
}

/* The wait after the last of n >= free attempts. */
static uint64_t gap(const srv_attempts *a, int n) {
  uint64_t g = a->cfg.delay_ms;
  for (int k = n - a->cfg.free; k > 0 && g < a->cfg.max_delay_ms; k--)
    g *= 2;
  return g < a->cfg.max_delay_ms ? g : a->cfg.max_delay_ms;
}

uint64_t srv_attempts_wait(srv_attempts *a, const char *key, uint64_t now) {
  entry *e = find(a, key);
  if (e == NULL)
    return 0;
  expire(a, e, now);
  if (e->n < a->cfg.free)
    return 0;
  /* The earliest t >= now when either the gap after the newest attempt has passed, or enough
   * old attempts left the window: walk the times the oldest ones leave. */
  uint64_t last = at(e, e->n - 1), t = now;
  for (int oldest = 0, n = e->n; n >= a->cfg.free; oldest++, n--) {
    uint64_t due = last + gap(a, n), leaves = at(e, oldest) + a->cfg.window_ms;
    if (due <= t)
      break;
    if (due <= leaves) {
      t = due;
      break;
    }
    t = leaves;
  }
  return t - now;
}

/* Doubles e's ring (at most to a->slots), its times in order from slot 0. */
static int grow(const srv_attempts *a, entry *e) {
  int size = e->size == 0 ? 4 : 2 * e->size;
  if (size > a->slots)
    size = a->slots;
  uint64_t *times = malloc((size_t)size * sizeof *times);
  if (times == NULL)
    return SRV_ENOMEM;
  for (int i = 0; i < e->n; i++)
    times[i] = at(e, i);
  free(e->times);
  e->times = times;
  e->size = size;
  e->head = 0;
  return 0;
}

int srv_attempts_add(srv_attempts *a, const char *key, uint64_t now) {
  entry *e = find(a, key);
  if (e == NULL) {
    if (srv_hash_count(&a->by_key) >= a->cfg.max_keys)
      entry_unlink(a, srv_list_entry(srv_list_first(&a->lru), entry, lru));
    size_t len = strlen(key);
    e = calloc(1, sizeof *e);
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
  if (e->n == e->size && e->size < a->slots && grow(a, e) != 0)
    return SRV_ENOMEM;
  if (e->n == e->size) {
    e->head = (e->head + 1) % e->size; /* The oldest gives way. */
    e->n--;
  }
  e->times[(e->head + e->n) % e->size] = now;
  e->n++;
  return 0;
}

void srv_attempts_give_back(srv_attempts *a, const char *key, uint64_t when) {
  entry *e = find(a, key);
  if (e == NULL)
    return;
  for (int i = e->n - 1; i >= 0; i--) {
    if (at(e, i) != when)
      continue;
    /* The newer ones move down a slot. */
    for (int j = i; j + 1 < e->n; j++)
      e->times[(e->head + j) % e->size] = at(e, j + 1);
    if (--e->n == 0)
      entry_unlink(a, e);
    return;
  }
}

void srv_attempts_clear(srv_attempts *a, const char *key) {
  entry *e = find(a, key);
  if (e != NULL)
    entry_unlink(a, e);
}

int srv_attempts_recent(srv_attempts *a, const char *key, uint64_t now) {
  entry *e = find(a, key);
  if (e == NULL)
    return 0;
  expire(a, e, now);
  return e->n;
}

size_t srv_attempts_count(const srv_attempts *a) {
  return srv_hash_count(&a->by_key);
}
