/* Encoding and queueing (see srv_send.h). */
#include "srv_send.h"

#include "srv_error.h"
#include "srv_log.h"
#include "srv_metrics.h"
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

int srv_send_error(const srv_sink *sink, struct srv_client *to, int err, const srv_req_id *id,
                   const char *field, const char *request, int64_t retry_after_ms) {
  srv_event ev = {.type = SRV_EV_ERROR, .id = id};
  ev.u.error.err = err;
  ev.u.error.field = field;
  ev.u.error.request = request;
  ev.u.error.retry_after_ms = retry_after_ms;
  srv_metrics_error(err);
  srv_log_debug("send", "error %s%s%s", srv_err_code(err), field ? " field " : "",
                field ? field : "");
  return srv_send_event(sink, to, &ev);
}

void srv_send_frame(const srv_sink *sink, struct srv_client *to, srv_frame *frame) {
  sink->queue(sink->ud, to, frame);
}
