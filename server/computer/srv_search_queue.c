/* The budget policy shared by the search queues (see srv_search_queue.h). */
#include "srv_search_queue.h"

long srv_search_budget(long ms, int waiting, int workers, long target_ms, long floor_ms,
                       long overhead_ms) {
  if (workers < 1)
    workers = 1;
  if (waiting <= 0)
    return ms; /* Nobody waits: the whole time (cut while it runs if a job comes). */
  long share = target_ms * workers / (waiting + workers) - (overhead_ms > 0 ? overhead_ms : 0);
  if (share < floor_ms)
    share = floor_ms;
  return share < ms ? share : ms;
}
