/* The end of a loop turn, once per turn before the loop polls (Redis' beforeSleep; the network
 * layer calls it from its uv_prepare_t), in this order:
 *
 *   1. the lobby goes to its watchers (srv_lobby_flush());
 *   2. durable storage commits the turn's batch, one transaction for every room of the turn
 *      (srv_persist_commit());
 *   3. when writes were lost, for each room that lost some: the network drops the room's states
 *      queued during the turn, then the room takes those moves back (srv_rooms_store_lost(), which
 *      queues the mover's storage_error and, when it changed or states were dropped, the state as
 *      it is now: a loss that changed nothing visible sends nothing, so a store that keeps failing
 *      causes no storm of states); a room that is gone gets its closing recorded again; every
 *      request whose answer was dropped and not answered since gets storage_error;
 *   4. the players' own lists of games in progress go to their watchers (srv_myrooms_flush()),
 *      as they are after all that;
 *   5. the turn's frames are released to the sockets.
 *
 * Nothing is sent before it is stored, and the modules involved never call each other for it:
 * persistence only reports what it lost, this module steers.
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
  /* Drops the states of room code (borrowed) queued during this turn; returns how many. The
   * requests those states answered are remembered for answer_dropped(). */
  int (*drop_room)(void *ud, const char *code);
  /* Every request whose answer drop_room() dropped, and that nothing answered since (the mover's
   * storage_error), gets storage_error: every request gets its reply or an error. */
  void (*answer_dropped)(void *ud);
  /* Releases the turn's frames to the sockets. */
  void (*release)(void *ud);
  void *ud;
} srv_turn_net;

/* Everything the end of a turn works on (borrowed). lobby, persist and myrooms may be NULL. */
typedef struct srv_turn {
  srv_lobby *lobby;
  srv_persist *persist;
  srv_rooms *rooms;
  srv_turn_net net;
  srv_myrooms *myrooms;
} srv_turn;

/* Ends the loop turn (see above). arg is the srv_turn: a srv_net turn hook. */
void srv_turn_end(void *arg);

#endif
