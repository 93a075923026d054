/* matmul_q_dot.h: the CPU's integer block dot products for the quantized mat-vec (matmul_q.c): x's rows quantized
 * to 8-bit blocks once, then each row of w dotted with them in integers, per block type and instruction set. */
#ifndef WK_CPU_MATMUL_Q_DOT_H
#define WK_CPU_MATMUL_Q_DOT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/quant_blocks.h"

/* 32 of x's values as d * q (the 32-element block types): d = amax / 127 in f32, q = x * 127 / amax rounded to the
 * nearest integer (ties to even), |q| <= 127; sum = the sum of q (Q4_0 / Q5_0's offsets, Q4_1 / Q5_1's minimums). */
typedef struct wk_mq_x32 {
    float d;
    int32_t sum;
    int8_t q[WK_QK];
} wk_mq_x32;

/* 256 of x's values likewise (the K types), with the sum of each 16 q (the K types' minimums and offsets). */
typedef struct wk_mq_x256 {
    float d;
    int16_t bsum[WK_QK_K / 16];
    int8_t q[WK_QK_K];
} wk_mq_x256;

/* The instruction sets, lowest first; WICK_CPU_ISA=portable|avx2|avxvnni|avx512 caps the one chosen. */
enum wk_mq_isa { WK_MQ_PORTABLE, WK_MQ_AVX2, WK_MQ_AVXVNNI, WK_MQ_AVX512, WK_MQ_ISA_COUNT };

/* sum over nb blocks of w's row (blocks of its type, read as bytes) times x's quantized row (wk_mq_x32 or
 * wk_mq_x256 by the type's block size), in f32. */
typedef float (*wk_mq_dot_fn)(const uint8_t *w, const void *xq, int64_t nb);

/* The same for 8 rows of w at once, row_bytes apart, into out[0..7]: the rows share x's loads and scales. */
typedef void (*wk_mq_dot8_fn)(const uint8_t *w, int64_t row_bytes, const void *xq, int64_t nb, float *out);

/* One instruction set's dots by quant_blocks.h's index; NULL: the type has no integer path (dot), or no 8-row one. */
typedef struct wk_mq_kernels {
    const char *name;
    wk_mq_dot_fn dot[WK_QI_COUNT];
    wk_mq_dot8_fn dot8[WK_QI_COUNT];
} wk_mq_kernels;

/* The kernels of instruction set isa, or NULL when this CPU (or this build) lacks it. */
const wk_mq_kernels *wk_mq_kernels_of(int isa);
/* The kernels in use: the best this CPU has, capped by WICK_CPU_ISA (read once); NULL under WICK_CPU_MATMUL_Q=f32,
 * which keeps matmul_q on the float path (x unrounded, what gguf-py's dequantized weights give within f32's
 * tolerance). */
const wk_mq_kernels *wk_mq_kernels_best(void);

/* Quantizes x's n values (n a multiple of the block size) into the blocks of xq: 32-element blocks when bs is 32,
 * else 256-element ones. Returns false (xq partly written) when a value is NaN or infinite. */
bool wk_mq_quantize_x(const float *x, int64_t n, int bs, void *xq);

/* Bytes of one quantized row of n values of block size bs. */
static inline int64_t wk_mq_x_bytes(int64_t n, int bs)
{
    return bs == WK_QK ? n / WK_QK * (int64_t)sizeof(wk_mq_x32) : n / WK_QK_K * (int64_t)sizeof(wk_mq_x256);
}

/* The x86 kernels (matmul_q_x86.c), NULL on other targets or for an isa the build cannot make. */
const wk_mq_kernels *wk_mq_x86_kernels(int isa);

#endif
