/* The takeback command: in a local room the last move is taken back at once; between people a
 * player asks to take back its own last move and the other side accepts or declines, like a draw
 * offer. Never in a finished game (srv_room__find_playing()).
 *
 * What is taken back: the asking seat's last move and every move after it (the other side's
 * replies, extra turns included), so that the asking seat is to move again where it moved last.
 * The game is rebuilt by playing the moves before it again (mc_game_undo() keeps one level only),
 * recorded (durable storage deletes the moves and keeps the clocks, srv_persist.c) and only then
 * shown. The clocks give no time back: each side keeps the time it has, and the side to move now
 * runs; a side left without any move in the game starts again from the initial time (it had not
 * moved yet), and a game taken back to its first position has no clock running again. */
#include "mc_error.h"
#include "srv_error.h"
#include "srv_log.h"
#include "srv_room_int.h"

/* The number of moves left when seat's last move and everything after it go; -1: seat has no
 * move in the game that can go. The pie rule's swap is final: neither it nor a move before it is
 * taken back (the seats changed players there). */
static long kept_moves(const mc_game *game, int seat) {
  size_t ply = mc_game_ply(game);
  while (ply > 0 && mc_game_mover(game, ply - 1) != seat)
    ply--;
  long keep = ply > 0 ? (long)ply - 1 : -1;
  return keep <= mc_game_swap_ply(game) ? -1 : keep;
}

/* Takes back seat's last move and the moves after it; the state goes to every member, c's copy
 * answering id. */
static int take_back(srv_room *room, int seat, srv_client *c, const srv_req_id *id) {
  srv_rooms *rooms = room->rooms;
  long keep = kept_moves(room->game, seat);
  if (keep < 0)
    return SRV_ENOTHINGBACK;
  mc_game *g = NULL;
  int rc = srv_room__replay(room, (size_t)keep, &g);
  if (rc != 0)
    return rc == MC_ENOMEM ? SRV_ENOMEM : SRV_EINTERNAL;
  /* Swap the shorter game in and record the room as it is. */
  mc_game *old = room->game;
  uint64_t now = rooms->time->now(rooms->time);
  room->game = g;
  if (room->opts.clocked) {
    srv_clock_stop(&room->clock, now);
    for (int s = 0; s < 2; s++) {
      size_t i = mc_game_ply(g);
      while (i > 0 && mc_game_mover(g, i - 1) != s)
        i--;
      if (i == 0)
        room->clock.left_ms[s] = room->opts.initial_ms; /* Back before its first move. */
    }
  }
  size_t n = 0;
  const uint8_t *moves = mc_game_moves(g, &n);
  room->last_seat = n > 0 ? mc_game_mover(g, n - 1) : -1;
  room->last_house = n > 0 ? moves[n - 1] : 0;
  srv_room__record(room, SRV_RECORD_TAKEBACK, seat, 0);
  mc_game_free(old);
  srv_log_debug("room", "%s: taken back to ply %ld", room->code, keep);
  room->trace_len = 0; /* The move now last was played earlier: no replay for it. */
  srv_room__offers_clear(room);
  srv_room__start_turn_clock(room);
  room->undo_clock = room->clock;
  srv_room__presence(room);
  srv_room__moved(room);
  srv_room__broadcast(room, c, id, NULL);
  return 0;
}

int srv_room_takeback(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = srv_room__find_playing(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  int you = srv_room__you(room, c);
  if (you == SRV_SEAT_BOTH) {
    /* One screen, both seats: the last move goes at once; there is nobody to answer. */
    if (cmd->action != SRV_DRAW_OFFER)
      return SRV_ENOTAKEBACK;
    size_t ply = mc_game_ply(room->game);
    if (ply == 0)
      return SRV_ENOTHINGBACK;
    return take_back(room, mc_game_mover(room->game, ply - 1), c, &cmd->id);
  }
  if (srv_room_computer_level(room, 1 - you) > 0) {
    /* Against the computer: granted at once (it never minds); the asker's last move and the
     * computer's reply go, and a search under way stops (srv_room__presence()). */
    if (cmd->action != SRV_DRAW_OFFER)
      return SRV_ENOTAKEBACK;
    if (kept_moves(room->game, you) < 0)
      return SRV_ENOTHINGBACK;
    return take_back(room, you, c, &cmd->id);
  }
  /* A standing request of the other side. */
  bool asked = room->takeback_offer >= 0 && room->takeback_offer != you;
  switch (cmd->action) {
  case SRV_DRAW_OFFER:
    if (asked) /* Both ask: the other side's request, asked first, is granted. */
      return take_back(room, room->takeback_offer, c, &cmd->id);
    if (kept_moves(room->game, you) < 0)
      return SRV_ENOTHINGBACK;
    room->takeback_offer = you;
    room->takeback_declined = -1;
    break;
  case SRV_DRAW_ACCEPT:
    if (!asked)
      return SRV_ENOTAKEBACK;
    return take_back(room, room->takeback_offer, c, &cmd->id);
  case SRV_DRAW_DECLINE:
    if (!asked)
      return SRV_ENOTAKEBACK;
    room->takeback_declined = room->takeback_offer; /* Its player sees the answer. */
    room->takeback_offer = -1;
    break;
  }
  srv_room__broadcast(room, c, &cmd->id, NULL);
  return 0;
}
