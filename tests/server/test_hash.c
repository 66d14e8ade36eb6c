/* The intrusive hash table (srv_hash.h): insert, find and remove; growth across many entries;
 * removing while walking; keys that collide, in one bucket or under one whole hash; several nodes
 * of one key; the hashes' spread. */
#include "srv_hash.h"
#include "task.h"

typedef struct item {
  int key;
  srv_hash_node hnode;
  int seen; /* Times a walk met it. */
} item;

static bool item_is(const srv_hash_node *node, const void *key) {
  return srv_hash_entry(node, item, hnode)->key == *(const int *)key;
}

/* A hash with a good spread: the key's bytes. */
static size_t good(int key) {
  return srv_hash_bytes(&key, sizeof key);
}

static item *find(const srv_hash *t, int key, size_t (*hash)(int)) {
  srv_hash_node *node = srv_hash_find(t, hash(key), item_is, &key);
  return node ? srv_hash_entry(node, item, hnode) : NULL;
}

static size_t buckets(const srv_hash *t) {
  return t->mask + 1;
}

TEST_IMPL(insert_find_remove) {
  srv_hash t;
  ASSERT_EQ(srv_hash_init(&t, 100), 0);
  ASSERT_EQ(buckets(&t), 128); /* Rounded up to a power of two. */
  ASSERT_EQ(srv_hash_count(&t), 0);
  ASSERT_NULL(srv_hash_first(&t));
  ASSERT_NULL(find(&t, 1, good));

  item a = {.key = 1}, b = {.key = 2}, c = {.key = 3};
  srv_hash_insert(&t, &a.hnode, good(a.key));
  srv_hash_insert(&t, &b.hnode, good(b.key));
  srv_hash_insert(&t, &c.hnode, good(c.key));
  ASSERT_EQ(srv_hash_count(&t), 3);
  ASSERT(find(&t, 1, good) == &a);
  ASSERT(find(&t, 2, good) == &b);
  ASSERT(find(&t, 3, good) == &c);
  ASSERT_NULL(find(&t, 4, good));

  srv_hash_remove(&t, &b.hnode);
  ASSERT_EQ(srv_hash_count(&t), 2);
  ASSERT_NULL(find(&t, 2, good));
  ASSERT(find(&t, 1, good) == &a);
  ASSERT(find(&t, 3, good) == &c);
  /* A node that is not in the table is left alone. */
  srv_hash_remove(&t, &b.hnode);
  ASSERT_EQ(srv_hash_count(&t), 2);
  /* And it can go back in. */
  srv_hash_insert(&t, &b.hnode, good(b.key));
  ASSERT(find(&t, 2, good) == &b);
  ASSERT_EQ(srv_hash_count(&t), 3);

  srv_hash_dispose(&t);
  ASSERT_NULL(t.buckets);

  /* No bucket asked for: one, and it still grows. */
  ASSERT_EQ(srv_hash_init(&t, 0), 0);
  ASSERT_EQ(buckets(&t), 1);
  srv_hash_insert(&t, &a.hnode, good(a.key));
  srv_hash_insert(&t, &b.hnode, good(b.key));
  ASSERT_EQ(buckets(&t), 2);
  ASSERT(find(&t, 1, good) == &a);
  ASSERT(find(&t, 2, good) == &b);
  srv_hash_dispose(&t);
  return 0;
}

/* 20,000 entries from 4 buckets: the buckets double whenever the nodes outnumber them, every
 * entry stays findable, and removing never shrinks. */
TEST_IMPL(growth) {
  enum { N = 20000 };
  item *items = calloc(N, sizeof *items);
  ASSERT_NOT_NULL(items);
  srv_hash t;
  ASSERT_EQ(srv_hash_init(&t, 4), 0);
  for (int i = 0; i < N; i++) {
    items[i].key = i * 7919;
    srv_hash_insert(&t, &items[i].hnode, good(items[i].key));
    ASSERT_EQ(srv_hash_count(&t), i + 1);
    ASSERT_LE(srv_hash_count(&t), buckets(&t));
    ASSERT_EQ(buckets(&t) & t.mask, 0); /* A power of two. */
  }
  ASSERT_EQ(buckets(&t), 32768);
  for (int i = 0; i < N; i++)
    ASSERT(find(&t, i * 7919, good) == &items[i]);
  ASSERT_NULL(find(&t, 1, good));

  /* The spread of good(): no chain much longer than the average (below 1). */
  size_t longest = 0;
  for (size_t b = 0; b < buckets(&t); b++) {
    size_t n = 0;
    for (srv_hash_node *node = t.buckets[b]; node != NULL; node = node->next)
      n++;
    longest = n > longest ? n : longest;
  }
  ASSERT_LE(longest, 12);

  for (int i = 0; i < N; i += 2)
    srv_hash_remove(&t, &items[i].hnode);
  ASSERT_EQ(srv_hash_count(&t), N / 2);
  ASSERT_EQ(buckets(&t), 32768);
  for (int i = 0; i < N; i++)
    ASSERT(find(&t, i * 7919, good) == (i % 2 ? &items[i] : NULL));
  srv_hash_dispose(&t);
  free(items);
  return 0;
}

/* A walk meets every node once; the walker may remove (and free) the node it is on once it has
 * the next one, as the modules' free functions do. */
TEST_IMPL(walk_and_remove) {
  enum { N = 1000 };
  srv_hash t;
  ASSERT_EQ(srv_hash_init(&t, 16), 0);
  for (int i = 0; i < N; i++) {
    item *it = calloc(1, sizeof *it);
    ASSERT_NOT_NULL(it);
    it->key = i;
    srv_hash_insert(&t, &it->hnode, good(i));
  }
  /* A plain walk. */
  size_t n = 0;
  for (srv_hash_node *node = srv_hash_first(&t); node != NULL; node = srv_hash_next(&t, node)) {
    srv_hash_entry(node, item, hnode)->seen++;
    n++;
  }
  ASSERT_EQ(n, N);
  /* Remove the odd keys while walking; each node is met once more. */
  n = 0;
  for (srv_hash_node *node = srv_hash_first(&t), *next; node != NULL; node = next) {
    next = srv_hash_next(&t, node);
    item *it = srv_hash_entry(node, item, hnode);
    ASSERT_EQ(it->seen, 1);
    it->seen++;
    n++;
    if (it->key % 2) {
      srv_hash_remove(&t, node);
      free(it);
    }
  }
  ASSERT_EQ(n, N);
  ASSERT_EQ(srv_hash_count(&t), N / 2);
  for (int i = 0; i < N; i++) {
    item *it = find(&t, i, good);
    ASSERT(i % 2 ? it == NULL : it != NULL && it->seen == 2);
  }
  /* Free everything while walking: the table ends empty. */
  for (srv_hash_node *node = srv_hash_first(&t), *next; node != NULL; node = next) {
    next = srv_hash_next(&t, node);
    srv_hash_remove(&t, node);
    free(srv_hash_entry(node, item, hnode));
  }
  ASSERT_EQ(srv_hash_count(&t), 0);
  ASSERT_NULL(srv_hash_first(&t));
  srv_hash_dispose(&t);
  return 0;
}

/* The worst hash: every key under one hash, so one chain, and eq alone tells them apart. */
static size_t same(int key) {
  (void)key;
  return 42;
}

/* Keys apart by a multiple of the buckets: one bucket, whole hashes apart. */
static size_t low(int key) {
  return (size_t)key << 20;
}

TEST_IMPL(collisions) {
  enum { N = 64 };
  item items[N];
  size_t (*hashes[])(int) = {same, low};
  for (int h = 0; h < 2; h++) {
    srv_hash t;
    ASSERT_EQ(srv_hash_init(&t, 8), 0);
    for (int i = 0; i < N; i++) {
      items[i] = (item){.key = i};
      srv_hash_insert(&t, &items[i].hnode, hashes[h](i));
    }
    ASSERT_EQ(srv_hash_count(&t), N);
    /* Growth kept them together: one chain, of them all. */
    srv_hash_node *chain = NULL;
    for (size_t b = 0; b < buckets(&t); b++) {
      ASSERT(t.buckets[b] == NULL || chain == NULL);
      chain = chain ? chain : t.buckets[b];
    }
    ASSERT_NOT_NULL(chain);
    for (int i = 0; i < N; i++)
      ASSERT(find(&t, i, hashes[h]) == &items[i]);
    ASSERT_NULL(find(&t, N, hashes[h]));
    /* Out of the chain: its head, one in the middle, its tail. */
    srv_hash_node *middle = chain, *tail = chain;
    for (int i = 0; i < N / 2; i++)
      middle = middle->next;
    while (tail->next != NULL)
      tail = tail->next;
    int gone[] = {srv_hash_entry(chain, item, hnode)->key, srv_hash_entry(middle, item, hnode)->key,
                  srv_hash_entry(tail, item, hnode)->key};
    for (int g = 0; g < 3; g++) {
      srv_hash_remove(&t, &items[gone[g]].hnode);
      ASSERT_NULL(find(&t, gone[g], hashes[h]));
    }
    ASSERT_EQ(srv_hash_count(&t), N - 3);
    for (int i = 0; i < N; i++) {
      bool removed = i == gone[0] || i == gone[1] || i == gone[2];
      ASSERT(find(&t, i, hashes[h]) == (removed ? NULL : &items[i]));
    }
    srv_hash_dispose(&t);
  }
  return 0;
}

/* Several nodes under one key (my_rooms' watchers of one player): find and find_next meet each
 * once, and no node of another key. */
TEST_IMPL(same_key) {
  srv_hash t;
  ASSERT_EQ(srv_hash_init(&t, 4), 0);
  item items[30];
  for (int i = 0; i < 30; i++) {
    items[i] = (item){.key = i % 3};
    srv_hash_insert(&t, &items[i].hnode, i % 3 == 2 ? same(0) : good(i % 3));
  }
  for (int key = 0; key < 3; key++) {
    size_t h = key == 2 ? same(0) : good(key), n = 0;
    for (srv_hash_node *node = srv_hash_find(&t, h, item_is, &key); node != NULL;
         node = srv_hash_find_next(node, item_is, &key)) {
      item *it = srv_hash_entry(node, item, hnode);
      ASSERT_EQ(it->key, key);
      ASSERT_EQ(it->seen, 0);
      it->seen++;
      n++;
    }
    ASSERT_EQ(n, 10);
  }
  srv_hash_dispose(&t);
  return 0;
}

/* The hashes: strings hash as their bytes; addresses of neighbours spread over the low bits. */
TEST_IMPL(hashes) {
  ASSERT_EQ(srv_hash_str("abc"), srv_hash_bytes("abc", 3));
  ASSERT_EQ(srv_hash_str(""), srv_hash_bytes("", 0));
  ASSERT_NE(srv_hash_str("ab"), srv_hash_str("ba"));
  /* FNV-1a 64 of "a", as published. */
  ASSERT_EQ((uint64_t)srv_hash_str("a"), 0xaf63dc4c8601ec8cu);

  static item neighbours[256];
  bool hit[64] = {false};
  for (int i = 0; i < 256; i++)
    hit[srv_hash_ptr(&neighbours[i]) & 63] = true;
  int used = 0;
  for (int b = 0; b < 64; b++)
    used += hit[b];
  ASSERT_GE(used, 56);
  ASSERT_EQ(srv_hash_ptr(&neighbours[0]), srv_hash_ptr(&neighbours[0]));
  return 0;
}
