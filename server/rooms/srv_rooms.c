/* The room registry: rooms by code and in creation order, the recorder and the observer, and the
 * clients' arrival and departure (see srv_room.h). */
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_log.h"
#include "srv_rand.h"
#include "srv_room_int.h"

static bool room_is(const srv_hash_node *node, const void *code) {
  return memcmp(srv_hash_entry(node, srv_room, hnode)->code, code, SRV_CODE_LEN) == 0;
}

srv_rooms *srv_rooms_new(srv_time *time, srv_ident *ident, const srv_sink *sink,
                         const srv_room_limits *limits) {
  srv_rooms *rooms = calloc(1, sizeof *rooms);
  if (rooms == NULL)
    return NULL;
  rooms->trace = malloc(sizeof *rooms->trace);
  rooms->repeats = srv_rating_repeats_new();
  if (rooms->trace == NULL || rooms->repeats == NULL || srv_hash_init(&rooms->by_code, 256) != 0) {
    srv_rating_repeats_free(rooms->repeats);
    free(rooms->trace);
    free(rooms);
    return NULL;
  }
  rooms->time = time;
  rooms->ident = ident;
  rooms->sink = *sink;
  rooms->limits = *limits;
  rooms->computer_games = -1;
  srv_list_init(&rooms->order);
  srv_list_init(&rooms->changed);
  rooms->batch = 1;
  rooms->next_game_id = 1;
  rooms->game_id_lane = -1;
  return rooms;
}

void srv_rooms_free(srv_rooms *rooms) {
  if (rooms == NULL)
    return;
  srv_list *it;
  while ((it = srv_list_first(&rooms->order)) != NULL) {
    srv_room *room = srv_list_entry(it, srv_room, order);
    srv_list *m;
    while ((m = srv_list_first(&room->members)) != NULL)
      srv_room__remove_member(srv_list_entry(m, srv_member, in_room));
    srv_room__unlink(room);
    srv_room__destroy(room);
  }
  srv_hash_dispose(&rooms->by_code);
  srv_rating_repeats_free(rooms->repeats);
  free(rooms->trace);
  free(rooms);
}

void srv_rooms_set_recorder(srv_rooms *rooms, const srv_recorder *recorder) {
  if (recorder != NULL)
    rooms->recorder = *recorder;
  else
    memset(&rooms->recorder, 0, sizeof rooms->recorder);
}

void srv_rooms_set_next_game_id(srv_rooms *rooms, int64_t next) {
  rooms->next_game_id = next > 0 ? next : 1;
}

void srv_rooms_set_game_id_lane(srv_rooms *rooms, int lane) {
  rooms->game_id_lane = lane >= 0 && lane < SRV_GAME_ID_LANES ? lane : -1;
}

int64_t srv_rooms__take_game_id(srv_rooms *rooms) {
  if (rooms->game_id_lane < 0)
    return rooms->next_game_id++;
  int64_t ms = rooms->time->wall(rooms->time);
  int64_t last_ms = rooms->next_game_id >> SRV_GAME_ID_LANE_BITS; /* next_game_id: the last id. */
  if (ms <= last_ms)
    ms = last_ms + 1;
  rooms->next_game_id = ms << SRV_GAME_ID_LANE_BITS | rooms->game_id_lane;
  return rooms->next_game_id;
}

int srv_rooms_add_observer(srv_rooms *rooms, const srv_room_observer *observer) {
  if (rooms->nobservers == SRV_ROOM_OBSERVERS)
    return SRV_ENOMEM;
  rooms->observers[rooms->nobservers++] = *observer;
  return 0;
}

void srv_rooms_remove_observer(srv_rooms *rooms, void *ud) {
  for (int i = 0; i < rooms->nobservers; i++) {
    if (rooms->observers[i].ud == ud) {
      rooms->observers[i] = rooms->observers[--rooms->nobservers];
      return;
    }
  }
}

/* ---- Finding rooms ------------------------------------------------------------------------- */

srv_room *srv_rooms_find(srv_rooms *rooms, const char *code) {
  if (strlen(code) != SRV_CODE_LEN)
    return NULL;
  srv_hash_node *node =
      srv_hash_find(&rooms->by_code, srv_hash_bytes(code, SRV_CODE_LEN), room_is, code);
  return node ? srv_hash_entry(node, srv_room, hnode) : NULL;
}

srv_room *srv_rooms_find_game(srv_rooms *rooms, int64_t game_id) {
  if (game_id <= 0)
    return NULL;
  srv_list_foreach (it, &rooms->order) {
    srv_room *r = srv_list_entry(it, srv_room, order);
    if (r->game_id == game_id)
      return r;
  }
  return NULL;
}

const srv_room *srv_rooms_first(const srv_rooms *rooms) {
  srv_list *it = srv_list_first(&rooms->order);
  return it ? srv_list_entry(it, srv_room, order) : NULL;
}

const srv_room *srv_rooms_next(const srv_room *room) {
  srv_list *it = srv_list_next(&room->rooms->order, &room->order);
  return it ? srv_list_entry(it, srv_room, order) : NULL;
}

void srv_rooms_count(const srv_rooms *rooms, long counts[3]) {
  for (int s = 0; s < 3; s++)
    counts[s] = rooms->by_status[s];
}

int srv_room__active_count(const srv_rooms *rooms, const srv_player *p) {
  (void)rooms;
  return p->active_rooms;
}

/* ---- Linking ------------------------------------------------------------------------------- */

void srv_room__link(srv_rooms *rooms, srv_room *room) {
  srv_hash_insert(&rooms->by_code, &room->hnode, srv_hash_bytes(room->code, SRV_CODE_LEN));
  srv_list_push_back(&rooms->order, &room->order);
  rooms->count++;
  rooms->by_status[room->status]++;
}

void srv_room__unlink(srv_room *room) {
  srv_rooms *rooms = room->rooms;
  srv_hash_remove(&rooms->by_code, &room->hnode);
  srv_list_remove(&room->order);
  rooms->count--;
  rooms->by_status[room->status]--;
}

int srv_room__new_code(srv_rooms *rooms, char code[SRV_CODE_LEN + 1]) {
  static const char alphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  if (rooms->preset_code[0] != '\0') {
    memcpy(code, rooms->preset_code, SRV_CODE_LEN + 1);
    rooms->preset_code[0] = '\0';
    if (srv_rooms_find(rooms, code) == NULL)
      return 0;
  }
  for (int attempt = 0; attempt < 32; attempt++) {
    uint8_t bytes[SRV_CODE_LEN];
    int rc = srv_rand_bytes(bytes, sizeof bytes);
    if (rc != 0)
      return rc;
    for (int i = 0; i < SRV_CODE_LEN; i++)
      code[i] = alphabet[bytes[i] & 31]; /* 32 symbols: no modulo bias. */
    code[SRV_CODE_LEN] = '\0';
    if (srv_rooms_find(rooms, code) == NULL)
      return 0;
  }
  return SRV_ESERVERFULL;
}

void srv_rooms_preset_code(srv_rooms *rooms, const char *code) {
  if (code != NULL && strlen(code) == SRV_CODE_LEN)
    memcpy(rooms->preset_code, code, SRV_CODE_LEN + 1);
  else
    rooms->preset_code[0] = '\0';
}

void srv_rooms_evict(srv_rooms *rooms, const char *code, void (*member)(void *ud, srv_client *c),
                     void *ud) {
  srv_room *room = srv_rooms_find(rooms, code);
  if (room == NULL)
    return;
  srv_log_info("room", "%s: runs elsewhere now; left without a record", code);
  srv_room__changed(room);
  srv_list *it;
  while ((it = srv_list_first(&room->members)) != NULL) {
    srv_client *c = srv_list_entry(it, srv_member, in_room)->client;
    srv_room__remove_member(srv_list_entry(it, srv_member, in_room));
    if (member != NULL)
      member(ud, c);
  }
  srv_room__unlink(room);
  srv_room__destroy(room);
}

int srv_rooms_attach(srv_rooms *rooms, srv_client *c, const char *code) {
  srv_room *r = srv_rooms_find(rooms, code);
  if (r == NULL)
    return SRV_ENOTFOUND;
  if (c->player == NULL || (r->seat[0] != c->player && r->seat[1] != c->player))
    return SRV_ENOTMEMBER;
  if (srv_room__member(r, c) != NULL)
    return 0;
  return srv_room__enter(r, c, NULL);
}

/* ---- Clients ------------------------------------------------------------------------------- */

void srv_rooms_identify(srv_rooms *rooms, srv_client *c, srv_player *player, bool resumed) {
  c->player = player;
  srv_ident_ref(player);
  srv_list_push_back(&player->clients, &c->of_player);
  if (!resumed)
    return;
  /* The player's own seats, not every room: a reconnect storm of P players over R rooms cost
   * P x R room visits on the loop (bench/scale.mjs storm). */
  (void)rooms;
  srv_list_foreach (it, &player->seats) {
    srv_seat_link *link = srv_list_entry(it, srv_seat_link, node);
    srv_room *r = link->room;
    if (link == &r->seated[1] && r->seat[0] == r->seat[1])
      continue;                        /* A local room: once. */
    (void)srv_room__enter(r, c, NULL); /* Out of memory: that room is not shown. */
  }
}

void srv_rooms_client_gone(srv_rooms *rooms, srv_client *c) {
  srv_list *it;
  while ((it = srv_list_first(&c->rooms)) != NULL)
    srv_room__leave(srv_list_entry(it, srv_member, in_client), false);
  if (c->player != NULL) {
    srv_list_remove(&c->of_player);
    srv_ident_unref(rooms->ident, c->player);
    c->player = NULL;
  }
}
