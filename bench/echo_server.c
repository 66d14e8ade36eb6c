/* echo-server: the yardstick for the transport. A raw libwebsockets server on a libuv loop, set up
 * like mancala-server (foreign loop, one frame per writeable callback from a per-connection
 * queue), that speaks just enough of protocol v1 for loadgen's local mode and does nothing else:
 * no JSON library, no rules, no rooms, no storage.
 *
 *   hello   -> welcome
 *   create  -> joined (a new room code) and the state at ply 0
 *   move    -> a state with the next ply: about 900 bytes, the size of mancala-server's state
 *              after a move in Kalah 6x4, always the same legal list; at ply 40 the game is
 *              finished, so that loadgen creates rooms as often as against a real server
 *   other   -> error unknown_type
 *
 * Measured under the same loadgen, the gap between it and mancala-server is the server's own
 * work per move (decoding, rules, storage, encoding), since harness and transport are the same
 * (keepalive included: the server's default ping and hangup times).
 *
 *   echo-server [--port N] [--bind ADDR] [--max-connections N]
 *
 * Logs "listening on http://ADDR:PORT/" on stderr (port 0 picks a free port); SIGINT or SIGTERM
 * stops it cleanly.
 */
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <libwebsockets.h>
#include <uv.h>

#include "lg_json.h"

#define PROTOCOL_NAME "mancala.v1"
#define FRAME_MAX 4096
#define GAME_PLIES 40

/* One outgoing frame: the payload follows LWS_PRE bytes of headroom in the same allocation. */
typedef struct frame {
  struct frame *next;
  size_t len;
  unsigned char buf[];
} frame;

/* Per connection (lws's per-session data, zeroed by lws). */
typedef struct econn {
  frame *head, *tail;
  char *rx;
  size_t rxlen;
} econn;

static struct echo {
  uv_loop_t loop;
  uv_signal_t sigint, sigterm;
  uv_timer_t stop;
  struct lws_context *context;
  struct lws_vhost *vhost;
  struct lws_protocols protocols[2];
  bool destroyed_once;
  unsigned long rooms;
  char bind[64];
  int port;
  unsigned max_connections;
} echo;

static char own_tag;

/* Queues len bytes of text; returns -1 when memory runs out (the connection is then closed). */
static int queue_frame(struct lws *wsi, econn *e, const char *text, size_t len) {
  frame *f = malloc(sizeof *f + LWS_PRE + len);
  if (f == NULL)
    return -1;
  f->next = NULL;
  f->len = len;
  memcpy(f->buf + LWS_PRE, text, len);
  if (e->tail)
    e->tail->next = f;
  else
    e->head = f;
  e->tail = f;
  lws_callback_on_writable(wsi);
  return 0;
}

static void free_conn(econn *e) {
  while (e->head != NULL) {
    frame *f = e->head;
    e->head = f->next;
    free(f);
  }
  e->tail = NULL;
  free(e->rx);
  e->rx = NULL;
  e->rxlen = 0;
}

/* The state frame: the fields and sizes of mancala-server's state after a move in Kalah 6x4. */
static int format_state(char *buf, size_t cap, const char *room, long long ply) {
  bool over = ply >= GAME_PLIES;
  const char *turn = over ? "null" : ply % 2 ? "\"north\"" : "\"south\"";
  const char *last = ply == 0 ? "null"
                              : "{\"seat\":\"south\",\"house\":3,\"trace\":["
                                "{\"kind\":\"pick\",\"pit\":2,\"count\":8},{\"kind\":\"sow\","
                                "\"pit\":3},{\"kind\":\"sow\",\"pit\":4},{\"kind\":\"sow\",\"pit\""
                                ":5},{\"kind\":\"sow\",\"pit\":6},{\"kind\":\"sow\",\"pit\":7},{"
                                "\"kind\":\"sow\",\"pit\":8},{\"kind\":\"sow\",\"pit\":9},{"
                                "\"kind\":\"sow\",\"pit\":10}]}";
  return snprintf(
      buf, cap,
      "{\"type\":\"state\",\"room\":\"%s\",\"game\":\"kalah\",\"houses\":6,\"seeds\":4,"
      "\"options\":{\"empty_capture\":false},\"status\":\"%s\",\"ply\":%lld,\"turn\":%s,"
      "\"pits\":[5,5,0,6,6,6,1,5,5,5,4,4,4,0],\"legal\":%s,\"you\":\"both\","
      "\"players\":{\"south\":{\"id\":\"5d1f0c3a9b7e2468\",\"name\":\"Echo\",\"connected\":true,"
      "\"computer\":false},\"north\":{\"id\":\"5d1f0c3a9b7e2468\",\"name\":\"Echo\","
      "\"connected\":true,\"computer\":false}},\"clock\":null,\"last\":%s,\"result\":%s,"
      "\"visibility\":\"public\",\"local\":true,\"game_no\":1,\"game_id\":null,\"spectators\":0,"
      "\"round\":1,\"burnt\":[],\"draw_offer\":null,\"rematch\":{\"south\":false,"
      "\"north\":false},\"abandon\":null}",
      room, over ? "finished" : "playing", ply, turn, over ? "[]" : "[1,2,3,4,5,6]", last,
      over ? "{\"winner\":\"north\",\"reason\":\"no_seeds\",\"score\":[22,26]}" : "null");
}

static int on_message(struct lws *wsi, econn *e, const char *in, size_t len) {
  lg_msg m;
  char out[2048];
  int n;
  if (lg_json_scan(in, len, &m) != 0 || m.type.s == NULL) {
    n = snprintf(out, sizeof out,
                 "{\"type\":\"error\",\"code\":\"bad_json\",\"message\":\"Not a JSON object.\"}");
    return queue_frame(wsi, e, out, (size_t)n);
  }
  if (lg_span_is(m.type, "hello")) {
    n = snprintf(out, sizeof out,
                 "{\"type\":\"welcome\",\"player\":\"5d1f0c3a9b7e2468\",\"name\":\"Echo\","
                 "\"token\":\"0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0\","
                 "\"protocol\":1}");
    return queue_frame(wsi, e, out, (size_t)n);
  }
  if (lg_span_is(m.type, "create")) {
    static const char alphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    char room[7];
    unsigned long k = echo.rooms++;
    for (int i = 5; i >= 0; i--, k /= 32)
      room[i] = alphabet[k % 32];
    room[6] = '\0';
    n = snprintf(out, sizeof out,
                 "{\"type\":\"joined\",\"room\":\"%s\",\"role\":\"player\",\"seat\":\"both\"}",
                 room);
    if (queue_frame(wsi, e, out, (size_t)n) != 0)
      return -1;
    n = format_state(out, sizeof out, room, 0);
    return queue_frame(wsi, e, out, (size_t)n);
  }
  if (lg_span_is(m.type, "move") && m.has_ply && m.room.s != NULL && m.room.n == 6) {
    char room[7];
    memcpy(room, m.room.s, 6);
    room[6] = '\0';
    n = format_state(out, sizeof out, room, m.ply + 1);
    return queue_frame(wsi, e, out, (size_t)n);
  }
  n = snprintf(out, sizeof out,
               "{\"type\":\"error\",\"code\":\"unknown_type\",\"message\":\"Unknown type.\"}");
  return queue_frame(wsi, e, out, (size_t)n);
}

static int on_receive(struct lws *wsi, econn *e, const char *in, size_t len) {
  bool final = lws_is_final_fragment(wsi) != 0;
  if (e->rxlen == 0 && final)
    return on_message(wsi, e, in, len);
  if (e->rxlen + len > FRAME_MAX)
    return -1; /* Like the server: a frame over 4 KiB closes the connection. */
  if (e->rx == NULL && (e->rx = malloc(FRAME_MAX)) == NULL)
    return -1;
  memcpy(e->rx + e->rxlen, in, len);
  e->rxlen += len;
  if (!final)
    return 0;
  int rc = on_message(wsi, e, e->rx, e->rxlen);
  e->rxlen = 0;
  return rc;
}

static int ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                       size_t len) {
  econn *e = user;
  switch (reason) {
  case LWS_CALLBACK_RECEIVE:
    return e != NULL ? on_receive(wsi, e, in, len) : 0;
  case LWS_CALLBACK_SERVER_WRITEABLE: {
    if (e == NULL || e->head == NULL)
      return 0;
    frame *f = e->head;
    e->head = f->next;
    if (e->head == NULL)
      e->tail = NULL;
    int n = lws_write(wsi, f->buf + LWS_PRE, f->len, LWS_WRITE_TEXT);
    bool ok = n >= (int)f->len;
    free(f);
    if (!ok)
      return -1;
    if (e->head != NULL)
      lws_callback_on_writable(wsi);
    return 0;
  }
  case LWS_CALLBACK_CLOSED:
  case LWS_CALLBACK_WSI_DESTROY:
    if (e != NULL)
      free_conn(e);
    return 0;
  default:
    return 0;
  }
}

static void count_lws_handle(uv_handle_t *h, void *arg) {
  if (h->data != &own_tag)
    (*(int *)arg)++;
}

/* The two-step teardown lws 4.1 needs on a foreign loop (see docs/server.md). */
static void on_stop_tick(uv_timer_t *t) {
  if (!echo.destroyed_once) {
    echo.destroyed_once = true;
    if (echo.context != NULL)
      lws_context_destroy(echo.context);
    return;
  }
  int left = 0;
  uv_walk(&echo.loop, count_lws_handle, &left);
  if (left > 0)
    return;
  if (echo.context != NULL)
    lws_context_destroy(echo.context);
  uv_timer_stop(t);
  uv_close((uv_handle_t *)&echo.stop, NULL);
  uv_close((uv_handle_t *)&echo.sigint, NULL);
  uv_close((uv_handle_t *)&echo.sigterm, NULL);
}

static void begin_stop(void) {
  uv_signal_stop(&echo.sigint);
  uv_signal_stop(&echo.sigterm);
  uv_timer_start(&echo.stop, on_stop_tick, 0, 10);
}

static void on_signal(uv_signal_t *h, int signum) {
  (void)h;
  (void)signum;
  begin_stop();
}

static int parse_args(int argc, char **argv) {
  static const struct option opts[] = {{"port", required_argument, NULL, 'p'},
                                       {"bind", required_argument, NULL, 'b'},
                                       {"max-connections", required_argument, NULL, 'm'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  snprintf(echo.bind, sizeof echo.bind, "127.0.0.1");
  echo.max_connections = 100000;
  int o;
  while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    char *end;
    long v;
    switch (o) {
    case 'p':
      v = strtol(optarg, &end, 10);
      if (*optarg == '\0' || *end != '\0' || v < 0 || v > 65535)
        return 2;
      echo.port = (int)v;
      break;
    case 'b':
      if (strlen(optarg) >= sizeof echo.bind)
        return 2;
      snprintf(echo.bind, sizeof echo.bind, "%s", optarg);
      break;
    case 'm':
      v = strtol(optarg, &end, 10);
      if (*optarg == '\0' || *end != '\0' || v < 1 || v > 10000000)
        return 2;
      echo.max_connections = (unsigned)v;
      break;
    case 'h':
      return 1;
    default:
      return 2;
    }
  }
  return optind == argc ? 0 : 2;
}

int main(int argc, char **argv) {
  int rc = parse_args(argc, argv);
  if (rc != 0) {
    fprintf(rc == 1 ? stdout : stderr,
            "usage: echo-server [--port N] [--bind ADDR] [--max-connections N]\n");
    return rc == 1 ? 0 : 2;
  }
  signal(SIGPIPE, SIG_IGN);
  lws_set_log_level(LLL_ERR, NULL);
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  if (uv_loop_init(&echo.loop) != 0 || uv_timer_init(&echo.loop, &echo.stop) != 0 ||
      uv_signal_init(&echo.loop, &echo.sigint) != 0 ||
      uv_signal_init(&echo.loop, &echo.sigterm) != 0) {
    fprintf(stderr, "echo-server: cannot set up the event loop\n");
    return 1;
  }
  echo.stop.data = echo.sigint.data = echo.sigterm.data = &own_tag;
  uv_signal_start(&echo.sigint, on_signal, SIGINT);
  uv_signal_start(&echo.sigterm, on_signal, SIGTERM);

  echo.protocols[0] =
      (struct lws_protocols){PROTOCOL_NAME, ws_callback, sizeof(econn), FRAME_MAX, 0, NULL, 0};
  memset(&echo.protocols[1], 0, sizeof echo.protocols[1]);
  /* The server's keepalive (its --ping-s and --hangup-s defaults): lws keeps a timer per
   * connection for it, a cost of the transport that both must pay. */
  static const lws_retry_bo_t keepalive = {.secs_since_valid_ping = 30,
                                           .secs_since_valid_hangup = 75};
  void *loops[1] = {&echo.loop};
  struct lws_context_creation_info info;
  memset(&info, 0, sizeof info);
  info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
  info.foreign_loops = loops;
  info.pcontext = &echo.context;
  info.retry_and_idle_policy = &keepalive;
  info.fd_limit_per_thread = echo.max_connections + 256;
  echo.context = lws_create_context(&info);
  int status = 0;
  if (echo.context == NULL) {
    fprintf(stderr, "echo-server: cannot create the libwebsockets context\n");
    status = 1;
  } else {
    info.port = echo.port;
    info.iface = echo.bind;
    info.protocols = echo.protocols;
    info.vhost_name = "echo";
    if (strchr(echo.bind, ':') == NULL)
      info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    echo.vhost = lws_create_vhost(echo.context, &info);
    if (echo.vhost == NULL) {
      fprintf(stderr, "echo-server: cannot listen on %s port %d\n", echo.bind, echo.port);
      status = 1;
    } else {
      fprintf(stderr, "echo-server: listening on http://%s:%d/ (pid %ld)\n", echo.bind,
              lws_get_vhost_listen_port(echo.vhost), (long)getpid());
    }
  }
  if (status != 0)
    begin_stop();
  uv_run(&echo.loop, UV_RUN_DEFAULT);
  if (uv_loop_close(&echo.loop) != 0) {
    fprintf(stderr, "echo-server: the loop still has handles at exit\n");
    status = 1;
  }
  return status;
}
