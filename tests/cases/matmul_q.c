/* matmul_q.c: case family 'matmul_q': x (..., K) @ w^T with w (N, K) of random blocks of every GGML block type,
 * against a float64 product with w decoded by quant_ref.c's plain code: rows of x across the GPU's mat-vec tiles (1..5,
 * 7, 8) and past them (9, 64: the dequantize + BLAS path), K across the kernels' shared-memory passes and lane passes
 * (45 blocks), rows of 2-3 blocks, N off the row tiles, strided and batched x, a narrowed w (unaligned: the gemv
 * kernel), empty M, N and K; the error paths. On the CPU up to 8 rows of x take the 8-bit integer path (the CPU's
 * SIMD dots: 1, 2-5, 7, 8 rows; 1, 2, 3, 16, 33, 45 blocks a row; N 5-131, off every unroll), checked against
 * int8_tolerance below; ctest runs the family once per instruction set (tests/cpu/matmul_q.cmake). On a GPU up to 8
 * rows of x of Q4_0, Q8_0, Q4_K and Q6_K take the dot kernels, which round x the same way in blocks of 32 (the same
 * tolerance, with the step of those blocks).
 *
 * The 8-bit path's tolerance: x's blocks are rounded to d * q with d = amax / 127 (f32, q an integer), an error of at
 * most d / 2 per value, uniform over [-d/2, d/2] for random inputs (variance d^2 / 12, independent between values);
 * the integer dots add none and the f32 sums of block partials no more than the f32 path does. The product's error
 * W e then has expected square sum_n sum_k w_nk^2 d_k^2 / 12, and the case passes within the dtype's tolerance plus 6
 * times its square root relative to |y| (quant_ref.c wkt_q_int8_tolerance): ||W e||^2 is about that expectation times
 * a chi-square of N degrees / N, so even at N = 1 the odds of failing by luck are 2e-9 (|Z| > 6), while a wrong scale
 * on one sub-block of 8 (about 0.35 relative) is 15 times over. For the table's x uniform in [-2, 2) that is about
 * 2.4e-2 in f32 (typical error 4e-3). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quant_ref.h"

/* iparam: [0] block type (from WK_Q4_0), [1] N, [2] 1: w is rows 1 .. N of an (N + 2, K) table, [3] 1: row 4's
 * first block has a NaN scale (that row of the product is NaN, the kernels' float redo; the others unchanged). */
enum { P_QT, P_N, P_WNARROW, P_NANROW };

/* Row 4's first block gets a NaN f16 scale: d is the block's last two bytes in Q6_K, its first two elsewhere. */
static void nan_row(int qi, uint8_t *blocks, int64_t K)
{
    uint8_t *b = blocks + 4 * (K / wkt_qblock[qi]) * wkt_qbytes[qi];
    if (qi == 9)
        b += wkt_qbytes[qi] - 2;
    b[0] = 0x00, b[1] = 0x7e; /* 0x7e00, little-endian */
}

/* The float64 reference: want (M, N) = xv (M, K) wv^T, w's rows decoded from the table's blocks (row off + n). */
static void reference(int qi, const uint8_t *blocks, int64_t off, const double *xv, int64_t M, int64_t N, int64_t K,
                      double *wv, double *want)
{
    int64_t bs = wkt_qblock[qi], bpr = K / bs;
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++)
            wv[n * K + k] = wkt_q_ref_value(qi, blocks + ((n + off) * bpr + k / bs) * wkt_qbytes[qi], (int)(k % bs));
    wkt_ref_xwt(xv, wv, M, N, K, want);
}

static void run(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int qi = c->iparam[P_QT], narrow = c->iparam[P_WNARROW];
    int64_t K = c->shape[c->rank - 1], N = c->iparam[P_N], M = 1, rows = N + (narrow ? 2 : 0);
    for (int i = 0; i < c->rank - 1; i++)
        M *= c->shape[i];
    size_t wbytes = (size_t)(rows * (K / wkt_qblock[qi]) * wkt_qbytes[qi]);
    uint8_t *blocks = malloc(wbytes + 1);
    double *wv = malloc((size_t)(N * K) * sizeof(double) + 1), *want = malloc((size_t)(M * N) * sizeof(double) + 1);
    double *xv = NULL, *got = NULL;
    wk_tensor *x = NULL, *t = NULL, *w = NULL, *o = NULL;
    if (!blocks || !wv || !want) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    wkt_q_random_blocks(qi, rows * (K / wkt_qblock[qi]), rng, blocks, 0.01, false);
    if (c->iparam[P_NANROW])
        nan_row(qi, blocks, K);
    int64_t wsh[2] = {rows, K};
    wkt_dist dist = {-2.0, 2.0};
    if (wkt_failed(wkt_make(dev, c->dtype, c->rank, c->shape, c->layout, dist, rng, &x, &xv), r, "make x") ||
        wkt_failed(wk_tensor_from_host(dev, (wk_dtype)(WK_Q4_0 + qi), 2, wsh, blocks, &t), r, "from_host") ||
        (narrow && wkt_failed(wk_narrow(t, 0, 1, N, &w), r, "narrow")) ||
        wkt_failed(wk_matmul_q(x, narrow ? w : t, &o), r, "matmul_q") || wkt_failed(wkt_read(o, &got), r, "read"))
        goto done;
    const int64_t *os = wk_tensor_shape(o);
    if (wk_tensor_rank(o) != c->rank || os[c->rank - 1] != N || wk_tensor_numel(o) != M * N ||
        wk_tensor_dtype(o) != c->dtype) {
        wkt_fail(r, "output shape or dtype wrong (rank %d)", wk_tensor_rank(o));
        goto done;
    }
    reference(qi, blocks, narrow ? 1 : 0, xv, M, N, K, wv, want);
    int64_t xbs = wkt_q_int8_block(dev, qi, M);
    double tol = xbs ? wkt_q_int8_tolerance(c->dtype, xbs, xv, wv, want, M, N, K)
                     : wkt_tol(c->dtype, WKT_TOL_MATMUL);
    wkt_compare(c->dtype, got, want, M * N, tol, false, r);
done:
    free(blocks), free(wv), free(want), free(xv), free(got);
    wk_tensor_release(x), wk_tensor_release(t), wk_tensor_release(w), wk_tensor_release(o);
}

#define SHAPE(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (const int64_t[]){__VA_ARGS__}

static void add_nan(wkt_list *l, wk_dtype dt, int qi, int rank, const int64_t *xs, int64_t n, wkt_layout layout,
                    int narrow, int nan)
{
    wkt_case c = {.family = "matmul_q", .op = "matmul_q", .dtype = dt, .layout = layout, .rank = rank, .run = run};
    memcpy(c.shape, xs, (size_t)rank * sizeof *xs);
    c.iparam[P_QT] = qi;
    c.iparam[P_N] = (int)n;
    c.iparam[P_WNARROW] = narrow;
    c.iparam[P_NANROW] = nan;
    wkt_add(l, &c);
}

static void add(wkt_list *l, wk_dtype dt, int qi, int rank, const int64_t *xs, int64_t n, wkt_layout layout, int narrow)
{
    add_nan(l, dt, qi, rank, xs, n, layout, narrow, 0);
}

static void cases(wkt_list *l)
{
    static const int main_types[] = {0, 4, 7, 9}; /* Q4_0, Q8_0, Q4_K, Q6_K: what Llama GGUF files hold most */
    static const int64_t ms[] = {1, 3, 8, 9, 64};
    for (int qi = 0; qi < WKT_NQT; qi++) {
        int64_t k2 = 2 * wkt_qblock[qi];
        add(l, WK_F32, qi, SHAPE(1, k2), 37, WKT_CONTIG, 0);
        add(l, WK_F16, qi, SHAPE(9, k2), 19, WKT_CONTIG, 1);
        add(l, WK_F32, qi, SHAPE(2, k2 / 2), 5, WKT_CONTIG, 0);       /* one block a row */
        add(l, WK_BF16, qi, SHAPE(1, 33 * k2 / 2), 1, WKT_CONTIG, 0); /* one row of w, an odd count of blocks */
    }
    for (size_t i = 0; i < sizeof main_types / sizeof main_types[0]; i++) {
        int qi = main_types[i];
        for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++)
            add(l, WK_F32, qi, SHAPE(ms[j], 512), 37, WKT_CONTIG, 0);
        add(l, WK_F16, qi, SHAPE(3, 512), 67, WKT_TRANSPOSED, 0);
        add(l, WK_BF16, qi, SHAPE(8, 512), 67, WKT_OFFSET, 1);
        add(l, WK_BF16, qi, SHAPE(64, 512), 37, WKT_CONTIG, 0);
        add(l, WK_F16, qi, SHAPE(2, 5, 512), 37, WKT_PERMUTED, 0);
        add(l, WK_F32, qi, SHAPE(8, 1280), 37, WKT_CONTIG, 0); /* two passes of x through shared memory */
        add(l, WK_F16, qi, SHAPE(1, 8448), 5, WKT_CONTIG, 0);  /* the same at one row */
        int64_t bs = wkt_qblock[qi];
        /* The vec kernels' x tiles (4, 8) part-filled; 45 blocks a row: the lanes' last pass part-filled; 67 rows:
         * the last group of rows part-filled. */
        for (int64_t m = 2; m <= 5; m += m == 2 ? 2 : 1)
            add(l, WK_F32, qi, SHAPE(m, 45 * bs), 67, WKT_CONTIG, 0);
        add(l, WK_BF16, qi, SHAPE(7, 3 * bs), 131, WKT_CONTIG, 0); /* 3 blocks a row: several rows a warp */
        add_nan(l, WK_F32, qi, SHAPE(1, 4096), 67, WKT_CONTIG, 0, 1); /* a NaN scale: the float redo */
        add_nan(l, WK_F16, qi, SHAPE(3, 4096), 67, WKT_CONTIG, 0, 1);
    }
    add(l, WK_F32, 0, SHAPE(0, 64), 37, WKT_CONTIG, 0); /* no rows of x */
    add(l, WK_F32, 4, SHAPE(3, 64), 0, WKT_CONTIG, 0);  /* no rows of w */
    add(l, WK_BF16, 7, SHAPE(3, 0), 37, WKT_CONTIG, 0); /* K = 0: zeros */
}

void wkt_matmul_q_errors(wkt_errctx *e)
{
    int64_t sh[2] = {2, 64}, sh3[3] = {2, 2, 64}, x48[2] = {3, 48};
    uint8_t blocks[8 * 18];
    memset(blocks, 0, sizeof blocks);
    wk_tensor *q = NULL, *q3 = NULL, *f = NULL, *x = NULL, *xd = NULL, *xi = NULL, *o = NULL, *s = NULL;
    if (wk_tensor_from_host(e->dev, WK_Q4_0, 2, sh, blocks, &q) != WK_OK ||
        wk_tensor_from_host(e->dev, WK_Q4_0, 3, sh3, blocks, &q3) != WK_OK ||
        wk_zeros(e->dev, WK_F32, 2, sh, &f) != WK_OK || wk_zeros(e->dev, WK_F32, 2, x48, &x) != WK_OK ||
        wk_zeros(e->dev, WK_F64, 2, sh, &xd) != WK_OK || wk_zeros(e->dev, WK_I32, 2, sh, &xi) != WK_OK ||
        wk_zeros(e->dev, WK_F32, 0, NULL, &s) != WK_OK) {
        e->checks++;
        e->failures++;
        printf("FAIL matmul_q errors: cannot make inputs: %s\n", wk_last_error());
    } else {
        WKT_EXPECT(e, wk_matmul_q(f, f, &o), WK_ERR_DTYPE, "matmul_q");  /* w not quantized */
        WKT_EXPECT(e, wk_matmul_q(q, q, &o), WK_ERR_DTYPE, "matmul_q");  /* x quantized */
        WKT_EXPECT(e, wk_matmul_q(xd, q, &o), WK_ERR_DTYPE, "matmul_q"); /* f64 x */
        WKT_EXPECT(e, wk_matmul_q(xi, q, &o), WK_ERR_DTYPE, "matmul_q"); /* integer x */
        WKT_EXPECT(e, wk_matmul_q(x, q, &o), WK_ERR_SHAPE, "matmul_q");  /* K 48 against 64 */
        WKT_EXPECT(e, wk_matmul_q(f, q3, &o), WK_ERR_SHAPE, "matmul_q"); /* w of rank 3 */
        WKT_EXPECT(e, wk_matmul_q(s, q, &o), WK_ERR_SHAPE, "matmul_q");  /* x of rank 0 */
        WKT_EXPECT(e, wk_matmul_q(NULL, q, &o), WK_ERR_INVALID_ARGUMENT, "matmul_q");
        WKT_EXPECT(e, wk_matmul_q(f, NULL, &o), WK_ERR_INVALID_ARGUMENT, "matmul_q");
        WKT_EXPECT(e, wk_matmul_q(f, q, NULL), WK_ERR_INVALID_ARGUMENT, "matmul_q");
        e->checks++;
        if (o) {
            e->failures++;
            printf("FAIL matmul_q errors: out-parameter written on failure\n");
        }
    }
    wk_tensor_release(q), wk_tensor_release(q3), wk_tensor_release(f), wk_tensor_release(x);
    wk_tensor_release(xd), wk_tensor_release(xi), wk_tensor_release(s), wk_tensor_release(o);
}

const wkt_family wkt_family_matmul_q = {.name = "matmul_q", .cases = cases, .errors = wkt_matmul_q_errors};
