/* elementwise.h: what the unary and binary case files share: input values with NaN/inf sprinkled in, the
 * wrapping integer arithmetic of the reference, and the checks of error paths that must leave out untouched. */
#ifndef WKT_ELEMENTWISE_H
#define WKT_ELEMENTWISE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* The integer value x (computed mod 2^64) as dtype dt stores it, like C's unsigned conversion. */
static inline double ew_wrap(wk_dtype dt, uint64_t x)
{
    switch (dt) {
    case WK_U8: return (double)(uint8_t)x;
    case WK_U32: return (double)(uint32_t)x;
    case WK_I32: return (double)(int32_t)(uint32_t)x;
    default: return (double)(int64_t)x;
    }
}

static inline bool ew_signed(wk_dtype dt) { return dt == WK_I32 || dt == WK_I64; }

/* The full range of an integer dtype, as far as doubles hold it exactly (i64: +-2^53, and INT64_MIN). */
static inline void ew_int_range(wk_dtype dt, double *lo, double *hi)
{
    switch (dt) {
    case WK_U8: *lo = 0, *hi = 255; break;
    case WK_U32: *lo = 0, *hi = 4294967295.0; break;
    case WK_I32: *lo = -2147483648.0, *hi = 2147483647.0; break;
    default: *lo = -9007199254740992.0, *hi = 9007199254740992.0; break;
    }
}

/* A float in [lo, hi); with `specials`, about 1 in 16 is NaN, +inf, -inf or 0. Rounded to dt. */
static inline double ew_float(wkt_rng *rng, wk_dtype dt, double lo, double hi, bool specials)
{
    if (specials && wkt_rng_int(rng, 0, 15) == 0) {
        static const double sp[4] = {NAN, INFINITY, -INFINITY, 0.0};
        return sp[wkt_rng_int(rng, 0, 3)];
    }
    return wkt_round_to(dt, wkt_rng_uniform(rng, lo, hi));
}

/* An integer in [lo, hi]; with `extremes`, about 1 in 8 is the dtype's minimum or maximum. */
static inline double ew_int(wkt_rng *rng, wk_dtype dt, double lo, double hi, bool extremes)
{
    double tlo, thi;
    ew_int_range(dt, &tlo, &thi);
    if (extremes && wkt_rng_int(rng, 0, 7) == 0) {
        if (dt == WK_I64) /* INT64_MIN is exact in a double; INT64_MAX is not */
            return wkt_rng_int(rng, 0, 1) ? -9223372036854775808.0 : thi;
        return wkt_rng_int(rng, 0, 1) ? tlo : thi;
    }
    lo = lo < tlo ? tlo : lo;
    hi = hi > thi ? thi : hi;
    return (double)wkt_rng_int(rng, (int64_t)lo, (int64_t)hi);
}

/* Logical values -> a tensor in `layout`. WKT_BROADCAST needs repeated values, so it draws its own (from
 * `dist`, without specials) and overwrites vals. */
static inline wk_status ew_tensor(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wkt_layout layout,
                                  wkt_dist dist, wkt_rng *rng, double **vals, wk_tensor **t)
{
    if (layout != WKT_BROADCAST)
        return wkt_make_from(dev, dt, rank, shape, layout, *vals, t);
    double *fresh = NULL;
    wk_status s = wkt_make(dev, dt, rank, shape, layout, dist, rng, t, &fresh);
    if (s == WK_OK) {
        free(*vals);
        *vals = fresh;
    }
    return s;
}

/* Reads `o` and checks its dtype and shape; on any failure r is marked and NULL returned. */
static inline double *ew_read(const wk_tensor *o, wk_dtype dt, int rank, const int64_t *shape, wkt_result *r)
{
    double *got = NULL;
    if (wk_tensor_dtype(o) != dt || wk_tensor_rank(o) != rank ||
        (rank && memcmp(wk_tensor_shape(o), shape, (size_t)rank * sizeof *shape) != 0)) {
        wkt_fail(r, "output has dtype %s rank %d, want %s rank %d (or a different shape)",
                 wk_dtype_name(wk_tensor_dtype(o)), wk_tensor_rank(o), wk_dtype_name(dt), rank);
        return NULL;
    }
    if (wkt_failed(wkt_read(o, &got), r, "read"))
        return NULL;
    return got;
}

/* After a failing call: the out-parameter must still hold what it held (NULL). */
static inline void ew_expect_untouched(wkt_errctx *e, wk_tensor *o, const char *what)
{
    e->checks++;
    if (o != NULL) {
        e->failures++;
        printf("FAIL %s: out-parameter written on failure\n", what);
        wk_tensor_release(o);
    }
}

/* WKT_EXPECT plus the untouched out check, for calls writing to `o` (declared NULL by the caller). */
#define EW_EXPECT(e, o, call, want, op)                \
    do {                                               \
        o = NULL;                                      \
        WKT_EXPECT(e, call, want, op);                 \
        ew_expect_untouched(e, o, #call);              \
    } while (0)

#endif
