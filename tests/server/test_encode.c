/* The encoder: the fixed-schema writer (integers, escaped strings, the game pieces), every event
 * type encoded into a valid frame, and the contract when memory runs out: a frame is whole or not
 * made at all, never partial or malformed. */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_game.h"
#include "srv_error.h"
#include "srv_jsonw.h"
#include "srv_proto.h"
#include "task.h"

/* The writer's text as a new NUL-terminated string. */
static char *text_of(srv_jsonw *w) {
  ASSERT(!w->failed);
  char *s = malloc(w->len + 1);
  ASSERT_NOT_NULL(s);
  memcpy(s, w->buf, w->len);
  s[w->len] = '\0';
  return s;
}

#define ASSERT_WRITES(w, expected)                                                                 \
  do {                                                                                             \
    char *got_ = text_of(w);                                                                       \
    ASSERT_STR_EQ(got_, expected);                                                                 \
    free(got_);                                                                                    \
    srv_jsonw_reset(w);                                                                            \
  } while (0)

TEST_IMPL(integers) {
  static const long long values[] = {
      0,          7,         -1,       10,    -10,    99,   100,        101,
      999,        1000,      10000,    99999, 100000, -100, 1000000007, 1234567890123LL,
      -987654321, LLONG_MAX, LLONG_MIN};
  srv_jsonw w = SRV_JSONW_INIT;
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    char want[32];
    snprintf(want, sizeof want, "%lld", values[i]);
    srv_jsonw_int(&w, values[i]);
    ASSERT_WRITES(&w, want);
  }
  srv_jsonw_bool(&w, true);
  srv_jsonw_lit(&w, ",");
  srv_jsonw_bool(&w, false);
  ASSERT_WRITES(&w, "true,false");
  /* The same through a span's cursor. */
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    char want[48];
    snprintf(want, sizeof want, "[%lld,true,false]", values[i]);
    char *o = srv_jsonw_span(&w, 64);
    ASSERT_NOT_NULL(o);
    o = srv_jsonw_put_lit(o, "[");
    o = srv_jsonw_put_int(o, values[i]);
    o = srv_jsonw_put_lit(o, ",");
    o = srv_jsonw_put_bool(o, true);
    o = srv_jsonw_put_lit(o, ",");
    o = srv_jsonw_put_bool(o, false);
    o = srv_jsonw_put_lit(o, "]");
    srv_jsonw_span_end(&w, o);
    ASSERT_WRITES(&w, want);
  }
  srv_jsonw_free(&w);
  return 0;
}

TEST_IMPL(strings) {
  srv_jsonw w = SRV_JSONW_INIT;
  /* Quote, backslash and control characters are escaped; UTF-8 (é, €, an emoji) is kept. */
  const char *s = "a\"b\\c\nd\te\r\x01\x1f/\x7f é€😀";
  srv_jsonw_str(&w, s);
  ASSERT_WRITES(&w, "\"a\\\"b\\\\c\\nd\\te\\r\\u0001\\u001f/\x7f é€😀\"");
  /* And jansson reads back the same string. */
  srv_jsonw_str(&w, s);
  json_t *j = json_loadb(w.buf, w.len, JSON_DECODE_ANY, NULL);
  ASSERT(json_is_string(j));
  ASSERT_STR_EQ(json_string_value(j), s);
  json_decref(j);
  srv_jsonw_reset(&w);
  srv_jsonw_str(&w, NULL);
  ASSERT_WRITES(&w, "null");
  srv_jsonw_strn(&w, "abcdef", 3);
  ASSERT_WRITES(&w, "\"abc\"");
  srv_jsonw_str(&w, "");
  ASSERT_WRITES(&w, "\"\"");
  /* A long text grows the buffer. */
  char big[5000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  srv_jsonw_str(&w, big);
  ASSERT_EQ(w.len, sizeof big + 1);
  srv_jsonw_free(&w);
  return 0;
}

TEST_IMPL(pieces) {
  srv_jsonw w = SRV_JSONW_INIT;
  mc_rules r;
  ASSERT_EQ(mc_rules_init(&r, MC_KALAH), 0);
  srv_jsonw_options(&w, &r);
  ASSERT_WRITES(&w, "{\"empty_capture\":false}");
  ASSERT_EQ(mc_rules_init(&r, MC_OWARE), 0);
  r.grand_slam = MC_GS_FORBIDDEN;
  srv_jsonw_options(&w, &r);
  ASSERT_WRITES(&w, "{\"grand_slam\":\"forbidden\"}");
  ASSERT_EQ(mc_rules_init(&r, MC_CONGKAK), 0);
  r.match = true;
  srv_jsonw_options(&w, &r);
  ASSERT_WRITES(&w, "{\"lap_capture\":false,\"rounds\":\"match\"}");

  /* Kalah 2x3 after South plays house 2: 3 seeds go to the store, North 1 and North 2. */
  mc_pos p;
  memset(&p, 0, sizeof p);
  p.houses = 2;
  p.pits[0] = 3;
  p.pits[2] = 1;
  p.pits[3] = 4;
  p.pits[4] = 4;
  p.burnt = 1u << 1 | 1u << 4;
  srv_jsonw_pits(&w, &p);
  ASSERT_WRITES(&w, "[3,0,1,4,4,0]");
  /* Every width a pit's count has: one, two and three digits. */
  mc_pos q;
  memset(&q, 0, sizeof q);
  q.houses = 3;
  static const uint8_t counts[] = {255, 100, 99, 10, 9, 0, 1, 200};
  memcpy(q.pits, counts, sizeof counts);
  srv_jsonw_lit(&w, "x");
  srv_jsonw_pits(&w, &q);
  ASSERT_WRITES(&w, "x[255,100,99,10,9,0,1,200]");
  srv_jsonw_burnt(&w, &p);
  ASSERT_WRITES(&w, "[1,4]");
  p.burnt = 0;
  srv_jsonw_burnt(&w, &p);
  ASSERT_WRITES(&w, "[]");

  mc_step steps[] = {{MC_STEP_PICK, 1, 0, 0, 3},      {MC_STEP_SOW, 2, 0, 0, 1},
                     {MC_STEP_CAPTURE, 4, 2, 0, 5},   {MC_STEP_EXTRA_TURN, 2, 0, 0, 0},
                     {MC_STEP_ROUND_END, 0, 0, 0, 2}, {MC_STEP_BURN, 3, 0, 0, 0}};
  srv_jsonw_trace(&w, steps, 6);
  ASSERT_WRITES(&w, "[{\"kind\":\"pick\",\"pit\":1,\"count\":3},{\"kind\":\"sow\",\"pit\":2},"
                    "{\"kind\":\"capture\",\"pit\":4,\"count\":5,\"store\":2},"
                    "{\"kind\":\"extra_turn\",\"pit\":2},{\"kind\":\"round_end\",\"round\":2},"
                    "{\"kind\":\"burn\",\"pit\":3}]");
  srv_jsonw_trace(&w, steps, 0);
  ASSERT_WRITES(&w, "[]");
  srv_jsonw_free(&w);
  return 0;
}

/* A string is copied 8 bytes at a time up to the first word with something to escape: an escape
 * at every place of a 24-byte string, and bytes that are never escaped (0x20..0xff but '"' and
 * '\\', UTF-8 included) copied as they are. */
TEST_IMPL(strings_by_word) {
  static const struct {
    char c;
    const char *escaped;
  } specials[] = {{'"', "\\\""}, {'\\', "\\\\"},      {'\n', "\\n"},       {'\t', "\\t"},
                  {'\r', "\\r"}, {'\x01', "\\u0001"}, {'\x1f', "\\u001f"}, {'\0', "\\u0000"}};
  srv_jsonw w = SRV_JSONW_INIT;
  for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
    for (int at = 0; at < 24; at++) {
      char in[24], want[64];
      memset(in, 'a', sizeof in);
      in[at] = specials[k].c;
      snprintf(want, sizeof want, "\"%.*s%s%.*s\"", at, "aaaaaaaaaaaaaaaaaaaaaaaa",
               specials[k].escaped, 23 - at, "aaaaaaaaaaaaaaaaaaaaaaaa");
      srv_jsonw_strn(&w, in, sizeof in);
      ASSERT_WRITES(&w, want);
    }
  }
  char plain[256], want[260];
  size_t n = 0;
  for (int c = 0x20; c <= 0xff; c++)
    if (c != '"' && c != '\\')
      plain[n++] = (char)c;
  want[0] = '"';
  memcpy(want + 1, plain, n);
  want[n + 1] = '"';
  want[n + 2] = '\0';
  srv_jsonw_strn(&w, plain, n);
  ASSERT_WRITES(&w, want);
  /* Two escapes in one word, one in the next. */
  srv_jsonw_str(&w, "0123456\"8\\abcdefgh\nj");
  ASSERT_WRITES(&w, "\"0123456\\\"8\\\\abcdefgh\\nj\"");
  srv_jsonw_free(&w);
  return 0;
}

/* Every kind of step, a kind without a name, the largest numbers a step holds, and a trace long
 * enough to grow the buffer. */
TEST_IMPL(trace_every_step) {
  srv_jsonw w = SRV_JSONW_INIT;
  mc_step steps[] = {{MC_STEP_PICK, 13, 0, 0, 48},     {MC_STEP_RELAY, 255, 0, 0, 65535},
                     {MC_STEP_SWEEP, 9, 7, 0, 100},    {MC_STEP_REFILL, 0, 15, 0, 7},
                     {MC_STEP_SOW, 10, 0, 0, 1},       {MC_STEP_ROUND_END, 0, 0, 0, 12},
                     {MC_STEP_EXTRA_TURN, 6, 0, 0, 0}, {99, 4, 0, 0, 0}};
  srv_jsonw_trace(&w, steps, sizeof steps / sizeof steps[0]);
  ASSERT_WRITES(&w, "[{\"kind\":\"pick\",\"pit\":13,\"count\":48},"
                    "{\"kind\":\"relay\",\"pit\":255,\"count\":65535},"
                    "{\"kind\":\"sweep\",\"pit\":9,\"count\":100,\"store\":7},"
                    "{\"kind\":\"refill\",\"pit\":0,\"count\":7,\"store\":15},"
                    "{\"kind\":\"sow\",\"pit\":10},{\"kind\":\"round_end\",\"round\":12},"
                    "{\"kind\":\"extra_turn\",\"pit\":6},{\"kind\":null,\"pit\":4}]");
  enum { MANY = 3000 };
  static mc_step many[MANY];
  static char want[MANY * 24 + 3];
  size_t at = 0;
  want[at++] = '[';
  for (int i = 0; i < MANY; i++) {
    many[i] = (mc_step){MC_STEP_SOW, (uint8_t)(i % 14), 0, 0, 1};
    at += (size_t)snprintf(want + at, sizeof want - at, "%s{\"kind\":\"sow\",\"pit\":%d}",
                           i > 0 ? "," : "", i % 14);
  }
  want[at++] = ']';
  want[at] = '\0';
  srv_jsonw_lit(&w, "x"); /* Not at the start of the buffer. */
  srv_jsonw_trace(&w, many, MANY);
  ASSERT_EQ(w.len, at + 1);
  ASSERT(memcmp(w.buf + 1, want, at) == 0);
  srv_jsonw_free(&w);
  return 0;
}

/* Frames of every size around the pooled ones' bounds, made, written whole, freed and made again
 * (from the pool when pooled): under AddressSanitizer a frame's allocation too small for its text
 * fails here. */
TEST_IMPL(frame_sizes) {
  static const size_t lens[] = {0,   1,    400,  460,  480,  500,  600,  960,
                                990, 1000, 1100, 1900, 1980, 2000, 2100, 70000};
  for (int round = 0; round < 2; round++) {
    srv_frame *made[sizeof lens / sizeof lens[0]];
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
      made[i] = srv_frame_alloc(SRV_EV_STATE, false, "K7QX2M", lens[i]);
      ASSERT_NOT_NULL(made[i]);
      memset(srv_frame_buf(made[i]) - SRV_FRAME_PRE, 'h', SRV_FRAME_PRE);
      memset(srv_frame_buf(made[i]), 'a' + (int)(i % 26), lens[i]);
    }
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
      ASSERT_EQ(made[i]->len, lens[i]);
      ASSERT_EQ(strlen(srv_frame_text(made[i])), lens[i]);
      ASSERT_STR_EQ(made[i]->room, "K7QX2M");
      if (lens[i] > 0)
        ASSERT_EQ(srv_frame_text(made[i])[lens[i] - 1], 'a' + (int)(i % 26));
      srv_frame_unref(made[i]);
    }
  }
  srv_frame_pool_free();
  return 0;
}

/* ---- Every event type, and allocation failures ---------------------------------------------- */

static srv_player ana = {.id = "0123456789abcdef", .name = "Ana \"the\" \\best\\", .refs = 1};
static srv_room_opts opts;
static mc_game *game;
static mc_trace trace;
static srv_state_view view;
static srv_lobby_entry entries[2];
static srv_req_id int_id = {SRV_ID_INT, 42, ""}, str_id = {SRV_ID_STR, 0, "req \"1\""};

/* One event of each type (the state with a trace, the lobby with two rooms), ids included. */
static int make_events(srv_event *evs) {
  memset(&opts, 0, sizeof opts);
  ASSERT_EQ(mc_rules_init(&opts.rules, MC_KALAH), 0);
  opts.clocked = true;
  opts.initial_ms = 60000;
  opts.increment_ms = 1000;
  game = mc_game_new(&opts.rules);
  ASSERT_NOT_NULL(game);
  ASSERT_EQ(mc_game_play(game, 3, &trace), 0);
  memset(&view, 0, sizeof view);
  view.room = "K7QX2M";
  view.opts = &opts;
  view.game = game;
  view.status = SRV_PLAYING;
  view.game_no = 1;
  view.you = MC_SOUTH;
  view.seats[0].player = &ana;
  view.seats[0].connected = true;
  view.clocked = true;
  view.clock_ms[0] = 59000;
  view.clock_ms[1] = 60000;
  view.clock_running = MC_SOUTH;
  view.has_last = true;
  view.last_seat = MC_SOUTH;
  view.last_house = 3;
  view.trace = trace.steps;
  view.trace_len = trace.len;
  view.draw_offer = -1;
  view.draw_declined = -1;
  view.takeback_offer = MC_NORTH;
  view.takeback_declined = -1;
  view.first_move_seat = -1;
  view.abandon_seat = MC_NORTH;
  view.abandon_ms = 1234;
  entries[0] = (srv_lobby_entry){"K7QX2M", &opts, {"Ana", NULL}, SRV_WAITING, 0, {NULL, NULL}};
  entries[1] = (srv_lobby_entry){"ABCDEF", &opts, {"Bo", "Cy"}, SRV_PLAYING, 3, {NULL, NULL}};
  int n = 0;
  evs[n++] = (srv_event){.type = SRV_EV_STATE, .id = &int_id, .u.state = &view};
  srv_event lobby = {.type = SRV_EV_LOBBY, .id = &str_id};
  lobby.u.lobby.rooms = entries;
  lobby.u.lobby.n = 2;
  evs[n++] = lobby;
  srv_event joined = {.type = SRV_EV_JOINED};
  joined.u.joined.room = "K7QX2M";
  joined.u.joined.role = SRV_ROLE_PLAYER;
  joined.u.joined.seat = SRV_SEAT_BOTH;
  evs[n++] = joined;
  srv_event chat = {.type = SRV_EV_CHAT, .id = &str_id};
  chat.u.chat.room = "K7QX2M";
  chat.u.chat.from = ana.name;
  chat.u.chat.text = "gg \"well\" played\\ é";
  chat.u.chat.at = 1764412345678LL;
  evs[n++] = chat;
  srv_event error = {.type = SRV_EV_ERROR, .id = &int_id};
  error.u.error.err = SRV_EBADREQ;
  error.u.error.field = "options.rounds";
  error.u.error.request = "create";
  evs[n++] = error;
  srv_event welcome = {.type = SRV_EV_WELCOME, .id = &str_id};
  welcome.u.welcome.player = &ana;
  welcome.u.welcome.token = "feedface";
  welcome.u.welcome.storage = true;
  evs[n++] = welcome;
  srv_event left = {.type = SRV_EV_LEFT, .id = &int_id};
  left.u.left.room = "K7QX2M";
  evs[n++] = left;
  srv_event closed = {.type = SRV_EV_CLOSED};
  closed.u.closed.room = "K7QX2M";
  closed.u.closed.reason = "expired";
  evs[n++] = closed;
  srv_event bye = {.type = SRV_EV_BYE};
  bye.u.bye.reason = "shutdown";
  evs[n++] = bye;
  return n;
}

static const char *const type_names[] = {"welcome", "joined", "left",   "state", "lobby",
                                         "chat",    "error",  "closed", "bye"};

TEST_IMPL(every_event) {
  srv_event evs[16];
  int n = make_events(evs);
  for (int i = 0; i < n; i++) {
    srv_frame *f = srv_proto_encode(&evs[i]);
    ASSERT_NOT_NULL(f);
    ASSERT_EQ(strlen(srv_frame_text(f)), f->len);
    json_error_t err;
    json_t *j = json_loadb(srv_frame_text(f), f->len, JSON_REJECT_DUPLICATES, &err);
    if (!json_is_object(j))
      fprintf(stderr, "%s: %s\n", srv_frame_text(f), err.text);
    ASSERT(json_is_object(j));
    ASSERT_STR_EQ(json_string_value(json_object_get(j, "type")), type_names[evs[i].type]);
    ASSERT_EQ(f->type, evs[i].type);
    ASSERT_EQ(f->reply, evs[i].id != NULL);
    json_t *id = json_object_get(j, "id");
    if (evs[i].id == &int_id)
      ASSERT_EQ(json_integer_value(id), 42);
    else if (evs[i].id == &str_id)
      ASSERT_STR_EQ(json_string_value(id), "req \"1\"");
    else
      ASSERT_NULL(id);
    if (evs[i].type == SRV_EV_STATE) {
      ASSERT_STR_EQ(f->room, "K7QX2M");
      json_t *players = json_object_get(j, "players");
      ASSERT_STR_EQ(json_string_value(json_object_get(json_object_get(players, "south"), "name")),
                    ana.name);
      ASSERT(json_is_null(json_object_get(players, "north")));
      json_t *last = json_object_get(j, "last");
      ASSERT_EQ(json_array_size(json_object_get(last, "trace")), trace.len);
      ASSERT_EQ(json_integer_value(json_object_get(json_object_get(j, "abandon"), "ms")), 1234);
    }
    if (evs[i].type == SRV_EV_CHAT)
      ASSERT_STR_EQ(json_string_value(json_object_get(j, "text")), "gg \"well\" played\\ é");
    if (evs[i].type == SRV_EV_LOBBY)
      ASSERT_EQ(json_array_size(json_object_get(j, "rooms")), 2);
    json_decref(j);
    srv_frame_unref(f);
  }
  mc_game_free(game);
  return 0;
}

/* A state for another seat made from an encoded one (srv_proto_with_you(), what a room does
 * for its second player and its spectators) is the frame the encoder makes for that seat, byte
 * for byte, with or without a request id put in after; "you" reads as the seat's name. */
TEST_IMPL(state_for_each_seat) {
  srv_event evs[16];
  make_events(evs);
  srv_event ev = evs[0];
  ASSERT_EQ(ev.type, SRV_EV_STATE);
  static const int seats[] = {MC_SOUTH, MC_NORTH, SRV_SEAT_BOTH, SRV_SEAT_SPECTATOR};
  static const char *const names[] = {"south", "north", "both", "spectator"};
  for (int with_id = 0; with_id < 2; with_id++) {
    ev.id = with_id ? &int_id : NULL;
    view.you = MC_NORTH;
    srv_frame *base = srv_proto_encode(&ev);
    ASSERT_NOT_NULL(base);
    ASSERT(base->you_len > 0);
    for (int i = 0; i < 4; i++) {
      view.you = seats[i];
      srv_frame *direct = srv_proto_encode(&ev);
      srv_frame *made = srv_proto_with_you(base, seats[i]);
      ASSERT_NOT_NULL(direct);
      ASSERT_NOT_NULL(made);
      ASSERT_EQ(made->len, direct->len);
      ASSERT_STR_EQ(srv_frame_text(made), srv_frame_text(direct));
      ASSERT_EQ(made->type, direct->type);
      ASSERT_EQ(made->reply, direct->reply);
      ASSERT_EQ(made->full, direct->full);
      ASSERT_STR_EQ(made->room, "K7QX2M");
      ASSERT_EQ(made->you_at, direct->you_at);
      ASSERT_EQ(made->you_len, direct->you_len);
      json_error_t err;
      json_t *j = json_loadb(srv_frame_text(made), made->len, JSON_REJECT_DUPLICATES, &err);
      ASSERT(json_is_object(j));
      ASSERT_STR_EQ(json_string_value(json_object_get(j, "you")), names[i]);
      json_decref(j);
      if (!with_id) {
        /* The copy answering a request: the id goes in before "you", which still swaps. */
        srv_frame *reply = srv_proto_with_id(made, &str_id);
        ASSERT_NOT_NULL(reply);
        ASSERT(reply->reply);
        srv_frame *back = srv_proto_with_you(reply, MC_NORTH);
        ASSERT_NOT_NULL(back);
        srv_frame *north = srv_proto_with_id(base, &str_id);
        ASSERT_NOT_NULL(north);
        ASSERT_STR_EQ(srv_frame_text(back), srv_frame_text(north));
        j = json_loadb(srv_frame_text(back), back->len, JSON_REJECT_DUPLICATES, &err);
        ASSERT(json_is_object(j));
        ASSERT_STR_EQ(json_string_value(json_object_get(j, "you")), "north");
        ASSERT_STR_EQ(json_string_value(json_object_get(j, "id")), "req \"1\"");
        json_decref(j);
        srv_frame_unref(north);
        srv_frame_unref(back);
        srv_frame_unref(reply);
      }
      srv_frame_unref(made);
      srv_frame_unref(direct);
    }
    srv_frame_unref(base);
  }
  /* Any other frame has no "you" to swap. */
  srv_frame *chat = srv_proto_encode(&evs[3]);
  ASSERT_NOT_NULL(chat);
  ASSERT_EQ(chat->you_len, 0);
  ASSERT_NULL(srv_proto_with_you(chat, MC_SOUTH));
  srv_frame_unref(chat);
  srv_proto_encode_cleanup();
  mc_game_free(game);
  return 0;
}

/* The state encoded with view's cache (srv_state_cache) and without: the same text, returned as a
 * new string; and it must contain want (NULL: nothing to look for). */
static char *state_both_ways(srv_state_cache *cache, const char *want) {
  srv_event ev = {.type = SRV_EV_STATE, .u.state = &view};
  view.cache = NULL;
  srv_frame *plain = srv_proto_encode(&ev);
  view.cache = cache;
  srv_frame *cached = srv_proto_encode(&ev);
  ASSERT_NOT_NULL(plain);
  ASSERT_NOT_NULL(cached);
  ASSERT_STR_EQ(srv_frame_text(cached), srv_frame_text(plain));
  ASSERT_EQ(cached->you_at, plain->you_at);
  if (want != NULL && strstr(srv_frame_text(cached), want) == NULL) {
    fprintf(stderr, "no %s in %s\n", want, srv_frame_text(cached));
    ASSERT(false);
  }
  char *text = strdup(srv_frame_text(cached));
  ASSERT_NOT_NULL(text);
  srv_frame_unref(plain);
  srv_frame_unref(cached);
  return text;
}

/* A room's cache of its players and its board: a change of anything either shows (a name changed
 * in place, the connected flag, an account's rating and whether it is provisional, a seat taken, a
 * computer's level, the options, the room) is in the next frame, as the frame made without the
 * cache; so is what is never cached (the clock). The expected texts are written out by hand. */
TEST_IMPL(state_cache) {
  srv_event evs[16];
  make_events(evs);
  srv_player saved = ana;
  srv_player bo = {.id = "fedcba9876543210", .name = "Bo", .refs = 1};
  mc_pos pos = *mc_game_pos(game);
  mc_rules rules = *mc_game_rules(game);
  uint8_t legal[MC_MAX_HOUSES];
  view.pos = &pos; /* A kept state's position and rules, as a room's owed states have. */
  view.rules = &rules;
  view.ply = 1;
  view.legal = legal;
  view.nlegal = mc_game_legal(game, legal);
  srv_state_cache cache;
  memset(&cache, 0, sizeof cache);
  const char *ana_south = "\"players\":{\"south\":{\"id\":\"0123456789abcdef\",\"name\":\"Ana "
                          "\\\"the\\\" \\\\best\\\\\",\"connected\":true,\"computer\":false,"
                          "\"account\":false,\"level\":null,\"rating\":null,\"provisional\":false},"
                          "\"north\":null},";
  char *first = state_both_ways(&cache, ana_south);
  ASSERT(cache.players.valid && cache.board.valid);
  char *again = state_both_ways(&cache, ana_south); /* From the cache this time. */
  ASSERT_STR_EQ(again, first);
  free(again);
  free(first);
  strcpy(ana.name, "Bea"); /* In place: the same player, another name. */
  free(state_both_ways(&cache, "\"south\":{\"id\":\"0123456789abcdef\",\"name\":\"Bea\","
                               "\"connected\":true,"));
  view.seats[0].connected = false;
  free(state_both_ways(&cache, "\"name\":\"Bea\",\"connected\":false,\"computer\":false,"));
  ana.account = true;
  ana.ratings[MC_KALAH] = (srv_player_rating){.rating = 1612.4, .rd = 80.0};
  free(state_both_ways(&cache, "\"account\":true,\"level\":null,\"rating\":1612,"
                               "\"provisional\":false},\"north\":null},"));
  ana.ratings[MC_KALAH].rating = 1612.6;
  ana.ratings[MC_KALAH].rd = 200.0;
  free(state_both_ways(&cache, "\"rating\":1613,\"provisional\":true}"));
  view.seats[1].player = &bo;
  free(state_both_ways(&cache, "\"north\":{\"id\":\"fedcba9876543210\",\"name\":\"Bo\","
                               "\"connected\":false,\"computer\":false,\"account\":false,"
                               "\"level\":null,\"rating\":null,\"provisional\":false}},"));
  bo.computer = 3;
  view.seats[1].computer = true;
  view.seats[1].connected = true;
  free(state_both_ways(&cache, "\"name\":\"Bo\",\"connected\":true,\"computer\":true,"
                               "\"account\":false,\"level\":3,\"rating\":null,"));
  view.clock_ms[0] = 58000;
  free(state_both_ways(&cache, "\"clock\":{\"south_ms\":58000,\"north_ms\":60000,\"running\":"
                               "\"south\",\"initial_ms\":60000,\"increment_ms\":1000},"));
  free(state_both_ways(&cache, "\"room\":\"K7QX2M\",\"game\":\"kalah\",\"houses\":6,\"seeds\":4,"
                               "\"options\":{\"empty_capture\":false},"));
  rules.empty_capture = true;
  free(state_both_ways(&cache, "\"options\":{\"empty_capture\":true},"));
  rules.pie = true;
  free(state_both_ways(&cache, "\"options\":{\"empty_capture\":true,\"pie\":true},"));
  view.room = "ABCDEF";
  free(state_both_ways(&cache, "{\"type\":\"state\",\"room\":\"ABCDEF\",\"game\":\"kalah\","));
  view.seats[0].player = NULL;
  free(state_both_ways(&cache, "\"players\":{\"south\":null,\"north\":{\"id\""));
  srv_state_cache_free(&cache);
  srv_state_cache_free(NULL);
  ana = saved;
  view.cache = NULL;
  srv_proto_encode_cleanup();
  mc_game_free(game);
  return 0;
}

/* Allocations fail from the countdown's end on. */
static int countdown;

static void *failing_realloc(void *p, size_t n) {
  return countdown-- > 0 ? realloc(p, n) : NULL;
}

static void *failing_malloc(size_t n) {
  return countdown-- > 0 ? malloc(n) : NULL;
}

TEST_IMPL(out_of_memory) {
  srv_event evs[16];
  int n = make_events(evs);
  for (int i = 0; i < n; i++) {
    srv_frame *whole = srv_proto_encode(&evs[i]);
    ASSERT_NOT_NULL(whole);
    /* The k-th allocation fails, for every k until none does: the frame is NULL or whole. */
    bool made = false;
    for (int k = 0; !made && k < 200; k++) {
      srv_proto_encode_cleanup(); /* The writer grows its buffer again. */
      srv_jsonw_realloc = failing_realloc;
      srv_frame_malloc = failing_malloc;
      json_set_alloc_funcs(failing_malloc, free);
      countdown = k;
      srv_frame *f = srv_proto_encode(&evs[i]);
      srv_jsonw_realloc = realloc;
      srv_frame_malloc = malloc;
      json_set_alloc_funcs(malloc, free);
      if (f != NULL) {
        ASSERT_EQ(f->len, whole->len);
        ASSERT_STR_EQ(srv_frame_text(f), srv_frame_text(whole));
        srv_frame_unref(f);
        made = true;
      }
    }
    ASSERT(made);
    /* The same for a state made for another seat from an encoded one. */
    for (int k = 0; whole->you_len > 0 && k < 200; k++) {
      srv_frame *other = srv_proto_with_you(whole, SRV_SEAT_SPECTATOR);
      ASSERT_NOT_NULL(other);
      srv_proto_encode_cleanup();
      srv_jsonw_realloc = failing_realloc;
      srv_frame_malloc = failing_malloc;
      countdown = k;
      srv_frame *f = srv_proto_with_you(whole, SRV_SEAT_SPECTATOR);
      srv_jsonw_realloc = realloc;
      srv_frame_malloc = malloc;
      bool whole_one = f != NULL;
      if (f != NULL) {
        ASSERT_EQ(f->len, other->len);
        ASSERT_STR_EQ(srv_frame_text(f), srv_frame_text(other));
        srv_frame_unref(f);
      }
      srv_frame_unref(other);
      if (whole_one)
        break;
    }
    srv_frame_unref(whole);
  }
  srv_proto_encode_cleanup();
  mc_game_free(game);
  return 0;
}

/* A my_rooms list with entries of other nodes (a cluster): this node's rooms first, then the
 * others' texts as they are; an entry encoded alone (srv_proto_my_room_entry()) is the same
 * object as in a list. */
TEST_IMPL(my_rooms_with_other_nodes) {
  memset(&opts, 0, sizeof opts);
  ASSERT_EQ(mc_rules_init(&opts.rules, MC_KALAH), 0);
  mc_game *g = mc_game_new(&opts.rules);
  ASSERT_NOT_NULL(g);
  srv_my_room mine = {.room = "K7QX2M",
                      .opts = &opts,
                      .rules = mc_game_rules(g),
                      .status = SRV_WAITING,
                      .you = MC_NORTH,
                      .opponent = NULL,
                      .turn = -1,
                      .ply = 0,
                      .game_no = 0};
  static const char a[] = "{\"room\":\"ABCDEF\",\"ply\":7}", b[] = "{\"room\":\"GHJKLM\"}";
  srv_lobby_text more[] = {{a, strlen(a)}, {b, strlen(b)}};
  for (size_t local = 0; local <= 1; local++) {
    srv_event ev = {.type = SRV_EV_MY_ROOMS, .id = &int_id};
    ev.u.my_rooms.rooms = &mine;
    ev.u.my_rooms.n = local;
    ev.u.my_rooms.more = more;
    ev.u.my_rooms.n_more = 2;
    srv_frame *f = srv_proto_encode(&ev);
    ASSERT_NOT_NULL(f);
    json_error_t err;
    json_t *j = json_loadb(srv_frame_text(f), f->len, JSON_REJECT_DUPLICATES, &err);
    ASSERT(json_is_object(j));
    json_t *rooms = json_object_get(j, "rooms");
    ASSERT_EQ(json_array_size(rooms), local + 2);
    if (local) {
      json_t *r0 = json_array_get(rooms, 0);
      ASSERT_STR_EQ(json_string_value(json_object_get(r0, "room")), "K7QX2M");
      ASSERT_STR_EQ(json_string_value(json_object_get(r0, "you")), "north");
      ASSERT_STR_EQ(json_string_value(json_object_get(r0, "status")), "waiting");
      ASSERT(json_is_null(json_object_get(r0, "opponent")));
      ASSERT(json_is_false(json_object_get(r0, "your_turn")));
      char *text;
      size_t len;
      ASSERT_EQ(srv_proto_my_room_entry(&mine, &text, &len), 0);
      ASSERT_EQ(strlen(text), len);
      json_t *alone = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
      ASSERT(json_equal(alone, r0));
      json_decref(alone);
      free(text);
    }
    ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(rooms, local), "room")),
                  "ABCDEF");
    ASSERT_EQ(json_integer_value(json_object_get(json_array_get(rooms, local), "ply")), 7);
    ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(rooms, local + 1), "room")),
                  "GHJKLM");
    json_decref(j);
    srv_frame_unref(f);
  }
  srv_proto_encode_cleanup();
  mc_game_free(g);
  return 0;
}
