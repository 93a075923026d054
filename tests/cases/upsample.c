/* upsample.c: the resampling cases of the 'pool' family: upsample_nearest1d/2d (every dtype) and
 * upsample_bilinear2d (float; align_corners, explicit scales) against a plain float64 reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"

/* PyTorch's nearest rule, whose scale is in / out rounded to float and multiplied in float. */
static int64_t ref_nearest(int64_t dst, int64_t in, int64_t out)
{
    float scale = (float)in / (float)out;
    int64_t src = (int64_t)floorf((float)dst * scale);
    return src < in - 1 ? src : in - 1;
}

/* Rounds to the opmath type of the op: f32 for f16/bf16/f32 inputs (single = true), f64 for f64. */
static double opm(bool single, double v) { return single ? (double)(float)v : v; }

/* Bilinear source position along one axis by PyTorch's area_pixel rules, each step rounded to the opmath
 * type as PyTorch computes it: lower index, upper index and the two weights. An axis whose size does not
 * change is copied. */
static void ref_linear(int64_t dst, int64_t in, int64_t out, bool align, double scale, bool single, int64_t *i0,
                       int64_t *i1, double *w0, double *w1)
{
    if (in == out) {
        *i0 = *i1 = dst;
        *w0 = 1;
        *w1 = 0;
        return;
    }
    double real;
    if (align)
        real = out > 1 ? opm(single, opm(single, (double)(in - 1) / (double)(out - 1)) * (double)dst) : 0;
    else {
        double ratio = opm(single, scale > 0 ? 1 / scale : (double)in / (double)out);
        real = opm(single, opm(single, ratio * opm(single, dst + 0.5)) - 0.5);
        if (real < 0)
            real = 0;
    }
    int64_t lo = (int64_t)floor(real);
    if (lo > in - 1)
        lo = in - 1;
    double w = real - (double)lo;
    w = w < 0 ? 0 : w > 1 ? 1 : w;
    *i0 = lo;
    *i1 = lo < in - 1 ? lo + 1 : lo;
    *w1 = w;
    *w0 = opm(single, 1 - w);
}

/* iparam: out sizes (1-D: [0]; 2-D: [0], [1]), align_corners [2]; fparam: scale_h, scale_w. */
static void run_upsample(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    bool is1d = c->rank == 3, bilinear = strcmp(c->op, "upsample_bilinear2d") == 0, align = c->iparam[2] != 0;
    int64_t N = c->shape[0], C = c->shape[1], H = is1d ? 1 : c->shape[2], W = c->shape[c->rank - 1];
    int64_t OH = is1d ? 1 : c->iparam[0], OW = c->iparam[is1d ? 0 : 1];
    int64_t os[4] = {N, C, is1d ? OW : OH, OW};
    wk_tensor *x = NULL, *o = NULL;
    double *xv = NULL, *got = NULL, *want = NULL;
    if (wkt_failed(wkt_make(dev, c->dtype, c->rank, c->shape, c->layout, wkt_dist_default(c->dtype), rng, &x, &xv),
                   r, "make x"))
        goto done;
    wk_status s = is1d       ? wk_upsample_nearest1d(x, OW, &o)
                  : bilinear ? wk_upsample_bilinear2d(x, OH, OW, align, c->fparam[0], c->fparam[1], &o)
                             : wk_upsample_nearest2d(x, OH, OW, &o);
    if (wkt_failed(s, r, c->op) || !pl_check_shape(o, c->dtype, c->rank, os, r))
        goto done;
    int64_t n = N * C * OH * OW;
    want = malloc((size_t)n * sizeof *want + 1);
    if (!want || wkt_failed(wkt_read(o, &got), r, "read")) {
        if (!want)
            wkt_fail(r, "out of host memory");
        goto done;
    }
    for (int64_t nc = 0; nc < N * C; nc++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) {
                const double *plane = xv + nc * H * W;
                double *dst = want + (nc * OH + oh) * OW + ow;
                if (!bilinear) {
                    *dst = plane[ref_nearest(oh, H, OH) * W + ref_nearest(ow, W, OW)];
                    continue;
                }
                int64_t h0, h1, w0, w1;
                double lh0, lh1, lw0, lw1;
                bool single = c->dtype != WK_F64;
                ref_linear(oh, H, OH, align, c->fparam[0], single, &h0, &h1, &lh0, &lh1);
                ref_linear(ow, W, OW, align, c->fparam[1], single, &w0, &w1, &lw0, &lw1);
                double top = lw0 * plane[h0 * W + w0] + lw1 * plane[h0 * W + w1];
                double bottom = lw0 * plane[h1 * W + w0] + lw1 * plane[h1 * W + w1];
                *dst = wkt_round_to(c->dtype, lh0 * top + lh1 * bottom);
            }
    wkt_compare(c->dtype, got, want, n, wkt_tol(c->dtype, WKT_TOL_ELEMENTWISE), !bilinear, r);
done:
    free(xv);
    free(got);
    free(want);
    wk_tensor_release(x);
    wk_tensor_release(o);
}

static void add_1d(wkt_list *l, wk_dtype dt, wkt_layout layout, int64_t in, int64_t out)
{
    int64_t shape[3] = {2, 3, in};
    int ip[8] = {(int)out};
    pl_add(l, "upsample_nearest1d", dt, layout, 3, shape, ip, NULL, run_upsample);
}

static void add_2d(wkt_list *l, const char *op, wk_dtype dt, wkt_layout layout, const int64_t *in,
                   const int64_t *out, int align, double scale_h, double scale_w)
{
    int64_t shape[4] = {2, 3, in[0], in[1]};
    if (in[0] * in[1] > 1000) {
        shape[0] = 2;
        shape[1] = 4;
    }
    int ip[8] = {(int)out[0], (int)out[1], align};
    double fp[4] = {scale_h, scale_w};
    pl_add(l, op, dt, layout, 4, shape, ip, fp, run_upsample);
}

void pl_upsample_cases(wkt_list *l)
{
    static const wk_dtype all[] = {WK_U8, WK_U32, WK_I32, WK_I64, WK_F16, WK_BF16, WK_F32, WK_F64};
    static const wk_dtype floats[] = {WK_F16, WK_BF16, WK_F32, WK_F64};
    /* up, down, non-integer ratios both ways, unchanged, doubled, to and from one */
    static const int64_t sizes1[][2] = {{5, 12}, {12, 5}, {7, 10}, {10, 7}, {6, 6}, {4, 8}, {9, 1}, {1, 5}, {13, 4}};
    static const int64_t sizes2[][4] = {{4, 6, 8, 12}, {8, 12, 3, 5}, {5, 7, 7, 5}, {6, 6, 6, 6},
                                        {3, 3, 1, 1},  {1, 1, 4, 3},  {7, 5, 7, 10}, {5, 7, 11, 3}};
    for (size_t i = 0; i < sizeof sizes1 / sizeof sizes1[0]; i++)
        add_1d(l, WK_F32, WKT_CONTIG, sizes1[i][0], sizes1[i][1]);
    for (size_t i = 0; i < sizeof sizes2 / sizeof sizes2[0]; i++) {
        add_2d(l, "upsample_nearest2d", WK_F32, WKT_CONTIG, sizes2[i], sizes2[i] + 2, 0, 0, 0);
        /* f32 and f64 at every size; f16 and bf16 on alternate sizes */
        for (size_t f = i % 2 ? 0 : 2; f < sizeof floats / sizeof floats[0]; f++)
            for (int align = 0; align < 2; align++)
                add_2d(l, "upsample_bilinear2d", floats[f], WKT_CONTIG, sizes2[i], sizes2[i] + 2, align, 0, 0);
    }
    /* every dtype in every layout */
    const int64_t in2[2] = {5, 7}, out2[2] = {11, 3};
    for (wkt_layout lay = 0; lay < WKT_LAYOUT_COUNT; lay++) {
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
            add_1d(l, all[i], lay, 7, 10);
            add_2d(l, "upsample_nearest2d", all[i], lay, in2, out2, 0, 0, 0);
        }
        if (lay != WKT_CONTIG)
            for (size_t f = 0; f < sizeof floats / sizeof floats[0]; f++)
                add_2d(l, "upsample_bilinear2d", floats[f], lay, in2, out2, (int)f & 1, 0, 0);
    }
    /* explicit scale factors (PyTorch's scale_factor, recompute_scale_factor=False): used for the source
     * index without align_corners, ignored with it */
    const int64_t s_in[2] = {5, 7}, s_out[2] = {12, 17}, d_in[2] = {8, 12}, d_out[2] = {3, 5}, e_in[2] = {4, 6},
                  e_out[2] = {8, 12};
    for (size_t f = 0; f < sizeof floats / sizeof floats[0]; f++)
        for (int align = 0; align < 2; align++) {
            add_2d(l, "upsample_bilinear2d", floats[f], WKT_CONTIG, s_in, s_out, align, 2.5, 2.5);
            add_2d(l, "upsample_bilinear2d", floats[f], WKT_TRANSPOSED, d_in, d_out, align, 0.4, 0.45);
        }
    add_2d(l, "upsample_bilinear2d", WK_F32, WKT_CONTIG, e_in, e_out, 0, 2, 2);
    add_2d(l, "upsample_bilinear2d", WK_F64, WKT_OFFSET, s_in, s_out, 0, 2.5, 0);
    /* large enough to run threaded */
    const int64_t big_in[2] = {64, 64}, big_out[2] = {128, 96}, big_down[2] = {37, 50};
    add_2d(l, "upsample_bilinear2d", WK_F32, WKT_CONTIG, big_in, big_out, 0, 0, 0);
    add_2d(l, "upsample_bilinear2d", WK_F16, WKT_PERMUTED, big_in, big_down, 1, 0, 0);
    add_2d(l, "upsample_nearest2d", WK_U8, WKT_CONTIG, big_in, big_out, 0, 0, 0);
}

void pl_upsample_errors(wkt_errctx *e)
{
    const int64_t s3[3] = {1, 2, 5}, s4[4] = {1, 2, 5, 5}, empty4[4] = {1, 2, 5, 0}, empty3[3] = {1, 2, 0};
    wk_tensor *x3 = NULL, *x4 = NULL, *xi = NULL, *xe4 = NULL, *xe3 = NULL, *o = NULL;
    if (wk_zeros(e->dev, WK_F32, 3, s3, &x3) != WK_OK || wk_zeros(e->dev, WK_F32, 4, s4, &x4) != WK_OK ||
        wk_zeros(e->dev, WK_I32, 4, s4, &xi) != WK_OK || wk_zeros(e->dev, WK_F32, 4, empty4, &xe4) != WK_OK ||
        wk_zeros(e->dev, WK_F32, 3, empty3, &xe3) != WK_OK) {
        e->checks++;
        e->failures++;
        printf("FAIL upsample errors: cannot make inputs: %s\n", wk_last_error());
        goto done;
    }
    WKT_EXPECT(e, wk_upsample_nearest1d(NULL, 4, &o), WK_ERR_INVALID_ARGUMENT, "upsample_nearest1d");
    WKT_EXPECT(e, wk_upsample_nearest1d(x3, 4, NULL), WK_ERR_INVALID_ARGUMENT, "upsample_nearest1d");
    WKT_EXPECT(e, wk_upsample_nearest1d(x3, 0, &o), WK_ERR_SHAPE, "upsample_nearest1d");
    WKT_EXPECT(e, wk_upsample_nearest1d(x3, -2, &o), WK_ERR_SHAPE, "upsample_nearest1d");
    WKT_EXPECT(e, wk_upsample_nearest1d(x4, 4, &o), WK_ERR_SHAPE, "upsample_nearest1d");
    WKT_EXPECT(e, wk_upsample_nearest1d(xe3, 4, &o), WK_ERR_SHAPE, "upsample_nearest1d");
    WKT_EXPECT(e, wk_upsample_nearest2d(x4, 0, 3, &o), WK_ERR_SHAPE, "upsample_nearest2d");
    WKT_EXPECT(e, wk_upsample_nearest2d(x4, 3, 0, &o), WK_ERR_SHAPE, "upsample_nearest2d");
    WKT_EXPECT(e, wk_upsample_nearest2d(x3, 3, 3, &o), WK_ERR_SHAPE, "upsample_nearest2d");
    WKT_EXPECT(e, wk_upsample_nearest2d(xe4, 3, 3, &o), WK_ERR_SHAPE, "upsample_nearest2d");
    WKT_EXPECT(e, wk_upsample_nearest2d(NULL, 3, 3, &o), WK_ERR_INVALID_ARGUMENT, "upsample_nearest2d");
    WKT_EXPECT(e, wk_upsample_bilinear2d(x4, 0, 4, false, 0, 0, &o), WK_ERR_SHAPE, "upsample_bilinear2d");
    WKT_EXPECT(e, wk_upsample_bilinear2d(x4, 4, -1, true, 0, 0, &o), WK_ERR_SHAPE, "upsample_bilinear2d");
    WKT_EXPECT(e, wk_upsample_bilinear2d(xi, 4, 4, false, 0, 0, &o), WK_ERR_DTYPE, "upsample_bilinear2d");
    WKT_EXPECT(e, wk_upsample_bilinear2d(x3, 4, 4, false, 0, 0, &o), WK_ERR_SHAPE, "upsample_bilinear2d");
    WKT_EXPECT(e, wk_upsample_bilinear2d(xe4, 4, 4, false, 0, 0, &o), WK_ERR_SHAPE, "upsample_bilinear2d");
    WKT_EXPECT(e, wk_upsample_bilinear2d(x4, 4, 4, false, 0, 0, NULL), WK_ERR_INVALID_ARGUMENT,
               "upsample_bilinear2d");
    pl_expect_untouched(e, o, "upsample errors");
done:
    wk_tensor_release(x3);
    wk_tensor_release(x4);
    wk_tensor_release(xi);
    wk_tensor_release(xe4);
    wk_tensor_release(xe3);
}
