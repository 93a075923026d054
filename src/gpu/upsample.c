/* upsample.c: the GPU upsample slots: nearest (NCL / NCHW, every dtype) and bilinear (NCHW, float) over
 * strided input (kernels/upsample.cu); scales and ratios rounded here exactly as cpu/upsample.c rounds them. */
#include "gpu/gpu.h"

/* What both kernels take: x's NCHW view (1-D: H = 1, stride 0), out's sizes, the divisors. */
static wk_gpu_upsample_args up_args_of(const wk_tensor *x, const wk_tensor *out)
{
    int last = x->rank - 1;
    bool is1d = x->rank == 3;
    wk_gpu_upsample_args q = {
        .x = wk_tensor_data(x), .out = wk_tensor_data(out), .n = wk_numel(out->rank, out->shape),
        .C = x->shape[1], .H = is1d ? 1 : x->shape[2], .W = x->shape[last],
        .OH = is1d ? 1 : out->shape[2], .OW = out->shape[last],
        .sN = x->strides[0], .sC = x->strides[1], .sH = is1d ? 0 : x->strides[2], .sW = x->strides[last],
    };
    const int64_t lim = WK_UPSAMPLE_NARROW_LIM;
    int64_t max_off = (out->shape[0] - 1) * q.sN + (q.C - 1) * q.sC + (q.H - 1) * q.sH + (q.W - 1) * q.sW;
    q.narrow = q.n <= INT32_MAX && max_off <= INT32_MAX && q.H < lim && q.W < lim && q.OH < lim && q.OW < lim;
    if (q.n > 0 && q.n <= INT32_MAX) { /* the kernels divide with these while n < 2^31 (OW, OH, C <= n) */
        q.ow = wk_gpu_divisor_of(q.OW);
        q.oh = wk_gpu_divisor_of(q.OH);
        q.c = wk_gpu_divisor_of(q.C);
    }
    return q;
}

wk_status wk_gpu_upsample_nearest(const wk_tensor *x, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    wk_gpu_upsample_args q = up_args_of(x, out);
    /* PyTorch's nearest scale, in / out rounded to float (cpu/upsample.c nearest_axis) */
    q.scale_h = (float)q.H / (float)q.OH;
    q.scale_w = (float)q.W / (float)q.OW;
    /* Outputs per thread: the widest store of at most WK_UPSAMPLE_VEC_BYTES that rows hold whole and out is
     * aligned to. */
    int64_t es = (int64_t)wk_dtype_size(x->dtype), bytes = WK_UPSAMPLE_VEC_BYTES;
    while (bytes > es && ((q.OW * es) % bytes != 0 || (uintptr_t)q.out % (uintptr_t)bytes != 0))
        bytes /= 2;
    q.vec = bytes > es ? (int32_t)(bytes / es) : 1;
    unsigned threads = 256;
    wk_gpu_dim grid = {wk_gpu_blocks(d, q.n / q.vec, threads), 1, 1}, block = {threads, 1, 1};
    return WK_GPU_LAUNCH(d, upsample_nearest, x->dtype, 0, 0, grid, block, 0, q);
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
    wk_gpu_upsample_args q = up_args_of(x, out);
    bool single = x->dtype != WK_F64;
    q.ratio_h = up_ratio(q.H, q.OH, align_corners, scale_h, single);
    q.ratio_w = up_ratio(q.W, q.OW, align_corners, scale_w, single);
    q.align = align_corners ? 1 : 0;
    unsigned threads = 256;
    wk_gpu_dim grid = {wk_gpu_blocks(d, q.n, threads), 1, 1}, block = {threads, 1, 1};
    return WK_GPU_LAUNCH(d, upsample_bilinear, x->dtype, 0, 0, grid, block, 0, q);
}
