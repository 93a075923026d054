/* gemm.h: what the BLAS-backed CPU slots (matmul.c, conv.c) share: the OpenBLAS call in the compute type,
 * packing strided operands into it, rounding results back to f16/bf16 (gemm.c), im2col/col2im and the
 * depthwise plane kernel (conv_im2col.c). */
#ifndef WK_CPU_GEMM_H
#define WK_CPU_GEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu/cpu.h"

/* The dtype BLAS computes a storage dtype in: f64 stays f64, everything else runs as f32. */
static inline wk_dtype wk_gemm_compute_dtype(wk_dtype dt) { return dt == WK_F64 ? WK_F64 : WK_F32; }

/* Runs body over [0, n) for the passes between GEMMs (pack, store, im2col, col2im): threaded through
 * wk_cpu_parallel_for when OpenBLAS is its OpenMP build (one thread pool), else on the calling thread.
 * With the pthreads build an OpenMP region just before a GEMM leaves libgomp's workers spinning on the
 * cores OpenBLAS needs: on 16 cores, conv2d N=8 C=O=64 56x56 3x3 f32 ran at 13 GFLOP/s with a threaded
 * im2col, 150-220 GFLOP/s with a serial one. Serial too inside a parallel region. body must not call BLAS. */
void wk_gemm_for(int64_t n, int64_t grain, wk_range_fn body, void *ctx);

/* Whether OpenBLAS's kernel set `core` is one of its SSE-era ones (its fallback on a CPU model it does not know). */
bool wk_gemm_old_core(const char *core);
/* Whether libwick's load-time switch (gemm.c) can move this OpenBLAS to the set the CPU's features allow (x86-64, a
 * DYNAMIC_ARCH build holding that set, a CPU with AVX2 and FMA). */
bool wk_gemm_switchable(void);
/* OpenBLAS's kernel set ("Haswell", "SkylakeX", ...); *replaced: the old set OpenBLAS had taken, which
 * the switch at libwick's load replaced, or NULL. */
const char *wk_gemm_core(const char **replaced);

/* Largest dimension or leading dimension OpenBLAS's 32-bit blasint accepts. */
#define WK_GEMM_MAX_DIM 2147483647

/* Row-major C (m x n, leading dim ldc) = op(A) op(B) (+ C when accumulate) in compute dtype ct (f32 or f64),
 * threaded by OpenBLAS. Never called from inside an OpenMP parallel region. */
void wk_gemm(wk_dtype ct, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
             const void *b, int64_t ldb, void *c, int64_t ldc, bool accumulate);

/* dst (rows x cols, row-major, contiguous, compute dtype of dt) = the strided matrix src of storage dtype dt:
 * element (r, c) at src + (r*rs + c*cs) elements. */
void wk_gemm_pack(wk_dtype dt, const void *src, int64_t rows, int64_t cols, int64_t rs, int64_t cs, void *dst);

/* dst[i] = round(src[i] + (bias ? bias[i / per_bias % nbias] : 0)) for i < n: f32 compute values stored
 * as f16/bf16 (dt), or with dt f32/f64 the same type written in place (src == dst allowed). */
void wk_gemm_store(wk_dtype dt, const void *src, void *dst, int64_t n, const void *bias, int64_t per_bias,
                   int64_t nbias);

/* Convolution geometry between a "big" and a "small" spatial grid: big index = small index * stride
 * - pad + k * dil. Forward convolution reads the input as big; the transposed one writes the output as big.
 * 1-D ops use h sizes of 1 (kh 1, stride/dil 1, pad 0). */
typedef struct wk_conv_geom {
    int64_t channels;          /* channels of the big tensor covered (col has channels*kh*kw rows) */
    int64_t big_h, big_w;
    int64_t small_h, small_w;  /* col has small_h*small_w columns */
    int64_t kh, kw;
    int64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
} wk_conv_geom;

/* col (channels*kh*kw x small_h*small_w, contiguous, compute dtype of dt) from the big tensor of storage
 * dtype dt at `big` with element strides (sc, sh, sw); taps outside it read 0. */
void wk_im2col(const wk_conv_geom *g, wk_dtype dt, const void *big, int64_t sc, int64_t sh, int64_t sw,
               void *col);
/* big (channels x big_h x big_w, contiguous, compute dtype ct) += scatter of col. */
void wk_col2im(const wk_conv_geom *g, wk_dtype ct, const void *col, void *big);

/* One plane pair of a convolution in which every output plane reads a single input plane (one input
 * channel per group), compute dtype ct, planes contiguous, w the plane's kh*kw taps. Forward (big = x,
 * small = out): out[s] += w[t] * x[s*stride - pad + t*dil]; transposed (big = out, small = x):
 * out[s*stride - pad + t*dil] += w[t] * x[s]. */
void wk_conv_plane(const wk_conv_geom *g, wk_dtype ct, bool transposed, const void *x, const void *w, void *out);

/* dst[i] = (float)src[i*stride] for i < n; dt is f16, bf16 or f32. */
static inline void wk_load_run_f32(wk_dtype dt, const void *src, int64_t stride, int64_t n, float *dst)
{
    switch (dt) {
    case WK_F16: {
        const wk_f16_t *s = src;
        for (int64_t i = 0; i < n; i++)
            dst[i] = wk_ld_f16(s + i * stride);
        break;
    }
    case WK_BF16: {
        const wk_bf16_t *s = src;
        for (int64_t i = 0; i < n; i++)
            dst[i] = wk_ld_bf16(s + i * stride);
        break;
    }
    default: {
        const float *s = src;
        if (stride == 1)
            for (int64_t i = 0; i < n; i++)
                dst[i] = s[i];
        else
            for (int64_t i = 0; i < n; i++)
                dst[i] = s[i * stride];
    }
    }
}

static inline void wk_load_run_f64(const double *src, int64_t stride, int64_t n, double *dst)
{
    if (stride == 1)
        for (int64_t i = 0; i < n; i++)
            dst[i] = src[i];
    else
        for (int64_t i = 0; i < n; i++)
            dst[i] = src[i * stride];
}

/* A run of n elements of storage dtype dt into the compute type (f32, or f64 for f64). */
static inline void wk_load_run(wk_dtype dt, const void *src, int64_t stride, int64_t n, void *dst)
{
    if (dt == WK_F64)
        wk_load_run_f64(src, stride, n, dst);
    else
        wk_load_run_f32(dt, src, stride, n, dst);
}

#endif
