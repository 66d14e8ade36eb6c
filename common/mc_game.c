/* Games: moves, repetition history and result around a position. */
#include "mc_game.h"

#include <stdlib.h>
#include <string.h>

#include "mc_error.h"
#include "mc_internal.h"

struct mc_game {
  mc_rules rules;
  mc_pos pos;
  mc_result result; /* Reason MC_REASON_NONE while the game goes on. */
  uint8_t *moves;   /* Houses played, moves_cap of them allocated. */
  uint8_t *movers;  /* The seat of each move, same capacity. */
  size_t ply, moves_cap;
  long swap_ply;   /* The ply of the swap (MC_SWAP in moves), -1: none. */
  mc_pos *history; /* Positions since the last change of store totals or round; pos is last. */
  size_t history_len, history_cap;
  /* What the last mc_game_play() changed, for mc_game_undo(). A move that starts a new epoch
   * empties the history and overwrites history[0] only: the older entries are still there. */
  bool can_undo;
  mc_pos undo_pos;
  mc_pos undo_history0;
  size_t undo_history_len;
  mc_result undo_result;
};

/* Makes room for need moves. Returns 0 or MC_ENOMEM (nothing changed). */
static int reserve_moves(mc_game *g, size_t need) {
  if (need <= g->moves_cap)
    return 0;
  size_t cap = g->moves_cap ? g->moves_cap * 2 : 64;
  while (cap < need)
    cap *= 2;
  uint8_t *moves = realloc(g->moves, cap);
  if (moves == NULL)
    return MC_ENOMEM;
  g->moves = moves;
  uint8_t *movers = realloc(g->movers, cap);
  if (movers == NULL)
    return MC_ENOMEM; /* moves grew; moves_cap still tells the smaller size both have. */
  g->movers = movers;
  g->moves_cap = cap;
  return 0;
}

/* Makes room for need history positions. Returns 0 or MC_ENOMEM (nothing changed). */
static int reserve_history(mc_game *g, size_t need) {
  if (need <= g->history_cap)
    return 0;
  size_t cap = g->history_cap ? g->history_cap * 2 : 16;
  while (cap < need)
    cap *= 2;
  mc_pos *h = realloc(g->history, cap * sizeof(*h));
  if (h == NULL)
    return MC_ENOMEM;
  g->history = h;
  g->history_cap = cap;
  return 0;
}

mc_game *mc_game_new(const mc_rules *rules) {
  if (mc_rules_check(rules) < 0)
    return NULL;
  mc_game *g = calloc(1, sizeof(*g));
  if (g == NULL)
    return NULL;
  g->rules = *rules;
  mc_pos_init(&g->pos, rules);
  if (reserve_history(g, 1) < 0 || reserve_moves(g, 1) < 0) {
    mc_game_free(g);
    return NULL;
  }
  g->history[0] = g->pos;
  g->history_len = 1;
  g->swap_ply = -1;
  return g;
}

mc_game *mc_game_copy(const mc_game *game) {
  if (game == NULL)
    return NULL;
  mc_game *g = calloc(1, sizeof(*g));
  if (g == NULL)
    return NULL;
  g->rules = game->rules;
  g->pos = game->pos;
  g->result = game->result;
  if (reserve_moves(g, game->ply + 1) < 0 || reserve_history(g, game->history_len) < 0) {
    mc_game_free(g);
    return NULL;
  }
  memcpy(g->moves, game->moves, game->ply);
  memcpy(g->movers, game->movers, game->ply);
  g->ply = game->ply;
  g->swap_ply = game->swap_ply;
  memcpy(g->history, game->history, game->history_len * sizeof(mc_pos));
  g->history_len = game->history_len;
  return g;
}

void mc_game_free(mc_game *game) {
  if (game == NULL)
    return;
  free(game->moves);
  free(game->movers);
  free(game->history);
  free(game);
}

const mc_rules *mc_game_rules(const mc_game *game) {
  return &game->rules;
}

const mc_pos *mc_game_pos(const mc_game *game) {
  return &game->pos;
}

const mc_pos *mc_game_history(const mc_game *game, size_t *n) {
  if (n)
    *n = game->history_len;
  return game->history;
}

size_t mc_game_ply(const mc_game *game) {
  return game->ply;
}

const uint8_t *mc_game_moves(const mc_game *game, size_t *n) {
  if (n)
    *n = game->ply;
  return game->moves;
}

int mc_game_mover(const mc_game *game, size_t i) {
  return i < game->ply ? game->movers[i] : -1;
}

int mc_game_player(const mc_game *game, size_t i) {
  if (i >= game->ply)
    return -1;
  return game->swap_ply >= 0 && i > (size_t)game->swap_ply ? !game->movers[i] : game->movers[i];
}

long mc_game_swap_ply(const mc_game *game) {
  return game->swap_ply;
}

bool mc_game_can_swap(const mc_game *game) {
  if (game == NULL || !game->rules.pie || game->result.reason != MC_REASON_NONE || game->ply == 0 ||
      game->pos.round != 1 || game->pos.turn == game->movers[0])
    return false;
  /* Only the first player has moved: its first turn (with its extra turns) is over. */
  for (size_t i = 1; i < game->ply; i++) {
    if (game->movers[i] != game->movers[0])
      return false;
  }
  return true;
}

/* Plays the swap: nothing on the board changes; the move list and the owners of the sides do. */
static int play_swap(mc_game *game, mc_trace *trace) {
  if (!mc_game_can_swap(game))
    return MC_EILLEGAL;
  if (reserve_moves(game, game->ply + 1) < 0)
    return MC_ENOMEM;
  if (trace)
    trace->len = 0;
  game->can_undo = true;
  game->undo_pos = game->pos;
  game->undo_history0 = game->history[0];
  game->undo_history_len = game->history_len;
  game->undo_result = game->result;
  game->swap_ply = (long)game->ply;
  game->moves[game->ply] = MC_SWAP;
  game->movers[game->ply] = game->pos.turn;
  game->ply++;
  return 0;
}

int mc_game_legal(const mc_game *game, uint8_t moves[MC_MAX_HOUSES]) {
  if (game == NULL || moves == NULL)
    return MC_EINVAL;
  if (game->result.reason != MC_REASON_NONE)
    return 0;
  return mc__legal(&game->pos, &game->rules, moves);
}

int mc_game_play(mc_game *game, int house, mc_trace *trace) {
  if (game == NULL)
    return MC_EINVAL;
  if (game->result.reason != MC_REASON_NONE)
    return MC_EOVER;
  if (house == MC_SWAP)
    return play_swap(game, trace);
  if (house < 1 || house > game->rules.houses)
    return MC_EINVAL;
  uint8_t moves[MC_MAX_HOUSES];
  int n = mc__legal(&game->pos, &game->rules, moves);
  if (memchr(moves, house, (size_t)n) == NULL)
    return MC_EILLEGAL;
  /* Reserve first so that nothing can fail once the move is made. */
  if (reserve_moves(game, game->ply + 1) < 0 || reserve_history(game, game->history_len + 1) < 0)
    return MC_ENOMEM;

  mc_pos next = game->pos;
  mc_result res = {0};
  size_t trace_len = trace ? trace->len : 0;
  size_t history_len = game->history_len; /* Before a new epoch empties the history. */
  if (trace)
    trace->len = 0;
  int rc = mc__play(&next, &game->rules, house, trace, &res);
  if (rc == 0 && game->rules.kind != MC_KALAH) {
    /* Repetition (Oware 6, Congkak 8): the third occurrence of pits and side to move. */
    if (mc__epoch(&next) == mc__epoch(&game->pos)) {
      int seen = 0;
      for (size_t i = 0; i < game->history_len; i++)
        seen += mc_pos_same(&game->history[i], &next);
      if (seen >= 2)
        rc = mc__sweep_owners(&next, trace) < 0 ? MC_ELIMIT : 1;
      if (rc == 1)
        mc__result_by_stores(&next, MC_REASON_REPETITION, &res);
    }
  }
  if (rc < 0) {
    if (trace)
      trace->len = trace_len;
    return rc;
  }
  game->can_undo = true;
  game->undo_pos = game->pos;
  game->undo_history0 = game->history[0];
  game->undo_history_len = history_len;
  game->undo_result = game->result;
  if (game->rules.kind != MC_KALAH && mc__epoch(&next) != mc__epoch(&game->pos))
    game->history_len = 0; /* A new epoch: no earlier position can come back. */
  game->moves[game->ply] = (uint8_t)house;
  game->movers[game->ply] = game->pos.turn;
  game->ply++;
  game->pos = next;
  game->history[game->history_len++] = next;
  if (rc == 1)
    game->result = res;
  return 0;
}

int mc_game_undo(mc_game *game) {
  if (game == NULL || !game->can_undo || game->ply == 0)
    return MC_EINVAL;
  game->can_undo = false;
  game->ply--;
  if (game->swap_ply == (long)game->ply)
    game->swap_ply = -1;
  game->pos = game->undo_pos;
  game->history[0] = game->undo_history0;
  game->history_len = game->undo_history_len;
  game->result = game->undo_result;
  return 0;
}

bool mc_game_over(const mc_game *game, mc_result *result) {
  if (game->result.reason == MC_REASON_NONE)
    return false;
  if (result)
    *result = game->result;
  return true;
}

int mc_game_finish(mc_game *game, mc_reason reason, mc_winner winner) {
  if (game == NULL || reason < MC_REASON_RESIGNATION || reason > MC_REASON_ABANDONED ||
      (unsigned)winner > MC_DRAW)
    return MC_EINVAL;
  if (game->result.reason != MC_REASON_NONE)
    return MC_EOVER;
  game->can_undo = false;
  const int m = game->pos.houses;
  game->result.reason = reason;
  game->result.winner = winner;
  game->result.score[0] = game->pos.pits[MC__STORE(m, 0)];
  game->result.score[1] = game->pos.pits[MC__STORE(m, 1)];
  return 0;
}
