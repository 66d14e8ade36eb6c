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
/* A password: a new one has 8..128 characters (code points); any has at most 128. */
#define SRV_PASSWORD_MIN 8
#define SRV_PASSWORD_MAX 128
#define SRV_PASSWORD_SIZE (4 * SRV_PASSWORD_MAX + 1)
/* A device's label (login, register): 1..64 bytes of text; a session's public id: 16 hex
 * digits (the first 8 bytes of its token's hash). */
#define SRV_DEVICE_MAX 64
#define SRV_DEVICE_SIZE (4 * SRV_DEVICE_MAX + 1)
#define SRV_SESSION_ID_CHARS 16

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
  bool rated; /* The game counts for the ratings (srv_rating.h says which may). */
  /* A casual room between people allows hints (create's "hints"); games against the computer
   * and local games always do, rated ones never (srv_room_hints_allowed()). */
  bool hints;
} srv_room_opts;

/* Whether a room made with opts gives hints: never a rated one; a game against the computer and
 * a local game always; a casual room between people when it was made with "hints". */
bool srv_room_opts_hints(const srv_room_opts *opts);

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
  SRV_CMD_REGISTER,
  SRV_CMD_LOGIN,
  SRV_CMD_LOGOUT,
  SRV_CMD_LOGOUT_ALL,
  SRV_CMD_CHANGE_PASSWORD,
  SRV_CMD_DELETE_ACCOUNT,
  SRV_CMD_TAKEBACK,
  SRV_CMD_MY_ROOMS,
  SRV_CMD_HINT,
  SRV_CMD_SESSIONS,
  SRV_CMD_REVOKE_SESSION,
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
  bool has_name;            /* hello, register, login */
  char name[SRV_NAME_SIZE]; /* hello: trimmed, 1..24 characters, no control characters */
  bool has_token;           /* hello */
  char token[SRV_TOKEN_CHARS + 1];
  srv_room_opts opts;          /* create, quick */
  char room[SRV_CODE_LEN + 1]; /* join, leave, move...: upper case; "" when not a valid code */
  srv_role role;               /* join */
  int house;                   /* move: 1..m (checked against the room's board later), or
                                * MC_SWAP for the pie rule's swap */
  bool swap;                   /* move: "swap":true was sent (house is then MC_SWAP) */
  bool has_ply;                /* move, hint (optional there) */
  long long ply;               /* move */
  srv_draw_action action;      /* draw, takeback */
  char text[SRV_CHAT_SIZE];    /* chat: 1..300 characters, cleaned (srv_text.h) */
  bool watch;                  /* lobby, my_rooms: true unless "watch":false */
  bool changes;                /* lobby: the list once, then its changes ("changes":true) */
  /* login, change_password, delete_account: the password (1..128 characters); register: the
   * new one (8..128). new_password: change_password's new one. Wiped after the handler. */
  char password[SRV_PASSWORD_SIZE];
  char new_password[SRV_PASSWORD_SIZE];
  char device[SRV_DEVICE_SIZE]; /* login, register: the device's label, "" when not given */
  char session[SRV_SESSION_ID_CHARS + 1]; /* revoke_session: a session's id, 16 hex digits */
} srv_cmd;

/* A room keeps this many chat lines, and at most SRV_CHAT_HISTORY_BYTES of their text. */
#define SRV_CHAT_HISTORY 50
#define SRV_CHAT_HISTORY_BYTES 16384

/* One chat line as a room keeps it, sends it and stores it. */
typedef struct srv_chat_line {
  int64_t at; /* Unix time in milliseconds. */
  int seat;   /* MC_SOUTH, MC_NORTH, SRV_SEAT_BOTH or SRV_SEAT_SPECTATOR. */
  char player[SRV_PLAYER_ID_CHARS + 1]; /* The speaker's public id. */
  char name[SRV_NAME_SIZE];             /* The speaker's name when it was said. */
  const char *text;                     /* Cleaned (srv_text.h), 1..SRV_CHAT_MAX characters. */
  bool account; /* The name is an account's (the speaker had one then; after a restart: has). */
} srv_chat_line;

/* One seat as shown in a state. */
typedef struct srv_seat_view {
  const srv_player *player; /* NULL: the seat is free. */
  bool connected;
  bool computer;
} srv_seat_view;

/* A piece of a room's states kept as text with what it was written from (srv_state_cache). */
typedef struct srv_state_piece {
  char *text; /* Owned; NULL until first written. */
  size_t len, cap;
  bool valid; /* text is what the facts below show. */
} srv_state_piece;

/* What a seat of the "players" object shows, as the encoder derives it from a srv_seat_view. */
typedef struct srv_seat_facts {
  bool present; /* A player sits there (else null and nothing below). */
  bool connected, computer, account, provisional, has_rating;
  int level;        /* The computer's level, 0: null. */
  long long rating; /* With has_rating. */
  char id[SRV_PLAYER_ID_CHARS + 1];
  char name[SRV_NAME_SIZE];
} srv_seat_facts;

/* A room's cache of the parts of its states that change seldom: the "players" object and the
 * board ("room", "game", "houses", "seeds", "options"), each with the facts it was written from.
 * The encoder (srv_proto_encode()) compares the facts of a state with them and copies the text
 * when they are the same, else writes the part and keeps it: the frame is byte for byte what it
 * would be without the cache. Owned by the room (loop thread only), zeroed to start, freed with
 * srv_state_cache_free() (srv_proto.h). */
typedef struct srv_state_cache {
  srv_state_piece players;
  srv_seat_facts seats[2];
  srv_state_piece board;
  char room[SRV_CODE_LEN + 1];
  mc_rules rules; /* The fields the options show, copied one by one. */
} srv_state_cache;

/* Everything a state frame shows (borrowed pointers, valid during the send call). */
typedef struct srv_state_view {
  /* NULL, or the room's cache of the parts that change seldom (srv_state_cache): used and updated
   * by the encoder. */
  srv_state_cache *cache;
  const char *room;
  const srv_room_opts *opts;
  /* The game: its moves (with_moves) come from here, and its position, ply and legal moves
   * unless pos is set. */
  const mc_game *game;
  /* A state of an earlier ply, kept until its commit (srv_room_send.c): the position, its ply,
   * the rules and the legal moves then (pos NULL: take them from game). */
  const mc_pos *pos;
  const mc_rules *rules;
  long ply;
  const uint8_t *legal;
  int nlegal;
  bool can_swap; /* With pos: the side to move may play the pie rule's swap then. */
  srv_status status;
  int game_no; /* 1 for the first game of the room, +1 per rematch. */
  bool hints;  /* Its players may ask for hints (the room allows them, the server gives them). */
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
  bool aborted;          /* The game was aborted: its result shows no winner and no score. */
  int draw_offer;        /* The seat offering a draw, or -1. */
  int draw_declined;     /* The seat whose draw offer was declined (until the next move), or -1. */
  int takeback_offer;    /* The seat asking to take back its last move, or -1. */
  int takeback_declined; /* The seat whose takeback request was declined, or -1. */
  int first_move_seat;   /* A clocked game before its first move: the first mover, or -1... */
  int64_t first_move_ms; /* ...and the time it has left to move. */
  bool rematch[2];       /* Which seats asked for a rematch. */
  int abandon_seat;      /* The absent seat whose abandonment countdown runs, or -1. */
  int64_t abandon_ms;
  /* An untimed game's move deadline runs: the seat to move and the time it has left. */
  bool has_move_deadline;
  int move_deadline_seat;
  int64_t move_deadline_ms;
  int64_t game_id; /* The archive id of a finished game, 0: none. */
  bool with_moves; /* A full state: the game's moves too (join, resume, resync). */
  /* A rated game that ended and changed the ratings: each seat's rating before and after. */
  bool has_rating_change;
  double rating_before[2], rating_after[2];
} srv_state_view;

/* One of quick play's pools (srv_pool.h) and how many players wait in it. */
typedef struct srv_pool_view {
  mc_kind game;
  bool clocked;
  int64_t initial_ms, increment_ms;
  int waiting;
} srv_pool_view;

/* One public room in the lobby list. */
typedef struct srv_lobby_entry {
  const char *room;
  const srv_room_opts *opts;
  const char *names[2]; /* NULL: free seat. */
  srv_status status;
  int spectators;
  const srv_player *seats[2]; /* NULL: free seat (for their ratings in a rated room). */
} srv_lobby_entry;

/* A lobby entry already encoded as a JSON object (srv_proto_lobby_entry()): the lobby keeps each
 * entry's text to tell what changed between two lists. */
typedef struct srv_lobby_text {
  const char *json;
  size_t len;
} srv_lobby_text;

/* One unfinished room of a player's own, as my_rooms lists it (srv_myrooms.h). */
typedef struct srv_my_room {
  const char *room;
  const srv_room_opts *opts;
  const mc_rules *rules; /* The game's own rules (as its state shows them). */
  srv_status status;
  int you;                    /* MC_SOUTH, MC_NORTH or SRV_SEAT_BOTH. */
  const srv_player *opponent; /* NULL: a free seat, or a same-screen game. */
  bool opponent_connected;
  int turn; /* The seat to move while playing, else -1. */
  long ply;
  int game_no;
} srv_my_room;

typedef enum srv_event_type {
  SRV_EV_WELCOME = 0,
  SRV_EV_JOINED,
  SRV_EV_LEFT,
  SRV_EV_STATE,
  SRV_EV_LOBBY,
  SRV_EV_CHAT,
  SRV_EV_ERROR,
  SRV_EV_CLOSED,
  SRV_EV_BYE,
  SRV_EV_ACCOUNT,
  SRV_EV_CHAT_HISTORY,
  SRV_EV_MY_ROOMS,
  SRV_EV_LOBBY_CHANGES,
  SRV_EV_HINT,
  SRV_EV_SESSIONS
} srv_event_type;

/* One session of an account as the sessions page shows it. */
typedef struct srv_session_view {
  char id[SRV_SESSION_ID_CHARS + 1]; /* Its public id. */
  const char *device;                /* Its device's label, "" when unnamed. */
  int64_t created_ms, seen_ms;       /* Unix time in milliseconds. */
  bool current;                      /* The session of the connection that asked. */
} srv_session_view;

/* An event for one connection. Pointers are borrowed for the duration of the send call. */
typedef struct srv_event {
  srv_event_type type;
  const srv_req_id *id; /* The request this answers, or NULL. */
  union {
    struct {
      const srv_player *player;
      const char *token; /* NULL when resuming: the client already has it. */
      bool resumed;
      bool storage;       /* Durable storage is on (features.storage). */
      bool computer;      /* Games against the computer are on (features.computer). */
      const char *reason; /* Why a new identity arrives without a hello ("logout"...), or NULL. */
    } welcome;
    struct {
      const srv_player *player; /* Its account: name, ratings. */
    } account;
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
      const srv_pool_view *pools; /* Quick play's pools with their waiting counts. */
      size_t npools;
      const srv_lobby_text *texts; /* Not NULL: the n rooms already encoded (rooms unused). */
      const int *more;             /* Not NULL: the listed rooms left out, per game (nmore). */
      size_t nmore;
      bool has_rev; /* The list is the snapshot of a revision (for watchers of changes)... */
      uint64_t rev; /* ...this one. */
    } lobby;
    struct {
      uint64_t rev; /* The revision these changes make (the previous one + 1). */
      const srv_lobby_text *add, *update;
      size_t nadd, nupdate;
      const char *const *remove; /* Room codes. */
      size_t nremove;
      const int *more; /* The listed rooms left out, per game (nmore). */
      size_t nmore;
      const srv_pool_view *pools; /* NULL: the pools' counts did not change. */
      size_t npools;
    } lobby_changes;
    struct {
      const char *room;
      const char *from;
      const char *text;
      int64_t at;
      const char *player; /* The speaker's id. */
      int seat;           /* MC_SOUTH, MC_NORTH, SRV_SEAT_BOTH or SRV_SEAT_SPECTATOR. */
      bool account;       /* from is an account's name. */
    } chat;
    struct {
      const char *room;
      const srv_chat_line *const *lines; /* Oldest first. */
      size_t n;
    } chat_history;
    struct {
      const srv_my_room *rooms;
      size_t n;
      const srv_lobby_text *more; /* n_more entries already encoded (other nodes' rooms). */
      size_t n_more;
    } my_rooms;
    struct {
      int err;
      const char *field;      /* bad_request: the offending field, or NULL. */
      const char *request;    /* The request's type when known, or NULL. */
      int64_t retry_after_ms; /* too_many_attempts: when to try again (0: not said). */
    } error;
    struct {
      const char *room;
      const char *reason;
    } closed;
    struct {
      const char *reason;
    } bye;
    struct {
      const char *room;
      long ply; /* The position it is for: the room's game game_no at this ply. */
      int game_no;
      int seat;   /* The side to move, for which it is. */
      int house;  /* The best move found, 1..m. */
      int value;  /* Its value for that side, in hundredths of a seed (mc_eval.h). */
      bool exact; /* value is proven (the solver or the endgame tables). */
      int depth;  /* The depth the search finished (0 when exact from the tables at once). */
    } hint;
    struct {
      const srv_session_view *list; /* The most recently used first. */
      size_t n;
    } sessions;
  } u;
} srv_event;

#endif
