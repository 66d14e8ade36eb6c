/* libwebsockets glue: the listening socket, HTTP routes, the WebSocket protocol, outgoing queues,
 * limits, shutdown. */
#define _XOPEN_SOURCE 700 /* realpath() */
#include "srv_net.h"

#include <errno.h>
#include <fcntl.h>
#include <libwebsockets.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "srv_addr.h"
#include "srv_error.h"
#include "srv_http.h"
#include "srv_keepalive.h"
#include "srv_list.h"
#include "srv_log.h"
#include "srv_metrics.h"
#include "srv_peer.h"
#include "srv_proto.h"
#include "srv_rlimit.h"
#include "srv_send.h"
#include "srv_static.h"
#include "srv_time_uv.h"

#define PROTOCOL_NAME "mancala.v1"
#define SHUTDOWN_GRACE_MS 1000
#define CLOSE_TRY_AGAIN_LATER 1013
#define CLOSE_ACK_S 5
/* How often keepalive looks for silent connections: pings and hangups are up to this late. */
#define KEEPALIVE_TICK_MS 1000
/* Accepting paused after an accept error that would repeat at once (out of descriptors): from
 * this long, doubling while it goes on, up to the maximum (nginx waits 500 ms). */
#define ACCEPT_PAUSE_MIN_MS 100
#define ACCEPT_PAUSE_MAX_MS 1000
/* Connections accepted in one callback at most: the loop's other work is not kept waiting. */
#define ACCEPTS_PER_CALLBACK 128
/* The gate (gate_*()): how long a new connection has to send its first request's head (lws' own
 * timeout), how often one whose head is not whole is looked at again, how long an answered one is
 * read and its input discarded before it is closed (closing with unread input would reset the
 * connection, and the client could lose the answer), and how much is discarded at most. */
#define GATE_HEAD_MS 5000
#define GATE_TICK_MS 50
#define GATE_LINGER_MS 2000
#define GATE_DISCARD_MAX (1024 * 1024)
/* The close opcode of lws_write(): lws keeps it private (LWS_WRITE_CLOSE = 4) in favour of
 * lws_close_reason(), which cannot be used here (see conn_writeable()). */
#define WRITE_CLOSE ((enum lws_write_protocol)4)

/* lws writes the WebSocket header into the headroom of our frames. */
_Static_assert(SRV_FRAME_PRE >= LWS_PRE, "frames need LWS_PRE bytes of headroom");

/* One queued outgoing frame. The frame itself may be shared with other connections' queues. */
typedef struct out_entry {
  srv_frame *frame; /* One reference, the queue's. */
  uint64_t turn;    /* The stamp it was queued under (net->stamp): held until that is released. */
} out_entry;

/* A connection's outgoing queue: the entries v[head..tail) in order, oldest first. Those whose
 * stamp is released (below net->turn) are the client's to read; the first one that is not holds
 * back the ones after it, so that the client reads them in the order they were queued. */
typedef struct out_queue {
  out_entry *v;
  size_t head, tail, cap;
  size_t bytes;    /* Text bytes of the frames queued. */
  uint64_t newest; /* The highest stamp queued. */
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
  uint64_t opened_ms;
  srv_list unhello;      /* In net->unhello until it says hello. */
  srv_list link;         /* In net->conns once established. */
  srv_list held;         /* In net->held while it has frames not released yet. */
  srv_keepalive_conn ka; /* In net->ka while open. */
  bool ping_due;         /* Write a ping at the next writeable callback. */
  /* The last writeable callback left released frames unwritten (the socket was full): the client
   * has not read what it was sent before. Only then may a newer state replace an unsent one. */
  bool backlog;
} conn;

/* A new connection at the gate: its first request's head is read (peeked: lws reads it again)
 * and checked (srv_http_head_check()) before lws gets the socket. */
typedef struct gate_conn {
  srv_list link; /* In net->gates until it is answered, handed over or closed. */
  struct srv_net *net;
  uv_poll_t poll;
  int fd;
  uint64_t deadline; /* now_ms() past which it is closed. */
  size_t seen;       /* Bytes waiting when it was last looked at. */
  size_t discarded;  /* Lingering: input read and dropped. */
  bool paused;       /* The head is not whole: not polled, the tick looks when more came. */
  bool lingering;    /* Answered: its input is discarded until the peer closes or the deadline. */
  bool adopt;        /* Closing: hand the socket to lws once the poll handle is closed. */
} gate_conn;

struct api_call;

/* Per HTTP request with a generated body. */
typedef struct http_req {
  unsigned char *body; /* LWS_PRE + len bytes. */
  size_t len;
  struct api_call *call; /* An archive request whose answer has not come yet. */
} http_req;

/* An archive request read through the storage seam (routes.api): its answer may come after the
 * HTTP callback returned, and after the request's connection closed. */
typedef struct api_call {
  struct lws *wsi; /* NULL: the connection closed first; the answer is dropped. */
  http_req *req;
  bool body;     /* Not HEAD. */
  bool waiting;  /* Answered after routes.api returned: headers at the next writeable. */
  bool answered; /* The answer is in: */
  int status;
  char *text;
  const char *type;
} api_call;

struct srv_net {
  uv_loop_t *loop;
  srv_config cfg;
  srv_addr_list proxies;
  const char *version;
  srv_dispatch *dispatch;
  struct lws_context *context;
  struct lws_vhost *vhost;
  int port;
  /* The listening socket is ours, not lws' (listen_*()): accepting can pause when the process runs
   * out of descriptors, where lws 4.1 would retry accept() at once, forever. */
  int listen_fd;
  uv_poll_t listen_poll;
  bool listening;             /* listen_poll is initialised and not closed. */
  uv_timer_t accept_timer;    /* Ends a pause of accepting. */
  uint64_t accept_pause_ms;   /* The current pause; 0: not paused since the last good accept. */
  unsigned long accept_fails; /* Accept errors that paused accepting (for the log). */
  long open_files;            /* The open-file limit in force. */
  srv_list gates;             /* New connections at the gate (gate_conn), oldest first. */
  uv_timer_t gate_timer;      /* Deadlines and slow heads of the gate, while it holds any. */
  uint64_t started_ms;
  lws_retry_bo_t retry;
  struct lws_protocols protocols[3];
  struct lws_http_mount mounts[6];
  char web_dir[1100];
  srv_static *files; /* The web client's files, with validators and gzip (srv_static.h). */
  srv_list conns;    /* Every established connection. */
  long nconns;
  srv_peers *peers; /* Every client address (srv_peer.h): connections per address. */
  srv_list unhello; /* Connections that have not said hello yet, oldest first. */
  uv_timer_t hello_timer;
  uv_prepare_t prepare; /* The turn's end before the loop polls... */
  uv_check_t check;     /* ...and right after it (on_check()). */
  /* Frames queued now are stamped stamp; those stamped below turn are released. The end of a turn
   * cuts the stamps when it seals a storage batch (srv_net_cut()) and releases up to a cut once
   * its batch is committed (srv_net_release_cut()): a frame never leaves before the writes of its
   * turn are durable, even when later turns ran while the batch was in flight. */
  uint64_t stamp, turn;
  srv_sink sink; /* Queues for a client's connection (srv_send.h). */
  srv_list held; /* Connections with frames not released yet. */
  void (*turn_hook)(void *arg);
  void *turn_hook_arg;
  srv_net_routes routes;
  uv_timer_t stop_timer;
  srv_keepalive ka;    /* Keepalive of the open connections (srv_keepalive.h). */
  uv_timer_t ka_timer; /* Its tick, every KEEPALIVE_TICK_MS. */
  bool stopping, destroyed_once;
  uint64_t stop_started;
  void (*done)(void *arg);
  void *done_arg;
  int handles_open;
};

static uint64_t now_ms(void) {
  return uv_hrtime() / 1000000u;
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
  if (e->turn > q->newest)
    q->newest = e->turn;
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
  /* A newer lobby or my_rooms list supersedes an unsent older one. A newer state of a room
   * supersedes an unsent older one only for a client that has not read what it was sent before
   * (c->backlog): a client that reads promptly gets a state for every ply. Never a reply to a
   * request, nor a full state (with the game's moves) by one that is not: a backlogged queue holds
   * at most one full and one other state of a room. */
  if ((f->type == SRV_EV_STATE && c->backlog) || f->type == SRV_EV_LOBBY ||
      f->type == SRV_EV_MY_ROOMS) {
    for (size_t i = q->head; i < q->tail; i++) {
      const srv_frame *o = q->v[i].frame;
      if (o->type == f->type && !o->reply && (!o->full || f->full) &&
          (f->type != SRV_EV_STATE || strcmp(o->room, f->room) == 0)) {
        queue_remove(q, i);
        srv_metrics_dropped(1);
        break;
      }
    }
  }
  /* Not written yet: the frame waits for the end of this loop turn (see on_prepare()), and for the
   * commit of the storage batch of its turn (srv_net_cut()). */
  out_entry e = {srv_frame_ref(f), net->stamp};
  if (!queue_append(q, &e)) {
    srv_frame_unref(f);
    conn_drop(net, c, "out of memory");
    return;
  }
  /* The bound in bytes counts everything queued; the bound in frames is checked when frames are
   * released (release_up_to()). */
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
/* Released frames of one connection go out together, in one send(), up to this many bytes (and
 * only frames of at most WS_BATCH_FRAME_MAX bytes each; a larger one goes alone): a resumed
 * player's welcome, joined and full state were three sends and two polls of the socket
 * (lws_send_pipe_choked()), each send running the peer's TCP receive too on loopback (bench
 * scale.mjs storm, docs/security.md). No more than lws sends of one write at once (its
 * pt_serv_buf_size, 4 KiB, plus LWS_PRE and 4): it keeps the rest and sends it a POLLOUT at a
 * time, and frames handed over can no longer be replaced by newer ones (net_queue()). */
#define WS_BATCH_MAX 4096
#define WS_BATCH_FRAME_MAX 2048
/* A server's WebSocket header (RFC 6455, 5.2) of a frame that goes in a batch: FIN and the text
 * opcode, no mask, the length in 7 bits, or 126 and 16 bits. */
#define WS_HEADER_MAX 4
_Static_assert(WS_BATCH_FRAME_MAX <= 0xffff, "a batched frame's length fits 16 bits");

/* Writes the WebSocket header of a final text frame of len bytes into h (room for
 * WS_HEADER_LONG bytes); returns its size: 2, 4 (a length above 125) or 10 (above 0xffff). */
#define WS_HEADER_LONG 10
_Static_assert(WS_HEADER_LONG <= SRV_FRAME_PRE, "a frame's headroom holds its header");
static size_t ws_text_header(unsigned char *h, size_t len) {
  h[0] = 0x81;
  if (len < 126) {
    h[1] = (unsigned char)len;
    return 2;
  }
  if (len <= 0xffff) {
    h[1] = 126;
    h[2] = (unsigned char)(len >> 8);
    h[3] = (unsigned char)len;
    return 4;
  }
  h[1] = 127;
  for (int i = 0; i < 8; i++)
    h[2 + i] = (unsigned char)((uint64_t)len >> (56 - 8 * i));
  return WS_HEADER_LONG;
}

/* How many of q's released frames from the head go out in one send: at least 1, more while each
 * is small and the whole fits WS_BATCH_MAX with their headers. */
static size_t batch_len(const out_queue *q, uint64_t released) {
  size_t n = 0, bytes = 0;
  for (size_t i = q->head; i < q->tail && q->v[i].turn < released; i++) {
    size_t len = q->v[i].frame->len;
    if (n > 0 && (len > WS_BATCH_FRAME_MAX || bytes + WS_HEADER_MAX + len > WS_BATCH_MAX))
      break;
    n++;
    bytes += WS_HEADER_MAX + len;
    if (len > WS_BATCH_FRAME_MAX)
      break; /* A large first frame goes alone. */
  }
  return n;
}

/* Pops q's first frame and returns it (the queue's reference, now the caller's). */
static srv_frame *queue_pop(out_queue *q) {
  srv_frame *f = q->v[q->head].frame;
  q->bytes -= f->len;
  if (++q->head == q->tail)
    q->head = q->tail = 0;
  return f;
}

/* Writes the first n (>= 2) frames of c's queue as n WebSocket frames in one send and pops them.
 * They are framed here and handed to lws as bytes (LWS_WRITE_HTTP: lws sends them as they are,
 * and keeps what the socket does not take, as for any write): the server offers no extension, so
 * a frame is its header and its text. Returns 0, or -1 when the write failed. */
static int write_batch(conn *c, size_t n) {
  unsigned char buf[LWS_PRE + WS_BATCH_MAX];
  size_t at = LWS_PRE;
  for (size_t i = 0; i < n; i++) {
    srv_frame *f = queue_pop(&c->q);
    at += ws_text_header(buf + at, f->len);
    memcpy(buf + at, f->data + SRV_FRAME_PRE, f->len);
    at += f->len;
    srv_frame_unref(f);
  }
  size_t len = at - LWS_PRE;
  int w = lws_write(c->wsi, buf + LWS_PRE, len, LWS_WRITE_HTTP);
  return w >= 0 && (size_t)w >= len ? 0 : -1;
}

/* Writes c's released frames, as many as the socket takes now, and notes whether some are left
 * (c->backlog). The first send goes without asking the socket: in a writeable callback it is
 * writable, and at the end of a turn (nothing of lws' own pending) what it does not take lws keeps
 * and sends first (lws_partial_buffered() then holds the next frames back). Small frames released
 * together go in one send (write_batch()). Returns 0, or -1 when a write failed. A client that
 * reads keeps up with a busy room (one frame per callback would let its queue fill up and drop
 * it). */
static int write_released(conn *c) {
  out_queue *q = &c->q;
  for (int n = 0; n < WRITES_PER_CALLBACK && queue_len(q) > 0 &&
                  q->v[q->head].turn < c->net->turn && (n == 0 || !lws_send_pipe_choked(c->wsi));
       n++) {
    size_t k = batch_len(q, c->net->turn);
    if (k > 1) {
      if (write_batch(c, k) != 0)
        return -1;
      continue;
    }
    srv_frame *f = queue_pop(q);
    /* Framed here, in the frame's headroom, and handed to lws as bytes, as write_batch() does:
     * lws' own framing (LWS_WRITE_TEXT) runs its extensions' hooks and debug logging on every
     * frame. The write never touches the text itself, and the header is the same bytes for
     * every connection the frame is queued for. */
    unsigned char hdr[WS_HEADER_LONG], *text = f->data + SRV_FRAME_PRE;
    size_t h = ws_text_header(hdr, f->len);
    memcpy(text - h, hdr, h);
    int w = lws_write(c->wsi, text - h, h + f->len, LWS_WRITE_HTTP);
    bool ok = w >= 0 && (size_t)w >= h + f->len;
    srv_frame_unref(f);
    if (!ok)
      return -1;
  }
  c->backlog = queue_len(q) > 0 && q->v[q->head].turn < c->net->turn;
  return 0;
}

static int conn_writeable(conn *c) {
  if (c->doomed)
    return -1;
  if (c->ping_due) {
    /* Keepalive: the client has been silent for --ping-s (see on_keepalive_tick()). */
    c->ping_due = false;
    /* With a payload: lws 4.1 does not pass an empty pong to LWS_CALLBACK_RECEIVE_PONG. */
    unsigned char ping[LWS_PRE + 2] = {[LWS_PRE] = 'k', [LWS_PRE + 1] = 'a'};
    if (!c->closing && lws_write(c->wsi, ping + LWS_PRE, 2, LWS_WRITE_PING) < 0)
      return -1;
    if (lws_send_pipe_choked(c->wsi)) {
      lws_callback_on_writable(c->wsi);
      return 0;
    }
  }
  out_queue *q = &c->q;
  if (queue_len(q) > 0 && q->v[q->head].turn >= c->net->turn)
    return 0; /* Not released yet: the end of the turn asks for this callback again. */
  if (queue_len(q) > 0) {
    if (write_released(c) != 0)
      return -1;
    if (c->backlog || (queue_len(q) == 0 && c->closing))
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

static void hello_arm(srv_net *net, uint64_t now);

static void conn_open(srv_net *net, conn *c, struct lws *wsi) {
  c->wsi = wsi;
  c->net = net;
  srv_client_init(&c->client, c);
  char peer[64] = "", xff[512], key[64];
  lws_get_peer_simple(wsi, peer, sizeof peer);
  bool has_xff = lws_hdr_copy(wsi, xff, sizeof xff, WSI_TOKEN_X_FORWARDED_FOR) > 0;
  srv_addr_client(&net->proxies, peer, has_xff ? xff : NULL, c->ip, sizeof c->ip);
  srv_addr_key(c->ip, key, sizeof key);
  snprintf(c->client.addr, sizeof c->client.addr, "%s", key);
  c->tokens = net->cfg.burst;
  c->refill_ms = now_ms();
  c->opened_ms = c->refill_ms;
  srv_list_push_front(&net->conns, &c->link);
  srv_peer *p = net->stopping ? NULL : srv_peers_get(net->peers, key);
  if (net->stopping) {
    conn_error(net, c, SRV_ECONNS, NULL, LWS_CLOSE_STATUS_GOINGAWAY, "server shutting down");
  } else if (p == NULL) {
    conn_error(net, c, SRV_ENOMEM, NULL, CLOSE_TRY_AGAIN_LATER, "out of memory");
  } else if (net->nconns >= net->cfg.max_connections || p->connections >= net->cfg.max_per_ip) {
    srv_log_info("net", "refusing %s: too many connections", c->ip);
    srv_peer_unref(p);
    conn_error(net, c, SRV_ECONNS, NULL, CLOSE_TRY_AGAIN_LATER, "too many connections");
  } else {
    c->open = true;
    c->client.peer = p;
    p->connections++;
    net->nconns++;
    srv_list_push_back(&net->unhello, &c->unhello);
    if (!uv_is_active((uv_handle_t *)&net->hello_timer))
      hello_arm(net, c->opened_ms);
    srv_keepalive_add(&net->ka, &c->ka, uv_now(net->loop));
    srv_log_debug("net", "connection from %s (%ld open)", c->ip, net->nconns);
  }
}

static void conn_closed(srv_net *net, conn *c) {
  if (c->open) {
    srv_dispatch_client_gone(net->dispatch, &c->client);
    c->client.peer->connections--;
    srv_peer_unref(c->client.peer);
    c->client.peer = NULL;
    net->nconns--;
    c->open = false;
  }
  srv_list_remove(&c->unhello);
  queue_clear(&c->q);
  srv_list_remove(&c->held);
  srv_keepalive_remove(&c->ka);
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
  if (c->client.player != NULL)
    srv_list_remove(&c->unhello); /* It said hello: no deadline any more. */
}

/* Connections that have not said hello within --hello-s get hello_required and are closed (1008),
 * so that silent connections cannot hold the connection slots for good. The timer runs only while
 * some connection waits for its hello, and wakes when the oldest one's time is up. It closes at
 * most HELLO_CLOSES_PER_TICK at once, the oldest first, and then comes back HELLO_TICK_MS later
 * while more are due (2,000 a second): 10,000 silent connections opened over 10 s reach their
 * deadlines 1,000 a second, and closing a second's worth in one callback held every room's moves:
 * the victims' p99 of bench/scale.mjs hello went from 87.5 ms (a tick a second) to 14.7 ms (100 ms,
 * 200 a tick) and 9.9 ms (this), 5 to 12 ms idle. */
#define HELLO_TICK_MS 20
#define HELLO_CLOSES_PER_TICK 40
static void on_hello_tick(uv_timer_t *t);

/* Arms the hello timer for the oldest connection still waiting, or stops it when none waits. */
static void hello_arm(srv_net *net, uint64_t now) {
  srv_list *it = srv_list_first(&net->unhello);
  if (it == NULL) {
    uv_timer_stop(&net->hello_timer);
    return;
  }
  uint64_t due = srv_list_entry(it, conn, unhello)->opened_ms + (uint64_t)net->cfg.hello_s * 1000;
  uint64_t wait = due > now ? due - now : HELLO_TICK_MS;
  uv_timer_start(&net->hello_timer, on_hello_tick, wait, 0);
}

static void on_hello_tick(uv_timer_t *t) {
  srv_net *net = (srv_net *)((char *)t - offsetof(srv_net, hello_timer));
  uint64_t now = now_ms(), deadline = (uint64_t)net->cfg.hello_s * 1000;
  srv_list *it;
  for (int closed = 0;
       closed < HELLO_CLOSES_PER_TICK && (it = srv_list_first(&net->unhello)) != NULL;) {
    conn *c = srv_list_entry(it, conn, unhello);
    if (now - c->opened_ms < deadline)
      break;
    srv_list_remove(&c->unhello);
    if (c->client.player != NULL || c->closing || c->doomed)
      continue;
    srv_log_info("net", "closing %s: no hello within %d s", c->ip, net->cfg.hello_s);
    conn_error(net, c, SRV_EHELLO, NULL, LWS_CLOSE_STATUS_POLICY_VIOLATION, "hello timeout");
    closed++;
  }
  if (!net->stopping)
    hello_arm(net, now);
}

static void conn_receive(srv_net *net, conn *c, const char *in, size_t len) {
  if (!c->open || c->closing || c->doomed)
    return;
  srv_keepalive_seen(&net->ka, &c->ka, uv_now(net->loop));
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
  case LWS_CALLBACK_RECEIVE_PONG:
    if (c->net != NULL)
      srv_keepalive_seen(&c->net->ka, &c->ka, uv_now(c->net->loop));
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

/* The method and path of a request (uri borrowed from lws, *len bytes, not NUL-terminated). */
static srv_http_method method_of(struct lws *wsi, char **uri, int *len) {
  *uri = NULL;
  *len = 0;
  switch (lws_http_get_uri_and_method(wsi, uri, len)) {
  case LWSHUMETH_GET:
    return SRV_HTTP_GET;
  case LWSHUMETH_HEAD:
    return SRV_HTTP_HEAD;
  case LWSHUMETH_OPTIONS:
    return SRV_HTTP_OPTIONS;
  default:
    return SRV_HTTP_OTHER;
  }
}

/* The bytes of the request's headers libwebsockets knows by name. */
static size_t header_bytes(struct lws *wsi) {
  size_t n = 0;
  for (int t = 0; t < (int)WSI_TOKEN_COUNT; t++) {
    int k = lws_hdr_total_length(wsi, (enum lws_token_indexes)t);
    n += k > 0 ? (size_t)k : 0;
  }
  return n;
}

/* Fragment i of header token into buf, without the space lws puts before a repeated header's
 * value; NULL when it cannot be read. */
static const char *fragment(struct lws *wsi, enum lws_token_indexes token, int i, char *buf,
                            int size) {
  if (lws_hdr_copy_fragment(wsi, buf, size, token, i) < 0)
    return NULL;
  while (*buf == ' ' || *buf == '\t')
    buf++;
  return buf;
}

/* Whether the request's framing conflicts (RFC 9112, 6.3): Content-Length twice with different
 * values (lws keeps both, as fragments), or with Transfer-Encoding. */
static bool framing_conflict(struct lws *wsi) {
  char b1[32], b2[32];
  const char *first, *other;
  if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) <= 0)
    return false;
  if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) > 0)
    return true;
  if ((first = fragment(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, 0, b1, sizeof b1)) == NULL)
    return true;
  for (int i = 1; lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, i) > 0; i++) {
    if ((other = fragment(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, i, b2, sizeof b2)) == NULL ||
        strcmp(first, other) != 0)
      return true;
  }
  return false;
}

/* The answer srv_http.h gives this request. (The first request of a connection passed the gate's
 * checks already; a later one of a kept-alive connection gets what lws lets us see again.) */
static void answer_of(srv_net *net, struct lws *wsi, srv_http_answer *a) {
  char *uri;
  int len;
  srv_http_method m = method_of(wsi, &uri, &len);
  srv_http_route_of(m, uri ? uri : "", uri && len > 0 ? (size_t)len : 0, header_bytes(wsi),
                    net->routes.api != NULL, a);
  if (framing_conflict(wsi)) {
    a->route = SRV_HTTP_STATUS;
    a->status = 400;
    a->allow = NULL;
  }
}

/* The reason phrase of the statuses answered without a route. */
static const char *status_text(int status) {
  switch (status) {
  case 400:
    return "Bad Request";
  case 404:
    return "Not Found";
  case 405:
    return "Method Not Allowed";
  case 414:
    return "URI Too Long";
  case 431:
    return "Request Header Fields Too Large";
  default:
    return "Error";
  }
}

/* Writes the status line and headers (content type, length, no-store, Allow when allow is not
 * NULL, and "Connection: close" when close: the connection ends after this answer, and a client
 * must not send another request on it) into buf. Returns the bytes written, or -1. */
static int http_head(struct lws *wsi, unsigned status, const char *type, size_t len,
                     const char *allow, bool close, unsigned char *buf, size_t size) {
  unsigned char *start = buf + LWS_PRE, *p = start, *end = buf + size - 1;
  if (lws_add_http_common_headers(wsi, status, type, len, &p, end) ||
      (close && lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION,
                                             (const unsigned char *)"close", 5, &p, end)) ||
      lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL,
                                   (const unsigned char *)"no-store", 8, &p, end) ||
      (allow != NULL &&
       lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_ALLOW, (const unsigned char *)allow,
                                    (int)strlen(allow), &p, end)) ||
      lws_finalize_http_header(wsi, &p, end))
    return -1;
  return (int)(p - start);
}

/* Answers a request with a status only (404, 405, 414, 431, 204), at once: called before
 * libwebsockets would serve a file, so the connection closes after it (return -1). */
static int http_status_now(struct lws *wsi, const srv_http_answer *a) {
  char text[64];
  int n = a->status == 204
              ? 0
              : snprintf(text, sizeof text, "%d %s\n", a->status, status_text(a->status));
  unsigned char buf[LWS_PRE + 512];
  int h = http_head(wsi, (unsigned)a->status, "text/plain; charset=utf-8", (size_t)n, a->allow,
                    true, buf, sizeof buf);
  if (h < 0 || lws_write(wsi, buf + LWS_PRE, (size_t)h, LWS_WRITE_HTTP_HEADERS) < 0)
    return -1;
  if (n > 0 && a->body) {
    unsigned char body[LWS_PRE + 64];
    memcpy(body + LWS_PRE, text, (size_t)n);
    lws_write(wsi, body + LWS_PRE, (size_t)n, LWS_WRITE_HTTP_FINAL);
  }
  return -1;
}

/* Answers with text (steals it; NULL: out of memory): the headers now, the body (not for HEAD)
 * when the socket is writeable. */
static int http_reply(struct lws *wsi, http_req *req, unsigned status, const char *type, char *text,
                      bool body) {
  if (text == NULL)
    return -1;
  size_t len = strlen(text);
  if (body) {
    req->body = malloc(LWS_PRE + len);
    if (req->body == NULL) {
      free(text);
      return -1;
    }
    memcpy(req->body + LWS_PRE, text, len);
    req->len = len;
  }
  free(text);
  unsigned char head[LWS_PRE + 512];
  int h = http_head(wsi, status, type, len, NULL, false, head, sizeof head);
  if (h < 0 || lws_write(wsi, head + LWS_PRE, (size_t)h, LWS_WRITE_HTTP_HEADERS) < 0)
    return -1;
  if (!body)
    return lws_http_transaction_completed(wsi) ? -1 : 0;
  lws_callback_on_writable(wsi);
  return 0;
}

/* The value of header token (into buf), or NULL when the request has none. */
static const char *header(struct lws *wsi, enum lws_token_indexes token, char *buf, int size) {
  return lws_hdr_copy(wsi, buf, size, token) > 0 ? buf : NULL;
}

static int add_header(struct lws *wsi, enum lws_token_indexes token, const char *value,
                      unsigned char **p, unsigned char *end) {
  return lws_add_http_header_by_token(wsi, token, (const unsigned char *)value, (int)strlen(value),
                                      p, end);
}

/* A file of the web client (srv_static.h): 200 with its validators, 304, or 404 (a status with
 * no body, also for HEAD). body false (HEAD): the headers of GET without the body. */
static int http_static(srv_net *net, struct lws *wsi, http_req *req, const char *uri, bool body) {
  char inm[512], ims[64], ae[256];
  srv_static_request sr = {uri, header(wsi, WSI_TOKEN_HTTP_IF_NONE_MATCH, inm, sizeof inm),
                           header(wsi, WSI_TOKEN_HTTP_IF_MODIFIED_SINCE, ims, sizeof ims),
                           header(wsi, WSI_TOKEN_HTTP_ACCEPT_ENCODING, ae, sizeof ae)};
  srv_static_response res;
  int rc = srv_static_serve(net->files, &sr, &res);
  /* An unknown page (an address whose last part names no file): the client's page with status
   * 404, which says so in the reader's language with the way home. A missing file stays a bare
   * 404. */
  const char *last = strrchr(uri, '/');
  bool page404 = false;
  if (rc == 0 && res.status == 404 && last != NULL && strchr(last, '.') == NULL) {
    srv_static_request home = {"/", NULL, NULL, sr.accept_encoding};
    rc = srv_static_serve(net->files, &home, &res);
    page404 = rc == 0 && res.status == 200;
    if (!page404)
      res.status = 404;
  }
  if (rc != 0 || res.status == 404) {
    unsigned char head[LWS_PRE + 512];
    int h = http_head(wsi, rc != 0 ? HTTP_STATUS_INTERNAL_SERVER_ERROR : HTTP_STATUS_NOT_FOUND,
                      "text/plain; charset=utf-8", 0, NULL, false, head, sizeof head);
    if (h < 0 || lws_write(wsi, head + LWS_PRE, (size_t)h, LWS_WRITE_HTTP_HEADERS) < 0)
      return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
  }
  if (res.status == 200 && body) {
    req->body = malloc(LWS_PRE + (res.len ? res.len : 1));
    if (req->body == NULL)
      return -1;
    memcpy(req->body + LWS_PRE, res.body, res.len);
    req->len = res.len;
  }
  unsigned char head[LWS_PRE + 2048], *start = head + LWS_PRE, *p = start,
                                      *end = head + sizeof head - 1;
  if (page404) {
    if (lws_add_http_common_headers(wsi, HTTP_STATUS_NOT_FOUND, res.type, res.len, &p, end) ||
        add_header(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL, "no-store", &p, end) ||
        (res.vary && add_header(wsi, WSI_TOKEN_HTTP_VARY, "Accept-Encoding", &p, end)) ||
        (res.encoding != NULL &&
         add_header(wsi, WSI_TOKEN_HTTP_CONTENT_ENCODING, res.encoding, &p, end)) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
      return -1;
    if (!body)
      return lws_http_transaction_completed(wsi) ? -1 : 0;
    lws_callback_on_writable(wsi);
    return 0;
  }
  if ((res.status == 200
           ? lws_add_http_common_headers(wsi, HTTP_STATUS_OK, res.type, res.len, &p, end)
           : lws_add_http_header_status(wsi, HTTP_STATUS_NOT_MODIFIED, &p, end)) ||
      add_header(wsi, WSI_TOKEN_HTTP_ETAG, res.etag, &p, end) ||
      add_header(wsi, WSI_TOKEN_HTTP_LAST_MODIFIED, res.last_modified, &p, end) ||
      add_header(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL, res.cache_control, &p, end) ||
      (res.vary && add_header(wsi, WSI_TOKEN_HTTP_VARY, "Accept-Encoding", &p, end)) ||
      (res.encoding != NULL &&
       add_header(wsi, WSI_TOKEN_HTTP_CONTENT_ENCODING, res.encoding, &p, end)) ||
      lws_finalize_write_http_header(wsi, start, &p, end))
    return -1;
  if (res.status == 304 || !body)
    return lws_http_transaction_completed(wsi) ? -1 : 0;
  lws_callback_on_writable(wsi);
  return 0;
}

/* A connection lws turned raw: for CONNECT (lws' tunnel, which nothing here serves: it hung) and,
 * with LWS_SERVER_OPTION_FALLBACK_TO_APPLY_LISTEN_ACCEPT_CONFIG, for a method lws does not parse
 * (it answered 403), on a later request of a kept-alive connection (the gate answers those of a
 * first request). 405 with Allow, and close. */
static int http_raw(struct lws *wsi, enum lws_callback_reasons reason) {
  static const char answer[] = "HTTP/1.1 405 Method Not Allowed\r\nServer: mancala-server\r\n"
                               "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 23\r\n"
                               "Cache-Control: no-store\r\nAllow: GET, HEAD\r\n"
                               "Connection: close\r\n\r\n405 Method Not Allowed\n";
  unsigned char buf[LWS_PRE + sizeof answer];
  switch (reason) {
  case LWS_CALLBACK_RAW_RX:
    lws_callback_on_writable(wsi);
    return 0;
  case LWS_CALLBACK_RAW_WRITEABLE:
    memcpy(buf + LWS_PRE, answer, sizeof answer - 1);
    lws_write(wsi, buf + LWS_PRE, sizeof answer - 1, LWS_WRITE_RAW);
    return -1;
  default:
    return 0;
  }
}

/* An archive answer (routes.api's done): taken at once when it came during routes.api, else at the
 * request's next writeable callback. */
static void api_answered(void *arg, int status, char *body, const char *type) {
  api_call *call = arg;
  if (call->waiting && call->wsi == NULL) { /* Its connection is gone. */
    free(body);
    free(call);
    return;
  }
  call->answered = true;
  call->status = status;
  call->text = body;
  call->type = type;
  if (call->waiting)
    lws_callback_on_writable(call->wsi);
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
  case LWS_CALLBACK_FILTER_HTTP_CONNECTION: {
    /* Every request, before libwebsockets serves a file: the statuses are answered here. */
    if (net == NULL)
      return -1;
    srv_http_answer a;
    answer_of(net, wsi, &a);
    return a.route == SRV_HTTP_STATUS ? http_status_now(wsi, &a) : 0;
  }
  case LWS_CALLBACK_HTTP: {
    if (net == NULL)
      return -1;
    srv_http_answer a;
    answer_of(net, wsi, &a);
    char uri[SRV_HTTP_URI_MAX + 1];
    if (lws_hdr_copy(wsi, uri, sizeof uri, a.body ? WSI_TOKEN_GET_URI : WSI_TOKEN_HEAD_URI) <= 0)
      return -1;
    srv_metrics_gauges g;
    switch (a.route) {
    case SRV_HTTP_HEALTHZ:
      /* 503 while storage refuses writes (or a cluster's Redis is down), for a container's
       * health check. */
      gauges(net, &g);
      return http_reply(wsi, req,
                        srv_metrics_degraded(&g) ? HTTP_STATUS_SERVICE_UNAVAILABLE : HTTP_STATUS_OK,
                        "application/json",
                        srv_metrics_health(&g, net->version, now_ms() - net->started_ms), a.body);
    case SRV_HTTP_METRICS:
      gauges(net, &g);
      return http_reply(wsi, req, HTTP_STATUS_OK, "text/plain; version=0.0.4; charset=utf-8",
                        srv_metrics_prometheus(&g), a.body);
    case SRV_HTTP_API: {
      /* The query's arguments, decoded, joined by '&' (a few short ones are all a route reads). */
      char query[256] = "", frag[96];
      size_t qn = 0;
      for (int i = 0; i < 8; i++) {
        int n = lws_hdr_copy_fragment(wsi, frag, sizeof frag, WSI_TOKEN_HTTP_URI_ARGS, i);
        if (n <= 0 || qn + (size_t)n + 2 > sizeof query)
          break;
        qn += (size_t)snprintf(query + qn, sizeof query - qn, "%s%s", qn ? "&" : "", frag);
      }
      /* The client's address: a profile says whether an account has the name (a lookup,
       * counted by address), an analysis is started for an address (srv_api.h). */
      char peer[64] = "", xff[512], ip[64], key[64];
      lws_get_peer_simple(wsi, peer, sizeof peer);
      bool has_xff = lws_hdr_copy(wsi, xff, sizeof xff, WSI_TOKEN_X_FORWARDED_FOR) > 0;
      srv_addr_client(&net->proxies, peer, has_xff ? xff : NULL, ip, sizeof ip);
      srv_addr_key(ip, key, sizeof key);
      int64_t wait = 0;
      if (net->routes.lookup != NULL && strncmp(uri, "/api/players/", 13) == 0 &&
          strchr(uri + 13, '/') == NULL)
        wait = net->routes.lookup(net->routes.lookup_ud, key);
      if (wait > 0) {
        char *text = malloc(96);
        if (text == NULL)
          return -1;
        snprintf(text, 96, "{\"error\":\"too_many_attempts\",\"retry_after_ms\":%lld}",
                 (long long)wait);
        return http_reply(wsi, req, 429, "application/json", text, a.body);
      }
      api_call *call = calloc(1, sizeof *call);
      if (call == NULL)
        return -1;
      call->wsi = wsi;
      call->req = req;
      call->body = a.body;
      if (net->routes.api(net->routes.api_ud, uri, query, key, api_answered, call) != 0) {
        free(call);
        return -1;
      }
      if (call->answered) { /* A local read: the answer is in already. */
        int rc = http_reply(wsi, req, (unsigned)call->status, call->type, call->text, call->body);
        free(call);
        return rc;
      }
      call->waiting = true;
      req->call = call;
      return 0;
    }
    case SRV_HTTP_PAGE:   /* The same page as /, which reads what to show from the address. */
    case SRV_HTTP_STATIC: /* The web client's files. */
      return http_static(net, wsi, req, uri, a.body);
    default:
      if (lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL) ||
          lws_http_transaction_completed(wsi))
        return -1;
      return 0;
    }
  }
  case LWS_CALLBACK_RAW_ADOPT:
  case LWS_CALLBACK_RAW_RX:
  case LWS_CALLBACK_RAW_WRITEABLE:
  case LWS_CALLBACK_RAW_CLOSE:
    return http_raw(wsi, reason);
  case LWS_CALLBACK_HTTP_WRITEABLE:
    if (req != NULL && req->call != NULL && req->call->answered) {
      /* An archive answer that came later: its headers now, its body at the next writeable. */
      api_call *call = req->call;
      req->call = NULL;
      int rc = http_reply(wsi, req, (unsigned)call->status, call->type, call->text, call->body);
      free(call);
      return rc;
    }
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
      if (req->call != NULL && req->call->answered) {
        free(req->call->text);
        free(req->call);
      } else if (req->call != NULL) {
        req->call->wsi = NULL; /* Its answer, when it comes, frees it. */
      }
      req->call = NULL;
    }
    break;
  default:
    break;
  }
  return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* ---- Keepalive ----------------------------------------------------------------------------- */

static conn *conn_of_ka(srv_keepalive_conn *kc) {
  return (conn *)((char *)kc - offsetof(conn, ka));
}

/* The tick's callbacks' argument. */
typedef struct ka_tick {
  srv_net *net;
  bool hungup;
} ka_tick;

static void ka_ping(void *ud, srv_keepalive_conn *kc) {
  (void)ud;
  conn *c = conn_of_ka(kc);
  c->ping_due = true;
  lws_callback_on_writable(c->wsi);
}

static void ka_hangup(void *ud, srv_keepalive_conn *kc) {
  ka_tick *t = ud;
  conn_drop(t->net, conn_of_ka(kc), "silent for --hangup-s");
  t->hungup = true;
}

/* Pings the connections silent for --ping-s and drops those silent for --hangup-s: our own
 * keepalive, not lws' validity timers (see srv_keepalive.h). */
static void on_keepalive_tick(uv_timer_t *timer) {
  srv_net *net = (srv_net *)((char *)timer - offsetof(srv_net, ka_timer));
  ka_tick t = {net, false};
  srv_keepalive_ops ops = {ka_ping, ka_hangup, &t};
  srv_keepalive_tick(&net->ka, uv_now(net->loop), &ops);
  /* conn_drop() arms an lws timeout; lws on libuv re-arms its own timer only when it services an
   * event, and a dead peer sends none: wake it (LWS_CALLBACK_EVENT_WAIT_CANCELLED, ignored). */
  if (t.hungup)
    lws_cancel_service(net->context);
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
  srv_list_init(&net->unhello);
  srv_list_init(&net->gates);
  net->peers = srv_peers_new();
  if (net->peers == NULL) {
    free(net);
    return NULL;
  }
  net->sink = (srv_sink){net_queue, net_lost, net};
  if (srv_addr_list_parse(cfg->trust_proxy, &net->proxies) != 0)
    net->proxies.n = 0; /* srv_config_load() already refused a bad list. */
  net->version = version;
  net->port = -1;
  net->started_ms = now_ms();
  srv_keepalive_init(&net->ka, (uint64_t)cfg->ping_s * 1000, (uint64_t)cfg->hangup_s * 1000);
  net->listen_fd = -1;
  if (uv_prepare_init(loop, &net->prepare) != 0 || uv_check_init(loop, &net->check) != 0 ||
      uv_timer_init(loop, &net->stop_timer) != 0 || uv_timer_init(loop, &net->hello_timer) != 0 ||
      uv_timer_init(loop, &net->ka_timer) != 0 || uv_timer_init(loop, &net->accept_timer) != 0 ||
      uv_timer_init(loop, &net->gate_timer) != 0) {
    /* None fails on a live loop; if one did, the handle was not registered. */
    srv_peers_free(net->peers);
    free(net);
    return NULL;
  }
  net->prepare.data = SRV_OWN_TAG;
  net->check.data = SRV_OWN_TAG;
  net->stop_timer.data = SRV_OWN_TAG;
  net->hello_timer.data = SRV_OWN_TAG;
  net->ka_timer.data = SRV_OWN_TAG;
  net->accept_timer.data = SRV_OWN_TAG;
  net->gate_timer.data = SRV_OWN_TAG;
  net->handles_open = 7;
  return net;
}

/* How many frames released before lead c's queue unread (released frames are written in order),
 * counted up to limit + 1. */
static size_t unread_released(const out_queue *q, uint64_t released, size_t limit) {
  size_t n = 0;
  for (size_t i = q->head; i < q->tail && q->v[i].turn < released && n <= limit; i++)
    n++;
  return n;
}

/* Releases the frames stamped below turn and writes what the sockets take now. */
static void release_up_to(srv_net *net, uint64_t turn) {
  srv_list_foreach (it, &net->held) {
    conn *c = srv_list_entry(it, conn, held);
    /* Frames released before had at least a whole turn to be written: a client that still leaves
     * more than the bound of them unread does not read. The frames released now, however many a
     * busy room made, are not its fault. */
    size_t limit = (size_t)net->cfg.send_queue;
    if (!c->doomed && unread_released(&c->q, net->turn, limit) > limit)
      conn_drop(net, c, "outgoing queue full");
  }
  if (turn > net->turn)
    net->turn = turn;
  srv_list_foreach_safe (it, &net->held) {
    conn *c = srv_list_entry(it, conn, held);
    /* A connection keeps its place while it holds frames of a later cut. */
    if (c->doomed || c->q.newest < net->turn)
      srv_list_remove(&c->held);
    if (c->doomed)
      continue;
    /* A connection with nothing else to say and nothing of lws' own left to send gets its
     * frames now: asking lws for a writeable callback instead turns POLLOUT on and off again
     * (two epoll_ctl() calls and a wakeup) for every recipient of every state, which was most
     * of what a spectator cost. Whatever the socket does not take waits for that callback. */
    if (!c->ping_due && !c->closing && !lws_partial_buffered(c->wsi)) {
      if (write_released(c) != 0) {
        conn_drop(net, c, "write failed");
        continue;
      }
      if (!c->backlog)
        continue;
    }
    lws_callback_on_writable(c->wsi);
  }
}

void srv_net_release(void *ud) {
  srv_net *net = ud;
  release_up_to(net, ++net->stamp);
}

uint64_t srv_net_cut(void *ud) {
  srv_net *net = ud;
  return net->stamp++;
}

uint64_t srv_net_stamp(void *ud) {
  return ((srv_net *)ud)->stamp;
}

uint64_t srv_net_restamp(void *ud, uint64_t cut) {
  srv_net *net = ud;
  uint64_t was = net->stamp;
  net->stamp = cut;
  return was;
}

void srv_net_release_cut(void *ud, uint64_t cut) {
  release_up_to(ud, cut + 1);
}

/* The loop boundary: the turn hook ends the turn (srv_turn.h), releasing the turn's frames last;
 * without one they are released at once. */
static void turn_end(srv_net *net) {
  if (net->turn_hook != NULL)
    net->turn_hook(net->turn_hook_arg);
  else
    srv_net_release(net);
  /* The turn's commit is done: what it did to the store's counters is storage's health (/healthz).
   */
  if (net->routes.gauges != NULL) {
    srv_metrics_gauges g;
    gauges(net, &g);
    if (g.storage)
      srv_metrics_storage_turn(&g.store);
  }
}

/* Once per loop turn before the loop polls (Redis' beforeSleep): what timers and lws' own
 * callbacks did. */
static void on_prepare(uv_prepare_t *h) {
  turn_end((srv_net *)((char *)h - offsetof(srv_net, prepare)));
}

/* And right after the poll phase, before the loop closes the handles closed in it: the replies to
 * what the poll phase read leave before the last part of its closed connections' teardown (lws
 * closes the socket, scans its connection table and frees the connection in the handle's close
 * callback: about 40% of a close) and before the next turn's timers. In a reconnect storm,
 * thousands of connections close in one poll phase (docs/security.md). */
static void on_check(uv_check_t *h) {
  turn_end((srv_net *)((char *)h - offsetof(srv_net, check)));
}

/* ---- The listening socket ------------------------------------------------------------------ */

/* Opens the listening socket on --bind and --port into net->listen_fd and net->port: "0.0.0.0" is
 * every address, IPv6 and IPv4 on one socket where the system has IPv6 (as lws did). Returns 0, or
 * -1 after logging why. */
static int listen_open(srv_net *net) {
  const char *host = net->cfg.bind;
  bool any = strcmp(host, "0.0.0.0") == 0;
  char port[16];
  snprintf(port, sizeof port, "%d", net->cfg.port);
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = any ? AF_INET6 : AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  int rc = getaddrinfo(any ? NULL : host, port, &hints, &res);
  if (rc != 0 && any) { /* No IPv6 here: IPv4 alone. */
    hints.ai_family = AF_INET;
    rc = getaddrinfo(NULL, port, &hints, &res);
  }
  if (rc != 0) {
    srv_log_error("net", "cannot listen on %s port %d: %s", host, net->cfg.port, gai_strerror(rc));
    return -1;
  }
  int fd = -1, err = 0;
  for (struct addrinfo *ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    int one = 1, zero = 0;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ai->ai_family == AF_INET6 && any)
      setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
      err = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  struct sockaddr_storage sa;
  socklen_t len = sizeof sa;
  if (fd >= 0 && getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
    err = errno;
    close(fd);
    fd = -1;
  }
  if (fd < 0) {
    srv_log_error("net", "cannot listen on %s port %d: %s", host, net->cfg.port, strerror(err));
    return -1;
  }
  net->listen_fd = fd;
  net->port = ntohs(sa.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&sa)->sin6_port
                                             : ((struct sockaddr_in *)&sa)->sin_port);
  return 0;
}

static void on_listen(uv_poll_t *h, int status, int events);
static void net_handle_closed(srv_net *net);

/* ---- The gate: the first request's head, read before lws reads it ----------------------------
 * lws 4.1 parses a request itself, and for some heads never lets the server answer: over its
 * buffer it closes without a status, it does not count headers it does not know, a NUL in the
 * path closes, an unknown method gets 403, CONNECT hangs. The gate reads the head of each new
 * connection's first request with MSG_PEEK (the bytes stay for lws) and answers those itself
 * (srv_http_head_check()); a head fit for lws is handed over with the socket. */

static void on_gate_closed(uv_handle_t *h) {
  gate_conn *g = (gate_conn *)((char *)h - offsetof(gate_conn, poll));
  srv_net *net = g->net;
  if (g->adopt && !net->stopping && net->context != NULL) {
    int one = 1; /* What lws sets on the sockets it accepts. */
    setsockopt(g->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (lws_adopt_socket_vhost(net->vhost, g->fd) == NULL) /* lws has closed it. */
      srv_log_warn("net", "a new connection could not be set up (out of memory or descriptors)");
  } else {
    close(g->fd);
  }
  free(g);
  net_handle_closed(net);
}

/* Ends the gate's part: the socket goes to lws (adopt), or is closed. The poll handle is closed
 * first, so that lws' own poll of the descriptor is the only one. */
static void gate_close(gate_conn *g, bool adopt) {
  if (uv_is_closing((uv_handle_t *)&g->poll))
    return;
  srv_list_remove(&g->link);
  g->adopt = adopt;
  uv_close((uv_handle_t *)&g->poll, on_gate_closed);
}

/* Reads and drops what the peer sent; closes at its end or past GATE_DISCARD_MAX. */
static void gate_discard(gate_conn *g) {
  char buf[4096];
  for (;;) {
    ssize_t n = recv(g->fd, buf, sizeof buf, 0);
    if (n > 0 && (g->discarded += (size_t)n) <= GATE_DISCARD_MAX)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
      return;
    gate_close(g, false); /* The peer's end, an error, or too much. */
    return;
  }
}

static void on_gate_io(uv_poll_t *h, int status, int events);

/* Answers a's status and closes: the answer, then the input discarded until the peer closes (a
 * lingering close, as nginx's), at most GATE_LINGER_MS. */
static void gate_answer(gate_conn *g, const srv_http_answer *a) {
  char body[64], head[512];
  int bn = snprintf(body, sizeof body, "%d %s\n", a->status, status_text(a->status));
  int hn = snprintf(head, sizeof head,
                    "HTTP/1.1 %d %s\r\nServer: mancala-server\r\n"
                    "Content-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\n"
                    "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n%s%s%s"
                    "Connection: close\r\n\r\n%s",
                    a->status, status_text(a->status), bn, a->allow ? "Allow: " : "",
                    a->allow ? a->allow : "", a->allow ? "\r\n" : "", body);
  /* A few hundred bytes into an empty socket buffer: one send() takes them. */
  (void)send(g->fd, head, (size_t)hn, MSG_NOSIGNAL);
  shutdown(g->fd, SHUT_WR);
  g->lingering = true;
  g->deadline = now_ms() + GATE_LINGER_MS;
  if (g->paused) {
    g->paused = false;
    uv_poll_start(&g->poll, UV_READABLE, on_gate_io);
  }
  gate_discard(g);
}

/* Looks at what has come of the head so far and acts on srv_http_head_check()'s verdict. */
static void gate_check(gate_conn *g) {
  char buf[SRV_HTTP_HEAD_MAX + 1];
  ssize_t n = recv(g->fd, buf, sizeof buf, MSG_PEEK);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
    return;
  if (n <= 0) {
    gate_close(g, false); /* Closed before a request, or an error. */
    return;
  }
  srv_http_answer a;
  switch (srv_http_head_check(buf, (size_t)n, &a)) {
  case SRV_HTTP_HEAD_MORE:
    /* The bytes stay readable: polling would wake at once. The tick looks again when more came. */
    g->seen = (size_t)n;
    if (!g->paused) {
      g->paused = true;
      uv_poll_stop(&g->poll);
    }
    return;
  case SRV_HTTP_HEAD_PASS:
    gate_close(g, true);
    return;
  case SRV_HTTP_HEAD_ANSWER:
    srv_log_debug("net", "answering %d to a request lws would not answer", a.status);
    gate_answer(g, &a);
    return;
  }
}

static void on_gate_io(uv_poll_t *h, int status, int events) {
  gate_conn *g = (gate_conn *)((char *)h - offsetof(gate_conn, poll));
  (void)events;
  if (status < 0)
    gate_close(g, false);
  else if (g->lingering)
    gate_discard(g);
  else
    gate_check(g);
}

/* Every GATE_TICK_MS while the gate holds connections: deadlines, and heads that grew. */
static void on_gate_tick(uv_timer_t *t) {
  srv_net *net = (srv_net *)((char *)t - offsetof(srv_net, gate_timer));
  uint64_t now = now_ms();
  srv_list_foreach_safe (it, &net->gates) {
    gate_conn *g = srv_list_entry(it, gate_conn, link);
    int avail = 0;
    if (now > g->deadline)
      gate_close(g, false); /* No whole head in time (as lws), or done lingering. */
    else if (g->paused && ioctl(g->fd, FIONREAD, &avail) == 0 && (size_t)avail != g->seen)
      gate_check(g);
  }
  if (srv_list_empty(&net->gates))
    uv_timer_stop(&net->gate_timer);
}

/* A new connection: to the gate, or straight to lws when memory runs out. */
static void gate_add(srv_net *net, int fd) {
  gate_conn *g = calloc(1, sizeof *g);
  if (g == NULL || uv_poll_init(net->loop, &g->poll, fd) != 0) {
    free(g);
    if (lws_adopt_socket_vhost(net->vhost, fd) == NULL)
      srv_log_warn("net", "a new connection could not be set up (out of memory or descriptors)");
    return;
  }
  g->poll.data = SRV_OWN_TAG;
  g->net = net;
  g->fd = fd;
  g->deadline = now_ms() + GATE_HEAD_MS;
  net->handles_open++;
  srv_list_push_back(&net->gates, &g->link);
  if (!uv_is_active((uv_handle_t *)&net->gate_timer))
    uv_timer_start(&net->gate_timer, on_gate_tick, GATE_TICK_MS, GATE_TICK_MS);
  uv_poll_start(&g->poll, UV_READABLE, on_gate_io);
}

static void gate_close_all(srv_net *net) {
  uv_timer_stop(&net->gate_timer);
  srv_list_foreach_safe (it, &net->gates) {
    gate_close(srv_list_entry(it, gate_conn, link), false);
  }
}

static void on_accept_resume(uv_timer_t *t) {
  srv_net *net = (srv_net *)((char *)t - offsetof(srv_net, accept_timer));
  if (net->listening && !net->stopping)
    uv_poll_start(&net->listen_poll, UV_READABLE, on_listen);
}

/* An accept error that would come back at once (out of descriptors, above all): stop polling the
 * listening socket for a while instead of spinning on it, as nginx does. The connections wait in
 * the kernel's backlog meanwhile; connections closing (refused ones, lws' 5 s timeout of requests
 * that never come) give the descriptors back. */
static void accept_pause(srv_net *net, int err) {
  net->accept_pause_ms = net->accept_pause_ms == 0 ? ACCEPT_PAUSE_MIN_MS : 2 * net->accept_pause_ms;
  if (net->accept_pause_ms > ACCEPT_PAUSE_MAX_MS)
    net->accept_pause_ms = ACCEPT_PAUSE_MAX_MS;
  net->accept_fails++;
  uv_poll_stop(&net->listen_poll);
  uv_timer_start(&net->accept_timer, on_accept_resume, net->accept_pause_ms, 0);
  srv_log_warn("net",
               "accept: %s (open-file limit %ld, %ld WebSocket connections): not accepting for "
               "%llu ms (%lu pauses so far)",
               strerror(err), net->open_files, net->nconns,
               (unsigned long long)net->accept_pause_ms, net->accept_fails);
}

/* The listening socket is readable: accept what is waiting; each connection goes to the gate,
 * then to lws (lws_adopt_socket_vhost(): from there on as if lws had accepted it). */
static void on_listen(uv_poll_t *h, int status, int events) {
  srv_net *net = (srv_net *)((char *)h - offsetof(srv_net, listen_poll));
  (void)events;
  if (status < 0) {
    srv_log_error("net", "listening socket: %s", uv_strerror(status));
    accept_pause(net, EIO);
    return;
  }
  for (int i = 0; i < ACCEPTS_PER_CALLBACK && !net->stopping; i++) {
    int fd = accept(net->listen_fd, NULL, NULL);
    if (fd < 0) {
      int err = errno;
      if (err == EINTR || err == ECONNABORTED || err == EPROTO)
        continue; /* That connection only. */
      if (err == EAGAIN || err == EWOULDBLOCK)
        net->accept_pause_ms = 0; /* All accepted: the next error starts short again. */
      else
        accept_pause(net, err); /* EMFILE, ENFILE, ENOBUFS, ENOMEM, ... */
      return;
    }
    gate_add(net, fd);
  }
}

static void on_listen_closed(uv_handle_t *h);

/* Stops accepting for good and closes the listening socket (its descriptor once the handle is
 * closed): new connections are refused from then on. */
static void listen_close(srv_net *net) {
  uv_timer_stop(&net->accept_timer);
  if (!net->listening)
    return;
  net->listening = false;
  uv_close((uv_handle_t *)&net->listen_poll, on_listen_closed);
}

void srv_net_set_turn_hook(srv_net *net, void (*fn)(void *arg), void *arg) {
  net->turn_hook = fn;
  net->turn_hook_arg = arg;
}

int srv_net_start(srv_net *net, srv_dispatch *d) {
  net->dispatch = d;
  uv_prepare_start(&net->prepare, on_prepare);
  uv_check_start(&net->check, on_check);

  if (realpath(net->cfg.web, net->web_dir) == NULL) {
    srv_log_warn("net", "web directory %s: not found; only /ws, /healthz and /metrics will work",
                 net->cfg.web);
    snprintf(net->web_dir, sizeof net->web_dir, "%s", net->cfg.web);
  }
  if ((net->files = srv_static_new(net->web_dir)) == NULL) {
    srv_log_error("net", "out of memory");
    return SRV_ENOMEM;
  }

  net->protocols[0] =
      (struct lws_protocols){"http", http_callback, sizeof(http_req), 0, 0, NULL, 0};
  net->protocols[1] =
      (struct lws_protocols){PROTOCOL_NAME, ws_callback, sizeof(conn), SRV_FRAME_MAX, 0, NULL, 0};
  memset(&net->protocols[2], 0, sizeof net->protocols[2]);

  /* Every path is ours (http_callback()): the routes, then the web client's files. */
  static const char *const routes[] = {"/r", "/healthz", "/metrics", "/api", "/g", "/"};
  for (int i = 0; i < 6; i++) {
    struct lws_http_mount *m = &net->mounts[i];
    memset(m, 0, sizeof *m);
    m->mount_next = i < 5 ? &net->mounts[i + 1] : NULL;
    m->mountpoint = routes[i];
    m->mountpoint_len = (unsigned char)strlen(routes[i]);
    m->origin = "http";
    m->origin_protocol = LWSMPRO_CALLBACK;
  }

  /* No validity timers from lws (both 0; without a policy of its own the vhost would get lws'
   * default, 300 s): keepalive is ours (on_keepalive_tick()). */
  memset(&net->retry, 0, sizeof net->retry);
  int want = net->cfg.max_connections;
  long files = srv_rlimit_open_files((long)want + SRV_RLIMIT_SPARE);
  net->open_files = files;
  /* The connection limit is what the open-file limit allows, a reserve kept for everything else:
   * connections past it are refused (too_many_connections) instead of running out of descriptors.
   */
  net->cfg.max_connections = (int)srv_rlimit_connections(files, want);

  void *loops[1] = {net->loop};
  struct lws_context_creation_info info;
  memset(&info, 0, sizeof info);
  info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_EXPLICIT_VHOSTS |
                 LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE |
                 LWS_SERVER_OPTION_FALLBACK_TO_APPLY_LISTEN_ACCEPT_CONFIG; /* http_raw() */
  info.foreign_loops = loops;
  info.pcontext = &net->context;
  info.retry_and_idle_policy = &net->retry;
  /* Exactly the open-file limit: lws then indexes its connections by descriptor (srv_rlimit.h). */
  info.fd_limit_per_thread = (unsigned)files;
  /* Room for a large request head, so that one over SRV_HTTP_HEADERS_MAX gets 431 (a head over
   * this is cut by lws, which closes the connection: the gate answers those of a first request). */
  _Static_assert(SRV_HTTP_HEAD_MAX < SRV_HTTP_HEADERS_READ, "a head the gate passes fits lws");
  info.max_http_header_data = SRV_HTTP_HEADERS_READ;
  net->context = lws_create_context(&info);
  if (net->context == NULL) {
    srv_log_error("net",
                  "cannot create the libwebsockets context (is libwebsockets-evlib-uv installed?)");
    return SRV_EINTERNAL;
  }
  /* lws serves the connections our listening socket accepts (listen_open(), on_listen()). */
  info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
  info.protocols = net->protocols;
  info.mounts = net->mounts;
  info.vhost_name = "mancala";
  info.user = net;
  info.server_string = "mancala-server";
  net->vhost = lws_create_vhost(net->context, &info);
  if (net->vhost == NULL) {
    srv_log_error("net", "cannot create the libwebsockets vhost");
    return SRV_EINTERNAL;
  }
  if (listen_open(net) != 0)
    return SRV_EINTERNAL;
  if (uv_poll_init(net->loop, &net->listen_poll, net->listen_fd) != 0) {
    srv_log_error("net", "cannot poll the listening socket");
    close(net->listen_fd);
    net->listen_fd = -1;
    return SRV_EINTERNAL;
  }
  net->listen_poll.data = SRV_OWN_TAG;
  net->listening = true;
  net->handles_open++;
  uv_poll_start(&net->listen_poll, UV_READABLE, on_listen);
  uv_timer_start(&net->ka_timer, on_keepalive_tick, KEEPALIVE_TICK_MS, KEEPALIVE_TICK_MS);
  if (net->cfg.max_connections < want)
    srv_log_warn("net",
                 "connections: at most %d, not --max-connections %d: the open-file limit %ld "
                 "keeps %ld descriptors for the database, logs and files (raise it: ulimit -n, "
                 "LimitNOFILE)",
                 net->cfg.max_connections, want, files, files - net->cfg.max_connections);
  else
    srv_log_info("net", "connections: at most %d (open-file limit %ld)", net->cfg.max_connections,
                 files);
  srv_log_info("net", "listening on http://%s:%d/ (WebSocket /ws, web %s)", net->cfg.bind,
               net->port, net->web_dir);
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
  uv_timer_stop(&net->hello_timer);
  uv_prepare_stop(&net->prepare);
  uv_check_stop(&net->check);
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
  uv_timer_stop(&net->ka_timer);
  listen_close(net);
  gate_close_all(net);
  srv_log_info("net", "shutting down: closing %ld connections", net->nconns);
  /* One bye frame for everyone; NULL when memory ran out: the close frame alone then. */
  srv_event ev = {.type = SRV_EV_BYE};
  ev.u.bye.reason = "shutdown";
  srv_frame *bye = srv_proto_encode(&ev);
  srv_list_foreach (it, &net->conns) {
    conn *c = srv_list_entry(it, conn, link);
    if (!c->open || c->closing || c->doomed)
      continue;
    /* What a connection has not been sent yet is dropped: the bye and the close go out now, not
     * after a backlog that a busy client would need longer than the grace to read. Nothing is
     * lost with it: every move it announces is committed (or taken back) by the end of this
     * turn, and a client that comes back gets its rooms' whole state again. */
    srv_metrics_dropped(queue_len(&c->q));
    queue_clear(&c->q);
    if (bye != NULL)
      srv_send_frame(&net->sink, &c->client, bye);
    c->closing = true;
    c->close_code = LWS_CLOSE_STATUS_GOINGAWAY;
    c->close_reason = "server shutting down";
    if (!c->doomed)
      lws_callback_on_writable(c->wsi);
  }
  srv_frame_unref(bye);
  uv_timer_start(&net->stop_timer, on_stop_tick, 10, 10);
}

static void net_handle_closed(srv_net *net) {
  if (--net->handles_open == 0) {
    srv_peers_free(net->peers);
    free(net);
  }
}

static void on_hello_timer_closed(uv_handle_t *h) {
  net_handle_closed((srv_net *)((char *)h - offsetof(srv_net, hello_timer)));
}

static void on_prepare_closed(uv_handle_t *h) {
  net_handle_closed((srv_net *)((char *)h - offsetof(srv_net, prepare)));
}

static void on_check_closed(uv_handle_t *h) {
  net_handle_closed((srv_net *)((char *)h - offsetof(srv_net, check)));
}

static void on_stop_timer_closed(uv_handle_t *h) {
  net_handle_closed((srv_net *)((char *)h - offsetof(srv_net, stop_timer)));
}

static void on_ka_timer_closed(uv_handle_t *h) {
  net_handle_closed((srv_net *)((char *)h - offsetof(srv_net, ka_timer)));
}

static void on_gate_timer_closed(uv_handle_t *h) {
  net_handle_closed((srv_net *)((char *)h - offsetof(srv_net, gate_timer)));
}

static void on_accept_timer_closed(uv_handle_t *h) {
  net_handle_closed((srv_net *)((char *)h - offsetof(srv_net, accept_timer)));
}

static void on_listen_closed(uv_handle_t *h) {
  srv_net *net = (srv_net *)((char *)h - offsetof(srv_net, listen_poll));
  close(net->listen_fd);
  net->listen_fd = -1;
  net_handle_closed(net);
}

void srv_net_free(srv_net *net) {
  if (net == NULL)
    return;
  srv_static_free(net->files);
  net->files = NULL;
  /* The handles live inside net, which is freed when all have closed. */
  uv_close((uv_handle_t *)&net->prepare, on_prepare_closed);
  uv_close((uv_handle_t *)&net->check, on_check_closed);
  uv_close((uv_handle_t *)&net->stop_timer, on_stop_timer_closed);
  uv_close((uv_handle_t *)&net->hello_timer, on_hello_timer_closed);
  uv_close((uv_handle_t *)&net->ka_timer, on_ka_timer_closed);
  listen_close(net);
  gate_close_all(net);
  uv_close((uv_handle_t *)&net->accept_timer, on_accept_timer_closed);
  uv_close((uv_handle_t *)&net->gate_timer, on_gate_timer_closed);
}
