/* Server error codes: every fallible server function returns 0 (or a count) or a negative SRV_E*
 * value, libuv style. This file is the one place where a code gets its protocol name and its
 * English sentence; the protocol's `error` frame carries both.
 */
#ifndef SRV_ERROR_H
#define SRV_ERROR_H

#define SRV_ERRORS(X)                                                                              \
  X(BADJSON, "bad_json", "The frame is not a JSON object.")                                        \
  X(BADREQ, "bad_request", "A field is missing, mistyped or out of range.")                        \
  X(UNKTYPE, "unknown_type", "Unknown message type.")                                              \
  X(TOOLARGE, "too_large", "The frame is larger than 4 KiB.")                                      \
  X(RATE, "rate_limited", "Too many messages: slow down.")                                         \
  X(HELLO, "hello_required", "Send hello first.")                                                  \
  X(AGAIN, "already_identified", "hello was already sent on this connection.")                     \
  X(NOTFOUND, "not_found", "No room with that code.")                                              \
  X(FULL, "room_full", "Both seats of the room are taken.")                                        \
  X(NOTMEMBER, "not_in_room", "You have not joined this room.")                                    \
  X(NOTPLAYER, "not_a_player", "Spectators cannot do that.")                                       \
  X(NOTPLAYING, "not_playing", "The game has not started.")                                        \
  X(TURN, "not_your_turn", "It is not your turn.")                                                 \
  X(ILLEGAL, "illegal_move", "That move is not legal.")                                            \
  X(OVER, "game_over", "The game is over.")                                                        \
  X(STALE, "stale", "The move was made for an earlier position.")                                  \
  X(NOOFFER, "no_draw_offer", "Your opponent has not offered a draw.")                             \
  X(NOTAKEBACK, "no_takeback_offer", "Your opponent has not asked to take back a move.")           \
  X(NOTHINGBACK, "nothing_to_take_back", "There is no move of yours to take back.")                \
  X(NOTOVER, "not_finished", "The game is still going on.")                                        \
  X(UNSUPPORTED, "unsupported", "This server does not support that yet.")                          \
  X(ROOMS, "too_many_rooms", "Too many unfinished rooms for you or your address.")                 \
  X(COMPUTERGAMES, "too_many_computer_games",                                                      \
    "Too many unfinished games against the computer for you or your address: finish or resign "    \
    "one first.")                                                                                  \
  X(CONNS, "too_many_connections", "Too many connections: try again later.")                       \
  X(WATCHERS, "too_many_watchers", "Too many lobby watchers from your address.")                   \
  X(SERVERFULL, "server_full", "The server cannot take more rooms right now.")                     \
  X(ACCOUNTREQ, "account_required", "Rated games are between two players with accounts.")          \
  X(NAMEINVALID, "name_invalid", "That name is not allowed.")                                      \
  X(NAMERESERVED, "name_reserved", "That name is reserved.")                                       \
  X(NAMETAKEN, "name_taken", "Another player has that name.")                                      \
  X(PASSWORD, "weak_password", "A password has 8 to 128 characters.")                              \
  X(REGISTERED, "already_registered", "You already have an account.")                              \
  X(NOACCOUNT, "not_registered", "You are playing as a guest.")                                    \
  X(CREDENTIALS, "bad_credentials", "Wrong name or password.")                                     \
  X(ATTEMPTS, "too_many_attempts", "Too many attempts: wait before trying again.")                 \
  X(BUSY, "busy", "The server is busy with an earlier request: try again.")                        \
  X(HINTSOFF, "hints_not_allowed", "This room does not allow hints.")                              \
  X(HINTSRATED, "hints_rated", "There are no hints in rated games.")                               \
  X(HINTS, "too_many_hints", "You have used your hints for now: wait before asking again.")        \
  X(NOSESSION, "unknown_session", "No session of your account has that id.")                       \
  X(NOMEM, "out_of_memory", "The server ran out of memory.")                                       \
  X(STORAGE, "storage_error", "The server could not store that; nothing changed. Try again.")      \
  X(UNAVAILABLE, "unavailable",                                                                    \
    "The server running that room cannot be reached right now; nothing changed. Try again.")       \
  X(INTERNAL, "internal", "Internal server error.")

enum {
  SRV_E_BASE_ = -100, /* Far from errno values and from the engine's MC_E* codes. */
#define SRV_ERROR_ENUM(sym, code, text) SRV_E##sym,
  SRV_ERRORS(SRV_ERROR_ENUM)
#undef SRV_ERROR_ENUM
      SRV_E_END_
};

/* Number of distinct error values (for per-code metrics). */
#define SRV_ERROR_COUNT (SRV_E_END_ - SRV_E_BASE_ - 1)

/* Returns the protocol code of err ("not_found"...), or "internal" for anything unknown (engine
 * codes included). Never NULL; static storage. */
const char *srv_err_code(int err);

/* Returns the English sentence of err (static storage, never NULL). */
const char *srv_err_message(int err);

/* Returns the index of err in 0..SRV_ERROR_COUNT-1 (unknown codes map to SRV_EINTERNAL's). */
int srv_err_index(int err);

/* Maps an engine MC_E* code to a server code: MC_EILLEGAL -> SRV_EILLEGAL, MC_EOVER -> SRV_EOVER,
 * MC_ENOMEM -> SRV_ENOMEM, anything else -> SRV_EINTERNAL (the server checks its input first). */
int srv_err_from_engine(int mc_err);

#endif
