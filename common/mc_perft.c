/* Perft: counting move sequences, with every move made. */
#include "mc_perft.h"

#include <string.h>

#include "mc_error.h"
#include "mc_internal.h"

#define PERFT_MAX_DEPTH 64

typedef struct perft {
  const mc_rules *rules;
  unsigned depth;
  uint64_t counts[PERFT_MAX_DEPTH];
  uint64_t ends[PERFT_MAX_DEPTH];
  /* Repetition: the positions along the current line and where each one's window starts. */
  mc_pos line[PERFT_MAX_DEPTH + 1];
  unsigned window[PERFT_MAX_DEPTH + 1];
} perft;

/* Kalah has no repetition rule: positions alone. */
static void perft_kalah(perft *pf, const mc_pos *p, unsigned d) {
  uint8_t moves[MC_MAX_HOUSES];
  int n = mc__legal(p, pf->rules, moves);
  pf->counts[d] += (unsigned)n;
  for (int i = 0; i < n; i++) {
    mc_pos q = *p;
    if (mc__play_kalah(&q, pf->rules, moves[i], NULL, NULL))
      pf->ends[d]++;
    else if (d + 1 < pf->depth)
      perft_kalah(pf, &q, d + 1);
  }
}

/* Oware and Congkak: a line ends at the third occurrence of a position. */
static void perft_repeat(perft *pf, unsigned d) {
  const mc_pos *p = &pf->line[d];
  uint8_t moves[MC_MAX_HOUSES];
  int n = mc__legal(p, pf->rules, moves);
  pf->counts[d] += (unsigned)n;
  for (int i = 0; i < n; i++) {
    mc_pos *q = &pf->line[d + 1];
    *q = *p;
    if (mc__play(q, pf->rules, moves[i], NULL, NULL)) {
      pf->ends[d]++;
      continue;
    }
    unsigned w = mc__epoch(q) == mc__epoch(p) ? pf->window[d] : d + 1;
    int seen = 0;
    for (unsigned j = w; j <= d; j++)
      seen += mc_pos_same(&pf->line[j], q);
    if (seen >= 2) {
      pf->ends[d]++;
      continue;
    }
    pf->window[d + 1] = w;
    if (d + 1 < pf->depth)
      perft_repeat(pf, d + 1);
  }
}

int mc_perft(const mc_rules *rules, unsigned depth, uint64_t *counts, uint64_t *ends) {
  if (mc_rules_check(rules) < 0 || counts == NULL || depth < 1 || depth > PERFT_MAX_DEPTH)
    return MC_EINVAL;
  static perft zero;
  perft pf = zero;
  pf.rules = rules;
  pf.depth = depth;
  mc_pos_init(&pf.line[0], rules);
  pf.window[0] = 0;
  if (rules->kind == MC_KALAH)
    perft_kalah(&pf, &pf.line[0], 0);
  else
    perft_repeat(&pf, 0);
  memcpy(counts, pf.counts, depth * sizeof(*counts));
  if (ends)
    memcpy(ends, pf.ends, depth * sizeof(*ends));
  return 0;
}
