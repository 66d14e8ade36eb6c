/* One room: its lifecycle, members, seats, presence and timers, and the records storage gets (see
 * srv_room.h). */
#include <stdlib.h>
#include <string.h>

#include "mc_error.h"
#include "srv_error.h"
#include "srv_log.h"
#include "srv_peer.h"
#include "srv_proto.h"
#include "srv_room_int.h"

/* ---- Accessors ----------------------------------------------------------------------------- */

const char *srv_room_code(const srv_room *room) {
  return room->code;
}
const srv_room_opts *srv_room_opts_of(const srv_room *room) {
  return &room->opts;
}
srv_status srv_room_status(const srv_room *room) {
  return room->status;
}
int64_t srv_room_game_id(const srv_room *room) {
  return room->game_id;
}
bool srv_room_aborted(const srv_room *room) {
  return room->status == SRV_FINISHED && room->aborted;
}
int srv_room_game_no(const srv_room *room) {
  return room->game_no;
}
const mc_game *srv_room_game(const srv_room *room) {
  return room->game;
}
const srv_player *srv_room_seat(const srv_room *room, int seat) {
  return room->seat[seat];
}

int srv_room__you(const srv_room *room, const srv_client *c) {
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

bool srv_room_seat_connected(const srv_room *room, int seat) {
  if (room->seat[seat] == NULL)
    return false;
  if (room->seat[seat]->computer)
    return true; /* The computer is always there. */
  srv_list_foreach (it, &room->members) {
    if (srv_list_entry(it, srv_member, in_room)->client->player == room->seat[seat])
      return true;
  }
  return false;
}

int srv_room_spectators(const srv_room *room) {
  int n = 0;
  srv_list_foreach (it, &room->members) {
    if (srv_room__you(room, srv_list_entry(it, srv_member, in_room)->client) == SRV_SEAT_SPECTATOR)
      n++;
  }
  return n;
}

/* ---- What others are told ------------------------------------------------------------------ */

void srv_room__changed(srv_room *room) {
  for (int i = 0; i < room->rooms->nobservers; i++) {
    const srv_room_observer *o = &room->rooms->observers[i];
    if (o->changed != NULL)
      o->changed(o->ud, room);
  }
}

void srv_room__moved(srv_room *room) {
  for (int i = 0; i < room->rooms->nobservers; i++) {
    const srv_room_observer *o = &room->rooms->observers[i];
    if (o->moved != NULL)
      o->moved(o->ud, room);
  }
}

static void record(srv_room *room, srv_record_kind kind, int seat, int house,
                   const srv_chat_line *chat) {
  srv_rooms *rooms = room->rooms;
  if (rooms->recorder.record == NULL)
    return;
  srv_record rec = {kind,
                    room->code,
                    &room->opts,
                    room->game,
                    {room->seat[0], room->seat[1]},
                    room->game_no,
                    seat,
                    house,
                    {0, 0},
                    room->status,
                    room->game_id,
                    kind == SRV_RECORD_GAME_FINISHED && room->rating.known ? &room->rating : NULL,
                    chat,
                    room->status == SRV_FINISHED && room->aborted};
  uint64_t now = rooms->time->now(rooms->time);
  for (int s = 0; s < 2; s++)
    rec.clock_ms[s] = room->opts.clocked ? srv_clock_left(&room->clock, s, now) : 0;
  rooms->recorder.record(rooms->recorder.ud, &rec);
}

void srv_room__record(srv_room *room, srv_record_kind kind, int seat, int house) {
  record(room, kind, seat, house, NULL);
}

void srv_room__record_chat(srv_room *room, const srv_chat_line *line) {
  record(room, SRV_RECORD_CHAT, -1, 0, line);
}

/* ---- Status and timers --------------------------------------------------------------------- */

/* A room its address's public count includes: public, for two people, not finished. */
static bool counts_public(const srv_room *room) {
  return room->opts.visibility == SRV_PUBLIC && room->opts.opponent == SRV_OPP_HUMAN &&
         room->status != SRV_FINISHED;
}

/* Adds (sign 1) or removes (-1) room from its address's counts. */
static void count_for_peer(srv_room *room, int sign) {
  if (room->peer == NULL)
    return;
  room->peer->rooms += sign * (room->status != SRV_FINISHED);
  room->peer->public_rooms += sign * counts_public(room);
}

/* Adds delta to the active_rooms of each player seated in room (once for a local room's). */
static void count_seated(srv_room *room, int delta) {
  srv_player *a = room->seat[0], *b = room->seat[1];
  if (a != NULL)
    a->active_rooms += delta;
  if (b != NULL && b != a)
    b->active_rooms += delta;
}

void srv_room__set_status(srv_room *room, srv_status status) {
  count_for_peer(room, -1);
  room->rooms->by_status[room->status]--;
  if (room->status == SRV_FINISHED && status != SRV_FINISHED)
    count_seated(room, +1);
  else if (room->status != SRV_FINISHED && status == SRV_FINISHED)
    count_seated(room, -1);
  room->status = status;
  room->rooms->by_status[status]++;
  count_for_peer(room, 1);
  srv_room__changed(room);
}

void srv_room__created_from(srv_room *room, srv_peer *peer) {
  if (peer == NULL || room->peer != NULL)
    return;
  srv_peer_ref(peer);
  room->peer = peer;
  count_for_peer(room, 1);
}

void srv_room__arm(srv_room *room, srv_timer *t, int64_t ms) {
  srv_time *time = room->rooms->time;
  if (t == room->clock_timer)
    room->clock_due = time->now(time) + (uint64_t)(ms < 0 ? 0 : ms);
  time->timer_start(t, ms < 0 ? 0 : (uint64_t)ms);
}

void srv_room__disarm(srv_room *room, srv_timer *t) {
  if (t == room->clock_timer)
    room->clock_due = 0;
  room->rooms->time->timer_stop(t);
}

void srv_room__presence(srv_room *room) {
  srv_rooms *rooms = room->rooms;
  int absent = -1;
  if (room->status == SRV_PLAYING && room->opts.opponent != SRV_OPP_LOCAL) {
    int turn = mc_game_pos(room->game)->turn;
    if (!srv_room_seat_connected(room, turn))
      absent = turn;
  }
  if (absent != room->abandon_seat) {
    room->abandon_seat = absent;
    if (absent >= 0) {
      room->abandon_deadline = rooms->time->now(rooms->time) + (uint64_t)rooms->limits.abandon_ms;
      srv_room__arm(room, room->abandon_timer, rooms->limits.abandon_ms);
    } else {
      srv_room__disarm(room, room->abandon_timer);
    }
  }
  bool empty = srv_list_empty(&room->members);
  if (room->status != SRV_FINISHED && empty && !room->idle_armed) {
    /* A waiting room nobody is in goes sooner: nobody joined it, and its creator left. */
    int64_t ms = room->status == SRV_WAITING && rooms->limits.waiting_ms > 0
                     ? rooms->limits.waiting_ms
                     : rooms->limits.idle_ms;
    room->idle_armed = true;
    srv_room__arm(room, room->idle_timer, ms);
  } else if ((!empty || room->status == SRV_FINISHED) && room->idle_armed) {
    room->idle_armed = false;
    srv_room__disarm(room, room->idle_timer);
  }
  srv_room__computer_check(room, false);
}

static void on_idle(void *arg) {
  srv_room *room = arg;
  room->idle_armed = false;
  srv_room__close(room, "idle");
}

static void on_finished(void *arg) {
  srv_room__close(arg, "expired");
}

/* ---- Lifecycle ----------------------------------------------------------------------------- */

int srv_room__make(srv_rooms *rooms, const srv_room_opts *opts, const char *code, srv_room **out) {
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
    rc = srv_room__new_code(rooms, room->code);
  if (rc != 0) {
    free(room);
    return rc;
  }
  room->rooms = rooms;
  room->opts = *opts;
  srv_list_init(&room->members);
  room->game = mc_game_new(&opts->rules);
  room->clock_timer = srv_timer_new(rooms->time, srv_room__on_clock, room);
  room->abandon_timer = srv_timer_new(rooms->time, srv_room__on_abandon, room);
  room->idle_timer = srv_timer_new(rooms->time, on_idle, room);
  room->finished_timer = srv_timer_new(rooms->time, on_finished, room);
  if (room->game == NULL || !room->clock_timer || !room->abandon_timer || !room->idle_timer ||
      !room->finished_timer) {
    srv_room__destroy(room);
    return SRV_ENOMEM;
  }
  room->status = SRV_WAITING;
  room->waiting_since = rooms->time->now(rooms->time);
  /* Until the game starts both clocks show the full time and neither runs. */
  srv_clock_init(&room->clock, opts->initial_ms, opts->increment_ms);
  room->last_seat = -1;
  room->draw_offer = -1;
  srv_room__offers_clear(room);
  room->abandon_seat = -1;
  uint64_t now = rooms->time->now(rooms->time);
  for (int v = 0; v < 3; v++) {
    room->chat_tokens[v] = rooms->limits.chat_burst;
    room->chat_refill[v] = now;
  }
  srv_room__link(rooms, room);
  srv_room__changed(room);
  if (code == NULL)
    srv_room__record(room, SRV_RECORD_ROOM_OPENED, -1, 0);
  *out = room;
  return 0;
}

void srv_room__destroy(srv_room *room) {
  srv_time *t = room->rooms->time;
  count_for_peer(room, -1);
  srv_peer_unref(room->peer);
  srv_room__computer_check(room, true);
  srv_room__hints_forget(room, NULL);
  srv_room__free_seat(room, 0);
  srv_room__free_seat(room, 1);
  t->timer_free(room->clock_timer);
  t->timer_free(room->abandon_timer);
  t->timer_free(room->idle_timer);
  t->timer_free(room->finished_timer);
  srv_room__owed_free(room);
  mc_game_free(room->prev.game);
  mc_game_free(room->game);
  srv_room__steps_unref(room->trace);
  srv_state_cache_free(&room->state_cache);
  srv_room__chat_free(room);
  free(room);
}

void srv_room__close(srv_room *room, const char *reason) {
  srv_log_debug("room", "%s: closed (%s)", room->code, reason);
  srv_room__changed(room);
  srv_room__record(room, SRV_RECORD_ROOM_CLOSED, -1, 0);
  /* The states it owes go before closed: its members are gone at the end of the turn. */
  srv_room__flush(room, UINT64_MAX);
  srv_room__send_closed(room, reason);
  srv_list *it;
  while ((it = srv_list_first(&room->members)) != NULL)
    srv_room__remove_member(srv_list_entry(it, srv_member, in_room));
  srv_room__unlink(room);
  srv_room__destroy(room);
}

/* ---- Members and seats --------------------------------------------------------------------- */

srv_member *srv_room__member(srv_room *room, const srv_client *c) {
  /* The shorter of the two lists: a client that played many games is still in every finished
   * room it has not left (each new game's join walked them all), a room has a few members. */
  if (room->n_members <= c->n_rooms) {
    srv_list_foreach (it, &room->members) {
      srv_member *m = srv_list_entry(it, srv_member, in_room);
      if (m->client == c)
        return m;
    }
    return NULL;
  }
  srv_list_foreach (it, &c->rooms) {
    srv_member *m = srv_list_entry(it, srv_member, in_client);
    if (m->room == room)
      return m;
  }
  return NULL;
}

int srv_room__add_member(srv_room *room, srv_client *c) {
  if (srv_room__member(room, c) != NULL)
    return 0;
  srv_member *m = calloc(1, sizeof *m);
  if (m == NULL)
    return SRV_ENOMEM;
  m->room = room;
  m->client = c;
  m->since = room->rooms->out_seq;
  srv_list_push_front(&room->members, &m->in_room);
  srv_list_push_front(&c->rooms, &m->in_client);
  room->n_members++;
  c->n_rooms++;
  return 0;
}

void srv_room__remove_member(srv_member *m) {
  srv_room__forget_client(m->room, m->client);
  srv_room__hints_forget(m->room, m->client);
  srv_list_remove(&m->in_room);
  srv_list_remove(&m->in_client);
  m->room->n_members--;
  m->client->n_rooms--;
  free(m);
}

void srv_room__take_seat(srv_room *room, int seat, srv_player *p) {
  if (room->status != SRV_FINISHED && room->seat[1 - seat] != p)
    p->active_rooms++;
  room->seat[seat] = p;
  room->seated[seat].room = room;
  srv_list_push_back(&p->seats, &room->seated[seat].node);
  srv_ident_ref(p);
}

void srv_room__swap_seat_links(srv_room *room) {
  srv_list_swap(&room->seated[0].node, &room->seated[1].node);
}

void srv_room__free_seat(srv_room *room, int seat) {
  srv_player *p = room->seat[seat];
  if (p == NULL)
    return;
  if (room->status != SRV_FINISHED && room->seat[1 - seat] != p)
    p->active_rooms--;
  srv_list_remove(&room->seated[seat].node);
  room->seat[seat] = NULL;
  srv_ident_unref(room->rooms->ident, p);
}

/* ---- The commands' common checks ----------------------------------------------------------- */

int srv_room__find_member(srv_rooms *rooms, srv_client *c, const char *code, srv_room **room) {
  *room = srv_rooms_find(rooms, code);
  if (*room == NULL)
    return SRV_ENOTFOUND;
  if (srv_room__member(*room, c) == NULL)
    return SRV_ENOTMEMBER;
  return 0;
}

int srv_room__find_playing(srv_rooms *rooms, srv_client *c, const char *code, srv_room **room) {
  int rc = srv_room__find_member(rooms, c, code, room);
  if (rc != 0)
    return rc;
  if (srv_room__you(*room, c) == SRV_SEAT_SPECTATOR)
    return SRV_ENOTPLAYER;
  if ((*room)->status == SRV_WAITING)
    return SRV_ENOTPLAYING;
  if ((*room)->status == SRV_FINISHED)
    return SRV_EOVER;
  return 0;
}

int srv_room__replay(const srv_room *room, size_t ply, mc_game **out) {
  size_t n = 0;
  const uint8_t *moves = mc_game_moves(room->game, &n);
  *out = NULL;
  if (ply > n)
    return MC_EINVAL;
  mc_game *g = mc_game_new(mc_game_rules(room->game));
  if (g == NULL)
    return MC_ENOMEM;
  for (size_t i = 0; i < ply; i++) {
    int rc = mc_game_play(g, moves[i], NULL);
    if (rc != 0) {
      mc_game_free(g);
      return rc;
    }
  }
  *out = g;
  return 0;
}

int srv_room__acting_seat(const srv_room *room, const srv_client *c) {
  int you = srv_room__you(room, c);
  return you == SRV_SEAT_BOTH ? mc_game_pos(room->game)->turn : you;
}
