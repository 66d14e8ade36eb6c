/* Player names: the rules of an account name, the rules every display name follows, and the key
 * that says when two names are the same name to a reader.
 *
 * The key folds what a reader cannot tell apart: Unicode normalisation (a letter with its accent
 * written as one code point or as two is the same letter, fullwidth forms are ASCII), case
 * (Latin, Cyrillic, Greek), accents (e, é, ê and ė are one letter), the letters of other scripts
 * that look like Latin ones (Cyrillic "а", Greek "Ο"), look-alike digits and letters (0 and o;
 * 1, i, I, l and |), the pairs "rn" (m) and "vv" (w), and everything that is not a letter or a
 * digit (spaces, punctuation, invisible characters). Two accounts never share a key, and a guest
 * may not take a name whose key is an account's. The tables cover the scripts the players write
 * in (Latin with the accents of English, French, Portuguese and Polish; Cyrillic; the Greek
 * letters that look Latin); a code point outside them is kept as it is.
 *
 * Account names are 3 to 20 letters and digits with "_" and "-" between them (never two in a row,
 * never at an end), start with a letter, and write their letters in one script, Latin or
 * Cyrillic. Reserved words (the computer's name in every language of the client, "admin...",
 * "guest..." and a few others) cannot be taken; a guest may still call itself "Guest ...".
 *
 * The display-name check (srv_name_check()) is the one every name a person chooses for others to
 * read goes through (hello's name): it must show something and must not reorder the text around
 * it. Its character rule is srv_text_unsafe() (srv_text.h), the one chat lines are cleaned by,
 * with the plain bidirectional marks refused as well.
 *
 * A second, wider comparison is the skeleton of Unicode's TR39 (srv_names_skeleton(), ICU's
 * uspoof_getSkeleton()): it knows every script's look-alikes (Latin "ɡ", the Kelvin sign, Lisu,
 * Armenian, Cherokee, mathematical letters...). A guest may not take a name whose skeleton is an
 * account's either (srv_taken.h).
 *
 * Pure functions but srv_names_skeleton() (ICU's tables, opened once, never freed); no allocation
 * of the caller's. Every name is UTF-8.
 */
#ifndef SRV_NAMES_H
#define SRV_NAMES_H

#include <stddef.h>

/* An account name's length in code points. */
#define SRV_ACCOUNT_NAME_MIN 3
#define SRV_ACCOUNT_NAME_MAX 20
/* Bytes of a key, NUL included: a key is never longer than the name it is made from. */
#define SRV_NAME_KEY_SIZE 97

/* Writes the key of name (borrowed) into key (size bytes). Returns its length, or -1 when name is
 * not valid UTF-8 or the key does not fit (key is then ""). A name without a letter or a digit
 * has the empty key. */
int srv_names_key(const char *name, char *key, size_t size);

/* Bytes of a skeleton, NUL included (enough for every name of SRV_NAME_SIZE bytes but the
 * rarest expansions, which fail). */
#define SRV_NAME_SKELETON_SIZE 512

/* Writes the TR39 skeleton of name (borrowed) into out (size bytes), case-insensitive: what the
 * display-name check calls invisible dropped (srv_name_check()), then ICU's skeleton, then twice
 * NFKC_Casefold and the skeleton again (so "I" -> "l", and "ꓟ" -> "M" -> "m" -> "rn"), then only
 * letters and digits kept. Two names
 * with one skeleton read as one name. Returns its length in bytes (0: nothing a reader sees), or
 * -1 when name is not valid UTF-8, ICU cannot start, or it does not fit (out is then ""). Safe
 * from any thread. */
int srv_names_skeleton(const char *name, char *out, size_t size);

/* Checks an account name and writes its normal form (composed letters, fullwidth forms made
 * ASCII) into out (out_size bytes, SRV_NAME_SIZE is enough) and its key into key
 * (SRV_NAME_KEY_SIZE bytes). Returns 0, SRV_ENAMEINVALID (length, characters, separators, mixed
 * scripts) or SRV_ENAMERESERVED; *why (when not NULL) gets a static English phrase saying what
 * is wrong. */
int srv_names_account(const char *name, char *out, size_t out_size, char *key, const char **why);

/* The check every display name passes (a guest's name in hello): it must not be a reserved word,
 * but "Guest ..." is a guest's name. Writes its key into key (SRV_NAME_KEY_SIZE bytes). Returns 0,
 * SRV_ENAMERESERVED or SRV_ENAMEINVALID (not UTF-8). Whether an account owns the key is the
 * caller's question (srv_account.h). */
int srv_names_display(const char *name, char *key);

/* Characters (code points) a name may have after trimming. */
#define SRV_NAME_CHARS 24

/* Checks the name of len bytes at s (borrowed; valid UTF-8, as the JSON decoder gives it) after
 * trimming spaces at both ends: 1..SRV_NAME_CHARS characters; no character srv_text_unsafe()
 * refuses (control characters; the bidirectional embeddings, overrides and isolates) and no
 * bidirectional mark (U+061C, U+200E, U+200F), which would reorder what follows the name; and at
 * least one visible character: a name of only spaces of any kind, zero-width characters, fillers,
 * joiners, variation selectors, tags or combining marks is refused. Writes the trimmed name into
 * out (size bytes, NUL-terminated) and returns 0, or returns SRV_EBADREQ (out untouched). */
int srv_name_check(const char *s, size_t len, char *out, size_t size);

#endif
