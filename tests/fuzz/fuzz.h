/* What the fuzz targets share: a cursor over libFuzzer's input, and the check that ends a run.
 *
 * Each target (tests/fuzz/fuzz_*.c) defines LLVMFuzzerTestOneInput(). Built with clang's
 * -fsanitize=fuzzer it is a libFuzzer program (tests/fuzz/run.sh); built with replay.c instead it
 * replays the files it is given, so that every build (gcc included) runs the committed corpus.
 * A check that fails prints what and aborts: libFuzzer saves the input as a crash.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input, read from the front; reads past the end give zeros. */
typedef struct fz_in {
  const uint8_t *p;
  size_t n;
} fz_in;

static inline uint8_t fz_u8(fz_in *in) {
  if (in->n == 0)
    return 0;
  in->n--;
  return *in->p++;
}

static inline uint16_t fz_u16(fz_in *in) {
  uint16_t hi = fz_u8(in);
  return (uint16_t)(hi << 8 | fz_u8(in));
}

/* Takes up to want bytes; returns how many (*out points into the input). */
static inline size_t fz_bytes(fz_in *in, size_t want, const uint8_t **out) {
  size_t k = want < in->n ? want : in->n;
  *out = in->p;
  in->p += k;
  in->n -= k;
  return k;
}

#define FZ_CHECK(expr)                                                                             \
  do {                                                                                             \
    if (!(expr)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #expr);                     \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

#endif
