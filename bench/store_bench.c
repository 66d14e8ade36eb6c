/* store-bench: how many moves per second the store makes durable, and what a commit costs.
 *
 * It plays many concurrent games (Kalah 6x4 by default) with the real engine, picking a random
 * game for every move so that the moves of a loop turn are spread over many games, and records
 * every move through srv_store. A finished game is recorded as finished and a new one starts in
 * its room, so the number of games in progress stays constant. Modes:
 *
 *   engine only       no storage at all: the baseline the storage cost is measured against
 *   writes only       every write, never committed (rolled back each turn): SQLite's CPU cost
 *                     without any commit (a rollback costs about what a commit without fsync does)
 *   batched FULL      one commit per loop turn, synchronous = FULL (the server's default)
 *   batched NORMAL    one commit per loop turn, synchronous = NORMAL
 *   per move FULL     one commit per move (no batching), synchronous = FULL
 *   per move NORMAL   one commit per move, synchronous = NORMAL
 *
 * Usage: store-bench [--dir DIR] [--games N] [--turn N] [--moves N] [--unbatched N]
 * DIR must be on the disk the server would use (not tmpfs): the default is a new directory under
 * the current one, removed at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mc_game.h"
#include "srv_store.h"

typedef struct bench_opts {
  const char *dir;
  int games;      /* Concurrent games. */
  int turn;       /* Moves per loop turn (one commit each when batched). */
  long moves;     /* Moves per batched mode. */
  long unbatched; /* Moves per unbatched mode (each costs a commit). */
} bench_opts;

typedef enum mode { ENGINE_ONLY, WRITES_ONLY, BATCHED, PER_MOVE } mode;

typedef struct result {
  long moves;
  double seconds;
  long commits;
  double commit_mean_ms, commit_p50_ms, commit_p99_ms, commit_max_ms;
  long long db_bytes;
} result;

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

/* xorshift64*: a reproducible pseudo-random sequence. */
static uint64_t rng(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1du;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int64_t wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void die(const char *what, int rc, srv_store *store) {
  fprintf(stderr, "store-bench: %s: %s (%s)\n", what, srv_store_strerror(rc),
          store ? srv_store_last_error(store) : "");
  exit(1);
}

/* One game in progress: its room, its store id and the engine's game. */
typedef struct slot {
  char room[SRV_STORE_CODE_SIZE];
  int64_t id;
  int game_no;
  int ply_base; /* Writes only: the plies of earlier games that reuse this id. */
  mc_game *game;
} slot;

/* Starts a new game in slot s. Without commits (writes only) the first game's row is reused, since
 * a game row written in a rolled-back turn would be gone. */
static void start_game(srv_store *store, slot *s, const mc_rules *rules, int index, mode m) {
  s->game_no++;
  if (m == WRITES_ONLY && s->game != NULL) {
    s->ply_base += (int)mc_game_ply(s->game);
    store = NULL;
  }
  mc_game_free(s->game);
  s->game = mc_game_new(rules);
  if (s->game == NULL) {
    fprintf(stderr, "store-bench: out of memory\n");
    exit(1);
  }
  if (store == NULL)
    return;
  srv_store_game g;
  memset(&g, 0, sizeof g);
  snprintf(g.room, sizeof g.room, "%s", s->room);
  g.game_no = s->game_no;
  g.rules = *rules;
  snprintf(g.seats[0].player, sizeof g.seats[0].player, "p%ds", index);
  snprintf(g.seats[0].name, sizeof g.seats[0].name, "South %d", index);
  snprintf(g.seats[1].player, sizeof g.seats[1].player, "p%dn", index);
  snprintf(g.seats[1].name, sizeof g.seats[1].name, "North %d", index);
  g.clocked = true;
  g.initial_ms = 300000;
  g.increment_ms = 2000;
  g.started_ms = wall_ms();
  int rc = srv_store_game_start(store, &g, &s->id);
  if (rc != 0)
    die("game start", rc, store);
}

static long long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

static result run(const bench_opts *o, mode m, srv_store_sync sync, long moves) {
  result res;
  memset(&res, 0, sizeof res);
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/run-%d-%d", o->dir, (int)m, (int)sync);
  srv_store *store = NULL;
  if (m != ENGINE_ONLY) {
    srv_store_config cfg;
    char err[SRV_STORE_ERR_SIZE];
    srv_store_config_init(&cfg);
    cfg.sync = sync;
    int rc = srv_store_open(dir, &cfg, &store, err);
    if (rc != 0) {
      fprintf(stderr, "store-bench: %s\n", err);
      exit(1);
    }
  }
  mc_rules rules;
  mc_rules_init(&rules, MC_KALAH);
  slot *slots = calloc((size_t)o->games, sizeof *slots);
  double *commit_ms =
      calloc((size_t)(moves / (m == PER_MOVE ? 1 : o->turn) + 2), sizeof *commit_ms);
  if (slots == NULL || commit_ms == NULL) {
    fprintf(stderr, "store-bench: out of memory\n");
    exit(1);
  }
  /* Set-up, not timed: players, rooms and the first games, committed. */
  for (int i = 0; i < o->games; i++) {
    snprintf(slots[i].room, sizeof slots[i].room, "R%05d", i);
    if (store) {
      srv_store_player p;
      srv_store_room r;
      memset(&p, 0, sizeof p);
      memset(&r, 0, sizeof r);
      for (int side = 0; side < 2; side++) {
        snprintf(p.id, sizeof p.id, "p%d%c", i, side ? 'n' : 's');
        snprintf(p.name, sizeof p.name, "%s %d", side ? "North" : "South", i);
        uint8_t token_hash[32] = {0};
        memcpy(token_hash, &i, sizeof i);
        token_hash[31] = (uint8_t)side;
        p.created_ms = wall_ms();
        if (srv_store_player_put(store, &p) != 0 ||
            srv_store_session_put(store, token_hash, p.id, p.created_ms) != 0)
          die("player", -1, store);
        snprintf(r.seats[side].player, sizeof r.seats[side].player, "%s", p.id);
        snprintf(r.seats[side].name, sizeof r.seats[side].name, "%s", p.name);
      }
      snprintf(r.code, sizeof r.code, "%s", slots[i].room);
      r.settings = "{\"visibility\":\"public\",\"clock\":{\"initial_ms\":300000,"
                   "\"increment_ms\":2000}}";
      r.status = SRV_STORE_STATUS_PLAYING;
      if (srv_store_room_put(store, &r) != 0)
        die("room", -1, store);
    }
    start_game(store, &slots[i], &rules, i, m);
  }
  if (store && srv_store_commit(store) != 0)
    die("set-up commit", -1, store);

  /* The timed part. */
  double t0 = now_s();
  long played = 0;
  while (played < moves) {
    int in_turn = m == PER_MOVE ? 1 : o->turn;
    for (int k = 0; k < in_turn && played < moves; k++) {
      int i = (int)(rng() % (uint64_t)o->games);
      slot *s = &slots[i];
      uint8_t legal[MC_MAX_HOUSES];
      int n = mc_game_legal(s->game, legal);
      int seat = mc_game_pos(s->game)->turn;
      srv_store_move mv = {s->ply_base + (int)mc_game_ply(s->game), seat,
                           legal[rng() % (uint64_t)n], 300000 - (int64_t)(rng() % 100000),
                           wall_ms()};
      if (mc_game_play(s->game, mv.house, NULL) != 0) {
        fprintf(stderr, "store-bench: engine refused a legal move\n");
        exit(1);
      }
      if (store) {
        int rc = srv_store_move_add(store, s->id, &mv);
        if (rc != 0)
          die("move", rc, store);
      }
      played++;
      mc_result r;
      if (mc_game_over(s->game, &r)) {
        if (store && m != WRITES_ONLY) {
          int score[2] = {r.score[0], r.score[1]};
          int rc = srv_store_game_finish(store, s->id, r.winner, r.reason, score, wall_ms());
          if (rc != 0)
            die("finish", rc, store);
        }
        start_game(store, s, &rules, i, m);
      }
    }
    if (m == WRITES_ONLY) {
      srv_store_rollback(store);
    } else if (store) {
      double c0 = now_s();
      int rc = srv_store_commit(store);
      if (rc != 0)
        die("commit", rc, store);
      commit_ms[res.commits++] = (now_s() - c0) * 1000.0;
    }
  }
  res.seconds = now_s() - t0;
  res.moves = played;
  if (res.commits > 0) {
    double sum = 0;
    for (long i = 0; i < res.commits; i++)
      sum += commit_ms[i];
    qsort(commit_ms, (size_t)res.commits, sizeof *commit_ms, cmp_double);
    res.commit_mean_ms = sum / (double)res.commits;
    res.commit_p50_ms = commit_ms[res.commits / 2];
    res.commit_p99_ms = commit_ms[(long)((double)res.commits * 0.99)];
    res.commit_max_ms = commit_ms[res.commits - 1];
  }
  if (store) {
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", dir, SRV_STORE_FILE);
    srv_store_close(store); /* Checkpoints the WAL into the file. */
    res.db_bytes = file_size(path);
    unlink(path);
    snprintf(path, sizeof path, "%s/%s-wal", dir, SRV_STORE_FILE);
    unlink(path);
    snprintf(path, sizeof path, "%s/%s-shm", dir, SRV_STORE_FILE);
    unlink(path);
    snprintf(path, sizeof path, "%s/%s", dir, SRV_STORE_LOCK_FILE);
    unlink(path);
    rmdir(dir);
  }
  for (int i = 0; i < o->games; i++)
    mc_game_free(slots[i].game);
  free(slots);
  free(commit_ms);
  return res;
}

static void print_row(const char *name, const result *r) {
  printf("%-34s %9ld %8.2f %11.0f", name, r->moves, r->seconds,
         r->seconds > 0 ? (double)r->moves / r->seconds : 0.0);
  if (r->commits > 0)
    printf(" %8ld %8.3f %8.3f %8.3f %8.3f", r->commits, r->commit_mean_ms, r->commit_p50_ms,
           r->commit_p99_ms, r->commit_max_ms);
  printf("\n");
  fflush(stdout);
}

static long parse_long(const char *flag, const char *text, long min) {
  char *end;
  long v = strtol(text ? text : "", &end, 10);
  if (text == NULL || *end != '\0' || v < min) {
    fprintf(stderr, "store-bench: %s needs a number >= %ld\n", flag, min);
    exit(2);
  }
  return v;
}

int main(int argc, char **argv) {
  bench_opts o = {NULL, 1000, 100, 200000, 3000};
  for (int i = 1; i < argc; i++) {
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(argv[i], "--dir") == 0 && next)
      o.dir = argv[++i];
    else if (strcmp(argv[i], "--games") == 0)
      o.games = (int)parse_long("--games", next, 1), i++;
    else if (strcmp(argv[i], "--turn") == 0)
      o.turn = (int)parse_long("--turn", next, 1), i++;
    else if (strcmp(argv[i], "--moves") == 0)
      o.moves = parse_long("--moves", next, 1), i++;
    else if (strcmp(argv[i], "--unbatched") == 0)
      o.unbatched = parse_long("--unbatched", next, 0), i++;
    else {
      fprintf(
          stderr,
          "usage: store-bench [--dir DIR] [--games N] [--turn N] [--moves N] [--unbatched N]\n");
      return 2;
    }
  }
  char made[64] = "";
  if (o.dir == NULL) {
    snprintf(made, sizeof made, "store-bench-XXXXXX");
    if (mkdtemp(made) == NULL) {
      perror("store-bench: mkdtemp");
      return 1;
    }
    o.dir = made;
  }
  printf("store-bench: %d concurrent Kalah 6x4 games, %d moves per loop turn, data in %s\n",
         o.games, o.turn, o.dir);
  printf("%-34s %9s %8s %11s %8s %8s %8s %8s %8s\n", "mode", "moves", "seconds", "moves/s",
         "commits", "mean ms", "p50 ms", "p99 ms", "max ms");
  result r;
  r = run(&o, ENGINE_ONLY, SRV_STORE_SYNC_FULL, o.moves);
  print_row("engine only (no storage)", &r);
  r = run(&o, WRITES_ONLY, SRV_STORE_SYNC_FULL, o.moves);
  print_row("writes only (never committed)", &r);
  r = run(&o, BATCHED, SRV_STORE_SYNC_FULL, o.moves);
  print_row("batched, synchronous=FULL", &r);
  long long full_bytes = r.db_bytes;
  r = run(&o, BATCHED, SRV_STORE_SYNC_NORMAL, o.moves);
  print_row("batched, synchronous=NORMAL", &r);
  if (o.unbatched > 0) {
    r = run(&o, PER_MOVE, SRV_STORE_SYNC_FULL, o.unbatched);
    print_row("commit per move, synchronous=FULL", &r);
    r = run(&o, PER_MOVE, SRV_STORE_SYNC_NORMAL, o.unbatched);
    print_row("commit per move, synchronous=NORMAL", &r);
  }
  printf("database after %ld moves: %.1f MiB (%.0f bytes a move, games and rooms included)\n",
         o.moves, (double)full_bytes / 1048576.0, (double)full_bytes / (double)o.moves);
  if (made[0] != '\0' && rmdir(made) != 0)
    fprintf(stderr, "store-bench: cannot remove %s: %s\n", made, strerror(errno));
  return 0;
}
