/* Leases (srv_cluster.h): a room run here holds mancala:lease:CODE = this node's id; codes are
 * reserved that way before a room is made; a room whose lease lapsed is taken over from the store;
 * a lease found taken by another node means the room left this node. */
#include "srv_cluster_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_log.h"
#include "srv_proto.h"
#include "srv_rand.h"
#include "srv_reader.h"
#include "srv_recover.h"

/* The lease scripts' arguments (script()): KEYS[1] the lease, KEYS[2] the node's set of rooms
 * (mancala:rooms:NODE, for the sweep of a node that is gone: srv_cluster_sweep.c), ARGV[1] the
 * node, ARGV[2] the lease's length in ms, ARGV[3] the room's code. */

/* SET NX PX (the room joins the node's set), and when it is taken, who holds it: 1 (taken for
 * ARGV[1]), the holder, or 0 (it lapsed between the two: try again). */
static const char take_script[] =
    "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then "
    "redis.call('sadd', KEYS[2], ARGV[3]) return 1 end "
    "local o = redis.call('get', KEYS[1]) if o then return o end return 0";
/* Compare and extend, for every lease in KEYS: the ones still ARGV[1]'s get ARGV[2] ms more; the
 * answer is the (1-based) positions of the others, lost. Loaded once (SCRIPT LOAD) and run by its
 * SHA1 (EVALSHA); a Redis that lost its scripts (NOSCRIPT: restarted) gets it again with EVAL. */
static const char renew_script[] =
    "local lost = {} for i, k in ipairs(KEYS) do "
    "if redis.call('get', k) == ARGV[1] then redis.call('pexpire', k, ARGV[2]) "
    "else lost[#lost + 1] = i end end return lost";
/* Compare and delete; the room leaves the node's set (it closed, or it was never made). */
static const char release_script[] =
    "redis.call('srem', KEYS[2], ARGV[3]) "
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";
/* The same at a clean stop, the room kept in the node's set: the others sweep it. */
static const char stop_script[] =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

static bool lease_is(const srv_hash_node *n, const void *code) {
  return strcmp(srv_hash_entry(n, lease, hnode)->code, code) == 0;
}

lease *srv_cluster__lease(srv_cluster *cl, const char *code) {
  srv_hash_node *n = srv_hash_find(&cl->leases, srv_hash_str(code), lease_is, code);
  return n != NULL ? srv_hash_entry(n, lease, hnode) : NULL;
}

static lease *lease_add(srv_cluster *cl, const char *code) {
  lease *l = srv_cluster__lease(cl, code);
  if (l != NULL)
    return l;
  if ((l = calloc(1, sizeof *l)) == NULL)
    return NULL;
  snprintf(l->code, sizeof l->code, "%s", code);
  srv_hash_insert(&cl->leases, &l->hnode, srv_hash_str(l->code));
  return l;
}

/* Runs a lease script on code's key. */
static int script(srv_cluster *cl, const char *body, const char *code, srv_redis_reply_fn fn,
                  void *arg) {
  char key[KEY_SIZE], rooms[KEY_SIZE], ms[24];
  srv_cluster__key(key, "lease", code);
  srv_cluster__key(rooms, "rooms", cl->node);
  snprintf(ms, sizeof ms, "%lld", (long long)cl->cfg.lease_ms);
  const char *argv[] = {"EVAL", body, "2", key, rooms, cl->node, ms, code};
  return srv_redis_command(cl->redis, fn, arg, 8, argv, NULL);
}

void srv_cluster__drop_lease(srv_cluster *cl, const char *code, bool release) {
  lease *l = srv_cluster__lease(cl, code);
  if (l == NULL)
    return;
  if (release)
    (void)script(cl, release_script, code, NULL, NULL);
  cl->held -= l->held;
  srv_hash_remove(&cl->leases, &l->hnode);
  free(l);
}

/* ---- Taking a lease -------------------------------------------------------------------------- */

typedef struct take_req {
  srv_cluster *cl;
  char code[SRV_CODE_LEN + 1];
  srv_cluster_take_fn done;
  void *arg;
  int tries;
} take_req;

static void take_answered(void *arg, const redisReply *reply) {
  take_req *t = arg;
  srv_cluster *cl = t->cl;
  if (reply != NULL && reply->type == REDIS_REPLY_INTEGER && reply->integer == 0 && t->tries < 3) {
    t->tries++; /* It lapsed in between: once more. */
    if (script(cl, take_script, t->code, take_answered, t) == 0)
      return;
  }
  bool ok = reply != NULL && reply->type == REDIS_REPLY_INTEGER && reply->integer == 1;
  char owner[NODE_ID_LEN + 1] = "";
  if (reply != NULL && reply->type == REDIS_REPLY_STRING)
    snprintf(owner, sizeof owner, "%.*s", (int)reply->len, reply->str);
  if (strcmp(owner, cl->node) == 0)
    ok = true; /* Already this node's. */
  if (ok) {
    lease *l = lease_add(cl, t->code);
    if (l == NULL) {
      (void)script(cl, release_script, t->code, NULL, NULL);
      ok = false;
    } else {
      cl->held += !l->held;
      l->held = true;
      l->renewed_ms = srv_cluster__now(cl);
    }
  }
  t->done(cl, t->code, ok, owner, t->arg);
  free(t);
}

int srv_cluster__take(srv_cluster *cl, const char *code, srv_cluster_take_fn done, void *arg) {
  take_req *t = calloc(1, sizeof *t);
  if (t == NULL)
    return SRV_ENOMEM;
  *t = (take_req){cl, "", done, arg, 0};
  snprintf(t->code, sizeof t->code, "%s", code);
  int rc = script(cl, take_script, code, take_answered, t);
  if (rc != 0)
    free(t);
  return rc;
}

/* ---- Take-over ------------------------------------------------------------------------------- */

/* A take-over: its reads and the claim of its game run on the cluster's reader (a pool thread);
 * the room is rebuilt on the loop. */
typedef struct takeover {
  srv_cluster *cl;
  char code[SRV_CODE_LEN + 1];
  srv_cluster_taken_fn done;
  void *arg;
  srv_store_recovery *rec; /* The room as read after the claim. */
  int64_t games[2];        /* The games claimed (a rematch begun in between: two), epochs. */
  int64_t epochs[2];
  int n_claims;
} takeover;

/* The room's game claimed, then the room read again: the node that ran it may have committed after
 * the first read (its last batch, before it knew); once claimed, nothing of it commits any more
 * (its batches are fenced), so the second read is the room as it stays. Returns 0, 1 (no such
 * open room) or a negative SRV_STORE_E* code. On the reader's connection. */
static int takeover_read(srv_store *store, void *arg) {
  takeover *t = arg;
  for (int pass = 0; pass < 3; pass++) {
    srv_store_recovery_free(t->rec);
    t->rec = NULL;
    int rc = srv_store_recover_room(store, t->code, &t->rec);
    if (rc < 0)
      return rc;
    if (t->rec->n_rooms != 1)
      return 1;
    int64_t game = t->rec->rooms[0].game;
    bool claimed = game <= 0;
    for (int i = 0; i < t->n_claims && !claimed; i++)
      claimed = t->games[i] == game;
    if (claimed)
      return 0; /* The room as read is the room as it stays. */
    if (t->n_claims == 2)
      return SRV_STORE_ECONFLICT; /* Games begun faster than it is read: not run here. */
    if ((rc = srv_store_game_claim_raise(store, game, &t->epochs[t->n_claims])) < 0)
      return rc;
    t->games[t->n_claims++] = game;
  }
  return SRV_STORE_ECONFLICT;
}

static void takeover_read_done(void *arg, int rc) {
  takeover *t = arg;
  srv_cluster *cl = t->cl;
  lease *l = srv_cluster__lease(cl, t->code);
  if (l != NULL)
    l->recovering = false;
  if (cl->stopping) {
    /* Its leases were given back already; nothing more is run here (Redis may be closed). */
    srv_store_recovery_free(t->rec);
    t->done(cl, t->code, SRV_EUNAVAILABLE, t->arg);
    free(t);
    return;
  }
  int err = 0;
  if (rc < 0) {
    srv_log_error("cluster", "room %s: cannot take it over: %s", t->code, srv_store_strerror(rc));
    err = rc == SRV_STORE_ENOMEM ? SRV_ENOMEM : SRV_ESTORAGE;
  } else if (rc == 1) {
    err = SRV_ENOTFOUND;
  } else if (l == NULL || !l->held) {
    err = SRV_EUNAVAILABLE; /* Its lease went meanwhile (lost, or Redis lost it). */
  } else if (srv_rooms_find(cl->d.rooms, t->code) != NULL) {
    err = 0; /* Here already. */
  } else {
    for (int i = 0; i < t->n_claims && err == 0; i++)
      if (srv_store_game_claimed(cl->d.store, t->games[i], t->epochs[i]) != 0)
        err = SRV_ENOMEM;
    if (err == 0) {
      err =
          srv_recover_room_from(cl->d.store, cl->d.ident, cl->d.rooms, cl->d.time, t->code, t->rec);
      t->rec = NULL;
    }
    if (err == 0) {
      cl->stats.takeovers++;
      srv_room *room = srv_rooms_find(cl->d.rooms, t->code);
      srv_log_info("cluster", "room %s taken over (game %lld, owner epoch %lld)", t->code,
                   (long long)(room != NULL ? srv_room_game_id(room) : 0),
                   (long long)(t->n_claims > 0 ? t->epochs[t->n_claims - 1] : 0));
    }
  }
  srv_store_recovery_free(t->rec);
  srv_cluster__taken_over(cl, t->code, err); /* The commands waiting for it, first. */
  t->done(cl, t->code, err, t->arg);
  free(t);
}

int srv_cluster__take_over(srv_cluster *cl, const char *code, srv_cluster_taken_fn done,
                           void *arg) {
  lease *l = srv_cluster__lease(cl, code);
  if (l == NULL || !l->held)
    return SRV_EUNAVAILABLE;
  if (l->recovering)
    return SRV_EBUSY; /* Under way for another caller: the room comes. */
  takeover *t = calloc(1, sizeof *t);
  if (t == NULL)
    return SRV_ENOMEM;
  t->cl = cl;
  snprintf(t->code, sizeof t->code, "%s", code);
  t->done = done;
  t->arg = arg;
  l->recovering = true;
  int rc = srv_reader_read(cl->reader, takeover_read, takeover_read_done, t);
  if (rc != 0) {
    l->recovering = false;
    free(t);
    return rc;
  }
  return 0;
}

/* ---- Codes reserved for create and quick ----------------------------------------------------- */

typedef struct reservation {
  uint64_t conn;
  int tries;
  char once[128]; /* create with a request id: mancala:create:PLAYER:ID ("" for none). */
  size_t len;
  char frame[];
} reservation;

/* A create's request id, when its client made it unique (a string of 8 characters or more): a
 * retried create (its answer lost with a node) gets the room the first one made, through whichever
 * node. The key holds "-" while the first is under way, then the room's code, for ten minutes. */
#define ONCE_MS "600000"
static const char once_script[] = "local v = redis.call('get', KEYS[1]) if v then return v end "
                                  "redis.call('set', KEYS[1], '-', 'PX', ARGV[1]) return ''";

static int reserve_try(srv_cluster *cl, reservation *r);

static void reserved(srv_cluster *cl, const char *code, bool ok, const char *owner, void *arg) {
  reservation *r = arg;
  srv_client *c = cl->stopping ? NULL : srv_cluster__client(cl, r->conn);
  if (ok && c != NULL) {
    srv_rooms_preset_code(cl->d.rooms, code);
    srv_cluster__run_here(cl, c, r->frame, r->len);
    srv_rooms_preset_code(cl->d.rooms, NULL);
  }
  bool made = ok && srv_rooms_find(cl->d.rooms, code) != NULL;
  if (ok && !made)
    srv_cluster__drop_lease(cl, code, true); /* Not used: quick paired, create refused, gone. */
  if (r->once[0] != '\0' && (ok || owner[0] == '\0' || c == NULL || r->tries + 1 >= 5)) {
    /* The create's outcome for its retries: the room, or nothing (they make one). */
    const char *set[] = {"SET", r->once, code, "PX", ONCE_MS};
    const char *del[] = {"DEL", r->once};
    (void)(made ? srv_redis_command(cl->redis, NULL, NULL, 5, set, NULL)
                : srv_redis_command(cl->redis, NULL, NULL, 2, del, NULL));
  }
  if (!ok && owner[0] != '\0' && c != NULL && ++r->tries < 5 && reserve_try(cl, r) == 0)
    return; /* The code runs elsewhere: another one. */
  if (!ok && c != NULL) {
    srv_cmd cmd;
    srv_proto_error perr;
    bool read = srv_proto_decode(r->frame, r->len, &cmd, &perr) == 0;
    srv_req_id none = {0};
    srv_dispatch_error(cl->d.dispatch, c, SRV_EUNAVAILABLE, read ? &cmd.id : &none, NULL,
                       read ? srv_proto_cmd_name(cmd.type) : NULL);
  }
  free(r);
}

static int reserve_try(srv_cluster *cl, reservation *r) {
  static const char alphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  char code[SRV_CODE_LEN + 1];
  uint8_t bytes[SRV_CODE_LEN];
  int rc = srv_rand_bytes(bytes, sizeof bytes);
  if (rc != 0)
    return rc;
  for (int i = 0; i < SRV_CODE_LEN; i++)
    code[i] = alphabet[bytes[i] & 31];
  code[SRV_CODE_LEN] = '\0';
  if (srv_rooms_find(cl->d.rooms, code) != NULL)
    code[0] = code[0] == 'A' ? 'B' : 'A'; /* Never a code of this node's (the next try tells). */
  return srv_cluster__take(cl, code, reserved, r);
}

/* The answer to a create's request id (once_script): "" to make the room, a code to join. */
typedef struct once_req {
  srv_cluster *cl;
  reservation *r;
} once_req;

static void once_looked(void *arg, const redisReply *reply) {
  once_req *q = arg;
  srv_cluster *cl = q->cl;
  reservation *r = q->r;
  free(q);
  srv_client *c = srv_cluster__client(cl, r->conn);
  srv_cmd cmd;
  srv_proto_error perr;
  bool read = srv_proto_decode(r->frame, r->len, &cmd, &perr) == 0;
  int rc = 0;
  const char *del[] = {"DEL", r->once};
  if (c == NULL || !read) {
    rc = -1;
    if (reply != NULL && reply->type == REDIS_REPLY_STRING && reply->len == 0)
      (void)srv_redis_command(cl->redis, NULL, NULL, 2, del, NULL); /* Ours, and made nothing. */
  } else if (reply == NULL || reply->type != REDIS_REPLY_STRING) {
    rc = SRV_EUNAVAILABLE;
  } else if (reply->len == 0) {
    if ((rc = reserve_try(cl, r)) == 0)
      return;
    (void)srv_redis_command(cl->redis, NULL, NULL, 2, del, NULL);
    rc = SRV_EUNAVAILABLE;
  } else if (reply->len == 1) {
    rc = SRV_EBUSY; /* The first is under way: its answer comes, or a retry later finds it. */
  } else if (reply->len == SRV_CODE_LEN) {
    char code[SRV_CODE_LEN + 1];
    memcpy(code, reply->str, SRV_CODE_LEN);
    code[SRV_CODE_LEN] = '\0';
    rc = srv_cluster__join(cl, c, code, &cmd.id);
  } else {
    rc = SRV_EUNAVAILABLE;
  }
  if (rc < 0 && c != NULL && read)
    srv_dispatch_error(cl->d.dispatch, c, rc, &cmd.id, NULL, srv_proto_cmd_name(cmd.type));
  free(r);
}

int srv_cluster__reserve(srv_cluster *cl, srv_client *c, const srv_cmd *cmd, const char *buf,
                         size_t len) {
  if (cmd->type == SRV_CMD_QUICK && cmd->opts.opponent == SRV_OPP_LOCAL)
    return 0; /* Refused by the handler as it is. */
  if (!srv_redis_up(cl->redis))
    return SRV_EUNAVAILABLE;
  if (srv_cluster__routed_of(cl, c) == NULL)
    return SRV_ENOMEM;
  reservation *r = malloc(sizeof *r + len);
  if (r == NULL)
    return SRV_ENOMEM;
  r->conn = c->route_id;
  r->tries = 0;
  r->once[0] = '\0';
  r->len = len;
  memcpy(r->frame, buf, len);
  /* Only a string id of 8 characters or more says "this very request" (a client's own unique id,
   * docs/protocol.md); numbers count requests on one connection and come again on the next. */
  if (cmd->type == SRV_CMD_CREATE && cmd->id.kind == SRV_ID_STR && strlen(cmd->id.str) >= 8) {
    snprintf(r->once, sizeof r->once, "mancala:create:%s:%s", c->player->id, cmd->id.str);
    once_req *q = malloc(sizeof *q);
    const char *argv[] = {"EVAL", once_script, "1", r->once, ONCE_MS};
    if (q == NULL) {
      free(r);
      return SRV_ENOMEM;
    }
    *q = (once_req){cl, r};
    /* "-" only for two leases: a node that died making the room does not leave it for long. */
    char hold[24];
    snprintf(hold, sizeof hold, "%lld", (long long)cl->cfg.lease_ms * 2);
    argv[4] = hold;
    if (srv_redis_command(cl->redis, once_looked, q, 5, argv, NULL) != 0) {
      free(q);
      free(r);
      return SRV_EUNAVAILABLE;
    }
    return 1;
  }
  int rc = reserve_try(cl, r);
  if (rc != 0) {
    free(r);
    return rc == SRV_ENOMEM ? rc : SRV_EUNAVAILABLE;
  }
  return 1;
}

/* ---- The tick -------------------------------------------------------------------------------- */

/* At most this many leases a script (a script holds Redis up while it runs: about 1 ms for 1,000
 * keys). */
#define RENEW_BATCH 1000

/* One batch of renewals: the codes in the order of KEYS. */
typedef struct renewal {
  srv_cluster *cl;
  int n;
  bool by_sha; /* Sent as EVALSHA (NOSCRIPT: sent again as EVAL). */
  char (*codes)[SRV_CODE_LEN + 1];
} renewal;

static void renewal_free(renewal *r) {
  free(r->codes);
  free(r);
}

static int renewal_send(renewal *r);

static void script_loaded(void *arg, const redisReply *reply) {
  srv_cluster *cl = arg;
  if (reply != NULL && reply->type == REDIS_REPLY_STRING && reply->len < sizeof cl->renew_sha)
    snprintf(cl->renew_sha, sizeof cl->renew_sha, "%.*s", (int)reply->len, reply->str);
}

void srv_cluster__leases_load(srv_cluster *cl) {
  const char *argv[] = {"SCRIPT", "LOAD", renew_script};
  (void)srv_redis_command(cl->redis, script_loaded, cl, 3, argv, NULL);
}

static void renewed(void *arg, const redisReply *reply) {
  renewal *r = arg;
  srv_cluster *cl = r->cl;
  if (reply != NULL && reply->type == REDIS_REPLY_ERROR && r->by_sha &&
      strncmp(reply->str, "NOSCRIPT", 8) == 0 && !cl->stopping) {
    r->by_sha = false; /* EVAL loads it again for the next ticks. */
    if (renewal_send(r) == 0)
      return;
  }
  if (reply == NULL || reply->type != REDIS_REPLY_ARRAY) {
    if (reply != NULL && reply->type == REDIS_REPLY_ERROR)
      srv_log_warn("cluster", "lease renewals refused by Redis: %s", reply->str);
    renewal_free(r);
    return; /* Not renewed: tried again at the next renewal. */
  }
  /* The lost ones first (their positions), then every other still here is renewed. */
  bool *lost = calloc((size_t)r->n, sizeof *lost);
  if (lost == NULL) {
    renewal_free(r);
    return;
  }
  for (size_t i = 0; i < reply->elements; i++) {
    const redisReply *e = reply->element[i];
    if (e->type == REDIS_REPLY_INTEGER && e->integer >= 1 && e->integer <= r->n)
      lost[e->integer - 1] = true;
  }
  uint64_t now = srv_cluster__now(cl);
  for (int i = 0; i < r->n; i++) {
    lease *l = srv_cluster__lease(cl, r->codes[i]);
    if (l == NULL)
      continue;
    if (!lost[i]) {
      l->renewed_ms = now;
      cl->stats.renewals++;
    } else if (!cl->stopping) {
      /* Another node holds it (this one paused past it, or Redis lost it and another took it):
       * the room is not this node's any more; its members come back through the new owner. */
      srv_log_warn("cluster", "room %s: lease lost; it leaves this node", r->codes[i]);
      cl->stats.leases_lost++;
      srv_cluster__drop_lease(cl, r->codes[i], false);
      srv_cluster__evicted(cl, r->codes[i]);
    }
  }
  free(lost);
  renewal_free(r);
}

static int renewal_send(renewal *r) {
  srv_cluster *cl = r->cl;
  int argc = 5 + r->n;
  const char **argv = malloc((size_t)argc * sizeof *argv);
  char(*keys)[KEY_SIZE] = malloc((size_t)r->n * sizeof *keys);
  if (argv == NULL || keys == NULL) {
    free(argv);
    free(keys);
    return SRV_ENOMEM;
  }
  char nkeys[16], ms[24];
  snprintf(nkeys, sizeof nkeys, "%d", r->n);
  snprintf(ms, sizeof ms, "%lld", (long long)cl->cfg.lease_ms);
  argv[0] = r->by_sha ? "EVALSHA" : "EVAL";
  argv[1] = r->by_sha ? cl->renew_sha : renew_script;
  argv[2] = nkeys;
  for (int i = 0; i < r->n; i++) {
    srv_cluster__key(keys[i], "lease", r->codes[i]);
    argv[3 + i] = keys[i];
  }
  argv[3 + r->n] = cl->node;
  argv[4 + r->n] = ms;
  int rc = srv_redis_command(cl->redis, renewed, r, argc, argv, NULL);
  free(argv);
  free(keys);
  return rc;
}

/* Sends the renewals of codes (n of them, taken). */
static void renew_batch(srv_cluster *cl, char (*codes)[SRV_CODE_LEN + 1], int n) {
  renewal *r = malloc(sizeof *r);
  if (r == NULL) {
    free(codes);
    return;
  }
  *r = (renewal){cl, n, cl->renew_sha[0] != '\0', codes};
  if (renewal_send(r) != 0)
    renewal_free(r);
  cl->stats.renewal_batches++;
}

/* A room of this node without a lease (made before its reservation was known, or restored):
 * its lease taken, or the room leaves when another node holds it. */
static void reconciled(srv_cluster *cl, const char *code, bool ok, const char *owner, void *arg) {
  (void)arg;
  if (ok)
    return;
  /* Not taken (Redis refused, was down, or another node holds it): the entry made for the take
   * goes, so that the next tick tries again while the room is here (it stayed, unrenewed and
   * counted, after a Redis restart). */
  lease *l = srv_cluster__lease(cl, code);
  if (l != NULL && !l->held)
    srv_cluster__drop_lease(cl, code, false);
  if (owner[0] != '\0' && srv_rooms_find(cl->d.rooms, code) != NULL) {
    srv_log_warn("cluster", "room %s runs on node %s too; it leaves this one", code, owner);
    srv_cluster__evicted(cl, code);
  }
}

void srv_cluster__leases_tick(srv_cluster *cl, bool renew) {
  if (!srv_redis_up(cl->redis))
    return;
  /* Leases of rooms that closed are given back; the others renewed, RENEW_BATCH a script. */
  char(*codes)[SRV_CODE_LEN + 1] = NULL;
  int n_codes = 0;
  srv_hash_node *n = srv_hash_first(&cl->leases);
  while (n != NULL) {
    srv_hash_node *next = srv_hash_next(&cl->leases, n);
    lease *l = srv_hash_entry(n, lease, hnode);
    if (l->held && !l->recovering && srv_rooms_find(cl->d.rooms, l->code) == NULL) {
      srv_cluster__drop_lease(cl, l->code, true);
    } else if (renew && l->held) {
      if (codes == NULL && (codes = malloc(RENEW_BATCH * sizeof *codes)) == NULL)
        renew = false; /* Out of memory: the next renewal tries again. */
      else {
        memcpy(codes[n_codes++], l->code, sizeof codes[0]);
        if (n_codes == RENEW_BATCH) {
          renew_batch(cl, codes, n_codes);
          codes = NULL;
          n_codes = 0;
        }
      }
    }
    n = next;
  }
  if (n_codes > 0)
    renew_batch(cl, codes, n_codes);
  else
    free(codes);
  for (const srv_room *room = srv_rooms_first(cl->d.rooms); room != NULL;
       room = srv_rooms_next(room)) {
    const char *code = srv_room_code(room);
    if (srv_cluster__lease(cl, code) == NULL && lease_add(cl, code) != NULL)
      (void)srv_cluster__take(cl, code, reconciled, NULL);
  }
}

void srv_cluster__leases_stop(srv_cluster *cl, void (*answered)(void *, const redisReply *)) {
  srv_hash_node *n;
  while ((n = srv_hash_first(&cl->leases)) != NULL) {
    lease *l = srv_hash_entry(n, lease, hnode);
    if (l->held && script(cl, stop_script, l->code, answered, cl) == 0)
      cl->stop_left++;
    srv_hash_remove(&cl->leases, n);
    free(l);
  }
  cl->held = 0;
}

void srv_cluster__leases_free(srv_cluster *cl) {
  srv_hash_node *n;
  while ((n = srv_hash_first(&cl->leases)) != NULL) {
    srv_hash_remove(&cl->leases, n);
    free(srv_hash_entry(n, lease, hnode));
  }
  cl->held = 0;
}
