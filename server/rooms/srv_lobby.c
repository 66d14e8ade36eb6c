/* The lobby (see srv_lobby.h). */
#include "srv_lobby.h"

#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_list.h"
#include "srv_peer.h"
#include "srv_pool.h"
#include "srv_proto.h"

/* The games, in mc_kind order: Kalah, Oware, Congkak. */
#define KINDS 3

/* One room of a list as it was sent: its code and its entry's text. */
typedef struct item {
  char code[SRV_CODE_LEN + 1];
  char *json;
  size_t len;
} item;

/* A list: the rooms it shows (oldest first), the listed rooms it leaves out per game, and quick
 * play's pools with their counts. */
typedef struct view {
  item *items;
  size_t n;
  int more[KINDS];
  srv_pool_view pools[SRV_POOLS];
} view;

struct srv_lobby {
  srv_rooms *rooms;
  srv_time *time;
  srv_sink sink;
  srv_list watchers; /* srv_client.watch: of whole lists and of changes (watch_changes). */
  int nchanges;      /* Of them, the watchers of changes. */
  bool dirty;        /* A room changed since the watchers got the list. */
  bool sent;         /* The list went to the watchers at least once... */
  uint64_t sent_ms;  /* ...last at this time. */
  srv_timer *timer;  /* Sends a change that came too soon after the last list. */
  int per_addr;      /* Watchers one client address may have; 0: no limit. */
  int per_game;      /* Rooms of one game a list shows: the newest. */
  bool stale;        /* A room changed since the last publication. */
  view pub;          /* The list as last published, revision rev. */
  uint64_t rev;
  srv_frame *snapshot; /* pub as a lobby frame with its rev (NULL: never published). */
  uint64_t lists_rev;  /* The revision last sent to the watchers of whole lists. */
  srv_frame *fresh;    /* The list as it is now while stale, for a whole list; NULL: not made. */
  srv_lobby_foreign *foreign; /* Other nodes' listed rooms (srv_lobby_set_foreign()). */
  size_t nforeign;
  bool local_changed; /* A room here changed since srv_lobby_local(). */
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

/* The game of a listed room as an index into KINDS, or -1. */
static int kind_of(const srv_room *room) {
  int k = (int)srv_room_opts_of(room)->rules.kind;
  return k >= 0 && k < KINDS ? k : -1;
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
  for (size_t f = 0; f < lobby->nforeign; f++) {
    const srv_lobby_foreign *e = &lobby->foreign[f];
    if (e->waiting && e->pool >= 0 && e->pool < SRV_POOLS)
      pool[e->pool].waiting++;
  }
}

static void view_free(view *v) {
  for (size_t i = 0; i < v->n; i++)
    free(v->items[i].json);
  free(v->items);
  v->items = NULL;
  v->n = 0;
}

/* Makes *v the list as it is now: of each game, the newest per_game listed rooms (oldest first),
 * and how many it leaves out. Returns 0, or SRV_ENOMEM (*v empty). */
static int collect(const srv_lobby *lobby, view *v) {
  memset(v, 0, sizeof *v);
  int total[KINDS] = {0};
  for (const srv_room *r = srv_rooms_first(lobby->rooms); r != NULL; r = srv_rooms_next(r)) {
    int k = listed(r) ? kind_of(r) : -1;
    if (k >= 0)
      total[k]++;
  }
  for (size_t f = 0; f < lobby->nforeign; f++)
    if (lobby->foreign[f].kind >= 0 && lobby->foreign[f].kind < KINDS)
      total[lobby->foreign[f].kind]++;
  size_t n = 0;
  for (int k = 0; k < KINDS; k++) {
    int shown = total[k] < lobby->per_game ? total[k] : lobby->per_game;
    v->more[k] = total[k] - shown;
    n += (size_t)shown;
  }
  v->items = calloc(n ? n : 1, sizeof *v->items);
  if (v->items == NULL)
    return SRV_ENOMEM;
  int seen[KINDS] = {0};
  for (const srv_room *r = srv_rooms_first(lobby->rooms); r != NULL && v->n < n;
       r = srv_rooms_next(r)) {
    int k = listed(r) ? kind_of(r) : -1;
    if (k < 0 || seen[k]++ < v->more[k])
      continue; /* Not listed, or older than the newest per_game of its game. */
    srv_lobby_entry e = {0};
    e.room = srv_room_code(r);
    e.opts = srv_room_opts_of(r);
    for (int s = 0; s < 2; s++) {
      const srv_player *p = srv_room_seat(r, s);
      e.names[s] = p ? p->name : NULL;
      e.seats[s] = p;
    }
    e.status = srv_room_status(r);
    e.spectators = srv_room_spectators(r);
    item *it = &v->items[v->n];
    if (srv_proto_lobby_entry(&e, &it->json, &it->len) != 0) {
      view_free(v);
      return SRV_ENOMEM;
    }
    memcpy(it->code, e.room, SRV_CODE_LEN);
    it->code[SRV_CODE_LEN] = '\0';
    v->n++;
  }
  /* Other nodes' rooms after this node's (a cluster). */
  for (size_t f = 0; f < lobby->nforeign && v->n < n; f++) {
    const srv_lobby_foreign *e = &lobby->foreign[f];
    int k = e->kind >= 0 && e->kind < KINDS ? e->kind : -1;
    if (k < 0 || seen[k]++ < v->more[k])
      continue;
    item *it = &v->items[v->n];
    if ((it->json = malloc(e->len + 1)) == NULL) {
      view_free(v);
      return SRV_ENOMEM;
    }
    memcpy(it->json, e->json, e->len);
    it->json[e->len] = '\0';
    it->len = e->len;
    memcpy(it->code, e->code, sizeof it->code);
    v->n++;
  }
  count_pools(lobby, v->pools);
  return 0;
}

/* v as a lobby frame (a revision's snapshot when has_rev), or NULL when memory runs out. */
static srv_frame *encode_view(const view *v, bool has_rev, uint64_t rev) {
  srv_lobby_text *t = calloc(v->n ? v->n : 1, sizeof *t);
  if (t == NULL)
    return NULL;
  for (size_t i = 0; i < v->n; i++)
    t[i] = (srv_lobby_text){v->items[i].json, v->items[i].len};
  srv_event ev = {.type = SRV_EV_LOBBY};
  ev.u.lobby.texts = t;
  ev.u.lobby.n = v->n;
  ev.u.lobby.pools = v->pools;
  ev.u.lobby.npools = SRV_POOLS;
  ev.u.lobby.more = v->more;
  ev.u.lobby.nmore = KINDS;
  ev.u.lobby.has_rev = has_rev;
  ev.u.lobby.rev = rev;
  srv_frame *f = srv_proto_encode(&ev);
  free(t);
  return f;
}

static int by_code(const void *a, const void *b) {
  return strcmp((*(const item *const *)a)->code, (*(const item *const *)b)->code);
}

/* Pointers to v's items sorted by code: a new array, or NULL when memory runs out. */
static const item **sorted(const view *v) {
  const item **s = malloc((v->n ? v->n : 1) * sizeof *s);
  if (s == NULL)
    return NULL;
  for (size_t i = 0; i < v->n; i++)
    s[i] = &v->items[i];
  qsort(s, v->n, sizeof *s, by_code);
  return s;
}

enum { SAME = 0, ADDED, UPDATED };

/* The changes from the published list to nv, as revision rev + 1, sent to every watcher of
 * changes. Sets *changed (false: nothing to send, nothing sent). Returns 0 or SRV_ENOMEM. */
static int send_changes(srv_lobby *lobby, const view *nv, bool *changed) {
  const view *old = &lobby->pub;
  int rc = SRV_ENOMEM;
  const item **a = sorted(old), **b = sorted(nv);
  unsigned char *mark = calloc(nv->n ? nv->n : 1, 1);
  srv_lobby_text *add = malloc((nv->n ? nv->n : 1) * sizeof *add);
  srv_lobby_text *upd = malloc((nv->n ? nv->n : 1) * sizeof *upd);
  const char **rem = malloc((old->n ? old->n : 1) * sizeof *rem);
  if (a == NULL || b == NULL || mark == NULL || add == NULL || upd == NULL || rem == NULL)
    goto out;
  /* Merge by code: in nv only, added; in both with another text, updated; in old only, gone. */
  size_t i = 0, j = 0, nadd = 0, nupd = 0, nrem = 0;
  while (i < old->n || j < nv->n) {
    int c = i == old->n ? 1 : j == nv->n ? -1 : strcmp(a[i]->code, b[j]->code);
    if (c < 0) {
      rem[nrem++] = a[i++]->code;
    } else if (c > 0) {
      mark[b[j++] - nv->items] = ADDED;
    } else {
      if (a[i]->len != b[j]->len || memcmp(a[i]->json, b[j]->json, a[i]->len) != 0)
        mark[b[j] - nv->items] = UPDATED;
      i++;
      j++;
    }
  }
  /* Added and updated rooms in the list's order (oldest first). */
  for (size_t k = 0; k < nv->n; k++) {
    srv_lobby_text t = {nv->items[k].json, nv->items[k].len};
    if (mark[k] == ADDED)
      add[nadd++] = t;
    else if (mark[k] == UPDATED)
      upd[nupd++] = t;
  }
  bool pools_changed = false;
  for (int p = 0; p < SRV_POOLS; p++)
    pools_changed |= old->pools[p].waiting != nv->pools[p].waiting;
  bool more_changed = memcmp(old->more, nv->more, sizeof old->more) != 0;
  *changed = nadd || nupd || nrem || pools_changed || more_changed;
  rc = 0;
  if (!*changed)
    goto out;
  srv_event ev = {.type = SRV_EV_LOBBY_CHANGES};
  ev.u.lobby_changes.rev = lobby->rev + 1;
  ev.u.lobby_changes.add = add;
  ev.u.lobby_changes.nadd = nadd;
  ev.u.lobby_changes.update = upd;
  ev.u.lobby_changes.nupdate = nupd;
  ev.u.lobby_changes.remove = rem;
  ev.u.lobby_changes.nremove = nrem;
  ev.u.lobby_changes.more = nv->more;
  ev.u.lobby_changes.nmore = KINDS;
  ev.u.lobby_changes.pools = pools_changed ? nv->pools : NULL;
  ev.u.lobby_changes.npools = SRV_POOLS;
  srv_frame *f = srv_proto_encode(&ev);
  if (f == NULL) {
    rc = SRV_ENOMEM;
    goto out;
  }
  srv_list_foreach (it, &lobby->watchers) {
    srv_client *c = srv_list_entry(it, srv_client, watch);
    if (c->watch_changes)
      srv_send_frame(&lobby->sink, c, f);
  }
  srv_frame_unref(f);
out:
  free(a);
  free(b);
  free(mark);
  free(add);
  free(upd);
  free(rem);
  return rc;
}

/* Publishes the list as it is now as the next revision: its changes go to the watchers of
 * changes, and it becomes the snapshot. Sets *changed (false: the list is what was published,
 * nothing was sent and the revision stays). Returns 0 or SRV_ENOMEM (nothing changed). */
static int publish(srv_lobby *lobby, bool *changed) {
  view nv;
  int rc = collect(lobby, &nv);
  if (rc != 0)
    return rc;
  srv_frame *snap = encode_view(&nv, true, lobby->rev + 1);
  if (snap == NULL) {
    view_free(&nv);
    return SRV_ENOMEM;
  }
  *changed = true;
  if (lobby->snapshot != NULL && lobby->nchanges > 0 &&
      (rc = send_changes(lobby, &nv, changed)) != 0) {
    srv_frame_unref(snap);
    view_free(&nv);
    return rc;
  }
  lobby->stale = false;
  if (!*changed) {
    srv_frame_unref(snap);
    view_free(&nv);
    return 0;
  }
  view_free(&lobby->pub);
  lobby->pub = nv;
  lobby->rev++;
  srv_frame_unref(lobby->snapshot);
  lobby->snapshot = snap;
  return 0;
}

/* The whole list as it is now (borrowed): the snapshot when nothing changed since, else a list
 * made at most once per change. NULL when memory runs out. */
static srv_frame *whole(srv_lobby *lobby) {
  if (!lobby->stale && lobby->snapshot != NULL)
    return lobby->snapshot;
  if (lobby->fresh == NULL) {
    view v;
    if (collect(lobby, &v) != 0)
      return NULL;
    lobby->fresh = encode_view(&v, false, 0);
    view_free(&v);
  }
  return lobby->fresh;
}

static void watch(srv_lobby *lobby, srv_client *c, bool on, bool changes) {
  if (srv_list_linked(&c->watch)) {
    lobby->nchanges -= c->watch_changes ? 1 : 0;
    if (!on) {
      srv_list_remove(&c->watch);
      if (c->peer != NULL)
        c->peer->watchers--;
    }
  } else if (on) {
    srv_list_push_front(&lobby->watchers, &c->watch);
    if (c->peer != NULL)
      c->peer->watchers++;
  }
  c->watch_changes = on && changes;
  lobby->nchanges += c->watch_changes ? 1 : 0;
}

void srv_lobby_set_limit(srv_lobby *lobby, int watchers_per_addr) {
  lobby->per_addr = watchers_per_addr;
}

void srv_lobby_set_per_game(srv_lobby *lobby, int rooms) {
  lobby->per_game = rooms > 0 ? rooms : 1;
  lobby->dirty = lobby->stale = true;
  srv_frame_unref(lobby->fresh);
  lobby->fresh = NULL;
}

int srv_lobby_request(srv_lobby *lobby, srv_client *c, const srv_cmd *cmd) {
  if (cmd->watch && !srv_list_linked(&c->watch) && c->peer != NULL && lobby->per_addr > 0 &&
      c->peer->watchers >= lobby->per_addr)
    return SRV_EWATCHERS;
  bool changes = cmd->watch && cmd->changes;
  srv_frame *list;
  if (changes) {
    /* The last published revision: the next flush sends its changes to every watcher of changes
     * together (this one too), so that all of them go from one revision to the next. With
     * nobody watching changes yet it may be published now. */
    bool changed;
    if ((lobby->snapshot == NULL || (lobby->stale && lobby->nchanges == 0)) &&
        publish(lobby, &changed) != 0)
      return SRV_ENOMEM;
    list = lobby->snapshot;
  } else {
    list = whole(lobby);
  }
  srv_frame *f = NULL;
  if (list != NULL)
    f = cmd->id.kind != SRV_ID_NONE ? srv_proto_with_id(list, &cmd->id) : srv_frame_ref(list);
  if (f == NULL)
    return SRV_ENOMEM;
  srv_send_frame(&lobby->sink, c, f);
  srv_frame_unref(f);
  watch(lobby, c, cmd->watch, changes);
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
  bool changed;
  if ((lobby->stale || lobby->snapshot == NULL) && publish(lobby, &changed) != 0)
    return; /* Out of memory: try again next time. */
  /* The watchers of whole lists get the snapshot when it is newer than the last they got (a
   * request may have published it since). */
  if (lobby->lists_rev != lobby->rev) {
    lobby->lists_rev = lobby->rev;
    srv_list_foreach (it, &lobby->watchers) {
      srv_client *c = srv_list_entry(it, srv_client, watch);
      if (!c->watch_changes)
        srv_send_frame(&lobby->sink, c, lobby->snapshot);
    }
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
  lobby->local_changed = true;
  lobby->dirty = true;
  lobby->stale = true;
  srv_frame_unref(lobby->fresh);
  lobby->fresh = NULL;
}

void srv_lobby_client_gone(srv_lobby *lobby, srv_client *c) {
  watch(lobby, c, false, false);
}

srv_lobby *srv_lobby_new(srv_rooms *rooms, srv_time *time, const srv_sink *sink) {
  srv_lobby *lobby = calloc(1, sizeof *lobby);
  if (lobby == NULL)
    return NULL;
  lobby->rooms = rooms;
  lobby->time = time;
  lobby->sink = *sink;
  lobby->per_game = SRV_LOBBY_PER_GAME;
  lobby->stale = true;
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

void srv_lobby_foreign_free(srv_lobby_foreign *rooms, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(rooms[i].json);
  free(rooms);
}

int srv_lobby_set_foreign(srv_lobby *lobby, const srv_lobby_foreign *rooms, size_t n) {
  srv_lobby_foreign *copy = calloc(n ? n : 1, sizeof *copy);
  if (copy == NULL)
    return SRV_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    copy[i] = rooms[i];
    if ((copy[i].json = malloc(rooms[i].len + 1)) == NULL) {
      srv_lobby_foreign_free(copy, i);
      return SRV_ENOMEM;
    }
    memcpy(copy[i].json, rooms[i].json, rooms[i].len);
    copy[i].json[rooms[i].len] = '\0';
  }
  srv_lobby_foreign_free(lobby->foreign, lobby->nforeign);
  lobby->foreign = copy;
  lobby->nforeign = n;
  on_changed(lobby, NULL);
  lobby->local_changed = false; /* Not a change of this node's own rooms. */
  return 0;
}

int srv_lobby_local(srv_lobby *lobby, srv_lobby_foreign **out, size_t *n, bool *changed) {
  *out = NULL;
  *n = 0;
  *changed = lobby->local_changed;
  lobby->local_changed = false;
  /* This node's own list: the foreign rooms set aside while it is collected. */
  srv_lobby_foreign *keep = lobby->foreign;
  size_t nkeep = lobby->nforeign;
  lobby->foreign = NULL;
  lobby->nforeign = 0;
  view v;
  int rc = collect(lobby, &v);
  lobby->foreign = keep;
  lobby->nforeign = nkeep;
  if (rc != 0)
    return rc;
  srv_lobby_foreign *items = calloc(v.n ? v.n : 1, sizeof *items);
  if (items == NULL) {
    view_free(&v);
    return SRV_ENOMEM;
  }
  for (size_t i = 0; i < v.n; i++) {
    srv_room *r = srv_rooms_find(lobby->rooms, v.items[i].code);
    srv_lobby_foreign *e = &items[i];
    memcpy(e->code, v.items[i].code, sizeof e->code);
    e->kind = r != NULL ? kind_of(r) : 0;
    e->pool = r != NULL ? srv_pool_of(srv_room_opts_of(r)) : -1;
    e->waiting = r != NULL && srv_room_status(r) == SRV_WAITING;
    e->json = v.items[i].json; /* Taken from the view. */
    e->len = v.items[i].len;
    v.items[i].json = NULL;
  }
  *n = v.n;
  *out = items;
  view_free(&v);
  return 0;
}

void srv_lobby_free(srv_lobby *lobby) {
  if (lobby == NULL)
    return;
  srv_lobby_foreign_free(lobby->foreign, lobby->nforeign);
  srv_rooms_remove_observer(lobby->rooms, lobby);
  lobby->time->timer_free(lobby->timer);
  srv_frame_unref(lobby->snapshot);
  srv_frame_unref(lobby->fresh);
  view_free(&lobby->pub);
  free(lobby);
}
