/* A process' CPU priority lowered by nice steps (srv_prio.h), as mancala-worker does at start
 * (--nice). Each test runs in its own process: the priority lowered here is lowered for no other
 * test. */
#include <errno.h>
#include <pthread.h>
#include <sys/resource.h>

#include "srv_prio.h"
#include "task.h"

static int nice_of_this_thread(void) {
  errno = 0;
  int n = getpriority(PRIO_PROCESS, 0);
  ASSERT(n != -1 || errno == 0);
  return n;
}

static void *thread_nice(void *arg) {
  *(int *)arg = nice_of_this_thread();
  return NULL;
}

/* --nice N: 0 to 19 in decimal digits, nothing else; a refused text leaves the value as it was. */
TEST_IMPL(parse) {
  static const struct {
    const char *text;
    int steps;
  } good[] = {{"0", 0}, {"1", 1}, {"10", 10}, {"19", 19}, {"07", 7}};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    int v = -5;
    ASSERT_EQ(srv_prio_parse(good[i].text, &v), 0);
    ASSERT_EQ(v, good[i].steps);
  }
  static const char *const bad[] = {"",   "20", "99", "100", "-1",  "+3",
                                    " 3", "3 ", "3x", "x",   "1.5", "019"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int v = -5;
    ASSERT_EQ(srv_prio_parse(bad[i], &v), -1);
    ASSERT_EQ(v, -5);
  }
  return 0;
}

/* Lowered by 3 from where the test started: getpriority() says the new value, and a thread
 * started afterwards (a worker's search) runs at it too. */
TEST_IMPL(lowers_and_threads_inherit) {
  int was = nice_of_this_thread();
  ASSERT(was <= SRV_PRIO_NICE_MAX - 3); /* Room to lower it, else the test shows nothing. */
  int now = -100;
  ASSERT_EQ(srv_prio_lower(3, &now), 0);
  ASSERT_EQ(now, was + 3);
  ASSERT_EQ(nice_of_this_thread(), was + 3);
  int in_thread = -100;
  pthread_t t;
  ASSERT_EQ(pthread_create(&t, NULL, thread_nice, &in_thread), 0);
  ASSERT_EQ(pthread_join(t, NULL), 0);
  ASSERT_EQ(in_thread, was + 3);
  /* 0 steps keeps it. */
  ASSERT_EQ(srv_prio_lower(0, &now), 0);
  ASSERT_EQ(now, was + 3);
  ASSERT_EQ(nice_of_this_thread(), was + 3);
  return 0;
}

/* Past the lowest priority it stops there (19), without an error, as `nice -n` does. */
TEST_IMPL(stops_at_the_lowest) {
  int now = -100;
  ASSERT_EQ(srv_prio_lower(19, &now), 0);
  ASSERT_EQ(now, SRV_PRIO_NICE_MAX);
  ASSERT_EQ(nice_of_this_thread(), SRV_PRIO_NICE_MAX);
  ASSERT_EQ(srv_prio_lower(5, &now), 0);
  ASSERT_EQ(now, SRV_PRIO_NICE_MAX);
  ASSERT_EQ(nice_of_this_thread(), SRV_PRIO_NICE_MAX);
  return 0;
}

/* Steps out of range are refused and change nothing. */
TEST_IMPL(refuses_out_of_range) {
  int was = nice_of_this_thread();
  int now = -100;
  ASSERT_EQ(srv_prio_lower(-1, &now), -EINVAL);
  ASSERT_EQ(srv_prio_lower(20, &now), -EINVAL);
  ASSERT_EQ(now, -100);
  ASSERT_EQ(nice_of_this_thread(), was);
  return 0;
}
