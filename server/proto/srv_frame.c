/* Reference-counted outgoing frames (see srv_frame.h). */
#include "srv_frame.h"

#include <stdlib.h>
#include <string.h>

void *(*srv_frame_malloc)(size_t size) = malloc;

srv_frame *srv_frame_alloc(srv_event_type type, bool reply, const char *room, size_t len) {
  srv_frame *f = srv_frame_malloc(sizeof *f + SRV_FRAME_PRE + len + 1);
  if (f == NULL)
    return NULL;
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
  if (f != NULL && --f->refs == 0)
    free(f);
}
