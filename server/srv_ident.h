/* Identity: players, their public ids and their secret tokens.
 *
 * A token is 32 bytes from the OS random source, sent to its owner once (in welcome) as 64 hex
 * digits; the server keeps only its SHA-256. A player is reference-counted like a jansson value:
 * whoever keeps a pointer to it (a connection that said hello as that player, a seat in a room)
 * holds a reference taken with srv_ident_ref() and gives it back with srv_ident_unref(); in memory
 * a player is forgotten with its last reference. Durable storage keeps players across restarts and
 * gives them back with srv_ident_adopt().
 */
#ifndef SRV_IDENT_H
#define SRV_IDENT_H

#include <stddef.h>
#include <stdint.h>

#define SRV_TOKEN_BYTES 32
#define SRV_TOKEN_CHARS (2 * SRV_TOKEN_BYTES)
#define SRV_PLAYER_ID_CHARS 16
/* 24 characters of at most 4 UTF-8 bytes each, and the NUL. */
#define SRV_NAME_SIZE 97

typedef struct srv_player {
  char id[SRV_PLAYER_ID_CHARS + 1]; /* Public id, hex. */
  char name[SRV_NAME_SIZE];         /* Display name, validated by the protocol layer. */
  uint8_t token_hash[32];           /* SHA-256 of the token. */
  int refs;     /* References (connections, seats; a local room's two seats are two): read only. */
  int computer; /* 0: a person; 1..6: the computer at that level (srv_rooms_computer_player()):
                 * nobody knows its token, storage keeps it as a level, not as a player. */
} srv_player;

typedef struct srv_ident srv_ident;

/* Returns a new empty registry, or NULL when memory runs out. Free with srv_ident_free(). */
srv_ident *srv_ident_new(void);

/* Frees the registry and every player still in it, referenced or not. NULL is allowed. */
void srv_ident_free(srv_ident *ident);

/* Creates a player named name (borrowed; already validated) and writes its new token into
 * token_out (SRV_TOKEN_CHARS + 1 bytes). On success *out is the new player with one reference, the
 * caller's, and 0 is returned; else SRV_ENOMEM or SRV_EINTERNAL. */
int srv_ident_create(srv_ident *ident, const char *name, srv_player **out, char *token_out);

/* Returns the player whose token is token (both borrowed: take a reference to keep it), or NULL. */
srv_player *srv_ident_find(srv_ident *ident, const char *token);

/* Writes the SHA-256 of token (borrowed) into out. Returns 0 or SRV_EINTERNAL. */
int srv_ident_hash_token(const char *token, uint8_t out[32]);

/* Durable storage gives back a player known before a restart: id, name and token_hash (all
 * borrowed; id has SRV_PLAYER_ID_CHARS hex digits). When a player with that token hash is already
 * in memory it is that one; else a new player is added. On success *out is the player with a new
 * reference, the caller's, and 0 is returned; else SRV_EBADREQ for an id of the wrong shape or
 * SRV_ENOMEM. */
int srv_ident_adopt(srv_ident *ident, const char *id, const char *name,
                    const uint8_t token_hash[32], srv_player **out);

/* Takes a reference to player. */
void srv_ident_ref(srv_player *player);

/* Gives back a reference to player (of ident); the last one frees it. */
void srv_ident_unref(srv_ident *ident, srv_player *player);

/* Returns how many players are in memory. */
size_t srv_ident_count(const srv_ident *ident);

/* Writes a guest name ("Guest 4821") into buf (SRV_NAME_SIZE bytes). */
void srv_ident_guest_name(char *buf);

#endif
