/* Batches: many writes become durable with one commit; a rollback, a close without commit or a
 * failed write leaves nothing of the lost writes and reports them; a conflict costs only itself. */
#include "store_util.h"

#define GAMES 10
#define MOVES 1000

/* Starts GAMES games in rooms R0..R9 and plays MOVES moves interleaved across them (the shape of
 * a loop turn with many rooms), without committing. Fills ids and the live games. */
static void write_games(srv_store *s, int64_t ids[GAMES], mc_game *live[GAMES]) {
  srv_store_player a = mk_player("pa", "Ana"), b = mk_player("pb", "Bo");
  ASSERT_EQ(srv_store_player_put(s, &a), 0);
  ASSERT_EQ(srv_store_player_put(s, &b), 0);
  for (int i = 0; i < GAMES; i++) {
    char code[8];
    snprintf(code, sizeof code, "R%d", i);
    srv_store_game g = mk_game(code, MC_OWARE, mk_seat("pa", "Ana"), mk_seat("pb", "Bo"));
    srv_store_room r = mk_room(code, SRV_STORE_STATUS_PLAYING, &g);
    ASSERT_EQ(srv_store_room_put(s, &r), 0);
    ASSERT_EQ(srv_store_game_start(s, &g, &ids[i]), 0);
    live[i] = mc_game_new(&g.rules);
  }
  int played = 0;
  for (int64_t t = 0; played < MOVES && t < 100 * MOVES; t++) {
    int i = (int)(t % GAMES);
    int h = play_and_store(s, ids[i], live[i], t);
    ASSERT(h >= 0);
    if (h > 0)
      played++;
  }
}

static void free_live(mc_game *live[GAMES]) {
  for (int i = 0; i < GAMES; i++)
    mc_game_free(live[i]);
}

TEST_IMPL(one_commit) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  /* Nothing to commit is not a commit. */
  ASSERT_EQ(srv_store_commit(s), 0);
  int64_t ids[GAMES];
  mc_game *live[GAMES];
  write_games(s, ids, live);
  ASSERT(srv_store_pending(s));
  srv_store_stats st;
  srv_store_get_stats(s, &st);
  ASSERT_EQ(st.commits, 0);
  ASSERT_EQ(st.writes, 2 + 2 * GAMES + MOVES);
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT(!srv_store_pending(s));
  size_t n = 99;
  ASSERT(srv_store_failed(s, &n) == NULL);
  ASSERT_EQ(n, 0);
  srv_store_get_stats(s, &st);
  ASSERT_EQ(st.commits, 1);
  ASSERT_EQ(st.failed_commits, 0);
  ASSERT(st.commit_ns_total > 0 && st.commit_ns_max > 0);
  /* Ids are distinct and valid before the commit already. */
  for (int i = 1; i < GAMES; i++)
    ASSERT(ids[i] > ids[i - 1]);
  srv_store_close(s);

  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM moves"), MOVES);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM games"), GAMES);
  /* Each game reads back equal to the live one. */
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  for (int i = 0; i < GAMES; i++) {
    srv_store_game *g = NULL;
    mc_game *back = NULL;
    ASSERT_EQ(srv_store_game_get(s, ids[i], &g), 0);
    if (g == NULL)
      continue;
    ASSERT_EQ(g->n_moves, mc_game_ply(live[i]));
    ASSERT_EQ(srv_store_replay(g, false, &back, NULL), 0);
    ASSERT(back != NULL && mc_pos_same(mc_game_pos(back), mc_game_pos(live[i])));
    mc_game_free(back);
    srv_store_game_free(g);
  }
  srv_store_close(s);
  free_live(live);
  rm_tree(dir);
  return 0;
}

TEST_IMPL(rollback_leaves_nothing) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  /* Nothing to roll back. */
  srv_store_rollback(s);
  size_t none = 9;
  ASSERT(srv_store_failed(s, &none) == NULL && none == 0);
  int64_t ids[GAMES];
  mc_game *live[GAMES];
  write_games(s, ids, live);
  srv_store_rollback(s);
  ASSERT(!srv_store_pending(s));
  size_t n = 0;
  const srv_store_op *ops = srv_store_failed(s, &n);
  ASSERT_EQ(n, 2 + 2 * GAMES + MOVES);
  if (ops != NULL && n == 2 + 2 * GAMES + MOVES) {
    ASSERT_EQ(ops[0].kind, SRV_STORE_OP_PLAYER);
    ASSERT_STR_EQ(ops[0].key, "pa");
    ASSERT_EQ(ops[2].kind, SRV_STORE_OP_ROOM);
    ASSERT_STR_EQ(ops[2].key, "R0");
    ASSERT_EQ(ops[3].kind, SRV_STORE_OP_GAME_START);
    ASSERT_EQ(ops[3].game, ids[0]);
    ASSERT_EQ(ops[n - 1].kind, SRV_STORE_OP_MOVE);
  }
  /* The next commit starts afresh. */
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT(srv_store_failed(s, &n) == NULL);
  srv_store_game *g = NULL;
  ASSERT_EQ(srv_store_game_get(s, ids[0], &g), SRV_STORE_ENOTFOUND);
  ASSERT(g == NULL);
  free_live(live);

  /* Closing with a batch open is a rollback too: it was never acknowledged. */
  write_games(s, ids, live);
  srv_store_close(s);
  free_live(live);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM moves"), 0);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM games"), 0);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM players"), 0);
  rm_tree(dir);
  return 0;
}

TEST_IMPL(conflict_costs_only_itself) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  srv_store_game g = mk_game("ABCDEF", MC_KALAH, mk_seat("pa", "Ana"), mk_seat("pb", "Bo"));
  srv_store_room r = mk_room("ABCDEF", SRV_STORE_STATUS_PLAYING, &g);
  int64_t id = 0;
  ASSERT_EQ(srv_store_room_put(s, &r), 0);
  ASSERT_EQ(srv_store_game_start(s, &g, &id), 0);
  srv_store_move m = {0, 0, 3, -1, 1};
  ASSERT_EQ(srv_store_move_add(s, id, &m), 0);
  /* The same ply again (a retried move that slipped through) is refused alone: the moves wait
   * for the commit, which reports the refused ones lost. */
  m.house = 4;
  ASSERT_EQ(srv_store_move_add(s, id, &m), 0);
  ASSERT(srv_store_pending(s));
  /* A move of a game that does not exist breaks the foreign key. */
  m.ply = 1;
  ASSERT_EQ(srv_store_move_add(s, id + 100, &m), 0);
  /* Bad arguments never reach SQLite. */
  m.house = 0;
  ASSERT_EQ(srv_store_move_add(s, id, &m), SRV_STORE_EINVAL);
  srv_store_room bad = r;
  bad.status = (srv_store_status)7;
  ASSERT_EQ(srv_store_room_put(s, &bad), SRV_STORE_EINVAL);
  int score[2] = {0, 0};
  ASSERT_EQ(srv_store_game_finish(s, id, MC_DRAW, MC_REASON_NONE, score, 5), SRV_STORE_EINVAL);
  ASSERT_EQ(srv_store_commit(s), SRV_STORE_EIO);
  ASSERT(strstr(srv_store_last_error(s), "cannot store a move") != NULL);
  size_t n = 0;
  const srv_store_op *ops = srv_store_failed(s, &n);
  ASSERT_EQ(n, 2);
  ASSERT(ops[0].kind == SRV_STORE_OP_MOVE && ops[0].game == id && ops[0].ply == 0);
  ASSERT(ops[1].kind == SRV_STORE_OP_MOVE && ops[1].game == id + 100 && ops[1].ply == 1);
  srv_store_close(s);
  /* The first move and the room's rows are stored, as if the refused ones had not been. */
  ASSERT_EQ(raw_int(dir, "SELECT house FROM moves WHERE ply = 0"), 3);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM moves"), 1);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM games"), 1);
  rm_tree(dir);
  return 0;
}

/* Moves go in by many rows a statement: a refused one among 40 (its ply stored already, in the
 * middle of a statement of 32) costs only itself, and the store keeps the order of the writes (a
 * takeback's delete after the moves it deletes, a read that sees the batch's moves). */
TEST_IMPL(conflict_in_many_rows) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_NORMAL, &s, err), 0);
  srv_store_game g = mk_game("MANY01", MC_KALAH, mk_seat("pa", "Ana"), mk_seat("pb", "Bo"));
  srv_store_room r = mk_room("MANY01", SRV_STORE_STATUS_PLAYING, &g);
  int64_t id = 0;
  ASSERT_EQ(srv_store_room_put(s, &r), 0);
  ASSERT_EQ(srv_store_game_start(s, &g, &id), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  /* Plies 0..38 and ply 20 a second time, 40 moves: 32 rows, then 8. The houses are the ply
   * modulo 6, plus one; the second ply 20 has house 6 where the first has 3. */
  for (int i = 0; i < 40; i++) {
    srv_store_move m = {i < 21 ? i : i - 1, i % 2, (i < 21 ? i : i - 1) % 6 + 1, -1, 1000 + i};
    if (i == 21)
      m.house = 6;
    ASSERT_EQ(srv_store_move_add(s, id, &m), 0);
  }
  /* A read of the batch sees its moves. */
  srv_store_game *back = NULL;
  ASSERT_EQ(srv_store_game_get(s, id, &back), 0);
  ASSERT(back != NULL && back->n_moves == 39);
  srv_store_game_free(back);
  /* Later moves and a takeback of plies 37 and 38: the delete runs after their inserts. */
  for (int ply = 39; ply < 41; ply++) {
    srv_store_move m = {ply, ply % 2, ply % 6 + 1, 500, 2000};
    ASSERT_EQ(srv_store_move_add(s, id, &m), 0);
  }
  ASSERT_EQ(srv_store_moves_truncate(s, id, 37), 0);
  /* Ply 37 again, and its clock set afterwards: the update runs after its insert. */
  srv_store_move again = {37, 1, 37 % 6 + 1, -1, 3000};
  ASSERT_EQ(srv_store_move_add(s, id, &again), 0);
  ASSERT_EQ(srv_store_move_clock(s, id, 37, 777), 0);
  ASSERT_EQ(srv_store_commit(s), SRV_STORE_EIO);
  size_t n = 0;
  const srv_store_op *ops = srv_store_failed(s, &n);
  ASSERT_EQ(n, 1);
  ASSERT(ops[0].kind == SRV_STORE_OP_MOVE && ops[0].game == id && ops[0].ply == 20);
  srv_store_close(s);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM moves"), 38);
  ASSERT_EQ(raw_int(dir, "SELECT house FROM moves WHERE ply = 20"), 3);
  /* Plies 0..35 are six rounds of houses 1..6 (21 each), ply 36 is house 1, ply 37 house 2. */
  ASSERT_EQ(raw_int(dir, "SELECT sum(house) FROM moves"), 6 * 21 + 1 + 2);
  ASSERT_EQ(raw_int(dir, "SELECT max(ply) FROM moves"), 37);
  ASSERT_EQ(raw_int(dir, "SELECT clock_ms FROM moves WHERE ply = 37"), 777);
  rm_tree(dir);
  return 0;
}

/* A full disk in the middle of a batch: the write that hit it fails, the batch before it is rolled
 * back and reported by the commit, the store keeps serving, and earlier commits are intact. */
TEST_IMPL(full_disk) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  srv_store_config cfg;
  srv_store_config_init(&cfg);
  cfg.max_bytes = 128 * 1024; /* The empty schema is about 80 KiB. */
  srv_store *s = NULL;
  ASSERT_EQ(srv_store_open(dir, &cfg, &s, err), 0);
  srv_store_game g = mk_game("ABCDEF", MC_KALAH, mk_seat("pa", "Ana"), mk_seat("pb", "Bo"));
  g.rules.houses = 9;
  g.rules.seeds = 12;
  srv_store_room r = mk_room("ABCDEF", SRV_STORE_STATUS_PLAYING, &g);
  int64_t id = 0;
  ASSERT_EQ(srv_store_room_put(s, &r), 0);
  ASSERT_EQ(srv_store_game_start(s, &g, &id), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  /* Rows made big by long room codes until the quota is hit. */
  int rc = 0, written = 0;
  char settings[2048];
  memset(settings, 'x', sizeof settings - 1);
  settings[sizeof settings - 1] = '\0';
  for (int i = 0; i < 1000 && rc == 0; i++) {
    srv_store_room big = mk_room("", SRV_STORE_STATUS_WAITING, NULL);
    snprintf(big.code, sizeof big.code, "B%d", i);
    big.settings = settings;
    rc = srv_store_room_put(s, &big);
    if (rc == 0)
      written++;
  }
  ASSERT_EQ(rc, SRV_STORE_EFULL);
  ASSERT(written > 0);
  ASSERT(strstr(srv_store_last_error(s), "full") != NULL);
  ASSERT_EQ(srv_store_commit(s), SRV_STORE_EIO);
  size_t n = 0;
  const srv_store_op *ops = srv_store_failed(s, &n);
  ASSERT_EQ(n, written);
  ASSERT(ops != NULL && ops[0].kind == SRV_STORE_OP_ROOM && strcmp(ops[0].key, "B0") == 0);
  srv_store_stats st;
  srv_store_get_stats(s, &st);
  ASSERT_EQ(st.failed_commits, 1);
  /* Still serving: a small write commits, and the list of failures is gone. */
  srv_store_move m = {0, 0, 1, -1, 1};
  ASSERT_EQ(srv_store_move_add(s, id, &m), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT(srv_store_failed(s, &n) == NULL);
  srv_store_game *back = NULL;
  ASSERT_EQ(srv_store_game_get(s, id, &back), 0);
  ASSERT(back != NULL && back->n_moves == 1);
  srv_store_game_free(back);
  srv_store_close(s);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM rooms"), 1);
  rm_tree(dir);
  return 0;
}

/* The moves wait for the commit: a full disk there loses the batch, every waiting move reported,
 * nothing of it stored, and the store keeps serving. */
TEST_IMPL(moves_lost_at_commit) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  srv_store_config cfg;
  srv_store_config_init(&cfg);
  cfg.max_bytes = 128 * 1024; /* The empty schema is about 80 KiB; 3,000 moves do not fit. */
  srv_store *s = NULL;
  ASSERT_EQ(srv_store_open(dir, &cfg, &s, err), 0);
  srv_store_game g = mk_game("FULL01", MC_KALAH, mk_seat("pa", "Ana"), mk_seat("pb", "Bo"));
  srv_store_room r = mk_room("FULL01", SRV_STORE_STATUS_PLAYING, &g);
  int64_t id = 0;
  ASSERT_EQ(srv_store_room_put(s, &r), 0);
  ASSERT_EQ(srv_store_game_start(s, &g, &id), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  for (int ply = 0; ply < 3000; ply++) {
    srv_store_move m = {ply, ply % 2, ply % 6 + 1, -1, ply};
    ASSERT_EQ(srv_store_move_add(s, id, &m), 0);
  }
  ASSERT_EQ(srv_store_commit(s), SRV_STORE_EFULL);
  ASSERT(strstr(srv_store_last_error(s), "cannot store a move") != NULL);
  size_t n = 0;
  const srv_store_op *ops = srv_store_failed(s, &n);
  ASSERT_EQ(n, 3000);
  int plies = 0;
  for (size_t i = 0; i < n; i++)
    plies += ops[i].kind == SRV_STORE_OP_MOVE && ops[i].game == id;
  ASSERT_EQ(plies, 3000);
  ASSERT(!srv_store_pending(s));
  /* Still serving: one move commits. */
  srv_store_move m = {0, 0, 3, -1, 1};
  ASSERT_EQ(srv_store_move_add(s, id, &m), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT(srv_store_failed(s, &n) == NULL);
  srv_store_close(s);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM moves"), 1);
  rm_tree(dir);
  return 0;
}

/* A reader sees what is committed only: not the open batch, which it never commits early, and it
 * cannot write. */
TEST_IMPL(reader_sees_committed_only) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  srv_store *s = NULL, *r = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  ASSERT_EQ(srv_store_open_reader(s, &r), 0);
  srv_store_game g = mk_game("READ01", MC_KALAH, mk_seat("pa", "Ana"), mk_seat("pb", "Bo"));
  srv_store_room room = mk_room("READ01", SRV_STORE_STATUS_PLAYING, &g);
  int64_t id = 0;
  ASSERT_EQ(srv_store_room_put(s, &room), 0);
  ASSERT_EQ(srv_store_game_start(s, &g, &id), 0);
  srv_store_game *back = NULL;
  ASSERT_EQ(srv_store_game_get(r, id, &back), SRV_STORE_ENOTFOUND);
  ASSERT(srv_store_pending(s));
  ASSERT_EQ(srv_store_commit(s), 0);
  ASSERT_EQ(srv_store_game_get(r, id, &back), 0);
  ASSERT_NOT_NULL(back);
  ASSERT_STR_EQ(back->room, "READ01");
  srv_store_game_free(back);
  ASSERT_EQ(srv_store_room_closed(r, "READ01"), SRV_STORE_EREADONLY);
  ASSERT(!srv_store_pending(r));
  srv_store_close(r);
  srv_store_close(s);
  rm_tree(dir);
  return 0;
}
