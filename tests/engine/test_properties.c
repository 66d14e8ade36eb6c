/* Property tests over many random games of every game, option and board size (deterministic:
 * a fixed-seed xorshift generator). After every move:
 *   - the seeds are conserved (2mn) and the position passes mc_pos_check();
 *   - replaying the move's trace, step by step, on a copy of the position before the move gives
 *     the position after it (and every step is well formed: sowing never enters a skipped pit);
 *   - mc_pos_play() on the position before agrees with mc_game_play();
 *   - the position's text form round-trips;
 *   - now and then, an illegal move leaves the game unchanged, and a copy is independent.
 * At the end: the game ended within a bound, the result matches the stores, and the rules,
 * moves and record text forms round-trip to the same game.
 */
#include "util.h"

#define MAX_PLY 20000

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static int rnd(int n) {
  return (int)(rng() % (uint64_t)n);
}

/* What the tests can see of a game. */
typedef struct view {
  mc_pos pos;
  size_t ply;
  int over;
  mc_result result;
  char record[8192];
} view;

static void see(const mc_game *g, view *v) {
  memset(v, 0, sizeof *v);
  v->pos = *mc_game_pos(g);
  v->ply = mc_game_ply(g);
  v->over = mc_game_over(g, &v->result);
  mc_record_format(g, v->record, sizeof v->record);
}

static int same_view(const view *a, const view *b) {
  return memcmp(&a->pos, &b->pos, sizeof a->pos) == 0 && a->ply == b->ply && a->over == b->over &&
         memcmp(&a->result, &b->result, sizeof a->result) == 0 && strcmp(a->record, b->record) == 0;
}

static char where[256];

static void fail(const char *what) {
  check_failures++;
  fprintf(stderr, "%s: %s\n", where, what);
}

/* Applies the trace of a move by hand to a copy of the position before it and checks every step;
 * returns the rebuilt position. */
static mc_pos replay_trace(const mc_pos *before, const mc_rules *r, int house, const mc_trace *tr) {
  int pits[MC_MAX_PITS];
  int m = before->houses;
  int mover = before->turn;
  int own_store = mover ? 2 * m + 1 : m;
  int opp_store = mover ? m : 2 * m + 1;
  uint32_t burnt = before->burnt;
  int fresh = 0; /* A round ended and its refill and burn steps have not started yet. */
  mc_pos out = *before;
  for (int k = 0; k < MC_MAX_PITS; k++) {
    pits[k] = before->pits[k];
  }
  check_count++;
  if (tr->len == 0 || tr->steps[0].kind != MC_STEP_PICK ||
      tr->steps[0].pit != mover * (m + 1) + house - 1) {
    fail("the trace does not start with the pick of the house played");
    return out;
  }
  for (size_t i = 0; i < tr->len; i++) {
    const mc_step *s = &tr->steps[i];
    int k = s->pit, c = s->count;
    int bad = k >= 2 * m + 2;
    switch (s->kind) {
    case MC_STEP_PICK:
      bad = bad || i != 0 || pits[k] != c || c == 0;
      pits[k] = 0;
      break;
    case MC_STEP_SOW:
      bad = bad || c != 1 || k == opp_store || ((burnt >> k) & 1u);
      bad = bad || (r->kind == MC_OWARE && k == own_store);
      pits[k]++;
      break;
    case MC_STEP_RELAY:
      bad = bad || r->kind != MC_CONGKAK || pits[k] != c || c < 2 || k == m || k == 2 * m + 1;
      pits[k] = 0;
      break;
    case MC_STEP_CAPTURE:
    case MC_STEP_SWEEP:
      bad = bad || pits[k] != c || (s->store != m && s->store != 2 * m + 1);
      bad = bad || k == m || k == 2 * m + 1;
      if (!bad) {
        pits[s->store] += c;
        pits[k] = 0;
      }
      break;
    case MC_STEP_EXTRA_TURN:
      bad = bad || k != own_store;
      break;
    case MC_STEP_ROUND_END:
      bad = !r->match || c != before->round;
      /* Burning is decided afresh: when the match goes on, the steps after this one list every
       * burnt house of the next round (under the old MC_BURN_MATCH rule only the new ones). */
      fresh = r->burn == MC_BURN_ROUND;
      break;
    case MC_STEP_REFILL:
      if (fresh)
        burnt = 0, fresh = 0;
      bad = bad || !r->match || c != r->seeds || pits[k] != 0 || ((burnt >> k) & 1u) ||
            (s->store != m && s->store != 2 * m + 1) || pits[s->store] < c;
      if (!bad) {
        pits[s->store] -= c;
        pits[k] += c;
      }
      break;
    case MC_STEP_BURN:
      if (fresh)
        burnt = 0, fresh = 0;
      bad = bad || !r->match || pits[k] != 0 || k == m || k == 2 * m + 1 || ((burnt >> k) & 1u);
      burnt |= 1u << k;
      break;
    default:
      bad = 1;
      break;
    }
    check_count++;
    if (bad) {
      char msg[96];
      snprintf(msg, sizeof msg, "bad trace step %zu: %s pit %d count %d store %d", i,
               mc_step_name((mc_step_kind)s->kind) ? mc_step_name((mc_step_kind)s->kind) : "?", k,
               c, s->store);
      fail(msg);
      return out;
    }
  }
  for (int k = 0; k < MC_MAX_PITS; k++) {
    out.pits[k] = (uint8_t)pits[k];
  }
  out.burnt = burnt;
  return out;
}

static void check_pos_round_trip(const mc_pos *p) {
  char text[256];
  mc_pos back;
  mc_text_error err;
  int len = mc_pos_format(p, text, sizeof text);
  check_count++;
  if (len <= 0 || (size_t)len >= sizeof text || mc_pos_parse(text, &back, &err) != 0 ||
      memcmp(&back, p, sizeof back) != 0) {
    fail("position text does not round-trip");
    fprintf(stderr, "  text: %s\n", text);
  }
}

/* Plays one random game to its end with every check on the way. */
static void play_game(const mc_rules *r, int game_no) {
  static view before_view, after_view;
  static mc_trace tr;
  unsigned total = mc_rules_total(r);
  mc_game *g = mc_game_new(r);
  char rules_text[64];
  mc_rules_format(r, rules_text, sizeof rules_text);
  snprintf(where, sizeof where, "game %d (%s)", game_no, rules_text);
  check_count++;
  if (g == NULL) {
    fail("mc_game_new failed");
    return;
  }
  int m = r->houses;
  while (!mc_game_over(g, NULL)) {
    size_t ply = mc_game_ply(g);
    snprintf(where, sizeof where, "game %d (%s) ply %zu", game_no, rules_text, ply);
    if (ply >= MAX_PLY) {
      check_count++;
      fail("the game did not end");
      break;
    }
    mc_pos before = *mc_game_pos(g);
    uint8_t legal[MC_MAX_HOUSES], legal2[MC_MAX_HOUSES];
    int n = mc_game_legal(g, legal);
    int n2 = mc_pos_legal(&before, r, legal2);
    check_count++;
    if (n <= 0 || n != n2 || memcmp(legal, legal2, (size_t)n) != 0) {
      fail("a game in progress without legal moves, or mc_game_legal != mc_pos_legal");
      break;
    }
    CHECK_INT(mc_pos_check(&before, r), 0);

    /* An illegal or out-of-range house leaves the game unchanged. */
    if (rnd(4) == 0) {
      int house = rnd(m + 2);
      int is_legal = memchr(legal, house, (size_t)n) != NULL;
      if (!is_legal) {
        see(g, &before_view);
        tr.len = 99;
        int rc = mc_game_play(g, house, &tr);
        see(g, &after_view);
        check_count++;
        if (rc != (house < 1 || house > m ? MC_EINVAL : MC_EILLEGAL) || tr.len != 99 ||
            !same_view(&before_view, &after_view)) {
          fail("an illegal move changed the game or gave the wrong code");
        }
      }
    }

    /* A copy is independent: a move on it leaves the original unchanged, and vice versa. */
    if (rnd(16) == 0) {
      mc_game *c = mc_game_copy(g);
      see(g, &before_view);
      check_count++;
      if (c == NULL || mc_game_play(c, legal[rnd(n)], NULL) != 0) {
        fail("copy failed or could not play a legal move");
      }
      see(g, &after_view);
      CHECK(same_view(&before_view, &after_view));
      mc_game_free(c);
    }

    int house = legal[rnd(n)];
    tr.len = 0;
    int rc = mc_game_play(g, house, &tr);
    check_count++;
    if (rc != 0) {
      fail("a legal move failed");
      break;
    }
    mc_pos after = *mc_game_pos(g);
    mc_result res;
    int over = mc_game_over(g, &res);

    check_count++;
    if (mc_pos_total(&after) != total) {
      fail("seeds are not conserved");
    }
    mc_pos rebuilt = replay_trace(&before, r, house, &tr);
    check_count++;
    if (memcmp(rebuilt.pits, after.pits, sizeof after.pits) != 0 || rebuilt.burnt != after.burnt) {
      char a[256], b[256];
      show_pos(&rebuilt, 0, a, sizeof a);
      show_pos(&after, 0, b, sizeof b);
      fail("the trace does not rebuild the position");
      fprintf(stderr, "  trace gives %s\n  game has    %s\n", a, b);
    }

    /* The position layer agrees with the game layer (which adds repetition). */
    mc_pos p = before;
    mc_result pres;
    int prc = mc_pos_play(&p, r, house, NULL, &pres);
    if (over && res.reason == MC_REASON_REPETITION) {
      check_count++;
      if (prc != 0 || mc_pos_end_repetition(&p, r, NULL, &pres) != 0) {
        fail("mc_pos_play/end_repetition disagree with a repetition end");
      }
    } else {
      CHECK_INT(prc, over ? 1 : 0);
    }
    check_count++;
    if (memcmp(p.pits, after.pits, sizeof p.pits) != 0 || p.burnt != after.burnt ||
        (!over && memcmp(&p, &after, sizeof p) != 0)) {
      fail("mc_pos_play and mc_game_play give different positions");
    }
    if (over) {
      CHECK(memcmp(&pres, &res, sizeof res) == 0);
    }
    check_pos_round_trip(&after);
  }

  /* The end: the result matches the stores; the winner has more seeds. */
  mc_result res;
  const mc_pos *end = mc_game_pos(g);
  if (mc_game_over(g, &res)) {
    CHECK_INT(res.score[0], end->pits[m]);
    CHECK_INT(res.score[1], end->pits[2 * m + 1]);
    int want = res.score[0] > res.score[1]   ? MC_WIN_SOUTH
               : res.score[1] > res.score[0] ? MC_WIN_NORTH
                                             : MC_DRAW;
    CHECK_INT(res.winner, want);
    CHECK(res.reason >= MC_REASON_NO_SEEDS && res.reason <= MC_REASON_REPETITION);
    CHECK(res.reason != MC_REASON_REPETITION || r->kind == MC_OWARE);
    CHECK(res.reason != MC_REASON_MAJORITY || r->kind == MC_OWARE);
    CHECK(res.reason != MC_REASON_CANNOT_FEED || r->kind == MC_OWARE);
  }

  /* Text forms of the whole game round-trip. */
  static char record[65536], moves_text[65536];
  mc_rules back_rules;
  CHECK_INT(mc_rules_parse(rules_text, &back_rules, NULL), 0);
  CHECK(back_rules.kind == r->kind && back_rules.houses == r->houses &&
        back_rules.seeds == r->seeds && back_rules.empty_capture == r->empty_capture &&
        back_rules.grand_slam == r->grand_slam && back_rules.lap_capture == r->lap_capture &&
        back_rules.match == r->match && back_rules.burn == r->burn);
  size_t nmoves = 0;
  const uint8_t *moves = mc_game_moves(g, &nmoves);
  int len = mc_moves_format(moves, nmoves, moves_text, sizeof moves_text);
  CHECK(len >= 0 && (size_t)len < sizeof moves_text);
  static uint8_t parsed[MAX_PLY + 1];
  size_t nparsed = 0;
  CHECK_INT(mc_moves_parse(moves_text, parsed, MAX_PLY + 1, &nparsed, NULL), 0);
  CHECK(nparsed == nmoves && memcmp(parsed, moves, nmoves) == 0);
  len = mc_record_format(g, record, sizeof record);
  CHECK(len > 0 && (size_t)len < sizeof record);
  mc_game *back = NULL;
  mc_text_error err;
  check_count++;
  if (mc_record_parse(record, &back, &err) != 0 || back == NULL) {
    fail("the record does not parse back");
    fprintf(stderr, "  at %zu: %s\n", err.offset, err.message);
  } else {
    see(g, &before_view);
    see(back, &after_view);
    CHECK(same_view(&before_view, &after_view));
    mc_game_free(back);
  }
  mc_game_free(g);
}

int main(void) {
  int game_no = 0;
  /* Every game and option combination, every board size and seed count. */
  for (int kind = 0; kind < 3; kind++) {
    int variants = kind == MC_KALAH ? 2 : kind == MC_OWARE ? 3 : 5;
    for (int v = 0; v < variants; v++) {
      for (int m = 1; m <= 9; m++) {
        for (int n = 1; n <= 12; n++) {
          mc_rules r = mk_rules((mc_kind)kind, m, n);
          if (kind == MC_KALAH) {
            r.empty_capture = v == 1;
          } else if (kind == MC_OWARE) {
            r.grand_slam = (mc_grand_slam)v;
          } else {
            /* v = 4: a match under the old burn rule of stored games. */
            r.lap_capture = (v & 1) != 0;
            r.match = (v & 2) != 0 || v == 4;
            r.burn = v == 4 ? MC_BURN_MATCH : MC_BURN_ROUND;
          }
          play_game(&r, game_no++);
        }
      }
    }
  }
  /* The default boards, many times. */
  for (int i = 0; i < 240; i++) {
    mc_rules r;
    mc_rules_init(&r, (mc_kind)(i % 3));
    if (i % 3 == MC_CONGKAK) {
      r.match = (i / 3) % 2 == 0;
    }
    play_game(&r, game_no++);
  }
  printf("%d games\n", game_no);
  return check_exit("properties");
}
