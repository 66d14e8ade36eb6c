/* Accounts (srv_account.c) with the real dispatch, rooms, persistence and a real SQLite store in a
 * temporary directory, on the fake clock, and a worker the test runs by hand: so that a
 * connection can close while its password is being hashed. Passwords are hashed for real
 * (Argon2id, about 40 ms each). */
#include "harness.h"

#include <math.h>

#include "srv_account.h"
#include "srv_checkq.h"
#include "srv_persist.h"
#include "srv_rating.h"
#include "srv_store.h"
#include "store_util.h"

/* ---- The world with storage and accounts ------------------------------------------------------
 */

typedef struct env {
  world w;
  char dir[256];
  srv_store *store;
  srv_persist *persist;
  fake_work work;
  srv_accounts *accounts;
} env;

static void env_open(env *e, const srv_accounts_config *cfg) {
  world_init(&e->w, NULL);
  char err[SRV_STORE_ERR_SIZE];
  if (e->dir[0] == '\0')
    tmp_dir(e->dir, sizeof e->dir);
  ASSERT_EQ(srv_store_open(e->dir, NULL, &e->store, err), 0);
  e->persist = srv_persist_new(e->store, e->w.ident, &e->w.time.base);
  ASSERT_NOT_NULL(e->persist);
  srv_recorder recorder = {srv_persist_record, e->persist};
  srv_rooms_set_recorder(e->w.rooms, &recorder);
  e->w.dispatch.store.restore = srv_persist_restore;
  e->w.dispatch.store.player = srv_persist_player;
  e->w.dispatch.store.ud = e->persist;
  memset(&e->work, 0, sizeof e->work);
  fake_work_init(&e->work, &e->w);
  e->accounts = srv_accounts_new(e->w.dispatch.rooms, e->w.dispatch.ident, &e->w.dispatch.sink,
                                 e->store, e->persist, &e->work.base, &e->w.time.base, cfg);
  ASSERT_NOT_NULL(e->accounts);
  e->w.dispatch.accounts = e->accounts;
}

/* A batch's result: how many rooms lost writes. */
static void rooms_lost(void *arg, const srv_persist_lost *lost, int n) {
  (void)lost;
  *(int *)arg = n;
}

/* Everything committed, as at the end of a loop turn. */
static void commit(env *e) {
  int lost = -1;
  srv_persist_commit(e->persist, rooms_lost, &lost);
  ASSERT_EQ(lost, 0);
}

static void env_close(env *e) {
  fake_work_run_all(&e->work);
  srv_accounts_free(e->accounts);
  commit(e);
  world_free(&e->w);
  srv_persist_free(e->persist);
  srv_store_close(e->store);
}

/* A new connection from address addr saying hello (name NULL: a guest name; token NULL: none). */
static void hello(env *e, tclient *t, const char *addr, const char *name, const char *token) {
  memset(t, 0, sizeof *t);
  srv_client_init(&t->c, t);
  snprintf(t->c.addr, sizeof t->c.addr, "%s", addr);
  char buf[512];
  int n = snprintf(buf, sizeof buf, "{\"type\":\"hello\"%s%s%s%s%s%s}", name ? ",\"name\":\"" : "",
                   name ? name : "", name ? "\"" : "", token ? ",\"token\":\"" : "",
                   token ? token : "", token ? "\"" : "");
  ASSERT(n > 0 && (size_t)n < sizeof buf);
  ASSERT_EQ(run(&e->w, t, buf), 0);
  ASSERT_NOT_NULL(last_of(t, "welcome"));
}

/* The token of t's last welcome (copied: the frames are forgotten on disconnect). */
static void token_of(tclient *t, char *out) {
  snprintf(out, SRV_TOKEN_CHARS + 1, "%s", field_s(t, "welcome", "token"));
  ASSERT_EQ(strlen(out), SRV_TOKEN_CHARS);
}

static const char *error_code(tclient *t) {
  return field_s(t, "error", "code");
}

/* Registers t as name with password and runs the hash. */
static void sign_up(env *e, tclient *t, const char *name, const char *password) {
  int before = count_of(t, "account");
  ASSERT_EQ(runf(&e->w, t, "{\"type\":\"register\",\"id\":1,\"name\":\"%s\",\"password\":\"%s\"}",
                 name, password),
            0);
  ASSERT_EQ(srv_accounts_pending(e->accounts), 1);
  fake_work_run_all(&e->work);
  ASSERT_EQ(count_of(t, "account"), before + 1);
}

/* The last state of room code that t received, or NULL. */
static json_t *state_of(tclient *t, const char *code) {
  for (int i = t->n - 1; i >= 0; i--) {
    json_t *ev = t->events[i];
    if (strcmp(json_string_value(json_object_get(ev, "type")), "state") == 0 &&
        strcmp(json_string_value(json_object_get(ev, "room")), code) == 0)
      return ev;
  }
  return NULL;
}

TEST_IMPL(register_claims_the_guest) {
  env e = {0};
  env_open(&e, NULL);
  tclient a;
  hello(&e, &a, "10.0.0.1", "Ana", NULL);
  const char *id = field_s(&a, "welcome", "player");
  char player[SRV_PLAYER_ID_CHARS + 1];
  snprintf(player, sizeof player, "%s", id);
  ASSERT(json_is_null(json_object_get(last_of(&a, "welcome"), "account")));
  /* A game as a guest first: it stays the player's. */
  tclient b;
  hello(&e, &b, "10.0.0.2", "Bob", NULL);
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"}"), 0);
  const char *room = field_s(&a, "joined", "room");
  char code[8];
  snprintf(code, sizeof code, "%s", room);
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", code), 0);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"resign\",\"room\":\"%s\"}", code), 0);
  commit(&e);

  ASSERT_EQ(run(&e.w, &a,
                "{\"type\":\"register\",\"id\":7,\"name\":\"Ana_P\","
                "\"password\":\"correct horse\"}"),
            0);
  /* Nothing is answered before the hash is made. */
  ASSERT_NULL(last_of(&a, "account"));
  fake_work_run_all(&e.work);
  json_t *acc = last_of(&a, "account");
  ASSERT_NOT_NULL(acc);
  ASSERT_EQ(json_integer_value(json_object_get(acc, "id")), 7);
  ASSERT_STR_EQ(json_string_value(json_object_get(acc, "player")), player);
  ASSERT_STR_EQ(json_string_value(json_object_get(acc, "name")), "Ana_P");
  json_t *kalah =
      json_object_get(json_object_get(json_object_get(acc, "account"), "ratings"), "kalah");
  ASSERT_EQ(json_integer_value(json_object_get(kalah, "rating")), 1500);
  ASSERT_EQ(json_integer_value(json_object_get(kalah, "games")), 0);
  ASSERT(a.c.player->account);
  ASSERT_STR_EQ(a.c.player->name, "Ana_P");
  commit(&e);
  /* Stored: the account, its hash (Argon2id, never the password), the game still the player's. */
  char sql[256];
  snprintf(sql, sizeof sql,
           "SELECT count(*) FROM accounts WHERE player = '%s' AND name = 'Ana_P' "
           "AND name_key = 'ana_p' AND password LIKE '$argon2id$%%'",
           player);
  ASSERT_EQ(raw_int(e.dir, "SELECT count(*) FROM accounts WHERE password LIKE '%correct%'"), 0);
  snprintf(sql, sizeof sql,
           "SELECT count(*) FROM accounts WHERE player = '%s' AND name = 'Ana_P' AND "
           "password LIKE '$argon2id$v=19$m=19456,t=2,p=1$%%'",
           player);
  ASSERT_EQ(raw_int(e.dir, sql), 1);
  snprintf(sql, sizeof sql, "SELECT count(*) FROM games WHERE south = '%s'", player);
  ASSERT_EQ(raw_int(e.dir, sql), 1);
  /* Twice: already_registered, at once. */
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"register\",\"name\":\"Other\",\"password\":\"12345678\"}"),
            SRV_EREGISTERED);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

TEST_IMPL(register_refusals) {
  env e = {0};
  env_open(&e, NULL);
  tclient a, b;
  hello(&e, &a, "10.0.0.1", NULL, NULL);
  hello(&e, &b, "10.0.0.2", NULL, NULL);
  /* Names: shape, reserved words. Nothing is hashed for them. */
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"register\",\"name\":\"ab\",\"password\":\"12345678\"}"),
            SRV_ENAMEINVALID);
  ASSERT_EQ(
      run(&e.w, &a, "{\"type\":\"register\",\"name\":\"C0mputer\",\"password\":\"12345678\"}"),
      SRV_ENAMERESERVED);
  ASSERT_EQ(srv_accounts_pending(e.accounts), 0);
  /* A short password never reaches the handler: the decoder answers weak_password. */
  srv_cmd cmd;
  srv_proto_error perr;
  const char *weak = "{\"type\":\"register\",\"name\":\"Ana\",\"password\":\"1234567\"}";
  ASSERT_EQ(srv_proto_decode(weak, strlen(weak), &cmd, &perr), SRV_EPASSWORD);
  ASSERT_STR_EQ(perr.field, "password");
  /* Eight characters, not bytes: "ééééééé" is seven characters in fourteen bytes. */
  const char *weak2 = "{\"type\":\"register\",\"name\":\"Ana\",\"password\":\"\xc3\xa9\xc3\xa9\xc3"
                      "\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\"}";
  ASSERT_EQ(srv_proto_decode(weak2, strlen(weak2), &cmd, &perr), SRV_EPASSWORD);
  /* The same name by two guests at once: the second one's done callback finds it taken. */
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"register\",\"name\":\"Marta\",\"password\":\"12345678\"}"),
            0);
  ASSERT_EQ(run(&e.w, &b, "{\"type\":\"register\",\"name\":\"MARTA\",\"password\":\"abcdefgh\"}"),
            0);
  /* One job per connection. */
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"register\",\"name\":\"Mar\",\"password\":\"12345678\"}"),
            SRV_EBUSY);
  fake_work_run_all(&e.work);
  ASSERT_NOT_NULL(last_of(&a, "account"));
  ASSERT_STR_EQ(error_code(&b), "name_taken");
  ASSERT(!b.c.player->account);
  /* And later a look-alike spelling is taken at once: Cyrillic а, М. */
  ASSERT_EQ(run(&e.w, &b,
                "{\"type\":\"register\",\"name\":\"\xd0\x9c\xd0\xb0rta\","
                "\"password\":\"abcdefgh\"}"),
            SRV_ENAMEINVALID); /* Mixed scripts. */
  ASSERT_EQ(run(&e.w, &b, "{\"type\":\"register\",\"name\":\"M4rta\",\"password\":\"abcdefgh\"}"),
            0);
  fake_work_run_all(&e.work);
  ASSERT_NOT_NULL(last_of(&b, "account"));
  ASSERT_EQ(run(&e.w, &b, "{\"type\":\"register\",\"name\":\"marta\",\"password\":\"abcdefgh\"}"),
            SRV_EREGISTERED);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

/* A guest may not call itself by an account's name; the account keeps its own name. */
TEST_IMPL(names_in_hello) {
  env e = {0};
  env_open(&e, NULL);
  tclient a, g;
  hello(&e, &a, "10.0.0.1", NULL, NULL);
  sign_up(&e, &a, "Zofia", "zofia-password");
  char token[SRV_TOKEN_CHARS + 1];
  token_of(&a, token);
  memset(&g, 0, sizeof g);
  srv_client_init(&g.c, &g);
  ASSERT_EQ(run(&e.w, &g, "{\"type\":\"hello\",\"name\":\"zofia\"}"), SRV_ENAMETAKEN);
  ASSERT_EQ(run(&e.w, &g, "{\"type\":\"hello\",\"name\":\"Z0FIA\"}"), SRV_ENAMETAKEN);
  ASSERT_EQ(run(&e.w, &g, "{\"type\":\"hello\",\"name\":\"Computer\"}"), SRV_ENAMERESERVED);
  /* Look-alikes the key does not know, by TR39 skeleton (issue 25, item 6; confusables.txt
   * "0251 ; 0061" Latin alpha -> a, "0585 ; 006F" Armenian oh -> o; NFKC makes U+1D419
   * MATHEMATICAL BOLD CAPITAL Z a Z), and invisible characters the name drops (U+2800 braille
   * blank, U+FFF9 interlinear annotation anchor): all read as "Zofia". */
  ASSERT_EQ(run(&e.w, &g, "{\"type\":\"hello\",\"name\":\"Zofi\u0251\"}"), SRV_ENAMETAKEN);
  ASSERT_EQ(run(&e.w, &g, "{\"type\":\"hello\",\"name\":\"Z\u0585fia\"}"), SRV_ENAMETAKEN);
  ASSERT_EQ(run(&e.w, &g, "{\"type\":\"hello\",\"name\":\"\U0001d419ofia\"}"),
            SRV_ENAMETAKEN); /* U+1D419 MATHEMATICAL BOLD CAPITAL Z */
  ASSERT_EQ(run(&e.w, &g, "{\"type\":\"hello\",\"name\":\"Zofia\u2800\"}"), SRV_ENAMETAKEN);
  ASSERT_EQ(run(&e.w, &g, "{\"type\":\"hello\",\"name\":\"\ufff9Zofia\"}"), SRV_ENAMETAKEN);
  ASSERT_NULL(g.c.player);
  ASSERT_EQ(run(&e.w, &g, "{\"type\":\"hello\",\"name\":\"Zosia\"}"), 0);
  disconnect(&e.w, &g);
  /* The account itself, with its token: hello's name changes nothing. */
  tclient a2;
  hello(&e, &a2, "10.0.0.1", "Somebody", token);
  ASSERT_STR_EQ(field_s(&a2, "welcome", "name"), "Zofia");
  json_t *acc = json_object_get(last_of(&a2, "welcome"), "account");
  ASSERT_STR_EQ(json_string_value(json_object_get(acc, "name")), "Zofia");
  disconnect(&e.w, &a);
  disconnect(&e.w, &a2);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

/* Log in on a second connection: the seats come back with joined and state; the token is new. */
TEST_IMPL(login_recovers_seats) {
  env e = {0};
  env_open(&e, NULL);
  tclient a, b;
  hello(&e, &a, "10.0.0.1", NULL, NULL);
  sign_up(&e, &a, "Ana", "correct horse");
  char first[SRV_TOKEN_CHARS + 1];
  snprintf(first, sizeof first, "%s", "");
  hello(&e, &b, "10.0.0.2", "Bob", NULL);
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"create\",\"game\":\"oware\",\"seat\":\"north\"}"), 0);
  char code[8];
  snprintf(code, sizeof code, "%s", field_s(&a, "joined", "room"));
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", code), 0);
  srv_player *ana = a.c.player;
  disconnect(&e.w, &a);
  commit(&e);

  /* Another device: a guest first, then the login. */
  tclient d;
  hello(&e, &d, "10.0.0.3", NULL, NULL);
  char guest_token[SRV_TOKEN_CHARS + 1];
  token_of(&d, guest_token);
  ASSERT_EQ(run(&e.w, &d,
                "{\"type\":\"login\",\"id\":\"l1\",\"name\":\"ana\","
                "\"password\":\"correct horse\"}"),
            0);
  tclient_clear(&d);
  fake_work_run_all(&e.work);
  json_t *w = last_of(&d, "welcome");
  ASSERT_NOT_NULL(w);
  ASSERT_STR_EQ(json_string_value(json_object_get(w, "id")), "l1");
  ASSERT_STR_EQ(json_string_value(json_object_get(w, "player")), ana->id);
  ASSERT_STR_EQ(json_string_value(json_object_get(w, "name")), "Ana");
  ASSERT(json_is_true(json_object_get(w, "resumed")));
  const char *token = json_string_value(json_object_get(w, "token"));
  ASSERT_EQ(strlen(token), SRV_TOKEN_CHARS);
  ASSERT(strcmp(token, guest_token) != 0);
  ASSERT(d.c.player == ana);
  /* The seat: joined and a full state, North, with the opponent. */
  ASSERT_STR_EQ(field_s(&d, "joined", "room"), code);
  ASSERT_STR_EQ(field_s(&d, "joined", "seat"), "north");
  ASSERT_STR_EQ(field_s(&d, "state", "you"), "north");
  ASSERT_NOT_NULL(json_object_get(last_of(&d, "state"), "moves"));
  commit(&e);
  /* Two sessions of the account are stored: the claimed guest token and the login's. */
  char sql[160];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM sessions WHERE player = '%s'", ana->id);
  ASSERT_EQ(raw_int(e.dir, sql), 2);
  /* The new token says hello as the account. */
  char tok[SRV_TOKEN_CHARS + 1];
  snprintf(tok, sizeof tok, "%s", token);
  tclient d2;
  hello(&e, &d2, "10.0.0.3", NULL, tok);
  ASSERT(d2.c.player == ana);
  disconnect(&e.w, &b);
  disconnect(&e.w, &d);
  disconnect(&e.w, &d2);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

TEST_IMPL(wrong_password_and_limits) {
  env e = {0};
  srv_accounts_config cfg;
  srv_accounts_config_init(&cfg);
  cfg.attempts_per_name = 3;
  cfg.attempts_per_addr = 6;
  cfg.window_ms = 60000;
  env_open(&e, &cfg);
  tclient a, x;
  hello(&e, &a, "10.0.0.1", NULL, NULL);
  sign_up(&e, &a, "Ana", "correct horse");
  hello(&e, &x, "10.9.9.9", NULL, NULL);
  srv_player *guest = x.c.player;
  /* Wrong password, and a name nobody has: the same answer, after the same work. */
  for (int i = 0; i < 3; i++) {
    tclient_clear(&x);
    ASSERT_EQ(run(&e.w, &x, "{\"type\":\"login\",\"name\":\"Ana\",\"password\":\"wrong horse\"}"),
              0);
    ASSERT_EQ(srv_accounts_pending(e.accounts), 1);
    fake_work_run_all(&e.work);
    ASSERT_STR_EQ(error_code(&x), "bad_credentials");
    ASSERT_STR_EQ(field_s(&x, "error", "request"), "login");
    ASSERT(x.c.player == guest);
  }
  /* The name's limit: refused at once, nothing hashed, with when to try again. */
  tclient_clear(&x);
  ASSERT_EQ(run(&e.w, &x, "{\"type\":\"login\",\"name\":\"ana\",\"password\":\"correct horse\"}"),
            0);
  ASSERT_EQ(srv_accounts_pending(e.accounts), 0);
  ASSERT_STR_EQ(error_code(&x), "too_many_attempts");
  long long retry = field_i(&x, "error", "retry_after_ms");
  ASSERT(retry > 0 && retry <= 60000);
  /* Other names are not limited by it; the address has 6: 3 used, 3 more. */
  for (int i = 0; i < 3; i++) {
    tclient_clear(&x);
    ASSERT_EQ(run(&e.w, &x, "{\"type\":\"login\",\"name\":\"Nobody\",\"password\":\"whatever1\"}"),
              0);
    fake_work_run_all(&e.work);
    ASSERT_STR_EQ(error_code(&x), "bad_credentials");
  }
  tclient_clear(&x);
  ASSERT_EQ(run(&e.w, &x, "{\"type\":\"login\",\"name\":\"Else\",\"password\":\"whatever1\"}"), 0);
  ASSERT_STR_EQ(error_code(&x), "too_many_attempts");
  /* Another address is not: Ana logs in from it (the name waits, though). */
  tclient y;
  hello(&e, &y, "10.0.0.7", NULL, NULL);
  ASSERT_EQ(run(&e.w, &y, "{\"type\":\"login\",\"name\":\"Else\",\"password\":\"whatever1\"}"), 0);
  fake_work_run_all(&e.work);
  ASSERT_STR_EQ(error_code(&y), "bad_credentials");
  tclient_clear(&y);
  ASSERT_EQ(run(&e.w, &y, "{\"type\":\"login\",\"name\":\"Ana\",\"password\":\"correct horse\"}"),
            0);
  ASSERT_STR_EQ(error_code(&y), "too_many_attempts");
  /* After the window, the right password works and clears the name's failures. */
  fake_advance(&e.w.time, 60001);
  tclient_clear(&y);
  ASSERT_EQ(run(&e.w, &y, "{\"type\":\"login\",\"name\":\"Ana\",\"password\":\"correct horse\"}"),
            0);
  fake_work_run_all(&e.work);
  ASSERT_NOT_NULL(last_of(&y, "welcome"));
  ASSERT(y.c.player == a.c.player);
  disconnect(&e.w, &a);
  disconnect(&e.w, &x);
  disconnect(&e.w, &y);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

/* Sends a login from t (its work is not run). */
static void login(env *e, tclient *t, const char *name, const char *password) {
  tclient_clear(t);
  ASSERT_EQ(
      runf(&e->w, t, "{\"type\":\"login\",\"name\":\"%s\",\"password\":\"%s\"}", name, password),
      0);
}

/* Issue 25, item 2: 20 concurrent wrong logins of one name ran 16 checks. Attempts are counted
 * when a login is accepted, before its hash: of 20 at the same instant (from 20 addresses, before
 * any check ran) 5 are checked and 15 refused at once, told to wait 1 s (the first delay). */
TEST_IMPL(concurrent_wrong_logins_stop_at_the_allowance) {
  env e = {0};
  env_open(&e, NULL); /* Defaults: 5 per name, delays from 1 s. */
  tclient a, x[20];
  hello(&e, &a, "10.0.0.1", NULL, NULL);
  sign_up(&e, &a, "Ana", "correct horse");
  int before = e.work.total;
  for (int i = 0; i < 20; i++) {
    char addr[32];
    snprintf(addr, sizeof addr, "10.1.0.%d", i + 1);
    hello(&e, &x[i], addr, NULL, NULL);
    login(&e, &x[i], "Ana", "wrong horse");
  }
  ASSERT_EQ(srv_accounts_pending(e.accounts), 5);
  int refused = 0;
  for (int i = 0; i < 20; i++) {
    if (last_of(&x[i], "error") == NULL)
      continue;
    ASSERT_STR_EQ(error_code(&x[i]), "too_many_attempts");
    ASSERT_EQ(field_i(&x[i], "error", "retry_after_ms"), 1000);
    refused++;
  }
  ASSERT_EQ(refused, 15);
  fake_work_run_all(&e.work);
  ASSERT_EQ(e.work.total - before, 5); /* Five checks ran, no more. */
  for (int i = 0; i < 5; i++)
    ASSERT_STR_EQ(error_code(&x[i]), "bad_credentials");
  /* A second later one more may try; after it, two seconds. */
  fake_advance(&e.w.time, 1000);
  login(&e, &x[5], "Ana", "wrong again");
  login(&e, &x[6], "Ana", "wrong again");
  ASSERT_EQ(field_i(&x[6], "error", "retry_after_ms"), 2000);
  fake_work_run_all(&e.work);
  ASSERT_STR_EQ(error_code(&x[5]), "bad_credentials");
  ASSERT_EQ(e.work.total - before, 6);
  disconnect(&e.w, &a);
  for (int i = 0; i < 20; i++)
    disconnect(&e.w, &x[i]);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

/* Issue 25, item 2: five wrong passwords from anywhere locked the owner out, renewable for ever.
 * Now a stranger's wrong passwords slow the name down for strangers only: the owner's device,
 * which holds a session of the account, checks its password at once (a login of the account it is
 * logged in as, a password change) however long the stranger goes on; the owner's new device is
 * slowed down like any stranger (hand-worked waits), never locked. */
TEST_IMPL(strangers_do_not_keep_the_owner_out) {
  env e = {0};
  srv_accounts_config cfg;
  srv_accounts_config_init(&cfg);
  cfg.attempts_per_name = 3;
  cfg.attempts_per_addr = 1000;
  cfg.max_delay_ms = 8000;
  env_open(&e, &cfg);
  tclient a, x, d;
  hello(&e, &a, "10.0.0.1", NULL, NULL);
  sign_up(&e, &a, "Ana", "correct horse");
  srv_player *ana = a.c.player;
  hello(&e, &x, "10.9.9.9", NULL, NULL);
  /* The stranger: three wrong, then 1 s, 2 s, 4 s, 8 s, 8 s between tries, for as long as it
   * keeps trying (t = 0, 0, 0, 1, 3, 7, 15, 23 s). */
  for (int i = 0; i < 3; i++) {
    login(&e, &x, "Ana", "guess");
    fake_work_run_all(&e.work);
    ASSERT_STR_EQ(error_code(&x), "bad_credentials");
  }
  static const int waits[] = {1000, 2000, 4000, 8000, 8000};
  for (int i = 0; i < 5; i++) {
    login(&e, &x, "Ana", "guess");
    ASSERT_STR_EQ(error_code(&x), "too_many_attempts");
    ASSERT_EQ(field_i(&x, "error", "retry_after_ms"), waits[i]);
    fake_advance(&e.w.time, (uint64_t)waits[i]);
    login(&e, &x, "Ana", "guess");
    fake_work_run_all(&e.work);
    ASSERT_STR_EQ(error_code(&x), "bad_credentials");
  }
  login(&e, &x, "Ana", "guess");
  ASSERT_STR_EQ(error_code(&x), "too_many_attempts");
  /* The owner's device with its session: a login of its own account, at once. */
  login(&e, &a, "Ana", "correct horse");
  ASSERT_EQ(srv_accounts_pending(e.accounts), 1);
  ASSERT_EQ(srv_checkq_running(srv_accounts_queue(e.accounts), SRV_CHECKQ_SESSION), 1);
  fake_work_run_all(&e.work);
  ASSERT_NOT_NULL(last_of(&a, "welcome"));
  ASSERT(a.c.player == ana);
  /* And a password change, at once; the stranger is still slowed down. */
  tclient_clear(&a);
  ASSERT_EQ(run(&e.w, &a,
                "{\"type\":\"change_password\",\"password\":\"correct horse\","
                "\"new_password\":\"battery staple\"}"),
            0);
  fake_work_run_all(&e.work);
  ASSERT_NOT_NULL(last_of(&a, "account"));
  login(&e, &x, "Ana", "guess");
  ASSERT_STR_EQ(error_code(&x), "too_many_attempts");
  /* The owner on a new device is a stranger too: told to wait 8 s after the last try, not
   * locked: then it logs in, which clears the name's count. */
  hello(&e, &d, "10.0.0.5", NULL, NULL);
  login(&e, &d, "Ana", "battery staple");
  ASSERT_STR_EQ(error_code(&d), "too_many_attempts");
  ASSERT_EQ(field_i(&d, "error", "retry_after_ms"), 8000);
  fake_advance(&e.w.time, 8000);
  login(&e, &d, "Ana", "battery staple");
  fake_work_run_all(&e.work);
  ASSERT(d.c.player == ana);
  login(&e, &x, "Ana", "guess");
  fake_work_run_all(&e.work);
  ASSERT_STR_EQ(error_code(&x), "bad_credentials");
  disconnect(&e.w, &a);
  disconnect(&e.w, &x);
  disconnect(&e.w, &d);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

/* An address past its free checks is slowed down, not locked; an IPv6 address counts by its /48,
 * so a client cannot start afresh from the next /64 of its site. */
TEST_IMPL(addresses_slowed_not_locked) {
  env e = {0};
  srv_accounts_config cfg;
  srv_accounts_config_init(&cfg);
  cfg.attempts_per_name = 1000;
  cfg.attempts_per_addr = 3;
  env_open(&e, &cfg);
  tclient x, y, p, q, r;
  hello(&e, &x, "10.0.0.9", NULL, NULL);
  for (int i = 0; i < 3; i++) {
    login(&e, &x, "Nobody", "whatever1");
    fake_work_run_all(&e.work);
    ASSERT_STR_EQ(error_code(&x), "bad_credentials");
  }
  login(&e, &x, "Else", "whatever1");
  ASSERT_EQ(field_i(&x, "error", "retry_after_ms"), 1000);
  fake_advance(&e.w.time, 1000);
  login(&e, &x, "Else", "whatever1");
  fake_work_run_all(&e.work);
  ASSERT_STR_EQ(error_code(&x), "bad_credentials");
  login(&e, &x, "Else", "whatever1");
  ASSERT_EQ(field_i(&x, "error", "retry_after_ms"), 2000);
  /* Sign-ups count too. */
  tclient_clear(&x);
  ASSERT_EQ(run(&e.w, &x, "{\"type\":\"register\",\"name\":\"Xavier\",\"password\":\"whatever1\"}"),
            0);
  ASSERT_STR_EQ(error_code(&x), "too_many_attempts");
  /* Another address is not slowed by it. */
  hello(&e, &y, "10.0.0.10", NULL, NULL);
  login(&e, &y, "Else", "whatever1");
  fake_work_run_all(&e.work);
  ASSERT_STR_EQ(error_code(&y), "bad_credentials");
  /* Two /64s of one /48 share; another /48 does not. */
  hello(&e, &p, "2001:db8:5:1::/64", NULL, NULL);
  hello(&e, &q, "2001:db8:5:2::/64", NULL, NULL);
  hello(&e, &r, "2001:db8:6:1::/64", NULL, NULL);
  for (int i = 0; i < 3; i++) {
    login(&e, i == 1 ? &q : &p, "Nobody", "whatever1");
    fake_work_run_all(&e.work);
  }
  login(&e, &q, "Nobody", "whatever1");
  ASSERT_STR_EQ(error_code(&q), "too_many_attempts");
  login(&e, &r, "Nobody", "whatever1");
  fake_work_run_all(&e.work);
  ASSERT_STR_EQ(error_code(&r), "bad_credentials");
  tclient *all[] = {&x, &y, &p, &q, &r};
  for (int i = 0; i < 5; i++)
    disconnect(&e.w, all[i]);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

/* Issue 25, item 3: a flood of logins from many addresses made real logins answer busy. With one
 * worker for strangers and 4 places waiting: six addresses that have each checked 3 passwords
 * lately fill the queue (one runs, four wait, the sixth is busy: nobody gives way to an equal);
 * then a real login from an address that asked nothing lately takes the place of the first
 * flooder waiting (told busy, retry_after_ms 1000) and gets its turn after the three before it.
 * The owner's device with a session runs at once on the reserved worker, and a flooder whose
 * connection goes while it waits leaves the queue at once. */
TEST_IMPL(flood_does_not_starve_a_real_login) {
  env e = {0};
  srv_accounts_config cfg;
  srv_accounts_config_init(&cfg);
  cfg.attempts_per_name = 1000;
  cfg.attempts_per_addr = 1000;
  cfg.queue = (srv_checkq_config){.running = 2, .reserved = 1, .waiting = 4, .per_addr = 2};
  env_open(&e, &cfg);
  tclient a, f[6], r;
  hello(&e, &a, "10.0.0.1", NULL, NULL);
  sign_up(&e, &a, "Ana", "correct horse");
  srv_player *ana = a.c.player;
  for (int i = 0; i < 6; i++) {
    char addr[32];
    snprintf(addr, sizeof addr, "10.2.0.%d", i + 1);
    hello(&e, &f[i], addr, NULL, NULL);
    for (int k = 0; k < 3; k++) {
      login(&e, &f[i], "Nobody", "whatever1");
      fake_work_run_all(&e.work);
    }
  }
  for (int i = 0; i < 6; i++)
    login(&e, &f[i], "Nobody", "whatever1");
  const srv_checkq *queue = srv_accounts_queue(e.accounts);
  ASSERT_EQ(srv_checkq_running(queue, SRV_CHECKQ_STRANGER), 1);
  ASSERT_EQ(srv_checkq_waiting(queue, SRV_CHECKQ_STRANGER), 4);
  ASSERT_STR_EQ(error_code(&f[5]), "busy");
  ASSERT_EQ(field_i(&f[5], "error", "retry_after_ms"), 1000);
  /* The real login: f[1] gives way. */
  hello(&e, &r, "10.3.0.1", NULL, NULL);
  login(&e, &r, "Ana", "correct horse");
  ASSERT_NULL(last_of(&r, "error"));
  ASSERT_STR_EQ(error_code(&f[1]), "busy");
  ASSERT_STR_EQ(field_s(&f[1], "error", "request"), "login");
  ASSERT_EQ(field_i(&f[1], "error", "retry_after_ms"), 1000);
  ASSERT_EQ(srv_checkq_waiting(queue, SRV_CHECKQ_STRANGER), 4);
  /* The owner's device: the session lane's worker, at once. */
  login(&e, &a, "Ana", "correct horse");
  ASSERT_EQ(srv_checkq_running(queue, SRV_CHECKQ_SESSION), 1);
  /* A flooder that goes while it waits leaves at once. */
  disconnect(&e.w, &f[2]);
  ASSERT_EQ(srv_checkq_waiting(queue, SRV_CHECKQ_STRANGER), 3);
  fake_work_run_all(&e.work);
  ASSERT(a.c.player == ana);
  ASSERT_NOT_NULL(last_of(&a, "welcome"));
  ASSERT(r.c.player == ana);
  ASSERT_STR_EQ(error_code(&f[3]), "bad_credentials");
  ASSERT_STR_EQ(error_code(&f[4]), "bad_credentials");
  ASSERT_EQ(srv_accounts_pending(e.accounts), 0);
  ASSERT_EQ(srv_checkq_addresses(queue), 0);
  disconnect(&e.w, &a);
  disconnect(&e.w, &r);
  for (int i = 0; i < 6; i++)
    if (i != 2)
      disconnect(&e.w, &f[i]);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

/* A connection that closes while its login is hashed: nothing is applied, nothing is sent, and the
 * job is freed (ASan checks the rest). Then one whose accounts are freed under it. */
TEST_IMPL(connection_gone_during_login) {
  env e = {0};
  env_open(&e, NULL);
  tclient a, x;
  hello(&e, &a, "10.0.0.1", NULL, NULL);
  sign_up(&e, &a, "Ana", "correct horse");
  srv_player *ana = a.c.player;
  int refs = ana->refs;
  hello(&e, &x, "10.0.0.2", NULL, NULL);
  ASSERT_EQ(run(&e.w, &x, "{\"type\":\"login\",\"name\":\"Ana\",\"password\":\"correct horse\"}"),
            0);
  disconnect(&e.w, &x);
  fake_work_run_all(&e.work);
  ASSERT_EQ(srv_accounts_pending(e.accounts), 0);
  ASSERT_EQ(ana->refs, refs); /* No connection of the login holds it. */
  commit(&e);
  char sql[160];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM sessions WHERE player = '%s'", ana->id);
  ASSERT_EQ(raw_int(e.dir, sql), 1); /* No session was made for it. */
  /* A change of password in flight when the accounts go (the server stops). */
  ASSERT_EQ(run(&e.w, &a,
                "{\"type\":\"change_password\",\"password\":\"correct horse\","
                "\"new_password\":\"battery staple\"}"),
            0);
  ASSERT_EQ(srv_accounts_pending(e.accounts), 1);
  srv_accounts_free(e.accounts);
  e.w.dispatch.accounts = NULL;
  e.accounts = srv_accounts_new(e.w.dispatch.rooms, e.w.dispatch.ident, &e.w.dispatch.sink, e.store,
                                e.persist, &e.work.base, &e.w.time.base, NULL);
  e.w.dispatch.accounts = e.accounts;
  tclient_clear(&a);
  fake_work_run_all(&e.work); /* The detached job is only freed. */
  ASSERT_NULL(last_of(&a, "account"));
  ASSERT_NULL(last_of(&a, "error"));
  disconnect(&e.w, &a);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

/* Logging out revokes this connection's token only; logging out everywhere revokes them all, and
 * every connection of the account becomes a guest on the spot. */
TEST_IMPL(logout_and_logout_everywhere) {
  env e = {0};
  env_open(&e, NULL);
  tclient a, tab, d;
  hello(&e, &a, "10.0.0.1", NULL, NULL);
  sign_up(&e, &a, "Ana", "correct horse");
  srv_player *ana = a.c.player; /* Compared as a pointer only once it may be gone. */
  char ana_id[SRV_PLAYER_ID_CHARS + 1];
  snprintf(ana_id, sizeof ana_id, "%s", ana->id);
  char tok_a[SRV_TOKEN_CHARS + 1];
  token_of(&a, tok_a);
  hello(&e, &tab, "10.0.0.1", NULL, tok_a); /* A second tab of the same browser. */
  ASSERT(tab.c.player == ana);
  hello(&e, &d, "10.0.0.2", NULL, NULL);
  ASSERT_EQ(run(&e.w, &d, "{\"type\":\"login\",\"name\":\"Ana\",\"password\":\"correct horse\"}"),
            0);
  fake_work_run_all(&e.work);
  ASSERT(d.c.player == ana);
  char tok_d[SRV_TOKEN_CHARS + 1];
  token_of(&d, tok_d);
  /* A guest cannot log out. */
  tclient g;
  hello(&e, &g, "10.0.0.3", NULL, NULL);
  ASSERT_EQ(run(&e.w, &g, "{\"type\":\"logout\"}"), SRV_ENOACCOUNT);
  ASSERT_EQ(run(&e.w, &g, "{\"type\":\"logout_all\"}"), SRV_ENOACCOUNT);

  /* Logout on the first browser: both its tabs become the same new guest; the device stays. */
  tclient_clear(&a);
  tclient_clear(&tab);
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"logout\",\"id\":3}"), 0);
  json_t *wa = last_of(&a, "welcome"), *wt = last_of(&tab, "welcome");
  ASSERT_NOT_NULL(wa);
  ASSERT_NOT_NULL(wt);
  ASSERT_EQ(json_integer_value(json_object_get(wa, "id")), 3);
  ASSERT(json_is_false(json_object_get(wa, "resumed")));
  ASSERT(json_is_null(json_object_get(wa, "account")));
  ASSERT_STR_EQ(json_string_value(json_object_get(wt, "reason")), "logout");
  ASSERT(a.c.player != ana && a.c.player == tab.c.player);
  ASSERT(!a.c.player->account);
  ASSERT(d.c.player == ana);
  commit(&e);
  /* The old token is nobody's now: it says hello as a new guest. */
  tclient again;
  hello(&e, &again, "10.0.0.1", NULL, tok_a);
  ASSERT(again.c.player != ana);
  ASSERT(json_is_false(json_object_get(last_of(&again, "welcome"), "resumed")));
  disconnect(&e.w, &again);

  /* Log out everywhere from a third device: the second device is told, and its token dies too. */
  tclient t3;
  hello(&e, &t3, "10.0.0.4", NULL, NULL);
  ASSERT_EQ(run(&e.w, &t3, "{\"type\":\"login\",\"name\":\"Ana\",\"password\":\"correct horse\"}"),
            0);
  fake_work_run_all(&e.work);
  tclient_clear(&d);
  tclient_clear(&t3);
  ASSERT_EQ(run(&e.w, &t3, "{\"type\":\"logout_all\",\"id\":9}"), 0);
  ASSERT_EQ(field_i(&t3, "welcome", "id"), 9);
  ASSERT_STR_EQ(field_s(&d, "welcome", "reason"), "logout_all");
  ASSERT(d.c.player != ana && t3.c.player != ana && d.c.player != t3.c.player);
  commit(&e);
  char sql[160];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM sessions WHERE player = '%s'", ana_id);
  ASSERT_EQ(raw_int(e.dir, sql), 0);
  tclient back;
  hello(&e, &back, "10.0.0.2", NULL, tok_d);
  ASSERT(strcmp(back.c.player->id, ana_id) != 0);
  disconnect(&e.w, &back);
  /* The password still logs in. */
  ASSERT_EQ(run(&e.w, &g, "{\"type\":\"login\",\"name\":\"Ana\",\"password\":\"correct horse\"}"),
            0);
  fake_work_run_all(&e.work);
  ASSERT_STR_EQ(field_s(&g, "welcome", "name"), "Ana");
  ASSERT_STR_EQ(field_s(&g, "welcome", "player"), ana_id);
  ASSERT_NOT_NULL(g.c.player);
  ASSERT(g.c.player->account);
  disconnect(&e.w, &a);
  disconnect(&e.w, &tab);
  disconnect(&e.w, &d);
  disconnect(&e.w, &g);
  disconnect(&e.w, &t3);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

TEST_IMPL(change_password) {
  env e = {0};
  env_open(&e, NULL);
  tclient a, d, x;
  hello(&e, &a, "10.0.0.1", NULL, NULL);
  sign_up(&e, &a, "Ana", "correct horse");
  srv_player *ana = a.c.player;
  hello(&e, &d, "10.0.0.2", NULL, NULL);
  ASSERT_EQ(run(&e.w, &d, "{\"type\":\"login\",\"name\":\"Ana\",\"password\":\"correct horse\"}"),
            0);
  fake_work_run_all(&e.work);
  ASSERT(d.c.player == ana);
  /* The current password must be right. */
  tclient_clear(&a);
  ASSERT_EQ(run(&e.w, &a,
                "{\"type\":\"change_password\",\"password\":\"wrong horse\","
                "\"new_password\":\"battery staple\"}"),
            0);
  fake_work_run_all(&e.work);
  ASSERT_STR_EQ(error_code(&a), "bad_credentials");
  tclient_clear(&a);
  tclient_clear(&d);
  ASSERT_EQ(run(&e.w, &a,
                "{\"type\":\"change_password\",\"id\":5,\"password\":\"correct horse\","
                "\"new_password\":\"battery staple\"}"),
            0);
  fake_work_run_all(&e.work);
  ASSERT_EQ(field_i(&a, "account", "id"), 5);
  ASSERT(a.c.player == ana);
  /* The other device knew the old password: it is logged out. */
  ASSERT_STR_EQ(field_s(&d, "welcome", "reason"), "password_changed");
  ASSERT(d.c.player != ana);
  commit(&e);
  hello(&e, &x, "10.0.0.3", NULL, NULL);
  ASSERT_EQ(run(&e.w, &x, "{\"type\":\"login\",\"name\":\"Ana\",\"password\":\"correct horse\"}"),
            0);
  fake_work_run_all(&e.work);
  ASSERT_STR_EQ(error_code(&x), "bad_credentials");
  ASSERT_EQ(run(&e.w, &x, "{\"type\":\"login\",\"name\":\"Ana\",\"password\":\"battery staple\"}"),
            0);
  fake_work_run_all(&e.work);
  ASSERT(x.c.player == ana);
  disconnect(&e.w, &a);
  disconnect(&e.w, &d);
  disconnect(&e.w, &x);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

/* Deleting the account: its game in progress is lost by resignation, its games stay anonymised,
 * everything that names it goes, the name is free again, its connections become guests. */
TEST_IMPL(delete_account) {
  env e = {0};
  env_open(&e, NULL);
  tclient a, b;
  hello(&e, &a, "10.0.0.1", NULL, NULL);
  sign_up(&e, &a, "Ana", "correct horse");
  hello(&e, &b, "10.0.0.2", "Bob", NULL);
  char ana_id[SRV_PLAYER_ID_CHARS + 1], code[8];
  snprintf(ana_id, sizeof ana_id, "%s", a.c.player->id);
  /* A finished game, then one in progress. */
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\"}"), 0);
  snprintf(code, sizeof code, "%s", field_s(&a, "joined", "room"));
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", code), 0);
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"resign\",\"room\":\"%s\"}", code), 0);
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"create\",\"game\":\"oware\",\"seat\":\"south\"}"), 0);
  snprintf(code, sizeof code, "%s", field_s(&a, "joined", "room"));
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", code), 0);
  /* Ana and Bob say a line each. */
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"chat\",\"room\":\"%s\",\"text\":\"hi\"}", code), 0);
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"chat\",\"room\":\"%s\",\"text\":\"hello\"}", code), 0);
  commit(&e);
  /* A wrong password deletes nothing. */
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"delete_account\",\"password\":\"nope nope\"}"), 0);
  fake_work_run_all(&e.work);
  ASSERT_STR_EQ(error_code(&a), "bad_credentials");
  ASSERT(a.c.player->account);
  tclient_clear(&a);
  tclient_clear(&b);
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"delete_account\",\"id\":4,\"password\":\"correct horse\"}"),
            0);
  fake_work_run_all(&e.work);
  json_t *w = last_of(&a, "welcome");
  ASSERT_NOT_NULL(w);
  ASSERT_EQ(json_integer_value(json_object_get(w, "id")), 4);
  ASSERT(json_is_null(json_object_get(w, "account")));
  ASSERT(strcmp(a.c.player->id, ana_id) != 0);
  /* The game in progress: Bob won by resignation. */
  json_t *st = state_of(&b, code);
  ASSERT_NOT_NULL(st);
  ASSERT_STR_EQ(json_string_value(json_object_get(st, "status")), "finished");
  json_t *res = json_object_get(st, "result");
  ASSERT_STR_EQ(json_string_value(json_object_get(res, "winner")), "north");
  ASSERT_STR_EQ(json_string_value(json_object_get(res, "reason")), "resignation");
  commit(&e);
  char sql[200];
  const char *gone[] = {"accounts WHERE player", "sessions WHERE player", "players WHERE id",
                        "ratings WHERE player",  "games WHERE south",     "games WHERE north"};
  for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s = '%s'", gone[i], ana_id);
    ASSERT_EQ(raw_int(e.dir, sql), 0);
  }
  /* Both games stay, with Bob, and the anonymous seat. */
  ASSERT_EQ(raw_int(e.dir, "SELECT count(*) FROM games WHERE south IS NULL AND "
                           "south_name = '[deleted]' AND north_name = 'Bob' AND "
                           "ended_ms IS NOT NULL"),
            2);
  /* Ana's chat line is anonymised, stored and in the room's memory (issue 25, item 8); Bob's
   * stays his. */
  ASSERT_EQ(raw_int(e.dir, "SELECT count(*) FROM chat WHERE player = '' AND name = '[deleted]' "
                           "AND text = 'hi'"),
            1);
  snprintf(sql, sizeof sql, "SELECT count(*) FROM chat WHERE player = '%s' OR name = 'Ana'",
           ana_id);
  ASSERT_EQ(raw_int(e.dir, sql), 0);
  ASSERT_EQ(raw_int(e.dir, "SELECT count(*) FROM chat WHERE name = 'Bob' AND text = 'hello'"), 1);
  tclient_clear(&b);
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", code), 0);
  json_t *history = json_object_get(last_of(&b, "chat_history"), "messages");
  ASSERT_EQ(json_array_size(history), 2);
  json_t *said = json_array_get(history, 0);
  ASSERT_STR_EQ(json_string_value(json_object_get(said, "from")), "[deleted]");
  ASSERT(json_is_null(json_object_get(said, "player")));
  ASSERT_STR_EQ(json_string_value(json_object_get(said, "text")), "hi");
  said = json_array_get(history, 1);
  ASSERT_STR_EQ(json_string_value(json_object_get(said, "from")), "Bob");
  ASSERT_STR_EQ(json_string_value(json_object_get(said, "player")), b.c.player->id);
  /* The name is free: someone else may take it. */
  ASSERT_EQ(
      run(&e.w, &b, "{\"type\":\"register\",\"name\":\"ana\",\"password\":\"bobs password\"}"), 0);
  fake_work_run_all(&e.work);
  ASSERT_NOT_NULL(last_of(&b, "account"));
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

/* A rated room: only accounts sit in it, and its end changes both ratings in the batch of the
 * result; the state says by how much. */
TEST_IMPL(rated_game) {
  env e = {0};
  env_open(&e, NULL);
  tclient a, b, g;
  hello(&e, &a, "10.0.0.1", NULL, NULL);
  hello(&e, &b, "10.0.0.2", NULL, NULL);
  hello(&e, &g, "10.0.0.3", NULL, NULL);
  const char *rated = "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\",\"rated\":true,"
                      "\"clock\":{\"initial_ms\":300000,\"increment_ms\":2000}}";
  ASSERT_EQ(run(&e.w, &a, rated), SRV_EACCOUNTREQ);
  sign_up(&e, &a, "Ana", "correct horse");
  sign_up(&e, &b, "Bob", "correct horse");
  ASSERT_EQ(run(&e.w, &a, rated), 0);
  char code[8];
  snprintf(code, sizeof code, "%s", field_s(&a, "joined", "room"));
  ASSERT(json_is_true(json_object_get(last_of(&a, "state"), "rated")));
  ASSERT_EQ(runf(&e.w, &g, "{\"type\":\"join\",\"room\":\"%s\"}", code), SRV_EACCOUNTREQ);
  ASSERT_EQ(runf(&e.w, &g, "{\"type\":\"join\",\"room\":\"%s\",\"role\":\"spectator\"}", code), 0);
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"join\",\"room\":\"%s\"}", code), 0);
  json_t *st = last_of(&b, "state");
  json_t *south = json_object_get(json_object_get(st, "players"), "south");
  ASSERT_EQ(json_integer_value(json_object_get(south, "rating")), 1500);
  ASSERT(json_is_true(json_object_get(south, "provisional")));
  /* Both sides move (a game where one side never moved is aborted, not rated), then North
   * resigns. */
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", code), 0);
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":1}", code), 0);
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"resign\",\"room\":\"%s\"}", code), 0);
  st = last_of(&g, "state");
  json_t *change = json_object_get(st, "rating_change");
  ASSERT(json_is_object(change));
  /* Two new players, South wins: 1662.31 and 1337.69 (test_rating.c works them out). */
  ASSERT_EQ(json_integer_value(json_object_get(json_object_get(change, "south"), "after")), 1662);
  ASSERT_EQ(json_integer_value(json_object_get(json_object_get(change, "north"), "after")), 1338);
  ASSERT_EQ(json_integer_value(json_object_get(json_object_get(change, "south"), "before")), 1500);
  south = json_object_get(json_object_get(st, "players"), "south");
  ASSERT_EQ(json_integer_value(json_object_get(south, "rating")), 1662);
  commit(&e);
  ASSERT_EQ(raw_int(e.dir, "SELECT count(*) FROM ratings WHERE game = 'kalah' AND games = 1"), 2);
  ASSERT_EQ(raw_int(e.dir, "SELECT count(*) FROM rating_history"), 2);
  ASSERT_EQ(raw_int(e.dir, "SELECT rated FROM games"), 1);
  ASSERT_EQ(raw_int(e.dir, "SELECT round(rating) FROM ratings WHERE wins = 1"), 1662);
  /* Unrated boards are refused as rated by the decoder. */
  srv_cmd cmd;
  srv_proto_error perr;
  const char *odd = "{\"type\":\"create\",\"game\":\"kalah\",\"houses\":5,\"rated\":true,"
                    "\"clock\":{\"initial_ms\":300000}}";
  ASSERT_EQ(srv_proto_decode(odd, strlen(odd), &cmd, &perr), SRV_EBADREQ);
  ASSERT_STR_EQ(perr.field, "rated");
  const char *untimed = "{\"type\":\"quick\",\"game\":\"oware\",\"rated\":true}";
  ASSERT_EQ(srv_proto_decode(untimed, strlen(untimed), &cmd, &perr), SRV_EBADREQ);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  disconnect(&e.w, &g);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

/* Quick play in a rated pool pairs by rating when there is a choice. */
TEST_IMPL(rated_quick_pairs_by_rating) {
  env e = {0};
  env_open(&e, NULL);
  tclient p[4];
  const char *names[] = {"Strong", "Weak", "Middle", "Seeker"};
  for (int i = 0; i < 4; i++) {
    char addr[16];
    snprintf(addr, sizeof addr, "10.0.0.%d", i + 1);
    hello(&e, &p[i], addr, NULL, NULL);
    sign_up(&e, &p[i], names[i], "correct horse");
  }
  /* Ratings as storage would have given them: the seeker is 1500. */
  p[0].c.player->ratings[MC_KALAH].rating = 2200;
  p[1].c.player->ratings[MC_KALAH].rating = 900;
  p[2].c.player->ratings[MC_KALAH].rating = 1580;
  const char *quick = "{\"type\":\"quick\",\"game\":\"kalah\",\"rated\":true,"
                      "\"clock\":{\"initial_ms\":180000,\"increment_ms\":2000}}";
  for (int i = 0; i < 3; i++)
    ASSERT_EQ(run(&e.w, &p[i], quick), 0);
  ASSERT_EQ(run(&e.w, &p[3], quick), 0);
  /* The middle one (80 away), though it came last of the three. */
  ASSERT_STR_EQ(field_s(&p[3], "joined", "room"), field_s(&p[2], "joined", "room"));
  ASSERT_STR_EQ(field_s(&p[3], "state", "status"), "playing");
  /* A casual quick play is another pool: the rated rooms are not offered to it. */
  tclient c;
  hello(&e, &c, "10.0.0.9", NULL, NULL);
  ASSERT_EQ(run(&e.w, &c,
                "{\"type\":\"quick\",\"game\":\"kalah\","
                "\"clock\":{\"initial_ms\":180000,\"increment_ms\":2000}}"),
            0);
  ASSERT_STR_EQ(field_s(&c, "state", "status"), "waiting");
  ASSERT_EQ(run(&e.w, &c, quick), SRV_EACCOUNTREQ);
  for (int i = 0; i < 4; i++)
    disconnect(&e.w, &p[i]);
  disconnect(&e.w, &c);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

/* ---- Aborted and repeated rated games ------------------------------------------------------- */

#define ASSERT_NEAR_RATING(a, b) ASSERT(fabs((double)(a) - (double)(b)) <= 1e-4)

/* A rated Kalah room, 1+0, made by south (seated South) and joined by north; writes its code. */
static void rated_room(env *e, tclient *south, tclient *north, char code[8]) {
  ASSERT_EQ(run(&e->w, south,
                "{\"type\":\"create\",\"game\":\"kalah\",\"seat\":\"south\",\"rated\":true,"
                "\"clock\":{\"initial_ms\":60000}}"),
            0);
  snprintf(code, 8, "%s", field_s(south, "joined", "room"));
  ASSERT_EQ(runf(&e->w, north, "{\"type\":\"join\",\"room\":\"%s\"}", code), 0);
}

/* One rated game where both sides move once (South 1, North 1), then North resigns. */
static void south_wins(env *e, tclient *south, tclient *north, const char *code) {
  ASSERT_EQ(runf(&e->w, south, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", code),
            0);
  ASSERT_EQ(runf(&e->w, north, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":1}", code),
            0);
  ASSERT_EQ(runf(&e->w, north, "{\"type\":\"resign\",\"room\":\"%s\"}", code), 0);
}

static void rematch(env *e, tclient *a, tclient *b, const char *code) {
  ASSERT_EQ(runf(&e->w, a, "{\"type\":\"rematch\",\"room\":\"%s\"}", code), 0);
  ASSERT_EQ(runf(&e->w, b, "{\"type\":\"rematch\",\"room\":\"%s\"}", code), 0);
  ASSERT_STR_EQ(json_string_value(json_object_get(state_of(a, code), "status")), "playing");
}

/* The finished games of player p (borrowed) in the store's lists. */
static size_t listed_games(env *e, const srv_player *p) {
  srv_store_game_list *list = NULL;
  ASSERT_EQ(srv_store_player_games(e->store, p->id, 100, &list), 0);
  size_t n = list->n;
  srv_store_game_list_free(list);
  return n;
}

/* A rated game where one side never moved is aborted, not rated: resigning before both moved,
 * or the first move's deadline. The aborted games are stored aborted and listed nowhere. */
TEST_IMPL(rated_game_nobody_started_is_aborted) {
  env e = {0};
  env_open(&e, NULL);
  tclient a, b;
  hello(&e, &a, "10.0.0.1", NULL, NULL);
  hello(&e, &b, "10.0.0.2", NULL, NULL);
  sign_up(&e, &a, "Ana", "correct horse");
  sign_up(&e, &b, "Bob", "correct horse");
  char code[8];
  rated_room(&e, &a, &b, code);
  /* South moved, North resigns before its first move: aborted. */
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"move\",\"room\":\"%s\",\"house\":1,\"ply\":0}", code), 0);
  ASSERT_EQ(runf(&e.w, &b, "{\"type\":\"resign\",\"room\":\"%s\"}", code), 0);
  json_t *st = state_of(&a, code);
  ASSERT_STR_EQ(json_string_value(json_object_get(st, "status")), "finished");
  json_t *res = json_object_get(st, "result");
  ASSERT_STR_EQ(json_string_value(json_object_get(res, "reason")), "aborted");
  ASSERT(json_is_null(json_object_get(res, "winner")));
  ASSERT(json_is_null(json_object_get(st, "rating_change")));
  ASSERT(json_is_null(json_object_get(st, "game_id")));
  ASSERT_NEAR_RATING(a.c.player->ratings[MC_KALAH].rating, 1500.0);
  ASSERT_EQ(a.c.player->ratings[MC_KALAH].games, 0);
  commit(&e);
  ASSERT_EQ(raw_int(e.dir, "SELECT count(*) FROM rating_history"), 0);
  ASSERT_EQ(raw_int(e.dir, "SELECT count(*) FROM ratings WHERE games > 0"), 0);
  ASSERT_EQ(raw_int(e.dir, "SELECT count(*) FROM games WHERE reason = 'aborted' AND result IS "
                           "NULL AND score_south IS NULL AND ended_ms IS NOT NULL"),
            1);
  ASSERT_EQ(listed_games(&e, a.c.player), 0);
  srv_store_game *g = NULL;
  ASSERT_EQ(srv_store_game_get(e.store, 1, &g), 0);
  ASSERT(g->aborted);
  ASSERT_EQ(g->n_moves, 1);
  srv_store_game_free(g);

  /* A rematch (Bob South now), and Bob never makes the first move: aborted at 30 s. */
  rematch(&e, &a, &b, code);
  fake_advance(&e.w.time, 30000);
  res = json_object_get(state_of(&a, code), "result");
  ASSERT_STR_EQ(json_string_value(json_object_get(res, "reason")), "aborted");
  commit(&e);
  ASSERT_EQ(raw_int(e.dir, "SELECT count(*) FROM games WHERE reason = 'aborted'"), 2);
  ASSERT_EQ(raw_int(e.dir, "SELECT count(*) FROM rating_history"), 0);

  /* The next game, where both move, is rated: Ana South, Bob resigns. */
  rematch(&e, &a, &b, code);
  south_wins(&e, &a, &b, code);
  json_t *change = json_object_get(state_of(&b, code), "rating_change");
  ASSERT(json_is_object(change));
  ASSERT_EQ(json_integer_value(json_object_get(json_object_get(change, "south"), "after")), 1662);
  commit(&e);
  ASSERT_EQ(raw_int(e.dir, "SELECT count(*) FROM rating_history"), 2);
  ASSERT_EQ(listed_games(&e, a.c.player), 1);
  ASSERT_EQ(listed_games(&e, b.c.player), 1);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

/* What the room's rating of one more game must be: srv_rating_game() from the players' ratings
 * now (South wins at the fake wall clock), scaled by weight. */
static void expect_weighted(env *e, tclient *south, tclient *north, double weight, double out[2]) {
  srv_store_rating before[2] = {south->c.player->ratings[MC_KALAH],
                                north->c.player->ratings[MC_KALAH]},
                   after[2];
  double diff[2];
  ASSERT_EQ(
      srv_rating_game(before, MC_WIN_SOUTH, e->w.time.base.wall(&e->w.time.base), after, diff), 0);
  srv_rating_scale(before, weight, after, diff);
  out[0] = after[0].rating;
  out[1] = after[1].rating;
}

/* The same pair's rated games in 24 h: the 1st and 2nd count fully, the 3rd to 5th half, the 6th
 * nothing. The games of players on one address count for that address too (10 fully, then
 * half). */
TEST_IMPL(repeated_rated_games_count_less) {
  env e = {0};
  env_open(&e, NULL);
  tclient a, b;
  hello(&e, &a, "10.0.0.1", NULL, NULL);
  hello(&e, &b, "10.0.0.2", NULL, NULL);
  sign_up(&e, &a, "Ana", "correct horse");
  sign_up(&e, &b, "Bob", "correct horse");
  char code[8];
  rated_room(&e, &a, &b, code);
  const double weights[6] = {1, 1, 0.5, 0.5, 0.5, 0};
  for (int i = 0; i < 6; i++) {
    tclient *s = i % 2 == 0 ? &a : &b, *n = i % 2 == 0 ? &b : &a; /* Rematches swap seats. */
    if (i > 0)
      rematch(&e, &a, &b, code);
    double want[2];
    expect_weighted(&e, s, n, weights[i], want);
    double was = s->c.player->ratings[MC_KALAH].rating;
    south_wins(&e, s, n, code);
    ASSERT_NEAR_RATING(s->c.player->ratings[MC_KALAH].rating, want[0]);
    ASSERT_NEAR_RATING(n->c.player->ratings[MC_KALAH].rating, want[1]);
    json_t *change = json_object_get(state_of(&a, code), "rating_change");
    if (i == 0)
      ASSERT_NEAR_RATING(s->c.player->ratings[MC_KALAH].rating, 1662.3109);
    if (i < 5) {
      ASSERT(json_is_object(change));
      ASSERT(s->c.player->ratings[MC_KALAH].rating > was);
    } else {
      /* The 6th counts for nothing: no change, no history. */
      ASSERT(json_is_null(change));
      ASSERT_NEAR_RATING(s->c.player->ratings[MC_KALAH].rating, was);
    }
  }
  commit(&e);
  ASSERT_EQ(raw_int(e.dir, "SELECT count(*) FROM rating_history"), 10);
  /* A day later the pair counts fully again. */
  e.w.time.wall += 86400000; /* The wall clock only: no timer fires. */
  rematch(&e, &a, &b, code);
  double want[2];
  expect_weighted(&e, &a, &b, 1, want); /* Game 7: Ana South. */
  south_wins(&e, &a, &b, code);
  ASSERT_NEAR_RATING(a.c.player->ratings[MC_KALAH].rating, want[0]);

  /* One address, six accounts: ten games of ten different pairs count fully, the address's 11th
   * game counts half though its pair (Pia2-Pia4) is new. */
  tclient p[6];
  const char *names[6] = {"Pia0", "Pia1", "Pia2", "Pia3", "Pia4", "Pia5"};
  for (int i = 0; i < 6; i++) {
    hello(&e, &p[i], "10.0.0.7", NULL, NULL);
    sign_up(&e, &p[i], names[i], "correct horse");
  }
  int games = 0;
  for (int i = 0; i < 6 && games < 11; i++) {
    for (int j = i + 1; j < 6 && games < 11; j++, games++) {
      rated_room(&e, &p[i], &p[j], code);
      expect_weighted(&e, &p[i], &p[j], games < 10 ? 1 : 0.5, want);
      south_wins(&e, &p[i], &p[j], code);
      ASSERT_NEAR_RATING(p[i].c.player->ratings[MC_KALAH].rating, want[0]);
      ASSERT_NEAR_RATING(p[j].c.player->ratings[MC_KALAH].rating, want[1]);
    }
  }
  ASSERT_EQ(games, 11);
  for (int i = 0; i < 6; i++)
    disconnect(&e.w, &p[i]);
  disconnect(&e.w, &a);
  disconnect(&e.w, &b);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

/* The id and the device of the i-th session of t's last sessions frame, and whether it is t's
 * own. */
static json_t *session_at(tclient *t, size_t i) {
  json_t *list = json_object_get(last_of(t, "sessions"), "sessions");
  ASSERT_NOT_NULL(list);
  json_t *s = json_array_get(list, i);
  ASSERT_NOT_NULL(s);
  return s;
}

static size_t sessions_n(tclient *t) {
  return json_array_size(json_object_get(last_of(t, "sessions"), "sessions"));
}

static const char *session_device(tclient *t, size_t i) {
  json_t *d = json_object_get(session_at(t, i), "device");
  return json_is_null(d) ? "(none)" : json_string_value(d);
}

/* Logs t in as Ana from a new device named device. */
static void log_in(env *e, tclient *t, const char *addr, const char *device) {
  hello(e, t, addr, NULL, NULL);
  ASSERT_EQ(runf(&e->w, t,
                 "{\"type\":\"login\",\"name\":\"Ana\",\"password\":\"correct horse\","
                 "\"device\":\"%s\"}",
                 device),
            0);
  fake_work_run_all(&e->work);
  ASSERT_STR_EQ(field_s(t, "welcome", "name"), "Ana");
}

/* Issue 25, item 11: the sessions page. Sessions listed most recently used first with their
 * device, times and this device; a hello records a use; a login past the cap (3 here) ends the
 * least recently used, whose connection becomes a guest; one revoked from the page likewise; the
 * page's refusals. W is the fake wall clock at the start. */
TEST_IMPL(sessions_page) {
  env e = {0};
  srv_accounts_config cfg;
  srv_accounts_config_init(&cfg);
  cfg.sessions_per_account = 3;
  env_open(&e, &cfg);
  const int64_t W = e.w.time.base.wall(&e.w.time.base);
  tclient a, phone, again, tablet, laptop, g;
  hello(&e, &a, "10.0.0.1", NULL, NULL); /* Its guest session is made at W. */
  ASSERT_EQ(run(&e.w, &a,
                "{\"type\":\"register\",\"name\":\"Ana\",\"password\":\"correct horse\","
                "\"device\":\"Firefox on Linux\"}"),
            0);
  fake_work_run_all(&e.work);
  ASSERT_NOT_NULL(last_of(&a, "account"));
  char tok_a[SRV_TOKEN_CHARS + 1];
  token_of(&a, tok_a);
  fake_advance(&e.w.time, 1000);
  log_in(&e, &phone, "10.0.0.2", "Phone\\tbrowser"); /* Cleaned as chat is: a space. */
  commit(&e);
  /* Two: the phone's (made at W + 1000), then the first (made at W, never used since). */
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"sessions\",\"id\":5}"), 0);
  ASSERT_EQ(field_i(&a, "sessions", "id"), 5);
  ASSERT_EQ(sessions_n(&a), 2);
  ASSERT_STR_EQ(session_device(&a, 0), "Phone browser");
  ASSERT_EQ(json_integer_value(json_object_get(session_at(&a, 0), "created")), W + 1000);
  ASSERT_EQ(json_integer_value(json_object_get(session_at(&a, 0), "seen")), W + 1000);
  ASSERT(json_is_false(json_object_get(session_at(&a, 0), "current")));
  ASSERT_STR_EQ(session_device(&a, 1), "Firefox on Linux");
  ASSERT_EQ(json_integer_value(json_object_get(session_at(&a, 1), "seen")), W);
  ASSERT(json_is_true(json_object_get(session_at(&a, 1), "current")));
  char phone_id[32], first_id[32];
  snprintf(phone_id, sizeof phone_id, "%s",
           json_string_value(json_object_get(session_at(&a, 0), "id")));
  snprintf(first_id, sizeof first_id, "%s",
           json_string_value(json_object_get(session_at(&a, 1), "id")));
  ASSERT_EQ(strlen(phone_id), 16);
  ASSERT(strcmp(phone_id, first_id) != 0);
  /* The phone asks too: the same two, its own marked. */
  ASSERT_EQ(run(&e.w, &phone, "{\"type\":\"sessions\"}"), 0);
  ASSERT(json_is_true(json_object_get(session_at(&phone, 0), "current")));
  ASSERT(json_is_false(json_object_get(session_at(&phone, 1), "current")));
  /* The first browser's token says hello again at W + 2000: its session was used then. */
  fake_advance(&e.w.time, 1000);
  hello(&e, &again, "10.0.0.1", NULL, tok_a);
  commit(&e);
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"sessions\"}"), 0);
  ASSERT_STR_EQ(session_device(&a, 0), "Firefox on Linux");
  ASSERT_EQ(json_integer_value(json_object_get(session_at(&a, 0), "seen")), W + 2000);
  ASSERT_EQ(json_integer_value(json_object_get(session_at(&a, 0), "created")), W);
  /* A third device at W + 3000 fits the cap of 3; a fourth at W + 4000 ends the least recently
   * used, the phone's (W + 1000): the phone is a guest now, told why. */
  fake_advance(&e.w.time, 1000);
  log_in(&e, &tablet, "10.0.0.3", "Tablet");
  commit(&e);
  ASSERT_EQ(count_of(&phone, "welcome"), 2); /* Its hello's and its login's. */
  fake_advance(&e.w.time, 1000);
  log_in(&e, &laptop, "10.0.0.4", "Laptop");
  commit(&e);
  ASSERT_EQ(count_of(&phone, "welcome"), 3);
  ASSERT_STR_EQ(field_s(&phone, "welcome", "reason"), "revoked");
  ASSERT(json_is_null(json_object_get(last_of(&phone, "welcome"), "account")));
  ASSERT(!phone.c.player->account);
  char sql[200];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM sessions WHERE player = '%s'", a.c.player->id);
  ASSERT_EQ(raw_int(e.dir, sql), 3);
  ASSERT_EQ(run(&e.w, &a, "{\"type\":\"sessions\"}"), 0);
  ASSERT_EQ(sessions_n(&a), 3);
  ASSERT_STR_EQ(session_device(&a, 0), "Laptop");
  ASSERT_STR_EQ(session_device(&a, 1), "Tablet");
  ASSERT_STR_EQ(session_device(&a, 2), "Firefox on Linux");
  /* Revoke the tablet from the page: its connection is a guest, the answer lists the two left. */
  char tablet_id[32];
  snprintf(tablet_id, sizeof tablet_id, "%s",
           json_string_value(json_object_get(session_at(&a, 1), "id")));
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"revoke_session\",\"id\":7,\"session\":\"%s\"}", tablet_id),
            0);
  ASSERT_EQ(field_i(&a, "sessions", "id"), 7);
  ASSERT_EQ(sessions_n(&a), 2);
  ASSERT_STR_EQ(session_device(&a, 0), "Laptop");
  ASSERT_STR_EQ(session_device(&a, 1), "Firefox on Linux");
  ASSERT_STR_EQ(field_s(&tablet, "welcome", "reason"), "revoked");
  ASSERT(!tablet.c.player->account);
  ASSERT(a.c.player->account && laptop.c.player->account && again.c.player->account);
  commit(&e);
  ASSERT_EQ(raw_int(e.dir, sql), 2);
  /* Refusals, nothing changed: the same id again, this device's own, a bad id, a guest. */
  tclient_clear(&a);
  /* (Answered once the sessions are read through the storage seam: an error frame, not the
   * handler's code.) */
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"revoke_session\",\"session\":\"%s\"}", tablet_id), 0);
  ASSERT_STR_EQ(error_code(&a), "unknown_session");
  ASSERT_STR_EQ(field_s(&a, "error", "request"), "revoke_session");
  tclient_clear(&a);
  ASSERT_EQ(runf(&e.w, &a, "{\"type\":\"revoke_session\",\"session\":\"%s\"}", first_id), 0);
  ASSERT_STR_EQ(error_code(&a), "bad_request");
  ASSERT_STR_EQ(field_s(&a, "error", "field"), "session");
  /* Bad ids and devices are refused by the decoder, naming the field. */
  const char *bad[][2] = {
      {"{\"type\":\"revoke_session\",\"session\":\"ABCDEF0123456789\"}", "session"},
      {"{\"type\":\"revoke_session\",\"session\":\"abc\"}", "session"},
      {"{\"type\":\"revoke_session\"}", "session"},
      {"{\"type\":\"login\",\"name\":\"Ana\",\"password\":\"x\",\"device\":\" \"}", "device"},
      {"{\"type\":\"login\",\"name\":\"Ana\",\"password\":\"x\",\"device\":7}", "device"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    srv_cmd cmd;
    srv_proto_error perr;
    ASSERT_EQ(srv_proto_decode(bad[i][0], strlen(bad[i][0]), &cmd, &perr), SRV_EBADREQ);
    ASSERT_STR_EQ(perr.field, bad[i][1]);
  }
  hello(&e, &g, "10.0.0.5", NULL, NULL);
  ASSERT_EQ(run(&e.w, &g, "{\"type\":\"sessions\"}"), SRV_ENOACCOUNT);
  ASSERT_EQ(runf(&e.w, &g, "{\"type\":\"revoke_session\",\"session\":\"%s\"}", first_id),
            SRV_ENOACCOUNT);
  commit(&e);
  ASSERT_EQ(raw_int(e.dir, sql), 2);
  tclient *all[] = {&a, &phone, &again, &tablet, &laptop, &g};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    disconnect(&e.w, all[i]);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

/* Issue 25, item 11: whether an account has a name is a lookup, counted by address (3 here, in
 * the login window): a name register or hello finds taken, and each of the API's lookups
 * (srv_accounts_lookup()). Past them every lookup of the address waits 1 s, 2 s, ... after the
 * last (too_many_attempts with retry_after_ms, nothing looked up), whatever the name. Free names
 * cost nothing, another address is not slowed down, and a guest saying hello with the name it
 * has is neither slowed down nor counted. */
TEST_IMPL(name_lookups_counted) {
  env e = {0};
  srv_accounts_config cfg;
  srv_accounts_config_init(&cfg);
  cfg.name_lookups_per_addr = 3;
  env_open(&e, &cfg);
  tclient a, x, y, z, w;
  hello(&e, &a, "10.0.0.1", NULL, NULL);
  sign_up(&e, &a, "Ana", "correct horse"); /* A free name: not counted. */
  /* 10.0.0.9: ten guests with free names cost nothing. */
  for (int i = 0; i < 10; i++) {
    char name[16];
    snprintf(name, sizeof name, "Guest_%d", i);
    hello(&e, &x, "10.0.0.9", name, NULL);
    disconnect(&e.w, &x);
  }
  /* Bo (free), then Ana's name asked for (1), registered (2), asked for again (3). */
  hello(&e, &x, "10.0.0.9", "Bo", NULL);
  char tok_x[SRV_TOKEN_CHARS + 1];
  token_of(&x, tok_x);
  memset(&y, 0, sizeof y);
  srv_client_init(&y.c, &y);
  snprintf(y.c.addr, sizeof y.c.addr, "10.0.0.9");
  ASSERT_EQ(run(&e.w, &y, "{\"type\":\"hello\",\"name\":\"ana\"}"), SRV_ENAMETAKEN);
  ASSERT_EQ(run(&e.w, &x, "{\"type\":\"register\",\"name\":\"ANA\",\"password\":\"whatever1\"}"),
            SRV_ENAMETAKEN);
  ASSERT_EQ(run(&e.w, &x, "{\"type\":\"register\",\"name\":\"An_a\",\"password\":\"whatever1\"}"),
            SRV_ENAMETAKEN); /* The same name, read as it reads. */
  /* Now every lookup waits 1 s, whichever way and whatever the name; nothing is looked up. */
  ASSERT_EQ(run(&e.w, &y, "{\"type\":\"hello\",\"id\":2,\"name\":\"Cid\"}"), 0);
  ASSERT_STR_EQ(error_code(&y), "too_many_attempts");
  ASSERT_EQ(field_i(&y, "error", "retry_after_ms"), 1000);
  ASSERT_EQ(field_i(&y, "error", "id"), 2);
  ASSERT_STR_EQ(field_s(&y, "error", "field"), "name");
  ASSERT_STR_EQ(field_s(&y, "error", "request"), "hello");
  ASSERT(y.c.player == NULL);
  ASSERT_EQ(run(&e.w, &x, "{\"type\":\"register\",\"name\":\"Cid\",\"password\":\"whatever1\"}"),
            0);
  ASSERT_STR_EQ(error_code(&x), "too_many_attempts");
  ASSERT_EQ(field_i(&x, "error", "retry_after_ms"), 1000);
  ASSERT_EQ(srv_accounts_pending(e.accounts), 0); /* No check was queued. */
  ASSERT_EQ(srv_accounts_lookup(e.accounts, "10.0.0.9"), 1000);
  /* Bo saying hello again as Bo is not slowed down; a hello without a name neither. */
  hello(&e, &z, "10.0.0.9", "Bo", tok_x);
  ASSERT(z.c.player == x.c.player);
  ASSERT_EQ(run(&e.w, &y, "{\"type\":\"hello\"}"), 0);
  ASSERT_NOT_NULL(last_of(&y, "welcome"));
  /* Another address asks at once. */
  hello(&e, &w, "10.0.0.10", NULL, NULL);
  ASSERT_EQ(run(&e.w, &w, "{\"type\":\"register\",\"name\":\"ana\",\"password\":\"whatever1\"}"),
            SRV_ENAMETAKEN);
  /* A second later one more taken name (the fourth), then the next lookup waits 2 s. */
  fake_advance(&e.w.time, 1000);
  ASSERT_EQ(run(&e.w, &x, "{\"type\":\"register\",\"name\":\"ana\",\"password\":\"whatever1\"}"),
            SRV_ENAMETAKEN);
  ASSERT_EQ(srv_accounts_lookup(e.accounts, "10.0.0.9"), 2000);
  /* The API's lookups count each, found or not. */
  for (int i = 0; i < 3; i++)
    ASSERT_EQ(srv_accounts_lookup(e.accounts, "10.0.0.11"), 0);
  ASSERT_EQ(srv_accounts_lookup(e.accounts, "10.0.0.11"), 1000);
  tclient *all[] = {&a, &x, &y, &z, &w};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    disconnect(&e.w, all[i]);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}

/* Issue 25, item 11: an account's sessions unused for 60 days (the default) end, in storage and
 * in memory: the player is still in memory (a connection), and the token of its phone, unused
 * since its login, no longer says hello as the account; the first device, used on day 59, stays. */
TEST_IMPL(idle_sessions_end) {
  env e = {0};
  env_open(&e, NULL);
  tclient a, phone, back, first;
  hello(&e, &a, "10.0.0.1", NULL, NULL);
  sign_up(&e, &a, "Ana", "correct horse");
  char tok_a[SRV_TOKEN_CHARS + 1], tok_phone[SRV_TOKEN_CHARS + 1], id[SRV_PLAYER_ID_CHARS + 1];
  token_of(&a, tok_a);
  snprintf(id, sizeof id, "%s", a.c.player->id);
  log_in(&e, &phone, "10.0.0.2", "Phone");
  token_of(&phone, tok_phone);
  disconnect(&e.w, &phone);
  commit(&e);
  const uint64_t day = 86400000;
  fake_advance(&e.w.time, 59 * day);
  hello(&e, &first, "10.0.0.1", NULL, tok_a); /* The first device used on day 59. */
  ASSERT_STR_EQ(first.c.player->id, id);
  disconnect(&e.w, &first);
  commit(&e);
  fake_advance(&e.w.time, 2 * day);
  commit(&e); /* Day 61: the expiry runs; its deletes join the next batch. */
  commit(&e);
  char sql[200];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM sessions WHERE player = '%s'", id);
  ASSERT_EQ(raw_int(e.dir, sql), 1);
  ASSERT(a.c.player->account); /* In memory still: its connection is open. */
  hello(&e, &back, "10.0.0.2", NULL, tok_phone);
  ASSERT(strcmp(back.c.player->id, id) != 0);
  ASSERT(json_is_null(json_object_get(last_of(&back, "welcome"), "account")));
  hello(&e, &first, "10.0.0.1", NULL, tok_a);
  ASSERT_STR_EQ(first.c.player->id, id);
  tclient *all[] = {&a, &back, &first};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    disconnect(&e.w, all[i]);
  env_close(&e);
  rm_tree(e.dir);
  return 0;
}
