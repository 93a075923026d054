/* quant.h: the block-quantization family's interface (kernels/quant.cu, gpu/quant.c): dequantize (one thread per
 * element) and quantize (one thread per block) over contiguous blocks, with core/quant_blocks.h's arithmetic. */
#ifndef WK_GPU_KERNELS_QUANT_H
#define WK_GPU_KERNELS_QUANT_H

#include "entries.h"

typedef struct wk_gpu_quant_args {
    const void *x;   /* dequantize: the blocks; quantize: the f16/bf16/f32 values; contiguous */
    void *out;       /* contiguous */
    int64_t n;       /* dequantize: elements; quantize: blocks */
} wk_gpu_quant_args;

/* The block type (slot = wk_dtype - WK_Q4_0, core/quant_blocks.h's order); the items are kernels/quant.cu's tags. */
#define WK_AX_QTYPE_ALL(Y, N, ...)                                                                                \
    Y(_q4_0, qt_q4_0, __VA_ARGS__) Y(_q4_1, qt_q4_1, __VA_ARGS__) Y(_q5_0, qt_q5_0, __VA_ARGS__)                  \
    Y(_q5_1, qt_q5_1, __VA_ARGS__) Y(_q8_0, qt_q8_0, __VA_ARGS__) Y(_q2_k, qt_q2_k, __VA_ARGS__)                  \
    Y(_q3_k, qt_q3_k, __VA_ARGS__) Y(_q4_k, qt_q4_k, __VA_ARGS__) Y(_q5_k, qt_q5_k, __VA_ARGS__)                  \
    Y(_q6_k, qt_q6_k, __VA_ARGS__) Y(_q8_k, qt_q8_k, __VA_ARGS__) Y(_iq4_nl, qt_iq4_nl, __VA_ARGS__)              \
    Y(_iq4_xs, qt_iq4_xs, __VA_ARGS__)
/* The types wk_quantize makes (wk_qi_quantizable). */
#define WK_AX_QTYPE_MAKE(Y, N, ...)                                                                               \
    Y(_q4_0, qt_q4_0, __VA_ARGS__) Y(_q4_1, qt_q4_1, __VA_ARGS__) Y(_q5_0, qt_q5_0, __VA_ARGS__)                  \
    Y(_q5_1, qt_q5_1, __VA_ARGS__) Y(_q8_0, qt_q8_0, __VA_ARGS__) N(_q2_k, qt_q2_k, __VA_ARGS__)                  \
    N(_q3_k, qt_q3_k, __VA_ARGS__) Y(_q4_k, qt_q4_k, __VA_ARGS__) Y(_q5_k, qt_q5_k, __VA_ARGS__)                  \
    Y(_q6_k, qt_q6_k, __VA_ARGS__) N(_q8_k, qt_q8_k, __VA_ARGS__) N(_iq4_nl, qt_iq4_nl, __VA_ARGS__)              \
    N(_iq4_xs, qt_iq4_xs, __VA_ARGS__)
/* The float side: f16, bf16, f32 (slots in wk_dtype order). */
#define WK_BX_QFLOAT(Y, N, ...)                                                                                   \
    N(_u8, uint8_t, __VA_ARGS__) N(_u32, uint32_t, __VA_ARGS__) N(_i32, int32_t, __VA_ARGS__)                     \
    N(_i64, int64_t, __VA_ARGS__) Y(_f16, wk_f16, __VA_ARGS__) Y(_bf16, wk_bf16, __VA_ARGS__)                    \
    Y(_f32, float, __VA_ARGS__) N(_f64, double, __VA_ARGS__)

#define WK_QUANT_KERNELS(X)                                                                                       \
    X(quant, quant_dequantize, wk_gpu_quant_args, QTYPE_ALL, QFLOAT, ONE, )                                       \
    X(quant, quant_quantize, wk_gpu_quant_args, QTYPE_MAKE, QFLOAT, ONE, )

#endif
