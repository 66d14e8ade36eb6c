/* Hints: the best move of the position for the player to move, and its value from that player's
 * side, from a search the hinter runs (srv_hints.h: a fast-lane job of the search queue). A room
 * gives hints when srv_room_opts_hints() says so: games against the computer, local games, and
 * casual rooms made with "hints"; never a rated game. Each seat asks for one at a time, and at
 * most rooms->hints_per_minute a minute (a token bucket: that many at once, then one every
 * 60 / N seconds); past it the asker gets too_many_hints with retry_after_ms. The answer comes
 * when the search is done, to the asker alone, if the room still plays the position asked
 * about (the same game, ply and position); otherwise the asker gets stale (the position moved on:
 * a move, a takeback, the end). */
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_log.h"
#include "srv_proto.h"
#include "srv_room_int.h"

#define MINUTE_MS 60000.0

/* A seat's request waiting for its search. */
typedef struct srv_room_hint_req {
  srv_client *client; /* The asker (a member: it is forgotten when it leaves). */
  srv_req_id id;      /* Its request's id. */
  int seat;           /* The side to move when it asked (the hint is for it). */
  int game_no;
  size_t ply;
  mc_pos pos; /* The position asked about: a takeback and other moves may reach the same ply. */
  uint64_t token;
} hint_req;

void srv_rooms_set_hinter(srv_rooms *rooms, const srv_room_hinter *hinter, int per_minute) {
  if (hinter != NULL)
    rooms->hinter = *hinter;
  else
    memset(&rooms->hinter, 0, sizeof rooms->hinter);
  rooms->hints_per_minute = per_minute > 0 ? per_minute : 0;
}

/* The seat's allowance now, refilled since it was last looked at (at most per_minute). */
static double tokens_now(srv_room *room, int seat, uint64_t now) {
  const int n = room->rooms->hints_per_minute;
  double t = room->hint_tokens[seat] + (double)(now - room->hint_refill[seat]) * n / MINUTE_MS;
  room->hint_refill[seat] = now;
  if (t > n)
    t = n;
  room->hint_tokens[seat] = t;
  return t;
}

static void send_error(srv_room *room, srv_client *c, int err, const srv_req_id *id,
                       int64_t retry_after_ms) {
  srv_send_error(&room->rooms->sink, c, err, id, NULL, srv_proto_cmd_name(SRV_CMD_HINT),
                 retry_after_ms);
}

int srv_room_hint(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = srv_room__find_playing(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  if (room->opts.rated)
    return SRV_EHINTSRATED;
  if (!srv_room_opts_hints(&room->opts))
    return SRV_EHINTSOFF;
  if (rooms->hinter.ask == NULL || rooms->hints_per_minute <= 0)
    return SRV_EUNSUPPORTED;
  const size_t ply = mc_game_ply(room->game);
  if (cmd->has_ply && (unsigned long long)cmd->ply != ply)
    return SRV_ESTALE;
  const int seat = srv_room__acting_seat(room, c);
  if (seat != mc_game_pos(room->game)->turn)
    return SRV_ETURN;
  if (room->hint[seat] != NULL)
    return SRV_EBUSY; /* One at a time: its answer is on its way. */
  uint64_t now = rooms->time->now(rooms->time);
  double t = tokens_now(room, seat, now);
  if (t < 1.0) {
    /* Rounded up: asking again after that long finds a whole hint. */
    int64_t wait = (int64_t)((1.0 - t) * MINUTE_MS / rooms->hints_per_minute) + 1;
    send_error(room, c, SRV_EHINTS, &cmd->id, wait);
    return 0;
  }
  hint_req *h = calloc(1, sizeof *h);
  if (h == NULL)
    return SRV_ENOMEM;
  h->client = c;
  h->id = cmd->id;
  h->seat = seat;
  h->game_no = room->game_no;
  h->ply = ply;
  h->pos = *mc_game_pos(room->game);
  h->token = ++rooms->hint_token;
  room->hint[seat] = h;
  rc = rooms->hinter.ask(rooms->hinter.ud, room, h->token);
  if (rc != 0) {
    room->hint[seat] = NULL;
    free(h);
    return rc;
  }
  room->hint_tokens[seat] = t - 1.0; /* Only a hint that was asked for counts. */
  return 0;
}

void srv_room_hint_answer(srv_room *room, uint64_t token, int rc, int house, int value, bool exact,
                          int depth) {
  int seat = -1;
  for (int s = 0; s < 2; s++)
    if (room->hint[s] != NULL && room->hint[s]->token == token)
      seat = s;
  if (seat < 0)
    return;
  hint_req *h = room->hint[seat];
  room->hint[seat] = NULL;
  if (rc != 0) {
    /* A server code, or the engine's (MC_E*, small negatives) mapped to one. */
    int err = rc > SRV_E_BASE_ && rc < SRV_E_END_ ? rc : srv_err_from_engine(rc);
    srv_log_error("hint", "%s: the search failed (%d): %s", room->code, rc, srv_err_code(err));
    send_error(room, h->client, err, &h->id, 0);
  } else if (room->status != SRV_PLAYING || room->game_no != h->game_no ||
             mc_game_ply(room->game) != h->ply ||
             memcmp(mc_game_pos(room->game), &h->pos, sizeof h->pos) != 0) {
    send_error(room, h->client, SRV_ESTALE, &h->id, 0);
  } else {
    srv_event ev = {.type = SRV_EV_HINT, .id = &h->id};
    ev.u.hint.room = room->code;
    ev.u.hint.ply = (long)h->ply;
    ev.u.hint.game_no = h->game_no;
    ev.u.hint.seat = h->seat;
    ev.u.hint.house = house;
    ev.u.hint.value = value;
    ev.u.hint.exact = exact;
    ev.u.hint.depth = depth;
    srv_room__send(room->rooms, h->client, &ev);
  }
  free(h);
}

bool srv_room__hints_on(const srv_room *room) {
  const srv_rooms *rooms = room->rooms;
  return srv_room_opts_hints(&room->opts) && rooms->hinter.ask != NULL &&
         rooms->hints_per_minute > 0;
}

void srv_room__hints_forget(srv_room *room, const srv_client *c) {
  for (int s = 0; s < 2; s++) {
    hint_req *h = room->hint[s];
    if (h == NULL || (c != NULL && h->client != c))
      continue;
    room->hint[s] = NULL;
    if (room->rooms->hinter.cancel != NULL)
      room->rooms->hinter.cancel(room->rooms->hinter.ud, room, h->token);
    free(h);
  }
}
