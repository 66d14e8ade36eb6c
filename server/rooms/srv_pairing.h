/* Quick pairing's choice: among the rooms of a pool that a seeker could join (the candidates),
 * which one. Pure: the rooms collect the candidates (srv_room_join.c), this only chooses, so that
 * however pools are formed (game, board, clock, rated or not), the choice is the same.
 *
 * The rule: a candidate whose waiting player's rating is within range of the seeker's is a match;
 * the range starts at SRV_PAIR_RANGE_MIN and widens by SRV_PAIR_RANGE_PER_S per second the
 * candidate has waited, up to SRV_PAIR_RANGE_MAX. The oldest match wins (first come, first
 * served). When no candidate is a match, the closest rating wins (the oldest of equals): with one
 * candidate there is no choice, and nobody waits for a better opponent who is not there.
 */
#ifndef SRV_PAIRING_H
#define SRV_PAIRING_H

#include <stddef.h>
#include <stdint.h>

#define SRV_PAIR_RANGE_MIN 150.0
#define SRV_PAIR_RANGE_PER_S 5.0
#define SRV_PAIR_RANGE_MAX 500.0

typedef struct srv_pair_candidate {
  double rating;      /* The waiting player's rating in the pool's game. */
  uint64_t waited_ms; /* How long it has waited. */
} srv_pair_candidate;

/* Returns the index in c (n candidates, oldest first, borrowed) of the one a seeker of rating
 * rating joins, or -1 when n is 0. */
int srv_pair_choose(double rating, const srv_pair_candidate *c, size_t n);

#endif
