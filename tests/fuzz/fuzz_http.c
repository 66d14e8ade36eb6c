/* Fuzz target: the HTTP side. Every request's method, path and size go through the routing the
 * network layer uses (srv_http_route_of()), and every path the archive answers through its
 * routes (srv_api_get()) against a store holding real games (fuzz_seed.c).
 *
 * Input: a method byte, the size of the known headers, whether storage is on, then the path and,
 * after a NUL, the "limit" query argument.
 *
 * Checked: the answer is one of the statuses srv_http.h names; a static file is answered only for
 * an absolute path with no dot segment and no backslash (never a way out of the web directory);
 * HEAD has no body, OPTIONS and the other methods come with Allow; the archive answers every path
 * with a status it documents and a JSON body (text for .txt) that parses; a 200 game record's
 * "id" is the id asked for, or the numeric id asked for redirects to it.
 */
#include <jansson.h>

#include "fuzz.h"
#include "fuzz_seed.h"
#include "srv_api.h"
#include "srv_http.h"
#include "srv_log.h"

static srv_store *store;
static srv_api *api;

static void setup(void) {
  char dir[256];
  srv_log_set_level(SRV_LOG_QUIET);
  fuzz_tmp_dir(dir, sizeof dir, "http");
  char err[SRV_STORE_ERR_SIZE];
  FZ_CHECK(srv_store_open(dir, NULL, &store, err) == 0);
  fuzz_seed_games(store);
  FZ_CHECK(srv_store_commit(store) == 0);
  api = srv_api_new(store);
  FZ_CHECK(api != NULL);
}

static void check_route(srv_http_method m, const char *uri, size_t len, size_t headers,
                        bool archive, srv_http_answer *a) {
  srv_http_route_of(m, uri, len, headers, archive, a);
  FZ_CHECK(a->body == (m != SRV_HTTP_HEAD));
  if (a->route == SRV_HTTP_STATUS) {
    FZ_CHECK(a->status == 204 || a->status == 404 || a->status == 405 || a->status == 414 ||
             a->status == 431);
    FZ_CHECK((a->status == 204 || a->status == 405) == (a->allow != NULL));
    FZ_CHECK(a->status != 204 || m == SRV_HTTP_OPTIONS);
    FZ_CHECK(a->status != 405 || m == SRV_HTTP_OTHER);
    FZ_CHECK(a->status != 414 || len > SRV_HTTP_URI_MAX);
    FZ_CHECK(a->status != 431 || headers > SRV_HTTP_HEADERS_MAX);
    return;
  }
  /* Every route but a status is for GET or HEAD of a sane path within the limits. */
  FZ_CHECK(m == SRV_HTTP_GET || m == SRV_HTTP_HEAD);
  FZ_CHECK(len <= SRV_HTTP_URI_MAX && headers <= SRV_HTTP_HEADERS_MAX);
  FZ_CHECK(len > 0 && uri[0] == '/');
  for (size_t i = 0; i < len; i++) {
    FZ_CHECK(uri[i] != '\0' && uri[i] != '\\');
    FZ_CHECK(!(uri[i] == '/' && i + 1 < len && uri[i + 1] == '.'));
  }
  /* Without the archive the only page is a room's (/r/CODE): games, profiles, leaderboards and
   * settings need stored data. */
  FZ_CHECK(archive || (a->route != SRV_HTTP_API && !(a->route == SRV_HTTP_PAGE && uri[1] != 'r')));
}

/* An answer of the archive (srv_api_done). */
typedef struct api_answer {
  bool in;
  int status;
  char *body;
  const char *type;
} api_answer;

static void answered(void *arg, int status, char *body, const char *type) {
  api_answer *a = arg;
  a->in = true;
  a->status = status;
  a->body = body;
  a->type = type;
}

static void check_api(const char *uri, const char *limit) {
  api_answer a = {false, 0, NULL, NULL};
  FZ_CHECK(srv_api_get(api, uri, limit, "127.0.0.1", answered, &a) == 0);
  FZ_CHECK(a.in); /* SQLite's reads answer at once. */
  int status = a.status;
  char *body = a.body;
  const char *type = a.type;
  FZ_CHECK(body != NULL && type != NULL);
  FZ_CHECK(status == 200 || status == 301 || status == 400 || status == 404 || status == 500);
  if (strncmp(type, "application/json", 16) == 0) {
    json_error_t err;
    json_t *j = json_loads(body, JSON_REJECT_DUPLICATES, &err);
    FZ_CHECK(json_is_object(j));
    if (status == 200 && strncmp(uri, "/api/games/", 11) == 0)
      FZ_CHECK(json_is_string(json_object_get(j, "id")) ||
               json_is_integer(json_object_get(j, "id")));
    json_decref(j);
  } else {
    FZ_CHECK(status == 200 && strlen(body) > 0 && body[strlen(body) - 1] == '\n');
  }
  free(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (api == NULL)
    setup();
  fz_in in = {data, size};
  uint8_t flags = fz_u8(&in);
  srv_http_method m = (srv_http_method)(flags % 4);
  bool archive = (flags >> 2) & 1;
  size_t headers = (size_t)fz_u16(&in) % (SRV_HTTP_HEADERS_MAX + 64);
  static char uri[SRV_HTTP_URI_MAX + 128], limit[80]; /* limit: the query string after a NUL. */
  const uint8_t *bytes;
  size_t len = fz_bytes(&in, in.n, &bytes);
  const uint8_t *nul = memchr(bytes, 0, len);
  size_t ulen = nul ? (size_t)(nul - bytes) : len;
  if (ulen >= sizeof uri)
    ulen = sizeof uri - 1;
  memcpy(uri, bytes, ulen);
  uri[ulen] = '\0';
  const char *lim = NULL;
  if (nul != NULL) {
    size_t k = len - ulen - 1;
    if (k >= sizeof limit)
      k = sizeof limit - 1;
    memcpy(limit, nul + 1, k);
    limit[k] = '\0';
    lim = limit;
  }
  srv_http_answer a;
  /* The raw bytes (NULs included, as a path could never hold them) and the path as lws gives it. */
  check_route(m, (const char *)bytes, len, headers, archive, &a);
  check_route(m, uri, ulen, headers, archive, &a);
  if (a.route == SRV_HTTP_API)
    check_api(uri, lim);
  /* The archive's routes take any path they are handed. */
  if ((flags >> 3) & 1)
    check_api(uri, lim);
  return 0;
}
