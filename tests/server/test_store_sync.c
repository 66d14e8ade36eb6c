/* SQLite's durable commit off the loop (server/store/srv_store_sync.c): with --sync full and the
 * store bound to a loop, a batch is reported committed only after a thread synced the log, the
 * loop goes on meanwhile (writes in between form the next batch), a failed sync loses the batch
 * and stops every later write, and a stop waits for the sync under way. White-box where it must
 * be: the failed sync is made by handing the thread a pipe (fdatasync() refuses one). */
#include "store_util.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "srv_store_int.h" /* srv_store__sync_set_fd() */

static void on_done(void *arg, int rc) {
  int *out = arg;
  *out = rc;
}

static void on_tick(uv_timer_t *t) {
  (void)t; /* uv_run(UV_RUN_ONCE) returns; the condition is looked at again. */
}

/* Runs loop until *rc is no longer 1 (about 15 s at most); a ref'd timer keeps it turning. */
static void run_until_known(uv_loop_t *loop, int *rc) {
  uv_timer_t tick;
  uv_timer_init(loop, &tick);
  uv_timer_start(&tick, on_tick, 50, 50);
  for (int i = 0; i < 300 && *rc == 1; i++)
    uv_run(loop, UV_RUN_ONCE);
  uv_close((uv_handle_t *)&tick, NULL);
  uv_run(loop, UV_RUN_NOWAIT);
}

/* A store on a new directory (its path in dir), bound to a new loop. */
static void open_bound(char *dir, size_t size, srv_store_sync sync, srv_store **s,
                       uv_loop_t *loop) {
  char err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, size);
  ASSERT_EQ(open_store(dir, sync, s, err), 0);
  ASSERT_EQ(uv_loop_init(loop), 0);
  ASSERT_EQ(srv_store_watch(*s, loop), 0);
}

/* Closes store, lets its handle close, closes the loop. */
static void close_all(srv_store *s, uv_loop_t *loop) {
  srv_store_close(s);
  uv_run(loop, UV_RUN_NOWAIT);
  ASSERT_EQ(uv_loop_close(loop), 0);
}

/* A room and a Kalah game between Ana and Bo; returns its id, the live game in *live. */
static int64_t start_game(srv_store *s, const char *code, mc_game **live) {
  srv_store_player a = mk_player("pa", "Ana"), b = mk_player("pb", "Bo");
  ASSERT_EQ(srv_store_player_put(s, &a), 0);
  ASSERT_EQ(srv_store_player_put(s, &b), 0);
  srv_store_game g = mk_game(code, MC_KALAH, mk_seat("pa", "Ana"), mk_seat("pb", "Bo"));
  srv_store_room r = mk_room(code, SRV_STORE_STATUS_PLAYING, &g);
  ASSERT_EQ(srv_store_room_put(s, &r), 0);
  int64_t id = 0;
  ASSERT_EQ(srv_store_game_start(s, &g, &id), 0);
  *live = mc_game_new(&g.rules);
  return id;
}

TEST_IMPL(sync_after_the_call) {
  char dir[256];
  srv_store *s = NULL;
  uv_loop_t loop;
  open_bound(dir, sizeof dir, SRV_STORE_SYNC_FULL, &s, &loop);
  mc_game *live = NULL;
  int64_t id = start_game(s, "RS", &live);
  for (int i = 0; i < 3; i++)
    ASSERT(play_and_store(s, id, live, i) > 0);
  int rc = 1;
  ASSERT_EQ(srv_store_commit_async(s, &loop, on_done, &rc), 0);
  /* Not yet: the thread syncs the log while the caller goes on. */
  ASSERT_EQ(rc, 1);
  ASSERT(srv_store_commit_busy(s));
  ASSERT(!srv_store_pending(s));
  /* The loop goes on writing: the next batch. */
  ASSERT(play_and_store(s, id, live, 3) > 0);
  ASSERT(srv_store_pending(s));
  run_until_known(&loop, &rc);
  ASSERT_EQ(rc, 0);
  ASSERT(!srv_store_commit_busy(s));
  srv_store_stats st;
  srv_store_get_stats(s, &st);
  ASSERT_EQ(st.commits, 1);
  ASSERT(st.commit_ns_total > 0);
  /* The next batch goes the same way. */
  rc = 1;
  ASSERT_EQ(srv_store_commit_async(s, &loop, on_done, &rc), 0);
  run_until_known(&loop, &rc);
  ASSERT_EQ(rc, 0);
  srv_store_get_stats(s, &st);
  ASSERT_EQ(st.commits, 2);
  ASSERT_EQ(st.failed_commits, 0);
  close_all(s, &loop);
  mc_game_free(live);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM moves"), 4);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM games"), 1);
  rm_tree(dir);
  return 0;
}

TEST_IMPL(wait_runs_the_callback) {
  char dir[256];
  srv_store *s = NULL;
  uv_loop_t loop;
  open_bound(dir, sizeof dir, SRV_STORE_SYNC_FULL, &s, &loop);
  mc_game *live = NULL;
  int64_t id = start_game(s, "RW", &live);
  ASSERT(play_and_store(s, id, live, 0) > 0);
  int rc = 1;
  ASSERT_EQ(srv_store_commit_async(s, &loop, on_done, &rc), 0);
  /* A second batch while one is under way is refused (one at a time). */
  ASSERT(play_and_store(s, id, live, 1) > 0);
  int rc2 = 1;
  ASSERT_EQ(srv_store_commit_async(s, &loop, on_done, &rc2), SRV_STORE_EINVAL);
  ASSERT_EQ(rc2, 1);
  /* A stop waits for the sync, without the loop. */
  srv_store_commit_wait(s);
  ASSERT_EQ(rc, 0);
  ASSERT(!srv_store_commit_busy(s));
  /* A close commits nothing of the open batch: the second move is not there. */
  close_all(s, &loop);
  mc_game_free(live);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM moves"), 1);
  rm_tree(dir);
  return 0;
}

TEST_IMPL(failed_sync_loses_the_batch) {
  char dir[256];
  srv_store *s = NULL;
  uv_loop_t loop;
  open_bound(dir, sizeof dir, SRV_STORE_SYNC_FULL, &s, &loop);
  mc_game *live = NULL;
  int64_t id = start_game(s, "RF", &live);
  int rc = 1;
  ASSERT_EQ(srv_store_commit_async(s, &loop, on_done, &rc), 0);
  run_until_known(&loop, &rc);
  ASSERT_EQ(rc, 0);
  /* The thread syncs a pipe from now on: fdatasync() fails with EINVAL. */
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  ASSERT_EQ(srv_store__sync_set_fd(s, p[1]), 0);
  ASSERT(play_and_store(s, id, live, 0) > 0);
  ASSERT(play_and_store(s, id, live, 1) > 0);
  rc = 1;
  ASSERT_EQ(srv_store_commit_async(s, &loop, on_done, &rc), 0);
  run_until_known(&loop, &rc);
  ASSERT_EQ(rc, SRV_STORE_EIO);
  size_t n = 0;
  const srv_store_op *lost = srv_store_failed(s, &n);
  ASSERT_EQ(n, 2); /* Both moves: the rooms take them back. */
  ASSERT_EQ(lost[0].kind, SRV_STORE_OP_MOVE);
  ASSERT_EQ(lost[0].ply, 0);
  ASSERT_EQ(lost[1].ply, 1);
  ASSERT(strstr(srv_store_last_error(s), "syncing the write-ahead log failed") != NULL);
  /* Nothing is written any more. */
  srv_store_move m = {.ply = 2, .seat = 0, .house = 1, .clock_ms = -1, .at_ms = 9};
  ASSERT_EQ(srv_store_move_add(s, id, &m), SRV_STORE_EIO);
  ASSERT(!srv_store_pending(s));
  srv_store_stats st;
  srv_store_get_stats(s, &st);
  ASSERT_EQ(st.failed_commits, 1);
  close_all(s, &loop);
  close(p[0]);
  mc_game_free(live);
  rm_tree(dir);
  return 0;
}

TEST_IMPL(normal_commits_at_once) {
  char dir[256];
  srv_store *s = NULL;
  uv_loop_t loop;
  open_bound(dir, sizeof dir, SRV_STORE_SYNC_NORMAL, &s, &loop);
  mc_game *live = NULL;
  int64_t id = start_game(s, "RN", &live);
  ASSERT(play_and_store(s, id, live, 0) > 0);
  int rc = 1;
  ASSERT_EQ(srv_store_commit_async(s, &loop, on_done, &rc), 0);
  /* --sync normal syncs nothing at a commit: the outcome is known at once. */
  ASSERT_EQ(rc, 0);
  ASSERT(!srv_store_commit_busy(s));
  close_all(s, &loop);
  mc_game_free(live);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM moves"), 1);
  rm_tree(dir);
  return 0;
}
