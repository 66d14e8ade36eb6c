/* The chat command: any member may say a line to everyone in the room.
 *
 * A room's spectators share one token bucket (SRV_CHAT_RATE lines a second, SRV_CHAT_BURST at
 * once): however many of them there are, they cannot make the room's chat more than its members
 * can read, and a spectator over it gets rate_limited. The seated players' lines never count
 * against it (spectators cannot silence the players); theirs are bounded by the connection's own
 * rate limit. */
#include "srv_error.h"
#include "srv_room_int.h"

#define SRV_CHAT_RATE 5
#define SRV_CHAT_BURST 15

/* Takes one line from the room's spectator bucket at now; false when it is empty. */
static bool spectator_line(srv_room *room, uint64_t now) {
  if (room->chat_ms == 0 || now < room->chat_ms) {
    room->chat_tokens = SRV_CHAT_BURST;
  } else {
    room->chat_tokens += (double)(now - room->chat_ms) * SRV_CHAT_RATE / 1000.0;
    if (room->chat_tokens > SRV_CHAT_BURST)
      room->chat_tokens = SRV_CHAT_BURST;
  }
  room->chat_ms = now;
  if (room->chat_tokens < 1.0)
    return false;
  room->chat_tokens -= 1.0;
  return true;
}

int srv_room_chat(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = srv_room__find_member(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  if (srv_room__you(room, c) == SRV_SEAT_SPECTATOR &&
      !spectator_line(room, rooms->time->now(rooms->time)))
    return SRV_ERATE;
  srv_room__send_chat(room, c, &cmd->id, cmd->text, rooms->time->wall(rooms->time));
  return 0;
}
