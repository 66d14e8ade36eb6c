/* The files under the store (srv_store.h): a database deleted or replaced while the server runs
 * is detected and nothing more is written (security probe, finding 3: 13,869 moves were
 * acknowledged after `rm mancala.db*` and lost at the restart); a -shm (or database, or WAL)
 * that became unwritable refuses writes instead of taking a SIGBUS (finding 9: `chattr +i`). */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pwd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_util.h"

static char dir[256], path[512], err[SRV_STORE_ERR_SIZE];

/* One write: a player. */
static int write_one(srv_store *s, int i) {
  char id[32];
  snprintf(id, sizeof id, "p%d", i);
  srv_store_player p = mk_player(id, "X");
  return srv_store_player_put(s, &p);
}

static srv_store *opened(void) {
  tmp_dir(dir, sizeof dir);
  db_path(dir, path, sizeof path);
  srv_store *s = NULL;
  ASSERT_EQ(open_store(dir, SRV_STORE_SYNC_FULL, &s, err), 0);
  ASSERT_EQ(write_one(s, 0), 0);
  ASSERT_EQ(srv_store_commit(s), 0);
  return s;
}

static void path_with(char *buf, size_t size, const char *suffix) {
  snprintf(buf, size, "%s%s", path, suffix);
}

TEST_IMPL(deleted_database) {
  srv_store *s = opened();
  char wal[600], shm[600];
  path_with(wal, sizeof wal, "-wal");
  path_with(shm, sizeof shm, "-shm");
  /* rm mancala.db*, as the probe did. */
  ASSERT_EQ(unlink(path), 0);
  unlink(wal);
  unlink(shm);
  ASSERT_EQ(write_one(s, 1), SRV_STORE_EMOVED);
  ASSERT(strstr(srv_store_last_error(s), "deleted or replaced") != NULL);
  ASSERT(strstr(srv_store_last_error(s), path) != NULL);
  ASSERT_EQ(srv_store_commit(s), 0); /* Nothing was accepted, nothing is lost. */
  /* For good: even with a new file under the name, nothing more is written. */
  raw_exec(dir, "CREATE TABLE t (x)");
  ASSERT_EQ(write_one(s, 2), SRV_STORE_EMOVED);
  srv_store_close(s);
  rm_tree(dir);
  return 0;
}

TEST_IMPL(deleted_during_a_batch) {
  srv_store *s = opened();
  ASSERT_EQ(write_one(s, 1), 0); /* Accepted into the turn's batch... */
  ASSERT_EQ(unlink(path), 0);
  ASSERT_EQ(srv_store_commit(s), SRV_STORE_EMOVED); /* ...and refused at its commit: */
  size_t n = 0;
  const srv_store_op *lost = srv_store_failed(s, &n); /* reported lost, never acknowledged. */
  ASSERT_EQ(n, 1);
  ASSERT_STR_EQ(lost[0].key, "p1");
  srv_store_close(s);
  rm_tree(dir);
  return 0;
}

TEST_IMPL(replaced_database) {
  srv_store *s = opened();
  /* Another database renamed over ours (a restore under a running server). */
  char other_dir[256], other_path[512];
  tmp_dir(other_dir, sizeof other_dir);
  db_path(other_dir, other_path, sizeof other_path);
  srv_store *o = NULL;
  ASSERT_EQ(open_store(other_dir, SRV_STORE_SYNC_FULL, &o, err), 0);
  srv_store_close(o);
  ASSERT_EQ(rename(other_path, path), 0);
  ASSERT_EQ(write_one(s, 1), SRV_STORE_EMOVED);
  srv_store_close(s);
  rm_tree(dir);
  rm_tree(other_dir);
  return 0;
}

TEST_IMPL(deleted_wal) {
  srv_store *s = opened();
  char wal[600];
  path_with(wal, sizeof wal, "-wal");
  ASSERT_EQ(unlink(wal), 0);
  ASSERT_EQ(write_one(s, 1), SRV_STORE_EMOVED);
  srv_store_close(s);
  rm_tree(dir);
  return 0;
}

/* As nobody (root writes whatever the modes say): the -shm made read-only refuses writes and
 * reads, and they work again once it is writable. Returns 0 when all went as expected. */
static int shm_read_only(void *arg) {
  (void)arg;
  srv_store *s = NULL;
  if (open_store(dir, SRV_STORE_SYNC_FULL, &s, err) != 0 || write_one(s, 1) != 0 ||
      srv_store_commit(s) != 0)
    return 1;
  char shm[600];
  path_with(shm, sizeof shm, "-shm");
  srv_store_game *g = NULL;
  int rc = 0;
  if (chmod(shm, 0444) != 0)
    rc = 2;
  else if (write_one(s, 2) != SRV_STORE_EACCES || strstr(srv_store_last_error(s), "-shm") == NULL)
    rc = 3;
  else if (srv_store_game_get(s, 1, &g) != SRV_STORE_EACCES)
    rc = 4;
  else if (chmod(shm, 0644) != 0 || write_one(s, 2) != 0 || srv_store_commit(s) != 0)
    rc = 5;
  srv_store_close(s);
  return rc;
}

TEST_IMPL(unwritable_shm) {
  tmp_dir(dir, sizeof dir);
  db_path(dir, path, sizeof path);
  struct passwd *pw = getpwnam("nobody");
  if (geteuid() == 0 && (pw == NULL || chown(dir, pw->pw_uid, pw->pw_gid) != 0)) {
    printf("skipped: no unprivileged user to test permissions with\n");
  } else {
    int rc = run_unprivileged(shm_read_only, NULL);
    if (rc < 0)
      printf("skipped: no unprivileged user to test permissions with\n");
    else
      ASSERT_EQ(rc, 0);
  }
  rm_tree(dir);
  return 0;
}

/* Sets or clears the immutable flag of path (chattr +i / -i); false when the file system or the
 * process cannot. */
static bool immutable(const char *p, bool on) {
  int fd = open(p, O_RDONLY | O_NONBLOCK);
  if (fd < 0)
    return false;
  int flags = 0;
  bool ok = ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
  if (ok) {
    flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
    ok = ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
  }
  close(fd);
  return ok;
}

/* The probe's own case: chattr +i on the database, its WAL, its -shm and the directory. Every
 * write and read is refused with a message (no SIGBUS), and all works again after chattr -i. */
TEST_IMPL(immutable_files) {
  srv_store *s = opened();
  char wal[600], shm[600];
  path_with(wal, sizeof wal, "-wal");
  path_with(shm, sizeof shm, "-shm");
  const char *files[] = {path, wal, shm, dir};
  if (!immutable(shm, true)) {
    printf("skipped: the file system or this user cannot make files immutable\n");
  } else {
    for (int i = 0; i < 4; i++)
      ASSERT(i == 2 || immutable(files[i], true));
    ASSERT_EQ(write_one(s, 1), SRV_STORE_EACCES);
    ASSERT(strstr(srv_store_last_error(s), "-shm") != NULL);
    srv_store_game *g = NULL;
    ASSERT_EQ(srv_store_game_get(s, 1, &g), SRV_STORE_EACCES);
    ASSERT_EQ(srv_store_commit(s), 0);
    for (int i = 0; i < 4; i++)
      ASSERT(immutable(files[i], false));
    ASSERT_EQ(write_one(s, 1), 0);
    ASSERT_EQ(srv_store_commit(s), 0);
  }
  srv_store_close(s);
  rm_tree(dir);
  return 0;
}
