/* copy.h: the copy family's interface (kernels/copy.cu, gpu/copy.c): kernels that move element bytes unchanged
 * (fill, splat, rows, strided, tiled transpose), one parameter struct for all, and the constants both sides use. */
#ifndef WK_GPU_KERNELS_COPY_H
#define WK_GPU_KERNELS_COPY_H

#include "entries.h"
#include "../layout.h"

/* The unit of every vectorised access (one load or store per thread), and so the widest element the rows and
 * strided kernels move (slot 4 of COPY_WIDE): the host widens contiguous rows up to it. */
#define COPY_VEC_BYTES 16

/* The transpose's block is COPY_TILE_W x COPY_TILE_R threads; a tile is COPY_TILE_W words on a side, i.e.
 * COPY_TILE_W * P elements with P elements per word (1 when not packed). */
#define COPY_TILE_W 32 /* words per tile row: the x extent of the block */
#define COPY_TILE_R 8  /* thread rows: the y extent of the block */

/* Bytes of the word a packed transpose moves elements of es (1, 2, 4, 8) bytes in. */
#define COPY_PACKED_WORD(es) ((es) <= 2 ? 4 : 8)

/* Strides and counts are in elements of the launched variant's size. */
typedef struct wk_gpu_copy_args {
    void *dst;        /* element 0 of the destination view */
    const void *src;  /* element 0 of the source view (fill: unused; splat: the one element) */
    wk_gpu_layout dl; /* fill: the destination view; strided: the merged dims in dst; rows: the row dims (all but
                       * the last) in dst; transpose: the batch dims (all but a and b) in dst */
    wk_gpu_layout sl; /* the same dims in src (same shape as dl; fill, splat: unused) */
    int64_t n;        /* fill, splat, strided: elements */
    uint64_t bits;    /* fill: the value's storage bits, zero-extended */
    int64_t rows, cols;               /* rows: row count (dl's elements) and elements per row */
    int64_t ds, ss;                   /* rows: stride along a row in dst / src (ss 0: a broadcast row) */
    int64_t chunk;                    /* rows: elements of a row per work item */
    int64_t na, nb;                   /* transpose: extents of dim a (unit stride in src) and b (unit in dst) */
    int64_t dst_a, src_b;             /* transpose: dst stride of a, src stride of b */
    int64_t tiles_a, tiles_b, ntiles; /* transpose: tiles along a, along b, and in all (times the batch) */
} wk_gpu_copy_args;

/* COPY_WIDE: element sizes 1, 2, 4, 8, 16 bytes, slots 0..4 (SIZES plus the 16-byte vector). */
#define WK_AX_COPY_WIDE(Y, N, ...)                                                                                \
    Y(_1, uint8_t, __VA_ARGS__) Y(_2, uint16_t, __VA_ARGS__) Y(_4, uint32_t, __VA_ARGS__)                         \
    Y(_8, uint64_t, __VA_ARGS__) Y(_16, copy_v16, __VA_ARGS__)

/* COPY_TRANSPOSE: slots 0..3 elements of 1, 2, 4, 8 bytes packed in words of COPY_PACKED_WORD bytes (the host
 * checks their alignment); slots 4..6 (suffix n) elements of 1, 2, 4 bytes one per word. 8-byte elements are
 * one per word already: slot 3 serves both. Items are kernel-side types (copy.cu's copy_pack). */
#define WK_AX_COPY_TRANSPOSE(Y, N, ...)                                                                           \
    Y(_1, uint8_t, __VA_ARGS__) Y(_2, uint16_t, __VA_ARGS__) Y(_4, uint32_t, __VA_ARGS__)                         \
    Y(_8, uint64_t, __VA_ARGS__) Y(_1n, copy_single<uint8_t>, __VA_ARGS__)                                        \
    Y(_2n, copy_single<uint16_t>, __VA_ARGS__) Y(_4n, copy_single<uint32_t>, __VA_ARGS__)

#define WK_COPY_KERNELS(X)                                                                                        \
    X(copy, copy_fill, wk_gpu_copy_args, SIZES, NONE, ONE, )                                                      \
    X(copy, copy_splat, wk_gpu_copy_args, SIZES, NONE, ONE, )                                                     \
    X(copy, copy_rows, wk_gpu_copy_args, COPY_WIDE, NONE, ONE, )                                                  \
    X(copy, copy_strided, wk_gpu_copy_args, COPY_WIDE, NONE, ONE, )                                               \
    X(copy, copy_transpose, wk_gpu_copy_args, COPY_TRANSPOSE, NONE, ONE, )

#endif
