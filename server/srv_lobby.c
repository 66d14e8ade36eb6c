/* The lobby (the live list of public rooms) and quick pairing. */
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_room_int.h"

/* A room is listed when it is public, for two people, and not finished; a waiting room only while
 * its waiting player is there (nobody should sit down in front of an empty chair). */
int room_listed(const srv_room *room) {
  if (room->opts.visibility != SRV_PUBLIC || room->opts.opponent != SRV_OPP_HUMAN ||
      room->status == SRV_FINISHED)
    return 0;
  if (room->status == SRV_WAITING)
    return room_seat_connected(room, MC_SOUTH) || room_seat_connected(room, MC_NORTH);
  return 1;
}

void room_lobby_changed(srv_room *room) {
  /* A room that stops being listed (finished, closed) changes the list too: mark always, the
   * flush is cheap when nobody watches. */
  room->rooms->lobby_dirty = true;
}

void room_watch(srv_rooms *rooms, srv_client *c, bool on) {
  if (on == c->lobby_watch)
    return;
  if (on) {
    c->watch_prev = NULL;
    c->watch_next = rooms->watchers;
    if (rooms->watchers)
      rooms->watchers->watch_prev = c;
    rooms->watchers = c;
  } else {
    if (c->watch_prev)
      c->watch_prev->watch_next = c->watch_next;
    else
      rooms->watchers = c->watch_next;
    if (c->watch_next)
      c->watch_next->watch_prev = c->watch_prev;
    c->watch_prev = c->watch_next = NULL;
  }
  c->lobby_watch = on;
}

/* Builds the list (a new array the caller frees) and sends it to one client or to every watcher. */
static int send_lobby(srv_rooms *rooms, srv_client *to, const srv_req_id *id) {
  size_t n = 0;
  for (srv_room *r = rooms->head; r != NULL; r = r->next)
    n += room_listed(r) ? 1 : 0;
  srv_lobby_entry *entries = calloc(n ? n : 1, sizeof *entries);
  if (entries == NULL)
    return SRV_ENOMEM;
  size_t i = 0;
  for (srv_room *r = rooms->head; r != NULL; r = r->next) {
    if (!room_listed(r))
      continue;
    srv_lobby_entry *e = &entries[i++];
    e->room = r->code;
    e->opts = &r->opts;
    for (int s = 0; s < 2; s++)
      e->names[s] = r->seat[s] ? r->seat[s]->name : NULL;
    e->status = r->status;
    e->spectators = room_spectators(r);
  }
  srv_event ev = {.type = SRV_EV_LOBBY, .id = id};
  ev.u.lobby.rooms = entries;
  ev.u.lobby.n = n;
  if (to != NULL) {
    room_send(rooms, to, &ev);
  } else {
    for (srv_client *c = rooms->watchers; c != NULL; c = c->watch_next)
      room_send(rooms, c, &ev);
  }
  free(entries);
  return 0;
}

int srv_room_lobby(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  int rc = send_lobby(rooms, c, &cmd->id);
  if (rc != 0)
    return rc;
  room_watch(rooms, c, cmd->watch);
  return 0;
}

/* Every watcher gets its own copy of the whole list, so a client joining and leaving rooms in a
 * loop would make the server encode watchers x rooms entries on every turn: changes go out at most
 * this often, the last one always. */
#define SRV_LOBBY_EVERY_MS 250

void srv_rooms_flush(srv_rooms *rooms) {
  if (!rooms->lobby_dirty)
    return;
  if (rooms->watchers == NULL) {
    rooms->lobby_dirty = false;
    return;
  }
  uint64_t now = rooms->time->now(rooms->time);
  if (rooms->lobby_sent && now < rooms->lobby_sent_ms + SRV_LOBBY_EVERY_MS) {
    rooms->time->timer_start(rooms->lobby_timer, rooms->lobby_sent_ms + SRV_LOBBY_EVERY_MS - now);
    return;
  }
  if (send_lobby(rooms, NULL, NULL) != 0)
    return; /* Out of memory: try again next time. */
  rooms->lobby_dirty = false;
  rooms->lobby_sent = true;
  rooms->lobby_sent_ms = now;
}

void srv_lobby_timer_cb(void *arg) {
  srv_rooms_flush(arg);
}

static bool same_table(const srv_room_opts *a, const srv_room_opts *b) {
  const mc_rules *x = &a->rules, *y = &b->rules;
  return x->kind == y->kind && x->houses == y->houses && x->seeds == y->seeds &&
         x->empty_capture == y->empty_capture && x->grand_slam == y->grand_slam &&
         x->lap_capture == y->lap_capture && x->match == y->match && a->clocked == b->clocked &&
         (!a->clocked || (a->initial_ms == b->initial_ms && a->increment_ms == b->increment_ms));
}

/* A room quick pairing may use: public, for two people, waiting, same table. */
static bool pairable(const srv_room *r, const srv_room_opts *opts) {
  return r->opts.visibility == SRV_PUBLIC && r->opts.opponent == SRV_OPP_HUMAN &&
         r->status == SRV_WAITING && same_table(&r->opts, opts);
}

int srv_room_quick(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  if (cmd->opts.opponent == SRV_OPP_COMPUTER)
    return SRV_EUNSUPPORTED;
  if (cmd->opts.opponent == SRV_OPP_LOCAL)
    return SRV_EBADREQ;
  srv_room_opts opts = cmd->opts;
  opts.visibility = SRV_PUBLIC;
  srv_room *mine = NULL;
  /* The oldest waiting room whose waiting player is someone else and is there. */
  for (srv_room *r = rooms->head; r != NULL; r = r->next) {
    if (!pairable(r, &opts))
      continue;
    srv_player *waiting = r->seat[0] ? r->seat[0] : r->seat[1];
    if (waiting == c->player) {
      if (mine == NULL)
        mine = r;
      continue;
    }
    bool present = false;
    for (srv_member *m = r->members; m != NULL; m = m->rnext)
      present |= m->client->player == waiting;
    if (waiting == NULL || !present)
      continue;
    if (room_active_count(rooms, c->player) >= rooms->limits.rooms_per_player)
      return SRV_EROOMS;
    int rc = room_add_member(r, c);
    if (rc != 0)
      return rc;
    if ((rc = room_seat(r, c->player, SRV_CHOOSE_RANDOM)) != 0)
      return rc;
    return room_enter(r, c, &cmd->id);
  }
  if (mine != NULL) /* Asked twice: the same waiting room. */
    return room_enter(mine, c, &cmd->id);
  srv_cmd create = *cmd;
  create.opts = opts;
  return srv_room_create(rooms, c, &create);
}
