/* getrandom(2) wrapper. */
#define _DEFAULT_SOURCE /* getrandom() in glibc's <sys/random.h>. */
#include "srv_rand.h"

#include <errno.h>
#include <sys/random.h>

#include "srv_error.h"

int srv_rand_bytes(void *buf, size_t len) {
  unsigned char *p = buf;
  while (len > 0) {
    ssize_t n = getrandom(p, len, 0);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return SRV_EINTERNAL;
    }
    p += n;
    len -= (size_t)n;
  }
  return 0;
}
