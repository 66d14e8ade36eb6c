/* The end of a loop turn, once per turn before the loop polls (Redis' beforeSleep; the network
 * layer calls it from its uv_prepare_t). The turn runs one way, as a pipeline:
 *
 *   1. the lobby goes to its watchers (srv_lobby_flush());
 *   2. commit: the turn's batch, one transaction for every room of the turn, is handed over to the
 *      storage seam (srv_persist_commit()); steps 3 to 5 run when its result is known: at once
 *      with SQLite, when the COMMIT's result arrives with a network database. While a batch is in
 *      flight the loop keeps serving: later turns' writes form the next batch, handed over at the
 *      first turn's end after the result, and every frame of those turns waits for it (order
 *      per room and per connection is kept): a room's states, and as much an account's reply
 *      or a welcome whose writes are in that batch (the network layer stamps frames by batch,
 *      srv_net_cut());
 *   3. settle: when writes were lost, each room that lost some takes those moves back
 *      (srv_rooms_store_lost()): the states it owed for them are forgotten unsent, the requests
 *      they answered get storage_error, and the room owes its state as it is now; a room that is
 *      gone gets its closing recorded again;
 *   4. encode: each room that changed encodes what it owes, each ply's state once per kind of
 *      viewer (srv_rooms_flush()), and the players' own lists of games in progress go to their
 *      watchers (srv_myrooms_flush());
 *   5. release: the frames of the batch's turns go to the sockets.
 *
 * Nothing is encoded before its commit and nothing is taken back out of a queue. The modules
 * involved never call each other for it: rooms record and owe, persistence reports what it lost,
 * this module steers.
 */
#ifndef SRV_TURN_H
#define SRV_TURN_H

#include <stdint.h>

#include "srv_lobby.h"
#include "srv_myrooms.h"
#include "srv_persist.h"
#include "srv_room.h"

/* What the end of a turn asks of the network layer (srv_net.h; a fake one in the unit tests). */
typedef struct srv_turn_net {
  /* The frames queued so far belong to the batch being sealed; returns the cut (srv_net_cut()). */
  uint64_t (*cut)(void *ud);
  /* Frames queued from now on belong to cut; returns the stamp to restore (srv_net_restamp()). */
  uint64_t (*restamp)(void *ud, uint64_t cut);
  /* Releases the frames of cut and every earlier one to the sockets (srv_net_release_cut()). */
  void (*release)(void *ud, uint64_t cut);
  void *ud;
} srv_turn_net;

/* Everything the end of a turn works on (borrowed). lobby, persist and myrooms may be NULL. */
typedef struct srv_turn {
  srv_lobby *lobby;
  srv_persist *persist;
  srv_rooms *rooms;
  srv_turn_net net;
  srv_myrooms *myrooms;
  uint64_t sealed; /* The batch in flight, or the last one handed over. */
  uint64_t cut;    /* The network's cut of its frames (srv_turn_net.cut). */
} srv_turn;

/* Ends the loop turn (see above). arg is the srv_turn: a srv_net turn hook. */
void srv_turn_end(void *arg);

#endif
