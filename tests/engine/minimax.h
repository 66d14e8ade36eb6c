/* A plain full minimax over the game tree, written for the tests independently of the search:
 * no alpha-beta, no evaluation, no move ordering. Moves are made with the public mc_pos_play();
 * the repetition rule (Oware 6, Congkak 8) is applied here from the rule book: the positions
 * since the last change of the stores or of the round are kept, and a move to a position that
 * occurred twice among them ends the game, each side taking the seeds of its own houses.
 *
 * Value: the final store difference for the side to move (whole seeds). It depends on the
 * position and on how many times each position occurred in its window (nothing else of the
 * history): values are memoized under the position and that multiset (two 64-bit hashes).
 */
#ifndef ENGINE_TEST_MINIMAX_H
#define ENGINE_TEST_MINIMAX_H

#include <stdlib.h>
#include <string.h>

#include "mc_error.h"
#include "mc_pos.h"
#include "mc_rules.h"

#define MM_MAX_LINE 4096

typedef struct mm_entry {
  mc_pos pos;
  unsigned long long w1, w2; /* Two hashes of the window's multiset of positions (0: none). */
  int value;
  int used;
} mm_entry;

typedef struct minimax {
  mc_rules rules;
  mm_entry *memo;
  size_t memo_cap; /* A power of two. */
  size_t memo_len;
  mc_pos line[MM_MAX_LINE];
  unsigned long long h1[MM_MAX_LINE], h2[MM_MAX_LINE]; /* Hashes of line positions. */
  unsigned long long nodes;
  unsigned long long budget; /* Nodes one solve may take (0: no limit). */
  unsigned long long start;  /* nodes when the current solve began. */
  int overflow;              /* The line grew past MM_MAX_LINE or the budget ran out: no result. */
} minimax;

static inline unsigned long long mm_hash(const mc_pos *p) {
  unsigned long long h = 1469598103934665603ull;
  const unsigned char *b = (const unsigned char *)p;
  for (size_t i = 0; i < sizeof(*p); i++)
    h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static inline void mm_init(minimax *mm, const mc_rules *rules) {
  memset(mm, 0, sizeof(*mm));
  mm->rules = *rules;
  mm->memo_cap = 1u << 16;
  mm->memo = calloc(mm->memo_cap, sizeof(mm_entry));
}

static inline void mm_free(minimax *mm) {
  free(mm->memo);
  mm->memo = NULL;
}

/* A second, independent hash of a position. */
static inline unsigned long long mm_hash2(const mc_pos *p) {
  unsigned long long h = 0x9E3779B97F4A7C15ull;
  const unsigned char *b = (const unsigned char *)p;
  for (size_t i = 0; i < sizeof(*p); i++)
    h = (h + b[i] + 1) * 0xBF58476D1CE4E5B9ull ^ (h >> 29);
  return h;
}

/* The memo is keyed by the position and the multiset of positions in its window (the rule only
 * counts occurrences, so the order they came in does not matter). */
static inline mm_entry *mm_slot(minimax *mm, const mc_pos *p, unsigned long long w1,
                                unsigned long long w2) {
  size_t i = (size_t)(mm_hash(p) ^ w1) & (mm->memo_cap - 1);
  while (mm->memo[i].used && (memcmp(&mm->memo[i].pos, p, sizeof(*p)) != 0 ||
                              mm->memo[i].w1 != w1 || mm->memo[i].w2 != w2))
    i = (i + 1) & (mm->memo_cap - 1);
  return &mm->memo[i];
}

static inline void mm_put(minimax *mm, const mc_pos *p, unsigned long long w1,
                          unsigned long long w2, int value) {
  if (2 * (mm->memo_len + 1) > mm->memo_cap) {
    mm_entry *old = mm->memo;
    size_t cap = mm->memo_cap;
    mm->memo_cap *= 2;
    mm->memo = calloc(mm->memo_cap, sizeof(mm_entry));
    for (size_t i = 0; i < cap; i++)
      if (old[i].used)
        *mm_slot(mm, &old[i].pos, old[i].w1, old[i].w2) = old[i];
    free(old);
  }
  mm_entry *e = mm_slot(mm, p, w1, w2);
  if (!e->used)
    mm->memo_len++;
  e->pos = *p;
  e->w1 = w1;
  e->w2 = w2;
  e->value = value;
  e->used = 1;
}

/* Store totals and round: positions with other totals can never come back. */
static inline unsigned mm_epoch(const mc_pos *p) {
  const int m = p->houses;
  return p->pits[m] + p->pits[2 * m + 1] + 1000u * p->round;
}

static inline int mm_final(const mc_pos *p, int me) {
  const int m = p->houses;
  const int mine = me == MC_SOUTH ? p->pits[m] : p->pits[2 * m + 1];
  const int other = me == MC_SOUTH ? p->pits[2 * m + 1] : p->pits[m];
  return mine - other;
}

/* Value of line[cur] whose repetition window is line[ws..cur]. */
static inline int mm_value(minimax *mm, int ws, int cur) {
  const mc_pos *p = &mm->line[cur];
  const int me = p->turn;
  const int repeats = mm->rules.kind != MC_KALAH;
  mm->nodes++;
  if (mm->overflow || (mm->budget && mm->nodes - mm->start > mm->budget)) {
    mm->overflow = 1;
    return 0;
  }
  /* The window's multiset (Kalah: none, every position is a start). */
  unsigned long long w1 = 0, w2 = 0;
  if (repeats)
    for (int j = ws; j < cur; j++) {
      w1 += mm->h1[j];
      w2 += mm->h2[j];
    }
  mm->h1[cur] = mm_hash(p);
  mm->h2[cur] = mm_hash2(p);
  {
    mm_entry *e = mm_slot(mm, p, w1, w2);
    if (e->used)
      return e->value;
  }
  if (cur + 1 >= MM_MAX_LINE) {
    mm->overflow = 1;
    return 0;
  }
  uint8_t moves[MC_MAX_HOUSES];
  int n = mc_pos_legal(p, &mm->rules, moves);
  int best = -100000;
  for (int i = 0; i < n; i++) {
    mc_pos c = *p;
    mc_result res;
    int rc = mc_pos_play(&c, &mm->rules, moves[i], NULL, &res);
    int v;
    if (rc == 1) {
      v = me == MC_SOUTH ? res.score[0] - res.score[1] : res.score[1] - res.score[0];
    } else if (rc < 0) {
      mm->overflow = 1;
      return 0;
    } else {
      int same = repeats && mm_epoch(&c) == mm_epoch(p);
      int seen = 0;
      if (same)
        for (int j = ws; j <= cur; j++)
          seen += mc_pos_same(&mm->line[j], &c);
      if (seen >= 2) {
        mc_result rr;
        mc_pos_end_repetition(&c, &mm->rules, NULL, &rr);
        v = mm_final(&c, me);
      } else {
        mm->line[cur + 1] = c;
        int cv = mm_value(mm, same ? ws : cur + 1, cur + 1);
        v = c.turn == me ? cv : -cv;
      }
    }
    if (v > best)
      best = v;
  }
  if (!mm->overflow)
    mm_put(mm, p, w1, w2, best);
  return best;
}

/* The value of c for its side to move, c reached by one move from p with no history before p:
 * its window holds p too when the move changed neither the stores nor the round. */
static inline int mm_solve_after(minimax *mm, const mc_pos *p, const mc_pos *c) {
  mm->overflow = 0;
  mm->start = mm->nodes;
  mm->line[0] = *p;
  mm->line[1] = *c;
  if (mm->rules.kind != MC_KALAH && mm_epoch(c) == mm_epoch(p))
    return mm_value(mm, 0, 1);
  return mm_value(mm, 1, 1);
}

/* The perfect-play value of p for its side to move, with no history before it. */
static inline int mm_solve(minimax *mm, const mc_pos *p) {
  mm->overflow = 0;
  mm->start = mm->nodes;
  mm->line[0] = *p;
  return mm_value(mm, 0, 0);
}

#endif
