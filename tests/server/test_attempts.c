/* Attempt counters with growing delays (srv_attempts.h), hand-worked on made-up times: the free
 * attempts, the doubling waits and their bound, attempts leaving the window, attempts counted
 * before their result (concurrent ones cannot pass the allowance), giving back, clearing, keys
 * apart, and the bound on the keys kept. */
#include "srv_attempts.h"
#include "task.h"

static srv_attempts *make(int free, uint64_t window, uint64_t delay, uint64_t max, size_t keys) {
  srv_attempts_config cfg = {free, window, delay, max, keys};
  return srv_attempts_new(&cfg);
}

/* Three free attempts, then waits of 1, 2 and 4 s (the bound), as attempts leave a 10 s window. */
TEST_IMPL(growing_delays) {
  srv_attempts *a = make(3, 10000, 1000, 4000, 100);
  ASSERT_NOT_NULL(a);
  /* Three at once at 0: free. The fourth waits 1000 after the newest. */
  for (int i = 0; i < 3; i++) {
    ASSERT_EQ(srv_attempts_wait(a, "ana", 0), 0);
    ASSERT_EQ(srv_attempts_add(a, "ana", 0), 0);
  }
  ASSERT_EQ(srv_attempts_wait(a, "ana", 0), 1000);
  ASSERT_EQ(srv_attempts_wait(a, "ana", 999), 1);
  ASSERT_EQ(srv_attempts_wait(a, "ana", 1000), 0);
  /* Another key is not slowed by it. */
  ASSERT_EQ(srv_attempts_wait(a, "bob", 0), 0);
  /* The fourth at 1000: the fifth 2000 after it; the fifth at 3000: the sixth 4000 after it. */
  ASSERT_EQ(srv_attempts_add(a, "ana", 1000), 0);
  ASSERT_EQ(srv_attempts_wait(a, "ana", 1000), 2000);
  ASSERT_EQ(srv_attempts_add(a, "ana", 3000), 0);
  ASSERT_EQ(srv_attempts_wait(a, "ana", 3000), 4000);
  /* The sixth at 7000, six in the window: 8000 after it would be 15000, but the bound is 4000
   * (11000), and at 10000 the three of 0 leave: three remain (1000, 3000, 7000), whose wait is
   * 1000 after 7000, passed. So it waits until 10000. */
  ASSERT_EQ(srv_attempts_add(a, "ana", 7000), 0);
  ASSERT_EQ(srv_attempts_recent(a, "ana", 7000), 6);
  ASSERT_EQ(srv_attempts_wait(a, "ana", 7000), 3000);
  ASSERT_EQ(srv_attempts_wait(a, "ana", 10000), 0);
  ASSERT_EQ(srv_attempts_recent(a, "ana", 10000), 3);
  /* Cleared: free at once, forgotten. */
  srv_attempts_clear(a, "ana");
  ASSERT_EQ(srv_attempts_wait(a, "ana", 10000), 0);
  ASSERT_EQ(srv_attempts_count(a), 0);
  srv_attempts_free(a);
  ASSERT_NULL(make(0, 1000, 1000, 1000, 10));
  ASSERT_NULL(make(1, 1000, 2000, 1000, 10)); /* The bound below the first wait. */
  ASSERT_NULL(make(1, 0, 1000, 1000, 10));
  return 0;
}

/* Nothing locks: a key that keeps trying at the pace it is allowed waits the bound, never more,
 * however long it goes on (more attempts than its ring keeps). */
TEST_IMPL(bounded_wait) {
  srv_attempts *a = make(2, 1000000, 1000, 8000, 100);
  uint64_t t = 0;
  ASSERT_EQ(srv_attempts_add(a, "k", t), 0);
  ASSERT_EQ(srv_attempts_add(a, "k", t), 0);
  /* Waits 1000, 2000, 4000, 8000, then 8000 for ever. */
  static const uint64_t waits[] = {1000, 2000, 4000, 8000, 8000, 8000, 8000, 8000, 8000, 8000};
  for (int i = 0; i < 10; i++) {
    ASSERT_EQ(srv_attempts_wait(a, "k", t), waits[i]);
    t += waits[i];
    ASSERT_EQ(srv_attempts_wait(a, "k", t), 0);
    ASSERT_EQ(srv_attempts_add(a, "k", t), 0);
  }
  /* 12 attempts made; the ring keeps free + the 4 doublings that reach the bound = 6. */
  ASSERT_EQ(srv_attempts_recent(a, "k", t), 6);
  ASSERT_EQ(srv_attempts_wait(a, "k", t), 8000);
  srv_attempts_free(a);
  return 0;
}

/* Twenty requests at the same instant, each asking and then counting before its result is known
 * (what the accounts do on the loop thread): five pass, fifteen are told to wait 1000 ms. */
TEST_IMPL(counted_before_the_result) {
  srv_attempts *a = make(5, 600000, 1000, 60000, 100);
  int passed = 0, waited = 0;
  for (int i = 0; i < 20; i++) {
    uint64_t w = srv_attempts_wait(a, "ana", 5000);
    if (w == 0) {
      ASSERT_EQ(srv_attempts_add(a, "ana", 5000), 0);
      passed++;
    } else {
      ASSERT_EQ(w, 1000);
      waited++;
    }
  }
  ASSERT_EQ(passed, 5);
  ASSERT_EQ(waited, 15);
  srv_attempts_free(a);
  return 0;
}

/* An attempt that did not happen is given back: the one counted at that time goes, the newer ones
 * stay in order; a time not counted gives nothing back; the last one given back forgets the key. */
TEST_IMPL(give_back) {
  srv_attempts *a = make(2, 10000, 1000, 8000, 100);
  ASSERT_EQ(srv_attempts_add(a, "k", 100), 0);
  ASSERT_EQ(srv_attempts_add(a, "k", 200), 0);
  ASSERT_EQ(srv_attempts_add(a, "k", 300), 0);
  /* Three: 2000 after 300. */
  ASSERT_EQ(srv_attempts_wait(a, "k", 300), 2000);
  srv_attempts_give_back(a, "k", 200);
  /* 100 and 300: 1000 after 300. */
  ASSERT_EQ(srv_attempts_wait(a, "k", 300), 1000);
  srv_attempts_give_back(a, "k", 250); /* never counted */
  ASSERT_EQ(srv_attempts_recent(a, "k", 300), 2);
  srv_attempts_give_back(a, "k", 300);
  ASSERT_EQ(srv_attempts_wait(a, "k", 300), 0);
  ASSERT_EQ(srv_attempts_recent(a, "k", 300), 1);
  /* The last one given back: the key is forgotten. */
  srv_attempts_give_back(a, "k", 100);
  ASSERT_EQ(srv_attempts_count(a), 0);
  srv_attempts_give_back(a, "nobody", 1);
  srv_attempts_free(a);
  return 0;
}

/* At most max_keys keys: the one tried least recently is forgotten for a new one. */
TEST_IMPL(bounded_keys) {
  srv_attempts *a = make(1, 60000, 1000, 1000, 3);
  ASSERT_EQ(srv_attempts_add(a, "k1", 10), 0);
  ASSERT_EQ(srv_attempts_add(a, "k2", 20), 0);
  ASSERT_EQ(srv_attempts_add(a, "k3", 30), 0);
  ASSERT_EQ(srv_attempts_add(a, "k1", 40), 0); /* k1 tried again: k2 is now the oldest. */
  ASSERT_EQ(srv_attempts_add(a, "k4", 50), 0);
  ASSERT_EQ(srv_attempts_count(a), 3);
  ASSERT_EQ(srv_attempts_wait(a, "k2", 60), 0); /* forgotten */
  ASSERT_EQ(srv_attempts_wait(a, "k1", 60), 980);
  ASSERT_EQ(srv_attempts_wait(a, "k3", 60), 970);
  ASSERT_EQ(srv_attempts_wait(a, "k4", 60), 990);
  srv_attempts_free(a);
  return 0;
}
