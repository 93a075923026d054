/* scan.c: case family 'scan': cumsum and cumprod (every dtype; integers give i64, wrapping) and logcumsumexp
 * (floats) along each dim, every layout, NaN and infinities, against a plain float64 (or wrapping 64-bit integer)
 * reference; error paths. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elementwise.h"
#include "special_inputs.h"

/* iparam: [0] op, [1] dim, [2] specials (floats: inf, -inf, NaN among the values). */
enum { SC_SUM, SC_PROD, SC_LSE };
static const char *const sc_names[] = {"cumsum", "cumprod", "logcumsumexp"};

/* PyTorch's log-add-exp step (its _log_add_exp_helper): a NaN running value y stays NaN. */
static double ref_lae(double x, double y)
{
    double lo = isnan(y) ? y : y < x ? y : x, hi = isnan(y) ? y : x < y ? y : x;
    return lo != hi || isfinite(lo) ? hi + log1p(exp(lo - hi)) : x;
}

static double *draw(const wkt_case *c, wkt_rng *rng, int64_t n)
{
    double *v = malloc((size_t)n * sizeof *v + 1);
    bool fl = wk_dtype_is_float(c->dtype);
    for (int64_t i = 0; v && i < n; i++) {
        int64_t k = wkt_rng_int(rng, 0, 39);
        if (!fl)
            v[i] = ew_int(rng, c->dtype, wkt_dist_default(c->dtype).lo, wkt_dist_default(c->dtype).hi, k < 4);
        else
            v[i] = wkt_round_to(c->dtype, c->iparam[0] == SC_PROD ? wkt_rng_uniform(rng, 0.9, 1.1)
                                                                   : wkt_rng_uniform(rng, -3, 3));
        if (fl && c->iparam[2] && k < 4)
            v[i] = k < 2 ? -INFINITY : k < 3 ? INFINITY : NAN;
    }
    return v;
}

/* want: the scan of the logical values along dim, row-major. */
static void reference(const wkt_case *c, const double *x, double *want, int64_t n)
{
    int dim = c->rank ? c->iparam[1] : 0;
    int64_t len = c->rank ? c->shape[dim] : 1, inner = 1;
    bool fl = wk_dtype_is_float(c->dtype);
    for (int d = dim + 1; d < c->rank; d++)
        inner *= c->shape[d];
    for (int64_t line = 0; len > 0 && line < n / len; line++) {
        int64_t base = (line / inner) * len * inner + line % inner;
        double acc = c->iparam[0] == SC_SUM ? 0 : c->iparam[0] == SC_PROD ? 1 : -INFINITY;
        uint64_t iacc = c->iparam[0] == SC_SUM ? 0 : 1;
        for (int64_t k = 0; k < len; k++) {
            double v = x[base + k * inner];
            if (!fl) {
                uint64_t u = (uint64_t)(int64_t)v;
                iacc = c->iparam[0] == SC_SUM ? iacc + u : iacc * u;
                want[base + k * inner] = (double)(int64_t)iacc;
                continue;
            }
            acc = c->iparam[0] == SC_SUM ? acc + v : c->iparam[0] == SC_PROD ? acc * v : ref_lae(v, acc);
            want[base + k * inner] = wkt_round_to(c->dtype, acc);
        }
    }
}

static wk_status call_scan(const wkt_case *c, const wk_tensor *x, wk_tensor **o)
{
    int dim = c->iparam[1] - (c->iparam[1] % 2 && c->rank ? c->rank : 0); /* odd dims given as negative */
    switch (c->iparam[0]) {
    case SC_SUM: return wk_cumsum(x, dim, o);
    case SC_PROD: return wk_cumprod(x, dim, o);
    default: return wk_logcumsumexp(x, dim, o);
    }
}

static void run(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int64_t n = 1;
    for (int d = 0; d < c->rank; d++)
        n *= c->shape[d];
    wk_dtype odt = wk_dtype_is_float(c->dtype) ? c->dtype : WK_I64;
    double *xv = draw(c, rng, n), *want = malloc((size_t)n * sizeof *want + 1), *got = NULL;
    wk_tensor *x = NULL, *o = NULL;
    if (!xv || !want) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    if (wkt_failed(ew_tensor(dev, c->dtype, c->rank, c->shape, c->layout, wkt_dist_default(c->dtype), rng, &xv, &x),
                   r, "make x") ||
        wkt_failed(call_scan(c, x, &o), r, c->op) || !check_shape(o, odt, c->rank, c->shape, r) ||
        wkt_failed(wkt_read(o, &got), r, "read"))
        goto done;
    reference(c, xv, want, n);
    /* a long f32 sum's error grows with its length: the tolerance of a reduction */
    wkt_compare(odt, got, want, n, 4 * wkt_tol(odt, WKT_TOL_ELEMENTWISE), !wk_dtype_is_float(odt), r);
done:
    free(xv);
    free(want);
    free(got);
    wk_tensor_release(x);
    wk_tensor_release(o);
}

static void add(wkt_list *l, int op, wk_dtype dt, wkt_layout layout, int rank, const int64_t *shape, int dim,
                bool specials)
{
    wkt_case c = {.family = "scan", .dtype = dt, .layout = layout, .rank = rank, .run = run};
    snprintf(c.op, sizeof c.op, "%s", sc_names[op]);
    if (rank > 0)
        memcpy(c.shape, shape, (size_t)rank * sizeof *shape);
    c.iparam[0] = op;
    c.iparam[1] = dim;
    c.iparam[2] = specials;
    wkt_add(l, &c);
}

static void cases(wkt_list *l)
{
    static const wk_dtype all[] = {WK_U8, WK_U32, WK_I32, WK_I64, WK_F16, WK_BF16, WK_F32, WK_F64};
    static const wkt_layout lay[] = {WKT_CONTIG, WKT_TRANSPOSED, WKT_PERMUTED, WKT_OFFSET, WKT_BROADCAST};
    static const int64_t s3[] = {3, 10, 17}, s2[] = {9, 1000}, col[] = {700, 33}, sc[1] = {1};
    for (int op = SC_SUM; op <= SC_LSE; op++)
        for (int k = 0; k < 8; k++) {
            wk_dtype dt = all[k];
            if (op == SC_LSE && !wk_dtype_is_float(dt))
                continue;
            for (int dim = 0; dim < 3; dim++)
                add(l, op, dt, lay[(k + dim + op) % 5], 3, s3, dim, false);
            add(l, op, dt, k % 2 ? WKT_CONTIG : WKT_OFFSET, 2, s2, 1, false); /* long lines */
            add(l, op, dt, k % 2 ? WKT_TRANSPOSED : WKT_CONTIG, 2, col, 0, false);
            if (wk_dtype_is_float(dt)) {
                add(l, op, dt, WKT_CONTIG, 3, s3, 2, true);
                add(l, op, dt, WKT_PERMUTED, 3, s3, 1, true);
            }
            add(l, op, dt, WKT_CONTIG, 0, sc, 0, false);
        }
    static const int64_t big[] = {4, 20000};
    add(l, SC_SUM, WK_F32, WKT_CONTIG, 2, big, 1, false);
    add(l, SC_SUM, WK_F32, WKT_CONTIG, 2, big, 0, false);
    add(l, SC_LSE, WK_F32, WKT_CONTIG, 2, big, 1, false);
}

static void errors(wkt_errctx *e)
{
    const int64_t s2[2] = {2, 3};
    wk_tensor *x = NULL, *xi = NULL, *s0 = NULL, *o = NULL;
    if (wk_tensor_empty(e->dev, WK_F32, 2, s2, &x) != WK_OK || wk_tensor_empty(e->dev, WK_I32, 2, s2, &xi) != WK_OK ||
        wk_tensor_empty(e->dev, WK_F32, 0, NULL, &s0) != WK_OK) {
        e->checks++, e->failures++;
        printf("FAIL scan errors: cannot make inputs: %s\n", wk_last_error());
        goto done;
    }
    EW_EXPECT(e, o, wk_cumsum(x, 2, &o), WK_ERR_SHAPE, "cumsum");
    EW_EXPECT(e, o, wk_cumprod(x, -3, &o), WK_ERR_SHAPE, "cumprod");
    EW_EXPECT(e, o, wk_cumsum(s0, 1, &o), WK_ERR_SHAPE, "cumsum");
    EW_EXPECT(e, o, wk_logcumsumexp(xi, 0, &o), WK_ERR_DTYPE, "logcumsumexp");
    EW_EXPECT(e, o, wk_cumsum(NULL, 0, &o), WK_ERR_INVALID_ARGUMENT, "cumsum");
    EW_EXPECT(e, o, wk_cumprod(x, 0, NULL), WK_ERR_INVALID_ARGUMENT, "cumprod");
done:
    wk_tensor_release(x);
    wk_tensor_release(xi);
    wk_tensor_release(s0);
}

const wkt_family wkt_family_scan = {.name = "scan", .cases = cases, .errors = errors};
