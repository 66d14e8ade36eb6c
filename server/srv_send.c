/* Encoding and queueing (see srv_send.h). */
#include "srv_send.h"

#include "srv_error.h"
#include "srv_proto.h"

int srv_send_event(const srv_sink *sink, struct srv_client *to, const srv_event *ev) {
  srv_frame *f = srv_proto_encode(ev);
  if (f == NULL) {
    sink->lost(sink->ud, to);
    return SRV_ENOMEM;
  }
  sink->queue(sink->ud, to, f);
  srv_frame_unref(f);
  return 0;
}

void srv_send_frame(const srv_sink *sink, struct srv_client *to, srv_frame *frame) {
  sink->queue(sink->ud, to, frame);
}
