/* mancala-server: configuration, the loop, signals, and the order of start and shutdown. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uv.h>

#include "srv_account.h"
#include "srv_analysis.h"
#include "srv_api.h"
#include "srv_cluster.h"
#include "srv_computer.h"
#include "srv_config.h"
#include "srv_dispatch.h"
#include "srv_egtb.h"
#include "srv_error.h"
#include "srv_gameid.h"
#include "srv_heap.h"
#include "srv_hints.h"
#include "srv_ident.h"
#include "srv_lobby.h"
#include "srv_log.h"
#include "srv_net.h"
#include "srv_persist.h"
#include "srv_proto.h"
#include "srv_recover.h"
#include "srv_room.h"
#include "srv_search_pool.h"
#include "srv_search_redis.h"
#include "srv_store.h"
#include "srv_time_uv.h"
#include "srv_turn.h"
#include "srv_work_uv.h"

#ifndef MANCALA_VERSION
#define MANCALA_VERSION "0.0.0"
#endif

/* Everything the process owns, for the signal and shutdown callbacks. */
static struct app {
  uv_loop_t loop;
  uv_signal_t sigint, sigterm;
  srv_time time;
  srv_ident *ident;
  srv_rooms *rooms;
  srv_lobby *lobby;
  srv_myrooms *myrooms;
  srv_net *net;
  srv_dispatch dispatch;
  srv_turn turn;
  srv_store *store;
  srv_persist *persist;
  srv_api *api;
  srv_work work;
  srv_accounts *accounts;
  srv_computer *computer;
  srv_hints *hints;
  srv_analysis *analysis;     /* The games' analyses (GET /api/games/ID/analysis). */
  srv_search_queue *searches; /* The computer's searches in process (srv_search_pool.h). */
  srv_search_queue *workers;  /* On mancala-worker processes (--search-queue), or NULL. */
  srv_egtb *egtb;             /* Their endgame tables, built in the background when missing. */
  srv_cluster *cluster;       /* A node of a cluster (--cluster), or NULL: one process. */
  srv_sink net_sink;          /* The network layer's (the cluster's sink hands it its own). */
  srv_heap_trimmer *trimmer;  /* Gives the heap's free memory back now and then (srv_heap.h). */
} app;

/* A cluster's sink: frames for stand-ins of other nodes' connections go to their node (the
 * cluster is made after the rooms, which copy their sink when they are made). */
static void cluster_queue(void *ud, srv_client *to, srv_frame *frame) {
  struct app *a = ud;
  if (to->remote != NULL && a->cluster != NULL) {
    srv_sink s;
    srv_cluster_sink(a->cluster, &s);
    s.queue(s.ud, to, frame);
  } else {
    a->net_sink.queue(a->net_sink.ud, to, frame);
  }
}

static void cluster_lost(void *ud, srv_client *to) {
  struct app *a = ud;
  if (to->remote == NULL)
    a->net_sink.lost(a->net_sink.ud, to);
}

/* The network's part in the end of a turn (srv_turn_net): this node's connections' frames, cut and
 * released by storage batch; in a cluster, the frames of other nodes' connections (stand-ins) too,
 * stamped by the network layer when queued and published to their nodes by the same cuts. */
static uint64_t turn_cut(void *ud) {
  return srv_net_cut(((struct app *)ud)->net);
}

static uint64_t turn_restamp(void *ud, uint64_t cut) {
  return srv_net_restamp(((struct app *)ud)->net, cut);
}

static void turn_release(void *ud, uint64_t cut) {
  struct app *a = ud;
  if (a->cluster != NULL)
    srv_cluster_release(a->cluster, cut);
  srv_net_release_cut(a->net, cut);
}

/* A lookup of an account name over HTTP (GET /api/players/NAME) from address addr: counted
 * against it like hello's and register's (srv_accounts_lookup()). */
static int64_t name_lookup(void *ud, const char *addr) {
  struct app *a = ud;
  return srv_accounts_lookup(a->accounts, addr);
}

/* The gauges of /healthz and /metrics that the network layer does not own. */
static void gauges(void *ud, srv_metrics_gauges *g) {
  struct app *a = ud;
  g->players = (long)srv_ident_count(a->ident);
  srv_rooms_count(a->rooms, g->rooms);
  g->storage = true;
  srv_store_get_stats(a->store, &g->store);
  g->backend = srv_store_backend(a->store);
  g->unreachable = !srv_store_connected(a->store);
  g->inflight = srv_store_commit_busy(a->store) ? 1 : 0;
  if (a->egtb != NULL) {
    srv_egtb_status es;
    srv_egtb_status_get(a->egtb, &es);
    g->egtb = true;
    g->egtb_state = srv_egtb_state_name(es.state);
    g->egtb_loaded = es.loaded;
    g->egtb_tables = es.tables;
    g->egtb_seconds = es.elapsed_s;
  }
  if (a->cluster != NULL) {
    static srv_cluster_stats cs; /* The loop's only: read while the gauges are rendered. */
    srv_cluster_stats_get(a->cluster, &cs);
    g->cluster = &cs;
  }
}

static void stop_rest(void *arg);

static void on_stopped(void *arg) {
  struct app *a = arg;
  /* lws is gone and every connection has left its rooms: end the last turn (its writes become
   * durable), free the rooms, close our handles, and let uv_run() return. */
  srv_store_commit_wait(
      a->store); /* A batch in flight (PostgreSQL): its outcome, settled, first. */
  srv_turn_end(&a->turn);
  srv_store_commit_wait(a->store);
  /* A cluster's node gives its rooms back (their last moves are committed) before they go. */
  if (a->cluster != NULL)
    srv_cluster_stop(a->cluster, stop_rest, a);
  else
    stop_rest(a);
}

static void stop_rest(void *arg) {
  struct app *a = arg;
  srv_turn_end(&a->turn); /* What the stand-ins' leaving changed. */
  srv_store_commit_wait(a->store);
  srv_lobby_free(a->lobby);
  a->lobby = NULL;
  srv_myrooms_free(a->myrooms);
  a->myrooms = NULL;
  srv_rooms_free(a->rooms);
  a->rooms = NULL;
  srv_heap_trimmer_free(a->trimmer);
  a->trimmer = NULL;
  srv_computer_close(a->computer); /* Its timers; searches in flight end on their own. */
  srv_analysis_free(a->analysis);  /* Its searches cancelled: a long analysis ends now. */
  a->analysis = NULL;
  if (a->workers != NULL)
    srv_search_redis_close(a->workers);
  if (a->searches != NULL)
    srv_search_pool_close(a->searches);
  srv_egtb_stop(a->egtb); /* A build under way stops; its thread is joined. */
  uv_close((uv_handle_t *)&a->sigint, NULL);
  uv_close((uv_handle_t *)&a->sigterm, NULL);
  srv_net_free(a->net);
  a->net = NULL;
}

/* A write through a memory mapping of a file that can no longer be written (SQLite maps the
 * database's -shm) is a SIGBUS. The store checks its files before every batch, commit and read
 * (srv_store.h), so this should not happen; if it does anyway, the log says why before the process
 * dies (nothing unacknowledged is lost: frames go out only after their commit). */
static void on_sigbus(int sig) {
  static const char line[] =
      "ERROR main: SIGBUS: a file mapped into memory (the database's -shm) cannot be written "
      "any more; stopping at once\n";
  ssize_t w = write(STDERR_FILENO, line, sizeof line - 1);
  (void)w;
  signal(sig, SIG_DFL);
  raise(sig);
}

static void on_signal(uv_signal_t *h, int signum) {
  (void)h;
  srv_log_info("main", "%s: stopping", signum == SIGINT ? "SIGINT" : "SIGTERM");
  uv_signal_stop(&app.sigint);
  uv_signal_stop(&app.sigterm);
  srv_net_stop(app.net, on_stopped, &app);
}

/* The endgame tables' build is over: the searches use the new set from their next search on. */
static void tables_ready(void *arg, mc_egtb *tables) {
  struct app *a = arg;
  if (srv_search_pool_set_egtb(a->searches, tables) != 0)
    srv_log_error("main", "the new endgame tables cannot be used before the next start");
}

/* Shares of the fast lane's time: levels 3-4 answer within about this long whatever the load,
 * and a search there gets at least FAST_FLOOR_MS. A deep search gets at least DEEP_FLOOR_MS. */
#define FAST_TARGET_MS 60
#define FAST_FLOOR_MS 1
#define DEEP_FLOOR_MS 5

/* The computer's thinker and its search queue, the deep lane's threads sized to the machine, one
 * fast one more per four, one analysis (uv's pool grown to hold them beside the password hashing).
 */
static int start_computer(const srv_config *cfg) {
  int threads = cfg->computer_threads;
  if (threads == 0) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    threads = cpus > 2 ? (int)cpus - 1 : 1;
  }
  int fast = 1 + threads / 4;
  if (getenv("UV_THREADPOOL_SIZE") == NULL) {
    char n[16];
    snprintf(n, sizeof n, "%d", threads + fast + 1 + 4);
    setenv("UV_THREADPOOL_SIZE", n, 0); /* Read by libuv at its first queued work. */
  }
  srv_work_init_uv(&app.work, &app.loop);
  /* The tables are read from the SQLite data directory (a PostgreSQL site's --data is still the
   * server's own directory). */
  srv_egtb_config ec = {
      .dir = cfg->data, .build = strcmp(cfg->egtb_build, "on") == 0, .max_seeds = cfg->egtb_seeds};
  mc_egtb *tables = NULL;
  if ((app.egtb = srv_egtb_new(&app.loop, &ec, &tables)) == NULL) {
    srv_log_error("main", "out of memory");
    return 1;
  }
  srv_search_pool_config pc = {.workers = {fast, threads, 1},
                               .target_ms = {FAST_TARGET_MS, cfg->computer_reply_ms},
                               .floor_ms = {FAST_FLOOR_MS, DEEP_FLOOR_MS},
                               .egtb = tables};
  srv_computer_config cc = {cfg->computer_ms};
  srv_hints_config hc = {cfg->hint_ms, cfg->hints_per_minute};
  srv_analysis_config ac = {cfg->analysis_ms, cfg->analyses_per_hour, cfg->analysis_queue};
  if ((app.searches = srv_search_pool_new(&app.work, &app.time, &pc)) == NULL) {
    srv_log_error("main", "out of memory");
    return 1;
  }
  if (cfg->search_queue[0]) {
    /* The workers' queue, the pool its fallback (srv_search_redis.h). */
    srv_search_redis_config rc = {.url = cfg->search_queue,
                                  .target_ms = {FAST_TARGET_MS, cfg->computer_reply_ms},
                                  .floor_ms = {FAST_FLOOR_MS, DEEP_FLOOR_MS},
                                  .fallback = app.searches};
    int err = srv_search_redis_new(&app.loop, &app.time, &rc, &app.workers);
    if (err != 0) {
      srv_log_error("main", "--search-queue %s: %s", cfg->search_queue,
                    err == SRV_EBADREQ ? "not a redis://HOST:PORT URL" : srv_err_code(err));
      return err == SRV_EBADREQ ? 2 : 1;
    }
    srv_log_info("main",
                 "computer: searches on the workers of %s (in process while none is "
                 "alive)",
                 cfg->search_queue);
  }
  srv_search_queue *queue = app.workers != NULL ? app.workers : app.searches;
  /* With workers, fixed-depth moves (levels 3-4) stay in process, the rest (levels 5-6, hints,
   * analyses) go to the workers (srv_search_redis.h); without, analyses run on the CPUs the moves
   * leave free (srv_search_pool.h). */
  if ((app.computer = srv_computer_new(app.rooms, queue, &app.time, &cc)) == NULL ||
      (app.hints = srv_hints_new(app.rooms, queue, &hc)) == NULL ||
      (app.analysis = srv_analysis_new(queue, app.store, &app.time, &ac)) == NULL) {
    srv_log_error("main", "out of memory");
    return 1;
  }
  srv_egtb_start(app.egtb, tables_ready, &app); /* On failure the server goes on without. */
  srv_rooms_set_computer_games(app.rooms, cfg->computer_max_games);
  srv_rooms_set_computer_shares(app.rooms, cfg->computer_games_per_player,
                                cfg->computer_games_per_ip);
  srv_log_info("main",
               "computer: %d deep search%s at once and %d fast, %d ms a move at level 6 (cut to "
               "answer within %d ms under load), at most %d games (%d a person, %d an address)",
               threads, threads == 1 ? "" : "es", fast, cfg->computer_ms, cfg->computer_reply_ms,
               cfg->computer_max_games, cfg->computer_games_per_player, cfg->computer_games_per_ip);
  return 0;
}

/* How long the server waits at start for a PostgreSQL that does not answer yet, in seconds. */
#define STORE_WAIT_S 60

/* The storage seam's committer for a store on the loop (srv_persist.h). */
static void commit_on_loop(void *ud, srv_store *store, srv_commit_done done, void *arg) {
  int rc = srv_store_commit_async(store, ud, done, arg);
  if (rc != 0)
    done(arg, rc);
}

static void migrate_report(void *ud, const char *table, long rows, long copied) {
  long *total = ud;
  *total += copied;
  printf("  %-15s %8ld rows, %8ld copied, %8ld already there\n", table, rows, copied,
         rows - copied < 0 ? 0 : rows - copied);
}

/* mancala-server migrate --from DIR --to postgresql://...: a site's move from SQLite to
 * PostgreSQL (srv_store_copy()). The server must be stopped (the directory's lock says so). */
static int migrate_main(int argc, char **argv) {
  const char *from = NULL, *to = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--from") == 0 && i + 1 < argc)
      from = argv[++i];
    else if (strcmp(argv[i], "--to") == 0 && i + 1 < argc)
      to = argv[++i];
    else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("usage: mancala-server migrate --from DIR --to postgresql://USER@HOST/DB\n"
             "Copies a site's games, accounts, ratings, chat and keys from the SQLite database in\n"
             "DIR (stop the server first) into PostgreSQL; run twice, it copies nothing again.\n");
      return 0;
    } else {
      fprintf(stderr, "migrate: unknown argument %s (see --help)\n", argv[i]);
      return 2;
    }
  }
  if (from == NULL || to == NULL || !srv_store_is_url(to) || srv_store_is_url(from)) {
    fprintf(stderr, "usage: mancala-server migrate --from DIR --to postgresql://USER@HOST/DB\n");
    return 2;
  }
  srv_log_set_level(SRV_LOG_WARN);
  char err[SRV_STORE_ERR_SIZE] = "";
  srv_store *src = NULL, *dst = NULL;
  struct stat st;
  if (stat(from, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "migrate: %s is not a data directory\n", from);
    return 1;
  }
  int rc = srv_store_open(from, NULL, &src, err);
  if (rc != 0) {
    fprintf(stderr, "migrate: cannot open %s: %s\n", from, err[0] ? err : srv_store_strerror(rc));
    return 1;
  }
  /* A server running on the target keeps its lease: migrate waits for one that just stopped, but
   * never takes the lease over from a live one (that would leave it storing nothing). */
  srv_store_config to_cfg;
  srv_store_config_init(&to_cfg);
  to_cfg.no_takeover = true;
  if ((rc = srv_store_open(to, &to_cfg, &dst, err)) != 0) {
    fprintf(stderr, "migrate: cannot open %s: %s\n", to, err[0] ? err : srv_store_strerror(rc));
    srv_store_close(src);
    return 1;
  }
  printf("migrate: from %s to %s\n", srv_store_path(src), srv_store_path(dst));
  long total = 0;
  rc = srv_store_copy(src, dst, migrate_report, &total);
  if (rc != 0)
    fprintf(stderr, "migrate: %s (nothing was copied)\n", srv_store_last_error(dst));
  else if (total == 0)
    printf("migrate: done: nothing new to copy (the target already holds everything)\n");
  else
    printf("migrate: done: %ld rows copied; start the server with --store %s\n", total,
           srv_store_path(dst));
  srv_store_close(dst);
  srv_store_close(src);
  return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "migrate") == 0)
    return migrate_main(argc - 1, argv + 1);
  srv_config cfg;
  srv_config_defaults(&cfg);
  int rc = srv_config_load(&cfg, argc, argv, stderr);
  if (rc == 1) {
    srv_config_help(stdout, "mancala-server");
    return 0;
  }
  if (rc != 0)
    return 2;
  srv_log_set_level(cfg.log_level);
  srv_log_hook_lws();
  signal(SIGPIPE, SIG_IGN);
  struct sigaction bus;
  memset(&bus, 0, sizeof bus);
  bus.sa_handler = on_sigbus;
  sigaction(SIGBUS, &bus, NULL);
  srv_log_info("main", "mancala-server %s starting (pid %ld)", MANCALA_VERSION, (long)getpid());
  srv_config_log(&cfg);

  /* Storage first: a database that cannot be used stops the server before anything else. */
  srv_store_config scfg;
  srv_store_config_init(&scfg);
  scfg.sync = strcmp(cfg.sync, "normal") == 0 ? SRV_STORE_SYNC_NORMAL : SRV_STORE_SYNC_FULL;
  scfg.max_bytes = (int64_t)cfg.data_max_kib * 1024;
  /* Each SQLite connection is used by one thread: the loop's, the checkpoints' thread's
   * (srv_store_ckpt.c); the workers hash passwords and search moves and never call SQLite. */
  scfg.multi_thread = true;
  scfg.shared = cfg.cluster[0] != '\0'; /* A cluster's nodes share one PostgreSQL. */
  char serr[SRV_STORE_ERR_SIZE] = "";
  if (cfg.store[0] && !srv_store_is_url(cfg.store)) {
    srv_log_error("main", "--store takes a PostgreSQL URL (postgresql://USER@HOST/DB); for SQLite "
                          "give a directory with --data");
    return 2;
  }
  rc = srv_store_open(cfg.store[0] ? cfg.store : cfg.data, &scfg, &app.store, serr);
  /* A database server that is not up yet (a container started beside it): waited for a while. */
  for (int waited = 0; rc == SRV_STORE_EIO && cfg.store[0] && waited < STORE_WAIT_S; waited++) {
    if (waited == 0)
      srv_log_warn("main", "%s; waiting up to %d s for the database", serr, STORE_WAIT_S);
    sleep(1);
    rc = srv_store_open(cfg.store, &scfg, &app.store, serr);
  }
  if (rc != 0) {
    srv_log_error("main", "cannot open the database: %s", serr[0] ? serr : srv_store_strerror(rc));
    return 1;
  }
  if (cfg.store[0])
    srv_log_info("main", "storage: PostgreSQL at %s", srv_store_path(app.store));
  else
    srv_log_info("main", "storage: %s (synchronous %s)", srv_store_path(app.store), cfg.sync);
  unsigned char gamekey[SRV_GAMEID_KEY_LEN];
  if ((rc = srv_store_secret(app.store, "game_id", gamekey, sizeof gamekey)) != 0) {
    srv_log_error("main", "cannot read the key of the public game ids: %s", srv_store_strerror(rc));
    return 1;
  }
  srv_gameid_set_key(gamekey);
  if ((app.api = srv_api_new(app.store)) == NULL)
    return 1;

  if (uv_loop_init(&app.loop) != 0) {
    srv_log_error("main", "cannot create the event loop");
    return 1;
  }
  srv_time_init_uv(&app.time, &app.loop);
  /* Large frames mapped and unmapped whatever came before, and the heap's free memory given back
   * after a burst (srv_heap.h: RSS stayed at 145 MiB after a lobby burst without). */
  if (srv_heap_init(SRV_HEAP_MMAP_THRESHOLD) != 0)
    srv_log_info("main", "the allocator's mmap threshold cannot be set (not glibc's malloc)");
  else if ((app.trimmer = srv_heap_trimmer_new(&app.time, SRV_HEAP_TRIM_PERIOD_MS,
                                               SRV_HEAP_TRIM_FREE)) == NULL) {
    srv_log_error("main", "out of memory");
    return 1;
  }
  app.ident = srv_ident_new();
  app.net = srv_net_new(&app.loop, &cfg, MANCALA_VERSION);
  srv_sink sink = {0};
  if (app.net != NULL)
    srv_net_sink(app.net, &sink);
  app.net_sink = sink;
  if (cfg.cluster[0] && !cfg.store[0]) {
    srv_log_error("main", "--cluster needs --store: the nodes of a cluster share one PostgreSQL");
    return 2;
  }
  if (cfg.cluster[0])
    sink = (srv_sink){cluster_queue, cluster_lost, &app};
  srv_room_limits limits = {
      cfg.abandon_ms, cfg.idle_room_ms,    cfg.finished_room_ms, cfg.rooms_per_player,
      cfg.max_rooms,  cfg.waiting_room_ms, cfg.rooms_per_ip,     cfg.public_rooms_per_ip,
      cfg.rate,       cfg.burst,           cfg.move_deadline_ms};
  app.rooms = app.net && app.ident ? srv_rooms_new(&app.time, app.ident, &sink, &limits) : NULL;
  app.lobby = app.rooms ? srv_lobby_new(app.rooms, &app.time, &sink) : NULL;
  app.myrooms = app.rooms ? srv_myrooms_new(app.rooms, &sink) : NULL;
  app.persist = srv_persist_new(app.store, app.ident, &app.time);
  if (app.rooms == NULL || app.lobby == NULL || app.myrooms == NULL || app.persist == NULL) {
    srv_log_error("main", "out of memory");
    return 1;
  }
  /* Batches commit on the loop without stopping it: a network database's goes out and its result
   * comes back later; SQLite's (--sync full) is synced by a thread of the store's own. */
  srv_persist_set_committer(app.persist, &(srv_committer){commit_on_loop, &app.loop});
  if ((rc = srv_store_watch(app.store, &app.loop)) != 0) {
    srv_log_error("main", "cannot watch the database: %s", srv_store_strerror(rc));
    return 1;
  }
  srv_recorder recorder = {srv_persist_record, app.persist};
  srv_rooms_set_recorder(app.rooms, &recorder);
  /* The computer before recovery: a restored game where it is to move gets its search. */
  int computer_rc = cfg.computer_max_games > 0 ? start_computer(&cfg) : 0;
  if (computer_rc != 0)
    return computer_rc; /* 2: a bad --search-queue. */
  /* Recovery before listening: every stored room and game is back before a client can ask. A
   * cluster's node does not: another node may run them; each is taken over when it is needed. */
  if (!cfg.cluster[0] && srv_recover(app.store, app.ident, app.rooms, &app.time) != 0) {
    srv_log_error("main", "cannot recover the stored games from %s", srv_store_path(app.store));
    return 1;
  }
  app.turn = (srv_turn){.lobby = app.lobby,
                        .persist = app.persist,
                        .rooms = app.rooms,
                        .net = {turn_cut, turn_restamp, turn_release, &app},
                        .myrooms = app.myrooms};
  srv_net_set_turn_hook(app.net, srv_turn_end, &app.turn);
  srv_net_routes routes = {gauges, &app, srv_api_get, app.api, name_lookup, &app};
  if (app.analysis != NULL) {
    srv_api_analyser an = {srv_analysis_answer, srv_analysis_served, app.analysis};
    srv_api_set_analyser(app.api, &an);
  }
  srv_net_set_routes(app.net, &routes);
  app.dispatch.rooms = app.rooms;
  app.dispatch.lobby = app.lobby;
  app.dispatch.myrooms = app.myrooms;
  app.dispatch.ident = app.ident;
  app.dispatch.sink = sink;
  app.dispatch.store.restore = srv_persist_restore;
  app.dispatch.store.player = srv_persist_player;
  app.dispatch.store.ud = app.persist;
  app.dispatch.time = &app.time;
  app.dispatch.players_per_addr = cfg.players_per_ip;
  srv_lobby_set_limit(app.lobby, cfg.watchers_per_ip);
  srv_lobby_set_per_game(app.lobby, cfg.lobby_rooms);
  /* Accounts hash passwords on libuv's thread pool; their results come back to this loop. */
  srv_work_init_uv(&app.work, &app.loop); /* Again when the computer did: the same table. */
  if (srv_api_use_work(app.api, &app.work) != 0)
    srv_log_warn("main", "the archive's reads stay on the loop (no connection of their own)");
  if (srv_persist_use_work(app.persist, &app.work) != 0)
    srv_log_warn("main",
                 "hello's reads of known tokens stay on the loop (no connection of their own)");
  srv_accounts_config acfg;
  srv_accounts_config_init(&acfg);
  acfg.attempts_per_name = cfg.login_attempts;
  acfg.attempts_per_addr = cfg.login_attempts_ip;
  acfg.window_ms = (int64_t)cfg.login_window_s * 1000;
  acfg.name_lookups_per_addr = cfg.name_lookups_ip;
  acfg.sessions_per_account = cfg.sessions_per_account;
  srv_persist_set_session_days(app.persist, cfg.session_idle_days);
  app.accounts = srv_accounts_new(app.dispatch.rooms, app.dispatch.ident, &app.dispatch.sink,
                                  app.store, app.persist, &app.work, &app.time, &acfg);
  if (app.accounts == NULL) {
    srv_log_error("main", "cannot start the accounts (out of memory, or libsodium failed)");
    return 1;
  }
  app.dispatch.accounts = app.accounts;
  if (cfg.cluster[0]) {
    srv_cluster_config ccfg = {cfg.cluster, cfg.cluster_lease_ms, 0};
    srv_cluster_deps deps = {.loop = &app.loop,
                             .time = &app.time,
                             .rooms = app.rooms,
                             .lobby = app.lobby,
                             .myrooms = app.myrooms,
                             .ident = app.ident,
                             .store = app.store,
                             .dispatch = &app.dispatch,
                             .work = &app.work,
                             .net = app.net_sink,
                             .stamp = srv_net_stamp,
                             .stamp_ud = app.net};
    if ((rc = srv_cluster_new(&ccfg, &deps, &app.cluster)) != 0) {
      srv_log_error("main", "cannot join the cluster at %s: %s", cfg.cluster, srv_err_code(rc));
      return 1;
    }
  }
  if ((rc = uv_signal_init(&app.loop, &app.sigint)) != 0 ||
      (rc = uv_signal_init(&app.loop, &app.sigterm)) != 0) {
    srv_log_error("main", "uv_signal_init: %s", uv_strerror(rc));
    return 1;
  }
  app.sigint.data = app.sigterm.data = SRV_OWN_TAG;
  if ((rc = uv_signal_start(&app.sigint, on_signal, SIGINT)) != 0 ||
      (rc = uv_signal_start(&app.sigterm, on_signal, SIGTERM)) != 0) {
    srv_log_error("main", "uv_signal_start: %s", uv_strerror(rc));
    return 1;
  }

  int status = 0;
  if (srv_net_start(app.net, &app.dispatch) != 0) {
    status = 1;
    uv_signal_stop(&app.sigint);
    uv_signal_stop(&app.sigterm);
    srv_net_stop(app.net, on_stopped, &app);
  }
  uv_run(&app.loop, UV_RUN_DEFAULT);

  srv_computer_free(app.computer); /* Its searches ended with the rooms, before uv_run returned. */
  srv_hints_free(app.hints);       /* So did the hints'. */
  srv_search_redis_free(app.workers);
  srv_search_pool_free(app.searches);
  srv_egtb_free(app.egtb);
  /* Every password job has had its done call (uv_run() waits for them), applying nothing. */
  srv_accounts_free(app.accounts);
  srv_cluster_free(app.cluster);
  srv_persist_free(app.persist);
  srv_ident_free(app.ident);
  srv_api_free(app.api);
  /* What the last commit holds was never acknowledged (a frame goes out only after the commit
   * of its turn, and the connections are gone): its failure is logged, and the stop is still the
   * clean stop SIGTERM asked for (exit 0, docs/server.md). */
  rc = srv_store_commit(app.store);
  if (rc != 0)
    srv_log_error("main", "the last commit failed: %s (nothing acknowledged was in it)",
                  srv_store_strerror(rc));
  srv_store_close(app.store);
  uv_run(&app.loop, UV_RUN_NOWAIT); /* The store's handles on the loop close (PostgreSQL). */
  srv_proto_encode_cleanup();
  srv_gameid_cleanup();
  rc = uv_loop_close(&app.loop);
  if (rc != 0) {
    srv_log_error("main", "the loop still has handles at exit: %s", uv_strerror(rc));
    status = 1;
  }
  srv_log_flush(); /* The counts of repeated lines left out (srv_log.h). */
  if (status == 0)
    srv_log_info("main", "stopped cleanly");
  return status;
}
