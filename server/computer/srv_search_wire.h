/* Search jobs as data on Redis Streams: the one place where the node's queue
 * (srv_search_redis.h) and the workers (server/worker/, `mancala-worker`) agree on names and on
 * what a job and its answer say (docs/computer.md, "Search workers").
 *
 * A job is one entry of a lane's stream with one field, "job", a JSON object:
 *   {"v":1, "id":"NODE-N", "reply":CHANNEL, "game":LABEL, "ply":N, "hash":"16 hex digits",
 *    "rules":"kalah 6x4 ...", "moves":"3 1 ...", "level":1..6, "ms":BUDGET, "seed":"16 hex",
 *    "lane":"fast"|"deep"|"analysis", and optionally "max_ms", "target_ms", "floor_ms"}
 * (rules and moves in mc_text.h's forms: the whole game from its start, so that the worker's
 * copy has the repetition history). The answer is one PUBLISH on the job's reply channel, a JSON
 * object:
 *   {"v":1, "id", "game", "ply", "hash" (the job's), "worker":NAME, "try":N, and either
 *    "error":TEXT or "move", "best", "value", "exact", "depth", "nodes", "time_ms", "stopped",
 *    "pv":"3 1 ...", "values":[[MOVE, VALUE, EXACT, KNOWN], ...], "overhead_ms":N, "budget_ms":N}.
 * A job of the analysis stream (a finished game analysed ply by ply, mc_analysis.h, "ms" each
 * ply's budget) is answered with "plies" instead of a move: one entry per move of the job's game,
 * in ply order, [MOVER, PLAYED, BEST, DEPTH, EXACT, PLAYED_KNOWN, PLAYED_EXACT, VALUE,
 * PLAYED_VALUE, "LINE"] (the fields of mc_ply_eval; moves as houses or 255 for the swap).
 * Everything here is pure (no I/O, no global state): any thread may call it. */
#ifndef SRV_SEARCH_WIRE_H
#define SRV_SEARCH_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mc_analysis.h"
#include "mc_game.h"
#include "mc_search.h"

#define SRV_SEARCH_WIRE_VERSION 1

/* The streams, most urgent first: a worker takes a job of a later stream only when the earlier
 * ones have none waiting, so that moves never wait behind analysis. */
typedef enum srv_search_stream {
  SRV_SEARCH_STREAM_FAST = 0, /* The queue's fast lane: levels 3-4, hints. */
  SRV_SEARCH_STREAM_DEEP,     /* Its deep lane: levels 5-6. */
  SRV_SEARCH_STREAM_ANALYSIS, /* A game's analysis (srv_analysis.h), answered with its plies. */
  SRV_SEARCH_STREAMS
} srv_search_stream;

/* The streams' keys and their consumer group (every worker is a consumer of it). */
extern const char *const srv_search_stream_key[SRV_SEARCH_STREAMS];
extern const char *const srv_search_stream_name[SRV_SEARCH_STREAMS]; /* "fast", "deep"... */
#define SRV_SEARCH_GROUP "workers"
/* A node's reply channel: this prefix and the node's name. */
#define SRV_SEARCH_REPLY_PREFIX "mancala:search:reply:"
/* A job is run at most this many times (deliveries); the next delivery answers an error. */
#define SRV_SEARCH_MAX_TRIES 3
/* A pending job of a lane idle this long has lost its worker and is taken by another (a worker
 * keeps the jobs it runs fresh every second, however long their budget, and an analysis it has
 * set aside for a move too). */
#define SRV_SEARCH_RECLAIM_MS 3000
#define SRV_SEARCH_RECLAIM_ANALYSIS_MS 10000
/* The workers alive, per stream they serve (srv_search_workers_key): a sorted set of their names
 * scored by the time (Redis' own clock, in ms) each last said so, at least every
 * SRV_SEARCH_BEAT_MS, searching or waiting. A worker is alive when it did within
 * SRV_SEARCH_LIVE_MS; names silent for a minute are removed. Both scripts run on Redis' clock, so
 * that the machines' clocks need not agree. */
extern const char *const srv_search_workers_key[SRV_SEARCH_STREAMS];
#define SRV_SEARCH_BEAT_MS 1000
#define SRV_SEARCH_LIVE_MS 5000
/* EVAL SRV_SEARCH_BEAT_LUA N KEY... NAME: NAME is alive now in each of the N sets. */
#define SRV_SEARCH_BEAT_LUA                                                                        \
  "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000) "                \
  "for _, k in ipairs(KEYS) do redis.call('ZADD', k, now, ARGV[1]) end return 1"
/* EVAL SRV_SEARCH_ALIVE_LUA 1 KEY LIVE_MS: how many of the set are alive. */
#define SRV_SEARCH_ALIVE_LUA                                                                       \
  "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000) "                \
  "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 60000) "                                  \
  "return redis.call('ZCOUNT', KEYS[1], now - tonumber(ARGV[1]), '+inf')"
/* The most plies an analysis' answer may hold (a bound for the decoder, above any real game's). */
#define SRV_SEARCH_WIRE_MAX_PLIES 65536
/* Streams are capped at about this many entries (XADD MAXLEN ~). */
#define SRV_SEARCH_STREAM_MAX 10000

/* A job as data. */
typedef struct srv_search_wire_job {
  char id[64];     /* Unique: the node's name and a number. */
  char reply[128]; /* The channel of the answer. */
  char game[64];   /* The game's name for logs and checks ("" when none). */
  uint64_t ply;    /* mc_game_ply() of the position to search. */
  uint64_t hash;   /* srv_search_wire_hash() of that position. */
  int level;       /* 1..6. */
  long ms;         /* The budget as the node set it when it sent the job, at least 1. */
  /* The lane's budget policy (srv_search_budget()), for the worker to apply when the search starts
   * and while it runs, from the stream's length then: the most the search may take (the level's
   * time, a clock's share), the reply time the lane aims at, the least a search is given. 0 (the
   * fields absent): none, the worker keeps ms. */
  long max_ms, target_ms, floor_ms;
  uint64_t seed;
  srv_search_stream stream;
} srv_search_wire_job;

/* The answer as data. */
typedef struct srv_search_wire_answer {
  char id[64];
  char game[64];
  uint64_t ply, hash;
  char worker[64];  /* Who searched (for logs). */
  int tries;        /* Which delivery this answer came from, 1..SRV_SEARCH_MAX_TRIES + 1. */
  long budget_ms;   /* The budget the search had in the end (0: ms, the job's). */
  long overhead_ms; /* The worker's time for the job beside its search (its Redis commands since
                     * the previous job, the hand-over to its search thread), >= 0. */
  char error[128];  /* "" when res is set; otherwise why there is no move. */
  mc_search_result res;
  /* An analysis' answer: plies[0..nplies), one a move of the job's game (res is then unset). To
   * encode: borrowed. Decoded: malloc'ed (srv_search_wire_answer_dispose() frees it); NULL and 0
   * for a move's answer and an error. */
  mc_ply_eval *plies;
  size_t nplies;
} srv_search_wire_answer;

/* The position's hash: FNV-1a of its text (mc_pos_format()) and the ply, the same on every
 * machine. */
uint64_t srv_search_wire_hash(const mc_game *game);

/* Returns the job's JSON (the caller frees it with free()) for game at its current position, or
 * NULL when memory runs out or the game cannot be written. job's ply and hash are set from game
 * here. */
char *srv_search_wire_job_encode(srv_search_wire_job *job, const mc_game *game);

/* Decodes len bytes of a job's JSON into *job and, when game is not NULL, replays its game into
 * *game (the caller frees it). Returns 0, or MC_ESYNTAX (not a job: bad JSON, a field missing or
 * out of range, another version), MC_EILLEGAL (its moves are not a game of its rules), MC_EINVAL
 * (the replayed game is not at the job's ply and hash), MC_ENOMEM. On error *game is NULL. */
int srv_search_wire_job_decode(const char *text, size_t len, srv_search_wire_job *job,
                               mc_game **game);

/* Returns the answer's JSON (the caller frees it), or NULL when memory runs out. */
char *srv_search_wire_answer_encode(const srv_search_wire_answer *a);

/* Decodes len bytes of an answer's JSON into *a (an analysis' plies allocated: dispose of *a).
 * Returns 0, MC_ESYNTAX or MC_ENOMEM (then *a holds nothing to dispose of). */
int srv_search_wire_answer_decode(const char *text, size_t len, srv_search_wire_answer *a);

/* Frees what a decoded answer holds (its plies) and empties them. */
void srv_search_wire_answer_dispose(srv_search_wire_answer *a);

#endif
