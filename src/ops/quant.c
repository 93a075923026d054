/* quant.c: the block-quantization family's front end: dequantize, quantize, row lookup in a quantized table, and the
 * transfers of quantized tensors. A quantized view is moved as a u8 view of its rows' bytes, so the backends only
 * ever see contiguous blocks (their slots: backend.h's dequantize and quantize). */
#include <math.h>
#include <stdlib.h>

#include "ops/common.h"

static wk_status check_float_target(const char *op, const char *what, wk_dtype dt)
{
    if (dt != WK_F32 && dt != WK_F16 && dt != WK_BF16)
        return wk_error(WK_ERR_DTYPE, "%s: %s dtype %s not supported (f32, f16, bf16)", op, what, wk_dtype_name(dt));
    return WK_OK;
}

/* A u8 view of x's rows: shape (x's leading dims, bytes a row), strides and offset in bytes. */
static wk_status bytes_view(const wk_tensor *x, wk_tensor **out)
{
    int64_t bs = wk_dtype_block_size(x->dtype), bb = (int64_t)wk_dtype_block_bytes(x->dtype);
    int64_t sh[WK_MAX_RANK], st[WK_MAX_RANK];
    for (int i = 0; i < x->rank - 1; i++) {
        sh[i] = x->shape[i];
        st[i] = x->shape[i] > 1 ? x->strides[i] / bs * bb : 0;
    }
    sh[x->rank - 1] = x->shape[x->rank - 1] / bs * bb;
    st[x->rank - 1] = 1;
    WK_TRY(wk_tensor_view(x, x->rank, sh, st, x->offset / bs * bb, out));
    (*out)->dtype = WK_U8;
    return WK_OK;
}

/* The contiguous u8 tensor b of rows of qt's blocks seen as a qt tensor of `shape` (elements). */
static wk_status from_bytes(const wk_tensor *b, wk_dtype qt, int rank, const int64_t *shape, wk_tensor **out)
{
    int64_t st[WK_MAX_RANK];
    wk_contiguous_strides(rank, shape, st);
    WK_TRY(wk_tensor_view(b, rank, shape, st, b->offset / (int64_t)wk_dtype_block_bytes(qt) * wk_dtype_block_size(qt),
                          out));
    (*out)->dtype = qt;
    return WK_OK;
}

wk_status wk_quant_contiguous(const wk_tensor *x, wk_tensor **out)
{
    if (wk_tensor_is_contiguous(x)) {
        wk_tensor_retain((wk_tensor *)x);
        *out = (wk_tensor *)x;
        return WK_OK;
    }
    wk_tensor *b = NULL, *c = NULL;
    WK_TRY(bytes_view(x, &b));
    wk_status s = wk_contiguous(b, &c);
    if (s == WK_OK)
        s = from_bytes(c, x->dtype, x->rank, x->shape, out);
    wk_tensor_release(b);
    wk_tensor_release(c);
    return s;
}

wk_status wk_quant_to_host(const wk_tensor *t, void *dst, size_t dst_bytes)
{
    size_t bytes = wk_tensor_nbytes(t);
    if (bytes == 0)
        return WK_OK;
    if (!dst)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "tensor_to_host: dst is NULL");
    if (dst_bytes < bytes)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "tensor_to_host: dst holds %zu bytes, the %s tensor needs %zu",
                        dst_bytes, wk_dtype_name(t->dtype), bytes);
    wk_tensor *c = NULL;
    WK_TRY(wk_quant_contiguous(t, &c));
    wk_status s = wk_be(c)->download(wk_dev(c), dst, wk_tensor_data(c), bytes);
    wk_tensor_release(c);
    return s;
}

wk_status wk_quant_to_device(const char *op, const wk_tensor *t, wk_device *dev, wk_tensor **out)
{
    wk_tensor *c = NULL, *b = NULL, *m = NULL;
    wk_status s = wk_quant_contiguous(t, &c);
    if (s == WK_OK)
        s = bytes_view(c, &b);
    if (s == WK_OK)
        s = wk_to_device(b, dev, &m);
    if (s == WK_OK)
        s = from_bytes(m, t->dtype, t->rank, t->shape, out);
    (void)op;
    wk_tensor_release(c);
    wk_tensor_release(b);
    wk_tensor_release(m);
    return s;
}

/* Runs the dequantize slot over x's contiguous blocks into a new dt tensor of x's shape. */
static wk_status dequantize(const char *op, const wk_tensor *x, wk_dtype dt, wk_tensor **out)
{
    wk_tensor *c = NULL, *o = NULL;
    WK_TRY(WK_CHECK_SLOT(op, x, dequantize));
    WK_TRY(wk_quant_contiguous(x, &c));
    wk_status s = wk_alloc_output(op, wk_dev(x), dt, x->rank, x->shape, &o);
    if (s == WK_OK)
        s = WK_SLOT(o, dequantize, c, o);
    wk_tensor_release(c);
    return wk_finish(s, o, out);
}

wk_status wk_dequantize(const wk_tensor *x, wk_dtype dt, wk_tensor **out)
{
    static const char op[] = "dequantize";
    char buf[200];
    WK_TRY(wk_check_tensor_q(op, "x", x));
    WK_TRY(wk_check_out(op, out));
    if (!wk_dtype_is_quantized(x->dtype))
        return wk_error(WK_ERR_DTYPE, "%s: x %s is not of a block-quantized dtype", op,
                        wk_describe(buf, sizeof buf, x));
    WK_TRY(check_float_target(op, "target", dt));
    return dequantize(op, x, dt, out);
}

/* Every value of x finite: sum(x * 0) over each row is 0, NaN where a row holds NaN or inf. One value a row comes
 * back to the host. */
static wk_status check_finite(const char *op, const wk_tensor *x)
{
    int64_t rows = wk_tensor_numel(x) / x->shape[x->rank - 1];
    wk_tensor *z = NULL, *r = NULL, *f = NULL;
    int last = -1;
    float *host = malloc((size_t)rows * sizeof *host);
    wk_status s = host ? wk_affine(x, 0.0, 0.0, &z) : wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    if (s == WK_OK)
        s = wk_reduce(WK_REDUCE_SUM, z, &last, 1, false, &r);
    if (s == WK_OK)
        s = wk_cast(r, WK_F32, &f);
    if (s == WK_OK)
        s = wk_tensor_to_host(f, host, (size_t)rows * sizeof *host);
    for (int64_t i = 0; s == WK_OK && i < rows; i++)
        if (host[i] != 0.0f)
            s = wk_error(WK_ERR_INVALID_ARGUMENT, "%s: row %lld of x (flattened over the leading dims) holds NaN or "
                         "inf: every value to quantize must be finite", op, (long long)i);
    free(host);
    wk_tensor_release(z);
    wk_tensor_release(r);
    wk_tensor_release(f);
    return s;
}

wk_status wk_quantize(const wk_tensor *x, wk_dtype qt, wk_tensor **out)
{
    static const char op[] = "quantize";
    WK_TRY(wk_check_tensor(op, "x", x));
    WK_TRY(wk_check_out(op, out));
    WK_TRY(check_float_target(op, "x's", x->dtype));
    if (!wk_dtype_is_quantized(qt) || !wk_qi_quantizable((int)qt - WK_Q4_0))
        return wk_error(WK_ERR_DTYPE, "%s: target dtype %s not supported (q4_0, q4_1, q5_0, q5_1, q8_0, q4_k, q5_k, "
                        "q6_k)", op, wk_dtype_name(qt));
    WK_TRY(wk_check_qshape(op, qt, x->rank, x->shape));
    WK_TRY(WK_CHECK_SLOT(op, x, quantize));
    if (wk_empty(x))
        return wk_alloc_output(op, wk_dev(x), qt, x->rank, x->shape, out);
    WK_TRY(check_finite(op, x));
    wk_tensor *c = NULL, *o = NULL;
    wk_status s = wk_tensor_is_contiguous(x) ? WK_OK : wk_contiguous(x, &c);
    if (s == WK_OK)
        s = wk_alloc_output(op, wk_dev(x), qt, x->rank, x->shape, &o);
    if (s == WK_OK)
        s = WK_SLOT(o, quantize, c ? c : x, o);
    wk_tensor_release(c);
    return wk_finish(s, o, out);
}

wk_status wk_index_select_dequant(const wk_tensor *x, const wk_tensor *ids, wk_dtype dt, wk_tensor **out)
{
    static const char op[] = "index_select";
    char buf[200];
    WK_TRY(wk_check_tensor_q(op, "x", x));
    WK_TRY(wk_check_tensor(op, "ids", ids));
    WK_TRY(wk_check_out(op, out));
    if (!wk_dtype_is_quantized(x->dtype))
        return wk_error(WK_ERR_DTYPE, "%s: x %s is not of a block-quantized dtype (use wk_index_select)", op,
                        wk_describe(buf, sizeof buf, x));
    WK_TRY(check_float_target(op, "target", dt));
    if (x->rank < 2)
        return wk_error(WK_ERR_SHAPE, "%s: x %s must be a table of rows (rank >= 2)", op,
                        wk_describe(buf, sizeof buf, x));
    WK_TRY(wk_check_same_device(op, x, ids));
    WK_TRY(wk_check_index_dtype(op, ids));
    WK_TRY(wk_check_rank(op, "ids", ids, 1));
    /* The rows' bytes gathered by the u8 index_select (which checks the indices), then dequantized. */
    wk_tensor *b = NULL, *g = NULL, *q = NULL;
    int64_t sh[WK_MAX_RANK];
    for (int i = 0; i < x->rank; i++)
        sh[i] = i == 0 ? ids->shape[0] : x->shape[i];
    wk_status s = bytes_view(x, &b);
    if (s == WK_OK)
        s = wk_index_select(b, 0, ids, &g);
    if (s == WK_OK)
        s = from_bytes(g, x->dtype, x->rank, sh, &q);
    if (s == WK_OK)
        s = dequantize(op, q, dt, out);
    wk_tensor_release(b);
    wk_tensor_release(g);
    wk_tensor_release(q);
    return s;
}

wk_status wk_quant_index_select(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor **out)
{
    int d = 0;
    WK_TRY(wk_norm_dim("index_select", dim, x->rank, &d));
    if (d != 0)
        return wk_error(WK_ERR_SHAPE, "index_select: a block-quantized x (%s) is looked up along dim 0 only, not %d",
                        wk_dtype_name(x->dtype), dim);
    return wk_index_select_dequant(x, ids, WK_F32, out);
}
