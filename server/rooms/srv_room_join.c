/* Entering and leaving rooms: create, join, quick pairing and leave, and resync (the full state
 * again, as on entering). join and quick seat a player the same way (take_free_seat()). */
#include <string.h>

#include "srv_error.h"
#include "srv_log.h"
#include "srv_pairing.h"
#include "srv_peer.h"
#include "srv_rand.h"
#include "srv_rating.h"
#include "srv_room_int.h"

int srv_room__enter(srv_room *room, srv_client *c, const srv_req_id *id) {
  int rc = srv_room__add_member(room, c);
  if (rc != 0)
    return rc;
  srv_room__send_joined(room, c, id);
  srv_room__presence(room);
  srv_room__changed(room);
  srv_room__send_full(room, c, NULL);
  srv_room__send_chat_history(room, c);
  srv_room__broadcast(room, NULL, NULL, c);
  return 0;
}

/* Seats player p in the free seat of a waiting room (choice for the first seat) and starts the
 * game when both are taken. */
static int seat(srv_room *room, srv_player *p, srv_seat_choice choice) {
  int s;
  if (room->seat[0] == NULL && room->seat[1] == NULL) {
    if (choice == SRV_CHOOSE_RANDOM) {
      uint8_t b = 0;
      int rc = srv_rand_bytes(&b, 1);
      if (rc != 0)
        return rc;
      s = b & 1;
    } else {
      s = (int)choice;
    }
  } else {
    s = room->seat[0] == NULL ? 0 : 1;
  }
  srv_room__take_seat(room, s, p);
  if (room->opts.opponent == SRV_OPP_LOCAL)
    srv_room__take_seat(room, 1 - s, p);
  /* Recorded: the seat alone, or with both seats taken the game (whose record holds the seats). */
  if (room->seat[0] != NULL && room->seat[1] != NULL)
    srv_room__start_game(room);
  else
    srv_room__record(room, SRV_RECORD_SEATED, -1, 0);
  srv_room__changed(room);
  return 0;
}

/* c takes the free seat of a waiting room and enters it: join's and quick's way in. On error c is
 * not left in the room. */
static int take_free_seat(srv_rooms *rooms, srv_room *room, srv_client *c, const srv_req_id *id) {
  if (room->opts.rated && !c->player->account)
    return SRV_EACCOUNTREQ; /* Rated games are between two accounts. */
  if (srv_room__active_count(rooms, c->player) >= rooms->limits.rooms_per_player)
    return SRV_EROOMS;
  bool was_member = srv_room__member(room, c) != NULL;
  int rc = srv_room__add_member(room, c);
  if (rc != 0)
    return rc;
  if ((rc = seat(room, c->player, SRV_CHOOSE_RANDOM)) != 0) {
    if (!was_member)
      srv_room__remove_member(srv_room__member(room, c));
    return rc;
  }
  return srv_room__enter(room, c, id);
}

/* Whether c's address may create one more room like opts (srv_peer.h; no address: yes). */
static bool address_may_create(const srv_rooms *rooms, const srv_client *c,
                               const srv_room_opts *opts) {
  const srv_peer *p = c->peer;
  const srv_room_limits *l = &rooms->limits;
  if (p == NULL)
    return true;
  if (l->rooms_per_addr > 0 && p->rooms >= l->rooms_per_addr)
    return false;
  return l->public_per_addr <= 0 || opts->visibility != SRV_PUBLIC ||
         opts->opponent != SRV_OPP_HUMAN || p->public_rooms < l->public_per_addr;
}

/* create's work; sets *out to the new room (may be NULL on error). */
static int create_room(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd, srv_room **out) {
  const bool computer = cmd->opts.opponent == SRV_OPP_COMPUTER;
  int rc;
  *out = NULL;
  if (computer && (rc = srv_room__computer_admit(rooms, c)) != 0)
    return rc;
  if (cmd->opts.rated && !c->player->account)
    return SRV_EACCOUNTREQ;
  if (srv_room__active_count(rooms, c->player) >= rooms->limits.rooms_per_player ||
      !address_may_create(rooms, c, &cmd->opts))
    return SRV_EROOMS;
  srv_room *room;
  rc = srv_room__make(rooms, &cmd->opts, NULL, &room);
  if (rc != 0)
    return rc;
  srv_room__created_from(room, c->peer);
  if ((rc = seat(room, c->player, cmd->opts.seat)) != 0 ||
      (computer && (rc = srv_room__seat_computer(room)) != 0) ||
      (rc = srv_room__enter(room, c, &cmd->id)) != 0) {
    srv_room__close(room, "error");
    return rc;
  }
  srv_log_debug("room", "%s: created by %s", room->code, c->player->id);
  *out = room;
  return 0;
}

int srv_room_create(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  return create_room(rooms, c, cmd, &room);
}

int srv_room_join(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room = srv_rooms_find(rooms, cmd->room);
  if (room == NULL)
    return SRV_ENOTFOUND;
  if (cmd->role == SRV_ROLE_PLAYER && srv_room__you(room, c) == SRV_SEAT_SPECTATOR) {
    if (room->status != SRV_WAITING || (room->seat[0] != NULL && room->seat[1] != NULL))
      return SRV_EFULL;
    return take_free_seat(rooms, room, c, &cmd->id);
  }
  return srv_room__enter(room, c, &cmd->id);
}

/* ---- Quick pairing ------------------------------------------------------------------------- */

static bool same_table(const srv_room_opts *a, const srv_room_opts *b) {
  const mc_rules *x = &a->rules, *y = &b->rules;
  return x->kind == y->kind && x->houses == y->houses && x->seeds == y->seeds &&
         x->empty_capture == y->empty_capture && x->grand_slam == y->grand_slam &&
         x->lap_capture == y->lap_capture && x->match == y->match && x->pie == y->pie &&
         a->clocked == b->clocked &&
         (!a->clocked || (a->initial_ms == b->initial_ms && a->increment_ms == b->increment_ms)) &&
         a->rated == b->rated && a->hints == b->hints;
}

/* A room quick pairing may use: public, for two people, waiting, same table. */
static bool pairable(const srv_room *r, const srv_room_opts *opts) {
  return r->opts.visibility == SRV_PUBLIC && r->opts.opponent == SRV_OPP_HUMAN &&
         r->status == SRV_WAITING && same_table(&r->opts, opts);
}

bool srv_rooms_has_seek(srv_rooms *rooms, const srv_room_opts *opts) {
  srv_list_foreach (it, &rooms->order) {
    if (pairable(srv_list_entry(it, srv_room, order), opts))
      return true;
  }
  return false;
}

/* One seeker of a pool: a waiting player and the oldest room it waits in. */
typedef struct seeker {
  srv_room *room;
  const srv_player *player;
  const srv_peer *peer; /* The address the room was created from, or NULL. */
  uint64_t since;       /* Its place in the queue (see srv_room_quick()). */
} seeker;

/* Closes p's seeks (rooms made by quick, still waiting for an opponent) of another table than
 * opts: a player seeks once, and its new seek replaces the old one. */
static void drop_other_seeks(srv_rooms *rooms, const srv_player *p, const srv_room_opts *opts) {
  srv_list_foreach_safe (it, &rooms->order) {
    srv_room *r = srv_list_entry(it, srv_room, order);
    if (r->seek && r->status == SRV_WAITING && (r->seat[0] == p || r->seat[1] == p) &&
        !same_table(&r->opts, opts))
      srv_room__close(r, "replaced");
  }
}

int srv_room_quick(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  if (cmd->opts.opponent == SRV_OPP_COMPUTER)
    return srv_room_create(rooms, c, cmd); /* The computer is always ready: a game at once. */
  if (cmd->opts.opponent == SRV_OPP_LOCAL)
    return SRV_EBADREQ;
  if (cmd->opts.rated && !c->player->account)
    return SRV_EACCOUNTREQ;
  srv_room_opts opts = cmd->opts;
  opts.visibility = SRV_PUBLIC;
  drop_other_seeks(rooms, c->player, &opts);
  srv_room *mine = NULL;
  /* The queue of seekers: the players waiting in a public room of the same table, connected and
   * not c's player. One place per player and one per address (the oldest room of each, rooms
   * being in creation order), so that many rooms or many names from one address are one seeker;
   * and an address that was just given an opponent goes to the back of the queue (its place is
   * the later of its room's age and that pairing). The choice among them is srv_pair_choose()'s,
   * oldest place first. */
  enum { MAX_SEEKERS = 64 };
  seeker q[MAX_SEEKERS];
  size_t n = 0;
  uint64_t now = rooms->time->now(rooms->time);
  mc_kind kind = opts.rules.kind;
  srv_list_foreach (it, &rooms->order) {
    srv_room *r = srv_list_entry(it, srv_room, order);
    if (!pairable(r, &opts))
      continue;
    srv_player *waiting = r->seat[0] ? r->seat[0] : r->seat[1];
    if (waiting == c->player) {
      if (mine == NULL)
        mine = r;
      continue;
    }
    if (waiting == NULL || !srv_room_seat_connected(r, r->seat[0] ? 0 : 1) || n == MAX_SEEKERS)
      continue;
    bool known = false;
    for (size_t j = 0; j < n && !known; j++)
      known = q[j].player == waiting || (r->peer != NULL && q[j].peer == r->peer);
    if (known)
      continue;
    uint64_t since = r->waiting_since;
    if (r->peer != NULL && r->peer->paired_ms > since)
      since = r->peer->paired_ms;
    /* Insert in order of place (stable: equal places keep creation order). */
    size_t at = n;
    while (at > 0 && q[at - 1].since > since) {
      q[at] = q[at - 1];
      at--;
    }
    q[at] = (seeker){r, waiting, r->peer, since};
    n++;
  }
  srv_pair_candidate pc[MAX_SEEKERS];
  for (size_t i = 0; i < n; i++) {
    pc[i].rating = srv_rating_of(q[i].player, kind);
    pc[i].waited_ms = now > q[i].since ? now - q[i].since : 0;
  }
  int pick = srv_pair_choose(srv_rating_of(c->player, kind), pc, n);
  if (pick >= 0) {
    srv_peer *peer = q[pick].room->peer;
    int rc = take_free_seat(rooms, q[pick].room, c, &cmd->id);
    if (rc == 0 && peer != NULL)
      peer->paired_ms = now;
    return rc;
  }
  if (mine != NULL) /* Asked twice: the same waiting room. */
    return srv_room__enter(mine, c, &cmd->id);
  srv_cmd create = *cmd;
  create.opts = opts;
  srv_room *room;
  int rc = create_room(rooms, c, &create, &room);
  if (rc == 0)
    room->seek = true;
  return rc;
}

/* ---- Leaving ------------------------------------------------------------------------------- */

void srv_room__leave(srv_member *m, bool free_waiting_seat) {
  srv_room *room = m->room;
  srv_player *p = m->client->player;
  srv_room__remove_member(m);
  srv_room__changed(room); /* Presence and spectators show in the lobby. */
  if (free_waiting_seat && room->status == SRV_WAITING && p != NULL) {
    bool still_here = false;
    srv_list_foreach (it, &room->members)
      still_here |= srv_list_entry(it, srv_member, in_room)->client->player == p;
    if (!still_here) {
      for (int s = 0; s < 2; s++) {
        if (room->seat[s] == p) {
          srv_room__free_seat(room, s);
          srv_room__changed(room);
          srv_room__record(room, SRV_RECORD_SEATED, -1, 0);
        }
      }
    }
    if (room->seat[0] == NULL && room->seat[1] == NULL) {
      srv_room__close(room, "left");
      return;
    }
  }
  srv_room__presence(room);
  srv_room__broadcast(room, NULL, NULL, NULL);
}

int srv_room_leave(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = srv_room__find_member(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  char code[SRV_CODE_LEN + 1];
  memcpy(code, room->code, sizeof code);
  srv_room__leave(srv_room__member(room, c), true); /* May close the room. */
  srv_event ev = {.type = SRV_EV_LEFT, .id = &cmd->id};
  ev.u.left.room = code;
  srv_room__send(rooms, c, &ev);
  return 0;
}

/* ---- Resync ---------------------------------------------------------------------------------- */

int srv_room_resync(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = srv_room__find_member(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  srv_room__send_full(room, c, &cmd->id);
  return 0;
}
