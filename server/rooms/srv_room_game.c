/* Games in a room: start and end, the clock's flag, abandonment, and the commands that end or
 * restart a game (resign, draw, rematch). */
#include <string.h>

#include "mc_error.h"
#include "srv_error.h"
#include "srv_log.h"
#include "srv_metrics.h"
#include "srv_rating.h"
#include "srv_room_int.h"

/* ---- Start and end ------------------------------------------------------------------------- */

void srv_room__offers_clear(srv_room *room) {
  room->draw_offer = -1;
  room->draw_declined = -1;
  room->takeback_offer = -1;
  room->takeback_declined = -1;
}

bool srv_room__has_moved(const srv_room *room, int seat) {
  size_t n = mc_game_ply(room->game);
  for (size_t i = 0; i < n; i++) {
    if (mc_game_mover(room->game, i) == seat)
      return true;
  }
  return false;
}

void srv_room__swap_seats(srv_room *room) {
  srv_player *south = room->seat[MC_SOUTH];
  room->seat[MC_SOUTH] = room->seat[MC_NORTH];
  room->seat[MC_NORTH] = south;
  srv_room__swap_seat_links(room);
  char addr[64];
  memcpy(addr, room->seat_addr[MC_SOUTH], sizeof addr);
  memcpy(room->seat_addr[MC_SOUTH], room->seat_addr[MC_NORTH], sizeof addr);
  memcpy(room->seat_addr[MC_NORTH], addr, sizeof addr);
  /* Clocks follow the players (rule book, option `pie`); none runs between two moves. */
  int64_t left = room->clock.left_ms[MC_SOUTH];
  room->clock.left_ms[MC_SOUTH] = room->clock.left_ms[MC_NORTH];
  room->clock.left_ms[MC_NORTH] = left;
}

/* Whether both sides have moved in the room's current game: only then can it be lost or rated. */
static bool both_moved(const srv_room *room) {
  return srv_room__has_moved(room, MC_SOUTH) && srv_room__has_moved(room, MC_NORTH);
}

bool srv_room__has_move_deadline(const srv_room *room) {
  return !room->opts.clocked && room->opts.opponent == SRV_OPP_HUMAN &&
         room->rooms->limits.move_deadline_ms > 0;
}

void srv_room__start_turn_clock(srv_room *room) {
  room->first_deadline = 0;
  room->move_deadline = 0;
  if (room->status != SRV_PLAYING)
    return;
  srv_rooms *rooms = room->rooms;
  uint64_t now = rooms->time->now(rooms->time);
  if (srv_room__has_move_deadline(room)) {
    /* Untimed, between people: each move has a deadline (the clock's timer is free for it). */
    int64_t ms = rooms->limits.move_deadline_ms;
    room->move_deadline = now + (uint64_t)ms;
    /* Armed to fire no later than the new deadline (the last move's): left as it is, and armed
     * again for the rest when it fires (srv_room__on_clock()). */
    if (room->clock_due == 0 || room->clock_due > room->move_deadline)
      srv_room__arm(room, room->clock_timer, ms);
    return;
  }
  if (!room->opts.clocked)
    return;
  int turn = mc_game_pos(room->game)->turn;
  if (!srv_room__has_moved(room, turn)) {
    /* As on lichess: no clock runs before a side's first move, which has a deadline of its own
     * (South's at the start, North's after South's first turn). */
    int64_t ms =
        room->opts.initial_ms < SRV_FIRST_MOVE_MS ? room->opts.initial_ms : SRV_FIRST_MOVE_MS;
    srv_clock_stop(&room->clock, now);
    room->first_deadline = now + (uint64_t)ms;
    srv_room__arm(room, room->clock_timer, ms);
    return;
  }
  srv_clock_start(&room->clock, turn, now);
  srv_room__arm(room, room->clock_timer, srv_clock_until_flag(&room->clock, now));
}

/* The address player (borrowed) is connected from now, "" when it has no connection: the first
 * of its connections. */
static void addr_of(const srv_player *p, char out[64]) {
  out[0] = '\0';
  srv_list *first = p != NULL ? srv_list_first(&p->clients) : NULL;
  if (first != NULL)
    snprintf(out, 64, "%s", srv_list_entry(first, srv_client, of_player)->addr);
}

void srv_room__start_game(srv_room *room) {
  srv_status status = room->status;
  room->aborted = false;
  for (int s = 0; s < 2; s++)
    addr_of(room->seat[s], room->seat_addr[s]);
  room->game_no++;
  room->game_id = srv_rooms__take_game_id(room->rooms);
  room->status = SRV_PLAYING; /* For the record only: set_status() below counts it. */
  srv_room__record(room, SRV_RECORD_GAME_STARTED, -1, 0);
  room->status = status;
  memset(&room->rating, 0, sizeof room->rating);
  room->last_seat = -1;
  room->trace_len = 0;
  srv_room__offers_clear(room);
  room->rematch[0] = room->rematch[1] = false;
  srv_clock_init(&room->clock, room->opts.initial_ms, room->opts.increment_ms);
  srv_room__set_status(room, SRV_PLAYING);
  srv_room__disarm(room, room->finished_timer);
  srv_room__start_turn_clock(room);
  srv_room__presence(room);
  srv_metrics_game_started(room->opts.rules.kind);
}

/* Whether room's game counts for the ratings: a rated room with two accounts. */
static bool rated(const srv_room *room) {
  const srv_player *a = room->seat[0], *b = room->seat[1];
  return room->opts.rated && a != NULL && b != NULL && a != b && a->account && b->account &&
         (int)room->opts.rules.kind < SRV_RATED_GAMES;
}

/* How much the game that just ended counts (srv_rating_weight()): counted for its pair of players
 * and, when both sat down from one address, for that address; the lesser weight. */
static double repeat_weight(srv_room *room, int64_t now_ms) {
  const srv_player *a = room->seat[0], *b = room->seat[1];
  char key[96];
  bool a_first = strcmp(a->id, b->id) < 0;
  snprintf(key, sizeof key, "pair:%s:%s", a_first ? a->id : b->id, a_first ? b->id : a->id);
  double w = srv_rating_weight(srv_rating_repeats_add(room->rooms->repeats, key, now_ms));
  if (room->seat_addr[0][0] != '\0' && strcmp(room->seat_addr[0], room->seat_addr[1]) == 0) {
    snprintf(key, sizeof key, "addr:%s", room->seat_addr[0]);
    double wa = srv_rating_weight_addr(srv_rating_repeats_add(room->rooms->repeats, key, now_ms));
    w = wa < w ? wa : w;
  }
  return w;
}

/* Rates the game that just ended with result from the ratings its players hold (an account's are
 * read at login and kept up to date by every game it ends), and gives them the new ones; the
 * change is recorded with the result. A game where a side never moved is not rated; a repeated
 * game counts less, or not at all (repeat_weight()). */
static void rate(srv_room *room, const mc_result *result) {
  room->rating.known = false;
  if (!rated(room) || result->reason == MC_REASON_NONE || !both_moved(room))
    return;
  int kind = (int)room->opts.rules.kind;
  srv_rating_change *c = &room->rating;
  srv_rooms *rooms = room->rooms;
  c->ended_ms = rooms->time->wall(rooms->time);
  for (int s = 0; s < 2; s++)
    c->before[s] = room->seat[s]->ratings[kind];
  if (srv_rating_game(c->before, result->winner, c->ended_ms, c->after, c->diff) != 0) {
    srv_log_error("room", "%s: the ratings cannot be computed", room->code);
    return;
  }
  double weight = repeat_weight(room, c->ended_ms);
  if (weight <= 0.0) {
    srv_log_info("room", "%s: a repeated rated game of the same players: not rated", room->code);
    return;
  }
  if (weight < 1.0)
    srv_rating_scale(c->before, weight, c->after, c->diff);
  c->known = true;
  for (int s = 0; s < 2; s++)
    room->seat[s]->ratings[kind] = c->after[s];
}

void srv_room__unrate(srv_room *room) {
  int kind = (int)room->opts.rules.kind;
  for (int s = 0; s < 2 && room->rating.known; s++) {
    if (room->seat[s] != NULL)
      room->seat[s]->ratings[kind] = room->rating.before[s];
  }
  room->rating.known = false;
}

/* What finish and abort share: the clocks, timers, offers and status of a game that ended. */
static void ended(srv_room *room) {
  srv_rooms *rooms = room->rooms;
  srv_clock_stop(&room->clock, rooms->time->now(rooms->time));
  srv_room__disarm(room, room->clock_timer);
  room->first_deadline = 0;
  room->move_deadline = 0;
  srv_room__offers_clear(room);
  room->rematch[0] = room->rematch[1] = false;
  srv_room__set_status(room, SRV_FINISHED);
  srv_room__presence(room);
  srv_room__arm(room, room->finished_timer, rooms->limits.finished_ms);
}

void srv_room__abort(srv_room *room) {
  room->aborted = true;
  room->rating.known = false;
  ended(room);
  srv_room__record(room, SRV_RECORD_GAME_FINISHED, -1, 0);
  srv_log_debug("room", "%s: game %d aborted", room->code, room->game_no);
}

void srv_room__finish(srv_room *room, mc_reason reason, mc_winner winner) {
  if (reason != MC_REASON_NONE && rated(room) && !both_moved(room)) {
    srv_room__abort(room); /* A rated game nobody started is not lost: no farming of ratings. */
    return;
  }
  if (reason != MC_REASON_NONE) {
    int rc = mc_game_finish(room->game, reason, winner);
    if (rc != 0)
      srv_log_error("room", "%s: mc_game_finish: %s", room->code, mc_strerror(rc));
  }
  mc_result result;
  if (!mc_game_over(room->game, &result))
    result.reason = MC_REASON_NONE;
  ended(room);
  srv_metrics_game_finished(room->opts.rules.kind, result.reason);
  rate(room, &result);
  srv_room__record(room, SRV_RECORD_GAME_FINISHED, -1, 0);
  srv_log_debug("room", "%s: game %d over: %s", room->code, room->game_no,
                mc_reason_name(result.reason));
}

/* ---- The timers ---------------------------------------------------------------------------- */

void srv_room__on_clock(void *arg) {
  srv_room *room = arg;
  srv_rooms *rooms = room->rooms;
  room->clock_due = 0; /* Fired. */
  if (room->status != SRV_PLAYING)
    return;
  uint64_t now = rooms->time->now(rooms->time);
  if (room->move_deadline != 0) {
    /* An untimed game's move deadline: the side to move did not move, it loses by abandonment. */
    if (now < room->move_deadline) {
      srv_room__arm(room, room->clock_timer, (int64_t)(room->move_deadline - now));
      return;
    }
    int loser = mc_game_pos(room->game)->turn;
    srv_room__finish(room, MC_REASON_ABANDONED, loser == MC_SOUTH ? MC_WIN_NORTH : MC_WIN_SOUTH);
    srv_room__broadcast(room, NULL, NULL, NULL);
    return;
  }
  if (room->first_deadline != 0) {
    /* Before a side's first move: its deadline. When it passes the game is aborted. */
    if (now < room->first_deadline) {
      srv_room__arm(room, room->clock_timer, (int64_t)(room->first_deadline - now));
      return;
    }
    srv_room__abort(room);
    srv_room__broadcast(room, NULL, NULL, NULL);
    return;
  }
  if (room->clock.running < 0)
    return;
  if (!srv_clock_flagged(&room->clock, now)) {
    srv_room__arm(room, room->clock_timer, srv_clock_until_flag(&room->clock, now));
    return;
  }
  int loser = room->clock.running;
  srv_room__finish(room, MC_REASON_TIMEOUT, loser == MC_SOUTH ? MC_WIN_NORTH : MC_WIN_SOUTH);
  srv_room__broadcast(room, NULL, NULL, NULL);
}

void srv_room__on_abandon(void *arg) {
  srv_room *room = arg;
  if (room->status != SRV_PLAYING || room->abandon_seat < 0)
    return;
  int loser = room->abandon_seat;
  srv_room__finish(room, MC_REASON_ABANDONED, loser == MC_SOUTH ? MC_WIN_NORTH : MC_WIN_SOUTH);
  srv_room__broadcast(room, NULL, NULL, NULL);
}

void srv_rooms_forfeit(srv_rooms *rooms, srv_player *player) {
  srv_list_foreach_safe (it, &rooms->order) {
    srv_room *room = srv_list_entry(it, srv_room, order);
    bool seated = room->seat[0] == player || room->seat[1] == player;
    if (!seated)
      continue;
    if (room->status == SRV_PLAYING) {
      int loser = room->seat[0] == player && room->seat[1] == player ? mc_game_pos(room->game)->turn
                  : room->seat[0] == player                          ? MC_SOUTH
                                                                     : MC_NORTH;
      srv_room__finish(room, MC_REASON_RESIGNATION,
                       loser == MC_SOUTH ? MC_WIN_NORTH : MC_WIN_SOUTH);
      srv_room__broadcast(room, NULL, NULL, NULL);
    } else if (room->status == SRV_WAITING) {
      for (int s = 0; s < 2; s++) {
        if (room->seat[s] == player)
          srv_room__free_seat(room, s);
      }
      srv_room__changed(room);
      if (room->seat[0] == NULL && room->seat[1] == NULL) {
        srv_room__close(room, "left"); /* Unlinks it: the safe walk goes on after it. */
        continue;
      }
      srv_room__record(room, SRV_RECORD_SEATED, -1, 0);
      srv_room__broadcast(room, NULL, NULL, NULL);
    }
  }
}

/* ---- resign, draw, rematch ----------------------------------------------------------------- */

int srv_room_resign(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = srv_room__find_playing(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  int seat = srv_room__acting_seat(room, c);
  srv_room__finish(room, MC_REASON_RESIGNATION, seat == MC_SOUTH ? MC_WIN_NORTH : MC_WIN_SOUTH);
  srv_room__broadcast(room, c, &cmd->id, NULL);
  return 0;
}

int srv_room_draw(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = srv_room__find_playing(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  int you = srv_room__you(room, c);
  int seat = srv_room__acting_seat(room, c);
  /* An offer stands from the other side: for a local room, any offer. */
  bool offered = room->draw_offer >= 0 && (you == SRV_SEAT_BOTH || room->draw_offer != you);
  switch (cmd->action) {
  case SRV_DRAW_OFFER:
    if (offered || srv_room__computer_takes_draw(room, seat)) {
      srv_room__finish(room, MC_REASON_AGREEMENT, MC_DRAW);
    } else if (srv_room_computer_level(room, 1 - seat) == 0) {
      room->draw_offer = seat;
      room->draw_declined = -1;
    } else {
      room->draw_declined = seat; /* The computer declines at once: no offer stands. */
    }
    break;
  case SRV_DRAW_ACCEPT:
    if (!offered)
      return SRV_ENOOFFER;
    srv_room__finish(room, MC_REASON_AGREEMENT, MC_DRAW);
    break;
  case SRV_DRAW_DECLINE:
    if (!offered)
      return SRV_ENOOFFER;
    room->draw_declined = room->draw_offer; /* Its player sees the answer. */
    room->draw_offer = -1;
    break;
  }
  srv_room__broadcast(room, c, &cmd->id, NULL);
  return 0;
}

int srv_room_rematch(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = srv_room__find_member(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  int you = srv_room__you(room, c);
  if (you == SRV_SEAT_SPECTATOR)
    return SRV_ENOTPLAYER;
  if (room->status != SRV_FINISHED)
    return room->status == SRV_WAITING ? SRV_ENOTPLAYING : SRV_ENOTOVER;
  bool asked[2] = {room->rematch[0], room->rematch[1]};
  if (you == SRV_SEAT_BOTH)
    room->rematch[0] = room->rematch[1] = true;
  else
    room->rematch[you] = true;
  srv_room__computer_rematch(room);
  if (room->rematch[0] && room->rematch[1]) {
    mc_game *game = mc_game_new(&room->opts.rules), *old = room->game;
    if (game == NULL) {
      room->rematch[0] = asked[0];
      room->rematch[1] = asked[1];
      return SRV_ENOMEM;
    }
    /* The finished game stays until the new one's start is stored. */
    mc_game_free(room->prev.game);
    room->prev.game = old;
    room->prev.game_id = room->game_id;
    room->prev.last_seat = room->last_seat;
    room->prev.last_house = room->last_house;
    room->prev.rating = room->rating;
    room->prev.clock = room->clock;
    room->prev.batch = room->rooms->batch;
    room->prev.aborted = room->aborted;
    room->game = game;
    srv_player *south = room->seat[MC_SOUTH];
    room->seat[MC_SOUTH] = room->seat[MC_NORTH];
    room->seat[MC_NORTH] = south;
    srv_room__swap_seat_links(room);
    /* The new game's record holds the swapped seats. */
    srv_room__start_game(room);
  }
  srv_room__broadcast(room, c, &cmd->id, NULL);
  return 0;
}
