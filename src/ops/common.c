/* common.c: argument checks, dim normalisation and broadcasting shared by every op family. */
#include "ops/common.h"
#include "core/numerics.h"

#include <stdio.h>

const char *wk_describe(char *buf, size_t cap, const wk_tensor *t)
{
    char sh[128];
    snprintf(buf, cap, "%s %s on %s", wk_dtype_name(t->dtype), wk_shape_str(sh, sizeof sh, t->rank, t->shape),
             t->storage->device->name);
    return buf;
}

wk_status wk_check_tensor_q(const char *op, const char *name, const wk_tensor *t)
{
    if (!t)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op, name);
    return WK_OK;
}

wk_status wk_check_tensor(const char *op, const char *name, const wk_tensor *t)
{
    char buf[200];
    WK_TRY(wk_check_tensor_q(op, name, t));
    if (wk_dtype_is_quantized(t->dtype))
        return wk_error(WK_ERR_DTYPE, "%s: %s is %s, of a block-quantized dtype, which this op does not take: "
                        "dequantize it first (wk_dequantize)", op, name, wk_describe(buf, sizeof buf, t));
    return WK_OK;
}

wk_status wk_check_out(const char *op, const void *out)
{
    if (!out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: out is NULL", op);
    return WK_OK;
}

wk_status wk_check_same_device(const char *op, const wk_tensor *a, const wk_tensor *b)
{
    if (wk_dev(a) != wk_dev(b))
        return wk_error(WK_ERR_DEVICE, "%s: operands on different devices (%s and %s)", op, wk_dev(a)->name,
                        wk_dev(b)->name);
    return WK_OK;
}

wk_status wk_check_same_dtype(const char *op, const wk_tensor *a, const wk_tensor *b)
{
    if (a->dtype != b->dtype)
        return wk_error(WK_ERR_DTYPE, "%s: operands of different dtypes (%s and %s)", op, wk_dtype_name(a->dtype),
                        wk_dtype_name(b->dtype));
    return WK_OK;
}

wk_status wk_check_float(const char *op, const wk_tensor *t)
{
    if (!wk_dtype_is_float(t->dtype))
        return wk_error(WK_ERR_DTYPE, "%s: dtype %s not supported (float dtypes only)", op, wk_dtype_name(t->dtype));
    return WK_OK;
}

wk_status wk_check_index_dtype(const char *op, const wk_tensor *t)
{
    if (wk_dtype_is_float(t->dtype))
        return wk_error(WK_ERR_DTYPE, "%s: index dtype %s not supported (u8, u32, i32, i64)", op,
                        wk_dtype_name(t->dtype));
    return WK_OK;
}

wk_status wk_check_rank(const char *op, const char *name, const wk_tensor *t, int rank)
{
    char buf[200];
    if (t->rank != rank)
        return wk_error(WK_ERR_SHAPE, "%s: %s must have rank %d, got %s", op, name, rank,
                        wk_describe(buf, sizeof buf, t));
    return WK_OK;
}

wk_status wk_check_writable(const char *op, const wk_tensor *t)
{
    char buf[200];
    if (t->storage->read_only)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: target %s is read-only (a file mapping or a read-only import)",
                        op, wk_describe(buf, sizeof buf, t));
    if (wk_tensor_has_overlap(t))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: target %s has overlapping elements (a broadcast view?)", op,
                        wk_describe(buf, sizeof buf, t));
    return WK_OK;
}

wk_status wk_check_slot(const char *op, const wk_tensor *t, const void *slot)
{
    if (!slot)
        return wk_error(WK_ERR_UNSUPPORTED, "%s: backend %s does not implement this op", op, wk_be(t)->name);
    return WK_OK;
}

wk_status wk_norm_dim(const char *op, int dim, int rank, int *out)
{
    int n = rank > 0 ? rank : 1; /* a rank-0 tensor accepts dim 0 / -1 where an op allows it */
    if (dim < -n || dim >= n || rank == 0)
        return wk_error(WK_ERR_SHAPE, "%s: dim %d out of range for rank %d", op, dim, rank);
    *out = dim < 0 ? dim + rank : dim;
    return WK_OK;
}

wk_status wk_broadcast_shape(const char *op, int ra, const int64_t *sa, int rb, const int64_t *sb, int *rank,
                             int64_t *shape)
{
    char b1[128], b2[128];
    int r = ra > rb ? ra : rb;
    for (int i = 0; i < r; i++) {
        int64_t da = i < r - ra ? 1 : sa[i - (r - ra)];
        int64_t db = i < r - rb ? 1 : sb[i - (r - rb)];
        if (da != db && da != 1 && db != 1)
            return wk_error(WK_ERR_SHAPE, "%s: shapes %s and %s cannot be broadcast", op,
                            wk_shape_str(b1, sizeof b1, ra, sa), wk_shape_str(b2, sizeof b2, rb, sb));
        shape[i] = da == 1 ? db : da;
    }
    *rank = r;
    return WK_OK;
}

wk_status wk_broadcast_view(const char *op, const wk_tensor *t, int rank, const int64_t *shape, wk_tensor **out)
{
    char b1[128], b2[128];
    int64_t strides[WK_MAX_RANK];
    if (rank < t->rank || rank > WK_MAX_RANK)
        return wk_error(WK_ERR_SHAPE, "%s: cannot broadcast %s to %s", op, wk_shape_str(b1, sizeof b1, t->rank, t->shape),
                        wk_shape_str(b2, sizeof b2, rank, shape));
    int lead = rank - t->rank;
    for (int i = 0; i < rank; i++) {
        if (i < lead) {
            strides[i] = 0;
            continue;
        }
        int64_t d = t->shape[i - lead];
        if (d == shape[i])
            strides[i] = t->strides[i - lead];
        else if (d == 1)
            strides[i] = 0;
        else
            return wk_error(WK_ERR_SHAPE, "%s: cannot broadcast %s to %s", op,
                            wk_shape_str(b1, sizeof b1, t->rank, t->shape), wk_shape_str(b2, sizeof b2, rank, shape));
    }
    return wk_tensor_view(t, rank, shape, strides, t->offset, out);
}

wk_status wk_alloc_output(const char *op, wk_device *dev, wk_dtype dt, int rank, const int64_t *shape,
                          wk_tensor **out)
{
    wk_status s = wk_tensor_alloc(dev, dt, rank, shape, out);
    if (s != WK_OK) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s", wk_last_error());
        return wk_error(s, "%s: %s", op, msg);
    }
    return WK_OK;
}

wk_status wk_finish(wk_status s, wk_tensor *t, wk_tensor **out)
{
    if (s != WK_OK) {
        wk_tensor_release(t);
        return s;
    }
    *out = t;
    return WK_OK;
}

/* Checks the arguments of an op that makes a new tensor from (dev, dt, rank, shape). */
wk_status wk_check_new(const char *op, const wk_device *dev, wk_dtype dt, int rank, const int64_t *shape,
                       const void *out)
{
    char buf[160];
    WK_TRY(wk_check_out(op, out));
    if (!dev)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: device is NULL", op);
    if (wk_dtype_is_quantized(dt))
        return wk_error(WK_ERR_DTYPE, "%s: dtype %s is block-quantized: make the values in a float dtype, then "
                        "wk_quantize them", op, wk_dtype_name(dt));
    if (wk_dtype_size(dt) == 0)
        return wk_error(WK_ERR_DTYPE, "%s: invalid dtype %d", op, (int)dt);
    if (rank < 0 || rank > WK_MAX_RANK)
        return wk_error(WK_ERR_SHAPE, "%s: rank %d outside 0..%d", op, rank, WK_MAX_RANK);
    if (rank > 0 && !shape)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: shape is NULL for rank %d", op, rank);
    for (int i = 0; i < rank; i++)
        if (shape[i] < 0)
            return wk_error(WK_ERR_SHAPE, "%s: negative size in shape %s", op,
                            wk_shape_str(buf, sizeof buf, rank, shape));
    return WK_OK;
}

/* Byte range [lo, hi) a non-empty view can address. */
static void view_extent(const wk_tensor *t, uintptr_t *lo, uintptr_t *hi)
{
    int64_t last = 0;
    for (int i = 0; i < t->rank; i++)
        last += (t->shape[i] - 1) * t->strides[i];
    size_t es = wk_dtype_size(t->dtype);
    *lo = (uintptr_t)wk_tensor_data(t);
    *hi = *lo + (uintptr_t)(last + 1) * es;
}

wk_status wk_check_no_alias(const char *op, const char *target_name, const wk_tensor *target, const char *name,
                            const wk_tensor *t)
{
    if (t == NULL || t->storage != target->storage || wk_tensor_numel(t) == 0 || wk_tensor_numel(target) == 0)
        return WK_OK;
    uintptr_t xl, xh, tl, th;
    view_extent(target, &xl, &xh);
    view_extent(t, &tl, &th);
    if (tl < xh && xl < th)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: %s shares memory with %s", op, name, target_name);
    return WK_OK;
}

/* The merged dim's (size, stride) when dims [d0, d0 + k) of t line up; false when they do not. */
static bool merged_dim(const wk_tensor *t, int d0, int k, int64_t *size, int64_t *stride)
{
    int64_t sh[WK_MAX_RANK], st[WK_MAX_RANK], n = 1;
    for (int i = 0; i < k; i++) {
        sh[i] = t->shape[d0 + i];
        st[i] = t->strides[d0 + i];
        n *= sh[i];
    }
    *size = n;
    *stride = 1;
    if (n == 0)
        return true;
    int r = wk_merge_dims(k, sh, st);
    if (r > 1)
        return false;
    if (r == 1)
        *stride = st[0];
    return true;
}

wk_status wk_merge_view(const char *op, const wk_tensor *t, int d0, int k, wk_tensor **out)
{
    int64_t size, stride, sh[WK_MAX_RANK], st[WK_MAX_RANK];
    wk_tensor *c = NULL;
    const wk_tensor *src = t;
    if (!merged_dim(t, d0, k, &size, &stride)) {
        WK_TRY(wk_copy_contiguous(op, t, &c));
        src = c;
        merged_dim(src, d0, k, &size, &stride);
    }
    int r = 0;
    for (int d = 0; d < src->rank; d++) {
        if (d > d0 && d < d0 + k)
            continue;
        sh[r] = d == d0 ? size : src->shape[d];
        st[r++] = d == d0 ? stride : src->strides[d];
    }
    wk_status s = wk_tensor_view(src, r, sh, st, src->offset, out);
    wk_tensor_release(c);
    return s;
}

wk_status wk_reduce_dims(const char *op, const wk_tensor *x, const int *dims, int ndims, bool *reduced)
{
    if (ndims < 0 || ndims > (x->rank > 0 ? x->rank : 1))
        return wk_error(WK_ERR_SHAPE, "%s: %d dims listed for rank %d", op, ndims, x->rank);
    if (ndims > 0 && !dims)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: dims is NULL with ndims %d", op, ndims);
    for (int i = 0; i < ndims; i++) {
        int d = 0;
        if (x->rank == 0) {
            if (dims[i] != 0 && dims[i] != -1)
                return wk_error(WK_ERR_SHAPE, "%s: dim %d out of range for rank 0", op, dims[i]);
            continue;
        }
        WK_TRY(wk_norm_dim(op, dims[i], x->rank, &d));
        if (reduced[d])
            return wk_error(WK_ERR_SHAPE, "%s: dim %d listed twice", op, dims[i]);
        reduced[d] = true;
    }
    for (int d = 0; ndims == 0 && d < x->rank; d++)
        reduced[d] = true;
    return WK_OK;
}

wk_status wk_check_linear_operands(const char *op, const wk_tensor *x, const wk_tensor *w, bool float_w)
{
    char b1[200], b2[200];
    WK_TRY(wk_check_tensor(op, "x", x));
    WK_TRY(wk_check_tensor_q(op, "w", w));
    WK_TRY(wk_check_same_device(op, x, w));
    if (x->dtype != WK_F32 && x->dtype != WK_F16 && x->dtype != WK_BF16)
        return wk_error(WK_ERR_DTYPE, "%s: x %s: dtype not supported (f32, f16, bf16)", op,
                        wk_describe(b1, sizeof b1, x));
    if (float_w && !wk_dtype_is_quantized(w->dtype) && w->dtype != x->dtype)
        return wk_error(WK_ERR_DTYPE, "%s: w %s must be of x's dtype %s or block-quantized", op,
                        wk_describe(b1, sizeof b1, w), wk_dtype_name(x->dtype));
    if (!float_w && !wk_dtype_is_quantized(w->dtype))
        return wk_error(WK_ERR_DTYPE, "%s: w %s is not of a block-quantized dtype (wk_matmul multiplies float weights)",
                        op, wk_describe(b1, sizeof b1, w));
    if (w->rank != 2)
        return wk_error(WK_ERR_SHAPE, "%s: w %s must be a matrix (N, K)", op, wk_describe(b1, sizeof b1, w));
    if (x->rank < 1 || x->shape[x->rank - 1] != w->shape[1])
        return wk_error(WK_ERR_SHAPE, "%s: x %s must be (..., K) with K = w's columns, w %s", op,
                        wk_describe(b1, sizeof b1, x), wk_describe(b2, sizeof b2, w));
    return WK_OK;
}
