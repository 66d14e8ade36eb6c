/* The heap's free memory given back to the system (issue 25, item 12).
 *
 * glibc's malloc serves a request of at least its mmap threshold (128 KiB at start) with a mapping
 * of its own, unmapped again by free(). But the threshold moves: each time such a mapping is
 * freed, glibc raises the threshold to its size (up to 32 MiB) and the trim threshold to twice
 * that. After one lobby list of 500 KiB went, every later one came from the heap, between small
 * long-lived blocks that pin it: after a lobby burst (200 watchers of 2,000 rooms) the server's
 * resident memory stayed at 145 MiB with its clients gone, 100 MiB of it free inside the heap
 * (malloc_trim(0) gave it back: 47 MiB). Setting the threshold once (srv_heap_init()) stops it
 * moving: a large frame is mapped and unmapped whatever came before.
 *
 * What the threshold does not cover (many small blocks freed at once: thousands of connections
 * leaving; the free memory of the worker threads' arenas) a trimmer gives back now and then: every
 * period it reads how much of the heap is free (mallinfo2(), every arena) and calls malloc_trim(0)
 * when that is more than a bound, on the loop thread (a few milliseconds for 100 MiB; nothing
 * while the heap holds little free memory).
 *
 * Elsewhere than glibc (and under a sanitizer, whose allocator is its own) these do nothing and
 * say so. */
#ifndef SRV_HEAP_H
#define SRV_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "srv_time.h"

/* The mmap threshold the server sets: glibc's own starting value, kept. */
#define SRV_HEAP_MMAP_THRESHOLD (128 * 1024)
/* What free() leaves at the heap's top before it gives it back by itself (srv_heap_init()). */
#define SRV_HEAP_TRIM_THRESHOLD ((size_t)8 << 20)
/* The trimmer's defaults: every 30 s, when more than 16 MiB of the heap is free. */
#define SRV_HEAP_TRIM_PERIOD_MS 30000
#define SRV_HEAP_TRIM_FREE ((size_t)16 << 20)

/* Fixes malloc's mmap threshold at bytes (> 0), so that it no longer rises as mappings are freed,
 * and its trim threshold at SRV_HEAP_TRIM_THRESHOLD.
 * Returns 0, or SRV_EUNSUPPORTED when the allocator has no such setting (not glibc, or a
 * sanitizer's): nothing changed. */
int srv_heap_init(size_t bytes);

/* What the allocator says of its heap, every arena together. */
typedef struct srv_heap_stats {
  size_t free_bytes;   /* Free inside the heap and the arenas: what a trim may give back. */
  size_t in_use_bytes; /* Allocated and not freed, mapped blocks included. */
  size_t mapped_bytes; /* Of those, in blocks mapped on their own (at or over the threshold). */
  size_t mapped_blocks;
} srv_heap_stats;

/* Fills *out. Returns 0, or SRV_EUNSUPPORTED (not glibc; *out zeroed). */
int srv_heap_stats_get(srv_heap_stats *out);

/* Gives the heap's free memory back to the system (malloc_trim(0)) when more than min_free bytes
 * of it are free. Returns 1 when it trimmed, 0 when there was not enough to, or SRV_EUNSUPPORTED.
 * *freed (when not NULL) gets the free bytes it saw. */
int srv_heap_release(size_t min_free, size_t *freed);

typedef struct srv_heap_trimmer srv_heap_trimmer;

/* Returns a trimmer calling srv_heap_release(min_free) every period_ms (> 0) on time's timers
 * (borrowed; they must outlive it), started, or NULL when memory runs out. */
srv_heap_trimmer *srv_heap_trimmer_new(srv_time *time, uint64_t period_ms, size_t min_free);

/* Trims the trimmer has made so far (for tests and logs). */
unsigned long srv_heap_trimmer_trims(const srv_heap_trimmer *t);

/* Stops and frees t (NULL allowed). */
void srv_heap_trimmer_free(srv_heap_trimmer *t);

#endif
