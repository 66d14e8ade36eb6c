/* Public game ids (srv_gameid.h). */
#include "srv_gameid.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

static unsigned char key[SRV_GAMEID_KEY_LEN];

/* The loop formats ids for states while the reader's pool threads format and parse them for the
 * archive's pages: one lock over the keyed context and the cache (uncontended, a few dozen
 * instructions; the context must not be used by two threads at once). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The HMAC of the round function, keyed once and made ready again for each use (EVP_MAC_init()
 * without a key starts from the keyed state): OpenSSL 3's one-shot HMAC() fetches SHA-256 and keys
 * a new context on every call, about 20,000 instructions where this takes about 6,000. NULL until
 * the first use after the key is set; when OpenSSL cannot make it, the one-shot HMAC() is used. */
static EVP_MAC_CTX *mac_ctx;
static bool mac_unavailable;

/* The ids formatted last, each in the slot slot_of() its number (id 0: a free slot): a finished
 * game's id goes out in its last state, in the full state of everyone who joins after, and in the
 * archive's pages, each asking for the same id. */
#define CACHE_SLOTS 64
_Static_assert(CACHE_SLOTS == 64, "slot_of() takes the top 6 bits of its hash");

/* The slot of id: the top bits of a multiplicative hash. Not the id modulo CACHE_SLOTS: a node of
 * a cluster makes ids (ms << 12) | lane (srv_room.h), all with the same low bits, which put every
 * id in one slot and made each format a miss (four HMACs, about 26,000 instructions). */
static size_t slot_of(int64_t id) {
  return (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15u) >> 58);
}
static struct {
  int64_t id;
  char text[SRV_GAMEID_LEN + 1];
} cache[CACHE_SLOTS];

static void cleanup_locked(void) {
  EVP_MAC_CTX_free(mac_ctx);
  mac_ctx = NULL;
  mac_unavailable = false;
  memset(cache, 0, sizeof cache);
}

void srv_gameid_cleanup(void) {
  pthread_mutex_lock(&lock);
  cleanup_locked();
  pthread_mutex_unlock(&lock);
}

static EVP_MAC_CTX *keyed_mac(void);

void srv_gameid_set_key(const unsigned char *k) {
  pthread_mutex_lock(&lock);
  cleanup_locked();
  memcpy(key, k, sizeof key);
  /* Keyed now, at start: fetching HMAC from OpenSSL's providers costs about 4.9 million
   * instructions (a few ms), which the first finished game's loop turn paid otherwise. */
  (void)keyed_mac();
  pthread_mutex_unlock(&lock);
}

/* mac_ctx keyed with key, made when the key is set (or at first use); NULL when OpenSSL
 * cannot. */
static EVP_MAC_CTX *keyed_mac(void) {
  if (mac_ctx != NULL || mac_unavailable)
    return mac_ctx;
  EVP_MAC *hmac = EVP_MAC_fetch(NULL, OSSL_MAC_NAME_HMAC, NULL);
  EVP_MAC_CTX *ctx = hmac != NULL ? EVP_MAC_CTX_new(hmac) : NULL;
  EVP_MAC_free(hmac); /* The context holds its own reference. */
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
      OSSL_PARAM_construct_end()};
  if (ctx == NULL || EVP_MAC_init(ctx, key, sizeof key, params) != 1) {
    EVP_MAC_CTX_free(ctx);
    mac_unavailable = true;
    return NULL;
  }
  mac_ctx = ctx;
  return mac_ctx;
}

/* HMAC-SHA-256(key, in) into out (EVP_MAX_MD_SIZE bytes); its length, 0 on failure. */
static size_t hmac(const unsigned char *in, size_t n, unsigned char *out) {
  EVP_MAC_CTX *ctx = keyed_mac();
  size_t len = 0;
  if (ctx != NULL && EVP_MAC_init(ctx, NULL, 0, NULL) == 1 && EVP_MAC_update(ctx, in, n) == 1 &&
      EVP_MAC_final(ctx, out, &len, EVP_MAX_MD_SIZE) == 1)
    return len;
  unsigned int one = 0;
  return HMAC(EVP_sha256(), key, sizeof key, in, n, out, &one) != NULL ? one : 0;
}

/* The round function: the first 32 bits of HMAC-SHA-256(key, round || half). */
static uint32_t round_fn(int round, uint32_t half) {
  unsigned char in[5] = {(unsigned char)round, (unsigned char)(half >> 24),
                         (unsigned char)(half >> 16), (unsigned char)(half >> 8),
                         (unsigned char)half};
  unsigned char mac[EVP_MAX_MD_SIZE];
  if (hmac(in, sizeof in, mac) < 4)
    return 0; /* Cannot happen with OpenSSL's built-in SHA-256; still a permutation. */
  return (uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 | (uint32_t)mac[2] << 8 | mac[3];
}

#define ROUNDS 4

static uint64_t encrypt(uint64_t v) {
  uint32_t l = (uint32_t)(v >> 32), r = (uint32_t)v;
  for (int i = 0; i < ROUNDS; i++) {
    uint32_t t = r;
    r = l ^ round_fn(i, r);
    l = t;
  }
  return (uint64_t)l << 32 | r;
}

static uint64_t decrypt(uint64_t v) {
  uint32_t l = (uint32_t)(v >> 32), r = (uint32_t)v;
  for (int i = ROUNDS - 1; i >= 0; i--) {
    uint32_t t = l;
    l = r ^ round_fn(i, l);
    r = t;
  }
  return (uint64_t)l << 32 | r;
}

void srv_gameid_format(int64_t id, char out[SRV_GAMEID_LEN + 1]) {
  static const char hex[] = "0123456789abcdef";
  size_t slot = slot_of(id);
  pthread_mutex_lock(&lock);
  if (id != 0 && cache[slot].id == id) {
    memcpy(out, cache[slot].text, SRV_GAMEID_LEN + 1);
    pthread_mutex_unlock(&lock);
    return;
  }
  uint64_t v = encrypt((uint64_t)id);
  for (int i = SRV_GAMEID_LEN - 1; i >= 0; i--, v >>= 4)
    out[i] = hex[v & 15];
  out[SRV_GAMEID_LEN] = '\0';
  if (id != 0) {
    cache[slot].id = id;
    memcpy(cache[slot].text, out, SRV_GAMEID_LEN + 1);
  }
  pthread_mutex_unlock(&lock);
}

int64_t srv_gameid_parse(const char *s, size_t len) {
  if (s == NULL || len != SRV_GAMEID_LEN)
    return 0;
  uint64_t v = 0;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0)
      return 0;
    v = v << 4 | (uint64_t)d;
  }
  pthread_mutex_lock(&lock);
  uint64_t id = decrypt(v);
  pthread_mutex_unlock(&lock);
  return id > 0 && id <= (uint64_t)INT64_MAX ? (int64_t)id : 0;
}
