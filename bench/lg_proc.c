/* What /proc says about a process: see lg_proc.h. */
#include "lg_proc.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

double lg_proc_cpu_s(pid_t pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  /* The command name (field 2) may hold spaces and parentheses: fields 3.. follow the last ')'. */
  const char *p = strrchr(buf, ')');
  unsigned long utime, stime;
  if (p == NULL ||
      sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
    return -1;
  long hz = sysconf(_SC_CLK_TCK);
  return (double)(utime + stime) / (double)(hz > 0 ? hz : 100);
}

long lg_proc_rss_kib(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return -1;
  long kib = -1;
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "VmRSS:", 6) == 0) {
      if (sscanf(line + 6, "%ld", &kib) != 1)
        kib = -1;
      break;
    }
  }
  fclose(f);
  return kib;
}
