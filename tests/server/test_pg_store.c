/* The store on PostgreSQL (issue 20): the schema made from the tables' description and refused
 * when it is newer or not ours, the same writes and reads as SQLite's through one batch a commit,
 * a failed batch reporting every write it held, the asynchronous commit on a loop, and a batch
 * whose COMMIT's answer is lost on its way back (a proxy drops it): reported lost, and undone by
 * the next commit because it did go in. Each test has a database of its own in the PostgreSQL
 * the ctest fixture started (MANCALA_TEST_PG: tests/pg.sh). */
#include "store_util.h"

#include <libpq-fe.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

/* The fixture's port. */
static int pg_port(void) {
  const char *dir = getenv("MANCALA_TEST_PG");
  ASSERT_NOT_NULL(dir); /* Run by ctest with the postgres fixture: never a silent skip. */
  return test_port_in(dir);
}

/* Runs sql as the superuser on database db of the fixture; returns the first value's number or
 * -1 without rows. */
static long pg_admin(const char *db, const char *sql) {
  char conninfo[256];
  snprintf(conninfo, sizeof conninfo, "host=127.0.0.1 port=%d user=postgres dbname=%s", pg_port(),
           db);
  PGconn *c = PQconnectdb(conninfo);
  ASSERT_EQ(PQstatus(c), CONNECTION_OK);
  PGresult *r = PQexec(c, sql);
  ExecStatusType st = PQresultStatus(r);
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
    fprintf(stderr, "%s: %s", sql, PQerrorMessage(c));
  ASSERT(st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK);
  long v = st == PGRES_TUPLES_OK && PQntuples(r) > 0 ? strtol(PQgetvalue(r, 0, 0), NULL, 10) : -1;
  PQclear(r);
  PQfinish(c);
  return v;
}

/* A new empty database for this test; its URL into url (through port when > 0). */
static void fresh_db(char *db, size_t dsize, char *url, size_t usize, int port) {
  static int n;
  snprintf(db, dsize, "t_%ld_%d", (long)getpid(), n++);
  char sql[128];
  snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", db);
  pg_admin("postgres", sql);
  snprintf(sql, sizeof sql, "CREATE DATABASE %s OWNER mancala", db);
  pg_admin("postgres", sql);
  snprintf(url, usize, "postgresql://mancala@127.0.0.1:%d/%s", port > 0 ? port : pg_port(), db);
}

static void drop_db(const char *db) {
  char sql[128];
  snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", db);
  pg_admin("postgres", sql);
}

/* A count from db. */
static long count(const char *db, const char *sql) {
  return pg_admin(db, sql);
}

/* Ana (stored) against the computer in a new Kalah game of room code with game id: its room and
 * its start join s's batch. Returns the id. */
static int64_t ana_vs_computer(srv_store *s, const char *code, int64_t game_id) {
  put_player(s, "pa", "Ana", 1);
  srv_store_game g = mk_game(code, MC_KALAH, mk_seat("pa", "Ana"), mk_seat("", "Computer"));
  srv_store_room r = mk_room(code, SRV_STORE_STATUS_PLAYING, &g);
  int64_t id = 0;
  g.id = game_id;
  ASSERT_EQ(srv_store_room_put(s, &r), 0);
  ASSERT_EQ(srv_store_game_start(s, &g, &id), 0);
  return id;
}

TEST_IMPL(schema) {
  char db[64], url[256], err[SRV_STORE_ERR_SIZE];
  fresh_db(db, sizeof db, url, sizeof url, 0);
  ASSERT(srv_store_is_url(url));
  srv_store *s = NULL;
  ASSERT_EQ(srv_store_open(url, NULL, &s, err), 0);
  ASSERT_STR_EQ(srv_store_backend(s), "postgresql");
  ASSERT(srv_store_connected(s));
  /* Every table of the description, and the schema's version. */
  ASSERT_EQ(count(db, "SELECT version FROM mancala_schema"), SRV_STORE_SCHEMA_VERSION);
  ASSERT_EQ(count(db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename IN "
                      "('players', 'rooms', 'games', 'moves', 'sessions', 'accounts', 'ratings', "
                      "'rating_history', 'chat', 'secrets', 'commit_marks')"),
            11);
  ASSERT_EQ(count(db, "SELECT count(*) FROM information_schema.columns WHERE table_name = 'games' "
                      "AND column_name = 'owner_epoch'"),
            1);
  unsigned char key[16], again[16];
  ASSERT_EQ(srv_store_secret(s, "game_id", key, sizeof key), 0);
  srv_store_close(s);
  /* Opening again changes nothing: the same key. */
  ASSERT_EQ(srv_store_open(url, NULL, &s, err), 0);
  ASSERT_EQ(srv_store_secret(s, "game_id", again, sizeof again), 0);
  ASSERT_EQ(memcmp(key, again, sizeof key), 0);
  srv_store_close(s);
  /* A newer schema is refused, never downgraded. */
  pg_admin(db, "UPDATE mancala_schema SET version = 99");
  ASSERT_EQ(srv_store_open(url, NULL, &s, err), SRV_STORE_ENEWER);
  ASSERT_NULL(s);
  ASSERT(strstr(err, "99") != NULL);
  drop_db(db);
  /* A database holding another program's tables is refused, never migrated. */
  fresh_db(db, sizeof db, url, sizeof url, 0);
  pg_admin(db,
           "CREATE TABLE invoices (id INTEGER PRIMARY KEY); ALTER TABLE invoices OWNER TO mancala");
  ASSERT_EQ(srv_store_open(url, NULL, &s, err), SRV_STORE_ECORRUPT);
  ASSERT(strstr(err, "another program") != NULL);
  drop_db(db);
  /* Nothing listens there: a plain error, no crash. */
  ASSERT(srv_store_open("postgresql://mancala@127.0.0.1:1/nothing", NULL, &s, err) < 0);
  ASSERT(strstr(err, "127.0.0.1") != NULL);
  return 0;
}

#define GAMES 10
#define MOVES 600

TEST_IMPL(round_trip) {
  char db[64], url[256], err[SRV_STORE_ERR_SIZE];
  fresh_db(db, sizeof db, url, sizeof url, 0);
  srv_store *s = NULL;
  ASSERT_EQ(srv_store_open(url, NULL, &s, err), 0);
  ASSERT_EQ(srv_store_commit(s), 0); /* Nothing to commit is no commit. */
  put_player(s, "pa", "Ana", 1);
  put_player(s, "pb", "Bo", 2);
  int64_t ids[GAMES];
  mc_game *live[GAMES];
  for (int i = 0; i < GAMES; i++) {
    char code[8];
    snprintf(code, sizeof code, "R%d", i);
    srv_store_game g = mk_game(code, MC_KALAH, mk_seat("pa", "Ana"), mk_seat("pb", "Bo"));
    srv_store_room r = mk_room(code, SRV_STORE_STATUS_PLAYING, &g);
    ASSERT_EQ(srv_store_room_put(s, &r), 0);
    g.id = 100 + i; /* The server numbers games (srv_rooms_set_next_game_id()). */
    ASSERT_EQ(srv_store_game_start(s, &g, &ids[i]), 0);
    ASSERT_EQ(ids[i], 100 + i);
    live[i] = mc_game_new(&g.rules);
  }
  int played = 0;
  for (int64_t t = 0; played < MOVES && t < 100 * MOVES; t++)
    played += play_and_store(s, ids[t % GAMES], live[t % GAMES], t) > 0;
  ASSERT(srv_store_pending(s));
  /* Nothing is in the database before the commit. */
  ASSERT_EQ(count(db, "SELECT count(*) FROM moves"), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT(!srv_store_pending(s));
  srv_store_stats st;
  srv_store_get_stats(s, &st);
  ASSERT_EQ(st.commits, 1);
  ASSERT_EQ(st.failed_commits, 0);
  ASSERT_EQ(count(db, "SELECT count(*) FROM moves"), played);
  /* The first game finished, the second aborted. */
  int score[2] = {30, 18};
  ASSERT_EQ(srv_store_game_finish(s, ids[0], MC_WIN_SOUTH, MC_REASON_NO_SEEDS, score, 5000), 0);
  ASSERT_EQ(srv_store_game_abort(s, ids[1], 5000), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  int64_t next = 0;
  ASSERT_EQ(srv_store_games_next_id(s, &next), 0);
  ASSERT_EQ(next, 100 + GAMES);
  srv_store_close(s);

  /* What a restart reads: the open rooms, their unfinished games with every move, the players. */
  ASSERT_EQ(srv_store_open(url, NULL, &s, err), 0);
  srv_store_recovery *rec = NULL;
  ASSERT_EQ(srv_store_recover(s, &rec), 0);
  ASSERT_EQ(rec->n_rooms, GAMES);
  ASSERT_EQ(rec->n_games, GAMES - 2);
  ASSERT_EQ(rec->n_players, 2);
  size_t moves = 0;
  for (size_t i = 0; i < rec->n_games; i++) {
    const srv_store_game *g = &rec->games[i];
    mc_game *back = NULL;
    ASSERT_EQ(srv_store_replay(g, false, &back, NULL), 0); /* Every stored move replays. */
    int k = (int)(g->id - 100);
    ASSERT_EQ(mc_game_ply(back), mc_game_ply(live[k]));
    mc_game_free(back);
    moves += g->n_moves;
  }
  ASSERT(moves > 0);
  srv_store_recovery_free(rec);
  srv_store_game *g0 = NULL;
  ASSERT_EQ(srv_store_game_get(s, ids[0], &g0), 0);
  ASSERT_EQ(g0->winner, MC_WIN_SOUTH);
  ASSERT_EQ(g0->score[0], 30);
  ASSERT_EQ(g0->ended_ms, 5000);
  srv_store_game_free(g0);
  srv_store_game_list *list = NULL;
  ASSERT_EQ(srv_store_player_games(s, "pa", 10, &list), 0);
  ASSERT_EQ(list->n, 1); /* The finished one; the aborted game is in no list. */
  ASSERT_EQ(list->games[0].id, ids[0]);
  srv_store_game_list_free(list);
  srv_store_player p;
  uint8_t hash[32];
  memset(hash, 1, sizeof hash);
  ASSERT_EQ(srv_store_player_by_token(s, hash, &p), 0);
  ASSERT_STR_EQ(p.id, "pa");
  for (int i = 0; i < GAMES; i++)
    mc_game_free(live[i]);
  srv_store_close(s);
  drop_db(db);
  return 0;
}

TEST_IMPL(accounts_and_ratings) {
  char db[64], url[256], err[SRV_STORE_ERR_SIZE];
  fresh_db(db, sizeof db, url, sizeof url, 0);
  srv_store *s = NULL;
  ASSERT_EQ(srv_store_open(url, NULL, &s, err), 0);
  put_player(s, "pa", "Ana", 1);
  put_player(s, "pb", "Bo", 2);
  srv_store_account a = {.player = "pa",
                         .name = "Ana",
                         .key = "ana",
                         .password = "$argon2id$x",
                         .created_ms = 10,
                         .password_ms = 10};
  ASSERT_EQ(srv_store_account_create(s, &a), 0);
  /* The same name again before the commit: refused at once, not at the commit (which would cost
   * the whole batch); the batch commits. */
  srv_store_account twin = a;
  snprintf(twin.player, sizeof twin.player, "pb");
  ASSERT_EQ(srv_store_account_create(s, &twin), SRV_STORE_ECONFLICT);
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT_EQ(count(db, "SELECT count(*) FROM accounts"), 1);
  srv_store_account got;
  ASSERT_EQ(srv_store_account_by_key(s, "ana", &got), 0);
  ASSERT_STR_EQ(got.player, "pa");
  ASSERT_EQ(srv_store_account_by_key(s, "nobody", &got), SRV_STORE_ENOTFOUND);
  ASSERT_EQ(srv_store_account_password(s, "pa", "$argon2id$y", 20), 0);
  ASSERT_EQ(srv_store_account_password(s, "pb", "$argon2id$z", 20), SRV_STORE_ENOTFOUND);
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT_EQ(srv_store_account_by_player(s, "pa", &got), 0);
  ASSERT_STR_EQ(got.password, "$argon2id$y");
  ASSERT_EQ(got.password_ms, 20);
  /* A rated game: ratings, history, leaderboard, rank. */
  srv_store_game g = mk_game("RR", MC_KALAH, mk_seat("pa", "Ana"), mk_seat("pb", "Bo"));
  g.rated = true;
  g.id = 7;
  srv_store_room r = mk_room("RR", SRV_STORE_STATUS_PLAYING, &g);
  int64_t id = 0;
  ASSERT_EQ(srv_store_room_put(s, &r), 0);
  ASSERT_EQ(srv_store_game_start(s, &g, &id), 0);
  int score[2] = {40, 8};
  ASSERT_EQ(srv_store_game_finish(s, id, MC_WIN_SOUTH, MC_REASON_NO_SEEDS, score, 900), 0);
  srv_store_rating after[2] = {
      {.rating = 1662.3, .rd = 290.1, .vol = 0.06, .games = 1, .wins = 1},
      {.rating = 1337.7, .rd = 290.1, .vol = 0.06, .games = 1, .losses = 1}};
  const char *players[2] = {"pa", "pb"};
  const double diff[2] = {162.3, -162.3};
  ASSERT_EQ(srv_store_game_rated(s, id), 0);
  ASSERT_EQ(srv_store_game_rate(s, id, MC_KALAH, players, after, diff, 900), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT_EQ(srv_store_game_rated(s, id), 1);
  srv_store_rating mine[SRV_STORE_RATED_GAMES];
  ASSERT_EQ(srv_store_ratings_get(s, "pa", mine), 0);
  ASSERT(mine[MC_KALAH].rating > 1662.29 && mine[MC_KALAH].rating < 1662.31);
  ASSERT_EQ(mine[MC_KALAH].wins, 1);
  ASSERT_EQ(mine[MC_OWARE].games, 0); /* Never rated there: a new player's rating. */
  ASSERT(mine[MC_OWARE].rating == 1500);
  srv_store_board *b = NULL;
  ASSERT_EQ(srv_store_leaderboard(s, MC_KALAH, 0, 10, &b), 0);
  ASSERT_EQ(b->total, 1); /* Bo has no account: not on the board. */
  ASSERT_STR_EQ(b->rows[0].name, "Ana");
  srv_store_board_free(b);
  long rank = 0;
  ASSERT_EQ(srv_store_rank(s, MC_KALAH, 1500, &rank), 0);
  ASSERT_EQ(rank, 2);
  srv_store_rating_point *pts = NULL;
  size_t n = 0;
  ASSERT_EQ(srv_store_rating_history(s, "pa", MC_KALAH, 10, &pts, &n), 0);
  ASSERT_EQ(n, 1);
  ASSERT_EQ(pts[0].game_id, id);
  free(pts);
  /* A chat line, then the account deleted: its seats anonymised, its ratings gone. */
  srv_store_chat c = {.room = "RR",
                      .game = id,
                      .at_ms = 5,
                      .player = "pa",
                      .name = "Ana",
                      .seat = "south",
                      .text = "gg"};
  ASSERT_EQ(srv_store_chat_add(s, &c), 0);
  ASSERT_EQ(srv_store_account_delete(s, "pa", "deleted"), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT_EQ(srv_store_account_by_player(s, "pa", &got), SRV_STORE_ENOTFOUND);
  ASSERT_EQ(count(db, "SELECT count(*) FROM games WHERE south_name = 'deleted' AND south IS NULL"),
            1);
  ASSERT_EQ(count(db, "SELECT count(*) FROM ratings WHERE player = 'pa'"), 0);
  /* Its chat line stays, anonymised as its seats are (issue 25, item 8). */
  ASSERT_EQ(count(db, "SELECT count(*) FROM chat"), 1);
  ASSERT_EQ(count(db, "SELECT count(*) FROM chat WHERE player = '' AND name = 'deleted' AND "
                      "text = 'gg'"),
            1);
  srv_store_close(s);
  drop_db(db);
  return 0;
}

/* Schema 9 on PostgreSQL: made from version 8 (the columns added), a session's last use and
 * device, an account's sessions most recently used first, and idle sessions of accounts deleted
 * (a guest's stays). */
TEST_IMPL(sessions) {
  char db[64], url[256], err[SRV_STORE_ERR_SIZE];
  fresh_db(db, sizeof db, url, sizeof url, 0);
  srv_store *s = NULL;
  ASSERT_EQ(srv_store_open(url, NULL, &s, err), 0);
  srv_store_close(s);
  pg_admin(db, "ALTER TABLE sessions DROP COLUMN seen_ms, DROP COLUMN label; "
               "DROP TABLE analyses; UPDATE mancala_schema SET version = 8");
  ASSERT_EQ(srv_store_open(url, NULL, &s, err), 0);
  ASSERT_EQ(count(db, "SELECT version FROM mancala_schema"), SRV_STORE_SCHEMA_VERSION);
  ASSERT_EQ(count(db, "SELECT count(*) FROM information_schema.tables WHERE "
                      "table_name = 'analyses'"),
            1); /* Schema 10's table, made on the way. */
  ASSERT_EQ(count(db, "SELECT count(*) FROM information_schema.columns WHERE "
                      "table_name = 'sessions' AND column_name IN ('seen_ms', 'label')"),
            2);
  put_player(s, "pa", "Ana", 1); /* Its session: hash 1...1, made at 1764374400000. */
  put_player(s, "pg", "Guest", 9);
  srv_store_account a = {.player = "pa",
                         .name = "Ana",
                         .key = "ana",
                         .password = "$argon2id$x",
                         .created_ms = 10,
                         .password_ms = 10};
  ASSERT_EQ(srv_store_account_create(s, &a), 0);
  uint8_t h2[32], h3[32], h9[32];
  memset(h2, 2, sizeof h2);
  memset(h3, 3, sizeof h3);
  memset(h9, 9, sizeof h9);
  ASSERT_EQ(srv_store_session_put(s, h2, "pa", 2000), 0);
  ASSERT_EQ(srv_store_session_put(s, h3, "pa", 3000), 0);
  ASSERT_EQ(srv_store_session_label(s, h2, "Firefox on Linux"), 0);
  ASSERT_EQ(srv_store_session_seen(s, h3, 5000), 0);
  ASSERT_EQ(srv_store_session_seen(s, h9, 1), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  srv_store_session *list = NULL;
  size_t n = 0;
  ASSERT_EQ(srv_store_sessions_of(s, "pa", &list, &n), 0);
  ASSERT_EQ(n, 3);
  ASSERT_EQ(list[0].token_hash[0], 1);
  ASSERT_EQ(list[0].seen_ms, 1764374400000LL);
  ASSERT_EQ(list[1].token_hash[31], 3);
  ASSERT_EQ(list[1].seen_ms, 5000);
  ASSERT_EQ(list[2].token_hash[0], 2);
  ASSERT_EQ(list[2].seen_ms, 2000);
  ASSERT_STR_EQ(list[2].label, "Firefox on Linux");
  free(list);
  uint8_t(*idle)[32] = NULL;
  ASSERT_EQ(srv_store_sessions_idle_list(s, 4000, &idle, &n), 0);
  ASSERT_EQ(n, 1);
  ASSERT_EQ(memcmp(idle[0], h2, 32), 0);
  free(idle);
  ASSERT_EQ(srv_store_sessions_idle(s, 4000), 0); /* Counted at the commit, not here. */
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT_EQ(count(db, "SELECT count(*) FROM sessions WHERE player = 'pa'"), 2);
  ASSERT_EQ(count(db, "SELECT count(*) FROM sessions WHERE player = 'pa' AND seen_ms = 2000"), 0);
  ASSERT_EQ(count(db, "SELECT count(*) FROM sessions WHERE player = 'pg'"), 1);
  srv_store_close(s);
  drop_db(db);
  return 0;
}

TEST_IMPL(failed_batch_reports_every_write) {
  char db[64], url[256], err[SRV_STORE_ERR_SIZE];
  fresh_db(db, sizeof db, url, sizeof url, 0);
  srv_store *s = NULL;
  ASSERT_EQ(srv_store_open(url, NULL, &s, err), 0);
  int64_t id = ana_vs_computer(s, "RF", 1);
  srv_store_move m = {.ply = 0, .seat = 0, .house = 3, .clock_ms = -1, .at_ms = 1};
  ASSERT_EQ(srv_store_move_add(s, id, &m), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  /* The same ply again: PostgreSQL refuses it at the commit, and with it the whole batch. */
  srv_store_move m1 = {.ply = 1, .seat = 1, .house = 2, .clock_ms = -1, .at_ms = 2};
  ASSERT_EQ(srv_store_move_add(s, id, &m1), 0);
  ASSERT_EQ(srv_store_move_add(s, id, &m), 0);
  ASSERT(srv_store_commit(s) < 0);
  size_t n = 0;
  const srv_store_op *lost = srv_store_failed(s, &n);
  ASSERT_EQ(n, 2);
  ASSERT_EQ(lost[0].kind, SRV_STORE_OP_MOVE);
  ASSERT_EQ(lost[0].ply, 1);
  ASSERT_EQ(lost[1].ply, 0);
  ASSERT_EQ(count(db, "SELECT count(*) FROM moves"), 1);
  /* The next batch commits on the same connection (the failed transaction was rolled back). */
  ASSERT_EQ(srv_store_move_add(s, id, &m1), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT(srv_store_failed(s, &n) == NULL);
  ASSERT_EQ(count(db, "SELECT count(*) FROM moves"), 2);
  srv_store_close(s);
  drop_db(db);
  return 0;
}

TEST_IMPL(fencing) {
  char db[64], url[256], err[SRV_STORE_ERR_SIZE];
  fresh_db(db, sizeof db, url, sizeof url, 0);
  /* Two writers on one database, as two nodes of a cluster (no lease: they share it). */
  srv_store *a = NULL, *b = NULL;
  srv_store_config shared;
  srv_store_config_init(&shared);
  shared.shared = true;
  ASSERT_EQ(srv_store_open(url, &shared, &a, err), 0);
  ASSERT_EQ(srv_store_open(url, &shared, &b, err), 0);
  int64_t id = ana_vs_computer(a, "RE", 5), ea = 0, eb = 0;
  ASSERT_EQ(srv_store_commit(a), 0);
  ASSERT_EQ(srv_store_game_claim(a, id, &ea), 0);
  ASSERT_EQ(ea, 1);
  ASSERT_EQ(srv_store_game_claim(a, 999, &ea), SRV_STORE_ENOTFOUND);
  srv_store_move m0 = {.ply = 0, .seat = 0, .house = 3, .clock_ms = -1, .at_ms = 1};
  ASSERT_EQ(srv_store_move_add(a, id, &m0), 0);
  ASSERT_EQ(srv_store_commit(a), 0);
  /* B takes the game over: A's next batch that writes it is refused whole. */
  ASSERT_EQ(srv_store_game_claim(b, id, &eb), 0);
  ASSERT_EQ(eb, 2);
  srv_store_move m1 = {.ply = 1, .seat = 0, .house = 1, .clock_ms = -1, .at_ms = 2};
  put_player(a, "pz", "Zed", 9);
  ASSERT_EQ(srv_store_move_add(a, id, &m1), 0);
  ASSERT_EQ(srv_store_commit(a), SRV_STORE_ECONFLICT);
  size_t n = 0;
  ASSERT(srv_store_failed(a, &n) != NULL);
  ASSERT_EQ(n, 3); /* The player, its session and the move. */
  ASSERT_EQ(count(db, "SELECT count(*) FROM moves"), 1);
  ASSERT_EQ(count(db, "SELECT count(*) FROM players WHERE id = 'pz'"), 0);
  /* B, the owner now, writes it. */
  ASSERT_EQ(srv_store_move_add(b, id, &m1), 0);
  ASSERT_EQ(srv_store_commit(b), 0);
  ASSERT_EQ(count(db, "SELECT count(*) FROM moves"), 2);
  ASSERT_EQ(count(db, "SELECT owner_epoch FROM games WHERE id = 5"), 2);
  /* A takes it back in two steps, as a node does off its loop: the epoch raised through a reader
   * of A's (a pool thread's connection), then recorded for A's batches. B is refused from then on,
   * A writes again. */
  srv_store *ar = NULL;
  ASSERT_EQ(srv_store_open_reader(a, &ar), 0);
  int64_t ea2 = 0;
  ASSERT_EQ(srv_store_game_claim_raise(ar, id, &ea2), 0);
  ASSERT_EQ(ea2, 3);
  ASSERT_EQ(srv_store_game_claim_raise(ar, 999, &ea2), SRV_STORE_ENOTFOUND);
  ASSERT_EQ(srv_store_game_claimed(ar, id, 3), SRV_STORE_EINVAL); /* A reader writes nothing. */
  ASSERT_EQ(srv_store_game_claimed(a, id, 3), 0);
  srv_store_move m2 = {.ply = 2, .seat = 1, .house = 2, .clock_ms = -1, .at_ms = 3};
  ASSERT_EQ(srv_store_move_add(b, id, &m2), 0);
  ASSERT_EQ(srv_store_commit(b), SRV_STORE_ECONFLICT);
  ASSERT_EQ(srv_store_move_add(a, id, &m2), 0);
  ASSERT_EQ(srv_store_commit(a), 0);
  ASSERT_EQ(count(db, "SELECT count(*) FROM moves"), 3);
  ASSERT_EQ(count(db, "SELECT owner_epoch FROM games WHERE id = 5"), 3);
  srv_store_close(ar);
  /* SQLite has one writer (its directory lock): nothing to claim. */
  char dir[256];
  tmp_dir(dir, sizeof dir);
  srv_store *lite = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_NORMAL, &lite, err), 0);
  ASSERT_EQ(srv_store_game_claim(lite, 1, &ea), SRV_STORE_EINVAL);
  srv_store_close(lite);
  rm_tree(dir);
  srv_store_close(a);
  srv_store_close(b);
  drop_db(db);
  return 0;
}

/* ---- On a loop, through a proxy that loses an answer ------------------------------------- */

/* A TCP proxy on 127.0.0.1 between the store and PostgreSQL, in a child process: SIGUSR1 makes it
 * read and throw away what the database answers from then on; SIGUSR2 closes every connection and
 * forwards again. */
typedef struct link {
  uv_tcp_t client, upstream;
  uv_connect_t connect;
  bool closed;
} link_t;

static bool px_drop;
static link_t *px_links[16];
static int px_n, px_target;

static void px_alloc(uv_handle_t *h, size_t size, uv_buf_t *buf) {
  (void)h;
  buf->base = malloc(size);
  buf->len = size;
}

static void px_written(uv_write_t *w, int status) {
  (void)status;
  free(w->data);
  free(w);
}

static void px_forward(uv_stream_t *to, const char *data, ssize_t n) {
  uv_write_t *w = malloc(sizeof *w);
  char *copy = malloc((size_t)n);
  memcpy(copy, data, (size_t)n);
  w->data = copy;
  uv_buf_t b = uv_buf_init(copy, (unsigned)n);
  if (uv_write(w, to, &b, 1, px_written) != 0) {
    free(copy);
    free(w);
  }
}

static void px_close(link_t *l) {
  if (l->closed)
    return;
  l->closed = true;
  uv_close((uv_handle_t *)&l->client, NULL);
  uv_close((uv_handle_t *)&l->upstream, NULL);
}

static void px_from_client(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
  if (n > 0)
    px_forward((uv_stream_t *)&((link_t *)s->data)->upstream, buf->base, n);
  else if (n < 0)
    px_close(s->data);
  free(buf->base);
}

static void px_from_db(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
  if (n > 0 && !px_drop)
    px_forward((uv_stream_t *)&((link_t *)s->data)->client, buf->base, n);
  else if (n < 0)
    px_close(s->data);
  free(buf->base);
}

static void px_connected(uv_connect_t *c, int status) {
  link_t *l = c->data;
  if (status != 0) {
    px_close(l);
    return;
  }
  uv_read_start((uv_stream_t *)&l->client, px_alloc, px_from_client);
  uv_read_start((uv_stream_t *)&l->upstream, px_alloc, px_from_db);
}

static void px_accept(uv_stream_t *server, int status) {
  if (status != 0 || px_n >= 16)
    return;
  link_t *l = calloc(1, sizeof *l);
  px_links[px_n++] = l;
  uv_tcp_init(server->loop, &l->client);
  uv_tcp_init(server->loop, &l->upstream);
  l->client.data = l->upstream.data = l->connect.data = l;
  uv_accept(server, (uv_stream_t *)&l->client);
  struct sockaddr_in to;
  uv_ip4_addr("127.0.0.1", px_target, &to);
  uv_tcp_connect(&l->connect, &l->upstream, (const struct sockaddr *)&to, px_connected);
}

static void px_signal(uv_signal_t *h, int sig) {
  (void)h;
  if (sig == SIGUSR1) {
    px_drop = true;
    return;
  }
  for (int i = 0; i < px_n; i++)
    px_close(px_links[i]);
  px_drop = false;
}

/* Starts the proxy to target; returns its pid and its port in *port. */
static pid_t px_spawn(int target, int *port) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  fflush(NULL);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid > 0) {
    close(fds[1]);
    ASSERT_EQ(read(fds[0], port, sizeof *port), (ssize_t)sizeof *port);
    close(fds[0]);
    return pid;
  }
  close(fds[0]);
  uv_loop_t loop;
  uv_loop_init(&loop);
  px_target = target;
  uv_tcp_t server;
  uv_tcp_init(&loop, &server);
  struct sockaddr_in any;
  uv_ip4_addr("127.0.0.1", 0, &any);
  uv_tcp_bind(&server, (const struct sockaddr *)&any, 0);
  uv_listen((uv_stream_t *)&server, 16, px_accept);
  struct sockaddr_in me;
  int len = sizeof me;
  uv_tcp_getsockname(&server, (struct sockaddr *)&me, &len);
  int p = ntohs(me.sin_port);
  uv_signal_t s1, s2;
  uv_signal_init(&loop, &s1);
  uv_signal_init(&loop, &s2);
  uv_signal_start(&s1, px_signal, SIGUSR1);
  uv_signal_start(&s2, px_signal, SIGUSR2);
  if (write(fds[1], &p, sizeof p) != (ssize_t)sizeof p)
    _exit(1);
  uv_run(&loop, UV_RUN_DEFAULT); /* Until the test kills it. */
  _exit(0);
}

static void nap_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static void on_guard(uv_timer_t *t) {
  (void)t; /* A tick: uv_run(UV_RUN_ONCE) returns, the condition is looked at again. */
}

static void async_done(void *arg, int rc) {
  int *out = arg;
  *out = rc;
}

/* Runs loop until *flag (or cond) or about 15 s have passed; a ref'd timer keeps it turning. */
static void run_until(uv_loop_t *loop, bool (*cond)(void *), void *arg) {
  uv_timer_t guard;
  uv_timer_init(loop, &guard);
  uv_timer_start(&guard, on_guard, 50, 50);
  for (int i = 0; i < 300 && !cond(arg); i++)
    uv_run(loop, UV_RUN_ONCE);
  uv_close((uv_handle_t *)&guard, NULL);
  uv_run(loop, UV_RUN_NOWAIT);
}

static bool rc_known(void *arg) {
  return *(int *)arg != 1;
}

static bool store_up(void *arg) {
  return srv_store_connected(arg);
}

TEST_IMPL(lost_answer_is_undone) {
  int port = 0;
  pid_t px = px_spawn(pg_port(), &port);
  char db[64], url[256], err[SRV_STORE_ERR_SIZE];
  fresh_db(db, sizeof db, url, sizeof url, port);
  srv_store *s = NULL;
  ASSERT_EQ(srv_store_open(url, NULL, &s, err), 0);
  int64_t id = ana_vs_computer(s, "RD", 1);
  srv_store_move m0 = {.ply = 0, .seat = 0, .house = 3, .clock_ms = -1, .at_ms = 1};
  ASSERT_EQ(srv_store_move_add(s, id, &m0), 0); /* Kalah 6x4: house 3 ends in the store. */
  ASSERT_EQ(srv_store_commit(s), 0);

  uv_loop_t loop;
  ASSERT_EQ(uv_loop_init(&loop), 0);
  ASSERT_EQ(srv_store_watch(s, &loop), 0);
  /* A batch of two moves whose COMMIT goes in, but whose answer never comes back. */
  srv_store_move m1 = {.ply = 1, .seat = 0, .house = 1, .clock_ms = -1, .at_ms = 2};
  srv_store_move m2 = {.ply = 2, .seat = 1, .house = 1, .clock_ms = -1, .at_ms = 3};
  ASSERT_EQ(srv_store_move_add(s, id, &m1), 0);
  ASSERT_EQ(srv_store_move_add(s, id, &m2), 0);
  ASSERT_EQ(kill(px, SIGUSR1), 0);
  nap_ms(200); /* The proxy's loop takes the signal. */
  int rc = 1;
  ASSERT_EQ(srv_store_commit_async(s, &loop, async_done, &rc), 0);
  ASSERT(srv_store_commit_busy(s));
  for (int i = 0; i < 100 && count(db, "SELECT count(*) FROM moves") != 3; i++) {
    uv_run(&loop, UV_RUN_NOWAIT); /* The batch goes out (the answer is dropped). */
    nap_ms(50);
  }
  ASSERT_EQ(count(db, "SELECT count(*) FROM moves"), 3); /* It went in. */
  ASSERT_EQ(kill(px, SIGUSR2), 0);                       /* The connection breaks. */
  run_until(&loop, rc_known, &rc);
  ASSERT(rc < 0); /* Its outcome unknown: reported lost, as the rooms must take it back. */
  size_t n = 0;
  const srv_store_op *lost = srv_store_failed(s, &n);
  ASSERT_EQ(n, 2);
  ASSERT_EQ(lost[0].ply, 1);
  ASSERT_EQ(lost[1].ply, 2);
  /* The store connects again by itself; the next batch (ply 1 played differently, as a room that
   * took the lost moves back may) starts by undoing the one in doubt, which its mark shows went
   * in. */
  run_until(&loop, store_up, s);
  ASSERT(srv_store_connected(s));
  srv_store_move again = {.ply = 1, .seat = 0, .house = 2, .clock_ms = -1, .at_ms = 4};
  ASSERT_EQ(srv_store_move_add(s, id, &again), 0);
  rc = 1;
  ASSERT_EQ(srv_store_commit_async(s, &loop, async_done, &rc), 0);
  run_until(&loop, rc_known, &rc);
  ASSERT_EQ(rc, 0);
  ASSERT_EQ(count(db, "SELECT count(*) FROM moves"), 2);
  ASSERT_EQ(count(db, "SELECT house FROM moves WHERE ply = 1"), 2);
  ASSERT_EQ(count(db, "SELECT count(*) FROM moves WHERE ply = 2"), 0);
  srv_store_game *back = NULL;
  ASSERT_EQ(srv_store_game_get(s, id, &back), 0);
  mc_game *replayed = NULL;
  ASSERT_EQ(srv_store_replay(back, false, &replayed, NULL), 0);
  mc_game_free(replayed);
  srv_store_game_free(back);
  srv_store_close(s);
  uv_run(&loop, UV_RUN_DEFAULT); /* The store's handles close. */
  ASSERT_EQ(uv_loop_close(&loop), 0);
  kill(px, SIGKILL);
  waitpid(px, NULL, 0);
  drop_db(db);
  return 0;
}
