/* The end of a loop turn (see srv_turn.h). */
#include "srv_turn.h"

#include "srv_error.h"

void srv_turn_end(void *arg) {
  srv_turn *t = arg;
  if (t->lobby != NULL)
    srv_lobby_flush(t->lobby);
  const srv_persist_lost *lost = NULL;
  int n = t->persist != NULL ? srv_persist_commit(t->persist, &lost) : 0;
  for (int i = 0; i < n; i++) {
    const srv_persist_lost *l = &lost[i];
    if (srv_rooms_find(t->rooms, l->room) == NULL) {
      /* The room closed during the turn: its closing may be what was lost. */
      srv_persist_room_gone(t->persist, l->room);
      continue;
    }
    int dropped = t->net.drop_room != NULL ? t->net.drop_room(t->net.ud, l->room) : 0;
    srv_rooms_store_lost(t->rooms, l->room, l->game, l->ply, l->game_lost, SRV_ESTORAGE,
                         dropped > 0);
  }
  if (n > 0 && t->net.answer_dropped != NULL)
    t->net.answer_dropped(t->net.ud);
  if (t->myrooms != NULL)
    srv_myrooms_flush(t->myrooms);
  if (t->net.release != NULL)
    t->net.release(t->net.ud);
}
