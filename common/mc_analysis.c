/* Analysis of a game, ply by ply from the end. */
#include "mc_analysis.h"

#include <stdlib.h>
#include <string.h>

#include "mc_error.h"
#include "mc_game.h"
#include "mc_internal.h"

int mc_analyse(mc_search *s, const mc_rules *rules, const uint8_t *moves, size_t n,
               const mc_limits *per_ply, const atomic_bool *cancel, mc_ply_eval *out,
               size_t *bad_ply) {
  if (s == NULL || (n && (moves == NULL || out == NULL)))
    return MC_EINVAL;
  mc_game *g = mc_game_new(rules);
  if (g == NULL)
    return mc_rules_check(rules) < 0 ? MC_EINVAL : MC_ENOMEM;
  /* The positions of the game (a swap adds none: it leaves the position as it was), the one
   * before each ply, and where the repetition window of each starts. */
  mc_pos *pos = malloc((n + 1) * sizeof(*pos));
  size_t *at = malloc((n + 1) * sizeof(*at));
  size_t *wstart = malloc((n + 1) * sizeof(*wstart));
  bool *swap_legal = malloc((n + 1) * sizeof(*swap_legal));
  bool *first_turn = malloc((n + 1) * sizeof(*first_turn));
  int rc = 0;
  if (pos == NULL || at == NULL || wstart == NULL || swap_legal == NULL || first_turn == NULL) {
    rc = MC_ENOMEM;
    goto done;
  }
  size_t npos = 1;
  pos[0] = *mc_game_pos(g);
  wstart[0] = 0;
  bool south_only = true; /* Only South has moved so far. */
  for (size_t i = 0; i < n; i++) {
    at[i] = npos - 1;
    swap_legal[i] = mc_game_can_swap(g);
    south_only = south_only && mc_game_pos(g)->turn == MC_SOUTH;
    first_turn[i] = rules->pie && south_only && mc_game_pos(g)->round == 1;
    out[i].mover = mc_game_pos(g)->turn;
    out[i].played = moves[i];
    rc = mc_game_play(g, moves[i], NULL);
    if (rc == MC_EINVAL)
      rc = MC_EILLEGAL; /* A house number out of range is an illegal move here. */
    if (rc < 0) {
      if (bad_ply)
        *bad_ply = i;
      goto done;
    }
    if (moves[i] == MC_SWAP)
      continue;
    pos[npos] = *mc_game_pos(g);
    wstart[npos] = mc__epoch(&pos[npos]) == mc__epoch(&pos[npos - 1]) ? wstart[npos - 1] : npos;
    npos++;
  }
  const mc_limits dflt = {200, 0, 0};
  mc_level full;
  mc_level_full(&full);
  for (size_t j = n; j-- > 0;) {
    if (cancel && atomic_load(cancel)) {
      rc = MC_ECANCELED;
      goto done;
    }
    const size_t k = at[j];
    mc_search_request req = {
        .rules = rules,
        .pos = &pos[k],
        .history = rules->kind == MC_KALAH ? NULL : &pos[wstart[k]],
        .history_len = rules->kind == MC_KALAH ? 0 : k - wstart[k] + 1,
        .limits = per_ply ? *per_ply : dflt,
        .level = &full,
        .cancel = cancel,
        .all_moves = true,
    };
    mc_search_result r;
    rc = 0;
    if (first_turn[j]) {
      /* The first player's first turn under the pie rule: planned against the swap
       * (mc_search_pie_first()), from the game replayed to this ply. */
      mc_game *at_j = mc_game_new(rules);
      for (size_t i = 0; at_j != NULL && i < j; i++)
        mc_game_play(at_j, moves[i], NULL);
      rc = at_j == NULL ? MC_ENOMEM
                        : mc_search_pie_first(s, at_j, &full, req.limits.time_ms, 0, cancel, &r);
      mc_game_free(at_j);
    }
    if (rc == 0)
      rc = mc_search_run(s, &req, &r);
    else if (rc == 1)
      rc = 0; /* Planned. */
    if (rc < 0)
      goto done;
    mc_ply_eval *e = &out[j];
    if (swap_legal[j]) {
      /* The swap against the best house (mc_search_pie()), both for the second player. */
      mc_search_result house = r;
      mc_search_pie(&r);
      if (e->played == MC_SWAP) {
        r.moves[0] = (mc_move_value){MC_SWAP, house.exact, true, -house.value};
        r.nmoves = 1;
      }
    }
    e->best = (uint8_t)r.best;
    e->pv_len = (uint8_t)(r.pv_len < 0 ? 0 : r.pv_len > MC_PV_MAX ? MC_PV_MAX : r.pv_len);
    memcpy(e->pv, r.pv, e->pv_len);
    e->value = r.value;
    e->exact = r.exact;
    e->depth = (uint8_t)(r.depth > 255 ? 255 : r.depth);
    /* A search cut by its budget may stop inside an iteration that has valued some moves one ply
     * deeper than the last finished one: the values compared are the moves' own, so that the
     * best is the best value known and no move comes out worth more than it. */
    int top = -1;
    for (int i = 0; i < r.nmoves; i++)
      if (r.moves[i].known &&
          (top < 0 || r.moves[i].value > r.moves[top].value ||
           (r.moves[i].value == r.moves[top].value && r.moves[i].move == r.best)))
        top = i;
    if (top >= 0) {
      e->value = r.moves[top].value;
      e->exact = r.moves[top].exact;
      if (r.moves[top].move != e->best) {
        e->best = r.moves[top].move;
        e->pv[0] = e->best;
        e->pv_len = 1;
      }
    }
    e->played_known = false;
    e->played_exact = false;
    e->played_value = e->value;
    for (int i = 0; i < r.nmoves; i++) {
      if (r.moves[i].move == e->played && r.moves[i].known) {
        e->played_known = true;
        e->played_exact = r.moves[i].exact;
        e->played_value = r.moves[i].value;
      }
    }
    if (cancel && atomic_load(cancel)) {
      rc = MC_ECANCELED;
      goto done;
    }
  }
done:
  free(pos);
  free(at);
  free(wstart);
  free(swap_legal);
  free(first_turn);
  mc_game_free(g);
  return rc;
}
