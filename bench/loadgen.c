/* loadgen: a load generator for mancala-server, the Node.js peer and bench/echo_server.
 *
 * A libwebsockets client on a libuv loop, like the server. Players connect, say hello, create a
 * room and play it to the end, then create the next one; each picks a legal move at random from
 * the state's `legal`, sends it with the state's `ply` and waits for the state that answers it
 * (one move in flight per player). Beside them: idle connections (hello, then silence), silent
 * ones (never a word) and spectators that follow each room. It reports accepted moves per second,
 * the move round trip (send to the state with the new ply), errors by code, connection losses,
 * and the server's CPU and memory from /proc. `loadgen --help` lists the options.
 *
 * For a cluster (issue 21) the connections may go to a second server (--port-b): the second
 * player of every room (the room is then run by the first server, the move of that player
 * forwarded), or every other room whole (--spread rooms). The round trip is then also reported
 * per seat of the room (its creator's, its joiner's), and the CPU of more processes (--cpu-pid:
 * the other node, Redis, PostgreSQL) over the same window.
 *
 * It is built to cost little next to the server it measures: frames are scanned in place for the
 * few fields used (lg_json.h), nothing is allocated per frame (fragments of a large frame are the
 * exception), requests are written from a shared buffer when the socket is writeable, and every
 * timer (ramp, think time, reconnect) is an entry in one heap under one uv_timer_t.
 */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include <libwebsockets.h>
#include <uv.h>

#include "lg_hist.h"
#include "lg_json.h"
#include "lg_proc.h"
#include "lg_timer.h"

#define PROTOCOL_NAME "mancala.v1"
#define ROOM_MAX 16    /* Room codes are 6 characters; a longer one is a bad frame. */
#define OPS_MAX 8      /* Requests queued on one connection (at most 3 are ever needed). */
#define LAG_RING 8     /* Moves remembered per room to time the spectators' copies. */
#define ERROR_CODES 32 /* Distinct error codes counted. */
#define OUT_MAX 512    /* The longest request written. */

/* ---- Configuration ------------------------------------------------------------------------- */

typedef struct config {
  char host[256], path[256], host_header[300];
  int port;
  int port_b; /* 0: one server. */
  char host_header_b[300];
  bool spread_rooms; /* --spread rooms: every other room on port_b; else its joiner. */
  long cpu_pids[32]; /* --cpu-pid: more processes whose CPU is reported. */
  int ncpu_pids;
  int players;
  bool pair; /* --mode pair: two connections per room; else each player has a local room. */
  char game[16];
  int houses, seeds; /* 0: the game's default board (not sent). */
  int think_min, think_max;
  int idle, silent, spectators;
  double duration, warmup, ramp;
  long server_pid; /* 0: none. */
  bool json, verbose, progress;
  uint64_t seed;
  long long max_moves;  /* 0: no limit; else the window ends after this many moves. */
  int max_connecting;   /* Connections being set up at once. */
  double ready_timeout; /* Seconds the window may wait for every player to be in a room. */
} config;

/* ---- Connections and games ----------------------------------------------------------------- */

enum role { ROLE_PLAYER, ROLE_IDLE, ROLE_SILENT, ROLE_SPECTATOR };
enum op { OP_HELLO = 1, OP_CREATE, OP_JOIN_PLAYER, OP_JOIN_SPECTATOR, OP_LEAVE, OP_MOVE };
enum timer_kind { TK_CONNECT, TK_THINK, TK_RECOVER };
enum seat { SEAT_SOUTH, SEAT_NORTH, SEAT_BOTH, SEAT_NONE };

typedef struct game game;

/* One WebSocket connection and what it knows. Lives for the whole run (the array lg.conns); its
 * wsi comes and goes. */
typedef struct conn {
  lg_timer timer; /* First member: a timer is its connection. */
  uint8_t timer_kind;
  uint8_t role, seat;
  bool on_b;     /* Connects to --port-b. */
  bool open;     /* The WebSocket is established. */
  bool welcomed; /* welcome received. */
  bool ever_open;
  bool connecting;        /* Counted in lg.connecting: TCP connect or handshake under way. */
  bool waiting;           /* In the queue of connections waiting for their turn to connect. */
  struct conn *next_wait; /* The next in that queue. */
  struct lws *wsi;        /* NULL while not connected. */
  game *g;                /* Players and spectators: their game. */
  unsigned id;
  uint64_t rng;
  /* Requests waiting for the socket, oldest first. */
  uint8_t ops[OPS_MAX];
  uint8_t ops_head, nops;
  char join_room[ROOM_MAX], leave_room[ROOM_MAX];
  /* The room this connection is in (from joined) and its latest state. */
  char room[ROOM_MAX];
  bool playing, my_turn, baseline;
  long long ply;
  int legal[LG_LEGAL_MAX];
  int nlegal;
  /* The move being sent or answered. */
  bool move_queued;
  int move_house;
  long long move_ply;
  long long inflight; /* The ply the move in flight was sent with, or -1. */
  uint64_t sent_ns;
  /* A frame arriving in pieces (only large ones do). */
  char *rx;
  size_t rxlen, rxcap;
} conn;

/* A room's worth of connections: one player (local) or two (pair), and the spectators. */
struct game {
  conn *seat[2]; /* seat[0] creates the rooms; seat[1] is NULL in local mode. */
  conn *spect;   /* The first of nspect consecutive spectators. */
  int nspect;
  char room[ROOM_MAX]; /* The current room, "" while one is being created. */
  bool finished;       /* The current room's game has ended. */
  long long lag_ply[LAG_RING];
  uint64_t lag_ns[LAG_RING];
};

/* ---- Results ------------------------------------------------------------------------------- */

typedef struct stats {
  uint64_t moves, moves_total, games;
  lg_hist rtt, lag;
  lg_hist rtt_seat[2]; /* The round trip of the room's creator's moves, and its joiner's. */
  uint64_t spectator_frames, error_frames, bad_frames, other_frames;
  uint64_t attempts, connect_errors, drops, reconnects, internal;
  struct {
    char code[32];
    uint64_t n;
  } errors[ERROR_CODES];
  int nerrors;
} stats;

static struct loadgen {
  config cfg;
  uv_loop_t loop;
  uv_timer_t tick;     /* Fires the earliest lg_timer. */
  uv_timer_t phase;    /* Start, then end of the measured window. */
  uv_timer_t sample;   /* The server's RSS once a second in the window. */
  uv_timer_t stop;     /* Drives the libwebsockets teardown. */
  uv_timer_t progress; /* --progress: a line on stderr every second. */
  uv_signal_t sigint, sigterm;
  struct lws_context *context;
  struct lws_protocols protocols[2];
  lg_timers timers;
  uint64_t tick_due; /* What tick is programmed for (0: not running). */
  conn *conns;
  size_t nconns;
  game *games;
  size_t ngames;
  bool server_has_join; /* welcome advertised features: not the peer, which knows no join. */
  int connecting;       /* Connections being set up now (at most cfg.max_connecting). */
  conn *wait_head, *wait_tail;
  bool starting_next; /* Inside connect_next(): no re-entry. */
  uint64_t stop_started;
  uint64_t ready_wait_from; /* When the window would have opened (--ready-timeout). */
  bool all_ready;
  bool measuring, window_done, stopping, destroyed_once;
  uint64_t t0, win_start, win_end;
  double srv_cpu0, srv_cpu1;
  double pid_cpu0[32], pid_cpu1[32];
  long rss_initial, rss_start, rss_end, rss_max;
  struct rusage ru0, ru1;
  stats st;
} lg;

static char own_tag; /* The data of our own uv handles, to tell them from lws's. */

/* No client-side keepalive (the server pings; lws answers). Without a hangup time lws keeps no
 * validity timer per connection: lws 4.1 keeps its timers in one sorted list, and moving a
 * connection's timer on every frame costs a walk of that list, ruinous with 10,000 of them. */
static const lws_retry_bo_t no_validity = {.secs_since_valid_ping = 0,
                                           .secs_since_valid_hangup = 0};
static unsigned char out_buf[LWS_PRE + OUT_MAX];

/* ---- Small helpers ------------------------------------------------------------------------- */

static uint64_t now_ns(void) {
  return uv_hrtime();
}

/* splitmix64: small, fast, and good enough to pick moves and think times. */
static uint64_t rnd(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t rnd_below(uint64_t *s, uint64_t n) {
  return n > 0 ? rnd(s) % n : 0;
}

static bool copy_span(char *dst, size_t cap, lg_span s) {
  if (s.s == NULL || s.n == 0 || s.n >= cap)
    return false;
  memcpy(dst, s.s, s.n);
  dst[s.n] = '\0';
  return true;
}

static bool span_eq(lg_span s, const char *str) {
  return s.s != NULL && strlen(str) == s.n && memcmp(s.s, str, s.n) == 0;
}

static void count_error(lg_span code) {
  char name[32];
  size_t n = 0;
  /* Error codes are [a-z_]; anything else is dropped so the report stays valid JSON. */
  for (size_t i = 0; code.s != NULL && i < code.n && n < sizeof name - 1; i++) {
    char ch = code.s[i];
    if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_')
      name[n++] = ch;
  }
  name[n] = '\0';
  if (n == 0)
    snprintf(name, sizeof name, "unknown");
  lg.st.error_frames++;
  for (int i = 0; i < lg.st.nerrors; i++) {
    if (strcmp(lg.st.errors[i].code, name) == 0) {
      lg.st.errors[i].n++;
      return;
    }
  }
  int i = lg.st.nerrors < ERROR_CODES ? lg.st.nerrors++ : ERROR_CODES - 1;
  snprintf(lg.st.errors[i].code, sizeof lg.st.errors[i].code, "%s", name);
  lg.st.errors[i].n++;
}

/* ---- Timers -------------------------------------------------------------------------------- */

static void on_tick(uv_timer_t *t);

/* Programs the uv timer for the earliest lg_timer when that is sooner than what it waits for. */
static void tick_update(void) {
  lg_timer *first = lg_timers_first(&lg.timers);
  if (first == NULL || lg.stopping)
    return;
  if (lg.tick_due != 0 && lg.tick_due <= first->due)
    return;
  uint64_t now = now_ns();
  uint64_t ms = first->due > now ? (first->due - now + 999999) / 1000000 : 0;
  lg.tick_due = first->due;
  uv_timer_start(&lg.tick, on_tick, ms, 0);
}

static void conn_arm(conn *c, enum timer_kind kind, uint64_t delay_ns) {
  c->timer_kind = (uint8_t)kind;
  if (lg_timers_arm(&lg.timers, &c->timer, now_ns() + delay_ns) != 0)
    lg.st.internal++;
  tick_update();
}

static void conn_connect(conn *c);
static void player_move(conn *c);
static void conn_recover(conn *c);

static void on_tick(uv_timer_t *t) {
  (void)t;
  lg.tick_due = 0;
  uint64_t now = now_ns();
  lg_timer *e;
  while (!lg.stopping && (e = lg_timers_first(&lg.timers)) != NULL && e->due <= now) {
    lg_timers_disarm(&lg.timers, e);
    conn *c = (conn *)e;
    switch (c->timer_kind) {
    case TK_CONNECT:
      conn_connect(c);
      break;
    case TK_THINK:
      player_move(c);
      break;
    case TK_RECOVER:
      conn_recover(c);
      break;
    }
  }
  tick_update();
}

/* ---- Sending ------------------------------------------------------------------------------- */

static void push_op(conn *c, enum op op) {
  if (lg.stopping || c->wsi == NULL || !c->open)
    return;
  if (c->nops == OPS_MAX) {
    lg.st.internal++;
    return;
  }
  c->ops[(c->ops_head + c->nops) % OPS_MAX] = (uint8_t)op;
  c->nops++;
  lws_callback_on_writable(c->wsi);
}

/* Writes request op of c into buf (OUT_MAX bytes); returns its length. */
static int build_op(conn *c, enum op op, char *buf) {
  const config *cfg = &lg.cfg;
  char board[64] = "";
  switch (op) {
  case OP_HELLO:
    return snprintf(buf, OUT_MAX, "{\"type\":\"hello\",\"name\":\"lg%u\"}", c->id);
  case OP_CREATE:
    if (cfg->houses > 0)
      snprintf(board, sizeof board, ",\"houses\":%d", cfg->houses);
    if (cfg->seeds > 0)
      snprintf(board + strlen(board), sizeof board - strlen(board), ",\"seeds\":%d", cfg->seeds);
    if (cfg->pair)
      return snprintf(buf, OUT_MAX,
                      "{\"type\":\"create\",\"game\":\"%s\"%s,\"opponent\":\"human\","
                      "\"visibility\":\"private\",\"seat\":\"south\"}",
                      cfg->game, board);
    return snprintf(buf, OUT_MAX, "{\"type\":\"create\",\"game\":\"%s\"%s,\"opponent\":\"local\"}",
                    cfg->game, board);
  case OP_JOIN_PLAYER:
  case OP_JOIN_SPECTATOR:
    return snprintf(buf, OUT_MAX, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"%s\"}",
                    c->join_room, op == OP_JOIN_PLAYER ? "player" : "spectator");
  case OP_LEAVE:
    return snprintf(buf, OUT_MAX, "{\"type\":\"leave\",\"room\":\"%s\"}", c->leave_room);
  case OP_MOVE:
    return snprintf(buf, OUT_MAX, "{\"type\":\"move\",\"room\":\"%s\",\"house\":%d,\"ply\":%lld}",
                    c->room, c->move_house, c->move_ply);
  }
  return 0;
}

static int conn_writeable(conn *c) {
  if (c->nops == 0)
    return 0;
  enum op op = (enum op)c->ops[c->ops_head];
  c->ops_head = (uint8_t)((c->ops_head + 1) % OPS_MAX);
  c->nops--;
  char *buf = (char *)out_buf + LWS_PRE;
  int n = build_op(c, op, buf);
  if (n <= 0 || n >= OUT_MAX) {
    lg.st.internal++;
    return 0;
  }
  if (op == OP_MOVE) {
    c->move_queued = false;
    c->inflight = c->move_ply;
    c->sent_ns = now_ns();
    game *g = c->g;
    int slot = (int)((c->move_ply + 1) % LAG_RING);
    g->lag_ply[slot] = c->move_ply + 1;
    g->lag_ns[slot] = c->sent_ns;
  }
  if (lws_write(c->wsi, out_buf + LWS_PRE, (size_t)n, LWS_WRITE_TEXT) < n)
    return -1;
  if (c->nops > 0)
    lws_callback_on_writable(c->wsi);
  return 0;
}

/* ---- Games --------------------------------------------------------------------------------- */

static void player_reset(conn *c) {
  c->playing = c->my_turn = c->move_queued = false;
  c->inflight = -1;
  if (lg_timer_armed(&c->timer) && c->timer_kind == TK_THINK)
    lg_timers_disarm(&lg.timers, &c->timer);
}

/* The creator asks for a new room; the others follow when its joined arrives. */
static void game_new_room(game *g) {
  g->room[0] = '\0';
  g->finished = false;
  conn *a = g->seat[0];
  if (a->welcomed) {
    player_reset(a);
    push_op(a, OP_CREATE);
  }
}

static void spectator_follow(conn *s, const game *g) {
  if (!s->welcomed || g->room[0] == '\0')
    return;
  if (s->room[0] != '\0') {
    memcpy(s->leave_room, s->room, ROOM_MAX);
    push_op(s, OP_LEAVE);
  }
  memcpy(s->join_room, g->room, ROOM_MAX);
  s->room[0] = '\0';
  push_op(s, OP_JOIN_SPECTATOR);
}

static void opponent_follow(conn *b, const game *g) {
  if (b == NULL || !b->welcomed || g->room[0] == '\0')
    return;
  player_reset(b);
  b->room[0] = '\0';
  memcpy(b->join_room, g->room, ROOM_MAX);
  push_op(b, OP_JOIN_PLAYER);
}

/* The creator's joined named a new room. */
static void game_room_created(game *g, const char *code) {
  snprintf(g->room, sizeof g->room, "%s", code);
  g->finished = false;
  for (int i = 0; i < LAG_RING; i++)
    g->lag_ply[i] = -1;
  opponent_follow(g->seat[1], g);
  for (int i = 0; i < g->nspect; i++)
    spectator_follow(&g->spect[i], g);
}

/* A player of g lost its connection. In pair mode the room is given up: the other player's new
 * identity could not take the lost one's seat. */
static void game_player_lost(game *g, conn *c) {
  if (!lg.cfg.pair)
    return;
  conn *other = g->seat[0] == c ? g->seat[1] : g->seat[0];
  player_reset(other);
  if (other == g->seat[0])
    game_new_room(g);
  else
    g->room[0] = '\0';
}

static void player_welcomed(conn *c) {
  game *g = c->g;
  if (c == g->seat[0])
    game_new_room(g);
  else
    opponent_follow(c, g);
}

/* Schedules the next move when it is this player's turn and nothing is pending. */
static void player_consider(conn *c) {
  if (!c->playing || !c->my_turn || c->nlegal == 0 || c->inflight >= 0 || c->move_queued ||
      (lg_timer_armed(&c->timer) && c->timer_kind == TK_THINK))
    return;
  const config *cfg = &lg.cfg;
  uint64_t think = (uint64_t)cfg->think_min +
                   rnd_below(&c->rng, (uint64_t)(cfg->think_max - cfg->think_min) + 1);
  if (think == 0)
    player_move(c);
  else
    conn_arm(c, TK_THINK, think * 1000000u);
}

static void player_move(conn *c) {
  if (c->wsi == NULL || !c->playing || !c->my_turn || c->nlegal == 0 || c->inflight >= 0 ||
      c->move_queued)
    return;
  c->move_house = c->legal[rnd_below(&c->rng, (uint64_t)c->nlegal)];
  c->move_ply = c->ply;
  c->move_queued = true;
  push_op(c, OP_MOVE);
}

/* After an error: get a state again (join the room once more) or, where the server knows no
 * join (the peer), start a new room. */
static void conn_recover(conn *c) {
  if (!c->welcomed || c->role != ROLE_PLAYER)
    return;
  game *g = c->g;
  if (c == g->seat[0] && g->room[0] == '\0') {
    game_new_room(g); /* The create itself failed. */
  } else if (lg.server_has_join && c->room[0] != '\0') {
    player_reset(c);
    memcpy(c->join_room, c->room, ROOM_MAX);
    push_op(c, OP_JOIN_PLAYER);
  } else if (c == g->seat[0]) {
    game_new_room(g);
  } else {
    opponent_follow(c, g);
  }
}

static void window_end(void);

static void on_player_state(conn *c, const lg_msg *m) {
  game *g = c->g;
  if (!m->has_ply || !m->has_legal || m->status.s == NULL) {
    lg.st.bad_frames++;
    return;
  }
  uint64_t now = now_ns();
  if (c->inflight >= 0 && m->ply > c->inflight) {
    c->inflight = -1;
    lg.st.moves_total++;
    if (lg.measuring) {
      lg.st.moves++;
      lg_hist_add(&lg.st.rtt, (now - c->sent_ns) / 1000u);
      lg_hist_add(&lg.st.rtt_seat[c == g->seat[0] ? 0 : 1], (now - c->sent_ns) / 1000u);
    }
  }
  c->ply = m->ply;
  c->nlegal = m->nlegal;
  memcpy(c->legal, m->legal, sizeof(int) * (size_t)m->nlegal);
  c->playing = span_eq(m->status, "playing");
  c->my_turn = c->seat == SEAT_BOTH || (c->seat == SEAT_SOUTH && span_eq(m->turn, "south")) ||
               (c->seat == SEAT_NORTH && span_eq(m->turn, "north"));
  if (span_eq(m->status, "finished")) {
    player_reset(c);
    if (c == g->seat[0] && strcmp(c->room, g->room) == 0 && !g->finished) {
      g->finished = true;
      if (lg.measuring)
        lg.st.games++;
      game_new_room(g);
    }
  } else {
    player_consider(c);
  }
  if (lg.cfg.max_moves > 0 && lg.measuring && (long long)lg.st.moves >= lg.cfg.max_moves)
    window_end();
}

static void on_spectator_state(conn *s, const lg_msg *m) {
  if (!m->has_ply)
    return;
  lg.st.spectator_frames++;
  game *g = s->g;
  if (s->baseline) {
    s->baseline = false;
  } else if (m->ply > s->ply) {
    int slot = (int)(m->ply % LAG_RING);
    if (g->lag_ply[slot] == m->ply && lg.measuring)
      lg_hist_add(&lg.st.lag, (now_ns() - g->lag_ns[slot]) / 1000u);
  }
  s->ply = m->ply;
}

static void on_frame(conn *c, const char *buf, size_t len) {
  lg_msg m;
  if (lg_json_scan(buf, len, &m) != 0 || m.type.s == NULL) {
    lg.st.bad_frames++;
    return;
  }
  if (span_eq(m.type, "state")) {
    char room[ROOM_MAX];
    if (!copy_span(room, sizeof room, m.room)) {
      lg.st.bad_frames++;
      return;
    }
    if (strcmp(room, c->room) != 0)
      return; /* A room this connection has left (or is leaving). */
    if (c->role == ROLE_PLAYER)
      on_player_state(c, &m);
    else if (c->role == ROLE_SPECTATOR)
      on_spectator_state(c, &m);
  } else if (span_eq(m.type, "welcome")) {
    c->welcomed = true;
    if (m.has_features)
      lg.server_has_join = true;
    if (c->role == ROLE_PLAYER)
      player_welcomed(c);
    else if (c->role == ROLE_SPECTATOR)
      spectator_follow(c, c->g);
  } else if (span_eq(m.type, "joined")) {
    char room[ROOM_MAX];
    if (!copy_span(room, sizeof room, m.room)) {
      lg.st.bad_frames++;
      return;
    }
    memcpy(c->room, room, ROOM_MAX);
    c->seat = span_eq(m.seat, "south")   ? SEAT_SOUTH
              : span_eq(m.seat, "north") ? SEAT_NORTH
              : span_eq(m.seat, "both")  ? SEAT_BOTH
                                         : SEAT_NONE;
    c->baseline = true;
    if (c->role == ROLE_PLAYER && c == c->g->seat[0] && strcmp(room, c->g->room) != 0)
      game_room_created(c->g, room);
  } else if (span_eq(m.type, "error")) {
    count_error(m.code);
    if (c->role == ROLE_PLAYER) {
      player_reset(c);
      conn_arm(c, TK_RECOVER, (200 + rnd_below(&c->rng, 500)) * 1000000u);
    }
  } else if (span_eq(m.type, "closed")) {
    char room[ROOM_MAX];
    /* A room closed under a game in progress (idle, expired): start another. */
    if (copy_span(room, sizeof room, m.room) && strcmp(room, c->room) == 0) {
      c->room[0] = '\0';
      if (c->role == ROLE_PLAYER && c == c->g->seat[0] && strcmp(room, c->g->room) == 0)
        game_new_room(c->g);
    }
  } else {
    lg.st.other_frames++; /* left, bye, chat, lobby...: nothing to do. */
  }
}

/* ---- Connections --------------------------------------------------------------------------- */

static void conn_connect(conn *c);

/* Starts waiting connections while fewer than --max-connecting are being set up. lws 4.1 keeps
 * every connection's setup timeouts in one sorted list: thousands of connections set up at once
 * make each insertion a walk of thousands, which stalls the loop and times connections out. */
static void connect_next(void) {
  if (lg.starting_next)
    return;
  lg.starting_next = true;
  while (!lg.stopping && lg.connecting < lg.cfg.max_connecting && lg.wait_head != NULL) {
    conn *c = lg.wait_head;
    lg.wait_head = c->next_wait;
    if (lg.wait_head == NULL)
      lg.wait_tail = NULL;
    c->next_wait = NULL;
    c->waiting = false;
    conn_connect(c);
  }
  lg.starting_next = false;
}

/* This connection's setup is over (established or failed). */
static void connect_done(conn *c) {
  if (!c->connecting)
    return;
  c->connecting = false;
  lg.connecting--;
  connect_next();
}

static void conn_connect(conn *c) {
  if (lg.stopping || c->wsi != NULL || c->waiting || c->connecting)
    return;
  if (lg.connecting >= lg.cfg.max_connecting) {
    c->waiting = true;
    if (lg.wait_tail != NULL)
      lg.wait_tail->next_wait = c;
    else
      lg.wait_head = c;
    lg.wait_tail = c;
    return;
  }
  c->connecting = true;
  lg.connecting++;
  struct lws_client_connect_info ci;
  memset(&ci, 0, sizeof ci);
  ci.context = lg.context;
  ci.address = lg.cfg.host;
  ci.port = c->on_b ? lg.cfg.port_b : lg.cfg.port;
  ci.path = lg.cfg.path;
  ci.host = c->on_b ? lg.cfg.host_header_b : lg.cfg.host_header;
  ci.origin = ci.host;
  ci.protocol = PROTOCOL_NAME;
  ci.ietf_version_or_minus_one = -1;
  ci.userdata = c;
  ci.pwsi = &c->wsi;
  ci.retry_and_idle_policy = &no_validity;
  lg.st.attempts++;
  if (c->ever_open)
    lg.st.reconnects++;
  if (lws_client_connect_via_info(&ci) == NULL) {
    c->wsi = NULL;
    connect_done(c);
    if (!lg_timer_armed(&c->timer)) {
      lg.st.connect_errors++;
      conn_arm(c, TK_CONNECT, (250 + rnd_below(&c->rng, 500)) * 1000000u);
    }
  }
}

/* The connection is gone (failed, closed or destroyed): forget it and try again later. */
static void conn_lost(conn *c) {
  bool was_open = c->open;
  c->wsi = NULL;
  connect_done(c);
  free(c->rx);
  c->rx = NULL;
  c->rxlen = c->rxcap = 0;
  c->open = c->welcomed = false;
  c->nops = 0;
  c->room[0] = '\0';
  player_reset(c);
  lg_timers_disarm(&lg.timers, &c->timer);
  if (c->role == ROLE_PLAYER)
    game_player_lost(c->g, c);
  if (lg.stopping)
    return;
  if (was_open)
    lg.st.drops++;
  else
    lg.st.connect_errors++;
  conn_arm(c, TK_CONNECT, (250 + rnd_below(&c->rng, 500)) * 1000000u);
}

/* Collects a frame's pieces; calls on_frame() with the whole frame. */
static void conn_receive(conn *c, const char *in, size_t len) {
  bool first = lws_is_first_fragment(c->wsi) != 0;
  bool final = lws_is_final_fragment(c->wsi) != 0;
  if (first && final && c->rxlen == 0) {
    on_frame(c, in, len);
    return;
  }
  if (c->rxlen + len > c->rxcap) {
    size_t cap = c->rxcap ? c->rxcap : 4096;
    while (cap < c->rxlen + len)
      cap *= 2;
    char *p = realloc(c->rx, cap);
    if (p == NULL) {
      lg.st.internal++;
      c->rxlen = 0;
      return;
    }
    c->rx = p;
    c->rxcap = cap;
  }
  memcpy(c->rx + c->rxlen, in, len);
  c->rxlen += len;
  if (final) {
    on_frame(c, c->rx, c->rxlen);
    free(c->rx);
    c->rx = NULL;
    c->rxlen = c->rxcap = 0;
  }
}

static int ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                       size_t len) {
  conn *c = user;
  switch (reason) {
  case LWS_CALLBACK_CLIENT_ESTABLISHED:
    if (c == NULL)
      break;
    c->wsi = wsi;
    c->open = c->ever_open = true;
    connect_done(c);
    if (c->role != ROLE_SILENT)
      push_op(c, OP_HELLO);
    break;
  case LWS_CALLBACK_CLIENT_RECEIVE:
    if (c != NULL && c->wsi == wsi)
      conn_receive(c, in, len);
    break;
  case LWS_CALLBACK_CLIENT_WRITEABLE:
    if (c != NULL && c->wsi == wsi)
      return conn_writeable(c);
    break;
  case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
    if (lg.cfg.verbose)
      fprintf(stderr, "loadgen: connection %u: %s\n", c ? c->id : 0,
              in ? (const char *)in : "error");
    if (c != NULL && c->wsi == wsi)
      conn_lost(c);
    break;
  case LWS_CALLBACK_CLIENT_CLOSED:
  case LWS_CALLBACK_WSI_DESTROY:
    if (c != NULL && c->wsi == wsi)
      conn_lost(c);
    break;
  default:
    break;
  }
  return 0;
}

/* ---- The measured window and the report ---------------------------------------------------- */

static double elapsed_s(uint64_t from, uint64_t to) {
  return (double)(to - from) / 1e9;
}

static double rusage_s(const struct rusage *r) {
  return (double)r->ru_utime.tv_sec + (double)r->ru_utime.tv_usec / 1e6 +
         (double)r->ru_stime.tv_sec + (double)r->ru_stime.tv_usec / 1e6;
}

static void sample_server(void) {
  if (lg.cfg.server_pid <= 0)
    return;
  long rss = lg_proc_rss_kib((pid_t)lg.cfg.server_pid);
  if (rss > lg.rss_max)
    lg.rss_max = rss;
}

static void on_sample(uv_timer_t *t) {
  (void)t;
  sample_server();
}

static void begin_stop(void);
static void report(void);
static void count_ready(int counts[4][2]);

/* --progress: once a second, how far the connections are and the moves of the last second. */
static void on_progress(uv_timer_t *t) {
  static uint64_t last_moves;
  (void)t;
  int ready[4][2];
  count_ready(ready);
  fprintf(
      stderr,
      "loadgen: %5.1f s: %d open, %d connecting, %d players in a room, %d idle welcomed, %" PRIu64
      " moves/s, errors %" PRIu64 ", connect errors %" PRIu64 ", drops %" PRIu64 "\n",
      elapsed_s(lg.t0, now_ns()),
      ready[ROLE_PLAYER][0] + ready[ROLE_IDLE][0] + ready[ROLE_SILENT][0] +
          ready[ROLE_SPECTATOR][0],
      lg.connecting, ready[ROLE_PLAYER][1], ready[ROLE_IDLE][1], lg.st.moves_total - last_moves,
      lg.st.error_frames, lg.st.connect_errors, lg.st.drops);
  last_moves = lg.st.moves_total;
}

static void window_end(void) {
  if (lg.window_done)
    return;
  lg.window_done = true;
  lg.measuring = false;
  lg.win_end = now_ns();
  if (lg.win_start == 0)
    lg.win_start = lg.win_end;
  getrusage(RUSAGE_SELF, &lg.ru1);
  if (lg.cfg.server_pid > 0) {
    lg.srv_cpu1 = lg_proc_cpu_s((pid_t)lg.cfg.server_pid);
    for (int i = 0; i < lg.cfg.ncpu_pids; i++)
      lg.pid_cpu1[i] = lg_proc_cpu_s((pid_t)lg.cfg.cpu_pids[i]);
    lg.rss_end = lg_proc_rss_kib((pid_t)lg.cfg.server_pid);
    sample_server();
  }
  report();
  begin_stop();
}

/* Connections by role: [0] open, [1] welcomed (players and spectators: in a room). */
static void count_ready(int counts[4][2]) {
  memset(counts, 0, sizeof(int) * 8);
  for (size_t i = 0; i < lg.nconns; i++) {
    const conn *c = &lg.conns[i];
    counts[c->role][0] += c->open;
    counts[c->role][1] += c->role == ROLE_PLAYER || c->role == ROLE_SPECTATOR
                              ? c->open && c->room[0] != '\0'
                              : c->welcomed;
  }
}

static void on_window_end(uv_timer_t *t) {
  (void)t;
  window_end();
}

static void on_window_start(uv_timer_t *t) {
  (void)t;
  if (lg.cfg.ready_timeout > 0 && lg.ready_wait_from == 0)
    lg.ready_wait_from = now_ns();
  if (lg.cfg.ready_timeout > 0) {
    /* --ready-timeout: the window opens once every player and spectator is in a room (or when
     * the timeout is over), so that a slow start is not measured as play. */
    int ready[4][2];
    count_ready(ready);
    lg.all_ready = ready[ROLE_PLAYER][1] == lg.cfg.players &&
                   ready[ROLE_SPECTATOR][1] == (int)lg.ngames * lg.cfg.spectators &&
                   ready[ROLE_IDLE][1] == lg.cfg.idle;
    if (!lg.all_ready && elapsed_s(lg.ready_wait_from, now_ns()) < lg.cfg.ready_timeout) {
      uv_timer_start(&lg.phase, on_window_start, 100, 0);
      return;
    }
  }
  lg.measuring = true;
  lg.win_start = now_ns();
  getrusage(RUSAGE_SELF, &lg.ru0);
  for (int i = 0; i < lg.cfg.ncpu_pids; i++)
    lg.pid_cpu0[i] = lg_proc_cpu_s((pid_t)lg.cfg.cpu_pids[i]);
  if (lg.cfg.server_pid > 0) {
    lg.srv_cpu0 = lg_proc_cpu_s((pid_t)lg.cfg.server_pid);
    lg.rss_start = lg.rss_max = lg_proc_rss_kib((pid_t)lg.cfg.server_pid);
    uv_timer_start(&lg.sample, on_sample, 1000, 1000);
  }
  uv_timer_start(&lg.phase, on_window_end, (uint64_t)(lg.cfg.duration * 1000), 0);
}

static double ms(uint64_t us) {
  return (double)us / 1000.0;
}

/* How long the window waited for the connections to be ready (--ready-timeout). */
static double ready_wait_s(void) {
  return lg.ready_wait_from != 0 && lg.win_start > lg.ready_wait_from
             ? elapsed_s(lg.ready_wait_from, lg.win_start)
             : 0.0;
}

static void report_text(double secs, double srv_cpu, double own_cpu, const int ready[4][2]) {
  const config *cfg = &lg.cfg;
  const stats *st = &lg.st;
  printf("loadgen: %s %s, %d players, %d idle, %d silent, %d spectators per room, think %d-%d ms\n",
         cfg->pair ? "pair" : "local", cfg->game, cfg->players, cfg->idle, cfg->silent,
         cfg->spectators, cfg->think_min, cfg->think_max);
  printf("  window: %.1f s after %.1f s ramp, %.1f s warmup and %.1f s waiting for the players\n",
         secs, cfg->ramp, cfg->warmup, ready_wait_s());
  printf("  moves: %" PRIu64 " (%.0f/s), games finished: %" PRIu64 "\n", st->moves,
         secs > 0 ? (double)st->moves / secs : 0.0, st->games);
  if (cfg->think_max > 0) {
    double rooms = cfg->pair ? cfg->players / 2.0 : cfg->players;
    double offered = rooms * 1000.0 / ((cfg->think_min + cfg->think_max) / 2.0);
    printf("  offered about %.0f moves/s: achieved %.1f%%\n", offered,
           secs > 0 ? 100.0 * (double)st->moves / secs / offered : 0.0);
  }
  printf("  move round trip ms: p50 %.2f  p95 %.2f  p99 %.2f  max %.2f  (%" PRIu64 " moves)\n",
         ms(lg_hist_quantile(&st->rtt, 0.5)), ms(lg_hist_quantile(&st->rtt, 0.95)),
         ms(lg_hist_quantile(&st->rtt, 0.99)), ms(st->rtt.max), st->rtt.count);
  if (cfg->pair)
    for (int s = 0; s < 2; s++)
      printf("  %s's moves ms: p50 %.2f  p99 %.2f  (%" PRIu64 " moves)\n",
             s == 0 ? "the creator" : "the joiner", ms(lg_hist_quantile(&st->rtt_seat[s], 0.5)),
             ms(lg_hist_quantile(&st->rtt_seat[s], 0.99)), st->rtt_seat[s].count);
  for (int i = 0; i < cfg->ncpu_pids; i++)
    printf("  process %ld: CPU %.1f%% of a core\n", cfg->cpu_pids[i],
           secs > 0 ? 100.0 * (lg.pid_cpu1[i] - lg.pid_cpu0[i]) / secs : 0.0);
  if (cfg->spectators > 0)
    printf("  spectator lag ms: p50 %.2f  p99 %.2f  max %.2f  (%" PRIu64 " frames)\n",
           ms(lg_hist_quantile(&st->lag, 0.5)), ms(lg_hist_quantile(&st->lag, 0.99)),
           ms(st->lag.max), st->spectator_frames);
  printf("  errors: %" PRIu64, st->error_frames);
  for (int i = 0; i < st->nerrors; i++)
    printf("%s%s %" PRIu64, i == 0 ? " (" : ", ", st->errors[i].code, st->errors[i].n);
  printf("%s; bad frames %" PRIu64 "\n", st->nerrors ? ")" : "", st->bad_frames);
  printf("  connections: %d/%d players in a room, %d/%d idle welcomed, %d/%d silent open, %d "
         "spectators in a room;\n  connect errors %" PRIu64 ", drops %" PRIu64
         ", reconnects %" PRIu64 "\n",
         ready[ROLE_PLAYER][1], cfg->players, ready[ROLE_IDLE][1], cfg->idle, ready[ROLE_SILENT][0],
         cfg->silent, ready[ROLE_SPECTATOR][1], st->connect_errors, st->drops, st->reconnects);
  if (cfg->server_pid > 0)
    printf("  server (pid %ld): CPU %.1f%% of a core; RSS %.1f MiB before connecting, %.1f at "
           "the window's start, %.1f at its end, %.1f max\n",
           cfg->server_pid, srv_cpu, lg.rss_initial / 1024.0, lg.rss_start / 1024.0,
           lg.rss_end / 1024.0, lg.rss_max / 1024.0);
  printf("  loadgen: CPU %.1f%% of a core, RSS %.1f MiB\n", own_cpu,
         lg_proc_rss_kib(getpid()) / 1024.0);
  if (st->internal)
    printf("  loadgen internal errors: %" PRIu64 "\n", st->internal);
  fflush(stdout);
}

static void print_hist_json(const char *name, const lg_hist *h) {
  printf("\"%s\":{\"count\":%" PRIu64
         ",\"p50\":%.3f,\"p95\":%.3f,\"p99\":%.3f,\"max\":%.3f,\"mean\":%.3f}",
         name, h->count, ms(lg_hist_quantile(h, 0.5)), ms(lg_hist_quantile(h, 0.95)),
         ms(lg_hist_quantile(h, 0.99)), ms(h->max), h->count ? ms(h->sum) / (double)h->count : 0.0);
}

static void report_json(double secs, double srv_cpu, double own_cpu, const int ready[4][2]) {
  const config *cfg = &lg.cfg;
  const stats *st = &lg.st;
  double rooms = cfg->pair ? cfg->players / 2.0 : cfg->players;
  double offered =
      cfg->think_max > 0 ? rooms * 1000.0 / ((cfg->think_min + cfg->think_max) / 2.0) : 0.0;
  printf("{\"mode\":\"%s\",\"game\":\"%s\",\"houses\":%d,\"seeds\":%d,\"players\":%d,"
         "\"idle\":%d,\"silent\":%d,\"spectators\":%d,\"think_ms\":[%d,%d],"
         "\"ramp_s\":%.3f,\"warmup_s\":%.3f,\"ready_wait_s\":%.3f,\"window_s\":%.3f,",
         cfg->pair ? "pair" : "local", cfg->game, cfg->houses, cfg->seeds, cfg->players, cfg->idle,
         cfg->silent, cfg->spectators, cfg->think_min, cfg->think_max, cfg->ramp, cfg->warmup,
         ready_wait_s(), secs);
  printf("\"moves\":%" PRIu64 ",\"moves_total\":%" PRIu64 ",\"moves_per_s\":%.1f,\"games\":%" PRIu64
         ",",
         st->moves, st->moves_total, secs > 0 ? (double)st->moves / secs : 0.0, st->games);
  if (offered > 0)
    printf("\"offered_per_s\":%.1f,\"achieved_pct\":%.2f,", offered,
           secs > 0 ? 100.0 * (double)st->moves / secs / offered : 0.0);
  else
    printf("\"offered_per_s\":null,\"achieved_pct\":null,");
  print_hist_json("rtt_ms", &st->rtt);
  printf(",\"rtt_seat_ms\":[{");
  print_hist_json("creator", &st->rtt_seat[0]);
  printf("},{");
  print_hist_json("joiner", &st->rtt_seat[1]);
  printf("}],\"port_b\":%d,\"spread\":\"%s\",\"cpu\":[", cfg->port_b,
         cfg->port_b == 0    ? "none"
         : cfg->spread_rooms ? "rooms"
                             : "joiners");
  for (int i = 0; i < cfg->ncpu_pids; i++)
    printf("%s{\"pid\":%ld,\"cpu_pct\":%.2f}", i ? "," : "", cfg->cpu_pids[i],
           secs > 0 && lg.pid_cpu0[i] >= 0 && lg.pid_cpu1[i] >= 0
               ? 100.0 * (lg.pid_cpu1[i] - lg.pid_cpu0[i]) / secs
               : -1.0);
  printf("],");
  print_hist_json("spectator_lag_ms", &st->lag);
  printf(",\"spectator_frames\":%" PRIu64 ",\"error_frames\":%" PRIu64 ",\"errors\":{",
         st->spectator_frames, st->error_frames);
  for (int i = 0; i < st->nerrors; i++)
    printf("%s\"%s\":%" PRIu64, i ? "," : "", st->errors[i].code, st->errors[i].n);
  printf("},\"bad_frames\":%" PRIu64 ",\"internal_errors\":%" PRIu64 ",", st->bad_frames,
         st->internal);
  printf("\"connections\":{\"attempts\":%" PRIu64 ",\"connect_errors\":%" PRIu64
         ",\"drops\":%" PRIu64 ",\"reconnects\":%" PRIu64
         ",\"players_in_room\":%d,\"idle_welcomed\":%d,\"silent_open\":%d,"
         "\"spectators_in_room\":%d},",
         st->attempts, st->connect_errors, st->drops, st->reconnects, ready[ROLE_PLAYER][1],
         ready[ROLE_IDLE][1], ready[ROLE_SILENT][0], ready[ROLE_SPECTATOR][1]);
  if (cfg->server_pid > 0)
    printf("\"server\":{\"pid\":%ld,\"cpu_pct\":%.1f,\"rss_kib_initial\":%ld,"
           "\"rss_kib_start\":%ld,\"rss_kib_end\":%ld,\"rss_kib_max\":%ld},",
           cfg->server_pid, srv_cpu, lg.rss_initial, lg.rss_start, lg.rss_end, lg.rss_max);
  else
    printf("\"server\":null,");
  printf("\"loadgen\":{\"cpu_pct\":%.1f,\"rss_kib\":%ld}}\n", own_cpu, lg_proc_rss_kib(getpid()));
  fflush(stdout);
}

static void report(void) {
  double secs = elapsed_s(lg.win_start, lg.win_end);
  double srv_cpu = 0, own_cpu = 0;
  if (secs > 0) {
    if (lg.cfg.server_pid > 0 && lg.srv_cpu0 >= 0 && lg.srv_cpu1 >= 0)
      srv_cpu = 100.0 * (lg.srv_cpu1 - lg.srv_cpu0) / secs;
    own_cpu = 100.0 * (rusage_s(&lg.ru1) - rusage_s(&lg.ru0)) / secs;
  }
  int ready[4][2];
  count_ready(ready);
  if (lg.cfg.json)
    report_json(secs, srv_cpu, own_cpu, ready);
  else
    report_text(secs, srv_cpu, own_cpu, ready);
}

/* ---- Start and stop ------------------------------------------------------------------------ */

static void count_lws_handle(uv_handle_t *h, void *arg) {
  if (h->data != &own_tag)
    (*(int *)arg)++;
}

/* Teardown with a foreign loop: destroy the context from a uv callback, wait until lws has no
 * handle left, destroy it again, then close our own handles so uv_run() returns. */
/* Counts the handles lws still has, by kind, for the watchdog's message. */
static void count_kinds(uv_handle_t *h, void *arg) {
  int *n = arg;
  if (h->data == &own_tag)
    return;
  n[0]++;
  n[1] += uv_is_closing(h) != 0;
  n[2] += h->type == UV_POLL;
  n[3] += h->type == UV_TIMER;
}

static void on_stop_tick(uv_timer_t *t) {
  if (lg.stop_started != 0 && now_ns() - lg.stop_started > 30000000000ull) {
    /* A benchmark must not hang: the report is out, leave without cleanup. */
    int n[4] = {0, 0, 0, 0};
    uv_walk(&lg.loop, count_kinds, n);
    fprintf(stderr,
            "loadgen: libwebsockets did not close its connections in 30 s (%d handles left: %d "
            "closing, %d sockets, %d timers); exiting\n",
            n[0], n[1], n[2], n[3]);
    fflush(NULL);
    _exit(3);
  }
  if (!lg.destroyed_once) {
    lg.destroyed_once = true;
    lg.stop_started = now_ns();
    /* Close every connection now, without a closing handshake: lws's own teardown closes them
     * gracefully, one timeout each, which takes long with thousands of connections to a server
     * that is slow to answer. */
    for (size_t i = 0; i < lg.nconns; i++) {
      struct lws *wsi = lg.conns[i].wsi;
      if (wsi != NULL)
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC);
    }
    if (lg.context != NULL)
      lws_context_destroy(lg.context);
    return;
  }
  int left = 0;
  uv_walk(&lg.loop, count_lws_handle, &left);
  if (left > 0)
    return;
  if (lg.context != NULL)
    lws_context_destroy(lg.context);
  uv_timer_stop(t);
  uv_close((uv_handle_t *)&lg.tick, NULL);
  uv_close((uv_handle_t *)&lg.phase, NULL);
  uv_close((uv_handle_t *)&lg.sample, NULL);
  uv_close((uv_handle_t *)&lg.stop, NULL);
  uv_close((uv_handle_t *)&lg.progress, NULL);
  uv_close((uv_handle_t *)&lg.sigint, NULL);
  uv_close((uv_handle_t *)&lg.sigterm, NULL);
}

static void begin_stop(void) {
  if (lg.stopping)
    return;
  lg.stopping = true;
  uv_timer_stop(&lg.tick);
  uv_timer_stop(&lg.phase);
  uv_timer_stop(&lg.sample);
  uv_timer_stop(&lg.progress);
  uv_signal_stop(&lg.sigint);
  uv_signal_stop(&lg.sigterm);
  uv_timer_start(&lg.stop, on_stop_tick, 0, 10);
}

static void on_signal(uv_signal_t *h, int signum) {
  (void)h;
  (void)signum;
  if (lg.measuring)
    window_end(); /* Reports what was measured so far. */
  else
    begin_stop();
}

/* Raises the open file limit to what n connections need; warns when it cannot. */
static void raise_fd_limit(size_t n) {
  struct rlimit rl;
  rlim_t need = (rlim_t)n + 64;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need)
    return;
  struct rlimit want = rl;
  want.rlim_cur = need;
  if (want.rlim_max != RLIM_INFINITY && want.rlim_max < need)
    want.rlim_max = need; /* Only root may; then fall back to the hard limit. */
  if (setrlimit(RLIMIT_NOFILE, &want) != 0) {
    want = rl;
    want.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &want);
    fprintf(stderr, "loadgen: warning: %zu connections need %lu open files, the limit is %lu\n", n,
            (unsigned long)need, (unsigned long)rl.rlim_max);
  }
}

/* ---- Options ------------------------------------------------------------------------------- */

static void usage(FILE *f) {
  fprintf(f,
          "usage: loadgen [options]\n"
          "  --url ws://HOST:PORT/PATH   the server (default ws://127.0.0.1:8080/ws)\n"
          "  --host HOST, --port PORT    the same in parts\n"
          "  --players N                 playing connections (default 100)\n"
          "  --mode local|pair           local: each player holds both seats of its own room;\n"
          "                              pair: two connections per private room (N even)\n"
          "  --game kalah|oware          the game (default kalah)\n"
          "  --houses N, --seeds N       the board (default: the game's own)\n"
          "  --think MIN-MAX | MS        think time before each move in ms (default 0: closed "
          "loop)\n"
          "  --idle N                    connections that say hello and stay silent\n"
          "  --silent N                  connections that never say hello\n"
          "  --spectators N              spectators per room\n"
          "  --duration S                measured seconds (default 10)\n"
          "  --warmup S                  seconds before measuring, after the ramp (default 1)\n"
          "  --ramp S                    spread the connections' start over S seconds (default 0)\n"
          "  --max-connecting N          connections set up at once (default 100)\n"
          "  --ready-timeout S           after the warmup, wait up to S seconds for every player,\n"
          "                              spectator and idle connection to be ready (default 0)\n"
          "  --moves N                   end the window after N moves\n"
          "  --server-pid PID            report that process's CPU and RSS (from /proc)\n"
          "  --port-b PORT               a second server (a node of the same cluster) on HOST\n"
          "  --spread joiners|rooms      what goes to --port-b: each room's second player (its\n"
          "                              moves forwarded to the first server; default) or every\n"
          "                              other room, both players\n"
          "  --cpu-pid PID               also report that process's CPU (up to 32 times)\n"
          "  --seed N                    seed of the move and think-time choices (default 1)\n"
          "  --json                      one JSON object on stdout instead of text\n"
          "  --progress                  a line of progress on stderr every second\n"
          "  --verbose                   connection errors and libwebsockets warnings on stderr\n");
}

static int parse_url(config *cfg, const char *url) {
  const char *p = url;
  if (strncmp(p, "ws://", 5) != 0)
    return -1;
  p += 5;
  const char *slash = strchr(p, '/');
  const char *hostend = slash ? slash : p + strlen(p);
  const char *colon = memchr(p, ':', (size_t)(hostend - p));
  const char *nameend = colon ? colon : hostend;
  if (nameend == p || (size_t)(nameend - p) >= sizeof cfg->host)
    return -1;
  memcpy(cfg->host, p, (size_t)(nameend - p));
  cfg->host[nameend - p] = '\0';
  if (colon) {
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (end != hostend || port < 1 || port > 65535)
      return -1;
    cfg->port = (int)port;
  } else {
    cfg->port = 80;
  }
  snprintf(cfg->path, sizeof cfg->path, "%s", slash ? slash : "/");
  return 0;
}

static int parse_long(const char *s, long min, long max, long *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < min || v > max)
    return -1;
  *out = v;
  return 0;
}

static int parse_secs(const char *s, double *out) {
  char *end;
  double v = strtod(s, &end);
  if (*s == '\0' || *end != '\0' || !(v >= 0) || v > 86400)
    return -1;
  *out = v;
  return 0;
}

static int parse_think(config *cfg, const char *s) {
  long a, b;
  const char *dash = strchr(s, '-');
  char first[32];
  if (dash == NULL) {
    if (parse_long(s, 0, 3600000, &a) != 0)
      return -1;
    cfg->think_min = cfg->think_max = (int)a;
    return 0;
  }
  if ((size_t)(dash - s) >= sizeof first)
    return -1;
  memcpy(first, s, (size_t)(dash - s));
  first[dash - s] = '\0';
  if (parse_long(first, 0, 3600000, &a) != 0 || parse_long(dash + 1, 0, 3600000, &b) != 0 || b < a)
    return -1;
  cfg->think_min = (int)a;
  cfg->think_max = (int)b;
  return 0;
}

/* Returns 0, 1 for --help, 2 for a bad option (after a message). */
static int parse_options(config *cfg, int argc, char **argv) {
  enum {
    O_URL = 256,
    O_HOST,
    O_PORT,
    O_PLAYERS,
    O_MODE,
    O_GAME,
    O_HOUSES,
    O_SEEDS,
    O_THINK,
    O_IDLE,
    O_SILENT,
    O_SPECT,
    O_DURATION,
    O_WARMUP,
    O_RAMP,
    O_MOVES,
    O_PID,
    O_SEED,
    O_JSON,
    O_VERBOSE,
    O_PROGRESS,
    O_CONNECTING,
    O_READY,
    O_PORT_B,
    O_SPREAD,
    O_CPU_PID,
    O_HELP
  };
  static const struct option opts[] = {
      {"url", required_argument, NULL, O_URL},
      {"host", required_argument, NULL, O_HOST},
      {"port", required_argument, NULL, O_PORT},
      {"players", required_argument, NULL, O_PLAYERS},
      {"mode", required_argument, NULL, O_MODE},
      {"game", required_argument, NULL, O_GAME},
      {"houses", required_argument, NULL, O_HOUSES},
      {"seeds", required_argument, NULL, O_SEEDS},
      {"think", required_argument, NULL, O_THINK},
      {"idle", required_argument, NULL, O_IDLE},
      {"silent", required_argument, NULL, O_SILENT},
      {"spectators", required_argument, NULL, O_SPECT},
      {"duration", required_argument, NULL, O_DURATION},
      {"warmup", required_argument, NULL, O_WARMUP},
      {"ramp", required_argument, NULL, O_RAMP},
      {"moves", required_argument, NULL, O_MOVES},
      {"server-pid", required_argument, NULL, O_PID},
      {"seed", required_argument, NULL, O_SEED},
      {"json", no_argument, NULL, O_JSON},
      {"verbose", no_argument, NULL, O_VERBOSE},
      {"progress", no_argument, NULL, O_PROGRESS},
      {"max-connecting", required_argument, NULL, O_CONNECTING},
      {"ready-timeout", required_argument, NULL, O_READY},
      {"port-b", required_argument, NULL, O_PORT_B},
      {"spread", required_argument, NULL, O_SPREAD},
      {"cpu-pid", required_argument, NULL, O_CPU_PID},
      {"help", no_argument, NULL, O_HELP},
      {NULL, 0, NULL, 0},
  };
  snprintf(cfg->host, sizeof cfg->host, "127.0.0.1");
  snprintf(cfg->path, sizeof cfg->path, "/ws");
  snprintf(cfg->game, sizeof cfg->game, "kalah");
  cfg->port = 8080;
  cfg->players = 100;
  cfg->duration = 10;
  cfg->warmup = 1;
  cfg->seed = 1;
  cfg->max_connecting = 100;
  int o;
  long v;
  while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    int bad = 0;
    switch (o) {
    case O_URL:
      bad = parse_url(cfg, optarg);
      break;
    case O_HOST:
      bad = strlen(optarg) == 0 || strlen(optarg) >= sizeof cfg->host;
      if (!bad)
        snprintf(cfg->host, sizeof cfg->host, "%s", optarg);
      break;
    case O_PORT:
      bad = parse_long(optarg, 1, 65535, &v);
      cfg->port = (int)v;
      break;
    case O_PLAYERS:
      bad = parse_long(optarg, 0, 1000000, &v);
      cfg->players = (int)v;
      break;
    case O_MODE:
      bad = strcmp(optarg, "local") != 0 && strcmp(optarg, "pair") != 0;
      cfg->pair = strcmp(optarg, "pair") == 0;
      break;
    case O_GAME:
      bad = strcmp(optarg, "kalah") != 0 && strcmp(optarg, "oware") != 0;
      if (!bad)
        snprintf(cfg->game, sizeof cfg->game, "%s", optarg);
      break;
    case O_HOUSES:
      bad = parse_long(optarg, 1, 9, &v);
      cfg->houses = (int)v;
      break;
    case O_SEEDS:
      bad = parse_long(optarg, 1, 12, &v);
      cfg->seeds = (int)v;
      break;
    case O_THINK:
      bad = parse_think(cfg, optarg);
      break;
    case O_IDLE:
      bad = parse_long(optarg, 0, 1000000, &v);
      cfg->idle = (int)v;
      break;
    case O_SILENT:
      bad = parse_long(optarg, 0, 1000000, &v);
      cfg->silent = (int)v;
      break;
    case O_SPECT:
      bad = parse_long(optarg, 0, 1000, &v);
      cfg->spectators = (int)v;
      break;
    case O_DURATION:
      bad = parse_secs(optarg, &cfg->duration);
      break;
    case O_WARMUP:
      bad = parse_secs(optarg, &cfg->warmup);
      break;
    case O_RAMP:
      bad = parse_secs(optarg, &cfg->ramp);
      break;
    case O_MOVES:
      bad = parse_long(optarg, 1, LONG_MAX, &v);
      cfg->max_moves = v;
      break;
    case O_PID:
      bad = parse_long(optarg, 1, INT_MAX, &v);
      cfg->server_pid = v;
      break;
    case O_SEED:
      bad = parse_long(optarg, 0, LONG_MAX, &v);
      cfg->seed = (uint64_t)v;
      break;
    case O_JSON:
      cfg->json = true;
      break;
    case O_VERBOSE:
      cfg->verbose = true;
      break;
    case O_PROGRESS:
      cfg->progress = true;
      break;
    case O_READY:
      bad = parse_secs(optarg, &cfg->ready_timeout);
      break;
    case O_CONNECTING:
      bad = parse_long(optarg, 1, 100000, &v);
      cfg->max_connecting = (int)v;
      break;
    case O_PORT_B:
      bad = parse_long(optarg, 1, 65535, &v);
      cfg->port_b = (int)v;
      break;
    case O_SPREAD:
      bad = strcmp(optarg, "joiners") != 0 && strcmp(optarg, "rooms") != 0;
      cfg->spread_rooms = strcmp(optarg, "rooms") == 0;
      break;
    case O_CPU_PID:
      bad = cfg->ncpu_pids == 32 || parse_long(optarg, 1, INT_MAX, &v);
      if (!bad)
        cfg->cpu_pids[cfg->ncpu_pids++] = v;
      break;
    case O_HELP:
      return 1;
    default:
      return 2;
    }
    if (bad) {
      fprintf(stderr, "loadgen: bad value for --%s: %s\n", opts[o - O_URL].name, optarg);
      return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "loadgen: unexpected argument: %s\n", argv[optind]);
    return 2;
  }
  if (cfg->pair && cfg->players % 2 != 0) {
    fprintf(stderr, "loadgen: --mode pair needs an even number of players\n");
    return 2;
  }
  if (cfg->players == 0 && cfg->spectators > 0) {
    fprintf(stderr, "loadgen: spectators need players\n");
    return 2;
  }
  if (cfg->port_b != 0 && !cfg->pair && !cfg->spread_rooms) {
    fprintf(stderr, "loadgen: --port-b in local mode needs --spread rooms\n");
    return 2;
  }
  snprintf(cfg->host_header, sizeof cfg->host_header, "%s:%d", cfg->host, cfg->port);
  snprintf(cfg->host_header_b, sizeof cfg->host_header_b, "%s:%d", cfg->host, cfg->port_b);
  return 0;
}

/* ---- main ---------------------------------------------------------------------------------- */

/* Lays out the connections: each game's players and spectators together, then idle, then silent.
 * Returns 0, or -1 when memory runs out. */
static int build_conns(void) {
  const config *cfg = &lg.cfg;
  int per_game = cfg->pair ? 2 : 1;
  lg.ngames = (size_t)(cfg->players / per_game);
  lg.nconns = (size_t)cfg->players + lg.ngames * (size_t)cfg->spectators + (size_t)cfg->idle +
              (size_t)cfg->silent;
  lg.conns = calloc(lg.nconns ? lg.nconns : 1, sizeof *lg.conns);
  lg.games = calloc(lg.ngames ? lg.ngames : 1, sizeof *lg.games);
  if (lg.conns == NULL || lg.games == NULL || lg_timers_init(&lg.timers, lg.nconns) != 0)
    return -1;
  size_t k = 0;
  for (size_t i = 0; i < lg.ngames; i++) {
    game *g = &lg.games[i];
    for (int s = 0; s < per_game; s++) {
      g->seat[s] = &lg.conns[k++];
      g->seat[s]->role = ROLE_PLAYER;
      g->seat[s]->g = g;
    }
    g->spect = &lg.conns[k];
    g->nspect = cfg->spectators;
    for (int s = 0; s < cfg->spectators; s++) {
      lg.conns[k].role = ROLE_SPECTATOR;
      lg.conns[k++].g = g;
    }
    /* --port-b: the joiner (and the spectators) of every room, or every other room. */
    bool room_b = cfg->port_b != 0 && cfg->spread_rooms && i % 2 == 1;
    bool others_b = cfg->port_b != 0 && (room_b || !cfg->spread_rooms);
    g->seat[0]->on_b = room_b;
    for (int s = 1; s < per_game; s++)
      g->seat[s]->on_b = others_b;
    for (int s = 0; s < g->nspect; s++)
      g->spect[s].on_b = others_b;
  }
  for (int i = 0; i < cfg->idle; i++)
    lg.conns[k++].role = ROLE_IDLE;
  for (int i = 0; i < cfg->silent; i++)
    lg.conns[k++].role = ROLE_SILENT;
  for (size_t i = 0; i < lg.nconns; i++) {
    conn *c = &lg.conns[i];
    c->id = (unsigned)i;
    c->rng = cfg->seed * 0x100000001b3ull + i;
    c->inflight = -1;
  }
  return 0;
}

static void free_all(void) {
  for (size_t i = 0; i < lg.nconns; i++)
    free(lg.conns[i].rx);
  free(lg.conns);
  free(lg.games);
  lg_timers_free(&lg.timers);
}

static int init_handles(void) {
  uv_timer_t *timers[] = {&lg.tick, &lg.phase, &lg.sample, &lg.stop, &lg.progress};
  for (size_t i = 0; i < sizeof timers / sizeof timers[0]; i++) {
    if (uv_timer_init(&lg.loop, timers[i]) != 0)
      return -1;
    timers[i]->data = &own_tag;
  }
  if (uv_signal_init(&lg.loop, &lg.sigint) != 0 || uv_signal_init(&lg.loop, &lg.sigterm) != 0)
    return -1;
  lg.sigint.data = lg.sigterm.data = &own_tag;
  uv_signal_start(&lg.sigint, on_signal, SIGINT);
  uv_signal_start(&lg.sigterm, on_signal, SIGTERM);
  return 0;
}

int main(int argc, char **argv) {
  int rc = parse_options(&lg.cfg, argc, argv);
  if (rc == 1) {
    usage(stdout);
    return 0;
  }
  if (rc != 0) {
    usage(stderr);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  lws_set_log_level(lg.cfg.verbose ? LLL_ERR | LLL_WARN : LLL_ERR, NULL);
  if (build_conns() != 0) {
    fprintf(stderr, "loadgen: out of memory\n");
    free_all();
    return 1;
  }
  raise_fd_limit(lg.nconns);
  if (uv_loop_init(&lg.loop) != 0 || init_handles() != 0) {
    fprintf(stderr, "loadgen: cannot set up the event loop\n");
    free_all();
    return 1;
  }

  lg.protocols[0] = (struct lws_protocols){PROTOCOL_NAME, ws_callback, 0, 0, 0, NULL, 0};
  memset(&lg.protocols[1], 0, sizeof lg.protocols[1]);
  void *loops[1] = {&lg.loop};
  struct lws_context_creation_info info;
  memset(&info, 0, sizeof info);
  info.options = LWS_SERVER_OPTION_LIBUV;
  info.port = CONTEXT_PORT_NO_LISTEN;
  info.protocols = lg.protocols;
  info.foreign_loops = loops;
  info.pcontext = &lg.context;
  /* No fd_limit_per_thread: below the open file limit it makes lws find a socket's wsi by a
   * linear scan of its table on every event (wsi_from_fd), ruinous with 10,000 connections.
   * Without it, lws sizes the table from the limit raise_fd_limit() set and indexes it by fd. */
  info.gid = (gid_t)-1;
  info.uid = (uid_t)-1;
  lg.context = lws_create_context(&info);
  if (lg.context == NULL) {
    fprintf(stderr, "loadgen: cannot create the libwebsockets context (is libwebsockets-evlib-uv "
                    "installed?)\n");
    begin_stop();
    uv_run(&lg.loop, UV_RUN_DEFAULT);
    uv_loop_close(&lg.loop);
    free_all();
    return 1;
  }

  lg.t0 = now_ns();
  lg.rss_initial = lg.cfg.server_pid > 0 ? lg_proc_rss_kib((pid_t)lg.cfg.server_pid) : 0;
  if (lg.cfg.server_pid > 0 && lg.rss_initial < 0) {
    fprintf(stderr, "loadgen: warning: cannot read /proc/%ld\n", lg.cfg.server_pid);
  }
  /* Spread the starts over the ramp; the window opens after the ramp and the warmup. */
  for (size_t i = 0; i < lg.nconns; i++) {
    uint64_t at = lg.nconns > 1 ? (uint64_t)(lg.cfg.ramp * 1e9 * (double)i / (double)lg.nconns) : 0;
    conn_arm(&lg.conns[i], TK_CONNECT, at);
  }
  if (lg.cfg.progress)
    uv_timer_start(&lg.progress, on_progress, 1000, 1000);
  uv_timer_start(&lg.phase, on_window_start,
                 (uint64_t)((lg.cfg.ramp + lg.cfg.warmup) * 1000.0 + 0.5), 0);
  uv_run(&lg.loop, UV_RUN_DEFAULT);
  rc = uv_loop_close(&lg.loop);
  free_all();
  if (rc != 0) {
    fprintf(stderr, "loadgen: the loop still has handles at exit\n");
    return 1;
  }
  return 0;
}
