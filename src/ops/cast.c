/* cast.c: the cast family's front end: cast between dtypes, and arange (values computed in f64, then cast to the
 * dtype, by the backends' cast kernels). */
#include <math.h>
#include <stdint.h>

#include "ops/common.h"

wk_status wk_cast(const wk_tensor *t, wk_dtype dt, wk_tensor **out)
{
    static const char op[] = "cast";
    WK_TRY(wk_check_tensor(op, "tensor", t));
    WK_TRY(wk_check_out(op, out));
    if (wk_dtype_is_quantized(dt))
        return wk_error(WK_ERR_DTYPE, "%s: target dtype %s is block-quantized: use wk_quantize", op,
                        wk_dtype_name(dt));
    if (wk_dtype_size(dt) == 0)
        return wk_error(WK_ERR_DTYPE, "%s: invalid target dtype %d", op, (int)dt);
    if (dt == t->dtype)
        return wk_copy_contiguous(op, t, out);
    wk_tensor *c = NULL;
    WK_TRY(wk_alloc_output(op, wk_dev(t), dt, t->rank, t->shape, &c));
    wk_status s = WK_CHECK_SLOT(op, c, cast);
    if (s == WK_OK)
        s = WK_SLOT(c, cast, t, c);
    return wk_finish(s, c, out);
}

wk_status wk_arange(wk_device *dev, wk_dtype dt, double start, double end, double step, wk_tensor **out)
{
    static const char op[] = "arange";
    WK_TRY(wk_check_new(op, dev, dt, 0, NULL, out));
    if (!isfinite(start) || !isfinite(end) || !isfinite(step))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: start %g, end %g and step %g must be finite", op, start, end,
                        step);
    if (step == 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: step is 0", op);
    double len = ceil((end - start) / step);
    if (!(len >= 0))
        len = 0; /* end lies behind start for the sign of step: empty, as Python's range */
    if (len > (double)(INT64_MAX / 16))
        return wk_error(WK_ERR_SHAPE, "%s: %g elements is too many", op, len);
    int64_t n = (int64_t)len;
    wk_tensor *t = NULL;
    WK_TRY(wk_alloc_output(op, dev, dt, 1, &n, &t));
    wk_status s = WK_CHECK_SLOT(op, t, arange);
    if (s == WK_OK)
        s = WK_SLOT(t, arange, t, start, step);
    return wk_finish(s, t, out);
}
