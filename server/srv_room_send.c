/* Every frame a room sends: the state (as each member sees it), joined, closed and chat. The
 * handlers change the room and call these; these only describe the room and queue frames. */
#include <string.h>

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
    v->seats[s].computer = false;
  }
  srv_list_foreach(it, &room->members) {
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
  v->rematch[0] = room->rematch[0];
  v->rematch[1] = room->rematch[1];
  v->abandon_seat = room->abandon_seat;
  v->abandon_ms = 0;
  v->game_id = room->status == SRV_FINISHED ? room->game_id : 0;
  if (room->abandon_seat >= 0 && room->abandon_deadline > now)
    v->abandon_ms = (int64_t)(room->abandon_deadline - now);
}

void srv_room__send_state(srv_room *room, srv_client *c, const srv_req_id *id) {
  srv_state_view v;
  state_view(room, &v);
  v.you = srv_room__you(room, c);
  srv_event ev = {.type = SRV_EV_STATE, .id = id, .u.state = &v};
  srv_room__send(room->rooms, c, &ev);
}

void srv_room__broadcast(srv_room *room, const srv_client *requester, const srv_req_id *id) {
  srv_state_view v;
  state_view(room, &v);
  srv_event ev = {.type = SRV_EV_STATE, .u.state = &v};
  srv_list_foreach(it, &room->members) {
    srv_client *c = srv_list_entry(it, srv_member, in_room)->client;
    v.you = srv_room__you(room, c);
    ev.id = c == requester ? id : NULL;
    srv_room__send(room->rooms, c, &ev);
  }
}

void srv_room__send_joined(srv_room *room, srv_client *c, const srv_req_id *id) {
  int you = srv_room__you(room, c);
  srv_event ev = {.type = SRV_EV_JOINED, .id = id};
  ev.u.joined.room = room->code;
  ev.u.joined.role = you == SRV_SEAT_SPECTATOR ? SRV_ROLE_SPECTATOR : SRV_ROLE_PLAYER;
  ev.u.joined.seat = you == SRV_SEAT_SPECTATOR ? SRV_SEAT_NONE : you;
  srv_room__send(room->rooms, c, &ev);
}

void srv_room__send_chat(srv_room *room, srv_client *from, const srv_req_id *id, const char *text,
                         int64_t at) {
  srv_event ev = {.type = SRV_EV_CHAT};
  ev.u.chat.room = room->code;
  ev.u.chat.from = from->player->name;
  ev.u.chat.text = text;
  ev.u.chat.at = at;
  srv_list_foreach(it, &room->members) {
    srv_client *c = srv_list_entry(it, srv_member, in_room)->client;
    ev.id = c == from ? id : NULL;
    srv_room__send(room->rooms, c, &ev);
  }
}

void srv_room__send_closed(srv_room *room, srv_client *c, const char *reason) {
  srv_event ev = {.type = SRV_EV_CLOSED};
  ev.u.closed.room = room->code;
  ev.u.closed.reason = reason;
  srv_room__send(room->rooms, c, &ev);
}
