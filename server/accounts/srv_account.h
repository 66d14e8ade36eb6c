/* Accounts: a guest claims its identity with a name and a password (keeping every game it
 * played), logs in from any device and gets its seats back, logs out here or everywhere, changes
 * its password, deletes its account. Guests play exactly as before: nothing here is needed for
 * anything but rated games.
 *
 * Sessions are the tokens of srv_ident.h: a login gives the connection a new token of the account
 * (the client keeps it instead of its guest token); logging out revokes this connection's token,
 * logging out everywhere every token of the account, and every connection that used a revoked
 * token becomes a new guest on the spot (a welcome without a hello, "reason" saying why).
 *
 * Passwords are hashed with Argon2id (srv_pwhash.h) on a worker (srv_work.h), never on the loop
 * thread: the handler checks what it can, copies what the work needs into a job and returns; the
 * job's done callback applies the result on the loop thread, checking again what may have changed
 * meanwhile (the name taken by another sign-up, the password changed by another device). A
 * connection that closes while its job is in flight is forgotten by the job: nothing is applied,
 * nothing is sent. One job per connection at a time (busy).
 *
 * Which checks run, and when: the password-check queue (srv_checkq.h). A device that already holds
 * a session of the account (change_password, delete_account, a login of the account the
 * connection is logged in as) goes in the session lane, which has a worker of its own; every other
 * check (logins, sign-ups) in the strangers' lane. In each lane the addresses (srv_addr_group(): an
 * IPv4 address, an IPv6 /48) take turns, each with a few checks at most; a lane that is full makes
 * room for a newcomer at the expense of the address with the most waiting, or answers busy (with
 * retry_after_ms).
 *
 * Limits (OWASP's "device cookies", with the sessions as the devices): nothing ever locks an
 * account. A stranger's check counts against the account name (logins) and against its address
 * (logins and sign-ups); a session device's counts against that device only, so strangers' wrong
 * passwords never slow the owner's devices down. Past its free attempts in the window
 * (attempts_per_name, attempts_per_addr) a key is slowed down, the wait doubling from delay_ms up
 * to max_delay_ms (srv_attempts.h); a request that must wait is refused at once with
 * too_many_attempts and retry_after_ms, before any hashing. Attempts are counted when the request
 * is accepted, before the hash, on the loop thread: concurrent wrong logins cannot exceed the
 * allowance. A check that does not run after all (busy, the connection went while it waited, a
 * storage error) is given back; a successful login clears its name's count.
 *
 * Sessions (issue 25, item 11): an account keeps at most sessions_per_account; a login past them
 * ends the least recently used ones (their connections become guests, "reason":"revoked"). A
 * hello with a session's token records its use (srv_store_session_seen()); the sessions page
 * lists them (device as its client named it at login or sign-up, created, last used, this
 * device) and revokes one. Sessions unused for long end through persistence (srv_persist.h).
 *
 * Name lookups: whether an account has a name is answered by register (name_taken), by a guest's
 * new name in hello (name_taken) and by GET /api/players/NAME (404). They count against the
 * client's address (srv_addr_group()) like attempts: name_lookups_per_addr free ones per window,
 * then the same growing waits, during which every lookup of the address is refused whatever the
 * name (too_many_attempts with retry_after_ms; 429 over HTTP). Register and hello count the
 * names they find taken (a guest choosing a free name never waits; an address learns at most so
 * many accounts' names per window), the API every profile it is asked for.
 *
 * Replies (docs/protocol.md): register and change_password answer with an account frame; login,
 * logout, logout_all and delete_account with the connection's new welcome (then, after a login,
 * joined and state for every seat of the account).
 *
 * Storage: the account's writes (srv_store.h) join the loop turn's batch like the rooms' and are
 * committed before the reply is released. A write refused at once is answered with storage_error
 * and changes nothing; a commit that fails after it was accepted is logged by persistence (the
 * memory already has the change; it is not taken back, unlike a move).
 */
#ifndef SRV_ACCOUNT_H
#define SRV_ACCOUNT_H

#include <stddef.h>
#include <stdint.h>

#include "srv_checkq.h"
#include "srv_client.h"
#include "srv_msg.h"
#include "srv_persist.h"
#include "srv_send.h"
#include "srv_store.h"
#include "srv_time.h"
#include "srv_work.h"

typedef struct srv_accounts srv_accounts;

typedef struct srv_accounts_config {
  int attempts_per_name; /* Logins of one name per window before they wait (strangers); also a
                          * session device's own checks. */
  int attempts_per_addr; /* Password checks and sign-ups from one address per window before they
                          * wait. */
  int64_t window_ms;
  int64_t delay_ms;          /* The first wait past the free attempts; it doubles with each more. */
  int64_t max_delay_ms;      /* The bound of the waits. */
  int name_lookups_per_addr; /* Lookups of account names from one address per window. */
  int sessions_per_account;  /* Sessions an account keeps at most (>= 1). */
  srv_checkq_config queue;
} srv_accounts_config;

/* The name a deleted account's games and rooms keep. */
#define SRV_ACCOUNT_DELETED_NAME "[deleted]"

/* Fills *cfg with the defaults: 5 logins per name and 30 checks per address in 10 minutes before
 * waits of 1 s, 2 s, 4 s ... up to 60 s, 60 name lookups per address in the same window, 20
 * sessions per account; the queue's defaults (srv_checkq_config_init()). */
void srv_accounts_config_init(srv_accounts_config *cfg);

/* Returns the accounts over rooms, ident, store, persist, work and time (all borrowed; they must
 * outlive it), answering clients through sink (copied), or NULL when memory runs out, libsodium
 * cannot start or the accounts' names cannot be read (srv_taken.h: read once, now, on the calling
 * thread). cfg is copied (NULL: defaults). */
srv_accounts *srv_accounts_new(srv_rooms *rooms, srv_ident *ident, const srv_sink *sink,
                               srv_store *store, srv_persist *persist, srv_work *work,
                               srv_time *time, const srv_accounts_config *cfg);

/* Frees a. Jobs still in flight are detached: their done callbacks only free them, and the
 * player references they held are given back now (ident must still be alive). NULL is allowed. */
void srv_accounts_free(srv_accounts *a);

/* c's connection is gone: its job in flight, if any, will apply nothing. */
void srv_accounts_client_gone(srv_accounts *a, srv_client *c);

/* Jobs queued or running. */
size_t srv_accounts_pending(const srv_accounts *a);

/* The password-check queue (borrowed; for tests and gauges). */
const srv_checkq *srv_accounts_queue(const srv_accounts *a);

/* The check of a display name (borrowed) that player p (borrowed; NULL: a new guest) asks for in
 * hello on connection c: not reserved (srv_names_display()), and not a name that reads as an
 * account's other than p's (the same key, or the same TR39 skeleton: srv_taken.h, in memory, no
 * read), checked against c's address's lookups (a name found taken counts; the name p has already
 * neither waits nor counts). Returns 0, SRV_ENAMERESERVED, SRV_ENAMETAKEN, SRV_ENAMEINVALID, or
 * SRV_EATTEMPTS with *retry_after_ms set (nothing looked up). */
int srv_accounts_check_name(srv_accounts *a, const srv_client *c, const srv_player *p,
                            const char *name, int64_t *retry_after_ms);

/* A lookup of an account name from address addr (borrowed: a client's address key, srv_addr.h)
 * other than hello's and register's (GET /api/players/NAME). Returns 0 when it may happen (it is
 * counted, found or not), else the milliseconds until it may (nothing counted). */
int64_t srv_accounts_lookup(srv_accounts *a, const char *addr);

/* c said hello with the token of one of its account's sessions: its use is recorded. Returns 0 or
 * SRV_ESTORAGE (logged; the hello goes on). */
int srv_accounts_seen(srv_accounts *a, const srv_client *c);

/* The commands (cmd borrowed; c identified). Each returns 0 when it answered or queued a job, or a
 * negative SRV_E* code (nothing changed, nothing sent). */
int srv_account_register(srv_accounts *a, srv_client *c, const srv_cmd *cmd);
int srv_account_login(srv_accounts *a, srv_client *c, const srv_cmd *cmd);
int srv_account_logout(srv_accounts *a, srv_client *c, const srv_cmd *cmd);
int srv_account_logout_all(srv_accounts *a, srv_client *c, const srv_cmd *cmd);
int srv_account_change_password(srv_accounts *a, srv_client *c, const srv_cmd *cmd);
int srv_account_delete(srv_accounts *a, srv_client *c, const srv_cmd *cmd);
/* The account's sessions (a sessions frame), and one of them revoked (then the sessions frame
 * without it): not_registered for a guest, unknown_session for no such session, bad_request (field
 * "session") for this connection's own (logout ends it). */
int srv_account_sessions(srv_accounts *a, srv_client *c, const srv_cmd *cmd);
int srv_account_revoke_session(srv_accounts *a, srv_client *c, const srv_cmd *cmd);

#endif
