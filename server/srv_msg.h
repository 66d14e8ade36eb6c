/* Typed messages: the commands the protocol layer decodes from frames and the events it encodes
 * back. Room logic speaks only these types; it never sees JSON or libwebsockets.
 */
#ifndef SRV_MSG_H
#define SRV_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mc_game.h"
#include "mc_rules.h"
#include "srv_ident.h"

#define SRV_CODE_LEN 6
#define SRV_CHAT_MAX 300 /* Characters (code points). */
#define SRV_CHAT_SIZE (4 * SRV_CHAT_MAX + 1)
#define SRV_ID_SIZE 65 /* A string request id: up to 64 bytes. */

typedef enum srv_visibility { SRV_PUBLIC = 0, SRV_PRIVATE = 1 } srv_visibility;
typedef enum srv_seat_choice {
  SRV_CHOOSE_SOUTH = 0,
  SRV_CHOOSE_NORTH = 1,
  SRV_CHOOSE_RANDOM = 2
} srv_seat_choice;
typedef enum srv_opponent {
  SRV_OPP_HUMAN = 0,
  SRV_OPP_COMPUTER = 1,
  SRV_OPP_LOCAL = 2
} srv_opponent;
typedef enum srv_role { SRV_ROLE_PLAYER = 0, SRV_ROLE_SPECTATOR = 1 } srv_role;
typedef enum srv_draw_action {
  SRV_DRAW_OFFER = 0,
  SRV_DRAW_ACCEPT = 1,
  SRV_DRAW_DECLINE = 2
} srv_draw_action;
typedef enum srv_status { SRV_WAITING = 0, SRV_PLAYING = 1, SRV_FINISHED = 2 } srv_status;

/* "you" and "seat" values beyond the two mc_seat ones. */
#define SRV_SEAT_BOTH 2
#define SRV_SEAT_SPECTATOR 3
#define SRV_SEAT_NONE (-1)

/* The protocol's names of the enums above, indexed by value and ended by NULL (srv_msg.c is the
 * one place each name is written; decoding, encoding and storage all read them here). */
extern const char *const srv_visibility_names[];  /* public, private */
extern const char *const srv_seat_choice_names[]; /* south, north, random */
extern const char *const srv_opponent_names[];    /* human, computer, local */
extern const char *const srv_role_names[];        /* player, spectator */
extern const char *const srv_draw_action_names[]; /* offer, accept, decline */
extern const char *const srv_status_names[];      /* waiting, playing, finished */
extern const char *const srv_you_names[];    /* south, north, both, spectator (a seat, "you") */
extern const char *const srv_rounds_names[]; /* single, match (Congkak's rounds option) */

/* Returns names[value] (static), or NULL when value is outside the table. */
const char *srv_name_of(const char *const *names, int value);

/* Returns the index of the len bytes at s (borrowed) in names, or -1. */
int srv_name_index(const char *const *names, const char *s, size_t len);

/* What a room is created with (create and quick). */
typedef struct srv_room_opts {
  mc_rules rules;
  srv_visibility visibility;
  srv_seat_choice seat;
  bool clocked;
  int64_t initial_ms;
  int64_t increment_ms;
  srv_opponent opponent;
  int level;
} srv_room_opts;

typedef enum srv_cmd_type {
  SRV_CMD_HELLO = 0,
  SRV_CMD_CREATE,
  SRV_CMD_JOIN,
  SRV_CMD_QUICK,
  SRV_CMD_LEAVE,
  SRV_CMD_LOBBY,
  SRV_CMD_MOVE,
  SRV_CMD_RESIGN,
  SRV_CMD_DRAW,
  SRV_CMD_REMATCH,
  SRV_CMD_CHAT,
  SRV_CMD_RESYNC,
  SRV_CMD_COUNT
} srv_cmd_type;

/* A request id, echoed in the reply: absent, an integer or a string. */
typedef struct srv_req_id {
  enum { SRV_ID_NONE = 0, SRV_ID_INT, SRV_ID_STR } kind;
  long long num;
  char str[SRV_ID_SIZE];
} srv_req_id;

/* A decoded, validated command. Fields that a type does not use stay zero. */
typedef struct srv_cmd {
  srv_cmd_type type;
  srv_req_id id;
  bool has_name;            /* hello */
  char name[SRV_NAME_SIZE]; /* hello: trimmed, 1..24 characters, no control characters */
  bool has_token;           /* hello */
  char token[SRV_TOKEN_CHARS + 1];
  srv_room_opts opts;          /* create, quick */
  char room[SRV_CODE_LEN + 1]; /* join, leave, move...: upper case; "" when not a valid code */
  srv_role role;               /* join */
  int house;                   /* move: 1..m (checked against the room's board later) */
  bool has_ply;                /* move */
  long long ply;               /* move */
  srv_draw_action action;      /* draw */
  char text[SRV_CHAT_SIZE];    /* chat: 1..300 characters, no control characters */
  bool watch;                  /* lobby: true unless "watch":false */
} srv_cmd;

/* One seat as shown in a state. */
typedef struct srv_seat_view {
  const srv_player *player; /* NULL: the seat is free. */
  bool connected;
  bool computer;
} srv_seat_view;

/* Everything a state frame shows (borrowed pointers, valid during the send call). */
typedef struct srv_state_view {
  const char *room;
  const srv_room_opts *opts;
  const mc_game *game; /* Position, ply, moves and result come from here. */
  srv_status status;
  int game_no; /* 1 for the first game of the room, +1 per rematch. */
  int you;     /* MC_SOUTH, MC_NORTH, SRV_SEAT_BOTH or SRV_SEAT_SPECTATOR. */
  srv_seat_view seats[2];
  int spectators;
  bool clocked;
  int64_t clock_ms[2];
  int clock_running; /* A seat or -1. */
  bool has_last;
  int last_seat;
  int last_house;
  const mc_step *trace;
  size_t trace_len;
  bool has_result;
  mc_result result;
  int draw_offer;   /* The seat offering a draw, or -1. */
  bool rematch[2];  /* Which seats asked for a rematch. */
  int abandon_seat; /* The absent seat whose abandonment countdown runs, or -1. */
  int64_t abandon_ms;
  int64_t game_id; /* The archive id of a finished game, 0: none. */
  bool with_moves; /* A full state: the game's moves too (join, resume, resync). */
} srv_state_view;

/* One public room in the lobby list. */
typedef struct srv_lobby_entry {
  const char *room;
  const srv_room_opts *opts;
  const char *names[2]; /* NULL: free seat. */
  srv_status status;
  int spectators;
} srv_lobby_entry;

typedef enum srv_event_type {
  SRV_EV_WELCOME = 0,
  SRV_EV_JOINED,
  SRV_EV_LEFT,
  SRV_EV_STATE,
  SRV_EV_LOBBY,
  SRV_EV_CHAT,
  SRV_EV_ERROR,
  SRV_EV_CLOSED,
  SRV_EV_BYE
} srv_event_type;

/* An event for one connection. Pointers are borrowed for the duration of the send call. */
typedef struct srv_event {
  srv_event_type type;
  const srv_req_id *id; /* The request this answers, or NULL. */
  union {
    struct {
      const srv_player *player;
      const char *token; /* NULL when resuming: the client already has it. */
      bool resumed;
      bool storage;  /* Durable storage is on (features.storage). */
      bool computer; /* Games against the computer are on (features.computer). */
    } welcome;
    struct {
      const char *room;
      srv_role role;
      int seat; /* MC_SOUTH, MC_NORTH, SRV_SEAT_BOTH or SRV_SEAT_NONE. */
    } joined;
    struct {
      const char *room;
    } left;
    const srv_state_view *state;
    struct {
      const srv_lobby_entry *rooms;
      size_t n;
    } lobby;
    struct {
      const char *room;
      const char *from;
      const char *text;
      int64_t at;
    } chat;
    struct {
      int err;
      const char *field;   /* bad_request: the offending field, or NULL. */
      const char *request; /* The request's type when known, or NULL. */
    } error;
    struct {
      const char *room;
      const char *reason;
    } closed;
    struct {
      const char *reason;
    } bye;
  } u;
} srv_event;

#endif
