/* unary.c: case family 'unary': every one-input element-wise op (unary ops, affine, powf, elu, leaky_relu, clamp)
 * on every dtype it supports and every layout, and glu over the halves of one input, against a float64 reference
 * (wrapping integer arithmetic for ints). */
#include "elementwise.h"

/* iparam[0]: kind; iparam[1]: the wk_unary_op of KIND_UNARY, the wk_glu_kind of KIND_GLU. fparam: the op's
 * scalars. */
enum { KIND_UNARY, KIND_AFFINE, KIND_POWF, KIND_ELU, KIND_CLAMP, KIND_LEAKY_RELU, KIND_GLU };

/* ---- reference */

static double ref_round_half_even(double x)
{
    double f = floor(x), d = x - f;
    if (d > 0.5 || (d == 0.5 && fmod(f, 2.0) != 0.0))
        return f + 1.0;
    return f;
}

/* min(max(r, 0), 6) with NaN kept (fmin/fmax would drop it). */
static double ref_relu6(double r) { return isnan(r) ? r : r < 0 ? 0.0 : r > 6 ? 6.0 : r; }

static double ref_float_unary(wk_unary_op op, double x)
{
    switch (op) {
    case WK_UNARY_EXP: return exp(x);
    case WK_UNARY_LOG: return log(x);
    case WK_UNARY_SIN: return sin(x);
    case WK_UNARY_COS: return cos(x);
    case WK_UNARY_TANH: return tanh(x);
    case WK_UNARY_ERF: return erf(x);
    case WK_UNARY_RECIP: return 1.0 / x;
    case WK_UNARY_SQRT: return sqrt(x);
    case WK_UNARY_GELU: return 0.5 * x * (1.0 + tanh(sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    case WK_UNARY_GELU_ERF: return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
    case WK_UNARY_SILU: return x / (1.0 + exp(-x));
    case WK_UNARY_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case WK_UNARY_CEIL: return ceil(x);
    case WK_UNARY_FLOOR: return floor(x);
    case WK_UNARY_ROUND: return isfinite(x) ? ref_round_half_even(x) : x;
    case WK_UNARY_SQR: return x * x;
    case WK_UNARY_ABS: return fabs(x);
    case WK_UNARY_NEG: return -x;
    case WK_UNARY_RELU: return isnan(x) ? x : x < 0 ? 0.0 : x;
    case WK_UNARY_SIGN: return isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
    case WK_UNARY_SOFTPLUS: return x > 20 ? x : log1p(exp(x));
    case WK_UNARY_MISH: return x * tanh(log1p(exp(x)));
    case WK_UNARY_HARDSWISH: return x * ref_relu6(x + 3) / 6;
    case WK_UNARY_HARDSIGMOID: return ref_relu6(x + 3) / 6;
    }
    return NAN;
}

static double ref_int_unary(wk_unary_op op, wk_dtype dt, double xd)
{
    int64_t x = (int64_t)xd;
    uint64_t ux = (uint64_t)x;
    switch (op) {
    case WK_UNARY_SQR: return ew_wrap(dt, ux * ux);
    case WK_UNARY_ABS: return x < 0 ? ew_wrap(dt, 0 - ux) : xd;
    case WK_UNARY_NEG: return ew_wrap(dt, 0 - ux);
    case WK_UNARY_RELU: return x < 0 ? 0.0 : xd;
    case WK_UNARY_SIGN: return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
    default: return NAN;
    }
}

/* A scalar parameter as the op converts it: ints truncate toward zero and saturate (NaN -> 0), f16/bf16
 * compute in f32. */
static double ref_scalar(wk_dtype dt, double v)
{
    if (wk_dtype_is_float(dt))
        return dt == WK_F64 ? v : (double)(float)v;
    double lo, hi;
    ew_int_range(dt, &lo, &hi);
    if (dt == WK_I64)
        lo = -9223372036854775808.0, hi = 9223372036854775807.0;
    if (isnan(v))
        return 0;
    v = trunc(v);
    return v < lo ? lo : v > hi ? (dt == WK_I64 ? 9223372036854775807.0 : hi) : v;
}

static double ref_one(const wkt_case *c, double x)
{
    wk_dtype dt = c->dtype;
    bool fl = wk_dtype_is_float(dt);
    switch (c->iparam[0]) {
    case KIND_UNARY:
        return fl ? wkt_round_to(dt, ref_float_unary((wk_unary_op)c->iparam[1], x))
                  : ref_int_unary((wk_unary_op)c->iparam[1], dt, x);
    case KIND_AFFINE: {
        double m = ref_scalar(dt, c->fparam[0]), a = ref_scalar(dt, c->fparam[1]);
        if (fl)
            return wkt_round_to(dt, x * m + a);
        uint64_t ux = (uint64_t)(int64_t)x, um = (uint64_t)(int64_t)m, ua = (uint64_t)(int64_t)a;
        return ew_wrap(dt, ux * um + ua);
    }
    case KIND_POWF: return wkt_round_to(dt, pow(x, ref_scalar(dt, c->fparam[0])));
    case KIND_ELU: return wkt_round_to(dt, x > 0 ? x : c->fparam[0] * (exp(x) - 1.0));
    case KIND_LEAKY_RELU: return wkt_round_to(dt, x > 0 ? x : x * ref_scalar(dt, c->fparam[0]));
    case KIND_CLAMP: {
        double lo = ref_scalar(dt, c->fparam[0]), hi = ref_scalar(dt, c->fparam[1]);
        return isnan(x) ? x : wkt_round_to(dt, x < lo ? lo : x > hi ? hi : x);
    }
    }
    return NAN;
}

/* ---- inputs: each op's domain, with NaN/inf in float inputs and the integer extremes in int inputs */

static wkt_dist input_dist(const wkt_case *c)
{
    wk_dtype dt = c->dtype;
    if (!wk_dtype_is_float(dt)) {
        double lo, hi;
        ew_int_range(dt, &lo, &hi);
        if (c->iparam[0] == KIND_CLAMP)
            return ew_signed(dt) ? (wkt_dist){-60, 60} : (wkt_dist){0, 150};
        if (c->iparam[0] == KIND_AFFINE || c->iparam[1] == WK_UNARY_SQR)
            return (wkt_dist){lo, hi}; /* overflows on purpose */
        return ew_signed(dt) ? (wkt_dist){-1000, 1000} : (wkt_dist){0, hi};
    }
    if (c->iparam[0] != KIND_UNARY)
        return c->iparam[0] == KIND_POWF ? (wkt_dist){c->fparam[1], 4} : (wkt_dist){-3, 3};
    switch ((wk_unary_op)c->iparam[1]) {
    case WK_UNARY_EXP: return (wkt_dist){-10, 10};
    case WK_UNARY_LOG: case WK_UNARY_SQRT: return (wkt_dist){0, 9};
    case WK_UNARY_SQR: return (wkt_dist){-20, 20};
    case WK_UNARY_SOFTPLUS: case WK_UNARY_MISH: return (wkt_dist){-30, 30}; /* softplus's threshold at 20 */
    default: return (wkt_dist){-4, 4};
    }
}

static bool exact_op(const wkt_case *c)
{
    if (c->iparam[0] == KIND_CLAMP)
        return true;
    if (c->iparam[0] != KIND_UNARY)
        return false;
    switch ((wk_unary_op)c->iparam[1]) {
    case WK_UNARY_CEIL: case WK_UNARY_FLOOR: case WK_UNARY_ROUND: case WK_UNARY_ABS: case WK_UNARY_NEG:
    case WK_UNARY_RELU: case WK_UNARY_SIGN: return true;
    default: return false;
    }
}

static double draw_input(const wkt_case *c, wkt_dist d, wkt_rng *rng)
{
    wk_dtype dt = c->dtype;
    if (!wk_dtype_is_float(dt))
        return ew_int(rng, dt, d.lo, d.hi, true);
    int op = c->iparam[1];
    bool rounding = c->iparam[0] == KIND_UNARY && (op == WK_UNARY_ROUND || op == WK_UNARY_CEIL || op == WK_UNARY_FLOOR);
    if (rounding && wkt_rng_int(rng, 0, 2) == 0) /* exact halves: round's ties go to even */
        return (double)wkt_rng_int(rng, -9, 9) * 0.5;
    return ew_float(rng, dt, d.lo, d.hi, true);
}

static wk_status call_op(const wkt_case *c, const wk_tensor *x, wk_tensor **o)
{
    switch (c->iparam[0]) {
    case KIND_AFFINE: return wk_affine(x, c->fparam[0], c->fparam[1], o);
    case KIND_POWF: return wk_powf(x, c->fparam[0], o);
    case KIND_ELU: return wk_elu(x, c->fparam[0], o);
    case KIND_LEAKY_RELU: return wk_leaky_relu(x, c->fparam[0], o);
    case KIND_CLAMP: return wk_clamp(x, c->fparam[0], c->fparam[1], o);
    default: return wk_unary((wk_unary_op)c->iparam[1], x, o);
    }
}

static void run(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int64_t n = 1;
    for (int i = 0; i < c->rank; i++)
        n *= c->shape[i];
    wkt_dist d = input_dist(c);
    double *xv = malloc((size_t)n * sizeof *xv + 1), *want = malloc((size_t)n * sizeof *want + 1), *got = NULL;
    wk_tensor *x = NULL, *o = NULL;
    if (!xv || !want) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    for (int64_t i = 0; i < n; i++)
        xv[i] = draw_input(c, d, rng);
    if (wkt_failed(ew_tensor(dev, c->dtype, c->rank, c->shape, c->layout, d, rng, &xv, &x), r, "make input") ||
        wkt_failed(call_op(c, x, &o), r, c->op))
        goto done;
    got = ew_read(o, c->dtype, c->rank, c->shape, r);
    if (!got)
        goto done;
    for (int64_t i = 0; i < n; i++)
        want[i] = ref_one(c, xv[i]);
    wkt_compare(c->dtype, got, want, n, wkt_tol(c->dtype, WKT_TOL_ELEMENTWISE), exact_op(c), r);
done:
    free(xv);
    free(want);
    free(got);
    wk_tensor_release(x);
    wk_tensor_release(o);
}

/* ---- glu: x (..., 2H) -> out (..., H), a and b the halves of each row of x's last dim */

static double ref_glu(wk_glu_kind kind, double a, double b)
{
    switch (kind) {
    case WK_GLU_SIGMOID: return a * ref_float_unary(WK_UNARY_SIGMOID, b);
    case WK_GLU_SWIGLU: return ref_float_unary(WK_UNARY_SILU, a) * b;
    case WK_GLU_GEGLU: return ref_float_unary(WK_UNARY_GELU_ERF, a) * b;
    case WK_GLU_GEGLU_TANH: return ref_float_unary(WK_UNARY_GELU, a) * b;
    }
    return NAN;
}

static void run_glu(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int64_t n = 1, oshape[WK_MAX_RANK];
    for (int i = 0; i < c->rank; i++)
        n *= c->shape[i], oshape[i] = c->shape[i];
    int64_t w = c->shape[c->rank - 1], h = w / 2;
    oshape[c->rank - 1] = h;
    wkt_dist d = {-4, 4};
    double *xv = malloc((size_t)n * sizeof *xv + 1), *want = malloc((size_t)n / 2 * sizeof *want + 1), *got = NULL;
    wk_tensor *x = NULL, *o = NULL;
    if (!xv || !want) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    for (int64_t i = 0; i < n; i++)
        xv[i] = ew_float(rng, c->dtype, d.lo, d.hi, true);
    if (wkt_failed(ew_tensor(dev, c->dtype, c->rank, c->shape, c->layout, d, rng, &xv, &x), r, "make input") ||
        wkt_failed(wk_glu((wk_glu_kind)c->iparam[1], x, &o), r, c->op))
        goto done;
    got = ew_read(o, c->dtype, c->rank, oshape, r);
    if (!got)
        goto done;
    for (int64_t i = 0; i < n / 2; i++) {
        int64_t row = i / h, j = i - row * h;
        want[i] = wkt_round_to(c->dtype, ref_glu((wk_glu_kind)c->iparam[1], xv[row * w + j], xv[row * w + h + j]));
    }
    wkt_compare(c->dtype, got, want, n / 2, wkt_tol(c->dtype, WKT_TOL_ELEMENTWISE), false, r);
done:
    free(xv);
    free(want);
    free(got);
    wk_tensor_release(x);
    wk_tensor_release(o);
}

/* ---- the table */

static const wk_dtype all_dtypes[] = {WK_U8, WK_U32, WK_I32, WK_I64, WK_F16, WK_BF16, WK_F32, WK_F64};
static const wk_dtype float_dtypes[] = {WK_F16, WK_BF16, WK_F32, WK_F64};
static const wkt_layout strided_layouts[] = {WKT_TRANSPOSED, WKT_PERMUTED, WKT_BROADCAST, WKT_OFFSET};

static const int64_t shape_flat[] = {37, 61};      /* contiguous runs */
static const int64_t shape_cube[] = {5, 7, 33};    /* every layout applies */
static const int64_t shape_big[] = {300, 200};     /* above the threading grain */
static const int64_t shape_empty[] = {4, 0, 3};

static void add(wkt_list *l, const char *op, int kind, int uop, wk_dtype dt, wkt_layout layout, int rank,
                const int64_t *shape, double p0, double p1)
{
    wkt_case c = {.family = "unary", .dtype = dt, .layout = layout, .rank = rank, .run = run,
                  .iparam = {kind, uop}, .fparam = {p0, p1}};
    snprintf(c.op, sizeof c.op, "%s", op);
    for (int i = 0; i < rank; i++)
        c.shape[i] = shape[i];
    wkt_add(l, &c);
}

/* x's last dim even (the halves). glu_rows: halves of 2048, whole 16-byte vectors for every dtype (a GPU's row
 * path), above the threading grain; glu_odd: halves of 35, the element paths; glu_vec: one row. */
static const int64_t glu_flat[] = {37, 64};
static const int64_t glu_cube[] = {5, 7, 34};
static const int64_t glu_rows[] = {96, 4096};
static const int64_t glu_odd[] = {3, 70};
static const int64_t glu_vec[] = {64};

static void glu_cases(wkt_list *l)
{
    for (int kind = 0; kind < WK_GLU_COUNT; kind++) {
        const char *name = wk_glu_name((wk_glu_kind)kind);
        for (int k = 0; k < 4; k++) {
            wk_dtype dt = float_dtypes[k];
            wkt_case c = {.family = "unary", .dtype = dt, .layout = WKT_CONTIG, .rank = 2, .run = run_glu,
                          .iparam = {KIND_GLU, kind}};
            snprintf(c.op, sizeof c.op, "%s", name);
            memcpy(c.shape, glu_flat, sizeof glu_flat);
            wkt_add(l, &c);
            c.rank = 3, c.layout = strided_layouts[(kind + k) % 4];
            memcpy(c.shape, glu_cube, sizeof glu_cube);
            wkt_add(l, &c);
            c.rank = 2, c.layout = k % 2 ? WKT_OFFSET : WKT_CONTIG;
            memcpy(c.shape, glu_rows, sizeof glu_rows);
            wkt_add(l, &c);
        }
        wkt_case c = {.family = "unary", .dtype = WK_F32, .layout = WKT_TRANSPOSED, .rank = 2, .run = run_glu,
                      .iparam = {KIND_GLU, kind}};
        snprintf(c.op, sizeof c.op, "%s", name);
        memcpy(c.shape, glu_odd, sizeof glu_odd);
        wkt_add(l, &c);
        c.layout = WKT_CONTIG, c.dtype = WK_BF16;
        wkt_add(l, &c);
        c.rank = 1, c.dtype = float_dtypes[kind];
        memcpy(c.shape, glu_vec, sizeof glu_vec);
        wkt_add(l, &c);
        c.rank = 3, c.dtype = WK_F16;
        memcpy(c.shape, shape_empty, sizeof shape_empty); /* {4, 0, 3}: empty, odd last dim is checked first */
        c.shape[2] = 6;
        wkt_add(l, &c);
    }
}

static bool int_ok(wk_unary_op op, wk_dtype dt)
{
    return op == WK_UNARY_SQR || op == WK_UNARY_ABS || op == WK_UNARY_RELU || op == WK_UNARY_SIGN ||
           (op == WK_UNARY_NEG && ew_signed(dt));
}

static void unary_cases(wkt_list *l)
{
    for (int op = 0; op < WK_UNARY_COUNT; op++) {
        const char *name = wk_unary_name((wk_unary_op)op);
        int rot = 0;
        for (size_t k = 0; k < sizeof all_dtypes / sizeof *all_dtypes; k++) {
            wk_dtype dt = all_dtypes[k];
            if (!wk_dtype_is_float(dt) && !int_ok((wk_unary_op)op, dt))
                continue;
            add(l, name, KIND_UNARY, op, dt, WKT_CONTIG, 2, shape_flat, 0, 0);
            if (dt == WK_F32)
                for (int j = 0; j < 4; j++)
                    add(l, name, KIND_UNARY, op, dt, strided_layouts[j], 3, shape_cube, 0, 0);
            else /* one strided layout per other dtype, rotating with the op so every pair shows up */
                add(l, name, KIND_UNARY, op, dt, strided_layouts[(op + rot++) % 4], 3, shape_cube, 0, 0);
        }
        /* rank 0, zero-sized and threaded sizes for every op */
        wk_dtype dt = int_ok((wk_unary_op)op, WK_I32) && op % 2 ? WK_I32 : WK_F32;
        add(l, name, KIND_UNARY, op, dt, WKT_OFFSET, 0, NULL, 0, 0);
        add(l, name, KIND_UNARY, op, float_dtypes[op % 4], WKT_CONTIG, 3, shape_empty, 0, 0);
        add(l, name, KIND_UNARY, op, float_dtypes[(op + 1) % 4], op % 2 ? WKT_TRANSPOSED : WKT_CONTIG, 2,
            shape_big, 0, 0);
    }
}

static void param_cases(wkt_list *l)
{
    /* affine and clamp: every dtype, contiguous and one strided layout */
    for (size_t k = 0; k < sizeof all_dtypes / sizeof *all_dtypes; k++) {
        wk_dtype dt = all_dtypes[k];
        bool fl = wk_dtype_is_float(dt);
        double mul = fl ? 1.5 : 7, add_ = fl ? -0.25 : -3; /* u8/u32: -3 saturates to 0 */
        add(l, "affine", KIND_AFFINE, 0, dt, WKT_CONTIG, 2, shape_flat, mul, add_);
        add(l, "affine", KIND_AFFINE, 0, dt, strided_layouts[k % 4], 3, shape_cube, fl ? -2.0 : 100003.9, 11);
        double lo = fl ? -0.5 : ew_signed(dt) ? -20 : 10, hi = fl ? 1.25 : 100;
        add(l, "clamp", KIND_CLAMP, 0, dt, WKT_CONTIG, 2, shape_flat, lo, hi);
        add(l, "clamp", KIND_CLAMP, 0, dt, strided_layouts[(k + 1) % 4], 3, shape_cube, lo, lo); /* lo == hi */
    }
    add(l, "clamp", KIND_CLAMP, 0, WK_I32, WKT_OFFSET, 2, shape_flat, -7.9, 20.5); /* bounds truncate */
    add(l, "clamp", KIND_CLAMP, 0, WK_U8, WKT_CONTIG, 2, shape_flat, -5, 1000);   /* bounds saturate */
    add(l, "clamp", KIND_CLAMP, 0, WK_F32, WKT_TRANSPOSED, 2, shape_big, -1, 1);
    add(l, "clamp", KIND_CLAMP, 0, WK_F64, WKT_CONTIG, 0, NULL, -1, 1);
    add(l, "affine", KIND_AFFINE, 0, WK_F32, WKT_CONTIG, 2, shape_big, 0.5, 3);
    add(l, "affine", KIND_AFFINE, 0, WK_I64, WKT_OFFSET, 0, NULL, -3, 5);
    add(l, "affine", KIND_AFFINE, 0, WK_BF16, WKT_CONTIG, 3, shape_empty, 2, 1);
    for (int j = 0; j < 4; j++) {
        add(l, "affine", KIND_AFFINE, 0, WK_F32, strided_layouts[j], 3, shape_cube, 3, -1);
        add(l, "clamp", KIND_CLAMP, 0, WK_F32, strided_layouts[j], 3, shape_cube, -1, 1);
    }
    /* powf (fparam[1]: the low end of the input range) and elu: float dtypes */
    static const double exps[][2] = {{2.5, -1}, {3, -3}, {-0.5, 0}, {2, -4}};
    for (int k = 0; k < 4; k++) {
        wk_dtype dt = float_dtypes[k];
        for (int e = 0; e < 4; e++)
            add(l, "powf", KIND_POWF, 0, dt, e == k ? strided_layouts[e] : WKT_CONTIG, 2 + (e == k),
                e == k ? shape_cube : shape_flat, exps[e][0], exps[e][1]);
        add(l, "elu", KIND_ELU, 0, dt, WKT_CONTIG, 2, shape_flat, k % 2 ? 0.3 : 1.0, 0);
        add(l, "elu", KIND_ELU, 0, dt, strided_layouts[k], 3, shape_cube, 1.0, 0);
    }
    add(l, "powf", KIND_POWF, 0, WK_F32, WKT_CONTIG, 2, shape_big, 1.5, 0);
    add(l, "powf", KIND_POWF, 0, WK_F64, WKT_CONTIG, 0, NULL, 2, -1);
    add(l, "elu", KIND_ELU, 0, WK_F32, WKT_TRANSPOSED, 2, shape_big, 0.7, 0);
    add(l, "elu", KIND_ELU, 0, WK_F16, WKT_CONTIG, 3, shape_empty, 1, 0);
    for (int k = 0; k < 4; k++) {
        add(l, "leaky_relu", KIND_LEAKY_RELU, 0, float_dtypes[k], WKT_CONTIG, 2, shape_flat, k % 2 ? 0.2 : 0.01, 0);
        add(l, "leaky_relu", KIND_LEAKY_RELU, 0, float_dtypes[k], strided_layouts[k], 3, shape_cube, -1.5, 0);
    }
    add(l, "leaky_relu", KIND_LEAKY_RELU, 0, WK_F32, WKT_TRANSPOSED, 2, shape_big, 0.1, 0);
    add(l, "leaky_relu", KIND_LEAKY_RELU, 0, WK_F64, WKT_OFFSET, 0, NULL, 0.3, 0);
    add(l, "leaky_relu", KIND_LEAKY_RELU, 0, WK_BF16, WKT_CONTIG, 3, shape_empty, 0.01, 0);
}

static void cases(wkt_list *l)
{
    unary_cases(l);
    param_cases(l);
    glu_cases(l);
}

/* ---- error paths */

/* glu: kinds, dtypes, odd or missing last dims; xf is f32 (2, 3): an odd last dim. */
static void glu_errors(wkt_errctx *e, wk_tensor *xf)
{
    wk_tensor *o = NULL, *x0 = NULL, *xe = NULL;
    const int64_t even[2] = {2, 4};
    EW_EXPECT(e, o, wk_glu(WK_GLU_SWIGLU, xf, &o), WK_ERR_SHAPE, "swiglu");
    EW_EXPECT(e, o, wk_glu(WK_GLU_SIGMOID, NULL, &o), WK_ERR_INVALID_ARGUMENT, "glu");
    EW_EXPECT(e, o, wk_glu(WK_GLU_GEGLU, xf, NULL), WK_ERR_INVALID_ARGUMENT, "geglu");
    EW_EXPECT(e, o, wk_glu((wk_glu_kind)WK_GLU_COUNT, xf, &o), WK_ERR_INVALID_ARGUMENT, "glu");
    EW_EXPECT(e, o, wk_glu((wk_glu_kind)-1, xf, &o), WK_ERR_INVALID_ARGUMENT, "glu");
    if (wk_tensor_empty(e->dev, WK_F32, 0, NULL, &x0) == WK_OK)
        EW_EXPECT(e, o, wk_glu(WK_GLU_GEGLU_TANH, x0, &o), WK_ERR_SHAPE, "geglu_tanh");
    if (wk_tensor_empty(e->dev, WK_I32, 2, even, &xe) == WK_OK)
        EW_EXPECT(e, o, wk_glu(WK_GLU_SWIGLU, xe, &o), WK_ERR_DTYPE, "swiglu");
    e->checks++;
    if (strcmp(wk_glu_name(WK_GLU_SWIGLU), "swiglu") != 0 ||
        strcmp(wk_glu_name((wk_glu_kind)WK_GLU_COUNT), "invalid") != 0) {
        e->failures++;
        printf("FAIL wk_glu_name: wrong names\n");
    }
    wk_tensor_release(x0);
    wk_tensor_release(xe);
}

static void errors(wkt_errctx *e)
{
    int64_t shape[2] = {2, 3};
    wk_tensor *xf = NULL, *xi = NULL, *xu8 = NULL, *xu32 = NULL, *o = NULL;
    if (wk_tensor_empty(e->dev, WK_F32, 2, shape, &xf) != WK_OK ||
        wk_tensor_empty(e->dev, WK_I32, 2, shape, &xi) != WK_OK ||
        wk_tensor_empty(e->dev, WK_U8, 2, shape, &xu8) != WK_OK ||
        wk_tensor_empty(e->dev, WK_U32, 2, shape, &xu32) != WK_OK) {
        e->checks++, e->failures++;
        printf("FAIL unary errors: cannot make inputs: %s\n", wk_last_error());
        goto done;
    }
    EW_EXPECT(e, o, wk_unary(WK_UNARY_EXP, NULL, &o), WK_ERR_INVALID_ARGUMENT, "unary exp");
    EW_EXPECT(e, o, wk_unary(WK_UNARY_EXP, xf, NULL), WK_ERR_INVALID_ARGUMENT, "unary exp");
    EW_EXPECT(e, o, wk_unary((wk_unary_op)WK_UNARY_COUNT, xf, &o), WK_ERR_INVALID_ARGUMENT, "unary");
    EW_EXPECT(e, o, wk_unary((wk_unary_op)-1, xf, &o), WK_ERR_INVALID_ARGUMENT, "unary");
    EW_EXPECT(e, o, wk_unary(WK_UNARY_EXP, xi, &o), WK_ERR_DTYPE, "unary exp");
    EW_EXPECT(e, o, wk_unary(WK_UNARY_ROUND, xi, &o), WK_ERR_DTYPE, "unary round");
    EW_EXPECT(e, o, wk_unary(WK_UNARY_SQRT, xu32, &o), WK_ERR_DTYPE, "unary sqrt");
    EW_EXPECT(e, o, wk_unary(WK_UNARY_NEG, xu8, &o), WK_ERR_DTYPE, "unary neg");
    EW_EXPECT(e, o, wk_unary(WK_UNARY_NEG, xu32, &o), WK_ERR_DTYPE, "unary neg");
    EW_EXPECT(e, o, wk_affine(NULL, 1, 0, &o), WK_ERR_INVALID_ARGUMENT, "affine");
    EW_EXPECT(e, o, wk_affine(xf, 1, 0, NULL), WK_ERR_INVALID_ARGUMENT, "affine");
    EW_EXPECT(e, o, wk_powf(xi, 2, &o), WK_ERR_DTYPE, "powf");
    EW_EXPECT(e, o, wk_powf(NULL, 2, &o), WK_ERR_INVALID_ARGUMENT, "powf");
    EW_EXPECT(e, o, wk_elu(xu8, 1, &o), WK_ERR_DTYPE, "elu");
    EW_EXPECT(e, o, wk_elu(xf, 1, NULL), WK_ERR_INVALID_ARGUMENT, "elu");
    EW_EXPECT(e, o, wk_leaky_relu(xi, 0.1, &o), WK_ERR_DTYPE, "leaky_relu");
    EW_EXPECT(e, o, wk_leaky_relu(NULL, 0.1, &o), WK_ERR_INVALID_ARGUMENT, "leaky_relu");
    EW_EXPECT(e, o, wk_leaky_relu(xf, 0.1, NULL), WK_ERR_INVALID_ARGUMENT, "leaky_relu");
    for (int k = 0; k < WK_UNARY_COUNT; k++) /* the activations added after sign are float only */
        if (k >= WK_UNARY_SOFTPLUS)
            EW_EXPECT(e, o, wk_unary((wk_unary_op)k, xi, &o), WK_ERR_DTYPE, wk_unary_name((wk_unary_op)k));
    glu_errors(e, xf);
    EW_EXPECT(e, o, wk_clamp(xf, 2, 1, &o), WK_ERR_INVALID_ARGUMENT, "clamp");
    EW_EXPECT(e, o, wk_clamp(xi, 0, NAN, &o), WK_ERR_INVALID_ARGUMENT, "clamp");
    EW_EXPECT(e, o, wk_clamp(NULL, 0, 1, &o), WK_ERR_INVALID_ARGUMENT, "clamp");
    /* names: distinct and valid for every op, "invalid" outside */
    e->checks++;
    bool names_ok = strcmp(wk_unary_name((wk_unary_op)WK_UNARY_COUNT), "invalid") == 0 &&
                    strcmp(wk_unary_name((wk_unary_op)-1), "invalid") == 0;
    for (int i = 0; i < WK_UNARY_COUNT; i++)
        for (int j = 0; j < i; j++)
            names_ok = names_ok && strcmp(wk_unary_name((wk_unary_op)i), wk_unary_name((wk_unary_op)j)) != 0 &&
                       strcmp(wk_unary_name((wk_unary_op)i), "invalid") != 0;
    if (!names_ok) {
        e->failures++;
        printf("FAIL wk_unary_name: names not distinct or 'invalid' not returned\n");
    }
done:
    wk_tensor_release(xf);
    wk_tensor_release(xi);
    wk_tensor_release(xu8);
    wk_tensor_release(xu32);
}

const wkt_family wkt_family_unary = {.name = "unary", .cases = cases, .errors = errors};
