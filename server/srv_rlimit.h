/* The open-file limit the server runs with.
 *
 * libwebsockets sizes its table of connections by the limit it is given (fd_limit_per_thread).
 * When that is below the process' open-file limit, lws 4.1 marks the table "unrelated to ulimit"
 * and finds the connection of every event by a linear scan of the table (wsi_from_fd()); when it
 * equals the limit, it indexes the table by descriptor. So the server raises its soft limit to the
 * hard one and gives lws exactly that (docs/performance.md, "libwebsockets 4.1 with 10,000
 * connections").
 */
#ifndef SRV_RLIMIT_H
#define SRV_RLIMIT_H

/* The most open files the server asks for: lws allocates two tables of this many entries, and
 * some systems allow a billion. */
#define SRV_RLIMIT_MAX_FILES 1048576

/* Sets the soft open-file limit to the hard one, at most SRV_RLIMIT_MAX_FILES (lowering a soft
 * limit above that), and returns the limit now in force (sysconf(_SC_OPEN_MAX)), or 0 when it
 * cannot be read or is above SRV_RLIMIT_MAX_FILES. A limit that cannot be changed is logged and
 * kept: the server still runs, with what it has. */
long srv_rlimit_open_files(void);

#endif
