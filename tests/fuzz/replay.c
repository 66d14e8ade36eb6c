/* A main for the fuzz targets without libFuzzer: runs LLVMFuzzerTestOneInput() once on every file
 * named on the command line, directories included (their files, not recursively), so that every
 * build replays the committed corpus and the inputs of past findings (ctest fuzz.replay_*). Exits
 * 0 when every input ran (a failed check aborts), 1 when a file cannot be read or none was found.
 */
#include <dirent.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return -1;
  }
  size_t cap = 1 << 16, len = 0;
  uint8_t *buf = malloc(cap);
  size_t n;
  while (buf != NULL && (n = fread(buf + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) {
      uint8_t *grown = realloc(buf, cap * 2);
      if (grown == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = grown;
      cap *= 2;
    }
  }
  fclose(f);
  if (buf == NULL) {
    fprintf(stderr, "replay: out of memory reading %s\n", path);
    return -1;
  }
  /* A copy of exactly the input's size, so that AddressSanitizer sees any overread. */
  uint8_t *input = malloc(len ? len : 1);
  if (input == NULL) {
    free(buf);
    return -1;
  }
  memcpy(input, buf, len);
  free(buf);
  LLVMFuzzerTestOneInput(input, len);
  free(input);
  return 0;
}

int main(int argc, char **argv) {
  int ran = 0, failed = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: %s: not found\n", argv[i]);
      failed++;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      failed += run_file(argv[i]) != 0;
      ran++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.')
        continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
      failed += run_file(path) != 0;
      ran++;
    }
    if (d != NULL)
      closedir(d);
  }
  printf("replay: %d inputs, %d unreadable\n", ran, failed);
  return failed == 0 && ran > 0 ? 0 : 1;
}
