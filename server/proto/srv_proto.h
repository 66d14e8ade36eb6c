/* The protocol layer (protocol v1): frames in, typed commands out (srv_proto_decode.c); typed
 * events in, frames out (srv_proto_encode.c). Nothing else in the server reads or writes JSON
 * messages, and nothing here exposes a JSON library.
 *
 * Decoding is driven by one table of message types and their fields (name, JSON type, required);
 * each field has a small store function that checks its range and writes the typed command. A
 * frame that fails any check yields an error and no command, so nothing changes.
 */
#ifndef SRV_PROTO_H
#define SRV_PROTO_H

#include <stddef.h>

#include "srv_frame.h"
#include "srv_msg.h"

#define SRV_FRAME_MAX 4096

/* Details of a decoding failure, for the error frame. */
typedef struct srv_proto_error {
  const char *field;   /* The offending field ("house", "options.rounds"...), or NULL. Static. */
  const char *request; /* The message type when it was recognised, or NULL. Static. */
} srv_proto_error;

/* Decodes one text frame (buf, len bytes; borrowed) into *cmd. Returns 0, or SRV_EBADJSON,
 * SRV_EUNKTYPE, SRV_EBADREQ, SRV_ETOOLARGE with *err filled. The request id is decoded first, so
 * cmd->id is valid for the error reply whenever it could be read. A move of the common shape goes
 * through srv_proto_decode_move(), which allocates nothing; everything else through the full
 * decoder: the results and the errors are the same either way. */
int srv_proto_decode(const char *buf, size_t len, srv_cmd *cmd, srv_proto_error *err);

/* The fast path of srv_proto_decode(): a valid move frame of the common shape (the fields type,
 * room, house, ply and an optional integer or plain string id, in any order, plain ASCII strings
 * without escapes, integers without sign, fraction or exponent) decoded without a JSON tree.
 * Returns 1 with *cmd exactly as the full decoder makes it, or 0 for anything else (unusual,
 * invalid or another type), leaving the frame to srv_proto_decode_full(). */
int srv_proto_decode_move(const char *buf, size_t len, srv_cmd *cmd);

/* The full decoder alone (jansson and the message table): what srv_proto_decode() falls back to.
 * Same contract as srv_proto_decode(). */
int srv_proto_decode_full(const char *buf, size_t len, srv_cmd *cmd, srv_proto_error *err);

/* Reads only the request id of a frame (for errors sent without decoding it, like rate_limited).
 * Leaves id->kind SRV_ID_NONE when there is none or the frame is not JSON. */
void srv_proto_peek_id(const char *buf, size_t len, srv_req_id *id);

/* Returns the protocol name of a command type ("move"...), or NULL. Static storage. */
const char *srv_proto_cmd_name(srv_cmd_type type);

/* Encodes ev (borrowed) into a new frame with one reference (the caller's), or returns NULL when
 * memory runs out: never a partial or malformed frame. Loop thread only (the hot frames share one
 * reusable buffer). */
srv_frame *srv_proto_encode(const srv_event *ev);

/* Frees what cache (a srv_state_view's) holds and makes it empty again. NULL is allowed. */
void srv_state_cache_free(srv_state_cache *cache);

/* Writes the lobby entry e (borrowed) as a JSON object into *text (a new NUL-terminated string,
 * the caller's to free) and its length into *len. Returns 0 or SRV_ENOMEM. Loop thread only. */
int srv_proto_lobby_entry(const srv_lobby_entry *e, char **text, size_t *len);

/* One my_rooms entry encoded alone (a JSON object, as in the list): the same contract as
 * srv_proto_lobby_entry(). A cluster's node keeps its rooms' entries in Redis for the players'
 * lists on other nodes. */
int srv_proto_my_room_entry(const srv_my_room *r, char **text, size_t *len);

/* Returns a new frame (one reference, the caller's) that is f (borrowed; one of the hot frames:
 * state, lobby, joined, chat, error) answering the request id (borrowed): the same text with the
 * id after the type, so that a frame encoded once for many clients costs the requester a copy,
 * not a second encoding. NULL when memory runs out. */
srv_frame *srv_proto_with_id(const srv_frame *f, const srv_req_id *id);

/* Returns a new frame (one reference, the caller's) that is the state f (borrowed) as the seat
 * you sees it: the same text with its "you" replaced (f's you_at, you_len), which is all that
 * differs between two players' and the spectators' frames of one state. Costs a copy, not a
 * second encoding. NULL when f is not an encoded state or memory runs out. */
srv_frame *srv_proto_with_you(const srv_frame *f, int you);

/* Frees the encoder's reusable buffer and the frames kept for reuse (srv_frame_pool_free()) (at
 * exit; the next encode grows a new one). */
void srv_proto_encode_cleanup(void);

/* Returns nonzero when c is one of the 31 room code characters (either case). */
int srv_proto_code_char(int c);

#endif
