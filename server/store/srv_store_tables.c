/* The one description of the store's tables (schema SRV_STORE_SCHEMA_VERSION), and the SQL each
 * backend makes from it: PostgreSQL creates its tables from it and migrates with it; SQLite's
 * migrations up to version 7 were written by hand before it (srv_store_schema.c; a shipped
 * migration is never edited), and every later one is made from it. A test holds a SQLite database
 * migrated from nothing to this description, column by column. */
#include "srv_store_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define C(name, type, extra, since)                                                                \
  { name, type, extra, since }
#define END                                                                                        \
  { NULL, 0, NULL, 0 }

static const srv_store__column players[] = {
    C("id", COL_TEXT, "PRIMARY KEY", 1), C("name", COL_TEXT, "NOT NULL", 1),
    C("created_ms", COL_INT, "NOT NULL", 1), C("seen_ms", COL_INT, "", 2), END};

#define SEAT_COLUMNS(side)                                                                         \
  C(side, COL_TEXT, "", 1), C(side "_name", COL_TEXT, "NOT NULL", 1),                              \
      C(side "_computer", COL_INT, "NOT NULL", 1)

static const srv_store__column rooms[] = {
    C("code", COL_TEXT, "PRIMARY KEY", 1),
    C("settings", COL_TEXT, "NOT NULL", 1),
    SEAT_COLUMNS("south"),
    SEAT_COLUMNS("north"),
    C("status", COL_TEXT,
      "NOT NULL CHECK (status = 'waiting' OR status = 'playing' OR status = 'finished')", 1),
    C("game", COL_INT, "", 1),
    END};

static const srv_store__column games[] = {
    C("id", COL_INT, "PRIMARY KEY", 1), C("room", COL_TEXT, "NOT NULL", 1),
    C("game_no", COL_INT, "NOT NULL", 1), C("game", COL_TEXT, "NOT NULL", 1),
    C("houses", COL_INT, "NOT NULL", 1), C("seeds", COL_INT, "NOT NULL", 1),
    C("options", COL_TEXT, "NOT NULL", 1), SEAT_COLUMNS("south"), SEAT_COLUMNS("north"),
    C("clock_initial_ms", COL_INT, "", 1), C("clock_increment_ms", COL_INT, "", 1),
    C("started_ms", COL_INT, "NOT NULL", 1), C("ended_ms", COL_INT, "", 1),
    C("result", COL_TEXT, "", 1), C("reason", COL_TEXT, "", 1), C("score_south", COL_INT, "", 1),
    C("score_north", COL_INT, "", 1), C("rated", COL_INT, "NOT NULL DEFAULT 0", 4),
    /* The fencing number of the node that runs the game (the cluster): a commit naming an older
     * one is refused. One process alone never changes it. */
    C("owner_epoch", COL_INT, "NOT NULL DEFAULT 0", 8), END};

static const srv_store__column moves[] = {C("game", COL_INT, "NOT NULL REFERENCES games(id)", 1),
                                          C("ply", COL_INT, "NOT NULL", 1),
                                          C("seat", COL_INT, "NOT NULL", 1),
                                          C("house", COL_INT, "NOT NULL", 1),
                                          C("clock_ms", COL_INT, "", 1),
                                          C("at_ms", COL_INT, "NOT NULL", 1),
                                          END};

/* A session's last use (a hello with its token; NULL: never since schema 9, its created_ms
 * stands) and the device it was opened on as its client named it (NULL: not named). */
static const srv_store__column sessions[] = {C("token_hash", COL_BLOB, "PRIMARY KEY", 4),
                                             C("player", COL_TEXT, "NOT NULL", 4),
                                             C("created_ms", COL_INT, "NOT NULL", 4),
                                             C("seen_ms", COL_INT, "", 9),
                                             C("label", COL_TEXT, "", 9),
                                             END};

static const srv_store__column accounts[] = {C("player", COL_TEXT, "PRIMARY KEY", 4),
                                             C("name", COL_TEXT, "NOT NULL", 4),
                                             C("name_key", COL_TEXT, "NOT NULL UNIQUE", 4),
                                             C("password", COL_TEXT, "NOT NULL", 4),
                                             C("created_ms", COL_INT, "NOT NULL", 4),
                                             C("password_ms", COL_INT, "NOT NULL", 4),
                                             END};

static const srv_store__column ratings[] = {C("player", COL_TEXT, "NOT NULL", 4),
                                            C("game", COL_TEXT, "NOT NULL", 4),
                                            C("rating", COL_REAL, "NOT NULL", 4),
                                            C("rd", COL_REAL, "NOT NULL", 4),
                                            C("vol", COL_REAL, "NOT NULL", 4),
                                            C("games", COL_INT, "NOT NULL", 4),
                                            C("wins", COL_INT, "NOT NULL", 4),
                                            C("losses", COL_INT, "NOT NULL", 4),
                                            C("draws", COL_INT, "NOT NULL", 4),
                                            C("last_ms", COL_INT, "NOT NULL", 4),
                                            END};

static const srv_store__column rating_history[] = {
    C("player", COL_TEXT, "NOT NULL", 4), C("game_id", COL_INT, "NOT NULL", 4),
    C("game", COL_TEXT, "NOT NULL", 4),   C("rating", COL_REAL, "NOT NULL", 4),
    C("rd", COL_REAL, "NOT NULL", 4),     C("diff", COL_REAL, "NOT NULL", 4),
    C("at_ms", COL_INT, "NOT NULL", 4),   END};

static const srv_store__column chat[] = {
    C("id", COL_SERIAL, "PRIMARY KEY", 5),
    C("room", COL_TEXT, "", 5),
    C("game", COL_INT, "", 5),
    C("at_ms", COL_INT, "NOT NULL", 5),
    C("player", COL_TEXT, "NOT NULL", 5),
    C("name", COL_TEXT, "NOT NULL", 5),
    C("seat", COL_TEXT, "CHECK (seat IN ('south', 'north', 'both'))", 5),
    C("text", COL_TEXT, "NOT NULL", 5),
    END};

static const srv_store__column secrets[] = {C("name", COL_TEXT, "PRIMARY KEY", 6),
                                            C("value", COL_BLOB, "NOT NULL", 6), END};

/* The last batch each writer committed (node: a name chosen at open): a batch whose COMMIT's
 * answer never came (the connection broke) is known to be in or not by it (srv_store_pg.c). */
static const srv_store__column commit_marks[] = {C("node", COL_TEXT, "PRIMARY KEY", 8),
                                                 C("batch", COL_INT, "NOT NULL", 8), END};

/* The analysis of a finished game (srv_analysis.h), made once: its plies as the API serves them
 * (a JSON array), each seat's accuracy beside them for the profiles' lists. */
static const srv_store__column analyses[] = {C("game", COL_INT, "PRIMARY KEY", 10),
                                             C("analysed_ms", COL_INT, "NOT NULL", 10),
                                             C("ply_ms", COL_INT, "NOT NULL", 10),
                                             C("accuracy_south", COL_REAL, "", 10),
                                             C("accuracy_north", COL_REAL, "", 10),
                                             C("plies", COL_TEXT, "NOT NULL", 10),
                                             END};

/* In the order a copy must fill them (moves name games). */
const srv_store__table srv_store__tables[] = {
    {"players", players, NULL, 1},
    {"rooms", rooms, NULL, 1},
    {"games", games, NULL, 1},
    {"moves", moves, "game, ply", 1},
    {"sessions", sessions, NULL, 4},
    {"accounts", accounts, NULL, 4},
    {"ratings", ratings, "player, game", 4},
    {"rating_history", rating_history, "player, game_id", 4},
    {"chat", chat, NULL, 5},
    {"secrets", secrets, NULL, 6},
    {"commit_marks", commit_marks, NULL, 8},
    {"analyses", analyses, NULL, 10},
    {NULL, NULL, NULL, 0}};

const srv_store__index srv_store__indexes[] = {
    {"games_south", "games(south, id) WHERE ended_ms IS NOT NULL", 2},
    {"games_north", "games(north, id) WHERE ended_ms IS NOT NULL", 2},
    {"sessions_player", "sessions(player)", 4},
    {"ratings_board", "ratings(game, rating DESC)", 4},
    {"rating_history_game", "rating_history(game_id)", 4},
    {"chat_room", "chat(room, id) WHERE room IS NOT NULL", 5},
    {"chat_game", "chat(game, id) WHERE game IS NOT NULL", 5},
    {NULL, NULL, 0}};

static const char *type_name(srv_store__coltype type, bool pg) {
  switch (type) {
  case COL_INT:
    return pg ? "BIGINT" : "INTEGER";
  case COL_REAL:
    return pg ? "DOUBLE PRECISION" : "REAL";
  case COL_TEXT:
    return "TEXT";
  case COL_BLOB:
    return pg ? "BYTEA" : "BLOB";
  case COL_SERIAL:
    return pg ? "BIGINT GENERATED BY DEFAULT AS IDENTITY" : "INTEGER";
  }
  return "TEXT";
}

/* Appends to buf (size bytes, *len used) what fmt says; false when it does not fit. */
static bool add(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool add(char *buf, size_t size, size_t *len, const char *fmt, ...) {
  if (*len >= size)
    return false;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + *len, size - *len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= size - *len) {
    *len = size;
    return false;
  }
  *len += (size_t)n;
  return true;
}

static void column_sql(char *buf, size_t size, size_t *len, const srv_store__column *c, bool pg) {
  const char *extra = c->extra;
  /* SQLite's ids of chat lines are its rowids, never reused (AUTOINCREMENT). */
  if (!pg && c->type == COL_SERIAL)
    extra = "PRIMARY KEY AUTOINCREMENT";
  add(buf, size, len, "%s %s%s%s", c->name, type_name(c->type, pg), extra[0] ? " " : "", extra);
}

int srv_store__schema_sql(int from, int to, bool pg, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  for (const srv_store__table *t = srv_store__tables; t->name; t++) {
    if (t->since > to)
      continue;
    if (t->since > from) {
      add(buf, size, &len, "CREATE TABLE %s (", t->name);
      bool first = true;
      for (const srv_store__column *c = t->columns; c->name; c++) {
        if (c->since > to)
          continue;
        if (!first)
          add(buf, size, &len, ", ");
        first = false;
        column_sql(buf, size, &len, c, pg);
      }
      if (t->key)
        add(buf, size, &len, ", PRIMARY KEY (%s)", t->key);
      add(buf, size, &len, ")%s;", !pg && t->key ? " WITHOUT ROWID" : "");
      continue;
    }
    for (const srv_store__column *c = t->columns; c->name; c++) {
      if (c->since > from && c->since <= to) {
        add(buf, size, &len, "ALTER TABLE %s ADD COLUMN ", t->name);
        column_sql(buf, size, &len, c, pg);
        add(buf, size, &len, ";");
      }
    }
  }
  for (const srv_store__index *i = srv_store__indexes; i->name; i++)
    if (i->since > from && i->since <= to)
      add(buf, size, &len, "CREATE INDEX %s ON %s;", i->name, i->on);
  return len < size ? (int)len : SRV_STORE_ENOMEM;
}

const srv_store__table *srv_store__table_named(const char *name) {
  for (const srv_store__table *t = srv_store__tables; t->name; t++)
    if (strcmp(t->name, name) == 0)
      return t;
  return NULL;
}
