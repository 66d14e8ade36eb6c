/* Logging to stderr. */
#include "srv_log.h"

#include <libwebsockets.h>
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

void srv_log(srv_log_level level, const char *module, const char *fmt, ...) {
  if (level > threshold)
    return;
  char stamp[32];
  struct timespec ts;
  struct tm tm;
  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  size_t n = strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(stamp + n, sizeof stamp - n, ".%03ldZ", ts.tv_nsec / 1000000);

  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "%s %s %s: %s\n", stamp, labels[level], module, line);
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
