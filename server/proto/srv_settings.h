/* A room's options (srv_room_opts) as the JSON text durable storage keeps with the room
 * (rooms.settings), written when the room is recorded and read back by recovery:
 *
 *   {"rules":"oware 6x4 grand_slam=forbidden","visibility":"public","seat":"random",
 *    "clocked":true,"initial_ms":300000,"increment_ms":2000,"opponent":"human","level":1,
 *    "rated":false}
 *
 * "rated" came with schema 4; a room stored before reads as not rated. "hints":true (a casual
 * room that gives hints) is written only when set, so other rooms' text is unchanged and an older
 * server reads it (ignoring the key).
 * "rules" is the engine's text form of the rules (mc_rules_format()), the other names are the
 * protocol's (srv_msg.h).
 */
#ifndef SRV_SETTINGS_H
#define SRV_SETTINGS_H

#include "srv_msg.h"

/* Returns the settings of opts (borrowed) as a new malloc'd JSON text, or NULL when memory runs
 * out or opts holds a value that has no name. */
char *srv_settings_format(const srv_room_opts *opts);

/* Parses srv_settings_format() text (borrowed) into *opts. Returns 0 or SRV_EBADREQ. */
int srv_settings_parse(const char *text, srv_room_opts *opts);

#endif
