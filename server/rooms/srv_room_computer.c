/* The computer's seat in a room: seating it, telling the thinker (srv_computer.c) when it is to
 * move or its search is no longer wanted, playing its move as a move of its seat, and its answers
 * to a draw offer and a rematch. The computer is a player of its own (srv_player.computer) with a
 * seat like anyone's, so every other part of the room (states, clocks, records, recovery) treats
 * it as a player who is always connected. */
#include <stdio.h>
#include <string.h>

#include "mc_eval.h"
#include "srv_error.h"
#include "srv_log.h"
#include "srv_room_int.h"

/* Half a seed: the computer takes a draw unless its evaluation puts it this far ahead. */
#define DRAW_MARGIN (MC_SEED / 2)

void srv_rooms_set_thinker(srv_rooms *rooms, const srv_room_thinker *thinker) {
  if (thinker != NULL)
    rooms->thinker = *thinker;
  else
    memset(&rooms->thinker, 0, sizeof rooms->thinker);
}

void srv_rooms_set_computer_games(srv_rooms *rooms, int max) {
  rooms->computer_games = max;
}

void srv_rooms_set_computer_shares(srv_rooms *rooms, int per_player, int per_addr) {
  rooms->computer_per_player = per_player;
  rooms->computer_per_addr = per_addr;
}

bool srv_rooms_computer_on(const srv_rooms *rooms) {
  return rooms->thinker.think != NULL && rooms->computer_games != 0;
}

int srv_rooms_computer_player(srv_ident *ident, int level, srv_player **out) {
  if (level < 1 || level > 6)
    return SRV_EINTERNAL;
  char name[SRV_NAME_SIZE], token[SRV_TOKEN_CHARS + 1];
  snprintf(name, sizeof name, "Computer (level %d)", level);
  int rc = srv_ident_create(ident, name, out, token);
  memset(token, 0, sizeof token); /* Nobody speaks for the computer. */
  if (rc != 0)
    return rc;
  (*out)->computer = level;
  return 0;
}

int srv_room_computer_level(const srv_room *room, int seat) {
  const srv_player *p = room->seat[seat];
  return p != NULL ? p->computer : 0;
}

int64_t srv_room_clock_left(const srv_room *room, int seat) {
  if (!room->opts.clocked)
    return -1;
  return srv_clock_left(&room->clock, seat, room->rooms->time->now(room->rooms->time));
}

int srv_room_computer_move(srv_room *room, int game_no, size_t ply, int house) {
  if (room->status != SRV_PLAYING || room->game_no != game_no || mc_game_ply(room->game) != ply)
    return SRV_ESTALE;
  int turn = mc_game_pos(room->game)->turn;
  if (srv_room_computer_level(room, turn) == 0)
    return SRV_ESTALE;
  int rc = srv_room__play(room, NULL, NULL, turn, house);
  if (rc != 0 && rc != SRV_EOVER)
    srv_log_warn("computer", "%s: its move %d at ply %zu was refused: %s", room->code, house, ply,
                 srv_err_code(rc));
  return rc;
}

int srv_room__computer_admit(srv_rooms *rooms, const srv_client *c) {
  if (!srv_rooms_computer_on(rooms))
    return SRV_EUNSUPPORTED;
  int n = 0, mine = 0, here = 0;
  srv_list_foreach (it, &rooms->order) {
    const srv_room *r = srv_list_entry(it, srv_room, order);
    if (r->opts.opponent != SRV_OPP_COMPUTER || r->status == SRV_FINISHED)
      continue;
    n++;
    mine += c->player != NULL && (r->seat[0] == c->player || r->seat[1] == c->player);
    here += c->peer != NULL && r->peer == c->peer;
  }
  /* One's own share first: it is the one the person can do something about. */
  if ((rooms->computer_per_player > 0 && mine >= rooms->computer_per_player) ||
      (rooms->computer_per_addr > 0 && here >= rooms->computer_per_addr))
    return SRV_ECOMPUTERGAMES;
  return rooms->computer_games < 0 || n < rooms->computer_games ? 0 : SRV_ESERVERFULL;
}

int srv_room__seat_computer(srv_room *room) {
  int free_seat = room->seat[0] == NULL ? 0 : room->seat[1] == NULL ? 1 : -1;
  if (free_seat < 0 || room->status != SRV_WAITING)
    return SRV_EINTERNAL;
  srv_player *cp;
  int rc = srv_rooms_computer_player(room->rooms->ident, room->opts.level, &cp);
  if (rc != 0)
    return rc;
  srv_room__take_seat(room, free_seat, cp);
  srv_ident_unref(room->rooms->ident, cp); /* The seat holds its own reference. */
  srv_room__record(room, SRV_RECORD_SEATED, -1, 0);
  srv_room__start_game(room);
  srv_room__changed(room);
  return 0;
}

void srv_room__computer_check(srv_room *room, bool gone) {
  const srv_room_thinker *t = &room->rooms->thinker;
  if (room->opts.opponent != SRV_OPP_COMPUTER || t->think == NULL)
    return;
  if (!gone && room->status == SRV_PLAYING &&
      srv_room_computer_level(room, mc_game_pos(room->game)->turn) > 0)
    t->think(t->ud, room);
  else
    t->stop(t->ud, room);
}

bool srv_room__computer_takes_draw(const srv_room *room, int seat) {
  const int other = 1 - seat;
  if (srv_room_computer_level(room, other) == 0)
    return false;
  const mc_pos *pos = mc_game_pos(room->game);
  /* The evaluation is for the side to move; the computer's view is the other way round when the
   * person who offers is to move. */
  int v = mc_eval(&room->opts.rules, pos, MC_EVAL_FULL);
  if (pos->turn != other)
    v = -v;
  return v < DRAW_MARGIN;
}

void srv_room__computer_rematch(srv_room *room) {
  for (int s = 0; s < 2; s++)
    if (srv_room_computer_level(room, s) > 0)
      room->rematch[s] = true;
}
