/* Protocol v1, outgoing: typed events to frames (see srv_proto.h).
 *
 * The hot frames (state, joined, error, chat, lobby) are written by the fixed-schema writer into
 * one buffer the loop thread reuses; the cold ones (welcome, left, closed, bye) are built with
 * jansson, every allocation checked. Either way a frame is complete or is not made at all.
 */
#include "srv_gameid.h"
#include "srv_proto.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_eval.h"
#include "srv_error.h"
#include "srv_jsonw.h"
#include "srv_names.h"
#include "srv_rating.h"

/* The loop thread's writer: its buffer is kept from one frame to the next. */
static srv_jsonw out = SRV_JSONW_INIT;

/* ---- Hot frames: the writer ---------------------------------------------------------------- */

/* {"type":"<type>" and the request id when there is one. */
static void head(srv_jsonw *w, const char *type, const srv_req_id *id) {
  srv_jsonw_lit(w, "{\"type\":");
  srv_jsonw_name(w, type);
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

/* The seats' names in quotes ("south", "north", "both", "spectator", from srv_you_names) and, last,
 * null for any other value: made once, written as entries of a constant size (a state holds eight
 * of them or more). */
#define SEAT_TEXTS 5
typedef struct seat_text {
  char text[16];
  size_t len;
} seat_text;
static seat_text seat_texts[SEAT_TEXTS];
static pthread_once_t seat_texts_once = PTHREAD_ONCE_INIT;

static void seat_texts_make(void) {
  for (int i = 0; i < SEAT_TEXTS; i++) {
    const char *name = i < SEAT_TEXTS - 1 ? srv_name_of(srv_you_names, i) : NULL;
    int n = name != NULL ? snprintf(seat_texts[i].text, sizeof seat_texts[i].text, "\"%s\"", name)
                         : snprintf(seat_texts[i].text, sizeof seat_texts[i].text, "null");
    seat_texts[i].len = n > 0 && (size_t)n < sizeof seat_texts[i].text ? (size_t)n : 0;
  }
}

/* A seat name ("south", "north", "both", "spectator") or null. */
static void seat_or_null(srv_jsonw *w, int seat) {
  pthread_once(&seat_texts_once, seat_texts_make);
  const seat_text *t = &seat_texts[seat >= 0 && seat < SEAT_TEXTS - 1 ? seat : SEAT_TEXTS - 1];
  srv_jsonw_entry(w, t->text, sizeof t->text, t->len);
}

/* A rating as the protocol shows it: rounded to a whole number. */
static long long rounded(double rating) {
  return (long long)llround(rating);
}

/* An account's rating in kind, or null for a guest. */
static void rating_or_null(srv_jsonw *w, const srv_player *p, mc_kind kind) {
  if (p != NULL && p->account && (int)kind >= 0 && (int)kind < SRV_RATED_GAMES)
    srv_jsonw_int(w, rounded(p->ratings[kind].rating));
  else
    srv_jsonw_lit(w, "null");
}

/* "room", "game", "houses", "seeds", "options": the table a state and a lobby entry share. A
 * state passes its game's own rules: a Congkak match stored before schema 3 and recovered goes on
 * under the old burn rule, which its options show ("burn"); the room's settings never hold it. */
static void board(srv_jsonw *w, const char *room, const mc_rules *rules) {
  srv_jsonw_lit(w, "\"room\":");
  srv_jsonw_str(w, room);
  srv_jsonw_lit(w, ",\"game\":");
  srv_jsonw_name(w, mc_kind_name(rules->kind));
  srv_jsonw_lit(w, ",\"houses\":");
  srv_jsonw_int(w, rules->houses);
  srv_jsonw_lit(w, ",\"seeds\":");
  srv_jsonw_int(w, rules->seeds);
  srv_jsonw_lit(w, ",\"options\":");
  srv_jsonw_options(w, rules);
}

/* ---- The parts of a state a room keeps (srv_state_cache) ------------------------------------ */

void srv_state_cache_free(srv_state_cache *cache) {
  if (cache == NULL)
    return;
  free(cache->players.text);
  free(cache->board.text);
  memset(cache, 0, sizeof *cache);
}

/* Keeps the writer's text from start on as p's text; p stays invalid when memory runs out. */
static void piece_keep(srv_state_piece *p, const srv_jsonw *w, size_t start) {
  size_t n = w->len - start;
  p->valid = false;
  if (w->failed)
    return;
  if (n > p->cap) {
    char *t = realloc(p->text, n);
    if (t == NULL)
      return;
    p->text = t;
    p->cap = n;
  }
  memcpy(p->text, w->buf + start, n);
  p->len = n;
  p->valid = true;
}

/* Whether the options of a and b are written the same (srv_jsonw_options()). */
static bool same_rules(const mc_rules *a, const mc_rules *b) {
  return a->kind == b->kind && a->houses == b->houses && a->seeds == b->seeds &&
         a->empty_capture == b->empty_capture && a->grand_slam == b->grand_slam &&
         a->lap_capture == b->lap_capture && a->match == b->match && a->burn == b->burn &&
         a->pie == b->pie;
}

/* board(), copied from the cache when the room's code and rules are the ones it was written for. */
static void board_cached(srv_jsonw *w, srv_state_cache *cache, const char *room,
                         const mc_rules *rules) {
  if (cache == NULL || room == NULL || strlen(room) > SRV_CODE_LEN) {
    board(w, room, rules);
    return;
  }
  if (cache->board.valid && strcmp(cache->room, room) == 0 && same_rules(&cache->rules, rules)) {
    srv_jsonw_raw(w, cache->board.text, cache->board.len);
    return;
  }
  size_t start = w->len;
  board(w, room, rules);
  piece_keep(&cache->board, w, start);
  strcpy(cache->room, room);
  memset(&cache->rules, 0, sizeof cache->rules);
  cache->rules.kind = rules->kind;
  cache->rules.houses = rules->houses;
  cache->rules.seeds = rules->seeds;
  cache->rules.empty_capture = rules->empty_capture;
  cache->rules.grand_slam = rules->grand_slam;
  cache->rules.lap_capture = rules->lap_capture;
  cache->rules.match = rules->match;
  cache->rules.burn = rules->burn;
  cache->rules.pie = rules->pie;
}

/* What seat sv of the "players" object shows, kind the room's game (for the rating). id and name
 * are not copied: same_seat() compares them with the player's. */
static void seat_facts(srv_seat_facts *f, const srv_seat_view *sv, mc_kind kind) {
  const srv_player *p = sv->player;
  f->present = p != NULL;
  if (p == NULL)
    return;
  f->connected = sv->connected;
  f->computer = sv->computer;
  /* Whether the name is an account's (a client marks it: a guest cannot pass for it). */
  f->account = !sv->computer && p->account && !p->deleted;
  /* The computer's level, so that a client can word its name in its own language. */
  f->level = sv->computer && p->computer > 0 ? p->computer : 0;
  f->has_rating = p->account && (int)kind >= 0 && (int)kind < SRV_RATED_GAMES;
  f->rating = f->has_rating ? rounded(p->ratings[kind].rating) : 0;
  f->provisional = p->account && p->ratings[kind].rd > SRV_RATING_PROVISIONAL_RD;
}

/* Whether f (this state's, without id and name) and the kept k show the same, player p's id and
 * name included. */
static bool same_seat(const srv_seat_facts *f, const srv_seat_facts *k, const srv_player *p) {
  if (f->present != k->present)
    return false;
  if (!f->present)
    return true;
  return f->connected == k->connected && f->computer == k->computer && f->account == k->account &&
         f->provisional == k->provisional && f->has_rating == k->has_rating &&
         f->level == k->level && f->rating == k->rating && strcmp(p->id, k->id) == 0 &&
         strcmp(p->name, k->name) == 0;
}

/* The "players" object: {"south":…,"north":…}, each seat null or its player. */
static void players(srv_jsonw *w, const srv_state_view *v, const srv_seat_facts f[2]) {
  for (int s = 0; s < 2; s++) {
    const srv_player *p = v->seats[s].player;
    if (s == 0)
      srv_jsonw_lit(w, "{\"south\":");
    else
      srv_jsonw_lit(w, ",\"north\":");
    if (!f[s].present) {
      srv_jsonw_lit(w, "null");
      continue;
    }
    srv_jsonw_lit(w, "{\"id\":");
    srv_jsonw_str(w, p->id);
    srv_jsonw_lit(w, ",\"name\":");
    srv_jsonw_str(w, p->name);
    srv_jsonw_lit(w, ",\"connected\":");
    srv_jsonw_bool(w, f[s].connected);
    srv_jsonw_lit(w, ",\"computer\":");
    srv_jsonw_bool(w, f[s].computer);
    srv_jsonw_lit(w, ",\"account\":");
    srv_jsonw_bool(w, f[s].account);
    srv_jsonw_lit(w, ",\"level\":");
    if (f[s].level > 0)
      srv_jsonw_int(w, f[s].level);
    else
      srv_jsonw_lit(w, "null");
    srv_jsonw_lit(w, ",\"rating\":");
    if (f[s].has_rating)
      srv_jsonw_int(w, f[s].rating);
    else
      srv_jsonw_lit(w, "null");
    srv_jsonw_lit(w, ",\"provisional\":");
    srv_jsonw_bool(w, f[s].provisional);
    srv_jsonw_lit(w, "}");
  }
  srv_jsonw_lit(w, "}");
}

/* players(), copied from the cache when every seat shows what it showed when it was written. */
static void players_cached(srv_jsonw *w, const srv_state_view *v) {
  srv_seat_facts f[2];
  srv_state_cache *cache = v->cache;
  for (int s = 0; s < 2; s++)
    seat_facts(&f[s], &v->seats[s], v->opts->rules.kind);
  if (cache == NULL) {
    players(w, v, f);
    return;
  }
  if (cache->players.valid && same_seat(&f[0], &cache->seats[0], v->seats[0].player) &&
      same_seat(&f[1], &cache->seats[1], v->seats[1].player)) {
    srv_jsonw_raw(w, cache->players.text, cache->players.len);
    return;
  }
  size_t start = w->len;
  players(w, v, f);
  for (int s = 0; s < 2; s++) {
    const srv_player *p = v->seats[s].player;
    f[s].id[0] = f[s].name[0] = '\0';
    if (p != NULL && strlen(p->id) < sizeof f[s].id && strlen(p->name) < sizeof f[s].name) {
      strcpy(f[s].id, p->id);
      strcpy(f[s].name, p->name);
    } else if (p != NULL) {
      f[s].present = !f[s].present; /* Cannot be kept: never the same as a state's. */
    }
    cache->seats[s] = f[s];
  }
  piece_keep(&cache->players, w, start);
}

/* The fields of a move after its seat: "house" 1..m, or for the pie rule's swap a null house
 * and "swap":true. */
static void move_fields(srv_jsonw *w, int house) {
  if (house == MC_SWAP) {
    srv_jsonw_lit(w, ",\"house\":null,\"swap\":true");
    return;
  }
  srv_jsonw_lit(w, ",\"house\":");
  srv_jsonw_int(w, house);
}

/* A state's fixed parts are written into spans of the writer (srv_jsonw_span()) through a cursor,
 * each span ended before a part of its own length (the board, the pits, the players, a trace, a
 * name, the moves) and a new one made after it. Every span below writes at most about 500 bytes:
 * keys and punctuation, at most a dozen numbers of 20 characters, seats' names of at most 16 bytes
 * (their entries are copied whole) and the public game id. */
#define STATE_SPAN 1024
#define LIT(s) (o = srv_jsonw_put_lit(o, s))
#define INT(v) (o = srv_jsonw_put_int(o, (long long)(v)))
#define BOOL(v) (o = srv_jsonw_put_bool(o, (v)))
#define SEAT(s) (o = put_seat(o, (s)))
#define SPAN()                                                                                     \
  do {                                                                                             \
    o = srv_jsonw_span(w, STATE_SPAN);                                                             \
    if (o == NULL)                                                                                 \
      return;                                                                                      \
  } while (0)
#define END() srv_jsonw_span_end(w, o)

/* Writes seat's name in quotes (or null) at o, copying its whole entry; the cursor after it.
 * seat_texts must be made. */
static inline char *put_seat(char *o, int seat) {
  const seat_text *t = &seat_texts[seat >= 0 && seat < SEAT_TEXTS - 1 ? seat : SEAT_TEXTS - 1];
  memcpy(o, t->text, sizeof t->text);
  return o + t->len;
}

/* Writes the fields of the state v after its head. *you_at and *you_len: where its "you" value
 * is in the writer's text (srv_frame's you_at, you_len). */
static void state(srv_jsonw *w, const srv_state_view *v, size_t *you_at, size_t *you_len) {
  const mc_pos *pos = v->pos != NULL ? v->pos : mc_game_pos(v->game);
  const mc_rules *rules = v->pos != NULL ? v->rules : mc_game_rules(v->game);
  bool playing = v->status == SRV_PLAYING;
  char *o;
  pthread_once(&seat_texts_once, seat_texts_make);
  srv_jsonw_lit(w, ",");
  board_cached(w, v->cache, v->room, rules);
  srv_jsonw_lit(w, ",\"status\":");
  srv_jsonw_name(w, srv_name_of(srv_status_names, (int)v->status));
  SPAN();
  LIT(",\"ply\":");
  INT(v->pos != NULL ? (long long)v->ply : (long long)mc_game_ply(v->game));
  LIT(",\"turn\":");
  SEAT(playing ? pos->turn : SRV_SEAT_NONE);
  LIT(",\"pits\":");
  END();
  srv_jsonw_pits(w, pos);
  SPAN();
  LIT(",\"legal\":[");
  if (playing) {
    uint8_t own[MC_MAX_HOUSES];
    const uint8_t *moves = v->legal;
    int n = v->nlegal;
    if (v->pos == NULL) {
      n = mc_game_legal(v->game, own);
      moves = own;
    }
    for (int i = 0; i < n && i < MC_MAX_HOUSES; i++) {
      if (i > 0)
        LIT(",");
      INT(moves[i]);
    }
  }
  LIT("],\"you\":");
  *you_at = (size_t)(o - w->buf);
  SEAT(v->you);
  *you_len = (size_t)(o - w->buf) - *you_at;
  LIT(",\"players\":");
  END();
  players_cached(w, v);
  SPAN();
  LIT(",\"clock\":");
  if (v->clocked) {
    LIT("{\"south_ms\":");
    INT(v->clock_ms[0]);
    LIT(",\"north_ms\":");
    INT(v->clock_ms[1]);
    LIT(",\"running\":");
    SEAT(v->clock_running);
    LIT(",\"initial_ms\":");
    INT(v->opts->initial_ms);
    LIT(",\"increment_ms\":");
    INT(v->opts->increment_ms);
    LIT("}");
  } else {
    LIT("null");
  }
  LIT(",\"last\":");
  if (v->has_last) {
    LIT("{\"seat\":");
    SEAT(v->last_seat);
    if (v->last_house == MC_SWAP) {
      LIT(",\"house\":null,\"swap\":true");
    } else {
      LIT(",\"house\":");
      INT(v->last_house);
    }
    LIT(",\"trace\":");
    END();
    srv_jsonw_trace(w, v->trace, v->trace_len);
    SPAN();
    LIT("}");
  } else {
    LIT("null");
  }
  LIT(",\"result\":");
  if (v->has_result) {
    LIT("{\"winner\":");
    END();
    srv_jsonw_name(w, mc_winner_name(v->result.winner));
    srv_jsonw_lit(w, ",\"reason\":");
    srv_jsonw_name(w, mc_reason_name(v->result.reason));
    SPAN();
    LIT(",\"score\":[");
    INT(v->result.score[0]);
    LIT(",");
    INT(v->result.score[1]);
    LIT("]}");
  } else if (v->aborted) {
    /* An aborted game (docs/protocol.md): over, with no winner and no score. */
    LIT("{\"winner\":null,\"reason\":\"aborted\",\"score\":null}");
  } else {
    LIT("null");
  }
  /* Additions to protocol v1 (docs/protocol.md). */
  LIT(",\"visibility\":");
  END();
  srv_jsonw_name(w, srv_name_of(srv_visibility_names, (int)v->opts->visibility));
  SPAN();
  LIT(",\"local\":");
  BOOL(v->opts->opponent == SRV_OPP_LOCAL);
  LIT(",\"game_no\":");
  INT(v->game_no);
  LIT(",\"game_id\":");
  if (v->game_id > 0) {
    char id[SRV_GAMEID_LEN + 1]; /* The public id (srv_gameid.h), never the store's number. */
    srv_gameid_format(v->game_id, id);
    *o++ = '"';
    memcpy(o, id, SRV_GAMEID_LEN);
    o += SRV_GAMEID_LEN;
    *o++ = '"';
  } else {
    LIT("null");
  }
  LIT(",\"rated\":");
  BOOL(v->opts->rated);
  LIT(",\"hints\":");
  BOOL(v->hints);
  LIT(",\"rating_change\":");
  if (v->has_rating_change) {
    for (int s = 0; s < 2; s++) {
      if (s == 0)
        LIT("{\"south\":{\"before\":");
      else
        LIT(",\"north\":{\"before\":");
      INT(rounded(v->rating_before[s]));
      LIT(",\"after\":");
      INT(rounded(v->rating_after[s]));
      LIT("}");
    }
    LIT("}");
  } else {
    LIT("null");
  }
  LIT(",\"spectators\":");
  INT(v->spectators);
  LIT(",\"round\":");
  INT(pos->round);
  LIT(",\"burnt\":");
  END();
  srv_jsonw_burnt(w, pos);
  SPAN();
  if (rules->pie) {
    /* The pie rule: the seat that may swap now (the side to move), else null. */
    bool can_swap = playing && (v->pos != NULL ? v->can_swap : mc_game_can_swap(v->game));
    LIT(",\"swap\":");
    SEAT(can_swap ? pos->turn : SRV_SEAT_NONE);
  }
  if (v->with_moves) {
    /* Only a full state lists the moves: otherwise a frame would grow with the game. */
    END();
    srv_jsonw_lit(w, ",\"moves\":[");
    size_t nmoves = 0;
    const uint8_t *mv = mc_game_moves(v->game, &nmoves);
    for (size_t i = 0; i < nmoves; i++) {
      if (i > 0)
        srv_jsonw_lit(w, ",");
      srv_jsonw_lit(w, "{\"seat\":");
      seat_or_null(w, mc_game_mover(v->game, i));
      move_fields(w, mv[i]);
      srv_jsonw_lit(w, "}");
    }
    srv_jsonw_lit(w, "]");
    SPAN();
  }
  LIT(",\"draw_offer\":");
  SEAT(v->draw_offer);
  LIT(",\"draw_declined\":");
  SEAT(v->draw_declined);
  LIT(",\"takeback\":");
  SEAT(v->takeback_offer);
  LIT(",\"takeback_declined\":");
  SEAT(v->takeback_declined);
  LIT(",\"rematch\":{\"south\":");
  BOOL(v->rematch[0]);
  LIT(",\"north\":");
  BOOL(v->rematch[1]);
  LIT("},\"abandon\":");
  if (v->abandon_seat >= 0) {
    LIT("{\"seat\":");
    SEAT(v->abandon_seat);
    LIT(",\"ms\":");
    INT(v->abandon_ms);
    LIT("}");
  } else {
    LIT("null");
  }
  LIT(",\"first_move\":");
  if (v->first_move_seat >= 0) {
    LIT("{\"seat\":");
    SEAT(v->first_move_seat);
    LIT(",\"ms\":");
    INT(v->first_move_ms);
    LIT("}");
  } else {
    LIT("null");
  }
  LIT(",\"move_deadline\":");
  if (v->has_move_deadline) {
    LIT("{\"seat\":");
    SEAT(v->move_deadline_seat);
    LIT(",\"ms\":");
    INT(v->move_deadline_ms);
    LIT("}");
  } else {
    LIT("null");
  }
  LIT("}");
  END();
}

#undef LIT
#undef INT
#undef BOOL
#undef SEAT
#undef SPAN
#undef END

static void pools(srv_jsonw *w, const srv_pool_view *p, size_t n) {
  srv_jsonw_lit(w, ",\"pools\":[");
  for (size_t i = 0; i < n; i++) {
    if (i > 0)
      srv_jsonw_lit(w, ",");
    srv_jsonw_lit(w, "{\"game\":");
    srv_jsonw_name(w, mc_kind_name(p[i].game));
    srv_jsonw_lit(w, ",\"clock\":");
    if (p[i].clocked) {
      srv_jsonw_lit(w, "{\"initial_ms\":");
      srv_jsonw_int(w, p[i].initial_ms);
      srv_jsonw_lit(w, ",\"increment_ms\":");
      srv_jsonw_int(w, p[i].increment_ms);
      srv_jsonw_lit(w, "}");
    } else {
      srv_jsonw_lit(w, "null");
    }
    srv_jsonw_lit(w, ",\"waiting\":");
    srv_jsonw_int(w, p[i].waiting);
    srv_jsonw_lit(w, "}");
  }
  srv_jsonw_lit(w, "]");
}

/* One lobby entry, a JSON object. */
static void lobby_entry(srv_jsonw *w, const srv_lobby_entry *e) {
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
  srv_jsonw_name(w, srv_name_of(srv_status_names, (int)e->status));
  srv_jsonw_lit(w, ",\"spectators\":");
  srv_jsonw_int(w, e->spectators);
  srv_jsonw_lit(w, ",\"rated\":");
  srv_jsonw_bool(w, e->opts->rated);
  if (e->opts->hints) {
    srv_jsonw_lit(w, ",\"hints\":true");
  }
  srv_jsonw_lit(w, ",\"ratings\":{\"south\":");
  rating_or_null(w, e->seats[0], e->opts->rules.kind);
  srv_jsonw_lit(w, ",\"north\":");
  rating_or_null(w, e->seats[1], e->opts->rules.kind);
  srv_jsonw_lit(w, "}}");
}

/* Encoded entries, comma-separated. */
static void texts(srv_jsonw *w, const srv_lobby_text *t, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (i > 0)
      srv_jsonw_lit(w, ",");
    srv_jsonw_raw(w, t[i].json, t[i].len);
  }
}

/* ,"more":{"kalah":n,...}: the listed rooms a list leaves out, per game (mc_kind order). */
static void more(srv_jsonw *w, const int *more, size_t n) {
  srv_jsonw_lit(w, ",\"more\":{");
  for (size_t i = 0; i < n; i++) {
    if (i > 0)
      srv_jsonw_lit(w, ",");
    srv_jsonw_name(w, mc_kind_name((mc_kind)i));
    srv_jsonw_lit(w, ":");
    srv_jsonw_int(w, more[i]);
  }
  srv_jsonw_lit(w, "}");
}

static void lobby(srv_jsonw *w, const srv_event *ev) {
  if (ev->u.lobby.has_rev) {
    srv_jsonw_lit(w, ",\"rev\":");
    srv_jsonw_int(w, (long long)ev->u.lobby.rev);
  }
  if (ev->u.lobby.more != NULL)
    more(w, ev->u.lobby.more, ev->u.lobby.nmore);
  srv_jsonw_lit(w, ",\"rooms\":[");
  if (ev->u.lobby.texts != NULL) {
    texts(w, ev->u.lobby.texts, ev->u.lobby.n);
  } else {
    for (size_t i = 0; i < ev->u.lobby.n; i++) {
      if (i > 0)
        srv_jsonw_lit(w, ",");
      lobby_entry(w, &ev->u.lobby.rooms[i]);
    }
  }
  srv_jsonw_lit(w, "]}");
}

static void lobby_changes(srv_jsonw *w, const srv_event *ev) {
  srv_jsonw_lit(w, ",\"rev\":");
  srv_jsonw_int(w, (long long)ev->u.lobby_changes.rev);
  srv_jsonw_lit(w, ",\"add\":[");
  texts(w, ev->u.lobby_changes.add, ev->u.lobby_changes.nadd);
  srv_jsonw_lit(w, "],\"update\":[");
  texts(w, ev->u.lobby_changes.update, ev->u.lobby_changes.nupdate);
  srv_jsonw_lit(w, "],\"remove\":[");
  for (size_t i = 0; i < ev->u.lobby_changes.nremove; i++) {
    if (i > 0)
      srv_jsonw_lit(w, ",");
    srv_jsonw_str(w, ev->u.lobby_changes.remove[i]);
  }
  srv_jsonw_lit(w, "]");
  more(w, ev->u.lobby_changes.more, ev->u.lobby_changes.nmore);
  if (ev->u.lobby_changes.pools != NULL)
    pools(w, ev->u.lobby_changes.pools, ev->u.lobby_changes.npools);
  srv_jsonw_lit(w, "}");
}

/* A copy of what w holds, NUL-terminated, into *text and *len. Returns 0 or SRV_ENOMEM. */
static int writer_copy(const srv_jsonw *w, char **text, size_t *len) {
  if (w->failed)
    return SRV_ENOMEM;
  char *s = malloc(w->len + 1);
  if (s == NULL)
    return SRV_ENOMEM;
  memcpy(s, w->buf, w->len);
  s[w->len] = '\0';
  *text = s;
  *len = w->len;
  return 0;
}

int srv_proto_lobby_entry(const srv_lobby_entry *e, char **text, size_t *len) {
  srv_jsonw *w = &out;
  srv_jsonw_reset(w);
  lobby_entry(w, e);
  return writer_copy(w, text, len);
}

/* The fields of a chat line after "from" (the same in chat and chat_history); a deleted
 * account's line has no player (NULL or ""): null. */
static void chat_fields(srv_jsonw *w, const char *player, bool account, int seat, const char *text,
                        int64_t at) {
  srv_jsonw_lit(w, ",\"player\":");
  if (player == NULL || player[0] == '\0')
    srv_jsonw_lit(w, "null");
  else
    srv_jsonw_str(w, player);
  /* Whether from is an account's name: a client marks it, so that a guest cannot pass for it. */
  srv_jsonw_lit(w, ",\"account\":");
  srv_jsonw_bool(w, account && player != NULL && player[0] != '\0');
  srv_jsonw_lit(w, ",\"seat\":");
  seat_or_null(w, seat == SRV_SEAT_SPECTATOR ? SRV_SEAT_NONE : seat);
  srv_jsonw_lit(w, ",\"spectator\":");
  srv_jsonw_bool(w, seat == SRV_SEAT_SPECTATOR);
  srv_jsonw_lit(w, ",\"text\":");
  srv_jsonw_str(w, text);
  srv_jsonw_lit(w, ",\"at\":");
  srv_jsonw_int(w, at);
}

/* A room's clock settings, or null. */
static void clock_settings(srv_jsonw *w, const srv_room_opts *o) {
  if (!o->clocked) {
    srv_jsonw_lit(w, "null");
    return;
  }
  srv_jsonw_lit(w, "{\"initial_ms\":");
  srv_jsonw_int(w, o->initial_ms);
  srv_jsonw_lit(w, ",\"increment_ms\":");
  srv_jsonw_int(w, o->increment_ms);
  srv_jsonw_lit(w, "}");
}

/* One entry of a my_rooms list. */
static void my_room(srv_jsonw *w, const srv_my_room *r) {
  srv_jsonw_lit(w, "{");
  board(w, r->room, r->rules);
  srv_jsonw_lit(w, ",\"clock\":");
  clock_settings(w, r->opts);
  srv_jsonw_lit(w, ",\"visibility\":");
  srv_jsonw_name(w, srv_name_of(srv_visibility_names, (int)r->opts->visibility));
  srv_jsonw_lit(w, ",\"local\":");
  srv_jsonw_bool(w, r->opts->opponent == SRV_OPP_LOCAL);
  srv_jsonw_lit(w, ",\"status\":");
  srv_jsonw_name(w, srv_name_of(srv_status_names, (int)r->status));
  srv_jsonw_lit(w, ",\"you\":");
  seat_or_null(w, r->you);
  srv_jsonw_lit(w, ",\"opponent\":");
  if (r->opponent != NULL) {
    srv_jsonw_lit(w, "{\"id\":");
    srv_jsonw_str(w, r->opponent->id);
    srv_jsonw_lit(w, ",\"name\":");
    srv_jsonw_str(w, r->opponent->name);
    srv_jsonw_lit(w, ",\"connected\":");
    srv_jsonw_bool(w, r->opponent_connected);
    srv_jsonw_lit(w, "}");
  } else {
    srv_jsonw_lit(w, "null");
  }
  srv_jsonw_lit(w, ",\"turn\":");
  seat_or_null(w, r->turn);
  srv_jsonw_lit(w, ",\"your_turn\":");
  srv_jsonw_bool(w, r->turn >= 0 && (r->you == r->turn || r->you == SRV_SEAT_BOTH));
  srv_jsonw_lit(w, ",\"ply\":");
  srv_jsonw_int(w, r->ply);
  srv_jsonw_lit(w, ",\"game_no\":");
  srv_jsonw_int(w, r->game_no);
  srv_jsonw_lit(w, "}");
}

static void my_rooms(srv_jsonw *w, const srv_my_room *rooms, size_t n, const srv_lobby_text *more,
                     size_t n_more) {
  srv_jsonw_lit(w, ",\"rooms\":[");
  for (size_t i = 0; i < n; i++) {
    if (i > 0)
      srv_jsonw_lit(w, ",");
    my_room(w, &rooms[i]);
  }
  for (size_t i = 0; i < n_more; i++) {
    if (n + i > 0)
      srv_jsonw_lit(w, ",");
    srv_jsonw_raw(w, more[i].json, more[i].len);
  }
  srv_jsonw_lit(w, "]}");
}

int srv_proto_my_room_entry(const srv_my_room *r, char **text, size_t *len) {
  srv_jsonw *w = &out;
  srv_jsonw_reset(w);
  my_room(w, r);
  return writer_copy(w, text, len);
}

static srv_frame *hot(const srv_event *ev) {
  srv_jsonw *w = &out;
  const char *room = NULL;
  bool full = false;
  size_t you_at = 0, you_len = 0;
  srv_jsonw_reset(w);
  switch (ev->type) {
  case SRV_EV_STATE:
    head(w, "state", ev->id);
    state(w, ev->u.state, &you_at, &you_len);
    room = ev->u.state->room;
    full = ev->u.state->with_moves;
    break;
  case SRV_EV_LOBBY:
    head(w, "lobby", ev->id);
    pools(w, ev->u.lobby.pools, ev->u.lobby.npools);
    lobby(w, ev);
    break;
  case SRV_EV_LOBBY_CHANGES:
    head(w, "lobby_changes", ev->id);
    lobby_changes(w, ev);
    break;
  case SRV_EV_MY_ROOMS:
    head(w, "my_rooms", ev->id);
    my_rooms(w, ev->u.my_rooms.rooms, ev->u.my_rooms.n, ev->u.my_rooms.more, ev->u.my_rooms.n_more);
    break;
  case SRV_EV_JOINED:
    head(w, "joined", ev->id);
    srv_jsonw_lit(w, ",\"room\":");
    srv_jsonw_str(w, ev->u.joined.room);
    srv_jsonw_lit(w, ",\"role\":");
    srv_jsonw_name(w, srv_name_of(srv_role_names, (int)ev->u.joined.role));
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
    chat_fields(w, ev->u.chat.player, ev->u.chat.account, ev->u.chat.seat, ev->u.chat.text,
                ev->u.chat.at);
    srv_jsonw_lit(w, "}");
    break;
  case SRV_EV_CHAT_HISTORY:
    head(w, "chat_history", ev->id);
    srv_jsonw_lit(w, ",\"room\":");
    srv_jsonw_str(w, ev->u.chat_history.room);
    srv_jsonw_lit(w, ",\"messages\":[");
    for (size_t i = 0; i < ev->u.chat_history.n; i++) {
      const srv_chat_line *l = ev->u.chat_history.lines[i];
      if (i > 0)
        srv_jsonw_lit(w, ",");
      srv_jsonw_lit(w, "{\"from\":");
      srv_jsonw_str(w, l->name);
      chat_fields(w, l->player, l->account, l->seat, l->text, l->at);
      srv_jsonw_lit(w, "}");
    }
    srv_jsonw_lit(w, "]}");
    break;
  case SRV_EV_ERROR:
    head(w, "error", ev->id);
    srv_jsonw_lit(w, ",\"code\":");
    srv_jsonw_name(w, srv_err_code(ev->u.error.err));
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
    if (ev->u.error.retry_after_ms > 0) {
      srv_jsonw_lit(w, ",\"retry_after_ms\":");
      srv_jsonw_int(w, ev->u.error.retry_after_ms);
    }
    srv_jsonw_lit(w, "}");
    break;
  default:
    return NULL;
  }
  srv_frame *f = finish(w, ev->type, ev->id, room);
  if (f != NULL) {
    f->full = full;
    if (!w->failed && you_len > 0 && you_at + you_len <= w->len && w->len <= UINT_MAX) {
      f->you_at = (unsigned)you_at;
      f->you_len = (unsigned)you_len;
    }
  }
  return f;
}

srv_frame *srv_proto_with_you(const srv_frame *f, int you) {
  if (f->you_len == 0 || (size_t)f->you_at + f->you_len > f->len)
    return NULL;
  pthread_once(&seat_texts_once, seat_texts_make);
  const seat_text *t = &seat_texts[you >= 0 && you < SEAT_TEXTS - 1 ? you : SEAT_TEXTS - 1];
  const char *text = srv_frame_text(f);
  size_t tail = f->you_at + (size_t)f->you_len;
  size_t len = f->len - f->you_len + t->len;
  if (len > UINT_MAX)
    return NULL;
  /* Written straight into the new frame: its text before "you", the new value, the rest. */
  srv_frame *g = srv_frame_alloc(f->type, f->reply, f->room, len);
  if (g == NULL)
    return NULL;
  char *o = srv_frame_buf(g);
  memcpy(o, text, f->you_at);
  memcpy(o + f->you_at, t->text, t->len);
  memcpy(o + f->you_at + t->len, text + tail, f->len - tail);
  g->full = f->full;
  g->you_at = f->you_at;
  g->you_len = (unsigned)t->len;
  return g;
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
  /* The id's text in the writer, then the new frame written straight: its head, the id, the
   * rest. */
  srv_jsonw *w = &out;
  srv_jsonw_reset(w);
  if (id->kind == SRV_ID_INT) {
    srv_jsonw_lit(w, ",\"id\":");
    srv_jsonw_int(w, id->num);
  } else if (id->kind == SRV_ID_STR) {
    srv_jsonw_lit(w, ",\"id\":");
    srv_jsonw_str(w, id->str);
  }
  if (w->failed || f->len + w->len > UINT_MAX)
    return NULL;
  srv_frame *g =
      srv_frame_alloc(f->type, id != NULL && id->kind != SRV_ID_NONE, f->room, f->len + w->len);
  if (g == NULL)
    return NULL;
  char *o = srv_frame_buf(g);
  memcpy(o, text, head);
  if (w->len > 0)
    memcpy(o + head, w->buf, w->len);
  memcpy(o + head + w->len, text + head, f->len - head);
  g->full = f->full;
  if (f->you_len > 0) { /* The id went in before "you": it moved by the id's length. */
    g->you_at = f->you_at + (unsigned)w->len;
    g->you_len = f->you_len;
  }
  return g;
}

/* ---- Cold frames: jansson, every allocation checked --------------------------------------- */

/* Sets key of obj to value (stolen, also on failure: jansson's *_new functions free it), and
 * remembers a failure in *failed (a NULL obj or value is one). */
static void put(bool *failed, json_t *obj, const char *key, json_t *value) {
  if (value == NULL || json_object_set_new(obj, key, value) != 0)
    *failed = true;
}

/* The account of p, or null for a guest: its name and its rating in every game. */
static json_t *account_json(bool *failed, const srv_player *p) {
  if (!p->account)
    return json_null();
  json_t *a = json_object(), *ratings = json_object();
  put(failed, a, "name", json_string(p->name));
  for (int k = 0; k < SRV_RATED_GAMES; k++) {
    const srv_player_rating *r = &p->ratings[k];
    json_t *o = json_object();
    put(failed, o, "rating", json_integer(rounded(r->rating)));
    put(failed, o, "rd", json_integer(rounded(r->rd)));
    put(failed, o, "games", json_integer(r->games));
    put(failed, o, "provisional", json_boolean(r->rd > SRV_RATING_PROVISIONAL_RD));
    put(failed, ratings, mc_kind_name((mc_kind)k), o);
  }
  put(failed, a, "ratings", ratings);
  return a;
}

static json_t *cold_tree(const srv_event *ev, bool *failed) {
  static const char *const types[] = {
      [SRV_EV_WELCOME] = "welcome",  [SRV_EV_LEFT] = "left",       [SRV_EV_CLOSED] = "closed",
      [SRV_EV_BYE] = "bye",          [SRV_EV_ACCOUNT] = "account", [SRV_EV_HINT] = "hint",
      [SRV_EV_SESSIONS] = "sessions"};
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
    put(failed, features, "accounts", json_boolean(ev->u.welcome.storage));
    put(failed, o, "features", features);
    json_t *limits = json_object();
    put(failed, limits, "frame_bytes", json_integer(SRV_FRAME_MAX));
    put(failed, limits, "chat_chars", json_integer(SRV_CHAT_MAX));
    put(failed, limits, "name_chars", json_integer(24));
    put(failed, limits, "account_name_chars",
        json_pack("[ii]", SRV_ACCOUNT_NAME_MIN, SRV_ACCOUNT_NAME_MAX));
    put(failed, limits, "password_chars", json_pack("[ii]", SRV_PASSWORD_MIN, SRV_PASSWORD_MAX));
    put(failed, o, "limits", limits);
    put(failed, o, "account", account_json(failed, ev->u.welcome.player));
    if (ev->u.welcome.reason != NULL)
      put(failed, o, "reason", json_string(ev->u.welcome.reason));
    break;
  }
  case SRV_EV_ACCOUNT:
    put(failed, o, "player", json_string(ev->u.account.player->id));
    put(failed, o, "name", json_string(ev->u.account.player->name));
    put(failed, o, "account", account_json(failed, ev->u.account.player));
    break;
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
  case SRV_EV_HINT: {
    /* The value in seeds: a whole number when it is one, else to the hundredth. */
    int v = ev->u.hint.value;
    put(failed, o, "room", json_string(ev->u.hint.room));
    put(failed, o, "ply", json_integer(ev->u.hint.ply));
    put(failed, o, "game_no", json_integer(ev->u.hint.game_no));
    put(failed, o, "seat", json_string(srv_name_of(srv_you_names, ev->u.hint.seat)));
    put(failed, o, "house", json_integer(ev->u.hint.house));
    put(failed, o, "value",
        v % MC_SEED == 0 ? json_integer(v / MC_SEED) : json_real((double)v / MC_SEED));
    put(failed, o, "exact", json_boolean(ev->u.hint.exact));
    put(failed, o, "depth", json_integer(ev->u.hint.depth));
    break;
  }
  case SRV_EV_SESSIONS: {
    json_t *list = json_array();
    for (size_t i = 0; i < ev->u.sessions.n; i++) {
      const srv_session_view *s = &ev->u.sessions.list[i];
      json_t *one = json_object();
      put(failed, one, "id", json_string(s->id));
      put(failed, one, "device", s->device[0] ? json_string(s->device) : json_null());
      put(failed, one, "created", json_integer(s->created_ms));
      put(failed, one, "seen", json_integer(s->seen_ms));
      put(failed, one, "current", json_boolean(s->current));
      if (list == NULL || json_array_append_new(list, one) != 0)
        *failed = true;
    }
    put(failed, o, "sessions", list);
    break;
  }
  default:
    *failed = true;
    break;
  }
  return o;
}

static srv_frame *cold(const srv_event *ev) {
  bool failed = false;
  json_t *o = cold_tree(ev, &failed);
  char *text = failed ? NULL : json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(10));
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
  srv_frame_pool_free();
}

srv_frame *srv_proto_encode(const srv_event *ev) {
  switch (ev->type) {
  case SRV_EV_STATE:
  case SRV_EV_LOBBY:
  case SRV_EV_LOBBY_CHANGES:
  case SRV_EV_JOINED:
  case SRV_EV_CHAT:
  case SRV_EV_CHAT_HISTORY:
  case SRV_EV_MY_ROOMS:
  case SRV_EV_ERROR:
    return hot(ev);
  case SRV_EV_WELCOME:
  case SRV_EV_LEFT:
  case SRV_EV_CLOSED:
  case SRV_EV_BYE:
  case SRV_EV_ACCOUNT:
  case SRV_EV_HINT:
  case SRV_EV_SESSIONS:
    return cold(ev);
  }
  return NULL;
}
