/* Lowering a process' CPU priority (see srv_prio.h). */
#include "srv_prio.h"

#include <errno.h>
#include <stddef.h>
#include <sys/resource.h>

int srv_prio_parse(const char *text, int *steps) {
  int v = 0, digits = 0;
  for (const char *p = text; *p != '\0'; p++) {
    if (*p < '0' || *p > '9' || ++digits > 2)
      return -1;
    v = v * 10 + (*p - '0');
  }
  if (digits == 0 || v > SRV_PRIO_NICE_MAX)
    return -1;
  *steps = v;
  return 0;
}

int srv_prio_lower(int steps, int *now) {
  if (steps < 0 || steps > SRV_PRIO_NICE_MAX)
    return -EINVAL;
  errno = 0;
  int was = getpriority(PRIO_PROCESS, 0); /* -1 is a nice value too: errno tells. */
  if (was == -1 && errno != 0)
    return -errno;
  int to = was + steps > SRV_PRIO_NICE_MAX ? SRV_PRIO_NICE_MAX : was + steps;
  if (to != was && setpriority(PRIO_PROCESS, 0, to) != 0)
    return -errno;
  if (now != NULL)
    *now = to;
  return 0;
}
