/* Every statement the store runs after open: its SQL, prepared once at open, and the one way to
 * run a statement (bind its arguments, step it, read its rows, reset it). */
#include "srv_store_int.h"

#include <string.h>

#define STORE_STR_(x) #x
#define STORE_STR(x) STORE_STR_(x)

#define GAME_COLUMNS                                                                               \
  "id, room, game_no, game, houses, seeds, options, south, south_name, south_computer, north, "    \
  "north_name, north_computer, clock_initial_ms, clock_increment_ms, started_ms, ended_ms, "       \
  "result, reason, score_south, score_north, rated"

#define ACCOUNT_COLUMNS "player, name, name_key, password, created_ms, password_ms"

/* Guests created and last seen before ?1 with no account that never played a game and sit nowhere
 * (srv_store_players_expire()). */
#define EXPIRED_GUESTS                                                                             \
  "SELECT id FROM players WHERE created_ms < ?1 AND coalesce(seen_ms, 0) < ?1 "                    \
  "AND id NOT IN (SELECT player FROM accounts) AND id NOT IN ("                                    \
  "SELECT south FROM rooms WHERE south IS NOT NULL UNION "                                         \
  "SELECT north FROM rooms WHERE north IS NOT NULL UNION "                                         \
  "SELECT south FROM games WHERE south IS NOT NULL UNION "                                         \
  "SELECT north FROM games WHERE north IS NOT NULL)"

static const char *const stmt_sql[STMT_COUNT] = {
    /* Batches */
    [STMT_BEGIN] = "BEGIN IMMEDIATE",
    [STMT_COMMIT] = "COMMIT",
    [STMT_ROLLBACK] = "ROLLBACK",
    /* Players and sessions */
    [STMT_PLAYER_PUT] = "INSERT INTO players (id, name, created_ms) VALUES (?1, ?2, ?3) "
                        "ON CONFLICT (id) DO UPDATE SET name = excluded.name",
    [STMT_PLAYER_SEEN] = "UPDATE players SET seen_ms = ?2 WHERE id = ?1",
    [STMT_PLAYER_BY_TOKEN] = "SELECT id, name, players.created_ms FROM sessions JOIN players "
                             "ON players.id = sessions.player WHERE token_hash = ?1",
    [STMT_SESSIONS_EXPIRE] = "DELETE FROM sessions WHERE player IN (" EXPIRED_GUESTS ")",
    [STMT_PLAYERS_EXPIRE] = "DELETE FROM players WHERE id IN (" EXPIRED_GUESTS ")",
    [STMT_SESSION_PUT] = "INSERT OR IGNORE INTO sessions (token_hash, player, created_ms) "
                         "VALUES (?1, ?2, ?3)",
    [STMT_SESSION_DELETE] = "DELETE FROM sessions WHERE token_hash = ?1",
    [STMT_SESSIONS_REVOKE] = "DELETE FROM sessions WHERE player = ?1 AND token_hash != ?2",
    [STMT_SESSIONS_REVOKE_ALL] = "DELETE FROM sessions WHERE player = ?1",
    [STMT_SESSION_SEEN] = "UPDATE sessions SET seen_ms = ?2 WHERE token_hash = ?1",
    [STMT_SESSION_LABEL] = "UPDATE sessions SET label = ?2 WHERE token_hash = ?1",
    /* An account's sessions, the most recently used first (a session never used since schema 9
     * was last used when it was made). */
    [STMT_SESSIONS_OF] =
        "SELECT token_hash, created_ms, coalesce(seen_ms, created_ms), coalesce(label, '') "
        "FROM sessions WHERE player = ?1 "
        "ORDER BY coalesce(seen_ms, created_ms) DESC, created_ms DESC, token_hash",
    /* Accounts' sessions unused since ?1 (a guest's one session goes with the guest). */
    [STMT_SESSIONS_IDLE] = "DELETE FROM sessions WHERE coalesce(seen_ms, created_ms) < ?1 "
                           "AND player IN (SELECT player FROM accounts)",
    [STMT_SESSIONS_IDLE_LIST] = "SELECT token_hash FROM sessions WHERE coalesce(seen_ms, "
                                "created_ms) < ?1 AND player IN (SELECT player FROM accounts)",
    /* Accounts */
    [STMT_ACCOUNT_INSERT] = "INSERT INTO accounts (player, name, name_key, password, created_ms, "
                            "password_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [STMT_ACCOUNT_PASSWORD] =
        "UPDATE accounts SET password = ?2, password_ms = ?3 WHERE player = ?1",
    [STMT_ACCOUNT_BY_KEY] = "SELECT " ACCOUNT_COLUMNS " FROM accounts WHERE name_key = ?1",
    [STMT_ACCOUNT_BY_PLAYER] = "SELECT " ACCOUNT_COLUMNS " FROM accounts WHERE player = ?1",
    [STMT_ACCOUNT_NAMES] = "SELECT player, name FROM accounts ORDER BY player",
    [STMT_DELETE_ACCOUNT] = "DELETE FROM accounts WHERE player = ?1",
    [STMT_DELETE_RATINGS] = "DELETE FROM ratings WHERE player = ?1",
    [STMT_DELETE_HISTORY] = "DELETE FROM rating_history WHERE player = ?1",
    [STMT_DELETE_PLAYER] = "DELETE FROM players WHERE id = ?1",
    [STMT_ANON_GAMES_SOUTH] = "UPDATE games SET south = NULL, south_name = ?2 WHERE south = ?1",
    [STMT_ANON_GAMES_NORTH] = "UPDATE games SET north = NULL, north_name = ?2 WHERE north = ?1",
    [STMT_ANON_ROOMS_SOUTH] = "UPDATE rooms SET south = NULL, south_name = ?2 WHERE south = ?1",
    [STMT_ANON_ROOMS_NORTH] = "UPDATE rooms SET north = NULL, north_name = ?2 WHERE north = ?1",
    /* A chat line's player cannot be NULL (schema 5): an anonymous line's is empty. */
    [STMT_ANON_CHAT] = "UPDATE chat SET player = '', name = ?2 WHERE player = ?1",
    /* Ratings */
    [STMT_RATINGS_GET] = "SELECT game, rating, rd, vol, games, wins, losses, draws, last_ms "
                         "FROM ratings WHERE player = ?1",
    [STMT_GAME_RATED] = "SELECT count(*) FROM rating_history WHERE game_id = ?1",
    [STMT_RATING_PUT] =
        "INSERT INTO ratings (player, game, rating, rd, vol, games, wins, losses, draws, last_ms) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) ON CONFLICT (player, game) DO UPDATE SET "
        "rating = excluded.rating, rd = excluded.rd, vol = excluded.vol, games = excluded.games, "
        "wins = excluded.wins, losses = excluded.losses, draws = excluded.draws, "
        "last_ms = excluded.last_ms",
    [STMT_HISTORY_INSERT] = "INSERT INTO rating_history (player, game_id, game, rating, rd, diff, "
                            "at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    /* Rooms, games, moves and chat */
    [STMT_ROOM_PUT] =
        "INSERT INTO rooms (code, settings, south, south_name, south_computer, north, north_name, "
        "north_computer, status, game) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, NULL) "
        "ON CONFLICT (code) DO UPDATE SET settings = excluded.settings, south = excluded.south, "
        "south_name = excluded.south_name, south_computer = excluded.south_computer, "
        "north = excluded.north, north_name = excluded.north_name, "
        "north_computer = excluded.north_computer, status = excluded.status",
    [STMT_ROOM_DELETE] = "DELETE FROM rooms WHERE code = ?1",
    [STMT_ROOM_SET_GAME] = "UPDATE rooms SET game = ?2 WHERE code = ?1",
    [STMT_GAME_INSERT] =
        "INSERT INTO games (room, game_no, game, houses, seeds, options, south, south_name, "
        "south_computer, north, north_name, north_computer, clock_initial_ms, clock_increment_ms, "
        "started_ms, rated, id) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
    [STMT_GAME_NEXT_ID] =
        "SELECT max(coalesce((SELECT max(id) FROM games), 0), "
        "coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'games'), 0)) + 1",
    [STMT_GAME_FINISH] =
        "UPDATE games SET ended_ms = ?2, result = ?3, reason = ?4, score_south = ?5, "
        "score_north = ?6 WHERE id = ?1",
    [STMT_GAME_ABORT] = "UPDATE games SET ended_ms = ?2, result = NULL, reason = 'aborted', "
                        "score_south = NULL, score_north = NULL WHERE id = ?1",
    [STMT_GAME_SEATS] = "UPDATE games SET south = ?2, south_name = ?3, south_computer = ?4, "
                        "north = ?5, north_name = ?6, north_computer = ?7 WHERE id = ?1",
    [STMT_MOVE_INSERT] = "INSERT INTO moves (game, ply, seat, house, clock_ms, at_ms) "
                         "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [STMT_MOVE_TRUNCATE] = "DELETE FROM moves WHERE game = ?1 AND ply >= ?2",
    [STMT_MOVE_CLOCK] = "UPDATE moves SET clock_ms = ?3 WHERE game = ?1 AND ply = ?2",
    [STMT_CHAT_INSERT] = "INSERT INTO chat (room, game, at_ms, player, name, seat, text) "
                         "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [STMT_CHAT_ORPHANS] = "DELETE FROM chat WHERE room = ?1 AND game IS NULL",
    [STMT_CHAT_DETACH] = "UPDATE chat SET room = NULL WHERE room = ?1",
    [STMT_ANALYSIS_PUT] = "INSERT INTO analyses (game, analysed_ms, ply_ms, accuracy_south, "
                          "accuracy_north, plies) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
                          "ON CONFLICT (game) DO NOTHING",
    /* Reads */
    [STMT_GAME_GET] = "SELECT " GAME_COLUMNS " FROM games WHERE id = ?1",
    [STMT_GAME_MOVES] =
        "SELECT ply, seat, house, clock_ms, at_ms FROM moves WHERE game = ?1 ORDER BY ply",
    [STMT_PLAYER_GAMES] =
        "SELECT " GAME_COLUMNS ", (SELECT count(*) FROM moves WHERE moves.game = games.id) "
        "FROM games WHERE id IN ("
        "  SELECT id FROM games WHERE south = ?1 AND ended_ms IS NOT NULL AND result IS NOT NULL "
        "  UNION SELECT id FROM games WHERE north = ?1 AND ended_ms IS NOT NULL AND result IS NOT "
        "NULL) "
        "ORDER BY id DESC LIMIT ?2",
    [STMT_GAMES_PAGE] =
        "SELECT " GAME_COLUMNS ", (SELECT count(*) FROM moves WHERE moves.game = games.id), "
        "(SELECT rating FROM rating_history h WHERE h.game_id = games.id AND h.player = ?1), "
        "(SELECT diff FROM rating_history h WHERE h.game_id = games.id AND h.player = ?1), "
        "(SELECT accuracy_south FROM analyses a WHERE a.game = games.id), "
        "(SELECT accuracy_north FROM analyses a WHERE a.game = games.id) "
        "FROM games WHERE id IN ("
        "  SELECT id FROM games WHERE south = ?1 AND ended_ms IS NOT NULL AND result IS NOT NULL "
        "AND id < ?3 "
        "  UNION SELECT id FROM games WHERE north = ?1 AND ended_ms IS NOT NULL AND result IS NOT "
        "NULL AND id < ?3) "
        "ORDER BY id DESC LIMIT ?2",
    [STMT_BOARD] =
        "SELECT ratings.player, accounts.name, rating, rd, vol, games, wins, losses, draws, "
        "last_ms FROM ratings JOIN accounts ON accounts.player = ratings.player "
        "WHERE game = ?1 AND games > 0 "
        "ORDER BY rating DESC, games DESC, accounts.name_key LIMIT ?2 OFFSET ?3",
    [STMT_BOARD_COUNT] = "SELECT count(*) FROM ratings JOIN accounts ON accounts.player = "
                         "ratings.player WHERE game = ?1 AND games > 0",
    [STMT_BOARD_RANK] = "SELECT count(*) FROM ratings JOIN accounts ON accounts.player = "
                        "ratings.player WHERE game = ?1 AND games > 0 AND rating > ?2",
    [STMT_HISTORY] = "SELECT game_id, at_ms, rating, rd, diff FROM (SELECT * FROM rating_history "
                     "WHERE player = ?1 AND game = ?2 ORDER BY at_ms DESC, game_id DESC LIMIT ?3) "
                     "AS h ORDER BY at_ms, game_id",
    [STMT_SECRET] = "SELECT value FROM secrets WHERE name = ?1",
    [STMT_ANALYSIS_GET] = "SELECT game, analysed_ms, ply_ms, accuracy_south, accuracy_north, "
                          "plies FROM analyses WHERE game = ?1",
    /* Recovery */
    [STMT_RECOVER_ROOMS] =
        "SELECT code, settings, south, south_name, south_computer, north, north_name, "
        "north_computer, status, game FROM rooms ORDER BY code",
    [STMT_RECOVER_GAMES] =
        "SELECT " GAME_COLUMNS " FROM games WHERE id IN (SELECT game FROM rooms) "
        "AND ended_ms IS NULL ORDER BY id",
    [STMT_RECOVER_PLAYERS] = "SELECT id, name, created_ms FROM players WHERE id IN "
                             "(SELECT south FROM rooms UNION SELECT north FROM rooms) ORDER BY id",
    [STMT_RECOVER_CHAT] =
        "SELECT room, game, at_ms, player, name, seat, text, "
        "CASE WHEN player IN (SELECT player FROM accounts) THEN 1 ELSE 0 END FROM ("
        "  SELECT *, row_number() OVER (PARTITION BY room ORDER BY id DESC) AS back FROM chat"
        "  WHERE room IN (SELECT code FROM rooms)) AS c WHERE back <= " STORE_STR(
            SRV_STORE_CHAT_KEEP) " ORDER BY room, id",
    [STMT_RECOVER_ROOM] = "SELECT code, settings, south, south_name, south_computer, north, "
                          "north_name, north_computer, status, game FROM rooms WHERE code = ?1",
    [STMT_RECOVER_ROOM_GAMES] =
        "SELECT " GAME_COLUMNS " FROM games WHERE id IN (SELECT game FROM rooms WHERE code = ?1) "
        "AND ended_ms IS NULL ORDER BY id",
    [STMT_RECOVER_ROOM_PLAYERS] =
        "SELECT id, name, created_ms FROM players WHERE id IN (SELECT south FROM rooms WHERE code "
        "= ?1 UNION SELECT north FROM rooms WHERE code = ?1) ORDER BY id",
    [STMT_PLAYER_ROOMS] = "SELECT code FROM rooms WHERE (south = ?1 OR north = ?1) AND status <> "
                          "'finished' ORDER BY code",
    [STMT_RECOVER_ROOM_CHAT] =
        "SELECT room, game, at_ms, player, name, seat, text FROM ("
        "  SELECT * FROM chat WHERE room = ?1 ORDER BY id DESC LIMIT " STORE_STR(
            SRV_STORE_CHAT_KEEP) ") AS c ORDER BY id",
};

const char *srv_store__sql(srv_store__stmt id) {
  return id < STMT_COUNT ? stmt_sql[id] : NULL;
}

int srv_store__prepare_all(srv_store *store) {
  for (size_t i = 0; i < STMT_COUNT; i++) {
    int rc = stmt_sql[i] == NULL
                 ? SQLITE_MISUSE
                 : sqlite3_prepare_v3(store->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
                                      &store->stmt[i], NULL);
    if (rc != SQLITE_OK)
      return srv_store__fail(store, rc, "cannot prepare a statement");
  }
  return 0;
}

void srv_store__finalize_all(srv_store *store) {
  srv_store__moves_finalize(store);
  for (size_t i = 0; i < STMT_COUNT; i++) {
    sqlite3_finalize(store->stmt[i]);
    store->stmt[i] = NULL;
  }
}

/* Binds args to s (parameters ?1..?n; the ones not given are NULL: a statement keeps its bindings
 * from one run to the next, and clearing them all after each run cost more than this). Returns
 * whether s now holds a copy of a text or a blob (done() then drops it). */
static bool bind(sqlite3_stmt *s, const srv_store__val *args, size_t n) {
  bool copied = false;
  for (int at = (int)n + 1, count = sqlite3_bind_parameter_count(s); at <= count; at++)
    sqlite3_bind_null(s, at);
  for (size_t i = 0; i < n; i++) {
    const srv_store__val *a = &args[i];
    int at = (int)i + 1;
    switch (a->type) {
    case ARG_NULL:
      sqlite3_bind_null(s, at);
      break;
    case ARG_INT:
      sqlite3_bind_int64(s, at, a->i);
      break;
    case ARG_REAL:
      sqlite3_bind_double(s, at, a->d);
      break;
    case ARG_TEXT:
      sqlite3_bind_text(s, at, a->p, -1, SQLITE_TRANSIENT);
      copied = true;
      break;
    case ARG_BLOB:
      sqlite3_bind_blob(s, at, a->p, a->len, SQLITE_TRANSIENT);
      copied = true;
      break;
    }
  }
  return copied;
}

/* Makes s ready for its next run; copied (from bind()): its texts and blobs (names, password
 * hashes, token hashes, chat) are not kept until then. A move's numbers are. */
static void done(sqlite3_stmt *s, bool copied) {
  sqlite3_reset(s);
  if (copied)
    sqlite3_clear_bindings(s);
}

int srv_store__exec(srv_store *store, srv_store__stmt id, const srv_store__val *args, size_t n) {
  if (store->pg)
    return srv_store__pg_exec(store, id, args, n);
  sqlite3_stmt *s = store->stmt[id];
  bool copied = bind(s, args, n);
  int rc = sqlite3_step(s);
  done(s, copied);
  return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

int srv_store__each(srv_store *store, srv_store__stmt id, const srv_store__val *args, size_t n,
                    srv_store__row row, void *ctx, const char *what) {
  if (store->pg)
    return srv_store__pg_each(store, id, args, n, row, ctx, what);
  if (store->n_moves > 0) { /* A read in the batch sees its moves. */
    int err = srv_store__moves_flush(store);
    if (err != 0)
      return err;
  }
  sqlite3_stmt *s = store->stmt[id];
  bool copied = bind(s, args, n);
  int rc = SQLITE_DONE, count = 0, err = 0;
  srv_store__cols cols = {.stmt = s};
  while (err == 0 && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    err = row(store, &cols, ctx);
    if (err == 0)
      count++;
  }
  if (err == 0 && rc != SQLITE_DONE)
    err = srv_store__fail(store, rc, what);
  done(s, copied);
  return err != 0 ? err : count;
}

int srv_store__get(srv_store *store, srv_store__stmt id, const srv_store__val *args, size_t n,
                   srv_store__row row, void *item, const char *what) {
  int rows = srv_store__each(store, id, args, n, row, item, what);
  return rows < 0 ? rows : rows == 0 ? SRV_STORE_ENOTFOUND : 0;
}

/* srv_store__all()'s array, as the context of append(). */
typedef struct store_array {
  void **items;
  size_t *n, cap, size;
  srv_store__row row;
} store_array;

static int append(srv_store *store, const srv_store__cols *s, void *ctx) {
  store_array *a = ctx;
  if (srv_store__grow(a->items, &a->cap, *a->n + 1, a->size) != 0)
    return SRV_STORE_ENOMEM;
  void *item = (char *)*a->items + *a->n * a->size;
  memset(item, 0, a->size);
  int err = a->row(store, s, item);
  if (err == 0)
    (*a->n)++;
  return err;
}

int srv_store__all(srv_store *store, srv_store__stmt id, const srv_store__val *args, size_t n,
                   srv_store__row row, void **items, size_t *n_items, size_t size,
                   const char *what) {
  store_array a = {items, n_items, 0, size, row};
  int rows = srv_store__each(store, id, args, n, append, &a, what);
  return rows < 0 ? rows : 0;
}

int srv_store__row_int(srv_store *store, const srv_store__cols *s, void *item) {
  (void)store;
  *(int64_t *)item = srv_store__int(s, 0);
  return 0;
}

/* ---- Columns: SQLite's here, PostgreSQL's in srv_store_pg.c --------------------------------- */

int64_t srv_store__int(const srv_store__cols *s, int i) {
  return s->stmt ? sqlite3_column_int64(s->stmt, i) : srv_store__pg_int(s, i);
}

double srv_store__real(const srv_store__cols *s, int i) {
  return s->stmt ? sqlite3_column_double(s->stmt, i) : srv_store__pg_real(s, i);
}

bool srv_store__null(const srv_store__cols *s, int i) {
  return s->stmt ? sqlite3_column_type(s->stmt, i) == SQLITE_NULL : srv_store__pg_null(s, i);
}

const char *srv_store__text(const srv_store__cols *s, int i) {
  return s->stmt ? (const char *)sqlite3_column_text(s->stmt, i) : srv_store__pg_text(s, i);
}

int srv_store__ncols(const srv_store__cols *s) {
  return s->stmt ? sqlite3_column_count(s->stmt) : srv_store__pg_ncols(s);
}

int srv_store__blob(const srv_store__cols *s, int i, void *out, size_t len) {
  if (!s->stmt)
    return srv_store__pg_blob(s, i, out, len);
  if ((size_t)sqlite3_column_bytes(s->stmt, i) != len)
    return -1;
  if (len > 0)
    memcpy(out, sqlite3_column_blob(s->stmt, i), len);
  return 0;
}
