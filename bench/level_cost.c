/* What one computer move costs at the shallow levels (docs/computer.md, "Server"): the CPU time of
 * mc_search_game() at levels 1-4 over the positions of random games of each board, p50, p99 and
 * the maximum, in microseconds. The server searches levels 1-2 on its loop thread because these
 * figures are far below a millisecond; levels 3-4 go to the fast lane. CPU time of the thread,
 * so that a loaded machine does not inflate it (wall time would).
 *
 *   bin/level-cost [games a board]     (default 20)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mc_game.h"
#include "mc_rules.h"
#include "mc_search.h"

#define MAX_SAMPLES 20000

static double cpu_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int games = argc > 1 ? atoi(argv[1]) : 20;
  static const struct {
    mc_kind kind;
    int houses, seeds;
  } boards[] = {{MC_KALAH, 6, 4},  {MC_OWARE, 6, 4},  {MC_CONGKAK, 7, 7},
                {MC_KALAH, 9, 12}, {MC_OWARE, 9, 12}, {MC_CONGKAK, 9, 12}};
  mc_search_config sc = {.tt_bytes = 256u << 10}; /* The loop's context (srv_computer.c). */
  mc_search *s = mc_search_new(&sc);
  static double t[MAX_SAMPLES];
  if (s == NULL || games < 1)
    return 1;
  srand(7);
  printf("| board | level | searches | p50 us | p99 us | max us |\n| --- | --- | --- | --- | --- | "
         "--- |\n");
  for (size_t b = 0; b < sizeof boards / sizeof boards[0]; b++) {
    for (int level = 1; level <= 4; level++) {
      int n = 0;
      for (int g = 0; g < games; g++) {
        mc_rules r;
        mc_rules_init(&r, boards[b].kind);
        r.houses = (uint8_t)boards[b].houses;
        r.seeds = (uint8_t)boards[b].seeds;
        mc_game *gm = mc_game_new(&r);
        for (int ply = 0; gm != NULL && ply < 400 && n < MAX_SAMPLES; ply++) {
          uint8_t mv[MC_MAX_HOUSES];
          int k = mc_game_legal(gm, mv);
          if (k <= 0)
            break;
          mc_search_result res;
          double t0 = cpu_us();
          int rc = mc_search_game(s, gm, level, 1000, (uint64_t)ply * 31 + (uint64_t)g, NULL, &res);
          t[n++] = cpu_us() - t0;
          if (rc != 0 || mc_game_play(gm, mv[rand() % k], NULL) != 0)
            break;
        }
        mc_game_free(gm);
      }
      qsort(t, (size_t)n, sizeof t[0], cmp);
      printf("| %s %dx%d | %d | %d | %.1f | %.1f | %.1f |\n", mc_kind_name(boards[b].kind),
             boards[b].houses, boards[b].seeds, level, n, t[n / 2], t[n * 99 / 100], t[n - 1]);
    }
  }
  mc_search_free(s);
  return 0;
}
