/* Reference-counted outgoing frames (see srv_frame.h). */
#include "srv_frame.h"

#include <stdlib.h>
#include <string.h>

void *(*srv_frame_malloc)(size_t size) = malloc;

/* The freed frames kept for reuse, this thread's: of SRV_FRAME_POOLED / 2 bytes, and of
 * SRV_FRAME_POOLED. */
static _Thread_local struct {
  srv_frame *v[SRV_FRAME_POOL_MAX];
  size_t n;
} pool[2];

void srv_frame_pool_free(void) {
  for (int k = 0; k < 2; k++)
    while (pool[k].n > 0)
      free(pool[k].v[--pool[k].n]);
}

/* The pool an allocation of size bytes comes from: -1 for none (below half the smaller size, or
 * above the larger), so that a pooled frame uses at least half of what it takes. */
static int pool_of(size_t size) {
  if (size <= SRV_FRAME_POOLED / 4 || size > SRV_FRAME_POOLED)
    return -1;
  return size <= SRV_FRAME_POOLED / 2 ? 0 : 1;
}

srv_frame *srv_frame_alloc(srv_event_type type, bool reply, const char *room, size_t len) {
  size_t size = sizeof(srv_frame) + SRV_FRAME_PRE + len + 1;
  int k = pool_of(size);
  srv_frame *f;
  if (k >= 0 && pool[k].n > 0)
    f = pool[k].v[--pool[k].n];
  else
    f = srv_frame_malloc(k >= 0 ? (size_t)SRV_FRAME_POOLED >> (1 - k) : size);
  if (f == NULL)
    return NULL;
  f->pool = (signed char)k;
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
  if (f->pool >= 0 && pool[f->pool].n < SRV_FRAME_POOL_MAX)
    pool[f->pool].v[pool[f->pool].n++] = f;
  else
    free(f);
}
