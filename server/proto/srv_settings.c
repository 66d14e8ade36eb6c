/* A room's options as stored with the room (see srv_settings.h). */
#include "srv_settings.h"

#include <jansson.h>
#include <string.h>

#include "mc_text.h"
#include "srv_error.h"
#include "srv_jsonw.h"

/* Written with the fixed-schema writer, not built as a jansson tree and dumped: a room is recorded
 * when it is made, when its seats change and when its game ends, and the tree cost about 30,000
 * instructions a time. The text is the same as json_dumps(JSON_COMPACT) of that tree would be. */
char *srv_settings_format(const srv_room_opts *o) {
  char rules[128];
  int n = mc_rules_format(&o->rules, rules, sizeof rules);
  const char *vis = srv_name_of(srv_visibility_names, (int)o->visibility),
             *seat = srv_name_of(srv_seat_choice_names, (int)o->seat),
             *opp = srv_name_of(srv_opponent_names, (int)o->opponent);
  if (n < 0 || (size_t)n >= sizeof rules || vis == NULL || seat == NULL || opp == NULL)
    return NULL;
  srv_jsonw w = SRV_JSONW_INIT;
  srv_jsonw_lit(&w, "{\"rules\":");
  srv_jsonw_strn(&w, rules, (size_t)n);
  srv_jsonw_lit(&w, ",\"visibility\":");
  srv_jsonw_name(&w, vis);
  srv_jsonw_lit(&w, ",\"seat\":");
  srv_jsonw_name(&w, seat);
  srv_jsonw_lit(&w, ",\"clocked\":");
  srv_jsonw_bool(&w, o->clocked);
  srv_jsonw_lit(&w, ",\"initial_ms\":");
  srv_jsonw_int(&w, o->initial_ms);
  srv_jsonw_lit(&w, ",\"increment_ms\":");
  srv_jsonw_int(&w, o->increment_ms);
  srv_jsonw_lit(&w, ",\"opponent\":");
  srv_jsonw_name(&w, opp);
  srv_jsonw_lit(&w, ",\"level\":");
  srv_jsonw_int(&w, o->level);
  srv_jsonw_lit(&w, ",\"rated\":");
  srv_jsonw_bool(&w, o->rated);
  if (o->hints)
    srv_jsonw_lit(&w, ",\"hints\":true"); /* Only when set: other rooms' text is as before. */
  srv_jsonw_lit(&w, "}");
  srv_jsonw_raw(&w, "", 1); /* The NUL: the caller gets a C string. */
  if (w.failed) {
    srv_jsonw_free(&w);
    return NULL;
  }
  return w.buf; /* The writer's buffer, now the caller's. */
}

int srv_settings_parse(const char *text, srv_room_opts *o) {
  json_error_t jerr;
  json_t *j = json_loads(text, 0, &jerr);
  const char *rules, *vis, *seat, *opp;
  int clocked = 0, level = 0, rated = 0, hints = 0;
  json_int_t initial = 0, increment = 0;
  int rc = SRV_EBADREQ;
  memset(o, 0, sizeof *o);
  if (j != NULL && json_unpack(j, "{s:s,s:s,s:s,s:b,s:I,s:I,s:s,s:i,s?b,s?b}", "rules", &rules,
                               "visibility", &vis, "seat", &seat, "clocked", &clocked, "initial_ms",
                               &initial, "increment_ms", &increment, "opponent", &opp, "level",
                               &level, "rated", &rated, "hints", &hints) == 0) {
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
      o->hints = hints != 0; /* Absent: no hints (written only when set). */
      rc = 0;
    }
  }
  json_decref(j);
  return rc;
}
