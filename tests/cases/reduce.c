/* reduce.c: case family 'reduce': sum, mean, min, max over sets of dims and argmin/argmax over one dim,
 * against a plain float64 reference; error paths for bad dims, dtypes and empty reductions. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "special_inputs.h"

/* iparam: [0] kind (a wk_reduce_op, or ARGMIN / ARGMAX), [1] ndims, [2..5] dims (argmin/argmax: [2]),
 * [6] keepdim, [7] input_kind. fparam[0..1]: value range when fparam[2] != 0. */
enum { P_KIND, P_NDIMS, P_DIMS, P_KEEPDIM = 6, P_INPUT = 7 };
enum { ARGMIN = WK_REDUCE_COUNT, ARGMAX };

/* The reduced dims as a mask; ndims 0 means every dim. */
static void reduced_mask(int rank, int ndims, const int *dims, bool *mask)
{
    for (int d = 0; d < rank; d++)
        mask[d] = ndims == 0;
    for (int i = 0; i < ndims; i++)
        if (rank > 0)
            mask[dims[i] < 0 ? dims[i] + rank : dims[i]] = true;
}

/* Output index of every input element (kept dims, row-major), and the output's shape. */
static int64_t *output_index(int rank, const int64_t *shape, const bool *mask, bool keepdim, int *out_rank,
                             int64_t *out_shape, int64_t *nout)
{
    int64_t n = 1;
    *out_rank = 0;
    *nout = 1;
    for (int d = 0; d < rank; d++) {
        n *= shape[d];
        if (!mask[d])
            *nout *= shape[d];
        if (!mask[d] || keepdim)
            out_shape[(*out_rank)++] = mask[d] ? 1 : shape[d];
    }
    int64_t *map = malloc((size_t)n * sizeof *map + 1);
    if (!map)
        return NULL;
    for (int64_t i = 0; i < n; i++) {
        int64_t rem = i, o = 0, mul = 1;
        for (int d = rank - 1; d >= 0; d--) {
            int64_t idx = rem % shape[d];
            rem /= shape[d];
            if (!mask[d]) {
                o += idx * mul;
                mul *= shape[d];
            }
        }
        map[i] = o;
    }
    return map;
}

/* The reference: sum and mean in double (ints wrapped to the dtype at the end), min/max with NaN
 * propagating, argmin/argmax as the first index of the extreme with NaN the extreme. */
static void reference(int kind, wk_dtype dt, const double *x, int64_t n, const int64_t *map, int64_t nout,
                      int rank, const int64_t *shape, int dim, double *want)
{
    if (kind == ARGMIN || kind == ARGMAX) {
        int64_t inner = 1;
        for (int d = dim + 1; d < rank; d++)
            inner *= shape[d];
        int64_t len = rank > 0 ? shape[dim] : 1;
        for (int64_t o = 0; o < nout; o++) {
            int64_t base = o / inner * inner * len + o % inner, best = 0;
            for (int64_t i = 1; i < len && !isnan(x[base]); i++) {
                double v = x[base + i * inner], b = x[base + best * inner];
                if (isnan(b))
                    break;
                if (isnan(v) || (kind == ARGMIN ? v < b : v > b))
                    best = i;
            }
            want[o] = (double)best;
        }
        return;
    }
    int64_t *count = calloc((size_t)nout + 1, sizeof *count);
    for (int64_t o = 0; o < nout; o++)
        want[o] = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t o = map[i];
        double v = x[i], *w = &want[o];
        if (kind == WK_REDUCE_SUM || kind == WK_REDUCE_MEAN)
            *w += v;
        else if (count[o] == 0 || isnan(v))
            *w = v;
        else if (!isnan(*w))
            *w = kind == WK_REDUCE_MIN ? fmin(*w, v) : fmax(*w, v);
        count[o]++;
    }
    for (int64_t o = 0; o < nout; o++) {
        if (kind == WK_REDUCE_MEAN)
            want[o] = count[o] ? want[o] / (double)count[o] : NAN;
        else if (kind == WK_REDUCE_SUM && !wk_dtype_is_float(dt))
            want[o] = wkt_round_to(dt, want[o]);
    }
    free(count);
}

static void run_reduce(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int kind = c->iparam[P_KIND], ndims = c->iparam[P_NDIMS], dims[4];
    bool keepdim = c->iparam[P_KEEPDIM] != 0, arg = kind == ARGMIN || kind == ARGMAX;
    wk_tensor *x = NULL, *o = NULL;
    double *xv = NULL, *got = NULL, *want = NULL;
    int64_t *map = NULL;
    for (int i = 0; i < 4; i++)
        dims[i] = c->iparam[P_DIMS + i];
    bool mask[WK_MAX_RANK];
    int out_rank;
    int64_t out_shape[WK_MAX_RANK], nout;
    reduced_mask(c->rank, arg ? 1 : ndims, dims, mask);
    map = output_index(c->rank, c->shape, mask, keepdim, &out_rank, out_shape, &nout);
    want = malloc((size_t)nout * sizeof *want + 1);
    if (!map || !want) {
        wkt_fail(r, "out of memory");
        goto done;
    }
    /* A float sum of random signs can land near zero, where the relative error of a correctly rounded
     * f32 accumulation is unbounded: with few outputs, draw positive values. */
    wkt_dist dist = wkt_dist_default(c->dtype);
    bool sum_like = kind == WK_REDUCE_SUM || kind == WK_REDUCE_MEAN;
    if (c->fparam[2] != 0)
        dist = (wkt_dist){c->fparam[0], c->fparam[1]};
    else if (sum_like && wk_dtype_is_float(c->dtype) && nout <= 4)
        dist = (wkt_dist){0.25, 2};
    wk_status s;
    if (c->fparam[2] != 0 || dist.lo > 0 || (input_kind)c->iparam[P_INPUT] == INPUT_RANDOM)
        s = wkt_make(dev, c->dtype, c->rank, c->shape, c->layout, dist, rng, &x, &xv);
    else
        s = make_input(dev, c->dtype, c->rank, c->shape, c->layout, (input_kind)c->iparam[P_INPUT], rng, &x, &xv);
    if (wkt_failed(s, r, "make input"))
        goto done;
    if (kind == ARGMIN)
        s = wk_argmin(x, dims[0], keepdim, &o);
    else if (kind == ARGMAX)
        s = wk_argmax(x, dims[0], keepdim, &o);
    else
        s = wk_reduce((wk_reduce_op)kind, x, dims, ndims, keepdim, &o);
    if (wkt_failed(s, r, c->op))
        goto done;
    wk_dtype out_dt = arg ? WK_I64 : c->dtype;
    if (!check_shape(o, out_dt, out_rank, out_shape, r))
        goto done;
    if (wkt_failed(wkt_read(o, &got), r, "read"))
        goto done;
    int dim = c->rank > 0 && dims[0] < 0 ? dims[0] + c->rank : dims[0];
    reference(kind, c->dtype, xv, wk_tensor_numel(x), map, nout, c->rank, c->shape, dim, want);
    bool exact = arg || kind == WK_REDUCE_MIN || kind == WK_REDUCE_MAX;
    wkt_compare(out_dt, got, want, nout, wkt_tol(c->dtype, WKT_TOL_ELEMENTWISE), exact, r);
done:
    wk_tensor_release(x);
    wk_tensor_release(o);
    free(xv);
    free(got);
    free(want);
    free(map);
}

/* ---------------------------------------------------------------- the table */
static const char *const kind_names[] = {"reduce_sum", "reduce_min", "reduce_max", "reduce_mean", "argmin", "argmax"};
static const wk_dtype all_dtypes[] = {WK_U8, WK_U32, WK_I32, WK_I64, WK_F16, WK_BF16, WK_F32, WK_F64};

/* Dim sets for the rank-3 shapes: {ndims, dims...}: leading, last, middle, two, all, two (negative). */
static const int dim_sets[][4] = {{1, 0}, {1, -1}, {1, 1}, {2, 0, 2}, {0}, {2, -1, 0}};
#define NSETS (int)(sizeof dim_sets / sizeof dim_sets[0])

static void add_case(wkt_list *l, int kind, wk_dtype dt, wkt_layout layout, int rank, const int64_t *shape,
                     const int *set, bool keepdim, input_kind input)
{
    wkt_case c = {.family = "reduce", .dtype = dt, .layout = layout, .rank = rank, .run = run_reduce};
    snprintf(c.op, sizeof c.op, "%s", kind_names[kind]);
    if (rank > 0)
        memcpy(c.shape, shape, (size_t)rank * sizeof *shape);
    c.iparam[P_KIND] = kind;
    c.iparam[P_NDIMS] = set[0];
    for (int i = 0; i < set[0]; i++)
        c.iparam[P_DIMS + i] = set[1 + i];
    c.iparam[P_KEEPDIM] = keepdim;
    c.iparam[P_INPUT] = input;
    wkt_add(l, &c);
}

static void cases(wkt_list *l)
{
    /* every kind x dtype x layout, rotating through the dim sets and keepdim */
    static const int64_t shape[3] = {9, 5, 8};
    for (int kind = 0; kind <= ARGMAX; kind++)
        for (int t = 0; t < 8; t++) {
            wk_dtype dt = all_dtypes[t];
            if (kind == WK_REDUCE_MEAN && !wk_dtype_is_float(dt))
                continue;
            for (int lay = 0; lay < WKT_LAYOUT_COUNT; lay++) {
                int k = lay + t + kind;
                int set[4] = {1, k % 3 - 1}; /* argmin/argmax: dims -1, 0, 1 */
                input_kind input = kind >= ARGMIN && k % 2 ? INPUT_TIES : INPUT_RANDOM;
                add_case(l, kind, dt, (wkt_layout)lay, 3, shape, kind >= ARGMIN ? set : dim_sets[k % NSETS], k % 2,
                         input);
            }
        }
    /* NaN inputs (with ties) for min/max/argmin/argmax on every float dtype */
    static const wk_dtype floats[] = {WK_F16, WK_BF16, WK_F32, WK_F64};
    static const int last[2] = {1, -1}, lead[2] = {1, 0};
    for (int kind = WK_REDUCE_MIN; kind <= ARGMAX; kind++) {
        if (kind == WK_REDUCE_MEAN)
            continue;
        for (int t = 0; t < 4; t++) {
            add_case(l, kind, floats[t], WKT_CONTIG, 3, shape, t % 2 ? last : lead, false, INPUT_NAN);
            add_case(l, kind, floats[t], WKT_TRANSPOSED, 3, shape, t % 2 ? lead : last, true, INPUT_NAN);
        }
    }
    /* zero-sized kept dims, empty reductions (sum 0, mean NaN), rank 0 and rank 1 */
    static const int64_t empty_rows[3] = {0, 5, 3}, empty_red[3] = {4, 0, 3}, vec[1] = {37};
    static const int mid[2] = {1, 1}, all[1] = {0}, scalar0[2] = {1, 0}, scalar_neg[2] = {1, -1};
    for (int kind = 0; kind <= ARGMAX; kind++) {
        wk_dtype dt = kind == WK_REDUCE_MEAN ? WK_F32 : kind % 2 ? WK_I32 : WK_F32;
        add_case(l, kind, dt, WKT_CONTIG, 3, empty_rows, mid, kind % 2, INPUT_RANDOM);
        add_case(l, kind, WK_F64, WKT_CONTIG, 0, NULL, kind % 2 ? scalar0 : scalar_neg, kind % 2, INPUT_RANDOM);
        add_case(l, kind, dt, WKT_OFFSET, 1, vec, kind >= ARGMIN ? scalar0 : all, kind % 2 == 0, INPUT_TIES);
        if (kind == WK_REDUCE_SUM || kind == WK_REDUCE_MEAN) {
            add_case(l, kind, WK_F32, WKT_CONTIG, 3, empty_red, mid, true, INPUT_RANDOM);
            add_case(l, kind, WK_F64, WKT_PERMUTED, 3, empty_red, all, false, INPUT_RANDOM);
            add_case(l, kind, WK_BF16, WKT_CONTIG, 0, NULL, all, false, INPUT_RANDOM);
        }
    }
    /* bigger than the thread grain: threaded rows, one long row split across threads, the gather path
     * with many chunks, and leading-dim reductions (column path) */
    static const int64_t wide[2] = {64, 1024}, tall[2] = {1024, 64}, big[2] = {300, 400}, row[1] = {150000};
    add_case(l, WK_REDUCE_SUM, WK_F32, WKT_CONTIG, 2, wide, last, false, INPUT_RANDOM);
    add_case(l, WK_REDUCE_SUM, WK_F32, WKT_CONTIG, 2, tall, lead, true, INPUT_RANDOM);
    add_case(l, WK_REDUCE_SUM, WK_F32, WKT_CONTIG, 1, row, all, false, INPUT_RANDOM);
    add_case(l, WK_REDUCE_SUM, WK_F32, WKT_TRANSPOSED, 2, big, all, false, INPUT_RANDOM);
    add_case(l, WK_REDUCE_SUM, WK_I64, WKT_PERMUTED, 3, (const int64_t[]){40, 30, 50}, dim_sets[5], false,
             INPUT_RANDOM);
    add_case(l, WK_REDUCE_MEAN, WK_F64, WKT_OFFSET, 2, big, lead, false, INPUT_RANDOM);
    add_case(l, WK_REDUCE_MEAN, WK_BF16, WKT_CONTIG, 1, row, all, true, INPUT_RANDOM);
    add_case(l, WK_REDUCE_SUM, WK_F64, WKT_OFFSET, 2, (const int64_t[]){3, 70000}, last, true, INPUT_RANDOM);
    add_case(l, WK_REDUCE_MIN, WK_F32, WKT_CONTIG, 1, row, all, false, INPUT_NAN);
    add_case(l, WK_REDUCE_MAX, WK_I32, WKT_TRANSPOSED, 2, big, last, false, INPUT_RANDOM);
    add_case(l, WK_REDUCE_MAX, WK_F16, WKT_CONTIG, 2, tall, lead, false, INPUT_NAN);
    add_case(l, ARGMAX, WK_F32, WKT_CONTIG, 2, wide, last, false, INPUT_TIES);
    /* long contiguous rows with a NaN somewhere in some of them (the vectorised two-pass paths) */
    static const int64_t rows[2] = {70, 1000};
    add_case(l, ARGMAX, WK_F32, WKT_CONTIG, 2, rows, last, false, INPUT_RARE_NAN);
    add_case(l, ARGMIN, WK_BF16, WKT_OFFSET, 2, rows, last, true, INPUT_RARE_NAN);
    add_case(l, ARGMAX, WK_I32, WKT_CONTIG, 2, rows, last, false, INPUT_TIES);
    add_case(l, WK_REDUCE_MAX, WK_F32, WKT_CONTIG, 2, rows, last, false, INPUT_RARE_NAN);
    add_case(l, WK_REDUCE_MIN, WK_F64, WKT_CONTIG, 2, rows, lead, false, INPUT_RARE_NAN);
    add_case(l, ARGMIN, WK_F64, WKT_CONTIG, 2, tall, lead, false, INPUT_NAN);
    add_case(l, ARGMIN, WK_U8, WKT_BROADCAST, 2, big, lead, true, INPUT_TIES);
    /* leading-dim min/max and argmin/argmax (the column paths) for every dtype, above the thread grain:
     * the dtype's extremes, signed zeros, infinities and NaNs in scattered rows; argmin/argmax over more
     * rows than a column block (512) and in two tiles */
    static const int64_t lead_minmax[2] = {600, 70}, lead_arg[2] = {600, 130};
    for (int t = 0; t < 8; t++) {
        add_case(l, WK_REDUCE_MIN, all_dtypes[t], WKT_CONTIG, 2, lead_minmax, lead, false, INPUT_WIDE);
        add_case(l, WK_REDUCE_MAX, all_dtypes[t], WKT_OFFSET, 2, lead_minmax, lead, true, INPUT_WIDE);
        add_case(l, ARGMIN, all_dtypes[t], WKT_OFFSET, 2, lead_arg, lead, false, INPUT_WIDE);
        add_case(l, ARGMAX, all_dtypes[t], WKT_CONTIG, 2, lead_arg, lead, true, INPUT_WIDE);
    }
    add_case(l, WK_REDUCE_SUM, WK_F16, WKT_CONTIG, 2, lead_minmax, lead, false, INPUT_RANDOM);
    /* sums over dim 0 of tall matrices (the vector column path: 8 rows a step for 4- and 8-byte dtypes, 4 for
     * 16-bit, every 32 rows into the total; rows left over a step), and its scalar fallbacks (a width that is
     * not whole vectors, rows that start unaligned) */
    add_case(l, WK_REDUCE_SUM, WK_F32, WKT_CONTIG, 2, (const int64_t[]){3001, 132}, lead, false, INPUT_RANDOM);
    add_case(l, WK_REDUCE_SUM, WK_F64, WKT_CONTIG, 2, (const int64_t[]){2003, 34}, lead, true, INPUT_RANDOM);
    add_case(l, WK_REDUCE_SUM, WK_BF16, WKT_CONTIG, 2, (const int64_t[]){1500, 72}, lead, false, INPUT_RANDOM);
    add_case(l, WK_REDUCE_SUM, WK_I32, WKT_CONTIG, 2, (const int64_t[]){1203, 36}, lead, false, INPUT_RANDOM);
    add_case(l, WK_REDUCE_MEAN, WK_F32, WKT_CONTIG, 2, (const int64_t[]){777, 256}, lead, false, INPUT_RANDOM);
    add_case(l, WK_REDUCE_SUM, WK_F32, WKT_CONTIG, 2, (const int64_t[]){1003, 130}, lead, false, INPUT_RANDOM);
    add_case(l, WK_REDUCE_SUM, WK_F32, WKT_OFFSET, 2, (const int64_t[]){2000, 64}, lead, false, INPUT_RANDOM);
    add_case(l, WK_REDUCE_SUM, WK_F32, WKT_CONTIG, 2, (const int64_t[]){7, 64}, lead, false, INPUT_RANDOM);
    /* -0 and +0 as the maximum (a tie), in the column and the row paths */
    static const int64_t zeros[3] = {40, 3, 17};
    for (int t = 4; t < 8; t++) {
        add_case(l, ARGMAX, all_dtypes[t], WKT_CONTIG, 3, zeros, lead, false, INPUT_ZEROS);
        add_case(l, ARGMAX, all_dtypes[t], WKT_PERMUTED, 3, zeros, last, false, INPUT_ZEROS);
        add_case(l, WK_REDUCE_MAX, all_dtypes[t], WKT_CONTIG, 3, zeros, lead, false, INPUT_ZEROS);
    }
    /* integer sums that wrap */
    wkt_case c = {.family = "reduce", .op = "reduce_sum", .dtype = WK_I32, .layout = WKT_CONTIG, .rank = 2,
                  .shape = {7, 50}, .iparam = {WK_REDUCE_SUM, 1, -1}, .fparam = {1e9, 2.1e9, 1}, .run = run_reduce};
    wkt_add(l, &c);
    c.dtype = WK_U32;
    c.layout = WKT_TRANSPOSED;
    c.fparam[0] = 3e9;
    c.fparam[1] = 4.2e9;
    wkt_add(l, &c);
    c.dtype = WK_U8;
    c.fparam[0] = 100;
    c.fparam[1] = 255;
    wkt_add(l, &c);
}

/* ---------------------------------------------------------------- error paths */
static void errors(wkt_errctx *e)
{
    static char marker;
    wk_tensor *const before = (wk_tensor *)(void *)&marker;
    wk_tensor *x = NULL, *xi = NULL, *empty = NULL, *scalar = NULL, *o = before;
    const int64_t shape[2] = {3, 4}, empty_shape[2] = {3, 0};
    if (wk_tensor_empty(e->dev, WK_F32, 2, shape, &x) != WK_OK ||
        wk_tensor_empty(e->dev, WK_I32, 2, shape, &xi) != WK_OK ||
        wk_tensor_empty(e->dev, WK_F32, 2, empty_shape, &empty) != WK_OK ||
        wk_tensor_empty(e->dev, WK_F32, 0, NULL, &scalar) != WK_OK) {
        printf("FAIL reduce errors: cannot make inputs: %s\n", wk_last_error());
        e->failures++;
        goto done;
    }
    const int d0[1] = {0}, d2[1] = {2}, dm3[1] = {-3}, rep[2] = {0, 0}, rep_neg[2] = {1, -1}, three[3] = {0, 1, 0};
#define EXPECT_FAIL(call, status, op)           \
    do {                                        \
        WKT_EXPECT(e, call, status, op);        \
        expect_untouched(e, o, before, #call);  \
    } while (0)
    EXPECT_FAIL(wk_reduce(WK_REDUCE_SUM, NULL, d0, 1, false, &o), WK_ERR_INVALID_ARGUMENT, "reduce");
    WKT_EXPECT(e, wk_reduce(WK_REDUCE_SUM, x, d0, 1, false, NULL), WK_ERR_INVALID_ARGUMENT, "reduce");
    EXPECT_FAIL(wk_reduce(WK_REDUCE_SUM, x, NULL, 1, false, &o), WK_ERR_INVALID_ARGUMENT, "reduce");
    EXPECT_FAIL(wk_reduce((wk_reduce_op)WK_REDUCE_COUNT, x, d0, 1, false, &o), WK_ERR_INVALID_ARGUMENT, "reduce");
    EXPECT_FAIL(wk_reduce(WK_REDUCE_SUM, x, d2, 1, false, &o), WK_ERR_SHAPE, "reduce");
    EXPECT_FAIL(wk_reduce(WK_REDUCE_MAX, x, dm3, 1, true, &o), WK_ERR_SHAPE, "reduce");
    EXPECT_FAIL(wk_reduce(WK_REDUCE_SUM, x, rep, 2, false, &o), WK_ERR_SHAPE, "reduce");
    EXPECT_FAIL(wk_reduce(WK_REDUCE_MIN, x, rep_neg, 2, false, &o), WK_ERR_SHAPE, "reduce");
    EXPECT_FAIL(wk_reduce(WK_REDUCE_SUM, x, three, 3, false, &o), WK_ERR_SHAPE, "reduce");
    EXPECT_FAIL(wk_reduce(WK_REDUCE_SUM, x, d0, -1, false, &o), WK_ERR_SHAPE, "reduce");
    EXPECT_FAIL(wk_reduce(WK_REDUCE_MEAN, xi, d0, 1, false, &o), WK_ERR_DTYPE, "reduce mean");
    EXPECT_FAIL(wk_reduce(WK_REDUCE_MIN, empty, rep_neg + 1, 1, false, &o), WK_ERR_SHAPE, "reduce min");
    EXPECT_FAIL(wk_reduce(WK_REDUCE_MAX, empty, NULL, 0, true, &o), WK_ERR_SHAPE, "reduce max");
    EXPECT_FAIL(wk_reduce(WK_REDUCE_SUM, scalar, d2, 1, false, &o), WK_ERR_SHAPE, "reduce");
    EXPECT_FAIL(wk_reduce(WK_REDUCE_SUM, scalar, rep, 2, false, &o), WK_ERR_SHAPE, "reduce");
    EXPECT_FAIL(wk_argmin(NULL, 0, false, &o), WK_ERR_INVALID_ARGUMENT, "argmin");
    WKT_EXPECT(e, wk_argmax(x, 0, false, NULL), WK_ERR_INVALID_ARGUMENT, "argmax");
    EXPECT_FAIL(wk_argmax(x, 2, false, &o), WK_ERR_SHAPE, "argmax");
    EXPECT_FAIL(wk_argmin(x, -3, true, &o), WK_ERR_SHAPE, "argmin");
    EXPECT_FAIL(wk_argmin(empty, 1, false, &o), WK_ERR_SHAPE, "argmin");
    EXPECT_FAIL(wk_argmax(empty, -1, true, &o), WK_ERR_SHAPE, "argmax");
    EXPECT_FAIL(wk_argmax(scalar, 1, false, &o), WK_ERR_SHAPE, "argmax");
#undef EXPECT_FAIL
    e->checks++;
    if (strcmp(wk_reduce_name(WK_REDUCE_MEAN), "mean") != 0 ||
        strcmp(wk_reduce_name((wk_reduce_op)WK_REDUCE_COUNT), "invalid") != 0) {
        e->failures++;
        printf("FAIL wk_reduce_name\n");
    }
done:
    wk_tensor_release(x);
    wk_tensor_release(xi);
    wk_tensor_release(empty);
    wk_tensor_release(scalar);
}

const wkt_family wkt_family_reduce = {.name = "reduce", .cases = cases, .errors = errors};
