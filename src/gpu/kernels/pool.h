/* pool.h: the pooling family's interface (kernels/pool.cu, gpu/pool.c): max pooling (every dtype) and average
 * pooling (float) over strided NCHW input, one thread per output element. */
#ifndef WK_GPU_KERNELS_POOL_H
#define WK_GPU_KERNELS_POOL_H

#include "entries.h"
#include "../layout.h"

typedef struct wk_gpu_pool_args {
    const void *x;                  /* (N, C, H, W), strides sN, sC, sH, sW in elements */
    void *out;                      /* (N, C, OH, OW), contiguous: n elements */
    int64_t n, C, H, W, OH, OW;
    int64_t sN, sC, sH, sW;
    int64_t kh, kw, sth, stw, ph, pw; /* window, stride, padding */
    int32_t count_include_pad;      /* avg only */
    int32_t narrow;                 /* 1: every index, offset and window bound below 2^31 (32-bit path) */
    wk_gpu_divisor ow, oh, c;       /* the narrow path's divisors OW, OH, C */
} wk_gpu_pool_args;

#define WK_POOL_KERNELS(X)                                                                                        \
    X(pool, pool_max, wk_gpu_pool_args, DT_ALL, NONE, ONE, )                                                        \
    X(pool, pool_avg, wk_gpu_pool_args, DT_FLOAT, NONE, ONE, )

#endif
