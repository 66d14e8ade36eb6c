/* Levels of the computer player: search settings and a noise model.
 *
 * Level 1 is a beginner: it looks one move ahead, often overlooks a capture it could make and
 * picks among the moves that look good to it rather than always the best one. Each level up
 * looks further and errs less; level 5 plays its best move within a fixed node budget, level 6
 * uses the endgame tables and the caller's time budget (1 s a move by default). The measured
 * ladder (every level beats the one below in at least 65% of games) is in docs/computer.md.
 *
 * An mc_level is a small caller-owned value: mc_level_get() fills the standard ones; tools may
 * change fields (mc_level_parse()) to measure variations.
 */
#ifndef MC_LEVEL_H
#define MC_LEVEL_H

#include <stdbool.h>
#include <stdint.h>

#include "mc_eval.h"

#define MC_LEVEL_MIN 1
#define MC_LEVEL_MAX 6
/* Level 6's time budget a move when the caller gives none. */
#define MC_LEVEL_DEFAULT_MS 1000

typedef struct mc_level {
  int depth;           /* Deepest iteration; 0: no limit. */
  uint64_t nodes;      /* Node budget a move; 0: none. */
  long time_ms;        /* Time budget a move; < 0: none. The caller's limit applies as well. */
  bool egtb;           /* Probe the endgame tables the search was given. */
  mc_eval_kind eval;   /* Evaluation at the search horizon. */
  int temperature;     /* Noise: moves are drawn with weight exp(-(best - value) / temperature),
                        * in hundredths of a seed; 0: always the best move. */
  int blind;           /* Percent chance, for each move that captures, that the capture is
                        * overlooked (its value seen without the captured seeds). */
  bool custom_weights; /* Use weights[] instead of the tuned evaluation weights (tuning). */
  int16_t weights[4];  /* Evaluation weights (mc_eval.c), hundredths of a seed a unit. */
} mc_level;

/* Fills *out with level 1..6. Returns 0, or MC_EINVAL for another level (out untouched). */
int mc_level_get(int level, mc_level *out);

/* The time a search at level lv gets when its caller gives time_ms (< 0: none): a level that
 * thinks for a time (level 6) thinks for the caller's time instead of its own (longer or shorter:
 * a server's --computer-ms, a clock's share); a level of fixed depth or positions (1-5) keeps its
 * own (none), the caller's time only a cap on it (mc_search_run() takes the tighter). */
long mc_level_time(const mc_level *lv, long time_ms);

/* Full strength without noise: no depth or node limit, tables, tuned evaluation (hints and
 * analysis). */
void mc_level_full(mc_level *out);

/* Parses "L" or "L:key=value,..." (L: 1..6, or "full"; keys depth, nodes, ms, egtb=0|1,
 * eval=full|stores, temp, blind, w=a/b/c/d) into *out. Returns 0 or MC_EINVAL (out untouched). */
int mc_level_parse(const char *spec, mc_level *out);

/* Returns an English word for a level: "beginner", "novice", "casual", "club", "expert",
 * "master"; NULL outside 1..6. */
const char *mc_level_name(int level);

#endif
