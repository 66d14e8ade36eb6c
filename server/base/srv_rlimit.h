/* The open-file limit the server runs with.
 *
 * libwebsockets 4.1 keeps a table of connections with one entry per possible descriptor, sized by
 * fd_limit_per_thread, and
 * - when that is below the process' open-file limit, marks the table "unrelated to ulimit" and
 *   finds the connection of every event by a linear scan of the table (wsi_from_fd());
 * - whatever the size, scans the whole table once per closed connection (a sanity check, built in
 *   Debian's package).
 * So the table should be exactly the open-file limit, and that limit no larger than the server
 * needs. The server sets its soft limit to what it needs (--max-connections plus room for its
 * own files), within the hard limit, and gives lws exactly that (docs/performance.md,
 * "libwebsockets 4.1 with 10,000 connections").
 */
#ifndef SRV_RLIMIT_H
#define SRV_RLIMIT_H

/* Descriptors the server needs beside its connections: the database and its journal, the
 * listening socket, libuv's own, static files being served, connections being refused. */
#define SRV_RLIMIT_SPARE 256

/* Sets the soft open-file limit to want (raising or lowering it), or to the hard limit when that
 * is lower, and returns the limit now in force (sysconf(_SC_OPEN_MAX)), or 0 when it cannot be
 * read. A limit that cannot be changed is logged and kept: the server still runs, with what it
 * has. */
long srv_rlimit_open_files(long want);

/* How many WebSocket connections an open-file limit of files allows: want, or fewer, so that a
 * reserve of descriptors stays free for what else the server opens (the database and its journal,
 * logs, libuv's and lws' own, files being served, HTTP requests, connections being refused):
 * SRV_RLIMIT_SPARE, or a quarter of a limit below 4 * SRV_RLIMIT_SPARE. At least 1; want itself
 * when files is 0 (unknown). With the limit the server sets itself (want + SRV_RLIMIT_SPARE) this
 * is want. */
long srv_rlimit_connections(long files, long want);

#endif
