/* A small scanner for the server's JSON frames, for the load generator.
 *
 * The load generator needs a handful of top-level fields of each frame (type, room, status, ply,
 * turn, legal, code, seat). Building a jansson tree for a state frame of up to 12 KB per move
 * would make the tool as expensive as the server it measures, so this walks the top-level object
 * once: wanted keys are read in place, every other value (nested objects and arrays included) is
 * skipped without being decoded. Field order does not matter and unknown fields are ignored.
 * Nothing is allocated; strings are returned as spans into the caller's buffer.
 */
#ifndef LG_JSON_H
#define LG_JSON_H

#include <stdbool.h>
#include <stddef.h>

/* The most entries of `legal` kept (boards have at most 9 houses a side). */
#define LG_LEGAL_MAX 16

/* A string value: the bytes between the quotes, escapes left as they are (the fields read here
 * never contain any). s is NULL when the field is absent or not a string (null included). */
typedef struct lg_span {
  const char *s;
  size_t n;
} lg_span;

/* The fields of one frame the load generator uses. */
typedef struct lg_msg {
  lg_span type, room, status, turn, code, seat;
  long long ply;
  bool has_ply;
  int legal[LG_LEGAL_MAX];
  int nlegal;        /* Entries kept in legal (at most LG_LEGAL_MAX). */
  bool has_legal;    /* legal was present as an array of integers. */
  bool has_features; /* A `features` field was present (mancala-server's welcome has one). */
} lg_msg;

/* Scans the JSON object in buf (len bytes; borrowed, need not be NUL-terminated) into *m, whose
 * spans then point into buf. Returns 0, or -1 when buf is not one well-formed JSON object (*m is
 * then incomplete). A wanted field with an unexpected type is treated as absent. Never reads
 * outside buf. */
int lg_json_scan(const char *buf, size_t len, lg_msg *m);

/* Returns true when span s holds exactly the NUL-terminated string lit. */
bool lg_span_is(lg_span s, const char *lit);

#endif
