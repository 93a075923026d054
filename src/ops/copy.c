/* copy.c: the copy family's front end: fills (fill, zeros, ones, full), copies (contiguous, to_device, copy2d,
 * copy_into, slice_set, cat) and tensor_to_host. Validation and views here; every byte moves in a backend slot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/common.h"

/* ---------------------------------------------------------------- fills */

static wk_status full_named(const char *op, wk_device *dev, wk_dtype dt, int rank, const int64_t *shape,
                            double value, wk_tensor **out)
{
    wk_tensor *t = NULL;
    WK_TRY(wk_check_new(op, dev, dt, rank, shape, out));
    WK_TRY(wk_alloc_output(op, dev, dt, rank, shape, &t));
    wk_status s = WK_CHECK_SLOT(op, t, fill);
    if (s == WK_OK)
        s = WK_SLOT(t, fill, t, wk_scalar_storage(dt, value));
    return wk_finish(s, t, out);
}

wk_status wk_zeros(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wk_tensor **out)
{
    return full_named("zeros", dev, dt, rank, shape, 0.0, out);
}

wk_status wk_ones(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wk_tensor **out)
{
    return full_named("ones", dev, dt, rank, shape, 1.0, out);
}

wk_status wk_full(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, double value, wk_tensor **out)
{
    return full_named("full", dev, dt, rank, shape, value, out);
}

wk_status wk_fill(wk_tensor *t, double value)
{
    static const char op[] = "fill";
    WK_TRY(wk_check_tensor(op, "tensor", t));
    WK_TRY(wk_check_writable(op, t));
    WK_TRY(WK_CHECK_SLOT(op, t, fill));
    return WK_SLOT(t, fill, t, wk_scalar_storage(t->dtype, value));
}

/* ---------------------------------------------------------------- copies */

/* A new contiguous tensor of t's shape on t's device holding t's values. */
wk_status wk_copy_contiguous(const char *op, const wk_tensor *t, wk_tensor **out)
{
    wk_tensor *c = NULL;
    WK_TRY(wk_alloc_output(op, wk_dev(t), t->dtype, t->rank, t->shape, &c));
    wk_status s = WK_CHECK_SLOT(op, c, copy);
    if (s == WK_OK)
        s = WK_SLOT(c, copy, t, c);
    return wk_finish(s, c, out);
}

wk_status wk_contiguous(const wk_tensor *t, wk_tensor **out)
{
    static const char op[] = "contiguous";
    WK_TRY(wk_check_tensor(op, "tensor", t));
    WK_TRY(wk_check_out(op, out));
    return wk_copy_contiguous(op, t, out);
}

/* wk_to_device, and with async wk_to_device_async: the host <-> device copy queued through the stream table (a copy
 * between two GPUs stays synchronous through host memory). */
static wk_status to_device(const char *op, const wk_tensor *t, wk_device *dev, bool async, wk_tensor **out)
{
    WK_TRY(wk_check_tensor_q(op, "tensor", t));
    WK_TRY(wk_check_out(op, out));
    if (!dev)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: device is NULL", op);
    if (wk_dtype_is_quantized(t->dtype))
        return wk_quant_to_device(op, t, dev, out);
    if (dev == wk_dev(t))
        return wk_copy_contiguous(op, t, out);
    /* Across devices (and backends) the bytes go through host memory: source made contiguous on its own
     * device, then one upload from it (a CPU source), one download into the result (a CPU destination), or a
     * download and an upload through a host buffer (between two GPUs). */
    wk_tensor *src = NULL, *dst = NULL;
    void *host = NULL;
    size_t bytes = 0; /* every tensor's numel * size fits in int64 (core/tensor.h wk_check_shape) */
    WK_TRY(wk_check_shape(op, t->rank, t->shape, (int64_t)wk_dtype_size(t->dtype), &bytes));
    wk_status s = wk_tensor_is_contiguous(t) ? WK_OK : wk_copy_contiguous(op, t, &src);
    if (s == WK_OK)
        s = wk_alloc_output(op, dev, t->dtype, t->rank, t->shape, &dst);
    const wk_tensor *from = src ? src : t;
    if (s == WK_OK && bytes > 0 && wk_be(from) == &wk_cpu_backend)
        s = (async ? dev->backend->streams->upload_async : dev->backend->upload)(dev, wk_tensor_data(dst),
                                                                                 wk_tensor_data(from), bytes);
    else if (s == WK_OK && bytes > 0 && dev->backend == &wk_cpu_backend)
        s = (async ? wk_be(from)->streams->download_async : wk_be(from)->download)(wk_dev(from), wk_tensor_data(dst),
                                                                                   wk_tensor_data(from), bytes);
    else if (s == WK_OK && bytes > 0) {
        host = malloc(bytes);
        if (!host)
            s = wk_error(WK_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of host staging", op, bytes);
        if (s == WK_OK)
            s = wk_be(from)->download(wk_dev(from), host, wk_tensor_data(from), bytes);
        if (s == WK_OK)
            s = dev->backend->upload(dev, wk_tensor_data(dst), host, bytes);
    }
    free(host);
    wk_tensor_release(src);
    return wk_finish(s, dst, out);
}

wk_status wk_to_device(const wk_tensor *t, wk_device *dev, wk_tensor **out)
{
    return to_device("to_device", t, dev, false, out);
}

wk_status wk_to_device_async(const wk_tensor *t, wk_device *dev, wk_tensor **out)
{
    return to_device("to_device_async", t, dev, true, out);
}

/* a + b*c + d <= limit for non-negative operands, without overflow. */
static bool span_fits(int64_t a, int64_t b, int64_t c, int64_t d, int64_t limit)
{
    if (b > 0 && c > (limit - a) / b)
        return false;
    int64_t sum = a + b * c;
    return d <= limit - sum;
}

wk_status wk_copy2d(const wk_tensor *src, wk_tensor *dst, int64_t rows, int64_t cols, int64_t src_ld,
                    int64_t dst_ld, int64_t src_offset, int64_t dst_offset)
{
    static const char op[] = "copy2d";
    WK_TRY(wk_check_tensor(op, "src", src));
    WK_TRY(wk_check_tensor(op, "dst", dst));
    WK_TRY(wk_check_same_device(op, src, dst));
    WK_TRY(wk_check_same_dtype(op, src, dst));
    if (dst->storage->read_only)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: dst is read-only (a file mapping or a read-only import)", op);
    if (rows < 0 || cols < 0 || src_ld < 0 || dst_ld < 0 || src_offset < 0 || dst_offset < 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT,
                        "%s: negative argument (rows %lld, cols %lld, src_ld %lld, dst_ld %lld, offsets %lld, %lld)",
                        op, (long long)rows, (long long)cols, (long long)src_ld, (long long)dst_ld,
                        (long long)src_offset, (long long)dst_offset);
    if (rows == 0 || cols == 0)
        return WK_CHECK_SLOT(op, dst, copy2d);
    if (rows > 1 && dst_ld < cols)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: dst_ld %lld is below cols %lld (rows would overlap)", op,
                        (long long)dst_ld, (long long)cols);
    int64_t es = (int64_t)wk_dtype_size(dst->dtype);
    int64_t src_cap = (int64_t)(src->storage->bytes / (size_t)es);
    int64_t dst_cap = (int64_t)(dst->storage->bytes / (size_t)es);
    /* last element touched: offset + (rows-1)*ld + cols-1, which must be < cap */
    if (!span_fits(src_offset, rows - 1, src_ld, cols, src_cap))
        return wk_error(WK_ERR_SHAPE, "%s: src block (offset %lld, %lld rows of %lld, ld %lld) exceeds %lld elements",
                        op, (long long)src_offset, (long long)rows, (long long)cols, (long long)src_ld,
                        (long long)src_cap);
    if (!span_fits(dst_offset, rows - 1, dst_ld, cols, dst_cap))
        return wk_error(WK_ERR_SHAPE, "%s: dst block (offset %lld, %lld rows of %lld, ld %lld) exceeds %lld elements",
                        op, (long long)dst_offset, (long long)rows, (long long)cols, (long long)dst_ld,
                        (long long)dst_cap);
    if (src->storage == dst->storage) {
        /* Conservative: the blocks' address ranges must be disjoint, so no backend has an order to honour. */
        int64_t src_end = src_offset + (rows - 1) * src_ld + cols, dst_end = dst_offset + (rows - 1) * dst_ld + cols;
        if (src_offset < dst_end && dst_offset < src_end)
            return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: src and dst blocks overlap in one storage", op);
    }
    WK_TRY(WK_CHECK_SLOT(op, dst, copy2d));
    return wk_be(dst)->copy2d(src, dst, rows, cols, src_ld, dst_ld, src_offset, dst_offset);
}

/* First and one-past-last element a view addresses in its storage (numel > 0). */
static void view_span(const wk_tensor *t, int64_t *first, int64_t *end)
{
    int64_t last = t->offset;
    for (int i = 0; i < t->rank; i++)
        last += (t->shape[i] - 1) * t->strides[i];
    *first = t->offset;
    *end = last + 1;
}

/* dst (validated: writable, same dtype/device) = src broadcast to dst's shape. When src may share memory
 * with dst, src is first copied to a fresh tensor, so the result never depends on the order of writes. */
static wk_status copy_to_view(const char *op, const wk_tensor *src, wk_tensor *dst)
{
    wk_tensor *b = NULL, *tmp = NULL;
    WK_TRY(WK_CHECK_SLOT(op, dst, copy));
    if (wk_tensor_numel(dst) == 0)
        return WK_OK;
    if (src->storage == dst->storage && wk_tensor_numel(src) > 0) {
        int64_t s0, s1, d0, d1;
        view_span(src, &s0, &s1);
        view_span(dst, &d0, &d1);
        if (s0 < d1 && d0 < s1) {
            WK_TRY(wk_copy_contiguous(op, src, &tmp));
            src = tmp;
        }
    }
    wk_status s = wk_broadcast_view(op, src, dst->rank, dst->shape, &b);
    if (s == WK_OK)
        s = WK_SLOT(dst, copy, b, dst);
    wk_tensor_release(b);
    wk_tensor_release(tmp);
    return s;
}

wk_status wk_copy_into(wk_tensor *dst, const wk_tensor *src)
{
    static const char op[] = "copy_into";
    char b1[128], b2[128];
    WK_TRY(wk_check_tensor(op, "dst", dst));
    WK_TRY(wk_check_tensor(op, "src", src));
    WK_TRY(wk_check_same_device(op, src, dst));
    WK_TRY(wk_check_same_dtype(op, src, dst));
    WK_TRY(wk_check_writable(op, dst));
    int rank;
    int64_t shape[WK_MAX_RANK];
    WK_TRY(wk_broadcast_shape(op, src->rank, src->shape, dst->rank, dst->shape, &rank, shape));
    if (rank != dst->rank || memcmp(shape, dst->shape, (size_t)rank * sizeof *shape) != 0)
        return wk_error(WK_ERR_SHAPE, "%s: src %s does not broadcast to dst %s", op,
                        wk_shape_str(b1, sizeof b1, src->rank, src->shape),
                        wk_shape_str(b2, sizeof b2, dst->rank, dst->shape));
    return copy_to_view(op, src, dst);
}

wk_status wk_slice_set(wk_tensor *dst, const wk_tensor *src, int dim, int64_t start)
{
    static const char op[] = "slice_set";
    char b1[128], b2[128];
    int d;
    WK_TRY(wk_check_tensor(op, "dst", dst));
    WK_TRY(wk_check_tensor(op, "src", src));
    WK_TRY(wk_check_same_device(op, src, dst));
    WK_TRY(wk_check_same_dtype(op, src, dst));
    WK_TRY(wk_norm_dim(op, dim, dst->rank, &d));
    bool fits = src->rank == dst->rank;
    for (int i = 0; fits && i < dst->rank; i++)
        fits = i == d || src->shape[i] == dst->shape[i];
    if (!fits)
        return wk_error(WK_ERR_SHAPE, "%s: src %s does not match dst %s off dim %d", op,
                        wk_shape_str(b1, sizeof b1, src->rank, src->shape),
                        wk_shape_str(b2, sizeof b2, dst->rank, dst->shape), d);
    int64_t len = src->shape[d];
    if (start < 0 || start > dst->shape[d] - len)
        return wk_error(WK_ERR_SHAPE, "%s: %lld rows from %lld outside dim %d of size %lld", op, (long long)len,
                        (long long)start, d, (long long)dst->shape[d]);
    WK_TRY(wk_check_writable(op, dst));
    int64_t shape[WK_MAX_RANK];
    memcpy(shape, dst->shape, sizeof shape);
    shape[d] = len;
    wk_tensor *region = NULL;
    WK_TRY(wk_tensor_view(dst, dst->rank, shape, dst->strides, dst->offset + (len ? start * dst->strides[d] : 0),
                          &region));
    wk_status s = copy_to_view(op, src, region);
    wk_tensor_release(region);
    return s;
}

wk_status wk_cat(const wk_tensor *const *ts, int n, int dim, wk_tensor **out)
{
    static const char op[] = "cat";
    char b1[128], b2[128];
    int d;
    WK_TRY(wk_check_out(op, out));
    if (!ts)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: tensor list is NULL", op);
    if (n < 1)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: %d tensors (need at least 1)", op, n);
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "tensor %d", i);
        WK_TRY(wk_check_tensor(op, name, ts[i]));
    }
    const wk_tensor *t0 = ts[0];
    WK_TRY(wk_norm_dim(op, dim, t0->rank, &d));
    int64_t shape[WK_MAX_RANK];
    memcpy(shape, t0->shape, sizeof shape);
    shape[d] = 0;
    for (int i = 0; i < n; i++) {
        const wk_tensor *t = ts[i];
        WK_TRY(wk_check_same_device(op, t0, t));
        WK_TRY(wk_check_same_dtype(op, t0, t));
        bool fits = t->rank == t0->rank;
        for (int k = 0; fits && k < t0->rank; k++)
            fits = k == d || t->shape[k] == t0->shape[k];
        if (!fits)
            return wk_error(WK_ERR_SHAPE, "%s: tensor %d of shape %s does not match %s off dim %d", op, i,
                            wk_shape_str(b1, sizeof b1, t->rank, t->shape),
                            wk_shape_str(b2, sizeof b2, t0->rank, t0->shape), d);
        if (t->shape[d] > INT64_MAX - shape[d])
            return wk_error(WK_ERR_SHAPE, "%s: concatenated dim %d is too large", op, d);
        shape[d] += t->shape[d];
    }
    wk_tensor *o = NULL;
    WK_TRY(wk_alloc_output(op, wk_dev(t0), t0->dtype, t0->rank, shape, &o));
    wk_status s = WK_CHECK_SLOT(op, o, copy);
    int64_t at = 0;
    for (int i = 0; i < n && s == WK_OK; i++) {
        int64_t len = ts[i]->shape[d];
        if (wk_tensor_numel(ts[i]) > 0) { /* an empty part makes no view */
            wk_tensor *part = NULL;
            int64_t part_shape[WK_MAX_RANK];
            memcpy(part_shape, o->shape, sizeof part_shape);
            part_shape[d] = len;
            s = wk_tensor_view(o, o->rank, part_shape, o->strides, o->offset + at * o->strides[d], &part);
            if (s == WK_OK)
                s = WK_SLOT(part, copy, ts[i], part);
            wk_tensor_release(part);
        }
        at += len;
    }
    return wk_finish(s, o, out);
}

/* In ops/, not core/: a strided tensor reaches the host through a contiguous copy, an op. */
wk_status wk_tensor_to_host(const wk_tensor *t, void *dst, size_t dst_bytes)
{
    if (!t)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "tensor_to_host: tensor is NULL");
    if (wk_dtype_is_quantized(t->dtype))
        return wk_quant_to_host(t, dst, dst_bytes);
    size_t bytes = 0; /* every tensor's numel * size fits in int64 (core/tensor.h wk_check_shape) */
    WK_TRY(wk_check_shape("tensor_to_host", t->rank, t->shape, (int64_t)wk_dtype_size(t->dtype), &bytes));
    if (bytes == 0)
        return WK_OK;
    if (!dst)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "tensor_to_host: dst is NULL");
    if (dst_bytes < bytes)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "tensor_to_host: dst holds %zu bytes, tensor needs %zu", dst_bytes,
                        bytes);
    wk_device *dev = t->storage->device;
    if (wk_tensor_is_contiguous(t))
        return dev->backend->download(dev, dst, wk_tensor_data(t), bytes);
    wk_tensor *c = NULL;
    WK_TRY(wk_contiguous(t, &c));
    wk_status s = dev->backend->download(dev, dst, wk_tensor_data(c), bytes);
    wk_tensor_release(c);
    return s;
}
