/* The room module's internals, shared by its files (srv_rooms.c, srv_room*.c) and by nothing
 * else: other modules use srv_room.h. Internal functions are named srv_room__* (Mosquitto's
 * double underscore). */
#ifndef SRV_ROOM_INT_H
#define SRV_ROOM_INT_H

#include <stdlib.h>

#include "srv_clock.h"
#include "srv_hash.h"
#include "srv_list.h"
#include "srv_rating.h"
#include "srv_room.h"

/* Room logic runs on srv_time.h (libuv in the server, a fake clock in the tests), never on libuv.
 */
#ifdef UV_VERSION_MAJOR
#error "room logic must not include <uv.h>"
#endif

/* A client in a room: in the room's members and in the client's rooms. */
typedef struct srv_member {
  srv_room *room;
  srv_client *client;
  srv_list in_room;   /* room->members */
  srv_list in_client; /* client->rooms */
  uint64_t since;     /* rooms->out_seq when it came in: it gets the states owed after that. */
  uint64_t shown;     /* rooms->out_seq when its last full state was made: that state showed
                       * every state owed until then, which it is not sent again. */
} srv_member;

/* What a room owes since its storage batch was handed over (srv_room_send.c). Rooms describe what
 * happened and keep it here; once the batch is committed the end of the turn encodes it
 * (srv_rooms_flush()), once per kind of viewer. */
typedef enum srv_room_out_kind {
  SRV_OUT_STATE = 0, /* A copy of everything the state of one ply shows, for every member. */
  SRV_OUT_FULL,      /* A full state (with the game's moves) for to, made from the room then. */
  SRV_OUT_HISTORY,   /* The room's last chat lines for to, after its full state. */
  SRV_OUT_JOINED,    /* joined for to, answering id. */
  SRV_OUT_CHAT,      /* A chat line (chat, text) for every member; the requester's answers id. */
} srv_room_out_kind;

/* A move's steps, shared by the room and the states it owes (a reference each): the room writes the
 * next move's steps into the same buffer while no owed state holds it, so that a move in steady
 * state allocates nothing for them. */
typedef struct srv_steps {
  unsigned refs;
  size_t cap;  /* Steps the buffer holds. */
  mc_step v[]; /* The steps (their count is the holder's: trace_len). */
} srv_steps;

/* Gives back a reference to s; the last one frees it. NULL is allowed. */
static inline void srv_room__steps_unref(srv_steps *s) {
  if (s != NULL && --s->refs == 0)
    free(s);
}

typedef struct srv_room_out {
  srv_room_out_kind kind;
  srv_client *to;        /* FULL, HISTORY, JOINED: whom it is for (NULL: it left). */
  srv_client *requester; /* The client whose request it answers, or NULL... */
  srv_req_id id;         /* ...and that request's id. */
  srv_client *skip;      /* A member that gets a full state instead, or NULL. */
  uint64_t seq;          /* Members that came in later do not get it. */
  uint64_t batch;        /* The storage batch that holds what it shows (srv_rooms_seal()). */
  int64_t game_id;       /* The game it shows (the room's game_id then) and... */
  long ply;              /* ...its ply: a lost batch takes back the states of lost plies. */
  srv_state_view v;      /* What it shows; its pointers are set again when it is encoded. */
  mc_pos pos;
  mc_rules rules;
  uint8_t legal[MC_MAX_HOUSES];
  srv_steps *trace;       /* The last move's steps (trace_len in v), a reference, or NULL. */
  srv_player *players[2]; /* The seated players then, a reference each. */
  srv_chat_line chat;     /* CHAT: the line, its text a copy of its own. */
} srv_room_out;

/* A seat's link into its player's list of seats (srv_player.seats). */
typedef struct srv_seat_link {
  srv_list node;
  struct srv_room *room;
} srv_seat_link;

struct srv_room {
  char code[SRV_CODE_LEN + 1];
  srv_rooms *rooms;
  srv_room_opts opts;
  srv_status status;
  mc_game *game;
  int game_no;
  srv_player *seat[2]; /* Each holds a reference; a local room's player holds both. */
  /* seated[s] is in seat[s]->seats while seat s is taken (srv_room__take_seat(), free_seat();
   * srv_room__swap_seat_links() when the seats are exchanged). */
  srv_seat_link seated[2];
  srv_list members; /* srv_member.in_room, newest first... */
  size_t n_members; /* ...and how many. */
  srv_clock clock;
  srv_timer *clock_timer, *abandon_timer, *idle_timer, *finished_timer;
  bool idle_armed;
  int abandon_seat; /* Seat whose abandonment countdown runs, or -1. */
  uint64_t abandon_deadline;
  int draw_offer; /* Seat offering a draw, or -1. */
  /* The answers a player sees (docs/protocol.md, "Offers"): the seat whose draw offer was
   * declined, the seat asking to take back its last move and the seat whose request was declined
   * (each -1 when none; cleared by the next move, see srv_room__offers_clear()). */
  int draw_declined, takeback_offer, takeback_declined;
  /* A clocked game where the side to move has not moved yet: no clock runs, and the game is
   * aborted at this monotonic time (0: no such deadline). */
  uint64_t first_deadline;
  /* The current game ended aborted (status SRV_FINISHED, the engine's game not over): no result,
   * no rating, no archive. */
  bool aborted;
  /* The address each seat's player connected from when the game started ("": unknown), for the
   * repeated games of one address (srv_rating_repeats). */
  char seat_addr[2][64];
  bool rematch[2];
  int last_seat, last_house; /* The last move of the game (last_seat -1: none). */
  srv_steps *trace;          /* Its steps, for late joiners and reconnections (NULL: none). */
  size_t trace_len;
  /* The parts of its states that change seldom (the players, the board), kept by the encoder
   * (srv_state_cache in srv_msg.h). */
  srv_state_cache state_cache;
  int64_t game_id;          /* Permanent id of the current game (rooms->next_game_id), 0: none. */
  srv_rating_change rating; /* What the current game changed in the ratings (rated rooms). */
  uint64_t waiting_since;   /* When the room was made: quick pairing's waiting time. */
  /* Made by quick: its waiting player's seek (one per player; a new seek of the player in another
   * pool closes it while it waits, srv_room_join.c). */
  bool seek;
  /* An untimed game between people: the side to move loses by abandonment at this monotonic time
   * (0: no such deadline; limits.move_deadline_ms, srv_room__start_turn_clock()). */
  uint64_t move_deadline;
  /* When the clock's timer fires (monotonic ms), 0 when it is not armed: a later move deadline
   * leaves it as it is (srv_room__on_clock() arms it again for the rest), a timer restart a move
   * saved. */
  uint64_t clock_due;
  srv_clock undo_clock; /* The clock before the last move, for srv_rooms_store_lost(). */
  /* The game a rematch replaced, kept until the new game's start is committed (its batch): a lost
   * start takes the rematch back (srv_rooms_store_lost()). game NULL: none. */
  struct {
    mc_game *game;
    int64_t game_id;
    int last_seat, last_house;
    srv_rating_change rating;
    srv_clock clock;
    uint64_t batch;
    bool aborted;
  } prev;
  srv_room_out *out; /* The states owed since the last turn's end, oldest first. */
  size_t n_out, cap_out;
  srv_list changed;      /* In rooms->changed while it owes states. */
  struct srv_peer *peer; /* The address it was created from (a reference), or NULL. */
  /* Chat: the last lines, a ring of chat_n from chat_first (each line one allocation with its
   * text; chat_bytes of text in all), and the room's allowance per voice, token buckets for
   * South, North and the spectators together (srv_room_chat.c). */
  srv_chat_line *chat[SRV_CHAT_HISTORY];
  int chat_first, chat_n;
  size_t chat_bytes;
  double chat_tokens[3];
  uint64_t chat_refill[3];
  /* Hints (srv_room_hint.c): each seat's request waiting for its search (NULL: none), and each
   * seat's allowance, a token bucket (rooms->hints_per_minute). */
  struct srv_room_hint_req *hint[2];
  double hint_tokens[2];
  uint64_t hint_refill[2];
  srv_hash_node hnode; /* rooms->by_code */
  srv_list order;      /* rooms->order: creation order, the lobby's and quick pairing's. */
};

struct srv_rooms {
  srv_time *time;
  srv_ident *ident;
  srv_sink sink;
  srv_room_limits limits;
  srv_recorder recorder;
  srv_room_observer observers[SRV_ROOM_OBSERVERS];
  int nobservers;
  srv_hash by_code; /* srv_room.hnode */
  size_t count;
  srv_list order;       /* srv_room.order, oldest first. */
  srv_list changed;     /* srv_room.changed: the rooms that owe states (srv_rooms_flush()). */
  uint64_t out_seq;     /* The last srv_room_out.seq given. */
  uint64_t batch;       /* The open storage batch: what rooms owe now waits for its commit. */
  int64_t next_game_id; /* The permanent id of the next game started. */
  int game_id_lane;     /* srv_rooms_set_game_id_lane()'s lane, or -1: ids count from next. */
  char preset_code[SRV_CODE_LEN + 1]; /* srv_rooms_preset_code()'s, "" when none. */
  long by_status[3];
  mc_trace *trace; /* Scratch space for one move's steps. */
  srv_room_thinker thinker;
  int computer_games; /* Cap of unfinished games against the computer; 0: off; < 0: none. */
  /* Rated games by pair of players and by address in the last window (srv_rating.h): how much
   * the next one counts. In memory only (a restart forgets it); NULL: not counted. */
  srv_rating_repeats *repeats;
  int computer_per_player, computer_per_addr; /* The same per person and address; 0: none. */
  srv_room_hinter hinter;                     /* Runs the hints' searches (ask NULL: no hints). */
  int hints_per_minute; /* Each seat's hints a minute (and at once); 0: none. */
  uint64_t hint_token;  /* The last token given to a hint search. */
};

/* ---- srv_rooms.c: the registry --------------------------------------------------------------- */

/* Links a new room into the registry (hash and creation order). */
void srv_room__link(srv_rooms *rooms, srv_room *room);

/* Unlinks room from the registry. */
void srv_room__unlink(srv_room *room);

/* Draws a code no room in memory has. Returns 0, or SRV_ESERVERFULL / SRV_EINTERNAL. */
int srv_room__new_code(srv_rooms *rooms, char code[SRV_CODE_LEN + 1]);

/* c enters room (already a member or not): joined (answering id) and the full state to c, the
 * state to everyone else (srv_room_join.c; a reconnection's way in too). */
int srv_room__enter(srv_room *room, srv_client *c, const srv_req_id *id);
/* The unfinished rooms where p holds a seat: O(1), p->active_rooms, which take_seat, free_seat
 * and set_status keep. */
int srv_room__active_count(const srv_rooms *rooms, const srv_player *p);
/* The id of a game starting now (srv_rooms_set_game_id_lane()). */
int64_t srv_rooms__take_game_id(srv_rooms *rooms);

/* ---- srv_room.c: one room -------------------------------------------------------------------- */

/* Makes a room with opts (borrowed, copied): a new code, or code (not NULL) for a room recovered
 * under its old one, which records nothing. Returns 0 with *out, or SRV_ESERVERFULL, SRV_EBADREQ
 * (a taken or bad code), SRV_ENOMEM. */
int srv_room__make(srv_rooms *rooms, const srv_room_opts *opts, const char *code, srv_room **out);

/* Closes room: records it, sends closed to everyone still in it, frees it. */
void srv_room__close(srv_room *room, const char *reason);

/* Frees a room that is unlinked and empty, giving back its seats, without sending anything. */
void srv_room__destroy(srv_room *room);

/* The membership of c in room, or NULL. */
srv_member *srv_room__member(srv_room *room, const srv_client *c);

/* Makes c a member of room (nothing when it is one). Returns 0 or SRV_ENOMEM. */
int srv_room__add_member(srv_room *room, srv_client *c);

/* Ends membership m (and frees it). */
void srv_room__remove_member(srv_member *m);

/* Seats player p (borrowed; the seat takes a reference) / frees a seat, giving the reference
 * back. */
void srv_room__take_seat(srv_room *room, int seat, srv_player *p);
void srv_room__free_seat(srv_room *room, int seat);

/* After seat[0] and seat[1] were exchanged: each seat's link follows it into its player's list. */
void srv_room__swap_seat_links(srv_room *room);

/* The seat(s) c's player holds here: MC_SOUTH, MC_NORTH, SRV_SEAT_BOTH or SRV_SEAT_SPECTATOR. */
int srv_room__you(const srv_room *room, const srv_client *c);

/* Tells the observers that room changed as the lobby shows it / that its position changed. */
void srv_room__changed(srv_room *room);
void srv_room__moved(srv_room *room);

/* Records the room as it is now under kind (seat and house: the move of SRV_RECORD_MOVE). */
void srv_room__record(srv_room *room, srv_record_kind kind, int seat, int house);

/* Records the chat line (borrowed) as SRV_RECORD_CHAT. */
void srv_room__record_chat(srv_room *room, const srv_chat_line *line);

/* Sets the status, counting rooms by status (and its address's public rooms). */
void srv_room__set_status(srv_room *room, srv_status status);

/* Counts room (new, just made) as created from peer (borrowed; NULL: none): the room holds a
 * reference until it is freed. */
void srv_room__created_from(srv_room *room, struct srv_peer *peer);

/* Starts timer t for ms (0 when negative) / stops it. */
void srv_room__arm(srv_room *room, srv_timer *t, int64_t ms);
void srv_room__disarm(srv_room *room, srv_timer *t);

/* Re-evaluates the abandonment countdown and the idle timer after any change of presence, turn
 * or status. */
void srv_room__presence(srv_room *room);

/* The checks every room command starts with: the room of code exists (else SRV_ENOTFOUND) and c
 * is in it (else SRV_ENOTMEMBER). Sets *room. */
int srv_room__find_member(srv_rooms *rooms, srv_client *c, const char *code, srv_room **room);

/* As srv_room__find_member(), and c holds a seat (else SRV_ENOTPLAYER) in a game in progress
 * (else SRV_ENOTPLAYING or SRV_EOVER). */
int srv_room__find_playing(srv_rooms *rooms, srv_client *c, const char *code, srv_room **room);

/* A new game of the room's rules with the first ply moves of its game played again (*out, the
 * caller's). Returns 0, or an engine error (MC_ENOMEM...). */
int srv_room__replay(const srv_room *room, size_t ply, mc_game **out);

/* The seat a command of c speaks for: c's seat, or in a local room the seat to move. */
int srv_room__acting_seat(const srv_room *room, const srv_client *c);

/* ---- srv_room_game.c: games ------------------------------------------------------------------ */

/* Starts game number game_no + 1, with the next permanent game id, the seats as they are: South
 * moves first. Records it (the room, its seats and the new game). */
void srv_room__start_game(srv_room *room);

/* Starts the clock of the side to move (clocked rooms in play); before the first move no clock
 * runs and the first move's deadline starts instead (SRV_FIRST_MOVE_MS). An untimed game between
 * people gets its move deadline instead (limits.move_deadline_ms), afresh. */
void srv_room__start_turn_clock(srv_room *room);

/* Whether the room's games have a move deadline: untimed, between people, and the limit on. */
bool srv_room__has_move_deadline(const srv_room *room);

/* Clears the standing offers and their answers (draw and takeback). */
void srv_room__offers_clear(srv_room *room);

/* A finished game's result was lost and taken back: its players' ratings are what they were. */
void srv_room__unrate(srv_room *room);

/* Ends the game in progress (rating it when it counts). reason MC_REASON_NONE: the board ended it
 * (the engine already knows the result); else an outside reason with winner. In a rated game an
 * outside reason before both sides moved aborts it instead (srv_room__abort()). */
void srv_room__finish(srv_room *room, mc_reason reason, mc_winner winner);

/* Ends the game in progress as aborted: no result, no rating, and storage keeps it out of the
 * archive. The room is finished (a rematch may follow). */
void srv_room__abort(srv_room *room);

/* The pie rule's swap (or its undoing): the players exchange seats, with their clocks and the
 * addresses they played from. The game itself is the caller's (mc_game_play(MC_SWAP)). Call it
 * while no clock runs. */
void srv_room__swap_seats(srv_room *room);

/* Whether seat has made a move in the room's current game. */
bool srv_room__has_moved(const srv_room *room, int seat);

/* The timers' callbacks (arg is the room). */
void srv_room__on_clock(void *arg);
void srv_room__on_abandon(void *arg);

/* ---- srv_room_chat.c: chat ------------------------------------------------------------------- */

/* Keeps a copy of line (borrowed) as room's newest chat line, forgetting the oldest beyond
 * SRV_CHAT_HISTORY lines or SRV_CHAT_HISTORY_BYTES of text. Returns 0 or SRV_ENOMEM (nothing
 * kept). */
int srv_room__chat_keep(srv_room *room, const srv_chat_line *line);

/* Forgets room's chat lines. */
void srv_room__chat_free(srv_room *room);

/* ---- srv_room_computer.c: the computer's seat ---------------------------------------------- */

/* Refuses c a new game against the computer beyond the caps: 0, SRV_EUNSUPPORTED (off),
 * SRV_ECOMPUTERGAMES (c's player or address has its share) or
 * SRV_ESERVERFULL. */
int srv_room__computer_admit(srv_rooms *rooms, const srv_client *c);

/* Seats the computer at opts.level in the free seat of a waiting room and starts the game. Returns
 * 0 or SRV_ENOMEM / SRV_EINTERNAL (nothing changed). */
int srv_room__seat_computer(srv_room *room);

/* After any change of turn or status (srv_room__presence()): the thinker thinks or stops. gone:
 * the room is being freed. Nothing for rooms without the computer. */
void srv_room__computer_check(srv_room *room, bool gone);

/* The computer's answer to a draw offered by seat: true to accept (it is not ahead by half a seed
 * by its evaluation), false to decline; false too when the other seat is no computer. */
bool srv_room__computer_takes_draw(const srv_room *room, int seat);

/* Marks the computer's seats as asking for a rematch. */
void srv_room__computer_rematch(srv_room *room);

/* ---- srv_room_hint.c: hints ----------------------------------------------------------------- */

/* Whether room's players may ask for hints: the room allows them (srv_room_opts_hints()) and
 * the server gives them (a hinter, an allowance). */
bool srv_room__hints_on(const srv_room *room);

/* Forgets the hint requests of c in room (NULL: every one), cancelling their searches: c left, or
 * the room is going. */
void srv_room__hints_forget(srv_room *room, const srv_client *c);

/* ---- srv_room_move.c: moves ------------------------------------------------------------------ */

/* Plays house for seat turn (the seat to move) in room, as a move of c (NULL: the computer)
 * answering id (may be NULL): the clock's flag, the engine, the record, the state to everyone.
 * Returns 0 or an SRV_E* code (nothing changed, unless SRV_EOVER for a fallen flag). */
int srv_room__play(srv_room *room, srv_client *c, const srv_req_id *id, int turn, int house);

/* ---- srv_room_join.c: entering and leaving -------------------------------------------------- */

/* Removes membership m; keeps the seats unless free_waiting_seat and the room is waiting and the
 * player has no other connection there: then the seat is given up, and a waiting room with no
 * seated player left closes. */
void srv_room__leave(srv_member *m, bool free_waiting_seat);

/* ---- srv_room_send.c: every frame a room sends ----------------------------------------------- */

/* Sends ev (borrowed) to c. */
void srv_room__send(srv_rooms *rooms, srv_client *c, const srv_event *ev);

/* Owes c the room's full state, its game's moves included (id: the request it answers, or NULL):
 * for a client that joins, resumes or asks to resync. Made from the room as it is at the end of
 * the turn, after the commit. */
void srv_room__send_full(srv_room *room, srv_client *c, const srv_req_id *id);

/* Owes every member but skip (NULL: none) the state as it is now, without the moves; the
 * requester's copy carries the request id. Kept as a copy, encoded after the turn's commit. */
void srv_room__broadcast(srv_room *room, srv_client *requester, const srv_req_id *id,
                         srv_client *skip);

/* Sends now what room owes for the batches up to upto (the end of a turn; a room that closes sends
 * everything: UINT64_MAX). */
void srv_room__flush(srv_room *room, uint64_t upto);

/* Forgets what room owes to c, which is no longer a member (its replies included). */
void srv_room__forget_client(srv_room *room, const srv_client *c);

/* Takes back the states room owes for plies after lost_ply of game game_id (a lost batch): they
 * are never sent. Writes the requests they answered (at most max, the rest are not answered
 * here) to who[] and ids[] and returns how many. */
size_t srv_room__take_back_owed(srv_room *room, int64_t game_id, long lost_ply, srv_client **who,
                                srv_req_id *ids, size_t max);

/* Frees what room owes without sending it. */
void srv_room__owed_free(srv_room *room);

/* Owes c joined (answering id, or NULL), its role as it is when it is sent. */
void srv_room__send_joined(srv_room *room, srv_client *c, const srv_req_id *id);

/* Owes every member the chat line (borrowed, copied) from c; c's copy answers id. */
void srv_room__send_chat(srv_room *room, srv_client *from, const srv_req_id *id,
                         const srv_chat_line *line);

/* Owes c the room's last chat lines (chat_history), when it has any at the end of the turn: on
 * entering or resuming, after its full state. */
void srv_room__send_chat_history(srv_room *room, srv_client *c);

/* Sends closed (reason: static) to every member. */
void srv_room__send_closed(srv_room *room, const char *reason);

#endif
