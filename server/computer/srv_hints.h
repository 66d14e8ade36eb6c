/* Hints for the rooms (srv_room_hinter, srv_room.h): each hint is a search job of the search
 * queue's fast lane (srv_search_queue.h) at full strength without noise (level 6, the endgame
 * tables included), on a modest budget that the lane cuts further under load. The answer (the
 * best move, its value for the side to move, whether it is proven) goes back to the room, which
 * gives it to the asker if the position is still the one asked about. A search the room no longer
 * wants (its asker left, the room closed) is cancelled. Everything runs on the loop thread but
 * the search itself.
 */
#ifndef SRV_HINTS_H
#define SRV_HINTS_H

#include "srv_room.h"
#include "srv_search_queue.h"

typedef struct srv_hints srv_hints;

typedef struct srv_hints_config {
  long ms;        /* The most a hint's search may take (the fast lane may cut it). */
  int per_minute; /* Hints one seat of a room may ask for a minute (and at once); 0: none. */
} srv_hints_config;

/* Returns the rooms' hinter searching through queue (borrowed; it must outlive it), set as the
 * rooms' hinter, or NULL when memory runs out. */
srv_hints *srv_hints_new(srv_rooms *rooms, srv_search_queue *queue, const srv_hints_config *cfg);

/* Frees it, cancelling the searches still asked for (the rooms are gone, or going: they cancel
 * theirs first). NULL is allowed. */
void srv_hints_free(srv_hints *h);

/* Hint searches asked for and not answered yet. */
int srv_hints_pending(const srv_hints *h);

#endif
