/* The table a test program's runner reads: CMake generates it from the TEST_IMPL and HELPER_IMPL
 * lines of each tests/server/test_FILE.c (tests/CMakeLists.txt). */
#ifndef RUNNER_H
#define RUNNER_H

typedef struct test_entry {
  const char *name;
  int (*fn)(void);
} test_entry;

typedef struct helper_entry {
  const char *name;
  int (*fn)(int argc, char **argv);
} helper_entry;

/* Both end with an entry whose name is NULL. */
extern const test_entry test_entries[];
extern const helper_entry helper_entries[];
extern const char *const test_file_name;

#endif
