/* The player registry: reference-counted players in a hash table by id, and their tokens in a
 * second one by token hash (see srv_ident.h; the tables are srv_hash.h's). */
#include "srv_ident.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_hash.h"
#include "srv_rand.h"

struct ident_node;

/* A token the registry knows: its hash and its player. */
typedef struct token_node {
  uint8_t hash[32];
  struct ident_node *owner;
  srv_hash_node hnode; /* ident->by_token */
} token_node;

/* A player with what the header does not show: its place in the table and its tokens. */
typedef struct ident_node {
  srv_player player;   /* First: a srv_player * is an ident_node *. */
  srv_hash_node hnode; /* ident->by_id */
  token_node **tokens; /* The player's tokens (nodes of the token table). */
  size_t ntokens, captokens;
} ident_node;

struct srv_ident {
  srv_hash by_id;    /* ident_node.hnode */
  srv_hash by_token; /* token_node.hnode */
};

/* libsodium's SHA-256 (plain C, no set-up): OpenSSL 3's EVP_Digest() with EVP_sha256() fetched
 * the algorithm again on every call, 260,000 instructions a hash, two hashes a new player. */
_Static_assert(crypto_hash_sha256_BYTES == 32, "a token's hash is 32 bytes");
int srv_ident_hash_token(const char *token, uint8_t out[32]) {
  if (crypto_hash_sha256(out, (const unsigned char *)token, strlen(token)) != 0)
    return SRV_EINTERNAL;
  return 0;
}

/* A token's SHA-256 is uniform already: its first bytes are its hash in the table. */
static size_t hash_of_token(const uint8_t hash[32]) {
  uint64_t h;
  memcpy(&h, hash, sizeof h);
  return (size_t)h;
}

static bool node_is(const srv_hash_node *node, const void *id) {
  return strcmp(srv_hash_entry(node, ident_node, hnode)->player.id, id) == 0;
}

static bool token_is(const srv_hash_node *node, const void *hash) {
  return memcmp(srv_hash_entry(node, token_node, hnode)->hash, hash, 32) == 0;
}

static void hex(const uint8_t *in, size_t n, char *out) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = digits[in[i] >> 4];
    out[2 * i + 1] = digits[in[i] & 15];
  }
  out[2 * n] = '\0';
}

srv_ident *srv_ident_new(void) {
  srv_ident *ident = calloc(1, sizeof *ident);
  if (ident == NULL)
    return NULL;
  if (srv_hash_init(&ident->by_id, 64) != 0) {
    free(ident);
    return NULL;
  }
  if (srv_hash_init(&ident->by_token, 64) != 0) {
    srv_hash_dispose(&ident->by_id);
    free(ident);
    return NULL;
  }
  return ident;
}

static void node_free(ident_node *node) {
  free(node->tokens);
  free(node);
}

void srv_ident_free(srv_ident *ident) {
  if (ident == NULL)
    return;
  srv_hash *t = &ident->by_id;
  for (srv_hash_node *node = srv_hash_first(t), *next; node != NULL; node = next) {
    next = srv_hash_next(t, node);
    node_free(srv_hash_entry(node, ident_node, hnode));
  }
  t = &ident->by_token;
  for (srv_hash_node *node = srv_hash_first(t), *next; node != NULL; node = next) {
    next = srv_hash_next(t, node);
    free(srv_hash_entry(node, token_node, hnode));
  }
  srv_hash_dispose(&ident->by_id);
  srv_hash_dispose(&ident->by_token);
  free(ident);
}

/* ---- The two tables -------------------------------------------------------------------------- */

static void link_player(srv_ident *ident, ident_node *node) {
  srv_hash_insert(&ident->by_id, &node->hnode, srv_hash_str(node->player.id));
}

static token_node *find_token(const srv_ident *ident, const uint8_t hash[32]) {
  srv_hash_node *node = srv_hash_find(&ident->by_token, hash_of_token(hash), token_is, hash);
  return node ? srv_hash_entry(node, token_node, hnode) : NULL;
}

/* Adds hash as node's token. Returns 0 or SRV_ENOMEM. */
static int link_token(srv_ident *ident, ident_node *node, const uint8_t hash[32]) {
  if (node->ntokens == node->captokens) {
    size_t cap = node->captokens ? 2 * node->captokens : 2;
    token_node **v = realloc(node->tokens, cap * sizeof *v);
    if (v == NULL)
      return SRV_ENOMEM;
    node->tokens = v;
    node->captokens = cap;
  }
  token_node *tn = calloc(1, sizeof *tn);
  if (tn == NULL)
    return SRV_ENOMEM;
  memcpy(tn->hash, hash, 32);
  tn->owner = node;
  srv_hash_insert(&ident->by_token, &tn->hnode, hash_of_token(hash));
  node->tokens[node->ntokens++] = tn;
  return 0;
}

/* Removes token tn from the table and from its owner, and frees it. */
static void unlink_token(srv_ident *ident, token_node *tn) {
  srv_hash_remove(&ident->by_token, &tn->hnode);
  ident_node *owner = tn->owner;
  for (size_t i = 0; i < owner->ntokens; i++) {
    if (owner->tokens[i] == tn) {
      owner->tokens[i] = owner->tokens[--owner->ntokens];
      break;
    }
  }
  free(tn);
}

/* ---- Players ------------------------------------------------------------------------------- */

static ident_node *new_node(const char *id, const char *name) {
  ident_node *node = calloc(1, sizeof *node);
  if (node == NULL)
    return NULL;
  srv_player *p = &node->player;
  snprintf(p->id, sizeof p->id, "%s", id);
  snprintf(p->name, sizeof p->name, "%s", name);
  srv_list_init(&p->clients);
  srv_list_init(&p->seats);
  p->refs = 1;
  return node;
}

/* A new token: 32 random bytes as hex, and its hash. */
static int make_token(char *token, uint8_t hash[32]) {
  uint8_t secret[SRV_TOKEN_BYTES];
  int err = srv_rand_bytes(secret, sizeof secret);
  if (err != 0)
    return err;
  hex(secret, sizeof secret, token);
  return srv_ident_hash_token(token, hash);
}

int srv_ident_create(srv_ident *ident, const char *name, srv_player **out, char *token_out) {
  uint8_t idbytes[SRV_PLAYER_ID_CHARS / 2], hash[32];
  char id[SRV_PLAYER_ID_CHARS + 1], token[SRV_TOKEN_CHARS + 1];
  int err = srv_rand_bytes(idbytes, sizeof idbytes);
  if (err == 0)
    err = make_token(token, hash);
  if (err != 0)
    return err;
  hex(idbytes, sizeof idbytes, id);
  ident_node *node = new_node(id, name);
  if (node == NULL)
    return SRV_ENOMEM;
  link_player(ident, node);
  if (link_token(ident, node, hash) != 0) {
    srv_ident_unref(ident, &node->player);
    return SRV_ENOMEM;
  }
  memcpy(token_out, token, sizeof token);
  *out = &node->player;
  return 0;
}

int srv_ident_new_token(srv_ident *ident, srv_player *player, char *token_out,
                        uint8_t hash_out[32]) {
  char token[SRV_TOKEN_CHARS + 1];
  uint8_t hash[32];
  int err = make_token(token, hash);
  if (err != 0)
    return err;
  if ((err = link_token(ident, (ident_node *)player, hash)) != 0)
    return err;
  memcpy(token_out, token, sizeof token);
  memcpy(hash_out, hash, 32);
  return 0;
}

srv_player *srv_ident_find(srv_ident *ident, const char *token) {
  uint8_t hash[32];
  if (srv_ident_hash_token(token, hash) != 0)
    return NULL;
  token_node *tn = find_token(ident, hash);
  return tn ? &tn->owner->player : NULL;
}

srv_player *srv_ident_find_id(srv_ident *ident, const char *id) {
  srv_hash_node *node = srv_hash_find(&ident->by_id, srv_hash_str(id), node_is, id);
  return node ? &srv_hash_entry(node, ident_node, hnode)->player : NULL;
}

int srv_ident_adopt(srv_ident *ident, const char *id, const char *name, srv_player **out) {
  if (strlen(id) != SRV_PLAYER_ID_CHARS || strspn(id, "0123456789abcdef") != SRV_PLAYER_ID_CHARS)
    return SRV_EBADREQ;
  srv_player *p = srv_ident_find_id(ident, id);
  if (p != NULL) {
    p->refs++;
    *out = p;
    return 0;
  }
  ident_node *node = new_node(id, name);
  if (node == NULL)
    return SRV_ENOMEM;
  link_player(ident, node);
  *out = &node->player;
  return 0;
}

int srv_ident_add_token(srv_ident *ident, srv_player *player, const uint8_t token_hash[32]) {
  token_node *tn = find_token(ident, token_hash);
  if (tn != NULL && &tn->owner->player == player)
    return 0;
  if (tn != NULL)
    unlink_token(ident, tn); /* Storage says it is someone else's now: it knows. */
  return link_token(ident, (ident_node *)player, token_hash);
}

void srv_ident_revoke(srv_ident *ident, const uint8_t token_hash[32]) {
  token_node *tn = find_token(ident, token_hash);
  if (tn != NULL)
    unlink_token(ident, tn);
}

void srv_ident_revoke_all(srv_ident *ident, srv_player *player, const uint8_t *keep) {
  ident_node *node = (ident_node *)player;
  for (size_t i = node->ntokens; i-- > 0;) {
    if (i < node->ntokens && (keep == NULL || memcmp(node->tokens[i]->hash, keep, 32) != 0))
      unlink_token(ident, node->tokens[i]);
  }
}

size_t srv_ident_token_count(const srv_player *player) {
  return ((const ident_node *)player)->ntokens;
}

const uint8_t *srv_ident_token(const srv_player *player, size_t i) {
  const ident_node *node = (const ident_node *)player;
  return i < node->ntokens ? node->tokens[i]->hash : NULL;
}

void srv_ident_ref(srv_player *player) {
  player->refs++;
}

void srv_ident_unref(srv_ident *ident, srv_player *player) {
  if (--player->refs > 0)
    return;
  ident_node *node = (ident_node *)player;
  while (node->ntokens > 0)
    unlink_token(ident, node->tokens[node->ntokens - 1]);
  srv_hash_remove(&ident->by_id, &node->hnode);
  node_free(node);
}

size_t srv_ident_count(const srv_ident *ident) {
  return srv_hash_count(&ident->by_id);
}

void srv_ident_guest_name(char *buf) {
  uint16_t r = 0;
  (void)srv_rand_bytes(&r, sizeof r);
  snprintf(buf, SRV_NAME_SIZE, "Guest %04u", (unsigned)(r % 10000));
}
