/* What /proc says about a process: its CPU time and resident memory (Linux only). */
#ifndef LG_PROC_H
#define LG_PROC_H

#include <sys/types.h>

/* Returns the CPU time (user + system) process pid has used, in seconds, or -1 when it cannot be
 * read (no such process, not Linux). */
double lg_proc_cpu_s(pid_t pid);

/* Returns the resident set size of process pid in KiB (VmRSS), or -1 when it cannot be read. */
long lg_proc_rss_kib(pid_t pid);

#endif
