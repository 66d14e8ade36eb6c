/* Text forms of rules, positions, move lists and game records (grammar in mc_text.h). */
#include "mc_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_error.h"
#include "mc_internal.h"

/* ---- Output ---------------------------------------------------------------------------------- */

/* An snprintf() that appends and keeps counting past the end of the buffer. */
typedef struct out {
  char *buf;
  size_t size, len;
} out;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
out_printf(out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t room = o->len < o->size ? o->size - o->len : 0;
  int n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
  va_end(ap);
  if (n > 0)
    o->len += (size_t)n;
}

static int out_done(out *o) {
  if (o->size && o->len >= o->size)
    o->buf[o->size - 1] = '\0';
  return (int)o->len;
}

static int out_start(out *o, char *buf, size_t size) {
  if (buf == NULL && size != 0)
    return MC_EINVAL;
  o->buf = buf;
  o->size = size;
  o->len = 0;
  if (size)
    buf[0] = '\0';
  return 0;
}

/* ---- Input ----------------------------------------------------------------------------------- */

/* Words are runs of characters other than the separators of `seps`. */
typedef struct in {
  const char *text;
  size_t at;        /* Offset of the next unread character. */
  const char *seps; /* Separator characters. */
  mc_text_error *err;
} in;

typedef struct word {
  const char *s;
  size_t len, offset;
} word;

static int in_word(in *p, word *w) {
  while (p->text[p->at] && strchr(p->seps, p->text[p->at]))
    p->at++;
  w->s = p->text + p->at;
  w->offset = p->at;
  while (p->text[p->at] && !strchr(p->seps, p->text[p->at]))
    p->at++;
  w->len = (size_t)(p->text + p->at - w->s);
  return w->len > 0;
}

static int word_is(const word *w, const char *s) {
  return strlen(s) == w->len && memcmp(w->s, s, w->len) == 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
fail(mc_text_error *err, size_t offset, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    err->offset = offset;
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
  }
  return MC_ESYNTAX;
}

/* Parses a whole word as a decimal number in lo..hi. Returns 0, or -1 when it is not one. */
static int word_number(const word *w, long lo, long hi, long *value) {
  if (w->len == 0 || w->len > 9)
    return -1;
  long v = 0;
  for (size_t i = 0; i < w->len; i++) {
    if (w->s[i] < '0' || w->s[i] > '9')
      return -1;
    v = v * 10 + (w->s[i] - '0');
  }
  if (v < lo || v > hi)
    return -1;
  *value = v;
  return 0;
}

/* ---- Rules ----------------------------------------------------------------------------------- */

int mc_rules_format(const mc_rules *rules, char *buf, size_t size) {
  out o;
  if (mc_rules_check(rules) < 0 || out_start(&o, buf, size) < 0)
    return MC_EINVAL;
  out_printf(&o, "%s %ux%u", mc_kind_name(rules->kind), rules->houses, rules->seeds);
  if (rules->empty_capture)
    out_printf(&o, " empty_capture");
  if (rules->grand_slam != MC_GS_NO_CAPTURE)
    out_printf(&o, " grand_slam=%s", mc_grand_slam_name(rules->grand_slam));
  if (rules->lap_capture)
    out_printf(&o, " lap_capture");
  if (rules->match)
    out_printf(&o, " rounds=match");
  if (rules->burn != MC_BURN_ROUND)
    out_printf(&o, " burn=%s", mc_burn_name(rules->burn));
  if (rules->pie)
    out_printf(&o, " pie");
  return out_done(&o);
}

/* Parses rules from the words of p up to the end of the text or a newline. */
static int parse_rules(in *p, mc_rules *rules) {
  word w;
  mc_rules r;
  mc_kind kind;
  long m, n;

  if (!in_word(p, &w))
    return fail(p->err, w.offset, "expected a game name (kalah, oware or congkak)");
  char name[16];
  if (w.len >= sizeof(name) ||
      (memcpy(name, w.s, w.len), name[w.len] = '\0', mc_kind_parse(name, &kind) < 0))
    return fail(p->err, w.offset, "unknown game '%.*s' (kalah, oware or congkak)", (int)w.len, w.s);
  mc_rules_init(&r, kind);
  if (!in_word(p, &w))
    return fail(p->err, w.offset, "expected the board as <houses>x<seeds>, e.g. 6x4");
  const char *x = memchr(w.s, 'x', w.len);
  word wm = {w.s, x ? (size_t)(x - w.s) : 0, w.offset};
  word wn = {x ? x + 1 : w.s, x ? w.len - wm.len - 1 : 0, w.offset + wm.len + 1};
  if (x == NULL || word_number(&wm, MC_MIN_HOUSES, MC_MAX_HOUSES, &m) < 0)
    return fail(p->err, w.offset, "expected the board as <houses 1-9>x<seeds 1-12>, got '%.*s'",
                (int)w.len, w.s);
  if (word_number(&wn, MC_MIN_SEEDS, MC_MAX_SEEDS, &n) < 0)
    return fail(p->err, wn.offset, "seeds per house must be 1 to 12, got '%.*s'", (int)wn.len,
                wn.s);
  r.houses = (uint8_t)m;
  r.seeds = (uint8_t)n;

  unsigned seen = 0;
  size_t burn_at = 0;
  while (in_word(p, &w)) {
    unsigned bit;
    if (word_is(&w, "empty_capture") && kind == MC_KALAH) {
      bit = 1, r.empty_capture = true;
    } else if (word_is(&w, "lap_capture") && kind == MC_CONGKAK) {
      bit = 2, r.lap_capture = true;
    } else if (word_is(&w, "rounds=match") && kind == MC_CONGKAK) {
      bit = 4, r.match = true;
    } else if (word_is(&w, "rounds=single") && kind == MC_CONGKAK) {
      bit = 4, r.match = false;
    } else if (word_is(&w, "burn=round") && kind == MC_CONGKAK) {
      bit = 16, r.burn = MC_BURN_ROUND, burn_at = w.offset;
    } else if (word_is(&w, "burn=match") && kind == MC_CONGKAK) {
      bit = 16, r.burn = MC_BURN_MATCH, burn_at = w.offset;
    } else if (word_is(&w, "pie")) {
      bit = 32, r.pie = true;
    } else if (w.len > 11 && memcmp(w.s, "grand_slam=", 11) == 0 && kind == MC_OWARE) {
      char mode[16];
      size_t len = w.len - 11;
      if (len >= sizeof(mode))
        len = sizeof(mode) - 1;
      memcpy(mode, w.s + 11, len);
      mode[len] = '\0';
      if (mc_grand_slam_parse(mode, &r.grand_slam) < 0)
        return fail(p->err, w.offset + 11,
                    "grand_slam must be no_capture, forbidden or capture, got '%.*s'",
                    (int)(w.len - 11), w.s + 11);
      bit = 8;
    } else {
      return fail(p->err, w.offset, "unknown option '%.*s' for %s", (int)w.len, w.s,
                  mc_kind_name(kind));
    }
    if (seen & bit)
      return fail(p->err, w.offset, "option '%.*s' given twice", (int)w.len, w.s);
    seen |= bit;
  }
  if (r.burn != MC_BURN_ROUND && !r.match)
    return fail(p->err, burn_at, "burn=%s needs rounds=match", mc_burn_name(r.burn));
  *rules = r;
  return 0;
}

int mc_rules_parse(const char *text, mc_rules *rules, mc_text_error *err) {
  if (text == NULL || rules == NULL)
    return MC_EINVAL;
  in p = {text, 0, " \t", err};
  if (strchr(text, '\n'))
    return fail(err, (size_t)(strchr(text, '\n') - text), "rules are a single line");
  return parse_rules(&p, rules);
}

/* ---- Positions ------------------------------------------------------------------------------- */

int mc_pos_format(const mc_pos *pos, char *buf, size_t size) {
  out o;
  if (pos == NULL || pos->houses < MC_MIN_HOUSES || pos->houses > MC_MAX_HOUSES ||
      out_start(&o, buf, size) < 0)
    return MC_EINVAL;
  const int m = pos->houses;
  for (int i = 0; i < 2 * m + 2; i++) {
    const char *sep = i ? " " : "";
    if (i == MC__STORE(m, 0) || i == MC__STORE(m, 1))
      out_printf(&o, "%s(%u)", sep, pos->pits[i]);
    else if (pos->burnt & (1u << i))
      out_printf(&o, "%sx", sep);
    else
      out_printf(&o, "%s%u", sep, pos->pits[i]);
  }
  out_printf(&o, " %s", pos->turn ? "north" : "south");
  if (pos->round != 1 || pos->first != MC_SOUTH)
    out_printf(&o, " round %u first %s", pos->round, pos->first ? "north" : "south");
  return out_done(&o);
}

/* One side of a position as parsed, before the number of houses is known. */
typedef struct side {
  uint8_t houses[MC_MAX_HOUSES];
  uint8_t store;
  uint32_t burnt; /* Bit i: house i+1 is burnt. */
  int n;
} side;

/* Parses one side: houses then "(store)". Returns 0 or MC_ESYNTAX. */
static int parse_side(in *p, side *sd, const char *name) {
  word w;
  long v;
  memset(sd, 0, sizeof(*sd));
  for (;;) {
    if (!in_word(p, &w))
      return fail(p->err, w.offset, "expected the %s houses and then the %s store as (n)", name,
                  name);
    if (w.s[0] == '(') {
      word inner = {w.s + 1, w.len >= 2 ? w.len - 2 : 0, w.offset + 1};
      if (w.len < 3 || w.s[w.len - 1] != ')' || word_number(&inner, 0, 255, &v) < 0)
        return fail(p->err, w.offset, "expected the %s store as (0-255), got '%.*s'", name,
                    (int)w.len, w.s);
      if (sd->n == 0)
        return fail(p->err, w.offset, "the %s side has no houses", name);
      sd->store = (uint8_t)v;
      return 0;
    }
    if (sd->n == MC_MAX_HOUSES)
      return fail(p->err, w.offset, "more than %d houses on the %s side", MC_MAX_HOUSES, name);
    if (word_is(&w, "x")) {
      sd->burnt |= 1u << sd->n;
    } else if (word_number(&w, 0, 255, &v) == 0) {
      sd->houses[sd->n] = (uint8_t)v;
    } else {
      return fail(p->err, w.offset, "expected a seed count 0-255, x or (store), got '%.*s'",
                  (int)w.len, w.s);
    }
    sd->n++;
  }
}

static int parse_seat(const word *w, uint8_t *seat) {
  if (word_is(w, "south"))
    *seat = MC_SOUTH;
  else if (word_is(w, "north"))
    *seat = MC_NORTH;
  else
    return -1;
  return 0;
}

int mc_pos_parse(const char *text, mc_pos *pos, mc_text_error *err) {
  if (text == NULL || pos == NULL)
    return MC_EINVAL;
  in p = {text, 0, " \t\n", err};
  side south, north;
  int rc = parse_side(&p, &south, "south");
  if (rc < 0)
    return rc;
  size_t north_at = p.at;
  if ((rc = parse_side(&p, &north, "north")) < 0)
    return rc;
  if (north.n != south.n)
    return fail(err, north_at, "the south side has %d houses but the north side has %d", south.n,
                north.n);

  mc_pos r;
  const int m = south.n;
  memset(&r, 0, sizeof(r));
  r.houses = (uint8_t)m;
  memcpy(r.pits + MC__BASE(m, 0), south.houses, (size_t)m);
  memcpy(r.pits + MC__BASE(m, 1), north.houses, (size_t)m);
  r.pits[MC__STORE(m, 0)] = south.store;
  r.pits[MC__STORE(m, 1)] = north.store;
  r.burnt = (south.burnt << MC__BASE(m, 0)) | (north.burnt << MC__BASE(m, 1));
  r.round = 1;
  r.first = MC_SOUTH;

  word w;
  if (!in_word(&p, &w) || parse_seat(&w, &r.turn) < 0)
    return fail(err, w.offset, "expected the side to move, south or north");
  if (in_word(&p, &w)) {
    long round;
    if (!word_is(&w, "round"))
      return fail(err, w.offset, "expected 'round' or the end, got '%.*s'", (int)w.len, w.s);
    if (!in_word(&p, &w) || word_number(&w, 1, MC_MAX_ROUNDS, &round) < 0)
      return fail(err, w.offset, "expected a round number 1-%d", MC_MAX_ROUNDS);
    r.round = (uint8_t)round;
    if (!in_word(&p, &w) || !word_is(&w, "first"))
      return fail(err, w.offset, "expected 'first' and the seat that moved first this round");
    if (!in_word(&p, &w) || parse_seat(&w, &r.first) < 0)
      return fail(err, w.offset, "expected the seat that moved first this round, south or north");
    if (in_word(&p, &w))
      return fail(err, w.offset, "unexpected '%.*s' after the position", (int)w.len, w.s);
  }
  if (mc__total(&r) > 255)
    return fail(err, 0, "more than 255 seeds in all");
  *pos = r;
  return 0;
}

/* ---- Moves and records ----------------------------------------------------------------------- */

/* Appends sep and one move: its house number, or "swap". Returns 0, or MC_EINVAL for a value that
 * is neither. */
static int move_print(out *o, uint8_t move, const char *sep) {
  if (move == MC_SWAP)
    out_printf(o, "%sswap", sep);
  else if (move >= 1 && move <= MC_MAX_HOUSES)
    out_printf(o, "%s%u", sep, move);
  else
    return MC_EINVAL;
  return 0;
}

int mc_move_format(int move, char *buf, size_t size) {
  out o;
  if (move < 0 || move > 255 || out_start(&o, buf, size) < 0 ||
      move_print(&o, (uint8_t)move, "") < 0)
    return MC_EINVAL;
  return out_done(&o);
}

int mc_moves_format(const uint8_t *moves, size_t n, char *buf, size_t size) {
  out o;
  if ((moves == NULL && n) || out_start(&o, buf, size) < 0)
    return MC_EINVAL;
  for (size_t i = 0; i < n; i++) {
    if (move_print(&o, moves[i], i ? " " : "") < 0)
      return MC_EINVAL;
  }
  return out_done(&o);
}

/* Parses the moves of text into moves[], with the offset of each into offsets[] when not NULL. */
static int parse_moves(const char *text, uint8_t *moves, size_t *offsets, size_t cap, size_t *n,
                       mc_text_error *err) {
  in p = {text, 0, " \t\n\r,", err};
  word w;
  size_t count = 0;
  long v;
  while (in_word(&p, &w)) {
    if (word_is(&w, "swap"))
      v = MC_SWAP;
    else if (word_number(&w, 1, MC_MAX_HOUSES, &v) < 0)
      return fail(err, w.offset, "expected a house number 1-%d or swap, got '%.*s'", MC_MAX_HOUSES,
                  (int)w.len, w.s);
    if (count == cap)
      return fail(err, w.offset, "more than %zu moves", cap);
    moves[count] = (uint8_t)v;
    if (offsets)
      offsets[count] = w.offset;
    count++;
  }
  *n = count;
  return 0;
}

int mc_moves_parse(const char *text, uint8_t *moves, size_t cap, size_t *n, mc_text_error *err) {
  if (text == NULL || (moves == NULL && cap) || n == NULL)
    return MC_EINVAL;
  /* Parse into scratch space first so that moves is untouched on error. */
  size_t len = strlen(text);
  size_t most = len / 2 + 1 < cap ? len / 2 + 1 : cap;
  uint8_t *tmp = malloc(most ? most : 1);
  if (tmp == NULL)
    return MC_ENOMEM;
  size_t count;
  int rc = parse_moves(text, tmp, NULL, most, &count, err);
  if (rc == 0) {
    memcpy(moves, tmp, count);
    *n = count;
  }
  free(tmp);
  return rc;
}

int mc_moves_replay(const mc_rules *rules, const char *text, mc_game **game, mc_text_error *err) {
  if (mc_rules_check(rules) < 0 || text == NULL || game == NULL)
    return MC_EINVAL;
  size_t most = strlen(text) / 2 + 1, n;
  uint8_t *moves = malloc(most);
  size_t *offsets = malloc(most * sizeof(*offsets));
  mc_game *g = mc_game_new(rules);
  int rc = moves && offsets && g ? 0 : MC_ENOMEM;
  if (rc == 0)
    rc = parse_moves(text, moves, offsets, most, &n, err);
  for (size_t i = 0; rc == 0 && i < n; i++) {
    rc = mc_game_play(g, moves[i], NULL);
    char what[16];
    if (moves[i] == MC_SWAP)
      snprintf(what, sizeof what, "swap");
    else
      snprintf(what, sizeof what, "house %u", moves[i]);
    if (rc == MC_EOVER) {
      fail(err, offsets[i], "move %zu (%s) comes after the end of the game", i + 1, what);
    } else if (rc == MC_EILLEGAL || rc == MC_EINVAL) {
      fail(err, offsets[i], "move %zu (%s) is not legal for %s", i + 1, what,
           mc_seat_name((mc_seat)mc_game_pos(g)->turn));
      rc = MC_EILLEGAL;
    }
  }
  free(moves);
  free(offsets);
  if (rc < 0) {
    mc_game_free(g);
    return rc;
  }
  *game = g;
  return 0;
}

int mc_record_format(const mc_game *game, char *buf, size_t size) {
  out o;
  char rules[96];
  if (game == NULL || out_start(&o, buf, size) < 0 ||
      mc_rules_format(mc_game_rules(game), rules, sizeof(rules)) < 0)
    return MC_EINVAL;
  out_printf(&o, "%s\n", rules);
  size_t n;
  const uint8_t *moves = mc_game_moves(game, &n);
  for (size_t i = 0; i < n; i++) {
    if (move_print(&o, moves[i], i ? " " : "") < 0)
      return MC_EINVAL;
  }
  out_printf(&o, "\n");
  return out_done(&o);
}

int mc_record_parse(const char *text, mc_game **game, mc_text_error *err) {
  if (text == NULL || game == NULL)
    return MC_EINVAL;
  const char *nl = strchr(text, '\n');
  if (nl == NULL)
    return fail(err, strlen(text), "expected a newline after the rules line");
  char *line = malloc((size_t)(nl - text) + 1);
  if (line == NULL)
    return MC_ENOMEM;
  memcpy(line, text, (size_t)(nl - text));
  line[nl - text] = '\0';
  mc_rules rules;
  int rc = mc_rules_parse(line, &rules, err);
  free(line);
  if (rc < 0)
    return rc;
  const char *moves = nl + 1;
  size_t len = strlen(moves);
  if (len == 0 || moves[len - 1] != '\n' || memchr(moves, '\n', len - 1))
    return fail(err, (size_t)(moves - text) + len, "expected the moves line ending in a newline");
  rc = mc_moves_replay(&rules, moves, game, err);
  if (rc < 0 && err)
    err->offset += (size_t)(moves - text);
  return rc;
}
