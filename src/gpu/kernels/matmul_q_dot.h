/* matmul_q_dot.h: the quantized matmul's integer kernels (kernels/matmul_q_dot.cu, gpu/matmul_q.c), for up to 8 rows
 * of x and the block types Llama GGUFs hold most: matmul_q_round rounds x to 8-bit blocks of 32 in scratch, then
 * matmul_q_dot_1 (one row of x) or matmul_q_dot_8 (up to 8) multiply in integers. Parameters: matmul_q.h's. */
#ifndef WK_GPU_KERNELS_MATMUL_Q_DOT_H
#define WK_GPU_KERNELS_MATMUL_Q_DOT_H

#include "matmul_q.h"

#define MQD_BLOCK 256 /* threads a block, both kernels */
#define MQD_ROWS 2    /* rows of w a group of lanes: x's loads serve both */
#define MQD_MAX_K 32768 /* matmul_q_dot_1's x in shared memory: K + K / 32 * 8 bytes (40 KiB) at the most */
/* Slices of each of its rows a lane holds in flight: two at one row of x (matmul_q_dot_1) but for Q8_0 (one measured
 * faster), else one; the host gives a row's lanes slices / MQD_UN of them (gpu/matmul_q.c dot_lanes). */
#define MQD_UN(qi, one_row) ((one_row) && (qi) != WK_QI_Q8_0 ? 2 : 1)

/* matmul_q_round: grid ceil(M * K / 8 / MQD_BLOCK) of MQD_BLOCK threads, x's dtype (B; A is NONE).
 * matmul_q_dot_1, matmul_q_dot_8: grid ceil(ceil(N / MQD_ROWS) * lpr / MQD_BLOCK) of MQD_BLOCK threads. */
#define WK_MATMUL_Q_DOT_KERNELS(X)                                                                                \
    X(matmul_q_dot, matmul_q_round, wk_gpu_matmul_q_args, NONE, QFLOAT, ONE, __launch_bounds__(MQD_BLOCK))       \
    X(matmul_q_dot, matmul_q_dot_1, wk_gpu_matmul_q_args, QTYPE_VEC, QFLOAT, WIDTHS, __launch_bounds__(MQD_BLOCK)) \
    X(matmul_q_dot, matmul_q_dot_8, wk_gpu_matmul_q_args, QTYPE_VEC, QFLOAT, WIDTHS, __launch_bounds__(MQD_BLOCK))

#endif
