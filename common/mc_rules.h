/* Game variants: which game, the board size and the rule book's options.
 *
 * An mc_rules is a small caller-owned value. Start from mc_rules_init() and change fields; every
 * function that takes rules checks them with mc_rules_check() first.
 */
#ifndef MC_RULES_H
#define MC_RULES_H

#include <stdbool.h>
#include <stdint.h>

#define MC_MIN_HOUSES 1
#define MC_MAX_HOUSES 9
#define MC_MIN_SEEDS 1
#define MC_MAX_SEEDS 12
/* Pits in the ring: 2m houses and 2 stores. */
#define MC_MAX_PITS (2 * MC_MAX_HOUSES + 2)
/* Match rounds in Congkak (rule book, Congkak 7). */
#define MC_MAX_ROUNDS 9

typedef enum mc_kind { MC_KALAH = 0, MC_OWARE = 1, MC_CONGKAK = 2 } mc_kind;

typedef enum mc_seat { MC_SOUTH = 0, MC_NORTH = 1 } mc_seat;

typedef enum mc_grand_slam {
  MC_GS_NO_CAPTURE = 0, /* Legal, captures nothing (default). */
  MC_GS_FORBIDDEN = 1, /* Illegal unless every legal move is a grand slam; then captures nothing. */
  MC_GS_CAPTURE = 2    /* The capture stands. */
} mc_grand_slam;

/* How long a Congkak house stays burnt in a match (rule book, Congkak 7). */
typedef enum mc_burn {
  MC_BURN_ROUND = 0, /* For the next round only: burning is decided afresh at every round end
                      * (the rule book's rule, and the default). */
  MC_BURN_MATCH = 1  /* For the rest of the match: the rule of an earlier edition of the rule book,
                      * kept only so that games stored under it replay as they were played. It is
                      * never a player's option (the protocol does not offer it). */
} mc_burn;

typedef struct mc_rules {
  mc_kind kind;
  uint8_t houses;           /* m, 1..9 */
  uint8_t seeds;            /* n, 1..12 */
  bool empty_capture;       /* Kalah only. */
  mc_grand_slam grand_slam; /* Oware only. */
  bool lap_capture;         /* Congkak only. */
  bool match;               /* Congkak only: rounds = match (false: single). */
  mc_burn burn;             /* Congkak match only: MC_BURN_ROUND but for old stored games. */
  bool pie;                 /* Every game (rule book, option `pie`): after the first player's
                             * first turn the second may swap sides (mc_game.h, MC_SWAP). */
} mc_rules;

/* Fills *rules with the defaults of kind: Kalah 6x4, Oware 6x4, Congkak 7x7, every option off.
 * Returns 0, or MC_EINVAL for an unknown kind (rules untouched). */
int mc_rules_init(mc_rules *rules, mc_kind kind);

/* Returns 0 when rules are usable, else MC_EINVAL: unknown kind, grand slam or burn mode, houses or
 * seeds out of range, or an option set on a game it does not belong to (burn = MC_BURN_MATCH
 * belongs to a Congkak match only). */
int mc_rules_check(const mc_rules *rules);

/* Returns the lower-case name of a game ("kalah", "oware", "congkak"), or NULL for an unknown kind.
 */
const char *mc_kind_name(mc_kind kind);

/* Parses a game name (exact lower-case). Returns 0 and sets *kind, or MC_EINVAL. */
int mc_kind_parse(const char *name, mc_kind *kind);

/* Returns "no_capture", "forbidden" or "capture", or NULL for an unknown mode. */
const char *mc_grand_slam_name(mc_grand_slam mode);

/* Parses a grand slam mode name. Returns 0 and sets *mode, or MC_EINVAL. */
int mc_grand_slam_parse(const char *name, mc_grand_slam *mode);

/* Returns "round" or "match", or NULL for an unknown mode. */
const char *mc_burn_name(mc_burn mode);

/* Parses a burn mode name. Returns 0 and sets *mode, or MC_EINVAL. */
int mc_burn_parse(const char *name, mc_burn *mode);

/* Returns "south" or "north" (NULL for anything else). */
const char *mc_seat_name(mc_seat seat);

/* Total seeds in play: 2 * houses * seeds. */
static inline unsigned mc_rules_total(const mc_rules *rules) {
  return 2u * rules->houses * rules->seeds;
}

#endif
