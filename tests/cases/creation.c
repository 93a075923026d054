/* creation.c: case family 'creation': zeros, ones, full, fill (in place on strided views), arange here;
 * casts, random numbers and copies in creation_cast.c, creation_rand.c and creation_copy.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "creation.h"

/* Values for full/fill, each converted by wk_cast's rules: fractions, out of range, NaN, inf, half-way. */
static const double fill_values[] = {3.75, -2.5, 300.7, -1e10, NAN, INFINITY, -INFINITY, 1 + 0x1p-11 + 0x1p-40,
                                     70000, 1e300, 0x1p-25 * 3, -0.0};
#define FILL_VALUE_COUNT ((int)(sizeof fill_values / sizeof fill_values[0]))

static int64_t numel_of(const wkt_case *c)
{
    int64_t n = 1;
    for (int i = 0; i < c->rank; i++)
        n *= c->shape[i];
    return n;
}

/* Checks that t is a new contiguous tensor of the case's dtype and shape. */
static bool check_fresh(const wkt_case *c, const wk_tensor *t, int rank, const int64_t *shape, wkt_result *r)
{
    if (wk_tensor_dtype(t) != c->dtype || wk_tensor_rank(t) != rank || !wk_tensor_is_contiguous(t) ||
        (rank && memcmp(wk_tensor_shape(t), shape, (size_t)rank * sizeof *shape) != 0)) {
        wkt_fail(r, "result has the wrong dtype, shape or layout");
        return false;
    }
    return true;
}

/* iparam[0]: 0 zeros, 1 ones, 2 full with fill_values[iparam[1]]. */
static void run_full(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    (void)rng;
    int64_t n = numel_of(c);
    size_t es = wk_dtype_size(c->dtype);
    double value = c->iparam[0] == 0 ? 0 : c->iparam[0] == 1 ? 1 : fill_values[c->iparam[1]];
    wk_tensor *t = NULL;
    void *want = malloc((size_t)n * es + 1), *got = NULL;
    wk_status s = c->iparam[0] == 0   ? wk_zeros(dev, c->dtype, c->rank, c->shape, &t)
                  : c->iparam[0] == 1 ? wk_ones(dev, c->dtype, c->rank, c->shape, &t)
                                      : wk_full(dev, c->dtype, c->rank, c->shape, value, &t);
    if (!want)
        wkt_fail(r, "out of host memory");
    else if (!wkt_failed(s, r, c->op) && check_fresh(c, t, c->rank, c->shape, r) && crt_read(t, &got, r)) {
        for (int64_t i = 0; i < n; i++)
            crt_from_double(c->dtype, value, want, i);
        crt_compare(c->dtype, got, want, n, c->op, r);
    }
    free(want);
    free(got);
    wk_tensor_release(t);
}

/* In place on a strided view (the case's layout) of a larger storage: the view's elements take the value,
 * every other element of the storage keeps its own. iparam[1]: index into fill_values. */
static void run_fill(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int64_t n = numel_of(c);
    size_t es = wk_dtype_size(c->dtype);
    double value = fill_values[c->iparam[1]];
    void *logical = malloc((size_t)n * es + 1), *want = NULL, *got = NULL;
    crt_view v = {0};
    wk_tensor *all = NULL;
    if (!logical) {
        wkt_fail(r, "out of host memory");
        return;
    }
    crt_random(c->dtype, logical, n, false, rng);
    if (wkt_failed(crt_make(dev, c->dtype, c->rank, c->shape, c->layout, logical, 0x33, &v), r, "make view"))
        goto done;
    int64_t one = 1;
    if (wkt_failed(wk_as_strided(v.t, 1, &v.phys_n, &one, 0, &all), r, "storage view"))
        goto done;
    want = malloc((size_t)v.phys_n * es + 1);
    if (!want) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    memcpy(want, v.phys, (size_t)v.phys_n * es);
    for (int64_t i = 0; i < n; i++)
        crt_from_double(c->dtype, value, want, v.map[i]);
    if (wkt_failed(wk_fill(v.t, value), r, "fill") || !crt_read(all, &got, r))
        goto done;
    crt_compare(c->dtype, got, want, v.phys_n, "storage after fill", r);
done:
    free(logical);
    free(want);
    free(got);
    wk_tensor_release(all);
    crt_view_free(&v);
}

typedef struct arange_params { double start, end, step; } arange_params;
static const arange_params arange_sets[] = {
    {0, 10, 1}, {-5.5, 7.25, 0.75}, {10, -3, -1.5}, {0, 1000, 3}, {-300, 300, 7}, {1, 1, 1},
    {5, 0, 1}, {0, 40000, 1}, {2147483000.0, 2147484000.0, 100}, {0.1, 0.35, 0.05},
};
#define ARANGE_SET_COUNT ((int)(sizeof arange_sets / sizeof arange_sets[0]))

/* iparam[0]: index into arange_sets. */
static void run_arange(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    (void)rng;
    arange_params p = arange_sets[c->iparam[0]];
    double len = ceil((p.end - p.start) / p.step);
    int64_t n = len > 0 ? (int64_t)len : 0;
    wk_tensor *t = NULL;
    void *want = malloc((size_t)n * wk_dtype_size(c->dtype) + 1), *got = NULL;
    wk_status s = wk_arange(dev, c->dtype, p.start, p.end, p.step, &t);
    if (!want)
        wkt_fail(r, "out of host memory");
    else if (!wkt_failed(s, r, "arange") && check_fresh(c, t, 1, &n, r) && crt_read(t, &got, r)) {
        for (int64_t i = 0; i < n; i++)
            crt_from_double(c->dtype, p.start + (double)i * p.step, want, i);
        crt_compare(c->dtype, got, want, n, "arange", r);
    }
    free(want);
    free(got);
    wk_tensor_release(t);
}

static void add(wkt_list *l, const char *op, wk_dtype dt, wkt_layout layout, int rank, const int64_t *shape,
                wkt_run_fn run, int p0, int p1)
{
    wkt_case c = {.family = "creation", .dtype = dt, .layout = layout, .rank = rank, .run = run};
    snprintf(c.op, sizeof c.op, "%s", op);
    if (rank)
        memcpy(c.shape, shape, (size_t)rank * sizeof *shape);
    c.iparam[0] = p0;
    c.iparam[1] = p1;
    wkt_add(l, &c);
}

static void cases(wkt_list *l)
{
    static const int64_t small[] = {3, 4, 5}, empty[] = {2, 0, 3}, big[] = {40000}, cube[] = {3, 5, 7};
    static const wkt_layout in_place[] = {WKT_CONTIG, WKT_TRANSPOSED, WKT_PERMUTED, WKT_OFFSET};
    for (int d = 0; d < WK_DTYPE_COUNT; d++) {
        wk_dtype dt = (wk_dtype)d;
        add(l, "zeros", dt, WKT_CONTIG, 3, small, run_full, 0, 0);
        add(l, "ones", dt, WKT_CONTIG, 3, small, run_full, 1, 0);
        add(l, "zeros", dt, WKT_CONTIG, 3, empty, run_full, 0, 0);
        add(l, "ones", dt, WKT_CONTIG, 0, NULL, run_full, 1, 0);
        add(l, "ones", dt, WKT_CONTIG, 1, big, run_full, 1, 0);
        for (int k = (d & 1); k < FILL_VALUE_COUNT; k += 2)
            add(l, "full", dt, WKT_CONTIG, k % 3 == 2 ? 0 : 2, small, run_full, 2, k);
        for (int k = 0; k < 4; k++)
            add(l, "fill", dt, in_place[k], 3, cube, run_fill, 0, (d + k) % FILL_VALUE_COUNT);
        add(l, "fill", dt, WKT_OFFSET, 0, NULL, run_fill, 0, (d + 4) % FILL_VALUE_COUNT);
        add(l, "fill", dt, WKT_TRANSPOSED, 3, empty, run_fill, 0, 0);
        add(l, "fill", dt, WKT_TRANSPOSED, 2, (const int64_t[]){190, 180}, run_fill, 0, (d + 5) % FILL_VALUE_COUNT);
        for (int k = (d & 1); k < ARANGE_SET_COUNT; k += 2)
            add(l, "arange", dt, WKT_CONTIG, 0, NULL, run_arange, k, 0);
    }
    crt_cast_cases(l);
    crt_rand_cases(l);
    crt_copy_cases(l);
}

static void errors(wkt_errctx *e)
{
    int64_t shape[2] = {2, 3}, bad[2] = {2, -1};
    wk_tensor *o = NULL, *x = NULL, *b = NULL;
    wk_device *dev = e->dev;
    WKT_EXPECT(e, wk_zeros(NULL, WK_F32, 2, shape, &o), WK_ERR_INVALID_ARGUMENT, "zeros");
    WKT_EXPECT(e, wk_zeros(dev, WK_F32, 2, shape, NULL), WK_ERR_INVALID_ARGUMENT, "zeros");
    WKT_EXPECT(e, wk_zeros(dev, (wk_dtype)42, 2, shape, &o), WK_ERR_DTYPE, "zeros");
    WKT_EXPECT(e, wk_ones(dev, WK_F32, 2, bad, &o), WK_ERR_SHAPE, "ones");
    WKT_EXPECT(e, wk_ones(dev, WK_F32, 9, shape, &o), WK_ERR_SHAPE, "ones");
    WKT_EXPECT(e, wk_ones(dev, WK_F32, -1, shape, &o), WK_ERR_SHAPE, "ones");
    WKT_EXPECT(e, wk_full(dev, WK_I32, 2, NULL, 1.0, &o), WK_ERR_INVALID_ARGUMENT, "full");
    WKT_EXPECT(e, wk_full(dev, WK_I32, 2, (const int64_t[]){INT64_C(1) << 40, INT64_C(1) << 40}, 1.0, &o),
               WK_ERR_SHAPE, "full");
    WKT_EXPECT(e, wk_arange(dev, WK_F32, 0, 10, 0, &o), WK_ERR_INVALID_ARGUMENT, "arange");
    WKT_EXPECT(e, wk_arange(dev, WK_F32, 0, NAN, 1, &o), WK_ERR_INVALID_ARGUMENT, "arange");
    WKT_EXPECT(e, wk_arange(dev, WK_F32, 0, INFINITY, 1, &o), WK_ERR_INVALID_ARGUMENT, "arange");
    WKT_EXPECT(e, wk_arange(dev, WK_F32, 0, 1e300, 1, &o), WK_ERR_SHAPE, "arange");
    WKT_EXPECT(e, wk_arange(dev, (wk_dtype)8, 0, 10, 1, &o), WK_ERR_DTYPE, "arange");
    WKT_EXPECT(e, wk_arange(NULL, WK_F32, 0, 10, 1, &o), WK_ERR_INVALID_ARGUMENT, "arange");
    WKT_EXPECT(e, wk_arange(dev, WK_F32, 0, 10, 1, NULL), WK_ERR_INVALID_ARGUMENT, "arange");
    crt_expect_untouched(e, o, "zeros/ones/full/arange");

    /* fill: NULL, and a broadcast view (stride 0) is not a valid target; nothing changes */
    WKT_EXPECT(e, wk_fill(NULL, 1.0), WK_ERR_INVALID_ARGUMENT, "fill");
    int64_t wide[2] = {4, 3};
    if (wk_arange(dev, WK_F32, 0, 3, 1, &x) == WK_OK && wk_broadcast_to(x, 2, wide, &b) == WK_OK) {
        float before[3], after[3];
        wk_tensor_to_host(x, before, sizeof before);
        WKT_EXPECT(e, wk_fill(b, 7.0), WK_ERR_INVALID_ARGUMENT, "fill");
        wk_tensor_to_host(x, after, sizeof after);
        e->checks++;
        if (memcmp(before, after, sizeof before) != 0) {
            e->failures++;
            printf("FAIL fill: a failing fill changed its target\n");
        }
    } else {
        e->checks++;
        e->failures++;
        printf("FAIL fill errors: cannot make the input: %s\n", wk_last_error());
    }
    wk_tensor_release(b);
    wk_tensor_release(x);
    crt_cast_errors(e);
    crt_rand_errors(e);
    crt_copy_errors(e);
}

const wkt_family wkt_family_creation = {.name = "creation", .cases = cases, .errors = errors};
