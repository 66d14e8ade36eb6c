/* A JSON writer for frames of a fixed schema: the caller writes the punctuation and the keys, the
 * writer appends integers (no printf), strings (escaped for JSON, UTF-8 kept as it is) and the
 * pieces of a game that every JSON the server makes shares, each written in one place only:
 * a board's options, its pits, its burnt houses and the trace of a move.
 *
 * The buffer grows as needed and is kept between uses (srv_jsonw_reset()), so encoding a hot frame
 * allocates nothing once the buffer is large enough. When growing fails the writer remembers it
 * (failed) and ignores everything after: a caller checks failed once at the end and never hands
 * out a partial text. Not thread-safe: one writer per thread (the loop thread's are static).
 */
#ifndef SRV_JSONW_H
#define SRV_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "mc_pos.h"
#include "mc_rules.h"

typedef struct srv_jsonw {
  char *buf;   /* The text (not NUL-terminated), owned. */
  size_t len;  /* Bytes written. */
  size_t cap;  /* Bytes allocated. */
  bool failed; /* An allocation failed: the text is incomplete. */
} srv_jsonw;

/* The allocator the writer grows its buffer with: realloc(), or a failing one in the tests of the
 * encoder's contract (a frame is whole or not made). */
extern void *(*srv_jsonw_realloc)(void *ptr, size_t size);

/* An empty writer that owns nothing yet. */
#define SRV_JSONW_INIT                                                                             \
  { NULL, 0, 0, false }

/* Frees the buffer (the writer is empty again). */
void srv_jsonw_free(srv_jsonw *w);

/* Empties the text and clears failed, keeping the buffer. */
void srv_jsonw_reset(srv_jsonw *w);

/* srv_jsonw_raw() when the buffer is short: grows it, then appends (or fails). */
void srv_jsonw__raw_grow(srv_jsonw *w, const char *s, size_t n);

/* Appends n bytes of s (borrowed) as they are: punctuation, keys, literals. Inline: a frame is
 * mostly keys and punctuation, some sixty pieces a state, and a literal's memcpy() of a constant
 * size then compiles to a few moves instead of a call. */
static inline void srv_jsonw_raw(srv_jsonw *w, const char *s, size_t n) {
  if (!w->failed && w->buf != NULL && w->cap - w->len >= n) {
    memcpy(w->buf + w->len, s, n);
    w->len += n;
  } else {
    srv_jsonw__raw_grow(w, s, n);
  }
}

/* Appends the first n bytes of s, an entry of a table whose entries are size bytes (a constant,
 * n <= size): with room for the whole entry it is copied whole, a copy of a constant size that
 * compiles to a few moves, and only n bytes count. For pieces made once and written often (a
 * seat's name in quotes). */
static inline void srv_jsonw_entry(srv_jsonw *w, const char *s, size_t size, size_t n) {
  if (!w->failed && w->buf != NULL && w->cap - w->len >= size) {
    memcpy(w->buf + w->len, s, size);
    w->len += n;
  } else {
    srv_jsonw__raw_grow(w, s, n);
  }
}

/* Appends a string literal as it is: srv_jsonw_lit(w, ",\"ply\":"). */
#define srv_jsonw_lit(w, s) srv_jsonw_raw((w), "" s, sizeof(s) - 1)

/* srv_jsonw_int() of a value outside 0..99. */
void srv_jsonw__int_long(srv_jsonw *w, long long v);

/* Appends v in decimal. Inline for 0..99, most numbers of a state (pits, houses, legal moves, a
 * trace's counts). */
static inline void srv_jsonw_int(srv_jsonw *w, long long v) {
  if (v >= 0 && v < 10) {
    char c = (char)('0' + v);
    srv_jsonw_raw(w, &c, 1);
  } else if (v >= 10 && v < 100) {
    char two[2] = {(char)('0' + v / 10), (char)('0' + v % 10)};
    srv_jsonw_raw(w, two, 2);
  } else {
    srv_jsonw__int_long(w, v);
  }
}

/* Appends true or false. */
static inline void srv_jsonw_bool(srv_jsonw *w, bool v) {
  if (v)
    srv_jsonw_raw(w, "true", 4);
  else
    srv_jsonw_raw(w, "false", 5);
}

/* ---- Spans: the fixed parts of a hot frame written without a check per piece ----------------
 * srv_jsonw_span() makes room for n bytes and returns where they go, or NULL when the writer has
 * failed (write nothing more then); the srv_jsonw_put_*() write at a cursor into that room and
 * return the cursor after what they wrote; srv_jsonw_span_end() ends the text at the cursor. The
 * caller bounds what it writes into a span by n. A writer's fields are not read again between two
 * pieces, which the checked functions above must do (a write into the buffer may alias them). */

/* Room for n bytes at the end of the text: where they go, or NULL (failed). */
char *srv_jsonw_span(srv_jsonw *w, size_t n);

/* Ends the text at o, a cursor into the last span. */
static inline void srv_jsonw_span_end(srv_jsonw *w, char *o) {
  w->len = (size_t)(o - w->buf);
}

/* Writes a string literal at o; the cursor after it. */
#define srv_jsonw_put_lit(o, s) ((char *)memcpy((o), "" s, sizeof(s) - 1) + sizeof(s) - 1)

/* srv_jsonw_put_int() of a value outside 0..99: at most 20 bytes. */
char *srv_jsonw__put_long(char *o, long long v);

/* Writes v in decimal at o (at most 20 bytes); the cursor after it. */
static inline char *srv_jsonw_put_int(char *o, long long v) {
  if (v >= 0 && v < 10) {
    *o = (char)('0' + v);
    return o + 1;
  }
  if (v >= 10 && v < 100) {
    o[0] = (char)('0' + v / 10);
    o[1] = (char)('0' + v % 10);
    return o + 2;
  }
  return srv_jsonw__put_long(o, v);
}

/* Writes true or false at o; the cursor after it. */
static inline char *srv_jsonw_put_bool(char *o, bool v) {
  if (v)
    return srv_jsonw_put_lit(o, "true");
  return srv_jsonw_put_lit(o, "false");
}

/* Appends s (borrowed, valid UTF-8) as a JSON string: quotes, and '"', '\\' and the control
 * characters escaped; every other byte is copied, so UTF-8 stays as it is. NULL writes null. */
void srv_jsonw_str(srv_jsonw *w, const char *s);

/* As srv_jsonw_str() for the n bytes at s. */
void srv_jsonw_strn(srv_jsonw *w, const char *s, size_t n);

/* Appends s (borrowed) in quotes as it is, without looking for what JSON escapes: only for the
 * names of the server's own tables (a message type, a seat, a status, a game, a step of a trace,
 * an error code...), plain ASCII words. NULL writes null. A state holds a dozen of them. */
void srv_jsonw_name(srv_jsonw *w, const char *s);

/* The options object of rules, as create takes it: {"empty_capture":false} for Kalah,
 * {"grand_slam":"no_capture"} for Oware, {"lap_capture":false,"rounds":"single"} for Congkak. */
void srv_jsonw_options(srv_jsonw *w, const mc_rules *rules);

/* The pits of pos in the rule book's flat layout: [2m+2 integers]. */
void srv_jsonw_pits(srv_jsonw *w, const mc_pos *pos);

/* The rule-book pit indices of pos's burnt houses, ascending: [] outside a Congkak match. */
void srv_jsonw_burnt(srv_jsonw *w, const mc_pos *pos);

/* The n steps of a move (borrowed) as the protocol's trace: [{"kind":"pick","pit":2,"count":4},…]
 * (docs/protocol.md, "The trace"). */
void srv_jsonw_trace(srv_jsonw *w, const mc_step *steps, size_t n);

#endif
