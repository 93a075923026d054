/* index.h: the index family's interface (kernels/index.cu, gpu/index.c): reads through an index (index_select,
 * gather), writes through one (scatter, scatter_add, index_add) and the range pass that guards in-place writes. */
#ifndef WK_GPU_KERNELS_INDEX_H
#define WK_GPU_KERNELS_INDEX_H

#include "entries.h"
#include "../layout.h"

/* Elements per thread per round of the grid-stride loops: independent loads kept in flight. The host sizes its
 * grids and the wide kernel's blocks by it. */
#define IX_UNROLL 4

/* Accumulator bytes per element of the line kernel (index.cu ix_acc), for an element of es bytes: the host sizes
 * its shared memory by it. */
#define IX_ACC_BYTES(es) ((es) > 4 ? 8 : 4)

/* One struct for every set; a set reads only the fields its comment names. Strides and offsets are in
 * elements, except index_select_rows's, which are in its row units (1 to 16 bytes). "dim" is the indexed dim of
 * the iteration shape (gpu/index.c ix_space). */
typedef struct wk_gpu_index_args {
    void *x;            /* the indexed tensor: read by gather / select_rows, written by scatter / index_add */
    const void *ids;    /* the indices (the set's B dtype; check: its A dtype) */
    const void *src;    /* scatter / index_add: the values written or added */
    void *out;          /* gather / select_rows: the result, contiguous, n elements (units) */
    wk_gpu_layout lx;   /* x over the iteration, stride 0 along dim; lines: over the dims before dim */
    wk_gpu_layout li;   /* ids over the iteration (check: ids' own); lines: over the dims before dim */
    wk_gpu_layout ls;   /* src over the iteration; lines: over the dims before dim */
    int64_t n;          /* elements (units) to visit; index_add_wide: rows (outer * L) */
    int64_t size;       /* x's extent along dim: valid indices are [0, size) */
    int64_t xk, ik, sk; /* strides along dim of x, ids, src (ik, sk: rows and lines kernels) */
    int64_t xo, so;     /* rows kernels: strides of x and src along the outer dim */
    int64_t inner, L;   /* rows kernels: units per row and rows per outer step (the indexed extent) */
    int64_t lines, K;   /* lines kernel: lines (product of the dims before dim) and sources per line */
    int32_t *fault;     /* the device's fault record (layout.h): its code, then its value */
    int32_t stage;      /* gather_rows: 1 copies x's row into shared memory first (size elements) */
    int32_t code;       /* fault code a bad index claims; writers: 0 = a range pass ran first (index.cu) */
} wk_gpu_index_args;

/* gather along the last dim of (outer, size) rows (index_gather_rows): a block per (row, chunk of IX_GATHER_CHUNK
 * ids or more); x row o at o * xo, element k at k * xk; ids row o at o * so, element j at j * ik; out row o at o * L.
 * With `stage` the block first copies x's row into shared memory (at most IX_GATHER_SMEM bytes, under every
 * device's default limit), so the random reads are shared-memory reads instead of one cache line each. */
#define IX_GATHER_THREADS 256
#define IX_GATHER_SMEM 49152
#define IX_GATHER_CHUNK 8192

/* index_select_rows' row unit: the widest of 1, 2, 4, 8, 16 bytes that row sizes, strides and addresses allow;
 * slot k is 2^k bytes (ix_b16: index.cu's 16-byte unit). */
#define WK_AX_IX_ROW_BYTES(Y, N, ...)                                                                             \
    Y(_b1, uint8_t, __VA_ARGS__) Y(_b2, uint16_t, __VA_ARGS__) Y(_b4, uint32_t, __VA_ARGS__)                      \
    Y(_b8, uint64_t, __VA_ARGS__) Y(_b16, ix_b16, __VA_ARGS__)

/* The sub-word dtypes (u8, f16, bf16) whose index_add adds a whole 32-bit word per thread; slots are wk_dtype
 * values, the wider dtypes unbuilt. */
#define WK_AX_IX_SUBWORD(Y, N, ...)                                                                               \
    Y(_u8, uint8_t, __VA_ARGS__) N(_u32, uint32_t, __VA_ARGS__) N(_i32, int32_t, __VA_ARGS__)                     \
    N(_i64, int64_t, __VA_ARGS__) Y(_f16, wk_f16, __VA_ARGS__) Y(_bf16, wk_bf16, __VA_ARGS__)                    \
    N(_f32, float, __VA_ARGS__) N(_f64, double, __VA_ARGS__)

/* scatter_add's line kernel, split by element size: the 1-4 byte dtypes are held to 3 blocks of
 * IX_LINES_THREADS per SM (<= 40 registers, no spills); i64 and f64 (8-byte elements and accumulators) build
 * without the bound, as a second set. */
#define IX_LINES_THREADS 512
#define WK_AX_IX_LINES_NARROW(Y, N, ...)                                                                          \
    Y(_u8, uint8_t, __VA_ARGS__) Y(_u32, uint32_t, __VA_ARGS__) Y(_i32, int32_t, __VA_ARGS__)                     \
    N(_i64, int64_t, __VA_ARGS__) Y(_f16, wk_f16, __VA_ARGS__) Y(_bf16, wk_bf16, __VA_ARGS__)                    \
    Y(_f32, float, __VA_ARGS__) N(_f64, double, __VA_ARGS__)
#define WK_AX_IX_LINES_WIDE(Y, N, ...)                                                                            \
    N(_u8, uint8_t, __VA_ARGS__) N(_u32, uint32_t, __VA_ARGS__) N(_i32, int32_t, __VA_ARGS__)                     \
    Y(_i64, int64_t, __VA_ARGS__) N(_f16, wk_f16, __VA_ARGS__) N(_bf16, wk_bf16, __VA_ARGS__)                    \
    N(_f32, float, __VA_ARGS__) Y(_f64, double, __VA_ARGS__)

#define WK_INDEX_KERNELS(X)                                                                                       \
    X(index, index_check, wk_gpu_index_args, INDEX, NONE, ONE, )                                                  \
    X(index, index_select_rows, wk_gpu_index_args, IX_ROW_BYTES, INDEX, ONE, )                                    \
    X(index, index_gather, wk_gpu_index_args, DT_ALL, INDEX, ONE, )                                               \
    X(index, index_gather_rows, wk_gpu_index_args, DT_ALL, INDEX, ONE, __launch_bounds__(IX_GATHER_THREADS))      \
    X(index, index_scatter, wk_gpu_index_args, DT_ALL, INDEX, ONE, )                                              \
    X(index, index_scatter_add, wk_gpu_index_args, DT_ALL, INDEX, ONE, )                                          \
    X(index, index_scatter_add_lines, wk_gpu_index_args, IX_LINES_NARROW, INDEX, ONE,                             \
      WK_LAUNCH_BOUNDS(IX_LINES_THREADS, 3))                                                                      \
    X(index, index_scatter_add_lines64, wk_gpu_index_args, IX_LINES_WIDE, INDEX, ONE, )                           \
    X(index, index_add_rows, wk_gpu_index_args, DT_ALL, INDEX, ONE, )                                             \
    X(index, index_add_wide, wk_gpu_index_args, DT_ALL, INDEX, ONE, )                                             \
    X(index, index_add_rows_w, wk_gpu_index_args, IX_SUBWORD, INDEX, ONE, )                                       \
    X(index, index_add_wide_w, wk_gpu_index_args, IX_SUBWORD, INDEX, ONE, )

#endif
