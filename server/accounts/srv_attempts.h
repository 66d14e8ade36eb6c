/* Attempt counters: how many times a key (an account name, an address) tried within a sliding
 * window, for the login limits (srv_account.h). The loop thread owns it; time comes from the
 * caller (monotonic milliseconds).
 *
 * A key may try while fewer than max of its attempts fall within the last window_ms; otherwise it
 * waits until the oldest of them leaves the window. Memory is bounded: at most max_keys keys are
 * kept, the one whose last attempt is oldest is forgotten first.
 */
#ifndef SRV_ATTEMPTS_H
#define SRV_ATTEMPTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct srv_attempts srv_attempts;

/* Returns new counters (max >= 1 attempts per window_ms >= 1, at most max_keys keys), or NULL
 * when memory runs out. */
srv_attempts *srv_attempts_new(int max, uint64_t window_ms, size_t max_keys);

void srv_attempts_free(srv_attempts *a);

/* Returns 0 when key (borrowed) may try at now, else the milliseconds until it may. */
uint64_t srv_attempts_wait(srv_attempts *a, const char *key, uint64_t now);

/* Counts one attempt of key (borrowed) at now. Returns 0 or SRV_ENOMEM (not counted). */
int srv_attempts_add(srv_attempts *a, const char *key, uint64_t now);

/* Forgets the attempts of key (borrowed): it logged in. */
void srv_attempts_clear(srv_attempts *a, const char *key);

/* Keys kept (for tests). */
size_t srv_attempts_count(const srv_attempts *a);

#endif
