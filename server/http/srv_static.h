/* The web client's static files over HTTP: validators, a cache policy and gzip.
 *
 * Files are read from the web directory (--web) when first asked for and kept in memory with their
 * validators: a strong ETag (the first 128 bits of the content's SHA-256) and Last-Modified (the
 * file's modification time). A text file (HTML, CSS, JavaScript, SVG, JSON, plain text) is also
 * kept gzip-compressed (by zlib, once, when it is read) when that is smaller, and sent so to a
 * client that accepts gzip; that representation has its own ETag (the same with "-gz"). Every
 * request stats the file: a file changed on disk is read (and compressed) again, so a running
 * server serves what is in the directory.
 *
 * Cache policy: the client's files are not versioned (a module imports another by its plain name),
 * so every response says "Cache-Control: no-cache": a browser keeps the file and asks again with
 * If-None-Match (or If-Modified-Since), and an unchanged file costs a 304 without a body.
 *
 * This module knows nothing of libwebsockets: srv_net.c reads the request headers, calls
 * srv_static_serve() and writes what it describes. The loop thread owns it.
 */
#ifndef SRV_STATIC_H
#define SRV_STATIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct srv_static srv_static;

/* What srv_static_serve() needs from the request (all borrowed; header values NULL when absent). */
typedef struct srv_static_request {
  const char *uri;               /* The request's path: "/", "/app.js", "/r/K7QX2M"... */
  const char *if_none_match;     /* If-None-Match */
  const char *if_modified_since; /* If-Modified-Since */
  const char *accept_encoding;   /* Accept-Encoding */
} srv_static_request;

/* What to answer. Pointers are borrowed from the module and valid until the next call. */
typedef struct srv_static_response {
  int status;                /* 200, 304 (not modified: no body) or 404. */
  const char *type;          /* Content-Type (200, 304). */
  const unsigned char *body; /* 200: the representation chosen, len bytes. */
  size_t len;
  const char *etag;          /* "\"…\"" (200, 304). */
  const char *last_modified; /* IMF-fixdate (200, 304). */
  const char *cache_control; /* (200, 304). */
  const char *encoding;      /* "gzip" or NULL (Content-Encoding). */
  bool vary;                 /* Send "Vary: Accept-Encoding" (the file has a gzip form). */
} srv_static_response;

/* Returns a new server of the files of dir (borrowed, copied), or NULL when memory runs out. A
 * missing directory is not an error: every file is then not found. */
srv_static *srv_static_new(const char *dir);

/* Frees st and every file it keeps. NULL is allowed. */
void srv_static_free(srv_static *st);

/* Answers req (borrowed) into *res. The page's routes (/, /r/CODE, /g/ID) are index.html; other
 * paths name a file of the directory, made of letters, digits, '.', '_', '-' and '/' between
 * names that do not start with '.'; anything else, a directory, or a file that cannot be read is
 * 404. Returns 0, or SRV_ENOMEM (answer 500). */
int srv_static_serve(srv_static *st, const srv_static_request *req, srv_static_response *res);

/* The pieces srv_static_serve() is made of, for its tests. */

/* Whether the If-None-Match value list (borrowed) matches etag (borrowed, with its quotes) under
 * the weak comparison (RFC 9110, 13.1.2): "*", or any listed tag with or without W/. */
bool srv_static_etag_match(const char *list, const char *etag);

/* Whether the Accept-Encoding value (borrowed, NULL: absent) accepts gzip: "gzip", "x-gzip" or
 * "*" with a q-value that is not 0. */
bool srv_static_accepts_gzip(const char *accept_encoding);

/* Parses an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") into Unix seconds. Returns 0, or -1
 * for anything else. */
int srv_static_parse_date(const char *s, int64_t *out);

/* Writes the IMF-fixdate of Unix seconds t into buf (at least 30 bytes). */
void srv_static_format_date(int64_t t, char *buf, size_t size);

#endif
