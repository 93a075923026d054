/* mask.c: case family 'mask': tril and triu (diagonals inside, outside and at the extremes of int64) and masked_fill
 * (masks of x's shape and broadcast ones, strided, values converted to x's dtype) on every dtype and layout, against
 * a plain reference; these ops move values, so every result must match exactly (NaN where the input had it). */
#include "elementwise.h"

/* iparam[0]: kind; tri: iparam[1] the diagonal's code (MK_DIAG_*), else iparam[2] is it; masked_fill:
 * iparam[1] the mask's rank, iparam[2..5] its shape (a leading dim not 1, at x's rank, follows x's, which the
 * zero-size run empties), iparam[6] its layout. fparam[0]: masked_fill's value. */
enum { MK_TRIL, MK_TRIU, MK_MASKED_FILL };
enum { MK_DIAG_GIVEN, MK_DIAG_MAX, MK_DIAG_MIN };

static int64_t diagonal_of(const wkt_case *c)
{
    return c->iparam[1] == MK_DIAG_MAX ? INT64_MAX : c->iparam[1] == MK_DIAG_MIN ? INT64_MIN : c->iparam[2];
}

/* The value as wk_fill stores it in dt: floats rounded (the cases use values exact in f32), ints truncated toward
 * zero and saturated, NaN -> 0. */
static double ref_value(wk_dtype dt, double v)
{
    if (wk_dtype_is_float(dt))
        return wkt_round_to(dt, v);
    if (isnan(v))
        return 0;
    double lo, hi;
    ew_int_range(dt, &lo, &hi);
    if (dt == WK_I64)
        lo = -9223372036854775808.0, hi = 9223372036854775807.0;
    v = trunc(v);
    return v < lo ? lo : v > hi ? hi : v;
}

/* x's values: NaN and infinities among floats, the extremes among ints. */
static double draw(const wkt_case *c, wkt_rng *rng)
{
    if (wk_dtype_is_float(c->dtype))
        return ew_float(rng, c->dtype, -100, 100, true);
    wkt_dist d = wkt_dist_default(c->dtype);
    return ew_int(rng, c->dtype, d.lo, d.hi, true);
}

/* Element i (row-major over x's shape) of the broadcast mask m of rank mr, shape ms. */
static double mask_at(const int64_t *xs, int xr, const double *m, int mr, const int64_t *ms, int64_t i)
{
    int64_t off = 0, mul = 1;
    for (int d = xr - 1; d >= 0; d--) {
        int64_t k = i % xs[d];
        i /= xs[d];
        int md = d - (xr - mr);
        if (md >= 0) {
            off += (ms[md] == 1 ? 0 : k) * mul;
            mul *= ms[md];
        }
    }
    return m[off];
}

/* want[] for x's values xv; mv the mask's (masked_fill). */
static void reference(const wkt_case *c, const double *xv, const double *mv, const int64_t *ms, double *want,
                      int64_t n)
{
    int64_t rows = c->rank >= 2 ? c->shape[c->rank - 2] : 1, cols = c->rank >= 1 ? c->shape[c->rank - 1] : 1;
    int64_t dg = diagonal_of(c);
    double v = ref_value(c->dtype, c->fparam[0]);
    for (int64_t e = 0; e < n; e++) {
        if (c->iparam[0] == MK_MASKED_FILL) {
            want[e] = mask_at(c->shape, c->rank, mv, c->iparam[1], ms, e) != 0 ? v : xv[e];
            continue;
        }
        int64_t j = e % cols, i = (e / cols) % rows;
        bool keep = c->iparam[0] == MK_TRIL ? j - i <= dg : j - i >= dg; /* j - i is small: no overflow */
        want[e] = keep ? xv[e] : 0.0;
    }
}

static wk_status call_op(const wkt_case *c, const wk_tensor *x, const wk_tensor *m, wk_tensor **o)
{
    switch (c->iparam[0]) {
    case MK_TRIL: return wk_tril(x, diagonal_of(c), o);
    case MK_TRIU: return wk_triu(x, diagonal_of(c), o);
    default: return wk_masked_fill(x, m, c->fparam[0], o);
    }
}

static void run(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int64_t n = 1, mn = 1, ms[4] = {1, 1, 1, 1};
    int mr = c->iparam[0] == MK_MASKED_FILL ? c->iparam[1] : 0;
    for (int i = 0; i < c->rank; i++)
        n *= c->shape[i];
    for (int i = 0; i < mr; i++) {
        ms[i] = c->iparam[2 + i];
        if (i == 0 && mr == c->rank && ms[0] != 1)
            ms[0] = c->shape[0];
        mn *= ms[i];
    }
    double *xv = malloc((size_t)n * sizeof *xv + 1), *mv = malloc((size_t)mn * sizeof *mv + 1);
    double *want = malloc((size_t)n * sizeof *want + 1), *got = NULL;
    wk_tensor *x = NULL, *m = NULL, *o = NULL;
    if (!xv || !mv || !want) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    for (int64_t i = 0; i < n; i++)
        xv[i] = draw(c, rng);
    for (int64_t i = 0; i < mn; i++) /* about half set; non-zero values other than 1 fill too */
        mv[i] = wkt_rng_int(rng, 0, 1) ? 0 : (double)(wkt_rng_int(rng, 0, 3) ? 1 : wkt_rng_int(rng, 2, 255));
    wkt_dist d = {-100, 100};
    if (wkt_failed(ew_tensor(dev, c->dtype, c->rank, c->shape, c->layout, d, rng, &xv, &x), r, "make x") ||
        (c->iparam[0] == MK_MASKED_FILL &&
         wkt_failed(wkt_make_from(dev, WK_U8, mr, ms, (wkt_layout)c->iparam[6], mv, &m), r, "make mask")) ||
        wkt_failed(call_op(c, x, m, &o), r, c->op))
        goto done;
    got = ew_read(o, c->dtype, c->rank, c->shape, r);
    if (!got)
        goto done;
    reference(c, xv, mv, ms, want, n);
    wkt_compare(c->dtype, got, want, n, 0, true, r);
done:
    free(xv);
    free(mv);
    free(want);
    free(got);
    wk_tensor_release(x);
    wk_tensor_release(m);
    wk_tensor_release(o);
}

/* ---- the table */

static const wk_dtype all_dtypes[] = {WK_U8, WK_U32, WK_I32, WK_I64, WK_F16, WK_BF16, WK_F32, WK_F64};
static const wkt_layout strided[] = {WKT_TRANSPOSED, WKT_PERMUTED, WKT_BROADCAST, WKT_OFFSET};

static void add(wkt_list *l, int kind, wk_dtype dt, wkt_layout layout, int rank, const int64_t *shape,
                const int *ip, double value)
{
    static const char *const names[] = {"tril", "triu", "masked_fill"};
    wkt_case c = {.family = "mask", .dtype = dt, .layout = layout, .rank = rank, .run = run, .fparam = {value}};
    snprintf(c.op, sizeof c.op, "%s", names[kind]);
    c.iparam[0] = kind;
    for (int i = 1; i < 8; i++)
        c.iparam[i] = ip[i - 1];
    for (int i = 0; i < rank; i++)
        c.shape[i] = shape[i];
    wkt_add(l, &c);
}

static void tri_cases(wkt_list *l)
{
    static const int64_t mat[] = {7, 9}, cube[] = {3, 6, 9}, rows[] = {96, 256}, sq[] = {2, 64, 64},
                         empty[] = {4, 0, 3}, batch4[] = {2, 3, 5, 8};
    static const int diags[][2] = {{MK_DIAG_GIVEN, 0}, {MK_DIAG_GIVEN, 2}, {MK_DIAG_GIVEN, -3},
                                   {MK_DIAG_GIVEN, 100}, {MK_DIAG_GIVEN, -100}, {MK_DIAG_MAX, 0}, {MK_DIAG_MIN, 0}};
    for (int kind = MK_TRIL; kind <= MK_TRIU; kind++) {
        for (size_t k = 0; k < sizeof all_dtypes / sizeof *all_dtypes; k++) {
            wk_dtype dt = all_dtypes[k];
            int ip[7] = {MK_DIAG_GIVEN, (int)k % 3 - 1};
            add(l, kind, dt, WKT_CONTIG, 2, mat, ip, 0);
            add(l, kind, dt, strided[(k + (size_t)kind) % 4], 3, cube, ip, 0);
            add(l, kind, dt, k % 2 ? WKT_OFFSET : WKT_CONTIG, 3, sq, ip, 0); /* vectors of out along a row */
        }
        for (size_t d = 0; d < sizeof diags / sizeof *diags; d++) {
            int ip[7] = {diags[d][0], diags[d][1]};
            add(l, kind, WK_F32, d % 2 ? WKT_TRANSPOSED : WKT_CONTIG, 2, mat, ip, 0);
            add(l, kind, WK_U8, WKT_CONTIG, 4, batch4, ip, 0);
        }
        int ip[7] = {MK_DIAG_GIVEN, 1};
        add(l, kind, WK_F32, WKT_CONTIG, 2, rows, ip, 0);   /* above the threading grain */
        add(l, kind, WK_BF16, WKT_PERMUTED, 3, sq, ip, 0);
        add(l, kind, WK_I64, WKT_CONTIG, 3, empty, ip, 0);
    }
}

static void masked_fill_cases(wkt_list *l)
{
    static const int64_t x4[] = {2, 3, 8, 16}, flat[] = {37, 61}, rows[] = {96, 512}, empty[] = {4, 0, 3};
    /* mask rank, shape, layout */
    static const int masks[][7] = {
        {4, 2, 3, 8, 16, WKT_CONTIG}, {2, 8, 16, 0, 0, WKT_CONTIG}, {4, 1, 1, 8, 16, WKT_TRANSPOSED},
        {4, 2, 1, 1, 16, WKT_CONTIG}, {3, 3, 8, 1, 0, WKT_CONTIG}, {0, 0, 0, 0, 0, WKT_CONTIG},
        {4, 2, 3, 8, 16, WKT_OFFSET}, {1, 16, 0, 0, 0, WKT_CONTIG},
    };
    static const double values[] = {-INFINITY, 2.5, -10000, NAN, 1e30, -7.9, 300};
    for (size_t k = 0; k < sizeof all_dtypes / sizeof *all_dtypes; k++) {
        wk_dtype dt = all_dtypes[k];
        for (size_t m = 0; m < sizeof masks / sizeof *masks; m++)
            add(l, MK_MASKED_FILL, dt, m == k % 8 ? strided[k % 4] : WKT_CONTIG, 4, x4, masks[m],
                values[(k + m) % 7]);
        int same2[7] = {2, 37, 61, 0, 0, WKT_CONTIG};
        add(l, MK_MASKED_FILL, dt, strided[(k + 1) % 4], 2, flat, same2, values[k % 7]);
    }
    int big[7] = {2, 96, 512, 0, 0, WKT_CONTIG}, col[7] = {2, 96, 1, 0, 0, WKT_CONTIG};
    int e3[7] = {3, 4, 1, 3, 0, WKT_CONTIG}, sc[7] = {0};
    add(l, MK_MASKED_FILL, WK_F32, WKT_CONTIG, 2, rows, big, -INFINITY); /* threaded */
    add(l, MK_MASKED_FILL, WK_F16, WKT_CONTIG, 2, rows, col, -10000);
    add(l, MK_MASKED_FILL, WK_U8, WKT_OFFSET, 2, rows, big, 7);
    add(l, MK_MASKED_FILL, WK_F64, WKT_CONTIG, 0, NULL, sc, 1.5);
    add(l, MK_MASKED_FILL, WK_I32, WKT_CONTIG, 3, empty, e3, 1);
}

static void cases(wkt_list *l)
{
    tri_cases(l);
    masked_fill_cases(l);
}

/* ---- error paths */

static void errors(wkt_errctx *e)
{
    const int64_t s2[2] = {2, 3}, s1[1] = {3}, s3[3] = {4, 2, 3}, bad[2] = {3, 3};
    wk_tensor *x = NULL, *x1 = NULL, *m = NULL, *mi = NULL, *m3 = NULL, *mb = NULL, *o = NULL;
    if (wk_tensor_empty(e->dev, WK_F32, 2, s2, &x) != WK_OK || wk_tensor_empty(e->dev, WK_F32, 1, s1, &x1) != WK_OK ||
        wk_tensor_empty(e->dev, WK_U8, 2, s2, &m) != WK_OK || wk_tensor_empty(e->dev, WK_I32, 2, s2, &mi) != WK_OK ||
        wk_tensor_empty(e->dev, WK_U8, 3, s3, &m3) != WK_OK || wk_tensor_empty(e->dev, WK_U8, 2, bad, &mb) != WK_OK) {
        e->checks++, e->failures++;
        printf("FAIL mask errors: cannot make inputs: %s\n", wk_last_error());
        goto done;
    }
    EW_EXPECT(e, o, wk_tril(x1, 0, &o), WK_ERR_SHAPE, "tril");
    EW_EXPECT(e, o, wk_triu(x1, 0, &o), WK_ERR_SHAPE, "triu");
    EW_EXPECT(e, o, wk_tril(NULL, 0, &o), WK_ERR_INVALID_ARGUMENT, "tril");
    EW_EXPECT(e, o, wk_triu(x, 0, NULL), WK_ERR_INVALID_ARGUMENT, "triu");
    EW_EXPECT(e, o, wk_masked_fill(x, mi, 0, &o), WK_ERR_DTYPE, "masked_fill");
    EW_EXPECT(e, o, wk_masked_fill(x, m3, 0, &o), WK_ERR_SHAPE, "masked_fill"); /* would broaden x */
    EW_EXPECT(e, o, wk_masked_fill(x, mb, 0, &o), WK_ERR_SHAPE, "masked_fill");
    EW_EXPECT(e, o, wk_masked_fill(NULL, m, 0, &o), WK_ERR_INVALID_ARGUMENT, "masked_fill");
    EW_EXPECT(e, o, wk_masked_fill(x, NULL, 0, &o), WK_ERR_INVALID_ARGUMENT, "masked_fill");
    EW_EXPECT(e, o, wk_masked_fill(x, m, 0, NULL), WK_ERR_INVALID_ARGUMENT, "masked_fill");
done:
    wk_tensor_release(x);
    wk_tensor_release(x1);
    wk_tensor_release(m);
    wk_tensor_release(mi);
    wk_tensor_release(m3);
    wk_tensor_release(mb);
}

const wkt_family wkt_family_mask = {.name = "mask", .cases = cases, .errors = errors};
