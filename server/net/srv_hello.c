/* The hello handler (see srv_hello.h). */
#include "srv_hello.h"

#include <stdlib.h>
#include <string.h>

#include "srv_account.h"
#include "srv_error.h"
#include "srv_names.h"
#include "srv_peer.h"

/* The name a guest asks for must be a name a guest may have: not reserved, not an account's (an
 * account keeps its own name whatever hello says); the lookup counts against c's address
 * (SRV_EATTEMPTS: *retry_after_ms says when it may). */
static int check_name(srv_dispatch *d, const srv_client *c, const srv_player *p, const char *name,
                      int64_t *retry_after_ms) {
  if (d->accounts != NULL)
    return srv_accounts_check_name(d->accounts, c, p, name, retry_after_ms);
  char key[SRV_NAME_KEY_SIZE];
  return srv_names_display(name, key);
}

/* A hello whose token storage is looking for (c->hello_wait while it waits). */
typedef struct hello_wait {
  srv_dispatch *d;
  srv_client *c; /* NULL once the connection is gone. */
  srv_cmd cmd;
} hello_wait;

/* The rest of a hello, once p is known: the player the token names (resumed), or NULL (a new
 * one). owned: a reference of the caller's to p (NULL: none), given back here in every case. */
static int hello_go(srv_dispatch *d, srv_client *c, const srv_cmd *cmd, srv_player *p,
                    srv_player *owned) {
  bool resumed = p != NULL;
  bool rename = cmd->has_name && (p == NULL || !p->account);
  if (rename) {
    int64_t wait = 0;
    int rc = check_name(d, c, p, cmd->name, &wait);
    if (rc != 0) {
      if (owned != NULL)
        srv_ident_unref(d->ident, owned);
      if (rc != SRV_EATTEMPTS)
        return rc;
      /* Too many names looked up from this address: said with when to try again. */
      srv_send_error(&d->sink, c, rc, &cmd->id, "name", "hello", wait);
      return 0;
    }
  }
  char token[SRV_TOKEN_CHARS + 1];
  if (p != NULL) {
    memcpy(token, cmd->token, sizeof token);
    if (rename)
      memcpy(p->name, cmd->name, sizeof p->name);
  } else {
    /* A new player: counted against its address's rate (one address cannot mint players without
     * end). */
    if (d->time != NULL && d->players_per_addr > 0 && c->peer != NULL &&
        !srv_peer_take_hello(c->peer, d->time->now(d->time), d->players_per_addr,
                             d->players_per_addr))
      return SRV_ERATE;
    char name[SRV_NAME_SIZE];
    if (cmd->has_name)
      memcpy(name, cmd->name, sizeof name);
    else
      srv_ident_guest_name(name);
    int rc = srv_ident_create(d->ident, name, &p, token);
    if (rc != 0)
      return rc;
    owned = p;
  }
  int rc = srv_ident_hash_token(token, c->token_hash);
  if (rc != 0) {
    if (owned != NULL)
      srv_ident_unref(d->ident, owned);
    return rc;
  }
  if (d->store.player != NULL && resumed && rename)
    d->store.player(d->store.ud, p); /* A rename; a new guest is stored when it sits down. */
  /* An account's session used: its last use recorded (a failure is logged; the hello goes on). */
  if (resumed && p->account && d->accounts != NULL)
    (void)srv_accounts_seen(d->accounts, c);
  srv_event ev = {.type = SRV_EV_WELCOME, .id = &cmd->id};
  ev.u.welcome.player = p;
  ev.u.welcome.token = token;
  ev.u.welcome.resumed = resumed;
  ev.u.welcome.storage = d->store.restore != NULL;
  ev.u.welcome.computer = srv_rooms_computer_on(d->rooms);
  srv_send_event(&d->sink, c, &ev);
  srv_rooms_identify(d->rooms, c, p, resumed);
  if (resumed && d->router.resumed != NULL)
    d->router.resumed(d->router.ud, c); /* A cluster: its rooms on other nodes too. */
  if (owned != NULL)
    srv_ident_unref(d->ident, owned);
  return 0;
}

/* Storage's answer for a waiting hello (p: the token's player with a reference of ours, or NULL:
 * a new player, as for a token nobody knows). */
static void hello_restored(void *arg, srv_player *p) {
  hello_wait *w = arg;
  srv_client *c = w->c;
  if (c == NULL) { /* Gone meanwhile. */
    if (p != NULL)
      srv_ident_unref(w->d->ident, p);
  } else {
    c->hello_wait = NULL;
    int rc = c->player != NULL ? SRV_EAGAIN : hello_go(w->d, c, &w->cmd, p, p);
    if (rc != 0)
      srv_dispatch_command_error(w->d, c, rc, &w->cmd);
  }
  free(w);
}

int srv_hello(srv_dispatch *d, srv_client *c, const srv_cmd *cmd) {
  if (c->player != NULL)
    return SRV_EAGAIN;
  if (c->hello_wait != NULL)
    return SRV_EBUSY;
  srv_player *p = cmd->has_token ? srv_ident_find(d->ident, cmd->token) : NULL;
  if (p != NULL || !cmd->has_token || d->store.restore == NULL)
    return hello_go(d, c, cmd, p, NULL);
  /* Known before a restart, perhaps: storage looks (SQLite answers at once, a network database
   * later), and the hello goes on from hello_restored(). */
  hello_wait *w = malloc(sizeof *w);
  if (w == NULL)
    return SRV_ENOMEM;
  w->d = d;
  w->c = c;
  w->cmd = *cmd;
  c->hello_wait = w;
  int rc = d->store.restore(d->store.ud, cmd->token, hello_restored, w);
  if (rc != 0) {
    c->hello_wait = NULL;
    free(w);
  }
  return rc;
}

void srv_hello_client_gone(srv_client *c) {
  hello_wait *w = c->hello_wait;
  if (w != NULL) {
    w->c = NULL;
    c->hello_wait = NULL;
  }
}
