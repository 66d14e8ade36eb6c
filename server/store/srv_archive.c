/* The game archive: JSON and text records of stored games (see srv_archive.h). */
#include "srv_archive.h"
#include "srv_gameid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mc_text.h"
#include "srv_jsonw.h"

/* Builders that take ownership of their values (jansson's *_new) and remember a failure, so that
 * a record is built without checking every call. */
typedef struct builder {
  bool failed;
} builder;

/* value is stolen, also on failure (jansson's *_new functions free it; a NULL obj included). */
static void put(builder *b, json_t *obj, const char *key, json_t *value) {
  if (value == NULL || json_object_set_new(obj, key, value) != 0)
    b->failed = true;
}

static void append(builder *b, json_t *arr, json_t *value) {
  if (value == NULL || json_array_append_new(arr, value) != 0)
    b->failed = true;
}

/* The options of rules with their values, as the protocol's create takes them (written once, by
 * srv_jsonw_options()). */
static json_t *options_json(builder *b, const mc_rules *r) {
  srv_jsonw w = SRV_JSONW_INIT;
  srv_jsonw_options(&w, r);
  json_t *o = w.failed ? NULL : json_loadb(w.buf, w.len, 0, NULL);
  srv_jsonw_free(&w);
  if (o == NULL)
    b->failed = true;
  return o;
}

static json_t *seat_json(builder *b, const srv_store_seat *s) {
  if (s->player[0] == '\0' && s->name[0] == '\0' && s->computer == 0)
    return json_null();
  json_t *o = json_object();
  put(b, o, "id", s->player[0] ? json_string(s->player) : json_null());
  put(b, o, "name", json_string(s->name));
  put(b, o, "computer", json_boolean(s->computer > 0));
  put(b, o, "level", s->computer > 0 ? json_integer(s->computer) : json_null());
  return o;
}

/* The fields a game record and a games list share. */
static void summary_fields(builder *b, json_t *o, const srv_store_game *g) {
  char id[SRV_GAMEID_LEN + 1]; /* The public id (srv_gameid.h), never the store's number. */
  srv_gameid_format(g->id, id);
  put(b, o, "id", json_string(id));
  put(b, o, "game", json_string(mc_kind_name(g->rules.kind)));
  put(b, o, "houses", json_integer(g->rules.houses));
  put(b, o, "seeds", json_integer(g->rules.seeds));
  put(b, o, "options", options_json(b, &g->rules));
  json_t *players = json_object();
  put(b, players, "south", seat_json(b, &g->seats[MC_SOUTH]));
  put(b, players, "north", seat_json(b, &g->seats[MC_NORTH]));
  put(b, o, "players", players);
  json_t *clock = json_null();
  if (g->clocked) {
    clock = json_object();
    put(b, clock, "initial_ms", json_integer(g->initial_ms));
    put(b, clock, "increment_ms", json_integer(g->increment_ms));
  }
  put(b, o, "clock", clock);
  bool ended = g->ended_ms != 0;
  put(b, o, "result", ended ? json_string(mc_winner_name(g->winner)) : json_null());
  put(b, o, "reason", ended ? json_string(mc_reason_name(g->reason)) : json_null());
  put(b, o, "score", ended ? json_pack("[ii]", g->score[0], g->score[1]) : json_null());
  put(b, o, "rated", json_boolean(g->rated));
  put(b, o, "started", json_integer(g->started_ms));
  put(b, o, "ended", ended ? json_integer(g->ended_ms) : json_null());
  put(b, o, "ply", json_integer((json_int_t)g->n_moves));
}

/* The moves with the side that played each ("S3 N5 N2": an extra turn is a second move of the same
 * side), which the record's moves line does not say, into buf (cut at size). */
static void movers_text(const mc_game *game, char *buf, size_t size) {
  size_t n = 0, at = 0;
  const uint8_t *moves = mc_game_moves(game, &n);
  buf[0] = '\0';
  for (size_t i = 0; i < n && at + 8 < size; i++) {
    char move[8];
    if (mc_move_format(moves[i], move, sizeof move) < 0)
      break;
    int w = snprintf(buf + at, size - at, "%s%c%s", i ? " " : "",
                     mc_game_mover(game, i) == MC_SOUTH ? 'S' : 'N', move);
    if (w < 0)
      break;
    at += (size_t)w;
  }
}

/* Replays game and formats the engine's record into a new string; with movers (size movers_size),
 * also the moves with their sides (movers_text()). */
static int record_text(const srv_store_game *g, char **out, srv_store_bad_row *bad, char *movers,
                       size_t movers_size) {
  mc_game *game = NULL;
  int rc = srv_store_replay(g, true, &game, bad);
  if (rc != 0)
    return rc;
  if (movers != NULL)
    movers_text(game, movers, movers_size);
  int len = mc_record_format(game, NULL, 0);
  char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;
  if (text == NULL || mc_record_format(game, text, (size_t)len + 1) != len) {
    free(text);
    mc_game_free(game);
    return len < 0 ? SRV_STORE_EINVAL : SRV_STORE_ENOMEM;
  }
  mc_game_free(game);
  *out = text;
  return 0;
}

json_t *srv_archive_game_json(const srv_store_game *g, srv_store_bad_row *bad) {
  if (g == NULL)
    return NULL;
  char *record = NULL;
  if (record_text(g, &record, bad, NULL, 0) != 0)
    return NULL;
  builder b = {false};
  json_t *o = json_object();
  summary_fields(&b, o, g);
  put(&b, o, "game_no", json_integer(g->game_no));
  json_t *moves = json_array();
  for (size_t i = 0; i < g->n_moves; i++) {
    const srv_store_move *m = &g->moves[i];
    json_t *mv = json_object();
    put(&b, mv, "ply", json_integer(m->ply));
    put(&b, mv, "seat", json_string(mc_seat_name((mc_seat)m->seat)));
    /* The pie rule's swap: no house (docs/protocol.md, "The pie rule"). */
    put(&b, mv, "house", m->house == MC_SWAP ? json_null() : json_integer(m->house));
    if (m->house == MC_SWAP)
      put(&b, mv, "swap", json_true());
    put(&b, mv, "clock_ms", m->clock_ms >= 0 ? json_integer(m->clock_ms) : json_null());
    put(&b, mv, "at", json_integer(m->at_ms));
    append(&b, moves, mv);
  }
  put(&b, o, "moves", moves);
  put(&b, o, "record", json_string(record));
  free(record);
  if (b.failed) {
    json_decref(o);
    return NULL;
  }
  return o;
}

/* A growing string; a failed append marks it failed. */
typedef struct strbuf {
  char *data;
  size_t len, cap;
  bool failed;
} strbuf;

static void sb_add(strbuf *sb, const char *text, size_t n) {
  if (sb->failed)
    return;
  if (sb->len + n + 1 > sb->cap) {
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + n + 1)
      cap *= 2;
    char *p = realloc(sb->data, cap);
    if (p == NULL) {
      sb->failed = true;
      return;
    }
    sb->data = p;
    sb->cap = cap;
  }
  memcpy(sb->data + sb->len, text, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

/* Appends [name "value"] and a newline, escaping '\' and '"'; control characters (which names
 * never hold) become spaces so a tag stays on one line. */
static void sb_tag(strbuf *sb, const char *name, const char *value) {
  sb_add(sb, "[", 1);
  sb_add(sb, name, strlen(name));
  sb_add(sb, " \"", 2);
  for (const char *p = value; *p; p++) {
    if (*p == '\\' || *p == '"')
      sb_add(sb, "\\", 1);
    sb_add(sb, (unsigned char)*p < 0x20 ? " " : p, 1);
  }
  sb_add(sb, "\"]\n", 3);
}

/* Writes a player's tag value: the name, "Computer (level N)" for the computer, or "?". */
static void seat_tag(strbuf *sb, const char *tag, const srv_store_seat *s) {
  char text[SRV_STORE_NAME_SIZE + 32];
  if (s->name[0])
    snprintf(text, sizeof text, "%s", s->name);
  else if (s->computer > 0)
    snprintf(text, sizeof text, "Computer (level %d)", s->computer);
  else
    snprintf(text, sizeof text, "?");
  sb_tag(sb, tag, text);
}

int srv_archive_game_text(const srv_store_game *g, char **out, srv_store_bad_row *bad) {
  if (g == NULL || out == NULL)
    return SRV_STORE_EINVAL;
  *out = NULL;
  char *record = NULL;
  /* "S3 " per move: a side, a house, a space; "Nswap " once at most. */
  size_t movers_size = g->n_moves * 5 + 8;
  char *movers = malloc(movers_size);
  if (movers == NULL)
    return SRV_STORE_ENOMEM;
  int rc = record_text(g, &record, bad, movers, movers_size);
  if (rc != 0) {
    free(movers);
    return rc;
  }
  strbuf sb = {NULL, 0, 0, false};
  char text[160];
  sb_tag(&sb, "Event", "Mancala Online");
  sb_tag(&sb, "Site", "?"); /* Not the room's code: a private room's code lets one in. */
  srv_gameid_format(g->id, text);
  sb_tag(&sb, "Id", text);
  time_t t = (time_t)(g->started_ms / 1000);
  struct tm tm;
  if (gmtime_r(&t, &tm) != NULL)
    strftime(text, sizeof text, "%Y.%m.%d", &tm);
  else
    snprintf(text, sizeof text, "????.??.??");
  sb_tag(&sb, "Date", text);
  sb_tag(&sb, "Game", mc_kind_name(g->rules.kind));
  snprintf(text, sizeof text, "%dx%d", g->rules.houses, g->rules.seeds);
  sb_tag(&sb, "Board", text);
  /* The options words of the engine's rules line ("-" when none). */
  char rules[128];
  mc_rules_format(&g->rules, rules, sizeof rules);
  const char *opts = strchr(rules, ' ');
  opts = opts ? strchr(opts + 1, ' ') : NULL;
  sb_tag(&sb, "Options", opts ? opts + 1 : "-");
  seat_tag(&sb, "South", &g->seats[MC_SOUTH]);
  seat_tag(&sb, "North", &g->seats[MC_NORTH]);
  if (g->clocked)
    snprintf(text, sizeof text, "%lld+%lld", (long long)(g->initial_ms / 1000),
             (long long)(g->increment_ms / 1000));
  else
    snprintf(text, sizeof text, "-");
  sb_tag(&sb, "TimeControl", text);
  bool ended = g->ended_ms != 0;
  sb_tag(&sb, "Result", ended ? mc_winner_name(g->winner) : "*");
  sb_tag(&sb, "Reason", ended ? mc_reason_name(g->reason) : "*");
  if (ended)
    snprintf(text, sizeof text, "%d-%d", g->score[0], g->score[1]);
  else
    snprintf(text, sizeof text, "*");
  sb_tag(&sb, "Score", text);
  sb_tag(&sb, "Moves", movers); /* Whose move each is: S for South, N for North. */
  free(movers);
  sb_add(&sb, "\n", 1);
  sb_add(&sb, record, strlen(record));
  free(record);
  if (sb.failed) {
    free(sb.data);
    return SRV_STORE_ENOMEM;
  }
  *out = sb.data;
  return 0;
}

json_t *srv_archive_player_games_json(const char *player_id, const srv_store_game_list *list) {
  if (player_id == NULL || list == NULL)
    return NULL;
  builder b = {false};
  json_t *o = json_object();
  put(&b, o, "player", json_string(player_id));
  json_t *games = json_array();
  for (size_t i = 0; i < list->n; i++) {
    const srv_store_game *g = &list->games[i];
    json_t *item = json_object();
    summary_fields(&b, item, g);
    bool south = strcmp(g->seats[MC_SOUTH].player, player_id) == 0;
    bool north = strcmp(g->seats[MC_NORTH].player, player_id) == 0;
    put(&b, item, "seat",
        south && north ? json_string("both")
        : south        ? json_string("south")
        : north        ? json_string("north")
                       : json_null());
    if (g->rating_known)
      put(&b, item, "rating",
          json_pack("{s:f,s:f}", "after", g->rating_after, "diff", g->rating_diff));
    /* Each seat's accuracy once the game was analysed (srv_marks.h; a page's list only). */
    if (g->accuracy_known[MC_SOUTH] || g->accuracy_known[MC_NORTH])
      put(&b, item, "accuracy",
          json_pack("{s:o,s:o}", "south",
                    g->accuracy_known[MC_SOUTH] ? json_real(g->accuracy[MC_SOUTH]) : json_null(),
                    "north",
                    g->accuracy_known[MC_NORTH] ? json_real(g->accuracy[MC_NORTH]) : json_null()));
    append(&b, games, item);
  }
  put(&b, o, "games", games);
  if (b.failed) {
    json_decref(o);
    return NULL;
  }
  return o;
}
