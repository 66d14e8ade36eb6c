/* The lobby (see srv_lobby.h). */
#include "srv_lobby.h"

#include <stdlib.h>

#include "srv_error.h"
#include "srv_list.h"
#include "srv_peer.h"
#include "srv_pool.h"
#include "srv_proto.h"

struct srv_lobby {
  srv_rooms *rooms;
  srv_time *time;
  srv_sink sink;
  srv_list watchers; /* srv_client.watch */
  bool dirty;        /* A room changed since the watchers got the list. */
  bool sent;         /* The list went to the watchers at least once... */
  uint64_t sent_ms;  /* ...last at this time. */
  srv_timer *timer;  /* Sends a change that came too soon after the last list. */
  srv_frame *list;   /* The list as it is now, encoded once for everyone; NULL after a change. */
  int per_addr;      /* Watchers one client address may have; 0: no limit. */
};

/* A room is listed when it is public, for two people, and not finished; a waiting room only while
 * its waiting player is there (nobody should sit down in front of an empty chair). */
static bool listed(const srv_room *room) {
  const srv_room_opts *o = srv_room_opts_of(room);
  srv_status status = srv_room_status(room);
  if (o->visibility != SRV_PUBLIC || o->opponent != SRV_OPP_HUMAN || status == SRV_FINISHED)
    return false;
  if (status == SRV_WAITING)
    return srv_room_seat_connected(room, MC_SOUTH) || srv_room_seat_connected(room, MC_NORTH);
  return true;
}

/* Quick play's pools with the players waiting in each: the listed waiting rooms of a pool's
 * settings, those quick play would pair with. */
static void count_pools(const srv_lobby *lobby, srv_pool_view pool[SRV_POOLS]) {
  for (int i = 0; i < SRV_POOLS; i++)
    srv_pool_get(i, &pool[i]);
  for (const srv_room *r = srv_rooms_first(lobby->rooms); r != NULL; r = srv_rooms_next(r)) {
    if (srv_room_status(r) != SRV_WAITING || !listed(r))
      continue;
    int i = srv_pool_of(srv_room_opts_of(r));
    if (i >= 0)
      pool[i].waiting++;
  }
}

/* Encodes the list as it is now. Returns a new frame, or NULL when memory runs out. */
static srv_frame *encode(srv_lobby *lobby) {
  size_t n = 0;
  for (const srv_room *r = srv_rooms_first(lobby->rooms); r != NULL; r = srv_rooms_next(r))
    n += listed(r) ? 1 : 0;
  srv_lobby_entry *entries = calloc(n ? n : 1, sizeof *entries);
  if (entries == NULL)
    return NULL;
  size_t i = 0;
  for (const srv_room *r = srv_rooms_first(lobby->rooms); r != NULL; r = srv_rooms_next(r)) {
    if (!listed(r))
      continue;
    srv_lobby_entry *e = &entries[i++];
    e->room = srv_room_code(r);
    e->opts = srv_room_opts_of(r);
    for (int s = 0; s < 2; s++) {
      const srv_player *p = srv_room_seat(r, s);
      e->names[s] = p ? p->name : NULL;
      e->seats[s] = p;
    }
    e->status = srv_room_status(r);
    e->spectators = srv_room_spectators(r);
  }
  srv_event ev = {.type = SRV_EV_LOBBY};
  ev.u.lobby.rooms = entries;
  ev.u.lobby.n = n;
  srv_pool_view pool[SRV_POOLS];
  count_pools(lobby, pool);
  ev.u.lobby.pools = pool;
  ev.u.lobby.npools = SRV_POOLS;
  srv_frame *f = srv_proto_encode(&ev);
  free(entries);
  return f;
}

static void watch(srv_lobby *lobby, srv_client *c, bool on) {
  if (on && !srv_list_linked(&c->watch)) {
    srv_list_push_front(&lobby->watchers, &c->watch);
    if (c->peer != NULL)
      c->peer->watchers++;
  } else if (!on && srv_list_linked(&c->watch)) {
    srv_list_remove(&c->watch);
    if (c->peer != NULL)
      c->peer->watchers--;
  }
}

void srv_lobby_set_limit(srv_lobby *lobby, int watchers_per_addr) {
  lobby->per_addr = watchers_per_addr;
}

/* The list as it is now (borrowed), encoded at most once per change; NULL when memory runs out. */
static srv_frame *current(srv_lobby *lobby) {
  if (lobby->list == NULL)
    lobby->list = encode(lobby);
  return lobby->list;
}

int srv_lobby_request(srv_lobby *lobby, srv_client *c, const srv_cmd *cmd) {
  if (cmd->watch && !srv_list_linked(&c->watch) && c->peer != NULL && lobby->per_addr > 0 &&
      c->peer->watchers >= lobby->per_addr)
    return SRV_EWATCHERS;
  srv_frame *list = current(lobby);
  srv_frame *f = NULL;
  if (list != NULL)
    f = cmd->id.kind != SRV_ID_NONE ? srv_proto_with_id(list, &cmd->id) : srv_frame_ref(list);
  if (f == NULL)
    return SRV_ENOMEM;
  srv_send_frame(&lobby->sink, c, f);
  srv_frame_unref(f);
  watch(lobby, c, cmd->watch);
  return 0;
}

void srv_lobby_flush(srv_lobby *lobby) {
  if (!lobby->dirty)
    return;
  if (srv_list_empty(&lobby->watchers)) {
    lobby->dirty = false;
    return;
  }
  uint64_t now = lobby->time->now(lobby->time);
  if (lobby->sent && now < lobby->sent_ms + SRV_LOBBY_EVERY_MS) {
    lobby->time->timer_start(lobby->timer, lobby->sent_ms + SRV_LOBBY_EVERY_MS - now);
    return;
  }
  srv_frame *f = current(lobby);
  if (f == NULL)
    return; /* Out of memory: try again next time. */
  srv_list_foreach (it, &lobby->watchers) {
    srv_send_frame(&lobby->sink, srv_list_entry(it, srv_client, watch), f);
  }
  lobby->dirty = false;
  lobby->sent = true;
  lobby->sent_ms = now;
}

static void on_timer(void *arg) {
  srv_lobby_flush(arg);
}

/* The rooms' observer. A room that stops being listed (finished, closed) changes the list too:
 * mark always, the flush is cheap when nobody watches. */
static void on_changed(void *ud, const srv_room *room) {
  (void)room;
  srv_lobby *lobby = ud;
  lobby->dirty = true;
  srv_frame_unref(lobby->list);
  lobby->list = NULL;
}

void srv_lobby_client_gone(srv_lobby *lobby, srv_client *c) {
  watch(lobby, c, false);
}

srv_lobby *srv_lobby_new(srv_rooms *rooms, srv_time *time, const srv_sink *sink) {
  srv_lobby *lobby = calloc(1, sizeof *lobby);
  if (lobby == NULL)
    return NULL;
  lobby->rooms = rooms;
  lobby->time = time;
  lobby->sink = *sink;
  srv_list_init(&lobby->watchers);
  lobby->timer = srv_timer_new(time, on_timer, lobby);
  if (lobby->timer == NULL) {
    free(lobby);
    return NULL;
  }
  srv_room_observer obs = {on_changed, NULL, lobby};
  if (srv_rooms_add_observer(rooms, &obs) != 0) {
    lobby->time->timer_free(lobby->timer);
    free(lobby);
    return NULL;
  }
  return lobby;
}

void srv_lobby_free(srv_lobby *lobby) {
  if (lobby == NULL)
    return;
  srv_rooms_remove_observer(lobby->rooms, lobby);
  lobby->time->timer_free(lobby->timer);
  srv_frame_unref(lobby->list);
  free(lobby);
}
