/* Display names (srv_names.h): what a name may be. Security probe, finding 14: names of only
 * invisible characters (U+200B, U+00A0, U+FEFF) and names with bidirectional overrides (U+202E)
 * were accepted. */
#include <string.h>

#include "srv_error.h"
#include "srv_names.h"
#include "task.h"

static char out[128];

static int check(const char *s) {
  strcpy(out, "untouched");
  return srv_name_check(s, strlen(s), out, sizeof out);
}

#define OK(s, want)                                                                                \
  do {                                                                                             \
    ASSERT_EQ(check(s), 0);                                                                        \
    ASSERT_STR_EQ(out, want);                                                                      \
  } while (0)

#define REFUSED(s)                                                                                 \
  do {                                                                                             \
    ASSERT_EQ(check(s), SRV_EBADREQ);                                                              \
    ASSERT_STR_EQ(out, "untouched");                                                               \
  } while (0)

TEST_IMPL(ordinary_names) {
  OK("Ana", "Ana");
  OK("  Ana  ", "Ana");
  OK("Zoë", "Zoë");
  OK("Łukasz Żółć", "Łukasz Żółć");
  OK("Иван", "Иван");
  OK("名前", "名前");
  OK("🙂", "🙂");
  OK("a\u0301", "a\u0301");             /* A combining accent on a letter. */
  OK("\u200bA\u200b", "\u200bA\u200b"); /* Invisible ones around a visible one. */
  OK("Ana\u00a0Bo", "Ana\u00a0Bo");
  /* 24 characters of up to 4 bytes are fine; 25 are not. */
  OK("🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂"
     "🙂",
     "🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂"
     "🙂");
  REFUSED("abcdefghijklmnopqrstuvwxy");
  return 0;
}

TEST_IMPL(invisible_names) {
  REFUSED("");
  REFUSED("   ");
  REFUSED("\u200b");             /* Zero-width space. */
  REFUSED("\u200b\u200b\u200b"); /* The probe's name. */
  REFUSED("\u00a0");             /* No-break space. */
  REFUSED("\ufeff");             /* Byte order mark. */
  REFUSED("\u3164");             /* Hangul filler. */
  REFUSED("\u2800");             /* Braille blank. */
  REFUSED("\u0301\u0301");       /* Combining marks alone. */
  REFUSED("\ufe0f");             /* Variation selector. */
  REFUSED("\U000e0041");         /* Tag letter. */
  REFUSED(" \u2003\u3000 ");     /* Em space, ideographic space. */
  return 0;
}

TEST_IMPL(bidi_controls) {
  REFUSED("Ana\u202e");       /* Right-to-left override: the probe's case. */
  REFUSED("\u202dAna");       /* Left-to-right override. */
  REFUSED("A\u202ab");        /* Embedding. */
  REFUSED("\u2066Ana\u2069"); /* Isolates. */
  REFUSED("Ana\u200f");       /* Right-to-left mark. */
  REFUSED("Ana\u061c");       /* Arabic letter mark. */
  OK("שלום", "שלום");         /* Right-to-left letters themselves are fine. */
  OK("مرحبا", "مرحبا");
  return 0;
}

TEST_IMPL(controls_and_bad_utf8) {
  REFUSED("a\nb");
  REFUSED("a\x7f");
  REFUSED("a\xc2\x85"
          "b");                /* NEL, a C1 control. */
  REFUSED("a\xc3");            /* Cut. */
  REFUSED("a\xc0\xaf");        /* Overlong. */
  REFUSED("\xed\xa0\x80x");    /* A surrogate. */
  REFUSED("\xe0\x80\x80x");    /* Overlong 3-byte. */
  REFUSED("\xf4\x90\x80\x80"); /* Past U+10FFFF. */
  char small[4];
  ASSERT_EQ(srv_name_check("Ana", 3, small, sizeof small), 0);
  ASSERT_EQ(srv_name_check("Anna", 4, small, sizeof small), SRV_EBADREQ); /* Does not fit. */
  return 0;
}
