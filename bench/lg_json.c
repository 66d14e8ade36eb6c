/* A small scanner for the server's JSON frames: see lg_json.h. */
#include "lg_json.h"

#include <string.h>

/* The unread part of the buffer. */
typedef struct cursor {
  const char *p, *end;
} cursor;

static void skip_ws(cursor *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    c->p++;
}

/* c->p is on an opening quote. Leaves c->p after the closing quote and the contents in *out. */
static int scan_string(cursor *c, lg_span *out) {
  const char *s = ++c->p;
  while (c->p < c->end) {
    unsigned char ch = (unsigned char)*c->p;
    if (ch == '"') {
      out->s = s;
      out->n = (size_t)(c->p - s);
      c->p++;
      return 0;
    }
    if (ch < 0x20)
      return -1;
    c->p += ch == '\\' ? 2 : 1;
  }
  return -1;
}

/* Skips a number, true, false or null. */
static int skip_literal(cursor *c) {
  const char *start = c->p;
  if (c->p >= c->end || strchr("-0123456789tfn", *c->p) == NULL)
    return -1;
  while (c->p < c->end && strchr(",}] \t\n\r", *c->p) == NULL)
    c->p++;
  return c->p > start ? 0 : -1;
}

/* Skips one value of any kind. Nested objects and arrays are skipped by counting brackets outside
 * strings; their inside is not validated. */
static int skip_value(cursor *c) {
  if (c->p >= c->end)
    return -1;
  if (*c->p == '"') {
    lg_span ignored;
    return scan_string(c, &ignored);
  }
  if (*c->p != '{' && *c->p != '[')
    return skip_literal(c);
  int depth = 0;
  while (c->p < c->end) {
    char ch = *c->p;
    if (ch == '"') {
      lg_span ignored;
      if (scan_string(c, &ignored) != 0)
        return -1;
      continue;
    }
    if (ch == '{' || ch == '[') {
      depth++;
    } else if (ch == '}' || ch == ']') {
      if (--depth == 0) {
        c->p++;
        return 0;
      }
    }
    c->p++;
  }
  return -1;
}

/* Reads an integer (no fraction or exponent). Returns -1, c->p unchanged, when the value is not
 * one. */
static int scan_int(cursor *c, long long *out) {
  const char *p = c->p;
  bool neg = false;
  if (p < c->end && *p == '-') {
    neg = true;
    p++;
  }
  const char *digits = p;
  long long v = 0;
  while (p < c->end && *p >= '0' && *p <= '9' && p - digits < 18) {
    v = v * 10 + (*p - '0');
    p++;
  }
  if (p == digits || (p < c->end && strchr(",}] \t\n\r", *p) == NULL))
    return -1;
  *out = neg ? -v : v;
  c->p = p;
  return 0;
}

/* Reads an array of integers into m->legal. Returns -1, c->p unchanged, when the value is not
 * one. */
static int scan_int_array(cursor *c, lg_msg *m) {
  cursor t = *c;
  int n = 0;
  if (t.p >= t.end || *t.p != '[')
    return -1;
  t.p++;
  skip_ws(&t);
  if (t.p < t.end && *t.p == ']') {
    t.p++;
  } else {
    for (;;) {
      long long v;
      skip_ws(&t);
      if (scan_int(&t, &v) != 0)
        return -1;
      if (n < LG_LEGAL_MAX)
        m->legal[n++] = (int)v;
      skip_ws(&t);
      if (t.p < t.end && *t.p == ',') {
        t.p++;
        continue;
      }
      if (t.p < t.end && *t.p == ']') {
        t.p++;
        break;
      }
      return -1;
    }
  }
  m->nlegal = n;
  m->has_legal = true;
  *c = t;
  return 0;
}

/* Reads the value of key into *m when it is a wanted field of the right type, else skips it. */
static int scan_member(cursor *c, lg_span key, lg_msg *m) {
  lg_span *str = NULL;
  if (lg_span_is(key, "type"))
    str = &m->type;
  else if (lg_span_is(key, "room"))
    str = &m->room;
  else if (lg_span_is(key, "status"))
    str = &m->status;
  else if (lg_span_is(key, "turn"))
    str = &m->turn;
  else if (lg_span_is(key, "code"))
    str = &m->code;
  else if (lg_span_is(key, "seat"))
    str = &m->seat;
  if (str != NULL) {
    if (c->p < c->end && *c->p == '"')
      return scan_string(c, str);
    str->s = NULL; /* A later duplicate of another type hides an earlier string. */
    return skip_value(c);
  }
  if (lg_span_is(key, "ply")) {
    m->has_ply = scan_int(c, &m->ply) == 0;
    return m->has_ply ? 0 : skip_value(c);
  }
  if (lg_span_is(key, "features"))
    m->has_features = true;
  if (lg_span_is(key, "legal")) {
    if (scan_int_array(c, m) == 0)
      return 0;
    m->has_legal = false;
    m->nlegal = 0;
  }
  return skip_value(c);
}

int lg_json_scan(const char *buf, size_t len, lg_msg *m) {
  memset(m, 0, sizeof *m);
  cursor c = {buf, buf + len};
  skip_ws(&c);
  if (c.p >= c.end || *c.p != '{')
    return -1;
  c.p++;
  skip_ws(&c);
  if (c.p < c.end && *c.p == '}') {
    c.p++;
  } else {
    for (;;) {
      lg_span key;
      skip_ws(&c);
      if (c.p >= c.end || *c.p != '"' || scan_string(&c, &key) != 0)
        return -1;
      skip_ws(&c);
      if (c.p >= c.end || *c.p != ':')
        return -1;
      c.p++;
      skip_ws(&c);
      if (scan_member(&c, key, m) != 0)
        return -1;
      skip_ws(&c);
      if (c.p < c.end && *c.p == ',') {
        c.p++;
        continue;
      }
      if (c.p < c.end && *c.p == '}') {
        c.p++;
        break;
      }
      return -1;
    }
  }
  skip_ws(&c);
  return c.p == c.end ? 0 : -1;
}

bool lg_span_is(lg_span s, const char *lit) {
  size_t n = strlen(lit);
  return s.s != NULL && s.n == n && memcmp(s.s, lit, n) == 0;
}
