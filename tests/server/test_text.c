/* Text people type for others (srv_text.c): chat lines cleaned of control characters and of the
 * bidirectional characters that reorder what follows them, trimmed, and counted in characters. */
#include <string.h>

#include "srv_text.h"
#include "task.h"

static char out[64];

/* Cleans s into out with a limit of max characters; returns the count (-1: refused). */
static long clean(const char *s, long max) {
  return srv_text_clean(s, strlen(s), out, sizeof out, 1, max);
}

TEST_IMPL(clean_controls) {
  ASSERT_EQ(clean("good game", 300), 9);
  ASSERT_STR_EQ(out, "good game");
  /* Tab and line breaks become spaces; other C0, DEL and C1 characters go. */
  ASSERT_EQ(clean("a\tb\nc\r\nd", 300), 8);
  ASSERT_STR_EQ(out, "a b c  d");
  ASSERT_EQ(clean("x\x01\x1by\x7fz", 300), 3);
  ASSERT_STR_EQ(out, "xyz");
  ASSERT_EQ(clean("\xc2\x85n\xc2\x9f", 300), 1); /* U+0085 (NEL), U+009F: C1. */
  ASSERT_STR_EQ(out, "n");
  /* U+00A0 (no-break space) and U+00E9 are letters of text, kept. */
  ASSERT_EQ(clean("\xc2\xa0\xc3\xa9", 300), 2);
  ASSERT_STR_EQ(out, "\xc2\xa0\xc3\xa9");
  return 0;
}

TEST_IMPL(clean_bidi) {
  /* "abc" + RLO (U+202E) + "gpj.exe": the override would show "exe.jpg"; it goes. */
  ASSERT_EQ(clean("abc\xe2\x80\xaegpj.exe", 300), 10);
  ASSERT_STR_EQ(out, "abcgpj.exe");
  /* Embeddings U+202A..U+202D, PDF U+202C, isolates U+2066..U+2069 go too. */
  ASSERT_EQ(clean("\xe2\x80\xaa"
                  "a\xe2\x80\xab"
                  "b\xe2\x80\xac"
                  "c\xe2\x80\xad",
                  300),
            3);
  ASSERT_STR_EQ(out, "abc");
  ASSERT_EQ(clean("\xe2\x81\xa6"
                  "x\xe2\x81\xa7"
                  "y\xe2\x81\xa8"
                  "z\xe2\x81\xa9",
                  300),
            3);
  ASSERT_STR_EQ(out, "xyz");
  /* The plain marks (LRM U+200E, RLM U+200F, ALM U+061C) only order neutrals: kept. */
  ASSERT_EQ(clean("a\xe2\x80\x8e"
                  "b\xe2\x80\x8f"
                  "c\xd8\x9c",
                  300),
            6);
  ASSERT(srv_text_unsafe(0x202e) && srv_text_unsafe(0x2066) && srv_text_unsafe(0x9f));
  ASSERT(!srv_text_unsafe(0x200e) && !srv_text_unsafe(0x20) && !srv_text_unsafe(0x202f));
  return 0;
}

TEST_IMPL(clean_trim_and_limits) {
  /* Spaces at both ends go, also those a control character leaves behind. */
  ASSERT_EQ(clean("  \n hi \t ", 300), 2);
  ASSERT_STR_EQ(out, "hi");
  ASSERT_EQ(clean("\x07 \xe2\x80\xae ", 300), -1); /* Nothing left. */
  ASSERT_EQ(clean("", 300), -1);
  /* The limit counts characters (code points) after cleaning. */
  ASSERT_EQ(clean("\xc3\xa9\xc3\xa9\xc3\xa9", 3), 3);
  ASSERT_EQ(clean("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 3), -1);
  ASSERT_EQ(clean("abc\x01\x02\x03", 3), 3);
  /* The output must fit: 70 bytes do not fit in 64. */
  char big[71];
  memset(big, 'x', 70);
  big[70] = '\0';
  ASSERT_EQ(clean(big, 300), -1);
  /* A sequence cut short at the end is refused. */
  ASSERT_EQ(srv_text_clean("ab\xc3", 3, out, sizeof out, 1, 300), -1);
  return 0;
}
