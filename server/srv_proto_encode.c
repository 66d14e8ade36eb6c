/* Protocol v1, outgoing: typed events to frames (see srv_proto.h).
 *
 * The hot frames (state, joined, error, chat, lobby) are written by the fixed-schema writer into
 * one buffer the loop thread reuses; the cold ones (welcome, left, closed, bye) are built with
 * jansson, every allocation checked. Either way a frame is complete or is not made at all.
 */
#include "srv_proto.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_jsonw.h"

/* The loop thread's writer: its buffer is kept from one frame to the next. */
static srv_jsonw out = SRV_JSONW_INIT;

/* ---- Hot frames: the writer ---------------------------------------------------------------- */

/* {"type":"<type>" and the request id when there is one. */
static void head(srv_jsonw *w, const char *type, const srv_req_id *id) {
  srv_jsonw_lit(w, "{\"type\":");
  srv_jsonw_str(w, type);
  if (id != NULL && id->kind == SRV_ID_INT) {
    srv_jsonw_lit(w, ",\"id\":");
    srv_jsonw_int(w, id->num);
  } else if (id != NULL && id->kind == SRV_ID_STR) {
    srv_jsonw_lit(w, ",\"id\":");
    srv_jsonw_str(w, id->str);
  }
}

/* The writer's text as a frame, or NULL when the writer failed or memory runs out. */
static srv_frame *finish(srv_jsonw *w, srv_event_type type, const srv_req_id *id,
                         const char *room) {
  if (w->failed)
    return NULL;
  return srv_frame_new(type, id != NULL && id->kind != SRV_ID_NONE, room, w->buf, w->len);
}

/* A seat name ("south", "north", "both", "spectator") or null. */
static void seat_or_null(srv_jsonw *w, int seat) {
  srv_jsonw_str(w, srv_name_of(srv_you_names, seat));
}

/* "room", "game", "houses", "seeds", "options": the table a state and a lobby entry share. A
 * state passes its game's own rules: a Congkak match stored before schema 3 and recovered goes on
 * under the old burn rule, which its options show ("burn"); the room's settings never hold it. */
static void board(srv_jsonw *w, const char *room, const mc_rules *rules) {
  srv_jsonw_lit(w, "\"room\":");
  srv_jsonw_str(w, room);
  srv_jsonw_lit(w, ",\"game\":");
  srv_jsonw_str(w, mc_kind_name(rules->kind));
  srv_jsonw_lit(w, ",\"houses\":");
  srv_jsonw_int(w, rules->houses);
  srv_jsonw_lit(w, ",\"seeds\":");
  srv_jsonw_int(w, rules->seeds);
  srv_jsonw_lit(w, ",\"options\":");
  srv_jsonw_options(w, rules);
}

static void state(srv_jsonw *w, const srv_state_view *v) {
  const mc_pos *pos = mc_game_pos(v->game);
  bool playing = v->status == SRV_PLAYING;
  srv_jsonw_lit(w, ",");
  board(w, v->room, mc_game_rules(v->game));
  srv_jsonw_lit(w, ",\"status\":");
  srv_jsonw_str(w, srv_name_of(srv_status_names, (int)v->status));
  srv_jsonw_lit(w, ",\"ply\":");
  srv_jsonw_int(w, (long long)mc_game_ply(v->game));
  srv_jsonw_lit(w, ",\"turn\":");
  seat_or_null(w, playing ? pos->turn : SRV_SEAT_NONE);
  srv_jsonw_lit(w, ",\"pits\":");
  srv_jsonw_pits(w, pos);
  srv_jsonw_lit(w, ",\"legal\":[");
  if (playing) {
    uint8_t moves[MC_MAX_HOUSES];
    int n = mc_game_legal(v->game, moves);
    for (int i = 0; i < n; i++) {
      if (i > 0)
        srv_jsonw_lit(w, ",");
      srv_jsonw_int(w, moves[i]);
    }
  }
  srv_jsonw_lit(w, "],\"you\":");
  seat_or_null(w, v->you);
  srv_jsonw_lit(w, ",\"players\":{");
  for (int s = 0; s < 2; s++) {
    const srv_seat_view *sv = &v->seats[s];
    if (s == 0)
      srv_jsonw_lit(w, "\"south\":");
    else
      srv_jsonw_lit(w, ",\"north\":");
    if (sv->player == NULL) {
      srv_jsonw_lit(w, "null");
      continue;
    }
    srv_jsonw_lit(w, "{\"id\":");
    srv_jsonw_str(w, sv->player->id);
    srv_jsonw_lit(w, ",\"name\":");
    srv_jsonw_str(w, sv->player->name);
    srv_jsonw_lit(w, ",\"connected\":");
    srv_jsonw_bool(w, sv->connected);
    srv_jsonw_lit(w, ",\"computer\":");
    srv_jsonw_bool(w, sv->computer);
    srv_jsonw_lit(w, "}");
  }
  srv_jsonw_lit(w, "},\"clock\":");
  if (v->clocked) {
    srv_jsonw_lit(w, "{\"south_ms\":");
    srv_jsonw_int(w, v->clock_ms[0]);
    srv_jsonw_lit(w, ",\"north_ms\":");
    srv_jsonw_int(w, v->clock_ms[1]);
    srv_jsonw_lit(w, ",\"running\":");
    seat_or_null(w, v->clock_running);
    srv_jsonw_lit(w, ",\"initial_ms\":");
    srv_jsonw_int(w, v->opts->initial_ms);
    srv_jsonw_lit(w, ",\"increment_ms\":");
    srv_jsonw_int(w, v->opts->increment_ms);
    srv_jsonw_lit(w, "}");
  } else {
    srv_jsonw_lit(w, "null");
  }
  srv_jsonw_lit(w, ",\"last\":");
  if (v->has_last) {
    srv_jsonw_lit(w, "{\"seat\":");
    seat_or_null(w, v->last_seat);
    srv_jsonw_lit(w, ",\"house\":");
    srv_jsonw_int(w, v->last_house);
    srv_jsonw_lit(w, ",\"trace\":");
    srv_jsonw_trace(w, v->trace, v->trace_len);
    srv_jsonw_lit(w, "}");
  } else {
    srv_jsonw_lit(w, "null");
  }
  srv_jsonw_lit(w, ",\"result\":");
  if (v->has_result) {
    srv_jsonw_lit(w, "{\"winner\":");
    srv_jsonw_str(w, mc_winner_name(v->result.winner));
    srv_jsonw_lit(w, ",\"reason\":");
    srv_jsonw_str(w, mc_reason_name(v->result.reason));
    srv_jsonw_lit(w, ",\"score\":[");
    srv_jsonw_int(w, v->result.score[0]);
    srv_jsonw_lit(w, ",");
    srv_jsonw_int(w, v->result.score[1]);
    srv_jsonw_lit(w, "]}");
  } else {
    srv_jsonw_lit(w, "null");
  }
  /* Additions to protocol v1 (docs/protocol.md). */
  srv_jsonw_lit(w, ",\"visibility\":");
  srv_jsonw_str(w, srv_name_of(srv_visibility_names, (int)v->opts->visibility));
  srv_jsonw_lit(w, ",\"local\":");
  srv_jsonw_bool(w, v->opts->opponent == SRV_OPP_LOCAL);
  srv_jsonw_lit(w, ",\"game_no\":");
  srv_jsonw_int(w, v->game_no);
  srv_jsonw_lit(w, ",\"game_id\":");
  if (v->game_id > 0)
    srv_jsonw_int(w, v->game_id);
  else
    srv_jsonw_lit(w, "null");
  srv_jsonw_lit(w, ",\"spectators\":");
  srv_jsonw_int(w, v->spectators);
  srv_jsonw_lit(w, ",\"round\":");
  srv_jsonw_int(w, pos->round);
  srv_jsonw_lit(w, ",\"burnt\":");
  srv_jsonw_burnt(w, pos);
  if (v->with_moves) {
    /* Only a full state lists the moves: otherwise a frame would grow with the game. */
    srv_jsonw_lit(w, ",\"moves\":[");
    size_t nmoves = 0;
    const uint8_t *mv = mc_game_moves(v->game, &nmoves);
    for (size_t i = 0; i < nmoves; i++) {
      if (i > 0)
        srv_jsonw_lit(w, ",");
      srv_jsonw_lit(w, "{\"seat\":");
      seat_or_null(w, mc_game_mover(v->game, i));
      srv_jsonw_lit(w, ",\"house\":");
      srv_jsonw_int(w, mv[i]);
      srv_jsonw_lit(w, "}");
    }
    srv_jsonw_lit(w, "]");
  }
  srv_jsonw_lit(w, ",\"draw_offer\":");
  seat_or_null(w, v->draw_offer);
  srv_jsonw_lit(w, ",\"rematch\":{\"south\":");
  srv_jsonw_bool(w, v->rematch[0]);
  srv_jsonw_lit(w, ",\"north\":");
  srv_jsonw_bool(w, v->rematch[1]);
  srv_jsonw_lit(w, "},\"abandon\":");
  if (v->abandon_seat >= 0) {
    srv_jsonw_lit(w, "{\"seat\":");
    seat_or_null(w, v->abandon_seat);
    srv_jsonw_lit(w, ",\"ms\":");
    srv_jsonw_int(w, v->abandon_ms);
    srv_jsonw_lit(w, "}");
  } else {
    srv_jsonw_lit(w, "null");
  }
  srv_jsonw_lit(w, "}");
}

static void lobby(srv_jsonw *w, const srv_lobby_entry *rooms, size_t n) {
  srv_jsonw_lit(w, ",\"rooms\":[");
  for (size_t i = 0; i < n; i++) {
    const srv_lobby_entry *e = &rooms[i];
    if (i > 0)
      srv_jsonw_lit(w, ",");
    srv_jsonw_lit(w, "{");
    board(w, e->room, &e->opts->rules);
    srv_jsonw_lit(w, ",\"code\":");
    srv_jsonw_str(w, e->room);
    srv_jsonw_lit(w, ",\"clock\":");
    if (e->opts->clocked) {
      srv_jsonw_lit(w, "{\"initial_ms\":");
      srv_jsonw_int(w, e->opts->initial_ms);
      srv_jsonw_lit(w, ",\"increment_ms\":");
      srv_jsonw_int(w, e->opts->increment_ms);
      srv_jsonw_lit(w, "}");
    } else {
      srv_jsonw_lit(w, "null");
    }
    srv_jsonw_lit(w, ",\"players\":{\"south\":");
    srv_jsonw_str(w, e->names[0]);
    srv_jsonw_lit(w, ",\"north\":");
    srv_jsonw_str(w, e->names[1]);
    srv_jsonw_lit(w, "},\"status\":");
    srv_jsonw_str(w, srv_name_of(srv_status_names, (int)e->status));
    srv_jsonw_lit(w, ",\"spectators\":");
    srv_jsonw_int(w, e->spectators);
    srv_jsonw_lit(w, "}");
  }
  srv_jsonw_lit(w, "]}");
}

static srv_frame *hot(const srv_event *ev) {
  srv_jsonw *w = &out;
  const char *room = NULL;
  bool full = false;
  srv_jsonw_reset(w);
  switch (ev->type) {
  case SRV_EV_STATE:
    head(w, "state", ev->id);
    state(w, ev->u.state);
    room = ev->u.state->room;
    full = ev->u.state->with_moves;
    break;
  case SRV_EV_LOBBY:
    head(w, "lobby", ev->id);
    lobby(w, ev->u.lobby.rooms, ev->u.lobby.n);
    break;
  case SRV_EV_JOINED:
    head(w, "joined", ev->id);
    srv_jsonw_lit(w, ",\"room\":");
    srv_jsonw_str(w, ev->u.joined.room);
    srv_jsonw_lit(w, ",\"role\":");
    srv_jsonw_str(w, srv_name_of(srv_role_names, (int)ev->u.joined.role));
    srv_jsonw_lit(w, ",\"seat\":");
    seat_or_null(w, ev->u.joined.seat);
    srv_jsonw_lit(w, "}");
    break;
  case SRV_EV_CHAT:
    head(w, "chat", ev->id);
    srv_jsonw_lit(w, ",\"room\":");
    srv_jsonw_str(w, ev->u.chat.room);
    srv_jsonw_lit(w, ",\"from\":");
    srv_jsonw_str(w, ev->u.chat.from);
    srv_jsonw_lit(w, ",\"text\":");
    srv_jsonw_str(w, ev->u.chat.text);
    srv_jsonw_lit(w, ",\"at\":");
    srv_jsonw_int(w, ev->u.chat.at);
    srv_jsonw_lit(w, "}");
    break;
  case SRV_EV_ERROR:
    head(w, "error", ev->id);
    srv_jsonw_lit(w, ",\"code\":");
    srv_jsonw_str(w, srv_err_code(ev->u.error.err));
    srv_jsonw_lit(w, ",\"message\":");
    srv_jsonw_str(w, srv_err_message(ev->u.error.err));
    if (ev->u.error.field != NULL) {
      srv_jsonw_lit(w, ",\"field\":");
      srv_jsonw_str(w, ev->u.error.field);
    }
    if (ev->u.error.request != NULL) {
      srv_jsonw_lit(w, ",\"request\":");
      srv_jsonw_str(w, ev->u.error.request);
    }
    srv_jsonw_lit(w, "}");
    break;
  default:
    return NULL;
  }
  srv_frame *f = finish(w, ev->type, ev->id, room);
  if (f != NULL)
    f->full = full;
  return f;
}

srv_frame *srv_proto_with_id(const srv_frame *f, const srv_req_id *id) {
  /* A hot frame starts with {"type":"<name>" (no escape in the name): the id goes after it. */
  const char *text = srv_frame_text(f);
  static const char start[] = "{\"type\":\"";
  if (f->len < sizeof start || memcmp(text, start, sizeof start - 1) != 0)
    return NULL;
  const char *end = memchr(text + sizeof start - 1, '"', f->len - (sizeof start - 1));
  if (end == NULL)
    return NULL;
  size_t head = (size_t)(end + 1 - text);
  srv_jsonw *w = &out;
  srv_jsonw_reset(w);
  srv_jsonw_raw(w, text, head);
  if (id->kind == SRV_ID_INT) {
    srv_jsonw_lit(w, ",\"id\":");
    srv_jsonw_int(w, id->num);
  } else if (id->kind == SRV_ID_STR) {
    srv_jsonw_lit(w, ",\"id\":");
    srv_jsonw_str(w, id->str);
  }
  srv_jsonw_raw(w, text + head, f->len - head);
  srv_frame *g = finish(w, f->type, id, f->room);
  if (g != NULL)
    g->full = f->full;
  return g;
}

/* ---- Cold frames: jansson, every allocation checked --------------------------------------- */

/* Sets key of obj to value (stolen, also on failure: jansson's *_new functions free it), and
 * remembers a failure in *failed (a NULL obj or value is one). */
static void put(bool *failed, json_t *obj, const char *key, json_t *value) {
  if (value == NULL || json_object_set_new(obj, key, value) != 0)
    *failed = true;
}

static json_t *cold_tree(const srv_event *ev, bool *failed) {
  static const char *const types[] = {[SRV_EV_WELCOME] = "welcome",
                                      [SRV_EV_LEFT] = "left",
                                      [SRV_EV_CLOSED] = "closed",
                                      [SRV_EV_BYE] = "bye"};
  json_t *o = json_object();
  put(failed, o, "type", json_string(types[ev->type]));
  if (ev->id != NULL && ev->id->kind == SRV_ID_INT)
    put(failed, o, "id", json_integer(ev->id->num));
  else if (ev->id != NULL && ev->id->kind == SRV_ID_STR)
    put(failed, o, "id", json_string(ev->id->str));
  switch (ev->type) {
  case SRV_EV_WELCOME: {
    put(failed, o, "player", json_string(ev->u.welcome.player->id));
    put(failed, o, "name", json_string(ev->u.welcome.player->name));
    if (ev->u.welcome.token != NULL)
      put(failed, o, "token", json_string(ev->u.welcome.token));
    put(failed, o, "protocol", json_integer(1));
    put(failed, o, "resumed", json_boolean(ev->u.welcome.resumed));
    json_t *features = json_object();
    put(failed, features, "computer", json_boolean(ev->u.welcome.computer));
    put(failed, features, "local", json_true());
    put(failed, features, "storage", json_boolean(ev->u.welcome.storage));
    put(failed, o, "features", features);
    json_t *limits = json_object();
    put(failed, limits, "frame_bytes", json_integer(SRV_FRAME_MAX));
    put(failed, limits, "chat_chars", json_integer(SRV_CHAT_MAX));
    put(failed, limits, "name_chars", json_integer(24));
    put(failed, o, "limits", limits);
    break;
  }
  case SRV_EV_LEFT:
    put(failed, o, "room", json_string(ev->u.left.room));
    break;
  case SRV_EV_CLOSED:
    put(failed, o, "room", json_string(ev->u.closed.room));
    put(failed, o, "reason", json_string(ev->u.closed.reason));
    break;
  case SRV_EV_BYE:
    put(failed, o, "reason", json_string(ev->u.bye.reason));
    break;
  default:
    *failed = true;
    break;
  }
  return o;
}

static srv_frame *cold(const srv_event *ev) {
  bool failed = false;
  json_t *o = cold_tree(ev, &failed);
  char *text = failed ? NULL : json_dumps(o, JSON_COMPACT);
  json_decref(o);
  if (text == NULL)
    return NULL;
  srv_frame *f = srv_frame_new(ev->type, ev->id != NULL && ev->id->kind != SRV_ID_NONE, NULL, text,
                               strlen(text));
  free(text);
  return f;
}

void srv_proto_encode_cleanup(void) {
  srv_jsonw_free(&out);
}

srv_frame *srv_proto_encode(const srv_event *ev) {
  switch (ev->type) {
  case SRV_EV_STATE:
  case SRV_EV_LOBBY:
  case SRV_EV_JOINED:
  case SRV_EV_CHAT:
  case SRV_EV_ERROR:
    return hot(ev);
  case SRV_EV_WELCOME:
  case SRV_EV_LEFT:
  case SRV_EV_CLOSED:
  case SRV_EV_BYE:
    return cold(ev);
  }
  return NULL;
}
