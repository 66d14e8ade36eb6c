/* Logging: one line per event on stderr, with a UTC time stamp, a level and the module.
 *
 * Levels below the threshold cost one comparison. Nothing is logged per message at the default
 * level (info); per-message lines are debug.
 */
#ifndef SRV_LOG_H
#define SRV_LOG_H

#include <stdint.h>
#include <stdio.h>

typedef enum srv_log_level {
  SRV_LOG_QUIET = -1, /* Nothing at all (a threshold for the fuzz targets, never a message's). */
  SRV_LOG_ERROR = 0,
  SRV_LOG_WARN = 1,
  SRV_LOG_INFO = 2,
  SRV_LOG_DEBUG = 3
} srv_log_level;

/* Sets the threshold: messages above it are dropped. The default is SRV_LOG_INFO. */
void srv_log_set_level(srv_log_level level);

/* Returns nonzero when a message at level would be written. */
int srv_log_enabled(srv_log_level level);

/* Parses "error", "warn", "info" or "debug". Returns 0 and sets *level, or -1. */
int srv_log_level_parse(const char *name, srv_log_level *level);

/* Writes one line: "<time> <LEVEL> <module>: <message>". module and fmt are borrowed.
 *
 * Repeated lines are rate-limited (security probe, finding 12: a failing disk wrote 34,009
 * lines in 7 s). Lines of one call site (one fmt) are counted over a window of
 * SRV_LOG_WINDOW_MS from the site's first line: the first SRV_LOG_BURST of a window are written,
 * the rest are counted, and the next line logged once the window is over (or srv_log_flush())
 * says, at the site's level and module, how many were left out and what the last one said.
 * Debug lines are never left out (they are asked for). The table of sites is fixed and small:
 * a site that finds it full takes the oldest one's slot, reporting its count first. */
#define SRV_LOG_WINDOW_MS 10000
#define SRV_LOG_BURST 20
void srv_log(srv_log_level level, const char *module, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define srv_log_error(mod, ...) srv_log(SRV_LOG_ERROR, mod, __VA_ARGS__)
#define srv_log_warn(mod, ...) srv_log(SRV_LOG_WARN, mod, __VA_ARGS__)
#define srv_log_info(mod, ...) srv_log(SRV_LOG_INFO, mod, __VA_ARGS__)
#define srv_log_debug(mod, ...)                                                                    \
  do {                                                                                             \
    if (srv_log_enabled(SRV_LOG_DEBUG))                                                            \
      srv_log(SRV_LOG_DEBUG, mod, __VA_ARGS__);                                                    \
  } while (0)

/* Writes the counts of lines left out so far (at shutdown, so that none goes unsaid). */
void srv_log_flush(void);

/* For tests: the clock of the rate limit in milliseconds (NULL: CLOCK_MONOTONIC) and where lines
 * go (borrowed; NULL: stderr). */
void srv_log_set_clock(uint64_t (*now_ms)(void));
void srv_log_set_output(FILE *out);

/* Routes libwebsockets' own log lines into this log (errors and warnings at most). */
void srv_log_hook_lws(void);

#endif
