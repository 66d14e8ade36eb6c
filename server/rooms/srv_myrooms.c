/* A player's own games in progress (see srv_myrooms.h). */
#include "srv_myrooms.h"

#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_hash.h"
#include "srv_list.h"
#include "srv_proto.h"

/* A client that watches its list, in the table under its player and, while its list must go out
 * again, in the dirty list. */
typedef struct watcher {
  srv_client *client;
  srv_hash_node hnode; /* m->by_player, under client->player (several watchers a player). */
  srv_list dirty;      /* Linked while marked. */
} watcher;

struct srv_myrooms {
  srv_rooms *rooms;
  srv_sink sink;
  srv_hash by_player; /* watcher.hnode */
  srv_list dirty;
  srv_myrooms_remote remote; /* fetch NULL: one process. */
};

static bool watcher_is(const srv_hash_node *node, const void *client) {
  return srv_hash_entry(node, watcher, hnode)->client == client;
}

static bool watcher_of(const srv_hash_node *node, const void *player) {
  return srv_hash_entry(node, watcher, hnode)->client->player == player;
}

static watcher *find(const srv_myrooms *m, const srv_client *c) {
  srv_hash_node *node = srv_hash_find(&m->by_player, srv_hash_ptr(c->player), watcher_is, c);
  return node ? srv_hash_entry(node, watcher, hnode) : NULL;
}

/* Marks the watchers of player p (NULL: nobody). */
static void mark(srv_myrooms *m, const srv_player *p) {
  if (p == NULL || srv_hash_count(&m->by_player) == 0)
    return;
  for (srv_hash_node *node = srv_hash_find(&m->by_player, srv_hash_ptr(p), watcher_of, p);
       node != NULL; node = srv_hash_find_next(node, watcher_of, p)) {
    watcher *w = srv_hash_entry(node, watcher, hnode);
    if (!srv_list_linked(&w->dirty))
      srv_list_push_back(&m->dirty, &w->dirty);
  }
}

/* The rooms' observer: a room's seated players see their list again. */
static void on_changed(void *ud, const srv_room *room) {
  srv_myrooms *m = ud;
  mark(m, srv_room_seat(room, MC_SOUTH));
  if (srv_room_seat(room, MC_NORTH) != srv_room_seat(room, MC_SOUTH))
    mark(m, srv_room_seat(room, MC_NORTH));
}

bool srv_myrooms_entry(const srv_room *r, const srv_player *p, srv_my_room *e) {
  srv_status status = srv_room_status(r);
  const srv_player *s = srv_room_seat(r, MC_SOUTH), *nn = srv_room_seat(r, MC_NORTH);
  if (p == NULL || status == SRV_FINISHED || (s != p && nn != p))
    return false;
  const mc_game *game = srv_room_game(r);
  e->room = srv_room_code(r);
  e->opts = srv_room_opts_of(r);
  e->rules = mc_game_rules(game);
  e->status = status;
  e->you = s == p && nn == p ? SRV_SEAT_BOTH : s == p ? MC_SOUTH : MC_NORTH;
  int other = e->you == MC_SOUTH ? MC_NORTH : MC_SOUTH;
  e->opponent = e->you == SRV_SEAT_BOTH ? NULL : srv_room_seat(r, other);
  e->opponent_connected = e->opponent != NULL && srv_room_seat_connected(r, other);
  e->turn = status == SRV_PLAYING ? mc_game_pos(game)->turn : -1;
  e->ply = (long)mc_game_ply(game);
  e->game_no = srv_room_game_no(r);
  return true;
}

/* The list of p's unfinished rooms (this node's, oldest first, then those of other nodes),
 * encoded answering id (NULL: none). NULL when memory runs out. */
static srv_frame *encode(srv_myrooms *m, const srv_player *p, const srv_req_id *id) {
  size_t n = 0, cap = 0;
  srv_my_room *list = NULL;
  for (const srv_room *r = srv_rooms_first(m->rooms); r != NULL; r = srv_rooms_next(r)) {
    srv_my_room e;
    if (!srv_myrooms_entry(r, p, &e))
      continue;
    if (n == cap) {
      size_t grown = cap ? 2 * cap : 8;
      srv_my_room *more = realloc(list, grown * sizeof *more);
      if (more == NULL) {
        free(list);
        return NULL;
      }
      list = more;
      cap = grown;
    }
    list[n++] = e;
  }
  srv_event ev = {.type = SRV_EV_MY_ROOMS, .id = id};
  ev.u.my_rooms.rooms = list;
  ev.u.my_rooms.n = n;
  if (m->remote.entries != NULL)
    ev.u.my_rooms.n_more = m->remote.entries(m->remote.ud, p, &ev.u.my_rooms.more);
  srv_frame *f = srv_proto_encode(&ev);
  free(list);
  return f;
}

/* Sends w's list (answering id, or NULL). */
static int send_list(srv_myrooms *m, srv_client *c, const srv_req_id *id) {
  srv_frame *f = encode(m, c->player, id);
  if (f == NULL) {
    m->sink.lost(m->sink.ud, c);
    return SRV_ENOMEM;
  }
  srv_send_frame(&m->sink, c, f);
  srv_frame_unref(f);
  return 0;
}

static bool watched(const srv_myrooms *m, const srv_player *p) {
  return srv_hash_find(&m->by_player, srv_hash_ptr(p), watcher_of, p) != NULL;
}

static void unwatch(srv_myrooms *m, srv_client *c) {
  watcher *w = find(m, c);
  if (w == NULL)
    return;
  srv_hash_remove(&m->by_player, &w->hnode);
  srv_list_remove(&w->dirty);
  free(w);
  if (m->remote.forget != NULL && !watched(m, c->player))
    m->remote.forget(m->remote.ud, c->player);
}

int srv_myrooms_request(srv_myrooms *m, srv_client *c, const srv_cmd *cmd) {
  if (cmd->watch && find(m, c) == NULL) {
    watcher *w = calloc(1, sizeof *w);
    if (w == NULL)
      return SRV_ENOMEM;
    w->client = c;
    srv_hash_insert(&m->by_player, &w->hnode, srv_hash_ptr(c->player));
  } else if (!cmd->watch) {
    unwatch(m, c);
  }
  if (m->remote.fetch != NULL && m->remote.fetch(m->remote.ud, c, &cmd->id) == 1)
    return 0; /* srv_myrooms_answer() follows. */
  return send_list(m, c, &cmd->id);
}

void srv_myrooms_answer(srv_myrooms *m, srv_client *c, const srv_req_id *id) {
  (void)send_list(m, c, id);
  if (m->remote.forget != NULL && !watched(m, c->player))
    m->remote.forget(m->remote.ud, c->player);
}

void srv_myrooms_player_changed(srv_myrooms *m, const srv_player *p) {
  mark(m, p);
}

void srv_myrooms_set_remote(srv_myrooms *m, const srv_myrooms_remote *remote) {
  if (remote != NULL)
    m->remote = *remote;
  else
    memset(&m->remote, 0, sizeof m->remote);
}

void srv_myrooms_flush(srv_myrooms *m) {
  srv_list *it;
  while ((it = srv_list_first(&m->dirty)) != NULL) {
    watcher *w = srv_list_entry(it, watcher, dirty);
    srv_list_remove(&w->dirty);
    send_list(m, w->client, NULL);
  }
}

void srv_myrooms_client_gone(srv_myrooms *m, srv_client *c) {
  if (c->player != NULL)
    unwatch(m, c);
}

srv_myrooms *srv_myrooms_new(srv_rooms *rooms, const srv_sink *sink) {
  srv_myrooms *m = calloc(1, sizeof *m);
  if (m == NULL)
    return NULL;
  m->rooms = rooms;
  m->sink = *sink;
  srv_list_init(&m->dirty);
  if (srv_hash_init(&m->by_player, 64) != 0) {
    free(m);
    return NULL;
  }
  srv_room_observer obs = {on_changed, on_changed, m};
  if (srv_rooms_add_observer(rooms, &obs) != 0) {
    srv_hash_dispose(&m->by_player);
    free(m);
    return NULL;
  }
  return m;
}

void srv_myrooms_free(srv_myrooms *m) {
  if (m == NULL)
    return;
  srv_rooms_remove_observer(m->rooms, m);
  for (srv_hash_node *node = srv_hash_first(&m->by_player), *next; node != NULL; node = next) {
    next = srv_hash_next(&m->by_player, node);
    free(srv_hash_entry(node, watcher, hnode));
  }
  srv_hash_dispose(&m->by_player);
  free(m);
}
