/* rand.c: the rand family's front end: rand_uniform and rand_normal (Philox4x32-10, the recipe in cpu/rand.c). */
#include <math.h>
#include <stdint.h>

#include "ops/common.h"

/* ---------------------------------------------------------------- random */

static wk_status rand_named(const char *op, bool normal, wk_device *dev, wk_dtype dt, int rank,
                            const int64_t *shape, uint64_t seed, double a, double b, wk_tensor **out)
{
    WK_TRY(wk_check_new(op, dev, dt, rank, shape, out));
    if (!wk_dtype_is_float(dt))
        return wk_error(WK_ERR_DTYPE, "%s: dtype %s not supported (float dtypes only)", op, wk_dtype_name(dt));
    if (!isfinite(a) || !isfinite(b))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: parameters %g and %g must be finite", op, a, b);
    if (normal && b < 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: std %g is negative", op, b);
    if (!normal && a > b)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: lo %g is above hi %g", op, a, b);
    /* f16/bf16/f32 compute in f32 (see cpu/rand.c): the parameters and hi - lo must be finite there too. */
    bool narrow = dt != WK_F64;
    double span = narrow ? (double)((float)b - (float)a) : b - a;
    if ((narrow && (!isfinite((float)a) || !isfinite((float)b))) || (!normal && !isfinite(span)))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: parameters %g and %g overflow %s arithmetic", op, a, b,
                        narrow ? "f32" : "f64");
    wk_tensor *t = NULL;
    WK_TRY(wk_alloc_output(op, dev, dt, rank, shape, &t));
    wk_status s = normal ? WK_CHECK_SLOT(op, t, rand_normal) : WK_CHECK_SLOT(op, t, rand_uniform);
    if (s == WK_OK)
        s = normal ? WK_SLOT(t, rand_normal, t, seed, a, b) : WK_SLOT(t, rand_uniform, t, seed, a, b);
    return wk_finish(s, t, out);
}

wk_status wk_rand_uniform(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, uint64_t seed, double lo,
                          double hi, wk_tensor **out)
{
    return rand_named("rand_uniform", false, dev, dt, rank, shape, seed, lo, hi, out);
}

wk_status wk_rand_normal(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, uint64_t seed, double mean,
                         double std, wk_tensor **out)
{
    return rand_named("rand_normal", true, dev, dt, rank, shape, seed, mean, std, out);
}
