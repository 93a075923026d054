/* reorder.h: what the 'reorder' case family's files share (reorder.c: flip, roll, repeat, repeat_interleave,
 * one_hot; reorder_pad.c: pad): row-major index helpers, the exact result check, and pad's sub-family. */
#ifndef WKT_REORDER_H
#define WKT_REORDER_H

#include "harness.h"

/* Row-major index <-> coordinates of a shape. */
static inline void rt_unravel(int rank, const int64_t *shape, int64_t i, int64_t *c)
{
    for (int d = rank - 1; d >= 0; d--) {
        c[d] = shape[d] ? i % shape[d] : 0;
        i = shape[d] ? i / shape[d] : 0;
    }
}
static inline int64_t rt_ravel(int rank, const int64_t *shape, const int64_t *c)
{
    int64_t i = 0;
    for (int d = 0; d < rank; d++)
        i = i * shape[d] + c[d];
    return i;
}
static inline int64_t rt_numel(int rank, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < rank; d++)
        n *= shape[d];
    return n;
}

/* o has dtype dt and (rank, shape), and its values equal want exactly (NaN matching NaN). */
void rt_check(wk_tensor *o, wk_dtype dt, int rank, const int64_t *shape, const double *want, wkt_result *r);
/* A status where a case expects one: s must be want, an error naming `op`. */
void rt_expect_status(wk_status s, wk_status want, const char *op, wkt_result *r);

void rt_pad_cases(wkt_list *l);
void rt_pad_errors(wkt_errctx *e);

#endif
