/* quant.c: case family 'quant': dequantize of random blocks of every GGML block type (contiguous, narrowed and
 * transposed views) to f32/f16/bf16 and row lookup, exact against a plain float64 decoding of the GGUF layouts
 * (quant_ref.c); quantize's round trip error per type; the error paths (every other op refuses a block-quantized
 * tensor). gguf-py's own numbers are checked by tests/py/test_quant.py. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quant_ref.h"

/* iparam[0]: block type (from WK_Q4_0); iparam[1]: 0 rows 0..R-1 of an (R+2, C) table, 1 rows 1..R (narrow), 2 the
 * transpose of dims 0 and 1 of the table as (2, (R+2)/2, C) (rows not evenly spaced), 3 R rows looked up by i32 ids. */
static void run_dequant(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int qi = c->iparam[0], mode = c->iparam[1];
    int64_t R = c->shape[0], C = c->shape[1], rows = R + 2, bpr = C / wkt_qblock[qi], out_rows = mode == 2 ? rows : R;
    uint8_t *blocks = malloc((size_t)(rows * bpr * wkt_qbytes[qi]) + 1);
    double *want = malloc((size_t)(out_rows * C) * sizeof(double) + 1), *got = NULL;
    int32_t *ids = malloc((size_t)out_rows * sizeof(int32_t) + 1);
    int64_t *src = malloc((size_t)out_rows * sizeof(int64_t) + 1); /* the table row of each output row */
    wk_tensor *t = NULL, *v = NULL, *o = NULL, *it = NULL;
    if (!blocks || !want || !ids || !src) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    wkt_q_random_blocks(qi, rows * bpr, rng, blocks, 0.1, true);
    int64_t shape3[3] = {2, rows / 2, C}, shape2[2] = {rows, C}, len = R;
    for (int64_t i = 0; i < out_rows; i++) {
        ids[i] = (int32_t)wkt_rng_int(rng, 0, rows - 1);
        src[i] = mode == 0 ? i : mode == 1 ? i + 1 : mode == 3 ? ids[i] : (i % 2) * (rows / 2) + i / 2;
    }
    wk_dtype qt = (wk_dtype)(WK_Q4_0 + qi);
    if (wkt_failed(mode == 2 ? wk_tensor_from_host(dev, qt, 3, shape3, blocks, &t)
                             : wk_tensor_from_host(dev, qt, 2, shape2, blocks, &t), r, "from_host"))
        goto done;
    wk_status s = mode == 0   ? wk_narrow(t, 0, 0, R, &v)
                  : mode == 1 ? wk_narrow(t, 0, 1, R, &v)
                  : mode == 2 ? wk_transpose(t, 0, 1, &v)
                              : wk_tensor_from_host(dev, WK_I32, 1, &len, ids, &it);
    if (wkt_failed(s, r, "view"))
        goto done;
    s = mode == 3 ? wk_index_select_dequant(t, it, c->dtype, &o) : wk_dequantize(v, c->dtype, &o);
    if (wkt_failed(s, r, c->op) || wkt_failed(wkt_read(o, &got), r, "read"))
        goto done;
    for (int64_t i = 0; i < out_rows; i++)
        for (int64_t e = 0; e < C; e++) {
            const uint8_t *blk = blocks + (src[i] * bpr + e / wkt_qblock[qi]) * wkt_qbytes[qi];
            want[i * C + e] = wkt_round_to(c->dtype, wkt_q_ref_value(qi, blk, (int)(e % wkt_qblock[qi])));
        }
    if (wk_tensor_numel(o) != out_rows * C)
        wkt_fail(r, "result has %lld elements, not %lld", (long long)wk_tensor_numel(o), (long long)(out_rows * C));
    else
        wkt_compare(c->dtype, got, want, out_rows * C, 0, true, r);
done:
    free(blocks), free(want), free(got), free(ids), free(src);
    wk_tensor_release(t), wk_tensor_release(v), wk_tensor_release(o), wk_tensor_release(it);
}

/* Quantize N(0,1)-like values and decode the blocks here: the relative L2 error must stay under the type's bound. */
static void run_quant(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    static const double bound[WKT_NQT] = {0.15, 0.12, 0.07, 0.06, 0.012, 0, 0, 0.1, 0.05, 0.03};
    int qi = c->iparam[0];
    int64_t n = c->shape[0] * c->shape[1];
    wk_tensor *x = NULL, *q = NULL;
    double *xv = NULL, *dec = malloc((size_t)n * sizeof(double) + 1);
    uint8_t *blocks = malloc((size_t)(n / wkt_qblock[qi] * wkt_qbytes[qi]) + 1);
    if (!dec || !blocks) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    wkt_dist dist = {-2.0, 2.0};
    if (wkt_failed(wkt_make(dev, c->dtype, 2, c->shape, c->layout, dist, rng, &x, &xv), r, "make x") ||
        wkt_failed(wk_quantize(x, (wk_dtype)(WK_Q4_0 + qi), &q), r, "quantize") ||
        wkt_failed(wk_tensor_to_host(q, blocks, (size_t)(n / wkt_qblock[qi] * wkt_qbytes[qi])), r, "to_host"))
        goto done;
    for (int64_t e = 0; e < n; e++)
        dec[e] = wkt_q_ref_value(qi, blocks + e / wkt_qblock[qi] * wkt_qbytes[qi], (int)(e % wkt_qblock[qi]));
    wkt_compare(WK_F32, dec, xv, n, bound[qi], false, r);
done:
    free(xv), free(dec), free(blocks);
    wk_tensor_release(x), wk_tensor_release(q);
}

static void add(wkt_list *l, const char *op, wk_dtype dt, int qi, int mode, int64_t rows, int64_t cols,
                wkt_layout layout, wkt_run_fn run)
{
    wkt_case c;
    memset(&c, 0, sizeof c);
    c.family = "quant";
    snprintf(c.op, sizeof c.op, "%s", op);
    c.dtype = dt;
    c.layout = layout;
    c.rank = 2;
    c.shape[0] = rows;
    c.shape[1] = cols;
    c.iparam[0] = qi;
    c.iparam[1] = mode;
    c.run = run;
    wkt_add(l, &c);
}

static void cases(wkt_list *l)
{
    static const wk_dtype outs[] = {WK_F32, WK_F16, WK_BF16};
    static const int makes[] = {0, 1, 2, 3, 4, 7, 8, 9};
    for (int qi = 0; qi < WKT_NQT; qi++) {
        for (int k = 0; k < 3; k++)
            add(l, "dequantize", outs[k], qi, 0, 6, 2 * wkt_qblock[qi], WKT_CONTIG, run_dequant);
        add(l, "dequantize", WK_F32, qi, 1, 5, wkt_qblock[qi], WKT_CONTIG, run_dequant);
        add(l, "dequantize", WK_F16, qi, 2, 6, wkt_qblock[qi], WKT_CONTIG, run_dequant);
        add(l, "index_select", WK_F32, qi, 3, 7, wkt_qblock[qi], WKT_CONTIG, run_dequant);
        add(l, "dequantize", WK_F32, qi, 0, 64, 4 * wkt_qblock[qi], WKT_CONTIG, run_dequant);
    }
    for (size_t k = 0; k < sizeof makes / sizeof makes[0]; k++) {
        int qi = makes[k];
        add(l, "quantize", WK_F32, qi, 0, 8, 2 * wkt_qblock[qi], WKT_CONTIG, run_quant);
        add(l, "quantize", WK_BF16, qi, 0, 4, wkt_qblock[qi], WKT_TRANSPOSED, run_quant);
        add(l, "quantize", WK_F16, qi, 0, 3, wkt_qblock[qi], WKT_OFFSET, run_quant);
    }
}

void wkt_quant_errors(wkt_errctx *e); /* quant_errors.c */

const wkt_family wkt_family_quant = {.name = "quant", .cases = cases, .errors = wkt_quant_errors};
