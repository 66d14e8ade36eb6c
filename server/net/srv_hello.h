/* hello: a connection becomes a player, new, known by its token, or known to durable storage from
 * before a restart; it gets welcome and, when it resumed, its seats back (srv_rooms_identify()).
 */
#ifndef SRV_HELLO_H
#define SRV_HELLO_H

#include "srv_dispatch.h"

/* The hello handler (cmd borrowed). Returns 0, SRV_EAGAIN (already identified), SRV_ERATE (a new
 * player over its address's rate, srv_dispatch.players_per_addr), SRV_ENOMEM or SRV_EINTERNAL;
 * on error nothing changed. */
int srv_hello(srv_dispatch *d, srv_client *c, const srv_cmd *cmd);

#endif
