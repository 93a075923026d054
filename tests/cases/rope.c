/* rope.c: case family 'rope': rope (halves), rope_i (interleaved pairs) and rope_thd ((B, T, H, D)) for every
 * float dtype and layout of x and of the cos/sin tables, against a plain float64 reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum { ROPE_HALVES, ROPE_INTERLEAVED, ROPE_THD };

static int kind_of(const char *op)
{
    return strcmp(op, "rope") == 0 ? ROPE_HALVES : strcmp(op, "rope_i") == 0 ? ROPE_INTERLEAVED : ROPE_THD;
}

/* out = rotation of x (logical row-major values) by the (T, D/2) tables. */
static void ref_rope(int kind, const int64_t *s, const double *x, const double *cs, const double *sn, double *out)
{
    int64_t D = s[3], half = D / 2;
    for (int64_t i0 = 0; i0 < s[0]; i0++)
        for (int64_t i1 = 0; i1 < s[1]; i1++)
            for (int64_t i2 = 0; i2 < s[2]; i2++) {
                int64_t row = ((i0 * s[1] + i1) * s[2] + i2) * D, t = kind == ROPE_THD ? i1 : i2;
                for (int64_t i = 0; i < half; i++) {
                    bool pairs = kind == ROPE_INTERLEAVED;
                    int64_t a = pairs ? 2 * i : i, b = pairs ? 2 * i + 1 : i + half;
                    double c = cs[t * half + i], sv = sn[t * half + i];
                    out[row + a] = x[row + a] * c - x[row + b] * sv;
                    out[row + b] = x[row + a] * sv + x[row + b] * c;
                }
            }
}

/* iparam[0]: layout of the cos and sin tables. */
static void run_rope(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int kind = kind_of(c->op);
    int64_t T = c->shape[kind == ROPE_THD ? 1 : 2], half = c->shape[3] / 2, tshape[2] = {T, half};
    int64_t n = c->shape[0] * c->shape[1] * c->shape[2] * c->shape[3], tn = T * half;
    wk_tensor *x = NULL, *cs = NULL, *sn = NULL, *o = NULL;
    double *xv = NULL, *got = NULL, *want = malloc((size_t)n * sizeof(double) + 1);
    double *cv = malloc((size_t)tn * sizeof(double) + 1), *sv = malloc((size_t)tn * sizeof(double) + 1);
    if (!want || !cv || !sv) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    for (int64_t i = 0; i < tn; i++) {
        double theta = wkt_rng_uniform(rng, -4, 4);
        cv[i] = wkt_round_to(c->dtype, cos(theta));
        sv[i] = wkt_round_to(c->dtype, sin(theta));
    }
    wkt_layout tl = (wkt_layout)c->iparam[0];
    if (wkt_failed(wkt_make(dev, c->dtype, 4, c->shape, c->layout, wkt_dist_default(c->dtype), rng, &x, &xv), r,
                   "make x") ||
        wkt_failed(wkt_make_from(dev, c->dtype, 2, tshape, tl, cv, &cs), r, "make cos") ||
        wkt_failed(wkt_make_from(dev, c->dtype, 2, tshape, tl, sv, &sn), r, "make sin"))
        goto done;
    wk_status s = kind == ROPE_HALVES       ? wk_rope(x, cs, sn, &o)
                  : kind == ROPE_INTERLEAVED ? wk_rope_i(x, cs, sn, &o)
                                             : wk_rope_thd(x, cs, sn, &o);
    if (wkt_failed(s, r, c->op))
        goto done;
    if (wk_tensor_dtype(o) != c->dtype || wk_tensor_rank(o) != 4 ||
        memcmp(wk_tensor_shape(o), c->shape, 4 * sizeof(int64_t)) != 0) {
        wkt_fail(r, "result has the wrong dtype or shape");
        goto done;
    }
    if (wkt_failed(wkt_read(o, &got), r, "read"))
        goto done;
    ref_rope(kind, c->shape, xv, cv, sv, want);
    for (int64_t i = 0; i < n; i++)
        want[i] = wkt_round_to(c->dtype, want[i]);
    wkt_compare(c->dtype, got, want, n, wkt_tol(c->dtype, WKT_TOL_ELEMENTWISE), false, r);
done:
    free(xv);
    free(got);
    free(want);
    free(cv);
    free(sv);
    wk_tensor_release(x);
    wk_tensor_release(cs);
    wk_tensor_release(sn);
    wk_tensor_release(o);
}

static void add(wkt_list *l, const char *op, wk_dtype dt, wkt_layout layout, const int64_t *shape,
                wkt_layout table_layout)
{
    wkt_case c;
    memset(&c, 0, sizeof c);
    c.family = "rope";
    snprintf(c.op, sizeof c.op, "%s", op);
    c.dtype = dt;
    c.layout = layout;
    c.rank = 4;
    memcpy(c.shape, shape, 4 * sizeof *shape);
    c.iparam[0] = (int)table_layout;
    c.run = run_rope;
    wkt_add(l, &c);
}

static void cases(wkt_list *l)
{
    static const char *const ops[] = {"rope", "rope_i", "rope_thd"};
    static const wk_dtype floats[] = {WK_F16, WK_BF16, WK_F32, WK_F64};
    const int64_t shape[4] = {2, 3, 5, 8}, pair[4] = {1, 2, 3, 2}, empty[4] = {0, 2, 3, 4}, big[4] = {2, 8, 64, 64};
    for (int k = 0; k < 3; k++) {
        for (size_t f = 0; f < sizeof floats / sizeof floats[0]; f++)
            for (wkt_layout lay = 0; lay < WKT_LAYOUT_COUNT; lay++)
                add(l, ops[k], floats[f], lay, shape, WKT_CONTIG);
        /* strided cos/sin tables */
        add(l, ops[k], WK_F32, WKT_CONTIG, shape, WKT_TRANSPOSED);
        add(l, ops[k], WK_F64, WKT_PERMUTED, shape, WKT_OFFSET);
        add(l, ops[k], WK_F16, WKT_OFFSET, pair, WKT_TRANSPOSED);
        add(l, ops[k], WK_F32, WKT_CONTIG, empty, WKT_CONTIG);
        add(l, ops[k], WK_F32, WKT_CONTIG, big, WKT_CONTIG);
        add(l, ops[k], WK_BF16, WKT_TRANSPOSED, big, WKT_OFFSET);
    }
}

static void errors(wkt_errctx *e)
{
    const int64_t xs[4] = {1, 2, 3, 4}, odd[4] = {1, 2, 3, 5}, ts[2] = {3, 2}, bad_t[2] = {4, 2}, bad_d[2] = {3, 3},
                  flat[3] = {2, 3, 4}, t3[3] = {1, 3, 2}, odd_t[2] = {3, 2};
    wk_tensor *x = NULL, *xo = NULL, *xi = NULL, *x3 = NULL, *cs = NULL, *sn = NULL, *c64 = NULL, *ct = NULL,
              *cd = NULL, *c3 = NULL, *co = NULL, *o = NULL;
    if (wk_zeros(e->dev, WK_F32, 4, xs, &x) != WK_OK || wk_zeros(e->dev, WK_F32, 4, odd, &xo) != WK_OK ||
        wk_zeros(e->dev, WK_I32, 4, xs, &xi) != WK_OK || wk_zeros(e->dev, WK_F32, 3, flat, &x3) != WK_OK ||
        wk_zeros(e->dev, WK_F32, 2, ts, &cs) != WK_OK || wk_zeros(e->dev, WK_F32, 2, ts, &sn) != WK_OK ||
        wk_zeros(e->dev, WK_F64, 2, ts, &c64) != WK_OK || wk_zeros(e->dev, WK_F32, 2, bad_t, &ct) != WK_OK ||
        wk_zeros(e->dev, WK_F32, 2, bad_d, &cd) != WK_OK || wk_zeros(e->dev, WK_F32, 3, t3, &c3) != WK_OK ||
        wk_zeros(e->dev, WK_F32, 2, odd_t, &co) != WK_OK) {
        e->checks++;
        e->failures++;
        printf("FAIL rope errors: cannot make inputs: %s\n", wk_last_error());
        goto done;
    }
    WKT_EXPECT(e, wk_rope(NULL, cs, sn, &o), WK_ERR_INVALID_ARGUMENT, "rope");
    WKT_EXPECT(e, wk_rope(x, NULL, sn, &o), WK_ERR_INVALID_ARGUMENT, "rope");
    WKT_EXPECT(e, wk_rope_i(x, cs, NULL, &o), WK_ERR_INVALID_ARGUMENT, "rope_i");
    WKT_EXPECT(e, wk_rope_thd(x, cs, sn, NULL), WK_ERR_INVALID_ARGUMENT, "rope_thd");
    WKT_EXPECT(e, wk_rope(xo, co, co, &o), WK_ERR_SHAPE, "rope");       /* odd D */
    WKT_EXPECT(e, wk_rope_i(xo, co, co, &o), WK_ERR_SHAPE, "rope_i");
    WKT_EXPECT(e, wk_rope(x, ct, sn, &o), WK_ERR_SHAPE, "rope");        /* cos has the wrong T */
    WKT_EXPECT(e, wk_rope_i(x, cs, cd, &o), WK_ERR_SHAPE, "rope_i");    /* sin has the wrong D/2 */
    WKT_EXPECT(e, wk_rope(x, c3, sn, &o), WK_ERR_SHAPE, "rope");        /* cos of rank 3 */
    WKT_EXPECT(e, wk_rope_thd(x, cs, sn, &o), WK_ERR_SHAPE, "rope_thd"); /* T is dim 1 (2), tables have 3 */
    WKT_EXPECT(e, wk_rope(x3, cs, sn, &o), WK_ERR_SHAPE, "rope");       /* x of rank 3 */
    WKT_EXPECT(e, wk_rope(xi, cs, sn, &o), WK_ERR_DTYPE, "rope");       /* int x */
    WKT_EXPECT(e, wk_rope_i(x, c64, sn, &o), WK_ERR_DTYPE, "rope_i");   /* cos of another dtype */
    e->checks++;
    if (o) {
        e->failures++;
        printf("FAIL rope errors: out-parameter written on failure\n");
    }
done:
    wk_tensor_release(x);
    wk_tensor_release(xo);
    wk_tensor_release(xi);
    wk_tensor_release(x3);
    wk_tensor_release(cs);
    wk_tensor_release(sn);
    wk_tensor_release(c64);
    wk_tensor_release(ct);
    wk_tensor_release(cd);
    wk_tensor_release(c3);
    wk_tensor_release(co);
}

const wkt_family wkt_family_rope = {.name = "rope", .cases = cases, .errors = errors};
