/* The storage seam's reads: a read is a job over a store, answered on the loop thread by a
 * callback. The archive, the players' pages and leaderboards (srv_api.h), login (srv_account.h)
 * and recovery at start (srv_recover.h) read through it, so that a backend whose reads take a
 * round trip (a network database) can answer later without anything on the loop waiting; SQLite's
 * reads are local and run at once, before srv_reader_read() returns. PostgreSQL's run at once too,
 * a blocking round trip, unless srv_reader_use_work() gave the reader a thread pool: then on the
 * pool, one at a time, on a connection of the reader's own, answered later on the loop.
 *
 * A job's fn runs the query against the reader's store and keeps what it read in its own arg;
 * done(arg, rc) then runs on the loop thread with fn's result. Jobs of one reader run in the order
 * they were given. The loop thread owns the reader.
 */
#ifndef SRV_READER_H
#define SRV_READER_H

#include "srv_store.h"
#include "srv_work.h"

typedef struct srv_reader srv_reader;

/* Runs the query of a job against store (the reader's; borrowed) and returns 0 or a negative code
 * of its own choosing, which done receives. */
typedef int (*srv_read_fn)(srv_store *store, void *arg);

/* A job's answer, on the loop thread: rc is what fn returned. */
typedef void (*srv_read_done)(void *arg, int rc);

/* Returns a reader over store (borrowed: the caller keeps it open until srv_reader_free()), or
 * NULL when memory runs out. */
srv_reader *srv_reader_new(srv_store *store);

/* Runs the reader's jobs on work (borrowed; it must outlive the reader) when its store is a
 * network database, on a connection opened now: srv_reader_read() then returns at once and done
 * comes later (a job the pool cancels gets SRV_STORE_EIO). SQLite: nothing changes. Returns 0 or a
 * negative SRV_E* code (the reader keeps reading at once). */
int srv_reader_use_work(srv_reader *r, srv_work *work);

/* Frees r (NULL allowed). No job may be in flight. */
void srv_reader_free(srv_reader *r);

/* Runs fn(store, arg), then done(arg, rc). Returns 0 when done was or will be called, or a
 * negative SRV_E* code (nothing runs, done is never called). */
int srv_reader_read(srv_reader *r, srv_read_fn fn, srv_read_done done, void *arg);

/* The store jobs run against (borrowed). */
srv_store *srv_reader_store(const srv_reader *r);

#endif
