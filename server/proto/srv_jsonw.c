/* The fixed-schema JSON writer (see srv_jsonw.h). */
#include "srv_jsonw.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_msg.h"

void *(*srv_jsonw_realloc)(void *ptr, size_t size) = realloc;

void srv_jsonw_free(srv_jsonw *w) {
  free(w->buf);
  w->buf = NULL;
  w->len = w->cap = 0;
  w->failed = false;
}

void srv_jsonw_reset(srv_jsonw *w) {
  w->len = 0;
  w->failed = false;
}

/* Makes room for n more bytes; false (and failed) when memory runs out. */
static bool reserve(srv_jsonw *w, size_t n) {
  if (w->failed)
    return false;
  if (w->len + n <= w->cap)
    return true;
  size_t cap = w->cap ? w->cap : 1024;
  while (cap < w->len + n)
    cap *= 2;
  char *p = srv_jsonw_realloc(w->buf, cap);
  if (p == NULL) {
    w->failed = true;
    return false;
  }
  w->buf = p;
  w->cap = cap;
  return true;
}

void srv_jsonw__raw_grow(srv_jsonw *w, const char *s, size_t n) {
  if (!reserve(w, n))
    return;
  memcpy(w->buf + w->len, s, n);
  w->len += n;
}

char *srv_jsonw_span(srv_jsonw *w, size_t n) {
  return reserve(w, n) ? w->buf + w->len : NULL;
}

/* "00" to "99": two digits a step. */
static const char two_digits[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";

char *srv_jsonw__put_long(char *o, long long v) {
  char tmp[24];
  char *end = tmp + sizeof tmp, *p = end;
  /* Unsigned arithmetic: the most negative value has no positive counterpart. */
  unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
  while (u >= 100) {
    p -= 2;
    memcpy(p, two_digits + 2 * (u % 100), 2);
    u /= 100;
  }
  if (u >= 10) {
    p -= 2;
    memcpy(p, two_digits + 2 * u, 2);
  } else {
    *--p = (char)('0' + u);
  }
  if (v < 0)
    *--p = '-';
  size_t n = (size_t)(end - p);
  memcpy(o, p, n);
  return o + n;
}

void srv_jsonw__int_long(srv_jsonw *w, long long v) {
  char tmp[24];
  srv_jsonw_raw(w, tmp, (size_t)(srv_jsonw__put_long(tmp, v) - tmp));
}

/* Whether one of the 8 bytes of x is below 0x20, a '"' or a '\\': what JSON escapes. Exact (the
 * tests for a byte below n and for a zero byte of Bit Twiddling Hacks may misplace which byte,
 * never whether there is one), and bytes 0x80 and above (UTF-8) never match. */
static inline bool word_escapes(uint64_t x) {
  const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
  uint64_t quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\');
  return (((x - ones * 0x20) & ~x) | ((quote - ones) & ~quote) |
          ((backslash - ones) & ~backslash)) &
         highs;
}

void srv_jsonw_strn(srv_jsonw *w, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  /* At most 6 bytes per input byte (\u00XX) and the quotes. */
  if (!reserve(w, 6 * n + 2))
    return;
  char *o = w->buf + w->len;
  *o++ = '"';
  size_t i = 0;
  /* Names, ids and codes have nothing to escape: copied 8 bytes at a time up to the first word
   * that has, then byte by byte. */
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    memcpy(&x, s + i, 8);
    if (word_escapes(x))
      break;
    memcpy(o, &x, 8);
    o += 8;
  }
  for (; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') {
      *o++ = (char)c; /* The common case first: ASCII and every byte of a UTF-8 sequence. */
    } else if (c == '"' || c == '\\') {
      *o++ = '\\';
      *o++ = (char)c;
    } else if (c == '\n') {
      *o++ = '\\';
      *o++ = 'n';
    } else if (c == '\t') {
      *o++ = '\\';
      *o++ = 't';
    } else if (c == '\r') {
      *o++ = '\\';
      *o++ = 'r';
    } else {
      memcpy(o, "\\u00", 4);
      o[4] = hex[c >> 4];
      o[5] = hex[c & 15];
      o += 6;
    }
  }
  *o++ = '"';
  w->len = (size_t)(o - w->buf);
}

void srv_jsonw_str(srv_jsonw *w, const char *s) {
  if (s == NULL)
    srv_jsonw_lit(w, "null");
  else
    srv_jsonw_strn(w, s, strlen(s));
}

void srv_jsonw_name(srv_jsonw *w, const char *s) {
  if (s == NULL) {
    srv_jsonw_lit(w, "null");
    return;
  }
  size_t n = strlen(s);
  if (!reserve(w, n + 2))
    return;
  char *o = w->buf + w->len;
  o[0] = '"';
  memcpy(o + 1, s, n);
  o[n + 1] = '"';
  w->len += n + 2;
}

void srv_jsonw_options(srv_jsonw *w, const mc_rules *r) {
  switch (r->kind) {
  case MC_KALAH:
    srv_jsonw_lit(w, "{\"empty_capture\":");
    srv_jsonw_bool(w, r->empty_capture);
    break;
  case MC_OWARE:
    srv_jsonw_lit(w, "{\"grand_slam\":");
    srv_jsonw_name(w, mc_grand_slam_name(r->grand_slam));
    break;
  case MC_CONGKAK:
    srv_jsonw_lit(w, "{\"lap_capture\":");
    srv_jsonw_bool(w, r->lap_capture);
    srv_jsonw_lit(w, ",\"rounds\":");
    srv_jsonw_name(w, srv_rounds_names[r->match ? 1 : 0]);
    /* A match stored before the burn rule changed (schema 3) says so; create never takes it. */
    if (r->burn != MC_BURN_ROUND) {
      srv_jsonw_lit(w, ",\"burn\":");
      srv_jsonw_name(w, mc_burn_name(r->burn));
    }
    break;
  default:
    srv_jsonw_lit(w, "{");
    break;
  }
  /* Every game's option, shown only when on: states of rooms without it stay as they were. */
  if (r->pie && (unsigned)r->kind <= MC_CONGKAK)
    srv_jsonw_lit(w, ",\"pie\":true");
  srv_jsonw_lit(w, "}");
}

/* The numbers 0..255 in decimal, each followed by a comma, in 4-byte entries: a pit is one copy of
 * a constant size (the length is the entry's last byte when it is not a comma). */
static char pit_texts[256][4];
static pthread_once_t pit_texts_once = PTHREAD_ONCE_INIT;

static void pit_texts_make(void) {
  for (unsigned v = 0; v < 256; v++) {
    char *o = pit_texts[v];
    if (v >= 100)
      *o++ = (char)('0' + v / 100);
    if (v >= 10)
      *o++ = (char)('0' + v / 10 % 10);
    *o++ = (char)('0' + v % 10);
    *o = ',';
  }
}

/* How many bytes of pit_texts[v] are its digits and comma. */
static inline size_t pit_len(unsigned v) {
  return v >= 100 ? 4 : v >= 10 ? 3 : 2;
}

void srv_jsonw_pits(srv_jsonw *w, const mc_pos *pos) {
  size_t n = 2 * (size_t)pos->houses + 2;
  /* Every state has them: room for all at once (a pit holds at most 255 seeds: 3 digits and a
   * comma each), then each pit's digits and comma copied in place; the last comma becomes ']'. */
  pthread_once(&pit_texts_once, pit_texts_make);
  if (!reserve(w, 4 * n + 2))
    return;
  char *o = w->buf + w->len;
  *o++ = '[';
  for (size_t k = 0; k < n; k++) {
    unsigned v = pos->pits[k];
    memcpy(o, pit_texts[v], 4);
    o += pit_len(v);
  }
  if (n > 0)
    o--;
  *o++ = ']';
  w->len = (size_t)(o - w->buf);
}

void srv_jsonw_burnt(srv_jsonw *w, const mc_pos *pos) {
  if (pos->burnt == 0) {
    srv_jsonw_lit(w, "[]"); /* Every game but a Congkak match: nothing burnt. */
    return;
  }
  int n = 2 * pos->houses + 2;
  bool first = true;
  srv_jsonw_lit(w, "[");
  for (int k = 0; k < n; k++) {
    if (!(pos->burnt & (1u << k)))
      continue;
    if (!first)
      srv_jsonw_lit(w, ",");
    srv_jsonw_int(w, k);
    first = false;
  }
  srv_jsonw_lit(w, "]");
}

/* A step's text up to its first number: {"kind":"<name>","pit": (or "round": for a round's end),
 * for each kind and one more for a kind without a name (its "kind" is null). Made once from
 * mc_step_name(), the names' one place; written with a copy of the whole entry (a constant size),
 * the length telling how much of it counts. */
#define STEP_KINDS (MC_STEP_BURN + 2)
typedef struct step_head {
  char text[48];
  size_t len;
} step_head;
static step_head step_heads[STEP_KINDS];
static pthread_once_t step_heads_once = PTHREAD_ONCE_INIT;

static void step_heads_make(void) {
  for (int k = 0; k < STEP_KINDS; k++) {
    const char *name = k < STEP_KINDS - 1 ? mc_step_name((mc_step_kind)k) : NULL;
    const char *key = k == MC_STEP_ROUND_END ? "round" : "pit";
    int n = name != NULL ? snprintf(step_heads[k].text, sizeof step_heads[k].text,
                                    "{\"kind\":\"%s\",\"%s\":", name, key)
                         : snprintf(step_heads[k].text, sizeof step_heads[k].text,
                                    "{\"kind\":null,\"%s\":", key);
    step_heads[k].len = n > 0 && (size_t)n < sizeof step_heads[k].text ? (size_t)n : 0;
  }
}

/* Writes v (0..65535) in decimal at o; returns the end. */
static char *put_small(char *o, unsigned v) {
  char tmp[5];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0)
    *o++ = tmp[--n];
  return o;
}

/* The longest step: a head, a pit, ",\"count\":" and 5 digits, ",\"store\":" and 3 digits, "}"
 * and the comma before it. */
#define STEP_MAX (sizeof(step_head) + 3 + 9 + 5 + 9 + 3 + 2)

void srv_jsonw_trace(srv_jsonw *w, const mc_step *steps, size_t n) {
  pthread_once(&step_heads_once, step_heads_make);
  if (n > (SIZE_MAX - 2) / STEP_MAX || !reserve(w, n * STEP_MAX + 2))
    return;
  char *o = w->buf + w->len;
  *o++ = '[';
  for (size_t i = 0; i < n; i++) {
    const mc_step *s = &steps[i];
    unsigned kind = s->kind < STEP_KINDS - 1 ? s->kind : STEP_KINDS - 1;
    if (i > 0)
      *o++ = ',';
    memcpy(o, step_heads[kind].text, sizeof step_heads[kind].text);
    o += step_heads[kind].len;
    switch ((mc_step_kind)kind) {
    case MC_STEP_ROUND_END:
      o = put_small(o, s->count);
      break;
    case MC_STEP_PICK:
    case MC_STEP_RELAY:
    case MC_STEP_CAPTURE:
    case MC_STEP_SWEEP:
    case MC_STEP_REFILL:
      o = put_small(o, s->pit);
      memcpy(o, ",\"count\":", 9);
      o = put_small(o + 9, s->count);
      if (kind != MC_STEP_PICK && kind != MC_STEP_RELAY) {
        memcpy(o, ",\"store\":", 9);
        o = put_small(o + 9, s->store);
      }
      break;
    case MC_STEP_SOW:
    case MC_STEP_EXTRA_TURN:
    case MC_STEP_BURN:
    default:
      o = put_small(o, s->pit);
      break;
    }
    *o++ = '}';
  }
  *o++ = ']';
  w->len = (size_t)(o - w->buf);
}
