/* matmul.c: wk_matmul / wk_matmul_ex: checks operands, broadcasts the batch dims into stride-0 views of
 * equal rank, allocates the (..., m, n) output and hands the product to the backend's matmul slot. */
#include "ops/common.h"

wk_status wk_matmul(const wk_tensor *a, const wk_tensor *b, wk_tensor **out)
{
    return wk_matmul_ex(a, b, 0, out);
}

wk_status wk_matmul_ex(const wk_tensor *a, const wk_tensor *b, unsigned flags, wk_tensor **out)
{
    static const char op[] = "matmul";
    char b1[200], b2[200];
    WK_TRY(wk_check_tensor(op, "a", a));
    WK_TRY(wk_check_tensor(op, "b", b));
    WK_TRY(wk_check_out(op, out));
    WK_TRY(wk_check_same_device(op, a, b));
    WK_TRY(wk_check_same_dtype(op, a, b));
    WK_TRY(wk_check_float(op, a));
    if (flags & ~(unsigned)WK_MATMUL_ALLOW_TF32)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: unknown flags 0x%x", op, flags);
    if (a->rank < 2 || b->rank < 2)
        return wk_error(WK_ERR_SHAPE, "%s: operands need rank >= 2, got %s and %s", op,
                        wk_describe(b1, sizeof b1, a), wk_describe(b2, sizeof b2, b));
    int64_t m = a->shape[a->rank - 2], k = a->shape[a->rank - 1], n = b->shape[b->rank - 1];
    if (b->shape[b->rank - 2] != k)
        return wk_error(WK_ERR_SHAPE, "%s: inner dims differ: %s x %s", op, wk_describe(b1, sizeof b1, a),
                        wk_describe(b2, sizeof b2, b));

    /* batch dims: numpy broadcast of everything before the last two dims */
    int batch_rank;
    int64_t shape[WK_MAX_RANK];
    WK_TRY(wk_broadcast_shape(op, a->rank - 2, a->shape, b->rank - 2, b->shape, &batch_rank, shape));
    int rank = batch_rank + 2;
    int64_t a_shape[WK_MAX_RANK], b_shape[WK_MAX_RANK];
    for (int i = 0; i < batch_rank; i++)
        a_shape[i] = b_shape[i] = shape[i];
    a_shape[batch_rank] = m;
    a_shape[batch_rank + 1] = k;
    b_shape[batch_rank] = k;
    b_shape[batch_rank + 1] = n;
    shape[batch_rank] = m;
    shape[batch_rank + 1] = n;

    WK_TRY(WK_CHECK_SLOT(op, a, matmul));
    wk_tensor *res = NULL, *av = NULL, *bv = NULL;
    wk_status s = wk_alloc_output(op, wk_dev(a), a->dtype, rank, shape, &res);
    if (s == WK_OK && !wk_empty(res) && k == 0) { /* sums of nothing */
        s = WK_SLOT(res, fill, res, wk_scalar_storage(a->dtype, 0.0));
    } else if (s == WK_OK && !wk_empty(res)) {
        s = wk_broadcast_view(op, a, rank, a_shape, &av);
        if (s == WK_OK)
            s = wk_broadcast_view(op, b, rank, b_shape, &bv);
        if (s == WK_OK)
            s = wk_be(a)->matmul(av, bv, flags, res);
    }
    wk_tensor_release(av);
    wk_tensor_release(bv);
    if (s != WK_OK) {
        wk_tensor_release(res);
        return s;
    }
    *out = res;
    return WK_OK;
}
