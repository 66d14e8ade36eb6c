/* The reads behind the archive and the profiles: a game with its moves, a player's games, the
 * leaderboards, rating histories and the secrets; and the row decoders the other reads share. */
#include "srv_store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_text.h"

/* ---- Rows ----------------------------------------------------------------------------------- */

void srv_store__col_text(const srv_store__cols *s, int i, char *buf, size_t size) {
  const char *t = srv_store__text(s, i);
  snprintf(buf, size, "%s", t ? t : "");
}

void srv_store__col_seat(const srv_store__cols *s, int first, srv_store_seat *seat) {
  srv_store__col_text(s, first, seat->player, sizeof seat->player);
  srv_store__col_text(s, first + 1, seat->name, sizeof seat->name);
  seat->computer = (int)srv_store__int(s, first + 2);
}

void srv_store__col_rating(const srv_store__cols *s, int first, srv_store_rating *r) {
  r->rating = srv_store__real(s, first);
  r->rd = srv_store__real(s, first + 1);
  r->vol = srv_store__real(s, first + 2);
  r->games = (int)srv_store__int(s, first + 3);
  r->wins = (int)srv_store__int(s, first + 4);
  r->losses = (int)srv_store__int(s, first + 5);
  r->draws = (int)srv_store__int(s, first + 6);
  r->last_ms = srv_store__int(s, first + 7);
}

int srv_store__row_player(srv_store *store, const srv_store__cols *s, void *item) {
  (void)store;
  srv_store_player *p = item;
  memset(p, 0, sizeof *p);
  srv_store__col_text(s, 0, p->id, sizeof p->id);
  srv_store__col_text(s, 1, p->name, sizeof p->name);
  p->created_ms = srv_store__int(s, 2);
  return 0;
}

/* The rules go through the engine's own parser, so a stored board the engine does not accept is
 * refused here. */
int srv_store__row_game(srv_store *store, const srv_store__cols *s, void *item) {
  srv_store_game *g = item;
  char text[192], game[16], options[128];
  g->id = srv_store__int(s, 0);
  srv_store__col_text(s, 1, g->room, sizeof g->room);
  g->game_no = (int)srv_store__int(s, 2);
  srv_store__col_text(s, 3, game, sizeof game);
  srv_store__col_text(s, 6, options, sizeof options);
  snprintf(text, sizeof text, "%s %dx%d%s%s", game, (int)srv_store__int(s, 4),
           (int)srv_store__int(s, 5), options[0] ? " " : "", options);
  mc_text_error terr;
  if (mc_rules_parse(text, &g->rules, &terr) != 0) {
    srv_store__set_error(store->error, "%s: game %lld: bad rules \"%s\": %s", store->path,
                         (long long)g->id, text, terr.message);
    return SRV_STORE_ECORRUPT;
  }
  srv_store__col_seat(s, 7, &g->seats[0]);
  srv_store__col_seat(s, 10, &g->seats[1]);
  g->clocked = !srv_store__null(s, 13);
  g->initial_ms = g->clocked ? srv_store__int(s, 13) : 0;
  g->increment_ms = g->clocked ? srv_store__int(s, 14) : 0;
  g->started_ms = srv_store__int(s, 15);
  g->ended_ms = srv_store__null(s, 16) ? 0 : srv_store__int(s, 16);
  g->winner = MC_DRAW;
  g->reason = MC_REASON_NONE;
  g->aborted = false;
  if (g->ended_ms != 0) {
    char w[16], r[32];
    srv_store__col_text(s, 17, w, sizeof w);
    srv_store__col_text(s, 18, r, sizeof r);
    g->aborted = srv_store__null(s, 17) && strcmp(r, "aborted") == 0;
    if (g->aborted)
      w[0] = r[0] = '\0'; /* No result. */
    else if (strcmp(w, "south") == 0)
      g->winner = MC_WIN_SOUTH;
    else if (strcmp(w, "north") == 0)
      g->winner = MC_WIN_NORTH;
    else if (strcmp(w, "draw") != 0)
      r[0] = '\0';
    if (!g->aborted && (mc_reason_parse(r, &g->reason) != 0 || g->reason == MC_REASON_NONE)) {
      srv_store__set_error(store->error, "%s: game %lld: bad result \"%s\"/\"%s\"", store->path,
                           (long long)g->id, w, r);
      return SRV_STORE_ECORRUPT;
    }
    g->score[0] = (int)srv_store__int(s, 19);
    g->score[1] = (int)srv_store__int(s, 20);
  }
  g->rated = (int)srv_store__int(s, 21) != 0;
  return 0;
}

static int row_move(srv_store *store, const srv_store__cols *s, void *item) {
  (void)store;
  srv_store_move *m = item;
  m->ply = (int)srv_store__int(s, 0);
  m->seat = (int)srv_store__int(s, 1);
  m->house = (int)srv_store__int(s, 2);
  m->clock_ms = srv_store__null(s, 3) ? -1 : srv_store__int(s, 3);
  m->at_ms = srv_store__int(s, 4);
  return 0;
}

int srv_store__read_moves(srv_store *store, srv_store_game *g) {
  g->n_moves = 0;
  g->moves = NULL;
  int err = srv_store__all(store, STMT_GAME_MOVES, STORE_ARGS(arg_int(g->id)), row_move,
                           (void **)&g->moves, &g->n_moves, sizeof *g->moves, "cannot read moves");
  if (err != 0) {
    free(g->moves);
    g->moves = NULL;
    g->n_moves = 0;
  }
  return err;
}

/* ---- Games ---------------------------------------------------------------------------------- */

void srv_store_game_free(srv_store_game *game) {
  if (game == NULL)
    return;
  free(game->moves);
  free(game);
}

int srv_store_game_get(srv_store *store, int64_t id, srv_store_game **out) {
  if (store == NULL || out == NULL)
    return SRV_STORE_EINVAL;
  *out = NULL;
  int checked = srv_store__check_files(store, false);
  if (checked != 0)
    return checked;
  srv_store_game *g = calloc(1, sizeof *g);
  if (g == NULL)
    return SRV_STORE_ENOMEM;
  int err = srv_store__get(store, STMT_GAME_GET, STORE_ARGS(arg_int(id)), srv_store__row_game, g,
                           "cannot read a game");
  if (err == 0)
    err = srv_store__read_moves(store, g);
  if (err != 0) {
    srv_store_game_free(g);
    return err;
  }
  *out = g;
  return 0;
}

void srv_store_game_list_free(srv_store_game_list *list) {
  if (list == NULL)
    return;
  for (size_t i = 0; i < list->n; i++)
    free(list->games[i].moves);
  free(list->games);
  free(list);
}

/* A row of a player's games: the game columns, its number of moves and, from STMT_GAMES_PAGE, the
 * player's rating after the game and its change (NULL: the game did not rate the player). */
static int row_list_game(srv_store *store, const srv_store__cols *s, void *item) {
  srv_store_game *g = item;
  int err = srv_store__row_game(store, s, g);
  if (err != 0)
    return err;
  g->n_moves = (size_t)srv_store__int(s, 22);
  if (srv_store__ncols(s) > 23) {
    g->rating_known = !srv_store__null(s, 23);
    g->rating_after = srv_store__real(s, 23);
    g->rating_diff = srv_store__real(s, 24);
  }
  for (int k = 0; k < 2 && srv_store__ncols(s) > 25 + k; k++) {
    g->accuracy_known[k] = !srv_store__null(s, 25 + k);
    g->accuracy[k] = srv_store__real(s, 25 + k);
  }
  return 0;
}

/* The one reader of a player's games: statement id (STMT_PLAYER_GAMES or STMT_GAMES_PAGE) bound
 * to args into a new *out. */
static int player_games(srv_store *store, srv_store__stmt id, const srv_store__val *args, size_t n,
                        srv_store_game_list **out) {
  srv_store_game_list *list = calloc(1, sizeof *list);
  if (list == NULL)
    return SRV_STORE_ENOMEM;
  int err = srv_store__all(store, id, args, n, row_list_game, (void **)&list->games, &list->n,
                           sizeof *list->games, "cannot read a player's games");
  if (err != 0) {
    srv_store_game_list_free(list);
    return err;
  }
  *out = list;
  return 0;
}

int srv_store_player_games(srv_store *store, const char *id, int limit, srv_store_game_list **out) {
  if (store == NULL || id == NULL || out == NULL || limit < 1 || limit > 100)
    return SRV_STORE_EINVAL;
  *out = NULL;
  int checked = srv_store__check_files(store, false);
  if (checked != 0)
    return checked;
  return player_games(store, STMT_PLAYER_GAMES, STORE_ARGS(arg_text(id), arg_int(limit)), out);
}

int srv_store_player_games_page(srv_store *store, const char *id, int64_t before_id, int limit,
                                srv_store_game_list **out) {
  if (store == NULL || id == NULL || out == NULL || limit < 1 || limit > 101 || before_id < 0)
    return SRV_STORE_EINVAL;
  *out = NULL;
  return player_games(
      store, STMT_GAMES_PAGE,
      STORE_ARGS(arg_text(id), arg_int(limit), arg_int(before_id > 0 ? before_id : INT64_MAX)),
      out);
}

/* ---- Leaderboards and rating histories ------------------------------------------------------ */

void srv_store_board_free(srv_store_board *board) {
  if (board == NULL)
    return;
  free(board->rows);
  free(board);
}

static int row_board(srv_store *store, const srv_store__cols *s, void *item) {
  (void)store;
  srv_store_board_row *row = item;
  srv_store__col_text(s, 0, row->player, sizeof row->player);
  srv_store__col_text(s, 1, row->name, sizeof row->name);
  srv_store__col_rating(s, 2, &row->rating);
  return 0;
}

int srv_store_leaderboard(srv_store *store, mc_kind kind, long offset, int limit,
                          srv_store_board **out) {
  const char *name = mc_kind_name(kind);
  if (store == NULL || out == NULL || name == NULL || offset < 0 || limit < 1 || limit > 100)
    return SRV_STORE_EINVAL;
  *out = NULL;
  srv_store_board *b = calloc(1, sizeof *b);
  if (b == NULL)
    return SRV_STORE_ENOMEM;
  int64_t total = 0;
  int err = srv_store__get(store, STMT_BOARD_COUNT, STORE_ARGS(arg_text(name)), srv_store__row_int,
                           &total, "cannot count a leaderboard");
  b->total = (long)total;
  if (err == 0)
    err = srv_store__all(store, STMT_BOARD,
                         STORE_ARGS(arg_text(name), arg_int(limit), arg_int(offset)), row_board,
                         (void **)&b->rows, &b->n, sizeof *b->rows, "cannot read a leaderboard");
  if (err != 0) {
    srv_store_board_free(b);
    return err;
  }
  *out = b;
  return 0;
}

int srv_store_rank(srv_store *store, mc_kind kind, double rating, long *rank) {
  const char *name = mc_kind_name(kind);
  if (store == NULL || name == NULL || rank == NULL)
    return SRV_STORE_EINVAL;
  int64_t above = 0;
  int err = srv_store__get(store, STMT_BOARD_RANK, STORE_ARGS(arg_text(name), arg_real(rating)),
                           srv_store__row_int, &above, "cannot read a rank");
  if (err == 0)
    *rank = (long)above + 1;
  return err;
}

int srv_store_games_next_id(srv_store *store, int64_t *next) {
  if (store == NULL || next == NULL)
    return SRV_STORE_EINVAL;
  return srv_store__get(store, STMT_GAME_NEXT_ID, NULL, 0, srv_store__row_int, next,
                        "cannot read the next game id");
}

static int row_point(srv_store *store, const srv_store__cols *s, void *item) {
  (void)store;
  srv_store_rating_point *p = item;
  p->game_id = srv_store__int(s, 0);
  p->at_ms = srv_store__int(s, 1);
  p->rating = srv_store__real(s, 2);
  p->rd = srv_store__real(s, 3);
  p->diff = srv_store__real(s, 4);
  return 0;
}

int srv_store_rating_history(srv_store *store, const char *player, mc_kind kind, int limit,
                             srv_store_rating_point **points, size_t *n) {
  const char *name = mc_kind_name(kind);
  if (store == NULL || player == NULL || name == NULL || points == NULL || n == NULL || limit < 1 ||
      limit > 1000)
    return SRV_STORE_EINVAL;
  *points = NULL;
  *n = 0;
  int err = srv_store__all(store, STMT_HISTORY,
                           STORE_ARGS(arg_text(player), arg_text(name), arg_int(limit)), row_point,
                           (void **)points, n, sizeof **points, "cannot read a rating history");
  if (err != 0) {
    free(*points);
    *points = NULL;
    *n = 0;
  }
  return err;
}

/* ---- Secrets -------------------------------------------------------------------------------- */

/* Where a secret goes: len bytes at out. */
typedef struct secret_out {
  unsigned char *out;
  size_t len;
} secret_out;

static int row_secret(srv_store *store, const srv_store__cols *s, void *item) {
  (void)store;
  secret_out *to = item;
  return srv_store__blob(s, 0, to->out, to->len) == 0 ? 0 : SRV_STORE_ENOTFOUND;
}

int srv_store_secret(srv_store *store, const char *name, unsigned char *out, size_t len) {
  if (store == NULL || name == NULL || out == NULL)
    return SRV_STORE_EINVAL;
  secret_out to = {out, len};
  return srv_store__get(store, STMT_SECRET, STORE_ARGS(arg_text(name)), row_secret, &to,
                        "cannot read a secret");
}

/* ---- Analyses ------------------------------------------------------------------------------- */

static int row_analysis(srv_store *store, const srv_store__cols *s, void *item) {
  (void)store;
  srv_store_analysis *a = item;
  a->game = srv_store__int(s, 0);
  a->analysed_ms = srv_store__int(s, 1);
  a->ply_ms = srv_store__int(s, 2);
  for (int k = 0; k < 2; k++) {
    a->accuracy_known[k] = !srv_store__null(s, 3 + k);
    a->accuracy[k] = srv_store__real(s, 3 + k);
  }
  const char *plies = srv_store__text(s, 5);
  free(a->plies);
  a->plies = strdup(plies != NULL ? plies : "[]");
  return a->plies != NULL ? 0 : SRV_STORE_ENOMEM;
}

int srv_store_analysis_get(srv_store *store, int64_t game, srv_store_analysis *out) {
  if (store == NULL || out == NULL)
    return SRV_STORE_EINVAL;
  memset(out, 0, sizeof *out);
  int checked = srv_store__check_files(store, false);
  if (checked != 0)
    return checked;
  int err = srv_store__get(store, STMT_ANALYSIS_GET, STORE_ARGS(arg_int(game)), row_analysis, out,
                           "cannot read an analysis");
  if (err != 0)
    srv_store_analysis_free(out);
  return err;
}

void srv_store_analysis_free(srv_store_analysis *a) {
  if (a == NULL)
    return;
  free(a->plies);
  a->plies = NULL;
}
