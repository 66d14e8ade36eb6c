/* Identity: players, their public ids and their secret tokens.
 *
 * A token is 32 bytes from the OS random source, sent to its owner once (in welcome) as 64 hex
 * digits; the server keeps only its SHA-256. A guest has one token; a player with an account has
 * one per device it logged in on (its sessions), and loses them all when it logs out everywhere.
 * The registry finds a player by token hash and by id.
 *
 * A player is reference-counted like a jansson value: whoever keeps a pointer to it (a connection
 * that said hello as that player, a seat in a room) holds a reference taken with srv_ident_ref()
 * and gives it back with srv_ident_unref(); in memory a player is forgotten, with the tokens the
 * registry knows for it, with its last reference. Durable storage keeps players and tokens across
 * restarts and gives them back with srv_ident_adopt() and srv_ident_add_token().
 */
#ifndef SRV_IDENT_H
#define SRV_IDENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srv_list.h"

#define SRV_TOKEN_BYTES 32
#define SRV_TOKEN_CHARS (2 * SRV_TOKEN_BYTES)
#define SRV_PLAYER_ID_CHARS 16
/* 24 characters of at most 4 UTF-8 bytes each, and the NUL. */
#define SRV_NAME_SIZE 97
/* The games that have ratings: one per mc_kind. */
#define SRV_RATED_GAMES 3

/* A rating as the rooms show it and quick pairing reads it. Storage holds the real one. */
/* A player's rating in one game (Glicko-2): what the rooms rate a game from and storage keeps. */
typedef struct srv_player_rating {
  double rating, rd, vol;
  int games; /* Rated games played; 0: the rating is a new player's. */
  int wins, losses, draws;
  int64_t last_ms; /* When the last rated game ended; 0: never. */
} srv_player_rating;

/* A new player's rating. */
#define SRV_PLAYER_RATING_NEW ((srv_player_rating){.rating = 1500.0, .rd = 350.0, .vol = 0.06})

typedef struct srv_player {
  char id[SRV_PLAYER_ID_CHARS + 1]; /* Public id, hex. */
  char name[SRV_NAME_SIZE];         /* Display name (an account's is its account name). */
  bool account;                     /* The player has an account: the name is its own. */
  bool deleted; /* The account was deleted: nothing of this player is stored again. */
  srv_player_rating ratings[SRV_RATED_GAMES]; /* Accounts only, by mc_kind. */
  srv_list clients; /* The connections identified as this player (srv_client.of_player). */
  int refs; /* References (connections, seats; a local room's two seats are two): read only. */
  int active_rooms; /* Unfinished rooms where it holds a seat: kept by the room module. */
  /* The rooms where it holds a seat, finished ones included (srv_seat_link.node, one per seat: a
   * local room's player is in it twice), kept by the room module: a resumed hello finds its
   * seats here instead of in every room. */
  srv_list seats;
  int computer; /* 0: a person; 1..6: the computer at that level (srv_rooms_computer_player()):
                 * nobody knows its token, storage keeps it as a level, not as a player. */
} srv_player;

typedef struct srv_ident srv_ident;

/* Returns a new empty registry, or NULL when memory runs out. Free with srv_ident_free(). */
srv_ident *srv_ident_new(void);

/* Frees the registry and every player still in it, referenced or not. NULL is allowed. */
void srv_ident_free(srv_ident *ident);

/* Creates a player named name (borrowed; already validated) with a new token, written into
 * token_out (SRV_TOKEN_CHARS + 1 bytes). On success *out is the new player with one reference, the
 * caller's, and 0 is returned; else SRV_ENOMEM or SRV_EINTERNAL. */
int srv_ident_create(srv_ident *ident, const char *name, srv_player **out, char *token_out);

/* Gives player (of ident) one more token (a new session): writes it into token_out
 * (SRV_TOKEN_CHARS + 1 bytes) and its SHA-256 into hash_out. Returns 0, SRV_ENOMEM or
 * SRV_EINTERNAL. */
int srv_ident_new_token(srv_ident *ident, srv_player *player, char *token_out,
                        uint8_t hash_out[32]);

/* Returns the player whose token is token (both borrowed: take a reference to keep it), or NULL. */
srv_player *srv_ident_find(srv_ident *ident, const char *token);

/* Returns the player with public id id (borrowed), or NULL. */
srv_player *srv_ident_find_id(srv_ident *ident, const char *id);

/* Writes the SHA-256 of token (borrowed) into out. Returns 0 or SRV_EINTERNAL. */
int srv_ident_hash_token(const char *token, uint8_t out[32]);

/* Durable storage gives back a player known before a restart: id and name (borrowed; id has
 * SRV_PLAYER_ID_CHARS hex digits). When a player with that id is already in memory it is that one;
 * else a new player without tokens is added. On success *out is the player with a new reference,
 * the caller's, and 0 is returned; else SRV_EBADREQ for an id of the wrong shape or SRV_ENOMEM. */
int srv_ident_adopt(srv_ident *ident, const char *id, const char *name, srv_player **out);

/* Durable storage knows token_hash (borrowed) as player's: the registry finds player by it from
 * now on (nothing when it already does). Returns 0 or SRV_ENOMEM. */
int srv_ident_add_token(srv_ident *ident, srv_player *player, const uint8_t token_hash[32]);

/* Forgets token_hash (borrowed), whoever's it is. */
void srv_ident_revoke(srv_ident *ident, const uint8_t token_hash[32]);

/* Forgets every token of player but keep (borrowed; NULL: every one). */
void srv_ident_revoke_all(srv_ident *ident, srv_player *player, const uint8_t *keep);

/* The tokens of player the registry knows: how many, and the hash of the i-th (borrowed, valid
 * until the player's tokens change). */
size_t srv_ident_token_count(const srv_player *player);
const uint8_t *srv_ident_token(const srv_player *player, size_t i);

/* Takes a reference to player. */
void srv_ident_ref(srv_player *player);

/* Gives back a reference to player (of ident); the last one frees it. */
void srv_ident_unref(srv_ident *ident, srv_player *player);

/* Returns how many players are in memory. */
size_t srv_ident_count(const srv_ident *ident);

/* Writes a guest name ("Guest 4821") into buf (SRV_NAME_SIZE bytes). */
void srv_ident_guest_name(char *buf);

#endif
