/* linear.h: what the mat-vec kernels (gemv.h, matmul_q_dot.h) fuse around their product for wk_linear (gpu/linear.c;
 * the device side: linear.cuh): x through RMSNorm before, then a bias, a rotary embedding or a gated unit over two
 * rows, and a residual after. All zero: a plain product. Plain C, embedded in those families' argument structs. */
#ifndef WK_GPU_KERNELS_LINEAR_H
#define WK_GPU_KERNELS_LINEAR_H

#include <stdint.h>

typedef struct wk_gpu_linear_epi {
    const void *norm; /* (K) of x's dtype: y = (x * norm) . w / sqrt(mean(x^2) + eps); NULL: none */
    const void *bias; /* (N) of x's dtype, added to each row's product; NULL: none */
    const void *res;  /* the output's shape, contiguous, added last; NULL: none */
    float eps;
    int glu;          /* 0: none; else 1 + wk_glu_kind: out[j] = glu(row j, row j + half), a group's two rows */
    int64_t half;     /* glu: N / 2, the output's row length */
    int rope;         /* 0: none; LIN_ROPE_HALVES: a group's two rows are i and i + D/2 of a head of D rows;
                       * LIN_ROPE_PAIRS: rows 2i and 2i + 1; in the first rope_rows they are rotated by (cos, sin)[i] */
    int64_t head_dim, rope_rows; /* rope: D (N a multiple of it) and the rows rotated (a multiple of D) */
    const void *cos, *sin;       /* rope: (D/2) of x's dtype each */
} wk_gpu_linear_epi;

#define LIN_ROPE_HALVES 1
#define LIN_ROPE_PAIRS 2

#endif
