/* Player names (srv_names.h): the key that says when two names read as one, the rules of account
 * names, and the reserved words. The keys below are worked by hand from the rules in the header:
 * case folded, accents dropped, look-alike letters of other scripts made Latin, 0 -> o,
 * 1 i I l | -> l, "rn" -> m, "vv" -> w, everything but letters and digits dropped.
 *
 * The display-name check (srv_name_check()): what a name may be. Security probe, finding 14:
 * names of only invisible characters (U+200B, U+00A0, U+FEFF) and names with bidirectional
 * overrides (U+202E) were accepted.
 *
 * Skeletons (srv_names_skeleton(), issue 25 item 6): the vectors are worked by hand from TR39's
 * confusables.txt and the NFKC_Casefold mapping, step by step in each comment: invisible
 * characters dropped, the confusables' prototypes, then twice NFKC_Casefold and the prototypes
 * again, then only letters and digits. The lines of confusables.txt used:
 *   006D ; 0072 006E  (m -> rn)          0049 ; 006C  (I -> l)       0031 ; 006C  (1 -> l)
 *   0261 ; 0067       (script g -> g)    A4DF ; 004D  (Lisu MA -> M) A4EE ; 0041  (Lisu A -> A)
 *   0585 ; 006F       (Armenian oh -> o) 0578 ; 006E  (Armenian vo -> n)
 *   057D ; 0075       (Armenian seh -> u)
 * and of NFKC_Casefold: U+212A KELVIN SIGN -> k, U+1D40C..U+1D42C (mathematical bold) -> their
 * letters in lower case; U+2800 (braille blank) and U+FFF9 (interlinear annotation anchor) are
 * what the display-name check calls invisible. */
#include <string.h>

#include "srv_error.h"
#include "srv_ident.h"
#include "srv_names.h"
#include "task.h"

static char checked[128];

static int check(const char *s) {
  strcpy(checked, "untouched");
  return srv_name_check(s, strlen(s), checked, sizeof checked);
}

#define OK(s, want)                                                                                \
  do {                                                                                             \
    ASSERT_EQ(check(s), 0);                                                                        \
    ASSERT_STR_EQ(checked, want);                                                                  \
  } while (0)

#define REFUSED(s)                                                                                 \
  do {                                                                                             \
    ASSERT_EQ(check(s), SRV_EBADREQ);                                                              \
    ASSERT_STR_EQ(checked, "untouched");                                                           \
  } while (0)

TEST_IMPL(ordinary_names) {
  OK("Ana", "Ana");
  OK("  Ana  ", "Ana");
  OK("Zoë", "Zoë");
  OK("Łukasz Żółć", "Łukasz Żółć");
  OK("Иван", "Иван");
  OK("名前", "名前");
  OK("🙂", "🙂");
  OK("a\u0301", "a\u0301"); /* A combining accent on a letter. */
  OK("\u200bA\u200b", "A"); /* Invisible ones around a visible one: dropped. */
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

/* The invisible characters a name does not keep are dropped from it; spaces and combining marks
 * stay. */
TEST_IMPL(invisible_dropped) {
  OK("Magnus_Oak\u2800", "Magnus_Oak"); /* Braille blank, at the end. */
  OK("Magnus\u2800Oak", "MagnusOak");   /* ... and inside. */
  OK("Magnus_Oak\ufff9", "Magnus_Oak"); /* Interlinear annotation anchor. */
  OK("\ufffaMagnus\ufffb", "Magnus");   /* Its separator and terminator. */
  OK("Ma\u200dgnus\ufe0f", "Magnus");   /* Zero-width joiner, variation selector. */
  OK("Ma\u3164gnus", "Magnus");         /* Hangul filler. */
  OK("Ana\u00a0Bo", "Ana\u00a0Bo");     /* A no-break space is a space: kept. */
  OK("Ana\u2003Bo", "Ana\u2003Bo");     /* So is an em space. */
  OK("Jose\u0301", "Jose\u0301");       /* A combining accent: kept. */
  OK("\u2800 Ana \u2800", "Ana");       /* Trimmed after the blanks went. */
  REFUSED("\u2800\ufff9");              /* Nothing left. */
  return 0;
}

static const char *skel_of(const char *name) {
  static char skel[SRV_NAME_SKELETON_SIZE];
  int n = srv_names_skeleton(name, skel, sizeof skel);
  return n < 0 ? "(error)" : skel;
}

TEST_IMPL(skeletons) {
  /* The account: no prototype changes "Magnus_Oak"; NFKC_Casefold "magnus_oak"; m -> rn; again
   * the same; letters: "rnagnusoak". */
  ASSERT_STR_EQ(skel_of("Magnus_Oak"), "rnagnusoak");
  /* U+0261 -> g, then as the account. */
  ASSERT_STR_EQ(skel_of("Ma\u0261nus_Oak"), "rnagnusoak");
  /* U+212A Kelvin sign: its canonical decomposition (the skeleton's NFD) is K; casefold k. */
  ASSERT_STR_EQ(skel_of("Magnus_Oa\u212a"), "rnagnusoak");
  /* Lisu MA U+A4DF -> M; casefold m -> rn. */
  ASSERT_STR_EQ(skel_of("\ua4dfagnus_Oak"), "rnagnusoak");
  /* Lisu A U+A4EE -> A; casefold a. */
  ASSERT_STR_EQ(skel_of("M\ua4eegnus_Oak"), "rnagnusoak");
  /* Armenian capital OH U+0555: no prototype of its own (confusables.txt has 0555 ; 004F: O,
   * either way o after casefold); casefold U+0585 -> o. */
  ASSERT_STR_EQ(skel_of("Magnus_\u0555ak"), "rnagnusoak");
  /* Armenian vo U+0578 -> n, seh U+057D -> u. */
  ASSERT_STR_EQ(skel_of("Mag\u0578\u057ds_Oak"), "rnagnusoak");
  /* Mathematical bold (U+1D40C M, U+1D41A a, U+1D420 g, U+1D427 n, U+1D42E u, U+1D42C s,
   * U+1D40E O, U+1D41A a, U+1D424 k): their prototypes (and NFKC) are ASCII. */
  ASSERT_STR_EQ(skel_of("\U0001d40c\U0001d41a\U0001d420\U0001d427\U0001d42e\U0001d42c_"
                        "\U0001d40e\U0001d41a\U0001d424"),
                "rnagnusoak");
  /* The braille blank and U+FFF9 are dropped first. */
  ASSERT_STR_EQ(skel_of("Magnus_Oak\u2800"), "rnagnusoak");
  ASSERT_STR_EQ(skel_of("\ufff9Magnus_Oak"), "rnagnusoak");
  /* Spaces and punctuation are not letters: "Magnus Oak" reads as "Magnus_Oak". */
  ASSERT_STR_EQ(skel_of("Magnus Oak!"), "rnagnusoak");
  /* I, 1 and l are one prototype, l (before case folding would make the I an i); i is not (its
   * dot shows). */
  ASSERT_STR_EQ(skel_of("Il1i"), "llli");
  /* A different name stays different. */
  ASSERT_STR_EQ(skel_of("Magnus_Oaks"), "rnagnusoaks");
  /* Letters with no look-alike stay themselves. */
  ASSERT_STR_EQ(skel_of("\u540d\u524d"), "\u540d\u524d"); /* 名前 */
  /* Nothing visible: an empty skeleton; not UTF-8: an error. */
  ASSERT_STR_EQ(skel_of("\u200b!"), "");
  ASSERT_STR_EQ(skel_of("\xff"), "(error)");
  char small[4];
  ASSERT_EQ(srv_names_skeleton("Magnus", small, sizeof small), -1);
  ASSERT_STR_EQ(small, "");
  return 0;
}

/* ---- Keys, account names, reserved words ---- */

static const char *key_of(const char *name) {
  static char key[SRV_NAME_KEY_SIZE];
  int n = srv_names_key(name, key, sizeof key);
  return n < 0 ? "(error)" : key;
}

TEST_IMPL(keys) {
  /* Case. */
  ASSERT_STR_EQ(key_of("Ana"), "ana");
  ASSERT_STR_EQ(key_of("ANA"), "ana");
  /* Accents, composed (U+00C9) or decomposed (E + U+0301); i reads as l. */
  ASSERT_STR_EQ(key_of("\xc3\x89lodie"), "elodle");
  ASSERT_STR_EQ(key_of("E\xcc\x81lodie"), "elodle");
  ASSERT_STR_EQ(key_of("Elodie"), "elodle");
  /* Polish letters without a decomposition: ł is l. */
  ASSERT_STR_EQ(key_of("\xc5\x81ukasz"), "lukasz");
  ASSERT_STR_EQ(key_of("Lukasz"), "lukasz");
  /* Two letters for one: ß, æ. */
  ASSERT_STR_EQ(key_of("Stra\xc3\x9f"
                       "e"),
                "strasse");
  ASSERT_STR_EQ(key_of("\xc3\x86sa"), "aesa");
  /* Fullwidth forms are ASCII (NFKC): Ｍａｒｉａ. */
  ASSERT_STR_EQ(key_of("\xef\xbc\xad\xef\xbd\x81\xef\xbd\x92\xef\xbd\x89\xef\xbd\x81"), "marla");
  /* Look-alike digits and letters. */
  ASSERT_STR_EQ(key_of("B0b"), "bob");
  ASSERT_STR_EQ(key_of("Ivan"), "lvan");
  ASSERT_STR_EQ(key_of("ivan"), "lvan");
  ASSERT_STR_EQ(key_of("1van"), "lvan");
  ASSERT_STR_EQ(key_of("|van"), "lvan");
  ASSERT_STR_EQ(key_of("Marn"), "mam");
  ASSERT_STR_EQ(key_of("vvalter"), "walter");
  /* Cyrillic letters that look Latin: a Cyrillic А (U+0410) in "Аna"; "АННА" and "анна" are the
   * same name and read as "ahha". */
  ASSERT_STR_EQ(key_of("\xd0\x90na"), "ana");
  ASSERT_STR_EQ(key_of("\xd0\x90\xd0\x9d\xd0\x9d\xd0\x90"), "ahha");
  ASSERT_STR_EQ(key_of("\xd0\xb0\xd0\xbd\xd0\xbd\xd0\xb0"), "ahha");
  /* Ё folds to е (e); л has no Latin look-alike and stays: "Ёлка" and "елка" are one key. */
  ASSERT_STR_EQ(key_of("\xd0\x81\xd0\xbb\xd0\xba\xd0\xb0"), "e\xd0\xbb"
                                                            "ka");
  ASSERT_STR_EQ(key_of("\xd0\xb5\xd0\xbb\xd0\xba\xd0\xb0"), "e\xd0\xbb"
                                                            "ka");
  /* Greek capitals that look Latin: ΑΝΑ. */
  ASSERT_STR_EQ(key_of("\xce\x91\xce\x9d\xce\x91"), "ana");
  /* Spaces, punctuation and invisible characters (a zero-width joiner) say nothing. */
  ASSERT_STR_EQ(key_of("a.n.a"), "ana");
  ASSERT_STR_EQ(key_of(" A n a "), "ana");
  ASSERT_STR_EQ(key_of("A\xe2\x80\x8dna"), "ana");
  ASSERT_STR_EQ(key_of("An\xc2\xa0"
                       "a"),
                "ana");
  /* Nothing left, and not UTF-8. */
  ASSERT_STR_EQ(key_of("!!!"), "");
  ASSERT_STR_EQ(key_of("\xff"), "(error)");
  ASSERT_STR_EQ(key_of("a\xc3"), "(error)");
  ASSERT_STR_EQ(key_of("\xed\xa0\x80"), "(error)"); /* A surrogate. */
  ASSERT_STR_EQ(key_of("\xc0\xaf"), "(error)");     /* An overlong "/". */
  /* A key that does not fit is an error, not a cut key. */
  char small[3];
  ASSERT_EQ(srv_names_key("Anna", small, sizeof small), -1);
  ASSERT_STR_EQ(small, "");
  return 0;
}

/* Runs srv_names_account() and returns its code; out gets the normal form, key the key. */
static int account(const char *name, char *out, char *key) {
  const char *why = NULL;
  int rc = srv_names_account(name, out, SRV_NAME_SIZE, key, &why);
  ASSERT_NOT_NULL(why);
  ASSERT((rc == 0) == (why[0] == '\0'));
  return rc;
}

TEST_IMPL(account_names) {
  char out[SRV_NAME_SIZE], key[SRV_NAME_KEY_SIZE];
  ASSERT_EQ(account("Ana", out, key), 0);
  ASSERT_STR_EQ(out, "Ana");
  ASSERT_STR_EQ(key, "ana");
  ASSERT_EQ(account("an_a-b9", out, key), 0);
  ASSERT_STR_EQ(key, "anab9");
  /* Length: 3..20 characters (code points). */
  ASSERT_EQ(account("ab", out, key), SRV_ENAMEINVALID);
  ASSERT_EQ(account("abcdefghijklmnopqrst", out, key), 0);
  ASSERT_EQ(account("abcdefghijklmnopqrstu", out, key), SRV_ENAMEINVALID);
  ASSERT_EQ(account("\xc5\x81\xc3\xb3\xc5\xba", out, key), 0); /* Łóź: three, not six. */
  /* Characters and separators. */
  ASSERT_EQ(account("Ana Bo", out, key), SRV_ENAMEINVALID);
  ASSERT_EQ(account("Ana!", out, key), SRV_ENAMEINVALID);
  ASSERT_EQ(account("_ana", out, key), SRV_ENAMEINVALID);
  ASSERT_EQ(account("ana_", out, key), SRV_ENAMEINVALID);
  ASSERT_EQ(account("an__a", out, key), SRV_ENAMEINVALID);
  ASSERT_EQ(account("an-_a", out, key), SRV_ENAMEINVALID);
  ASSERT_EQ(account("1ana", out, key), SRV_ENAMEINVALID);
  ASSERT_EQ(account("ana1", out, key), 0);
  ASSERT_EQ(account("A\xe2\x80\x8dna", out, key), SRV_ENAMEINVALID); /* A zero-width joiner. */
  ASSERT_EQ(account("\xff"
                    "abc",
                    out, key),
            SRV_ENAMEINVALID);
  /* One script: a Cyrillic А among Latin letters is refused; all Cyrillic is a name. */
  ASSERT_EQ(account("\xd0\x90nna", out, key), SRV_ENAMEINVALID);
  ASSERT_EQ(account("\xd0\x90\xd0\xbd\xd0\xbd\xd0\xb0", out, key), 0);
  ASSERT_STR_EQ(key, "ahha");
  /* Normal form: a decomposed É is stored composed; fullwidth letters as ASCII. */
  ASSERT_EQ(account("E\xcc\x81lodie", out, key), 0);
  ASSERT_STR_EQ(out, "\xc3\x89lodie");
  ASSERT_EQ(account("\xef\xbc\xa1\xef\xbd\x8e\xef\xbd\x81", out, key), 0);
  ASSERT_STR_EQ(out, "Ana");
  /* A mark that composes with nothing we know is refused, not kept. */
  ASSERT_EQ(account("Anq\xcc\x81", out, key), SRV_ENAMEINVALID);
  return 0;
}

TEST_IMPL(reserved_words) {
  char out[SRV_NAME_SIZE], key[SRV_NAME_KEY_SIZE];
  /* The computer in every language of the client, however spelt. */
  ASSERT_EQ(account("Computer", out, key), SRV_ENAMERESERVED);
  ASSERT_EQ(account("C0MPUTER", out, key), SRV_ENAMERESERVED);
  ASSERT_EQ(account("computer_2", out, key), SRV_ENAMERESERVED);
  ASSERT_EQ(account("Ordinateur", out, key), SRV_ENAMERESERVED);
  ASSERT_EQ(account("Komputer", out, key), SRV_ENAMERESERVED);
  ASSERT_EQ(
      account("\xd0\x9a\xd0\xbe\xd0\xbc\xd0\xbf\xd1\x8c\xd1\x8e\xd1\x82\xd0\xb5\xd1\x80", out, key),
      SRV_ENAMERESERVED); /* Компьютер */
  /* Roles, and the guests' names. */
  ASSERT_EQ(account("admin", out, key), SRV_ENAMERESERVED);
  ASSERT_EQ(account("Administrator", out, key), SRV_ENAMERESERVED);
  ASSERT_EQ(account("Adm1n_2", out, key), SRV_ENAMERESERVED);
  ASSERT_EQ(account("Guest4821", out, key), SRV_ENAMERESERVED);
  ASSERT_EQ(account("guest_ana", out, key), SRV_ENAMERESERVED);
  ASSERT_EQ(account("Go\xc5\x9b\xc4\x87", out, key), SRV_ENAMERESERVED); /* Gość */
  ASSERT_EQ(account("deleted", out, key), SRV_ENAMERESERVED);
  ASSERT_EQ(account("Mancala_fan", out, key), SRV_ENAMERESERVED);
  /* Near misses are names. */
  ASSERT_EQ(account("Computa", out, key), 0);
  ASSERT_EQ(account("Guesty", out, key), SRV_ENAMERESERVED); /* A prefix: "guest..." */
  ASSERT_EQ(account("Gustav", out, key), 0);
  ASSERT_EQ(account("Modesto", out, key), 0);
  return 0;
}

TEST_IMPL(display_names) {
  char key[SRV_NAME_KEY_SIZE];
  /* A guest is a guest: its generated name is fine, and anything readable. */
  ASSERT_EQ(srv_names_display("Guest 4821", key), 0);
  ASSERT_EQ(srv_names_display("Ana \"A\"", key), 0);
  ASSERT_STR_EQ(key, "anaa");
  ASSERT_EQ(srv_names_display("!!!", key), 0);
  /* But not the computer or a role, whatever the script or spaces. */
  ASSERT_EQ(srv_names_display("Computer", key), SRV_ENAMERESERVED);
  ASSERT_EQ(srv_names_display("C\xd0\xbemputer", key), SRV_ENAMERESERVED); /* Cyrillic о */
  ASSERT_EQ(srv_names_display("comp uter 2", key), SRV_ENAMERESERVED);
  ASSERT_EQ(srv_names_display("Admin", key), SRV_ENAMERESERVED);
  ASSERT_EQ(srv_names_display("[deleted]", key), SRV_ENAMERESERVED);
  ASSERT_EQ(srv_names_display("\xff", key), SRV_ENAMEINVALID);
  return 0;
}
