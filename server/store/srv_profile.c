/* Profiles and leaderboards as JSON (see srv_profile.h). */
#include "srv_profile.h"

#include "srv_gameid.h"

#include "srv_archive.h"

/* Kept here, not from srv_rating.h: this library has no server headers. */
#define PROVISIONAL_RD 110.0

typedef struct builder {
  bool failed;
} builder;

static void put(builder *b, json_t *obj, const char *key, json_t *value) {
  if (value == NULL || json_object_set_new(obj, key, value) != 0)
    b->failed = true;
}

static void append(builder *b, json_t *arr, json_t *value) {
  if (value == NULL || json_array_append_new(arr, value) != 0)
    b->failed = true;
}

static void rating_fields(builder *b, json_t *o, const srv_store_rating *r) {
  put(b, o, "rating", json_real(r->rating));
  put(b, o, "rd", json_real(r->rd));
  put(b, o, "games", json_integer(r->games));
  put(b, o, "wins", json_integer(r->wins));
  put(b, o, "losses", json_integer(r->losses));
  put(b, o, "draws", json_integer(r->draws));
  put(b, o, "provisional", json_boolean(r->rd > PROVISIONAL_RD));
}

json_t *srv_profile_json(const srv_profile *p) {
  builder b = {false};
  json_t *o = json_object();
  put(&b, o, "player", json_string(p->account->player));
  put(&b, o, "name", json_string(p->account->name));
  put(&b, o, "created", json_integer(p->account->created_ms));
  json_t *ratings = json_object(), *history = json_object();
  for (int k = 0; k < SRV_STORE_RATED_GAMES; k++) {
    const char *game = mc_kind_name((mc_kind)k);
    json_t *r = json_object();
    rating_fields(&b, r, &p->ratings[k]);
    put(&b, r, "vol", json_real(p->ratings[k].vol));
    put(&b, r, "rank", p->ranks[k] > 0 ? json_integer(p->ranks[k]) : json_null());
    put(&b, ratings, game, r);
    json_t *points = json_array();
    for (size_t i = 0; i < p->n_history[k]; i++) {
      const srv_store_rating_point *pt = &p->history[k][i];
      char gid[SRV_GAMEID_LEN + 1]; /* The public id, never the store's number. */
      srv_gameid_format(pt->game_id, gid);
      append(&b, points,
             json_pack("{s:s,s:I,s:f,s:f,s:f}", "game", gid, "at", (json_int_t)pt->at_ms, "rating",
                       pt->rating, "rd", pt->rd, "diff", pt->diff));
    }
    put(&b, history, game, points);
  }
  put(&b, o, "ratings", ratings);
  put(&b, o, "history", history);
  json_t *list = srv_archive_player_games_json(p->account->player, p->games);
  json_t *games = list ? json_object_get(list, "games") : NULL;
  put(&b, o, "games", games ? json_incref(games) : NULL);
  json_decref(list);
  char next[SRV_GAMEID_LEN + 1];
  if (p->next_before > 0)
    srv_gameid_format(p->next_before, next);
  put(&b, o, "next_before", p->next_before > 0 ? json_string(next) : json_null());
  if (b.failed) {
    json_decref(o);
    return NULL;
  }
  return o;
}

json_t *srv_profile_leaderboard_json(mc_kind kind, long page, int limit,
                                     const srv_store_board *bd) {
  builder b = {false};
  json_t *o = json_object();
  put(&b, o, "game", json_string(mc_kind_name(kind)));
  put(&b, o, "page", json_integer(page));
  put(&b, o, "limit", json_integer(limit));
  put(&b, o, "total", json_integer(bd->total));
  put(&b, o, "pages", json_integer(bd->total > 0 ? (bd->total + limit - 1) / limit : 1));
  json_t *players = json_array();
  for (size_t i = 0; i < bd->n; i++) {
    const srv_store_board_row *row = &bd->rows[i];
    json_t *r = json_object();
    put(&b, r, "rank", json_integer((page - 1) * limit + (json_int_t)i + 1));
    put(&b, r, "player", json_string(row->player));
    put(&b, r, "name", json_string(row->name));
    rating_fields(&b, r, &row->rating);
    append(&b, players, r);
  }
  put(&b, o, "players", players);
  if (b.failed) {
    json_decref(o);
    return NULL;
  }
  return o;
}
