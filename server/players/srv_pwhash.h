/* Password hashing: Argon2id through libsodium's crypto_pwhash_str(), its self-describing string
 * (algorithm, parameters, salt and hash) being what is stored. Slow on purpose: call these off the
 * loop thread (srv_work.h). Passwords are never logged and never kept: callers wipe their copies
 * with srv_pwhash_wipe().
 *
 * The cost: 19 MiB of memory and 2 passes (SRV_PWHASH_MEMLIMIT, SRV_PWHASH_OPSLIMIT; OWASP's
 * recommendation for Argon2id), about 40 ms per hash on the development machine (2 shared vCPU).
 * A hash made with other parameters still verifies, and srv_pwhash_needs_rehash() says when it
 * should be made again at the next login.
 */
#ifndef SRV_PWHASH_H
#define SRV_PWHASH_H

#include <stdbool.h>
#include <stddef.h>

#define SRV_PWHASH_OPSLIMIT 2ULL
#define SRV_PWHASH_MEMLIMIT ((size_t)19 * 1024 * 1024)
/* crypto_pwhash_STRBYTES: the string and its NUL. */
#define SRV_PWHASH_SIZE 128

/* Initialises libsodium (once per process; later calls do nothing). Returns 0 or -1. */
int srv_pwhash_init(void);

/* Hashes the len bytes of password (borrowed) into out (SRV_PWHASH_SIZE bytes). Returns 0, or -1
 * when memory runs out. */
int srv_pwhash_hash(const char *password, size_t len, char out[SRV_PWHASH_SIZE]);

/* Checks password (len bytes, borrowed) against stored (a string from srv_pwhash_hash()), in
 * constant time. Returns 0 when it matches, -1 otherwise (a damaged string included). */
int srv_pwhash_verify(const char *stored, const char *password, size_t len);

/* Whether stored was made with other parameters than today's. */
bool srv_pwhash_needs_rehash(const char *stored);

/* A hash of a password nobody knows, with today's parameters: checking a login for a name nobody
 * has against it costs as long as checking a real one, so that timing does not tell which names
 * exist. Static storage. */
const char *srv_pwhash_dummy(void);

/* Overwrites n bytes at p with zeros in a way the compiler keeps. */
void srv_pwhash_wipe(void *p, size_t n);

#endif
