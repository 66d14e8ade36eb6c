/* The computer's fair shares (srv_computer.c over the search pool, srv_search_pool.c), with a
 * worker the test runs by hand and the fake clock: games take turns (one search a game at most,
 * in the order they asked), levels 1-2 are answered on the loop and 3-4 in the fast lane while a
 * deep search runs, a long deep lane cuts budgets (also of the search under way), a resignation
 * while the search waits or runs drops it, and the caps of games per person and per address.
 *
 * The searches are real (the engine's), on short budgets; nothing here measures time.
 */
#include <string.h>

#include "harness.h"
#include "srv_computer.h"
#include "srv_peer.h"
#include "srv_search_pool.h"

/* ---- The world with the computer --------------------------------------------------------------
 */

typedef struct env {
  world w;
  fake_work fw;
  srv_search_queue *q;
  srv_computer *c;
} env;

/* Deep lane: one search at once aiming at deep_target ms; fast lane: one, 60 ms. Level 6 gets
 * ms a move. */
static void env_open(env *e, long ms, long deep_target) {
  world_init(&e->w, NULL);
  memset(&e->fw, 0, sizeof e->fw);
  fake_work_init(&e->fw, &e->w);
  srv_search_pool_config pc = {
      .workers = {1, 1}, .target_ms = {60, deep_target}, .floor_ms = {1, 5}};
  e->q = srv_search_pool_new(&e->fw.base, &e->w.time.base, &pc);
  ASSERT_NOT_NULL(e->q);
  srv_computer_config cc = {(int)ms};
  e->c = srv_computer_new(e->w.rooms, e->q, &e->w.time.base, &cc);
  ASSERT_NOT_NULL(e->c);
}

static void env_close(env *e) {
  world_close_rooms(&e->w); /* Cancels every search the rooms asked for. */
  while (e->fw.n > 0)       /* Searches in flight end; their answers are dropped. */
    fake_work_run(&e->fw, 0);
  srv_computer_close(e->c);
  srv_search_pool_close(e->q);
  srv_computer_free(e->c);
  srv_search_pool_free(e->q);
  world_free(&e->w);
}

static srv_search_stats stats_of(env *e) {
  srv_search_stats s;
  e->q->stats(e->q, &s);
  return s;
}

/* A Kalah game of t against the computer at level, the computer South (it moves first). */
static srv_room *computer_game(env *e, tclient *t, int level) {
  int rc = runf(&e->w, t,
                "{\"type\":\"create\",\"game\":\"kalah\",\"opponent\":\"computer\",\"level\":%d,"
                "\"seat\":\"north\"}",
                level);
  ASSERT_EQ(rc, 0);
  srv_room *room = srv_rooms_find(e->w.rooms, field_s(t, "joined", "room"));
  ASSERT_NOT_NULL(room);
  return room;
}

static size_t ply_of(srv_room *room) {
  return mc_game_ply(srv_room_game(room));
}

/* The person of room (North) plays its first legal house when it is to move. */
static void answer(env *e, tclient *t, srv_room *room) {
  const mc_game *g = srv_room_game(room);
  if (mc_game_over(g, NULL) || mc_game_pos(g)->turn != MC_NORTH)
    return;
  uint8_t legal[MC_MAX_HOUSES];
  ASSERT(mc_game_legal(g, legal) > 0);
  ASSERT_EQ(runf(&e->w, t, "{\"type\":\"move\",\"room\":\"%s\",\"house\":%d,\"ply\":%zu}",
                 srv_room_code(room), legal[0], ply_of(room)),
            0);
}

/* ---- Tests ------------------------------------------------------------------------------------
 */

TEST_IMPL(round_robin_one_job_a_game) {
  env e;
  env_open(&e, 20, 2000);
  tclient t[3];
  srv_room *room[3];
  const char *names[3] = {"Ana", "Bo", "Cy"};
  for (int i = 0; i < 3; i++) {
    connect_as(&e.w, &t[i], names[i]);
    room[i] = computer_game(&e, &t[i], 6);
  }
  /* One search a game: the first runs, the two others wait. */
  srv_search_stats s = stats_of(&e);
  ASSERT_EQ(s.running[SRV_SEARCH_DEEP], 1);
  ASSERT_EQ(s.waiting[SRV_SEARCH_DEEP], 2);
  ASSERT_EQ(e.fw.n, 1);
  /* Asking again for the same position (a spectator comes in: the room checks the computer
   * again) queues nothing more. */
  tclient spy;
  connect_as(&e.w, &spy, "Spy");
  ASSERT_EQ(runf(&e.w, &spy, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}",
                 srv_room_code(room[2])),
            0);
  s = stats_of(&e);
  ASSERT_EQ(s.running[SRV_SEARCH_DEEP] + s.waiting[SRV_SEARCH_DEEP], 3);
  /* Each answer is played and its person answers at once, so every game always has a search
   * asked for: the games are served in turn, A B C A B C..., extra turns included (a game that
   * moves again asks again, behind the others). */
  int served[12];
  for (int k = 0; k < 12; k++) {
    size_t before[3];
    for (int i = 0; i < 3; i++)
      before[i] = ply_of(room[i]);
    ASSERT_EQ(e.fw.n, 1);
    fake_work_run(&e.fw, 0);
    served[k] = -1;
    for (int i = 0; i < 3; i++)
      if (ply_of(room[i]) == before[i] + 1) {
        ASSERT_EQ(served[k], -1); /* One game moved. */
        served[k] = i;
      }
    ASSERT(served[k] >= 0);
    answer(&e, &t[served[k]], room[served[k]]);
    s = stats_of(&e);
    ASSERT_EQ(s.running[SRV_SEARCH_DEEP] + s.waiting[SRV_SEARCH_DEEP], 3);
    if (k >= 3)
      ASSERT_EQ(served[k], served[k - 3]);
  }
  ASSERT(served[0] != served[1] && served[1] != served[2] && served[0] != served[2]);
  disconnect(&e.w, &spy);
  for (int i = 0; i < 3; i++)
    disconnect(&e.w, &t[i]);
  env_close(&e);
  return 0;
}

TEST_IMPL(shallow_levels_never_wait) {
  env e;
  env_open(&e, 1000, 2000);
  tclient a, b;
  connect_as(&e.w, &a, "Ana");
  connect_as(&e.w, &b, "Bo");
  /* A level-6 search of a second under way, and another waiting behind it. */
  srv_room *deep = computer_game(&e, &a, 6);
  srv_room *deep2 = computer_game(&e, &b, 5);
  ASSERT_EQ(e.fw.n, 1);
  ASSERT_EQ(stats_of(&e).waiting[SRV_SEARCH_DEEP], 1);
  /* Levels 1, 2 and 3: answered on the loop, in the next callback, without a worker. */
  tclient c1, c2, c0;
  connect_as(&e.w, &c1, "Cy");
  connect_as(&e.w, &c2, "Di");
  connect_as(&e.w, &c0, "Gus");
  srv_room *l1 = computer_game(&e, &c1, 1);
  srv_room *l2 = computer_game(&e, &c2, 2);
  srv_room *l3on = computer_game(&e, &c0, 3);
  ASSERT_EQ(ply_of(l1), 0);
  ASSERT_EQ(srv_computer_loop_waiting(e.c), 3);
  fake_advance(&e.w.time, 0);
  ASSERT(ply_of(l1) >= 1);
  ASSERT(ply_of(l2) >= 1);
  ASSERT(ply_of(l3on) >= 1);
  ASSERT_EQ(e.fw.n, 1); /* Nothing was queued. */
  ASSERT_EQ(ply_of(deep), 0);
  /* Level 4: the fast lane starts at once beside the deep search. */
  tclient c3, c4;
  connect_as(&e.w, &c3, "Ed");
  connect_as(&e.w, &c4, "Flo");
  srv_room *l3 = computer_game(&e, &c3, 4);
  srv_room *l4 = computer_game(&e, &c4, 4);
  srv_search_stats s = stats_of(&e);
  ASSERT_EQ(s.running[SRV_SEARCH_FAST], 1);
  ASSERT_EQ(s.waiting[SRV_SEARCH_FAST], 1);
  ASSERT_EQ(e.fw.n, 2);
  fake_work_run(&e.fw, 1); /* The fast one: the deep one (index 0) still runs. */
  ASSERT(ply_of(l3) >= 1);
  ASSERT_EQ(e.fw.n, 2); /* The other's, queued at once (or the first's extra turn, then it). */
  while (ply_of(l4) == 0) {
    ASSERT_EQ(e.fw.n, 2);
    fake_work_run(&e.fw, 1);
  }
  ASSERT_EQ(ply_of(deep), 0);
  ASSERT_EQ(ply_of(deep2), 0);
  /* The deep lane never saw them. */
  s = stats_of(&e);
  ASSERT_EQ(s.running[SRV_SEARCH_DEEP], 1);
  ASSERT_EQ(s.waiting[SRV_SEARCH_DEEP], 1);
  tclient *all[] = {&a, &b, &c1, &c2, &c0, &c3, &c4};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    disconnect(&e.w, all[i]);
  env_close(&e);
  return 0;
}

TEST_IMPL(loop_searches_in_batches) {
  /* One more level-1 game than a loop callback searches: the first SRV_COMPUTER_LOOP_BATCH move in
   * the first callback, the last one in the next, a millisecond later (messages are read in
   * between). */
  env e;
  env_open(&e, 1000, 2000);
  enum { N = SRV_COMPUTER_LOOP_BATCH + 1 };
  tclient t[N];
  srv_room *rooms[N];
  for (int i = 0; i < N; i++) {
    char name[16];
    snprintf(name, sizeof name, "P%d", i);
    connect_as(&e.w, &t[i], name);
    rooms[i] = computer_game(&e, &t[i], 1);
  }
  ASSERT_EQ(srv_computer_loop_waiting(e.c), N);
  fake_advance(&e.w.time, 0);
  ASSERT(srv_computer_loop_waiting(e.c) >= 1); /* The last, and the first ones' extra turns. */
  for (int i = 0; i < N - 1; i++)
    ASSERT(ply_of(rooms[i]) >= 1);
  ASSERT_EQ(ply_of(rooms[N - 1]), 0); /* The last asked: the next callback's. */
  fake_advance(&e.w.time, 1);
  ASSERT(ply_of(rooms[N - 1]) >= 1);
  for (int i = 0; i < N; i++)
    disconnect(&e.w, &t[i]);
  env_close(&e);
  return 0;
}

static void on_done(void *arg, const srv_search_answer *a) {
  *(srv_search_answer *)arg = *a;
}

TEST_IMPL(budget_cut_when_long) {
  /* The policy: target * workers / (waiting + workers), between the floor and the asked time. */
  ASSERT_EQ(srv_search_budget(1000, 0, 1, 2000, 5, 0), 1000);
  ASSERT_EQ(srv_search_budget(1000, 1, 1, 2000, 5, 0), 1000);
  ASSERT_EQ(srv_search_budget(1000, 3, 1, 2000, 5, 0), 500);
  ASSERT_EQ(srv_search_budget(1000, 199, 1, 2000, 5, 0), 10);
  ASSERT_EQ(srv_search_budget(1000, 199, 2, 2000, 5, 0), 19);
  ASSERT_EQ(srv_search_budget(1000, 5000, 1, 2000, 5, 0), 5);
  ASSERT_EQ(srv_search_budget(300, 0, 1, 2000, 5, 0), 300); /* A clock's share is never raised. */
  /* --computer-ms 3000 above a 2000 ms target: alone, a search has its three seconds (no one
   * waits for it); one job behind it makes them 2000 * 1 / (1 + 1) = 1000. */
  ASSERT_EQ(srv_search_budget(3000, 0, 1, 2000, 5, 0), 3000);
  ASSERT_EQ(srv_search_budget(3000, 0, 1, 2000, 5, 40), 3000);
  ASSERT_EQ(srv_search_budget(3000, 1, 1, 2000, 5, 0), 1000);
  /* What a job costs beside its search is left out of each share. */
  ASSERT_EQ(srv_search_budget(1000, 199, 1, 2000, 5, 4), 6);
  ASSERT_EQ(srv_search_budget(1000, 199, 1, 2000, 5, 40), 5);
  /* Through the pool: the first search starts alone with its full second. */
  env e;
  env_open(&e, 1000, 2000);
  mc_rules rules;
  mc_rules_init(&rules, MC_KALAH);
  mc_game *g = mc_game_new(&rules);
  ASSERT_NOT_NULL(g);
  srv_search_req req = {g, 6, 1000, 42, SRV_SEARCH_DEEP, "test"};
  srv_search_answer first, rest[9];
  memset(&first, 0, sizeof first);
  srv_search_job *job, *jobs[9];
  ASSERT_EQ(e.q->submit(e.q, &req, on_done, &first, &job), 0);
  ASSERT_EQ(stats_of(&e).last_budget_ms[SRV_SEARCH_DEEP], 1000);
  /* Nine more queue up behind it: its budget is cut to 2000 / 10 = 200 ms, from its start. */
  for (int i = 0; i < 9; i++)
    ASSERT_EQ(e.q->submit(e.q, &req, on_done, &rest[i], &jobs[i]), 0);
  ASSERT_EQ(stats_of(&e).waiting[SRV_SEARCH_DEEP], 9);
  fake_advance(&e.w.time, 199);
  /* Not yet stopped; at 200 ms its stop flag goes up and it answers at once with a legal move. */
  fake_advance(&e.w.time, 1);
  fake_work_run(&e.fw, 0);
  ASSERT_EQ(first.rc, 0);
  ASSERT(first.cut);
  ASSERT_EQ(first.budget_ms, 200);
  ASSERT(first.res.move >= 1 && first.res.move <= 6);
  /* The next starts with 8 behind it: 2000 / 9 = 222 ms, less the overhead the pool measured (on
   * the fake clock the first search took 200 ms, on the real one almost nothing: an overhead of
   * about 200 ms, an eighth of it in the average). */
  long next = stats_of(&e).last_budget_ms[SRV_SEARCH_DEEP];
  ASSERT(next <= 222 && next >= 222 - 200 / 8 - 1);
  /* A waiting job cancelled goes without an answer; so does the running one's. */
  ASSERT_EQ(stats_of(&e).waiting[SRV_SEARCH_DEEP], 8);
  ASSERT_EQ(e.q->submit(e.q, &req, on_done, &rest[0], &job), 0);
  ASSERT_EQ(stats_of(&e).waiting[SRV_SEARCH_DEEP], 9);
  e.q->cancel(e.q, job);
  ASSERT_EQ(stats_of(&e).waiting[SRV_SEARCH_DEEP], 8);
  ASSERT_EQ(stats_of(&e).done, 1);
  ASSERT_EQ(stats_of(&e).cut, 1);
  /* The floor: a lane of a thousand does not make a search worthless. */
  ASSERT_EQ(srv_search_budget(1000, 1000, 1, 2000, 5, 0), 5);
  /* The rest are cancelled, the running one too: no answer comes. */
  for (int i = 0; i < 9; i++)
    e.q->cancel(e.q, jobs[i]);
  ASSERT_EQ(stats_of(&e).waiting[SRV_SEARCH_DEEP], 0);
  ASSERT_EQ(e.fw.n, 1);
  fake_work_run(&e.fw, 0);
  ASSERT_EQ(stats_of(&e).done, 1);
  ASSERT_EQ(stats_of(&e).running[SRV_SEARCH_DEEP], 0);
  mc_game_free(g);
  env_close(&e);
  return 0;
}

TEST_IMPL(computer_ms_above_a_second) {
  /* --computer-ms 3000 with a reply target of 2000 ms: a level-6 game alone gets its three
   * seconds (docs/server.md: the option is level 6's time a move), not the target's two. */
  env e;
  env_open(&e, 3000, 2000);
  tclient a;
  connect_as(&e.w, &a, "Ana");
  srv_room *room = computer_game(&e, &a, 6);
  ASSERT_EQ(e.fw.n, 1);
  ASSERT_EQ(stats_of(&e).running[SRV_SEARCH_DEEP], 1);
  ASSERT_EQ(stats_of(&e).last_budget_ms[SRV_SEARCH_DEEP], 3000);
  /* Not stopped at the target's two seconds: still searching at 2999 ms (the pool's cut timer
   * would have raised its stop flag, and the fake worker then answered). */
  fake_advance(&e.w.time, 2999);
  ASSERT_EQ(ply_of(room), 0);
  ASSERT_EQ(e.fw.n, 1);
  disconnect(&e.w, &a);
  env_close(&e);
  return 0;
}

TEST_IMPL(resign_while_waiting_or_running) {
  env e;
  env_open(&e, 20, 2000);
  tclient a, b;
  connect_as(&e.w, &a, "Ana");
  connect_as(&e.w, &b, "Bo");
  srv_room *ra = computer_game(&e, &a, 6);
  srv_room *rb = computer_game(&e, &b, 6);
  ASSERT_EQ(stats_of(&e).waiting[SRV_SEARCH_DEEP], 1);
  /* B's search waits behind A's: B resigns, its search goes, nothing more is asked for. */
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"resign\",\"room\":\"%s\"}", srv_room_code(rb)), 0);
  ASSERT_EQ(stats_of(&e).waiting[SRV_SEARCH_DEEP], 0);
  /* A resigns while its search runs: the answer is dropped when it comes. */
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", srv_room_code(ra)), 0);
  ASSERT_EQ(e.fw.n, 1);
  fake_work_run(&e.fw, 0);
  ASSERT_EQ(ply_of(ra), 0);
  ASSERT_EQ(ply_of(rb), 0);
  ASSERT_EQ(stats_of(&e).done, 0);
  srv_search_stats s = stats_of(&e);
  ASSERT_EQ(s.running[SRV_SEARCH_DEEP] + s.waiting[SRV_SEARCH_DEEP], 0);
  /* Both games are over: each person may start another at once. */
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"opponent\":\"computer\"}"),
            0);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);
  return 0;
}

TEST_IMPL(caps_per_person_and_address) {
  env e;
  env_open(&e, 20, 2000);
  srv_rooms_set_computer_shares(e.w.rooms, 2, 3);
  srv_peers *peers = srv_peers_new();
  srv_peer *p = srv_peers_get(peers, "203.0.113.9"), *q = srv_peers_get(peers, "198.51.100.7");
  tclient a, b, d;
  connect_as(&e.w, &a, "Ana");
  a.c.peer = p;
  connect_as(&e.w, &b, "Bo"); /* Another person of the same address. */
  b.c.peer = p;
  connect_as(&e.w, &d, "Dee");
  d.c.peer = q;
#define VS_COMPUTER "{\"type\":\"%s\",\"game\":\"kalah\",\"opponent\":\"computer\",\"level\":1}"
  /* Ana's two games, then her third is refused with its own code, create and quick alike. */
  ASSERT_EQ(runf(&e.w, &a, VS_COMPUTER, "create"), 0);
  char first[8];
  snprintf(first, sizeof first, "%s", field_s(&a, "joined", "room"));
  ASSERT_EQ(runf(&e.w, &a, VS_COMPUTER, "quick"), 0);
  ASSERT_EQ(runf(&e.w, &a, VS_COMPUTER, "create"), SRV_ECOMPUTERGAMES);
  ASSERT_EQ(runf(&e.w, &a, VS_COMPUTER, "quick"), SRV_ECOMPUTERGAMES);
  ASSERT_STR_EQ(srv_err_code(SRV_ECOMPUTERGAMES), "too_many_computer_games");
  /* Bo, same address: one more makes the address's three, then it is full for him too. */
  ASSERT_EQ(runf(&e.w, &b, VS_COMPUTER, "create"), 0);
  ASSERT_EQ(runf(&e.w, &b, VS_COMPUTER, "create"), SRV_ECOMPUTERGAMES);
  /* Another address is not concerned; a game with a person is not either. */
  ASSERT_EQ(runf(&e.w, &d, VS_COMPUTER, "create"), 0);
  ASSERT_EQ(run(&e.w, &b, "{\"type\":\"create\",\"game\":\"kalah\"}"), 0);
  /* A finished game gives its place back. */
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", first), 0);
  ASSERT_EQ(runf(&e.w, &b, VS_COMPUTER, "create"), 0);
  ASSERT_EQ(runf(&e.w, &a, VS_COMPUTER, "create"), SRV_ECOMPUTERGAMES); /* The address's. */
  /* The server's cap comes after one's own share. */
  srv_rooms_set_computer_games(e.w.rooms, 4);
  ASSERT_EQ(runf(&e.w, &d, VS_COMPUTER, "create"), SRV_ESERVERFULL);
#undef VS_COMPUTER
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  disconnect(&e.w, &d);
  env_close(&e);
  srv_peer_unref(p);
  srv_peer_unref(q);
  ASSERT_EQ(srv_peers_count(peers), 0);
  srv_peers_free(peers);
  return 0;
}

/* ---- New endgame tables while a search runs (srv_search_pool_set_egtb(), srv_egtb.h) -------- */

static void count_done(void *arg, const srv_search_answer *answer) {
  int *n = arg;
  ASSERT_EQ(answer->rc, 0);
  (*n)++;
}

/* A built set reaches the searches between two of them: the running one keeps the set it started
 * with (freed once it is over), a second switch before that is refused (and its set freed), and
 * searches go on answering throughout. ASan checks that each set is freed exactly once. */
TEST_IMPL(tables_switch_between_searches) {
  world w;
  world_init(&w, NULL);
  fake_work fw;
  memset(&fw, 0, sizeof fw);
  fake_work_init(&fw, &w);
  mc_egtb *first = mc_egtb_new();
  ASSERT_NOT_NULL(first);
  srv_search_pool_config pc = {
      .workers = {1, 1}, .target_ms = {60, 2000}, .floor_ms = {1, 5}, .egtb = first};
  srv_search_queue *q = srv_search_pool_new(&fw.base, &w.time.base, &pc);
  ASSERT_NOT_NULL(q);
  mc_rules r;
  mc_rules_init(&r, MC_KALAH);
  mc_game *g = mc_game_new(&r);
  ASSERT_NOT_NULL(g);
  srv_search_req req = {.game = g, .level = 5, .ms = 5, .seed = 1, .lane = SRV_SEARCH_DEEP};
  int done = 0;
  srv_search_job *job;
  ASSERT_EQ(q->submit(q, &req, count_done, &done, &job), 0);
  ASSERT_EQ(fw.n, 1); /* Running on the worker: its context keeps `first`. */
  mc_egtb *built = mc_egtb_new();
  ASSERT_NOT_NULL(built);
  ASSERT_EQ(srv_search_pool_set_egtb(q, built), 0);
  /* `first` is still in use: another switch now is refused, its set freed. */
  mc_egtb *again = mc_egtb_new();
  ASSERT_NOT_NULL(again);
  ASSERT_EQ(srv_search_pool_set_egtb(q, again), SRV_EINTERNAL);
  fake_work_run(&fw, 0); /* The search ends: its slot switches, `first` is freed. */
  ASSERT_EQ(done, 1);
  /* Nothing pending any more: the next switch is taken at once (no search runs). */
  mc_egtb *third = mc_egtb_new();
  ASSERT_NOT_NULL(third);
  ASSERT_EQ(srv_search_pool_set_egtb(q, third), 0);
  /* Searches answer with the new set. */
  ASSERT_EQ(q->submit(q, &req, count_done, &done, &job), 0);
  fake_work_run_all(&fw);
  ASSERT_EQ(done, 2);
  mc_game_free(g);
  srv_search_pool_close(q);
  srv_search_pool_free(q);
  world_free(&w);
  return 0;
}
