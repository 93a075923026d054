/* norm_add.c: the norm family's add_rms_norm cases (x and r in their own layouts, every float dtype, the row shapes of
 * every backend's paths, NaN/inf inputs, empty tensors) against a float64 reference, plus the same device's
 * wk_binary ADD and wk_rms_norm bit for bit; its error paths (norm.c's cases and errors call them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "special_inputs.h"

/* iparam: [0] r's layout, [1] w's layout, [2] the input_kind of x and r. fparam[0]: eps. */
enum { PA_RLAYOUT, PA_WLAYOUT, PA_INPUT };

/* NaN in dtype dt's storage (bytes at p): any NaN matches any NaN below, nothing else is let off. */
static bool is_nan_at(wk_dtype dt, const unsigned char *p)
{
    uint16_t h;
    float f;
    double d;
    switch (dt) {
    case WK_F16: memcpy(&h, p, 2); return (h & 0x7fffu) > 0x7c00u;
    case WK_BF16: memcpy(&h, p, 2); return (h & 0x7fffu) > 0x7f80u;
    case WK_F32: memcpy(&f, p, 4); return isnan(f);
    default: memcpy(&d, p, 8); return isnan(d);
    }
}

/* Fails r unless a and b (contiguous, n elements) hold the same bits, a NaN's payload aside. */
static void expect_same_bits(const char *what, const wk_tensor *a, const wk_tensor *b, wkt_result *r)
{
    wk_dtype dt = wk_tensor_dtype(a);
    size_t es = wk_dtype_size(dt), n = (size_t)wk_tensor_numel(a);
    unsigned char *pa = malloc(n * es + 1), *pb = malloc(n * es + 1);
    if (!pa || !pb) {
        wkt_fail(r, "out of memory");
    } else if (!wkt_failed(wk_tensor_to_host(a, pa, n * es), r, "read") &&
               !wkt_failed(wk_tensor_to_host(b, pb, n * es), r, "read")) {
        for (size_t i = 0; i < n; i++)
            if (memcmp(pa + i * es, pb + i * es, es) != 0 &&
                !(is_nan_at(dt, pa + i * es) && is_nan_at(dt, pb + i * es))) {
                wkt_fail(r, "%s differs from the separate ops' at element %zu", what, i);
                break;
            }
    }
    free(pa);
    free(pb);
}

/* wk_binary ADD of x and r, then wk_rms_norm of add_rms_norm's own sum: the same bits as its sum and out. */
static void check_against_ops(const wk_tensor *x, const wk_tensor *rt, const wk_tensor *w, double eps,
                              const wk_tensor *sum, const wk_tensor *out, wkt_result *r)
{
    wk_tensor *s2 = NULL, *o2 = NULL;
    if (!wkt_failed(wk_binary(WK_BINARY_ADD, x, rt, &s2), r, "binary add") &&
        !wkt_failed(wk_rms_norm(sum, w, eps, &o2), r, "rms_norm")) {
        expect_same_bits("sum", sum, s2, r);
        expect_same_bits("out", out, o2, r);
    }
    wk_tensor_release(s2);
    wk_tensor_release(o2);
}

/* want: sum rounded to the dtype (kept in sv), then rms_norm of each row in double. */
static void reference(wk_dtype dt, const double *xv, const double *rv, const double *wv, int64_t numel, int64_t n,
                      double eps, double *sv, double *want)
{
    for (int64_t i = 0; i < numel; i++)
        sv[i] = wkt_round_to(dt, xv[i] + rv[i]);
    for (int64_t row = 0; n > 0 && row < numel / n; row++) {
        const double *s = sv + row * n;
        double ss = 0;
        for (int64_t i = 0; i < n; i++)
            ss += s[i] * s[i];
        double scale = 1 / sqrt(ss / (double)n + eps);
        for (int64_t i = 0; i < n; i++)
            want[row * n + i] = s[i] * scale * wv[i];
    }
}

static void run(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int64_t n = c->shape[c->rank - 1], numel = 1;
    for (int d = 0; d < c->rank; d++)
        numel *= c->shape[d];
    wk_tensor *x = NULL, *rt = NULL, *w = NULL, *sum = NULL, *out = NULL;
    double *xv = NULL, *rv = NULL, *wv = NULL, *got = NULL, *gots = NULL;
    double *sv = malloc((size_t)numel * sizeof *sv + 1), *want = malloc((size_t)numel * sizeof *want + 1);
    input_kind kind = (input_kind)c->iparam[PA_INPUT];
    wk_status s = make_input(dev, c->dtype, c->rank, c->shape, c->layout, kind, rng, &x, &xv);
    if (s == WK_OK)
        s = make_input(dev, c->dtype, c->rank, c->shape, (wkt_layout)c->iparam[PA_RLAYOUT], kind, rng, &rt, &rv);
    if (s == WK_OK)
        s = wkt_make(dev, c->dtype, 1, &n, (wkt_layout)c->iparam[PA_WLAYOUT], wkt_dist_default(c->dtype), rng, &w,
                     &wv);
    if (wkt_failed(s, r, "make inputs") || !sv || !want) {
        if (s == WK_OK)
            wkt_fail(r, "out of memory");
        goto done;
    }
    double eps = c->fparam[0];
    if (wkt_failed(wk_add_rms_norm(x, rt, w, eps, &sum, &out), r, c->op) ||
        !check_shape(sum, c->dtype, c->rank, c->shape, r) || !check_shape(out, c->dtype, c->rank, c->shape, r) ||
        wkt_failed(wkt_read(sum, &gots), r, "read") || wkt_failed(wkt_read(out, &got), r, "read"))
        goto done;
    reference(c->dtype, xv, rv, wv, numel, n, eps, sv, want);
    wkt_compare(c->dtype, gots, sv, numel, 0, true, r);
    wkt_compare(c->dtype, got, want, numel, wkt_tol(c->dtype, WKT_TOL_ELEMENTWISE), false, r);
    check_against_ops(x, rt, w, eps, sum, out, r);
done:
    wk_tensor_release(x);
    wk_tensor_release(rt);
    wk_tensor_release(w);
    wk_tensor_release(sum);
    wk_tensor_release(out);
    free(xv);
    free(rv);
    free(wv);
    free(got);
    free(gots);
    free(sv);
    free(want);
}

static void add(wkt_list *l, wk_dtype dt, wkt_layout xl, wkt_layout rl, wkt_layout wl, int rank, const int64_t *shape,
                input_kind input)
{
    wkt_case c = {.family = "norm", .op = "add_rms_norm", .dtype = dt, .layout = xl, .rank = rank, .run = run,
                  .fparam = {1e-6}};
    memcpy(c.shape, shape, (size_t)rank * sizeof *shape);
    c.iparam[PA_RLAYOUT] = wkt_layout_applies(rl, rank, shape) ? rl : WKT_OFFSET;
    c.iparam[PA_WLAYOUT] = wl;
    c.iparam[PA_INPUT] = input;
    wkt_add(l, &c);
}

void norm_add_cases(wkt_list *l)
{
    static const wk_dtype fl[] = {WK_F16, WK_BF16, WK_F32, WK_F64};
    static const int wl[] = {WKT_CONTIG, WKT_OFFSET, WKT_BROADCAST};
    /* rows of an odd length (by elements), of whole vectors (16-byte loads where the layouts allow) */
    static const int64_t odd[3] = {6, 5, 33}, vec[3] = {4, 3, 64};
    for (int t = 0; t < 4; t++)
        for (int lay = 0; lay < WKT_LAYOUT_COUNT; lay++) {
            wkt_layout rl = (wkt_layout)((lay + t + 1) % WKT_LAYOUT_COUNT);
            add(l, fl[t], (wkt_layout)lay, rl, wl[(lay + t) % 3], 3, odd, INPUT_RANDOM);
            add(l, fl[t], (wkt_layout)lay, (wkt_layout)lay, wl[(lay + t + 1) % 3], 3, vec, INPUT_RANDOM);
            add(l, fl[t], rl, (wkt_layout)lay, WKT_CONTIG, 3, vec, INPUT_RANDOM);
        }
    /* a decode step's row; rows of 1, 2 and 4 vectors a lane at a warp or less and at a block; rows too long for
     * registers (a block a row, two passes); rank 1; a one-element row; no rows; empty rows */
    static const int64_t decode[2] = {1, 2048}, lanes[2] = {37, 4096}, wide_row[2] = {9, 8192}, mid[2] = {64, 1024},
                         over[2] = {3, 40000}, over_odd[2] = {2, 20001}, r1[1] = {100}, one[2] = {7, 1},
                         no_rows[2] = {0, 9}, empty_rows[2] = {4, 0};
    add(l, WK_BF16, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 2, decode, INPUT_RANDOM);
    add(l, WK_F16, WKT_CONTIG, WKT_OFFSET, WKT_CONTIG, 2, decode, INPUT_RANDOM);
    add(l, WK_BF16, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 2, lanes, INPUT_RANDOM);
    add(l, WK_F32, WKT_CONTIG, WKT_TRANSPOSED, WKT_OFFSET, 2, lanes, INPUT_RANDOM);
    add(l, WK_F32, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 2, wide_row, INPUT_RANDOM);
    add(l, WK_F64, WKT_TRANSPOSED, WKT_CONTIG, WKT_CONTIG, 2, wide_row, INPUT_RANDOM);
    add(l, WK_F32, WKT_CONTIG, WKT_BROADCAST, WKT_CONTIG, 2, mid, INPUT_RANDOM);
    add(l, WK_F16, WKT_TRANSPOSED, WKT_CONTIG, WKT_CONTIG, 2, mid, INPUT_RANDOM);
    add(l, WK_F32, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 2, over, INPUT_RANDOM);
    add(l, WK_BF16, WKT_CONTIG, WKT_TRANSPOSED, WKT_BROADCAST, 2, over, INPUT_RANDOM);
    add(l, WK_F16, WKT_OFFSET, WKT_CONTIG, WKT_CONTIG, 2, over_odd, INPUT_RANDOM);
    add(l, WK_F64, WKT_CONTIG, WKT_OFFSET, WKT_CONTIG, 2, over, INPUT_RANDOM);
    add(l, WK_F32, WKT_OFFSET, WKT_CONTIG, WKT_CONTIG, 1, r1, INPUT_RANDOM);
    /* the GPU's one- and two-vector rows (a lane a row: v1, v2) and their by-element twins (s1, s2) */
    static const int64_t f32_v1[2] = {130, 4}, f32_v2[2] = {40, 8}, h_v1[2] = {33, 8}, h_s1[2] = {9, 7},
                         f32_s2[2] = {50, 6}, f64_v1[2] = {21, 2}, f64_v2[2] = {17, 4}, f64_s2[2] = {11, 3},
                         f32_s1[2] = {12, 3};
    add(l, WK_F32, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 2, f32_v1, INPUT_RANDOM);
    add(l, WK_F32, WKT_CONTIG, WKT_TRANSPOSED, WKT_CONTIG, 2, f32_v2, INPUT_RANDOM);
    add(l, WK_BF16, WKT_CONTIG, WKT_CONTIG, WKT_OFFSET, 2, h_v1, INPUT_RANDOM);
    add(l, WK_F16, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 2, h_s1, INPUT_RANDOM);
    add(l, WK_F32, WKT_TRANSPOSED, WKT_CONTIG, WKT_CONTIG, 2, f32_s2, INPUT_RANDOM);
    add(l, WK_F64, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 2, f64_v1, INPUT_RANDOM);
    add(l, WK_F64, WKT_CONTIG, WKT_OFFSET, WKT_CONTIG, 2, f64_v2, INPUT_RANDOM);
    add(l, WK_F64, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 2, f64_s2, INPUT_RANDOM);
    add(l, WK_F32, WKT_CONTIG, WKT_CONTIG, WKT_BROADCAST, 2, f32_s1, INPUT_RANDOM);
    add(l, WK_F64, WKT_TRANSPOSED, WKT_CONTIG, WKT_CONTIG, 2, one, INPUT_RANDOM);
    add(l, WK_F32, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 2, no_rows, INPUT_RANDOM);
    add(l, WK_BF16, WKT_CONTIG, WKT_OFFSET, WKT_CONTIG, 2, empty_rows, INPUT_RANDOM);
    /* NaN, +-inf (inf - inf: NaN) and signed zeros in x and r; rows of zeros (eps alone keeps the scale finite) */
    static const int64_t wide[2] = {40, 300}, wide_vec[2] = {40, 512};
    for (int t = 0; t < 4; t++) {
        add(l, fl[t], t % 2 ? WKT_CONTIG : WKT_TRANSPOSED, WKT_CONTIG, WKT_CONTIG, 2, wide, INPUT_WIDE);
        add(l, fl[t], WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 2, wide_vec, INPUT_WIDE);
        add(l, fl[t], WKT_CONTIG, WKT_OFFSET, WKT_OFFSET, 2, wide_vec, INPUT_ZEROS);
    }
    add(l, WK_F32, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 2, over, INPUT_WIDE);
}

/* ---------------------------------------------------------------- error paths */
void norm_add_errors(wkt_errctx *e)
{
    static char marker_s, marker_o;
    wk_tensor *const before_s = (wk_tensor *)(void *)&marker_s, *const before_o = (wk_tensor *)(void *)&marker_o;
    const int64_t shape[2] = {3, 4}, other[2] = {4, 3}, four = 4, three = 3;
    wk_tensor *x = NULL, *r = NULL, *r_shape = NULL, *r_f64 = NULL, *xi = NULL, *ri = NULL, *scalar = NULL;
    wk_tensor *w = NULL, *w_short = NULL, *w_2d = NULL, *w_f64 = NULL, *sum = before_s, *out = before_o;
    if (wk_tensor_empty(e->dev, WK_F32, 2, shape, &x) != WK_OK || wk_tensor_empty(e->dev, WK_F32, 2, shape, &r) ||
        wk_tensor_empty(e->dev, WK_F32, 2, other, &r_shape) || wk_tensor_empty(e->dev, WK_F64, 2, shape, &r_f64) ||
        wk_tensor_empty(e->dev, WK_I32, 2, shape, &xi) || wk_tensor_empty(e->dev, WK_I32, 2, shape, &ri) ||
        wk_tensor_empty(e->dev, WK_F32, 0, NULL, &scalar) || wk_tensor_empty(e->dev, WK_F32, 1, &four, &w) ||
        wk_tensor_empty(e->dev, WK_F32, 1, &three, &w_short) || wk_tensor_empty(e->dev, WK_F32, 2, shape, &w_2d) ||
        wk_tensor_empty(e->dev, WK_F64, 1, &four, &w_f64)) {
        printf("FAIL add_rms_norm errors: cannot make inputs: %s\n", wk_last_error());
        e->checks++, e->failures++;
        goto done;
    }
    const char *op = "add_rms_norm";
#define EXPECT_FAIL(call, status)                          \
    do {                                                   \
        WKT_EXPECT(e, call, status, op);                   \
        expect_untouched(e, sum, before_s, #call " (sum)"); \
        expect_untouched(e, out, before_o, #call " (out)"); \
    } while (0)
    EXPECT_FAIL(wk_add_rms_norm(NULL, r, w, 1e-6, &sum, &out), WK_ERR_INVALID_ARGUMENT);
    EXPECT_FAIL(wk_add_rms_norm(x, NULL, w, 1e-6, &sum, &out), WK_ERR_INVALID_ARGUMENT);
    EXPECT_FAIL(wk_add_rms_norm(x, r, NULL, 1e-6, &sum, &out), WK_ERR_INVALID_ARGUMENT);
    EXPECT_FAIL(wk_add_rms_norm(x, r, w, 1e-6, NULL, &out), WK_ERR_INVALID_ARGUMENT);
    EXPECT_FAIL(wk_add_rms_norm(x, r, w, 1e-6, &sum, NULL), WK_ERR_INVALID_ARGUMENT);
    EXPECT_FAIL(wk_add_rms_norm(x, r, w, 1e-6, &out, &out), WK_ERR_INVALID_ARGUMENT);
    EXPECT_FAIL(wk_add_rms_norm(x, r_shape, w, 1e-6, &sum, &out), WK_ERR_SHAPE);
    EXPECT_FAIL(wk_add_rms_norm(x, r_f64, w, 1e-6, &sum, &out), WK_ERR_DTYPE);
    EXPECT_FAIL(wk_add_rms_norm(xi, ri, w, 1e-6, &sum, &out), WK_ERR_DTYPE);
    EXPECT_FAIL(wk_add_rms_norm(x, ri, w, 1e-6, &sum, &out), WK_ERR_DTYPE);
    EXPECT_FAIL(wk_add_rms_norm(scalar, scalar, w, 1e-6, &sum, &out), WK_ERR_SHAPE);
    EXPECT_FAIL(wk_add_rms_norm(x, scalar, w, 1e-6, &sum, &out), WK_ERR_SHAPE);
    EXPECT_FAIL(wk_add_rms_norm(x, r, w_short, 1e-6, &sum, &out), WK_ERR_SHAPE);
    EXPECT_FAIL(wk_add_rms_norm(x, r, w_2d, 1e-6, &sum, &out), WK_ERR_SHAPE);
    EXPECT_FAIL(wk_add_rms_norm(x, r, w_f64, 1e-6, &sum, &out), WK_ERR_DTYPE);
    EXPECT_FAIL(wk_add_rms_norm(x, r, w, -1.0, &sum, &out), WK_ERR_INVALID_ARGUMENT);
    EXPECT_FAIL(wk_add_rms_norm(x, r, w, NAN, &sum, &out), WK_ERR_INVALID_ARGUMENT);
    EXPECT_FAIL(wk_add_rms_norm(x, r, w, INFINITY, &sum, &out), WK_ERR_INVALID_ARGUMENT);
    wk_device *cpu = NULL;
    if (wk_device_get("cpu", &cpu) == WK_OK && cpu != e->dev) { /* r or w on the CPU, x on this device */
        wk_tensor *r_cpu = NULL, *w_cpu = NULL;
        if (wk_tensor_empty(cpu, WK_F32, 2, shape, &r_cpu) == WK_OK &&
            wk_tensor_empty(cpu, WK_F32, 1, &four, &w_cpu) == WK_OK) {
            EXPECT_FAIL(wk_add_rms_norm(x, r_cpu, w, 1e-6, &sum, &out), WK_ERR_DEVICE);
            EXPECT_FAIL(wk_add_rms_norm(x, r, w_cpu, 1e-6, &sum, &out), WK_ERR_DEVICE);
        }
        wk_tensor_release(r_cpu);
        wk_tensor_release(w_cpu);
    }
#undef EXPECT_FAIL
done:
    wk_tensor_release(x);
    wk_tensor_release(r);
    wk_tensor_release(r_shape);
    wk_tensor_release(r_f64);
    wk_tensor_release(xi);
    wk_tensor_release(ri);
    wk_tensor_release(scalar);
    wk_tensor_release(w);
    wk_tensor_release(w_short);
    wk_tensor_release(w_2d);
    wk_tensor_release(w_f64);
}
