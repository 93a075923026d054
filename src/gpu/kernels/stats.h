/* stats.h: the stats family's interface (kernels/stats.cu, gpu/stats.c): var, std, logsumexp and the vector norms
 * over a row (the last dim), a block a row, built per float dtype and warp width. */
#ifndef WK_GPU_KERNELS_STATS_H
#define WK_GPU_KERNELS_STATS_H

#include "entries.h"
#include "../layout.h"

#define ST_BLOCK 256 /* threads a block: one row */

/* The statistics, in backend.h's wk_stats_op order. */
enum { ST_VAR, ST_STD, ST_LSE, ST_NORM1, ST_NORM2, ST_NORM_INF };

typedef struct wk_gpu_stats_args {
    const void *x;      /* nrows rows of n elements: row r at wk_offset(rows, r), element j at j * s after it */
    wk_gpu_layout rows;
    int64_t s, n, nrows;
    double correction;  /* var, std */
    void *out;          /* nrows values, contiguous, x's dtype */
    int32_t op;         /* ST_* */
} wk_gpu_stats_args;

/* "stats_row_f32_w64": dtype, width. */
#define WK_STATS_KERNELS(X) X(stats, stats_row, wk_gpu_stats_args, DT_FLOAT, NONE, WIDTHS, __launch_bounds__(ST_BLOCK))

#endif
