/* linear.c: case family 'linear': wk_linear's steps (norm, bias, gated unit of each kind, residual) alone and
 * together, with float w of x's dtype and block-quantized w, against a float64 reference of the same steps:
 * x / sqrt(mean(x^2) + eps) * norm, then x w^T + bias, the gated unit over the halves, + residual. One row of x takes
 * a GPU's fused kernels (float w: the mat-vec kernel; Q4_0, Q8_0, Q4_K, Q6_K: the integer dot kernel; Q5_0 and a
 * K off the 16-byte vectors: the composed ops), more rows or a strided x the composed ops on every backend. Long
 * rows (K 4096, 8192) take the dot kernel's lanes through several passes.
 *
 * Tolerance: the product's (matmul's, or the 8-bit path's of quant_ref.c computed on the normed x), times 3: the
 * composed ops round the product, the gated unit and the sum to x's dtype once each (each within the product's
 * relative error, and the gate's derivative is at most 1.1), while a step left out or applied to the wrong row is an
 * error of order 1. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quant_ref.h"

/* iparam: [0] w: -1 float of x's dtype, else block type (from WK_Q4_0); [1] N; [2] steps (S_*); [3] the glu kind;
 * [4] rope: the head dim D; [5] rope_cols (0: all). */
enum { P_W, P_N, P_STEPS, P_GLU, P_D, P_ROPE_COLS };
enum { S_NORM = 1, S_BIAS = 2, S_GLU = 4, S_RES = 8, S_ROPE = 16, S_ROPEI = 32 };
#define EPS 1e-5

static double glu_ref(int kind, double a, double b)
{
    switch (kind) {
    case WK_GLU_SIGMOID:
        return a / (1.0 + exp(-b));
    case WK_GLU_SWIGLU:
        return a / (1.0 + exp(-a)) * b;
    case WK_GLU_GEGLU:
        return 0.5 * a * erfc(-a / sqrt(2.0)) * b;
    default:
        return 0.5 * a * (1.0 + tanh(sqrt(2.0 / M_PI) * (a + 0.044715 * a * a * a))) * b;
    }
}

/* xn (M, K): x's rows through the norm (or x itself). */
static void normed(const double *xv, const double *nv, int64_t M, int64_t K, double *xn)
{
    for (int64_t m = 0; m < M; m++) {
        double ss = 0;
        for (int64_t k = 0; k < K; k++)
            ss += xv[m * K + k] * xv[m * K + k];
        double inv = nv ? 1.0 / sqrt(ss / (double)K + EPS) : 1.0;
        for (int64_t k = 0; k < K; k++)
            xn[m * K + k] = nv ? xv[m * K + k] * inv * nv[k] : xv[m * K + k];
    }
}

/* The rope of y (M, N) in place: its first cols columns as heads of D, token t = m % T by the tables' row t (cv, sv:
 * (T, D/2)); halves (i, i + D/2) or interleaved pairs (2i, 2i + 1). */
static void rope_ref(const double *cv, const double *sv, bool inter, int64_t M, int64_t N, int64_t T, int64_t D,
                     int64_t cols, double *y)
{
    for (int64_t m = 0; m < M; m++)
        for (int64_t h0 = 0; h0 < cols; h0 += D)
            for (int64_t i = 0; i < D / 2; i++) {
                double *a = y + m * N + h0 + (inter ? 2 * i : i), *b = a + (inter ? 1 : D / 2);
                double c = cv[(m % T) * (D / 2) + i], s = sv[(m % T) * (D / 2) + i], a0 = *a;
                *a = a0 * c - *b * s;
                *b = a0 * s + *b * c;
            }
}

/* want (M, No) from the product y (M, N): bias, gated unit, residual. */
static void epilogue(const wkt_case *c, const double *y, const double *bv, const double *rv, int64_t M, int64_t N,
                     double *want)
{
    int steps = c->iparam[P_STEPS];
    int64_t No = steps & S_GLU ? N / 2 : N;
    for (int64_t m = 0; m < M; m++)
        for (int64_t j = 0; j < No; j++) {
            double a = y[m * N + j] + (bv ? bv[j] : 0), v = a;
            if (steps & S_GLU)
                v = glu_ref(c->iparam[P_GLU], a, y[m * N + j + No] + (bv ? bv[j + No] : 0));
            want[m * No + j] = v + (rv ? rv[m * No + j] : 0);
        }
}

/* w (N, K) on dev and its values: float of x's dtype, or random blocks decoded by quant_ref.c. */
static wk_status make_w(const wkt_case *c, wk_device *dev, wkt_rng *rng, int64_t N, int64_t K, wk_tensor **w,
                        double **wv)
{
    int qi = c->iparam[P_W];
    int64_t sh[2] = {N, K};
    if (qi < 0)
        return wkt_make(dev, c->dtype, 2, sh, WKT_CONTIG, (wkt_dist){-1.0, 1.0}, rng, w, wv);
    int64_t bs = wkt_qblock[qi], nb = N * K / bs;
    uint8_t *blocks = malloc((size_t)(nb * wkt_qbytes[qi]) + 1);
    *wv = malloc(sizeof(double) * (size_t)(N * K) + 1);
    if (!blocks || !*wv) {
        free(blocks);
        return WK_ERR_OUT_OF_MEMORY;
    }
    wkt_q_random_blocks(qi, nb, rng, blocks, 0.01, false);
    for (int64_t i = 0; i < N * K; i++)
        (*wv)[i] = wkt_q_ref_value(qi, blocks + (i / bs) * wkt_qbytes[qi], (int)(i % bs));
    wk_status s = wk_tensor_from_host(dev, (wk_dtype)(WK_Q4_0 + qi), 2, sh, blocks, w);
    free(blocks);
    return s;
}

static void run(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int steps = c->iparam[P_STEPS], qi = c->iparam[P_W];
    int64_t K = c->shape[c->rank - 1], N = c->iparam[P_N], M = 1, No = steps & S_GLU ? N / 2 : N;
    for (int i = 0; i < c->rank - 1; i++)
        M *= c->shape[i];
    int64_t osh[WK_MAX_RANK];
    memcpy(osh, c->shape, sizeof osh);
    osh[c->rank - 1] = No;
    double *xv = NULL, *wv = NULL, *nv = NULL, *bv = NULL, *rv = NULL, *cv = NULL, *sv = NULL, *got = NULL;
    int64_t D = c->iparam[P_D], T = c->rank >= 2 ? c->shape[c->rank - 2] : 1, tsh[2] = {T, D / 2};
    bool rope = (steps & (S_ROPE | S_ROPEI)) != 0;
    double *xn = malloc(sizeof(double) * (size_t)(M * K) + 1), *y = malloc(sizeof(double) * (size_t)(M * N) + 1);
    double *want = malloc(sizeof(double) * (size_t)(M * No) + 1);
    wk_tensor *x = NULL, *w = NULL, *nt = NULL, *bt = NULL, *rt = NULL, *ct = NULL, *st = NULL, *o = NULL;
    if (!xn || !y || !want) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    if (wkt_failed(wkt_make(dev, c->dtype, c->rank, c->shape, c->layout, (wkt_dist){-2.0, 2.0}, rng, &x, &xv), r,
                   "make x") ||
        wkt_failed(make_w(c, dev, rng, N, K, &w, &wv), r, "make w") ||
        ((steps & S_NORM) && wkt_failed(wkt_make(dev, c->dtype, 1, &K, WKT_CONTIG, (wkt_dist){0.5, 1.5}, rng, &nt,
                                                 &nv), r, "make norm")) ||
        ((steps & S_BIAS) && wkt_failed(wkt_make(dev, c->dtype, 1, &N, WKT_CONTIG, (wkt_dist){-1.0, 1.0}, rng, &bt,
                                                 &bv), r, "make bias")) ||
        ((steps & S_RES) && wkt_failed(wkt_make(dev, c->dtype, c->rank, osh, WKT_CONTIG, (wkt_dist){-2.0, 2.0}, rng,
                                                &rt, &rv), r, "make residual")) ||
        (rope && (wkt_failed(wkt_make(dev, c->dtype, 2, tsh, WKT_CONTIG, (wkt_dist){-1.0, 1.0}, rng, &ct, &cv), r,
                             "make cos") ||
                  wkt_failed(wkt_make(dev, c->dtype, 2, tsh, WKT_CONTIG, (wkt_dist){-1.0, 1.0}, rng, &st, &sv), r,
                             "make sin"))))
        goto done;
    wk_linear_params p = {.norm = nt, .eps = EPS, .bias = bt, .glu = (steps & S_GLU) != 0,
                          .glu_kind = (wk_glu_kind)c->iparam[P_GLU], .residual = rt, .rope_cos = ct, .rope_sin = st,
                          .rope_interleaved = (steps & S_ROPEI) != 0, .rope_cols = c->iparam[P_ROPE_COLS]};
    if (wkt_failed(wk_linear(x, w, &p, &o), r, "linear") || wkt_failed(wkt_read(o, &got), r, "read"))
        goto done;
    if (wk_tensor_rank(o) != c->rank || memcmp(wk_tensor_shape(o), osh, sizeof(int64_t) * (size_t)c->rank) != 0 ||
        wk_tensor_dtype(o) != c->dtype) {
        wkt_fail(r, "output shape or dtype wrong (rank %d)", wk_tensor_rank(o));
        goto done;
    }
    normed(xv, nv, M, K, xn);
    wkt_ref_xwt(xn, wv, M, N, K, y);
    int64_t xbs = qi >= 0 ? wkt_q_int8_block(dev, qi, M) : 0; /* the product's tolerance, before the epilogue */
    double tol = xbs ? wkt_q_int8_tolerance(c->dtype, xbs, xn, wv, y, M, N, K) : wkt_tol(c->dtype, WKT_TOL_MATMUL);
    if (rope) { /* the bias first, then the rotation (cos and sin need not be a rotation's: any values check it) */
        for (int64_t i = 0; i < M * N; i++)
            y[i] += bv ? bv[i % N] : 0;
        rope_ref(cv, sv, (steps & S_ROPEI) != 0, M, N, T, D, c->iparam[P_ROPE_COLS] ? c->iparam[P_ROPE_COLS] : N, y);
        free(bv);
        bv = NULL;
    }
    epilogue(c, y, bv, rv, M, N, want);
    wkt_compare(c->dtype, got, want, M * No, 3 * tol, false, r);
done:
    free(xv), free(wv), free(nv), free(bv), free(rv), free(cv), free(sv), free(got), free(xn), free(y), free(want);
    wk_tensor_release(x), wk_tensor_release(w), wk_tensor_release(nt), wk_tensor_release(bt);
    wk_tensor_release(rt), wk_tensor_release(ct), wk_tensor_release(st), wk_tensor_release(o);
}

#define SHAPE(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (const int64_t[]){__VA_ARGS__}

static wkt_case make(wk_dtype dt, int wq, int steps, int glu, int rank, const int64_t *xs, int64_t n,
                     wkt_layout layout)
{
    wkt_case c = {.family = "linear", .op = "linear", .dtype = dt, .layout = layout, .rank = rank, .run = run};
    memcpy(c.shape, xs, (size_t)rank * sizeof *xs);
    c.iparam[P_W] = wq;
    c.iparam[P_N] = (int)n;
    c.iparam[P_STEPS] = steps;
    c.iparam[P_GLU] = glu;
    return c;
}

static void add(wkt_list *l, wk_dtype dt, int wq, int steps, int glu, int rank, const int64_t *xs, int64_t n,
                wkt_layout layout)
{
    wkt_case c = make(dt, wq, steps, glu, rank, xs, n, layout);
    wkt_add(l, &c);
}

/* A rope case: heads of D, the first cols of N rotated (0: all). */
static void add_rope(wkt_list *l, wk_dtype dt, int wq, int steps, int64_t D, int64_t cols, int rank,
                     const int64_t *xs, int64_t n, wkt_layout layout)
{
    wkt_case c = make(dt, wq, steps, 0, rank, xs, n, layout);
    c.iparam[P_D] = (int)D;
    c.iparam[P_ROPE_COLS] = (int)cols;
    wkt_add(l, &c);
}

static void cases(wkt_list *l)
{
    static const wk_dtype dts[] = {WK_F32, WK_F16, WK_BF16};
    static const int combos[] = {0, S_NORM, S_BIAS, S_GLU, S_RES, S_NORM | S_GLU, S_BIAS | S_RES,
                                 S_NORM | S_BIAS | S_GLU | S_RES};
    static const int main_types[] = {0, 4, 7, 9}; /* Q4_0, Q8_0, Q4_K, Q6_K: the integer dot kernel */
    const int ncombo = (int)(sizeof combos / sizeof combos[0]);
    for (int d = 0; d < 3; d++)
        for (int i = 0; i < ncombo; i++) {
            add(l, dts[d], -1, combos[i], WK_GLU_SWIGLU, SHAPE(1, 256), 130, WKT_CONTIG); /* one row: fused */
            add(l, dts[d], -1, combos[i], WK_GLU_SWIGLU, SHAPE(3, 256), 130, WKT_CONTIG); /* composed */
        }
    for (int kind = 0; kind < WK_GLU_COUNT; kind++) {
        add(l, WK_F32, -1, S_GLU | S_BIAS, kind, SHAPE(1, 1, 96), 4098, WKT_CONTIG); /* the two-row kernel at 4096+ */
        add(l, WK_BF16, 0, S_GLU | S_NORM, kind, SHAPE(1, 512), 66, WKT_CONTIG);
    }
    add(l, WK_F16, -1, S_NORM | S_RES, 0, SHAPE(1, 36), 67, WKT_CONTIG);           /* K off the vectors: composed */
    add(l, WK_F32, -1, S_NORM | S_GLU | S_RES, 1, SHAPE(2, 3, 64), 34, WKT_PERMUTED); /* a strided x */
    add(l, WK_BF16, -1, S_NORM, 0, SHAPE(64), 7, WKT_CONTIG);                      /* x of rank 1 */
    for (size_t i = 0; i < sizeof main_types / sizeof main_types[0]; i++)
        for (int c = 0; c < ncombo; c++) {
            add(l, WK_BF16, main_types[i], combos[c], WK_GLU_SWIGLU, SHAPE(1, 512), 130, WKT_CONTIG);
            add(l, WK_F32, main_types[i], combos[c], WK_GLU_SWIGLU, SHAPE(1, 1, 768), 67 + (combos[c] & S_GLU ? 1 : 0),
                WKT_CONTIG);
        }
    for (size_t i = 0; i < sizeof main_types / sizeof main_types[0]; i++) { /* long rows */
        add(l, WK_BF16, main_types[i], S_NORM | S_BIAS | S_GLU | S_RES, WK_GLU_SWIGLU, SHAPE(1, 8192), 130, WKT_CONTIG);
        add(l, WK_F16, main_types[i], S_NORM | S_RES, 0, SHAPE(1, 4096), 67, WKT_CONTIG);
    }
    for (int ri = 0; ri < 2; ri++) { /* rope: a q/k/v product (q and k rotated, v not) */
        int rs = ri ? S_ROPEI : S_ROPE;
        for (int d = 0; d < 3; d++) /* float w: the fused mat-vec for one row, composed for more */
            add_rope(l, dts[d], -1, rs | S_NORM | S_BIAS | S_RES, 64, 128, SHAPE(1, 256), 192, WKT_CONTIG);
        for (size_t i = 0; i < sizeof main_types / sizeof main_types[0]; i++)
            add_rope(l, WK_BF16, main_types[i], rs | S_NORM | S_BIAS, 64, 320, SHAPE(1, 512), 384, WKT_CONTIG);
        add_rope(l, WK_F32, -1, rs | S_BIAS, 32, 0, SHAPE(2, 3, 256), 128, WKT_PERMUTED); /* tokens: table rows */
        add_rope(l, WK_F16, 4, rs | S_NORM, 32, 0, SHAPE(3, 512), 64, WKT_CONTIG);
        add_rope(l, WK_F32, -1, rs | S_RES, 16, 48, SHAPE(1, 64), 72, WKT_CONTIG); /* N off the heads: composed */
        add_rope(l, WK_BF16, -1, rs, 8, 0, SHAPE(64), 24, WKT_CONTIG);              /* x of rank 1 */
    }
    add(l, WK_F16, 0, S_NORM | S_GLU | S_RES, 1, SHAPE(5, 256), 130, WKT_CONTIG); /* rows of x: matmul_q composed */
    add(l, WK_F32, 2, S_NORM | S_BIAS | S_GLU | S_RES, 1, SHAPE(1, 256), 130, WKT_CONTIG); /* Q5_0: composed */
    add(l, WK_F32, 0, S_NORM, 0, SHAPE(0, 64), 34, WKT_CONTIG);                              /* no rows of x */
    /* many rows, float w: the CPU's slot (bias and residual added by the GEMM), composed on GPUs */
    add(l, WK_F32, -1, S_BIAS | S_RES, 0, SHAPE(4, 75, 96), 200, WKT_CONTIG);
    add(l, WK_F32, -1, S_RES, 0, SHAPE(33, 40), 17, WKT_CONTIG);
    add(l, WK_F32, -1, S_BIAS, 0, SHAPE(6, 64), 48, WKT_CONTIG);
    add(l, WK_F32, -1, S_BIAS | S_RES, 0, SHAPE(0, 96), 20, WKT_CONTIG);
}

/* The rope's errors on x (1, 64) and w (6, 64) f32: tables of (1, D/2). */
static void rope_errors(wkt_errctx *e, const wk_tensor *x, const wk_tensor *w)
{
    int64_t s11[2] = {1, 1}, s12[2] = {1, 2}, s21[2] = {2, 1};
    wk_tensor *c1 = NULL, *c2 = NULL, *c21 = NULL, *ch = NULL, *o = NULL;
    if (wk_zeros(e->dev, WK_F32, 2, s11, &c1) != WK_OK || wk_zeros(e->dev, WK_F32, 2, s12, &c2) != WK_OK ||
        wk_zeros(e->dev, WK_F32, 2, s21, &c21) != WK_OK || wk_zeros(e->dev, WK_F16, 2, s11, &ch) != WK_OK) {
        e->checks++;
        e->failures++;
        printf("FAIL linear rope errors: cannot make inputs: %s\n", wk_last_error());
    } else {
        const wk_linear_params one = {.rope_cos = c1}, glu = {.rope_cos = c1, .rope_sin = c1, .glu = true},
                               rows = {.rope_cos = c21, .rope_sin = c21}, dt = {.rope_cos = ch, .rope_sin = ch},
                               mixed = {.rope_cos = c1, .rope_sin = c2}, all = {.rope_cos = c2, .rope_sin = c2},
                               off = {.rope_cos = c2, .rope_sin = c2, .rope_cols = 6},
                               past = {.rope_cos = c2, .rope_sin = c2, .rope_cols = 8},
                               neg = {.rope_cos = c1, .rope_sin = c1, .rope_cols = -2},
                               fine = {.rope_cos = c2, .rope_sin = c2, .rope_cols = 4};
        WKT_EXPECT(e, wk_linear(x, w, &one, &o), WK_ERR_INVALID_ARGUMENT, "linear"); /* cos without sin */
        WKT_EXPECT(e, wk_linear(x, w, &glu, &o), WK_ERR_INVALID_ARGUMENT, "linear"); /* rope with glu */
        WKT_EXPECT(e, wk_linear(x, w, &rows, &o), WK_ERR_SHAPE, "linear");  /* 2 rows of tables, 1 token */
        WKT_EXPECT(e, wk_linear(x, w, &dt, &o), WK_ERR_DTYPE, "linear");    /* f16 tables, f32 x */
        WKT_EXPECT(e, wk_linear(x, w, &mixed, &o), WK_ERR_SHAPE, "linear"); /* cos and sin of two widths */
        WKT_EXPECT(e, wk_linear(x, w, &all, &o), WK_ERR_SHAPE, "linear");   /* all 6 columns in heads of 4 */
        WKT_EXPECT(e, wk_linear(x, w, &off, &o), WK_ERR_SHAPE, "linear");   /* 6 columns, heads of 4 */
        WKT_EXPECT(e, wk_linear(x, w, &past, &o), WK_ERR_SHAPE, "linear");  /* 8 columns of 6 */
        WKT_EXPECT(e, wk_linear(x, w, &neg, &o), WK_ERR_SHAPE, "linear");
        wk_status s = wk_linear(x, w, &fine, &o); /* one head of 4 of the 6 columns */
        e->checks++;
        if (s != WK_OK || !o || wk_tensor_shape(o)[1] != 6) {
            e->failures++;
            printf("FAIL linear: a rope over the first 4 of 6 columns was refused: %s\n", wk_last_error());
        }
    }
    wk_tensor_release(c1), wk_tensor_release(c2), wk_tensor_release(c21), wk_tensor_release(ch);
    wk_tensor_release(o);
}

void wkt_linear_errors(wkt_errctx *e)
{
    int64_t xs[2] = {1, 64}, ws[2] = {6, 64}, w5[2] = {5, 64}, n7 = 7, k64 = 64, os[2] = {1, 3};
    uint8_t blocks[12 * 18];
    memset(blocks, 0, sizeof blocks);
    wk_tensor *x = NULL, *w = NULL, *wh = NULL, *wodd = NULL, *wq = NULL, *n = NULL, *nh = NULL, *bad = NULL;
    wk_tensor *xd = NULL, *r = NULL, *o = NULL;
    if (wk_zeros(e->dev, WK_F32, 2, xs, &x) != WK_OK || wk_zeros(e->dev, WK_F32, 2, ws, &w) != WK_OK ||
        wk_zeros(e->dev, WK_F16, 2, ws, &wh) != WK_OK || wk_zeros(e->dev, WK_F32, 2, w5, &wodd) != WK_OK ||
        wk_tensor_from_host(e->dev, WK_Q4_0, 2, ws, blocks, &wq) != WK_OK ||
        wk_zeros(e->dev, WK_F32, 1, &k64, &n) != WK_OK || wk_zeros(e->dev, WK_F16, 1, &k64, &nh) != WK_OK ||
        wk_zeros(e->dev, WK_F32, 1, &n7, &bad) != WK_OK || wk_zeros(e->dev, WK_F64, 2, xs, &xd) != WK_OK ||
        wk_zeros(e->dev, WK_F32, 2, os, &r) != WK_OK) {
        e->checks++;
        e->failures++;
        printf("FAIL linear errors: cannot make inputs: %s\n", wk_last_error());
    } else {
        const wk_linear_params glu = {.glu = true, .glu_kind = WK_GLU_SWIGLU}, kind = {.glu = true, .glu_kind = 9},
                               neg = {.norm = n, .eps = -1}, nan_eps = {.norm = n, .eps = NAN},
                               nshape = {.norm = bad}, ndt = {.norm = nh}, bshape = {.bias = bad},
                               rshape = {.residual = r}, rglu = {.residual = r, .glu = true};
        WKT_EXPECT(e, wk_linear(x, wh, NULL, &o), WK_ERR_DTYPE, "linear");      /* w of another float dtype */
        WKT_EXPECT(e, wk_linear(xd, w, NULL, &o), WK_ERR_DTYPE, "linear");      /* f64 x */
        WKT_EXPECT(e, wk_linear(wq, wq, NULL, &o), WK_ERR_DTYPE, "linear");     /* quantized x */
        WKT_EXPECT(e, wk_linear(bad, w, NULL, &o), WK_ERR_SHAPE, "linear");     /* K 7 against 64 */
        WKT_EXPECT(e, wk_linear(x, n, NULL, &o), WK_ERR_SHAPE, "linear");       /* w of rank 1 */
        WKT_EXPECT(e, wk_linear(x, wodd, &glu, &o), WK_ERR_SHAPE, "linear");    /* glu with N odd */
        WKT_EXPECT(e, wk_linear(x, w, &kind, &o), WK_ERR_INVALID_ARGUMENT, "linear");
        WKT_EXPECT(e, wk_linear(x, w, &neg, &o), WK_ERR_INVALID_ARGUMENT, "linear");
        WKT_EXPECT(e, wk_linear(x, w, &nan_eps, &o), WK_ERR_INVALID_ARGUMENT, "linear");
        WKT_EXPECT(e, wk_linear(x, w, &nshape, &o), WK_ERR_SHAPE, "linear");
        WKT_EXPECT(e, wk_linear(x, w, &ndt, &o), WK_ERR_DTYPE, "linear");
        WKT_EXPECT(e, wk_linear(x, wq, &bshape, &o), WK_ERR_SHAPE, "linear");
        WKT_EXPECT(e, wk_linear(x, w, &rshape, &o), WK_ERR_SHAPE, "linear");    /* residual (1, 3) for (1, 6) */
        WKT_EXPECT(e, wk_linear(NULL, w, NULL, &o), WK_ERR_INVALID_ARGUMENT, "linear");
        WKT_EXPECT(e, wk_linear(x, NULL, NULL, &o), WK_ERR_INVALID_ARGUMENT, "linear");
        WKT_EXPECT(e, wk_linear(x, w, NULL, NULL), WK_ERR_INVALID_ARGUMENT, "linear");
        e->checks++;
        if (o) {
            e->failures++;
            printf("FAIL linear errors: out-parameter written on failure\n");
        }
        /* the residual of the gated output's shape is right: (1, 3) for w's 6 rows */
        wk_status s = wk_linear(x, w, &rglu, &o);
        e->checks++;
        if (s != WK_OK || !o || wk_tensor_shape(o)[1] != 3) {
            e->failures++;
            printf("FAIL linear: a residual of the gated shape was refused: %s\n", wk_last_error());
        }
        rope_errors(e, x, w);
    }
    wk_tensor_release(x), wk_tensor_release(w), wk_tensor_release(wh), wk_tensor_release(wodd);
    wk_tensor_release(wq), wk_tensor_release(n), wk_tensor_release(nh), wk_tensor_release(bad);
    wk_tensor_release(xd), wk_tensor_release(r), wk_tensor_release(o);
}

const wkt_family wkt_family_linear = {.name = "linear", .cases = cases, .errors = wkt_linear_errors};
