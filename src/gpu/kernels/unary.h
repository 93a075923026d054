/* unary.h: the unary family's interface (kernels/unary.cu, gpu/unary.c): one-input element-wise ops
 * (unary_<op>), the ones with scalars: affine, clamp, powf, elu, leaky_relu, and glu over two halves of one input. */
#ifndef WK_GPU_KERNELS_UNARY_H
#define WK_GPU_KERNELS_UNARY_H

#include "entries.h"
#include "../layout.h"

/* Bytes of out each thread makes on the vector path, and the alignment that path needs of both pointers: the
 * host sizes its grid by it (any grid is correct, but one sized for the other path leaves threads idle). */
#define WK_UNARY_VEC_BYTES 16

/* A scalar in the member the kernel reads: x's arithmetic type for affine and clamp (u8, u32, i32, i64 as
 * themselves, f32 for f16/bf16/f32, f64), f64 for powf and elu. Members named as wk_scalar's, which the host
 * copies in whole. */
typedef union wk_gpu_unary_scalar {
    uint8_t u8;
    uint32_t u32;
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
} wk_gpu_unary_scalar;

typedef struct wk_gpu_unary_args {
    const void *x;            /* the input, layout lx over out's shape (glu: the half a) */
    wk_gpu_layout lx;
    void *out;                /* contiguous: n elements of x's dtype */
    int64_t n;
    wk_gpu_unary_scalar s0, s1; /* affine: mul, add; clamp: lo, hi; powf: the exponent; elu: alpha; leaky_relu: the
                                 * negative slope; else unused */
    /* glu only: x2 is the half b, in a's layout lx. hv > 0 selects the row path: a and b are rows of hv
     * WK_UNARY_VEC_BYTES vectors, row r starting rs elements after row r-1, every pointer and row start
     * WK_UNARY_VEC_BYTES-aligned; dv divides by hv when n / (vector elements) < 2^31. */
    const void *x2;
    int64_t hv, rs;
    wk_gpu_divisor dv;
} wk_gpu_unary_args;

/* Signed ints and floats: the dtypes neg takes (slot = wk_dtype). */
#define WK_AX_UNARY_SIGNED(Y, N, ...)                                                                             \
    N(_u8, uint8_t, __VA_ARGS__) N(_u32, uint32_t, __VA_ARGS__) Y(_i32, int32_t, __VA_ARGS__)                     \
    Y(_i64, int64_t, __VA_ARGS__) Y(_f16, wk_f16, __VA_ARGS__) Y(_bf16, wk_bf16, __VA_ARGS__)                    \
    Y(_f32, float, __VA_ARGS__) Y(_f64, double, __VA_ARGS__)

/* Every wk_unary_op, Y(X, OP, name, dtypes): its enum suffix (WK_UNARY_<OP>), its name, the dtype axis its set
 * unary_<name> builds. One set per op, not an op axis, because the ops take different dtypes; gpu/unary.c's
 * switch from op to set is generated from the same list. */
#define WK_UNARY_OPS(Y, X)                                                                                        \
    Y(X, EXP, exp, DT_FLOAT) Y(X, LOG, log, DT_FLOAT) Y(X, SIN, sin, DT_FLOAT) Y(X, COS, cos, DT_FLOAT)           \
    Y(X, TANH, tanh, DT_FLOAT) Y(X, ERF, erf, DT_FLOAT) Y(X, RECIP, recip, DT_FLOAT)                              \
    Y(X, SQRT, sqrt, DT_FLOAT) Y(X, GELU, gelu, DT_FLOAT) Y(X, GELU_ERF, gelu_erf, DT_FLOAT)                      \
    Y(X, SILU, silu, DT_FLOAT) Y(X, SIGMOID, sigmoid, DT_FLOAT) Y(X, CEIL, ceil, DT_FLOAT)                        \
    Y(X, FLOOR, floor, DT_FLOAT) Y(X, ROUND, round, DT_FLOAT) Y(X, SQR, sqr, DT_ALL) Y(X, ABS, abs, DT_ALL)      \
    Y(X, NEG, neg, UNARY_SIGNED) Y(X, RELU, relu, DT_ALL) Y(X, SIGN, sign, DT_ALL)                            \
    Y(X, SOFTPLUS, softplus, DT_FLOAT) Y(X, MISH, mish, DT_FLOAT) Y(X, HARDSWISH, hardswish, DT_FLOAT)            \
    Y(X, HARDSIGMOID, hardsigmoid, DT_FLOAT)
#define WK_UNARY_OP_SET_(X, OP, name, AX) X(unary, unary_##name, wk_gpu_unary_args, AX, NONE, ONE, )

/* The glu kinds as an axis, slot = wk_glu_kind; the item is the kind's functor in unary.cu. */
#define WK_AX_GLU_KINDS(Y, N, ...)                                                                                \
    Y(_glu, un_glu_sigmoid, __VA_ARGS__) Y(_swiglu, un_glu_swiglu, __VA_ARGS__)                                   \
    Y(_geglu, un_glu_geglu, __VA_ARGS__) Y(_geglu_tanh, un_glu_geglu_tanh, __VA_ARGS__)

/* unary_<op>_<dtype>, affine_<dtype>, clamp_<dtype>, powf_<dtype>, elu_<dtype>, leaky_relu_<dtype>,
 * glu_<kind>_<dtype>. */
#define WK_UNARY_KERNELS(X)                                                                                       \
    WK_UNARY_OPS(WK_UNARY_OP_SET_, X)                                                                             \
    X(unary, affine, wk_gpu_unary_args, DT_ALL, NONE, ONE, )                                                      \
    X(unary, clamp, wk_gpu_unary_args, DT_ALL, NONE, ONE, )                                                       \
    X(unary, powf, wk_gpu_unary_args, DT_FLOAT, NONE, ONE, )                                                      \
    X(unary, elu, wk_gpu_unary_args, DT_FLOAT, NONE, ONE, )                                                       \
    X(unary, leaky_relu, wk_gpu_unary_args, DT_FLOAT, NONE, ONE, )                                                \
    X(unary, glu, wk_gpu_unary_args, GLU_KINDS, DT_FLOAT, ONE, )

#endif
