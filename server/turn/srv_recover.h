/* Recovery at start: rebuilds every room the store knows (call before the server listens), the
 * players seated in them, their settings, seats, status and game number, each game replayed
 * through the engine. A stored move that does not replay is logged and dropped with every move
 * after it (the game resumes from the valid prefix); a game whose result is missing although its
 * last move ended it gets its result recorded; a playing room whose game's start never became
 * durable starts that game again. Clocks resume from each side's time after its own last move
 * (the downtime is not charged).
 */
#ifndef SRV_RECOVER_H
#define SRV_RECOVER_H

#include "srv_ident.h"
#include "srv_room.h"
#include "srv_store.h"
#include "srv_time.h"

/* Rebuilds the rooms of store into rooms (all borrowed), adopting their players into ident, and
 * commits what it had to write. Returns 0, or SRV_ESTORAGE / SRV_ENOMEM when the store cannot be
 * read (after logging it). */
int srv_recover(srv_store *store, srv_ident *ident, srv_rooms *rooms, srv_time *time);

/* Rebuilds the one room code (borrowed) the same way from rec (stolen: the room as
 * srv_store_recover_room() read it, through a reader off the loop): a cluster's node taking a room
 * over from one that stopped. What it repairs joins the open batch (the turn commits it). Returns
 * 0, SRV_ENOTFOUND when rec has no open room code (or it could not be brought back), SRV_ESTORAGE
 * / SRV_ENOMEM. */
int srv_recover_room_from(srv_store *store, srv_ident *ident, srv_rooms *rooms, srv_time *time,
                          const char *code, srv_store_recovery *rec);

#endif
