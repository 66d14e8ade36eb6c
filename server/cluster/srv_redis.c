/* A Redis client on the libuv loop: hiredis 0.14's asynchronous contexts on its libuv adapter.
 *
 * What hiredis 0.14 does that shapes this file:
 * - A context frees itself when its connection is lost or fails to be made: it calls every pending
 *   callback with a NULL reply, then the disconnect callback (only if it had connected), or the
 *   connect callback with REDIS_ERR (if it had not), and frees itself after. So a context is
 *   forgotten (conn->ac = NULL) in those callbacks and never touched again, and the connection is
 *   made again from the retry timer, not from inside them.
 * - redisAsyncFree() called from inside one of the context's reply callbacks is put off until that
 *   callback returns (hiredis' REDIS_IN_CALLBACK); called elsewhere it runs at once. So whatever
 *   may call the user's code (which may call srv_redis_close()) runs inside a reply callback or a
 *   timer of ours, never inside the connect callback (freeing there would leave hiredis using the
 *   freed context): a connection is reported ready on the answer to its first command (SELECT
 *   on the command connection, PING or the subscribe confirmations on the other).
 * - It has no command timeout (no redisAsyncSetTimeout): a timer of ours watches the oldest
 *   command awaited; answers come in order on one connection, so the commands wait in a FIFO.
 * - redisAsyncConnect() resolves a name with a blocking getaddrinfo(): a name is resolved here off
 *   the loop first (uv_getaddrinfo) and hiredis gets the address.
 * - The adapter's uv_poll_t is its own: hiredis' cleanup closes it (and frees it on its close).
 */
#include "srv_redis.h"

#include <hiredis/async.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/async.h>

#include "srv_error.h"
#include "srv_list.h"
#include "srv_log.h"
#include "srv_time_uv.h"

#define LOG_MOD "redis"
/* Between two attempts to make a connection, in ms. */
#define RETRY_MS 1000
#define DEFAULT_TIMEOUT_MS 2000

typedef enum conn_state {
  C_DOWN,       /* No context: made again at the retry timer's next tick. */
  C_RESOLVING,  /* The host's name being resolved (uv_getaddrinfo). */
  C_CONNECTING, /* A context, not connected yet. */
  C_HANDSHAKE,  /* Connected, its first command's answer awaited (SELECT, PING or SUBSCRIBE). */
  C_READY,      /* Usable. */
  C_LOST        /* Failing (pending commands are being answered NULL); its context frees itself. */
} conn_state;

typedef struct rconn {
  srv_redis *r;
  redisAsyncContext *ac; /* NULL while down or resolving. */
  conn_state state;
  bool sub;            /* The subscription connection. */
  bool was_ready;      /* It has been ready before: its next ready is a reconnect. */
  uint64_t t0_ms;      /* When this attempt began (loop time), for its time limit. */
  size_t resub_wait;   /* Subscribe confirmations awaited before the subscriptions are whole. */
  uint64_t resolve_id; /* The resolution this attempt waits for (0: none). */
  uv_getaddrinfo_t *resolve_req; /* It, to cancel at a close. */
  unsigned attempts; /* Resolved attempts so far: which of a name's addresses is next. */
} rconn;

/* A command awaited on the command connection, in FIFO order in r->pending. hiredis holds it as
 * its callback's private data until it answers (a NULL reply when the context goes away), and that
 * answer frees it, so a command answered early (timed out, closed) stays allocated until then. */
typedef struct rcmd {
  srv_list link; /* In r->pending while its answer is awaited. */
  srv_redis *r;
  srv_redis_reply_fn fn;
  void *arg;
  uint64_t t0_ns; /* When it was sent (uv_hrtime). */
  bool done;      /* fn was called already (timed out, closed): hiredis' answer only frees it. */
  bool internal;  /* The connection's own SELECT: its answer makes the connection ready. */
} rcmd;

/* A name being resolved; kept until its callback, even after a close. */
typedef struct rresolve {
  uv_getaddrinfo_t req;
  rconn *c;
  uint64_t id;
} rresolve;

struct srv_redis {
  uv_loop_t *loop;
  srv_redis_config cfg; /* cfg.url is ours (copied). */
  char *host;           /* As in the URL (without brackets). */
  bool numeric;         /* host is an address: nothing to resolve. */
  int port, db;
  uint64_t timeout_ms;
  rconn cmd, sub;
  srv_list pending;   /* rcmd, oldest first. */
  uv_timer_t retry;   /* Every RETRY_MS: makes the connections that are down. */
  uv_timer_t timeout; /* At the oldest pending command's time limit. */
  int handles;        /* Of the two timers, not closed yet. */
  int resolving;      /* Resolutions in flight. */
  uint64_t resolve_seq;
  char **channels; /* The remembered channels (copies). */
  size_t n_channels, cap_channels;
  bool up, closed;
  srv_redis_stats stats;
  double rtt_sum_ms;
  uint64_t rtt_n;
};

static void conn_start(rconn *c);
static void conn_drop(rconn *c);
static void timeout_arm(srv_redis *r);

/* ---- The URL -------------------------------------------------------------------------------- */

/* Reads digits from *p up to max into *out. Returns 0, or -1 without digits or past max. */
static int parse_num(const char **p, long max, int *out) {
  const char *s = *p;
  long v = 0;
  if (*s < '0' || *s > '9')
    return -1;
  while (*s >= '0' && *s <= '9') {
    v = v * 10 + (*s++ - '0');
    if (v > max)
      return -1;
  }
  *p = s;
  *out = (int)v;
  return 0;
}

/* redis://HOST[:PORT][/DB] into r's host, port and db. Returns 0, SRV_EBADREQ or SRV_ENOMEM. */
static int parse_url(srv_redis *r, const char *url) {
  static const char scheme[] = "redis://";
  if (url == NULL || strncmp(url, scheme, sizeof scheme - 1) != 0)
    return SRV_EBADREQ;
  const char *p = url + sizeof scheme - 1, *h = p, *end;
  if (*p == '[') { /* An IPv6 address. */
    h = ++p;
    if ((end = strchr(p, ']')) == NULL)
      return SRV_EBADREQ;
    p = end + 1;
  } else {
    end = p + strcspn(p, ":/@?#");
    p = end;
  }
  size_t n = (size_t)(end - h);
  if (n == 0 || n > 253 || memchr(h, '@', n) != NULL || *p == '@')
    return SRV_EBADREQ; /* No host, or a user and a password (not supported). */
  r->port = 6379;
  r->db = 0;
  if (*p == ':' && (++p, parse_num(&p, 65535, &r->port) != 0 || r->port == 0))
    return SRV_EBADREQ;
  if (*p == '/' && *++p != '\0' && parse_num(&p, 1000000, &r->db) != 0)
    return SRV_EBADREQ;
  if (*p != '\0')
    return SRV_EBADREQ;
  if ((r->host = strndup(h, n)) == NULL)
    return SRV_ENOMEM;
  unsigned char addr[16];
  r->numeric =
      uv_inet_pton(AF_INET, r->host, addr) == 0 || uv_inet_pton(AF_INET6, r->host, addr) == 0;
  return 0;
}

/* ---- Being up ------------------------------------------------------------------------------- */

/* Tells the user when up changed (never after a close). */
static void update_up(srv_redis *r) {
  bool up = !r->closed && r->cmd.state == C_READY && r->sub.state == C_READY;
  if (up == r->up)
    return;
  r->up = up;
  srv_log_info(LOG_MOD, "%s:%d %s", r->host, r->port, up ? "up" : "down");
  if (r->cfg.state != NULL)
    r->cfg.state(r->cfg.ud, up);
}

static void conn_ready(rconn *c) {
  c->state = C_READY;
  if (c->was_ready)
    c->r->stats.reconnects++;
  c->was_ready = true;
  update_up(c->r);
}

/* ---- Commands ------------------------------------------------------------------------------- */

/* Gives n's answer to its owner (reply NULL: none). */
static void cmd_finish(srv_redis *r, rcmd *n, const redisReply *reply) {
  n->done = true;
  if (n->internal) { /* The connection's SELECT. */
    if (reply != NULL && reply->type == REDIS_REPLY_STATUS && r->cmd.state == C_HANDSHAKE)
      conn_ready(&r->cmd);
    else if (reply != NULL && r->cmd.state == C_HANDSHAKE) { /* A database Redis does not have. */
      srv_log_error(LOG_MOD, "%s:%d: SELECT %d: %s", r->host, r->port, r->db,
                    reply->type == REDIS_REPLY_ERROR ? reply->str : "unexpected answer");
      conn_drop(&r->cmd); /* Inside its reply callback: hiredis frees it after. */
    }
    return;
  }
  if (reply != NULL) {
    r->rtt_sum_ms += (double)(uv_hrtime() - n->t0_ns) / 1e6;
    r->rtt_n++;
  } else {
    r->stats.failures++;
  }
  if (n->fn != NULL)
    n->fn(n->arg, reply);
}

/* hiredis' callback of every command of the command connection. */
static void cmd_cb(redisAsyncContext *ac, void *reply, void *privdata) {
  rcmd *n = privdata;
  srv_redis *r = n->r;
  rconn *c = ac->data;
  srv_list_remove(&n->link);
  /* A NULL answer: the context is going away; nothing more may be sent on it. */
  if (reply == NULL && c->ac == ac && c->state != C_DOWN)
    c->state = C_LOST;
  if (!n->done)
    cmd_finish(r, n, reply);
  free(n);
  if (!r->closed)
    timeout_arm(r);
}

/* Sends the command cmd (len bytes, hiredis' wire format; freed here) on the command connection.
 * Returns 0, SRV_EUNAVAILABLE or SRV_ENOMEM. */
static int cmd_send(srv_redis *r, bool internal, srv_redis_reply_fn fn, void *arg, char *cmd,
                    int len) {
  rconn *c = &r->cmd;
  if (r->closed || c->ac == NULL || c->state != (internal ? C_HANDSHAKE : C_READY)) {
    redisFreeCommand(cmd);
    return SRV_EUNAVAILABLE;
  }
  rcmd *n = calloc(1, sizeof *n);
  if (n == NULL) {
    redisFreeCommand(cmd);
    return SRV_ENOMEM;
  }
  *n = (rcmd){.r = r, .fn = fn, .arg = arg, .t0_ns = uv_hrtime(), .internal = internal};
  int rc = redisAsyncFormattedCommand(c->ac, cmd_cb, n, cmd, (size_t)len);
  redisFreeCommand(cmd);
  if (rc != REDIS_OK) {
    free(n);
    return c->ac->c.flags & (REDIS_DISCONNECTING | REDIS_FREEING) ? SRV_EUNAVAILABLE : SRV_ENOMEM;
  }
  bool first = srv_list_empty(&r->pending);
  srv_list_push_back(&r->pending, &n->link);
  if (!internal)
    r->stats.commands++;
  if (first)
    timeout_arm(r);
  return 0;
}

int srv_redis_command(srv_redis *r, srv_redis_reply_fn fn, void *arg, int argc, const char **argv,
                      const size_t *argvlen) {
  if (r->closed || r->cmd.state != C_READY)
    return SRV_EUNAVAILABLE; /* Before formatting: a Redis that is down costs nothing. */
  char *cmd = NULL;
  int len = redisFormatCommandArgv(&cmd, argc, argv, argvlen);
  if (len < 0)
    return SRV_ENOMEM;
  return cmd_send(r, false, fn, arg, cmd, len);
}

int srv_redis_commandf(srv_redis *r, srv_redis_reply_fn fn, void *arg, const char *fmt, ...) {
  if (r->closed || r->cmd.state != C_READY)
    return SRV_EUNAVAILABLE;
  char *cmd = NULL;
  va_list ap;
  va_start(ap, fmt);
  int len = redisvFormatCommand(&cmd, fmt, ap);
  va_end(ap);
  if (len < 0)
    return len == -2 ? SRV_EBADREQ : SRV_ENOMEM; /* -2: a bad format. */
  return cmd_send(r, false, fn, arg, cmd, len);
}

int srv_redis_publish(srv_redis *r, const char *channel, const char *msg, size_t len) {
  const char *argv[] = {"PUBLISH", channel, msg};
  size_t lens[] = {7, strlen(channel), len};
  return srv_redis_command(r, NULL, NULL, 3, argv, lens);
}

/* ---- The time limit of the oldest command --------------------------------------------------- */

static void on_timeout(uv_timer_t *t) {
  srv_redis *r = (srv_redis *)((char *)t - offsetof(srv_redis, timeout));
  srv_list *first = srv_list_first(&r->pending);
  if (first == NULL)
    return;
  rcmd *n = srv_list_entry(first, rcmd, link);
  if (uv_hrtime() - n->t0_ns < r->timeout_ms * 1000000u) { /* The loop's clock ran ahead. */
    timeout_arm(r);
    return;
  }
  /* Its answer may still come, but every later answer would be matched to the wrong command: the
   * connection goes, the others are answered NULL by hiredis when it frees the context. */
  srv_list_remove(&n->link);
  srv_log_warn(LOG_MOD, "%s:%d: no answer in %llu ms: connection dropped", r->host, r->port,
               (unsigned long long)r->timeout_ms);
  r->cmd.state = C_LOST; /* Nothing more is sent on it, even from fn. */
  if (!n->internal)
    r->stats.timeouts++;
  cmd_finish(r, n, NULL); /* n is freed by hiredis' NULL answer. */
  if (!r->closed)
    conn_drop(&r->cmd);
}

/* Arms the timer at the oldest pending command's limit, or stops it when none is pending. */
static void timeout_arm(srv_redis *r) {
  srv_list *first = srv_list_first(&r->pending);
  if (first == NULL) {
    uv_timer_stop(&r->timeout);
    return;
  }
  const rcmd *n = srv_list_entry(first, rcmd, link);
  uint64_t due_ns = n->t0_ns + r->timeout_ms * 1000000u, now = uv_hrtime();
  uint64_t ms = due_ns > now ? (due_ns - now + 999999u) / 1000000u : 0;
  uv_timer_start(&r->timeout, on_timeout, ms, 0);
}

/* ---- Subscriptions -------------------------------------------------------------------------- */

/* hiredis' callback of the subscription connection: messages and confirmations. */
static void sub_cb(redisAsyncContext *ac, void *reply_, void *privdata) {
  (void)privdata;
  rconn *c = ac->data;
  srv_redis *r = c->r;
  const redisReply *reply = reply_;
  if (reply == NULL || r->closed || c->ac != ac || reply->type != REDIS_REPLY_ARRAY ||
      reply->elements < 3 || reply->element[0]->type != REDIS_REPLY_STRING)
    return;
  const char *kind = reply->element[0]->str;
  const redisReply *ch = reply->element[1], *msg = reply->element[2];
  if (strcmp(kind, "message") == 0 && ch->type == REDIS_REPLY_STRING &&
      msg->type == REDIS_REPLY_STRING) {
    r->stats.messages++;
    if (r->cfg.message != NULL)
      r->cfg.message(r->cfg.ud, ch->str, ch->len, msg->str, msg->len);
  } else if (strcmp(kind, "subscribe") == 0 && c->resub_wait > 0 && --c->resub_wait == 0 &&
             c->state == C_HANDSHAKE) {
    conn_ready(c); /* Every remembered channel is subscribed again. */
  }
}

/* The answer to the PING of a subscription connection without channels. */
static void sub_ping_cb(redisAsyncContext *ac, void *reply, void *privdata) {
  (void)privdata;
  rconn *c = ac->data;
  if (reply != NULL && !c->r->closed && c->ac == ac && c->state == C_HANDSHAKE)
    conn_ready(c);
}

/* SUBSCRIBE or UNSUBSCRIBE of channels on the subscription connection, when it is connected.
 * A failure is left alone: the connection is going away, and its next one subscribes anew. */
static void sub_send(srv_redis *r, const char *verb, char **channels, size_t n) {
  rconn *c = &r->sub;
  if (c->ac == NULL || (c->state != C_HANDSHAKE && c->state != C_READY) || n == 0)
    return;
  const char **argv = malloc((n + 1) * sizeof *argv);
  if (argv == NULL)
    return;
  argv[0] = verb;
  for (size_t i = 0; i < n; i++)
    argv[i + 1] = channels[i];
  redisAsyncCommandArgv(c->ac, sub_cb, NULL, (int)(n + 1), argv, NULL);
  free(argv);
}

static size_t channel_find(const srv_redis *r, const char *channel) {
  size_t i = 0;
  while (i < r->n_channels && strcmp(r->channels[i], channel) != 0)
    i++;
  return i;
}

int srv_redis_subscribe(srv_redis *r, const char *channel) {
  if (channel_find(r, channel) < r->n_channels)
    return 0;
  if (r->n_channels == r->cap_channels) {
    size_t cap = r->cap_channels ? 2 * r->cap_channels : 8;
    char **grown = realloc(r->channels, cap * sizeof *grown);
    if (grown == NULL)
      return SRV_ENOMEM;
    r->channels = grown;
    r->cap_channels = cap;
  }
  char *copy = strdup(channel);
  if (copy == NULL)
    return SRV_ENOMEM;
  r->channels[r->n_channels++] = copy;
  sub_send(r, "SUBSCRIBE", &copy, 1);
  return 0;
}

int srv_redis_unsubscribe(srv_redis *r, const char *channel) {
  size_t i = channel_find(r, channel);
  if (i == r->n_channels)
    return 0;
  char *copy = r->channels[i];
  r->channels[i] = r->channels[--r->n_channels];
  sub_send(r, "UNSUBSCRIBE", &copy, 1);
  free(copy);
  return 0;
}

/* ---- Connections ---------------------------------------------------------------------------- */

/* The connection is made: its first command, whose answer makes it ready. Inside hiredis' connect
 * callback nothing may free the context: a failure here is left to the time limit. */
static void on_connect(const redisAsyncContext *cac, int status) {
  rconn *c = cac->data;
  srv_redis *r = c->r;
  redisAsyncContext *ac = c->ac;
  if (ac != cac)
    return;
  if (status != REDIS_OK) { /* hiredis frees the context after this. */
    srv_log_debug(LOG_MOD, "%s:%d: cannot connect: %s", r->host, r->port, cac->errstr);
    c->ac = NULL;
    c->state = C_DOWN;
    return;
  }
  c->state = C_HANDSHAKE;
  if (!c->sub) {
    char *cmd = NULL;
    int len = redisFormatCommand(&cmd, "SELECT %d", r->db);
    if (len >= 0)
      cmd_send(r, true, NULL, NULL, cmd, len);
  } else if (r->n_channels > 0) {
    c->resub_wait = r->n_channels;
    sub_send(r, "SUBSCRIBE", r->channels, r->n_channels);
  } else {
    redisAsyncCommand(ac, sub_ping_cb, NULL, "PING");
  }
}

/* The connection was lost: its context frees itself after this (its pending commands were answered
 * NULL just before). Made again by the retry timer. */
static void on_disconnect(const redisAsyncContext *cac, int status) {
  (void)status;
  rconn *c = cac->data;
  srv_redis *r = c->r;
  if (c->ac != cac)
    return; /* Dropped by us: already forgotten. */
  srv_log_warn(LOG_MOD, "%s:%d: %s connection lost: %s", r->host, r->port,
               c->sub ? "subscription" : "command", cac->errstr[0] ? cac->errstr : "closed");
  c->ac = NULL;
  c->state = C_DOWN;
  c->resub_wait = 0;
  if (!r->closed)
    update_up(r);
}

/* ---- hiredis on the loop ------------------------------------------------------------------------
 * What hiredis' libuv adapter does, with one difference: our handles carry SRV_OWN_TAG in their
 * data (srv_time_uv.h), as every handle of ours on the loop does, so that the network layer's
 * shutdown, which waits for lws's handles to close, tells them apart; the adapter's handle data
 * points at itself. It also hands a poll error to hiredis (a read then finds it) rather than
 * dropping it. */
typedef struct uv_events {
  redisAsyncContext *ac; /* NULL once hiredis cleaned up. */
  uv_poll_t handle;
  int events;
} uv_events;

#define EVENTS_OF(h) ((uv_events *)((char *)(h)-offsetof(uv_events, handle)))

static void ev_poll(uv_poll_t *h, int status, int events) {
  uv_events *p = EVENTS_OF(h);
  if (status < 0)
    events = UV_READABLE;
  if (p->ac != NULL && (events & UV_READABLE))
    redisAsyncHandleRead(p->ac);
  if (p->ac != NULL && (events & UV_WRITABLE))
    redisAsyncHandleWrite(p->ac);
}

static void ev_set(uv_events *p, int add, int del) {
  int events = (p->events | add) & ~del;
  if (events == p->events)
    return; /* uv_poll_start() would take the socket out of epoll and put it back for nothing. */
  p->events = events;
  if (p->events != 0)
    uv_poll_start(&p->handle, p->events, ev_poll);
  else
    uv_poll_stop(&p->handle);
}

static void ev_add_read(void *d) {
  ev_set(d, UV_READABLE, 0);
}
static void ev_del_read(void *d) {
  ev_set(d, 0, UV_READABLE);
}
static void ev_add_write(void *d) {
  ev_set(d, UV_WRITABLE, 0);
}
static void ev_del_write(void *d) {
  ev_set(d, 0, UV_WRITABLE);
}

static void ev_closed(uv_handle_t *h) {
  free(EVENTS_OF(h));
}

static void ev_cleanup(void *d) {
  uv_events *p = d;
  p->ac = NULL;
  uv_close((uv_handle_t *)&p->handle, ev_closed);
}

static int ev_attach(redisAsyncContext *ac, uv_loop_t *loop) {
  if (ac->ev.data != NULL)
    return REDIS_ERR;
  uv_events *p = calloc(1, sizeof *p);
  if (p == NULL)
    return REDIS_ERR;
  if (uv_poll_init(loop, &p->handle, ac->c.fd) != 0) {
    free(p);
    return REDIS_ERR;
  }
  p->handle.data = SRV_OWN_TAG;
  p->ac = ac;
  ac->ev.addRead = ev_add_read;
  ac->ev.delRead = ev_del_read;
  ac->ev.addWrite = ev_add_write;
  ac->ev.delWrite = ev_del_write;
  ac->ev.cleanup = ev_cleanup;
  ac->ev.data = p;
  return REDIS_OK;
}

/* Starts a context to ip (an address). */
static void conn_connect(rconn *c, const char *ip) {
  srv_redis *r = c->r;
  c->state = C_DOWN;
  redisAsyncContext *ac = redisAsyncConnect(ip, r->port);
  if (ac == NULL)
    return;
  if (ac->err != 0 || ev_attach(ac, r->loop) != REDIS_OK) {
    srv_log_debug(LOG_MOD, "%s:%d: cannot connect: %s", r->host, r->port,
                  ac->err ? ac->errstr : "cannot watch the socket");
    redisAsyncFree(ac); /* Not connected: no callback of ours runs. */
    return;
  }
  /* TCP keepalive (hiredis: probes after 15 s idle): the subscription connection sends nothing,
   * so a Redis gone without a word (a host down, a partition) is noticed only this way. */
  redisEnableKeepAlive(&ac->c);
  ac->data = c;
  c->ac = ac;
  c->state = C_CONNECTING;
  redisAsyncSetConnectCallback(ac, on_connect);
  redisAsyncSetDisconnectCallback(ac, on_disconnect);
}

static void maybe_free(srv_redis *r);

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res) {
  rresolve *q = req->data;
  rconn *c = q->c;
  srv_redis *r = c->r;
  r->resolving--;
  if (!r->closed && c->state == C_RESOLVING && c->resolve_id == q->id) {
    /* A name with several addresses (localhost: ::1 and 127.0.0.1, Redis often on one): each
     * attempt takes the next one, so that a Redis on any of them is found. */
    const struct addrinfo *a = NULL;
    size_t n = 0;
    for (const struct addrinfo *i = status == 0 ? res : NULL; i != NULL; i = i->ai_next)
      n += i->ai_family == AF_INET || i->ai_family == AF_INET6;
    size_t pick = n > 0 ? c->attempts++ % n : 0;
    for (const struct addrinfo *i = status == 0 ? res : NULL; i != NULL && a == NULL;
         i = i->ai_next)
      if ((i->ai_family == AF_INET || i->ai_family == AF_INET6) && pick-- == 0)
        a = i;
    char ip[64] = "";
    if (a != NULL && a->ai_family == AF_INET6)
      uv_ip6_name((const struct sockaddr_in6 *)a->ai_addr, ip, sizeof ip);
    else if (a != NULL)
      uv_ip4_name((const struct sockaddr_in *)a->ai_addr, ip, sizeof ip);
    c->resolve_id = 0;
    c->resolve_req = NULL;
    c->state = C_DOWN;
    if (ip[0] != '\0')
      conn_connect(c, ip);
    else
      srv_log_warn(LOG_MOD, "%s: cannot resolve: %s", r->host, uv_strerror(status));
  }
  uv_freeaddrinfo(res);
  free(q);
  maybe_free(r);
}

static void conn_start(rconn *c) {
  srv_redis *r = c->r;
  c->t0_ms = uv_now(r->loop);
  if (r->numeric) {
    conn_connect(c, r->host);
    return;
  }
  rresolve *q = calloc(1, sizeof *q);
  if (q == NULL)
    return;
  q->c = c;
  q->id = ++r->resolve_seq;
  q->req.data = q;
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  if (uv_getaddrinfo(r->loop, &q->req, on_resolved, r->host, NULL, &hints) != 0) {
    free(q);
    return;
  }
  r->resolving++;
  c->resolve_id = q->id;
  c->resolve_req = &q->req;
  c->state = C_RESOLVING;
}

/* Forgets c's context and frees it (put off by hiredis when inside one of its callbacks); its
 * pending commands are answered NULL. */
static void conn_drop(rconn *c) {
  srv_redis *r = c->r;
  redisAsyncContext *ac = c->ac;
  c->ac = NULL;
  c->state = C_DOWN;
  c->resub_wait = 0;
  c->resolve_id = 0;
  if (c->resolve_req != NULL) /* Its callback still runs (UV_EAI_CANCELED), freeing it. */
    uv_cancel((uv_req_t *)c->resolve_req);
  c->resolve_req = NULL;
  if (ac != NULL)
    redisAsyncFree(ac);
  if (!r->closed)
    update_up(r);
}

/* Every RETRY_MS: makes what is down, drops what took too long to become ready. */
static void on_retry(uv_timer_t *t) {
  srv_redis *r = (srv_redis *)((char *)t - offsetof(srv_redis, retry));
  rconn *conns[] = {&r->cmd, &r->sub};
  for (size_t i = 0; i < 2 && !r->closed; i++) {
    rconn *c = conns[i];
    if (c->state == C_DOWN)
      conn_start(c);
    else if ((c->state == C_CONNECTING || c->state == C_HANDSHAKE) &&
             uv_now(r->loop) - c->t0_ms > r->timeout_ms) {
      srv_log_warn(LOG_MOD, "%s:%d: not ready in %llu ms: connection dropped", r->host, r->port,
                   (unsigned long long)r->timeout_ms);
      conn_drop(c);
    }
  }
}

/* ---- Life ----------------------------------------------------------------------------------- */

static void maybe_free(srv_redis *r) {
  if (!r->closed || r->handles > 0 || r->resolving > 0)
    return;
  for (size_t i = 0; i < r->n_channels; i++)
    free(r->channels[i]);
  free(r->channels);
  free((char *)r->cfg.url);
  free(r->host);
  free(r);
}

static void timer_closed(srv_redis *r) {
  r->handles--;
  maybe_free(r);
}

static void retry_closed(uv_handle_t *h) {
  timer_closed((srv_redis *)((char *)h - offsetof(srv_redis, retry)));
}

static void timeout_closed(uv_handle_t *h) {
  timer_closed((srv_redis *)((char *)h - offsetof(srv_redis, timeout)));
}

int srv_redis_new(uv_loop_t *loop, const srv_redis_config *cfg, srv_redis **out) {
  *out = NULL;
  if (cfg->timeout_ms < 0)
    return SRV_EBADREQ;
  srv_redis *r = calloc(1, sizeof *r);
  if (r == NULL)
    return SRV_ENOMEM;
  r->loop = loop;
  r->cfg = *cfg;
  r->timeout_ms = cfg->timeout_ms > 0 ? (uint64_t)cfg->timeout_ms : DEFAULT_TIMEOUT_MS;
  int rc = parse_url(r, cfg->url);
  if (rc == 0 && (r->cfg.url = strdup(cfg->url)) == NULL)
    rc = SRV_ENOMEM;
  if (rc != 0) {
    free(r->host);
    free(r);
    return rc;
  }
  r->cmd = (rconn){.r = r};
  r->sub = (rconn){.r = r, .sub = true};
  srv_list_init(&r->pending);
  uv_timer_init(loop, &r->retry);
  uv_timer_init(loop, &r->timeout);
  r->retry.data = r->timeout.data = SRV_OWN_TAG; /* Ours (srv_time_uv.h); found by offset. */
  r->handles = 2;
  /* The first attempt on the loop's next turn: nothing of the user's runs inside this call. */
  uv_timer_start(&r->retry, on_retry, 0, RETRY_MS);
  *out = r;
  return 0;
}

bool srv_redis_up(const srv_redis *r) {
  return r->up;
}

void srv_redis_close(srv_redis *r) {
  if (r == NULL || r->closed)
    return;
  r->closed = true;
  r->up = false;
  /* Answered here, in order; fn may call this interface (refused: closed). */
  srv_list *first;
  while ((first = srv_list_first(&r->pending)) != NULL) {
    rcmd *n = srv_list_entry(first, rcmd, link);
    srv_list_remove(first);
    cmd_finish(r, n, NULL);
  }
  conn_drop(&r->cmd);
  conn_drop(&r->sub);
  uv_timer_stop(&r->retry);
  uv_timer_stop(&r->timeout);
  uv_close((uv_handle_t *)&r->retry, retry_closed);
  uv_close((uv_handle_t *)&r->timeout, timeout_closed);
}

void srv_redis_stats_get(const srv_redis *r, srv_redis_stats *out) {
  *out = r->stats;
  out->rtt_avg_ms = r->rtt_n > 0 ? r->rtt_sum_ms / (double)r->rtt_n : 0;
  out->up = r->up;
}
