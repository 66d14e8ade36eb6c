/* Keepalive deadlines (srv_keepalive.h) on a clock passed in by hand: who is pinged, who is hung
 * up, and when. Delays of the server's defaults scaled down: ping after 30 ms of silence, hang up
 * after 75 ms. */
#include <stdint.h>
#include <string.h>

#include "srv_keepalive.h"
#include "task.h"

#define NCONN 4

typedef struct record {
  srv_keepalive_conn kc[NCONN];
  int pings[NCONN], hangups[NCONN];
  int order[64], norder; /* Connections in the order of the callbacks, hang-ups as -1 - i. */
} record;

static int index_of(record *r, srv_keepalive_conn *kc) {
  for (int i = 0; i < NCONN; i++)
    if (kc == &r->kc[i])
      return i;
  TEST_FAIL_("%s", "a connection that was never added");
}

static void on_ping(void *ud, srv_keepalive_conn *kc) {
  record *r = ud;
  int i = index_of(r, kc);
  r->pings[i]++;
  if (r->norder < 64)
    r->order[r->norder++] = i;
}

static void on_hangup(void *ud, srv_keepalive_conn *kc) {
  record *r = ud;
  int i = index_of(r, kc);
  /* Unlinked before the call: the network layer frees the connection from here. */
  ASSERT(!srv_list_linked(&kc->link));
  r->hangups[i]++;
  if (r->norder < 64)
    r->order[r->norder++] = -1 - i;
}

static void setup(srv_keepalive *ka, record *r, srv_keepalive_ops *ops) {
  memset(r, 0, sizeof *r);
  srv_keepalive_init(ka, 30, 75);
  *ops = (srv_keepalive_ops){on_ping, on_hangup, r};
}

/* A silent connection: pinged once at 30 ms of silence (not again at the next ticks), hung up at
 * 75 ms. */
TEST_IMPL(silent_is_pinged_then_hung_up) {
  srv_keepalive ka;
  record r;
  srv_keepalive_ops ops;
  setup(&ka, &r, &ops);
  srv_keepalive_add(&ka, &r.kc[0], 1000);
  srv_keepalive_tick(&ka, 1029, &ops); /* 29 ms of silence: nothing due. */
  ASSERT_EQ(r.pings[0], 0);
  srv_keepalive_tick(&ka, 1030, &ops);
  ASSERT_EQ(r.pings[0], 1);
  srv_keepalive_tick(&ka, 1050, &ops);
  srv_keepalive_tick(&ka, 1074, &ops); /* 74 ms: still open, not pinged twice. */
  ASSERT_EQ(r.pings[0], 1);
  ASSERT_EQ(r.hangups[0], 0);
  srv_keepalive_tick(&ka, 1075, &ops);
  ASSERT_EQ(r.hangups[0], 1);
  srv_keepalive_tick(&ka, 5000, &ops); /* Gone: never seen again. */
  ASSERT_EQ(r.pings[0], 1);
  ASSERT_EQ(r.hangups[0], 1);
  return 0;
}

/* A live connection answers each ping (a pong is traffic): it is pinged every 30 ms of silence
 * and never hung up. */
TEST_IMPL(answering_stays) {
  srv_keepalive ka;
  record r;
  srv_keepalive_ops ops;
  setup(&ka, &r, &ops);
  srv_keepalive_add(&ka, &r.kc[0], 0);
  for (uint64_t t = 10; t <= 1000; t += 10) {
    int before = r.pings[0];
    srv_keepalive_tick(&ka, t, &ops);
    if (r.pings[0] > before)
      srv_keepalive_seen(&ka, &r.kc[0], t + 2); /* The pong, 2 ms later. */
  }
  ASSERT_EQ(r.hangups[0], 0);
  /* Pinged at 30, pong at 32, due again at 62 (tick 70, pong 72), 102 (tick 110), ...: every
   * 40 ms from 30 on with 10 ms ticks, so at 30, 70, ..., 990: 25 pings. */
  ASSERT_EQ(r.pings[0], 25);
  return 0;
}

/* A connection that keeps sending messages is never pinged; a message after the ping clears it
 * as a pong does. */
TEST_IMPL(traffic_postpones) {
  srv_keepalive ka;
  record r;
  srv_keepalive_ops ops;
  setup(&ka, &r, &ops);
  srv_keepalive_add(&ka, &r.kc[0], 0);
  srv_keepalive_add(&ka, &r.kc[1], 0);
  for (uint64_t t = 5; t <= 500; t += 5) {
    srv_keepalive_seen(&ka, &r.kc[0], t); /* A message every 5 ms. */
    srv_keepalive_tick(&ka, t, &ops);
  }
  ASSERT_EQ(r.pings[0], 0);
  ASSERT_EQ(r.hangups[0], 0);
  /* kc[1] silent from 0: pinged at 30, hung up at 75. */
  ASSERT_EQ(r.pings[1], 1);
  ASSERT_EQ(r.hangups[1], 1);

  srv_keepalive_add(&ka, &r.kc[2], 1000);
  srv_keepalive_tick(&ka, 1030, &ops);
  ASSERT_EQ(r.pings[2], 1);
  srv_keepalive_seen(&ka, &r.kc[2], 1070); /* A move, 5 ms before the hangup. */
  srv_keepalive_tick(&ka, 1075, &ops);
  srv_keepalive_tick(&ka, 1099, &ops);
  ASSERT_EQ(r.hangups[2], 0);
  ASSERT_EQ(r.pings[2], 1);
  srv_keepalive_tick(&ka, 1100, &ops); /* 30 ms after the move: a new ping. */
  ASSERT_EQ(r.pings[2], 2);
  srv_keepalive_tick(&ka, 1145, &ops); /* 75 ms after the move. */
  ASSERT_EQ(r.hangups[2], 1);
  return 0;
}

/* Several connections: each is due by its own last traffic, in that order, whatever the order
 * they were added or seen in; a removed connection is never called back; seen on a connection
 * not watched does not start watching it. */
TEST_IMPL(order_and_remove) {
  srv_keepalive ka;
  record r;
  srv_keepalive_ops ops;
  setup(&ka, &r, &ops);
  srv_keepalive_add(&ka, &r.kc[0], 0);
  srv_keepalive_add(&ka, &r.kc[1], 10);
  srv_keepalive_add(&ka, &r.kc[2], 20);
  srv_keepalive_add(&ka, &r.kc[3], 20);
  srv_keepalive_seen(&ka, &r.kc[0], 25); /* Now the latest. */
  srv_keepalive_remove(&r.kc[3]);
  srv_keepalive_remove(&r.kc[3]); /* Twice: harmless. */
  srv_keepalive_seen(&ka, &r.kc[3], 26);
  /* Due: kc[1] at 40, kc[2] at 50, kc[0] at 55 (pings); hang-ups at 85, 95, 100. */
  srv_keepalive_tick(&ka, 45, &ops);
  ASSERT_EQ(r.norder, 1);
  ASSERT_EQ(r.order[0], 1);
  srv_keepalive_tick(&ka, 60, &ops);
  ASSERT_EQ(r.norder, 3);
  ASSERT_EQ(r.order[1], 2);
  ASSERT_EQ(r.order[2], 0);
  srv_keepalive_tick(&ka, 96, &ops);
  ASSERT_EQ(r.norder, 5);
  ASSERT_EQ(r.order[3], -1 - 1);
  ASSERT_EQ(r.order[4], -1 - 2);
  srv_keepalive_tick(&ka, 1000, &ops);
  ASSERT_EQ(r.norder, 6);
  ASSERT_EQ(r.order[5], -1 - 0);
  ASSERT_EQ(r.pings[3], 0);
  ASSERT_EQ(r.hangups[3], 0);
  return 0;
}

/* A loop that stalled past both deadlines: a silent connection is hung up at the next tick, with
 * no ping first. */
TEST_IMPL(stall_hangs_up_without_ping) {
  srv_keepalive ka;
  record r;
  srv_keepalive_ops ops;
  setup(&ka, &r, &ops);
  srv_keepalive_add(&ka, &r.kc[0], 0);
  srv_keepalive_add(&ka, &r.kc[1], 0);
  srv_keepalive_tick(&ka, 500, &ops);
  ASSERT_EQ(r.pings[0], 0);
  ASSERT_EQ(r.hangups[0], 1);
  ASSERT_EQ(r.hangups[1], 1);
  return 0;
}
