/* Rooms: lifecycle, seats, presence, games and clocks. The lobby and quick pairing live in
 * srv_lobby.c; both share srv_room_int.h. */
#include <stdlib.h>
#include <string.h>

#include "mc_error.h"
#include "srv_error.h"
#include "srv_log.h"
#include "srv_metrics.h"
#include "srv_rand.h"
#include "srv_room_int.h"

/* ---- Registry ------------------------------------------------------------------------------ */

static size_t code_hash(const char *code, size_t nbuckets) {
  uint32_t h = 2166136261u;
  for (int i = 0; i < SRV_CODE_LEN; i++)
    h = (h ^ (uint8_t)code[i]) * 16777619u;
  return h & (nbuckets - 1);
}

srv_rooms *srv_rooms_new(srv_time *time, srv_ident *ident, const srv_sink *sink,
                         const srv_room_limits *limits) {
  srv_rooms *rooms = calloc(1, sizeof *rooms);
  if (rooms == NULL)
    return NULL;
  rooms->nbuckets = 256;
  rooms->buckets = calloc(rooms->nbuckets, sizeof *rooms->buckets);
  rooms->trace = malloc(sizeof *rooms->trace);
  if (rooms->buckets == NULL || rooms->trace == NULL) {
    free(rooms->buckets);
    free(rooms->trace);
    free(rooms);
    return NULL;
  }
  rooms->time = time;
  rooms->ident = ident;
  rooms->sink = *sink;
  rooms->limits = *limits;
  rooms->lobby_timer = srv_timer_new(time, srv_lobby_timer_cb, rooms);
  if (rooms->lobby_timer == NULL) {
    free(rooms->buckets);
    free(rooms->trace);
    free(rooms);
    return NULL;
  }
  return rooms;
}

void srv_rooms_set_store(srv_rooms *rooms, const srv_store_hooks *hooks) {
  if (hooks != NULL)
    rooms->store = *hooks;
  else
    memset(&rooms->store, 0, sizeof rooms->store);
}

srv_room *srv_rooms_find(srv_rooms *rooms, const char *code) {
  if (strlen(code) != SRV_CODE_LEN)
    return NULL;
  for (srv_room *r = rooms->buckets[code_hash(code, rooms->nbuckets)]; r != NULL; r = r->hnext) {
    if (memcmp(r->code, code, SRV_CODE_LEN) == 0)
      return r;
  }
  return NULL;
}

srv_room *srv_rooms_find_game(srv_rooms *rooms, int64_t game_id) {
  if (game_id <= 0)
    return NULL;
  for (srv_room *r = rooms->head; r != NULL; r = r->next) {
    if (r->game_id == game_id)
      return r;
  }
  return NULL;
}

static void grow_buckets(srv_rooms *rooms) {
  size_t n = rooms->nbuckets * 2;
  srv_room **b = calloc(n, sizeof *b);
  if (b == NULL)
    return;
  for (srv_room *r = rooms->head; r != NULL; r = r->next) {
    size_t k = code_hash(r->code, n);
    r->hnext = b[k];
    b[k] = r;
  }
  free(rooms->buckets);
  rooms->buckets = b;
  rooms->nbuckets = n;
}

void srv_rooms_count(const srv_rooms *rooms, long counts[3]) {
  for (int s = 0; s < 3; s++)
    counts[s] = rooms->by_status[s];
}

srv_status srv_room_status(const srv_room *room) {
  return room->status;
}
const mc_game *srv_room_game(const srv_room *room) {
  return room->game;
}
const srv_player *srv_room_seat(const srv_room *room, int seat) {
  return room->seat[seat];
}
const char *srv_room_code(const srv_room *room) {
  return room->code;
}

/* ---- Events -------------------------------------------------------------------------------- */

void room_send(srv_rooms *rooms, srv_client *to, const srv_event *ev) {
  srv_send_event(&rooms->sink, to, ev);
}

static void store_event(srv_room *room, srv_store_kind kind, int seat, int house) {
  srv_rooms *rooms = room->rooms;
  if (rooms->store.event == NULL)
    return;
  srv_store_event ev = {
      kind,          room->code, &room->opts, room->game, {room->seat[0], room->seat[1]},
      room->game_no, seat,       house,       {0, 0},     room->status,
      &room->game_id};
  uint64_t now = rooms->time->now(rooms->time);
  for (int s = 0; s < 2; s++)
    ev.clock_ms[s] = room->opts.clocked ? srv_clock_left(&room->clock, s, now) : 0;
  int rc = rooms->store.event(rooms->store.ud, &ev);
  if (rc < 0)
    srv_log_warn("room", "%s: storage refused event %d: %s", room->code, (int)kind,
                 srv_err_code(rc));
}

/* Returns the seat(s) the client's player holds here: a seat, SRV_SEAT_BOTH, or
 * SRV_SEAT_SPECTATOR. */
int room_you(const srv_room *room, const srv_client *c) {
  const srv_player *p = c->player;
  bool s = p != NULL && room->seat[MC_SOUTH] == p, n = p != NULL && room->seat[MC_NORTH] == p;
  if (s && n)
    return SRV_SEAT_BOTH;
  if (s)
    return MC_SOUTH;
  if (n)
    return MC_NORTH;
  return SRV_SEAT_SPECTATOR;
}

/* A seat is connected when one of its player's connections is in the room. */
bool room_seat_connected(const srv_room *room, int seat) {
  if (room->seat[seat] == NULL)
    return false;
  for (srv_member *m = room->members; m != NULL; m = m->rnext) {
    if (m->client->player == room->seat[seat])
      return true;
  }
  return false;
}

int room_spectators(const srv_room *room) {
  int n = 0;
  for (srv_member *m = room->members; m != NULL; m = m->rnext) {
    if (room_you(room, m->client) == SRV_SEAT_SPECTATOR)
      n++;
  }
  return n;
}

static void state_view(const srv_room *room, const srv_client *c, srv_state_view *v) {
  srv_rooms *rooms = room->rooms;
  uint64_t now = rooms->time->now(rooms->time);
  memset(v, 0, sizeof *v);
  v->room = room->code;
  v->opts = &room->opts;
  v->game = room->game;
  v->status = room->status;
  v->game_no = room->game_no;
  v->you = room_you(room, c);
  for (int s = 0; s < 2; s++) {
    v->seats[s].player = room->seat[s];
    v->seats[s].connected = room_seat_connected(room, s);
    v->seats[s].computer = false;
  }
  v->spectators = room_spectators(room);
  v->clocked = room->opts.clocked;
  v->clock_running = room->clock.running;
  for (int s = 0; s < 2; s++)
    v->clock_ms[s] = room->opts.clocked ? srv_clock_left(&room->clock, s, now) : 0;
  v->has_last = room->last_seat >= 0;
  v->last_seat = room->last_seat;
  v->last_house = room->last_house;
  v->trace = room->trace;
  v->trace_len = room->trace_len;
  v->has_result = room->status == SRV_FINISHED && mc_game_over(room->game, &v->result);
  v->draw_offer = room->draw_offer;
  v->rematch[0] = room->rematch[0];
  v->rematch[1] = room->rematch[1];
  v->abandon_seat = room->abandon_seat;
  v->abandon_ms = 0;
  v->game_id = room->status == SRV_FINISHED ? room->game_id : 0;
  if (room->abandon_seat >= 0 && room->abandon_deadline > now)
    v->abandon_ms = (int64_t)(room->abandon_deadline - now);
}

void room_send_state(srv_room *room, srv_client *c, const srv_req_id *id) {
  srv_state_view v;
  state_view(room, c, &v);
  srv_event ev = {.type = SRV_EV_STATE, .id = id, .u.state = &v};
  room_send(room->rooms, c, &ev);
}

/* Sends the state to every member; the requester's copy carries the request id. */
void room_broadcast(srv_room *room, const srv_client *requester, const srv_req_id *id) {
  for (srv_member *m = room->members; m != NULL; m = m->rnext)
    room_send_state(room, m->client, m->client == requester ? id : NULL);
}

static void send_joined(srv_room *room, srv_client *c, const srv_req_id *id) {
  int you = room_you(room, c);
  srv_event ev = {.type = SRV_EV_JOINED, .id = id};
  ev.u.joined.room = room->code;
  ev.u.joined.role = you == SRV_SEAT_SPECTATOR ? SRV_ROLE_SPECTATOR : SRV_ROLE_PLAYER;
  ev.u.joined.seat = you == SRV_SEAT_SPECTATOR ? SRV_SEAT_NONE : you;
  room_send(room->rooms, c, &ev);
}

/* ---- Timers and presence ------------------------------------------------------------------- */

static void set_status(srv_room *room, srv_status status) {
  room->rooms->by_status[room->status]--;
  room->status = status;
  room->rooms->by_status[status]++;
  room_lobby_changed(room);
}

static void arm(srv_room *room, srv_timer *t, int64_t ms) {
  room->rooms->time->timer_start(t, ms < 0 ? 0 : (uint64_t)ms);
}

static void disarm(srv_room *room, srv_timer *t) {
  room->rooms->time->timer_stop(t);
}

/* Re-evaluates the abandonment countdown and the idle timer after any change of presence, turn or
 * status. */
void room_presence(srv_room *room) {
  srv_rooms *rooms = room->rooms;
  int absent = -1;
  if (room->status == SRV_PLAYING && room->opts.opponent != SRV_OPP_LOCAL) {
    int turn = mc_game_pos(room->game)->turn;
    if (!room_seat_connected(room, turn))
      absent = turn;
  }
  if (absent != room->abandon_seat) {
    room->abandon_seat = absent;
    if (absent >= 0) {
      room->abandon_deadline = rooms->time->now(rooms->time) + (uint64_t)rooms->limits.abandon_ms;
      arm(room, room->abandon_timer, rooms->limits.abandon_ms);
    } else {
      disarm(room, room->abandon_timer);
    }
  }
  bool empty = room->members == NULL;
  if (room->status != SRV_FINISHED && empty && !room->idle_armed) {
    room->idle_armed = true;
    arm(room, room->idle_timer, rooms->limits.idle_ms);
  } else if ((!empty || room->status == SRV_FINISHED) && room->idle_armed) {
    room->idle_armed = false;
    disarm(room, room->idle_timer);
  }
}

static void start_turn_clock(srv_room *room) {
  if (!room->opts.clocked || room->status != SRV_PLAYING)
    return;
  srv_rooms *rooms = room->rooms;
  uint64_t now = rooms->time->now(rooms->time);
  srv_clock_start(&room->clock, mc_game_pos(room->game)->turn, now);
  arm(room, room->clock_timer, srv_clock_until_flag(&room->clock, now));
}

/* Ends the game in progress. reason MC_REASON_NONE: the board ended it (the engine already knows
 * the result); else an outside reason with winner. */
void room_finish(srv_room *room, mc_reason reason, mc_winner winner) {
  srv_rooms *rooms = room->rooms;
  if (reason != MC_REASON_NONE) {
    int rc = mc_game_finish(room->game, reason, winner);
    if (rc != 0)
      srv_log_error("room", "%s: mc_game_finish: %s", room->code, mc_strerror(rc));
  }
  mc_result result;
  if (!mc_game_over(room->game, &result))
    result.reason = MC_REASON_NONE;
  srv_clock_stop(&room->clock, rooms->time->now(rooms->time));
  disarm(room, room->clock_timer);
  room->draw_offer = -1;
  room->rematch[0] = room->rematch[1] = false;
  set_status(room, SRV_FINISHED);
  room_presence(room);
  arm(room, room->finished_timer, rooms->limits.finished_ms);
  srv_metrics_game_finished(room->opts.rules.kind, result.reason);
  store_event(room, SRV_STORE_GAME_FINISHED, -1, 0);
  srv_log_debug("room", "%s: game %d over: %s", room->code, room->game_no,
                mc_reason_name(result.reason));
}

static void on_clock(void *arg) {
  srv_room *room = arg;
  srv_rooms *rooms = room->rooms;
  if (room->status != SRV_PLAYING || room->clock.running < 0)
    return;
  uint64_t now = rooms->time->now(rooms->time);
  if (!srv_clock_flagged(&room->clock, now)) {
    arm(room, room->clock_timer, srv_clock_until_flag(&room->clock, now));
    return;
  }
  int loser = room->clock.running;
  room_finish(room, MC_REASON_TIMEOUT, loser == MC_SOUTH ? MC_WIN_NORTH : MC_WIN_SOUTH);
  room_broadcast(room, NULL, NULL);
}

static void on_abandon(void *arg) {
  srv_room *room = arg;
  if (room->status != SRV_PLAYING || room->abandon_seat < 0)
    return;
  int loser = room->abandon_seat;
  room_finish(room, MC_REASON_ABANDONED, loser == MC_SOUTH ? MC_WIN_NORTH : MC_WIN_SOUTH);
  room_broadcast(room, NULL, NULL);
}

static void on_idle(void *arg) {
  srv_room *room = arg;
  room->idle_armed = false;
  room_close(room, "idle");
}

static void on_finished(void *arg) {
  srv_room *room = arg;
  room_close(room, "expired");
}

/* ---- Lifecycle ----------------------------------------------------------------------------- */

static int new_code(srv_rooms *rooms, char code[SRV_CODE_LEN + 1]) {
  static const char alphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  for (int attempt = 0; attempt < 32; attempt++) {
    uint8_t bytes[SRV_CODE_LEN];
    int rc = srv_rand_bytes(bytes, sizeof bytes);
    if (rc != 0)
      return rc;
    for (int i = 0; i < SRV_CODE_LEN; i++)
      code[i] = alphabet[bytes[i] & 31]; /* 32 symbols: no modulo bias. */
    code[SRV_CODE_LEN] = '\0';
    if (srv_rooms_find(rooms, code) == NULL)
      return 0;
  }
  return SRV_ESERVERFULL;
}

static void take_seat(srv_room *room, int seat, srv_player *p) {
  room->seat[seat] = p;
  srv_ident_ref(p);
}

static void free_seat(srv_room *room, int seat) {
  srv_player *p = room->seat[seat];
  if (p == NULL)
    return;
  room->seat[seat] = NULL;
  srv_ident_unref(room->rooms->ident, p);
}

/* Starts game number game_no + 1 with the seats as they are: South moves first. */
static void start_game(srv_room *room) {
  room->game_no++;
  room->game_id = 0;
  room->last_seat = -1;
  room->trace_len = 0;
  room->draw_offer = -1;
  room->rematch[0] = room->rematch[1] = false;
  srv_clock_init(&room->clock, room->opts.initial_ms, room->opts.increment_ms);
  set_status(room, SRV_PLAYING);
  disarm(room, room->finished_timer);
  start_turn_clock(room);
  room_presence(room);
  srv_metrics_game_started(room->opts.rules.kind);
  store_event(room, SRV_STORE_GAME_STARTED, -1, 0);
}

/* room_new(), or with code (not NULL) a room recovered under its old code, without any storage
 * event. */
static int room_make(srv_rooms *rooms, const srv_room_opts *opts, const char *code,
                     srv_room **out) {
  if (rooms->count >= (size_t)rooms->limits.max_rooms)
    return SRV_ESERVERFULL;
  if (code != NULL && (strlen(code) != SRV_CODE_LEN || srv_rooms_find(rooms, code) != NULL))
    return SRV_EBADREQ;
  srv_room *room = calloc(1, sizeof *room);
  if (room == NULL)
    return SRV_ENOMEM;
  int rc = 0;
  if (code != NULL)
    memcpy(room->code, code, SRV_CODE_LEN + 1);
  else
    rc = new_code(rooms, room->code);
  if (rc != 0) {
    free(room);
    return rc;
  }
  room->rooms = rooms;
  room->opts = *opts;
  room->game = mc_game_new(&opts->rules);
  room->clock_timer = srv_timer_new(rooms->time, on_clock, room);
  room->abandon_timer = srv_timer_new(rooms->time, on_abandon, room);
  room->idle_timer = srv_timer_new(rooms->time, on_idle, room);
  room->finished_timer = srv_timer_new(rooms->time, on_finished, room);
  if (room->game == NULL || !room->clock_timer || !room->abandon_timer || !room->idle_timer ||
      !room->finished_timer) {
    mc_game_free(room->game);
    rooms->time->timer_free(room->clock_timer);
    rooms->time->timer_free(room->abandon_timer);
    rooms->time->timer_free(room->idle_timer);
    rooms->time->timer_free(room->finished_timer);
    free(room);
    return SRV_ENOMEM;
  }
  room->status = SRV_WAITING;
  /* Until the game starts both clocks show the full time and neither runs. */
  srv_clock_init(&room->clock, opts->initial_ms, opts->increment_ms);
  room->last_seat = -1;
  room->draw_offer = -1;
  room->abandon_seat = -1;
  room->serial = ++rooms->serial;
  rooms->by_status[SRV_WAITING]++;
  /* Link: hash chain and creation-order list (the lobby's order). */
  if (rooms->count >= rooms->nbuckets)
    grow_buckets(rooms);
  size_t k = code_hash(room->code, rooms->nbuckets);
  room->hnext = rooms->buckets[k];
  rooms->buckets[k] = room;
  room->prev = rooms->tail;
  if (rooms->tail)
    rooms->tail->next = room;
  else
    rooms->head = room;
  rooms->tail = room;
  rooms->count++;
  room_lobby_changed(room);
  if (code == NULL)
    store_event(room, SRV_STORE_ROOM_OPENED, -1, 0);
  *out = room;
  return 0;
}

int room_new(srv_rooms *rooms, const srv_room_opts *opts, srv_room **out) {
  return room_make(rooms, opts, NULL, out);
}

static void member_unlink(srv_member *m) {
  srv_room *room = m->room;
  srv_client *c = m->client;
  srv_member **pp = &room->members;
  while (*pp != m)
    pp = &(*pp)->rnext;
  *pp = m->rnext;
  pp = &c->rooms;
  while (*pp != m)
    pp = &(*pp)->cnext;
  *pp = m->cnext;
  free(m);
}

/* Frees the room's memory; the room is already unlinked and empty. */
static void room_destroy(srv_room *room) {
  srv_time *t = room->rooms->time;
  t->timer_free(room->clock_timer);
  t->timer_free(room->abandon_timer);
  t->timer_free(room->idle_timer);
  t->timer_free(room->finished_timer);
  mc_game_free(room->game);
  free(room->trace);
  free(room);
}

static void room_unlink(srv_room *room) {
  srv_rooms *rooms = room->rooms;
  srv_room **pp = &rooms->buckets[code_hash(room->code, rooms->nbuckets)];
  while (*pp != room)
    pp = &(*pp)->hnext;
  *pp = room->hnext;
  if (room->prev)
    room->prev->next = room->next;
  else
    rooms->head = room->next;
  if (room->next)
    room->next->prev = room->prev;
  else
    rooms->tail = room->prev;
  rooms->count--;
  rooms->by_status[room->status]--;
}

void room_close(srv_room *room, const char *reason) {
  srv_log_debug("room", "%s: closed (%s)", room->code, reason);
  room_lobby_changed(room);
  store_event(room, SRV_STORE_ROOM_CLOSED, -1, 0);
  while (room->members != NULL) {
    srv_member *m = room->members;
    srv_event ev = {.type = SRV_EV_CLOSED};
    ev.u.closed.room = room->code;
    ev.u.closed.reason = reason;
    room_send(room->rooms, m->client, &ev);
    member_unlink(m);
  }
  room_unlink(room);
  free_seat(room, 0);
  free_seat(room, 1);
  room_destroy(room);
}

void srv_rooms_free(srv_rooms *rooms) {
  if (rooms == NULL)
    return;
  while (rooms->head != NULL) {
    srv_room *room = rooms->head;
    while (room->members != NULL)
      member_unlink(room->members);
    room_unlink(room);
    free_seat(room, 0);
    free_seat(room, 1);
    room_destroy(room);
  }
  rooms->time->timer_free(rooms->lobby_timer);
  free(rooms->buckets);
  free(rooms->trace);
  free(rooms);
}

srv_member *room_member(srv_room *room, const srv_client *c) {
  for (srv_member *m = c->rooms; m != NULL; m = m->cnext) {
    if (m->room == room)
      return m;
  }
  return NULL;
}

int room_add_member(srv_room *room, srv_client *c) {
  if (room_member(room, c) != NULL)
    return 0;
  srv_member *m = calloc(1, sizeof *m);
  if (m == NULL)
    return SRV_ENOMEM;
  m->room = room;
  m->client = c;
  m->rnext = room->members;
  room->members = m;
  m->cnext = c->rooms;
  c->rooms = m;
  return 0;
}

/* Counts the unfinished rooms where p holds a seat. */
int room_active_count(const srv_rooms *rooms, const srv_player *p) {
  int n = 0;
  for (const srv_room *r = rooms->head; r != NULL; r = r->next) {
    if (r->status != SRV_FINISHED && (r->seat[0] == p || r->seat[1] == p))
      n++;
  }
  return n;
}

/* ---- Clients ------------------------------------------------------------------------------- */

void srv_client_init(srv_client *c, void *conn) {
  memset(c, 0, sizeof *c);
  c->conn = conn;
}

void srv_rooms_identify(srv_rooms *rooms, srv_client *c, srv_player *player, bool resumed) {
  c->player = player;
  srv_ident_ref(player);
  if (!resumed)
    return;
  for (srv_room *r = rooms->head; r != NULL; r = r->next) {
    if (r->seat[0] != player && r->seat[1] != player)
      continue;
    if (room_add_member(r, c) != 0)
      continue;
    send_joined(r, c, NULL);
    room_presence(r);
    room_lobby_changed(r);
    room_broadcast(r, NULL, NULL);
  }
}

/* Removes membership m; keeps seats unless the room is waiting and the player has no other
 * connection there, in which case a waiting room with no seated player left closes. */
static void leave_member(srv_member *m, bool free_waiting_seat) {
  srv_room *room = m->room;
  srv_player *p = m->client->player;
  member_unlink(m);
  room_lobby_changed(room); /* Presence and spectators show in the lobby. */
  if (free_waiting_seat && room->status == SRV_WAITING && p != NULL) {
    bool still_here = false;
    for (srv_member *o = room->members; o != NULL; o = o->rnext)
      still_here |= o->client->player == p;
    if (!still_here) {
      for (int s = 0; s < 2; s++) {
        if (room->seat[s] == p) {
          free_seat(room, s);
          room_lobby_changed(room);
          store_event(room, SRV_STORE_SEATED, -1, 0);
        }
      }
    }
    if (room->seat[0] == NULL && room->seat[1] == NULL) {
      room_close(room, "left");
      return;
    }
  }
  room_presence(room);
  room_broadcast(room, NULL, NULL);
}

void srv_rooms_client_gone(srv_rooms *rooms, srv_client *c) {
  while (c->rooms != NULL)
    leave_member(c->rooms, false);
  room_watch(rooms, c, false);
  if (c->player != NULL) {
    srv_ident_unref(rooms->ident, c->player);
    c->player = NULL;
  }
}

/* ---- Commands ------------------------------------------------------------------------------ */

/* Finds the room of a command and the caller's membership. */
static int find_member(srv_rooms *rooms, srv_client *c, const char *code, srv_room **room) {
  *room = srv_rooms_find(rooms, code);
  if (*room == NULL)
    return SRV_ENOTFOUND;
  if (room_member(*room, c) == NULL)
    return SRV_ENOTMEMBER;
  return 0;
}

/* As find_member, and the caller must hold a seat in a game in progress. */
static int find_playing(srv_rooms *rooms, srv_client *c, const char *code, srv_room **room) {
  int rc = find_member(rooms, c, code, room);
  if (rc != 0)
    return rc;
  if (room_you(*room, c) == SRV_SEAT_SPECTATOR)
    return SRV_ENOTPLAYER;
  if ((*room)->status == SRV_WAITING)
    return SRV_ENOTPLAYING;
  if ((*room)->status == SRV_FINISHED)
    return SRV_EOVER;
  return 0;
}

int room_enter(srv_room *room, srv_client *c, const srv_req_id *id) {
  int rc = room_add_member(room, c);
  if (rc != 0)
    return rc;
  send_joined(room, c, id);
  room_presence(room);
  room_lobby_changed(room);
  room_broadcast(room, NULL, NULL);
  return 0;
}

/* Seats player p in the free seat of a waiting room and starts the game when both are taken. */
int room_seat(srv_room *room, srv_player *p, srv_seat_choice choice) {
  int seat;
  if (room->seat[0] == NULL && room->seat[1] == NULL) {
    if (choice == SRV_CHOOSE_RANDOM) {
      uint8_t b = 0;
      int rc = srv_rand_bytes(&b, 1);
      if (rc != 0)
        return rc;
      seat = b & 1;
    } else {
      seat = (int)choice;
    }
  } else {
    seat = room->seat[0] == NULL ? 0 : 1;
  }
  take_seat(room, seat, p);
  if (room->opts.opponent == SRV_OPP_LOCAL)
    take_seat(room, 1 - seat, p);
  room_lobby_changed(room);
  store_event(room, SRV_STORE_SEATED, -1, 0);
  if (room->seat[0] != NULL && room->seat[1] != NULL)
    start_game(room);
  return 0;
}

int srv_room_create(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  if (cmd->opts.opponent == SRV_OPP_COMPUTER)
    return SRV_EUNSUPPORTED;
  if (room_active_count(rooms, c->player) >= rooms->limits.rooms_per_player)
    return SRV_EROOMS;
  srv_room *room;
  int rc = room_new(rooms, &cmd->opts, &room);
  if (rc != 0)
    return rc;
  if ((rc = room_seat(room, c->player, cmd->opts.seat)) != 0 ||
      (rc = room_enter(room, c, &cmd->id)) != 0) {
    room_close(room, "error");
    return rc;
  }
  srv_log_debug("room", "%s: created by %s", room->code, c->player->id);
  return 0;
}

int srv_room_join(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room = srv_rooms_find(rooms, cmd->room);
  if (room == NULL)
    return SRV_ENOTFOUND;
  if (cmd->role == SRV_ROLE_PLAYER && room_you(room, c) == SRV_SEAT_SPECTATOR) {
    if (room->status != SRV_WAITING || (room->seat[0] != NULL && room->seat[1] != NULL))
      return SRV_EFULL;
    if (room_active_count(rooms, c->player) >= rooms->limits.rooms_per_player)
      return SRV_EROOMS;
    int rc = room_add_member(room, c);
    if (rc != 0)
      return rc;
    if ((rc = room_seat(room, c->player, SRV_CHOOSE_RANDOM)) != 0) {
      member_unlink(room_member(room, c));
      return rc;
    }
  }
  return room_enter(room, c, &cmd->id);
}

int srv_room_leave(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = find_member(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  char code[SRV_CODE_LEN + 1];
  memcpy(code, room->code, sizeof code);
  leave_member(room_member(room, c), true); /* May close the room. */
  srv_event ev = {.type = SRV_EV_LEFT, .id = &cmd->id};
  ev.u.left.room = code;
  room_send(rooms, c, &ev);
  return 0;
}

int srv_room_move(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = find_playing(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  if (cmd->has_ply && (size_t)cmd->ply != mc_game_ply(room->game))
    return SRV_ESTALE;
  int turn = mc_game_pos(room->game)->turn;
  if (room->seat[turn] != c->player)
    return SRV_ETURN;
  uint64_t now = rooms->time->now(rooms->time);
  if (room->opts.clocked && srv_clock_flagged(&room->clock, now)) {
    /* The flag fell before the timer fired: the game is lost on time, not played on. */
    room_finish(room, MC_REASON_TIMEOUT, turn == MC_SOUTH ? MC_WIN_NORTH : MC_WIN_SOUTH);
    room_broadcast(room, NULL, NULL);
    return SRV_EOVER;
  }
  if (cmd->house > room->opts.rules.houses)
    return SRV_EILLEGAL;

  mc_game *played = room->game;
  if (rooms->store.event != NULL && (played = mc_game_copy(room->game)) == NULL)
    return SRV_ENOMEM;
  rc = mc_game_play(played, cmd->house, rooms->trace);
  if (rc != 0) {
    if (played != room->game)
      mc_game_free(played);
    return rc == MC_EINVAL ? SRV_EILLEGAL : srv_err_from_engine(rc);
  }
  if (played != room->game) {
    srv_store_event sev = {
        SRV_STORE_MOVE, room->code, &room->opts, played, {room->seat[0], room->seat[1]},
        room->game_no,  turn,       cmd->house,  {0, 0}, room->status,
        &room->game_id};
    for (int s = 0; s < 2; s++)
      sev.clock_ms[s] = room->opts.clocked ? srv_clock_left(&room->clock, s, now) : 0;
    if (room->opts.clocked)
      sev.clock_ms[turn] += room->opts.increment_ms; /* As srv_clock_moved() will. */
    rc = rooms->store.event(rooms->store.ud, &sev);
    if (rc < 0) {
      mc_game_free(played);
      return rc;
    }
    mc_game_free(room->game);
    room->game = played;
  }
  room->undo_clock = room->clock;
  room->move_client = c;
  room->move_id = cmd->id;

  /* Keep the trace of the last move for late joiners and reconnections. */
  size_t bytes = rooms->trace->len * sizeof(mc_step);
  mc_step *copy = bytes ? malloc(bytes) : NULL;
  if (copy != NULL || bytes == 0) {
    if (bytes)
      memcpy(copy, rooms->trace->steps, bytes);
    free(room->trace);
    room->trace = copy;
    room->trace_len = rooms->trace->len;
  } else {
    room->trace_len = 0; /* Out of memory: the state goes out without the animation. */
  }
  room->last_seat = turn;
  room->last_house = cmd->house;
  if (room->draw_offer >= 0 && room->draw_offer != turn)
    room->draw_offer = -1; /* Moving instead of answering declines the offer. */
  srv_metrics_move();

  if (mc_game_over(room->game, NULL)) {
    room_finish(room, MC_REASON_NONE, MC_DRAW);
  } else if (room->opts.clocked) {
    srv_clock_moved(&room->clock, mc_game_pos(room->game)->turn, now);
    arm(room, room->clock_timer, srv_clock_until_flag(&room->clock, now));
  }
  room_presence(room);
  room_broadcast(room, c, &cmd->id);
  return 0;
}

/* The seat a command speaks for: the caller's seat, or in a local room the seat to move. */
static int acting_seat(const srv_room *room, const srv_client *c) {
  int you = room_you(room, c);
  return you == SRV_SEAT_BOTH ? mc_game_pos(room->game)->turn : you;
}

int srv_room_resign(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = find_playing(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  int seat = acting_seat(room, c);
  room_finish(room, MC_REASON_RESIGNATION, seat == MC_SOUTH ? MC_WIN_NORTH : MC_WIN_SOUTH);
  room_broadcast(room, c, &cmd->id);
  return 0;
}

int srv_room_draw(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = find_playing(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  int you = room_you(room, c);
  int seat = acting_seat(room, c);
  /* An offer stands from the other side: for a local room, any offer. */
  bool offered = room->draw_offer >= 0 && (you == SRV_SEAT_BOTH || room->draw_offer != you);
  switch (cmd->action) {
  case SRV_DRAW_OFFER:
    if (offered) {
      room_finish(room, MC_REASON_AGREEMENT, MC_DRAW);
    } else {
      room->draw_offer = seat;
    }
    break;
  case SRV_DRAW_ACCEPT:
    if (!offered)
      return SRV_ENOOFFER;
    room_finish(room, MC_REASON_AGREEMENT, MC_DRAW);
    break;
  case SRV_DRAW_DECLINE:
    if (!offered)
      return SRV_ENOOFFER;
    room->draw_offer = -1;
    break;
  }
  room_broadcast(room, c, &cmd->id);
  return 0;
}

int srv_room_rematch(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = find_member(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  int you = room_you(room, c);
  if (you == SRV_SEAT_SPECTATOR)
    return SRV_ENOTPLAYER;
  if (room->status != SRV_FINISHED)
    return room->status == SRV_WAITING ? SRV_ENOTPLAYING : SRV_ENOTOVER;
  if (you == SRV_SEAT_BOTH)
    room->rematch[0] = room->rematch[1] = true;
  else
    room->rematch[you] = true;
  if (room->rematch[0] && room->rematch[1]) {
    mc_game *game = mc_game_new(&room->opts.rules);
    if (game == NULL) {
      room->rematch[you == SRV_SEAT_BOTH ? 0 : you] = false;
      return SRV_ENOMEM;
    }
    mc_game_free(room->game);
    room->game = game;
    srv_player *south = room->seat[MC_SOUTH];
    room->seat[MC_SOUTH] = room->seat[MC_NORTH];
    room->seat[MC_NORTH] = south;
    store_event(room, SRV_STORE_SEATED, -1, 0);
    start_game(room);
  }
  room_broadcast(room, c, &cmd->id);
  return 0;
}

int srv_room_chat(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = find_member(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  srv_event ev = {.type = SRV_EV_CHAT};
  ev.u.chat.room = room->code;
  ev.u.chat.from = c->player->name;
  ev.u.chat.text = cmd->text;
  ev.u.chat.at = rooms->time->wall(rooms->time);
  for (srv_member *m = room->members; m != NULL; m = m->rnext) {
    ev.id = m->client == c ? &cmd->id : NULL;
    room_send(rooms, m->client, &ev);
  }
  return 0;
}

/* ---- Durable storage: recovery and lost writes --------------------------------------------- */

int srv_rooms_restore(srv_rooms *rooms, const srv_room_restore *r) {
  mc_game *game = r->game;
  if (r->status > SRV_FINISHED || (r->status != SRV_WAITING && game == NULL) ||
      (r->status == SRV_PLAYING && mc_game_over(game, NULL)) ||
      (r->status == SRV_FINISHED && !mc_game_over(game, NULL))) {
    mc_game_free(game);
    return SRV_EBADREQ;
  }
  srv_room *room;
  int rc = room_make(rooms, r->opts, r->code, &room);
  if (rc != 0) {
    mc_game_free(game);
    return rc;
  }
  if (game != NULL) {
    mc_game_free(room->game);
    room->game = game;
  }
  room->game_no = r->game_no;
  room->game_id = r->game_id;
  for (int s = 0; s < 2; s++) {
    if (r->seats[s] != NULL)
      take_seat(room, s, r->seats[s]);
  }
  if (r->has_last) {
    room->last_seat = r->last_seat;
    room->last_house = r->last_house;
  }
  srv_clock_init(&room->clock, room->opts.initial_ms, room->opts.increment_ms);
  if (room->opts.clocked) {
    room->clock.left_ms[0] = r->clock_ms[0];
    room->clock.left_ms[1] = r->clock_ms[1];
  }
  room->undo_clock = room->clock;
  if (r->status != SRV_WAITING)
    set_status(room, r->status);
  if (r->status == SRV_PLAYING)
    start_turn_clock(room);
  else if (r->status == SRV_FINISHED)
    arm(room, room->finished_timer, rooms->limits.finished_ms);
  room_presence(room);
  return 0;
}

/* Rebuilds the game of room without its moves from ply on: a new game of the room's rules with
 * the first ply moves played again. Returns 0, or an engine error. */
static int room_take_back(srv_room *room, int ply) {
  size_t n = 0;
  const uint8_t *moves = mc_game_moves(room->game, &n);
  if (ply < 0 || (size_t)ply >= n)
    return 0;
  mc_game *g = mc_game_new(&room->opts.rules);
  if (g == NULL)
    return MC_ENOMEM;
  for (int i = 0; i < ply; i++) {
    int rc = mc_game_play(g, moves[i], NULL);
    if (rc != 0) {
      mc_game_free(g);
      return rc;
    }
  }
  room->last_seat = ply > 0 ? mc_game_mover(room->game, (size_t)ply - 1) : -1;
  room->last_house = ply > 0 ? moves[ply - 1] : 0;
  mc_game_free(room->game);
  room->game = g;
  return 0;
}

int srv_rooms_store_lost(srv_rooms *rooms, const char *code, int64_t game_id, int lost_ply,
                         bool game_lost, int err) {
  srv_room *room = srv_rooms_find(rooms, code);
  if (room == NULL)
    return SRV_ENOTFOUND;
  bool undo = lost_ply >= 0 && game_id != 0 && game_id == room->game_id &&
              (size_t)lost_ply < mc_game_ply(room->game);
  int mover = -1;
  if (undo) {
    mover = mc_game_mover(room->game, (size_t)lost_ply);
    int rc = room_take_back(room, lost_ply);
    if (rc != 0) {
      srv_log_error("room", "%s: cannot take back lost moves: %s", room->code, mc_strerror(rc));
      undo = false;
    }
  }
  if (undo) {
    srv_log_warn("room", "%s: storage lost the moves from ply %d on: taken back", room->code,
                 lost_ply);
    room->trace_len = 0;
    room->draw_offer = -1;
    room->rematch[0] = room->rematch[1] = false;
    disarm(room, room->finished_timer);
    disarm(room, room->clock_timer);
    if (room->status != SRV_PLAYING)
      set_status(room, SRV_PLAYING);
    /* The clocks as they were before the last lost move (the moves of one loop turn are
     * microseconds apart): the mover's clock runs on from when its turn began. */
    room->clock = room->undo_clock;
    if (room->clock.running == mc_game_pos(room->game)->turn) {
      uint64_t now = rooms->time->now(rooms->time);
      arm(room, room->clock_timer, srv_clock_until_flag(&room->clock, now));
    } else {
      room->clock.running = -1;
      start_turn_clock(room);
    }
  }
  if (game_lost && game_id == room->game_id)
    room->game_id = 0;
  /* Record the room as it is now; a game whose start was lost is recorded again by the first
   * event that finds its id 0. */
  store_event(room, SRV_STORE_SEATED, -1, 0);
  if (room->game_id == 0 && room->status != SRV_WAITING)
    store_event(room, SRV_STORE_GAME_STARTED, -1, 0);
  else if (room->status == SRV_FINISHED)
    store_event(room, SRV_STORE_GAME_FINISHED, -1, 0); /* Its result may have been lost. */
  if (mover >= 0 && err != 0) {
    for (srv_member *m = room->members; m != NULL; m = m->rnext) {
      if (m->client->player != room->seat[mover])
        continue;
      srv_event ev = {.type = SRV_EV_ERROR};
      ev.id = m->client == room->move_client ? &room->move_id : NULL;
      ev.u.error.err = err;
      ev.u.error.request = "move";
      srv_metrics_error(err);
      room_send(rooms, m->client, &ev);
    }
  }
  room_presence(room);
  room_lobby_changed(room);
  room_broadcast(room, NULL, NULL);
  return 0;
}
