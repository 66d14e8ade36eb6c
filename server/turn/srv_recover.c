/* Recovery at start: every room the store knows, back in memory (see srv_recover.h). */
#include "srv_recover.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_log.h"
#include "srv_persist.h"
#include "srv_reader.h"
#include "srv_settings.h"

/* What recovery works with, all borrowed. */
typedef struct recovery {
  srv_store *store;
  srv_ident *ident;
  srv_rooms *rooms;
  srv_time *time;
} recovery;

static srv_player *recovered_player(recovery *p, const srv_store_recovery *rec,
                                    const srv_store_seat *seat) {
  if (seat->computer >= 1 && seat->computer <= 6) {
    srv_player *pl = NULL; /* The computer takes its seat again at its level. */
    return srv_rooms_computer_player(p->ident, seat->computer, &pl) == 0 ? pl : NULL;
  }
  if (seat->player[0] == '\0')
    return NULL;
  for (size_t i = 0; i < rec->n_players; i++) {
    const srv_store_player *sp = &rec->players[i];
    if (strcmp(sp->id, seat->player) != 0)
      continue;
    srv_player *pl = NULL;
    if (srv_ident_adopt(p->ident, sp->id, sp->name, &pl) != 0)
      return NULL;
    if (pl->refs == 1 && srv_persist_load_account(p->store, pl) != 0) {
      srv_ident_unref(p->ident, pl);
      return NULL;
    }
    return pl;
  }
  return NULL;
}

/* Replays g (borrowed) into *out; a bad row is logged and the moves from it on are dropped from
 * the store and from g (n_moves shortened). Returns 0 or a negative SRV_STORE_E* code. */
static int replay_valid(recovery *p, srv_store_game *g, bool apply_result, mc_game **out) {
  srv_store_bad_row bad;
  int rc = srv_store_replay(g, apply_result, out, &bad);
  if (rc != SRV_STORE_EBADROW || bad.ply < 0)
    return rc;
  srv_log_error("recover",
                "room %s game %" PRId64 ": stored move %zu (ply %d, seat %d, house %d) does not "
                "replay: %s; resuming from the %zu moves before it",
                g->room, g->id, bad.index, bad.ply, bad.seat, bad.house, bad.message, bad.index);
  if ((rc = srv_store_moves_truncate(p->store, g->id, (int)bad.index)) < 0)
    return rc;
  g->n_moves = bad.index;
  return srv_store_replay(g, false, out, NULL);
}

/* The chat lines of room code from the recovery (ordered by room), as the rooms keep them, into
 * a new array (the texts borrowed from rec); *n their number. NULL with *n 0 when there are none
 * or memory runs out (the room comes back without its lines). */
static srv_chat_line *room_chat(const srv_store_recovery *rec, const char *code, size_t *n) {
  size_t first = 0;
  *n = 0;
  while (first < rec->n_chat && strcmp(rec->chat[first].room, code) != 0)
    first++;
  size_t count = 0;
  while (first + count < rec->n_chat && strcmp(rec->chat[first + count].room, code) == 0)
    count++;
  srv_chat_line *lines = count ? calloc(count, sizeof *lines) : NULL;
  if (lines == NULL)
    return NULL;
  for (size_t i = 0; i < count; i++) {
    const srv_store_chat *c = &rec->chat[first + i];
    srv_chat_line *l = &lines[i];
    l->at = c->at_ms;
    int seat = c->seat[0] ? srv_name_index(srv_you_names, c->seat, strlen(c->seat)) : -1;
    l->seat = seat >= 0 ? seat : SRV_SEAT_SPECTATOR;
    size_t plen = strnlen(c->player, sizeof l->player - 1); /* Ids have 16 digits. */
    memcpy(l->player, c->player, plen);
    l->player[plen] = '\0';
    snprintf(l->name, sizeof l->name, "%s", c->name);
    l->text = c->text;
    l->account = c->account;
  }
  *n = count;
  return lines;
}

static int recover_room(recovery *p, srv_store_recovery *rec, const srv_store_room *r) {
  srv_room_restore rr;
  memset(&rr, 0, sizeof rr);
  srv_room_opts opts;
  if (srv_settings_parse(r->settings, &opts) != 0) {
    srv_log_error("recover", "room %s: unreadable settings %s; not recovered", r->code,
                  r->settings);
    return 0;
  }
  rr.code = r->code;
  rr.opts = &opts;
  rr.status = (srv_status)r->status;
  for (int s = 0; s < 2; s++)
    rr.seats[s] = recovered_player(p, rec, &r->seats[s]);
  srv_store_game *g = NULL, *owned = NULL;
  if (r->game != 0) {
    for (size_t i = 0; i < rec->n_games; i++) {
      if (rec->games[i].id == r->game)
        g = &rec->games[i];
    }
    if (g == NULL) {
      /* A finished game is not in the recovery set: read it with its moves. */
      int rc = srv_store_game_get(p->store, r->game, &owned);
      if (rc < 0 && rc != SRV_STORE_ENOTFOUND)
        return rc;
      g = owned;
    }
  }
  int rc = 0;
  if (g != NULL) {
    rc = replay_valid(p, g, true, &rr.game);
    if (rc < 0) {
      srv_log_error("recover", "room %s game %" PRId64 ": %s; not recovered", r->code, g->id,
                    srv_store_strerror(rc));
      srv_store_game_free(owned);
      return rc == SRV_STORE_ENOMEM ? rc : 0;
    }
    rr.game_id = g->id;
    rr.game_no = g->game_no;
    if (g->n_moves > 0) {
      rr.has_last = true;
      rr.last_seat = g->moves[g->n_moves - 1].seat;
      rr.last_house = g->moves[g->n_moves - 1].house;
    }
    if (opts.clocked && srv_store_clocks(g, rr.clock_ms) != 0)
      rr.clock_ms[0] = rr.clock_ms[1] = opts.initial_ms;
    bool over = mc_game_over(rr.game, NULL);
    rr.aborted = g->aborted && !over; /* An aborted game stays aborted. */
    if (over && g->ended_ms == 0) {
      /* The last move ended the game but its result is missing: record it now. */
      mc_result res;
      mc_game_over(rr.game, &res);
      int score[2] = {res.score[0], res.score[1]};
      srv_store_game_finish(p->store, g->id, res.winner, res.reason, score, p->time->wall(p->time));
    }
    rr.status = over || rr.aborted ? SRV_FINISHED : SRV_PLAYING;
  } else if (rr.status != SRV_WAITING) {
    /* The game's start never became durable, so none of its moves was acknowledged: the same
     * players start it again (it is recorded at its first move). */
    rr.status = SRV_PLAYING;
    rr.game = mc_game_new(&opts.rules);
    if (rr.game == NULL)
      return SRV_STORE_ENOMEM;
    rr.clock_ms[0] = rr.clock_ms[1] = opts.initial_ms;
    rr.game_no = 1;
  }
  if (rr.status != SRV_WAITING && (rr.seats[0] == NULL || rr.seats[1] == NULL)) {
    srv_log_error("recover", "room %s: a seat of its game has no stored player; not recovered",
                  r->code);
    mc_game_free(rr.game);
    srv_store_game_free(owned);
    return 0;
  }
  srv_chat_line *chat = room_chat(rec, r->code, &rr.n_chat);
  rr.chat = chat;
  rc = srv_rooms_restore(p->rooms, &rr);
  free(chat);
  srv_store_game_free(owned);
  for (int s = 0; s < 2; s++) {
    if (rr.seats[s] != NULL)
      srv_ident_unref(p->ident, rr.seats[s]); /* The seat holds its own reference now. */
  }
  if (rc != 0)
    srv_log_error("recover", "room %s: not recovered: %s", r->code, srv_err_code(rc));
  if (rc == SRV_ENOMEM)
    return SRV_STORE_ENOMEM;
  return 0;
}

/* What recovery reads first, through the storage seam's reads: the next game id and the rooms to
 * bring back. */
typedef struct recovery_read {
  recovery *p;
  int64_t next;
  srv_store_recovery *rec;
  int rc; /* The result of applying it. */
} recovery_read;

static int read_recovery(srv_store *store, void *arg) {
  recovery_read *r = arg;
  int rc = srv_store_games_next_id(store, &r->next);
  if (rc < 0) {
    srv_log_error("recover", "cannot read the next game id: %s (%s)", srv_store_strerror(rc),
                  srv_store_last_error(store));
    return rc;
  }
  if ((rc = srv_store_recover(store, &r->rec)) < 0)
    srv_log_error("recover", "cannot read the stored games: %s (%s)", srv_store_strerror(rc),
                  srv_store_last_error(store));
  return rc;
}

/* The rooms come back as read; what had to be repaired (a bad row, a finished game's lost
 * result) is committed. */
static void recovered(void *arg, int rc) {
  recovery_read *r = arg;
  recovery *p = r->p;
  if (rc < 0) {
    r->rc = SRV_ESTORAGE;
    return;
  }
  /* The rooms give games their ids from here on, past every stored one. */
  srv_rooms_set_next_game_id(p->rooms, r->next);
  srv_store_recovery *rec = r->rec;
  size_t games = 0;
  for (size_t i = 0; i < rec->n_rooms && rc == 0; i++) {
    rc = recover_room(p, rec, &rec->rooms[i]);
    games += rec->rooms[i].game != 0;
  }
  size_t n_rooms = rec->n_rooms;
  srv_store_recovery_free(rec);
  if (rc < 0) {
    srv_log_error("recover", "recovery failed: %s", srv_store_strerror(rc));
    r->rc = rc == SRV_STORE_ENOMEM ? SRV_ENOMEM : SRV_ESTORAGE;
    return;
  }
  if ((rc = srv_store_commit(p->store)) < 0) {
    srv_log_error("recover", "cannot commit the recovery: %s (%s)", srv_store_strerror(rc),
                  srv_store_last_error(p->store));
    r->rc = SRV_ESTORAGE;
    return;
  }
  srv_log_info("recover", "recovered %zu rooms with %zu games from %s", n_rooms, games,
               srv_store_path(p->store));
  r->rc = 0;
}

int srv_recover_room_from(srv_store *store, srv_ident *ident, srv_rooms *rooms, srv_time *time,
                          const char *code, srv_store_recovery *rec) {
  recovery ctx = {store, ident, rooms, time};
  int rc = rec->n_rooms == 1 ? recover_room(&ctx, rec, &rec->rooms[0]) : 1;
  srv_store_recovery_free(rec);
  if (rc == 1)
    return SRV_ENOTFOUND;
  if (rc < 0)
    return rc == SRV_STORE_ENOMEM ? SRV_ENOMEM : SRV_ESTORAGE;
  /* recover_room() logs a room it could not bring back and goes on: here that is an answer. */
  return srv_rooms_find(rooms, code) != NULL ? 0 : SRV_ENOTFOUND;
}

int srv_recover(srv_store *store, srv_ident *ident, srv_rooms *rooms, srv_time *time) {
  recovery ctx = {store, ident, rooms, time};
  recovery_read r = {&ctx, 0, NULL, SRV_EINTERNAL};
  /* Before the server serves anyone. With SQLite the read is answered before srv_reader_read()
   * returns; a backend whose reads come later must answer it before the server listens. */
  srv_reader *reader = srv_reader_new(store);
  if (reader == NULL)
    return SRV_ENOMEM;
  int rc = srv_reader_read(reader, read_recovery, recovered, &r);
  srv_reader_free(reader);
  return rc != 0 ? rc : r.rc;
}
