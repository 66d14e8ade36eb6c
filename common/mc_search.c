/* Search: iterative deepening over a principal variation search with a transposition table.
 *
 * A node's value is for its side to move. Values are kept in the table relative to the store
 * difference, so that Kalah, whose future depends on the houses alone, shares entries between
 * positions that differ only in their stores (its key leaves the stores out).
 *
 * Proofs. Every node returns, with its value, whether the value is proven: it rests only on ends
 * of the game, repetitions, table entries, and proven table entries (depth PROVEN). A proven value
 * at the root is exact. A proven entry is usable at any depth.
 *
 * Repetition (Oware 6, Congkak 8). The line (the game's history, then the positions of the
 * current line) is kept with each position's window: where the positions since the last change
 * of the stores or round begin. A move to a position seen twice in its window ends the game. Such
 * an end may count positions above a node, so a node's value can depend on how it was reached:
 * each node also returns hmin, the lowest line index a repetition end in its subtree matched.
 * A node's value is stored as proven only when hmin is not above it (its subtree never looked
 * above it, so the value is the value of the position with no history), and a proven entry
 * counts as a proof only at the first position of a window (nothing before it can come back);
 * elsewhere it is used as an evaluation. Store totals never fall within a round and the round
 * never goes back, so positions of earlier windows can never return.
 */
#include "mc_search.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mc_error.h"
#include "mc_internal.h"
#include "mc_search_internal.h"

#define INF 32000
#define MAX_PLY MC_SEARCH_MAX_DEPTH
#define PROVEN 255
#define BUCKET 4
#ifndef SOLVE_ID_NODES
#define SOLVE_ID_NODES 1000000
#endif

enum { B_UPPER = 1, B_LOWER = 2, B_EXACT = 3 };

typedef struct tt_entry {
  uint64_t key;
  int16_t value; /* Relative to the store difference of the position. */
  uint8_t depth; /* PROVEN: a proof, usable at any depth. */
  uint8_t bound; /* B_* in bits 0-1. */
  uint8_t move;  /* Best move, 0 when none. */
  uint8_t rfree; /* A proof whose lines never repeat a position (see the top of the file). */
  uint16_t gen;  /* The search (mc_search_run()) that stored it, counted modulo 65536. */
} tt_entry;

typedef struct line_node {
  mc_pos pos;
  uint64_t key;
  uint32_t wstart; /* Line index where this position's repetition window begins. */
  bool wrep;       /* Some position occurs twice in the window (this one included). */
} line_node;

typedef struct nres {
  bool proven;
  uint32_t hmin; /* Lowest line index a repetition end below matched; UINT32_MAX: none. */
  int32_t rmax;  /* Highest line index any repetition check below matched; -1: none. */
} nres;

static const nres NRES_NONE = {false, UINT32_MAX, -1};

/* Folds the dependencies of a child's result into *acc. */
static inline void nres_fold(nres *acc, const nres *c) {
  if (c->hmin < acc->hmin)
    acc->hmin = c->hmin;
  if (c->rmax > acc->rmax)
    acc->rmax = c->rmax;
}

struct mc_search {
  tt_entry *tt;
  size_t tt_mask; /* Buckets - 1. */
  uint16_t gen;   /* This search's number (never 0 once a search ran). */
  const mc_egtb *egtb;

  /* The run. */
  mc_rules r;
  uint64_t salt;
  bool rep;     /* Repetition applies (Oware, Congkak). */
  bool bounded; /* Future store gains are bounded by the board (all but a Congkak match). */
  bool kalah;
  int total;    /* All seeds. */
  int egtb_max; /* Board seeds the tables cover, -1: none. */
  const int16_t *weights;
  line_node *line;
  size_t line_cap;
  uint64_t nodes, node_limit;
  struct timespec deadline;
  bool has_deadline;
  const atomic_bool *cancel;
  bool stopped;
  bool exact_only; /* Only proofs end a line (the solver's null-window phase). */
  bool solving;    /* The request asks for a proof (mc_search_request.solve). */
  uint8_t killers[MAX_PLY + 1][2];
  int32_t history[2][MC_MAX_HOUSES + 1];
  uint8_t pv[MAX_PLY + 1][MC_PV_MAX];
  uint8_t pvlen[MAX_PLY + 1];
};

/* ---- time and limits ------------------------------------------------------------------------ */

static void deadline_after(struct timespec *t, long ms) {
  clock_gettime(CLOCK_MONOTONIC, t);
  t->tv_sec += ms / 1000;
  t->tv_nsec += (ms % 1000) * 1000000L;
  if (t->tv_nsec >= 1000000000L) {
    t->tv_sec++;
    t->tv_nsec -= 1000000000L;
  }
}

static bool past(const struct timespec *t) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

static long ms_since(const struct timespec *t0) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long)((now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000L);
}

/* Counts a node and says whether the search must stop. */
static inline bool stop_check(mc_search *s) {
  if (s->stopped)
    return true;
  s->nodes++;
  if ((s->node_limit && s->nodes > s->node_limit) ||
      (s->cancel && atomic_load_explicit(s->cancel, memory_order_relaxed)) ||
      (s->has_deadline && (s->nodes & 255) == 1 && past(&s->deadline)))
    s->stopped = true;
  return s->stopped;
}

/* ---- transposition table -------------------------------------------------------------------- */

static tt_entry *tt_find(mc_search *s, uint64_t key) {
  tt_entry *b = &s->tt[(key & s->tt_mask) * BUCKET];
  for (int i = 0; i < BUCKET; i++)
    if (b[i].key == key)
      return &b[i];
  return NULL;
}

/* over_proof: the result may replace a proof (see the solver's rule in pvs()). */
static void tt_store(mc_search *s, uint64_t key, int rel, int depth, int bound, int move,
                     bool rfree, bool over_proof) {
  tt_entry *b = &s->tt[(key & s->tt_mask) * BUCKET], *e = NULL;
  for (int i = 0; i < BUCKET; i++) {
    if (b[i].key == key) {
      e = &b[i];
      break;
    }
  }
  if (e) {
    /* A proof is kept against anything that is not one, unless the caller says otherwise. */
    if (e->depth == PROVEN && depth != PROVEN && !over_proof) {
      if (e->move == 0)
        e->move = (uint8_t)move;
      return;
    }
  } else {
    /* Replace an entry of an older run first, then the shallowest. */
    int worst = INT_MAX;
    for (int i = 0; i < BUCKET; i++) {
      int score = b[i].key == 0 ? -1 : (b[i].gen == s->gen) * 512 + b[i].depth;
      if (score < worst) {
        worst = score;
        e = &b[i];
      }
    }
  }
  e->key = key;
  e->value = (int16_t)rel;
  e->depth = (uint8_t)depth;
  e->bound = (uint8_t)bound;
  e->gen = s->gen;
  e->move = (uint8_t)move;
  e->rfree = rfree;
}

/* ---- context -------------------------------------------------------------------------------- */

mc_search *mc_search_new(const mc_search_config *config) {
  size_t bytes = config && config->tt_bytes ? config->tt_bytes : MC_SEARCH_TT_DEFAULT;
  if (bytes < (64u << 10))
    bytes = 64u << 10;
  size_t buckets = 1;
  while (buckets * 2 * BUCKET * sizeof(tt_entry) <= bytes)
    buckets *= 2;
  mc_search *s = calloc(1, sizeof(*s));
  if (s == NULL)
    return NULL;
  /* A bucket is one cache line. */
  s->tt = aligned_alloc(64, buckets * BUCKET * sizeof(tt_entry));
  if (s->tt)
    memset(s->tt, 0, buckets * BUCKET * sizeof(tt_entry));
  if (s->tt == NULL) {
    free(s);
    return NULL;
  }
  s->tt_mask = buckets - 1;
  s->egtb = config ? config->egtb : NULL;
  return s;
}

void mc_search_free(mc_search *s) {
  if (s == NULL)
    return;
  free(s->tt);
  free(s->line);
  free(s);
}

void mc_search_set_egtb(mc_search *s, const mc_egtb *egtb) {
  s->egtb = egtb;
}

void mc_search_clear(mc_search *s) {
  memset(s->tt, 0, (s->tt_mask + 1) * BUCKET * sizeof(tt_entry));
  memset(s->history, 0, sizeof(s->history));
  s->gen = 0;
}

/* ---- the tree ------------------------------------------------------------------------------- */

/* Whether a proven entry proves the value of node nd (line index idx) with its history: always
 * without repetition; at the first position of a window (nothing earlier can come back); or when
 * the proof's lines never repeat a position and no position of the window occurs twice (then no
 * line of the proof can meet a third occurrence). */
static inline bool proof_here(const mc_search *s, const line_node *nd, uint32_t idx,
                              const tt_entry *e) {
  return !s->rep || nd->wstart == idx || (e->rfree && !nd->wrep);
}

static inline int clampi(int v, int lo, int hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

static int pvs(mc_search *s, uint32_t idx, int ply, int depth, int alpha, int beta, nres *out);

/* Searches the child at line[idx + 1] and returns its value for the side to move at idx. */
static inline int child(mc_search *s, uint32_t idx, int ply, int depth, bool same, int alpha,
                        int beta, nres *out) {
  if (same)
    return pvs(s, idx + 1, ply + 1, depth - 1, alpha, beta, out);
  return -pvs(s, idx + 1, ply + 1, depth - 1, -beta, -alpha, out);
}

/* The children of a position, made and classified. */
typedef struct kids {
  int n;
  uint8_t move[MC_MAX_HOUSES];
  mc_pos pos[MC_MAX_HOUSES];
  uint64_t key[MC_MAX_HOUSES];
  uint32_t wstart[MC_MAX_HOUSES];
  bool end[MC_MAX_HOUSES];      /* The move ends the game: value below is final. */
  int value[MC_MAX_HOUSES];     /* For ends: the final difference for the mover. */
  uint32_t hmin[MC_MAX_HOUSES]; /* For repetition ends: the first matched line index. */
  int32_t rmax[MC_MAX_HOUSES];  /* The last line index the child matched (-1: none). */
  bool wrep[MC_MAX_HOUSES];     /* The child's window repeats a position. */
  int score[MC_MAX_HOUSES];     /* Ordering. */
} kids;

/* Makes every legal move of line[idx] and fills k. */
static void expand(mc_search *s, uint32_t idx, kids *k) {
  const line_node *nd = &s->line[idx];
  const mc_pos *p = &nd->pos;
  const int m = p->houses, me = p->turn;
  const int my0 = p->pits[MC__STORE(m, me)], op0 = p->pits[MC__STORE(m, !me)];
  k->n = mc__legal(p, &s->r, k->move);
  for (int i = 0; i < k->n; i++) {
    mc_pos *c = &k->pos[i];
    *c = *p;
    k->hmin[i] = UINT32_MAX;
    k->rmax[i] = -1;
    k->wrep[i] = false;
    k->end[i] = false;
    int rc = mc__play(c, &s->r, k->move[i], NULL, NULL);
    if (rc != 0) {
      /* rc < 0 cannot happen with valid rules (rule book 9); scored as the end it would be. */
      k->end[i] = true;
      k->value[i] = mc__final(c, me);
    } else {
      k->key[i] = mc__key(c, s->salt, s->kalah);
#if defined(__GNUC__)
      __builtin_prefetch(&s->tt[(k->key[i] & s->tt_mask) * BUCKET]);
#endif
      k->wstart[i] = idx + 1;
      if (s->rep && mc__epoch(c) == mc__epoch(p)) {
        k->wstart[i] = nd->wstart;
        int seen = 0;
        uint32_t first = UINT32_MAX;
        for (uint32_t j = nd->wstart; j <= idx; j++) {
          if (s->line[j].key == k->key[i] && mc_pos_same(&s->line[j].pos, c)) {
            seen++;
            if (first == UINT32_MAX)
              first = j;
            k->rmax[i] = (int32_t)j;
          }
        }
        k->wrep[i] = nd->wrep || seen > 0;
        if (seen >= 2) {
          mc__sweep_owners(c, NULL);
          k->end[i] = true;
          k->value[i] = mc__final(c, me);
          k->hmin[i] = first;
        }
      }
    }
    const int gain =
        ((int)c->pits[MC__STORE(m, me)] - my0) - ((int)c->pits[MC__STORE(m, !me)] - op0);
    k->score[i] = gain * 1000 + (!k->end[i] && c->turn == me) * 1500;
  }
}

static int pvs(mc_search *s, uint32_t idx, int ply, int depth, int alpha, int beta, nres *out) {
  line_node *nd = &s->line[idx];
  const mc_pos *p = &nd->pos;
  const int m = p->houses, me = p->turn;
  *out = NRES_NONE;
  s->pvlen[ply] = 0;
  if (stop_check(s))
    return 0;

  const int diff = ((int)p->pits[MC__STORE(m, me)] - (int)p->pits[MC__STORE(m, !me)]) * MC_SEED;
  int lo, hi;
  const int board = mc__board(p);
  if (s->bounded) {
    lo = diff - board * MC_SEED;
    hi = diff + board * MC_SEED;
  } else {
    lo = -s->total * MC_SEED;
    hi = s->total * MC_SEED;
  }
  if (board <= s->egtb_max) {
    mc_egtb_value tv;
    if (mc_egtb_probe(s->egtb, &s->r, p, &tv) == 1) {
      lo = lo > tv.lo * MC_SEED ? lo : tv.lo * MC_SEED;
      hi = hi < tv.hi * MC_SEED ? hi : tv.hi * MC_SEED;
    }
  }
  if (lo >= beta || lo >= hi) {
    out->proven = true;
    return lo;
  }
  if (hi <= alpha) {
    out->proven = true;
    return hi;
  }
  tt_entry *e = tt_find(s, nd->key);
  int ttmove = 0;
  /* While solving, this node's result replaces a proof that did not end the search here (no
   * proof at this point of a repetition window, or a bound that does not cut): kept, it would keep
   * this search's own results out of the table, and the position would be searched again at
   * every visit, exponentially (two Congkak match positions of the solver test went unproven in 2
   * million nodes with a reused table; a fresh one proved them in 40,000-130,000). */
  const bool over_proof = s->solving;
  if (e) {
    ttmove = e->move;
    const bool proof = e->depth == PROVEN && proof_here(s, nd, idx, e);
    /* A solver trusts no evaluation of an earlier run: deep ones would stand in the way of
     * proofs until its own iterations got deeper still. */
    const bool usable = proof || (!s->exact_only && (!s->solving || e->gen == s->gen));
    if (e->depth >= depth && usable) {
      const int v = e->value + diff, b = e->bound & 3;
      if (b == B_EXACT || (b == B_LOWER && v >= beta) || (b == B_UPPER && v <= alpha)) {
        out->proven = proof;
        return clampi(v, lo, hi);
      }
    }
  }
  if (depth <= 0 || ply >= MAX_PLY) {
    const int v = mc__eval_w(&s->r, p, s->weights);
    return clampi(v, lo, hi);
  }

  kids k;
  expand(s, idx, &k);
  if (k.n == 0) /* Cannot happen: a position where play goes on has a move. */
    return clampi(diff, lo, hi);
  /* Enhanced transposition cutoff: a child whose table entry already refutes this node. */
  if (depth >= 2) {
    for (int i = 0; i < k.n; i++) {
      if (k.end[i])
        continue;
      const tt_entry *ce = tt_find(s, k.key[i]);
      if (ce == NULL || ce->depth < depth - 1)
        continue;
      const mc_pos *c = &k.pos[i];
      const line_node cn = {
          .pos = k.pos[i], .key = k.key[i], .wstart = k.wstart[i], .wrep = k.wrep[i]};
      const bool proof = ce->depth == PROVEN && proof_here(s, &cn, idx + 1, ce);
      if (!proof && (s->exact_only || (s->solving && ce->gen != s->gen)))
        continue;
      const int cm = c->turn, cb = ce->bound & 3;
      const int v =
          ce->value + ((int)c->pits[MC__STORE(m, cm)] - (int)c->pits[MC__STORE(m, !cm)]) * MC_SEED;
      int mine;
      if (cm == me && (cb == B_LOWER || cb == B_EXACT))
        mine = v;
      else if (cm != me && (cb == B_UPPER || cb == B_EXACT))
        mine = -v;
      else
        continue;
      if (mine >= beta) {
        out->proven = proof;
        out->rmax = k.rmax[i];
        s->pv[ply][0] = k.move[i];
        s->pvlen[ply] = 1;
        return clampi(mine, lo, hi);
      }
    }
  }
  for (int i = 0; i < k.n; i++) {
    const int mv = k.move[i];
    if (mv == ttmove)
      k.score[i] += 1 << 24;
    else if (mv == s->killers[ply][0])
      k.score[i] += 700;
    else if (mv == s->killers[ply][1])
      k.score[i] += 600;
    k.score[i] += s->history[me][mv] >> 4 > 500 ? 500 : s->history[me][mv] >> 4;
  }

  /* Children in order of score (insertion sort: at most nine). */
  int order[MC_MAX_HOUSES] = {0};
  for (int i = 0; i < k.n; i++) {
    int j = i;
    while (j > 0 && k.score[order[j - 1]] < k.score[i]) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = i;
  }

  const int alpha0 = alpha;
  int best = -INF, bestmove = k.move[order[0]];
  bool all_proven = true, cut = false;
  nres dep = NRES_NONE;
  for (int o = 0; o < k.n; o++) {
    const int n = order[o];
    int v;
    nres cr;
    if (k.end[n]) {
      v = k.value[n];
      cr = NRES_NONE;
      cr.proven = true;
      cr.hmin = k.hmin[n];
      s->pvlen[ply + 1] = 0;
    } else {
      line_node *c = &s->line[idx + 1];
      c->pos = k.pos[n];
      c->key = k.key[n];
      c->wstart = k.wstart[n];
      c->wrep = k.wrep[n];
      const bool same = k.pos[n].turn == me;
      const int a = alpha > best ? alpha : best;
      if (o == 0) {
        v = child(s, idx, ply, depth, same, a, beta, &cr);
      } else {
        v = child(s, idx, ply, depth, same, a, a + 1, &cr);
        if (!s->stopped && v > a && v < beta)
          v = child(s, idx, ply, depth, same, a, beta, &cr);
      }
      if (s->stopped)
        return 0;
    }
    if (k.rmax[n] > cr.rmax)
      cr.rmax = k.rmax[n];
    if (v > best) {
      best = v;
      bestmove = k.move[n];
      if (v > alpha) {
        s->pv[ply][0] = (uint8_t)bestmove;
        int len = s->pvlen[ply + 1] < MC_PV_MAX - 1 ? s->pvlen[ply + 1] : MC_PV_MAX - 1;
        memcpy(&s->pv[ply][1], s->pv[ply + 1], (size_t)len);
        s->pvlen[ply] = (uint8_t)(len + 1);
      }
    }
    if (v >= beta) {
      cut = true;
      *out = cr;
      if (!k.end[n] && k.score[n] < 1000) {
        if (s->killers[ply][0] != bestmove) {
          s->killers[ply][1] = s->killers[ply][0];
          s->killers[ply][0] = (uint8_t)bestmove;
        }
        s->history[me][bestmove] += depth * depth;
        if (s->history[me][bestmove] > (1 << 20))
          for (int h = 0; h <= MC_MAX_HOUSES; h++)
            s->history[0][h] >>= 1, s->history[1][h] >>= 1;
      }
      break;
    }
    all_proven = all_proven && cr.proven;
    nres_fold(&dep, &cr);
  }
  if (!cut) {
    *out = dep;
    out->proven = all_proven;
  }
  best = clampi(best, lo, hi);
  const int bound = best <= alpha0 ? B_UPPER : best >= beta ? B_LOWER : B_EXACT;
  /* A proof of this position with no history: no repetition end below looked above it. It is
   * repetition-free when no check below matched this position or any after it. */
  const bool proof = out->proven && out->hmin >= idx;
  const bool rfree = proof && out->hmin == UINT32_MAX && out->rmax < (int32_t)idx;
  /* Without a proof, the solver's phase (searching to the end) stores depth 0: only its move,
   * never a cutoff that would keep later searches from proving the value. */
  const int keep = proof ? PROVEN : s->exact_only ? 0 : depth < PROVEN ? depth : PROVEN - 1;
  tt_store(s, nd->key, best - diff, keep, bound, bound == B_UPPER ? ttmove : bestmove, rfree,
           over_proof);
  return best;
}

/* ---- the root ------------------------------------------------------------------------------- */

typedef struct root_move {
  uint8_t move;
  bool end;
  int end_value;
  uint32_t hmin;
  mc_pos pos;
  uint64_t key;
  uint32_t wstart;
  bool wrep;
  int value;  /* Last value (or bound) found, for ordering and reporting. */
  bool known; /* value comes from a finished search of this move. */
  bool exact;
  int order;
  int capture; /* Seeds this move captures (for a level's blindness). */
  uint8_t pv[MC_PV_MAX];
  int pvlen;
} root_move;

/* Searches every root move to depth; moves are tried in the order of rm. all: a full window for
 * each. Returns the index of the best move (or -1 when stopped before any was searched) and
 * sets *value and *proven. */
static int root_search(mc_search *s, uint32_t idx, root_move *rm, int n, int depth, bool all,
                       int *value, bool *proven) {
  const int me = s->line[idx].pos.turn;
  int best = -INF, bi = -1;
  bool all_proven = true;
  s->pvlen[0] = 0;
  if (stop_check(s))
    return -1;
  for (int i = 0; i < n; i++) {
    root_move *r = &rm[i];
    int v;
    nres cr;
    if (r->end) {
      v = r->end_value;
      cr = NRES_NONE;
      cr.proven = true;
      cr.hmin = r->hmin;
      s->pvlen[1] = 0;
    } else {
      line_node *c = &s->line[idx + 1];
      c->pos = r->pos;
      c->key = r->key;
      c->wstart = r->wstart;
      c->wrep = r->wrep;
      const bool same = r->pos.turn == me;
      if (all || i == 0) {
        v = child(s, idx, 0, depth, same, -INF, INF, &cr);
      } else {
        v = child(s, idx, 0, depth, same, best, best + 1, &cr);
        if (!s->stopped && v > best)
          v = child(s, idx, 0, depth, same, best, INF, &cr);
      }
      if (s->stopped)
        break;
    }
    /* With a null window, a move that fails low only has an upper bound: exact only when it
     * was searched with the full window or is proven below the best. */
    r->value = v;
    r->known = true;
    r->exact = cr.proven && (all || i == 0 || v > best);
    r->pvlen = 0;
    if (!r->end) {
      r->pvlen = s->pvlen[1] < MC_PV_MAX ? s->pvlen[1] : MC_PV_MAX;
      memcpy(r->pv, s->pv[1], (size_t)r->pvlen);
    }
    if (v > best) {
      best = v;
      bi = i;
    }
    all_proven = all_proven && cr.proven;
  }
  *value = best;
  *proven = all_proven && !s->stopped;
  return bi;
}

/* A null-window (or any-window) search of the root to depth for the solver: fail-soft, stops at
 * the first move that reaches beta. Returns the index of the best move (-1 when stopped before
 * any) and sets *value and *proven. */
static int root_window(mc_search *s, uint32_t idx, root_move *rm, int n, int depth, int alpha,
                       int beta, int *value, bool *proven) {
  const int me = s->line[idx].pos.turn;
  int best = -INF, bi = -1;
  bool all_proven = true;
  if (stop_check(s))
    return -1;
  for (int i = 0; i < n; i++) {
    root_move *r = &rm[i];
    int v;
    nres cr;
    if (r->end) {
      v = r->end_value;
      cr = NRES_NONE;
      cr.proven = true;
    } else {
      line_node *c = &s->line[idx + 1];
      c->pos = r->pos;
      c->key = r->key;
      c->wstart = r->wstart;
      c->wrep = r->wrep;
      v = child(s, idx, 0, depth, r->pos.turn == me, alpha > best ? alpha : best, beta, &cr);
      if (s->stopped)
        return -1;
    }
    if (v > best) {
      best = v;
      bi = i;
    }
    if (v >= beta) {
      all_proven = cr.proven;
      break;
    }
    all_proven = all_proven && cr.proven;
  }
  *value = best;
  *proven = all_proven;
  return bi;
}

/* The seeds a move captures (for blindness), from its trace. */
static int capture_seeds(const mc_rules *r, const mc_pos *p, int move, mc_trace *tr) {
  mc_pos q = *p;
  tr->len = 0;
  if (mc__play(&q, r, move, tr, NULL) < 0)
    return 0;
  int seeds = 0;
  for (size_t i = 0; i < tr->len; i++)
    if (tr->steps[i].kind == MC_STEP_CAPTURE)
      seeds += tr->steps[i].count;
  return seeds;
}

/* e^-x for x >= 0 in 1/65536, without libm: (1 - x/32)^32, close enough for choosing moves. */
static uint32_t weight_of(int gap, int temperature) {
  const double x = (double)gap / temperature;
  if (x >= 32.0)
    return 0;
  double b = 1.0 - x / 32.0, w = b;
  for (int i = 0; i < 5; i++)
    w *= w; /* b^32 */
  return (uint32_t)(w * 65536.0);
}

/* Extends out's principal variation through the endgame tables: from where it ends, while the
 * tables know the exact value of the position, a move that keeps that value (the search stops
 * at such positions, so its own line stops there too). */
static void extend_pv(mc_search *s, const mc_pos *root, mc_search_result *out) {
  if (s->egtb_max < 0)
    return;
  mc_pos p = *root;
  for (int i = 0; i < out->pv_len; i++)
    if (mc__play(&p, &s->r, out->pv[i], NULL, NULL) != 0)
      return;
  while (out->pv_len < MC_PV_MAX) {
    mc_egtb_value v;
    if (mc__board(&p) > s->egtb_max || mc_egtb_probe(s->egtb, &s->r, &p, &v) != 1 || v.lo != v.hi)
      return;
    uint8_t moves[MC_MAX_HOUSES];
    const int n = mc__legal(&p, &s->r, moves), me = p.turn;
    int chosen = -1;
    mc_pos next;
    for (int i = 0; i < n && chosen < 0; i++) {
      mc_pos c = p;
      const int rc = mc__play(&c, &s->r, moves[i], NULL, NULL);
      int cv;
      mc_egtb_value w;
      if (rc != 0)
        cv = mc__final(&c, me) / MC_SEED;
      else if (mc_egtb_probe(s->egtb, &s->r, &c, &w) == 1 && w.lo == w.hi)
        cv = c.turn == me ? w.lo : -w.lo;
      else
        continue;
      if (cv == v.lo) {
        chosen = moves[i];
        next = c;
        out->pv[out->pv_len++] = (uint8_t)chosen;
        if (rc != 0)
          return;
      }
    }
    if (chosen < 0)
      return;
    p = next;
  }
}

/* Whether play has ended at p: a position the engine never leaves with play going on. */
static bool pos_over(const mc_rules *r, const mc_pos *p) {
  const int m = p->houses;
  switch (r->kind) {
  case MC_KALAH:
    return !mc__side_any(p, m, 0) || !mc__side_any(p, m, 1);
  case MC_OWARE: {
    mc_pos q = *p;
    return mc__oware_end(&q, NULL, NULL) != 0;
  }
  default:
    return !mc__side_any(p, m, p->turn);
  }
}

static uint64_t salt_of(const mc_rules *r) {
  uint64_t h = UINT64_C(0x6D616E63616C6121);
  h = mc__mix(h ^ (uint64_t)r->kind) + r->houses;
  h = mc__mix(h ^ ((uint64_t)r->seeds << 8)) + (uint64_t)r->empty_capture;
  h = mc__mix(h ^ ((uint64_t)r->grand_slam << 16)) + ((uint64_t)r->lap_capture << 1);
  h = mc__mix(h ^ ((uint64_t)r->match << 24)) + (uint64_t)r->burn;
  return mc__mix(h);
}

int mc_search_run(mc_search *s, const mc_search_request *req, mc_search_result *out) {
  if (s == NULL || req == NULL || out == NULL || mc_pos_check(req->pos, req->rules) < 0)
    return MC_EINVAL;
  const mc_rules *rules = req->rules;
  const mc_pos *pos = req->pos;
  size_t hn = req->history && req->history_len ? req->history_len : 1;
  if (req->history && req->history_len && !mc_pos_same(&req->history[hn - 1], pos))
    return MC_EINVAL;
  uint8_t legal[MC_MAX_HOUSES];
  const int n = mc__legal(pos, rules, legal);
  if (n == 0 || pos_over(rules, pos))
    return MC_EOVER;
  if (hn + MAX_PLY + 2 > s->line_cap) {
    line_node *l = realloc(s->line, (hn + MAX_PLY + 2) * sizeof(*l));
    if (l == NULL)
      return MC_ENOMEM;
    s->line = l;
    s->line_cap = hn + MAX_PLY + 2;
  }
  mc_level full;
  mc_level_full(&full);
  const mc_level *lv = req->level ? req->level : &full;

  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  s->r = *rules;
  s->salt = salt_of(rules);
  s->kalah = rules->kind == MC_KALAH;
  s->rep = !s->kalah;
  s->bounded = !(rules->kind == MC_CONGKAK && rules->match);
  s->total = (int)mc_rules_total(rules);
  s->egtb_max = lv->egtb && s->egtb ? mc_egtb_max_seeds(s->egtb, rules) : -1;
  s->weights = lv->eval == MC_EVAL_STORES ? NULL
               : lv->custom_weights       ? lv->weights
                                          : mc__eval_default_weights(rules->kind);
  s->gen = (uint16_t)(s->gen + 1 ? s->gen + 1 : 1);
  s->nodes = 0;
  s->stopped = false;
  s->solving = req->solve;
  s->cancel = req->cancel;
  /* The tighter of the caller's and the level's limits. */
  uint64_t nodes = req->limits.nodes;
  if (lv->nodes && (nodes == 0 || lv->nodes < nodes))
    nodes = lv->nodes;
  long ms = req->limits.time_ms;
  if (lv->time_ms >= 0 && (ms < 0 || lv->time_ms < ms))
    ms = lv->time_ms;
  int maxdepth = req->limits.depth > 0 ? req->limits.depth : MAX_PLY;
  if (lv->depth > 0 && lv->depth < maxdepth)
    maxdepth = lv->depth;
  if (maxdepth > MAX_PLY)
    maxdepth = MAX_PLY;
  s->node_limit = nodes;
  s->has_deadline = ms >= 0;
  if (s->has_deadline)
    deadline_after(&s->deadline, ms);
  memset(s->killers, 0, sizeof(s->killers));
  for (int h = 0; h <= MC_MAX_HOUSES; h++)
    s->history[0][h] >>= 2, s->history[1][h] >>= 2;

  /* The line: the history (same window), then the root at index root. */
  const uint32_t root = (uint32_t)hn - 1;
  for (size_t i = 0; i < hn; i++) {
    line_node *l = &s->line[i];
    l->pos = i + 1 < hn ? req->history[i] : *pos;
    l->key = mc__key(&l->pos, s->salt, s->kalah);
    l->wstart = 0;
    l->wrep = i > 0 && s->line[i - 1].wrep;
    for (size_t j = 0; j < i && !l->wrep; j++)
      l->wrep = s->line[j].key == l->key && mc_pos_same(&s->line[j].pos, &l->pos);
  }

  uint64_t rng = req->seed ^ mc__key(pos, UINT64_C(0x5EED), 0);
  root_move rm[MC_MAX_HOUSES];
  {
    kids k;
    expand(s, root, &k);
    tt_entry *e = tt_find(s, s->line[root].key);
    for (int i = 0; i < k.n; i++) {
      root_move *r = &rm[i];
      memset(r, 0, sizeof(*r));
      r->move = k.move[i];
      r->end = k.end[i];
      r->end_value = k.value[i];
      r->hmin = k.hmin[i];
      r->pos = k.pos[i];
      r->key = k.key[i];
      r->wstart = k.wstart[i];
      r->wrep = k.wrep[i];
      r->order = k.score[i] + (e && e->move == r->move ? 1 << 24 : 0);
    }
    /* Stable order by score (insertion sort: at most 9 moves). */
    for (int i = 1; i < k.n; i++) {
      root_move t = rm[i];
      int j = i;
      while (j > 0 && rm[j - 1].order < t.order) {
        rm[j] = rm[j - 1];
        j--;
      }
      rm[j] = t;
    }
  }
  const bool noisy = lv->temperature > 0;
  const bool all = req->all_moves || noisy;

  memset(out, 0, sizeof(*out));
  out->move = out->best = rm[0].move;
  out->value = mc__eval_w(rules, pos, s->weights);
  int done = 0;
  for (int d = 1; d <= maxdepth; d++) {
    int value;
    bool proven;
    const int bi = root_search(s, root, rm, n, d, all, &value, &proven);
    if (s->stopped) {
      /* Without a finished iteration, any move searched; after one, a move that beat the
       * previous best (searched first) at the new depth. */
      if (bi >= 0 && (done == 0 || bi > 0)) {
        out->best = rm[bi].move;
        out->value = rm[bi].value;
        out->exact = false;
        out->pv[0] = rm[bi].move;
        out->pv_len = 1 + (rm[bi].pvlen < MC_PV_MAX - 1 ? rm[bi].pvlen : MC_PV_MAX - 1);
        memcpy(&out->pv[1], rm[bi].pv, (size_t)(out->pv_len - 1));
      }
      break;
    }
    done = d;
#ifdef MC_SEARCH_TRACE
    fprintf(stderr, "depth %d value %d proven %d nodes %llu\n", d, value, proven,
            (unsigned long long)s->nodes);
#endif
    out->best = rm[bi].move;
    out->value = value;
    out->exact = proven;
    out->depth = d;
    out->pv[0] = rm[bi].move;
    out->pv_len = 1 + (rm[bi].pvlen < MC_PV_MAX - 1 ? rm[bi].pvlen : MC_PV_MAX - 1);
    memcpy(&out->pv[1], rm[bi].pv, (size_t)(out->pv_len - 1));
    /* The best first next time, then the others by value. */
    for (int i = 0; i < n; i++)
      rm[i].order = (i == bi ? INF * 2 : 0) + rm[i].value;
    for (int i = 1; i < n; i++) {
      root_move t = rm[i];
      int j = i;
      while (j > 0 && rm[j - 1].order < t.order) {
        rm[j] = rm[j - 1];
        j--;
      }
      rm[j] = t;
    }
    if (proven)
      break;
    if (req->solve && s->nodes > SOLVE_ID_NODES)
      break; /* Enough ordering knowledge: the proof phase takes over. */
    if (s->has_deadline && ms > 0 && ms_since(&t0) * 2 > ms)
      break; /* The next iteration would not finish. */
  }
  if (req->solve && !out->exact && !s->stopped && (maxdepth == MAX_PLY)) {
    /* The solver's proof: MTD(f) at full depth around the last value, each test a null-window
     * search that reaches the end of the game (or the tables) on every line. Table entries that
     * are not proofs are not used. */
    int lower = -INF, upper = INF, bestmove = out->best;
    int g = out->value >= 0 ? (out->value + MC_SEED / 2) / MC_SEED * MC_SEED
                            : -((-out->value + MC_SEED / 2) / MC_SEED * MC_SEED);
    bool ok = true;
    s->exact_only = true;
    while (lower < upper) {
      const int beta = g == lower ? g + 1 : g;
      int v;
      bool proven;
      const int bi = root_window(s, root, rm, n, MAX_PLY, beta - 1, beta, &v, &proven);
      if (bi < 0 || s->stopped || !proven) {
        ok = false;
        break;
      }
      g = v;
#ifdef MC_SEARCH_TRACE
      fprintf(stderr, "mtd beta %d -> %d nodes %llu\n", beta, g, (unsigned long long)s->nodes);
#endif
      if (g < beta) {
        upper = g;
      } else {
        lower = g;
        bestmove = rm[bi].move;
        /* The move that reached beta goes first in the next test. */
        root_move t = rm[bi];
        memmove(&rm[1], &rm[0], (size_t)bi * sizeof(rm[0]));
        rm[0] = t;
      }
    }
    s->exact_only = false;
    if (ok) {
      out->best = bestmove;
      out->value = lower;
      out->exact = true;
      out->pv[0] = (uint8_t)bestmove;
      out->pv_len = 1;
      for (int i = 0; i < n; i++)
        rm[i].exact = rm[i].known = false;
    }
  }
  out->move = out->best;
  if (out->pv_len > 0 && out->pv[0] == out->best)
    extend_pv(s, pos, out);

  out->nmoves = n;
  for (int i = 0; i < n; i++) {
    out->moves[i].move = rm[i].move;
    out->moves[i].known = rm[i].known || rm[i].end;
    out->moves[i].exact = rm[i].exact || rm[i].end;
    out->moves[i].value = rm[i].end ? rm[i].end_value : rm[i].value;
  }
  /* Sort the reported moves by house number. */
  for (int i = 1; i < n; i++) {
    mc_move_value t = out->moves[i];
    int j = i;
    while (j > 0 && out->moves[j - 1].move > t.move) {
      out->moves[j] = out->moves[j - 1];
      j--;
    }
    out->moves[j] = t;
  }

  if (noisy && done > 0) {
    /* The level's noise: each move's value as this player sees it (overlooked captures
     * included), then a draw weighted by exp(-(best - seen) / temperature). */
    int seen[MC_MAX_HOUSES], top = -INF;
    mc_trace *tr = lv->blind > 0 ? malloc(sizeof(*tr)) : NULL;
    for (int i = 0; i < n; i++) {
      seen[i] = out->moves[i].known ? out->moves[i].value : -INF;
      if (tr && out->moves[i].known && (int)mc__rng_below(&rng, 100) < lv->blind)
        seen[i] -= capture_seeds(rules, pos, out->moves[i].move, tr) * MC_SEED;
      if (seen[i] > top)
        top = seen[i];
    }
    free(tr);
    uint64_t sum = 0;
    uint32_t w[MC_MAX_HOUSES];
    for (int i = 0; i < n; i++) {
      w[i] = seen[i] == -INF ? 0 : weight_of(top - seen[i], lv->temperature);
      sum += w[i];
    }
    if (sum > 0) {
      uint64_t pick = ((mc__rng(&rng) >> 11) % sum);
      for (int i = 0; i < n; i++) {
        if (pick < w[i]) {
          out->move = out->moves[i].move;
          break;
        }
        pick -= w[i];
      }
    }
  }
  out->nodes = s->nodes;
  out->stopped = s->stopped;
  out->time_ms = ms_since(&t0);
  return 0;
}

/* ---- The pie rule: the first player's first turn ------------------------------------------ */

/* At most this many positions of the first turn are valued (its ends, and where it is cut). */
#define PIE_MAX_LEAVES 48

/* The first player's first turn under the pie rule: only South has moved, South is to move, in
 * the first round, and the game goes on. */
static bool pie_first_turn(const mc_game *game) {
  const mc_pos *pos = mc_game_pos(game);
  if (!mc_game_rules(game)->pie || mc_game_over(game, NULL) || pos->round != 1 ||
      pos->turn != MC_SOUTH)
    return false;
  for (size_t i = 0; i < mc_game_ply(game); i++) {
    if (mc_game_mover(game, i) != MC_SOUTH)
      return false;
  }
  return true;
}

/* The positions where the first turn is valued: its ends, and, where the turn has more lines than
 * PIE_MAX_LEAVES, positions within it (South to move, cut). Each is a game (owned) and the move
 * from the current position that leads to it. The turn is opened breadth first, so that every
 * first move is looked at as deep as the others. */
typedef struct pie_leaves {
  mc_game *game[PIE_MAX_LEAVES];
  int root[PIE_MAX_LEAVES];
  int n;
  mc_game *queue[PIE_MAX_LEAVES]; /* Within the turn, to open; a ring of qn from qhead. */
  int qroot[PIE_MAX_LEAVES];
  int qhead, qn;
  int err;
} pie_leaves;

static void pie_push(pie_leaves *p, mc_game *g, int root, bool within) {
  if (within) {
    int at = (p->qhead + p->qn++) % PIE_MAX_LEAVES;
    p->queue[at] = g;
    p->qroot[at] = root;
  } else {
    p->game[p->n] = g;
    p->root[p->n++] = root;
  }
}

/* Opens the first turn from game (borrowed) into p. */
static void pie_collect(pie_leaves *p, const mc_game *game) {
  mc_game *start = mc_game_copy(game);
  if (start == NULL) {
    p->err = MC_ENOMEM;
    return;
  }
  pie_push(p, start, 0, true);
  while (p->qn > 0 && p->err == 0) {
    mc_game *g = p->queue[p->qhead];
    const int root = p->qroot[p->qhead];
    p->qhead = (p->qhead + 1) % PIE_MAX_LEAVES;
    p->qn--;
    uint8_t moves[MC_MAX_HOUSES];
    int n = mc_game_legal(g, moves);
    if (root != 0 && p->n + p->qn + n > PIE_MAX_LEAVES) {
      pie_push(p, g, root, false); /* No room to open it: valued as it is. */
      continue;
    }
    for (int i = 0; i < n && p->err == 0; i++) {
      mc_game *c = mc_game_copy(g);
      int rc = c == NULL ? MC_ENOMEM : mc_game_play(c, moves[i], NULL);
      if (rc < 0) {
        mc_game_free(c);
        p->err = rc;
        break;
      }
      pie_push(p, c, root ? root : moves[i], pie_first_turn(c));
    }
    mc_game_free(g);
  }
  while (p->qn > 0) { /* After an error. */
    mc_game_free(p->queue[p->qhead]);
    p->qhead = (p->qhead + 1) % PIE_MAX_LEAVES;
    p->qn--;
  }
}

int mc_search_pie_first(mc_search *s, const mc_game *game, const mc_level *level, long time_ms,
                        uint64_t seed, const atomic_bool *cancel, mc_search_result *out) {
  if (s == NULL || game == NULL || level == NULL || out == NULL)
    return MC_EINVAL;
  if (!pie_first_turn(game))
    return 0;
  pie_leaves p = {.n = 0};
  pie_collect(&p, game);
  int rc = p.err;
  /* Each end valued within its share of the budget (a fixed depth stays as it is). */
  mc_level lv = *level;
  long total = time_ms >= 0 && (lv.time_ms < 0 || time_ms < lv.time_ms) ? time_ms : lv.time_ms;
  if (total >= 0)
    lv.time_ms = total / (p.n ? p.n : 1) > 0 ? total / (p.n ? p.n : 1) : 1;
  if (lv.nodes)
    lv.nodes = lv.nodes / (uint64_t)(p.n ? p.n : 1) + 1000;
  lv.temperature = 0;
  lv.blind = 0;
  int best_value[MC_MAX_HOUSES + 1];
  bool best_exact[MC_MAX_HOUSES + 1], seen[MC_MAX_HOUSES + 1] = {false};
  memset(out, 0, sizeof(*out));
  out->depth = MC_SEARCH_MAX_DEPTH;
  bool all_exact = true;
  for (int i = 0; rc == 0 && i < p.n; i++) {
    const mc_game *g = p.game[i];
    mc_result res;
    int v;
    bool exact;
    if (mc_game_over(g, &res)) {
      v = ((int)res.score[MC_SOUTH] - (int)res.score[MC_NORTH]) * MC_SEED;
      exact = true;
    } else {
      size_t hn;
      const mc_pos *hist = mc_game_history(g, &hn);
      mc_search_request req = {.rules = mc_game_rules(g),
                               .pos = mc_game_pos(g),
                               .history = hist,
                               .history_len = hn,
                               .limits = {-1, 0, 0},
                               .level = &lv,
                               .seed = seed + (uint64_t)i,
                               .cancel = cancel};
      mc_search_result r;
      if ((rc = mc_search_run(s, &req, &r)) < 0)
        break;
      out->nodes += r.nodes;
      out->time_ms += r.time_ms;
      out->stopped = out->stopped || r.stopped;
      if (r.depth < out->depth)
        out->depth = r.depth;
      exact = r.exact;
      /* North to move may swap: the first player gets the worse of the two sides' values.
       * Within the turn (cut), -|value| too: the least the first player can make of it (exact
       * when it is behind there). A Congkak round that ended within the turn leaves no swap: the
       * value as it is. */
      if (mc_game_can_swap(g) || pie_first_turn(g)) {
        v = -(r.value < 0 ? -r.value : r.value);
        exact = exact && !pie_first_turn(g);
      } else {
        v = mc_game_pos(g)->turn == MC_SOUTH ? r.value : -r.value;
      }
    }
    const int m = p.root[i];
    if (!seen[m] || v > best_value[m])
      best_value[m] = v, best_exact[m] = exact;
    seen[m] = true;
    all_exact = all_exact && exact;
  }
  for (int i = 0; i < p.n; i++)
    mc_game_free(p.game[i]);
  if (rc != 0)
    return rc < 0 ? rc : 0;
  for (int m = 1; m <= MC_MAX_HOUSES; m++) {
    if (!seen[m])
      continue;
    out->moves[out->nmoves++] = (mc_move_value){(uint8_t)m, best_exact[m], true, best_value[m]};
    if (out->move == 0 || best_value[m] > out->value) {
      out->move = out->best = m;
      out->value = best_value[m];
      out->exact = all_exact;
    }
  }
  out->pv_len = 1;
  out->pv[0] = (uint8_t)out->move;
  return 1;
}

int mc_search_game(mc_search *s, const mc_game *game, int level, long time_ms, uint64_t seed,
                   const atomic_bool *cancel, mc_search_result *out) {
  if (s == NULL || game == NULL || out == NULL)
    return MC_EINVAL;
  mc_level lv;
  if (mc_level_get(level, &lv) < 0)
    return MC_EINVAL;
  if (mc_game_over(game, NULL))
    return MC_EOVER;
  /* Level 6's time is the caller's (its table's second is only the default). */
  lv.time_ms = mc_level_time(&lv, time_ms);
  int planned = mc_search_pie_first(s, game, &lv, time_ms, seed, cancel, out);
  if (planned != 0)
    return planned < 0 ? planned : 0;
  size_t hn;
  const mc_pos *hist = mc_game_history(game, &hn);
  mc_search_request req = {
      .rules = mc_game_rules(game),
      .pos = mc_game_pos(game),
      .history = hist,
      .history_len = hn,
      .limits = {time_ms, 0, 0},
      .level = &lv,
      .seed = seed,
      .cancel = cancel,
  };
  int rc = mc_search_run(s, &req, out);
  if (rc == 0 && mc_game_can_swap(game))
    mc_search_pie(out);
  return rc;
}

void mc_search_pie(mc_search_result *r) {
  /* The position stays and the same side moves after a swap, now played by the other player: the
   * swapper gets the negation of what the side to move gets. Swap when that is more, i.e. when the
   * first turn left the first mover ahead. */
  if (r->value >= 0)
    return;
  r->value = -r->value;
  r->move = r->best = MC_SWAP;
  r->pv_len = 1;
  r->pv[0] = MC_SWAP;
}

bool mc_search_accepts_draw(const mc_search_result *r) {
  if (r == NULL)
    return false;
  return r->exact ? r->value <= 0 : r->value < MC_SEED / 2;
}
