/* Game variants: defaults, validation and names. */
#include "mc_rules.h"

#include <string.h>

#include "mc_error.h"

static const char *const kind_names[] = {"kalah", "oware", "congkak"};
static const char *const grand_slam_names[] = {"no_capture", "forbidden", "capture"};
static const char *const burn_names[] = {"round", "match"};

int mc_rules_init(mc_rules *rules, mc_kind kind) {
  if (rules == NULL || (unsigned)kind > MC_CONGKAK)
    return MC_EINVAL;
  memset(rules, 0, sizeof(*rules));
  rules->kind = kind;
  rules->houses = kind == MC_CONGKAK ? 7 : 6;
  rules->seeds = kind == MC_CONGKAK ? 7 : 4;
  rules->grand_slam = MC_GS_NO_CAPTURE;
  return 0;
}

int mc_rules_check(const mc_rules *rules) {
  if (rules == NULL || (unsigned)rules->kind > MC_CONGKAK)
    return MC_EINVAL;
  if (rules->houses < MC_MIN_HOUSES || rules->houses > MC_MAX_HOUSES)
    return MC_EINVAL;
  if (rules->seeds < MC_MIN_SEEDS || rules->seeds > MC_MAX_SEEDS)
    return MC_EINVAL;
  if ((unsigned)rules->grand_slam > MC_GS_CAPTURE)
    return MC_EINVAL;
  if (rules->empty_capture && rules->kind != MC_KALAH)
    return MC_EINVAL;
  if (rules->grand_slam != MC_GS_NO_CAPTURE && rules->kind != MC_OWARE)
    return MC_EINVAL;
  if ((rules->lap_capture || rules->match) && rules->kind != MC_CONGKAK)
    return MC_EINVAL;
  if ((unsigned)rules->burn > MC_BURN_MATCH || (rules->burn != MC_BURN_ROUND && !rules->match))
    return MC_EINVAL;
  return 0;
}

const char *mc_kind_name(mc_kind kind) {
  return (unsigned)kind <= MC_CONGKAK ? kind_names[kind] : NULL;
}

int mc_kind_parse(const char *name, mc_kind *kind) {
  if (name == NULL || kind == NULL)
    return MC_EINVAL;
  for (unsigned i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++) {
    if (strcmp(name, kind_names[i]) == 0) {
      *kind = (mc_kind)i;
      return 0;
    }
  }
  return MC_EINVAL;
}

const char *mc_grand_slam_name(mc_grand_slam mode) {
  return (unsigned)mode <= MC_GS_CAPTURE ? grand_slam_names[mode] : NULL;
}

int mc_grand_slam_parse(const char *name, mc_grand_slam *mode) {
  if (name == NULL || mode == NULL)
    return MC_EINVAL;
  for (unsigned i = 0; i < sizeof(grand_slam_names) / sizeof(grand_slam_names[0]); i++) {
    if (strcmp(name, grand_slam_names[i]) == 0) {
      *mode = (mc_grand_slam)i;
      return 0;
    }
  }
  return MC_EINVAL;
}

const char *mc_burn_name(mc_burn mode) {
  return (unsigned)mode <= MC_BURN_MATCH ? burn_names[mode] : NULL;
}

int mc_burn_parse(const char *name, mc_burn *mode) {
  if (name == NULL || mode == NULL)
    return MC_EINVAL;
  for (unsigned i = 0; i < sizeof(burn_names) / sizeof(burn_names[0]); i++) {
    if (strcmp(name, burn_names[i]) == 0) {
      *mode = (mc_burn)i;
      return 0;
    }
  }
  return MC_EINVAL;
}

const char *mc_seat_name(mc_seat seat) {
  switch (seat) {
  case MC_SOUTH:
    return "south";
  case MC_NORTH:
    return "north";
  default:
    return NULL;
  }
}
