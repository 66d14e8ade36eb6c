/* Durable storage: players, rooms, games and every move, in SQLite.
 *
 * Persistence listens; it does not steer. Room logic calls the event functions below (a player
 * was created, a room changed, a game started, a move was played, a game ended) and keeps
 * playing; the store never calls back into the rooms and the rules engine never includes this
 * header. Another backend (Redis, a shared database for several processes) can implement the
 * same functions.
 *
 * Batching. The first write of a loop turn begins a transaction; srv_store_commit(), called once
 * per loop turn from a uv_prepare_t before any state frame is sent, makes the whole turn durable
 * with a single fsync (make it durable before acknowledging). When a write or the commit fails,
 * the batch is rolled back and srv_store_failed() lists what was lost, so the rooms take those
 * moves back before anyone is told of them.
 *
 * Durability (synchronous = FULL, the default): in WAL mode a commit returns after the WAL is
 * fsync'ed, so a committed move survives a process crash (kill -9) and a power loss or kernel
 * crash. With SRV_STORE_SYNC_NORMAL the WAL is fsync'ed only at checkpoints: a committed move
 * survives a process crash, but a power loss can lose the last transactions (never corrupts).
 * Since commits are batched per loop turn, FULL costs one fsync per turn, not per move; the
 * benchmark (bench/store_bench.c) measures both. A store bound to a loop (srv_store_watch())
 * with FULL syncs the log on a thread of its own after each COMMIT and reports the batch from
 * srv_store_commit_async() when the sync is done, so that the loop never waits for a disk.
 * Checkpoints (the log copied into the database, every srv_store_config.checkpoint_pages pages of
 * log) run inside a COMMIT on the store's connection, unless the store is bound to a loop: then
 * a thread of the store runs them on a connection of its own, and the loop copies only what was
 * committed meanwhile (srv_store_ckpt.c).
 *
 * One server per data directory: open takes a POSIX record lock on DIR/mancala.lock and holds it
 * until close, so a second server on the same directory is refused (SRV_STORE_ELOCKED) instead of
 * recovering the same games. The database itself stays in SQLite's normal locking mode, so the
 * sqlite3 tool (".backup") or a WAL replicator can read it while the server runs. (Record locks
 * belong to the process: open one store per directory per process.)
 *
 * Every function returns 0 (or a count) or a negative SRV_STORE_E* code, and never exits. A
 * store is not thread-safe: the loop thread owns it. Times are Unix milliseconds.
 */
#ifndef SRV_STORE_H
#define SRV_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mc_game.h"
#include "mc_rules.h"
#include "srv_ident.h"

/* Error codes, far from the engine's MC_E* and the server's SRV_E* values. */
enum {
  SRV_STORE_EINVAL = -201,    /* A bad argument (NULL, out of range, bad rules). */
  SRV_STORE_ENOMEM = -202,    /* Out of memory. */
  SRV_STORE_EIO = -203,       /* I/O error, including a directory that cannot be created. */
  SRV_STORE_EFULL = -204,     /* The disk or the database is full. */
  SRV_STORE_EACCES = -205,    /* The file or directory cannot be read or written (permissions). */
  SRV_STORE_EREADONLY = -206, /* The database can only be opened read-only. */
  SRV_STORE_ELOCKED = -207,   /* Another process holds the database. */
  SRV_STORE_ECORRUPT = -208,  /* Not a database, or a damaged or foreign one. */
  SRV_STORE_ENEWER = -209,    /* The schema is newer than this program knows. */
  SRV_STORE_ENOTFOUND = -210, /* No such game, room or player. */
  SRV_STORE_ECONFLICT = -211, /* A constraint failed (a move recorded twice...). */
  SRV_STORE_EBADROW = -212,   /* A stored row does not replay (see srv_store_replay()). */
  SRV_STORE_EINTERNAL = -213, /* Anything else SQLite reports. */
  SRV_STORE_EMOVED = -214     /* The database file was deleted or replaced while open. */
};

/* The schema version this code creates and migrates to (PRAGMA user_version). */
#define SRV_STORE_SCHEMA_VERSION 10

/* The database file inside the data directory. */
#define SRV_STORE_FILE "mancala.db"
/* The lock file that keeps a second server out of the data directory. */
#define SRV_STORE_LOCK_FILE "mancala.lock"

/* Sizes of the text fields of the row structs, NUL included. */
#define SRV_STORE_ID_SIZE 33   /* Player ids (the server uses 16 hex digits). */
#define SRV_STORE_NAME_SIZE 97 /* Display names: 24 characters of up to 4 bytes. */
#define SRV_STORE_CODE_SIZE 17 /* Room codes (the server uses 6 characters). */
#define SRV_STORE_ERR_SIZE 256 /* Error messages. */
#define SRV_STORE_KEY_SIZE 97  /* An account name's key (srv_names.h). */
#define SRV_STORE_PWHASH_SIZE                                                                      \
  128 /* A password hash string (libsodium's crypto_pwhash_STRBYTES).                              \
       */
/* The games with ratings: one per mc_kind. */
#define SRV_STORE_RATED_GAMES 3

typedef struct srv_store srv_store;

typedef enum srv_store_sync {
  SRV_STORE_SYNC_FULL = 0,  /* Default: a commit survives power loss. */
  SRV_STORE_SYNC_NORMAL = 1 /* A commit survives a process crash only. */
} srv_store_sync;

typedef struct srv_store_config {
  srv_store_sync sync;
  int busy_timeout_ms;  /* How long open waits for a lock held by someone else; < 0: 1000. */
  int64_t max_bytes;    /* Size quota of the database file; 0: none. Past it writes fail with
                         * SRV_STORE_EFULL, as on a full disk. */
  bool multi_thread;    /* Each SQLite connection of the process is used by one thread at a time
                         * (the server: the loop's and the checkpoints' thread's): SQLite's
                         * per-connection mutexes and its memory statistics are turned off, its
                         * global mutexes stay (SQLITE_CONFIG_MULTITHREAD). Takes effect only when
                         * this open is SQLite's first use in the process (sqlite3_config());
                         * default false (SQLite's serialized mode). */
  int checkpoint_pages; /* The log's length in pages past which it is copied into the database
                         * (a checkpoint); <= 0: 10,000 (40 MiB). */
  bool shared;          /* PostgreSQL: the database is shared by a cluster's nodes, which fence
                         * the games they claim. Otherwise (default false) the store holds the
                         * database's lease, one writer at a time (srv_store_pg.c): open waits for
                         * a server that just stopped to let it go, then takes it over. */
  bool no_takeover;     /* PostgreSQL, not shared: open waits for the lease as above but never
                         * takes it over: it fails with SRV_STORE_ELOCKED while a server runs on
                         * the database (migrate must not depose it). Default false. */
} srv_store_config;

/* A player. Its tokens are its sessions (srv_store_session_put()): the SHA-256 of each, never the
 * token itself. */
typedef struct srv_store_player {
  char id[SRV_STORE_ID_SIZE];
  char name[SRV_STORE_NAME_SIZE];
  int64_t created_ms;
} srv_store_player;

/* An account (schema 4): a player with a name of its own and a password. password is the
 * self-describing string of libsodium's crypto_pwhash_str() (Argon2id, its parameters, its salt
 * and the hash), never the password. key is the name's key (srv_names.h), unique. */
typedef struct srv_store_account {
  char player[SRV_STORE_ID_SIZE];
  char name[SRV_STORE_NAME_SIZE];
  char key[SRV_STORE_KEY_SIZE];
  char password[SRV_STORE_PWHASH_SIZE];
  int64_t created_ms, password_ms;
} srv_store_account;

/* A player's Glicko-2 rating in one game (schema 4). A player who never played a rated game of it
 * reads as 1500, 350, 0.06 with no games and last_ms 0. */
/* A rating as stored (the players' own type: srv_ident.h). */
typedef srv_player_rating srv_store_rating;

/* A seat of a room or game: a player, the computer, or nobody (empty id and name). */
typedef struct srv_store_seat {
  char player[SRV_STORE_ID_SIZE]; /* Player id; "" for the computer or a free seat. */
  char name[SRV_STORE_NAME_SIZE]; /* The name shown when the game was played. */
  int computer;                   /* 0: a person; 1..6: the computer at that level. */
} srv_store_seat;

typedef enum srv_store_status {
  SRV_STORE_STATUS_WAITING = 0,
  SRV_STORE_STATUS_PLAYING = 1,
  SRV_STORE_STATUS_FINISHED = 2
} srv_store_status;

/* A room. settings is the caller's own text (the server stores its room options as JSON); the
 * store keeps it verbatim. In the structs that the store returns, settings is owned by them. */
typedef struct srv_store_room {
  char code[SRV_STORE_CODE_SIZE];
  const char *settings;
  srv_store_seat seats[2]; /* mc_seat order: south, north. */
  srv_store_status status;
  int64_t game; /* The room's current game id, 0 when none (filled by the store). */
} srv_store_room;

/* One move. ply is the number of moves played before it (0 for the first move), which is the
 * `ply` of the state the mover saw. clock_ms is the mover's clock after the move (increment
 * included), or -1 without a clock; after the pie rule's swap, clocks follow the players: the
 * swap's row holds its player's clock, who then holds the other side (srv_store_clocks()). */
typedef struct srv_store_move {
  int ply;
  int seat;  /* mc_seat */
  int house; /* 1..m on the mover's side, or MC_SWAP (the pie rule's swap, seat north) */
  int64_t clock_ms;
  int64_t at_ms;
} srv_store_move;

/* A game with its moves. In results of the store the struct and its moves array are owned by
 * whoever holds the enclosing result (free with the matching *_free function). */
typedef struct srv_store_game {
  int64_t id; /* Permanent id (never reused), 0 before srv_store_game_start(). */
  char room[SRV_STORE_CODE_SIZE];
  int game_no;    /* 1 for the first game of the room, 2 after a rematch... */
  mc_rules rules; /* The rules the game is played under, its rules version included: a Congkak
                   * match stored before schema 3 reads back with burn = MC_BURN_MATCH. */
  srv_store_seat seats[2];
  bool clocked;
  int64_t initial_ms, increment_ms;
  bool rated; /* The game counts for the ratings (schema 4). */
  int64_t started_ms;
  /* The result: ended_ms is 0 while the game goes on. */
  int64_t ended_ms;
  mc_winner winner;
  mc_reason reason;
  int score[2];
  /* The game was aborted (ended_ms set, reason MC_REASON_NONE, no winner or score): it is no game
   * of the archive, of a player's list or of a profile (srv_store_game_abort()). */
  bool aborted;
  /* In a player's list of games (srv_store_player_games_page()), that player's rating after a
   * rated game and how much it changed (rating_known false: not rated, or not for this player). */
  bool rating_known;
  double rating_after, rating_diff;
  /* In such a list too: each seat's accuracy (South, North; srv_marks.h) once the game was
   * analysed (accuracy_known false: not analysed, or no marked move of that seat). */
  bool accuracy_known[2];
  double accuracy[2];
  /* The moves in ply order. In a recent-games list only n_moves is set (moves is NULL). */
  size_t n_moves;
  srv_store_move *moves;
} srv_store_game;

/* One chat line of a room (schema 4). In writes text is borrowed; in a recovery it is owned by the
 * recovery. */
typedef struct srv_store_chat {
  char room[SRV_STORE_CODE_SIZE];
  int64_t game; /* The room's game when it was said; 0: before its first game. */
  int64_t at_ms;
  char player[SRV_STORE_ID_SIZE];
  char name[SRV_STORE_NAME_SIZE];
  char seat[8]; /* "south", "north", "both"; "" for a spectator. */
  const char *text;
  bool account; /* Read by a recovery only: the speaker's player has an account now. */
} srv_store_chat;

/* A recovery gives back at most this many chat lines per room, the last ones. */
#define SRV_STORE_CHAT_KEEP 50

/* Everything needed to rebuild the server after a restart: every room still open with its
 * current unfinished game (when any), the players seated in them, and their last chat lines. */
typedef struct srv_store_recovery {
  size_t n_rooms;
  srv_store_room *rooms;
  size_t n_games;
  srv_store_game *games; /* Unfinished games, each with room set; ordered by id. */
  size_t n_players;
  srv_store_player *players;
  size_t n_chat;
  srv_store_chat *chat; /* Ordered by room, then oldest first; SRV_STORE_CHAT_KEEP per room. */
} srv_store_recovery;

/* A list of games, newest first, without their moves. */
typedef struct srv_store_game_list {
  size_t n;
  srv_store_game *games;
} srv_store_game_list;

/* One write of a batch that did not become durable. */
typedef enum srv_store_op_kind {
  SRV_STORE_OP_PLAYER = 0,
  SRV_STORE_OP_ROOM,
  SRV_STORE_OP_GAME_START,
  SRV_STORE_OP_MOVE,
  SRV_STORE_OP_GAME_FINISH, /* A result, and the ratings it changed. */
  SRV_STORE_OP_ACCOUNT,     /* An account, its password, its deletion, or a session (key: player) */
  SRV_STORE_OP_TAKEBACK,    /* Moves deleted or their clocks rewritten (not a lost move). */
  SRV_STORE_OP_CHAT,        /* A chat line (key: the room). */
  SRV_STORE_OP_ANALYSIS     /* A game's analysis (key: the game's number; no room takes it back). */
} srv_store_op_kind;

typedef struct srv_store_op {
  srv_store_op_kind kind;
  char key[SRV_STORE_CODE_SIZE + SRV_STORE_ID_SIZE]; /* Room code, or player id for PLAYER. */
  int64_t game;                                      /* GAME_START, MOVE, GAME_FINISH */
  int ply;                                           /* MOVE */
} srv_store_op;

/* What a bad stored move looks like to the caller of srv_store_replay(). */
typedef struct srv_store_bad_row {
  size_t index; /* Index of the first bad row in game->moves. */
  int ply, seat, house;
  int err; /* The engine's MC_E* code, or 0 for a mismatch of ply or seat. */
  char message[SRV_STORE_ERR_SIZE];
} srv_store_bad_row;

/* ---- Opening and closing -------------------------------------------------------------------- */

/* Fills *config with the defaults (synchronous FULL, busy timeout 1000 ms, no quota). */
void srv_store_config_init(srv_store_config *config);

/* Opens a PostgreSQL database when dir is a URL (srv_store_is_url()): its schema is created or
 * migrated (one description of the tables for both backends), config's sync and quota do not apply
 * (PostgreSQL's synchronous_commit decides), and the reads of the returned store see only what is
 * committed. Otherwise:
 * Opens (creating when missing) the directory dir and the database SRV_STORE_FILE in it, turns on
 * the directory lock, WAL and the synchronous setting of config (borrowed; NULL: defaults), checks
 * the schema and applies the pending migrations in one transaction. On success *out is a new
 * store (free with srv_store_close()) and 0 is returned. On error *out is NULL, a negative code is
 * returned and, when err is not NULL, a sentence naming the path is written into err
 * (SRV_STORE_ERR_SIZE bytes): an unreadable, read-only, locked, corrupt or newer-schema database
 * is refused, never repaired or downgraded. */
int srv_store_open(const char *dir, const srv_store_config *config, srv_store **out, char *err);

/* Opens a second connection to the database of store (borrowed; it must outlive the reader) that
 * sees only what is committed: in WAL mode the batch store holds open is invisible to it, so
 * reads through it never show a write before it is durable, and never commit the batch early (the
 * archive's HTTP routes read this way). The reads below work on it; its writes fail with
 * SRV_STORE_EREADONLY. Close it with srv_store_close(). Returns 0 with *out, or a negative code. */
int srv_store_open_reader(const srv_store *store, srv_store **out);

/* Rolls back an open batch (it was never acknowledged), finalises every statement and closes the
 * database. NULL is allowed. */
void srv_store_close(srv_store *store);

/* Returns the message of the last error of store (borrowed, valid until the next call), or "". */
const char *srv_store_last_error(const srv_store *store);

/* Returns a static English sentence for a SRV_STORE_E* code. Never NULL. */
const char *srv_store_strerror(int err);

/* Whether location names a PostgreSQL database (postgresql://... or postgres://...) rather than a
 * data directory; srv_store_open() takes either. */
bool srv_store_is_url(const char *location);

/* Whether store's database is reached over the network (PostgreSQL): its reads take a round trip.
 */
bool srv_store_is_network(const srv_store *store);

/* The backend's name: "sqlite" or "postgresql". */
const char *srv_store_backend(const srv_store *store);

/* Whether the store can write now: SQLite always; PostgreSQL while its write connection is up. */
bool srv_store_connected(const srv_store *store);

/* Returns the database file path, or PostgreSQL's URL without its password (borrowed, valid while
 * store lives). */
const char *srv_store_path(const srv_store *store);

/* The files under the store. Before every batch, every commit and every read the store checks
 * that its files are still the ones it opened and still writable (a few stat(2) and access(2)
 * calls a turn), and refuses with a plain message instead of going on:
 *   - the database file deleted or replaced (another inode under its name), or its write-ahead
 *     log deleted or replaced: SRV_STORE_EMOVED, for good (nothing written after that could be
 *     found again by a restart; the store never writes again);
 *   - the database, its write-ahead log or its shared-memory index (-shm, which SQLite maps into
 *     memory: a write to a mapping of a file that became unwritable is a SIGBUS) not writable:
 *     SRV_STORE_EACCES, until it is writable again. */

/* ---- Events: each joins the current batch (beginning it on the first write) ---------------- */

/* Every event function returns 0 when the write joined the batch (it becomes durable with the next
 * srv_store_commit()), or a negative code when it was not recorded: refuse what it stood for
 * (the move) and log srv_store_last_error(). When the failure cost the whole batch (disk full,
 * I/O error), the batch is rolled back at once and the earlier writes of the turn are reported by
 * the next commit; later writes of the same turn start a new batch. */

/* Records a new player or a changed name (all fields borrowed). */
int srv_store_player_put(srv_store *store, const srv_store_player *player);

/* ---- Sessions, accounts and ratings (schema 4) ------------------------------------------- */

/* Records that token_hash (32 bytes, borrowed) is a token of player (borrowed), unless it is
 * stored already. */
int srv_store_session_put(srv_store *store, const uint8_t token_hash[32], const char *player,
                          int64_t created_ms);

/* Deletes the session token_hash (borrowed): the token no longer names anyone. */
int srv_store_session_delete(srv_store *store, const uint8_t token_hash[32]);

/* Deletes every session of player (borrowed) but keep (borrowed; NULL: all of them). */
int srv_store_sessions_revoke(srv_store *store, const char *player, const uint8_t *keep);

/* A device's label as its client names it: at most this many bytes, and the NUL. */
#define SRV_STORE_LABEL_SIZE 65

/* One session of an account (schema 9). */
typedef struct srv_store_session {
  uint8_t token_hash[32];
  int64_t created_ms;
  int64_t seen_ms; /* Its last use: a hello with its token (created_ms when never used since). */
  char label[SRV_STORE_LABEL_SIZE]; /* The device as its client named it; "" when it did not. */
} srv_store_session;

/* Records that the session token_hash (borrowed) was used at seen_ms (nothing when it is none). */
int srv_store_session_seen(srv_store *store, const uint8_t token_hash[32], int64_t seen_ms);

/* Names the device of the session token_hash (both borrowed; label at most
 * SRV_STORE_LABEL_SIZE - 1 bytes, "" for none). */
int srv_store_session_label(srv_store *store, const uint8_t token_hash[32], const char *label);

/* Reads the committed sessions of player (borrowed), the most recently used first, into *out (a
 * new array for free(); NULL when there are none) and *n. Returns 0 or a negative code. */
int srv_store_sessions_of(srv_store *store, const char *player, srv_store_session **out, size_t *n);

/* Deletes the sessions of accounts last used before before_ms (a guest's session goes with its
 * guest: srv_store_players_expire()). Returns how many went (0 on PostgreSQL, which deletes them
 * at the commit) or a negative code. */
int srv_store_sessions_idle(srv_store *store, int64_t before_ms);

/* The committed sessions srv_store_sessions_idle(before_ms) would delete: their token hashes into
 * *out (32 bytes each, a new array for free(); NULL when none) and *n. Returns 0 or a negative
 * code. */
int srv_store_sessions_idle_list(srv_store *store, int64_t before_ms, uint8_t (**out)[32],
                                 size_t *n);

/* Records a new account (borrowed). SRV_STORE_ECONFLICT when its key or its player has one. */
int srv_store_account_create(srv_store *store, const srv_store_account *account);

/* Replaces the password hash of player's account (all borrowed). SRV_STORE_ENOTFOUND when the
 * player has no account. */
int srv_store_account_password(srv_store *store, const char *player, const char *password,
                               int64_t at_ms);

/* Deletes player's account (borrowed) and everything that names it: its sessions, its ratings and
 * their history, its player row; its games and rooms stay with the seat anonymised (no player id,
 * the name anon_name, borrowed), and so do its chat lines (player "", the name anon_name). */
int srv_store_account_delete(srv_store *store, const char *player, const char *anon_name);

/* Reads the account whose name has key (borrowed) into *out. Returns 0 or SRV_STORE_ENOTFOUND. */
int srv_store_account_by_key(srv_store *store, const char *key, srv_store_account *out);

/* Called for each account by srv_store_account_names() with its player id and its name (both
 * borrowed for the call); returns 0, or a negative code that stops the walk. */
typedef int (*srv_store_name_fn)(void *arg, const char *player, const char *name);

/* Calls fn(arg, player, name) for every committed account, by player id. Returns 0, the first
 * negative code of fn, or a negative code for a failed read. */
int srv_store_account_names(srv_store *store, srv_store_name_fn fn, void *arg);

/* Reads player's account (borrowed) into *out. Returns 0 or SRV_STORE_ENOTFOUND. */
int srv_store_account_by_player(srv_store *store, const char *player, srv_store_account *out);

/* Reads the ratings of player (borrowed) in every game into out, by mc_kind (a game never rated
 * reads as a new player's rating). Returns 0 or a negative code. */
int srv_store_ratings_get(srv_store *store, const char *player,
                          srv_store_rating out[SRV_STORE_RATED_GAMES]);

/* Whether the ratings of game id were already changed by it: 1 yes, 0 no, or a negative code. */
int srv_store_game_rated(srv_store *store, int64_t game);

/* Records what rated game id of kind changed: for each seat (South, North), the player (borrowed)
 * and the rating after the game; the history keeps the rating after it and its difference. */
int srv_store_game_rate(srv_store *store, int64_t game, mc_kind kind, const char *const players[2],
                        const srv_store_rating after[2], const double diff[2], int64_t at_ms);

/* Records a room as it is now: settings, seats and status (borrowed). A code seen before is
 * overwritten (room codes are reused after a room closes; its games keep their own copy). */
int srv_store_room_put(srv_store *store, const srv_store_room *room);

/* Records that room code (borrowed) closed: its row is deleted and it will not be recovered (its
 * games stay in the archive). Its chat lines stay with the games they were said in, no longer
 * attached to the code (codes are reused); lines said before any game are deleted. */
int srv_store_room_closed(srv_store *store, const char *code);

/* Records a chat line (borrowed) of an open room. */
int srv_store_chat_add(srv_store *store, const srv_store_chat *line);

/* Records a new game (borrowed; id, result and moves are ignored) and makes it the current game of
 * its room (put the room first). On success *id is its new permanent id, valid at once for
 * srv_store_move_add() (it only becomes durable with the batch). */
int srv_store_game_start(srv_store *store, const srv_store_game *game, int64_t *id);

/* Records one accepted move of game id (borrowed). On SQLite the move's INSERT waits for the
 * batch's other moves: they are inserted together (statements of up to 32 rows) before the
 * COMMIT and before a statement that reads or changes the moves, so a move that breaks a constraint
 * (a second move with the same ply, a game that does not exist) is not refused here: it alone is
 * left out, the batch stays intact, and the commit reports it lost (SRV_STORE_EIO and
 * srv_store_failed()), as the room takes back a refused move. On PostgreSQL such a move is
 * SRV_STORE_ECONFLICT at its commit, with the whole batch. */
int srv_store_move_add(srv_store *store, int64_t game, const srv_store_move *move);

/* Records the result of game id (score borrowed: South, North). */
int srv_store_game_finish(srv_store *store, int64_t game, mc_winner winner, mc_reason reason,
                          const int score[2], int64_t ended_ms);

/* Records that game id was aborted at ended_ms: ended, reason 'aborted', no result nor score. The
 * row stays (its id and its room's pointer to it), but no list of finished games shows it. */
int srv_store_game_abort(srv_store *store, int64_t game, int64_t ended_ms);

/* Claims game id for this store's writer (a node taking a room over, the cluster): the game's
 * owner epoch is raised at once (a round trip, not in the batch) and written into *epoch. From
 * then on every batch of this store that writes that game checks, under a lock of the game's row,
 * that the epoch is still the one claimed, and the batch is refused whole (its commit returns
 * SRV_STORE_ECONFLICT, srv_store_failed() lists its writes) once another writer has claimed the
 * game since: a fencing token, so that a writer that lost the game during a pause can never
 * commit a move of it. PostgreSQL only: a SQLite store has one writer
 * (the directory lock) and answers SRV_STORE_EINVAL. SRV_STORE_ENOTFOUND for an unknown game. */
int srv_store_game_claim(srv_store *store, int64_t game, int64_t *epoch);

/* srv_store_game_claim() in two steps, so that its round trip runs off the loop: the epoch raised
 * (the round trip) through any store of the database, a reader's included
 * (srv_store_open_reader(), on a pool thread), into *epoch; then, on the loop, that epoch recorded
 * for the writer's batches (srv_store_game_claimed()). Until it is recorded the writer must not
 * write the game (a node taking a room over has not brought it back yet). Same errors. */
int srv_store_game_claim_raise(srv_store *store, int64_t game, int64_t *epoch);
int srv_store_game_claimed(srv_store *store, int64_t game, int64_t epoch);

/* A cluster's node: from now on every batch also fences the games this store never claimed, at
 * epoch 0 (a game's epoch as the node that started it holds it), so that a node that lost a room
 * it started, during a pause, cannot commit to it once another node claimed it. PostgreSQL only
 * (SRV_STORE_EINVAL otherwise). */
int srv_store_fence_all(srv_store *store);

/* Deletes the players (and their sessions) created and last seen before before_ms (Unix ms) that
 * have no account, never played a game and hold no seat in an open room: guests nobody can come
 * back as usefully. Returns how many
 * were deleted, or a negative code. */
int srv_store_players_expire(srv_store *store, int64_t before_ms);

/* Records the time player id (borrowed) was last seen (schema 2). */
int srv_store_player_seen(srv_store *store, const char *id, int64_t seen_ms);

/* The players who hold the sides of game now (mc_seat order), written over those it started
 * with: after the pie rule's swap, the move of ply ply, the archive, the lists and the profiles
 * name the players who held the sides at the end. A lost write is reported as that move's
 * (SRV_STORE_OP_MOVE of game and ply). */
int srv_store_game_seats(srv_store *store, int64_t game, int ply, const srv_store_seat seats[2]);

/* Deletes the moves of game from ply from_ply on: moves taken back in play (a takeback), or, in
 * recovery after srv_store_replay() found a bad row, the moves from it on (log what is dropped
 * first). The next move can take that ply again. */
int srv_store_moves_truncate(srv_store *store, int64_t game, int from_ply);

/* Sets the stored clock of the move of game at ply (its mover's time after it) to clock_ms. After
 * a takeback each side's last remaining move holds that side's time at the takeback, so that
 * recovery (srv_store_clocks()) resumes the clocks as they were and gives no time back. */
int srv_store_move_clock(srv_store *store, int64_t game, int ply, int64_t clock_ms);

/* ---- Batches -------------------------------------------------------------------------------- */

/* Returns true when a batch is open (some write since the last commit). */
bool srv_store_pending(const srv_store *store);

/* Commits the open batch, if any. Returns 0 when every write accepted since the last commit is
 * durable. Otherwise a negative code is returned and srv_store_failed() lists the accepted writes
 * that were lost (the commit itself failed and was rolled back, or an earlier write of the turn
 * cost the batch): the rooms must take those moves back and must not send their states. */
int srv_store_commit(srv_store *store);

/* The commit's callback (srv_store_commit_async()): rc as srv_store_commit() returns it, with
 * srv_store_failed() valid during the call. */
typedef void (*srv_store_commit_cb)(void *arg, int rc);

struct uv_loop_s;

/* Commits the open batch as srv_store_commit() does, without waiting for it: cb(arg, rc) runs on
 * loop's thread when the outcome is known. SQLite commits at once and calls cb before returning,
 * or with FULL once bound to the loop, when its thread has synced the log; PostgreSQL sends the
 * batch and calls cb when COMMIT's result arrives, the loop serving meanwhile; writes made in
 * between form the next batch. One batch at a time: not while srv_store_commit_busy(). Returns 0
 * when cb was or will be called, else a negative code. A store committed this way is bound to loop:
 * close it before the loop, then let the loop run once more (its handles close). */
int srv_store_commit_async(srv_store *store, struct uv_loop_s *loop, srv_store_commit_cb cb,
                           void *arg);

/* Binds store to loop before its first commit: a network database's connection is watched from
 * now on, so that its loss is seen (srv_store_connected()) and the connection made again while
 * nothing is written. SQLite: the thread that copies the log into the database starts, with a
 * connection of its own, and the store's connection stops doing it inside its commits
 * (srv_store_ckpt.c); with FULL, the thread that syncs the log starts too. Close the store before
 * the loop, then let the loop run once more (its handles close). Returns 0 or a negative code. */
int srv_store_watch(srv_store *store, struct uv_loop_s *loop);

/* Waits (blocking the thread) for the outcome of the batch handed to srv_store_commit_async(), and
 * runs its callback; returns at once when none is in flight. For a stop. */
void srv_store_commit_wait(srv_store *store);

/* Whether a batch handed to srv_store_commit_async() awaits its outcome. */
bool srv_store_commit_busy(const srv_store *store);

/* Rolls back the open batch; its writes are listed by srv_store_failed(). */
void srv_store_rollback(srv_store *store);

/* Returns the writes lost by the last failed commit or the last rollback (borrowed, valid until
 * the next write, commit or rollback), in the order they were made, and sets *n to their count;
 * NULL with *n = 0 when none. */
const srv_store_op *srv_store_failed(const srv_store *store, size_t *n);

/* Counters for /metrics (cumulative since open). */
typedef struct srv_store_stats {
  uint64_t commits, failed_commits, writes;
  uint64_t game_writes; /* Of the committed writes, games' starts, moves and results. */
  uint64_t commit_ns_total, commit_ns_max;
  /* SQLite bound to a loop (srv_store_ckpt.c): checkpoints of the thread, and of the loop (the
   * tail the thread left, between two batches); failures of both. */
  uint64_t checkpoints, checkpoint_ns_total, checkpoint_ns_max;
  uint64_t loop_checkpoints, loop_checkpoint_ns_total, loop_checkpoint_ns_max;
  uint64_t checkpoint_failures, loop_checkpoint_failures;
} srv_store_stats;

/* Copies the counters into *stats (caller-owned). */
void srv_store_get_stats(const srv_store *store, srv_store_stats *stats);

/* ---- Reads ---------------------------------------------------------------------------------- */

/* Reads what a restart needs (see srv_store_recovery) into a new *out (free with
 * srv_store_recovery_free()). Rows that cannot even be decoded (unknown game, bad board) make the
 * call fail with SRV_STORE_ECORRUPT; moves are returned as stored: check them with
 * srv_store_replay(). */
int srv_store_recover(srv_store *store, srv_store_recovery **out);

/* The same for the one room code (borrowed): what a cluster's node reads to take a room over
 * (no room: n_rooms 0). */
int srv_store_recover_room(srv_store *store, const char *code, srv_store_recovery **out);

/* The codes of the open rooms (not finished) where player (borrowed) holds a seat, at most max of
 * them, into codes; *n how many. A cluster's node reads them at a hello, to bring the player back
 * into its rooms wherever they run. Returns 0 or a negative SRV_STORE_E* code. */
int srv_store_player_rooms(srv_store *store, const char *player, char (*codes)[SRV_STORE_CODE_SIZE],
                           size_t max, size_t *n);

/* Frees recovery and everything in it. NULL is allowed. */
void srv_store_recovery_free(srv_store_recovery *recovery);

/* Reads the player whose session is that token hash (borrowed, 32 bytes) into *out
 * (caller-owned). Returns 0 or SRV_STORE_ENOTFOUND. For a token the server no longer has in
 * memory. */
int srv_store_player_by_token(srv_store *store, const uint8_t token_hash[32],
                              srv_store_player *out);

/* Reads the secret name (borrowed; "game_id": the key of the public game ids, srv_gameid.h) into
 * out, len bytes. Returns 0, SRV_STORE_ENOTFOUND (no such secret, or not len bytes) or another
 * negative code. */
int srv_store_secret(srv_store *store, const char *name, unsigned char *out, size_t len);

/* Reads game id with all its moves into a new *out (free with srv_store_game_free()). Returns 0
 * or SRV_STORE_ENOTFOUND. Unfinished games are returned too (ended_ms == 0): the caller decides
 * whether to show them. */
int srv_store_game_get(srv_store *store, int64_t id, srv_store_game **out);

/* Frees a game from srv_store_game_get() and its moves. NULL is allowed. */
void srv_store_game_free(srv_store_game *game);

/* Reads at most limit (1..100) finished games of player id (borrowed), newest first, into a new
 * *out (free with srv_store_game_list_free()); an unknown player gives an empty list. */
int srv_store_player_games(srv_store *store, const char *id, int limit, srv_store_game_list **out);

/* As srv_store_player_games(), from the games older than before_id on (0: the newest), with each
 * rated game's rating change for the player (rating_known). limit is 1..101 (one more than a page
 * of 100 tells whether another page follows). */
int srv_store_player_games_page(srv_store *store, const char *id, int64_t before_id, int limit,
                                srv_store_game_list **out);

/* The stored analysis of a finished game (schema 10; srv_analysis.h). */
typedef struct srv_store_analysis {
  int64_t game;
  int64_t analysed_ms; /* When it was made. */
  int64_t ply_ms;      /* The search budget each ply had. */
  bool accuracy_known[2];
  double accuracy[2]; /* South, North, percent (srv_marks.h). */
  char *plies;        /* The plies as a JSON array (docs/protocol.md): borrowed in a write,
                       * malloc'd in a read (srv_store_analysis_free()). */
} srv_store_analysis;

/* Records the analysis of game a->game (borrowed). A game analysed already keeps its first
 * analysis (not an error). */
int srv_store_analysis_put(srv_store *store, const srv_store_analysis *a);

/* Reads the analysis of game into *out (its plies malloc'd): 0, SRV_STORE_ENOTFOUND when the game
 * has none, or a negative code. */
int srv_store_analysis_get(srv_store *store, int64_t game, srv_store_analysis *out);

/* Frees what a read put in a (not a itself). NULL is allowed. */
void srv_store_analysis_free(srv_store_analysis *a);

/* Frees a list from srv_store_player_games(). NULL is allowed. */
void srv_store_game_list_free(srv_store_game_list *list);

/* One row of a leaderboard. */
typedef struct srv_store_board_row {
  char player[SRV_STORE_ID_SIZE];
  char name[SRV_STORE_NAME_SIZE];
  srv_store_rating rating;
} srv_store_board_row;

/* A page of a leaderboard: the players with at least one rated game of a kind, best rating first
 * (ties: more games first, then the name). */
typedef struct srv_store_board {
  long total; /* Rows in the whole leaderboard. */
  size_t n;
  srv_store_board_row *rows;
} srv_store_board;

/* Reads limit (1..100) rows of kind's leaderboard from row offset (0..) into a new *out (free with
 * srv_store_board_free()). */
int srv_store_leaderboard(srv_store *store, mc_kind kind, long offset, int limit,
                          srv_store_board **out);

void srv_store_board_free(srv_store_board *board);

/* Writes into *rank the place on kind's leaderboard of a rating: 1 + the players above it. */
int srv_store_rank(srv_store *store, mc_kind kind, double rating, long *rank);

/* The permanent id the next game gets (*next): past every game stored or ever stored (ids are never
 * reused). The server gives games their ids (srv_rooms_set_next_game_id()). */
int srv_store_games_next_id(srv_store *store, int64_t *next);

/* One point of a rating history: the rating and deviation after game game_id, ended at_ms. */
typedef struct srv_store_rating_point {
  int64_t game_id, at_ms;
  double rating, rd, diff;
} srv_store_rating_point;

/* The last limit (1..1000) points of player's rating history in kind, oldest first, into a new
 * *points (free() it) with their count in *n. */
int srv_store_rating_history(srv_store *store, const char *player, mc_kind kind, int limit,
                             srv_store_rating_point **points, size_t *n);

/* ---- Moving a site from SQLite to PostgreSQL ---------------------------------------------- */

/* Told after each table: how many rows from had, how many were new to the target (copied). */
typedef void (*srv_store_copy_report)(void *ud, const char *table, long rows, long copied);

/* Copies everything of the SQLite store from (games, moves, rooms, players, sessions, accounts,
 * ratings and their history, chat, the key of the public game ids: old ids keep working) into the
 * PostgreSQL store to, in one transaction: a row to already holds (by its key) is kept, so a
 * second run copies nothing. A target that holds games under another key is refused
 * (SRV_STORE_ECONFLICT: another site's database). report (NULL allowed) is told each table's
 * figures. Returns 0 or a negative code with to's error set. */
int srv_store_copy(srv_store *from, srv_store *to, srv_store_copy_report report, void *ud);

/* ---- Replay --------------------------------------------------------------------------------- */

/* Rebuilds game (borrowed) by playing its stored moves through the engine: a new *out (free with
 * mc_game_free()) and 0, or, for the first row whose ply is not its index, whose seat is not the
 * side to move, or whose house the engine refuses (illegal, out of range, after the end),
 * SRV_STORE_EBADROW with *bad filled (when not NULL) and *out NULL: a bad row is never trusted.
 * When apply_result is true and the game ended, the stored result is checked too: a result from
 * the board must match it, one from outside the board (resignation...) is applied with
 * mc_game_finish(); a mismatch is SRV_STORE_EBADROW with bad->index == n_moves and bad->ply -1.
 * Other errors: SRV_STORE_EINVAL, SRV_STORE_ENOMEM. */
int srv_store_replay(const srv_store_game *game, bool apply_result, mc_game **out,
                     srv_store_bad_row *bad);

/* Writes into left_ms (South, North) the clocks of game (borrowed) as they were after its last
 * stored move: each seat's clock_ms after its own last move, else initial_ms. Recovery restarts
 * the clock of the side to move from these, so the downtime is not charged. Returns 0, or
 * SRV_STORE_EINVAL without a clock. */
int srv_store_clocks(const srv_store_game *game, int64_t left_ms[2]);

#endif
