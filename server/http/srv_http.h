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
 */
#ifndef SRV_HTTP_H
#define SRV_HTTP_H

#include <stdbool.h>
#include <stddef.h>

/* The longest path (without the query) answered; longer is 414. */
#define SRV_HTTP_URI_MAX 2048
/* The most header bytes answered; more is 431. libwebsockets reads at most
 * SRV_HTTP_HEADERS_READ bytes of a request's head and closes a connection that sends more. */
#define SRV_HTTP_HEADERS_MAX 8192
#define SRV_HTTP_HEADERS_READ 16384

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

/* Decides the answer to a request for uri (uri_len bytes, borrowed, without the query; it need
 * not be NUL-terminated) with method, whose known headers hold header_bytes bytes. archive: the
 * game archive exists (durable storage), so /api/... and /g/ID are routes. Never fails. */
void srv_http_route_of(srv_http_method method, const char *uri, size_t uri_len, size_t header_bytes,
                       bool archive, srv_http_answer *out);

#endif
