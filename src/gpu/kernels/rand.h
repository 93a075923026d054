/* rand.h: the rand family's interface (kernels/rand.cu, gpu/rand.c): uniform and normal values of float dtypes
 * from Philox4x32-10 with cpu/rand.c's recipe, one Philox block per thread and step. */
#ifndef WK_GPU_KERNELS_RAND_H
#define WK_GPU_KERNELS_RAND_H

#include "entries.h"
#include "../layout.h"

/* Values per Philox block (four 32-bit words): 4 when computed in f32 (f32, f16, bf16), 2 for f64 (53-bit
 * uniforms take two words each). The host counts blocks with it, the kernels index with it. */
#define WK_RAND_PER_BLOCK(is_f64) ((is_f64) ? 2 : 4)

typedef struct wk_gpu_rand_args {
    void *dst;     /* n elements, contiguous */
    int64_t n;     /* elements of dst */
    uint64_t seed; /* Philox key; the counter is the block's index */
    double a, b;   /* uniform: lo, hi; normal: mean, std */
} wk_gpu_rand_args;

#define WK_RAND_KERNELS(X)                                                                                        \
    X(rand, rand_uniform, wk_gpu_rand_args, DT_FLOAT, NONE, ONE, )                                                \
    X(rand, rand_normal, wk_gpu_rand_args, DT_FLOAT, NONE, ONE, )

#endif
