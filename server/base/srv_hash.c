/* The intrusive hash table (see srv_hash.h): chains of nodes in a power-of-two array of buckets,
 * doubled when the nodes outnumber them. */
#include "srv_hash.h"

#include <stdlib.h>

#include "srv_error.h"

int srv_hash_init(srv_hash *t, size_t buckets) {
  size_t n = 1;
  while (n < buckets && n <= SIZE_MAX / 2 / sizeof *t->buckets)
    n *= 2;
  t->buckets = calloc(n, sizeof *t->buckets);
  if (t->buckets == NULL)
    return SRV_ENOMEM;
  t->mask = n - 1;
  t->count = 0;
  return 0;
}

void srv_hash_dispose(srv_hash *t) {
  free(t->buckets);
  t->buckets = NULL;
  t->mask = 0;
  t->count = 0;
}

/* Doubles the buckets; without memory, keeps them (longer chains, still correct). */
static void grow(srv_hash *t) {
  size_t n = t->mask + 1;
  if (n > SIZE_MAX / 2 / sizeof *t->buckets)
    return;
  srv_hash_node **b = calloc(2 * n, sizeof *b);
  if (b == NULL)
    return;
  size_t mask = 2 * n - 1;
  for (size_t i = 0; i < n; i++) {
    for (srv_hash_node *node = t->buckets[i], *next; node != NULL; node = next) {
      next = node->next;
      srv_hash_node **head = &b[node->hash & mask];
      node->next = *head;
      *head = node;
    }
  }
  free(t->buckets);
  t->buckets = b;
  t->mask = mask;
}

void srv_hash_insert(srv_hash *t, srv_hash_node *node, size_t hash) {
  srv_hash_node **head = &t->buckets[hash & t->mask];
  node->hash = hash;
  node->next = *head;
  *head = node;
  if (++t->count > t->mask + 1)
    grow(t);
}

void srv_hash_remove(srv_hash *t, srv_hash_node *node) {
  srv_hash_node **pp = &t->buckets[node->hash & t->mask];
  while (*pp != NULL && *pp != node)
    pp = &(*pp)->next;
  if (*pp == NULL)
    return;
  *pp = node->next;
  node->next = NULL;
  t->count--;
}

/* The first node of the first non-empty bucket from b on, or NULL. */
static srv_hash_node *first_from(const srv_hash *t, size_t b) {
  for (; b <= t->mask; b++) {
    if (t->buckets[b] != NULL)
      return t->buckets[b];
  }
  return NULL;
}

srv_hash_node *srv_hash_first(const srv_hash *t) {
  return first_from(t, 0);
}

srv_hash_node *srv_hash_next(const srv_hash *t, const srv_hash_node *node) {
  if (node->next != NULL)
    return node->next;
  return first_from(t, (node->hash & t->mask) + 1);
}
