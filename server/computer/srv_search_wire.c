/* Search jobs and answers as JSON (see srv_search_wire.h). */
#include "srv_search_wire.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_error.h"
#include "mc_text.h"

const char *const srv_search_stream_key[SRV_SEARCH_STREAMS] = {
    "mancala:search:fast", "mancala:search:deep", "mancala:search:analysis"};
const char *const srv_search_stream_name[SRV_SEARCH_STREAMS] = {"fast", "deep", "analysis"};
const char *const srv_search_workers_key[SRV_SEARCH_STREAMS] = {"mancala:search:workers:fast",
                                                                "mancala:search:workers:deep",
                                                                "mancala:search:workers:analysis"};

#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV_PRIME UINT64_C(0x100000001b3)

uint64_t srv_search_wire_hash(const mc_game *game) {
  char text[160];
  int n = mc_pos_format(mc_game_pos(game), text, sizeof text);
  uint64_t h = FNV_OFFSET;
  for (int i = 0; i < n && i < (int)sizeof text - 1; i++)
    h = (h ^ (unsigned char)text[i]) * FNV_PRIME;
  uint64_t ply = mc_game_ply(game);
  for (int i = 0; i < 8; i++)
    h = (h ^ ((ply >> (8 * i)) & 0xff)) * FNV_PRIME;
  return h;
}

static void hex64(uint64_t v, char out[17]) {
  snprintf(out, 17, "%016" PRIx64, v);
}

/* A 16-digit hexadecimal string into *v; false when it is not one. */
static bool unhex64(const char *s, uint64_t *v) {
  if (s == NULL || strlen(s) != 16)
    return false;
  uint64_t r = 0;
  for (int i = 0; i < 16; i++) {
    char c = s[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0)
      return false;
    r = r << 4 | (uint64_t)d;
  }
  *v = r;
  return true;
}

/* A string field into buf (size bytes, NUL included); false when missing, not a string or too
 * long. */
static bool get_str(json_t *o, const char *key, char *buf, size_t size) {
  json_t *v = json_object_get(o, key);
  if (!json_is_string(v) || json_string_length(v) >= size)
    return false;
  memcpy(buf, json_string_value(v), json_string_length(v) + 1);
  return strlen(buf) == json_string_length(v); /* No NUL inside. */
}

static bool get_int(json_t *o, const char *key, json_int_t lo, json_int_t hi, json_int_t *out) {
  json_t *v = json_object_get(o, key);
  if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
    return false;
  *out = json_integer_value(v);
  return true;
}

static bool get_hex(json_t *o, const char *key, uint64_t *out) {
  return unhex64(json_string_value(json_object_get(o, key)), out);
}

/* The game's moves as text, malloc'ed; NULL when memory runs out or a move cannot be written. */
static char *moves_text(const mc_game *game) {
  size_t n;
  const uint8_t *moves = mc_game_moves(game, &n);
  char probe[1];
  int need = mc_moves_format(moves, n, probe, sizeof probe);
  if (need < 0)
    return NULL;
  char *buf = malloc((size_t)need + 1);
  if (buf != NULL && mc_moves_format(moves, n, buf, (size_t)need + 1) != need) {
    free(buf);
    buf = NULL;
  }
  return buf;
}

char *srv_search_wire_job_encode(srv_search_wire_job *job, const mc_game *game) {
  char rules[128], hash[17], seed[17];
  int rn = mc_rules_format(mc_game_rules(game), rules, sizeof rules);
  if (rn < 0 || (size_t)rn >= sizeof rules || job->stream < 0 || job->stream >= SRV_SEARCH_STREAMS)
    return NULL;
  job->ply = mc_game_ply(game);
  job->hash = srv_search_wire_hash(game);
  char *moves = moves_text(game);
  if (moves == NULL)
    return NULL;
  hex64(job->hash, hash);
  hex64(job->seed, seed);
  json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:I, s:s, s:s, s:s, s:i, s:I, s:s, s:s}", "v",
                        SRV_SEARCH_WIRE_VERSION, "id", job->id, "reply", job->reply, "game",
                        job->game, "ply", (json_int_t)job->ply, "hash", hash, "rules", rules,
                        "moves", moves, "level", job->level, "ms", (json_int_t)job->ms, "seed",
                        seed, "lane", srv_search_stream_name[job->stream]);
  free(moves);
  if (o == NULL)
    return NULL;
  if (job->max_ms > 0 && (json_object_set_new(o, "max_ms", json_integer(job->max_ms)) != 0 ||
                          json_object_set_new(o, "target_ms", json_integer(job->target_ms)) != 0 ||
                          json_object_set_new(o, "floor_ms", json_integer(job->floor_ms)) != 0)) {
    json_decref(o);
    return NULL;
  }
  char *text = json_dumps(o, JSON_COMPACT);
  json_decref(o);
  return text;
}

static int job_fields(json_t *o, srv_search_wire_job *job) {
  json_int_t v, ply, level, ms;
  char lane[16];
  if (!json_is_object(o) || !get_int(o, "v", 0, INT32_MAX, &v) || v != SRV_SEARCH_WIRE_VERSION ||
      !get_str(o, "id", job->id, sizeof job->id) || job->id[0] == '\0' ||
      !get_str(o, "reply", job->reply, sizeof job->reply) || job->reply[0] == '\0' ||
      !get_str(o, "game", job->game, sizeof job->game) || !get_int(o, "ply", 0, INT32_MAX, &ply) ||
      !get_hex(o, "hash", &job->hash) || !get_int(o, "level", 1, 6, &level) ||
      !get_int(o, "ms", 1, 86400000, &ms) || !get_hex(o, "seed", &job->seed) ||
      !get_str(o, "lane", lane, sizeof lane))
    return MC_ESYNTAX;
  job->ply = (uint64_t)ply;
  job->level = (int)level;
  job->ms = (long)ms;
  json_int_t max = 0, target = 0, floor = 0;
  if (json_object_get(o, "max_ms") != NULL &&
      (!get_int(o, "max_ms", 1, 86400000, &max) || !get_int(o, "target_ms", 1, 86400000, &target) ||
       !get_int(o, "floor_ms", 1, 86400000, &floor)))
    return MC_ESYNTAX;
  job->max_ms = (long)max;
  job->target_ms = (long)target;
  job->floor_ms = (long)floor;
  for (int i = 0; i < SRV_SEARCH_STREAMS; i++)
    if (strcmp(lane, srv_search_stream_name[i]) == 0) {
      job->stream = (srv_search_stream)i;
      return 0;
    }
  return MC_ESYNTAX;
}

int srv_search_wire_job_decode(const char *text, size_t len, srv_search_wire_job *job,
                               mc_game **game) {
  if (game != NULL)
    *game = NULL;
  json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
  if (o == NULL)
    return MC_ESYNTAX;
  srv_search_wire_job j = {0};
  int rc = job_fields(o, &j);
  if (rc == 0 && game != NULL) {
    const char *rules_text = json_string_value(json_object_get(o, "rules"));
    const char *moves = json_string_value(json_object_get(o, "moves"));
    mc_rules rules;
    mc_game *g = NULL;
    if (rules_text == NULL || moves == NULL || mc_rules_parse(rules_text, &rules, NULL) != 0)
      rc = MC_ESYNTAX;
    else if ((rc = mc_moves_replay(&rules, moves, &g, NULL)) != 0)
      rc = rc == MC_ENOMEM ? MC_ENOMEM : rc == MC_ESYNTAX ? MC_ESYNTAX : MC_EILLEGAL;
    else if (mc_game_ply(g) != j.ply || srv_search_wire_hash(g) != j.hash)
      rc = MC_EINVAL;
    if (rc == 0)
      *game = g;
    else
      mc_game_free(g);
  }
  json_decref(o);
  if (rc == 0)
    *job = j;
  return rc;
}

/* A line of moves as text ("" when it cannot be written: a line is for show). */
static json_t *line_json(const uint8_t *moves, int n) {
  char text[5 * MC_PV_MAX + 8];
  int w = n > 0 ? mc_moves_format(moves, (size_t)n, text, sizeof text) : 0;
  if (w < 0 || (size_t)w >= sizeof text)
    text[0] = '\0';
  return json_string(text);
}

/* An analysis' plies as [[MOVER, PLAYED, BEST, DEPTH, EXACT, PLAYED_KNOWN, PLAYED_EXACT, VALUE,
 * PLAYED_VALUE, "LINE"], ...] (a new reference, NULL when memory runs out). */
static json_t *plies_json(const mc_ply_eval *plies, size_t n) {
  json_t *arr = json_array();
  for (size_t i = 0; arr != NULL && i < n; i++) {
    const mc_ply_eval *e = &plies[i];
    json_t *p = json_pack("[i,i,i,i,b,b,b,i,i,o]", e->mover, e->played, e->best, e->depth, e->exact,
                          e->played_known, e->played_exact, e->value, e->played_value,
                          line_json(e->pv, e->pv_len));
    if (p == NULL || json_array_append_new(arr, p) != 0) {
      json_decref(arr);
      arr = NULL;
    }
  }
  return arr;
}

char *srv_search_wire_answer_encode(const srv_search_wire_answer *a) {
  char hash[17];
  hex64(a->hash, hash);
  json_t *o = json_pack("{s:i, s:s, s:s, s:I, s:s, s:s, s:i}", "v", SRV_SEARCH_WIRE_VERSION, "id",
                        a->id, "game", a->game, "ply", (json_int_t)a->ply, "hash", hash, "worker",
                        a->worker, "try", a->tries);
  if (o == NULL)
    return NULL;
  int bad = 0;
  if (a->error[0] != '\0') {
    bad |= json_object_set_new(o, "error", json_string(a->error));
  } else if (a->plies != NULL) {
    bad |= json_object_set_new(o, "plies", plies_json(a->plies, a->nplies));
    bad |= json_object_set_new(o, "overhead_ms", json_integer(a->overhead_ms));
    bad |= json_object_set_new(o, "budget_ms", json_integer(a->budget_ms));
  } else {
    const mc_search_result *r = &a->res;
    char pv[3 * MC_PV_MAX + 8];
    int n = r->pv_len > 0 ? mc_moves_format(r->pv, (size_t)r->pv_len, pv, sizeof pv) : 0;
    if (n < 0 || (size_t)n >= sizeof pv)
      pv[0] = '\0';
    json_t *values = json_array();
    for (int i = 0; values != NULL && i < r->nmoves && i < MC_MAX_HOUSES; i++) {
      const mc_move_value *m = &r->moves[i];
      bad |= json_array_append_new(
          values, json_pack("[i, i, b, b]", m->move, m->value, m->exact, m->known));
    }
    bad |= json_object_set_new(o, "move", json_integer(r->move));
    bad |= json_object_set_new(o, "best", json_integer(r->best));
    bad |= json_object_set_new(o, "value", json_integer(r->value));
    bad |= json_object_set_new(o, "exact", json_boolean(r->exact));
    bad |= json_object_set_new(o, "depth", json_integer(r->depth));
    bad |= json_object_set_new(o, "nodes", json_integer((json_int_t)(r->nodes & INT64_MAX)));
    bad |= json_object_set_new(o, "time_ms", json_integer(r->time_ms));
    bad |= json_object_set_new(o, "stopped", json_boolean(r->stopped));
    bad |= json_object_set_new(o, "pv", json_string(pv));
    bad |= json_object_set_new(o, "values", values);
    bad |= json_object_set_new(o, "overhead_ms", json_integer(a->overhead_ms));
    bad |= json_object_set_new(o, "budget_ms", json_integer(a->budget_ms));
  }
  char *text = bad ? NULL : json_dumps(o, JSON_COMPACT);
  json_decref(o);
  return text;
}

/* A move on the wire: a house 1..MC_MAX_HOUSES or MC_SWAP (or 0, "none", when zero is true). */
static bool get_move(json_t *o, const char *key, bool zero, int *out) {
  json_int_t v;
  if (!get_int(o, key, zero ? 0 : 1, MC_SWAP, &v) || (v > MC_MAX_HOUSES && v != MC_SWAP))
    return false;
  *out = (int)v;
  return true;
}

static int answer_result(json_t *o, mc_search_result *r) {
  json_int_t depth, nodes, time_ms, value;
  json_t *exact = json_object_get(o, "exact"), *stopped = json_object_get(o, "stopped");
  json_t *values = json_object_get(o, "values");
  const char *pv = json_string_value(json_object_get(o, "pv"));
  if (!get_move(o, "move", false, &r->move) || !get_move(o, "best", true, &r->best) ||
      !get_int(o, "value", INT32_MIN, INT32_MAX, &value) ||
      !get_int(o, "depth", 0, MC_SEARCH_MAX_DEPTH, &depth) ||
      !get_int(o, "nodes", 0, INT64_MAX, &nodes) ||
      !get_int(o, "time_ms", 0, INT32_MAX, &time_ms) || !json_is_boolean(exact) ||
      !json_is_boolean(stopped) || pv == NULL || !json_is_array(values) ||
      json_array_size(values) > MC_MAX_HOUSES)
    return MC_ESYNTAX;
  r->value = (int)value;
  r->depth = (int)depth;
  r->nodes = (uint64_t)nodes;
  r->time_ms = (long)time_ms;
  r->exact = json_is_true(exact);
  r->stopped = json_is_true(stopped);
  size_t n = 0;
  if (pv[0] != '\0' && mc_moves_parse(pv, r->pv, MC_PV_MAX, &n, NULL) != 0)
    return MC_ESYNTAX;
  r->pv_len = (int)n;
  r->nmoves = (int)json_array_size(values);
  for (size_t i = 0; i < json_array_size(values); i++) {
    json_t *m = json_array_get(values, i);
    json_int_t mv, val;
    json_t *ex = json_array_get(m, 2), *kn = json_array_get(m, 3);
    if (!json_is_array(m) || json_array_size(m) != 4 || !json_is_integer(json_array_get(m, 0)) ||
        !json_is_integer(json_array_get(m, 1)) || !json_is_boolean(ex) || !json_is_boolean(kn))
      return MC_ESYNTAX;
    mv = json_integer_value(json_array_get(m, 0));
    val = json_integer_value(json_array_get(m, 1));
    if (mv < 1 || mv > MC_MAX_HOUSES || val < INT32_MIN || val > INT32_MAX)
      return MC_ESYNTAX;
    r->moves[i] = (mc_move_value){(uint8_t)mv, json_is_true(ex), json_is_true(kn), (int)val};
  }
  return 0;
}

/* A move of an analysis' ply: a house 1..MC_MAX_HOUSES or MC_SWAP. */
static bool ply_move(json_t *v, uint8_t *out) {
  if (!json_is_integer(v))
    return false;
  json_int_t m = json_integer_value(v);
  if ((m < 1 || m > MC_MAX_HOUSES) && m != MC_SWAP)
    return false;
  *out = (uint8_t)m;
  return true;
}

static bool ply_int(json_t *v, json_int_t lo, json_int_t hi, json_int_t *out) {
  if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
    return false;
  *out = json_integer_value(v);
  return true;
}

/* An analysis' "plies" into a->plies (malloc'ed). Returns 0, MC_ESYNTAX or MC_ENOMEM. */
static int answer_plies(json_t *arr, srv_search_wire_answer *a) {
  size_t n = json_array_size(arr);
  if (!json_is_array(arr) || n > SRV_SEARCH_WIRE_MAX_PLIES)
    return MC_ESYNTAX;
  mc_ply_eval *plies = calloc(n ? n : 1, sizeof *plies);
  if (plies == NULL)
    return MC_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    json_t *p = json_array_get(arr, i);
    mc_ply_eval *e = &plies[i];
    json_int_t mover, depth, value, played_value;
    const char *line = json_string_value(json_array_get(p, 9));
    size_t pv = 0;
    if (!json_is_array(p) || json_array_size(p) != 10 ||
        !ply_int(json_array_get(p, 0), MC_SOUTH, MC_NORTH, &mover) ||
        !ply_move(json_array_get(p, 1), &e->played) || !ply_move(json_array_get(p, 2), &e->best) ||
        !ply_int(json_array_get(p, 3), 0, 255, &depth) || !json_is_boolean(json_array_get(p, 4)) ||
        !json_is_boolean(json_array_get(p, 5)) || !json_is_boolean(json_array_get(p, 6)) ||
        !ply_int(json_array_get(p, 7), INT32_MIN, INT32_MAX, &value) ||
        !ply_int(json_array_get(p, 8), INT32_MIN, INT32_MAX, &played_value) || line == NULL ||
        (line[0] != '\0' && mc_moves_parse(line, e->pv, MC_PV_MAX, &pv, NULL) != 0)) {
      free(plies);
      return MC_ESYNTAX;
    }
    e->mover = (uint8_t)mover;
    e->depth = (uint8_t)depth;
    e->exact = json_is_true(json_array_get(p, 4));
    e->played_known = json_is_true(json_array_get(p, 5));
    e->played_exact = json_is_true(json_array_get(p, 6));
    e->value = (int)value;
    e->played_value = (int)played_value;
    e->pv_len = (uint8_t)pv;
  }
  a->plies = plies;
  a->nplies = n;
  return 0;
}

void srv_search_wire_answer_dispose(srv_search_wire_answer *a) {
  free(a->plies);
  a->plies = NULL;
  a->nplies = 0;
}

int srv_search_wire_answer_decode(const char *text, size_t len, srv_search_wire_answer *out) {
  json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
  if (o == NULL)
    return MC_ESYNTAX;
  srv_search_wire_answer a;
  memset(&a, 0, sizeof a);
  json_int_t v, ply, tries;
  int rc = MC_ESYNTAX;
  if (json_is_object(o) && get_int(o, "v", 0, INT32_MAX, &v) && v == SRV_SEARCH_WIRE_VERSION &&
      get_str(o, "id", a.id, sizeof a.id) && get_str(o, "game", a.game, sizeof a.game) &&
      get_int(o, "ply", 0, INT32_MAX, &ply) && get_hex(o, "hash", &a.hash) &&
      get_str(o, "worker", a.worker, sizeof a.worker) &&
      get_int(o, "try", 1, SRV_SEARCH_MAX_TRIES + 1, &tries)) {
    a.ply = (uint64_t)ply;
    a.tries = (int)tries;
    json_int_t overhead = 0, budget = 0;
    if (json_object_get(o, "error") != NULL)
      rc = get_str(o, "error", a.error, sizeof a.error) && a.error[0] != '\0' ? 0 : MC_ESYNTAX;
    else if ((json_object_get(o, "overhead_ms") != NULL &&
              !get_int(o, "overhead_ms", 0, INT32_MAX, &overhead)) ||
             (json_object_get(o, "budget_ms") != NULL &&
              !get_int(o, "budget_ms", 0, 86400000, &budget)))
      rc = MC_ESYNTAX;
    else if (json_object_get(o, "plies") != NULL)
      rc = answer_plies(json_object_get(o, "plies"), &a);
    else
      rc = answer_result(o, &a.res);
    a.overhead_ms = (long)overhead;
    a.budget_ms = (long)budget;
  }
  json_decref(o);
  if (rc == 0)
    *out = a;
  return rc;
}
