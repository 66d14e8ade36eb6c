/* The archive: JSON and text records of a hand-made game, escaping, games in progress, rows that
 * do not replay, and a player's recent games read from a real database. */
#include "store_util.h"

#include <jansson.h>

#include "mc_text.h"
#include "srv_api.h"
#include "srv_archive.h"
#include "srv_gameid.h"

/* Kalah 2x1 worked by hand: South plays 2 (into the store: again), then 1 (the last seed lands in
 * the empty house 2 facing North's house 1: captures 1 + 1). South's side is empty, North sweeps
 * its last seed: South wins 3-1, no_seeds. */
static srv_store_game hand_game(srv_store_move moves[2]) {
  srv_store_game g = mk_game("K7QX2M", MC_KALAH, mk_seat("p1", "Ana"), mk_seat("p2", "Bo"));
  g.id = 12;
  g.rules.houses = 2;
  g.rules.seeds = 1;
  g.clocked = true;
  g.initial_ms = 300000;
  g.increment_ms = 2000;
  g.started_ms = 1795910400000LL; /* 2026-11-29 00:00:00 UTC */
  g.ended_ms = 1795910460000LL;
  g.winner = MC_WIN_SOUTH;
  g.reason = MC_REASON_NO_SEEDS;
  g.score[0] = 3;
  g.score[1] = 1;
  moves[0] = (srv_store_move){0, 0, 2, 301000, 1795910410000LL};
  moves[1] = (srv_store_move){1, 0, 1, 302000, 1795910420000LL};
  g.n_moves = 2;
  g.moves = moves;
  return g;
}

static void check_json(json_t *j, const char *expected) {
  char *text = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
  ASSERT_STR_EQ(text, expected);
  free(text);
}

TEST_IMPL(game_json) {
  srv_store_move moves[2];
  srv_store_game g = hand_game(moves);
  json_t *j = srv_archive_game_json(&g, NULL);
  ASSERT(j != NULL);
  /* Game 12 under its public id (srv_gameid.h, tested in test_gameid.c), and no room code: the
   * archive is public, a private room's code is not (security probe, finding 5). */
  char expected[2048], id[SRV_GAMEID_LEN + 1];
  srv_gameid_format(12, id);
  ASSERT_EQ(srv_gameid_parse(json_string_value(json_object_get(j, "id")), SRV_GAMEID_LEN), 12);
  snprintf(expected, sizeof expected,
           "{\"clock\":{\"increment_ms\":2000,\"initial_ms\":300000},"
           "\"ended\":1795910460000,\"game\":\"kalah\",\"game_no\":1,\"houses\":2,\"id\":\"%s\","
           "\"moves\":[{\"at\":1795910410000,\"clock_ms\":301000,\"house\":2,\"ply\":0,"
           "\"seat\":\"south\"},{\"at\":1795910420000,\"clock_ms\":302000,\"house\":1,"
           "\"ply\":1,\"seat\":\"south\"}],"
           "\"options\":{\"empty_capture\":false},"
           "\"players\":{\"north\":{\"computer\":false,\"id\":\"p2\",\"level\":null,"
           "\"name\":\"Bo\"},\"south\":{\"computer\":false,\"id\":\"p1\",\"level\":null,"
           "\"name\":\"Ana\"}},"
           "\"ply\":2,\"rated\":false,\"reason\":\"no_seeds\",\"record\":\"kalah 2x1\\n2 1\\n\","
           "\"result\":\"south\",\"score\":[3,1],\"seeds\":1,"
           "\"started\":1795910400000}",
           id);
  check_json(j, expected);
  json_decref(j);

  /* In progress, no clock, the computer in the north seat, Oware options. */
  g.ended_ms = 0;
  g.clocked = false;
  g.n_moves = 0;
  g.rules.kind = MC_OWARE;
  g.rules.grand_slam = MC_GS_FORBIDDEN;
  g.seats[1] = mk_seat("", "Computer");
  g.seats[1].computer = 3;
  j = srv_archive_game_json(&g, NULL);
  ASSERT(j != NULL);
  if (j) {
    check_json(json_object_get(j, "options"), "{\"grand_slam\":\"forbidden\"}");
    check_json(json_object_get(json_object_get(j, "players"), "north"),
               "{\"computer\":true,\"id\":null,\"level\":3,\"name\":\"Computer\"}");
    ASSERT(json_is_null(json_object_get(j, "result")));
    ASSERT(json_is_null(json_object_get(j, "score")));
    ASSERT(json_is_null(json_object_get(j, "ended")));
    ASSERT(json_is_null(json_object_get(j, "clock")));
    ASSERT_STR_EQ(json_string_value(json_object_get(j, "record")),
                  "oware 2x1 grand_slam=forbidden\n\n");
  }
  json_decref(j);
  return 0;
}

TEST_IMPL(game_text) {
  srv_store_move moves[2];
  srv_store_game g = hand_game(moves);
  char *text = NULL;
  ASSERT_EQ(srv_archive_game_text(&g, &text, NULL), 0);
  /* The public id and no room code (the same as the JSON: see game_json). */
  char expected[1024], id[SRV_GAMEID_LEN + 1];
  srv_gameid_format(12, id);
  snprintf(expected, sizeof expected,
           "[Event \"Mancala Online\"]\n"
           "[Site \"?\"]\n"
           "[Id \"%s\"]\n"
           "[Date \"2026.11.29\"]\n"
           "[Game \"kalah\"]\n"
           "[Board \"2x1\"]\n"
           "[Options \"-\"]\n"
           "[South \"Ana\"]\n"
           "[North \"Bo\"]\n"
           "[TimeControl \"300+2\"]\n"
           "[Result \"south\"]\n"
           "[Reason \"no_seeds\"]\n"
           "[Score \"3-1\"]\n"
           "[Moves \"S2 S1\"]\n"
           "\n"
           "kalah 2x1\n"
           "2 1\n",
           id);
  ASSERT_STR_EQ(text, expected);
  /* The body is the engine's record: it parses back to the same game. */
  const char *body = text ? strstr(text, "\n\n") : NULL;
  ASSERT(body != NULL);
  if (body) {
    mc_game *back = NULL;
    mc_result res;
    ASSERT_EQ(mc_record_parse(body + 2, &back, NULL), 0);
    ASSERT(back != NULL && mc_game_over(back, &res) && res.winner == MC_WIN_SOUTH &&
           res.score[0] == 3 && res.score[1] == 1);
    mc_game_free(back);
  }
  free(text);

  /* Quotes and backslashes in names are escaped; options and unfinished games. */
  snprintf(g.seats[0].name, sizeof g.seats[0].name, "A\"na\\");
  g.seats[1] = mk_seat("", "");
  g.seats[1].computer = 2;
  g.rules.empty_capture = true;
  g.ended_ms = 0;
  g.clocked = false;
  ASSERT_EQ(srv_archive_game_text(&g, &text, NULL), 0);
  ASSERT(text && strstr(text, "[South \"A\\\"na\\\\\"]\n") != NULL);
  ASSERT(text && strstr(text, "[North \"Computer (level 2)\"]\n") != NULL);
  ASSERT(text && strstr(text, "[Options \"empty_capture\"]\n") != NULL);
  ASSERT(text && strstr(text, "[TimeControl \"-\"]\n") != NULL);
  ASSERT(text && strstr(text, "[Result \"*\"]\n[Reason \"*\"]\n[Score \"*\"]\n") != NULL);
  ASSERT(text && strstr(text, "\n\nkalah 2x1 empty_capture\n2 1\n") != NULL);
  free(text);
  return 0;
}

TEST_IMPL(bad_rows) {
  srv_store_move moves[2];
  srv_store_game g = hand_game(moves);
  moves[1].house = 2; /* Empty after the first move. */
  srv_store_bad_row bad;
  char *text = (char *)1;
  ASSERT_EQ(srv_archive_game_text(&g, &text, &bad), SRV_STORE_EBADROW);
  ASSERT(text == NULL);
  ASSERT_EQ(bad.index, 1);
  ASSERT_EQ(bad.err, MC_EILLEGAL);
  ASSERT(srv_archive_game_json(&g, &bad) == NULL);
  ASSERT_EQ(bad.index, 1);
  /* A stored result that the board contradicts. */
  moves[1].house = 1;
  g.winner = MC_WIN_NORTH;
  mc_game *back = (mc_game *)1;
  ASSERT_EQ(srv_store_replay(&g, true, &back, &bad), SRV_STORE_EBADROW);
  ASSERT(back == NULL);
  ASSERT_EQ(bad.index, 2);
  ASSERT(strstr(bad.message, "differs from the result on the board") != NULL);
  /* Without checking the result it replays. */
  ASSERT_EQ(srv_store_replay(&g, false, &back, &bad), 0);
  mc_game_free(back);
  /* A board result for a game the board has not ended. */
  g.n_moves = 1;
  g.reason = MC_REASON_NO_SEEDS;
  ASSERT_EQ(srv_store_replay(&g, true, &back, &bad), SRV_STORE_EBADROW);
  ASSERT(strstr(bad.message, "cannot end a game in progress") != NULL);
  ASSERT_EQ(srv_archive_game_text(NULL, &text, NULL), SRV_STORE_EINVAL);
  ASSERT(srv_archive_game_json(NULL, NULL) == NULL);
  return 0;
}

/* Three finished games of Ana (two against Bo, one local game where she held both seats), one in
 * progress, and one of other players, in a real database. */
TEST_IMPL(player_games) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  struct {
    const char *south, *north;
    bool finish;
  } plan[] = {{"pa", "pb", true},
              {"pb", "pa", true},
              {"pc", "pd", true},
              {"pa", "pa", true},
              {"pa", "pb", false}};
  int64_t ids[5];
  for (int i = 0; i < 5; i++) {
    srv_store_game g = mk_game("ROOM01", MC_KALAH, mk_seat(plan[i].south, plan[i].south),
                               mk_seat(plan[i].north, plan[i].north));
    g.game_no = i + 1;
    g.started_ms += i * 60000;
    ASSERT_EQ(srv_store_game_start(s, &g, &ids[i]), 0);
    mc_game *live = mc_game_new(&g.rules);
    for (int k = 0; k <= i; k++)
      ASSERT(play_and_store(s, ids[i], live, k) > 0);
    mc_game_free(live);
    int score[2] = {i, 2};
    if (plan[i].finish)
      ASSERT_EQ(srv_store_game_finish(s, ids[i], MC_WIN_NORTH, MC_REASON_TIMEOUT, score,
                                      g.started_ms + 30000),
                0);
  }
  ASSERT_EQ(srv_store_commit(s), 0);
  srv_store_game_list *list = NULL;
  ASSERT_EQ(srv_store_player_games(s, "pa", 2, &list), 0);
  json_t *j = list ? srv_archive_player_games_json("pa", list) : NULL;
  ASSERT(list != NULL && list->n == 2 && j != NULL);
  if (j) {
    json_t *games = json_object_get(j, "games");
    ASSERT_STR_EQ(json_string_value(json_object_get(j, "player")), "pa");
    ASSERT_EQ(json_array_size(games), 2);
    /* Newest first: the local game, then the one she played as North. */
    json_t *g0 = json_array_get(games, 0), *g1 = json_array_get(games, 1);
    ASSERT_EQ(srv_gameid_parse(json_string_value(json_object_get(g0, "id")), SRV_GAMEID_LEN),
              ids[3]);
    ASSERT_STR_EQ(json_string_value(json_object_get(g0, "seat")), "both");
    ASSERT_EQ(json_integer_value(json_object_get(g0, "ply")), 4);
    ASSERT_STR_EQ(json_string_value(json_object_get(g0, "reason")), "timeout");
    ASSERT_EQ(srv_gameid_parse(json_string_value(json_object_get(g1, "id")), SRV_GAMEID_LEN),
              ids[1]);
    ASSERT_STR_EQ(json_string_value(json_object_get(g1, "seat")), "north");
    check_json(json_object_get(g1, "score"), "[1,2]");
    ASSERT(json_object_get(g1, "moves") == NULL);
  }
  json_decref(j);
  srv_store_game_list_free(list);
  ASSERT_EQ(srv_store_player_games(s, "pa", 100, &list), 0);
  ASSERT(list != NULL && list->n == 3);
  srv_store_game_list_free(list);
  /* Nobody: an empty list. */
  ASSERT_EQ(srv_store_player_games(s, "nobody", 10, &list), 0);
  j = list ? srv_archive_player_games_json("nobody", list) : NULL;
  check_json(j, "{\"games\":[],\"player\":\"nobody\"}");
  json_decref(j);
  srv_store_game_list_free(list);
  ASSERT_EQ(srv_store_player_games(s, "pa", 0, &list), SRV_STORE_EINVAL);
  /* A stored game, read back, archives the same as the live one. */
  srv_store_game *g = NULL;
  char *text = NULL;
  ASSERT_EQ(srv_store_game_get(s, ids[1], &g), 0);
  ASSERT(g != NULL && srv_archive_game_text(g, &text, NULL) == 0);
  ASSERT(text && strstr(text, "[Result \"north\"]\n[Reason \"timeout\"]\n[Score \"1-2\"]\n"));
  ASSERT(text && strstr(text, "[Date \"2025.11.29\"]\n"));
  free(text);
  srv_store_game_free(g);
  ASSERT_EQ(srv_store_game_get(s, 999, &g), SRV_STORE_ENOTFOUND);
  srv_store_close(s);
  rm_tree(dir);
  return 0;
}

/* The status of GET uri through the archive's routes (answered through a callback: SQLite's reads
 * answer before srv_api_get() returns). */
static void api_answered(void *arg, int status, char *body, const char *type) {
  (void)type;
  free(body);
  *(int *)arg = status;
}

static int api_status(srv_api *api, const char *uri) {
  int status = -1;
  ASSERT_EQ(srv_api_get(api, uri, NULL, "127.0.0.1", api_answered, &status), 0);
  return status;
}

/* An aborted game (srv_store_game_abort()) is stored marked, not deleted, and is no game of the
 * archive: a player's list skips it and GET /api/games/ID answers 404 as for a game in progress,
 * while a finished game of the same players is served. */
TEST_IMPL(aborted_game_not_archived) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  int64_t ids[2];
  for (int i = 0; i < 2; i++) {
    srv_store_game g = mk_game("ROOM01", MC_KALAH, mk_seat("pa", "Ana"), mk_seat("pb", "Bo"));
    g.game_no = i + 1;
    ASSERT_EQ(srv_store_game_start(s, &g, &ids[i]), 0);
    mc_game *live = mc_game_new(&g.rules);
    ASSERT(play_and_store(s, ids[i], live, 0) > 0); /* South's first move only. */
    mc_game_free(live);
  }
  ASSERT_EQ(srv_store_game_abort(s, ids[0], 1795910460000LL), 0);
  int score[2] = {4, 0};
  ASSERT_EQ(
      srv_store_game_finish(s, ids[1], MC_WIN_SOUTH, MC_REASON_RESIGNATION, score, 1795910470000LL),
      0);
  ASSERT_EQ(srv_store_commit(s), 0);
  srv_store_game *g = NULL;
  ASSERT_EQ(srv_store_game_get(s, ids[0], &g), 0);
  ASSERT(g->aborted);
  ASSERT_EQ(g->ended_ms, 1795910460000LL);
  ASSERT_EQ(g->reason, MC_REASON_NONE);
  ASSERT_EQ(g->n_moves, 1);
  srv_store_game_free(g);
  srv_store_game_list *list = NULL;
  ASSERT_EQ(srv_store_player_games(s, "pa", 20, &list), 0);
  ASSERT_EQ(list->n, 1);
  ASSERT_EQ(list->games[0].id, ids[1]);
  srv_store_game_list_free(list);

  srv_api *api = srv_api_new(s);
  ASSERT_NOT_NULL(api);
  char uri[64], id[SRV_GAMEID_LEN + 1];
  srv_gameid_format(ids[0], id);
  snprintf(uri, sizeof uri, "/api/games/%s", id);
  ASSERT_EQ(api_status(api, uri), 404);
  snprintf(uri, sizeof uri, "/api/games/%s.txt", id);
  ASSERT_EQ(api_status(api, uri), 404);
  srv_gameid_format(ids[1], id);
  snprintf(uri, sizeof uri, "/api/games/%s", id);
  ASSERT_EQ(api_status(api, uri), 200);
  srv_api_free(api);
  srv_store_close(s);
  rm_tree(dir);
  return 0;
}

/* GET /api/games/ID/analysis through the routes: 409 for a game in progress, 404 for an aborted
 * one and for no game, 503 for a finished game not analysed on a server without an analyser, and
 * 200 with the stored plies and accuracy once an analysis is stored, which a player's page of
 * games shows too. */
TEST_IMPL(analysis_route) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  int64_t ids[3];
  for (int i = 0; i < 3; i++) {
    srv_store_game g = mk_game("ROOM02", MC_KALAH, mk_seat("pa", "Ana"), mk_seat("pb", "Bo"));
    g.game_no = i + 1;
    ASSERT_EQ(srv_store_game_start(s, &g, &ids[i]), 0);
    mc_game *live = mc_game_new(&g.rules);
    ASSERT(play_and_store(s, ids[i], live, 0) > 0);
    mc_game_free(live);
  }
  ASSERT_EQ(srv_store_game_abort(s, ids[1], 1795910460000LL), 0);
  int score[2] = {4, 0};
  ASSERT_EQ(
      srv_store_game_finish(s, ids[2], MC_WIN_SOUTH, MC_REASON_RESIGNATION, score, 1795910470000LL),
      0);
  ASSERT_EQ(srv_store_commit(s), 0);
  srv_api *api = srv_api_new(s);
  ASSERT_NOT_NULL(api);
  char uri[96], id[SRV_GAMEID_LEN + 1];
  srv_gameid_format(ids[0], id);
  snprintf(uri, sizeof uri, "/api/games/%s/analysis", id);
  ASSERT_EQ(api_status(api, uri), 409);
  srv_gameid_format(ids[1], id);
  snprintf(uri, sizeof uri, "/api/games/%s/analysis", id);
  ASSERT_EQ(api_status(api, uri), 404);
  ASSERT_EQ(api_status(api, "/api/games/0123456789abcdef/analysis"), 404);
  ASSERT_EQ(api_status(api, "/api/games//analysis"), 404);
  srv_gameid_format(ids[2], id);
  snprintf(uri, sizeof uri, "/api/games/%s/analysis", id);
  ASSERT_EQ(api_status(api, uri), 503);
  /* Stored (a first analysis is kept: a second put changes nothing). */
  srv_store_analysis a = {.game = ids[2],
                          .analysed_ms = 1795910480000LL,
                          .ply_ms = 150,
                          .accuracy_known = {true, false},
                          .accuracy = {75.0, 0},
                          .plies = "[{\"ply\":1}]"};
  ASSERT_EQ(srv_store_analysis_put(s, &a), 0);
  a.plies = "[]";
  ASSERT_EQ(srv_store_analysis_put(s, &a), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  srv_store_analysis back;
  ASSERT_EQ(srv_store_analysis_get(s, ids[2], &back), 0);
  ASSERT_STR_EQ(back.plies, "[{\"ply\":1}]");
  ASSERT(back.accuracy_known[0] && !back.accuracy_known[1] && back.accuracy[0] == 75.0);
  ASSERT_EQ(back.ply_ms, 150);
  srv_store_analysis_free(&back);
  ASSERT_EQ(srv_store_analysis_get(s, ids[0], &back), SRV_STORE_ENOTFOUND);
  ASSERT_EQ(api_status(api, uri), 200);
  srv_store_game_list *list = NULL;
  ASSERT_EQ(srv_store_player_games_page(s, "pa", 0, 10, &list), 0);
  ASSERT_EQ(list->n, 1);
  ASSERT(list->games[0].accuracy_known[0] && list->games[0].accuracy[0] == 75.0);
  ASSERT(!list->games[0].accuracy_known[1]);
  srv_store_game_list_free(list);
  srv_api_free(api);
  srv_store_close(s);
  rm_tree(dir);
  return 0;
}
