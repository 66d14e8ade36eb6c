/* Durable storage in SQLite (see srv_store.h for the contract).
 *
 * Layout: the schema and its migrations, then opening, then the batch machinery every write goes
 * through, then the event writes, then the reads, then replay through the engine.
 */
#include "srv_store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mc_error.h"
#include "mc_text.h"

/* "MCLA": marks the file as ours, so that another program's database is refused, not migrated. */
#define STORE_APP_ID 0x4d434c41

/* ---- Schema --------------------------------------------------------------------------------- */

/* Migration i takes the schema from version i to i + 1. Never edit a migration that has shipped:
 * add the next one. Version 1 is the base tables; version 2 adds when a player was last seen and
 * the indexes behind a player's recent games; version 3 records the rules version of the Congkak
 * matches stored before it (below); version 4 adds accounts, sessions and ratings; version 5 the
 * rooms' chat; version 6 holds the key of the public game ids. */
static const char *const migrations[SRV_STORE_SCHEMA_VERSION] = {
    /* 0 -> 1 */
    "CREATE TABLE players ("
    "  id TEXT PRIMARY KEY,"
    "  name TEXT NOT NULL,"
    "  token_hash BLOB NOT NULL,"
    "  created_ms INTEGER NOT NULL);"
    "CREATE UNIQUE INDEX players_token ON players(token_hash);"
    "CREATE TABLE rooms ("
    "  code TEXT PRIMARY KEY,"
    "  settings TEXT NOT NULL,"
    "  south TEXT, south_name TEXT NOT NULL, south_computer INTEGER NOT NULL,"
    "  north TEXT, north_name TEXT NOT NULL, north_computer INTEGER NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('waiting', 'playing', 'finished')),"
    "  game INTEGER);"
    "CREATE TABLE games ("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  room TEXT NOT NULL,"
    "  game_no INTEGER NOT NULL,"
    "  game TEXT NOT NULL,"
    "  houses INTEGER NOT NULL,"
    "  seeds INTEGER NOT NULL,"
    "  options TEXT NOT NULL,"
    "  south TEXT, south_name TEXT NOT NULL, south_computer INTEGER NOT NULL,"
    "  north TEXT, north_name TEXT NOT NULL, north_computer INTEGER NOT NULL,"
    "  clock_initial_ms INTEGER,"
    "  clock_increment_ms INTEGER,"
    "  started_ms INTEGER NOT NULL,"
    "  ended_ms INTEGER,"
    "  result TEXT,"
    "  reason TEXT,"
    "  score_south INTEGER,"
    "  score_north INTEGER);"
    "CREATE TABLE moves ("
    "  game INTEGER NOT NULL REFERENCES games(id),"
    "  ply INTEGER NOT NULL,"
    "  seat INTEGER NOT NULL,"
    "  house INTEGER NOT NULL,"
    "  clock_ms INTEGER,"
    "  at_ms INTEGER NOT NULL,"
    "  PRIMARY KEY (game, ply)) WITHOUT ROWID;",
    /* 1 -> 2 */
    "ALTER TABLE players ADD COLUMN seen_ms INTEGER;"
    "CREATE INDEX games_south ON games(south, id) WHERE ended_ms IS NOT NULL;"
    "CREATE INDEX games_north ON games(north, id) WHERE ended_ms IS NOT NULL;",
    /* 2 -> 3: a Congkak match burnt a house for the rest of the match until version 3; now
     * burning is decided afresh at every round (rule book, Congkak 7). Every Congkak match stored
     * before is marked with the engine's "burn=match" word, so that recovery and the archive
     * replay it under the rule it was played under. The options are the engine's words in the
     * engine's order, and burn=match comes last. Room settings are left alone: the next game of
     * a room (a rematch) is played under the new rule. */
    "UPDATE games SET options = options || ' burn=match' "
    "WHERE game = 'congkak' AND ' ' || options || ' ' LIKE '% rounds=match %' "
    "AND ' ' || options || ' ' NOT LIKE '% burn=%';",
    /* 3 -> 4: accounts and ratings. A player's tokens move to sessions (an account has one per
     * device it logged in on); accounts hold a name of their own (its key unique) and a password
     * hash; ratings hold each account's Glicko-2 rating per game, rating_history what every rated
     * game changed; games say whether they are rated. */
    "CREATE TABLE sessions ("
    "  token_hash BLOB PRIMARY KEY,"
    "  player TEXT NOT NULL,"
    "  created_ms INTEGER NOT NULL) WITHOUT ROWID;"
    "INSERT INTO sessions (token_hash, player, created_ms) "
    "  SELECT token_hash, id, created_ms FROM players;"
    "CREATE INDEX sessions_player ON sessions(player);"
    "DROP INDEX players_token;"
    "ALTER TABLE players DROP COLUMN token_hash;"
    "CREATE TABLE accounts ("
    "  player TEXT PRIMARY KEY,"
    "  name TEXT NOT NULL,"
    "  name_key TEXT NOT NULL UNIQUE,"
    "  password TEXT NOT NULL,"
    "  created_ms INTEGER NOT NULL,"
    "  password_ms INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE ratings ("
    "  player TEXT NOT NULL,"
    "  game TEXT NOT NULL,"
    "  rating REAL NOT NULL, rd REAL NOT NULL, vol REAL NOT NULL,"
    "  games INTEGER NOT NULL, wins INTEGER NOT NULL, losses INTEGER NOT NULL,"
    "  draws INTEGER NOT NULL, last_ms INTEGER NOT NULL,"
    "  PRIMARY KEY (player, game)) WITHOUT ROWID;"
    "CREATE INDEX ratings_board ON ratings(game, rating DESC);"
    "CREATE TABLE rating_history ("
    "  player TEXT NOT NULL,"
    "  game_id INTEGER NOT NULL,"
    "  game TEXT NOT NULL,"
    "  rating REAL NOT NULL, rd REAL NOT NULL, diff REAL NOT NULL,"
    "  at_ms INTEGER NOT NULL,"
    "  PRIMARY KEY (player, game_id)) WITHOUT ROWID;"
    "CREATE INDEX rating_history_game ON rating_history(game_id);"
    "ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;",
    /* 4 -> 5: chat lines, kept with the room's game; room is the code while the room is open
     * (NULL after it closed: codes are reused), seat NULL for a spectator. */
    "CREATE TABLE chat ("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  room TEXT,"
    "  game INTEGER,"
    "  at_ms INTEGER NOT NULL,"
    "  player TEXT NOT NULL,"
    "  name TEXT NOT NULL,"
    "  seat TEXT CHECK (seat IN ('south', 'north', 'both')),"
    "  text TEXT NOT NULL);"
    "CREATE INDEX chat_room ON chat(room, id) WHERE room IS NOT NULL;"
    "CREATE INDEX chat_game ON chat(game, id) WHERE game IS NOT NULL;",
    /* 5 -> 6: the secret key of the public game ids (srv_gameid.h; security probe, finding 5),
     * made once, kept with the games it names. */
    ("CREATE TABLE secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);"
     "INSERT INTO secrets (name, value) VALUES ('game_id', randomblob(16));"),
};

#define STORE_STR_(x) #x
#define STORE_STR(x) STORE_STR_(x)

#define GAME_COLUMNS                                                                               \
  "id, room, game_no, game, houses, seeds, options, south, south_name, south_computer, north, "    \
  "north_name, north_computer, clock_initial_ms, clock_increment_ms, started_ms, ended_ms, "       \
  "result, reason, score_south, score_north, rated"

/* Every statement the store runs after open, prepared once. */
typedef struct store_stmts {
  sqlite3_stmt *begin, *commit, *rollback;
  sqlite3_stmt *player_put, *player_seen, *player_by_token, *sessions_expire, *players_expire;
  sqlite3_stmt *room_put, *room_delete, *room_set_game;
  sqlite3_stmt *game_insert, *game_finish, *game_get, *game_moves, *move_insert, *move_truncate;
  sqlite3_stmt *move_clock, *chat_insert, *chat_orphans, *chat_detach, *recover_chat;
  sqlite3_stmt *player_games;
  sqlite3_stmt *recover_rooms, *recover_games, *recover_players;
  sqlite3_stmt *session_put, *session_delete, *sessions_revoke, *sessions_revoke_all;
  sqlite3_stmt *account_insert, *account_password, *account_by_key, *account_by_player;
  sqlite3_stmt *delete_account, *delete_sessions, *delete_ratings, *delete_history, *delete_player,
      *anon_games_south, *anon_games_north, *anon_rooms_south, *anon_rooms_north;
  sqlite3_stmt *ratings_get, *game_rated, *rating_put, *history_insert;
  sqlite3_stmt *games_page, *board, *board_count, *board_rank, *history;
} store_stmts;

/* Guests created and last seen before ?1 with no account that never played a game and sit nowhere
 * (srv_store_players_expire()). */
#define EXPIRED_GUESTS                                                                             \
  "SELECT id FROM players WHERE created_ms < ?1 AND coalesce(seen_ms, 0) < ?1 "                    \
  "AND id NOT IN (SELECT player FROM accounts) AND id NOT IN ("                                    \
  "SELECT south FROM rooms WHERE south IS NOT NULL UNION "                                         \
  "SELECT north FROM rooms WHERE north IS NOT NULL UNION "                                         \
  "SELECT south FROM games WHERE south IS NOT NULL UNION "                                         \
  "SELECT north FROM games WHERE north IS NOT NULL)"

static const struct {
  size_t offset;
  const char *sql;
} stmt_sql[] = {
#define S(field, text)                                                                             \
  { offsetof(store_stmts, field), text }
    S(begin, "BEGIN IMMEDIATE"),
    S(commit, "COMMIT"),
    S(rollback, "ROLLBACK"),
    S(player_put, "INSERT INTO players (id, name, created_ms) VALUES (?1, ?2, ?3) "
                  "ON CONFLICT (id) DO UPDATE SET name = excluded.name"),
    S(player_seen, "UPDATE players SET seen_ms = ?2 WHERE id = ?1"),
    S(player_by_token, "SELECT id, name, players.created_ms FROM sessions JOIN players "
                       "ON players.id = sessions.player WHERE token_hash = ?1"),
    S(sessions_expire, "DELETE FROM sessions WHERE player IN (" EXPIRED_GUESTS ")"),
    S(players_expire, "DELETE FROM players WHERE id IN (" EXPIRED_GUESTS ")"),
    S(room_put,
      "INSERT INTO rooms (code, settings, south, south_name, south_computer, north, north_name, "
      "north_computer, status, game) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, NULL) "
      "ON CONFLICT (code) DO UPDATE SET settings = excluded.settings, south = excluded.south, "
      "south_name = excluded.south_name, south_computer = excluded.south_computer, "
      "north = excluded.north, north_name = excluded.north_name, "
      "north_computer = excluded.north_computer, status = excluded.status"),
    S(room_delete, "DELETE FROM rooms WHERE code = ?1"),
    S(room_set_game, "UPDATE rooms SET game = ?2 WHERE code = ?1"),
    S(game_insert,
      "INSERT INTO games (room, game_no, game, houses, seeds, options, south, south_name, "
      "south_computer, north, north_name, north_computer, clock_initial_ms, clock_increment_ms, "
      "started_ms, rated) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"),
    S(game_finish, "UPDATE games SET ended_ms = ?2, result = ?3, reason = ?4, score_south = ?5, "
                   "score_north = ?6 WHERE id = ?1"),
    S(game_get, "SELECT " GAME_COLUMNS " FROM games WHERE id = ?1"),
    S(game_moves,
      "SELECT ply, seat, house, clock_ms, at_ms FROM moves WHERE game = ?1 ORDER BY ply"),
    S(move_insert, "INSERT INTO moves (game, ply, seat, house, clock_ms, at_ms) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
    S(move_truncate, "DELETE FROM moves WHERE game = ?1 AND ply >= ?2"),
    S(move_clock, "UPDATE moves SET clock_ms = ?3 WHERE game = ?1 AND ply = ?2"),
    S(chat_insert, "INSERT INTO chat (room, game, at_ms, player, name, seat, text) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
    S(chat_orphans, "DELETE FROM chat WHERE room = ?1 AND game IS NULL"),
    S(chat_detach, "UPDATE chat SET room = NULL WHERE room = ?1"),
    S(recover_chat,
      "SELECT room, game, at_ms, player, name, seat, text FROM ("
      "  SELECT *, row_number() OVER (PARTITION BY room ORDER BY id DESC) AS back FROM chat"
      "  WHERE room IN (SELECT code FROM rooms)) WHERE back <= " STORE_STR(
          SRV_STORE_CHAT_KEEP) " ORDER BY room, id"),
    S(player_games,
      "SELECT " GAME_COLUMNS ", (SELECT count(*) FROM moves WHERE moves.game = games.id) "
      "FROM games WHERE id IN ("
      "  SELECT id FROM games WHERE south = ?1 AND ended_ms IS NOT NULL "
      "  UNION SELECT id FROM games WHERE north = ?1 AND ended_ms IS NOT NULL) "
      "ORDER BY id DESC LIMIT ?2"),
    S(recover_rooms, "SELECT code, settings, south, south_name, south_computer, north, north_name, "
                     "north_computer, status, game FROM rooms ORDER BY code"),
    S(recover_games, "SELECT " GAME_COLUMNS " FROM games WHERE id IN (SELECT game FROM rooms) "
                     "AND ended_ms IS NULL ORDER BY id"),
    S(recover_players, "SELECT id, name, created_ms FROM players WHERE id IN "
                       "(SELECT south FROM rooms UNION SELECT north FROM rooms) ORDER BY id"),
    S(session_put, "INSERT OR IGNORE INTO sessions (token_hash, player, created_ms) "
                   "VALUES (?1, ?2, ?3)"),
    S(session_delete, "DELETE FROM sessions WHERE token_hash = ?1"),
    S(sessions_revoke, "DELETE FROM sessions WHERE player = ?1 AND token_hash != ?2"),
    S(sessions_revoke_all, "DELETE FROM sessions WHERE player = ?1"),
    S(account_insert, "INSERT INTO accounts (player, name, name_key, password, created_ms, "
                      "password_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
    S(account_password, "UPDATE accounts SET password = ?2, password_ms = ?3 WHERE player = ?1"),
    S(account_by_key, "SELECT player, name, name_key, password, created_ms, password_ms "
                      "FROM accounts WHERE name_key = ?1"),
    S(account_by_player, "SELECT player, name, name_key, password, created_ms, password_ms "
                         "FROM accounts WHERE player = ?1"),
    S(delete_account, "DELETE FROM accounts WHERE player = ?1"),
    S(delete_sessions, "DELETE FROM sessions WHERE player = ?1"),
    S(delete_ratings, "DELETE FROM ratings WHERE player = ?1"),
    S(delete_history, "DELETE FROM rating_history WHERE player = ?1"),
    S(delete_player, "DELETE FROM players WHERE id = ?1"),
    S(anon_games_south, "UPDATE games SET south = NULL, south_name = ?2 WHERE south = ?1"),
    S(anon_games_north, "UPDATE games SET north = NULL, north_name = ?2 WHERE north = ?1"),
    S(anon_rooms_south, "UPDATE rooms SET south = NULL, south_name = ?2 WHERE south = ?1"),
    S(anon_rooms_north, "UPDATE rooms SET north = NULL, north_name = ?2 WHERE north = ?1"),
    S(ratings_get, "SELECT game, rating, rd, vol, games, wins, losses, draws, last_ms "
                   "FROM ratings WHERE player = ?1"),
    S(game_rated, "SELECT count(*) FROM rating_history WHERE game_id = ?1"),
    S(rating_put,
      "INSERT INTO ratings (player, game, rating, rd, vol, games, wins, losses, draws, last_ms) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) ON CONFLICT (player, game) DO UPDATE SET "
      "rating = excluded.rating, rd = excluded.rd, vol = excluded.vol, games = excluded.games, "
      "wins = excluded.wins, losses = excluded.losses, draws = excluded.draws, "
      "last_ms = excluded.last_ms"),
    S(history_insert, "INSERT INTO rating_history (player, game_id, game, rating, rd, diff, "
                      "at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
    S(games_page,
      "SELECT " GAME_COLUMNS ", (SELECT count(*) FROM moves WHERE moves.game = games.id), "
      "(SELECT rating FROM rating_history h WHERE h.game_id = games.id AND h.player = ?1), "
      "(SELECT diff FROM rating_history h WHERE h.game_id = games.id AND h.player = ?1) "
      "FROM games WHERE id IN ("
      "  SELECT id FROM games WHERE south = ?1 AND ended_ms IS NOT NULL AND id < ?3 "
      "  UNION SELECT id FROM games WHERE north = ?1 AND ended_ms IS NOT NULL AND id < ?3) "
      "ORDER BY id DESC LIMIT ?2"),
    S(board, "SELECT ratings.player, accounts.name, rating, rd, vol, games, wins, losses, draws, "
             "last_ms FROM ratings JOIN accounts ON accounts.player = ratings.player "
             "WHERE game = ?1 AND games > 0 "
             "ORDER BY rating DESC, games DESC, accounts.name_key LIMIT ?2 OFFSET ?3"),
    S(board_count, "SELECT count(*) FROM ratings JOIN accounts ON accounts.player = "
                   "ratings.player WHERE game = ?1 AND games > 0"),
    S(board_rank, "SELECT count(*) FROM ratings JOIN accounts ON accounts.player = "
                  "ratings.player WHERE game = ?1 AND games > 0 AND rating > ?2"),
    S(history, "SELECT game_id, at_ms, rating, rd, diff FROM (SELECT * FROM rating_history "
               "WHERE player = ?1 AND game = ?2 ORDER BY at_ms DESC, game_id DESC LIMIT ?3) "
               "ORDER BY at_ms, game_id"),
#undef S
};

#define STMT_COUNT (sizeof(store_stmts) / sizeof(sqlite3_stmt *))

struct srv_store {
  sqlite3 *db;
  char *path;
  int lock_fd; /* DIR/mancala.lock, write-locked while the store is open; -1 when none. */
  store_stmts st;
  bool reader; /* A connection for committed reads only (srv_store_open_reader()). */
  bool in_txn;
  bool moved; /* The database or its WAL was deleted or replaced: no more writes, ever. */
  dev_t wal_dev;
  ino_t wal_ino; /* The WAL's identity at open (0: unknown). */
  /* The writes of the open batch, so that a lost batch can be reported. */
  srv_store_op *ops;
  size_t n_ops, cap_ops;
  /* The writes lost since the last commit; cleared by the commit or rollback after the one that
   * reported them. */
  srv_store_op *failed;
  size_t n_failed, cap_failed;
  bool failed_reported;
  srv_store_stats stats;
  char error[SRV_STORE_ERR_SIZE];
};

static void note_wal(srv_store *store);

/* ---- Errors --------------------------------------------------------------------------------- */

const char *srv_store_strerror(int err) {
  switch (err) {
  case SRV_STORE_EINVAL:
    return "invalid argument";
  case SRV_STORE_ENOMEM:
    return "out of memory";
  case SRV_STORE_EIO:
    return "input/output error";
  case SRV_STORE_EFULL:
    return "the disk is full";
  case SRV_STORE_EACCES:
    return "permission denied";
  case SRV_STORE_EREADONLY:
    return "the database is read-only";
  case SRV_STORE_ELOCKED:
    return "the database is locked by another process";
  case SRV_STORE_ECORRUPT:
    return "the file is not a Mancala Online database or is damaged";
  case SRV_STORE_ENEWER:
    return "the database schema is newer than this program";
  case SRV_STORE_ENOTFOUND:
    return "not found";
  case SRV_STORE_ECONFLICT:
    return "the row conflicts with a stored one";
  case SRV_STORE_EBADROW:
    return "a stored move does not replay";
  case SRV_STORE_EINTERNAL:
    return "internal storage error";
  case SRV_STORE_EMOVED:
    return "the database file was deleted or replaced while the server ran";
  default:
    return "unknown storage error";
  }
}

/* Maps a SQLite result code (extended or primary) to a SRV_STORE_E* code. */
static int map_sqlite(int rc) {
  switch (rc & 0xff) {
  case SQLITE_NOMEM:
    return SRV_STORE_ENOMEM;
  case SQLITE_FULL:
    return SRV_STORE_EFULL;
  case SQLITE_IOERR:
    return SRV_STORE_EIO;
  case SQLITE_PERM:
  case SQLITE_AUTH:
  case SQLITE_CANTOPEN:
    return SRV_STORE_EACCES;
  case SQLITE_READONLY:
    return SRV_STORE_EREADONLY;
  case SQLITE_BUSY:
  case SQLITE_LOCKED:
    return SRV_STORE_ELOCKED;
  case SQLITE_CORRUPT:
  case SQLITE_NOTADB:
    return SRV_STORE_ECORRUPT;
  case SQLITE_CONSTRAINT:
    return SRV_STORE_ECONFLICT;
  default:
    return SRV_STORE_EINTERNAL;
  }
}

static void set_error(char *buf, const char *fmt, ...) {
  if (buf == NULL)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, SRV_STORE_ERR_SIZE, fmt, ap);
  va_end(ap);
}

/* Records the SQLite error of rc in store->error and returns the mapped code. */
static int db_fail(srv_store *store, int rc, const char *what) {
  int err = map_sqlite(rc);
  set_error(store->error, "%s: %s: %s (%s)", store->path, what, srv_store_strerror(err),
            sqlite3_errmsg(store->db));
  return err;
}

const char *srv_store_last_error(const srv_store *store) {
  return store ? store->error : "";
}

const char *srv_store_path(const srv_store *store) {
  return store ? store->path : NULL;
}

/* ---- Opening -------------------------------------------------------------------------------- */

void srv_store_config_init(srv_store_config *config) {
  config->sync = SRV_STORE_SYNC_FULL;
  config->busy_timeout_ms = 1000;
  config->max_bytes = 0;
}

/* Creates dir and its missing parents (like mkdir -p). Returns 0 or an errno value. */
static int make_dirs(const char *dir) {
  size_t len = strlen(dir);
  char *copy = malloc(len + 1);
  if (copy == NULL)
    return ENOMEM;
  memcpy(copy, dir, len + 1);
  int rc = 0;
  for (char *p = copy + 1;; p++) {
    if (*p == '/' || *p == '\0') {
      char saved = *p;
      *p = '\0';
      if (mkdir(copy, 0750) != 0 && errno != EEXIST) {
        rc = errno;
        break;
      }
      *p = saved;
      if (saved == '\0')
        break;
    }
  }
  free(copy);
  if (rc == 0) {
    struct stat st;
    if (stat(dir, &st) != 0)
      rc = errno;
    else if (!S_ISDIR(st.st_mode))
      rc = ENOTDIR;
  }
  return rc;
}

/* Runs one statement of text that returns at most one integer (a pragma); *value gets it when
 * not NULL. Returns a SQLite code. */
static int exec_int(sqlite3 *db, const char *sql, long long *value) {
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    return rc;
  rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW) {
    if (value)
      *value = sqlite3_column_int64(stmt, 0);
    rc = SQLITE_OK;
  } else if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  }
  sqlite3_finalize(stmt);
  return rc;
}

/* Like exec_int() for a pragma that returns text, copied into buf. */
static int exec_text(sqlite3 *db, const char *sql, char *buf, size_t size) {
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    return rc;
  buf[0] = '\0';
  rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW) {
    const unsigned char *t = sqlite3_column_text(stmt, 0);
    snprintf(buf, size, "%s", t ? (const char *)t : "");
    rc = SQLITE_OK;
  } else if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  }
  sqlite3_finalize(stmt);
  return rc;
}

/* Checks the schema version and the application id and applies the pending migrations, all in one
 * write transaction (which also proves nobody else holds the database). */
static int migrate(srv_store *store) {
  sqlite3 *db = store->db;
  int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    return db_fail(store, rc, "cannot lock the database");
  long long version = 0, app = 0, objects = 0;
  if ((rc = exec_int(db, "PRAGMA user_version", &version)) != SQLITE_OK ||
      (rc = exec_int(db, "PRAGMA application_id", &app)) != SQLITE_OK ||
      (rc = exec_int(db, "SELECT count(*) FROM sqlite_schema", &objects)) != SQLITE_OK) {
    int err = db_fail(store, rc, "cannot read the schema");
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return err;
  }
  if ((app != 0 && app != STORE_APP_ID) || (version == 0 && objects > 0)) {
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    set_error(store->error, "%s: %s (it belongs to another program)", store->path,
              srv_store_strerror(SRV_STORE_ECORRUPT));
    return SRV_STORE_ECORRUPT;
  }
  if (version > SRV_STORE_SCHEMA_VERSION) {
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    set_error(store->error,
              "%s: the database has schema version %lld but this program knows versions up to %d: "
              "run a newer server or restore a backup",
              store->path, version, SRV_STORE_SCHEMA_VERSION);
    return SRV_STORE_ENEWER;
  }
  if (version < 0) {
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    set_error(store->error, "%s: bad schema version %lld", store->path, version);
    return SRV_STORE_ECORRUPT;
  }
  for (long long v = version; v < SRV_STORE_SCHEMA_VERSION; v++) {
    char sql[96];
    rc = sqlite3_exec(db, migrations[v], NULL, NULL, NULL);
    if (rc == SQLITE_OK) {
      snprintf(sql, sizeof sql, "PRAGMA user_version = %lld; PRAGMA application_id = %d", v + 1,
               STORE_APP_ID);
      rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    }
    if (rc != SQLITE_OK) {
      char what[64];
      snprintf(what, sizeof what, "migration to schema version %lld failed", v + 1);
      int err = db_fail(store, rc, what);
      sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
      /* A schema that does not take the migration is not ours. */
      return err == SRV_STORE_EINTERNAL ? SRV_STORE_ECORRUPT : err;
    }
  }
  rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  if (rc != SQLITE_OK) {
    int err = db_fail(store, rc, "cannot commit the schema");
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return err;
  }
  return 0;
}

/* Opens the database file and configures the connection. */
static int open_db(srv_store *store, const srv_store_config *config) {
  int rc = sqlite3_open_v2(store->path, &store->db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
  if (rc != SQLITE_OK)
    return db_fail(store, rc, "cannot open the database");
  sqlite3_extended_result_codes(store->db, 1);
  if (sqlite3_db_readonly(store->db, "main") == 1) {
    set_error(store->error, "%s: %s: the file is not writable by this user", store->path,
              srv_store_strerror(SRV_STORE_EREADONLY));
    return SRV_STORE_EREADONLY;
  }
  sqlite3_busy_timeout(store->db, config->busy_timeout_ms < 0 ? 1000 : config->busy_timeout_ms);
  char mode[16];
  rc = exec_text(store->db, "PRAGMA journal_mode = WAL", mode, sizeof mode);
  if (rc != SQLITE_OK)
    return db_fail(store, rc, "cannot turn on write-ahead logging");
  if (strcmp(mode, "wal") != 0) {
    set_error(store->error, "%s: cannot turn on write-ahead logging (journal mode is \"%s\")",
              store->path, mode);
    return SRV_STORE_EIO;
  }
  /* The synchronous setting (see srv_store.h): FULL fsyncs the WAL at every commit, so an
   * acknowledged move survives power loss; NORMAL survives a process crash only. */
  rc = sqlite3_exec(store->db,
                    config->sync == SRV_STORE_SYNC_NORMAL ? "PRAGMA synchronous = NORMAL"
                                                          : "PRAGMA synchronous = FULL",
                    NULL, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(store->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
  if (rc == SQLITE_OK && config->max_bytes > 0) {
    long long page = 4096;
    char sql[64];
    rc = exec_int(store->db, "PRAGMA page_size", &page);
    snprintf(sql, sizeof sql, "PRAGMA max_page_count = %lld",
             (long long)(config->max_bytes / (page > 0 ? page : 4096)) + 1);
    if (rc == SQLITE_OK)
      rc = exec_int(store->db, sql, NULL);
  }
  if (rc != SQLITE_OK)
    return db_fail(store, rc, "cannot configure the database");
  return 0;
}

static int prepare_all(srv_store *store) {
  for (size_t i = 0; i < sizeof stmt_sql / sizeof stmt_sql[0]; i++) {
    sqlite3_stmt **slot = (sqlite3_stmt **)((char *)&store->st + stmt_sql[i].offset);
    int rc =
        sqlite3_prepare_v3(store->db, stmt_sql[i].sql, -1, SQLITE_PREPARE_PERSISTENT, slot, NULL);
    if (rc != SQLITE_OK)
      return db_fail(store, rc, "cannot prepare a statement");
  }
  return 0;
}

/* Takes the directory lock (see srv_store.h) without waiting. */
static int lock_dir(srv_store *store, const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, SRV_STORE_LOCK_FILE);
  store->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
  if (store->lock_fd < 0) {
    int e = errno;
    set_error(store->error, "%s: cannot open the lock file: %s", path, strerror(e));
    return e == EROFS                  ? SRV_STORE_EREADONLY
           : e == EACCES || e == EPERM ? SRV_STORE_EACCES
                                       : SRV_STORE_EIO;
  }
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  if (fcntl(store->lock_fd, F_SETLK, &fl) == 0)
    return 0;
  int e = errno;
  if (e != EACCES && e != EAGAIN) {
    set_error(store->error, "%s: cannot lock: %s", path, strerror(e));
    return SRV_STORE_EIO;
  }
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  long pid = fcntl(store->lock_fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK ? (long)fl.l_pid : 0;
  set_error(store->error, "%s: %s: another server (process %ld) is using this data directory", dir,
            srv_store_strerror(SRV_STORE_ELOCKED), pid);
  return SRV_STORE_ELOCKED;
}

int srv_store_open(const char *dir, const srv_store_config *config, srv_store **out, char *err) {
  if (out == NULL)
    return SRV_STORE_EINVAL;
  *out = NULL;
  if (err)
    err[0] = '\0';
  if (dir == NULL || dir[0] == '\0') {
    set_error(err, "no data directory given");
    return SRV_STORE_EINVAL;
  }
  srv_store_config defaults;
  if (config == NULL) {
    srv_store_config_init(&defaults);
    config = &defaults;
  }
  int e = make_dirs(dir);
  if (e != 0) {
    set_error(err, "%s: cannot create the data directory: %s", dir, strerror(e));
    return e == EACCES || e == EPERM || e == EROFS ? SRV_STORE_EACCES
           : e == ENOMEM                           ? SRV_STORE_ENOMEM
           : e == ENOSPC                           ? SRV_STORE_EFULL
                                                   : SRV_STORE_EIO;
  }
  srv_store *store = calloc(1, sizeof *store);
  size_t len = strlen(dir) + sizeof("/" SRV_STORE_FILE);
  if (store == NULL || (store->path = malloc(len)) == NULL) {
    free(store);
    set_error(err, "%s: out of memory", dir);
    return SRV_STORE_ENOMEM;
  }
  snprintf(store->path, len, "%s/%s", dir, SRV_STORE_FILE);
  store->lock_fd = -1;
  int rc = 0;
  /* Unreadable or unwritable files get a plain message before SQLite says anything. */
  if (access(store->path, F_OK) == 0 && access(store->path, R_OK) != 0) {
    rc = SRV_STORE_EACCES;
    set_error(store->error, "%s: cannot read the database file: %s", store->path, strerror(errno));
  } else if (access(store->path, F_OK) == 0 && access(store->path, W_OK) != 0) {
    rc = SRV_STORE_EREADONLY;
    set_error(store->error, "%s: the database file is read-only: %s", store->path, strerror(errno));
  } else if (access(dir, W_OK | X_OK) != 0) {
    /* SQLite creates the write-ahead log next to the database, and we the lock file. */
    rc = errno == EROFS ? SRV_STORE_EREADONLY : SRV_STORE_EACCES;
    set_error(store->error, "%s: the data directory is not writable: %s", dir, strerror(errno));
  }
  if (rc == 0)
    rc = lock_dir(store, dir);
  if (rc == 0)
    rc = open_db(store, config);
  if (rc == 0)
    rc = migrate(store);
  if (rc == 0)
    rc = prepare_all(store);
  if (rc != 0) {
    set_error(err, "%s", store->error);
    srv_store_close(store);
    return rc;
  }
  store->error[0] = '\0';
  note_wal(store);
  *out = store;
  return 0;
}

int srv_store_open_reader(const srv_store *main, srv_store **out) {
  if (main == NULL || out == NULL)
    return SRV_STORE_EINVAL;
  *out = NULL;
  srv_store *store = calloc(1, sizeof *store);
  size_t len = strlen(main->path) + 1;
  if (store == NULL || (store->path = malloc(len)) == NULL) {
    free(store);
    return SRV_STORE_ENOMEM;
  }
  memcpy(store->path, main->path, len);
  store->lock_fd = -1; /* The directory lock is the main connection's (one per process). */
  store->reader = true;
  /* In WAL mode this connection reads the last committed state while the main one holds its
   * batch open; query_only makes sure it never takes a write lock. */
  int rc =
      sqlite3_open_v2(store->path, &store->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_extended_result_codes(store->db, 1);
    sqlite3_busy_timeout(store->db, 1000);
    rc = sqlite3_exec(store->db, "PRAGMA query_only = 1", NULL, NULL, NULL);
  }
  int err = rc == SQLITE_OK ? prepare_all(store) : db_fail(store, rc, "cannot open a reader");
  if (err != 0) {
    srv_store_close(store);
    return err;
  }
  note_wal(store);
  *out = store;
  return 0;
}

void srv_store_close(srv_store *store) {
  if (store == NULL)
    return;
  if (store->in_txn && store->db)
    sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_stmt **stmts = (sqlite3_stmt **)&store->st;
  for (size_t i = 0; i < STMT_COUNT; i++)
    sqlite3_finalize(stmts[i]);
  sqlite3_close(store->db);
  if (store->lock_fd >= 0)
    close(store->lock_fd); /* Releases the directory lock. */
  free(store->ops);
  free(store->failed);
  free(store->path);
  free(store);
}

/* ---- The files under the store (see srv_store.h) ------------------------------------------- */

/* Remembers the identity of the write-ahead log, once it exists. */
static void note_wal(srv_store *store) {
  char wal[4200];
  struct stat st;
  snprintf(wal, sizeof wal, "%s-wal", store->path);
  if (store->wal_ino == 0 && stat(wal, &st) == 0) {
    store->wal_dev = st.st_dev;
    store->wal_ino = st.st_ino;
  }
}

/* Checks the store's files (see srv_store.h) before a write (write: the database, its WAL and
 * its -shm must be writable) or a read (the -shm only: a read transaction writes its read mark
 * there). Returns 0, SRV_STORE_EMOVED or SRV_STORE_EACCES with the store's error set. */
static int check_files(srv_store *store, bool write) {
  if (store->moved)
    return SRV_STORE_EMOVED;
  int moved = 0;
  char wal[4200], shm[4200];
  struct stat st;
  snprintf(wal, sizeof wal, "%s-wal", store->path);
  snprintf(shm, sizeof shm, "%s-shm", store->path);
  if (sqlite3_file_control(store->db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK)
    moved = 0;
  if (!moved && store->wal_ino != 0 &&
      (stat(wal, &st) != 0 || st.st_ino != store->wal_ino || st.st_dev != store->wal_dev))
    moved = 1;
  if (moved) {
    store->moved = true;
    set_error(store->error,
              "%s: %s: nothing is written any more; stop the server, restore the file from a "
              "backup and start it again",
              store->path, srv_store_strerror(SRV_STORE_EMOVED));
    return SRV_STORE_EMOVED;
  }
  const char *paths[] = {shm, store->path, wal};
  for (int i = 0; i < (write ? 3 : 1); i++) {
    if (access(paths[i], F_OK) == 0 && access(paths[i], W_OK) != 0) {
      set_error(store->error, "%s: %s (%s): refused until it is writable again", paths[i],
                srv_store_strerror(SRV_STORE_EACCES), strerror(errno));
      return SRV_STORE_EACCES;
    }
  }
  return 0;
}

/* ---- Batches -------------------------------------------------------------------------------- */

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Runs a statement without results and resets it. Returns a SQLite code. */
static int step_done(sqlite3_stmt *stmt) {
  int rc = sqlite3_step(stmt);
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

static int grow(void **items, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return 0;
  size_t cap2 = *cap ? *cap * 2 : 64;
  while (cap2 < need)
    cap2 *= 2;
  void *p = realloc(*items, cap2 * size);
  if (p == NULL)
    return SRV_STORE_ENOMEM;
  *items = p;
  *cap = cap2;
  return 0;
}

/* Forgets a failed list that was already reported. */
static void failed_expire(srv_store *store) {
  if (store->failed_reported) {
    store->n_failed = 0;
    store->failed_reported = false;
  }
}

/* The open batch is gone (rolled back by us or by SQLite): its writes join the failed list. */
static void batch_lost(srv_store *store) {
  if (store->in_txn && !sqlite3_get_autocommit(store->db))
    step_done(store->st.rollback);
  store->in_txn = false;
  /* write_begin() made the room. */
  if (store->n_ops > 0)
    memcpy(store->failed + store->n_failed, store->ops, store->n_ops * sizeof *store->ops);
  store->n_failed += store->n_ops;
  store->n_ops = 0;
}

/* Begins the batch when none is open; reserves room for one more op, in the batch and in the
 * failed list, so that losing the batch never needs memory (a lost write is always reported). */
static int write_begin(srv_store *store) {
  if (store->reader) {
    set_error(store->error, "%s: a reader does not write", store->path);
    return SRV_STORE_EREADONLY;
  }
  failed_expire(store);
  if (grow((void **)&store->ops, &store->cap_ops, store->n_ops + 1, sizeof *store->ops) != 0 ||
      grow((void **)&store->failed, &store->cap_failed, store->n_failed + store->n_ops + 1,
           sizeof *store->failed) != 0)
    return SRV_STORE_ENOMEM;
  if (store->in_txn)
    return 0;
  int rc = check_files(store, true);
  if (rc != 0)
    return rc;
  rc = step_done(store->st.begin);
  if (rc != SQLITE_OK)
    return db_fail(store, rc, "cannot begin a transaction");
  store->in_txn = true;
  store->n_ops = 0;
  return 0;
}

/* Ends one write whose statements returned rc. A constraint failure only undoes that statement;
 * any other failure may have cost the whole transaction, so the batch is rolled back and
 * reported. */
static int write_end(srv_store *store, int rc, const srv_store_op *op, const char *what) {
  if (rc == SQLITE_OK) {
    store->ops[store->n_ops++] = *op;
    store->stats.writes++;
    return 0;
  }
  int err = db_fail(store, rc, what);
  if (err != SRV_STORE_ECONFLICT || sqlite3_get_autocommit(store->db))
    batch_lost(store);
  return err;
}

bool srv_store_pending(const srv_store *store) {
  return store != NULL && store->in_txn;
}

int srv_store_commit(srv_store *store) {
  if (store == NULL)
    return SRV_STORE_EINVAL;
  int err = 0;
  if (store->in_txn && (err = check_files(store, true)) != 0) {
    batch_lost(store); /* Its writes would go where no restart finds them. */
  } else if (store->in_txn) {
    uint64_t t0 = now_ns();
    int rc = step_done(store->st.commit);
    uint64_t dt = now_ns() - t0;
    if (rc == SQLITE_OK) {
      store->in_txn = false;
      store->n_ops = 0;
      store->stats.commits++;
      note_wal(store);
      store->stats.commit_ns_total += dt;
      if (dt > store->stats.commit_ns_max)
        store->stats.commit_ns_max = dt;
    } else {
      err = db_fail(store, rc, "commit failed");
      batch_lost(store);
    }
  }
  if (store->n_failed > 0 && !store->failed_reported) {
    /* Part of this turn was lost earlier (a write failed); the rest, if any, is durable. */
    if (err == 0)
      err = SRV_STORE_EIO;
    store->failed_reported = true;
    store->stats.failed_commits++;
  } else {
    failed_expire(store);
  }
  return err;
}

void srv_store_rollback(srv_store *store) {
  if (store == NULL)
    return;
  failed_expire(store);
  batch_lost(store);
  store->failed_reported = true;
}

const srv_store_op *srv_store_failed(const srv_store *store, size_t *n) {
  if (store == NULL || store->n_failed == 0 || !store->failed_reported) {
    if (n)
      *n = 0;
    return NULL;
  }
  if (n)
    *n = store->n_failed;
  return store->failed;
}

void srv_store_get_stats(const srv_store *store, srv_store_stats *stats) {
  if (store && stats)
    *stats = store->stats;
}

/* ---- Event writes --------------------------------------------------------------------------- */

static void op_init(srv_store_op *op, srv_store_op_kind kind, const char *key, int64_t game,
                    int ply) {
  memset(op, 0, sizeof *op);
  op->kind = kind;
  snprintf(op->key, sizeof op->key, "%s", key ? key : "");
  op->game = game;
  op->ply = ply;
}

/* Binds text, or NULL for "". */
static void bind_text_or_null(sqlite3_stmt *stmt, int i, const char *text) {
  if (text && text[0])
    sqlite3_bind_text(stmt, i, text, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null(stmt, i);
}

static void bind_seat(sqlite3_stmt *stmt, int first, const srv_store_seat *seat) {
  bind_text_or_null(stmt, first, seat->player);
  sqlite3_bind_text(stmt, first + 1, seat->name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(stmt, first + 2, seat->computer);
}

static const char *status_name(srv_store_status status) {
  switch (status) {
  case SRV_STORE_STATUS_WAITING:
    return "waiting";
  case SRV_STORE_STATUS_PLAYING:
    return "playing";
  case SRV_STORE_STATUS_FINISHED:
    return "finished";
  }
  return NULL;
}

int srv_store_player_put(srv_store *store, const srv_store_player *player) {
  if (store == NULL || player == NULL || player->id[0] == '\0')
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  sqlite3_stmt *s = store->st.player_put;
  sqlite3_bind_text(s, 1, player->id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 2, player->name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s, 3, player->created_ms);
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_PLAYER, player->id, 0, 0);
  return write_end(store, step_done(s), &op, "cannot store a player");
}

int srv_store_player_seen(srv_store *store, const char *id, int64_t seen_ms) {
  if (store == NULL || id == NULL)
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  sqlite3_stmt *s = store->st.player_seen;
  sqlite3_bind_text(s, 1, id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s, 2, seen_ms);
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_PLAYER, id, 0, 0);
  return write_end(store, step_done(s), &op, "cannot store when a player was seen");
}

int srv_store_players_expire(srv_store *store, int64_t before_ms) {
  if (store == NULL)
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  sqlite3_stmt *s = store->st.sessions_expire;
  sqlite3_bind_int64(s, 1, before_ms);
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_PLAYER, "", 0, 0);
  rc = write_end(store, step_done(s), &op, "cannot expire sessions");
  if (rc < 0)
    return rc;
  if ((rc = write_begin(store)) != 0)
    return rc;
  s = store->st.players_expire;
  sqlite3_bind_int64(s, 1, before_ms);
  rc = write_end(store, step_done(s), &op, "cannot expire players");
  return rc < 0 ? rc : sqlite3_changes(store->db);
}

int srv_store_room_put(srv_store *store, const srv_store_room *room) {
  const char *status = room ? status_name(room->status) : NULL;
  if (store == NULL || room == NULL || room->code[0] == '\0' || status == NULL)
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  sqlite3_stmt *s = store->st.room_put;
  sqlite3_bind_text(s, 1, room->code, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 2, room->settings ? room->settings : "", -1, SQLITE_TRANSIENT);
  bind_seat(s, 3, &room->seats[0]);
  bind_seat(s, 6, &room->seats[1]);
  sqlite3_bind_text(s, 9, status, -1, SQLITE_STATIC);
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_ROOM, room->code, 0, 0);
  return write_end(store, step_done(s), &op, "cannot store a room");
}

int srv_store_room_closed(srv_store *store, const char *code) {
  if (store == NULL || code == NULL)
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  sqlite3_bind_text(store->st.room_delete, 1, code, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(store->st.chat_orphans, 1, code, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(store->st.chat_detach, 1, code, -1, SQLITE_TRANSIENT);
  rc = step_done(store->st.room_delete);
  if (rc == SQLITE_OK)
    rc = step_done(store->st.chat_orphans);
  if (rc == SQLITE_OK)
    rc = step_done(store->st.chat_detach);
  else
    sqlite3_clear_bindings(store->st.chat_orphans);
  sqlite3_clear_bindings(store->st.chat_detach);
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_ROOM, code, 0, 0);
  return write_end(store, rc, &op, "cannot close a room");
}

int srv_store_chat_add(srv_store *store, const srv_store_chat *line) {
  if (store == NULL || line == NULL || line->room[0] == '\0' || line->text == NULL ||
      line->player[0] == '\0')
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  sqlite3_stmt *s = store->st.chat_insert;
  sqlite3_bind_text(s, 1, line->room, -1, SQLITE_TRANSIENT);
  if (line->game > 0)
    sqlite3_bind_int64(s, 2, line->game);
  sqlite3_bind_int64(s, 3, line->at_ms);
  sqlite3_bind_text(s, 4, line->player, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 5, line->name, -1, SQLITE_TRANSIENT);
  bind_text_or_null(s, 6, line->seat);
  sqlite3_bind_text(s, 7, line->text, -1, SQLITE_TRANSIENT);
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_CHAT, line->room, line->game, 0);
  return write_end(store, step_done(s), &op, "cannot store a chat line");
}

/* Writes the options words of rules ("" when none) into buf: the rules text without its game and
 * board. */
static int options_text(const mc_rules *rules, char *buf, size_t size) {
  char text[128];
  int n = mc_rules_format(rules, text, sizeof text);
  if (n < 0 || (size_t)n >= sizeof text)
    return SRV_STORE_EINVAL;
  const char *p = strchr(text, ' ');
  p = p ? strchr(p + 1, ' ') : NULL;
  snprintf(buf, size, "%s", p ? p + 1 : "");
  return 0;
}

int srv_store_game_start(srv_store *store, const srv_store_game *game, int64_t *id) {
  char options[128];
  if (store == NULL || game == NULL || id == NULL || game->room[0] == '\0' ||
      mc_rules_check(&game->rules) != 0 || options_text(&game->rules, options, sizeof options))
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  sqlite3_stmt *s = store->st.game_insert;
  sqlite3_bind_text(s, 1, game->room, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(s, 2, game->game_no);
  sqlite3_bind_text(s, 3, mc_kind_name(game->rules.kind), -1, SQLITE_STATIC);
  sqlite3_bind_int(s, 4, game->rules.houses);
  sqlite3_bind_int(s, 5, game->rules.seeds);
  sqlite3_bind_text(s, 6, options, -1, SQLITE_TRANSIENT);
  bind_seat(s, 7, &game->seats[0]);
  bind_seat(s, 10, &game->seats[1]);
  if (game->clocked) {
    sqlite3_bind_int64(s, 13, game->initial_ms);
    sqlite3_bind_int64(s, 14, game->increment_ms);
  }
  sqlite3_bind_int64(s, 15, game->started_ms);
  sqlite3_bind_int(s, 16, game->rated ? 1 : 0);
  rc = step_done(s);
  int64_t new_id = rc == SQLITE_OK ? sqlite3_last_insert_rowid(store->db) : 0;
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(store->st.room_set_game, 1, game->room, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(store->st.room_set_game, 2, new_id);
    rc = step_done(store->st.room_set_game);
  }
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_GAME_START, game->room, new_id, 0);
  rc = write_end(store, rc, &op, "cannot store a new game");
  if (rc == 0)
    *id = new_id;
  return rc;
}

int srv_store_move_add(srv_store *store, int64_t game, const srv_store_move *move) {
  if (store == NULL || move == NULL || game <= 0 || move->ply < 0 || move->seat < 0 ||
      move->seat > 1 || move->house < 1 || move->house > MC_MAX_HOUSES)
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  sqlite3_stmt *s = store->st.move_insert;
  sqlite3_bind_int64(s, 1, game);
  sqlite3_bind_int(s, 2, move->ply);
  sqlite3_bind_int(s, 3, move->seat);
  sqlite3_bind_int(s, 4, move->house);
  if (move->clock_ms >= 0)
    sqlite3_bind_int64(s, 5, move->clock_ms);
  sqlite3_bind_int64(s, 6, move->at_ms);
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_MOVE, "", game, move->ply);
  return write_end(store, step_done(s), &op, "cannot store a move");
}

int srv_store_moves_truncate(srv_store *store, int64_t game, int from_ply) {
  if (store == NULL || game <= 0 || from_ply < 0)
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  sqlite3_stmt *s = store->st.move_truncate;
  sqlite3_bind_int64(s, 1, game);
  sqlite3_bind_int(s, 2, from_ply);
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_TAKEBACK, "", game, from_ply);
  return write_end(store, step_done(s), &op, "cannot drop moves");
}

int srv_store_move_clock(srv_store *store, int64_t game, int ply, int64_t clock_ms) {
  if (store == NULL || game <= 0 || ply < 0 || clock_ms < 0)
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  sqlite3_stmt *s = store->st.move_clock;
  sqlite3_bind_int64(s, 1, game);
  sqlite3_bind_int(s, 2, ply);
  sqlite3_bind_int64(s, 3, clock_ms);
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_TAKEBACK, "", game, ply);
  return write_end(store, step_done(s), &op, "cannot store a clock");
}

int srv_store_game_finish(srv_store *store, int64_t game, mc_winner winner, mc_reason reason,
                          const int score[2], int64_t ended_ms) {
  const char *w = mc_winner_name(winner), *r = mc_reason_name(reason);
  if (store == NULL || game <= 0 || w == NULL || r == NULL || reason == MC_REASON_NONE ||
      score == NULL)
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  sqlite3_stmt *s = store->st.game_finish;
  sqlite3_bind_int64(s, 1, game);
  sqlite3_bind_int64(s, 2, ended_ms);
  sqlite3_bind_text(s, 3, w, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 4, r, -1, SQLITE_STATIC);
  sqlite3_bind_int(s, 5, score[0]);
  sqlite3_bind_int(s, 6, score[1]);
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_GAME_FINISH, "", game, 0);
  return write_end(store, step_done(s), &op, "cannot store a result");
}

/* ---- Sessions, accounts and ratings --------------------------------------------------------- */

int srv_store_session_put(srv_store *store, const uint8_t token_hash[32], const char *player,
                          int64_t created_ms) {
  if (store == NULL || token_hash == NULL || player == NULL || player[0] == '\0')
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  sqlite3_stmt *s = store->st.session_put;
  sqlite3_bind_blob(s, 1, token_hash, 32, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 2, player, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s, 3, created_ms);
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_ACCOUNT, player, 0, 0);
  return write_end(store, step_done(s), &op, "cannot store a session");
}

int srv_store_session_delete(srv_store *store, const uint8_t token_hash[32]) {
  if (store == NULL || token_hash == NULL)
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  sqlite3_stmt *s = store->st.session_delete;
  sqlite3_bind_blob(s, 1, token_hash, 32, SQLITE_TRANSIENT);
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_ACCOUNT, "", 0, 0);
  return write_end(store, step_done(s), &op, "cannot delete a session");
}

int srv_store_sessions_revoke(srv_store *store, const char *player, const uint8_t *keep) {
  if (store == NULL || player == NULL)
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  sqlite3_stmt *s = keep ? store->st.sessions_revoke : store->st.sessions_revoke_all;
  sqlite3_bind_text(s, 1, player, -1, SQLITE_TRANSIENT);
  if (keep != NULL)
    sqlite3_bind_blob(s, 2, keep, 32, SQLITE_TRANSIENT);
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_ACCOUNT, player, 0, 0);
  return write_end(store, step_done(s), &op, "cannot revoke sessions");
}

int srv_store_account_create(srv_store *store, const srv_store_account *a) {
  if (store == NULL || a == NULL || a->player[0] == '\0' || a->key[0] == '\0' ||
      a->password[0] == '\0')
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  sqlite3_stmt *s = store->st.account_insert;
  sqlite3_bind_text(s, 1, a->player, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 2, a->name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 3, a->key, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 4, a->password, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s, 5, a->created_ms);
  sqlite3_bind_int64(s, 6, a->password_ms);
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_ACCOUNT, a->player, 0, 0);
  return write_end(store, step_done(s), &op, "cannot store an account");
}

int srv_store_account_password(srv_store *store, const char *player, const char *password,
                               int64_t at_ms) {
  if (store == NULL || player == NULL || password == NULL || password[0] == '\0')
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  sqlite3_stmt *s = store->st.account_password;
  sqlite3_bind_text(s, 1, player, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 2, password, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s, 3, at_ms);
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_ACCOUNT, player, 0, 0);
  rc = write_end(store, step_done(s), &op, "cannot store a password");
  if (rc == 0 && sqlite3_changes(store->db) == 0)
    return SRV_STORE_ENOTFOUND;
  return rc;
}

int srv_store_account_delete(srv_store *store, const char *player, const char *anon_name) {
  if (store == NULL || player == NULL || player[0] == '\0' || anon_name == NULL)
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  /* Everything that names the player, then its seats in games and rooms anonymised. */
  sqlite3_stmt *by_id[] = {store->st.delete_account, store->st.delete_sessions,
                           store->st.delete_ratings, store->st.delete_history,
                           store->st.delete_player};
  sqlite3_stmt *anon[] = {store->st.anon_games_south, store->st.anon_games_north,
                          store->st.anon_rooms_south, store->st.anon_rooms_north};
  rc = SQLITE_OK;
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof by_id / sizeof by_id[0]; i++) {
    sqlite3_bind_text(by_id[i], 1, player, -1, SQLITE_TRANSIENT);
    rc = step_done(by_id[i]);
  }
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof anon / sizeof anon[0]; i++) {
    sqlite3_bind_text(anon[i], 1, player, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(anon[i], 2, anon_name, -1, SQLITE_TRANSIENT);
    rc = step_done(anon[i]);
  }
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_ACCOUNT, player, 0, 0);
  return write_end(store, rc, &op, "cannot delete an account");
}

static void rating_new(srv_store_rating *r) {
  memset(r, 0, sizeof *r);
  r->rating = 1500.0;
  r->rd = 350.0;
  r->vol = 0.06;
}

int srv_store_game_rate(srv_store *store, int64_t game, mc_kind kind, const char *const players[2],
                        const srv_store_rating after[2], const double diff[2], int64_t at_ms) {
  const char *name = mc_kind_name(kind);
  if (store == NULL || game <= 0 || name == NULL || players == NULL || after == NULL ||
      diff == NULL || players[0] == NULL || players[1] == NULL)
    return SRV_STORE_EINVAL;
  int rc = write_begin(store);
  if (rc != 0)
    return rc;
  rc = SQLITE_OK;
  for (int i = 0; i < 2 && rc == SQLITE_OK; i++) {
    sqlite3_stmt *h = store->st.history_insert;
    sqlite3_bind_text(h, 1, players[i], -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(h, 2, game);
    sqlite3_bind_text(h, 3, name, -1, SQLITE_STATIC);
    sqlite3_bind_double(h, 4, after[i].rating);
    sqlite3_bind_double(h, 5, after[i].rd);
    sqlite3_bind_double(h, 6, diff[i]);
    sqlite3_bind_int64(h, 7, at_ms);
    rc = step_done(h);
    if (rc != SQLITE_OK)
      break;
    sqlite3_stmt *r = store->st.rating_put;
    sqlite3_bind_text(r, 1, players[i], -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(r, 2, name, -1, SQLITE_STATIC);
    sqlite3_bind_double(r, 3, after[i].rating);
    sqlite3_bind_double(r, 4, after[i].rd);
    sqlite3_bind_double(r, 5, after[i].vol);
    sqlite3_bind_int(r, 6, after[i].games);
    sqlite3_bind_int(r, 7, after[i].wins);
    sqlite3_bind_int(r, 8, after[i].losses);
    sqlite3_bind_int(r, 9, after[i].draws);
    sqlite3_bind_int64(r, 10, after[i].last_ms);
    rc = step_done(r);
  }
  srv_store_op op;
  op_init(&op, SRV_STORE_OP_GAME_FINISH, "", game, 0);
  if (rc != SQLITE_OK && (rc & 0xff) == SQLITE_CONSTRAINT) {
    /* Half of it may be in: a conflict is a bug of the caller, and costs the batch. */
    int err = db_fail(store, rc, "cannot store ratings");
    batch_lost(store);
    return err;
  }
  return write_end(store, rc, &op, "cannot store ratings");
}

/* ---- Reads ---------------------------------------------------------------------------------- */

static void col_text(sqlite3_stmt *s, int i, char *buf, size_t size) {
  const unsigned char *t = sqlite3_column_text(s, i);
  snprintf(buf, size, "%s", t ? (const char *)t : "");
}

static void col_seat(sqlite3_stmt *s, int first, srv_store_seat *seat) {
  col_text(s, first, seat->player, sizeof seat->player);
  col_text(s, first + 1, seat->name, sizeof seat->name);
  seat->computer = sqlite3_column_int(s, first + 2);
}

static int col_player(sqlite3_stmt *s, srv_store_player *p) {
  memset(p, 0, sizeof *p);
  col_text(s, 0, p->id, sizeof p->id);
  col_text(s, 1, p->name, sizeof p->name);
  p->created_ms = sqlite3_column_int64(s, 2);
  return 0;
}

/* Decodes a GAME_COLUMNS row into *g (moves untouched). The rules go through the engine's own
 * parser, so a stored board the engine does not accept is refused here. */
static int col_game(srv_store *store, sqlite3_stmt *s, srv_store_game *g) {
  char text[192], game[16], options[128];
  g->id = sqlite3_column_int64(s, 0);
  col_text(s, 1, g->room, sizeof g->room);
  g->game_no = sqlite3_column_int(s, 2);
  col_text(s, 3, game, sizeof game);
  col_text(s, 6, options, sizeof options);
  snprintf(text, sizeof text, "%s %dx%d%s%s", game, sqlite3_column_int(s, 4),
           sqlite3_column_int(s, 5), options[0] ? " " : "", options);
  mc_text_error terr;
  if (mc_rules_parse(text, &g->rules, &terr) != 0) {
    set_error(store->error, "%s: game %lld: bad rules \"%s\": %s", store->path, (long long)g->id,
              text, terr.message);
    return SRV_STORE_ECORRUPT;
  }
  col_seat(s, 7, &g->seats[0]);
  col_seat(s, 10, &g->seats[1]);
  g->clocked = sqlite3_column_type(s, 13) != SQLITE_NULL;
  g->initial_ms = g->clocked ? sqlite3_column_int64(s, 13) : 0;
  g->increment_ms = g->clocked ? sqlite3_column_int64(s, 14) : 0;
  g->started_ms = sqlite3_column_int64(s, 15);
  g->ended_ms = sqlite3_column_type(s, 16) == SQLITE_NULL ? 0 : sqlite3_column_int64(s, 16);
  g->winner = MC_DRAW;
  g->reason = MC_REASON_NONE;
  if (g->ended_ms != 0) {
    char w[16], r[32];
    col_text(s, 17, w, sizeof w);
    col_text(s, 18, r, sizeof r);
    if (strcmp(w, "south") == 0)
      g->winner = MC_WIN_SOUTH;
    else if (strcmp(w, "north") == 0)
      g->winner = MC_WIN_NORTH;
    else if (strcmp(w, "draw") != 0)
      r[0] = '\0';
    if (mc_reason_parse(r, &g->reason) != 0 || g->reason == MC_REASON_NONE) {
      set_error(store->error, "%s: game %lld: bad result \"%s\"/\"%s\"", store->path,
                (long long)g->id, w, r);
      return SRV_STORE_ECORRUPT;
    }
    g->score[0] = sqlite3_column_int(s, 19);
    g->score[1] = sqlite3_column_int(s, 20);
  }
  g->rated = sqlite3_column_int(s, 21) != 0;
  return 0;
}

/* Reads the moves of g->id into a new g->moves. */
static int read_moves(srv_store *store, srv_store_game *g) {
  sqlite3_stmt *s = store->st.game_moves;
  size_t cap = 0;
  int rc;
  g->n_moves = 0;
  g->moves = NULL;
  sqlite3_bind_int64(s, 1, g->id);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (grow((void **)&g->moves, &cap, g->n_moves + 1, sizeof *g->moves) != 0) {
      rc = SQLITE_NOMEM;
      break;
    }
    srv_store_move *m = &g->moves[g->n_moves++];
    m->ply = sqlite3_column_int(s, 0);
    m->seat = sqlite3_column_int(s, 1);
    m->house = sqlite3_column_int(s, 2);
    m->clock_ms = sqlite3_column_type(s, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 3);
    m->at_ms = sqlite3_column_int64(s, 4);
  }
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  if (rc != SQLITE_DONE) {
    free(g->moves);
    g->moves = NULL;
    g->n_moves = 0;
    return db_fail(store, rc, "cannot read moves");
  }
  return 0;
}

int srv_store_player_by_token(srv_store *store, const uint8_t token_hash[32],
                              srv_store_player *out) {
  if (store == NULL || token_hash == NULL || out == NULL)
    return SRV_STORE_EINVAL;
  int checked = check_files(store, false);
  if (checked != 0)
    return checked;
  sqlite3_stmt *s = store->st.player_by_token;
  sqlite3_bind_blob(s, 1, token_hash, 32, SQLITE_TRANSIENT);
  int rc = sqlite3_step(s), err = 0;
  if (rc == SQLITE_ROW)
    err = col_player(s, out);
  else if (rc == SQLITE_DONE)
    err = SRV_STORE_ENOTFOUND;
  else
    err = db_fail(store, rc, "cannot read a player");
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return err;
}

void srv_store_game_free(srv_store_game *game) {
  if (game == NULL)
    return;
  free(game->moves);
  free(game);
}

int srv_store_secret(srv_store *store, const char *name, unsigned char *out, size_t len) {
  if (store == NULL || name == NULL || out == NULL)
    return SRV_STORE_EINVAL;
  sqlite3_stmt *s = NULL;
  int rc = sqlite3_prepare_v2(store->db, "SELECT value FROM secrets WHERE name = ?1", -1, &s, NULL);
  if (rc != SQLITE_OK)
    return db_fail(store, rc, "cannot read a secret");
  sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
  int err = SRV_STORE_ENOTFOUND;
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW && (size_t)sqlite3_column_bytes(s, 0) == len) {
    memcpy(out, sqlite3_column_blob(s, 0), len);
    err = 0;
  } else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    err = db_fail(store, rc, "cannot read a secret");
  }
  sqlite3_finalize(s);
  return err;
}

int srv_store_game_get(srv_store *store, int64_t id, srv_store_game **out) {
  if (store == NULL || out == NULL)
    return SRV_STORE_EINVAL;
  *out = NULL;
  int checked = check_files(store, false);
  if (checked != 0)
    return checked;
  srv_store_game *g = calloc(1, sizeof *g);
  if (g == NULL)
    return SRV_STORE_ENOMEM;
  sqlite3_stmt *s = store->st.game_get;
  sqlite3_bind_int64(s, 1, id);
  int rc = sqlite3_step(s), err;
  if (rc == SQLITE_ROW)
    err = col_game(store, s, g);
  else if (rc == SQLITE_DONE)
    err = SRV_STORE_ENOTFOUND;
  else
    err = db_fail(store, rc, "cannot read a game");
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  if (err == 0)
    err = read_moves(store, g);
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

int srv_store_player_games(srv_store *store, const char *id, int limit, srv_store_game_list **out) {
  if (store == NULL || id == NULL || out == NULL || limit < 1 || limit > 100)
    return SRV_STORE_EINVAL;
  *out = NULL;
  int checked = check_files(store, false);
  if (checked != 0)
    return checked;
  srv_store_game_list *list = calloc(1, sizeof *list);
  if (list == NULL)
    return SRV_STORE_ENOMEM;
  sqlite3_stmt *s = store->st.player_games;
  sqlite3_bind_text(s, 1, id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(s, 2, limit);
  size_t cap = 0;
  int rc, err = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (grow((void **)&list->games, &cap, list->n + 1, sizeof *list->games) != 0) {
      err = SRV_STORE_ENOMEM;
      break;
    }
    srv_store_game *g = &list->games[list->n];
    memset(g, 0, sizeof *g);
    if ((err = col_game(store, s, g)) != 0)
      break;
    g->n_moves = (size_t)sqlite3_column_int64(s, 22);
    list->n++;
  }
  if (err == 0 && rc != SQLITE_DONE)
    err = db_fail(store, rc, "cannot read a player's games");
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  if (err != 0) {
    srv_store_game_list_free(list);
    return err;
  }
  *out = list;
  return 0;
}

static int col_account(sqlite3_stmt *s, srv_store_account *a) {
  memset(a, 0, sizeof *a);
  col_text(s, 0, a->player, sizeof a->player);
  col_text(s, 1, a->name, sizeof a->name);
  col_text(s, 2, a->key, sizeof a->key);
  col_text(s, 3, a->password, sizeof a->password);
  a->created_ms = sqlite3_column_int64(s, 4);
  a->password_ms = sqlite3_column_int64(s, 5);
  return 0;
}

/* Runs s, bound to one text, for one account. */
static int account_read(srv_store *store, sqlite3_stmt *s, const char *text,
                        srv_store_account *out) {
  if (store == NULL || text == NULL || out == NULL)
    return SRV_STORE_EINVAL;
  sqlite3_bind_text(s, 1, text, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(s), err;
  if (rc == SQLITE_ROW)
    err = col_account(s, out);
  else if (rc == SQLITE_DONE)
    err = SRV_STORE_ENOTFOUND;
  else
    err = db_fail(store, rc, "cannot read an account");
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return err;
}

int srv_store_account_by_key(srv_store *store, const char *key, srv_store_account *out) {
  return account_read(store, store ? store->st.account_by_key : NULL, key, out);
}

int srv_store_account_by_player(srv_store *store, const char *player, srv_store_account *out) {
  return account_read(store, store ? store->st.account_by_player : NULL, player, out);
}

static void col_rating(sqlite3_stmt *s, int first, srv_store_rating *r) {
  r->rating = sqlite3_column_double(s, first);
  r->rd = sqlite3_column_double(s, first + 1);
  r->vol = sqlite3_column_double(s, first + 2);
  r->games = sqlite3_column_int(s, first + 3);
  r->wins = sqlite3_column_int(s, first + 4);
  r->losses = sqlite3_column_int(s, first + 5);
  r->draws = sqlite3_column_int(s, first + 6);
  r->last_ms = sqlite3_column_int64(s, first + 7);
}

int srv_store_ratings_get(srv_store *store, const char *player,
                          srv_store_rating out[SRV_STORE_RATED_GAMES]) {
  if (store == NULL || player == NULL || out == NULL)
    return SRV_STORE_EINVAL;
  for (int k = 0; k < SRV_STORE_RATED_GAMES; k++)
    rating_new(&out[k]);
  sqlite3_stmt *s = store->st.ratings_get;
  sqlite3_bind_text(s, 1, player, -1, SQLITE_TRANSIENT);
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    mc_kind kind;
    const char *game = (const char *)sqlite3_column_text(s, 0);
    if (game != NULL && mc_kind_parse(game, &kind) == 0 && (int)kind < SRV_STORE_RATED_GAMES)
      col_rating(s, 1, &out[kind]);
  }
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return rc == SQLITE_DONE ? 0 : db_fail(store, rc, "cannot read ratings");
}

int srv_store_game_rated(srv_store *store, int64_t game) {
  if (store == NULL || game <= 0)
    return SRV_STORE_EINVAL;
  sqlite3_stmt *s = store->st.game_rated;
  sqlite3_bind_int64(s, 1, game);
  int rc = sqlite3_step(s), result;
  if (rc == SQLITE_ROW)
    result = sqlite3_column_int(s, 0) > 0;
  else
    result = db_fail(store, rc, "cannot read a game's ratings");
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return result;
}

int srv_store_player_games_page(srv_store *store, const char *id, int64_t before_id, int limit,
                                srv_store_game_list **out) {
  if (store == NULL || id == NULL || out == NULL || limit < 1 || limit > 101 || before_id < 0)
    return SRV_STORE_EINVAL;
  *out = NULL;
  srv_store_game_list *list = calloc(1, sizeof *list);
  if (list == NULL)
    return SRV_STORE_ENOMEM;
  sqlite3_stmt *s = store->st.games_page;
  sqlite3_bind_text(s, 1, id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(s, 2, limit);
  sqlite3_bind_int64(s, 3, before_id > 0 ? before_id : INT64_MAX);
  size_t cap = 0;
  int rc, err = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (grow((void **)&list->games, &cap, list->n + 1, sizeof *list->games) != 0) {
      err = SRV_STORE_ENOMEM;
      break;
    }
    srv_store_game *g = &list->games[list->n];
    memset(g, 0, sizeof *g);
    if ((err = col_game(store, s, g)) != 0)
      break;
    g->n_moves = (size_t)sqlite3_column_int64(s, 22);
    g->rating_known = sqlite3_column_type(s, 23) != SQLITE_NULL;
    g->rating_after = sqlite3_column_double(s, 23);
    g->rating_diff = sqlite3_column_double(s, 24);
    list->n++;
  }
  if (err == 0 && rc != SQLITE_DONE)
    err = db_fail(store, rc, "cannot read a player's games");
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  if (err != 0) {
    srv_store_game_list_free(list);
    return err;
  }
  *out = list;
  return 0;
}

void srv_store_board_free(srv_store_board *board) {
  if (board == NULL)
    return;
  free(board->rows);
  free(board);
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
  int err = 0, rc;
  sqlite3_stmt *c = store->st.board_count;
  sqlite3_bind_text(c, 1, name, -1, SQLITE_STATIC);
  rc = sqlite3_step(c);
  if (rc == SQLITE_ROW)
    b->total = (long)sqlite3_column_int64(c, 0);
  else
    err = db_fail(store, rc, "cannot count a leaderboard");
  sqlite3_reset(c);
  sqlite3_clear_bindings(c);
  sqlite3_stmt *s = store->st.board;
  sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
  sqlite3_bind_int(s, 2, limit);
  sqlite3_bind_int64(s, 3, offset);
  size_t cap = 0;
  while (err == 0 && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (grow((void **)&b->rows, &cap, b->n + 1, sizeof *b->rows) != 0) {
      err = SRV_STORE_ENOMEM;
      break;
    }
    srv_store_board_row *row = &b->rows[b->n++];
    memset(row, 0, sizeof *row);
    col_text(s, 0, row->player, sizeof row->player);
    col_text(s, 1, row->name, sizeof row->name);
    col_rating(s, 2, &row->rating);
  }
  if (err == 0 && rc != SQLITE_DONE)
    err = db_fail(store, rc, "cannot read a leaderboard");
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
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
  sqlite3_stmt *s = store->st.board_rank;
  sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
  sqlite3_bind_double(s, 2, rating);
  int rc = sqlite3_step(s), err = 0;
  if (rc == SQLITE_ROW)
    *rank = (long)sqlite3_column_int64(s, 0) + 1;
  else
    err = db_fail(store, rc, "cannot read a rank");
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return err;
}

int srv_store_rating_history(srv_store *store, const char *player, mc_kind kind, int limit,
                             srv_store_rating_point **points, size_t *n) {
  const char *name = mc_kind_name(kind);
  if (store == NULL || player == NULL || name == NULL || points == NULL || n == NULL || limit < 1 ||
      limit > 1000)
    return SRV_STORE_EINVAL;
  *points = NULL;
  *n = 0;
  sqlite3_stmt *s = store->st.history;
  sqlite3_bind_text(s, 1, player, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
  sqlite3_bind_int(s, 3, limit);
  size_t cap = 0;
  int rc, err = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (grow((void **)points, &cap, *n + 1, sizeof **points) != 0) {
      err = SRV_STORE_ENOMEM;
      break;
    }
    srv_store_rating_point *p = &(*points)[(*n)++];
    p->game_id = sqlite3_column_int64(s, 0);
    p->at_ms = sqlite3_column_int64(s, 1);
    p->rating = sqlite3_column_double(s, 2);
    p->rd = sqlite3_column_double(s, 3);
    p->diff = sqlite3_column_double(s, 4);
  }
  if (err == 0 && rc != SQLITE_DONE)
    err = db_fail(store, rc, "cannot read a rating history");
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  if (err != 0) {
    free(*points);
    *points = NULL;
    *n = 0;
  }
  return err;
}

void srv_store_recovery_free(srv_store_recovery *r) {
  if (r == NULL)
    return;
  for (size_t i = 0; i < r->n_rooms; i++)
    free((char *)r->rooms[i].settings);
  for (size_t i = 0; i < r->n_games; i++)
    free(r->games[i].moves);
  for (size_t i = 0; i < r->n_chat; i++)
    free((char *)r->chat[i].text);
  free(r->rooms);
  free(r->games);
  free(r->players);
  free(r->chat);
  free(r);
}

static int recover_chat(srv_store *store, srv_store_recovery *r) {
  sqlite3_stmt *s = store->st.recover_chat;
  size_t cap = 0;
  int rc, err = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (grow((void **)&r->chat, &cap, r->n_chat + 1, sizeof *r->chat) != 0) {
      err = SRV_STORE_ENOMEM;
      break;
    }
    srv_store_chat *c = &r->chat[r->n_chat];
    memset(c, 0, sizeof *c);
    col_text(s, 0, c->room, sizeof c->room);
    c->game = sqlite3_column_int64(s, 1);
    c->at_ms = sqlite3_column_int64(s, 2);
    col_text(s, 3, c->player, sizeof c->player);
    col_text(s, 4, c->name, sizeof c->name);
    col_text(s, 5, c->seat, sizeof c->seat);
    const unsigned char *text = sqlite3_column_text(s, 6);
    size_t len = (size_t)sqlite3_column_bytes(s, 6);
    char *copy = malloc(len + 1);
    if (copy == NULL) {
      err = SRV_STORE_ENOMEM;
      break;
    }
    memcpy(copy, text ? (const char *)text : "", len);
    copy[len] = '\0';
    c->text = copy;
    r->n_chat++;
  }
  if (err == 0 && rc != SQLITE_DONE)
    err = db_fail(store, rc, "cannot read chat lines");
  sqlite3_reset(s);
  return err;
}

static int recover_rooms(srv_store *store, srv_store_recovery *r) {
  sqlite3_stmt *s = store->st.recover_rooms;
  size_t cap = 0;
  int rc, err = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (grow((void **)&r->rooms, &cap, r->n_rooms + 1, sizeof *r->rooms) != 0) {
      err = SRV_STORE_ENOMEM;
      break;
    }
    srv_store_room *room = &r->rooms[r->n_rooms];
    memset(room, 0, sizeof *room);
    col_text(s, 0, room->code, sizeof room->code);
    const unsigned char *settings = sqlite3_column_text(s, 1);
    size_t len = (size_t)sqlite3_column_bytes(s, 1);
    char *copy = malloc(len + 1);
    if (copy == NULL) {
      err = SRV_STORE_ENOMEM;
      break;
    }
    memcpy(copy, settings ? (const char *)settings : "", len);
    copy[len] = '\0';
    room->settings = copy;
    r->n_rooms++;
    col_seat(s, 2, &room->seats[0]);
    col_seat(s, 5, &room->seats[1]);
    const char *status = (const char *)sqlite3_column_text(s, 8);
    if (status && strcmp(status, "playing") == 0)
      room->status = SRV_STORE_STATUS_PLAYING;
    else if (status && strcmp(status, "finished") == 0)
      room->status = SRV_STORE_STATUS_FINISHED;
    else
      room->status = SRV_STORE_STATUS_WAITING;
    room->game = sqlite3_column_int64(s, 9);
  }
  if (err == 0 && rc != SQLITE_DONE)
    err = db_fail(store, rc, "cannot read rooms");
  sqlite3_reset(s);
  return err;
}

static int recover_games(srv_store *store, srv_store_recovery *r) {
  sqlite3_stmt *s = store->st.recover_games;
  size_t cap = 0;
  int rc, err = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (grow((void **)&r->games, &cap, r->n_games + 1, sizeof *r->games) != 0) {
      err = SRV_STORE_ENOMEM;
      break;
    }
    srv_store_game *g = &r->games[r->n_games];
    memset(g, 0, sizeof *g);
    if ((err = col_game(store, s, g)) != 0)
      break;
    r->n_games++;
  }
  if (err == 0 && rc != SQLITE_DONE)
    err = db_fail(store, rc, "cannot read games");
  sqlite3_reset(s);
  /* The moves, once the games statement is done with. */
  for (size_t i = 0; err == 0 && i < r->n_games; i++)
    err = read_moves(store, &r->games[i]);
  return err;
}

static int recover_players(srv_store *store, srv_store_recovery *r) {
  sqlite3_stmt *s = store->st.recover_players;
  size_t cap = 0;
  int rc, err = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (grow((void **)&r->players, &cap, r->n_players + 1, sizeof *r->players) != 0) {
      err = SRV_STORE_ENOMEM;
      break;
    }
    col_player(s, &r->players[r->n_players]);
    r->n_players++;
  }
  if (err == 0 && rc != SQLITE_DONE)
    err = db_fail(store, rc, "cannot read players");
  sqlite3_reset(s);
  return err;
}

int srv_store_recover(srv_store *store, srv_store_recovery **out) {
  if (store == NULL || out == NULL)
    return SRV_STORE_EINVAL;
  *out = NULL;
  srv_store_recovery *r = calloc(1, sizeof *r);
  if (r == NULL)
    return SRV_STORE_ENOMEM;
  int err = recover_rooms(store, r);
  if (err == 0)
    err = recover_games(store, r);
  if (err == 0)
    err = recover_players(store, r);
  if (err == 0)
    err = recover_chat(store, r);
  if (err != 0) {
    srv_store_recovery_free(r);
    return err;
  }
  *out = r;
  return 0;
}

/* ---- Replay --------------------------------------------------------------------------------- */

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
  if (apply_result && g->ended_ms != 0) {
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
  left_ms[0] = left_ms[1] = g->initial_ms;
  for (size_t i = 0; i < g->n_moves; i++) {
    const srv_store_move *m = &g->moves[i];
    if (m->seat >= 0 && m->seat <= 1 && m->clock_ms >= 0)
      left_ms[m->seat] = m->clock_ms;
  }
  return 0;
}
