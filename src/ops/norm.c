/* norm.c: softmax and log_softmax over the last dim, rms_norm (alone or after a residual add), layer_norm (over the
 * last dim or the last k), batch_norm (inference), group_norm. Float only; softmax of a scalar is one element. */
#include <math.h>
#include <string.h>

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

/* The residual add and rms_norm in one slot: sum and out allocated here, both or neither handed back. */
wk_status wk_add_rms_norm(const wk_tensor *x, const wk_tensor *r, const wk_tensor *w, double eps, wk_tensor **sum,
                          wk_tensor **out)
{
    static const char op[] = "add_rms_norm";
    char b1[200], b2[200];
    WK_TRY(check_norm(op, x, eps, out));
    WK_TRY(wk_check_out(op, sum));
    if ((void *)sum == (void *)out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: sum and out are the same out-parameter", op);
    WK_TRY(wk_check_tensor(op, "residual", r));
    WK_TRY(wk_check_same_device(op, x, r));
    WK_TRY(wk_check_same_dtype(op, x, r));
    if (r->rank != x->rank || memcmp(r->shape, x->shape, (size_t)x->rank * sizeof *x->shape) != 0)
        return wk_error(WK_ERR_SHAPE, "%s: residual must have x's shape, got %s for x %s", op,
                        wk_describe(b1, sizeof b1, r), wk_describe(b2, sizeof b2, x));
    WK_TRY(wk_check_tensor(op, "weight", w));
    WK_TRY(check_norm_param(op, "weight", x, w));
    WK_TRY(WK_CHECK_SLOT(op, x, add_rms_norm));
    wk_tensor *s = NULL, *o = NULL;
    WK_TRY(wk_alloc_output(op, wk_dev(x), x->dtype, x->rank, x->shape, &s));
    wk_status st = wk_alloc_output(op, wk_dev(x), x->dtype, x->rank, x->shape, &o);
    if (st == WK_OK)
        st = WK_SLOT(o, add_rms_norm, x, r, w, eps, s, o);
    if (st != WK_OK) {
        wk_tensor_release(s);
        wk_tensor_release(o);
        return st;
    }
    *sum = s;
    *out = o;
    return WK_OK;
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

/* w or b of layer_norm_dims: exactly x's last k dims, x's dtype and device. */
static wk_status check_dims_param(const char *op, const char *name, const wk_tensor *x, int k, const wk_tensor *p)
{
    char b1[200], b2[200];
    WK_TRY(wk_check_same_device(op, x, p));
    WK_TRY(wk_check_same_dtype(op, x, p));
    bool ok = p->rank == k;
    for (int i = 0; ok && i < k; i++)
        ok = p->shape[i] == x->shape[x->rank - k + i];
    if (!ok)
        return wk_error(WK_ERR_SHAPE, "%s: %s must have x's last %d dims' shape, got %s for x %s", op, name, k,
                        wk_describe(b1, sizeof b1, p), wk_describe(b2, sizeof b2, x));
    return WK_OK;
}

/* layer_norm over the last k dims: x's last k dims, and w's and b's, merged into one (views where the strides
 * allow, else copies), through the layer_norm slot; out is reshaped back (it is contiguous). */
wk_status wk_layer_norm_dims(const wk_tensor *x, int k, const wk_tensor *w, const wk_tensor *b, double eps,
                             wk_tensor **out)
{
    static const char op[] = "layer_norm_dims";
    WK_TRY(check_norm(op, x, eps, out));
    if (k < 1 || k > x->rank)
        return wk_error(WK_ERR_SHAPE, "%s: k must be in [1, %d] (x's rank), got %d", op, x->rank, k);
    if (w)
        WK_TRY(check_dims_param(op, "weight", x, k, w));
    if (b)
        WK_TRY(check_dims_param(op, "bias", x, k, b));
    WK_TRY(WK_CHECK_SLOT(op, x, layer_norm));
    wk_tensor *xv = NULL, *wv = NULL, *bv = NULL, *o = NULL, *ov = NULL;
    wk_status s = wk_merge_view(op, x, x->rank - k, k, &xv);
    if (s == WK_OK && w)
        s = wk_merge_view(op, w, 0, k, &wv);
    if (s == WK_OK && b)
        s = wk_merge_view(op, b, 0, k, &bv);
    norm_args a = {.w = wv, .b = bv, .eps = eps};
    if (s == WK_OK)
        s = run_rows(xv, call_layer_norm, &a, &o);
    if (s == WK_OK)
        s = wk_reshape(o, x->rank, x->shape, &ov); /* o is contiguous: a view */
    wk_tensor_release(xv);
    wk_tensor_release(wv);
    wk_tensor_release(bv);
    wk_tensor_release(o);
    return wk_finish(s, ov, out);
}

/* A per-channel parameter (name; NULL allowed unless required): 1-D of x's dim 1, x's dtype and device. */
static wk_status check_channel_param(const char *op, const char *name, const wk_tensor *x, const wk_tensor *p,
                                     bool required)
{
    char b1[200], b2[200];
    if (!p)
        return required ? wk_error(WK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op, name) : WK_OK;
    WK_TRY(wk_check_same_device(op, x, p));
    WK_TRY(wk_check_same_dtype(op, x, p));
    if (p->rank != 1 || p->shape[0] != x->shape[1])
        return wk_error(WK_ERR_SHAPE, "%s: %s must be 1-D of x's channels (dim 1), got %s for x %s", op, name,
                        wk_describe(b1, sizeof b1, p), wk_describe(b2, sizeof b2, x));
    return WK_OK;
}

/* x float of rank >= 2, eps finite and >= 0. */
static wk_status check_channel_norm(const char *op, const wk_tensor *x, double eps, wk_tensor **out)
{
    char buf[200];
    WK_TRY(check_norm(op, x, eps, out));
    if (x->rank < 2)
        return wk_error(WK_ERR_SHAPE, "%s: x must be (N, C, *) of rank >= 2, got %s", op,
                        wk_describe(buf, sizeof buf, x));
    return WK_OK;
}

/* x as (N, C, S): its dims from 2 on merged (a rank-2 x gains S = 1). */
static wk_status ncs_view(const char *op, const wk_tensor *x, wk_tensor **out)
{
    if (x->rank > 2)
        return wk_merge_view(op, x, 2, x->rank - 2, out);
    int64_t sh[3] = {x->shape[0], x->shape[1], 1}, st[3] = {x->strides[0], x->strides[1], 1};
    return wk_tensor_view(x, 3, sh, st, x->offset, out);
}

/* Runs the batch_norm (groups 0) or group_norm slot on x as (N, C, S) into a new tensor of x's shape. */
static wk_status run_channels(const char *op, const wk_tensor *x, const wk_tensor *const p[4], int64_t groups,
                              double eps, wk_tensor **out)
{
    wk_tensor *xv = NULL, *o = NULL, *ov = NULL;
    WK_TRY(wk_alloc_output(op, wk_dev(x), x->dtype, x->rank, x->shape, &o));
    if (wk_empty(o))
        return wk_finish(WK_OK, o, out);
    wk_status s = ncs_view(op, x, &xv);
    if (s == WK_OK)
        s = wk_reshape(o, 3, xv->shape, &ov);
    if (s == WK_OK && groups == 0)
        s = wk_be(x)->batch_norm(xv, p[0], p[1], p[2], p[3], eps, ov);
    else if (s == WK_OK)
        s = wk_be(x)->group_norm(xv, groups, p[2], p[3], eps, ov);
    wk_tensor_release(xv);
    wk_tensor_release(ov);
    return wk_finish(s, o, out);
}

wk_status wk_batch_norm(const wk_tensor *x, const wk_tensor *mean, const wk_tensor *var, const wk_tensor *w,
                        const wk_tensor *b, double eps, wk_tensor **out)
{
    static const char op[] = "batch_norm";
    WK_TRY(check_channel_norm(op, x, eps, out));
    WK_TRY(check_channel_param(op, "running_mean", x, mean, true));
    WK_TRY(check_channel_param(op, "running_var", x, var, true));
    WK_TRY(check_channel_param(op, "weight", x, w, false));
    WK_TRY(check_channel_param(op, "bias", x, b, false));
    WK_TRY(WK_CHECK_SLOT(op, x, batch_norm));
    const wk_tensor *p[4] = {mean, var, w, b};
    return run_channels(op, x, p, 0, eps, out);
}

wk_status wk_group_norm(const wk_tensor *x, int64_t groups, const wk_tensor *w, const wk_tensor *b, double eps,
                        wk_tensor **out)
{
    static const char op[] = "group_norm";
    char buf[200];
    WK_TRY(check_channel_norm(op, x, eps, out));
    if (groups < 1 || x->shape[1] % groups != 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: groups (%lld) must be >= 1 and divide the channels of %s", op,
                        (long long)groups, wk_describe(buf, sizeof buf, x));
    WK_TRY(check_channel_param(op, "weight", x, w, false));
    WK_TRY(check_channel_param(op, "bias", x, b, false));
    WK_TRY(WK_CHECK_SLOT(op, x, group_norm));
    const wk_tensor *p[4] = {NULL, NULL, w, b};
    return run_channels(op, x, p, groups, eps, out);
}
