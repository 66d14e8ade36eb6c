/* Helpers shared by the storage tests (see store_util.h). */
#include "store_util.h"

#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* A new empty directory under $TMPDIR (or /tmp), readable by everybody so that a check run as
 * nobody can reach the paths inside; aborts when it cannot be made. */
void tmp_dir(char *buf, size_t size) {
  const char *base = getenv("TMPDIR");
  snprintf(buf, size, "%s/mancala-store-XXXXXX", base && base[0] ? base : "/tmp");
  if (mkdtemp(buf) == NULL || chmod(buf, 0755) != 0) {
    perror("mkdtemp");
    abort();
  }
}

/* Removes path and, for a directory, everything in it. */
void rm_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0)
    return;
  if (S_ISDIR(st.st_mode)) {
    chmod(path, 0700);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      char child[1024];
      int n = snprintf(child, sizeof child, "%s/%s", path, e->d_name);
      if (n > 0 && (size_t)n < sizeof child)
        rm_tree(child);
    }
    if (d != NULL)
      closedir(d);
    rmdir(path);
  } else {
    unlink(path);
  }
}

void db_path(const char *dir, char *buf, size_t size) {
  snprintf(buf, size, "%s/%s", dir, SRV_STORE_FILE);
}

/* Runs sql on the database file of dir with a raw connection; aborts on error. */
void raw_exec(const char *dir, const char *sql) {
  char path[512];
  sqlite3 *db = NULL;
  char *msg = NULL;
  db_path(dir, path, sizeof path);
  if (sqlite3_open(path, &db) != SQLITE_OK ||
      sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
    fprintf(stderr, "raw_exec(%s): %s\n", sql, msg ? msg : sqlite3_errmsg(db));
    abort();
  }
  sqlite3_close(db);
}

/* Returns the integer that sql returns on the database of dir (-1 when no row). */
long long raw_int(const char *dir, const char *sql) {
  char path[512];
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  long long v = -1;
  db_path(dir, path, sizeof path);
  if (sqlite3_open(path, &db) != SQLITE_OK ||
      sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "raw_int(%s): %s\n", sql, sqlite3_errmsg(db));
    abort();
  }
  if (sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

/* Opens a store on dir with a short busy timeout; returns the code and leaves the message in err.
 */
int open_store(const char *dir, srv_store_sync sync, srv_store **out, char *err) {
  srv_store_config cfg;
  srv_store_config_init(&cfg);
  cfg.sync = sync;
  cfg.busy_timeout_ms = 50;
  return srv_store_open(dir, &cfg, out, err);
}

/* Runs fn(arg) in a child process that runs as nobody when this process is root (root ignores
 * file permissions, so permission checks need someone else). Returns fn's result (a small
 * non-negative number), or -1 when no unprivileged user is available. */
int run_unprivileged(int (*fn)(void *), void *arg) {
  fflush(NULL);
  if (geteuid() != 0)
    return fn(arg);
  struct passwd *pw = getpwnam("nobody");
  if (pw == NULL)
    return -1;
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    if (setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
      _exit(255);
    _exit(fn(arg));
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) == 255)
    return -1;
  return WEXITSTATUS(status);
}

/* A seat for a person. */
srv_store_seat mk_seat(const char *player, const char *name) {
  srv_store_seat s;
  memset(&s, 0, sizeof s);
  snprintf(s.player, sizeof s.player, "%s", player);
  snprintf(s.name, sizeof s.name, "%s", name);
  return s;
}

srv_store_player mk_player(const char *id, const char *name) {
  srv_store_player p;
  memset(&p, 0, sizeof p);
  snprintf(p.id, sizeof p.id, "%s", id);
  snprintf(p.name, sizeof p.name, "%s", name);
  p.created_ms = 1764374400000LL;
  return p;
}

void put_player(srv_store *store, const char *id, const char *name, int fill) {
  srv_store_player p = mk_player(id, name);
  uint8_t hash[32];
  memset(hash, fill, sizeof hash);
  ASSERT_EQ(srv_store_player_put(store, &p), 0);
  ASSERT_EQ(srv_store_session_put(store, hash, id, p.created_ms), 0);
}

/* A game of kind with its default board in room, south and north seated. */
srv_store_game mk_game(const char *room, mc_kind kind, srv_store_seat south, srv_store_seat north) {
  srv_store_game g;
  memset(&g, 0, sizeof g);
  snprintf(g.room, sizeof g.room, "%s", room);
  g.game_no = 1;
  mc_rules_init(&g.rules, kind);
  g.seats[0] = south;
  g.seats[1] = north;
  g.started_ms = 1764374400000LL; /* 2025-11-29 00:00 UTC */
  return g;
}

/* A room row in status, seated like g. */
srv_store_room mk_room(const char *code, srv_store_status status, const srv_store_game *g) {
  srv_store_room r;
  memset(&r, 0, sizeof r);
  snprintf(r.code, sizeof r.code, "%s", code);
  r.settings = "{\"visibility\":\"public\"}";
  if (g != NULL) {
    r.seats[0] = g->seats[0];
    r.seats[1] = g->seats[1];
  }
  r.status = status;
  return r;
}

/* Plays the lowest legal house of live (a real game) and records it for game id in store.
 * Returns the house played, or 0 when the game is over. */
int play_and_store(srv_store *store, int64_t id, mc_game *live, int64_t at) {
  uint8_t legal[MC_MAX_HOUSES];
  int n = mc_game_legal(live, legal);
  if (n <= 0)
    return 0;
  int house = legal[(size_t)at % (size_t)n];
  srv_store_move m = {(int)mc_game_ply(live), mc_game_pos(live)->turn, house, -1, at};
  if (mc_game_play(live, house, NULL) != 0 || srv_store_move_add(store, id, &m) != 0)
    return -1;
  return house;
}
