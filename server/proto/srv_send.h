/* The one way to send: an event or an error is encoded into a frame (srv_proto.h) and queued for
 * a client through the sink, Mosquitto's packet__queue. Every module that answers a client (the
 * dispatch, hello, accounts, rooms) sends through here, so none of them calls back into another
 * to send. The sink belongs to the network layer in the server
 * and records frames in the unit tests; it only queues: writing happens later, at the network
 * layer's pace, after the loop turn's storage commit.
 */
#ifndef SRV_SEND_H
#define SRV_SEND_H

#include <stdint.h>

#include "srv_frame.h"
#include "srv_msg.h"

struct srv_client;

/* Where frames go. Neither function may call back into the rooms (queue, do not close). */
typedef struct srv_sink {
  /* Queues frame (borrowed) for to, taking its own reference. */
  void (*queue)(void *ud, struct srv_client *to, srv_frame *frame);
  /* A frame for to could not be made (memory ran out): to can no longer be kept in step with its
   * rooms, so the sink drops its connection (a reconnection gets everything again). */
  void (*lost)(void *ud, struct srv_client *to);
  void *ud;
} srv_sink;

/* Encodes ev (borrowed) and queues it for to. Returns 0, or SRV_ENOMEM when the frame could not
 * be made (then the sink was told that to is lost). */
int srv_send_event(const srv_sink *sink, struct srv_client *to, const srv_event *ev);

/* Encodes an error frame for err (echoing the request id, naming the field and the request; all
 * borrowed, NULL allowed; retry_after_ms 0: none) and queues it for to: the one place errors
 * become frames, counted in the metrics and logged at debug level. Returns as srv_send_event(). */
int srv_send_error(const srv_sink *sink, struct srv_client *to, int err, const srv_req_id *id,
                   const char *field, const char *request, int64_t retry_after_ms);

/* Queues frame (borrowed; the queue takes its own reference) for to. */
void srv_send_frame(const srv_sink *sink, struct srv_client *to, srv_frame *frame);

#endif
