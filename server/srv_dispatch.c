/* Frame -> command -> handler, and errors -> error frames (see srv_dispatch.h). */
#include "srv_dispatch.h"

#include <time.h>

#include "srv_error.h"
#include "srv_hello.h"
#include "srv_log.h"
#include "srv_metrics.h"
#include "srv_proto.h"

typedef int (*handler)(srv_dispatch *d, srv_client *c, const srv_cmd *cmd);

/* The room commands take the room registry. */
#define ROOM_HANDLER(name)                                                                         \
  static int on_##name(srv_dispatch *d, srv_client *c, const srv_cmd *cmd) {                       \
    return srv_room_##name(d->rooms, c, cmd);                                                      \
  }
ROOM_HANDLER(create)
ROOM_HANDLER(join)
ROOM_HANDLER(quick)
ROOM_HANDLER(leave)
ROOM_HANDLER(move)
ROOM_HANDLER(resign)
ROOM_HANDLER(draw)
ROOM_HANDLER(rematch)
ROOM_HANDLER(chat)
ROOM_HANDLER(resync)
#undef ROOM_HANDLER

static int on_lobby(srv_dispatch *d, srv_client *c, const srv_cmd *cmd) {
  return srv_lobby_request(d->lobby, c, cmd);
}

/* The dispatch table: one handler per request type. */
static const handler handlers[SRV_CMD_COUNT] = {
    [SRV_CMD_HELLO] = srv_hello,    [SRV_CMD_CREATE] = on_create, [SRV_CMD_JOIN] = on_join,
    [SRV_CMD_QUICK] = on_quick,     [SRV_CMD_LEAVE] = on_leave,   [SRV_CMD_LOBBY] = on_lobby,
    [SRV_CMD_MOVE] = on_move,       [SRV_CMD_RESIGN] = on_resign, [SRV_CMD_DRAW] = on_draw,
    [SRV_CMD_REMATCH] = on_rematch, [SRV_CMD_CHAT] = on_chat,     [SRV_CMD_RESYNC] = on_resync,
};

int srv_dispatch_send(srv_dispatch *d, srv_client *c, const srv_event *ev) {
  return srv_send_event(&d->sink, c, ev);
}

void srv_dispatch_error(srv_dispatch *d, srv_client *c, int err, const srv_req_id *id,
                        const char *field, const char *request) {
  srv_event ev = {.type = SRV_EV_ERROR, .id = id};
  ev.u.error.err = err;
  ev.u.error.field = field;
  ev.u.error.request = request;
  srv_metrics_error(err);
  srv_log_debug("dispatch", "error %s%s%s", srv_err_code(err), field ? " field " : "",
                field ? field : "");
  srv_dispatch_send(d, c, &ev);
}

int srv_dispatch_command(srv_dispatch *d, srv_client *c, const srv_cmd *cmd) {
  if ((unsigned)cmd->type >= SRV_CMD_COUNT || handlers[cmd->type] == NULL)
    return SRV_EINTERNAL;
  if (cmd->type != SRV_CMD_HELLO && c->player == NULL)
    return SRV_EHELLO;
  return handlers[cmd->type](d, c, cmd);
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void srv_dispatch_frame(srv_dispatch *d, srv_client *c, const char *buf, size_t len) {
  uint64_t start = now_ns();
  srv_cmd cmd;
  srv_proto_error perr;
  int rc = srv_proto_decode(buf, len, &cmd, &perr);
  if (rc != 0) {
    srv_dispatch_error(d, c, rc, &cmd.id, perr.field, perr.request);
  } else if ((rc = srv_dispatch_command(d, c, &cmd)) != 0) {
    /* A handler's bad_request is about the opponent (quick with a local opponent). */
    srv_dispatch_error(d, c, rc, &cmd.id, rc == SRV_EBADREQ ? "opponent" : NULL,
                       srv_proto_cmd_name(cmd.type));
  }
  srv_metrics_handled(now_ns() - start);
}

void srv_dispatch_client_gone(srv_dispatch *d, srv_client *c) {
  srv_lobby_client_gone(d->lobby, c);
  srv_rooms_client_gone(d->rooms, c);
}
