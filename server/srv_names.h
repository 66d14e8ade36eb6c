/* Display names: the one check every name a person chooses goes through (hello's name today;
 * account names use the same function). A name is what other players read in rooms and in the
 * lobby, so it must show something and must not reorder the text around it.
 */
#ifndef SRV_NAMES_H
#define SRV_NAMES_H

#include <stddef.h>

/* Characters (code points) a name may have after trimming. */
#define SRV_NAME_CHARS 24

/* Checks the name of len bytes at s (borrowed; valid UTF-8, as the JSON decoder gives it) after
 * trimming spaces at both ends: 1..SRV_NAME_CHARS characters; no control character (C0, DEL,
 * C1); no bidirectional control (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069), which
 * would reorder what follows the name; and at least one visible character: a name of only spaces
 * of any kind, zero-width characters, fillers, joiners, variation selectors, tags or combining
 * marks is refused. Writes the trimmed name into out (size bytes, NUL-terminated) and returns 0,
 * or returns SRV_EBADREQ (out untouched). */
int srv_name_check(const char *s, size_t len, char *out, size_t size);

#endif
