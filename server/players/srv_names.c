/* Player names: keys, account names, display names and the display-name check (see
 * srv_names.h). */
#include "srv_names.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/uspoof.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

#include "srv_error.h"
#include "srv_text.h"

/* ---- UTF-8 ------------------------------------------------------------------------------------
 */

#define MAX_CPS 128

/* Decodes the UTF-8 string s into at most max code points. Returns their number, or -1 for bad
 * UTF-8 (overlong forms, surrogates, beyond U+10FFFF, truncated) or too many. */
static int decode(const char *s, uint32_t *cps, int max) {
  const unsigned char *p = (const unsigned char *)s;
  int n = 0;
  while (*p) {
    uint32_t c = *p, min;
    int k;
    if (c < 0x80) {
      k = 0;
      min = 0;
    } else if ((c & 0xe0) == 0xc0) {
      c &= 0x1f;
      k = 1;
      min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      c &= 0x0f;
      k = 2;
      min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      c &= 0x07;
      k = 3;
      min = 0x10000;
    } else {
      return -1;
    }
    p++;
    for (int i = 0; i < k; i++, p++) {
      if ((*p & 0xc0) != 0x80)
        return -1;
      c = (c << 6) | (*p & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) || n == max)
      return -1;
    cps[n++] = c;
  }
  return n;
}

/* Appends the UTF-8 of c to out (at *len, size bytes in all, a NUL kept free). Returns false when
 * it does not fit. */
static bool put_cp(char *out, size_t size, size_t *len, uint32_t c) {
  char b[4];
  size_t k;
  if (c < 0x80) {
    b[0] = (char)c;
    k = 1;
  } else if (c < 0x800) {
    b[0] = (char)(0xc0 | (c >> 6));
    b[1] = (char)(0x80 | (c & 0x3f));
    k = 2;
  } else if (c < 0x10000) {
    b[0] = (char)(0xe0 | (c >> 12));
    b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
    b[2] = (char)(0x80 | (c & 0x3f));
    k = 3;
  } else {
    b[0] = (char)(0xf0 | (c >> 18));
    b[1] = (char)(0x80 | ((c >> 12) & 0x3f));
    b[2] = (char)(0x80 | ((c >> 6) & 0x3f));
    b[3] = (char)(0x80 | (c & 0x3f));
    k = 4;
  }
  if (*len + k + 1 > size)
    return false;
  memcpy(out + *len, b, k);
  *len += k;
  out[*len] = '\0';
  return true;
}

/* ---- Tables -----------------------------------------------------------------------------------
 */

/* The letters of Latin-1 Supplement and Latin Extended-A: upper and lower case (0: none), the
 * letters they fold to (lower case, without the accent) and the combining mark of their canonical
 * decomposition (0: none, like ł or ß). Derived from the Unicode Character Database (Python's
 * unicodedata, Unicode 14): NFD, lower() and upper() of every letter of U+00C0..U+017F. */
typedef struct latin_letter {
  uint16_t upper, lower;
  char fold[3];
  uint16_t mark;
} latin_letter;

static const latin_letter latin[] = {
    {0x00C0, 0x00E0, "a", 0x0300},  /* Àà */
    {0x00C1, 0x00E1, "a", 0x0301},  /* Áá */
    {0x00C2, 0x00E2, "a", 0x0302},  /* Ââ */
    {0x00C3, 0x00E3, "a", 0x0303},  /* Ãã */
    {0x00C4, 0x00E4, "a", 0x0308},  /* Ää */
    {0x00C5, 0x00E5, "a", 0x030A},  /* Åå */
    {0x00C6, 0x00E6, "ae", 0x0000}, /* Ææ */
    {0x00C7, 0x00E7, "c", 0x0327},  /* Çç */
    {0x00C8, 0x00E8, "e", 0x0300},  /* Èè */
    {0x00C9, 0x00E9, "e", 0x0301},  /* Éé */
    {0x00CA, 0x00EA, "e", 0x0302},  /* Êê */
    {0x00CB, 0x00EB, "e", 0x0308},  /* Ëë */
    {0x00CC, 0x00EC, "i", 0x0300},  /* Ìì */
    {0x00CD, 0x00ED, "i", 0x0301},  /* Íí */
    {0x00CE, 0x00EE, "i", 0x0302},  /* Îî */
    {0x00CF, 0x00EF, "i", 0x0308},  /* Ïï */
    {0x00D0, 0x00F0, "d", 0x0000},  /* Ðð */
    {0x00D1, 0x00F1, "n", 0x0303},  /* Ññ */
    {0x00D2, 0x00F2, "o", 0x0300},  /* Òò */
    {0x00D3, 0x00F3, "o", 0x0301},  /* Óó */
    {0x00D4, 0x00F4, "o", 0x0302},  /* Ôô */
    {0x00D5, 0x00F5, "o", 0x0303},  /* Õõ */
    {0x00D6, 0x00F6, "o", 0x0308},  /* Öö */
    {0x00D8, 0x00F8, "o", 0x0000},  /* Øø */
    {0x00D9, 0x00F9, "u", 0x0300},  /* Ùù */
    {0x00DA, 0x00FA, "u", 0x0301},  /* Úú */
    {0x00DB, 0x00FB, "u", 0x0302},  /* Ûû */
    {0x00DC, 0x00FC, "u", 0x0308},  /* Üü */
    {0x00DD, 0x00FD, "y", 0x0301},  /* Ýý */
    {0x00DE, 0x00FE, "th", 0x0000}, /* Þþ */
    {0x0000, 0x00DF, "ss", 0x0000}, /* -ß */
    {0x0178, 0x00FF, "y", 0x0308},  /* Ÿÿ */
    {0x0100, 0x0101, "a", 0x0304},  /* Āā */
    {0x0102, 0x0103, "a", 0x0306},  /* Ăă */
    {0x0104, 0x0105, "a", 0x0328},  /* Ąą */
    {0x0106, 0x0107, "c", 0x0301},  /* Ćć */
    {0x0108, 0x0109, "c", 0x0302},  /* Ĉĉ */
    {0x010A, 0x010B, "c", 0x0307},  /* Ċċ */
    {0x010C, 0x010D, "c", 0x030C},  /* Čč */
    {0x010E, 0x010F, "d", 0x030C},  /* Ďď */
    {0x0110, 0x0111, "d", 0x0000},  /* Đđ */
    {0x0112, 0x0113, "e", 0x0304},  /* Ēē */
    {0x0114, 0x0115, "e", 0x0306},  /* Ĕĕ */
    {0x0116, 0x0117, "e", 0x0307},  /* Ėė */
    {0x0118, 0x0119, "e", 0x0328},  /* Ęę */
    {0x011A, 0x011B, "e", 0x030C},  /* Ěě */
    {0x011C, 0x011D, "g", 0x0302},  /* Ĝĝ */
    {0x011E, 0x011F, "g", 0x0306},  /* Ğğ */
    {0x0120, 0x0121, "g", 0x0307},  /* Ġġ */
    {0x0122, 0x0123, "g", 0x0327},  /* Ģģ */
    {0x0124, 0x0125, "h", 0x0302},  /* Ĥĥ */
    {0x0126, 0x0127, "h", 0x0000},  /* Ħħ */
    {0x0128, 0x0129, "i", 0x0303},  /* Ĩĩ */
    {0x012A, 0x012B, "i", 0x0304},  /* Īī */
    {0x012C, 0x012D, "i", 0x0306},  /* Ĭĭ */
    {0x012E, 0x012F, "i", 0x0328},  /* Įį */
    {0x0130, 0x0000, "i", 0x0307},  /* İ- */
    {0x0000, 0x0131, "i", 0x0000},  /* -ı */
    {0x0132, 0x0133, "ij", 0x0000}, /* Ĳĳ */
    {0x0134, 0x0135, "j", 0x0302},  /* Ĵĵ */
    {0x0136, 0x0137, "k", 0x0327},  /* Ķķ */
    {0x0000, 0x0138, "k", 0x0000},  /* -ĸ */
    {0x0139, 0x013A, "l", 0x0301},  /* Ĺĺ */
    {0x013B, 0x013C, "l", 0x0327},  /* Ļļ */
    {0x013D, 0x013E, "l", 0x030C},  /* Ľľ */
    {0x013F, 0x0140, "l", 0x0000},  /* Ŀŀ */
    {0x0141, 0x0142, "l", 0x0000},  /* Łł */
    {0x0143, 0x0144, "n", 0x0301},  /* Ńń */
    {0x0145, 0x0146, "n", 0x0327},  /* Ņņ */
    {0x0147, 0x0148, "n", 0x030C},  /* Ňň */
    {0x0000, 0x0149, "n", 0x0000},  /* -ŉ */
    {0x014A, 0x014B, "n", 0x0000},  /* Ŋŋ */
    {0x014C, 0x014D, "o", 0x0304},  /* Ōō */
    {0x014E, 0x014F, "o", 0x0306},  /* Ŏŏ */
    {0x0150, 0x0151, "o", 0x030B},  /* Őő */
    {0x0152, 0x0153, "oe", 0x0000}, /* Œœ */
    {0x0154, 0x0155, "r", 0x0301},  /* Ŕŕ */
    {0x0156, 0x0157, "r", 0x0327},  /* Ŗŗ */
    {0x0158, 0x0159, "r", 0x030C},  /* Řř */
    {0x015A, 0x015B, "s", 0x0301},  /* Śś */
    {0x015C, 0x015D, "s", 0x0302},  /* Ŝŝ */
    {0x015E, 0x015F, "s", 0x0327},  /* Şş */
    {0x0160, 0x0161, "s", 0x030C},  /* Šš */
    {0x0162, 0x0163, "t", 0x0327},  /* Ţţ */
    {0x0164, 0x0165, "t", 0x030C},  /* Ťť */
    {0x0166, 0x0167, "t", 0x0000},  /* Ŧŧ */
    {0x0168, 0x0169, "u", 0x0303},  /* Ũũ */
    {0x016A, 0x016B, "u", 0x0304},  /* Ūū */
    {0x016C, 0x016D, "u", 0x0306},  /* Ŭŭ */
    {0x016E, 0x016F, "u", 0x030A},  /* Ůů */
    {0x0170, 0x0171, "u", 0x030B},  /* Űű */
    {0x0172, 0x0173, "u", 0x0328},  /* Ųų */
    {0x0174, 0x0175, "w", 0x0302},  /* Ŵŵ */
    {0x0176, 0x0177, "y", 0x0302},  /* Ŷŷ */
    {0x0179, 0x017A, "z", 0x0301},  /* Źź */
    {0x017B, 0x017C, "z", 0x0307},  /* Żż */
    {0x017D, 0x017E, "z", 0x030C},  /* Žž */
    {0x0000, 0x017F, "s", 0x0000},  /* -ſ */
};

/* Cyrillic letters with a canonical decomposition: the letter, its base and its mark (NFD). */
static const uint16_t cyrillic_composed[][3] = {
    {0x0400, 0x0415, 0x0300}, {0x0401, 0x0415, 0x0308}, {0x0403, 0x0413, 0x0301},
    {0x0407, 0x0406, 0x0308}, {0x040C, 0x041A, 0x0301}, {0x040D, 0x0418, 0x0300},
    {0x040E, 0x0423, 0x0306}, {0x0419, 0x0418, 0x0306}, {0x0439, 0x0438, 0x0306},
    {0x0450, 0x0435, 0x0300}, {0x0451, 0x0435, 0x0308}, {0x0453, 0x0433, 0x0301},
    {0x0457, 0x0456, 0x0308}, {0x045C, 0x043A, 0x0301}, {0x045D, 0x0438, 0x0300},
    {0x045E, 0x0443, 0x0306},
};

/* Letters of other scripts that look like a Latin letter, and that letter (Unicode's
 * confusables, the ones in the fonts players see): Cyrillic in lower case (its upper case letters
 * are folded first, and look like the same Latin letter), Greek in both cases. */
static const uint16_t look_alike[][2] = {
    /* Cyrillic */
    {0x0430, 'a'},
    {0x0432, 'b'},
    {0x0435, 'e'},
    {0x043A, 'k'},
    {0x043C, 'm'},
    {0x043D, 'h'},
    {0x043E, 'o'},
    {0x043F, 'n'},
    {0x0440, 'p'},
    {0x0441, 'c'},
    {0x0442, 't'},
    {0x0443, 'y'},
    {0x0445, 'x'},
    {0x044C, 'b'},
    {0x0454, 'e'},
    {0x0455, 's'},
    {0x0456, 'i'},
    {0x0458, 'j'},
    {0x04BB, 'h'},
    {0x04CF, 'l'},
    {0x0501, 'd'},
    {0x051B, 'q'},
    {0x051D, 'w'},
    /* Greek, upper case */
    {0x0391, 'a'},
    {0x0392, 'b'},
    {0x0395, 'e'},
    {0x0396, 'z'},
    {0x0397, 'h'},
    {0x0399, 'i'},
    {0x039A, 'k'},
    {0x039C, 'm'},
    {0x039D, 'n'},
    {0x039F, 'o'},
    {0x03A1, 'p'},
    {0x03A4, 't'},
    {0x03A5, 'y'},
    {0x03A7, 'x'},
    /* Greek, lower case */
    {0x03B1, 'a'},
    {0x03B9, 'i'},
    {0x03BA, 'k'},
    {0x03BC, 'u'},
    {0x03BD, 'v'},
    {0x03BF, 'o'},
    {0x03C1, 'p'},
    {0x03C4, 't'},
    {0x03C5, 'u'},
    {0x03C7, 'x'},
    {0x00B5, 'u'},
};

/* Compatibility forms (NFKC) that are not fullwidth ASCII: ligatures and ordinal indicators. */
static const struct {
  uint16_t cp;
  char text[4];
} compat[] = {
    {0xFB00, "ff"},  {0xFB01, "fi"}, {0xFB02, "fl"}, {0xFB03, "ffi"},
    {0xFB04, "ffl"}, {0xFB05, "st"}, {0xFB06, "st"}, {0x00AA, "a"},
    {0x00BA, "o"},   {0x00B9, "1"},  {0x00B2, "2"},  {0x00B3, "3"},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const latin_letter *latin_find(uint32_t c) {
  if (c < 0xC0 || c > 0x17F)
    return NULL;
  for (size_t i = 0; i < COUNT(latin); i++) {
    if (latin[i].upper == c || latin[i].lower == c)
      return &latin[i];
  }
  return NULL;
}

/* Combining marks (the blocks of them), dropped from keys. */
static bool is_mark(uint32_t c) {
  return (c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) ||
         (c >= 0x1DC0 && c <= 0x1DFF) || (c >= 0x20D0 && c <= 0x20FF) ||
         (c >= 0xFE20 && c <= 0xFE2F);
}

/* Characters nobody sees (format controls, joiners, variation selectors, fillers) and spaces:
 * dropped from keys. */
static bool is_invisible_or_space(uint32_t c) {
  return c == 0x00A0 || c == 0x00AD || c == 0x034F || c == 0x061C || c == 0x115F || c == 0x1160 ||
         c == 0x1680 || c == 0x17B4 || c == 0x17B5 || (c >= 0x180B && c <= 0x180F) ||
         (c >= 0x2000 && c <= 0x200F) || (c >= 0x2028 && c <= 0x202F) ||
         (c >= 0x205F && c <= 0x206F) || c == 0x3000 || c == 0x3164 ||
         (c >= 0xFE00 && c <= 0xFE0F) || c == 0xFEFF || c == 0xFFA0 ||
         (c >= 0xE0000 && c <= 0xE0FFF);
}

static bool is_cyrillic_letter(uint32_t c) {
  return c >= 0x0400 && c <= 0x045F;
}

/* Lower case of a Cyrillic or Greek capital (c itself otherwise). */
static uint32_t lower_other(uint32_t c) {
  if (c >= 0x0410 && c <= 0x042F)
    return c + 0x20;
  if (c >= 0x0400 && c <= 0x040F)
    return c + 0x50;
  return c;
}

static bool is_invisible(uint32_t c);

/* ---- Keys -------------------------------------------------------------------------------------
 */

/* Appends the key of one ASCII character: letters in lower case with the look-alikes merged
 * (0 o, 1 i I l |), digits, and nothing for punctuation. */
static bool key_ascii(char *key, size_t size, size_t *len, uint32_t c) {
  if (c >= 'A' && c <= 'Z')
    c += 'a' - 'A';
  if (c == 'i' || c == '1' || c == '|')
    c = 'l';
  else if (c == '0')
    c = 'o';
  if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
    return put_cp(key, size, len, c);
  return true;
}

static bool key_text(char *key, size_t size, size_t *len, const char *text) {
  for (; *text; text++) {
    if (!key_ascii(key, size, len, (unsigned char)*text))
      return false;
  }
  return true;
}

/* Appends the key of code point c. */
static bool key_cp(char *key, size_t size, size_t *len, uint32_t c) {
  if (c >= 0xFF01 && c <= 0xFF5E)
    c -= 0xFEE0; /* Fullwidth ASCII. */
  if (c < 0x80)
    return key_ascii(key, size, len, c);
  if (is_mark(c) || is_invisible_or_space(c))
    return true;
  const latin_letter *l = latin_find(c);
  if (l != NULL)
    return key_text(key, size, len, l->fold);
  for (size_t i = 0; i < COUNT(compat); i++) {
    if (compat[i].cp == c)
      return key_text(key, size, len, compat[i].text);
  }
  c = lower_other(c);
  for (size_t i = 0; i < COUNT(cyrillic_composed); i++) {
    if (cyrillic_composed[i][0] == c)
      c = cyrillic_composed[i][1];
  }
  for (size_t i = 0; i < COUNT(look_alike); i++) {
    if (look_alike[i][0] == c)
      return key_ascii(key, size, len, look_alike[i][1]);
  }
  if (c >= 0x0391 && c <= 0x03A9)
    c += 0x20; /* Greek capitals that look like no Latin letter: their lower case. */
  return put_cp(key, size, len, c);
}

/* Replaces the pairs that read as one letter in place: "rn" is m, "vv" is w. */
static size_t merge_pairs(char *key, size_t len) {
  size_t w = 0;
  for (size_t r = 0; r < len; r++) {
    if (r + 1 < len && key[r] == 'r' && key[r + 1] == 'n') {
      key[w++] = 'm';
      r++;
    } else if (r + 1 < len && key[r] == 'v' && key[r + 1] == 'v') {
      key[w++] = 'w';
      r++;
    } else {
      key[w++] = key[r];
    }
  }
  key[w] = '\0';
  return w;
}

int srv_names_key(const char *name, char *key, size_t size) {
  uint32_t cps[MAX_CPS];
  if (size == 0)
    return -1;
  key[0] = '\0';
  int n = name ? decode(name, cps, MAX_CPS) : -1;
  if (n < 0)
    return -1;
  size_t len = 0;
  for (int i = 0; i < n; i++) {
    if (!key_cp(key, size, &len, cps[i])) {
      key[0] = '\0';
      return -1;
    }
  }
  return (int)merge_pairs(key, len);
}

/* ---- Skeletons (Unicode TR39, through ICU) ----------------------------------------------------
 */

/* ICU's spoof checker and its NFKC_Casefold normaliser, opened once for the process (ICU's const
 * calls on them are thread-safe) and never closed. */
static pthread_once_t icu_once = PTHREAD_ONCE_INIT;
static USpoofChecker *icu_spoof;
static const UNormalizer2 *icu_nfkc_cf;

static void icu_open(void) {
  UErrorCode st = U_ZERO_ERROR;
  USpoofChecker *sc = uspoof_open(&st);
  const UNormalizer2 *n = U_SUCCESS(st) ? unorm2_getNFKCCasefoldInstance(&st) : NULL;
  if (U_FAILURE(st)) {
    if (sc != NULL)
      uspoof_close(sc);
    return;
  }
  icu_spoof = sc;
  icu_nfkc_cf = n;
}

/* UTF-16 units a skeleton's steps may take: a name is at most SRV_NAME_SIZE bytes (fewer code
 * points, each at most 2 units), and a skeleton mapping writes at most 18 code points for one. */
#define SKEL_UNITS 4096

/* One round: a = skeleton(NFKC_Casefold(a)), through b. Returns the new length of a, or -1. */
static int32_t skeleton_round(UChar *a, int32_t n, UChar *b) {
  UErrorCode st = U_ZERO_ERROR;
  int32_t m = unorm2_normalize(icu_nfkc_cf, a, n, b, SKEL_UNITS, &st);
  if (U_FAILURE(st) || st == U_STRING_NOT_TERMINATED_WARNING)
    return -1;
  n = uspoof_getSkeleton(icu_spoof, 0, b, m, a, SKEL_UNITS, &st);
  if (U_FAILURE(st) || st == U_STRING_NOT_TERMINATED_WARNING)
    return -1;
  return n;
}

int srv_names_skeleton(const char *name, char *out, size_t size) {
  static _Thread_local UChar a[SKEL_UNITS], b[SKEL_UNITS];
  uint32_t cps[MAX_CPS];
  if (size == 0)
    return -1;
  out[0] = '\0';
  int n = name ? decode(name, cps, MAX_CPS) : -1;
  pthread_once(&icu_once, icu_open);
  if (n < 0 || icu_spoof == NULL)
    return -1;
  /* What the display-name check calls invisible goes first (spaces, zero-width and format
   * characters, fillers, the braille blank, interlinear annotation marks, tags, combining marks):
   * nobody sees it, so it cannot tell two names apart. */
  int32_t len = 0;
  for (int i = 0; i < n; i++) {
    if (!is_invisible(cps[i]))
      U16_APPEND_UNSAFE(a, len, cps[i]);
  }
  /* TR39's skeleton, made case-insensitive: the confusables' prototypes first (so that a capital
   * I is l before case folding makes it i), then NFKC_Casefold (fullwidth, maths letters, the
   * Kelvin sign, case) and the prototypes again, twice: a prototype may be a capital (Lisu "ꓟ" ->
   * "M") whose lower case has a prototype of its own ("m" -> "rn"). */
  if (len > 0) {
    UErrorCode st = U_ZERO_ERROR;
    memcpy(b, a, (size_t)len * sizeof *a);
    len = uspoof_getSkeleton(icu_spoof, 0, b, len, a, SKEL_UNITS, &st);
    if (U_FAILURE(st) || st == U_STRING_NOT_TERMINATED_WARNING)
      return -1;
  }
  for (int round = 0; round < 2 && len > 0; round++) {
    len = skeleton_round(a, len, b);
    if (len < 0)
      return -1;
  }
  /* Only letters and digits are kept, as in keys: "Magnus_Oak" and "Magnus Oak" read as one. */
  size_t w = 0;
  for (int32_t i = 0; i < len;) {
    UChar32 c;
    U16_NEXT(a, i, len, c);
    if (u_isalnum(c) && !put_cp(out, size, &w, (uint32_t)c)) {
      out[0] = '\0';
      return -1;
    }
  }
  return (int)w;
}

/* ---- Reserved words ---------------------------------------------------------------------------
 */

/* Names nobody may take: the computer opponent's name in the client's languages, the server's own
 * roles, words that would make a name look official or empty. */
static const char *const reserved_exact[] = {
    "computer", "ordinateur", "computador", "komputer", "компьютер",     "компютер", "bot",
    "robot",    "system",     "server",     "root",     "support",       "staff",    "official",
    "mod",      "anonymous",  "anonyme",    "deleted",  "deletedplayer", "null",     "undefined",
    "nobody",   "player",     "you",        "south",    "north",
};

/* Prefixes nobody may take as an account; guests are "Guest ..." (the first row). */
static const char *const reserved_guest[] = {"guest", "invite", "convidado", "gosc", "гость"};
static const char *const reserved_prefix[] = {"admin", "moderator", "mancala", "computer"};

static bool key_is(const char *key, const char *word, bool prefix) {
  char wk[SRV_NAME_KEY_SIZE];
  if (srv_names_key(word, wk, sizeof wk) <= 0)
    return false;
  size_t n = strlen(wk);
  return prefix ? strncmp(key, wk, n) == 0 : strcmp(key, wk) == 0;
}

/* Whether key is reserved; guests_too: the guest prefixes count as well. */
static bool reserved(const char *key, bool guests_too) {
  for (size_t i = 0; i < COUNT(reserved_exact); i++) {
    if (key_is(key, reserved_exact[i], false))
      return true;
  }
  for (size_t i = 0; i < COUNT(reserved_prefix); i++) {
    if (key_is(key, reserved_prefix[i], true))
      return true;
  }
  for (size_t i = 0; guests_too && i < COUNT(reserved_guest); i++) {
    if (key_is(key, reserved_guest[i], true))
      return true;
  }
  return false;
}

int srv_names_display(const char *name, char *key) {
  int n = srv_names_key(name, key, SRV_NAME_KEY_SIZE);
  if (n < 0)
    return SRV_ENAMEINVALID;
  return n > 0 && reserved(key, false) ? SRV_ENAMERESERVED : 0;
}

/* ---- Account names ----------------------------------------------------------------------------
 */

/* Composes base + mark into one code point when the tables have it (NFC for their letters);
 * returns 0 otherwise. */
static uint32_t compose(uint32_t base, uint32_t mark) {
  for (size_t i = 0; i < COUNT(latin); i++) {
    const latin_letter *l = &latin[i];
    if (l->mark != mark || l->mark == 0 || l->fold[1] != '\0')
      continue;
    uint32_t low = (uint32_t)(unsigned char)l->fold[0];
    if (l->lower != 0 && base == low)
      return l->lower;
    if (l->upper != 0 && base == low - ('a' - 'A'))
      return l->upper;
  }
  for (size_t i = 0; i < COUNT(cyrillic_composed); i++) {
    if (cyrillic_composed[i][1] == base && cyrillic_composed[i][2] == mark)
      return cyrillic_composed[i][0];
  }
  return 0;
}

enum { SCRIPT_NONE = 0, SCRIPT_LATIN = 1, SCRIPT_CYRILLIC = 2 };

/* The script of a letter allowed in an account name, or SCRIPT_NONE. */
static int letter_script(uint32_t c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || latin_find(c) != NULL)
    return SCRIPT_LATIN;
  if (is_cyrillic_letter(c))
    return SCRIPT_CYRILLIC;
  return SCRIPT_NONE;
}

static int fail(const char **why, int err, const char *text) {
  if (why != NULL)
    *why = text;
  return err;
}

int srv_names_account(const char *name, char *out, size_t out_size, char *key, const char **why) {
  uint32_t cps[MAX_CPS];
  if (why != NULL)
    *why = "";
  if (out_size > 0)
    out[0] = '\0';
  key[0] = '\0';
  int n = name ? decode(name, cps, MAX_CPS) : -1;
  if (n < 0)
    return fail(why, SRV_ENAMEINVALID, "not UTF-8, or too long");
  /* Normal form: fullwidth ASCII made ASCII, a letter and its mark composed. */
  int m = 0;
  for (int i = 0; i < n; i++) {
    uint32_t c = cps[i];
    if (c >= 0xFF01 && c <= 0xFF5E)
      c -= 0xFEE0;
    uint32_t composed = m > 0 && is_mark(c) ? compose(cps[m - 1], c) : 0;
    if (composed != 0)
      cps[m - 1] = composed;
    else
      cps[m++] = c;
  }
  if (m < SRV_ACCOUNT_NAME_MIN || m > SRV_ACCOUNT_NAME_MAX)
    return fail(why, SRV_ENAMEINVALID, "3 to 20 characters");
  int script = SCRIPT_NONE;
  for (int i = 0; i < m; i++) {
    uint32_t c = cps[i];
    bool sep = c == '_' || c == '-';
    int s = letter_script(c);
    if (!sep && s == SCRIPT_NONE && !(c >= '0' && c <= '9'))
      return fail(why, SRV_ENAMEINVALID, "only letters, digits, _ and -");
    if (i == 0 && s == SCRIPT_NONE)
      return fail(why, SRV_ENAMEINVALID, "it must start with a letter");
    if (sep && (i == m - 1 || cps[i + 1] == '_' || cps[i + 1] == '-'))
      return fail(why, SRV_ENAMEINVALID, "_ and - only between letters or digits");
    if (s != SCRIPT_NONE && script != SCRIPT_NONE && s != script)
      return fail(why, SRV_ENAMEINVALID, "letters of one alphabet only");
    if (s != SCRIPT_NONE)
      script = s;
  }
  size_t len = 0;
  for (int i = 0; i < m; i++) {
    if (!put_cp(out, out_size, &len, cps[i]))
      return fail(why, SRV_ENAMEINVALID, "too long");
  }
  if (srv_names_key(out, key, SRV_NAME_KEY_SIZE) <= 0)
    return fail(why, SRV_ENAMEINVALID, "only letters, digits, _ and -");
  if (reserved(key, true))
    return fail(why, SRV_ENAMERESERVED, "a reserved name");
  return 0;
}

/* ---- The display-name check ----------------------------------------------------------------
 */

/* Decodes the UTF-8 character at s[i] (i < len); returns its length, or 0 when it is cut or not
 * UTF-8. */
static size_t decode_at(const unsigned char *s, size_t len, size_t i, uint32_t *cp) {
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

/* The plain bidirectional marks (U+061C, U+200E, U+200F). Chat keeps them (srv_text.h); a name
 * may not have them: shown beside other names in a list, they would reorder its neutral
 * characters. */
static bool is_bidi_mark(uint32_t c) {
  return c == 0x061c || c == 0x200e || c == 0x200f;
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

/* Whether invisible character c (is_invisible()) is one a name keeps: a space of some width (it
 * separates words, and shows as a gap) or a combining mark (it decorates the letter before it).
 * The others (zero-width and format characters, fillers, the braille blank, interlinear
 * annotation marks, variation selectors, tags) are dropped from the name. */
static bool invisible_kept(uint32_t c) {
  static const uint32_t ranges[][2] = {
      {0x0020, 0x0020}, {0x00a0, 0x00a0}, {0x0300, 0x034e}, {0x0350, 0x036f}, {0x0483, 0x0489},
      {0x0591, 0x05bd}, {0x1680, 0x1680}, {0x1ab0, 0x1aff}, {0x1dc0, 0x1dff}, {0x2000, 0x200a},
      {0x202f, 0x202f}, {0x205f, 0x205f}, {0x20d0, 0x20ff}, {0x3000, 0x3000}, {0xfe20, 0xfe2f}};
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
    if (c >= ranges[i][0] && c <= ranges[i][1])
      return true;
  }
  return false;
}

int srv_name_check(const char *s, size_t len, char *out, size_t size) {
  const unsigned char *u = (const unsigned char *)s;
  char name[512]; /* Longer input is refused: a name is at most SRV_NAME_CHARS characters. */
  size_t n = 0;
  bool visible = false;
  /* Checked, and the invisible characters a name does not keep dropped. */
  for (size_t i = 0; i < len;) {
    uint32_t c;
    size_t k = decode_at(u, len, i, &c);
    if (k == 0 || srv_text_unsafe(c) || is_bidi_mark(c))
      return SRV_EBADREQ;
    if (!is_invisible(c) || invisible_kept(c)) {
      if (n + k > sizeof name - 1)
        return SRV_EBADREQ;
      memcpy(name + n, u + i, k);
      n += k;
    }
    visible |= !is_invisible(c);
    i += k;
  }
  /* Trimmed: the spaces at both ends. */
  size_t first = 0;
  while (first < n && name[first] == ' ')
    first++;
  while (n > first && name[n - 1] == ' ')
    n--;
  size_t chars = 0;
  for (size_t i = first; i < n; i++)
    chars += ((unsigned char)name[i] & 0xc0) != 0x80;
  if (chars < 1 || chars > SRV_NAME_CHARS || !visible || n - first >= size)
    return SRV_EBADREQ;
  memcpy(out, name + first, n - first);
  out[n - first] = '\0';
  return 0;
}
