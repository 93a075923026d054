/* sample.c: case family 'sample': wk_sample's exact ids against a plain re-implementation of wick.h's rule (the
 * same Philox draws and exp of core/numerics.h), so every backend must pick the same ids bit for bit; the
 * distribution of many draws against the probabilities (chi-square); wk_multinomial likewise; error paths. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "special_inputs.h"

#define WK_CDF_BLOCK 256 /* wick.h's blocks of cumulative sums (numerics.h) */

/* Philox4x32-10 (Random123) on counter (lo, hi) and key seed; the draw: words 0 and 1 as a 53-bit uniform. */
static double uniform_ref(uint64_t seed, uint64_t lo, uint64_t hi)
{
    uint32_t x[4] = {(uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)hi, (uint32_t)(hi >> 32)};
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    for (int round = 1; round <= 10; round++) {
        uint64_t a = (uint64_t)0xD2511F53u * x[0], b = (uint64_t)0xCD9E8D57u * x[2];
        uint32_t y[4] = {(uint32_t)(b >> 32) ^ x[1] ^ key[0], (uint32_t)b, (uint32_t)(a >> 32) ^ x[3] ^ key[1],
                         (uint32_t)a};
        memcpy(x, y, sizeof x);
        key[0] += 0x9E3779B9u;
        key[1] += 0xBB67AE85u;
    }
    return (double)((((uint64_t)x[0] << 32) | x[1]) >> 11) * 0x1p-53;
}

/* wick.h's exp for d <= 0: d = n ln2 + r, Taylor to degree 13 by fma Horner, times 2^n. */
static double exp_ref(double d)
{
    if (!(d > -745.0))
        return d != d ? d : 0.0;
    if (d >= 0.0)
        return 1.0;
    double n = nearbyint(d * 1.4426950408889634);
    double r = fma(-n, 1.90821492927058770002e-10, fma(-n, 6.93147180369123816490e-01, d)), p = 1.0 / 6227020800.0;
    static const double c[13] = {1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0,
                                 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0,
                                 0.5, 1.0, 1.0};
    for (int i = 0; i < 13; i++)
        p = fma(p, r, c[i]);
    return ldexp(p, (int)n);
}

/* iparam: [0] kind, [1] V, [2] input kind, [3] prev dtype (0 none, 1 i64, 2 i32), [4] replacement. */
enum { P_KIND, P_V, P_INPUT, P_PREV, P_REPL };
enum { SAMPLE_EXACT, SAMPLE_DIST, MULTI_EXACT, MULTI_DIST };
#define B_EXACT 8
#define NPREV 12

/* Row r's parameters in the exact cases: greedy, top-k, top-p, min-p and penalties in turn. */
static void row_params(int64_t r, int64_t V, float *t, int64_t *k, float *tp, float *mp, float *rep, float *pres)
{
    *t = r % 4 == 0 ? 0.0f : 0.5f + 0.25f * (float)(r % 3);
    *k = r % 3 == 0 ? 0 : r % 3 == 1 ? 5 + r : V + 3;
    *tp = r % 2 ? 0.9f : 1.0f;
    *mp = r % 5 == 2 ? 0.05f : 0.0f;
    *rep = r % 3 == 2 ? 1.3f : 1.0f;
    *pres = r % 4 == 1 ? 0.5f : 0.0f;
}

typedef struct cand { float l; int64_t i; } cand;
static int by_logit(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    bool xn = isnan(x->l), yn = isnan(y->l);
    if (xn != yn)
        return xn ? -1 : 1;
    if (!xn && x->l != y->l)
        return x->l > y->l ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* wick.h's steps for one row of logits l (V, penalised in place). */
static int64_t ref_pick(float *l, int64_t V, const int64_t *prev, int64_t np, float t, int64_t k, float tp, float mp,
                        float rep, float pres, uint64_t seed, uint64_t offset, int64_t row)
{
    cand *c = malloc((size_t)V * sizeof *c);
    double *w = malloc((size_t)V * sizeof *w), *C = malloc((size_t)V * sizeof *C);
    for (int64_t j = 0; j < np; j++) {
        bool dup = false;
        for (int64_t i = 0; i < j; i++)
            dup |= prev[i] == prev[j];
        if (prev[j] < 0 || prev[j] >= V || dup)
            continue;
        float v = l[prev[j]];
        v = v > 0 ? v / rep : v * rep;
        l[prev[j]] = v - pres;
    }
    for (int64_t i = 0; i < V; i++)
        c[i] = (cand){l[i], i};
    qsort(c, (size_t)V, sizeof *c, by_logit);
    int64_t id = isnan(c[0].l) ? -1 : c[0].i;
    if (t > 0 && id >= 0) {
        int64_t kr = k <= 0 || k > V ? V : k, kept = kr;
        for (int64_t j = 0; j < kr; j++) {
            float z = c[j].l / t, zmax = c[0].l / t;
            w[j] = z == zmax ? 1.0 : exp_ref((double)z - (double)zmax);
        }
        double before = 0, s = 0;
        for (int64_t j = 0; j < kr; j++) {
            if (j % WK_CDF_BLOCK == 0)
                s = 0;
            s += w[j];
            C[j] = before + s;
            if (j % WK_CDF_BLOCK == WK_CDF_BLOCK - 1 || j == kr - 1)
                before = before + s;
        }
        for (int64_t j = kr - 1; j >= 0; j--)
            if (C[j] >= (double)tp * C[kr - 1])
                kept = j + 1;
        for (int64_t j = kept - 1; j >= 1; j--)
            if (w[j] < (double)mp)
                kept = j;
        double target = uniform_ref(seed, offset, (uint64_t)row) * C[kept - 1];
        int64_t pick = -1, last = 0;
        for (int64_t j = 0; j < kept && pick < 0; j++) {
            if (C[j] > target)
                pick = j;
            if (w[j] > 0)
                last = j;
        }
        id = c[pick >= 0 ? pick : last].i;
    }
    free(c);
    free(w);
    free(C);
    return id;
}

static void run_sample_exact(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int64_t B = c->shape[0], V = c->shape[1], np = c->iparam[P_PREV] ? NPREV : 0;
    float t[B_EXACT], tp[B_EXACT], mp[B_EXACT], rep[B_EXACT], pres[B_EXACT];
    int64_t k[B_EXACT], prev[B_EXACT * NPREV], pshape[2] = {B, NPREV};
    int32_t prev32[B_EXACT * NPREV];
    uint64_t seed[B_EXACT];
    for (int64_t i = 0; i < B_EXACT; i++) {
        row_params(i, V, t + i, k + i, tp + i, mp + i, rep + i, pres + i);
        seed[i] = wkt_rng_next(rng);
    }
    for (int64_t i = 0; i < B_EXACT * NPREV; i++)
        prev32[i] = (int32_t)(prev[i] = wkt_rng_int(rng, -2, V < 30 ? V + 1 : 30));
    wk_sample_params p = {.count = B_EXACT, .temperature = t, .top_k = k, .top_p = tp, .min_p = mp,
                          .repetition_penalty = rep, .presence_penalty = pres, .seed = seed,
                          .offset = wkt_rng_next(rng) % 1000};
    wk_tensor *x = NULL, *pv = NULL, *ids = NULL;
    double *xv = NULL, *got = NULL;
    float *row = malloc((size_t)V * sizeof *row);
    wk_status s = make_input(dev, c->dtype, 2, c->shape, c->layout, (input_kind)c->iparam[P_INPUT], rng, &x, &xv);
    if (s == WK_OK && np)
        s = c->iparam[P_PREV] == 1 ? wk_tensor_from_host(dev, WK_I64, 2, pshape, prev, &pv)
                                   : wk_tensor_from_host(dev, WK_I32, 2, pshape, prev32, &pv);
    if (wkt_failed(s, r, "make inputs") || !row)
        goto done;
    if (B < B_EXACT)
        p.count = 1; /* an emptied case: one value for all rows */
    s = wk_sample(x, &p, pv, &ids);
    if (wkt_failed(s, r, "sample") || !check_shape(ids, WK_I64, 1, &B, r) || wkt_failed(wkt_read(ids, &got), r, "read"))
        goto done;
    for (int64_t i = 0; i < B; i++) {
        for (int64_t j = 0; j < V; j++)
            row[j] = (float)xv[i * V + j];
        int64_t want = ref_pick(row, V, prev + i * NPREV, np, t[i], k[i], tp[i], mp[i], rep[i], pres[i], seed[i],
                                p.offset, i);
        if ((int64_t)got[i] != want) {
            wkt_fail(r, "row %lld: id %lld, want %lld", (long long)i, (long long)got[i], (long long)want);
            break;
        }
    }
done:
    wk_tensor_release(x);
    wk_tensor_release(pv);
    wk_tensor_release(ids);
    free(xv);
    free(got);
    free(row);
}

/* Chi-square of counts against probabilities p (n categories, total draws); draws outside p's support fail. */
static void chi_square(const double *count, const double *p, int64_t n, double total, wkt_result *r)
{
    double chi = 0;
    int df = -1;
    for (int64_t i = 0; i < n; i++) {
        if (p[i] == 0 && count[i] > 0)
            wkt_fail(r, "id %lld drawn %g times, probability 0", (long long)i, count[i]);
        if (p[i] > 0) {
            chi += (count[i] - total * p[i]) * (count[i] - total * p[i]) / (total * p[i]);
            df++;
        }
    }
    double bound = df + 8 * sqrt(2.0 * df) + 10; /* far beyond chance for the fixed seeds */
    r->max_rel_err = chi / bound;
    if (chi > bound)
        wkt_fail(r, "chi-square %.2f over %d degrees of freedom (bound %.1f)", chi, df, bound);
}

/* Many rows of the same 8 logits, temperature 0.7 and top_k 5: the ids' frequencies against the softmax. */
static void run_sample_dist(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    (void)rng;
    int64_t B = c->shape[0], V = 8, shape[2] = {B, V};
    static const float logits[8] = {0.5f, 2.0f, -1.0f, 1.5f, 1.9f, 0.0f, 1.0f, -3.0f};
    float *host = malloc((size_t)(B * V + 1) * sizeof *host), t = 0.7f;
    int64_t k = 5;
    uint64_t seed = 1234;
    double count[8] = {0}, p[8] = {0}, sum = 0, *got = NULL;
    wk_tensor *x = NULL, *ids = NULL;
    for (int64_t i = 0; i < B * V; i++)
        host[i] = logits[i % V];
    wk_sample_params sp = {.count = 1, .temperature = &t, .top_k = &k, .seed = &seed, .offset = 7};
    wk_status s = wk_tensor_from_host(dev, WK_F32, 2, shape, host, &x);
    if (s == WK_OK)
        s = wk_sample(x, &sp, NULL, &ids);
    if (!wkt_failed(s, r, "sample") && !wkt_failed(wkt_read(ids, &got), r, "read")) {
        for (int64_t i = 0; i < B; i++)
            count[(int64_t)got[i] & 7]++;
        for (int i = 0; i < 8; i++) /* the 5 largest: ids 1, 4, 3, 6, 0 */
            if (i == 1 || i == 4 || i == 3 || i == 6 || i == 0)
                sum += p[i] = exp((double)logits[i] / 0.7);
        for (int i = 0; i < 8; i++)
            p[i] /= sum;
        if (B > 0)
            chi_square(count, p, V, (double)B, r);
    }
    wk_tensor_release(x);
    wk_tensor_release(ids);
    free(host);
    free(got);
}

/* multinomial's rule for one row (weights w consumed), written plainly. */
static void ref_multinomial(double *w, int64_t V, int64_t n, bool repl, uint64_t seed, int64_t row, int64_t *out)
{
    bool bad = false;
    for (int64_t i = 0; i < V; i++)
        bad |= !(w[i] >= 0) || isinf(w[i]);
    double *C = malloc((size_t)V * sizeof *C);
    for (int64_t j = 0; j < n; j++) {
        double before = 0, s = 0;
        for (int64_t i = 0; i < V; i++) {
            if (i % WK_CDF_BLOCK == 0)
                s = 0;
            s += w[i];
            C[i] = before + s;
            if (i % WK_CDF_BLOCK == WK_CDF_BLOCK - 1 || i == V - 1)
                before = before + s;
        }
        if (bad || !(C[V - 1] > 0)) {
            out[j] = -1;
            continue;
        }
        double target = uniform_ref(seed, (uint64_t)j, (uint64_t)row) * C[V - 1];
        int64_t pick = -1, last = 0;
        for (int64_t i = 0; i < V && pick < 0; i++) {
            if (C[i] > target)
                pick = i;
            if (w[i] > 0)
                last = i;
        }
        out[j] = pick >= 0 ? pick : last;
        if (!repl)
            w[out[j]] = 0;
    }
    free(C);
}

/* Rows of random weights (some zero; row 1 holds a negative weight, row 2 only zeros: every draw -1). */
static void run_multi_exact(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int64_t B = c->shape[0], V = c->shape[1], n = c->iparam[P_REPL] ? 9 : (V < 5 ? V : 5);
    bool repl = c->iparam[P_REPL] != 0;
    uint64_t seed = wkt_rng_next(rng);
    wk_tensor *x = NULL, *out = NULL;
    double *xv = NULL, *got = NULL, *w = malloc((size_t)V * sizeof *w + 1);
    int64_t *want = malloc((size_t)n * sizeof *want + 1);
    wk_status s = make_input(dev, c->dtype, 2, c->shape, c->layout, (input_kind)c->iparam[P_INPUT], rng, &x, &xv);
    if (wkt_failed(s, r, "make input") || !w || !want)
        goto done;
    s = wk_multinomial(x, n, repl, seed, &out);
    int64_t oshape[2] = {B, n};
    if (wkt_failed(s, r, "multinomial") || !check_shape(out, WK_I64, 2, oshape, r) ||
        wkt_failed(wkt_read(out, &got), r, "read"))
        goto done;
    for (int64_t i = 0; i < B; i++) {
        for (int64_t j = 0; j < V; j++)
            w[j] = c->dtype == WK_F64 ? xv[i * V + j] : (double)(float)xv[i * V + j];
        ref_multinomial(w, V, n, repl, seed, i, want);
        for (int64_t j = 0; j < n; j++)
            if ((int64_t)got[i * n + j] != want[j]) {
                wkt_fail(r, "row %lld draw %lld: id %lld, want %lld", (long long)i, (long long)j,
                         (long long)got[i * n + j], (long long)want[j]);
                goto done;
            }
    }
done:
    wk_tensor_release(x);
    wk_tensor_release(out);
    free(xv);
    free(got);
    free(w);
    free(want);
}

/* One row of 6 weights, many draws with replacement: frequencies against the weights. */
static void run_multi_dist(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    (void)rng;
    static const double w[6] = {0.1, 0.0, 0.3, 0.05, 0.25, 0.3};
    int64_t n = c->shape[0], V = 6;
    double count[6] = {0}, *got = NULL;
    wk_tensor *x = NULL, *out = NULL;
    wk_status s = wk_tensor_from_host(dev, WK_F64, 1, &V, w, &x);
    if (s == WK_OK)
        s = wk_multinomial(x, n, true, 99, &out);
    if (!wkt_failed(s, r, "multinomial") && !wkt_failed(wkt_read(out, &got), r, "read")) {
        for (int64_t i = 0; i < n; i++)
            count[got[i] >= 0 && got[i] < 6 ? (int64_t)got[i] : 1] += 1;
        if (n > 0)
            chi_square(count, w, V, (double)n, r);
    }
    wk_tensor_release(x);
    wk_tensor_release(out);
    free(got);
}

static void add(wkt_list *l, const char *op, int kind, wk_dtype dt, wkt_layout lay, int64_t B, int64_t V,
                input_kind in, int prev, bool repl, wkt_run_fn run)
{
    wkt_case c = {.family = "sample", .dtype = dt, .layout = lay, .rank = 2, .shape = {B, V}, .run = run};
    snprintf(c.op, sizeof c.op, "%s", op);
    c.iparam[P_KIND] = kind;
    c.iparam[P_V] = (int)V;
    c.iparam[P_INPUT] = in;
    c.iparam[P_PREV] = prev;
    c.iparam[P_REPL] = repl;
    wkt_add(l, &c);
}

static void cases(wkt_list *l)
{
    static const wk_dtype dts[] = {WK_F32, WK_F16, WK_BF16};
    static const int64_t vs[] = {50, 1000, 9000}; /* 9000: several GPU chunks; top_k V + 3: every candidate */
    for (int t = 0; t < 3; t++)
        for (int v = 0; v < 3; v++) {
            wkt_layout lay = (wkt_layout)((t + v) % 3 == 2 ? WKT_TRANSPOSED : WKT_CONTIG);
            add(l, "sample", SAMPLE_EXACT, dts[t], lay, B_EXACT, vs[v], (t + v) % 2 ? INPUT_TIES : INPUT_RANDOM,
                (t + v) % 3, false, run_sample_exact);
        }
    add(l, "sample", SAMPLE_EXACT, WK_F32, WKT_CONTIG, B_EXACT, 40, INPUT_NAN, 1, false, run_sample_exact);
    add(l, "sample", SAMPLE_DIST, WK_F32, WKT_CONTIG, 20000, 8, INPUT_RANDOM, 0, false, run_sample_dist);
    static const wk_dtype mdts[] = {WK_F32, WK_F64, WK_F16, WK_BF16};
    for (int t = 0; t < 4; t++)
        for (int repl = 0; repl < 2; repl++)
            add(l, "multinomial", MULTI_EXACT, mdts[t], repl ? WKT_TRANSPOSED : WKT_CONTIG, 5, t == 1 ? 700 : 37,
                INPUT_TIES, 0, repl, run_multi_exact);
    add(l, "multinomial", MULTI_EXACT, WK_F32, WKT_CONTIG, 4, 20, INPUT_NAN, 0, true, run_multi_exact);
    add(l, "multinomial", MULTI_DIST, WK_F64, WKT_CONTIG, 30000, 6, INPUT_RANDOM, 0, true, run_multi_dist);
}

/* ---------------------------------------------------------------- error paths */
static void errors(wkt_errctx *e)
{
    static char marker;
    wk_tensor *const before = (wk_tensor *)(void *)&marker;
    wk_tensor *x = NULL, *xi = NULL, *e0 = NULL, *pf = NULL, *p3 = NULL, *o = before;
    const int64_t shape[2] = {3, 4}, empty[2] = {3, 0}, pshape[2] = {2, 2};
    bool ok = wk_tensor_empty(e->dev, WK_F32, 2, shape, &x) == WK_OK &&
              wk_tensor_empty(e->dev, WK_I32, 2, shape, &xi) == WK_OK &&
              wk_tensor_empty(e->dev, WK_F32, 2, empty, &e0) == WK_OK &&
              wk_tensor_empty(e->dev, WK_F32, 2, shape, &pf) == WK_OK &&
              wk_tensor_empty(e->dev, WK_I64, 2, pshape, &p3) == WK_OK;
    if (!ok) {
        printf("FAIL sample errors: cannot make inputs: %s\n", wk_last_error());
        e->failures++;
        goto done;
    }
    float neg = -1, nan_ = NAN, zero = 0, big = 1.5f, inf = INFINITY;
    int64_t kneg = -1;
    wk_sample_params p = {.count = 1};
    WKT_EXPECT(e, wk_sample(NULL, &p, NULL, &o), WK_ERR_INVALID_ARGUMENT, "sample");
    WKT_EXPECT(e, wk_sample(x, NULL, NULL, &o), WK_ERR_INVALID_ARGUMENT, "sample");
    WKT_EXPECT(e, wk_sample(x, &p, NULL, NULL), WK_ERR_INVALID_ARGUMENT, "sample");
    WKT_EXPECT(e, wk_sample(xi, &p, NULL, &o), WK_ERR_DTYPE, "sample");
    WKT_EXPECT(e, wk_sample(e0, &p, NULL, &o), WK_ERR_INVALID_ARGUMENT, "sample");
    p.count = 2;
    WKT_EXPECT(e, wk_sample(x, &p, NULL, &o), WK_ERR_INVALID_ARGUMENT, "sample");
    wk_sample_params bad[] = {
        {.count = 1, .temperature = &neg},  {.count = 1, .temperature = &nan_}, {.count = 1, .temperature = &inf},
        {.count = 1, .top_k = &kneg},       {.count = 1, .top_p = &zero},       {.count = 1, .top_p = &big},
        {.count = 1, .top_p = &nan_},       {.count = 1, .min_p = &neg},        {.count = 1, .min_p = &big},
        {.count = 1, .repetition_penalty = &zero}, {.count = 1, .repetition_penalty = &inf},
        {.count = 1, .presence_penalty = &nan_},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        WKT_EXPECT(e, wk_sample(x, &bad[i], NULL, &o), WK_ERR_INVALID_ARGUMENT, "sample");
    p.count = 1;
    WKT_EXPECT(e, wk_sample(x, &p, pf, &o), WK_ERR_INVALID_ARGUMENT, "sample"); /* prev_ids f32 */
    WKT_EXPECT(e, wk_sample(x, &p, p3, &o), WK_ERR_SHAPE, "sample");            /* 2 rows, logits 3 */
    WKT_EXPECT(e, wk_multinomial(NULL, 1, true, 0, &o), WK_ERR_INVALID_ARGUMENT, "multinomial");
    WKT_EXPECT(e, wk_multinomial(x, 1, true, 0, NULL), WK_ERR_INVALID_ARGUMENT, "multinomial");
    WKT_EXPECT(e, wk_multinomial(xi, 1, true, 0, &o), WK_ERR_DTYPE, "multinomial");
    WKT_EXPECT(e, wk_multinomial(x, -1, true, 0, &o), WK_ERR_INVALID_ARGUMENT, "multinomial");
    WKT_EXPECT(e, wk_multinomial(x, 5, false, 0, &o), WK_ERR_INVALID_ARGUMENT, "multinomial");
    WKT_EXPECT(e, wk_multinomial(e0, 1, true, 0, &o), WK_ERR_INVALID_ARGUMENT, "multinomial");
    expect_untouched(e, o, before, "sample/multinomial out");
done:
    wk_tensor_release(x);
    wk_tensor_release(xi);
    wk_tensor_release(e0);
    wk_tensor_release(pf);
    wk_tensor_release(p3);
}

const wkt_family wkt_family_sample = {.name = "sample", .cases = cases, .errors = errors};
