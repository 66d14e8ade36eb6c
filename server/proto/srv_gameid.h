/* Public game ids: what the archive (/api/games/ID, /g/ID) and a finished game's state call a
 * stored game.
 *
 * The store numbers games 1, 2, 3...; those numbers never leave the server. Security probe,
 * finding 5: /api/games/1..N could be walked, and showed private rooms' codes. A public id is the
 * store's number through a keyed permutation of 64-bit values (a four-round Feistel network whose
 * round function is HMAC-SHA-256 under a secret key), written as 16 lowercase hexadecimal digits:
 * distinct numbers give distinct ids, and without the key one id says nothing about another, so
 * that a stranger finds a game only from a link someone shared. The key is the database's
 * (srv_store_secret(), made at the schema migration), so ids survive restarts and backups.
 *
 * The key is process-wide: set once at start, before any id is made. Without one (unit tests,
 * fuzz targets) an all-zero key is used. Thread-safe: the loop formats ids for states while a
 * network database's reads (srv_reader) format and parse them on the thread pool; one lock guards
 * the keyed HMAC context and the last ids formatted (a game's id is formatted for each recipient
 * of its last state), kept from one call to the next.
 */
#ifndef SRV_GAMEID_H
#define SRV_GAMEID_H

#include <stddef.h>
#include <stdint.h>

#define SRV_GAMEID_KEY_LEN 16
#define SRV_GAMEID_LEN 16 /* Characters of a public id. */

/* Sets the key (borrowed, copied: SRV_GAMEID_KEY_LEN bytes). */
void srv_gameid_set_key(const unsigned char *key);

/* Frees the HMAC context and forgets the ids formatted (at exit; the next call makes them
 * again). */
void srv_gameid_cleanup(void);

/* Writes the public id of stored game id (> 0) into out: SRV_GAMEID_LEN characters and a NUL. */
void srv_gameid_format(int64_t id, char out[SRV_GAMEID_LEN + 1]);

/* Returns the stored game number of public id s (len bytes, borrowed), or 0 when s is not one
 * (NULL included):
 * not exactly SRV_GAMEID_LEN lowercase hexadecimal digits, or the id of no positive number. */
int64_t srv_gameid_parse(const char *s, size_t len);

#endif
