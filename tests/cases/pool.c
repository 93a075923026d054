/* pool.c: case family 'pool': max_pool2d (every dtype, NaN) and avg_pool2d (float) against a plain float64
 * reference over kernel, stride, padding, ceil_mode and count_include_pad; upsample cases in upsample.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"

void pl_add(wkt_list *l, const char *op, wk_dtype dt, wkt_layout layout, int rank, const int64_t *shape,
            const int *ip, const double *fp, wkt_run_fn run)
{
    wkt_case c;
    memset(&c, 0, sizeof c);
    c.family = "pool";
    snprintf(c.op, sizeof c.op, "%s", op);
    c.dtype = dt;
    c.layout = layout;
    c.rank = rank;
    memcpy(c.shape, shape, (size_t)rank * sizeof *shape);
    if (ip)
        memcpy(c.iparam, ip, sizeof c.iparam);
    if (fp)
        memcpy(c.fparam, fp, sizeof c.fparam);
    c.run = run;
    wkt_add(l, &c);
}

bool pl_check_shape(const wk_tensor *t, wk_dtype dt, int rank, const int64_t *shape, wkt_result *r)
{
    if (wk_tensor_dtype(t) != dt || wk_tensor_rank(t) != rank ||
        memcmp(wk_tensor_shape(t), shape, (size_t)rank * sizeof *shape) != 0) {
        wkt_fail(r, "result has the wrong dtype or shape");
        return false;
    }
    return true;
}

void pl_expect_untouched(wkt_errctx *e, const void *out, const char *what)
{
    e->checks++;
    if (out) {
        e->failures++;
        printf("FAIL %s: out-parameter written on failure\n", what);
    }
}

/* ---------------------------------------------------------------- reference */

/* PyTorch's output size: floor or ceil of (in + 2p - k) / s, plus one; in ceil mode the last window must
 * start inside the input or the left padding. */
static int64_t ref_out_size(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil_mode)
{
    double q = (double)(in + 2 * p - k) / (double)s;
    int64_t o = (int64_t)(ceil_mode ? ceil(q) : floor(q)) + 1;
    if (ceil_mode && (o - 1) * s >= in + p)
        o--;
    return o;
}

/* One output element: the window starting at o*s - p, ending at min(start + k, in + p) (the divisor's
 * extent), then clipped to the input. */
typedef struct ref_window { int64_t lo, hi, full; } ref_window;
static ref_window ref_window_at(int64_t o, int64_t k, int64_t s, int64_t p, int64_t in)
{
    int64_t start = o * s - p, end = start + k < in + p ? start + k : in + p;
    ref_window w = {start < 0 ? 0 : start, end < in ? end : in, end - start};
    return w;
}

/* iparam: kh, kw, sh, sw, ph, pw, ceil_mode, flags (1: count_include_pad, 2: NaN inputs). */
static wk_pool_params params_of(const wkt_case *c)
{
    wk_pool_params p = {.kernel = {c->iparam[0], c->iparam[1]}, .stride = {c->iparam[2], c->iparam[3]},
                        .padding = {c->iparam[4], c->iparam[5]}, .ceil_mode = c->iparam[6] != 0,
                        .count_include_pad = (c->iparam[7] & 1) != 0};
    return p;
}

static void ref_pool(bool is_max, const wk_pool_params *p, const int64_t *xs, const double *x, const int64_t *os,
                     double *out)
{
    int64_t H = xs[2], W = xs[3];
    for (int64_t nc = 0; nc < xs[0] * xs[1]; nc++)
        for (int64_t oh = 0; oh < os[2]; oh++)
            for (int64_t ow = 0; ow < os[3]; ow++) {
                ref_window hw = ref_window_at(oh, p->kernel[0], p->stride[0], p->padding[0], H);
                ref_window ww = ref_window_at(ow, p->kernel[1], p->stride[1], p->padding[1], W);
                double acc = is_max ? -INFINITY : 0;
                bool nan = false;
                for (int64_t ih = hw.lo; ih < hw.hi; ih++)
                    for (int64_t iw = ww.lo; iw < ww.hi; iw++) {
                        double v = x[(nc * H + ih) * W + iw];
                        nan = nan || isnan(v);
                        acc = is_max ? (v > acc ? v : acc) : acc + v;
                    }
                if (!is_max)
                    acc /= (double)(p->count_include_pad ? hw.full * ww.full : (hw.hi - hw.lo) * (ww.hi - ww.lo));
                out[(nc * os[2] + oh) * os[3] + ow] = nan ? NAN : acc;
            }
}

/* ---------------------------------------------------------------- cases */

/* Random logical values with about one in eight set to NaN, built in the case's layout. */
static wk_status make_with_nans(wk_device *dev, const wkt_case *c, wkt_rng *rng, wk_tensor **t, double **vals)
{
    int64_t n = 1;
    for (int i = 0; i < c->rank; i++)
        n *= c->shape[i];
    double *v = malloc((size_t)n * sizeof *v + 1);
    if (!v)
        return WK_ERR_OUT_OF_MEMORY;
    for (int64_t i = 0; i < n; i++)
        v[i] = wkt_rng_int(rng, 0, 7) == 0 ? NAN : wkt_round_to(c->dtype, wkt_rng_uniform(rng, -2, 2));
    wk_status s = wkt_make_from(dev, c->dtype, c->rank, c->shape, c->layout, v, t);
    if (s != WK_OK) {
        free(v);
        return s;
    }
    *vals = v;
    return WK_OK;
}

static void run_pool(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    bool is_max = strcmp(c->op, "max_pool2d") == 0;
    wk_pool_params p = params_of(c);
    wk_tensor *x = NULL, *o = NULL;
    double *xv = NULL, *got = NULL, *want = NULL;
    wk_status s = (c->iparam[7] & 2) ? make_with_nans(dev, c, rng, &x, &xv)
                                     : wkt_make(dev, c->dtype, 4, c->shape, c->layout, wkt_dist_default(c->dtype),
                                                rng, &x, &xv);
    if (wkt_failed(s, r, "make x"))
        goto done;
    int64_t os[4] = {c->shape[0], c->shape[1], 0, 0};
    for (int a = 0; a < 2; a++)
        os[2 + a] = ref_out_size(c->shape[2 + a], p.kernel[a], p.stride[a], p.padding[a], p.ceil_mode);
    s = is_max ? wk_max_pool2d(x, &p, &o) : wk_avg_pool2d(x, &p, &o);
    if (wkt_failed(s, r, c->op) || !pl_check_shape(o, c->dtype, 4, os, r))
        goto done;
    int64_t n = os[0] * os[1] * os[2] * os[3];
    want = malloc((size_t)n * sizeof *want + 1);
    if (!want || wkt_failed(wkt_read(o, &got), r, "read")) {
        if (!want)
            wkt_fail(r, "out of host memory");
        goto done;
    }
    ref_pool(is_max, &p, c->shape, xv, os, want);
    if (!is_max)
        for (int64_t i = 0; i < n; i++)
            want[i] = wkt_round_to(c->dtype, want[i]);
    /* max picks one of the inputs: exact for every dtype */
    wkt_compare(c->dtype, got, want, n, wkt_tol(c->dtype, WKT_TOL_ELEMENTWISE), is_max, r);
done:
    free(xv);
    free(got);
    free(want);
    wk_tensor_release(x);
    wk_tensor_release(o);
}

static void add_pool(wkt_list *l, bool is_max, wk_dtype dt, wkt_layout layout, const int64_t *shape, int kh,
                     int kw, int sh, int sw, int ph, int pw, int ceil_mode, int flags)
{
    int ip[8] = {kh, kw, sh, sw, ph, pw, ceil_mode, flags};
    pl_add(l, is_max ? "max_pool2d" : "avg_pool2d", dt, layout, 4, shape, ip, NULL, run_pool);
}

static void cases(wkt_list *l)
{
    static const wk_dtype all[] = {WK_U8, WK_U32, WK_I32, WK_I64, WK_F16, WK_BF16, WK_F32, WK_F64};
    static const wk_dtype floats[] = {WK_F16, WK_BF16, WK_F32, WK_F64};
    const int64_t odd[4] = {2, 3, 7, 8}, odd2[4] = {1, 2, 9, 6};
    /* the parameter grid on f32: kernel 1..3, stride 1..3, padding 0..k/2, ceil_mode, count_include_pad */
    for (int k = 1; k <= 3; k++)
        for (int s = 1; s <= 3; s++)
            for (int p = 0; p <= k / 2; p++)
                for (int ceil_mode = 0; ceil_mode < 2; ceil_mode++) {
                    const int64_t *shape = (k + s + p) % 2 ? odd : odd2;
                    add_pool(l, true, WK_F32, WKT_CONTIG, shape, k, k, s, s, p, p, ceil_mode, 0);
                    for (int cip = 0; cip < 2; cip++)
                        add_pool(l, false, WK_F32, WKT_CONTIG, shape, k, k, s, s, p, p, ceil_mode, cip);
                }
    /* asymmetric parameters, where ceil_mode drops a window along one axis only */
    const int64_t wide[4] = {1, 2, 5, 11};
    for (int ceil_mode = 0; ceil_mode < 2; ceil_mode++) {
        add_pool(l, true, WK_F32, WKT_CONTIG, wide, 2, 3, 1, 2, 1, 0, ceil_mode, 0);
        add_pool(l, true, WK_F64, WKT_TRANSPOSED, wide, 3, 1, 3, 2, 1, 0, ceil_mode, 0);
        for (int cip = 0; cip < 2; cip++) {
            add_pool(l, false, WK_F32, WKT_CONTIG, wide, 2, 3, 1, 2, 1, 0, ceil_mode, cip);
            add_pool(l, false, WK_F64, WKT_PERMUTED, wide, 3, 2, 2, 3, 1, 1, ceil_mode, cip);
        }
    }
    /* every dtype in every layout */
    for (wkt_layout lay = 0; lay < WKT_LAYOUT_COUNT; lay++) {
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            add_pool(l, true, all[i], lay, odd, 3, 3, 2, 2, 1, 1, 1, 0);
        for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++)
            add_pool(l, false, floats[i], lay, odd, 3, 2, 2, 1, 1, 1, 1, (int)i & 1);
    }
    /* NaN propagates through max (and through avg's sum) */
    for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++) {
        add_pool(l, true, floats[i], WKT_CONTIG, odd, 2, 2, 1, 1, 0, 0, 0, 2);
        add_pool(l, true, floats[i], WKT_TRANSPOSED, odd, 3, 3, 2, 2, 1, 1, 1, 2);
    }
    add_pool(l, false, WK_F32, WKT_OFFSET, odd, 3, 3, 2, 2, 1, 1, 0, 3);
    /* empty batch, a 1x1 input, and large enough to run threaded */
    const int64_t empty[4] = {0, 3, 5, 5}, tiny[4] = {2, 2, 1, 1}, big[4] = {2, 8, 64, 64};
    add_pool(l, true, WK_F32, WKT_CONTIG, empty, 2, 2, 2, 2, 0, 0, 0, 0);
    add_pool(l, true, WK_I32, WKT_CONTIG, tiny, 3, 3, 1, 1, 1, 1, 1, 0);
    add_pool(l, false, WK_F32, WKT_CONTIG, tiny, 2, 2, 2, 2, 1, 1, 1, 1);
    add_pool(l, true, WK_F32, WKT_CONTIG, big, 3, 3, 1, 1, 1, 1, 0, 0);
    add_pool(l, false, WK_BF16, WKT_PERMUTED, big, 3, 3, 1, 1, 1, 1, 1, 1);
    pl_upsample_cases(l);
}

/* ---------------------------------------------------------------- errors */

static void errors(wkt_errctx *e)
{
    const int64_t shape[4] = {1, 2, 5, 5}, flat[3] = {1, 2, 5};
    wk_tensor *x = NULL, *xi = NULL, *x3 = NULL, *xe = NULL;
    if (wk_zeros(e->dev, WK_F32, 4, shape, &x) != WK_OK || wk_zeros(e->dev, WK_I32, 4, shape, &xi) != WK_OK ||
        wk_zeros(e->dev, WK_F32, 3, flat, &x3) != WK_OK) {
        e->checks++;
        e->failures++;
        printf("FAIL pool errors: cannot make inputs: %s\n", wk_last_error());
        goto done;
    }
    const int64_t empty_hw[4] = {1, 2, 0, 5};
    (void)wk_zeros(e->dev, WK_F32, 4, empty_hw, &xe);
    wk_pool_params ok = {.kernel = {2, 2}, .stride = {2, 2}, .padding = {1, 1}};
    wk_tensor *o = NULL;
    WKT_EXPECT(e, wk_max_pool2d(NULL, &ok, &o), WK_ERR_INVALID_ARGUMENT, "max_pool2d");
    WKT_EXPECT(e, wk_max_pool2d(x, NULL, &o), WK_ERR_INVALID_ARGUMENT, "max_pool2d");
    WKT_EXPECT(e, wk_avg_pool2d(x, &ok, NULL), WK_ERR_INVALID_ARGUMENT, "avg_pool2d");
    WKT_EXPECT(e, wk_max_pool2d(x3, &ok, &o), WK_ERR_SHAPE, "max_pool2d");
    WKT_EXPECT(e, wk_avg_pool2d(xi, &ok, &o), WK_ERR_DTYPE, "avg_pool2d");
    if (xe)
        WKT_EXPECT(e, wk_max_pool2d(xe, &ok, &o), WK_ERR_SHAPE, "max_pool2d");
    wk_pool_params bad = ok;
    bad.kernel[1] = 0;
    WKT_EXPECT(e, wk_max_pool2d(x, &bad, &o), WK_ERR_INVALID_ARGUMENT, "max_pool2d");
    bad = ok;
    bad.stride[0] = 0;
    WKT_EXPECT(e, wk_avg_pool2d(x, &bad, &o), WK_ERR_INVALID_ARGUMENT, "avg_pool2d");
    bad = ok;
    bad.stride[1] = -1;
    WKT_EXPECT(e, wk_max_pool2d(x, &bad, &o), WK_ERR_INVALID_ARGUMENT, "max_pool2d");
    bad = ok;
    bad.kernel[0] = 3;
    bad.padding[0] = 2; /* more than kernel/2 */
    WKT_EXPECT(e, wk_max_pool2d(x, &bad, &o), WK_ERR_INVALID_ARGUMENT, "max_pool2d");
    bad = ok;
    bad.padding[1] = -1;
    WKT_EXPECT(e, wk_avg_pool2d(x, &bad, &o), WK_ERR_INVALID_ARGUMENT, "avg_pool2d");
    bad = ok;
    bad.kernel[0] = 10; /* larger than the padded input: output size 0, in ceil mode too */
    bad.padding[0] = 1;
    WKT_EXPECT(e, wk_max_pool2d(x, &bad, &o), WK_ERR_SHAPE, "max_pool2d");
    bad.ceil_mode = true;
    WKT_EXPECT(e, wk_avg_pool2d(x, &bad, &o), WK_ERR_SHAPE, "avg_pool2d");
    pl_expect_untouched(e, o, "pool errors");
    pl_upsample_errors(e);
done:
    wk_tensor_release(x);
    wk_tensor_release(xi);
    wk_tensor_release(x3);
    wk_tensor_release(xe);
}

const wkt_family wkt_family_pool = {.name = "pool", .cases = cases, .errors = errors};
