/* Protocol decoding and validation: every field of every message, and each kind of bad input. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_proto.h"
#include "task.h"

static srv_cmd cmd;
static srv_proto_error perr;

static int dec(const char *json) {
  return srv_proto_decode(json, strlen(json), &cmd, &perr);
}

/* Decoding must fail with err and name field (NULL: no field). */
#define BAD(json, err, fld)                                                                        \
  do {                                                                                             \
    ASSERT_EQ(dec(json), err);                                                                     \
    if ((fld) == NULL)                                                                             \
      ASSERT(perr.field == NULL);                                                                  \
    else                                                                                           \
      ASSERT_STR_EQ(perr.field, (const char *)(fld));                                              \
  } while (0)

TEST_IMPL(frames) {
  BAD("", SRV_EBADJSON, NULL);
  BAD("nonsense", SRV_EBADJSON, NULL);
  BAD("[1,2]", SRV_EBADJSON, NULL);
  BAD("\"hello\"", SRV_EBADJSON, NULL);
  BAD("{\"type\":\"hello\"", SRV_EBADJSON, NULL);
  BAD("{\"type\":\"hello\",\"type\":\"hello\"}", SRV_EBADJSON, NULL); /* Duplicate keys. */
  BAD("{}", SRV_EBADREQ, "type");
  BAD("{\"type\":7}", SRV_EBADREQ, "type");
  BAD("{\"type\":\"dance\"}", SRV_EUNKTYPE, NULL);
  BAD("{\"type\":\"HELLO\"}", SRV_EUNKTYPE, NULL);
  char big[SRV_FRAME_MAX + 64];
  memset(big, ' ', sizeof big);
  memcpy(big, "{\"type\":\"hello\"}", 16);
  ASSERT_EQ(srv_proto_decode(big, sizeof big, &cmd, &perr), SRV_ETOOLARGE);
  ASSERT_EQ(srv_proto_decode(big, SRV_FRAME_MAX, &cmd, &perr), 0);
  return 0;
}

TEST_IMPL(ids) {
  ASSERT_EQ(dec("{\"type\":\"lobby\",\"id\":42}"), 0);
  ASSERT_EQ(cmd.id.kind, SRV_ID_INT);
  ASSERT_EQ(cmd.id.num, 42);
  ASSERT_EQ(dec("{\"type\":\"lobby\",\"id\":\"abc\"}"), 0);
  ASSERT_EQ(cmd.id.kind, SRV_ID_STR);
  ASSERT_STR_EQ(cmd.id.str, "abc");
  ASSERT_EQ(dec("{\"type\":\"lobby\"}"), 0);
  ASSERT_EQ(cmd.id.kind, SRV_ID_NONE);
  BAD("{\"type\":\"lobby\",\"id\":1.5}", SRV_EBADREQ, "id");
  BAD("{\"type\":\"lobby\",\"id\":{}}", SRV_EBADREQ, "id");
  BAD("{\"type\":\"lobby\",\"id\":"
      "\"0123456789012345678901234567890123456789012345678901234567890123456789\"}",
      SRV_EBADREQ, "id");
  /* The id is known even when the rest is bad, so the error can echo it. */
  ASSERT_EQ(dec("{\"type\":\"move\",\"id\":7,\"room\":\"ABCDEF\"}"), SRV_EBADREQ);
  ASSERT_EQ(cmd.id.num, 7);
  ASSERT_STR_EQ(perr.field, "house");
  ASSERT_STR_EQ(perr.request, "move");
  ASSERT_EQ(dec("{\"type\":\"nope\",\"id\":\"q\"}"), SRV_EUNKTYPE);
  ASSERT_STR_EQ(cmd.id.str, "q");
  srv_req_id id;
  srv_proto_peek_id("{\"id\":9,\"type\":1}", 17, &id);
  ASSERT_EQ(id.kind, SRV_ID_INT);
  ASSERT_EQ(id.num, 9);
  srv_proto_peek_id("garbage", 7, &id);
  ASSERT_EQ(id.kind, SRV_ID_NONE);
  return 0;
}

/* The pie rule's swap is a move without a house (docs/protocol.md, "The pie rule"); the option
 * pie belongs to every game and is on by default in rated Congkak only. */
TEST_IMPL(swap) {
  ASSERT_EQ(dec("{\"type\":\"move\",\"room\":\"ABCDEF\",\"swap\":true,\"ply\":2}"), 0);
  ASSERT_EQ(cmd.type, SRV_CMD_MOVE);
  ASSERT(cmd.swap);
  ASSERT_EQ(cmd.house, MC_SWAP);
  ASSERT_EQ(cmd.ply, 2);
  ASSERT_EQ(dec("{\"type\":\"move\",\"room\":\"ABCDEF\",\"house\":3,\"swap\":false,\"ply\":2}"), 0);
  ASSERT(!cmd.swap);
  ASSERT_EQ(cmd.house, 3);
  BAD("{\"type\":\"move\",\"room\":\"ABCDEF\",\"house\":3,\"swap\":true,\"ply\":2}", SRV_EBADREQ,
      "swap");
  BAD("{\"type\":\"move\",\"room\":\"ABCDEF\",\"swap\":false,\"ply\":2}", SRV_EBADREQ, "house");
  BAD("{\"type\":\"move\",\"room\":\"ABCDEF\",\"swap\":1,\"ply\":2}", SRV_EBADREQ, "house");
  BAD("{\"type\":\"move\",\"room\":\"ABCDEF\",\"swap\":true}", SRV_EBADREQ, "ply");

  ASSERT_EQ(dec("{\"type\":\"create\",\"game\":\"oware\",\"options\":{\"pie\":true}}"), 0);
  ASSERT(cmd.opts.rules.pie);
  ASSERT_EQ(dec("{\"type\":\"create\",\"game\":\"congkak\"}"), 0);
  ASSERT(!cmd.opts.rules.pie);
  const char *rated = "{\"type\":\"create\",\"game\":\"congkak\",\"rated\":true,"
                      "\"clock\":{\"initial_ms\":600000}%s}";
  char buf[256];
  snprintf(buf, sizeof buf, rated, "");
  ASSERT_EQ(dec(buf), 0);
  ASSERT(cmd.opts.rules.pie);
  snprintf(buf, sizeof buf, rated, ",\"options\":{\"pie\":false}");
  ASSERT_EQ(dec(buf), 0);
  ASSERT(!cmd.opts.rules.pie);
  ASSERT_EQ(dec("{\"type\":\"create\",\"game\":\"kalah\",\"rated\":true,"
                "\"clock\":{\"initial_ms\":600000}}"),
            0);
  ASSERT(!cmd.opts.rules.pie);
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"options\":{\"pie\":\"on\"}}", SRV_EBADREQ,
      "options.pie");
  return 0;
}

TEST_IMPL(hello) {
  ASSERT_EQ(dec("{\"type\":\"hello\",\"name\":\"  Ana  \"}"), 0);
  ASSERT_EQ(cmd.type, SRV_CMD_HELLO);
  ASSERT(cmd.has_name);
  ASSERT_STR_EQ(cmd.name, "Ana");
  ASSERT(!cmd.has_token);
  ASSERT_EQ(dec("{\"type\":\"hello\"}"), 0);
  ASSERT(!cmd.has_name);
  ASSERT_EQ(dec("{\"type\":\"hello\",\"name\":null}"), 0);
  ASSERT(!cmd.has_name);
  /* 24 characters, multi-byte ones included, are fine; 25 are not. */
  ASSERT_EQ(dec("{\"type\":\"hello\",\"name\":\"ŻółćŻółćŻółćŻółćŻółćŻółć\"}"), 0);
  ASSERT_STR_EQ(cmd.name, "ŻółćŻółćŻółćŻółćŻółćŻółć");
  BAD("{\"type\":\"hello\",\"name\":\"ŻółćŻółćŻółćŻółćŻółćŻółćx\"}", SRV_EBADREQ, "name");
  BAD("{\"type\":\"hello\",\"name\":\"\"}", SRV_EBADREQ, "name");
  BAD("{\"type\":\"hello\",\"name\":\"    \"}", SRV_EBADREQ, "name");
  BAD("{\"type\":\"hello\",\"name\":\"a\\nb\"}", SRV_EBADREQ, "name");
  BAD("{\"type\":\"hello\",\"name\":\"a\\u0000b\"}", SRV_EBADJSON, NULL); /* jansson refuses NUL. */
  BAD("{\"type\":\"hello\",\"name\":\"a\\u0085b\"}", SRV_EBADREQ, "name");
  BAD("{\"type\":\"hello\",\"name\":5}", SRV_EBADREQ, "name");
  /* Invisible names and bidirectional overrides (srv_names.h, tests in test_names.c). */
  BAD("{\"type\":\"hello\",\"name\":\"\\u200b\\u200b\"}", SRV_EBADREQ, "name");
  BAD("{\"type\":\"hello\",\"name\":\"\\u00a0\"}", SRV_EBADREQ, "name");
  BAD("{\"type\":\"hello\",\"name\":\"\\ufeff\"}", SRV_EBADREQ, "name");
  BAD("{\"type\":\"hello\",\"name\":\"Ana\\u202e\"}", SRV_EBADREQ, "name");
  const char *tok = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  char buf[200];
  snprintf(buf, sizeof buf, "{\"type\":\"hello\",\"token\":\"%s\"}", tok);
  ASSERT_EQ(dec(buf), 0);
  ASSERT(cmd.has_token);
  ASSERT_STR_EQ(cmd.token, tok);
  ASSERT_EQ(dec("{\"type\":\"hello\",\"token\":\"short\"}"), 0); /* Unknown: a new identity. */
  ASSERT(!cmd.has_token);
  BAD("{\"type\":\"hello\",\"token\":12}", SRV_EBADREQ, "token");
  return 0;
}

TEST_IMPL(create) {
  ASSERT_EQ(dec("{\"type\":\"create\",\"game\":\"kalah\"}"), 0);
  ASSERT_EQ(cmd.type, SRV_CMD_CREATE);
  ASSERT_EQ(cmd.opts.rules.kind, MC_KALAH);
  ASSERT_EQ(cmd.opts.rules.houses, 6);
  ASSERT_EQ(cmd.opts.rules.seeds, 4);
  ASSERT_EQ(cmd.opts.visibility, SRV_PUBLIC);
  ASSERT_EQ(cmd.opts.seat, SRV_CHOOSE_RANDOM);
  ASSERT(!cmd.opts.clocked);
  ASSERT_EQ(cmd.opts.opponent, SRV_OPP_HUMAN);
  ASSERT_EQ(dec("{\"type\":\"create\",\"game\":\"congkak\"}"), 0);
  ASSERT_EQ(cmd.opts.rules.houses, 7);
  ASSERT_EQ(cmd.opts.rules.seeds, 7);
  ASSERT_EQ(dec("{\"type\":\"create\",\"game\":\"oware\",\"houses\":4,\"seeds\":3,"
                "\"options\":{\"grand_slam\":\"forbidden\"},\"visibility\":\"private\","
                "\"seat\":\"north\",\"clock\":{\"initial_ms\":300000,\"increment_ms\":2000},"
                "\"opponent\":\"local\",\"level\":3}"),
            0);
  ASSERT_EQ(cmd.opts.rules.kind, MC_OWARE);
  ASSERT_EQ(cmd.opts.rules.houses, 4);
  ASSERT_EQ(cmd.opts.rules.seeds, 3);
  ASSERT_EQ(cmd.opts.rules.grand_slam, MC_GS_FORBIDDEN);
  ASSERT_EQ(cmd.opts.visibility, SRV_PRIVATE);
  ASSERT_EQ(cmd.opts.seat, SRV_CHOOSE_NORTH);
  ASSERT(cmd.opts.clocked);
  ASSERT_EQ(cmd.opts.initial_ms, 300000);
  ASSERT_EQ(cmd.opts.increment_ms, 2000);
  ASSERT_EQ(cmd.opts.opponent, SRV_OPP_LOCAL);
  ASSERT_EQ(cmd.opts.level, 3);
  ASSERT_EQ(dec("{\"type\":\"create\",\"game\":\"congkak\",\"options\":{\"lap_capture\":true,"
                "\"rounds\":\"match\"},\"clock\":null}"),
            0);
  ASSERT(cmd.opts.rules.lap_capture);
  ASSERT(cmd.opts.rules.match);
  ASSERT(!cmd.opts.clocked);
  ASSERT_EQ(dec("{\"type\":\"create\",\"game\":\"kalah\",\"options\":{\"empty_capture\":true},"
                "\"clock\":{\"initial_ms\":1000}}"),
            0);
  ASSERT(cmd.opts.rules.empty_capture);
  ASSERT_EQ(cmd.opts.increment_ms, 0);
  /* Unknown fields are ignored (forward compatibility). */
  ASSERT_EQ(dec("{\"type\":\"create\",\"game\":\"kalah\",\"colour\":\"blue\"}"), 0);

  BAD("{\"type\":\"create\"}", SRV_EBADREQ, "game");
  BAD("{\"type\":\"create\",\"game\":\"chess\"}", SRV_EBADREQ, "game");
  BAD("{\"type\":\"create\",\"game\":\"Kalah\"}", SRV_EBADREQ, "game");
  BAD("{\"type\":\"create\",\"game\":1}", SRV_EBADREQ, "game");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"houses\":0}", SRV_EBADREQ, "houses");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"houses\":10}", SRV_EBADREQ, "houses");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"houses\":\"6\"}", SRV_EBADREQ, "houses");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"houses\":6.5}", SRV_EBADREQ, "houses");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"seeds\":0}", SRV_EBADREQ, "seeds");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"seeds\":13}", SRV_EBADREQ, "seeds");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"options\":[]}", SRV_EBADREQ, "options");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"options\":{\"grand_slam\":\"capture\"}}",
      SRV_EBADREQ, "options.grand_slam");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"options\":{\"empty_capture\":1}}", SRV_EBADREQ,
      "options.empty_capture");
  BAD("{\"type\":\"create\",\"game\":\"oware\",\"options\":{\"grand_slam\":\"sometimes\"}}",
      SRV_EBADREQ, "options.grand_slam");
  BAD("{\"type\":\"create\",\"game\":\"congkak\",\"options\":{\"rounds\":\"three\"}}", SRV_EBADREQ,
      "options.rounds");
  BAD("{\"type\":\"create\",\"game\":\"congkak\",\"options\":{\"speed\":1}}", SRV_EBADREQ,
      "options.speed");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"visibility\":\"secret\"}", SRV_EBADREQ,
      "visibility");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"east\"}", SRV_EBADREQ, "seat");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"clock\":5}", SRV_EBADREQ, "clock");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"clock\":{}}", SRV_EBADREQ, "clock.initial_ms");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"clock\":{\"initial_ms\":50}}", SRV_EBADREQ,
      "clock.initial_ms");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"clock\":{\"initial_ms\":1000,\"increment_ms\":-1}"
      "}",
      SRV_EBADREQ, "clock.increment_ms");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"clock\":{\"initial_ms\":1000,\"increment_ms\":"
      "\"1\"}}",
      SRV_EBADREQ, "clock.increment_ms");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"opponent\":\"robot\"}", SRV_EBADREQ, "opponent");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"level\":0}", SRV_EBADREQ, "level");
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"level\":7}", SRV_EBADREQ, "level");
  /* quick takes the same fields. */
  ASSERT_EQ(dec("{\"type\":\"quick\",\"game\":\"oware\",\"clock\":{\"initial_ms\":60000,"
                "\"increment_ms\":0}}"),
            0);
  ASSERT_EQ(cmd.type, SRV_CMD_QUICK);
  BAD("{\"type\":\"quick\"}", SRV_EBADREQ, "game");
  return 0;
}

TEST_IMPL(room_commands) {
  ASSERT_EQ(dec("{\"type\":\"join\",\"room\":\"k7qx2m\"}"), 0);
  ASSERT_EQ(cmd.type, SRV_CMD_JOIN);
  ASSERT_STR_EQ(cmd.room, "K7QX2M");
  ASSERT_EQ(cmd.role, SRV_ROLE_PLAYER);
  ASSERT_EQ(dec("{\"type\":\"join\",\"room\":\"K7QX2M\",\"role\":\"spectator\"}"), 0);
  ASSERT_EQ(cmd.role, SRV_ROLE_SPECTATOR);
  /* Not a code of ours (wrong length, I, O, 0, 1): valid frame, unknown room. */
  ASSERT_EQ(dec("{\"type\":\"join\",\"room\":\"nope\"}"), 0);
  ASSERT_STR_EQ(cmd.room, "");
  ASSERT_EQ(dec("{\"type\":\"join\",\"room\":\"ABCDE0\"}"), 0);
  ASSERT_STR_EQ(cmd.room, "");
  BAD("{\"type\":\"join\"}", SRV_EBADREQ, "room");
  BAD("{\"type\":\"join\",\"room\":123456}", SRV_EBADREQ, "room");
  BAD("{\"type\":\"join\",\"room\":\"ABCDEF\",\"role\":\"king\"}", SRV_EBADREQ, "role");
  BAD("{\"type\":\"leave\"}", SRV_EBADREQ, "room");
  ASSERT_EQ(dec("{\"type\":\"leave\",\"room\":\"ABCDEF\"}"), 0);
  ASSERT_EQ(cmd.type, SRV_CMD_LEAVE);

  ASSERT_EQ(dec("{\"type\":\"lobby\"}"), 0);
  ASSERT(cmd.watch);
  ASSERT_EQ(dec("{\"type\":\"lobby\",\"watch\":false}"), 0);
  ASSERT(!cmd.watch);
  BAD("{\"type\":\"lobby\",\"watch\":\"no\"}", SRV_EBADREQ, "watch");

  ASSERT_EQ(dec("{\"type\":\"move\",\"room\":\"ABCDEF\",\"house\":3,\"ply\":12}"), 0);
  ASSERT_EQ(cmd.house, 3);
  ASSERT(cmd.has_ply);
  ASSERT_EQ(cmd.ply, 12);
  ASSERT_EQ(dec("{\"type\":\"move\",\"room\":\"ABCDEF\",\"house\":9,\"ply\":0}"), 0);
  ASSERT_EQ(cmd.house, 9);
  BAD("{\"type\":\"move\",\"room\":\"ABCDEF\"}", SRV_EBADREQ, "house");
  BAD("{\"type\":\"move\",\"room\":\"ABCDEF\",\"house\":0}", SRV_EBADREQ, "house");
  BAD("{\"type\":\"move\",\"room\":\"ABCDEF\",\"house\":10}", SRV_EBADREQ, "house");
  BAD("{\"type\":\"move\",\"room\":\"ABCDEF\",\"house\":\"3\"}", SRV_EBADREQ, "house");
  BAD("{\"type\":\"move\",\"room\":\"ABCDEF\",\"house\":3,\"ply\":-1}", SRV_EBADREQ, "ply");
  BAD("{\"type\":\"move\",\"room\":\"ABCDEF\",\"house\":3,\"ply\":1.0}", SRV_EBADREQ, "ply");
  BAD("{\"type\":\"move\",\"house\":3}", SRV_EBADREQ, "room");

  ASSERT_EQ(dec("{\"type\":\"resign\",\"room\":\"ABCDEF\"}"), 0);
  ASSERT_EQ(cmd.type, SRV_CMD_RESIGN);
  BAD("{\"type\":\"resign\"}", SRV_EBADREQ, "room");
  ASSERT_EQ(dec("{\"type\":\"rematch\",\"room\":\"ABCDEF\"}"), 0);
  ASSERT_EQ(cmd.type, SRV_CMD_REMATCH);
  BAD("{\"type\":\"rematch\",\"room\":null}", SRV_EBADREQ, "room");

  ASSERT_EQ(dec("{\"type\":\"draw\",\"room\":\"ABCDEF\",\"action\":\"offer\"}"), 0);
  ASSERT_EQ(cmd.action, SRV_DRAW_OFFER);
  ASSERT_EQ(dec("{\"type\":\"draw\",\"room\":\"ABCDEF\",\"action\":\"accept\"}"), 0);
  ASSERT_EQ(cmd.action, SRV_DRAW_ACCEPT);
  ASSERT_EQ(dec("{\"type\":\"draw\",\"room\":\"ABCDEF\",\"action\":\"decline\"}"), 0);
  ASSERT_EQ(cmd.action, SRV_DRAW_DECLINE);
  BAD("{\"type\":\"draw\",\"room\":\"ABCDEF\"}", SRV_EBADREQ, "action");
  BAD("{\"type\":\"draw\",\"room\":\"ABCDEF\",\"action\":\"maybe\"}", SRV_EBADREQ, "action");

  ASSERT_EQ(dec("{\"type\":\"chat\",\"room\":\"ABCDEF\",\"text\":\"gg\"}"), 0);
  ASSERT_STR_EQ(cmd.text, "gg");
  BAD("{\"type\":\"chat\",\"room\":\"ABCDEF\"}", SRV_EBADREQ, "text");
  BAD("{\"type\":\"chat\",\"room\":\"ABCDEF\",\"text\":\"\"}", SRV_EBADREQ, "text");
  /* Control characters are dropped (a line break is a space); nothing left is no line. */
  ASSERT_EQ(dec("{\"type\":\"chat\",\"room\":\"ABCDEF\",\"text\":\"a\\u0007b\\nc\"}"), 0);
  ASSERT_STR_EQ(cmd.text, "ab c");
  BAD("{\"type\":\"chat\",\"room\":\"ABCDEF\",\"text\":\"\\u0007\\u202e \"}", SRV_EBADREQ, "text");
  /* A name with a bidirectional override is refused (it could pass for another name). */
  BAD("{\"type\":\"hello\",\"name\":\"Ana\\u202e\"}", SRV_EBADREQ, "name");
  char buf[2048];
  /* 300 two-byte characters pass; 301 do not. */
  int n = snprintf(buf, sizeof buf, "{\"type\":\"chat\",\"room\":\"ABCDEF\",\"text\":\"");
  for (int i = 0; i < 300; i++)
    n += snprintf(buf + n, sizeof buf - (size_t)n, "é");
  snprintf(buf + n, sizeof buf - (size_t)n, "\"}");
  ASSERT_EQ(dec(buf), 0);
  snprintf(buf + n, sizeof buf - (size_t)n, "x\"}");
  BAD(buf, SRV_EBADREQ, "text");
  return 0;
}

/* The frame of ev as JSON text with sorted keys (a new string). */
static char *encoded(const srv_event *ev) {
  srv_frame *f = srv_proto_encode(ev);
  ASSERT_NOT_NULL(f);
  json_t *j = json_loadb(srv_frame_text(f), f->len, 0, NULL);
  ASSERT_NOT_NULL(j);
  char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
  json_decref(j);
  srv_frame_unref(f);
  return s;
}

TEST_IMPL(encode) {
  srv_req_id id = {SRV_ID_STR, 0, "r1"};
  srv_event ev = {.type = SRV_EV_ERROR, .id = &id};
  ev.u.error.err = SRV_ESTALE;
  ev.u.error.request = "move";
  char *s = encoded(&ev);
  ASSERT_STR_EQ(s,
                "{\"code\":\"stale\",\"id\":\"r1\",\"message\":\"The move was made for an earlier "
                "position.\",\"request\":\"move\",\"type\":\"error\"}");
  free(s);
  ev.type = SRV_EV_JOINED;
  ev.id = NULL;
  ev.u.joined.room = "ABCDEF";
  ev.u.joined.role = SRV_ROLE_SPECTATOR;
  ev.u.joined.seat = SRV_SEAT_NONE;
  s = encoded(&ev);
  ASSERT_STR_EQ(s,
                "{\"role\":\"spectator\",\"room\":\"ABCDEF\",\"seat\":null,\"type\":\"joined\"}");
  free(s);
  /* Every error code has a distinct protocol name. */
  for (int a = SRV_E_BASE_ + 1; a < SRV_E_END_; a++)
    for (int b = a + 1; b < SRV_E_END_; b++)
      ASSERT(strcmp(srv_err_code(a), srv_err_code(b)) != 0);
  ASSERT_STR_EQ(srv_err_code(12345), "internal");
  return 0;
}

/* An unknown option's name comes back in "field" cut at 40 bytes, never inside a character
 * (security probe, finding 11: a cut UTF-8 character made the error frame lose its field). The
 * key "a" + 30 x "é" (2 bytes each) is cut after "a" and 19 "é" (39 bytes: byte 40 would start
 * the second half of the 20th); 14 x "€" (3 bytes each) after 13 (39 bytes); an ASCII key of 50
 * bytes after exactly 40. The error frame then carries the field. */
TEST_IMPL(option_key_cut) {
  char key[128] = "a", want[128] = "options.a";
  for (int i = 0; i < 30; i++)
    strcat(key, "\u00e9");
  for (int i = 0; i < 19; i++)
    strcat(want, "\xc3\xa9");
  char frame[512];
  snprintf(frame, sizeof frame, "{\"type\":\"create\",\"game\":\"kalah\",\"options\":{\"%s\":1}}",
           key);
  BAD(frame, SRV_EBADREQ, want);
  strcpy(want, "options.");
  for (int i = 0; i < 13; i++)
    strcat(want, "\xe2\x82\xac");
  snprintf(frame, sizeof frame, "{\"type\":\"create\",\"game\":\"kalah\",\"options\":{\"%s\":1}}",
           "\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac");
  BAD(frame, SRV_EBADREQ, want);
  BAD("{\"type\":\"create\",\"game\":\"kalah\",\"options\":{"
      "\"abcdefghijabcdefghijabcdefghijabcdefghijabcdefghij\":1}}",
      SRV_EBADREQ, "options.abcdefghijabcdefghijabcdefghijabcdefghij");
  /* The error frame keeps it. */
  srv_event ev = {.type = SRV_EV_ERROR};
  ev.u.error.err = SRV_EBADREQ;
  ev.u.error.field = perr.field;
  srv_frame *f = srv_proto_encode(&ev);
  ASSERT_NOT_NULL(f);
  json_t *j = json_loadb(srv_frame_text(f), f->len, 0, NULL);
  ASSERT_STR_EQ(json_string_value(json_object_get(j, "field")), perr.field);
  json_decref(j);
  srv_frame_unref(f);
  return 0;
}

/* ---- The fast path of move against the full decoder ---------------------------------------- */

static unsigned rnd_state = 20261130;

static unsigned rnd(unsigned n) {
  rnd_state = rnd_state * 1103515245u + 12345u;
  return (rnd_state >> 16) % n;
}

/* Appends one of the ways a field can be written: one of the first two (usual ones) half of the
 * time, any of them otherwise. */
static void pick(char *out, size_t size, const char *const *options, size_t n) {
  size_t i = rnd(2) ? rnd(2) : rnd((unsigned)n);
  strncat(out, options[i], size - strlen(out) - 1);
}

#define PICK(out, options) pick(out, sizeof out, options, sizeof options / sizeof options[0])

/* Both decoders give the same command, the same code and the same error details for thousands of
 * move frames, usual and odd (whitespace, key order, ids of both kinds, rooms, houses and plies in
 * and out of range, escapes, duplicates, extra fields, other types, broken JSON); and the common
 * ones take the fast path. */
TEST_IMPL(move_fast_path_agrees) {
  static const char *const types[] = {"\"type\":\"move\"",       "\"type\":\"move\"",
                                      "\"type\" : \"move\"",     "\"type\":\"resign\"",
                                      "\"type\":\"m\\u006fve\"", "\"type\":7"};
  static const char *const rooms[] = {
      "\"room\":\"K7QX2M\"",       "\"room\":\"k7qx2m\"", "\"room\":\"ABCDE0\"",
      "\"room\":\"nope\"",         "\"room\":\"\"",       "\"room\":\"K7QX2MM\"",
      "\"room\":\"K7\\u0051X2M\"", "\"room\":12",         "\"room\":null",
      "\"room\":\"K7QX2M\"",       "\"room\":\"ABCDEF\"", "\"room\":\"\\u00e9CDEFG\""};
  static const char *const houses[] = {"\"house\":3",  "\"house\":1",   "\"house\":9",
                                       "\"house\":0",  "\"house\":10",  "\"house\":-1",
                                       "\"house\":03", "\"house\":3.0", "\"house\":\"3\"",
                                       "\"house\":4",  "\"house\":6",   "\"house\":1e0"};
  static const char *const plies[] = {
      "\"ply\":0",    "\"ply\":12",   "\"ply\":1099511627776",         "\"ply\":1099511627777",
      "\"ply\":-1",   "\"ply\":12.5", "\"ply\":123456789012345678901", "\"ply\":7",
      "\"ply\":null", "\"ply\":400"};
  static const char *const ids[] = {
      "",
      "\"id\":7",
      "\"id\":\"m1\"",
      "\"id\":-3",
      "\"id\":\"a \\\"quoted\\\" id\"",
      "\"id\":null",
      "\"id\":\"\"",
      "\"id\":1.5",
      "\"id\":"
      "\"0123456789012345678901234567890123456789012345678901234567890123"
      "4\"",
      "\"id\":123456789012345",
      "\"id\":{}",
      "\"id\":\"é\""};
  static const char *const extras[] = {
      "", "", "", "", "\"note\":1", "\"room\":\"ABCDEF\"", "\"house\":2"};
  static const char *const spaces[] = {"", "", " ", "\n", "\t ", "\r\n"};
  int fast = 0, trials = 20000;
  for (int t = 0; t < trials; t++) {
    /* Four to six fields in a random order. */
    char fields[6][256];
    int n = 0;
    fields[n][0] = '\0';
    PICK(fields[n], types);
    n++;
    fields[n][0] = '\0';
    PICK(fields[n], rooms);
    n++;
    fields[n][0] = '\0';
    PICK(fields[n], houses);
    n++;
    fields[n][0] = '\0';
    PICK(fields[n], plies);
    n++;
    fields[n][0] = '\0';
    PICK(fields[n], ids);
    if (fields[n][0] != '\0')
      n++;
    fields[n][0] = '\0';
    PICK(fields[n], extras);
    if (fields[n][0] != '\0')
      n++;
    if (rnd(10) == 0)
      n--; /* A field missing. */
    for (int i = n - 1; i > 0; i--) {
      int j = (int)rnd((unsigned)i + 1);
      char tmp[256];
      memcpy(tmp, fields[i], sizeof tmp);
      memcpy(fields[i], fields[j], sizeof tmp);
      memcpy(fields[j], tmp, sizeof tmp);
    }
    char frame[2048] = "";
    PICK(frame, spaces);
    strcat(frame, "{");
    for (int i = 0; i < n; i++) {
      PICK(frame, spaces);
      strcat(frame, fields[i]);
      PICK(frame, spaces);
      if (i + 1 < n)
        strcat(frame, ",");
    }
    strcat(frame, "}");
    PICK(frame, spaces);
    if (rnd(40) == 0)
      strcat(frame, rnd(2) ? "x" : ",");
    if (rnd(40) == 0)
      frame[rnd((unsigned)strlen(frame))] = rnd(2) ? '"' : '}';

    srv_cmd a, b;
    srv_proto_error ea = {NULL, NULL}, eb = {NULL, NULL};
    int ra = srv_proto_decode(frame, strlen(frame), &a, &ea);
    int rb = srv_proto_decode_full(frame, strlen(frame), &b, &eb);
    if (ra != rb || memcmp(&a, &b, sizeof a) != 0 || (ea.field == NULL) != (eb.field == NULL) ||
        (ea.field && strcmp(ea.field, eb.field) != 0) ||
        (ea.request == NULL) != (eb.request == NULL) ||
        (ea.request && strcmp(ea.request, eb.request) != 0))
      TEST_FAIL_("the decoders disagree on %s: %d and %d", frame, ra, rb);
    srv_cmd c;
    if (srv_proto_decode_move(frame, strlen(frame), &c) == 1) {
      fast++;
      ASSERT_EQ(rb, 0);
      ASSERT_EQ(memcmp(&c, &b, sizeof c), 0);
    }
  }
  /* The usual shapes are common among these frames: many take the fast path. */
  ASSERT_GT(fast, trials / 20);
  /* The frame a client sends takes it. */
  const char *usual = "{\"type\":\"move\",\"room\":\"K7QX2M\",\"house\":3,\"ply\":12,\"id\":7}";
  ASSERT_EQ(srv_proto_decode_move(usual, strlen(usual), &cmd), 1);
  ASSERT_EQ(cmd.type, SRV_CMD_MOVE);
  ASSERT_STR_EQ(cmd.room, "K7QX2M");
  ASSERT_EQ(cmd.house, 3);
  ASSERT_EQ(cmd.ply, 12);
  ASSERT_EQ(cmd.id.num, 7);
  return 0;
}

/* A room code's characters: the alphabet "ABCDEFGHJKLMNPQRSTUVWXYZ23456789" in either case, read in
 * upper case; every other printable character makes the code unknown (""). By both decoders. */
TEST_IMPL(room_code_alphabet) {
  static const char alphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  for (int c = 0x20; c < 0x7f; c++) {
    if (c == '"' || c == '\\')
      continue;
    int up = c >= 'a' && c <= 'z' ? c - 32 : c;
    bool in = strchr(alphabet, up) != NULL;
    ASSERT_EQ(srv_proto_code_char(c), in);
    char frame[96], want[8];
    snprintf(frame, sizeof frame, "{\"type\":\"move\",\"room\":\"K7QX2%c\",\"house\":1,\"ply\":0}",
             c);
    snprintf(want, sizeof want, "K7QX2%c", up);
    for (int full = 0; full < 2; full++) {
      int rc = full ? srv_proto_decode_full(frame, strlen(frame), &cmd, &perr) : dec(frame);
      ASSERT_EQ(rc, 0);
      ASSERT_STR_EQ(cmd.room, in ? want : "");
    }
  }
  ASSERT(!srv_proto_code_char(0));
  ASSERT(!srv_proto_code_char(0xc9));
  return 0;
}
