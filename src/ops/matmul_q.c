/* matmul_q.c: wk_matmul_q, the linear layer with block-quantized weights: checks x (..., K) and w (N, K), allocates
 * the (..., N) output and hands the backend's matmul_q slot x as a contiguous (M, K) and w's blocks contiguous. */
#include "ops/common.h"

/* A 2-D view (rows, cols) of the contiguous t. */
static wk_status matrix_view(const wk_tensor *t, int64_t rows, int64_t cols, wk_tensor **out)
{
    int64_t sh[2] = {rows, cols}, st[2] = {cols, 1};
    return wk_tensor_view(t, 2, sh, st, t->offset, out);
}

/* out (M, N) = x (M, K, any view) @ w^T through the slot, M, N, K >= 1. */
static wk_status run(const char *op, const wk_tensor *x, const wk_tensor *w, int64_t M, wk_tensor *res)
{
    int64_t K = w->shape[1], N = w->shape[0];
    wk_tensor *xc = NULL, *x2 = NULL, *wc = NULL, *o2 = NULL;
    wk_status s = WK_OK;
    if (wk_tensor_is_contiguous(x))
        wk_tensor_retain((wk_tensor *)x), xc = (wk_tensor *)x;
    else
        s = wk_copy_contiguous(op, x, &xc);
    if (s == WK_OK)
        s = matrix_view(xc, M, K, &x2);
    if (s == WK_OK)
        s = wk_quant_contiguous(w, &wc);
    if (s == WK_OK)
        s = matrix_view(res, M, N, &o2);
    if (s == WK_OK)
        s = wk_be(res)->matmul_q(x2, wc, o2);
    wk_tensor_release(xc);
    wk_tensor_release(x2);
    wk_tensor_release(wc);
    wk_tensor_release(o2);
    return s;
}

wk_status wk_matmul_q(const wk_tensor *x, const wk_tensor *w, wk_tensor **out)
{
    static const char op[] = "matmul_q";
    WK_TRY(wk_check_linear_operands(op, x, w, false));
    WK_TRY(wk_check_out(op, out));
    WK_TRY(WK_CHECK_SLOT(op, x, matmul_q));
    int64_t shape[WK_MAX_RANK], K = w->shape[1], M = 1;
    for (int i = 0; i < x->rank - 1; i++) {
        shape[i] = x->shape[i];
        M *= x->shape[i];
    }
    shape[x->rank - 1] = w->shape[0];
    wk_tensor *res = NULL;
    wk_status s = wk_alloc_output(op, wk_dev(x), x->dtype, x->rank, shape, &res);
    if (s == WK_OK && !wk_empty(res) && K == 0) /* sums of nothing */
        s = WK_SLOT(res, fill, res, wk_scalar_storage(x->dtype, 0.0));
    else if (s == WK_OK && !wk_empty(res))
        s = run(op, x, w, M, res);
    return wk_finish(s, res, out);
}
