/* The open-file limit the server gives lws (srv_rlimit.h). Each test runs in its own process, so
 * changing the limit here changes no other test. */
#include <sys/resource.h>
#include <unistd.h>

#include "srv_rlimit.h"
#include "task.h"

static rlim_t expected_soft(rlim_t hard) {
  return hard == RLIM_INFINITY || hard > SRV_RLIMIT_MAX_FILES ? SRV_RLIMIT_MAX_FILES : hard;
}

/* A soft limit below the hard one (the shell's usual 1024 under a larger hard limit) is raised to
 * it, and what lws is told is what the process now has. */
TEST_IMPL(raises_soft_to_hard) {
  struct rlimit rl;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
  ASSERT(rl.rlim_max > 64); /* Every Linux allows more; the test means nothing otherwise. */
  rlim_t hard = rl.rlim_max;
  rl.rlim_cur = 64;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
  ASSERT_EQ(sysconf(_SC_OPEN_MAX), 64);
  long n = srv_rlimit_open_files();
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
  ASSERT_EQ(rl.rlim_max, hard);
  ASSERT_EQ(rl.rlim_cur, expected_soft(hard));
  ASSERT_EQ(n, (long)expected_soft(hard));
  ASSERT_EQ(n, sysconf(_SC_OPEN_MAX));
  /* Again: nothing left to change, the same answer. */
  ASSERT_EQ(srv_rlimit_open_files(), n);
  return 0;
}

/* An admin's low hard limit (100) is kept, and is what lws is told. */
TEST_IMPL(keeps_a_low_hard_limit) {
  struct rlimit rl = {100, 100};
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
  ASSERT_EQ(srv_rlimit_open_files(), 100);
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
  ASSERT_EQ(rl.rlim_cur, 100);
  return 0;
}
