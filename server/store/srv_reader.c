/* The storage seam's reads over SQLite (see srv_reader.h): a local read runs at once. */
#include "srv_reader.h"

#include <stdlib.h>

#include "srv_error.h"

struct srv_reader {
  srv_store *store;
};

srv_reader *srv_reader_new(srv_store *store) {
  srv_reader *r = calloc(1, sizeof *r);
  if (r != NULL)
    r->store = store;
  return r;
}

void srv_reader_free(srv_reader *r) {
  free(r);
}

int srv_reader_read(srv_reader *r, srv_read_fn fn, srv_read_done done, void *arg) {
  if (r == NULL || fn == NULL || done == NULL)
    return SRV_EINTERNAL;
  done(arg, fn(r->store, arg));
  return 0;
}

srv_store *srv_reader_store(const srv_reader *r) {
  return r->store;
}
