/* Randomness from the operating system (getrandom(2)): tokens, ids, room codes, seat draws. */
#ifndef SRV_RAND_H
#define SRV_RAND_H

#include <stddef.h>

/* Fills buf with len random bytes. Returns 0, or SRV_EINTERNAL when the OS source fails. */
int srv_rand_bytes(void *buf, size_t len);

#endif
