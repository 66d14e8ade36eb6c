/* Internals shared by srv_room.c and srv_lobby.c. Not for other modules. */
#ifndef SRV_ROOM_INT_H
#define SRV_ROOM_INT_H

#include "srv_clock.h"
#include "srv_room.h"

/* Room logic runs on srv_time.h (libuv in the server, a fake clock in the tests), never on libuv.
 */
#ifdef UV_VERSION_MAJOR
#error "room logic must not include <uv.h>"
#endif

struct srv_member {
  srv_room *room;
  srv_client *client;
  srv_member *rnext; /* Next member of the room. */
  srv_member *cnext; /* Next room of the client. */
};

struct srv_room {
  char code[SRV_CODE_LEN + 1];
  srv_rooms *rooms;
  srv_room_opts opts;
  srv_status status;
  mc_game *game;
  int game_no;
  srv_player *seat[2];
  srv_member *members;
  srv_clock clock;
  srv_timer *clock_timer, *abandon_timer, *idle_timer, *finished_timer;
  bool idle_armed;
  int abandon_seat; /* Seat whose abandonment countdown runs, or -1. */
  uint64_t abandon_deadline;
  int draw_offer; /* Seat offering a draw, or -1. */
  bool rematch[2];
  int last_seat, last_house;
  mc_step *trace;
  size_t trace_len;
  int64_t game_id;         /* Permanent id of the current game given by storage, 0: none. */
  srv_clock undo_clock;    /* The clock before the last move, for srv_rooms_store_lost(). */
  srv_client *move_client; /* Who made the last move and the request id it came with. */
  srv_req_id move_id;
  uint64_t serial;       /* Creation order: quick pairing takes the oldest. */
  srv_room *hnext;       /* Hash chain. */
  srv_room *prev, *next; /* Creation order. */
};

struct srv_rooms {
  srv_time *time;
  srv_ident *ident;
  srv_sink sink;
  srv_room_limits limits;
  srv_store_hooks store;
  srv_room **buckets;
  size_t nbuckets, count;
  srv_room *head, *tail;
  long by_status[3];
  uint64_t serial;
  srv_client *watchers;
  bool lobby_dirty;
  bool lobby_sent;        /* The lobby went to its watchers at least once. */
  uint64_t lobby_sent_ms; /* When it last did: it goes at most every SRV_LOBBY_EVERY_MS. */
  srv_timer *lobby_timer; /* Sends a change that came too soon after the last list. */
  mc_trace *trace;        /* Scratch space for one move's steps. */
};

void room_send(srv_rooms *rooms, srv_client *to, const srv_event *ev);
void room_send_state(srv_room *room, srv_client *c, const srv_req_id *id);
void room_broadcast(srv_room *room, const srv_client *requester, const srv_req_id *id);
int room_you(const srv_room *room, const srv_client *c);
bool room_seat_connected(const srv_room *room, int seat);
int room_spectators(const srv_room *room);
void room_presence(srv_room *room);
void room_finish(srv_room *room, mc_reason reason, mc_winner winner);
int room_new(srv_rooms *rooms, const srv_room_opts *opts, srv_room **out);
void room_close(srv_room *room, const char *reason);
srv_member *room_member(srv_room *room, const srv_client *c);
int room_add_member(srv_room *room, srv_client *c);
int room_enter(srv_room *room, srv_client *c, const srv_req_id *id);
int room_seat(srv_room *room, srv_player *p, srv_seat_choice choice);
int room_active_count(const srv_rooms *rooms, const srv_player *p);

/* Lobby (srv_lobby.c). */
int room_listed(const srv_room *room);
void room_lobby_changed(srv_room *room);
/* Sends a lobby change held back by srv_rooms_flush() (a srv_timer_cb; arg is the srv_rooms). */
void srv_lobby_timer_cb(void *arg);
void room_watch(srv_rooms *rooms, srv_client *c, bool on);

#endif
