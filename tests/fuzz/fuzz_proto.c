/* Fuzz target: the protocol and the rooms together. Sequences of frames from several clients go
 * through the real decoder and dispatch table (srv_dispatch_frame()) into real rooms on the test
 * kit's fake clock (tests/server/harness.h), mixed with time passing, disconnections, the lobby's
 * flush, ends of loop turns, and lost storage batches taken back.
 *
 * Input: a sequence of operations, each one byte (the client in its low two bits, the operation
 * above) and its arguments. Raw frames are the fuzzer's own bytes, where "#0".."#9" stands for the
 * code of the n-th room (creation order) and "$0".."$3" for the token of a client's player, so
 * that frames can name rooms and identities drawn at random. Templated frames (hello, create,
 * join, quick, leave, lobby, move with a ply near the room's, resign, draw, rematch, chat,
 * resync) reach deep states quickly.
 *
 * Checked: every frame sent is one JSON object (the harness), rooms by status add up, a playing
 * room's game is not over and a finished one's is, nothing leaks (ASan at exit of each input).
 */
#include <jansson.h>

#include "fuzz.h"
#include "harness.h"
#include "srv_lobby.h"
#include "srv_log.h"
#include "srv_peer.h"

#define NCLIENTS 4

typedef struct fuzz_world {
  world w;
  srv_peers *peers;
  srv_peer *peer[2]; /* Clients 0 and 1 share one address, 2 and 3 another. */
  tclient t[NCLIENTS];
  bool online[NCLIENTS]; /* The connection exists (it may not have said hello). */
  char token[NCLIENTS][SRV_TOKEN_CHARS + 1];
  int64_t last_game_id; /* The last game id a record named. */
} fuzz_world;

/* ---- A recorder that notes the game ids the rooms give (storage only listens) ----------------
 */

static void record(void *ud, const srv_record *rec) {
  fuzz_world *f = ud;
  if (rec->game_id > f->last_game_id)
    f->last_game_id = rec->game_id;
}

/* ---- Frames ----------------------------------------------------------------------------------
 */

static const srv_room *nth_room(fuzz_world *f, int n) {
  const srv_room *r = srv_rooms_first(f->w.rooms);
  for (int i = 0; r != NULL && i < n; i++)
    r = srv_rooms_next(r);
  return r;
}

static const char *code_of(fuzz_world *f, int n) {
  const srv_room *r = nth_room(f, n);
  return r ? srv_room_code(r) : "ZZZZZZ";
}

static void send_frame(fuzz_world *f, int who, const char *buf, size_t len) {
  if (!f->online[who])
    return;
  srv_dispatch_frame(&f->w.dispatch, &f->t[who].c, buf, len);
}

/* A raw frame with the placeholders replaced. */
static void raw_frame(fuzz_world *f, int who, const uint8_t *in, size_t len) {
  static char out[2 * 4200 + 64 * 8];
  size_t o = 0;
  for (size_t i = 0; i < len && o < sizeof out - 80; i++) {
    if (i + 1 < len && (in[i] == '#' || in[i] == '$') && in[i + 1] >= '0' && in[i + 1] <= '9') {
      const char *s =
          in[i] == '#' ? code_of(f, in[i + 1] - '0') : f->token[(in[i + 1] - '0') % NCLIENTS];
      size_t k = strlen(s);
      memcpy(out + o, s, k);
      o += k;
      i++;
    } else {
      out[o++] = (char)in[i];
    }
  }
  send_frame(f, who, out, o);
}

static const char *const games[] = {"kalah", "oware", "congkak"};
static const char *const options[][2] = {
    {"{}", "{\"empty_capture\":true}"},
    {"{\"grand_slam\":\"forbidden\"}", "{\"grand_slam\":\"capture\"}"},
    {"{\"lap_capture\":true}", "{\"rounds\":\"match\"}"}};

static void templated(fuzz_world *f, int who, int kind, fz_in *in) {
  char buf[1024];
  uint8_t a = fz_u8(in), b = fz_u8(in);
  const srv_room *room = nth_room(f, a % 10);
  const char *code = room ? srv_room_code(room) : "ZZZZZZ";
  long long ply = room ? (long long)mc_game_ply(srv_room_game(room)) : 0;
  int n = 0;
  switch (kind) {
  case 0:
    if (b & 1)
      n = snprintf(buf, sizeof buf, "{\"type\":\"hello\",\"id\":%d,\"token\":\"%s\"}", a,
                   f->token[(b >> 1) % NCLIENTS]);
    else
      n = snprintf(buf, sizeof buf, "{\"type\":\"hello\",\"name\":\"P%d\"}", a);
    break;
  case 1:
  case 2: {
    uint8_t c = fz_u8(in);
    n = snprintf(buf, sizeof buf,
                 "{\"type\":\"%s\",\"id\":1,\"game\":\"%s\",\"houses\":%d,\"seeds\":%d,"
                 "\"options\":%s,\"visibility\":\"%s\",\"seat\":\"%s\",\"clock\":%s,"
                 "\"opponent\":\"%s\"}",
                 kind == 1 ? "create" : "quick", games[a % 3], 1 + (a >> 2) % 9, 1 + (b & 15) % 12,
                 options[a % 3][(b >> 4) & 1], c & 1 ? "private" : "public",
                 (c >> 1) % 3 == 0   ? "south"
                 : (c >> 1) % 3 == 1 ? "north"
                                     : "random",
                 (c >> 3) & 1 ? "{\"initial_ms\":1000,\"increment_ms\":100}" : "null",
                 (c >> 4) % 4 == 3 ? "local" : "human");
    break;
  }
  case 3:
    n = snprintf(buf, sizeof buf,
                 "{\"type\":\"join\",\"id\":\"j\",\"room\":\"%s\",\"role\":\"%s\"}", code,
                 b & 1 ? "spectator" : "player");
    break;
  case 4:
    n = snprintf(buf, sizeof buf, "{\"type\":\"leave\",\"room\":\"%s\"}", code);
    break;
  case 5:
    n = snprintf(buf, sizeof buf, "{\"type\":\"lobby\",\"watch\":%s,\"changes\":%s}",
                 b & 1 ? "false" : "true", b & 2 ? "true" : "false");
    break;
  case 6:
  case 7:
  case 8: /* Moves, the most frequent: a ply near the room's own. */
    n = snprintf(buf, sizeof buf,
                 "{\"type\":\"move\",\"id\":%d,\"room\":\"%s\",\"house\":%d,\"ply\":%lld}", b, code,
                 1 + (b & 15) % 9,
                 ply + (b >> 6 == 3   ? -1
                        : b >> 6 == 2 ? 1
                                      : 0));
    break;
  case 9:
    n = snprintf(buf, sizeof buf, "{\"type\":\"resign\",\"room\":\"%s\"}", code);
    break;
  case 10:
    n = snprintf(buf, sizeof buf, "{\"type\":\"draw\",\"room\":\"%s\",\"action\":\"%s\"}", code,
                 b % 3 == 0   ? "offer"
                 : b % 3 == 1 ? "accept"
                              : "decline");
    break;
  case 11:
    n = snprintf(buf, sizeof buf, "{\"type\":\"rematch\",\"id\":2,\"room\":\"%s\"}", code);
    break;
  case 12:
    n = snprintf(buf, sizeof buf, "{\"type\":\"chat\",\"room\":\"%s\",\"text\":\"hi %d\"}", code,
                 b);
    break;
  default:
    n = snprintf(buf, sizeof buf, "{\"type\":\"resync\",\"room\":\"%s\"}", code);
    break;
  }
  FZ_CHECK(n > 0 && (size_t)n < sizeof buf);
  send_frame(f, who, buf, (size_t)n);
}

/* ---- Invariants -------------------------------------------------------------------------------
 */

static void check_world(fuzz_world *f) {
  long counts[3], seen[3] = {0, 0, 0};
  srv_rooms_count(f->w.rooms, counts);
  for (const srv_room *r = srv_rooms_first(f->w.rooms); r != NULL; r = srv_rooms_next(r)) {
    srv_status s = srv_room_status(r);
    FZ_CHECK(s >= SRV_WAITING && s <= SRV_FINISHED);
    seen[s]++;
    bool over = mc_game_over(srv_room_game(r), NULL);
    FZ_CHECK(s != SRV_PLAYING || !over);
    FZ_CHECK(s != SRV_FINISHED || over != srv_room_aborted(r)); /* Over, or aborted. */
    FZ_CHECK(s != SRV_PLAYING || (srv_room_seat(r, 0) != NULL && srv_room_seat(r, 1) != NULL));
    FZ_CHECK(srv_room_spectators(r) >= 0);
  }
  for (int s = 0; s < 3; s++)
    FZ_CHECK(seen[s] == counts[s]);
  /* The addresses' counts are never negative nor past the limits (6 rooms, 3 public). */
  for (int i = 0; i < 2; i++) {
    const srv_peer *p = f->peer[i];
    FZ_CHECK(p->rooms >= 0 && p->rooms <= 6 && p->public_rooms >= 0 && p->public_rooms <= 3);
    FZ_CHECK(p->public_rooms <= p->rooms && p->watchers >= 0 && p->watchers <= 1);
  }
  /* Keep each client's token (the placeholders use it). */
  for (int i = 0; i < NCLIENTS; i++) {
    const char *tok = field_s(&f->t[i], "welcome", "token");
    if (strlen(tok) == SRV_TOKEN_CHARS)
      memcpy(f->token[i], tok, SRV_TOKEN_CHARS + 1);
    if (f->t[i].n > 400)
      tclient_clear(&f->t[i]);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fuzz_world f;
  fz_in in = {data, size};
  srv_log_set_level(SRV_LOG_QUIET); /* Refused records log on every run. */
  memset(&f, 0, sizeof f);
  srv_room_limits limits = {5000, 20000, 30000, 3, 24, 8000, 6, 3, 0, 0, 0};
  world_init(&f.w, &limits);
  srv_recorder rec = {record, &f};
  srv_rooms_set_recorder(f.w.rooms, &rec);
  f.peers = srv_peers_new();
  FZ_CHECK(f.peers != NULL);
  f.peer[0] = srv_peers_get(f.peers, "203.0.113.1");
  f.peer[1] = srv_peers_get(f.peers, "2001:db8::/64");
  f.w.dispatch.time = &f.w.time.base;
  f.w.dispatch.players_per_addr = 6;
  srv_lobby_set_limit(f.w.lobby, 1);
  for (int i = 0; i < NCLIENTS; i++) {
    srv_client_init(&f.t[i].c, &f.t[i]);
    f.t[i].c.peer = f.peer[i / 2];
    f.online[i] = true;
    memset(f.token[i], '0', SRV_TOKEN_CHARS);
  }
  int ops = 0;
  while (in.n > 0 && ops++ < 2000) {
    uint8_t op = fz_u8(&in);
    int who = op & 3, kind = op >> 2;
    if (kind < 16) {
      uint16_t len = fz_u16(&in) % 4300;
      const uint8_t *bytes;
      size_t k = fz_bytes(&in, len, &bytes);
      raw_frame(&f, who, bytes, k);
    } else if (kind < 44) {
      templated(&f, who, (kind - 16) % 14, &in);
    } else if (kind < 50) {
      fake_advance(&f.w.time, (uint64_t)fz_u16(&in) * (kind == 49 ? 100 : 5));
    } else if (kind < 54) {
      if (f.online[who]) {
        disconnect(&f.w, &f.t[who]);
        f.online[who] = false;
      } else {
        srv_client_init(&f.t[who].c, &f.t[who]);
        f.t[who].c.peer = f.peer[who / 2];
        f.online[who] = true;
      }
    } else if (kind < 57) {
      srv_lobby_flush(f.w.lobby);
    } else if (kind < 61) {
      /* Storage lost writes of a room: its last moves, maybe its game's start. */
      uint8_t a = fz_u8(&in), b = fz_u8(&in);
      const srv_room *r = nth_room(&f, a % 10);
      if (r != NULL) {
        int ply = (int)mc_game_ply(srv_room_game(r));
        char code[SRV_CODE_LEN + 1];
        memcpy(code, srv_room_code(r), sizeof code);
        /* Its game's id is not known here: try the last ones the rooms gave. */
        int64_t id = f.last_game_id - (b >> 4) % 3;
        srv_rooms_store_lost(f.w.rooms, code, id, ply - 1 - (b & 3), (b >> 2) & 1, SRV_ESTORAGE);
      }
    } else {
      world_turn(&f.w);
    }
    check_world(&f);
  }
  for (int i = 0; i < NCLIENTS; i++) {
    if (f.online[i])
      disconnect(&f.w, &f.t[i]);
    tclient_clear(&f.t[i]);
  }
  world_free(&f.w);
  /* Every room and watcher gave its address back. */
  for (int i = 0; i < 2; i++) {
    FZ_CHECK(f.peer[i]->refs == 1 && f.peer[i]->rooms == 0 && f.peer[i]->public_rooms == 0 &&
             f.peer[i]->watchers == 0);
    srv_peer_unref(f.peer[i]);
  }
  FZ_CHECK(srv_peers_count(f.peers) == 0);
  srv_peers_free(f.peers);
  return 0;
}
