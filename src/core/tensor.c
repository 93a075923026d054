/* tensor.c: tensor and storage lifetimes (refcounts), contiguous allocation, metadata accessors, and
 * host transfer. Views are built in ops/view.c on top of wk_tensor_view. */
#include "core/tensor.h"

#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "core/error.h"
#include "core/fault.h"

int64_t wk_numel(int rank, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    return n;
}

void wk_contiguous_strides(int rank, const int64_t *shape, int64_t *strides)
{
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; i--) {
        strides[i] = s;
        s = wk_mul_sat(s, shape[i] > 0 ? shape[i] : 1); /* saturates only for an empty tensor's strides */
    }
}

static void storage_release(wk_storage *s)
{
    if (s && atomic_fetch_sub(&s->refcount, 1) == 1) {
        if (!s->foreign)
            s->device->backend->free(s->device, s->data, s->bytes);
        else if (s->deleter)
            s->deleter(s->deleter_ctx);
        free(s);
    }
}

wk_status wk_check_shape(const char *op, int rank, const int64_t *shape, int64_t elsize, size_t *bytes)
{
    char buf[160];
    if (rank < 0 || rank > WK_MAX_RANK)
        return wk_error(WK_ERR_SHAPE, "%s: rank %d outside 0..%d", op, rank, WK_MAX_RANK);
    if (rank > 0 && !shape)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: shape is NULL for rank %d", op, rank);
    int64_t n = 1;    /* the product with sizes 0 counted as 1: the limit does not depend on the order */
    bool empty = false;
    for (int i = 0; i < rank; i++) {
        if (shape[i] < 0)
            return wk_error(WK_ERR_SHAPE, "%s: negative size in shape %s", op,
                            wk_shape_str(buf, sizeof buf, rank, shape));
        if (shape[i] > 0 && n > (INT64_MAX / elsize) / shape[i])
            return wk_error(WK_ERR_SHAPE, "%s: shape %s is too large (%lld-byte elements: more than 2^63-1 bytes)",
                            op, wk_shape_str(buf, sizeof buf, rank, shape), (long long)elsize);
        empty = empty || shape[i] == 0;
        n *= shape[i] > 0 ? shape[i] : 1;
    }
    if (bytes)
        *bytes = empty ? 0 : (size_t)(n * elsize);
    return WK_OK;
}

/* The shape rule of a block-quantized tensor: rank >= 1 and whole blocks in the last dim. */
wk_status wk_check_qshape(const char *op, wk_dtype dt, int rank, const int64_t *shape)
{
    char buf[160];
    if (!wk_dtype_is_quantized(dt))
        return WK_OK;
    if (rank < 1 || rank > WK_MAX_RANK || !shape)
        return wk_error(WK_ERR_SHAPE, "%s: a %s tensor needs rank 1..%d (rows of blocks), got rank %d", op,
                        wk_dtype_name(dt), WK_MAX_RANK, rank);
    if (shape[rank - 1] % wk_dtype_block_size(dt) != 0)
        return wk_error(WK_ERR_SHAPE, "%s: the last dim of a %s tensor must be a multiple of %lld (its block), got %s",
                        op, wk_dtype_name(dt), (long long)wk_dtype_block_size(dt),
                        wk_shape_str(buf, sizeof buf, rank, shape));
    return WK_OK;
}

size_t wk_tensor_nbytes(const wk_tensor *t) { return t ? wk_dtype_span(t->dtype, wk_tensor_numel(t)) : 0; }

wk_status wk_tensor_alloc(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wk_tensor **out)
{
    size_t bytes = 0;
    if (!dev)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "tensor: device is NULL");
    if (wk_dtype_size_bound(dt) == 0)
        return wk_error(WK_ERR_DTYPE, "tensor: invalid dtype %d", (int)dt);
    WK_TRY(wk_check_shape("tensor", rank, shape, wk_dtype_size_bound(dt), &bytes));
    WK_TRY(wk_check_qshape("tensor", dt, rank, shape));
    if (bytes)
        bytes = wk_dtype_span(dt, wk_numel(rank, shape));
    wk_storage *s = calloc(1, sizeof *s);
    wk_tensor *t = calloc(1, sizeof *t);
    if (!s || !t) {
        free(s);
        free(t);
        return wk_error(WK_ERR_OUT_OF_MEMORY, "tensor: out of host memory");
    }
    wk_status st = wk_fi_fail(WK_FI_DEVICE)
                       ? wk_error(WK_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes (injected)", dev->name, bytes)
                       : dev->backend->alloc(dev, bytes, &s->data);
    if (st != WK_OK) {
        free(s);
        free(t);
        return st;
    }
    atomic_init(&s->refcount, 1);
    s->device = dev;
    s->bytes = bytes;
    atomic_init(&t->refcount, 1);
    t->storage = s;
    t->dtype = dt;
    t->rank = rank;
    if (rank)
        memcpy(t->shape, shape, (size_t)rank * sizeof *shape);
    wk_contiguous_strides(rank, t->shape, t->strides);
    *out = t;
    return WK_OK;
}

wk_status wk_tensor_wrap_foreign(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, const int64_t *strides,
                                 void *ptr, bool read_only, wk_deleter deleter, void *ctx, wk_tensor **out)
{
    static const char op[] = "tensor_wrap";
    size_t bytes = 0;
    char buf[160];
    if (!dev || !out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op, !dev ? "device" : "out");
    if (wk_dtype_is_quantized(dt))
        return wk_error(WK_ERR_DTYPE, "%s: block-quantized dtype %s: wrap the blocks as u8, or copy them in with "
                        "wk_tensor_from_host", op, wk_dtype_name(dt));
    if (wk_dtype_size(dt) == 0)
        return wk_error(WK_ERR_DTYPE, "%s: invalid dtype %d", op, (int)dt);
    WK_TRY(wk_check_shape(op, rank, shape, (int64_t)wk_dtype_size(dt), &bytes));
    int64_t st[WK_MAX_RANK];
    if (strides) {
        /* the extent: 1 + sum (shape-1)*stride elements, without overflow */
        int64_t last = 0, es = (int64_t)wk_dtype_size(dt);
        for (int i = 0; i < rank; i++) {
            if (strides[i] < 0)
                return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: negative stride %lld in dim %d (wick's strides are >= 0)",
                                op, (long long)strides[i], i);
            st[i] = strides[i];
            if (shape[i] > 1 && strides[i] > (INT64_MAX / es - last) / (shape[i] - 1))
                return wk_error(WK_ERR_SHAPE, "%s: shape %s with its strides spans more than 2^63 bytes", op,
                                wk_shape_str(buf, sizeof buf, rank, shape));
            if (shape[i] > 1)
                last += (shape[i] - 1) * strides[i];
        }
        bytes = bytes ? (size_t)((last + 1) * es) : 0;
    } else {
        wk_contiguous_strides(rank, shape, st);
    }
    if (bytes && !ptr)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: ptr is NULL for %zu bytes", op, bytes);
    wk_storage *s = calloc(1, sizeof *s);
    wk_tensor *t = calloc(1, sizeof *t);
    if (!s || !t) {
        free(s);
        free(t);
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    }
    *s = (wk_storage){.device = dev, .data = ptr, .bytes = bytes, .foreign = true, .read_only = read_only,
                      .deleter = deleter, .deleter_ctx = ctx};
    atomic_init(&s->refcount, 1);
    atomic_init(&t->refcount, 1);
    t->storage = s;
    t->dtype = dt;
    t->rank = rank;
    if (rank) {
        memcpy(t->shape, shape, (size_t)rank * sizeof *shape);
        memcpy(t->strides, st, (size_t)rank * sizeof *st);
    }
    *out = t;
    return WK_OK;
}

wk_status wk_tensor_wrap(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, const int64_t *strides,
                         void *ptr, wk_deleter deleter, void *ctx, wk_tensor **out)
{
    return wk_tensor_wrap_foreign(dev, dt, rank, shape, strides, ptr, false, deleter, ctx, out);
}

bool wk_tensor_is_read_only(const wk_tensor *t) { return t && t->storage->read_only; }

wk_status wk_tensor_view(const wk_tensor *src, int rank, const int64_t *shape, const int64_t *strides,
                         int64_t offset, wk_tensor **out)
{
    wk_tensor *t = calloc(1, sizeof *t);
    if (!t)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "tensor: out of host memory");
    atomic_init(&t->refcount, 1);
    t->storage = src->storage;
    atomic_fetch_add(&t->storage->refcount, 1);
    t->dtype = src->dtype;
    t->rank = rank;
    if (rank) {
        memmove(t->shape, shape, (size_t)rank * sizeof *shape);
        memmove(t->strides, strides, (size_t)rank * sizeof *strides);
    }
    t->offset = offset;
    *out = t;
    return WK_OK;
}

void wk_tensor_retain(wk_tensor *t)
{
    if (t)
        atomic_fetch_add(&t->refcount, 1);
}

void wk_tensor_release(wk_tensor *t)
{
    if (t && atomic_fetch_sub(&t->refcount, 1) == 1) {
        storage_release(t->storage);
        free(t);
    }
}

wk_dtype wk_tensor_dtype(const wk_tensor *t) { return t->dtype; }
int wk_tensor_rank(const wk_tensor *t) { return t->rank; }
const int64_t *wk_tensor_shape(const wk_tensor *t) { return t->shape; }
const int64_t *wk_tensor_strides(const wk_tensor *t) { return t->strides; }
int64_t wk_tensor_offset(const wk_tensor *t) { return t->offset; }
int64_t wk_tensor_numel(const wk_tensor *t) { return wk_numel(t->rank, t->shape); }
wk_device *wk_tensor_device(const wk_tensor *t) { return t->storage->device; }

bool wk_tensor_is_contiguous(const wk_tensor *t)
{
    int64_t s = 1;
    for (int i = t->rank - 1; i >= 0; i--) {
        if (t->shape[i] == 0)
            return true;
        if (t->shape[i] != 1 && t->strides[i] != s)
            return false;
        s *= t->shape[i];
    }
    return true;
}

bool wk_tensor_has_overlap(const wk_tensor *t)
{
    /* Sort the non-trivial dims by stride; the view is overlap-free when each stride is at least the
     * extent covered by the smaller dims. */
    int idx[WK_MAX_RANK], n = 0;
    if (wk_tensor_numel(t) == 0)
        return false;
    for (int i = 0; i < t->rank; i++)
        if (t->shape[i] > 1)
            idx[n++] = i;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t->strides[idx[j]] < t->strides[idx[j - 1]]; j--) {
            int k = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = k;
        }
    int64_t extent = 1;
    for (int i = 0; i < n; i++) {
        int64_t st = t->strides[idx[i]];
        if (st < extent)
            return true;
        extent = st * (t->shape[idx[i]] - 1) + extent;
    }
    return false;
}

wk_status wk_tensor_empty(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wk_tensor **out)
{
    if (!out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "tensor_empty: out is NULL");
    return wk_tensor_alloc(dev, dt, rank, shape, out);
}

wk_status wk_tensor_from_host(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, const void *data,
                              wk_tensor **out)
{
    wk_tensor *t = NULL;
    if (!out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "tensor_from_host: out is NULL");
    WK_TRY(wk_tensor_alloc(dev, dt, rank, shape, &t));
    if (t->storage->bytes && !data) {
        wk_tensor_release(t);
        return wk_error(WK_ERR_INVALID_ARGUMENT, "tensor_from_host: data is NULL");
    }
    if (t->storage->bytes) {
        wk_status s = dev->backend->upload(dev, t->storage->data, data, t->storage->bytes);
        if (s != WK_OK) {
            wk_tensor_release(t);
            return s;
        }
    }
    *out = t;
    return WK_OK;
}
