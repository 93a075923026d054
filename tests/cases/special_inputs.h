/* special_inputs.h: random inputs for the reduce and sort families with forced ties (small integer
 * values) and NaNs, in any harness layout (broadcast included), plus a shared check of output shapes. */
#ifndef WKT_SPECIAL_INPUTS_H
#define WKT_SPECIAL_INPUTS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef enum input_kind {
    INPUT_RANDOM, /* the harness's default distribution */
    INPUT_TIES,   /* integers in a range of 7 values: many equal elements */
    INPUT_NAN,    /* as INPUT_TIES, about one element in six NaN (float dtypes) */
    INPUT_RARE_NAN, /* as INPUT_TIES, one element in 2000 NaN: long rows with and without one, anywhere */
    INPUT_WIDE,     /* floats: uniform in [-2, 2), 1 in 100 each +0 and -0, 1 in 4000 each +inf and -inf, 1 in
                     * 1000 NaN; ints: uniform over the dtype's range (i64: +-2^62), 1 in 50 each its lowest
                     * and highest value */
    INPUT_ZEROS     /* floats: +0, -0 or -1 (1 in 3 each; max is a zero of either sign), 1 in 500 NaN;
                     * ints: 0 or 1 */
} input_kind;

/* The dtype's lowest and highest values, exact in a double (i64's highest rounded down). */
static inline void dtype_range(wk_dtype dt, double *lo, double *hi)
{
    switch (dt) {
    case WK_U8: *lo = 0, *hi = 255; break;
    case WK_U32: *lo = 0, *hi = 4294967295.0; break;
    case WK_I32: *lo = -2147483648.0, *hi = 2147483647.0; break;
    default: *lo = -0x1p63, *hi = 0x1p63 - 1024; break;
    }
}

static inline double draw_wide(wk_dtype dt, wkt_rng *rng)
{
    int64_t r = wkt_rng_int(rng, 0, 3999);
    if (wk_dtype_is_float(dt)) {
        if (r < 4)
            return NAN;
        if (r < 6)
            return r == 4 ? INFINITY : -INFINITY;
        if (r < 86)
            return r < 46 ? 0.0 : -0.0;
        return wkt_round_to(dt, wkt_rng_uniform(rng, -2, 2));
    }
    double lo, hi;
    dtype_range(dt, &lo, &hi);
    if (r < 160) /* 1 in 50 each */
        return r < 80 ? lo : hi;
    if (dt == WK_I64)
        return (double)wkt_rng_int(rng, -((int64_t)1 << 62), (int64_t)1 << 62);
    return (double)wkt_rng_int(rng, (int64_t)lo, (int64_t)hi);
}

static inline double draw_special(wk_dtype dt, input_kind kind, wkt_rng *rng)
{
    bool is_unsigned = dt == WK_U8 || dt == WK_U32;
    if (kind == INPUT_WIDE)
        return draw_wide(dt, rng);
    if (kind == INPUT_ZEROS) {
        int64_t r = wkt_rng_int(rng, 0, 1499);
        if (!wk_dtype_is_float(dt))
            return (double)(r % 2);
        return r < 3 ? NAN : r % 3 == 0 ? 0.0 : r % 3 == 1 ? -0.0 : -1.0;
    }
    if (wk_dtype_is_float(dt) && ((kind == INPUT_NAN && wkt_rng_int(rng, 0, 5) == 0) ||
                                   (kind == INPUT_RARE_NAN && wkt_rng_int(rng, 0, 1999) == 0)))
        return NAN;
    return (double)wkt_rng_int(rng, is_unsigned ? 0 : -3, is_unsigned ? 6 : 3);
}

/* As wkt_make, drawing values by `kind`. A broadcast layout is built as a broadcast_to view of a tensor
 * whose first dim of size > 1 is 1, so its values repeat along that dim as the harness's do. */
static inline wk_status make_input(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape,
                                   wkt_layout layout, input_kind kind, wkt_rng *rng, wk_tensor **t, double **vals)
{
    if (kind == INPUT_RANDOM)
        return wkt_make(dev, dt, rank, shape, layout, wkt_dist_default(dt), rng, t, vals);
    int64_t src_shape[WK_MAX_RANK], n = 1, src_n = 1;
    int bdim = -1;
    for (int d = 0; d < rank; d++) {
        src_shape[d] = shape[d];
        if (layout == WKT_BROADCAST && bdim < 0 && shape[d] > 1) {
            bdim = d;
            src_shape[d] = 1;
        }
        n *= shape[d];
        src_n *= src_shape[d];
    }
    double *src = malloc((size_t)src_n * sizeof *src + 1), *v = malloc((size_t)n * sizeof *v + 1);
    if (!src || !v) {
        free(src);
        free(v);
        return WK_ERR_OUT_OF_MEMORY;
    }
    for (int64_t i = 0; i < src_n; i++)
        src[i] = draw_special(dt, kind, rng);
    /* logical values: the source index drops the broadcast dim's coordinate */
    for (int64_t i = 0; i < n; i++) {
        int64_t rem = i, si = 0, mul = 1;
        for (int d = rank - 1; d >= 0; d--) {
            int64_t idx = rem % shape[d];
            rem /= shape[d];
            si += (d == bdim ? 0 : idx) * mul;
            mul *= src_shape[d];
        }
        v[i] = src[si];
    }
    wk_tensor *base = NULL;
    wk_status s = wkt_make_from(dev, dt, rank, src_shape, bdim >= 0 ? WKT_CONTIG : layout, src, &base);
    free(src);
    if (s == WK_OK && bdim >= 0) {
        s = wk_broadcast_to(base, rank, shape, t);
        wk_tensor_release(base);
    } else if (s == WK_OK) {
        *t = base;
    }
    if (s != WK_OK) {
        free(v);
        return s;
    }
    *vals = v;
    return WK_OK;
}

/* Writes "[2, 3]" into buf. */
static inline const char *shape_text(char *buf, size_t cap, int rank, const int64_t *shape)
{
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int d = 0; d < rank && n < cap; d++)
        n += (size_t)snprintf(buf + n, cap - n, d ? ", %lld" : "%lld", (long long)shape[d]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
    return buf;
}

/* Fails r unless t has (rank, shape) and dtype dt. */
static inline bool check_shape(const wk_tensor *t, wk_dtype dt, int rank, const int64_t *shape,
                               wkt_result *r)
{
    char got[96], want[96];
    bool ok = wk_tensor_dtype(t) == dt && wk_tensor_rank(t) == rank;
    for (int d = 0; ok && d < rank; d++)
        ok = wk_tensor_shape(t)[d] == shape[d];
    if (!ok)
        wkt_fail(r, "output is %s %s, want %s %s", wk_dtype_name(wk_tensor_dtype(t)),
                 shape_text(got, sizeof got, wk_tensor_rank(t), wk_tensor_shape(t)), wk_dtype_name(dt),
                 shape_text(want, sizeof want, rank, shape));
    return ok;
}

/* Counts one error-path check: the out-parameter must still hold what it held before the call. */
static inline void expect_untouched(wkt_errctx *e, const void *got, const void *before, const char *what)
{
    e->checks++;
    if (got != before) {
        e->failures++;
        printf("FAIL %s: out-parameter written on failure\n", what);
    }
}

#endif
