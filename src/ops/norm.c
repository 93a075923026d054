/* norm.c: softmax and log_softmax over the last dim, rms_norm and layer_norm. Float only; a scalar
 * is softmaxed as one element (PyTorch), the norms need rank >= 1. */
#include <math.h>

#include "ops/common.h"

typedef wk_status (*row_slot_call)(const wk_tensor *x, const void *arg, wk_tensor *out);

/* Allocates out like x and runs call; a rank-0 x goes to the backend as a rank-1 view of one element
 * (the slots work on a last dim), and so does out. */
static wk_status run_rows(const wk_tensor *x, row_slot_call call, const void *arg, wk_tensor **out)
{
    wk_tensor *o = NULL, *xv = NULL, *ov = NULL;
    int64_t one = 1;
    WK_TRY(wk_tensor_alloc(wk_dev(x), x->dtype, x->rank, x->shape, &o));
    wk_status s = WK_OK;
    if (x->rank == 0) {
        s = wk_tensor_view(x, 1, &one, &one, x->offset, &xv);
        if (s == WK_OK)
            s = wk_tensor_view(o, 1, &one, &one, o->offset, &ov);
    }
    if (s == WK_OK && !wk_empty(o)) /* as WK_SLOT */
        s = call(xv ? xv : x, arg, ov ? ov : o);
    wk_tensor_release(xv);
    wk_tensor_release(ov);
    if (s != WK_OK) {
        wk_tensor_release(o);
        return s;
    }
    *out = o;
    return WK_OK;
}

static wk_status call_softmax(const wk_tensor *x, const void *arg, wk_tensor *out)
{
    return wk_be(x)->softmax(x, *(const wk_softmax_kind *)arg, out);
}

static wk_status softmax(const char *op, wk_softmax_kind kind, const wk_tensor *x, wk_tensor **out)
{
    WK_TRY(wk_check_tensor(op, "x", x));
    WK_TRY(wk_check_out(op, out));
    WK_TRY(wk_check_float(op, x));
    WK_TRY(WK_CHECK_SLOT(op, x, softmax));
    return run_rows(x, call_softmax, &kind, out);
}

wk_status wk_softmax_last_dim(const wk_tensor *x, wk_tensor **out)
{
    return softmax("softmax_last_dim", WK_SOFTMAX, x, out);
}

wk_status wk_log_softmax_last_dim(const wk_tensor *x, wk_tensor **out)
{
    return softmax("log_softmax_last_dim", WK_LOG_SOFTMAX, x, out);
}

/* x float of rank >= 1; p (weight or bias) 1-D of x's last dim, x's dtype and device; eps >= 0. */
static wk_status check_norm(const char *op, const wk_tensor *x, double eps, wk_tensor **out)
{
    char buf[200];
    WK_TRY(wk_check_tensor(op, "x", x));
    WK_TRY(wk_check_out(op, out));
    WK_TRY(wk_check_float(op, x));
    if (x->rank == 0)
        return wk_error(WK_ERR_SHAPE, "%s: x must have rank >= 1, got %s", op, wk_describe(buf, sizeof buf, x));
    if (!(eps >= 0) || isinf(eps))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: eps must be finite and >= 0, got %g", op, eps);
    return WK_OK;
}

static wk_status check_norm_param(const char *op, const char *name, const wk_tensor *x, const wk_tensor *p)
{
    char b1[200], b2[200];
    WK_TRY(wk_check_same_device(op, x, p));
    WK_TRY(wk_check_same_dtype(op, x, p));
    if (p->rank != 1 || p->shape[0] != x->shape[x->rank - 1])
        return wk_error(WK_ERR_SHAPE, "%s: %s must be 1-D of x's last dim, got %s for x %s", op, name,
                        wk_describe(b1, sizeof b1, p), wk_describe(b2, sizeof b2, x));
    return WK_OK;
}

typedef struct norm_args { const wk_tensor *w, *b; double eps; } norm_args;

static wk_status call_rms_norm(const wk_tensor *x, const void *arg, wk_tensor *out)
{
    const norm_args *a = arg;
    return wk_be(x)->rms_norm(x, a->w, a->eps, out);
}

static wk_status call_layer_norm(const wk_tensor *x, const void *arg, wk_tensor *out)
{
    const norm_args *a = arg;
    return wk_be(x)->layer_norm(x, a->w, a->b, a->eps, out);
}

wk_status wk_rms_norm(const wk_tensor *x, const wk_tensor *w, double eps, wk_tensor **out)
{
    static const char op[] = "rms_norm";
    WK_TRY(check_norm(op, x, eps, out));
    WK_TRY(wk_check_tensor(op, "weight", w));
    WK_TRY(check_norm_param(op, "weight", x, w));
    WK_TRY(WK_CHECK_SLOT(op, x, rms_norm));
    norm_args a = {.w = w, .b = NULL, .eps = eps};
    return run_rows(x, call_rms_norm, &a, out);
}

wk_status wk_layer_norm(const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, double eps, wk_tensor **out)
{
    static const char op[] = "layer_norm";
    WK_TRY(check_norm(op, x, eps, out));
    if (w)
        WK_TRY(check_norm_param(op, "weight", x, w));
    if (b)
        WK_TRY(check_norm_param(op, "bias", x, b));
    WK_TRY(WK_CHECK_SLOT(op, x, layer_norm));
    norm_args a = {.w = w, .b = b, .eps = eps};
    return run_rows(x, call_layer_norm, &a, out);
}
