/* The rating policy (see srv_rating.h). */
#include "srv_rating.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_glicko.h"

bool srv_rating_rateable(const srv_room_opts *o) {
  mc_rules def;
  if (mc_rules_init(&def, o->rules.kind) != 0)
    return false;
  const mc_rules *r = &o->rules;
  return o->opponent == SRV_OPP_HUMAN && o->clocked && r->houses == def.houses &&
         r->seeds == def.seeds && r->empty_capture == def.empty_capture &&
         r->grand_slam == def.grand_slam && r->lap_capture == def.lap_capture &&
         r->match == def.match && r->burn == def.burn;
}

int srv_rating_game(const srv_store_rating before[2], mc_winner winner, int64_t ended_ms,
                    srv_store_rating after[2], double diff[2]) {
  srv_glicko now[2];
  for (int s = 0; s < 2; s++) {
    now[s] = (srv_glicko){before[s].rating, before[s].rd, before[s].vol};
    if (before[s].last_ms > 0 && ended_ms > before[s].last_ms)
      srv_glicko_idle(&now[s], (double)(ended_ms - before[s].last_ms) / SRV_RATING_DAY_MS,
                      SRV_RATING_MAX_RD);
  }
  double score[2] = {0.5, 0.5};
  if (winner == MC_WIN_SOUTH)
    score[0] = 1, score[1] = 0;
  else if (winner == MC_WIN_NORTH)
    score[0] = 0, score[1] = 1;
  srv_glicko out[2];
  for (int s = 0; s < 2; s++) {
    srv_glicko_game g = {now[1 - s].rating, now[1 - s].rd, score[s]};
    if (srv_glicko_rate(&now[s], &g, 1, SRV_GLICKO_TAU, &out[s]) != 0)
      return -1;
    if (out[s].rd > SRV_RATING_MAX_RD)
      out[s].rd = SRV_RATING_MAX_RD;
  }
  for (int s = 0; s < 2; s++) {
    after[s] = before[s];
    after[s].rating = out[s].rating;
    after[s].rd = out[s].rd;
    after[s].vol = out[s].vol;
    after[s].games++;
    if (score[s] == 1)
      after[s].wins++;
    else if (score[s] == 0)
      after[s].losses++;
    else
      after[s].draws++;
    after[s].last_ms = ended_ms;
    diff[s] = out[s].rating - before[s].rating;
  }
  return 0;
}

double srv_rating_of(const srv_player *p, mc_kind kind) {
  if (p == NULL || !p->account || (int)kind < 0 || (int)kind >= SRV_RATED_GAMES)
    return 1500.0;
  return p->ratings[kind].rating;
}

bool srv_rating_clock_ok(int64_t initial_ms, int64_t increment_ms) {
  return initial_ms >= SRV_RATING_MIN_INITIAL_MS || (initial_ms >= SRV_RATING_MIN_INITIAL_INC_MS &&
                                                     increment_ms >= SRV_RATING_MIN_INCREMENT_MS);
}

double srv_rating_weight(int earlier) {
  return earlier < 2 ? 1.0 : earlier < 5 ? 0.5 : 0.0;
}

double srv_rating_weight_addr(int earlier) {
  return earlier < 10 ? 1.0 : earlier < 20 ? 0.5 : 0.0;
}

void srv_rating_scale(const srv_store_rating before[2], double weight, srv_store_rating after[2],
                      double diff[2]) {
  for (int s = 0; s < 2; s++) {
    after[s].rating = before[s].rating + weight * (after[s].rating - before[s].rating);
    after[s].rd = before[s].rd + weight * (after[s].rd - before[s].rd);
    after[s].vol = before[s].vol + weight * (after[s].vol - before[s].vol);
    diff[s] = after[s].rating - before[s].rating;
  }
}

/* ---- Repeated games ------------------------------------------------------------------------- */

typedef struct repeat_entry {
  char key[81];
  int64_t since_ms; /* When its window started. */
  int games;        /* Rated games counted in it. */
} repeat_entry;

struct srv_rating_repeats {
  repeat_entry *items;
  size_t n;
};

srv_rating_repeats *srv_rating_repeats_new(void) {
  srv_rating_repeats *t = calloc(1, sizeof *t);
  if (t != NULL && (t->items = calloc(SRV_RATING_REPEAT_KEYS, sizeof *t->items)) == NULL) {
    free(t);
    t = NULL;
  }
  return t;
}

void srv_rating_repeats_free(srv_rating_repeats *t) {
  if (t == NULL)
    return;
  free(t->items);
  free(t);
}

int srv_rating_repeats_add(srv_rating_repeats *t, const char *key, int64_t now_ms) {
  if (t == NULL || key == NULL)
    return 0;
  char k[81];
  snprintf(k, sizeof k, "%s", key);
  repeat_entry *e = NULL, *oldest = NULL;
  for (size_t i = 0; i < t->n && e == NULL; i++) {
    if (strcmp(t->items[i].key, k) == 0)
      e = &t->items[i];
    else if (oldest == NULL || t->items[i].since_ms < oldest->since_ms)
      oldest = &t->items[i];
  }
  if (e == NULL) {
    e = t->n < SRV_RATING_REPEAT_KEYS ? &t->items[t->n++] : oldest;
    memcpy(e->key, k, sizeof e->key);
    e->since_ms = now_ms;
    e->games = 0;
  } else if (now_ms - e->since_ms >= SRV_RATING_REPEAT_WINDOW_MS || now_ms < e->since_ms) {
    e->since_ms = now_ms; /* Its window passed: a new one starts. */
    e->games = 0;
  }
  return e->games++;
}
