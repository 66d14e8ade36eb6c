/* Quick play's pools (see srv_pool.h). */
#include "srv_pool.h"

#include <string.h>

/* The time controls: minutes, seconds added per move; {0, 0} is untimed. */
static const int clocks[SRV_POOL_CLOCKS][2] = {{0, 0}, {1, 0}, {3, 2}, {5, 3}, {10, 5}};
static const mc_kind games[3] = {MC_KALAH, MC_OWARE, MC_CONGKAK};

int srv_pool_get(int i, srv_pool_view *out) {
  if (i < 0 || i >= SRV_POOLS)
    return -1;
  memset(out, 0, sizeof *out);
  const int *c = clocks[i % SRV_POOL_CLOCKS];
  out->game = games[i / SRV_POOL_CLOCKS];
  out->clocked = c[0] > 0;
  out->initial_ms = (int64_t)c[0] * 60000;
  out->increment_ms = (int64_t)c[1] * 1000;
  return 0;
}

int srv_pool_of(const srv_room_opts *opts) {
  const mc_rules *r = &opts->rules;
  mc_rules d;
  /* A rated room waits for rated players only: it is in no casual pool; nor is a room with hints
   * (quick play's rooms have none: its players did not ask for them). */
  if (opts->visibility != SRV_PUBLIC || opts->opponent != SRV_OPP_HUMAN || opts->rated ||
      opts->hints || mc_rules_init(&d, r->kind) != 0)
    return -1;
  if (r->houses != d.houses || r->seeds != d.seeds || r->empty_capture != d.empty_capture ||
      r->grand_slam != d.grand_slam || r->lap_capture != d.lap_capture || r->match != d.match ||
      r->burn != d.burn || r->pie != d.pie)
    return -1;
  for (int i = 0; i < SRV_POOLS; i++) {
    srv_pool_view p;
    srv_pool_get(i, &p);
    if (p.game == r->kind && p.clocked == opts->clocked &&
        (!p.clocked || (p.initial_ms == opts->initial_ms && p.increment_ms == opts->increment_ms)))
      return i;
  }
  return -1;
}
