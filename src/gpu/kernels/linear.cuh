/* linear.cuh: the device side of linear.h, shared by the mat-vec kernels that fuse wk_linear's steps (gemv.cu,
 * matmul_q_dot.cu): which rows of w a group of lanes owns, the norm's scale, and the epilogue that turns a group's
 * f32 products into out's values (bias, rotary embedding or gated unit, residual; one rounding). */
#ifndef WK_GPU_LINEAR_CUH
#define WK_GPU_LINEAR_CUH

#include "activation.cuh"
#include "linear.h"

/* Row r of the R rows of w group g owns: g * R + r; with a gated unit (R == 2) row g and row g + half, the gate's
 * row and its up row; with a rope of halves (R == 2) rows i and i + D/2 of head g / (D/2), i = g % (D/2). */
__device__ __forceinline__ int64_t lin_row(const wk_gpu_linear_epi &e, int64_t g, int r, int R)
{
    if (e.glu)
        return g + r * e.half;
    if (e.rope == LIN_ROPE_HALVES) {
        const int64_t hd = e.head_dim / 2, h = g / hd;
        return h * e.head_dim + (g - h * hd) + r * hd;
    }
    return g * R + r;
}

/* The norm's factor 1 / sqrt(mean(x^2) + eps) from the sum of squares of x's K values (wk_rms_norm's). */
__device__ __forceinline__ float lin_norm_scale(const wk_gpu_linear_epi &e, float ss, int64_t K)
{
    return 1.0f / sqrtf(ss / (float)K + e.eps);
}

/* The gated unit of kind glu - 1 (wk_glu_kind's order) on a and b. */
__device__ __forceinline__ float lin_glu(int glu, float a, float b)
{
    switch (glu - 1) {
    case 0:
        return un_glu_sigmoid()(a, b);
    case 1:
        return un_glu_swiglu()(a, b);
    case 2:
        return un_glu_geglu()(a, b);
    default:
        return un_glu_geglu_tanh()(a, b);
    }
}

/* The epilogue's operands of group g at row m of x (its rows' biases and residuals, the rope's cos and sin; 0 where
 * there is none): loaded before the product where the kernel can, so that their trips to memory overlap it. */
template <int R> struct lin_ops {
    float bias[R], res[R], cos, sin; /* cos, sin: a rope pair's in the rotated rows */
};
template <class T, int R>
__device__ __forceinline__ lin_ops<R> lin_load(const wk_gpu_linear_epi &e, int64_t N, int64_t m, int64_t g)
{
    const T *bias = (const T *)e.bias, *res = (const T *)e.res;
    lin_ops<R> o;
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int64_t row = lin_row(e, g, r, R), col = e.glu ? g : row, n = e.glu ? e.half : N;
        const bool in = e.glu ? g < e.half : row < N;
        o.bias[r] = bias && in ? wk_ld(bias + row) : 0.0f;
        o.res[r] = res && in && (!e.glu || r == 0) ? wk_ld(res + m * n + col) : 0.0f;
    }
    o.cos = 0.0f, o.sin = 0.0f;
    const int64_t r0 = lin_row(e, g, 0, R);
    if (e.rope && r0 < e.rope_rows) { /* pair i of the head */
        const int64_t i = e.rope == LIN_ROPE_HALVES ? r0 % e.head_dim : r0 % e.head_dim / 2;
        o.cos = wk_ld((const T *)e.cos + i);
        o.sin = wk_ld((const T *)e.sin + i);
    }
    return o;
}

/* Group g's products y (its rows' dot products with row m of x, norm applied) through the epilogue with its operands
 * o (lin_load) into out (rows N long, or half with a gated unit), rounded once; called by one lane of the group. */
template <class T, int R>
__device__ __forceinline__ void lin_store(const wk_gpu_linear_epi &e, T *out, int64_t N, int64_t m, int64_t g,
                                          const float (&y)[R], const lin_ops<R> &o)
{
    if constexpr (R == 2) {
        if (e.glu) {
            if (g < e.half)
                wk_st(out + m * e.half + g, lin_glu(e.glu, y[0] + o.bias[0], y[1] + o.bias[1]) + o.res[0]);
            return;
        }
        if (e.rope) { /* the pair rotated in the first rope_rows, as it is past them (an inf stays out of its pair) */
            const float a = y[0] + o.bias[0], b = y[1] + o.bias[1];
            const int64_t r0 = lin_row(e, g, 0, 2), r1 = lin_row(e, g, 1, 2);
            const bool rot = r0 < e.rope_rows;
            if (r1 < N) {
                wk_st(out + m * N + r0, (rot ? a * o.cos - b * o.sin : a) + o.res[0]);
                wk_st(out + m * N + r1, (rot ? a * o.sin + b * o.cos : b) + o.res[1]);
            }
            return;
        }
    }
#pragma unroll
    for (int r = 0; r < R; r++)
        if (g * R + r < N)
            wk_st(out + m * N + g * R + r, y[r] + o.bias[r] + o.res[r]);
}

#endif
