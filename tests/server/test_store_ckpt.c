/* SQLite's checkpoint off the loop (server/store/srv_store_ckpt.c): once the store is bound to a
 * loop, the log is copied into the database by the store's thread, not inside a COMMIT on the
 * loop; the loop copies only what was committed while the thread ran, and the log starts again.
 *
 * Who wrote the database file is seen from outside the store: a file system of this test wraps
 * SQLite's own and counts the writes to every main database file by thread (in WAL mode only a
 * checkpoint writes the database). It can also hold the other threads' first write, so that the
 * loop commits while the thread's checkpoint is under way. The log's reuse is seen in its size. */
#include "store_util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <uv.h>

#include "srv_store_int.h" /* srv_store__ckpt_wait() */

/* ---- A file system that counts the database's writes by thread ------------------------------ */

static sqlite3_vfs *real_vfs;
static sqlite3_vfs count_vfs;
static pthread_t loop_thread;
static atomic_int loop_writes, other_writes;
/* The gate: while closed, a write of another thread waits (and says so in held). */
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static bool gate_closed, held;

typedef struct count_file {
  sqlite3_file base;
  bool main_db;
  sqlite3_file *real; /* Right after this struct. */
} count_file;

static sqlite3_file *real_of(sqlite3_file *f) {
  return ((count_file *)f)->real;
}

static int c_close(sqlite3_file *f) {
  return real_of(f)->pMethods->xClose(real_of(f));
}
static int c_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off) {
  return real_of(f)->pMethods->xRead(real_of(f), buf, n, off);
}
static int c_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off) {
  if (((count_file *)f)->main_db) {
    if (pthread_equal(pthread_self(), loop_thread)) {
      atomic_fetch_add(&loop_writes, 1);
    } else {
      atomic_fetch_add(&other_writes, 1);
      pthread_mutex_lock(&gate_mu);
      held = true;
      pthread_cond_broadcast(&gate_cv);
      while (gate_closed)
        pthread_cond_wait(&gate_cv, &gate_mu);
      pthread_mutex_unlock(&gate_mu);
    }
  }
  return real_of(f)->pMethods->xWrite(real_of(f), buf, n, off);
}
static int c_truncate(sqlite3_file *f, sqlite3_int64 size) {
  return real_of(f)->pMethods->xTruncate(real_of(f), size);
}
static int c_sync(sqlite3_file *f, int flags) {
  return real_of(f)->pMethods->xSync(real_of(f), flags);
}
static int c_size(sqlite3_file *f, sqlite3_int64 *size) {
  return real_of(f)->pMethods->xFileSize(real_of(f), size);
}
static int c_lock(sqlite3_file *f, int level) {
  return real_of(f)->pMethods->xLock(real_of(f), level);
}
static int c_unlock(sqlite3_file *f, int level) {
  return real_of(f)->pMethods->xUnlock(real_of(f), level);
}
static int c_reserved(sqlite3_file *f, int *out) {
  return real_of(f)->pMethods->xCheckReservedLock(real_of(f), out);
}
static int c_control(sqlite3_file *f, int op, void *arg) {
  return real_of(f)->pMethods->xFileControl(real_of(f), op, arg);
}
static int c_sector(sqlite3_file *f) {
  return real_of(f)->pMethods->xSectorSize(real_of(f));
}
static int c_device(sqlite3_file *f) {
  return real_of(f)->pMethods->xDeviceCharacteristics(real_of(f));
}
static int c_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **out) {
  return real_of(f)->pMethods->xShmMap(real_of(f), region, size, extend, out);
}
static int c_shm_lock(sqlite3_file *f, int offset, int n, int flags) {
  return real_of(f)->pMethods->xShmLock(real_of(f), offset, n, flags);
}
static void c_shm_barrier(sqlite3_file *f) {
  real_of(f)->pMethods->xShmBarrier(real_of(f));
}
static int c_shm_unmap(sqlite3_file *f, int del) {
  return real_of(f)->pMethods->xShmUnmap(real_of(f), del);
}
static int c_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **out) {
  return real_of(f)->pMethods->xFetch(real_of(f), off, n, out);
}
static int c_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p) {
  return real_of(f)->pMethods->xUnfetch(real_of(f), off, p);
}

static const sqlite3_io_methods count_methods = {
    3,          c_close,       c_read,      c_write,   c_truncate, c_sync,   c_size,
    c_lock,     c_unlock,      c_reserved,  c_control, c_sector,   c_device, c_shm_map,
    c_shm_lock, c_shm_barrier, c_shm_unmap, c_fetch,   c_unfetch,
};

static int c_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out) {
  (void)vfs;
  count_file *p = (count_file *)f;
  p->real = (sqlite3_file *)(p + 1);
  p->main_db = (flags & SQLITE_OPEN_MAIN_DB) != 0;
  int rc = real_vfs->xOpen(real_vfs, name, p->real, flags, out);
  p->base.pMethods = p->real->pMethods != NULL ? &count_methods : NULL;
  return rc;
}

/* Makes the counting file system SQLite's default, and this thread the loop's. */
static void count_install(void) {
  real_vfs = sqlite3_vfs_find(NULL);
  ASSERT(real_vfs != NULL && real_vfs->iVersion >= 1);
  count_vfs = *real_vfs;
  count_vfs.szOsFile = (int)sizeof(count_file) + real_vfs->szOsFile;
  count_vfs.zName = "count";
  count_vfs.xOpen = c_open;
  count_vfs.pNext = NULL;
  ASSERT_EQ(sqlite3_vfs_register(&count_vfs, 1), SQLITE_OK);
  loop_thread = pthread_self();
}

static void gate_set(bool closed) {
  pthread_mutex_lock(&gate_mu);
  gate_closed = closed;
  held = false;
  pthread_cond_broadcast(&gate_cv);
  pthread_mutex_unlock(&gate_mu);
}

/* Waits until another thread's write waits at the closed gate (a minute at most: a thread that
 * never writes fails the test instead of hanging it). */
static void gate_wait_held(void) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 60;
  pthread_mutex_lock(&gate_mu);
  int rc = 0;
  while (!held && rc == 0)
    rc = pthread_cond_timedwait(&gate_cv, &gate_mu, &until);
  bool ok = held;
  pthread_mutex_unlock(&gate_mu);
  ASSERT(ok);
}

/* ---- The store ------------------------------------------------------------------------------ */

#define PAGES 100 /* The threshold of these tests: 100 pages of log. */

/* A store on a new directory (its path in dir) with a threshold of PAGES, bound to a new loop. */
static void open_bound(char *dir, size_t size, srv_store **s, uv_loop_t *loop) {
  char err[SRV_STORE_ERR_SIZE];
  srv_store_config cfg;
  srv_store_config_init(&cfg);
  cfg.sync = SRV_STORE_SYNC_NORMAL;
  cfg.checkpoint_pages = PAGES;
  tmp_dir(dir, size);
  ASSERT_EQ(srv_store_open(dir, &cfg, s, err), 0);
  ASSERT_EQ(uv_loop_init(loop), 0);
  ASSERT_EQ(srv_store_watch(*s, loop), 0);
}

static void close_all(srv_store *s, uv_loop_t *loop) {
  srv_store_close(s);
  uv_run(loop, UV_RUN_NOWAIT);
  ASSERT_EQ(uv_loop_close(loop), 0);
}

/* The size in bytes of the file name+suffix in dir (0 when there is none). */
static long long file_size(const char *dir, const char *suffix) {
  char path[512];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s%s", dir, SRV_STORE_FILE, suffix);
  return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

/* The frames the log file has room for (pages of 4 KiB after a header of 32 bytes, each with a
 * header of 24 bytes: SQLite's file format). */
static long long log_frames(const char *dir) {
  long long size = file_size(dir, "-wal");
  return size > 32 ? (size - 32) / (4096 + 24) : 0;
}

/* One batch: a player of its own (a row and an index entry), committed. */
static void one_batch(srv_store *s, int i) {
  char id[32], name[80];
  snprintf(id, sizeof id, "p%06d", i);
  snprintf(name, sizeof name, "Player %d with a name long enough to fill pages", i);
  srv_store_player p = mk_player(id, name);
  ASSERT_EQ(srv_store_player_put(s, &p), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
}

/* Commits batches from *i on until the log holds at least PAGES frames. */
static void fill_log(srv_store *s, const char *dir, int *i) {
  while (log_frames(dir) < PAGES)
    one_batch(s, (*i)++);
}

TEST_IMPL(the_thread_copies_the_log) {
  count_install();
  char dir[256];
  srv_store *s = NULL;
  uv_loop_t loop;
  open_bound(dir, sizeof dir, &s, &loop);
  atomic_store(&loop_writes, 0);
  atomic_store(&other_writes, 0);
  long long db0 = file_size(dir, "");
  int i = 0;
  fill_log(s, dir, &i);
  /* The commit that took the log past the threshold asked the thread; it copies. */
  srv_store__ckpt_wait(s);
  ASSERT_GT(atomic_load(&other_writes), 0);
  ASSERT_GT(file_size(dir, ""), db0);
  /* The loop never wrote the database: SQLite's automatic checkpoint is off. */
  ASSERT_EQ(atomic_load(&loop_writes), 0);
  /* The log starts again: as many batches again as filled it fit in the frames it has. */
  long long frames = log_frames(dir);
  int more = i / 2;
  for (int k = 0; k < more; k++)
    one_batch(s, i++);
  ASSERT_EQ(log_frames(dir), frames);
  ASSERT_EQ(atomic_load(&loop_writes), 0);
  srv_store_stats st;
  srv_store_get_stats(s, &st);
  ASSERT_GE(st.checkpoints, 1);
  ASSERT_EQ(st.checkpoint_failures, 0);
  close_all(s, &loop);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM players"), i);
  rm_tree(dir);
  return 0;
}

TEST_IMPL(the_loop_copies_the_rest) {
  count_install();
  char dir[256];
  srv_store *s = NULL;
  uv_loop_t loop;
  open_bound(dir, sizeof dir, &s, &loop);
  atomic_store(&loop_writes, 0);
  atomic_store(&other_writes, 0);
  gate_set(true);
  int i = 0;
  fill_log(s, dir, &i);
  /* The thread's checkpoint is under way (it holds the frames it copies)... */
  gate_wait_held();
  /* ...while the loop commits more. */
  for (int k = 0; k < 10; k++)
    one_batch(s, i++);
  ASSERT_EQ(atomic_load(&loop_writes), 0);
  gate_set(false);
  srv_store__ckpt_wait(s);
  ASSERT_GT(atomic_load(&other_writes), 0);
  ASSERT_EQ(atomic_load(&loop_writes), 0);
  /* The next commit copies what the thread left, between two batches... */
  one_batch(s, i++);
  ASSERT_GT(atomic_load(&loop_writes), 0);
  /* ...so that the log starts again. */
  long long frames = log_frames(dir);
  for (int k = 0; k < 10; k++)
    one_batch(s, i++);
  ASSERT_EQ(log_frames(dir), frames);
  srv_store_stats st;
  srv_store_get_stats(s, &st);
  ASSERT_EQ(st.loop_checkpoints, 1);
  close_all(s, &loop);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM players"), i);
  rm_tree(dir);
  return 0;
}

TEST_IMPL(a_long_rest_goes_back_to_the_thread) {
  count_install();
  char dir[256];
  srv_store *s = NULL;
  uv_loop_t loop;
  open_bound(dir, sizeof dir, &s, &loop);
  atomic_store(&loop_writes, 0);
  atomic_store(&other_writes, 0);
  gate_set(true);
  int i = 0;
  fill_log(s, dir, &i);
  gate_wait_held();
  /* More than 64 frames committed during the thread's run: more than the loop copies. */
  long long frames = log_frames(dir);
  while (log_frames(dir) <= frames + 80)
    one_batch(s, i++);
  gate_set(false);
  srv_store__ckpt_wait(s);
  /* The next commit asks the thread again instead of copying on the loop... */
  one_batch(s, i++);
  srv_store__ckpt_wait(s);
  ASSERT_EQ(atomic_load(&loop_writes), 0);
  srv_store_stats st;
  srv_store_get_stats(s, &st);
  ASSERT_EQ(st.checkpoints, 2);
  /* ...which copied everything (nothing was committed meanwhile): the log starts again. */
  frames = log_frames(dir);
  for (int k = 0; k < 10; k++)
    one_batch(s, i++);
  ASSERT_EQ(log_frames(dir), frames);
  ASSERT_EQ(atomic_load(&loop_writes), 0);
  close_all(s, &loop);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM players"), i);
  rm_tree(dir);
  return 0;
}

TEST_IMPL(unbound_stores_checkpoint_in_the_commit) {
  count_install();
  char dir[256], err[SRV_STORE_ERR_SIZE];
  srv_store *s = NULL;
  srv_store_config cfg;
  srv_store_config_init(&cfg);
  cfg.sync = SRV_STORE_SYNC_NORMAL;
  cfg.checkpoint_pages = PAGES;
  tmp_dir(dir, sizeof dir);
  ASSERT_EQ(srv_store_open(dir, &cfg, &s, err), 0);
  atomic_store(&loop_writes, 0);
  atomic_store(&other_writes, 0);
  int i = 0;
  fill_log(s, dir, &i);
  /* SQLite's own checkpoint ran inside the COMMIT that took the log past the threshold. */
  ASSERT_GT(atomic_load(&loop_writes), 0);
  ASSERT_EQ(atomic_load(&other_writes), 0);
  srv_store_close(s);
  rm_tree(dir);
  return 0;
}
