/* Every frame a room sends: the state (as each member sees it), joined, closed and chat. The
 * handlers change the room and call these; these only describe the room and queue frames.
 *
 * States wait for the turn's commit: a room keeps what it owes (srv_room_out: a copy of each ply's
 * state, or a full state owed to one client) and the end of the loop turn, after the commit and
 * after a lost batch's states were taken back, encodes them (srv_rooms_flush()). A client that
 * reads promptly so gets a state for every ply; two changes of one ply make one state.
 *
 * A room event is encoded once and the frame shared by every recipient's queue: one state frame
 * per "you" (south, north, both, spectator), one chat frame, one closed frame; the requester's
 * copy answers its request with the id spliced in (srv_proto_with_id()). A state lists the game's
 * moves only when it is full (join, resume, resync), so its size depends on the board, not on the
 * game's length. */
#include <stdlib.h>
#include <string.h>

#include "srv_log.h"

#include "srv_proto.h"
#include "srv_room_int.h"

void srv_room__send(srv_rooms *rooms, srv_client *c, const srv_event *ev) {
  srv_send_event(&rooms->sink, c, ev);
}

/* Everything a state shows but "you", walking the members once. */
static void state_view(srv_room *room, srv_state_view *v) {
  srv_rooms *rooms = room->rooms;
  uint64_t now = rooms->time->now(rooms->time);
  memset(v, 0, sizeof *v);
  v->cache = &room->state_cache; /* The encoder's to update, the room's to free. */
  v->room = room->code;
  v->opts = &room->opts;
  v->game = room->game;
  v->status = room->status;
  v->game_no = room->game_no;
  v->hints = srv_room__hints_on(room);
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
  v->trace = room->trace != NULL ? room->trace->v : NULL;
  v->trace_len = room->trace != NULL ? room->trace_len : 0;
  v->has_result = room->status == SRV_FINISHED && mc_game_over(room->game, &v->result);
  v->aborted = room->status == SRV_FINISHED && room->aborted;
  v->draw_offer = room->draw_offer;
  v->draw_declined = room->draw_declined;
  v->takeback_offer = room->takeback_offer;
  v->takeback_declined = room->takeback_declined;
  v->first_move_seat = -1;
  if (room->status == SRV_PLAYING && room->first_deadline != 0) {
    v->first_move_seat = mc_game_pos(room->game)->turn;
    v->first_move_ms = room->first_deadline > now ? (int64_t)(room->first_deadline - now) : 0;
  }
  v->has_move_deadline = room->status == SRV_PLAYING && room->move_deadline != 0;
  if (v->has_move_deadline) {
    v->move_deadline_seat = mc_game_pos(room->game)->turn;
    v->move_deadline_ms = room->move_deadline > now ? (int64_t)(room->move_deadline - now) : 0;
  }
  v->rematch[0] = room->rematch[0];
  v->rematch[1] = room->rematch[1];
  v->abandon_seat = room->abandon_seat;
  v->abandon_ms = 0;
  v->game_id = room->status == SRV_FINISHED && !room->aborted ? room->game_id : 0;
  v->has_rating_change = room->status == SRV_FINISHED && room->rating.known;
  for (int s = 0; s < 2; s++) {
    v->rating_before[s] = room->rating.before[s].rating;
    v->rating_after[s] = room->rating.after[s].rating;
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

/* ---- What a room owes: states kept until the turn's commit ---------------------------------- */

/* Frees what entry e holds. */
static void out_clear(srv_rooms *rooms, srv_room_out *e) {
  srv_room__steps_unref(e->trace);
  e->trace = NULL;
  free((char *)e->chat.text);
  e->chat.text = NULL;
  for (int s = 0; s < 2; s++) {
    if (e->players[s] != NULL)
      srv_ident_unref(rooms->ident, e->players[s]);
    e->players[s] = NULL;
  }
}

/* A new entry at the end of room's list, linking room into rooms->changed; NULL when memory runs
 * out. */
static srv_room_out *out_push(srv_room *room) {
  if (room->n_out == room->cap_out) {
    size_t cap = room->cap_out ? 2 * room->cap_out : 4;
    srv_room_out *v = realloc(room->out, cap * sizeof *v);
    if (v == NULL)
      return NULL;
    room->out = v;
    room->cap_out = cap;
  }
  srv_room_out *e = &room->out[room->n_out++];
  memset(e, 0, sizeof *e);
  e->seq = ++room->rooms->out_seq;
  e->batch = room->rooms->batch;
  if (!srv_list_linked(&room->changed))
    srv_list_push_back(&room->rooms->changed, &room->changed);
  return e;
}

void srv_room__send_full(srv_room *room, srv_client *c, const srv_req_id *id) {
  srv_room_out *e = out_push(room);
  if (e == NULL) {
    room->rooms->sink.lost(room->rooms->sink.ud, c);
    return;
  }
  e->kind = SRV_OUT_FULL;
  e->to = c;
  if (id != NULL)
    e->id = *id;
}

/* Fills e with a copy of the state room shows now. Returns false when memory runs out. */
static bool snapshot(srv_room *room, srv_room_out *e) {
  state_view(room, &e->v);
  e->pos = *mc_game_pos(room->game);
  e->rules = *mc_game_rules(room->game);
  e->v.nlegal = room->status == SRV_PLAYING ? mc_game_legal(room->game, e->legal) : 0;
  e->v.can_swap = room->status == SRV_PLAYING && mc_game_can_swap(room->game);
  e->v.ply = (long)mc_game_ply(room->game);
  e->v.game = NULL;
  e->game_id = room->game_id;
  e->ply = e->v.ply;
  if (room->trace != NULL && room->trace_len > 0) {
    e->trace = room->trace; /* Shared: the room's next move writes into another buffer. */
    e->trace->refs++;
  }
  for (int s = 0; s < 2; s++) {
    e->players[s] = room->seat[s];
    if (e->players[s] != NULL)
      srv_ident_ref(e->players[s]);
  }
  return true;
}

void srv_room__broadcast(srv_room *room, srv_client *requester, const srv_req_id *id,
                         srv_client *skip) {
  bool answers = requester != NULL && id != NULL && id->kind != SRV_ID_NONE;
  /* A newer state of the same ply replaces the one owed before it (presence, offers, clocks),
   * keeping the request that one answers: states are owed per ply, not per change. */
  srv_room_out *last = room->n_out > 0 ? &room->out[room->n_out - 1] : NULL;
  if (last != NULL && last->kind == SRV_OUT_STATE && last->batch == room->rooms->batch &&
      last->skip == skip && last->game_id == room->game_id && last->v.game_no == room->game_no &&
      last->ply == (long)mc_game_ply(room->game) && (!answers || last->requester == NULL)) {
    srv_client *kept = last->requester;
    srv_req_id kept_id = last->id;
    out_clear(room->rooms, last);
    if (!snapshot(room, last)) {
      room->n_out--;
      srv_log_error("room", "%s: out of memory: a state is not sent", room->code);
      return;
    }
    last->requester = answers ? requester : kept;
    last->id = answers ? *id : kept_id;
    return;
  }
  srv_room_out *e = out_push(room);
  if (e == NULL || !snapshot(room, e)) {
    if (e != NULL) {
      out_clear(room->rooms, e);
      room->n_out--;
    }
    srv_log_error("room", "%s: out of memory: a state is not sent", room->code);
    if (requester != NULL)
      room->rooms->sink.lost(room->rooms->sink.ud, requester);
    return;
  }
  e->skip = skip;
  if (answers) {
    e->requester = requester;
    e->id = *id;
  }
}

static void send_history(srv_room *room, srv_client *c);
static void send_joined(srv_room *room, srv_client *c, const srv_req_id *id);
static void send_chat(srv_room *room, const srv_room_out *e);

/* Encodes entry e once per "you" (south, north, both, spectator) when the first member needs it,
 * and queues it for every member that was in the room when it was owed. */
static void deliver(srv_room *room, srv_room_out *e) {
  if (e->kind != SRV_OUT_STATE && e->kind != SRV_OUT_CHAT && e->to == NULL)
    return;
  if (e->kind == SRV_OUT_HISTORY) {
    send_history(room, e->to);
    return;
  }
  if (e->kind == SRV_OUT_JOINED) {
    send_joined(room, e->to, e->id.kind != SRV_ID_NONE ? &e->id : NULL);
    return;
  }
  if (e->kind == SRV_OUT_CHAT) {
    send_chat(room, e);
    return;
  }
  if (e->kind == SRV_OUT_FULL) {
    srv_state_view v;
    state_view(room, &v);
    v.you = srv_room__you(room, e->to);
    v.with_moves = true;
    srv_event ev = {.type = SRV_EV_STATE, .u.state = &v};
    ev.id = e->id.kind != SRV_ID_NONE ? &e->id : NULL;
    srv_room__send(room->rooms, e->to, &ev);
    /* Made from the room now, it shows the plies owed after it too (a move of this turn after a
     * join): sent again after it, they would go back in time. */
    srv_member *m = srv_room__member(room, e->to);
    if (m != NULL)
      m->shown = room->rooms->out_seq;
    return;
  }
  srv_state_view *v = &e->v;
  v->pos = &e->pos;
  v->rules = &e->rules;
  v->legal = e->legal;
  v->trace = e->trace != NULL ? e->trace->v : NULL;
  for (int s = 0; s < 2; s++)
    v->seats[s].player = e->players[s];
  srv_event ev = {.type = SRV_EV_STATE, .u.state = v};
  /* One frame per "you" (south, north, both, spectator), shared by every member who sees it: the
   * first one encoded, the others copies of it with their "you" replaced. */
  srv_frame *shared[4] = {NULL, NULL, NULL, NULL};
  srv_frame *first = NULL;
  bool made[4] = {false, false, false, false};
  srv_list_foreach (it, &room->members) {
    srv_member *m = srv_list_entry(it, srv_member, in_room);
    srv_client *c = m->client;
    if (c == e->skip || m->since >= e->seq || (m->shown >= e->seq && c != e->requester))
      continue;
    int you = srv_room__you(room, c);
    if (!made[you]) {
      if (first != NULL) {
        shared[you] = srv_proto_with_you(first, you);
      } else {
        v->you = you;
        shared[you] = first = srv_proto_encode(&ev);
      }
      made[you] = true;
    }
    queue_shared(room->rooms, c, shared[you], c == e->requester ? &e->id : NULL);
  }
  for (int i = 0; i < 4; i++)
    srv_frame_unref(shared[i]);
}

void srv_room__flush(srv_room *room, uint64_t upto) {
  /* deliver() may not add entries (it only encodes and queues), so the list stays put. The
   * entries are in batch order: the committed ones are a prefix. */
  size_t n = 0;
  while (n < room->n_out && room->out[n].batch <= upto) {
    deliver(room, &room->out[n]);
    out_clear(room->rooms, &room->out[n]);
    n++;
  }
  if (n > 0 && n < room->n_out)
    memmove(room->out, room->out + n, (room->n_out - n) * sizeof *room->out);
  room->n_out -= n;
  if (room->n_out == 0)
    srv_list_remove(&room->changed);
  if (room->prev.game != NULL && room->prev.batch <= upto) {
    mc_game_free(room->prev.game); /* The rematch's game is stored: no way back any more. */
    room->prev.game = NULL;
  }
}

uint64_t srv_rooms_seal(srv_rooms *rooms) {
  return rooms->batch++;
}

void srv_rooms_flush(srv_rooms *rooms, uint64_t upto) {
  srv_list *it = srv_list_first(&rooms->changed);
  while (it != NULL) {
    srv_list *next = srv_list_next(&rooms->changed, it);
    srv_room__flush(srv_list_entry(it, srv_room, changed), upto);
    it = next;
  }
}

void srv_room__forget_client(srv_room *room, const srv_client *c) {
  for (size_t i = 0; i < room->n_out; i++) {
    srv_room_out *e = &room->out[i];
    if (e->to == c)
      e->to = NULL;
    if (e->requester == c)
      e->requester = NULL;
    if (e->skip == c)
      e->skip = NULL;
  }
}

size_t srv_room__take_back_owed(srv_room *room, int64_t game_id, long lost_ply, srv_client **who,
                                srv_req_id *ids, size_t max) {
  size_t n = 0, kept = 0;
  for (size_t i = 0; i < room->n_out; i++) {
    srv_room_out *e = &room->out[i];
    if (e->kind == SRV_OUT_STATE && e->game_id == game_id && e->ply > lost_ply) {
      if (e->requester != NULL && n < max) {
        who[n] = e->requester;
        ids[n++] = e->id;
      }
      out_clear(room->rooms, e);
      continue;
    }
    room->out[kept++] = *e;
  }
  room->n_out = kept;
  return n;
}

void srv_room__owed_free(srv_room *room) {
  for (size_t i = 0; i < room->n_out; i++)
    out_clear(room->rooms, &room->out[i]);
  free(room->out);
  room->out = NULL;
  room->n_out = room->cap_out = 0;
  srv_list_remove(&room->changed);
}

void srv_room__send_joined(srv_room *room, srv_client *c, const srv_req_id *id) {
  srv_room_out *e = out_push(room);
  if (e == NULL) {
    room->rooms->sink.lost(room->rooms->sink.ud, c);
    return;
  }
  e->kind = SRV_OUT_JOINED;
  e->to = c;
  if (id != NULL)
    e->id = *id;
}

static void send_joined(srv_room *room, srv_client *c, const srv_req_id *id) {
  int you = srv_room__you(room, c);
  srv_event ev = {.type = SRV_EV_JOINED, .id = id};
  ev.u.joined.room = room->code;
  ev.u.joined.role = you == SRV_SEAT_SPECTATOR ? SRV_ROLE_SPECTATOR : SRV_ROLE_PLAYER;
  ev.u.joined.seat = you == SRV_SEAT_SPECTATOR ? SRV_SEAT_NONE : you;
  srv_room__send(room->rooms, c, &ev);
}

void srv_room__send_chat(srv_room *room, srv_client *from, const srv_req_id *id,
                         const srv_chat_line *line) {
  srv_room_out *e = out_push(room);
  char *text = e != NULL ? strdup(line->text) : NULL;
  if (text == NULL) {
    if (e != NULL)
      room->n_out--;
    srv_log_error("room", "%s: out of memory: a chat line is not sent", room->code);
    return;
  }
  e->kind = SRV_OUT_CHAT;
  e->chat = *line;
  e->chat.text = text;
  e->requester = from;
  if (id != NULL)
    e->id = *id;
}

static void send_chat(srv_room *room, const srv_room_out *e) {
  srv_event ev = {.type = SRV_EV_CHAT};
  ev.u.chat.room = room->code;
  ev.u.chat.from = e->chat.name;
  ev.u.chat.text = e->chat.text;
  ev.u.chat.at = e->chat.at;
  ev.u.chat.player = e->chat.player;
  ev.u.chat.seat = e->chat.seat;
  ev.u.chat.account = e->chat.account;
  srv_frame *f = srv_proto_encode(&ev); /* Once, for every member. */
  srv_list_foreach (it, &room->members) {
    srv_member *m = srv_list_entry(it, srv_member, in_room);
    if (m->since >= e->seq)
      continue; /* It came in later: the line is in its history. */
    queue_shared(room->rooms, m->client, f, m->client == e->requester ? &e->id : NULL);
  }
  srv_frame_unref(f);
}

void srv_room__send_chat_history(srv_room *room, srv_client *c) {
  srv_room_out *e = out_push(room);
  if (e == NULL) {
    room->rooms->sink.lost(room->rooms->sink.ud, c);
    return;
  }
  e->kind = SRV_OUT_HISTORY;
  e->to = c;
}

/* Sends c the room's last chat lines, when it has any. */
static void send_history(srv_room *room, srv_client *c) {
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
