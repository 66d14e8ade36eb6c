/* The password-check queue: which password checks (Argon2id hashes, srv_pwhash.h) go to the
 * workers, and in what order, so that no address can crowd out another (srv_account.h).
 *
 * Two lanes: the session lane, for devices that already hold a session of the account they check
 * a password of (change_password, delete_account, a login of the account the connection is
 * logged in as), and the stranger lane for every other check (logins, sign-ups). Of the `running`
 * checks at the workers at once, `reserved` are kept for the session lane: strangers run at most
 * running - reserved, so a flood of strangers never delays an owner's own device by more than the
 * checks already running; the session lane runs at most running - 1, so that sessions (which an
 * account can multiply by logging in again and again) cannot shut strangers out either.
 *
 * In each lane every address (its key: srv_addr_group(), an IPv4 address or an IPv6 /48) has a
 * queue of its own, and the lane takes the addresses in turn (round robin): one check of the
 * address whose turn it is, then it goes to the back of the turn. An address may have at most
 * per_addr checks in a lane, waiting or running; a lane holds at most `waiting` checks waiting.
 * When a lane is full, a newcomer may take the place of the newest waiting check of another
 * address (which is answered busy): of the address with the most waiting, and among those the one
 * with the most checks lately (its weight: the caller's count of the address's recent attempts),
 * if that address keeps at least as many waiting as the newcomer then has, or one fewer and it is
 * the heavier. Otherwise the newcomer is refused (busy). So addresses flooding fill the lane
 * with a check or two each and then take each other's places, while an address that asks rarely
 * gets a place at once and its turn soon.
 *
 * The queue holds items the caller embeds in its jobs (it never frees them) and does no work: the
 * caller adds, asks for the next item to start, and removes an item when it ran or went. The loop
 * thread owns it.
 */
#ifndef SRV_CHECKQ_H
#define SRV_CHECKQ_H

#include <stdbool.h>
#include <stddef.h>

#include "srv_list.h"

typedef enum srv_checkq_lane { SRV_CHECKQ_STRANGER, SRV_CHECKQ_SESSION } srv_checkq_lane;

typedef struct srv_checkq_config {
  int running;  /* Checks at the workers at once, both lanes (>= 2). */
  int reserved; /* Of them, kept for the session lane (1 .. running - 1). */
  int waiting;  /* Checks waiting in each lane (>= 1). */
  int per_addr; /* Checks of one address in one lane, waiting or running (>= 1). */
} srv_checkq_config;

typedef struct srv_checkq_item {
  srv_list link;             /* Its address's waiting checks while it waits. */
  struct checkq_addr *queue; /* Its address's queue; NULL while not in the queue. */
  bool running;
} srv_checkq_item;

typedef struct srv_checkq srv_checkq;

/* Fills *cfg with the defaults: 4 running, 1 of them reserved, 64 waiting per lane, 4 per
 * address. */
void srv_checkq_config_init(srv_checkq_config *cfg);

/* Returns a new queue (cfg copied), or NULL when cfg is out of range or memory runs out. */
srv_checkq *srv_checkq_new(const srv_checkq_config *cfg);

/* Frees q; its items are the caller's (they are left as they are). NULL is allowed. */
void srv_checkq_free(srv_checkq *q);

/* Queues item (not in the queue) for the address key addr (borrowed) in lane, the address's
 * weight being weight (its recent attempts; it replaces the address's earlier one). Returns 0 when
 * it was queued: then *evicted is another address's waiting item that gave way for it (it is out
 * of the queue: answer it busy), or NULL. Returns SRV_EBUSY when the address already has per_addr
 * checks in the lane, or the lane is full and nobody gives way (nobody does when evicted is NULL),
 * and SRV_ENOMEM; then nothing changed. */
int srv_checkq_add(srv_checkq *q, srv_checkq_item *item, const char *addr, srv_checkq_lane lane,
                   unsigned weight, srv_checkq_item **evicted);

/* The next item to start, now running, or NULL when none waits that may run: the session lane
 * first while it runs fewer than running - 1, then the strangers' while they run fewer than
 * running - reserved. */
srv_checkq_item *srv_checkq_next(srv_checkq *q);

/* item (in the queue, waiting or running) leaves it: it ran, or its connection went. */
void srv_checkq_remove(srv_checkq *q, srv_checkq_item *item);

/* The items of a lane waiting, and running. */
int srv_checkq_waiting(const srv_checkq *q, srv_checkq_lane lane);
int srv_checkq_running(const srv_checkq *q, srv_checkq_lane lane);

/* Addresses with an item in the queue (for tests: an address's queue goes with its last item). */
size_t srv_checkq_addresses(const srv_checkq *q);

#endif
