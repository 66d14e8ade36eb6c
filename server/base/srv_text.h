/* Text people type for others to read: chat lines cleaned up, names checked.
 *
 * Two kinds of characters have no place in such text. Control characters (C0, DEL, C1) can break
 * the layout or the logs of whoever shows it; a tab or a line break becomes a space, the others
 * are dropped. Bidirectional formatting characters that reorder what follows them (the embeddings
 * and overrides U+202A..U+202E and the isolates U+2066..U+2069) can make a line read as something
 * else (a name that looks like another's, a spoofed line): they are dropped. The plain marks
 * (U+200E, U+200F, U+061C) only order neutral characters and stay.
 */
#ifndef SRV_TEXT_H
#define SRV_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Whether code point cp is a control character or a bidirectional embedding, override or
 * isolate. */
bool srv_text_unsafe(unsigned cp);

/* Cleans the len bytes of valid UTF-8 at s (borrowed) into out (size bytes, NUL-terminated): tabs
 * and line breaks become spaces, other control characters and the reordering bidirectional
 * characters are dropped, and spaces at both ends are trimmed. Returns the number of characters
 * (code points) written, or -1 when the result does not fit in size bytes or is not min..max
 * characters long (out is then unspecified). */
long srv_text_clean(const char *s, size_t len, char *out, size_t size, long min, long max);

#endif
