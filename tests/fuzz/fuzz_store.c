/* Fuzz target: durable storage's recovery from a damaged database file.
 *
 * A seed database is made once per process by the server's own code: rooms on the test kit's fake
 * clock play games of every kind (finished, in progress, waiting, clocked, a rematch) with the
 * real recorder (srv_persist) committing to a store. Each input then damages a copy of that file:
 *   - row edits through a raw SQLite connection (any column of any table set to an integer, text,
 *     blob or NULL; rows deleted or copied; the schema version and application id changed), which
 *     reach the store's checks of each value;
 *   - byte patches of the file and a truncation, which reach SQLite's own checks;
 * and the server's start is run on it: srv_store_open(), srv_recover() into rooms, then the
 * archive's reads of every game (JSON and text) and of every player's list.
 *
 * Checked: nothing crashes or leaks whatever the file holds; the store refuses or recovers; the
 * rooms recovered are consistent (a playing room's game is not over, a finished one's is).
 */
#include <jansson.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "fuzz_seed.h"
#include "harness.h"
#include "srv_archive.h"
#include "srv_log.h"
#include "srv_persist.h"
#include "srv_recover.h"
#include "srv_store.h"

static char dir[256];
static uint8_t *seed;
static size_t seed_len;

static void path_of(char *buf, size_t size, const char *suffix) {
  snprintf(buf, size, "%s/%s%s", dir, SRV_STORE_FILE, suffix);
}

static void remove_files(void) {
  char p[300];
  static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
  for (int i = 0; i < 4; i++) {
    path_of(p, sizeof p, suffixes[i]);
    unlink(p);
  }
}

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  FZ_CHECK(f != NULL);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
  FZ_CHECK(buf != NULL && fread(buf, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return buf;
}

static void write_file(const char *path, const uint8_t *buf, size_t len) {
  FILE *f = fopen(path, "wb");
  FZ_CHECK(f != NULL && fwrite(buf, 1, len, f) == len && fclose(f) == 0);
}

/* ---- The seed ------------------------------------------------------------------------------
 */

static void make_seed(void) {
  fuzz_tmp_dir(dir, sizeof dir, "store");
  char db[300];
  path_of(db, sizeof db, "");
  /* Small pages: the byte patches hit the file's structures more often. */
  sqlite3 *raw = NULL;
  FZ_CHECK(sqlite3_open(db, &raw) == SQLITE_OK &&
           sqlite3_exec(raw, "PRAGMA page_size = 1024; CREATE TABLE x (y); DROP TABLE x;", NULL,
                        NULL, NULL) == SQLITE_OK);
  sqlite3_close(raw);
  srv_store *store = NULL;
  char err[SRV_STORE_ERR_SIZE];
  FZ_CHECK(srv_store_open(dir, NULL, &store, err) == 0);
  fuzz_seed_games(store);
  srv_store_close(store); /* The last connection: the WAL goes into the file. */
  seed = read_file(db, &seed_len);
  remove_files();
}

/* ---- Damage --------------------------------------------------------------------------------
 */

static const char *const tables[] = {"players", "rooms", "games", "moves"};
static const char *const columns[][22] = {
    {"id", "name", "token_hash", "created_ms", "seen_ms", NULL},
    {"code", "settings", "south", "south_name", "south_computer", "north", "north_name",
     "north_computer", "status", "game", NULL},
    {"id",
     "room",
     "game_no",
     "game",
     "houses",
     "seeds",
     "options",
     "south",
     "south_name",
     "south_computer",
     "north",
     "north_name",
     "north_computer",
     "clock_initial_ms",
     "clock_increment_ms",
     "started_ms",
     "ended_ms",
     "result",
     "reason",
     "score_south",
     "score_north",
     NULL},
    {"game", "ply", "seat", "house", "clock_ms", "at_ms", NULL}};

static const char *row_of(int t) {
  return t == 3 ? "(game, ply) IN (SELECT game, ply FROM moves LIMIT 1 OFFSET ?2)"
                : "rowid = (SELECT rowid FROM %s LIMIT 1 OFFSET ?2)";
}

static void bind_value(sqlite3_stmt *s, fz_in *in) {
  static const long long ints[] = {0,         1,        -1, 2,  3,   6,   7,          9,
                                   10,        12,       13, 99, 255, 256, 2147483647, -2147483648LL,
                                   1LL << 40, 1LL << 62};
  uint8_t k = fz_u8(in);
  const uint8_t *bytes;
  size_t n;
  switch (k % 5) {
  case 0:
    sqlite3_bind_int64(s, 1, ints[(k >> 3) % (sizeof ints / sizeof ints[0])]);
    break;
  case 1:
    sqlite3_bind_int64(s, 1, (int64_t)fz_u16(in) - 1000);
    break;
  case 2:
    n = fz_bytes(in, fz_u8(in) % 64, &bytes);
    sqlite3_bind_text(s, 1, (const char *)bytes, (int)n, SQLITE_TRANSIENT);
    break;
  case 3:
    n = fz_bytes(in, fz_u8(in) % 64, &bytes);
    sqlite3_bind_blob(s, 1, bytes, (int)n, SQLITE_TRANSIENT);
    break;
  default:
    sqlite3_bind_null(s, 1);
    break;
  }
}

/* One row edit on the raw database; a refused edit (a constraint) is simply not made. */
static void edit(sqlite3 *db, fz_in *in) {
  uint8_t op = fz_u8(in), t = op % 4;
  int ncol = 0;
  while (columns[t][ncol] != NULL)
    ncol++;
  char sql[512], where[160];
  snprintf(where, sizeof where, row_of(t), tables[t]);
  switch ((op >> 2) % 8) {
  case 0:
  case 1:
  case 2:
  case 3:
  case 4:
    snprintf(sql, sizeof sql, "UPDATE %s SET %s = ?1 WHERE %s", tables[t],
             columns[t][fz_u8(in) % ncol], where);
    break;
  case 5:
    snprintf(sql, sizeof sql, "DELETE FROM %s WHERE %s AND ?1 IS ?1", tables[t], where);
    break;
  case 6:
    snprintf(sql, sizeof sql, "PRAGMA %s = %d", op & 0x80 ? "user_version" : "application_id",
             (int)fz_u8(in) - 8 + (op & 0x80 ? 0 : 0x4d434c41));
    sqlite3_exec(db, sql, NULL, NULL, NULL);
    return;
  default: /* A copy of a row with one column changed (rowid tables get a new rowid). */
    snprintf(sql, sizeof sql,
             "INSERT OR IGNORE INTO %s SELECT * FROM %s WHERE %s; UPDATE %s SET %s = ?1 WHERE "
             "rowid = last_insert_rowid()",
             tables[t], tables[t], where, tables[t], columns[t][fz_u8(in) % ncol]);
    if (t == 3)
      return;
    break;
  }
  const char *tail = sql;
  uint8_t offset = fz_u8(in) % 24;
  while (tail != NULL && *tail != '\0') {
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, tail, -1, &s, &tail) != SQLITE_OK || s == NULL) {
      sqlite3_finalize(s);
      return;
    }
    if (sqlite3_bind_parameter_count(s) >= 1)
      bind_value(s, in);
    if (sqlite3_bind_parameter_count(s) >= 2)
      sqlite3_bind_int(s, 2, offset);
    sqlite3_step(s);
    sqlite3_finalize(s);
  }
}

/* ---- The server's start on the damaged file ---------------------------------------------------
 */

static void null_queue(void *ud, srv_client *to, srv_frame *f) {
  (void)ud;
  (void)to;
  (void)f;
}

static void null_lost(void *ud, srv_client *to) {
  (void)ud;
  (void)to;
}

static void read_archive(srv_store *store) {
  for (int64_t id = 1; id <= 16; id++) {
    srv_store_game *g = NULL;
    if (srv_store_game_get(store, id, &g) != 0)
      continue;
    srv_store_bad_row bad;
    json_t *j = srv_archive_game_json(g, &bad);
    if (j != NULL) {
      char *text = json_dumps(j, JSON_COMPACT);
      FZ_CHECK(text != NULL);
      free(text);
      json_decref(j);
    }
    char *txt = NULL;
    if (srv_archive_game_text(g, &txt, &bad) == 0) {
      size_t n = strlen(txt);
      FZ_CHECK(n > 0 && txt[n - 1] == '\n');
    }
    free(txt);
    const char *const players[] = {"", g->seats[0].player, g->seats[1].player};
    for (int i = 1; i < 3; i++) {
      srv_store_game_list *list = NULL;
      if (srv_store_player_games(store, players[i], 100, &list) == 0) {
        json_t *pj = srv_archive_player_games_json(players[i], list);
        json_decref(pj);
      }
      srv_store_game_list_free(list);
    }
    srv_store_game_free(g);
  }
}

static void start_server(void) {
  srv_store *store = NULL;
  char err[SRV_STORE_ERR_SIZE];
  if (srv_store_open(dir, NULL, &store, err) != 0) {
    FZ_CHECK(store == NULL && err[0] != '\0');
    return;
  }
  fake_time t;
  fake_init(&t);
  srv_ident *ident = srv_ident_new();
  srv_sink sink = {null_queue, null_lost, NULL};
  srv_room_limits limits = {60000, 600000, 600000, 10, 1000, 60000, 50, 10, 0, 0, 0};
  srv_rooms *rooms = srv_rooms_new(&t.base, ident, &sink, &limits);
  FZ_CHECK(ident != NULL && rooms != NULL);
  if (srv_recover(store, ident, rooms, &t.base) == 0) {
    for (const srv_room *r = srv_rooms_first(rooms); r != NULL; r = srv_rooms_next(r)) {
      bool over = mc_game_over(srv_room_game(r), NULL);
      FZ_CHECK(srv_room_status(r) != SRV_PLAYING || !over);
      FZ_CHECK(srv_room_status(r) != SRV_FINISHED || over);
    }
    fake_advance(&t, 3600 * 1000); /* Every timer of the recovered rooms fires. */
  }
  read_archive(store);
  srv_rooms_free(rooms);
  srv_ident_free(ident);
  srv_store_close(store);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (seed == NULL) {
    srv_log_set_level(SRV_LOG_ERROR);
    make_seed();
    srv_log_set_level(SRV_LOG_QUIET); /* Damaged files log on every run. */
  }
  fz_in in = {data, size};
  uint8_t mode = fz_u8(&in);
  char db[300];
  path_of(db, sizeof db, "");
  remove_files();
  write_file(db, seed, seed_len);
  if (mode & 1) { /* Row edits. */
    sqlite3 *raw = NULL;
    FZ_CHECK(sqlite3_open(db, &raw) == SQLITE_OK);
    int edits = 1 + fz_u8(&in) % 16;
    for (int i = 0; i < edits && in.n > 0; i++)
      edit(raw, &in);
    sqlite3_close(raw);
  }
  if (mode & 6) { /* Byte patches and a truncation of the file as it is now. */
    size_t len;
    uint8_t *bytes = read_file(db, &len);
    int patches = (mode & 2) ? 1 + fz_u8(&in) % 32 : 0;
    for (int i = 0; i < patches && len > 0; i++) {
      size_t at = (((size_t)fz_u8(&in) << 16) | fz_u16(&in)) % len;
      bytes[at] ^= fz_u8(&in) | 1;
    }
    if (mode & 4)
      len = len * fz_u8(&in) / 256;
    write_file(db, bytes, len);
    free(bytes);
  }
  start_server();
  remove_files();
  return 0;
}
