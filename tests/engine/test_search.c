/* The search: legal moves under every limit, cancellation from another thread, determinism with a
 * seed, extra turns and repetition judged right, levels, draw offers and the analysis.
 */
#include <pthread.h>
#include <time.h>

#include "mc_analysis.h"
#include "mc_search.h"
#include "minimax.h"
#include "util.h"

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static int rnd(int n) {
  return (int)(rng() % (uint64_t)n);
}

/* Random rules of every game and option, small to default boards. */
static mc_rules random_rules(void) {
  mc_rules r;
  mc_rules_init(&r, (mc_kind)rnd(3));
  r.houses = (uint8_t)(2 + rnd(6));
  r.seeds = (uint8_t)(1 + rnd(6));
  if (r.kind == MC_KALAH)
    r.empty_capture = rnd(2);
  else if (r.kind == MC_OWARE)
    r.grand_slam = (mc_grand_slam)rnd(3);
  else {
    r.lap_capture = rnd(2);
    r.match = rnd(2);
  }
  return r;
}

/* A game after a random number of random moves, not over (NULL when every walk ended it). */
static mc_game *random_game(const mc_rules *r, int max_plies) {
  for (int attempt = 0; attempt < 8; attempt++, max_plies /= 2) {
    mc_game *g = mc_game_new(r);
    int plies = rnd(max_plies + 1);
    for (int i = 0; i < plies && !mc_game_over(g, NULL); i++) {
      uint8_t moves[MC_MAX_HOUSES];
      int n = mc_game_legal(g, moves);
      mc_game_play(g, moves[rnd(n)], NULL);
    }
    if (!mc_game_over(g, NULL))
      return g;
    mc_game_free(g);
  }
  return NULL;
}

static int legal_in(const mc_game *g, int move) {
  uint8_t moves[MC_MAX_HOUSES];
  int n = mc_game_legal(g, moves);
  for (int i = 0; i < n; i++)
    if (moves[i] == move)
      return 1;
  return 0;
}

static mc_search_request request_of(const mc_game *g, const mc_level *lv) {
  size_t hn;
  const mc_pos *h = mc_game_history(g, &hn);
  mc_search_request req = {.rules = mc_game_rules(g),
                           .pos = mc_game_pos(g),
                           .history = h,
                           .history_len = hn,
                           .limits = MC_LIMITS_NONE,
                           .level = lv};
  return req;
}

/* Property: whatever the limit (depth 1, one node, no time, a small node budget, a cancel
 * raised before the start) and the level, the move is legal, and so is every PV move. */
static void legal_under_limits(void) {
  mc_search *s = mc_search_new(&(mc_search_config){.tt_bytes = 1u << 20});
  atomic_bool raised = true;
  int runs = 0;
  for (int i = 0; i < 300; i++) {
    mc_rules r = random_rules();
    mc_game *g = random_game(&r, 40);
    if (g == NULL)
      continue;
    mc_level lv;
    mc_level_get(1 + rnd(6), &lv);
    mc_search_request req = request_of(g, &lv);
    req.seed = rng();
    switch (i % 6) {
    case 0:
      req.limits.depth = 1;
      break;
    case 1:
      req.limits.nodes = 1;
      break;
    case 2:
      req.limits.time_ms = 0;
      break;
    case 3:
      req.limits.nodes = 1 + (uint64_t)rnd(300);
      break;
    case 4:
      req.cancel = &raised;
      break;
    default:
      req.limits.depth = 1 + rnd(4);
      req.all_moves = rnd(2);
      break;
    }
    if (lv.time_ms > 0)
      req.limits.time_ms = req.limits.time_ms < 0 ? 30 : req.limits.time_ms;
    mc_search_result res;
    int rc = mc_search_run(s, &req, &res);
    CHECK_INT(rc, 0);
    CHECK(legal_in(g, res.move));
    CHECK(legal_in(g, res.best));
    /* Stopped, unless every move ends the game (nothing to search). */
    if (i % 6 == 1 || i % 6 == 2 || i % 6 == 4)
      CHECK(res.stopped || res.exact);
    /* The principal variation is a line of legal moves. */
    mc_game *c = mc_game_copy(g);
    for (int k = 0; k < res.pv_len && !mc_game_over(c, NULL); k++)
      CHECK_INT(mc_game_play(c, res.pv[k], NULL), 0);
    mc_game_free(c);
    mc_game_free(g);
    runs++;
  }
  CHECK(runs > 280);
  mc_search_free(s);
}

typedef struct canceller {
  atomic_bool *flag;
  long ms;
} canceller;

static void *raise_later(void *arg) {
  canceller *c = arg;
  struct timespec t = {c->ms / 1000, (c->ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
  atomic_store(c->flag, true);
  return NULL;
}

/* A search with no limit at all stops when another thread raises the flag, with a legal move. */
static void cancel_from_thread(void) {
  for (int kind = MC_KALAH; kind <= MC_CONGKAK; kind++) {
    mc_rules r;
    mc_rules_init(&r, (mc_kind)kind);
    mc_game *g = mc_game_new(&r);
    mc_search *s = mc_search_new(NULL);
    atomic_bool flag = false;
    canceller c = {&flag, 50};
    pthread_t th;
    CHECK_INT(pthread_create(&th, NULL, raise_later, &c), 0);
    mc_search_request req = request_of(g, NULL);
    req.cancel = &flag;
    mc_search_result res;
    CHECK_INT(mc_search_run(s, &req, &res), 0);
    pthread_join(th, NULL);
    CHECK(res.stopped);
    CHECK(!res.exact);
    CHECK(legal_in(g, res.move));
    mc_search_free(s);
    mc_game_free(g);
  }
}

/* Same request, seed and limits on fresh contexts: the same result, noise included. */
static void deterministic(void) {
  for (int i = 0; i < 30; i++) {
    mc_rules r = random_rules();
    mc_game *g = random_game(&r, 20);
    if (g == NULL)
      continue;
    mc_level lv;
    mc_level_get(1 + i % 5, &lv); /* Levels 1-5: depth and node limits, no clock. */
    mc_search_request req = request_of(g, &lv);
    req.seed = (uint64_t)i * 7919u;
    mc_search_result a, b;
    mc_search *s1 = mc_search_new(NULL), *s2 = mc_search_new(NULL);
    CHECK_INT(mc_search_run(s1, &req, &a), 0);
    CHECK_INT(mc_search_run(s2, &req, &b), 0);
    CHECK_INT(a.move, b.move);
    CHECK_INT(a.best, b.best);
    CHECK_INT(a.value, b.value);
    CHECK_INT(a.nodes, b.nodes);
    CHECK_INT(a.depth, b.depth);
    mc_search_free(s1);
    mc_search_free(s2);
    mc_game_free(g);
  }
  /* The beginner's noise depends on the seed: from the Kalah start, different seeds pick
   * different moves. */
  mc_rules r;
  mc_rules_init(&r, MC_KALAH);
  mc_game *g = mc_game_new(&r);
  mc_search *s = mc_search_new(NULL);
  int seen[MC_MAX_HOUSES + 1] = {0}, kinds = 0;
  for (uint64_t seed = 0; seed < 60; seed++) {
    mc_search_result res;
    CHECK_INT(mc_search_game(s, g, 1, -1, seed, NULL, &res), 0);
    CHECK(legal_in(g, res.move));
    kinds += !seen[res.move]++;
  }
  CHECK(kinds >= 3);
  mc_search_free(s);
  mc_game_free(g);
}

/* Extra turns keep the sign. Kalah 2x2, South 1 1 (0), North 2 2 (0): house 2 ends in the store
 * (1-0, South moves again), house 1 lands on the non-empty house 2 (North to move, 0-0). At depth
 * one with the store difference alone, house 2 is worth +1 for South (not negated: the same side
 * moves), house 1 is worth 0. */
static void extra_turn_sign(void) {
  mc_rules r = mk_rules(MC_KALAH, 2, 2);
  mc_pos p = mk_pos("1 1 (0) 2 2 (0) south");
  mc_level lv;
  mc_level_full(&lv);
  lv.eval = MC_EVAL_STORES;
  mc_search *s = mc_search_new(NULL);
  mc_search_request req = {.rules = &r, .pos = &p, .limits = {-1, 0, 1}, .level = &lv};
  mc_search_result res;
  CHECK_INT(mc_search_run(s, &req, &res), 0);
  CHECK_INT(res.best, 2);
  CHECK_INT(res.value, 100);
  CHECK_INT(res.depth, 1);
  mc_search_free(s);
}

/* Repetition with the game's history. Oware 1x1: every move is a grand slam that captures
 * nothing; after "1 1 1 1" the positions 0 (0) 2 (0) north and 2 (0) 0 (0) south have each
 * occurred twice, and South's only move makes the first occur a third time: the game ends, North
 * takes its 2 seeds, -2 for South. The same position with no history goes on: South's move
 * (once), North's (2 (0) 0 (0) south twice), South's (0 (0) 2 (0) north twice), North's (the
 * third 2 (0) 0 (0) south) ends it with South taking 2: +2. */
static void repetition_history(void) {
  mc_rules r = mk_rules(MC_OWARE, 1, 1);
  mc_game *g;
  CHECK_INT(mc_moves_replay(&r, "1 1 1 1", &g, NULL), 0);
  mc_search *s = mc_search_new(NULL);
  mc_search_request req = request_of(g, NULL);
  mc_search_result res;
  CHECK_INT(mc_search_run(s, &req, &res), 0);
  CHECK(res.exact);
  CHECK_INT(res.value, -200);
  req.history = NULL;
  req.history_len = 0;
  CHECK_INT(mc_search_run(s, &req, &res), 0);
  CHECK(res.exact);
  CHECK_INT(res.value, 200);
  /* And back with the history, after the table saw the other value. */
  req = request_of(g, NULL);
  CHECK_INT(mc_search_run(s, &req, &res), 0);
  CHECK_INT(res.value, -200);
  /* A history that does not end with the position is refused. */
  mc_pos other = mk_pos("1 (0) 1 (0) south");
  req.pos = &other;
  CHECK_INT(mc_search_run(s, &req, &res), MC_EINVAL);
  mc_search_free(s);
  mc_game_free(g);
}

static void errors_and_levels(void) {
  mc_search *s = mc_search_new(NULL);
  mc_rules r = mk_rules(MC_KALAH, 2, 1);
  mc_game *g;
  /* Kalah 2x1 after "2 1": South ends its turn with its side empty: over. */
  CHECK_INT(mc_moves_replay(&r, "2 1", &g, NULL), 0);
  CHECK(mc_game_over(g, NULL));
  mc_search_result res;
  CHECK_INT(mc_search_game(s, g, 3, -1, 1, NULL, &res), MC_EOVER);
  mc_game_free(g);
  g = mc_game_new(&r);
  CHECK_INT(mc_search_game(s, g, 0, -1, 1, NULL, &res), MC_EINVAL);
  CHECK_INT(mc_search_game(s, g, 7, -1, 1, NULL, &res), MC_EINVAL);
  CHECK_INT(mc_search_run(s, NULL, &res), MC_EINVAL);
  mc_game_free(g);
  mc_level lv;
  for (int l = MC_LEVEL_MIN; l <= MC_LEVEL_MAX; l++) {
    CHECK_INT(mc_level_get(l, &lv), 0);
    CHECK(mc_level_name(l) != NULL);
  }
  CHECK_INT(mc_level_get(0, &lv), MC_EINVAL);
  CHECK(mc_level_name(7) == NULL);
  CHECK_INT(mc_level_parse("4:depth=8,eval=stores,temp=0", &lv), 0);
  CHECK_INT(lv.depth, 8);
  CHECK_INT(lv.eval, MC_EVAL_STORES);
  CHECK_INT(mc_level_parse("full:w=1/2/3/4", &lv), 0);
  CHECK(lv.custom_weights && lv.weights[3] == 4);
  CHECK_INT(mc_level_parse("7", &lv), MC_EINVAL);
  CHECK_INT(mc_level_parse("3:depth", &lv), MC_EINVAL);
  CHECK_INT(mc_level_parse("3:color=red", &lv), MC_EINVAL);
  /* Draw offers: an exact draw or loss is accepted, an exact win refused; evaluations accept
   * below half a seed. */
  mc_search_result d = {.exact = true, .value = 0};
  CHECK(mc_search_accepts_draw(&d));
  d.value = 100;
  CHECK(!mc_search_accepts_draw(&d));
  d.exact = false;
  d.value = 49;
  CHECK(mc_search_accepts_draw(&d));
  d.value = 50;
  CHECK(!mc_search_accepts_draw(&d));
  mc_search_free(s);
}

/* The analysis of a whole Kalah 3x2 game (random moves) against the minimax: every ply exact,
 * the value of the position, the best move worth it, the played move worth its child's value. */
static void analysis(void) {
  mc_rules r = mk_rules(MC_KALAH, 3, 2);
  minimax mm;
  mm_init(&mm, &r);
  mc_search *s = mc_search_new(NULL);
  for (int t = 0; t < 5; t++) {
    mc_game *g = mc_game_new(&r);
    while (!mc_game_over(g, NULL)) {
      uint8_t moves[MC_MAX_HOUSES];
      int n = mc_game_legal(g, moves);
      mc_game_play(g, moves[rnd(n)], NULL);
    }
    size_t n;
    const uint8_t *moves = mc_game_moves(g, &n);
    mc_ply_eval ev[64];
    mc_limits lim = {-1, 0, 0};
    CHECK(n <= 64);
    CHECK_INT(mc_analyse(s, &r, moves, n, &lim, NULL, ev, NULL), 0);
    mc_pos p;
    mc_pos_init(&p, &r);
    for (size_t i = 0; i < n; i++) {
      CHECK_INT(ev[i].mover, p.turn);
      CHECK_INT(ev[i].played, moves[i]);
      CHECK(ev[i].exact && ev[i].played_known && ev[i].played_exact);
      CHECK_INT(ev[i].value, mm_solve(&mm, &p) * MC_SEED);
      mc_pos c = p;
      mc_result res;
      int rc = mc_pos_play(&c, &r, moves[i], NULL, &res);
      int child = rc == 1 ? (p.turn ? res.score[1] - res.score[0] : res.score[0] - res.score[1])
                          : (c.turn == p.turn ? 1 : -1) * mm_solve(&mm, &c);
      CHECK_INT(ev[i].played_value, child * MC_SEED);
      CHECK(ev[i].played_value <= ev[i].value);
      p = c;
    }
    mc_game_free(g);
  }
  /* A bad move list names the ply. */
  uint8_t bad[3] = {1, 1, 9};
  mc_ply_eval ev[3];
  size_t at = 99;
  CHECK_INT(mc_analyse(s, &r, bad, 3, NULL, NULL, ev, &at), MC_EILLEGAL);
  CHECK_INT(at, 2);
  mc_search_free(s);
  mm_free(&mm);
}

/* An analysis cut by a budget (nodes here, time on a server) often stops inside an iteration that
 * has already valued some moves one ply deeper than the last finished one: the played move never
 * comes out worth more than the ply's best, whatever the budget, in every game. */
static void analysis_budgets(void) {
  const mc_kind kinds[] = {MC_KALAH, MC_OWARE, MC_CONGKAK};
  const uint64_t budgets[] = {200, 700, 2500, 9000};
  mc_search *s = mc_search_new(NULL);
  int valued = 0;
  for (int k = 0; k < 3; k++) {
    mc_rules r = mk_rules(kinds[k], 6, 4);
    for (int t = 0; t < 3; t++) {
      mc_game *g = mc_game_new(&r);
      for (int ply = 0; ply < 40 && !mc_game_over(g, NULL); ply++) {
        uint8_t moves[MC_MAX_HOUSES];
        int n = mc_game_legal(g, moves);
        mc_game_play(g, moves[rnd(n)], NULL);
      }
      size_t n;
      const uint8_t *moves = mc_game_moves(g, &n);
      mc_ply_eval ev[64];
      CHECK(n <= 64);
      for (int b = 0; b < 4; b++) {
        mc_limits lim = {-1, budgets[b], 0};
        CHECK_INT(mc_analyse(s, &r, moves, n, &lim, NULL, ev, NULL), 0);
        for (size_t i = 0; i < n; i++) {
          if (!ev[i].played_known)
            continue;
          valued++;
          CHECK(ev[i].played_value <= ev[i].value);
          if (ev[i].played == ev[i].best)
            CHECK_INT(ev[i].played_value, ev[i].value);
        }
      }
      mc_game_free(g);
    }
  }
  CHECK(valued > 300);
  mc_search_free(s);
}

/* A level's time from the caller's (mc_level_time(), what mc_search_game() searches with): level
 * 6 thinks for whatever time it is given, above its default second too (a server's --computer-ms
 * 3000 is three seconds, docs/server.md), and 1 s when given none (docs/computer.md, "Levels");
 * levels 1-5 have no time of their own (fixed depth, fixed positions): the caller's is a cap. */
static void level_time(void) {
  mc_level lv;
  CHECK_INT(mc_level_get(6, &lv), 0);
  CHECK_INT(mc_level_time(&lv, 3000), 3000);
  CHECK_INT(mc_level_time(&lv, 60000), 60000);
  CHECK_INT(mc_level_time(&lv, 200), 200);
  CHECK_INT(mc_level_time(&lv, -1), 1000);
  for (int l = 1; l <= 5; l++) {
    CHECK_INT(mc_level_get(l, &lv), 0);
    CHECK_INT(mc_level_time(&lv, 3000), -1);
    CHECK_INT(mc_level_time(&lv, -1), -1);
  }
}

int main(void) {
  level_time();
  legal_under_limits();
  cancel_from_thread();
  deterministic();
  extra_turn_sign();
  repetition_history();
  errors_and_levels();
  analysis();
  analysis_budgets();
  return check_exit("search");
}
