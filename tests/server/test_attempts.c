/* Attempt counters in a sliding window (srv_attempts.h): the limit, when it lifts (the oldest
 * attempt leaving the window), clearing, keys apart, and the bound on the keys kept. */
#include "srv_attempts.h"
#include "task.h"

TEST_IMPL(window) {
  srv_attempts *a = srv_attempts_new(3, 1000, 100);
  ASSERT_NOT_NULL(a);
  /* Three attempts at 0, 100 and 400: the fourth waits until the first leaves, at 1000. */
  ASSERT_EQ(srv_attempts_wait(a, "ana", 0), 0);
  ASSERT_EQ(srv_attempts_add(a, "ana", 0), 0);
  ASSERT_EQ(srv_attempts_add(a, "ana", 100), 0);
  ASSERT_EQ(srv_attempts_wait(a, "ana", 200), 0);
  ASSERT_EQ(srv_attempts_add(a, "ana", 400), 0);
  ASSERT_EQ(srv_attempts_wait(a, "ana", 400), 600);
  ASSERT_EQ(srv_attempts_wait(a, "ana", 999), 1);
  ASSERT_EQ(srv_attempts_wait(a, "ana", 1000), 0);
  /* Another key is not limited by it. */
  ASSERT_EQ(srv_attempts_wait(a, "bob", 400), 0);
  /* One more at 1000 (0 left the window): 100 is the oldest now, the wait ends at 1100. */
  ASSERT_EQ(srv_attempts_add(a, "ana", 1000), 0);
  ASSERT_EQ(srv_attempts_wait(a, "ana", 1050), 50);
  /* Cleared: free at once. */
  srv_attempts_clear(a, "ana");
  ASSERT_EQ(srv_attempts_wait(a, "ana", 1050), 0);
  ASSERT_EQ(srv_attempts_count(a), 0);
  srv_attempts_free(a);
  ASSERT_NULL(srv_attempts_new(0, 1000, 10));
  return 0;
}

/* At most max_keys keys: the one tried least recently is forgotten for a new one. */
TEST_IMPL(bounded_keys) {
  srv_attempts *a = srv_attempts_new(1, 60000, 3);
  ASSERT_EQ(srv_attempts_add(a, "k1", 10), 0);
  ASSERT_EQ(srv_attempts_add(a, "k2", 20), 0);
  ASSERT_EQ(srv_attempts_add(a, "k3", 30), 0);
  ASSERT_EQ(srv_attempts_add(a, "k1", 40), 0); /* k1 tried again: k2 is now the oldest. */
  ASSERT_EQ(srv_attempts_add(a, "k4", 50), 0);
  ASSERT_EQ(srv_attempts_count(a), 3);
  ASSERT_EQ(srv_attempts_wait(a, "k2", 60), 0); /* forgotten */
  ASSERT(srv_attempts_wait(a, "k1", 60) > 0);
  ASSERT(srv_attempts_wait(a, "k3", 60) > 0);
  ASSERT(srv_attempts_wait(a, "k4", 60) > 0);
  srv_attempts_free(a);
  return 0;
}
