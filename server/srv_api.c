/* The game archive over HTTP (see srv_api.h). */
#include "srv_api.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_archive.h"
#include "srv_error.h"
#include "srv_jsonw.h"
#include "srv_log.h"

struct srv_api {
  srv_store *reader; /* Sees committed data only. */
};

srv_api *srv_api_new(const srv_store *store) {
  srv_api *api = calloc(1, sizeof *api);
  if (api == NULL)
    return NULL;
  int rc = srv_store_open_reader(store, &api->reader);
  if (rc != 0) {
    srv_log_error("api", "cannot open a reader on %s: %s", srv_store_path(store),
                  srv_store_strerror(rc));
    free(api);
    return NULL;
  }
  return api;
}

void srv_api_free(srv_api *api) {
  if (api == NULL)
    return;
  srv_store_close(api->reader);
  free(api);
}

/* Logs a read the store refused. */
static void read_fail(srv_api *api, const char *what, const char *key, int rc) {
  srv_log_error("api", "%s %s: %s (%s)", what, key, srv_store_strerror(rc),
                srv_store_last_error(api->reader));
}

static int reply_error(int status, const char *code, const char *message, char **body,
                       const char **type) {
  json_t *j = json_pack("{s:s,s:s}", "error", code, "message", message);
  *body = j ? json_dumps(j, JSON_COMPACT) : NULL;
  json_decref(j);
  *type = "application/json";
  return status;
}

/* Parses a positive decimal id that fills [s, end). Returns it, or 0. */
static int64_t parse_id(const char *s, const char *end) {
  int64_t v = 0;
  if (s == end || end - s > 18 || *s == '0')
    return 0;
  for (; s < end; s++) {
    if (*s < '0' || *s > '9')
      return 0;
    v = v * 10 + (*s - '0');
  }
  return v;
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

static int game_route(srv_api *api, const char *s, char **body, const char **type) {
  size_t len = strlen(s);
  bool text = len > 4 && strcmp(s + len - 4, ".txt") == 0;
  int64_t id = parse_id(s, s + len - (text ? 4 : 0));
  if (id == 0)
    return reply_error(404, "not_found", "No such game.", body, type);
  srv_store_game *g = NULL;
  int rc = srv_store_game_get(api->reader, id, &g);
  if (rc == SRV_STORE_ENOTFOUND || (rc == 0 && g->ended_ms == 0)) {
    srv_store_game_free(g);
    return reply_error(404, "not_found", "No finished game with that id.", body, type);
  }
  if (rc < 0) {
    read_fail(api, "cannot read game", s, rc);
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

static int player_route(srv_api *api, const char *s, const char *limit_arg, char **body,
                        const char **type) {
  const char *slash = strchr(s, '/');
  if (slash == NULL || strcmp(slash, "/games") != 0 || slash == s ||
      slash - s >= SRV_STORE_ID_SIZE || strspn(s, "0123456789abcdef") != (size_t)(slash - s))
    return reply_error(404, "not_found", "No such route.", body, type);
  char id[SRV_STORE_ID_SIZE];
  memcpy(id, s, (size_t)(slash - s));
  id[slash - s] = '\0';
  long limit = 20;
  if (limit_arg != NULL) {
    char *end;
    errno = 0;
    limit = strtol(limit_arg, &end, 10);
    if (errno != 0 || end == limit_arg || *end != '\0' || limit < 1 || limit > 100)
      return reply_error(400, "bad_request", "limit must be an integer in 1..100.", body, type);
  }
  srv_store_game_list *list = NULL;
  int rc = srv_store_player_games(api->reader, id, (int)limit, &list);
  if (rc < 0) {
    read_fail(api, "cannot read the games of player", id, rc);
    return reply_error(500, "storage_error", srv_store_strerror(rc), body, type);
  }
  json_t *j = srv_archive_player_games_json(id, list);
  srv_store_game_list_free(list);
  *body = j ? json_dumps(j, JSON_COMPACT) : NULL;
  json_decref(j);
  *type = "application/json";
  return 200;
}

int srv_api_get(void *ud, const char *uri, const char *limit, char **body, const char **type) {
  srv_api *api = ud;
  *body = NULL;
  if (strncmp(uri, "/api/games/", 11) == 0)
    return game_route(api, uri + 11, body, type);
  if (strncmp(uri, "/api/players/", 13) == 0)
    return player_route(api, uri + 13, limit, body, type);
  return reply_error(404, "not_found", "No such route.", body, type);
}
