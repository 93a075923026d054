/* pool.h: helpers private to the 'pool' case family: pooling cases in pool.c, resampling (upsample) cases
 * in upsample.c, and the small utilities both use. */
#ifndef WKT_POOL_H
#define WKT_POOL_H

#include "harness.h"

/* Appends one case of the 'pool' family. ip (8 ints) and fp (4 doubles) may be NULL. */
void pl_add(wkt_list *l, const char *op, wk_dtype dt, wkt_layout layout, int rank, const int64_t *shape,
            const int *ip, const double *fp, wkt_run_fn run);
/* Checks t's dtype and shape; fails r otherwise. */
bool pl_check_shape(const wk_tensor *t, wk_dtype dt, int rank, const int64_t *shape, wkt_result *r);
/* Checks that a pointer out-parameter stayed NULL after a failing call. */
void pl_expect_untouched(wkt_errctx *e, const void *out, const char *what);

/* The upsample sub-family. */
void pl_upsample_cases(wkt_list *l);
void pl_upsample_errors(wkt_errctx *e);

#endif
