/* Routing (srv_cluster.h): a command for a room run elsewhere goes to its owner; the owner runs it
 * for a stand-in of the connection and sends the stand-in's frames back; connections gone, nodes
 * gone and rooms moved bring members back through whoever runs the room now.
 *
 * The messages on mancala:to:NODE:
 *   C{"from":NODE,"conn":N,"player":ID,"name":NAME,"addr":ADDR,"frame":TEXT}  a command
 *   O<conn> <type> <reply> <full> <room|->\n<text>                            a frame for conn
 *   G<node> <conn>                                                            conn is gone
 *   M<conn> <code>                                                            code left its node
 *   R<conn> <code> <hops>\n<text>                         a command for a room not run there
 */
#include "srv_cluster_int.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_log.h"
#include "srv_persist.h"
#include "srv_pool.h"
#include "srv_proto.h"

/* A command bounced between nodes more often than this gives up (unavailable). */
#define MAX_HOPS 3

static int send_to_owner(srv_cluster *cl, srv_client *c, const char *code, srv_cmd_type type,
                         const srv_req_id *id, const char *buf, size_t len, bool reattach,
                         int hops);

/* ---- This node's connections that are in rooms run elsewhere --------------------------------- */

static bool routed_is(const srv_hash_node *n, const void *id) {
  return srv_hash_entry(n, routed, hnode)->c->route_id == *(const uint64_t *)id;
}

static routed *routed_find(srv_cluster *cl, uint64_t id) {
  if (id == 0)
    return NULL;
  srv_hash_node *n = srv_hash_find(&cl->routed, srv_hash_bytes(&id, sizeof id), routed_is, &id);
  return n != NULL ? srv_hash_entry(n, routed, hnode) : NULL;
}

routed *srv_cluster__routed_of(srv_cluster *cl, srv_client *c) {
  routed *r = routed_find(cl, c->route_id);
  if (r != NULL)
    return r;
  if ((r = calloc(1, sizeof *r)) == NULL)
    return NULL;
  r->c = c;
  c->route_id = cl->next_conn++;
  srv_hash_insert(&cl->routed, &r->hnode, srv_hash_bytes(&c->route_id, sizeof c->route_id));
  return r;
}

srv_client *srv_cluster__client(srv_cluster *cl, uint64_t conn) {
  routed *r = routed_find(cl, conn);
  return r != NULL ? r->c : NULL;
}

static int member_index(const routed *r, const char *code) {
  for (int i = 0; i < r->n; i++)
    if (strcmp(r->in[i].code, code) == 0)
      return i;
  return -1;
}

static void member_set(routed *r, const char *code, const char *owner) {
  int i = member_index(r, code);
  if (i < 0) {
    if (r->n == ROUTED_ROOMS)
      return; /* Past the rooms one player may be in: not brought back after a take-over. */
    i = r->n++;
    snprintf(r->in[i].code, sizeof r->in[i].code, "%s", code);
  }
  snprintf(r->in[i].owner, sizeof r->in[i].owner, "%s", owner);
}

static void member_drop(routed *r, const char *code) {
  int i = member_index(r, code);
  if (i >= 0)
    r->in[i] = r->in[--r->n];
}

/* The join that brings a member back into room code: a spectator's, which seats a player who
 * holds a seat in it (srv_room_join()). Returns its length. */
static size_t rejoin_frame(char frame[64], const char *code) {
  int n = snprintf(frame, 64, "{\"type\":\"join\",\"room\":\"%.6s\",\"role\":\"spectator\"}", code);
  return n > 0 ? (size_t)n : 0;
}

/* Brings c back into room code through whoever runs it now. */
static void reattach(srv_cluster *cl, srv_client *c, const char *code) {
  char frame[64];
  size_t n = rejoin_frame(frame, code);
  srv_req_id none = {0};
  routed *r = srv_cluster__routed_of(cl, c);
  if (r != NULL)
    member_set(r, code, "*"); /* Under way ("" asks the tick to try again). */
  if (send_to_owner(cl, c, code, SRV_CMD_JOIN, &none, frame, n, true, 0) < 0 && r != NULL)
    member_set(r, code, "");
}

/* ---- Routes: who runs a room ---------------------------------------------------------------- */

static bool route_is(const srv_hash_node *n, const void *code) {
  return strcmp(srv_hash_entry(n, route, hnode)->code, code) == 0;
}

static route *route_find(srv_cluster *cl, const char *code) {
  srv_hash_node *n = srv_hash_find(&cl->routes, srv_hash_str(code), route_is, code);
  return n != NULL ? srv_hash_entry(n, route, hnode) : NULL;
}

static route *route_of(srv_cluster *cl, const char *code) {
  route *rt = route_find(cl, code);
  if (rt != NULL)
    return rt;
  if ((rt = calloc(1, sizeof *rt)) == NULL)
    return NULL;
  snprintf(rt->code, sizeof rt->code, "%s", code);
  srv_hash_insert(&cl->routes, &rt->hnode, srv_hash_str(rt->code));
  return rt;
}

static void route_free(srv_cluster *cl, route *rt) {
  pending *p;
  while ((p = rt->head) != NULL) {
    rt->head = p->next;
    free(p);
  }
  srv_hash_remove(&cl->routes, &rt->hnode);
  free(rt);
}

/* A command for room code that could not go anywhere: its error to its connection; a reattach
 * owes no answer, its member is tried again by the tick. */
static void fail(srv_cluster *cl, const pending *p, int err, const char *code) {
  srv_client *c = srv_cluster__client(cl, p->conn);
  if (c == NULL)
    return;
  if (p->reattach) {
    routed *r = routed_find(cl, p->conn);
    if (r != NULL && member_index(r, code) >= 0)
      member_set(r, code, "");
    return;
  }
  srv_dispatch_error(cl->d.dispatch, c, err, &p->id, NULL, srv_proto_cmd_name(p->type));
}

/* r's connection, a member of room code elsewhere until now, enters it here (the room runs here
 * now: taken over): its seat's member, or a spectator's join. */
static void member_here(srv_cluster *cl, routed *r, const char *code) {
  member_drop(r, code);
  if (srv_rooms_attach(cl->d.rooms, r->c, code) == SRV_ENOTMEMBER) {
    char frame[64];
    srv_cluster__run_here(cl, r->c, frame, rejoin_frame(frame, code));
  }
}

/* Every connection of this node that was a member of room code elsewhere enters it here. */
static void members_here(srv_cluster *cl, const char *code) {
  for (srv_hash_node *h = srv_hash_first(&cl->routed); h; h = srv_hash_next(&cl->routed, h)) {
    routed *r = srv_hash_entry(h, routed, hnode);
    if (member_index(r, code) >= 0)
      member_here(cl, r, code);
  }
}

/* Whether this node may still act in its room code: its lease was confirmed within 80% of a lease
 * (else Redis is down, or this node was paused: another node may take the room over once the lease
 * lapses, so nothing more is accepted here). */
static bool lease_current(srv_cluster *cl, const char *code) {
  lease *l = srv_cluster__lease(cl, code);
  return l == NULL || !l->held ||
         srv_cluster__now(cl) - l->renewed_ms <= (uint64_t)(cl->cfg.lease_ms * 8 / 10);
}

/* ---- Forwarding ------------------------------------------------------------------------------ */

/* What a published command waits for: how many nodes listened. */
typedef struct sent {
  srv_cluster *cl;
  char code[SRV_CODE_LEN + 1];
  char owner[NODE_ID_LEN + 1];
  pending p; /* Without its frame. */
} sent;

static void published(void *arg, const redisReply *reply) {
  sent *s = arg;
  srv_cluster *cl = s->cl;
  if (reply != NULL && reply->type == REDIS_REPLY_INTEGER && reply->integer > 0) {
    free(s);
    return;
  }
  /* Nobody listens on the owner's channel: it is gone (its lease not lapsed yet) or Redis is
   * down. The route is asked again next time; this command gets unavailable. */
  route *rt = route_find(cl, s->code);
  if (rt != NULL && strcmp(rt->owner, s->owner) == 0)
    rt->owner[0] = '\0';
  fail(cl, &s->p, SRV_EUNAVAILABLE, s->code);
  free(s);
}

static int forward(srv_cluster *cl, srv_client *c, route *rt, const pending *p, const char *frame,
                   size_t len) {
  routed *r = srv_cluster__routed_of(cl, c);
  if (r == NULL)
    return SRV_ENOMEM;
  /* The session's token hash goes too: the owner records it with the player when it sits down
   * there, so that the player comes back through any node with its token. */
  char token[65];
  for (int i = 0; i < 32; i++)
    snprintf(token + 2 * i, 3, "%02x", c->token_hash[i]);
  json_t *m = json_pack("{s:s,s:I,s:s,s:s,s:s,s:s,s:i,s:s%}", "from", cl->node, "conn",
                        (json_int_t)c->route_id, "player", c->player->id, "name", c->player->name,
                        "addr", c->addr, "token", token, "hops", p->hops, "frame", frame, len);
  char *text = m != NULL ? json_dumps(m, JSON_COMPACT) : NULL;
  json_decref(m);
  sent *s = text != NULL ? malloc(sizeof *s) : NULL;
  size_t tlen = text != NULL ? strlen(text) : 0;
  char *msg = s != NULL ? malloc(tlen + 1) : NULL;
  if (msg == NULL) {
    free(text);
    free(s);
    return SRV_ENOMEM;
  }
  msg[0] = 'C';
  memcpy(msg + 1, text, tlen);
  free(text);
  s->cl = cl;
  memcpy(s->code, rt->code, sizeof s->code);
  memcpy(s->owner, rt->owner, sizeof s->owner);
  s->p = *p;
  s->p.next = NULL;
  s->p.len = 0;
  char channel[KEY_SIZE];
  srv_cluster__key(channel, "to", rt->owner);
  const char *argv[] = {"PUBLISH", channel, msg};
  const size_t argvlen[] = {7, strlen(channel), tlen + 1};
  int rc = srv_redis_command(cl->redis, published, s, 3, argv, argvlen);
  free(msg);
  if (rc != 0) {
    free(s);
    return rc;
  }
  member_set(r, rt->code, rt->owner);
  cl->stats.forwarded++;
  return 0;
}

/* Runs the commands waiting in rt now that its room runs here. */
static void run_waiting_here(srv_cluster *cl, route *rt) {
  pending *p;
  while ((p = rt->head) != NULL) {
    rt->head = p->next;
    srv_client *c = srv_cluster__client(cl, p->conn);
    if (c != NULL) {
      routed *r = routed_find(cl, p->conn);
      if (r != NULL)
        member_drop(r, rt->code); /* A member here, no longer one elsewhere. */
      if (!p->reattach)
        (void)srv_rooms_attach(cl->d.rooms, c, rt->code); /* Its seat's member first. */
      srv_cluster__run_here(cl, c, p->frame, p->len);
    }
    free(p);
  }
  rt->tail = NULL;
}

/* Sends the commands waiting in rt to its owner. */
static void send_waiting(srv_cluster *cl, route *rt) {
  pending *p;
  while ((p = rt->head) != NULL) {
    rt->head = p->next;
    srv_client *c = srv_cluster__client(cl, p->conn);
    int rc = c != NULL ? forward(cl, c, rt, p, p->frame, p->len) : 0;
    if (rc != 0)
      fail(cl, p, SRV_EUNAVAILABLE, rt->code);
    free(p);
  }
  rt->tail = NULL;
}

static void fail_waiting(srv_cluster *cl, route *rt, int err) {
  pending *p;
  while ((p = rt->head) != NULL) {
    rt->head = p->next;
    fail(cl, p, err, rt->code);
    free(p);
  }
  rt->tail = NULL;
}

/* ---- Looking up the owner, taking a room over ------------------------------------------------ */

static void lookup(srv_cluster *cl, route *rt);

void srv_cluster__taken_over(srv_cluster *cl, const char *code, int rc) {
  route *rt = route_find(cl, code);
  if (rc == 0) {
    if (rt != NULL) {
      run_waiting_here(cl, rt);
      route_free(cl, rt);
    }
    members_here(cl, code); /* The others of this node in it, at once, not at the next tick. */
    return;
  }
  if (rt == NULL)
    return;
  rt->looking = false;
  if (rc == SRV_ENOTFOUND) {
    run_waiting_here(cl, rt); /* Each gets the handler's own not_found. */
    route_free(cl, rt);
  } else {
    fail_waiting(cl, rt, rc == SRV_ENOMEM ? rc : SRV_EUNAVAILABLE);
  }
}

/* A take-over this route asked for failed: its lease is given back (srv_cluster__taken_over()
 * answered the commands). */
static void route_taken(srv_cluster *cl, const char *code, int rc, void *arg) {
  (void)arg;
  if (rc != 0 && !cl->stopping)
    srv_cluster__drop_lease(cl, code, true);
}

static void took(srv_cluster *cl, const char *code, bool ok, const char *owner, void *arg) {
  (void)arg;
  route *rt = cl->stopping ? NULL : route_find(cl, code);
  if (rt == NULL) { /* Freed at the stop, or stopping: nothing more is run here. */
    lease *l = ok ? srv_cluster__lease(cl, code) : NULL;
    if (l != NULL &&
        (cl->stopping || (!l->recovering && srv_rooms_find(cl->d.rooms, code) == NULL)))
      srv_cluster__drop_lease(cl, code, true);
    return;
  }
  rt->looking = false;
  if (ok) {
    if (srv_rooms_find(cl->d.rooms, code) != NULL) {
      srv_cluster__taken_over(cl, code, 0);
      return;
    }
    /* Its reads off the loop; the commands keep waiting (the route looking) until it ends. */
    rt->looking = true;
    int rc = srv_cluster__take_over(cl, code, route_taken, NULL);
    if (rc != 0 && rc != SRV_EBUSY) { /* EBUSY: under way already, its end answers them. */
      srv_cluster__drop_lease(cl, code, true);
      srv_cluster__taken_over(cl, code, rc);
    }
    return;
  }
  if (owner[0] == '\0') {
    fail_waiting(cl, rt, SRV_EUNAVAILABLE);
    return;
  }
  snprintf(rt->owner, sizeof rt->owner, "%s", owner);
  send_waiting(cl, rt);
}

static void looked_up(void *arg, const redisReply *reply) {
  char *code = arg;
  srv_cluster *cl = *(srv_cluster **)(code + SRV_CODE_LEN + 1);
  route *rt = route_find(cl, code);
  if (rt == NULL || cl->stopping) {
    free(code);
    return;
  }
  if (reply == NULL || reply->type == REDIS_REPLY_ERROR) {
    rt->looking = false;
    fail_waiting(cl, rt, SRV_EUNAVAILABLE);
  } else if (reply->type == REDIS_REPLY_STRING && reply->len == NODE_ID_LEN &&
             memcmp(reply->str, cl->node, NODE_ID_LEN) != 0) {
    rt->looking = false;
    memcpy(rt->owner, reply->str, NODE_ID_LEN);
    rt->owner[NODE_ID_LEN] = '\0';
    send_waiting(cl, rt);
  } else if (srv_cluster__take(cl, code, took, NULL) != 0) {
    /* Nobody runs it (or this node's lease outlived its room): take it. */
    rt->looking = false;
    fail_waiting(cl, rt, SRV_EUNAVAILABLE);
  }
  free(code);
}

static void lookup(srv_cluster *cl, route *rt) {
  char *arg = malloc(SRV_CODE_LEN + 1 + sizeof(srv_cluster *));
  if (arg == NULL) {
    fail_waiting(cl, rt, SRV_ENOMEM);
    return;
  }
  memcpy(arg, rt->code, SRV_CODE_LEN + 1);
  memcpy(arg + SRV_CODE_LEN + 1, &cl, sizeof cl);
  char key[KEY_SIZE];
  srv_cluster__key(key, "lease", rt->code);
  const char *argv[] = {"GET", key};
  rt->looking = true;
  if (srv_redis_command(cl->redis, looked_up, arg, 2, argv, NULL) != 0) {
    free(arg);
    rt->looking = false;
    fail_waiting(cl, rt, SRV_EUNAVAILABLE);
  }
}

static int send_to_owner(srv_cluster *cl, srv_client *c, const char *code, srv_cmd_type type,
                         const srv_req_id *id, const char *buf, size_t len, bool reattach,
                         int hops) {
  if (!srv_redis_up(cl->redis) || hops > MAX_HOPS)
    return SRV_EUNAVAILABLE;
  routed *r = srv_cluster__routed_of(cl, c);
  route *rt = r != NULL ? route_of(cl, code) : NULL;
  pending *p = rt != NULL ? malloc(sizeof *p + len + 1) : NULL;
  if (p == NULL)
    return SRV_ENOMEM;
  *p = (pending){NULL, c->route_id, type, *id, reattach, hops, len};
  memcpy(p->frame, buf, len);
  p->frame[len] = '\0';
  if (rt->owner[0] != '\0' && !rt->looking) {
    int rc = forward(cl, c, rt, p, buf, len);
    free(p);
    return rc != 0 ? SRV_EUNAVAILABLE : 1;
  }
  if (rt->tail != NULL)
    rt->tail->next = p;
  else
    rt->head = p;
  rt->tail = p;
  if (!rt->looking)
    lookup(cl, rt);
  return 1;
}

/* ---- The dispatch's router ------------------------------------------------------------------- */

int srv_cluster__join(srv_cluster *cl, srv_client *c, const char *code, const srv_req_id *id) {
  json_t *j = json_pack("{s:s,s:s,s:s}", "type", "join", "room", code, "role", "player");
  if (j != NULL && id->kind == SRV_ID_INT)
    json_object_set_new(j, "id", json_integer(id->num));
  else if (j != NULL && id->kind == SRV_ID_STR)
    json_object_set_new(j, "id", json_string(id->str));
  char *frame = j != NULL ? json_dumps(j, JSON_COMPACT) : NULL;
  json_decref(j);
  if (frame == NULL)
    return SRV_ENOMEM;
  char room[SRV_CODE_LEN + 1];
  snprintf(room, sizeof room, "%s", code);
  int rc = 1;
  if (srv_rooms_find(cl->d.rooms, room) != NULL)
    srv_cluster__run_here(cl, c, frame, strlen(frame));
  else
    rc = send_to_owner(cl, c, room, SRV_CMD_JOIN, id, frame, strlen(frame), false, 0);
  free(frame);
  return rc;
}

/* Quick play with nobody waiting in its pool here but someone on another node: the player joins
 * that room through its node (its answer, joined, carries the quick request's id). */
static bool quick_elsewhere(srv_cluster *cl, srv_client *c, const srv_cmd *cmd) {
  if (cmd->opts.opponent != SRV_OPP_HUMAN)
    return false;
  int pool = srv_pool_of(&cmd->opts);
  const char *code = pool >= 0 ? srv_cluster__lobby_seek(cl, pool) : NULL;
  if (code == NULL || srv_rooms_has_seek(cl->d.rooms, &cmd->opts))
    return false;
  return srv_cluster__join(cl, c, code, &cmd->id) > 0;
}

int srv_cluster__route(void *ud, srv_client *c, const srv_cmd *cmd, const char *buf, size_t len) {
  srv_cluster *cl = ud;
  if (cl->bypass || cl->stopping)
    return 0;
  switch (cmd->type) {
  case SRV_CMD_QUICK:
    if (quick_elsewhere(cl, c, cmd))
      return 1;
    return srv_cluster__reserve(cl, c, cmd, buf, len);
  case SRV_CMD_CREATE:
    return srv_cluster__reserve(cl, c, cmd, buf, len);
  case SRV_CMD_JOIN:
  case SRV_CMD_LEAVE:
  case SRV_CMD_MOVE:
  case SRV_CMD_RESIGN:
  case SRV_CMD_DRAW:
  case SRV_CMD_REMATCH:
  case SRV_CMD_CHAT:
  case SRV_CMD_RESYNC:
  case SRV_CMD_TAKEBACK:
  case SRV_CMD_HINT:
    break;
  default:
    return 0;
  }
  if (cmd->room[0] == '\0')
    return 0; /* The handler's error. */
  if (srv_rooms_find(cl->d.rooms, cmd->room) != NULL) {
    if (!lease_current(cl, cmd->room))
      return SRV_EUNAVAILABLE;
    /* A member of it elsewhere until the room came here: in first. */
    routed *r = routed_find(cl, c->route_id);
    if (r != NULL && member_index(r, cmd->room) >= 0)
      member_here(cl, r, cmd->room);
    return 0;
  }
  return send_to_owner(cl, c, cmd->room, cmd->type, &cmd->id, buf, len, false, 0);
}

/* A resumed hello's rooms, read through the cluster's reader (off the loop). */
typedef struct rooms_read {
  srv_cluster *cl;
  uint64_t conn;
  char player[SRV_PLAYER_ID_CHARS + 1];
  char codes[ROUTED_ROOMS][SRV_STORE_CODE_SIZE];
  size_t n;
} rooms_read;

/* On the reader's connection (a pool thread with PostgreSQL). */
static int read_player_rooms(srv_store *store, void *arg) {
  rooms_read *q = arg;
  return srv_store_player_rooms(store, q->player, q->codes, ROUTED_ROOMS, &q->n);
}

static void player_rooms_read(void *arg, int rc) {
  rooms_read *q = arg;
  srv_cluster *cl = q->cl;
  srv_client *c = cl->stopping ? NULL : srv_cluster__client(cl, q->conn);
  if (c == NULL || c->player == NULL || strcmp(c->player->id, q->player) != 0) {
    free(q); /* Gone, or another player now. */
    return;
  }
  if (rc != 0) {
    srv_log_warn("cluster", "cannot read the rooms of player %s: %s", q->player,
                 srv_store_strerror(rc));
    free(q);
    return;
  }
  /* Those run elsewhere (or by nobody now): back in through their node, as a reconnection here
   * is back in this node's own rooms. */
  for (size_t i = 0; i < q->n; i++)
    if (srv_rooms_find(cl->d.rooms, q->codes[i]) == NULL)
      reattach(cl, c, q->codes[i]);
  free(q);
}

void srv_cluster__resumed(void *ud, srv_client *c) {
  srv_cluster *cl = ud;
  rooms_read *q = calloc(1, sizeof *q);
  if (q == NULL || srv_cluster__routed_of(cl, c) == NULL) {
    free(q);
    srv_log_warn("cluster", "cannot bring player %s back into its rooms (out of memory)",
                 c->player->id);
    return;
  }
  q->cl = cl;
  q->conn = c->route_id;
  snprintf(q->player, sizeof q->player, "%s", c->player->id);
  if (srv_reader_read(cl->reader, read_player_rooms, player_rooms_read, q) != 0) {
    srv_log_warn("cluster", "cannot read the rooms of player %s", c->player->id);
    free(q);
  }
}

void srv_cluster__gone(void *ud, srv_client *c) {
  srv_cluster *cl = ud;
  routed *r = routed_find(cl, c->route_id);
  if (r == NULL)
    return;
  /* Each node it had a stand-in on, once. */
  for (int i = 0; i < r->n; i++) {
    bool seen = r->in[i].owner[0] == '\0' || r->in[i].owner[0] == '*';
    for (int j = 0; j < i && !seen; j++)
      seen = strcmp(r->in[j].owner, r->in[i].owner) == 0;
    if (seen || cl->redis == NULL)
      continue;
    char channel[KEY_SIZE], msg[64];
    srv_cluster__key(channel, "to", r->in[i].owner);
    int n = snprintf(msg, sizeof msg, "G%s %" PRIu64, cl->node, c->route_id);
    (void)srv_redis_publish(cl->redis, channel, msg, (size_t)n);
  }
  srv_hash_remove(&cl->routed, &r->hnode);
  free(r);
  c->route_id = 0;
}

/* ---- The sink: stand-ins' frames leave with their storage batch ----------------------------- */

/* A connection of another node in a hash table: its node's id and its number there. */
static size_t conn_hash(const char *node, uint64_t conn) {
  return srv_hash_str(node) ^ srv_hash_bytes(&conn, sizeof conn);
}

void srv_cluster__queue(void *ud, srv_client *to, srv_frame *frame) {
  srv_cluster *cl = ud;
  standin *s = to->remote;
  if (s == NULL) {
    cl->d.net.queue(cl->d.net.ud, to, frame);
    return;
  }
  outgoing *o = malloc(sizeof *o);
  if (o == NULL)
    return; /* The frame is lost: the client's resync covers a missing state. */
  o->next = NULL;
  memcpy(o->node, s->node, sizeof o->node);
  o->conn = s->conn;
  /* The network layer's stamp: it leaves when the batch of its turn is committed (docs/turn.md). */
  o->stamp = cl->d.stamp != NULL ? cl->d.stamp(cl->d.stamp_ud) : 0;
  o->frame = srv_frame_ref(frame);
  if (cl->out_tail != NULL)
    cl->out_tail->next = o;
  else
    cl->out_head = o;
  cl->out_tail = o;
}

/* Publishes o's frame on its node's channel ("O<conn> <type> <reply> <full> <room>\n" and the
 * frame's text) and frees o. */
static void publish_one(srv_cluster *cl, outgoing *o) {
  srv_frame *f = o->frame;
  if (cl->redis != NULL) { /* Else stopped: nobody to send it to. */
    char head[96];
    int n = snprintf(head, sizeof head, "O%llu %d %d %d %s\n", (unsigned long long)o->conn,
                     (int)f->type, f->reply ? 1 : 0, f->full ? 1 : 0, f->room[0] ? f->room : "-");
    char *msg = malloc((size_t)n + f->len);
    if (msg != NULL) {
      memcpy(msg, head, (size_t)n);
      memcpy(msg + n, srv_frame_text(f), f->len);
      char channel[KEY_SIZE];
      srv_cluster__key(channel, "to", o->node);
      if (srv_redis_publish(cl->redis, channel, msg, (size_t)n + f->len) == 0)
        cl->stats.frames_out++;
      free(msg);
    }
  }
  srv_frame_unref(f);
  free(o);
}

static bool held_conn_is(const srv_hash_node *n, const void *key) {
  const outgoing *h = srv_hash_entry(n, outgoing, hnode);
  const outgoing *k = key;
  return h->conn == k->conn && strcmp(h->node, k->node) == 0;
}

/* The same rule as srv_net's queues (release_up_to()): a frame stamped up to cut leaves, unless a
 * frame queued before it for the same connection is held; then it waits behind that one. One walk
 * of the frames in the order they were queued; the connections held back are kept in
 * cl->held_conns for the walk (their first held frame), emptied at its end. */
outgoing *srv_cluster__released(srv_cluster *cl, uint64_t cut) {
  outgoing **link = &cl->out_head, *last = NULL, *held = NULL;
  outgoing *out = NULL, **out_tail = &out;
  outgoing *o;
  while ((o = *link) != NULL) {
    size_t h = conn_hash(o->node, o->conn);
    bool behind = srv_hash_count(&cl->held_conns) > 0 &&
                  srv_hash_find(&cl->held_conns, h, held_conn_is, o) != NULL;
    if (o->stamp > cut || behind) {
      if (!behind) {
        srv_hash_insert(&cl->held_conns, &o->hnode, h);
        o->held_next = held;
        held = o;
      }
      last = o;
      link = &o->next;
      continue;
    }
    *link = o->next;
    o->next = NULL;
    *out_tail = o;
    out_tail = &o->next;
  }
  cl->out_tail = last;
  for (; held != NULL; held = held->held_next)
    srv_hash_remove(&cl->held_conns, &held->hnode);
  return out;
}

void srv_cluster__publish(srv_cluster *cl, uint64_t cut) {
  outgoing *o = srv_cluster__released(cl, cut);
  while (o != NULL) {
    outgoing *next = o->next;
    publish_one(cl, o);
    o = next;
  }
}

void srv_cluster__lost(void *ud, srv_client *to) {
  srv_cluster *cl = ud;
  if (to->remote == NULL)
    cl->d.net.lost(cl->d.net.ud, to);
}

/* ---- Stand-ins ------------------------------------------------------------------------------- */

static bool standin_is(const srv_hash_node *n, const void *key) {
  const standin *s = srv_hash_entry(n, standin, hnode);
  const standin *k = key;
  return s->conn == k->conn && strcmp(s->node, k->node) == 0;
}

static size_t standin_hash(const char *node, uint64_t conn) {
  return conn_hash(node, conn);
}

static standin *standin_find(srv_cluster *cl, const char *node, uint64_t conn) {
  standin key;
  snprintf(key.node, sizeof key.node, "%s", node);
  key.conn = conn;
  srv_hash_node *n = srv_hash_find(&cl->standins, standin_hash(node, conn), standin_is, &key);
  return n != NULL ? srv_hash_entry(n, standin, hnode) : NULL;
}

static void standin_gone(srv_cluster *cl, standin *s) {
  held_msg *h;
  while ((h = s->held_head) != NULL) {
    s->held_head = h->next;
    free(h);
  }
  if (s->loading != NULL)
    srv_ident_unref(cl->d.ident, s->loading); /* Never identified: nothing else to undo. */
  else
    srv_dispatch_client_gone(cl->d.dispatch, &s->client);
  srv_hash_remove(&cl->standins, &s->hnode);
  free(s);
}

/* Keeps msg (len bytes) for s until its player's account is read. Returns false when memory ran
 * out (the command is lost, as a lost message is). */
static bool standin_hold(standin *s, const char *msg, size_t len) {
  held_msg *h = malloc(sizeof *h + len);
  if (h == NULL)
    return false;
  h->next = NULL;
  h->len = len;
  memcpy(h->msg, msg, len);
  if (s->held_tail != NULL)
    s->held_tail->next = h;
  else
    s->held_head = h;
  s->held_tail = h;
  return true;
}

/* 64 hex digits into 32 bytes; false when they are not, or all zero (no session). */
static bool token_of(const char *hex, uint8_t out[32]) {
  if (strlen(hex) != 64)
    return false;
  bool any = false;
  for (int i = 0; i < 32; i++) {
    unsigned v;
    if (sscanf(hex + 2 * i, "%2x", &v) != 1)
      return false;
    out[i] = (uint8_t)v;
    any |= v != 0;
  }
  return any;
}

/* s becomes its player's (pl, whose reference it takes): back in the rooms here. */
static void standin_ready(srv_cluster *cl, standin *s, srv_player *pl) {
  if (!pl->account)
    snprintf(pl->name, sizeof pl->name, "%s", s->name); /* A guest's name as its node knows it. */
  /* As a reconnection: it is back in the rooms here where its player holds a seat. */
  srv_rooms_identify(cl->d.rooms, &s->client, pl, true);
  srv_ident_unref(cl->d.ident, pl);
}

/* A stand-in's account read off the loop, through the cluster's reader. */
typedef struct account_read {
  srv_cluster *cl;
  char node[NODE_ID_LEN + 1];
  uint64_t conn;
  char player[SRV_PLAYER_ID_CHARS + 1];
  srv_persist_account account;
} account_read;

static int read_account(srv_store *store, void *arg) {
  account_read *q = arg;
  return srv_persist_account_read(store, q->player, &q->account);
}

static void account_read_done(void *arg, int rc) {
  account_read *q = arg;
  srv_cluster *cl = q->cl;
  standin *s = cl->stopping ? NULL : standin_find(cl, q->node, q->conn);
  if (s == NULL || s->loading == NULL || strcmp(s->loading->id, q->player) != 0) {
    free(q); /* Gone meanwhile (its loading player with it). */
    return;
  }
  srv_player *pl = s->loading;
  s->loading = NULL;
  if (rc < 0)
    srv_log_warn("cluster", "cannot read the account of player %s", q->player);
  else if (!pl->account)
    srv_persist_account_apply(pl, &q->account);
  free(q);
  standin_ready(cl, s, pl);
  /* The commands that came meanwhile, in order (one may end the stand-in: looked up each time). */
  char node[NODE_ID_LEN + 1];
  uint64_t conn = s->conn;
  memcpy(node, s->node, sizeof node);
  while ((s = standin_find(cl, node, conn)) != NULL && s->loading == NULL && s->held_head != NULL) {
    held_msg *h = s->held_head;
    s->held_head = h->next;
    if (s->held_head == NULL)
      s->held_tail = NULL;
    srv_cluster__on_command(cl, h->msg, h->len);
    free(h);
  }
}

/* A stand-in for connection conn of node: its player adopted here; a player new here has its
 * account read through the cluster's reader first (standin.loading), a known one is ready now. */
static standin *standin_new(srv_cluster *cl, const char *node, uint64_t conn, const char *player,
                            const char *name, const char *addr, const char *token) {
  standin *s = calloc(1, sizeof *s);
  if (s == NULL)
    return NULL;
  srv_client_init(&s->client, NULL);
  s->client.remote = s;
  snprintf(s->client.addr, sizeof s->client.addr, "%s", addr);
  snprintf(s->node, sizeof s->node, "%s", node);
  snprintf(s->name, sizeof s->name, "%s", name);
  s->conn = conn;
  (void)token_of(token, s->client.token_hash);
  srv_player *pl = NULL;
  if (srv_ident_adopt(cl->d.ident, player, name, &pl) != 0) {
    free(s);
    return NULL;
  }
  srv_hash_insert(&cl->standins, &s->hnode, standin_hash(s->node, s->conn));
  account_read *q = pl->refs == 1 ? calloc(1, sizeof *q) : NULL;
  if (q != NULL) {
    *q = (account_read){.cl = cl, .conn = conn};
    memcpy(q->node, s->node, sizeof q->node);
    snprintf(q->player, sizeof q->player, "%s", pl->id);
    s->loading = pl;
    if (srv_reader_read(cl->reader, read_account, account_read_done, q) == 0)
      return s;
    s->loading = NULL;
    free(q);
  }
  if (pl->refs == 1)
    srv_log_warn("cluster", "cannot read the account of player %s", player);
  standin_ready(cl, s, pl);
  return s;
}

/* A command for a room not run here: back to its node, to be routed again. */
static void bounce(srv_cluster *cl, const char *node, uint64_t conn, const char *code, int hops,
                   const char *frame, size_t len) {
  if (cl->redis == NULL)
    return;
  char head[96], channel[KEY_SIZE];
  int n = snprintf(head, sizeof head, "R%" PRIu64 " %s %d\n", conn, code, hops + 1);
  char *msg = malloc((size_t)n + len);
  if (msg == NULL)
    return;
  memcpy(msg, head, (size_t)n);
  memcpy(msg + n, frame, len);
  srv_cluster__key(channel, "to", node);
  (void)srv_redis_publish(cl->redis, channel, msg, (size_t)n + len);
  free(msg);
}

void srv_cluster__on_command(srv_cluster *cl, const char *msg, size_t len) {
  json_error_t err;
  json_t *m = json_loadb(msg, len, 0, &err);
  const char *from = NULL, *player = NULL, *name = NULL, *addr = NULL, *frame = NULL;
  const char *token = "";
  int hops = 0;
  json_int_t conn = 0;
  size_t flen = 0;
  if (m == NULL ||
      json_unpack(m, "{s:s,s:I,s:s,s:s,s:s,s?s,s?i,s:s%}", "from", &from, "conn", &conn, "player",
                  &player, "name", &name, "addr", &addr, "token", &token, "hops", &hops, "frame",
                  &frame, &flen) != 0 ||
      strlen(from) != NODE_ID_LEN) {
    srv_log_warn("cluster", "a command that does not read: %s", m ? "fields" : err.text);
    json_decref(m);
    return;
  }
  cl->stats.received++;
  /* A room command for a room this node does not run (it left, or the sender's view is old). */
  srv_cmd cmd;
  srv_proto_error perr;
  bool decoded = srv_proto_decode(frame, flen, &cmd, &perr) == 0;
  if (decoded && cmd.room[0] != '\0' && cmd.type != SRV_CMD_CREATE && cmd.type != SRV_CMD_QUICK &&
      srv_rooms_find(cl->d.rooms, cmd.room) == NULL) {
    bounce(cl, from, (uint64_t)conn, cmd.room, hops, frame, flen);
    json_decref(m);
    return;
  }
  standin *s = standin_find(cl, from, (uint64_t)conn);
  if (s != NULL && s->loading != NULL && strcmp(s->loading->id, player) == 0) {
    if (!standin_hold(s, msg, len)) /* After its account, in order. */
      srv_log_warn("cluster", "a command for %s/%lld lost (out of memory)", from, (long long)conn);
    json_decref(m);
    return;
  }
  if (s != NULL &&
      strcmp(s->loading != NULL ? s->loading->id : s->client.player->id, player) != 0) {
    standin_gone(cl, s); /* Its connection is another player now (a login, a logout). */
    s = NULL;
  }
  if (s == NULL && (s = standin_new(cl, from, (uint64_t)conn, player, name, addr, token)) == NULL) {
    srv_log_warn("cluster", "cannot make a stand-in for %s/%lld", from, (long long)conn);
    json_decref(m);
    return;
  }
  if (s->loading != NULL) { /* Its account is being read: the command waits for it. */
    if (!standin_hold(s, msg, len))
      srv_log_warn("cluster", "a command for %s/%lld lost (out of memory)", from, (long long)conn);
    json_decref(m);
    return;
  }
  if (decoded && cmd.room[0] != '\0' && !lease_current(cl, cmd.room)) {
    srv_dispatch_error(cl->d.dispatch, &s->client, SRV_EUNAVAILABLE, &cmd.id, NULL,
                       srv_proto_cmd_name(cmd.type));
    json_decref(m);
    return;
  }
  /* The session's token hash is known while the command runs: a seat taken here records the
   * player with it (srv_persist), so that it comes back through any node with its token. Not
   * kept after: a hello here reads sessions from PostgreSQL, where a logout or a revocation on
   * another node is seen at once. */
  const uint8_t *hash = s->client.token_hash;
  bool lent = false;
  for (int i = 0; i < 32 && !lent; i++)
    lent = hash[i] != 0;
  for (size_t i = 0; lent && i < srv_ident_token_count(s->client.player); i++)
    lent = memcmp(srv_ident_token(s->client.player, i), hash, 32) != 0; /* Known here already. */
  lent = lent && srv_ident_add_token(cl->d.ident, s->client.player, hash) == 0;
  srv_dispatch_frame(cl->d.dispatch, &s->client, frame, flen);
  if (lent)
    srv_ident_revoke(cl->d.ident, hash);
  json_decref(m);
}

void srv_cluster__on_gone(srv_cluster *cl, const char *msg, size_t len) {
  char node[NODE_ID_LEN + 1];
  unsigned long long conn;
  char text[64];
  snprintf(text, sizeof text, "%.*s", (int)(len < 63 ? len : 63), msg);
  if (sscanf(text, "%16s %llu", node, &conn) != 2)
    return;
  standin *s = standin_find(cl, node, conn);
  if (s != NULL)
    standin_gone(cl, s);
}

/* The room of a left or closed frame ("room":"CODE" in its text). */
static bool frame_room(const char *text, size_t len, char code[SRV_CODE_LEN + 1]) {
  static const char key[] = "\"room\":\"";
  for (size_t i = 0; i + sizeof key - 1 + SRV_CODE_LEN < len; i++) {
    if (memcmp(text + i, key, sizeof key - 1) == 0) {
      memcpy(code, text + i + sizeof key - 1, SRV_CODE_LEN);
      code[SRV_CODE_LEN] = '\0';
      return true;
    }
  }
  return false;
}

void srv_cluster__on_frame(srv_cluster *cl, const char *msg, size_t len) {
  const char *nl = memchr(msg, '\n', len < 96 ? len : 96);
  if (nl == NULL)
    return;
  char head[96], room[16];
  snprintf(head, sizeof head, "%.*s", (int)(nl - msg), msg);
  unsigned long long conn;
  int type, reply, full;
  if (sscanf(head, "%llu %d %d %d %15s", &conn, &type, &reply, &full, room) != 5 || type < 0 ||
      type > SRV_EV_SESSIONS)
    return;
  cl->stats.frames_in++;
  routed *r = routed_find(cl, conn);
  if (r == NULL)
    return; /* Gone meanwhile. */
  const char *text = nl + 1;
  size_t tlen = len - (size_t)(text - msg);
  if (type == SRV_EV_LEFT || type == SRV_EV_CLOSED) {
    char code[SRV_CODE_LEN + 1];
    if (frame_room(text, tlen, code))
      member_drop(r, code);
  }
  srv_frame *f = srv_frame_new((srv_event_type)type, reply != 0,
                               strcmp(room, "-") != 0 ? room : NULL, text, tlen);
  if (f == NULL) {
    cl->d.net.lost(cl->d.net.ud, r->c);
    return;
  }
  f->full = full != 0;
  cl->d.net.queue(cl->d.net.ud, r->c, f);
  srv_frame_unref(f);
}

void srv_cluster__on_moved(srv_cluster *cl, const char *msg, size_t len) {
  char text[64], code[16];
  unsigned long long conn;
  snprintf(text, sizeof text, "%.*s", (int)(len < 63 ? len : 63), msg);
  if (sscanf(text, "%llu %15s", &conn, code) != 2 || strlen(code) != SRV_CODE_LEN)
    return;
  route *rt = route_find(cl, code);
  if (rt != NULL && !rt->looking)
    rt->owner[0] = '\0';
  srv_client *c = srv_cluster__client(cl, conn);
  if (c != NULL)
    reattach(cl, c, code);
}

/* R: a command came back from a node that does not run its room: routed again. */
static void on_bounced(srv_cluster *cl, const char *msg, size_t len) {
  const char *nl = memchr(msg, '\n', len < 64 ? len : 64);
  if (nl == NULL)
    return;
  char head[64], code[16];
  snprintf(head, sizeof head, "%.*s", (int)(nl - msg), msg);
  unsigned long long conn;
  int hops;
  if (sscanf(head, "%llu %15s %d", &conn, code, &hops) != 3 || strlen(code) != SRV_CODE_LEN)
    return;
  srv_client *c = srv_cluster__client(cl, conn);
  if (c == NULL)
    return;
  const char *frame = nl + 1;
  size_t flen = len - (size_t)(frame - msg);
  route *rt = route_find(cl, code);
  if (rt != NULL && !rt->looking)
    rt->owner[0] = '\0';
  srv_cmd cmd;
  srv_proto_error perr;
  if (srv_proto_decode(frame, flen, &cmd, &perr) != 0)
    return;
  bool join_again = cmd.type == SRV_CMD_JOIN && cmd.id.kind == SRV_ID_NONE; /* A reattach. */
  if (srv_rooms_find(cl->d.rooms, code) != NULL) {
    srv_cluster__run_here(cl, c, frame, flen); /* It runs here now. */
    return;
  }
  int rc = send_to_owner(cl, c, code, cmd.type, &cmd.id, frame, flen, join_again, hops);
  if (rc < 0 && !join_again)
    srv_dispatch_error(cl->d.dispatch, c, rc, &cmd.id, NULL, srv_proto_cmd_name(cmd.type));
}

void srv_cluster__on_redirect(srv_cluster *cl, const char *msg, size_t len) {
  on_bounced(cl, msg, len);
}

/* ---- Nodes gone, rooms moved ----------------------------------------------------------------- */

void srv_cluster__node_dead(srv_cluster *cl, const char *node) {
  /* Its connections' stand-ins leave the rooms here. */
  srv_hash_node *n = srv_hash_first(&cl->standins);
  while (n != NULL) {
    srv_hash_node *next = srv_hash_next(&cl->standins, n);
    standin *s = srv_hash_entry(n, standin, hnode);
    if (strcmp(s->node, node) == 0)
      standin_gone(cl, s);
    n = next;
  }
  /* The rooms it ran: looked up again, and this node's members brought back. */
  for (n = srv_hash_first(&cl->routes); n != NULL; n = srv_hash_next(&cl->routes, n)) {
    route *rt = srv_hash_entry(n, route, hnode);
    if (!rt->looking && strcmp(rt->owner, node) == 0)
      rt->owner[0] = '\0';
  }
  for (n = srv_hash_first(&cl->routed); n != NULL; n = srv_hash_next(&cl->routed, n)) {
    routed *r = srv_hash_entry(n, routed, hnode);
    for (int i = 0; i < r->n; i++)
      if (strcmp(r->in[i].owner, node) == 0)
        r->in[i].owner[0] = '\0'; /* The tick brings it back. */
  }
}

typedef struct evicting {
  srv_cluster *cl;
  const char *code;
} evicting;

static void member_out(void *ud, srv_client *c) {
  evicting *e = ud;
  standin *s = c->remote;
  if (s != NULL && e->cl->redis != NULL) {
    char channel[KEY_SIZE], msg[64];
    srv_cluster__key(channel, "to", s->node);
    int n = snprintf(msg, sizeof msg, "M%" PRIu64 " %s", s->conn, e->code);
    (void)srv_redis_publish(e->cl->redis, channel, msg, (size_t)n);
    return;
  }
  routed *r = srv_cluster__routed_of(e->cl, c);
  if (r != NULL)
    member_set(r, e->code, ""); /* The tick brings it back through the new owner. */
}

void srv_cluster__evicted(srv_cluster *cl, const char *code) {
  evicting e = {cl, code};
  srv_rooms_evict(cl->d.rooms, code, member_out, &e);
}

int srv_cluster__peers(srv_cluster *cl, char (*out)[NODE_ID_LEN + 1], int max) {
  int n = 0;
#define ADD(node)                                                                                  \
  do {                                                                                             \
    const char *nd_ = (node);                                                                      \
    bool seen_ = strlen(nd_) != NODE_ID_LEN;                                                       \
    for (int k_ = 0; k_ < n && !seen_; k_++)                                                       \
      seen_ = strcmp(out[k_], nd_) == 0;                                                           \
    if (!seen_ && n < max)                                                                         \
      memcpy(out[n++], nd_, NODE_ID_LEN + 1);                                                      \
  } while (0)
  for (srv_hash_node *h = srv_hash_first(&cl->standins); h; h = srv_hash_next(&cl->standins, h))
    ADD(srv_hash_entry(h, standin, hnode)->node);
  for (srv_hash_node *h = srv_hash_first(&cl->routed); h; h = srv_hash_next(&cl->routed, h)) {
    routed *r = srv_hash_entry(h, routed, hnode);
    for (int i = 0; i < r->n; i++)
      ADD(r->in[i].owner);
  }
#undef ADD
  return n;
}

void srv_cluster__routes_tick(srv_cluster *cl) {
  if (!srv_redis_up(cl->redis))
    return;
  /* Members to bring back (their room's node is gone, or the room moved). */
  for (srv_hash_node *h = srv_hash_first(&cl->routed); h; h = srv_hash_next(&cl->routed, h)) {
    routed *r = srv_hash_entry(h, routed, hnode);
    for (int i = 0; i < r->n; i++) {
      if (r->in[i].owner[0] != '\0')
        continue;
      char code[SRV_CODE_LEN + 1];
      memcpy(code, r->in[i].code, sizeof code);
      if (srv_rooms_find(cl->d.rooms, code) != NULL) {
        member_here(cl, r, code); /* It runs here now: in as a member of this node's room. */
        i--;
        continue;
      }
      reattach(cl, r->c, code);
    }
  }
  /* Routes nobody waits on and nobody of this node is in are forgotten. */
  srv_hash_node *n = srv_hash_first(&cl->routes);
  while (n != NULL) {
    srv_hash_node *next = srv_hash_next(&cl->routes, n);
    route *rt = srv_hash_entry(n, route, hnode);
    if (!rt->looking && rt->head == NULL && rt->owner[0] == '\0')
      route_free(cl, rt);
    n = next;
  }
}

void srv_cluster__routes_free(srv_cluster *cl) {
  srv_hash_node *n;
  while ((n = srv_hash_first(&cl->routes)) != NULL)
    route_free(cl, srv_hash_entry(n, route, hnode));
  while ((n = srv_hash_first(&cl->routed)) != NULL) {
    routed *r = srv_hash_entry(n, routed, hnode);
    r->c->route_id = 0;
    srv_hash_remove(&cl->routed, n);
    free(r);
  }
  /* Left at the stop (srv_cluster__standins_drop()): only their memory is left. */
  while ((n = srv_hash_first(&cl->standins)) != NULL) {
    srv_hash_remove(&cl->standins, n);
    free(srv_hash_entry(n, standin, hnode));
  }
}

void srv_cluster__standins_drop(srv_cluster *cl) {
  srv_hash_node *n;
  while ((n = srv_hash_first(&cl->standins)) != NULL)
    standin_gone(cl, srv_hash_entry(n, standin, hnode));
}
