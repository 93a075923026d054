/* norm.h: the norm family's interface (kernels/norm.cu, gpu/norm.c): softmax / log_softmax, rms_norm (alone or
 * after a residual add) and layer_norm over the last dim (and batch_norm, group_norm over channels), one kernel set per kind, built per row shape, float dtype and warp width. */
#ifndef WK_GPU_KERNELS_NORM_H
#define WK_GPU_KERNELS_NORM_H

#include "entries.h"
#include "../layout.h"

/* Flags: x rows and out rows go by 16-byte vectors (add_rms: sum's and out's rows); w, b too; log_softmax;
 * add_rms: x rows and r rows go by vectors too. */
#define NM_VEC 1
#define NM_WVEC 2
#define NM_BVEC 4
#define NM_LOG 8
#define NM_XVEC 16
#define NM_RVEC 32

/* The long path's block (one row a block) and the largest group of lanes a row: the kernels' launch bounds
 * (at most 64 registers a thread). */
#define NM_BLOCK 1024

/* The kinds, one kernel set each (the host picks the set, the kernels' templates take the kind). */
enum { NM_SOFTMAX, NM_RMS, NM_LAYER, NM_ADD_RMS };

typedef struct wk_gpu_norm_args {
    const void *x;      /* nrows rows of n elements: row r at wk_offset(rows, r), element j at j * s after it */
    wk_gpu_layout rows; /* where x's rows start: its dims but the last, merged */
    int64_t s;          /* x's stride along the normalised (last) dim, in elements */
    int64_t n, nrows;   /* row length, row count */
    const void *w;      /* rms, layer: the weight (n elements, stride ws), or NULL */
    int64_t ws;
    const void *b;      /* layer: the bias (n elements, stride bs), or NULL */
    int64_t bs;
    double eps;         /* rms, layer: added to the variance */
    void *out;          /* (nrows, n), contiguous */
    int32_t G;          /* lanes a row (a power of two, at most NM_BLOCK); the long path ignores it */
    int32_t flags;      /* NM_* */
    int32_t iters;      /* norm_layer_held: row groups a block takes, one after another */
    /* add_rms (norm_add_rms): sum = x + r rounded to the dtype, then rms_norm of sum exactly as norm_rms runs it on
     * sum (the row shape is sum's: NM_VEC when its rows and out's are vectors, whatever x's and r's strides). */
    const void *r;      /* the residual: row at wk_offset(rrows, row), element j at j * rs after it */
    wk_gpu_layout rrows;
    int64_t rs;
    void *sum;          /* (nrows, n), contiguous */
} wk_gpu_norm_args;

/* batch_norm and group_norm over x as (N, C, S), any strides; out contiguous (N, C, S). */
#define NM_CHAN_BLOCK 256
typedef struct wk_gpu_norm_chan_args {
    const void *x;
    int64_t sn, sc, ss;              /* x's strides */
    const void *mean, *var, *w, *b;  /* 1-D of C, x's dtype; mean, var: batch_norm; w, b may be NULL */
    int64_t pm, pv, pw, pb;          /* their strides */
    int64_t N, C, S, G;              /* G: group_norm's groups */
    double eps;
    void *out;
} wk_gpu_norm_chan_args;

/* The row shape (axis A; the items are norm.cu's shape types): slot NM_ROWS_V + log2(NV) holds a row in
 * registers as NV 16-byte vectors a lane (_v1 _v2 _v4), slot NM_ROWS_S + log2(NV) the same by elements, for
 * strided or unaligned rows (_s1 _s2 _s4), slot NM_ROWS_LONG a block a row, read once per pass (_long). */
enum { NM_ROWS_V = 0, NM_ROWS_S = 3, NM_ROWS_LONG = 6 };
#define WK_AX_NM_ROWS(Y, N, ...)                                                                                 \
    Y(_v1, nm_rows_v1, __VA_ARGS__) Y(_v2, nm_rows_v2, __VA_ARGS__) Y(_v4, nm_rows_v4, __VA_ARGS__)               \
    Y(_s1, nm_rows_s1, __VA_ARGS__) Y(_s2, nm_rows_s2, __VA_ARGS__) Y(_s4, nm_rows_s4, __VA_ARGS__)               \
    Y(_long, nm_rows_long, __VA_ARGS__)

/* layer_norm of vector rows (NM_VEC) with w and b held (norm_layer_held): G lanes a row, NV 16-byte slots a lane
 * (axis A, slot log2(NV): _h1 _h2 _h4), the lane's slots of w and b loaded once per block and kept in registers
 * (every row a block takes uses the same columns), `iters` row groups a block. Blocks of NM_HELD_BLOCK threads
 * (several rows each), or of G threads when G is larger (at most NM_HELD_MAX_G); held to 2 blocks of the largest
 * an SM (64 registers a thread). */
#define NM_HELD_BLOCK 256
#define NM_HELD_MAX_G 512
#define WK_AX_NM_HELD(Y, N, ...)                                                                                  \
    Y(_h1, nm_held1, __VA_ARGS__) Y(_h2, nm_held2, __VA_ARGS__) Y(_h4, nm_held4, __VA_ARGS__)

/* "norm_rms_v4_f32_w64": kind, row shape, dtype (B: the wk_dtype), width. Every kind builds NV 4 for every
 * dtype, though the host takes at most NV 2 for rms and layer norms of f16/bf16 (gpu/norm.c). */
#define WK_NORM_KERNELS(X)                                                                                        \
    X(norm, norm_softmax, wk_gpu_norm_args, NM_ROWS, DT_FLOAT, WIDTHS, __launch_bounds__(NM_BLOCK))              \
    X(norm, norm_rms, wk_gpu_norm_args, NM_ROWS, DT_FLOAT, WIDTHS, __launch_bounds__(NM_BLOCK))                  \
    X(norm, norm_add_rms, wk_gpu_norm_args, NM_ROWS, DT_FLOAT, WIDTHS, __launch_bounds__(NM_BLOCK))              \
    X(norm, norm_layer, wk_gpu_norm_args, NM_ROWS, DT_FLOAT, WIDTHS, __launch_bounds__(NM_BLOCK))               \
    X(norm, norm_layer_held, wk_gpu_norm_args, NM_HELD, DT_FLOAT, WIDTHS, WK_LAUNCH_BOUNDS(NM_HELD_MAX_G, 2))   \
    X(norm, norm_batch, wk_gpu_norm_chan_args, DT_FLOAT, NONE, ONE, )                                             \
    X(norm, norm_group, wk_gpu_norm_chan_args, DT_FLOAT, NONE, WIDTHS, __launch_bounds__(NM_CHAN_BLOCK))

#endif
