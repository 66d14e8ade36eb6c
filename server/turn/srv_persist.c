/* Persistence: records to store writes, and the turn's commit (see srv_persist.h). */
#include "srv_persist.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_log.h"
#include "srv_pwhash.h"
#include "srv_rating.h"
#include "srv_reader.h"
#include "srv_settings.h"

/* A finished game whose result the store refused at once: written again, at most once a second
 * (a disk that keeps failing must not turn every loop turn into a retry). */
typedef struct unsaved_result {
  int64_t game;
  char room[SRV_CODE_LEN + 1];
  mc_result result;
  int64_t ended_ms;
  bool aborted; /* No result: the game was aborted. */
  /* A rated game: its kind, its players and what it changed, written again with the result. */
  bool rated;
  mc_kind kind;
  char players[2][SRV_PLAYER_ID_CHARS + 1];
  srv_rating_change rating;
} unsaved_result;

/* A player whose row and sessions a batch wrote (a seat's record): its id, what was written (a
 * hash of its name and its tokens) and the batch that wrote it. A seat's record writes the player
 * again only when that batch is not known durable, or when what would be written differs (issue 22:
 * a player's upsert and a session's insert, about 13,500 instructions, were written at a room's
 * seating and again at its game's start, every game). */
typedef struct stored_player {
  char id[SRV_PLAYER_ID_CHARS + 1]; /* "": a free slot. */
  uint64_t sig;
  uint64_t batch;
} stored_player;

/* At most this many players are remembered; past it they are all forgotten (written again). */
#define PERSIST_STORED_MAX 65536

/* A game written during the current batch, and its room: the store names a lost move by its game
 * only. */
typedef struct journal_entry {
  int64_t game;
  char room[SRV_CODE_LEN + 1];
} journal_entry;

struct srv_persist {
  srv_store *store;
  srv_reader *reader; /* Hello's restores read through it. */
  srv_ident *ident;
  srv_time *time;
  journal_entry *journal; /* The games written since the last commit. */
  size_t n_journal, cap_journal;
  srv_store_op *ops; /* A copy of the lost writes while they are grouped. */
  size_t cap_ops;
  srv_persist_lost *lost; /* What the last failed commit lost, room by room. */
  size_t cap_lost;
  unsaved_result unsaved[64];
  size_t n_unsaved;
  /* Writes of the open batch the store refused at once: lost with the batch (srv_persist_done). */
  srv_store_op *refused;
  size_t n_refused, cap_refused;
  srv_store_op *flight_refused; /* Those of the batch in flight. */
  size_t n_flight_refused, cap_flight_refused;
  uint64_t retry_at;
  /* The players whose rows a batch wrote (an open-addressing table, a power of two of slots). The
   * batch being built is number batch, the one in flight flight_batch, and every batch up to
   * durable is committed; a lost batch (or one with a refused write) and the guests' expiry
   * forget them all. */
  stored_player *stored;
  size_t n_stored, cap_stored;
  uint64_t batch, flight_batch, durable;
  uint64_t expire_at;      /* When old guests are forgotten next (0: at the first commit). */
  int session_days;        /* Accounts' sessions unused this long end (0: never). */
  srv_committer committer; /* The storage seam's commit (commit NULL: SQLite's, at once). */
  bool busy;               /* A batch is in flight. */
  srv_persist_done done;   /* Whom to tell its result. */
  void *done_arg;
  /* The games written in the batch in flight, and the room of each (journal of that batch). */
  journal_entry *flight;
  size_t n_flight, cap_flight;
};

/* How long a refused result waits before it is written again. */
#define PERSIST_RETRY_MS 1000
/* How often old guests are looked for. */
#define PERSIST_EXPIRE_EVERY_MS (24 * 3600 * 1000ull)

srv_persist *srv_persist_new(srv_store *store, srv_ident *ident, srv_time *time) {
  srv_persist *p = calloc(1, sizeof *p);
  if (p == NULL)
    return NULL;
  p->store = store;
  p->ident = ident;
  p->time = time;
  p->session_days = SRV_PERSIST_SESSION_DAYS;
  p->batch = 1;
  if ((p->reader = srv_reader_new(store)) == NULL) {
    free(p);
    return NULL;
  }
  return p;
}

void srv_persist_free(srv_persist *p) {
  if (p == NULL)
    return;
  srv_reader_free(p->reader);
  free(p->journal);
  free(p->refused);
  free(p->flight_refused);
  free(p->flight);
  free(p->ops);
  free(p->lost);
  free(p->stored);
  free(p);
}

static int64_t wall_ms(srv_persist *p) {
  return p->time->wall(p->time);
}

/* Logs a refused write; the caller refuses what it stood for. */
static int store_fail(srv_persist *p, const char *what, const char *key, int rc) {
  srv_log_error("persist", "%s %s: %s (%s)", what, key, srv_store_strerror(rc),
                srv_store_last_error(p->store));
  return SRV_ESTORAGE;
}

/* Makes *items hold need items of size bytes. Returns false when memory runs out. */
static bool reserve(void **items, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return true;
  size_t n = *cap ? *cap * 2 : 16;
  while (n < need)
    n *= 2;
  void *grown = realloc(*items, n * size);
  if (grown == NULL)
    return false;
  *items = grown;
  *cap = n;
  return true;
}

/* Notes that game (of room) has writes in the current batch. */
static void journal(srv_persist *p, int64_t game, const char *room) {
  if (game <= 0 || (p->n_journal > 0 && p->journal[p->n_journal - 1].game == game))
    return;
  if (!reserve((void **)&p->journal, &p->cap_journal, p->n_journal + 1, sizeof *p->journal)) {
    srv_log_error("persist", "out of memory: a lost write of room %s could not be taken back",
                  room);
    return;
  }
  journal_entry *e = &p->journal[p->n_journal++];
  e->game = game;
  /* Once a move of every game: a copy, not a formatted print (about 600 instructions). */
  size_t n = strnlen(room, sizeof e->room - 1);
  memcpy(e->room, room, n);
  e->room[n] = '\0';
}

/* ---- Records -------------------------------------------------------------------------------- */

/* A seat as stored: a deleted account's seat keeps its anonymous name and no id. */
static void seat_of(const srv_player *pl, srv_store_seat *out) {
  memset(out, 0, sizeof *out);
  if (pl != NULL) {
    /* The computer is stored as its level, with no player (srv_store.h); a deleted account is
     * stored no more. */
    if (!pl->deleted && !pl->computer)
      snprintf(out->player, sizeof out->player, "%s", pl->id);
    snprintf(out->name, sizeof out->name, "%s", pl->name);
    out->computer = pl->computer;
  }
}

/* What a player's record writes, as a number: FNV-1a over its name and its tokens. */
static uint64_t player_sig(const srv_player *player) {
  uint64_t h = 14695981039346656037ull;
  for (const unsigned char *c = (const unsigned char *)player->name; *c; c++)
    h = (h ^ *c) * 1099511628211ull;
  h = (h ^ 0xff) * 1099511628211ull; /* The name's end. */
  for (size_t i = 0; i < srv_ident_token_count(player); i++) {
    const uint8_t *t = srv_ident_token(player, i);
    for (size_t k = 0; k < 32; k++)
      h = (h ^ t[k]) * 1099511628211ull;
  }
  return h;
}

/* The slot of id in the table of stored players: its entry, or the free slot where it goes
 * (NULL when the table is empty). */
static stored_player *stored_slot(srv_persist *p, const char *id) {
  if (p->cap_stored == 0)
    return NULL;
  uint64_t h = 14695981039346656037ull;
  for (const unsigned char *c = (const unsigned char *)id; *c; c++)
    h = (h ^ *c) * 1099511628211ull;
  size_t mask = p->cap_stored - 1;
  for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
    stored_player *e = &p->stored[i];
    if (e->id[0] == '\0' || strcmp(e->id, id) == 0)
      return e;
  }
}

/* Forgets every stored player: each is written again at its next record. */
static void forget_stored(srv_persist *p) {
  if (p->n_stored > 0)
    memset(p->stored, 0, p->cap_stored * sizeof *p->stored);
  p->n_stored = 0;
}

/* Whether player's row and sessions, as they are now, are durable. Not when only the batch being
 * built wrote them: a SQLite batch lost in the middle of a turn is rolled back and the turn's
 * later writes go on in a new transaction, which must carry the player itself. */
static bool player_stored(srv_persist *p, const srv_player *player, uint64_t sig) {
  const stored_player *e = stored_slot(p, player->id);
  return e != NULL && e->id[0] != '\0' && e->sig == sig && e->batch <= p->durable;
}

/* Notes that the batch being built wrote player's row and sessions as sig says. Out of memory,
 * or past PERSIST_STORED_MAX players, nothing is noted (the player is written again). */
static void note_stored(srv_persist *p, const srv_player *player, uint64_t sig) {
  if ((p->n_stored + 1) * 2 > p->cap_stored) {
    size_t cap = p->cap_stored ? p->cap_stored * 2 : 64;
    stored_player *grown = cap <= PERSIST_STORED_MAX ? calloc(cap, sizeof *grown) : NULL;
    if (grown == NULL) {
      forget_stored(p); /* Start again, in the table there is. */
      if (p->cap_stored == 0)
        return;
    } else {
      stored_player *old = p->stored;
      size_t old_cap = p->cap_stored;
      p->stored = grown;
      p->cap_stored = cap;
      for (size_t i = 0; i < old_cap; i++) {
        if (old[i].id[0] != '\0')
          *stored_slot(p, old[i].id) = old[i];
      }
      free(old);
    }
  }
  stored_player *e = stored_slot(p, player->id);
  if (e->id[0] == '\0') {
    snprintf(e->id, sizeof e->id, "%s", player->id);
    p->n_stored++;
  }
  e->sig = sig;
  e->batch = p->batch;
}

/* Records player and every token the registry knows for it (its sessions); a deleted account is
 * not stored again. A seat's record (again true) skips a player whose row and sessions are durable
 * as they are now. */
static int put_player(srv_persist *p, const srv_player *player, bool again) {
  if (player->deleted)
    return 0;
  uint64_t sig = player_sig(player);
  if (again && player_stored(p, player, sig))
    return 0;
  srv_store_player sp;
  memset(&sp, 0, sizeof sp);
  snprintf(sp.id, sizeof sp.id, "%s", player->id);
  snprintf(sp.name, sizeof sp.name, "%s", player->name);
  sp.created_ms = wall_ms(p); /* Kept from the first record when the player is known. */
  int rc = srv_store_player_put(p->store, &sp);
  for (size_t i = 0; rc == 0 && i < srv_ident_token_count(player); i++)
    rc = srv_store_session_put(p->store, srv_ident_token(player, i), player->id, sp.created_ms);
  if (rc < 0)
    return store_fail(p, "cannot store player", player->id, rc);
  note_stored(p, player, sig);
  return 0;
}

static int put_room(srv_persist *p, const srv_record *ev) {
  /* The seated players first: recovery needs them, even when their own record was lost. */
  for (int s = 0; s < 2; s++) {
    if (ev->seats[s] != NULL && !ev->seats[s]->computer &&
        (s == 0 || ev->seats[1] != ev->seats[0])) {
      int rc = put_player(p, ev->seats[s], true);
      if (rc != 0)
        return rc;
    }
  }
  srv_store_room r;
  memset(&r, 0, sizeof r);
  snprintf(r.code, sizeof r.code, "%s", ev->room);
  char *settings = srv_settings_format(ev->opts);
  if (settings == NULL) {
    srv_log_error("persist", "room %s: cannot encode its settings", ev->room);
    return SRV_ESTORAGE;
  }
  r.settings = settings;
  seat_of(ev->seats[0], &r.seats[0]);
  seat_of(ev->seats[1], &r.seats[1]);
  r.status = (srv_store_status)ev->status;
  int rc = srv_store_room_put(p->store, &r);
  free(settings);
  return rc < 0 ? store_fail(p, "cannot store room", ev->room, rc) : 0;
}

/* Writes what rated game (of kind, between the accounts players) changed in the ratings, in the
 * batch that records its result. A game whose ratings are stored already (its result recorded
 * twice) is not written again. Returns 0 or SRV_ESTORAGE. */
static int rate_game(srv_persist *p, int64_t game, mc_kind kind, const char *const players[2],
                     const srv_rating_change *change) {
  int rc = srv_store_game_rated(p->store, game);
  if (rc != 0)
    return rc < 0 ? store_fail(p, "cannot read the ratings of game", "", rc) : 0;
  rc = srv_store_game_rate(p->store, game, kind, players, change->after, change->diff,
                           change->ended_ms);
  return rc < 0 ? store_fail(p, "cannot store the ratings of game", "", rc) : 0;
}

static int finish_game(srv_persist *p, const srv_record *ev) {
  if (ev->aborted) {
    /* Marked aborted, not deleted: recovery finds its room's game, and no list shows it. */
    int rc = srv_store_game_abort(p->store, ev->game_id, wall_ms(p));
    return rc < 0 ? store_fail(p, "cannot store the aborted game of room", ev->room, rc) : 0;
  }
  mc_result res;
  if (!mc_game_over(ev->game, &res))
    return 0;
  int score[2] = {res.score[0], res.score[1]};
  int64_t ended = ev->rating != NULL ? ev->rating->ended_ms : wall_ms(p);
  int rc = srv_store_game_finish(p->store, ev->game_id, res.winner, res.reason, score, ended);
  if (rc < 0)
    return store_fail(p, "cannot store the result of room", ev->room, rc);
  if (ev->rating == NULL)
    return 0;
  const char *players[2] = {ev->seats[0]->id, ev->seats[1]->id};
  return rate_game(p, ev->game_id, ev->opts->rules.kind, players, ev->rating);
}

/* Records the room's current game as it is now under its id: its start, every move played so far
 * (the clock is known only for the move of a SRV_RECORD_MOVE event) and its result when it is
 * over. Used when a game starts, and again when its start was lost. */
static int record_game(srv_persist *p, const srv_record *ev) {
  int rc = put_room(p, ev);
  if (rc != 0)
    return rc;
  srv_store_game g;
  memset(&g, 0, sizeof g);
  g.id = ev->game_id;
  snprintf(g.room, sizeof g.room, "%s", ev->room);
  g.game_no = ev->game_no;
  g.rules = ev->opts->rules;
  seat_of(ev->seats[0], &g.seats[0]);
  seat_of(ev->seats[1], &g.seats[1]);
  g.clocked = ev->opts->clocked;
  g.initial_ms = ev->opts->initial_ms;
  g.increment_ms = ev->opts->increment_ms;
  g.rated = ev->opts->rated && ev->seats[0] != NULL && ev->seats[1] != NULL &&
            ev->seats[0] != ev->seats[1] && ev->seats[0]->account && ev->seats[1]->account &&
            (int)ev->opts->rules.kind < SRV_RATED_GAMES;
  g.started_ms = wall_ms(p);
  int64_t id = 0;
  if ((rc = srv_store_game_start(p->store, &g, &id)) < 0)
    return store_fail(p, "cannot store the game of room", ev->room, rc);
  size_t n = 0;
  const uint8_t *moves = mc_game_moves(ev->game, &n);
  for (size_t i = 0; i < n; i++) {
    srv_store_move m = {(int)i, mc_game_mover(ev->game, i), moves[i], -1, g.started_ms};
    if (ev->kind == SRV_RECORD_MOVE && i + 1 == n && ev->opts->clocked)
      m.clock_ms = ev->clock_ms[moves[i] == MC_SWAP ? !m.seat : m.seat];
    if ((rc = srv_store_move_add(p->store, id, &m)) < 0)
      return store_fail(p, "cannot store a move of room", ev->room, rc);
  }
  if (ev->kind == SRV_RECORD_GAME_FINISHED || ev->status == SRV_FINISHED)
    return finish_game(p, ev);
  return 0;
}

/* The pie rule's swap (the move of ply): the room and its game name the players at their new
 * seats. */
static int swap_seats(srv_persist *p, const srv_record *rec, int ply) {
  int rc = put_room(p, rec);
  if (rc != 0)
    return rc;
  srv_store_seat seats[2];
  seat_of(rec->seats[0], &seats[0]);
  seat_of(rec->seats[1], &seats[1]);
  rc = srv_store_game_seats(p->store, rec->game_id, ply, seats);
  return rc < 0 ? store_fail(p, "cannot store the seats of the game of room", rec->room, rc) : 0;
}

/* A chat line, with the room's current game (none before the first). */
static int put_chat(srv_persist *p, const srv_record *rec) {
  const srv_chat_line *l = rec->chat;
  srv_store_chat c;
  memset(&c, 0, sizeof c);
  snprintf(c.room, sizeof c.room, "%s", rec->room);
  c.game = rec->game_id;
  c.at_ms = l->at;
  snprintf(c.player, sizeof c.player, "%s", l->player);
  snprintf(c.name, sizeof c.name, "%s", l->name);
  const char *seat = srv_name_of(srv_you_names, l->seat);
  snprintf(c.seat, sizeof c.seat, "%s", l->seat == SRV_SEAT_SPECTATOR || !seat ? "" : seat);
  c.text = l->text;
  int rc = srv_store_chat_add(p->store, &c);
  return rc < 0 ? store_fail(p, "cannot store a chat line of room", rec->room, rc) : 0;
}

/* The moves of the room's game beyond its ply are gone from the store, and each side's last
 * remaining move holds that side's time now (srv_store_move_clock()). */
static int take_back(srv_persist *p, const srv_record *rec) {
  size_t ply = mc_game_ply(rec->game);
  int rc = srv_store_moves_truncate(p->store, rec->game_id, (int)ply);
  if (rc < 0)
    return store_fail(p, "cannot take back the moves of room", rec->room, rc);
  /* Each seat's time goes to the last move of the player holding it now (the pie rule's swap
   * exchanged them), as srv_store_clocks() reads it back. */
  bool swapped = mc_game_swap_ply(rec->game) >= 0;
  for (int s = 0; s < 2 && rec->opts->clocked; s++) {
    size_t i = ply;
    while (i > 0 && mc_game_player(rec->game, i - 1) != (swapped ? !s : s))
      i--;
    if (i > 0 &&
        (rc = srv_store_move_clock(p->store, rec->game_id, (int)i - 1, rec->clock_ms[s])) < 0)
      return store_fail(p, "cannot store the clocks of room", rec->room, rc);
  }
  return 0;
}

/* Remembers the result of a game the store refused (the room is finished in memory and its
 * players have seen the result), to write it again later. */
static void result_unsaved(srv_persist *p, const srv_record *rec) {
  int64_t id = rec->game_id;
  for (size_t i = 0; i < p->n_unsaved; i++) {
    if (p->unsaved[i].game == id)
      return;
  }
  if (p->n_unsaved == sizeof p->unsaved / sizeof p->unsaved[0]) {
    srv_log_error("persist", "game %" PRId64 ": too many unsaved results to retry this one", id);
    return;
  }
  unsaved_result *u = &p->unsaved[p->n_unsaved++];
  u->game = id;
  snprintf(u->room, sizeof u->room, "%s", rec->room);
  u->aborted = rec->aborted;
  if (!mc_game_over(rec->game, &u->result))
    u->result.reason = MC_REASON_NONE;
  u->ended_ms = rec->rating != NULL ? rec->rating->ended_ms : wall_ms(p);
  u->rated = rec->rating != NULL;
  u->kind = rec->opts->rules.kind;
  if (u->rated)
    u->rating = *rec->rating;
  for (int s = 0; s < 2 && u->rated; s++)
    snprintf(u->players[s], sizeof u->players[s], "%s", rec->seats[s]->id);
  p->retry_at = p->time->now(p->time) + PERSIST_RETRY_MS;
}

/* Forgets the unsaved result of game: its moves were lost and taken back, so the room records
 * the game's end again if it is still over. */
static void forget_result(srv_persist *p, int64_t game) {
  size_t kept = 0;
  for (size_t i = 0; i < p->n_unsaved; i++) {
    if (p->unsaved[i].game != game)
      p->unsaved[kept++] = p->unsaved[i];
  }
  p->n_unsaved = kept;
}

/* Writes the unsaved results again when it is time; a result still refused waits again. */
static void retry_results(srv_persist *p) {
  if (p->n_unsaved == 0 || p->time->now(p->time) < p->retry_at)
    return;
  size_t kept = 0;
  for (size_t i = 0; i < p->n_unsaved; i++) {
    unsaved_result *u = &p->unsaved[i];
    int score[2] = {u->result.score[0], u->result.score[1]};
    int rc = u->aborted ? srv_store_game_abort(p->store, u->game, u->ended_ms)
                        : srv_store_game_finish(p->store, u->game, u->result.winner,
                                                u->result.reason, score, u->ended_ms);
    if (rc >= 0 && u->rated) {
      const char *players[2] = {u->players[0], u->players[1]};
      rc = rate_game(p, u->game, u->kind, players, &u->rating);
    }
    if (rc < 0) {
      store_fail(p, "cannot store the result of room", u->room, rc);
      p->unsaved[kept++] = *u;
    } else {
      journal(p, u->game, u->room);
      srv_log_info("persist", "room %s: its result is stored now", u->room);
    }
  }
  p->n_unsaved = kept;
  p->retry_at = p->time->now(p->time) + PERSIST_RETRY_MS;
}

/* Writes rec; returns 0 or SRV_ESTORAGE. */
static int write_record(srv_persist *p, const srv_record *rec) {
  int rc = 0;
  switch (rec->kind) {
  case SRV_RECORD_ROOM_OPENED:
  case SRV_RECORD_SEATED:
    return put_room(p, rec);
  case SRV_RECORD_GAME_STARTED:
    return record_game(p, rec);
  case SRV_RECORD_MOVE: {
    size_t ply = mc_game_ply(rec->game);
    /* The pie rule's swap: its player's clock, who holds the other seat now (and the seats of
     * the room and of the game change hands with it). */
    bool swap = rec->house == MC_SWAP;
    int clock_seat = swap ? !rec->seat : rec->seat;
    srv_store_move m = {(int)ply - 1, rec->seat, rec->house,
                        rec->opts->clocked ? rec->clock_ms[clock_seat] : -1, wall_ms(p)};
    rc = srv_store_move_add(p->store, rec->game_id, &m);
    if (rc < 0)
      return store_fail(p, "cannot store a move of room", rec->room, rc);
    return swap ? swap_seats(p, rec, m.ply) : 0;
  }
  case SRV_RECORD_GAME_FINISHED:
    rc = finish_game(p, rec);
    if (rc != 0)
      result_unsaved(p, rec); /* Written again later: the result is not taken back. */
    return 0;
  case SRV_RECORD_ROOM_CLOSED:
    rc = srv_store_room_closed(p->store, rec->room);
    return rc < 0 ? store_fail(p, "cannot close room", rec->room, rc) : 0;
  case SRV_RECORD_CHAT:
    return put_chat(p, rec);
  case SRV_RECORD_TAKEBACK:
    return take_back(p, rec);
  case SRV_RECORD_KINDS:
    break;
  }
  return 0;
}

/* What a refused write of rec stood for, as the store names a lost write. */
static srv_store_op refused_op(const srv_record *rec) {
  srv_store_op op;
  memset(&op, 0, sizeof op);
  op.game = rec->game_id;
  switch (rec->kind) {
  case SRV_RECORD_GAME_STARTED:
    op.kind = SRV_STORE_OP_GAME_START;
    break;
  case SRV_RECORD_MOVE:
    op.kind = SRV_STORE_OP_MOVE;
    op.ply = (int)mc_game_ply(rec->game) - 1;
    break;
  case SRV_RECORD_TAKEBACK:
    op.kind = SRV_STORE_OP_TAKEBACK;
    break;
  case SRV_RECORD_CHAT:
    op.kind = SRV_STORE_OP_CHAT;
    break;
  default:
    op.kind = SRV_STORE_OP_ROOM;
    break;
  }
  snprintf(op.key, sizeof op.key, "%s", rec->room);
  return op;
}

void srv_persist_record(void *ud, const srv_record *rec) {
  srv_persist *p = ud;
  int rc = write_record(p, rec);
  if (rec->kind != SRV_RECORD_ROOM_CLOSED && rec->game_id != 0)
    journal(p, rec->game_id, rec->room);
  if (rc == 0)
    return;
  /* Refused: lost with the batch. The room goes on; the end of the turn has it take back what
   * the write stood for (a move) or record it again. */
  if (!reserve((void **)&p->refused, &p->cap_refused, p->n_refused + 1, sizeof *p->refused)) {
    srv_log_error("persist", "out of memory: a refused write of room %s is not taken back",
                  rec->room);
    return;
  }
  p->refused[p->n_refused++] = refused_op(rec);
}

/* ---- Players -------------------------------------------------------------------------------- */

int srv_persist_account_read(srv_store *store, const char *player, srv_persist_account *out) {
  memset(out, 0, sizeof *out);
  srv_store_account a;
  int rc = srv_store_account_by_player(store, player, &a);
  if (rc == SRV_STORE_ENOTFOUND)
    return 0;
  if (rc == 0)
    rc = srv_store_ratings_get(store, player, out->ratings);
  srv_pwhash_wipe(a.password, sizeof a.password);
  if (rc < 0) {
    srv_log_error("persist", "cannot read the account of player %s: %s (%s)", player,
                  srv_store_strerror(rc), srv_store_last_error(store));
    return rc;
  }
  out->found = true;
  snprintf(out->name, sizeof out->name, "%s", a.name);
  return 0;
}

void srv_persist_account_apply(srv_player *pl, const srv_persist_account *a) {
  if (!a->found)
    return;
  pl->account = true;
  snprintf(pl->name, sizeof pl->name, "%s", a->name);
  for (int k = 0; k < SRV_RATED_GAMES && k < SRV_STORE_RATED_GAMES; k++)
    pl->ratings[k] = a->ratings[k];
}

int srv_persist_load_account(srv_store *store, srv_player *pl) {
  srv_persist_account a;
  if (srv_persist_account_read(store, pl->id, &a) < 0)
    return SRV_ESTORAGE;
  srv_persist_account_apply(pl, &a);
  return 0;
}

/* A restore's read: what storage knows of a token, read off the loop where the reader runs. */
typedef struct restore_job {
  srv_persist *p;
  uint8_t hash[32];
  bool found;
  srv_store_player player;
  srv_persist_account account;
  void (*done)(void *arg, srv_player *player);
  void *arg;
} restore_job;

static int read_restore(srv_store *store, void *arg) {
  restore_job *j = arg;
  int rc = srv_store_player_by_token(store, j->hash, &j->player);
  if (rc == SRV_STORE_ENOTFOUND)
    return 0;
  if (rc == 0)
    rc = srv_persist_account_read(store, j->player.id, &j->account);
  if (rc == 0)
    j->found = true;
  return rc;
}

/* On the loop: the player read is adopted (once: a second hello of the same token meanwhile finds
 * it adopted, and its account is not applied again over what the loop has changed since). */
static void restore_read(void *arg, int rc) {
  restore_job *j = arg;
  srv_persist *p = j->p;
  srv_player *pl = NULL;
  if (rc < 0)
    srv_log_error("persist", "cannot read a player: %s", srv_store_strerror(rc));
  else if (j->found && srv_ident_adopt(p->ident, j->player.id, j->player.name, &pl) == 0) {
    bool fresh = pl->refs == 1; /* Adopted now: its account is applied too. */
    if (srv_ident_add_token(p->ident, pl, j->hash) != 0) {
      srv_ident_unref(p->ident, pl);
      pl = NULL;
    } else if (fresh) {
      srv_persist_account_apply(pl, &j->account);
    }
  }
  j->done(j->arg, pl);
  free(j);
}

int srv_persist_restore(void *ud, const char *token, void (*done)(void *arg, srv_player *player),
                        void *arg) {
  srv_persist *p = ud;
  restore_job *j = calloc(1, sizeof *j);
  if (j == NULL)
    return SRV_ENOMEM;
  j->p = p;
  j->done = done;
  j->arg = arg;
  if (srv_ident_hash_token(token, j->hash) != 0) { /* Not a token: nobody's. */
    free(j);
    done(arg, NULL);
    return 0;
  }
  int rc = srv_reader_read(p->reader, read_restore, restore_read, j);
  if (rc != 0)
    free(j);
  return rc;
}

int srv_persist_use_work(srv_persist *p, srv_work *work) {
  return srv_reader_use_work(p->reader, work);
}

void srv_persist_player(void *ud, const srv_player *player) {
  (void)put_player(ud, player, false);
}

/* Once a day (and at the first commit), with the next batch: guests
 * that never played and sit nowhere are forgotten after SRV_PERSIST_GUEST_DAYS. */
static void expire_guests(srv_persist *p) {
  uint64_t now = p->time->now(p->time);
  if (p->expire_at != 0 && now < p->expire_at)
    return;
  p->expire_at = now + PERSIST_EXPIRE_EVERY_MS;
  /* The deletes below may take rows of players noted as stored (a guest who sits nowhere now). */
  forget_stored(p);
  int64_t before = wall_ms(p) - (int64_t)SRV_PERSIST_GUEST_DAYS * 86400000;
  /* The deletes join the open batch: a commit of their own here would also commit, outside the
   * turn's pipeline, what the rooms wrote since the batch in flight was handed over. */
  int n = srv_store_players_expire(p->store, before);
  int rc = n < 0 ? n : 0;
  if (rc < 0)
    srv_log_warn("persist", "cannot forget old guests: %s", srv_store_strerror(rc));
  else if (n > 0)
    srv_log_info("persist", "forgot %d guests unseen for %d days", n, SRV_PERSIST_GUEST_DAYS);
  if (p->session_days <= 0)
    return;
  /* The registry forgets them first: a player in memory (a seat, a connection) would otherwise
   * keep saying hello with a session storage no longer has. */
  int64_t idle_before = wall_ms(p) - (int64_t)p->session_days * 86400000;
  uint8_t(*idle)[32] = NULL;
  size_t n_idle = 0;
  rc = srv_store_sessions_idle_list(p->store, idle_before, &idle, &n_idle);
  if (rc < 0) {
    srv_log_warn("persist", "cannot read idle sessions: %s", srv_store_strerror(rc));
    return;
  }
  for (size_t i = 0; p->ident != NULL && i < n_idle; i++)
    srv_ident_revoke(p->ident, idle[i]);
  free(idle);
  n = srv_store_sessions_idle(p->store, idle_before);
  if (n < 0)
    srv_log_warn("persist", "cannot end idle sessions: %s", srv_store_strerror(n));
  else if (n > 0)
    srv_log_info("persist", "ended %d sessions unused for %d days", n, p->session_days);
}

void srv_persist_set_session_days(srv_persist *p, int days) {
  p->session_days = days;
}

/* ---- The turn's commit ---------------------------------------------------------------------- */

/* The room of a lost write: its key, or for a move or a result the room the journal has for its
 * game; "" when unknown. */
static const char *room_of(const srv_persist *p, const srv_store_op *op) {
  if (op->key[0] != '\0')
    return op->key;
  for (size_t i = p->n_flight; i-- > 0;) {
    if (p->flight[i].game == op->game)
      return p->flight[i].room;
  }
  return "";
}

/* What ops[0..n), the lost writes of one room, took: the game's start and its first lost move. */
static void summarise(const srv_store_op *ops, size_t n, srv_persist_lost *out) {
  out->game = 0;
  out->ply = -1;
  out->game_lost = false;
  for (size_t i = 0; i < n; i++) {
    if (ops[i].kind == SRV_STORE_OP_GAME_START) {
      out->game_lost = true;
      out->game = ops[i].game;
    }
  }
  for (size_t i = 0; i < n; i++) {
    if (ops[i].kind != SRV_STORE_OP_MOVE)
      continue;
    if (out->game == 0)
      out->game = ops[i].game;
    if (ops[i].game == out->game && (out->ply < 0 || ops[i].ply < out->ply))
      out->ply = ops[i].ply;
  }
}

/* Whether a lost write is one the room takes back or records again (not a player, an account or
 * a chat line, an analysis). */
static bool room_write(const srv_store_op *op) {
  return op->kind != SRV_STORE_OP_PLAYER && op->kind != SRV_STORE_OP_ACCOUNT &&
         op->kind != SRV_STORE_OP_CHAT && op->kind != SRV_STORE_OP_ANALYSIS;
}

/* Groups the n lost writes (copied into p->ops, their keys filled with their rooms) room by room
 * into p->lost. Returns the number of rooms. */
static int group_lost(srv_persist *p, size_t n) {
  srv_store_op *ops = p->ops;
  for (size_t i = 0; i < n; i++) {
    if (ops[i].kind == SRV_STORE_OP_PLAYER) {
      srv_log_warn("persist", "player %s was not stored; it is again at its next hello or seat",
                   ops[i].key);
      continue;
    }
    if (ops[i].kind == SRV_STORE_OP_ACCOUNT) {
      srv_log_error("persist", "an account or session write of player %s was lost", ops[i].key);
      continue;
    }
    if (ops[i].kind == SRV_STORE_OP_ANALYSIS) {
      /* Made again when it is next asked for (srv_analysis.h). */
      srv_log_warn("persist", "the analysis of game %s was not stored", ops[i].key);
      continue;
    }
    if (ops[i].kind == SRV_STORE_OP_CHAT) {
      /* The line was said (it is not taken back): it is missing from the stored history. */
      srv_log_warn("persist", "room %s: a chat line was not stored", ops[i].key);
      continue;
    }
    const char *room = room_of(p, &ops[i]);
    if (room[0] == '\0')
      srv_log_warn("persist", "game %" PRId64 ": a lost write of a game no room plays any more",
                   ops[i].game);
    else if (room != ops[i].key)
      snprintf(ops[i].key, sizeof ops[i].key, "%s", room);
  }
  int rooms = 0;
  for (size_t i = 0; i < n; i++) {
    if (!room_write(&ops[i]) || ops[i].key[0] == '\0')
      continue;
    /* Bring the other writes of the same room next to this one, in place. */
    size_t k = i + 1;
    for (size_t j = i + 1; j < n; j++) {
      if (room_write(&ops[j]) && strcmp(ops[j].key, ops[i].key) == 0) {
        srv_store_op t = ops[k];
        ops[k] = ops[j];
        ops[j] = t;
        k++;
      }
    }
    if (!reserve((void **)&p->lost, &p->cap_lost, (size_t)rooms + 1, sizeof *p->lost)) {
      srv_log_error("persist", "out of memory: the lost writes of room %s are not taken back",
                    ops[i].key);
    } else {
      srv_persist_lost *l = &p->lost[rooms++];
      size_t len = strnlen(ops[i].key, SRV_CODE_LEN); /* Room codes are SRV_CODE_LEN long. */
      memcpy(l->room, ops[i].key, len);
      l->room[len] = '\0';
      summarise(&ops[i], k - i, l);
      if (l->ply >= 0)
        forget_result(p, l->game); /* The room decides again whether that game is over. */
    }
    i = k - 1;
  }
  return rooms;
}

void srv_persist_set_committer(srv_persist *p, const srv_committer *committer) {
  if (committer != NULL)
    p->committer = *committer;
  else
    memset(&p->committer, 0, sizeof p->committer);
}

bool srv_persist_busy(const srv_persist *p) {
  return p->busy;
}

/* The batch in flight is durable (rc 0) or lost: the rooms that lost writes are told. */
static void committed(void *arg, int rc) {
  srv_persist *p = arg;
  p->busy = false;
  int rooms = 0;
  size_t n = 0;
  const srv_store_op *failed = NULL;
  if (rc != 0) {
    failed = srv_store_failed(p->store, &n);
    srv_log_error("persist", "commit failed: %s (%s); %zu writes lost", srv_store_strerror(rc),
                  srv_store_last_error(p->store), n);
  }
  /* The batch's refused writes are lost with it too. The store's list is borrowed until the next
   * write, and what follows writes: copy both first. */
  size_t all = n + p->n_flight_refused;
  if (all > 0 && reserve((void **)&p->ops, &p->cap_ops, all, sizeof *p->ops)) {
    if (n > 0)
      memcpy(p->ops, failed, n * sizeof *failed);
    if (p->n_flight_refused > 0)
      memcpy(p->ops + n, p->flight_refused, p->n_flight_refused * sizeof *p->ops);
    rooms = group_lost(p, all);
  } else if (all > 0) {
    srv_log_error("persist", "out of memory: the rooms of the lost writes were not taken back");
  }
  /* The players noted by a batch that did not go in whole are written again. */
  if (rc == 0 && p->n_flight_refused == 0)
    p->durable = p->flight_batch;
  else
    forget_stored(p);
  p->n_flight_refused = 0;
  p->n_flight = 0;
  if (rc == 0)
    expire_guests(p);
  srv_persist_done done = p->done;
  p->done = NULL;
  if (done != NULL)
    done(p->done_arg, p->lost, rooms);
}

/* SQLite's own committer: the commit's result is known when it returns. */
static void commit_now(srv_store *store, srv_commit_done done, void *arg) {
  done(arg, srv_store_commit(store));
}

void srv_persist_commit(srv_persist *p, srv_persist_done done, void *arg) {
  retry_results(p);
  /* The batch's journal goes with it: writes from now on form the next batch. */
  journal_entry *j = p->flight;
  size_t cap = p->cap_flight;
  p->flight = p->journal;
  p->cap_flight = p->cap_journal;
  p->n_flight = p->n_journal;
  p->journal = j;
  p->cap_journal = cap;
  p->n_journal = 0;
  srv_store_op *r = p->flight_refused;
  cap = p->cap_flight_refused;
  p->flight_refused = p->refused;
  p->cap_flight_refused = p->cap_refused;
  p->n_flight_refused = p->n_refused;
  p->refused = r;
  p->cap_refused = cap;
  p->n_refused = 0;
  p->flight_batch = p->batch++;
  p->busy = true;
  p->done = done;
  p->done_arg = arg;
  if (p->committer.commit != NULL)
    p->committer.commit(p->committer.ud, p->store, committed, p);
  else
    commit_now(p->store, committed, p);
}

void srv_persist_room_gone(srv_persist *p, const char *code) {
  int rc = srv_store_room_closed(p->store, code);
  if (rc < 0)
    store_fail(p, "cannot close room", code, rc);
}
