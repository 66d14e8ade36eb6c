/* Fuzz target: the rules engine (common/), every API a caller has.
 *
 * Input: the rules (game, board, options) from the first bytes, then either a game driven by the
 * rest (each byte a move among the legal ones, an arbitrary house, a take-back, a copy or an end
 * from outside the board) or, for a quarter of the inputs, the rest as text for every parser.
 *
 * Invariants checked after every move (the rule book's and mc_*.h's promises):
 *   - the seeds are conserved and the position passes mc_pos_check();
 *   - every legal move plays; an illegal or out-of-range house is refused with the right code and
 *     changes nothing; mc_game_legal() agrees with mc_pos_legal();
 *   - the trace rebuilds the position after the move from the one before (docs/protocol.md);
 *   - mc_pos_play() agrees with mc_game_play();
 *   - mc_game_undo() gives back exactly the game before the move; a copy is independent;
 *   - text forms round-trip: rules, position, moves, record (parse(format(x)) == x), and a text
 *     that parses formats back to a text that parses to the same value.
 */
#include "fuzz.h"

#include "mc_error.h"
#include "mc_game.h"
#include "mc_perft.h"
#include "mc_text.h"

#define RECORD_MAX 32768

typedef struct view {
  mc_pos pos;
  size_t ply;
  int over;
  mc_result result;
  char record[RECORD_MAX];
} view;

static void see(const mc_game *g, view *v) {
  memset(v, 0, sizeof *v);
  v->pos = *mc_game_pos(g);
  v->ply = mc_game_ply(g);
  v->over = mc_game_over(g, &v->result);
  int len = mc_record_format(g, v->record, sizeof v->record);
  FZ_CHECK(len > 0 && (size_t)len < sizeof v->record);
}

static int same_view(const view *a, const view *b) {
  return memcmp(&a->pos, &b->pos, sizeof a->pos) == 0 && a->ply == b->ply && a->over == b->over &&
         memcmp(&a->result, &b->result, sizeof a->result) == 0 && strcmp(a->record, b->record) == 0;
}

static int same_rules(const mc_rules *a, const mc_rules *b) {
  return a->kind == b->kind && a->houses == b->houses && a->seeds == b->seeds &&
         a->empty_capture == b->empty_capture && a->grand_slam == b->grand_slam &&
         a->lap_capture == b->lap_capture && a->match == b->match && a->burn == b->burn;
}

/* Rebuilds the position after a move from the one before and the move's trace, checking every
 * step's shape (the same reading a client makes, docs/protocol.md "The trace"). */
static void check_trace(const mc_pos *before, const mc_pos *after, const mc_rules *r, int house,
                        const mc_trace *tr) {
  int pits[MC_MAX_PITS];
  int m = before->houses, mover = before->turn;
  int own = mover ? 2 * m + 1 : m, opp = mover ? m : 2 * m + 1;
  uint32_t burnt = before->burnt;
  int fresh = 0;
  for (int k = 0; k < MC_MAX_PITS; k++)
    pits[k] = before->pits[k];
  FZ_CHECK(tr->len > 0 && tr->steps[0].kind == MC_STEP_PICK &&
           tr->steps[0].pit == mover * (m + 1) + house - 1);
  for (size_t i = 0; i < tr->len; i++) {
    const mc_step *s = &tr->steps[i];
    int k = s->pit, c = s->count;
    FZ_CHECK(k < 2 * m + 2);
    switch (s->kind) {
    case MC_STEP_PICK:
      FZ_CHECK(i == 0 && pits[k] == c && c > 0);
      pits[k] = 0;
      break;
    case MC_STEP_SOW:
      FZ_CHECK(c == 1 && k != opp && !((burnt >> k) & 1u));
      FZ_CHECK(!(r->kind == MC_OWARE && k == own));
      pits[k]++;
      break;
    case MC_STEP_RELAY:
      FZ_CHECK(r->kind == MC_CONGKAK && pits[k] == c && c >= 2 && k != m && k != 2 * m + 1);
      pits[k] = 0;
      break;
    case MC_STEP_CAPTURE:
    case MC_STEP_SWEEP:
      FZ_CHECK(pits[k] == c && (s->store == m || s->store == 2 * m + 1) && k != m &&
               k != 2 * m + 1);
      pits[s->store] += c;
      pits[k] = 0;
      break;
    case MC_STEP_EXTRA_TURN:
      FZ_CHECK(k == own);
      break;
    case MC_STEP_ROUND_END:
      FZ_CHECK(r->match && c == before->round);
      fresh = r->burn == MC_BURN_ROUND;
      break;
    case MC_STEP_REFILL:
      if (fresh)
        burnt = 0, fresh = 0;
      FZ_CHECK(r->match && c == r->seeds && pits[k] == 0 && !((burnt >> k) & 1u) &&
               (s->store == m || s->store == 2 * m + 1) && pits[s->store] >= c);
      pits[s->store] -= c;
      pits[k] += c;
      break;
    case MC_STEP_BURN:
      if (fresh)
        burnt = 0, fresh = 0;
      FZ_CHECK(r->match && pits[k] == 0 && k != m && k != 2 * m + 1 && !((burnt >> k) & 1u));
      burnt |= 1u << k;
      break;
    default:
      FZ_CHECK(!"a step of no known kind");
    }
  }
  for (int k = 0; k < MC_MAX_PITS; k++)
    FZ_CHECK(pits[k] == after->pits[k]);
  FZ_CHECK(burnt == after->burnt);
}

static void check_pos_text(const mc_pos *p) {
  char text[256];
  mc_pos back;
  int len = mc_pos_format(p, text, sizeof text);
  FZ_CHECK(len > 0 && (size_t)len < sizeof text);
  FZ_CHECK(mc_pos_parse(text, &back, NULL) == 0);
  FZ_CHECK(memcmp(&back, p, sizeof back) == 0);
}

/* The rules of the first bytes: always valid ones (every option of the game drawn). */
static void rules_from(fz_in *in, mc_rules *r) {
  uint8_t a = fz_u8(in), b = fz_u8(in), opts = fz_u8(in);
  FZ_CHECK(mc_rules_init(r, (mc_kind)(a % 3)) == 0);
  r->houses = (uint8_t)(MC_MIN_HOUSES + (b & 15) % MC_MAX_HOUSES);
  r->seeds = (uint8_t)(MC_MIN_SEEDS + (b >> 4) % MC_MAX_SEEDS);
  if (r->kind == MC_KALAH)
    r->empty_capture = opts & 1;
  if (r->kind == MC_OWARE)
    r->grand_slam = (mc_grand_slam)(opts % 3);
  if (r->kind == MC_CONGKAK) {
    r->lap_capture = opts & 1;
    r->match = (opts >> 1) & 1;
    r->burn = r->match && ((opts >> 2) & 1) ? MC_BURN_MATCH : MC_BURN_ROUND;
  }
  FZ_CHECK(mc_rules_check(r) == 0);
  char text[64];
  mc_rules back;
  int len = mc_rules_format(r, text, sizeof text);
  FZ_CHECK(len > 0 && (size_t)len < sizeof text);
  FZ_CHECK(mc_rules_parse(text, &back, NULL) == 0 && same_rules(&back, r));
}

/* One legal move with every check. */
static void play_checked(mc_game *g, const mc_rules *r, int house, mc_trace *tr) {
  mc_pos before = *mc_game_pos(g);
  tr->len = 0;
  FZ_CHECK(mc_game_play(g, house, tr) == 0);
  const mc_pos *after = mc_game_pos(g);
  mc_result res;
  int over = mc_game_over(g, &res);
  FZ_CHECK(mc_pos_total(after) == mc_rules_total(r));
  check_trace(&before, after, r, house, tr);
  mc_pos p = before;
  mc_result pres;
  int prc = mc_pos_play(&p, r, house, NULL, &pres);
  if (over && res.reason == MC_REASON_REPETITION) {
    FZ_CHECK(prc == 0 && mc_pos_end_repetition(&p, r, NULL, &pres) == 0);
  } else {
    FZ_CHECK(prc == (over ? 1 : 0));
  }
  FZ_CHECK(memcmp(p.pits, after->pits, sizeof p.pits) == 0 && p.burnt == after->burnt);
  if (!over) {
    FZ_CHECK(memcmp(&p, after, sizeof p) == 0);
    FZ_CHECK(mc_pos_check(after, r) == 0);
  } else {
    FZ_CHECK(memcmp(&pres, &res, sizeof res) == 0);
  }
  check_pos_text(after);
}

static void check_end(const mc_game *g, const mc_rules *r) {
  mc_result res;
  if (!mc_game_over(g, &res))
    return;
  const mc_pos *end = mc_game_pos(g);
  int m = r->houses;
  FZ_CHECK(res.score[0] == end->pits[m] && res.score[1] == end->pits[2 * m + 1]);
  if (res.reason >= MC_REASON_NO_SEEDS && res.reason <= MC_REASON_REPETITION) {
    int want = res.score[0] > res.score[1]   ? MC_WIN_SOUTH
               : res.score[1] > res.score[0] ? MC_WIN_NORTH
                                             : MC_DRAW;
    FZ_CHECK((int)res.winner == want);
  }
  uint8_t legal[MC_MAX_HOUSES];
  FZ_CHECK(mc_game_legal(g, legal) == 0);
}

/* The whole game's text forms round-trip (a game ended from outside the board replays to its
 * position, not its result: the record holds moves only). */
static void check_game_text(const mc_game *g, const mc_rules *r) {
  static char record[RECORD_MAX], moves_text[RECORD_MAX];
  static uint8_t parsed[RECORD_MAX];
  static view a, b;
  size_t n = 0, np = 0;
  const uint8_t *moves = mc_game_moves(g, &n);
  int len = mc_moves_format(moves, n, moves_text, sizeof moves_text);
  FZ_CHECK(len >= 0 && (size_t)len < sizeof moves_text);
  FZ_CHECK(mc_moves_parse(moves_text, parsed, sizeof parsed, &np, NULL) == 0);
  FZ_CHECK(np == n && memcmp(parsed, moves, n) == 0);
  len = mc_record_format(g, record, sizeof record);
  FZ_CHECK(len > 0 && (size_t)len < sizeof record);
  mc_game *back = NULL, *replayed = NULL;
  FZ_CHECK(mc_record_parse(record, &back, NULL) == 0 && back != NULL);
  FZ_CHECK(mc_moves_replay(r, moves_text, &replayed, NULL) == 0 && replayed != NULL);
  see(back, &a);
  see(replayed, &b);
  FZ_CHECK(same_view(&a, &b));
  FZ_CHECK(same_rules(mc_game_rules(back), r));
  mc_result res;
  if (!mc_game_over(g, &res) || res.reason <= MC_REASON_REPETITION) {
    see(g, &b);
    FZ_CHECK(same_view(&a, &b));
  }
  mc_game_free(back);
  mc_game_free(replayed);
}

/* A game replayed from g's moves alone, never undone: what g must equal (repetition history
 * included, which decides when games end), and g's end from outside the board if any. */
static mc_game *rebuild(const mc_game *g, const mc_rules *r) {
  mc_game *s = mc_game_new(r);
  size_t n = 0;
  const uint8_t *moves = mc_game_moves(g, &n);
  FZ_CHECK(s != NULL);
  for (size_t i = 0; i < n; i++)
    FZ_CHECK(mc_game_play(s, moves[i], NULL) == 0);
  return s;
}

static void fuzz_game(fz_in *in, const mc_rules *r) {
  static mc_trace tr;
  static view v1, v2;
  mc_game *g = mc_game_new(r);
  FZ_CHECK(g != NULL);
  check_pos_text(mc_game_pos(g));
  int m = r->houses;
  mc_game *shadow = mc_game_new(r);
  FZ_CHECK(shadow != NULL);
  bool can_undo = false;
  view undo_view;
  memset(&undo_view, 0, sizeof undo_view);
  while (in->n > 0) {
    uint8_t op = fz_u8(in), arg = op >> 3;
    uint8_t legal[MC_MAX_HOUSES], legal2[MC_MAX_HOUSES];
    int n = mc_game_legal(g, legal);
    bool over = mc_game_over(g, NULL);
    if (!over) {
      int n2 = mc_pos_legal(mc_game_pos(g), r, legal2);
      FZ_CHECK(n > 0 && n == n2 && memcmp(legal, legal2, (size_t)n) == 0);
      for (int i = 0; i < n; i++)
        FZ_CHECK(mc_pos_is_legal(mc_game_pos(g), r, legal[i]));
    }
    switch (op & 7) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4: /* A legal move. */
      if (over)
        break;
      see(g, &v1);
      play_checked(g, r, legal[arg % n], &tr);
      FZ_CHECK(mc_game_play(shadow, legal[arg % n], NULL) == 0);
      undo_view = v1;
      can_undo = true;
      break;
    case 5: { /* Any house: a legal one plays, anything else changes nothing. */
      int house = arg % (m + 3) - 1;
      bool is_legal = !over && house >= 1 && house <= m && memchr(legal, house, (size_t)n);
      if (is_legal) {
        see(g, &v1);
        play_checked(g, r, house, &tr);
        FZ_CHECK(mc_game_play(shadow, house, NULL) == 0);
        undo_view = v1;
        can_undo = true;
        break;
      }
      see(g, &v1);
      tr.len = 77;
      int rc = mc_game_play(g, house, &tr);
      see(g, &v2);
      FZ_CHECK(rc == (over ? MC_EOVER : house < 1 || house > m ? MC_EINVAL : MC_EILLEGAL));
      FZ_CHECK(tr.len == 77 && same_view(&v1, &v2));
      break;
    }
    case 6: /* Take back: exactly the game before the last move, once. */
      see(g, &v1);
      if (can_undo) {
        FZ_CHECK(mc_game_undo(g) == 0);
        see(g, &v2);
        FZ_CHECK(same_view(&undo_view, &v2));
        can_undo = false;
        mc_game_free(shadow);
        shadow = rebuild(g, r);
      } else {
        FZ_CHECK(mc_game_undo(g) == MC_EINVAL);
        see(g, &v2);
        FZ_CHECK(same_view(&v1, &v2));
      }
      break;
    case 7:
      if (arg < 24) { /* A copy is equal and independent. */
        mc_game *c = mc_game_copy(g);
        FZ_CHECK(c != NULL);
        see(g, &v1);
        see(c, &v2);
        FZ_CHECK(same_view(&v1, &v2));
        if (!over)
          FZ_CHECK(mc_game_play(c, legal[arg % n], NULL) == 0);
        see(g, &v2);
        FZ_CHECK(same_view(&v1, &v2));
        FZ_CHECK(mc_game_undo(c) == (over ? MC_EINVAL : 0));
        mc_game_free(c);
      } else { /* An end from outside the board. */
        mc_reason reason = (mc_reason)(MC_REASON_RESIGNATION + arg % 4);
        mc_winner winner = (mc_winner)((arg >> 2) % 3);
        int rc = mc_game_finish(g, reason, winner);
        bool draw_ok = reason == MC_REASON_AGREEMENT ? winner == MC_DRAW : winner != MC_DRAW;
        if (over) {
          FZ_CHECK(rc == MC_EOVER || rc == MC_EINVAL);
        } else if (rc == 0) {
          FZ_CHECK(mc_game_finish(shadow, reason, winner) == 0);
          mc_result res;
          FZ_CHECK(mc_game_over(g, &res) && res.reason == reason && res.winner == winner);
          FZ_CHECK(mc_game_play(g, 1, NULL) == MC_EOVER);
        } else {
          FZ_CHECK(rc == MC_EINVAL && !draw_ok);
        }
        if (rc == 0)
          can_undo = false;
      }
      break;
    }
    check_end(g, r);
    see(g, &v1);
    see(shadow, &v2);
    FZ_CHECK(same_view(&v1, &v2));
  }
  check_game_text(g, r);
  mc_game_free(shadow);
  mc_game_free(g);
}

/* Text of any shape for every parser; whatever parses must format back to a text that parses
 * to the same value. */
static void fuzz_text(fz_in *in, const mc_rules *r) {
  static char text[8192], out[RECORD_MAX];
  static uint8_t moves[RECORD_MAX], moves2[RECORD_MAX];
  const uint8_t *bytes;
  size_t len = fz_bytes(in, sizeof text - 1, &bytes);
  memcpy(text, bytes, len);
  text[len] = '\0';
  mc_text_error err;

  mc_rules pr;
  if (mc_rules_parse(text, &pr, &err) == 0) {
    FZ_CHECK(mc_rules_check(&pr) == 0);
    int n = mc_rules_format(&pr, out, sizeof out);
    mc_rules back;
    FZ_CHECK(n > 0 && (size_t)n < sizeof out && mc_rules_parse(out, &back, NULL) == 0);
    FZ_CHECK(same_rules(&pr, &back));
  } else {
    FZ_CHECK(err.offset <= len && memchr(err.message, '\0', sizeof err.message));
  }
  mc_pos pos;
  if (mc_pos_parse(text, &pos, &err) == 0) {
    check_pos_text(&pos);
    /* A parsed position is one mc_pos_check() may still refuse for given rules, never a crash. */
    uint8_t legal[MC_MAX_HOUSES];
    if (mc_pos_check(&pos, r) == 0) {
      int n = mc_pos_legal(&pos, r, legal);
      FZ_CHECK(n >= 0);
      for (int i = 0; i < n; i++) {
        mc_pos p = pos;
        static mc_trace tr;
        mc_result res;
        int rc = mc_pos_play(&p, r, legal[i], &tr, &res);
        FZ_CHECK(rc == 0 || rc == 1 || rc == MC_ELIMIT);
        if (rc >= 0)
          FZ_CHECK(mc_pos_total(&p) == mc_pos_total(&pos));
      }
    } else {
      FZ_CHECK(mc_pos_legal(&pos, r, legal) == MC_EINVAL);
    }
  }
  size_t n = 0;
  if (mc_moves_parse(text, moves, sizeof moves, &n, &err) == 0) {
    int k = mc_moves_format(moves, n, out, sizeof out);
    size_t n2 = 0;
    FZ_CHECK(k >= 0 && (size_t)k < sizeof out);
    FZ_CHECK(mc_moves_parse(out, moves2, sizeof moves2, &n2, NULL) == 0);
    FZ_CHECK(n2 == n && memcmp(moves, moves2, n) == 0);
  }
  mc_game *g = NULL;
  if (mc_moves_replay(r, text, &g, &err) == 0) {
    FZ_CHECK(g != NULL && same_rules(mc_game_rules(g), r));
    check_game_text(g, r);
    mc_game_free(g);
  } else {
    FZ_CHECK(g == NULL);
  }
  if (mc_record_parse(text, &g, &err) == 0) {
    FZ_CHECK(g != NULL);
    check_game_text(g, mc_game_rules(g));
    mc_game_free(g);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_in in = {data, size};
  uint8_t mode = fz_u8(&in);
  mc_rules r;
  rules_from(&in, &r);
  if (mode % 4 == 3) {
    fuzz_text(&in, &r);
  } else {
    fuzz_game(&in, &r);
    if (mode == 0) {
      /* Perft's first two depths against counting through the game API. */
      uint64_t counts[2] = {0, 0}, ends[2] = {0, 0}, want2 = 0, ends2 = 0;
      FZ_CHECK(mc_perft(&r, 2, counts, ends) == 0);
      mc_game *g = mc_game_new(&r);
      uint8_t legal[MC_MAX_HOUSES], legal2[MC_MAX_HOUSES];
      int n = mc_game_legal(g, legal);
      FZ_CHECK(counts[0] == (uint64_t)n);
      for (int i = 0; i < n; i++) {
        mc_game *c = mc_game_copy(g);
        FZ_CHECK(c != NULL && mc_game_play(c, legal[i], NULL) == 0);
        int n2 = mc_game_legal(c, legal2);
        for (int j = 0; j < n2; j++) {
          mc_game *d = mc_game_copy(c);
          FZ_CHECK(d != NULL && mc_game_play(d, legal2[j], NULL) == 0);
          ends2 += mc_game_over(d, NULL);
          mc_game_free(d);
        }
        want2 += (uint64_t)n2;
        mc_game_free(c);
      }
      mc_game_free(g);
      FZ_CHECK(counts[1] == want2 && ends[1] == ends2);
    }
  }
  return 0;
}
