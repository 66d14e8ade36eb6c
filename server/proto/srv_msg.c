/* The protocol's names of the message enums (srv_msg.h). */
#include "srv_msg.h"

#include <string.h>

const char *const srv_visibility_names[] = {"public", "private", NULL};
const char *const srv_seat_choice_names[] = {"south", "north", "random", NULL};
const char *const srv_opponent_names[] = {"human", "computer", "local", NULL};
const char *const srv_role_names[] = {"player", "spectator", NULL};
const char *const srv_draw_action_names[] = {"offer", "accept", "decline", NULL};
const char *const srv_status_names[] = {"waiting", "playing", "finished", NULL};
const char *const srv_you_names[] = {"south", "north", "both", "spectator", NULL};
const char *const srv_rounds_names[] = {"single", "match", NULL};

const char *srv_name_of(const char *const *names, int value) {
  for (int i = 0; names[i] != NULL; i++) {
    if (i == value)
      return names[i];
  }
  return NULL;
}

int srv_name_index(const char *const *names, const char *s, size_t len) {
  for (int i = 0; names[i] != NULL; i++) {
    if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
      return i;
  }
  return -1;
}

bool srv_room_opts_hints(const srv_room_opts *opts) {
  return !opts->rated && (opts->opponent != SRV_OPP_HUMAN || opts->hints);
}
