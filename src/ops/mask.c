/* mask.c: the mask ops (tril, triu, masked_fill): argument checks, the diagonal clamped to the matrix, the mask's
 * broadcast view over x's shape, the output (x's shape and dtype, contiguous) and the backend call. */
#include "ops/common.h"

/* tril and triu: the diagonal clamped to [-rows, cols], which keeps every row's kept run the same (at -rows tril
 * keeps nothing and triu everything; at cols the reverse) and spares the backends any overflow. */
static wk_status tri(const char *op, wk_tri_kind kind, const wk_tensor *x, int64_t diagonal, wk_tensor **out)
{
    wk_tensor *o = NULL;
    WK_TRY(wk_check_tensor(op, "x", x));
    WK_TRY(wk_check_out(op, out));
    if (x->rank < 2)
        return wk_error(WK_ERR_SHAPE, "%s: x must have rank >= 2 (a matrix or a batch of them), got rank %d", op,
                        x->rank);
    WK_TRY(WK_CHECK_SLOT(op, x, tri));
    int64_t rows = x->shape[x->rank - 2], cols = x->shape[x->rank - 1];
    int64_t d = diagonal < -rows ? -rows : diagonal > cols ? cols : diagonal;
    WK_TRY(wk_alloc_output(op, wk_dev(x), x->dtype, x->rank, x->shape, &o));
    return wk_finish(WK_SLOT(o, tri, x, kind, d, o), o, out);
}

wk_status wk_tril(const wk_tensor *x, int64_t diagonal, wk_tensor **out)
{
    return tri("tril", WK_TRI_LOWER, x, diagonal, out);
}

wk_status wk_triu(const wk_tensor *x, int64_t diagonal, wk_tensor **out)
{
    return tri("triu", WK_TRI_UPPER, x, diagonal, out);
}

wk_status wk_masked_fill(const wk_tensor *x, const wk_tensor *mask, double value, wk_tensor **out)
{
    static const char op[] = "masked_fill";
    wk_tensor *m = NULL, *o = NULL;
    WK_TRY(wk_check_tensor(op, "x", x));
    WK_TRY(wk_check_tensor(op, "mask", mask));
    WK_TRY(wk_check_out(op, out));
    WK_TRY(wk_check_same_device(op, x, mask));
    if (mask->dtype != WK_U8)
        return wk_error(WK_ERR_DTYPE, "%s: mask dtype %s not supported (u8)", op, wk_dtype_name(mask->dtype));
    WK_TRY(WK_CHECK_SLOT(op, x, masked_fill));
    WK_TRY(wk_broadcast_view(op, mask, x->rank, x->shape, &m));
    wk_status s = wk_alloc_output(op, wk_dev(x), x->dtype, x->rank, x->shape, &o);
    if (s == WK_OK)
        s = wk_finish(WK_SLOT(o, masked_fill, x, m, wk_scalar_storage(x->dtype, value), o), o, out);
    wk_tensor_release(m);
    return s;
}
