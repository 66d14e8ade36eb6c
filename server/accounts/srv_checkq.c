/* The password-check queue (see srv_checkq.h): per lane, a ring of the addresses that have
 * checks waiting, each address's checks oldest first; a hash table finds an address's queue. */
#include "srv_checkq.h"

#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_hash.h"

typedef struct checkq_addr {
  srv_hash_node hnode; /* q->addrs */
  srv_list turn;       /* Its lane's ring while it has checks waiting. */
  srv_list waiting;    /* Its waiting items, oldest first. */
  int nwaiting, nrunning;
  unsigned weight; /* Its recent attempts, as the caller counts them. */
  srv_checkq_lane lane;
  char key[]; /* The address key. */
} checkq_addr;

typedef struct lane_state {
  srv_list ring; /* Addresses with checks waiting, the next one's turn first. */
  int waiting, running;
} lane_state;

struct srv_checkq {
  srv_checkq_config cfg;
  srv_hash addrs;
  lane_state lanes[2];
};

typedef struct addr_id {
  const char *key;
  srv_checkq_lane lane;
} addr_id;

static bool addr_is(const srv_hash_node *node, const void *arg) {
  const checkq_addr *x = srv_hash_entry(node, checkq_addr, hnode);
  const addr_id *id = arg;
  return x->lane == id->lane && strcmp(x->key, id->key) == 0;
}

static size_t addr_hash(const char *key, srv_checkq_lane lane) {
  return srv_hash_str(key) ^ (size_t)lane;
}

void srv_checkq_config_init(srv_checkq_config *cfg) {
  cfg->running = 4;
  cfg->reserved = 1;
  cfg->waiting = 64;
  cfg->per_addr = 4;
}

srv_checkq *srv_checkq_new(const srv_checkq_config *cfg) {
  if (cfg->running < 2 || cfg->reserved < 1 || cfg->reserved >= cfg->running || cfg->waiting < 1 ||
      cfg->per_addr < 1)
    return NULL;
  srv_checkq *q = calloc(1, sizeof *q);
  if (q == NULL)
    return NULL;
  q->cfg = *cfg;
  if (srv_hash_init(&q->addrs, 64) != 0) {
    free(q);
    return NULL;
  }
  for (int i = 0; i < 2; i++)
    srv_list_init(&q->lanes[i].ring);
  return q;
}

static void addr_free(srv_checkq *q, checkq_addr *x) {
  srv_hash_remove(&q->addrs, &x->hnode);
  srv_list_remove(&x->turn);
  free(x);
}

void srv_checkq_free(srv_checkq *q) {
  if (q == NULL)
    return;
  for (srv_hash_node *n = srv_hash_first(&q->addrs); n != NULL; n = srv_hash_first(&q->addrs)) {
    checkq_addr *x = srv_hash_entry(n, checkq_addr, hnode);
    srv_list_foreach_safe (it, &x->waiting) {
      srv_checkq_item *item = srv_list_entry(it, srv_checkq_item, link);
      srv_list_remove(&item->link);
      item->queue = NULL;
    }
    addr_free(q, x);
  }
  srv_hash_dispose(&q->addrs);
  free(q);
}

/* Takes waiting item out of its address's queue (the address stays, maybe empty). */
static void unwait(srv_checkq *q, srv_checkq_item *item) {
  checkq_addr *x = item->queue;
  srv_list_remove(&item->link);
  x->nwaiting--;
  q->lanes[x->lane].waiting--;
  if (x->nwaiting == 0)
    srv_list_remove(&x->turn);
}

/* Whether x (a waiting address of the lane) should give way before y. */
static bool gives_way_before(const checkq_addr *x, const checkq_addr *y) {
  return x->nwaiting > y->nwaiting || (x->nwaiting == y->nwaiting && x->weight > y->weight);
}

int srv_checkq_add(srv_checkq *q, srv_checkq_item *item, const char *addr, srv_checkq_lane lane,
                   unsigned weight, srv_checkq_item **evicted) {
  if (evicted != NULL)
    *evicted = NULL;
  addr_id id = {addr, lane};
  size_t hash = addr_hash(addr, lane);
  srv_hash_node *node = srv_hash_find(&q->addrs, hash, addr_is, &id);
  checkq_addr *x = node ? srv_hash_entry(node, checkq_addr, hnode) : NULL;
  if (x != NULL && x->nwaiting + x->nrunning >= q->cfg.per_addr)
    return SRV_EBUSY;
  lane_state *l = &q->lanes[lane];
  checkq_addr *longest = NULL;
  if (l->waiting >= q->cfg.waiting) {
    if (evicted == NULL) /* Nobody to answer the one that would give way. */
      return SRV_EBUSY;
    /* Full: the address with the most waiting (then the heaviest) gives way, if it keeps at
     * least as many as the newcomer will have, or one fewer and it is heavier. */
    int mine = x ? x->nwaiting : 0;
    srv_list_foreach (it, &l->ring) {
      checkq_addr *y = srv_list_entry(it, checkq_addr, turn);
      if (y != x && (longest == NULL || gives_way_before(y, longest)))
        longest = y;
    }
    if (longest == NULL || longest->nwaiting < mine + 1 ||
        (longest->nwaiting == mine + 1 && longest->weight <= weight))
      return SRV_EBUSY;
  }
  if (x == NULL) {
    size_t len = strlen(addr);
    if ((x = calloc(1, sizeof *x + len + 1)) == NULL)
      return SRV_ENOMEM;
    memcpy(x->key, addr, len + 1);
    x->lane = lane;
    srv_list_init(&x->waiting);
    srv_hash_insert(&q->addrs, &x->hnode, hash);
  }
  if (longest != NULL) {
    srv_checkq_item *victim = srv_list_entry(longest->waiting.prev, srv_checkq_item, link);
    unwait(q, victim);
    victim->queue = NULL;
    if (evicted != NULL)
      *evicted = victim;
    if (longest->nwaiting + longest->nrunning == 0)
      addr_free(q, longest);
  }
  x->weight = weight;
  item->queue = x;
  item->running = false;
  srv_list_push_back(&x->waiting, &item->link);
  x->nwaiting++;
  l->waiting++;
  if (!srv_list_linked(&x->turn))
    srv_list_push_back(&l->ring, &x->turn);
  return 0;
}

/* Starts the next item of lane i, or returns NULL when none waits. */
static srv_checkq_item *take(srv_checkq *q, srv_checkq_lane i) {
  lane_state *l = &q->lanes[i];
  srv_list *first = srv_list_first(&l->ring);
  if (first == NULL)
    return NULL;
  checkq_addr *x = srv_list_entry(first, checkq_addr, turn);
  srv_checkq_item *item = srv_list_entry(srv_list_first(&x->waiting), srv_checkq_item, link);
  unwait(q, item);
  srv_list_remove(&x->turn); /* To the back of the turn, if it has more. */
  if (x->nwaiting > 0)
    srv_list_push_back(&l->ring, &x->turn);
  x->nrunning++;
  l->running++;
  item->running = true;
  return item;
}

srv_checkq_item *srv_checkq_next(srv_checkq *q) {
  lane_state *s = &q->lanes[SRV_CHECKQ_SESSION], *o = &q->lanes[SRV_CHECKQ_STRANGER];
  if (s->running + o->running >= q->cfg.running)
    return NULL;
  srv_checkq_item *item = NULL;
  if (s->running < q->cfg.running - 1)
    item = take(q, SRV_CHECKQ_SESSION);
  if (item == NULL && o->running < q->cfg.running - q->cfg.reserved)
    item = take(q, SRV_CHECKQ_STRANGER);
  return item;
}

void srv_checkq_remove(srv_checkq *q, srv_checkq_item *item) {
  checkq_addr *x = item->queue;
  if (x == NULL)
    return;
  if (item->running) {
    x->nrunning--;
    q->lanes[x->lane].running--;
    item->running = false;
  } else {
    unwait(q, item);
  }
  item->queue = NULL;
  if (x->nwaiting + x->nrunning == 0)
    addr_free(q, x);
}

int srv_checkq_waiting(const srv_checkq *q, srv_checkq_lane lane) {
  return q->lanes[lane].waiting;
}

int srv_checkq_running(const srv_checkq *q, srv_checkq_lane lane) {
  return q->lanes[lane].running;
}

size_t srv_checkq_addresses(const srv_checkq *q) {
  return srv_hash_count(&q->addrs);
}
