/* The one dispatch: a frame from a client is decoded, checked for hello, handed to its handler,
 * and any error becomes one error frame (echoing the request id), one metric and, at debug level,
 * one log line.
 */
#ifndef SRV_DISPATCH_H
#define SRV_DISPATCH_H

#include <stddef.h>

#include "srv_ident.h"
#include "srv_room.h"

/* Durable storage's part in hello (all NULL without storage). */
typedef struct srv_dispatch_store {
  /* A token unknown in memory: returns the player storage knows for it, adopted into the
   * registry, with a new reference (the caller's), or NULL. */
  srv_player *(*restore)(void *ud, const char *token);
  /* Every hello: records the player (borrowed), new or known. Errors are logged. */
  void (*player)(void *ud, const srv_player *player);
  void *ud;
} srv_dispatch_store;

typedef struct srv_dispatch {
  srv_rooms *rooms;
  srv_ident *ident;
  srv_dispatch_store store;
} srv_dispatch;

/* Handles one complete text frame (buf, len; borrowed) from c. Never fails: errors are sent. */
void srv_dispatch_frame(srv_dispatch *d, srv_client *c, const char *buf, size_t len);

/* Sends an error frame for err to c (the one place errors become frames). id, field and request
 * are borrowed and may be NULL. */
void srv_dispatch_error(srv_dispatch *d, srv_client *c, int err, const srv_req_id *id,
                        const char *field, const char *request);

#endif
