/* rand.c: the GPU's rand_uniform / rand_normal slots: one thread per Philox4x32-10 block (4 values for
 * f32/f16/bf16, 2 for f64) with the recipe of cpu/rand.c, launched as rand_<kind>_<dtype> (kernels/rand.cu). */
#include <stdio.h>

#include "gpu/gpu.h"

#define RAND_THREADS 256

static wk_status rand_run(const char *kind, wk_tensor *dst, uint64_t seed, double a, double b)
{
    wk_gpu_dev *d = wk_gpu_dev_of(dst);
    int64_t n = wk_numel(dst->rank, dst->shape);
    if (n == 0)
        return WK_OK;
    int64_t per = dst->dtype == WK_F64 ? 2 : 4, blocks = (n + per - 1) / per;
    void *p = wk_tensor_data(dst);
    char name[32];
    snprintf(name, sizeof name, "rand_%s_%s", kind, wk_gpu_sfx(dst->dtype));
    void *args[] = {&p, &n, &seed, &a, &b};
    return wk_gpu_launch_named(d, name, (wk_gpu_dim){wk_gpu_blocks(d, blocks, RAND_THREADS), 1, 1},
                         (wk_gpu_dim){RAND_THREADS, 1, 1}, 0, args);
}

wk_status wk_gpu_rand_uniform(wk_tensor *dst, uint64_t seed, double lo, double hi)
{
    return rand_run("uniform", dst, seed, lo, hi);
}

wk_status wk_gpu_rand_normal(wk_tensor *dst, uint64_t seed, double mean, double std)
{
    return rand_run("normal", dst, seed, mean, std);
}
