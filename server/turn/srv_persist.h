/* Persistence: the rooms' recorder, turning each record (srv_room.h) into store writes
 * (srv_store.h), and the loop turn's commit.
 *
 * Persistence listens; it does not steer. It never calls the rooms or the network: when a commit
 * fails it only reports what was lost, room by room (srv_persist_commit()), and the end of the loop
 * turn (srv_turn.h) has the rooms take those moves back and the network drop their frames. Hello
 * asks it for players known before a restart. Recovery at start (srv_recover.h) and the archive's
 * HTTP routes (srv_api.h) are modules of their own.
 *
 * The loop thread owns everything here. Every function that can fail returns 0 or a negative
 * SRV_E* code and logs why.
 */
#ifndef SRV_PERSIST_H
#define SRV_PERSIST_H

#include <stdbool.h>

#include "srv_ident.h"
#include "srv_room.h"
#include "srv_store.h"
#include "srv_time.h"
#include "srv_work.h"

typedef struct srv_persist srv_persist;

/* The writes of one room that a failed commit lost. */
typedef struct srv_persist_lost {
  char room[SRV_CODE_LEN + 1];
  int64_t game;   /* The game of the lost move or start (0: none was lost). */
  int ply;        /* The first lost move of that game (-1: none). */
  bool game_lost; /* The game's start was lost (its id is no longer valid). */
} srv_persist_lost;

/* Returns a new recorder writing to store, with ident and time (all borrowed; they must outlive
 * it), or NULL when memory runs out. The store stays the caller's to close. Install it with
 * srv_rooms_set_recorder(rooms, &(srv_recorder){srv_persist_record, p}). */
srv_persist *srv_persist_new(srv_store *store, srv_ident *ident, srv_time *time);

/* Frees p (NULL allowed). */
void srv_persist_free(srv_persist *p);

/* The rooms' recorder (srv_recorder.record; ud is the srv_persist). */
void srv_persist_record(void *ud, const srv_record *rec);

/* ---- The storage seam's commit ----------------------------------------------------------------
 *
 * The loop hands a batch over and gets a completion callback. A committer commits what was
 * written to the store since its last call and calls done(arg, rc) on the loop thread once the
 * result is known: rc 0 when it is durable, else a negative SRV_STORE_* code, with
 * srv_store_failed() listing what was lost (valid during done). Writes made after the hand-over
 * belong to the next batch. SQLite's own committer (the default) commits at once and calls done
 * before it returns; a network database calls it when its COMMIT's result arrives. */
typedef void (*srv_commit_done)(void *arg, int rc);
typedef struct srv_committer {
  void (*commit)(void *ud, srv_store *store, srv_commit_done done, void *arg);
  void *ud;
} srv_committer;

/* Uses committer (copied; NULL: SQLite's own, at once). Only between batches. */
void srv_persist_set_committer(srv_persist *p, const srv_committer *committer);

/* What a batch came to: n rooms lost writes (0: everything written in it is durable), lost
 * (borrowed, valid during the call) listing them, one entry per room: the callee takes them back
 * (srv_rooms_store_lost()) or, for a room that is gone, calls srv_persist_room_gone(). */
typedef void (*srv_persist_done)(void *arg, const srv_persist_lost *lost, int n);

/* Hands the loop turn's batch over to be committed, after writing again the results the store
 * refused earlier (at most once a second), and calls done(arg, ...) on the loop thread when its
 * result is known (perhaps before this returns). One batch is in flight at a time: the caller
 * waits for done before the next call (srv_persist_busy()); meanwhile new writes form the next
 * batch. Failures are logged here. */
void srv_persist_commit(srv_persist *p, srv_persist_done done, void *arg);

/* Whether a batch is in flight (handed over, its result not known yet). */
bool srv_persist_busy(const srv_persist *p);

/* Room code (borrowed) of a lost batch no longer exists: its closing, which may be what was lost,
 * is recorded again. */
void srv_persist_room_gone(srv_persist *p, const char *code);

/* Reads the account of pl (borrowed) from store, when it has one: marks it an account, gives it
 * its account name and its ratings. Returns 0 (also without an account) or SRV_ESTORAGE. */
int srv_persist_load_account(srv_store *store, srv_player *pl);

/* srv_persist_load_account() in two steps, so that the read can run off the loop: the account
 * of player (borrowed) read from store (any store of the database, a reader's included) into
 * *out (its password hash wiped), then applied to the player on the loop. */
typedef struct srv_persist_account {
  bool found; /* false: a guest (nothing to apply). */
  char name[SRV_STORE_NAME_SIZE];
  srv_store_rating ratings[SRV_STORE_RATED_GAMES];
} srv_persist_account;

/* Returns 0 (also without an account) or a negative SRV_STORE_E* code. */
int srv_persist_account_read(srv_store *store, const char *player, srv_persist_account *out);
void srv_persist_account_apply(srv_player *pl, const srv_persist_account *a);

/* Hello's restore hook (srv_dispatch_store.restore): looks for the player whose session is token
 * (borrowed) through the storage seam's reads (srv_reader.h: SQLite at once, a network database on
 * the reader's own connection off the loop when srv_persist_use_work() gave it a pool); done(arg,
 * player) then comes on the loop with the player adopted into the registry, its account applied,
 * and a new reference (done's to give back), or NULL (unknown; a storage failure is logged).
 * Returns 0 when done was or will be called, or SRV_ENOMEM (done is never called). */
int srv_persist_restore(void *ud, const char *token, void (*done)(void *arg, srv_player *player),
                        void *arg);

/* Runs the restore hook's reads on work (borrowed; it must outlive p) when the store is a network
 * database (srv_reader_use_work()). Returns 0 or a negative SRV_E* code (they stay on the loop). */
int srv_persist_use_work(srv_persist *p, srv_work *work);

/* Hello's player hook (srv_dispatch_store.player), also the accounts': records player (borrowed)
 * and the sessions the registry knows for it. Hello calls it for a rename only: a new guest is
 * stored when it first sits down (its room's record), so hellos alone cannot grow the file. */
void srv_persist_player(void *ud, const srv_player *player);

/* Players that never played a game and sit nowhere are forgotten after this many days (checked
 * at the first commit and then once a day, srv_store_players_expire()). */
#define SRV_PERSIST_GUEST_DAYS 7

/* An account's session unused this many days ends (0: never), checked with the guests
 * (srv_store_sessions_idle()), forgotten by the registry too (a player in memory no longer says
 * hello with it; a connection that uses it keeps its identity until it says hello again). The
 * default is SRV_PERSIST_SESSION_DAYS. */
#define SRV_PERSIST_SESSION_DAYS 60
void srv_persist_set_session_days(srv_persist *p, int days);

#endif
