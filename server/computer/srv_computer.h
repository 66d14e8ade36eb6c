/* The computer's searches: the thinker of the rooms (srv_room_thinker), on the libuv thread pool.
 *
 * When a room tells it that the computer is to move, it copies the room's game (the position and
 * the history the repetition rule needs) into a job, on the loop thread; a worker thread searches
 * the copy with a search context of its own (mc_search_game()) and never sees a room. Back on the
 * loop thread, the after-work callback plays the move through srv_room_computer_move(), which
 * checks that the room still plays the same game at the same ply; a job whose room stopped
 * wanting it (game over, room closed, the position changed) was cancelled and detached, and its
 * result is dropped. The loop thread is the only one that touches rooms and jobs' links.
 *
 * At most `threads` searches run at once; the others wait in a FIFO queue, whose length is bounded
 * by the rooms' cap of games against the computer (one job a room at most). A search gets the
 * lesser of `ms` and a share of its clock (docs/computer.md).
 */
#ifndef SRV_COMPUTER_H
#define SRV_COMPUTER_H

#include <uv.h>

#include "srv_room.h"

typedef struct srv_computer srv_computer;

typedef struct srv_computer_config {
  int ms;               /* Level 6's budget a move, and every level's cap. */
  int threads;          /* Searches at once (1..). */
  const char *data_dir; /* Where the endgame tables are (borrowed); NULL: none. */
} srv_computer_config;

/* Returns a new thinker for rooms on loop (both borrowed; they must outlive it), or NULL when
 * memory runs out. It loads the endgame tables found in cfg->data_dir (none built here: `mancala
 * egtb build` builds them) and sets itself as the rooms' thinker. */
srv_computer *srv_computer_new(uv_loop_t *loop, srv_rooms *rooms, const srv_computer_config *cfg);

/* Frees it. Every job must be over: call after uv_run() returned (the rooms' shutdown cancels the
 * searches; the loop runs until their callbacks are done). NULL is allowed. */
void srv_computer_free(srv_computer *c);

/* Searches running and waiting now. */
void srv_computer_counts(const srv_computer *c, int *running, int *waiting);

#endif
