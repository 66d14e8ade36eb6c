/* Replay: stored moves checked by playing them through the engine, and the clocks they leave. No
 * SQL here: these work on a srv_store_game already read. */
#include "srv_store.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mc_error.h"

static int bad_row(srv_store_bad_row *bad, const srv_store_game *g, size_t i, int err,
                   const char *fmt, ...) {
  if (bad != NULL) {
    const srv_store_move *m = &g->moves[i];
    bad->index = i;
    bad->ply = m->ply;
    bad->seat = m->seat;
    bad->house = m->house;
    bad->err = err;
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(bad->message, sizeof bad->message, "game %lld, move row %zu (ply %d): %s",
             (long long)g->id, i, m->ply, what);
  }
  return SRV_STORE_EBADROW;
}

int srv_store_replay(const srv_store_game *g, bool apply_result, mc_game **out,
                     srv_store_bad_row *bad) {
  if (g == NULL || out == NULL || (g->n_moves > 0 && g->moves == NULL))
    return SRV_STORE_EINVAL;
  *out = NULL;
  if (mc_rules_check(&g->rules) != 0)
    return SRV_STORE_EINVAL;
  mc_game *game = mc_game_new(&g->rules);
  if (game == NULL)
    return SRV_STORE_ENOMEM;
  for (size_t i = 0; i < g->n_moves; i++) {
    const srv_store_move *m = &g->moves[i];
    int err = 0;
    if (m->ply < 0 || (size_t)m->ply != i)
      err = bad_row(bad, g, i, 0, "expected ply %zu", i);
    else if (!mc_game_over(game, NULL) && m->seat != mc_game_pos(game)->turn)
      err = bad_row(bad, g, i, 0, "seat %d moved but %s was to move", m->seat,
                    mc_seat_name((mc_seat)mc_game_pos(game)->turn));
    if (err == 0) {
      int rc = mc_game_play(game, m->house, NULL);
      if (rc == MC_ENOMEM)
        err = SRV_STORE_ENOMEM;
      else if (rc < 0)
        err = bad_row(bad, g, i, rc, "house %d: %s", m->house, mc_strerror(rc));
    }
    if (err != 0) {
      mc_game_free(game);
      return err;
    }
  }
  /* A result from the board must agree with the stored one; one from outside is applied. */
  mc_result res;
  const char *why = NULL;
  if (apply_result && g->ended_ms != 0 && !g->aborted) {
    if (mc_game_over(game, &res)) {
      if (res.reason != g->reason || res.winner != g->winner)
        why = "differs from the result on the board";
    } else if (mc_game_finish(game, g->reason, g->winner) != 0) {
      why = "cannot end a game in progress";
    }
  }
  if (why != NULL) {
    if (bad != NULL) {
      memset(bad, 0, sizeof *bad);
      bad->index = g->n_moves;
      bad->ply = -1;
      snprintf(bad->message, sizeof bad->message, "game %lld: the stored result %s/%s %s",
               (long long)g->id, mc_winner_name(g->winner), mc_reason_name(g->reason), why);
    }
    mc_game_free(game);
    return SRV_STORE_EBADROW;
  }
  *out = game;
  return 0;
}

int srv_store_clocks(const srv_store_game *g, int64_t left_ms[2]) {
  if (g == NULL || left_ms == NULL || !g->clocked)
    return SRV_STORE_EINVAL;
  /* By player (the seat each held at the start): a row holds its mover's clock, and after the
   * pie rule's swap the players hold the other sides. */
  int64_t left[2] = {g->initial_ms, g->initial_ms};
  bool swapped = false;
  for (size_t i = 0; i < g->n_moves; i++) {
    const srv_store_move *m = &g->moves[i];
    if (m->seat >= 0 && m->seat <= 1 && m->clock_ms >= 0)
      left[swapped ? !m->seat : m->seat] = m->clock_ms;
    if (m->house == MC_SWAP)
      swapped = true;
  }
  left_ms[0] = left[swapped ? 1 : 0];
  left_ms[1] = left[swapped ? 0 : 1];
  return 0;
}
