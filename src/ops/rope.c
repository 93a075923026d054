/* rope.c: rotary position embeddings as candle-nn's rotary_emb defines them (rope, rope_i, rope_thd):
 * argument checks and the output; the backend's rope slot does the rotation. */
#include "ops/common.h"

static wk_status rope(const char *op, wk_rope_kind kind, const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin,
                      wk_tensor **out)
{
    char b1[200], b2[200];
    WK_TRY(wk_check_tensor(op, "x", x));
    WK_TRY(wk_check_tensor(op, "cos", cos));
    WK_TRY(wk_check_tensor(op, "sin", sin));
    WK_TRY(wk_check_out(op, out));
    WK_TRY(wk_check_same_device(op, x, cos));
    WK_TRY(wk_check_same_device(op, x, sin));
    WK_TRY(wk_check_float(op, x));
    WK_TRY(wk_check_same_dtype(op, x, cos));
    WK_TRY(wk_check_same_dtype(op, x, sin));
    WK_TRY(wk_check_rank(op, kind == WK_ROPE_THD ? "x (B, T, H, D)" : "x (B, H, T, D)", x, 4));
    int64_t T = x->shape[kind == WK_ROPE_THD ? 1 : 2], D = x->shape[3];
    if (D % 2 != 0)
        return wk_error(WK_ERR_SHAPE, "%s: last dim of x %s must be even", op, wk_describe(b1, sizeof b1, x));
    const wk_tensor *tables[2] = {cos, sin};
    for (int k = 0; k < 2; k++)
        if (tables[k]->rank != 2 || tables[k]->shape[0] != T || tables[k]->shape[1] != D / 2)
            return wk_error(WK_ERR_SHAPE, "%s: %s must be (T, D/2) = (%lld, %lld) for x %s, got %s", op,
                            k ? "sin" : "cos", (long long)T, (long long)(D / 2), wk_describe(b1, sizeof b1, x),
                            wk_describe(b2, sizeof b2, tables[k]));
    WK_TRY(WK_CHECK_SLOT(op, x, rope));
    wk_tensor *o = NULL;
    WK_TRY(wk_alloc_output(op, wk_dev(x), x->dtype, 4, x->shape, &o));
    wk_status s = WK_SLOT(o, rope, kind, x, cos, sin, o);
    if (s != WK_OK) {
        wk_tensor_release(o);
        return s;
    }
    *out = o;
    return WK_OK;
}

wk_status wk_rope(const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin, wk_tensor **out)
{
    return rope("rope", WK_ROPE_HALVES, x, cos, sin, out);
}

wk_status wk_rope_i(const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin, wk_tensor **out)
{
    return rope("rope_i", WK_ROPE_INTERLEAVED, x, cos, sin, out);
}

wk_status wk_rope_thd(const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin, wk_tensor **out)
{
    return rope("rope_thd", WK_ROPE_THD, x, cos, sin, out);
}
