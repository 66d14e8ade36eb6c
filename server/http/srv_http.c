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
