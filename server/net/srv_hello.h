/* hello: a connection becomes a player, new, known by its token, or known to durable storage from
 * before a restart; it gets welcome and, when it resumed, its seats back (srv_rooms_identify()).
 */
#ifndef SRV_HELLO_H
#define SRV_HELLO_H

#include "srv_dispatch.h"

/* The hello handler (cmd borrowed). Returns 0, SRV_EAGAIN (already identified), SRV_EBUSY (its
 * hello already waits for storage), SRV_ERATE (a new player over its address's rate,
 * srv_dispatch.players_per_addr), SRV_ENOMEM or SRV_EINTERNAL; on error nothing changed. A token
 * unknown in memory is looked for in durable storage first (srv_dispatch_store.restore): the
 * hello then goes on when storage answers, and its errors are sent from there. */
int srv_hello(srv_dispatch *d, srv_client *c, const srv_cmd *cmd);

/* c's connection is gone: a hello of c's waiting for storage is dropped when storage answers. */
void srv_hello_client_gone(srv_client *c);

#endif
