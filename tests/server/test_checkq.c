/* The password-check queue (srv_checkq.h), hand-worked: addresses take turns, an address has a
 * cap, a full lane makes room for a newcomer at the expense of the address with the most waiting
 * (then the heaviest) or answers busy, the session lane has its reserved worker and cannot take
 * them all, and items leave when they ran or their connection went. */
#include "srv_checkq.h"
#include "srv_error.h"
#include "task.h"

static srv_checkq *make(int running, int reserved, int waiting, int per_addr) {
  srv_checkq_config cfg = {running, reserved, waiting, per_addr};
  return srv_checkq_new(&cfg);
}

static int add(srv_checkq *q, srv_checkq_item *it, const char *addr, unsigned weight,
               srv_checkq_item **evicted) {
  return srv_checkq_add(q, it, addr, SRV_CHECKQ_STRANGER, weight, evicted);
}

/* One worker for strangers: A's second check waits until B and C had their turn. */
TEST_IMPL(round_robin) {
  srv_checkq *q = make(2, 1, 8, 4);
  ASSERT_NOT_NULL(q);
  srv_checkq_item a1, a2, a3, b1, c1;
  ASSERT_EQ(add(q, &a1, "A", 0, NULL), 0);
  ASSERT_EQ(add(q, &a2, "A", 0, NULL), 0);
  ASSERT_EQ(add(q, &a3, "A", 0, NULL), 0);
  ASSERT_EQ(add(q, &b1, "B", 0, NULL), 0);
  ASSERT_EQ(add(q, &c1, "C", 0, NULL), 0);
  ASSERT_EQ(srv_checkq_waiting(q, SRV_CHECKQ_STRANGER), 5);
  ASSERT(srv_checkq_next(q) == &a1);
  ASSERT_NULL(srv_checkq_next(q)); /* One worker is the session lane's. */
  ASSERT_EQ(srv_checkq_running(q, SRV_CHECKQ_STRANGER), 1);
  srv_checkq_remove(q, &a1);
  ASSERT(srv_checkq_next(q) == &b1);
  srv_checkq_remove(q, &b1);
  ASSERT(srv_checkq_next(q) == &c1);
  srv_checkq_remove(q, &c1);
  ASSERT(srv_checkq_next(q) == &a2);
  srv_checkq_remove(q, &a2);
  ASSERT(srv_checkq_next(q) == &a3);
  srv_checkq_remove(q, &a3);
  ASSERT_NULL(srv_checkq_next(q));
  ASSERT_EQ(srv_checkq_addresses(q), 0);
  srv_checkq_free(q);
  ASSERT_NULL(make(1, 1, 8, 4));
  ASSERT_NULL(make(4, 0, 8, 4));
  ASSERT_NULL(make(4, 4, 8, 4));
  return 0;
}

/* An address has at most per_addr checks, waiting and running together. */
TEST_IMPL(per_address_cap) {
  srv_checkq *q = make(4, 1, 8, 2);
  srv_checkq_item a1, a2, a3, b1;
  ASSERT_EQ(add(q, &a1, "A", 0, NULL), 0);
  ASSERT_EQ(add(q, &a2, "A", 0, NULL), 0);
  ASSERT_EQ(add(q, &a3, "A", 0, NULL), SRV_EBUSY);
  ASSERT(srv_checkq_next(q) == &a1); /* Running still counts. */
  ASSERT_EQ(add(q, &a3, "A", 0, NULL), SRV_EBUSY);
  ASSERT_EQ(add(q, &b1, "B", 0, NULL), 0);
  srv_checkq_remove(q, &a1);
  ASSERT_EQ(add(q, &a3, "A", 0, NULL), 0);
  /* The same address in the session lane is a queue of its own. */
  srv_checkq_item s1;
  ASSERT_EQ(srv_checkq_add(q, &s1, "A", SRV_CHECKQ_SESSION, 0, NULL), 0);
  ASSERT_EQ(srv_checkq_addresses(q), 3);
  srv_checkq_free(q);
  return 0;
}

/* A full lane (4 waiting): the address with the most waiting gives way to a newcomer while it keeps
 * as many; then, everyone holding one, a newcomer that asked less than the heaviest takes its
 * place, and one that asked as much is refused. */
TEST_IMPL(full_lane_makes_room) {
  srv_checkq *q = make(2, 1, 4, 3);
  srv_checkq_item a1, a2, a3, b1, c1, d1, e1, f1, g1, *out = NULL;
  /* A's first runs (the strangers' one worker); A 2 waiting, B 1, C 1: 4, full. */
  ASSERT_EQ(add(q, &a1, "A", 30, NULL), 0);
  ASSERT(srv_checkq_next(q) == &a1);
  ASSERT_EQ(add(q, &a2, "A", 30, NULL), 0);
  ASSERT_EQ(add(q, &a3, "A", 30, NULL), 0);
  ASSERT_EQ(add(q, &b1, "B", 20, NULL), 0);
  ASSERT_EQ(add(q, &c1, "C", 10, NULL), 0);
  ASSERT_EQ(srv_checkq_waiting(q, SRV_CHECKQ_STRANGER), 4);
  /* D (weight 5): A has the most waiting (2) and keeps 1 = D's 1: A's newest, a3, gives way. */
  ASSERT_EQ(add(q, &d1, "D", 5, &out), 0);
  ASSERT(out == &a3);
  ASSERT_NULL(a3.queue);
  ASSERT_EQ(srv_checkq_waiting(q, SRV_CHECKQ_STRANGER), 4);
  /* E (weight 1): all hold one; the heaviest, A (30), is heavier: a2 gives way. */
  ASSERT_EQ(add(q, &e1, "E", 1, &out), 0);
  ASSERT(out == &a2);
  /* F (weight 20): the heaviest waiting now is B (20), not heavier: busy, nothing changed. */
  out = &a1;
  ASSERT_EQ(add(q, &f1, "F", 20, &out), SRV_EBUSY);
  ASSERT_NULL(out);
  /* G (weight 19): B gives way. */
  ASSERT_EQ(add(q, &g1, "G", 19, &out), 0);
  ASSERT(out == &b1);
  ASSERT_EQ(srv_checkq_addresses(q), 5); /* A (running), C, D, E, G; B gone with its last. */
  /* The turns: C, D, E, G, in the order they came. */
  srv_checkq_remove(q, &a1);
  srv_checkq_item *order[] = {&c1, &d1, &e1, &g1};
  for (int i = 0; i < 4; i++) {
    ASSERT(srv_checkq_next(q) == order[i]);
    srv_checkq_remove(q, order[i]);
  }
  ASSERT_EQ(srv_checkq_addresses(q), 0);
  srv_checkq_free(q);
  return 0;
}

/* Three workers, one reserved: strangers run two at most, the session lane runs at once while a
 * worker is free and two at most. */
TEST_IMPL(session_lane) {
  srv_checkq *q = make(3, 1, 8, 4);
  srv_checkq_item x[4], s1, s2, s3;
  for (int i = 0; i < 4; i++)
    ASSERT_EQ(add(q, &x[i], i % 2 ? "B" : "A", 0, NULL), 0);
  ASSERT(srv_checkq_next(q) == &x[0]);
  ASSERT(srv_checkq_next(q) == &x[1]);
  ASSERT_NULL(srv_checkq_next(q)); /* The third worker is the session lane's. */
  ASSERT_EQ(srv_checkq_add(q, &s1, "A", SRV_CHECKQ_SESSION, 0, NULL), 0);
  ASSERT(srv_checkq_next(q) == &s1);
  ASSERT_NULL(srv_checkq_next(q));
  /* A stranger's check ends: the session lane goes first, up to two. */
  ASSERT_EQ(srv_checkq_add(q, &s2, "S", SRV_CHECKQ_SESSION, 0, NULL), 0);
  ASSERT_EQ(srv_checkq_add(q, &s3, "T", SRV_CHECKQ_SESSION, 0, NULL), 0);
  srv_checkq_remove(q, &x[0]);
  ASSERT(srv_checkq_next(q) == &s2);
  ASSERT_NULL(srv_checkq_next(q));
  srv_checkq_remove(q, &s1);
  /* Two sessions would leave the strangers none... */
  ASSERT_EQ(srv_checkq_running(q, SRV_CHECKQ_SESSION), 1);
  ASSERT(srv_checkq_next(q) == &s3);
  ASSERT_EQ(srv_checkq_running(q, SRV_CHECKQ_SESSION), 2);
  srv_checkq_remove(q, &x[1]);
  /* ...so the worker x[1] had goes to a stranger, not to more sessions. */
  ASSERT(srv_checkq_next(q) == &x[2]);
  ASSERT_NULL(srv_checkq_next(q));
  /* A waiting item whose connection went leaves at once. */
  srv_checkq_remove(q, &x[3]);
  ASSERT_EQ(srv_checkq_waiting(q, SRV_CHECKQ_STRANGER), 0);
  srv_checkq_free(q); /* With items still in it: they are the caller's. */
  return 0;
}

/* A caller that cannot answer an item that gives way (evicted NULL) is refused when the lane is
 * full, and nothing gives way. */
TEST_IMPL(no_eviction_without_an_answer) {
  srv_checkq *q = make(2, 1, 1, 4);
  srv_checkq_item a1, a2, b1, *out = &a1;
  ASSERT_EQ(add(q, &a1, "A", 9, NULL), 0);
  ASSERT(srv_checkq_next(q) == &a1);
  ASSERT_EQ(add(q, &a2, "A", 9, NULL), 0);
  ASSERT_EQ(add(q, &b1, "B", 0, NULL), SRV_EBUSY);
  ASSERT(a2.queue != NULL);
  ASSERT_EQ(add(q, &b1, "B", 0, &out), 0);
  ASSERT(out == &a2);
  srv_checkq_free(q);
  return 0;
}
