/* Opening the store: schema creation, migrations from versions 1, 2 and 3 (on through the last),
 * and every database the store must refuse with a clear message (newer schema, foreign, corrupt,
 * unreadable, read-only, locked). */
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_util.h"

#include "mc_text.h"
#include "srv_archive.h"

/* The version 1 schema exactly as it shipped, written out by hand: migration 1 -> 2 must take a
 * real version 1 file, not one that the current code made. */
static const char *const v1_ddl =
    "CREATE TABLE players (id TEXT PRIMARY KEY, name TEXT NOT NULL, token_hash BLOB NOT NULL,"
    "  created_ms INTEGER NOT NULL);"
    "CREATE UNIQUE INDEX players_token ON players(token_hash);"
    "CREATE TABLE rooms (code TEXT PRIMARY KEY, settings TEXT NOT NULL,"
    "  south TEXT, south_name TEXT NOT NULL, south_computer INTEGER NOT NULL,"
    "  north TEXT, north_name TEXT NOT NULL, north_computer INTEGER NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('waiting', 'playing', 'finished')), game INTEGER);"
    "CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, room TEXT NOT NULL,"
    "  game_no INTEGER NOT NULL, game TEXT NOT NULL, houses INTEGER NOT NULL,"
    "  seeds INTEGER NOT NULL, options TEXT NOT NULL,"
    "  south TEXT, south_name TEXT NOT NULL, south_computer INTEGER NOT NULL,"
    "  north TEXT, north_name TEXT NOT NULL, north_computer INTEGER NOT NULL,"
    "  clock_initial_ms INTEGER, clock_increment_ms INTEGER, started_ms INTEGER NOT NULL,"
    "  ended_ms INTEGER, result TEXT, reason TEXT, score_south INTEGER, score_north INTEGER);"
    "CREATE TABLE moves (game INTEGER NOT NULL REFERENCES games(id), ply INTEGER NOT NULL,"
    "  seat INTEGER NOT NULL, house INTEGER NOT NULL, clock_ms INTEGER, at_ms INTEGER NOT NULL,"
    "  PRIMARY KEY (game, ply)) WITHOUT ROWID;"
    "PRAGMA user_version = 1; PRAGMA application_id = 1296256065;";

TEST_IMPL(create_from_empty) {
  char dir[256], sub[320], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  /* Two missing levels: both are created. */
  snprintf(sub, sizeof sub, "%s/data/db", dir);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(sub, SRV_STORE_SYNC_FULL, &s, err), 0);
  ASSERT(s != NULL);
  ASSERT(!srv_store_pending(s));
  ASSERT_STR_EQ(srv_store_last_error(s), "");
  srv_store_close(s);
  ASSERT_EQ(raw_int(sub, "PRAGMA user_version"), SRV_STORE_SCHEMA_VERSION);
  ASSERT_EQ(raw_int(sub, "PRAGMA application_id"), 0x4d434c41);
  ASSERT_EQ(raw_int(sub, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN "
                         "('players', 'rooms', 'games', 'moves')"),
            4);
  /* WAL is a property of the file: it stays on after close. */
  char path[512];
  db_path(sub, path, sizeof path);
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  sqlite3_open(path, &db);
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  ASSERT_STR_EQ((const char *)sqlite3_column_text(st, 0), "wal");
  sqlite3_finalize(st);
  sqlite3_close(db);
  /* Opening again changes nothing. */
  ASSERT_EQ(open_store(sub, SRV_STORE_SYNC_NORMAL, &s, err), 0);
  srv_store_close(s);
  ASSERT_EQ(raw_int(sub, "PRAGMA user_version"), SRV_STORE_SCHEMA_VERSION);
  rm_tree(dir);
  return 0;
}

TEST_IMPL(migrate_from_v1) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  raw_exec(dir, v1_ddl);
  /* A finished game of version 1 with its moves and a player. */
  raw_exec(
      dir,
      "INSERT INTO players VALUES ('p1', 'Ana', x'"
      "0101010101010101010101010101010101010101"
      "010101010101010101010101', 1764374400000);"
      "INSERT INTO rooms VALUES ('ABCDEF', '{}', 'p1', 'Ana', 0, NULL, 'Bot', 3, 'finished', 1);"
      "INSERT INTO games VALUES (1, 'ABCDEF', 1, 'kalah', 2, 1, '', 'p1', 'Ana', 0, NULL, 'Bot',"
      "  3, NULL, NULL, 1764374400000, 1764374460000, 'south', 'no_seeds', 3, 1);"
      "INSERT INTO moves VALUES (1, 0, 0, 2, NULL, 1764374410000), (1, 1, 0, 1, NULL, "
      "1764374420000);");
  ASSERT_EQ(raw_int(dir, "PRAGMA user_version"), 1);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  if (s == NULL) {
    fprintf(stderr, "%s\n", err);
    rm_tree(dir);
    return 0;
  }
  /* Version 1 data reads back through version 2 code. */
  srv_store_game *g = NULL;
  ASSERT_EQ(srv_store_game_get(s, 1, &g), 0);
  if (g != NULL) {
    ASSERT_EQ(g->n_moves, 2);
    ASSERT_EQ(g->rules.houses, 2);
    ASSERT_EQ(g->reason, MC_REASON_NO_SEEDS);
    ASSERT_STR_EQ(g->seats[1].name, "Bot");
    ASSERT_EQ(g->seats[1].computer, 3);
    mc_game *game = NULL;
    ASSERT_EQ(srv_store_replay(g, true, &game, NULL), 0);
    ASSERT(game != NULL && mc_game_over(game, NULL));
    mc_game_free(game);
  }
  srv_store_game_free(g);
  srv_store_game_list *list = NULL;
  ASSERT_EQ(srv_store_player_games(s, "p1", 10, &list), 0);
  ASSERT(list != NULL && list->n == 1 && list->games[0].n_moves == 2);
  srv_store_game_list_free(list);
  /* The version 2 column works. */
  ASSERT_EQ(srv_store_player_seen(s, "p1", 1764374500000LL), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  srv_store_close(s);
  ASSERT_EQ(raw_int(dir, "PRAGMA user_version"), SRV_STORE_SCHEMA_VERSION);
  ASSERT_EQ(raw_int(dir, "SELECT seen_ms FROM players WHERE id = 'p1'"), 1764374500000LL);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name IN "
                         "('games_south', 'games_north')"),
            2);
  /* The recent-games query uses the new indexes. */
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM games INDEXED BY games_south "
                         "WHERE south = 'p1' AND ended_ms IS NOT NULL"),
            1);
  /* Migration 6 -> 7 made rooms again with the same rows, its status check without IN. */
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM rooms WHERE code = 'ABCDEF' AND settings = '{}' AND "
                         "south = 'p1' AND north IS NULL AND north_computer = 3 AND "
                         "status = 'finished' AND game = 1"),
            1);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM sqlite_schema WHERE name = 'rooms' AND "
                         "sql LIKE '%status = ''waiting'' OR%' AND sql NOT LIKE '% IN (%'"),
            1);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM sqlite_schema WHERE name = 'rooms_v6'"), 0);
  char path[512];
  db_path(dir, path, sizeof path);
  sqlite3 *db = NULL;
  ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "UPDATE rooms SET status = 'lost' WHERE code = 'ABCDEF'", NULL, NULL, NULL),
      SQLITE_CONSTRAINT);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE rooms SET status = 'playing' WHERE code = 'ABCDEF'", NULL,
                         NULL, NULL),
            SQLITE_OK);
  sqlite3_close(db);
  rm_tree(dir);
  return 0;
}

/* Version 2 as it shipped: version 1 and migration 1 -> 2, written out by hand. */
static const char *const v2_ddl =
    "ALTER TABLE players ADD COLUMN seen_ms INTEGER;"
    "CREATE INDEX games_south ON games(south, id) WHERE ended_ms IS NOT NULL;"
    "CREATE INDEX games_north ON games(north, id) WHERE ended_ms IS NOT NULL;"
    "PRAGMA user_version = 2;";

/* A Congkak match on 2x3 (12 seeds) played under the old burn rule: a burnt house stayed burnt
 * for the rest of the match. Moves 1-8 are those of test_congkak.c (test_rule7_match_from_the_
 * start): after round 2 South house 1 and North house 1 are burnt, "x 3 (4) x 3 (2) north round 3
 * first north". From there each side has one house: North 2 (3 seeds) sows its store, South 2 and
 * its own house (x 4 (4) x 1 (3)); South 2 (4) its store, North 2, 1 (x 1 (6) x 2 (3)); North 2
 * (2) its store and South 2: South 2 (2) its store and North 2; ... every move is house 2, and
 * the match runs to its ninth round, which South wins 7 to 5 (the reference model of the rule
 * book, tests/engine/reference.mjs, plays these 29 moves to the same end). Under the new rule
 * South house 1 is filled again for round 3 (5 1 (1) x 1 (4) south after move 9, test_congkak.c):
 * move 10, South house 2 (1 seed), ends in South's store, and move 11 (ply 10), South house 2
 * again, is not legal: that house is empty. */
static const int old_match_moves[] = {2, 1, 1, 1, 1, 2, 1, 2, 2, 2, 2, 2, 2, 2, 2,
                                      2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
#define OLD_MATCH_PLIES ((int)(sizeof old_match_moves / sizeof old_match_moves[0]))

/* The issue's 7x7 match (issue 9), 29 moves into round 3 (tests/engine/cli.sh): under the old
 * rule South's houses 1-4 stay burnt with 39 seeds idle in its store. */
static const int issue9_moves[] = {6, 1, 7, 6, 5, 6, 2, 7, 7, 5, 1, 3, 5, 6, 6,
                                   7, 6, 5, 5, 2, 7, 6, 7, 2, 6, 5, 6, 6, 2};
#define ISSUE9_PLIES ((int)(sizeof issue9_moves / sizeof issue9_moves[0]))

/* Writes the moves of game id as version 2 rows (the seat to move comes from the engine). */
static void insert_moves(const char *dir, int id, const char *rules_text, const int *moves, int n) {
  mc_rules r;
  mc_game *g = NULL;
  if (mc_rules_parse(rules_text, &r, NULL) != 0 || (g = mc_game_new(&r)) == NULL)
    abort();
  char sql[160];
  for (int i = 0; i < n; i++) {
    snprintf(sql, sizeof sql, "INSERT INTO moves VALUES (%d, %d, %d, %d, NULL, %lld);", id, i,
             mc_game_pos(g)->turn, moves[i], 1764374400000LL + 1000 * i);
    raw_exec(dir, sql);
    if (mc_game_play(g, moves[i], NULL) != 0)
      abort();
  }
  mc_game_free(g);
}

/* Migration 2 -> 3: the Congkak matches stored before it keep the rule they were played under
 * (burn=match) and replay as before, in the archive and in recovery; other games and the room
 * settings are untouched; a game stored after it uses the new rule. */
TEST_IMPL(migrate_from_v2) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  raw_exec(dir, v1_ddl);
  raw_exec(dir, v2_ddl);
  raw_exec(
      dir,
      "INSERT INTO players VALUES ('p1', 'Ana', x'"
      "0101010101010101010101010101010101010101"
      "010101010101010101010101', 1764374400000, NULL);"
      "INSERT INTO players VALUES ('p2', 'Bo', x'"
      "0202020202020202020202020202020202020202"
      "020202020202020202020202', 1764374400000, NULL);"
      /* 1: a finished old match; 2: the issue's match, unfinished, in a playing room; 3: a
       * single-round Congkak game with lap_capture; 4: a Kalah game. */
      "INSERT INTO rooms VALUES ('OLDMAT', '{\"rules\":\"congkak 2x3 rounds=match\"}', 'p1', "
      "'Ana', 0, 'p2', 'Bo', 0, 'finished', 1);"
      "INSERT INTO rooms VALUES ('ISSUE9', '{\"rules\":\"congkak 7x7 rounds=match\"}', 'p1', "
      "'Ana', 0, 'p2', 'Bo', 0, 'playing', 2);"
      "INSERT INTO games VALUES (1, 'OLDMAT', 1, 'congkak', 2, 3, 'rounds=match', 'p1', 'Ana', 0,"
      "  'p2', 'Bo', 0, NULL, NULL, 1764374400000, 1764374460000, 'south', 'no_seeds', 7, 5);"
      "INSERT INTO games VALUES (2, 'ISSUE9', 1, 'congkak', 7, 7, 'rounds=match', 'p1', 'Ana', 0,"
      "  'p2', 'Bo', 0, NULL, NULL, 1764374400000, NULL, NULL, NULL, NULL, NULL);"
      "INSERT INTO games VALUES (3, 'OLDMAT', 0, 'congkak', 3, 3, 'lap_capture', 'p1', 'Ana', 0,"
      "  'p2', 'Bo', 0, NULL, NULL, 1764374400000, NULL, NULL, NULL, NULL, NULL);"
      "INSERT INTO games VALUES (4, 'OLDMAT', 0, 'kalah', 6, 4, 'empty_capture', 'p1', 'Ana', 0,"
      "  'p2', 'Bo', 0, NULL, NULL, 1764374400000, NULL, NULL, NULL, NULL, NULL);");
  insert_moves(dir, 1, "congkak 2x3 rounds=match burn=match", old_match_moves, OLD_MATCH_PLIES);
  insert_moves(dir, 2, "congkak 7x7 rounds=match burn=match", issue9_moves, ISSUE9_PLIES);
  ASSERT_EQ(raw_int(dir, "PRAGMA user_version"), 2);

  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  ASSERT_NOT_NULL(s);
  ASSERT_EQ(raw_int(dir, "PRAGMA user_version"), SRV_STORE_SCHEMA_VERSION);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM games WHERE id IN (1, 2) AND "
                         "options = 'rounds=match burn=match'"),
            2);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM games WHERE (id = 3 AND options = 'lap_capture') "
                         "OR (id = 4 AND options = 'empty_capture')"),
            2);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM rooms WHERE settings NOT LIKE '%burn%'"), 2);

  /* The finished match replays to its stored result under the old rule... */
  srv_store_game *g = NULL;
  ASSERT_EQ(srv_store_game_get(s, 1, &g), 0);
  if (g != NULL) {
    ASSERT_EQ(g->rules.burn, MC_BURN_MATCH);
    ASSERT(g->rules.match);
    ASSERT_EQ(g->n_moves, OLD_MATCH_PLIES);
    mc_game *game = NULL;
    srv_store_bad_row bad;
    ASSERT_EQ(srv_store_replay(g, true, &game, &bad), 0);
    mc_result res;
    ASSERT(game != NULL && mc_game_over(game, &res));
    if (game != NULL) {
      ASSERT_EQ(res.winner, MC_WIN_SOUTH);
      ASSERT_EQ(res.score[0], 7);
      ASSERT_EQ(res.score[1], 5);
      ASSERT_EQ(mc_game_pos(game)->round, 9);
    }
    mc_game_free(game);
    /* ... and so does its archive record, which names the rule. */
    char *text = NULL;
    ASSERT_EQ(srv_archive_game_text(g, &text, NULL), 0);
    ASSERT(text != NULL && strstr(text, "[Options \"rounds=match burn=match\"]") != NULL);
    ASSERT(text != NULL &&
           strstr(text, "\ncongkak 2x3 rounds=match burn=match\n2 1 1 1 1 2 ") != NULL);
    free(text);
    json_t *j = srv_archive_game_json(g, NULL);
    ASSERT(j != NULL);
    json_t *opts = json_object_get(j, "options");
    ASSERT_STR_EQ(json_string_value(json_object_get(opts, "rounds")), "match");
    ASSERT_STR_EQ(json_string_value(json_object_get(opts, "burn")), "match");
    json_decref(j);
    /* Under the new rule the same rows do not replay: move 11 (ply 10) is not legal. */
    g->rules.burn = MC_BURN_ROUND;
    game = NULL;
    memset(&bad, 0, sizeof bad);
    ASSERT_EQ(srv_store_replay(g, true, &game, &bad), SRV_STORE_EBADROW);
    ASSERT(game == NULL);
    ASSERT_EQ(bad.ply, 10);
  }
  srv_store_game_free(g);

  /* Recovery brings the unfinished match back where it was: South houses 1-4 burnt, 39 seeds in
   * its store, North to move in round 3; the other games are not in a room's current game. */
  srv_store_recovery *rec = NULL;
  ASSERT_EQ(srv_store_recover(s, &rec), 0);
  ASSERT(rec != NULL && rec->n_rooms == 2 && rec->n_games == 1);
  if (rec != NULL && rec->n_games == 1) {
    const srv_store_game *rg = &rec->games[0];
    ASSERT_EQ(rg->id, 2);
    ASSERT_EQ(rg->rules.burn, MC_BURN_MATCH);
    mc_game *game = NULL;
    ASSERT_EQ(srv_store_replay(rg, true, &game, NULL), 0);
    if (game != NULL) {
      char pos[128];
      mc_pos_format(mc_game_pos(game), pos, sizeof pos);
      ASSERT_STR_EQ(pos, "x x x x 7 7 7 (39) x x 7 7 7 7 7 (3) north round 3 first north");
      ASSERT(!mc_game_over(game, NULL));
    }
    mc_game_free(game);
  }
  srv_store_recovery_free(rec);

  /* The other games read back with their own options and the default burn rule. */
  ASSERT_EQ(srv_store_game_get(s, 3, &g), 0);
  ASSERT(g != NULL && g->rules.lap_capture && !g->rules.match && g->rules.burn == MC_BURN_ROUND);
  srv_store_game_free(g);
  ASSERT_EQ(srv_store_game_get(s, 4, &g), 0);
  ASSERT(g != NULL && g->rules.empty_capture && g->rules.burn == MC_BURN_ROUND);
  srv_store_game_free(g);

  /* A match started after the migration (the room's rematch) is stored and read back under the
   * new rule, and the issue's moves replay to the new position: South fills all seven houses. */
  srv_store_game ng = mk_game("ISSUE9", MC_CONGKAK, mk_seat("p2", "Bo"), mk_seat("p1", "Ana"));
  ng.rules.match = true;
  ng.game_no = 2;
  int64_t id = 0;
  ASSERT_EQ(srv_store_game_start(s, &ng, &id), 0);
  mc_game *live = mc_game_new(&ng.rules);
  for (int i = 0; live != NULL && i < ISSUE9_PLIES; i++) {
    srv_store_move m = {i, mc_game_pos(live)->turn, issue9_moves[i], -1, 1764374500000LL + i};
    ASSERT_EQ(mc_game_play(live, issue9_moves[i], NULL), 0);
    ASSERT_EQ(srv_store_move_add(s, id, &m), 0);
  }
  mc_game_free(live);
  ASSERT_EQ(srv_store_commit(s), 0);
  char sql[96];
  snprintf(sql, sizeof sql, "SELECT options = 'rounds=match' FROM games WHERE id = %lld",
           (long long)id);
  ASSERT_EQ(raw_int(dir, sql), 1);
  ASSERT_EQ(srv_store_game_get(s, id, &g), 0);
  if (g != NULL) {
    ASSERT_EQ(g->rules.burn, MC_BURN_ROUND);
    mc_game *game = NULL;
    ASSERT_EQ(srv_store_replay(g, true, &game, NULL), 0);
    if (game != NULL) {
      char pos[128];
      mc_pos_format(mc_game_pos(game), pos, sizeof pos);
      ASSERT_STR_EQ(pos, "7 7 7 7 7 7 7 (11) x x 7 7 7 7 7 (3) north round 3 first north");
    }
    mc_game_free(game);
  }
  srv_store_game_free(g);
  srv_store_close(s);

  /* Opening again migrates nothing twice. */
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  srv_store_close(s);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM games WHERE options LIKE '%burn=match%burn%'"), 0);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM games WHERE options LIKE '%burn=match%'"), 2);
  rm_tree(dir);
  return 0;
}

TEST_IMPL(migrate_from_v5) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  /* Version 5 as it shipped (accounts, then chat): the current schema without the secrets table
   * migration 5 -> 6 adds. */
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  srv_store_close(s);
  raw_exec(dir,
           "DROP TABLE secrets; DROP TABLE commit_marks; DROP TABLE analyses; "
           "ALTER TABLE games DROP COLUMN owner_epoch; ALTER TABLE sessions DROP COLUMN seen_ms; "
           "ALTER TABLE sessions DROP COLUMN label; PRAGMA user_version = 5;");
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM sqlite_schema WHERE name = 'secrets'"), 0);
  ASSERT_EQ(raw_int(dir, "PRAGMA user_version"), 5);
  s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  ASSERT_EQ(raw_int(dir, "PRAGMA user_version"), SRV_STORE_SCHEMA_VERSION);
  /* The key of the public game ids: 16 bytes, made once. */
  unsigned char key[16], again[16], other[16];
  ASSERT_EQ(srv_store_secret(s, "game_id", key, sizeof key), 0);
  ASSERT_EQ(srv_store_secret(s, "no such", other, sizeof other), SRV_STORE_ENOTFOUND);
  ASSERT_EQ(srv_store_secret(s, "game_id", other, 8), SRV_STORE_ENOTFOUND); /* Not 8 bytes. */
  srv_store_close(s);
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  ASSERT_EQ(srv_store_secret(s, "game_id", again, sizeof again), 0);
  ASSERT_EQ(memcmp(key, again, sizeof key), 0); /* Kept across restarts: links keep working. */
  srv_store_close(s);
  /* Another database gets another key (16 random bytes: equal with probability 2^-128). */
  char dir2[256];
  tmp_dir(dir2, sizeof dir2);
  ASSERT_EQ(open_store(dir2, SRV_STORE_SYNC_FULL, &s, err), 0);
  ASSERT_EQ(srv_store_secret(s, "game_id", other, sizeof other), 0);
  ASSERT_NE(memcmp(key, other, sizeof key), 0);
  srv_store_close(s);
  rm_tree(dir);
  rm_tree(dir2);
  return 0;
}

TEST_IMPL(newer_schema_refused) {
  char dir[256], err[SRV_STORE_ERR_SIZE], sql[64], want[32];
  tmp_dir(dir, sizeof dir);
  raw_exec(dir, v1_ddl);
  snprintf(sql, sizeof sql, "PRAGMA user_version = %d", SRV_STORE_SCHEMA_VERSION + 1);
  raw_exec(dir, sql);
  srv_store *s = (srv_store *)1;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), SRV_STORE_ENEWER);
  ASSERT(s == NULL);
  snprintf(want, sizeof want, "schema version %d", SRV_STORE_SCHEMA_VERSION + 1);
  ASSERT(strstr(err, want) != NULL);
  ASSERT(strstr(err, "mancala.db") != NULL);
  /* Refused means untouched. */
  ASSERT_EQ(raw_int(dir, "PRAGMA user_version"), SRV_STORE_SCHEMA_VERSION + 1);
  rm_tree(dir);
  return 0;
}

TEST_IMPL(foreign_refused) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  raw_exec(dir, "CREATE TABLE t (x); INSERT INTO t VALUES (1);");
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), SRV_STORE_ECORRUPT);
  ASSERT(strstr(err, "another program") != NULL);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM t"), 1);
  rm_tree(dir);
  return 0;
}

static void write_file(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (f == NULL || fwrite(data, 1, len, f) != len) {
    perror(path);
    abort();
  }
  fclose(f);
}

TEST_IMPL(corrupt_refused) {
  char dir[256], path[512], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  db_path(dir, path, sizeof path);
  char junk[8192];
  for (size_t i = 0; i < sizeof junk; i++)
    junk[i] = (char)(i * 7 + 13);
  write_file(path, junk, sizeof junk);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), SRV_STORE_ECORRUPT);
  ASSERT(s == NULL);
  ASSERT(strstr(err, path) != NULL);
  ASSERT(strstr(err, "not a database") != NULL);
  rm_tree(dir);

  /* A real database whose header page was overwritten in the middle. */
  tmp_dir(dir, sizeof dir);
  db_path(dir, path, sizeof path);
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  srv_store_close(s);
  FILE *f = fopen(path, "r+b");
  ASSERT(f != NULL);
  if (f) {
    fseek(f, 0, SEEK_SET);
    fwrite(junk, 1, 100, f);
    fclose(f);
  }
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), SRV_STORE_ECORRUPT);
  ASSERT(err[0] != '\0');
  rm_tree(dir);
  return 0;
}

/* Run as an unprivileged user: returns 0 when opening arg's directory is refused with a
 * permission or read-only error and a message, 1 when it opened, 2 for another error. */
static int open_refused(void *arg) {
  char err[SRV_STORE_ERR_SIZE];
  srv_store *s = NULL;
  int rc = open_store((const char *)arg, SRV_STORE_SYNC_FULL, &s, err);
  if (rc == 0) {
    srv_store_close(s);
    return 1;
  }
  fprintf(stderr, "  (expected) %s\n", err);
  return (rc == SRV_STORE_EACCES || rc == SRV_STORE_EREADONLY) && err[0] ? 0 : 2;
}

TEST_IMPL(permissions_refused) {
  char dir[256], path[512], err[SRV_STORE_ERR_SIZE];
  srv_store *s = NULL;

  /* A read-only database file. */
  tmp_dir(dir, sizeof dir);
  db_path(dir, path, sizeof path);
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  srv_store_close(s);
  chmod(path, 0444);
  int rc = run_unprivileged(open_refused, dir);
  if (rc < 0)
    printf("skipped: no unprivileged user to test permissions with\n");
  else
    ASSERT_EQ(rc, 0);

  /* An unreadable one. */
  chmod(path, 0);
  rc = run_unprivileged(open_refused, dir);
  if (rc >= 0)
    ASSERT_EQ(rc, 0);
  rm_tree(dir);

  /* A read-only directory with no database yet. */
  tmp_dir(dir, sizeof dir);
  chmod(dir, 0555);
  rc = run_unprivileged(open_refused, dir);
  if (rc >= 0)
    ASSERT_EQ(rc, 0);
  rm_tree(dir);

  /* A read-only directory holding a writable database owned by the user: the write-ahead log
   * cannot be created next to it. */
  tmp_dir(dir, sizeof dir);
  db_path(dir, path, sizeof path);
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  srv_store_close(s);
  struct passwd *pw = getpwnam("nobody");
  if (pw != NULL && geteuid() == 0 && chown(path, pw->pw_uid, pw->pw_gid) == 0) {
    chmod(dir, 0555);
    rc = run_unprivileged(open_refused, dir);
    if (rc >= 0)
      ASSERT_EQ(rc, 0);
  }
  rm_tree(dir);

  /* The data directory is a file. */
  tmp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/file", dir);
  write_file(path, "x", 1);
  ASSERT_EQ(open_store(path, SRV_STORE_SYNC_FULL, &s, err), SRV_STORE_EIO);
  ASSERT(strstr(err, "data directory") != NULL);
  rm_tree(dir);
  return 0;
}

/* A second server, in a child process (--helper second_server DIR): exits 0 when opening DIR is
 * refused as locked by the parent process, 1 when it opens, 2 for anything else. */
HELPER_IMPL(second_server) {
  if (argc != 1)
    return 2;
  const char *dir = argv[0];
  char err[SRV_STORE_ERR_SIZE], want[64];
  srv_store *s = NULL;
  int rc = open_store(dir, SRV_STORE_SYNC_FULL, &s, err);
  srv_store_close(s);
  if (rc == 0)
    return 1;
  snprintf(want, sizeof want, "another server (process %ld)", (long)getppid());
  fprintf(stderr, "  (expected) %s\n", err);
  return rc == SRV_STORE_ELOCKED && strstr(err, want) != NULL ? 0 : 2;
}

TEST_IMPL(locked_refused) {
  char dir[256], path[512], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  db_path(dir, path, sizeof path);
  srv_store *s = NULL, *t = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  /* A second server on the same directory, named by its process id. */
  ASSERT_EQ(test_run_helper("second_server", dir), 0);
  /* Meanwhile other programs can read the database (a backup while the server runs). */
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM games"), 0);
  srv_store_close(s);
  /* Closed: the lock is released. */
  ASSERT_EQ(test_run_helper("second_server", dir), 1);

  /* Another program holding an exclusive transaction. */
  sqlite3 *db = NULL;
  ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "BEGIN EXCLUSIVE; DELETE FROM rooms;", NULL, NULL, NULL), SQLITE_OK);
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &t, err), SRV_STORE_ELOCKED);
  ASSERT(t == NULL);
  ASSERT(strstr(err, path) != NULL);
  sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_close(db);
  /* Released: it opens. */
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &t, err), 0);
  srv_store_close(t);
  rm_tree(dir);
  return 0;
}

TEST_IMPL(bad_arguments) {
  char err[SRV_STORE_ERR_SIZE];
  srv_store *s = NULL;
  ASSERT_EQ(srv_store_open("", NULL, &s, err), SRV_STORE_EINVAL);
  ASSERT_EQ(srv_store_open(NULL, NULL, &s, NULL), SRV_STORE_EINVAL);
  ASSERT_EQ(srv_store_open("/tmp", NULL, NULL, err), SRV_STORE_EINVAL);
  srv_store_close(NULL);
  ASSERT_STR_EQ(srv_store_strerror(SRV_STORE_ENEWER),
                "the database schema is newer than this program");
  ASSERT_STR_EQ(srv_store_strerror(12345), "unknown storage error");
  return 0;
}
