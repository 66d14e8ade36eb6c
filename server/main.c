/* mancala-server: configuration, the loop, signals, and the order of start and shutdown. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <uv.h>

#include "srv_config.h"
#include "srv_dispatch.h"
#include "srv_ident.h"
#include "srv_log.h"
#include "srv_net.h"
#include "srv_room.h"
#include "srv_time.h"

#ifndef MANCALA_VERSION
#define MANCALA_VERSION "0.0.0"
#endif

/* Everything the process owns, for the signal and shutdown callbacks. */
static struct app {
  uv_loop_t loop;
  uv_signal_t sigint, sigterm;
  srv_time time;
  srv_ident *ident;
  srv_rooms *rooms;
  srv_net *net;
  srv_dispatch dispatch;
} app;

static void on_stopped(void *arg) {
  struct app *a = arg;
  /* lws is gone and every connection has left its rooms: free the rooms, close our handles, and
   * let uv_run() return. */
  srv_rooms_free(a->rooms);
  a->rooms = NULL;
  uv_close((uv_handle_t *)&a->sigint, NULL);
  uv_close((uv_handle_t *)&a->sigterm, NULL);
  srv_net_free(a->net);
  a->net = NULL;
}

static void on_signal(uv_signal_t *h, int signum) {
  (void)h;
  srv_log_info("main", "%s: stopping", signum == SIGINT ? "SIGINT" : "SIGTERM");
  uv_signal_stop(&app.sigint);
  uv_signal_stop(&app.sigterm);
  srv_net_stop(app.net, on_stopped, &app);
}

int main(int argc, char **argv) {
  srv_config cfg;
  srv_config_defaults(&cfg);
  int rc = srv_config_load(&cfg, argc, argv, stderr);
  if (rc == 1) {
    srv_config_help(stdout, "mancala-server");
    return 0;
  }
  if (rc != 0)
    return 2;
  srv_log_set_level(cfg.log_level);
  srv_log_hook_lws();
  signal(SIGPIPE, SIG_IGN);
  srv_log_info("main", "mancala-server %s starting (pid %ld)", MANCALA_VERSION, (long)getpid());
  srv_config_log(&cfg);

  if (uv_loop_init(&app.loop) != 0) {
    srv_log_error("main", "cannot create the event loop");
    return 1;
  }
  srv_time_init_uv(&app.time, &app.loop);
  app.ident = srv_ident_new();
  app.net = srv_net_new(&app.loop, &cfg, MANCALA_VERSION);
  srv_sink sink = {srv_net_send, app.net};
  srv_room_limits limits = {cfg.abandon_ms, cfg.idle_room_ms, cfg.finished_room_ms,
                            cfg.rooms_per_player, cfg.max_rooms};
  app.rooms = app.net && app.ident ? srv_rooms_new(&app.time, app.ident, &sink, &limits) : NULL;
  if (app.rooms == NULL) {
    srv_log_error("main", "out of memory");
    return 1;
  }
  app.dispatch.rooms = app.rooms;
  app.dispatch.ident = app.ident;
  if ((rc = uv_signal_init(&app.loop, &app.sigint)) != 0 ||
      (rc = uv_signal_init(&app.loop, &app.sigterm)) != 0) {
    srv_log_error("main", "uv_signal_init: %s", uv_strerror(rc));
    return 1;
  }
  app.sigint.data = app.sigterm.data = SRV_OWN_TAG;
  if ((rc = uv_signal_start(&app.sigint, on_signal, SIGINT)) != 0 ||
      (rc = uv_signal_start(&app.sigterm, on_signal, SIGTERM)) != 0) {
    srv_log_error("main", "uv_signal_start: %s", uv_strerror(rc));
    return 1;
  }

  int status = 0;
  if (srv_net_start(app.net, &app.dispatch) != 0) {
    status = 1;
    uv_signal_stop(&app.sigint);
    uv_signal_stop(&app.sigterm);
    srv_net_stop(app.net, on_stopped, &app);
  }
  uv_run(&app.loop, UV_RUN_DEFAULT);

  srv_ident_free(app.ident);
  rc = uv_loop_close(&app.loop);
  if (rc != 0) {
    srv_log_error("main", "the loop still has handles at exit: %s", uv_strerror(rc));
    status = 1;
  }
  if (status == 0)
    srv_log_info("main", "stopped cleanly");
  return status;
}
