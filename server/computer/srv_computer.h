/* The computer's searches: the thinker of the rooms (srv_room_thinker), fair across games.
 *
 * When a room tells it that the computer is to move, it asks for that position's move: a game
 * has at most one search asked for (a newer position replaces the older search, which is
 * cancelled), so games take turns in the order they asked, and none gets a second search ahead
 * of another's first. Where the search runs depends on its level:
 *   - levels 1-3 on the loop thread itself, in callbacks of their own of at most
 *     SRV_COMPUTER_LOOP_BATCH searches each (a search there costs at most a few hundredths of a
 *     millisecond at levels 1-2 and well under one at level 3: docs/computer.md), never behind any
 *     queue;
 *   - level 4 in the search queue's fast lane, 5-6 in its deep lane (srv_search_queue.h), where
 *     a long lane cuts the budget of a deep search rather than make games wait.
 * The answer is played through srv_room_computer_move(), which checks that the room still plays
 * the same game at the same ply; a room that stopped wanting it (game over, resigned, closed, the
 * position changed) has had its search cancelled. The loop thread is the only one that touches
 * rooms. A search gets the lesser of `ms` and a share of its clock (docs/computer.md).
 */
#ifndef SRV_COMPUTER_H
#define SRV_COMPUTER_H

#include "srv_room.h"
#include "srv_search_queue.h"
#include "srv_time.h"

/* Levels up to this one are searched on the loop thread. */
#define SRV_COMPUTER_LOOP_LEVEL 3
/* Loop searches run in one callback at most; the others wait for the next (people's messages are
 * read in between). */
#define SRV_COMPUTER_LOOP_BATCH 16
/* Levels up to this one go to the fast lane; above it, the deep lane. */
#define SRV_COMPUTER_FAST_LEVEL 4

typedef struct srv_computer srv_computer;

typedef struct srv_computer_config {
  int ms; /* Level 6's budget a move, and every level's cap. */
} srv_computer_config;

/* Returns a new thinker for rooms, searching through queue and deferring its loop searches on
 * time (all borrowed; they must outlive it), or NULL when memory runs out. It sets itself as the
 * rooms' thinker. */
srv_computer *srv_computer_new(srv_rooms *rooms, srv_search_queue *queue, srv_time *time,
                               const srv_computer_config *cfg);

/* Frees its timer: call on the loop thread while the loop runs, after the rooms are gone. */
void srv_computer_close(srv_computer *c);

/* Frees it. The rooms must be gone (their shutdown cancelled every search). NULL is allowed. */
void srv_computer_free(srv_computer *c);

/* Games waiting for a search on the loop thread (levels 1-3) now. */
int srv_computer_loop_waiting(const srv_computer *c);

#endif
