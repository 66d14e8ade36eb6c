/* The account names a guest may not take (see srv_taken.h). */
#include "srv_taken.h"

#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_hash.h"
#include "srv_log.h"
#include "srv_names.h"

/* One account: three nodes, by player id, by key and by skeleton (keys and skeletons may repeat:
 * accounts made before a rule tightened). Its strings follow it in the same allocation. */
typedef struct entry {
  srv_hash_node by_player, by_key, by_skel;
  const char *player, *key, *skel;
} entry;

struct srv_taken {
  srv_hash players, keys, skels;
};

static bool player_is(const srv_hash_node *n, const void *k) {
  return strcmp(srv_hash_entry(n, entry, by_player)->player, k) == 0;
}
static bool key_is(const srv_hash_node *n, const void *k) {
  return strcmp(srv_hash_entry(n, entry, by_key)->key, k) == 0;
}
static bool skel_is(const srv_hash_node *n, const void *k) {
  return strcmp(srv_hash_entry(n, entry, by_skel)->skel, k) == 0;
}

srv_taken *srv_taken_new(void) {
  srv_taken *t = calloc(1, sizeof *t);
  if (t == NULL)
    return NULL;
  if (srv_hash_init(&t->players, 64) != 0) {
    free(t);
    return NULL;
  }
  if (srv_hash_init(&t->keys, 64) != 0) {
    srv_hash_dispose(&t->players);
    free(t);
    return NULL;
  }
  if (srv_hash_init(&t->skels, 64) != 0) {
    srv_hash_dispose(&t->keys);
    srv_hash_dispose(&t->players);
    free(t);
    return NULL;
  }
  return t;
}

static void entry_drop(srv_taken *t, entry *e) {
  srv_hash_remove(&t->players, &e->by_player);
  srv_hash_remove(&t->keys, &e->by_key);
  srv_hash_remove(&t->skels, &e->by_skel);
  free(e);
}

void srv_taken_free(srv_taken *t) {
  if (t == NULL)
    return;
  srv_hash_node *n = srv_hash_first(&t->players);
  while (n != NULL) {
    srv_hash_node *next = srv_hash_next(&t->players, n);
    entry_drop(t, srv_hash_entry(n, entry, by_player));
    n = next;
  }
  srv_hash_dispose(&t->skels);
  srv_hash_dispose(&t->keys);
  srv_hash_dispose(&t->players);
  free(t);
}

/* The key and the skeleton of name; false when either cannot be made or is empty. */
static bool readings(const char *name, char key[SRV_NAME_KEY_SIZE],
                     char skel[SRV_NAME_SKELETON_SIZE]) {
  return srv_names_key(name, key, SRV_NAME_KEY_SIZE) > 0 &&
         srv_names_skeleton(name, skel, SRV_NAME_SKELETON_SIZE) > 0;
}

int srv_taken_add(srv_taken *t, const char *player, const char *name) {
  char key[SRV_NAME_KEY_SIZE], skel[SRV_NAME_SKELETON_SIZE];
  if (t == NULL || player == NULL || name == NULL || !readings(name, key, skel))
    return SRV_ENAMEINVALID;
  size_t np = strlen(player) + 1, nk = strlen(key) + 1, ns = strlen(skel) + 1;
  entry *e = malloc(sizeof *e + np + nk + ns);
  if (e == NULL)
    return SRV_ENOMEM;
  char *s = (char *)(e + 1);
  e->player = memcpy(s, player, np);
  e->key = memcpy(s + np, key, nk);
  e->skel = memcpy(s + np + nk, skel, ns);
  srv_taken_remove(t, player);
  srv_hash_insert(&t->players, &e->by_player, srv_hash_str(e->player));
  srv_hash_insert(&t->keys, &e->by_key, srv_hash_str(e->key));
  srv_hash_insert(&t->skels, &e->by_skel, srv_hash_str(e->skel));
  return 0;
}

void srv_taken_remove(srv_taken *t, const char *player) {
  if (t == NULL || player == NULL)
    return;
  srv_hash_node *n = srv_hash_find(&t->players, srv_hash_str(player), player_is, player);
  if (n != NULL)
    entry_drop(t, srv_hash_entry(n, entry, by_player));
}

static int load_one(void *arg, const char *player, const char *name) {
  int rc = srv_taken_add(arg, player, name);
  if (rc == SRV_ENAMEINVALID) {
    srv_log_warn("account", "account %s: its name has no key or skeleton; not guarded", player);
    return 0;
  }
  return rc;
}

int srv_taken_load(srv_taken *t, srv_store *store) {
  int rc = srv_store_account_names(store, load_one, t);
  if (rc == SRV_ENOMEM)
    return rc;
  if (rc < 0) {
    srv_log_error("account", "cannot read the accounts' names: %s (%s)", srv_store_strerror(rc),
                  srv_store_last_error(store));
    return SRV_ESTORAGE;
  }
  return 0;
}

/* The first account under hash/eq/k in table that is not except's; NULL when none. off is the
 * node's offset in an entry. */
static const entry *first_other(const srv_hash *table, size_t off, srv_hash_eq eq, const char *k,
                                const char *except) {
  for (srv_hash_node *n = srv_hash_find(table, srv_hash_str(k), eq, k); n != NULL;
       n = srv_hash_find_next(n, eq, k)) {
    const entry *e = (const entry *)((const char *)n - off);
    if (except == NULL || strcmp(e->player, except) != 0)
      return e;
  }
  return NULL;
}

int srv_taken_find(const srv_taken *t, const char *name, const char *except, const char **owner) {
  char key[SRV_NAME_KEY_SIZE], skel[SRV_NAME_SKELETON_SIZE];
  *owner = NULL;
  if (srv_names_key(name, key, sizeof key) < 0 || srv_names_skeleton(name, skel, sizeof skel) < 0)
    return SRV_ENAMEINVALID;
  const entry *e = NULL;
  if (key[0] != '\0')
    e = first_other(&t->keys, offsetof(entry, by_key), key_is, key, except);
  if (e == NULL && skel[0] != '\0')
    e = first_other(&t->skels, offsetof(entry, by_skel), skel_is, skel, except);
  if (e != NULL)
    *owner = e->player;
  return 0;
}

size_t srv_taken_count(const srv_taken *t) {
  return t == NULL ? 0 : srv_hash_count(&t->players);
}
