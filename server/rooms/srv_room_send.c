/* Every frame a room sends: the state (as each member sees it), joined, closed and chat. The
 * handlers change the room and call these; these only describe the room and queue frames.
 *
 * A room event is encoded once and the frame shared by every recipient's queue: one state frame
 * per "you" (south, north, both, spectator), one chat frame, one closed frame; the requester's
 * copy answers its request with the id spliced in (srv_proto_with_id()). A state lists the game's
 * moves only when it is full (join, resume, resync), so its size depends on the board, not on the
 * game's length. */
#include <string.h>

#include "srv_proto.h"
#include "srv_room_int.h"

void srv_room__send(srv_rooms *rooms, srv_client *c, const srv_event *ev) {
  srv_send_event(&rooms->sink, c, ev);
}

/* Everything a state shows but "you", walking the members once. */
static void state_view(const srv_room *room, srv_state_view *v) {
  srv_rooms *rooms = room->rooms;
  uint64_t now = rooms->time->now(rooms->time);
  memset(v, 0, sizeof *v);
  v->room = room->code;
  v->opts = &room->opts;
  v->game = room->game;
  v->status = room->status;
  v->game_no = room->game_no;
  for (int s = 0; s < 2; s++) {
    v->seats[s].player = room->seat[s];
    v->seats[s].computer = srv_room_computer_level(room, s) > 0;
    v->seats[s].connected = v->seats[s].computer;
  }
  srv_list_foreach (it, &room->members) {
    const srv_client *c = srv_list_entry(it, srv_member, in_room)->client;
    int you = srv_room__you(room, c);
    if (you == SRV_SEAT_SPECTATOR)
      v->spectators++;
    for (int s = 0; s < 2; s++)
      v->seats[s].connected |= room->seat[s] != NULL && c->player == room->seat[s];
  }
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
  v->draw_declined = room->draw_declined;
  v->takeback_offer = room->takeback_offer;
  v->takeback_declined = room->takeback_declined;
  v->first_move_seat = -1;
  if (room->status == SRV_PLAYING && room->first_deadline != 0) {
    v->first_move_seat = mc_game_pos(room->game)->turn;
    v->first_move_ms = room->first_deadline > now ? (int64_t)(room->first_deadline - now) : 0;
  }
  v->rematch[0] = room->rematch[0];
  v->rematch[1] = room->rematch[1];
  v->abandon_seat = room->abandon_seat;
  v->abandon_ms = 0;
  v->game_id = room->status == SRV_FINISHED ? room->game_id : 0;
  v->has_rating_change = room->status == SRV_FINISHED && room->rating.known;
  for (int s = 0; s < 2; s++) {
    v->rating_before[s] = room->rating.before[s];
    v->rating_after[s] = room->rating.after[s];
  }
  if (room->abandon_seat >= 0 && room->abandon_deadline > now)
    v->abandon_ms = (int64_t)(room->abandon_deadline - now);
}

/* Queues f (borrowed; NULL: it could not be made) for c: without a frame the client can no longer
 * be kept in step, and the sink drops it. */
static void queue(srv_rooms *rooms, srv_client *c, srv_frame *f) {
  if (f != NULL)
    srv_send_frame(&rooms->sink, c, f);
  else
    rooms->sink.lost(rooms->sink.ud, c);
}

/* Queues for c the shared frame f, or for the requester a copy of it answering id. */
static void queue_shared(srv_rooms *rooms, srv_client *c, srv_frame *f, const srv_req_id *id) {
  if (f != NULL && id != NULL && id->kind != SRV_ID_NONE) {
    srv_frame *reply = srv_proto_with_id(f, id);
    queue(rooms, c, reply);
    srv_frame_unref(reply);
  } else {
    queue(rooms, c, f);
  }
}

void srv_room__send_full(srv_room *room, srv_client *c, const srv_req_id *id) {
  srv_state_view v;
  state_view(room, &v);
  v.you = srv_room__you(room, c);
  v.with_moves = true;
  srv_event ev = {.type = SRV_EV_STATE, .id = id, .u.state = &v};
  srv_room__send(room->rooms, c, &ev);
}

void srv_room__broadcast(srv_room *room, const srv_client *requester, const srv_req_id *id,
                         const srv_client *skip) {
  srv_state_view v;
  state_view(room, &v);
  srv_event ev = {.type = SRV_EV_STATE, .u.state = &v};
  /* One frame per "you" (south, north, both, spectator), made when the first member needs it. */
  srv_frame *shared[4] = {NULL, NULL, NULL, NULL};
  bool made[4] = {false, false, false, false};
  srv_list_foreach (it, &room->members) {
    srv_client *c = srv_list_entry(it, srv_member, in_room)->client;
    if (c == skip)
      continue;
    int you = srv_room__you(room, c);
    if (!made[you]) {
      v.you = you;
      shared[you] = srv_proto_encode(&ev);
      made[you] = true;
    }
    queue_shared(room->rooms, c, shared[you], c == requester ? id : NULL);
  }
  for (int i = 0; i < 4; i++)
    srv_frame_unref(shared[i]);
}

void srv_room__send_joined(srv_room *room, srv_client *c, const srv_req_id *id) {
  int you = srv_room__you(room, c);
  srv_event ev = {.type = SRV_EV_JOINED, .id = id};
  ev.u.joined.room = room->code;
  ev.u.joined.role = you == SRV_SEAT_SPECTATOR ? SRV_ROLE_SPECTATOR : SRV_ROLE_PLAYER;
  ev.u.joined.seat = you == SRV_SEAT_SPECTATOR ? SRV_SEAT_NONE : you;
  srv_room__send(room->rooms, c, &ev);
}

void srv_room__send_chat(srv_room *room, srv_client *from, const srv_req_id *id,
                         const srv_chat_line *line) {
  srv_event ev = {.type = SRV_EV_CHAT};
  ev.u.chat.room = room->code;
  ev.u.chat.from = line->name;
  ev.u.chat.text = line->text;
  ev.u.chat.at = line->at;
  ev.u.chat.player = line->player;
  ev.u.chat.seat = line->seat;
  srv_frame *f = srv_proto_encode(&ev); /* Once, for every member. */
  srv_list_foreach (it, &room->members) {
    srv_client *c = srv_list_entry(it, srv_member, in_room)->client;
    queue_shared(room->rooms, c, f, c == from ? id : NULL);
  }
  srv_frame_unref(f);
}

void srv_room__send_chat_history(srv_room *room, srv_client *c) {
  if (room->chat_n == 0)
    return;
  const srv_chat_line *lines[SRV_CHAT_HISTORY];
  for (int i = 0; i < room->chat_n; i++)
    lines[i] = room->chat[(room->chat_first + i) % SRV_CHAT_HISTORY];
  srv_event ev = {.type = SRV_EV_CHAT_HISTORY};
  ev.u.chat_history.room = room->code;
  ev.u.chat_history.lines = lines;
  ev.u.chat_history.n = (size_t)room->chat_n;
  srv_room__send(room->rooms, c, &ev);
}

void srv_room__send_closed(srv_room *room, const char *reason) {
  srv_event ev = {.type = SRV_EV_CLOSED};
  ev.u.closed.room = room->code;
  ev.u.closed.reason = reason;
  srv_frame *f = srv_proto_encode(&ev); /* Once, for every member. */
  srv_list_foreach (it, &room->members)
    queue(room->rooms, srv_list_entry(it, srv_member, in_room)->client, f);
  srv_frame_unref(f);
}
