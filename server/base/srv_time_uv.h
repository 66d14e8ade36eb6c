/* The libuv time source of srv_time.h: monotonic time from uv_hrtime(), the wall clock, and timers
 * on uv_timer_t handles. Also the tag that marks the server's own libuv handles. */
#ifndef SRV_TIME_UV_H
#define SRV_TIME_UV_H

#include <uv.h>

#include "srv_time.h"

/* Initialises *t as the libuv time source of loop (borrowed; it must outlive every timer). Its
 * timers are uv_timer_t handles; freeing one closes it asynchronously. */
void srv_time_init_uv(srv_time *t, uv_loop_t *loop);

/* Returns how many timers of the libuv source are still allocated (freed ones finish closing on the
 * next loop iteration). */
int srv_time_uv_live(void);

/* Every uv handle the server itself owns has this as its data pointer, so that shutdown can tell
 * its own handles from those of libwebsockets. */
extern char srv_own_tag;
#define SRV_OWN_TAG ((void *)&srv_own_tag)

#endif
