/* The one dispatch (Mosquitto's read_handle.c): a frame from a client is decoded, checked for
 * hello, handed to the handler of its type from one table, and any error becomes one error frame
 * (echoing the request id; srv_send_error(), one metric and, at debug level, one log line). The
 * dispatch also says a client is gone. Sending is srv_send.h's: handlers send through it, never
 * through the dispatch.
 *
 * Handlers live with what they change: srv_hello.c (identity), srv_room_*.c (rooms and games),
 * srv_lobby.c (the lobby).
 */
#ifndef SRV_DISPATCH_H
#define SRV_DISPATCH_H

#include <stddef.h>

#include "srv_ident.h"
#include "srv_lobby.h"
#include "srv_myrooms.h"
#include "srv_room.h"
#include "srv_send.h"

/* Durable storage's part in hello (all NULL without storage). */
typedef struct srv_dispatch_store {
  /* A token unknown in memory: looks for the player storage knows for it, through the storage
   * seam's reads (a network database's round trip is not waited for on the loop). done(arg,
   * player) comes on the loop thread, before restore returns or later, with the player adopted
   * into the registry and a new reference (the callee's to give back), or NULL (unknown, or
   * storage failed: logged). Returns 0 when done was or will be called, or a negative SRV_E*
   * code (done is never called). */
  int (*restore)(void *ud, const char *token, void (*done)(void *arg, srv_player *player),
                 void *arg);
  /* A hello that renames a player it knows: records the new name (player borrowed). A new
   * player is not recorded by hello: storage records it when it first sits down (a room's seat).
   * Errors are logged. */
  void (*player)(void *ud, const srv_player *player);
  void *ud;
} srv_dispatch_store;

struct srv_accounts;

/* What the handlers work on; all borrowed, owned by main. */
typedef struct srv_dispatch {
  srv_rooms *rooms;
  srv_lobby *lobby;
  srv_myrooms *myrooms;
  srv_ident *ident;
  srv_sink sink;
  srv_dispatch_store store;
  /* New players (hello without a known token) per client address (srv_client.peer): at most
   * players_per_addr a minute, as many at once, on time's clock; 0 or time NULL: no limit. */
  srv_time *time;
  int players_per_addr;
  struct srv_accounts *accounts; /* NULL: the account commands are unsupported. */
  /* A cluster's router (server/cluster/srv_cluster.h; all NULL: one process). route sees every
   * decoded command of an identified connection of this node before its handler: it returns 1
   * when it took the frame (buf, len: the command as it came; a room run by another node, a code to
   * reserve first: answered later), 0 to handle it here, or a negative SRV_E* code to answer.
   * gone: a connection of this node is gone (before the rooms hear of it). resumed: a hello
   * resumed a known player on c (its rooms here are given back already). */
  struct {
    int (*route)(void *ud, srv_client *c, const srv_cmd *cmd, const char *buf, size_t len);
    void (*gone)(void *ud, srv_client *c);
    void (*resumed)(void *ud, srv_client *c);
    void *ud;
  } router;
} srv_dispatch;

/* Handles one complete text frame (buf, len; borrowed) from c. Never fails: errors are sent. */
void srv_dispatch_frame(srv_dispatch *d, srv_client *c, const char *buf, size_t len);

/* Runs the handler of cmd (borrowed) for c through the dispatch table, hello check included, and
 * returns its result (0 or a negative SRV_E* code) without sending the error: what
 * srv_dispatch_frame() does after decoding. */
int srv_dispatch_command(srv_dispatch *d, srv_client *c, const srv_cmd *cmd);

/* Sends an error frame for err to c (the one place errors become frames). id, field and request
 * are borrowed and may be NULL. */
void srv_dispatch_error(srv_dispatch *d, srv_client *c, int err, const srv_req_id *id,
                        const char *field, const char *request);

/* Sends c the error err of cmd's handler (cmd borrowed), as srv_dispatch_frame() does: echoing its
 * id, naming its type and the field err is about. For a handler that answers later. */
void srv_dispatch_command_error(srv_dispatch *d, srv_client *c, int err, const srv_cmd *cmd);

/* c's connection is gone: it stops watching the lobby, leaves its rooms (keeping its seats) and
 * gives back its player. c can be freed afterwards. */
void srv_dispatch_client_gone(srv_dispatch *d, srv_client *c);

#endif
