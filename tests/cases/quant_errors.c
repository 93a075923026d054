/* quant_errors.c: the error paths of the 'quant' family: every op but the views that keep whole rows, the transfers,
 * the row lookup and dequantize refuses a block-quantized tensor with WK_ERR_DTYPE; the shape rule; bad dtypes;
 * NaN/inf input to quantize; the writers that have no type for the block dtypes. */
#include <math.h>
#include <string.h>

#include "harness.h"

/* Every other op given q (a Q4_0 (2, 64) tensor), f (f32 of q's shape) and ids. */
static void refusals(wkt_errctx *e, wk_tensor *q, wk_tensor *f, wk_tensor *ids)
{
    wk_tensor *o = NULL, *o2 = NULL;
    const wk_tensor *two[2] = {q, q};
    int64_t sh[2] = {2, 64}, pads[2] = {1, 1}, reps[2] = {1, 2};
    int dims[1] = {0};
    WKT_EXPECT(e, wk_contiguous(q, &o), WK_ERR_DTYPE, "contiguous");
    WKT_EXPECT(e, wk_cast(q, WK_F32, &o), WK_ERR_DTYPE, "cast");
    WKT_EXPECT(e, wk_cast(f, WK_Q4_0, &o), WK_ERR_DTYPE, "cast");
    WKT_EXPECT(e, wk_fill(q, 1.0), WK_ERR_DTYPE, "fill");
    WKT_EXPECT(e, wk_copy_into(q, q), WK_ERR_DTYPE, "copy_into");
    WKT_EXPECT(e, wk_copy_into(f, q), WK_ERR_DTYPE, "copy_into");
    WKT_EXPECT(e, wk_slice_set(q, q, 0, 0), WK_ERR_DTYPE, "slice_set");
    WKT_EXPECT(e, wk_copy2d(q, q, 1, 32, 64, 64, 0, 64), WK_ERR_DTYPE, "copy2d");
    WKT_EXPECT(e, wk_cat(two, 2, 0, &o), WK_ERR_DTYPE, "cat");
    WKT_EXPECT(e, wk_unary(WK_UNARY_EXP, q, &o), WK_ERR_DTYPE, "unary");
    WKT_EXPECT(e, wk_affine(q, 2.0, 0.0, &o), WK_ERR_DTYPE, "affine");
    WKT_EXPECT(e, wk_clamp(q, 0.0, 1.0, &o), WK_ERR_DTYPE, "clamp");
    WKT_EXPECT(e, wk_binary(WK_BINARY_ADD, q, f, &o), WK_ERR_DTYPE, "binary");
    WKT_EXPECT(e, wk_binary(WK_BINARY_MUL, f, q, &o), WK_ERR_DTYPE, "binary");
    WKT_EXPECT(e, wk_where(ids, q, q, &o), WK_ERR_DTYPE, "where");
    WKT_EXPECT(e, wk_tril(q, 0, &o), WK_ERR_DTYPE, "tril");
    WKT_EXPECT(e, wk_reduce(WK_REDUCE_SUM, q, dims, 1, false, &o), WK_ERR_DTYPE, "reduce");
    WKT_EXPECT(e, wk_argmax(q, 0, false, &o), WK_ERR_DTYPE, "argmax");
    WKT_EXPECT(e, wk_rms_norm(q, NULL, 1e-5, &o), WK_ERR_DTYPE, "rms_norm");
    WKT_EXPECT(e, wk_sort(q, false, &o, &o2), WK_ERR_DTYPE, "sort");
    WKT_EXPECT(e, wk_matmul(f, q, &o), WK_ERR_DTYPE, "matmul");
    WKT_EXPECT(e, wk_matmul(q, f, &o), WK_ERR_DTYPE, "matmul");
    WKT_EXPECT(e, wk_gather(q, 0, ids, &o), WK_ERR_DTYPE, "gather");
    WKT_EXPECT(e, wk_scatter(q, 0, ids, q, &o), WK_ERR_DTYPE, "scatter");
    WKT_EXPECT(e, wk_index_add(q, 0, ids, q, &o), WK_ERR_DTYPE, "index_add");
    WKT_EXPECT(e, wk_pad(q, pads, 2, WK_PAD_CONSTANT, 0.0, &o), WK_ERR_DTYPE, "pad");
    WKT_EXPECT(e, wk_flip(q, dims, 1, &o), WK_ERR_DTYPE, "flip");
    WKT_EXPECT(e, wk_repeat(q, reps, 2, &o), WK_ERR_DTYPE, "repeat");
    WKT_EXPECT(e, wk_broadcast_to(q, 2, sh, &o), WK_ERR_DTYPE, "broadcast_to");
    WKT_EXPECT(e, wk_as_strided(q, 2, sh, (int64_t[]){64, 1}, 0, &o), WK_ERR_DTYPE, "as_strided");
    WKT_EXPECT(e, wk_npy_save("/nonexistent-dir/q.npy", q), WK_ERR_DTYPE, "npy");
    WKT_EXPECT(e, wk_safetensors_save("/nonexistent-dir/q.st", 1, (const char *[]){"q"}, two, 0, NULL, NULL),
               WK_ERR_DTYPE, "safetensors save");
    struct DLManagedTensorVersioned *dl = NULL;
    WKT_EXPECT(e, wk_to_dlpack(q, -1, &dl), WK_ERR_DTYPE, "to_dlpack");
    e->checks++;
    if (o || o2 || dl) {
        e->failures++;
        printf("FAIL quant errors: out-parameter written on failure\n");
    }
}

/* The shape rule, the dtypes of dequantize/quantize, views that would split rows, NaN/inf. */
static void rules(wkt_errctx *e, wk_tensor *q, wk_tensor *f, wk_tensor *ids, wk_tensor *fi)
{
    wk_tensor *o = NULL;
    int64_t odd[2] = {2, 48}, sh[2] = {2, 64}, k48[2] = {2, 48};
    WKT_EXPECT(e, wk_tensor_empty(e->dev, WK_Q4_0, 2, odd, &o), WK_ERR_SHAPE, "tensor");
    WKT_EXPECT(e, wk_tensor_empty(e->dev, WK_Q4_K, 2, sh, &o), WK_ERR_SHAPE, "tensor");
    WKT_EXPECT(e, wk_tensor_empty(e->dev, WK_Q8_0, 0, NULL, &o), WK_ERR_SHAPE, "tensor");
    WKT_EXPECT(e, wk_zeros(e->dev, WK_Q8_0, 2, sh, &o), WK_ERR_DTYPE, "zeros");
    WKT_EXPECT(e, wk_tensor_wrap(e->dev, WK_Q8_0, 2, sh, NULL, (void *)sh, NULL, NULL, &o), WK_ERR_DTYPE, "wrap");
    WKT_EXPECT(e, wk_dequantize(q, WK_F64, &o), WK_ERR_DTYPE, "dequantize");
    WKT_EXPECT(e, wk_dequantize(q, WK_Q8_0, &o), WK_ERR_DTYPE, "dequantize");
    WKT_EXPECT(e, wk_dequantize(f, WK_F32, &o), WK_ERR_DTYPE, "dequantize");
    WKT_EXPECT(e, wk_dequantize(NULL, WK_F32, &o), WK_ERR_INVALID_ARGUMENT, "dequantize");
    WKT_EXPECT(e, wk_quantize(f, WK_Q2_K, &o), WK_ERR_DTYPE, "quantize");
    WKT_EXPECT(e, wk_quantize(f, WK_IQ4_NL, &o), WK_ERR_DTYPE, "quantize");
    WKT_EXPECT(e, wk_quantize(f, WK_F16, &o), WK_ERR_DTYPE, "quantize");
    WKT_EXPECT(e, wk_quantize(fi, WK_Q8_0, &o), WK_ERR_DTYPE, "quantize");
    WKT_EXPECT(e, wk_quantize(q, WK_Q8_0, &o), WK_ERR_DTYPE, "quantize");
    WKT_EXPECT(e, wk_quantize(f, WK_Q4_K, &o), WK_ERR_SHAPE, "quantize"); /* 64 columns: not whole 256-blocks */
    WKT_EXPECT(e, wk_narrow(q, 1, 0, 16, &o), WK_ERR_SHAPE, "narrow");   /* half a block */
    WKT_EXPECT(e, wk_unsqueeze(q, 2, &o), WK_ERR_SHAPE, "unsqueeze");
    WKT_EXPECT(e, wk_transpose(q, 0, 1, &o), WK_ERR_SHAPE, "transpose");
    WKT_EXPECT(e, wk_reshape(q, 2, k48, &o), WK_ERR_SHAPE, "reshape");
    WKT_EXPECT(e, wk_index_select(q, 1, ids, &o), WK_ERR_SHAPE, "index_select");
    WKT_EXPECT(e, wk_index_select_dequant(q, ids, WK_I32, &o), WK_ERR_DTYPE, "index_select");
    WKT_EXPECT(e, wk_index_select_dequant(q, f, WK_F32, &o), WK_ERR_DTYPE, "index_select");
    wk_tensor *row = NULL;
    if (wk_narrow(q, 0, 0, 1, &row) == WK_OK && wk_squeeze(row, 0, &o) == WK_OK) {
        WKT_EXPECT(e, wk_index_select(o, 0, ids, &row), WK_ERR_SHAPE, "index_select"); /* rank 1: no rows */
        wk_tensor_release(o);
        o = NULL;
    }
    wk_tensor_release(row);
    float vals[2 * 64];
    for (int i = 0; i < 2 * 64; i++)
        vals[i] = (float)i;
    for (int k = 0; k < 3; k++) {
        wk_tensor *x = NULL;
        vals[64 + 5] = k == 0 ? NAN : k == 1 ? INFINITY : -INFINITY;
        if (wk_tensor_from_host(e->dev, WK_F32, 2, sh, vals, &x) == WK_OK) {
            WKT_EXPECT(e, wk_quantize(x, WK_Q8_0, &o), WK_ERR_INVALID_ARGUMENT, "quantize");
            e->checks++;
            if (!strstr(wk_last_error(), "row 1")) {
                e->failures++;
                printf("FAIL quant errors: the NaN/inf message does not name row 1: %s\n", wk_last_error());
            }
        }
        wk_tensor_release(x);
    }
    e->checks++;
    if (o) {
        e->failures++;
        printf("FAIL quant errors: out-parameter written on failure\n");
    }
}

void wkt_quant_errors(wkt_errctx *e)
{
    int64_t sh[2] = {2, 64}, one = 1;
    uint8_t blocks[4 * 18];
    memset(blocks, 0, sizeof blocks);
    int64_t idv = 1;
    wk_tensor *q = NULL, *f = NULL, *ids = NULL, *fi = NULL;
    if (wk_tensor_from_host(e->dev, WK_Q4_0, 2, sh, blocks, &q) != WK_OK ||
        wk_zeros(e->dev, WK_F32, 2, sh, &f) != WK_OK || wk_zeros(e->dev, WK_I32, 2, sh, &fi) != WK_OK ||
        wk_tensor_from_host(e->dev, WK_I64, 1, &one, &idv, &ids) != WK_OK) {
        e->checks++;
        e->failures++;
        printf("FAIL quant errors: cannot make inputs: %s\n", wk_last_error());
    } else {
        refusals(e, q, f, ids);
        rules(e, q, f, ids, fi);
    }
    wk_tensor_release(q);
    wk_tensor_release(f);
    wk_tensor_release(ids);
    wk_tensor_release(fi);
}
