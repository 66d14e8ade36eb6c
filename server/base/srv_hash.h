/* An intrusive hash table, after Linux's hlist and Redis' dict: the node lives inside the element
 * (a srv_hash_node member), so inserting and removing never allocate, and a find costs one hash,
 * one bucket load and a look at the nodes of that one chain.
 *
 * The caller hashes its key (srv_hash_str(), srv_hash_bytes(), srv_hash_ptr() or its own) and
 * gives the hash with the node; the node keeps it. Growing rehashes from the kept hashes, without
 * calling back, and a find asks the caller's equality (eq) only about nodes whose whole hash is
 * the key's. The table does not know keys: it may hold several nodes with equal keys (a multimap,
 * walked with srv_hash_find_next()); a caller that wants one node per key finds before it
 * inserts.
 *
 * The buckets are a power of two; an insert that leaves more nodes than buckets doubles them. The
 * table never shrinks (the tables it serves are bounded by a limit: a few bytes a bucket at their
 * peak). Growing can fail only for memory, and that is not an error: the table keeps its buckets
 * and its chains are longer, still correct. So only srv_hash_init() can fail.
 *
 * Ownership: the table owns its bucket array, never the nodes. The caller allocates and frees its
 * elements, removes a node before it frees it (or disposes of the table first), and never inserts
 * a node that is in a table. Nothing here is thread-safe: the loop thread owns every table.
 *
 *   typedef struct peer { char key[64]; srv_hash_node hnode; } peer;
 *   static bool peer_is(const srv_hash_node *n, const void *key) {
 *     return strcmp(srv_hash_entry(n, peer, hnode)->key, key) == 0;
 *   }
 *   srv_hash peers;
 *   if (srv_hash_init(&peers, 256) != 0) ...
 *   srv_hash_insert(&peers, &p->hnode, srv_hash_str(p->key));
 *   srv_hash_node *n = srv_hash_find(&peers, srv_hash_str(key), peer_is, key);
 *   srv_hash_remove(&peers, &p->hnode);
 *   srv_hash_dispose(&peers);
 */
#ifndef SRV_HASH_H
#define SRV_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct srv_hash_node {
  struct srv_hash_node *next; /* The table's: the rest of the chain. */
  size_t hash;                /* The table's: the hash the node was inserted with. */
} srv_hash_node;

/* Read only outside srv_hash.c. */
typedef struct srv_hash {
  srv_hash_node **buckets;
  size_t mask; /* Buckets - 1. */
  size_t count;
} srv_hash;

/* Whether node's element has key (the caller's, as given to srv_hash_find()). */
typedef bool (*srv_hash_eq)(const srv_hash_node *node, const void *key);

/* The element of type that holds node ptr in its member. */
#define srv_hash_entry(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

/* Makes t an empty table of at least buckets buckets (rounded up to a power of two). Returns 0
 * or SRV_ENOMEM (t is then not a table). */
int srv_hash_init(srv_hash *t, size_t buckets);

/* Frees t's buckets; its nodes are left as they are (the caller's). t is then not a table. */
void srv_hash_dispose(srv_hash *t);

/* Adds node (in no table) under hash. Never fails (see above); may grow the table. */
void srv_hash_insert(srv_hash *t, srv_hash_node *node, size_t hash);

/* Takes node out of t; a node that is not in t is left alone. Never shrinks the table. */
void srv_hash_remove(srv_hash *t, srv_hash_node *node);

/* Every node of t in no particular order: the first (NULL when t is empty) and the one after node
 * (NULL at the end). The walker may remove (and free) node once it has its next; inserting ends
 * the walk (it may grow the table). */
srv_hash_node *srv_hash_first(const srv_hash *t);
srv_hash_node *srv_hash_next(const srv_hash *t, const srv_hash_node *node);

/* Returns how many nodes t holds. */
static inline size_t srv_hash_count(const srv_hash *t) {
  return t->count;
}

/* The next node after node (excluded) on its chain whose hash is hash and for which eq says key,
 * or NULL. */
static inline srv_hash_node *srv_hash_scan_(srv_hash_node *node, size_t hash, srv_hash_eq eq,
                                            const void *key) {
  for (; node != NULL; node = node->next) {
    if (node->hash == hash && eq(node, key))
      return node;
  }
  return NULL;
}

/* Returns a node of t inserted under hash for which eq(node, key) is true (key borrowed), or
 * NULL. Inline, so that a hot caller with a static eq pays no call. */
static inline srv_hash_node *srv_hash_find(const srv_hash *t, size_t hash, srv_hash_eq eq,
                                           const void *key) {
  return srv_hash_scan_(t->buckets[hash & t->mask], hash, eq, key);
}

/* Returns the next node after node (found with the same eq and key) that matches too, or NULL:
 * with srv_hash_find(), the walk over every node of a key. */
static inline srv_hash_node *srv_hash_find_next(const srv_hash_node *node, srv_hash_eq eq,
                                                const void *key) {
  return srv_hash_scan_(node->next, node->hash, eq, key);
}

/* ---- Hashes ---------------------------------------------------------------------------------- */

/* FNV-1a (64 bits) of n bytes at p. */
static inline size_t srv_hash_bytes(const void *p, size_t n) {
  const unsigned char *s = p;
  uint64_t h = 0xcbf29ce484222325u; /* The FNV offset basis. */
  for (size_t i = 0; i < n; i++)
    h = (h ^ s[i]) * 0x100000001b3u; /* The FNV prime. */
  return (size_t)h;
}

/* FNV-1a (64 bits) of the string s, without its NUL. */
static inline size_t srv_hash_str(const char *s) {
  return srv_hash_bytes(s, strlen(s));
}

/* A hash of the address p (MurmurHash3's finalizer): its low bits vary even though pointers'
 * own low bits do not. */
static inline size_t srv_hash_ptr(const void *p) {
  uint64_t h = (uint64_t)(uintptr_t)p;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdu;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53u;
  h ^= h >> 33;
  return (size_t)h;
}

#endif
