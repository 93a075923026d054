/* conv.c: the GPU conv slot: a 1x1 convolution as one batched GEMM (the BLAS), else the vendor DNN library
 * (gpu.h wk_gpu_dnn) when it takes the case, else wick's own direct kernels (kernels/conv.cu).
 * WICK_GPU_CONV=fallback forces the direct kernels. */
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"

/* The direct kernels, in the 2-D form (1-D: H = OH = KH = 1, H strides 0, parameters from index 0). */
static wk_status conv_direct(wk_gpu_dev *d, const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias,
                             const wk_conv_params *p, int spatial, bool transposed, wk_tensor *out, int64_t total)
{
    bool one = spatial == 1;
    int last = spatial + 1;
    wk_gpu_conv_args q = {
        .x = wk_tensor_data(x), .w = wk_tensor_data(w), .bias = bias ? wk_tensor_data(bias) : NULL,
        .out = wk_tensor_data(out), .total = total,
        .O = out->shape[1], .OH = one ? 1 : out->shape[2], .OW = out->shape[last],
        .H = one ? 1 : x->shape[2], .W = x->shape[last], .KH = one ? 1 : w->shape[2], .KW = w->shape[last],
        .cg = x->shape[1] / p->groups, .og = out->shape[1] / p->groups,
        .sy = one ? 1 : p->stride[0], .sx = p->stride[one ? 0 : 1],
        .py = one ? 0 : p->padding[0], .px = p->padding[one ? 0 : 1],
        .dy = one ? 1 : p->dilation[0], .dx = p->dilation[one ? 0 : 1],
        .xN = x->strides[0], .xC = x->strides[1], .xH = one ? 0 : x->strides[2], .xW = x->strides[last],
        .w0 = w->strides[0], .w1 = w->strides[1], .wH = one ? 0 : w->strides[2], .wW = w->strides[last],
        .bS = bias ? bias->strides[0] : 0,
    };
    unsigned threads = 256;
    wk_gpu_dim grid = {wk_gpu_blocks(d, total, threads), 1, 1}, block = {threads, 1, 1};
    if (transposed)
        return WK_GPU_LAUNCH(d, conv_direct_tr, x->dtype, 0, 0, grid, block, 0, q);
    return WK_GPU_LAUNCH(d, conv_direct_fwd, x->dtype, 0, 0, grid, block, 0, q);
}

/* A pointwise convolution (1x1 kernel, stride 1, no padding, one group) is a matrix product per image:
 * out[n] (O x S) = w (O x C) * x[n] (C x S), S the spatial size. One strided-batched GEMM with the weights
 * shared (batch stride 0) does it without im2col, and the BLAS is faster at it than the DNN library for
 * half types. WK_ERR_UNSUPPORTED when the case or the layouts do not fit. */
static wk_status conv_pointwise(wk_gpu_dev *d, const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias,
                                const wk_conv_params *p, int spatial, wk_tensor *out)
{
    int64_t S = 1, C = x->shape[1], O = out->shape[1];
    for (int i = 0; i < spatial; i++) {
        if (w->shape[2 + i] != 1 || p->stride[i] != 1 || p->padding[i] != 0)
            return WK_ERR_UNSUPPORTED;
        S *= x->shape[2 + i];
    }
    /* x's spatial dims must merge into one unit-stride run; w must be (O, C) with unit stride in C. */
    bool x_ok = x->strides[1 + spatial] == 1 && (spatial == 1 || x->strides[2] == x->shape[3]);
    if (p->groups != 1 || !x_ok || (w->strides[1] != 1 && C > 1) || (w->strides[0] < C && O > 1) ||
        (x->strides[1] < S && C > 1))
        return WK_ERR_UNSUPPORTED;
    const char *why = NULL;
    const wk_gpu_blas *blas = wk_gpu_blas_of(d, &why);
    if (!blas)
        return WK_ERR_UNSUPPORTED;
    wk_gpu_gemm g = {.dtype = x->dtype, .m = O, .n = S, .k = C, .batch = x->shape[0],
                     .a = wk_tensor_data(w), .lda = C > 1 ? w->strides[0] : 1, .stride_a = 0,
                     .b = wk_tensor_data(x), .ldb = C > 1 ? x->strides[1] : S, .stride_b = x->strides[0],
                     .c = wk_tensor_data(out), .ldc = S, .stride_c = O * S};
    if (g.lda < C)
        g.lda = C;
    WK_TRY(blas->gemm(d, &g));
    return bias ? wk_gpu_add_bias(bias, out) : WK_OK;
}

wk_status wk_gpu_add_bias(const wk_tensor *bias, wk_tensor *out)
{
    int64_t bstrides[WK_MAX_RANK] = {0};
    bstrides[1] = bias->strides[0];
    wk_tensor *bview = NULL;
    WK_TRY(wk_tensor_view(bias, out->rank, out->shape, bstrides, bias->offset, &bview));
    wk_status s = wk_gpu_binary(WK_BINARY_ADD, out, bview, out);
    wk_tensor_release(bview);
    return s;
}

wk_status wk_gpu_conv(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias, const wk_conv_params *p,
                      wk_conv_dims dims, wk_conv_dir dir, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int spatial = (int)dims;
    bool transposed = dir == WK_CONV_TRANSPOSED;
    int64_t total = wk_numel(out->rank, out->shape);
    const char *force = getenv("WICK_GPU_CONV");
    bool fallback = force && strcmp(force, "fallback") == 0;
    if (!transposed && !fallback) {
        wk_status s = conv_pointwise(d, x, w, bias, p, spatial, out);
        if (s != WK_ERR_UNSUPPORTED)
            return s;
    }
    const char *why = NULL;
    const wk_gpu_dnn *dnn = wk_gpu_dnn_of(d, &why);
    if (dnn && !fallback) {
        wk_status s = dnn->conv(d, x, w, bias, p, spatial, transposed, out);
        if (s != WK_ERR_UNSUPPORTED)
            return s;
    }
    return conv_direct(d, x, w, bias, p, spatial, transposed, out, total);
}
