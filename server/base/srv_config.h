/* Configuration: one table declares every option once (flag, environment variable, default, range,
 * help); the command line, the environment and --help are all derived from it. Precedence: flag,
 * then MANCALA_* variable, then default.
 */
#ifndef SRV_CONFIG_H
#define SRV_CONFIG_H

#include <stdio.h>

#include "srv_log.h"

typedef struct srv_config {
  int port;                /* TCP port; 0 picks a free one. */
  char bind[64];           /* Address to listen on. */
  char data[1024];         /* Directory for durable storage (srv_store.h). */
  char store[1024];        /* A PostgreSQL URL instead of data; "": SQLite in data. */
  char cluster[256];       /* A Redis URL: a node of a cluster (needs store); "": one process. */
  int cluster_lease_ms;    /* A room's lease and a node's presence in the cluster. */
  char search_queue[256];  /* A Redis URL: the computer's searches on mancala-worker processes
                            * (docs/computer.md); "": in process only. */
  char sync[16];           /* full or normal: SQLite's synchronous setting. */
  int data_max_kib;        /* Size quota of the database in KiB; 0: none. */
  char web[1024];          /* Directory of the web client's static files. */
  srv_log_level log_level; /* Log threshold. */
  int abandon_ms;          /* Abandonment countdown of an absent player on their turn. */
  int move_deadline_ms;    /* An untimed game's time a move before abandonment (0: none). */
  int idle_room_ms;        /* A room nobody is in is closed after this long. */
  int finished_room_ms;    /* A finished room is kept this long for a rematch. */
  int ping_s;              /* Idle seconds before a WebSocket ping. */
  int hangup_s;            /* Idle seconds before a silent connection is dropped. */
  int max_connections;     /* WebSocket connections in total. */
  int max_per_ip;          /* WebSocket connections per client address. */
  int hello_s;             /* Seconds a connection has to say hello. */
  int rooms_per_player;    /* Unfinished rooms a player may hold a seat in. */
  int rooms_per_ip;        /* Unfinished rooms created from one client address. */
  int public_rooms_per_ip; /* Public unfinished rooms created from one client address. */
  int watchers_per_ip;     /* Lobby watchers of one client address. */
  int lobby_rooms;         /* Rooms of each game a lobby list shows (the newest). */
  int players_per_ip;      /* New identities a minute (and at once) from one client address. */
  int waiting_room_ms;     /* A waiting room nobody is in is closed after this long. */
  int max_rooms;           /* Rooms in memory at once. */
  int computer_ms;         /* The computer's time a move at level 6, every level's cap. */
  int computer_threads;    /* The computer's searches at once; 0: CPUs - 1, at least 1. */
  int computer_max_games;  /* Unfinished games against the computer; 0: no computer. */
  int computer_games_per_player; /* Of those, one person's. */
  int computer_games_per_ip;     /* Of those, created from one client address. */
  int computer_reply_ms;         /* The reply time levels 5-6 aim at under load. */
  char egtb_build[4];            /* "on": missing endgame tables are built in the background. */
  int egtb_seeds;                /* Board seeds of every endgame table; 0: the defaults (tests). */
  int hints_per_minute;          /* Hints a seat of a room may ask for a minute; 0: none. */
  int hint_ms;                   /* The most a hint's search may take. */
  int analysis_ms;               /* The search time of each ply of an analysis. */
  int analyses_per_hour;         /* Analyses one address may start an hour; 0: none. */
  int analysis_queue;            /* Games analysed or waiting at once, server-wide. */
  int rate;                      /* Messages per second a connection may send on average. */
  int burst;                     /* Messages a connection may send at once. */
  int send_queue;                /* Outgoing messages queued per connection before it is dropped. */
  int send_queue_kib;       /* Outgoing bytes (KiB) queued per connection before it is dropped. */
  char trust_proxy[512];    /* Proxies whose X-Forwarded-For names the client (srv_addr.h). */
  int login_attempts;       /* Failed logins of one name per window (srv_account.h). */
  int login_attempts_ip;    /* Password checks and sign-ups from one address per window. */
  int login_window_s;       /* The window of both, and of the name lookups. */
  int name_lookups_ip;      /* Lookups of account names from one address per window. */
  int sessions_per_account; /* Sessions one account keeps (the least recently used ends). */
  int session_idle_days;    /* An account's session unused this long ends (0: never). */
} srv_config;

/* Fills *cfg with the defaults. */
void srv_config_defaults(srv_config *cfg);

/* Applies the MANCALA_* environment variables, then the flags of argv, to *cfg. Returns 0, 1 when
 * --help was given (the caller prints the help and exits 0), or -1 after writing a message to err
 * (the caller exits 2). argv is borrowed. */
int srv_config_load(srv_config *cfg, int argc, char **argv, FILE *err);

/* Writes --help, generated from the option table, to out. */
void srv_config_help(FILE *out, const char *prog);

/* Logs the effective configuration, one line. */
void srv_config_log(const srv_config *cfg);

#endif
