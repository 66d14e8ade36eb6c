/* The web client's files over HTTP without a socket: the gzip form checked by an independent
 * decoder (Debian's gzip), the validators (ETag, Last-Modified), conditional requests, content
 * negotiation and the names that are served. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "srv_error.h"
#include "srv_static.h"
#include "task.h"

/* Writes len bytes to a new temporary file; returns its path (static buffer of the caller). */
static void write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  ASSERT_NOT_NULL(f);
  ASSERT_EQ(fwrite(data, 1, len, f), len);
  ASSERT_EQ(fclose(f), 0);
}

/* Decompresses the gzip member at gz with Debian's `gzip -dc` (a decoder independent of the
 * server's zlib use) and checks it gives back the len bytes at in. gzip also checks the member's
 * CRC-32 and length. */
static void check_gunzip(const unsigned char *gz, size_t gz_len, const unsigned char *in,
                         size_t len) {
  ASSERT_GE(gz_len, 18); /* Header and trailer. */
  ASSERT_EQ(gz[0], 0x1f);
  ASSERT_EQ(gz[1], 0x8b);
  char path[] = "/tmp/mancala-gz-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  write_file(path, gz, gz_len);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "gzip -dc < %s", path);
  FILE *p = popen(cmd, "r");
  ASSERT_NOT_NULL(p);
  unsigned char *back = malloc(len + 16);
  ASSERT_NOT_NULL(back);
  size_t got = fread(back, 1, len + 16, p);
  ASSERT_EQ(pclose(p), 0); /* gzip found the stream, its CRC and its length correct. */
  ASSERT_EQ(got, len);
  ASSERT_EQ(memcmp(back, in, len), 0);
  free(back);
  unlink(path);
}

TEST_IMPL(etag_match) {
  const char *tag = "\"abc\"";
  ASSERT(srv_static_etag_match("\"abc\"", tag));
  ASSERT(srv_static_etag_match("W/\"abc\"", tag)); /* Weak comparison. */
  ASSERT(srv_static_etag_match("\"x\", \"abc\"", tag));
  ASSERT(srv_static_etag_match("\"x\",W/\"abc\"", tag));
  ASSERT(srv_static_etag_match("*", tag));
  ASSERT(!srv_static_etag_match("\"abcd\"", tag));
  ASSERT(!srv_static_etag_match("\"ab\"", tag));
  ASSERT(!srv_static_etag_match("abc", tag)); /* Not quoted: another tag. */
  ASSERT(!srv_static_etag_match("", tag));
  ASSERT(!srv_static_etag_match(NULL, tag));
  ASSERT(!srv_static_etag_match("\"abc-gz\"", tag));
  return 0;
}

TEST_IMPL(accepts_gzip) {
  ASSERT(srv_static_accepts_gzip("gzip"));
  ASSERT(srv_static_accepts_gzip("gzip, deflate, br"));
  ASSERT(srv_static_accepts_gzip("br;q=1.0, gzip;q=0.8, *;q=0.1"));
  ASSERT(srv_static_accepts_gzip("deflate, x-gzip"));
  ASSERT(srv_static_accepts_gzip("*"));
  ASSERT(srv_static_accepts_gzip("GZIP"));
  ASSERT(!srv_static_accepts_gzip("gzip;q=0"));
  ASSERT(!srv_static_accepts_gzip("gzip; q=0.000, br"));
  ASSERT(!srv_static_accepts_gzip("identity"));
  ASSERT(!srv_static_accepts_gzip("br, deflate"));
  ASSERT(!srv_static_accepts_gzip("gzipped"));
  ASSERT(!srv_static_accepts_gzip(""));
  ASSERT(!srv_static_accepts_gzip(NULL));
  return 0;
}

TEST_IMPL(dates) {
  int64_t t = 0;
  /* RFC 9110's example date: 784,111,777 s after the epoch (9,075 days and 31,777 s). */
  ASSERT_EQ(srv_static_parse_date("Sun, 06 Nov 1994 08:49:37 GMT", &t), 0);
  ASSERT_EQ(t, 784111777);
  char buf[40];
  srv_static_format_date(784111777, buf, sizeof buf);
  ASSERT_STR_EQ(buf, "Sun, 06 Nov 1994 08:49:37 GMT");
  /* 2024-02-29 (a leap day) 23:59:59: 19,782 days after the epoch. */
  ASSERT_EQ(srv_static_parse_date("Thu, 29 Feb 2024 23:59:59 GMT", &t), 0);
  ASSERT_EQ(t, 19782LL * 86400 + 86399);
  srv_static_format_date(0, buf, sizeof buf);
  ASSERT_STR_EQ(buf, "Thu, 01 Jan 1970 00:00:00 GMT");
  ASSERT_EQ(srv_static_parse_date("Sunday, 06-Nov-94 08:49:37 GMT", &t), -1); /* RFC 850 form. */
  ASSERT_EQ(srv_static_parse_date("Sun, 06 Nov 1994 08:49:37 UTC", &t), -1);
  ASSERT_EQ(srv_static_parse_date("Sun, 06 Foo 1994 08:49:37 GMT", &t), -1);
  ASSERT_EQ(srv_static_parse_date("Sun, 06 Nov 1994 08:49:37 GMT x", &t), -1);
  ASSERT_EQ(srv_static_parse_date("", &t), -1);
  ASSERT_EQ(srv_static_parse_date(NULL, &t), -1);
  return 0;
}

/* A directory of files for the server tests. */
static char dir[64];

static void make_dir(void) {
  snprintf(dir, sizeof dir, "/tmp/mancala-static-XXXXXX");
  ASSERT_NOT_NULL(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof path, "%s/index.html", dir);
  write_file(path, "<!doctype html><title>x</title>", 31);
  /* A text file that compresses well. */
  char js[4000];
  for (size_t i = 0; i < sizeof js; i++)
    js[i] = "export const x = 1;\n"[i % 20];
  snprintf(path, sizeof path, "%s/app.js", dir);
  write_file(path, js, sizeof js);
  snprintf(path, sizeof path, "%s/img.png", dir);
  write_file(path, "\x89PNGxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 36);
  snprintf(path, sizeof path, "%s/.secret.js", dir);
  write_file(path, "no", 2);
  snprintf(path, sizeof path, "%s/sub", dir);
  ASSERT_EQ(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/sub/a.css", dir);
  write_file(path, "body{}", 6);
}

static void remove_dir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ASSERT_EQ(system(cmd), 0);
}

static srv_static_response serve(srv_static *st, const char *uri, const char *inm, const char *ims,
                                 const char *ae) {
  srv_static_request req = {uri, inm, ims, ae};
  srv_static_response res;
  ASSERT_EQ(srv_static_serve(st, &req, &res), 0);
  return res;
}

TEST_IMPL(serve_validators_and_gzip) {
  make_dir();
  srv_static *st = srv_static_new(dir);
  ASSERT_NOT_NULL(st);
  srv_static_response r = serve(st, "/app.js", NULL, NULL, NULL);
  ASSERT_EQ(r.status, 200);
  ASSERT_STR_EQ(r.type, "text/javascript; charset=utf-8");
  ASSERT_EQ(r.len, 4000);
  ASSERT_NULL(r.encoding);
  ASSERT(r.vary); /* It has a gzip form: caches must tell the two apart. */
  ASSERT_STR_EQ(r.cache_control, "no-cache");
  ASSERT_EQ(strlen(r.etag), 34); /* 32 hex digits in quotes. */
  char etag[64], last[40];
  snprintf(etag, sizeof etag, "%s", r.etag);
  snprintf(last, sizeof last, "%s", r.last_modified);
  int64_t when = 0;
  ASSERT_EQ(srv_static_parse_date(last, &when), 0);
  /* The file's own time from stat(), not time(NULL): the kernel may stamp a file from a finer
   * clock than time()'s, a second ahead of it (CI saw 1796197543 against 1796197542). */
  char app[128];
  snprintf(app, sizeof app, "%s/app.js", dir);
  struct stat sb;
  ASSERT_EQ(stat(app, &sb), 0);
  ASSERT_EQ(when, (int64_t)sb.st_mtime);

  /* The gzip form for a client that takes it, with its own tag. */
  r = serve(st, "/app.js", NULL, NULL, "gzip, deflate");
  ASSERT_EQ(r.status, 200);
  ASSERT_STR_EQ(r.encoding, "gzip");
  ASSERT_LT(r.len, 400);
  ASSERT_EQ(r.body[0], 0x1f);
  ASSERT_EQ(r.body[1], 0x8b);
  char js[4000];
  for (size_t i = 0; i < sizeof js; i++)
    js[i] = "export const x = 1;\n"[i % 20];
  check_gunzip(r.body, r.len, (const unsigned char *)js, sizeof js);
  char etag_gz[64];
  snprintf(etag_gz, sizeof etag_gz, "%s", r.etag);
  ASSERT(strcmp(etag, etag_gz) != 0);

  /* Conditional requests: the tag of the representation asked for. */
  ASSERT_EQ(serve(st, "/app.js", etag, NULL, NULL).status, 304);
  r = serve(st, "/app.js", etag_gz, NULL, "gzip");
  ASSERT_EQ(r.status, 304);
  ASSERT_NULL(r.body);
  ASSERT_STR_EQ(r.etag, etag_gz);
  ASSERT_EQ(serve(st, "/app.js", etag, NULL, "gzip").status, 200); /* Had the other form. */
  ASSERT_EQ(serve(st, "/app.js", "\"other\"", NULL, NULL).status, 200);
  /* If-Modified-Since: not modified at or after the file's time; ignored with If-None-Match. */
  ASSERT_EQ(serve(st, "/app.js", NULL, last, NULL).status, 304);
  char later[40], earlier[40];
  srv_static_format_date(when + 3600, later, sizeof later);
  srv_static_format_date(when - 1, earlier, sizeof earlier);
  ASSERT_EQ(serve(st, "/app.js", NULL, later, NULL).status, 304);
  ASSERT_EQ(serve(st, "/app.js", NULL, earlier, NULL).status, 200);
  ASSERT_EQ(serve(st, "/app.js", "\"other\"", later, NULL).status, 200);
  ASSERT_EQ(serve(st, "/app.js", NULL, "yesterday", NULL).status, 200);

  /* A file changed on disk is read again: a new tag, and the old one no longer matches. */
  char path[128];
  snprintf(path, sizeof path, "%s/app.js", dir);
  write_file(path, "export const y = 2;\n", 20);
  r = serve(st, "/app.js", etag, NULL, NULL);
  ASSERT_EQ(r.status, 200);
  ASSERT_EQ(r.len, 20);
  ASSERT_EQ(memcmp(r.body, "export const y = 2;\n", 20), 0);
  ASSERT(strcmp(r.etag, etag) != 0);
  ASSERT(!r.vary); /* 20 bytes do not get smaller with gzip: no gzip form. */
  ASSERT_NULL(serve(st, "/app.js", NULL, NULL, "gzip").encoding);

  /* Binary files are never compressed. */
  r = serve(st, "/img.png", NULL, NULL, "gzip");
  ASSERT_EQ(r.status, 200);
  ASSERT_STR_EQ(r.type, "image/png");
  ASSERT_NULL(r.encoding);
  srv_static_free(st);
  remove_dir();
  return 0;
}

TEST_IMPL(serve_gzip_once) {
  make_dir();
  /* Text with repeats near and far (distances past 4096 and close to the 32 KiB window) and
   * 20,000 random bytes (a fixed LCG) at its end: literals and matches in one stream. */
  const char *words[] = {"seed ", "house ", "store ", "capture ", "relay ", "Kalah ", "Oware "};
  size_t m = 150000;
  unsigned char *t = malloc(m);
  ASSERT_NOT_NULL(t);
  uint32_t x = 12345;
  for (size_t i = 0; i < m;) {
    x = x * 1103515245u + 12345u;
    const char *w = words[(x >> 16) % 7];
    for (size_t k = 0; w[k] && i < m; k++)
      t[i++] = (unsigned char)w[k];
    if ((x >> 8) % 13 == 0 && i > 40000 && i + 1000 < m) {
      memcpy(t + i, t + i - 31000, 1000); /* A long match 31,000 bytes back. */
      i += 1000;
    }
  }
  unsigned char *r = malloc(20000);
  ASSERT_NOT_NULL(r);
  for (size_t i = 0; i < 20000; i++) {
    x = x * 1103515245u + 12345u;
    r[i] = (unsigned char)(x >> 16);
  }
  memcpy(t + m - 20000, r, 20000);
  char path[128];
  snprintf(path, sizeof path, "%s/big.js", dir);
  write_file(path, t, m);
  /* Random bytes alone do not compress: a text file kept without a gzip form. */
  snprintf(path, sizeof path, "%s/noise.txt", dir);
  write_file(path, r, 20000);

  srv_static *st = srv_static_new(dir);
  ASSERT_NOT_NULL(st);
  srv_static_response a = serve(st, "/big.js", NULL, NULL, "gzip");
  ASSERT_EQ(a.status, 200);
  ASSERT_STR_EQ(a.encoding, "gzip");
  /* Seven words of 5-8 bytes picked at random: under 3 bits of choice per 6.3 bytes, far below
   * half even with the 20,000 incompressible bytes. */
  ASSERT_LT(a.len, m / 2);
  check_gunzip(a.body, a.len, t, m);
  /* Compressed once: the next request gets the same kept bytes, not a new compression. */
  srv_static_response b = serve(st, "/big.js", NULL, NULL, "gzip, br");
  ASSERT(b.body == a.body);
  ASSERT_EQ(b.len, a.len);
  ASSERT_STR_EQ(b.etag, a.etag);
  /* Without gzip in Accept-Encoding: the file itself. */
  srv_static_response c = serve(st, "/big.js", NULL, NULL, "br");
  ASSERT_NULL(c.encoding);
  ASSERT_EQ(c.len, m);
  ASSERT_EQ(memcmp(c.body, t, m), 0);
  c = serve(st, "/noise.txt", NULL, NULL, "gzip");
  ASSERT_EQ(c.status, 200);
  ASSERT_NULL(c.encoding);
  ASSERT(!c.vary);
  ASSERT_EQ(c.len, 20000);
  srv_static_free(st);
  free(t);
  free(r);
  remove_dir();
  return 0;
}

TEST_IMPL(serve_names) {
  make_dir();
  srv_static *st = srv_static_new(dir);
  ASSERT_NOT_NULL(st);
  /* The page's routes are index.html. */
  const char *page[] = {"/", "/r/K7QX2M", "/g/12", "/r/anything"};
  for (size_t i = 0; i < sizeof page / sizeof page[0]; i++) {
    srv_static_response r = serve(st, page[i], NULL, NULL, NULL);
    ASSERT_EQ(r.status, 200);
    ASSERT_STR_EQ(r.type, "text/html; charset=utf-8");
    ASSERT_EQ(r.len, 31);
  }
  ASSERT_EQ(serve(st, "/sub/a.css", NULL, NULL, NULL).status, 200);
  /* Never served: hidden files, parent directories, directories, odd characters, unknown
   * types, missing files. */
  const char *no[] = {"/.secret.js", "/../etc/passwd", "/sub/../app.js", "/sub",
                      "/sub/",       "//app.js",       "/app.js%00",     "/app js",
                      "/app.js?x=1", "/nothere.js",    "/index",         "",
                      "app.js",      "/sub/.a.css"};
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
    ASSERT_EQ(serve(st, no[i], NULL, NULL, NULL).status, 404);
  srv_static_free(st);
  /* Without a directory nothing is found, and nothing fails. */
  st = srv_static_new("/nonexistent/mancala-web");
  ASSERT_NOT_NULL(st);
  ASSERT_EQ(serve(st, "/", NULL, NULL, NULL).status, 404);
  srv_static_free(st);
  remove_dir();
  return 0;
}
