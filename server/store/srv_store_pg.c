/* The store on PostgreSQL: the same statements as SQLite's (srv_store_stmt.c, their parameters
 * renumbered and a few words of dialect changed), run through libpq.
 *
 * Two connections. Writes join the batch in memory (a statement and a copy of its arguments);
 * a commit sends the whole batch on the write connection in pipeline mode, BEGIN, the writes, a
 * commit mark, COMMIT and a sync, in one round trip, and the batch is committed when COMMIT's
 * result has arrived. On the loop (srv_store_commit_async()) that connection is non-blocking and
 * polled by libuv: the loop never waits. Reads run at once on the read connection (blocking: a
 * loopback round trip), so they see only what is committed.
 *
 * A connection that breaks while a batch is in flight leaves it in doubt: its COMMIT may or may
 * not have been carried out. The batch is reported lost (the rooms take its moves back, nobody
 * was told of them), and the next batch that commits starts by undoing it, each undo guarded by
 * the batch's commit mark (commit_marks: the last batch each writer committed): when the mark
 * says it went in, its moves, game starts and results are taken out in the same transaction as
 * the writes that follow; when it did not, the undo changes nothing. Nothing acknowledged is ever
 * undone: an acknowledgement waits for COMMIT's result.
 *
 * One writer (a server not in a cluster): the write connection holds the database's lease, a
 * session advisory lock, and commits only while it holds it. A server killed with a batch in
 * flight leaves a backend that may still COMMIT it; the next server takes the lease only once
 * that backend has ended, so what it loads next includes that batch if it went in (without the
 * lease, it could load the rooms first and then find its next move already stored). The lease is
 * waited for at open (PG_LEASE_WAIT_MS), then taken over: the holder's backend is terminated (a
 * server on a host that died, whose backend PostgreSQL has not noticed gone). A server whose lease
 * was taken over is refused every write from then on (SRV_STORE_ELOCKED: the first batch on a new
 * connection asks for the lease inside its transaction and fails without it). That batch first
 * ends the backend of this server's own lost connection if it still holds the lease
 * (PGS_LEASE_BACK: a connection cut between the two ends, which PostgreSQL has not noticed).
 * migrate opens with no_takeover: it never deposes a running server. A cluster's nodes
 * share the database and hold no lease: each fences the games it claims (PGS_FENCE).
 *
 * PostgreSQL down: commits fail at once (the rooms answer storage_error) and the write
 * connection is made again in the background about once a second; reads try again at once. */
#include "srv_store_int.h"

#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <uv.h>

#include "srv_log.h"
#include "srv_time_uv.h" /* SRV_OWN_TAG */

/* Statements PostgreSQL alone runs, numbered after the shared ones. */
enum {
  PGS_MARK = STMT_COUNT, /* The batch's commit mark. */
  PGS_UNDO_MOVES,        /* A batch in doubt: its moves of a game from a ply on, */
  PGS_UNDO_ROOM,         /* the room of a game it started, */
  PGS_UNDO_GAME_MOVES,   /* that game's moves */
  PGS_UNDO_GAME,         /* and that game, */
  PGS_UNDO_FINISH,       /* a result it stored */
  PGS_UNDO_RATED,        /* and the rating history of it, */
  PGS_TERMINATE,         /* and the backend that may still hold it (a connection timed out). */
  PGS_FENCE,             /* A claimed game is still this writer's (its owner epoch). */
  PGS_CLAIM,             /* A game claimed: its owner epoch raised. */
  PGS_LEASE_WAIT,        /* On a new connection: how long the lease is waited for, */
  PGS_LEASE,             /* the lease, */
  PGS_LEASE_DONE,        /* and no such wait for the writes after it. */
  PGS_LEASE_BACK,        /* The backend of a dropped connection of ours that holds the lease. */
  PGS_COUNT
};

/* The lease's advisory lock (the schema's is 1296256065), and how long a batch on a new connection
 * waits for it: a backend of this server's own broken connection may still hold it for a moment
 * (PGS_TERMINATE and PGS_LEASE_BACK end one that PostgreSQL has not noticed gone, and wait). */
#define PG_LEASE_KEY "1296256066"
#define PG_LEASE_LOCK_TIMEOUT "5s"

/* The rows of pg_locks (as l) that hold the lease. */
#define PG_LEASE_HELD                                                                              \
  "l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE "     \
  "datname = current_database()) AND l.objsubid = 1 AND "                                          \
  "(l.classid::bigint << 32 | l.objid::bigint) = " PG_LEASE_KEY

/* Why a server that lost the lease writes no more. */
#define PG_DEPOSED                                                                                 \
  "another server took this database's lease: this one's rooms may be out of date, so it "         \
  "stores nothing more until restarted (two servers share a database only in a cluster)"

/* "the batch $3 of node $2 is in": the guard of every undo. */
#define IF_MARKED "EXISTS (SELECT 1 FROM commit_marks WHERE node = $2 AND batch = $3)"

static const char *const pg_only[PGS_COUNT - STMT_COUNT] = {
    [PGS_MARK - STMT_COUNT] = "INSERT INTO commit_marks (node, batch) VALUES ($1, $2) "
                              "ON CONFLICT (node) DO UPDATE SET batch = excluded.batch",
    [PGS_UNDO_MOVES - STMT_COUNT] =
        "DELETE FROM moves WHERE game = $1 AND ply >= $4 AND " IF_MARKED,
    [PGS_UNDO_ROOM - STMT_COUNT] =
        "UPDATE rooms SET game = (SELECT max(id) FROM games g WHERE g.room = rooms.code AND "
        "g.id <> $1) WHERE game = $1 AND " IF_MARKED,
    [PGS_UNDO_GAME_MOVES - STMT_COUNT] = "DELETE FROM moves WHERE game = $1 AND " IF_MARKED,
    [PGS_UNDO_GAME - STMT_COUNT] = "DELETE FROM games WHERE id = $1 AND " IF_MARKED,
    [PGS_UNDO_FINISH - STMT_COUNT] =
        "UPDATE games SET ended_ms = NULL, result = NULL, reason = NULL, score_south = NULL, "
        "score_north = NULL WHERE id = $1 AND " IF_MARKED,
    [PGS_UNDO_RATED - STMT_COUNT] = "DELETE FROM rating_history WHERE game_id = $1 AND " IF_MARKED,
    [PGS_TERMINATE - STMT_COUNT] = "SELECT pg_terminate_backend($1, 5000)",
    [PGS_FENCE - STMT_COUNT] = "SELECT mancala_fence($1, $2)",
    [PGS_CLAIM - STMT_COUNT] =
        "UPDATE games SET owner_epoch = owner_epoch + 1 WHERE id = $1 RETURNING owner_epoch",
    [PGS_LEASE_WAIT - STMT_COUNT] =
        "SELECT set_config('lock_timeout', '" PG_LEASE_LOCK_TIMEOUT "', true)",
    [PGS_LEASE - STMT_COUNT] = "SELECT pg_advisory_lock(" PG_LEASE_KEY ")",
    [PGS_LEASE_DONE - STMT_COUNT] = "SELECT set_config('lock_timeout', '0', true)",
    [PGS_LEASE_BACK - STMT_COUNT] = "SELECT pg_terminate_backend(l.pid, 5000) FROM pg_locks l "
                                    "WHERE l.pid = $1 AND " PG_LEASE_HELD,
};

/* PostgreSQL's words where SQLite's differ. */
static const char *pg_dialect(srv_store__stmt id) {
  switch (id) {
  case STMT_BEGIN:
    return "BEGIN";
  case STMT_SESSION_PUT:
    return "INSERT INTO sessions (token_hash, player, created_ms) VALUES ($1, $2, $3) "
           "ON CONFLICT DO NOTHING";
  case STMT_GAME_NEXT_ID:
    return "SELECT coalesce(max(id), 0) + 1 FROM games";
  default:
    return NULL;
  }
}

/* How long a batch in flight may wait for its result, and a connection for its making, before the
 * connection is given up (a server that stopped answering), in ms. */
#define PG_FLIGHT_MS 10000
#define PG_CONNECT_S "5"
/* How long a batch waits for a connection being made before it is refused: the rooms take it
 * back and record themselves again, and a database that is down must not make that a busy loop. */
#define PG_HOLD_MS 250
/* Between two attempts to make the write connection again, in ms. */
#define PG_RETRY_MS 1000
/* How long open waits for another connection to let the lease go before it takes it over. */
#define PG_LEASE_WAIT_MS 5000
/* A batch's parameters at most (the largest statement has 17). */
#define PG_MAX_PARAMS 24

/* A statement of a batch: its id and its n arguments, encoded in the batch's arena from off on,
 * each as a 4-byte length (-1: NULL), a format byte (0 text, 1 binary) and the bytes and a NUL. */
typedef struct pg_stmt {
  int id, n;
  size_t off;
} pg_stmt;

typedef struct pg_batch {
  pg_stmt *stmts;
  size_t n, cap;
  char *arena;
  size_t len, alloc;
  srv_store_op *ops; /* The writes it holds, to report when it is lost. */
  size_t n_ops, cap_ops;
} pg_batch;

/* A batch in doubt, to undo when its mark says it went in. */
typedef struct pg_doubt {
  int64_t seq;
  srv_store_op *ops;
  size_t n_ops;
  int old_pid; /* The backend that may still commit it (the connection timed out), or 0. */
} pg_doubt;

typedef enum pg_state {
  PG_DOWN,       /* No write connection. */
  PG_CONNECTING, /* Being made (PQconnectStart()). */
  PG_READY,      /* Connected, nothing in flight. */
  PG_FLIGHT      /* A batch sent, its result awaited. */
} pg_state;

/* A handle of ours on the loop: its data is SRV_OWN_TAG (shutdown tells ours from lws's by it), the
 * store beside it. */
typedef struct pg_poll {
  uv_poll_t h;
  srv_store *store;
  int events; /* What it watches now (0: stopped). */
} pg_poll;
typedef struct pg_timer {
  uv_timer_t h;
  srv_store *store;
} pg_timer;

struct srv_store_pg {
  srv_store *store;
  char *conninfo; /* The URL as given. */
  PGconn *w;      /* Writes: non-blocking, pipeline mode (NULL when down). */
  int w_pid;      /* Its backend's process id (libpq forgets it once the connection breaks). */
  PGconn *r;      /* Reads: blocking. */
  pg_state state;
  bool prepared[PGS_COUNT]; /* On the write connection. */
  bool r_prepared[PGS_COUNT];
  char *sql[PGS_COUNT]; /* PostgreSQL's SQL of every statement. */
  char node[40];        /* This writer's name in commit_marks. */
  int64_t seq;          /* The last batch number given. */
  pg_batch build;       /* The batch writes join now, */
  pg_batch flight;      /* and the one in flight. */
  int64_t flight_seq;
  uint64_t flight_t0;
  bool need_rollback; /* The last batch failed inside its transaction. */
  int expect;         /* Results the flight awaits (counted, not needed: the sync's ends it). */
  bool flight_failed;
  int flight_err;
  char flight_msg[SRV_STORE_ERR_SIZE];
  pg_doubt *doubts;
  size_t n_doubts;
  size_t doubts_sent; /* How many of them the batch in flight undoes. */
  int64_t next_id;    /* The id of the next game started without one. */
  struct pg_pending { /* Accounts in a batch not committed yet (in_flight: the one sent). */
    char key[SRV_STORE_KEY_SIZE], player[SRV_STORE_ID_SIZE];
    bool in_flight;
  } * pending;
  size_t n_pending, cap_pending;
  struct pg_claim { /* The games this writer claimed, with their owner epoch. */
    int64_t game, epoch;
  } * claims;
  size_t n_claims, cap_claims;
  /* A cluster's node (srv_store_fence_all()): a game it never claimed is fenced at epoch 0, the
   * epoch of a game as its first owner made it. */
  bool fence_all;
  /* The lease (see the top of this file): none for a cluster's node (shared); held by the write
   * connection (leased), asked for by the batch in flight (lease_sent). */
  bool shared, leased, lease_sent;
  bool deposed; /* Another server took the lease: no write ever again (its rooms are not ours). */
  bool no_takeover; /* Open fails when another server keeps the lease (srv_store_config). */
  /* The backend of a write connection dropped while it held the lease, or 0: PostgreSQL may not
   * have noticed it gone (a connection cut between the two ends, without a word to PostgreSQL's),
   * and it keeps the lease until it does. The next connection's first batch ends it before it
   * asks for the lease (PGS_LEASE_BACK; only if that backend still holds the lease): without that,
   * a server whose connection was cut would wait for its own lease and stop storing. */
  int lease_pid;
  /* On the loop. */
  uv_loop_t *loop;
  pg_poll *poll; /* On the write connection's socket (poll_fd), while it is open. */
  int poll_fd;
  pg_timer *hold; /* A batch waiting for the connection (PG_HOLD_MS) before it is refused. */
  bool holding;
  pg_timer *timer; /* The flight's and the connection's time limit, and the retries. */
  uint64_t retry_at;
  uint64_t connect_t0; /* When the connection being made was started (ns). */
  srv_store_commit_cb cb;
  void *cb_arg;
};

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Copies libpq's message (its last line break dropped) after what into the store's error. */
static int pg_fail(srv_store *store, int err, const char *what, const char *msg) {
  char m[SRV_STORE_ERR_SIZE];
  snprintf(m, sizeof m, "%s", msg ? msg : "");
  size_t n = strlen(m);
  while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == '\r'))
    m[--n] = '\0';
  srv_store__set_error(store->error, "%s: %s: %s", store->path, what, m[0] ? m : "failed");
  return err;
}

/* The SRV_STORE_E* code of a failed result. */
static int result_err(const PGresult *res) {
  const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
  if (state == NULL)
    return SRV_STORE_EIO;
  if (strncmp(state, "23", 2) == 0 || strcmp(state, "40001") == 0) /* A constraint, the fence. */
    return SRV_STORE_ECONFLICT;
  if (strcmp(state, "53100") == 0)
    return SRV_STORE_EFULL;
  if (strcmp(state, "55P03") == 0) /* lock_not_available: the lease, held by another server. */
    return SRV_STORE_ELOCKED;
  if (strncmp(state, "08", 2) == 0 || strncmp(state, "57", 2) == 0 || strncmp(state, "53", 2) == 0)
    return SRV_STORE_EIO;
  if (strcmp(state, "42501") == 0)
    return SRV_STORE_EACCES;
  if (strcmp(state, "25006") == 0)
    return SRV_STORE_EREADONLY;
  return SRV_STORE_EINTERNAL;
}

/* ---- SQL ------------------------------------------------------------------------------------ */

/* PostgreSQL's text of SQLite's: ?N becomes $N (outside quotes). */
static char *renumber(const char *sql) {
  size_t n = strlen(sql);
  char *out = malloc(n + 1);
  if (out == NULL)
    return NULL;
  bool quoted = false;
  size_t j = 0;
  for (size_t i = 0; i < n; i++) {
    char c = sql[i];
    if (c == '\'')
      quoted = !quoted;
    out[j++] = !quoted && c == '?' ? '$' : c;
  }
  out[j] = '\0';
  return out;
}

static int make_sql(srv_store_pg *pg) {
  for (int i = 0; i < PGS_COUNT; i++) {
    const char *text = i >= STMT_COUNT ? pg_only[i - STMT_COUNT] : pg_dialect((srv_store__stmt)i);
    if (text == NULL)
      text = srv_store__sql((srv_store__stmt)i);
    if (text == NULL || (pg->sql[i] = renumber(text)) == NULL)
      return SRV_STORE_ENOMEM;
  }
  return 0;
}

/* ---- Batches in memory ---------------------------------------------------------------------- */

static void batch_clear(pg_batch *b) {
  b->n = 0;
  b->len = 0;
  b->n_ops = 0;
}

static void batch_free(pg_batch *b) {
  free(b->stmts);
  free(b->arena);
  free(b->ops);
  memset(b, 0, sizeof *b);
}

static int arena_put(pg_batch *b, const void *p, size_t n) {
  if (srv_store__grow((void **)&b->arena, &b->alloc, b->len + n, 1) != 0)
    return -1;
  memcpy(b->arena + b->len, p, n);
  b->len += n;
  return 0;
}

/* Appends statement id with its arguments (copied). Returns 0 or -1 without memory. */
static int batch_add(pg_batch *b, int id, const srv_store__val *args, size_t n) {
  if (n > PG_MAX_PARAMS || srv_store__grow((void **)&b->stmts, &b->cap, b->n + 1, sizeof *b->stmts))
    return -1;
  size_t off = b->len;
  for (size_t i = 0; i < n; i++) {
    char num[40];
    const void *p = NULL;
    int32_t len = -1;
    char fmt = 0;
    switch (args[i].type) {
    case ARG_NULL:
      break;
    case ARG_INT:
      len = snprintf(num, sizeof num, "%" PRId64, args[i].i);
      p = num;
      break;
    case ARG_REAL:
      len = snprintf(num, sizeof num, "%.17g", args[i].d);
      p = num;
      break;
    case ARG_TEXT:
      p = args[i].p;
      len = (int32_t)strlen(args[i].p);
      break;
    case ARG_BLOB:
      p = args[i].p;
      len = args[i].len;
      fmt = 1;
      break;
    }
    if (arena_put(b, &len, sizeof len) || arena_put(b, &fmt, 1) ||
        (len > 0 && arena_put(b, p, (size_t)len)) || arena_put(b, "", 1)) {
      b->len = off;
      return -1;
    }
  }
  b->stmts[b->n++] = (pg_stmt){id, (int)n, off};
  return 0;
}

/* The n arguments encoded from p on (batch_add()) as libpq takes them. */
static void params_of(const char *p, int n, const char *values[], int lengths[], int formats[]) {
  for (int i = 0; i < n; i++) {
    int32_t len;
    memcpy(&len, p, sizeof len);
    p += sizeof len;
    formats[i] = *p++;
    values[i] = len < 0 ? NULL : p;
    lengths[i] = len < 0 ? 0 : len;
    p += (len > 0 ? (size_t)len : 0) + 1;
  }
}

/* ---- Columns -------------------------------------------------------------------------------- */

int64_t srv_store__pg_int(const srv_store__cols *s, int i) {
  return PQgetisnull(s->res, s->row, i) ? 0 : strtoll(PQgetvalue(s->res, s->row, i), NULL, 10);
}

double srv_store__pg_real(const srv_store__cols *s, int i) {
  return PQgetisnull(s->res, s->row, i) ? 0 : strtod(PQgetvalue(s->res, s->row, i), NULL);
}

bool srv_store__pg_null(const srv_store__cols *s, int i) {
  return PQgetisnull(s->res, s->row, i) != 0;
}

const char *srv_store__pg_text(const srv_store__cols *s, int i) {
  return PQgetisnull(s->res, s->row, i) ? NULL : PQgetvalue(s->res, s->row, i);
}

int srv_store__pg_ncols(const srv_store__cols *s) {
  return PQnfields(s->res);
}

static int hex(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* bytea comes in text format as \x and two hex digits a byte. */
int srv_store__pg_blob(const srv_store__cols *s, int i, void *out, size_t len) {
  const char *t = srv_store__pg_text(s, i);
  if (t == NULL || t[0] != '\\' || t[1] != 'x' || strlen(t + 2) != 2 * len)
    return -1;
  unsigned char *o = out;
  for (size_t k = 0; k < len; k++) {
    int hi = hex(t[2 + 2 * k]), lo = hex(t[3 + 2 * k]);
    if (hi < 0 || lo < 0)
      return -1;
    o[k] = (unsigned char)(hi << 4 | lo);
  }
  return 0;
}

/* ---- Connections ---------------------------------------------------------------------------- */

/* A connection's keywords: ours first, so that the URL's own (expand_dbname) win. */
static PGconn *connect_start(const char *url, bool blocking) {
  const char *keys[] = {"connect_timeout",
                        "application_name",
                        "keepalives_idle",
                        "keepalives_interval",
                        "keepalives_count",
                        "dbname",
                        NULL};
  const char *vals[] = {PG_CONNECT_S, "mancala-server", "5", "2", "3", url, NULL};
  return blocking ? PQconnectdbParams(keys, vals, 1) : PQconnectStartParams(keys, vals, 1);
}

/* Makes the read connection usable (again). Returns 0 or a negative code with the error set. */
static int reader_ready(srv_store *store) {
  srv_store_pg *pg = store->pg;
  if (pg->r != NULL && PQstatus(pg->r) == CONNECTION_OK)
    return 0;
  if (pg->r == NULL)
    pg->r = connect_start(pg->conninfo, true);
  else
    PQreset(pg->r);
  memset(pg->r_prepared, 0, sizeof pg->r_prepared);
  if (pg->r == NULL)
    return SRV_STORE_ENOMEM;
  if (PQstatus(pg->r) != CONNECTION_OK)
    return pg_fail(store, SRV_STORE_EIO, "cannot connect", PQerrorMessage(pg->r));
  return 0;
}

/* The write connection is set up for batches: non-blocking, in pipeline mode. */
static int writer_setup(srv_store *store) {
  srv_store_pg *pg = store->pg;
  memset(pg->prepared, 0, sizeof pg->prepared);
  pg->w_pid = PQbackendPID(pg->w);
  if (PQsetnonblocking(pg->w, 1) != 0 || PQenterPipelineMode(pg->w) != 1)
    return pg_fail(store, SRV_STORE_EIO, "cannot set up the connection", PQerrorMessage(pg->w));
  pg->state = PG_READY;
  return 0;
}

static void poll_close_cb(uv_handle_t *h) {
  free(h);
}

/* Stops watching the write connection's socket; always before that socket is closed. */
static void poll_drop(srv_store_pg *pg) {
  if (pg->poll != NULL) {
    uv_poll_stop(&pg->poll->h);
    uv_close((uv_handle_t *)&pg->poll->h, poll_close_cb);
    pg->poll = NULL;
  }
  pg->poll_fd = -1;
}

/* Closes the write connection (its poll handle first). */
static void writer_drop(srv_store_pg *pg) {
  poll_drop(pg);
  if (pg->leased && pg->w != NULL)
    pg->lease_pid = pg->w_pid;
  if (pg->w != NULL)
    PQfinish(pg->w);
  pg->w = NULL;
  pg->w_pid = 0;
  pg->state = PG_DOWN;
  pg->leased = false; /* A session lock: it ends with the session. */
}

/* One value of sql run on the write connection while it blocks (before its pipeline mode), into
 * out (may be NULL). Returns 0, or a negative code with the error set. */
static int writer_value(srv_store *store, const char *sql, char *out, size_t size) {
  PGresult *res = PQexec(store->pg->w, sql);
  int rc = 0;
  if (PQresultStatus(res) != PGRES_TUPLES_OK)
    rc = pg_fail(store, res ? result_err(res) : SRV_STORE_EIO, "cannot take the lease",
                 PQerrorMessage(store->pg->w));
  else if (out != NULL)
    snprintf(out, size, "%s", PQntuples(res) > 0 ? PQgetvalue(res, 0, 0) : "");
  PQclear(res);
  return rc;
}

/* Takes the lease on the new write connection, waiting PG_LEASE_WAIT_MS for a holder to let it
 * go (the backend of a server that was just killed: it may be finishing that server's last
 * COMMIT), then taking it over: the holder's backend terminated, and waited for. Returns 0, or a
 * negative code (SRV_STORE_ELOCKED: it could not be taken). */
static int lease_take(srv_store *store) {
  srv_store_pg *pg = store->pg;
  uint64_t start = now_ms(), t0 = start;
  bool took_over = false, said = false;
  for (;;) {
    char got[8];
    int rc = writer_value(store, "SELECT pg_try_advisory_lock(" PG_LEASE_KEY ")", got, sizeof got);
    if (rc != 0)
      return rc;
    if (got[0] == 't') {
      pg->leased = true;
      if (said)
        srv_log_info("store", "%s: the lease is ours after %llu ms", store->path,
                     (unsigned long long)(now_ms() - start));
      return 0;
    }
    if (!said) {
      srv_log_warn("store",
                   "%s: another connection holds the lease (a server stopped a moment ago, or "
                   "one still running): waiting up to %d ms for it",
                   store->path, PG_LEASE_WAIT_MS);
      said = true;
    }
    if (now_ms() - t0 < PG_LEASE_WAIT_MS) {
      nanosleep(&(struct timespec){0, 50 * 1000000L}, NULL);
      continue;
    }
    if (took_over)
      return pg_fail(store, SRV_STORE_ELOCKED, "cannot take the lease",
                     "its holder did not end when terminated (another role's connection?)");
    if (pg->no_takeover)
      return pg_fail(store, SRV_STORE_ELOCKED, "cannot take the lease",
                     "a server is running on this database (stop it first)");
    /* The holder: a backend whose client is gone and was not noticed, or another server. */
    char holder[256];
    rc = writer_value(store,
                      "SELECT string_agg(format('backend %s (%s from %s)', l.pid, "
                      "a.application_name, coalesce(host(a.client_addr), 'a local socket')), "
                      "', ') || ': ' || bool_and(pg_terminate_backend(l.pid, 5000)) "
                      "FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid "
                      "WHERE l.pid <> pg_backend_pid() AND " PG_LEASE_HELD,
                      holder, sizeof holder);
    if (rc != 0)
      return rc;
    srv_log_warn("store", "%s: the lease was not let go in %d ms: taken over from %s", store->path,
                 PG_LEASE_WAIT_MS, holder[0] ? holder : "a holder that has just ended");
    took_over = true;
    t0 = now_ms() - PG_LEASE_WAIT_MS + 1000; /* A second more for the lock to be released. */
  }
}

/* Makes the write connection now, blocking (open, and commits outside the loop); at open (lease)
 * it takes the lease too, which later connections ask for in their first batch. */
static int writer_connect_blocking(srv_store *store, bool lease) {
  srv_store_pg *pg = store->pg;
  writer_drop(pg);
  pg->w = connect_start(pg->conninfo, true);
  if (pg->w == NULL)
    return SRV_STORE_ENOMEM;
  int err = 0;
  if (PQstatus(pg->w) != CONNECTION_OK)
    err = pg_fail(store, SRV_STORE_EIO, "cannot connect", PQerrorMessage(pg->w));
  else if (lease && !pg->shared)
    err = lease_take(store);
  if (err != 0) {
    writer_drop(pg);
    return err;
  }
  return writer_setup(store);
}

/* ---- Sending a batch and reading its results ------------------------------------------------ */

/* Sends statement st of b (preparing it first on this connection). Returns 1 for each result it
 * adds to wait for, or 0 when libpq refused. */
static int send_stmt(srv_store_pg *pg, const pg_batch *b, const pg_stmt *st, int *expect) {
  char name[16];
  snprintf(name, sizeof name, "s%d", st->id);
  if (!pg->prepared[st->id]) {
    if (!PQsendPrepare(pg->w, name, pg->sql[st->id], 0, NULL))
      return 0;
    pg->prepared[st->id] = true;
    (*expect)++;
  }
  const char *values[PG_MAX_PARAMS];
  int lengths[PG_MAX_PARAMS], formats[PG_MAX_PARAMS];
  params_of(b->arena + st->off, st->n, values, lengths, formats);
  if (!PQsendQueryPrepared(pg->w, name, st->n, values, lengths, formats, 0))
    return 0;
  (*expect)++;
  return 1;
}

/* What a batch does before its writes, as statements of b: the end of the backends that may
 * still hold a batch in doubt, the lease on a new connection (after them: one of them may hold
 * it), then the undo of the batches in doubt (under the lease: no batch of ours can still go in
 * behind it). */
static int add_undo(srv_store_pg *pg, pg_batch *b) {
  for (size_t d = 0; d < pg->n_doubts; d++)
    if (pg->doubts[d].old_pid > 0 &&
        batch_add(b, PGS_TERMINATE, STORE_ARGS(arg_int(pg->doubts[d].old_pid))) != 0)
      return -1;
  pg->lease_sent = !pg->shared && !pg->leased;
  if (pg->lease_sent && pg->lease_pid > 0 &&
      batch_add(b, PGS_LEASE_BACK, STORE_ARGS(arg_int(pg->lease_pid))) != 0)
    return -1;
  if (pg->lease_sent &&
      (batch_add(b, PGS_LEASE_WAIT, NULL, 0) != 0 || batch_add(b, PGS_LEASE, NULL, 0) != 0 ||
       batch_add(b, PGS_LEASE_DONE, NULL, 0) != 0))
    return -1;
  for (size_t d = 0; d < pg->n_doubts; d++) {
    const pg_doubt *dt = &pg->doubts[d];
    for (size_t i = 0; i < dt->n_ops; i++) {
      const srv_store_op *op = &dt->ops[i];
      srv_store__val g = arg_int(op->game), node = arg_text(pg->node), seq = arg_int(dt->seq);
      int rc = 0;
      if (op->kind == SRV_STORE_OP_MOVE)
        rc = batch_add(b, PGS_UNDO_MOVES, STORE_ARGS(g, node, seq, arg_int(op->ply)));
      else if (op->kind == SRV_STORE_OP_GAME_START)
        rc = batch_add(b, PGS_UNDO_ROOM, STORE_ARGS(g, node, seq)) ||
             batch_add(b, PGS_UNDO_GAME_MOVES, STORE_ARGS(g, node, seq)) ||
             batch_add(b, PGS_UNDO_GAME, STORE_ARGS(g, node, seq));
      else if (op->kind == SRV_STORE_OP_GAME_FINISH)
        rc = batch_add(b, PGS_UNDO_FINISH, STORE_ARGS(g, node, seq)) ||
             batch_add(b, PGS_UNDO_RATED, STORE_ARGS(g, node, seq));
      if (rc != 0)
        return -1;
    }
  }
  return 0;
}

/* Sends the batch in flight: BEGIN, the undo of the batches in doubt, its writes, its mark,
 * COMMIT, a sync. Returns 0 or a negative code (nothing more can be sent on the connection). */
static int flight_send(srv_store *store) {
  srv_store_pg *pg = store->pg;
  pg_batch undo = {0};
  int *expect = &pg->expect;
  *expect = 0;
  pg->flight_seq = ++pg->seq;
  if (add_undo(pg, &undo) != 0 ||
      batch_add(&undo, PGS_MARK, STORE_ARGS(arg_text(pg->node), arg_int(pg->flight_seq))) != 0) {
    batch_free(&undo);
    return pg_fail(store, SRV_STORE_ENOMEM, "cannot send a batch", "out of memory");
  }
  pg_stmt begin = {STMT_BEGIN, 0, 0}, commit = {STMT_COMMIT, 0, 0};
  bool ok = true;
  if (pg->need_rollback) {
    /* After a failed batch: its transaction ended, and its statements forgotten (which of them
     * were prepared before the failure is not worth knowing: all are prepared again). */
    ok = PQsendQueryParams(pg->w, "ROLLBACK", 0, NULL, NULL, NULL, NULL, 0) &&
         PQsendQueryParams(pg->w, "DEALLOCATE ALL", 0, NULL, NULL, NULL, NULL, 0);
    *expect += 2;
    memset(pg->prepared, 0, sizeof pg->prepared);
    pg->need_rollback = false;
  }
  ok = ok && send_stmt(pg, &undo, &begin, expect);
  /* The undo first, then the writes, then the mark (the last statement of undo). */
  for (size_t i = 0; ok && i + 1 < undo.n; i++)
    ok = send_stmt(pg, &undo, &undo.stmts[i], expect);
  /* The fence: a claimed game this batch writes must still be this writer's, checked under a
   * lock of its row (a claim by another writer waits for this transaction, or refuses it). */
  for (size_t i = 0; ok && i < pg->flight.n_ops; i++) {
    const srv_store_op *op = &pg->flight.ops[i];
    int64_t epoch = -1;
    for (size_t c = 0; c < pg->n_claims; c++)
      if (pg->claims[c].game == op->game)
        epoch = pg->claims[c].epoch;
    bool first = true; /* Once a game a batch. */
    for (size_t j = 0; j < i; j++)
      first = first && pg->flight.ops[j].game != op->game;
    if (op->game > 0 && epoch >= 0 && first) {
      pg_batch fence = {0};
      ok = batch_add(&fence, PGS_FENCE, STORE_ARGS(arg_int(op->game), arg_int(epoch))) == 0 &&
           send_stmt(pg, &fence, &fence.stmts[0], expect);
      batch_free(&fence);
    }
  }
  for (size_t i = 0; ok && i < pg->flight.n; i++)
    ok = send_stmt(pg, &pg->flight, &pg->flight.stmts[i], expect);
  /* A cluster's node fences the games it never claimed too, at the epoch a first owner holds:
   * after the writes, since the batch may be the one that makes the game's row. */
  for (size_t i = 0; ok && pg->fence_all && i < pg->flight.n_ops; i++) {
    const srv_store_op *op = &pg->flight.ops[i];
    bool claimed = false, first = true;
    for (size_t c = 0; c < pg->n_claims && !claimed; c++)
      claimed = pg->claims[c].game == op->game;
    for (size_t j = 0; j < i; j++)
      first = first && pg->flight.ops[j].game != op->game;
    if (op->game > 0 && !claimed && first) {
      pg_batch fence = {0};
      ok = batch_add(&fence, PGS_FENCE, STORE_ARGS(arg_int(op->game), arg_int(0))) == 0 &&
           send_stmt(pg, &fence, &fence.stmts[0], expect);
      batch_free(&fence);
    }
  }
  ok = ok && send_stmt(pg, &undo, &undo.stmts[undo.n - 1], expect) &&
       send_stmt(pg, &undo, &commit, expect) && PQpipelineSync(pg->w) == 1;
  batch_free(&undo);
  pg->doubts_sent = pg->n_doubts;
  if (!ok)
    return pg_fail(store, SRV_STORE_EIO, "cannot send a batch", PQerrorMessage(pg->w));
  return 0;
}

/* Reads what arrived. Returns 1 when the sync's result came (the batch's outcome is known: see
 * flight_failed), 0 when more is awaited, or a negative code when the connection broke. */
static int flight_read(srv_store *store) {
  srv_store_pg *pg = store->pg;
  if (PQconsumeInput(pg->w) == 0)
    return pg_fail(store, SRV_STORE_EIO, "the connection broke", PQerrorMessage(pg->w));
  int nulls = 0;
  while (!PQisBusy(pg->w)) {
    PGresult *res = PQgetResult(pg->w);
    if (res == NULL) {
      if (++nulls > 1)
        break;
      continue;
    }
    nulls = 0;
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_PIPELINE_SYNC) {
      PQclear(res);
      return 1;
    }
    if (st == PGRES_FATAL_ERROR && !pg->flight_failed) {
      pg->flight_failed = true;
      pg->flight_err = result_err(res);
      snprintf(pg->flight_msg, sizeof pg->flight_msg, "%s", PQresultErrorMessage(res));
    }
    PQclear(res);
  }
  if (PQstatus(pg->w) == CONNECTION_BAD)
    return pg_fail(store, SRV_STORE_EIO, "the connection broke", PQerrorMessage(pg->w));
  return 0;
}

/* Forgets the doubts the batch just committed has undone. */
static void doubts_done(srv_store_pg *pg, size_t n) {
  if (n == 0)
    return;
  for (size_t i = 0; i < n; i++)
    free(pg->doubts[i].ops);
  memmove(pg->doubts, pg->doubts + n, (pg->n_doubts - n) * sizeof *pg->doubts);
  pg->n_doubts -= n;
}

/* The batch in flight is in doubt (sent, its result never came): remembered for the undo. */
static void doubt_add(srv_store_pg *pg, int old_pid) {
  pg_doubt *d = realloc(pg->doubts, (pg->n_doubts + 1) * sizeof *d);
  srv_store_op *ops = malloc((pg->flight.n_ops ? pg->flight.n_ops : 1) * sizeof *ops);
  if (d != NULL)
    pg->doubts = d;
  if (d == NULL || ops == NULL) {
    free(ops);
    return; /* Without memory the undo is impossible; the restart's recovery replays it. */
  }
  memcpy(ops, pg->flight.ops, pg->flight.n_ops * sizeof *ops);
  pg->doubts[pg->n_doubts++] = (pg_doubt){pg->flight_seq, ops, pg->flight.n_ops, old_pid};
}

static int poll_watch(srv_store *store, int events);
static void pending_forget(srv_store_pg *pg, bool in_flight);

/* The outcome of the batch in flight is known (rc 0: committed): the store's books, as SQLite's
 * commit keeps them (srv_store_batch.c), then the callback. */
static void flight_end(srv_store *store, int rc) {
  srv_store_pg *pg = store->pg;
  uint64_t dt = now_ns() - pg->flight_t0;
  if (store->failed_reported) {
    store->n_failed = 0;
    store->failed_reported = false;
  }
  if (rc == 0 && pg->flight.n > 0) {
    for (size_t i = 0; i < pg->flight.n_ops; i++) {
      srv_store_op_kind k = pg->flight.ops[i].kind;
      store->stats.game_writes +=
          k == SRV_STORE_OP_GAME_START || k == SRV_STORE_OP_MOVE || k == SRV_STORE_OP_GAME_FINISH;
    }
    store->stats.commits++;
    store->stats.commit_ns_total += dt;
    if (dt > store->stats.commit_ns_max)
      store->stats.commit_ns_max = dt;
  }
  if (rc == 0) {
    doubts_done(pg, pg->doubts_sent);
  } else if (srv_store__grow((void **)&store->failed, &store->cap_failed,
                             store->n_failed + pg->flight.n_ops, sizeof *store->failed) == 0) {
    memcpy(store->failed + store->n_failed, pg->flight.ops,
           pg->flight.n_ops * sizeof *store->failed);
    store->n_failed += pg->flight.n_ops;
  }
  pg->doubts_sent = 0;
  batch_clear(&pg->flight);
  pending_forget(pg, true);
  /* Idle: the socket is still watched (not keeping the loop alive), so that a database that goes
   * away is noticed before the next commit needs it (/healthz). */
  if (pg->poll != NULL && pg->state == PG_READY && poll_watch(store, UV_READABLE) != 0)
    writer_drop(pg);
  if (store->n_failed > 0) {
    if (rc == 0)
      rc = SRV_STORE_EIO; /* A write of it was lost before the commit (no memory). */
    store->failed_reported = true;
    store->stats.failed_commits++;
  }
  srv_store_commit_cb cb = pg->cb;
  void *arg = pg->cb_arg;
  pg->cb = NULL;
  if (cb)
    cb(arg, rc);
}

/* The connection broke or timed out with the batch in flight: in doubt, reported lost. */
static void flight_broken(srv_store *store, int err, bool timed_out) {
  srv_store_pg *pg = store->pg;
  srv_log_warn("store",
               "%s: the connection broke with a batch in flight (%s): it is reported lost, "
               "and undone by the next commit if it went in",
               store->path, timed_out ? "no answer" : "closed");
  doubt_add(pg, timed_out && pg->w ? pg->w_pid : 0);
  writer_drop(pg);
  pg->retry_at = 0; /* Try again at once. */
  flight_end(store, err);
}

/* The result of the batch in flight arrived. */
static void flight_result(srv_store *store) {
  srv_store_pg *pg = store->pg;
  pg->state = PG_READY;
  int rc = 0;
  if (pg->flight_failed && pg->lease_sent && pg->flight_err == SRV_STORE_ELOCKED) {
    pg->deposed = true;
    rc = pg_fail(store, SRV_STORE_ELOCKED, "commit refused", PG_DEPOSED);
    srv_log_error("store", "%s", store->error);
    pg->need_rollback = true;
  } else if (pg->flight_failed) {
    rc = pg_fail(store, pg->flight_err, "commit failed", pg->flight_msg);
    /* The failed transaction stays open until a ROLLBACK: the next batch sends one first. */
    pg->need_rollback = true;
  } else if (pg->lease_sent) {
    pg->leased = true;
    if (pg->lease_pid > 0)
      srv_log_info("store",
                   "%s: the lease is ours again (the backend of the dropped connection, %d, was "
                   "ended if it still held it)",
                   store->path, pg->lease_pid);
    pg->lease_pid = 0;
  }
  pg->lease_sent = false;
  flight_end(store, rc);
}

/* ---- On the loop ---------------------------------------------------------------------------- */

static void on_poll(uv_poll_t *h, int status, int events);
static void connect_step(srv_store *store);

/* Watches the write connection's socket for events (and starts watching a new one). */
static int poll_watch(srv_store *store, int events) {
  srv_store_pg *pg = store->pg;
  int fd = PQsocket(pg->w);
  if (fd < 0)
    return SRV_STORE_EIO;
  if (pg->poll != NULL && pg->poll_fd != fd)
    poll_drop(pg);
  if (pg->poll == NULL) {
    pg->poll = malloc(sizeof *pg->poll);
    if (pg->poll == NULL)
      return SRV_STORE_ENOMEM;
    if (uv_poll_init(pg->loop, &pg->poll->h, fd) != 0) {
      free(pg->poll);
      pg->poll = NULL;
      return SRV_STORE_EIO;
    }
    pg->poll->h.data = SRV_OWN_TAG;
    pg->poll->store = store;
    pg->poll->events = 0;
    pg->poll_fd = fd;
  }
  /* A flight keeps the loop alive (a stop waits for its outcome); an idle or a connecting socket
   * not. */
  if (pg->state == PG_FLIGHT)
    uv_ref((uv_handle_t *)&pg->poll->h);
  else
    uv_unref((uv_handle_t *)&pg->poll->h);
  /* libuv takes the socket out of epoll and puts it back on every uv_poll_start(): only when the
   * events change (a move's batch asked for the same ones each time: two epoll_ctl calls). */
  if (pg->poll->events == events && uv_is_active((uv_handle_t *)&pg->poll->h))
    return 0;
  pg->poll->events = events;
  return uv_poll_start(&pg->poll->h, events, on_poll) == 0 ? 0 : SRV_STORE_EIO;
}

/* What to wait for while a batch is in flight: writable while libpq has more to send. */
static void flight_pump(srv_store *store) {
  srv_store_pg *pg = store->pg;
  int f = PQflush(pg->w);
  if (f < 0) {
    flight_broken(store, pg_fail(store, SRV_STORE_EIO, "cannot send", PQerrorMessage(pg->w)),
                  false);
    return;
  }
  if (poll_watch(store, UV_READABLE | (f == 1 ? UV_WRITABLE : 0)) != 0)
    flight_broken(store, SRV_STORE_EIO, false);
}

static void on_poll(uv_poll_t *h, int status, int events) {
  srv_store *store = ((pg_poll *)h)->store;
  srv_store_pg *pg = store->pg;
  (void)events;
  if (pg->state == PG_CONNECTING) {
    connect_step(store);
    return;
  }
  if (pg->state == PG_READY) {
    /* Idle and readable: the server closed the connection (a shutdown, a crash), or a notice. */
    if (status < 0 || PQconsumeInput(pg->w) == 0 || PQstatus(pg->w) == CONNECTION_BAD) {
      pg_fail(store, SRV_STORE_EIO, "the connection broke", PQerrorMessage(pg->w));
      srv_log_warn("store", "%s", store->error);
      writer_drop(pg);
      pg->retry_at = 0;
    }
    return;
  }
  if (pg->state != PG_FLIGHT)
    return;
  if (status < 0) {
    flight_broken(store, pg_fail(store, SRV_STORE_EIO, "poll", uv_strerror(status)), false);
    return;
  }
  int rc = flight_read(store);
  if (rc < 0)
    flight_broken(store, rc, false);
  else if (rc == 1)
    flight_result(store);
  else
    flight_pump(store);
}

/* One step of making the write connection in the background. */
static void connect_step(srv_store *store) {
  srv_store_pg *pg = store->pg;
  PostgresPollingStatusType st = PQconnectPoll(pg->w);
  if (st == PGRES_POLLING_OK) {
    if (writer_setup(store) != 0 || poll_watch(store, UV_READABLE) != 0)
      writer_drop(pg);
    else
      srv_log_info("store", "%s: connected again", store->path);
    return;
  }
  if (st == PGRES_POLLING_FAILED ||
      poll_watch(store, st == PGRES_POLLING_READING ? UV_READABLE : UV_WRITABLE) != 0) {
    pg_fail(store, SRV_STORE_EIO, "cannot connect", PQerrorMessage(pg->w));
    srv_log_warn("store", "%s (trying again every second)", store->error);
    writer_drop(pg);
    pg->retry_at = now_ms() + PG_RETRY_MS;
  }
}

/* Starts making the write connection again, when it is time. */
static void connect_start_async(srv_store *store) {
  srv_store_pg *pg = store->pg;
  if (pg->state != PG_DOWN || now_ms() < pg->retry_at)
    return;
  pg->retry_at = now_ms() + PG_RETRY_MS;
  pg->w = connect_start(pg->conninfo, false);
  if (pg->w == NULL || PQstatus(pg->w) == CONNECTION_BAD) {
    writer_drop(pg);
    return;
  }
  pg->state = PG_CONNECTING;
  pg->connect_t0 = now_ns();
  if (poll_watch(store, UV_WRITABLE) != 0)
    writer_drop(pg);
}

/* Every second: a flight or a connection that waits too long is given up; a connection that is
 * down is made again. */
static void on_timer(uv_timer_t *t) {
  srv_store *store = ((pg_timer *)t)->store;
  srv_store_pg *pg = store->pg;
  uint64_t waited_ms = (now_ns() - pg->flight_t0) / 1000000u;
  uint64_t connecting_ms = (now_ns() - pg->connect_t0) / 1000000u;
  if (pg->state == PG_FLIGHT && waited_ms > PG_FLIGHT_MS)
    flight_broken(store, pg_fail(store, SRV_STORE_EIO, "commit failed", "no answer within 10 s"),
                  true);
  else if (pg->state == PG_CONNECTING && connecting_ms > PG_FLIGHT_MS)
    writer_drop(pg);
  if (pg->state == PG_DOWN)
    connect_start_async(store);
}

static int attach(srv_store *store, uv_loop_t *loop) {
  srv_store_pg *pg = store->pg;
  if (pg->loop == loop)
    return 0;
  if (pg->loop != NULL)
    return SRV_STORE_EINVAL;
  pg->timer = malloc(sizeof *pg->timer);
  if (pg->timer == NULL)
    return SRV_STORE_ENOMEM;
  if (uv_timer_init(loop, &pg->timer->h) != 0) {
    free(pg->timer);
    pg->timer = NULL;
    return SRV_STORE_EIO;
  }
  pg->timer->h.data = SRV_OWN_TAG;
  pg->timer->store = store;
  pg->hold = malloc(sizeof *pg->hold);
  if (pg->hold == NULL || uv_timer_init(loop, &pg->hold->h) != 0) {
    free(pg->hold);
    pg->hold = NULL;
    return SRV_STORE_ENOMEM;
  }
  pg->hold->h.data = SRV_OWN_TAG;
  pg->hold->store = store;
  uv_timer_start(&pg->timer->h, on_timer, 1000, 1000);
  uv_unref((uv_handle_t *)&pg->timer->h); /* It never keeps the loop alive by itself. */
  pg->loop = loop;
  return 0;
}

/* Hands the batch being built over: into flight, sent. Returns 0, or a negative code when it
 * could not be sent (the connection is down: the batch is lost, reported by flight_end()). */
static void flight_take(srv_store *store) {
  srv_store_pg *pg = store->pg;
  for (size_t i = 0; i < pg->n_pending; i++)
    pg->pending[i].in_flight = true;
  pg_batch t = pg->flight;
  pg->flight = pg->build;
  pg->build = t;
  batch_clear(&pg->build);
  /* The batch's writes, as the store listed them (srv_store__write_end()). */
  if (srv_store__grow((void **)&pg->flight.ops, &pg->flight.cap_ops, store->n_ops,
                      sizeof *pg->flight.ops) == 0) {
    memcpy(pg->flight.ops, store->ops, store->n_ops * sizeof *store->ops);
    pg->flight.n_ops = store->n_ops;
  }
  store->in_txn = false;
  store->n_ops = 0;
  pg->flight_failed = false;
  pg->flight_t0 = now_ns();
}

/* Sends the batch taken into flight (flight_take()). Returns 0 (its outcome comes later), or a
 * negative code when it could not be sent (the connection is down: report it lost). */
static int flight_send_taken(srv_store *store) {
  srv_store_pg *pg = store->pg;
  if (pg->deposed)
    return pg_fail(store, SRV_STORE_ELOCKED, "commit refused", PG_DEPOSED);
  if (pg->state != PG_READY)
    return pg_fail(store, SRV_STORE_EIO, "commit refused",
                   "no connection to PostgreSQL (trying again every second)");
  int rc = flight_send(store);
  if (rc != 0) {
    /* Part of it may be on its way: in doubt. */
    doubt_add(pg, 0);
    writer_drop(pg);
    return rc;
  }
  pg->state = PG_FLIGHT;
  return 0;
}

static int flight_start(srv_store *store) {
  flight_take(store);
  return flight_send_taken(store);
}

/* Sends the batch taken into flight (its outcome comes to pg->cb). */
static void flight_go(srv_store *store) {
  int rc = flight_send_taken(store);
  if (rc != 0)
    flight_end(store, rc);
  else
    flight_pump(store);
}

/* A held batch's time is up: sent if the connection is back, else refused (flight_start()). */
static void on_hold(uv_timer_t *t) {
  srv_store *store = ((pg_timer *)t)->store;
  store->pg->holding = false;
  flight_go(store);
}

int srv_store__pg_commit_async(srv_store *store, uv_loop_t *loop, srv_store_commit_cb cb,
                               void *arg) {
  srv_store_pg *pg = store->pg;
  if (pg->state == PG_FLIGHT || pg->cb != NULL || pg->holding)
    return SRV_STORE_EINVAL;
  int rc = attach(store, loop);
  if (rc != 0)
    return rc;
  pg->cb = cb;
  pg->cb_arg = arg;
  if (!store->in_txn) {
    pg->flight_t0 = now_ns();
    flight_end(store, 0); /* Nothing to send: only a write lost earlier to report. */
    return 0;
  }
  if (pg->state == PG_DOWN)
    connect_start_async(store);
  flight_take(store); /* Writes from now on form the next batch, whatever happens to this one. */
  if (pg->state != PG_READY) {
    /* Down: the batch waits a little for the connection being made, then goes or is refused. */
    pg->holding = true;
    uv_timer_start(&pg->hold->h, on_hold, PG_HOLD_MS, 0);
    return 0;
  }
  flight_go(store);
  return 0;
}

int srv_store__pg_watch(srv_store *store, uv_loop_t *loop) {
  srv_store_pg *pg = store->pg;
  int rc = attach(store, loop);
  if (rc == 0 && pg->state == PG_READY && poll_watch(store, UV_READABLE) != 0)
    writer_drop(pg); /* Made again by the timer. */
  return rc;
}

bool srv_store__pg_busy(const srv_store *store) {
  return store->pg->state == PG_FLIGHT || store->pg->holding;
}

/* Waits (blocking) for the batch in flight's outcome, up to PG_FLIGHT_MS. */
static void flight_wait(srv_store *store) {
  srv_store_pg *pg = store->pg;
  while (pg->state == PG_FLIGHT) {
    int f = PQflush(pg->w);
    struct pollfd p = {PQsocket(pg->w), (short)(POLLIN | (f == 1 ? POLLOUT : 0)), 0};
    uint64_t waited_ms = (now_ns() - pg->flight_t0) / 1000000u;
    if (f < 0 || waited_ms > PG_FLIGHT_MS) {
      flight_broken(store, pg_fail(store, SRV_STORE_EIO, "commit failed", PQerrorMessage(pg->w)),
                    f >= 0);
      return;
    }
    int n = poll(&p, 1, 100);
    if (n < 0 && errno != EINTR) {
      flight_broken(store, pg_fail(store, SRV_STORE_EIO, "poll", strerror(errno)), false);
      return;
    }
    if (n <= 0)
      continue;
    int rc = flight_read(store);
    if (rc < 0)
      flight_broken(store, rc, false);
    else if (rc == 1)
      flight_result(store);
  }
}

void srv_store__pg_commit_wait(srv_store *store) {
  srv_store_pg *pg = store->pg;
  if (pg->holding) { /* A stop: the held batch goes now, on a connection made now if need be. */
    uv_timer_stop(&pg->hold->h);
    pg->holding = false;
    if (pg->state != PG_READY)
      writer_connect_blocking(store, false);
    int rc = flight_send_taken(store);
    if (rc != 0) {
      flight_end(store, rc);
      return;
    }
  }
  flight_wait(store);
}

/* The synchronous commit's callback: its result. */
static void sync_done(void *arg, int rc) {
  *(int *)arg = rc;
}

int srv_store__pg_commit(srv_store *store) {
  srv_store_pg *pg = store->pg;
  flight_wait(store); /* One in flight from the loop (a stop): its callback runs first. */
  int rc = 0;
  pg->cb = sync_done;
  pg->cb_arg = &rc;
  if (!store->in_txn) {
    pg->flight_t0 = now_ns();
    flight_end(store, 0);
    return rc;
  }
  if (pg->state != PG_READY)
    writer_connect_blocking(store, false);
  int err = flight_start(store);
  if (err != 0) {
    flight_end(store, err);
    return rc;
  }
  flight_wait(store);
  return rc;
}

/* ---- The statement runner's PostgreSQL side (srv_store_stmt.c) ------------------------------ */

int srv_store__pg_exec(srv_store *store, srv_store__stmt id, const srv_store__val *args, size_t n) {
  /* Only writes run through exec; they join the batch, sent at the commit. */
  return batch_add(&store->pg->build, (int)id, args, n) == 0 ? SQLITE_OK : SQLITE_NOMEM;
}

static int each_once(srv_store *store, srv_store__stmt id, const srv_store__val *args, size_t n,
                     srv_store__row row, void *ctx, const char *what, bool *broken);

int srv_store__pg_each(srv_store *store, srv_store__stmt id, const srv_store__val *args, size_t n,
                       srv_store__row row, void *ctx, const char *what) {
  /* A connection that broke since its last use (PostgreSQL restarted) is made again once. */
  bool broken = false;
  int rc = each_once(store, id, args, n, row, ctx, what, &broken);
  if (broken)
    rc = each_once(store, id, args, n, row, ctx, what, &broken);
  return rc;
}

static int each_once(srv_store *store, srv_store__stmt id, const srv_store__val *args, size_t n,
                     srv_store__row row, void *ctx, const char *what, bool *broken) {
  *broken = false;
  srv_store_pg *pg = store->pg;
  int rc = reader_ready(store);
  if (rc != 0)
    return rc;
  char name[16];
  snprintf(name, sizeof name, "s%d", (int)id);
  if (!pg->r_prepared[id]) {
    PGresult *res = PQprepare(pg->r, name, pg->sql[id], 0, NULL);
    bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
    if (!ok)
      rc = pg_fail(store, res ? result_err(res) : SRV_STORE_EIO, what, PQerrorMessage(pg->r));
    PQclear(res);
    if (!ok) {
      *broken = PQstatus(pg->r) != CONNECTION_OK;
      return rc;
    }
    pg->r_prepared[id] = true;
  }
  pg_batch one = {0};
  if (batch_add(&one, (int)id, args, n) != 0)
    return SRV_STORE_ENOMEM;
  const char *values[PG_MAX_PARAMS];
  int lengths[PG_MAX_PARAMS], formats[PG_MAX_PARAMS];
  params_of(one.arena, (int)n, values, lengths, formats);
  PGresult *res = PQexecPrepared(pg->r, name, (int)n, values, lengths, formats, 0);
  batch_free(&one);
  ExecStatusType st = PQresultStatus(res);
  if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
    rc = pg_fail(store, res ? result_err(res) : SRV_STORE_EIO, what, PQerrorMessage(pg->r));
    PQclear(res);
    *broken = PQstatus(pg->r) != CONNECTION_OK;
    return rc;
  }
  int count = 0, err = 0;
  srv_store__cols cols = {.res = res};
  for (int i = 0; err == 0 && i < PQntuples(res); i++) {
    cols.row = i;
    err = row(store, &cols, ctx);
    if (err == 0)
      count++;
  }
  PQclear(res);
  return err != 0 ? err : count;
}

void srv_store__pg_drop(srv_store *store) {
  batch_clear(&store->pg->build);
  pending_forget(store->pg, false);
}

/* ---- Opening ------------------------------------------------------------------------------- */

/* Runs sql (several statements, no parameters) on the read connection. */
static int run(srv_store *store, const char *sql, const char *what) {
  PGresult *res = PQexec(store->pg->r, sql);
  ExecStatusType st = PQresultStatus(res);
  int rc = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK
               ? 0
               : pg_fail(store, res ? result_err(res) : SRV_STORE_EIO, what,
                         PQerrorMessage(store->pg->r));
  PQclear(res);
  return rc;
}

/* One integer from sql, or def when it returns no row or NULL. */
static int run_int(srv_store *store, const char *sql, long long def, long long *out) {
  PGresult *res = PQexec(store->pg->r, sql);
  int rc = 0;
  if (PQresultStatus(res) != PGRES_TUPLES_OK)
    rc = pg_fail(store, res ? result_err(res) : SRV_STORE_EIO, "cannot read the schema",
                 PQerrorMessage(store->pg->r));
  else
    *out = PQntuples(res) > 0 && !PQgetisnull(res, 0, 0) ? strtoll(PQgetvalue(res, 0, 0), NULL, 10)
                                                         : def;
  PQclear(res);
  return rc;
}

/* Creates or migrates the schema, in one transaction under an advisory lock (two servers that
 * start at once on a new database: the second waits, then finds it made). */
static int pg_migrate(srv_store *store) {
  int rc = run(store, "BEGIN; SELECT pg_advisory_xact_lock(1296256065)", "cannot lock the schema");
  long long ours = 0, version = 0, tables = 0;
  if (rc == 0)
    rc = run_int(store,
                 "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() "
                 "AND tablename = 'mancala_schema'",
                 0, &ours);
  if (rc == 0 && ours > 0)
    rc = run_int(store, "SELECT max(version) FROM mancala_schema", 0, &version);
  if (rc == 0 && ours == 0)
    rc = run_int(store, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()", 0,
                 &tables);
  if (rc == 0 && ours == 0 && tables > 0) {
    run(store, "ROLLBACK", "rollback");
    srv_store__set_error(store->error, "%s: %s (it holds tables of another program)", store->path,
                         srv_store_strerror(SRV_STORE_ECORRUPT));
    return SRV_STORE_ECORRUPT;
  }
  if (rc == 0 && version > SRV_STORE_SCHEMA_VERSION) {
    run(store, "ROLLBACK", "rollback");
    srv_store__set_error(store->error,
                         "%s: the database has schema version %lld but this program knows "
                         "versions up to %d: run a newer server or restore a backup",
                         store->path, version, SRV_STORE_SCHEMA_VERSION);
    return SRV_STORE_ENEWER;
  }
  if (rc == 0 && version < SRV_STORE_SCHEMA_VERSION) {
    static char sql[16384];
    if (srv_store__schema_sql((int)version, SRV_STORE_SCHEMA_VERSION, true, sql, sizeof sql) < 0)
      rc = SRV_STORE_ENOMEM;
    if (rc == 0)
      rc = run(store, sql, "cannot create the tables");
    /* PostgreSQL's own: the fence of the owner epochs (schema 8), raising serialization_failure. */
    if (rc == 0)
      rc = run(store,
               "CREATE OR REPLACE FUNCTION mancala_fence(g BIGINT, e BIGINT) RETURNS VOID "
               "LANGUAGE plpgsql AS $$ BEGIN "
               "IF (SELECT owner_epoch FROM games WHERE id = g FOR SHARE) IS DISTINCT FROM e THEN "
               "RAISE EXCEPTION 'game % is run by a newer owner (this writer holds epoch %)', g, e "
               "USING ERRCODE = '40001'; END IF; END $$",
               "cannot create the fence");
    char v[160];
    snprintf(v, sizeof v,
             version == 0 ? "CREATE TABLE mancala_schema (version INTEGER NOT NULL); "
                            "INSERT INTO mancala_schema VALUES (%d)"
                          : "UPDATE mancala_schema SET version = %d",
             SRV_STORE_SCHEMA_VERSION);
    if (rc == 0)
      rc = run(store, v, "cannot record the schema version");
    if (rc == 0 && version < 6) {
      /* The key of the public game ids (as SQLite's migration 6 makes it). */
      unsigned char key[16];
      char hexkey[64];
      if (getrandom(key, sizeof key, 0) != (ssize_t)sizeof key)
        rc = pg_fail(store, SRV_STORE_EIO, "cannot make a key", strerror(errno));
      for (size_t i = 0; i < sizeof key; i++)
        snprintf(hexkey + 2 * i, 3, "%02x", key[i]);
      snprintf(v, sizeof v,
               "INSERT INTO secrets (name, value) VALUES ('game_id', '\\x%s'::bytea) "
               "ON CONFLICT DO NOTHING",
               hexkey);
      if (rc == 0)
        rc = run(store, v, "cannot store a key");
    }
  }
  if (rc == 0)
    rc = run(store, "COMMIT", "cannot commit the schema");
  else
    run(store, "ROLLBACK", "rollback");
  return rc;
}

/* A URL without its password, for logs and /healthz. */
static char *display_url(const char *url) {
  char *out = strdup(url);
  if (out == NULL)
    return NULL;
  char *scheme = strstr(out, "://");
  char *at = scheme ? strchr(scheme + 3, '@') : NULL;
  char *colon = scheme ? strchr(scheme + 3, ':') : NULL;
  if (at && colon && colon < at)
    memmove(colon, at, strlen(at) + 1);
  return out;
}

bool srv_store_is_url(const char *location) {
  return location != NULL &&
         (strncmp(location, "postgresql://", 13) == 0 || strncmp(location, "postgres://", 11) == 0);
}

static int pg_new(srv_store *store, const char *url) {
  srv_store_pg *pg = calloc(1, sizeof *pg);
  if (pg == NULL)
    return SRV_STORE_ENOMEM;
  store->pg = pg;
  pg->store = store;
  pg->poll_fd = -1;
  store->lock_fd = -1;
  if ((pg->conninfo = strdup(url)) == NULL || (store->path = display_url(url)) == NULL ||
      make_sql(pg) != 0)
    return SRV_STORE_ENOMEM;
  unsigned char id[8];
  if (getrandom(id, sizeof id, 0) != (ssize_t)sizeof id)
    return SRV_STORE_EIO;
  int n = snprintf(pg->node, sizeof pg->node, "w-");
  for (size_t i = 0; i < sizeof id; i++)
    n += snprintf(pg->node + n, sizeof pg->node - (size_t)n, "%02x", id[i]);
  return 0;
}

int srv_store__pg_open(srv_store *store, const char *url, bool shared, bool no_takeover) {
  int rc = pg_new(store, url);
  if (rc == 0) {
    store->pg->shared = shared;
    store->pg->no_takeover = no_takeover;
  }
  if (rc == 0)
    rc = reader_ready(store);
  if (rc == 0)
    rc = pg_migrate(store);
  if (rc == 0)
    rc = writer_connect_blocking(store, true);
  long long next = 1;
  if (rc == 0)
    rc = run_int(store, "SELECT coalesce(max(id), 0) + 1 FROM games", 1, &next);
  store->pg->next_id = next;
  return rc;
}

int srv_store__pg_open_reader(const srv_store *main, srv_store *store) {
  int rc = pg_new(store, main->pg->conninfo);
  store->reader = true;
  return rc == 0 ? reader_ready(store) : rc;
}

int srv_store__pg_account_pending(srv_store *store, const char *key, const char *player) {
  srv_store_pg *pg = store->pg;
  for (size_t i = 0; i < pg->n_pending; i++)
    if (strcmp(pg->pending[i].key, key) == 0 || strcmp(pg->pending[i].player, player) == 0) {
      srv_store__set_error(store->error, "%s: the name or the player has an account on its way",
                           store->path);
      return SRV_STORE_ECONFLICT;
    }
  if (srv_store__grow((void **)&pg->pending, &pg->cap_pending, pg->n_pending + 1,
                      sizeof *pg->pending) != 0)
    return SRV_STORE_ENOMEM;
  struct pg_pending *p = &pg->pending[pg->n_pending++];
  snprintf(p->key, sizeof p->key, "%s", key);
  snprintf(p->player, sizeof p->player, "%s", player);
  p->in_flight = false;
  return 0;
}

/* Forgets the pending accounts of the batch in flight (its outcome is known) or of the one being
 * built (it was lost before it left). */
static void pending_forget(srv_store_pg *pg, bool in_flight) {
  size_t j = 0;
  for (size_t i = 0; i < pg->n_pending; i++)
    if (pg->pending[i].in_flight != in_flight)
      pg->pending[j++] = pg->pending[i];
  pg->n_pending = j;
}

/* Reads the epoch of a claim's RETURNING. */
static int row_epoch(srv_store *store, const srv_store__cols *c, void *item) {
  (void)store;
  *(int64_t *)item = srv_store__pg_int(c, 0);
  return 0;
}

int srv_store__pg_claim_read(srv_store *store, int64_t game, int64_t *epoch) {
  int64_t e = 0;
  int rc = srv_store__pg_each(store, (srv_store__stmt)PGS_CLAIM, STORE_ARGS(arg_int(game)),
                              row_epoch, &e, "cannot claim a game");
  if (rc == 0)
    return SRV_STORE_ENOTFOUND;
  if (rc < 0)
    return rc;
  *epoch = e;
  return 0;
}

int srv_store__pg_claim(srv_store *store, int64_t game, int64_t *epoch) {
  int64_t e = 0;
  int rc = srv_store__pg_claim_read(store, game, &e);
  if (rc != 0)
    return rc;
  return srv_store__pg_claim_record(store, game, e, epoch);
}

int srv_store__pg_claim_record(srv_store *store, int64_t game, int64_t e, int64_t *epoch) {
  srv_store_pg *pg = store->pg;
  size_t i = 0;
  while (i < pg->n_claims && pg->claims[i].game != game)
    i++;
  if (i == pg->n_claims) {
    if (srv_store__grow((void **)&pg->claims, &pg->cap_claims, i + 1, sizeof *pg->claims) != 0)
      return SRV_STORE_ENOMEM;
    pg->n_claims++;
  }
  pg->claims[i] = (struct pg_claim){game, e};
  *epoch = e;
  return 0;
}

void srv_store__pg_fence_all(srv_store *store) {
  store->pg->fence_all = true;
}

struct pg_conn *srv_store__pg_reader(srv_store *store) {
  return reader_ready(store) == 0 ? store->pg->r : NULL;
}

int64_t srv_store__pg_game_id(srv_store *store, int64_t given) {
  srv_store_pg *pg = store->pg;
  int64_t id = given > 0 ? given : pg->next_id;
  if (id >= pg->next_id)
    pg->next_id = id + 1;
  return id;
}

void srv_store__pg_close(srv_store *store) {
  srv_store_pg *pg = store->pg;
  if (pg == NULL)
    return;
  /* A batch still in flight or held: its outcome first (nothing of it was acknowledged). */
  srv_store__pg_commit_wait(store);
  writer_drop(pg);
  if (pg->timer != NULL) {
    uv_timer_stop(&pg->timer->h);
    uv_close((uv_handle_t *)&pg->timer->h, poll_close_cb);
  }
  if (pg->hold != NULL) {
    uv_timer_stop(&pg->hold->h);
    uv_close((uv_handle_t *)&pg->hold->h, poll_close_cb);
  }
  if (pg->r != NULL)
    PQfinish(pg->r);
  for (int i = 0; i < PGS_COUNT; i++)
    free(pg->sql[i]);
  batch_free(&pg->build);
  batch_free(&pg->flight);
  doubts_done(pg, pg->n_doubts);
  free(pg->doubts);
  free(pg->claims);
  free(pg->pending);
  free(pg->conninfo);
  free(pg);
  store->pg = NULL;
}

bool srv_store__pg_up(const srv_store *store) {
  return store->pg->state == PG_READY || store->pg->state == PG_FLIGHT;
}
