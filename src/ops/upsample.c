/* upsample.c: the upsample family's front end: nearest (1-D and 2-D) and bilinear 2-D resampling of (N, C, ...)
 * input to given output sizes, with PyTorch's coordinate rules (the backends' upsample slots). */
#include "ops/common.h"

/* Common checks of the upsample ops: x has `rank` dims with non-empty spatial dims, sizes >= 1.
 * Fills the output shape. */
static wk_status upsample_shape(const char *op, const wk_tensor *x, int rank, const int64_t *sizes, void *out,
                                int64_t *sh)
{
    char buf[200];
    WK_TRY(wk_check_tensor(op, "x", x));
    WK_TRY(wk_check_out(op, out));
    WK_TRY(wk_check_rank(op, rank == 3 ? "x (N, C, L)" : "x (N, C, H, W)", x, rank));
    sh[0] = x->shape[0];
    sh[1] = x->shape[1];
    for (int d = 2; d < rank; d++) {
        if (sizes[d - 2] < 1)
            return wk_error(WK_ERR_SHAPE, "%s: output size %lld must be >= 1", op, (long long)sizes[d - 2]);
        if (x->shape[d] < 1)
            return wk_error(WK_ERR_SHAPE, "%s: input %s has an empty spatial dim", op,
                            wk_describe(buf, sizeof buf, x));
        sh[d] = sizes[d - 2];
    }
    return WK_OK;
}

/* Allocates the output, runs the slot (skipped when the output is empty), hands it out on success. */
#define UPSAMPLE_RUN(x, rank, sh, call, out)                                   \
    do {                                                                       \
        wk_tensor *o = NULL;                                                   \
        WK_TRY(wk_alloc_output(op, wk_dev(x), (x)->dtype, rank, sh, &o));          \
        wk_status s = wk_tensor_numel(o) ? (call) : WK_OK; /* as WK_SLOT */   \
        if (s != WK_OK) {                                                      \
            wk_tensor_release(o);                                              \
            return s;                                                          \
        }                                                                      \
        *(out) = o;                                                            \
        return WK_OK;                                                          \
    } while (0)

wk_status wk_upsample_nearest1d(const wk_tensor *x, int64_t out_l, wk_tensor **out)
{
    static const char op[] = "upsample_nearest1d";
    int64_t sh[3];
    WK_TRY(upsample_shape(op, x, 3, &out_l, out, sh));
    WK_TRY(WK_CHECK_SLOT(op, x, upsample_nearest));
    UPSAMPLE_RUN(x, 3, sh, wk_be(x)->upsample_nearest(x, o), out);
}

wk_status wk_upsample_nearest2d(const wk_tensor *x, int64_t out_h, int64_t out_w, wk_tensor **out)
{
    static const char op[] = "upsample_nearest2d";
    int64_t sh[4], sizes[2] = {out_h, out_w};
    WK_TRY(upsample_shape(op, x, 4, sizes, out, sh));
    WK_TRY(WK_CHECK_SLOT(op, x, upsample_nearest));
    UPSAMPLE_RUN(x, 4, sh, wk_be(x)->upsample_nearest(x, o), out);
}

wk_status wk_upsample_bilinear2d(const wk_tensor *x, int64_t out_h, int64_t out_w, bool align_corners,
                                 double scale_h, double scale_w, wk_tensor **out)
{
    static const char op[] = "upsample_bilinear2d";
    int64_t sh[4], sizes[2] = {out_h, out_w};
    WK_TRY(upsample_shape(op, x, 4, sizes, out, sh));
    WK_TRY(wk_check_float(op, x));
    WK_TRY(WK_CHECK_SLOT(op, x, upsample_bilinear2d));
    UPSAMPLE_RUN(x, 4, sh, wk_be(x)->upsample_bilinear2d(x, align_corners, scale_h, scale_w, o), out);
}
