/* A site's move from SQLite to PostgreSQL (srv_store_copy()): every table of the description
 * (srv_store_tables.c), row by row, in one PostgreSQL transaction; a row the target holds already
 * (its key) is left alone, so that a second run copies nothing. */
#include "srv_store_int.h"

#include <inttypes.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs sql on conn; 0 or a negative code with the store's error set. */
static int pg_run(srv_store *store, PGconn *conn, const char *sql, PGresult **out) {
  PGresult *res = PQexec(conn, sql);
  ExecStatusType st = PQresultStatus(res);
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    srv_store__set_error(store->error, "%s: %s", store->path, PQerrorMessage(conn));
    PQclear(res);
    return SRV_STORE_EIO;
  }
  if (out)
    *out = res;
  else
    PQclear(res);
  return 0;
}

/* Copies table t's rows; *rows and *copied count them. */
static int copy_table(srv_store *from, srv_store *to, PGconn *conn, const srv_store__table *t,
                      long *rows, long *copied) {
  char cols[1024] = "", params[512] = "";
  size_t cl = 0, pl = 0;
  int n = 0;
  srv_store__coltype types[32];
  for (const srv_store__column *c = t->columns; c->name && n < 32; c++, n++) {
    cl += (size_t)snprintf(cols + cl, sizeof cols - cl, "%s%s", n ? ", " : "", c->name);
    pl += (size_t)snprintf(params + pl, sizeof params - pl, "%s$%d", n ? ", " : "", n + 1);
    types[n] = c->type;
  }
  char sql[2048];
  snprintf(sql, sizeof sql, "SELECT %s FROM %s", cols, t->name);
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(from->db, sql, -1, &s, NULL) != SQLITE_OK) {
    srv_store__set_error(to->error, "%s: cannot read %s: %s", from->path, t->name,
                         sqlite3_errmsg(from->db));
    return SRV_STORE_EIO;
  }
  snprintf(sql, sizeof sql, "INSERT INTO %s (%s) VALUES (%s) ON CONFLICT DO NOTHING", t->name, cols,
           params);
  PGresult *prep = PQprepare(conn, "", sql, 0, NULL);
  int rc = PQresultStatus(prep) == PGRES_COMMAND_OK ? 0 : SRV_STORE_EIO;
  if (rc != 0)
    srv_store__set_error(to->error, "%s: %s", to->path, PQerrorMessage(conn));
  PQclear(prep);
  int step;
  while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
    const char *values[32];
    int lengths[32], formats[32];
    char nums[32][40];
    for (int i = 0; i < n; i++) {
      formats[i] = 0;
      lengths[i] = 0;
      values[i] = NULL;
      if (sqlite3_column_type(s, i) == SQLITE_NULL)
        continue;
      if (types[i] == COL_BLOB) {
        values[i] = sqlite3_column_blob(s, i);
        lengths[i] = sqlite3_column_bytes(s, i);
        formats[i] = 1;
      } else if (types[i] == COL_REAL) {
        snprintf(nums[i], sizeof nums[i], "%.17g", sqlite3_column_double(s, i));
        values[i] = nums[i];
      } else if (types[i] == COL_INT || types[i] == COL_SERIAL) {
        snprintf(nums[i], sizeof nums[i], "%" PRId64, (int64_t)sqlite3_column_int64(s, i));
        values[i] = nums[i];
      } else {
        values[i] = (const char *)sqlite3_column_text(s, i);
      }
    }
    PGresult *res = PQexecPrepared(conn, "", n, values, lengths, formats, 0);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
      srv_store__set_error(to->error, "%s: cannot copy a row of %s: %s", to->path, t->name,
                           PQerrorMessage(conn));
      rc = SRV_STORE_EIO;
    } else {
      (*rows)++;
      *copied += strtol(PQcmdTuples(res), NULL, 10);
    }
    PQclear(res);
  }
  if (rc == 0 && step != SQLITE_DONE) {
    srv_store__set_error(to->error, "%s: cannot read %s: %s", from->path, t->name,
                         sqlite3_errmsg(from->db));
    rc = SRV_STORE_EIO;
  }
  sqlite3_finalize(s);
  /* DEALLOCATE the unnamed statement: the next PQprepare("") replaces it anyway. */
  return rc;
}

/* One number from sql on conn (0 when none). */
static int pg_count(srv_store *store, PGconn *conn, const char *sql, long *out) {
  PGresult *res = NULL;
  int rc = pg_run(store, conn, sql, &res);
  if (rc == 0)
    *out = PQntuples(res) > 0 ? strtol(PQgetvalue(res, 0, 0), NULL, 10) : 0;
  PQclear(res);
  return rc;
}

int srv_store_copy(srv_store *from, srv_store *to, srv_store_copy_report report, void *ud) {
  if (from == NULL || to == NULL || from->pg != NULL || to->pg == NULL || from->db == NULL)
    return SRV_STORE_EINVAL;
  PGconn *conn = srv_store__pg_reader(to);
  if (conn == NULL)
    return SRV_STORE_EIO;
  /* The key of the public game ids comes with the games (their old ids keep working), unless the
   * target already holds games under another key: another site's database. */
  unsigned char key[16], theirs[16];
  int rc = srv_store_secret(from, "game_id", key, sizeof key);
  if (rc == 0)
    rc = srv_store_secret(to, "game_id", theirs, sizeof theirs);
  long games = 0;
  if (rc == 0)
    rc = pg_count(to, conn, "SELECT count(*) FROM games", &games);
  if (rc == 0 && games > 0 && memcmp(key, theirs, sizeof key) != 0) {
    srv_store__set_error(to->error,
                         "%s already holds %ld games of another site (another key of public game "
                         "ids): nothing copied",
                         to->path, games);
    return SRV_STORE_ECONFLICT;
  }
  if (rc == 0)
    rc = pg_run(to, conn, "BEGIN", NULL);
  if (rc != 0)
    return rc;
  for (const srv_store__table *t = srv_store__tables; rc == 0 && t->name; t++) {
    if (strcmp(t->name, "commit_marks") == 0)
      continue; /* PostgreSQL's own. */
    long rows = 0, copied = 0;
    rc = copy_table(from, to, conn, t, &rows, &copied);
    if (rc == 0 && strcmp(t->name, "secrets") == 0 && memcmp(key, theirs, sizeof key) != 0) {
      /* The new database's own key, made at its creation, gives way to the site's. */
      char sql[128] = "UPDATE secrets SET value = '\\x";
      for (size_t i = 0; i < sizeof key; i++)
        snprintf(sql + strlen(sql), sizeof sql - strlen(sql), "%02x", key[i]);
      strncat(sql, "'::bytea WHERE name = 'game_id'", sizeof sql - strlen(sql) - 1);
      rc = pg_run(to, conn, sql, NULL);
      copied++;
    }
    if (rc == 0 && report)
      report(ud, t->name, rows, copied);
  }
  /* Chat lines keep their ids: new ones are numbered after them. */
  if (rc == 0)
    rc = pg_run(to, conn,
                "SELECT setval(pg_get_serial_sequence('chat', 'id'), "
                "(SELECT coalesce(max(id), 0) + 1 FROM chat), false)",
                NULL);
  if (rc == 0)
    rc = pg_run(to, conn, "COMMIT", NULL);
  else
    PQclear(PQexec(conn, "ROLLBACK"));
  return rc;
}
