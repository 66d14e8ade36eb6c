/* The runner of a server test program (see task.h): one test by name, every test each in its own
 * child process, the list of names, or a helper. The table of tests comes from the file CMake
 * generates for each test_FILE.c (runner.h). */
#include "runner.h"

#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "task.h"

const char *test_self;

static int usage(void) {
  fprintf(stderr,
          "usage: %s [TEST | --list | --helper NAME ARGS...]\n"
          "  without arguments every test of %s runs, each in its own process\n",
          test_self, test_file_name);
  return 2;
}

/* Runs entry in a child process; returns 0 when it passed. */
static int run_child(const test_entry *e) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return -1;
  }
  if (pid == 0)
    _exit(e->fn() == 0 ? 0 : 1);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid)
    return -1;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int test_run_helper(const char *name, const char *arg) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    execl(test_self, test_self, "--helper", name, arg, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) == 127)
    return -1;
  return WEXITSTATUS(status);
}

int main(int argc, char **argv) {
  test_self = argv[0];
  if (argc == 1) {
    int failed = 0, n = 0;
    for (const test_entry *e = test_entries; e->name != NULL; e++, n++) {
      int rc = run_child(e);
      printf("%s %d - %s.%s\n", rc == 0 ? "ok" : "not ok", n + 1, test_file_name, e->name);
      failed += rc != 0;
    }
    printf("# %s: %d tests, %d failed\n", test_file_name, n, failed);
    return failed ? 1 : 0;
  }
  if (strcmp(argv[1], "--list") == 0) {
    for (const test_entry *e = test_entries; e->name != NULL; e++)
      printf("%s.%s\n", test_file_name, e->name);
    return 0;
  }
  if (strcmp(argv[1], "--helper") == 0) {
    if (argc < 3)
      return usage();
    for (const helper_entry *h = helper_entries; h->name != NULL; h++) {
      if (strcmp(h->name, argv[2]) == 0)
        return h->fn(argc - 3, argv + 3);
    }
    fprintf(stderr, "%s: no helper %s\n", test_self, argv[2]);
    return 2;
  }
  for (const test_entry *e = test_entries; e->name != NULL; e++) {
    if (strcmp(e->name, argv[1]) == 0) {
      int rc = e->fn();
      printf("%s %s.%s\n", rc == 0 ? "ok" : "not ok", test_file_name, e->name);
      return rc == 0 ? 0 : 1;
    }
  }
  fprintf(stderr, "%s: no test %s\n", test_self, argv[1]);
  return usage();
}

int test_port_in(const char *dir) {
  char path[512];
  snprintf(path, sizeof path, "%s/port", dir);
  FILE *f = fopen(path, "r");
  ASSERT_NOT_NULL(f);
  int port = 0;
  ASSERT_EQ(fscanf(f, "%d", &port), 1);
  fclose(f);
  return port;
}
