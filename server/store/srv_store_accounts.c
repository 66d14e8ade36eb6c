/* Players, their sessions, accounts and ratings: the writes (each joins the batch,
 * srv_store_batch.c) and the reads that log a player in or rate a game. */
#include "srv_store_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- Players and sessions ------------------------------------------------------------------- */

int srv_store_player_put(srv_store *store, const srv_store_player *player) {
  if (store == NULL || player == NULL || player->id[0] == '\0')
    return SRV_STORE_EINVAL;
  return srv_store__write(
      store, srv_store__op(SRV_STORE_OP_PLAYER, player->id, 0, 0), STMT_PLAYER_PUT,
      STORE_ARGS(arg_text(player->id), arg_text(player->name), arg_int(player->created_ms)),
      "cannot store a player");
}

int srv_store_player_seen(srv_store *store, const char *id, int64_t seen_ms) {
  if (store == NULL || id == NULL)
    return SRV_STORE_EINVAL;
  return srv_store__write(store, srv_store__op(SRV_STORE_OP_PLAYER, id, 0, 0), STMT_PLAYER_SEEN,
                          STORE_ARGS(arg_text(id), arg_int(seen_ms)),
                          "cannot store when a player was seen");
}

int srv_store_players_expire(srv_store *store, int64_t before_ms) {
  if (store == NULL)
    return SRV_STORE_EINVAL;
  srv_store_op op = srv_store__op(SRV_STORE_OP_PLAYER, "", 0, 0);
  int rc = srv_store__write(store, op, STMT_SESSIONS_EXPIRE, STORE_ARGS(arg_int(before_ms)),
                            "cannot expire sessions");
  if (rc == 0)
    rc = srv_store__write(store, op, STMT_PLAYERS_EXPIRE, STORE_ARGS(arg_int(before_ms)),
                          "cannot expire players");
  /* PostgreSQL deletes them at the commit: how many is not known here. */
  return rc < 0 ? rc : store->pg ? 0 : sqlite3_changes(store->db);
}

int srv_store_player_by_token(srv_store *store, const uint8_t token_hash[32],
                              srv_store_player *out) {
  if (store == NULL || token_hash == NULL || out == NULL)
    return SRV_STORE_EINVAL;
  int checked = srv_store__check_files(store, false);
  if (checked != 0)
    return checked;
  return srv_store__get(store, STMT_PLAYER_BY_TOKEN, STORE_ARGS(arg_blob(token_hash, 32)),
                        srv_store__row_player, out, "cannot read a player");
}

int srv_store_session_put(srv_store *store, const uint8_t token_hash[32], const char *player,
                          int64_t created_ms) {
  if (store == NULL || token_hash == NULL || player == NULL || player[0] == '\0')
    return SRV_STORE_EINVAL;
  return srv_store__write(
      store, srv_store__op(SRV_STORE_OP_ACCOUNT, player, 0, 0), STMT_SESSION_PUT,
      STORE_ARGS(arg_blob(token_hash, 32), arg_text(player), arg_int(created_ms)),
      "cannot store a session");
}

int srv_store_session_delete(srv_store *store, const uint8_t token_hash[32]) {
  if (store == NULL || token_hash == NULL)
    return SRV_STORE_EINVAL;
  return srv_store__write(store, srv_store__op(SRV_STORE_OP_ACCOUNT, "", 0, 0), STMT_SESSION_DELETE,
                          STORE_ARGS(arg_blob(token_hash, 32)), "cannot delete a session");
}

int srv_store_sessions_revoke(srv_store *store, const char *player, const uint8_t *keep) {
  if (store == NULL || player == NULL)
    return SRV_STORE_EINVAL;
  srv_store_op op = srv_store__op(SRV_STORE_OP_ACCOUNT, player, 0, 0);
  if (keep == NULL)
    return srv_store__write(store, op, STMT_SESSIONS_REVOKE_ALL, STORE_ARGS(arg_text(player)),
                            "cannot revoke sessions");
  return srv_store__write(store, op, STMT_SESSIONS_REVOKE,
                          STORE_ARGS(arg_text(player), arg_blob(keep, 32)),
                          "cannot revoke sessions");
}

int srv_store_session_seen(srv_store *store, const uint8_t token_hash[32], int64_t seen_ms) {
  if (store == NULL || token_hash == NULL)
    return SRV_STORE_EINVAL;
  return srv_store__write(store, srv_store__op(SRV_STORE_OP_ACCOUNT, "", 0, 0), STMT_SESSION_SEEN,
                          STORE_ARGS(arg_blob(token_hash, 32), arg_int(seen_ms)),
                          "cannot store when a session was used");
}

int srv_store_session_label(srv_store *store, const uint8_t token_hash[32], const char *label) {
  if (store == NULL || token_hash == NULL || label == NULL || strlen(label) >= SRV_STORE_LABEL_SIZE)
    return SRV_STORE_EINVAL;
  return srv_store__write(store, srv_store__op(SRV_STORE_OP_ACCOUNT, "", 0, 0), STMT_SESSION_LABEL,
                          STORE_ARGS(arg_blob(token_hash, 32), arg_text(label)),
                          "cannot store a session's device");
}

static int row_session(srv_store *store, const srv_store__cols *s, void *item) {
  (void)store;
  srv_store_session *x = item;
  if (srv_store__blob(s, 0, x->token_hash, sizeof x->token_hash) != 0)
    return SRV_STORE_ECORRUPT;
  x->created_ms = srv_store__int(s, 1);
  x->seen_ms = srv_store__int(s, 2);
  srv_store__col_text(s, 3, x->label, sizeof x->label);
  return 0;
}

int srv_store_sessions_of(srv_store *store, const char *player, srv_store_session **out,
                          size_t *n) {
  if (store == NULL || player == NULL || out == NULL || n == NULL)
    return SRV_STORE_EINVAL;
  *out = NULL;
  *n = 0;
  int checked = srv_store__check_files(store, false);
  if (checked != 0)
    return checked;
  int rc = srv_store__all(store, STMT_SESSIONS_OF, STORE_ARGS(arg_text(player)), row_session,
                          (void **)out, n, sizeof **out, "cannot read sessions");
  if (rc != 0) {
    free(*out);
    *out = NULL;
    *n = 0;
  }
  return rc;
}

int srv_store_sessions_idle(srv_store *store, int64_t before_ms) {
  if (store == NULL)
    return SRV_STORE_EINVAL;
  int rc =
      srv_store__write(store, srv_store__op(SRV_STORE_OP_ACCOUNT, "", 0, 0), STMT_SESSIONS_IDLE,
                       STORE_ARGS(arg_int(before_ms)), "cannot expire idle sessions");
  return rc < 0 ? rc : store->pg ? 0 : sqlite3_changes(store->db);
}

static int row_hash(srv_store *store, const srv_store__cols *s, void *item) {
  (void)store;
  return srv_store__blob(s, 0, item, 32) == 0 ? 0 : SRV_STORE_ECORRUPT;
}

int srv_store_sessions_idle_list(srv_store *store, int64_t before_ms, uint8_t (**out)[32],
                                 size_t *n) {
  if (store == NULL || out == NULL || n == NULL)
    return SRV_STORE_EINVAL;
  *out = NULL;
  *n = 0;
  int checked = srv_store__check_files(store, false);
  if (checked != 0)
    return checked;
  int rc = srv_store__all(store, STMT_SESSIONS_IDLE_LIST, STORE_ARGS(arg_int(before_ms)), row_hash,
                          (void **)out, n, 32, "cannot read idle sessions");
  if (rc != 0) {
    free(*out);
    *out = NULL;
    *n = 0;
  }
  return rc;
}

/* ---- Accounts ------------------------------------------------------------------------------- */

int srv_store_account_create(srv_store *store, const srv_store_account *a) {
  if (store == NULL || a == NULL || a->player[0] == '\0' || a->key[0] == '\0' ||
      a->password[0] == '\0')
    return SRV_STORE_EINVAL;
  /* PostgreSQL learns of a taken name only at the commit, which the conflict would cost whole
   * (everyone's moves in it): a name or player already in a batch not yet committed is refused
   * here, as SQLite refuses it at once. */
  if (store->pg != NULL) {
    int rc = srv_store__pg_account_pending(store, a->key, a->player);
    if (rc != 0)
      return rc;
  }
  return srv_store__write(
      store, srv_store__op(SRV_STORE_OP_ACCOUNT, a->player, 0, 0), STMT_ACCOUNT_INSERT,
      STORE_ARGS(arg_text(a->player), arg_text(a->name), arg_text(a->key), arg_text(a->password),
                 arg_int(a->created_ms), arg_int(a->password_ms)),
      "cannot store an account");
}

int srv_store_account_password(srv_store *store, const char *player, const char *password,
                               int64_t at_ms) {
  if (store == NULL || player == NULL || password == NULL || password[0] == '\0')
    return SRV_STORE_EINVAL;
  if (store->pg != NULL) { /* Its batch cannot say how many rows changed: asked first. */
    srv_store_account a;
    int found = srv_store_account_by_player(store, player, &a);
    if (found != 0)
      return found;
  }
  int rc = srv_store__write(
      store, srv_store__op(SRV_STORE_OP_ACCOUNT, player, 0, 0), STMT_ACCOUNT_PASSWORD,
      STORE_ARGS(arg_text(player), arg_text(password), arg_int(at_ms)), "cannot store a password");
  if (rc == 0 && store->pg == NULL && sqlite3_changes(store->db) == 0)
    return SRV_STORE_ENOTFOUND;
  return rc;
}

int srv_store_account_delete(srv_store *store, const char *player, const char *anon_name) {
  if (store == NULL || player == NULL || player[0] == '\0' || anon_name == NULL)
    return SRV_STORE_EINVAL;
  int rc = srv_store__write_begin(store);
  if (rc != 0)
    return rc;
  /* Everything that names the player, then its seats in games and rooms and its chat lines
   * anonymised. */
  const srv_store__stmt by_id[] = {STMT_DELETE_ACCOUNT, STMT_SESSIONS_REVOKE_ALL,
                                   STMT_DELETE_RATINGS, STMT_DELETE_HISTORY, STMT_DELETE_PLAYER};
  const srv_store__stmt anon[] = {STMT_ANON_GAMES_SOUTH, STMT_ANON_GAMES_NORTH,
                                  STMT_ANON_ROOMS_SOUTH, STMT_ANON_ROOMS_NORTH, STMT_ANON_CHAT};
  rc = SQLITE_OK;
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof by_id / sizeof by_id[0]; i++)
    rc = srv_store__exec(store, by_id[i], STORE_ARGS(arg_text(player)));
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof anon / sizeof anon[0]; i++)
    rc = srv_store__exec(store, anon[i], STORE_ARGS(arg_text(player), arg_text(anon_name)));
  srv_store_op op = srv_store__op(SRV_STORE_OP_ACCOUNT, player, 0, 0);
  return srv_store__write_end(store, rc, &op, "cannot delete an account");
}

static int row_account(srv_store *store, const srv_store__cols *s, void *item) {
  (void)store;
  srv_store_account *a = item;
  memset(a, 0, sizeof *a);
  srv_store__col_text(s, 0, a->player, sizeof a->player);
  srv_store__col_text(s, 1, a->name, sizeof a->name);
  srv_store__col_text(s, 2, a->key, sizeof a->key);
  srv_store__col_text(s, 3, a->password, sizeof a->password);
  a->created_ms = srv_store__int(s, 4);
  a->password_ms = srv_store__int(s, 5);
  return 0;
}

/* Runs statement id, bound to one text, for one account. */
static int account_read(srv_store *store, srv_store__stmt id, const char *text,
                        srv_store_account *out) {
  if (store == NULL || text == NULL || out == NULL)
    return SRV_STORE_EINVAL;
  return srv_store__get(store, id, STORE_ARGS(arg_text(text)), row_account, out,
                        "cannot read an account");
}

int srv_store_account_by_key(srv_store *store, const char *key, srv_store_account *out) {
  return account_read(store, STMT_ACCOUNT_BY_KEY, key, out);
}

int srv_store_account_by_player(srv_store *store, const char *player, srv_store_account *out) {
  return account_read(store, STMT_ACCOUNT_BY_PLAYER, player, out);
}

/* srv_store_account_names()'s callback and its argument, for row_name(). */
typedef struct names_ctx {
  srv_store_name_fn fn;
  void *arg;
} names_ctx;

static int row_name(srv_store *store, const srv_store__cols *s, void *item) {
  (void)store;
  names_ctx *ctx = item;
  char player[SRV_STORE_ID_SIZE], name[SRV_STORE_NAME_SIZE];
  srv_store__col_text(s, 0, player, sizeof player);
  srv_store__col_text(s, 1, name, sizeof name);
  return ctx->fn(ctx->arg, player, name);
}

int srv_store_account_names(srv_store *store, srv_store_name_fn fn, void *arg) {
  if (store == NULL || fn == NULL)
    return SRV_STORE_EINVAL;
  names_ctx ctx = {fn, arg};
  int rows = srv_store__each(store, STMT_ACCOUNT_NAMES, NULL, 0, row_name, &ctx,
                             "cannot read the accounts' names");
  return rows < 0 ? rows : 0;
}

/* ---- Ratings -------------------------------------------------------------------------------- */

static void rating_new(srv_store_rating *r) {
  memset(r, 0, sizeof *r);
  r->rating = 1500.0;
  r->rd = 350.0;
  r->vol = 0.06;
}

/* A ratings row (game, then the rating's columns) into out[kind], out being the caller's
 * srv_store_rating[SRV_STORE_RATED_GAMES]; a game that is not rated is skipped. */
static int row_rating(srv_store *store, const srv_store__cols *s, void *ctx) {
  (void)store;
  srv_store_rating *out = ctx;
  mc_kind kind;
  const char *game = srv_store__text(s, 0);
  if (game != NULL && mc_kind_parse(game, &kind) == 0 && (int)kind < SRV_STORE_RATED_GAMES)
    srv_store__col_rating(s, 1, &out[kind]);
  return 0;
}

int srv_store_ratings_get(srv_store *store, const char *player,
                          srv_store_rating out[SRV_STORE_RATED_GAMES]) {
  if (store == NULL || player == NULL || out == NULL)
    return SRV_STORE_EINVAL;
  for (int k = 0; k < SRV_STORE_RATED_GAMES; k++)
    rating_new(&out[k]);
  int rows = srv_store__each(store, STMT_RATINGS_GET, STORE_ARGS(arg_text(player)), row_rating, out,
                             "cannot read ratings");
  return rows < 0 ? rows : 0;
}

int srv_store_game_rated(srv_store *store, int64_t game) {
  if (store == NULL || game <= 0)
    return SRV_STORE_EINVAL;
  int64_t count = 0;
  int err = srv_store__get(store, STMT_GAME_RATED, STORE_ARGS(arg_int(game)), srv_store__row_int,
                           &count, "cannot read a game's ratings");
  return err != 0 ? err : count > 0;
}

int srv_store_game_rate(srv_store *store, int64_t game, mc_kind kind, const char *const players[2],
                        const srv_store_rating after[2], const double diff[2], int64_t at_ms) {
  const char *name = mc_kind_name(kind);
  if (store == NULL || game <= 0 || name == NULL || players == NULL || after == NULL ||
      diff == NULL || players[0] == NULL || players[1] == NULL)
    return SRV_STORE_EINVAL;
  int rc = srv_store__write_begin(store);
  if (rc != 0)
    return rc;
  rc = SQLITE_OK;
  for (int i = 0; i < 2 && rc == SQLITE_OK; i++) {
    const srv_store_rating *r = &after[i];
    rc = srv_store__exec(store, STMT_HISTORY_INSERT,
                         STORE_ARGS(arg_text(players[i]), arg_int(game), arg_text(name),
                                    arg_real(r->rating), arg_real(r->rd), arg_real(diff[i]),
                                    arg_int(at_ms)));
    if (rc == SQLITE_OK)
      rc = srv_store__exec(store, STMT_RATING_PUT,
                           STORE_ARGS(arg_text(players[i]), arg_text(name), arg_real(r->rating),
                                      arg_real(r->rd), arg_real(r->vol), arg_int(r->games),
                                      arg_int(r->wins), arg_int(r->losses), arg_int(r->draws),
                                      arg_int(r->last_ms)));
  }
  srv_store_op op = srv_store__op(SRV_STORE_OP_GAME_FINISH, "", game, 0);
  if (rc != SQLITE_OK && (rc & 0xff) == SQLITE_CONSTRAINT) {
    /* Half of it may be in: a conflict is a bug of the caller, and costs the batch. */
    int err = srv_store__fail(store, rc, "cannot store ratings");
    srv_store__batch_lost(store);
    return err;
  }
  return srv_store__write_end(store, rc, &op, "cannot store ratings");
}
