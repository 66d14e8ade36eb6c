/* Quick play's pools: each game on its own default board and options, untimed or with one of the
 * usual time controls (1+0, 3+2, 5+3, 10+5: minutes and seconds added per move), SRV_POOLS in all.
 * A player waiting in a public room of a pool's settings is waiting in that pool: quick play
 * (srv_room_quick()) pairs the oldest of them with the next player who asks for the same settings,
 * and the lobby shows how many wait in each pool (srv_lobby.c). A pool is a name for settings, not
 * a queue of its own: a room created with the same settings in the create form waits in it too.
 */
#ifndef SRV_POOL_H
#define SRV_POOL_H

#include "srv_msg.h"

#define SRV_POOL_CLOCKS 5 /* Untimed, 1+0, 3+2, 5+3, 10+5. */
#define SRV_POOLS (3 * SRV_POOL_CLOCKS)

/* Writes pool i (0..SRV_POOLS-1) into *out, waiting 0: the games in mc_kind order, each with its
 * clocks in the order above. Returns 0, or -1 for an index out of range. */
int srv_pool_get(int i, srv_pool_view *out);

/* The pool the settings opts (borrowed) belong to, or -1: a public room for two people on the
 * game's default board with its default options, untimed or with a pool's time control. */
int srv_pool_of(const srv_room_opts *opts);

#endif
