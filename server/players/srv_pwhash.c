/* Argon2id through libsodium (see srv_pwhash.h). */
#include "srv_pwhash.h"

#include <sodium.h>
#include <string.h>

_Static_assert(SRV_PWHASH_SIZE == crypto_pwhash_STRBYTES, "a hash string is STRBYTES long");

int srv_pwhash_init(void) {
  return sodium_init() < 0 ? -1 : 0;
}

int srv_pwhash_hash(const char *password, size_t len, char out[SRV_PWHASH_SIZE]) {
  return crypto_pwhash_str_alg(out, password, len, SRV_PWHASH_OPSLIMIT, SRV_PWHASH_MEMLIMIT,
                               crypto_pwhash_ALG_ARGON2ID13) == 0
             ? 0
             : -1;
}

int srv_pwhash_verify(const char *stored, const char *password, size_t len) {
  if (memchr(stored, '\0', SRV_PWHASH_SIZE) == NULL)
    return -1;
  return crypto_pwhash_str_verify(stored, password, len) == 0 ? 0 : -1;
}

bool srv_pwhash_needs_rehash(const char *stored) {
  return crypto_pwhash_str_needs_rehash(stored, SRV_PWHASH_OPSLIMIT, SRV_PWHASH_MEMLIMIT) != 0;
}

const char *srv_pwhash_dummy(void) {
  /* Made once with srv_pwhash_hash() of 32 random bytes that were thrown away. */
  return "$argon2id$v=19$m=19456,t=2,p=1$hrHgIxq95KZvauQ+eb5Zmg$"
         "lwHWxQ//Vn9u7sC44rXNhXypSw0anaXjisBCy5wfbvM";
}

void srv_pwhash_wipe(void *p, size_t n) {
  sodium_memzero(p, n);
}
