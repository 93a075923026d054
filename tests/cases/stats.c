/* stats.c: case family 'stats': var and std (biased and unbiased), logsumexp and the 1-, 2- and inf-norms over
 * chosen dims (keepdim or not), every float dtype and layout, inputs with NaN and infinities, against a plain
 * float64 reference; empty reductions (NaN, -inf, 0, or an error for the inf-norm); error paths. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elementwise.h"
#include "special_inputs.h"

/* iparam: [0] op, [1] bit mask of the reduced dims (0: every dim, ndims 0), [2] keepdim, [3] unbiased,
 * [4] specials (inf, -inf, NaN among the values). */
enum { ST_VAR, ST_STD, ST_LSE, ST_N1, ST_N2, ST_NINF };
static const char *const st_names[] = {"var", "std", "logsumexp", "norm1", "norm2", "norm_inf"};

/* The statistic of the m values v, in double, as wick.h defines it. */
static double ref_stat(int op, const double *v, int64_t m, bool unbiased)
{
    double acc = 0, mx = -INFINITY;
    if (op == ST_VAR || op == ST_STD) {
        for (int64_t i = 0; i < m; i++)
            acc += v[i];
        double mean = acc / (double)m, ss = 0, div = (double)m - (unbiased ? 1 : 0);
        for (int64_t i = 0; i < m; i++)
            ss += (v[i] - mean) * (v[i] - mean);
        double var = m == 0 || div <= 0 ? NAN : ss / div;
        return op == ST_STD ? sqrt(var) : var;
    }
    for (int64_t i = 0; i < m; i++) {
        if (isnan(v[i]))
            return NAN;
        double a = op == ST_LSE ? v[i] : fabs(v[i]);
        mx = a > mx ? a : mx;
        acc += op == ST_N1 ? a : a * a;
    }
    if (op == ST_N1)
        return acc;
    if (op == ST_N2)
        return sqrt(acc);
    if (op == ST_NINF)
        return mx;
    if (isinf(mx))
        return mx;
    acc = 0;
    for (int64_t i = 0; i < m; i++)
        acc += exp(v[i] - mx);
    return mx + log(acc);
}

static wk_status call_stat(const wkt_case *c, const wk_tensor *x, const int *dims, int nd, wk_tensor **o)
{
    bool keep = c->iparam[2], unb = c->iparam[3];
    switch (c->iparam[0]) {
    case ST_VAR: return wk_var(x, dims, nd, unb, keep, o);
    case ST_STD: return wk_std(x, dims, nd, unb, keep, o);
    case ST_LSE: return wk_logsumexp(x, dims, nd, keep, o);
    case ST_N1: return wk_norm(x, 1, dims, nd, keep, o);
    case ST_N2: return wk_norm(x, 2, dims, nd, keep, o);
    default: return wk_norm(x, INFINITY, dims, nd, keep, o);
    }
}

/* x's values: the default distribution, with specials when asked. */
static double *draw(const wkt_case *c, wkt_rng *rng, int64_t n)
{
    double *v = malloc((size_t)n * sizeof *v + 1);
    for (int64_t i = 0; v && i < n; i++) {
        int64_t k = wkt_rng_int(rng, 0, 39);
        v[i] = wkt_round_to(c->dtype, wkt_rng_uniform(rng, -3, 3));
        if (c->iparam[4] && k < 6)
            v[i] = k < 3 ? -INFINITY : k < 5 ? INFINITY : NAN;
    }
    return v;
}

static void run(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int rank = c->rank, dims[WK_MAX_RANK], nd = 0, ork = 0;
    bool red[WK_MAX_RANK] = {false};
    int64_t n = 1, outn = 1, m = 1, oshape[WK_MAX_RANK];
    for (int d = 0; d < rank; d++) {
        red[d] = c->iparam[1] == 0 || (c->iparam[1] >> d & 1);
        if (c->iparam[1] && red[d])
            dims[nd++] = d - (d % 2 ? rank : 0); /* odd dims given as negative */
        n *= c->shape[d];
        if (red[d])
            m *= c->shape[d];
        else
            outn *= c->shape[d];
        if (!red[d] || c->iparam[2])
            oshape[ork++] = red[d] ? 1 : c->shape[d];
    }
    double *xv = draw(c, rng, n), *want = malloc((size_t)outn * sizeof *want + 1), *got = NULL;
    double *vals = malloc((size_t)n * sizeof *vals + 1);
    int64_t *fill = calloc((size_t)outn + 1, sizeof *fill);
    wk_tensor *x = NULL, *o = NULL;
    if (!xv || !want || !vals || !fill) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    if (wkt_failed(ew_tensor(dev, c->dtype, rank, c->shape, c->layout, wkt_dist_default(c->dtype), rng, &xv, &x), r,
                   "make x"))
        goto done;
    wk_status s = call_stat(c, x, dims, nd, &o);
    if (c->iparam[0] == ST_NINF && m == 0 && outn > 0) { /* no identity */
        if (s != WK_ERR_SHAPE)
            wkt_fail(r, "empty inf-norm gave status %d, want WK_ERR_SHAPE", (int)s);
        goto done;
    }
    if (wkt_failed(s, r, c->op) || !check_shape(o, c->dtype, ork, oshape, r) ||
        wkt_failed(wkt_read(o, &got), r, "read"))
        goto done;
    /* each output's values, row-major over the reduced dims: output q's m values at vals[q * m ...] */
    for (int64_t e = 0; e < n; e++) {
        int64_t rem = e, oi = 0, omul = 1;
        for (int d = rank - 1; d >= 0; d--) {
            int64_t i = rem % c->shape[d];
            rem /= c->shape[d];
            if (!red[d]) {
                oi += i * omul;
                omul *= c->shape[d];
            }
        }
        vals[oi * m + fill[oi]++] = xv[e];
    }
    for (int64_t q = 0; q < outn; q++)
        want[q] = wkt_round_to(c->dtype, ref_stat(c->iparam[0], vals + q * m, m, c->iparam[3]));
    wkt_compare(c->dtype, got, want, outn, wkt_tol(c->dtype, WKT_TOL_ELEMENTWISE), false, r);
done:
    free(xv);
    free(want);
    free(got);
    free(vals);
    free(fill);
    wk_tensor_release(x);
    wk_tensor_release(o);
}

static void add(wkt_list *l, int op, wk_dtype dt, wkt_layout layout, int rank, const int64_t *shape, int mask,
                bool keep, bool unbiased, bool specials)
{
    wkt_case c = {.family = "stats", .dtype = dt, .layout = layout, .rank = rank, .run = run};
    snprintf(c.op, sizeof c.op, "%s", st_names[op]);
    if (rank > 0)
        memcpy(c.shape, shape, (size_t)rank * sizeof *shape);
    c.iparam[0] = op;
    c.iparam[1] = mask;
    c.iparam[2] = keep;
    c.iparam[3] = unbiased;
    c.iparam[4] = specials;
    wkt_add(l, &c);
}

static void cases(wkt_list *l)
{
    static const wk_dtype fl[] = {WK_F16, WK_BF16, WK_F32, WK_F64};
    static const wkt_layout lay[] = {WKT_CONTIG, WKT_TRANSPOSED, WKT_PERMUTED, WKT_OFFSET, WKT_BROADCAST};
    static const int64_t s3[] = {4, 6, 33}, s2[] = {37, 300}, one[] = {5, 1, 7}, big[] = {3, 5000};
    static const int masks[] = {4, 1, 5, 2, 0, 6};
    for (int op = ST_VAR; op <= ST_NINF; op++) {
        for (int k = 0; k < 4; k++) {
            add(l, op, fl[k], lay[(op + k) % 5], 3, s3, masks[(op + k) % 6], k % 2, k < 2, false);
            add(l, op, fl[k], lay[(op + k + 1) % 4], 2, s2, k % 2 ? 1 : 2, k < 2, true, false);
        }
        add(l, op, WK_F32, WKT_CONTIG, 3, s3, 4, false, true, true);  /* NaN and infinities */
        add(l, op, WK_F64, WKT_PERMUTED, 3, s3, 3, true, false, true);
        add(l, op, WK_F32, WKT_CONTIG, 3, one, 2, false, true, false); /* one element each: unbiased var NaN */
        add(l, op, WK_F32, WKT_CONTIG, 2, big, 2, false, true, false);  /* long rows, threaded */
        add(l, op, WK_BF16, WKT_TRANSPOSED, 2, big, 1, true, false, false);
        add(l, op, WK_F32, WKT_CONTIG, 0, NULL, 0, false, false, false);
    }
}

static void errors(wkt_errctx *e)
{
    const int64_t s2[2] = {2, 3}, z[2] = {0, 3};
    const int d0[1] = {0}, dbad[1] = {2}, twice[2] = {1, -1};
    wk_tensor *x = NULL, *xi = NULL, *xz = NULL, *o = NULL;
    if (wk_tensor_empty(e->dev, WK_F32, 2, s2, &x) != WK_OK || wk_tensor_empty(e->dev, WK_I32, 2, s2, &xi) != WK_OK ||
        wk_tensor_empty(e->dev, WK_F32, 2, z, &xz) != WK_OK) {
        e->checks++, e->failures++;
        printf("FAIL stats errors: cannot make inputs: %s\n", wk_last_error());
        goto done;
    }
    EW_EXPECT(e, o, wk_var(xi, d0, 1, true, false, &o), WK_ERR_DTYPE, "var");
    EW_EXPECT(e, o, wk_std(xi, d0, 1, true, false, &o), WK_ERR_DTYPE, "std");
    EW_EXPECT(e, o, wk_logsumexp(xi, d0, 1, false, &o), WK_ERR_DTYPE, "logsumexp");
    EW_EXPECT(e, o, wk_norm(xi, 2, d0, 1, false, &o), WK_ERR_DTYPE, "norm");
    EW_EXPECT(e, o, wk_var(x, dbad, 1, true, false, &o), WK_ERR_SHAPE, "var");
    EW_EXPECT(e, o, wk_std(x, twice, 2, true, false, &o), WK_ERR_SHAPE, "std");
    EW_EXPECT(e, o, wk_logsumexp(x, NULL, 1, false, &o), WK_ERR_INVALID_ARGUMENT, "logsumexp");
    EW_EXPECT(e, o, wk_norm(x, 3, d0, 1, false, &o), WK_ERR_INVALID_ARGUMENT, "norm");
    EW_EXPECT(e, o, wk_norm(x, -INFINITY, d0, 1, false, &o), WK_ERR_INVALID_ARGUMENT, "norm");
    EW_EXPECT(e, o, wk_norm(xz, INFINITY, d0, 1, false, &o), WK_ERR_SHAPE, "norm");
    EW_EXPECT(e, o, wk_var(NULL, d0, 1, true, false, &o), WK_ERR_INVALID_ARGUMENT, "var");
    EW_EXPECT(e, o, wk_var(x, d0, 1, true, false, NULL), WK_ERR_INVALID_ARGUMENT, "var");
done:
    wk_tensor_release(x);
    wk_tensor_release(xi);
    wk_tensor_release(xz);
}

const wkt_family wkt_family_stats = {.name = "stats", .cases = cases, .errors = errors};
