/* A database with games in it, made by the server's own code, for the fuzz targets that read
 * stored games (fuzz_store.c, fuzz_http.c). */
#include "fuzz_seed.h"

#include <unistd.h>

#include "fuzz.h"
#include "harness.h"
#include "srv_persist.h"

void fuzz_tmp_dir(char *buf, size_t size, const char *what) {
  const char *base = getenv("TMPDIR");
  snprintf(buf, size, "%s/mancala-fuzz-%s-XXXXXX",
           access("/dev/shm", W_OK) == 0 ? "/dev/shm"
           : base && base[0]             ? base
                                         : "/tmp",
           what);
  FZ_CHECK(mkdtemp(buf) != NULL);
}

/* A batch's result: how many rooms lost writes. */
static void rooms_lost(void *arg, const srv_persist_lost *lost, int n) {
  (void)lost;
  *(int *)arg = n;
}

static void turn(world *w, srv_persist *p) {
  int lost = -1;
  srv_persist_commit(p, rooms_lost, &lost);
  FZ_CHECK(lost == 0);
  (void)w;
}

/* Plays the lowest legal house of the room for whoever is to move, n times. */
static void play(world *w, srv_persist *p, tclient *seats[2], const char *code, int n) {
  for (int i = 0; i < n; i++) {
    const srv_room *r = srv_rooms_find(w->rooms, code);
    const mc_game *g = srv_room_game(r);
    uint8_t legal[MC_MAX_HOUSES];
    if (srv_room_status(r) != SRV_PLAYING || mc_game_legal(g, legal) <= 0)
      return;
    tclient *t = seats[mc_game_pos(g)->turn];
    if (srv_room_seat(r, 0) == srv_room_seat(r, 1))
      t = seats[0];
    else if (srv_room_seat(r, mc_game_pos(g)->turn) != t->c.player)
      t = seats[1 - mc_game_pos(g)->turn];
    FZ_CHECK(runf(w, t, "{\"type\":\"move\",\"room\":\"%s\",\"house\":%d,\"ply\":%zu}", code,
                  legal[0], mc_game_ply(g)) == 0);
    turn(w, p);
  }
}

void fuzz_seed_games(srv_store *store) {
  world w;
  world_init(&w, NULL);
  srv_persist *p = srv_persist_new(store, w.ident, &w.time.base);
  FZ_CHECK(p != NULL);
  srv_recorder rec = {srv_persist_record, p};
  srv_rooms_set_recorder(w.rooms, &rec);
  static tclient a, b, c;
  connect_as(&w, &a, "Ana");
  connect_as(&w, &b, "Bo \"the\" \\ best");
  connect_as(&w, &c, "Çé 名前");
  static const char *const creates[] = {
      "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"}",
      "{\"type\":\"create\",\"game\":\"oware\",\"seat\":\"south\",\"options\":{\"grand_slam\":"
      "\"forbidden\"},\"clock\":{\"initial_ms\":60000,\"increment_ms\":1000}}",
      "{\"type\":\"create\",\"game\":\"congkak\",\"houses\":4,\"seeds\":3,\"seat\":\"south\","
      "\"options\":{\"rounds\":\"match\",\"lap_capture\":true},\"visibility\":\"private\"}",
      "{\"type\":\"create\",\"game\":\"kalah\",\"houses\":3,\"seeds\":2,\"opponent\":\"local\"}",
      "{\"type\":\"create\",\"game\":\"kalah\",\"houses\":4,\"seeds\":1,\"seat\":\"north\"}",
  };
  int lengths[] = {1000, 12, 1000, 1000, 0};
  for (int i = 0; i < 5; i++) {
    FZ_CHECK(run(&w, &a, creates[i]) == 0);
    turn(&w, p);
    char code[SRV_CODE_LEN + 1];
    snprintf(code, sizeof code, "%s", field_s(&a, "joined", "room"));
    tclient *seats[2] = {&a, &b};
    if (i != 3 && i != 4) {
      FZ_CHECK(runf(&w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", code) == 0);
      turn(&w, p);
      FZ_CHECK(runf(&w, &c, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", code) ==
               0);
    }
    play(&w, p, seats, code, lengths[i]);
    if (i == 0) { /* A rematch, and a resignation in it. */
      FZ_CHECK(runf(&w, &a, "{\"type\":\"rematch\",\"room\":\"%s\"}", code) == 0);
      FZ_CHECK(runf(&w, &b, "{\"type\":\"rematch\",\"room\":\"%s\"}", code) == 0);
      turn(&w, p);
      tclient *swapped[2] = {&b, &a};
      play(&w, p, swapped, code, 5);
      FZ_CHECK(runf(&w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", code) == 0);
      turn(&w, p);
    }
  }
  disconnect(&w, &a);
  disconnect(&w, &b);
  disconnect(&w, &c);
  turn(&w, p);
  srv_persist_free(p);
  world_free(&w);
}
