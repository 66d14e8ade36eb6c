/* The end of a loop turn, once per turn before the loop polls (Redis' beforeSleep; the network
 * layer calls it from its uv_prepare_t), in this order:
 *
 *   1. the lobby goes to its watchers (srv_lobby_flush());
 *   2. durable storage commits the turn's batch, one transaction for every room of the turn
 *      (srv_persist_commit());
 *   3. when writes were lost, for each room that lost some: the room takes those moves back
 *      (srv_rooms_store_lost(), which queues the restored state and the mover's storage_error),
 *      then the network drops the room's states queued earlier in the turn, before the take-back;
 *      a room that is gone gets its closing recorded again;
 *   4. the turn's frames are released to the sockets.
 *
 * Nothing is sent before it is stored, and the modules involved never call each other for it:
 * persistence only reports what it lost, this module steers.
 */
#ifndef SRV_TURN_H
#define SRV_TURN_H

#include <stdint.h>

#include "srv_lobby.h"
#include "srv_persist.h"
#include "srv_room.h"

/* What the end of a turn asks of the network layer (srv_net.h; a fake one in the unit tests). */
typedef struct srv_turn_net {
  /* A mark of the frames queued so far. */
  uint64_t (*mark)(void *ud);
  /* Drops the states of room code (borrowed) queued during this turn before mark. */
  void (*drop_room)(void *ud, const char *code, uint64_t mark);
  /* Releases the turn's frames to the sockets. */
  void (*release)(void *ud);
  void *ud;
} srv_turn_net;

/* Everything the end of a turn works on (borrowed). lobby and persist may be NULL. */
typedef struct srv_turn {
  srv_lobby *lobby;
  srv_persist *persist;
  srv_rooms *rooms;
  srv_turn_net net;
} srv_turn;

/* Ends the loop turn (see above). arg is the srv_turn: a srv_net turn hook. */
void srv_turn_end(void *arg);

#endif
