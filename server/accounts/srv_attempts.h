/* Attempt counters with growing delays: how often a key (an account name, an address, a device)
 * tried within a sliding window, and how long it must wait before the next attempt, for the login
 * limits (srv_account.h). Nothing is ever locked: past its free attempts a key is slowed down, the
 * wait doubling with each further attempt up to a bound. The loop thread owns it; time comes from
 * the caller (monotonic milliseconds).
 *
 * The rule, with n the key's attempts within the last window_ms (an attempt made at t counts until
 * t + window_ms) and last the newest of them: while n < free the key may try at once; otherwise
 * it may try delay_ms * 2^(n - free) after last, at most max_delay_ms after it. As attempts leave
 * the window n falls and the wait with it. So free = 5, delay 1 s, bound 60 s: five attempts at
 * once, then one after 1 s, 2 s, 4 s, ... 32 s, then one a minute for as long as it goes on.
 *
 * An attempt is counted when it is made, before its result is known (srv_attempts_add() right
 * after srv_attempts_wait() said 0, on the loop thread: concurrent attempts cannot pass the
 * allowance); an attempt that did not happen after all is given back, one that succeeded may
 * clear its key.
 *
 * Memory is bounded: a key keeps the times of its last free + k attempts at most, k the
 * doublings that reach the bound (more would not lengthen the wait; the ring grows as it fills),
 * and at most max_keys keys are kept, the one whose last attempt is oldest forgotten first.
 */
#ifndef SRV_ATTEMPTS_H
#define SRV_ATTEMPTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct srv_attempts srv_attempts;

typedef struct srv_attempts_config {
  int free;              /* Attempts within the window that do not wait (>= 1, < INT_MAX - 64). */
  uint64_t window_ms;    /* How long an attempt counts (>= 1). */
  uint64_t delay_ms;     /* The first wait past the free attempts (>= 1). */
  uint64_t max_delay_ms; /* The bound of every wait (>= delay_ms). */
  size_t max_keys;       /* Keys kept at most (>= 1). */
} srv_attempts_config;

/* Returns new counters (cfg copied), or NULL when cfg is out of range or memory runs out. */
srv_attempts *srv_attempts_new(const srv_attempts_config *cfg);

void srv_attempts_free(srv_attempts *a);

/* Returns 0 when key (borrowed) may try at now, else the milliseconds until it may (the earliest
 * time the rule above allows, attempts leaving the window included). */
uint64_t srv_attempts_wait(srv_attempts *a, const char *key, uint64_t now);

/* Counts one attempt of key (borrowed) at now. Returns 0 or SRV_ENOMEM (not counted). */
int srv_attempts_add(srv_attempts *a, const char *key, uint64_t now);

/* Takes back one attempt of key counted at `at` (it did not happen: the check was refused or
 * dropped before it ran). Nothing when there is none (it left the window, or the key was cleared
 * or forgotten). */
void srv_attempts_give_back(srv_attempts *a, const char *key, uint64_t at);

/* Forgets the attempts of key (borrowed): it logged in. */
void srv_attempts_clear(srv_attempts *a, const char *key);

/* Attempts of key within the window at now (for tests and logs). */
int srv_attempts_recent(srv_attempts *a, const char *key, uint64_t now);

/* Keys kept (for tests). */
size_t srv_attempts_count(const srv_attempts *a);

#endif
