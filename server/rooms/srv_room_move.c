/* The move command: the checks in the protocol's order, the move played in place through the
 * engine, its record (a refused record takes it back, so the room stays as it was), then the state
 * to every member. No copy of the game is made: a move costs the same at ply 400 as at ply 1. */
#include <stdlib.h>
#include <string.h>

#include "mc_error.h"
#include "srv_error.h"
#include "srv_log.h"
#include "srv_metrics.h"
#include "srv_room_int.h"

/* Keeps the trace of the last move for late joiners and reconnections: in the room's buffer when
 * no owed state holds it and it is large enough, else in a new one. */
static void keep_trace(srv_room *room, const mc_trace *trace) {
  srv_steps *t = room->trace;
  if (t == NULL || t->refs > 1 || t->cap < trace->len) {
    size_t cap = trace->len < 64 ? 64 : trace->len;
    srv_steps *fresh = malloc(sizeof *fresh + cap * sizeof fresh->v[0]);
    if (fresh == NULL) {
      room->trace_len = 0; /* Out of memory: the state goes out without the animation. */
      return;
    }
    fresh->refs = 1;
    fresh->cap = cap;
    srv_room__steps_unref(t);
    room->trace = t = fresh;
  }
  memcpy(t->v, trace->steps, trace->len * sizeof t->v[0]);
  room->trace_len = trace->len;
}

int srv_room_move(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = srv_room__find_playing(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  if (cmd->has_ply && (size_t)cmd->ply != mc_game_ply(room->game))
    return SRV_ESTALE;
  int turn = mc_game_pos(room->game)->turn;
  if (room->seat[turn] != c->player)
    return SRV_ETURN;
  return srv_room__play(room, c, &cmd->id, turn, cmd->house);
}

int srv_room__play(srv_room *room, srv_client *c, const srv_req_id *id, int turn, int house) {
  srv_rooms *rooms = room->rooms;
  uint64_t now = rooms->time->now(rooms->time);
  if (room->opts.clocked && room->first_deadline != 0 && now >= room->first_deadline) {
    /* A first move after its deadline, before the timer fired: the game is aborted. */
    srv_room__abort(room);
    srv_room__broadcast(room, NULL, NULL, NULL);
    return SRV_EOVER;
  }
  if (room->opts.clocked && srv_clock_flagged(&room->clock, now)) {
    /* The flag fell before the timer fired: the game is lost on time, not played on. */
    srv_room__finish(room, MC_REASON_TIMEOUT, turn == MC_SOUTH ? MC_WIN_NORTH : MC_WIN_SOUTH);
    srv_room__broadcast(room, NULL, NULL, NULL);
    return SRV_EOVER;
  }
  if (room->move_deadline != 0 && now >= room->move_deadline) {
    /* An untimed game's move after its deadline, before the timer ran: lost by abandonment. */
    srv_room__finish(room, MC_REASON_ABANDONED, turn == MC_SOUTH ? MC_WIN_NORTH : MC_WIN_SOUTH);
    srv_room__broadcast(room, NULL, NULL, NULL);
    return SRV_EOVER;
  }
  const bool swap = house == MC_SWAP;
  if (house > room->opts.rules.houses && !swap)
    return SRV_EILLEGAL;

  /* Play in place, then record the room as it is after the move. Storage does not refuse: a move
   * it loses is taken back at the end of the turn (srv_rooms_store_lost()). */
  int rc = mc_game_play(room->game, house, rooms->trace);
  if (rc != 0)
    return rc == MC_EINVAL ? SRV_EILLEGAL : srv_err_from_engine(rc);
  srv_clock clock = room->clock;
  bool over = mc_game_over(room->game, NULL);
  /* A side's first move is free (nothing ran, nothing is added); the side now to move gets its
   * clock, or before its own first move a deadline (srv_room__start_turn_clock()). */
  if (room->opts.clocked)
    srv_clock_moved(&room->clock, -1, now);
  room->first_deadline = 0;
  room->move_deadline = 0;
  if (swap)
    srv_room__swap_seats(room); /* Recorded with the seats as they are now. */
  srv_room__record(room, SRV_RECORD_MOVE, turn, house);

  room->undo_clock = clock;
  keep_trace(room, rooms->trace);
  room->last_seat = turn;
  room->last_house = house;
  room->draw_declined = -1;
  if (room->draw_offer >= 0 && room->draw_offer != turn) {
    room->draw_declined = room->draw_offer; /* Moving instead of answering declines the offer. */
    room->draw_offer = -1;
  }
  room->takeback_offer = -1; /* A move changes what a takeback would take back. */
  room->takeback_declined = -1;
  if (swap)
    srv_room__offers_clear(room); /* Offers name seats, whose players just changed. */
  srv_metrics_move();
  if (over)
    srv_room__finish(room, MC_REASON_NONE, MC_DRAW);
  else
    srv_room__start_turn_clock(room);
  srv_room__presence(room);
  srv_room__moved(room);
  if (swap)
    srv_room__changed(room); /* The lobby and the players' lists show who sits where. */
  srv_room__broadcast(room, c, id, NULL);
  return 0;
}
