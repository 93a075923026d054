/* cast.h: the cast family's interface (kernels/cast.cu, gpu/cast.c): dtype conversion of all 8x8 pairs with
 * wk_cast's rules (cast_<src>_<dst>), and arange converted by the same rules (cast_arange_<dst>). */
#ifndef WK_GPU_KERNELS_CAST_H
#define WK_GPU_KERNELS_CAST_H

#include "entries.h"
#include "../layout.h"

/* Bytes of the narrower side that a thread moves per step on contiguous runs (16: one vector access): the
 * kernels' vector width in elements is this over the smaller element size, and the host counts work items by
 * the same width. */
#define WK_CAST_VEC_BYTES 16

typedef struct wk_gpu_cast_args {
    void *dst;                /* n elements, contiguous */
    const void *src;          /* cast only: the source view, n elements through src_layout */
    wk_gpu_layout src_layout; /* cast only: src's (merged) layout */
    int64_t n;                /* elements of dst */
    double start, step;       /* arange only: dst[i] = (dst dtype)(start + i*step), both operations in f64 */
} wk_gpu_cast_args;

/* cast: A the source dtype, B the destination dtype; cast_arange: A the destination dtype. */
#define WK_CAST_KERNELS(X)                                                                                        \
    X(cast, cast, wk_gpu_cast_args, DT_ALL, DT_ALL, ONE, )                                                        \
    X(cast, cast_arange, wk_gpu_cast_args, DT_ALL, NONE, ONE, )

#endif
