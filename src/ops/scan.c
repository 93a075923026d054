/* scan.c: cumsum, cumprod and logcumsumexp along one dim. Validates, picks the output dtype (i64 for integer x, as
 * PyTorch) and hands the scan slot x as it is (any strides) with a contiguous output. */
#include "ops/common.h"

static wk_status run_scan(const char *op, wk_scan_op sop, const wk_tensor *x, int dim, wk_tensor **out)
{
    WK_TRY(wk_check_tensor(op, "x", x));
    WK_TRY(wk_check_out(op, out));
    if (sop == WK_SCAN_LOGSUMEXP)
        WK_TRY(wk_check_float(op, x));
    int d = 0;
    if (x->rank == 0) {
        if (dim != 0 && dim != -1)
            return wk_error(WK_ERR_SHAPE, "%s: dim %d out of range for rank 0", op, dim);
    } else {
        WK_TRY(wk_norm_dim(op, dim, x->rank, &d));
    }
    WK_TRY(WK_CHECK_SLOT(op, x, scan));
    wk_dtype odt = wk_dtype_is_float(x->dtype) ? x->dtype : WK_I64;
    wk_tensor *o = NULL, *xv = NULL, *ov = NULL;
    int64_t one = 1;
    WK_TRY(wk_alloc_output(op, wk_dev(x), odt, x->rank, x->shape, &o));
    if (wk_empty(o))
        return wk_finish(WK_OK, o, out);
    wk_status s = WK_OK;
    if (x->rank == 0) { /* one element: a rank-1 view of it, and of out */
        s = wk_tensor_view(x, 1, &one, &one, x->offset, &xv);
        if (s == WK_OK)
            s = wk_tensor_view(o, 1, &one, &one, o->offset, &ov);
    }
    if (s == WK_OK)
        s = wk_be(x)->scan(sop, xv ? xv : x, d, ov ? ov : o);
    wk_tensor_release(xv);
    wk_tensor_release(ov);
    return wk_finish(s, o, out);
}

wk_status wk_cumsum(const wk_tensor *x, int dim, wk_tensor **out)
{
    return run_scan("cumsum", WK_SCAN_SUM, x, dim, out);
}

wk_status wk_cumprod(const wk_tensor *x, int dim, wk_tensor **out)
{
    return run_scan("cumprod", WK_SCAN_PROD, x, dim, out);
}

wk_status wk_logcumsumexp(const wk_tensor *x, int dim, wk_tensor **out)
{
    return run_scan("logcumsumexp", WK_SCAN_LOGSUMEXP, x, dim, out);
}
