/* tensor.h: the internal layout of devices, storage and tensors, shared by ops/ and every backend.
 * Users see only the opaque handles of wick.h. */
#ifndef WK_CORE_TENSOR_H
#define WK_CORE_TENSOR_H

#include <stdatomic.h>

#include "core/stream.h"
#include "wick.h"

typedef struct wk_backend wk_backend;

struct wk_device {
    const wk_backend *backend;
    char name[16];   /* "cpu", "cuda:0", ... */
    int ordinal;     /* index within its backend */
    void *impl;      /* backend-private state (context, stream, pools) */
    wk_stream default_stream; /* wk_stream_default: filled by the backend when it makes the device */
};

/* Refcounted memory on one device. data is a host pointer on the CPU, a device address on a GPU. Foreign
 * storage (wk_tensor_wrap, a file mapping, a DLPack import) is not the backend's: its release calls
 * deleter(deleter_ctx) (when not NULL) instead of the backend's free. */
typedef struct wk_storage {
    atomic_int refcount;
    wk_device *device;
    void *data;
    size_t bytes;
    bool foreign;
    bool read_only;       /* in-place ops refuse it (ops/common.c wk_check_writable) */
    wk_deleter deleter;
    void *deleter_ctx;
} wk_storage;

struct wk_tensor {
    atomic_int refcount;
    wk_storage *storage;
    wk_dtype dtype;
    int rank;
    int64_t shape[WK_MAX_RANK];
    int64_t strides[WK_MAX_RANK]; /* elements, >= 0 */
    int64_t offset;               /* elements from storage->data */
};

/* A new contiguous tensor with fresh storage on dev (contents undefined). */
wk_status wk_tensor_alloc(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wk_tensor **out);
/* A new handle on t's storage with the given layout (no bounds check: callers have validated it). */
wk_status wk_tensor_view(const wk_tensor *t, int rank, const int64_t *shape, const int64_t *strides,
                         int64_t offset, wk_tensor **out);

/* A tensor over foreign memory (wk_tensor_wrap's rules; strides NULL: row-major), read-only or not. The
 * storage spans the bytes the layout addresses, from ptr. */
wk_status wk_tensor_wrap_foreign(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, const int64_t *strides,
                                 void *ptr, bool read_only, wk_deleter deleter, void *ctx, wk_tensor **out);

/* Bytes n elements of dt occupy: n * size, or for a block type n / block size * block bytes (n a multiple of the
 * block size: a block-quantized view starts and spans whole rows). */
static inline size_t wk_dtype_span(wk_dtype dt, int64_t n)
{
    if ((unsigned)dt < WK_DTYPE_COUNT)
        return (size_t)n * wk_dtype_size(dt);
    return (size_t)(n / wk_dtype_block_size(dt)) * wk_dtype_block_bytes(dt);
}
/* Bytes an element may take at most, for the size limit (wk_check_shape): 2 for the block types (Q8_K, the widest,
 * takes 292 / 256). */
static inline int64_t wk_dtype_size_bound(wk_dtype dt)
{
    return wk_dtype_is_quantized(dt) ? 2 : (int64_t)wk_dtype_size(dt);
}

/* Byte address of element 0 of the view: storage data + offset * element size. On a GPU this is a
 * device address, only to be handed to the backend. */
static inline void *wk_tensor_data(const wk_tensor *t)
{
    return (char *)t->storage->data + wk_dtype_span(t->dtype, t->offset);
}

/* a * b for a, b >= 0, INT64_MAX where that overflows: for strides of dims that address nothing (an empty
 * tensor's, a size-1 dim's), whose value does not matter but whose arithmetic must stay defined. */
static inline int64_t wk_mul_sat(int64_t a, int64_t b)
{
    return b > 0 && a > INT64_MAX / b ? INT64_MAX : a * b;
}

/* The limit every tensor meets, views included: rank 0..WK_MAX_RANK, sizes >= 0, and the product of the sizes,
 * each 0 counted as 1, times elsize at most INT64_MAX (so every partial product of an empty shape fits too).
 * WK_ERR_SHAPE naming op otherwise (WK_ERR_INVALID_ARGUMENT for a NULL shape of rank > 0). bytes (may be NULL)
 * gets numel * elsize. */
wk_status wk_check_shape(const char *op, int rank, const int64_t *shape, int64_t elsize, size_t *bytes);
/* A block-quantized dt's shape rule (wick.h): rank >= 1, the last dim whole blocks; WK_ERR_SHAPE naming op. WK_OK
 * for the element dtypes. */
wk_status wk_check_qshape(const char *op, wk_dtype dt, int rank, const int64_t *shape);
/* Product of shape (1 for rank 0). */
int64_t wk_numel(int rank, const int64_t *shape);
/* Row-major strides for shape. */
void wk_contiguous_strides(int rank, const int64_t *shape, int64_t *strides);
/* True when some element is addressed twice (a stride 0, or strides that interleave). */
bool wk_tensor_has_overlap(const wk_tensor *t);

#endif
