/* reorder_pad.c: the 'reorder' family's pad cases: constant, reflect, replicate and circular over the last 1, 2 or
 * 3 dims (and every dim for constant), negative pads, every dtype and layout, against a plain reference of
 * torch.nn.functional.pad; the cases whose parameters PyTorch refuses expect its error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reorder.h"

static const char *const mode_ops[4] = {"pad_constant", "pad_reflect", "pad_replicate", "pad_circular"};

static int64_t min0(int64_t v) { return v < 0 ? v : 0; }
static int64_t max0(int64_t v) { return v > 0 ? v : 0; }

/* PyTorch's checks (and wick's one addition for circular, wick.h), written from its rules; fills the output shape. */
static wk_status expected(wk_pad_mode mode, int rank, const int64_t *shape, const int64_t *pads, int npads,
                          int64_t *oshape)
{
    if (npads % 2 != 0 || npads > 2 * rank)
        return WK_ERR_INVALID_ARGUMENT;
    int k = npads / 2;
    memcpy(oshape, shape, sizeof(int64_t) * (size_t)rank);
    if (mode != WK_PAD_CONSTANT) {
        if (k < 1 || k > 3 || (rank != k + 1 && rank != k + 2))
            return WK_ERR_SHAPE;
        for (int d = rank == k + 2 ? 1 : 0; d < rank; d++)
            if (shape[d] == 0)
                return WK_ERR_SHAPE;
    }
    for (int i = 0; i < k; i++) {
        int d = rank - 1 - i;
        int64_t n = shape[d], l = pads[2 * i], r = pads[2 * i + 1], kept = n + min0(l) + min0(r);
        oshape[d] = n + l + r;
        bool bad = mode == WK_PAD_CONSTANT    ? kept < 0
                   : mode == WK_PAD_REFLECT   ? l >= n || r >= n || oshape[d] < 1
                   : mode == WK_PAD_REPLICATE ? oshape[d] < 1
                                              : l > n || r > n || oshape[d] < 0 || max0(l) > kept || max0(r) > kept;
        if (bad)
            return WK_ERR_SHAPE;
    }
    return WK_OK;
}

/* The input index output index o reads along a dim of size n padded by (l, r), or -1 for the value. */
static int64_t ref_src(wk_pad_mode mode, int64_t o, int64_t n, int64_t l, int64_t r)
{
    int64_t i = o - l;
    if (mode == WK_PAD_CONSTANT)
        return i >= 0 && i < n ? i : -1;
    if (mode == WK_PAD_REPLICATE)
        return i < 0 ? 0 : i >= n ? n - 1 : i;
    if (mode == WK_PAD_REFLECT) { /* the mirror image repeats every 2(n-1) */
        if (n == 1)
            return 0;
        int64_t period = 2 * (n - 1), m = ((i % period) + period) % period;
        return m < n ? m : period - m;
    }
    /* circular: crop first, then wrap the positive pads around what is left */
    int64_t kept = n + min0(l) + min0(r), j = o - max0(l);
    return -min0(l) + ((j % kept) + kept) % kept;
}

/* iparam: mode, npads, pads[0..5]; fparam[0]: the value. */
static void run_pad(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    wk_pad_mode mode = (wk_pad_mode)c->iparam[0];
    int npads = c->iparam[1], rank = c->rank, k = npads / 2;
    int64_t pads[6], oshape[WK_MAX_RANK], oc[WK_MAX_RANK] = {0}, ic[WK_MAX_RANK] = {0};
    for (int i = 0; i < 6; i++)
        pads[i] = c->iparam[2 + i];
    wk_tensor *x = NULL, *o = NULL;
    double *xv = NULL, *want = NULL, value = c->fparam[0];
    wk_status want_s = expected(mode, rank, c->shape, pads, npads, oshape);
    if (wkt_failed(wkt_make(dev, c->dtype, rank, c->shape, c->layout, wkt_dist_default(c->dtype), rng, &x, &xv), r,
                   "make x"))
        goto done;
    wk_status s = wk_pad(x, pads, npads, mode, value, &o);
    if (want_s != WK_OK) {
        rt_expect_status(s, want_s, "pad", r);
        goto done;
    }
    if (wkt_failed(s, r, "pad"))
        goto done;
    int64_t n = rt_numel(rank, oshape);
    want = malloc((size_t)n * sizeof *want + 1);
    if (!want) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    double fill = wk_dtype_is_float(c->dtype) ? wkt_round_to(c->dtype, value) : trunc(value);
    for (int64_t i = 0; i < n; i++) {
        rt_unravel(rank, oshape, i, oc);
        bool outside = false;
        for (int d = 0; d < rank; d++) {
            int p = rank - 1 - d; /* pad pair of dim d */
            ic[d] = p < k ? ref_src(mode, oc[d], c->shape[d], pads[2 * p], pads[2 * p + 1]) : oc[d];
            outside = outside || ic[d] < 0;
        }
        want[i] = outside ? fill : xv[rt_ravel(rank, c->shape, ic)];
    }
    rt_check(o, c->dtype, rank, oshape, want, r);
done:
    free(xv);
    free(want);
    wk_tensor_release(x);
    wk_tensor_release(o);
}

static void add(wkt_list *l, wk_pad_mode mode, wk_dtype dt, wkt_layout lay, int rank, const int64_t *shape,
                int npads, const int64_t *pads, double value)
{
    if (!wkt_layout_applies(lay, rank, shape))
        return;
    wkt_case c;
    memset(&c, 0, sizeof c);
    c.family = "reorder";
    snprintf(c.op, sizeof c.op, "%s", mode_ops[mode]);
    c.dtype = dt;
    c.layout = lay;
    c.rank = rank;
    memcpy(c.shape, shape, sizeof(int64_t) * (size_t)rank);
    c.iparam[0] = (int)mode;
    c.iparam[1] = npads;
    for (int i = 0; i < npads && i < 6; i++)
        c.iparam[2 + i] = (int)pads[i];
    c.fparam[0] = value;
    c.run = run_pad;
    wkt_add(l, &c);
}

void rt_pad_cases(wkt_list *l)
{
    const int64_t s3[3] = {3, 6, 5}, s4[4] = {2, 3, 5, 7}, s5[5] = {2, 2, 4, 5, 6}, big[4] = {8, 16, 64, 64};
    const int64_t p1[2] = {1, 2}, p2[4] = {2, 1, 1, 3}, p3[6] = {1, 2, 2, 1, 3, 0}, pneg[4] = {-1, 2, 2, -2};
    const int64_t pcrop[4] = {-2, -1, -1, 0}, pmix[2] = {3, -2}, p3big[4] = {3, 3, 3, 3}, pall[6] = {1, 0, 2, 1, 0, 2};
    const int64_t pzero[2] = {-3, -4}, pedge[4] = {4, 6, 2, 4}, pwrap[2] = {-4, 2};
    static const wk_dtype all[] = {WK_U8, WK_U32, WK_I32, WK_I64, WK_F16, WK_BF16, WK_F32, WK_F64};
    for (int m = 0; m < 4; m++) {
        wk_pad_mode mode = (wk_pad_mode)m;
        for (size_t i = 0; i < sizeof all / sizeof *all; i++)
            add(l, mode, all[i], WKT_CONTIG, 4, s4, 4, p2, wk_dtype_is_float(all[i]) ? -1.5 : 7.9);
        for (wkt_layout lay = 0; lay < WKT_LAYOUT_COUNT; lay++)
            add(l, mode, WK_F32, lay, 4, s4, 4, p2, 2.5);
        add(l, mode, WK_F32, WKT_CONTIG, 3, s3, 2, p1, 0.5);  /* 1 dim of a batch */
        add(l, mode, WK_F64, WKT_PERMUTED, 2, s3 + 1, 2, p1, 0.5); /* 1 dim, no batch */
        add(l, mode, WK_F32, WKT_CONTIG, 5, s5, 6, p3, 0.5);  /* 3 dims of a batch */
        add(l, mode, WK_BF16, WKT_OFFSET, 4, s4, 6, p3, 0.5); /* 3 dims, no batch */
        add(l, mode, WK_F32, WKT_TRANSPOSED, 4, s4, 4, pneg, 1); /* crops and pads */
        add(l, mode, WK_I32, WKT_CONTIG, 4, s4, 4, pcrop, 1);    /* crops only */
        add(l, mode, WK_F16, WKT_CONTIG, 3, s3, 2, pmix, 1);     /* (3, -2) */
        add(l, mode, WK_F32, WKT_CONTIG, 4, big, 4, p3big, 0); /* the benchmark's image, scaled down */
        add(l, mode, WK_F32, WKT_CONTIG, 4, s4, 4, pedge, 0);  /* reflect: pads at the dim's limit */
        add(l, mode, WK_F32, WKT_CONTIG, 3, s3, 2, pwrap, 0);  /* circular: more pad than the crop leaves */
    }
    const int64_t emptied[2] = {3, 0}, pe[2] = {1, 2}, p0[1] = {0};
    add(l, WK_PAD_CONSTANT, WK_F32, WKT_CONTIG, 3, s3, 6, pall, 3); /* every dim (constant only) */
    add(l, WK_PAD_CONSTANT, WK_F32, WKT_CONTIG, 2, emptied, 2, pe, 3); /* an empty dim padded: all value */
    add(l, WK_PAD_CONSTANT, WK_F32, WKT_CONTIG, 4, s4, 2, pzero, 3);   /* cropped to nothing */
    add(l, WK_PAD_CONSTANT, WK_F32, WKT_CONTIG, 4, s4, 2, p1, NAN);    /* a NaN pad value */
    add(l, WK_PAD_CONSTANT, WK_I64, WKT_BROADCAST, 4, s4, 0, p0, 0);   /* no pads: a copy */
    add(l, WK_PAD_REFLECT, WK_BF16, WKT_TRANSPOSED, 4, big, 4, p2, 0);
    add(l, WK_PAD_REPLICATE, WK_U8, WKT_CONTIG, 4, s4, 4, pcrop, 0);
}

void rt_pad_errors(wkt_errctx *e)
{
    const int64_t s4[4] = {2, 3, 5, 7}, s1[1] = {5}, s3e[3] = {2, 0, 4};
    const int64_t ok[2] = {1, 1}, big[2] = {7, 0}, wrap[2] = {8, 0}, crop[2] = {-5, -3}, under[4] = {0, 0, -3, -3};
    const int64_t six[6] = {1, 1, 1, 1, 1, 1}, eight[8] = {1, 1, 1, 1, 1, 1, 1, 1}, cw[2] = {-6, 2};
    wk_tensor *x = NULL, *x1 = NULL, *xe = NULL, *o = NULL;
    if (wk_zeros(e->dev, WK_F32, 4, s4, &x) != WK_OK || wk_zeros(e->dev, WK_F32, 1, s1, &x1) != WK_OK ||
        wk_zeros(e->dev, WK_F32, 3, s3e, &xe) != WK_OK) {
        e->checks++;
        e->failures++;
        printf("FAIL pad errors: cannot make inputs: %s\n", wk_last_error());
        goto done;
    }
    WKT_EXPECT(e, wk_pad(NULL, ok, 2, WK_PAD_CONSTANT, 0, &o), WK_ERR_INVALID_ARGUMENT, "pad");
    WKT_EXPECT(e, wk_pad(x, ok, 2, WK_PAD_CONSTANT, 0, NULL), WK_ERR_INVALID_ARGUMENT, "pad");
    WKT_EXPECT(e, wk_pad(x, NULL, 2, WK_PAD_CONSTANT, 0, &o), WK_ERR_INVALID_ARGUMENT, "pad");
    WKT_EXPECT(e, wk_pad(x, ok, 1, WK_PAD_CONSTANT, 0, &o), WK_ERR_INVALID_ARGUMENT, "pad");     /* odd */
    WKT_EXPECT(e, wk_pad(x1, six, 4, WK_PAD_CONSTANT, 0, &o), WK_ERR_INVALID_ARGUMENT, "pad");   /* > 2 rank */
    WKT_EXPECT(e, wk_pad(x, ok, 2, (wk_pad_mode)4, 0, &o), WK_ERR_INVALID_ARGUMENT, "pad");
    WKT_EXPECT(e, wk_pad(x, big, 2, WK_PAD_REFLECT, 0, &o), WK_ERR_SHAPE, "pad");      /* pad >= 7 */
    WKT_EXPECT(e, wk_pad(x, under, 4, WK_PAD_REFLECT, 0, &o), WK_ERR_SHAPE, "pad");    /* H 3 - 6 < 1 */
    WKT_EXPECT(e, wk_pad(x, under, 4, WK_PAD_REPLICATE, 0, &o), WK_ERR_SHAPE, "pad");
    WKT_EXPECT(e, wk_pad(x1, ok, 2, WK_PAD_REFLECT, 0, &o), WK_ERR_SHAPE, "pad");      /* 1-D: no channel dim */
    WKT_EXPECT(e, wk_pad(x, eight, 8, WK_PAD_REPLICATE, 0, &o), WK_ERR_SHAPE, "pad");  /* 4 dims */
    WKT_EXPECT(e, wk_pad(x1, ok, 2, WK_PAD_CIRCULAR, 0, &o), WK_ERR_SHAPE, "pad");
    WKT_EXPECT(e, wk_pad(xe, ok, 2, WK_PAD_REPLICATE, 0, &o), WK_ERR_SHAPE, "pad");   /* an empty channel dim */
    WKT_EXPECT(e, wk_pad(x, wrap, 2, WK_PAD_CIRCULAR, 0, &o), WK_ERR_SHAPE, "pad");    /* 8 > 7 */
    WKT_EXPECT(e, wk_pad(x, cw, 2, WK_PAD_CIRCULAR, 0, &o), WK_ERR_SHAPE, "pad");      /* wraps 2 around 1 kept */
    WKT_EXPECT(e, wk_pad(x, crop, 2, WK_PAD_CONSTANT, 0, &o), WK_ERR_SHAPE, "pad");    /* crops 8 of 7 */
    e->checks++;
    if (o) {
        e->failures++;
        printf("FAIL pad errors: out-parameter written on failure\n");
    }
done:
    wk_tensor_release(x);
    wk_tensor_release(x1);
    wk_tensor_release(xe);
}
