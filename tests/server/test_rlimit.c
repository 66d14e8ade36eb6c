/* The open-file limit the server gives lws (srv_rlimit.h). Each test runs in its own process, so
 * changing the limit here changes no other test. */
#include <sys/resource.h>
#include <unistd.h>

#include "srv_rlimit.h"
#include "task.h"

static rlim_t soft_limit(void) {
  struct rlimit rl;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
  return rl.rlim_cur;
}

/* A soft limit below what the server wants (the shell's usual 1024) is raised to it, one above
 * (LimitNOFILE=65536 for 10,000 connections) is lowered to it: lws' table is what the server
 * needs, and what lws is told is what the process has. */
TEST_IMPL(sets_soft_to_want) {
  struct rlimit rl;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
  ASSERT(rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= 1000); /* Every Linux allows more. */
  rlim_t hard = rl.rlim_max;
  rl.rlim_cur = 64;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
  ASSERT_EQ(srv_rlimit_open_files(1000), 1000);
  ASSERT_EQ(soft_limit(), 1000);
  ASSERT_EQ(sysconf(_SC_OPEN_MAX), 1000);
  ASSERT_EQ(srv_rlimit_open_files(1000), 1000); /* Nothing left to change. */
  ASSERT_EQ(srv_rlimit_open_files(500), 500);
  ASSERT_EQ(soft_limit(), 500);
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
  ASSERT_EQ(rl.rlim_max, hard); /* The hard limit is never touched. */
  return 0;
}

/* An admin's hard limit below what the server wants (100 for 1,000) is kept, and is what lws is
 * told. */
TEST_IMPL(keeps_a_low_hard_limit) {
  struct rlimit rl = {50, 100};
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
  ASSERT_EQ(srv_rlimit_open_files(1000), 100);
  ASSERT_EQ(soft_limit(), 100);
  return 0;
}
