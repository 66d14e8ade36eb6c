/* Persistence (srv_persist.c), recovery (srv_recover.c) and the end of a loop turn (srv_turn.c)
 * with the real rooms on a fake clock and a real SQLite store in a temporary directory: moves
 * reach the store, a lost batch takes the room back and answers the mover with storage_error,
 * and recovery rebuilds playing and finished rooms with their seats, positions and clocks. */
#include "harness.h"

#include <sqlite3.h>
#include <unistd.h>

#include "srv_gameid.h"
#include "srv_persist.h"
#include "srv_recover.h"
#include "srv_store.h"
#include "srv_turn.h"
#include "store_util.h"

static char dir[256];

/* The network's part in the end of a turn, faked: cuts and releases are counted (the recording
 * clients get every frame when it is queued, that is, after the turn's commit). */
typedef struct fake_net {
  int releases;
  uint64_t stamp;    /* The stamp of the frames queued now. */
  uint64_t released; /* The last cut released. */
} fake_net;

static uint64_t net_cut(void *ud) {
  return ((fake_net *)ud)->stamp++;
}

static uint64_t net_restamp(void *ud, uint64_t cut) {
  fake_net *n = ud;
  uint64_t was = n->stamp;
  n->stamp = cut;
  return was;
}

static void net_release(void *ud, uint64_t cut) {
  fake_net *n = ud;
  n->releases++;
  n->released = cut;
}

typedef struct env {
  world w;
  srv_store *store;
  srv_persist *persist;
  fake_net net;
  srv_turn turn;
} env;

static void env_open(env *e) {
  world_init(&e->w, NULL);
  char err[SRV_STORE_ERR_SIZE];
  ASSERT_EQ(srv_store_open(dir, NULL, &e->store, err), 0);
  e->persist = srv_persist_new(e->store, e->w.ident, &e->w.time.base);
  ASSERT(e->persist != NULL);
  srv_recorder recorder = {srv_persist_record, e->persist};
  srv_rooms_set_recorder(e->w.rooms, &recorder);
  memset(&e->net, 0, sizeof e->net);
  e->turn = (srv_turn){.lobby = e->w.lobby,
                       .persist = e->persist,
                       .rooms = e->w.rooms,
                       .net = {net_cut, net_restamp, net_release, &e->net},
                       .myrooms = e->w.myrooms};
  /* Every command and timer of the test ends its turn as the server's loop does. */
  e->w.time.turn_end = srv_turn_end;
  e->w.time.turn_end_arg = &e->turn;
  ASSERT_EQ(srv_recover(e->store, e->w.ident, e->w.rooms, &e->w.time.base), 0);
}

/* Ends the loop turn: the lobby, the commit, and the lost writes taken back. */
static void end_turn(env *e) {
  srv_turn_end(&e->turn);
}

static void env_close(env *e) {
  end_turn(e);
  world_close_rooms(&e->w);
  srv_persist_free(e->persist);
  srv_ident_free(e->w.ident);
  srv_store_close(e->store);
}

static int64_t stored_moves(env *e, int64_t game) {
  srv_store_game *g = NULL;
  if (srv_store_game_get(e->store, game, &g) != 0)
    return -1;
  int64_t n = (int64_t)g->n_moves;
  srv_store_game_free(g);
  return n;
}

static char room[8];

/* Ana (South) and Bob in a clocked Kalah room, a move each; Bob's move is lost with its batch and
 * taken back, then played again. Leaves the store in dir with the room at ply 2. */
static void lost_batch(void) {
  env e;
  env_open(&e);
  tclient a, b;
  connect_as(&e.w, &a, "Ana");
  connect_as(&e.w, &b, "Bob");
  srv_persist_player(e.persist, a.c.player);
  srv_persist_player(e.persist, b.c.player);
  ASSERT_EQ(runf(&e.w, &a,
                 "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\","
                 "\"clock\":{\"initial_ms\":60000,\"increment_ms\":1000}}"),
            0);
  snprintf(room, sizeof room, "%s", field_s(&a, "joined", "room"));
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
  end_turn(&e);
  fake_advance(&e.w.time, 3000);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  end_turn(&e);
  ASSERT_EQ(stored_moves(&e, 1), 1);

  /* North's move joins a batch that is lost (rolled back, as a failed commit would be). */
  fake_advance(&e.w.time, 2000);
  long long north_before = field_i(&b, "state", "ply");
  ASSERT_EQ(north_before, 1);
  /* The move's turn is ended by hand: its batch is rolled back before the commit. */
  e.w.time.turn_end = NULL;
  ASSERT_EQ(
      runf(&e.w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":2,\"ply\":1,\"id\":7}", room),
      0);
  ASSERT_EQ(field_i(&b, "state", "ply"), 1); /* Nothing is encoded before the commit. */
  srv_store_rollback(e.store);
  ASSERT_EQ(srv_rooms_store_lost(e.w.rooms, room, 1, 1, false, SRV_ESTORAGE), 0);
  srv_rooms_flush(e.w.rooms, srv_rooms_seal(e.w.rooms));
  e.w.time.turn_end = srv_turn_end;
  ASSERT_STR_EQ(field_s(&b, "error", "code"), "storage_error");
  ASSERT_EQ(field_i(&b, "error", "id"), 7);
  ASSERT_EQ(count_of(&a, "error"), 0);
  ASSERT_EQ(field_i(&b, "state", "ply"), 1);
  ASSERT_STR_EQ(field_s(&b, "state", "turn"), "north");
  /* North has not moved yet: no clock runs, its first move has a deadline of its own. */
  ASSERT(json_is_null(json_object_get(json_object_get(last_of(&b, "state"), "clock"), "running")));
  ASSERT_STR_EQ(path_s(&b, "state", "first_move", "seat"), "north");
  ASSERT_EQ(field_i(&a, "state", "ply"), 1);
  end_turn(&e); /* The room is recorded again. */
  ASSERT_EQ(stored_moves(&e, 1), 1);

  /* The same move again is accepted and stored. */
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":2,\"ply\":1}", room), 0);
  end_turn(&e);
  ASSERT_EQ(stored_moves(&e, 1), 2);
  ASSERT_EQ(srv_rooms_store_lost(e.w.rooms, "ZZZZZZ", 1, 0, false, SRV_ESTORAGE), SRV_ENOTFOUND);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);
}

TEST_IMPL(lost_batch) {
  tmp_dir(dir, sizeof dir);
  lost_batch();
  rm_tree(dir);
  return 0;
}

TEST_IMPL(recovery) {
  tmp_dir(dir, sizeof dir);
  lost_batch();
  env e;
  env_open(&e);
  srv_room *r = srv_rooms_find(e.w.rooms, room);
  ASSERT_NOT_NULL(r);
  ASSERT_EQ(srv_room_status(r), SRV_PLAYING);
  ASSERT_EQ(mc_game_ply(srv_room_game(r)), 2);
  ASSERT_STR_EQ(srv_room_seat(r, 0)->name, "Ana");
  ASSERT_STR_EQ(srv_room_seat(r, 1)->name, "Bob");
  /* Recovered players count the room they play in (--rooms-per-player). */
  ASSERT_EQ(srv_room_seat(r, 0)->active_rooms, 1);
  ASSERT_EQ(srv_room_seat(r, 1)->active_rooms, 1);
  /* The players come back disconnected; Ana reconnects with her seat. */
  tclient a, b;
  reconnect_as(&e.w, &a, (srv_player *)srv_room_seat(r, 0));
  ASSERT_STR_EQ(field_s(&a, "joined", "room"), room);
  ASSERT_EQ(field_i(&a, "state", "ply"), 2);
  ASSERT_STR_EQ(path_s(&a, "state", "last", "seat"), "north");
  /* Both clocks: 60 s, each side's first move free (no clock ran, nothing added; North thought
   * 2 s). The downtime of the restart is not charged. */
  json_t *clock = json_object_get(last_of(&a, "state"), "clock");
  ASSERT_EQ(json_integer_value(json_object_get(clock, "south_ms")), 60000);
  ASSERT_EQ(json_integer_value(json_object_get(clock, "north_ms")), 60000);
  reconnect_as(&e.w, &b, (srv_player *)srv_room_seat(r, 1));
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"resign\",\"room\":\"%s\"}", room), 0);
  end_turn(&e);
  ASSERT_EQ(srv_gameid_parse(field_s(&a, "state", "game_id"), SRV_GAMEID_LEN), 1);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);

  /* A finished room comes back finished, with its result and archive id. */
  env_open(&e);
  r = srv_rooms_find(e.w.rooms, room);
  ASSERT_NOT_NULL(r);
  ASSERT_EQ(srv_room_status(r), SRV_FINISHED);
  mc_result res;
  ASSERT(mc_game_over(srv_room_game(r), &res));
  ASSERT_EQ(res.reason, MC_REASON_RESIGNATION);
  ASSERT_EQ(res.winner, MC_WIN_SOUTH);
  /* Seated in a finished room only: nothing counts. */
  ASSERT_EQ(srv_room_seat(r, 0)->active_rooms, 0);
  ASSERT_EQ(srv_room_seat(r, 1)->active_rooms, 0);
  reconnect_as(&e.w, &a, (srv_player *)srv_room_seat(r, 0));
  ASSERT_EQ(srv_gameid_parse(field_s(&a, "state", "game_id"), SRV_GAMEID_LEN), 1);
  ASSERT_STR_EQ(path_s(&a, "state", "result", "reason"), "resignation");
  disconnect(&e.w, &a);
  /* Its expiry timer runs again: the room closes and is forgotten. */
  fake_advance(&e.w.time, 600001);
  ASSERT(srv_rooms_find(e.w.rooms, room) == NULL);
  env_close(&e);
  env_open(&e);
  ASSERT(srv_rooms_find(e.w.rooms, room) == NULL);
  env_close(&e);
  rm_tree(dir);
  return 0;
}

/* A stored move the engine refuses is not trusted: the game resumes from the moves before it. */
TEST_IMPL(bad_row) {
  tmp_dir(dir, sizeof dir);
  env e;
  env_open(&e);
  tclient a, b;
  connect_as(&e.w, &a, "Ana");
  connect_as(&e.w, &b, "Bob");
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"}"), 0);
  snprintf(room, sizeof room, "%s", field_s(&a, "joined", "room"));
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":1}", room), 0);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":2,\"ply\":2}", room), 0);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);

  /* North's move becomes an impossible house. */
  char path[512];
  snprintf(path, sizeof path, "%s/mancala.db", dir);
  sqlite3 *db = NULL;
  ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "UPDATE moves SET house = 8 WHERE ply = 1 AND "
                         "game = (SELECT max(game) FROM moves)",
                         NULL, NULL, NULL),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_changes(db), 1);
  sqlite3_close(db);

  env_open(&e);
  srv_room *r = srv_rooms_find(e.w.rooms, room);
  ASSERT_NOT_NULL(r);
  ASSERT_EQ(srv_room_status(r), SRV_PLAYING);
  ASSERT_EQ(mc_game_ply(srv_room_game(r)), 1);
  ASSERT_EQ(mc_game_pos(srv_room_game(r))->turn, MC_NORTH);
  env_close(&e);
  /* The bad row and the move after it are gone from the store too. */
  env_open(&e);
  r = srv_rooms_find(e.w.rooms, room);
  ASSERT(r != NULL && mc_game_ply(srv_room_game(r)) == 1);
  env_close(&e);
  rm_tree(dir);
  return 0;
}

/* The end of a turn whose batch the disk lost: the move that ended the game was in it, so the
 * room takes it back, the state of that move is never sent (nothing is encoded before its commit),
 * the mover gets storage_error answering its move, and the result refused with it is not written
 * later; once the disk takes writes again the same move ends the game for good. */
TEST_IMPL(turn_takes_back_a_lost_batch) {
  tmp_dir(dir, sizeof dir);
  env e;
  env_open(&e);
  tclient a, b;
  connect_as(&e.w, &a, "Ana");
  connect_as(&e.w, &b, "Bob");
  srv_persist_player(e.persist, a.c.player);
  srv_persist_player(e.persist, b.c.player);
  /* Kalah 1x1: South's only seed goes to the store and South has nothing left: the game ends,
   * 1 seed each. */
  ASSERT_EQ(runf(&e.w, &a,
                 "{\"type\":\"create\",\"game\":\"kalah\",\"houses\":1,\"seeds\":1,"
                 "\"seat\":\"south\"}"),
            0);
  snprintf(room, sizeof room, "%s", field_s(&a, "joined", "room"));
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
  end_turn(&e);
  ASSERT(e.net.releases > 0);
  tclient_clear(&a);
  tclient_clear(&b);

  /* Every result update fails and rolls the turn's transaction back, as an I/O error would. */
  raw_exec(dir, "CREATE TRIGGER refuse_result BEFORE UPDATE OF ended_ms ON games "
                "BEGIN SELECT RAISE(ROLLBACK, 'refused by the test'); END;");
  ASSERT_EQ(
      runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0,\"id\":9}", room),
      0);
  /* The turn ended with the command: the commit failed before anything was encoded, so nobody
   * ever saw the game finished, and the move's request is answered with the error alone. */
  ASSERT_EQ(count_of(&a, "state"), 1);
  ASSERT_EQ(count_of(&b, "state"), 1);
  ASSERT_EQ(field_i(&a, "state", "id"), -1);
  ASSERT_STR_EQ(field_s(&a, "error", "code"), "storage_error");
  ASSERT_EQ(field_i(&a, "error", "id"), 9);
  ASSERT_EQ(count_of(&b, "error"), 0);
  ASSERT_STR_EQ(field_s(&b, "state", "status"), "playing");
  ASSERT_EQ(field_i(&b, "state", "ply"), 0);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM moves"), 0);

  /* A second later the refused result is not written after all: the game is not over. (The room
   * recorded itself again after the take-back: that batch first, then the disk is repaired.) */
  end_turn(&e);
  raw_exec(dir, "DROP TRIGGER refuse_result;");
  fake_advance(&e.w.time, 1500);
  end_turn(&e);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM games WHERE ended_ms IS NOT NULL"), 0);

  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  end_turn(&e);
  ASSERT_STR_EQ(field_s(&b, "state", "status"), "finished");
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM moves"), 1);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM games WHERE reason = 'no_seeds'"), 1);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);
  rm_tree(dir);
  return 0;
}

/* A committer whose results arrive later, as a network database's do: the COMMIT is sent at once
 * (what is written afterwards forms the next batch), its result is given to the loop when the
 * test says so. */
typedef struct late_commit {
  int pending; /* Results not given yet (at most 1: one batch is in flight at a time). */
  int rc;
  srv_commit_done done;
  void *arg;
  int handed; /* Batches handed over. */
} late_commit;

static void late_commit_fn(void *ud, srv_store *store, srv_commit_done done, void *arg) {
  late_commit *l = ud;
  ASSERT_EQ(l->pending, 0);
  l->rc = srv_store_commit(store);
  l->done = done;
  l->arg = arg;
  l->pending = 1;
  l->handed++;
}

/* The result of the batch in flight arrives. */
static void late_commit_arrives(late_commit *l) {
  ASSERT_EQ(l->pending, 1);
  l->pending = 0;
  l->done(l->arg, l->rc);
}

/* While a batch is in flight the loop keeps serving: commands are answered, their writes form the
 * next batch, and nothing they changed is sent before that batch's own result; each batch's
 * states go out when its result arrives, in order. */
TEST_IMPL(batch_in_flight) {
  tmp_dir(dir, sizeof dir);
  env e;
  env_open(&e);
  tclient a, b;
  connect_as(&e.w, &a, "Ana");
  connect_as(&e.w, &b, "Bob");
  srv_persist_player(e.persist, a.c.player);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"}"), 0);
  snprintf(room, sizeof room, "%s", field_s(&a, "joined", "room"));
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(field_i(&b, "state", "ply"), 0);
  tclient_clear(&a);
  tclient_clear(&b);

  late_commit late = {0};
  srv_committer committer = {late_commit_fn, &late};
  srv_persist_set_committer(e.persist, &committer);
  /* Ana's move: its turn's batch is handed over; nobody sees the move before its result. */
  ASSERT_EQ(
      runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0,\"id\":1}", room),
      0);
  ASSERT_EQ(late.handed, 1);
  ASSERT(srv_persist_busy(e.persist));
  ASSERT_EQ(count_of(&a, "state"), 0);
  ASSERT_EQ(count_of(&b, "state"), 0);
  /* The network's frames are cut with the batch; nothing is released while it is in flight. */
  const int releases = e.net.releases;
  const uint64_t cut1 = e.turn.cut;
  ASSERT(e.net.stamp > cut1);
  /* Bob says something meanwhile (his turn ends with the batch still in flight: the line joins
   * the next batch), and a request that changes nothing is answered at once. */
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"chat\",\"room\":\"%s\",\"text\":\"hi\",\"id\":2}", room),
            0);
  ASSERT_EQ(late.handed, 1);
  ASSERT_EQ(
      runf(&e.w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0,\"id\":3}", room),
      SRV_ESTALE);
  ASSERT_EQ(count_of(&b, "chat"), 0);
  /* Those turns' frames (the refused move's error too) wait for the next batch: no release. */
  ASSERT_EQ(e.net.releases, releases);
  /* The first result arrives: Ana's move goes out (her copy answers her request), not the line. */
  late_commit_arrives(&late);
  ASSERT_EQ(e.net.releases, releases + 1);
  ASSERT_EQ(e.net.released, cut1); /* The first batch's frames, not those of the turns after. */
  ASSERT(e.net.stamp > cut1);      /* Frames queued from now on are the next batch's again. */
  ASSERT_EQ(count_of(&a, "state"), 1);
  ASSERT_EQ(field_i(&a, "state", "ply"), 1);
  ASSERT_EQ(field_i(&a, "state", "id"), 1);
  ASSERT_EQ(count_of(&b, "state"), 1);
  ASSERT_EQ(field_i(&b, "state", "ply"), 1);
  ASSERT_EQ(count_of(&b, "chat"), 0);
  ASSERT(!srv_persist_busy(e.persist));
  /* The next turn's end hands the second batch over; its result brings the line. */
  world_turn(&e.w);
  ASSERT_EQ(late.handed, 2);
  ASSERT_EQ(count_of(&a, "chat"), 0);
  const uint64_t cut2 = e.turn.cut;
  ASSERT(cut2 > cut1);
  late_commit_arrives(&late);
  ASSERT_EQ(e.net.released, cut2);
  ASSERT_STR_EQ(field_s(&a, "chat", "text"), "hi");
  ASSERT_EQ(field_i(&b, "chat", "id"), 2);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM moves"), 1);
  srv_persist_set_committer(e.persist, NULL);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);
  rm_tree(dir);
  return 0;
}

/* late_commit_fn, but the batch is refused at its commit (rolled back), as a COMMIT whose answer
 * is an error. */
static void late_refuse_fn(void *ud, srv_store *store, srv_commit_done done, void *arg) {
  late_commit *l = ud;
  ASSERT_EQ(l->pending, 0);
  srv_store_rollback(store);
  l->rc = SRV_STORE_EIO;
  l->done = done;
  l->arg = arg;
  l->pending = 1;
  l->handed++;
}

/* How many times each player's row was written (inserted or upserted), counted by the database. */
static void count_player_writes(void) {
  raw_exec(dir, "CREATE TABLE puts (id TEXT NOT NULL);"
                "CREATE TRIGGER puts_insert AFTER INSERT ON players "
                "BEGIN INSERT INTO puts VALUES (NEW.id); END;"
                "CREATE TRIGGER puts_update AFTER UPDATE ON players "
                "BEGIN INSERT INTO puts VALUES (NEW.id); END;");
}

static long long player_writes(const tclient *t) {
  char sql[128];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM puts WHERE id = '%s'", t->c.player->id);
  return raw_int(dir, sql);
}

static long long player_rows(const tclient *t) {
  char sql[160];
  snprintf(sql, sizeof sql,
           "SELECT (SELECT count(*) FROM players WHERE id = '%s') + "
           "(SELECT count(*) FROM sessions WHERE player = '%s')",
           t->c.player->id, t->c.player->id);
  return raw_int(dir, sql);
}

/* A seated player's row and session are written once, not again at each seating, once they are
 * durable (issue 22); a player whose write is in a batch not known durable (in flight, then lost)
 * is written again by the next batch that seats it, and the guests' expiry, which may delete a
 * stored player's row, makes every player be written again. */
TEST_IMPL(seated_players_stored_once) {
  tmp_dir(dir, sizeof dir);
  env e;
  env_open(&e);
  count_player_writes();
  tclient a, b, c;
  connect_as(&e.w, &a, "Ana");
  connect_as(&e.w, &b, "Bob");
  connect_as(&e.w, &c, "Cy");
  /* Ana's room: Ana is written with it; Bob's join starts the game, which records both seats:
   * Bob is written, Ana (durable already) is not. */
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"}"), 0);
  snprintf(room, sizeof room, "%s", field_s(&a, "joined", "room"));
  end_turn(&e);
  ASSERT_EQ(player_writes(&a), 1);
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
  end_turn(&e);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM games"), 1);
  ASSERT_EQ(player_writes(&a), 1);
  ASSERT_EQ(player_writes(&b), 1);
  ASSERT_EQ(player_rows(&a), 2); /* Her row and her session. */
  ASSERT_EQ(player_rows(&b), 2);

  /* Cy's first room joins a batch that is handed over and later refused; his second room, made
   * while that batch is in flight, writes him again: the batch that carries his room must carry
   * him. */
  late_commit late = {0};
  srv_committer committer = {late_refuse_fn, &late};
  srv_persist_set_committer(e.persist, &committer);
  ASSERT_EQ(runf(&e.w, &c, "{\"type\":\"create\",\"game\":\"kalah\"}"), 0);
  ASSERT_EQ(late.handed, 1);
  committer.commit = late_commit_fn; /* The next batch commits. */
  srv_persist_set_committer(e.persist, &committer);
  ASSERT_EQ(runf(&e.w, &c, "{\"type\":\"create\",\"game\":\"oware\"}"), 0);
  late_commit_arrives(&late); /* The first batch is lost: no Cy, no room. */
  ASSERT_EQ(player_rows(&c), 0);
  world_turn(&e.w); /* The second batch */
  ASSERT_EQ(late.handed, 2);
  late_commit_arrives(&late); /* committed. */
  ASSERT_EQ(player_rows(&c), 2);
  /* His second room is stored (the first one's loss is not reported to the rooms by this fake:
   * the batch after it wrote first). A create without a seat takes one at random: either name. */
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM rooms WHERE (south_name = 'Cy' OR north_name = "
                         "'Cy') AND settings LIKE '%oware%'"),
            1);
  srv_persist_set_committer(e.persist, NULL);

  /* Dee sits down and leaves: her room closes, her row stays (a guest who never played). Eight
   * days later the guests' expiry deletes it; she sits down again: written again. */
  tclient d;
  connect_as(&e.w, &d, "Dee");
  ASSERT_EQ(runf(&e.w, &d, "{\"type\":\"create\",\"game\":\"kalah\"}"), 0);
  char dee_room[8];
  snprintf(dee_room, sizeof dee_room, "%s", field_s(&d, "joined", "room"));
  end_turn(&e);
  ASSERT_EQ(player_rows(&d), 2);
  ASSERT_EQ(runf(&e.w, &d, "{\"type\":\"leave\",\"room\":\"%s\"}", dee_room), 0);
  end_turn(&e);
  char sql[96];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM rooms WHERE code = '%s'", dee_room);
  ASSERT_EQ(raw_int(dir, sql), 0);
  fake_advance(&e.w.time, 8 * 86400000ull);
  end_turn(&e); /* The expiry joins the batch after this commit, */
  end_turn(&e); /* which commits it. */
  ASSERT_EQ(player_rows(&d), 0);
  ASSERT_EQ(runf(&e.w, &d, "{\"type\":\"create\",\"game\":\"kalah\"}"), 0);
  end_turn(&e);
  ASSERT_EQ(player_rows(&d), 2);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  disconnect(&e.w, &c);
  disconnect(&e.w, &d);
  env_close(&e);
  rm_tree(dir);
  return 0;
}

/* A Congkak match stored under the old burn rule (what migration 2 -> 3 of the store marks with
 * burn=match) is recovered and goes on under that rule, and says so in its state; its rematch is
 * played under the new rule. The moves are the 7x7 match (issue 9, tests/engine/cli.sh):
 * after move 29 South's houses 1-4 are burnt (old rule) and North moves first in round 3. */
TEST_IMPL(old_burn_rule) {
  tmp_dir(dir, sizeof dir);
  static const int moves[] = {6, 1, 7, 6, 5, 6, 2, 7, 7, 5, 1, 3, 5, 6, 6,
                              7, 6, 5, 5, 2, 7, 6, 7, 2, 6, 5, 6, 6, 2};
  const int n = (int)(sizeof moves / sizeof moves[0]);
  char code[8];
  env e;
  env_open(&e);
  tclient a;
  connect_as(&e.w, &a, "Ana");
  srv_persist_player(e.persist, a.c.player);
  ASSERT_EQ(runf(&e.w, &a,
                 "{\"type\":\"create\",\"game\":\"congkak\",\"opponent\":\"local\","
                 "\"options\":{\"rounds\":\"match\"}}"),
            0);
  snprintf(code, sizeof code, "%s", field_s(&a, "joined", "room"));
  /* The old rule is not a player's option: create refuses it. */
  const char *old_rule = "{\"type\":\"create\",\"game\":\"congkak\",\"options\":{\"rounds\":"
                         "\"match\",\"burn\":\"match\"}}";
  srv_cmd cmd;
  srv_proto_error perr;
  memset(&perr, 0, sizeof perr);
  ASSERT_EQ(srv_proto_decode(old_rule, strlen(old_rule), &cmd, &perr), SRV_EBADREQ);
  ASSERT(perr.field != NULL && strcmp(perr.field, "options.burn") == 0);
  /* The protocol's rules: no burn option in a new game's state. */
  json_t *opts = json_object_get(last_of(&a, "state"), "options");
  ASSERT(json_object_get(opts, "burn") == NULL);
  for (int i = 0; i < n; i++)
    ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":%d,\"ply\":%d}", code,
                   moves[i], i),
              0);
  /* Under the new rule South fills all seven houses for round 3. */
  json_t *burnt = json_object_get(last_of(&a, "state"), "burnt");
  ASSERT_EQ(json_array_size(burnt), 2);
  ASSERT_EQ(field_i(&a, "state", "ply"), n);
  end_turn(&e);
  disconnect(&e.w, &a);
  env_close(&e);

  /* The game becomes one stored before schema 3. */
  char path[512];
  snprintf(path, sizeof path, "%s/mancala.db", dir);
  sqlite3 *db = NULL;
  ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "UPDATE games SET options = 'rounds=match burn=match' "
                         "WHERE id = (SELECT game FROM rooms WHERE settings LIKE '%congkak%')",
                         NULL, NULL, NULL),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_changes(db), 1);
  sqlite3_close(db);

  env_open(&e);
  srv_room *r = srv_rooms_find(e.w.rooms, code);
  ASSERT_NOT_NULL(r);
  {
    ASSERT_EQ(srv_room_status(r), SRV_PLAYING);
    ASSERT_EQ(mc_game_rules(srv_room_game(r))->burn, MC_BURN_MATCH);
    reconnect_as(&e.w, &a, (srv_player *)srv_room_seat(r, 0));
    json_t *st = last_of(&a, "state");
    ASSERT_EQ(field_i(&a, "state", "ply"), n);
    ASSERT_STR_EQ(json_string_value(json_object_get(json_object_get(st, "options"), "burn")),
                  "match");
    ASSERT_STR_EQ(json_string_value(json_object_get(json_object_get(st, "options"), "rounds")),
                  "match");
    ASSERT_EQ(field_i(&a, "state", "round"), 3);
    /* South houses 1-4 (pits 0-3) and North houses 1, 2 (pits 8, 9) are burnt; 39 idle seeds. */
    burnt = json_object_get(st, "burnt");
    ASSERT_EQ(json_array_size(burnt), 6);
    ASSERT_EQ(json_integer_value(json_array_get(burnt, 3)), 3);
    ASSERT_EQ(json_integer_value(json_array_get(json_object_get(st, "pits"), 7)), 39);
    /* The game ends (resignation) and the rematch is a new game under the new rule. */
    ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", code), 0);
    ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", code), 0);
    ASSERT_EQ(field_i(&a, "state", "ply"), 0);
    ASSERT_STR_EQ(field_s(&a, "state", "status"), "playing");
    ASSERT(json_object_get(json_object_get(last_of(&a, "state"), "options"), "burn") == NULL);
    ASSERT_EQ(mc_game_rules(srv_room_game(r))->burn, MC_BURN_ROUND);
    end_turn(&e);
    disconnect(&e.w, &a);
  }
  env_close(&e);
  rm_tree(dir);
  return 0;
}

/* Security probe, finding 8: anonymous hellos grew the database without bound. A new player is
 * stored when it first sits down (its room's record), not at hello; a hello with a known token
 * and a name renames it; guests that never played and sit nowhere are forgotten after
 * SRV_PERSIST_GUEST_DAYS (7), checked at the first commit and then once a day. */
TEST_IMPL(guests_stored_when_seated) {
  tmp_dir(dir, sizeof dir);
  env e;
  env_open(&e);
  e.w.dispatch.store = (srv_dispatch_store){srv_persist_restore, srv_persist_player, e.persist};
  /* Old rows, by the fake wall clock (1700000000000 + 1000000 ms now): two guests 8 days old, one
   * of them seated in an open room; a player 30 days old who played a game; a guest of 6 days. */
  long long now = 1700000000000LL + 1000000, day = 86400000LL;
  char sql[2048];
  snprintf(
      sql, sizeof sql,
      "INSERT INTO players (id, name, created_ms) VALUES "
      "('00000000000000a1', 'Old', %lld),"
      "('00000000000000a2', 'Seated', %lld),"
      "('00000000000000a3', 'Player', %lld),"
      "('00000000000000a4', 'Young', %lld);"
      "INSERT INTO sessions (token_hash, player, created_ms) "
      "  SELECT randomblob(32), id, created_ms FROM players;"
      "INSERT INTO rooms (code, settings, south, south_name, south_computer, north_name, "
      "north_computer, status) VALUES ('QQQQQQ', '{}', '00000000000000a2', 'Seated', 0, '', 0, "
      "'waiting');"
      "INSERT INTO games (room, game_no, game, houses, seeds, options, south, south_name, "
      "south_computer, north, north_name, north_computer, started_ms) VALUES ('RRRRRR', 1, "
      "'kalah', 6, 4, '', '00000000000000a3', 'Player', 0, NULL, 'X', 0, %lld);",
      now - 8 * day, now - 8 * day, now - 30 * day, now - 6 * day, now - 30 * day);
  raw_exec(dir, sql);
  srv_store_close(e.store); /* Reopen: the rows above are in the file now. */
  char err[SRV_STORE_ERR_SIZE];
  ASSERT_EQ(srv_store_open(dir, NULL, &e.store, err), 0);
  srv_persist_free(e.persist);
  e.persist = srv_persist_new(e.store, e.w.ident, &e.w.time.base);
  e.turn.persist = e.persist;
  e.w.dispatch.store.ud = e.persist;
  srv_recorder recorder = {srv_persist_record, e.persist};
  srv_rooms_set_recorder(e.w.rooms, &recorder);

  tclient a, b, c;
  memset(&a, 0, sizeof a);
  srv_client_init(&a.c, &a);
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"hello\",\"name\":\"Ana\"}"), 0);
  end_turn(&e); /* The first commit: the old guest is forgotten, */
  end_turn(&e); /* with the next batch. */
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM players WHERE name = 'Ana'"), 0);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM players WHERE id = '00000000000000a1'"), 0);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM sessions WHERE player = '00000000000000a1'"), 0);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM players WHERE id IN ('00000000000000a2', "
                         "'00000000000000a3', '00000000000000a4')"),
            3);
  /* Ana sits down: stored. */
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"create\",\"game\":\"kalah\"}"), 0);
  end_turn(&e);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM players WHERE name = 'Ana'"), 1);
  /* Her token and a new name, on another connection: renamed. */
  memset(&b, 0, sizeof b);
  srv_client_init(&b.c, &b);
  char hello[200];
  snprintf(hello, sizeof hello, "{\"type\":\"hello\",\"name\":\"Ana B\",\"token\":\"%s\"}",
           field_s(&a, "welcome", "token"));
  ASSERT_EQ(run(&e.w, &b, hello), 0);
  end_turn(&e);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM players WHERE name = 'Ana B'"), 1);
  /* A hundred hellos that never sit down store nothing. */
  long long rows = raw_int(dir, "SELECT count(*) FROM players");
  for (int i = 0; i < 100; i++) {
    memset(&c, 0, sizeof c);
    srv_client_init(&c.c, &c);
    ASSERT_EQ(run(&e.w, &c, "{\"type\":\"hello\"}"), 0);
    disconnect(&e.w, &c);
    end_turn(&e);
  }
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM players"), rows);
  /* A day later the young guest is 7 days old, not yet older: kept; a day after that, gone. */
  fake_advance(&e.w.time, (uint64_t)day);
  end_turn(&e);
  end_turn(&e);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM players WHERE id = '00000000000000a4'"), 1);
  fake_advance(&e.w.time, (uint64_t)day);
  end_turn(&e);
  end_turn(&e);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM players WHERE id = '00000000000000a4'"), 0);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM players WHERE id IN ('00000000000000a2', "
                         "'00000000000000a3')"),
            2);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);
  rm_tree(dir);
  return 0;
}

/* A game aborted before a restart stays aborted after it: its room comes back finished with the
 * aborted result (no winner, no archive id), the stored game is marked aborted, and a rematch
 * follows as after any finished game. */
TEST_IMPL(aborted_game_recovered) {
  tmp_dir(dir, sizeof dir);
  env e;
  env_open(&e);
  tclient a, b;
  connect_as(&e.w, &a, "Ana");
  connect_as(&e.w, &b, "Bob");
  ASSERT_EQ(runf(&e.w, &a,
                 "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\","
                 "\"clock\":{\"initial_ms\":60000}}"),
            0);
  snprintf(room, sizeof room, "%s", field_s(&a, "joined", "room"));
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", room), 0);
  /* North never moves: aborted after 30 s, committed at the end of the timer's turn. */
  fake_advance(&e.w.time, 30000);
  ASSERT_STR_EQ(path_s(&a, "state", "result", "reason"), "aborted");
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM games WHERE reason = 'aborted' AND result IS NULL "
                         "AND ended_ms IS NOT NULL"),
            1);
  srv_store_game_list *list = NULL;
  ASSERT_EQ(srv_store_player_games(e.store, a.c.player->id, 20, &list), 0);
  ASSERT_EQ(list->n, 0); /* Listed nowhere. */
  srv_store_game_list_free(list);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);

  env_open(&e);
  srv_room *r = srv_rooms_find(e.w.rooms, room);
  ASSERT_NOT_NULL(r);
  ASSERT_EQ(srv_room_status(r), SRV_FINISHED);
  ASSERT(srv_room_aborted(r));
  ASSERT(!mc_game_over(srv_room_game(r), NULL));
  ASSERT_EQ(mc_game_ply(srv_room_game(r)), 1);
  ASSERT_EQ(srv_room_seat(r, 0)->active_rooms, 0);
  reconnect_as(&e.w, &a, (srv_player *)srv_room_seat(r, 0));
  reconnect_as(&e.w, &b, (srv_player *)srv_room_seat(r, 1));
  ASSERT_STR_EQ(field_s(&a, "state", "status"), "finished");
  ASSERT_STR_EQ(path_s(&a, "state", "result", "reason"), "aborted");
  ASSERT(json_is_null(json_object_get(json_object_get(last_of(&a, "state"), "result"), "winner")));
  ASSERT(json_is_null(json_object_get(last_of(&a, "state"), "game_id")));
  /* A rematch: Bob South, a new game (id 2) with its own deadline. */
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), 0);
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"rematch\",\"room\":\"%s\"}", room), 0);
  ASSERT_STR_EQ(field_s(&a, "state", "status"), "playing");
  ASSERT_EQ(field_i(&a, "state", "game_no"), 2);
  ASSERT(!srv_room_aborted(r));
  ASSERT_STR_EQ(path_s(&a, "state", "first_move", "seat"), "south");
  end_turn(&e);
  ASSERT_EQ(raw_int(dir, "SELECT count(*) FROM games"), 2);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);
  rm_tree(dir);
  return 0;
}
