/* reorder_pad.c: pad (torch.nn.functional.pad) in its four modes: PyTorch's checks, the output shape and the
 * index map of each padded dim; the reorder slot does the copy (ops/reorder.h). */
#include "ops/reorder.h"

static const char op[] = "pad";

static const char *mode_name(wk_pad_mode mode)
{
    switch (mode) {
    case WK_PAD_CONSTANT: return "constant";
    case WK_PAD_REFLECT: return "reflect";
    case WK_PAD_REPLICATE: return "replicate";
    default: return "circular";
    }
}

/* PyTorch's shape rule of the non-constant modes: the last k = 1..3 dims, x of rank k+1 or k+2 (a batch dim),
 * every dim but the batch dim non-empty. */
static wk_status check_modal_rank(const wk_tensor *x, int k, wk_pad_mode mode)
{
    char b1[128];
    if (k < 1 || k > 3 || (x->rank != k + 1 && x->rank != k + 2))
        return wk_error(WK_ERR_SHAPE, "%s: %s padding pads the last 1, 2 or 3 dims of a tensor with 1 or 2 more "
                        "dims (got %d pads for x %s)", op, mode_name(mode), 2 * k, wk_describe(b1, sizeof b1, x));
    for (int d = x->rank == k + 2 ? 1 : 0; d < x->rank; d++)
        if (x->shape[d] == 0)
            return wk_error(WK_ERR_SHAPE, "%s: %s padding needs every dim but a batch dim non-empty (x %s)", op,
                            mode_name(mode), wk_describe(b1, sizeof b1, x));
    return WK_OK;
}

/* One dim of size n padded by (l, r): the output size and the map (kind, a) of the mode, or WK_ERR_SHAPE. For
 * circular, *start and *len give the crop of x that the positive pads wrap around. */
static wk_status pad_dim(wk_pad_mode mode, int d, int64_t n, int64_t l, int64_t r, int64_t *size, int32_t *kind,
                         int64_t *a, int64_t *start, int64_t *len)
{
    int64_t crop = 0, lpos = l > 0 ? l : 0, rpos = r > 0 ? r : 0, lneg = l < 0 ? l : 0, rneg = r < 0 ? r : 0;
    if (__builtin_add_overflow(n, l, size) || __builtin_add_overflow(*size, r, size) ||
        __builtin_add_overflow(n, lneg, &crop) || __builtin_add_overflow(crop, rneg, &crop))
        return wk_error(WK_ERR_SHAPE, "%s: pads (%lld, %lld) of dim %d overflow", op, (long long)l, (long long)r, d);
    *a = l;
    switch (mode) {
    case WK_PAD_CONSTANT:
        *kind = WK_REORDER_CONSTANT;
        if (crop < 0)
            return wk_error(WK_ERR_SHAPE, "%s: pads (%lld, %lld) crop more than dim %d's %lld elements", op,
                            (long long)l, (long long)r, d, (long long)n);
        return WK_OK;
    case WK_PAD_REFLECT:
        *kind = WK_REORDER_REFLECT;
        if (l >= n || r >= n)
            return wk_error(WK_ERR_SHAPE, "%s: reflect pads (%lld, %lld) must be less than dim %d's size %lld", op,
                            (long long)l, (long long)r, d, (long long)n);
        break;
    case WK_PAD_REPLICATE:
        *kind = WK_REORDER_REPLICATE;
        *a = l < -n ? -n : l; /* a crop past the end clamps to the last element all the same */
        break;
    default:
        *kind = WK_REORDER_WRAP;
        *a = lpos;
        *start = -lneg;
        *len = crop;
        if (l > n || r > n)
            return wk_error(WK_ERR_SHAPE, "%s: circular pads (%lld, %lld) wrap around dim %d (size %lld) more than "
                            "once", op, (long long)l, (long long)r, d, (long long)n);
        if (*size < 0 || crop < 0 || lpos > crop || rpos > crop)
            return wk_error(WK_ERR_SHAPE, "%s: circular pads (%lld, %lld) of dim %d (size %lld) leave %lld elements "
                            "to wrap around, fewer than they need", op, (long long)l, (long long)r, d, (long long)n,
                            (long long)crop);
        return WK_OK;
    }
    if (*size < 1)
        return wk_error(WK_ERR_SHAPE, "%s: %s pads (%lld, %lld) leave dim %d of size %lld with %lld elements "
                        "(must be >= 1)", op, mode_name(mode), (long long)l, (long long)r, d, (long long)n,
                        (long long)*size);
    return WK_OK;
}

wk_status wk_pad(const wk_tensor *x, const int64_t *pads, int npads, wk_pad_mode mode, double value,
                 wk_tensor **out)
{
    WK_TRY(wk_check_tensor(op, "x", x));
    WK_TRY(wk_check_out(op, out));
    if ((unsigned)mode > WK_PAD_CIRCULAR)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: unknown mode %d", op, (int)mode);
    if (npads < 0 || npads % 2 != 0 || npads > 2 * x->rank || (npads > 0 && !pads))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: %d pads%s for x of rank %d (an even count <= 2 * rank)", op,
                        npads, npads > 0 && !pads ? " (NULL)" : "", x->rank);
    int k = npads / 2;
    if (mode != WK_PAD_CONSTANT)
        WK_TRY(check_modal_rank(x, k, mode));
    wk_reorder_map m;
    wk_reorder_map_init(&m);
    m.value = wk_scalar_storage(x->dtype, value);
    int64_t shape[WK_MAX_RANK], start[WK_MAX_RANK] = {0}, len[WK_MAX_RANK];
    for (int d = 0; d < x->rank; d++) {
        shape[d] = len[d] = x->shape[d];
        if (d < x->rank - k)
            continue;
        int i = x->rank - 1 - d;
        WK_TRY(pad_dim(mode, d, x->shape[d], pads[2 * i], pads[2 * i + 1], &shape[d], &m.kind[d], &m.a[d],
                       &start[d], &len[d]));
    }
    const wk_tensor *src = x;
    wk_tensor *crop = NULL;
    if (mode == WK_PAD_CIRCULAR) { /* the crop of x first: a view */
        int64_t offset = x->offset;
        for (int d = 0; d < x->rank; d++)
            offset += start[d] * x->strides[d];
        WK_TRY(wk_tensor_view(x, x->rank, len, x->strides, offset, &crop));
        src = crop;
    }
    wk_status s = wk_reorder_run(op, src, &m, shape, out);
    wk_tensor_release(crop);
    return s;
}
