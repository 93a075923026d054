/* rope.h: the rotary embedding family's interface (kernels/rope.cu, gpu/rope.c): halves or interleaved pairs of
 * x rotated by (T, D/2) cos/sin tables, one thread per rotated pair, every float dtype. */
#ifndef WK_GPU_KERNELS_ROPE_H
#define WK_GPU_KERNELS_ROPE_H

#include "entries.h"
#include "../layout.h"

/* x is (B, d1, d2, D): (B, H, T, D) for the halves and interleaved kinds, (B, T, H, D) for thd; out has x's
 * shape. */
typedef struct wk_gpu_rope_args {
    const void *x;            /* strides xs0..xs3 in elements */
    const void *cosv, *sinv;  /* (T, D/2) tables, strides cs0/cs1 and ss0/ss1 in elements */
    void *out;                /* contiguous */
    int64_t xs0, xs1, xs2, xs3;
    int64_t cs0, cs1, ss0, ss1;
    int64_t d1, d2, half;     /* x's dims 1 and 2, D/2 */
    int64_t n;                /* rotated pairs: B*d1*d2*half */
} wk_gpu_rope_args;

/* The kind, a compile-time variant, in backend.h's wk_rope_kind order: halves of (B, H, T, D), interleaved pairs
 * of (B, H, T, D), halves of (B, T, H, D). */
#define WK_AX_ROPE_KIND(Y, N, ...)                                                                                \
    Y(_halves, rope_halves, __VA_ARGS__) Y(_interleaved, rope_interleaved, __VA_ARGS__) Y(_thd, rope_thd, __VA_ARGS__)

#define WK_ROPE_KERNELS(X) X(rope, rope, wk_gpu_rope_args, ROPE_KIND, DT_FLOAT, ONE, )

#endif
