/* HTTP requests: which answer a request gets, from its method, path and size alone. Pure (no
 * libwebsockets, no I/O): the network layer asks it once per request (srv_net.c) and acts on the
 * answer; the fuzz target and the unit tests call it directly.
 *
 *   GET and HEAD     every route; HEAD gets the same status and headers as GET, without a body
 *   OPTIONS          204 with Allow: GET, HEAD (and for /ws the WebSocket upgrade, a GET)
 *   anything else    405 with Allow: GET, HEAD
 *   a path over SRV_HTTP_URI_MAX bytes                          414
 *   request headers over SRV_HTTP_HEADERS_MAX bytes (known ones) 431
 *   a path with a "." or ".." segment, a backslash, or not absolute     404 (never a file)
 *
 * Before that, srv_http_head_check() reads the raw head of the first request of a connection, as
 * it arrives and before libwebsockets parses it, for what lws would answer wrongly or not at all
 * (it closes without a status, answers 403, or hangs):
 *   a request line over SRV_HTTP_LINE_MAX bytes                                 414
 *   header fields over SRV_HTTP_HEADERS_MAX bytes, known to lws or not          431
 *   a malformed request line, a bad %-escape or a NUL (%00) in the target,
 *   Content-Length given twice with different values or not a number,
 *   Content-Length with Transfer-Encoding (RFC 9112, 6.3)                       400
 *   CONNECT, TRACE and every method lws does not know (PROPFIND...)             405 with Allow
 */
#ifndef SRV_HTTP_H
#define SRV_HTTP_H

#include <stdbool.h>
#include <stddef.h>

/* The longest path (without the query) answered; longer is 414. */
#define SRV_HTTP_URI_MAX 2048
/* The most header bytes answered; more is 431. libwebsockets reads at most
 * SRV_HTTP_HEADERS_READ bytes of a request's head and closes a connection that sends more: the
 * first request of a connection is checked before (srv_http_head_check()), later ones of a
 * kept-alive connection are not. */
#define SRV_HTTP_HEADERS_MAX 8192
#define SRV_HTTP_HEADERS_READ 16384
/* The longest request line (method, target with its query, version) answered; longer is 414. */
#define SRV_HTTP_LINE_MAX (SRV_HTTP_URI_MAX + 1024)
/* The most bytes of a head srv_http_head_check() needs to see to decide. */
#define SRV_HTTP_HEAD_MAX (SRV_HTTP_LINE_MAX + SRV_HTTP_HEADERS_MAX + 4)

typedef enum srv_http_method {
  SRV_HTTP_GET = 0,
  SRV_HTTP_HEAD,
  SRV_HTTP_OPTIONS,
  SRV_HTTP_OTHER /* POST, PUT, DELETE, PATCH, CONNECT... */
} srv_http_method;

typedef enum srv_http_route {
  SRV_HTTP_STATIC = 0, /* A file of the web client (--web), served by srv_static.h. */
  SRV_HTTP_HEALTHZ,    /* /healthz */
  SRV_HTTP_METRICS,    /* /metrics */
  SRV_HTTP_API,        /* /api/...: the archive (srv_api.h) */
  SRV_HTTP_PAGE,       /* /r/CODE; with the archive /g/ID, /@/NAME, /leaderboard[/GAME], /settings:
                        * the client's index.html (srv_static.h) */
  SRV_HTTP_STATUS      /* Only a status (404, 405, 414, 431, or 204 for OPTIONS). */
} srv_http_route;

typedef struct srv_http_answer {
  srv_http_route route;
  int status;        /* SRV_HTTP_STATUS: the status to send; else 200 (the route may say 404). */
  bool body;         /* false for HEAD: the headers of GET, no body. */
  const char *allow; /* The Allow header to send with 204 and 405 (static), or NULL. */
} srv_http_answer;

/* What srv_http_head_check() says of a head. */
typedef enum srv_http_head {
  SRV_HTTP_HEAD_MORE = 0, /* Not whole yet, and nothing wrong so far: read more. */
  SRV_HTTP_HEAD_PASS,     /* Whole and fit for libwebsockets: let it parse and route it. */
  SRV_HTTP_HEAD_ANSWER    /* Answer out->status (with out->allow) and close. */
} srv_http_head;

/* Checks the raw head of a request, the len bytes received so far (head, borrowed; they may hold
 * more than the head, and need not be NUL-terminated). On SRV_HTTP_HEAD_ANSWER *out says the
 * status (route SRV_HTTP_STATUS). Never fails. */
srv_http_head srv_http_head_check(const char *head, size_t len, srv_http_answer *out);

/* Decides the answer to a request for uri (uri_len bytes, borrowed, without the query; it need
 * not be NUL-terminated) with method, whose known headers hold header_bytes bytes. archive: the
 * game archive exists (durable storage), so /api/... and /g/ID are routes. Never fails. */
void srv_http_route_of(srv_http_method method, const char *uri, size_t uri_len, size_t header_bytes,
                       bool archive, srv_http_answer *out);

#endif
