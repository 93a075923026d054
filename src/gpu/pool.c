/* pool.c: the GPU pool2d slot: max (every dtype) and avg (float) pooling of strided NCHW input, one thread
 * per output element (kernels/pool.cu); windows, divisors and NaN rule as cpu/pool.c. */
#include "gpu/gpu.h"

wk_status wk_gpu_pool2d(wk_reduce_op op, const wk_tensor *x, const wk_pool_params *p, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int64_t n = wk_numel(out->rank, out->shape);
    wk_gpu_pool_args q = {
        .x = wk_tensor_data(x), .out = wk_tensor_data(out), .n = n,
        .C = x->shape[1], .H = x->shape[2], .W = x->shape[3], .OH = out->shape[2], .OW = out->shape[3],
        .sN = x->strides[0], .sC = x->strides[1], .sH = x->strides[2], .sW = x->strides[3],
        .kh = p->kernel[0], .kw = p->kernel[1], .sth = p->stride[0], .stw = p->stride[1],
        .ph = p->padding[0], .pw = p->padding[1], .count_include_pad = p->count_include_pad,
    };
    /* the 32-bit path: every output index, input offset and window bound below 2^31 (the bounds here leave
     * room for the window arithmetic: o*stride - pad + kernel, in + pad) */
    const int64_t lim = (int64_t)1 << 28;
    int64_t max_off = (out->shape[0] - 1) * q.sN + (q.C - 1) * q.sC + (q.H - 1) * q.sH + (q.W - 1) * q.sW;
    q.narrow = n <= INT32_MAX && max_off <= INT32_MAX && q.H <= lim && q.W <= lim && q.kh <= lim && q.kw <= lim &&
               q.sth <= lim / q.OH && q.stw <= lim / q.OW;
    if (q.narrow) { /* OW, OH, C <= n < 2^31 */
        q.ow = wk_gpu_divisor_of(q.OW);
        q.oh = wk_gpu_divisor_of(q.OH);
        q.c = wk_gpu_divisor_of(q.C);
    }
    unsigned threads = 256;
    wk_gpu_dim grid = {wk_gpu_blocks(d, n, threads), 1, 1}, block = {threads, 1, 1};
    if (op == WK_REDUCE_MAX)
        return WK_GPU_LAUNCH(d, pool_max, x->dtype, 0, 0, grid, block, 0, q);
    return WK_GPU_LAUNCH(d, pool_avg, x->dtype, 0, 0, grid, block, 0, q);
}
