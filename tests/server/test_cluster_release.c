/* The frames a cluster's node queues for stand-ins of other nodes' connections leave with their
 * storage batch (srv_cluster_release(), docs/cluster.md): stamped by the network layer when
 * queued, taken by srv_cluster__released() once the batch of their stamp is committed, each
 * connection's in the order they were queued. The walk is tested alone, on frames queued by
 * hand; the expected releases are worked out from the rule: a frame stamped up to the cut leaves
 * unless an earlier frame of its connection (node and number) stays. */
#include <stdlib.h>
#include <string.h>

#include "srv_cluster_int.h"
#include "task.h"

typedef struct fixture {
  srv_cluster *cl;
  outgoing *q[16]; /* Every frame queued, by the order it was queued in. */
  int n;
} fixture;

static void queue(fixture *f, const char *node, uint64_t conn, uint64_t stamp) {
  outgoing *o = calloc(1, sizeof *o);
  ASSERT(o != NULL);
  snprintf(o->node, sizeof o->node, "%s", node);
  o->conn = conn;
  o->stamp = stamp;
  if (f->cl->out_tail != NULL)
    f->cl->out_tail->next = o;
  else
    f->cl->out_head = o;
  f->cl->out_tail = o;
  f->q[f->n++] = o;
}

/* The frames released by cut are exactly q[want[0..]] (1-based indices, 0 ends), in that order;
 * they are freed. */
static void expect_released(fixture *f, uint64_t cut, const int *want) {
  outgoing *o = srv_cluster__released(f->cl, cut);
  for (int i = 0; want[i] != 0; i++) {
    ASSERT(o != NULL);
    ASSERT(o == f->q[want[i] - 1]);
    outgoing *next = o->next;
    free(o);
    o = next;
  }
  ASSERT(o == NULL);
  ASSERT_EQ(srv_hash_count(&f->cl->held_conns), 0); /* Emptied after every walk. */
}

/* The frames still queued are exactly q[want[0..]], in that order, and the tail is the last. */
static void expect_queued(fixture *f, const int *want) {
  const outgoing *o = f->cl->out_head, *last = NULL;
  for (int i = 0; want[i] != 0; i++) {
    ASSERT(o == f->q[want[i] - 1]);
    last = o;
    o = o->next;
  }
  ASSERT(o == NULL);
  ASSERT(f->cl->out_tail == last);
}

static void setup(fixture *f) {
  memset(f, 0, sizeof *f);
  f->cl = calloc(1, sizeof *f->cl);
  ASSERT(f->cl != NULL);
  ASSERT_EQ(srv_hash_init(&f->cl->held_conns, 4), 0);
}

static void teardown(fixture *f) {
  ASSERT(f->cl->out_head == NULL);
  srv_hash_dispose(&f->cl->held_conns);
  free(f->cl);
}

/* Batch 5 is committed while batch 6's turn ran: what batch 5 settled and encoded after its
 * commit is stamped 5 again (srv_net_restamp()), queued after frames of 6. Node "n1"'s
 * connection 1 has 5, 6, 5: only its first leaves (the third waits behind the 6, as on a socket);
 * connection 7 has 6 then 5: nothing leaves; node "n2"'s connection 1 (the same number on another
 * node) and "n1"'s connection 2 have only 5s: they leave. Then cut 6 takes the rest but a frame
 * of 7, and cut 7 that one. (The sink before stamps published all eight at the first cut.) */
TEST_IMPL(releases_by_cut_in_order_per_connection) {
  fixture f;
  setup(&f);
  queue(&f, "n1", 1, 5); /* 1 */
  queue(&f, "n1", 7, 6); /* 2 */
  queue(&f, "n1", 1, 6); /* 3 */
  queue(&f, "n1", 1, 5); /* 4: behind 3 */
  queue(&f, "n1", 7, 5); /* 5: behind 2 */
  queue(&f, "n2", 1, 5); /* 6 */
  queue(&f, "n1", 2, 5); /* 7 */
  expect_released(&f, 5, (const int[]){1, 6, 7, 0});
  expect_queued(&f, (const int[]){2, 3, 4, 5, 0});
  queue(&f, "n2", 1, 7); /* 8 */
  expect_released(&f, 6, (const int[]){2, 3, 4, 5, 0});
  expect_queued(&f, (const int[]){8, 0});
  expect_released(&f, 6, (const int[]){0}); /* Nothing more with the same cut. */
  expect_queued(&f, (const int[]){8, 0});
  expect_released(&f, 7, (const int[]){8, 0});
  expect_queued(&f, (const int[]){0});
  teardown(&f);
  return 0;
}

/* A cut releases every earlier stamp too; nothing queued, nothing released. */
TEST_IMPL(a_later_cut_releases_earlier_stamps) {
  fixture f;
  setup(&f);
  expect_released(&f, 3, (const int[]){0});
  expect_queued(&f, (const int[]){0});
  queue(&f, "n1", 1, 2); /* 1 */
  queue(&f, "n1", 1, 4); /* 2 */
  queue(&f, "n3", 9, 3); /* 3 */
  queue(&f, "n1", 1, 3); /* 4: behind 2 */
  expect_released(&f, 3, (const int[]){1, 3, 0});
  expect_queued(&f, (const int[]){2, 4, 0});
  expect_released(&f, 9, (const int[]){2, 4, 0});
  expect_queued(&f, (const int[]){0});
  teardown(&f);
  return 0;
}
