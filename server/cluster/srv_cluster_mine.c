/* "Games in progress" across nodes (srv_cluster.h): a player's my_rooms list shows its unfinished
 * rooms whichever node runs them.
 *
 * - The owner writes: each room of this node that changed in a turn (the rooms' observer) has, at
 *   the end of the turn, its entry (srv_proto_my_room_entry(), as that player's list shows it)
 *   written for each seated player into the hash mancala:mine:PLAYER (field the room's code, value
 *   "NODE\tJSON"), and deleted from it when the room is finished, closed or left, or the player
 *   lost the seat. Each write says so on the channel mancala:mine ("NODE PLAYER"). A delete only
 *   deletes the node's own value: a room that moved to another node keeps the new owner's entry.
 *   The hash expires a day after its last write; the entries of a node that died stay (its games
 *   are still unfinished; the node that takes a room over writes it again).
 * - The reader keeps, while one of its connections watches (or asks for) a player's list, that
 *   player's entries of other nodes: fetched (HGETALL) before a request is answered, and again on
 *   every notice of another node about that player, which marks its watchers here
 *   (srv_myrooms_player_changed()). Its own entries and the codes it runs are left out (its own
 *   rooms are listed from memory, fresher).
 */
#include "srv_cluster_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_log.h"
#include "srv_proto.h"

#define MINE_CHANNEL "mancala:mine"
#define MINE_TTL_MS "86400000" /* A day after its last write. */
#define PLAYER_LEN SRV_PLAYER_ID_CHARS

/* Writes a room's entry for one player and says so. */
static const char set_script[] =
    "redis.call('hset', KEYS[1], ARGV[1], ARGV[2]) redis.call('pexpire', KEYS[1], ARGV[3]) "
    "redis.call('publish', '" MINE_CHANNEL "', ARGV[4]) return 1";
/* Deletes it when it is still this node's (ARGV[2] is "NODE\t"), and says so. */
static const char del_script[] =
    "local v = redis.call('hget', KEYS[1], ARGV[1]) "
    "if v and string.sub(v, 1, #ARGV[2]) == ARGV[2] then redis.call('hdel', KEYS[1], ARGV[1]) "
    "redis.call('publish', '" MINE_CHANNEL "', ARGV[3]) return 1 end return 0";

/* A room of this node listed (or to be listed) in its players' lists in Redis. */
typedef struct mine_room {
  char code[SRV_CODE_LEN + 1];
  srv_hash_node hnode;
  char listed[2][PLAYER_LEN + 1]; /* The players it is listed for ("": none). */
  bool dirty;
  struct mine_room *next_dirty;
} mine_room;

/* One entry of another node's room in a player's list. */
typedef struct mine_entry {
  char code[SRV_CODE_LEN + 1];
  char node[NODE_ID_LEN + 1];
  char *json;
  size_t len;
} mine_entry;

/* A player whose list is watched (or asked for) here: its rooms on other nodes. */
typedef struct mine_player {
  char id[PLAYER_LEN + 1];
  srv_hash_node hnode;
  mine_entry *entries;
  size_t n;
  srv_lobby_text *shown; /* What entries() last returned. */
  bool fetching;         /* A refresh is under way; again: another notice came meanwhile. */
  bool again;
} mine_player;

struct srv_cluster_mine {
  srv_hash rooms;   /* mine_room, by code */
  srv_hash players; /* mine_player, by id */
  mine_room *dirty;
  bool attached; /* Observing the rooms, the players' lists' remote. */
};

static bool room_is(const srv_hash_node *n, const void *code) {
  return strcmp(srv_hash_entry(n, mine_room, hnode)->code, code) == 0;
}

static bool player_is(const srv_hash_node *n, const void *id) {
  return strcmp(srv_hash_entry(n, mine_player, hnode)->id, id) == 0;
}

static mine_player *player_find(srv_cluster *cl, const char *id) {
  srv_hash_node *n = srv_hash_find(&cl->mine->players, srv_hash_str(id), player_is, id);
  return n != NULL ? srv_hash_entry(n, mine_player, hnode) : NULL;
}

static void entries_free(mine_entry *e, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(e[i].json);
  free(e);
}

static void player_free(mine_player *p) {
  entries_free(p->entries, p->n);
  free(p->shown);
  free(p);
}

/* ---- The owner: its rooms' entries written for their players ------------------------------- */

static void on_room_changed(void *ud, const srv_room *room) {
  srv_cluster *cl = ud;
  const char *code = srv_room_code(room);
  srv_hash_node *n = srv_hash_find(&cl->mine->rooms, srv_hash_str(code), room_is, code);
  mine_room *r = n != NULL ? srv_hash_entry(n, mine_room, hnode) : NULL;
  if (r == NULL) {
    if ((r = calloc(1, sizeof *r)) == NULL)
      return; /* Its players' lists elsewhere miss it until its next change. */
    snprintf(r->code, sizeof r->code, "%s", code);
    srv_hash_insert(&cl->mine->rooms, &r->hnode, srv_hash_str(r->code));
  }
  if (!r->dirty) {
    r->dirty = true;
    r->next_dirty = cl->mine->dirty;
    cl->mine->dirty = r;
  }
}

static void notice(char out[NODE_ID_LEN + PLAYER_LEN + 2], const srv_cluster *cl, const char *id) {
  snprintf(out, NODE_ID_LEN + PLAYER_LEN + 2, "%.*s %.*s", NODE_ID_LEN, cl->node, PLAYER_LEN, id);
}

static void entry_delete(srv_cluster *cl, const char *code, const char *player) {
  char key[KEY_SIZE], mine[NODE_ID_LEN + 2], note[NODE_ID_LEN + PLAYER_LEN + 2];
  srv_cluster__key(key, "mine", player);
  snprintf(mine, sizeof mine, "%s\t", cl->node);
  notice(note, cl, player);
  const char *argv[] = {"EVAL", del_script, "1", key, code, mine, note};
  (void)srv_redis_command(cl->redis, NULL, NULL, 7, argv, NULL);
}

/* Writes e for player; false when it could not be sent. */
static bool entry_write(srv_cluster *cl, const srv_my_room *e, const char *player) {
  char *json;
  size_t len;
  if (srv_proto_my_room_entry(e, &json, &len) != 0)
    return false;
  size_t nl = strlen(cl->node);
  char *value = malloc(nl + 1 + len);
  if (value == NULL) {
    free(json);
    return false;
  }
  memcpy(value, cl->node, nl);
  value[nl] = '\t';
  memcpy(value + nl + 1, json, len);
  free(json);
  char key[KEY_SIZE], note[NODE_ID_LEN + PLAYER_LEN + 2];
  srv_cluster__key(key, "mine", player);
  notice(note, cl, player);
  const char *argv[] = {"EVAL", set_script, "1", key, e->room, value, MINE_TTL_MS, note};
  size_t lens[] = {4,
                   strlen(set_script),
                   1,
                   strlen(key),
                   strlen(e->room),
                   nl + 1 + len,
                   strlen(MINE_TTL_MS),
                   strlen(note)};
  int rc = srv_redis_command(cl->redis, NULL, NULL, 8, argv, lens);
  free(value);
  return rc == 0;
}

/* Room r's entries brought up to date: written for its seated players, deleted for the others. */
static void room_flush(srv_cluster *cl, mine_room *r) {
  srv_room *room = srv_rooms_find(cl->d.rooms, r->code);
  char now[2][PLAYER_LEN + 1] = {"", ""};
  srv_my_room e[2];
  for (int s = 0; s < 2 && room != NULL; s++) {
    const srv_player *p = srv_room_seat(room, s == 0 ? MC_SOUTH : MC_NORTH);
    if (p == NULL || (s == 1 && strcmp(now[0], p->id) == 0) || !srv_myrooms_entry(room, p, &e[s]))
      continue;
    snprintf(now[s], sizeof now[s], "%s", p->id);
  }
  for (int i = 0; i < 2; i++) {
    if (r->listed[i][0] == '\0' || strcmp(r->listed[i], now[0]) == 0 ||
        strcmp(r->listed[i], now[1]) == 0)
      continue;
    entry_delete(cl, r->code, r->listed[i]);
  }
  for (int s = 0; s < 2; s++) {
    if (now[s][0] != '\0' && !entry_write(cl, &e[s], now[s]))
      now[s][0] = '\0'; /* Not listed: written again at its next change. */
    memcpy(r->listed[s], now[s], sizeof r->listed[s]);
  }
  if (now[0][0] == '\0' && now[1][0] == '\0') {
    srv_hash_remove(&cl->mine->rooms, &r->hnode);
    free(r);
  }
}

void srv_cluster__mine_flush(srv_cluster *cl) {
  if (cl->mine == NULL || cl->redis == NULL || cl->stopping || cl->mine->dirty == NULL)
    return;
  if (!srv_redis_up(cl->redis))
    return; /* Written when Redis is back (the dirty rooms wait). */
  mine_room *r = cl->mine->dirty;
  cl->mine->dirty = NULL;
  while (r != NULL) {
    mine_room *next = r->next_dirty;
    r->dirty = false;
    r->next_dirty = NULL;
    room_flush(cl, r);
    r = next;
  }
}

/* ---- The reader: other nodes' rooms in the lists watched here ------------------------------- */

/* Parses an HGETALL answer (code, "NODE\tJSON", ...) into entries; false when memory ran out. */
static bool parse(const redisReply *reply, mine_entry **out, size_t *n) {
  *out = NULL;
  *n = 0;
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements < 2)
    return true;
  mine_entry *e = calloc(reply->elements / 2, sizeof *e);
  if (e == NULL)
    return false;
  size_t k = 0;
  for (size_t i = 0; i + 1 < reply->elements; i += 2) {
    const redisReply *f = reply->element[i], *v = reply->element[i + 1];
    if (f->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING || f->len != SRV_CODE_LEN)
      continue;
    const char *tab = memchr(v->str, '\t', v->len);
    if (tab == NULL || tab == v->str || (size_t)(tab - v->str) > NODE_ID_LEN)
      continue;
    size_t jl = v->len - (size_t)(tab - v->str) - 1;
    if (jl < 2 || tab[1] != '{')
      continue;
    if ((e[k].json = malloc(jl)) == NULL) {
      entries_free(e, k);
      return false;
    }
    memcpy(e[k].json, tab + 1, jl);
    e[k].len = jl;
    memcpy(e[k].code, f->str, SRV_CODE_LEN);
    e[k].code[SRV_CODE_LEN] = '\0';
    memcpy(e[k].node, v->str, (size_t)(tab - v->str));
    e[k].node[tab - v->str] = '\0';
    k++;
  }
  *out = e;
  *n = k;
  return true;
}

static mine_player *player_get(srv_cluster *cl, const char *id) {
  mine_player *p = player_find(cl, id);
  if (p != NULL)
    return p;
  if ((p = calloc(1, sizeof *p)) == NULL)
    return NULL;
  snprintf(p->id, sizeof p->id, "%s", id);
  srv_hash_insert(&cl->mine->players, &p->hnode, srv_hash_str(p->id));
  return p;
}

/* A fetch of a player's hash: to answer a request (conn nonzero), or a refresh. */
typedef struct mine_fetch {
  srv_cluster *cl;
  char player[PLAYER_LEN + 1];
  uint64_t conn;
  srv_req_id id;
} mine_fetch;

static int fetch_send(srv_cluster *cl, mine_fetch *f);

static void fetched(void *arg, const redisReply *reply) {
  mine_fetch *f = arg;
  srv_cluster *cl = f->cl;
  if (cl->stopping || cl->mine == NULL) {
    free(f);
    return;
  }
  mine_entry *e = NULL;
  size_t n = 0;
  bool read = reply != NULL && parse(reply, &e, &n);
  if (f->conn != 0) {
    srv_client *c = srv_cluster__client(cl, f->conn);
    if (c != NULL && c->player != NULL && strcmp(c->player->id, f->player) == 0) {
      mine_player *p = read ? player_get(cl, f->player) : NULL;
      if (p != NULL) {
        entries_free(p->entries, p->n);
        p->entries = e;
        p->n = n;
        e = NULL;
        n = 0;
      }
      /* Unread (Redis down, memory): what is known, this node's rooms at least. */
      srv_myrooms_answer(cl->d.myrooms, c, &f->id);
    }
  } else {
    mine_player *p = player_find(cl, f->player);
    if (p != NULL) {
      p->fetching = false;
      if (read) {
        entries_free(p->entries, p->n);
        p->entries = e;
        p->n = n;
        e = NULL;
        n = 0;
        srv_player *pl = srv_ident_find_id(cl->d.ident, p->id);
        if (pl != NULL)
          srv_myrooms_player_changed(cl->d.myrooms, pl);
      }
      if (p->again) {
        p->again = false;
        mine_fetch *g = malloc(sizeof *g);
        if (g != NULL) {
          *g = (mine_fetch){cl, "", 0, {0}};
          memcpy(g->player, p->id, sizeof g->player);
          if (fetch_send(cl, g) == 0)
            p->fetching = true;
          else
            free(g);
        }
      }
    }
  }
  entries_free(e, n);
  free(f);
}

static int fetch_send(srv_cluster *cl, mine_fetch *f) {
  char key[KEY_SIZE];
  srv_cluster__key(key, "mine", f->player);
  const char *argv[] = {"HGETALL", key};
  return srv_redis_command(cl->redis, fetched, f, 2, argv, NULL);
}

/* A notice of another node: "NODE PLAYER". */
void srv_cluster__mine_message(srv_cluster *cl, const char *msg, size_t len) {
  const char *sp = memchr(msg, ' ', len);
  if (sp == NULL || (size_t)(sp - msg) > NODE_ID_LEN || len - (size_t)(sp - msg) - 1 > PLAYER_LEN)
    return;
  char node[NODE_ID_LEN + 1], id[PLAYER_LEN + 1];
  snprintf(node, sizeof node, "%.*s", (int)(sp - msg), msg);
  snprintf(id, sizeof id, "%.*s", (int)(len - (size_t)(sp - msg) - 1), sp + 1);
  if (strcmp(node, cl->node) == 0)
    return; /* Its own rooms are listed from memory. */
  mine_player *p = player_find(cl, id);
  if (p == NULL)
    return; /* Nobody here watches that list. */
  if (p->fetching) {
    p->again = true;
    return;
  }
  mine_fetch *f = malloc(sizeof *f);
  if (f == NULL)
    return;
  *f = (mine_fetch){cl, "", 0, {0}};
  memcpy(f->player, p->id, sizeof f->player);
  if (fetch_send(cl, f) != 0)
    free(f);
  else
    p->fetching = true;
}

static int remote_fetch(void *ud, srv_client *c, const srv_req_id *id) {
  srv_cluster *cl = ud;
  if (cl->stopping || c->player == NULL || !srv_redis_up(cl->redis) ||
      srv_cluster__routed_of(cl, c) == NULL)
    return 0;
  mine_fetch *f = malloc(sizeof *f);
  if (f == NULL)
    return 0;
  *f = (mine_fetch){cl, "", c->route_id, *id};
  snprintf(f->player, sizeof f->player, "%s", c->player->id);
  if (fetch_send(cl, f) != 0) {
    free(f);
    return 0;
  }
  return 1;
}

static size_t remote_entries(void *ud, const srv_player *pl, const srv_lobby_text **out) {
  srv_cluster *cl = ud;
  *out = NULL;
  mine_player *p = player_find(cl, pl->id);
  if (p == NULL || p->n == 0)
    return 0;
  free(p->shown);
  if ((p->shown = calloc(p->n, sizeof *p->shown)) == NULL)
    return 0;
  size_t k = 0;
  for (size_t i = 0; i < p->n; i++) {
    const mine_entry *e = &p->entries[i];
    if (strcmp(e->node, cl->node) == 0 || srv_rooms_find(cl->d.rooms, e->code) != NULL)
      continue; /* This node's own: listed from memory when it still runs it. */
    p->shown[k++] = (srv_lobby_text){e->json, e->len};
  }
  *out = p->shown;
  return k;
}

static void remote_forget(void *ud, const srv_player *pl) {
  srv_cluster *cl = ud;
  mine_player *p = player_find(cl, pl->id);
  if (p == NULL)
    return;
  srv_hash_remove(&cl->mine->players, &p->hnode);
  player_free(p);
}

/* ---- Start and end ------------------------------------------------------------------------- */

/* The rooms and the players' lists are left alone (before they go, at the stop). */
static void detach(srv_cluster *cl) {
  srv_cluster_mine *m = cl->mine;
  if (m == NULL || !m->attached)
    return;
  m->attached = false;
  srv_rooms_remove_observer(cl->d.rooms, cl);
  srv_myrooms_set_remote(cl->d.myrooms, NULL);
}

void srv_cluster__mine_stop(srv_cluster *cl) {
  detach(cl);
}

int srv_cluster__mine_new(srv_cluster *cl) {
  srv_cluster_mine *m = calloc(1, sizeof *m);
  if (m == NULL)
    return SRV_ENOMEM;
  if (srv_hash_init(&m->rooms, 64) != 0 || srv_hash_init(&m->players, 64) != 0) {
    srv_hash_dispose(&m->rooms);
    free(m);
    return SRV_ENOMEM;
  }
  cl->mine = m;
  if (srv_redis_subscribe(cl->redis, MINE_CHANNEL) != 0)
    return SRV_ENOMEM;
  srv_room_observer obs = {on_room_changed, on_room_changed, cl};
  if (srv_rooms_add_observer(cl->d.rooms, &obs) != 0)
    return SRV_ENOMEM;
  m->attached = true;
  srv_myrooms_remote remote = {remote_fetch, remote_entries, remote_forget, cl};
  srv_myrooms_set_remote(cl->d.myrooms, &remote);
  return 0;
}

void srv_cluster__mine_free(srv_cluster *cl) {
  srv_cluster_mine *m = cl->mine;
  if (m == NULL)
    return;
  detach(cl);
  srv_hash_node *n;
  while ((n = srv_hash_first(&m->rooms)) != NULL) {
    srv_hash_remove(&m->rooms, n);
    free(srv_hash_entry(n, mine_room, hnode));
  }
  while ((n = srv_hash_first(&m->players)) != NULL) {
    srv_hash_remove(&m->players, n);
    player_free(srv_hash_entry(n, mine_player, hnode));
  }
  srv_hash_dispose(&m->rooms);
  srv_hash_dispose(&m->players);
  free(m);
  cl->mine = NULL;
}
