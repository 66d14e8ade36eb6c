/* The log's rate limit (srv_log.h). Security probe, finding 12: a failing disk wrote 34,009
 * "player X was not stored" lines in 7 s. The log goes to a file here (stderr redirected) and the
 * limit runs on a fake clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_log.h"
#include "task.h"

static uint64_t fake_now = 1000000;

static uint64_t fake_clock(void) {
  return fake_now;
}

static FILE *out;

/* Sends the log to a new temporary file. */
static void capture(void) {
  out = tmpfile();
  ASSERT(out != NULL);
  srv_log_set_output(out);
  srv_log_set_clock(fake_clock);
  srv_log_set_level(SRV_LOG_INFO);
}

/* The captured text so far (a static buffer). */
static const char *captured(void) {
  static char buf[64 * 1024];
  fflush(out);
  rewind(out);
  size_t n = fread(buf, 1, sizeof buf - 1, out);
  buf[n] = '\0';
  fseek(out, 0, SEEK_END);
  return buf;
}

static int count(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
    n++;
  return n;
}

static void release(void) {
  srv_log_set_output(NULL);
  srv_log_set_clock(NULL);
  fclose(out);
}

/* One line from one call site, as the store's "not stored" line is. */
static void not_stored(int i) {
  srv_log_error("persist", "player %d was not stored", i);
}

TEST_IMPL(repeated_lines_are_counted) {
  capture();
  /* 1,000 lines from one site in the same second: SRV_LOG_BURST (20) are written. */
  for (int i = 0; i < 1000; i++)
    not_stored(i);
  const char *t = captured();
  ASSERT_EQ(count(t, "was not stored"), 20);
  ASSERT(strstr(t, "player 19 was not stored") != NULL);
  ASSERT(strstr(t, "player 20 was not stored") == NULL);
  /* Another site is not held back by the first. */
  srv_log_warn("net", "something else %d", 1);
  ASSERT_EQ(count(captured(), "WARN  net: something else 1"), 1);

  /* 10 s later the next line says how many were left out (980) and what the last one said. */
  fake_now += SRV_LOG_WINDOW_MS;
  not_stored(5000);
  t = captured();
  ASSERT_EQ(count(t, "ERROR persist: 980 more lines like this in 10 s were not logged; the last: "
                     "player 999 was not stored"),
            1);
  ASSERT_EQ(count(t, "player 5000 was not stored"), 1);

  /* A new window: 20 more are written, then 5 left out, said by srv_log_flush() at the end. */
  for (int i = 0; i < 24; i++)
    not_stored(6000 + i);
  fake_now += 2500;
  srv_log_flush();
  t = captured();
  ASSERT_EQ(count(t, "player 6018 was not stored"), 1);
  ASSERT_EQ(count(t, "player 6019 was not stored"), 0);
  ASSERT_EQ(count(t, "5 more lines like this in 3 s were not logged; the last: player 6023"), 1);
  /* Said once: a second flush has nothing to say. */
  size_t len = strlen(t);
  srv_log_flush();
  ASSERT_EQ(strlen(captured()), len);
  release();
  return 0;
}

TEST_IMPL(debug_lines_are_never_left_out) {
  capture();
  srv_log_set_level(SRV_LOG_DEBUG);
  for (int i = 0; i < 100; i++)
    srv_log_debug("room", "debug line %d", i);
  ASSERT_EQ(count(captured(), "DEBUG room: debug line"), 100);
  release();
  return 0;
}

TEST_IMPL(many_sites_share_the_table) {
  capture();
  /* 200 distinct call sites (formats) fill the table of 64 and take each other's slots: every
   * line is written (none of them repeats), and the table never overflows. */
  static char fmts[200][32];
  for (int i = 0; i < 200; i++) {
    snprintf(fmts[i], sizeof fmts[i], "site %d says %%d", i);
    fake_now++;
    srv_log(SRV_LOG_WARN, "test", fmts[i], i);
  }
  ASSERT_EQ(count(captured(), "WARN  test: site "), 200);
  /* A site evicted while holding a count reports it first. */
  for (int i = 0; i < 30; i++)
    srv_log_warn("test", "busy %d", i);
  for (int i = 0; i < 200; i++) {
    fake_now++;
    srv_log(SRV_LOG_WARN, "test", fmts[i], i);
  }
  ASSERT_EQ(count(captured(), "10 more lines like this in 1 s were not logged; the last: busy 29"),
            1);
  release();
  return 0;
}
