/* mancala: the rules engine's command-line tool.
 *
 *   mancala perft GAME DEPTH [options]       counts move sequences (stdout), time and speed
 * (stderr) mancala replay GAME [options] MOVES      checks a game record, prints the final position
 *   mancala solve GAME [options]             the perfect-play value of the start and its line
 *   mancala hint GAME [options] MOVES        the best move after MOVES and its value
 *   mancala match --a L --b L --games N GAME levels against each other, sides swapped
 *   mancala analyse GAME [options] MOVES     value of every ply of a game
 *   mancala bench                            search speed and solver times
 *   mancala egtb build|info|verify           endgame tables in the data directory
 *
 * Bad arguments print the usage on stderr and exit with status 2; an illegal record, a failed
 * file or an unfinished solve exits with 1.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mc_analysis.h"
#include "mc_egtb.h"
#include "mc_error.h"
#include "mc_game.h"
#include "mc_internal.h"
#include "mc_level.h"
#include "mc_perft.h"
#include "mc_retro.h"
#include "mc_search.h"
#include "mc_solve.h"
#include "mc_text.h"

static const char usage[] =
    "usage: mancala perft GAME DEPTH [options]\n"
    "       mancala replay GAME [options] \"MOVES\"\n"
    "       mancala solve GAME [MxS] [options] [--dir DIR] [--no-egtb] [--egtb-seeds N] [--tt MB]\n"
    "                     [--max-ms MS] [--search] [--retro-nodes N]\n"
    "       mancala hint GAME [options] [--level L] [--ms MS] [--depth D] [--dir DIR] \"MOVES\"\n"
    "       mancala analyse GAME [options] [--ms MS] [--dir DIR] \"MOVES\"\n"
    "       mancala match --a L --b L --games N GAME [options] [--ms MS] [--seed S]\n"
    "                     [--opening PLIES] [--balance SEEDS] [--jobs J] [--dir DIR] [--tt MB]\n"
    "       mancala bench [--ms MS]\n"
    "       mancala egtb build [--dir DIR] [--jobs J] [GAME [options] [--max-seeds N]]\n"
    "       mancala egtb info|verify [--dir DIR]\n"
    "\n"
    "GAME is kalah, oware or congkak. MOVES are house numbers (or swap) separated by spaces.\n"
    "Options:\n"
    "  --houses M            houses a side, 1-9 (default: Kalah and Oware 6, Congkak 7)\n"
    "  --seeds N             seeds a house, 1-12 (default: Kalah and Oware 4, Congkak 7)\n"
    "  --empty-capture       Kalah: the last seed is captured even facing an empty house\n"
    "  --grand-slam MODE     Oware: no_capture (default), forbidden or capture\n"
    "  --lap-capture         Congkak: capture only after the sowing passed the own store\n"
    "  --rounds single|match Congkak: one round (default) or a match of rounds, where the\n"
    "                        houses a store cannot fill are burnt for the next round\n"
    "  --burn round|match    Congkak match: a house is burnt for one round (default) or for\n"
    "                        the rest of the match (the old rule of games stored before it)\n"
    "  --pie                 every game: after the first player's first turn the second may\n"
    "                        swap sides instead of moving (\"swap\" in MOVES)\n"
    "DEPTH is 1-64. A level L is 1-6 (1 beginner ... 6 master), or full, optionally with\n"
    "settings: \"4:depth=8,eval=stores\" (keys depth, nodes, ms, egtb, eval, temp, blind, w).\n"
    "DIR is the data directory holding the endgame tables (default ./data, as the server).\n"
    "solve prints \"value +N\" (the first player's final store difference with perfect play)\n"
    "and the principal line (MxS: M houses a side, S seeds a house). For Oware it first runs\n"
    "the retrograde analysis of the position graph with the repetition history (\"value\" and\n"
    "\"best\" when it proves the value within --retro-nodes, default 100 million), then the\n"
    "search; --search skips the retrograde analysis. hint prints \"move H value V exact\" or \"... "
    "depth D\".\n";

#define DEFAULT_DIR "./data"

static int bad(const char *fmt, const char *arg) {
  fprintf(stderr, "mancala: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n\n%s", usage);
  return 2;
}

/* Removes "--name VALUE" from argv (when present) and sets *val. Returns 1 when found, 0 when
 * not, -1 when the value is missing. */
static int take_opt(int *argc, char **argv, const char *name, const char **val) {
  for (int i = 0; i < *argc; i++) {
    if (strcmp(argv[i], name) != 0)
      continue;
    if (i + 1 >= *argc)
      return -1;
    *val = argv[i + 1];
    memmove(&argv[i], &argv[i + 2], (size_t)(*argc - i - 2) * sizeof(char *));
    *argc -= 2;
    return 1;
  }
  return 0;
}

/* Removes the flag "--name" from argv; returns 1 when it was there. */
static int take_flag(int *argc, char **argv, const char *name) {
  for (int i = 0; i < *argc; i++) {
    if (strcmp(argv[i], name) == 0) {
      memmove(&argv[i], &argv[i + 1], (size_t)(*argc - i - 1) * sizeof(char *));
      (*argc)--;
      return 1;
    }
  }
  return 0;
}
static int parse_number(const char *s, long lo, long hi, long *v) {
  char *end;
  errno = 0;
  long n = strtol(s, &end, 10);
  if (errno || end == s || *end || n < lo || n > hi)
    return -1;
  *v = n;
  return 0;
}

/* Parses GAME and the options in argv (positional arguments are left in pos[]). */
static int parse_game(int argc, char **argv, mc_rules *rules, char **pos, int *npos, int maxpos) {
  mc_kind kind;
  long v;
  if (argc < 1)
    return bad("%s", "missing GAME");
  if (mc_kind_parse(argv[0], &kind) < 0)
    return bad("unknown game '%s' (kalah, oware or congkak)", argv[0]);
  mc_rules_init(rules, kind);
  *npos = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--houses") == 0 || strcmp(a, "--seeds") == 0) {
      int houses = a[2] == 'h';
      if (val == NULL)
        return bad("%s needs a value", a);
      if (parse_number(val, 1, houses ? 9 : 12, &v) < 0)
        return bad(houses ? "--houses must be 1-9, got '%s'" : "--seeds must be 1-12, got '%s'",
                   val);
      if (houses)
        rules->houses = (uint8_t)v;
      else
        rules->seeds = (uint8_t)v;
      i++;
    } else if (strcmp(a, "--empty-capture") == 0) {
      if (kind != MC_KALAH)
        return bad("%s is a Kalah option", a);
      rules->empty_capture = true;
    } else if (strcmp(a, "--grand-slam") == 0) {
      if (kind != MC_OWARE)
        return bad("%s is an Oware option", a);
      if (val == NULL || mc_grand_slam_parse(val, &rules->grand_slam) < 0)
        return bad("--grand-slam must be no_capture, forbidden or capture, got '%s'",
                   val ? val : "nothing");
      i++;
    } else if (strcmp(a, "--pie") == 0) {
      rules->pie = true;
    } else if (strcmp(a, "--lap-capture") == 0) {
      if (kind != MC_CONGKAK)
        return bad("%s is a Congkak option", a);
      rules->lap_capture = true;
    } else if (strcmp(a, "--rounds") == 0) {
      if (kind != MC_CONGKAK)
        return bad("%s is a Congkak option", a);
      if (val == NULL || (strcmp(val, "single") != 0 && strcmp(val, "match") != 0))
        return bad("--rounds must be single or match, got '%s'", val ? val : "nothing");
      rules->match = strcmp(val, "match") == 0;
      i++;
    } else if (strcmp(a, "--burn") == 0) {
      if (kind != MC_CONGKAK)
        return bad("%s is a Congkak option", a);
      if (val == NULL || mc_burn_parse(val, &rules->burn) < 0)
        return bad("--burn must be round or match, got '%s'", val ? val : "nothing");
      i++;
    } else if (a[0] == '-' && a[1] == '-') {
      return bad("unknown option '%s'", a);
    } else {
      if (*npos == maxpos)
        return bad("unexpected argument '%s'", a);
      pos[(*npos)++] = argv[i];
    }
  }
  if (rules->burn != MC_BURN_ROUND && !rules->match)
    return bad("%s", "--burn match needs --rounds match");
  return 0;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmd_perft(int argc, char **argv) {
  mc_rules rules;
  char *pos[1];
  int npos;
  long depth;
  int rc = parse_game(argc, argv, &rules, pos, &npos, 1);
  if (rc)
    return rc;
  if (npos != 1)
    return bad("%s", "missing DEPTH");
  if (parse_number(pos[0], 1, 64, &depth) < 0)
    return bad("DEPTH must be 1-64, got '%s'", pos[0]);

  uint64_t counts[64];
  double t0 = now_seconds();
  rc = mc_perft(&rules, (unsigned)depth, counts, NULL);
  double secs = now_seconds() - t0;
  if (rc < 0) {
    fprintf(stderr, "mancala: perft: %s\n", mc_strerror(rc));
    return 1;
  }
  uint64_t moves = 0;
  for (long d = 0; d < depth; d++) {
    printf("%ld %llu\n", d + 1, (unsigned long long)counts[d]);
    moves += counts[d];
  }
  char text[96];
  mc_rules_format(&rules, text, sizeof(text));
  fprintf(stderr, "perft %s depth %ld: %llu moves in %.3f s, %.1f million moves/s\n", text, depth,
          (unsigned long long)moves, secs, secs > 0 ? (double)moves / secs / 1e6 : 0.0);
  return 0;
}

static int cmd_replay(int argc, char **argv) {
  mc_rules rules;
  char *pos[1];
  int npos;
  int rc = parse_game(argc, argv, &rules, pos, &npos, 1);
  if (rc)
    return rc;
  if (npos != 1)
    return bad("%s", "missing MOVES (house numbers in quotes, \"\" for none)");

  mc_game *game = NULL;
  mc_text_error err;
  rc = mc_moves_replay(&rules, pos[0], &game, &err);
  if (rc == MC_ESYNTAX || rc == MC_EILLEGAL || rc == MC_EOVER) {
    fprintf(stderr, "mancala: replay: at character %zu: %s\n  %s\n  %*s^\n", err.offset + 1,
            err.message, pos[0], (int)err.offset, "");
    return 1;
  }
  if (rc < 0) {
    fprintf(stderr, "mancala: replay: %s\n", mc_strerror(rc));
    return 1;
  }
  char text[128];
  mc_pos_format(mc_game_pos(game), text, sizeof(text));
  printf("position %s\nply %zu\n", text, mc_game_ply(game));
  mc_result res;
  if (mc_game_over(game, &res))
    printf("result %s %s %u %u\n", mc_winner_name(res.winner), mc_reason_name(res.reason),
           res.score[0], res.score[1]);
  else
    printf("result none\n");
  mc_game_free(game);
  return 0;
}

/* ---- shared by the search commands ---------------------------------------------------------- */

/* Takes "--name N" with lo <= N <= hi into *v (left alone when absent). Returns 0, or 2 after
 * printing the usage. */
static int take_num(int *argc, char **argv, const char *name, long lo, long hi, long *v) {
  const char *s = NULL;
  int r = take_opt(argc, argv, name, &s);
  if (r < 0)
    return bad("%s needs a value", name);
  if (r == 1 && parse_number(s, lo, hi, v) < 0) {
    char msg[96];
    snprintf(msg, sizeof(msg), "%s must be %ld-%ld, got '%%s'", name, lo, hi);
    return bad(msg, s);
  }
  return 0;
}

/* A value for people: exact values in whole seeds ("+3", "-2", "0"), evaluations with two
 * decimals ("+1.25"). */
static void format_value(int v, bool exact, char *buf, size_t size) {
  const int a = v < 0 ? -v : v;
  const char sign = v > 0 ? '+' : v < 0 ? '-' : ' ';
  if (exact && a % MC_SEED == 0) {
    if (v == 0)
      snprintf(buf, size, "0");
    else
      snprintf(buf, size, "%c%d", sign, a / MC_SEED);
  } else {
    snprintf(buf, size, "%s%d.%02d", v < 0 ? "-" : "+", a / MC_SEED, a % MC_SEED);
  }
}

/* One move as text: its house number, or "swap". */
static const char *move_text(int move, char buf[8]) {
  if (mc_move_format(move, buf, 8) < 0)
    snprintf(buf, 8, "?");
  return buf;
}

static void print_moves(const char *label, const uint8_t *moves, size_t n) {
  char m[8];
  printf("%s", label);
  for (size_t i = 0; i < n; i++)
    printf(" %s", move_text(moves[i], m));
  printf("\n");
}

static double now_seconds(void);

/* Entries of the table `solve` builds in memory for Kalah: 32 MB, about 10 s of building on the
 * shared 2-core machine (docs/computer.md), which pays for itself on the boards the search alone
 * cannot finish (Kalah 5x4: 50 s with the 2-million-entry table, 12 s with this one). */
#define SOLVE_KALAH_ENTRIES 32000000u

/* Endgame tables for rules: from dir when a file is there (never built there by these
 * commands), otherwise a small table built in memory (about a second) when memory_seeds says
 * so (-1: automatic, within 2 million entries for Kalah; -2: the solver's, within
 * SOLVE_KALAH_ENTRIES and at most half the seeds of the game; 0: none). Returns NULL when the
 * variant is not tabled or nothing loads. */
static mc_egtb *tables_for(const mc_rules *rules, const char *dir, long memory_seeds) {
  if (!mc_egtb_supported(rules))
    return NULL;
  mc_egtb *tb = mc_egtb_new();
  if (tb == NULL)
    return NULL;
  if (dir) {
    mc_egtb_options o = {.dir = dir, .max_seeds = 1, .build = false};
    if (mc_egtb_load(tb, rules, &o) == 0)
      return tb;
  }
  long seeds = memory_seeds;
  if (seeds < 0) {
    const bool solving = seeds == -2 && rules->kind == MC_KALAH;
    const uint64_t budget = solving                   ? SOLVE_KALAH_ENTRIES
                            : rules->kind == MC_KALAH ? 2000000u
                                                      : 300000u;
    /* A table of more than half the seeds of the game would cover the positions the search
     * reaches soon anyway; building it would cost more than it saves. */
    const long most = solving ? rules->houses * rules->seeds : 2 * rules->houses * MC_MAX_SEEDS;
    seeds = 0;
    while (seeds < most && mc_egtb_entries(rules, (int)seeds + 1) <= budget)
      seeds++;
  }
  if (seeds > 0) {
    mc_egtb_options o = {.max_seeds = (int)seeds, .build = true};
    double t0 = now_seconds();
    int rc = mc_egtb_load(tb, rules, &o);
    if (rc < 0)
      fprintf(stderr, "mancala: endgame table: %s\n", mc_strerror(rc));
    else
      fprintf(stderr, "endgame table: %ld seeds built in memory in %.2f s\n", seeds,
              now_seconds() - t0);
  }
  if (mc_egtb_count(tb) == 0) {
    mc_egtb_free(tb);
    return NULL;
  }
  return tb;
}

/* ---- solve ---------------------------------------------------------------------------------- */

static int cmd_solve(int argc, char **argv) {
  const char *dir = NULL;
  long tt = 256, seeds = -1, maxms = -1;
  int rc;
  if (take_opt(&argc, argv, "--dir", &dir) < 0)
    return bad("%s needs a value", "--dir");
  if ((rc = take_num(&argc, argv, "--tt", 1, 65536, &tt)) ||
      (rc = take_num(&argc, argv, "--egtb-seeds", 0, 200, &seeds)) ||
      (rc = take_num(&argc, argv, "--max-ms", 0, 1000L * 86400 * 365, &maxms)))
    return rc;
  long retro_nodes = 100000000;
  if ((rc = take_num(&argc, argv, "--retro-nodes", 0, 1L << 40, &retro_nodes)))
    return rc;
  const int no_egtb = take_flag(&argc, argv, "--no-egtb");
  const int no_retro = take_flag(&argc, argv, "--search");
  mc_rules rules;
  char *pos[1];
  int npos;
  if ((rc = parse_game(argc, argv, &rules, pos, &npos, 1)))
    return rc;
  if (npos == 1) {
    /* "MxS": M houses a side, S seeds a house. */
    int m, n;
    char tail;
    if (sscanf(pos[0], "%dx%d%c", &m, &n, &tail) != 2 || m < 1 || m > 9 || n < 1 || n > 12)
      return bad("expected MxS (houses 1-9, seeds 1-12), got '%s'", pos[0]);
    rules.houses = (uint8_t)m;
    rules.seeds = (uint8_t)n;
  }
  if (rules.kind == MC_OWARE && !no_retro && !rules.pie) {
    /* Retrograde analysis over the position graph, then the history search (mc_retro.h). */
    mc_retro_result rr;
    double r0 = now_seconds();
    rc = mc_retro_solve(&rules, 0, (uint64_t)retro_nodes, &rr);
    double rsecs = now_seconds() - r0;
    char rt[96];
    mc_rules_format(&rules, rt, sizeof(rt));
    if (rc < 0) {
      fprintf(stderr, "mancala: solve %s: retrograde analysis: %s (the search follows)\n", rt,
              rc == MC_ELIMIT ? "more than 4 million positions" : mc_strerror(rc));
    } else {
      fprintf(
          stderr,
          "retrograde %s: %.3f s, %llu positions in %llu components of moves (the largest %llu) "
          "(%llu the same for every history, %d sweeps), %llu nodes of history search over "
          "%llu fresh starts\n",
          rt, rsecs, (unsigned long long)rr.positions, (unsigned long long)rr.components,
          (unsigned long long)rr.largest, (unsigned long long)rr.forced, rr.sweeps,
          (unsigned long long)rr.nodes, (unsigned long long)rr.starts);
      if (rr.exact) {
        if (rr.value == 0)
          printf("value 0\n");
        else
          printf("value %+d\n", rr.value);
        printf("best %d\n", rr.best);
        return 0;
      }
      fprintf(stderr,
              "retrograde %s: not proven within %ld nodes: the value is in [%+d, %+d]; the "
              "search follows\n",
              rt, retro_nodes, rr.lo, rr.hi);
    }
  }

  mc_egtb *tb = no_egtb ? NULL : tables_for(&rules, dir, seeds < 0 ? -2 : seeds);
  mc_search_config cfg = {.tt_bytes = (size_t)tt << 20, .egtb = tb};
  mc_search *s = mc_search_new(&cfg);
  if (s == NULL) {
    fprintf(stderr, "mancala: solve: out of memory\n");
    mc_egtb_free(tb);
    return 1;
  }
  mc_pos start;
  mc_pos_init(&start, &rules);
  mc_limits lim = {maxms, 0, 0};
  mc_solve_result res;
  double t0 = now_seconds();
  rc = mc_solve(s, &rules, &start, NULL, 0, &lim, NULL, &res);
  double secs = now_seconds() - t0;
  char text[96];
  mc_rules_format(&rules, text, sizeof(text));
  int status = 0;
  if (rc < 0) {
    fprintf(stderr, "mancala: solve: %s\n", mc_strerror(rc));
    status = 1;
  } else if (!res.solved) {
    fprintf(stderr, "mancala: solve %s: not solved within %ld ms (%llu nodes, estimate %+d)\n",
            text, maxms, (unsigned long long)res.nodes, res.value);
    status = 1;
  } else {
    if (res.value == 0)
      printf("value 0\n");
    else
      printf("value %+d\n", res.value);
    print_moves("line", res.line, res.line_len);
    if (res.line_complete)
      printf("result %s %s %u %u\n", mc_winner_name(res.end.winner), mc_reason_name(res.end.reason),
             res.end.score[0], res.end.score[1]);
    fprintf(stderr, "solve %s: %.3f s, %llu nodes\n", text, secs, (unsigned long long)res.nodes);
  }
  mc_search_free(s);
  mc_egtb_free(tb);
  return status;
}

/* ---- hint and analyse ----------------------------------------------------------------------- */

/* Replays MOVES (pos) into a new game; prints the error and returns NULL on a bad record. */
static mc_game *replay_or_complain(const mc_rules *rules, const char *moves, const char *cmd) {
  mc_game *game = NULL;
  mc_text_error err;
  int rc = mc_moves_replay(rules, moves, &game, &err);
  if (rc == MC_ESYNTAX || rc == MC_EILLEGAL || rc == MC_EOVER) {
    fprintf(stderr, "mancala: %s: at character %zu: %s\n  %s\n  %*s^\n", cmd, err.offset + 1,
            err.message, moves, (int)err.offset, "");
    return NULL;
  }
  if (rc < 0) {
    fprintf(stderr, "mancala: %s: %s\n", cmd, mc_strerror(rc));
    return NULL;
  }
  return game;
}

static int cmd_hint(int argc, char **argv) {
  const char *dir = NULL, *lspec = NULL;
  long ms = -2, depth = 0, seed = 1, tt = 64;
  int rc;
  if (take_opt(&argc, argv, "--dir", &dir) < 0 || take_opt(&argc, argv, "--level", &lspec) < 0)
    return bad("%s", "--dir and --level need a value");
  if ((rc = take_num(&argc, argv, "--ms", 0, 1000L * 86400, &ms)) ||
      (rc = take_num(&argc, argv, "--depth", 1, MC_SEARCH_MAX_DEPTH, &depth)) ||
      (rc = take_num(&argc, argv, "--seed", 0, 2147483647L, &seed)) ||
      (rc = take_num(&argc, argv, "--tt", 1, 65536, &tt)))
    return rc;
  mc_level lv;
  if (lspec == NULL)
    mc_level_full(&lv);
  else if (mc_level_parse(lspec, &lv) < 0)
    return bad("bad level '%s' (1-6 or full, with optional settings)", lspec);
  mc_rules rules;
  char *pos[1];
  int npos;
  if ((rc = parse_game(argc, argv, &rules, pos, &npos, 1)))
    return rc;
  if (npos != 1)
    return bad("%s", "missing MOVES (house numbers in quotes, \"\" for none)");
  mc_game *game = replay_or_complain(&rules, pos[0], "hint");
  if (game == NULL)
    return 1;
  if (mc_game_over(game, NULL)) {
    fprintf(stderr, "mancala: hint: the game is over\n");
    mc_game_free(game);
    return 1;
  }
  mc_egtb *tb = lv.egtb ? tables_for(&rules, dir ? dir : DEFAULT_DIR, -1) : NULL;
  mc_search_config cfg = {.tt_bytes = (size_t)tt << 20, .egtb = tb};
  mc_search *s = mc_search_new(&cfg);
  size_t hn;
  const mc_pos *hist = mc_game_history(game, &hn);
  /* Without --ms or --depth, a second (a level's own limits apply too). */
  const long budget = ms >= 0 ? ms : depth ? -1 : lspec ? -1 : 1000;
  mc_search_request req = {
      .rules = &rules,
      .pos = mc_game_pos(game),
      .history = hist,
      .history_len = hn,
      .limits = {budget, 0, (int)depth},
      .level = &lv,
      .seed = (uint64_t)seed,
  };
  mc_search_result r;
  /* The pie rule: the first player's first turn planned against the swap, or the swap against
   * the best house. */
  rc = s ? mc_search_pie_first(s, game, &lv, budget, (uint64_t)seed, NULL, &r) : MC_ENOMEM;
  if (rc == 0)
    rc = mc_search_run(s, &req, &r);
  else if (rc == 1)
    rc = 0;
  if (rc == 0 && mc_game_can_swap(game))
    mc_search_pie(&r);
  if (rc < 0) {
    fprintf(stderr, "mancala: hint: %s\n", mc_strerror(rc));
  } else {
    char v[32], m[8];
    format_value(r.value, r.exact, v, sizeof(v));
    if (r.exact)
      printf("move %s value %s exact\n", move_text(r.move, m), v);
    else
      printf("move %s value %s depth %d\n", move_text(r.move, m), v, r.depth);
    print_moves("line", r.pv, (size_t)r.pv_len);
    fprintf(stderr, "hint: %llu nodes in %ld ms\n", (unsigned long long)r.nodes, r.time_ms);
  }
  mc_search_free(s);
  mc_egtb_free(tb);
  mc_game_free(game);
  return rc < 0 ? 1 : 0;
}

static int cmd_analyse(int argc, char **argv) {
  const char *dir = NULL;
  long ms = 200, tt = 64;
  int rc;
  if (take_opt(&argc, argv, "--dir", &dir) < 0)
    return bad("%s needs a value", "--dir");
  if ((rc = take_num(&argc, argv, "--ms", 0, 1000L * 3600, &ms)) ||
      (rc = take_num(&argc, argv, "--tt", 1, 65536, &tt)))
    return rc;
  mc_rules rules;
  char *pos[1];
  int npos;
  if ((rc = parse_game(argc, argv, &rules, pos, &npos, 1)))
    return rc;
  if (npos != 1)
    return bad("%s", "missing MOVES (house numbers in quotes)");
  mc_game *game = replay_or_complain(&rules, pos[0], "analyse");
  if (game == NULL)
    return 1;
  size_t n;
  const uint8_t *moves = mc_game_moves(game, &n);
  mc_egtb *tb = tables_for(&rules, dir ? dir : DEFAULT_DIR, -1);
  mc_search_config cfg = {.tt_bytes = (size_t)tt << 20, .egtb = tb};
  mc_search *s = mc_search_new(&cfg);
  mc_ply_eval *ev = calloc(n ? n : 1, sizeof(*ev));
  mc_limits lim = {ms, 0, 0};
  rc = s && ev ? mc_analyse(s, &rules, moves, n, &lim, NULL, ev, NULL) : MC_ENOMEM;
  if (rc < 0) {
    fprintf(stderr, "mancala: analyse: %s\n", mc_strerror(rc));
  } else {
    for (size_t i = 0; i < n; i++) {
      char v[32], pv[32], played[8], best[8];
      format_value(ev[i].value, ev[i].exact, v, sizeof(v));
      format_value(ev[i].played_value, ev[i].played_exact, pv, sizeof(pv));
      printf("ply %zu %s played %s %s best %s %s", i + 1, mc_seat_name((mc_seat)ev[i].mover),
             move_text(ev[i].played, played), ev[i].played_known ? pv : "?",
             move_text(ev[i].best, best), v);
      if (ev[i].exact)
        printf(" exact\n");
      else
        printf(" depth %d\n", ev[i].depth);
    }
  }
  free(ev);
  mc_search_free(s);
  mc_egtb_free(tb);
  mc_game_free(game);
  return rc < 0 ? 1 : 0;
}

/* ---- match ---------------------------------------------------------------------------------- */

typedef struct match {
  mc_rules rules;
  mc_level a, b;
  long ms;
  uint64_t seed;
  int opening;
  long pairs;
  size_t tt;
  const mc_egtb *tb;
  /* Shared between workers (mutex). */
  pthread_mutex_t lock;
  long next;
  long wins, draws, losses, margin, done;
  long wins_south, games_south, failed;
  long first_points, swaps;   /* Half points of the player who moved first; games with a swap. */
  long pairs_won, pairs_lost; /* Openings where A's two margins add up above / below zero. */
  long balance;               /* Seeds; < 0: any opening. */
} match;

/* The opening of pair p: random legal moves from the pair's seed. With a balance, openings are
 * drawn until a depth-8 search values one within that many seeds for the side to move (at most
 * 500 draws; then the most balanced), so that games test the players, not the opening. */
static int play_opening(const match *mt, long p, mc_search *s, mc_game **out) {
  uint64_t rng = mt->seed * UINT64_C(0x9E3779B97F4A7C15) + (uint64_t)p;
  mc_game *best = NULL;
  int best_gap = 1 << 30;
  for (int attempt = 0; attempt < 500; attempt++) {
    mc_game *g = mc_game_new(&mt->rules);
    if (g == NULL)
      return MC_ENOMEM;
    for (int i = 0; i < mt->opening && !mc_game_over(g, NULL); i++) {
      uint8_t moves[MC_MAX_HOUSES];
      int n = mc_game_legal(g, moves);
      rng = rng * 6364136223846793005u + 1442695040888963407u;
      mc_game_play(g, moves[(rng >> 33) % (uint64_t)n], NULL);
    }
    if (mc_game_over(g, NULL)) {
      mc_game_free(g);
      continue;
    }
    int gap = 0;
    if (mt->balance >= 0) {
      mc_level judge;
      mc_level_parse("full:depth=8,egtb=0", &judge);
      mc_search_result r;
      size_t hn;
      const mc_pos *hist = mc_game_history(g, &hn);
      mc_search_request req = {.rules = &mt->rules,
                               .pos = mc_game_pos(g),
                               .history = hist,
                               .history_len = hn,
                               .limits = MC_LIMITS_NONE,
                               .level = &judge};
      if (mc_search_run(s, &req, &r) == 0)
        gap = r.value < 0 ? -r.value : r.value;
    }
    if (gap < best_gap) {
      mc_game_free(best);
      best = g;
      best_gap = gap;
    } else {
      mc_game_free(g);
    }
    if (best_gap <= mt->balance * MC_SEED)
      break;
  }
  if (best == NULL)
    return MC_ELIMIT;
  *out = best;
  return 0;
}

/* One game from the opening: A is South when a_south (at the start: under the pie rule a swap
 * exchanges the sides). Returns A's margin (seeds), or an error below -1000; *first gets the
 * first mover's half points (2 a win, 1 a draw) and *swapped whether a swap was played. */
static int play_game(const match *mt, const mc_game *opening, bool a_south, mc_search *sa,
                     mc_search *sb, long p, int *first, bool *swapped) {
  mc_game *g = mc_game_copy(opening);
  if (g == NULL)
    return -10000;
  mc_search_clear(sa);
  mc_search_clear(sb);
  uint64_t ply = 0;
  while (!mc_game_over(g, NULL)) {
    const mc_pos *pos = mc_game_pos(g);
    const bool a_on_south = a_south != (mc_game_swap_ply(g) >= 0);
    const bool a_moves = (pos->turn == MC_SOUTH) == a_on_south;
    size_t hn;
    const mc_pos *hist = mc_game_history(g, &hn);
    mc_search_request req = {
        .rules = &mt->rules,
        .pos = pos,
        .history = hist,
        .history_len = hn,
        .limits = {mt->ms, 0, 0},
        .level = a_moves ? &mt->a : &mt->b,
        .seed = mt->seed ^ ((uint64_t)p << 32) ^ (ply++ * 2654435761u) ^ (a_moves ? 0 : 77),
    };
    mc_search_result r;
    /* The pie rule: the first player plans its first turn knowing the other may swap, and the
     * other swaps when the first turn left the first mover ahead (as mc_search_game()). */
    int rc = mc_search_pie_first(a_moves ? sa : sb, g, req.level, mt->ms, req.seed, NULL, &r);
    if (rc == 0) {
      rc = mc_search_run(a_moves ? sa : sb, &req, &r);
      if (rc == 0 && mc_game_can_swap(g))
        mc_search_pie(&r);
    }
    if (rc < 0 || mc_game_play(g, r.move, NULL) < 0) {
      mc_game_free(g);
      return -10000;
    }
  }
  mc_result res;
  mc_game_over(g, &res);
  /* The sides at the end: the first mover (South at the start) holds North after a swap. */
  *swapped = mc_game_swap_ply(g) >= 0;
  const bool a_on_south = a_south != *swapped;
  const int first_side = *swapped ? MC_NORTH : MC_SOUTH;
  *first = res.winner == MC_DRAW ? 1 : (int)res.winner == first_side ? 2 : 0;
  mc_game_free(g);
  const int south = (int)res.score[0] - (int)res.score[1];
  return a_on_south ? south : -south;
}

static void *match_worker(void *arg) {
  match *mt = arg;
  mc_search_config cfg = {.tt_bytes = mt->tt, .egtb = mt->tb};
  mc_search *sa = mc_search_new(&cfg), *sb = mc_search_new(&cfg);
  for (;;) {
    pthread_mutex_lock(&mt->lock);
    long p = mt->next < mt->pairs ? mt->next++ : -1;
    pthread_mutex_unlock(&mt->lock);
    if (p < 0 || sa == NULL || sb == NULL)
      break;
    mc_game *opening = NULL;
    if (play_opening(mt, p, sa, &opening) < 0) {
      pthread_mutex_lock(&mt->lock);
      mt->failed += 2;
      pthread_mutex_unlock(&mt->lock);
      continue;
    }
    int pair = 0;
    for (int side = 0; side < 2; side++) {
      int first = 0;
      bool swapped = false;
      const int margin = play_game(mt, opening, side == 0, sa, sb, p, &first, &swapped);
      pair += margin;
      pthread_mutex_lock(&mt->lock);
      if (margin < -1000) {
        mt->failed++;
      } else {
        mt->done++;
        mt->first_points += first;
        mt->swaps += swapped;
        mt->margin += margin;
        if (margin > 0)
          mt->wins++;
        else if (margin < 0)
          mt->losses++;
        else
          mt->draws++;
        if (side == 0) {
          mt->games_south++;
          mt->wins_south += margin > 0;
        }
      }
      if (side == 1 && margin > -1000) {
        mt->pairs_won += pair > 0;
        mt->pairs_lost += pair < 0;
      }
      pthread_mutex_unlock(&mt->lock);
    }
    mc_game_free(opening);
  }
  mc_search_free(sa);
  mc_search_free(sb);
  return NULL;
}

static int cmd_match(int argc, char **argv) {
  const char *aspec = NULL, *bspec = NULL, *dir = NULL;
  long games = 0, ms = -1, seed = 1, opening = 2, jobs = 1, tt = 16, balance = -1;
  int rc;
  if (take_opt(&argc, argv, "--a", &aspec) < 0 || take_opt(&argc, argv, "--b", &bspec) < 0 ||
      take_opt(&argc, argv, "--dir", &dir) < 0)
    return bad("%s", "--a, --b and --dir need a value");
  if ((rc = take_num(&argc, argv, "--games", 2, 1000000, &games)) ||
      (rc = take_num(&argc, argv, "--ms", 0, 1000L * 3600, &ms)) ||
      (rc = take_num(&argc, argv, "--seed", 0, 2147483647L, &seed)) ||
      (rc = take_num(&argc, argv, "--opening", 0, 100, &opening)) ||
      (rc = take_num(&argc, argv, "--balance", 0, 200, &balance)) ||
      (rc = take_num(&argc, argv, "--jobs", 1, 64, &jobs)) ||
      (rc = take_num(&argc, argv, "--tt", 1, 4096, &tt)))
    return rc;
  if (aspec == NULL || bspec == NULL || games == 0)
    return bad("%s", "match needs --a LEVEL, --b LEVEL and --games N");
  match mt;
  memset(&mt, 0, sizeof(mt));
  if (mc_level_parse(aspec, &mt.a) < 0)
    return bad("bad level '%s' (1-6 or full, with optional settings)", aspec);
  if (mc_level_parse(bspec, &mt.b) < 0)
    return bad("bad level '%s' (1-6 or full, with optional settings)", bspec);
  char *pos[1];
  int npos;
  if ((rc = parse_game(argc, argv, &mt.rules, pos, &npos, 0)))
    return rc;
  mc_egtb *tb = NULL;
  if ((mt.a.egtb || mt.b.egtb) && mc_egtb_supported(&mt.rules)) {
    tb = mc_egtb_new();
    mc_egtb_options o = {.dir = dir ? dir : DEFAULT_DIR, .max_seeds = 1};
    if (tb && mc_egtb_load(tb, &mt.rules, &o) < 0) {
      fprintf(stderr, "match: no endgame table in %s (mancala egtb build): playing without\n",
              o.dir);
      mc_egtb_free(tb);
      tb = NULL;
    }
  }
  mt.tb = tb;
  mt.ms = ms;
  mt.seed = (uint64_t)seed;
  mt.opening = (int)opening;
  mt.balance = balance;
  mt.pairs = (games + 1) / 2;
  mt.tt = (size_t)tt << 20;
  pthread_mutex_init(&mt.lock, NULL);
  double t0 = now_seconds();
  pthread_t th[64];
  int started = 0;
  for (long j = 0; j < jobs; j++)
    if (pthread_create(&th[started], NULL, match_worker, &mt) == 0)
      started++;
  if (started == 0)
    match_worker(&mt);
  for (int j = 0; j < started; j++)
    pthread_join(th[j], NULL);
  pthread_mutex_destroy(&mt.lock);
  char text[96];
  mc_rules_format(&mt.rules, text, sizeof(text));
  printf("match %s: A %s vs B %s, %ld games (%ld openings of %ld plies, sides swapped)\n", text,
         aspec, bspec, mt.done, mt.pairs, opening);
  const double score =
      mt.done ? 100.0 * ((double)mt.wins + 0.5 * (double)mt.draws) / (double)mt.done : 0;
  printf("wins %ld draws %ld losses %ld score %.1f%% margin %+.2f\n", mt.wins, mt.draws, mt.losses,
         score, mt.done ? (double)mt.margin / (double)mt.done : 0.0);
  printf("openings won %ld lost %ld (of %ld: both games' margins added)\n", mt.pairs_won,
         mt.pairs_lost, mt.pairs);
  printf("first mover score %.1f%% (%ld games with a swap)\n",
         mt.done ? 50.0 * (double)mt.first_points / (double)mt.done : 0.0, mt.swaps);
  fprintf(stderr, "match: %.1f s; A won %ld of %ld games as South\n", now_seconds() - t0,
          mt.wins_south, mt.games_south);
  mc_egtb_free(tb);
  if (mt.failed) {
    fprintf(stderr, "mancala: match: %ld games failed\n", mt.failed);
    return 1;
  }
  return 0;
}

/* ---- bench ---------------------------------------------------------------------------------- */

static int cmd_bench(int argc, char **argv) {
  long ms = 2000;
  int rc;
  if ((rc = take_num(&argc, argv, "--ms", 10, 600000, &ms)))
    return rc;
  if (argc)
    return bad("unexpected argument '%s'", argv[0]);
  /* Search speed: each game's default board, from the start and from positions after a few
   * random moves, a fixed time each, no endgame tables. */
  for (int kind = MC_KALAH; kind <= MC_CONGKAK; kind++) {
    mc_rules rules;
    mc_rules_init(&rules, (mc_kind)kind);
    mc_search *s = mc_search_new(NULL);
    if (s == NULL)
      return 1;
    uint64_t nodes = 0;
    double secs = 0;
    int depth = 0, runs = 0;
    uint64_t rng = 12345;
    for (int i = 0; i < 4; i++) {
      mc_game *g = mc_game_new(&rules);
      for (int k = 0; k < 3 * i && !mc_game_over(g, NULL); k++) {
        uint8_t moves[MC_MAX_HOUSES];
        int n = mc_game_legal(g, moves);
        rng = rng * 6364136223846793005u + 1442695040888963407u;
        mc_game_play(g, moves[(rng >> 33) % (uint64_t)n], NULL);
      }
      if (!mc_game_over(g, NULL)) {
        mc_search_result r;
        mc_search_clear(s);
        double t0 = now_seconds();
        if (mc_search_game(s, g, 6, ms / 4, 1, NULL, &r) == 0) {
          secs += now_seconds() - t0;
          nodes += r.nodes;
          depth += r.depth;
          runs++;
        }
      }
      mc_game_free(g);
    }
    char text[96];
    mc_rules_format(&rules, text, sizeof(text));
    printf("search %s: %llu nodes in %.2f s, %.2f million nodes/s, average depth %.1f\n", text,
           (unsigned long long)nodes, secs, secs > 0 ? (double)nodes / secs / 1e6 : 0.0,
           runs ? (double)depth / runs : 0.0);
    fflush(stdout);
    mc_search_free(s);
  }
  /* Solver times on small boards (tables built in memory as `mancala solve` does). */
  static const struct {
    mc_kind kind;
    int m, n;
  } boards[] = {{MC_KALAH, 3, 3}, {MC_KALAH, 4, 3}, {MC_KALAH, 4, 4},   {MC_KALAH, 5, 3},
                {MC_OWARE, 3, 3}, {MC_OWARE, 4, 2}, {MC_CONGKAK, 3, 3}, {MC_CONGKAK, 4, 2}};
  for (size_t i = 0; i < sizeof(boards) / sizeof(boards[0]); i++) {
    mc_rules rules;
    mc_rules_init(&rules, boards[i].kind);
    rules.houses = (uint8_t)boards[i].m;
    rules.seeds = (uint8_t)boards[i].n;
    mc_egtb *tb = tables_for(&rules, NULL, -1);
    mc_search_config cfg = {.tt_bytes = 64u << 20, .egtb = tb};
    mc_search *s = mc_search_new(&cfg);
    mc_pos start;
    mc_pos_init(&start, &rules);
    mc_solve_result res;
    mc_limits lim = {60000, 0, 0};
    double t0 = now_seconds();
    rc = s ? mc_solve(s, &rules, &start, NULL, 0, &lim, NULL, &res) : MC_ENOMEM;
    double secs = now_seconds() - t0;
    char text[96];
    mc_rules_format(&rules, text, sizeof(text));
    if (rc == 0 && res.solved)
      printf("solve %s: value %+d in %.3f s, %llu nodes\n", text, res.value, secs,
             (unsigned long long)res.nodes);
    else
      printf("solve %s: not solved in %.0f s\n", text, secs);
    fflush(stdout);
    mc_search_free(s);
    mc_egtb_free(tb);
  }
  return 0;
}

/* ---- egtb ----------------------------------------------------------------------------------- */

typedef struct build_job {
  mc_rules rules;
  int seeds;
  const char *dir;
  int rc;
  double secs;
} build_job;

typedef struct build_queue {
  build_job *jobs;
  int n, next;
  pthread_mutex_t lock;
} build_queue;

static void build_progress(void *arg, const char *name, int seeds, int max_seeds) {
  (void)arg;
  fprintf(stderr, "  %s: %d of %d seeds\n", name, seeds, max_seeds);
}

static void *build_worker(void *arg) {
  build_queue *q = arg;
  for (;;) {
    pthread_mutex_lock(&q->lock);
    int i = q->next < q->n ? q->next++ : -1;
    pthread_mutex_unlock(&q->lock);
    if (i < 0)
      return NULL;
    build_job *j = &q->jobs[i];
    mc_egtb *tb = mc_egtb_new();
    mc_egtb_options o = {
        .dir = j->dir, .max_seeds = j->seeds, .build = true, .progress = build_progress};
    double t0 = now_seconds();
    j->rc = tb ? mc_egtb_load(tb, &j->rules, &o) : MC_ENOMEM;
    j->secs = now_seconds() - t0;
    mc_egtb_free(tb);
  }
}

static int egtb_list(const char *dir, bool verify_only) {
  DIR *d = opendir(dir);
  if (d == NULL) {
    fprintf(stderr, "mancala: egtb: cannot open %s: %s\n", dir, strerror(errno));
    return 1;
  }
  int bad_files = 0, files = 0;
  uint64_t total = 0;
  struct dirent *e;
  char names[64][256];
  while ((e = readdir(d)) != NULL && files < 64) {
    size_t len = strlen(e->d_name);
    if (len > 5 && strcmp(e->d_name + len - 5, ".egtb") == 0 && len < 256)
      snprintf(names[files++], 256, "%s", e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)files, sizeof(names[0]), (int (*)(const void *, const void *))strcmp);
  for (int i = 0; i < files; i++) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    mc_egtb_info info;
    int rc = mc_egtb_verify(path, &info);
    if (rc < 0) {
      printf("%s: %s\n", names[i], mc_strerror(rc));
      bad_files++;
      continue;
    }
    total += info.bytes;
    if (verify_only)
      printf("%s: ok\n", names[i]);
    else
      printf("%s: %d seeds, %llu values, %.1f MB, hash %016llx, %llu open, built in %.1f s\n",
             names[i], info.max_seeds, (unsigned long long)info.entries, (double)info.bytes / 1e6,
             (unsigned long long)info.hash, (unsigned long long)info.open, info.build_secs);
  }
  if (!verify_only)
    printf("%d tables, %.1f MB\n", files - bad_files, (double)total / 1e6);
  if (files == 0)
    fprintf(stderr, "mancala: egtb: no tables in %s (mancala egtb build --dir %s)\n", dir, dir);
  return bad_files || files == 0 ? 1 : 0;
}

static int cmd_egtb(int argc, char **argv) {
  if (argc < 1)
    return bad("%s", "egtb needs build, info or verify");
  const char *sub = argv[0];
  argc--;
  argv++;
  const char *dir = DEFAULT_DIR;
  long jobs = 2, seeds = 0;
  int rc;
  if (take_opt(&argc, argv, "--dir", &dir) < 0)
    return bad("%s needs a value", "--dir");
  if ((rc = take_num(&argc, argv, "--jobs", 1, 16, &jobs)) ||
      (rc = take_num(&argc, argv, "--max-seeds", 1, 150, &seeds)))
    return rc;
  if (strcmp(sub, "info") == 0 || strcmp(sub, "verify") == 0) {
    if (argc)
      return bad("unexpected argument '%s'", argv[0]);
    return egtb_list(dir, sub[0] == 'v');
  }
  if (strcmp(sub, "build") != 0)
    return bad("unknown egtb command '%s' (build, info or verify)", sub);
  build_job list[5];
  int n = 0;
  if (argc == 0) {
    for (int i = 0; i < 5; i++) {
      mc_rules_init(&list[n].rules, i < 2 ? MC_KALAH : MC_OWARE);
      if (i < 2)
        list[n].rules.empty_capture = i == 1;
      else
        list[n].rules.grand_slam = (mc_grand_slam)(i - 2);
      list[n].seeds = (int)seeds;
      n++;
    }
  } else {
    char *pos[1];
    int npos;
    if ((rc = parse_game(argc, argv, &list[0].rules, pos, &npos, 0)))
      return rc;
    if (!mc_egtb_supported(&list[0].rules))
      return bad("%s is not tabled (Kalah and Oware are)", argv[0]);
    if (seeds && mc_egtb_entries(&list[0].rules, (int)seeds) > (UINT64_C(1) << 31))
      return bad("%s", "--max-seeds too large for this board");
    list[0].seeds = (int)seeds;
    n = 1;
  }
  for (int i = 0; i < n; i++) {
    list[i].dir = dir;
    list[i].rc = 0;
  }
  build_queue q = {.jobs = list, .n = n};
  pthread_mutex_init(&q.lock, NULL);
  pthread_t th[16];
  int started = 0;
  for (long j = 0; j < jobs && j < n; j++)
    if (pthread_create(&th[started], NULL, build_worker, &q) == 0)
      started++;
  if (started == 0)
    build_worker(&q);
  for (int j = 0; j < started; j++)
    pthread_join(th[j], NULL);
  pthread_mutex_destroy(&q.lock);
  int status = 0;
  for (int i = 0; i < n; i++) {
    char name[64];
    mc_egtb_file_name(&list[i].rules, name, sizeof(name));
    if (list[i].rc < 0) {
      fprintf(stderr, "mancala: egtb build %s: %s%s%s\n", name, mc_strerror(list[i].rc),
              list[i].rc == MC_EIO ? ": " : "", list[i].rc == MC_EIO ? strerror(errno) : "");
      status = 1;
    } else if (list[i].rc == 1) {
      fprintf(stderr, "mancala: egtb build %s: built but not written to %s\n", name, dir);
      status = 1;
    } else {
      char path[4096];
      snprintf(path, sizeof(path), "%s/%s", dir, name);
      mc_egtb_info info;
      if (mc_egtb_verify(path, &info) == 0)
        printf("%s: %d seeds, %.1f MB, %llu open, %.1f s\n", name, info.max_seeds,
               (double)info.bytes / 1e6, (unsigned long long)info.open, list[i].secs);
    }
  }
  return status;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return bad("%s", "missing command");
  const char *cmd = argv[1];
  if (strcmp(cmd, "perft") == 0)
    return cmd_perft(argc - 2, argv + 2);
  if (strcmp(cmd, "replay") == 0)
    return cmd_replay(argc - 2, argv + 2);
  if (strcmp(cmd, "solve") == 0)
    return cmd_solve(argc - 2, argv + 2);
  if (strcmp(cmd, "hint") == 0)
    return cmd_hint(argc - 2, argv + 2);
  if (strcmp(cmd, "analyse") == 0 || strcmp(cmd, "analyze") == 0)
    return cmd_analyse(argc - 2, argv + 2);
  if (strcmp(cmd, "match") == 0)
    return cmd_match(argc - 2, argv + 2);
  if (strcmp(cmd, "bench") == 0)
    return cmd_bench(argc - 2, argv + 2);
  if (strcmp(cmd, "egtb") == 0)
    return cmd_egtb(argc - 2, argv + 2);
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    fputs(usage, stdout);
    return 0;
  }
  return bad("unknown command '%s'", cmd);
}
