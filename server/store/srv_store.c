/* Durable storage in SQLite (see srv_store.h for the contract): opening and closing, errors, and
 * the files under the store. The rest of the store is in the srv_store_*.c files named in
 * srv_store_int.h. */
#include "srv_store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- Errors --------------------------------------------------------------------------------- */

const char *srv_store_strerror(int err) {
  switch (err) {
  case SRV_STORE_EINVAL:
    return "invalid argument";
  case SRV_STORE_ENOMEM:
    return "out of memory";
  case SRV_STORE_EIO:
    return "input/output error";
  case SRV_STORE_EFULL:
    return "the disk is full";
  case SRV_STORE_EACCES:
    return "permission denied";
  case SRV_STORE_EREADONLY:
    return "the database is read-only";
  case SRV_STORE_ELOCKED:
    return "the database is locked by another process";
  case SRV_STORE_ECORRUPT:
    return "the file is not a Mancala Online database or is damaged";
  case SRV_STORE_ENEWER:
    return "the database schema is newer than this program";
  case SRV_STORE_ENOTFOUND:
    return "not found";
  case SRV_STORE_ECONFLICT:
    return "the row conflicts with a stored one";
  case SRV_STORE_EBADROW:
    return "a stored move does not replay";
  case SRV_STORE_EINTERNAL:
    return "internal storage error";
  case SRV_STORE_EMOVED:
    return "the database file was deleted or replaced while the server ran";
  default:
    return "unknown storage error";
  }
}

/* Maps a SQLite result code (extended or primary) to a SRV_STORE_E* code. */
static int map_sqlite(int rc) {
  switch (rc & 0xff) {
  case SQLITE_NOMEM:
    return SRV_STORE_ENOMEM;
  case SQLITE_FULL:
    return SRV_STORE_EFULL;
  case SQLITE_IOERR:
    return SRV_STORE_EIO;
  case SQLITE_PERM:
  case SQLITE_AUTH:
  case SQLITE_CANTOPEN:
    return SRV_STORE_EACCES;
  case SQLITE_READONLY:
    return SRV_STORE_EREADONLY;
  case SQLITE_BUSY:
  case SQLITE_LOCKED:
    return SRV_STORE_ELOCKED;
  case SQLITE_CORRUPT:
  case SQLITE_NOTADB:
    return SRV_STORE_ECORRUPT;
  case SQLITE_CONSTRAINT:
    return SRV_STORE_ECONFLICT;
  default:
    return SRV_STORE_EINTERNAL;
  }
}

void srv_store__set_error(char *buf, const char *fmt, ...) {
  if (buf == NULL)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, SRV_STORE_ERR_SIZE, fmt, ap);
  va_end(ap);
}

int srv_store__fail(srv_store *store, int rc, const char *what) {
  int err = map_sqlite(rc);
  srv_store__set_error(store->error, "%s: %s: %s (%s)", store->path, what, srv_store_strerror(err),
                       sqlite3_errmsg(store->db));
  return err;
}

const char *srv_store_last_error(const srv_store *store) {
  return store ? store->error : "";
}

const char *srv_store_path(const srv_store *store) {
  return store ? store->path : NULL;
}

/* ---- Opening -------------------------------------------------------------------------------- */

void srv_store_config_init(srv_store_config *config) {
  config->sync = SRV_STORE_SYNC_FULL;
  config->busy_timeout_ms = 1000;
  config->max_bytes = 0;
  config->multi_thread = false;
  config->checkpoint_pages = 0;
  config->shared = false;
  config->no_takeover = false;
}

/* Creates dir and its missing parents (like mkdir -p). Returns 0 or an errno value. */
static int make_dirs(const char *dir) {
  size_t len = strlen(dir);
  char *copy = malloc(len + 1);
  if (copy == NULL)
    return ENOMEM;
  memcpy(copy, dir, len + 1);
  int rc = 0;
  for (char *p = copy + 1;; p++) {
    if (*p == '/' || *p == '\0') {
      char saved = *p;
      *p = '\0';
      if (mkdir(copy, 0750) != 0 && errno != EEXIST) {
        rc = errno;
        break;
      }
      *p = saved;
      if (saved == '\0')
        break;
    }
  }
  free(copy);
  if (rc == 0) {
    struct stat st;
    if (stat(dir, &st) != 0)
      rc = errno;
    else if (!S_ISDIR(st.st_mode))
      rc = ENOTDIR;
  }
  return rc;
}

/* Like srv_store__query_int() for a pragma that returns text, copied into buf. */
static int exec_text(sqlite3 *db, const char *sql, char *buf, size_t size) {
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    return rc;
  buf[0] = '\0';
  rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW) {
    const unsigned char *t = sqlite3_column_text(stmt, 0);
    snprintf(buf, size, "%s", t ? (const char *)t : "");
    rc = SQLITE_OK;
  } else if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  }
  sqlite3_finalize(stmt);
  return rc;
}

/* Opens the database file and configures the connection. */
static int open_db(srv_store *store, const srv_store_config *config) {
  if (config->multi_thread) {
    /* Before SQLite initialises itself (its first open); later both fail with SQLITE_MISUSE and
     * change nothing, which is safe: SQLite then keeps its locks. */
    (void)sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  }
  int rc = sqlite3_open_v2(store->path, &store->db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
  if (rc != SQLITE_OK)
    return srv_store__fail(store, rc, "cannot open the database");
  sqlite3_extended_result_codes(store->db, 1);
  if (sqlite3_db_readonly(store->db, "main") == 1) {
    srv_store__set_error(store->error, "%s: %s: the file is not writable by this user", store->path,
                         srv_store_strerror(SRV_STORE_EREADONLY));
    return SRV_STORE_EREADONLY;
  }
  sqlite3_busy_timeout(store->db, config->busy_timeout_ms < 0 ? 1000 : config->busy_timeout_ms);
  char mode[16];
  rc = exec_text(store->db, "PRAGMA journal_mode = WAL", mode, sizeof mode);
  if (rc != SQLITE_OK)
    return srv_store__fail(store, rc, "cannot turn on write-ahead logging");
  if (strcmp(mode, "wal") != 0) {
    srv_store__set_error(store->error,
                         "%s: cannot turn on write-ahead logging (journal mode is \"%s\")",
                         store->path, mode);
    return SRV_STORE_EIO;
  }
  /* The synchronous setting (see srv_store.h): FULL fsyncs the WAL at every commit, so an
   * acknowledged move survives power loss; NORMAL survives a process crash only. */
  store->sync_full = config->sync != SRV_STORE_SYNC_NORMAL;
  rc = sqlite3_exec(store->db,
                    config->sync == SRV_STORE_SYNC_NORMAL ? "PRAGMA synchronous = NORMAL"
                                                          : "PRAGMA synchronous = FULL",
                    NULL, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(store->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
  /* SQLite copies the log into the database (a checkpoint: writes and two fsyncs) every 1,000
   * pages of log by default, several times a second under load, and a busy table's last page is
   * logged again at every commit: every 10,000 pages (40 MiB of log) copies each such page once
   * where it copied it ten times: 4 to 7% less server CPU a move (issue 22). A store bound to a
   * loop copies on a thread of its own instead (srv_store_ckpt.c). */
  store->ckpt_pages = config->checkpoint_pages > 0 ? config->checkpoint_pages : 10000;
  if (rc == SQLITE_OK) {
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA wal_autocheckpoint = %d", store->ckpt_pages);
    rc = srv_store__query_int(store->db, sql, NULL);
  }
  if (rc == SQLITE_OK && config->max_bytes > 0) {
    long long page = 4096;
    char sql[64];
    rc = srv_store__query_int(store->db, "PRAGMA page_size", &page);
    snprintf(sql, sizeof sql, "PRAGMA max_page_count = %lld",
             (long long)(config->max_bytes / (page > 0 ? page : 4096)) + 1);
    if (rc == SQLITE_OK)
      rc = srv_store__query_int(store->db, sql, NULL);
  }
  if (rc != SQLITE_OK)
    return srv_store__fail(store, rc, "cannot configure the database");
  return 0;
}

/* Sets store->path to a copy of path (borrowed), and its -wal and -shm names in the same
 * allocation. Returns 0 or SRV_STORE_ENOMEM. */
static int set_paths(srv_store *store, const char *path) {
  size_t n = strlen(path), each = n + sizeof "-wal";
  char *p = malloc(3 * each);
  if (p == NULL)
    return SRV_STORE_ENOMEM;
  memcpy(p, path, n + 1);
  store->wal_path = p + each;
  memcpy(store->wal_path, path, n);
  memcpy(store->wal_path + n, "-wal", sizeof "-wal");
  store->shm_path = p + 2 * each;
  memcpy(store->shm_path, path, n);
  memcpy(store->shm_path + n, "-shm", sizeof "-shm");
  store->path = p;
  return 0;
}

/* Takes the directory lock (see srv_store.h) without waiting. */
static int lock_dir(srv_store *store, const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, SRV_STORE_LOCK_FILE);
  store->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
  if (store->lock_fd < 0) {
    int e = errno;
    srv_store__set_error(store->error, "%s: cannot open the lock file: %s", path, strerror(e));
    return e == EROFS                  ? SRV_STORE_EREADONLY
           : e == EACCES || e == EPERM ? SRV_STORE_EACCES
                                       : SRV_STORE_EIO;
  }
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  if (fcntl(store->lock_fd, F_SETLK, &fl) == 0)
    return 0;
  int e = errno;
  if (e != EACCES && e != EAGAIN) {
    srv_store__set_error(store->error, "%s: cannot lock: %s", path, strerror(e));
    return SRV_STORE_EIO;
  }
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  long pid = fcntl(store->lock_fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK ? (long)fl.l_pid : 0;
  srv_store__set_error(store->error,
                       "%s: %s: another server (process %ld) is using this data directory", dir,
                       srv_store_strerror(SRV_STORE_ELOCKED), pid);
  return SRV_STORE_ELOCKED;
}

int srv_store_open(const char *dir, const srv_store_config *config, srv_store **out, char *err) {
  if (out == NULL)
    return SRV_STORE_EINVAL;
  *out = NULL;
  if (err)
    err[0] = '\0';
  if (dir == NULL || dir[0] == '\0') {
    srv_store__set_error(err, "no data directory given");
    return SRV_STORE_EINVAL;
  }
  if (srv_store_is_url(dir)) {
    srv_store *store = calloc(1, sizeof *store);
    if (store == NULL)
      return SRV_STORE_ENOMEM;
    int rc = srv_store__pg_open(store, dir, config != NULL && config->shared,
                                config != NULL && config->no_takeover);
    if (rc != 0) {
      srv_store__set_error(err, "%s", store->error[0] ? store->error : srv_store_strerror(rc));
      srv_store_close(store);
      return rc;
    }
    store->error[0] = '\0';
    *out = store;
    return 0;
  }
  srv_store_config defaults;
  if (config == NULL) {
    srv_store_config_init(&defaults);
    config = &defaults;
  }
  int e = make_dirs(dir);
  if (e != 0) {
    srv_store__set_error(err, "%s: cannot create the data directory: %s", dir, strerror(e));
    return e == EACCES || e == EPERM || e == EROFS ? SRV_STORE_EACCES
           : e == ENOMEM                           ? SRV_STORE_ENOMEM
           : e == ENOSPC                           ? SRV_STORE_EFULL
                                                   : SRV_STORE_EIO;
  }
  srv_store *store = calloc(1, sizeof *store);
  size_t len = strlen(dir) + sizeof("/" SRV_STORE_FILE);
  char *path = malloc(len);
  if (path != NULL)
    snprintf(path, len, "%s/%s", dir, SRV_STORE_FILE);
  if (store == NULL || path == NULL || set_paths(store, path) != 0) {
    free(path);
    free(store);
    srv_store__set_error(err, "%s: out of memory", dir);
    return SRV_STORE_ENOMEM;
  }
  free(path);
  store->lock_fd = -1;
  int rc = 0;
  /* Unreadable or unwritable files get a plain message before SQLite says anything. */
  if (access(store->path, F_OK) == 0 && access(store->path, R_OK) != 0) {
    rc = SRV_STORE_EACCES;
    srv_store__set_error(store->error, "%s: cannot read the database file: %s", store->path,
                         strerror(errno));
  } else if (access(store->path, F_OK) == 0 && access(store->path, W_OK) != 0) {
    rc = SRV_STORE_EREADONLY;
    srv_store__set_error(store->error, "%s: the database file is read-only: %s", store->path,
                         strerror(errno));
  } else if (access(dir, W_OK | X_OK) != 0) {
    /* SQLite creates the write-ahead log next to the database, and we the lock file. */
    rc = errno == EROFS ? SRV_STORE_EREADONLY : SRV_STORE_EACCES;
    srv_store__set_error(store->error, "%s: the data directory is not writable: %s", dir,
                         strerror(errno));
  }
  if (rc == 0)
    rc = lock_dir(store, dir);
  if (rc == 0)
    rc = open_db(store, config);
  if (rc == 0)
    rc = srv_store__migrate(store);
  if (rc == 0)
    rc = srv_store__prepare_all(store);
  if (rc != 0) {
    srv_store__set_error(err, "%s", store->error);
    srv_store_close(store);
    return rc;
  }
  store->error[0] = '\0';
  srv_store__note_wal(store);
  *out = store;
  return 0;
}

int srv_store_open_reader(const srv_store *main, srv_store **out) {
  if (main == NULL || out == NULL)
    return SRV_STORE_EINVAL;
  *out = NULL;
  if (main->pg != NULL) {
    srv_store *store = calloc(1, sizeof *store);
    if (store == NULL)
      return SRV_STORE_ENOMEM;
    int rc = srv_store__pg_open_reader(main, store);
    if (rc != 0) {
      srv_store_close(store);
      return rc;
    }
    *out = store;
    return 0;
  }
  srv_store *store = calloc(1, sizeof *store);
  if (store == NULL || set_paths(store, main->path) != 0) {
    free(store);
    return SRV_STORE_ENOMEM;
  }
  store->lock_fd = -1; /* The directory lock is the main connection's (one per process). */
  store->reader = true;
  /* In WAL mode this connection reads the last committed state while the main one holds its
   * batch open; query_only makes sure it never takes a write lock. */
  int rc =
      sqlite3_open_v2(store->path, &store->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_extended_result_codes(store->db, 1);
    sqlite3_busy_timeout(store->db, 1000);
    rc = sqlite3_exec(store->db, "PRAGMA query_only = 1", NULL, NULL, NULL);
  }
  int err = rc == SQLITE_OK ? srv_store__prepare_all(store)
                            : srv_store__fail(store, rc, "cannot open a reader");
  if (err != 0) {
    srv_store_close(store);
    return err;
  }
  srv_store__note_wal(store);
  *out = store;
  return 0;
}

void srv_store_close(srv_store *store) {
  if (store == NULL)
    return;
  srv_store__pg_close(store);
  srv_store__sync_close(store);
  srv_store__ckpt_close(store);
  if (store->in_txn && store->db)
    sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
  srv_store__finalize_all(store);
  sqlite3_close(store->db);
  if (store->lock_fd >= 0)
    close(store->lock_fd); /* Releases the directory lock. */
  free(store->ops);
  free(store->failed);
  free(store->moves);
  free(store->path);
  free(store);
}

bool srv_store_is_network(const srv_store *store) {
  return store != NULL && store->pg != NULL;
}

const char *srv_store_backend(const srv_store *store) {
  return store && store->pg ? "postgresql" : "sqlite";
}

bool srv_store_connected(const srv_store *store) {
  return store != NULL && (store->pg == NULL || srv_store__pg_up(store));
}

/* ---- The files under the store (see srv_store.h) ------------------------------------------- */

void srv_store__note_wal(srv_store *store) {
  struct stat st;
  if (store->wal_ino == 0 && stat(store->wal_path, &st) == 0) {
    store->wal_dev = st.st_dev;
    store->wal_ino = st.st_ino;
  }
}

int srv_store__check_files(srv_store *store, bool write) {
  if (store->pg != NULL)
    return 0; /* A network database: no files of ours. */
  if (store->moved)
    return SRV_STORE_EMOVED;
  int moved = 0;
  struct stat st;
  if (sqlite3_file_control(store->db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK)
    moved = 0;
  if (!moved && store->wal_ino != 0 &&
      (stat(store->wal_path, &st) != 0 || st.st_ino != store->wal_ino ||
       st.st_dev != store->wal_dev))
    moved = 1;
  if (moved) {
    store->moved = true;
    srv_store__set_error(
        store->error,
        "%s: %s: nothing is written any more; stop the server, restore the file from a "
        "backup and start it again",
        store->path, srv_store_strerror(SRV_STORE_EMOVED));
    return SRV_STORE_EMOVED;
  }
  const char *paths[] = {store->shm_path, store->path, store->wal_path};
  for (int i = 0; i < (write ? 3 : 1); i++) {
    /* One call a file (this runs twice a batch): a file that is not there is no refusal. */
    if (access(paths[i], W_OK) != 0 && errno != ENOENT) {
      srv_store__set_error(store->error, "%s: %s (%s): refused until it is writable again",
                           paths[i], srv_store_strerror(SRV_STORE_EACCES), strerror(errno));
      return SRV_STORE_EACCES;
    }
  }
  return 0;
}

/* ---- Memory ---------------------------------------------------------------------------------- */

int srv_store__grow(void **items, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return 0;
  size_t cap2 = *cap ? *cap * 2 : 64;
  while (cap2 < need)
    cap2 *= 2;
  void *p = realloc(*items, cap2 * size);
  if (p == NULL)
    return SRV_STORE_ENOMEM;
  *items = p;
  *cap = cap2;
  return 0;
}
