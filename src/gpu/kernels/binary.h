/* binary.h: the binary family's interface (kernels/binary.cu, gpu/binary.c): element-wise binary ops and
 * comparisons of two inputs, and where's selection among three, each input broadcast to out's shape. */
#ifndef WK_GPU_KERNELS_BINARY_H
#define WK_GPU_KERNELS_BINARY_H

#include "entries.h"
#include "../layout.h"

/* Bytes of out each thread makes on the vector path, and the alignment that path needs of every pointer: the
 * host sizes its grid by it (any grid is correct, but one sized for the other path leaves threads idle). */
#define WK_BINARY_VEC_BYTES 16

typedef struct wk_gpu_binary_args {
    const void *in[3];        /* binary, compare: a, b; where: cond, t, f (already broadcast to out's shape) */
    wk_gpu_layout lin[3];     /* their layouts over out's shape (elements); unused ones zero */
    void *out;                /* contiguous: n elements (u8 for compare) */
    int64_t n;
} wk_gpu_binary_args;

/* The ops as an axis, slot = wk_binary_op (resp. wk_compare_op); the item is the op's functor in binary.cu. */
#define WK_AX_BINARY_OPS(Y, N, ...)                                                                               \
    Y(_add, bn_add, __VA_ARGS__) Y(_sub, bn_sub, __VA_ARGS__) Y(_mul, bn_mul, __VA_ARGS__)                        \
    Y(_div, bn_div, __VA_ARGS__) Y(_maximum, bn_maximum, __VA_ARGS__) Y(_minimum, bn_minimum, __VA_ARGS__)
#define WK_AX_COMPARE_OPS(Y, N, ...)                                                                              \
    Y(_eq, bn_eq, __VA_ARGS__) Y(_ne, bn_ne, __VA_ARGS__) Y(_lt, bn_lt, __VA_ARGS__) Y(_le, bn_le, __VA_ARGS__)   \
    Y(_gt, bn_gt, __VA_ARGS__) Y(_ge, bn_ge, __VA_ARGS__)

/* where's condition dtypes, slot = wk_dtype: u8, u32, i64 (i32 is not a condition dtype: not built). */
#define WK_AX_WHERE_COND(Y, N, ...)                                                                               \
    Y(_u8, uint8_t, __VA_ARGS__) Y(_u32, uint32_t, __VA_ARGS__) N(_i32, int32_t, __VA_ARGS__)                     \
    Y(_i64, int64_t, __VA_ARGS__)

/* binary_<op>_<dtype>, compare_<op>_<dtype> (a, b of dtype, u8 out), where_<cond dtype>_<value dtype>. */
#define WK_BINARY_KERNELS(X)                                                                                      \
    X(binary, binary, wk_gpu_binary_args, BINARY_OPS, DT_ALL, ONE, )                                              \
    X(binary, compare, wk_gpu_binary_args, COMPARE_OPS, DT_ALL, ONE, )                                            \
    X(binary, where, wk_gpu_binary_args, WHERE_COND, DT_ALL, ONE, )

#endif
