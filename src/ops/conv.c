/* conv.c: conv1d/conv2d and their transposes (NCL / NCHW, PyTorch semantics): checks the tensors and every
 * parameter, works out the output size, allocates it and calls the backend's conv slot. */
#include <stdint.h>

#include "ops/common.h"

wk_conv_params wk_conv_params_default(void)
{
    return (wk_conv_params){.stride = {1, 1}, .padding = {0, 0}, .dilation = {1, 1}, .output_padding = {0, 0},
                            .groups = 1};
}

/* Output length along one spatial axis, or -1 when the kernel does not fit (forward) / the size is not
 * positive (transposed) or would overflow. Parameters are below 2^31 (check_params). */
static int64_t out_len(bool transposed, int64_t len, int64_t k, const wk_conv_params *p, int ax)
{
    const int64_t limit = INT64_MAX / 4;
    if (k - 1 > limit / p->dilation[ax] || (transposed && len - 1 > limit / p->stride[ax]))
        return -1;
    int64_t span = p->dilation[ax] * (k - 1); /* dilated kernel extent minus one */
    if (transposed)
        return (len - 1) * p->stride[ax] - 2 * p->padding[ax] + span + p->output_padding[ax] + 1;
    int64_t room = len + 2 * p->padding[ax] - span - 1;
    return room < 0 ? -1 : room / p->stride[ax] + 1;
}

static wk_status check_params(const char *op, const wk_conv_params *p, int spatial, bool transposed)
{
    if (!p)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: params is NULL (use wk_conv_params_default())", op);
    if (p->groups < 1)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: groups %lld must be >= 1", op, (long long)p->groups);
    for (int ax = 0; ax < spatial; ax++) {
        /* bounds keep every size computed from them inside int64 */
        const int64_t big = (int64_t)1 << 31;
        if (p->stride[ax] < 1 || p->stride[ax] > big)
            return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: stride[%d] = %lld outside [1, 2^31]", op, ax,
                            (long long)p->stride[ax]);
        if (p->dilation[ax] < 1 || p->dilation[ax] > big)
            return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: dilation[%d] = %lld outside [1, 2^31]", op, ax,
                            (long long)p->dilation[ax]);
        if (p->padding[ax] < 0 || p->padding[ax] > big)
            return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: padding[%d] = %lld outside [0, 2^31]", op, ax,
                            (long long)p->padding[ax]);
        if (!transposed)
            continue;
        int64_t limit = p->stride[ax] > p->dilation[ax] ? p->stride[ax] : p->dilation[ax];
        if (p->output_padding[ax] < 0 || p->output_padding[ax] >= limit)
            return wk_error(WK_ERR_INVALID_ARGUMENT,
                            "%s: output_padding[%d] = %lld must be >= 0 and < max(stride, dilation) = %lld", op,
                            ax, (long long)p->output_padding[ax], (long long)limit);
    }
    return WK_OK;
}

/* Everything the four public ops share. Forward: w (O, C/groups, *K); transposed: w (C, O/groups, *K). */
static wk_status conv(const char *op, const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias,
                      const wk_conv_params *p, int spatial, bool transposed, wk_tensor **out)
{
    char b1[200], b2[200];
    WK_TRY(wk_check_tensor(op, "x", x));
    WK_TRY(wk_check_tensor(op, "weight", w));
    WK_TRY(wk_check_out(op, out));
    WK_TRY(wk_check_same_device(op, x, w));
    WK_TRY(wk_check_float(op, x));
    WK_TRY(wk_check_same_dtype(op, x, w));
    if (bias) {
        WK_TRY(wk_check_same_device(op, x, bias));
        WK_TRY(wk_check_same_dtype(op, x, bias));
    }
    WK_TRY(wk_check_rank(op, "x", x, spatial + 2));
    WK_TRY(wk_check_rank(op, "weight", w, spatial + 2));
    WK_TRY(check_params(op, p, spatial, transposed));

    int64_t n = x->shape[0], c = x->shape[1], groups = p->groups;
    if (c < 1)
        return wk_error(WK_ERR_SHAPE, "%s: x %s has no channels", op, wk_describe(b1, sizeof b1, x));
    for (int ax = 0; ax < spatial; ax++) {
        if (x->shape[2 + ax] < 1)
            return wk_error(WK_ERR_SHAPE, "%s: x %s has an empty spatial dim", op, wk_describe(b1, sizeof b1, x));
        if (w->shape[2 + ax] < 1)
            return wk_error(WK_ERR_SHAPE, "%s: weight %s has an empty kernel dim", op, wk_describe(b1, sizeof b1, w));
    }
    if (c % groups != 0)
        return wk_error(WK_ERR_SHAPE, "%s: groups %lld does not divide the %lld input channels", op,
                        (long long)groups, (long long)c);
    int64_t o; /* output channels */
    if (transposed) {
        if (w->shape[0] != c)
            return wk_error(WK_ERR_SHAPE, "%s: weight %s must have dim 0 = input channels %lld", op,
                            wk_describe(b1, sizeof b1, w), (long long)c);
        o = w->shape[1] * groups;
    } else {
        o = w->shape[0];
        if (o % groups != 0)
            return wk_error(WK_ERR_SHAPE, "%s: groups %lld does not divide the %lld output channels", op,
                            (long long)groups, (long long)o);
        if (w->shape[1] != c / groups)
            return wk_error(WK_ERR_SHAPE, "%s: weight %s must have dim 1 = channels/groups = %lld for x %s", op,
                            wk_describe(b1, sizeof b1, w), (long long)(c / groups), wk_describe(b2, sizeof b2, x));
    }
    if (bias && (bias->rank != 1 || bias->shape[0] != o))
        return wk_error(WK_ERR_SHAPE, "%s: bias %s must have shape [%lld]", op, wk_describe(b1, sizeof b1, bias),
                        (long long)o);

    int64_t shape[2 + 2] = {n, o};
    for (int ax = 0; ax < spatial; ax++) {
        shape[2 + ax] = out_len(transposed, x->shape[2 + ax], w->shape[2 + ax], p, ax);
        if (shape[2 + ax] < 1)
            return wk_error(WK_ERR_SHAPE,
                            "%s: kernel %lld (dilation %lld) does not fit input %lld with padding %lld on axis %d",
                            op, (long long)w->shape[2 + ax], (long long)p->dilation[ax], (long long)x->shape[2 + ax],
                            (long long)p->padding[ax], ax);
    }
    WK_TRY(WK_CHECK_SLOT(op, x, conv));
    wk_tensor *res = NULL;
    WK_TRY(wk_alloc_output(op, wk_dev(x), x->dtype, spatial + 2, shape, &res));
    wk_status s = WK_SLOT(res, conv, x, w, bias, p, spatial == 1 ? WK_CONV_1D : WK_CONV_2D,
                          transposed ? WK_CONV_TRANSPOSED : WK_CONV_FORWARD, res);
    if (s != WK_OK) {
        wk_tensor_release(res);
        return s;
    }
    *out = res;
    return WK_OK;
}

wk_status wk_conv1d(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias, const wk_conv_params *p,
                    wk_tensor **out)
{
    return conv("conv1d", x, w, bias, p, 1, false, out);
}

wk_status wk_conv2d(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias, const wk_conv_params *p,
                    wk_tensor **out)
{
    return conv("conv2d", x, w, bias, p, 2, false, out);
}

wk_status wk_conv_transpose1d(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias,
                              const wk_conv_params *p, wk_tensor **out)
{
    return conv("conv_transpose1d", x, w, bias, p, 1, true, out);
}

wk_status wk_conv_transpose2d(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias,
                              const wk_conv_params *p, wk_tensor **out)
{
    return conv("conv_transpose2d", x, w, bias, p, 2, true, out);
}
