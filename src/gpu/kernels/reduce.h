/* reduce.h: the reduce family's interface (kernels/reduce.cu, gpu/reduce.c): sum/mean/min/max over any dims and
 * argmin/argmax over the last dim; runs, columns and merge kernels, their one parameter struct and shared limits. */
#ifndef WK_GPU_KERNELS_REDUCE_H
#define WK_GPU_KERNELS_REDUCE_H

#include "entries.h"
#include "../layout.h"

/* Threads of every launch of the family: the column kernels' shared arrays hold one slot per thread (bx * by ==
 * WK_RED_THREADS), and a group wider than a warp is the whole block (G == WK_RED_THREADS). */
#define WK_RED_THREADS 256
/* The widest group of lanes below a block: it fits in a warp of every target and every logical width, which the
 * runs and merge kernels need (G <= LW or G == blockDim.x). The column kernels' tile width has the same cap. */
#define WK_RED_GROUP_MAX 32
/* Bytes of one vector load (wk_w16): the runs kernels count a contiguous run in vectors of WK_RED_VEC / size
 * elements, and reduce_colsv reads that many neighbouring outputs at once (the host checks the alignment). */
#define WK_RED_VEC 16
/* Bytes of a partial: the accumulator of sum/min/max and the compare value of argmin/argmax is 8 bytes for the
 * 8-byte dtypes and 4 for the rest (u8, i32 widen to u32; f16, bf16 to f32). */
#define WK_RED_ACC_BYTES(elem_size) ((elem_size) == 8 ? 8 : 4)

/* How the host cuts work (gpu/reduce.c): loads a lane takes at least before a run gets more lanes (also the
 * runs loop's loads in flight); items per SM aimed at when long reductions are split; the longest run a single
 * group takes whole (in loads); elements a column thread takes at least per piece; partials a merge lane takes. */
#define WK_RED_LANE_LOADS 4
#define WK_RED_ITEMS_PER_SM 32
#define WK_RED_RUN_WHOLE 256
#define WK_RED_COL_MIN 16
#define WK_RED_FINISH_PER_LANE 8

/* The op axis (A) of the reduce sets: slot 0 sum (and mean, a sum divided at the store), 1 min, 2 max; items the
 * op tags of reduce.cu. The argreduce sets use the same slots and build no sum. */
#define WK_RED_SLOT_SUM 0
#define WK_RED_SLOT_MIN 1
#define WK_RED_SLOT_MAX 2
#define WK_AX_RED_OP(Y, N, ...)                                                                                   \
    Y(_sum, red_op_sum, __VA_ARGS__) Y(_min, red_op_min, __VA_ARGS__) Y(_max, red_op_max, __VA_ARGS__)
#define WK_AX_ARG_OP(Y, N, ...) N(_sum, wk_none, __VA_ARGS__) Y(_min, arg_lt, __VA_ARGS__) Y(_max, arg_gt, __VA_ARGS__)

/* One struct for every set; each reads the fields its comment names. Lengths and strides in elements. */
typedef struct wk_gpu_reduce_args {
    const void *x;     /* rows, cols: the input, x's dtype */
    void *out;         /* nout outputs, contiguous: x's dtype (reduce) or int64 indices (argreduce) */
    void *part;        /* partials, written when split and read by finish: accumulators (reduce), compare values
                        * (argreduce), WK_RED_ACC_BYTES each */
    void *part_idx;    /* argreduce: the partials' int64 indices */
    wk_gpu_layout K;   /* rows, cols: x's kept dims (merged), offset of output o */
    wk_gpu_layout Q;   /* reduce rows, cols: the reduced dims but the innermost, offset of run q */
    int64_t L, rs;     /* rows, cols: the innermost reduced dim (argreduce: the last dim): length, stride */
    int64_t nq;        /* reduce rows: runs per output (the product of Q's shape) */
    int64_t count;     /* reduce: elements reduced per output (mean's divisor; the column kernels' range) */
    int64_t splits;    /* rows, cols: pieces each run (rows) or the reduced range (cols) is cut into */
    int64_t nitems;    /* rows: work items, one per (output, run, piece) */
    int64_t nout;      /* outputs (cols: also the stride between pieces of part) */
    int64_t np, so, ss; /* finish: partials per output; part's stride between outputs, between an output's partials */
    int32_t G;         /* rows, finish: lanes per item, a power of two <= WK_RED_GROUP_MAX, or WK_RED_THREADS */
    int32_t mean;      /* reduce: 1 divides the sum by count at the store */
} wk_gpu_reduce_args;

/* Every launch is at most WK_RED_THREADS threads. The runs kernels are held to 64 registers (4 blocks an SM); with
 * that bound ptxas also issues the four 16-byte loads of an iteration together instead of two by two. The vector
 * column kernel too (76 registers unbounded: 3 blocks an SM), with eight 16-byte loads an iteration. The runs and
 * merge kernels are built per logical warp width (WIDTHS); the column kernels do not depend on it. */
#define WK_REDUCE_KERNELS(X)                                                                                      \
    X(reduce, reduce_rows, wk_gpu_reduce_args, RED_OP, DT_ALL, WIDTHS, WK_LAUNCH_BOUNDS(WK_RED_THREADS, 4))       \
    X(reduce, reduce_finish, wk_gpu_reduce_args, RED_OP, DT_ALL, WIDTHS, __launch_bounds__(WK_RED_THREADS))       \
    X(reduce, reduce_cols, wk_gpu_reduce_args, RED_OP, DT_ALL, ONE, __launch_bounds__(WK_RED_THREADS))            \
    X(reduce, reduce_colsv, wk_gpu_reduce_args, RED_OP, DT_ALL, ONE, WK_LAUNCH_BOUNDS(WK_RED_THREADS, 4))        \
    X(reduce, argreduce_rows, wk_gpu_reduce_args, ARG_OP, DT_ALL, WIDTHS, )                                       \
    X(reduce, argreduce_finish, wk_gpu_reduce_args, ARG_OP, DT_ALL, WIDTHS, )                                     \
    X(reduce, argreduce_cols, wk_gpu_reduce_args, ARG_OP, DT_ALL, ONE, )

#endif
