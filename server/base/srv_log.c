/* Logging to stderr. */
#include "srv_log.h"

#include <libwebsockets.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static srv_log_level threshold = SRV_LOG_INFO;

static const char *const names[] = {"error", "warn", "info", "debug"};
static const char *const labels[] = {"ERROR", "WARN ", "INFO ", "DEBUG"};

void srv_log_set_level(srv_log_level level) {
  threshold = level;
}

int srv_log_enabled(srv_log_level level) {
  return level <= threshold;
}

int srv_log_level_parse(const char *name, srv_log_level *level) {
  for (int i = 0; i < 4; i++) {
    if (strcmp(name, names[i]) == 0) {
      *level = (srv_log_level)i;
      return 0;
    }
  }
  return -1;
}

/* One call site of the rate limit (srv_log.h): its lines in the current window. */
typedef struct log_site {
  const char *fmt; /* The key; NULL: a free slot. */
  const char *module;
  srv_log_level level;
  uint64_t start_ms; /* The window's start. */
  unsigned lines;    /* Lines of this window, written or not. */
  unsigned left_out; /* Of those, not written. */
  char last[160];    /* The last one left out. */
} log_site;

#define LOG_SITES 64

static log_site sites[LOG_SITES];
/* Lines come from the loop and from the thread pool (searches, a network database's reads): the
 * sites are shared, so one lock over them and the writing of a line. */
static pthread_mutex_t sites_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t (*clock_ms)(void);
static FILE *output;

void srv_log_set_output(FILE *out) {
  output = out;
}

void srv_log_set_clock(uint64_t (*now_ms)(void)) {
  clock_ms = now_ms;
}

static uint64_t now_ms(void) {
  if (clock_ms != NULL)
    return clock_ms();
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void write_line(srv_log_level level, const char *module, const char *text) {
  char stamp[32];
  struct timespec ts;
  struct tm tm;
  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  size_t n = strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(stamp + n, sizeof stamp - n, ".%03ldZ", ts.tv_nsec / 1000000);
  fprintf(output != NULL ? output : stderr, "%s %s %s: %s\n", stamp, labels[level], module, text);
}

/* Says how many lines of site were left out, and starts its count again. */
static void report(log_site *site, uint64_t now) {
  if (site->left_out > 0) {
    char text[320];
    snprintf(text, sizeof text, "%u more lines like this in %llu s were not logged; the last: %s",
             site->left_out, (unsigned long long)((now - site->start_ms + 999) / 1000), site->last);
    write_line(site->level, site->module, text);
  }
  site->left_out = 0;
  site->lines = 0;
  site->start_ms = now;
}

/* The site of fmt, found or taken; reports the sites whose window is over. */
static log_site *site_of(const char *fmt, uint64_t now) {
  log_site *free_slot = NULL, *oldest = NULL, *found = NULL;
  for (int i = 0; i < LOG_SITES; i++) {
    log_site *s = &sites[i];
    if (s->fmt == NULL) {
      if (free_slot == NULL)
        free_slot = s;
      continue;
    }
    if (s->left_out > 0 && now - s->start_ms >= SRV_LOG_WINDOW_MS)
      report(s, now);
    if (s->fmt == fmt)
      found = s;
    else if (oldest == NULL || s->start_ms < oldest->start_ms)
      oldest = s;
  }
  if (found != NULL)
    return found;
  log_site *s = free_slot != NULL ? free_slot : oldest;
  report(s, now);
  s->fmt = fmt;
  s->start_ms = now;
  return s;
}

void srv_log(srv_log_level level, const char *module, const char *fmt, ...) {
  if (level > threshold)
    return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (level == SRV_LOG_DEBUG) {
    write_line(level, module, line);
    return;
  }
  pthread_mutex_lock(&sites_lock);
  uint64_t now = now_ms(); /* Under the lock: the windows' starts never pass it. */
  log_site *site = site_of(fmt, now);
  if (now - site->start_ms >= SRV_LOG_WINDOW_MS)
    report(site, now);
  site->module = module;
  site->level = level;
  if (++site->lines > SRV_LOG_BURST) {
    site->left_out++;
    size_t n = strlen(line);
    if (n >= sizeof site->last) /* Cut on a character boundary. */
      for (n = sizeof site->last - 1; n > 0 && ((unsigned char)line[n] & 0xc0) == 0x80;)
        n--;
    memcpy(site->last, line, n);
    site->last[n] = '\0';
    pthread_mutex_unlock(&sites_lock);
    return;
  }
  write_line(level, module, line);
  pthread_mutex_unlock(&sites_lock);
}

void srv_log_flush(void) {
  pthread_mutex_lock(&sites_lock);
  uint64_t now = now_ms();
  for (int i = 0; i < LOG_SITES; i++)
    if (sites[i].fmt != NULL && sites[i].left_out > 0)
      report(&sites[i], now);
  pthread_mutex_unlock(&sites_lock);
}

static void lws_emit(int level, const char *line) {
  /* lws lines end with a newline; drop it so that ours stay one per event. */
  size_t len = strlen(line);
  while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
    len--;
  srv_log(level == LLL_ERR ? SRV_LOG_ERROR : SRV_LOG_WARN, "lws", "%.*s", (int)len, line);
}

void srv_log_hook_lws(void) {
  int mask = getenv("MANCALA_LWS_DEBUG") ? 0xfff : LLL_ERR;
  if (threshold >= SRV_LOG_DEBUG)
    mask |= LLL_WARN;
  lws_set_log_level(mask, lws_emit);
}
