/* rand.c: the GPU's rand_uniform / rand_normal slots: one thread per Philox4x32-10 block (4 values for
 * f32/f16/bf16, 2 for f64) with the recipe of cpu/rand.c, launched as rand_<kind>_<dtype> (kernels/rand.cu). */
#include "gpu/gpu.h"

#define RAND_THREADS 256

static wk_status rand_run(bool normal, wk_tensor *dst, uint64_t seed, double a, double b)
{
    wk_gpu_dev *d = wk_gpu_dev_of(dst);
    int64_t n = wk_numel(dst->rank, dst->shape);
    int64_t per = WK_RAND_PER_BLOCK(dst->dtype == WK_F64), blocks = (n + per - 1) / per;
    wk_gpu_rand_args q = {.dst = wk_tensor_data(dst), .n = n, .seed = seed, .a = a, .b = b};
    wk_gpu_dim grid = {wk_gpu_blocks(d, blocks, RAND_THREADS), 1, 1}, block = {RAND_THREADS, 1, 1};
    if (normal)
        return WK_GPU_LAUNCH(d, rand_normal, dst->dtype, 0, 0, grid, block, 0, q);
    return WK_GPU_LAUNCH(d, rand_uniform, dst->dtype, 0, 0, grid, block, 0, q);
}

wk_status wk_gpu_rand_uniform(wk_tensor *dst, uint64_t seed, double lo, double hi)
{
    return rand_run(false, dst, seed, lo, hi);
}

wk_status wk_gpu_rand_normal(wk_tensor *dst, uint64_t seed, double mean, double std)
{
    return rand_run(true, dst, seed, mean, std);
}
