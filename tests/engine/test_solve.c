/* The solver against a plain full minimax (minimax.h, written independently of the search), on
 * tiny boards of every game and option: for every position reachable from the start (a
 * deterministic sample of at most SAMPLE of them on the larger boards), solved with no history
 * before it, the search must prove the minimax value, and its best move must be a move with that
 * value. mc_solve()'s principal line from the start must be legal and end the game with the
 * value it claims.
 *
 * Hand-worked values anchor the minimax itself:
 *   - Kalah 1x3: South sows 3: store, North's house (4), back into its own empty house: that seed
 *     and the 4 facing are captured (6 in all), South's side is empty: 6-0, value +6.
 *   - Kalah 1x2: South sows 2: store, North's house (3); South's side is empty, North sweeps its
 *     3: 1-3, value -2.
 *   - Oware 1x1: every move is a grand slam capturing nothing (no_capture), the single seeds chase
 *     each other and the position after North's first move comes back a third time after the
 *     fifth move: North takes the 2 seeds on its side, value -2 for South.
 *   - Congkak 1x3: South sows 3: its store, North's house (4), its own house, emptied by the
 *     pick (1): a capture of 4 + 1; North has no seeds, the round ends 6-0: value +6.
 */
#include "mc_search.h"
#include "mc_solve.h"
#include "minimax.h"
#include "util.h"

#define SAMPLE 150
#define SAMPLE_OWARE 40
/* Minimax nodes for one position; positions that need more (long cycles under the repetition
 * rule, where the plain minimax is exponential) are skipped and counted. */
#define MM_BUDGET 20000

typedef struct pos_set {
  mc_pos *v;
  size_t n, cap;
  mm_entry *seen;
  size_t seen_cap;
} pos_set;

static int set_add(pos_set *s, const mc_pos *p) {
  size_t i = (size_t)mm_hash(p) & (s->seen_cap - 1);
  while (s->seen[i].used) {
    if (memcmp(&s->seen[i].pos, p, sizeof(*p)) == 0)
      return 0;
    i = (i + 1) & (s->seen_cap - 1);
  }
  s->seen[i].used = 1;
  s->seen[i].pos = *p;
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 1024;
    s->v = realloc(s->v, s->cap * sizeof(mc_pos));
  }
  s->v[s->n++] = *p;
  return 1;
}

/* Every position reachable from the start where play goes on (ignoring repetition), up to
 * limit of them, in breadth-first order. */
static void reachable(const mc_rules *r, size_t limit, pos_set *s) {
  memset(s, 0, sizeof(*s));
  s->seen_cap = 1u << 20;
  while (s->seen_cap < 4 * limit)
    s->seen_cap *= 2;
  s->seen = calloc(s->seen_cap, sizeof(mm_entry));
  mc_pos start;
  mc_pos_init(&start, r);
  set_add(s, &start);
  for (size_t i = 0; i < s->n && s->n < limit; i++) {
    mc_pos p = s->v[i];
    uint8_t moves[MC_MAX_HOUSES];
    int n = mc_pos_legal(&p, r, moves);
    for (int j = 0; j < n && s->n < limit; j++) {
      mc_pos c = p;
      if (mc_pos_play(&c, r, moves[j], NULL, NULL) == 0)
        set_add(s, &c);
    }
  }
}

static void check_variant(const mc_rules *r, size_t limit) {
  char name[96];
  mc_rules_format(r, name, sizeof(name));
  pos_set set;
  reachable(r, limit, &set);
  minimax mm;
  mm_init(&mm, r);
  mm.budget = MM_BUDGET;
  mc_search_config cfg = {.tt_bytes = 4u << 20};
  mc_search *s = mc_search_new(&cfg);
  CHECK(s != NULL);
  /* A deterministic sample: every position when there are few, else evenly spaced. */
  const size_t sample = r->kind == MC_OWARE ? SAMPLE_OWARE : SAMPLE;
  size_t step = set.n > sample ? set.n / sample : 1, checked = 0, skipped = 0;
  uint64_t nodes = 0;
  for (size_t i = 0; i < set.n && s; i += step) {
    const mc_pos *p = &set.v[i];
    const unsigned long long before = mm.nodes;
    const int want = mm_solve(&mm, p);
    if (mm.overflow) {
      skipped++; /* Too long for the plain minimax: cycles under the repetition rule. */
      continue;
    }
    /* The search gets far more than the minimax needed. */
    const uint64_t budget = 50 * (uint64_t)(mm.nodes - before) + 2000000;
    mc_search_request req = {.rules = r, .pos = p, .limits = {-1, budget, 0}, .solve = true};
    mc_search_result res;
    int rc = mc_search_run(s, &req, &res);
    CHECK_INT(rc, 0);
    checked++;
    nodes += res.nodes;
    if (rc != 0 || !res.exact || res.value != want * MC_SEED) {
      char text[128];
      mc_pos_format(p, text, sizeof(text));
      fprintf(stderr, "%s: %s: solver %d (exact %d, %llu nodes of %llu, depth %d), minimax %d\n",
              name, text, res.value, res.exact, (unsigned long long)res.nodes,
              (unsigned long long)budget, res.depth, want * MC_SEED);
      CHECK(0);
      continue;
    }
    /* The best move must be worth the value (by the minimax of its child). */
    mc_pos c = *p;
    mc_result end;
    rc = mc_pos_play(&c, r, res.best, NULL, &end);
    CHECK(rc >= 0);
    int got;
    if (rc == 1) {
      got = p->turn == MC_SOUTH ? end.score[0] - end.score[1] : end.score[1] - end.score[0];
    } else {
      /* One move after p, the child cannot be a third occurrence; its window holds p. */
      const int cv = mm_solve_after(&mm, p, &c);
      if (mm.overflow)
        continue;
      got = c.turn == p->turn ? cv : -cv;
    }
    if (got != want) {
      char text[128];
      mc_pos_format(p, text, sizeof(text));
      fprintf(stderr, "%s: %s: best move %d is worth %d, not %d\n", name, text, res.best, got,
              want);
      CHECK(0);
    }
  }
  /* Every variant checks positions; Kalah and Congkak (rare cycles) nearly all it samples. Oware's
   * cycles make the plain minimax exponential: there only the positions it can do are checked. */
  CHECK(checked > 0);
  if (r->kind != MC_OWARE)
    CHECK(checked >= 10 * skipped);
  /* The solver's line from the start: legal, and ending the game with the value claimed. */
  mc_pos start;
  mc_pos_init(&start, r);
  mc_solve_result sol;
  const mc_limits lim = {-1, 5000000, 0};
  CHECK_INT(mc_solve(s, r, &start, NULL, 0, &lim, NULL, &sol), 0);
  const int start_value = mm_solve(&mm, &start);
  if (!mm.overflow) {
    CHECK(sol.solved);
    CHECK_INT(sol.value, start_value);
  }
  /* The line is found move by move within the same node budget (Oware's cycles may use it up). */
  if (r->kind != MC_OWARE)
    CHECK(!sol.solved || sol.line_complete);
  if (sol.solved && sol.line_complete) {
    mc_game *g = mc_game_new(r);
    for (size_t i = 0; i < sol.line_len; i++)
      CHECK_INT(mc_game_play(g, sol.line[i], NULL), 0);
    mc_result res;
    CHECK(mc_game_over(g, &res));
    CHECK_INT((int)res.score[0] - (int)res.score[1], sol.value);
    CHECK_INT(res.reason, sol.end.reason);
    mc_game_free(g);
  }
  if (check_failures)
    fprintf(stderr, "  (after %s)\n", name);
  printf("%s: %zu reachable positions, %zu solved (%zu too long for the minimax), %llu minimax "
         "nodes, %llu search nodes\n",
         name, set.n, checked, skipped, mm.nodes, (unsigned long long)nodes);
  fflush(stdout);
  mc_search_free(s);
  mm_free(&mm);
  free(set.v);
  free(set.seen);
}

/* Hand-worked values (see the top of the file) for the minimax itself. */
static void check_anchors(void) {
  minimax mm;
  mc_rules r = mk_rules(MC_KALAH, 1, 3);
  mm_init(&mm, &r);
  mc_pos p;
  mc_pos_init(&p, &r);
  CHECK_INT(mm_solve(&mm, &p), 6);
  mm_free(&mm);
  r = mk_rules(MC_KALAH, 1, 2);
  mm_init(&mm, &r);
  mc_pos_init(&p, &r);
  CHECK_INT(mm_solve(&mm, &p), -2);
  mm_free(&mm);
  r = mk_rules(MC_OWARE, 1, 1);
  mm_init(&mm, &r);
  mc_pos_init(&p, &r);
  CHECK_INT(mm_solve(&mm, &p), -2);
  mm_free(&mm);
  r = mk_rules(MC_CONGKAK, 1, 3);
  mm_init(&mm, &r);
  mc_pos_init(&p, &r);
  CHECK_INT(mm_solve(&mm, &p), 6);
  mm_free(&mm);
}

/* The small boards of docs/computer.md's Kalah table beyond 3x3: the value the table gives, the
 * solver's, and the independent minimax's (no repetition in Kalah: memoized on the position). */
static void check_documented(void) {
  static const struct {
    int m, n, ec, value;
  } docs[] = {
      {4, 1, 0, 2}, {4, 1, 1, 2}, {4, 2, 0, 6}, {4, 2, 1, 6}, {5, 1, 0, 0}, {5, 1, 1, 0},
  };
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
    mc_rules r = mk_rules(MC_KALAH, docs[i].m, docs[i].n);
    r.empty_capture = docs[i].ec;
    mc_pos start;
    mc_pos_init(&start, &r);
    minimax mm;
    mm_init(&mm, &r);
    const int want = mm_solve(&mm, &start);
    CHECK(!mm.overflow);
    CHECK_INT(want, docs[i].value);
    mc_search *s = mc_search_new(NULL);
    mc_solve_result sol;
    CHECK_INT(mc_solve(s, &r, &start, NULL, 0, NULL, NULL, &sol), 0);
    CHECK(sol.solved);
    CHECK_INT(sol.value, docs[i].value);
    printf("kalah %dx%d%s: documented %+d, minimax %+d (%llu nodes), solver %+d\n", docs[i].m,
           docs[i].n, docs[i].ec ? " empty_capture" : "", docs[i].value, want, mm.nodes, sol.value);
    mc_search_free(s);
    mm_free(&mm);
  }
}

int main(void) {
  check_anchors();
  check_documented();
  for (int m = 1; m <= 3; m++) {
    for (int n = 1; n <= 3; n++) {
      for (int ec = 0; ec < 2; ec++) {
        mc_rules r = mk_rules(MC_KALAH, m, n);
        r.empty_capture = ec;
        check_variant(&r, 20000);
      }
      for (int gs = 0; gs < 3; gs++) {
        if (m == 3 && n == 3)
          continue; /* Too long for a plain minimax with repetition (docs/computer.md). */
        mc_rules r = mk_rules(MC_OWARE, m, n);
        r.grand_slam = (mc_grand_slam)gs;
        check_variant(&r, 20000);
      }
      for (int opt = 0; opt < 4; opt++) {
        mc_rules r = mk_rules(MC_CONGKAK, m, n);
        r.lap_capture = opt & 1;
        r.match = (opt & 2) != 0;
        check_variant(&r, 20000);
      }
    }
  }
  return check_exit("solve");
}
