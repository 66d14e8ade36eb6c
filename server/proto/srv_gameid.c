/* Public game ids (srv_gameid.h). */
#include "srv_gameid.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>

static unsigned char key[SRV_GAMEID_KEY_LEN];

void srv_gameid_set_key(const unsigned char *k) {
  memcpy(key, k, sizeof key);
}

/* The round function: the first 32 bits of HMAC-SHA-256(key, round || half). */
static uint32_t round_fn(int round, uint32_t half) {
  unsigned char in[5] = {(unsigned char)round, (unsigned char)(half >> 24),
                         (unsigned char)(half >> 16), (unsigned char)(half >> 8),
                         (unsigned char)half};
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), key, sizeof key, in, sizeof in, mac, &len) == NULL || len < 4)
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
  uint64_t v = encrypt((uint64_t)id);
  for (int i = SRV_GAMEID_LEN - 1; i >= 0; i--, v >>= 4)
    out[i] = hex[v & 15];
  out[SRV_GAMEID_LEN] = '\0';
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
  uint64_t id = decrypt(v);
  return id > 0 && id <= (uint64_t)INT64_MAX ? (int64_t)id : 0;
}
