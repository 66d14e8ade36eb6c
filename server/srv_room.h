/* Rooms: seats, games, clocks, presence, lobby and quick pairing. The loop thread owns all of it.
 *
 * Rooms are addressable by their code (srv_rooms_find()). Room logic sees only typed commands
 * (srv_cmd) and emits typed events (srv_event) through a sink; it never sees JSON or sockets, so
 * the unit tests drive it with a fake sink and a fake clock.
 *
 * Every srv_room_* command function returns 0 or a negative SRV_E* code; on error nothing changed
 * and nothing was sent: the caller turns the code into an error frame.
 */
#ifndef SRV_ROOM_H
#define SRV_ROOM_H

#include <stdbool.h>
#include <stdint.h>

#include "srv_ident.h"
#include "srv_msg.h"
#include "srv_send.h"
#include "srv_time.h"

typedef struct srv_rooms srv_rooms;
typedef struct srv_room srv_room;
typedef struct srv_member srv_member;

/* One connection as the rooms see it. Owned by the caller (the network layer embeds it in its
 * per-connection data); initialise with srv_client_init() and hand back with
 * srv_rooms_client_gone() before freeing. */
typedef struct srv_client {
  srv_player *player; /* NULL until hello; the client holds a reference to it. */
  srv_member *rooms;  /* Memberships (room internal). */
  bool lobby_watch;
  struct srv_client *watch_prev, *watch_next;
  void *conn; /* The owner's data; rooms never touch it. */
} srv_client;

typedef struct srv_room_limits {
  int64_t abandon_ms;   /* Countdown of an absent player on their own turn. */
  int64_t idle_ms;      /* A room nobody is in closes after this long. */
  int64_t finished_ms;  /* A finished room stays this long for a rematch. */
  int rooms_per_player; /* Unfinished rooms one player may be seated in. */
  int max_rooms;        /* Rooms in memory. */
} srv_room_limits;

/* The storage seam: durable storage (srv_persist.h) listens to these events. Everything is
 * borrowed for the duration of the call, except game_id which the listener may write. For
 * SRV_STORE_MOVE a negative return refuses the move: the room is left as it was and the mover gets
 * the error. Other returns are logged only. */
typedef enum srv_store_kind {
  SRV_STORE_ROOM_OPENED = 0,
  SRV_STORE_SEATED, /* seats[] changed */
  SRV_STORE_GAME_STARTED,
  SRV_STORE_MOVE, /* seat played house; game is the position after it */
  SRV_STORE_GAME_FINISHED,
  SRV_STORE_ROOM_CLOSED
} srv_store_kind;

typedef struct srv_store_event {
  srv_store_kind kind;
  const char *room;
  const srv_room_opts *opts;
  const mc_game *game;
  const srv_player *seats[2];
  int game_no;
  int seat, house;     /* SRV_STORE_MOVE */
  int64_t clock_ms[2]; /* Clock left after the move (the mover's increment included), clocked. */
  srv_status status;   /* The room's status when the event happened. */
  /* The permanent id of the room's current game, 0 while storage has not recorded it. Owned by the
   * room; the listener writes the id it gave the game (SRV_STORE_GAME_STARTED, or any later event
   * that finds it 0 and records the game then) and 0 when that record was lost. */
  int64_t *game_id;
} srv_store_event;

typedef struct srv_store_hooks {
  int (*event)(void *ud, const srv_store_event *ev);
  void *ud;
} srv_store_hooks;

/* A room as durable storage gives it back after a restart (srv_rooms_restore()). */
typedef struct srv_room_restore {
  const char *code;          /* SRV_CODE_LEN characters (borrowed). */
  const srv_room_opts *opts; /* Borrowed (copied). */
  srv_status status;         /* SRV_PLAYING needs game with a game in progress. */
  int game_no;               /* Games played in the room so far (the current one included). */
  int64_t game_id;           /* The current game's permanent id, 0: none. */
  mc_game *game;             /* Steals it (also on error); NULL: a new game of opts' rules. */
  srv_player *seats[2];      /* Borrowed; each gets one seat reference. NULL: a free seat. */
  int64_t clock_ms[2];       /* Time left (South, North) when clocked. */
  bool has_last;             /* The last move, for the state's "last" (no trace). */
  int last_seat, last_house;
} srv_room_restore;

/* Returns a new room registry, or NULL when memory runs out. time, ident, sink and limits are
 * borrowed (copied for sink and limits) and must outlive it. */
srv_rooms *srv_rooms_new(srv_time *time, srv_ident *ident, const srv_sink *sink,
                         const srv_room_limits *limits);

/* Closes every room without sending anything, frees their timers and releases their seats. The
 * clients must already be gone. NULL is allowed. */
void srv_rooms_free(srv_rooms *rooms);

/* Sets (or with NULL clears) the storage listener; hooks is copied. */
void srv_rooms_set_store(srv_rooms *rooms, const srv_store_hooks *hooks);

/* Adds a room recovered from durable storage (r borrowed, r->game stolen), with nobody connected:
 * the clock of the side to move starts now from r->clock_ms (the downtime is not charged), and
 * the abandonment countdown and the idle timer run as after a disconnection; a finished room
 * gets its expiry timer. No storage event is emitted. Returns 0, SRV_EBADREQ (bad code, bad
 * status, a game over in a room said to be playing), SRV_ESERVERFULL or SRV_ENOMEM. */
int srv_rooms_restore(srv_rooms *rooms, const srv_room_restore *r);

/* Durable storage lost writes of room code (borrowed) that were already applied in memory: takes
 * the game back to the position before move lost_ply of game game_id (lost_ply < 0: no move
 * lost), forgets the game's id when game_lost (its start was lost), and records the room as it is
 * now again. The mover of the first lost move gets err (answering that move's request when its
 * connection is still in the room) and every member gets the state again. The states queued
 * earlier in the turn must be dropped by the caller. Returns 0, or SRV_ENOTFOUND when the room
 * is gone. */
int srv_rooms_store_lost(srv_rooms *rooms, const char *code, int64_t game_id, int lost_ply,
                         bool game_lost, int err);

void srv_client_init(srv_client *c, void *conn);

/* Identifies c as player (borrowed; c takes its own reference). When resumed, c rejoins every
 * room where player holds a seat and gets joined and state for each. */
void srv_rooms_identify(srv_rooms *rooms, srv_client *c, srv_player *player, bool resumed);

/* The connection of c is gone: it leaves its rooms (keeping its seats), stops watching the lobby
 * and drops its player reference. c can be freed afterwards. */
void srv_rooms_client_gone(srv_rooms *rooms, srv_client *c);

/* The command handlers (cmd borrowed). c must be identified. */
int srv_room_create(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_quick(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_join(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_leave(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_lobby(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_move(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_resign(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_draw(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_rematch(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_chat(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);

/* Sends the lobby to its watchers when it changed since the last flush. Call once per loop
 * iteration (the network layer does it from a uv_prepare_t). */
void srv_rooms_flush(srv_rooms *rooms);

/* Returns the room with that code (upper case, borrowed), or NULL. */
srv_room *srv_rooms_find(srv_rooms *rooms, const char *code);

/* Returns the room whose current game has the permanent id game_id (borrowed), or NULL. It walks
 * every room: for the rare batch the disk refused, not for every message. */
srv_room *srv_rooms_find_game(srv_rooms *rooms, int64_t game_id);

/* Room accessors (borrowed results). */
srv_status srv_room_status(const srv_room *room);
const mc_game *srv_room_game(const srv_room *room);
const srv_player *srv_room_seat(const srv_room *room, int seat);
const char *srv_room_code(const srv_room *room);

/* Counts rooms by status into counts[3]. */
void srv_rooms_count(const srv_rooms *rooms, long counts[3]);

#endif
