/* copy_async.c: the asynchronous transfers of host bytes (wick.h "streams"): into a tensor, and a tensor's bytes to
 * the host, queued on the calling thread's current stream through the backend's stream table (wk_to_device_async
 * shares wk_to_device's code in copy.c). */
#include "backend.h"
#include "core/error.h"
#include "ops/common.h"

static const wk_stream_backend *table(const wk_device *dev) { return dev->backend->streams; }

wk_status wk_tensor_write_async(wk_tensor *t, const void *src, size_t src_bytes)
{
    static const char op[] = "tensor_write_async";
    WK_TRY(wk_check_tensor_q(op, "tensor", t));
    WK_TRY(wk_check_writable(op, t));
    if (!wk_tensor_is_contiguous(t))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: the tensor is not contiguous (write into wk_contiguous's copy "
                        "and wk_copy_into it)", op);
    size_t bytes = wk_tensor_nbytes(t);
    if (src_bytes != bytes)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: src holds %zu bytes, the tensor %zu", op, src_bytes, bytes);
    if (bytes == 0)
        return WK_OK;
    if (!src)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: src is NULL", op);
    return table(wk_dev(t))->upload_async(wk_dev(t), wk_tensor_data(t), src, bytes);
}

wk_status wk_tensor_to_host_async(const wk_tensor *t, void *dst, size_t dst_bytes)
{
    static const char op[] = "tensor_to_host_async";
    WK_TRY(wk_check_tensor_q(op, "tensor", t));
    size_t bytes = wk_tensor_nbytes(t);
    if (bytes == 0)
        return WK_OK;
    if (!dst)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: dst is NULL", op);
    if (dst_bytes < bytes)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: dst holds %zu bytes, the tensor needs %zu", op, dst_bytes,
                        bytes);
    if (wk_dtype_is_quantized(t->dtype) && !wk_tensor_is_contiguous(t))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: a strided block-quantized tensor goes through "
                        "wk_tensor_to_host", op);
    wk_device *dev = wk_dev(t);
    if (wk_tensor_is_contiguous(t))
        return table(dev)->download_async(dev, dst, wk_tensor_data(t), bytes);
    wk_tensor *c = NULL;
    WK_TRY(wk_copy_contiguous(op, t, &c));
    wk_status s = table(dev)->download_async(dev, dst, wk_tensor_data(c), bytes);
    wk_tensor_release(c); /* stream-ordered: the queued copy still reads it */
    return s;
}
