/* Which answer an HTTP request gets (see srv_http.h). */
#include "srv_http.h"

#include <string.h>

static const char allow[] = "GET, HEAD";

static bool is(const char *uri, size_t len, const char *path) {
  return strlen(path) == len && memcmp(uri, path, len) == 0;
}

static bool starts(const char *uri, size_t len, const char *prefix) {
  size_t n = strlen(prefix);
  return len >= n && memcmp(uri, prefix, n) == 0;
}

/* An absolute path with no "." or ".." segment, no backslash and no NUL: a path that can only
 * name something under the web directory. (libwebsockets decodes %XX and removes "/../" before
 * us; this refuses whatever might still look like a way out, and hidden files.) */
static bool safe_path(const char *uri, size_t len) {
  if (len == 0 || uri[0] != '/')
    return false;
  for (size_t i = 0; i < len; i++) {
    if (uri[i] == '\0' || uri[i] == '\\')
      return false;
    if (uri[i] == '/' && i + 1 < len && uri[i + 1] == '.')
      return false;
  }
  return true;
}

/* The page's routes that show stored data (games, profiles, leaderboards, settings): index.html
 * with the archive, 404 without. */
static bool archive_page(const char *uri, size_t len) {
  return starts(uri, len, "/g/") || starts(uri, len, "/@/") || is(uri, len, "/leaderboard") ||
         starts(uri, len, "/leaderboard/") || is(uri, len, "/settings");
}

void srv_http_route_of(srv_http_method method, const char *uri, size_t uri_len, size_t header_bytes,
                       bool archive, srv_http_answer *out) {
  out->route = SRV_HTTP_STATUS;
  out->status = 200;
  out->body = method != SRV_HTTP_HEAD;
  out->allow = NULL;
  if (uri_len > SRV_HTTP_URI_MAX) {
    out->status = 414;
    return;
  }
  if (header_bytes > SRV_HTTP_HEADERS_MAX) {
    out->status = 431;
    return;
  }
  if (method == SRV_HTTP_OPTIONS || method == SRV_HTTP_OTHER) {
    out->status = method == SRV_HTTP_OPTIONS ? 204 : 405;
    out->allow = allow;
    return;
  }
  if (!safe_path(uri, uri_len)) {
    out->status = 404;
    return;
  }
  if (is(uri, uri_len, "/healthz")) {
    out->route = SRV_HTTP_HEALTHZ;
  } else if (is(uri, uri_len, "/metrics")) {
    out->route = SRV_HTTP_METRICS;
  } else if (starts(uri, uri_len, "/api/") || is(uri, uri_len, "/api")) {
    if (archive)
      out->route = SRV_HTTP_API;
    else
      out->status = 404;
  } else if (starts(uri, uri_len, "/r/") || (archive_page(uri, uri_len) && archive)) {
    out->route = SRV_HTTP_PAGE;
  } else if (is(uri, uri_len, "/r") || archive_page(uri, uri_len) || is(uri, uri_len, "/g") ||
             starts(uri, uri_len, "/healthz/") || starts(uri, uri_len, "/metrics/")) {
    out->status = 404; /* The callback mounts' other paths. */
  } else {
    out->route = SRV_HTTP_STATIC;
  }
}

/* ---- The raw head (srv_http_head_check()) ---------------------------------------------------- */

static srv_http_head head_answer(srv_http_answer *out, int status) {
  out->route = SRV_HTTP_STATUS;
  out->status = status;
  out->body = true;
  out->allow = status == 405 ? allow : NULL;
  return SRV_HTTP_HEAD_ANSWER;
}

static int hex(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

/* Whether the request target (n bytes) is well formed: no control character, every '%' followed
 * by two hex digits, and none of them decoding to NUL (lws drops the connection on "%00"). */
static bool target_ok(const char *t, size_t n) {
  if (n == 0)
    return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)t[i];
    if (c <= ' ' || c == 0x7f)
      return false;
    if (c == '%') {
      if (i + 2 >= n)
        return false;
      int h = hex(t[i + 1]), l = h < 0 ? -1 : hex(t[i + 2]);
      if (h < 0 || l < 0 || (h == 0 && l == 0))
        return false;
      i += 2;
    }
  }
  return true;
}

/* Whether the method (n bytes) is one libwebsockets parses as an HTTP request: the others it
 * answers 403 (TRACE, PROPFIND, anything unknown) or takes as a raw tunnel (CONNECT). */
static bool method_known(const char *m, size_t n) {
  static const char *const known[] = {"GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH"};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strlen(known[i]) == n && memcmp(m, known[i], n) == 0)
      return true;
  return false;
}

/* Whether the header line [p, e) is named name (lower case, without the colon); *value and *vlen
 * are its value without the surrounding spaces and tabs. */
static bool header_is(const char *p, const char *e, const char *name, const char **value,
                      size_t *vlen) {
  size_t n = strlen(name);
  if ((size_t)(e - p) <= n || p[n] != ':')
    return false;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (c >= 'A' && c <= 'Z')
      c = (char)(c - 'A' + 'a');
    if (c != name[i])
      return false;
  }
  const char *v = p + n + 1;
  while (v < e && (*v == ' ' || *v == '\t'))
    v++;
  const char *ve = e;
  while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
    ve--;
  *value = v;
  *vlen = (size_t)(ve - v);
  return true;
}

/* The framing headers of the fields [p, e): 400 when Content-Length is not a number, is given
 * twice with different values, or comes with Transfer-Encoding; else 0. */
static int framing_status(const char *p, const char *e) {
  const char *cl = NULL;
  size_t cl_len = 0;
  bool te = false;
  while (p < e) {
    const char *nl = memchr(p, '\n', (size_t)(e - p));
    const char *le = nl != NULL ? nl : e;
    const char *v;
    size_t vlen;
    if (header_is(p, le, "content-length", &v, &vlen)) {
      if (vlen == 0)
        return 400;
      for (size_t i = 0; i < vlen; i++)
        if (v[i] < '0' || v[i] > '9')
          return 400;
      if (cl != NULL && (cl_len != vlen || memcmp(cl, v, vlen) != 0))
        return 400;
      cl = v;
      cl_len = vlen;
    } else if (header_is(p, le, "transfer-encoding", &v, &vlen)) {
      te = true;
    }
    p = nl != NULL ? nl + 1 : e;
  }
  return cl != NULL && te ? 400 : 0;
}

srv_http_head srv_http_head_check(const char *head, size_t len, srv_http_answer *out) {
  out->route = SRV_HTTP_STATUS;
  out->status = 200;
  out->body = true;
  out->allow = NULL;
  const char *nl = memchr(head, '\n', len < SRV_HTTP_LINE_MAX + 1 ? len : SRV_HTTP_LINE_MAX + 1);
  if (nl == NULL)
    return len > SRV_HTTP_LINE_MAX ? head_answer(out, 414) : SRV_HTTP_HEAD_MORE;
  /* The request line: METHOD SP TARGET SP HTTP/x.y */
  const char *le = nl > head && nl[-1] == '\r' ? nl - 1 : nl;
  const char *sp1 = memchr(head, ' ', (size_t)(le - head));
  const char *sp2 = sp1 != NULL ? memchr(sp1 + 1, ' ', (size_t)(le - sp1 - 1)) : NULL;
  if (sp1 == NULL || sp1 == head || sp2 == NULL || le - sp2 - 1 != 8 ||
      memcmp(sp2 + 1, "HTTP/1.", 7) != 0)
    return head_answer(out, 400);
  for (const char *m = head; m < sp1; m++)
    if (*m < 'A' || *m > 'Z')
      return head_answer(out, 400);
  if (!target_ok(sp1 + 1, (size_t)(sp2 - sp1 - 1)))
    return head_answer(out, 400);
  /* The header fields, up to the empty line that ends them. */
  const char *fields = nl + 1, *end = NULL;
  size_t rest = len - (size_t)(fields - head);
  for (const char *p = fields; p < fields + rest;) {
    const char *n2 = memchr(p, '\n', (size_t)(fields + rest - p));
    if (n2 == NULL)
      break;
    if (n2 == p || (n2 == p + 1 && *p == '\r')) {
      end = p;
      break;
    }
    p = n2 + 1;
  }
  size_t field_bytes = end != NULL ? (size_t)(end - fields) : rest;
  if (field_bytes > SRV_HTTP_HEADERS_MAX)
    return head_answer(out, 431);
  if (end == NULL)
    return SRV_HTTP_HEAD_MORE;
  if (framing_status(fields, end) != 0)
    return head_answer(out, 400);
  if (!method_known(head, (size_t)(sp1 - head)))
    return head_answer(out, 405);
  return SRV_HTTP_HEAD_PASS;
}
