/* backend.c: the two GPU backends (cuda, rocm): one set of vendor-neutral slots bound to each vendor's runtime
 * table (runtime.h); probing a vendor, and its devices, opened on first use and kept for the process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/device.h"

/* ---------------------------------------------------------------- vendor libraries */
const wk_gpu_blas *wk_gpu_blas_of(wk_gpu_dev *d, const char **why)
{
    *why = "no BLAS library is wired for this vendor";
    return d->rt->blas ? d->rt->blas(d, why) : NULL;
}

const wk_gpu_dnn *wk_gpu_dnn_of(wk_gpu_dev *d, const char **why)
{
    *why = "no DNN library is wired for this vendor";
    return d->rt->dnn ? d->rt->dnn(d, why) : NULL;
}

/* ---------------------------------------------------------------- devices */
static void probe_locked(wk_gpu_vendor *v)
{
    const wk_gpu_runtime *rt = v->rt;
    const char *why = NULL;
    v->probed = true;
    v->device_count = 0;
    v->probe_status = WK_ERR_DEVICE;
    if (rt->load(&why) != WK_OK) {
        snprintf(v->detail, sizeof v->detail, "%s", why);
        return;
    }
    int n = 0;
    wk_status s = rt->device_count(&n);
    if (s != WK_OK || n == 0) {
        snprintf(v->detail, sizeof v->detail, "%s loaded (driver %s) but it reports no %s device%s%s",
                 rt->vendor_lib, rt->driver_version(), rt->backend, s != WK_OK ? ": " : "",
                 s != WK_OK ? wk_last_error() : "");
        return;
    }
    if (*rt->image_count == 0) {
        snprintf(v->detail, sizeof v->detail, "%d device(s) found, but this build has no %s kernels (its compiler "
                 "was not found when wick was built)", n, rt->backend);
        return;
    }
    v->device_count = n;
    v->probe_status = WK_OK;
    const char *lw = getenv("WICK_GPU_LOGICAL_WARP");
    snprintf(v->detail, sizeof v->detail, "%d device(s), %s driver %s, kernels for %s%s%s%s", n, rt->vendor_lib,
             rt->driver_version(), rt->targets, lw && *lw ? "; WICK_GPU_LOGICAL_WARP=" : "", lw && *lw ? lw : "",
             lw && *lw ? " (logical warp width of the reductions)" : "");
}

static wk_status gpu_probe(wk_gpu_vendor *v, wk_backend_info *info)
{
    pthread_mutex_lock(&v->lock);
    if (!v->probed)
        probe_locked(v);
    pthread_mutex_unlock(&v->lock);
    info->name = v->rt->backend;
    info->available = v->probe_status == WK_OK;
    info->device_count = v->device_count;
    info->detail = v->detail;
    return WK_OK;
}

static wk_status gpu_device(wk_gpu_vendor *v, int ordinal, wk_device **out)
{
    wk_backend_info info;
    gpu_probe(v, &info);
    if (!info.available)
        return wk_error(WK_ERR_DEVICE, "device_get: %s:%d: %s", v->rt->backend, ordinal, info.detail);
    if (ordinal < 0 || ordinal >= info.device_count || ordinal >= WK_GPU_MAX_DEVICES)
        return wk_error(WK_ERR_DEVICE, "device_get: %s:%d: %d device(s) found", v->rt->backend, ordinal,
                        info.device_count);
    wk_status s = WK_OK;
    pthread_mutex_lock(&v->lock);
    if (!v->devs[ordinal])
        s = wk_gpu_dev_open(v, ordinal, &v->devs[ordinal]);
    pthread_mutex_unlock(&v->lock);
    if (s == WK_OK)
        *out = &v->devs[ordinal]->base;
    return s;
}

/* ---------------------------------------------------------------- backend tables */
/* The slots every GPU vendor shares; only probe and device differ (they pick the runtime). */
#define WK_GPU_SLOTS                                                                                              \
    .alloc = wk_gpu_slot_alloc, .free = wk_gpu_slot_free, .upload = wk_gpu_slot_upload,                         \
    .download = wk_gpu_slot_download, .sync = wk_gpu_slot_sync, .native_stream = wk_gpu_native_stream,          \
    .order_stream = wk_gpu_order_stream, .host_alloc_pinned = wk_gpu_host_alloc_pinned,                         \
    .upload_fill = wk_gpu_upload_fill,                                                                           \
    .host_free_pinned = wk_gpu_host_free_pinned, .streams = &wk_gpu_streams,                                      \
    .fill = wk_gpu_fill, .arange = wk_gpu_arange, .rand_uniform = wk_gpu_rand_uniform,                           \
    .rand_normal = wk_gpu_rand_normal, .copy = wk_gpu_copy, .cast = wk_gpu_cast, .copy2d = wk_gpu_copy2d,       \
    .unary = wk_gpu_unary, .affine = wk_gpu_affine, .powf = wk_gpu_powf, .elu = wk_gpu_elu,                      \
    .leaky_relu = wk_gpu_leaky_relu, .glu = wk_gpu_glu, .tri = wk_gpu_tri, .masked_fill = wk_gpu_masked_fill,    \
    .clamp = wk_gpu_clamp, .binary = wk_gpu_binary, .compare = wk_gpu_compare, .where = wk_gpu_where,           \
    .reduce = wk_gpu_reduce, .arg_reduce = wk_gpu_arg_reduce, .softmax = wk_gpu_softmax,                         \
    .rms_norm = wk_gpu_rms_norm, .add_rms_norm = wk_gpu_add_rms_norm, .layer_norm = wk_gpu_layer_norm,           \
    .batch_norm = wk_gpu_batch_norm,                                                                             \
    .group_norm = wk_gpu_group_norm, .stats = wk_gpu_stats, .scan = wk_gpu_scan, .sort = wk_gpu_sort,            \
    .topk = wk_gpu_topk, .sample_penalize = wk_gpu_sample_penalize, .sample_pick = wk_gpu_sample_pick,           \
    .multinomial = wk_gpu_multinomial, .matmul = wk_gpu_matmul,                                                  \
    .conv = wk_gpu_conv, .pool2d = wk_gpu_pool2d, .upsample_nearest = wk_gpu_upsample_nearest,                   \
    .upsample_bilinear2d = wk_gpu_upsample_bilinear2d, .index_select = wk_gpu_index_select,                      \
    .gather = wk_gpu_gather, .scatter = wk_gpu_scatter, .index_add = wk_gpu_index_add,                          \
    .reorder = wk_gpu_reorder, .one_hot = wk_gpu_one_hot, .rope = wk_gpu_rope, .attention = wk_gpu_attention,      \
    .kv_append = wk_gpu_kv_append, .attention_kv = wk_gpu_attention_kv, .dequantize = wk_gpu_dequantize,          \
    .quantize = wk_gpu_quantize, .matmul_q = wk_gpu_matmul_q, .linear = wk_gpu_linear, .linear_max_rows = 1

/* One GPU backend per vendor: its state, its probe and device entry points, and its table. */
#define WK_GPU_BACKEND(vendor, runtime, targets)                                                                  \
    static wk_gpu_vendor vendor##_state = {.rt = &runtime, .backend = &wk_##vendor##_backend,                    \
                                           .lock = PTHREAD_MUTEX_INITIALIZER};                                   \
    static wk_status vendor##_probe(wk_backend_info *info) { return gpu_probe(&vendor##_state, info); }           \
    static wk_status vendor##_device(int ordinal, wk_device **out)                                                \
    {                                                                                                             \
        return gpu_device(&vendor##_state, ordinal, out);                                                         \
    }                                                                                                             \
    const wk_backend wk_##vendor##_backend = {.name = #vendor, .kernel_targets = targets, .probe = vendor##_probe, \
                                             .device = vendor##_device, .comm = &wk_##vendor##_comm,     \
                                             WK_GPU_SLOTS};

WK_GPU_BACKEND(cuda, wk_cuda_runtime, wk_cuda_targets)
WK_GPU_BACKEND(rocm, wk_hip_runtime, wk_hip_targets)
