/* Display names (see srv_names.h). */
#include "srv_names.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "srv_error.h"

/* Decodes the UTF-8 character at s[i] (i < len); returns its length, or 0 when it is cut or not
 * UTF-8. */
static size_t decode(const unsigned char *s, size_t len, size_t i, uint32_t *cp) {
  unsigned char c = s[i];
  size_t k = c < 0x80                ? 1
             : c >= 0xc2 && c < 0xe0 ? 2
             : c >= 0xe0 && c < 0xf0 ? 3
             : c >= 0xf0 && c < 0xf5 ? 4
                                     : 0;
  if (k == 0 || i + k > len)
    return 0;
  uint32_t v = k == 1 ? c : c & (0x7f >> k);
  for (size_t j = 1; j < k; j++) {
    if ((s[i + j] & 0xc0) != 0x80)
      return 0;
    v = v << 6 | (s[i + j] & 0x3f);
  }
  if ((k == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) ||
      (k == 4 && (v < 0x10000 || v > 0x10ffff)))
    return 0; /* Overlong, a surrogate, or past Unicode. */
  *cp = v;
  return k;
}

static bool is_control(uint32_t c) {
  return c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0);
}

/* Bidirectional controls: marks, embeddings, overrides, isolates. */
static bool is_bidi(uint32_t c) {
  return c == 0x061c || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
         (c >= 0x2066 && c <= 0x2069);
}

/* Characters that show nothing on their own: spaces of every kind, zero-width and invisible
 * formatting characters, Hangul fillers, variation selectors, tags, and combining marks (they
 * only decorate the character before them). */
static bool is_invisible(uint32_t c) {
  static const uint32_t ranges[][2] = {
      {0x0020, 0x0020},   {0x00a0, 0x00a0},  {0x00ad, 0x00ad},   {0x0300, 0x036f},
      {0x034f, 0x034f},   {0x0483, 0x0489},  {0x0591, 0x05bd},   {0x061c, 0x061c},
      {0x115f, 0x1160},   {0x1680, 0x1680},  {0x17b4, 0x17b5},   {0x180b, 0x180f},
      {0x1ab0, 0x1aff},   {0x1dc0, 0x1dff},  {0x2000, 0x200f},   {0x2028, 0x202f},
      {0x205f, 0x206f},   {0x20d0, 0x20ff},  {0x2800, 0x2800},   {0x3000, 0x3000},
      {0x3164, 0x3164},   {0xfe00, 0xfe0f},  {0xfe20, 0xfe2f},   {0xfeff, 0xfeff},
      {0xffa0, 0xffa0},   {0xfff0, 0xfffb},  {0x1d159, 0x1d159}, {0x1d173, 0x1d17a},
      {0xe0000, 0xe007f}, {0xe0100, 0xe01ef}};
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
    if (c >= ranges[i][0] && c <= ranges[i][1])
      return true;
  }
  return false;
}

int srv_name_check(const char *s, size_t len, char *out, size_t size) {
  const unsigned char *u = (const unsigned char *)s;
  while (len > 0 && u[0] == ' ') {
    u++;
    len--;
  }
  while (len > 0 && u[len - 1] == ' ')
    len--;
  size_t chars = 0;
  bool visible = false;
  for (size_t i = 0; i < len;) {
    uint32_t c;
    size_t k = decode(u, len, i, &c);
    if (k == 0 || is_control(c) || is_bidi(c))
      return SRV_EBADREQ;
    visible |= !is_invisible(c);
    chars++;
    i += k;
  }
  if (chars < 1 || chars > SRV_NAME_CHARS || !visible || len >= size)
    return SRV_EBADREQ;
  memcpy(out, u, len);
  out[len] = '\0';
  return 0;
}
