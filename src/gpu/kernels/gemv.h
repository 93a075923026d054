/* gemv.h: the matrix-vector family's interface (kernels/gemv.cu, gpu/matmul.c): out = x w^T for one row of x
 * (decode) and a float weight matrix w stored by rows (N, K), the form of a linear layer's weight. Groups of lpr
 * lanes own one or two rows of w each and read them once, in 16-byte vectors, x from L1; f32 sums. (Measured on an
 * H100, the same kernel for 4 or 8 rows of x was slower than cuBLAS's tensor-core GEMM: x's loads from L1 bound it.) */
#ifndef WK_GPU_KERNELS_GEMV_H
#define WK_GPU_KERNELS_GEMV_H

#include "entries.h"
#include "linear.h"

#define GV_BLOCK 256 /* threads a block */

typedef struct wk_gpu_gemv_args {
    const void *w;   /* (N, K): rows ldw elements apart, unit stride along K; base and rows 16-byte aligned */
    const void *x;   /* (K): unit stride, 16-byte aligned */
    void *out;       /* (N): unit stride */
    int64_t N, K;    /* K a multiple of the elements in 16 bytes */
    int64_t ldw;
    int64_t lpr;     /* lanes a group of rows of w (a power of two, at most the logical warp) */
    wk_gpu_linear_epi epi; /* wk_linear's steps around the product (glu: the two-row variant); zero: none */
} wk_gpu_gemv_args;

/* f16, bf16, f32 (slots as wk_dtype's). */
#define WK_AX_GV_DT(Y, N, ...)                                                                                    \
    N(_u8, uint8_t, __VA_ARGS__) N(_u32, uint32_t, __VA_ARGS__) N(_i32, int32_t, __VA_ARGS__)                     \
    N(_i64, int64_t, __VA_ARGS__) Y(_f16, wk_f16, __VA_ARGS__) Y(_bf16, wk_bf16, __VA_ARGS__)                    \
    Y(_f32, float, __VA_ARGS__) N(_f64, double, __VA_ARGS__)

/* Rows of w a group owns, a compile-time variant: slot 0 one, slot 1 two. */
#define WK_BX_GV_ROWS(Y, N, ...) Y(_r1, 1, __VA_ARGS__) Y(_r2, 2, __VA_ARGS__)

/* "gemv_bf16_r2_w64": dtype (A), rows of w a group (B), width. */
#define WK_GEMV_KERNELS(X) X(gemv, gemv, wk_gpu_gemv_args, GV_DT, GV_ROWS, WIDTHS, __launch_bounds__(GV_BLOCK))

#endif
