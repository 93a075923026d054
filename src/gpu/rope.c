/* rope.c: the GPU's rotary embedding slot (kinds as backend.h): one kernel per float dtype over every
 * rotated pair, reading x and the cos/sin tables through their strides. */
#include <stdio.h>

#include "gpu/gpu.h"

wk_status wk_gpu_rope(int kind, const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int64_t d1 = x->shape[1], d2 = x->shape[2], half = x->shape[3] / 2;
    int64_t n = x->shape[0] * d1 * d2 * half;
    if (n == 0)
        return WK_OK;
    const int64_t *xs = x->strides;
    int64_t xs0 = xs[0], xs1 = xs[1], xs2 = xs[2], xs3 = xs[3];
    int64_t cs0 = cos->strides[0], cs1 = cos->strides[1], ss0 = sin->strides[0], ss1 = sin->strides[1];
    const void *px = wk_tensor_data(x), *pc = wk_tensor_data(cos), *ps = wk_tensor_data(sin);
    void *po = wk_tensor_data(out);
    char name[64];
    snprintf(name, sizeof name, "rope_%s", wk_gpu_sfx(x->dtype));
    unsigned threads = 256;
    void *args[] = {&kind, &px, &xs0, &xs1, &xs2, &xs3, &pc, &cs0, &cs1, &ps, &ss0, &ss1, &po, &d1, &d2, &half, &n};
    return wk_gpu_launch_named(d, name, (wk_gpu_dim){wk_gpu_blocks(d, n, threads), 1, 1}, (wk_gpu_dim){threads, 1, 1}, 0,
                         args);
}
