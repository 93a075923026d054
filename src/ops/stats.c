/* stats.c: var, std, logsumexp and the vector norms over any set of dims. Validates, moves the reduced dims last
 * and merges them into one (a copy when their strides do not line up), and hands the stats slot that view. */
#include <math.h>
#include <stdio.h>

#include "ops/common.h"

/* The view of x with its kept dims first and the reduced ones (nred of them; at least one, a size-1 dim for a
 * rank-0 x) after them, in order. */
static wk_status reduced_last(const wk_tensor *x, const bool *reduced, int *nred, wk_tensor **out)
{
    int64_t sh[WK_MAX_RANK + 1], st[WK_MAX_RANK + 1];
    int r = 0;
    *nred = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int d = 0; d < x->rank; d++)
            if (reduced[d] == (pass == 1)) {
                sh[r] = x->shape[d];
                st[r++] = x->strides[d];
                *nred += pass;
            }
    if (*nred == 0) { /* nothing reduced (rank 0): one element */
        sh[r] = 1;
        st[r++] = 1;
        *nred = 1;
    }
    return wk_tensor_view(x, r, sh, st, x->offset, out);
}

/* The value of an empty reduction. */
static double empty_value(wk_stats_op op)
{
    return op == WK_STATS_VAR || op == WK_STATS_STD ? NAN : op == WK_STATS_LOGSUMEXP ? -INFINITY : 0.0;
}

static wk_status run_stats(const char *op, wk_stats_op sop, const wk_tensor *x, const int *dims, int ndims,
                           bool keepdim, double correction, wk_tensor **out)
{
    char buf[200];
    bool reduced[WK_MAX_RANK] = {false};
    WK_TRY(wk_check_tensor(op, "x", x));
    WK_TRY(wk_check_out(op, out));
    WK_TRY(wk_check_float(op, x));
    WK_TRY(wk_reduce_dims(op, x, dims, ndims, reduced));
    int64_t shape[WK_MAX_RANK], count = 1;
    int rank = 0;
    for (int d = 0; d < x->rank; d++) {
        if (reduced[d])
            count *= x->shape[d];
        if (!reduced[d] || keepdim)
            shape[rank++] = reduced[d] ? 1 : x->shape[d];
    }
    if (sop == WK_STATS_NORM_INF && count == 0)
        return wk_error(WK_ERR_SHAPE, "%s: empty reduction of %s has no identity (p = inf)", op,
                        wk_describe(buf, sizeof buf, x));
    WK_TRY(WK_CHECK_SLOT(op, x, stats));
    wk_tensor *o = NULL, *perm = NULL, *xv = NULL;
    WK_TRY(wk_alloc_output(op, wk_dev(x), x->dtype, rank, shape, &o));
    wk_status s = WK_OK;
    if (wk_empty(o))
        return wk_finish(s, o, out);
    if (count == 0)
        return wk_finish(WK_SLOT(o, fill, o, wk_scalar_storage(x->dtype, empty_value(sop))), o, out);
    int nred = 0;
    s = reduced_last(x, reduced, &nred, &perm);
    if (s == WK_OK)
        s = wk_merge_view(op, perm, perm->rank - nred, nred, &xv);
    if (s == WK_OK)
        s = wk_be(x)->stats(sop, xv, correction, o);
    wk_tensor_release(perm);
    wk_tensor_release(xv);
    return wk_finish(s, o, out);
}

wk_status wk_var(const wk_tensor *x, const int *dims, int ndims, bool unbiased, bool keepdim, wk_tensor **out)
{
    return run_stats("var", WK_STATS_VAR, x, dims, ndims, keepdim, unbiased ? 1.0 : 0.0, out);
}

wk_status wk_std(const wk_tensor *x, const int *dims, int ndims, bool unbiased, bool keepdim, wk_tensor **out)
{
    return run_stats("std", WK_STATS_STD, x, dims, ndims, keepdim, unbiased ? 1.0 : 0.0, out);
}

wk_status wk_logsumexp(const wk_tensor *x, const int *dims, int ndims, bool keepdim, wk_tensor **out)
{
    return run_stats("logsumexp", WK_STATS_LOGSUMEXP, x, dims, ndims, keepdim, 0.0, out);
}

wk_status wk_norm(const wk_tensor *x, double p, const int *dims, int ndims, bool keepdim, wk_tensor **out)
{
    static const char op[] = "norm";
    wk_stats_op sop = p == 1 ? WK_STATS_NORM1 : p == 2 ? WK_STATS_NORM2 : WK_STATS_NORM_INF;
    if (p != 1 && p != 2 && !(isinf(p) && p > 0))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: p must be 1, 2 or inf, got %g", op, p);
    return run_stats(op, sop, x, dims, ndims, keepdim, 0.0, out);
}
