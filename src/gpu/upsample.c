/* upsample.c: the GPU upsample slots: nearest (NCL / NCHW, every dtype) and bilinear (NCHW, float) over
 * strided input (kernels/upsample.cu); scales and ratios rounded here exactly as cpu/upsample.c rounds them. */
#include <stdio.h>

#include "gpu/gpu.h"

/* What both kernels take: x's NCHW view (1-D: H = 1, stride 0), out's sizes, the divisors' magic. */
typedef struct up_call {
    int64_t n, C, H, W, OH, OW, sN, sC, sH, sW;
    int32_t narrow; /* nearest's 32-bit path: every size < 2^24, every offset < 2^31 */
    uint32_t m_ow, s_ow, m_oh, s_oh, m_c, s_c;
} up_call;

static up_call up_call_of(const wk_tensor *x, const wk_tensor *out)
{
    int last = x->rank - 1;
    bool is1d = x->rank == 3;
    up_call c = {.n = wk_numel(out->rank, out->shape), .C = x->shape[1], .H = is1d ? 1 : x->shape[2],
                 .W = x->shape[last], .OH = is1d ? 1 : out->shape[2], .OW = out->shape[last],
                 .sN = x->strides[0], .sC = x->strides[1], .sH = is1d ? 0 : x->strides[2], .sW = x->strides[last]};
    const int64_t lim = (int64_t)1 << 24;
    int64_t max_off = (out->shape[0] - 1) * c.sN + (c.C - 1) * c.sC + (c.H - 1) * c.sH + (c.W - 1) * c.sW;
    c.narrow = c.n <= INT32_MAX && max_off <= INT32_MAX && c.H < lim && c.W < lim && c.OH < lim && c.OW < lim;
    if (c.n > 0 && c.n <= INT32_MAX) { /* the kernels divide with these while n < 2^31 (OW, OH, C <= n) */
        wk_gpu_div_magic(c.OW, &c.m_ow, &c.s_ow);
        wk_gpu_div_magic(c.OH, &c.m_oh, &c.s_oh);
        wk_gpu_div_magic(c.C, &c.m_c, &c.s_c);
    }
    return c;
}

wk_status wk_gpu_upsample_nearest(const wk_tensor *x, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    up_call c = up_call_of(x, out);
    if (c.n == 0)
        return WK_OK;
    const void *px = wk_tensor_data(x);
    void *po = wk_tensor_data(out);
    /* PyTorch's nearest scale, in / out rounded to float (cpu/upsample.c nearest_axis) */
    float scale_h = (float)c.H / (float)c.OH, scale_w = (float)c.W / (float)c.OW;
    /* Outputs per thread: the widest store of at most 16 bytes that rows hold whole and out is aligned to. */
    int64_t es = (int64_t)wk_dtype_size(x->dtype), bytes = 16;
    while (bytes > es && ((c.OW * es) % bytes != 0 || (uintptr_t)po % (uintptr_t)bytes != 0))
        bytes /= 2;
    int32_t vec = bytes > es ? (int32_t)(bytes / es) : 1;
    char name[64];
    snprintf(name, sizeof name, "upsample_nearest_%s", wk_gpu_sfx(x->dtype));
    void *args[] = {&px, &po, &c.n, &c.C, &c.H, &c.W, &c.OH, &c.OW, &c.sN, &c.sC, &c.sH, &c.sW, &scale_h,
                    &scale_w, &vec, &c.narrow, &c.m_ow, &c.s_ow, &c.m_oh, &c.s_oh, &c.m_c, &c.s_c};
    unsigned threads = 256;
    return wk_gpu_launch_named(d, name, (wk_gpu_dim){wk_gpu_blocks(d, c.n / vec, threads), 1, 1},
                         (wk_gpu_dim){threads, 1, 1}, 0, args);
}

/* The source step of one axis in the op's opmath type (float, or double for f64), as cpu/upsample.c
 * LINEAR_AXIS: (in-1)/(out-1) with align_corners (0 for one output), else 1/scale or in/out. */
static double up_ratio(int64_t in, int64_t out, bool align, double scale, bool single)
{
    if (single) {
        if (align)
            return out > 1 ? (double)((float)(in - 1) / (float)(out - 1)) : 0.0;
        return scale > 0 ? (double)(float)(1.0 / scale) : (double)((float)in / (float)out);
    }
    if (align)
        return out > 1 ? (double)(in - 1) / (double)(out - 1) : 0.0;
    return scale > 0 ? 1.0 / scale : (double)in / (double)out;
}

wk_status wk_gpu_upsample_bilinear2d(const wk_tensor *x, bool align_corners, double scale_h, double scale_w,
                                     wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    up_call c = up_call_of(x, out);
    if (c.n == 0)
        return WK_OK;
    const void *px = wk_tensor_data(x);
    void *po = wk_tensor_data(out);
    bool single = x->dtype != WK_F64;
    double ratio_h = up_ratio(c.H, c.OH, align_corners, scale_h, single);
    double ratio_w = up_ratio(c.W, c.OW, align_corners, scale_w, single);
    int32_t align = align_corners ? 1 : 0;
    char name[64];
    snprintf(name, sizeof name, "upsample_bilinear_%s", wk_gpu_sfx(x->dtype));
    void *args[] = {&px, &po, &c.n, &c.C, &c.H, &c.W, &c.OH, &c.OW, &c.sN, &c.sC, &c.sH, &c.sW, &ratio_h,
                    &ratio_w, &align, &c.m_ow, &c.s_ow, &c.m_oh, &c.s_oh, &c.m_c, &c.s_c};
    unsigned threads = 256;
    return wk_gpu_launch_named(d, name, (wk_gpu_dim){wk_gpu_blocks(d, c.n, threads), 1, 1}, (wk_gpu_dim){threads, 1, 1},
                         0, args);
}
