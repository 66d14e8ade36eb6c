/* Password hashing cost (srv_pwhash.h): prints the milliseconds one Argon2id hash and one check
 * take with the server's parameters, and how many checks per second 1, 2 and 4 threads sustain
 * (the server runs them on libuv's thread pool, 4 threads by default, at most 16 queued).
 *
 *   build/bin/pwhash-bench [hashes per thread, default 20]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srv_pwhash.h"

static double clock_ms(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double now_ms(void) {
  return clock_ms(CLOCK_MONOTONIC);
}

static int per_thread = 20;
static char stored[SRV_PWHASH_SIZE];

static void *checker(void *arg) {
  (void)arg;
  for (int i = 0; i < per_thread; i++) {
    if (srv_pwhash_verify(stored, "correct horse battery", 21) != 0) {
      fprintf(stderr, "pwhash-bench: a check failed\n");
      exit(1);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1)
    per_thread = atoi(argv[1]) > 0 ? atoi(argv[1]) : 20;
  if (srv_pwhash_init() != 0) {
    fprintf(stderr, "pwhash-bench: libsodium cannot start\n");
    return 1;
  }
  printf("Argon2id, %zu MiB, %llu passes, 1 lane\n", SRV_PWHASH_MEMLIMIT >> 20,
         (unsigned long long)SRV_PWHASH_OPSLIMIT);
  /* Wall time and the thread's CPU time: on a loaded machine the second is the cost itself. */
  double t0 = now_ms(), c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
  for (int i = 0; i < per_thread; i++) {
    if (srv_pwhash_hash("correct horse battery", 21, stored) != 0) {
      fprintf(stderr, "pwhash-bench: out of memory\n");
      return 1;
    }
  }
  printf("hash:  %.1f ms each, %.1f ms of CPU (%d hashes)\n", (now_ms() - t0) / per_thread,
         (clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0) / per_thread, per_thread);
  c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
  for (int i = 0; i < per_thread; i++) {
    if (srv_pwhash_verify(stored, "correct horse battery", 21) != 0) {
      fprintf(stderr, "pwhash-bench: a check failed\n");
      return 1;
    }
  }
  printf("check: %.1f ms of CPU each\n", (clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0) / per_thread);
  int threads[] = {1, 2, 4};
  for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
    pthread_t th[4];
    double t = now_ms();
    for (int i = 0; i < threads[k]; i++)
      pthread_create(&th[i], NULL, checker, NULL);
    for (int i = 0; i < threads[k]; i++)
      pthread_join(th[i], NULL);
    double dt = now_ms() - t;
    printf("check: %d thread%s, %.1f ms each, %.1f checks/s\n", threads[k],
           threads[k] > 1 ? "s" : "", dt / per_thread, threads[k] * per_thread * 1000.0 / dt);
  }
  return 0;
}
