/* mask.h: the mask family's interface (kernels/mask.cu, gpu/mask.c): tril/triu (tri) and masked_fill, kernels that
 * only move bits, built per element size. */
#ifndef WK_GPU_KERNELS_MASK_H
#define WK_GPU_KERNELS_MASK_H

#include "entries.h"
#include "../layout.h"

/* Bytes of out each thread makes on the vector path, and the alignment that path needs: the host sizes its grid by
 * it (any grid is correct, but one sized for the other path leaves threads idle). */
#define WK_MASK_VEC_BYTES 16

typedef struct wk_gpu_mask_args {
    const void *x;          /* the input, layout lx over out's shape */
    wk_gpu_layout lx;
    const void *mask;       /* masked_fill: u8, layout lm over out's shape */
    wk_gpu_layout lm;
    void *out;              /* contiguous: n elements of x's size */
    int64_t n;
    uint64_t v;             /* masked_fill: the value's bits in the low bytes (little-endian storage form) */
    /* tri: out is (n / (rows * cols), rows, cols); keeps j - i <= diagonal (upper 0) or >= diagonal (upper 1),
     * diagonal in [-rows, cols]; dcols, drows divide by cols and rows when n < 2^31. */
    int64_t rows, cols, diagonal;
    wk_gpu_divisor dcols, drows;
    int32_t upper;
} wk_gpu_mask_args;

/* tri_<size>, masked_fill_<size>, size 1, 2, 4 or 8 bytes (slot log2 of the size). */
#define WK_MASK_KERNELS(X)                                                                                        \
    X(mask, tri, wk_gpu_mask_args, SIZES, NONE, ONE, )                                                            \
    X(mask, masked_fill, wk_gpu_mask_args, SIZES, NONE, ONE, )

#endif
