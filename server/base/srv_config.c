/* The option table and its parser. */
#include "srv_config.h"

#include "srv_addr.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef MANCALA_WEB_DEFAULT
#define MANCALA_WEB_DEFAULT "web"
#endif
#ifndef MANCALA_WEB_INSTALLED
#define MANCALA_WEB_INSTALLED "/usr/local/share/mancala-online/web"
#endif
#ifndef MANCALA_BUILD_DIR
#define MANCALA_BUILD_DIR ""
#endif
#ifndef MANCALA_VERSION
#define MANCALA_VERSION "0.0.0"
#endif

typedef enum opt_type { OPT_INT, OPT_STR, OPT_LEVEL, OPT_HELP } opt_type;

typedef struct opt {
  const char *flag; /* Without the leading "--". */
  const char *env;
  opt_type type;
  size_t off;      /* Offset of the field in srv_config. */
  size_t size;     /* OPT_STR: size of the buffer. */
  long min, max;   /* OPT_INT: inclusive range. */
  long def_int;    /* OPT_INT default. */
  const char *def; /* OPT_STR / OPT_LEVEL default. */
  const char *help;
} opt;

#define INT_OPT(f, e, field, lo, hi, d, h)                                                         \
  { f, e, OPT_INT, offsetof(srv_config, field), 0, lo, hi, d, NULL, h }
#define STR_OPT(f, e, field, d, h)                                                                 \
  { f, e, OPT_STR, offsetof(srv_config, field), sizeof(((srv_config *)0)->field), 0, 0, 0, d, h }

static const opt options[] = {
    INT_OPT("port", "MANCALA_PORT", port, 0, 65535, 8080,
            "TCP port for HTTP and WebSocket; 0 picks a free port"),
    STR_OPT("bind", "MANCALA_BIND", bind, "0.0.0.0", "address to listen on"),
    STR_OPT("data", "MANCALA_DATA", data, "./data", "directory for durable storage"),
    STR_OPT(
        "store", "MANCALA_STORE", store, "",
        "PostgreSQL database for durable storage instead of --data (postgresql://USER@HOST/DB)"),
    STR_OPT("cluster", "MANCALA_CLUSTER", cluster, "",
            "Redis of a cluster (redis://HOST:PORT): this process is one of several nodes sharing "
            "it and --store's PostgreSQL, any node serving any room (docs/cluster.md)"),
    INT_OPT("cluster-lease-ms", "MANCALA_CLUSTER_LEASE_MS", cluster_lease_ms, 1500, 600000, 10000,
            "a node runs a room under a lease this long, renewed every third of it: after a "
            "node's crash its rooms are taken over within about this long"),
    STR_OPT("search-queue", "MANCALA_SEARCH_QUEUE", search_queue, "",
            "Redis (redis://HOST:PORT) whose mancala-worker processes run the computer's searches "
            "(docs/computer.md); in process when none is alive"),
    STR_OPT("sync", "MANCALA_SYNC", sync, "full",
            "full: an acknowledged move survives a power loss; normal: a process crash only"),
    INT_OPT("data-max-kib", "MANCALA_DATA_MAX_KIB", data_max_kib, 0, 2147483647, 0,
            "size quota of the database in KiB, 0 for none; past it moves are refused with "
            "storage_error as on a full disk"),
    STR_OPT("web", "MANCALA_WEB", web, NULL, "directory of the web client's files"),
    {"log-level", "MANCALA_LOG_LEVEL", OPT_LEVEL, offsetof(srv_config, log_level), 0, 0, 0, 0,
     "info", "error, warn, info or debug"},
    INT_OPT("abandon-ms", "MANCALA_ABANDON_MS", abandon_ms, 100, 86400000, 60000,
            "an absent player loses after this long on their own turn"),
    INT_OPT("move-deadline-ms", "MANCALA_MOVE_DEADLINE_MS", move_deadline_ms, 0, 86400000, 300000,
            "in an untimed game between people, the side to move loses by abandonment after this "
            "long without moving (0: never)"),
    INT_OPT("idle-room-ms", "MANCALA_IDLE_ROOM_MS", idle_room_ms, 100, 86400000, 600000,
            "a room nobody is in is closed after this long"),
    INT_OPT("finished-room-ms", "MANCALA_FINISHED_ROOM_MS", finished_room_ms, 100, 86400000, 600000,
            "a finished room is kept this long for a rematch"),
    INT_OPT("ping-s", "MANCALA_PING_S", ping_s, 1, 3600, 30,
            "idle seconds before a WebSocket ping"),
    INT_OPT("hangup-s", "MANCALA_HANGUP_S", hangup_s, 2, 7200, 75,
            "idle seconds before a silent connection is dropped (more than --ping-s)"),
    INT_OPT("max-connections", "MANCALA_MAX_CONNECTIONS", max_connections, 1, 1000000, 10000,
            "WebSocket connections in total"),
    INT_OPT("max-per-ip", "MANCALA_MAX_PER_IP", max_per_ip, 1, 1000000, 64,
            "WebSocket connections per client address"),
    INT_OPT("hello-s", "MANCALA_HELLO_S", hello_s, 1, 3600, 10,
            "seconds a new connection has to say hello before it is closed"),
    INT_OPT("rooms-per-player", "MANCALA_ROOMS_PER_PLAYER", rooms_per_player, 1, 10000, 10,
            "unfinished rooms one player may be seated in"),
    INT_OPT("rooms-per-ip", "MANCALA_ROOMS_PER_IP", rooms_per_ip, 1, 10000000, 64,
            "rooms waiting or playing created from one client address"),
    INT_OPT("public-rooms-per-ip", "MANCALA_PUBLIC_ROOMS_PER_IP", public_rooms_per_ip, 1, 10000000,
            32, "of those, public rooms (all one address can list in the lobby)"),
    INT_OPT("watchers-per-ip", "MANCALA_WATCHERS_PER_IP", watchers_per_ip, 1, 1000000, 32,
            "connections of one client address that watch the lobby"),
    INT_OPT("lobby-rooms", "MANCALA_LOBBY_ROOMS", lobby_rooms, 1, 100000, 50,
            "rooms of each game a lobby list shows (the newest; the others are counted)"),
    INT_OPT("players-per-ip", "MANCALA_PLAYERS_PER_IP", players_per_ip, 1, 1000000, 60,
            "new players (hello without a known token) one client address may make a minute, "
            "as many at once"),
    INT_OPT("waiting-room-ms", "MANCALA_WAITING_ROOM_MS", waiting_room_ms, 100, 86400000, 60000,
            "a waiting room nobody is in is closed after this long"),
    INT_OPT("max-rooms", "MANCALA_MAX_ROOMS", max_rooms, 1, 10000000, 100000,
            "rooms in memory at once"),
    INT_OPT("computer-ms", "MANCALA_COMPUTER_MS", computer_ms, 10, 60000, 1000,
            "the computer's thinking time a move at level 6 (and every level's cap)"),
    INT_OPT("computer-threads", "MANCALA_COMPUTER_THREADS", computer_threads, 0, 64, 0,
            "the computer's searches at once (0: one less than the CPUs, at least 1)"),
    INT_OPT("computer-max-games", "MANCALA_COMPUTER_MAX_GAMES", computer_max_games, 0, 1000000,
            1000, "unfinished games against the computer at once (0: no computer)"),
    INT_OPT("computer-games-per-player", "MANCALA_COMPUTER_GAMES_PER_PLAYER",
            computer_games_per_player, 1, 1000000, 3,
            "unfinished games against the computer one person may play at once"),
    INT_OPT("computer-games-per-ip", "MANCALA_COMPUTER_GAMES_PER_IP", computer_games_per_ip, 1,
            1000000, 12, "unfinished games against the computer created from one client address"),
    INT_OPT("computer-reply-ms", "MANCALA_COMPUTER_REPLY_MS", computer_reply_ms, 50, 600000, 2000,
            "the reply time levels 5-6 aim at under load: their time a move is cut when many "
            "games wait, so that each waits about this long at most"),
    STR_OPT("egtb-build", "MANCALA_EGTB_BUILD", egtb_build, "on",
            "on: endgame tables missing from --data are built once in the background, on one "
            "thread at idle priority, and used when done; off: only those already there are used"),
    INT_OPT("egtb-seeds", "MANCALA_EGTB_SEEDS", egtb_seeds, 0, 16, 0,
            "for tests: the board seeds every endgame table covers (0: each table's default; "
            "smaller tables build in moments and help the computer less)"),
    INT_OPT("hints-per-minute", "MANCALA_HINTS_PER_MINUTE", hints_per_minute, 0, 600, 4,
            "hints one player may ask for in a room a minute, and at once (0: no hints)"),
    INT_OPT("hint-ms", "MANCALA_HINT_MS", hint_ms, 1, 60000, 250,
            "the most a hint's search may take (the fast lane cuts it under load)"),
    INT_OPT("analysis-ms", "MANCALA_ANALYSIS_MS", analysis_ms, 1, 60000, 150,
            "the search time of each ply of a game's analysis (GET /api/games/ID/analysis)"),
    INT_OPT("analyses-per-hour", "MANCALA_ANALYSES_PER_HOUR", analyses_per_hour, 0, 100000, 10,
            "analyses one client address may start an hour, and at once (0: no analysis)"),
    INT_OPT("analysis-queue", "MANCALA_ANALYSIS_QUEUE", analysis_queue, 1, 100000, 16,
            "games being analysed or waiting for it at once, server-wide (past it: 503)"),
    INT_OPT("rate", "MANCALA_RATE", rate, 1, 1000000, 10,
            "messages per second per connection, on average"),
    INT_OPT("burst", "MANCALA_BURST", burst, 1, 1000000, 30, "messages per connection at once"),
    INT_OPT("send-queue", "MANCALA_SEND_QUEUE", send_queue, 4, 1000000, 256,
            "outgoing messages a connection leaves unread, a turn after they went out, before it "
            "is dropped"),
    INT_OPT("send-queue-kib", "MANCALA_SEND_QUEUE_KIB", send_queue_kib, 16, 1048576, 4096,
            "outgoing KiB queued per connection before it is dropped"),
    /* None by default: a TCP forwarder on the same machine (stunnel, ssh -L, socat) passes the
     * client's header through, so trusting 127.0.0.1 would let every client name any address. */
    STR_OPT("trust-proxy", "MANCALA_TRUST_PROXY", trust_proxy, "none",
            "reverse proxies whose X-Forwarded-For names the client: addresses and CIDR blocks, "
            "comma-separated, or none (name yours, as nginx's set_real_ip_from)"),
    INT_OPT("login-attempts", "MANCALA_LOGIN_ATTEMPTS", login_attempts, 1, 1000000, 5,
            "logins of one account name per --login-window-s from devices without a session of "
            "it, then each waits (1 s, doubling up to 60 s)"),
    INT_OPT("login-attempts-ip", "MANCALA_LOGIN_ATTEMPTS_IP", login_attempts_ip, 1, 1000000, 30,
            "logins and sign-ups from one address (IPv6: its /48) per --login-window-s, then "
            "each waits (1 s, doubling up to 60 s)"),
    INT_OPT("login-window-s", "MANCALA_LOGIN_WINDOW_S", login_window_s, 1, 86400, 600,
            "the window of the login and name lookup limits, in seconds"),
    INT_OPT("name-lookups-ip", "MANCALA_NAME_LOOKUPS_IP", name_lookups_ip, 1, 1000000, 60,
            "lookups of account names (register, a guest's name in hello, /api/players/NAME) "
            "from one address (IPv6: its /48) per --login-window-s, then each waits (1 s, "
            "doubling up to 60 s)"),
    INT_OPT("sessions-per-account", "MANCALA_SESSIONS_PER_ACCOUNT", sessions_per_account, 1, 1000,
            20,
            "sessions (logged-in devices) one account keeps; a login past them ends the least "
            "recently used"),
    INT_OPT("session-idle-days", "MANCALA_SESSION_IDLE_DAYS", session_idle_days, 0, 36500, 60,
            "an account's session unused this many days ends (0: never)"),
    {"help", NULL, OPT_HELP, 0, 0, 0, 0, 0, NULL, "print this help and exit"},
};

#define N_OPTIONS (sizeof options / sizeof options[0])

static int set_value(srv_config *cfg, const opt *o, const char *value, const char *origin,
                     FILE *err) {
  char *base = (char *)cfg + o->off;
  switch (o->type) {
  case OPT_INT: {
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || v < o->min || v > o->max) {
      fprintf(err, "mancala-server: %s: \"%s\" is not an integer in %ld..%ld\n", origin, value,
              o->min, o->max);
      return -1;
    }
    *(int *)base = (int)v;
    return 0;
  }
  case OPT_STR:
    /* An option that is off by default (--store: "") may be set empty (compose passes
     * MANCALA_STORE="" when the site stores in SQLite); the others need a value. */
    if ((value[0] == '\0' && (o->def == NULL || o->def[0] != '\0')) || strlen(value) >= o->size) {
      fprintf(err, "mancala-server: %s: the value must have %d..%zu characters\n", origin,
              o->def != NULL && o->def[0] == '\0' ? 0 : 1, o->size - 1);
      return -1;
    }
    memcpy(base, value, strlen(value) + 1);
    return 0;
  case OPT_LEVEL:
    if (srv_log_level_parse(value, (srv_log_level *)base) != 0) {
      fprintf(err, "mancala-server: %s: \"%s\" is not one of error, warn, info, debug\n", origin,
              value);
      return -1;
    }
    return 0;
  case OPT_HELP:
    break;
  }
  return -1;
}

/* The tree's web/ when this binary runs from the build tree it was built in, else the installed
 * directory. */
static const char *web_default(void) {
  static char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  size_t blen = strlen(MANCALA_BUILD_DIR);
  if (n > 0 && blen > 0) {
    exe[n] = '\0';
    if (strncmp(exe, MANCALA_BUILD_DIR, blen) == 0 && exe[blen] == '/')
      return MANCALA_WEB_DEFAULT;
  }
  return MANCALA_WEB_INSTALLED;
}

void srv_config_defaults(srv_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  for (size_t i = 0; i < N_OPTIONS; i++) {
    const opt *o = &options[i];
    char *base = (char *)cfg + o->off;
    if (o->type == OPT_INT)
      *(int *)base = (int)o->def_int;
    else if (o->type == OPT_STR)
      snprintf(base, o->size, "%s", o->def ? o->def : web_default());
    else if (o->type == OPT_LEVEL)
      (void)srv_log_level_parse(o->def, (srv_log_level *)base);
  }
}

static int check_relations(const srv_config *cfg, FILE *err) {
  srv_addr_list proxies;
  if (srv_addr_list_parse(cfg->trust_proxy, &proxies) != 0) {
    fprintf(err,
            "mancala-server: --trust-proxy: \"%s\" is not a list of addresses or CIDR blocks\n",
            cfg->trust_proxy);
    return -1;
  }
  if (strcmp(cfg->sync, "full") != 0 && strcmp(cfg->sync, "normal") != 0) {
    fprintf(err, "mancala-server: --sync: \"%s\" is not full or normal\n", cfg->sync);
    return -1;
  }
  if (strcmp(cfg->egtb_build, "on") != 0 && strcmp(cfg->egtb_build, "off") != 0) {
    fprintf(err, "mancala-server: --egtb-build: \"%s\" is not on or off\n", cfg->egtb_build);
    return -1;
  }
  if (cfg->hangup_s <= cfg->ping_s) {
    fprintf(err, "mancala-server: --hangup-s (%d) must be more than --ping-s (%d)\n", cfg->hangup_s,
            cfg->ping_s);
    return -1;
  }
  return 0;
}

int srv_config_load(srv_config *cfg, int argc, char **argv, FILE *err) {
  for (size_t i = 0; i < N_OPTIONS; i++) {
    const char *v = options[i].env ? getenv(options[i].env) : NULL;
    if (v != NULL && set_value(cfg, &options[i], v, options[i].env, err) != 0)
      return -1;
  }
  int help = 0;
  for (int a = 1; a < argc; a++) {
    const char *arg = argv[a];
    if (strncmp(arg, "--", 2) != 0) {
      fprintf(err, "mancala-server: unexpected argument \"%s\" (see --help)\n", arg);
      return -1;
    }
    const char *name = arg + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const opt *o = NULL;
    for (size_t i = 0; i < N_OPTIONS; i++) {
      if (strlen(options[i].flag) == len && strncmp(options[i].flag, name, len) == 0)
        o = &options[i];
    }
    if (o == NULL) {
      fprintf(err, "mancala-server: unknown option \"%s\" (see --help)\n", arg);
      return -1;
    }
    if (o->type == OPT_HELP) {
      help = 1;
      continue;
    }
    const char *value = eq ? eq + 1 : NULL;
    if (value == NULL) {
      if (a + 1 >= argc) {
        fprintf(err, "mancala-server: --%s needs a value\n", o->flag);
        return -1;
      }
      value = argv[++a];
    }
    char origin[64];
    snprintf(origin, sizeof origin, "--%s", o->flag);
    if (set_value(cfg, o, value, origin, err) != 0)
      return -1;
  }
  if (help)
    return 1;
  return check_relations(cfg, err);
}

void srv_config_help(FILE *out, const char *prog) {
  fprintf(out, "Usage: %s [OPTION]...\n", prog);
  fprintf(
      out,
      "Mancala Online game server %s: protocol v1 over WebSockets, the web client over HTTP.\n\n",
      MANCALA_VERSION);
  fprintf(out, "Every option can also be set with its environment variable; a flag wins.\n\n");
  for (size_t i = 0; i < N_OPTIONS; i++) {
    const opt *o = &options[i];
    char left[64];
    if (o->type == OPT_HELP)
      snprintf(left, sizeof left, "--%s", o->flag);
    else
      snprintf(left, sizeof left, "--%s %s", o->flag, o->type == OPT_INT ? "N" : "VALUE");
    fprintf(out, "  %-26s %s", left, o->help);
    if (o->type == OPT_INT)
      fprintf(out, " (%ld..%ld, default %ld)", o->min, o->max, o->def_int);
    else if (o->type != OPT_HELP)
      fprintf(out, " (default %s)", o->def ? o->def : web_default());
    if (o->env)
      fprintf(out, " [%s]", o->env);
    fputc('\n', out);
  }
  fprintf(out, "\nExit status: 0 after a clean shutdown (SIGINT or SIGTERM), 1 when the server "
               "cannot start, 2 for a bad option.\n");
}

void srv_config_log(const srv_config *cfg) {
  char line[1600];
  size_t n = 0;
  for (size_t i = 0; i < N_OPTIONS && n < sizeof line; i++) {
    const opt *o = &options[i];
    const char *base = (const char *)cfg + o->off;
    if (o->type == OPT_INT)
      n += (size_t)snprintf(line + n, sizeof line - n, "%s%s=%d", n ? " " : "", o->flag,
                            *(const int *)base);
    else if (o->type == OPT_STR && strcmp(o->flag, "web") != 0 && strcmp(o->flag, "data") != 0 &&
             strcmp(o->flag, "store") != 0) /* A URL may hold a password: the store logs its own. */
      n += (size_t)snprintf(line + n, sizeof line - n, "%s%s=%s", n ? " " : "", o->flag, base);
  }
  srv_log_info("config", "%s", line);
  srv_log_info("config", "web=%s data=%s", cfg->web, cfg->data);
}
