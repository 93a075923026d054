/* sort.c: stable argsort and sort along the last dim, ascending or descending, NaN after every number; topk,
 * kthvalue and median along any dim (the topk slot, or whole rows sorted). A scalar sorts as one element. */
#include <string.h>

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

/* ---------------------------------------------------------------- topk, kthvalue, median
 * The slots work along the last dim: x is permuted so that dim comes last, and the outputs are made in that
 * order and permuted back (topk) or made in their final shape, whose data order is the same (kthvalue, median:
 * the selected dim has size 1). */

/* perm moving dim last; xv the view of x in that order (rank 0: one element of rank 1). */
static wk_status dim_last(const wk_tensor *x, int dim, int *perm, wk_tensor **xv)
{
    int64_t one = 1;
    if (x->rank == 0)
        return wk_tensor_view(x, 1, &one, &one, x->offset, xv);
    for (int i = 0, j = 0; i < x->rank; i++)
        if (i != dim)
            perm[j++] = i;
    perm[x->rank - 1] = dim;
    return wk_permute(x, perm, xv);
}

/* The selection's dim and its size; k checked against lo..size. */
static wk_status select_dim(const char *op, const wk_tensor *x, int dim, int64_t k, int64_t lo, int *d,
                            int64_t *n)
{
    WK_TRY(wk_check_tensor(op, "x", x));
    WK_TRY(wk_norm_dim(op, dim, x->rank > 0 ? x->rank : 1, d));
    *n = x->rank > 0 ? x->shape[*d] : 1;
    if (k < lo || k > *n)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: k = %lld is out of range for dim %d of size %lld (%lld..%lld)",
                        op, (long long)k, dim, (long long)*n, (long long)lo, (long long)*n);
    return WK_OK;
}

/* topk of xv (dim last) into v, ix of xv's shape with k last: the slot, or the whole rows sorted and cut. */
static wk_status topk_rows(const wk_tensor *xv, int64_t k, bool largest, wk_tensor *v, wk_tensor *ix)
{
    if (k <= WK_TOPK_SLOT_MAX_K)
        return WK_SLOT(v, topk, xv, k, largest ? WK_TOPK_LARGEST : WK_TOPK_SMALLEST, v, ix);
    int last = xv->rank - 1;
    wk_tensor *sv = NULL, *si = NULL, *nv = NULL, *ni = NULL;
    wk_status s = wk_alloc_output("topk", wk_dev(xv), xv->dtype, xv->rank, xv->shape, &sv);
    if (s == WK_OK)
        s = wk_alloc_output("topk", wk_dev(xv), WK_I64, xv->rank, xv->shape, &si);
    if (s == WK_OK)
        s = WK_SLOT(sv, sort, xv, largest ? WK_SORT_DESCENDING : WK_SORT_ASCENDING, sv, si);
    if (s == WK_OK)
        s = wk_narrow(sv, last, 0, k, &nv);
    if (s == WK_OK)
        s = wk_narrow(si, last, 0, k, &ni);
    if (s == WK_OK)
        s = wk_copy_into(v, nv);
    if (s == WK_OK)
        s = wk_copy_into(ix, ni);
    wk_tensor_release(sv);
    wk_tensor_release(si);
    wk_tensor_release(nv);
    wk_tensor_release(ni);
    return s;
}

/* out: the contiguous result in x's dim order from r, made in the dim-last order (perm). */
static wk_status undo_perm(const wk_tensor *x, int dim, const int *perm, wk_tensor *r, wk_tensor **out)
{
    if (x->rank <= 1 || dim == x->rank - 1) {
        wk_tensor_retain(r);
        *out = r;
        return WK_OK;
    }
    int inv[WK_MAX_RANK];
    for (int i = 0; i < x->rank; i++)
        inv[perm[i]] = i;
    wk_tensor *pv = NULL;
    wk_status s = wk_permute(r, inv, &pv);
    if (s == WK_OK)
        s = wk_contiguous(pv, out);
    wk_tensor_release(pv);
    return s;
}

wk_status wk_topk(const wk_tensor *x, int64_t k, int dim, bool largest, bool sorted, wk_tensor **values,
                  wk_tensor **indices)
{
    (void)sorted; /* always sorted (wick.h) */
    int d, perm[WK_MAX_RANK];
    int64_t n;
    WK_TRY(wk_check_out("topk", values));
    WK_TRY(wk_check_out("topk", indices));
    WK_TRY(select_dim("topk", x, dim, k, 0, &d, &n));
    WK_TRY(WK_CHECK_SLOT("topk", x, topk));
    wk_tensor *xv = NULL, *v = NULL, *ix = NULL, *ov = NULL, *oi = NULL;
    wk_status s = dim_last(x, d, perm, &xv);
    int64_t shape[WK_MAX_RANK];
    if (s == WK_OK) {
        memcpy(shape, xv->shape, sizeof(int64_t) * (size_t)xv->rank);
        shape[xv->rank - 1] = k;
        s = wk_alloc_output("topk", wk_dev(x), x->dtype, xv->rank, shape, &v);
    }
    if (s == WK_OK)
        s = wk_alloc_output("topk", wk_dev(x), WK_I64, xv->rank, shape, &ix);
    if (s == WK_OK)
        s = topk_rows(xv, k, largest, v, ix);
    if (s == WK_OK && x->rank == 0) { /* back to rank 0 */
        s = wk_reshape(v, 0, NULL, &ov);
        if (s == WK_OK)
            s = wk_reshape(ix, 0, NULL, &oi);
    } else if (s == WK_OK) {
        s = undo_perm(x, d, perm, v, &ov);
        if (s == WK_OK)
            s = undo_perm(x, d, perm, ix, &oi);
    }
    wk_tensor_release(xv);
    wk_tensor_release(v);
    wk_tensor_release(ix);
    if (s != WK_OK) {
        wk_tensor_release(ov);
        wk_tensor_release(oi);
        return s;
    }
    *values = ov;
    *indices = oi;
    return WK_OK;
}

/* kthvalue and median: the slot's (rows, 1) outputs are the final outputs seen dim-last. */
static wk_status kth_impl(const char *op, const wk_tensor *x, int64_t k, int dim, bool keepdim, wk_topk_mode mode,
                          wk_tensor **values, wk_tensor **indices)
{
    int d, perm[WK_MAX_RANK];
    int64_t n, shape[WK_MAX_RANK], vshape[WK_MAX_RANK];
    WK_TRY(wk_check_out(op, values));
    WK_TRY(wk_check_out(op, indices));
    WK_TRY(wk_check_tensor(op, "x", x));
    if (mode == WK_TOPK_MEDIAN) {
        WK_TRY(wk_norm_dim(op, dim, x->rank > 0 ? x->rank : 1, &d));
        k = ((x->rank > 0 ? x->shape[d] : 1) + 1) / 2;
        if (k == 0)
            return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: dim %d is empty", op, dim);
    }
    WK_TRY(select_dim(op, x, dim, k, 1, &d, &n));
    WK_TRY(WK_CHECK_SLOT(op, x, topk));
    int rank = 0;
    for (int i = 0; i < x->rank; i++)
        if (i != d || keepdim)
            shape[rank++] = i == d ? 1 : x->shape[i];
    wk_tensor *xv = NULL, *v = NULL, *ix = NULL, *vv = NULL, *iv = NULL;
    wk_status s = dim_last(x, d, perm, &xv);
    for (int i = 0; s == WK_OK && i < xv->rank; i++)
        vshape[i] = i == xv->rank - 1 ? 1 : xv->shape[i];
    if (s == WK_OK)
        s = wk_alloc_output(op, wk_dev(x), x->dtype, rank, shape, &v);
    if (s == WK_OK)
        s = wk_alloc_output(op, wk_dev(x), WK_I64, rank, shape, &ix);
    if (s == WK_OK)
        s = wk_reshape(v, xv->rank, vshape, &vv);
    if (s == WK_OK)
        s = wk_reshape(ix, xv->rank, vshape, &iv);
    if (s == WK_OK)
        s = WK_SLOT(vv, topk, xv, k, mode, vv, iv);
    wk_tensor_release(xv);
    wk_tensor_release(vv);
    wk_tensor_release(iv);
    if (s != WK_OK) {
        wk_tensor_release(v);
        wk_tensor_release(ix);
        return s;
    }
    *values = v;
    *indices = ix;
    return WK_OK;
}

wk_status wk_kthvalue(const wk_tensor *x, int64_t k, int dim, bool keepdim, wk_tensor **values, wk_tensor **indices)
{
    return kth_impl("kthvalue", x, k, dim, keepdim, WK_TOPK_KTH, values, indices);
}

wk_status wk_median(const wk_tensor *x, int dim, bool keepdim, wk_tensor **values, wk_tensor **indices)
{
    return kth_impl("median", x, 0, dim, keepdim, WK_TOPK_MEDIAN, values, indices);
}
