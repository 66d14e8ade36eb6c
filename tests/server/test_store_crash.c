/* kill -9 at random moments: a writer process plays many games, commits once per loop turn and
 * only then acknowledges (writes the committed move count to a pipe, as the server sends states
 * after the commit). It is killed at a random time, again and again, each new writer resuming the
 * games from the database exactly as the server's recovery will. Every acknowledged move must be
 * there after each kill, nothing beyond the one turn in flight, and every game must replay.
 * Both synchronous settings survive a process crash (FULL is needed for power loss only). */
#include <signal.h>
#include <stdbool.h>
#include <time.h>

#include <sys/wait.h>
#include <unistd.h>

#include "store_util.h"

#define ROOMS 40
#define TURN 50
#define KILLS 16

/* Counts the moves in the database of dir: 0 when a writer was killed before making the schema. */
static long long stored_moves(const char *dir) {
  char path[512];
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  long long n = 0;
  db_path(dir, path, sizeof path);
  if (access(path, F_OK) != 0)
    return 0;
  if (sqlite3_open(path, &db) == SQLITE_OK &&
      sqlite3_prepare_v2(db, "SELECT count(*) FROM moves", -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

/* Starts a new game in room code (the room row first), committed with the turn. */
static int new_game(srv_store *s, const char *code, int game_no, int64_t *id, mc_game **live) {
  srv_store_game g = mk_game(code, MC_KALAH, mk_seat("pa", "Ana"), mk_seat("pb", "Bo"));
  g.game_no = game_no;
  srv_store_room r = mk_room(code, SRV_STORE_STATUS_PLAYING, &g);
  if (srv_store_room_put(s, &r) != 0 || srv_store_game_start(s, &g, id) != 0)
    return -1;
  *live = mc_game_new(&g.rules);
  return *live ? 0 : -1;
}

/* The writer: never returns normally (it is killed); exits 3 on any error. */
static void writer(const char *dir, srv_store_sync sync, int ack_fd, unsigned seed) {
  char err[SRV_STORE_ERR_SIZE];
  srv_store *s = NULL;
  /* The previous writer may still be dying: wait for its lock. */
  struct timespec pause = {0, 5000000L};
  for (int i = 0; i < 200 && open_store(dir, sync, &s, err) == SRV_STORE_ELOCKED; i++)
    nanosleep(&pause, NULL);
  if (s == NULL)
    _exit(3);
  int64_t ids[ROOMS];
  int game_no[ROOMS];
  mc_game *live[ROOMS];
  memset(live, 0, sizeof live);
  srv_store_recovery *rec = NULL;
  if (srv_store_recover(s, &rec) != 0)
    _exit(3);
  /* Resume every game in progress through the engine, as the server will. */
  for (int i = 0; i < ROOMS; i++) {
    char code[8];
    snprintf(code, sizeof code, "C%05d", i);
    game_no[i] = 1;
    for (size_t k = 0; k < rec->n_games; k++) {
      if (strcmp(rec->games[k].room, code) == 0) {
        if (srv_store_replay(&rec->games[k], true, &live[i], NULL) != 0)
          _exit(3);
        ids[i] = rec->games[k].id;
        game_no[i] = rec->games[k].game_no;
      }
    }
    if (live[i] == NULL && new_game(s, code, game_no[i], &ids[i], &live[i]) != 0)
      _exit(3);
  }
  srv_store_recovery_free(rec);
  if (srv_store_commit(s) != 0)
    _exit(3);
  long long total = stored_moves(dir);
  /* Ready: the games are resumed. */
  if (write(ack_fd, &total, sizeof total) != (ssize_t)sizeof total)
    _exit(3);
  for (;;) {
    for (int k = 0; k < TURN; k++) {
      int i = (int)((unsigned)rand_r(&seed) % ROOMS);
      int h = play_and_store(s, ids[i], live[i], rand_r(&seed));
      if (h < 0)
        _exit(3);
      mc_result res;
      if (mc_game_over(live[i], &res)) {
        int score[2] = {res.score[0], res.score[1]};
        char code[8];
        snprintf(code, sizeof code, "C%05d", i);
        mc_game_free(live[i]);
        if (srv_store_game_finish(s, ids[i], res.winner, res.reason, score, 1) != 0 ||
            new_game(s, code, ++game_no[i], &ids[i], &live[i]) != 0)
          _exit(3);
      }
    }
    if (srv_store_commit(s) != 0)
      _exit(3);
    /* Durable: now the states may go out. */
    total += TURN;
    if (write(ack_fd, &total, sizeof total) != (ssize_t)sizeof total)
      _exit(3);
  }
}

TEST_IMPL(kill_nine) {
  char dir[256];
  tmp_dir(dir, sizeof dir);
  /* Random kill times; MANCALA_SEED repeats a run (the seed is printed). */
  const char *env = getenv("MANCALA_SEED");
  unsigned seed = env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL);
  srand(seed);
  long long acked = 0;
  int acks_seen = 0;
  for (int round = 0; round < KILLS; round++) {
    int fds[2];
    if (pipe(fds) != 0) {
      perror("pipe");
      abort();
    }
    srv_store_sync sync = round % 2 ? SRV_STORE_SYNC_NORMAL : SRV_STORE_SYNC_FULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      writer(dir, sync, fds[1], (unsigned)(round * 7919 + 17));
    }
    close(fds[1]);
    /* Every third round the kill may land anywhere, opening and recovery included; otherwise it
     * waits until the writer has resumed its games. Then it lets it run for 0 to 40 ms and
     * kills it: mid-turn, mid-commit or mid-acknowledgement. */
    long long v;
    bool ready = round % 3 == 2;
    if (!ready && read(fds[0], &v, sizeof v) == (ssize_t)sizeof v) {
      ASSERT(v == acked);
      ready = true;
    }
    ASSERT(ready);
    struct timespec ts = {0, (long)(rand() % 41) * 1000000L};
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
    bool first = round % 3 == 2;
    while (read(fds[0], &v, sizeof v) == (ssize_t)sizeof v) {
      if (first) {
        ASSERT(v == acked); /* The ready message. */
        first = false;
        continue;
      }
      ASSERT(v > acked);
      acked = v;
      acks_seen++;
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    /* Every acknowledged move is there, and at most the turn in flight beyond it. */
    long long n = stored_moves(dir);
    ASSERT(n >= acked);
    ASSERT(n <= acked + TURN);
    if (n < acked || n > acked + TURN)
      fprintf(stderr, "round %d: %lld moves stored, %lld acknowledged\n", round, n, acked);
    acked = n; /* The next writer starts from what is stored. */
  }
  ASSERT(acks_seen > 0);
  /* A final recovery: every game in progress replays, and every finished one too. */
  char err[SRV_STORE_ERR_SIZE];
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  srv_store_recovery *rec = NULL;
  ASSERT_EQ(s ? srv_store_recover(s, &rec) : -1, 0);
  ASSERT(rec != NULL && rec->n_rooms == ROOMS && rec->n_games == ROOMS);
  for (size_t k = 0; rec && k < rec->n_games; k++) {
    mc_game *g = NULL;
    ASSERT_EQ(srv_store_replay(&rec->games[k], true, &g, NULL), 0);
    mc_game_free(g);
  }
  srv_store_recovery_free(rec);
  long long games = raw_int(dir, "SELECT max(id) FROM games");
  for (long long id = 1; s && id <= games; id++) {
    srv_store_game *g = NULL;
    mc_game *back = NULL;
    ASSERT_EQ(srv_store_game_get(s, id, &g), 0);
    ASSERT_EQ(g ? srv_store_replay(g, true, &back, NULL) : -1, 0);
    mc_game_free(back);
    srv_store_game_free(g);
  }
  srv_store_close(s);
  printf("seed %u: %d kills, %lld moves stored, %lld games, %d acknowledged turns\n", seed, KILLS,
         stored_moves(dir), games, acks_seen);
  rm_tree(dir);
  return 0;
}
