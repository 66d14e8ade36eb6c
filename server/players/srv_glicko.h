/* Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2013): the rating arithmetic, and
 * nothing else. Pure functions of their arguments: no storage, no time, no allocation.
 *
 * A rating is kept on the Glicko scale (rating 1500, deviation 350 for a new player) with its
 * volatility; the conversion to the Glicko-2 scale (mu, phi) is internal. How the server uses it
 * (one rating period per game, deviation growing while a player is away) is srv_rating.h's
 * policy.
 */
#ifndef SRV_GLICKO_H
#define SRV_GLICKO_H

#include <stddef.h>

/* A new player's rating, deviation and volatility (the paper's suggested defaults). */
#define SRV_GLICKO_RATING 1500.0
#define SRV_GLICKO_RD 350.0
#define SRV_GLICKO_VOL 0.06
/* The system constant tau: how fast volatility may change (the paper suggests 0.3 to 1.2; its
 * example uses 0.5). */
#define SRV_GLICKO_TAU 0.5

typedef struct srv_glicko {
  double rating; /* Glicko scale: 1500 for a new player. */
  double rd;     /* Rating deviation, Glicko scale. */
  double vol;    /* Volatility (sigma). */
} srv_glicko;

/* One game of a rating period: the opponent's rating and deviation (before the period) and the
 * score, 1 for a win, 0.5 for a draw, 0 for a loss. */
typedef struct srv_glicko_game {
  double rating, rd;
  double score;
} srv_glicko_game;

/* Rates one period: player (borrowed) played the n games of games (borrowed) with tau as the
 * system constant. Writes the new rating into *out (it may be player). With n == 0 only the
 * deviation grows (step 6 of the paper: phi' = sqrt(phi^2 + sigma^2)). Returns 0, or -1 when an
 * argument is out of range (a deviation or volatility <= 0, a score outside 0..1, tau <= 0, a
 * non-finite number) with *out untouched. */
int srv_glicko_rate(const srv_glicko *player, const srv_glicko_game *games, size_t n, double tau,
                    srv_glicko *out);

/* Grows the deviation of r (in place) as periods rating periods without games would: phi'^2 =
 * phi^2 + periods * sigma^2, then caps it at max_rd. periods <= 0 changes nothing. */
void srv_glicko_idle(srv_glicko *r, double periods, double max_rd);

/* The expected score of a against b (0..1), the E of the paper on the Glicko-2 scale with b's
 * deviation: for pairing and for display. */
double srv_glicko_expect(const srv_glicko *a, const srv_glicko *b);

#endif
