/* Persistence: room events -> store writes, the turn's commit, recovery and the archive routes
 * (see srv_persist.h). */
#include "srv_persist.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_error.h"
#include "mc_text.h"
#include "srv_archive.h"
#include "srv_error.h"
#include "srv_jsonw.h"
#include "srv_log.h"

struct srv_persist {
  srv_store *store;
  srv_ident *ident;
  srv_time *time;
  srv_rooms *rooms;
  void (*drop)(void *ud, const char *code);
  void *drop_ud;
  srv_store_op *lost; /* A copy of the lost writes while they are handled. */
  size_t lost_cap;
  /* Finished games whose result the store refused at once: written again, at most once a
   * second (a disk that keeps failing must not turn every loop turn into a retry). */
  int64_t unsaved[64];
  size_t n_unsaved;
  uint64_t retry_at;
};

/* How long a refused result waits before it is written again. */
#define PERSIST_RETRY_MS 1000

srv_persist *srv_persist_new(srv_store *store, srv_ident *ident, srv_time *time) {
  srv_persist *p = calloc(1, sizeof *p);
  if (p == NULL)
    return NULL;
  p->store = store;
  p->ident = ident;
  p->time = time;
  return p;
}

void srv_persist_free(srv_persist *p) {
  if (p == NULL)
    return;
  free(p->lost);
  free(p);
}

void srv_persist_attach(srv_persist *p, srv_rooms *rooms, void (*drop)(void *ud, const char *code),
                        void *drop_ud) {
  p->rooms = rooms;
  p->drop = drop;
  p->drop_ud = drop_ud;
  srv_recorder recorder = {srv_persist_record, p};
  srv_rooms_set_recorder(rooms, &recorder);
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

/* ---- Room settings as JSON ------------------------------------------------------------------ */

/* Returns the settings of opts as a new malloc'd JSON text, or NULL when memory runs out. */
static char *settings_json(const srv_room_opts *o) {
  char rules[128];
  int n = mc_rules_format(&o->rules, rules, sizeof rules);
  const char *vis = srv_name_of(srv_visibility_names, (int)o->visibility),
             *seat = srv_name_of(srv_seat_choice_names, (int)o->seat),
             *opp = srv_name_of(srv_opponent_names, (int)o->opponent);
  if (n < 0 || (size_t)n >= sizeof rules || vis == NULL || seat == NULL || opp == NULL)
    return NULL;
  json_t *j =
      json_pack("{s:s,s:s,s:s,s:b,s:I,s:I,s:s,s:i}", "rules", rules, "visibility", vis, "seat",
                seat, "clocked", (int)o->clocked, "initial_ms", (json_int_t)o->initial_ms,
                "increment_ms", (json_int_t)o->increment_ms, "opponent", opp, "level", o->level);
  char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
  json_decref(j);
  return text;
}

/* Parses settings_json() text (borrowed) into *o. Returns 0 or SRV_EBADREQ. */
static int settings_parse(const char *text, srv_room_opts *o) {
  json_error_t jerr;
  json_t *j = json_loads(text, 0, &jerr);
  const char *rules, *vis, *seat, *opp;
  int clocked = 0, level = 0;
  json_int_t initial = 0, increment = 0;
  int rc = SRV_EBADREQ;
  memset(o, 0, sizeof *o);
  if (j != NULL &&
      json_unpack(j, "{s:s,s:s,s:s,s:b,s:I,s:I,s:s,s:i}", "rules", &rules, "visibility", &vis,
                  "seat", &seat, "clocked", &clocked, "initial_ms", &initial, "increment_ms",
                  &increment, "opponent", &opp, "level", &level) == 0) {
    mc_text_error terr;
    int v = srv_name_index(srv_visibility_names, vis, strlen(vis)),
        s = srv_name_index(srv_seat_choice_names, seat, strlen(seat)),
        op = srv_name_index(srv_opponent_names, opp, strlen(opp));
    if (mc_rules_parse(rules, &o->rules, &terr) == 0 && v >= 0 && s >= 0 && op >= 0 &&
        initial >= 0 && increment >= 0) {
      o->visibility = (srv_visibility)v;
      o->seat = (srv_seat_choice)s;
      o->opponent = (srv_opponent)op;
      o->clocked = clocked != 0;
      o->initial_ms = initial;
      o->increment_ms = increment;
      o->level = level;
      rc = 0;
    }
  }
  json_decref(j);
  return rc;
}

/* ---- Events --------------------------------------------------------------------------------- */

static void seat_of(const srv_player *pl, srv_store_seat *out) {
  memset(out, 0, sizeof *out);
  if (pl != NULL) {
    snprintf(out->player, sizeof out->player, "%s", pl->id);
    snprintf(out->name, sizeof out->name, "%s", pl->name);
  }
}

static int put_player(srv_persist *p, const srv_player *player) {
  srv_store_player sp;
  memset(&sp, 0, sizeof sp);
  snprintf(sp.id, sizeof sp.id, "%s", player->id);
  snprintf(sp.name, sizeof sp.name, "%s", player->name);
  memcpy(sp.token_hash, player->token_hash, sizeof sp.token_hash);
  sp.created_ms = wall_ms(p); /* Kept from the first record when the player is known. */
  int rc = srv_store_player_put(p->store, &sp);
  return rc < 0 ? store_fail(p, "cannot store player", player->id, rc) : 0;
}

static int put_room(srv_persist *p, const srv_record *ev) {
  /* The seated players first: recovery needs them, even when their own record was lost. */
  for (int s = 0; s < 2; s++) {
    if (ev->seats[s] != NULL && (s == 0 || ev->seats[1] != ev->seats[0])) {
      int rc = put_player(p, ev->seats[s]);
      if (rc != 0)
        return rc;
    }
  }
  srv_store_room r;
  memset(&r, 0, sizeof r);
  snprintf(r.code, sizeof r.code, "%s", ev->room);
  char *settings = settings_json(ev->opts);
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

static int finish_game(srv_persist *p, const srv_record *ev) {
  mc_result res;
  if (!mc_game_over(ev->game, &res))
    return 0;
  int score[2] = {res.score[0], res.score[1]};
  int rc = srv_store_game_finish(p->store, *ev->game_id, res.winner, res.reason, score, wall_ms(p));
  return rc < 0 ? store_fail(p, "cannot store the result of room", ev->room, rc) : 0;
}

/* Records the room's current game as it is now: its start, every move played so far (the clock
 * is known only for the move of a SRV_RECORD_MOVE event) and its result when it is over. Used when
 * a game starts, and later when its first record was lost. */
static int record_game(srv_persist *p, const srv_record *ev) {
  *ev->game_id = 0;
  int rc = put_room(p, ev);
  if (rc != 0)
    return rc;
  srv_store_game g;
  memset(&g, 0, sizeof g);
  snprintf(g.room, sizeof g.room, "%s", ev->room);
  g.game_no = ev->game_no;
  g.rules = ev->opts->rules;
  seat_of(ev->seats[0], &g.seats[0]);
  seat_of(ev->seats[1], &g.seats[1]);
  g.clocked = ev->opts->clocked;
  g.initial_ms = ev->opts->initial_ms;
  g.increment_ms = ev->opts->increment_ms;
  g.started_ms = wall_ms(p);
  int64_t id = 0;
  if ((rc = srv_store_game_start(p->store, &g, &id)) < 0)
    return store_fail(p, "cannot store the game of room", ev->room, rc);
  size_t n = 0;
  const uint8_t *moves = mc_game_moves(ev->game, &n);
  for (size_t i = 0; i < n; i++) {
    srv_store_move m = {(int)i, mc_game_mover(ev->game, i), moves[i], -1, g.started_ms};
    if (ev->kind == SRV_RECORD_MOVE && i + 1 == n && ev->opts->clocked)
      m.clock_ms = ev->clock_ms[m.seat];
    if ((rc = srv_store_move_add(p->store, id, &m)) < 0)
      return store_fail(p, "cannot store a move of room", ev->room, rc);
  }
  *ev->game_id = id;
  if (ev->kind == SRV_RECORD_GAME_FINISHED || ev->status == SRV_FINISHED) {
    if ((rc = finish_game(p, ev)) != 0) {
      *ev->game_id = 0;
      return rc;
    }
  }
  return 0;
}

/* Remembers that the result of game id still has to be written (the room is finished in memory
 * and its players have seen the result). */
static void result_unsaved(srv_persist *p, int64_t id) {
  for (size_t i = 0; i < p->n_unsaved; i++) {
    if (p->unsaved[i] == id)
      return;
  }
  if (p->n_unsaved == sizeof p->unsaved / sizeof p->unsaved[0]) {
    srv_log_error("persist", "game %" PRId64 ": too many unsaved results to retry this one", id);
    return;
  }
  p->unsaved[p->n_unsaved++] = id;
  p->retry_at = p->time->now(p->time) + PERSIST_RETRY_MS;
}

/* Writes the unsaved results again when it is time; a result still refused waits again. */
static void retry_results(srv_persist *p) {
  if (p->n_unsaved == 0 || p->rooms == NULL || p->time->now(p->time) < p->retry_at)
    return;
  size_t kept = 0;
  for (size_t i = 0; i < p->n_unsaved; i++) {
    int64_t id = p->unsaved[i];
    const srv_room *room = srv_rooms_find_game(p->rooms, id);
    mc_result res;
    if (room == NULL || !mc_game_over(srv_room_game(room), &res)) {
      srv_log_warn("persist", "game %" PRId64 ": its room is gone; its result stays unsaved", id);
      continue;
    }
    int score[2] = {res.score[0], res.score[1]};
    int rc = srv_store_game_finish(p->store, id, res.winner, res.reason, score, wall_ms(p));
    if (rc < 0) {
      store_fail(p, "cannot store the result of room", srv_room_code(room), rc);
      p->unsaved[kept++] = id;
    } else {
      srv_log_info("persist", "room %s: its result is stored now", srv_room_code(room));
    }
  }
  p->n_unsaved = kept;
  p->retry_at = p->time->now(p->time) + PERSIST_RETRY_MS;
}

int srv_persist_record(void *ud, const srv_record *ev) {
  srv_persist *p = ud;
  int rc = 0;
  switch (ev->kind) {
  case SRV_RECORD_ROOM_OPENED:
  case SRV_RECORD_SEATED:
    return put_room(p, ev);
  case SRV_RECORD_GAME_STARTED:
    return record_game(p, ev);
  case SRV_RECORD_MOVE: {
    if (*ev->game_id == 0)
      return record_game(p, ev); /* Its start was lost: record it whole, this move included. */
    size_t ply = mc_game_ply(ev->game);
    srv_store_move m = {(int)ply - 1, ev->seat, ev->house,
                        ev->opts->clocked ? ev->clock_ms[ev->seat] : -1, wall_ms(p)};
    rc = srv_store_move_add(p->store, *ev->game_id, &m);
    return rc < 0 ? store_fail(p, "cannot store a move of room", ev->room, rc) : 0;
  }
  case SRV_RECORD_GAME_FINISHED:
    if (*ev->game_id == 0)
      return record_game(p, ev);
    rc = finish_game(p, ev);
    if (rc != 0)
      result_unsaved(p, *ev->game_id);
    return rc;
  case SRV_RECORD_ROOM_CLOSED:
    rc = srv_store_room_closed(p->store, ev->room);
    return rc < 0 ? store_fail(p, "cannot close room", ev->room, rc) : 0;
  case SRV_RECORD_KINDS:
    break;
  }
  return 0;
}

/* ---- Players -------------------------------------------------------------------------------- */

srv_player *srv_persist_restore(void *ud, const char *token) {
  srv_persist *p = ud;
  uint8_t hash[32];
  if (srv_ident_hash_token(token, hash) != 0)
    return NULL;
  srv_store_player sp;
  int rc = srv_store_player_by_token(p->store, hash, &sp);
  if (rc != 0) {
    if (rc != SRV_STORE_ENOTFOUND)
      store_fail(p, "cannot read a player", "", rc);
    return NULL;
  }
  srv_player *pl = NULL;
  if (srv_ident_adopt(p->ident, sp.id, sp.name, sp.token_hash, &pl) != 0)
    return NULL;
  return pl;
}

void srv_persist_player(void *ud, const srv_player *player) {
  (void)put_player(ud, player);
}

/* ---- The turn's commit ---------------------------------------------------------------------- */

/* Handles the writes of one room lost with the batch: ops[0..n) (borrowed copies). */
static void room_lost(srv_persist *p, const char *code, const srv_store_op *ops, size_t n) {
  srv_room *room = srv_rooms_find(p->rooms, code);
  if (room == NULL) {
    /* The room closed during the turn: its closing may be what was lost. */
    int rc = srv_store_room_closed(p->store, code);
    if (rc < 0)
      store_fail(p, "cannot close room", code, rc);
    return;
  }
  int64_t game = 0;
  int ply = -1;
  bool game_lost = false;
  for (size_t i = 0; i < n; i++) {
    if (ops[i].kind == SRV_STORE_OP_GAME_START)
      game_lost = true, game = ops[i].game;
  }
  for (size_t i = 0; i < n; i++) {
    if (ops[i].kind != SRV_STORE_OP_MOVE)
      continue;
    if (game == 0)
      game = ops[i].game;
    if (ops[i].game == game && (ply < 0 || ops[i].ply < ply))
      ply = ops[i].ply;
  }
  if (p->drop != NULL)
    p->drop(p->drop_ud, code);
  srv_rooms_store_lost(p->rooms, code, game, ply, game_lost, SRV_ESTORAGE);
}

void srv_persist_turn(void *ud) {
  srv_persist *p = ud;
  retry_results(p);
  int rc = srv_store_commit(p->store);
  if (rc == 0)
    return;
  size_t n = 0;
  const srv_store_op *failed = srv_store_failed(p->store, &n);
  srv_log_error("persist", "commit failed: %s (%s); %zu writes lost", srv_store_strerror(rc),
                srv_store_last_error(p->store), n);
  if (n == 0 || p->rooms == NULL)
    return;
  /* The list is borrowed until the next write, and handling it writes: copy it first. */
  if (n > p->lost_cap) {
    srv_store_op *grown = realloc(p->lost, n * sizeof *grown);
    if (grown == NULL) {
      srv_log_error("persist", "out of memory: the rooms of the lost writes were not taken back");
      return;
    }
    p->lost = grown;
    p->lost_cap = n;
  }
  memcpy(p->lost, failed, n * sizeof *failed);
  /* The store names a move's or a result's game, not its room: find the room playing it. */
  for (size_t i = 0; i < n; i++) {
    if (p->lost[i].key[0] != '\0' || p->lost[i].game <= 0)
      continue;
    const srv_room *room = srv_rooms_find_game(p->rooms, p->lost[i].game);
    if (room != NULL)
      snprintf(p->lost[i].key, sizeof p->lost[i].key, "%s", srv_room_code(room));
    else
      srv_log_warn("persist", "game %" PRId64 ": a lost write of a game no room plays any more",
                   p->lost[i].game);
  }
  /* Group by room, in place: each room's ops are handled once. */
  for (size_t i = 0; i < n; i++) {
    if (p->lost[i].kind == SRV_STORE_OP_PLAYER) {
      srv_log_warn("persist", "player %s was not stored; it is again at its next hello or seat",
                   p->lost[i].key);
      continue;
    }
    if (p->lost[i].key[0] == '\0')
      continue;
    size_t k = i + 1;
    for (size_t j = i + 1; j < n; j++) {
      if (p->lost[j].kind != SRV_STORE_OP_PLAYER && strcmp(p->lost[j].key, p->lost[i].key) == 0) {
        srv_store_op t = p->lost[k];
        p->lost[k] = p->lost[j];
        p->lost[j] = t;
        k++;
      }
    }
    char code[sizeof p->lost[i].key];
    memcpy(code, p->lost[i].key, sizeof code);
    room_lost(p, code, &p->lost[i], k - i);
    i = k - 1;
  }
}

char *srv_persist_metrics(void *ud) {
  srv_persist *p = ud;
  srv_store_stats st;
  srv_store_get_stats(p->store, &st);
  char *text = malloc(1024);
  if (text == NULL)
    return NULL;
  snprintf(text, 1024,
           "# HELP mancala_store_commits_total Transactions committed (one per loop turn with "
           "writes).\n# TYPE mancala_store_commits_total counter\n"
           "mancala_store_commits_total %" PRIu64 "\n"
           "# HELP mancala_store_failed_commits_total Batches lost to a storage error.\n"
           "# TYPE mancala_store_failed_commits_total counter\n"
           "mancala_store_failed_commits_total %" PRIu64 "\n"
           "# HELP mancala_store_writes_total Rows written.\n"
           "# TYPE mancala_store_writes_total counter\n"
           "mancala_store_writes_total %" PRIu64 "\n"
           "# HELP mancala_store_commit_seconds_total Time spent committing.\n"
           "# TYPE mancala_store_commit_seconds_total counter\n"
           "mancala_store_commit_seconds_total %.6f\n"
           "# HELP mancala_store_commit_seconds_max The longest commit.\n"
           "# TYPE mancala_store_commit_seconds_max gauge\n"
           "mancala_store_commit_seconds_max %.6f\n",
           st.commits, st.failed_commits, st.writes, (double)st.commit_ns_total / 1e9,
           (double)st.commit_ns_max / 1e9);
  return text;
}

/* ---- Recovery ------------------------------------------------------------------------------- */

static srv_player *recovered_player(srv_persist *p, const srv_store_recovery *rec,
                                    const srv_store_seat *seat) {
  if (seat->player[0] == '\0')
    return NULL;
  for (size_t i = 0; i < rec->n_players; i++) {
    const srv_store_player *sp = &rec->players[i];
    if (strcmp(sp->id, seat->player) != 0)
      continue;
    srv_player *pl = NULL;
    if (srv_ident_adopt(p->ident, sp->id, sp->name, sp->token_hash, &pl) != 0)
      return NULL;
    return pl;
  }
  return NULL;
}

/* Replays g (borrowed) into *out; a bad row is logged and the moves from it on are dropped from
 * the store and from g (n_moves shortened). Returns 0 or a negative SRV_STORE_E* code. */
static int replay_valid(srv_persist *p, srv_store_game *g, bool apply_result, mc_game **out) {
  srv_store_bad_row bad;
  int rc = srv_store_replay(g, apply_result, out, &bad);
  if (rc != SRV_STORE_EBADROW || bad.ply < 0)
    return rc;
  srv_log_error("persist",
                "room %s game %" PRId64 ": stored move %zu (ply %d, seat %d, house %d) does not "
                "replay: %s; resuming from the %zu moves before it",
                g->room, g->id, bad.index, bad.ply, bad.seat, bad.house, bad.message, bad.index);
  if ((rc = srv_store_moves_truncate(p->store, g->id, (int)bad.index)) < 0)
    return rc;
  g->n_moves = bad.index;
  return srv_store_replay(g, false, out, NULL);
}

static int recover_room(srv_persist *p, srv_store_recovery *rec, const srv_store_room *r) {
  srv_room_restore rr;
  memset(&rr, 0, sizeof rr);
  srv_room_opts opts;
  if (settings_parse(r->settings, &opts) != 0) {
    srv_log_error("persist", "room %s: unreadable settings %s; not recovered", r->code,
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
      srv_log_error("persist", "room %s game %" PRId64 ": %s; not recovered", r->code, g->id,
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
    if (over && g->ended_ms == 0) {
      /* The last move ended the game but its result is missing: record it now. */
      mc_result res;
      mc_game_over(rr.game, &res);
      int score[2] = {res.score[0], res.score[1]};
      srv_store_game_finish(p->store, g->id, res.winner, res.reason, score, wall_ms(p));
    }
    rr.status = over ? SRV_FINISHED : SRV_PLAYING;
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
    srv_log_error("persist", "room %s: a seat of its game has no stored player; not recovered",
                  r->code);
    mc_game_free(rr.game);
    srv_store_game_free(owned);
    return 0;
  }
  rc = srv_rooms_restore(p->rooms, &rr);
  srv_store_game_free(owned);
  for (int s = 0; s < 2; s++) {
    if (rr.seats[s] != NULL)
      srv_ident_unref(p->ident, rr.seats[s]); /* The seat holds its own reference now. */
  }
  if (rc != 0)
    srv_log_error("persist", "room %s: not recovered: %s", r->code, srv_err_code(rc));
  if (rc == SRV_ENOMEM)
    return SRV_STORE_ENOMEM;
  return 0;
}

int srv_persist_recover(srv_persist *p) {
  srv_store_recovery *rec = NULL;
  int rc = srv_store_recover(p->store, &rec);
  if (rc < 0) {
    srv_log_error("persist", "cannot read the stored games: %s (%s)", srv_store_strerror(rc),
                  srv_store_last_error(p->store));
    return SRV_ESTORAGE;
  }
  size_t games = 0;
  for (size_t i = 0; i < rec->n_rooms && rc == 0; i++) {
    rc = recover_room(p, rec, &rec->rooms[i]);
    games += rec->rooms[i].game != 0;
  }
  size_t rooms = rec->n_rooms;
  srv_store_recovery_free(rec);
  if (rc < 0) {
    srv_log_error("persist", "recovery failed: %s", srv_store_strerror(rc));
    return rc == SRV_STORE_ENOMEM ? SRV_ENOMEM : SRV_ESTORAGE;
  }
  if ((rc = srv_store_commit(p->store)) < 0) {
    srv_log_error("persist", "cannot commit the recovery: %s (%s)", srv_store_strerror(rc),
                  srv_store_last_error(p->store));
    return SRV_ESTORAGE;
  }
  srv_log_info("persist", "recovered %zu rooms with %zu games from %s", rooms, games,
               srv_store_path(p->store));
  return 0;
}

/* ---- The archive routes --------------------------------------------------------------------- */

static int reply_error(int status, const char *code, const char *message, char **body,
                       const char **type) {
  json_t *j = json_pack("{s:s,s:s}", "error", code, "message", message);
  *body = j ? json_dumps(j, JSON_COMPACT) : NULL;
  json_decref(j);
  *type = "application/json";
  return status;
}

/* Parses a positive decimal id that fills [s, end). Returns it, or 0. */
static int64_t parse_id(const char *s, const char *end) {
  int64_t v = 0;
  if (s == end || end - s > 18 || *s == '0')
    return 0;
  for (; s < end; s++) {
    if (*s < '0' || *s > '9')
      return 0;
    v = v * 10 + (*s - '0');
  }
  return v;
}

/* Adds to the archive record j (borrowed) the position before the first move ("start") and, per
 * move, the position after it ("pits", "burnt") and its steps ("trace"), replayed through the
 * engine: the server is the rules authority. Returns 0 or SRV_ENOMEM. */
static int add_positions(json_t *j, const srv_store_game *g) {
  mc_game *game = mc_game_new(&g->rules);
  mc_trace *trace = malloc(sizeof *trace);
  json_t *moves = json_object_get(j, "moves");
  int rc = 0;
  if (game == NULL || trace == NULL || !json_is_array(moves)) {
    rc = SRV_ENOMEM;
    goto done;
  }
  srv_jsonw w = SRV_JSONW_INIT;
  for (size_t i = 0; i <= g->n_moves && rc == 0; i++) {
    if (i > 0 && mc_game_play(game, g->moves[i - 1].house, trace) != 0)
      break; /* srv_archive_game_json() already replayed it: cannot happen. */
    const mc_pos *pos = mc_game_pos(game);
    /* The pieces as a state writes them, said once in srv_jsonw.c. */
    srv_jsonw_reset(&w);
    srv_jsonw_lit(&w, "{\"pits\":");
    srv_jsonw_pits(&w, pos);
    srv_jsonw_lit(&w, ",\"burnt\":");
    srv_jsonw_burnt(&w, pos);
    if (i > 0) {
      srv_jsonw_lit(&w, ",\"trace\":");
      srv_jsonw_trace(&w, trace->steps, trace->len);
    }
    srv_jsonw_lit(&w, "}");
    json_t *pieces = w.failed ? NULL : json_loadb(w.buf, w.len, 0, NULL);
    json_t *target = i == 0 ? json_object() : json_array_get(moves, i - 1);
    bool ok = pieces != NULL && target != NULL && json_object_update(target, pieces) == 0;
    if (i == 0 && ok)
      ok = json_object_set_new(j, "start", target) == 0; /* Steals target, also on failure. */
    else if (i == 0)
      json_decref(target);
    if (!ok)
      rc = SRV_ENOMEM;
    json_decref(pieces);
  }
  srv_jsonw_free(&w);
done:
  mc_game_free(game);
  free(trace);
  return rc;
}

static int game_route(srv_persist *p, const char *s, char **body, const char **type) {
  size_t len = strlen(s);
  bool text = len > 4 && strcmp(s + len - 4, ".txt") == 0;
  int64_t id = parse_id(s, s + len - (text ? 4 : 0));
  if (id == 0)
    return reply_error(404, "not_found", "No such game.", body, type);
  srv_store_game *g = NULL;
  int rc = srv_store_game_get(p->store, id, &g);
  if (rc == SRV_STORE_ENOTFOUND || (rc == 0 && g->ended_ms == 0)) {
    srv_store_game_free(g);
    return reply_error(404, "not_found", "No finished game with that id.", body, type);
  }
  if (rc < 0) {
    store_fail(p, "cannot read game", s, rc);
    return reply_error(500, "storage_error", srv_store_strerror(rc), body, type);
  }
  int status = 200;
  srv_store_bad_row bad;
  if (text) {
    rc = srv_archive_game_text(g, body, &bad);
    *type = "text/plain; charset=utf-8";
  } else {
    json_t *j = srv_archive_game_json(g, &bad);
    rc = j == NULL ? SRV_STORE_EBADROW : add_positions(j, g);
    *body = j && rc == 0 ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    *type = "application/json";
  }
  if (rc != 0 && *body == NULL) {
    srv_log_error("persist", "game %" PRId64 ": cannot make its record", id);
    status = reply_error(500, "internal", "The record cannot be made.", body, type);
  }
  srv_store_game_free(g);
  return status;
}

static int player_route(srv_persist *p, const char *s, const char *limit_arg, char **body,
                        const char **type) {
  const char *slash = strchr(s, '/');
  if (slash == NULL || strcmp(slash, "/games") != 0 || slash == s ||
      slash - s >= SRV_STORE_ID_SIZE || strspn(s, "0123456789abcdef") != (size_t)(slash - s))
    return reply_error(404, "not_found", "No such route.", body, type);
  char id[SRV_STORE_ID_SIZE];
  memcpy(id, s, (size_t)(slash - s));
  id[slash - s] = '\0';
  long limit = 20;
  if (limit_arg != NULL) {
    char *end;
    errno = 0;
    limit = strtol(limit_arg, &end, 10);
    if (errno != 0 || end == limit_arg || *end != '\0' || limit < 1 || limit > 100)
      return reply_error(400, "bad_request", "limit must be an integer in 1..100.", body, type);
  }
  srv_store_game_list *list = NULL;
  int rc = srv_store_player_games(p->store, id, (int)limit, &list);
  if (rc < 0) {
    store_fail(p, "cannot read the games of player", id, rc);
    return reply_error(500, "storage_error", srv_store_strerror(rc), body, type);
  }
  json_t *j = srv_archive_player_games_json(id, list);
  srv_store_game_list_free(list);
  *body = j ? json_dumps(j, JSON_COMPACT) : NULL;
  json_decref(j);
  *type = "application/json";
  return 200;
}

int srv_persist_http(void *ud, const char *uri, const char *limit, char **body, const char **type) {
  srv_persist *p = ud;
  *body = NULL;
  /* Reads share the store's connection and would see the turn's uncommitted writes: commit them
   * first (a game never appears in the archive before it is durable). */
  srv_persist_turn(p);
  if (strncmp(uri, "/api/games/", 11) == 0)
    return game_route(p, uri + 11, body, type);
  if (strncmp(uri, "/api/players/", 13) == 0)
    return player_route(p, uri + 13, limit, body, type);
  return reply_error(404, "not_found", "No such route.", body, type);
}
