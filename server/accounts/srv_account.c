/* Accounts: sign-up, login, logout, logout everywhere, password change, deletion (see
 * srv_account.h). */
#include "srv_account.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_addr.h"
#include "srv_attempts.h"
#include "srv_checkq.h"
#include "srv_error.h"
#include "srv_log.h"
#include "srv_names.h"
#include "srv_proto.h"
#include "srv_pwhash.h"
#include "srv_rating.h"
#include "srv_reader.h"
#include "srv_send.h"
#include "srv_taken.h"

/* How many keys each limit remembers at most (the least recently tried are forgotten first). */
#define LIMIT_KEYS 100000

/* What a busy answer suggests: about when the queue will have room again. */
#define BUSY_RETRY_MS 1000

/* The attempt counters a job counted (given back when its check does not run). */
enum { COUNTED_NAME = 1, COUNTED_ADDR = 2, COUNTED_DEVICE = 4 };

typedef enum job_kind {
  JOB_REGISTER,
  JOB_LOGIN,
  JOB_CHANGE,
  JOB_DELETE,
  JOB_SESSIONS,
  JOB_REVOKE
} job_kind;

/* A session device is known by the first bytes of its token's hash. */
#define SRV_DEVICE_BYTES 16

/* One password job: everything the worker needs is copied in; the loop thread's pointers (a, c,
 * player) are only read by the done callback. */
typedef struct job {
  srv_accounts *a;    /* NULL once the accounts are freed. */
  srv_client *c;      /* NULL once the connection is gone. */
  srv_player *player; /* register, change, delete: the account's player (a reference of ours). */
  job_kind kind;
  srv_req_id id;
  srv_list link; /* a->jobs */
  /* Its place in the password-check queue, and the work it runs once its turn comes. */
  srv_checkq_item item;
  srv_checkq_lane lane;
  srv_work_fn work;
  srv_work_done_fn done;
  /* What it counted, and when. */
  unsigned counted;
  uint64_t counted_ms;
  char group[64];                        /* The address's group (srv_addr_group()). */
  char device[2 * SRV_DEVICE_BYTES + 1]; /* The session lane: the device's key. */
  /* In: */
  char password[SRV_PASSWORD_SIZE];
  char new_password[SRV_PASSWORD_SIZE];
  char stored[SRV_PWHASH_SIZE]; /* The hash to verify against (login, change, delete). */
  char name[SRV_NAME_SIZE];     /* register: the account name; login: the account's. */
  char key[SRV_NAME_KEY_SIZE];
  char account_id[SRV_PLAYER_ID_CHARS + 1]; /* login: the account found, "" when none. */
  char label[SRV_DEVICE_SIZE];              /* login, register: the device's label, or "". */
  /* login, after the check: what the account is now (read through the storage seam). */
  bool still;                     /* The same account, its password unchanged meanwhile. */
  bool taken;                     /* register: an account has the name (read through the seam). */
  char acc_hash[SRV_PWHASH_SIZE]; /* change, delete: the account's stored hash as read. */
  srv_work_done_fn then;          /* change, delete: what runs after the password's check. */
  char session[SRV_SESSION_ID_CHARS + 1]; /* revoke_session: the session's public id. */
  char acc_name[SRV_NAME_SIZE];           /* Its name. */
  srv_persist_account account;            /* Its name and ratings, for a player not in memory. */
  srv_store_session *sessions;            /* Its stored sessions (malloc'd; NULL: none). */
  size_t n_sessions;
  /* Out: */
  int verified; /* 0: the password matched. */
  int hashed;   /* 0: hash holds a new hash. */
  char hash[SRV_PWHASH_SIZE];
} job;

struct srv_accounts {
  srv_rooms *rooms;
  srv_ident *ident;
  srv_sink sink;
  srv_store *store;
  srv_reader *reader; /* The storage seam's reads over store (login's account). */
  srv_persist *persist;
  srv_work *work;
  srv_time *time;
  srv_accounts_config cfg;
  srv_attempts *by_name, *by_addr, *by_device;
  srv_attempts *by_lookup; /* Lookups of account names, by address group. */
  srv_checkq *queue;
  srv_taken *taken; /* Every account's name: what guests may not call themselves. */
  srv_list jobs;
  size_t njobs;
};

void srv_accounts_config_init(srv_accounts_config *cfg) {
  cfg->attempts_per_name = 5;
  cfg->attempts_per_addr = 30;
  cfg->window_ms = 600000;
  cfg->delay_ms = 1000;
  cfg->max_delay_ms = 60000;
  cfg->name_lookups_per_addr = 60;
  cfg->sessions_per_account = 20;
  srv_checkq_config_init(&cfg->queue);
}

srv_accounts *srv_accounts_new(srv_rooms *rooms, srv_ident *ident, const srv_sink *sink,
                               srv_store *store, srv_persist *persist, srv_work *work,
                               srv_time *time, const srv_accounts_config *cfg) {
  if (srv_pwhash_init() != 0)
    return NULL;
  srv_accounts *a = calloc(1, sizeof *a);
  if (a == NULL)
    return NULL;
  a->rooms = rooms;
  a->ident = ident;
  a->sink = *sink;
  a->store = store;
  a->persist = persist;
  a->work = work;
  a->time = time;
  if (cfg != NULL)
    a->cfg = *cfg;
  else
    srv_accounts_config_init(&a->cfg);
  srv_list_init(&a->jobs);
  srv_attempts_config ac = {.free = a->cfg.attempts_per_name,
                            .window_ms = (uint64_t)a->cfg.window_ms,
                            .delay_ms = (uint64_t)a->cfg.delay_ms,
                            .max_delay_ms = (uint64_t)a->cfg.max_delay_ms,
                            .max_keys = LIMIT_KEYS};
  if (a->cfg.window_ms >= 1 && a->cfg.delay_ms >= 1 && a->cfg.max_delay_ms >= 1) {
    a->by_name = srv_attempts_new(&ac);
    a->by_device = srv_attempts_new(&ac);
    ac.free = a->cfg.attempts_per_addr;
    a->by_addr = srv_attempts_new(&ac);
    ac.free = a->cfg.name_lookups_per_addr;
    a->by_lookup = srv_attempts_new(&ac);
  }
  a->queue = srv_checkq_new(&a->cfg.queue);
  a->reader = srv_reader_new(store);
  a->taken = srv_taken_new();
  if (a->by_name == NULL || a->by_addr == NULL || a->by_device == NULL || a->by_lookup == NULL ||
      a->queue == NULL || a->reader == NULL || a->taken == NULL ||
      a->cfg.sessions_per_account < 1) {
    srv_accounts_free(a);
    return NULL;
  }
  /* The accounts' names, read once (at start, before the loop serves anyone). */
  if (srv_taken_load(a->taken, store) != 0) {
    srv_accounts_free(a);
    return NULL;
  }
  /* A network database's reads of a login leave the loop for the workers (SQLite's stay). */
  if (work != NULL && srv_reader_use_work(a->reader, work) != 0)
    srv_log_warn("accounts", "logins read their account on the loop: no connection of their own");
  return a;
}

static void job_wipe_free(job *j) {
  free(j->sessions);
  srv_pwhash_wipe(j, sizeof *j);
  free(j);
}

/* Whether j waits in the queue (its work not yet given to a worker). */
static bool waiting(const job *j) {
  return j->item.queue != NULL && !j->item.running;
}

void srv_accounts_free(srv_accounts *a) {
  if (a == NULL)
    return;
  srv_list_foreach_safe (it, &a->jobs) {
    job *j = srv_list_entry(it, job, link);
    srv_list_remove(&j->link);
    if (j->player != NULL)
      srv_ident_unref(a->ident, j->player);
    j->player = NULL;
    if (waiting(j)) { /* No done call will come: it was never given to a worker. */
      srv_checkq_remove(a->queue, &j->item);
      job_wipe_free(j);
      continue;
    }
    j->a = NULL;
    j->c = NULL;
  }
  srv_checkq_free(a->queue);
  srv_taken_free(a->taken);
  srv_reader_free(a->reader);
  srv_attempts_free(a->by_name);
  srv_attempts_free(a->by_addr);
  srv_attempts_free(a->by_device);
  srv_attempts_free(a->by_lookup);
  free(a);
}

size_t srv_accounts_pending(const srv_accounts *a) {
  return a->njobs;
}

const srv_checkq *srv_accounts_queue(const srv_accounts *a) {
  return a->queue;
}

static job *job_of(srv_accounts *a, const srv_client *c) {
  srv_list_foreach (it, &a->jobs) {
    job *j = srv_list_entry(it, job, link);
    if (j->c == c)
      return j;
  }
  return NULL;
}

static void give_back(srv_accounts *a, job *j);

void srv_accounts_client_gone(srv_accounts *a, srv_client *c) {
  job *j = job_of(a, c);
  if (j == NULL)
    return;
  if (waiting(j)) { /* Its check never ran: it is dropped and counts for nothing. */
    srv_checkq_remove(a->queue, &j->item);
    give_back(a, j);
    srv_list_remove(&j->link);
    a->njobs--;
    if (j->player != NULL)
      srv_ident_unref(a->ident, j->player);
    job_wipe_free(j);
    return;
  }
  j->c = NULL;
}

/* ---- Helpers ------------------------------------------------------------------------------- */

static uint64_t now_ms(srv_accounts *a) {
  return a->time->now(a->time);
}

static int storage_fail(srv_accounts *a, const char *what, int rc) {
  srv_log_error("account", "%s: %s (%s)", what, srv_store_strerror(rc),
                srv_store_last_error(a->store));
  return SRV_ESTORAGE;
}

/* The session device of c: the hex of its token's hash's first bytes. */
static void device_key(const srv_client *c, char out[2 * SRV_DEVICE_BYTES + 1]) {
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < SRV_DEVICE_BYTES; i++) {
    out[2 * i] = hex[c->token_hash[i] >> 4];
    out[2 * i + 1] = hex[c->token_hash[i] & 15];
  }
  out[2 * SRV_DEVICE_BYTES] = '\0';
}

/* Whether c holds a session of the account whose name key is key: it is logged in as it. */
static bool session_of(const srv_client *c, const char *key) {
  const srv_player *p = c->player;
  char mine[SRV_NAME_KEY_SIZE];
  return p != NULL && p->account && !p->deleted && srv_names_key(p->name, mine, sizeof mine) > 0 &&
         strcmp(mine, key) == 0;
}

/* Counts j's attempt before its check (c's, for the account name key name_key: NULL for a
 * sign-up), in j->lane: a session device against itself, a stranger against the name and its
 * address. When one of them must wait, sends too_many_attempts with retry_after_ms (the longest
 * wait) to c, counts nothing and returns false. */
static bool admit(srv_accounts *a, srv_client *c, const srv_cmd *cmd, job *j,
                  const char *name_key) {
  uint64_t now = now_ms(a), wait = 0;
  srv_addr_group(c->addr, j->group, sizeof j->group);
  if (j->lane == SRV_CHECKQ_SESSION) {
    device_key(c, j->device);
    wait = srv_attempts_wait(a->by_device, j->device, now);
  } else {
    wait = srv_attempts_wait(a->by_addr, j->group, now);
    if (name_key != NULL) {
      uint64_t w = srv_attempts_wait(a->by_name, name_key, now);
      if (w > wait)
        wait = w;
    }
  }
  if (wait > 0) {
    srv_log_info("account", "too many attempts from %s: wait %llu ms", c->addr,
                 (unsigned long long)wait);
    srv_send_error(&a->sink, c, SRV_EATTEMPTS, &cmd->id, NULL, srv_proto_cmd_name(cmd->type),
                   (int64_t)wait);
    return false;
  }
  /* Counted now, on the loop thread, before anything else can ask: concurrent requests see it.
   * A counter out of memory counts nothing; the others still hold. */
  j->counted_ms = now;
  if (j->lane == SRV_CHECKQ_SESSION) {
    if (srv_attempts_add(a->by_device, j->device, now) == 0)
      j->counted |= COUNTED_DEVICE;
  } else {
    if (srv_attempts_add(a->by_addr, j->group, now) == 0)
      j->counted |= COUNTED_ADDR;
    if (name_key != NULL && srv_attempts_add(a->by_name, name_key, now) == 0)
      j->counted |= COUNTED_NAME;
  }
  return true;
}

/* j's check did not run: what it counted is given back. */
static void give_back(srv_accounts *a, job *j) {
  if (j->counted & COUNTED_NAME)
    srv_attempts_give_back(a->by_name, j->key, j->counted_ms);
  if (j->counted & COUNTED_ADDR)
    srv_attempts_give_back(a->by_addr, j->group, j->counted_ms);
  if (j->counted & COUNTED_DEVICE)
    srv_attempts_give_back(a->by_device, j->device, j->counted_ms);
  j->counted = 0;
}

static const char *request_of(job_kind kind) {
  static const char *const requests[] = {"register",       "login",    "change_password",
                                         "delete_account", "sessions", "revoke_session"};
  return requests[kind];
}

static void send_error(srv_accounts *a, srv_client *c, int err, const srv_req_id *id,
                       job_kind kind) {
  srv_send_error(&a->sink, c, err, id, NULL, request_of(kind), 0);
}

/* Gives c the identity p (borrowed) with the token whose hash is token_hash (token: sent in the
 * welcome): c leaves its rooms as it was (keeping the seats), says welcome (answering id, or with
 * reason when unasked), and when resumed gets joined and state for every seat of p. */
static void switch_client(srv_accounts *a, srv_client *c, srv_player *p,
                          const uint8_t token_hash[32], const char *token, bool resumed,
                          const srv_req_id *id, const char *reason) {
  srv_rooms_client_gone(a->rooms, c);
  memcpy(c->token_hash, token_hash, 32);
  srv_event ev = {.type = SRV_EV_WELCOME, .id = id};
  ev.u.welcome.player = p;
  ev.u.welcome.token = token;
  ev.u.welcome.resumed = resumed;
  ev.u.welcome.storage = true;
  ev.u.welcome.reason = reason;
  srv_send_event(&a->sink, c, &ev);
  srv_rooms_identify(a->rooms, c, p, resumed);
}

/* Every connection of p whose token was revoked becomes a new guest, one guest per token (the
 * tabs of one browser share theirs): the connections with token only (NULL: any token) but keep
 * (NULL: none). c's welcome answers id, the others are told reason. Returns 0 or a negative code
 * (the connections not yet moved stay). */
static int to_guests(srv_accounts *a, srv_player *p, const uint8_t *only, const uint8_t *keep,
                     srv_client *c, const srv_req_id *id, const char *reason) {
  srv_ident_ref(p); /* The last connection leaving must not free p under the walk. */
  int rc = 0;
  for (;;) {
    srv_client *first = NULL;
    srv_list_foreach (it, &p->clients) {
      srv_client *x = srv_list_entry(it, srv_client, of_player);
      if ((only == NULL || memcmp(x->token_hash, only, 32) == 0) &&
          (keep == NULL || memcmp(x->token_hash, keep, 32) != 0)) {
        first = x;
        break;
      }
    }
    if (first == NULL)
      break;
    uint8_t revoked[32];
    memcpy(revoked, first->token_hash, 32);
    char name[SRV_NAME_SIZE], token[SRV_TOKEN_CHARS + 1];
    srv_ident_guest_name(name);
    srv_player *g = NULL;
    if ((rc = srv_ident_create(a->ident, name, &g, token)) != 0)
      break;
    uint8_t hash[32];
    memcpy(hash, srv_ident_token(g, 0), 32);
    srv_persist_player(a->persist, g);
    srv_list_foreach_safe (it, &p->clients) {
      srv_client *x = srv_list_entry(it, srv_client, of_player);
      if (memcmp(x->token_hash, revoked, 32) != 0)
        continue;
      bool asker = x == c;
      switch_client(a, x, g, hash, token, false, asker ? id : NULL, asker ? NULL : reason);
    }
    srv_ident_unref(a->ident, g);
  }
  srv_ident_unref(a->ident, p);
  return rc;
}

/* j leaves the jobs (its work never ran, or its done call came): freed with its reference. */
static void drop(srv_accounts *a, job *j) {
  srv_list_remove(&j->link);
  a->njobs--;
  if (j->player != NULL)
    srv_ident_unref(a->ident, j->player);
  job_wipe_free(j);
}

/* Gives the workers every job whose turn it is and that may run now (srv_checkq_next()). A job the
 * worker refuses is answered with the error and dropped. */
static void pump(srv_accounts *a) {
  srv_checkq_item *item;
  while ((item = srv_checkq_next(a->queue)) != NULL) {
    job *j = srv_list_entry(item, job, item);
    int rc = a->work->queue(a->work, j->work, j->done, j);
    if (rc == 0)
      continue;
    srv_checkq_remove(a->queue, item);
    give_back(a, j);
    if (j->c != NULL)
      send_error(a, j->c, rc, &j->id, j->kind);
    drop(a, j);
  }
}

/* Queues job j (filled and counted by the caller, not in the jobs) for c in the password-check
 * queue; its work and done run when its turn comes. When the queue has no room for it, or for
 * another error, c is answered (busy with retry_after_ms) and j freed, its attempts given back;
 * an older job that gave way for it gets busy too. */
static void start(srv_accounts *a, srv_client *c, job *j, srv_work_fn work, srv_work_done_fn done) {
  j->a = a;
  j->work = work;
  j->done = done;
  srv_checkq_item *victim = NULL;
  /* The address's weight in the queue: its checks lately (a session device's: none). */
  int recent =
      j->lane == SRV_CHECKQ_STRANGER ? srv_attempts_recent(a->by_addr, j->group, now_ms(a)) : 0;
  int rc = srv_checkq_add(a->queue, &j->item, j->group, j->lane, (unsigned)recent, &victim);
  if (rc != 0) {
    if (rc == SRV_EBUSY)
      srv_log_info("account", "password checks full for %s: busy", j->group);
    give_back(a, j);
    srv_send_error(&a->sink, c, rc, &j->id, NULL, request_of(j->kind),
                   rc == SRV_EBUSY ? BUSY_RETRY_MS : 0);
    job_wipe_free(j);
    return;
  }
  if (j->player != NULL)
    srv_ident_ref(j->player);
  srv_list_push_back(&a->jobs, &j->link);
  a->njobs++;
  if (victim != NULL) {
    job *v = srv_list_entry(victim, job, item);
    srv_log_info("account", "password check of %s gave way to %s", v->group, j->group);
    give_back(a, v);
    if (v->c != NULL)
      srv_send_error(&a->sink, v->c, SRV_EBUSY, &v->id, NULL, request_of(v->kind), BUSY_RETRY_MS);
    drop(a, v);
  }
  pump(a);
}

/* The done callbacks' common start: takes j out of the jobs and the queue (the next check may
 * start). Returns whether its result is to be applied (the accounts are alive, the connection is
 * there, the work ran); otherwise j is freed. */
static bool finish(job *j, bool cancelled) {
  srv_accounts *a = j->a;
  if (a != NULL) {
    srv_list_remove(&j->link);
    a->njobs--;
    srv_checkq_remove(a->queue, &j->item);
    pump(a);
  }
  if (a == NULL || j->c == NULL || cancelled) {
    if (a != NULL && j->player != NULL)
      srv_ident_unref(a->ident, j->player);
    job_wipe_free(j);
    return false;
  }
  return true;
}

static void job_done(job *j) {
  if (j->player != NULL)
    srv_ident_unref(j->a->ident, j->player);
  job_wipe_free(j);
}

static job *new_job(srv_client *c, const srv_cmd *cmd, job_kind kind) {
  job *j = calloc(1, sizeof *j);
  if (j == NULL)
    return NULL;
  j->c = c;
  j->kind = kind;
  j->id = cmd->id;
  memcpy(j->password, cmd->password, sizeof j->password);
  memcpy(j->new_password, cmd->new_password, sizeof j->new_password);
  memcpy(j->label, cmd->device, sizeof j->label);
  j->verified = -1;
  j->hashed = -1;
  return j;
}

/* ---- The workers: only the job is touched ------------------------------------------------- */

static void work_hash(void *arg) {
  job *j = arg;
  j->hashed = srv_pwhash_hash(j->password, strlen(j->password), j->hash);
  srv_pwhash_wipe(j->password, sizeof j->password);
}

/* Verifies the password; for a change, hashes the new one when it matched; for a login, hashes
 * the password again when its hash was made with older parameters. */
static void work_verify(void *arg) {
  job *j = arg;
  j->verified = srv_pwhash_verify(j->stored, j->password, strlen(j->password));
  if (j->verified == 0 && j->kind == JOB_CHANGE)
    j->hashed = srv_pwhash_hash(j->new_password, strlen(j->new_password), j->hash);
  else if (j->verified == 0 && j->kind == JOB_LOGIN && j->account_id[0] != '\0' &&
           srv_pwhash_needs_rehash(j->stored))
    j->hashed = srv_pwhash_hash(j->password, strlen(j->password), j->hash);
  srv_pwhash_wipe(j->password, sizeof j->password);
  srv_pwhash_wipe(j->new_password, sizeof j->new_password);
}

/* ---- Names in hello ------------------------------------------------------------------------ */

/* Whether a lookup of an account name from address addr must wait: 0 when it may happen, else
 * the milliseconds until it may (logged). */
static int64_t lookup_wait(srv_accounts *a, const char *addr) {
  char group[64];
  srv_addr_group(addr, group, sizeof group);
  uint64_t wait = srv_attempts_wait(a->by_lookup, group, now_ms(a));
  if (wait > 0)
    srv_log_info("account", "too many name lookups from %s: wait %llu ms", group,
                 (unsigned long long)wait);
  return (int64_t)wait;
}

/* Counts a lookup from address addr. A counter out of memory counts nothing (as admit()). */
static void lookup_count(srv_accounts *a, const char *addr) {
  char group[64];
  srv_addr_group(addr, group, sizeof group);
  (void)srv_attempts_add(a->by_lookup, group, now_ms(a));
}

int64_t srv_accounts_lookup(srv_accounts *a, const char *addr) {
  if (a == NULL || addr == NULL)
    return 0;
  int64_t wait = lookup_wait(a, addr);
  if (wait == 0)
    lookup_count(a, addr);
  return wait;
}

int srv_accounts_check_name(srv_accounts *a, const srv_client *c, const srv_player *p,
                            const char *name, int64_t *retry_after_ms) {
  char key[SRV_NAME_KEY_SIZE];
  int rc = srv_names_display(name, key);
  if (rc != 0 || key[0] == '\0' || a == NULL)
    return rc;
  /* A player saying hello again with the name it has (every page load of a guest) learns
   * nothing new. Otherwise an address past its lookups waits, whatever the name; a lookup that
   * finds another's account counts (guests choosing free names never wait). */
  bool same = p != NULL && strcmp(p->name, name) == 0;
  int64_t wait = same ? 0 : lookup_wait(a, c->addr);
  if (wait > 0) {
    *retry_after_ms = wait;
    return SRV_EATTEMPTS;
  }
  /* The accounts' names in memory: the same key, or the same TR39 skeleton (a look-alike in any
   * script), is taken. No read: on PostgreSQL it would hold the loop for a round trip. */
  const char *owner = NULL;
  rc = srv_taken_find(a->taken, name, p != NULL ? p->id : NULL, &owner);
  if (rc != 0)
    return rc;
  if (owner == NULL)
    return 0;
  if (!same)
    lookup_count(a, c->addr);
  return SRV_ENAMETAKEN;
}

/* Reads fn through the accounts' reader for j, one of its connection's jobs meanwhile (a
 * connection that goes leaves it to be dropped); done then takes it back with read_back().
 * Returns 0, or the reader's error (j is then not among the jobs and done never comes). */
static int read_for(srv_accounts *a, job *j, srv_read_fn fn, srv_read_done done) {
  j->a = a;
  srv_list_push_back(&a->jobs, &j->link);
  a->njobs++;
  int rc = srv_reader_read(a->reader, fn, done, j);
  if (rc != 0) {
    srv_list_remove(&j->link);
    a->njobs--;
  }
  return rc;
}

/* A read's answer takes j back from the jobs: returns its accounts, or NULL when they were freed
 * meanwhile (srv_accounts_free() unlinked j and let go of its player: j is freed here). */
static srv_accounts *read_back(job *j) {
  srv_accounts *a = j->a;
  if (a == NULL) {
    job_wipe_free(j);
    return NULL;
  }
  srv_list_remove(&j->link);
  a->njobs--;
  return a;
}

/* ---- register ------------------------------------------------------------------------------ */

/* Sign-up's read of the name through the storage seam (off the loop on a network database):
 * whether an account has it already. */
static int read_register_name(srv_store *store, void *arg) {
  job *j = arg;
  srv_store_account acc;
  int rc = srv_store_account_by_key(store, j->key, &acc);
  if (rc == 0) {
    j->taken = true;
    srv_pwhash_wipe(acc.password, sizeof acc.password);
  }
  return rc == SRV_STORE_ENOTFOUND ? 0 : rc;
}

/* The name read again after the hash (another sign-up may have taken it meanwhile): the account is
 * made, or the request gets its error. */
static void register_checked(void *arg, int rc) {
  job *j = arg;
  srv_accounts *a = read_back(j);
  if (a == NULL)
    return;
  srv_client *c = j->c;
  if (c == NULL) { /* Gone while the name was read. */
    job_done(j);
    return;
  }
  srv_player *p = j->player;
  int err = 0;
  if (rc < 0)
    err = storage_fail(a, "cannot read an account", rc);
  else if (j->taken)
    err = SRV_ENAMETAKEN;
  else if (c->player != p)
    err = SRV_EBUSY; /* Another device logged this one out meanwhile. */
  else if (p->account || p->deleted)
    err = SRV_EREGISTERED;
  else {
    /* Another sign-up of a look-alike may have been applied while this one hashed. */
    const char *owner = NULL;
    if (srv_taken_find(a->taken, j->name, p->id, &owner) == 0 && owner != NULL)
      err = SRV_ENAMETAKEN;
  }
  srv_store_account acc;
  memset(&acc, 0, sizeof acc);
  if (err == 0) {
    /* The player first (a guest is not always stored yet), then its account. */
    srv_persist_player(a->persist, p);
    snprintf(acc.player, sizeof acc.player, "%s", p->id);
    snprintf(acc.name, sizeof acc.name, "%s", j->name);
    snprintf(acc.key, sizeof acc.key, "%s", j->key);
    memcpy(acc.password, j->hash, sizeof acc.password);
    acc.created_ms = acc.password_ms = a->time->wall(a->time);
    rc = srv_store_account_create(a->store, &acc);
    if (rc == SRV_STORE_ECONFLICT)
      err = SRV_ENAMETAKEN;
    else if (rc < 0)
      err = storage_fail(a, "cannot store an account", rc);
  }
  srv_pwhash_wipe(acc.password, sizeof acc.password);
  if (err != 0) {
    send_error(a, c, err, &j->id, j->kind);
    job_done(j);
    return;
  }
  p->account = true;
  snprintf(p->name, sizeof p->name, "%s", j->name);
  /* Guests may not look like it from now on (a name that has a key has a skeleton; out of
   * memory, the account stands unguarded until the next start, which reads it). */
  if ((rc = srv_taken_add(a->taken, p->id, p->name)) != 0)
    srv_log_warn("account", "player %s: its name is not guarded against look-alikes (%s)", p->id,
                 srv_err_code(rc));
  for (int k = 0; k < SRV_RATED_GAMES; k++)
    p->ratings[k] = SRV_PLAYER_RATING_NEW;
  srv_persist_player(a->persist, p); /* Its name is the account's now. */
  /* The guest's session is the account's first: its device named when the client said. */
  if (j->label[0] != '\0' && (rc = srv_store_session_label(a->store, c->token_hash, j->label)) < 0)
    storage_fail(a, "cannot store a session's device", rc); /* The account stands without it. */
  srv_log_info("account", "player %s registered", p->id);
  srv_event ev = {.type = SRV_EV_ACCOUNT, .id = &j->id};
  ev.u.account.player = p;
  srv_send_event(&a->sink, c, &ev);
  job_done(j);
}

static void done_register(void *arg, bool cancelled) {
  job *j = arg;
  if (!finish(j, cancelled))
    return;
  srv_accounts *a = j->a;
  if (j->hashed != 0) {
    send_error(a, j->c, SRV_ENOMEM, &j->id, j->kind);
    job_done(j);
    return;
  }
  j->taken = false;
  int rc = read_for(a, j, read_register_name, register_checked);
  if (rc != 0) {
    send_error(a, j->c, rc, &j->id, j->kind);
    job_done(j);
  }
}

/* The name is read: the hash goes off the loop, or the request gets its error. The job holds no
 * player reference yet (start() takes it). */
static void register_read(void *arg, int rc) {
  job *j = arg;
  srv_accounts *a = read_back(j);
  if (a == NULL)
    return;
  srv_client *c = j->c;
  int err = 0;
  if (c == NULL)
    err = SRV_EINTERNAL; /* Gone while the name was read: nothing is sent. */
  else if (rc < 0)
    err = storage_fail(a, "cannot read an account", rc);
  else if (j->taken) {
    lookup_count(a, c->addr); /* A name found taken counts (as in hello). */
    err = SRV_ENAMETAKEN;
  } else if (c->player->account)
    err = SRV_EREGISTERED;
  if (err != 0) {
    give_back(a, j);
    if (c != NULL)
      send_error(a, c, err, &j->id, j->kind);
    job_wipe_free(j);
    return;
  }
  j->player = c->player;
  start(a, c, j, work_hash, done_register);
}

int srv_account_register(srv_accounts *a, srv_client *c, const srv_cmd *cmd) {
  srv_player *p = c->player;
  if (p->account)
    return SRV_EREGISTERED;
  if (job_of(a, c) != NULL)
    return SRV_EBUSY;
  char name[SRV_NAME_SIZE], key[SRV_NAME_KEY_SIZE];
  const char *why = NULL;
  int rc = srv_names_account(cmd->name, name, sizeof name, key, &why);
  if (rc != 0)
    return rc;
  /* Whether the name is taken says whether an account has it: an address past its lookups
   * waits, and a name found taken counts (as in hello). */
  int64_t wait = lookup_wait(a, c->addr);
  if (wait > 0) {
    srv_send_error(&a->sink, c, SRV_EATTEMPTS, &cmd->id, NULL, "register", wait);
    return 0;
  }
  /* Another account's name that reads the same (its skeleton: a look-alike the key does not
   * know) is taken as well. */
  const char *owner = NULL;
  if (srv_taken_find(a->taken, name, p->id, &owner) == 0 && owner != NULL) {
    lookup_count(a, c->addr);
    return SRV_ENAMETAKEN;
  }
  job *j = new_job(c, cmd, JOB_REGISTER);
  if (j == NULL)
    return SRV_ENOMEM;
  j->lane = SRV_CHECKQ_STRANGER;
  if (!admit(a, c, cmd, j, NULL)) {
    job_wipe_free(j);
    return 0;
  }
  snprintf(j->name, sizeof j->name, "%s", name);
  snprintf(j->key, sizeof j->key, "%s", key);
  /* Whether an account has the name is read through the storage seam first, then the password
   * is hashed. */
  rc = read_for(a, j, read_register_name, register_read);
  if (rc != 0) {
    give_back(a, j);
    job_wipe_free(j);
  }
  return rc;
}

/* ---- Sessions ------------------------------------------------------------------------------ */

/* A session's public id: the hex of its token's hash's first 8 bytes. */
static void session_id(const uint8_t hash[32], char out[SRV_SESSION_ID_CHARS + 1]) {
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < SRV_SESSION_ID_CHARS / 2; i++) {
    out[2 * i] = hex[hash[i] >> 4];
    out[2 * i + 1] = hex[hash[i] & 15];
  }
  out[SRV_SESSION_ID_CHARS] = '\0';
}

/* Ends p's session token_hash (borrowed; copied first: it may be a connection's own, which
 * changes): deleted from storage and memory, and every connection that used it becomes a new
 * guest told reason. Returns 0 or SRV_ESTORAGE (nothing changed). */
static int end_session(srv_accounts *a, srv_player *p, const uint8_t *token_hash,
                       const char *reason) {
  uint8_t hash[32];
  memcpy(hash, token_hash, sizeof hash);
  int rc = srv_store_session_delete(a->store, hash);
  if (rc < 0)
    return storage_fail(a, "cannot delete a session", rc);
  srv_ident_revoke(a->ident, hash);
  rc = to_guests(a, p, hash, NULL, NULL, NULL, reason);
  if (rc < 0)
    srv_log_error("account", "cannot make guests of a session of player %s: %s", p->id,
                  srv_err_code(rc));
  return rc;
}

/* Whether one of p's connections uses the session token_hash: it is in use now. */
static bool connected(const srv_player *p, const uint8_t *token_hash) {
  srv_list_foreach (it, &p->clients) {
    const srv_client *x = srv_list_entry(it, srv_client, of_player);
    if (memcmp(x->token_hash, token_hash, 32) == 0)
      return true;
  }
  return false;
}

/* p logs in on a new device: of its stored sessions, the least recently used end until the new
 * one fits in sessions_per_account, those no connection uses first; keep (borrowed, the asking
 * connection's own) never ends here. Returns 0 or a negative code (logged by the caller: the
 * login stands). */
static int cap_sessions(srv_accounts *a, srv_player *p, const uint8_t *keep,
                        const srv_store_session *list, size_t n) {
  int rc = 0;
  size_t room = (size_t)a->cfg.sessions_per_account - 1, kept = n, ended = 0;
  bool *gone = n > 0 ? calloc(n, sizeof *gone) : NULL;
  if (n > 0 && gone == NULL)
    return SRV_ENOMEM;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = n; rc == 0 && i-- > 0 && kept > room;) {
      if (gone[i] || memcmp(list[i].token_hash, keep, 32) == 0 ||
          (pass == 0 && connected(p, list[i].token_hash)))
        continue;
      rc = end_session(a, p, list[i].token_hash, "revoked");
      gone[i] = true;
      kept--;
      ended++;
    }
  }
  free(gone);
  if (ended > 0)
    srv_log_info("account", "player %s has more than %d sessions: %zu least recently used ended",
                 p->id, a->cfg.sessions_per_account, ended);
  return rc;
}

/* Sends c the sessions list (n of them, the most recently used first; skip, when not NULL, left
 * out), answering id. Returns 0 or SRV_ENOMEM. */
static int send_sessions(srv_accounts *a, srv_client *c, const srv_req_id *id,
                         const srv_store_session *list, size_t n, const uint8_t *skip) {
  srv_session_view *v = n > 0 ? calloc(n, sizeof *v) : NULL;
  if (n > 0 && v == NULL)
    return SRV_ENOMEM;
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (skip != NULL && memcmp(list[i].token_hash, skip, 32) == 0)
      continue;
    session_id(list[i].token_hash, v[m].id);
    v[m].device = list[i].label;
    v[m].created_ms = list[i].created_ms;
    v[m].seen_ms = list[i].seen_ms;
    v[m].current = memcmp(list[i].token_hash, c->token_hash, 32) == 0;
    m++;
  }
  srv_event ev = {.type = SRV_EV_SESSIONS, .id = id};
  ev.u.sessions.list = v;
  ev.u.sessions.n = m;
  srv_send_event(&a->sink, c, &ev); /* A frame that cannot be made drops c (the sink). */
  free(v);
  return 0;
}

/* The sessions page's read of an account's sessions through the storage seam (off the loop on
 * a network database). */
static int read_sessions(srv_store *store, void *arg) {
  job *j = arg;
  return srv_store_sessions_of(store, j->account_id, &j->sessions, &j->n_sessions);
}

/* The sessions are read: the list is sent (sessions), or the one named ends and the list without
 * it is sent (revoke_session). */
static void sessions_read(void *arg, int rc) {
  job *j = arg;
  srv_accounts *a = read_back(j);
  if (a == NULL)
    return;
  srv_client *c = j->c;
  srv_player *p = c != NULL ? c->player : NULL;
  if (c == NULL) {
    rc = 0; /* Gone while they were read: nothing is sent. */
  } else if (rc < 0) {
    rc = storage_fail(a, "cannot read sessions", rc);
  } else if (!p->account || strcmp(p->id, j->account_id) != 0) {
    rc = SRV_ENOACCOUNT; /* Logged out meanwhile. */
  } else if (j->kind == JOB_SESSIONS) {
    rc = send_sessions(a, c, &j->id, j->sessions, j->n_sessions, NULL);
  } else {
    const srv_store_session *list = j->sessions;
    size_t n = j->n_sessions, i = 0;
    char id[SRV_SESSION_ID_CHARS + 1];
    for (; i < n; i++) {
      session_id(list[i].token_hash, id);
      if (strcmp(id, j->session) == 0)
        break;
    }
    if (i == n) {
      rc = SRV_ENOSESSION;
    } else if (memcmp(list[i].token_hash, c->token_hash, 32) == 0) {
      /* This device's own: logout ends it (and says who this connection is next). */
      srv_send_error(&a->sink, c, SRV_EBADREQ, &j->id, "session", "revoke_session", 0);
    } else if ((rc = end_session(a, p, list[i].token_hash, "revoked")) == 0) {
      srv_log_info("account", "player %s revoked a session", p->id);
      rc = send_sessions(a, c, &j->id, list, n, list[i].token_hash);
    }
  }
  if (rc < 0)
    send_error(a, c, rc, &j->id, j->kind);
  job_wipe_free(j);
}

/* sessions and revoke_session: the account's sessions are read first. */
static int start_sessions(srv_accounts *a, srv_client *c, const srv_cmd *cmd, job_kind kind) {
  srv_player *p = c->player;
  if (!p->account)
    return SRV_ENOACCOUNT;
  if (job_of(a, c) != NULL)
    return SRV_EBUSY;
  job *j = new_job(c, cmd, kind);
  if (j == NULL)
    return SRV_ENOMEM;
  snprintf(j->account_id, sizeof j->account_id, "%s", p->id);
  snprintf(j->session, sizeof j->session, "%s", cmd->session);
  int rc = read_for(a, j, read_sessions, sessions_read);
  if (rc != 0)
    job_wipe_free(j);
  return rc;
}

int srv_account_sessions(srv_accounts *a, srv_client *c, const srv_cmd *cmd) {
  return start_sessions(a, c, cmd, JOB_SESSIONS);
}

int srv_account_revoke_session(srv_accounts *a, srv_client *c, const srv_cmd *cmd) {
  return start_sessions(a, c, cmd, JOB_REVOKE);
}

int srv_accounts_seen(srv_accounts *a, const srv_client *c) {
  int rc = srv_store_session_seen(a->store, c->token_hash, a->time->wall(a->time));
  return rc < 0 ? storage_fail(a, "cannot store when a session was used", rc) : 0;
}

/* ---- login --------------------------------------------------------------------------------- */

/* Login's second read, after the check (off the loop on a network database): the account may
 * have gone, or its password changed, while the hash ran; what a player not in memory needs (its
 * account's name and ratings) and its stored sessions (the new one may end the oldest) come with
 * it. */
static int read_login_check(srv_store *store, void *arg) {
  job *j = arg;
  srv_store_account acc;
  int rc = srv_store_account_by_key(store, j->key, &acc);
  if (rc == SRV_STORE_ENOTFOUND)
    return 0; /* Gone: not still. */
  if (rc < 0)
    return rc;
  j->still = strcmp(acc.player, j->account_id) == 0 && strcmp(acc.password, j->stored) == 0;
  snprintf(j->acc_name, sizeof j->acc_name, "%s", acc.name);
  srv_pwhash_wipe(acc.password, sizeof acc.password);
  if (!j->still)
    return 0;
  if ((rc = srv_persist_account_read(store, j->account_id, &j->account)) < 0)
    return rc;
  return srv_store_sessions_of(store, j->account_id, &j->sessions, &j->n_sessions);
}

/* The account as it is now: the login goes in (a new session for the connection) or is refused. */
static void login_checked(void *arg, int rc) {
  job *j = arg;
  srv_accounts *a = read_back(j);
  if (a == NULL)
    return;
  srv_client *c = j->c;
  if (c == NULL) { /* Gone while the account was read. */
    job_done(j);
    return;
  }
  int err = rc < 0     ? storage_fail(a, "cannot read an account", rc)
            : j->still ? 0
                       : SRV_ECREDENTIALS;
  srv_player *p = NULL;
  if (err == 0) {
    p = srv_ident_find_id(a->ident, j->account_id);
    if (p != NULL) {
      srv_ident_ref(p);
    } else if ((rc = srv_ident_adopt(a->ident, j->account_id, j->acc_name, &p)) != 0) {
      err = rc;
    } else {
      srv_persist_account_apply(p, &j->account);
    }
  }
  char token[SRV_TOKEN_CHARS + 1];
  uint8_t hash[32];
  if (err == 0 && (rc = srv_ident_new_token(a->ident, p, token, hash)) != 0)
    err = rc;
  if (err != 0) {
    if (p != NULL)
      srv_ident_unref(a->ident, p);
    send_error(a, c, err, &j->id, j->kind);
    job_done(j);
    return;
  }
  if (j->lane == SRV_CHECKQ_STRANGER)
    srv_attempts_clear(a->by_name, j->key); /* A session device's own count stays. */
  if (j->hashed == 0 &&
      (rc = srv_store_account_password(a->store, p->id, j->hash, a->time->wall(a->time))) < 0)
    storage_fail(a, "cannot store a new password hash", rc); /* The old one still works. */
  /* The new session takes the place of the least recently used when the account has its fill
   * (the login stands when that fails: logged). */
  if ((rc = cap_sessions(a, p, c->token_hash, j->sessions, j->n_sessions)) < 0)
    srv_log_error("account", "player %s: cannot end its oldest sessions: %s", p->id,
                  srv_err_code(rc));
  srv_persist_player(a->persist, p); /* Its sessions, the new one included. */
  if (j->label[0] != '\0' && (rc = srv_store_session_label(a->store, hash, j->label)) < 0)
    storage_fail(a, "cannot store a session's device", rc); /* The session stands without it. */
  srv_log_info("account", "player %s logged in from %s", p->id, c->addr);
  switch_client(a, c, p, hash, token, true, &j->id, NULL);
  srv_ident_unref(a->ident, p);
  job_done(j);
}

static void done_login(void *arg, bool cancelled) {
  job *j = arg;
  if (!finish(j, cancelled))
    return;
  srv_accounts *a = j->a;
  if (j->account_id[0] == '\0' || j->verified != 0) {
    send_error(a, j->c, SRV_ECREDENTIALS, &j->id, j->kind);
    job_done(j);
    return;
  }
  int rc = read_for(a, j, read_login_check, login_checked);
  if (rc != 0) {
    send_error(a, j->c, rc, &j->id, j->kind);
    job_done(j);
  }
}

/* Login's read of the account through the storage seam: the stored hash the check compares with
 * (for a name nobody has, a hash nobody matches: the check runs all the same). */
static int read_login(srv_store *store, void *arg) {
  job *j = arg;
  srv_store_account acc;
  int rc = srv_store_account_by_key(store, j->key, &acc);
  if (rc == 0) {
    snprintf(j->account_id, sizeof j->account_id, "%.*s", SRV_PLAYER_ID_CHARS, acc.player);
    memcpy(j->stored, acc.password, sizeof j->stored);
    srv_pwhash_wipe(acc.password, sizeof acc.password);
  } else if (rc == SRV_STORE_ENOTFOUND) {
    snprintf(j->stored, sizeof j->stored, "%s", srv_pwhash_dummy());
    rc = 0;
  }
  return rc;
}

/* The account is read: the password check goes off the loop (or the request gets its error). */
static void login_read(void *arg, int rc) {
  job *j = arg;
  srv_accounts *a = read_back(j);
  if (a == NULL)
    return;
  srv_client *c = j->c;
  srv_req_id id = j->id;
  if (c == NULL || rc < 0) { /* Gone while its account was read, or not read: no check. */
    give_back(a, j);
    job_wipe_free(j);
    if (c != NULL)
      srv_send_error(&a->sink, c, storage_fail(a, "cannot read an account", rc), &id, NULL, "login",
                     0);
    return;
  }
  start(a, c, j, work_verify, done_login);
}

int srv_account_login(srv_accounts *a, srv_client *c, const srv_cmd *cmd) {
  if (job_of(a, c) != NULL)
    return SRV_EBUSY;
  char key[SRV_NAME_KEY_SIZE];
  if (srv_names_key(cmd->name, key, sizeof key) <= 0)
    return SRV_ECREDENTIALS; /* No account has an empty key. */
  job *j = new_job(c, cmd, JOB_LOGIN);
  if (j == NULL)
    return SRV_ENOMEM;
  snprintf(j->key, sizeof j->key, "%s", key);
  /* A device logged in as that account checks its password in the session lane, counted
   * against itself; anyone else is a stranger, counted against the name and the address. */
  j->lane = session_of(c, key) ? SRV_CHECKQ_SESSION : SRV_CHECKQ_STRANGER;
  if (!admit(a, c, cmd, j, key)) {
    job_wipe_free(j);
    return 0;
  }
  /* Its account is read, then the password is checked. */
  int rc = read_for(a, j, read_login, login_read);
  if (rc != 0) {
    give_back(a, j);
    job_wipe_free(j);
  }
  return rc;
}

/* ---- logout, logout everywhere ------------------------------------------------------------- */

int srv_account_logout(srv_accounts *a, srv_client *c, const srv_cmd *cmd) {
  srv_player *p = c->player;
  if (!p->account)
    return SRV_ENOACCOUNT;
  if (job_of(a, c) != NULL)
    return SRV_EBUSY;
  uint8_t token[32];
  memcpy(token, c->token_hash, 32);
  int rc = srv_store_session_delete(a->store, token);
  if (rc < 0)
    return storage_fail(a, "cannot delete a session", rc);
  srv_ident_revoke(a->ident, token);
  srv_log_info("account", "player %s logged out", p->id);
  /* Only the connections that used this token: another device's session is not touched. */
  return to_guests(a, p, token, NULL, c, &cmd->id, "logout");
}

int srv_account_logout_all(srv_accounts *a, srv_client *c, const srv_cmd *cmd) {
  srv_player *p = c->player;
  if (!p->account)
    return SRV_ENOACCOUNT;
  if (job_of(a, c) != NULL)
    return SRV_EBUSY;
  int rc = srv_store_sessions_revoke(a->store, p->id, NULL);
  if (rc < 0)
    return storage_fail(a, "cannot revoke sessions", rc);
  srv_ident_revoke_all(a->ident, p, NULL);
  srv_log_info("account", "player %s logged out everywhere", p->id);
  return to_guests(a, p, NULL, NULL, c, &cmd->id, "logout_all");
}

/* ---- change_password ----------------------------------------------------------------------- */

/* An account job's read of its account through the storage seam (off the loop on a network
 * database): its stored hash and key, or not found. */
static int read_account(srv_store *store, void *arg) {
  job *j = arg;
  srv_store_account acc;
  int rc = srv_store_account_by_player(store, j->account_id, &acc);
  j->still = rc == 0;
  if (rc == 0) {
    memcpy(j->acc_hash, acc.password, sizeof j->acc_hash);
    snprintf(j->key, sizeof j->key, "%s", acc.key);
    srv_pwhash_wipe(acc.password, sizeof acc.password);
  }
  return rc == SRV_STORE_ENOTFOUND ? 0 : rc;
}

/* The account is read: its password is checked off the loop, or the request gets its error. The
 * job holds no player reference yet (start() takes it). */
static void account_read(void *arg, int rc) {
  job *j = arg;
  srv_accounts *a = read_back(j);
  if (a == NULL)
    return;
  srv_client *c = j->c;
  int err = 0;
  if (c == NULL)
    err = SRV_EINTERNAL; /* Gone while it was read: nothing is sent. */
  else if (rc < 0)
    err = storage_fail(a, "cannot read an account", rc);
  else if (!j->still || !c->player->account || strcmp(c->player->id, j->account_id) != 0)
    err = SRV_ENOACCOUNT;
  if (err != 0) {
    give_back(a, j);
    if (c != NULL)
      send_error(a, c, err, &j->id, j->kind);
    job_wipe_free(j);
    return;
  }
  memcpy(j->stored, j->acc_hash, sizeof j->stored);
  j->player = c->player;
  start(a, c, j, work_verify, j->then);
}

/* The checks every password job of an account starts with; its account is read, then its
 * password checked, then done runs. */
static int start_checked(srv_accounts *a, srv_client *c, const srv_cmd *cmd, job_kind kind,
                         srv_work_done_fn done) {
  srv_player *p = c->player;
  if (!p->account)
    return SRV_ENOACCOUNT;
  if (job_of(a, c) != NULL)
    return SRV_EBUSY;
  job *j = new_job(c, cmd, kind);
  if (j == NULL)
    return SRV_ENOMEM;
  /* Only the account's own devices get here: the session lane, counted against this device. */
  j->lane = SRV_CHECKQ_SESSION;
  if (!admit(a, c, cmd, j, NULL)) {
    job_wipe_free(j);
    return 0;
  }
  snprintf(j->account_id, sizeof j->account_id, "%s", p->id);
  j->then = done;
  int rc = read_for(a, j, read_account, account_read);
  if (rc != 0) {
    give_back(a, j);
    job_wipe_free(j);
  }
  return rc;
}

/* After the check, the account is read again (its password may have changed meanwhile): then
 * finish(j) runs on the loop, or the request gets its error. Returns nothing; j is taken. */
static void check_account(job *j, srv_read_done then) {
  srv_accounts *a = j->a;
  if (j->verified != 0 || j->c->player != j->player || !j->player->account) {
    send_error(a, j->c, j->verified != 0 ? SRV_ECREDENTIALS : SRV_EBUSY, &j->id, j->kind);
    job_done(j);
    return;
  }
  int rc = read_for(a, j, read_account, then);
  if (rc != 0) {
    send_error(a, j->c, rc, &j->id, j->kind);
    job_done(j);
  }
}

/* The answer of check_account()'s read: returns the accounts to go on with, or NULL when the
 * request ended here (its error sent, j freed). */
static srv_accounts *account_checked(job *j, int rc) {
  srv_accounts *a = read_back(j);
  if (a == NULL)
    return NULL;
  int err = 0;
  if (j->c == NULL)
    err = SRV_EINTERNAL; /* Gone while it was read: nothing is sent. */
  else if (rc < 0)
    err = storage_fail(a, "cannot read an account", rc);
  else if (!j->still || strcmp(j->acc_hash, j->stored) != 0)
    err = SRV_ECREDENTIALS; /* Gone, or its password changed meanwhile. */
  else if (j->c->player != j->player || !j->player->account)
    err = SRV_EBUSY;
  if (err == 0)
    return a;
  if (j->c != NULL)
    send_error(a, j->c, err, &j->id, j->kind);
  job_done(j);
  return NULL;
}

static void change_checked(void *arg, int rc) {
  job *j = arg;
  srv_accounts *a = account_checked(j, rc);
  if (a == NULL)
    return;
  srv_client *c = j->c;
  srv_player *p = j->player;
  int err = j->hashed != 0 ? SRV_ENOMEM : 0;
  if (err == 0 &&
      (rc = srv_store_account_password(a->store, p->id, j->hash, a->time->wall(a->time))) < 0)
    err = storage_fail(a, "cannot store a password", rc);
  /* Every other session ends: whoever knew the old password is logged out. */
  if (err == 0 && (rc = srv_store_sessions_revoke(a->store, p->id, c->token_hash)) < 0)
    err = storage_fail(a, "cannot revoke sessions", rc);
  if (err != 0) {
    send_error(a, c, err, &j->id, j->kind);
    job_done(j);
    return;
  }
  srv_ident_revoke_all(a->ident, p, c->token_hash);
  srv_log_info("account", "player %s changed its password", p->id);
  srv_event ev = {.type = SRV_EV_ACCOUNT, .id = &j->id};
  ev.u.account.player = p;
  srv_send_event(&a->sink, c, &ev);
  to_guests(a, p, NULL, c->token_hash, NULL, NULL, "password_changed");
  job_done(j);
}

static void done_change(void *arg, bool cancelled) {
  job *j = arg;
  if (finish(j, cancelled))
    check_account(j, change_checked);
}

int srv_account_change_password(srv_accounts *a, srv_client *c, const srv_cmd *cmd) {
  return start_checked(a, c, cmd, JOB_CHANGE, done_change);
}

/* ---- delete_account ------------------------------------------------------------------------ */

static void delete_checked(void *arg, int rc) {
  job *j = arg;
  srv_accounts *a = account_checked(j, rc);
  if (a == NULL)
    return;
  srv_client *c = j->c;
  srv_player *p = j->player;
  /* Its games in progress are lost first (rated ones are rated in this batch), then everything
   * that names it goes; its finished games stay with an anonymous seat. */
  srv_rooms_forfeit(a->rooms, p);
  rc = srv_store_account_delete(a->store, p->id, SRV_ACCOUNT_DELETED_NAME);
  if (rc < 0) {
    send_error(a, c, storage_fail(a, "cannot delete an account", rc), &j->id, j->kind);
    job_done(j);
    return;
  }
  srv_log_info("account", "player %s deleted its account", p->id);
  srv_taken_remove(a->taken, p->id); /* Its name is free again. */
  srv_rooms_chat_anonymise(a->rooms, p->id, SRV_ACCOUNT_DELETED_NAME);
  p->account = false;
  p->deleted = true;
  snprintf(p->name, sizeof p->name, "%s", SRV_ACCOUNT_DELETED_NAME);
  srv_ident_revoke_all(a->ident, p, NULL);
  to_guests(a, p, NULL, NULL, c, &j->id, "deleted");
  job_done(j);
}

static void done_delete(void *arg, bool cancelled) {
  job *j = arg;
  if (finish(j, cancelled))
    check_account(j, delete_checked);
}

int srv_account_delete(srv_accounts *a, srv_client *c, const srv_cmd *cmd) {
  return start_checked(a, c, cmd, JOB_DELETE, done_delete);
}
