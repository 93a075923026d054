/* matmul_q.h: the quantized matmul family's interface (kernels/matmul_q.cu, gpu/matmul_q.c; the integer kernels:
 * matmul_q_dot.h): out = x @ w^T for a few rows of x, w's blocks read once and decoded in registers. The vec kernels
 * (Q4_0, Q8_0, Q4_K, Q6_K; up to 1, 4 or 8 rows of x) give each lane whole blocks of MQV_ROWS rows of w, loaded as
 * aligned 16-byte chunks, and x from L1; the gemv kernel (every type, any M) gives each logical warp one row of w with
 * x staged in shared memory. */
#ifndef WK_GPU_KERNELS_MATMUL_Q_H
#define WK_GPU_KERNELS_MATMUL_Q_H

#include "linear.h"
#include "quant.h"

#define MQ_BLOCK 256      /* threads a block: MQ_BLOCK / LW rows of w */
#define MQ_MT 8           /* rows of x a block multiplies at once (a register accumulator each) */
#define MQ_XS_FLOATS 8192 /* x's values staged in shared memory (32 KiB): MQ_MT rows of kc, or fewer rows of more */

typedef struct wk_gpu_matmul_q_args {
    const void *w;     /* (N, K) of the A block type: rows of K / block size blocks, row_bytes apart */
    const void *x;     /* (M, K) contiguous, the B dtype */
    void *out;         /* (M, N) contiguous, the B dtype */
    int64_t M, N, K, row_bytes;
    int64_t kc;        /* gemv: x's columns staged a pass: a multiple of 256 (whole blocks of every type), or K */
    int64_t lpr;       /* vec, dot: lanes a group of rows of w (a power of two, at most the logical warp) */
    void *xq;          /* dot: x rounded (matmul_q_round): M * K bytes of q, then M * K / 32 (d, d * sum q) */
    wk_gpu_linear_epi epi; /* dot: wk_linear's steps around the product (norm: matmul_q_dot_1 only); zero: none */
} wk_gpu_matmul_q_args;

/* vec: the rows of w a lane decodes together (x's values loaded once for all of them), by quant_blocks.h's index
 * and the kernel's rows of x (1, 4, 8); fewer where the registers would spill (sm_90: 255 for Q4_K at 8), and 2 for
 * Q4_0 at one row of x, whose lanes hold two units of each in flight (more groups for a decode step's short w). */
#define MQV_ROWS(qi, mt)                                                                                          \
    ((qi) == WK_QI_Q4_0 ? ((mt) == 1 ? 2 : 4) : (qi) == WK_QI_Q6_K || ((qi) == WK_QI_Q4_K && (mt) == 8) ? 1 : 2)

/* The block types the vec kernels and the dot kernels (matmul_q_dot.h) build (slots as QTYPE_ALL's). */
#define WK_AX_QTYPE_VEC(Y, N, ...)                                                                                \
    Y(_q4_0, qt_q4_0, __VA_ARGS__) N(_q4_1, qt_q4_1, __VA_ARGS__) N(_q5_0, qt_q5_0, __VA_ARGS__)                  \
    N(_q5_1, qt_q5_1, __VA_ARGS__) Y(_q8_0, qt_q8_0, __VA_ARGS__) N(_q2_k, qt_q2_k, __VA_ARGS__)                  \
    N(_q3_k, qt_q3_k, __VA_ARGS__) Y(_q4_k, qt_q4_k, __VA_ARGS__) N(_q5_k, qt_q5_k, __VA_ARGS__)                  \
    Y(_q6_k, qt_q6_k, __VA_ARGS__) N(_q8_k, qt_q8_k, __VA_ARGS__) N(_iq4_nl, qt_iq4_nl, __VA_ARGS__)              \
    N(_iq4_xs, qt_iq4_xs, __VA_ARGS__)

/* "matmul_q_gemv_q4_0_f16_w64": block type (A, quant.h's axis), x's dtype (B), width. */
#define WK_MATMUL_Q_KERNELS(X)                                                                                    \
    X(matmul_q, matmul_q_gemv, wk_gpu_matmul_q_args, QTYPE_ALL, QFLOAT, WIDTHS, __launch_bounds__(MQ_BLOCK))        \
    X(matmul_q, matmul_q_vec1, wk_gpu_matmul_q_args, QTYPE_VEC, QFLOAT, WIDTHS, __launch_bounds__(MQ_BLOCK))        \
    X(matmul_q, matmul_q_vec4, wk_gpu_matmul_q_args, QTYPE_VEC, QFLOAT, WIDTHS, __launch_bounds__(MQ_BLOCK))        \
    X(matmul_q, matmul_q_vec8, wk_gpu_matmul_q_args, QTYPE_VEC, QFLOAT, WIDTHS, __launch_bounds__(MQ_BLOCK))

#endif
