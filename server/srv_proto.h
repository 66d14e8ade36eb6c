/* The protocol layer (protocol v1): frames in, typed commands out; typed events in, JSON out.
 *
 * Decoding is driven by one table of message types and their fields (name, JSON type, required);
 * each field has a small store function that checks its range and writes the typed command. A
 * frame that fails any check yields an error and no command, so nothing changes.
 */
#ifndef SRV_PROTO_H
#define SRV_PROTO_H

#include <jansson.h>
#include <stddef.h>

#include "srv_msg.h"

#define SRV_FRAME_MAX 4096

/* Details of a decoding failure, for the error frame. */
typedef struct srv_proto_error {
  const char *field;   /* The offending field ("house", "options.rounds"...), or NULL. Static. */
  const char *request; /* The message type when it was recognised, or NULL. Static. */
} srv_proto_error;

/* Decodes one text frame (buf, len bytes; borrowed) into *cmd. Returns 0, or SRV_EBADJSON,
 * SRV_EUNKTYPE, SRV_EBADREQ, SRV_ETOOLARGE with *err filled. The request id is decoded first, so
 * cmd->id is valid for the error reply whenever it could be read. */
int srv_proto_decode(const char *buf, size_t len, srv_cmd *cmd, srv_proto_error *err);

/* Reads only the request id of a frame (for errors sent without decoding it, like rate_limited).
 * Leaves id->kind SRV_ID_NONE when there is none or the frame is not JSON. */
void srv_proto_peek_id(const char *buf, size_t len, srv_req_id *id);

/* Returns the protocol name of a command type ("move"...), or NULL. Static storage. */
const char *srv_proto_cmd_name(srv_cmd_type type);

/* Returns a new reference to a JSON object for ev (borrowed), or NULL when memory runs out. */
json_t *srv_proto_encode(const srv_event *ev);

/* Returns a new reference to the JSON array of n trace steps (borrowed), as in a state's
 * last.trace, or NULL when memory runs out. */
json_t *srv_proto_trace_json(const mc_step *steps, size_t n);

/* Returns nonzero when c is one of the 31 room code characters (either case). */
int srv_proto_code_char(int c);

#endif
