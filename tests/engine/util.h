/* Helpers shared by the engine tests: positions written as text and parsed HERE (not by the
 * engine, so a parser bug cannot hide a rules bug), position comparison and trace comparison.
 *
 * Position text is the rule book order, stores in parentheses, burnt houses as "x", then the side
 * to move and optionally "round R first SEAT", e.g. "4 4 4 (0) x 4 4 (0) north round 2 first
 * north". The number of houses follows from the number of pits.
 */
#ifndef ENGINE_TEST_UTIL_H
#define ENGINE_TEST_UTIL_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mc_error.h"
#include "mc_game.h"
#include "mc_perft.h"
#include "mc_pos.h"
#include "mc_rules.h"
#include "mc_text.h"

/* Builds rules of kind with m houses and n seeds, every option off. */
static inline mc_rules mk_rules(mc_kind kind, int m, int n) {
  mc_rules r;
  memset(&r, 0, sizeof r);
  r.kind = kind;
  r.houses = (uint8_t)m;
  r.seeds = (uint8_t)n;
  r.grand_slam = MC_GS_NO_CAPTURE;
  return r;
}

/* Parses the test text form described above; aborts on a typo in a test. */
static inline mc_pos mk_pos(const char *text) {
  mc_pos p;
  int vals[MC_MAX_PITS + 1];
  int burnt[MC_MAX_PITS + 1];
  int count = 0;
  const char *s = text;
  memset(&p, 0, sizeof p);
  p.round = 1;
  for (;;) {
    while (*s == ' ' || *s == '(' || *s == ')') {
      s++;
    }
    if (*s == 'x') {
      burnt[count] = 1;
      vals[count++] = 0;
      s++;
    } else if (isdigit((unsigned char)*s)) {
      burnt[count] = 0;
      vals[count++] = (int)strtol(s, (char **)&s, 10);
    } else {
      break;
    }
    if (count > MC_MAX_PITS) {
      fprintf(stderr, "mk_pos: too many pits in \"%s\"\n", text);
      abort();
    }
  }
  if (count < 4 || count % 2 != 0) {
    fprintf(stderr, "mk_pos: bad pit count in \"%s\"\n", text);
    abort();
  }
  p.houses = (uint8_t)(count / 2 - 1);
  for (int k = 0; k < count; k++) {
    p.pits[k] = (uint8_t)vals[k];
    if (burnt[k]) {
      p.burnt |= 1u << k;
    }
  }
  if (strncmp(s, "south", 5) == 0) {
    p.turn = MC_SOUTH;
  } else if (strncmp(s, "north", 5) == 0) {
    p.turn = MC_NORTH;
  } else if (*s == '\0') {
    return p; /* No side: for CHECK_PITS, which ignores it. */
  } else {
    fprintf(stderr, "mk_pos: no side in \"%s\"\n", text);
    abort();
  }
  s += 5;
  if (strncmp(s, " round ", 7) == 0) {
    char seat[8] = "";
    int round = 0;
    if (sscanf(s, " round %d first %7s", &round, seat) != 2) {
      fprintf(stderr, "mk_pos: bad round in \"%s\"\n", text);
      abort();
    }
    p.round = (uint8_t)round;
    p.first = strcmp(seat, "north") == 0 ? MC_NORTH : MC_SOUTH;
  }
  return p;
}

/* Writes p in the test text form (with the side to move when with_turn). */
static inline void show_pos(const mc_pos *p, int with_turn, char *buf, size_t size) {
  size_t len = 0;
  int pits = 2 * p->houses + 2;
  buf[0] = '\0';
  for (int k = 0; k < pits && k < MC_MAX_PITS; k++) {
    int store = k == p->houses || k == 2 * p->houses + 1;
    char cell[16];
    if ((p->burnt >> k) & 1u) {
      snprintf(cell, sizeof cell, "x");
    } else {
      snprintf(cell, sizeof cell, store ? "(%d)" : "%d", p->pits[k]);
    }
    len += (size_t)snprintf(buf + len, size - len, "%s%s", k ? " " : "", cell);
  }
  if (with_turn) {
    len += (size_t)snprintf(buf + len, size - len, " %s", p->turn ? "north" : "south");
    if (p->round != 1 || p->first != MC_SOUTH) {
      snprintf(buf + len, size - len, " round %d first %s", p->round, p->first ? "north" : "south");
    }
  }
}

/* Compares every meaningful field of a position with the expected text. With with_turn false
 * (a finished game, whose turn is meaningless) only houses, pits and burnt houses count. */
static inline void check_pos_at(const char *file, int line, const mc_pos *actual,
                                const char *expected, int with_turn) {
  mc_pos e = mk_pos(expected);
  int same = actual->houses == e.houses && actual->burnt == e.burnt &&
             memcmp(actual->pits, e.pits, sizeof e.pits) == 0;
  if (with_turn) {
    same = same && actual->turn == e.turn && actual->round == e.round && actual->first == e.first;
  }
  check_count++;
  if (!same) {
    char a[256], b[256];
    show_pos(actual, with_turn, a, sizeof a);
    show_pos(&e, with_turn, b, sizeof b);
    check_failures++;
    fprintf(stderr, "%s:%d: position is \"%s\", expected \"%s\"\n", file, line, a, b);
  }
}

#define CHECK_POS(actual, expected) check_pos_at(__FILE__, __LINE__, (actual), (expected), 1)
#define CHECK_PITS(actual, expected) check_pos_at(__FILE__, __LINE__, (actual), (expected), 0)

/* Checks a result: winner, reason and both scores. */
static inline void check_result_at(const char *file, int line, const mc_result *r, mc_winner winner,
                                   mc_reason reason, int south, int north) {
  check_count++;
  if (r->winner != winner || r->reason != reason || r->score[0] != south || r->score[1] != north) {
    check_failures++;
    fprintf(stderr, "%s:%d: result is %d/%d %d-%d, expected %d/%d %d-%d (winner/reason)\n", file,
            line, (int)r->winner, (int)r->reason, r->score[0], r->score[1], (int)winner,
            (int)reason, south, north);
  }
}

#define CHECK_RESULT(r, winner, reason, s, n)                                                      \
  check_result_at(__FILE__, __LINE__, (r), (winner), (reason), (s), (n))

/* Trace text: one token per step, separated by single spaces:
 *   pick<pit>:<count> sow<pit> relay<pit>:<count> cap<pit>:<count>><store>
 *   sweep<pit>:<count>><store> extra<pit> end<round> refill<pit>:<count><<store> burn<pit>
 * Canonical form (what CHECK_TRACE compares), for the details the headers leave open:
 *   - a run of consecutive sweeps is sorted by pit and sweeps of 0 seeds are dropped;
 *   - with unordered_captures, a run of consecutive captures is sorted by pit (Kalah and Congkak
 *     take "the last seed and the facing seeds" in one breath; Oware's chain order is checked);
 *   - there is no extra turn step when the move ends the game or the round (mc_pos.h): the mover
 *     never moves again, so it is compared like every other step;
 *   - after a round end, the refill and burn steps are checked to go, on each side, from the house
 *     next to the store away (Congkak 7), then put in a canonical order (South then North).
 */
typedef struct tok {
  char text[32];
  int kind;
  int pit;
} tok;

static inline int tok_cmp_pit(const void *a, const void *b) {
  const tok *x = a, *y = b;
  return (x->pit > y->pit) - (x->pit < y->pit);
}

/* Orders refills and burns: South side first, then from the store away (higher pit first). */
static inline int tok_cmp_refill(const void *a, const void *b) {
  const tok *x = a, *y = b;
  int sx = x->kind >> 8, sy = y->kind >> 8;
  if (sx != sy) {
    return sx - sy;
  }
  return (x->pit < y->pit) - (x->pit > y->pit);
}

/* Writes the canonical trace text of tr into buf; returns 0, or -1 when the refill order after a
 * round end breaks Congkak 7 (from house m away on each side). */
static inline int trace_text(const mc_trace *tr, int houses, int unordered_captures, char *buf,
                             size_t size) {
  static tok toks[MC_TRACE_MAX];
  size_t n = 0;
  int status = 0;
  for (size_t i = 0; i < tr->len && i < MC_TRACE_MAX; i++) {
    const mc_step *s = &tr->steps[i];
    tok *t = &toks[n];
    t->kind = s->kind;
    t->pit = s->pit;
    switch (s->kind) {
    case MC_STEP_PICK:
      snprintf(t->text, sizeof t->text, "pick%d:%d", s->pit, s->count);
      break;
    case MC_STEP_SOW:
      snprintf(t->text, sizeof t->text, "sow%d", s->pit);
      break;
    case MC_STEP_RELAY:
      snprintf(t->text, sizeof t->text, "relay%d:%d", s->pit, s->count);
      break;
    case MC_STEP_CAPTURE:
      snprintf(t->text, sizeof t->text, "cap%d:%d>%d", s->pit, s->count, s->store);
      break;
    case MC_STEP_SWEEP:
      if (s->count == 0) {
        continue;
      }
      snprintf(t->text, sizeof t->text, "sweep%d:%d>%d", s->pit, s->count, s->store);
      break;
    case MC_STEP_EXTRA_TURN:
      snprintf(t->text, sizeof t->text, "extra%d", s->pit);
      break;
    case MC_STEP_ROUND_END:
      snprintf(t->text, sizeof t->text, "end%d", s->count);
      break;
    case MC_STEP_REFILL:
      snprintf(t->text, sizeof t->text, "refill%d:%d<%d", s->pit, s->count, s->store);
      t->kind |= (s->pit > houses) << 8;
      break;
    case MC_STEP_BURN:
      snprintf(t->text, sizeof t->text, "burn%d", s->pit);
      t->kind |= (s->pit > houses) << 8;
      break;
    default:
      snprintf(t->text, sizeof t->text, "step%d?", s->kind);
      break;
    }
    n++;
  }
  /* Sort runs. */
  for (size_t i = 0; i < n;) {
    size_t j = i;
    int kind = toks[i].kind;
    if (kind == MC_STEP_SWEEP || (kind == MC_STEP_CAPTURE && unordered_captures)) {
      while (j < n && toks[j].kind == kind) {
        j++;
      }
      qsort(&toks[i], j - i, sizeof toks[0], tok_cmp_pit);
      i = j;
    } else if ((kind & 0xff) == MC_STEP_REFILL || (kind & 0xff) == MC_STEP_BURN) {
      int last[2] = {1000, 1000};
      while (j < n &&
             ((toks[j].kind & 0xff) == MC_STEP_REFILL || (toks[j].kind & 0xff) == MC_STEP_BURN)) {
        int side = toks[j].kind >> 8;
        if (toks[j].pit >= last[side]) {
          status = -1;
        }
        last[side] = toks[j].pit;
        j++;
      }
      qsort(&toks[i], j - i, sizeof toks[0], tok_cmp_refill);
      i = j;
    } else {
      i++;
    }
  }
  size_t len = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < n && len < size; i++) {
    len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", toks[i].text);
  }
  return status;
}

static inline void check_trace_at(const char *file, int line, const mc_trace *tr, int houses,
                                  int unordered_captures, const char *expected) {
  static char text[65536];
  int status = trace_text(tr, houses, unordered_captures, text, sizeof text);
  check_count++;
  if (strcmp(text, expected) != 0) {
    check_failures++;
    fprintf(stderr, "%s:%d: trace is\n  \"%s\", expected\n  \"%s\"\n", file, line, text, expected);
  }
  check_count++;
  if (status != 0) {
    check_failures++;
    fprintf(stderr, "%s:%d: refills or burns not in order from house m away (Congkak 7)\n", file,
            line);
  }
}

/* Kalah and Congkak traces: the two capture steps of one capture may come in either order. */
#define CHECK_TRACE(tr, houses, expected)                                                          \
  check_trace_at(__FILE__, __LINE__, (tr), (houses), 1, (expected))
/* Oware traces: captures in chain order, from the last pit backwards (Oware 3). */
#define CHECK_TRACE_EXACT(tr, houses, expected)                                                    \
  check_trace_at(__FILE__, __LINE__, (tr), (houses), 0, (expected))

/* One trace buffer for a whole test program (about 50 KiB). */
static inline mc_trace *the_trace(void) {
  static mc_trace trace;
  return &trace;
}

/* Plays house on a copy of the position `before` under rules; checks the return code; leaves the
 * result in *out_pos and *out_res and the steps in the_trace(). */
static inline int play_at(const char *file, int line, const mc_rules *rules, const char *before,
                          int house, int expect_rc, mc_pos *out_pos, mc_result *out_res) {
  mc_pos p = mk_pos(before);
  mc_result res;
  memset(&res, 0xee, sizeof res);
  the_trace()->len = 0;
  int rc = mc_pos_play(&p, rules, house, the_trace(), &res);
  check_count++;
  if (rc != expect_rc) {
    check_failures++;
    fprintf(stderr, "%s:%d: mc_pos_play(\"%s\", %d) returned %d, expected %d\n", file, line, before,
            house, rc, expect_rc);
  }
  *out_pos = p;
  *out_res = res;
  return rc;
}

#define PLAY(rules, before, house, rc, pos, res)                                                   \
  play_at(__FILE__, __LINE__, (rules), (before), (house), (rc), (pos), (res))

/* Checks the legal moves of a position: expected is a string of house digits, e.g. "1356". */
static inline void check_legal_at(const char *file, int line, const mc_rules *rules,
                                  const char *pos_text, const char *expected) {
  mc_pos p = mk_pos(pos_text);
  uint8_t moves[MC_MAX_HOUSES];
  char got[MC_MAX_HOUSES + 1] = "";
  int n = mc_pos_legal(&p, rules, moves);
  for (int i = 0; i < n && i < MC_MAX_HOUSES; i++) {
    got[i] = (char)('0' + moves[i]);
    got[i + 1] = '\0';
  }
  check_count++;
  if (n < 0 || strcmp(got, expected) != 0) {
    check_failures++;
    fprintf(stderr, "%s:%d: legal moves of \"%s\" are \"%s\" (rc %d), expected \"%s\"\n", file,
            line, pos_text, got, n, expected);
  }
  /* mc_pos_is_legal must agree, house by house. */
  for (int h = 1; h <= p.houses; h++) {
    int want = strchr(expected, '0' + h) != NULL;
    check_count++;
    if ((mc_pos_is_legal(&p, rules, h) != 0) != want) {
      check_failures++;
      fprintf(stderr, "%s:%d: mc_pos_is_legal(\"%s\", %d) disagrees with \"%s\"\n", file, line,
              pos_text, h, expected);
    }
  }
}

#define CHECK_LEGAL(rules, pos, expected)                                                          \
  check_legal_at(__FILE__, __LINE__, (rules), (pos), (expected))

#endif
