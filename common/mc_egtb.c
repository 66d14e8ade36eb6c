/* Endgame tables: building by retrograde analysis, files, probing.
 *
 * Index. A board is normalized so that the side to move owns houses 0..m-1 and the other side
 * houses m..2m-1 (k = 2m houses in all). The boards with B seeds are the compositions of B into
 * k parts, ranked by the combinatorial number system over their k-1 "bar" positions
 * (bar j = a_0 + ... + a_j + j): rank = sum_j C(bar_j, j + 1). Kalah stores one value per board,
 * boards of B seeds after all boards of fewer seeds (offset C(B + k - 1, k)). Oware stores, for
 * each board, the values for d = 1..B+1 (the seeds the side to move still needs for a majority).
 *
 * Values are the difference of the seeds the two sides will still gain, for the side to move.
 *
 * Building uses the engine's own move function on real positions: for a board (and d) it makes a
 * position with those houses (and stores giving that d), plays every legal move with mc__play()
 * and reads the gains from the stores.
 *   - Kalah: a move either puts a seed into a store (fewer seeds on the board: a smaller table,
 *     already built) or keeps every seed of the mover on the mover's side, one step nearer its
 *     store. So within a level there is no cycle, and a memoized recursion computes the level.
 *   - Oware: moves that capture lead to smaller levels. Moves that do not capture can cycle
 *     (positions repeat), and repetition (rule 6) makes the exact value depend on the history.
 *     The table holds bounds [lo, hi] valid for every history: the strongly connected components
 *     of the level's no-capture move graph are found (Tarjan) and solved children first; within
 *     a component, a move may reach a position for its third time, ending the game with each
 *     side taking its own houses, so the outcome of a move to c lies between
 *     min(-hi(c), -rep(c)) and max(-lo(c), -rep(c)); the bounds start at [-B, B] and are
 *     tightened until nothing changes. Outside components (no cycle) the bounds are exact.
 */
#include "mc_egtb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mc_error.h"
#include "mc_internal.h"
#include "mc_search_internal.h"

#define MAX_TABLES 16
#define MAX_K (2 * MC_MAX_HOUSES)
#define MAX_N 192 /* Largest n in C(n, r): seeds + k. */
#define UNKNOWN INT8_MIN
#define HEADER 128
#define FORMAT 1
#define MAX_ENTRIES (UINT64_C(1) << 32)

static const char magic[8] = {'M', 'C', 'E', 'G', 'T', 'B', 0, 1};

typedef struct table {
  mc_rules rules;
  int k;           /* Houses in the index: 2m. */
  int max_seeds;   /* Levels 0..max_seeds. */
  int entry_bytes; /* 1: Kalah value; 2: Oware lo, hi. */
  uint64_t *off;   /* off[B]: first entry of level B (max_seeds + 2 of them). */
  uint64_t (*binom)[MAX_K + 1];
  uint64_t entries, open, hash, file_bytes;
  double build_secs;
  int8_t *data;
  char name[64];
} table;

struct mc_egtb {
  int n;
  table t[MAX_TABLES];
};

/* An Oware entry: bounds valid for every history. */
#define OW_BYTES 2
#define OW_LO(t, e) ((t)->data[OW_BYTES * (e)])
#define OW_HI(t, e) ((t)->data[OW_BYTES * (e) + 1])

/* ---- small helpers -------------------------------------------------------------------------- */

static int variant_of(const mc_rules *r) {
  return r->kind == MC_KALAH ? (int)r->empty_capture : (int)r->grand_slam;
}

static bool same_variant(const mc_rules *a, const mc_rules *b) {
  return a->kind == b->kind && a->houses == b->houses && variant_of(a) == variant_of(b);
}

int mc_egtb_supported(const mc_rules *rules) {
  return mc_rules_check(rules) == 0 && (rules->kind == MC_KALAH || rules->kind == MC_OWARE);
}

/* Entries of a table of k houses and max_seeds seeds (Oware: one per d), or UINT64_MAX when it
 * would not fit the index. */
static uint64_t count_entries(int kind, int k, int max_seeds) {
  /* C(n, r) by the multiplicative formula, exact in 64 bits for the sizes allowed. */
  uint64_t total = 0;
  for (int b = 0; b <= max_seeds; b++) {
    uint64_t c = 1;
    for (int i = 1; i <= k - 1; i++) {
      c = c * (uint64_t)(b + i) / (uint64_t)i;
      if (c > MAX_ENTRIES)
        return UINT64_MAX;
    }
    total += kind == MC_OWARE ? c * (uint64_t)(b + 1) : c;
    if (total > MAX_ENTRIES)
      return UINT64_MAX;
  }
  return total;
}

uint64_t mc_egtb_entries(const mc_rules *rules, int max_seeds) {
  if (!mc_egtb_supported(rules) || max_seeds < 0 || max_seeds + 2 * rules->houses >= MAX_N)
    return UINT64_MAX;
  return count_entries(rules->kind, 2 * rules->houses, max_seeds);
}

int mc_egtb_default_seeds(const mc_rules *rules) {
  if (!mc_egtb_supported(rules))
    return 0;
  /* Budgets in entries: a Kalah entry is one byte, an Oware entry two (docs/computer.md). */
  const uint64_t budget = rules->kind == MC_KALAH ? UINT64_C(31000000) : UINT64_C(3000000);
  const int k = 2 * rules->houses, cap = 2 * rules->houses * MC_MAX_SEEDS;
  int best = 0;
  for (int b = 1; b <= cap && b + k < MAX_N; b++) {
    if (count_entries(rules->kind, k, b) > budget)
      break;
    best = b;
  }
  return best;
}

int mc_egtb_file_name(const mc_rules *rules, char *buf, size_t size) {
  if (!mc_egtb_supported(rules) || (buf == NULL && size))
    return MC_EINVAL;
  if (rules->kind == MC_KALAH)
    return snprintf(buf, size, "kalah-%d-%s.egtb", rules->houses,
                    rules->empty_capture ? "empty-capture" : "standard");
  return snprintf(buf, size, "oware-%d-%s.egtb", rules->houses,
                  mc_grand_slam_name(rules->grand_slam));
}

/* A 64-bit multiply-rotate hash of a buffer: a check against corruption, not a secret. */
static uint64_t hash_bytes(const void *buf, size_t len, uint64_t h) {
  const unsigned char *p = buf;
  const uint64_t k1 = UINT64_C(0x9E3779B97F4A7C15), k2 = UINT64_C(0xC2B2AE3D27D4EB4F);
  while (len >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h ^= w * k2;
    h = ((h << 31) | (h >> 33)) * k1;
    p += 8;
    len -= 8;
  }
  uint64_t w = 0;
  for (size_t i = 0; i < len; i++)
    w |= (uint64_t)p[i] << (8 * i);
  h ^= (w + len) * k2;
  return mc__mix(h);
}

static void table_free(table *t) {
  free(t->off);
  free(t->binom);
  free(t->data);
  memset(t, 0, sizeof(*t));
}

/* Prepares the index of t (rules, k, max_seeds, entry_bytes set). Returns 0 or an error. */
static int table_index(table *t) {
  const int k = t->k, top = t->max_seeds + k;
  if (top >= MAX_N)
    return MC_EINVAL;
  t->entries = count_entries(t->rules.kind, k, t->max_seeds);
  if (t->entries == UINT64_MAX)
    return MC_EINVAL;
  t->binom = calloc((size_t)top + 1, sizeof(*t->binom));
  t->off = calloc((size_t)t->max_seeds + 2, sizeof(uint64_t));
  if (t->binom == NULL || t->off == NULL)
    return MC_ENOMEM;
  for (int n = 0; n <= top; n++) {
    t->binom[n][0] = 1;
    for (int r = 1; r <= k && r <= n; r++)
      t->binom[n][r] = t->binom[n - 1][r - 1] + (r <= n - 1 ? t->binom[n - 1][r] : 0);
  }
  uint64_t off = 0;
  for (int b = 0; b <= t->max_seeds; b++) {
    t->off[b] = off;
    const uint64_t boards = t->binom[b + k - 1][k - 1];
    off += t->rules.kind == MC_OWARE ? boards * (uint64_t)(b + 1) : boards;
  }
  t->off[t->max_seeds + 1] = off;
  return off == t->entries ? 0 : MC_EINVAL;
}

/* Rank of the composition a[0..k-1] among the boards of its level. */
static inline uint64_t rank_of(const table *t, const uint8_t *a) {
  uint64_t r = 0;
  int s = 0;
  for (int j = 0; j < t->k - 1; j++) {
    s += a[j];
    r += t->binom[s + j][j + 1];
  }
  return r;
}

/* The normalized board of p for its side to move: its houses, then the other side's. */
static inline void normalize(const mc_pos *p, uint8_t *a) {
  const int m = p->houses, me = p->turn;
  memcpy(a, &p->pits[MC__BASE(m, me)], (size_t)m);
  memcpy(a + m, &p->pits[MC__BASE(m, !me)], (size_t)m);
}

/* ---- probing -------------------------------------------------------------------------------- */

static const table *find(const mc_egtb *tb, const mc_rules *rules) {
  for (int i = 0; i < tb->n; i++)
    if (same_variant(&tb->t[i].rules, rules))
      return &tb->t[i];
  return NULL;
}

int mc_egtb_max_seeds(const mc_egtb *tb, const mc_rules *rules) {
  if (tb == NULL || rules == NULL)
    return -1;
  const table *t = find(tb, rules);
  return t ? t->max_seeds : -1;
}

int mc_egtb_probe(const mc_egtb *tb, const mc_rules *rules, const mc_pos *pos, mc_egtb_value *v) {
  if (tb == NULL || rules == NULL || pos == NULL || v == NULL)
    return MC_EINVAL;
  const table *t = find(tb, rules);
  if (t == NULL || pos->houses != rules->houses)
    return 0;
  const int m = pos->houses, me = pos->turn;
  const int board = mc__board(pos);
  if (board > t->max_seeds)
    return 0;
  const int sm = pos->pits[MC__STORE(m, me)], so = pos->pits[MC__STORE(m, !me)];
  uint8_t a[MAX_K];
  normalize(pos, a);
  const uint64_t r = rank_of(t, a);
  if (t->rules.kind == MC_KALAH) {
    v->lo = v->hi = sm - so + t->data[t->off[board] + r];
    return 1;
  }
  /* Oware: d from an even total (the index assumes one; every real game has 2mn seeds). */
  const int total = sm + so + board;
  if (total & 1)
    return 0;
  const int d = total / 2 + 1 - sm, dother = total / 2 + 1 - so;
  if (d < 1 || dother < 1)
    return 0; /* A majority: the game is over. */
  const uint64_t e = t->off[board] + r * (uint64_t)(board + 1) + (uint64_t)(d - 1);
  v->lo = sm - so + OW_LO(t, e);
  v->hi = sm - so + OW_HI(t, e);
  return 1;
}

/* ---- building: Kalah ------------------------------------------------------------------------ */

typedef struct builder {
  table *t;
  const atomic_bool *cancel;
  mc_egtb_progress_fn *progress;
  void *arg;
} builder;

/* The position of board a (side to move South) with stores s, n. */
static void make_pos(mc_pos *p, const mc_rules *r, const uint8_t *a, int s, int n) {
  const int m = r->houses;
  memset(p, 0, sizeof(*p));
  p->houses = (uint8_t)m;
  p->round = 1;
  memcpy(&p->pits[0], a, (size_t)m);
  memcpy(&p->pits[m + 1], a + m, (size_t)m);
  p->pits[m] = (uint8_t)s;
  p->pits[2 * m + 1] = (uint8_t)n;
}

/* Value of Kalah board a of b seeds (memoized in the table). */
static int kalah_value(table *t, const uint8_t *a, int b) {
  const uint64_t e = t->off[b] + rank_of(t, a);
  if (t->data[e] != UNKNOWN)
    return t->data[e];
  const mc_rules *r = &t->rules;
  const int m = r->houses;
  mc_pos p;
  make_pos(&p, r, a, 0, 0);
  int best;
  if (!mc__side_any(&p, m, 0) || !mc__side_any(&p, m, 1)) {
    best = (int)mc__side_seeds(&p, m, 0) - (int)mc__side_seeds(&p, m, 1);
  } else {
    uint8_t moves[MC_MAX_HOUSES];
    const int n = mc__legal(&p, r, moves);
    best = -128;
    for (int i = 0; i < n; i++) {
      mc_pos c = p;
      const int rc = mc__play(&c, r, moves[i], NULL, NULL);
      const int gain = (int)c.pits[m] - (int)c.pits[2 * m + 1];
      int v;
      if (rc != 0) {
        v = gain;
      } else {
        uint8_t ca[MAX_K];
        normalize(&c, ca);
        const int cv = kalah_value(t, ca, mc__board(&c));
        v = c.turn == MC_SOUTH ? gain + cv : gain - cv;
      }
      if (v > best)
        best = v;
    }
  }
  t->data[e] = (int8_t)best;
  return best;
}

/* Steps bars c[0..k-2] (strictly increasing in [0, slots)) to the next set in colex order.
 * Returns 0 after the last. */
static int next_bars(int *c, int k, int slots) {
  for (int i = 0; i < k - 1; i++) {
    const int limit = i + 1 < k - 1 ? c[i + 1] : slots;
    if (c[i] + 1 < limit) {
      c[i]++;
      for (int j = 0; j < i; j++)
        c[j] = j;
      return 1;
    }
  }
  return 0;
}

static void bars_to_board(const int *c, int k, int b, uint8_t *a) {
  if (k == 1) {
    a[0] = (uint8_t)b;
    return;
  }
  a[0] = (uint8_t)c[0];
  for (int j = 1; j < k - 1; j++)
    a[j] = (uint8_t)(c[j] - c[j - 1] - 1);
  a[k - 1] = (uint8_t)(b + k - 2 - c[k - 2]);
}

static void first_bars(int *c, int k) {
  for (int j = 0; j < k - 1; j++)
    c[j] = j;
}

static bool canceled(const builder *bd) {
  return bd->cancel && atomic_load(bd->cancel);
}

static int build_kalah(builder *bd) {
  table *t = bd->t;
  const int k = t->k;
  memset(t->data, UNKNOWN, t->entries);
  for (int b = 0; b <= t->max_seeds; b++) {
    int c[MAX_K];
    uint8_t a[MAX_K];
    first_bars(c, k);
    uint64_t count = 0;
    do {
      bars_to_board(c, k, b, a);
      kalah_value(t, a, b);
      if ((++count & 0xfff) == 0 && canceled(bd))
        return MC_ECANCELED;
    } while (next_bars(c, k, b + k - 1));
    if (bd->progress)
      bd->progress(bd->arg, t->name, b, t->max_seeds);
  }
  return 0;
}

/* ---- building: Oware ------------------------------------------------------------------------ */

typedef struct level {
  int b;
  uint64_t boards;
  uint32_t *edges; /* m per board: rank of the no-capture child, UINT32_MAX: none. */
  uint32_t *comp;  /* Component of each board. */
  uint32_t *order; /* Boards in the order their components completed (children first). */
  uint32_t *start; /* Component c spans order[start[c] .. start[c + 1]). */
  uint32_t ncomp;
  bool *self; /* Component c has a single board with an edge to itself. */
} level;

/* The board of level rank r (unranking by walking the bars down). */
static void unrank(const table *t, int b, uint64_t r, uint8_t *a) {
  const int k = t->k;
  int c[MAX_K];
  int top = b + k - 2;
  for (int j = k - 2; j >= 0; j--) {
    while (t->binom[top][j + 1] > r)
      top--;
    c[j] = top;
    r -= t->binom[top][j + 1];
    top--;
  }
  bars_to_board(c, k, b, a);
}

/* Stores for a board of b seeds where the side to move (South) needs d more seeds for a
 * majority: all seeds 2(b+1), so a majority is b+2; South holds b+2-d, North d, and North needs
 * b+2-d (the two needs add up to b+2 whatever the total). */
static inline void oware_stores(int b, int d, int *s, int *n) {
  *s = b + 2 - d;
  *n = d;
}

/* The no-capture children of every board of the level (for the components). */
static int oware_edges(table *t, level *lv) {
  const mc_rules *r = &t->rules;
  const int m = r->houses, b = lv->b;
  lv->edges = malloc(lv->boards * (size_t)m * sizeof(uint32_t));
  if (lv->edges == NULL)
    return MC_ENOMEM;
  int c[MAX_K];
  uint8_t a[MAX_K];
  first_bars(c, t->k);
  for (uint64_t i = 0; i < lv->boards; i++) {
    bars_to_board(c, t->k, b, a);
    next_bars(c, t->k, b + t->k - 1);
    uint32_t *e = &lv->edges[i * (size_t)m];
    for (int j = 0; j < m; j++)
      e[j] = UINT32_MAX;
    int s, n;
    oware_stores(b, b + 1, &s, &n);
    mc_pos p;
    make_pos(&p, r, a, s, n);
    mc_pos q = p;
    if (mc__oware_end(&q, NULL, NULL))
      continue;
    uint8_t moves[MC_MAX_HOUSES];
    const int nm = mc__legal(&p, r, moves);
    for (int j = 0; j < nm; j++) {
      mc_pos ch = p;
      if (mc__play(&ch, r, moves[j], NULL, NULL) == 0 && mc__board(&ch) == b) {
        uint8_t ca[MAX_K];
        normalize(&ch, ca);
        e[j] = (uint32_t)rank_of(t, ca);
      }
    }
  }
  return 0;
}

/* Tarjan's strongly connected components, without recursion. */
static int oware_components(table *t, level *lv) {
  const int m = t->rules.houses;
  const uint64_t nb = lv->boards;
  uint32_t *index = malloc(nb * sizeof(uint32_t));
  uint32_t *low = malloc(nb * sizeof(uint32_t));
  uint32_t *stack = malloc(nb * sizeof(uint32_t));
  uint32_t *call = malloc(nb * sizeof(uint32_t));
  uint8_t *next = malloc(nb);
  bool *on = calloc(nb, sizeof(bool));
  lv->comp = malloc(nb * sizeof(uint32_t));
  lv->order = malloc(nb * sizeof(uint32_t));
  lv->start = malloc((nb + 1) * sizeof(uint32_t));
  lv->self = calloc(nb, sizeof(bool));
  int rc = 0;
  if (!index || !low || !stack || !call || !next || !on || !lv->comp || !lv->order || !lv->start ||
      !lv->self) {
    rc = MC_ENOMEM;
    goto done;
  }
  for (uint64_t i = 0; i < nb; i++)
    index[i] = UINT32_MAX;
  uint32_t counter = 0, sp = 0, cp = 0, placed = 0;
  lv->ncomp = 0;
  for (uint64_t root = 0; root < nb; root++) {
    if (index[root] != UINT32_MAX)
      continue;
    call[cp++] = (uint32_t)root;
    index[root] = low[root] = counter++;
    next[root] = 0;
    stack[sp++] = (uint32_t)root;
    on[root] = true;
    while (cp) {
      const uint32_t v = call[cp - 1];
      if (next[v] < m) {
        const uint32_t w = lv->edges[(size_t)v * m + next[v]];
        next[v]++;
        if (w == UINT32_MAX)
          continue;
        if (index[w] == UINT32_MAX) {
          index[w] = low[w] = counter++;
          next[w] = 0;
          stack[sp++] = w;
          on[w] = true;
          call[cp++] = w;
        } else if (on[w] && index[w] < low[v]) {
          low[v] = index[w];
        }
        continue;
      }
      cp--;
      if (cp && low[v] < low[call[cp - 1]])
        low[call[cp - 1]] = low[v];
      if (low[v] == index[v]) {
        const uint32_t c = lv->ncomp++;
        lv->start[c] = placed;
        uint32_t w;
        do {
          w = stack[--sp];
          on[w] = false;
          lv->comp[w] = c;
          lv->order[placed++] = w;
        } while (w != v);
        if (placed - lv->start[c] == 1)
          for (int j = 0; j < m; j++)
            if (lv->edges[(size_t)v * m + j] == v)
              lv->self[c] = true;
      }
    }
  }
  lv->start[lv->ncomp] = placed;
done:
  free(index);
  free(low);
  free(stack);
  free(call);
  free(next);
  free(on);
  return rc;
}

/* Bounds for board a (rank r in level lv) and d from its children's current bounds. */
static void oware_bounds(table *t, const level *lv, const uint8_t *a, uint32_t r, int d, int *plo,
                         int *phi) {
  const mc_rules *r_ = &t->rules;
  const int m = r_->houses, b = lv->b;
  int s, n;
  oware_stores(b, d, &s, &n);
  mc_pos p;
  make_pos(&p, r_, a, s, n);
  mc_pos q = p;
  if (mc__oware_end(&q, NULL, NULL)) {
    /* Over before a move (unreachable in play: the move that led here ended the game). */
    *plo = *phi = ((int)q.pits[m] - s) - ((int)q.pits[2 * m + 1] - n);
    return;
  }
  uint8_t moves[MC_MAX_HOUSES];
  const int nm = mc__legal(&p, r_, moves);
  int lo = -128, hi = -128;
  for (int j = 0; j < nm; j++) {
    mc_pos c = p;
    const int rc = mc__play(&c, r_, moves[j], NULL, NULL);
    const int gain = ((int)c.pits[m] - s) - ((int)c.pits[2 * m + 1] - n);
    int vlo, vhi;
    if (rc != 0) {
      vlo = vhi = gain;
    } else {
      uint8_t ca[MAX_K];
      normalize(&c, ca);
      const int cb = mc__board(&c);
      const uint64_t cr = rank_of(t, ca);
      /* The child's d: its mover (North here) needs this many for a majority. */
      const int total = 2 * (b + 1);
      const int cd = total / 2 + 1 - c.pits[2 * m + 1];
      const uint64_t e = t->off[cb] + cr * (uint64_t)(cb + 1) + (uint64_t)(cd - 1);
      vlo = gain - OW_HI(t, e);
      vhi = gain - OW_LO(t, e);
      if (cb == b && lv->comp[cr] == lv->comp[r]) {
        /* The child may be a third occurrence: each side takes its own houses. */
        const int rep = gain + (int)mc__side_seeds(&c, m, 0) - (int)mc__side_seeds(&c, m, 1);
        vlo = vlo < rep ? vlo : rep;
        vhi = vhi > rep ? vhi : rep;
      }
    }
    lo = vlo > lo ? vlo : lo;
    hi = vhi > hi ? vhi : hi;
  }
  *plo = lo;
  *phi = hi;
}

static void level_free(level *lv) {
  free(lv->edges);
  free(lv->comp);
  free(lv->order);
  free(lv->start);
  free(lv->self);
  memset(lv, 0, sizeof(*lv));
}

#ifdef MC_EGTB_TRACE
static uint64_t stat_cyc_members, stat_cyc, stat_passes;
#endif

static int build_oware_level(builder *bd, int b) {
  table *t = bd->t;
  level lv = {.b = b, .boards = t->binom[b + t->k - 1][t->k - 1]};
  if (lv.boards >= UINT32_MAX)
    return MC_EINVAL;
  int rc = oware_edges(t, &lv);
  if (rc == 0)
    rc = oware_components(t, &lv);
  if (rc < 0) {
    level_free(&lv);
    return rc;
  }
  for (uint32_t c = 0; c < lv.ncomp && rc == 0; c++) {
    const uint32_t from = lv.start[c], to = lv.start[c + 1];
    const bool cyclic = to - from > 1 || lv.self[c];
    /* Bounds: start from the widest, then tighten until nothing changes (once without a cycle:
     * the children are final). */
    for (uint32_t i = from; i < to; i++) {
      const uint64_t e0 = t->off[b] + (uint64_t)lv.order[i] * (uint64_t)(b + 1);
      for (int d = 1; d <= b + 1; d++) {
        OW_LO(t, e0 + (uint64_t)d - 1) = (int8_t)-b;
        OW_HI(t, e0 + (uint64_t)d - 1) = (int8_t)b;
      }
    }
    bool changed = true;
#ifdef MC_EGTB_TRACE
    if (cyclic) {
      stat_cyc_members += to - from;
      stat_cyc++;
    }
#endif
    while (changed) {
#ifdef MC_EGTB_TRACE
      stat_passes += cyclic;
#endif
      changed = false;
      for (uint32_t i = from; i < to; i++) {
        const uint32_t r = lv.order[i];
        uint8_t a[MAX_K];
        unrank(t, b, r, a);
        const uint64_t e0 = t->off[b] + (uint64_t)r * (uint64_t)(b + 1);
        for (int d = 1; d <= b + 1; d++) {
          int lo, hi;
          oware_bounds(t, &lv, a, r, d, &lo, &hi);
          const uint64_t e = e0 + (uint64_t)d - 1;
          /* Both old and new bounds hold: keep the tighter of each. */
          if (lo > OW_LO(t, e)) {
            OW_LO(t, e) = (int8_t)lo;
            changed = true;
          }
          if (hi < OW_HI(t, e)) {
            OW_HI(t, e) = (int8_t)hi;
            changed = true;
          }
        }
      }
      if (!cyclic)
        break;
    }
    if ((c & 0xfff) == 0 && canceled(bd))
      rc = MC_ECANCELED;
  }
#ifdef MC_EGTB_TRACE
  fprintf(stderr,
          "level %d: %llu boards, %u components, %llu cyclic with %llu boards, %llu passes\n", b,
          (unsigned long long)lv.boards, lv.ncomp, (unsigned long long)stat_cyc,
          (unsigned long long)stat_cyc_members, (unsigned long long)stat_passes);
  stat_cyc = stat_cyc_members = stat_passes = 0;
#endif
  level_free(&lv);
  return rc;
}

static int build_oware(builder *bd) {
  table *t = bd->t;
  for (int b = 0; b <= t->max_seeds; b++) {
    int rc = build_oware_level(bd, b);
    if (rc < 0)
      return rc;
    if (bd->progress)
      bd->progress(bd->arg, t->name, b, t->max_seeds);
  }
  t->open = 0;
  for (uint64_t e = 0; e < t->entries; e++)
    t->open += OW_LO(t, e) != OW_HI(t, e);
  return 0;
}

/* ---- files ---------------------------------------------------------------------------------- */

static void put32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++)
    v |= (uint32_t)p[i] << (8 * i);
  return v;
}

static uint64_t get64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static size_t data_bytes(const table *t) {
  return (size_t)t->entries * (size_t)t->entry_bytes;
}

/* Header: magic, format, kind, houses, variant, entry bytes, max seeds, entries, open entries,
 * build time (ms), data hash, then a hash of these 56 bytes; zero to 128 bytes. */
static void encode_header(const table *t, unsigned char *h) {
  memset(h, 0, HEADER);
  memcpy(h, magic, 8);
  put32(h + 8, FORMAT);
  h[12] = (unsigned char)t->rules.kind;
  h[13] = t->rules.houses;
  h[14] = (unsigned char)variant_of(&t->rules);
  h[15] = (unsigned char)t->entry_bytes;
  put32(h + 16, (uint32_t)t->max_seeds);
  put64(h + 24, t->entries);
  put64(h + 32, t->open);
  put64(h + 40, (uint64_t)(t->build_secs * 1000.0));
  put64(h + 48, t->hash);
  put64(h + 56, hash_bytes(h, 56, 0));
}

static int join(char *buf, size_t size, const char *dir, const char *name) {
  int n = snprintf(buf, size, "%s/%s", dir, name);
  return n < 0 || (size_t)n >= size ? MC_EINVAL : 0;
}

static int write_table(const table *t, const char *dir) {
  char path[4096], tmp[4200];
  if (join(path, sizeof(path), dir, t->name) < 0)
    return MC_EINVAL;
  snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (f == NULL)
    return MC_EIO;
  unsigned char h[HEADER];
  encode_header(t, h);
  int ok = fwrite(h, 1, HEADER, f) == HEADER &&
           fwrite(t->data, 1, data_bytes(t), f) == data_bytes(t) && fflush(f) == 0 &&
           fsync(fileno(f)) == 0;
  ok = fclose(f) == 0 && ok;
  if (!ok || rename(tmp, path) != 0) {
    int e = errno;
    remove(tmp);
    errno = e;
    return MC_EIO;
  }
  return 0;
}

/* Reads a table file into t (rules from the file). want: when not NULL, the variant required
 * (MC_ECORRUPT for another). */
static int read_table(const char *path, const mc_rules *want, table *t) {
  memset(t, 0, sizeof(*t));
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return MC_EIO;
  unsigned char h[HEADER];
  int rc = 0;
  if (fread(h, 1, HEADER, f) != HEADER) {
    rc = ferror(f) ? MC_EIO : MC_ECORRUPT;
    goto fail;
  }
  if (memcmp(h, magic, 8) != 0 || get32(h + 8) != FORMAT || get64(h + 56) != hash_bytes(h, 56, 0)) {
    rc = MC_ECORRUPT;
    goto fail;
  }
  mc_rules r;
  if (mc_rules_init(&r, (mc_kind)h[12]) < 0 || (h[12] != MC_KALAH && h[12] != MC_OWARE)) {
    rc = MC_ECORRUPT;
    goto fail;
  }
  r.houses = h[13];
  if (r.kind == MC_KALAH)
    r.empty_capture = h[14] != 0;
  else
    r.grand_slam = (mc_grand_slam)h[14];
  if (mc_rules_check(&r) < 0 || h[14] > 2 || (r.kind == MC_KALAH && h[14] > 1) ||
      h[15] != (r.kind == MC_KALAH ? 1 : OW_BYTES) || (want && !same_variant(&r, want))) {
    rc = MC_ECORRUPT;
    goto fail;
  }
  t->rules = r;
  t->k = 2 * r.houses;
  t->entry_bytes = h[15];
  t->max_seeds = (int)get32(h + 16);
  if (t->max_seeds < 0 || t->max_seeds + t->k >= MAX_N) {
    rc = MC_ECORRUPT;
    goto fail;
  }
  rc = table_index(t);
  if (rc == MC_EINVAL || (rc == 0 && t->entries != get64(h + 24))) {
    rc = MC_ECORRUPT;
    goto fail;
  }
  if (rc < 0)
    goto fail;
  t->open = get64(h + 32);
  t->build_secs = (double)get64(h + 40) / 1000.0;
  t->hash = get64(h + 48);
  t->data = malloc(data_bytes(t) ? data_bytes(t) : 1);
  if (t->data == NULL) {
    rc = MC_ENOMEM;
    goto fail;
  }
  if (fread(t->data, 1, data_bytes(t), f) != data_bytes(t)) {
    rc = ferror(f) ? MC_EIO : MC_ECORRUPT;
    goto fail;
  }
  if (fgetc(f) != EOF || hash_bytes(t->data, data_bytes(t), 0) != t->hash) {
    rc = MC_ECORRUPT;
    goto fail;
  }
  t->file_bytes = HEADER + data_bytes(t);
  mc_egtb_file_name(&t->rules, t->name, sizeof(t->name));
  fclose(f);
  return 0;
fail:
  fclose(f);
  table_free(t);
  return rc;
}

/* ---- the set -------------------------------------------------------------------------------- */

mc_egtb *mc_egtb_new(void) {
  return calloc(1, sizeof(mc_egtb));
}

void mc_egtb_free(mc_egtb *tb) {
  if (tb == NULL)
    return;
  for (int i = 0; i < tb->n; i++)
    table_free(&tb->t[i]);
  free(tb);
}

int mc_egtb_count(const mc_egtb *tb) {
  return tb ? tb->n : 0;
}

static void fill_info(const table *t, mc_egtb_info *info) {
  memset(info, 0, sizeof(*info));
  info->rules = t->rules;
  info->max_seeds = t->max_seeds;
  info->entries = t->entries;
  info->bytes = HEADER + data_bytes(t);
  info->hash = t->hash;
  info->open = t->open;
  info->build_secs = t->build_secs;
  snprintf(info->name, sizeof(info->name), "%s", t->name);
}

int mc_egtb_table_info(const mc_egtb *tb, int i, mc_egtb_info *info) {
  if (tb == NULL || info == NULL || i < 0 || i >= tb->n)
    return MC_EINVAL;
  fill_info(&tb->t[i], info);
  return 0;
}

int mc_egtb_verify(const char *path, mc_egtb_info *info) {
  if (path == NULL)
    return MC_EINVAL;
  table t;
  int rc = read_table(path, NULL, &t);
  if (rc < 0)
    return rc;
  if (info) {
    fill_info(&t, info);
    const char *slash = strrchr(path, '/');
    snprintf(info->name, sizeof(info->name), "%s", slash ? slash + 1 : path);
  }
  table_free(&t);
  return 0;
}

/* Puts t into the set (taking its memory), replacing a smaller table of the same variant. */
static void adopt(mc_egtb *tb, table *t) {
  for (int i = 0; i < tb->n; i++) {
    if (same_variant(&tb->t[i].rules, &t->rules)) {
      if (tb->t[i].max_seeds >= t->max_seeds) {
        table_free(t);
        return;
      }
      table_free(&tb->t[i]);
      tb->t[i] = *t;
      return;
    }
  }
  tb->t[tb->n++] = *t;
}

static int build_table(const mc_rules *rules, int max_seeds, const mc_egtb_options *o, table *t) {
  memset(t, 0, sizeof(*t));
  mc_rules_init(&t->rules, rules->kind);
  t->rules.houses = rules->houses;
  t->rules.empty_capture = rules->kind == MC_KALAH && rules->empty_capture;
  t->rules.grand_slam = rules->kind == MC_OWARE ? rules->grand_slam : MC_GS_NO_CAPTURE;
  t->k = 2 * rules->houses;
  t->max_seeds = max_seeds;
  t->entry_bytes = rules->kind == MC_KALAH ? 1 : OW_BYTES;
  mc_egtb_file_name(&t->rules, t->name, sizeof(t->name));
  int rc = table_index(t);
  if (rc < 0) {
    table_free(t);
    return rc;
  }
  t->data = malloc(data_bytes(t) ? data_bytes(t) : 1);
  if (t->data == NULL) {
    table_free(t);
    return MC_ENOMEM;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  builder bd = {.t = t, .cancel = o->cancel, .progress = o->progress, .arg = o->arg};
  rc = rules->kind == MC_KALAH ? build_kalah(&bd) : build_oware(&bd);
  if (rc < 0) {
    table_free(t);
    return rc;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  t->build_secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  t->hash = hash_bytes(t->data, data_bytes(t), 0);
  t->file_bytes = HEADER + data_bytes(t);
  return 0;
}

int mc_egtb_load(mc_egtb *tb, const mc_rules *rules, const mc_egtb_options *opts) {
  static const mc_egtb_options none;
  const mc_egtb_options *o = opts ? opts : &none;
  if (tb == NULL || !mc_egtb_supported(rules) || o->max_seeds < 0)
    return MC_EINVAL;
  const int want = o->max_seeds ? o->max_seeds : mc_egtb_default_seeds(rules);
  if (want + 2 * rules->houses >= MAX_N ||
      count_entries(rules->kind, 2 * rules->houses, want) == UINT64_MAX)
    return MC_EINVAL;
  if (tb->n == MAX_TABLES && find(tb, rules) == NULL)
    return MC_EINVAL;
  const table *have = find(tb, rules);
  if (have && have->max_seeds >= want)
    return 0;

  table t;
  int rc = MC_EIO;
  if (o->dir) {
    char name[64], path[4096];
    mc_egtb_file_name(rules, name, sizeof(name));
    if (join(path, sizeof(path), o->dir, name) < 0)
      return MC_EINVAL;
    rc = read_table(path, rules, &t);
    if (rc == 0 && (t.max_seeds >= want || !o->build)) {
      adopt(tb, &t);
      return 0;
    }
    if (rc == 0)
      table_free(&t);
  }
  if (!o->build)
    return rc == 0 ? MC_EIO : rc;
  rc = build_table(rules, want, o, &t);
  if (rc < 0)
    return rc;
  int wrote = o->dir ? write_table(&t, o->dir) : 0;
  adopt(tb, &t);
  return wrote < 0 ? 1 : 0;
}

int mc_egtb_load_defaults(mc_egtb *tb, const mc_egtb_options *opts) {
  mc_egtb_options o = opts ? *opts : (mc_egtb_options){0};
  o.max_seeds = 0;
  mc_rules r;
  for (int i = 0; i < 5; i++) {
    mc_rules_init(&r, i < 2 ? MC_KALAH : MC_OWARE);
    if (i < 2)
      r.empty_capture = i == 1;
    else
      r.grand_slam = (mc_grand_slam)(i - 2);
    int rc = mc_egtb_load(tb, &r, &o);
    if (rc < 0)
      return rc;
  }
  return 0;
}
