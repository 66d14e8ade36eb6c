/* The store's internals, shared by its files (srv_store*.c) and by nothing else: other modules
 * use srv_store.h. Internal functions are named srv_store__*.
 *
 * Where things live: srv_store.c opens and closes (errors, the directory lock, the files under
 * the store); srv_store_schema.c the tables and their migrations; srv_store_stmt.c every
 * statement's SQL and the one way to run them; srv_store_batch.c the batch every write joins;
 * srv_store_games.c the writes of rooms, games, moves, clocks and chat; srv_store_accounts.c
 * players, sessions, accounts and ratings; srv_store_reads.c games, game lists, leaderboards and
 * the rows they share; srv_store_recover.c what a restart reads; srv_store_replay.c the engine's
 * check of stored moves. */
#ifndef SRV_STORE_INT_H
#define SRV_STORE_INT_H

#include "srv_store.h"

#include <sys/types.h>

#include <sqlite3.h>

/* Every statement the store runs after open, prepared once (their SQL: srv_store_stmt.c). */
typedef enum srv_store__stmt {
  /* Batches */
  STMT_BEGIN,
  STMT_COMMIT,
  STMT_ROLLBACK,
  /* Players and sessions */
  STMT_PLAYER_PUT,
  STMT_PLAYER_SEEN,
  STMT_PLAYER_BY_TOKEN,
  STMT_SESSIONS_EXPIRE,
  STMT_PLAYERS_EXPIRE,
  STMT_SESSION_PUT,
  STMT_SESSION_DELETE,
  STMT_SESSIONS_REVOKE,
  STMT_SESSIONS_REVOKE_ALL, /* Also deletes an account's sessions. */
  STMT_SESSION_SEEN,
  STMT_SESSION_LABEL,
  STMT_SESSIONS_OF,
  STMT_SESSIONS_IDLE,
  STMT_SESSIONS_IDLE_LIST,
  /* Accounts */
  STMT_ACCOUNT_INSERT,
  STMT_ACCOUNT_PASSWORD,
  STMT_ACCOUNT_BY_KEY,
  STMT_ACCOUNT_BY_PLAYER,
  STMT_ACCOUNT_NAMES,
  STMT_DELETE_ACCOUNT,
  STMT_DELETE_RATINGS,
  STMT_DELETE_HISTORY,
  STMT_DELETE_PLAYER,
  STMT_ANON_GAMES_SOUTH,
  STMT_ANON_GAMES_NORTH,
  STMT_ANON_ROOMS_SOUTH,
  STMT_ANON_ROOMS_NORTH,
  STMT_ANON_CHAT,
  /* Ratings */
  STMT_RATINGS_GET,
  STMT_GAME_RATED,
  STMT_RATING_PUT,
  STMT_HISTORY_INSERT,
  /* Rooms, games, moves and chat */
  STMT_ROOM_PUT,
  STMT_ROOM_DELETE,
  STMT_ROOM_SET_GAME,
  STMT_GAME_INSERT,
  STMT_GAME_NEXT_ID,
  STMT_GAME_FINISH,
  STMT_GAME_ABORT,
  STMT_GAME_SEATS,
  STMT_MOVE_INSERT,
  STMT_MOVE_TRUNCATE,
  STMT_MOVE_CLOCK,
  STMT_CHAT_INSERT,
  STMT_CHAT_ORPHANS,
  STMT_CHAT_DETACH,
  STMT_ANALYSIS_PUT,
  /* Reads */
  STMT_GAME_GET,
  STMT_GAME_MOVES,
  STMT_PLAYER_GAMES,
  STMT_GAMES_PAGE,
  STMT_BOARD,
  STMT_BOARD_COUNT,
  STMT_BOARD_RANK,
  STMT_HISTORY,
  STMT_SECRET,
  STMT_ANALYSIS_GET,
  /* Recovery */
  STMT_RECOVER_ROOMS,
  STMT_RECOVER_GAMES,
  STMT_RECOVER_PLAYERS,
  STMT_RECOVER_CHAT,
  STMT_RECOVER_ROOM, /* The same four of one room (?1: its code): a cluster's take-over. */
  STMT_RECOVER_ROOM_GAMES,
  STMT_RECOVER_ROOM_PLAYERS,
  STMT_RECOVER_ROOM_CHAT,
  STMT_PLAYER_ROOMS, /* The open rooms where player ?1 holds a seat (a cluster's hello). */
  STMT_COUNT
} srv_store__stmt;

/* The PostgreSQL side of a store (srv_store_pg.c); NULL in a SQLite store. */
typedef struct srv_store_pg srv_store_pg;

/* The thread that syncs a SQLite store's log off the loop (srv_store_sync.c); NULL until the
 * store is bound to a loop with --sync full. */
typedef struct srv_store_syncer srv_store_syncer;

/* The thread that copies a SQLite store's log into the database (srv_store_ckpt.c); NULL until the
 * store is bound to a loop. */
typedef struct srv_store_ckpter srv_store_ckpter;

/* A move of the open batch whose INSERT has not run yet (SQLite, srv_store_games.c). */
typedef struct srv_store__move_row {
  int64_t game, clock_ms, at_ms; /* clock_ms < 0: NULL */
  int ply, seat, house;
} srv_store__move_row;

/* The moves' INSERTs of several rows: 4, 8, 16 and 32 (fewer than 4 go one by one: a statement
 * of two rows costs SQLite more than two of one). */
#define STORE_MOVE_CHUNKS 4

struct srv_store {
  srv_store_pg *pg; /* Set: every statement runs on PostgreSQL, and the SQLite fields are unused. */
  sqlite3 *db;
  char *path;     /* The database file; the same allocation holds: */
  char *wal_path; /* its write-ahead log (path "-wal") and */
  char *shm_path; /* its shared-memory index (path "-shm"), checked at every batch. */
  int lock_fd;    /* DIR/mancala.lock, write-locked while the store is open; -1 when none. */
  sqlite3_stmt *stmt[STMT_COUNT];
  bool reader; /* A connection for committed reads only (srv_store_open_reader()). */
  bool in_txn;
  bool moved;     /* The database or its WAL was deleted or replaced: no more writes, ever. */
  bool broken;    /* A sync of the log failed: no more writes until a restart. */
  bool sync_full; /* --sync full: every commit is on the disk before it is reported. */
  srv_store_syncer *syncer;
  srv_store_ckpter *ckpter;
  int ckpt_pages; /* The log's length in pages that asks for a checkpoint. */
  dev_t wal_dev;
  ino_t wal_ino; /* The WAL's identity at open (0: unknown). */
  /* The writes of the open batch, so that a lost batch can be reported. */
  srv_store_op *ops;
  size_t n_ops, cap_ops;
  /* The writes lost since the last commit; cleared by the commit or rollback after the one that
   * reported them. */
  srv_store_op *failed;
  size_t n_failed, cap_failed;
  bool failed_reported;
  /* SQLite: the batch's moves not inserted yet, and not in ops until they are. They go in
   * together, in INSERTs of up to 32 rows, before the COMMIT or before a statement that reads or
   * changes the moves (srv_store__moves_flush()): a few statements a batch instead of one a
   * move. */
  srv_store__move_row *moves;
  size_t n_moves, cap_moves;
  sqlite3_stmt *moves_stmt[STORE_MOVE_CHUNKS]; /* Prepared at first use. */
  srv_store_stats stats;
  char error[SRV_STORE_ERR_SIZE];
};

/* ---- Errors and files (srv_store.c) --------------------------------------------------------- */

/* Formats into buf (SRV_STORE_ERR_SIZE bytes; NULL: nothing). */
void srv_store__set_error(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records the SQLite error of rc and what failed in store->error; returns the SRV_STORE_E* code. */
int srv_store__fail(srv_store *store, int rc, const char *what);

/* Checks the store's files (see srv_store.h) before a write (write: the database, its WAL and its
 * -shm must be writable) or a read (the -shm only: a read transaction writes its read mark there).
 * Returns 0, SRV_STORE_EMOVED or SRV_STORE_EACCES with the store's error set. */
int srv_store__check_files(srv_store *store, bool write);

/* Remembers the identity of the write-ahead log, once it exists. */
void srv_store__note_wal(srv_store *store);

/* Grows *items (of size bytes each, *cap of them) to hold need. Returns 0 or SRV_STORE_ENOMEM. */
int srv_store__grow(void **items, size_t *cap, size_t need, size_t size);

/* ---- Batches (srv_store_batch.c) ---------------------------------------------------------- */

/* The end of every commit: the writes lost since the last report, if any, are reported now (err
 * becomes SRV_STORE_EIO when it was 0); otherwise an earlier report is forgotten. Returns err. */
int srv_store__commit_report(srv_store *store, int err);

/* ---- Syncing the log off the loop (srv_store_sync.c) -------------------------------------- */

struct uv_loop_s;

/* Starts the thread and turns the connection's synchronous setting to NORMAL: from now on every
 * commit is synced by srv_store__sync_hand() or srv_store__sync_now(). Returns 0 or a code. */
int srv_store__sync_start(srv_store *store, struct uv_loop_s *loop);

/* Hands the log's sync to the thread after a COMMIT of the n writes ops (copied); cb(arg, rc)
 * follows on the loop once it is done (t0: when the commit began). Returns 0, or a code when
 * nothing was handed (the caller reports the batch: it is committed but not known to be on the
 * disk, so lost). */
int srv_store__sync_hand(srv_store *store, const srv_store_op *ops, size_t n,
                         srv_store_commit_cb cb, void *arg, uint64_t t0);

/* Whether a handed sync awaits its outcome. */
bool srv_store__sync_busy(const srv_store *store);

/* Syncs the log on this thread (a commit that waits). Returns 0 or SRV_STORE_EIO (the store is
 * then broken), or another code when the log cannot be opened. */
int srv_store__sync_now(srv_store *store);

/* Waits for a handed sync and runs its callback; returns at once when none is under way. */
void srv_store__sync_wait(srv_store *store);

/* Waits for a handed sync, then stops the thread (the loop must run once more: a handle closes). */
void srv_store__sync_close(srv_store *store);

/* Tests: syncs fd instead of the log from now on (a pipe makes the sync fail). */
int srv_store__sync_set_fd(srv_store *store, int fd);

/* ---- Checkpoints off the loop (srv_store_ckpt.c) ------------------------------------------ */

/* Opens the thread's connection, starts the thread and installs the hook that replaces SQLite's
 * automatic checkpoint on the store's connection. Returns 0 or a code (nothing changed). */
int srv_store__ckpt_start(srv_store *store, struct uv_loop_s *loop);

/* Tests: waits until the thread has answered what it was asked, and takes its answer. */
void srv_store__ckpt_wait(srv_store *store);

/* Stops and joins the thread, closes its connection and removes the hook (the loop must run once
 * more: a handle closes). Before the store's connection closes. */
void srv_store__ckpt_close(srv_store *store);

/* ---- Schema (srv_store_schema.c) ------------------------------------------------------------ */

/* Checks the schema version and the application id and applies the pending migrations, in one
 * write transaction. Returns 0 or a negative code with the store's error set. */
int srv_store__migrate(srv_store *store);

/* Runs one statement of text that returns at most one integer (a pragma); *value gets it when not
 * NULL. Returns a SQLite code. */
int srv_store__query_int(sqlite3 *db, const char *sql, long long *value);

/* ---- The tables' description (srv_store_tables.c) ----------------------------------------- */

typedef enum srv_store__coltype {
  COL_INT,
  COL_REAL,
  COL_TEXT,
  COL_BLOB,
  COL_SERIAL
} srv_store__coltype;

/* A column: its type, what follows it in CREATE TABLE (the same words for both backends) and the
 * schema version that added it. */
typedef struct srv_store__column {
  const char *name;
  srv_store__coltype type;
  const char *extra;
  int since;
} srv_store__column;

/* A table: its columns (ended by a NULL name), its primary key when it has more than one column,
 * the version that added it. */
typedef struct srv_store__table {
  const char *name;
  const srv_store__column *columns;
  const char *key;
  int since;
} srv_store__table;

typedef struct srv_store__index {
  const char *name, *on; /* CREATE INDEX name ON on */
  int since;
} srv_store__index;

/* Every table, in the order a copy fills them, ended by a NULL name; every index likewise. */
extern const srv_store__table srv_store__tables[];
extern const srv_store__index srv_store__indexes[];

/* Writes into buf (size bytes) the SQL that takes the schema from version from to version to on
 * PostgreSQL (pg) or SQLite: the tables, columns and indexes added in between. Returns its
 * length or SRV_STORE_ENOMEM when it does not fit. */
int srv_store__schema_sql(int from, int to, bool pg, char *buf, size_t size);

/* The table called name, or NULL. */
const srv_store__table *srv_store__table_named(const char *name);

/* ---- Statements (srv_store_stmt.c) ---------------------------------------------------------- */

/* One value bound to a statement's parameter: build it with the arg_*() functions below. */
typedef enum srv_store__type { ARG_NULL, ARG_INT, ARG_REAL, ARG_TEXT, ARG_BLOB } srv_store__type;

typedef struct srv_store__val {
  srv_store__type type;
  int64_t i;
  double d;
  const void *p; /* Text or blob, borrowed (SQLite copies it). */
  int len;       /* Blob bytes. */
} srv_store__val;

static inline srv_store__val arg_null(void) {
  return (srv_store__val){.type = ARG_NULL};
}
static inline srv_store__val arg_int(int64_t i) {
  return (srv_store__val){.type = ARG_INT, .i = i};
}
static inline srv_store__val arg_real(double d) {
  return (srv_store__val){.type = ARG_REAL, .d = d};
}
static inline srv_store__val arg_text(const char *text) {
  return (srv_store__val){.type = ARG_TEXT, .p = text};
}
/* Text, or NULL for NULL or "". */
static inline srv_store__val arg_text_or_null(const char *text) {
  return text && text[0] ? arg_text(text) : arg_null();
}
static inline srv_store__val arg_blob(const void *blob, int len) {
  return (srv_store__val){.type = ARG_BLOB, .p = blob, .len = len};
}

/* The arguments of a run as an array and its count:
 * srv_store__exec(store, STMT_X, STORE_ARGS(arg_int(game), arg_text(room))). */
#define STORE_ARGS(...)                                                                            \
  (const srv_store__val[]){__VA_ARGS__},                                                           \
      sizeof((const srv_store__val[]){__VA_ARGS__}) / sizeof(srv_store__val)

/* One result row, whichever backend ran the statement; read it with the accessors below. */
typedef struct srv_store__cols {
  sqlite3_stmt *stmt;          /* SQLite: the statement, on its row (NULL on PostgreSQL). */
  const struct pg_result *res; /* PostgreSQL: the result (in text format) and */
  int row;                     /* the row. */
} srv_store__cols;

/* Column i of a row: an integer (0 for NULL), a real, whether it is NULL, its text (NULL for
 * NULL; valid until the next row), the number of columns. */
int64_t srv_store__int(const srv_store__cols *s, int i);
double srv_store__real(const srv_store__cols *s, int i);
bool srv_store__null(const srv_store__cols *s, int i);
const char *srv_store__text(const srv_store__cols *s, int i);
int srv_store__ncols(const srv_store__cols *s);
/* Copies blob column i into out when it holds exactly len bytes: 0, or -1 (another length). */
int srv_store__blob(const srv_store__cols *s, int i, void *out, size_t len);

/* The SQL of statement id, as SQLite runs it (PostgreSQL's is made from it: srv_store_pg.c). */
const char *srv_store__sql(srv_store__stmt id);

/* Reads one row of s into item (or ctx); returns 0 or a negative code that stops the run. */
typedef int (*srv_store__row)(srv_store *store, const srv_store__cols *s, void *item);

/* Prepares every statement at open (0, or a negative code as srv_store__fail() returns); finalises
 * them at close. */
int srv_store__prepare_all(srv_store *store);
void srv_store__finalize_all(srv_store *store);

/* Runs statement id bound to args (n of them; NULL, 0: none) without reading results. Returns a
 * SQLite code (SQLITE_OK when it ran). */
int srv_store__exec(srv_store *store, srv_store__stmt id, const srv_store__val *args, size_t n);

/* Runs statement id bound to args and calls row(store, s, ctx) for each result row. Returns the
 * number of rows, the first negative code of row, or a negative code for a failed step (with
 * what in the store's error). */
int srv_store__each(srv_store *store, srv_store__stmt id, const srv_store__val *args, size_t n,
                    srv_store__row row, void *ctx, const char *what);

/* srv_store__each() for one row into item: 0, SRV_STORE_ENOTFOUND when there is none, or a
 * negative code. */
int srv_store__get(srv_store *store, srv_store__stmt id, const srv_store__val *args, size_t n,
                   srv_store__row row, void *item, const char *what);

/* srv_store__each() appending each row to the array *items (*n_items of them, each size bytes):
 * row fills a zeroed item; a row it refuses is not counted. Returns 0 or a negative code; the
 * items read before an error stay in *items for the caller to free. */
int srv_store__all(srv_store *store, srv_store__stmt id, const srv_store__val *args, size_t n,
                   srv_store__row row, void **items, size_t *n_items, size_t size,
                   const char *what);

/* A row callback for a single integer column (a count): *(int64_t *)item. */
int srv_store__row_int(srv_store *store, const srv_store__cols *s, void *item);

/* ---- Batches (srv_store_batch.c) ------------------------------------------------------------ */

/* Returns the op of a write (key NULL: ""). */
srv_store_op srv_store__op(srv_store_op_kind kind, const char *key, int64_t game, int ply);

/* Begins the batch when none is open and reserves room to report one more write (the moves that
 * wait count: their ops join the batch when they are inserted). Returns 0 or a negative code (the
 * write must not run). */
int srv_store__write_begin(srv_store *store);
/* SQLite: inserts the moves that wait (srv_store_games.c), each one's op joining the batch. It
 * runs before the COMMIT, before a statement that reads or changes the moves table (a takeback's
 * delete, a clock's update, every read) and before nothing else: no other write touches the moves
 * (a move's game is inserted before the move is recorded, and no game is deleted). A
 * move that breaks a constraint (its ply stored already, no such game) costs only itself, as
 * when its INSERT ran alone: it is not stored, and its op joins the failed list, which the
 * commit reports. Returns 0, or a negative code with the batch lost (its writes, the moves that
 * waited among them, in the failed list). */
int srv_store__moves_flush(srv_store *store);
/* Finalises the moves' statements (at close). */
void srv_store__moves_finalize(srv_store *store);

/* Ends one write whose statements returned the SQLite code rc: 0 and op joins the batch, or a
 * negative code (with what in the store's error) and, unless only that statement failed on a
 * constraint, the batch is lost. */
int srv_store__write_end(srv_store *store, int rc, const srv_store_op *op, const char *what);

/* A write of one statement: srv_store__write_begin(), srv_store__exec(), srv_store__write_end(). */
int srv_store__write(srv_store *store, srv_store_op op, srv_store__stmt id,
                     const srv_store__val *args, size_t n, const char *what);

/* The open batch is gone (rolled back by us or by SQLite): its writes join the failed list. */
void srv_store__batch_lost(srv_store *store);

/* ---- PostgreSQL (srv_store_pg.c) ------------------------------------------------------------ */

/* Opens store (zeroed but for its error) on the database at url: connections, schema, statements.
 * Returns 0 or a negative code with the store's error set (close the store either way). */
int srv_store__pg_open(srv_store *store, const char *url, bool shared, bool no_takeover);
/* Opens store as a reader of main's database. */
int srv_store__pg_open_reader(const srv_store *main, srv_store *store);
/* Closes store's connections and frees its PostgreSQL side (a batch in flight is waited for). */
void srv_store__pg_close(srv_store *store);
/* The runner (srv_store__exec(), srv_store__each()): writes join the batch, reads run at once. */
int srv_store__pg_exec(srv_store *store, srv_store__stmt id, const srv_store__val *args, size_t n);
int srv_store__pg_each(srv_store *store, srv_store__stmt id, const srv_store__val *args, size_t n,
                       srv_store__row row, void *ctx, const char *what);
/* Forgets the statements of the batch being built (it was lost). */
void srv_store__pg_drop(srv_store *store);
/* Commits the batch being built: blocking, or on loop with cb called later. */
int srv_store__pg_commit(srv_store *store);
int srv_store__pg_commit_async(srv_store *store, struct uv_loop_s *loop, srv_store_commit_cb cb,
                               void *arg);
bool srv_store__pg_busy(const srv_store *store);
int srv_store__pg_watch(srv_store *store, struct uv_loop_s *loop);
void srv_store__pg_commit_wait(srv_store *store);
/* Whether the write connection is up. */
bool srv_store__pg_up(const srv_store *store);
/* Notes an account about to join the batch being built: SRV_STORE_ECONFLICT when its key or its
 * player is in a batch not committed yet (built or in flight), SRV_STORE_ENOMEM, or 0. */
int srv_store__pg_account_pending(srv_store *store, const char *key, const char *player);
/* srv_store_game_claim() on PostgreSQL: the round trip (srv_store__pg_claim_read(), on the
 * store's read connection), then the epoch recorded for the store's batches
 * (srv_store__pg_claim_record(), which sets *epoch). */
int srv_store__pg_claim(srv_store *store, int64_t game, int64_t *epoch);
int srv_store__pg_claim_read(srv_store *store, int64_t game, int64_t *epoch);
int srv_store__pg_claim_record(srv_store *store, int64_t game, int64_t e, int64_t *epoch);
/* srv_store_fence_all() on PostgreSQL. */
void srv_store__pg_fence_all(srv_store *store);
/* The read connection (a PGconn), connected, or NULL with the error set (srv_store_copy.c). */
struct pg_conn *srv_store__pg_reader(srv_store *store);
/* The id of a game started with id given (0: the next one). */
int64_t srv_store__pg_game_id(srv_store *store, int64_t given);
/* Columns of a PostgreSQL row (srv_store__cols.res). */
int64_t srv_store__pg_int(const srv_store__cols *s, int i);
double srv_store__pg_real(const srv_store__cols *s, int i);
bool srv_store__pg_null(const srv_store__cols *s, int i);
const char *srv_store__pg_text(const srv_store__cols *s, int i);
int srv_store__pg_ncols(const srv_store__cols *s);
int srv_store__pg_blob(const srv_store__cols *s, int i, void *out, size_t len);

/* ---- Rows shared by the reads (srv_store_reads.c) ------------------------------------------- */

/* Copies text column i (NULL: "") into buf. */
void srv_store__col_text(const srv_store__cols *s, int i, char *buf, size_t size);

/* Reads the seat at columns first..first+2 (player, name, computer). */
void srv_store__col_seat(const srv_store__cols *s, int first, srv_store_seat *seat);

/* Reads a rating at columns first..first+7 (rating, rd, vol, games, wins, losses, draws,
 * last_ms). */
void srv_store__col_rating(const srv_store__cols *s, int first, srv_store_rating *r);

/* Row callbacks: a player (id, name, created_ms) into a srv_store_player; the game columns
 * (GAME_COLUMNS in srv_store_stmt.c) into a srv_store_game, its moves untouched (a stored board or
 * result the engine does not accept is SRV_STORE_ECORRUPT). */
int srv_store__row_player(srv_store *store, const srv_store__cols *s, void *item);
int srv_store__row_game(srv_store *store, const srv_store__cols *s, void *item);

/* Reads the moves of g->id into a new g->moves. */
int srv_store__read_moves(srv_store *store, srv_store_game *g);

#endif
