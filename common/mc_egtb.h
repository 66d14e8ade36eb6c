/* Endgame tables: the exact value of every position with few seeds left on the board.
 *
 * A table covers one game variant (Kalah with or without empty_capture, Oware in one grand slam
 * mode) for one number of houses m, every board with up to max_seeds seeds in its houses, for any
 * number of seeds per house at the start (the tables never look at n). Congkak is searched, not
 * tabled (docs/computer.md says why).
 *
 * What a table value means (docs/computer.md works through it):
 *   - Kalah: the future depends on the houses alone. The table holds, for the side to move, the
 *     best difference of the seeds the two sides will still put into their stores from the board.
 *     Value = store difference now + table value.
 *   - Oware: a store above half of all seeds ends the game with the houses as they are, so the
 *     future depends on the stores too, but only through d, the seeds the side to move still needs
 *     for that majority: the other side needs (board + 2 - d). The table holds the captured-seed
 *     difference for every (board, d), d = 1..board+1. Repetition (rule 6) makes a value depend on
 *     the positions played before (seeds can circle without a capture from most positions), so
 *     no table can hold exact values for all: it holds bounds [lo, hi] that hold for every
 *     history, exact where lo == hi (docs/computer.md gives the counts).
 * So a probe answers bounds on the final store difference for the side to move, valid whatever
 * happened before.
 *
 * A set (mc_egtb) holds any number of tables. Load them first (one thread); a set is then
 * read-only and may be shared by any number of searches in any threads.
 *
 * Files: one per table in the data directory, "<game>-<m>-<variant>.egtb", written to a temporary
 * name and renamed into place. Each starts with a header (magic, format version, variant, size)
 * and a 64-bit hash of the whole content: a file that fails the check is refused (and rebuilt when
 * building is allowed), never used.
 */
#ifndef MC_EGTB_H
#define MC_EGTB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mc_pos.h"
#include "mc_rules.h"

typedef struct mc_egtb mc_egtb;

/* Progress of a build: `name` (the file name, borrowed) has every board of up to `seeds` seeds
 * done, out of `max_seeds`. Called from the building thread. */
typedef void mc_egtb_progress_fn(void *arg, const char *name, int seeds, int max_seeds);

typedef struct mc_egtb_options {
  const char *dir; /* Data directory (borrowed); NULL: build in memory, write nothing. */
  int max_seeds;   /* Board seeds to cover; 0: mc_egtb_default_seeds(). */
  bool build;      /* Build a table that is missing, too small or corrupt. */
  const atomic_bool
      *cancel; /* When it becomes true a build stops with MC_ECANCELED (may be NULL). */
  mc_egtb_progress_fn *progress; /* May be NULL. */
  void *arg;                     /* Passed to progress. */
} mc_egtb_options;

/* Information about one table. */
typedef struct mc_egtb_info {
  mc_rules rules;    /* Game, houses and the variant option (seeds: the rules' default). */
  int max_seeds;     /* Every board with up to this many seeds is covered. */
  uint64_t entries;  /* Values stored. */
  uint64_t bytes;    /* Size of the file (header included). */
  uint64_t hash;     /* The content hash the header carries (verified). */
  uint64_t open;     /* Entries whose bounds are not exact (Oware repetition), 0 for Kalah. */
  double build_secs; /* Time the build took, as recorded in the header. */
  char name[64];     /* File name. */
} mc_egtb_info;

/* Returns a new empty set (free it with mc_egtb_free()), or NULL when memory runs out. */
mc_egtb *mc_egtb_new(void);

/* Frees the set and every table in it. NULL is allowed. No search may still use it. */
void mc_egtb_free(mc_egtb *tb);

/* Returns 1 when rules' game and variant can be tabled (Kalah, Oware), 0 otherwise. */
int mc_egtb_supported(const mc_rules *rules);

/* The board seeds a default table of this variant covers (what builds in a few minutes on two
 * cores and stays small on disk: docs/computer.md), 0 when the variant is not tabled. */
int mc_egtb_default_seeds(const mc_rules *rules);

/* Returns the number of values a table of rules' variant covering max_seeds board seeds holds (one
 * byte each for Kalah, two for Oware), or UINT64_MAX for a size the index cannot hold or a
 * variant that is not tabled. */
uint64_t mc_egtb_entries(const mc_rules *rules, int max_seeds);

/* Writes the file name of rules' table ("kalah-6-standard.egtb"...) into buf (snprintf rules);
 * returns its length or MC_EINVAL (not a tabled variant). */
int mc_egtb_file_name(const mc_rules *rules, char *buf, size_t size);

/* Adds the table of rules' variant and number of houses to tb: read from opts->dir when a file
 * there covers opts->max_seeds and passes its check; otherwise, when opts->build, built (and
 * written to opts->dir when not NULL). A table already in the set for the same variant is
 * replaced only by a larger one. Returns 0; MC_EINVAL (bad arguments, Congkak, max_seeds beyond
 * what the index can hold); MC_EIO (no file and no building allowed, or a file that cannot be
 * read or written; errno tells why); MC_ECORRUPT (a corrupt or foreign file and no building
 * allowed); MC_ENOMEM; MC_ECANCELED (opts->cancel). On error the set is unchanged. */
int mc_egtb_load(mc_egtb *tb, const mc_rules *rules, const mc_egtb_options *opts);

/* Adds the default tables: Kalah with 6 houses with and without empty_capture, Oware with 6
 * houses in each grand slam mode, each at mc_egtb_default_seeds() (opts->max_seeds ignored).
 * Stops at the first error (tables already added stay) and returns it. */
int mc_egtb_load_defaults(mc_egtb *tb, const mc_egtb_options *opts);

/* What a table knows of a position, in seeds of final store difference for the side to move
 * (its store minus the other, at the end of the game). */
typedef struct mc_egtb_value {
  int lo, hi; /* Bounds that hold whatever the history of the game; lo == hi: the exact value. */
} mc_egtb_value;

/* Looks pos up. Returns 1 and fills *v; 0 when no table in tb covers pos (another game or
 * variant, more seeds on the board, an Oware majority); MC_EINVAL for NULL arguments. It trusts
 * pos to be a valid position of rules (a finished Kalah position gets its final value).
 * Thread-safe. */
int mc_egtb_probe(const mc_egtb *tb, const mc_rules *rules, const mc_pos *pos, mc_egtb_value *v);

/* Returns the board seeds tb covers for rules' variant, or -1 when it has no such table. */
int mc_egtb_max_seeds(const mc_egtb *tb, const mc_rules *rules);

/* Fills info for table i of the set (0-based, in the order added). Returns 0 or MC_EINVAL. */
int mc_egtb_table_info(const mc_egtb *tb, int i, mc_egtb_info *info);

/* Number of tables in the set. */
int mc_egtb_count(const mc_egtb *tb);

/* Reads the table file at path and checks its header and hash; fills info (when not NULL).
 * Returns 0, MC_EIO or MC_ECORRUPT. */
int mc_egtb_verify(const char *path, mc_egtb_info *info);

#endif
