/* Recovery: what a restart reads back (open rooms, their unfinished games with every move in
 * order, the seated players), replay through the engine, clocks, and tampered rows detected. */
#include "store_util.h"

typedef struct fixture {
  char dir[256];
  int64_t playing, finished, closed;
  mc_game *live; /* The game in progress, as the server had it. */
} fixture;

/* Writes, over several committed loop turns: a room playing a clocked Kalah game, a room whose
 * game finished, a room that closed mid-game, and a room waiting for its second player. */
static void make_fixture(fixture *fx) {
  char err[SRV_STORE_ERR_SIZE];
  tmp_dir(fx->dir, sizeof fx->dir);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(fx->dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  put_player(s, "pa", "Ana", 1);
  put_player(s, "pb", "Bo", 2);
  put_player(s, "pc", "Cy", 3);
  put_player(s, "pz", "Zed", 4);
  ASSERT_EQ(srv_store_commit(s), 0);

  /* PLAYING: clocked, moves over many turns. */
  srv_store_game g = mk_game("PLAY22", MC_KALAH, mk_seat("pa", "Ana"), mk_seat("pb", "Bo"));
  g.clocked = true;
  g.initial_ms = 60000;
  g.increment_ms = 1000;
  srv_store_room r = mk_room("PLAY22", SRV_STORE_STATUS_PLAYING, &g);
  ASSERT_EQ(srv_store_room_put(s, &r), 0);
  ASSERT_EQ(srv_store_game_start(s, &g, &fx->playing), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  fx->live = mc_game_new(&g.rules);
  int64_t left[2] = {60000, 60000};
  for (int i = 0; i < 12; i++) {
    uint8_t legal[MC_MAX_HOUSES];
    int n = mc_game_legal(fx->live, legal);
    if (n <= 0)
      break;
    int seat = mc_game_pos(fx->live)->turn;
    left[seat] -= 700 + 100 * i;
    left[seat] += 1000;
    srv_store_move m = {(int)mc_game_ply(fx->live), seat, legal[n - 1 - i % n], left[seat],
                        g.started_ms + 1000 * (i + 1)};
    ASSERT_EQ(mc_game_play(fx->live, m.house, NULL), 0);
    ASSERT_EQ(srv_store_move_add(s, fx->playing, &m), 0);
    if (i % 3 == 2)
      ASSERT_EQ(srv_store_commit(s), 0);
  }
  ASSERT_EQ(srv_store_commit(s), 0);

  /* FINISHED: a resignation. The room stays open (for a rematch) but has nothing to resume. */
  srv_store_game f = mk_game("DONE33", MC_OWARE, mk_seat("pc", "Cy"), mk_seat("", "Computer"));
  f.seats[1].computer = 4;
  srv_store_room fr = mk_room("DONE33", SRV_STORE_STATUS_PLAYING, &f);
  ASSERT_EQ(srv_store_room_put(s, &fr), 0);
  ASSERT_EQ(srv_store_game_start(s, &f, &fx->finished), 0);
  srv_store_move m0 = {0, 0, 6, -1, f.started_ms + 500};
  ASSERT_EQ(srv_store_move_add(s, fx->finished, &m0), 0);
  int score[2] = {0, 0};
  ASSERT_EQ(srv_store_game_finish(s, fx->finished, MC_WIN_NORTH, MC_REASON_RESIGNATION, score,
                                  f.started_ms + 9000),
            0);
  fr.status = SRV_STORE_STATUS_FINISHED;
  ASSERT_EQ(srv_store_room_put(s, &fr), 0);

  /* CLOSED mid-game: not recovered. */
  srv_store_game c = mk_game("GONE44", MC_KALAH, mk_seat("pz", "Zed"), mk_seat("pz", "Zed"));
  srv_store_room cr = mk_room("GONE44", SRV_STORE_STATUS_PLAYING, &c);
  ASSERT_EQ(srv_store_room_put(s, &cr), 0);
  ASSERT_EQ(srv_store_game_start(s, &c, &fx->closed), 0);
  ASSERT_EQ(srv_store_room_closed(s, "GONE44"), 0);

  /* WAITING: one seat taken, no game yet. */
  srv_store_room w = mk_room("WAIT55", SRV_STORE_STATUS_WAITING, NULL);
  w.seats[0] = mk_seat("pc", "Cy");
  ASSERT_EQ(srv_store_room_put(s, &w), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  /* A move written but never committed: the server crashed before acknowledging it. */
  srv_store_move lost = {(int)mc_game_ply(fx->live), mc_game_pos(fx->live)->turn, 1, 1, 1};
  ASSERT_EQ(srv_store_move_add(s, fx->playing, &lost), 0);
  srv_store_close(s);
}

static const srv_store_room *find_room(const srv_store_recovery *r, const char *code) {
  for (size_t i = 0; i < r->n_rooms; i++)
    if (strcmp(r->rooms[i].code, code) == 0)
      return &r->rooms[i];
  return NULL;
}

TEST_IMPL(recover_and_replay) {
  fixture fx;
  make_fixture(&fx);
  char err[SRV_STORE_ERR_SIZE];
  srv_store *s = NULL;
  ASSERT_EQ(open_store(fx.dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  srv_store_recovery *r = NULL;
  ASSERT_EQ(srv_store_recover(s, &r), 0);
  if (r == NULL) {
    srv_store_close(s);
    return 0;
  }
  ASSERT_EQ(r->n_rooms, 3);
  const srv_store_room *play = find_room(r, "PLAY22"), *done = find_room(r, "DONE33"),
                       *wait = find_room(r, "WAIT55");
  ASSERT(play != NULL && done != NULL && wait != NULL && find_room(r, "GONE44") == NULL);
  if (play && done && wait) {
    ASSERT_EQ(play->status, SRV_STORE_STATUS_PLAYING);
    ASSERT_EQ(play->game, fx.playing);
    ASSERT_STR_EQ(play->settings, "{\"visibility\":\"public\"}");
    ASSERT_STR_EQ(play->seats[1].player, "pb");
    ASSERT_EQ(done->status, SRV_STORE_STATUS_FINISHED);
    ASSERT_EQ(done->game, fx.finished);
    ASSERT_EQ(done->seats[1].computer, 4);
    ASSERT_STR_EQ(done->seats[1].player, "");
    ASSERT_EQ(wait->status, SRV_STORE_STATUS_WAITING);
    ASSERT_EQ(wait->game, 0);
    ASSERT_STR_EQ(wait->seats[0].name, "Cy");
    ASSERT_STR_EQ(wait->seats[1].name, "");
  }
  /* Only the game in progress of an open room is resumed. */
  ASSERT_EQ(r->n_games, 1);
  /* The players seated in open rooms (their sessions are read when they reconnect). */
  ASSERT_EQ(r->n_players, 3);
  if (r->n_players == 3) {
    ASSERT_STR_EQ(r->players[0].id, "pa");
    ASSERT_STR_EQ(r->players[0].name, "Ana");
    ASSERT_STR_EQ(r->players[2].name, "Cy");
  }
  if (r->n_games == 1) {
    const srv_store_game *g = &r->games[0];
    ASSERT_EQ(g->id, fx.playing);
    ASSERT_STR_EQ(g->room, "PLAY22");
    ASSERT(g->clocked && g->initial_ms == 60000 && g->increment_ms == 1000);
    ASSERT_EQ(g->ended_ms, 0);
    /* Every committed move in order, the uncommitted one absent. */
    ASSERT_EQ(g->n_moves, mc_game_ply(fx.live));
    for (size_t i = 0; i < g->n_moves; i++)
      ASSERT_EQ(g->moves[i].ply, i);
    mc_game *back = NULL;
    srv_store_bad_row bad;
    ASSERT_EQ(srv_store_replay(g, true, &back, &bad), 0);
    ASSERT(back != NULL);
    if (back) {
      ASSERT(mc_pos_same(mc_game_pos(back), mc_game_pos(fx.live)));
      ASSERT_EQ(mc_game_ply(back), mc_game_ply(fx.live));
      ASSERT(!mc_game_over(back, NULL));
    }
    mc_game_free(back);
    /* Clocks: each side's time after its own last move; nothing charged for the downtime. */
    int64_t left[2] = {0, 0};
    ASSERT_EQ(srv_store_clocks(g, left), 0);
    int64_t want[2] = {60000, 60000};
    for (size_t i = 0; i < g->n_moves; i++)
      want[g->moves[i].seat] = g->moves[i].clock_ms;
    ASSERT_EQ(left[0], want[0]);
    ASSERT_EQ(left[1], want[1]);
    ASSERT(left[0] != 60000 && left[1] != 60000);
  }
  /* Reconnection by token. */
  srv_store_player p;
  uint8_t hash[32];
  memset(hash, 2, sizeof hash);
  ASSERT_EQ(srv_store_player_by_token(s, hash, &p), 0);
  ASSERT_STR_EQ(p.id, "pb");
  memset(hash, 9, sizeof hash);
  ASSERT_EQ(srv_store_player_by_token(s, hash, &p), SRV_STORE_ENOTFOUND);
  srv_store_recovery_free(r);

  /* The finished game replays with its outside result applied. */
  srv_store_game *f = NULL;
  ASSERT_EQ(srv_store_game_get(s, fx.finished, &f), 0);
  if (f) {
    mc_game *back = NULL;
    mc_result res;
    ASSERT_EQ(srv_store_replay(f, true, &back, NULL), 0);
    ASSERT(back != NULL && mc_game_over(back, &res));
    if (back) {
      ASSERT_EQ(res.reason, MC_REASON_RESIGNATION);
      ASSERT_EQ(res.winner, MC_WIN_NORTH);
    }
    mc_game_free(back);
    int64_t left[2];
    ASSERT_EQ(srv_store_clocks(f, left), SRV_STORE_EINVAL);
  }
  srv_store_game_free(f);
  srv_store_close(s);
  mc_game_free(fx.live);
  rm_tree(fx.dir);
  return 0;
}

/* Tampers with the stored game in progress with sql, then checks that recovery still reads it and
 * that replay refuses the first bad row: its index, and the engine's code (0 for a mismatch). */
static void check_tampered(const char *sql, size_t index, int engine_err, const char *words) {
  fixture fx;
  make_fixture(&fx);
  raw_exec(fx.dir, sql);
  char err[SRV_STORE_ERR_SIZE];
  srv_store *s = NULL;
  ASSERT_EQ(open_store(fx.dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  srv_store_recovery *r = NULL;
  ASSERT_EQ(srv_store_recover(s, &r), 0);
  ASSERT(r != NULL && r->n_games == 1);
  if (r != NULL && r->n_games == 1) {
    mc_game *back = (mc_game *)1;
    srv_store_bad_row bad;
    memset(&bad, 0, sizeof bad);
    ASSERT_EQ(srv_store_replay(&r->games[0], true, &back, &bad), SRV_STORE_EBADROW);
    ASSERT(back == NULL);
    ASSERT_EQ(bad.index, index);
    ASSERT_EQ(bad.err, engine_err);
    ASSERT(strstr(bad.message, words) != NULL);
    if (strstr(bad.message, words) == NULL)
      fprintf(stderr, "  message: %s\n", bad.message);
    /* The recovery policy: resume from the valid moves before the bad row, dropping the rest. */
    srv_store_game prefix = r->games[0];
    prefix.n_moves = bad.index;
    ASSERT_EQ(srv_store_replay(&prefix, true, &back, NULL), 0);
    ASSERT(back != NULL && mc_game_ply(back) == index);
    mc_game_free(back);
    ASSERT_EQ(srv_store_moves_truncate(s, prefix.id, (int)bad.index), 0);
    ASSERT_EQ(srv_store_commit(s), 0);
    srv_store_recovery_free(r);
    r = NULL;
    ASSERT_EQ(srv_store_recover(s, &r), 0);
    ASSERT(r != NULL && r->n_games == 1 && r->games[0].n_moves == index);
    if (r != NULL && r->n_games == 1) {
      ASSERT_EQ(srv_store_replay(&r->games[0], true, &back, NULL), 0);
      mc_game_free(back);
    }
  }
  srv_store_recovery_free(r);
  srv_store_close(s);
  mc_game_free(fx.live);
  rm_tree(fx.dir);
}

/* A cluster's take-over reads one room: PLAY22 with its game of 12 committed moves (the 13th was
 * never committed) and its two players; WAIT55 without a game; a closed or unknown room reads as
 * none. */
TEST_IMPL(recover_one_room) {
  fixture fx;
  make_fixture(&fx);
  char err[SRV_STORE_ERR_SIZE];
  srv_store *s = NULL;
  ASSERT_EQ(open_store(fx.dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  srv_store_recovery *r = NULL;
  ASSERT_EQ(srv_store_recover_room(s, "PLAY22", &r), 0);
  ASSERT(r != NULL);
  if (r != NULL) {
    ASSERT_EQ(r->n_rooms, 1);
    ASSERT_STR_EQ(r->rooms[0].code, "PLAY22");
    ASSERT_EQ(r->rooms[0].game, fx.playing);
    ASSERT_EQ(r->n_games, 1);
    ASSERT_EQ(r->games[0].id, fx.playing);
    ASSERT_EQ(r->games[0].n_moves, 12);
    ASSERT_EQ(r->n_players, 2);
    ASSERT_STR_EQ(r->players[0].id, "pa");
    ASSERT_STR_EQ(r->players[1].id, "pb");
  }
  srv_store_recovery_free(r);
  r = NULL;
  ASSERT_EQ(srv_store_recover_room(s, "WAIT55", &r), 0);
  ASSERT(r != NULL && r->n_rooms == 1 && r->n_games == 0 && r->n_players == 1);
  srv_store_recovery_free(r);
  const char *none[] = {"GONE44", "NOPE99"};
  for (int i = 0; i < 2; i++) {
    r = NULL;
    ASSERT_EQ(srv_store_recover_room(s, none[i], &r), 0);
    ASSERT(r != NULL && r->n_rooms == 0 && r->n_games == 0 && r->n_players == 0);
    srv_store_recovery_free(r);
  }
  ASSERT_EQ(srv_store_recover_room(s, NULL, &r), SRV_STORE_EINVAL);
  srv_store_close(s);
  rm_tree(fx.dir);
  mc_game_free(fx.live);
  return 0;
}

TEST_IMPL(tampered_rows) {
  /* Ply 4 made to play house 9 on a 6-house board. */
  check_tampered("UPDATE moves SET house = 9 WHERE ply = 4 AND game = (SELECT game FROM rooms "
                 "WHERE code = 'PLAY22')",
                 4, MC_EINVAL, "house 9");
  /* The first move made to play South's house 3 twice: the second time it is empty. */
  check_tampered("UPDATE moves SET house = 3 WHERE ply IN (0, 1) AND game = (SELECT game FROM "
                 "rooms WHERE code = 'PLAY22'); UPDATE moves SET seat = 0 WHERE ply = 1",
                 1, MC_EILLEGAL, "house 3: illegal");
  /* A move credited to the wrong seat. */
  check_tampered("UPDATE moves SET seat = 1 - seat WHERE ply = 2", 2, 0, "was to move");
  /* A missing row: the plies no longer follow. */
  check_tampered("DELETE FROM moves WHERE ply = 5", 5, 0, "expected ply 5");
  return 0;
}
