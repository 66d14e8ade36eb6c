/* Text forms of rules, positions, move lists and game records.
 *
 * Rules:    "<game> <m>x<n>[ <option>...]", options "empty_capture", "grand_slam=<mode>",
 *           "lap_capture", "rounds=match", "burn=match" (Congkak match games stored under the
 *           old burn rule, see mc_burn), "pie" (every game); e.g. "oware 6x4 grand_slam=forbidden
 *           pie". Parsing also takes the defaults "rounds=single" and "burn=round", in any order.
 * Position: the pits in rule book order, stores in parentheses, burnt houses as "x", then the side
 *           to move, then " round <r> first <seat>" when not round 1 with South first; e.g.
 *           "4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) south".
 * Moves:    house numbers 1..9, or "swap" for the swap of the pie rule (MC_SWAP), separated by
 *           single spaces; e.g. "3 swap 6 1". Parsing accepts any run of spaces, tabs, newlines
 *           and commas between them.
 * Record:   the rules line, a newline, the moves line, a newline.
 *
 * Every format function writes at most size bytes (NUL included) like snprintf() and returns the
 * length the full text needs (without the NUL); when that is >= size the text was cut. Every parse
 * function returns 0 or a negative MC_E* code and, on MC_ESYNTAX or MC_EILLEGAL, fills *err (when
 * not NULL) with the byte offset of the offending place and a sentence. Outputs are untouched on
 * error. parse(format(x)) == x for every valid x.
 */
#ifndef MC_TEXT_H
#define MC_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "mc_game.h"
#include "mc_pos.h"
#include "mc_rules.h"

typedef struct mc_text_error {
  size_t offset;     /* Byte offset into the parsed text. */
  char message[112]; /* A sentence without a trailing newline. */
} mc_text_error;

int mc_rules_format(const mc_rules *rules, char *buf, size_t size);
int mc_rules_parse(const char *text, mc_rules *rules, mc_text_error *err);

int mc_pos_format(const mc_pos *pos, char *buf, size_t size);
int mc_pos_parse(const char *text, mc_pos *pos, mc_text_error *err);

/* One move as text: "1".."9" or "swap" (MC_SWAP); anything else is MC_EINVAL. */
int mc_move_format(int move, char *buf, size_t size);

/* Parses at most cap moves into moves and sets *n. More than cap moves is MC_ESYNTAX. */
int mc_moves_format(const uint8_t *moves, size_t n, char *buf, size_t size);
int mc_moves_parse(const char *text, uint8_t *moves, size_t cap, size_t *n, mc_text_error *err);

/* Replays the moves of text (a moves line) from the start of rules into a new game stored in
 * *game (the caller frees it). An illegal move is MC_EILLEGAL with err->offset at that move;
 * a move after the end of the game is MC_EOVER, also with its offset. */
int mc_moves_replay(const mc_rules *rules, const char *text, mc_game **game, mc_text_error *err);

/* A whole record: rules line and moves line. */
int mc_record_format(const mc_game *game, char *buf, size_t size);
int mc_record_parse(const char *text, mc_game **game, mc_text_error *err);

#endif
