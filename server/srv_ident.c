/* The player registry: a hash table of reference-counted players keyed by token hash. */
#include "srv_ident.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_rand.h"

/* A player with its hash chain, which the header does not show. */
typedef struct ident_node {
  srv_player player; /* First: a srv_player * is an ident_node *. */
  struct ident_node *next;
} ident_node;

struct srv_ident {
  ident_node **buckets;
  size_t nbuckets; /* A power of two. */
  size_t count;
};

int srv_ident_hash_token(const char *token, uint8_t out[32]) {
  unsigned int len = 0;
  if (EVP_Digest(token, strlen(token), out, &len, EVP_sha256(), NULL) != 1 || len != 32)
    return SRV_EINTERNAL;
  return 0;
}

static size_t bucket_of(const srv_ident *ident, const uint8_t hash[32]) {
  uint64_t h;
  memcpy(&h, hash, sizeof h);
  return (size_t)(h & (ident->nbuckets - 1));
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
  ident->nbuckets = 64;
  ident->buckets = calloc(ident->nbuckets, sizeof *ident->buckets);
  if (ident->buckets == NULL) {
    free(ident);
    return NULL;
  }
  return ident;
}

void srv_ident_free(srv_ident *ident) {
  if (ident == NULL)
    return;
  for (size_t b = 0; b < ident->nbuckets; b++) {
    ident_node *p = ident->buckets[b];
    while (p != NULL) {
      ident_node *next = p->next;
      free(p);
      p = next;
    }
  }
  free(ident->buckets);
  free(ident);
}

static void grow(srv_ident *ident) {
  size_t n = ident->nbuckets * 2;
  ident_node **b = calloc(n, sizeof *b);
  if (b == NULL)
    return; /* Longer chains, still correct. */
  ident_node **old = ident->buckets;
  size_t oldn = ident->nbuckets;
  ident->buckets = b;
  ident->nbuckets = n;
  for (size_t i = 0; i < oldn; i++) {
    ident_node *p = old[i];
    while (p != NULL) {
      ident_node *next = p->next;
      size_t k = bucket_of(ident, p->player.token_hash);
      p->next = b[k];
      b[k] = p;
      p = next;
    }
  }
  free(old);
}

/* Links a new node into the registry. */
static void link_node(srv_ident *ident, ident_node *node) {
  if (ident->count >= ident->nbuckets)
    grow(ident);
  size_t k = bucket_of(ident, node->player.token_hash);
  node->next = ident->buckets[k];
  ident->buckets[k] = node;
  ident->count++;
}

int srv_ident_create(srv_ident *ident, const char *name, srv_player **out, char *token_out) {
  uint8_t secret[SRV_TOKEN_BYTES], idbytes[SRV_PLAYER_ID_CHARS / 2];
  int err = srv_rand_bytes(secret, sizeof secret);
  if (err == 0)
    err = srv_rand_bytes(idbytes, sizeof idbytes);
  if (err != 0)
    return err;
  ident_node *node = calloc(1, sizeof *node);
  if (node == NULL)
    return SRV_ENOMEM;
  srv_player *p = &node->player;
  char token[SRV_TOKEN_CHARS + 1];
  hex(secret, sizeof secret, token);
  if ((err = srv_ident_hash_token(token, p->token_hash)) != 0) {
    free(node);
    return err;
  }
  hex(idbytes, sizeof idbytes, p->id);
  snprintf(p->name, sizeof p->name, "%s", name);
  p->refs = 1;
  link_node(ident, node);
  memcpy(token_out, token, sizeof token);
  *out = p;
  return 0;
}

static srv_player *find_hash(srv_ident *ident, const uint8_t hash[32]) {
  for (ident_node *p = ident->buckets[bucket_of(ident, hash)]; p != NULL; p = p->next) {
    if (memcmp(p->player.token_hash, hash, 32) == 0)
      return &p->player;
  }
  return NULL;
}

srv_player *srv_ident_find(srv_ident *ident, const char *token) {
  uint8_t hash[32];
  if (srv_ident_hash_token(token, hash) != 0)
    return NULL;
  return find_hash(ident, hash);
}

int srv_ident_adopt(srv_ident *ident, const char *id, const char *name,
                    const uint8_t token_hash[32], srv_player **out) {
  if (strlen(id) != SRV_PLAYER_ID_CHARS || strspn(id, "0123456789abcdef") != SRV_PLAYER_ID_CHARS)
    return SRV_EBADREQ;
  srv_player *p = find_hash(ident, token_hash);
  if (p != NULL) {
    p->refs++;
    *out = p;
    return 0;
  }
  ident_node *node = calloc(1, sizeof *node);
  if (node == NULL)
    return SRV_ENOMEM;
  p = &node->player;
  memcpy(p->id, id, SRV_PLAYER_ID_CHARS + 1);
  snprintf(p->name, sizeof p->name, "%s", name);
  memcpy(p->token_hash, token_hash, 32);
  p->refs = 1;
  link_node(ident, node);
  *out = p;
  return 0;
}

void srv_ident_ref(srv_player *player) {
  player->refs++;
}

void srv_ident_unref(srv_ident *ident, srv_player *player) {
  if (--player->refs > 0)
    return;
  ident_node *node = (ident_node *)player;
  ident_node **pp = &ident->buckets[bucket_of(ident, player->token_hash)];
  while (*pp != NULL && *pp != node)
    pp = &(*pp)->next;
  if (*pp == node) {
    *pp = node->next;
    ident->count--;
  }
  free(node);
}

size_t srv_ident_count(const srv_ident *ident) {
  return ident->count;
}

void srv_ident_guest_name(char *buf) {
  uint16_t r = 0;
  (void)srv_rand_bytes(&r, sizeof r);
  snprintf(buf, SRV_NAME_SIZE, "Guest %04u", (unsigned)(r % 10000));
}
