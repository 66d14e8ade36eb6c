/* The open-file limit (see srv_rlimit.h). */
#include "srv_rlimit.h"

#include <sys/resource.h>
#include <unistd.h>

#include "srv_log.h"

long srv_rlimit_open_files(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > SRV_RLIMIT_MAX_FILES
                      ? SRV_RLIMIT_MAX_FILES
                      : rl.rlim_max;
    if (rl.rlim_cur != want) {
      rlim_t was = rl.rlim_cur;
      rl.rlim_cur = want;
      if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        srv_log_warn("net", "cannot change the open-file limit from %ld to %ld", (long)was,
                     (long)want);
    }
  }
  long n = sysconf(_SC_OPEN_MAX);
  return n > 0 && n <= SRV_RLIMIT_MAX_FILES ? n : 0;
}
