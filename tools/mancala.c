/* mancala: the rules engine's command-line tool.
 *
 *   mancala perft GAME DEPTH [options]     counts move sequences (stdout), time and speed (stderr)
 *   mancala replay GAME [options] MOVES    checks a game record, prints the final position
 *
 * Bad arguments print the usage on stderr and exit with status 2; an illegal record exits with 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mc_error.h"
#include "mc_game.h"
#include "mc_perft.h"
#include "mc_text.h"

static const char usage[] =
    "usage: mancala perft GAME DEPTH [options]\n"
    "       mancala replay GAME [options] \"MOVES\"\n"
    "\n"
    "GAME is kalah, oware or congkak. MOVES are house numbers separated by spaces.\n"
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
    "DEPTH is 1-64.\n";

static int bad(const char *fmt, const char *arg) {
  fprintf(stderr, "mancala: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n\n%s", usage);
  return 2;
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

int main(int argc, char **argv) {
  if (argc < 2)
    return bad("%s", "missing command");
  if (strcmp(argv[1], "perft") == 0)
    return cmd_perft(argc - 2, argv + 2);
  if (strcmp(argv[1], "replay") == 0)
    return cmd_replay(argc - 2, argv + 2);
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    fputs(usage, stdout);
    return 0;
  }
  return bad("unknown command '%s'", argv[1]);
}
