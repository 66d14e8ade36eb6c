/* A room's settings as storage keeps them (srv_settings.h): written by the fixed-schema writer,
 * they must read as the jansson tree they replaced would have been dumped (recovery and older
 * servers parse them), and read back into the same options. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "mc_rules.h"
#include "mc_text.h"
#include "srv_settings.h"
#include "task.h"

/* What srv_settings_format() wrote before issue 22: a jansson tree, dumped compact. */
static char *as_jansson(const srv_room_opts *o) {
  char rules[128];
  mc_rules_format(&o->rules, rules, sizeof rules);
  json_t *j = json_pack(
      "{s:s,s:s,s:s,s:b,s:I,s:I,s:s,s:i,s:b}", "rules", rules, "visibility",
      srv_name_of(srv_visibility_names, (int)o->visibility), "seat",
      srv_name_of(srv_seat_choice_names, (int)o->seat), "clocked", (int)o->clocked, "initial_ms",
      (json_int_t)o->initial_ms, "increment_ms", (json_int_t)o->increment_ms, "opponent",
      srv_name_of(srv_opponent_names, (int)o->opponent), "level", o->level, "rated", (int)o->rated);
  char *text = json_dumps(j, JSON_COMPACT);
  json_decref(j);
  return text;
}

TEST_IMPL(same_text_as_jansson_and_back) {
  for (int r = 0; r < 5; r++) {
    for (int v = 0; v < 8; v++) {
      srv_room_opts o;
      memset(&o, 0, sizeof o);
      ASSERT_EQ(mc_rules_init(&o.rules, r < 2 ? MC_KALAH : r < 4 ? MC_OWARE : MC_CONGKAK), 0);
      if (r == 1) { /* Kalah 4x3 with the empty capture. */
        o.rules.houses = 4;
        o.rules.seeds = 3;
        o.rules.empty_capture = true;
      } else if (r == 3) {
        o.rules.grand_slam = (mc_grand_slam)1;
      } else if (r == 4) {
        o.rules.lap_capture = true;
        o.rules.match = true;
      }
      ASSERT_EQ(mc_rules_check(&o.rules), 0);
      o.visibility = (srv_visibility)(v % 2);
      o.seat = (srv_seat_choice)(v % 3);
      o.opponent = (srv_opponent)((v + 1) % 3);
      o.clocked = v >= 4;
      o.initial_ms = o.clocked ? 300000 + v : 0;
      o.increment_ms = o.clocked ? 2000LL * v : 0;
      o.level = v;
      o.rated = v % 3 == 0;
      char *ours = srv_settings_format(&o), *theirs = as_jansson(&o);
      ASSERT(ours != NULL && theirs != NULL);
      ASSERT_STR_EQ(ours, theirs);
      srv_room_opts back;
      ASSERT_EQ(srv_settings_parse(ours, &back), 0);
      ASSERT_EQ(memcmp(&back.rules, &o.rules, sizeof o.rules), 0);
      ASSERT(back.visibility == o.visibility && back.seat == o.seat &&
             back.opponent == o.opponent && back.clocked == o.clocked &&
             back.initial_ms == o.initial_ms && back.increment_ms == o.increment_ms &&
             back.level == o.level && back.rated == o.rated);
      free(ours);
      free(theirs);
    }
  }
  return 0;
}
