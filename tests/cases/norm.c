/* norm.c: case family 'norm': softmax and log_softmax over the last dim, rms_norm and layer_norm (with
 * and without weight/bias, in their own layouts), against a plain float64 reference; error paths. The family's
 * other ops: norm_channel.c (batch_norm, group_norm, layer_norm_dims) and norm_add.c (add_rms_norm). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "special_inputs.h"

/* iparam: [0] kind, [1] weight layout (-1: no weight), [2] bias layout (-1: no bias), [3] x's input_kind,
 * [4] the case needs statistics wider than f32 (the CPU's; wick.h promises f32 or wider: other devices
 * skip it). fparam: [0] eps, [1..2] x's value range when [3] != 0. */
enum { P_KIND, P_WLAYOUT, P_BLAYOUT, P_INPUT, P_WIDE_STATS };
enum { SOFTMAX, LOG_SOFTMAX, RMS_NORM, LAYER_NORM };
static const char *const kind_names[] = {"softmax", "log_softmax", "rms_norm", "layer_norm"};

/* One row of n values (x) into y, in double. w/b may be NULL. */
static void reference_row(int kind, const double *x, int64_t n, const double *w, const double *b, double eps,
                          double *y)
{
    if (kind == SOFTMAX || kind == LOG_SOFTMAX) {
        double max = -INFINITY, sum = 0;
        for (int64_t i = 0; i < n; i++)
            max = x[i] > max ? x[i] : max;
        for (int64_t i = 0; i < n; i++)
            sum += exp(x[i] - max);
        for (int64_t i = 0; i < n; i++)
            y[i] = kind == SOFTMAX ? exp(x[i] - max) / sum : x[i] - max - log(sum);
        return;
    }
    double mean = 0, var = 0;
    if (kind == LAYER_NORM) {
        for (int64_t i = 0; i < n; i++)
            mean += x[i];
        mean /= (double)n;
    }
    for (int64_t i = 0; i < n; i++)
        var += (x[i] - mean) * (x[i] - mean);
    double scale = 1 / sqrt(var / (double)n + eps);
    for (int64_t i = 0; i < n; i++)
        y[i] = (x[i] - mean) * scale * (w ? w[i] : 1) + (b ? b[i] : 0);
}

static void run_norm(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int kind = c->iparam[P_KIND];
    int64_t n = c->rank > 0 ? c->shape[c->rank - 1] : 1;
    wk_tensor *x = NULL, *w = NULL, *b = NULL, *o = NULL;
    double *xv = NULL, *wv = NULL, *bv = NULL, *got = NULL, *want = NULL;
    if (c->iparam[P_WIDE_STATS] && strcmp(wk_device_name(dev), "cpu") != 0) {
        r->skipped = true;
        snprintf(r->msg, sizeof r->msg, "needs statistics wider than f32 (beyond wick.h's promise)");
        return;
    }
    wkt_dist dist = c->fparam[3] != 0 ? (wkt_dist){c->fparam[1], c->fparam[2]} : wkt_dist_default(c->dtype);
    wk_status s = c->iparam[P_INPUT] != INPUT_RANDOM
                      ? make_input(dev, c->dtype, c->rank, c->shape, c->layout, (input_kind)c->iparam[P_INPUT], rng,
                                   &x, &xv)
                      : wkt_make(dev, c->dtype, c->rank, c->shape, c->layout, dist, rng, &x, &xv);
    if (s == WK_OK && c->iparam[P_WLAYOUT] >= 0)
        s = wkt_make(dev, c->dtype, 1, &n, (wkt_layout)c->iparam[P_WLAYOUT], wkt_dist_default(c->dtype), rng, &w,
                     &wv);
    if (s == WK_OK && c->iparam[P_BLAYOUT] >= 0)
        s = wkt_make(dev, c->dtype, 1, &n, (wkt_layout)c->iparam[P_BLAYOUT], wkt_dist_default(c->dtype), rng, &b,
                     &bv);
    if (wkt_failed(s, r, "make inputs"))
        goto done;
    double eps = c->fparam[0];
    switch (kind) {
    case SOFTMAX: s = wk_softmax_last_dim(x, &o); break;
    case LOG_SOFTMAX: s = wk_log_softmax_last_dim(x, &o); break;
    case RMS_NORM: s = wk_rms_norm(x, w, eps, &o); break;
    default: s = wk_layer_norm(x, w, b, eps, &o); break;
    }
    if (wkt_failed(s, r, c->op) || !check_shape(o, c->dtype, c->rank, c->shape, r) ||
        wkt_failed(wkt_read(o, &got), r, "read"))
        goto done;
    int64_t numel = wk_tensor_numel(x);
    want = malloc((size_t)numel * sizeof *want + 1);
    if (!want) {
        wkt_fail(r, "out of memory");
        goto done;
    }
    for (int64_t row = 0; n > 0 && row < numel / n; row++)
        reference_row(kind, xv + row * n, n, wv, bv, eps, want + row * n);
    wkt_compare(c->dtype, got, want, numel, wkt_tol(c->dtype, WKT_TOL_ELEMENTWISE), false, r);
done:
    wk_tensor_release(x);
    wk_tensor_release(w);
    wk_tensor_release(b);
    wk_tensor_release(o);
    free(xv);
    free(wv);
    free(bv);
    free(got);
    free(want);
}

/* A case with x drawn as `input`, or from [lo, hi) when lo < hi; eps < 0: the op's usual one. */
static void add_case_with(wkt_list *l, int kind, wk_dtype dt, wkt_layout layout, int rank, const int64_t *shape,
                          int wlayout, int blayout, input_kind input, double lo, double hi, double eps,
                          bool wide_stats)
{
    wkt_case c = {.family = "norm", .dtype = dt, .layout = layout, .rank = rank, .run = run_norm};
    snprintf(c.op, sizeof c.op, "%s", kind_names[kind]);
    if (rank > 0)
        memcpy(c.shape, shape, (size_t)rank * sizeof *shape);
    c.iparam[P_KIND] = kind;
    c.iparam[P_WLAYOUT] = kind == RMS_NORM && wlayout < 0 ? WKT_CONTIG : wlayout; /* rms_norm needs a weight */
    c.iparam[P_BLAYOUT] = kind == LAYER_NORM ? blayout : -1;
    c.iparam[P_INPUT] = input;
    c.fparam[0] = eps >= 0 ? eps : kind == RMS_NORM ? 1e-6 : 1e-5;
    c.fparam[1] = lo;
    c.fparam[2] = hi;
    c.fparam[3] = lo < hi;
    c.iparam[P_WIDE_STATS] = wide_stats;
    wkt_add(l, &c);
}

static void add_case(wkt_list *l, int kind, wk_dtype dt, wkt_layout layout, int rank, const int64_t *shape,
                     int wlayout, int blayout)
{
    add_case_with(l, kind, dt, layout, rank, shape, wlayout, blayout, INPUT_RANDOM, 0, 0, -1, false);
}

/* norm_channel.c: batch_norm, group_norm, layer_norm_dims */
void norm_channel_cases(wkt_list *l);
void norm_channel_errors(wkt_errctx *e);
/* norm_add.c: add_rms_norm */
void norm_add_cases(wkt_list *l);
void norm_add_errors(wkt_errctx *e);

static void cases(wkt_list *l)
{
    static const wk_dtype floats[] = {WK_F16, WK_BF16, WK_F32, WK_F64};
    /* weight/bias layouts rotate through contiguous, offset, broadcast (stride 0) and absent */
    static const int param_layouts[] = {WKT_CONTIG, WKT_OFFSET, WKT_BROADCAST, -1};
    static const int64_t shape[3] = {6, 5, 33};
    for (int kind = SOFTMAX; kind <= LAYER_NORM; kind++)
        for (int t = 0; t < 4; t++)
            for (int lay = 0; lay < WKT_LAYOUT_COUNT; lay++) {
                int k = kind + t + lay;
                bool has_params = kind >= RMS_NORM;
                add_case(l, kind, floats[t], (wkt_layout)lay, 3, shape, has_params ? param_layouts[k % 4] : -1,
                         has_params ? param_layouts[(k + 1) % 4] : -1);
            }
    /* rank 1 and 2, a single-element row, zero rows, empty rows, a scalar (softmax only); big cases
     * above the thread grain */
    static const int64_t vec[1] = {100}, one[2] = {7, 1}, no_rows[2] = {0, 9}, empty_rows[2] = {4, 0},
                         big[2] = {64, 1024}, long_row[1] = {40000};
    for (int kind = SOFTMAX; kind <= LAYER_NORM; kind++) {
        add_case(l, kind, WK_F32, WKT_OFFSET, 1, vec, WKT_CONTIG, WKT_OFFSET);
        add_case(l, kind, WK_F64, WKT_TRANSPOSED, 2, one, WKT_CONTIG, -1);
        add_case(l, kind, WK_F32, WKT_CONTIG, 2, no_rows, WKT_CONTIG, WKT_CONTIG);
        add_case(l, kind, WK_BF16, WKT_CONTIG, 2, empty_rows, WKT_CONTIG, WKT_CONTIG);
        add_case(l, kind, WK_F32, WKT_CONTIG, 2, big, WKT_OFFSET, WKT_CONTIG);
        add_case(l, kind, WK_F16, WKT_TRANSPOSED, 2, big, WKT_CONTIG, -1);
        add_case(l, kind, WK_F64, WKT_CONTIG, 1, long_row, WKT_BROADCAST, WKT_CONTIG);
        if (kind <= LOG_SOFTMAX)
            add_case(l, kind, WK_F32, WKT_CONTIG, 0, NULL, -1, -1);
    }
    /* NaN, +-inf and signed zeros in some rows; rows longer than a chunk of the f32 path (1024), contiguous
     * f16 and strided bf16/f32 */
    static const int64_t wide[2] = {40, 300}, chunked[2] = {3, 2500};
    for (int kind = SOFTMAX; kind <= LAYER_NORM; kind++) {
        for (int t = 0; t < 4; t++)
            add_case_with(l, kind, floats[t], t % 2 ? WKT_CONTIG : WKT_TRANSPOSED, 2, wide, WKT_CONTIG, WKT_OFFSET,
                          INPUT_WIDE, 0, 0, -1, false);
        add_case(l, kind, WK_F16, WKT_CONTIG, 2, chunked, WKT_OFFSET, WKT_BROADCAST);
        add_case(l, kind, WK_BF16, WKT_TRANSPOSED, 2, chunked, WKT_BROADCAST, WKT_CONTIG);
        add_case(l, kind, WK_F32, WKT_TRANSPOSED, 2, chunked, WKT_CONTIG, WKT_OFFSET);
    }
    /* layer_norm of rows of whole 16-byte vectors (the GPU keeps w and b in registers there, norm_layer_held):
     * blocks of many short rows and of one long row, slots past a row's end, a block taking two row groups (4301
     * rows on 132 SMs), rows of stride 0 (broadcast), no w or no b; and what takes the other paths: w of stride 0,
     * unaligned rows (offset views), rows of two strides (broadcast rank 3), rows too long for 512 lanes */
    static const int64_t lg_f32[2] = {9, 8192}, lg_bf16[2] = {37, 4096}, many[2] = {4301, 1024}, tiny[2] = {130, 24},
                         odd[2] = {33, 520}, f64r[2] = {300, 6}, bc3[3] = {3, 4, 64}, over[2] = {3, 8200};
    add_case(l, LAYER_NORM, WK_F32, WKT_CONTIG, 2, lg_f32, WKT_CONTIG, WKT_CONTIG);
    add_case(l, LAYER_NORM, WK_BF16, WKT_CONTIG, 2, lg_bf16, WKT_CONTIG, WKT_CONTIG);
    add_case(l, LAYER_NORM, WK_F32, WKT_CONTIG, 2, many, WKT_CONTIG, -1);
    add_case(l, LAYER_NORM, WK_F16, WKT_CONTIG, 2, tiny, WKT_CONTIG, WKT_CONTIG);
    add_case(l, LAYER_NORM, WK_BF16, WKT_CONTIG, 2, odd, -1, WKT_CONTIG);
    add_case(l, LAYER_NORM, WK_BF16, WKT_CONTIG, 2, odd, WKT_BROADCAST, WKT_CONTIG);
    add_case(l, LAYER_NORM, WK_F64, WKT_CONTIG, 2, f64r, -1, WKT_CONTIG);
    add_case(l, LAYER_NORM, WK_F32, WKT_BROADCAST, 2, lg_bf16, WKT_CONTIG, WKT_CONTIG);
    add_case(l, LAYER_NORM, WK_F16, WKT_BROADCAST, 3, bc3, WKT_CONTIG, WKT_CONTIG);
    add_case(l, LAYER_NORM, WK_BF16, WKT_OFFSET, 2, lg_bf16, WKT_CONTIG, WKT_CONTIG);
    add_case(l, LAYER_NORM, WK_F32, WKT_CONTIG, 2, over, WKT_CONTIG, WKT_CONTIG);
    add_case_with(l, LAYER_NORM, WK_F32, WKT_CONTIG, 2, lg_bf16, WKT_CONTIG, WKT_CONTIG, INPUT_WIDE, 0, 0, -1, false);
    /* held rows of 3 vectors a lane (the GPU rounds up to 4 slots, the 4th past the end; every lane's 3rd slot
     * is the row's tail): 1 lane (f32 12, f64 10 = 5 vectors on 2 lanes), 32 and 64 lanes (at or below a logical
     * warp), 128 and 512 lanes (a block a row); no w or no b; NaN/inf rows */
    static const int64_t h3a[2] = {70, 12}, h3b[2] = {45, 10}, h3c[2] = {41, 300}, h3d[2] = {19, 768},
                         h3e[2] = {7, 3072}, h3f[2] = {5, 6144};
    add_case(l, LAYER_NORM, WK_F32, WKT_CONTIG, 2, h3a, WKT_CONTIG, WKT_CONTIG);
    add_case(l, LAYER_NORM, WK_F64, WKT_CONTIG, 2, h3b, WKT_CONTIG, -1);
    add_case(l, LAYER_NORM, WK_F32, WKT_CONTIG, 2, h3c, WKT_CONTIG, WKT_CONTIG);
    add_case(l, LAYER_NORM, WK_F32, WKT_CONTIG, 2, h3d, -1, WKT_CONTIG);
    add_case(l, LAYER_NORM, WK_BF16, WKT_CONTIG, 2, h3e, WKT_CONTIG, WKT_CONTIG);
    add_case(l, LAYER_NORM, WK_F16, WKT_CONTIG, 2, h3d, WKT_CONTIG, WKT_CONTIG);
    add_case(l, LAYER_NORM, WK_F32, WKT_CONTIG, 2, h3f, WKT_CONTIG, -1);
    add_case_with(l, LAYER_NORM, WK_F32, WKT_CONTIG, 2, h3c, WKT_CONTIG, WKT_CONTIG, INPUT_WIDE, 0, 0, -1, false);
    /* beyond f32 statistics: a mean 3e6 standard deviations from 0 (f32 rounding of the mean shows), sums
     * and squares that overflow or underflow f32 (eps 0 for the tiny ones); a mean far from 0 in f16 */
    add_case_with(l, LAYER_NORM, WK_F32, WKT_CONTIG, 2, wide, WKT_CONTIG, WKT_CONTIG, INPUT_RANDOM, 1e4, 1e4 + 0.01,
                  -1, true);
    add_case_with(l, LAYER_NORM, WK_F32, WKT_OFFSET, 2, wide, -1, -1, INPUT_RANDOM, -1e37, 1e37, -1, true);
    add_case_with(l, RMS_NORM, WK_F32, WKT_CONTIG, 2, wide, WKT_CONTIG, -1, INPUT_RANDOM, 1e30, 2e30, -1, true);
    add_case_with(l, RMS_NORM, WK_BF16, WKT_CONTIG, 2, wide, WKT_CONTIG, -1, INPUT_RANDOM, -1e-30, 1e-30, 0, true);
    add_case_with(l, LAYER_NORM, WK_F16, WKT_TRANSPOSED, 2, wide, WKT_CONTIG, -1, INPUT_RANDOM, 1000, 1010, -1,
                  false);
    norm_channel_cases(l);
    norm_add_cases(l);
}

/* ---------------------------------------------------------------- error paths */
static void errors(wkt_errctx *e)
{
    static char marker;
    wk_tensor *const before = (wk_tensor *)(void *)&marker;
    wk_tensor *x = NULL, *xi = NULL, *scalar = NULL, *w = NULL, *w_short = NULL, *w_f64 = NULL, *w_2d = NULL;
    wk_tensor *o = before;
    const int64_t shape[2] = {3, 4}, four = 4, three = 3;
    if (wk_tensor_empty(e->dev, WK_F32, 2, shape, &x) != WK_OK ||
        wk_tensor_empty(e->dev, WK_I32, 2, shape, &xi) != WK_OK ||
        wk_tensor_empty(e->dev, WK_F32, 0, NULL, &scalar) != WK_OK ||
        wk_tensor_empty(e->dev, WK_F32, 1, &four, &w) != WK_OK ||
        wk_tensor_empty(e->dev, WK_F32, 1, &three, &w_short) != WK_OK ||
        wk_tensor_empty(e->dev, WK_F64, 1, &four, &w_f64) != WK_OK ||
        wk_tensor_empty(e->dev, WK_F32, 2, shape, &w_2d) != WK_OK) {
        printf("FAIL norm errors: cannot make inputs: %s\n", wk_last_error());
        e->failures++;
        goto done;
    }
#define EXPECT_FAIL(call, status, op)          \
    do {                                       \
        WKT_EXPECT(e, call, status, op);       \
        expect_untouched(e, o, before, #call); \
    } while (0)
    EXPECT_FAIL(wk_softmax_last_dim(NULL, &o), WK_ERR_INVALID_ARGUMENT, "softmax_last_dim");
    WKT_EXPECT(e, wk_softmax_last_dim(x, NULL), WK_ERR_INVALID_ARGUMENT, "softmax_last_dim");
    EXPECT_FAIL(wk_softmax_last_dim(xi, &o), WK_ERR_DTYPE, "softmax_last_dim");
    EXPECT_FAIL(wk_log_softmax_last_dim(NULL, &o), WK_ERR_INVALID_ARGUMENT, "log_softmax_last_dim");
    EXPECT_FAIL(wk_log_softmax_last_dim(xi, &o), WK_ERR_DTYPE, "log_softmax_last_dim");
    EXPECT_FAIL(wk_rms_norm(NULL, w, 1e-6, &o), WK_ERR_INVALID_ARGUMENT, "rms_norm");
    EXPECT_FAIL(wk_rms_norm(x, NULL, 1e-6, &o), WK_ERR_INVALID_ARGUMENT, "rms_norm");
    WKT_EXPECT(e, wk_rms_norm(x, w, 1e-6, NULL), WK_ERR_INVALID_ARGUMENT, "rms_norm");
    EXPECT_FAIL(wk_rms_norm(xi, w, 1e-6, &o), WK_ERR_DTYPE, "rms_norm");
    EXPECT_FAIL(wk_rms_norm(x, w_short, 1e-6, &o), WK_ERR_SHAPE, "rms_norm");
    EXPECT_FAIL(wk_rms_norm(x, w_2d, 1e-6, &o), WK_ERR_SHAPE, "rms_norm");
    EXPECT_FAIL(wk_rms_norm(x, w_f64, 1e-6, &o), WK_ERR_DTYPE, "rms_norm");
    EXPECT_FAIL(wk_rms_norm(scalar, w, 1e-6, &o), WK_ERR_SHAPE, "rms_norm");
    EXPECT_FAIL(wk_rms_norm(x, w, -1.0, &o), WK_ERR_INVALID_ARGUMENT, "rms_norm");
    EXPECT_FAIL(wk_rms_norm(x, w, NAN, &o), WK_ERR_INVALID_ARGUMENT, "rms_norm");
    EXPECT_FAIL(wk_layer_norm(NULL, NULL, NULL, 1e-5, &o), WK_ERR_INVALID_ARGUMENT, "layer_norm");
    WKT_EXPECT(e, wk_layer_norm(x, NULL, NULL, 1e-5, NULL), WK_ERR_INVALID_ARGUMENT, "layer_norm");
    EXPECT_FAIL(wk_layer_norm(xi, NULL, NULL, 1e-5, &o), WK_ERR_DTYPE, "layer_norm");
    EXPECT_FAIL(wk_layer_norm(x, w_short, NULL, 1e-5, &o), WK_ERR_SHAPE, "layer_norm");
    EXPECT_FAIL(wk_layer_norm(x, w, w_short, 1e-5, &o), WK_ERR_SHAPE, "layer_norm");
    EXPECT_FAIL(wk_layer_norm(x, NULL, w_f64, 1e-5, &o), WK_ERR_DTYPE, "layer_norm");
    EXPECT_FAIL(wk_layer_norm(x, w, NULL, INFINITY, &o), WK_ERR_INVALID_ARGUMENT, "layer_norm");
    EXPECT_FAIL(wk_layer_norm(scalar, NULL, NULL, 1e-5, &o), WK_ERR_SHAPE, "layer_norm");
#undef EXPECT_FAIL
done:
    wk_tensor_release(x);
    wk_tensor_release(xi);
    wk_tensor_release(scalar);
    wk_tensor_release(w);
    wk_tensor_release(w_short);
    wk_tensor_release(w_f64);
    wk_tensor_release(w_2d);
    norm_channel_errors(e);
    norm_add_errors(e);
}

const wkt_family wkt_family_norm = {.name = "norm", .cases = cases, .errors = errors};
