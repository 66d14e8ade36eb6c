/* Protocol v1, incoming: the message table, the field validators and the decoder (srv_proto.h). */
#include "srv_proto.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "srv_error.h"
#include "srv_names.h"
#include "srv_rating.h"
#include "srv_text.h"

/* The code alphabet, "ABCDEFGHJKLMNPQRSTUVWXYZ23456789" (no I, O, 0 or 1), either case: c in upper
 * case, or 0 when c is not in it. */
static inline int code_upper(int c) {
  if (c >= 'a' && c <= 'z')
    c -= 'a' - 'A';
  if ((c >= 'A' && c <= 'Z' && c != 'I' && c != 'O') || (c >= '2' && c <= '9'))
    return c;
  return 0;
}

int srv_proto_code_char(int c) {
  return code_upper(c) != 0;
}

/* ---- Decoding ------------------------------------------------------------------------------ */

typedef enum jkind { J_STRING, J_INTEGER, J_BOOL, J_OBJECT, J_OBJECT_OR_NULL } jkind;

/* A store function checks one present field and writes it into cmd. Returns 0 or SRV_EBADREQ;
 * it may set *field to a more precise name ("clock.initial_ms"). */
typedef int (*store_fn)(srv_cmd *cmd, json_t *value, const char **field);

typedef struct field_spec {
  const char *name;
  jkind kind;
  int required;
  store_fn store;
} field_spec;

#define MAX_FIELDS 11

typedef struct msg_spec {
  const char *type;
  srv_cmd_type cmd;
  field_spec fields[MAX_FIELDS];
} msg_spec;

static int enum_index(json_t *value, const char *const *names) {
  return srv_name_index(names, json_string_value(value), json_string_length(value));
}

static int store_name(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  cmd->has_name = true;
  const char *s = json_string_value(v);
  size_t len = json_string_length(v);
  if (strlen(s) != len)
    return SRV_EBADREQ; /* An embedded NUL. */
  return srv_name_check(s, len, cmd->name, sizeof cmd->name);
}

static int store_token(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  const char *s = json_string_value(v);
  if (json_string_length(v) > 128 || strlen(s) != json_string_length(v))
    return SRV_EBADREQ;
  /* A token that is not one of ours cannot match; it still only asks for a new identity. */
  if (strlen(s) == SRV_TOKEN_CHARS) {
    memcpy(cmd->token, s, SRV_TOKEN_CHARS + 1);
    cmd->has_token = true;
  }
  return 0;
}

static int store_game(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  mc_kind kind;
  if (mc_kind_parse(json_string_value(v), &kind) != 0)
    return SRV_EBADREQ;
  return mc_rules_init(&cmd->opts.rules, kind) == 0 ? 0 : SRV_EBADREQ;
}

static int int_in(json_t *v, long long min, long long max, long long *out) {
  long long n = json_integer_value(v);
  if (n < min || n > max)
    return SRV_EBADREQ;
  *out = n;
  return 0;
}

static int store_houses(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  long long n;
  if (int_in(v, MC_MIN_HOUSES, MC_MAX_HOUSES, &n) != 0)
    return SRV_EBADREQ;
  cmd->opts.rules.houses = (uint8_t)n;
  return 0;
}

static int store_seeds(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  long long n;
  if (int_in(v, MC_MIN_SEEDS, MC_MAX_SEEDS, &n) != 0)
    return SRV_EBADREQ;
  cmd->opts.rules.seeds = (uint8_t)n;
  return 0;
}

static int store_options(srv_cmd *cmd, json_t *v, const char **field) {
  const char *key;
  json_t *opt;
  mc_rules *r = &cmd->opts.rules;
  json_object_foreach(v, key, opt) {
    if (strcmp(key, "empty_capture") == 0 && json_is_boolean(opt) && r->kind == MC_KALAH) {
      r->empty_capture = json_is_true(opt);
    } else if (strcmp(key, "lap_capture") == 0 && json_is_boolean(opt) && r->kind == MC_CONGKAK) {
      r->lap_capture = json_is_true(opt);
    } else if (strcmp(key, "grand_slam") == 0 && json_is_string(opt) && r->kind == MC_OWARE) {
      mc_grand_slam mode;
      if (mc_grand_slam_parse(json_string_value(opt), &mode) != 0) {
        *field = "options.grand_slam";
        return SRV_EBADREQ;
      }
      r->grand_slam = mode;
    } else if (strcmp(key, "pie") == 0 && json_is_boolean(opt)) {
      r->pie = json_is_true(opt); /* Every game's. */
    } else if (strcmp(key, "rounds") == 0 && json_is_string(opt) && r->kind == MC_CONGKAK) {
      int i = enum_index(opt, srv_rounds_names);
      if (i < 0) {
        *field = "options.rounds";
        return SRV_EBADREQ;
      }
      r->match = i == 1;
    } else {
      /* Unknown, mistyped, or an option of another game: its name, cut at 40 bytes on a
       * character boundary (the field goes back in a JSON string). */
      static char bad[64];
      size_t n = strlen(key) > 40 ? 40 : strlen(key);
      while (n > 0 && n < strlen(key) && ((unsigned char)key[n] & 0xc0) == 0x80)
        n--;
      snprintf(bad, sizeof bad, "options.%.*s", (int)n, key);
      *field = bad;
      return SRV_EBADREQ;
    }
  }
  return 0;
}

static int store_visibility(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  int i = enum_index(v, srv_visibility_names);
  if (i < 0)
    return SRV_EBADREQ;
  cmd->opts.visibility = (srv_visibility)i;
  return 0;
}

static int store_seat(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  int i = enum_index(v, srv_seat_choice_names);
  if (i < 0)
    return SRV_EBADREQ;
  cmd->opts.seat = (srv_seat_choice)i;
  return 0;
}

/* Clock limits: 100 ms to 24 h to start with, up to 10 minutes of increment. */
#define CLOCK_MIN_MS 100
#define CLOCK_MAX_MS 86400000
#define INCREMENT_MAX_MS 600000

static int store_clock(srv_cmd *cmd, json_t *v, const char **field) {
  if (json_is_null(v)) {
    cmd->opts.clocked = false;
    return 0;
  }
  json_t *initial = json_object_get(v, "initial_ms");
  json_t *inc = json_object_get(v, "increment_ms");
  long long n;
  if (!json_is_integer(initial) || int_in(initial, CLOCK_MIN_MS, CLOCK_MAX_MS, &n) != 0) {
    *field = "clock.initial_ms";
    return SRV_EBADREQ;
  }
  cmd->opts.initial_ms = n;
  cmd->opts.increment_ms = 0;
  if (inc != NULL) {
    if (!json_is_integer(inc) || int_in(inc, 0, INCREMENT_MAX_MS, &n) != 0) {
      *field = "clock.increment_ms";
      return SRV_EBADREQ;
    }
    cmd->opts.increment_ms = n;
  }
  cmd->opts.clocked = true;
  return 0;
}

static int store_opponent(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  int i = enum_index(v, srv_opponent_names);
  if (i < 0)
    return SRV_EBADREQ;
  cmd->opts.opponent = (srv_opponent)i;
  return 0;
}

static int store_level(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  long long n;
  if (int_in(v, 1, 6, &n) != 0)
    return SRV_EBADREQ;
  cmd->opts.level = (int)n;
  return 0;
}

/* Writes the room code of the len bytes at s into cmd->room, upper case; "" when it is not a
 * code of ours (the room will not be found). Both decoders store a room this way. */
static void room_code(srv_cmd *cmd, const char *s, size_t len) {
  cmd->room[0] = '\0';
  if (len != SRV_CODE_LEN)
    return;
  char up[SRV_CODE_LEN];
  for (int i = 0; i < SRV_CODE_LEN; i++) {
    up[i] = (char)code_upper((unsigned char)s[i]);
    if (up[i] == 0)
      return;
  }
  memcpy(cmd->room, up, SRV_CODE_LEN);
  cmd->room[SRV_CODE_LEN] = '\0';
}

static int store_room(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  room_code(cmd, json_string_value(v), json_string_length(v));
  return 0;
}

static int store_role(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  int i = enum_index(v, srv_role_names);
  if (i < 0)
    return SRV_EBADREQ;
  cmd->role = (srv_role)i;
  return 0;
}

static int store_watch(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  cmd->watch = json_is_true(v);
  return 0;
}

static int store_changes(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  cmd->changes = json_is_true(v);
  return 0;
}

static int store_house(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  long long n;
  if (int_in(v, 1, MC_MAX_HOUSES, &n) != 0)
    return SRV_EBADREQ;
  cmd->house = (int)n;
  return 0;
}

/* The pie rule's swap, a move without a house: the command's house is MC_SWAP (checked against
 * a house in decode_fields()). */
static int store_swap(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  cmd->swap = json_is_true(v);
  return 0;
}

static int store_ply(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  if (int_in(v, 0, 1LL << 40, &cmd->ply) != 0)
    return SRV_EBADREQ;
  cmd->has_ply = true;
  return 0;
}

static int store_action(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  int i = enum_index(v, srv_draw_action_names);
  if (i < 0)
    return SRV_EBADREQ;
  cmd->action = (srv_draw_action)i;
  return 0;
}

static int store_rated(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  cmd->opts.rated = json_is_true(v);
  return 0;
}

static int store_hints(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  cmd->opts.hints = json_is_true(v);
  return 0;
}

/* A password: any string of 1..128 characters without NUL is one (a login tries it); a new one
 * needs SRV_PASSWORD_MIN characters (weak_password). Never trimmed: spaces count. */
static int copy_password(json_t *v, char *out, long min, int short_err) {
  const char *s = json_string_value(v);
  size_t len = json_string_length(v);
  if (strlen(s) != len || len >= SRV_PASSWORD_SIZE)
    return SRV_EBADREQ;
  long n = 0;
  for (size_t i = 0; i < len; i++)
    n += ((unsigned char)s[i] & 0xc0) != 0x80;
  if (n < 1 || n > SRV_PASSWORD_MAX)
    return n < 1 ? SRV_EBADREQ : short_err;
  if (n < min)
    return short_err;
  memcpy(out, s, len + 1);
  return 0;
}

static int store_password(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  return copy_password(v, cmd->password, 1, SRV_EBADREQ);
}

static int store_new_password(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  char *out = cmd->type == SRV_CMD_CHANGE_PASSWORD ? cmd->new_password : cmd->password;
  return copy_password(v, out, SRV_PASSWORD_MIN, SRV_EPASSWORD);
}

/* A device's label: cleaned like a chat line, 1..SRV_DEVICE_MAX bytes after it. */
static int store_device(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  const char *s = json_string_value(v);
  size_t len = json_string_length(v);
  if (strlen(s) != len || len > 4 * SRV_DEVICE_MAX)
    return SRV_EBADREQ;
  if (srv_text_clean(s, len, cmd->device, sizeof cmd->device, 1, SRV_DEVICE_MAX) < 0 ||
      strlen(cmd->device) > SRV_DEVICE_MAX) {
    cmd->device[0] = '\0';
    return SRV_EBADREQ;
  }
  return 0;
}

/* A session's id: 16 lowercase hexadecimal digits. */
static int store_session(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  const char *s = json_string_value(v);
  if (json_string_length(v) != SRV_SESSION_ID_CHARS ||
      strspn(s, "0123456789abcdef") != SRV_SESSION_ID_CHARS)
    return SRV_EBADREQ;
  memcpy(cmd->session, s, SRV_SESSION_ID_CHARS + 1);
  return 0;
}

/* A chat line is cleaned rather than refused: line breaks become spaces, other control
 * characters and reordering bidirectional characters are dropped (srv_text.h). */
static int store_text(srv_cmd *cmd, json_t *v, const char **field) {
  (void)field;
  const char *s = json_string_value(v);
  size_t len = json_string_length(v);
  if (strlen(s) != len)
    return SRV_EBADREQ; /* An embedded NUL. */
  return srv_text_clean(s, len, cmd->text, sizeof cmd->text, 1, SRV_CHAT_MAX) < 0 ? SRV_EBADREQ : 0;
}

#define CREATE_FIELDS                                                                              \
  {"game", J_STRING, 1, store_game}, {"houses", J_INTEGER, 0, store_houses},                       \
      {"seeds", J_INTEGER, 0, store_seeds}, {"options", J_OBJECT, 0, store_options},               \
      {"visibility", J_STRING, 0, store_visibility}, {"seat", J_STRING, 0, store_seat},            \
      {"clock", J_OBJECT_OR_NULL, 0, store_clock}, {"opponent", J_STRING, 0, store_opponent},      \
      {"level", J_INTEGER, 0, store_level}, {"rated", J_BOOL, 0, store_rated}, {                   \
    "hints", J_BOOL, 0, store_hints                                                                \
  }
#define ROOM_FIELD                                                                                 \
  { "room", J_STRING, 1, store_room }

/* The message table: every request type with its fields, in the order they are checked. */
static const msg_spec messages[] = {
    {"hello",
     SRV_CMD_HELLO,
     {{"name", J_STRING, 0, store_name}, {"token", J_STRING, 0, store_token}}},
    {"create", SRV_CMD_CREATE, {CREATE_FIELDS}},
    {"join", SRV_CMD_JOIN, {ROOM_FIELD, {"role", J_STRING, 0, store_role}}},
    {"quick", SRV_CMD_QUICK, {CREATE_FIELDS}},
    {"leave", SRV_CMD_LEAVE, {ROOM_FIELD}},
    {"lobby",
     SRV_CMD_LOBBY,
     {{"watch", J_BOOL, 0, store_watch}, {"changes", J_BOOL, 0, store_changes}}},
    {"move",
     SRV_CMD_MOVE,
     {ROOM_FIELD,
      {"house", J_INTEGER, 1, store_house},
      {"swap", J_BOOL, 0, store_swap},
      {"ply", J_INTEGER, 1, store_ply}}},
    {"resign", SRV_CMD_RESIGN, {ROOM_FIELD}},
    {"draw", SRV_CMD_DRAW, {ROOM_FIELD, {"action", J_STRING, 1, store_action}}},
    {"rematch", SRV_CMD_REMATCH, {ROOM_FIELD}},
    {"chat", SRV_CMD_CHAT, {ROOM_FIELD, {"text", J_STRING, 1, store_text}}},
    {"resync", SRV_CMD_RESYNC, {ROOM_FIELD}},
    {"register",
     SRV_CMD_REGISTER,
     {{"name", J_STRING, 1, store_name},
      {"password", J_STRING, 1, store_new_password},
      {"device", J_STRING, 0, store_device}}},
    {"login",
     SRV_CMD_LOGIN,
     {{"name", J_STRING, 1, store_name},
      {"password", J_STRING, 1, store_password},
      {"device", J_STRING, 0, store_device}}},
    {"logout", SRV_CMD_LOGOUT, {{NULL, J_STRING, 0, NULL}}},
    {"logout_all", SRV_CMD_LOGOUT_ALL, {{NULL, J_STRING, 0, NULL}}},
    {"change_password",
     SRV_CMD_CHANGE_PASSWORD,
     {{"password", J_STRING, 1, store_password},
      {"new_password", J_STRING, 1, store_new_password}}},
    {"delete_account", SRV_CMD_DELETE_ACCOUNT, {{"password", J_STRING, 1, store_password}}},
    {"takeback", SRV_CMD_TAKEBACK, {ROOM_FIELD, {"action", J_STRING, 1, store_action}}},
    {"my_rooms", SRV_CMD_MY_ROOMS, {{"watch", J_BOOL, 0, store_watch}}},
    {"hint", SRV_CMD_HINT, {ROOM_FIELD, {"ply", J_INTEGER, 0, store_ply}}},
    {"sessions", SRV_CMD_SESSIONS, {{NULL, J_STRING, 0, NULL}}},
    {"revoke_session", SRV_CMD_REVOKE_SESSION, {{"session", J_STRING, 1, store_session}}},
};

#define N_MESSAGES (sizeof messages / sizeof messages[0])

const char *srv_proto_cmd_name(srv_cmd_type type) {
  for (size_t i = 0; i < N_MESSAGES; i++) {
    if (messages[i].cmd == type)
      return messages[i].type;
  }
  return NULL;
}

static int kind_ok(json_t *v, jkind kind) {
  switch (kind) {
  case J_STRING:
    return json_is_string(v);
  case J_INTEGER:
    return json_is_integer(v);
  case J_BOOL:
    return json_is_boolean(v);
  case J_OBJECT:
    return json_is_object(v);
  case J_OBJECT_OR_NULL:
    return json_is_object(v) || json_is_null(v);
  }
  return 0;
}

static void cmd_defaults(srv_cmd *cmd) {
  memset(cmd, 0, sizeof *cmd);
  cmd->opts.visibility = SRV_PUBLIC;
  cmd->opts.seat = SRV_CHOOSE_RANDOM;
  cmd->opts.opponent = SRV_OPP_HUMAN;
  cmd->opts.level = 1;
  cmd->role = SRV_ROLE_PLAYER;
  cmd->watch = true;
}

static int decode_id(json_t *root, srv_cmd *cmd) {
  json_t *id = json_object_get(root, "id");
  if (id == NULL || json_is_null(id))
    return 0;
  if (json_is_integer(id)) {
    cmd->id.kind = SRV_ID_INT;
    cmd->id.num = json_integer_value(id);
    return 0;
  }
  if (json_is_string(id) && json_string_length(id) < SRV_ID_SIZE &&
      strlen(json_string_value(id)) == json_string_length(id)) {
    cmd->id.kind = SRV_ID_STR;
    memcpy(cmd->id.str, json_string_value(id), json_string_length(id) + 1);
    return 0;
  }
  return SRV_EBADREQ;
}

static int decode_fields(json_t *root, const msg_spec *spec, srv_cmd *cmd, srv_proto_error *err) {
  for (int i = 0; i < MAX_FIELDS && spec->fields[i].name != NULL; i++) {
    const field_spec *f = &spec->fields[i];
    json_t *v = json_object_get(root, f->name);
    /* An explicit null counts as absent, except for the clock where null means "no clock". */
    if (v == NULL || (json_is_null(v) && f->kind != J_OBJECT_OR_NULL)) {
      /* A move's house is required unless the move is the pie rule's swap. */
      bool swap = spec->cmd == SRV_CMD_MOVE && strcmp(f->name, "house") == 0 &&
                  json_is_true(json_object_get(root, "swap"));
      if (f->required && !swap) {
        err->field = f->name;
        return SRV_EBADREQ;
      }
      continue;
    }
    err->field = f->name;
    if (!kind_ok(v, f->kind))
      return SRV_EBADREQ;
    int rc = f->store(cmd, v, &err->field);
    if (rc != 0)
      return rc;
  }
  err->field = NULL;
  if (cmd->type == SRV_CMD_MOVE) {
    /* A move is a house or the swap (the house is required without the swap), never both. */
    if (cmd->swap && cmd->house != 0) {
      err->field = "swap";
      return SRV_EBADREQ;
    }
    if (cmd->swap)
      cmd->house = MC_SWAP;
  }
  if (cmd->type == SRV_CMD_CREATE || cmd->type == SRV_CMD_QUICK) {
    /* The pie rule is on by default in rated Congkak (its first mover's advantage is large). */
    json_t *opts = json_object_get(root, "options");
    if (cmd->opts.rated && cmd->opts.rules.kind == MC_CONGKAK &&
        (opts == NULL || json_object_get(opts, "pie") == NULL))
      cmd->opts.rules.pie = true;
    if (mc_rules_check(&cmd->opts.rules) != 0) {
      err->field = "options";
      return SRV_EBADREQ;
    }
    /* Only the default board of a game, against a person, with a clock, is rated. */
    if (cmd->opts.rated && !srv_rating_rateable(&cmd->opts)) {
      err->field = "rated";
      return SRV_EBADREQ;
    }
    /* Against rating farming: a rated clock has a minimum (srv_rating_clock_ok()). */
    if (cmd->opts.rated && !srv_rating_clock_ok(cmd->opts.initial_ms, cmd->opts.increment_ms)) {
      err->field = "clock";
      return SRV_EBADREQ;
    }
    /* Hints are a casual room's option: never in a rated game. Quick play's rooms have none
     * (the computer and local games have hints anyway). */
    if (cmd->opts.hints && cmd->opts.rated) {
      err->field = "hints";
      return SRV_EBADREQ;
    }
    if (cmd->type == SRV_CMD_QUICK)
      cmd->opts.hints = false;
  }
  return 0;
}

void srv_proto_peek_id(const char *buf, size_t len, srv_req_id *id) {
  srv_cmd cmd;
  memset(id, 0, sizeof *id);
  if (len > SRV_FRAME_MAX)
    return;
  json_t *root = json_loadb(buf, len, 0, NULL);
  memset(&cmd.id, 0, sizeof cmd.id);
  if (json_is_object(root) && decode_id(root, &cmd) == 0)
    *id = cmd.id;
  json_decref(root);
}

/* ---- The fast path of move ------------------------------------------------------------------- */

/* A scanner over one frame for the fast path: it only ever says "this is the common shape" or
 * "not sure", never an error of its own. */
typedef struct scan {
  const char *p, *end;
} scan;

static void skip_ws(scan *s) {
  /* Compact JSON has none: one test of a byte above ' ' ends it. */
  while (s->p < s->end && (unsigned char)*s->p <= ' ' &&
         (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
    s->p++;
}

static bool eat(scan *s, char c) {
  skip_ws(s);
  if (s->p < s->end && *s->p == c) {
    s->p++;
    return true;
  }
  return false;
}

/* The bytes a plain string holds: printable ASCII but '"' and '\\'. */
static bool plain_byte[256];
static pthread_once_t plain_byte_once = PTHREAD_ONCE_INIT;

static void plain_byte_make(void) {
  for (int c = 0x20; c < 0x7f; c++)
    plain_byte[c] = c != '"' && c != '\\';
}

/* A string of printable ASCII without escapes: *str and *len. Anything else (an escape, a control
 * character, UTF-8 that jansson would have to check) is for the full decoder. */
static bool plain_string(scan *s, const char **str, size_t *len) {
  if (!eat(s, '"'))
    return false;
  const char *start = s->p, *p = s->p, *end = s->end;
  while (p < end && plain_byte[(unsigned char)*p])
    p++;
  if (p == end || *p != '"')
    return false;
  *str = start;
  *len = (size_t)(p - start);
  s->p = p + 1;
  return true;
}

/* Whether the n bytes at key are the literal k (n and sizeof k - 1 equal). */
#define KEY_IS(key, n, k) ((n) == sizeof(k) - 1 && memcmp((key), (k), sizeof(k) - 1) == 0)

/* A JSON integer of at most 15 digits (no sign, no fraction, no exponent, no leading zero). */
static bool small_integer(scan *s, long long *out) {
  skip_ws(s);
  const char *start = s->p;
  long long v = 0;
  while (s->p < s->end && *s->p >= '0' && *s->p <= '9' && s->p - start < 16)
    v = v * 10 + (*s->p++ - '0');
  size_t n = (size_t)(s->p - start);
  if (n == 0 || n > 15 || (n > 1 && *start == '0'))
    return false;
  if (s->p < s->end && (*s->p == '.' || *s->p == 'e' || *s->p == 'E' || *s->p == '-'))
    return false;
  *out = v;
  return true;
}

int srv_proto_decode_move(const char *buf, size_t len, srv_cmd *cmd) {
  pthread_once(&plain_byte_once, plain_byte_make);
  scan s = {buf, buf + len};
  enum { TYPE = 1, ROOM = 2, HOUSE = 4, PLY = 8, ID = 16 };
  unsigned seen = 0;
  const char *room = NULL;
  size_t room_len = 0;
  long long house = 0, ply = 0;
  srv_req_id id;
  memset(&id, 0, sizeof id); /* Padding included: the command is byte for byte the full one's. */
  if (len > SRV_FRAME_MAX || !eat(&s, '{'))
    return 0;
  do {
    const char *key, *str;
    size_t klen, slen;
    if (!plain_string(&s, &key, &klen) || !eat(&s, ':'))
      return 0;
    unsigned bit = KEY_IS(key, klen, "type")    ? TYPE
                   : KEY_IS(key, klen, "room")  ? ROOM
                   : KEY_IS(key, klen, "house") ? HOUSE
                   : KEY_IS(key, klen, "ply")   ? PLY
                   : KEY_IS(key, klen, "id")    ? ID
                                                : 0;
    if (bit == 0 || (seen & bit))
      return 0; /* Another field, or twice the same: the full decoder says what it is. */
    seen |= bit;
    switch (bit) {
    case TYPE:
      if (!plain_string(&s, &str, &slen) || !KEY_IS(str, slen, "move"))
        return 0;
      break;
    case ROOM:
      if (!plain_string(&s, &room, &room_len))
        return 0;
      break;
    case HOUSE:
      if (!small_integer(&s, &house) || house < 1 || house > MC_MAX_HOUSES)
        return 0;
      break;
    case PLY:
      if (!small_integer(&s, &ply) || ply > (1LL << 40))
        return 0;
      break;
    case ID:
      skip_ws(&s);
      if (s.p < s.end && *s.p == '"') {
        if (!plain_string(&s, &str, &slen) || slen >= SRV_ID_SIZE)
          return 0;
        id.kind = SRV_ID_STR;
        memcpy(id.str, str, slen);
        id.str[slen] = '\0';
      } else {
        if (!small_integer(&s, &id.num))
          return 0;
        id.kind = SRV_ID_INT;
      }
      break;
    }
  } while (eat(&s, ','));
  if (!eat(&s, '}'))
    return 0;
  skip_ws(&s);
  if (s.p != s.end || (seen & (TYPE | ROOM | HOUSE | PLY)) != (TYPE | ROOM | HOUSE | PLY))
    return 0;
  cmd_defaults(cmd);
  cmd->type = SRV_CMD_MOVE;
  cmd->id = id;
  room_code(cmd, room, room_len);
  cmd->house = (int)house;
  cmd->has_ply = true;
  cmd->ply = ply;
  return 1;
}

/* ---- Decoding ----------------------------------------------------------------------------------
 */

int srv_proto_decode(const char *buf, size_t len, srv_cmd *cmd, srv_proto_error *err) {
  /* Most frames are moves of one shape: read without building a tree, allocating nothing. */
  if (srv_proto_decode_move(buf, len, cmd) == 1) {
    err->field = NULL;
    err->request = "move";
    return 0;
  }
  return srv_proto_decode_full(buf, len, cmd, err);
}

int srv_proto_decode_full(const char *buf, size_t len, srv_cmd *cmd, srv_proto_error *err) {
  cmd_defaults(cmd);
  err->field = NULL;
  err->request = NULL;
  if (len > SRV_FRAME_MAX)
    return SRV_ETOOLARGE;
  json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL);
  if (root == NULL || !json_is_object(root)) {
    json_decref(root);
    return SRV_EBADJSON;
  }
  int rc = decode_id(root, cmd);
  if (rc != 0) {
    err->field = "id";
    goto done;
  }
  json_t *type = json_object_get(root, "type");
  if (!json_is_string(type)) {
    err->field = "type";
    rc = SRV_EBADREQ;
    goto done;
  }
  const msg_spec *spec = NULL;
  for (size_t i = 0; i < N_MESSAGES; i++) {
    if (strcmp(messages[i].type, json_string_value(type)) == 0)
      spec = &messages[i];
  }
  if (spec == NULL) {
    rc = SRV_EUNKTYPE;
    goto done;
  }
  cmd->type = spec->cmd;
  err->request = spec->type;
  rc = decode_fields(root, spec, cmd, err);
done:
  json_decref(root);
  return rc;
}
