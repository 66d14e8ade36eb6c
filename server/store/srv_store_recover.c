/* Recovery: what a restart reads back (every open room, its unfinished game with its moves, the
 * players seated and the last chat lines; see srv_store_recovery in srv_store.h). */
#include "srv_store_int.h"

#include <stdlib.h>
#include <string.h>

void srv_store_recovery_free(srv_store_recovery *r) {
  if (r == NULL)
    return;
  for (size_t i = 0; i < r->n_rooms; i++)
    free((char *)r->rooms[i].settings);
  for (size_t i = 0; i < r->n_games; i++)
    free(r->games[i].moves);
  for (size_t i = 0; i < r->n_chat; i++)
    free((char *)r->chat[i].text);
  free(r->rooms);
  free(r->games);
  free(r->players);
  free(r->chat);
  free(r);
}

/* Returns a new copy of text column i (NULL: ""), or NULL without memory. */
static char *col_copy(const srv_store__cols *s, int i) {
  const char *text = srv_store__text(s, i);
  return strdup(text ? text : "");
}

static int row_chat(srv_store *store, const srv_store__cols *s, void *item) {
  (void)store;
  srv_store_chat *c = item;
  srv_store__col_text(s, 0, c->room, sizeof c->room);
  c->game = srv_store__int(s, 1);
  c->at_ms = srv_store__int(s, 2);
  srv_store__col_text(s, 3, c->player, sizeof c->player);
  srv_store__col_text(s, 4, c->name, sizeof c->name);
  srv_store__col_text(s, 5, c->seat, sizeof c->seat);
  c->text = col_copy(s, 6);
  c->account = srv_store__int(s, 7) != 0;
  return c->text ? 0 : SRV_STORE_ENOMEM;
}

static int row_room(srv_store *store, const srv_store__cols *s, void *item) {
  (void)store;
  srv_store_room *room = item;
  srv_store__col_text(s, 0, room->code, sizeof room->code);
  room->settings = col_copy(s, 1);
  if (room->settings == NULL)
    return SRV_STORE_ENOMEM;
  srv_store__col_seat(s, 2, &room->seats[0]);
  srv_store__col_seat(s, 5, &room->seats[1]);
  const char *status = srv_store__text(s, 8);
  if (status && strcmp(status, "playing") == 0)
    room->status = SRV_STORE_STATUS_PLAYING;
  else if (status && strcmp(status, "finished") == 0)
    room->status = SRV_STORE_STATUS_FINISHED;
  else
    room->status = SRV_STORE_STATUS_WAITING;
  room->game = srv_store__int(s, 9);
  return 0;
}

/* The recovery of every room (code NULL) or of the room code. */
static int recover(srv_store *store, const char *code, srv_store_recovery **out) {
  if (store == NULL || out == NULL)
    return SRV_STORE_EINVAL;
  *out = NULL;
  srv_store_recovery *r = calloc(1, sizeof *r);
  if (r == NULL)
    return SRV_STORE_ENOMEM;
  srv_store__val key[1] = {arg_text(code != NULL ? code : "")};
  const srv_store__val *args = code != NULL ? key : NULL;
  size_t n = code != NULL ? 1 : 0;
  int err = srv_store__all(store, code ? STMT_RECOVER_ROOM : STMT_RECOVER_ROOMS, args, n, row_room,
                           (void **)&r->rooms, &r->n_rooms, sizeof *r->rooms, "cannot read rooms");
  if (err == 0)
    err = srv_store__all(store, code ? STMT_RECOVER_ROOM_GAMES : STMT_RECOVER_GAMES, args, n,
                         srv_store__row_game, (void **)&r->games, &r->n_games, sizeof *r->games,
                         "cannot read games");
  /* The moves, once the games statement is done with. */
  for (size_t i = 0; err == 0 && i < r->n_games; i++)
    err = srv_store__read_moves(store, &r->games[i]);
  if (err == 0)
    err = srv_store__all(store, code ? STMT_RECOVER_ROOM_PLAYERS : STMT_RECOVER_PLAYERS, args, n,
                         srv_store__row_player, (void **)&r->players, &r->n_players,
                         sizeof *r->players, "cannot read players");
  if (err == 0)
    err =
        srv_store__all(store, code ? STMT_RECOVER_ROOM_CHAT : STMT_RECOVER_CHAT, args, n, row_chat,
                       (void **)&r->chat, &r->n_chat, sizeof *r->chat, "cannot read chat lines");
  if (err != 0) {
    srv_store_recovery_free(r);
    return err;
  }
  *out = r;
  return 0;
}

int srv_store_recover(srv_store *store, srv_store_recovery **out) {
  return recover(store, NULL, out);
}

int srv_store_recover_room(srv_store *store, const char *code, srv_store_recovery **out) {
  if (code == NULL)
    return SRV_STORE_EINVAL;
  return recover(store, code, out);
}

typedef struct codes_out {
  char (*codes)[SRV_STORE_CODE_SIZE];
  size_t max, n;
} codes_out;

static int row_code(srv_store *store, const srv_store__cols *s, void *item) {
  (void)store;
  codes_out *o = item;
  if (o->n < o->max)
    srv_store__col_text(s, 0, o->codes[o->n++], SRV_STORE_CODE_SIZE);
  return 0;
}

int srv_store_player_rooms(srv_store *store, const char *player, char (*codes)[SRV_STORE_CODE_SIZE],
                           size_t max, size_t *n) {
  if (store == NULL || player == NULL || codes == NULL || n == NULL)
    return SRV_STORE_EINVAL;
  codes_out o = {codes, max, 0};
  int rc = srv_store__each(store, STMT_PLAYER_ROOMS, STORE_ARGS(arg_text(player)), row_code, &o,
                           "cannot read a player's rooms");
  *n = o.n;
  return rc < 0 ? rc : 0;
}
