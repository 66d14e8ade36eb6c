/* Outgoing frames: the encoded text of one message, reference-counted so that one frame can sit in
 * the send queues of every client it goes to (Redis' shared reply objects). Sized for the network
 * layer: SRV_FRAME_PRE bytes of headroom before the text, where libwebsockets writes the WebSocket
 * header (LWS_PRE; srv_net.c checks that it fits).
 *
 * A frame is immutable once made. The loop thread owns every frame; reference counts are plain
 * integers. Frames the size of a state are allocated in two sizes, 1 KiB and 2 KiB (their header
 * included), and kept for reuse when freed, up to SRV_FRAME_POOL_MAX of each size per thread: a
 * move in steady state allocates no frame (srv_frame_pool_free() at exit). Frames of at most a
 * quarter of SRV_FRAME_POOLED (a welcome, an error, a chat line) and larger ones are allocated at
 * their size: a pooled frame uses at least half of its allocation.
 */
#ifndef SRV_FRAME_H
#define SRV_FRAME_H

#include <stdbool.h>
#include <stddef.h>

#include "srv_msg.h"

#define SRV_FRAME_PRE 16
#define SRV_FRAME_POOLED 2048 /* Bytes of the larger pooled allocation; the smaller is half. */
#define SRV_FRAME_POOL_MAX 64

typedef struct srv_frame {
  unsigned refs;
  srv_event_type type;         /* States and lobby lists can be superseded in a queue... */
  bool reply;                  /* ...unless they answer a request (they carry its id)... */
  bool full;                   /* ...or hold a game's moves (a full state) and the newer not. */
  signed char pool;            /* Its allocation's pooled size (0: 1 KiB, 1: 2 KiB), -1: none. */
  char room[SRV_CODE_LEN + 1]; /* The room of a state; "" otherwise. */
  /* A state's "you" value: its bytes [you_at, you_at + you_len) of the text, so that the frame
   * for another seat is this one with those bytes replaced (srv_proto_with_you()), not a second
   * encoding. you_len is 0 in every other frame. */
  unsigned you_at, you_len;
  size_t len;           /* Bytes of text. */
  unsigned char data[]; /* SRV_FRAME_PRE bytes of headroom, the text, a NUL. */
} srv_frame;

/* The allocator of frames: malloc(), or a failing one in the tests of the encoder's contract. */
extern void *(*srv_frame_malloc)(size_t size);

/* Returns a new frame of type holding a copy of the len bytes of text (borrowed), with one
 * reference (the caller's), or NULL when memory runs out. room (NULL for none) is copied. */
srv_frame *srv_frame_new(srv_event_type type, bool reply, const char *room, const char *text,
                         size_t len);

/* As srv_frame_new() for a text the caller writes: len bytes at srv_frame_buf() (the NUL after them
 * is written here), before the frame is shared. NULL when memory runs out. */
srv_frame *srv_frame_alloc(srv_event_type type, bool reply, const char *room, size_t len);

/* Where the text of a frame made by srv_frame_alloc() goes (len bytes). */
static inline char *srv_frame_buf(srv_frame *f) {
  return (char *)f->data + SRV_FRAME_PRE;
}

/* Frees the frames this thread keeps for reuse (at exit). */
void srv_frame_pool_free(void);

/* Takes a reference; returns f. */
srv_frame *srv_frame_ref(srv_frame *f);

/* Gives back a reference; the last one frees f. NULL is allowed. */
void srv_frame_unref(srv_frame *f);

/* The text of f (borrowed, NUL-terminated, f->len bytes). */
static inline const char *srv_frame_text(const srv_frame *f) {
  return (const char *)f->data + SRV_FRAME_PRE;
}

#endif
