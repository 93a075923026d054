/* quant.cuh: what the kernels of GGML's block formats share (kernels/quant.cu, kernels/matmul_q.cu): the block type
 * tags of quant.h's axes, and core/quant_blocks.h's arithmetic, the CPU's own. */
#ifndef WK_GPU_KERNELS_QUANT_CUH
#define WK_GPU_KERNELS_QUANT_CUH

#include "quant.h"
#include "../../core/quant_blocks.h"

/* The block types of quant.h's axes (item qt_q4_0 .. qt_iq4_xs). */
template <int Q> struct qt_tag {
    static constexpr int qi = Q;
};
struct qt_q4_0 : qt_tag<WK_QI_Q4_0> {};
struct qt_q4_1 : qt_tag<WK_QI_Q4_1> {};
struct qt_q5_0 : qt_tag<WK_QI_Q5_0> {};
struct qt_q5_1 : qt_tag<WK_QI_Q5_1> {};
struct qt_q8_0 : qt_tag<WK_QI_Q8_0> {};
struct qt_q2_k : qt_tag<WK_QI_Q2_K> {};
struct qt_q3_k : qt_tag<WK_QI_Q3_K> {};
struct qt_q4_k : qt_tag<WK_QI_Q4_K> {};
struct qt_q5_k : qt_tag<WK_QI_Q5_K> {};
struct qt_q6_k : qt_tag<WK_QI_Q6_K> {};
struct qt_q8_k : qt_tag<WK_QI_Q8_K> {};
struct qt_iq4_nl : qt_tag<WK_QI_IQ4_NL> {};
struct qt_iq4_xs : qt_tag<WK_QI_IQ4_XS> {};

#endif
