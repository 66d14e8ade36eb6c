/* The open-file limit (see srv_rlimit.h). */
#include "srv_rlimit.h"

#include <sys/resource.h>
#include <unistd.h>

#include "srv_log.h"

long srv_rlimit_open_files(long want) {
  struct rlimit rl;
  if (want > 0 && getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    rlim_t to =
        rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (rlim_t)want ? rl.rlim_max : (rlim_t)want;
    if (rl.rlim_cur != to) {
      rlim_t was = rl.rlim_cur;
      rl.rlim_cur = to;
      if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        srv_log_warn("net", "cannot change the open-file limit from %ld to %ld", (long)was,
                     (long)to);
    }
  }
  long n = sysconf(_SC_OPEN_MAX);
  return n > 0 ? n : 0;
}

long srv_rlimit_connections(long files, long want) {
  if (files <= 0)
    return want;
  long reserve = files / 4 < SRV_RLIMIT_SPARE ? files / 4 : SRV_RLIMIT_SPARE;
  long n = files - reserve;
  if (n < 1)
    n = 1;
  return want < n ? want : n;
}
