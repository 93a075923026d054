/* reorder.h: the reorder family's interface (kernels/reorder.cu, gpu/reorder.c): gathers through one index map
 * per dim (core/numerics.h: pad, flip, roll, repeat, repeat_interleave), by rows or by elements, and one_hot. */
#ifndef WK_GPU_KERNELS_REORDER_H
#define WK_GPU_KERNELS_REORDER_H

#include "entries.h"
#include "../layout.h"

/* The rows kernel: a group of REORDER_GROUP threads (a logical group: no lane exchanges, so any warp width
 * serves) copies a chunk of up to REORDER_CHUNK elements of one output row, REORDER_UNROLL loads in flight per
 * thread. Rows shorter than REORDER_GROUP go to the element kernel. */
#define REORDER_THREADS 256
#define REORDER_GROUP 32
#define REORDER_UNROLL 4
#define REORDER_CHUNK 8192

/* Dims are the merged ones (gpu/reorder.c): rank >= 1, out contiguous of shape os, x of sizes n and strides xs
 * (elements); along dim d out's index o reads x's wk_reorder_src(kind[d], o, n[d], a[d]), -1: the value. */
typedef struct wk_gpu_reorder_args {
    void *out;
    const void *x;
    int32_t rank;
    int32_t small;                  /* every index below 2^31: 32-bit division */
    int32_t kind[WK_GPU_MAX_RANK];  /* wk_reorder_kind */
    int64_t a[WK_GPU_MAX_RANK];     /* the maps' parameters */
    int64_t n[WK_GPU_MAX_RANK];     /* x's sizes */
    int64_t os[WK_GPU_MAX_RANK];    /* out's sizes */
    int64_t xs[WK_GPU_MAX_RANK];    /* x's strides */
    int64_t numel;                  /* out's elements */
    int64_t cols, per_row, items;   /* rows kernel: os[rank-1], chunks per row, rows * per_row */
    uint64_t bits;                  /* the pad value's storage bits, zero-extended */
    /* one_hot: out (ids' elements, classes) i64 = ids[row] == class */
    const void *ids;
    wk_gpu_layout li;               /* ids' layout */
    int64_t classes;
    int32_t *fault;                 /* the device's fault record (layout.h) */
} wk_gpu_reorder_args;

/* The rows kernel's variants by the last dim's map (slot: its wk_reorder_kind), so that each entry point holds the
 * registers of one map only. Items are reorder.cu's tags. */
#define WK_BX_REORDER_KIND(Y, N, ...)                                                                             \
    Y(_same, rr_same, __VA_ARGS__) Y(_flip, rr_flip, __VA_ARGS__) Y(_wrap, rr_wrap, __VA_ARGS__)                  \
    Y(_tile, rr_tile, __VA_ARGS__) Y(_spread, rr_spread, __VA_ARGS__) Y(_constant, rr_constant, __VA_ARGS__)      \
    Y(_reflect, rr_reflect, __VA_ARGS__) Y(_replicate, rr_replicate, __VA_ARGS__)

#define WK_REORDER_KERNELS(X)                                                                                     \
    X(reorder, reorder_rows, wk_gpu_reorder_args, SIZES, REORDER_KIND, ONE, )                                     \
    X(reorder, reorder_elems, wk_gpu_reorder_args, SIZES, NONE, ONE, )                                            \
    X(reorder, reorder_one_hot, wk_gpu_reorder_args, INDEX, NONE, ONE, )

#endif
