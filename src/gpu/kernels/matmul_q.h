/* matmul_q.h: the quantized matmul family's interface (kernels/matmul_q.cu, gpu/matmul_q.c): out = x @ w^T for a few
 * rows of x, each logical warp one row of w (one output feature), its blocks read once and decoded in registers. */
#ifndef WK_GPU_KERNELS_MATMUL_Q_H
#define WK_GPU_KERNELS_MATMUL_Q_H

#include "quant.h"

#define MQ_BLOCK 256      /* threads a block: MQ_BLOCK / LW rows of w */
#define MQ_MT 8           /* rows of x a block multiplies at once (a register accumulator each) */
#define MQ_XS_FLOATS 8192 /* x's values staged in shared memory (32 KiB): MQ_MT rows of kc, or fewer rows of more */

typedef struct wk_gpu_matmul_q_args {
    const void *w;     /* (N, K) of the A block type: rows of K / block size blocks, row_bytes apart */
    const void *x;     /* (M, K) contiguous, the B dtype */
    void *out;         /* (M, N) contiguous, the B dtype */
    int64_t M, N, K, row_bytes;
    int64_t kc;        /* x's columns staged a pass: a multiple of 256 (whole blocks of every type), or K */
} wk_gpu_matmul_q_args;

/* "matmul_q_gemv_q4_0_f16_w64": block type (A, quant.h's axis), x's dtype (B), width. */
#define WK_MATMUL_Q_KERNELS(X)                                                                                    \
    X(matmul_q, matmul_q_gemv, wk_gpu_matmul_q_args, QTYPE_ALL, QFLOAT, WIDTHS, __launch_bounds__(MQ_BLOCK))

#endif
