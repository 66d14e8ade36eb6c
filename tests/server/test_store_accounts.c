/* Schema 4: migration from version 3 (tokens become sessions), sessions, accounts, ratings with
 * their history, leaderboards, profiles' game lists, and the deletion of an account. */
#include "store_util.h"

/* Version 3 exactly as it shipped, written out by hand: versions 1 and 2 (migration 2 -> 3 only
 * rewrote rows). */
static const char *const v3_ddl =
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
    "ALTER TABLE players ADD COLUMN seen_ms INTEGER;"
    "CREATE INDEX games_south ON games(south, id) WHERE ended_ms IS NOT NULL;"
    "CREATE INDEX games_north ON games(north, id) WHERE ended_ms IS NOT NULL;"
    "PRAGMA user_version = 3; PRAGMA application_id = 1296256065;";

/* Migration 3 -> 4: every player's token becomes its session (the same hash, so the same token
 * says hello as before), players lose the column, games are unrated, the new tables are there. */
TEST_IMPL(migrate_from_v3) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  raw_exec(dir, v3_ddl);
  raw_exec(dir, "INSERT INTO players VALUES ('p1', 'Ana', x'"
                "0101010101010101010101010101010101010101010101010101010101010101', "
                "1764374400000, 1764374500000);"
                "INSERT INTO players VALUES ('p2', 'Bo', x'"
                "0202020202020202020202020202020202020202020202020202020202020202', "
                "1764374400000, NULL);"
                "INSERT INTO rooms VALUES ('ABCDEF', '{}', 'p1', 'Ana', 0, 'p2', 'Bo', 0, "
                "'finished', 1);"
                "INSERT INTO games VALUES (1, 'ABCDEF', 1, 'kalah', 2, 1, '', 'p1', 'Ana', 0, "
                "'p2', 'Bo', 0, 60000, 0, 1764374400000, 1764374460000, 'south', 'no_seeds', 3, 1);"
                "INSERT INTO moves VALUES (1, 0, 0, 2, NULL, 1764374410000), (1, 1, 0, 1, NULL, "
                "1764374420000);");
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  /* The old tokens still name their players. */
  uint8_t hash[32];
  srv_store_player p;
  memset(hash, 2, sizeof hash);
  ASSERT_EQ(srv_store_player_by_token(s, hash, &p), 0);
  ASSERT_STR_EQ(p.id, "p2");
  ASSERT_STR_EQ(p.name, "Bo");
  ASSERT_EQ(p.created_ms, 1764374400000LL);
  memset(hash, 1, sizeof hash);
  ASSERT_EQ(srv_store_player_by_token(s, hash, &p), 0);
  ASSERT_STR_EQ(p.id, "p1");
  /* Old games read as unrated; nobody has an account or a rating yet. */
  srv_store_game *g = NULL;
  ASSERT_EQ(srv_store_game_get(s, 1, &g), 0);
  ASSERT(g != NULL && !g->rated && g->n_moves == 2);
  srv_store_game_free(g);
  srv_store_account acc;
  ASSERT_EQ(srv_store_account_by_player(s, "p1", &acc), SRV_STORE_ENOTFOUND);
  srv_store_rating r[SRV_STORE_RATED_GAMES];
  ASSERT_EQ(srv_store_ratings_get(s, "p1", r), 0);
  ASSERT(r[0].rating == 1500 && r[0].rd == 350 && r[0].vol == 0.06 && r[0].games == 0);
  srv_store_close(s);
  ASSERT_EQ(raw_int(dir, "PRAGMA user_version"),
            SRV_STORE_SCHEMA_VERSION); /* and on through 4 -> 5 (chat), ... */
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM sessions"), 2);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM pragma_table_info('players') "
                         "WHERE name = 'token_hash'"),
            0);
  ASSERT_EQ(raw_int(dir, "SELECT seen_ms FROM players WHERE id = 'p1'"), 1764374500000LL);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM sqlite_schema WHERE name IN ('accounts', "
                         "'ratings', 'rating_history', 'sessions_player', 'ratings_board')"),
            5);
  ASSERT_EQ(raw_int(dir, "SELECT rated FROM games WHERE id = 1"), 0);
  rm_tree(dir);
  return 0;
}

TEST_IMPL(sessions) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  put_player(s, "pa", "Ana", 1);
  uint8_t h2[32], h3[32], h1[32];
  memset(h1, 1, sizeof h1);
  memset(h2, 2, sizeof h2);
  memset(h3, 3, sizeof h3);
  ASSERT_EQ(srv_store_session_put(s, h2, "pa", 5), 0);
  ASSERT_EQ(srv_store_session_put(s, h3, "pa", 6), 0);
  ASSERT_EQ(srv_store_session_put(s, h3, "pa", 7), 0); /* Known: nothing changes. */
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM sessions WHERE player = 'pa'"), 3);
  srv_store_player p;
  ASSERT_EQ(srv_store_player_by_token(s, h3, &p), 0);
  ASSERT_STR_EQ(p.id, "pa");
  /* One ends. */
  ASSERT_EQ(srv_store_session_delete(s, h2), 0);
  ASSERT_EQ(srv_store_player_by_token(s, h2, &p), SRV_STORE_ENOTFOUND);
  /* All but one end. */
  ASSERT_EQ(srv_store_sessions_revoke(s, "pa", h3), 0);
  ASSERT_EQ(srv_store_player_by_token(s, h1, &p), SRV_STORE_ENOTFOUND);
  ASSERT_EQ(srv_store_player_by_token(s, h3, &p), 0);
  /* Then all. */
  ASSERT_EQ(srv_store_sessions_revoke(s, "pa", NULL), 0);
  ASSERT_EQ(srv_store_player_by_token(s, h3, &p), SRV_STORE_ENOTFOUND);
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM sessions"), 0);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM players"), 1);
  srv_store_close(s);
  rm_tree(dir);
  return 0;
}

/* Schema 9: a session's last use and device label, an account's sessions listed most recently
 * used first, and the sessions of accounts unused since a time deleted (a guest's stay). */
TEST_IMPL(sessions_listed_and_expired) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  put_player(s, "pa", "Ana", 1); /* Its session: hash 1...1, made at 1764374400000. */
  put_player(s, "pg", "Guest", 9);
  srv_store_account acc = {.player = "pa",
                           .name = "Ana",
                           .key = "ana",
                           .password = "$argon2id$x",
                           .created_ms = 1,
                           .password_ms = 1};
  ASSERT_EQ(srv_store_account_create(s, &acc), 0);
  uint8_t h1[32], h2[32], h3[32], h9[32], none[32];
  memset(h1, 1, sizeof h1);
  memset(h2, 2, sizeof h2);
  memset(h3, 3, sizeof h3);
  memset(h9, 9, sizeof h9);
  memset(none, 7, sizeof none);
  ASSERT_EQ(srv_store_session_put(s, h2, "pa", 2000), 0);
  ASSERT_EQ(srv_store_session_put(s, h3, "pa", 3000), 0);
  ASSERT_EQ(srv_store_session_label(s, h2, "Firefox on Linux"), 0);
  ASSERT_EQ(srv_store_session_seen(s, h3, 5000), 0);
  ASSERT_EQ(srv_store_session_seen(s, none, 5000), 0); /* Nobody's: nothing. */
  char long_label[SRV_STORE_LABEL_SIZE + 1];
  memset(long_label, 'x', sizeof long_label - 1);
  long_label[sizeof long_label - 1] = '\0';
  ASSERT_EQ(srv_store_session_label(s, h2, long_label), SRV_STORE_EINVAL);
  ASSERT_EQ(srv_store_commit(s), 0);
  /* Most recently used first: h1 (made at 1764374400000, never used since), h3 (used at 5000),
   * h2 (made at 2000). */
  srv_store_session *list = NULL;
  size_t n = 0;
  ASSERT_EQ(srv_store_sessions_of(s, "pa", &list, &n), 0);
  ASSERT_EQ(n, 3);
  ASSERT_EQ(list[0].token_hash[0], 1);
  ASSERT_EQ(list[0].seen_ms, list[0].created_ms);
  ASSERT_STR_EQ(list[0].label, "");
  ASSERT_EQ(list[1].token_hash[31], 3);
  ASSERT_EQ(list[1].created_ms, 3000);
  ASSERT_EQ(list[1].seen_ms, 5000);
  ASSERT_EQ(list[2].token_hash[0], 2);
  ASSERT_EQ(list[2].seen_ms, 2000);
  ASSERT_STR_EQ(list[2].label, "Firefox on Linux");
  free(list);
  ASSERT_EQ(srv_store_sessions_of(s, "nobody", &list, &n), 0);
  ASSERT(list == NULL && n == 0);
  /* Unused since 4000: h2 goes (last used 2000); h3 (5000) and h1 stay, and so does the guest's
   * session, though last used at 1: a guest's goes with the guest (players_expire). */
  ASSERT_EQ(srv_store_session_seen(s, h9, 1), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  uint8_t(*idle)[32] = NULL;
  ASSERT_EQ(srv_store_sessions_idle_list(s, 4000, &idle, &n), 0);
  ASSERT_EQ(n, 1);
  ASSERT_EQ(memcmp(idle[0], h2, 32), 0);
  free(idle);
  ASSERT_EQ(srv_store_sessions_idle(s, 4000), 1);
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM sessions WHERE player = 'pa'"), 2);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM sessions WHERE token_hash = x'"
                         "0202020202020202020202020202020202020202020202020202020202020202'"),
            0);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM sessions WHERE player = 'pg'"), 1);
  srv_store_close(s);
  rm_tree(dir);
  return 0;
}

static srv_store_account mk_account(const char *player, const char *name, const char *key) {
  srv_store_account a;
  memset(&a, 0, sizeof a);
  snprintf(a.player, sizeof a.player, "%s", player);
  snprintf(a.name, sizeof a.name, "%s", name);
  snprintf(a.key, sizeof a.key, "%s", key);
  snprintf(a.password, sizeof a.password, "$argon2id$v=19$m=19456,t=2,p=1$salt$hash-of-%s", name);
  a.created_ms = a.password_ms = 1764374400000LL;
  return a;
}

TEST_IMPL(accounts) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  put_player(s, "pa", "Ana", 1);
  put_player(s, "pb", "Bo", 2);
  srv_store_account a = mk_account("pa", "Ana", "ana"), b = mk_account("pb", "ANA", "ana");
  ASSERT_EQ(srv_store_account_create(s, &a), 0);
  /* The key is unique: the conflict costs only itself. */
  ASSERT_EQ(srv_store_account_create(s, &b), SRV_STORE_ECONFLICT);
  ASSERT(srv_store_pending(s));
  /* One account per player, too. */
  srv_store_account again = mk_account("pa", "Other", "other");
  ASSERT_EQ(srv_store_account_create(s, &again), SRV_STORE_ECONFLICT);
  ASSERT_EQ(srv_store_commit(s), 0);
  srv_store_account out;
  ASSERT_EQ(srv_store_account_by_key(s, "ana", &out), 0);
  ASSERT_STR_EQ(out.player, "pa");
  ASSERT_STR_EQ(out.name, "Ana");
  ASSERT_STR_EQ(out.password, a.password);
  ASSERT_EQ(srv_store_account_by_player(s, "pa", &out), 0);
  ASSERT_STR_EQ(out.key, "ana");
  ASSERT_EQ(srv_store_account_by_player(s, "pb", &out), SRV_STORE_ENOTFOUND);
  ASSERT_EQ(srv_store_account_by_key(s, "bo", &out), SRV_STORE_ENOTFOUND);
  ASSERT_EQ(srv_store_account_password(s, "pa", "$argon2id$new", 1764374999000LL), 0);
  ASSERT_EQ(srv_store_account_password(s, "pb", "$argon2id$new", 1), SRV_STORE_ENOTFOUND);
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT_EQ(srv_store_account_by_key(s, "ana", &out), 0);
  ASSERT_STR_EQ(out.password, "$argon2id$new");
  ASSERT_EQ(out.password_ms, 1764374999000LL);
  ASSERT_EQ(out.created_ms, 1764374400000LL);
  srv_store_close(s);
  rm_tree(dir);
  return 0;
}

/* Starts and finishes a rated Kalah game in room between south and north (player ids) won by
 * winner; returns its id. */
static int64_t rated_game(srv_store *s, const char *room, const char *south, const char *north,
                          mc_winner winner, int64_t ended) {
  srv_store_game g = mk_game(room, MC_KALAH, mk_seat(south, south), mk_seat(north, north));
  g.rated = true;
  g.clocked = true;
  g.initial_ms = 300000;
  srv_store_room r = mk_room(room, SRV_STORE_STATUS_PLAYING, &g);
  int64_t id = 0;
  ASSERT_EQ(srv_store_room_put(s, &r), 0);
  ASSERT_EQ(srv_store_game_start(s, &g, &id), 0);
  int score[2] = {24, 24};
  ASSERT_EQ(srv_store_game_finish(s, id, winner, MC_REASON_RESIGNATION, score, ended), 0);
  return id;
}

static srv_store_rating rating(double value, double rd, int games, int wins, int64_t last) {
  srv_store_rating r = {value, rd, 0.06, games, wins, games - wins, 0, last};
  return r;
}

TEST_IMPL(ratings_and_leaderboard) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  const char *ids[] = {"pa", "pb", "pc"}, *names[] = {"Ana", "Bo", "Cy"};
  for (int i = 0; i < 3; i++) {
    put_player(s, ids[i], names[i], i + 1);
    char key[8];
    snprintf(key, sizeof key, "%c%c", names[i][0] + 32, names[i][1]);
    srv_store_account a = mk_account(ids[i], names[i], key);
    ASSERT_EQ(srv_store_account_create(s, &a), 0);
  }
  /* Game 1: Ana beats Bo. Game 2: Cy beats Ana. */
  int64_t g1 = rated_game(s, "R1", "pa", "pb", MC_WIN_SOUTH, 1000);
  ASSERT_EQ(srv_store_game_rated(s, g1), 0);
  const char *p1[2] = {"pa", "pb"};
  srv_store_rating after1[2] = {rating(1662.3, 290.3, 1, 1, 1000),
                                rating(1337.7, 290.3, 1, 0, 1000)};
  double diff1[2] = {162.3, -162.3};
  ASSERT_EQ(srv_store_game_rate(s, g1, MC_KALAH, p1, after1, diff1, 1000), 0);
  ASSERT_EQ(srv_store_game_rated(s, g1), 1);
  int64_t g2 = rated_game(s, "R2", "pc", "pa", MC_WIN_SOUTH, 2000);
  const char *p2[2] = {"pc", "pa"};
  srv_store_rating after2[2] = {rating(1700.5, 280, 1, 1, 2000), rating(1600.1, 250, 2, 1, 2000)};
  double diff2[2] = {200.5, -62.2};
  ASSERT_EQ(srv_store_game_rate(s, g2, MC_KALAH, p2, after2, diff2, 2000), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  /* Reads: per game, the others at a new player's. */
  srv_store_rating r[SRV_STORE_RATED_GAMES];
  ASSERT_EQ(srv_store_ratings_get(s, "pa", r), 0);
  ASSERT(r[MC_KALAH].rating == 1600.1 && r[MC_KALAH].games == 2 && r[MC_KALAH].wins == 1 &&
         r[MC_KALAH].losses == 1 && r[MC_KALAH].last_ms == 2000);
  ASSERT(r[MC_OWARE].rating == 1500 && r[MC_OWARE].games == 0);
  /* The leaderboard: best first, paged; the others' games do not show. */
  srv_store_board *b = NULL;
  ASSERT_EQ(srv_store_leaderboard(s, MC_KALAH, 0, 2, &b), 0);
  ASSERT_EQ(b->total, 3);
  ASSERT_EQ(b->n, 2);
  ASSERT_STR_EQ(b->rows[0].name, "Cy");
  ASSERT_STR_EQ(b->rows[1].name, "Ana");
  ASSERT_STR_EQ(b->rows[1].player, "pa");
  srv_store_board_free(b);
  ASSERT_EQ(srv_store_leaderboard(s, MC_KALAH, 2, 2, &b), 0);
  ASSERT_EQ(b->n, 1);
  ASSERT_STR_EQ(b->rows[0].name, "Bo");
  srv_store_board_free(b);
  ASSERT_EQ(srv_store_leaderboard(s, MC_OWARE, 0, 50, &b), 0);
  ASSERT(b->total == 0 && b->n == 0);
  srv_store_board_free(b);
  ASSERT_EQ(srv_store_leaderboard(s, MC_KALAH, 0, 101, &b), SRV_STORE_EINVAL);
  long rank = 0;
  ASSERT_EQ(srv_store_rank(s, MC_KALAH, 1600.1, &rank), 0);
  ASSERT_EQ(rank, 2);
  /* History, oldest first, and the games of a player with their rating change. */
  srv_store_rating_point *pts = NULL;
  size_t n = 0;
  ASSERT_EQ(srv_store_rating_history(s, "pa", MC_KALAH, 10, &pts, &n), 0);
  ASSERT_EQ(n, 2);
  ASSERT(pts[0].game_id == g1 && pts[0].rating == 1662.3 && pts[0].diff == 162.3);
  ASSERT(pts[1].game_id == g2 && pts[1].rating == 1600.1 && pts[1].at_ms == 2000);
  free(pts);
  ASSERT_EQ(srv_store_rating_history(s, "pa", MC_KALAH, 1, &pts, &n), 0);
  ASSERT(n == 1 && pts[0].game_id == g2); /* The last one. */
  free(pts);
  srv_store_game_list *list = NULL;
  ASSERT_EQ(srv_store_player_games_page(s, "pa", 0, 1, &list), 0);
  ASSERT_EQ(list->n, 1);
  ASSERT(list->games[0].id == g2 && list->games[0].rated && list->games[0].rating_known);
  ASSERT(list->games[0].rating_after == 1600.1 && list->games[0].rating_diff == -62.2);
  srv_store_game_list_free(list);
  ASSERT_EQ(srv_store_player_games_page(s, "pa", g2, 10, &list), 0);
  ASSERT(list->n == 1 && list->games[0].id == g1 && list->games[0].rating_diff == 162.3);
  srv_store_game_list_free(list);
  /* A game rated twice is a bug: its second rating is refused and changes nothing (the store's
   * caller asks srv_store_game_rated() first). */
  ASSERT_EQ(srv_store_game_rate(s, g1, MC_KALAH, p1, after1, diff1, 1000), SRV_STORE_ECONFLICT);
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT_EQ(srv_store_ratings_get(s, "pa", r), 0);
  ASSERT(r[MC_KALAH].rating == 1600.1);
  srv_store_close(s);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM rating_history"), 4);
  rm_tree(dir);
  return 0;
}

/* Deleting an account: everything that names it goes, its games stay with the anonymous seat,
 * the opponent's ratings and history stay. */
TEST_IMPL(account_deletion) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  put_player(s, "pa", "Ana", 1);
  put_player(s, "pb", "Bo", 2);
  srv_store_account a = mk_account("pa", "Ana", "ana"), b = mk_account("pb", "Bo", "bo");
  ASSERT_EQ(srv_store_account_create(s, &a), 0);
  ASSERT_EQ(srv_store_account_create(s, &b), 0);
  int64_t g = rated_game(s, "R1", "pa", "pb", MC_WIN_NORTH, 1000);
  const char *p[2] = {"pa", "pb"};
  srv_store_rating after[2] = {rating(1337.7, 290, 1, 0, 1000), rating(1662.3, 290, 1, 1, 1000)};
  double diff[2] = {-162.3, 162.3};
  ASSERT_EQ(srv_store_game_rate(s, g, MC_KALAH, p, after, diff, 1000), 0);
  /* Two lines of Ana's and one of Bo's. */
  const char *said[3][4] = {
      {"pa", "Ana", "south", "hi"}, {"pb", "Bo", "north", "hello"}, {"pa", "Ana", "south", "gg"}};
  for (int i = 0; i < 3; i++) {
    srv_store_chat line = {.room = "R1", .game = g, .at_ms = 5 + i, .text = said[i][3]};
    snprintf(line.player, sizeof line.player, "%s", said[i][0]);
    snprintf(line.name, sizeof line.name, "%s", said[i][1]);
    snprintf(line.seat, sizeof line.seat, "%s", said[i][2]);
    ASSERT_EQ(srv_store_chat_add(s, &line), 0);
  }
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT_EQ(srv_store_account_delete(s, "pa", "[deleted]"), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  srv_store_close(s);
  const char *none[] = {"SELECT count(*) FROM accounts WHERE player = 'pa'",
                        "SELECT count(*) FROM sessions WHERE player = 'pa'",
                        "SELECT count(*) FROM players WHERE id = 'pa'",
                        "SELECT count(*) FROM ratings WHERE player = 'pa'",
                        "SELECT count(*) FROM rating_history WHERE player = 'pa'",
                        "SELECT count(*) FROM games WHERE south = 'pa' OR north = 'pa'",
                        "SELECT count(*) FROM rooms WHERE south = 'pa' OR north = 'pa'",
                        "SELECT count(*) FROM games WHERE south_name = 'pa'",
                        "SELECT count(*) FROM chat WHERE player = 'pa' OR name = 'Ana'"};
  for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
    ASSERT_EQ(raw_int(dir, none[i]), 0);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM games WHERE south IS NULL AND "
                         "south_name = '[deleted]' AND north = 'pb'"),
            1);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM rooms WHERE south IS NULL AND "
                         "south_name = '[deleted]'"),
            1);
  /* Ana's lines stay, in their places, without her id and name; Bo's is untouched. */
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM chat WHERE player = '' AND name = '[deleted]' "
                         "AND seat = 'south' AND room = 'R1'"),
            2);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM chat WHERE player = 'pb' AND name = 'Bo'"), 1);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM rating_history WHERE player = 'pb'"), 1);
  ASSERT_EQ(raw_int(dir, "SELECT games FROM ratings WHERE player = 'pb'"), 1);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM accounts WHERE player = 'pb'"), 1);
  rm_tree(dir);
  return 0;
}
