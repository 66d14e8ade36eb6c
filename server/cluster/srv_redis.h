/* A Redis client on the libuv loop (hiredis' asynchronous API and its libuv adapter), the
 * foundation of the cluster (issue 21): commands with their answers, publish, and subscriptions
 * that survive a lost connection.
 *
 * Two connections to one Redis: one for commands, one for subscriptions (a subscribed connection
 * takes no other command). Both are made in the background and made again about once a second
 * while down; the loop never waits on Redis. Nothing is queued while the command connection is
 * down: a command is refused at once (SRV_EUNAVAILABLE), so that the caller decides what a lost
 * Redis means, and nothing sent long ago arrives late. Everything runs on the loop's thread. */
#ifndef SRV_REDIS_H
#define SRV_REDIS_H

#include <hiredis/hiredis.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

typedef struct srv_redis srv_redis;

/* A command's answer; reply NULL when the command failed without one (connection lost, timed out,
 * the client closed). An error reply (type REDIS_REPLY_ERROR) is an answer. Borrowed for the
 * call. */
typedef void (*srv_redis_reply_fn)(void *arg, const redisReply *reply);

typedef struct srv_redis_config {
  /* redis://HOST:PORT[/DB] (HOST a name or an address, an IPv6 one in brackets; PORT default
   * 6379; DB default 0). A name is resolved off the loop (uv_getaddrinfo) before each connection;
   * no user or password (refused as a bad URL). */
  const char *url;
  /* A command without an answer after this long fails (fn gets NULL) and the connection is dropped
   * and made again (its answers could no longer be matched); a connection not ready this long after
   * it was started is dropped too; 0: 2000. */
  int64_t timeout_ms;
  /* A message on a subscribed channel; all borrowed. NULL: messages are counted and dropped. */
  void (*message)(void *ud, const char *channel, size_t channel_len, const char *msg, size_t len);
  /* Up (true): both connections (commands, and the one for subscriptions) are connected and every
   * remembered channel is subscribed again; down (false): either was lost. Called only on a
   * change, from the loop, never from inside a call of this interface; not after
   * srv_redis_close(). NULL: not told. */
  void (*state)(void *ud, bool up);
  void *ud;
} srv_redis_config;

/* Makes a client of the Redis at cfg->url on loop (cfg is copied; the URL too). Returns 0 with
 * *out set, SRV_EBADREQ for a bad URL or a negative timeout, SRV_ENOMEM. Connects in the
 * background (the first attempt on the loop's next turn) and tries again every second while
 * down; state(true) tells when it is up. */
int srv_redis_new(uv_loop_t *loop, const srv_redis_config *cfg, srv_redis **out);

/* Whether both connections are up and every remembered channel subscribed (state's last word). */
bool srv_redis_up(const srv_redis *r);

/* Sends a command (argv form, binary-safe: argvlen[i] bytes of argv[i]; argvlen NULL: strlen).
 * fn may be NULL (no answer wanted); otherwise fn is called exactly once, later, on the loop
 * (never from inside this call). Answers come in the order the commands were sent. Not for
 * (P)SUBSCRIBE, (P)UNSUBSCRIBE or MONITOR (use srv_redis_subscribe()). Returns 0,
 * SRV_EUNAVAILABLE when the command connection is down (fn not called), SRV_ENOMEM (fn not
 * called). */
int srv_redis_command(srv_redis *r, srv_redis_reply_fn fn, void *arg, int argc, const char **argv,
                      const size_t *argvlen);

/* Convenience: a printf-like command (hiredis' format: %s a C string, %b a pointer and a size_t,
 * %d, %lld...; each a whole argument). Same contract, and SRV_EBADREQ for a bad format. */
int srv_redis_commandf(srv_redis *r, srv_redis_reply_fn fn, void *arg, const char *fmt, ...);

/* PUBLISH msg (len bytes) on channel, without an answer wanted; same errors. */
int srv_redis_publish(srv_redis *r, const char *channel, const char *msg, size_t len);

/* Remembers channel (copied) and subscribes to it now when the subscription connection is up;
 * channels are remembered and subscribed again after every reconnect. Idempotent. Returns 0 or
 * SRV_ENOMEM. */
int srv_redis_subscribe(srv_redis *r, const char *channel);

/* Forgets channel and unsubscribes when connected. Idempotent (0 for a channel not subscribed).
 * Returns 0. */
int srv_redis_unsubscribe(srv_redis *r, const char *channel);

/* Closes both connections: every pending fn is called with NULL, in the order of the commands,
 * before this returns; state is not called any more. The handles are closed; the memory is freed
 * once libuv closed them (the caller runs the loop until it has no more handles, as at shutdown).
 * r must not be used after this. NULL: nothing. */
void srv_redis_close(srv_redis *r);

typedef struct srv_redis_stats {
  uint64_t commands;   /* Commands sent (accepted by srv_redis_command*() and publish). */
  uint64_t failures;   /* Commands answered with NULL (lost, timed out, closed). */
  uint64_t timeouts;   /* Commands that timed out (counted in failures too). */
  uint64_t reconnects; /* Connections made again after one was lost (either connection). */
  uint64_t messages;   /* Messages received on subscribed channels. */
  double rtt_avg_ms;   /* The mean time from sending to the answer of the commands answered. */
  bool up;             /* srv_redis_up(). */
} srv_redis_stats;

void srv_redis_stats_get(const srv_redis *r, srv_redis_stats *out);

#endif
