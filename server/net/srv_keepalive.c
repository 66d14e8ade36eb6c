/* Keepalive deadlines in two lists ordered by last traffic (see srv_keepalive.h). */
#include "srv_keepalive.h"

void srv_keepalive_init(srv_keepalive *ka, uint64_t ping_ms, uint64_t hangup_ms) {
  ka->ping_ms = ping_ms;
  ka->hangup_ms = hangup_ms;
  srv_list_init(&ka->fresh);
  srv_list_init(&ka->pinged);
}

void srv_keepalive_add(srv_keepalive *ka, srv_keepalive_conn *kc, uint64_t now_ms) {
  kc->seen_ms = now_ms;
  kc->pinged = false;
  srv_list_push_back(&ka->fresh, &kc->link);
}

void srv_keepalive_seen(srv_keepalive *ka, srv_keepalive_conn *kc, uint64_t now_ms) {
  if (!srv_list_linked(&kc->link))
    return;
  /* The clock is monotonic, so the back of fresh stays the latest traffic. */
  kc->seen_ms = now_ms;
  kc->pinged = false;
  srv_list_remove(&kc->link);
  srv_list_push_back(&ka->fresh, &kc->link);
}

void srv_keepalive_remove(srv_keepalive_conn *kc) {
  srv_list_remove(&kc->link);
}

void srv_keepalive_tick(srv_keepalive *ka, uint64_t now_ms, const srv_keepalive_ops *ops) {
  /* Hang-ups first: a connection pinged at an earlier tick that stayed silent. Both lists are in
   * the order of seen_ms, so each walk stops at the first connection not due. */
  srv_list *it;
  while ((it = srv_list_first(&ka->pinged)) != NULL) {
    srv_keepalive_conn *kc = srv_list_entry(it, srv_keepalive_conn, link);
    if (now_ms - kc->seen_ms < ka->hangup_ms)
      break;
    srv_list_remove(&kc->link);
    ops->hangup(ops->ud, kc);
  }
  while ((it = srv_list_first(&ka->fresh)) != NULL) {
    srv_keepalive_conn *kc = srv_list_entry(it, srv_keepalive_conn, link);
    if (now_ms - kc->seen_ms < ka->ping_ms)
      break;
    srv_list_remove(&kc->link);
    if (now_ms - kc->seen_ms >= ka->hangup_ms) {
      /* Silent past both deadlines at once (a loop that stalled): no point in a ping. */
      ops->hangup(ops->ud, kc);
      continue;
    }
    /* pinged keeps the order of seen_ms: everything in it came from fresh earlier, with older
     * traffic than anything still in fresh. */
    kc->pinged = true;
    srv_list_push_back(&ka->pinged, &kc->link);
    ops->ping(ops->ud, kc);
  }
}
