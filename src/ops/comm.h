/* comm.h: what ops/comm.c shares with the ops built on collectives (comm_tp.c): the communicator's layout, and
 * queueing a validated collective (this thread's group applied). */
#ifndef WK_OPS_COMM_H
#define WK_OPS_COMM_H

#include "ops/common.h"

struct wk_comm {
    const wk_comm_backend *be;
    wk_device *dev;
    int rank, size;
    void *impl;
};

/* Queues k (validated) on c, inside this thread's group when one is open. */
wk_status wk_comm_queue(wk_comm *c, const wk_coll *k);
/* The device's later work waits for the collectives queued with k.side (a no-op where there is no side stream). */
wk_status wk_comm_join_side(wk_comm *c);
/* Whether this thread has a group open (wk_comm_group_begin). */
bool wk_comm_in_group(void);
/* Whether c has a side stream to overlap communication with compute. */
static inline bool wk_comm_overlaps(const wk_comm *c) { return c->be->join != NULL; }

#endif
