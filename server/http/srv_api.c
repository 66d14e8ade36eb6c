/* The game archive over HTTP (see srv_api.h). */
#include "srv_api.h"
#include "srv_gameid.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_archive.h"
#include "srv_error.h"
#include "srv_jsonw.h"
#include "srv_log.h"
#include "srv_names.h"
#include "srv_profile.h"
#include "srv_reader.h"

struct srv_api {
  srv_store *store;   /* Its own connection, which sees committed data only. */
  srv_reader *reader; /* The storage seam's reads over it. */
  srv_api_analyser analyser;
};

void srv_api_set_analyser(srv_api *api, const srv_api_analyser *analyser) {
  if (analyser != NULL)
    api->analyser = *analyser;
  else
    memset(&api->analyser, 0, sizeof api->analyser);
}

srv_api *srv_api_new(const srv_store *store) {
  srv_api *api = calloc(1, sizeof *api);
  if (api == NULL)
    return NULL;
  int rc = srv_store_open_reader(store, &api->store);
  if (rc != 0) {
    srv_log_error("api", "cannot open a reader on %s: %s", srv_store_path(store),
                  srv_store_strerror(rc));
    free(api);
    return NULL;
  }
  if ((api->reader = srv_reader_new(api->store)) == NULL) {
    srv_store_close(api->store);
    free(api);
    return NULL;
  }
  return api;
}

int srv_api_use_work(srv_api *api, srv_work *work) {
  return srv_reader_use_work(api->reader, work);
}

void srv_api_free(srv_api *api) {
  if (api == NULL)
    return;
  srv_reader_free(api->reader);
  srv_store_close(api->store);
  free(api);
}

/* Logs a read the store refused. */
static void read_fail(srv_store *rd, const char *what, const char *key, int rc) {
  srv_log_error("api", "%s %s: %s (%s)", what, key, srv_store_strerror(rc),
                srv_store_last_error(rd));
}

static int reply_error(int status, const char *code, const char *message, char **body,
                       const char **type) {
  json_t *j = json_pack("{s:s,s:s}", "error", code, "message", message);
  *body = j ? json_dumps(j, JSON_COMPACT) : NULL;
  json_decref(j);
  *type = "application/json";
  return status;
}

/* Adds to the archive record j (borrowed) the position before the first move ("start") and, per
 * move, the position after it ("pits", "burnt") and its steps ("trace"), replayed through the
 * engine: the server is the rules authority. Returns 0 or SRV_ENOMEM. */
static int add_positions(json_t *j, const srv_store_game *g) {
  mc_game *game = mc_game_new(&g->rules);
  mc_trace *trace = malloc(sizeof *trace);
  json_t *moves = json_object_get(j, "moves");
  int rc = 0;
  if (game == NULL || trace == NULL || !json_is_array(moves)) {
    rc = SRV_ENOMEM;
    goto done;
  }
  srv_jsonw w = SRV_JSONW_INIT;
  for (size_t i = 0; i <= g->n_moves && rc == 0; i++) {
    if (i > 0 && mc_game_play(game, g->moves[i - 1].house, trace) != 0)
      break; /* srv_archive_game_json() already replayed it: cannot happen. */
    const mc_pos *pos = mc_game_pos(game);
    /* The pieces as a state writes them, said once in srv_jsonw.c. */
    srv_jsonw_reset(&w);
    srv_jsonw_lit(&w, "{\"pits\":");
    srv_jsonw_pits(&w, pos);
    srv_jsonw_lit(&w, ",\"burnt\":");
    srv_jsonw_burnt(&w, pos);
    if (i > 0) {
      srv_jsonw_lit(&w, ",\"trace\":");
      srv_jsonw_trace(&w, trace->steps, trace->len);
    }
    srv_jsonw_lit(&w, "}");
    json_t *pieces = w.failed ? NULL : json_loadb(w.buf, w.len, 0, NULL);
    json_t *target = i == 0 ? json_object() : json_array_get(moves, i - 1);
    bool ok = pieces != NULL && target != NULL && json_object_update(target, pieces) == 0;
    if (i == 0 && ok)
      ok = json_object_set_new(j, "start", target) == 0; /* Steals target, also on failure. */
    else if (i == 0)
      json_decref(target);
    if (!ok)
      rc = SRV_ENOMEM;
    json_decref(pieces);
  }
  srv_jsonw_free(&w);
done:
  mc_game_free(game);
  free(trace);
  return rc;
}

static int game_route(srv_store *rd, const char *s, char **body, const char **type) {
  size_t len = strlen(s);
  bool text = len > 4 && strcmp(s + len - 4, ".txt") == 0;
  int64_t id = srv_gameid_parse(s, len - (text ? 4 : 0));
  if (id == 0)
    return reply_error(404, "not_found", "No such game.", body, type);
  srv_store_game *g = NULL;
  int rc = srv_store_game_get(rd, id, &g);
  if (rc == SRV_STORE_ENOTFOUND || (rc == 0 && (g->ended_ms == 0 || g->aborted))) {
    srv_store_game_free(g);
    return reply_error(404, "not_found", "No finished game with that id.", body, type);
  }
  if (rc < 0) {
    read_fail(rd, "cannot read game", s, rc);
    return reply_error(500, "storage_error", srv_store_strerror(rc), body, type);
  }
  int status = 200;
  srv_store_bad_row bad;
  if (text) {
    rc = srv_archive_game_text(g, body, &bad);
    *type = "text/plain; charset=utf-8";
  } else {
    json_t *j = srv_archive_game_json(g, &bad);
    rc = j == NULL ? SRV_STORE_EBADROW : add_positions(j, g);
    /* Whether its analysis is stored (GET /api/games/ID/analysis serves it at once). */
    srv_store_analysis an;
    int arc = rc == 0 ? srv_store_analysis_get(rd, id, &an) : SRV_STORE_ENOTFOUND;
    if (arc == 0)
      srv_store_analysis_free(&an);
    else if (arc != SRV_STORE_ENOTFOUND)
      read_fail(rd, "cannot read the analysis of", s, arc);
    if (rc == 0 && json_object_set_new(j, "analysed", json_boolean(arc == 0)) != 0)
      rc = SRV_ENOMEM;
    *body = j && rc == 0 ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    *type = "application/json";
  }
  if (rc != 0 && *body == NULL) {
    srv_log_error("api", "game %" PRId64 ": cannot make its record", id);
    status = reply_error(500, "internal", "The record cannot be made.", body, type);
  }
  srv_store_game_free(g);
  return status;
}

/* The value of argument name in query ("a=1&b=2"; borrowed) copied into buf, or NULL when it is
 * not there. */
static const char *arg(const char *query, const char *name, char *buf, size_t size) {
  size_t n = strlen(name);
  for (const char *p = query; p != NULL && *p;) {
    const char *end = strchr(p, '&');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > n && strncmp(p, name, n) == 0 && p[n] == '=') {
      snprintf(buf, size, "%.*s", (int)(len - n - 1), p + n + 1);
      return buf;
    }
    p = end ? end + 1 : NULL;
  }
  return NULL;
}

/* Reads integer argument name of query into *out (def when absent). Returns false when it is
 * there but not an integer in min..max. */
static bool int_arg(const char *query, const char *name, long min, long max, long def, long *out) {
  char buf[32];
  const char *v = arg(query, name, buf, sizeof buf);
  *out = def;
  if (v == NULL)
    return true;
  char *end;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (errno != 0 || end == v || *end != '\0' || n < min || n > max)
    return false;
  *out = n;
  return true;
}

static int json_reply(json_t *j, char **body, const char **type) {
  *body = j ? json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(10)) : NULL;
  json_decref(j);
  *type = "application/json";
  return 200;
}

/* GET /api/players/NAME: the profile of the account with that name (its key, so that any
 * spelling of it finds it). */
static int profile_route(srv_store *rd, const char *name, const char *query, char **body,
                         const char **type) {
  long limit;
  /* before: the public id of a game (srv_gameid.h), as next_before gives it. */
  char before_buf[SRV_GAMEID_LEN + 2];
  const char *before_s = arg(query, "before", before_buf, sizeof before_buf);
  int64_t before = before_s != NULL ? srv_gameid_parse(before_s, strlen(before_s)) : 0;
  if (!int_arg(query, "limit", 1, 100, 20, &limit) || (before_s != NULL && before <= 0))
    return reply_error(400, "bad_request", "limit is 1..100 and before a game id.", body, type);
  char key[SRV_NAME_KEY_SIZE];
  srv_store_account acc;
  int rc = srv_names_key(name, key, sizeof key) > 0 ? srv_store_account_by_key(rd, key, &acc)
                                                    : SRV_STORE_ENOTFOUND;
  if (rc == SRV_STORE_ENOTFOUND)
    return reply_error(404, "not_found", "No player with that name.", body, type);
  srv_profile p;
  memset(&p, 0, sizeof p);
  p.account = &acc;
  srv_store_rating_point *points[SRV_STORE_RATED_GAMES] = {NULL};
  srv_store_game_list *list = NULL;
  if (rc == 0)
    rc = srv_store_ratings_get(rd, acc.player, p.ratings);
  for (int k = 0; rc == 0 && k < SRV_STORE_RATED_GAMES; k++) {
    if (p.ratings[k].games > 0)
      rc = srv_store_rank(rd, (mc_kind)k, p.ratings[k].rating, &p.ranks[k]);
    if (rc == 0)
      rc = srv_store_rating_history(rd, acc.player, (mc_kind)k, 500, &points[k], &p.n_history[k]);
    p.history[k] = points[k];
  }
  /* One game more than asked for says whether there is a next page. */
  if (rc == 0)
    rc = srv_store_player_games_page(rd, acc.player, before, (int)limit + 1, &list);
  int status;
  if (rc < 0) {
    read_fail(rd, "cannot read the profile of", name, rc);
    status = reply_error(500, "storage_error", srv_store_strerror(rc), body, type);
  } else {
    if (list->n > (size_t)limit) {
      list->n = (size_t)limit;
      p.next_before = list->games[limit - 1].id;
    }
    p.games = list;
    status = json_reply(srv_profile_json(&p), body, type);
  }
  srv_store_game_list_free(list);
  for (int k = 0; k < SRV_STORE_RATED_GAMES; k++)
    free(points[k]);
  return status;
}

static int player_route(srv_store *rd, const char *s, const char *query, char **body,
                        const char **type) {
  const char *slash = strchr(s, '/');
  if (slash == NULL && s[0] != '\0')
    return profile_route(rd, s, query, body, type);
  if (slash == NULL || strcmp(slash, "/games") != 0 || slash == s ||
      slash - s >= SRV_STORE_ID_SIZE || strspn(s, "0123456789abcdef") != (size_t)(slash - s))
    return reply_error(404, "not_found", "No such route.", body, type);
  char id[SRV_STORE_ID_SIZE];
  memcpy(id, s, (size_t)(slash - s));
  id[slash - s] = '\0';
  long limit = 20;
  if (!int_arg(query, "limit", 1, 100, 20, &limit))
    return reply_error(400, "bad_request", "limit must be an integer in 1..100.", body, type);
  srv_store_game_list *list = NULL;
  int rc = srv_store_player_games(rd, id, (int)limit, &list);
  if (rc < 0) {
    read_fail(rd, "cannot read the games of player", id, rc);
    return reply_error(500, "storage_error", srv_store_strerror(rc), body, type);
  }
  json_t *j = srv_archive_player_games_json(id, list);
  srv_store_game_list_free(list);
  *body = j ? json_dumps(j, JSON_COMPACT) : NULL;
  json_decref(j);
  *type = "application/json";
  return 200;
}

/* GET /api/leaderboard/GAME?page=P&limit=N. */
static int leaderboard_route(srv_store *rd, const char *game, const char *query, char **body,
                             const char **type) {
  mc_kind kind;
  if (mc_kind_parse(game, &kind) != 0)
    return reply_error(404, "not_found", "No such game.", body, type);
  long page, limit;
  if (!int_arg(query, "page", 1, 1000000, 1, &page) || !int_arg(query, "limit", 1, 100, 50, &limit))
    return reply_error(400, "bad_request", "page is 1.. and limit 1..100.", body, type);
  srv_store_board *b = NULL;
  int rc = srv_store_leaderboard(rd, kind, (page - 1) * limit, (int)limit, &b);
  if (rc < 0) {
    read_fail(rd, "cannot read the leaderboard of", game, rc);
    return reply_error(500, "storage_error", srv_store_strerror(rc), body, type);
  }
  int status = json_reply(srv_profile_leaderboard_json(kind, page, (int)limit, b), body, type);
  srv_store_board_free(b);
  return status;
}

/* One GET through the reader: the route reads and writes the answer here. */
typedef struct api_job {
  srv_api *api;
  char *uri, *query, *addr;
  int status;
  char *body;
  const char *type;
  srv_api_done done;
  void *arg;
  /* An analysis: served from storage (stored), or not stored yet: the game (unanswered: the
   * analyser answers on the loop). */
  int64_t analysis_of;
  bool stored;
  srv_store_game *unanswered;
} api_job;

/* GET /api/games/ID/analysis: the stored analysis of a finished game, or its game left in
 * j->unanswered for the analyser. */
static int analysis_route(srv_store *rd, api_job *j, const char *s, size_t len) {
  int64_t id = srv_gameid_parse(s, len);
  if (id == 0)
    return reply_error(404, "not_found", "No such game.", &j->body, &j->type);
  srv_store_game *g = NULL;
  int rc = srv_store_game_get(rd, id, &g);
  if (rc == SRV_STORE_ENOTFOUND || (rc == 0 && g->aborted)) {
    srv_store_game_free(g);
    return reply_error(404, "not_found", "No game with that id.", &j->body, &j->type);
  }
  if (rc == 0 && g->ended_ms == 0) {
    srv_store_game_free(g);
    return reply_error(409, "not_finished",
                       "The game is still going on: it can be analysed once it is over.", &j->body,
                       &j->type);
  }
  srv_store_analysis a;
  if (rc == 0)
    rc = srv_store_analysis_get(rd, id, &a);
  if (rc == SRV_STORE_ENOTFOUND) {
    j->analysis_of = id;
    j->unanswered = g;
    return 0;
  }
  srv_store_game_free(g);
  if (rc < 0) {
    read_fail(rd, "cannot read the analysis of", s, rc);
    return reply_error(500, "storage_error", srv_store_strerror(rc), &j->body, &j->type);
  }
  char gid[SRV_GAMEID_LEN + 1];
  srv_gameid_format(id, gid);
  json_t *plies = json_loads(a.plies, 0, NULL);
  json_t *acc =
      json_pack("{s:o,s:o}", "south", a.accuracy_known[0] ? json_real(a.accuracy[0]) : json_null(),
                "north", a.accuracy_known[1] ? json_real(a.accuracy[1]) : json_null());
  json_t *o = plies != NULL && acc != NULL
                  ? json_pack("{s:s,s:s,s:I,s:I,s:o,s:o}", "game", gid, "status", "done",
                              "analysed_at", (json_int_t)a.analysed_ms, "ply_ms",
                              (json_int_t)a.ply_ms, "accuracy", acc, "plies", plies)
                  : NULL;
  if (o == NULL) {
    json_decref(plies);
    json_decref(acc);
  }
  srv_store_analysis_free(&a);
  if (o == NULL) {
    srv_log_error("api", "game %" PRId64 ": its stored analysis does not read back", id);
    return reply_error(500, "internal", "The analysis cannot be read.", &j->body, &j->type);
  }
  j->analysis_of = id;
  j->stored = true;
  j->body = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(10)); /* As the profiles. */
  json_decref(o);
  return 200;
}

#define ANALYSIS_SUFFIX "/analysis"

static int route(srv_store *rd, void *arg) {
  api_job *j = arg;
  j->type = "application/json";
  size_t len = strlen(j->uri), suffix = sizeof ANALYSIS_SUFFIX - 1;
  if (strncmp(j->uri, "/api/games/", 11) == 0 && len > 11 + suffix &&
      strcmp(j->uri + len - suffix, ANALYSIS_SUFFIX) == 0)
    j->status = analysis_route(rd, j, j->uri + 11, len - 11 - suffix);
  else if (strncmp(j->uri, "/api/games/", 11) == 0)
    j->status = game_route(rd, j->uri + 11, &j->body, &j->type);
  else if (strncmp(j->uri, "/api/players/", 13) == 0)
    j->status = player_route(rd, j->uri + 13, j->query, &j->body, &j->type);
  else if (strncmp(j->uri, "/api/leaderboard/", 17) == 0)
    j->status = leaderboard_route(rd, j->uri + 17, j->query, &j->body, &j->type);
  else
    j->status = reply_error(404, "not_found", "No such route.", &j->body, &j->type);
  return 0;
}

/* On the loop: a game whose analysis is not stored goes to the analyser. */
static void ask_analyser(api_job *j) {
  srv_api *api = j->api;
  srv_store_game *g = j->unanswered;
  j->unanswered = NULL;
  if (api->analyser.request == NULL) {
    j->status =
        reply_error(503, "unsupported", "This server does not analyse games.", &j->body, &j->type);
    srv_store_game_free(g);
    return;
  }
  mc_game *game = NULL;
  srv_store_bad_row bad;
  int rc = srv_store_replay(g, false, &game, &bad);
  if (rc != 0) {
    srv_log_error("api", "game %" PRId64 ": its moves do not replay: no analysis", g->id);
    j->status = reply_error(500, "internal", "The game cannot be replayed.", &j->body, &j->type);
  } else {
    char gid[SRV_GAMEID_LEN + 1];
    srv_gameid_format(g->id, gid);
    j->status = api->analyser.request(api->analyser.ud, g->id, gid, game,
                                      j->addr != NULL ? j->addr : "", &j->body);
    j->type = "application/json";
  }
  mc_game_free(game);
  srv_store_game_free(g);
}

static void answered(void *arg, int rc) {
  api_job *j = arg;
  (void)rc;
  if (j->unanswered != NULL)
    ask_analyser(j);
  else if (j->stored && j->api->analyser.stored != NULL)
    j->api->analyser.stored(j->api->analyser.ud, j->analysis_of);
  j->done(j->arg, j->status, j->body, j->type);
  free(j->uri);
  free(j->query);
  free(j->addr);
  free(j);
}

int srv_api_get(void *ud, const char *uri, const char *query, const char *addr, srv_api_done done,
                void *arg) {
  srv_api *api = ud;
  api_job *j = calloc(1, sizeof *j);
  if (j == NULL)
    return SRV_ENOMEM;
  j->api = api;
  j->uri = strdup(uri);
  j->query = strdup(query != NULL ? query : "");
  j->addr = strdup(addr != NULL ? addr : "");
  j->done = done;
  j->arg = arg;
  int rc = j->uri == NULL || j->query == NULL || j->addr == NULL ? SRV_ENOMEM : 0;
  if (rc == 0 && (rc = srv_reader_read(api->reader, route, answered, j)) == 0)
    return 0;
  free(j->uri);
  free(j->query);
  free(j->addr);
  free(j);
  return rc;
}
