/* Positions and moves: validation around the rule book in mc_internal.h. */
#include "mc_pos.h"

#include <string.h>

#include "mc_error.h"
#include "mc_internal.h"

static const char *const step_names[] = {"pick",       "sow",       "relay",  "capture", "sweep",
                                         "extra_turn", "round_end", "refill", "burn"};
static const char *const reason_names[] = {"none",        "no_seeds",   "majority",
                                           "cannot_feed", "repetition", "resignation",
                                           "timeout",     "agreement",  "abandoned"};

const char *mc_step_name(mc_step_kind kind) {
  return (unsigned)kind < sizeof(step_names) / sizeof(step_names[0]) ? step_names[kind] : NULL;
}

const char *mc_reason_name(mc_reason reason) {
  return (unsigned)reason < sizeof(reason_names) / sizeof(reason_names[0]) ? reason_names[reason]
                                                                           : NULL;
}

int mc_reason_parse(const char *name, mc_reason *reason) {
  if (name == NULL || reason == NULL)
    return MC_EINVAL;
  for (unsigned i = 0; i < sizeof(reason_names) / sizeof(reason_names[0]); i++) {
    if (strcmp(name, reason_names[i]) == 0) {
      *reason = (mc_reason)i;
      return 0;
    }
  }
  return MC_EINVAL;
}

const char *mc_winner_name(mc_winner winner) {
  switch (winner) {
  case MC_WIN_SOUTH:
    return "south";
  case MC_WIN_NORTH:
    return "north";
  case MC_DRAW:
    return "draw";
  default:
    return NULL;
  }
}

int mc_pos_init(mc_pos *pos, const mc_rules *rules) {
  if (pos == NULL || mc_rules_check(rules) < 0)
    return MC_EINVAL;
  const int m = rules->houses;
  memset(pos, 0, sizeof(*pos));
  pos->houses = (uint8_t)m;
  pos->turn = MC_SOUTH;
  pos->first = MC_SOUTH;
  pos->round = 1;
  for (int i = 0; i < m; i++) {
    pos->pits[MC__BASE(m, 0) + i] = rules->seeds;
    pos->pits[MC__BASE(m, 1) + i] = rules->seeds;
  }
  return 0;
}

int mc_pos_check(const mc_pos *pos, const mc_rules *rules) {
  if (pos == NULL || mc_rules_check(rules) < 0)
    return MC_EINVAL;
  const int m = rules->houses, ring = 2 * m + 2;
  if (pos->houses != m || pos->turn > MC_NORTH || pos->first > MC_NORTH)
    return MC_EINVAL;
  if (pos->round < 1 || pos->round > MC_MAX_ROUNDS || (pos->round > 1 && !rules->match))
    return MC_EINVAL;
  for (int i = ring; i < MC_MAX_PITS; i++)
    if (pos->pits[i])
      return MC_EINVAL;
  if (pos->burnt) {
    const uint32_t stores = (1u << MC__STORE(m, 0)) | (1u << MC__STORE(m, 1));
    if (!rules->match || (pos->burnt >> ring) || (pos->burnt & stores))
      return MC_EINVAL;
    for (int i = 0; i < ring; i++)
      if ((pos->burnt & (1u << i)) && pos->pits[i])
        return MC_EINVAL;
  }
  /* Every pit is a byte: with at most 255 seeds in all no store can overflow. */
  if (mc__total(pos) > 255)
    return MC_EINVAL;
  return 0;
}

int mc_pos_legal(const mc_pos *pos, const mc_rules *rules, uint8_t moves[MC_MAX_HOUSES]) {
  if (moves == NULL || mc_pos_check(pos, rules) < 0)
    return MC_EINVAL;
  return mc__legal(pos, rules, moves);
}

int mc_pos_is_legal(const mc_pos *pos, const mc_rules *rules, int house) {
  uint8_t moves[MC_MAX_HOUSES];
  int n = mc_pos_legal(pos, rules, moves);
  for (int i = 0; i < n; i++)
    if (moves[i] == house)
      return 1;
  return 0;
}

int mc_pos_play(mc_pos *pos, const mc_rules *rules, int house, mc_trace *trace, mc_result *result) {
  if (mc_pos_check(pos, rules) < 0 || house < 1 || house > rules->houses)
    return MC_EINVAL;
  if (!mc_pos_is_legal(pos, rules, house))
    return MC_EILLEGAL;

  mc_pos next = *pos;
  mc_result res;
  int rc;
  if (trace) {
    size_t len = trace->len;
    trace->len = 0;
    rc = mc__play(&next, rules, house, trace, &res);
    if (rc < 0)
      trace->len = len;
  } else {
    rc = mc__play(&next, rules, house, NULL, &res);
  }
  if (rc < 0)
    return rc;
  *pos = next;
  if (rc == 1 && result)
    *result = res;
  return rc;
}

int mc_pos_end_repetition(mc_pos *pos, const mc_rules *rules, mc_trace *trace, mc_result *result) {
  if (mc_pos_check(pos, rules) < 0 || result == NULL)
    return MC_EINVAL;
  mc_pos next = *pos;
  if (mc__sweep_owners(&next, trace) < 0)
    return MC_ELIMIT;
  *pos = next;
  mc__result_by_stores(pos, MC_REASON_REPETITION, result);
  return 0;
}

unsigned mc_pos_total(const mc_pos *pos) {
  return pos ? mc__total(pos) : 0;
}

int mc_pos_same(const mc_pos *a, const mc_pos *b) {
  return a->houses == b->houses && a->turn == b->turn &&
         memcmp(a->pits, b->pits, 2u * a->houses + 2) == 0;
}
