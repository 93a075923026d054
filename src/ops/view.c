/* view.c: metadata-only views (reshape, transpose, permute, narrow, broadcast_to, squeeze, unsqueeze,
 * flatten, as_strided). No data moves, except reshape/flatten of a layout that cannot be viewed. */
#include <string.h>

#include "ops/common.h"

#define VIEW_PROLOGUE(op, t, out)                  \
    WK_TRY(wk_check_tensor(op, "tensor", t));      \
    WK_TRY(wk_check_out(op, out))
/* The views that may take a block-quantized tensor: they end in make_view, which checks the layout. */
#define VIEW_PROLOGUE_Q(op, t, out)                \
    WK_TRY(wk_check_tensor_q(op, "tensor", t));    \
    WK_TRY(wk_check_out(op, out))

/* wk_tensor_view, checking that a view of a block-quantized tensor keeps whole rows: the last dim whole blocks at
 * stride 1, every other stride and the offset whole blocks, so every row starts at a block (wick.h). */
static wk_status make_view(const char *op, const wk_tensor *t, int rank, const int64_t *shape,
                           const int64_t *strides, int64_t offset, wk_tensor **out)
{
    if (wk_dtype_is_quantized(t->dtype)) {
        char b1[128], b2[128];
        int64_t bs = wk_dtype_block_size(t->dtype);
        bool ok = rank >= 1 && shape[rank - 1] % bs == 0 && (shape[rank - 1] <= 1 || strides[rank - 1] == 1) &&
                  offset % bs == 0;
        for (int i = 0; ok && i < rank - 1; i++)
            ok = shape[i] <= 1 || strides[i] % bs == 0;
        if (!ok)
            return wk_error(WK_ERR_SHAPE, "%s: %s of a %s tensor %s would split its rows of %lld-element blocks: views "
                            "of a block-quantized tensor keep whole rows", op, wk_shape_str(b1, sizeof b1, rank, shape),
                            wk_dtype_name(t->dtype), wk_shape_str(b2, sizeof b2, t->rank, t->shape), (long long)bs);
    }
    return wk_tensor_view(t, rank, shape, strides, offset, out);
}

/* Strides for viewing t as (rank, shape) without a copy, as PyTorch's computeStride: walk t's dims
 * from the innermost, grouping runs of dims that are contiguous with each other. */
static bool view_strides(const wk_tensor *t, int rank, const int64_t *shape, int64_t *strides)
{
    int64_t numel = wk_tensor_numel(t);
    if (numel == 0 || t->rank == 0 || rank == 0) {
        wk_contiguous_strides(rank, shape, strides);
        return true;
    }
    int view_d = rank - 1;
    int64_t chunk_base_stride = t->strides[t->rank - 1];
    int64_t tensor_numel = 1, view_numel = 1;
    for (int d = t->rank - 1; d >= 0; d--) {
        tensor_numel *= t->shape[d];
        if (d == 0 || (t->shape[d - 1] != 1 && t->strides[d - 1] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
                strides[view_d] = view_numel * chunk_base_stride;
                view_numel *= shape[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel)
                return false;
            if (d > 0) {
                chunk_base_stride = t->strides[d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

wk_status wk_reshape(const wk_tensor *t, int rank, const int64_t *shape, wk_tensor **out)
{
    static const char op[] = "reshape";
    char b1[128], b2[128];
    int64_t sh[WK_MAX_RANK], strides[WK_MAX_RANK];
    VIEW_PROLOGUE_Q(op, t, out);
    if (rank < 0 || rank > WK_MAX_RANK)
        return wk_error(WK_ERR_SHAPE, "%s: rank %d outside 0..%d", op, rank, WK_MAX_RANK);
    if (rank > 0 && !shape)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: shape is NULL", op);
    int infer = -1;
    int64_t known = 1;
    for (int i = 0; i < rank; i++) {
        sh[i] = shape[i];
        if (shape[i] == -1 && infer < 0)
            infer = i;
        else if (shape[i] < 0)
            return wk_error(WK_ERR_SHAPE, "%s: bad size %lld in %s", op, (long long)shape[i],
                            wk_shape_str(b1, sizeof b1, rank, shape));
        else if (shape[i] > 0 && known > INT64_MAX / shape[i])
            return wk_error(WK_ERR_SHAPE, "%s: shape %s is too large", op, wk_shape_str(b1, sizeof b1, rank, shape));
        else
            known *= shape[i];
    }
    int64_t numel = wk_tensor_numel(t);
    if (infer >= 0) {
        if (known == 0 || numel % known != 0)
            return wk_error(WK_ERR_SHAPE, "%s: cannot infer -1 in %s from %lld elements", op,
                            wk_shape_str(b1, sizeof b1, rank, shape), (long long)numel);
        sh[infer] = numel / known;
    }
    /* an empty target has t's numel (0) whatever its other sizes: it must still meet the size limit */
    WK_TRY(wk_check_shape(op, rank, sh, wk_dtype_size_bound(t->dtype), NULL));
    if (wk_numel(rank, sh) != numel)
        return wk_error(WK_ERR_SHAPE, "%s: cannot reshape %s to %s", op, wk_shape_str(b1, sizeof b1, t->rank, t->shape),
                        wk_shape_str(b2, sizeof b2, rank, sh));
    if (view_strides(t, rank, sh, strides))
        return make_view(op, t, rank, sh, strides, t->offset, out);
    if (wk_dtype_is_quantized(t->dtype))
        return wk_error(WK_ERR_SHAPE, "%s: %s as %s needs a copy, which a block-quantized tensor (%s) does not have: "
                        "dequantize it first", op, wk_shape_str(b1, sizeof b1, t->rank, t->shape),
                        wk_shape_str(b2, sizeof b2, rank, sh), wk_dtype_name(t->dtype));
    wk_tensor *c = NULL;
    WK_TRY(wk_contiguous(t, &c));
    wk_contiguous_strides(rank, sh, strides);
    wk_status s = wk_tensor_view(c, rank, sh, strides, c->offset, out);
    wk_tensor_release(c);
    return s;
}

wk_status wk_transpose(const wk_tensor *t, int dim0, int dim1, wk_tensor **out)
{
    static const char op[] = "transpose";
    int d0, d1;
    VIEW_PROLOGUE_Q(op, t, out);
    WK_TRY(wk_norm_dim(op, dim0, t->rank, &d0));
    WK_TRY(wk_norm_dim(op, dim1, t->rank, &d1));
    int64_t sh[WK_MAX_RANK], st[WK_MAX_RANK];
    memcpy(sh, t->shape, sizeof sh);
    memcpy(st, t->strides, sizeof st);
    sh[d0] = t->shape[d1];
    sh[d1] = t->shape[d0];
    st[d0] = t->strides[d1];
    st[d1] = t->strides[d0];
    return make_view(op, t, t->rank, sh, st, t->offset, out);
}

wk_status wk_permute(const wk_tensor *t, const int *perm, wk_tensor **out)
{
    static const char op[] = "permute";
    int64_t sh[WK_MAX_RANK], st[WK_MAX_RANK];
    bool seen[WK_MAX_RANK] = {false};
    VIEW_PROLOGUE_Q(op, t, out);
    if (t->rank > 0 && !perm)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: perm is NULL", op);
    for (int i = 0; i < t->rank; i++) {
        int d;
        WK_TRY(wk_norm_dim(op, perm[i], t->rank, &d));
        if (seen[d])
            return wk_error(WK_ERR_SHAPE, "%s: dim %d repeated in perm", op, perm[i]);
        seen[d] = true;
        sh[i] = t->shape[d];
        st[i] = t->strides[d];
    }
    return make_view(op, t, t->rank, sh, st, t->offset, out);
}

wk_status wk_narrow(const wk_tensor *t, int dim, int64_t start, int64_t len, wk_tensor **out)
{
    static const char op[] = "narrow";
    int d;
    VIEW_PROLOGUE_Q(op, t, out);
    WK_TRY(wk_norm_dim(op, dim, t->rank, &d));
    if (start < 0 || len < 0 || start > t->shape[d] - len)
        return wk_error(WK_ERR_SHAPE, "%s: %lld elements from %lld outside dim %d of size %lld", op, (long long)len,
                        (long long)start, d, (long long)t->shape[d]);
    int64_t sh[WK_MAX_RANK];
    memcpy(sh, t->shape, sizeof sh);
    sh[d] = len;
    return make_view(op, t, t->rank, sh, t->strides, t->offset + (len ? start * t->strides[d] : 0), out);
}

wk_status wk_broadcast_to(const wk_tensor *t, int rank, const int64_t *shape, wk_tensor **out)
{
    static const char op[] = "broadcast_to";
    VIEW_PROLOGUE(op, t, out);
    if (rank < 0 || rank > WK_MAX_RANK)
        return wk_error(WK_ERR_SHAPE, "%s: rank %d outside 0..%d", op, rank, WK_MAX_RANK);
    if (rank > 0 && !shape)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: shape is NULL", op);
    /* a view, but its numel * element size must fit in int64 as any tensor's (wk_tensor_to_host, copies) */
    WK_TRY(wk_check_shape(op, rank, shape, (int64_t)wk_dtype_size(t->dtype), NULL));
    return wk_broadcast_view(op, t, rank, shape, out);
}

wk_status wk_squeeze(const wk_tensor *t, int dim, wk_tensor **out)
{
    static const char op[] = "squeeze";
    int d;
    VIEW_PROLOGUE_Q(op, t, out);
    WK_TRY(wk_norm_dim(op, dim, t->rank, &d));
    if (t->shape[d] != 1)
        return wk_error(WK_ERR_SHAPE, "%s: dim %d has size %lld, not 1", op, d, (long long)t->shape[d]);
    int64_t sh[WK_MAX_RANK], st[WK_MAX_RANK];
    for (int i = 0, j = 0; i < t->rank; i++)
        if (i != d) {
            sh[j] = t->shape[i];
            st[j++] = t->strides[i];
        }
    return make_view(op, t, t->rank - 1, sh, st, t->offset, out);
}

wk_status wk_unsqueeze(const wk_tensor *t, int dim, wk_tensor **out)
{
    static const char op[] = "unsqueeze";
    VIEW_PROLOGUE_Q(op, t, out);
    if (t->rank >= WK_MAX_RANK)
        return wk_error(WK_ERR_SHAPE, "%s: rank %d is already the maximum", op, t->rank);
    if (dim < -t->rank - 1 || dim > t->rank)
        return wk_error(WK_ERR_SHAPE, "%s: dim %d out of range for rank %d", op, dim, t->rank);
    int d = dim < 0 ? dim + t->rank + 1 : dim;
    int64_t sh[WK_MAX_RANK], st[WK_MAX_RANK];
    for (int i = 0, j = 0; i <= t->rank; i++) {
        if (i == d) {
            sh[i] = 1;
            st[i] = i < t->rank ? wk_mul_sat(t->strides[j], t->shape[j]) : 1; /* a size-1 dim: any stride */
        } else {
            sh[i] = t->shape[j];
            st[i] = t->strides[j++];
        }
    }
    return make_view(op, t, t->rank + 1, sh, st, t->offset, out);
}

wk_status wk_flatten(const wk_tensor *t, int start_dim, int end_dim, wk_tensor **out)
{
    static const char op[] = "flatten";
    int s, e;
    VIEW_PROLOGUE_Q(op, t, out);
    if (t->rank == 0) { /* a scalar flattens to one element; its only dims are 0 and -1 */
        int64_t one = 1;
        if ((start_dim != 0 && start_dim != -1) || (end_dim != 0 && end_dim != -1))
            return wk_error(WK_ERR_SHAPE, "%s: dims %d, %d out of range for rank 0", op, start_dim, end_dim);
        return wk_reshape(t, 1, &one, out);
    }
    WK_TRY(wk_norm_dim(op, start_dim, t->rank, &s));
    WK_TRY(wk_norm_dim(op, end_dim, t->rank, &e));
    if (s > e)
        return wk_error(WK_ERR_SHAPE, "%s: start_dim %d after end_dim %d", op, s, e);
    int64_t sh[WK_MAX_RANK];
    int r = 0;
    for (int i = 0; i < s; i++)
        sh[r++] = t->shape[i];
    sh[r++] = wk_numel(e - s + 1, t->shape + s);
    for (int i = e + 1; i < t->rank; i++)
        sh[r++] = t->shape[i];
    return wk_reshape(t, r, sh, out);
}

wk_status wk_as_strided(const wk_tensor *t, int rank, const int64_t *shape, const int64_t *strides, int64_t offset,
                        wk_tensor **out)
{
    static const char op[] = "as_strided";
    VIEW_PROLOGUE(op, t, out);
    if (rank < 0 || rank > WK_MAX_RANK)
        return wk_error(WK_ERR_SHAPE, "%s: rank %d outside 0..%d", op, rank, WK_MAX_RANK);
    if (rank > 0 && (!shape || !strides))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: shape or strides is NULL", op);
    if (offset < 0)
        return wk_error(WK_ERR_SHAPE, "%s: negative offset %lld", op, (long long)offset);
    /* numel and the last element addressed, refusing what would overflow int64 */
    int64_t last = offset, numel = 1;
    for (int i = 0; i < rank; i++)
        if (shape[i] < 0 || strides[i] < 0)
            return wk_error(WK_ERR_SHAPE, "%s: negative size or stride at dim %d", op, i);
    WK_TRY(wk_check_shape(op, rank, shape, (int64_t)wk_dtype_size(t->dtype), NULL));
    numel = wk_numel(rank, shape);
    for (int i = 0; i < rank && numel > 0; i++) {
        if (strides[i] > 0 && shape[i] - 1 > (INT64_MAX - last) / strides[i])
            return wk_error(WK_ERR_SHAPE, "%s: view reaches beyond element 2^63", op);
        last += (shape[i] - 1) * strides[i];
    }
    int64_t cap = (int64_t)(t->storage->bytes / wk_dtype_size(t->dtype));
    if (numel > 0 && last >= cap)
        return wk_error(WK_ERR_SHAPE, "%s: view reaches element %lld of a storage of %lld", op, (long long)last,
                        (long long)cap);
    if (offset > cap) /* an empty view addresses nothing, but its start must still be an address of the storage */
        return wk_error(WK_ERR_SHAPE, "%s: offset %lld past the end of a storage of %lld elements", op,
                        (long long)offset, (long long)cap);
    return wk_tensor_view(t, rank, shape, strides, offset, out);
}
