/* The server tests' kit, after libuv's test/task.h: fatal assertions and named tests.
 *
 * A test is a function defined with TEST_IMPL(name) in a tests/server/test_FILE.c file. CMake
 * finds every such file and every TEST_IMPL in it, builds one program per file with the kit's
 * runner, and registers each test with ctest as server.FILE.name (one process per test, so they
 * run alone or in parallel: `ctest -R server.room.move_stale`). The program runs one test by name
 * (`server_test_room move_stale`), or every test of the file, each in its own child process,
 * without arguments.
 *
 * An ASSERT_* that fails prints the file, the line and the values, and aborts the process: a test
 * stops at its first failure. A test returns 0 when it ends.
 *
 * Helpers (HELPER_IMPL) are entry points a test starts as another process of the same program
 * (`server_test_store_schema --helper second_server DIR`), see test_run_helper().
 */
#ifndef TASK_H
#define TASK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TEST_FILE
#error "TEST_FILE must name the test file (CMake defines it)"
#endif

/* test_FILE__name and helper_FILE__name, FILE expanded first. */
#define TEST_NAME3_(kind, file, name) kind##_##file##__##name
#define TEST_NAME_(kind, file, name) TEST_NAME3_(kind, file, name)
#define TEST_FN_(name) TEST_NAME_(test, TEST_FILE, name)
#define HELPER_FN_(name) TEST_NAME_(helper, TEST_FILE, name)
#define TEST_IMPL(name)                                                                            \
  int TEST_FN_(name)(void);                                                                        \
  int TEST_FN_(name)(void)
#define HELPER_IMPL(name)                                                                          \
  int HELPER_FN_(name)(int argc, char **argv);                                                     \
  int HELPER_FN_(name)(int argc, char **argv)

/* The program's path (argv[0]), for tests that start a helper. */
extern const char *test_self;

/* Runs helper name of this program as a child process with argument arg, waits for it and returns
 * its exit status, or -1 when it could not run or was killed. */
int test_run_helper(const char *name, const char *arg);

/* The port a service started by the tests wrote in dir/port (tests/pg.sh, tests/redis.sh); the
 * test fails when there is none. */
int test_port_in(const char *dir);

#define TEST_FAIL_(fmt, ...)                                                                       \
  do {                                                                                             \
    fprintf(stderr, "%s:%d: " fmt "\n", __FILE__, __LINE__, __VA_ARGS__);                          \
    fflush(stderr);                                                                                \
    abort();                                                                                       \
  } while (0)

#define ASSERT(expr)                                                                               \
  do {                                                                                             \
    if (!(expr))                                                                                   \
      TEST_FAIL_("assertion failed: %s", #expr);                                                   \
  } while (0)

#define ASSERT_CMP_(a, op, b)                                                                      \
  do {                                                                                             \
    long long assert_a_ = (long long)(a), assert_b_ = (long long)(b);                              \
    if (!(assert_a_ op assert_b_))                                                                 \
      TEST_FAIL_("assertion failed: %s " #op " %s (%lld " #op " %lld)", #a, #b, assert_a_,         \
                 assert_b_);                                                                       \
  } while (0)

#define ASSERT_EQ(a, b) ASSERT_CMP_(a, ==, b)
#define ASSERT_NE(a, b) ASSERT_CMP_(a, !=, b)
#define ASSERT_LT(a, b) ASSERT_CMP_(a, <, b)
#define ASSERT_LE(a, b) ASSERT_CMP_(a, <=, b)
#define ASSERT_GT(a, b) ASSERT_CMP_(a, >, b)
#define ASSERT_GE(a, b) ASSERT_CMP_(a, >=, b)

#define ASSERT_STR_EQ(a, b)                                                                        \
  do {                                                                                             \
    const char *assert_a_ = (a), *assert_b_ = (b);                                                 \
    if (assert_a_ == NULL || assert_b_ == NULL || strcmp(assert_a_, assert_b_) != 0)               \
      TEST_FAIL_("assertion failed: %s == %s (\"%s\" == \"%s\")", #a, #b,                          \
                 assert_a_ ? assert_a_ : "(null)", assert_b_ ? assert_b_ : "(null)");              \
  } while (0)

#define ASSERT_NULL(a) ASSERT((a) == NULL)
#define ASSERT_NOT_NULL(a) ASSERT((a) != NULL)

#endif
