/* The store's tables: the migrations that build them, one schema version after the other, and the
 * check at open that the database is ours and not newer than this program. */
#include "srv_store_int.h"

#include <stdio.h>

/* "MCLA": marks the file as ours, so that another program's database is refused, not migrated. */
#define STORE_APP_ID 0x4d434c41

/* Migration i takes the schema from version i to i + 1. Never edit a migration that has shipped:
 * add the next one. Version 1 is the base tables; version 2 adds when a player was last seen and
 * the indexes behind a player's recent games; version 3 records the rules version of the Congkak
 * matches stored before it (below); version 4 adds accounts, sessions and ratings; version 5 the
 * rooms' chat; version 6 holds the key of the public game ids; version 7 writes the rooms' status
 * check without IN (below). Every later migration is made from the tables' description
 * (srv_store_tables.c), the one PostgreSQL is made from too: version 8 adds the games' owner epoch
 * and the commit marks; version 9 a session's last use and device label; version 10 the games'
 * analyses. */
#define HAND_WRITTEN 7
static const char *const migrations[HAND_WRITTEN] = {
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
    /* 6 -> 7: the same rooms, their status checked with = and OR. SQLite evaluates an IN list of
     * three or more constants through a temporary b-tree built, page zeroed, for each check, and a
     * room is written (an upsert: checked twice) when it is made, when a player joins and when
     * its game ends: that was 60,000 instructions a write, the room's CHECK the largest part.
     * SQLite cannot change a CHECK in place: the table is made again. Its rows wait in a
     * temporary table while the old one is dropped first, so that the new one reuses its pages
     * and the file does not grow (a size quota, --data-max-kib, counts pages). rooms holds the
     * open rooms only, and no other table refers to it. */
    "CREATE TEMP TABLE rooms_v6 AS SELECT * FROM rooms;"
    "DROP TABLE rooms;"
    "CREATE TABLE rooms ("
    "  code TEXT PRIMARY KEY,"
    "  settings TEXT NOT NULL,"
    "  south TEXT, south_name TEXT NOT NULL, south_computer INTEGER NOT NULL,"
    "  north TEXT, north_name TEXT NOT NULL, north_computer INTEGER NOT NULL,"
    "  status TEXT NOT NULL"
    "    CHECK (status = 'waiting' OR status = 'playing' OR status = 'finished'),"
    "  game INTEGER);"
    "INSERT INTO rooms (code, settings, south, south_name, south_computer, north, north_name,"
    "  north_computer, status, game)"
    "  SELECT code, settings, south, south_name, south_computer, north, north_name,"
    "  north_computer, status, game FROM temp.rooms_v6;"
    "DROP TABLE temp.rooms_v6;",
};

/* Runs one statement of text that returns at most one integer (a pragma); *value gets it when
 * not NULL. Returns a SQLite code. */
int srv_store__query_int(sqlite3 *db, const char *sql, long long *value) {
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

/* Checks the schema version and the application id and applies the pending migrations, all in one
 * write transaction (which also proves nobody else holds the database). */
int srv_store__migrate(srv_store *store) {
  sqlite3 *db = store->db;
  int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    return srv_store__fail(store, rc, "cannot lock the database");
  long long version = 0, app = 0, objects = 0;
  if ((rc = srv_store__query_int(db, "PRAGMA user_version", &version)) != SQLITE_OK ||
      (rc = srv_store__query_int(db, "PRAGMA application_id", &app)) != SQLITE_OK ||
      (rc = srv_store__query_int(db, "SELECT count(*) FROM sqlite_schema", &objects)) !=
          SQLITE_OK) {
    int err = srv_store__fail(store, rc, "cannot read the schema");
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return err;
  }
  if ((app != 0 && app != STORE_APP_ID) || (version == 0 && objects > 0)) {
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    srv_store__set_error(store->error, "%s: %s (it belongs to another program)", store->path,
                         srv_store_strerror(SRV_STORE_ECORRUPT));
    return SRV_STORE_ECORRUPT;
  }
  if (version > SRV_STORE_SCHEMA_VERSION) {
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    srv_store__set_error(
        store->error,
        "%s: the database has schema version %lld but this program knows versions up to %d: "
        "run a newer server or restore a backup",
        store->path, version, SRV_STORE_SCHEMA_VERSION);
    return SRV_STORE_ENEWER;
  }
  if (version < 0) {
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    srv_store__set_error(store->error, "%s: bad schema version %lld", store->path, version);
    return SRV_STORE_ECORRUPT;
  }
  for (long long v = version; v < SRV_STORE_SCHEMA_VERSION; v++) {
    char sql[96], made[2048];
    const char *step = migrations[v < HAND_WRITTEN ? v : 0];
    if (v >= HAND_WRITTEN) {
      if (srv_store__schema_sql((int)v, (int)v + 1, false, made, sizeof made) < 0) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        srv_store__set_error(store->error, "%s: migration %lld does not fit", store->path, v + 1);
        return SRV_STORE_EINTERNAL;
      }
      step = made;
    }
    rc = sqlite3_exec(db, step, NULL, NULL, NULL);
    if (rc == SQLITE_OK) {
      snprintf(sql, sizeof sql, "PRAGMA user_version = %lld; PRAGMA application_id = %d", v + 1,
               STORE_APP_ID);
      rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    }
    if (rc != SQLITE_OK) {
      char what[64];
      snprintf(what, sizeof what, "migration to schema version %lld failed", v + 1);
      int err = srv_store__fail(store, rc, what);
      sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
      /* A schema that does not take the migration is not ours. */
      return err == SRV_STORE_EINTERNAL ? SRV_STORE_ECORRUPT : err;
    }
  }
  rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  if (rc != SQLITE_OK) {
    int err = srv_store__fail(store, rc, "cannot commit the schema");
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return err;
  }
  return 0;
}
