/* A minimal assertion kit for the C unit tests: each failed check prints file, line and the
 * values, the test goes on, and check_exit() turns the count into the exit status. */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    check_count++;                                                                                 \
    if (!(cond)) {                                                                                 \
      check_failures++;                                                                            \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);                     \
    }                                                                                              \
  } while (0)

#define CHECK_INT(a, b)                                                                            \
  do {                                                                                             \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);                                \
    check_count++;                                                                                 \
    if (check_a_ != check_b_) {                                                                    \
      check_failures++;                                                                            \
      fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a,          \
              check_a_, #b, check_b_);                                                             \
    }                                                                                              \
  } while (0)

#define CHECK_STR(a, b)                                                                            \
  do {                                                                                             \
    const char *check_a_ = (a), *check_b_ = (b);                                                   \
    check_count++;                                                                                 \
    if (check_a_ == NULL || check_b_ == NULL || strcmp(check_a_, check_b_) != 0) {                 \
      check_failures++;                                                                            \
      fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a,            \
              check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)");                     \
    }                                                                                              \
  } while (0)

/* Prints the summary line and returns the exit status for main(). */
static inline int check_exit(const char *name) {
  printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
  return check_failures ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
