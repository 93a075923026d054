/* device.c: opening a GPU device (context, stream, kernel modules, fault record), the check that its kernels
 * run at the width they were built for, the logical warp width, and the per-device accessors of gpu.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/device.h"

/* ---------------------------------------------------------------- small accessors */
/* The context this thread last made current, so that enter() switches only on a change. Opening a device
 * makes its context current too, and dev_open records that here. */
static _Thread_local wk_gpu_handle current;

/* Makes the device's context current on the calling thread (once per thread and device switch). */
wk_gpu_dev *wk_gpu_enter(wk_device *dev)
{
    wk_gpu_dev *d = dev->impl;
    if (current != d->ctx && d->rt->make_current(d->ctx) == WK_OK)
        current = d->ctx;
    return d;
}

wk_gpu_dev *wk_gpu_dev_of(const wk_tensor *t) { return wk_gpu_enter(t->storage->device); }

int wk_gpu_logical_warp(const wk_gpu_dev *d) { return d->lanes; }
int wk_gpu_width_slot(const wk_gpu_dev *d) { return d->lanes == d->props.warp_size ? 0 : 1; }
int wk_gpu_sm_count(const wk_gpu_dev *d) { return d->props.sm_count; }
const char *wk_gpu_dev_arch(const wk_gpu_dev *d) { return d->props.arch; }

int wk_gpu_dev_sm(const wk_gpu_dev *d) { return strncmp(d->props.arch, "sm_", 3) == 0 ? atoi(d->props.arch + 3) : 0; }
const char *wk_gpu_dev_name(const wk_gpu_dev *d) { return d->base.name; }
int wk_gpu_ordinal(const wk_gpu_dev *d) { return d->ordinal; }
void *wk_gpu_stream(const wk_gpu_dev *d) { return wk_stream_of((wk_device *)&d->base)->native; }
void *wk_gpu_fault_record(const wk_gpu_dev *d) { return d->fault; }
bool wk_gpu_on_default_stream(const wk_gpu_dev *d) { return wk_stream_of((wk_device *)&d->base)->is_default; }

static void dev_destroy(wk_gpu_dev *d)
{
    /* Contexts, streams and modules belong to the process once opened; only host memory is ours here. */
    wk_gpu_kernel_cache_destroy(d->kernels);
    pthread_mutex_destroy(&d->cache_lock);
    pthread_mutex_destroy(&d->stage_lock);
    pthread_mutex_destroy(&d->streams_lock);
    free(d);
}

/* The logical warp width of the width-dependent kernels (WK_WIDTHS in kernels/common.cuh): the device's own, or
 * 64 on a 32-wide device when WICK_GPU_LOGICAL_WARP=64 asks for it and the build has the _w64 kernels (NVIDIA
 * builds do; the probe's _w64 variant stands for them all): the wave64 logic then runs, and is tested, on an NVIDIA GPU. */
static wk_status pick_lanes(wk_gpu_dev *d)
{
    const char *v = getenv("WICK_GPU_LOGICAL_WARP");
    char *end = NULL;
    d->lanes = d->props.warp_size;
    if (!v || !*v || (strtol(v, &end, 10) == d->lanes && *end == '\0'))
        return WK_OK;
    if (strcmp(v, "64") == 0 && d->lanes == 32 && wk_gpu_kernel_present(d, WK_KS_probe_wave_width, 0, 0, 1)) {
        d->lanes = 64;
        return WK_OK;
    }
    return wk_error(WK_ERR_DEVICE, "WICK_GPU_LOGICAL_WARP=%s: this device's warp is %d wide, and the only other "
                    "width is 64 on a 32-wide device with the wave64 test kernels (NVIDIA builds)", v, d->lanes);
}

/* Overlapped launches (runtime.h WK_GPU_LAUNCH_OVERLAP) on NVIDIA sm_90 and later, unless WICK_GPU_OVERLAP=0. */
static void pick_overlap(wk_gpu_dev *d)
{
    const char *v = getenv("WICK_GPU_OVERLAP");
    d->overlap = wk_gpu_dev_sm(d) >= 90 && !(v && strcmp(v, "0") == 0);
}

/* The width the kernels were compiled for, and the one the GPU runs, against the width the device reports
 * (probe.cu). The width-dependent kernels are correct only at their own width, so a mismatch (an AMD build
 * made with -mwavefrontsize64, or a compiler without __AMDGCN_WAVEFRONT_SIZE guessing wrong: compat.h) refuses
 * the device instead of computing wrong sums. The fault record serves as the two ints of scratch. */
static wk_status check_width(wk_gpu_dev *d)
{
    int got[2] = {0, 0};
    wk_gpu_probe_args args = {d->fault};
    wk_gpu_dim one = {1, 1, 1};
    WK_TRY(WK_GPU_LAUNCH(d, probe_wave_width, 0, 0, 0, one, one, 0, args));
    WK_TRY(d->rt->copy_d2h(d->stream, got, d->fault, sizeof got));
    WK_TRY(d->rt->stream_sync(d->stream));
    WK_TRY(d->rt->memset8(d->stream, d->fault, 0, sizeof(wk_gpu_fault_rec)));
    if (got[0] != d->props.warp_size || got[1] != d->props.warp_size)
        return wk_error(WK_ERR_DEVICE, "its kernels were compiled for a warp of %d lanes and run at %d, but the "
                        "device reports %d (rebuild for this GPU's wavefront width)", got[0], got[1],
                        d->props.warp_size);
    return WK_OK;
}

wk_status wk_gpu_dev_open(wk_gpu_vendor *v, int ordinal, wk_gpu_dev **out)
{
    const wk_gpu_runtime *rt = v->rt;
    wk_gpu_dev *d = calloc(1, sizeof *d);
    if (!d)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "device_get: out of host memory");
    pthread_mutex_init(&d->cache_lock, NULL);
    pthread_mutex_init(&d->stage_lock, NULL);
    pthread_mutex_init(&d->streams_lock, NULL);
    d->rt = rt;
    d->ordinal = ordinal;
    d->base.backend = v->backend;
    d->base.ordinal = ordinal;
    d->base.impl = d;
    snprintf(d->base.name, sizeof d->base.name, "%s:%d", rt->backend, ordinal);
    wk_status s = wk_gpu_kernel_cache_create(&d->kernels);
    if (s == WK_OK)
        s = rt->device_open(ordinal, &d->props, &d->ctx, &d->stream);
    d->base.default_stream = (wk_stream){.dev = &d->base, .native = d->stream, .is_default = true};
    current = s == WK_OK ? d->ctx : NULL; /* device_open switched this thread's context (NULL: unknown) */
    for (int i = 0; s == WK_OK && i < *rt->image_count && i < WK_GPU_MAX_IMAGES; i++)
        if ((s = rt->module_load(&rt->images[i], &d->modules[i])) == WK_OK)
            d->module_count++;
    if (s == WK_OK)
        s = pick_lanes(d);
    pick_overlap(d);
    if (s == WK_OK)
        s = rt->alloc_async(ordinal, d->stream, sizeof(wk_gpu_fault_rec), (void **)&d->fault);
    if (s == WK_OK)
        s = rt->memset8(d->stream, d->fault, 0, sizeof(wk_gpu_fault_rec));
    if (s == WK_OK)
        s = check_width(d);
    if (s == WK_OK)
        s = rt->stream_sync(d->stream);
    if (s != WK_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", wk_last_error());
        dev_destroy(d);
        return wk_error(s, "device_get: %s:%d: %s", rt->backend, ordinal, msg);
    }
    *out = d;
    return WK_OK;
}

wk_status wk_gpu_native_stream(wk_device *dev, uintptr_t *out)
{
    *out = (uintptr_t)wk_stream_of(dev)->native;
    return WK_OK;
}

/* The DLPack protocol's stream numbers: CUDA 1 (and 0, which the protocol leaves ambiguous) is the legacy
 * default stream, 2 the per-thread default stream (CU_STREAM_LEGACY and CU_STREAM_PER_THREAD are those same
 * handle values); ROCm 0 is the null stream. Anything else is a handle. */
wk_status wk_gpu_order_stream(wk_device *dev, int64_t stream)
{
    wk_gpu_dev *d = wk_gpu_enter(dev);
    bool cuda = strcmp(d->rt->backend, "cuda") == 0;
    uintptr_t h = cuda && stream == 0 ? 1 : (uintptr_t)stream;
    if (!cuda && (stream == 1 || stream == 2))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: stream %lld is not a ROCm stream (DLPack reserves 1 and 2 "
                        "for CUDA)", dev->name, (long long)stream);
    return d->rt->stream_order(wk_gpu_stream(d), (wk_gpu_handle)h);
}
