/* libwebsockets glue: HTTP routes, the WebSocket protocol, outgoing queues, limits, shutdown. */
#define _XOPEN_SOURCE 700 /* realpath() */
#include "srv_net.h"

#include <libwebsockets.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "srv_addr.h"
#include "srv_error.h"
#include "srv_list.h"
#include "srv_log.h"
#include "srv_metrics.h"
#include "srv_proto.h"
#include "srv_send.h"
#include "srv_time_uv.h"

#define PROTOCOL_NAME "mancala.v1"
#define SHUTDOWN_GRACE_MS 1000
#define CLOSE_TRY_AGAIN_LATER 1013
#define CLOSE_ACK_S 5
/* The close opcode of lws_write(): lws keeps it private (LWS_WRITE_CLOSE = 4) in favour of
 * lws_close_reason(), which cannot be used here (see conn_writeable()). */
#define WRITE_CLOSE ((enum lws_write_protocol)4)

/* lws writes the WebSocket header into the headroom of our frames. */
_Static_assert(SRV_FRAME_PRE >= LWS_PRE, "frames need LWS_PRE bytes of headroom");

/* One queued outgoing frame. The frame itself may be shared with other connections' queues. */
typedef struct out_entry {
  srv_frame *frame; /* One reference, the queue's. */
  uint64_t turn;    /* The loop turn that queued it: held until that turn is released. */
  uint64_t seq;     /* Queue order across the server (srv_net_drop_room() keeps later ones). */
} out_entry;

/* A connection's outgoing queue: the entries v[head..tail) in order, oldest first. The last
 * held_n of them belong to the loop turn held_turn (not released yet, so not the client's to read
 * yet). */
typedef struct out_queue {
  out_entry *v;
  size_t head, tail, cap;
  size_t bytes; /* Text bytes of the frames queued. */
  uint64_t held_turn;
  size_t held_n;
} out_queue;

/* Per WebSocket connection (lws allocates it zeroed, frees it after LWS_CALLBACK_CLOSED). */
typedef struct conn {
  struct lws *wsi;
  struct srv_net *net; /* Set when established: CLOSED must not depend on the vhost lookup. */
  srv_client client;
  bool open;       /* Registered with the rooms: counted and identified by address. */
  bool closing;    /* Close with close_code once the queue is written. */
  bool doomed;     /* Dropped: killed asynchronously, nothing more is queued. */
  bool close_sent; /* The close frame is on its way. */
  int close_code;
  const char *close_reason;
  out_queue q;
  char *rx; /* A message being reassembled from fragments. */
  size_t rxlen;
  bool rx_over;
  double tokens;
  uint64_t refill_ms;
  int strikes;
  char ip[64];
  srv_list link; /* In net->conns once established. */
  srv_list held; /* In net->held while it has frames of the current turn. */
} conn;

/* Per HTTP request with a generated body. */
typedef struct http_req {
  unsigned char *body; /* LWS_PRE + len bytes. */
  size_t len;
} http_req;

typedef struct ip_count {
  char ip[64];
  int n;
} ip_count;

struct srv_net {
  uv_loop_t *loop;
  srv_config cfg;
  srv_addr_list proxies;
  const char *version;
  srv_dispatch *dispatch;
  struct lws_context *context;
  struct lws_vhost *vhost;
  int port;
  uint64_t started_ms;
  lws_retry_bo_t retry;
  struct lws_protocols protocols[3];
  struct lws_http_mount mounts[6];
  struct lws_protocol_vhost_options mimetypes[5];
  char index_path[1100];
  char web_origin[1100]; /* The file mount's origin: mounts must outlive the context. */
  srv_list conns;        /* Every established connection. */
  long nconns;
  ip_count *ips;
  size_t nips, capips;
  uv_prepare_t prepare;
  uint64_t turn; /* Frames queued now belong to this turn; earlier turns are released. */
  uint64_t seq;  /* The number of frames ever queued (out_entry.seq). */
  srv_sink sink; /* Queues for a client's connection (srv_send.h). */
  srv_list held; /* Connections with frames of the current turn. */
  void (*turn_hook)(void *arg);
  void *turn_hook_arg;
  srv_net_routes routes;
  uv_timer_t stop_timer;
  bool stopping, destroyed_once;
  uint64_t stop_started;
  void (*done)(void *arg);
  void *done_arg;
  int handles_open;
};

static uint64_t now_ms(void) {
  return uv_hrtime() / 1000000u;
}

/* ---- Address limits ------------------------------------------------------------------------ */

static ip_count *ip_find(srv_net *net, const char *ip) {
  for (size_t i = 0; i < net->nips; i++) {
    if (strcmp(net->ips[i].ip, ip) == 0)
      return &net->ips[i];
  }
  return NULL;
}

static int ip_add(srv_net *net, const char *ip) {
  ip_count *e = ip_find(net, ip);
  if (e == NULL) {
    if (net->nips == net->capips) {
      size_t cap = net->capips ? net->capips * 2 : 16;
      ip_count *p = realloc(net->ips, cap * sizeof *p);
      if (p == NULL)
        return SRV_ENOMEM;
      net->ips = p;
      net->capips = cap;
    }
    e = &net->ips[net->nips++];
    snprintf(e->ip, sizeof e->ip, "%s", ip);
    e->n = 0;
  }
  e->n++;
  return 0;
}

static void ip_remove(srv_net *net, const char *ip) {
  ip_count *e = ip_find(net, ip);
  if (e == NULL)
    return;
  if (--e->n == 0)
    *e = net->ips[--net->nips];
}

/* ---- The outgoing queue: the only way anything is sent ------------------------------------- */

static size_t queue_len(const out_queue *q) {
  return q->tail - q->head;
}

static void queue_clear(out_queue *q) {
  for (size_t i = q->head; i < q->tail; i++)
    srv_frame_unref(q->v[i].frame);
  free(q->v);
  memset(q, 0, sizeof *q);
}

/* Removes entry i (head <= i < tail), keeping the order of the others. */
static void queue_remove(out_queue *q, size_t i) {
  if (q->v[i].turn == q->held_turn && q->held_n > 0)
    q->held_n--;
  q->bytes -= q->v[i].frame->len;
  srv_frame_unref(q->v[i].frame);
  memmove(&q->v[i], &q->v[i + 1], (q->tail - i - 1) * sizeof q->v[0]);
  q->tail--;
  if (q->head == q->tail)
    q->head = q->tail = 0;
}

/* Appends an entry; returns false when memory runs out. */
static bool queue_append(out_queue *q, const out_entry *e) {
  if (q->tail == q->cap) {
    if (q->head > 0) {
      memmove(q->v, q->v + q->head, queue_len(q) * sizeof q->v[0]);
      q->tail -= q->head;
      q->head = 0;
    } else {
      size_t cap = q->cap ? 2 * q->cap : 8;
      out_entry *v = realloc(q->v, cap * sizeof *v);
      if (v == NULL)
        return false;
      q->v = v;
      q->cap = cap;
    }
  }
  q->v[q->tail++] = *e;
  q->bytes += e->frame->len;
  if (q->held_turn != e->turn) {
    q->held_turn = e->turn;
    q->held_n = 0;
  }
  q->held_n++;
  return true;
}

/* Drops a connection that cannot keep up: its queue is freed now and lws closes it on its next
 * service, outside of whatever callback we are in. */
static void conn_drop(srv_net *net, conn *c, const char *why) {
  if (c->doomed)
    return;
  srv_log_info("net", "dropping %s: %s (%zu messages queued)", c->ip, why, queue_len(&c->q));
  srv_metrics_dropped(queue_len(&c->q));
  queue_clear(&c->q);
  c->doomed = true;
  (void)net;
  lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
}

/* The sink's queue (srv_send.h). */
static void net_queue(void *ud, srv_client *to, srv_frame *f) {
  srv_net *net = ud;
  conn *c = to->conn;
  out_queue *q = &c->q;
  if (c->doomed || c->closing) {
    srv_metrics_dropped(1);
    return;
  }
  /* A newer state of a room, or a newer lobby list, supersedes an unsent older one, unless that
   * one is the reply to a request, or a full state (with the game's moves) and the newer is not:
   * a queue holds at most one full and one other state of a room. */
  if (f->type == SRV_EV_STATE || f->type == SRV_EV_LOBBY) {
    for (size_t i = q->head; i < q->tail; i++) {
      const srv_frame *o = q->v[i].frame;
      if (o->type == f->type && !o->reply && (!o->full || f->full) &&
          (f->type == SRV_EV_LOBBY || strcmp(o->room, f->room) == 0)) {
        queue_remove(q, i);
        srv_metrics_dropped(1);
        break;
      }
    }
  }
  /* Not written yet: the frame waits for the end of this loop turn (see on_prepare()). */
  out_entry e = {srv_frame_ref(f), net->turn, ++net->seq};
  if (!queue_append(q, &e)) {
    srv_frame_unref(f);
    conn_drop(net, c, "out of memory");
    return;
  }
  /* The bound in bytes counts everything queued; the bound in frames is checked when the turn
   * ends (srv_net_release()). */
  if (q->bytes > (size_t)net->cfg.send_queue_kib * 1024) {
    conn_drop(net, c, "outgoing queue full");
    return;
  }
  if (!srv_list_linked(&c->held))
    srv_list_push_front(&net->held, &c->held);
}

/* The sink's lost (srv_send.h): a frame for the client could not be made. */
static void net_lost(void *ud, srv_client *to) {
  conn_drop(ud, to->conn, "out of memory");
}

void srv_net_sink(srv_net *net, srv_sink *out) {
  *out = net->sink;
}

uint64_t srv_net_mark(void *ud) {
  return ((srv_net *)ud)->seq;
}

void srv_net_drop_room(void *ud, const char *code, uint64_t mark) {
  srv_net *net = ud;
  srv_list_foreach (it, &net->held) {
    conn *c = srv_list_entry(it, conn, held);
    out_queue *q = &c->q;
    for (size_t i = q->head; i < q->tail;) {
      const out_entry *e = &q->v[i];
      if (e->turn >= net->turn && e->seq <= mark && e->frame->type == SRV_EV_STATE &&
          strcmp(e->frame->room, code) == 0)
        queue_remove(q, i);
      else
        i++;
    }
  }
}

void srv_net_set_routes(srv_net *net, const srv_net_routes *routes) {
  if (routes != NULL)
    net->routes = *routes;
  else
    memset(&net->routes, 0, sizeof net->routes);
}

/* Sends an error (outside of a decoded command) and optionally closes after it. */
static void conn_error(srv_net *net, conn *c, int err, const srv_req_id *id, int close_code,
                       const char *reason) {
  srv_dispatch_error(net->dispatch, &c->client, err, id, NULL, NULL);
  if (close_code) {
    c->closing = true;
    c->close_code = close_code;
    c->close_reason = reason;
    lws_callback_on_writable(c->wsi);
  }
}

/* How many frames one writeable callback may write at most: the socket says when it is full
 * (lws_send_pipe_choked()), this only bounds one callback's time (a 4 KiB frame each). */
#define WRITES_PER_CALLBACK 4096

static int conn_writeable(conn *c) {
  if (c->doomed)
    return -1;
  out_queue *q = &c->q;
  if (queue_len(q) > 0 && q->v[q->head].turn >= c->net->turn)
    return 0; /* Not released yet: the end of the turn asks for this callback again. */
  if (queue_len(q) > 0) {
    /* Released frames, as many as the socket takes now: a client that reads keeps up with a
     * busy room (one frame per callback would let its queue fill up and drop it). */
    for (int n = 0; n < WRITES_PER_CALLBACK && queue_len(q) > 0 &&
                    q->v[q->head].turn < c->net->turn && (n == 0 || !lws_send_pipe_choked(c->wsi));
         n++) {
      srv_frame *f = q->v[q->head].frame;
      q->bytes -= f->len;
      if (++q->head == q->tail)
        q->head = q->tail = 0;
      /* The frame's headroom is for lws' header: the write never touches the text itself, and
       * the same frame can go to every connection it is queued for. */
      int w = lws_write(c->wsi, f->data + SRV_FRAME_PRE, f->len, LWS_WRITE_TEXT);
      bool ok = w >= 0 && (size_t)w >= f->len;
      srv_frame_unref(f);
      if (!ok)
        return -1;
    }
    if ((queue_len(q) > 0 && q->v[q->head].turn < c->net->turn) ||
        (queue_len(q) == 0 && c->closing))
      lws_callback_on_writable(c->wsi);
    return 0;
  }
  if (c->closing && !c->close_sent) {
    /* We write the close frame ourselves. Returning -1 after lws_close_reason() would start the
     * handshake, but lws 4.1.6 on libuv then kills the socket at once ("uv repeat test") and the
     * peer sees 1006. The peer's answering close ends the connection (WS_PEER_INITIATED_CLOSE);
     * a peer that never answers is cut after CLOSE_ACK_S. */
    unsigned char frame[LWS_PRE + 2 + 64];
    const char *r = c->close_reason ? c->close_reason : "";
    size_t rlen = strlen(r) < 64 ? strlen(r) : 64;
    frame[LWS_PRE] = (unsigned char)(c->close_code >> 8);
    frame[LWS_PRE + 1] = (unsigned char)(c->close_code & 0xff);
    memcpy(frame + LWS_PRE + 2, r, rlen);
    c->close_sent = true;
    if (lws_write(c->wsi, frame + LWS_PRE, 2 + rlen, WRITE_CLOSE) < 0)
      return -1;
    lws_set_timeout(c->wsi, PENDING_TIMEOUT_CLOSE_ACK, CLOSE_ACK_S);
  }
  return 0; /* A spurious writeable callback. */
}

/* ---- WebSocket events ---------------------------------------------------------------------- */

static void conn_open(srv_net *net, conn *c, struct lws *wsi) {
  c->wsi = wsi;
  c->net = net;
  srv_client_init(&c->client, c);
  char peer[64] = "", xff[512];
  lws_get_peer_simple(wsi, peer, sizeof peer);
  bool has_xff = lws_hdr_copy(wsi, xff, sizeof xff, WSI_TOKEN_X_FORWARDED_FOR) > 0;
  srv_addr_client(&net->proxies, peer, has_xff ? xff : NULL, c->ip, sizeof c->ip);
  c->tokens = net->cfg.burst;
  c->refill_ms = now_ms();
  srv_list_push_front(&net->conns, &c->link);
  ip_count *e = ip_find(net, c->ip);
  if (net->stopping) {
    conn_error(net, c, SRV_ECONNS, NULL, LWS_CLOSE_STATUS_GOINGAWAY, "server shutting down");
  } else if (net->nconns >= net->cfg.max_connections || (e && e->n >= net->cfg.max_per_ip)) {
    srv_log_info("net", "refusing %s: too many connections", c->ip);
    conn_error(net, c, SRV_ECONNS, NULL, CLOSE_TRY_AGAIN_LATER, "too many connections");
  } else if (ip_add(net, c->ip) != 0) {
    conn_error(net, c, SRV_ENOMEM, NULL, CLOSE_TRY_AGAIN_LATER, "out of memory");
  } else {
    c->open = true;
    net->nconns++;
    srv_log_debug("net", "connection from %s (%ld open)", c->ip, net->nconns);
  }
}

static void conn_closed(srv_net *net, conn *c) {
  if (c->open) {
    srv_dispatch_client_gone(net->dispatch, &c->client);
    ip_remove(net, c->ip);
    net->nconns--;
    c->open = false;
  }
  queue_clear(&c->q);
  srv_list_remove(&c->held);
  free(c->rx);
  c->rx = NULL;
  srv_list_remove(&c->link);
}

/* Token bucket: returns true when one more message is allowed now. */
static bool conn_allow(srv_net *net, conn *c) {
  uint64_t now = now_ms();
  c->tokens += (double)(now - c->refill_ms) * net->cfg.rate / 1000.0;
  c->refill_ms = now;
  if (c->tokens > net->cfg.burst)
    c->tokens = net->cfg.burst;
  if (c->tokens >= 1.0) {
    c->tokens -= 1.0;
    c->strikes = 0;
    return true;
  }
  return false;
}

/* One whole incoming message. Binary ones count against the rate limit like any other before
 * they are refused, so that they cannot be used to make the server answer without limit. */
static void conn_message(srv_net *net, conn *c, const char *buf, size_t len, bool binary) {
  if (!conn_allow(net, c)) {
    srv_req_id id;
    srv_proto_peek_id(buf, len, &id);
    if (++c->strikes > net->cfg.burst) {
      srv_log_info("net", "closing %s: flooding", c->ip);
      conn_error(net, c, SRV_ERATE, &id, LWS_CLOSE_STATUS_POLICY_VIOLATION, "rate limit");
    } else {
      conn_error(net, c, SRV_ERATE, &id, 0, NULL);
    }
    return;
  }
  if (binary) {
    conn_error(net, c, SRV_EBADJSON, NULL, 0, NULL);
    return;
  }
  srv_dispatch_frame(net->dispatch, &c->client, buf, len);
}

static void conn_receive(srv_net *net, conn *c, const char *in, size_t len) {
  if (!c->open || c->closing || c->doomed)
    return;
  bool final = lws_is_final_fragment(c->wsi) != 0;
  if (!c->rx_over) {
    if (c->rxlen + len > SRV_FRAME_MAX) {
      c->rx_over = true;
    } else if (final && c->rxlen == 0) {
      /* The common case: a whole message in one piece. */
      conn_message(net, c, in, len, lws_frame_is_binary(c->wsi) != 0);
      return;
    } else {
      char *p = realloc(c->rx, c->rxlen + len + 1);
      if (p == NULL) {
        conn_drop(net, c, "out of memory");
        return;
      }
      c->rx = p;
      memcpy(c->rx + c->rxlen, in, len);
      c->rxlen += len;
    }
  }
  if (c->rx_over) {
    /* No need to read the rest: answer and close. */
    free(c->rx);
    c->rx = NULL;
    c->rxlen = 0;
    srv_log_info("net", "closing %s: frame over %d bytes", c->ip, SRV_FRAME_MAX);
    conn_error(net, c, SRV_ETOOLARGE, NULL, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "frame too large");
    return;
  }
  if (final) {
    conn_message(net, c, c->rx, c->rxlen, lws_frame_is_binary(c->wsi) != 0);
    free(c->rx);
    c->rx = NULL;
    c->rxlen = 0;
  }
}

static bool uri_is(struct lws *wsi, const char *want) {
  char uri[128];
  if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0)
    return false;
  return strcmp(uri, want) == 0;
}

static int ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                       size_t len) {
  struct lws_vhost *vh = lws_get_vhost(wsi);
  srv_net *net = vh ? lws_get_vhost_user(vh) : NULL;
  conn *c = user;
  switch (reason) {
  case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
    if (net == NULL || net->stopping || !uri_is(wsi, "/ws"))
      return 1;
    return 0;
  case LWS_CALLBACK_ESTABLISHED:
    conn_open(net, c, wsi);
    return 0;
  case LWS_CALLBACK_RECEIVE:
    conn_receive(net, c, in, len);
    return 0;
  case LWS_CALLBACK_SERVER_WRITEABLE:
    return conn_writeable(c);
  case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
    /* After our own close frame, the peer's is the answer: the handshake is complete. */
    return c->close_sent ? -1 : 0;
  case LWS_CALLBACK_CLOSED:
    if (c->net != NULL)
      conn_closed(c->net, c);
    return 0;
  default:
    return 0;
  }
}

/* ---- HTTP routes --------------------------------------------------------------------------- */

static void gauges(srv_net *net, srv_metrics_gauges *g) {
  memset(g, 0, sizeof *g);
  if (net->routes.gauges != NULL)
    net->routes.gauges(net->routes.gauges_ud, g);
  g->connections = net->nconns;
}

static int http_reply(struct lws *wsi, http_req *req, unsigned status, const char *type,
                      char *text) {
  if (text == NULL)
    return -1;
  size_t len = strlen(text);
  req->body = malloc(LWS_PRE + len);
  if (req->body == NULL) {
    free(text);
    return -1;
  }
  memcpy(req->body + LWS_PRE, text, len);
  req->len = len;
  free(text);
  unsigned char head[LWS_PRE + 512], *start = head + LWS_PRE, *p = start,
                                     *end = head + sizeof head - 1;
  if (lws_add_http_common_headers(wsi, status, type, len, &p, end) ||
      lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL,
                                   (const unsigned char *)"no-store", 8, &p, end) ||
      lws_finalize_write_http_header(wsi, start, &p, end))
    return -1;
  lws_callback_on_writable(wsi);
  return 0;
}

static int http_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                         size_t len) {
  struct lws_vhost *vh = lws_get_vhost(wsi);
  srv_net *net = vh ? lws_get_vhost_user(vh) : NULL;
  http_req *req = user;
  switch (reason) {
  case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
  case LWS_CALLBACK_ESTABLISHED:
    /* A WebSocket without the mancala.v1 subprotocol lands on this first protocol: drop it. */
    return -1;
  case LWS_CALLBACK_HTTP: {
    char uri[256];
    if (net == NULL || lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0)
      return -1;
    srv_metrics_gauges g;
    gauges(net, &g);
    if (strcmp(uri, "/healthz") == 0)
      return http_reply(wsi, req, HTTP_STATUS_OK, "application/json",
                        srv_metrics_health(&g, net->version, now_ms() - net->started_ms));
    if (strcmp(uri, "/metrics") == 0) {
      char *text = srv_metrics_prometheus(&g);
      return http_reply(wsi, req, HTTP_STATUS_OK, "text/plain; version=0.0.4; charset=utf-8", text);
    }
    if (strncmp(uri, "/api/", 5) == 0 && net->routes.api != NULL) {
      char arg[64];
      const char *limit = lws_get_urlarg_by_name(wsi, "limit=", arg, (int)sizeof arg);
      char *body = NULL;
      const char *type = "application/json";
      int status = net->routes.api(net->routes.api_ud, uri, limit, &body, &type);
      if (body == NULL)
        return -1;
      return http_reply(wsi, req, (unsigned)status, type, body);
    }
    if (strncmp(uri, "/r/", 3) == 0 || (strncmp(uri, "/g/", 3) == 0 && net->routes.api != NULL)) {
      /* /r/CODE and /g/ID: the same page as /, which reads the code from the address. */
      int n = lws_serve_http_file(wsi, net->index_path, "text/html", NULL, 0);
      if (n < 0 || (n > 0 && lws_http_transaction_completed(wsi)))
        return -1;
      return 0;
    }
    if (lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL) ||
        lws_http_transaction_completed(wsi))
      return -1;
    return 0;
  }
  case LWS_CALLBACK_HTTP_WRITEABLE:
    if (req == NULL || req->body == NULL)
      break;
    {
      int n = lws_write(wsi, req->body + LWS_PRE, req->len, LWS_WRITE_HTTP_FINAL);
      free(req->body);
      req->body = NULL;
      if (n < 0 || lws_http_transaction_completed(wsi))
        return -1;
    }
    return 0;
  case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
  case LWS_CALLBACK_CLOSED_HTTP:
    if (req != NULL) {
      free(req->body);
      req->body = NULL;
    }
    break;
  default:
    break;
  }
  return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* ---- Lifecycle ----------------------------------------------------------------------------- */

srv_net *srv_net_new(uv_loop_t *loop, const srv_config *cfg, const char *version) {
  srv_net *net = calloc(1, sizeof *net);
  if (net == NULL)
    return NULL;
  net->loop = loop;
  net->cfg = *cfg;
  srv_list_init(&net->conns);
  srv_list_init(&net->held);
  net->sink = (srv_sink){net_queue, net_lost, net};
  if (srv_addr_list_parse(cfg->trust_proxy, &net->proxies) != 0)
    net->proxies.n = 0; /* srv_config_load() already refused a bad list. */
  net->version = version;
  net->port = -1;
  net->started_ms = now_ms();
  if (uv_prepare_init(loop, &net->prepare) != 0 || uv_timer_init(loop, &net->stop_timer) != 0) {
    /* Neither fails on a live loop; if one did, the handle was not registered. */
    free(net);
    return NULL;
  }
  net->prepare.data = SRV_OWN_TAG;
  net->stop_timer.data = SRV_OWN_TAG;
  net->handles_open = 2;
  return net;
}

void srv_net_release(void *ud) {
  srv_net *net = ud;
  srv_list_foreach (it, &net->held) {
    conn *c = srv_list_entry(it, conn, held);
    /* Frames released at an earlier turn's end had a whole turn to be written: a client that
     * still leaves more than the bound of them unread does not read. This turn's frames, however
     * many a busy room made, are not its fault. */
    const out_queue *q = &c->q;
    size_t held = q->held_turn == net->turn ? q->held_n : 0;
    if (!c->doomed && queue_len(q) - held > (size_t)net->cfg.send_queue)
      conn_drop(net, c, "outgoing queue full");
  }
  net->turn++;
  srv_list_foreach_safe (it, &net->held) {
    conn *c = srv_list_entry(it, conn, held);
    srv_list_remove(&c->held);
    if (!c->doomed)
      lws_callback_on_writable(c->wsi);
  }
}

/* The loop boundary, once per loop turn before the loop polls (Redis' beforeSleep): the turn
 * hook ends the turn (srv_turn.h), releasing the turn's frames last; without one they are
 * released at once. */
static void on_prepare(uv_prepare_t *h) {
  srv_net *net = (srv_net *)((char *)h - offsetof(srv_net, prepare));
  if (net->turn_hook != NULL)
    net->turn_hook(net->turn_hook_arg);
  else
    srv_net_release(net);
}

void srv_net_set_turn_hook(srv_net *net, void (*fn)(void *arg), void *arg) {
  net->turn_hook = fn;
  net->turn_hook_arg = arg;
}

int srv_net_start(srv_net *net, srv_dispatch *d) {
  net->dispatch = d;
  uv_prepare_start(&net->prepare, on_prepare);

  if (realpath(net->cfg.web, net->index_path) == NULL) {
    srv_log_warn("net", "web directory %s: not found; only /ws, /healthz and /metrics will work",
                 net->cfg.web);
    snprintf(net->index_path, sizeof net->index_path, "%s", net->cfg.web);
  }
  char webdir[1100];
  snprintf(webdir, sizeof webdir, "%s", net->index_path);
  snprintf(net->index_path, sizeof net->index_path, "%.1000s/index.html", webdir);
  snprintf(net->web_origin, sizeof net->web_origin, "%s", webdir);

  net->protocols[0] =
      (struct lws_protocols){"http", http_callback, sizeof(http_req), 0, 0, NULL, 0};
  net->protocols[1] =
      (struct lws_protocols){PROTOCOL_NAME, ws_callback, sizeof(conn), SRV_FRAME_MAX, 0, NULL, 0};
  memset(&net->protocols[2], 0, sizeof net->protocols[2]);

  static const char *const types[][2] = {{".mjs", "text/javascript"},
                                         {".json", "application/json"},
                                         {".webmanifest", "application/manifest+json"},
                                         {".woff2", "font/woff2"},
                                         {".txt", "text/plain"}};
  for (int i = 0; i < 5; i++) {
    net->mimetypes[i].next = i < 4 ? &net->mimetypes[i + 1] : NULL;
    net->mimetypes[i].name = types[i][0];
    net->mimetypes[i].value = types[i][1];
  }
  static const char *const routes[] = {"/r", "/healthz", "/metrics", "/api", "/g"};
  for (int i = 0; i < 5; i++) {
    struct lws_http_mount *m = &net->mounts[i];
    memset(m, 0, sizeof *m);
    m->mount_next = &net->mounts[i + 1];
    m->mountpoint = routes[i];
    m->mountpoint_len = (unsigned char)strlen(routes[i]);
    m->origin = "http";
    m->origin_protocol = LWSMPRO_CALLBACK;
  }
  struct lws_http_mount *root = &net->mounts[5];
  memset(root, 0, sizeof *root);
  root->mountpoint = "/";
  root->mountpoint_len = 1;
  root->origin = net->web_origin;
  root->def = "index.html";
  root->origin_protocol = LWSMPRO_FILE;
  root->extra_mimetypes = net->mimetypes;

  net->retry.secs_since_valid_ping = (uint16_t)net->cfg.ping_s;
  net->retry.secs_since_valid_hangup = (uint16_t)net->cfg.hangup_s;

  void *loops[1] = {net->loop};
  struct lws_context_creation_info info;
  memset(&info, 0, sizeof info);
  info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_EXPLICIT_VHOSTS |
                 LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE;
  info.foreign_loops = loops;
  info.pcontext = &net->context;
  info.retry_and_idle_policy = &net->retry;
  info.fd_limit_per_thread = (unsigned)net->cfg.max_connections + 256;
  net->context = lws_create_context(&info);
  if (net->context == NULL) {
    srv_log_error("net",
                  "cannot create the libwebsockets context (is libwebsockets-evlib-uv installed?)");
    return SRV_EINTERNAL;
  }
  info.port = net->cfg.port;
  info.iface = strcmp(net->cfg.bind, "0.0.0.0") == 0 ? NULL : net->cfg.bind;
  info.protocols = net->protocols;
  info.mounts = net->mounts;
  info.vhost_name = "mancala";
  info.user = net;
  info.server_string = "mancala-server";
  if (strchr(net->cfg.bind, ':') == NULL && info.iface != NULL)
    info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
  net->vhost = lws_create_vhost(net->context, &info);
  if (net->vhost == NULL) {
    srv_log_error("net", "cannot listen on %s port %d", net->cfg.bind, net->cfg.port);
    return SRV_EINTERNAL;
  }
  net->port = lws_get_vhost_listen_port(net->vhost);
  srv_log_info("net", "listening on http://%s:%d/ (WebSocket /ws, web %s)", net->cfg.bind,
               net->port, webdir);
  return 0;
}

int srv_net_port(const srv_net *net) {
  return net->port;
}

/* Counts the handles that are not ours, closing ones included: until its close callback has run,
 * a handle still belongs to the loop, and lws's live inside the context that the second
 * lws_context_destroy() frees. */
static void count_lws_handle(uv_handle_t *h, void *arg) {
  if (h->data != SRV_OWN_TAG)
    (*(int *)arg)++;
}

static void on_stop_tick(uv_timer_t *t) {
  srv_net *net = (srv_net *)((char *)t - offsetof(srv_net, stop_timer));
  if (!net->destroyed_once) {
    /* Give clients a moment to read their bye, then tear lws down from this uv callback. */
    if (!srv_list_empty(&net->conns) && now_ms() - net->stop_started < SHUTDOWN_GRACE_MS)
      return;
    net->destroyed_once = true;
    if (net->context != NULL)
      lws_context_destroy(net->context);
    return;
  }
  int left = 0;
  uv_walk(net->loop, count_lws_handle, &left);
  if (left > 0)
    return;
  if (net->context != NULL)
    lws_context_destroy(net->context); /* The second call finishes it; pcontext becomes NULL. */
  uv_timer_stop(&net->stop_timer);
  uv_prepare_stop(&net->prepare);
  if (net->done)
    net->done(net->done_arg);
}

void srv_net_stop(srv_net *net, void (*done)(void *arg), void *arg) {
  if (net->stopping)
    return;
  net->stopping = true;
  net->done = done;
  net->done_arg = arg;
  net->stop_started = now_ms();
  srv_log_info("net", "shutting down: closing %ld connections", net->nconns);
  srv_list_foreach (it, &net->conns) {
    conn *c = srv_list_entry(it, conn, link);
    if (!c->open || c->closing || c->doomed)
      continue;
    srv_event ev = {.type = SRV_EV_BYE};
    ev.u.bye.reason = "shutdown";
    srv_send_event(&net->sink, &c->client, &ev);
    c->closing = true;
    c->close_code = LWS_CLOSE_STATUS_GOINGAWAY;
    c->close_reason = "server shutting down";
    if (!c->doomed)
      lws_callback_on_writable(c->wsi);
  }
  uv_timer_start(&net->stop_timer, on_stop_tick, 10, 10);
}

static void net_handle_closed(srv_net *net) {
  if (--net->handles_open == 0)
    free(net);
}

static void on_prepare_closed(uv_handle_t *h) {
  net_handle_closed((srv_net *)((char *)h - offsetof(srv_net, prepare)));
}

static void on_stop_timer_closed(uv_handle_t *h) {
  net_handle_closed((srv_net *)((char *)h - offsetof(srv_net, stop_timer)));
}

void srv_net_free(srv_net *net) {
  if (net == NULL)
    return;
  free(net->ips);
  net->ips = NULL;
  /* The handles live inside net, which is freed when both have closed. */
  uv_close((uv_handle_t *)&net->prepare, on_prepare_closed);
  uv_close((uv_handle_t *)&net->stop_timer, on_stop_timer_closed);
}
