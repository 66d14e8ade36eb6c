/* Endgame tables against the plain minimax (minimax.h) and the solver, and their files.
 *
 *   - Kalah: for positions reached by random games on small boards with few seeds left, the
 *     table's value (store difference + table) equals the minimax value.
 *   - Oware (every grand slam mode): the bounds contain the minimax value with no history and
 *     with the game's own history (they hold for every history), and are exact where they say
 *     so.
 *   - The solver without tables proves the same Kalah values.
 *   - Files: written, read back identical, a flipped byte or a cut file refused (MC_ECORRUPT)
 *     and rebuilt when building is allowed, a missing file MC_EIO.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mc_egtb.h"
#include "mc_search.h"
#include "minimax.h"
#include "util.h"

static uint64_t rng_state = 0x13198a2e03707344ull;

static int rnd(int n) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (int)(rng_state % (uint64_t)n);
}

/* The value of line[n-1] with the window line[0..n-1] (all of one window) by the minimax. */
static int mm_with_history(minimax *mm, const mc_pos *line, size_t n) {
  mm->overflow = 0;
  mm->start = mm->nodes;
  for (size_t i = 0; i < n; i++)
    mm->line[i] = line[i];
  return mm_value(mm, 0, (int)n - 1);
}

/* Random games of rules; every position with at most max_seeds on the board where play goes on
 * is checked against the table. Returns the number checked. */
static int check_against_minimax(const mc_rules *r, int max_seeds, int games) {
  mc_egtb *tb = mc_egtb_new();
  mc_egtb_options o = {.max_seeds = max_seeds, .build = true};
  CHECK_INT(mc_egtb_load(tb, r, &o), 0);
  CHECK_INT(mc_egtb_max_seeds(tb, r), max_seeds);
  minimax mm;
  mm_init(&mm, r);
  mm.budget = 5000;
  mc_search *s = mc_search_new(NULL); /* No tables: the solver alone. */
  int checked = 0, exact = 0;
  for (int g = 0; g < games; g++) {
    mc_game *game = mc_game_new(r);
    while (!mc_game_over(game, NULL)) {
      const mc_pos *p = mc_game_pos(game);
      size_t hn;
      const mc_pos *hist = mc_game_history(game, &hn);
      mc_egtb_value v;
      int found = mc_egtb_probe(tb, r, p, &v);
      int board = 0;
      for (int i = 0; i < 2 * p->houses + 2; i++)
        if (i != p->houses && i != 2 * p->houses + 1)
          board += p->pits[i];
      CHECK_INT(found, board <= max_seeds);
      if (found == 1) {
        CHECK(v.lo <= v.hi);
        const int fresh = mm_solve(&mm, p);
        if (!mm.overflow) {
          checked++;
          exact += v.lo == v.hi;
          if (!(v.lo <= fresh && fresh <= v.hi)) {
            char text[128];
            mc_pos_format(p, text, sizeof(text));
            fprintf(stderr, "%s: table [%d, %d], minimax %d\n", text, v.lo, v.hi, fresh);
            CHECK(0);
          }
          if (r->kind == MC_KALAH)
            CHECK_INT(v.lo, v.hi);
          /* The solver without tables proves the same value (when the table knows it). */
          if (v.lo == v.hi && checked % 4 == 0) {
            mc_search_request req = {
                .rules = r, .pos = p, .limits = {-1, 3000000, 0}, .solve = true};
            mc_search_result res;
            CHECK_INT(mc_search_run(s, &req, &res), 0);
            if (res.exact)
              CHECK_INT(res.value, v.lo * MC_SEED);
          }
        }
        if (hn > 1 && r->kind != MC_KALAH) {
          const int with = mm_with_history(&mm, hist, hn);
          if (!mm.overflow)
            CHECK(v.lo <= with && with <= v.hi);
        }
      }
      uint8_t moves[MC_MAX_HOUSES];
      int n = mc_game_legal(game, moves);
      mc_game_play(game, moves[rnd(n)], NULL);
    }
    mc_game_free(game);
  }
  char name[96];
  mc_rules_format(r, name, sizeof(name));
  printf("%s, tables of %d seeds: %d positions checked, %d exact\n", name, max_seeds, checked,
         exact);
  mc_search_free(s);
  mm_free(&mm);
  mc_egtb_free(tb);
  return checked;
}

static void check_files(void) {
  char dir[] = "/tmp/mc_egtb_testXXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  mc_rules r = mk_rules(MC_KALAH, 3, 3);
  mc_rules o = mk_rules(MC_OWARE, 2, 2);
  char path[256], opath[256];
  snprintf(path, sizeof(path), "%s/kalah-3-standard.egtb", dir);
  snprintf(opath, sizeof(opath), "%s/oware-2-no_capture.egtb", dir);
  char name[64];
  CHECK_INT(mc_egtb_file_name(&r, name, sizeof(name)), (int)strlen("kalah-3-standard.egtb"));
  CHECK_STR(name, "kalah-3-standard.egtb");

  /* Missing, no building: MC_EIO, nothing added. */
  mc_egtb *tb = mc_egtb_new();
  mc_egtb_options none = {.dir = dir, .max_seeds = 10};
  CHECK_INT(mc_egtb_load(tb, &r, &none), MC_EIO);
  CHECK_INT(mc_egtb_count(tb), 0);
  /* Built and written. */
  mc_egtb_options build = {.dir = dir, .max_seeds = 10, .build = true};
  CHECK_INT(mc_egtb_load(tb, &r, &build), 0);
  CHECK_INT(mc_egtb_load(tb, &o, &build), 0);
  CHECK_INT(mc_egtb_count(tb), 2);
  mc_egtb_info info;
  CHECK_INT(mc_egtb_verify(path, &info), 0);
  CHECK_INT(info.max_seeds, 10);
  CHECK_INT(info.rules.kind, MC_KALAH);
  CHECK_INT(mc_egtb_verify(opath, &info), 0);
  CHECK_INT(info.rules.kind, MC_OWARE);
  /* Read back: the same answers as the table built in memory. */
  mc_egtb *back = mc_egtb_new();
  CHECK_INT(mc_egtb_load(back, &r, &none), 0);
  CHECK_INT(mc_egtb_load(back, &o, &none), 0);
  for (int i = 0; i < 2000; i++) {
    const mc_rules *which = i % 2 ? &o : &r;
    mc_pos p;
    mc_pos_init(&p, which);
    const int m = which->houses;
    for (int k = 0; k < 2 * m + 2; k++)
      p.pits[k] = 0;
    for (int seeds = rnd(11); seeds > 0; seeds--) {
      int h = rnd(2 * m);
      p.pits[h < m ? h : h + 1]++;
    }
    p.pits[m] = (uint8_t)rnd(5);
    p.pits[2 * m + 1] = (uint8_t)rnd(5);
    if (mc_pos_total(&p) & 1)
      p.pits[m]++;
    p.turn = (uint8_t)rnd(2);
    mc_egtb_value a, b;
    int fa = mc_egtb_probe(tb, which, &p, &a), fb = mc_egtb_probe(back, which, &p, &b);
    CHECK_INT(fa, fb);
    if (fa == 1 && fb == 1)
      CHECK(a.lo == b.lo && a.hi == b.hi);
  }
  mc_egtb_free(back);
  mc_egtb_free(tb);

  /* A flipped byte in the values: refused, then rebuilt when allowed. */
  FILE *f = fopen(path, "r+b");
  CHECK(f != NULL);
  if (f) {
    fseek(f, 4000, SEEK_SET);
    int c = fgetc(f);
    fseek(f, 4000, SEEK_SET);
    fputc(c ^ 0x10, f);
    fclose(f);
  }
  CHECK_INT(mc_egtb_verify(path, NULL), MC_ECORRUPT);
  tb = mc_egtb_new();
  CHECK_INT(mc_egtb_load(tb, &r, &none), MC_ECORRUPT);
  CHECK_INT(mc_egtb_count(tb), 0);
  CHECK_INT(mc_egtb_load(tb, &r, &build), 0);
  CHECK_INT(mc_egtb_count(tb), 1);
  CHECK_INT(mc_egtb_verify(path, NULL), 0);
  mc_egtb_free(tb);
  /* A cut file and a foreign one. */
  CHECK_INT(truncate(path, 1000), 0);
  CHECK_INT(mc_egtb_verify(path, NULL), MC_ECORRUPT);
  f = fopen(path, "wb");
  if (f) {
    fputs("not a table at all, just some text that is long enough to fill a header..........."
          "..............................................................................",
          f);
    fclose(f);
  }
  CHECK_INT(mc_egtb_verify(path, NULL), MC_ECORRUPT);
  /* The Oware file under the Kalah name is another variant: refused. */
  CHECK_INT(rename(opath, path), 0);
  tb = mc_egtb_new();
  CHECK_INT(mc_egtb_load(tb, &r, &none), MC_ECORRUPT);
  mc_egtb_free(tb);
  remove(path);
  remove(opath);
  CHECK_INT(rmdir(dir), 0);
}

static void check_arguments(void) {
  mc_egtb *tb = mc_egtb_new();
  mc_rules k = mk_rules(MC_KALAH, 2, 2), c = mk_rules(MC_CONGKAK, 2, 2);
  mc_egtb_options o = {.max_seeds = 6, .build = true};
  CHECK_INT(mc_egtb_load(tb, &c, &o), MC_EINVAL);
  CHECK_INT(mc_egtb_load(NULL, &k, &o), MC_EINVAL);
  CHECK_INT(mc_egtb_load(tb, &k, &o), 0);
  mc_pos p = mk_pos("1 1 (0) 1 1 (0) south");
  mc_egtb_value v;
  CHECK_INT(mc_egtb_probe(tb, &c, &p, &v), 0);
  CHECK_INT(mc_egtb_probe(tb, &k, &p, NULL), MC_EINVAL);
  /* Kalah, 2 houses: South 1 1, North 1 1, South to move (worked by hand). House 2 reaches the
   * store (1, South again), then house 1 lands in the emptied house 2 facing North's house 1
   * (1 seed): a capture of 2, South's side is empty, North sweeps 1: 3-1, +2. House 1 first
   * lands on house 2 (now 2); North plays its house 1 onto its house 2, South's only move sows
   * its 2 seeds into its store and North's house 1 and leaves its side empty: North sweeps 3,
   * 1-3. So +2. */
  CHECK_INT(mc_egtb_probe(tb, &k, &p, &v), 1);
  CHECK_INT(v.lo, 2);
  CHECK_INT(v.hi, 2);
  mc_pos big = mk_pos("4 4 (0) 4 4 (0) south");
  CHECK_INT(mc_egtb_probe(tb, &k, &big, &v), 0);
  CHECK_INT(mc_egtb_default_seeds(&c), 0);
  mc_rules k6 = mk_rules(MC_KALAH, 6, 4), o6 = mk_rules(MC_OWARE, 6, 4);
  CHECK(mc_egtb_default_seeds(&k6) >= 12);
  CHECK(mc_egtb_default_seeds(&o6) >= 6);
  mc_egtb_free(tb);
}

int main(void) {
  check_arguments();
  for (int ec = 0; ec < 2; ec++) {
    mc_rules r = mk_rules(MC_KALAH, 3, 3);
    r.empty_capture = ec;
    CHECK(check_against_minimax(&r, 12, 30) > 100);
    r = mk_rules(MC_KALAH, 4, 3);
    r.empty_capture = ec;
    CHECK(check_against_minimax(&r, 10, 20) > 50);
  }
  for (int gs = 0; gs < 3; gs++) {
    mc_rules r = mk_rules(MC_OWARE, 2, 3);
    r.grand_slam = (mc_grand_slam)gs;
    CHECK(check_against_minimax(&r, 8, 12) > 20);
    r = mk_rules(MC_OWARE, 3, 2);
    r.grand_slam = (mc_grand_slam)gs;
    CHECK(check_against_minimax(&r, 6, 12) > 20);
  }
  check_files();
  return check_exit("egtb");
}
