/* Levels of the computer player: the table of settings and the parser tools use. */
#include "mc_level.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mc_error.h"

/* Tuned with `mancala match` until each level beats the one below in at least 65% of games in
 * every game (docs/computer.md has the table). */
static const mc_level levels[MC_LEVEL_MAX] = {
    /* 1 beginner: one move ahead, sees only stores, overlooks half its captures, loose choice. */
    {.depth = 1, .time_ms = -1, .eval = MC_EVAL_STORES, .temperature = 250, .blind = 50},
    /* 2 novice: two moves ahead. */
    {.depth = 2, .time_ms = -1, .eval = MC_EVAL_STORES, .temperature = 120, .blind = 25},
    /* 3 casual: four moves ahead, the full evaluation, small slips. */
    {.depth = 4, .time_ms = -1, .eval = MC_EVAL_FULL, .temperature = 50, .blind = 5},
    /* 4 club: six moves ahead, rare slips. */
    {.depth = 6, .time_ms = -1, .eval = MC_EVAL_FULL, .temperature = 15},
    /* 5 expert: its best move within a fixed budget of positions. */
    {.nodes = 60000, .time_ms = -1, .eval = MC_EVAL_FULL},
    /* 6 master: the endgame tables and the caller's time (MC_LEVEL_DEFAULT_MS by default). */
    {.time_ms = MC_LEVEL_DEFAULT_MS, .egtb = true, .eval = MC_EVAL_FULL},
};

static const char *const names[MC_LEVEL_MAX] = {"beginner", "novice", "casual",
                                                "club",     "expert", "master"};

int mc_level_get(int level, mc_level *out) {
  if (out == NULL || level < MC_LEVEL_MIN || level > MC_LEVEL_MAX)
    return MC_EINVAL;
  *out = levels[level - 1];
  return 0;
}

long mc_level_time(const mc_level *lv, long time_ms) {
  return lv->time_ms >= 0 && time_ms >= 0 ? time_ms : lv->time_ms;
}

void mc_level_full(mc_level *out) {
  memset(out, 0, sizeof(*out));
  out->time_ms = -1;
  out->egtb = true;
  out->eval = MC_EVAL_FULL;
}

const char *mc_level_name(int level) {
  return level >= MC_LEVEL_MIN && level <= MC_LEVEL_MAX ? names[level - 1] : NULL;
}

static int parse_long(const char *s, size_t len, long lo, long hi, long *v) {
  char buf[32];
  if (len == 0 || len >= sizeof(buf))
    return -1;
  memcpy(buf, s, len);
  buf[len] = '\0';
  char *end;
  errno = 0;
  long n = strtol(buf, &end, 10);
  if (errno || *end || n < lo || n > hi)
    return -1;
  *v = n;
  return 0;
}

int mc_level_parse(const char *spec, mc_level *out) {
  if (spec == NULL || out == NULL)
    return MC_EINVAL;
  mc_level lv;
  const char *colon = strchr(spec, ':');
  size_t head = colon ? (size_t)(colon - spec) : strlen(spec);
  long v;
  if (head == 4 && strncmp(spec, "full", 4) == 0)
    mc_level_full(&lv);
  else if (parse_long(spec, head, MC_LEVEL_MIN, MC_LEVEL_MAX, &v) == 0)
    mc_level_get((int)v, &lv);
  else
    return MC_EINVAL;
  const char *p = colon ? colon + 1 : spec + head;
  while (*p) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    if (eq == NULL)
      return MC_EINVAL;
    size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
    const char *val = eq + 1;
#define KEY(name) (klen == strlen(name) && strncmp(p, name, klen) == 0)
    if (KEY("depth") && parse_long(val, vlen, 0, 400, &v) == 0)
      lv.depth = (int)v;
    else if (KEY("nodes") && parse_long(val, vlen, 0, 2000000000L, &v) == 0)
      lv.nodes = (uint64_t)v;
    else if (KEY("ms") && parse_long(val, vlen, -1, 86400000L, &v) == 0)
      lv.time_ms = v;
    else if (KEY("egtb") && parse_long(val, vlen, 0, 1, &v) == 0)
      lv.egtb = v != 0;
    else if (KEY("temp") && parse_long(val, vlen, 0, 100000, &v) == 0)
      lv.temperature = (int)v;
    else if (KEY("blind") && parse_long(val, vlen, 0, 100, &v) == 0)
      lv.blind = (int)v;
    else if (KEY("eval") && vlen == 6 && strncmp(val, "stores", 6) == 0)
      lv.eval = MC_EVAL_STORES;
    else if (KEY("eval") && vlen == 4 && strncmp(val, "full", 4) == 0)
      lv.eval = MC_EVAL_FULL;
    else if (KEY("w")) {
      /* a/b/c/d */
      const char *q = val, *end = val + vlen;
      for (int i = 0; i < 4; i++) {
        const char *slash = memchr(q, '/', (size_t)(end - q));
        const char *stop = slash && i < 3 ? slash : end;
        if (parse_long(q, (size_t)(stop - q), -10000, 10000, &v) < 0)
          return MC_EINVAL;
        lv.weights[i] = (int16_t)v;
        if (i < 3 && slash == NULL)
          return MC_EINVAL;
        q = stop + 1;
      }
      lv.custom_weights = true;
      lv.eval = MC_EVAL_FULL;
    } else
      return MC_EINVAL;
#undef KEY
    p += len;
    if (*p == ',')
      p++;
  }
  *out = lv;
  return 0;
}
