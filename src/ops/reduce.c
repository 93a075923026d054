/* reduce.c: sum/mean/min/max over any set of dims, and argmin/argmax over one dim. Validates, then hands
 * the backend a view with the reduced dims moved last (metadata only) and a contiguous output. */
#include <math.h>
#include <stdio.h>

#include "ops/common.h"

static const char *const reduce_names[WK_REDUCE_COUNT] = {"sum", "min", "max", "mean"};

const char *wk_reduce_name(wk_reduce_op op) { return (unsigned)op < WK_REDUCE_COUNT ? reduce_names[op] : "invalid"; }

/* The view of x with the dims flagged in `reduced` moved last (both groups keep their order). */
static wk_status reduced_last_view(const wk_tensor *x, const bool *reduced, wk_tensor **out)
{
    int64_t sh[WK_MAX_RANK], st[WK_MAX_RANK];
    int r = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int d = 0; d < x->rank; d++)
            if (reduced[d] == (pass == 1)) {
                sh[r] = x->shape[d];
                st[r++] = x->strides[d];
            }
    return wk_tensor_view(x, x->rank, sh, st, x->offset, out);
}

/* out's shape: x's shape without the reduced dims, or with them set to 1 under keepdim. */
static int reduced_shape(const wk_tensor *x, const bool *reduced, bool keepdim, int64_t *shape)
{
    int r = 0;
    for (int d = 0; d < x->rank; d++)
        if (!reduced[d])
            shape[r++] = x->shape[d];
        else if (keepdim)
            shape[r++] = 1;
    return r;
}

/* The reduce and arg_reduce slots behind one signature. */
typedef wk_status (*reduce_slot_call)(wk_reduce_op op, const wk_tensor *xv, int nreduce, wk_tensor *out);

static wk_status call_reduce(wk_reduce_op op, const wk_tensor *xv, int nreduce, wk_tensor *out)
{
    return wk_be(xv)->reduce(op, xv, nreduce, out);
}

static wk_status call_arg_reduce(wk_reduce_op op, const wk_tensor *xv, int nreduce, wk_tensor *out)
{
    (void)nreduce;
    return wk_be(xv)->arg_reduce(op, xv, out);
}

/* Allocates out, runs the slot on the view of x with the reduced dims last, and hands out back. */
static wk_status run_reduction(const wk_tensor *x, const bool *reduced, bool keepdim, wk_dtype out_dtype,
                               wk_reduce_op op, int nreduce, reduce_slot_call call, wk_tensor **out)
{
    int64_t shape[WK_MAX_RANK];
    int rank = reduced_shape(x, reduced, keepdim, shape);
    wk_tensor *xv = NULL, *o = NULL;
    WK_TRY(reduced_last_view(x, reduced, &xv));
    wk_status s = wk_tensor_alloc(wk_dev(x), out_dtype, rank, shape, &o);
    if (s == WK_OK && !wk_empty(o) && wk_empty(xv)) /* an empty extent: sum's identity, mean's 0/0 */
        s = WK_SLOT(o, fill, o, wk_scalar_storage(out_dtype, op == WK_REDUCE_MEAN ? NAN : 0.0));
    else if (s == WK_OK && !wk_empty(o)) /* as WK_SLOT */
        s = call(op, xv, nreduce, o);
    wk_tensor_release(xv);
    if (s != WK_OK) {
        wk_tensor_release(o);
        return s;
    }
    *out = o;
    return WK_OK;
}

wk_status wk_reduce(wk_reduce_op op, const wk_tensor *x, const int *dims, int ndims, bool keepdim,
                    wk_tensor **out)
{
    char name[32], buf[200];
    bool reduced[WK_MAX_RANK] = {false};
    snprintf(name, sizeof name, "reduce %s", wk_reduce_name(op));
    WK_TRY(wk_check_tensor(name, "x", x));
    WK_TRY(wk_check_out(name, out));
    if ((unsigned)op >= WK_REDUCE_COUNT)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: unknown reduce op %d", name, (int)op);
    if (op == WK_REDUCE_MEAN)
        WK_TRY(wk_check_float(name, x));
    WK_TRY(wk_reduce_dims(name, x, dims, ndims, reduced));
    int nreduce = 0;
    int64_t count = 1;
    for (int d = 0; d < x->rank; d++)
        if (reduced[d]) {
            nreduce++;
            count *= x->shape[d];
        }
    if ((op == WK_REDUCE_MIN || op == WK_REDUCE_MAX) && count == 0)
        return wk_error(WK_ERR_SHAPE, "%s: empty reduction of %s has no identity", name,
                        wk_describe(buf, sizeof buf, x));
    WK_TRY(WK_CHECK_SLOT(name, x, reduce));
    return run_reduction(x, reduced, keepdim, x->dtype, op, nreduce, call_reduce, out);
}

static wk_status arg_reduce(const char *name, wk_reduce_op op, const wk_tensor *x, int dim, bool keepdim,
                            wk_tensor **out)
{
    char buf[200];
    bool reduced[WK_MAX_RANK] = {false};
    WK_TRY(wk_check_tensor(name, "x", x));
    WK_TRY(wk_check_out(name, out));
    if (x->rank == 0) {
        /* A scalar is one element: its index is 0 (PyTorch), with dim 0 or -1. */
        if (dim != 0 && dim != -1)
            return wk_error(WK_ERR_SHAPE, "%s: dim %d out of range for rank 0", name, dim);
        WK_TRY(WK_CHECK_SLOT(name, x, arg_reduce));
        wk_tensor *xv = NULL;
        int64_t one = 1;
        WK_TRY(wk_tensor_view(x, 1, &one, &one, x->offset, &xv));
        reduced[0] = true;
        wk_status s = run_reduction(xv, reduced, false, WK_I64, op, 1, call_arg_reduce, out);
        wk_tensor_release(xv);
        return s;
    }
    int d;
    WK_TRY(wk_norm_dim(name, dim, x->rank, &d));
    if (x->shape[d] == 0)
        return wk_error(WK_ERR_SHAPE, "%s: dim %d of %s is empty", name, dim, wk_describe(buf, sizeof buf, x));
    reduced[d] = true;
    WK_TRY(WK_CHECK_SLOT(name, x, arg_reduce));
    return run_reduction(x, reduced, keepdim, WK_I64, op, 1, call_arg_reduce, out);
}

wk_status wk_argmin(const wk_tensor *x, int dim, bool keepdim, wk_tensor **out)
{
    return arg_reduce("argmin", WK_REDUCE_MIN, x, dim, keepdim, out);
}

wk_status wk_argmax(const wk_tensor *x, int dim, bool keepdim, wk_tensor **out)
{
    return arg_reduce("argmax", WK_REDUCE_MAX, x, dim, keepdim, out);
}
