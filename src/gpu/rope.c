/* rope.c: the GPU's rotary embedding slot: one kernel per kind and float dtype over every rotated pair, reading x
 * and the cos/sin tables through their strides. */
#include "gpu/gpu.h"

_Static_assert(WK_ROPE_HALVES == 0 && WK_ROPE_INTERLEAVED == 1 && WK_ROPE_THD == 2,
               "the kinds are the slots of kernels/rope.h's axis");

wk_status wk_gpu_rope(wk_rope_kind kind, const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin,
                      wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int64_t d1 = x->shape[1], d2 = x->shape[2], half = x->shape[3] / 2;
    int64_t n = x->shape[0] * d1 * d2 * half;
    const int64_t *xs = x->strides;
    wk_gpu_rope_args q = {
        .x = wk_tensor_data(x), .cosv = wk_tensor_data(cos), .sinv = wk_tensor_data(sin), .out = wk_tensor_data(out),
        .xs0 = xs[0], .xs1 = xs[1], .xs2 = xs[2], .xs3 = xs[3],
        .cs0 = cos->strides[0], .cs1 = cos->strides[1], .ss0 = sin->strides[0], .ss1 = sin->strides[1],
        .d1 = d1, .d2 = d2, .half = half, .n = n,
    };
    unsigned threads = 256;
    wk_gpu_dim grid = {wk_gpu_blocks(d, n, threads), 1, 1}, block = {threads, 1, 1};
    return WK_GPU_LAUNCH(d, rope, kind, x->dtype, 0, grid, block, 0, q);
}
