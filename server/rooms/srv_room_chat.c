/* Chat: any member may say a line to everyone in the room. The room keeps its last lines (sent
 * to whoever enters or resumes, and recorded with the game by durable storage), marks each with
 * the speaker's seat (a spectator's line says so), and bounds how much is said: on top of each
 * connection's own rate limit, each seat and all the spectators together have a token bucket of
 * their own (the room limits' chat_rate and chat_burst), so that many connections cannot drown a
 * room's players in lines, nor a player's many connections the room. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"
#include "srv_log.h"
#include "srv_room_int.h"

/* The bucket a seat speaks from: South, North (a local room's one player: South's), spectators. */
static int voice_of(int you) {
  return you == MC_NORTH ? 1 : you == SRV_SEAT_SPECTATOR ? 2 : 0;
}

/* Takes one line from the voice's bucket; false when it is empty (the room's bound is reached). */
static bool chat_allow(srv_room *room, int voice) {
  const srv_room_limits *l = &room->rooms->limits;
  if (l->chat_rate <= 0)
    return true;
  uint64_t now = room->rooms->time->now(room->rooms->time);
  double t =
      room->chat_tokens[voice] + (double)(now - room->chat_refill[voice]) * l->chat_rate / 1000.0;
  room->chat_refill[voice] = now;
  if (t > l->chat_burst)
    t = l->chat_burst;
  if (t < 1.0) {
    room->chat_tokens[voice] = t;
    return false;
  }
  room->chat_tokens[voice] = t - 1.0;
  return true;
}

static void forget_oldest(srv_room *room) {
  srv_chat_line *old = room->chat[room->chat_first];
  room->chat_bytes -= strlen(old->text);
  free(old);
  room->chat[room->chat_first] = NULL;
  room->chat_first = (room->chat_first + 1) % SRV_CHAT_HISTORY;
  room->chat_n--;
}

int srv_room__chat_keep(srv_room *room, const srv_chat_line *line) {
  size_t len = strlen(line->text);
  if (len > SRV_CHAT_HISTORY_BYTES)
    return SRV_EBADREQ;
  srv_chat_line *copy = malloc(sizeof *copy + len + 1);
  if (copy == NULL)
    return SRV_ENOMEM;
  *copy = *line;
  char *text = (char *)(copy + 1);
  memcpy(text, line->text, len + 1);
  copy->text = text;
  while (room->chat_n == SRV_CHAT_HISTORY ||
         (room->chat_n > 0 && room->chat_bytes + len > SRV_CHAT_HISTORY_BYTES))
    forget_oldest(room);
  room->chat[(room->chat_first + room->chat_n) % SRV_CHAT_HISTORY] = copy;
  room->chat_n++;
  room->chat_bytes += len;
  return 0;
}

void srv_rooms_chat_anonymise(srv_rooms *rooms, const char *player, const char *name) {
  srv_list_foreach (it, &rooms->order) {
    srv_room *room = srv_list_entry(it, srv_room, order);
    for (int i = 0; i < room->chat_n; i++) {
      srv_chat_line *line = room->chat[(room->chat_first + i) % SRV_CHAT_HISTORY];
      if (strcmp(line->player, player) != 0)
        continue;
      line->player[0] = '\0';
      line->account = false;
      snprintf(line->name, sizeof line->name, "%s", name);
    }
  }
}

void srv_room__chat_free(srv_room *room) {
  while (room->chat_n > 0)
    forget_oldest(room);
}

int srv_room_chat(srv_rooms *rooms, srv_client *c, const srv_cmd *cmd) {
  srv_room *room;
  int rc = srv_room__find_member(rooms, c, cmd->room, &room);
  if (rc != 0)
    return rc;
  int you = srv_room__you(room, c);
  if (!chat_allow(room, voice_of(you)))
    return SRV_ERATE;
  srv_chat_line line;
  memset(&line, 0, sizeof line);
  line.at = rooms->time->wall(rooms->time);
  line.seat = you;
  memcpy(line.player, c->player->id, sizeof line.player);
  memcpy(line.name, c->player->name, sizeof line.name);
  line.account = c->player->account && !c->player->deleted;
  line.text = cmd->text;
  srv_room__record_chat(room, &line);
  if (srv_room__chat_keep(room, &line) != 0)
    srv_log_warn("room", "%s: out of memory: a chat line is not kept", room->code);
  srv_room__send_chat(room, c, &cmd->id, &line);
  return 0;
}
