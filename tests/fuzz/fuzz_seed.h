/* A database with games in it, made by the server's own code (fuzz_seed.c). */
#ifndef FUZZ_SEED_H
#define FUZZ_SEED_H

#include <stddef.h>

#include "srv_store.h"

/* Makes a new empty directory for a target's files (what names it), in /dev/shm when it can. */
void fuzz_tmp_dir(char *buf, size_t size, const char *what);

/* Plays games into store (borrowed, open) through rooms on a fake clock and the real recorder:
 * finished ones of every kind (a rematch and a resignation among them), one in progress with a
 * clock, a private Congkak match, a local room, a waiting room. Aborts on any failure. */
void fuzz_seed_games(srv_store *store);

#endif
