/* The computer's seat in a room (srv_room_computer.c), with a recording thinker in place of the
 * searches: when the room asks it to think or to stop, what a late answer does (dropped), the
 * seat as the state shows it, the cap on games, draw offers and rematches.
 *
 * Hand-worked positions (Kalah 6x4, rule book layout, South moves first):
 *   - South plays house 1 (4 seeds): houses 2-5 get one each, no capture, no extra turn: North (the
 *     computer) is to move at ply 1.
 *   - North's house 3 (4 seeds) sows its houses 4, 5, 6 and its store: an extra turn, North again
 *     at ply 2; the thinker must be asked again for ply 2. House 3 is then empty (illegal).
 */
#include <string.h>

#include "harness.h"

typedef struct rec_thinker {
  int thinks, stops;
  srv_room *last;
} rec_thinker;

static void on_think(void *ud, srv_room *room) {
  rec_thinker *t = ud;
  t->thinks++;
  t->last = room;
}

static void on_stop(void *ud, srv_room *room) {
  rec_thinker *t = ud;
  t->stops++;
  t->last = room;
}

static const char *room_of(tclient *t) {
  return field_s(t, "joined", "room");
}

TEST_IMPL(seat_and_turns) {
  world w;
  world_init(&w, NULL);
  rec_thinker rt = {0};
  srv_room_thinker th = {on_think, on_stop, &rt};
  srv_rooms_set_thinker(w.rooms, &th);
  tclient a;
  connect_as(&w, &a, "Ana");
  ASSERT(srv_rooms_computer_on(w.rooms)); /* welcome.features.computer: computer.test.mjs */
  ASSERT_EQ(run(&w, &a,
                "{\"type\":\"create\",\"game\":\"kalah\",\"opponent\":\"computer\",\"level\":"
                "4,\"seat\":\"south\"}"),
            0);
  char code[8];
  snprintf(code, sizeof code, "%s", room_of(&a));
  srv_room *room = srv_rooms_find(w.rooms, code);
  ASSERT(room != NULL);
  json_t *st = last_of(&a, "state");
  ASSERT_STR_EQ(json_string_value(json_object_get(st, "status")), "playing");
  json_t *north = json_object_get(json_object_get(st, "players"), "north");
  ASSERT_STR_EQ(json_string_value(json_object_get(north, "name")), "Computer (level 4)");
  ASSERT(json_is_true(json_object_get(north, "computer")));
  ASSERT(json_is_true(json_object_get(north, "connected")));
  ASSERT_EQ(srv_room_computer_level(room, 1), 4);
  ASSERT_EQ(srv_room_computer_level(room, 0), 0);
  /* South (the person) is to move: nobody thinks yet. */
  ASSERT_EQ(rt.thinks, 0);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", code), 0);
  ASSERT(rt.thinks >= 1);
  ASSERT(rt.last == room);
  /* The person cannot move for the computer. */
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":1}", code),
            SRV_ETURN);
  /* A late answer for another ply or game is dropped; the right one is played. */
  ASSERT_EQ(srv_room_computer_move(room, 1, 0, 3), SRV_ESTALE);
  world_turn(&w);
  ASSERT_EQ(srv_room_computer_move(room, 2, 1, 3), SRV_ESTALE);
  world_turn(&w);
  tclient_clear(&a);
  int before = rt.thinks;
  ASSERT_EQ(srv_room_computer_move(room, 1, 1, 3), 0);
  world_turn(&w);
  st = last_of(&a, "state");
  ASSERT_EQ(json_integer_value(json_object_get(st, "ply")), 2);
  ASSERT_STR_EQ(json_string_value(json_object_get(st, "turn")), "north"); /* Extra turn. */
  ASSERT_STR_EQ(path_s(&a, "state", "last", "seat"), "north");
  ASSERT(rt.thinks > before); /* Asked again for its extra turn. */
  /* An illegal answer changes nothing. */
  ASSERT_EQ(srv_room_computer_move(room, 1, 2, 3), SRV_EILLEGAL);
  world_turn(&w);
  ASSERT_EQ(mc_game_ply(srv_room_game(room)), 2);
  /* Resigning stops the search; a late answer is dropped. */
  int stops = rt.stops;
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", code), 0);
  ASSERT(rt.stops > stops);
  ASSERT_EQ(srv_room_computer_move(room, 1, 2, 1), SRV_ESTALE);
  world_turn(&w);
  ASSERT_EQ(mc_game_ply(srv_room_game(room)), 2);
  /* Rematch: the computer agrees at once; the seats swap and it (South) is to move. */
  before = rt.thinks;
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", code), 0);
  st = last_of(&a, "state");
  ASSERT_STR_EQ(json_string_value(json_object_get(st, "status")), "playing");
  ASSERT_EQ(json_integer_value(json_object_get(st, "ply")), 0);
  ASSERT_EQ(srv_room_computer_level(room, 0), 4);
  ASSERT(rt.thinks > before);
  /* The person leaves (the game goes on); freeing the rooms stops the search. */
  stops = rt.stops;
  disconnect(&w, &a);
  world_free(&w);
  ASSERT(rt.stops > stops);
  return 0;
}

TEST_IMPL(draw_offer) {
  world w;
  world_init(&w, NULL);
  rec_thinker rt = {0};
  srv_room_thinker th = {on_think, on_stop, &rt};
  srv_rooms_set_thinker(w.rooms, &th);
  tclient a;
  connect_as(&w, &a, "Ana");
  /* The evaluation (mc_eval.c, Kalah weights 15 a seed on one's side, 150 an extra-turn move, 40
   * a seed of the best capture on offer to each side), worked by hand:
   *   - At the start, South (the person, to move) has one extra-turn move (house 3): +150 for
   *     South, -150 from the computer's side: not ahead, it takes the draw.
   *   - Next game the computer is South: it plays 3 (houses 4-6 and the store, an extra turn),
   *     then 6 (5 seeds: the store, North's houses 1-4). South 4 4 0 5 5 0 (2), North 5 5 5 5 4 4
   *     (0), North to move. For North: stores -200, side seeds 28 - 18 = +10 (+150), one extra
   *     turn (house 2: +150), no capture of its own, South's house 2 (4 seeds) ends in its empty
   *     house 6 facing 5 seeds: a capture of 6 on offer (-240): -140. The computer (South) is
   *     ahead by 1.4 seeds: it declines. */
  ASSERT_EQ(run(&w, &a,
                "{\"type\":\"create\",\"game\":\"kalah\",\"opponent\":\"computer\",\"level\":"
                "2,\"seat\":\"south\"}"),
            0);
  char code[8];
  snprintf(code, sizeof code, "%s", room_of(&a));
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"offer\"}", code), 0);
  json_t *st = last_of(&a, "state");
  ASSERT_STR_EQ(json_string_value(json_object_get(st, "status")), "finished");
  ASSERT_STR_EQ(path_s(&a, "state", "result", "reason"), "agreement");
  ASSERT_STR_EQ(path_s(&a, "state", "result", "winner"), "draw");
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", code), 0);
  /* The computer is South now and moves first: its moves played by hand, as the thinker would. */
  srv_room *room = srv_rooms_find(w.rooms, code);
  ASSERT_EQ(srv_room_computer_move(room, 2, 0, 3), 0); /* Extra turn. */
  world_turn(&w);
  ASSERT_EQ(srv_room_computer_move(room, 2, 1, 6), 0);
  world_turn(&w);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"offer\"}", code), 0);
  st = last_of(&a, "state");
  ASSERT_STR_EQ(json_string_value(json_object_get(st, "status")), "playing");
  json_t *offer = json_object_get(st, "draw_offer");
  ASSERT(offer == NULL || json_is_null(offer));
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"accept\"}", code),
            SRV_ENOOFFER);
  disconnect(&w, &a);
  world_free(&w);
  return 0;
}

TEST_IMPL(cap_and_off) {
  world w;
  world_init(&w, NULL);
  tclient a;
  connect_as(&w, &a, "Ana");
  /* No thinker: the computer is off. */
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"opponent\":\"computer\"}"),
            SRV_EUNSUPPORTED);
  rec_thinker rt = {0};
  srv_room_thinker th = {on_think, on_stop, &rt};
  srv_rooms_set_thinker(w.rooms, &th);
  srv_rooms_set_computer_games(w.rooms, 1);
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"opponent\":\"computer\"}"), 0);
  char code[8];
  snprintf(code, sizeof code, "%s", room_of(&a));
  ASSERT_EQ(run(&w, &a, "{\"type\":\"quick\",\"game\":\"kalah\",\"opponent\":\"computer\"}"),
            SRV_ESERVERFULL);
  ASSERT_EQ(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", code), 0);
  ASSERT_EQ(run(&w, &a, "{\"type\":\"quick\",\"game\":\"oware\",\"opponent\":\"computer\"}"), 0);
  srv_rooms_set_computer_games(w.rooms, 0);
  ASSERT_EQ(run(&w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"opponent\":\"computer\"}"),
            SRV_EUNSUPPORTED);
  disconnect(&w, &a);
  world_free(&w);
  return 0;
}
