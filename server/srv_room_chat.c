/* The chat command: any member may say a line to everyone in the room. */
#include "srv_room_int.h"

int srv_room_chat(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = srv_room__find_member(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  srv_room__send_chat(room, c, &cmd->id, cmd->text, rooms->time->wall(rooms->time));
  return 0;
}
