/* The CPU priority of a process that shares its machine with game servers: mancala-worker lowers
 * its own (docs/computer.md, "Search workers"), so that a server's shallow searches (level 4 in
 * its fast lane) and its loop take the cores first when both want them.
 *
 * Linux keeps the nice value per thread (setpriority(PRIO_PROCESS, 0, ...) changes the calling
 * thread only), and a thread starts with its creator's: lower it before the process starts any
 * thread, and every thread it starts runs at the lowered priority. */
#ifndef SRV_PRIO_H
#define SRV_PRIO_H

/* The highest nice value (the lowest priority) Linux has. */
#define SRV_PRIO_NICE_MAX 19

/* Reads a number of nice steps, "0" to "19" (decimal digits only), into *steps. Returns 0, or -1
 * (and *steps is unchanged) for anything else. */
int srv_prio_parse(const char *text, int *steps);

/* Lowers the calling thread's priority by steps (0-19) nice steps: its nice value becomes the one
 * it had plus steps, at most SRV_PRIO_NICE_MAX (as `nice -n steps` does). *now (when not NULL)
 * gets the nice value in force afterwards. Raising a nice value needs no privilege. Returns 0, or
 * -EINVAL for steps out of range, or the negative errno of getpriority() or setpriority() (a
 * sandbox may forbid it: the caller says so and decides) with nothing changed. */
int srv_prio_lower(int steps, int *now);

#endif
