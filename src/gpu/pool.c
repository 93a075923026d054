/* pool.c: the GPU pool2d slot: max (every dtype) and avg (float) pooling of strided NCHW input, one thread
 * per output element (kernels/pool.cu); windows, divisors and NaN rule as cpu/pool.c. */
#include <stdio.h>

#include "gpu/gpu.h"

wk_status wk_gpu_pool2d(wk_reduce_op op, const wk_tensor *x, const wk_pool_params *p, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int64_t n = wk_numel(out->rank, out->shape);
    if (n == 0)
        return WK_OK;
    const void *px = wk_tensor_data(x);
    void *po = wk_tensor_data(out);
    int64_t C = x->shape[1], H = x->shape[2], W = x->shape[3], OH = out->shape[2], OW = out->shape[3];
    int64_t sN = x->strides[0], sC = x->strides[1], sH = x->strides[2], sW = x->strides[3];
    int64_t kh = p->kernel[0], kw = p->kernel[1], sth = p->stride[0], stw = p->stride[1];
    int64_t ph = p->padding[0], pw = p->padding[1];
    int32_t cip = p->count_include_pad ? 1 : 0;
    /* the 32-bit path: every output index, input offset and window bound below 2^31 (the bounds here leave
     * room for the window arithmetic: o*stride - pad + kernel, in + pad) */
    const int64_t lim = (int64_t)1 << 28;
    int64_t max_off = (out->shape[0] - 1) * sN + (C - 1) * sC + (H - 1) * sH + (W - 1) * sW;
    int32_t narrow = n <= INT32_MAX && max_off <= INT32_MAX && H <= lim && W <= lim && kh <= lim && kw <= lim &&
                     sth <= lim / OH && stw <= lim / OW;
    uint32_t m_ow = 0, s_ow = 0, m_oh = 0, s_oh = 0, m_c = 0, s_c = 0;
    if (narrow) { /* OW, OH, C <= n < 2^31 */
        wk_gpu_div_magic(OW, &m_ow, &s_ow);
        wk_gpu_div_magic(OH, &m_oh, &s_oh);
        wk_gpu_div_magic(C, &m_c, &s_c);
    }
    char name[64];
    snprintf(name, sizeof name, "pool_%s_%s", op == WK_REDUCE_MAX ? "max" : "avg", wk_gpu_sfx(x->dtype));
    void *args[] = {&px, &po, &n, &C, &H, &W, &OH, &OW, &sN, &sC, &sH, &sW, &kh, &kw, &sth, &stw, &ph, &pw,
                    &cip, &narrow, &m_ow, &s_ow, &m_oh, &s_oh, &m_c, &s_c};
    unsigned threads = 256;
    return wk_gpu_launch(d, name, (wk_gpu_dim){wk_gpu_blocks(d, n, threads), 1, 1}, (wk_gpu_dim){threads, 1, 1},
                         0, args);
}
