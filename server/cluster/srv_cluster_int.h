/* What the cluster's files share (srv_cluster.h): srv_cluster.c (the node: Redis, presence, the
 * tick, the messages between nodes, the stop), srv_cluster_lease.c (leases, codes reserved,
 * take-over), srv_cluster_route.c (commands to the owner, stand-ins, frames back),
 * srv_cluster_lobby.c (the lobby and quick play), srv_cluster_mine.c (games in progress). */
#ifndef SRV_CLUSTER_INT_H
#define SRV_CLUSTER_INT_H

#include "srv_cluster.h"
#include "srv_frame.h"
#include "srv_hash.h"
#include "srv_reader.h"
#include "srv_redis.h"

#define NODE_ID_LEN 16
#define KEY_SIZE 64

/* A room this node runs or is taking (mancala:lease:CODE = this node's id). */
typedef struct lease {
  char code[SRV_CODE_LEN + 1];
  srv_hash_node hnode;
  bool held;           /* Confirmed by Redis (false: being taken). */
  bool recovering;     /* Its room is being read from the store (a take-over under way). */
  uint64_t renewed_ms; /* Loop time of the last confirmation. */
} lease;

/* A command of one of this node's connections waiting for its room's owner to be known. */
typedef struct pending {
  struct pending *next;
  uint64_t conn;     /* The connection's route_id (it may be gone meanwhile). */
  srv_cmd_type type; /* For the error when it cannot go anywhere. */
  srv_req_id id;
  bool reattach; /* Made here to bring a member back into its room (no answer owed). */
  int hops;      /* Times it came back from a node that did not run its room. */
  size_t len;
  char frame[]; /* The command as the client sent it. */
} pending;

/* What this node knows about a room run elsewhere (or being looked up). */
typedef struct route {
  char code[SRV_CODE_LEN + 1];
  srv_hash_node hnode;
  char owner[NODE_ID_LEN + 1]; /* "" while unknown. */
  bool looking;                /* A lookup (or a take-over) is under way. */
  pending *head, *tail;        /* Waiting for it, in order. */
} route;

/* The rooms run elsewhere one of this node's connections is in. */
#define ROUTED_ROOMS 16
typedef struct routed {
  srv_client *c;
  srv_hash_node hnode; /* By c->route_id. */
  int n;
  struct {
    char code[SRV_CODE_LEN + 1];
    char owner[NODE_ID_LEN + 1];
  } in[ROUTED_ROOMS];
} routed;

/* A command for a stand-in kept while its player's account is read. */
typedef struct held_msg {
  struct held_msg *next;
  size_t len;
  char msg[];
} held_msg;

/* A connection of another node, here for the rooms it sent commands to. */
typedef struct standin {
  srv_client client; /* client.remote points back here. */
  srv_hash_node hnode;
  char node[NODE_ID_LEN + 1];
  uint64_t conn;
  /* While its player's account is read (off the loop): the player (a reference; client.player is
   * still NULL), its name as its node knows it, and the commands that came meanwhile, in order. */
  srv_player *loading;
  char name[SRV_NAME_SIZE];
  held_msg *held_head, *held_tail;
} standin;

/* A frame for a stand-in, published to its node once the storage batch of its turn is committed
 * (srv_cluster_release()), after the frames queued before it for the same connection. */
typedef struct outgoing {
  struct outgoing *next;
  char node[NODE_ID_LEN + 1];
  uint64_t conn;
  uint64_t stamp; /* The network layer's stamp when it was queued (srv_cluster_deps.stamp). */
  srv_frame *frame;
  /* While srv_cluster_release() walks the frames: the first frame of its connection held back,
   * in cl->held_conns, so that the connection's later frames wait behind it; the next such. */
  srv_hash_node hnode;
  struct outgoing *held_next;
} outgoing;

typedef struct srv_cluster_lobby srv_cluster_lobby;
typedef struct srv_cluster_mine srv_cluster_mine;

struct srv_cluster {
  srv_cluster_config cfg;
  char url[256];
  srv_cluster_deps d;
  srv_redis *redis;
  srv_reader *reader; /* PostgreSQL's reads off the loop (srv_reader.h): a resumed hello's rooms. */
  char node[NODE_ID_LEN + 1];
  char channel[KEY_SIZE]; /* mancala:to:<node> */
  int lane;
  uv_timer_t tick;
  uint64_t ticks;
  srv_hash leases;   /* lease, by code */
  long held;         /* Of them, confirmed by Redis (the others are being taken). */
  srv_hash routes;   /* route, by code */
  srv_hash routed;   /* routed, by route_id */
  srv_hash standins; /* standin, by node and conn */
  uint64_t next_conn;
  outgoing *out_head, *out_tail; /* Frames for stand-ins not published yet, oldest first. */
  srv_hash held_conns;           /* outgoing, by node and conn: see outgoing.hnode. */
  bool bypass;                   /* Running a command here that the router already saw. */
  bool stopping;
  uint64_t peers_from; /* Other nodes' presence is judged from this loop time on. */
  int stop_left;       /* Answers the stop still waits for. */
  void (*stop_done)(void *);
  void *stop_arg;
  srv_cluster_stats stats;
  bool sweeping; /* A sweep is under way (srv_cluster_sweep.c); sweep_left: its takes. */
  int sweep_left;
  char renew_sha[41];       /* The renewal script's SHA1 once Redis loaded it ("": not yet). */
  srv_cluster_lobby *lobby; /* srv_cluster_lobby.c */
  srv_cluster_mine *mine;   /* srv_cluster_mine.c */
};

/* srv_cluster.c */
uint64_t srv_cluster__now(const srv_cluster *cl);
void srv_cluster__key(char out[KEY_SIZE], const char *prefix, const char *name);
/* Runs frame (len bytes; a command of c's) here, past the router. */
void srv_cluster__run_here(srv_cluster *cl, srv_client *c, const char *frame, size_t len);

/* srv_cluster_route.c: publishes the frames for stand-ins that leave with cut (see
 * srv_cluster_release()). */
void srv_cluster__publish(srv_cluster *cl, uint64_t cut);
/* Takes out of cl's frames for stand-ins those that leave with cut: stamped up to cut, and not
 * queued after a frame of the same connection that stays. Returns them in the order they were
 * queued (linked by next; the caller owns them); the others stay, in order. */
outgoing *srv_cluster__released(srv_cluster *cl, uint64_t cut);

/* srv_cluster_lease.c */
lease *srv_cluster__lease(srv_cluster *cl, const char *code);
/* Takes (SET NX PX) the lease of code for this node; done(cl, code, ok, owner) on the loop:
 * ok, or the node that holds it ("" when Redis did not answer). */
typedef void (*srv_cluster_take_fn)(srv_cluster *cl, const char *code, bool ok, const char *owner,
                                    void *arg);
int srv_cluster__take(srv_cluster *cl, const char *code, srv_cluster_take_fn done, void *arg);
void srv_cluster__drop_lease(srv_cluster *cl, const char *code, bool release);
/* create and quick: a code reserved first. Returns 1 (taken) or a negative code. */
int srv_cluster__reserve(srv_cluster *cl, srv_client *c, const srv_cmd *cmd, const char *buf,
                         size_t len);
/* Brings room code back from the store as its owner (its lease is this node's, held): the claim of
 * its game and its reads through the cluster's reader, off the loop; then done(cl, code, rc, arg)
 * on the loop with 0 (the room runs here), SRV_ENOTFOUND (no such open room), SRV_EUNAVAILABLE
 * (its lease went meanwhile, or the node stops: then done must not use Redis any more),
 * SRV_ESTORAGE or SRV_ENOMEM.
 * Returns 0 (under way), SRV_EBUSY (under way for another caller: the room comes), or an error
 * (done not called). */
typedef void (*srv_cluster_taken_fn)(srv_cluster *cl, const char *code, int rc, void *arg);
int srv_cluster__take_over(srv_cluster *cl, const char *code, srv_cluster_taken_fn done, void *arg);
/* Loads the renewal script into Redis (at start and whenever Redis is up again). */
void srv_cluster__leases_load(srv_cluster *cl);
void srv_cluster__leases_tick(srv_cluster *cl, bool renew);
void srv_cluster__leases_stop(srv_cluster *cl, void (*answered)(void *, const redisReply *));
void srv_cluster__leases_free(srv_cluster *cl);

/* srv_cluster_lobby.c */
int srv_cluster__lobby_new(srv_cluster *cl);
void srv_cluster__lobby_free(srv_cluster *cl);
void srv_cluster__lobby_message(srv_cluster *cl, const char *msg, size_t len);
void srv_cluster__lobby_tick(srv_cluster *cl, bool renew);
void srv_cluster__lobby_node_dead(srv_cluster *cl, const char *node);
/* The stop: this node's rooms leave the other nodes' lists. */
void srv_cluster__lobby_stop(srv_cluster *cl);
/* The code of a room waiting in quick play's pool on another node, or NULL. */
const char *srv_cluster__lobby_seek(srv_cluster *cl, int pool);

/* srv_cluster_mine.c */
int srv_cluster__mine_new(srv_cluster *cl);
void srv_cluster__mine_free(srv_cluster *cl);
/* The stop: the rooms and the players' lists are left alone (before they go). */
void srv_cluster__mine_stop(srv_cluster *cl);
/* A notice on mancala:mine. */
void srv_cluster__mine_message(srv_cluster *cl, const char *msg, size_t len);
/* The end of a turn: the entries of the rooms that changed written to Redis. */
void srv_cluster__mine_flush(srv_cluster *cl);

/* srv_cluster_sweep.c */
/* The node joins mancala:nodes (at start, and when Redis is up again). */
void srv_cluster__sweep_join(srv_cluster *cl);
/* Rooms of gone nodes taken over here, SWEEP_RATE at most. */
void srv_cluster__sweep_tick(srv_cluster *cl);

/* srv_cluster_route.c */
/* c's entry among the connections routed elsewhere, made (with its route_id) when new; NULL when
 * memory ran out. */
routed *srv_cluster__routed_of(srv_cluster *cl, srv_client *c);
/* c joins room code (as a player: its seat if it holds one) wherever it runs, the answer carrying
 * id. Returns 1 (under way) or a negative code. */
int srv_cluster__join(srv_cluster *cl, srv_client *c, const char *code, const srv_req_id *id);
/* The connection of this node named conn, or NULL (gone). */
srv_client *srv_cluster__client(srv_cluster *cl, uint64_t conn);
int srv_cluster__route(void *ud, srv_client *c, const srv_cmd *cmd, const char *buf, size_t len);
void srv_cluster__gone(void *ud, srv_client *c);
void srv_cluster__resumed(void *ud, srv_client *c);
void srv_cluster__queue(void *ud, srv_client *to, srv_frame *frame);
void srv_cluster__lost(void *ud, srv_client *to);
void srv_cluster__on_command(srv_cluster *cl, const char *msg, size_t len);
void srv_cluster__on_frame(srv_cluster *cl, const char *msg, size_t len);
void srv_cluster__on_gone(srv_cluster *cl, const char *msg, size_t len);
void srv_cluster__on_moved(srv_cluster *cl, const char *msg, size_t len);
void srv_cluster__on_redirect(srv_cluster *cl, const char *msg, size_t len);
/* A node is gone (its presence lapsed): its stand-ins leave, the rooms it ran are looked up again
 * and this node's members of them brought back. */
void srv_cluster__node_dead(srv_cluster *cl, const char *node);
/* The nodes this one depends on (owners of its routes, nodes of its stand-ins), each once. */
int srv_cluster__peers(srv_cluster *cl, char (*out)[NODE_ID_LEN + 1], int max);
/* The room code left this node (lease lost): its members come back through the new owner. */
void srv_cluster__evicted(srv_cluster *cl, const char *code);
/* A take-over of code ended (rc as srv_cluster__take_over()'s done): the commands of this node's
 * connections waiting for the room run here (or get not_found) or fail, and its members of this
 * node enter it. */
void srv_cluster__taken_over(srv_cluster *cl, const char *code, int rc);
/* Looks up the owner of code again for the commands waiting in r (a retry). */
void srv_cluster__routes_tick(srv_cluster *cl);
void srv_cluster__routes_free(srv_cluster *cl);
/* The stop: every stand-in leaves its rooms (before the rooms go). */
void srv_cluster__standins_drop(srv_cluster *cl);

#endif
