/* A room's options as stored with the room (see srv_settings.h). */
#include "srv_settings.h"

#include <jansson.h>
#include <string.h>

#include "mc_text.h"
#include "srv_error.h"

char *srv_settings_format(const srv_room_opts *o) {
  char rules[128];
  int n = mc_rules_format(&o->rules, rules, sizeof rules);
  const char *vis = srv_name_of(srv_visibility_names, (int)o->visibility),
             *seat = srv_name_of(srv_seat_choice_names, (int)o->seat),
             *opp = srv_name_of(srv_opponent_names, (int)o->opponent);
  if (n < 0 || (size_t)n >= sizeof rules || vis == NULL || seat == NULL || opp == NULL)
    return NULL;
  json_t *j = json_pack("{s:s,s:s,s:s,s:b,s:I,s:I,s:s,s:i,s:b}", "rules", rules, "visibility", vis,
                        "seat", seat, "clocked", (int)o->clocked, "initial_ms",
                        (json_int_t)o->initial_ms, "increment_ms", (json_int_t)o->increment_ms,
                        "opponent", opp, "level", o->level, "rated", (int)o->rated);
  char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
  json_decref(j);
  return text;
}

int srv_settings_parse(const char *text, srv_room_opts *o) {
  json_error_t jerr;
  json_t *j = json_loads(text, 0, &jerr);
  const char *rules, *vis, *seat, *opp;
  int clocked = 0, level = 0, rated = 0;
  json_int_t initial = 0, increment = 0;
  int rc = SRV_EBADREQ;
  memset(o, 0, sizeof *o);
  if (j != NULL &&
      json_unpack(j, "{s:s,s:s,s:s,s:b,s:I,s:I,s:s,s:i,s?b}", "rules", &rules, "visibility", &vis,
                  "seat", &seat, "clocked", &clocked, "initial_ms", &initial, "increment_ms",
                  &increment, "opponent", &opp, "level", &level, "rated", &rated) == 0) {
    mc_text_error terr;
    int v = srv_name_index(srv_visibility_names, vis, strlen(vis)),
        s = srv_name_index(srv_seat_choice_names, seat, strlen(seat)),
        op = srv_name_index(srv_opponent_names, opp, strlen(opp));
    if (mc_rules_parse(rules, &o->rules, &terr) == 0 && v >= 0 && s >= 0 && op >= 0 &&
        initial >= 0 && increment >= 0) {
      o->visibility = (srv_visibility)v;
      o->seat = (srv_seat_choice)s;
      o->opponent = (srv_opponent)op;
      o->clocked = clocked != 0;
      o->initial_ms = initial;
      o->increment_ms = increment;
      o->level = level;
      o->rated = rated != 0; /* Absent before schema 4: not rated. */
      rc = 0;
    }
  }
  json_decref(j);
  return rc;
}
