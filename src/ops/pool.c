/* pool.c: the pool family's front end: max_pool2d and avg_pool2d (NCHW), argument checks and output sizes as
 * PyTorch computes them; the backend's pool2d slot does the work. */
#include "ops/common.h"

/* floor(a / b) and ceil(a / b) for b > 0, any sign of a. */
static int64_t div_floor(int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0); }
static int64_t div_ceil(int64_t a, int64_t b) { return a / b + (a % b != 0 && a > 0); }

/* PyTorch's pooling_output_shape (dilation 1): floor or ceil of (in + 2*pad - kernel) / stride, plus one;
 * in ceil mode the last window must start inside the input or the left padding. pad <= kernel/2, so
 * in - (kernel - 2*pad) cannot overflow. */
static int64_t pool_out_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad, bool ceil_mode)
{
    int64_t span = in - (kernel - 2 * pad);
    if (!ceil_mode)
        return div_floor(span, stride) + 1;
    int64_t out = div_ceil(span, stride) + 1;
    if (out - 1 >= div_ceil(in + pad, stride)) /* (out-1)*stride >= in + pad, without overflow */
        out--;
    return out;
}

static wk_status pool2d(const char *op, wk_reduce_op kind, const wk_tensor *x, const wk_pool_params *p,
                        wk_tensor **out)
{
    char buf[200];
    int64_t sh[4];
    WK_TRY(wk_check_tensor(op, "x", x));
    WK_TRY(wk_check_out(op, out));
    if (!p)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: params is NULL", op);
    WK_TRY(wk_check_rank(op, "x (N, C, H, W)", x, 4));
    if (kind == WK_REDUCE_MEAN)
        WK_TRY(wk_check_float(op, x));
    for (int a = 0; a < 2; a++) {
        if (p->kernel[a] < 1 || p->stride[a] < 1)
            return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: kernel (%lld, %lld) and stride (%lld, %lld) must be >= 1",
                            op, (long long)p->kernel[0], (long long)p->kernel[1], (long long)p->stride[0],
                            (long long)p->stride[1]);
        if (p->padding[a] < 0 || p->padding[a] > p->kernel[a] / 2)
            return wk_error(WK_ERR_INVALID_ARGUMENT,
                            "%s: padding (%lld, %lld) must be between 0 and half the kernel (%lld, %lld)", op,
                            (long long)p->padding[0], (long long)p->padding[1], (long long)p->kernel[0],
                            (long long)p->kernel[1]);
    }
    if (x->shape[2] < 1 || x->shape[3] < 1)
        return wk_error(WK_ERR_SHAPE, "%s: input %s has an empty spatial dim", op, wk_describe(buf, sizeof buf, x));
    for (int a = 0; a < 2; a++) /* in + pad and span + 1 fit in int64: pool_out_size's sums cannot overflow */
        if (x->shape[2 + a] > INT64_MAX - p->padding[a] ||
            x->shape[2 + a] - (p->kernel[a] - 2 * p->padding[a]) > INT64_MAX - 1)
            return wk_error(WK_ERR_SHAPE, "%s: input %s with padding %lld is past int64's range", op,
                            wk_describe(buf, sizeof buf, x), (long long)p->padding[a]);
    sh[0] = x->shape[0];
    sh[1] = x->shape[1];
    for (int a = 0; a < 2; a++)
        sh[2 + a] = pool_out_size(x->shape[2 + a], p->kernel[a], p->stride[a], p->padding[a], p->ceil_mode);
    if (sh[2] < 1 || sh[3] < 1)
        return wk_error(WK_ERR_SHAPE,
                        "%s: output size %lld x %lld too small (input %s, kernel (%lld, %lld), stride (%lld, %lld), "
                        "padding (%lld, %lld))",
                        op, (long long)sh[2], (long long)sh[3], wk_describe(buf, sizeof buf, x),
                        (long long)p->kernel[0], (long long)p->kernel[1], (long long)p->stride[0],
                        (long long)p->stride[1], (long long)p->padding[0], (long long)p->padding[1]);
    WK_TRY(WK_CHECK_SLOT(op, x, pool2d));
    wk_tensor *o = NULL;
    WK_TRY(wk_alloc_output(op, wk_dev(x), x->dtype, 4, sh, &o));
    wk_status s = WK_SLOT(o, pool2d, kind, x, p, o);
    if (s != WK_OK) {
        wk_tensor_release(o);
        return s;
    }
    *out = o;
    return WK_OK;
}

wk_status wk_max_pool2d(const wk_tensor *x, const wk_pool_params *p, wk_tensor **out)
{
    return pool2d("max_pool2d", WK_REDUCE_MAX, x, p, out);
}

wk_status wk_avg_pool2d(const wk_tensor *x, const wk_pool_params *p, wk_tensor **out)
{
    return pool2d("avg_pool2d", WK_REDUCE_MEAN, x, p, out);
}
