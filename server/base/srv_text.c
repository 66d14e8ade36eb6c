/* Text people type for others to read (see srv_text.h). */
#include "srv_text.h"

#include <string.h>

bool srv_text_unsafe(unsigned cp) {
  return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

/* Decodes the code point at s[i] (valid UTF-8 of n bytes) into *cp; returns its length in bytes, or
 * 0 when the sequence is cut short. */
static size_t decode(const char *s, size_t n, size_t i, unsigned *cp) {
  unsigned char c = (unsigned char)s[i];
  size_t k = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
  if (i + k > n)
    return 0;
  unsigned v = k == 1 ? c : k == 2 ? c & 0x1f : k == 3 ? c & 0x0f : c & 0x07;
  for (size_t j = 1; j < k; j++)
    v = (v << 6) | ((unsigned char)s[i + j] & 0x3f);
  *cp = v;
  return k;
}

long srv_text_clean(const char *s, size_t len, char *out, size_t size, long min, long max) {
  size_t o = 0;
  long chars = 0;
  for (size_t i = 0; i < len;) {
    unsigned cp;
    size_t k = decode(s, len, i, &cp);
    if (k == 0)
      return -1;
    const char *piece = s + i;
    size_t plen = k;
    i += k;
    if (cp == '\t' || cp == '\n' || cp == '\r') {
      piece = " ";
      plen = 1;
    } else if (srv_text_unsafe(cp)) {
      continue;
    }
    if (piece[0] == ' ' && o == 0)
      continue; /* Leading spaces. */
    if (o + plen >= size)
      return -1;
    memcpy(out + o, piece, plen);
    o += plen;
    chars++;
  }
  while (o > 0 && out[o - 1] == ' ') {
    o--;
    chars--;
  }
  out[o] = '\0';
  return chars < min || chars > max ? -1 : chars;
}
