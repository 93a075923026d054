/* reorder.c: case family 'reorder': flip, roll (by dims and flattened), repeat, repeat_interleave (a count, a count
 * per element, one count in a tensor) and one_hot (given and inferred classes) for every dtype and layout, against
 * plain references that move each input element to where PyTorch puts it; pad's cases are in reorder_pad.c. */
#include <stdlib.h>
#include <string.h>

#include "reorder.h"

void rt_check(wk_tensor *o, wk_dtype dt, int rank, const int64_t *shape, const double *want, wkt_result *r)
{
    if (wk_tensor_dtype(o) != dt || wk_tensor_rank(o) != rank ||
        (rank > 0 && memcmp(wk_tensor_shape(o), shape, sizeof(int64_t) * (size_t)rank) != 0)) {
        wkt_fail(r, "result has the wrong dtype or shape");
        return;
    }
    double *got = NULL;
    if (wkt_failed(wkt_read(o, &got), r, "read"))
        return;
    wkt_compare(dt, got, want, rt_numel(rank, shape), 0, true, r);
    free(got);
}

void rt_expect_status(wk_status s, wk_status want, const char *op, wkt_result *r)
{
    if (s != want)
        wkt_fail(r, "got %s, want %s (%s)", wk_status_string(s), wk_status_string(want), wk_last_error());
    else if (want != WK_OK && strncmp(wk_last_error(), op, strlen(op)) != 0)
        wkt_fail(r, "the error does not name %s: %s", op, wk_last_error());
}

enum { RT_FLIP, RT_ROLL, RT_REPEAT, RT_INTERLEAVE, RT_ONE_HOT };
static const char *const rt_ops[] = {"flip", "roll", "repeat", "repeat_interleave", "one_hot"};

/* The plain references: each input element i (coordinates ic) goes to output coordinates oc. */
static void ref_move(int kind, const wkt_case *c, const int64_t *ic, int64_t *oc)
{
    const int *p = c->iparam;
    memcpy(oc, ic, sizeof(int64_t) * (size_t)c->rank);
    if (kind == RT_FLIP)
        for (int k = 0; k < p[0]; k++) {
            int d = p[1 + k] < 0 ? p[1 + k] + c->rank : p[1 + k];
            oc[d] = c->shape[d] - 1 - oc[d];
        }
    if (kind == RT_ROLL)
        for (int k = 0; k < p[0]; k++) {
            int d = p[4 + k] < 0 ? p[4 + k] + c->rank : p[4 + k];
            int64_t n = c->shape[d];
            oc[d] = ((oc[d] + p[1 + k]) % n + n) % n;
        }
}

/* flip: iparam[0] dims, iparam[1..] the dims; roll: iparam[0] pairs (0: flattened, shift iparam[1]), shifts
 * iparam[1..3], dims iparam[4..6]. */
static wk_status run_move(int kind, const wkt_case *c, wk_tensor *x, const double *xv, double *want, wk_tensor **o)
{
    int64_t n = rt_numel(c->rank, c->shape), ic[WK_MAX_RANK] = {0}, oc[WK_MAX_RANK] = {0};
    int dims[7];
    int64_t shifts[3];
    for (int k = 0; k < 7; k++)
        dims[k] = kind == RT_FLIP ? c->iparam[1 + k] : k < 3 ? c->iparam[4 + k] : 0;
    for (int k = 0; k < 3; k++)
        shifts[k] = c->iparam[1 + k];
    bool flat = kind == RT_ROLL && c->iparam[0] == 0;
    for (int64_t i = 0; i < n; i++) {
        rt_unravel(c->rank, c->shape, i, ic);
        ref_move(kind, c, ic, oc);
        want[flat ? ((i + shifts[0]) % n + n) % n : rt_ravel(c->rank, c->shape, oc)] = xv[i];
    }
    if (kind == RT_FLIP)
        return wk_flip(x, dims, c->iparam[0], o);
    return wk_roll(x, shifts, flat ? NULL : dims, flat ? 1 : c->iparam[0], o);
}

/* repeat: iparam[0] = n, iparam[1..] the repeats: out[o] = x[o mod size] with x's shape padded by leading 1s. */
static void ref_repeat(const wkt_case *c, const double *xv, int64_t *oshape, double *want)
{
    int n = c->iparam[0], lead = n - c->rank;
    int64_t xshape[WK_MAX_RANK], oc[WK_MAX_RANK] = {0}, ic[WK_MAX_RANK] = {0};
    for (int d = 0; d < n; d++) {
        xshape[d] = d < lead ? 1 : c->shape[d - lead];
        oshape[d] = xshape[d] * c->iparam[1 + d];
    }
    for (int64_t i = 0; i < rt_numel(n, oshape); i++) {
        rt_unravel(n, oshape, i, oc);
        for (int d = 0; d < n; d++)
            ic[d] = oc[d] % xshape[d];
        want[i] = xv[rt_ravel(n, xshape, ic)];
    }
}

/* repeat_interleave: iparam[0] dim, [1] the count (tensor modes: the largest), [2] 0 a count, 1 a count per
 * element, 2 one count in a tensor, [3] the counts' dtype. Element j along dim goes to positions
 * start(j) .. start(j) + count(j) - 1. */
static wk_status run_interleave(const wkt_case *c, wk_device *dev, wkt_rng *rng, wk_tensor *x, const double *xv,
                                int64_t *oshape, double **want, wk_tensor **o)
{
    int d = c->iparam[0], mode = c->iparam[2];
    int64_t n = c->shape[d], counts[256], start[257] = {0}, ic[WK_MAX_RANK] = {0};
    for (int64_t j = 0; j < n && j < 256; j++) {
        counts[j] = mode == 1 ? wkt_rng_int(rng, 0, c->iparam[1]) : c->iparam[1];
        start[j + 1] = start[j] + counts[j];
    }
    memcpy(oshape, c->shape, sizeof(int64_t) * (size_t)c->rank);
    oshape[d] = start[n];
    *want = malloc((size_t)rt_numel(c->rank, oshape) * sizeof **want + 1);
    if (!*want)
        return WK_ERR_OUT_OF_MEMORY;
    for (int64_t i = 0; i < rt_numel(c->rank, c->shape); i++) {
        rt_unravel(c->rank, c->shape, i, ic);
        int64_t j = ic[d];
        for (int64_t k = 0; k < counts[j]; k++) {
            ic[d] = start[j] + k;
            (*want)[rt_ravel(c->rank, oshape, ic)] = xv[i];
        }
    }
    if (mode == 0)
        return wk_repeat_interleave(x, c->iparam[1], d, o);
    double cv[256];
    for (int64_t j = 0; j < n; j++)
        cv[j] = (double)counts[j];
    int64_t cn = mode == 1 ? n : 1;
    wk_tensor *ct = NULL;
    wk_status s = wkt_make_from(dev, (wk_dtype)c->iparam[3], mode == 1 ? 1 : 0, &cn, WKT_CONTIG, cv, &ct);
    if (s == WK_OK)
        s = wk_repeat_interleave_tensor(x, ct, d - c->rank, o); /* a negative dim */
    wk_tensor_release(ct);
    return s;
}

/* one_hot: ids of c->dtype drawn in [0, iparam[1]); iparam[0] the num_classes argument (-1: inferred). */
static wk_status run_one_hot(const wkt_case *c, wk_tensor *x, const double *xv, int64_t *oshape, double **want,
                             wk_tensor **o, wk_status *expect)
{
    int64_t n = rt_numel(c->rank, c->shape), classes = c->iparam[0], hi = -1;
    for (int64_t i = 0; i < n; i++)
        hi = (int64_t)xv[i] > hi ? (int64_t)xv[i] : hi;
    if (classes < 0)
        classes = hi + 1;
    *expect = c->iparam[0] < 0 && n == 0 ? WK_ERR_INVALID_ARGUMENT : WK_OK;
    memcpy(oshape, c->shape, sizeof(int64_t) * (size_t)c->rank);
    oshape[c->rank] = classes;
    *want = calloc((size_t)(n * classes) + 1, sizeof **want);
    if (!*want)
        return WK_ERR_OUT_OF_MEMORY;
    for (int64_t i = 0; i < n; i++)
        (*want)[i * classes + (int64_t)xv[i]] = 1;
    wk_status s = wk_one_hot(x, c->iparam[0], o);
    if (s == WK_OK)
        s = wk_device_sync(wk_tensor_device(*o)); /* a bad id shows at the sync on a GPU */
    return s;
}

static void run_reorder(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int kind = 0;
    while (strcmp(c->op, rt_ops[kind]) != 0)
        kind++;
    int64_t n = rt_numel(c->rank, c->shape), oshape[WK_MAX_RANK];
    int orank = kind == RT_REPEAT ? c->iparam[0] : kind == RT_ONE_HOT ? c->rank + 1 : c->rank;
    wk_tensor *x = NULL, *o = NULL;
    double *xv = NULL, *want = NULL;
    wkt_dist dist = kind == RT_ONE_HOT ? (wkt_dist){0, c->iparam[1] - 1} : wkt_dist_default(c->dtype);
    wk_status s, expect = WK_OK;
    if (wkt_failed(wkt_make(dev, c->dtype, c->rank, c->shape, c->layout, dist, rng, &x, &xv), r, "make x"))
        goto done;
    if (kind == RT_FLIP || kind == RT_ROLL) {
        memcpy(oshape, c->shape, sizeof oshape);
        want = malloc((size_t)n * sizeof *want + 1);
        s = want ? run_move(kind, c, x, xv, want, &o) : WK_ERR_OUT_OF_MEMORY;
    } else if (kind == RT_REPEAT) {
        int64_t total = 1;
        for (int d = 0; d < c->iparam[0]; d++)
            total *= (d < c->iparam[0] - c->rank ? 1 : c->shape[d - (c->iparam[0] - c->rank)]) * c->iparam[1 + d];
        want = malloc((size_t)total * sizeof *want + 1);
        int64_t reps[WK_MAX_RANK];
        for (int d = 0; d < c->iparam[0]; d++)
            reps[d] = c->iparam[1 + d];
        if (want)
            ref_repeat(c, xv, oshape, want);
        s = want ? wk_repeat(x, reps, c->iparam[0], &o) : WK_ERR_OUT_OF_MEMORY;
    } else if (kind == RT_INTERLEAVE) {
        s = run_interleave(c, dev, rng, x, xv, oshape, &want, &o);
    } else {
        s = run_one_hot(c, x, xv, oshape, &want, &o, &expect);
    }
    if (expect != WK_OK)
        rt_expect_status(s, expect, c->op, r);
    else if (!wkt_failed(s, r, c->op))
        rt_check(o, kind == RT_ONE_HOT ? WK_I64 : c->dtype, orank, oshape, want, r);
done:
    free(xv);
    free(want);
    wk_tensor_release(x);
    wk_tensor_release(o);
}

static void add(wkt_list *l, int kind, wk_dtype dt, wkt_layout lay, int rank, const int64_t *shape, int np,
                const int *params)
{
    if (!wkt_layout_applies(lay, rank, shape))
        return;
    wkt_case c;
    memset(&c, 0, sizeof c);
    c.family = "reorder";
    snprintf(c.op, sizeof c.op, "%s", rt_ops[kind]);
    c.dtype = dt;
    c.layout = lay;
    c.rank = rank;
    memcpy(c.shape, shape, sizeof(int64_t) * (size_t)rank);
    memcpy(c.iparam, params, sizeof(int) * (size_t)np);
    c.run = run_reorder;
    wkt_add(l, &c);
}

#define ADD(kind, dt, lay, rank, shape, ...)                                                                      \
    do {                                                                                                          \
        const int p_[] = {__VA_ARGS__};                                                                           \
        add(l, kind, dt, lay, rank, shape, (int)(sizeof p_ / sizeof *p_), p_);                                    \
    } while (0)

static void cases(wkt_list *l)
{
    static const wk_dtype all[] = {WK_U8, WK_U32, WK_I32, WK_I64, WK_F16, WK_BF16, WK_F32, WK_F64};
    const int64_t s3[3] = {4, 5, 6}, s4[4] = {2, 3, 5, 7}, s1[1] = {37}, s2[2] = {6, 3}, big[4] = {4, 16, 64, 128};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        ADD(RT_FLIP, all[i], WKT_CONTIG, 3, s3, 1, -1);
        ADD(RT_ROLL, all[i], WKT_CONTIG, 3, s3, 1, 2, 0, 0, -1);
        ADD(RT_REPEAT, all[i], WKT_CONTIG, 2, s2, 3, 2, 1, 3);
        ADD(RT_INTERLEAVE, all[i], WKT_CONTIG, 3, s3, 1, 2, 0);
    }
    for (wkt_layout lay = 0; lay < WKT_LAYOUT_COUNT; lay++) {
        ADD(RT_FLIP, WK_F32, lay, 4, s4, 2, 0, 2);
        ADD(RT_FLIP, WK_F16, lay, 4, s4, 4, 0, 1, 2, 3);
        ADD(RT_ROLL, WK_F32, lay, 4, s4, 2, -3, 9, 0, 3, 1);
        ADD(RT_ROLL, WK_I64, lay, 4, s4, 0, 11); /* flattened */
        ADD(RT_REPEAT, WK_F32, lay, 4, s4, 5, 2, 1, 2, 1, 3);
        ADD(RT_INTERLEAVE, WK_F32, lay, 4, s4, 2, 3, 1, WK_I64);
        ADD(RT_INTERLEAVE, WK_BF16, lay, 4, s4, 3, 2, 2, WK_I32);
    }
    ADD(RT_FLIP, WK_F32, WKT_CONTIG, 1, s1, 1, 0);
    ADD(RT_FLIP, WK_F32, WKT_CONTIG, 3, s3, 0, 0);       /* no dims: a copy */
    ADD(RT_FLIP, WK_F32, WKT_CONTIG, 0, s3, 0, 0);       /* a scalar */
    ADD(RT_ROLL, WK_F32, WKT_CONTIG, 3, s3, 2, 3, 4, 0, 1, 1); /* one dim twice: the sum */
    ADD(RT_ROLL, WK_U8, WKT_CONTIG, 1, s1, 1, -40, 0, 0, 0);
    ADD(RT_ROLL, WK_F64, WKT_CONTIG, 0, s3, 0, 5);        /* a scalar, flattened */
    ADD(RT_REPEAT, WK_F32, WKT_CONTIG, 3, s3, 3, 1, 0, 2); /* a zero repeat: empty */
    ADD(RT_REPEAT, WK_U8, WKT_CONTIG, 0, s3, 2, 4, 3);     /* a scalar */
    ADD(RT_INTERLEAVE, WK_F32, WKT_CONTIG, 3, s3, 0, 0, 0);  /* zero: empty */
    ADD(RT_INTERLEAVE, WK_F64, WKT_CONTIG, 1, s1, 0, 4, 1, WK_U8);
    ADD(RT_INTERLEAVE, WK_I32, WKT_CONTIG, 1, s1, 0, 0, 1, WK_U32); /* all-zero counts possible */
    /* the benchmarks' kinds at a size that takes the GPU's row kernels */
    ADD(RT_FLIP, WK_F32, WKT_CONTIG, 4, big, 2, 2, 3);
    ADD(RT_FLIP, WK_BF16, WKT_TRANSPOSED, 4, big, 1, 0);
    ADD(RT_ROLL, WK_F32, WKT_CONTIG, 4, big, 2, 5, -7, 0, 3, 2);
    ADD(RT_REPEAT, WK_F16, WKT_CONTIG, 4, big, 4, 1, 2, 1, 3);
    ADD(RT_INTERLEAVE, WK_F32, WKT_OFFSET, 4, big, 3, 2, 0);
    static const wk_dtype ids[] = {WK_U8, WK_U32, WK_I32, WK_I64};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        ADD(RT_ONE_HOT, ids[i], WKT_CONTIG, 2, s2, 7, 7);
        ADD(RT_ONE_HOT, ids[i], WKT_TRANSPOSED, 3, s3, -1, 9);
    }
    ADD(RT_ONE_HOT, WK_I64, WKT_PERMUTED, 4, s4, 300, 300);
    ADD(RT_ONE_HOT, WK_I64, WKT_BROADCAST, 3, s3, 5, 3);
    ADD(RT_ONE_HOT, WK_I64, WKT_CONTIG, 0, s3, 4, 4);
    ADD(RT_ONE_HOT, WK_I32, WKT_OFFSET, 1, s1, -1, 1); /* every id 0: one class */
    rt_pad_cases(l);
}

static void errors(wkt_errctx *e)
{
    const int64_t s3[3] = {4, 5, 6}, three[1] = {3}, two[1] = {2};
    const int d2[2] = {1, -2}, dbad[1] = {3}, d0[1] = {0};
    const int64_t sh[2] = {1, 2}, reps[3] = {2, 2, 2}, neg[3] = {1, -1, 1}, many[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    const int64_t bad_id[3] = {0, 3, 1}, cnt_neg[3] = {1, -1, 2};
    wk_tensor *x = NULL, *ids = NULL, *bad = NULL, *fl = NULL, *c2 = NULL, *cn = NULL, *o = NULL;
    if (wk_zeros(e->dev, WK_F32, 3, s3, &x) != WK_OK || wk_zeros(e->dev, WK_I64, 1, three, &ids) != WK_OK ||
        wk_tensor_from_host(e->dev, WK_I64, 1, three, bad_id, &bad) != WK_OK ||
        wk_zeros(e->dev, WK_F32, 1, three, &fl) != WK_OK || wk_zeros(e->dev, WK_I64, 1, two, &c2) != WK_OK ||
        wk_tensor_from_host(e->dev, WK_I64, 1, three, cnt_neg, &cn) != WK_OK) {
        e->checks++;
        e->failures++;
        printf("FAIL reorder errors: cannot make inputs: %s\n", wk_last_error());
        goto done;
    }
    WKT_EXPECT(e, wk_flip(NULL, d0, 1, &o), WK_ERR_INVALID_ARGUMENT, "flip");
    WKT_EXPECT(e, wk_flip(x, NULL, 1, &o), WK_ERR_INVALID_ARGUMENT, "flip");
    WKT_EXPECT(e, wk_flip(x, d2, 2, &o), WK_ERR_SHAPE, "flip"); /* 1 and -2 are one dim */
    WKT_EXPECT(e, wk_flip(x, dbad, 1, &o), WK_ERR_SHAPE, "flip");
    WKT_EXPECT(e, wk_roll(x, sh, d0, 0, &o), WK_ERR_INVALID_ARGUMENT, "roll");
    WKT_EXPECT(e, wk_roll(x, sh, NULL, 2, &o), WK_ERR_INVALID_ARGUMENT, "roll");
    WKT_EXPECT(e, wk_roll(x, sh, dbad, 1, &o), WK_ERR_SHAPE, "roll");
    WKT_EXPECT(e, wk_roll(x, NULL, d0, 1, NULL), WK_ERR_INVALID_ARGUMENT, "roll");
    WKT_EXPECT(e, wk_repeat(x, reps, 2, &o), WK_ERR_SHAPE, "repeat"); /* fewer than the rank */
    WKT_EXPECT(e, wk_repeat(x, many, 9, &o), WK_ERR_SHAPE, "repeat");
    WKT_EXPECT(e, wk_repeat(x, neg, 3, &o), WK_ERR_INVALID_ARGUMENT, "repeat");
    WKT_EXPECT(e, wk_repeat(x, NULL, 3, &o), WK_ERR_INVALID_ARGUMENT, "repeat");
    WKT_EXPECT(e, wk_repeat_interleave(x, -1, 0, &o), WK_ERR_INVALID_ARGUMENT, "repeat_interleave");
    WKT_EXPECT(e, wk_repeat_interleave(x, 2, 3, &o), WK_ERR_SHAPE, "repeat_interleave");
    WKT_EXPECT(e, wk_repeat_interleave_tensor(x, c2, 0, &o), WK_ERR_SHAPE, "repeat_interleave"); /* 2 for 4 */
    WKT_EXPECT(e, wk_repeat_interleave_tensor(x, fl, 0, &o), WK_ERR_DTYPE, "repeat_interleave");
    WKT_EXPECT(e, wk_repeat_interleave_tensor(fl, cn, 0, &o), WK_ERR_INVALID_ARGUMENT, "repeat_interleave");
    WKT_EXPECT(e, wk_one_hot(fl, 3, &o), WK_ERR_DTYPE, "one_hot");
    WKT_EXPECT(e, wk_one_hot(ids, -2, &o), WK_ERR_INVALID_ARGUMENT, "one_hot");
    WKT_EXPECT(e, wk_one_hot(ids, 0, &o), WK_ERR_INDEX_OUT_OF_RANGE, "one_hot");
    WKT_EXPECT(e, wk_one_hot(cn, -1, &o), WK_ERR_INDEX_OUT_OF_RANGE, "one_hot"); /* -1 read on the host */
    wk_status s = wk_one_hot(bad, 3, &o);                                         /* 3 of 3 classes */
    if (s == WK_OK) {
        s = wk_device_sync(e->dev); /* a GPU finds it in the kernel */
        wk_tensor_release(o);
        o = NULL;
    }
    WKT_EXPECT(e, s, WK_ERR_INDEX_OUT_OF_RANGE, "one_hot");
    e->checks++;
    if (o) {
        e->failures++;
        printf("FAIL reorder errors: out-parameter written on failure\n");
    }
    rt_pad_errors(e);
done:
    wk_tensor_release(x);
    wk_tensor_release(ids);
    wk_tensor_release(bad);
    wk_tensor_release(fl);
    wk_tensor_release(c2);
    wk_tensor_release(cn);
}

const wkt_family wkt_family_reorder = {.name = "reorder", .cases = cases, .errors = errors};
