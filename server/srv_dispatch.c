/* Frame -> command -> handler, and errors -> error frames. */
#include "srv_dispatch.h"

#include <string.h>
#include <time.h>

#include "srv_error.h"
#include "srv_log.h"
#include "srv_metrics.h"
#include "srv_proto.h"
#include "srv_room_int.h"

static int handle_hello(srv_dispatch *d, srv_client *c, const srv_cmd *cmd) {
  if (c->player != NULL)
    return SRV_EAGAIN;
  srv_player *p = cmd->has_token ? srv_ident_find(d->ident, cmd->token) : NULL;
  srv_player *owned = NULL; /* A reference of ours, given back once the client holds its own. */
  if (p == NULL && cmd->has_token && d->store.restore != NULL)
    p = owned = d->store.restore(d->store.ud, cmd->token); /* Known before a restart. */
  bool resumed = p != NULL;
  char token[SRV_TOKEN_CHARS + 1];
  if (p != NULL) {
    memcpy(token, cmd->token, sizeof token);
    if (cmd->has_name)
      memcpy(p->name, cmd->name, sizeof p->name);
  } else {
    char name[SRV_NAME_SIZE];
    if (cmd->has_name)
      memcpy(name, cmd->name, sizeof name);
    else
      srv_ident_guest_name(name);
    int rc = srv_ident_create(d->ident, name, &p, token);
    if (rc != 0)
      return rc;
    owned = p;
  }
  if (d->store.player != NULL)
    d->store.player(d->store.ud, p); /* New, renamed, or lost with an earlier batch. */
  srv_event ev = {.type = SRV_EV_WELCOME, .id = &cmd->id};
  ev.u.welcome.player = p;
  ev.u.welcome.token = token;
  ev.u.welcome.resumed = resumed;
  ev.u.welcome.storage = d->store.restore != NULL;
  room_send(d->rooms, c, &ev);
  srv_rooms_identify(d->rooms, c, p, resumed);
  if (owned != NULL)
    srv_ident_unref(d->ident, owned);
  return 0;
}

typedef int (*room_handler)(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd);

static const room_handler handlers[SRV_CMD_COUNT] = {
    [SRV_CMD_CREATE] = srv_room_create,   [SRV_CMD_JOIN] = srv_room_join,
    [SRV_CMD_QUICK] = srv_room_quick,     [SRV_CMD_LEAVE] = srv_room_leave,
    [SRV_CMD_LOBBY] = srv_room_lobby,     [SRV_CMD_MOVE] = srv_room_move,
    [SRV_CMD_RESIGN] = srv_room_resign,   [SRV_CMD_DRAW] = srv_room_draw,
    [SRV_CMD_REMATCH] = srv_room_rematch, [SRV_CMD_CHAT] = srv_room_chat,
};

void srv_dispatch_error(srv_dispatch *d, srv_client *c, int err, const srv_req_id *id,
                        const char *field, const char *request) {
  srv_event ev = {.type = SRV_EV_ERROR, .id = id};
  ev.u.error.err = err;
  ev.u.error.field = field;
  ev.u.error.request = request;
  srv_metrics_error(err);
  srv_log_debug("dispatch", "error %s%s%s", srv_err_code(err), field ? " field " : "",
                field ? field : "");
  room_send(d->rooms, c, &ev);
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
  } else {
    const char *request = srv_proto_cmd_name(cmd.type);
    if (cmd.type == SRV_CMD_HELLO)
      rc = handle_hello(d, c, &cmd);
    else if (c->player == NULL)
      rc = SRV_EHELLO;
    else
      rc = handlers[cmd.type](d->rooms, c, &cmd);
    if (rc != 0)
      srv_dispatch_error(d, c, rc, &cmd.id, rc == SRV_EBADREQ ? "opponent" : NULL, request);
  }
  srv_metrics_handled(now_ns() - start);
}
