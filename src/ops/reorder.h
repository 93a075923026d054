/* reorder.h: the reorder family's shared front end (ops/reorder.c, ops/reorder_pad.c): once an op has checked
 * its parameters and built its index map, wk_reorder_run makes the output and runs the reorder slot. */
#ifndef WK_OPS_REORDER_H
#define WK_OPS_REORDER_H

#include "ops/common.h"

/* A map of SAME on every dim (value 0). */
void wk_reorder_map_init(wk_reorder_map *m);
/* out (x's dtype, x's rank, `shape`) = x gathered through m (backend.h's reorder slot); maps that are the identity
 * become WK_REORDER_SAME first. m's parameters must already be checked (numerics.h's ranges). */
wk_status wk_reorder_run(const char *op, const wk_tensor *x, wk_reorder_map *m, const int64_t *shape,
                         wk_tensor **out);

#endif
