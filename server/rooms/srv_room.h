/* Rooms: seats, games, clocks, presence and the room commands. The loop thread owns all of it.
 *
 * Rooms are addressable by their code (srv_rooms_find()). Room logic sees only typed commands
 * (srv_cmd) and sends typed events (srv_event) as frames through a sink (srv_send.h); it never
 * sees JSON or sockets, and it runs on srv_time.h, so the unit tests drive it with a recording
 * sink and a fake clock.
 *
 * Two narrow interfaces look at the rooms from outside without being called back: the recorder
 * (durable storage, srv_persist.h) gets a record of every change that must survive a restart, and
 * the observer (the lobby, srv_lobby.h) is told that a room changed in a way the lobby shows.
 *
 * The module's files, one concern each: srv_rooms.c (the registry, clients), srv_room.c (one
 * room: lifecycle, members, seats, presence and timers, records), srv_room_join.c (create, join,
 * quick, leave, resync), srv_room_move.c (move), srv_room_game.c (games: start and end, clocks,
 * abandonment, resign, draw, rematch), srv_room_chat.c (chat), srv_room_send.c (every frame a room
 * sends), srv_room_restore.c (recovery and lost writes). They share srv_room_int.h.
 *
 * Every srv_room_* command function returns 0 or a negative SRV_E* code; on error nothing changed
 * and nothing was sent: the caller (the dispatch) turns the code into an error frame.
 */
#ifndef SRV_ROOM_H
#define SRV_ROOM_H

#include <stdbool.h>
#include <stdint.h>

#include "srv_client.h"
#include "srv_ident.h"
#include "srv_msg.h"
#include "srv_send.h"
#include "srv_time.h"

typedef struct srv_rooms srv_rooms;
typedef struct srv_room srv_room;

/* The first move of each side in a clocked game: no clock runs for a side until it has made its
 * first move, and the game is aborted (no result, no rating, no archive) if that move does not come
 * within this long, or within the initial time when shorter. */
#define SRV_FIRST_MOVE_MS 30000

typedef struct srv_room_limits {
  int64_t abandon_ms;   /* Countdown of an absent player on their own turn. */
  int64_t idle_ms;      /* A room nobody is in closes after this long. */
  int64_t finished_ms;  /* A finished room stays this long for a rematch. */
  int rooms_per_player; /* Unfinished rooms one player may be seated in. */
  int max_rooms;        /* Rooms in memory. */
  /* Per client address (srv_peer.h; 0: no limit, or for waiting_ms idle_ms). */
  int64_t waiting_ms;  /* A waiting room nobody is in closes after this long. */
  int rooms_per_addr;  /* Unfinished rooms created from one address. */
  int public_per_addr; /* Public rooms for two, not finished, created from one address. */
  /* A room's chat allowance: lines a second on average and at once, for each seat and for all
   * its spectators together (the server gives each one connection's --rate and --burst).
   * chat_rate 0: no bound of the room's own. */
  int chat_rate, chat_burst;
  /* An untimed game between people: the side to move has this long for each move, then loses by
   * abandonment (0: no deadline). */
  int64_t move_deadline_ms;
} srv_room_limits;

/* ---- The storage seam ------------------------------------------------------------------------ */

/* What a room tells durable storage (srv_persist.h), one record per change. Everything in a
 * record is borrowed for the duration of the call. Storage only listens: it never refuses a
 * change nor writes into a room. A write it could not make is lost with its batch, and the end of
 * the turn has the room take it back (srv_rooms_store_lost()). */
typedef enum srv_record_kind {
  SRV_RECORD_ROOM_OPENED = 0,
  SRV_RECORD_SEATED, /* seats[] changed */
  SRV_RECORD_GAME_STARTED,
  SRV_RECORD_MOVE, /* seat played house; game and clock_ms are as they are after it */
  SRV_RECORD_GAME_FINISHED,
  SRV_RECORD_ROOM_CLOSED,
  /* The game's moves from its ply on were taken back (game as it is after the takeback, clock_ms
   * each side's time now); also "the stored moves are exactly the game's" after a lost batch. */
  SRV_RECORD_TAKEBACK,
  SRV_RECORD_CHAT, /* A chat line (chat) was said in the room. */
  SRV_RECORD_KINDS
} srv_record_kind;

/* What a rated game changed, as the room rated it when it ended (srv_rating.h) from the ratings its
 * players held: each seat's rating before and after, and the difference. */
typedef struct srv_rating_change {
  bool known; /* The game was rated (false: not rated). */
  srv_player_rating before[2], after[2];
  double diff[2];
  int64_t ended_ms; /* When it was rated. */
} srv_rating_change;

typedef struct srv_record {
  srv_record_kind kind;
  const char *room;
  const srv_room_opts *opts;
  const mc_game *game;
  const srv_player *seats[2];
  int game_no;
  int seat, house;     /* SRV_RECORD_MOVE */
  int64_t clock_ms[2]; /* Time left on each clock now (after a move: the mover's increment in). */
  srv_status status;   /* The room's status. */
  /* The permanent id of the room's current game (0: none yet), given by the rooms
   * (srv_rooms_set_next_game_id()): storage never gives ids. */
  int64_t game_id;
  /* SRV_RECORD_GAME_FINISHED of a rated game: what it changed in the ratings (NULL: unrated). */
  const srv_rating_change *rating;
  const srv_chat_line *chat; /* SRV_RECORD_CHAT */
  /* SRV_RECORD_GAME_FINISHED (and a finished room's other records): the game was aborted, it has
   * no result (the engine's game is not over). */
  bool aborted;
} srv_record;

typedef struct srv_recorder {
  void (*record)(void *ud, const srv_record *rec);
  void *ud;
} srv_recorder;

/* ---- The lobby's view --------------------------------------------------------------------------
 */

/* Told (synchronously) that room changed in a way the lobby shows: opened, closed, status, seats,
 * presence, spectators; and (moved, optional) that its game's position changed: a move played or
 * taken back. It must not call back into the rooms; it reads them later. */
typedef struct srv_room_observer {
  void (*changed)(void *ud, const srv_room *room);
  void (*moved)(void *ud, const srv_room *room);
  void *ud;
} srv_room_observer;

/* How many observers the rooms can have (the lobby, the players' own lists). */
#define SRV_ROOM_OBSERVERS 4

/* ---- The computer's seat (srv_room_computer.c; srv_computer.h runs the searches) ------------ */

/* Told (synchronously, on the loop) about rooms against the computer: think when the computer is
 * to move in a game in progress (called again after every change; a search already under way for
 * that game and ply goes on), stop when the room's search, if any, is no longer wanted (the game
 * is over or the room is going). Neither may call back into the rooms. */
typedef struct srv_room_thinker {
  void (*think)(void *ud, srv_room *room);
  void (*stop)(void *ud, srv_room *room);
  void *ud;
} srv_room_thinker;

/* Sets (or with NULL clears) the thinker; copied. Set it before recovery, so that a restored game
 * where the computer is to move gets its search. */
void srv_rooms_set_thinker(srv_rooms *rooms, const srv_room_thinker *thinker);

/* Caps unfinished games against the computer at max (creating one more is refused with
 * SRV_ESERVERFULL); 0: the computer is off (SRV_EUNSUPPORTED). The default is no cap. */
void srv_rooms_set_computer_games(srv_rooms *rooms, int max);

/* Caps unfinished games against the computer of one player (the person seated in them) at
 * per_player and of one client address (the address that created them) at per_addr; one more is
 * refused with SRV_ECOMPUTERGAMES. 0: no cap (the default). */
void srv_rooms_set_computer_shares(srv_rooms *rooms, int per_player, int per_addr);

/* Whether games against the computer are on: a thinker is set and the cap is not 0. */
bool srv_rooms_computer_on(const srv_rooms *rooms);

/* Makes the computer's player for level (1..6), named "Computer (level N)", in ident. Returns 0
 * with *out holding one reference (the caller's), or SRV_ENOMEM / SRV_EINTERNAL. */
int srv_rooms_computer_player(srv_ident *ident, int level, srv_player **out);

/* The computer's level in seat of room, 0 when a person (or nobody) holds it. */
int srv_room_computer_level(const srv_room *room, int seat);

/* Time left on seat's clock now in ms, or -1 when the room has no clock. */
int64_t srv_room_clock_left(const srv_room *room, int seat);

/* Plays the computer's move house in room as a move of its seat, when the room still plays game
 * game_no at ply with the computer to move; the state goes to every member. Returns 0, SRV_ESTALE
 * when the room moved on (nothing changed), or the move's error (nothing changed). */
int srv_room_computer_move(srv_room *room, int game_no, size_t ply, int house);

/* ---- Hints (srv_room_hint.c; srv_hints.h runs their searches) ------------------------------ */

/* Asked (synchronously, on the loop) for the best move of room's position for the side to move:
 * ask queues a search of it named by token and returns 0 (srv_room_hint_answer() follows with
 * that token, on the loop, later, never within the call) or an SRV_E* code (nothing queued);
 * cancel drops the search of token, whose answer then never comes. Neither may call back into
 * the rooms. */
typedef struct srv_room_hinter {
  int (*ask)(void *ud, srv_room *room, uint64_t token);
  void (*cancel)(void *ud, srv_room *room, uint64_t token);
  void *ud;
} srv_room_hinter;

/* Sets (or with NULL clears: hint is then SRV_EUNSUPPORTED) the hinter, copied, and how many
 * hints a seat of a room may ask for in a minute (a bucket of per_minute at once, refilled at
 * per_minute a minute; 0: no hints). */
void srv_rooms_set_hinter(srv_rooms *rooms, const srv_room_hinter *hinter, int per_minute);

/* The answer to the hint search of token in room: rc 0 with the best house, its value for the
 * side to move (hundredths of a seed), whether it is exact and the depth searched, or an SRV_E*
 * / MC_E* code. The asker gets it when the room still plays the position it asked about (else
 * stale); nothing when it left. Unknown tokens are ignored. */
void srv_room_hint_answer(srv_room *room, uint64_t token, int rc, int house, int value, bool exact,
                          int depth);

/* ---- Recovery ------------------------------------------------------------------------------- */

/* A room as durable storage gives it back after a restart (srv_rooms_restore()). */
typedef struct srv_room_restore {
  const char *code;          /* SRV_CODE_LEN characters (borrowed). */
  const srv_room_opts *opts; /* Borrowed (copied). */
  srv_status status;         /* SRV_PLAYING needs game with a game in progress. */
  int game_no;               /* Games played in the room so far (the current one included). */
  int64_t game_id;           /* The current game's permanent id, 0: none. */
  mc_game *game;             /* Steals it (also on error); NULL: a new game of opts' rules. */
  srv_player *seats[2];      /* Borrowed; each seat takes its own reference. NULL: a free seat. */
  int64_t clock_ms[2];       /* Time left (South, North) when clocked. */
  bool has_last;             /* The last move, for the state's "last" (no trace). */
  int last_seat, last_house;
  bool aborted;              /* SRV_FINISHED: the game was aborted (game not over). */
  const srv_chat_line *chat; /* The room's last chat lines, oldest first (borrowed, copied). */
  size_t n_chat;
} srv_room_restore;

/* ---- The registry ------------------------------------------------------------------------------
 */

/* Returns a new room registry, or NULL when memory runs out. time, ident, sink and limits are
 * borrowed (copied for sink and limits) and must outlive it. */
srv_rooms *srv_rooms_new(srv_time *time, srv_ident *ident, const srv_sink *sink,
                         const srv_room_limits *limits);

/* Closes every room without sending anything, frees their timers and gives back their seats. The
 * clients must already be gone. NULL is allowed. */
void srv_rooms_free(srv_rooms *rooms);

/* Sets (or with NULL clears) the storage recorder; copied. */
void srv_rooms_set_recorder(srv_rooms *rooms, const srv_recorder *recorder);

/* The permanent id the next game started gets (recovery sets it past every stored game; 1 in a
 * new store), and every game after it the next one. */
void srv_rooms_set_next_game_id(srv_rooms *rooms, int64_t next);

/* The lane of the game ids (a cluster's node, 0..SRV_GAME_ID_LANES - 1): several nodes start games
 * at once and store them in one database, so from now on a game's id is made from the time and
 * the lane, ((ms << SRV_GAME_ID_LANE_BITS) | lane), ms the later of the wall clock's milliseconds
 * and the last id's plus one: unique across nodes as long as their lanes differ, in the order
 * of the games' starts across nodes (to the millisecond; the archive lists by id), and past every
 * id a single process gave (those count from 1). */
#define SRV_GAME_ID_LANE_BITS 12
#define SRV_GAME_ID_LANES (1 << SRV_GAME_ID_LANE_BITS)
void srv_rooms_set_game_id_lane(srv_rooms *rooms, int lane);

/* ---- A cluster's node (server/cluster/) -------------------------------------------------------
 * The next room made here (create, quick) takes code (borrowed; "" or NULL: none), which the
 * cluster reserved for this node first; once only, and not when a room here has it already. */
void srv_rooms_preset_code(srv_rooms *rooms, const char *code);

/* The room code leaves this node without a record (another node runs it now: this one lost its
 * lease): its members are taken out without a word, each told to member (may be NULL) once it is
 * out, and the room freed. Nothing when there is no such room. */
void srv_rooms_evict(srv_rooms *rooms, const char *code, void (*member)(void *ud, srv_client *c),
                     void *ud);

/* c (identified) enters the room code where its player holds a seat, as on reconnecting.
 * Returns 0 (also when it is in already), SRV_ENOTFOUND, SRV_ENOTMEMBER (no seat of its player),
 * SRV_ENOMEM. */
int srv_rooms_attach(srv_rooms *rooms, srv_client *c, const char *code);

/* Whether quick play with opts (borrowed) would pair here: a public room for two people waits
 * with the same table. */
bool srv_rooms_has_seek(srv_rooms *rooms, const srv_room_opts *opts);

/* The permanent id of the room's current game (0: none yet). */
int64_t srv_room_game_id(const srv_room *room);

/* Adds an observer of the rooms (copied). Returns 0, or SRV_ENOMEM when SRV_ROOM_OBSERVERS are
 * there already. */
int srv_rooms_add_observer(srv_rooms *rooms, const srv_room_observer *observer);

/* Removes the observer whose ud is ud (nothing when there is none). */
void srv_rooms_remove_observer(srv_rooms *rooms, void *ud);

/* Adds a room recovered from durable storage (r borrowed, r->game stolen), with nobody connected:
 * the clock of the side to move starts now from r->clock_ms (the downtime is not charged), and
 * the abandonment countdown and the idle timer run as after a disconnection; a finished room
 * gets its expiry timer. Nothing is recorded. Returns 0, SRV_EBADREQ (bad code, bad status, a
 * game over in a room said to be playing), SRV_ESERVERFULL or SRV_ENOMEM. */
int srv_rooms_restore(srv_rooms *rooms, const srv_room_restore *r);

/* Durable storage lost writes of room code (borrowed) that were already applied in memory: takes
 * the game back to the position before move lost_ply of game game_id (lost_ply < 0: no move
 * lost), records the whole game again under its id when game_lost (its start was lost), and records
 * the room as it is now again. The states the room owed for the lost plies are never sent (nothing
 * was encoded yet): each request they answered gets err instead, as do the mover's other
 * connections, and every member is owed the state as it is now. Call it before srv_rooms_flush().
 * Returns 0, or SRV_ENOTFOUND when the room is gone. */
int srv_rooms_store_lost(srv_rooms *rooms, const char *code, int64_t game_id, int lost_ply,
                         bool game_lost, int err);

/* Identifies c as player (borrowed; c takes its own reference). When resumed, c rejoins every
 * room where player holds a seat and gets joined and state for each. */
void srv_rooms_identify(srv_rooms *rooms, srv_client *c, srv_player *player, bool resumed);

/* The connection of c is gone: it leaves its rooms (keeping its seats) and gives back its player
 * reference. */
void srv_rooms_client_gone(srv_rooms *rooms, srv_client *c);

/* The storage batch the rooms' changes go into now is handed over to be committed: returns its
 * number; what the rooms owe from now on waits for the next one. */
uint64_t srv_rooms_seal(srv_rooms *rooms);

/* Once batch upto (srv_rooms_seal()) is committed, and a lost batch was taken back: encodes and
 * queues every state the rooms owe for the batches up to upto (each ply's state once per kind of
 * viewer, the full states and chat histories owed to joining or resyncing clients), room by room
 * in the order they changed. What the rooms owe for later batches waits. */
void srv_rooms_flush(srv_rooms *rooms, uint64_t upto);

/* Returns the room with that code (upper case, borrowed), or NULL. */
srv_room *srv_rooms_find(srv_rooms *rooms, const char *code);

/* Returns the room whose current game has the permanent id game_id (borrowed), or NULL. It walks
 * every room: for the rare batch the disk refused, not for every message. */
srv_room *srv_rooms_find_game(srv_rooms *rooms, int64_t game_id);

/* The rooms in creation order (oldest first): the first, and the one after room; NULL at the end.
 * Borrowed. */
const srv_room *srv_rooms_first(const srv_rooms *rooms);
const srv_room *srv_rooms_next(const srv_room *room);

/* player (borrowed) gives up everywhere (its account is being deleted): its games in progress are
 * lost by resignation (in a local room, by the side to move), its seats in waiting rooms are given
 * up. Finished rooms keep it. */
void srv_rooms_forfeit(srv_rooms *rooms, srv_player *player);

/* The chat lines the rooms keep of the player with public id player (its account was deleted)
 * lose its id and take the name name (both borrowed), as storage anonymises them. Sends nothing:
 * whoever gets the rooms' lines from now on gets them so. */
void srv_rooms_chat_anonymise(srv_rooms *rooms, const char *player, const char *name);

/* Counts rooms by status into counts[3]. */
void srv_rooms_count(const srv_rooms *rooms, long counts[3]);

/* ---- The commands (cmd borrowed; c must be identified) ------------------------------------- */

int srv_room_create(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_quick(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_join(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_leave(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_move(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_resign(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_draw(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_rematch(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
int srv_room_chat(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
/* Takes back moves: in a local room the last move at once; between people on request, answered
 * by the other side (docs/protocol.md, "takeback"). */
int srv_room_takeback(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
/* The best move of the position for the asking seat, when it is to move, from a search
 * (docs/protocol.md, "hint"): answered later by a hint frame, or an error now. */
int srv_room_hint(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);
/* The full state again (the game's moves included) to c, answering its request. */
int srv_room_resync(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);

/* ---- One room (borrowed results) ------------------------------------------------------------ */

const char *srv_room_code(const srv_room *room);
const srv_room_opts *srv_room_opts_of(const srv_room *room);
srv_status srv_room_status(const srv_room *room);
/* Whether the room's finished game was aborted (its engine game is not over). */
bool srv_room_aborted(const srv_room *room);
int srv_room_game_no(const srv_room *room); /* 0 while the first game waits, +1 per game. */
const mc_game *srv_room_game(const srv_room *room);
const srv_player *srv_room_seat(const srv_room *room, int seat);

/* Whether one of the connections of the player in seat is in the room. */
bool srv_room_seat_connected(const srv_room *room, int seat);

/* Connections in the room that hold no seat. */
int srv_room_spectators(const srv_room *room);

#endif
