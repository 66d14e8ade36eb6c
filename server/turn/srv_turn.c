/* The end of a loop turn (see srv_turn.h). */
#include "srv_turn.h"

#include "srv_error.h"

/* The batch t->sealed is committed or lost: settle, encode, release. */
static void turn_committed(void *arg, const srv_persist_lost *lost, int n) {
  srv_turn *t = arg;
  /* What this settles and encodes belongs to the batch: its frames go with the batch's own. */
  uint64_t open = t->net.restamp != NULL ? t->net.restamp(t->net.ud, t->cut) : 0;
  /* Settle. */
  for (int i = 0; i < n; i++) {
    const srv_persist_lost *l = &lost[i];
    if (srv_rooms_store_lost(t->rooms, l->room, l->game, l->ply, l->game_lost, SRV_ESTORAGE) ==
        SRV_ENOTFOUND)
      srv_persist_room_gone(t->persist, l->room); /* Its closing may be what was lost. */
  }
  /* Encode. */
  srv_rooms_flush(t->rooms, t->sealed);
  if (t->myrooms != NULL)
    srv_myrooms_flush(t->myrooms);
  if (t->net.restamp != NULL)
    (void)t->net.restamp(t->net.ud, open);
  /* Release. */
  if (t->net.release != NULL)
    t->net.release(t->net.ud, t->cut);
}

void srv_turn_end(void *arg) {
  srv_turn *t = arg;
  if (t->lobby != NULL)
    srv_lobby_flush(t->lobby);
  if (t->persist != NULL && srv_persist_busy(t->persist)) {
    /* A batch is in flight: this turn's writes wait for the next one, and so does every frame of
     * the turn (a reply to a request whose writes are in that batch, as much as a room's state).
     */
    return;
  }
  /* Commit. */
  t->sealed = srv_rooms_seal(t->rooms);
  t->cut = t->net.cut != NULL ? t->net.cut(t->net.ud) : 0;
  if (t->persist != NULL)
    srv_persist_commit(t->persist, turn_committed, t);
  else
    turn_committed(t, NULL, 0);
}
