/* upsample.h: the upsample family's interface (kernels/upsample.cu, gpu/upsample.c): nearest (NCL / NCHW, every
 * dtype) and bilinear (NCHW, float) resampling of strided input, one thread per output (or output vector). */
#ifndef WK_GPU_KERNELS_UPSAMPLE_H
#define WK_GPU_KERNELS_UPSAMPLE_H

#include "entries.h"
#include "../layout.h"

/* Nearest's widest store per thread, in bytes: the kernel builds vectors of up to this many bytes. */
#define WK_UPSAMPLE_VEC_BYTES 16
/* Nearest's 32-bit path needs every spatial size below this: output columns and rows, and in - 1, are then
 * exact floats, so the int32 source index equals PyTorch's float one. */
#define WK_UPSAMPLE_NARROW_LIM ((int64_t)1 << 24)

typedef struct wk_gpu_upsample_args {
    const void *x;            /* (N, C, H, W), strides sN, sC, sH, sW in elements (1-D: H = 1, sH = 0) */
    void *out;                /* (N, C, OH, OW), contiguous: n elements (1-D: OH = 1) */
    int64_t n, C, H, W, OH, OW;
    int64_t sN, sC, sH, sW;
    float scale_h, scale_w;   /* nearest: in / out per axis, rounded to float as PyTorch does */
    int32_t vec;              /* nearest: outputs per thread, 1 or a power of two up to WK_UPSAMPLE_VEC_BYTES */
    int32_t narrow;           /* nearest: 1 for the 32-bit path (sizes < WK_UPSAMPLE_NARROW_LIM, offsets < 2^31) */
    wk_gpu_divisor ow, oh, c; /* the divisors OW, OH, C; set whenever n < 2^31 (both kernels divide with them then) */
    int32_t align;            /* bilinear: align_corners */
    double ratio_h, ratio_w;  /* bilinear: the source step per axis in the opmath type, held exactly as double */
} wk_gpu_upsample_args;

#define WK_UPSAMPLE_KERNELS(X)                                                                                    \
    X(upsample, upsample_nearest, wk_gpu_upsample_args, DT_ALL, NONE, ONE, )                                       \
    X(upsample, upsample_bilinear, wk_gpu_upsample_args, DT_FLOAT, NONE, ONE, )

#endif
