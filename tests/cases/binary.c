/* binary.c: case family 'binary': add/sub/mul/div/maximum/minimum, the comparisons and where, on every dtype,
 * layout and broadcast pattern, against a float64 reference (wrapping integer arithmetic for ints). */
#include "elementwise.h"

/* iparam[0]: kind; iparam[1]: the op (wk_binary_op / wk_compare_op); iparam[2]: index into shape_sets;
 * iparam[3]: where's cond dtype. The case's shape is a's (shown in reports). */
enum { KIND_BINARY, KIND_COMPARE, KIND_WHERE };

/* Operand shapes: a, b (and where's third operand c; binary ops ignore it). */
typedef struct shape_set {
    int rank[3];
    int64_t shape[3][4];
} shape_set;

static const shape_set shape_sets[] = {
    {{2, 2, 2}, {{23, 45}, {23, 45}, {23, 45}}},             /* 0: same shape */
    {{3, 3, 3}, {{5, 7, 33}, {5, 7, 33}, {5, 7, 33}}},       /* 1: same shape, every layout applies */
    {{3, 2, 1}, {{4, 1, 5}, {3, 1}, {5}}},                   /* 2: both sides broadcast, ranks differ */
    {{3, 1, 0}, {{2, 3, 4}, {4}, {0}}},                      /* 3: lower rank, rank 0 */
    {{0, 2, 2}, {{0}, {5, 6}, {1, 6}}},                      /* 4: rank 0 against a tensor */
    {{2, 2, 2}, {{5, 1}, {1, 7}, {5, 7}}},                   /* 5: outer product */
    {{4, 3, 1}, {{2, 3, 1, 6}, {1, 4, 6}, {1}}},             /* 6: rank 4 */
    {{2, 2, 1}, {{0, 5}, {1, 5}, {5}}},                      /* 7: zero-sized */
    {{0, 0, 0}, {{0}, {0}, {0}}},                            /* 8: all rank 0 */
    {{2, 1, 2}, {{256, 300}, {300}, {256, 1}}},              /* 9: above the threading grain */
    {{2, 2, 2}, {{256, 300}, {256, 300}, {256, 300}}},       /* 10: large, same shape */
};
enum { SET_SAME, SET_CUBE, SET_BCAST, SET_LOWER, SET_SCALAR, SET_OUTER, SET_RANK4, SET_EMPTY, SET_RANK0, SET_BIG,
       SET_BIG_SAME };

/* ---- reference */

static double ref_int_binary(wk_binary_op op, wk_dtype dt, double ad, double bd)
{
    int64_t a = (int64_t)ad, b = (int64_t)bd;
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (op) {
    case WK_BINARY_ADD: return ew_wrap(dt, ua + ub);
    case WK_BINARY_SUB: return ew_wrap(dt, ua - ub);
    case WK_BINARY_MUL: return ew_wrap(dt, ua * ub);
    case WK_BINARY_DIV:
        if (b == 0)
            return 0; /* documented: integer division by zero gives 0 */
        if (b == -1)
            return ew_wrap(dt, 0 - ua); /* MIN / -1 wraps to MIN */
        return (double)(a / b);        /* C truncates toward zero */
    case WK_BINARY_MAXIMUM: return a > b ? ad : bd;
    case WK_BINARY_MINIMUM: return a < b ? ad : bd;
    }
    return NAN;
}

static double ref_float_binary(wk_binary_op op, double a, double b)
{
    switch (op) {
    case WK_BINARY_ADD: return a + b;
    case WK_BINARY_SUB: return a - b;
    case WK_BINARY_MUL: return a * b;
    case WK_BINARY_DIV: return a / b;
    case WK_BINARY_MAXIMUM: return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
    case WK_BINARY_MINIMUM: return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
    }
    return NAN;
}

static double ref_compare(wk_compare_op op, double a, double b)
{
    switch (op) {
    case WK_CMP_EQ: return a == b;
    case WK_CMP_NE: return a != b;
    case WK_CMP_LT: return a < b;
    case WK_CMP_LE: return a <= b;
    case WK_CMP_GT: return a > b;
    case WK_CMP_GE: return a >= b;
    }
    return NAN;
}

/* Row-major index into an operand of (rank, shape) for output multi-index idx (numpy broadcasting). */
static int64_t bcast_index(int out_rank, const int64_t *idx, int rank, const int64_t *shape)
{
    int64_t li = 0;
    for (int d = 0; d < rank; d++) {
        int64_t i = idx[out_rank - rank + d];
        li = li * shape[d] + (shape[d] == 1 ? 0 : i);
    }
    return li;
}

/* ---- inputs */

/* Values of operand k (0: a, 1: b, 2: c of where). */
static double draw(const wkt_case *c, wk_dtype dt, int k, wkt_rng *rng)
{
    int kind = c->iparam[0], op = c->iparam[1];
    bool fl = wk_dtype_is_float(dt);
    if (kind == KIND_WHERE && k == 0) { /* cond: zero, one, or a value with only high bits set */
        int64_t pick = wkt_rng_int(rng, 0, 3);
        return pick < 2 ? (double)pick : dt == WK_U8 ? 128 : dt == WK_U32 ? 2147483648.0 : 1099511627776.0;
    }
    if (kind == KIND_COMPARE && fl) { /* few distinct values, so that equality happens; NaN and inf kept */
        double v = ew_float(rng, dt, -2, 2, true);
        return isfinite(v) && v != 0 ? (double)wkt_rng_int(rng, -2, 2) : v;
    }
    if (kind == KIND_COMPARE && wkt_rng_int(rng, 0, 1))
        return (double)wkt_rng_int(rng, 0, 3) - (ew_signed(dt) ? 2 : 0);
    if (fl)
        return ew_float(rng, dt, -4, 4, true);
    if (kind == KIND_BINARY && op == WK_BINARY_DIV && k == 1 && wkt_rng_int(rng, 0, 2) == 0)
        return ew_signed(dt) ? (double)wkt_rng_int(rng, -1, 0) : 0.0; /* zero and -1 divisors */
    double lo, hi;
    ew_int_range(dt, &lo, &hi);
    if (kind == KIND_BINARY && op == WK_BINARY_DIV && k == 1)
        return ew_int(rng, dt, ew_signed(dt) ? -300 : 0, 300, true);
    return ew_int(rng, dt, lo, hi, true); /* full range: sums and products overflow */
}

static wk_status call_op(const wkt_case *c, wk_tensor *const *in, wk_tensor **o)
{
    switch (c->iparam[0]) {
    case KIND_COMPARE: return wk_compare((wk_compare_op)c->iparam[1], in[0], in[1], o);
    case KIND_WHERE: return wk_where(in[0], in[1], in[2], o);
    default: return wk_binary((wk_binary_op)c->iparam[1], in[0], in[1], o);
    }
}

/* The layout of operand k: a takes the case's layout, the others another one, so mixed layouts meet. */
static wkt_layout layout_of(const wkt_case *c, int k, int rank, const int64_t *shape)
{
    wkt_layout l = k == 0 || c->layout == WKT_CONTIG ? c->layout : (wkt_layout)((c->layout + k) % WKT_LAYOUT_COUNT);
    return wkt_layout_applies(l, rank, shape) ? l : WKT_OFFSET;
}

static int64_t numel_of(int rank, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < rank; d++)
        n *= shape[d];
    return n;
}

static void run(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    const shape_set *ss = &shape_sets[c->iparam[2]];
    int kind = c->iparam[0], nin = kind == KIND_WHERE ? 3 : 2;
    wk_dtype in_dt[3] = {c->dtype, c->dtype, c->dtype};
    wk_dtype out_dt = kind == KIND_COMPARE ? WK_U8 : c->dtype;
    if (kind == KIND_WHERE)
        in_dt[0] = (wk_dtype)c->iparam[3];
    /* the broadcast shape, by numpy's rule */
    int orank = 0;
    int64_t oshape[WK_MAX_RANK], on = 1;
    for (int k = 0; k < nin; k++)
        orank = ss->rank[k] > orank ? ss->rank[k] : orank;
    for (int d = 0; d < orank; d++) {
        oshape[d] = 1;
        for (int k = 0; k < nin; k++) {
            int dk = d - (orank - ss->rank[k]);
            if (dk >= 0 && ss->shape[k][dk] != 1)
                oshape[d] = ss->shape[k][dk];
        }
        on *= oshape[d];
    }
    double *vals[3] = {NULL, NULL, NULL}, *want = malloc((size_t)on * sizeof *want + 1), *got = NULL;
    wk_tensor *in[3] = {NULL, NULL, NULL}, *o = NULL;
    for (int k = 0; k < nin; k++) {
        int64_t n = numel_of(ss->rank[k], ss->shape[k]);
        wkt_layout l = layout_of(c, k, ss->rank[k], ss->shape[k]);
        wkt_dist dist = wk_dtype_is_float(in_dt[k]) ? (wkt_dist){-4, 4} : wkt_dist_default(in_dt[k]);
        vals[k] = malloc((size_t)n * sizeof *vals[k] + 1);
        if (!vals[k] || !want) {
            wkt_fail(r, "out of host memory");
            goto done;
        }
        for (int64_t i = 0; i < n; i++)
            vals[k][i] = draw(c, in_dt[k], k, rng);
        if (wkt_failed(ew_tensor(dev, in_dt[k], ss->rank[k], ss->shape[k], l, dist, rng, &vals[k], &in[k]), r,
                       "make input"))
            goto done;
    }
    if (wkt_failed(call_op(c, in, &o), r, c->op))
        goto done;
    got = ew_read(o, out_dt, orank, oshape, r);
    if (!got)
        goto done;
    int64_t idx[WK_MAX_RANK] = {0};
    for (int64_t i = 0; i < on; i++) {
        double v[3];
        for (int k = 0; k < nin; k++)
            v[k] = vals[k][bcast_index(orank, idx, ss->rank[k], ss->shape[k])];
        if (kind == KIND_WHERE)
            want[i] = v[0] != 0 ? v[1] : v[2];
        else if (kind == KIND_COMPARE)
            want[i] = ref_compare((wk_compare_op)c->iparam[1], v[0], v[1]);
        else if (wk_dtype_is_float(c->dtype))
            want[i] = wkt_round_to(c->dtype, ref_float_binary((wk_binary_op)c->iparam[1], v[0], v[1]));
        else
            want[i] = ref_int_binary((wk_binary_op)c->iparam[1], c->dtype, v[0], v[1]);
        for (int d = orank - 1; d >= 0; d--) {
            if (++idx[d] < oshape[d])
                break;
            idx[d] = 0;
        }
    }
    bool exact = kind != KIND_BINARY || c->iparam[1] == WK_BINARY_MAXIMUM || c->iparam[1] == WK_BINARY_MINIMUM;
    wkt_compare(out_dt, got, want, on, wkt_tol(out_dt, WKT_TOL_ELEMENTWISE), exact, r);
done:
    for (int k = 0; k < 3; k++) {
        free(vals[k]);
        wk_tensor_release(in[k]);
    }
    free(want);
    free(got);
    wk_tensor_release(o);
}

/* ---- the table */

static const wk_dtype all_dtypes[] = {WK_U8, WK_U32, WK_I32, WK_I64, WK_F16, WK_BF16, WK_F32, WK_F64};
static const wk_dtype cond_dtypes[] = {WK_U8, WK_U32, WK_I64};
static const wkt_layout strided_layouts[] = {WKT_TRANSPOSED, WKT_PERMUTED, WKT_BROADCAST, WKT_OFFSET};

static void add(wkt_list *l, const char *op, int kind, int sub, wk_dtype dt, wkt_layout layout, int set, int cond_dt)
{
    const shape_set *ss = &shape_sets[set];
    wkt_case c = {.family = "binary", .dtype = dt, .layout = layout, .rank = ss->rank[0], .run = run,
                  .iparam = {kind, sub, set, cond_dt}};
    snprintf(c.op, sizeof c.op, "%s", op);
    for (int i = 0; i < ss->rank[0]; i++)
        c.shape[i] = ss->shape[0][i];
    wkt_add(l, &c);
}

/* Broadcast patterns run contiguous (b broadcast by ops/) or with a strided a. */
static const int bcast_sets[] = {SET_BCAST, SET_LOWER, SET_SCALAR, SET_OUTER, SET_RANK4, SET_EMPTY, SET_RANK0};
#define NBCAST (int)(sizeof bcast_sets / sizeof *bcast_sets)

/* full: every dtype in a strided layout and a broadcast pattern; else each dtype gets one of the two. */
static void arith_cases(wkt_list *l, int kind, int nops, const char *(*name)(int), bool full)
{
    for (int op = 0; op < nops; op++) {
        for (int k = 0; k < 8; k++) {
            wk_dtype dt = all_dtypes[k];
            add(l, name(op), kind, op, dt, WKT_CONTIG, SET_SAME, 0);
            if (full || k % 2 == op % 2)
                add(l, name(op), kind, op, dt, strided_layouts[(op + k) % 4], SET_CUBE, 0);
            if (full || k % 2 != op % 2)
                add(l, name(op), kind, op, dt, k % 2 ? WKT_CONTIG : WKT_OFFSET, bcast_sets[(op + k) % NBCAST], 0);
        }
        if (full)
            for (int j = 0; j < 4; j++)
                add(l, name(op), kind, op, WK_F32, strided_layouts[j], SET_CUBE, 0);
        add(l, name(op), kind, op, op % 2 ? WK_F32 : WK_I32, WKT_CONTIG, SET_BIG, 0);
        if (full)
            add(l, name(op), kind, op, op % 2 ? WK_I64 : WK_BF16, WKT_TRANSPOSED, SET_BIG_SAME, 0);
    }
}

static const char *binary_name(int op) { return wk_binary_name((wk_binary_op)op); }
static const char *compare_name(int op) { return wk_compare_name((wk_compare_op)op); }

static void cases(wkt_list *l)
{
    arith_cases(l, KIND_BINARY, WK_BINARY_COUNT, binary_name, true);
    arith_cases(l, KIND_COMPARE, WK_COMPARE_COUNT, compare_name, false);
    for (int k = 0; k < 8; k++) {
        for (int ci = 0; ci < 3; ci++)
            add(l, "where", KIND_WHERE, 0, all_dtypes[k], WKT_CONTIG, SET_SAME, (int)cond_dtypes[ci]);
        add(l, "where", KIND_WHERE, 0, all_dtypes[k], strided_layouts[k % 4], SET_CUBE, (int)cond_dtypes[k % 3]);
        add(l, "where", KIND_WHERE, 0, all_dtypes[k], WKT_CONTIG, bcast_sets[k % NBCAST], (int)cond_dtypes[k % 3]);
    }
    for (int j = 0; j < NBCAST; j++)
        add(l, "where", KIND_WHERE, 0, WK_F32, j % 2 ? WKT_OFFSET : WKT_CONTIG, bcast_sets[j],
            (int)cond_dtypes[j % 3]);
    add(l, "where", KIND_WHERE, 0, WK_F16, WKT_CONTIG, SET_BIG, WK_U8);
    add(l, "where", KIND_WHERE, 0, WK_F64, WKT_PERMUTED, SET_BIG_SAME, WK_I64);
}

/* ---- error paths */

static void errors(wkt_errctx *e)
{
    int64_t s23[2] = {2, 3}, s5[1] = {5};
    wk_tensor *f = NULL, *f5 = NULL, *i = NULL, *c8 = NULL, *ci32 = NULL, *o = NULL;
    if (wk_tensor_empty(e->dev, WK_F32, 2, s23, &f) != WK_OK ||
        wk_tensor_empty(e->dev, WK_F32, 1, s5, &f5) != WK_OK ||
        wk_tensor_empty(e->dev, WK_I32, 2, s23, &i) != WK_OK ||
        wk_tensor_empty(e->dev, WK_U8, 2, s23, &c8) != WK_OK ||
        wk_tensor_empty(e->dev, WK_I32, 2, s23, &ci32) != WK_OK) {
        e->checks++, e->failures++;
        printf("FAIL binary errors: cannot make inputs: %s\n", wk_last_error());
        goto done;
    }
    EW_EXPECT(e, o, wk_binary(WK_BINARY_ADD, f, i, &o), WK_ERR_DTYPE, "binary add");
    EW_EXPECT(e, o, wk_binary(WK_BINARY_MUL, f, f5, &o), WK_ERR_SHAPE, "binary mul");
    EW_EXPECT(e, o, wk_binary((wk_binary_op)WK_BINARY_COUNT, f, f, &o), WK_ERR_INVALID_ARGUMENT, "binary");
    EW_EXPECT(e, o, wk_binary((wk_binary_op)-1, f, f, &o), WK_ERR_INVALID_ARGUMENT, "binary");
    EW_EXPECT(e, o, wk_binary(WK_BINARY_SUB, NULL, f, &o), WK_ERR_INVALID_ARGUMENT, "binary sub");
    EW_EXPECT(e, o, wk_binary(WK_BINARY_SUB, f, NULL, &o), WK_ERR_INVALID_ARGUMENT, "binary sub");
    EW_EXPECT(e, o, wk_binary(WK_BINARY_DIV, f, f, NULL), WK_ERR_INVALID_ARGUMENT, "binary div");
    EW_EXPECT(e, o, wk_compare(WK_CMP_LT, i, f, &o), WK_ERR_DTYPE, "compare lt");
    EW_EXPECT(e, o, wk_compare(WK_CMP_EQ, f5, f, &o), WK_ERR_SHAPE, "compare eq");
    EW_EXPECT(e, o, wk_compare((wk_compare_op)WK_COMPARE_COUNT, f, f, &o), WK_ERR_INVALID_ARGUMENT, "compare");
    EW_EXPECT(e, o, wk_compare(WK_CMP_GE, NULL, f, &o), WK_ERR_INVALID_ARGUMENT, "compare ge");
    EW_EXPECT(e, o, wk_compare(WK_CMP_GE, f, f, NULL), WK_ERR_INVALID_ARGUMENT, "compare ge");
    EW_EXPECT(e, o, wk_where(f, f, f, &o), WK_ERR_DTYPE, "where");      /* float cond */
    EW_EXPECT(e, o, wk_where(ci32, f, f, &o), WK_ERR_DTYPE, "where");   /* i32 cond */
    EW_EXPECT(e, o, wk_where(c8, f, i, &o), WK_ERR_DTYPE, "where");     /* t and f differ */
    EW_EXPECT(e, o, wk_where(c8, f, f5, &o), WK_ERR_SHAPE, "where");
    EW_EXPECT(e, o, wk_where(NULL, f, f, &o), WK_ERR_INVALID_ARGUMENT, "where");
    EW_EXPECT(e, o, wk_where(c8, NULL, f, &o), WK_ERR_INVALID_ARGUMENT, "where");
    EW_EXPECT(e, o, wk_where(c8, f, NULL, &o), WK_ERR_INVALID_ARGUMENT, "where");
    EW_EXPECT(e, o, wk_where(c8, f, f, NULL), WK_ERR_INVALID_ARGUMENT, "where");
    e->checks++;
    bool names_ok = strcmp(wk_binary_name((wk_binary_op)WK_BINARY_COUNT), "invalid") == 0 &&
                    strcmp(wk_compare_name((wk_compare_op)-1), "invalid") == 0 &&
                    strcmp(wk_binary_name(WK_BINARY_MAXIMUM), "maximum") == 0 &&
                    strcmp(wk_compare_name(WK_CMP_LE), "le") == 0;
    if (!names_ok) {
        e->failures++;
        printf("FAIL wk_binary_name / wk_compare_name\n");
    }
done:
    wk_tensor_release(f);
    wk_tensor_release(f5);
    wk_tensor_release(i);
    wk_tensor_release(c8);
    wk_tensor_release(ci32);
}

const wkt_family wkt_family_binary = {.name = "binary", .cases = cases, .errors = errors};
