/* Frame -> command -> handler, and errors -> error frames (see srv_dispatch.h). */
#include "srv_dispatch.h"

#include <time.h>

#include "srv_account.h"
#include "srv_error.h"
#include "srv_hello.h"
#include "srv_log.h"
#include "srv_metrics.h"
#include "srv_proto.h"
#include "srv_pwhash.h"

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
ROOM_HANDLER(takeback)
ROOM_HANDLER(hint)
#undef ROOM_HANDLER

static int on_lobby(srv_dispatch *d, srv_client *c, const srv_cmd *cmd) {
  return srv_lobby_request(d->lobby, c, cmd);
}

static int on_my_rooms(srv_dispatch *d, srv_client *c, const srv_cmd *cmd) {
  return srv_myrooms_request(d->myrooms, c, cmd);
}

/* The account commands take the accounts (srv_account.h). */
#define ACCOUNT_HANDLER(name, fn)                                                                  \
  static int on_##name(srv_dispatch *d, srv_client *c, const srv_cmd *cmd) {                       \
    return d->accounts ? fn(d->accounts, c, cmd) : SRV_EUNSUPPORTED;                               \
  }
ACCOUNT_HANDLER(register, srv_account_register)
ACCOUNT_HANDLER(login, srv_account_login)
ACCOUNT_HANDLER(logout, srv_account_logout)
ACCOUNT_HANDLER(logout_all, srv_account_logout_all)
ACCOUNT_HANDLER(change_password, srv_account_change_password)
ACCOUNT_HANDLER(delete_account, srv_account_delete)
ACCOUNT_HANDLER(sessions, srv_account_sessions)
ACCOUNT_HANDLER(revoke_session, srv_account_revoke_session)
#undef ACCOUNT_HANDLER

/* The dispatch table: one handler per request type. */
static const handler handlers[SRV_CMD_COUNT] = {
    [SRV_CMD_HELLO] = srv_hello,
    [SRV_CMD_CREATE] = on_create,
    [SRV_CMD_JOIN] = on_join,
    [SRV_CMD_QUICK] = on_quick,
    [SRV_CMD_LEAVE] = on_leave,
    [SRV_CMD_LOBBY] = on_lobby,
    [SRV_CMD_MOVE] = on_move,
    [SRV_CMD_RESIGN] = on_resign,
    [SRV_CMD_DRAW] = on_draw,
    [SRV_CMD_REMATCH] = on_rematch,
    [SRV_CMD_CHAT] = on_chat,
    [SRV_CMD_RESYNC] = on_resync,
    [SRV_CMD_REGISTER] = on_register,
    [SRV_CMD_LOGIN] = on_login,
    [SRV_CMD_LOGOUT] = on_logout,
    [SRV_CMD_LOGOUT_ALL] = on_logout_all,
    [SRV_CMD_CHANGE_PASSWORD] = on_change_password,
    [SRV_CMD_DELETE_ACCOUNT] = on_delete_account,
    [SRV_CMD_TAKEBACK] = on_takeback,
    [SRV_CMD_MY_ROOMS] = on_my_rooms,
    [SRV_CMD_HINT] = on_hint,
    [SRV_CMD_SESSIONS] = on_sessions,
    [SRV_CMD_REVOKE_SESSION] = on_revoke_session,
};

void srv_dispatch_error(srv_dispatch *d, srv_client *c, int err, const srv_req_id *id,
                        const char *field, const char *request) {
  srv_send_error(&d->sink, c, err, id, field, request, 0);
}

/* The field a handler's error is about. */
static const char *field_of(int err) {
  switch (err) {
  case SRV_EBADREQ:
    return "opponent"; /* quick with a local opponent */
  case SRV_ENAMEINVALID:
  case SRV_ENAMERESERVED:
  case SRV_ENAMETAKEN:
    return "name";
  default:
    return NULL;
  }
}

void srv_dispatch_command_error(srv_dispatch *d, srv_client *c, int err, const srv_cmd *cmd) {
  srv_dispatch_error(d, c, err, &cmd->id, field_of(err), srv_proto_cmd_name(cmd->type));
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
  } else if (d->router.route != NULL && c->remote == NULL && c->player != NULL &&
             (rc = d->router.route(d->router.ud, c, &cmd, buf, len)) != 0) {
    if (rc < 0)
      srv_dispatch_error(d, c, rc, &cmd.id, NULL, srv_proto_cmd_name(cmd.type));
  } else if ((rc = srv_dispatch_command(d, c, &cmd)) != 0) {
    srv_dispatch_command_error(d, c, rc, &cmd);
  }
  if (cmd.type >= SRV_CMD_REGISTER) {
    /* The passwords leave no copy here (the decoder's JSON tree is freed already). */
    srv_pwhash_wipe(cmd.password, sizeof cmd.password);
    srv_pwhash_wipe(cmd.new_password, sizeof cmd.new_password);
  }
  srv_metrics_handled(now_ns() - start);
}

void srv_dispatch_client_gone(srv_dispatch *d, srv_client *c) {
  srv_hello_client_gone(c);
  if (d->router.gone != NULL && c->remote == NULL)
    d->router.gone(d->router.ud, c);
  if (d->accounts != NULL)
    srv_accounts_client_gone(d->accounts, c);
  srv_lobby_client_gone(d->lobby, c);
  srv_myrooms_client_gone(d->myrooms, c);
  srv_rooms_client_gone(d->rooms, c);
}
