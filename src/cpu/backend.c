/* backend.c: the CPU backend's table, its single device, and host transfers (allocation: alloc.c). Every CPU op
 * is synchronous, so sync has nothing to wait for and errors are returned by the op itself. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "cpu/cpu.h"
#include "cpu/gemm.h"

static wk_device cpu_device = {.backend = &wk_cpu_backend, .name = "cpu", .ordinal = 0, .impl = NULL,
                               .default_stream = {.dev = &cpu_device, .is_default = true}};

/* The probe's text, written once: any thread may probe (every wk_device_get does), and several at once. */
static char detail[256];
static pthread_once_t detail_once = PTHREAD_ONCE_INIT;

static void detail_init(void)
{
    const char *replaced = NULL, *core = wk_gemm_core(&replaced);
    snprintf(detail, sizeof detail, "host CPU, %d thread(s), OpenBLAS (%s kernels%s%s) for matmul", wk_cpu_threads(),
             core, replaced ? ", chosen by the CPU's features: OpenBLAS took it for " : "", replaced ? replaced : "");
}

wk_status wk_cpu_probe(wk_backend_info *info)
{
    pthread_once(&detail_once, detail_init);
    info->name = "cpu";
    info->available = true;
    info->device_count = 1;
    info->detail = detail;
    return WK_OK;
}

wk_status wk_cpu_device(int ordinal, wk_device **out)
{
    if (ordinal != 0)
        return wk_error(WK_ERR_DEVICE, "device_get: cpu has one device (cpu or cpu:0), not %d", ordinal);
    *out = &cpu_device;
    return WK_OK;
}

wk_status wk_cpu_upload(wk_device *dev, void *dst, const void *src, size_t bytes)
{
    (void)dev;
    if (bytes)
        memcpy(dst, src, bytes);
    return WK_OK;
}

wk_status wk_cpu_download(wk_device *dev, void *dst, const void *src, size_t bytes)
{
    (void)dev;
    if (bytes)
        memcpy(dst, src, bytes);
    return WK_OK;
}

wk_status wk_cpu_sync(wk_device *dev)
{
    (void)dev;
    return WK_OK;
}

const wk_backend wk_cpu_backend = {
    .name = "cpu",
    .probe = wk_cpu_probe,
    .device = wk_cpu_device,
    .alloc = wk_cpu_alloc,
    .free = wk_cpu_free,
    .upload = wk_cpu_upload,
    .download = wk_cpu_download,
    .streams = &wk_cpu_streams,
    .sync = wk_cpu_sync,
    .fill = wk_cpu_fill,
    .arange = wk_cpu_arange,
    .rand_uniform = wk_cpu_rand_uniform,
    .rand_normal = wk_cpu_rand_normal,
    .copy = wk_cpu_copy,
    .cast = wk_cpu_cast,
    .copy2d = wk_cpu_copy2d,
    .unary = wk_cpu_unary,
    .affine = wk_cpu_affine,
    .powf = wk_cpu_powf,
    .elu = wk_cpu_elu,
    .leaky_relu = wk_cpu_leaky_relu,
    .glu = wk_cpu_glu,
    .clamp = wk_cpu_clamp,
    .binary = wk_cpu_binary,
    .compare = wk_cpu_compare,
    .where = wk_cpu_where,
    .tri = wk_cpu_tri,
    .masked_fill = wk_cpu_masked_fill,
    .reduce = wk_cpu_reduce,
    .arg_reduce = wk_cpu_arg_reduce,
    .softmax = wk_cpu_softmax,
    .rms_norm = wk_cpu_rms_norm,
    .add_rms_norm = wk_cpu_add_rms_norm,
    .layer_norm = wk_cpu_layer_norm,
    .batch_norm = wk_cpu_batch_norm,
    .group_norm = wk_cpu_group_norm,
    .stats = wk_cpu_stats,
    .scan = wk_cpu_scan,
    .sort = wk_cpu_sort,
    .topk = wk_cpu_topk,
    .sample_penalize = wk_cpu_sample_penalize,
    .sample_pick = wk_cpu_sample_pick,
    .multinomial = wk_cpu_multinomial,
    .matmul = wk_cpu_matmul,
    .conv = wk_cpu_conv,
    .pool2d = wk_cpu_pool2d,
    .upsample_nearest = wk_cpu_upsample_nearest,
    .upsample_bilinear2d = wk_cpu_upsample_bilinear2d,
    .index_select = wk_cpu_index_select,
    .gather = wk_cpu_gather,
    .scatter = wk_cpu_scatter,
    .index_add = wk_cpu_index_add,
    .reorder = wk_cpu_reorder,
    .one_hot = wk_cpu_one_hot,
    .rope = wk_cpu_rope,
    .dequantize = wk_cpu_dequantize,
    .quantize = wk_cpu_quantize,
    .matmul_q = wk_cpu_matmul_q,
    .linear = wk_cpu_linear,
    .attention = wk_cpu_attention,
    .kv_append = wk_cpu_kv_append,
    .comm = &wk_cpu_comm,
};
