/* Exact values of small Oware boards (see mc_retro.h). */
#include "mc_retro.h"

#include <stdlib.h>
#include <string.h>

#include "mc_error.h"
#include "mc_internal.h"
#include "mc_pos.h"

#define DEFAULT_MAX_POSITIONS 4000000u
/* Deepest line of the history search (positions in windows along one line). */
#define MAX_DEPTH 100000
#define NONE UINT32_MAX

typedef struct graph {
  mc_rules rules;
  int m, total;
  mc_pos *pos;
  uint32_t n, cap;
  uint32_t *slots; /* Open addressing: index into pos, NONE when free. */
  uint32_t mask;
  /* Per position, m moves: child index (NONE: the move ends the game, worth term), and the
   * value of the repetition end at the child (same window only). */
  uint32_t *child;
  int8_t *term, *rep;
  uint8_t *nmoves;
  /* Strongly connected component of each position in the graph of moves: a position can occur
   * again only within its own component, so a component entered afresh has no history. */
  uint32_t *scc;
  uint32_t sccs, largest;
  int8_t *lo, *hi;
  /* History search. */
  uint8_t *count;              /* Occurrences in the current line's window. */
  int8_t *start_lo, *start_hi; /* Bounds of the value with no history (window starts). */
  uint64_t nodes, max_nodes;
  int depth;
  bool overflow;
  /* Transpositions of the history search: a value depends on the position and on how often each
   * position occurred in its window, which `window` hashes (a sum of one key per occurrence). */
  uint64_t window;
  struct tt_entry *tt;
  uint64_t tt_mask;
} graph;

enum { TT_EXACT = 1, TT_LOWER = 2, TT_UPPER = 3 };

typedef struct tt_entry {
  uint64_t key; /* The window hash mixed with the position, 0: empty. */
  uint32_t pos;
  int8_t value;
  uint8_t flag;
} tt_entry;

#define TT_ENTRIES (1u << 22)

static uint64_t occ_key(uint32_t i) {
  uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t hash_pos(const mc_pos *p, int m) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < 2 * m + 2; i++)
    h = (h ^ p->pits[i]) * 1099511628211ull;
  h = (h ^ p->turn) * 1099511628211ull;
  return h ^ (h >> 29);
}

static bool same_pos(const mc_pos *a, const mc_pos *b, int m) {
  return a->turn == b->turn && memcmp(a->pits, b->pits, (size_t)(2 * m + 2)) == 0;
}

/* Doubles the hash table. */
static int grow_slots(graph *g) {
  uint64_t slots = ((uint64_t)g->mask + 1) * 2;
  if (slots > UINT32_MAX)
    return MC_ELIMIT;
  uint32_t *ns = malloc(slots * sizeof *ns);
  if (ns == NULL)
    return MC_ENOMEM;
  memset(ns, 0xff, slots * sizeof *ns);
  uint32_t mask = (uint32_t)slots - 1;
  for (uint32_t k = 0; k < g->n; k++) {
    uint32_t i = (uint32_t)hash_pos(&g->pos[k], g->m) & mask;
    while (ns[i] != NONE)
      i = (i + 1) & mask;
    ns[i] = k;
  }
  free(g->slots);
  g->slots = ns;
  g->mask = mask;
  return 0;
}

/* Index of p, added when new. NONE: the cap is reached (MC_ELIMIT in *err) or MC_ENOMEM. */
static uint32_t intern(graph *g, const mc_pos *p, uint32_t max, int *err) {
  if ((uint64_t)g->n * 2 >= (uint64_t)g->mask + 1) {
    int rc = grow_slots(g);
    if (rc < 0) {
      *err = rc;
      return NONE;
    }
  }
  uint64_t h = hash_pos(p, g->m);
  uint32_t i = (uint32_t)h & g->mask;
  while (g->slots[i] != NONE) {
    if (same_pos(&g->pos[g->slots[i]], p, g->m))
      return g->slots[i];
    i = (i + 1) & g->mask;
  }
  if (g->n >= max) {
    *err = MC_ELIMIT;
    return NONE;
  }
  if (g->n == g->cap) {
    uint32_t cap = g->cap * 2;
    mc_pos *np = realloc(g->pos, (size_t)cap * sizeof *np);
    if (np == NULL) {
      *err = MC_ENOMEM;
      return NONE;
    }
    g->pos = np;
    g->cap = cap;
  }
  g->pos[g->n] = *p;
  g->slots[i] = g->n;
  return g->n++;
}

static int final_diff(const mc_result *res, int me) {
  return me == MC_SOUTH ? res->score[0] - res->score[1] : res->score[1] - res->score[0];
}

/* Every position reachable from the start, and its moves. */
static int explore(graph *g, uint32_t max) {
  /* The hash table grows to keep its load at most one half. */
  uint64_t slots = 4096;
  g->mask = (uint32_t)slots - 1;
  g->slots = malloc(slots * sizeof *g->slots);
  g->cap = 1024;
  g->pos = malloc((size_t)g->cap * sizeof *g->pos);
  if (g->slots == NULL || g->pos == NULL)
    return MC_ENOMEM;
  memset(g->slots, 0xff, slots * sizeof *g->slots);
  mc_pos start;
  int err = mc_pos_init(&start, &g->rules);
  if (err < 0)
    return err;
  err = 0;
  intern(g, &start, max, &err);
  /* Moves are found in index order; the arrays grow with the positions. */
  size_t mcap = 0;
  for (uint32_t i = 0; i < g->n; i++) {
    if ((size_t)g->n * (size_t)g->m > mcap) {
      size_t nc = (size_t)g->cap * (size_t)g->m;
      uint32_t *c = realloc(g->child, nc * sizeof *c);
      if (c == NULL)
        return MC_ENOMEM;
      g->child = c;
      int8_t *t = realloc(g->term, nc), *r = realloc(g->rep, nc);
      if (t)
        g->term = t;
      if (r)
        g->rep = r;
      uint8_t *nm = realloc(g->nmoves, g->cap);
      if (nm)
        g->nmoves = nm;
      if (!t || !r || !nm)
        return MC_ENOMEM;
      mcap = nc;
    }
    const mc_pos p = g->pos[i];
    uint8_t moves[MC_MAX_HOUSES];
    int n = mc_pos_legal(&p, &g->rules, moves);
    if (n < 0)
      return n;
    g->nmoves[i] = (uint8_t)n;
    for (int k = 0; k < n; k++) {
      mc_pos c = p;
      mc_result res;
      int rc = mc_pos_play(&c, &g->rules, moves[k], NULL, &res);
      size_t e = (size_t)i * (size_t)g->m + (size_t)k;
      if (rc < 0)
        return rc;
      g->term[e] = 0;
      g->rep[e] = 0;
      if (rc == 1) {
        g->child[e] = NONE;
        g->term[e] = (int8_t)final_diff(&res, p.turn);
        continue;
      }
      uint32_t ci = intern(g, &c, max, &err);
      if (ci == NONE)
        return err;
      g->child[e] = ci;
      if (mc__epoch(&c) == mc__epoch(&p)) {
        mc_pos r = c;
        mc_result rr;
        mc_pos_end_repetition(&r, &g->rules, NULL, &rr);
        g->rep[e] = (int8_t)final_diff(&rr, p.turn);
      }
    }
  }
  return 0;
}

/* The strongly connected components of the graph of moves (Tarjan's algorithm, with explicit
 * stacks): g->scc, g->sccs and the size of the largest in g->largest. A capture never leads back
 * (stores only grow), so a component lies within one repetition window. */
static int components(graph *g) {
  const uint32_t n = g->n;
  uint32_t *index = malloc((size_t)n * sizeof *index), *low = malloc((size_t)n * sizeof *low);
  uint32_t *stack = malloc((size_t)n * sizeof *stack);
  struct frame {
    uint32_t v;
    int k;
  } *call = malloc((size_t)n * sizeof *call);
  uint8_t *on = calloc(n, 1);
  g->scc = malloc((size_t)n * sizeof *g->scc);
  if (!index || !low || !stack || !call || !on || !g->scc) {
    free(index), free(low), free(stack), free(call), free(on);
    return MC_ENOMEM;
  }
  memset(index, 0xff, (size_t)n * sizeof *index);
  uint32_t next = 0, sp = 0;
  g->sccs = g->largest = 0;
  for (uint32_t r = 0; r < n; r++) {
    if (index[r] != NONE)
      continue;
    size_t cs = 0;
    index[r] = low[r] = next++;
    stack[sp++] = r;
    on[r] = 1;
    call[cs++] = (struct frame){r, 0};
    while (cs > 0) {
      struct frame *f = &call[cs - 1];
      const uint32_t v = f->v;
      if (f->k < g->nmoves[v]) {
        uint32_t w = g->child[(size_t)v * (size_t)g->m + (size_t)f->k++];
        if (w == NONE)
          continue;
        if (index[w] == NONE) {
          index[w] = low[w] = next++;
          stack[sp++] = w;
          on[w] = 1;
          call[cs++] = (struct frame){w, 0};
        } else if (on[w] && index[w] < low[v]) {
          low[v] = index[w];
        }
        continue;
      }
      if (low[v] == index[v]) {
        uint32_t size = 0, w;
        do {
          w = stack[--sp];
          on[w] = 0;
          g->scc[w] = g->sccs;
          size++;
        } while (w != v);
        g->sccs++;
        if (size > g->largest)
          g->largest = size;
      }
      if (--cs > 0 && low[v] < low[call[cs - 1].v])
        low[call[cs - 1].v] = low[v];
    }
  }
  free(index), free(low), free(stack), free(call), free(on);
  return 0;
}

/* Whether move e of position i may lead to a position that occurred before in the game: only a
 * child of i's own component can (a position before i that i reaches is in its component). */
static bool may_recur(const graph *g, uint32_t i, uint32_t c) {
  return g->scc[c] == g->scc[i];
}

/* Step 1: bounds valid for every history, by value iteration until nothing changes. */
static int bound(graph *g) {
  int sweeps = 0;
  for (uint32_t i = 0; i < g->n; i++) {
    g->lo[i] = (int8_t)-g->total;
    g->hi[i] = (int8_t)g->total;
  }
  bool changed = true;
  while (changed) {
    changed = false;
    sweeps++;
    for (uint32_t i = g->n; i-- > 0;) {
      int lo = -1000, hi = -1000;
      for (int k = 0; k < g->nmoves[i]; k++) {
        size_t e = (size_t)i * (size_t)g->m + (size_t)k;
        int ml, mh;
        if (g->child[e] == NONE) {
          ml = mh = g->term[e];
        } else {
          uint32_t c = g->child[e];
          ml = -g->hi[c];
          mh = -g->lo[c];
          if (may_recur(g, i, c)) {
            /* Any history may make this the third occurrence of the child. */
            if (g->rep[e] < ml)
              ml = g->rep[e];
            if (g->rep[e] > mh)
              mh = g->rep[e];
          }
        }
        if (ml > lo)
          lo = ml;
        if (mh > hi)
          hi = mh;
      }
      if (lo != g->lo[i] || hi != g->hi[i]) {
        g->lo[i] = (int8_t)lo;
        g->hi[i] = (int8_t)hi;
        changed = true;
      }
    }
  }
  return sweeps;
}

static int search(graph *g, uint32_t q, int alpha, int beta, int *best_move);

/* Step 2 at a window start s: its value with no history, fail-soft within (alpha, beta), its
 * bounds kept (a start has one value: every capture that reaches it starts its window afresh). */
static int start_value(graph *g, uint32_t s, int alpha, int beta) {
  int lo = g->start_lo[s], hi = g->start_hi[s];
  if (lo == hi || lo >= beta)
    return lo;
  if (hi <= alpha)
    return hi;
  const int a = alpha > lo ? alpha : lo, b = beta < hi ? beta : hi;
  uint64_t outer = g->window;
  g->window = occ_key(s);
  g->count[s]++;
  int v = search(g, s, a, b, NULL);
  g->count[s]--;
  g->window = outer;
  if (!g->overflow) {
    if (v <= a)
      g->start_hi[s] = (int8_t)(v < hi ? v : hi);
    else if (v >= b)
      g->start_lo[s] = (int8_t)(v > lo ? v : lo);
    else
      g->start_lo[s] = g->start_hi[s] = (int8_t)v;
  }
  return v;
}

/* The value of q for its side to move, the line's window counted in g->count (q included),
 * fail-soft alpha-beta. */
static int search(graph *g, uint32_t q, int alpha, int beta, int *best_move) {
  if (g->lo[q] == g->hi[q] && best_move == NULL)
    return g->lo[q];
  if (++g->nodes > g->max_nodes && g->max_nodes) {
    g->overflow = true;
    return 0;
  }
  if (g->overflow)
    return 0;
  if (best_move == NULL) {
    if (g->lo[q] >= beta)
      return g->lo[q];
    if (g->hi[q] <= alpha)
      return g->hi[q];
  }
  /* The window (q included) and q decide the value. */
  const uint64_t key = (g->window ^ occ_key(q) * 31u) | 1u;
  tt_entry *te = &g->tt[key & g->tt_mask];
  if (best_move == NULL && te->key == key && te->pos == q) {
    int tv = te->value;
    if (te->flag == TT_EXACT || (te->flag == TT_LOWER && tv >= beta) ||
        (te->flag == TT_UPPER && tv <= alpha))
      return tv;
  }
  if (g->depth >= MAX_DEPTH) {
    g->overflow = true;
    return 0;
  }
  g->depth++;
  const int alpha0 = alpha;
  /* Order: the moves whose guaranteed value is highest first. */
  int n = g->nmoves[q], order[MC_MAX_HOUSES], rank[MC_MAX_HOUSES];
  for (int k = 0; k < n; k++) {
    size_t e = (size_t)q * (size_t)g->m + (size_t)k;
    rank[k] = g->child[e] == NONE ? g->term[e] : -g->hi[g->child[e]];
    int j = k;
    while (j > 0 && rank[order[j - 1]] < rank[k]) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = k;
  }
  int best = -1000;
  for (int o = 0; o < n && !g->overflow; o++) {
    int k = order[o];
    size_t e = (size_t)q * (size_t)g->m + (size_t)k;
    uint32_t c = g->child[e];
    int v;
    if (c == NONE)
      v = g->term[e];
    else if (!may_recur(g, q, c))
      /* Another component (after a capture, or leaving q's for good): nothing before it can
       * occur again, so its value is its own, with no history. */
      v = -start_value(g, c, -beta, -(alpha > best ? alpha : best));
    else if (g->count[c] >= 2)
      v = g->rep[e]; /* Its third occurrence: the game ends (rule 6). */
    else {
      g->count[c]++;
      g->window += occ_key(c);
      v = -search(g, c, -beta, -(alpha > best ? alpha : best), NULL);
      g->window -= occ_key(c);
      g->count[c]--;
    }
    if (v > best) {
      best = v;
      if (best_move)
        *best_move = k;
    }
    if (best >= beta)
      break;
  }
  g->depth--;
  if (!g->overflow) {
    te->key = key;
    te->pos = q;
    te->value = (int8_t)best;
    te->flag = best >= beta ? TT_LOWER : best <= alpha0 ? TT_UPPER : TT_EXACT;
  }
  return best;
}

static void graph_free(graph *g) {
  free(g->pos);
  free(g->slots);
  free(g->child);
  free(g->term);
  free(g->rep);
  free(g->nmoves);
  free(g->scc);
  free(g->lo);
  free(g->hi);
  free(g->count);
  free(g->start_lo);
  free(g->start_hi);
  free(g->tt);
}

int mc_retro_solve(const mc_rules *rules, uint64_t max_positions, uint64_t max_nodes,
                   mc_retro_result *out) {
  if (rules == NULL || out == NULL || rules->kind != MC_OWARE || rules->houses > 8)
    return MC_EINVAL;
  mc_pos probe;
  if (mc_pos_init(&probe, rules) < 0)
    return MC_EINVAL;
  graph g;
  memset(&g, 0, sizeof g);
  g.rules = *rules;
  g.rules.pie = false;
  g.m = rules->houses;
  g.total = (int)mc_pos_total(&probe);
  if (g.total > 120)
    return MC_EINVAL; /* Values must fit int8_t. */
  uint64_t cap = max_positions ? max_positions : DEFAULT_MAX_POSITIONS;
  if (cap > UINT32_MAX / 4)
    cap = UINT32_MAX / 4;
  int rc = explore(&g, (uint32_t)cap);
  if (rc == 0)
    rc = components(&g);
  if (rc == 0) {
    g.lo = malloc(g.n);
    g.hi = malloc(g.n);
    g.count = calloc(g.n, 1);
    g.start_lo = malloc(g.n);
    g.start_hi = malloc(g.n);
    g.tt = calloc(TT_ENTRIES, sizeof *g.tt);
    g.tt_mask = TT_ENTRIES - 1;
    if (!g.lo || !g.hi || !g.count || !g.start_lo || !g.start_hi || !g.tt)
      rc = MC_ENOMEM;
  }
  if (rc < 0) {
    graph_free(&g);
    return rc;
  }
  memset(out, 0, sizeof *out);
  out->sweeps = bound(&g);
  out->positions = g.n;
  out->components = g.sccs;
  out->largest = g.largest;
  for (uint32_t i = 0; i < g.n; i++)
    out->forced += g.lo[i] == g.hi[i];
  out->lo = g.lo[0];
  out->hi = g.hi[0];
  /* The start (index 0) with no history, South to move: null-window tests that close the bounds
   * (MTD-style bisection), each capture child's bounds kept between them. */
  memcpy(g.start_lo, g.lo, g.n);
  memcpy(g.start_hi, g.hi, g.n);
  g.max_nodes = max_nodes;
  int lo = g.lo[0], hi = g.hi[0], k = -1, v = 0;
  g.count[0]++;
  while (!g.overflow && (lo < hi || k < 0)) {
    int t = lo < hi ? lo + (hi - lo + 1) / 2 : lo; /* Is the value >= t? */
    int kk = -1;
    g.window = occ_key(0);
    v = search(&g, 0, t - 1, t, &kk);
    if (g.overflow)
      break;
    if (v >= t) {
      lo = v;
      k = kk;
    } else {
      hi = v;
    }
    if (hi < lo)
      break; /* Cannot happen: bounds that cross would be a bug; no value is claimed. */
  }
  g.count[0]--;
  v = lo;
  if (lo <= hi) {
    out->lo = lo; /* Proven by the tests so far, whether or not they closed. */
    out->hi = hi;
  }
  out->nodes = g.nodes;
  for (uint32_t i = 1; i < g.n; i++)
    out->starts += g.start_lo[i] == g.start_hi[i] && g.lo[i] != g.hi[i];
  if (!g.overflow && k >= 0 && lo == hi) {
    uint8_t moves[MC_MAX_HOUSES];
    mc_pos_legal(&g.pos[0], &g.rules, moves);
    out->exact = true;
    out->value = out->lo = out->hi = v;
    out->best = moves[k];
  }
  graph_free(&g);
  return 0;
}
