/* Helpers shared by the storage tests (compiled once into the test kit, store_util.c): temporary
 * directories, raw SQLite access to the files the store writes (to build old schemas and tamper
 * with rows by hand), running a check as an unprivileged user, and a few fixtures. */
#ifndef STORE_TEST_UTIL_H
#define STORE_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "mc_error.h"
#include "mc_game.h"
#include "srv_store.h"
#include "task.h"

/* A new empty directory under $TMPDIR (or /tmp), readable by everybody so that a check run as
 * nobody can reach the paths inside; aborts when it cannot be made. */
void tmp_dir(char *buf, size_t size);

/* Removes path and, for a directory, everything in it. */
void rm_tree(const char *path);

/* The path of the database file in dir. */
void db_path(const char *dir, char *buf, size_t size);

/* Runs sql on the database file of dir with a raw connection; aborts on error. */
void raw_exec(const char *dir, const char *sql);

/* Returns the integer that sql returns on the database of dir (-1 when no row). */
long long raw_int(const char *dir, const char *sql);

/* Opens a store on dir with a short busy timeout; returns the code and leaves the message in err.
 */
int open_store(const char *dir, srv_store_sync sync, srv_store **out, char *err);

/* Runs fn(arg) in a child process that runs as nobody when this process is root (root ignores
 * file permissions, so permission checks need someone else). Returns fn's result (a small
 * non-negative number), or -1 when no unprivileged user is available. */
int run_unprivileged(int (*fn)(void *), void *arg);

/* A seat for a person. */
srv_store_seat mk_seat(const char *player, const char *name);

/* A player row (no session). */
srv_store_player mk_player(const char *id, const char *name);

/* Stores player id named name with one session: the token hash of 32 bytes of fill. */
void put_player(srv_store *store, const char *id, const char *name, int fill);

/* A game of kind with its default board in room, south and north seated. */
srv_store_game mk_game(const char *room, mc_kind kind, srv_store_seat south, srv_store_seat north);

/* A room row in status, seated like g. */
srv_store_room mk_room(const char *code, srv_store_status status, const srv_store_game *g);

/* Plays the lowest legal house of live (a real game) and records it for game id in store.
 * Returns the house played, or 0 when the game is over. */
int play_and_store(srv_store *store, int64_t id, mc_game *live, int64_t at);

#endif
