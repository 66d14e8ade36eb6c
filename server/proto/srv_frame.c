/* Reference-counted outgoing frames (see srv_frame.h). */
#include "srv_frame.h"

#include <stdlib.h>
#include <string.h>

void *(*srv_frame_malloc)(size_t size) = malloc;

/* The freed frames of SRV_FRAME_POOLED bytes kept for reuse, this thread's. */
static _Thread_local struct {
  srv_frame *v[SRV_FRAME_POOL_MAX];
  size_t n;
} pool;

void srv_frame_pool_free(void) {
  while (pool.n > 0)
    free(pool.v[--pool.n]);
}

srv_frame *srv_frame_alloc(srv_event_type type, bool reply, const char *room, size_t len) {
  size_t size = sizeof(srv_frame) + SRV_FRAME_PRE + len + 1;
  bool pooled = size <= SRV_FRAME_POOLED;
  srv_frame *f;
  if (pooled && pool.n > 0)
    f = pool.v[--pool.n];
  else
    f = srv_frame_malloc(pooled ? SRV_FRAME_POOLED : size);
  if (f == NULL)
    return NULL;
  f->pooled = pooled;
  f->refs = 1;
  f->type = type;
  f->reply = reply;
  f->full = false;
  f->room[0] = '\0';
  f->you_at = f->you_len = 0;
  if (room != NULL) {
    size_t n = strnlen(room, SRV_CODE_LEN);
    memcpy(f->room, room, n);
    f->room[n] = '\0';
  }
  f->len = len;
  f->data[SRV_FRAME_PRE + len] = '\0';
  return f;
}

srv_frame *srv_frame_new(srv_event_type type, bool reply, const char *room, const char *text,
                         size_t len) {
  srv_frame *f = srv_frame_alloc(type, reply, room, len);
  if (f != NULL)
    memcpy(f->data + SRV_FRAME_PRE, text, len);
  return f;
}

srv_frame *srv_frame_ref(srv_frame *f) {
  f->refs++;
  return f;
}

void srv_frame_unref(srv_frame *f) {
  if (f == NULL || --f->refs != 0)
    return;
  if (f->pooled && pool.n < SRV_FRAME_POOL_MAX)
    pool.v[pool.n++] = f;
  else
    free(f);
}
