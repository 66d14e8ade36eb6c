/* The account names a guest may not take (issue 25, item 6): every account's name key
 * (srv_names_key()) and TR39 skeleton (srv_names_skeleton()), in memory, so that hello can tell a
 * guest's new name from an account's without a read on the loop thread (on PostgreSQL a read is a
 * round trip; hello must not wait for one).
 *
 * The set is read from the store once at start (srv_taken_load()) and kept current by the accounts
 * that change it on this server: a sign-up adds its name, a deleted account goes (an account never
 * changes its name). With one server per database that is every change. Several servers on one
 * PostgreSQL (a cluster) would each have to hear the others' sign-ups and deletions: the node that
 * commits one announces it ("account added/removed <player> <name>") on the channel the nodes
 * share, and each node also reloads the set now and then to cover an announcement it missed; the
 * accounts table's unique key stays the authority for sign-ups, which read it.
 *
 * Ownership: the set copies what it is given. The loop thread owns it; nothing here is
 * thread-safe. */
#ifndef SRV_TAKEN_H
#define SRV_TAKEN_H

#include <stddef.h>

#include "srv_store.h"

typedef struct srv_taken srv_taken;

/* Returns an empty set, or NULL when memory runs out. */
srv_taken *srv_taken_new(void);

/* Frees t and what it holds (NULL allowed). */
void srv_taken_free(srv_taken *t);

/* Adds every committed account of store (borrowed) to t. Returns 0, SRV_ENOMEM, or SRV_ESTORAGE
 * when the read failed (t then holds what was read before). A name whose key or skeleton cannot
 * be made is logged and left out. */
int srv_taken_load(srv_taken *t, srv_store *store);

/* Adds (or replaces) the account of player (borrowed, its public id) named name (borrowed).
 * Returns 0, SRV_ENAMEINVALID when name has no key or no skeleton (nothing changes), or
 * SRV_ENOMEM (nothing changes). */
int srv_taken_add(srv_taken *t, const char *player, const char *name);

/* Takes player's account (borrowed id) out of t; nothing when it is not there. */
void srv_taken_remove(srv_taken *t, const char *player);

/* Looks for an account other than except's (a player id, borrowed; NULL: none excepted) whose
 * name reads as name (borrowed): the same key or the same skeleton. Sets *owner to that account's
 * player id (borrowed from t until it changes) or NULL. Returns 0, or SRV_ENAMEINVALID when name's
 * key or skeleton cannot be made (*owner is then NULL). */
int srv_taken_find(const srv_taken *t, const char *name, const char *except, const char **owner);

/* The accounts in t. */
size_t srv_taken_count(const srv_taken *t);

#endif
