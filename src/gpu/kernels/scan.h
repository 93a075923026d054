/* scan.h: the scan family's interface (kernels/scan.cu, gpu/scan.c): cumsum, cumprod and logcumsumexp along one
 * dim, built per input dtype: lines along the last dim (out stride 1) a block each, scanned in chunks of
 * SC_CHUNK; lines along another dim a thread each. */
#ifndef WK_GPU_KERNELS_SCAN_H
#define WK_GPU_KERNELS_SCAN_H

#include "entries.h"
#include "../layout.h"

#define SC_BLOCK 256                /* threads a block */
#define SC_ITEMS 16                 /* elements a thread holds in a chunk (scan_rows) */
#define SC_CHUNK (SC_BLOCK * SC_ITEMS)

/* The ops, in backend.h's wk_scan_op order. */
enum { SC_SUM, SC_PROD, SC_LSE };

typedef struct wk_gpu_scan_args {
    const void *x;       /* line L starts at wk_offset(lines, L); its element k at k * s after it */
    wk_gpu_layout lines; /* x's dims but the scanned one */
    int64_t s, n, nlines;
    int64_t inner;       /* out's elements after the scanned dim: line L's element k at
                          * (L / inner) * n * inner + L % inner + k * inner */
    void *out;           /* contiguous: x's dtype, i64 for integer x */
    int32_t op;          /* SC_* */
} wk_gpu_scan_args;

/* "scan_rows_f32" (inner == 1), "scan_cols_f32": the input dtype. */
#define WK_SCAN_KERNELS(X)                                                                                        \
    X(scan, scan_rows, wk_gpu_scan_args, DT_ALL, NONE, ONE, __launch_bounds__(SC_BLOCK))                           \
    X(scan, scan_cols, wk_gpu_scan_args, DT_ALL, NONE, ONE, __launch_bounds__(SC_BLOCK))

#endif
