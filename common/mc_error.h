/* Error codes of the rules engine.
 *
 * Every engine function that can fail returns a negative MC_E* code (libuv style) and leaves its
 * outputs unchanged; zero or a positive count means success.
 */
#ifndef MC_ERROR_H
#define MC_ERROR_H

enum {
  MC_EINVAL = -1,   /* An argument is out of range (bad rules, house number, NULL buffer...). */
  MC_EILLEGAL = -2, /* The move is not legal in this position. */
  MC_EOVER = -3,    /* The game is over: no move can be played. */
  MC_ESYNTAX = -4,  /* Malformed text (see mc_text.h for the offending place). */
  MC_ENOMEM = -5,   /* Out of memory. */
  MC_ELIMIT = -6,   /* An internal bound was hit; cannot happen with valid rules (rule book 9). */
  MC_EIO = -7,      /* A file could not be read, written or renamed (errno tells why). */
  MC_ECORRUPT = -8, /* A file is not what it claims to be: bad header or a failed hash check. */
  MC_ECANCELED = -9 /* The caller's cancel flag stopped a long computation. */
};

/* Returns a static English sentence for an MC_E* code, or "unknown error". Never NULL. */
const char *mc_strerror(int err);

/* Returns the symbolic name of an MC_E* code ("EILLEGAL"...), or "EUNKNOWN". Never NULL. */
const char *mc_err_name(int err);

#endif
