/* sort.c: stable argsort and sort along the last dim, ascending or descending, NaN after every number.
 * A scalar sorts as one element: its value, index 0. */
#include "ops/common.h"

/* A rank-1 view of one element for a rank-0 tensor (the slot works on a last dim), else t itself. */
static wk_status last_dim_view(const wk_tensor *t, wk_tensor **view)
{
    int64_t one = 1;
    *view = NULL;
    if (!t || t->rank > 0)
        return WK_OK;
    return wk_tensor_view(t, 1, &one, &one, t->offset, view);
}

static wk_status sort_impl(const char *op, const wk_tensor *x, bool descending, wk_tensor **values,
                           wk_tensor **indices)
{
    WK_TRY(wk_check_tensor(op, "x", x));
    WK_TRY(WK_CHECK_SLOT(op, x, sort));
    wk_tensor *v = NULL, *ix = NULL, *xv = NULL, *vv = NULL, *iv = NULL;
    wk_status s = WK_OK;
    if (values)
        s = wk_alloc_output(op, wk_dev(x), x->dtype, x->rank, x->shape, &v);
    if (s == WK_OK && indices)
        s = wk_alloc_output(op, wk_dev(x), WK_I64, x->rank, x->shape, &ix);
    if (s == WK_OK)
        s = last_dim_view(x, &xv);
    if (s == WK_OK)
        s = last_dim_view(v, &vv);
    if (s == WK_OK)
        s = last_dim_view(ix, &iv);
    if (s == WK_OK)
        s = WK_SLOT(x, sort, xv ? xv : x, descending ? WK_SORT_DESCENDING : WK_SORT_ASCENDING, vv ? vv : v,
                    iv ? iv : ix);
    wk_tensor_release(xv);
    wk_tensor_release(vv);
    wk_tensor_release(iv);
    if (s != WK_OK) {
        wk_tensor_release(v);
        wk_tensor_release(ix);
        return s;
    }
    if (values)
        *values = v;
    if (indices)
        *indices = ix;
    return WK_OK;
}

wk_status wk_argsort(const wk_tensor *x, bool descending, wk_tensor **out)
{
    WK_TRY(wk_check_out("argsort", out));
    return sort_impl("argsort", x, descending, NULL, out);
}

wk_status wk_sort(const wk_tensor *x, bool descending, wk_tensor **values, wk_tensor **indices)
{
    if (!values)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "sort: values is NULL");
    return sort_impl("sort", x, descending, values, indices);
}
