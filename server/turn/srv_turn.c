/* The end of a loop turn (see srv_turn.h). */
#include "srv_turn.h"

#include "srv_error.h"

void srv_turn_end(void *arg) {
  srv_turn *t = arg;
  if (t->lobby != NULL)
    srv_lobby_flush(t->lobby);
  /* Commit. */
  const srv_persist_lost *lost = NULL;
  int n = t->persist != NULL ? srv_persist_commit(t->persist, &lost) : 0;
  /* Settle. */
  for (int i = 0; i < n; i++) {
    const srv_persist_lost *l = &lost[i];
    if (srv_rooms_store_lost(t->rooms, l->room, l->game, l->ply, l->game_lost, SRV_ESTORAGE) ==
        SRV_ENOTFOUND)
      srv_persist_room_gone(t->persist, l->room); /* Its closing may be what was lost. */
  }
  /* Encode. */
  srv_rooms_flush(t->rooms);
  if (t->myrooms != NULL)
    srv_myrooms_flush(t->myrooms);
  /* Release. */
  if (t->net.release != NULL)
    t->net.release(t->net.ud);
}
