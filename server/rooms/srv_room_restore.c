/* Durable storage's side of a room's life: rooms recovered after a restart, and moves taken back
 * when the batch that recorded them was lost (see srv_room.h). */
#include "mc_error.h"
#include "srv_error.h"
#include "srv_log.h"
#include "srv_metrics.h"
#include "srv_room_int.h"

int srv_rooms_restore(srv_rooms *rooms, const srv_room_restore *r) {
  mc_game *game = r->game;
  if (r->status > SRV_FINISHED || (r->status != SRV_WAITING && game == NULL) ||
      (r->status == SRV_PLAYING && mc_game_over(game, NULL)) ||
      (r->status == SRV_FINISHED && mc_game_over(game, NULL) == r->aborted)) {
    mc_game_free(game);
    return SRV_EBADREQ;
  }
  srv_room *room;
  int rc = srv_room__make(rooms, r->opts, r->code, &room);
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
  room->aborted = r->status == SRV_FINISHED && r->aborted;
  for (int s = 0; s < 2; s++) {
    if (r->seats[s] != NULL)
      srv_room__take_seat(room, s, r->seats[s]);
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
  for (size_t i = 0; i < r->n_chat; i++) {
    if (srv_room__chat_keep(room, &r->chat[i]) != 0)
      break; /* Out of memory: the room comes back with fewer lines. */
  }
  if (r->status != SRV_WAITING)
    srv_room__set_status(room, r->status);
  if (r->status == SRV_PLAYING)
    srv_room__start_turn_clock(room);
  else if (r->status == SRV_FINISHED)
    srv_room__arm(room, room->finished_timer, rooms->limits.finished_ms);
  srv_room__presence(room);
  return 0;
}

/* Rebuilds the game of room without its moves from ply on: a new game of the room's rules with
 * the first ply moves played again. Returns 0, or an engine error. */
static int room_take_back(srv_room *room, int ply) {
  size_t n = 0;
  const uint8_t *moves = mc_game_moves(room->game, &n);
  if (ply < 0 || (size_t)ply >= n)
    return 0;
  mc_game *g = NULL;
  int rc = srv_room__replay(room, (size_t)ply, &g);
  if (rc != 0)
    return rc;
  room->last_seat = ply > 0 ? mc_game_mover(room->game, (size_t)ply - 1) : -1;
  room->last_house = ply > 0 ? moves[ply - 1] : 0;
  mc_game_free(room->game);
  room->game = g;
  return 0;
}

/* The start of the game a rematch began was lost: the room goes back to the finished game it
 * replaced (which is stored), the rematch's states are forgotten unsent and the requests they
 * answered get err. */
static int take_back_rematch(srv_room *room, int err) {
  srv_rooms *rooms = room->rooms;
  srv_client *who[16];
  srv_req_id ids[16];
  size_t owed = srv_room__take_back_owed(room, room->game_id, -1, who, ids, 16);
  srv_log_warn("room", "%s: storage lost the start of game %d: the rematch is taken back",
               room->code, room->game_no);
  mc_game_free(room->game);
  room->game = room->prev.game;
  room->prev.game = NULL;
  room->game_id = room->prev.game_id;
  room->game_no--;
  srv_player *south = room->seat[MC_SOUTH];
  room->seat[MC_SOUTH] = room->seat[MC_NORTH];
  room->seat[MC_NORTH] = south;
  srv_room__swap_seat_links(room);
  room->last_seat = room->prev.last_seat;
  room->last_house = room->prev.last_house;
  room->rating = room->prev.rating;
  room->clock = room->prev.clock;
  room->aborted = room->prev.aborted;
  room->trace_len = 0;
  room->first_deadline = 0;
  room->move_deadline = 0;
  srv_room__disarm(room, room->clock_timer);
  srv_room__offers_clear(room);
  room->rematch[0] = room->rematch[1] = false;
  srv_room__set_status(room, SRV_FINISHED);
  srv_room__arm(room, room->finished_timer, rooms->limits.finished_ms);
  for (size_t i = 0; i < owed && err != 0; i++)
    srv_send_error(&rooms->sink, who[i], err, &ids[i], NULL, NULL, 0);
  srv_room__presence(room);
  srv_room__changed(room);
  srv_room__moved(room);
  uint64_t open = rooms->batch;
  rooms->batch = open > 1 ? open - 1 : open;
  srv_room__broadcast(room, NULL, NULL, NULL);
  rooms->batch = open;
  return 0;
}

int srv_rooms_store_lost(srv_rooms *rooms, const char *code, int64_t game_id, int lost_ply,
                         bool game_lost, int err) {
  srv_room *room = srv_rooms_find(rooms, code);
  if (room == NULL)
    return SRV_ENOTFOUND;
  bool undo = lost_ply >= 0 && game_id != 0 && game_id == room->game_id &&
              (size_t)lost_ply < mc_game_ply(room->game);
  /* The states of the lost plies were never sent: they are forgotten, and the requests they
   * answered are owed an error instead. */
  srv_client *who[16];
  srv_req_id ids[16];
  bool start_lost = game_lost && game_id != 0 && game_id == room->game_id;
  if (start_lost && room->prev.game != NULL)
    return take_back_rematch(room, err);
  /* A game whose start was lost shows nothing until it is stored: its states are forgotten. */
  size_t owed =
      lost_ply >= 0 || start_lost
          ? srv_room__take_back_owed(room, game_id, start_lost ? -1 : lost_ply, who, ids, 16)
          : 0;
  int mover = -1;
  if (undo) {
    mover = mc_game_mover(room->game, (size_t)lost_ply);
    long swap_ply = mc_game_swap_ply(room->game);
    int rc = room_take_back(room, lost_ply);
    if (rc != 0) {
      srv_log_error("room", "%s: cannot take back lost moves: %s", room->code, mc_strerror(rc));
      undo = false;
    } else if (swap_ply >= lost_ply) {
      /* The swap is lost: the players go back to the sides they held when they moved. */
      srv_room__swap_seats(room);
    }
  }
  if (undo) {
    srv_log_warn("room", "%s: storage lost the moves from ply %d on: taken back", room->code,
                 lost_ply);
    if (room->status == SRV_FINISHED)
      srv_room__unrate(room); /* The game is not over after all. */
    room->aborted = false;
    room->trace_len = 0;
    srv_room__offers_clear(room);
    room->rematch[0] = room->rematch[1] = false;
    srv_room__disarm(room, room->finished_timer);
    srv_room__disarm(room, room->clock_timer);
    if (room->status != SRV_PLAYING)
      srv_room__set_status(room, SRV_PLAYING);
    /* The clocks as they were before the last lost move (the moves of one loop turn are
     * microseconds apart): the mover's clock runs on from when its turn began. */
    room->clock = room->undo_clock;
    if (room->clock.running == mc_game_pos(room->game)->turn) {
      uint64_t now = rooms->time->now(rooms->time);
      srv_room__arm(room, room->clock_timer, srv_clock_until_flag(&room->clock, now));
    } else {
      room->clock.running = -1;
      srv_room__start_turn_clock(room);
    }
  }
  bool changed = undo;
  /* Record the room as it is now: a game whose start was lost whole again (its start, its moves
   * and its result, under the id it has), else what may have been lost of it. */
  srv_room__record(room, SRV_RECORD_SEATED, -1, 0);
  if (room->game_id != 0 && room->status != SRV_WAITING) {
    if (game_lost && game_id == room->game_id) {
      srv_room__record(room, SRV_RECORD_GAME_STARTED, -1, 0);
    } else {
      srv_room__record(room, SRV_RECORD_TAKEBACK, -1, 0); /* A lost takeback is written again. */
      if (room->status == SRV_FINISHED)
        srv_room__record(room, SRV_RECORD_GAME_FINISHED, -1, 0); /* Its result may be lost. */
    }
  }
  if (err != 0) {
    /* Each request a lost state answered gets err; the mover's other connections learn it too. */
    srv_list_foreach (it, &room->members) {
      srv_member *m = srv_list_entry(it, srv_member, in_room);
      const srv_req_id *id = NULL;
      for (size_t i = 0; i < owed && id == NULL; i++)
        id = who[i] == m->client ? &ids[i] : NULL;
      if (id == NULL && (mover < 0 || m->client->player != room->seat[mover]))
        continue;
      srv_send_error(&rooms->sink, m->client, err, id, NULL, mover >= 0 ? "move" : NULL, 0);
    }
  }
  srv_room__presence(room);
  srv_room__changed(room);
  if (undo)
    srv_room__moved(room);
  if (start_lost) {
    /* Recorded again above: the game shows once that is stored. */
    srv_room__broadcast(room, NULL, NULL, NULL);
  } else if (changed || owed > 0) {
    /* The room as it is now is what the store holds: it goes out with the lost batch's result
     * (the batch just handed over), not after the next commit. */
    uint64_t open = rooms->batch;
    rooms->batch = open > 1 ? open - 1 : open;
    srv_room__broadcast(room, NULL, NULL, NULL);
    rooms->batch = open;
  }
  return 0;
}
