/* The web client's static files (see srv_static.h). */
#include "srv_static.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <zlib.h>

#include "srv_error.h"
#include "srv_log.h"

#define NAME_MAX_LEN 200
#define FILE_MAX_BYTES (16u << 20) /* Larger files are not served from memory. */
#define CACHE_CONTROL "no-cache"

/* One file as last read, with its validators and its gzip form. */
typedef struct sfile {
  struct sfile *next;
  char *name; /* Relative to the directory. */
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime;
  const char *type;
  unsigned char *data;
  size_t len;
  unsigned char *gz; /* NULL: not compressed (not text, or not smaller). */
  size_t gz_len;
  char etag[40], etag_gz[44];
  char last_modified[32];
} sfile;

struct srv_static {
  char *dir;
  sfile *files;
};

/* ---- Names and types --------------------------------------------------------------------------
 */

static const struct {
  const char *ext, *type;
  bool text;
} types[] = {
    {".html", "text/html; charset=utf-8", true},
    {".js", "text/javascript; charset=utf-8", true},
    {".mjs", "text/javascript; charset=utf-8", true},
    {".css", "text/css; charset=utf-8", true},
    {".svg", "image/svg+xml", true},
    {".json", "application/json", true},
    {".webmanifest", "application/manifest+json", true},
    {".txt", "text/plain; charset=utf-8", true},
    {".png", "image/png", false},
    {".ico", "image/x-icon", false},
    {".woff2", "font/woff2", false},
};

/* The type of name, or NULL for a kind of file the client does not have. */
static const char *type_of(const char *name, bool *text) {
  const char *dot = strrchr(name, '.');
  for (size_t i = 0; dot != NULL && i < sizeof types / sizeof types[0]; i++) {
    if (strcmp(dot, types[i].ext) == 0) {
      *text = types[i].text;
      return types[i].type;
    }
  }
  return NULL;
}

/* The file name a URI stands for (written into buf), or NULL when it names nothing served. */
static const char *file_name(const char *uri, char *buf, size_t size) {
  if (uri == NULL || uri[0] != '/')
    return NULL;
  if (strcmp(uri, "/") == 0 || strncmp(uri, "/r/", 3) == 0 || strncmp(uri, "/g/", 3) == 0 ||
      strncmp(uri, "/@/", 3) == 0 || strcmp(uri, "/leaderboard") == 0 ||
      strncmp(uri, "/leaderboard/", 13) == 0 || strcmp(uri, "/settings") == 0)
    return "index.html"; /* The one page: it reads what to show (room, game, player, ...) from
                          * the address. */
  const char *s = uri + 1;
  size_t len = strlen(s);
  if (len == 0 || len >= size || len > NAME_MAX_LEN)
    return NULL;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    bool start = i == 0 || s[i - 1] == '/';
    if (start && (c == '.' || c == '/'))
      return NULL; /* Hidden files, "..", empty names. */
    if (!isalnum(c) && c != '.' && c != '_' && c != '-' && c != '/')
      return NULL;
  }
  if (s[len - 1] == '/')
    return NULL;
  memcpy(buf, s, len + 1);
  return buf;
}

/* ---- Dates ------------------------------------------------------------------------------------
 */

static const char *const wdays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void srv_static_format_date(int64_t t, char *buf, size_t size) {
  time_t tt = (time_t)t;
  struct tm tm;
  gmtime_r(&tt, &tm);
  snprintf(buf, size, "%s, %02d %s %04d %02d:%02d:%02d GMT", wdays[tm.tm_wday], tm.tm_mday,
           months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

int srv_static_parse_date(const char *s, int64_t *out) {
  char wday[4], mon[4], gmt[4];
  int d, y, hh, mm, ss, n = 0;
  if (s == NULL || sscanf(s, "%3[A-Za-z], %2d %3[A-Za-z] %4d %2d:%2d:%2d %3s%n", wday, &d, mon, &y,
                          &hh, &mm, &ss, gmt, &n) != 8)
    return -1;
  if (s[n] != '\0' || strlen(wday) != 3 || s[3] != ',' || strcmp(gmt, "GMT") != 0)
    return -1;
  int m = -1;
  for (int i = 0; i < 12; i++) {
    if (strcmp(mon, months[i]) == 0)
      m = i + 1;
  }
  if (m < 0 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60 || y < 1970)
    return -1;
  *out = days_from_civil(y, m, d) * 86400 + hh * 3600 + mm * 60 + ss;
  return 0;
}

/* ---- Header values ------------------------------------------------------------------------------
 */

bool srv_static_etag_match(const char *list, const char *etag) {
  if (list == NULL)
    return false;
  /* Our tags are "…" without W/; compare the opaque part. */
  const char *want = etag;
  size_t wlen = strlen(etag);
  for (const char *p = list; *p != '\0';) {
    while (*p == ' ' || *p == '\t' || *p == ',')
      p++;
    if (*p == '\0')
      break;
    if (*p == '*')
      return true;
    if (p[0] == 'W' && p[1] == '/')
      p += 2;
    const char *start = p;
    if (*p == '"') {
      p++;
      while (*p != '\0' && *p != '"')
        p++;
      if (*p == '"')
        p++;
    } else {
      while (*p != '\0' && *p != ',' && *p != ' ')
        p++;
    }
    if ((size_t)(p - start) == wlen && memcmp(start, want, wlen) == 0)
      return true;
    while (*p != '\0' && *p != ',')
      p++;
  }
  return false;
}

bool srv_static_accepts_gzip(const char *ae) {
  if (ae == NULL)
    return false;
  for (const char *p = ae; *p != '\0';) {
    while (*p == ' ' || *p == '\t' || *p == ',')
      p++;
    const char *tok = p;
    while (*p != '\0' && *p != ',' && *p != ';' && *p != ' ' && *p != '\t')
      p++;
    size_t n = (size_t)(p - tok);
    bool named = (n == 4 && strncasecmp(tok, "gzip", 4) == 0) ||
                 (n == 6 && strncasecmp(tok, "x-gzip", 6) == 0) || (n == 1 && *tok == '*');
    /* Parameters: only q matters; q=0 (0, 0.0, 0.000) refuses. */
    bool refused = false;
    while (*p != '\0' && *p != ',') {
      if (*p == ';') {
        p++;
        while (*p == ' ' || *p == '\t')
          p++;
        if ((p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
          p += 2;
          double q = strtod(p, NULL);
          refused = q <= 0.0;
        }
      } else {
        p++;
      }
    }
    if (named && !refused)
      return true;
  }
  return false;
}

/* ---- The cache ---------------------------------------------------------------------------------
 */

static void file_free(sfile *f) {
  if (f == NULL)
    return;
  free(f->name);
  free(f->data);
  free(f->gz);
  free(f);
}

/* Reads the whole file at path (size bytes by its stat) into a new buffer. Returns 0, or -1. */
static int read_all(const char *path, size_t size, unsigned char **out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  unsigned char *buf = malloc(size ? size : 1);
  size_t got = 0;
  while (buf != NULL && got < size) {
    ssize_t n = read(fd, buf + got, size - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  close(fd);
  if (buf == NULL || got != size) {
    free(buf);
    return -1;
  }
  *out = buf;
  return 0;
}

/* Sets f's gzip form (RFC 1952, zlib's deflate at level 9) when it is smaller than the file;
 * leaves it NULL otherwise. Returns 0, or SRV_ENOMEM. */
static int gzip_compress(sfile *f) {
  z_stream z;
  memset(&z, 0, sizeof z);
  /* windowBits 15 + 16: a gzip header and trailer (no name, time 0) around the deflate stream. */
  if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return SRV_ENOMEM;
  /* deflateBound() covers zlib's header; the gzip header and trailer are 18 more bytes. */
  size_t cap = (size_t)deflateBound(&z, (uLong)f->len) + 18;
  unsigned char *out = malloc(cap);
  if (out == NULL) {
    deflateEnd(&z);
    return SRV_ENOMEM;
  }
  z.next_in = f->data;
  z.avail_in = (uInt)f->len; /* At most FILE_MAX_BYTES. */
  z.next_out = out;
  z.avail_out = (uInt)cap;
  int zrc = deflate(&z, Z_FINISH);
  size_t n = cap - z.avail_out;
  deflateEnd(&z);
  if (zrc != Z_STREAM_END) { /* Cannot happen with a bound-sized buffer; not fatal either. */
    free(out);
    srv_log_warn("static", "%s: gzip failed (%d); served uncompressed", f->name, zrc);
    return 0;
  }
  if (n >= f->len) {
    free(out);
    return 0;
  }
  f->gz = out;
  f->gz_len = n;
  return 0;
}

/* Loads f's content, validators and gzip form from path (st: its stat). Returns 0, SRV_ENOMEM or
 * SRV_ENOTFOUND (unreadable: the file changed while it was read, or permissions). */
static int file_load(sfile *f, const char *path, const struct stat *st, bool text) {
  if ((uint64_t)st->st_size > FILE_MAX_BYTES)
    return SRV_ENOTFOUND;
  if (read_all(path, (size_t)st->st_size, &f->data) != 0)
    return SRV_ENOTFOUND;
  f->len = (size_t)st->st_size;
  f->dev = st->st_dev;
  f->ino = st->st_ino;
  f->size = st->st_size;
  f->mtime = st->st_mtim;
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int mdlen = 0;
  if (EVP_Digest(f->data, f->len, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen < 16)
    return SRV_ENOMEM;
  char hex[33];
  for (int i = 0; i < 16; i++)
    snprintf(hex + 2 * i, 3, "%02x", md[i]);
  snprintf(f->etag, sizeof f->etag, "\"%s\"", hex);
  snprintf(f->etag_gz, sizeof f->etag_gz, "\"%s-gz\"", hex);
  srv_static_format_date((int64_t)st->st_mtim.tv_sec, f->last_modified, sizeof f->last_modified);
  if (text && f->len > 0) {
    int rc = gzip_compress(f);
    if (rc != 0)
      return rc;
  }
  return 0;
}

/* The cached file name, read again when the file changed on disk; NULL with *err when it cannot
 * be served. */
static sfile *lookup(srv_static *st, const char *name, int *err) {
  bool text = false;
  const char *type = type_of(name, &text);
  char path[4096];
  struct stat sb;
  *err = SRV_ENOTFOUND;
  if (type == NULL || st->dir == NULL ||
      (size_t)snprintf(path, sizeof path, "%s/%s", st->dir, name) >= sizeof path ||
      stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
    return NULL;
  sfile **pp = &st->files;
  for (; *pp != NULL; pp = &(*pp)->next) {
    if (strcmp((*pp)->name, name) == 0)
      break;
  }
  sfile *f = *pp;
  if (f != NULL && f->dev == sb.st_dev && f->ino == sb.st_ino && f->size == sb.st_size &&
      f->mtime.tv_sec == sb.st_mtim.tv_sec && f->mtime.tv_nsec == sb.st_mtim.tv_nsec)
    return f;
  /* New, or changed on disk: read it (again). */
  sfile *g = calloc(1, sizeof *g);
  if (g == NULL || (g->name = strdup(name)) == NULL) {
    free(g);
    *err = SRV_ENOMEM;
    return NULL;
  }
  g->type = type;
  int rc = file_load(g, path, &sb, text);
  if (rc != 0) {
    file_free(g);
    *err = rc;
    if (rc == SRV_ENOTFOUND)
      srv_log_warn("static", "%s: cannot be read", path);
    return NULL;
  }
  if (f != NULL) {
    g->next = f->next;
    file_free(f);
  } else {
    g->next = NULL;
  }
  *pp = g;
  return g;
}

srv_static *srv_static_new(const char *dir) {
  srv_static *st = calloc(1, sizeof *st);
  if (st == NULL)
    return NULL;
  if (dir != NULL && (st->dir = strdup(dir)) == NULL) {
    free(st);
    return NULL;
  }
  return st;
}

void srv_static_free(srv_static *st) {
  if (st == NULL)
    return;
  while (st->files != NULL) {
    sfile *f = st->files;
    st->files = f->next;
    file_free(f);
  }
  free(st->dir);
  free(st);
}

int srv_static_serve(srv_static *st, const srv_static_request *req, srv_static_response *res) {
  memset(res, 0, sizeof *res);
  res->status = 404;
  char buf[NAME_MAX_LEN + 1];
  const char *name = file_name(req->uri, buf, sizeof buf);
  if (name == NULL)
    return 0;
  int err = 0;
  sfile *f = lookup(st, name, &err);
  if (f == NULL)
    return err == SRV_ENOMEM ? SRV_ENOMEM : 0;
  bool gz = f->gz != NULL && srv_static_accepts_gzip(req->accept_encoding);
  res->type = f->type;
  res->etag = gz ? f->etag_gz : f->etag;
  res->last_modified = f->last_modified;
  res->cache_control = CACHE_CONTROL;
  res->vary = f->gz != NULL;
  res->encoding = gz ? "gzip" : NULL;
  /* If-None-Match decides when present; If-Modified-Since only without it (RFC 9110, 13.2.2). */
  bool fresh = false;
  int64_t since;
  if (req->if_none_match != NULL)
    fresh = srv_static_etag_match(req->if_none_match, res->etag);
  else if (srv_static_parse_date(req->if_modified_since, &since) == 0)
    fresh = (int64_t)f->mtime.tv_sec <= since;
  if (fresh) {
    res->status = 304;
    return 0;
  }
  res->status = 200;
  res->body = gz ? f->gz : f->data;
  res->len = gz ? f->gz_len : f->len;
  return 0;
}
