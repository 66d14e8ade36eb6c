/* The writes of play: rooms, games, their moves and clocks, and the rooms' chat. Each joins the
 * batch (srv_store_batch.c). */
#include "srv_store_int.h"

#include <stdio.h>
#include <string.h>

#include "mc_text.h"

static const char *status_name(srv_store_status status) {
  switch (status) {
  case SRV_STORE_STATUS_WAITING:
    return "waiting";
  case SRV_STORE_STATUS_PLAYING:
    return "playing";
  case SRV_STORE_STATUS_FINISHED:
    return "finished";
  }
  return NULL;
}

/* Writes the three arguments of a seat (player or NULL, name, computer) into args. */
static void seat_args(srv_store__val args[3], const srv_store_seat *seat) {
  args[0] = arg_text_or_null(seat->player);
  args[1] = arg_text(seat->name);
  args[2] = arg_int(seat->computer);
}

int srv_store_room_put(srv_store *store, const srv_store_room *room) {
  const char *status = room ? status_name(room->status) : NULL;
  if (store == NULL || room == NULL || room->code[0] == '\0' || status == NULL)
    return SRV_STORE_EINVAL;
  srv_store__val args[9] = {arg_text(room->code), arg_text(room->settings ? room->settings : "")};
  seat_args(&args[2], &room->seats[0]);
  seat_args(&args[5], &room->seats[1]);
  args[8] = arg_text(status);
  return srv_store__write(store, srv_store__op(SRV_STORE_OP_ROOM, room->code, 0, 0), STMT_ROOM_PUT,
                          args, 9, "cannot store a room");
}

int srv_store_room_closed(srv_store *store, const char *code) {
  if (store == NULL || code == NULL)
    return SRV_STORE_EINVAL;
  int rc = srv_store__write_begin(store);
  if (rc != 0)
    return rc;
  const srv_store__stmt steps[] = {STMT_ROOM_DELETE, STMT_CHAT_ORPHANS, STMT_CHAT_DETACH};
  rc = SQLITE_OK;
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof steps / sizeof steps[0]; i++)
    rc = srv_store__exec(store, steps[i], STORE_ARGS(arg_text(code)));
  srv_store_op op = srv_store__op(SRV_STORE_OP_ROOM, code, 0, 0);
  return srv_store__write_end(store, rc, &op, "cannot close a room");
}

int srv_store_chat_add(srv_store *store, const srv_store_chat *line) {
  if (store == NULL || line == NULL || line->room[0] == '\0' || line->text == NULL ||
      line->player[0] == '\0')
    return SRV_STORE_EINVAL;
  return srv_store__write(
      store, srv_store__op(SRV_STORE_OP_CHAT, line->room, line->game, 0), STMT_CHAT_INSERT,
      STORE_ARGS(arg_text(line->room), line->game > 0 ? arg_int(line->game) : arg_null(),
                 arg_int(line->at_ms), arg_text(line->player), arg_text(line->name),
                 arg_text_or_null(line->seat), arg_text(line->text)),
      "cannot store a chat line");
}

/* Writes the options words of rules ("" when none) into buf: the rules text without its game and
 * board. */
static int options_text(const mc_rules *rules, char *buf, size_t size) {
  char text[128];
  int n = mc_rules_format(rules, text, sizeof text);
  if (n < 0 || (size_t)n >= sizeof text)
    return SRV_STORE_EINVAL;
  const char *p = strchr(text, ' ');
  p = p ? strchr(p + 1, ' ') : NULL;
  snprintf(buf, size, "%s", p ? p + 1 : "");
  return 0;
}

int srv_store_game_start(srv_store *store, const srv_store_game *game, int64_t *id) {
  char options[128];
  if (store == NULL || game == NULL || id == NULL || game->room[0] == '\0' ||
      mc_rules_check(&game->rules) != 0 || options_text(&game->rules, options, sizeof options))
    return SRV_STORE_EINVAL;
  int rc = srv_store__write_begin(store);
  if (rc != 0)
    return rc;
  srv_store__val args[17] = {arg_text(game->room),
                             arg_int(game->game_no),
                             arg_text(mc_kind_name(game->rules.kind)),
                             arg_int(game->rules.houses),
                             arg_int(game->rules.seeds),
                             arg_text(options)};
  seat_args(&args[6], &game->seats[0]);
  seat_args(&args[9], &game->seats[1]);
  args[12] = game->clocked ? arg_int(game->initial_ms) : arg_null();
  args[13] = game->clocked ? arg_int(game->increment_ms) : arg_null();
  args[14] = arg_int(game->started_ms);
  args[15] = arg_int(game->rated ? 1 : 0);
  args[16] = game->id > 0 ? arg_int(game->id) : arg_null();
  /* PostgreSQL's batch learns nothing before its commit: it numbers the games itself. */
  int64_t pg_id = store->pg ? srv_store__pg_game_id(store, game->id) : 0;
  if (store->pg)
    args[16] = arg_int(pg_id);
  rc = srv_store__exec(store, STMT_GAME_INSERT, args, 17);
  int64_t new_id = rc != SQLITE_OK ? 0 : store->pg ? pg_id : sqlite3_last_insert_rowid(store->db);
  if (rc == SQLITE_OK)
    rc = srv_store__exec(store, STMT_ROOM_SET_GAME,
                         STORE_ARGS(arg_text(game->room), arg_int(new_id)));
  srv_store_op op = srv_store__op(SRV_STORE_OP_GAME_START, game->room, new_id, 0);
  rc = srv_store__write_end(store, rc, &op, "cannot store a new game");
  if (rc == 0)
    *id = new_id;
  return rc;
}

/* The arguments of row's INSERT, in STMT_MOVE_INSERT's order. */
#define MOVE_ARGS(row)                                                                             \
  STORE_ARGS(arg_int((row)->game), arg_int((row)->ply), arg_int((row)->seat),                      \
             arg_int((row)->house), (row)->clock_ms >= 0 ? arg_int((row)->clock_ms) : arg_null(),  \
             arg_int((row)->at_ms))

int srv_store_move_add(srv_store *store, int64_t game, const srv_store_move *move) {
  if (store == NULL || move == NULL || game <= 0 || move->ply < 0 || move->seat < 0 ||
      move->seat > 1 || move->house < 1 || (move->house > MC_MAX_HOUSES && move->house != MC_SWAP))
    return SRV_STORE_EINVAL;
  srv_store__move_row row = {game, move->clock_ms, move->at_ms, move->ply, move->seat, move->house};
  if (store->pg != NULL) /* PostgreSQL sends the whole batch in one round trip already. */
    return srv_store__write(store, srv_store__op(SRV_STORE_OP_MOVE, "", game, move->ply),
                            STMT_MOVE_INSERT, MOVE_ARGS(&row), "cannot store a move");
  /* SQLite: the move waits for the batch's other moves (srv_store__moves_flush()). */
  int rc = srv_store__write_begin(store);
  if (rc != 0)
    return rc;
  if (srv_store__grow((void **)&store->moves, &store->cap_moves, store->n_moves + 1,
                      sizeof *store->moves) != 0)
    return SRV_STORE_ENOMEM;
  store->moves[store->n_moves++] = row;
  store->stats.writes++;
  return 0;
}

/* Rows of each chunk statement (store->moves_stmt[k]): 4 << k. */
static size_t chunk_rows(int k) {
  return (size_t)4 << k;
}

/* The statement that inserts chunk_rows(k) moves, prepared at its first use; NULL when it cannot
 * be (no memory): the moves then go one by one. */
static sqlite3_stmt *chunk_stmt(srv_store *store, int k) {
  if (store->moves_stmt[k] != NULL)
    return store->moves_stmt[k];
  static const char head[] = "INSERT INTO moves (game, ply, seat, house, clock_ms, at_ms) VALUES ";
  static const char row[] = "(?, ?, ?, ?, ?, ?),";
  char sql[sizeof head + (sizeof row - 1) * 32];
  size_t n = chunk_rows(k), len = sizeof head - 1;
  memcpy(sql, head, len);
  for (size_t i = 0; i < n; i++, len += sizeof row - 1)
    memcpy(sql + len, row, sizeof row - 1);
  sql[len - 1] = '\0'; /* The last comma. */
  if (sqlite3_prepare_v3(store->db, sql, (int)len - 1, SQLITE_PREPARE_PERSISTENT,
                         &store->moves_stmt[k], NULL) != SQLITE_OK) {
    sqlite3_finalize(store->moves_stmt[k]);
    store->moves_stmt[k] = NULL;
  }
  return store->moves_stmt[k];
}

void srv_store__moves_finalize(srv_store *store) {
  for (int k = 0; k < STORE_MOVE_CHUNKS; k++) {
    sqlite3_finalize(store->moves_stmt[k]);
    store->moves_stmt[k] = NULL;
  }
}

/* Inserts the n moves rows in the statement s of n rows. Returns a SQLite code. */
static int insert_chunk(sqlite3_stmt *s, const srv_store__move_row *rows, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const srv_store__move_row *r = &rows[i];
    int at = (int)(6 * i);
    sqlite3_bind_int64(s, at + 1, r->game);
    sqlite3_bind_int(s, at + 2, r->ply);
    sqlite3_bind_int(s, at + 3, r->seat);
    sqlite3_bind_int(s, at + 4, r->house);
    if (r->clock_ms >= 0)
      sqlite3_bind_int64(s, at + 5, r->clock_ms);
    else
      sqlite3_bind_null(s, at + 5);
    sqlite3_bind_int64(s, at + 6, r->at_ms);
  }
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* A move inserted: its op joins the batch (srv_store__write_begin() made the room). */
static void move_stored(srv_store *store, const srv_store__move_row *r) {
  store->ops[store->n_ops++] = srv_store__op(SRV_STORE_OP_MOVE, "", r->game, r->ply);
}

/* Inserts the n moves rows one by one: a move that breaks a constraint is refused alone, its op
 * in the failed list. Returns SQLITE_OK, or the code of a failure that is not a constraint's;
 * *done is the number of rows dealt with (inserted or refused) before it. */
static int insert_each(srv_store *store, const srv_store__move_row *rows, size_t n, size_t *done) {
  for (size_t i = 0; i < n; i++) {
    int rc = srv_store__exec(store, STMT_MOVE_INSERT, MOVE_ARGS(&rows[i]));
    if (rc == SQLITE_OK) {
      move_stored(store, &rows[i]);
    } else if ((rc & 0xff) == SQLITE_CONSTRAINT && !sqlite3_get_autocommit(store->db)) {
      (void)srv_store__fail(store, rc, "cannot store a move");
      store->stats.writes--; /* Counted when it joined the batch. */
      store->failed[store->n_failed++] =
          srv_store__op(SRV_STORE_OP_MOVE, "", rows[i].game, rows[i].ply);
    } else {
      return rc;
    }
    *done = i + 1;
  }
  return SQLITE_OK;
}

int srv_store__moves_flush(srv_store *store) {
  size_t at = 0;
  int rc = SQLITE_OK;
  while (rc == SQLITE_OK && at < store->n_moves) {
    size_t left = store->n_moves - at, n = 1;
    sqlite3_stmt *s = NULL;
    for (int k = STORE_MOVE_CHUNKS - 1; k >= 0 && s == NULL; k--) {
      if (chunk_rows(k) <= left && (s = chunk_stmt(store, k)) != NULL)
        n = chunk_rows(k);
    }
    const srv_store__move_row *rows = &store->moves[at];
    size_t done = 0;
    if (s == NULL) {
      rc = insert_each(store, rows, n, &done); /* Fewer than 4 left: one. */
    } else if ((rc = insert_chunk(s, rows, n)) == SQLITE_OK) {
      for (size_t i = 0; i < n; i++)
        move_stored(store, &rows[i]);
      done = n;
    } else if ((rc & 0xff) == SQLITE_CONSTRAINT && !sqlite3_get_autocommit(store->db)) {
      /* SQLite undid the whole statement: one by one, so that only the refused ones are lost. */
      rc = insert_each(store, rows, n, &done);
    }
    /* Each row is in the batch's ops, in the failed list or still waiting: never two of them. */
    at += done;
  }
  if (rc == SQLITE_OK) {
    store->n_moves = 0;
    return 0;
  }
  int err = srv_store__fail(store, rc, "cannot store a move");
  /* What was inserted is in the batch's ops; the rest still waits: both are lost with it. */
  memmove(store->moves, store->moves + at, (store->n_moves - at) * sizeof *store->moves);
  store->n_moves -= at;
  srv_store__batch_lost(store);
  return err;
}

int srv_store_game_seats(srv_store *store, int64_t game, int ply, const srv_store_seat seats[2]) {
  if (store == NULL || game <= 0 || ply < 0 || seats == NULL)
    return SRV_STORE_EINVAL;
  srv_store__val args[7] = {arg_int(game)};
  seat_args(&args[1], &seats[0]);
  seat_args(&args[4], &seats[1]);
  return srv_store__write(store, srv_store__op(SRV_STORE_OP_MOVE, "", game, ply), STMT_GAME_SEATS,
                          args, 7, "cannot store the seats of a game");
}

int srv_store_moves_truncate(srv_store *store, int64_t game, int from_ply) {
  if (store == NULL || game <= 0 || from_ply < 0)
    return SRV_STORE_EINVAL;
  int rc = store->n_moves > 0 ? srv_store__moves_flush(store) : 0; /* The moves it deletes. */
  if (rc != 0)
    return rc;
  return srv_store__write(store, srv_store__op(SRV_STORE_OP_TAKEBACK, "", game, from_ply),
                          STMT_MOVE_TRUNCATE, STORE_ARGS(arg_int(game), arg_int(from_ply)),
                          "cannot drop moves");
}

int srv_store_move_clock(srv_store *store, int64_t game, int ply, int64_t clock_ms) {
  if (store == NULL || game <= 0 || ply < 0 || clock_ms < 0)
    return SRV_STORE_EINVAL;
  int rc = store->n_moves > 0 ? srv_store__moves_flush(store) : 0; /* The move it changes. */
  if (rc != 0)
    return rc;
  return srv_store__write(
      store, srv_store__op(SRV_STORE_OP_TAKEBACK, "", game, ply), STMT_MOVE_CLOCK,
      STORE_ARGS(arg_int(game), arg_int(ply), arg_int(clock_ms)), "cannot store a clock");
}

int srv_store_game_finish(srv_store *store, int64_t game, mc_winner winner, mc_reason reason,
                          const int score[2], int64_t ended_ms) {
  const char *w = mc_winner_name(winner), *r = mc_reason_name(reason);
  if (store == NULL || game <= 0 || w == NULL || r == NULL || reason == MC_REASON_NONE ||
      score == NULL)
    return SRV_STORE_EINVAL;
  return srv_store__write(store, srv_store__op(SRV_STORE_OP_GAME_FINISH, "", game, 0),
                          STMT_GAME_FINISH,
                          STORE_ARGS(arg_int(game), arg_int(ended_ms), arg_text(w), arg_text(r),
                                     arg_int(score[0]), arg_int(score[1])),
                          "cannot store a result");
}

int srv_store_game_abort(srv_store *store, int64_t game, int64_t ended_ms) {
  if (store == NULL || game <= 0)
    return SRV_STORE_EINVAL;
  return srv_store__write(store, srv_store__op(SRV_STORE_OP_GAME_FINISH, "", game, 0),
                          STMT_GAME_ABORT, STORE_ARGS(arg_int(game), arg_int(ended_ms)),
                          "cannot store an aborted game");
}

int srv_store_game_claim(srv_store *store, int64_t game, int64_t *epoch) {
  if (store == NULL || epoch == NULL || game <= 0 || store->pg == NULL || store->reader)
    return SRV_STORE_EINVAL;
  return srv_store__pg_claim(store, game, epoch);
}

int srv_store_game_claim_raise(srv_store *store, int64_t game, int64_t *epoch) {
  if (store == NULL || epoch == NULL || game <= 0 || store->pg == NULL)
    return SRV_STORE_EINVAL;
  return srv_store__pg_claim_read(store, game, epoch);
}

int srv_store_game_claimed(srv_store *store, int64_t game, int64_t epoch) {
  if (store == NULL || game <= 0 || epoch <= 0 || store->pg == NULL || store->reader)
    return SRV_STORE_EINVAL;
  int64_t e;
  return srv_store__pg_claim_record(store, game, epoch, &e);
}

int srv_store_fence_all(srv_store *store) {
  if (store == NULL || !srv_store_is_network(store))
    return SRV_STORE_EINVAL;
  srv_store__pg_fence_all(store);
  return 0;
}

int srv_store_analysis_put(srv_store *store, const srv_store_analysis *a) {
  if (store == NULL || a == NULL || a->game <= 0 || a->plies == NULL)
    return SRV_STORE_EINVAL;
  char key[24];
  snprintf(key, sizeof key, "%lld", (long long)a->game);
  /* No game number in the op: the game ended, no room owns it nor fences it. */
  return srv_store__write(store, srv_store__op(SRV_STORE_OP_ANALYSIS, key, 0, 0), STMT_ANALYSIS_PUT,
                          STORE_ARGS(arg_int(a->game), arg_int(a->analysed_ms), arg_int(a->ply_ms),
                                     a->accuracy_known[0] ? arg_real(a->accuracy[0]) : arg_null(),
                                     a->accuracy_known[1] ? arg_real(a->accuracy[1]) : arg_null(),
                                     arg_text(a->plies)),
                          "cannot store an analysis");
}
