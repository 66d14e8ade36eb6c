/* Text forms (mc_text.h): every form written exactly, round trips, truncation like snprintf(),
 * and every kind of malformed input with its error code and offset. Names of kinds, modes, seats,
 * steps, reasons, winners and errors too.
 */
#include "util.h"

static int rules_eq(const mc_rules *a, const mc_rules *b) {
  return a->kind == b->kind && a->houses == b->houses && a->seeds == b->seeds &&
         a->empty_capture == b->empty_capture && a->grand_slam == b->grand_slam &&
         a->lap_capture == b->lap_capture && a->match == b->match && a->burn == b->burn;
}

/* Checks that an error offset is one of the allowed places (-1 ends the list). The header says
 * "the offending place"; where a malformed token could be blamed at its start or at the bad
 * character inside it, both are allowed. */
static void check_offset_at(int line, const char *text, size_t offset, const int *allowed) {
  check_count++;
  for (const int *a = allowed; *a >= 0; a++) {
    if ((size_t)*a == offset) {
      return;
    }
  }
  check_failures++;
  fprintf(stderr, "%s:%d: error offset %zu for \"%s\", expected %d%s\n", __FILE__, line, offset,
          text, allowed[0], allowed[1] >= 0 ? " (or another allowed place)" : "");
}

/* ---- Rules ---- */

static void check_rules_text(int line, const mc_rules *r, const char *want, const char *alt) {
  char buf[128];
  int len = mc_rules_format(r, buf, sizeof buf);
  check_count++;
  if (strcmp(buf, want) != 0 && (alt == NULL || strcmp(buf, alt) != 0)) {
    check_failures++;
    fprintf(stderr, "%s:%d: rules text \"%s\", expected \"%s\"\n", __FILE__, line, buf, want);
  }
  CHECK_INT(len, strlen(buf));
  mc_rules back;
  mc_text_error err;
  CHECK_INT(mc_rules_parse(buf, &back, &err), 0);
  CHECK(rules_eq(&back, r));
  CHECK_INT(mc_rules_parse(want, &back, &err), 0);
  CHECK(rules_eq(&back, r));
}

static void test_rules_text(void) {
  mc_rules r = mk_rules(MC_KALAH, 6, 4);
  check_rules_text(__LINE__, &r, "kalah 6x4", NULL);
  r.empty_capture = true;
  check_rules_text(__LINE__, &r, "kalah 6x4 empty_capture", NULL);
  r = mk_rules(MC_KALAH, 1, 1);
  check_rules_text(__LINE__, &r, "kalah 1x1", NULL);
  r = mk_rules(MC_KALAH, 9, 12);
  check_rules_text(__LINE__, &r, "kalah 9x12", NULL);
  /* The default grand slam mode may be written or left out; both parse to the default. */
  r = mk_rules(MC_OWARE, 6, 4);
  check_rules_text(__LINE__, &r, "oware 6x4", "oware 6x4 grand_slam=no_capture");
  check_rules_text(__LINE__, &r, "oware 6x4 grand_slam=no_capture", "oware 6x4");
  r = mk_rules(MC_OWARE, 5, 3);
  r.grand_slam = MC_GS_FORBIDDEN;
  check_rules_text(__LINE__, &r, "oware 5x3 grand_slam=forbidden", NULL);
  r.grand_slam = MC_GS_CAPTURE;
  check_rules_text(__LINE__, &r, "oware 5x3 grand_slam=capture", NULL);
  r = mk_rules(MC_CONGKAK, 7, 7);
  check_rules_text(__LINE__, &r, "congkak 7x7", NULL);
  r.lap_capture = true;
  check_rules_text(__LINE__, &r, "congkak 7x7 lap_capture", NULL);
  r.lap_capture = false;
  r.match = true;
  check_rules_text(__LINE__, &r, "congkak 7x7 rounds=match", NULL);
  r = mk_rules(MC_CONGKAK, 3, 3);
  r.lap_capture = true;
  r.match = true;
  check_rules_text(__LINE__, &r, "congkak 3x3 lap_capture rounds=match", NULL);
  /* The old burn rule of stored games is written after rounds=match; the default may be written
   * and either may come first. */
  r.burn = MC_BURN_MATCH;
  check_rules_text(__LINE__, &r, "congkak 3x3 lap_capture rounds=match burn=match", NULL);
  check_rules_text(__LINE__, &r, "congkak 3x3 burn=match rounds=match lap_capture",
                   "congkak 3x3 lap_capture rounds=match burn=match");
  r.burn = MC_BURN_ROUND;
  check_rules_text(__LINE__, &r, "congkak 3x3 lap_capture rounds=match burn=round",
                   "congkak 3x3 lap_capture rounds=match");
  r = mk_rules(MC_CONGKAK, 7, 7);
  check_rules_text(__LINE__, &r, "congkak 7x7 burn=round", "congkak 7x7");

  /* Truncation works like snprintf(). */
  char buf[5];
  r = mk_rules(MC_KALAH, 6, 4);
  CHECK_INT(mc_rules_format(&r, buf, sizeof buf), 9);
  CHECK_STR(buf, "kala");
  CHECK_INT(mc_rules_format(&r, NULL, 0), 9);
}

/* One malformed rules text: MC_ESYNTAX, an allowed offset, the rules untouched, a message. */
static void check_rules_error(int line, const char *text, const int *offsets) {
  mc_rules r, sentinel;
  memset(&r, 0x5a, sizeof r);
  sentinel = r;
  mc_text_error err;
  memset(&err, 0, sizeof err);
  err.offset = 9999;
  int rc = mc_rules_parse(text, &r, &err);
  check_count++;
  if (rc != MC_ESYNTAX) {
    check_failures++;
    fprintf(stderr, "%s:%d: mc_rules_parse(\"%s\") returned %d, expected MC_ESYNTAX\n", __FILE__,
            line, text, rc);
    return;
  }
  check_offset_at(line, text, err.offset, offsets);
  CHECK(memcmp(&r, &sentinel, sizeof r) == 0);
  CHECK(err.message[0] != '\0');
  CHECK(memchr(err.message, '\0', sizeof err.message) != NULL);
}

#define RULES_ERROR(text, ...)                                                                     \
  do {                                                                                             \
    const int offsets_[] = {__VA_ARGS__, -1};                                                      \
    check_rules_error(__LINE__, (text), offsets_);                                                 \
  } while (0)

static void test_rules_errors(void) {
  RULES_ERROR("", 0);
  RULES_ERROR("chess 6x4", 0);
  RULES_ERROR("Kalah 6x4", 0);
  RULES_ERROR("kalah", 5);
  RULES_ERROR("kalah 6x4 foo", 10);
  RULES_ERROR("kalah 6x4 lap_capture", 10);
  RULES_ERROR("kalah 6x4 rounds=match", 10);
  RULES_ERROR("kalah 6x4 grand_slam=capture", 10);
  RULES_ERROR("oware 6x4 empty_capture", 10);
  RULES_ERROR("congkak 7x7 grand_slam=forbidden", 12);
  RULES_ERROR("kalah 10x4", 6);
  RULES_ERROR("kalah 0x4", 6);
  RULES_ERROR("kalah 6x13", 8, 6);
  RULES_ERROR("kalah 6x0", 8, 6);
  RULES_ERROR("kalah 6y4", 7, 6);
  RULES_ERROR("kalah 6x", 8, 6);
  RULES_ERROR("kalah x4", 6);
  RULES_ERROR("oware 6x4 grand_slam=always", 21, 10);
  RULES_ERROR("oware 6x4 grand_slam", 20, 10);
  /* burn=match belongs to a Congkak match only. */
  RULES_ERROR("kalah 6x4 burn=match", 10);
  RULES_ERROR("oware 6x4 burn=round", 10);
  RULES_ERROR("congkak 7x7 burn=match", 12);
  RULES_ERROR("congkak 7x7 burn=match rounds=single", 12);
  RULES_ERROR("congkak 7x7 rounds=match burn=always", 25);
  RULES_ERROR("congkak 7x7 rounds=match burn=match burn=round", 36);
}

/* ---- Positions ---- */

static void check_pos_text(int line, const char *text) {
  mc_pos p = mk_pos(text), back;
  char buf[256];
  int len = mc_pos_format(&p, buf, sizeof buf);
  check_count++;
  if (strcmp(buf, text) != 0) {
    check_failures++;
    fprintf(stderr, "%s:%d: position text \"%s\", expected \"%s\"\n", __FILE__, line, buf, text);
  }
  CHECK_INT(len, strlen(text));
  mc_text_error err;
  memset(&back, 0x77, sizeof back);
  CHECK_INT(mc_pos_parse(text, &back, &err), 0);
  check_count++;
  if (memcmp(&back, &p, sizeof p) != 0) {
    check_failures++;
    fprintf(stderr, "%s:%d: mc_pos_parse(\"%s\") gave another position\n", __FILE__, line, text);
  }
}

static void test_pos_text(void) {
  check_pos_text(__LINE__, "4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) south");
  check_pos_text(__LINE__, "0 5 5 5 5 4 (0) 4 4 4 4 4 4 (0) north");
  check_pos_text(__LINE__, "1 (0) 1 (0) south");
  check_pos_text(__LINE__, "0 (1) 0 (1) north");
  check_pos_text(__LINE__, "3 3 3 (1) x 3 3 (2) north round 2 first north");
  check_pos_text(__LINE__, "x 3 3 (0) 3 3 3 (3) south round 2 first south");
  check_pos_text(__LINE__, "x x 7 7 7 7 7 (12) 7 7 7 7 7 7 x (23) north round 9 first south");
  check_pos_text(__LINE__, "1 (0) 1 (0) south round 1 first north");
  check_pos_text(__LINE__, "12 12 12 12 12 12 12 12 12 (0) 12 12 12 12 12 12 12 12 12 (0) south");
  check_pos_text(__LINE__, "0 0 0 0 0 0 0 0 0 (108) 0 0 0 0 0 0 0 0 0 (108) north");

  mc_pos p = mk_pos("4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) south");
  char buf[8];
  CHECK_INT(mc_pos_format(&p, buf, sizeof buf), 37);
  CHECK_STR(buf, "4 4 4 4");
  CHECK_INT(mc_pos_format(&p, NULL, 0), 37);
}

static void check_pos_error(int line, const char *text, const int *offsets) {
  mc_pos p, sentinel;
  memset(&p, 0x5a, sizeof p);
  sentinel = p;
  mc_text_error err;
  memset(&err, 0, sizeof err);
  err.offset = 9999;
  int rc = mc_pos_parse(text, &p, &err);
  check_count++;
  if (rc != MC_ESYNTAX) {
    check_failures++;
    fprintf(stderr, "%s:%d: mc_pos_parse(\"%s\") returned %d, expected MC_ESYNTAX\n", __FILE__,
            line, text, rc);
    return;
  }
  if (offsets[0] >= 0) {
    check_offset_at(line, text, err.offset, offsets);
  } else {
    CHECK(err.offset <= strlen(text));
  }
  CHECK(memcmp(&p, &sentinel, sizeof p) == 0);
  CHECK(err.message[0] != '\0');
}

#define POS_ERROR(text, ...)                                                                       \
  do {                                                                                             \
    const int offsets_[] = {__VA_ARGS__, -1};                                                      \
    check_pos_error(__LINE__, (text), offsets_);                                                   \
  } while (0)

/* The offset of the n-th occurrence (from 0) of word in text, for readable expectations. */
static int at(const char *text, const char *word) {
  const char *s = strstr(text, word);
  return s ? (int)(s - text) : -2;
}

static void test_pos_errors(void) {
  const char *t;
  POS_ERROR("", 0);
  POS_ERROR("4 4 (0) 4 4 (0)", 15);
  POS_ERROR("4 4 (0) 4 4 (0) east", 16);
  POS_ERROR("4 y (0) 4 4 (0) south", 2);
  POS_ERROR("4 4 (x) 4 4 (0) south", 5, 4);
  POS_ERROR("256 4 (0) 4 4 (0) south", 0);
  t = "4 4 (0) 4 4 (0) south round 0 first south";
  POS_ERROR(t, at(t, "0 first"));
  t = "4 4 (0) 4 4 (0) south round 10 first south";
  POS_ERROR(t, at(t, "10"));
  t = "4 4 (0) 4 4 (0) south round 2";
  POS_ERROR(t, (int)strlen(t));
  t = "4 4 (0) 4 4 (0) south round 2 first west";
  POS_ERROR(t, at(t, "west"));
  t = "4 4 (0) 4 4 (0) south extra";
  POS_ERROR(t, at(t, "extra"));
  /* Malformed layouts: the place is open, the code is not. */
  POS_ERROR("4 4 (0) 4 (0) south", -1);
  POS_ERROR("(0) (0) south", -1);
  POS_ERROR("4 4 0 4 4 0 south", -1);
  POS_ERROR("1 1 1 1 1 1 1 1 1 1 (0) 1 1 1 1 1 1 1 1 1 1 (0) south", -1);
  /* A total that no store could count. */
  POS_ERROR("200 200 (0) 0 0 (0) south", -1);
}

/* ---- Moves ---- */

static void test_moves_text(void) {
  const uint8_t moves[] = {3, 6, 1};
  char buf[32];
  CHECK_INT(mc_moves_format(moves, 3, buf, sizeof buf), 5);
  CHECK_STR(buf, "3 6 1");
  CHECK_INT(mc_moves_format(moves, 0, buf, sizeof buf), 0);
  CHECK_STR(buf, "");
  CHECK_INT(mc_moves_format(moves, 3, buf, 3), 5);
  CHECK_STR(buf, "3 ");

  const char *inputs[] = {"3 6 1", "3,6,1", "3,\t6 \n1", "3  6\t\t1", "3, 6, 1"};
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
    uint8_t got[8] = {0};
    size_t n = 0;
    CHECK_INT(mc_moves_parse(inputs[i], got, 8, &n, NULL), 0);
    CHECK_INT(n, 3);
    CHECK(got[0] == 3 && got[1] == 6 && got[2] == 1);
  }
  uint8_t got[8];
  size_t n = 99;
  CHECK_INT(mc_moves_parse("", got, 8, &n, NULL), 0);
  CHECK_INT(n, 0);
  CHECK_INT(mc_moves_parse("9", got, 8, &n, NULL), 0);
  CHECK_INT(n, 1);
  CHECK_INT(got[0], 9);
  /* Exactly cap moves fit. */
  CHECK_INT(mc_moves_parse("1 2", got, 2, &n, NULL), 0);
  CHECK_INT(n, 2);
}

static void check_moves_error(int line, const char *text, size_t cap, int offset, int alt) {
  uint8_t got[8];
  memset(got, 0xaa, sizeof got);
  size_t n = 77;
  mc_text_error err;
  err.offset = 9999;
  int rc = mc_moves_parse(text, got, cap, &n, &err);
  check_count++;
  if (rc != MC_ESYNTAX) {
    check_failures++;
    fprintf(stderr, "%s:%d: mc_moves_parse(\"%s\") returned %d, expected MC_ESYNTAX\n", __FILE__,
            line, text, rc);
    return;
  }
  const int offsets[] = {offset, alt, -1};
  check_offset_at(line, text, err.offset, offsets);
  CHECK_INT(n, 77);
  for (size_t i = 0; i < sizeof got; i++) {
    CHECK_INT(got[i], 0xaa);
  }
}

/* "3;6": the bad character is at 1; a parser reading tokens may blame the token at 0. */
static void test_moves_errors(void) {
  check_moves_error(__LINE__, "3 0", 8, 2, -1);
  check_moves_error(__LINE__, "3 10", 8, 2, -1);
  check_moves_error(__LINE__, "3 a", 8, 2, -1);
  check_moves_error(__LINE__, "3;6", 8, 1, 0);
  check_moves_error(__LINE__, "-1", 8, 0, -1);
  check_moves_error(__LINE__, "3 6 1", 2, 4, -1);
  check_moves_error(__LINE__, "1 2 3 4 5 6 7 8 9", 8, 16, -1);
}

/* ---- Replays and records ---- */

static void check_replay_error(int line, const mc_rules *r, const char *text, int code,
                               int offset) {
  static int dummy;
  mc_game *g = (mc_game *)&dummy;
  mc_text_error err;
  err.offset = 9999;
  int rc = mc_moves_replay(r, text, &g, &err);
  check_count++;
  if (rc != code) {
    check_failures++;
    fprintf(stderr, "%s:%d: mc_moves_replay(\"%s\") returned %d, expected %d\n", __FILE__, line,
            text, rc, code);
    if (rc == 0) {
      mc_game_free(g);
    }
    return;
  }
  const int offsets[] = {offset, -1};
  check_offset_at(line, text, err.offset, offsets);
  CHECK(g == (mc_game *)&dummy);
}

static void test_replay(void) {
  mc_rules r = mk_rules(MC_KALAH, 6, 4);
  mc_game *g = NULL;
  mc_text_error err;
  CHECK_INT(mc_moves_replay(&r, "3 6 1", &g, &err), 0);
  CHECK(g != NULL);
  CHECK_INT(mc_game_ply(g), 3);
  CHECK_POS(mc_game_pos(g), "4 4 0 5 5 0 (2) 0 6 6 6 5 5 (0) south");
  mc_game_free(g);
  CHECK_INT(mc_moves_replay(&r, "", &g, &err), 0);
  CHECK_INT(mc_game_ply(g), 0);
  mc_game_free(g);

  /* After South 3 (an extra turn) South's house 3 is empty. */
  check_replay_error(__LINE__, &r, "3 3", MC_EILLEGAL, 2);
  check_replay_error(__LINE__, &r, "3,  3", MC_EILLEGAL, 4);
  check_replay_error(__LINE__, &r, "3 x", MC_ESYNTAX, 2);
  /* Oware 1x1 ends after 5 moves (repetition): a sixth is after the end. */
  mc_rules o = mk_rules(MC_OWARE, 1, 1);
  check_replay_error(__LINE__, &o, "1 1 1 1 1 1", MC_EOVER, 10);
  /* A house number beyond m: malformed for this game, at its place. */
  static int dummy;
  g = (mc_game *)&dummy;
  err.offset = 9999;
  int rc = mc_moves_replay(&r, "1 7", &g, &err);
  CHECK(rc == MC_EILLEGAL || rc == MC_ESYNTAX);
  CHECK_INT(err.offset, 2);
  CHECK(g == (mc_game *)&dummy);
}

static void test_records(void) {
  mc_rules r = mk_rules(MC_KALAH, 6, 4);
  mc_game *g = NULL, *back = NULL;
  mc_text_error err;
  char buf[256];
  CHECK_INT(mc_moves_replay(&r, "3 6 1", &g, &err), 0);
  CHECK_INT(mc_record_format(g, buf, sizeof buf), 16);
  CHECK_STR(buf, "kalah 6x4\n3 6 1\n");
  CHECK_INT(mc_record_parse(buf, &back, &err), 0);
  CHECK(back != NULL && mc_game_ply(back) == 3);
  CHECK(back && memcmp(mc_game_pos(back), mc_game_pos(g), sizeof(mc_pos)) == 0);
  CHECK(back && rules_eq(mc_game_rules(back), &r));
  char small[6];
  CHECK_INT(mc_record_format(g, small, sizeof small), 16);
  CHECK_STR(small, "kalah");
  mc_game_free(g);
  mc_game_free(back);

  /* A finished Congkak match record, and an empty one. */
  r = mk_rules(MC_CONGKAK, 1, 1);
  r.match = true;
  r.lap_capture = true;
  CHECK_INT(mc_moves_replay(&r, "1 1 1 1 1 1 1 1 1", &g, &err), 0);
  CHECK_INT(mc_record_format(g, buf, sizeof buf), 55);
  CHECK_STR(buf, "congkak 1x1 lap_capture rounds=match\n1 1 1 1 1 1 1 1 1\n");
  CHECK_INT(mc_record_parse(buf, &back, &err), 0);
  CHECK(back != NULL && mc_game_over(back, NULL) && mc_game_ply(back) == 9);
  mc_game_free(g);
  mc_game_free(back);
  r = mk_rules(MC_OWARE, 6, 4);
  r.grand_slam = MC_GS_FORBIDDEN;
  g = mc_game_new(&r);
  CHECK_INT(mc_record_format(g, buf, sizeof buf), 32);
  CHECK_STR(buf, "oware 6x4 grand_slam=forbidden\n\n");
  CHECK_INT(mc_record_parse(buf, &back, &err), 0);
  CHECK(back != NULL && mc_game_ply(back) == 0 && rules_eq(mc_game_rules(back), &r));
  mc_game_free(g);
  mc_game_free(back);

  /* Errors: the offset counts from the start of the record. */
  static int dummy;
  struct {
    const char *text;
    int code;
    int offset;
  } bad[] = {
      {"kalah 6x4\n3 3\n", MC_EILLEGAL, 12},      {"chess 6x4\n1\n", MC_ESYNTAX, 0},
      {"kalah 6x4 foo\n1\n", MC_ESYNTAX, 10},     {"kalah 6x4\n3 x\n", MC_ESYNTAX, 12},
      {"oware 1x1\n1 1 1 1 1 1\n", MC_EOVER, 20},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    back = (mc_game *)&dummy;
    err.offset = 9999;
    CHECK_INT(mc_record_parse(bad[i].text, &back, &err), bad[i].code);
    CHECK_INT(err.offset, bad[i].offset);
    CHECK(back == (mc_game *)&dummy);
  }
  /* The layout is two lines, each ending with a newline: anything else is malformed. */
  const char *layouts[] = {"kalah 6x4\n3 6 1", "kalah 6x4", "kalah 6x4\n3\n6\n", ""};
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
    back = (mc_game *)&dummy;
    err.offset = 9999;
    CHECK_INT(mc_record_parse(layouts[i], &back, &err), MC_ESYNTAX);
    CHECK(err.offset <= strlen(layouts[i]));
    CHECK(back == (mc_game *)&dummy);
  }
}

/* ---- Names ---- */

static void test_names(void) {
  const char *kinds[] = {"kalah", "oware", "congkak"};
  for (int i = 0; i < 3; i++) {
    mc_kind k = (mc_kind)9;
    CHECK_STR(mc_kind_name((mc_kind)i), kinds[i]);
    CHECK_INT(mc_kind_parse(kinds[i], &k), 0);
    CHECK_INT(k, i);
  }
  const char *modes[] = {"no_capture", "forbidden", "capture"};
  for (int i = 0; i < 3; i++) {
    mc_grand_slam m = (mc_grand_slam)9;
    CHECK_STR(mc_grand_slam_name((mc_grand_slam)i), modes[i]);
    CHECK_INT(mc_grand_slam_parse(modes[i], &m), 0);
    CHECK_INT(m, i);
  }
  const char *burns[] = {"round", "match"};
  for (int i = 0; i < 2; i++) {
    mc_burn b = (mc_burn)9;
    CHECK_STR(mc_burn_name((mc_burn)i), burns[i]);
    CHECK_INT(mc_burn_parse(burns[i], &b), 0);
    CHECK_INT(b, i);
  }
  mc_burn b = MC_BURN_MATCH;
  CHECK(mc_burn_name((mc_burn)2) == NULL);
  CHECK_INT(mc_burn_parse("Match", &b), MC_EINVAL);
  CHECK_INT(mc_burn_parse(NULL, &b), MC_EINVAL);
  CHECK_INT(mc_burn_parse("round", NULL), MC_EINVAL);
  CHECK_INT(b, MC_BURN_MATCH);
  CHECK_STR(mc_seat_name(MC_SOUTH), "south");
  CHECK_STR(mc_seat_name(MC_NORTH), "north");
  CHECK_STR(mc_winner_name(MC_WIN_SOUTH), "south");
  CHECK_STR(mc_winner_name(MC_WIN_NORTH), "north");
  CHECK_STR(mc_winner_name(MC_DRAW), "draw");
  const char *steps[] = {"pick",       "sow",       "relay",  "capture", "sweep",
                         "extra_turn", "round_end", "refill", "burn"};
  for (int i = 0; i < 9; i++) {
    CHECK_STR(mc_step_name((mc_step_kind)i), steps[i]);
  }
  const char *reasons[] = {"none",        "no_seeds", "majority",  "cannot_feed", "repetition",
                           "resignation", "timeout",  "agreement", "abandoned"};
  for (int i = 0; i < 9; i++) {
    CHECK_STR(mc_reason_name((mc_reason)i), reasons[i]);
  }
  for (int i = 0; i < 9; i++) {
    mc_reason re = (mc_reason)7;
    CHECK_INT(mc_reason_parse(reasons[i], &re), 0);
    CHECK_INT(re, i);
  }
  const int codes[] = {MC_EINVAL, MC_EILLEGAL, MC_EOVER, MC_ESYNTAX, MC_ENOMEM, MC_ELIMIT};
  const char *names[] = {"EINVAL", "EILLEGAL", "EOVER", "ESYNTAX", "ENOMEM", "ELIMIT"};
  for (int i = 0; i < 6; i++) {
    CHECK_STR(mc_err_name(codes[i]), names[i]);
    const char *msg = mc_strerror(codes[i]);
    CHECK(msg != NULL && msg[0] != '\0' && strcmp(msg, "unknown error") != 0);
    for (int j = 0; j < i; j++) {
      CHECK(strcmp(msg, mc_strerror(codes[j])) != 0);
    }
  }
}

int main(void) {
  test_rules_text();
  test_rules_errors();
  test_pos_text();
  test_pos_errors();
  test_moves_text();
  test_moves_errors();
  test_replay();
  test_records();
  test_names();
  return check_exit("text");
}
