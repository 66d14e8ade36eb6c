/* Solver: a full-strength search without a depth limit, then the principal line move by move. */
#include "mc_solve.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mc_error.h"
#include "mc_internal.h"

static long elapsed_ms(const struct timespec *t0) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long)((now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000L);
}

/* What is left of limits after `used` nodes and the time since t0; 0 when nothing is left. */
static int remaining(const mc_limits *limits, const struct timespec *t0, uint64_t used,
                     mc_limits *left) {
  *left = *limits;
  left->depth = 0;
  if (limits->time_ms >= 0) {
    left->time_ms = limits->time_ms - elapsed_ms(t0);
    if (left->time_ms <= 0)
      return 0;
  }
  if (limits->nodes) {
    if (used >= limits->nodes)
      return 0;
    left->nodes = limits->nodes - used;
  }
  return 1;
}

static int round_seeds(int v) {
  return v >= 0 ? (v + MC_SEED / 2) / MC_SEED : -((-v + MC_SEED / 2) / MC_SEED);
}

int mc_solve(mc_search *s, const mc_rules *rules, const mc_pos *pos, const mc_pos *history,
             size_t history_len, const mc_limits *limits, const atomic_bool *cancel,
             mc_solve_result *out) {
  if (s == NULL || out == NULL)
    return MC_EINVAL;
  const mc_limits lim = limits ? *limits : MC_LIMITS_NONE;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  mc_search_request req = {
      .rules = rules,
      .pos = pos,
      .history = history,
      .history_len = history_len,
      .limits = {lim.time_ms, lim.nodes, 0},
      .level = NULL,
      .cancel = cancel,
      .solve = true,
  };
  mc_search_result r;
  int rc = mc_search_run(s, &req, &r);
  if (rc < 0)
    return rc;
  memset(out, 0, sizeof(*out));
  out->solved = r.exact;
  out->value = round_seeds(r.value);
  out->depth = r.depth;
  out->nodes = r.nodes;
  if (!r.exact) {
    out->time_ms = elapsed_ms(&t0);
    return 0;
  }

  /* The line: the window of positions for the repetition rule goes along. */
  size_t hn = history && history_len ? history_len : 1, cap = hn + 64;
  mc_pos *win = malloc(cap * sizeof(*win));
  if (win == NULL)
    return MC_ENOMEM;
  if (history && history_len)
    memcpy(win, history, hn * sizeof(*win));
  else
    win[0] = *pos;
  mc_pos cur = *pos;
  while (out->line_len < MC_SOLVE_LINE_MAX) {
    mc_limits left;
    if (!remaining(&lim, &t0, out->nodes, &left))
      break;
    mc_search_request step = req;
    step.pos = &cur;
    step.history = win;
    step.history_len = hn;
    step.limits = left;
    if (mc_search_run(s, &step, &r) < 0 || !r.exact)
      break;
    out->nodes += r.nodes;
    out->line[out->line_len++] = (uint8_t)r.best;
    mc_pos next = cur;
    mc_result res;
    rc = mc_pos_play(&next, rules, r.best, NULL, &res);
    if (rc < 0)
      break;
    if (rc == 1) {
      out->end = res;
      out->line_complete = true;
      break;
    }
    if (rules->kind != MC_KALAH && mc__epoch(&next) == mc__epoch(&cur)) {
      int seen = 0;
      for (size_t i = 0; i < hn; i++)
        seen += mc_pos_same(&win[i], &next);
      if (seen >= 2) {
        mc_pos_end_repetition(&next, rules, NULL, &out->end);
        out->line_complete = true;
        break;
      }
    } else {
      hn = 0;
    }
    if (hn == cap) {
      mc_pos *w = realloc(win, 2 * cap * sizeof(*win));
      if (w == NULL)
        break;
      win = w;
      cap *= 2;
    }
    win[hn++] = next;
    cur = next;
  }
  free(win);
  out->time_ms = elapsed_ms(&t0);
  return 0;
}
