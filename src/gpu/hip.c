/* hip.c: the HIP runtime API (libamdhip64, loaded with dlopen) behind the vendor-neutral runtime table, for
 * AMD GPUs (the API's streams, events and graphs: hip_graph.c). Host code needs no HIP header;
 * tests/abi/hip_abi.c checks hip_api.h against hip_runtime_api.h. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/hip.h"

wk_hip_api wk_hip;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static wk_status load_status = WK_ERR_DEVICE;
static char load_why[512];
static char driver_version_text[32];

/* Per device, written once by device_open (under the backend's per-vendor lock) and only read after. */
static wk_hipMemPool_t pools[WK_GPU_MAX_DEVICES];
static bool use_pool[WK_GPU_MAX_DEVICES];      /* hipMallocAsync/hipFreeAsync, else hipMalloc/hipFree */
static wk_hipStream_t streams[WK_GPU_MAX_DEVICES]; /* free_async gets only the stream: this finds its device */
/* Whether a device opened so far allocates with hipMalloc. In practice all or none do: the pool attribute is the
 * process-wide HIP_MEM_POOL_SUPPORT and the symbols are the library's. free_async reads it for streams not in
 * streams[] (the API's, the side streams), whose device it cannot tell. */
static atomic_bool any_plain;

/* "hipErrorOutOfMemory (out of memory)": HIP's own name and text for r. HIP returns the strings directly
 * (CUDA's driver API writes them through a pointer). */
const char *wk_hip_text(wk_hipError_t r, char *buf, size_t cap)
{
    const char *name = wk_hip.hipGetErrorName ? wk_hip.hipGetErrorName(r) : NULL;
    const char *text = wk_hip.hipGetErrorString ? wk_hip.hipGetErrorString(r) : NULL;
    /* HIP 5.x's hipGetErrorString returns the name again ("hipErrorInvalidDevice"); ROCm 6+ gives a sentence.
     * Say the name once when there is no separate text. */
    if (name && text && strcmp(name, text) == 0)
        snprintf(buf, cap, "%s", name);
    else
        snprintf(buf, cap, "%s (%s)", name ? name : "unknown HIP error", text ? text : "no description");
    return buf;
}

wk_status wk_hip_fail(wk_status s, const char *call, wk_hipError_t r)
{
    char buf[256];
    return wk_error(s, "%s: %s", call, wk_hip_text(r, buf, sizeof buf));
}

static void load_runtime(void)
{
    /* ROCm 7, 6, 5 sonames, then the development symlink. */
    static const char *const names[] = {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so",
                                        NULL};
    char why[400];
    void *h = wk_gpu_dlopen_first("WICK_HIP_LIBRARY", names, why, sizeof why);
    if (!h) {
        snprintf(load_why, sizeof load_why, "looked for the HIP runtime (libamdhip64.so): not loadable: %s", why);
        return;
    }
#define WK_HIP_RESOLVE(name, params)                                                                         \
    if (!wk_gpu_dlsym(h, #name, &wk_hip.name)) {                                                             \
        snprintf(load_why, sizeof load_why, "libamdhip64 lacks %s (ROCm too old for wick)", #name);          \
        return;                                                                                              \
    }
    WK_HIP_FUNCTIONS(WK_HIP_RESOLVE)
    WK_HIP_COPY_IN_FUNCTIONS(WK_HIP_RESOLVE)
    WK_HIP_TEXT_FUNCTIONS(WK_HIP_RESOLVE)
#undef WK_HIP_RESOLVE
#define WK_HIP_RESOLVE_OPTIONAL(name, params) wk_gpu_dlsym(h, #name, &wk_hip.name);
    WK_HIP_OPTIONAL_FUNCTIONS(WK_HIP_RESOLVE_OPTIONAL)
    WK_HIP_GRAPH_FUNCTIONS(WK_HIP_RESOLVE_OPTIONAL)
    WK_HIP_RESOLVE_OPTIONAL(hipGraphAddMemAllocNode, ())
#undef WK_HIP_RESOLVE_OPTIONAL
    wk_hipError_t r = wk_hip.hipInit(0);
    /* No GPU is not a load failure: the library is there, and device_count then reports 0 devices, so the
     * user is told which of the two (library, device) was missing. Without a GPU (no /dev/kfd) HIP 5.2's
     * hipInit answers hipErrorInvalidDevice; others answer hipErrorNoDevice. */
    if (r != WK_HIP_SUCCESS && r != WK_HIP_ERROR_NO_DEVICE && r != WK_HIP_ERROR_INVALID_DEVICE) {
        char buf[256];
        snprintf(load_why, sizeof load_why, "libamdhip64 loaded but hipInit failed: %s",
                 wk_hip_text(r, buf, sizeof buf));
        return;
    }
    /* HIP_VERSION = major * 10000000 + minor * 100000 + patch. hipDriverGetVersion reports the same scheme
     * on recent ROCm but needs a device on some releases, so the runtime's version is the one shown. */
    int v = 0;
    if (wk_hip.hipRuntimeGetVersion(&v) == WK_HIP_SUCCESS && v > 0)
        snprintf(driver_version_text, sizeof driver_version_text, "%d.%d.%d", v / 10000000, (v / 100000) % 100,
                 v % 100000);
    else
        snprintf(driver_version_text, sizeof driver_version_text, "unknown");
    load_status = WK_OK;
}

static wk_status hip_load(const char **why)
{
    pthread_once(&load_once, load_runtime);
    if (load_status != WK_OK && why)
        *why = load_why;
    return load_status;
}

static const char *hip_driver_version(void) { return driver_version_text; }
const char *wk_hip_version(void) { return driver_version_text; }

static wk_status hip_device_count(int *count)
{
    wk_hipError_t r = wk_hip.hipGetDeviceCount(count);
    /* Both mean that no usable GPU is present (see load_runtime), which is a count of zero, not a failure. */
    if (r == WK_HIP_ERROR_NO_DEVICE || r == WK_HIP_ERROR_INVALID_DEVICE) {
        *count = 0;
        return WK_OK;
    }
    if (r != WK_HIP_SUCCESS) {
        *count = 0;
        return wk_hip_fail(WK_ERR_BACKEND, "hipGetDeviceCount", r);
    }
    return WK_OK;
}

/* HIP's runtime API has no explicit contexts: the current device is per thread (hipSetDevice), and each
 * device has one implicit primary context. The ctx handle therefore carries the ordinal, plus one so that it
 * is never NULL (the backend compares handles to skip redundant make_current calls). */
static wk_gpu_handle ordinal_ctx(int ordinal) { return (wk_gpu_handle)(intptr_t)(ordinal + 1); }
static int ctx_ordinal(wk_gpu_handle ctx) { return (int)((intptr_t)ctx - 1); }

static wk_status hip_device_open(int ordinal, wk_gpu_props *props, wk_gpu_handle *ctx, wk_gpu_handle *stream)
{
    wk_hipDevice_t dev;
    wk_hipStream_t s;
    int pools_ok = 0;
    if (ordinal < 0 || ordinal >= WK_GPU_MAX_DEVICES)
        return wk_error(WK_ERR_DEVICE, "rocm:%d: wick handles at most %d devices", ordinal, WK_GPU_MAX_DEVICES);
    HIP_TRY(hipDeviceGet, (&dev, ordinal));
    HIP_TRY(hipSetDevice, (ordinal));
    HIP_TRY(hipDeviceGetName, (props->name, (int)sizeof props->name, dev));
    /* The wavefront width: 64 on CDNA (gfx9xx), 32 by default on RDNA (gfx10xx/11xx). */
    HIP_TRY(hipDeviceGetAttribute, (&props->warp_size, WK_HIP_DEVICE_ATTRIBUTE_WARP_SIZE, ordinal));
    HIP_TRY(hipDeviceGetAttribute, (&props->sm_count, WK_HIP_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, ordinal));
    HIP_TRY(hipDeviceTotalMem, (&props->total_mem, dev));
    /* The gfx name ("gfx90a") lives only in hipDeviceProp_t::gcnArchName, and that struct is versioned
     * (ROCm 6 changed its layout: hipGetDeviceProperties vs hipGetDevicePropertiesR0600), so wick does not
     * read it. hipDeviceGetAttribute offers no replacement: HIP 5.2's header lists hipDeviceAttributeGcnArch
     * and hipDeviceAttributeGcnArchName, but the runtime's hipDeviceGetAttribute answers neither
     * (hipErrorInvalidValue), and ROCm 6 renamed both to hipDeviceAttributeUnused4/5. Left unknown; the code
     * object bundle picks the matching target itself at hipModuleLoadData. */
    snprintf(props->arch, sizeof props->arch, "gfx?");
    /* A runtime older than the attribute answers hipErrorInvalidValue: that means no pools, not failure. */
    if (wk_hip.hipDeviceGetAttribute(&pools_ok, WK_HIP_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, ordinal) !=
        WK_HIP_SUCCESS)
        pools_ok = 0;
    use_pool[ordinal] = pools_ok && wk_hip.hipDeviceGetDefaultMemPool && wk_hip.hipMemPoolSetAttribute &&
                        wk_hip.hipMemPoolTrimTo && wk_hip.hipMallocAsync && wk_hip.hipFreeAsync;
    if (use_pool[ordinal]) {
        /* Keep freed memory in the pool: small ops then never reach the runtime's allocator. */
        wk_hipMemPool_t pool;
        uint64_t keep = UINT64_MAX;
        HIP_TRY(hipDeviceGetDefaultMemPool, (&pool, ordinal));
        HIP_TRY(hipMemPoolSetAttribute, (pool, WK_HIP_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep));
        pools[ordinal] = pool;
    } else {
        atomic_store(&any_plain, true);
    }
    HIP_TRY(hipStreamCreateWithFlags, (&s, WK_HIP_STREAM_NON_BLOCKING));
    streams[ordinal] = s;
    *ctx = ordinal_ctx(ordinal);
    *stream = s;
    return WK_OK;
}

static wk_status hip_make_current(wk_gpu_handle ctx)
{
    HIP_TRY(hipSetDevice, (ctx_ordinal(ctx)));
    return WK_OK;
}

bool wk_hip_plain_alloc(void) { return atomic_load(&any_plain); }

/* The device whose stream this is (device_open recorded it); -1 if unknown. */
static int stream_ordinal(wk_hipStream_t s)
{
    for (int i = 0; i < WK_GPU_MAX_DEVICES; i++)
        if (streams[i] == s && s)
            return i;
    return -1;
}

/* Makes `ordinal` the calling thread's current device for one call that depends on it, remembering the one
 * it replaces in *before (the backend caches which device it made current per thread, so the switch must be
 * undone). */
static wk_status device_enter(int ordinal, int *before)
{
    *before = -1;
    HIP_TRY(hipGetDevice, (before));
    if (*before != ordinal)
        HIP_TRY(hipSetDevice, (ordinal));
    return WK_OK;
}

/* Puts back the device device_enter replaced. */
static wk_status device_leave(int ordinal, int before)
{
    if (before != ordinal && before >= 0)
        HIP_TRY(hipSetDevice, (before));
    return WK_OK;
}

static wk_status hip_alloc_async(int ordinal, wk_gpu_handle stream, size_t bytes, void **ptr)
{
    void *p = NULL;
    wk_hipError_t r;
    const char *call;
    if (ordinal < 0 || ordinal >= WK_GPU_MAX_DEVICES)
        return wk_error(WK_ERR_DEVICE, "alloc: rocm:%d is not a device wick opened", ordinal);
    if (use_pool[ordinal]) {
        call = "hipMallocAsync";
        r = wk_hip.hipMallocAsync(&p, bytes, (wk_hipStream_t)stream);
        if (r == WK_HIP_ERROR_OUT_OF_MEMORY) {
            /* The pool may hold freed blocks of other sizes: let queued work finish, give them back, retry.
             * (Best effort: the retry's status is what counts.) */
            (void)wk_hip.hipStreamSynchronize((wk_hipStream_t)stream);
            (void)wk_hip.hipMemPoolTrimTo(pools[ordinal], 0);
            r = wk_hip.hipMallocAsync(&p, bytes, (wk_hipStream_t)stream);
        }
    } else {
        /* hipMalloc allocates on the calling thread's current device: make it this one for the call, and
         * put back whatever the thread had, since the backend remembers which device it made current. */
        int before;
        call = "hipMalloc";
        WK_TRY(device_enter(ordinal, &before));
        /* No retry on out of memory: this path keeps no cache of its own (hipFree returns memory at once),
         * so there is nothing to release first. */
        r = wk_hip.hipMalloc(&p, bytes);
        wk_status s = device_leave(ordinal, before);
        if (s != WK_OK) {
            if (r == WK_HIP_SUCCESS)
                (void)wk_hip.hipFree(p); /* best effort: the failed switch back is what gets reported */
            return s;
        }
    }
    if (r != WK_HIP_SUCCESS) {
        char buf[256];
        return wk_error(r == WK_HIP_ERROR_OUT_OF_MEMORY ? WK_ERR_OUT_OF_MEMORY : WK_ERR_BACKEND,
                        "alloc: %zu bytes on rocm:%d: %s: %s", bytes, ordinal, call, wk_hip_text(r, buf, sizeof buf));
    }
    *ptr = p;
    return WK_OK;
}

static wk_status hip_free_async(wk_gpu_handle stream, void *ptr)
{
    int ordinal = stream_ordinal((wk_hipStream_t)stream); /* -1 for streams device_open did not make: any_plain */
    if (ordinal >= 0 ? use_pool[ordinal] : !atomic_load(&any_plain)) {
        HIP_TRY(hipFreeAsync, (ptr, (wk_hipStream_t)stream));
        return WK_OK;
    }
    /* Without stream-ordered pools this path is synchronous on free: the block may still be in use by work
     * queued on the stream, so wait for it first (hipFree itself also synchronizes the device). The backend
     * caches small blocks, so this is rare. */
    HIP_TRY(hipStreamSynchronize, ((wk_hipStream_t)stream));
    HIP_TRY(hipFree, (ptr));
    return WK_OK;
}

static wk_status hip_copy_h2d(wk_gpu_handle stream, void *dst, const void *src, size_t bytes)
{
    /* HIP 5.2 declares the source non-const; the copy only reads it. */
    HIP_TRY(hipMemcpyHtoDAsync, (dst, (void *)(uintptr_t)src, bytes, (wk_hipStream_t)stream));
    return WK_OK;
}

static wk_status hip_copy_d2h(wk_gpu_handle stream, void *dst, const void *src, size_t bytes)
{
    HIP_TRY(hipMemcpyDtoHAsync, (dst, (wk_hipDeviceptr_t)(uintptr_t)src, bytes, (wk_hipStream_t)stream));
    return WK_OK;
}

static wk_status hip_copy_d2d(wk_gpu_handle stream, void *dst, const void *src, size_t bytes)
{
    HIP_TRY(hipMemcpyDtoDAsync, (dst, (wk_hipDeviceptr_t)(uintptr_t)src, bytes, (wk_hipStream_t)stream));
    return WK_OK;
}

static wk_status hip_memset8(wk_gpu_handle stream, void *dst, int byte, size_t bytes)
{
    HIP_TRY(hipMemsetD8Async, (dst, (unsigned char)byte, bytes, (wk_hipStream_t)stream));
    return WK_OK;
}

static wk_status hip_stream_new(wk_gpu_handle *stream)
{
    wk_hipStream_t s;
    int least = 0, greatest = 0;
    HIP_TRY(hipDeviceGetStreamPriorityRange, (&least, &greatest));
    HIP_TRY(hipStreamCreateWithPriority, (&s, WK_HIP_STREAM_NON_BLOCKING, greatest));
    *stream = s;
    return WK_OK;
}

static void hip_stream_free(wk_gpu_handle stream) { wk_hip.hipStreamDestroy((wk_hipStream_t)stream); }

static wk_status hip_stream_sync(wk_gpu_handle stream)
{
    HIP_TRY(hipStreamSynchronize, ((wk_hipStream_t)stream));
    return WK_OK;
}

static wk_status hip_stream_order(wk_gpu_handle from, wk_gpu_handle to)
{
    wk_hipEvent_t e;
    HIP_TRY(hipEventCreateWithFlags, (&e, WK_HIP_EVENT_DISABLE_TIMING));
    wk_hipError_t r = wk_hip.hipEventRecord(e, (wk_hipStream_t)from);
    if (r == WK_HIP_SUCCESS)
        r = wk_hip.hipStreamWaitEvent((wk_hipStream_t)to, e, 0);
    wk_hip.hipEventDestroy(e); /* released once the wait has been satisfied */
    if (r != WK_HIP_SUCCESS)
        return wk_error(WK_ERR_BACKEND, "hip: ordering stream %p after wick's stream failed (error %u)", to, r);
    return WK_OK;
}

static wk_status hip_event_new(wk_gpu_handle *ev)
{
    wk_hipEvent_t e;
    HIP_TRY(hipEventCreateWithFlags, (&e, WK_HIP_EVENT_DISABLE_TIMING));
    *ev = e;
    return WK_OK;
}

static wk_status hip_event_record(wk_gpu_handle ev, wk_gpu_handle stream)
{
    HIP_TRY(hipEventRecord, ((wk_hipEvent_t)ev, (wk_hipStream_t)stream));
    return WK_OK;
}

static wk_status hip_event_wait(wk_gpu_handle ev)
{
    HIP_TRY(hipEventSynchronize, ((wk_hipEvent_t)ev));
    return WK_OK;
}

static wk_status hip_event_query(wk_gpu_handle ev, bool *done)
{
    wk_hipError_t r = wk_hip.hipEventQuery((wk_hipEvent_t)ev);
    *done = r != WK_HIP_ERROR_NOT_READY;
    return *done && r != WK_HIP_SUCCESS ? wk_hip_fail(WK_ERR_BACKEND, "hipEventQuery", r) : WK_OK;
}

static void hip_event_free(wk_gpu_handle ev) { wk_hip.hipEventDestroy((wk_hipEvent_t)ev); }

static wk_status hip_host_alloc(size_t bytes, void **ptr)
{
    if (wk_hip.hipHostMalloc(ptr, bytes, 0) != WK_HIP_SUCCESS)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "hip: %zu bytes of page-locked host memory: hipHostMalloc failed",
                        bytes);
    return WK_OK;
}

static void hip_host_free(void *ptr) { wk_hip.hipHostFree(ptr); }

/* A loaded module and the device it belongs to. HIP ties a module to the device current at hipModuleLoadData,
 * and hipModuleGetFunction resolves the name against the calling thread's current device (hipamd's
 * DynCO::getDynFunc: several ROCm 5/6 releases abort the process on a mismatch, CheckDeviceIdMatch's
 * guarantee). The backend looks kernels up lazily from any thread, and its per-thread record of the current
 * device can be stale after another device's device_open, so function_get makes the module's device current
 * itself. Kept for the process, like the module (runtime.h has no unload). */
typedef struct hip_module {
    wk_hipModule_t module;
    int ordinal;
} hip_module;

static wk_status hip_module_load(const wk_gpu_image *image, wk_gpu_handle *module)
{
    /* image->data is a clang offload bundle ("__CLANG_OFFLOAD_BUNDLE__", entries hipv4-amdgcn-amd-amdhsa--gfxN:
     * code object v4, which HIP 5.x to 7.x load); HIP picks the code object matching the current device (none:
     * hipErrorNoBinaryForGpu). The backend calls this right after device_open, which made the device current. */
    hip_module *hm = malloc(sizeof *hm);
    if (!hm)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "kernel module '%s': out of host memory", image->name);
    wk_hipError_t r = wk_hip.hipGetDevice(&hm->ordinal);
    if (r != WK_HIP_SUCCESS) {
        free(hm);
        return wk_hip_fail(WK_ERR_BACKEND, "hipGetDevice", r);
    }
    r = wk_hip.hipModuleLoadData(&hm->module, image->data);
    if (r != WK_HIP_SUCCESS) {
        char buf[256];
        free(hm);
        return wk_error(r == WK_HIP_ERROR_OUT_OF_MEMORY ? WK_ERR_OUT_OF_MEMORY : WK_ERR_DEVICE,
                        "kernel module '%s' (built for %s) does not load on this GPU: hipModuleLoadData: %s",
                        image->name, wk_hip_targets, wk_hip_text(r, buf, sizeof buf));
    }
    *module = hm;
    return WK_OK;
}

static wk_status hip_function_get(wk_gpu_handle module, const char *name, wk_gpu_handle *fn)
{
    const hip_module *hm = module;
    wk_hipFunction_t f = NULL;
    int before;
    *fn = NULL;
    WK_TRY(device_enter(hm->ordinal, &before));
    wk_hipError_t r = wk_hip.hipModuleGetFunction(&f, hm->module, name);
    WK_TRY(device_leave(hm->ordinal, before));
    if (r == WK_HIP_ERROR_NOT_FOUND) /* hipErrorNotFound: this module has no such kernel */
        return WK_OK;
    if (r != WK_HIP_SUCCESS)
        return wk_hip_fail(WK_ERR_BACKEND, "hipModuleGetFunction", r);
    *fn = f;
    return WK_OK;
}

static wk_status hip_launch(wk_gpu_handle fn, wk_gpu_dim grid, wk_gpu_dim block, unsigned smem, wk_gpu_handle stream,
                            void **args, unsigned flags)
{
    (void)flags; /* HIP has no programmatic dependent launch */
    /* Arguments go through kernelParams; `extra` (whose end marker HIP spells HIP_LAUNCH_PARAM_END = 0x03,
     * not CUDA's CU_LAUNCH_PARAM_END = 0x00) is not used. */
    HIP_TRY(hipModuleLaunchKernel, ((wk_hipFunction_t)fn, grid.x, grid.y, grid.z, block.x, block.y, block.z, smem,
                                    (wk_hipStream_t)stream, args, NULL));
    return WK_OK;
}

const wk_gpu_runtime wk_hip_runtime = {
    .backend = "rocm",
    .vendor_lib = "libamdhip64.so",
    .load = hip_load,
    .driver_version = hip_driver_version,
    .device_count = hip_device_count,
    .device_open = hip_device_open,
    .make_current = hip_make_current,
    .alloc_async = hip_alloc_async,
    .free_async = hip_free_async,
    .copy_h2d = hip_copy_h2d,
    .copy_d2h = hip_copy_d2h,
    .copy_d2d = hip_copy_d2d,
    .memset8 = hip_memset8,
    .stream_new = hip_stream_new,
    .stream_free = hip_stream_free,
    .stream_sync = hip_stream_sync,
    .stream_order = hip_stream_order,
    .event_new = hip_event_new,
    .event_record = hip_event_record,
    .event_wait = hip_event_wait,
    .event_query = hip_event_query,
    .event_free = hip_event_free,
    .stream_create = wk_hip_stream_create,
    .stream_query = wk_hip_stream_query,
    .event_create = wk_hip_event_create,
    .stream_wait_event = wk_hip_stream_wait_event,
    .event_elapsed = wk_hip_event_elapsed,
    .host_register = wk_hip_host_register,
    .host_unregister = wk_hip_host_unregister,
    .capture_begin = wk_hip_capture_begin,
    .capture_end = wk_hip_capture_end,
    .graph_launch = wk_hip_graph_launch,
    .graph_free = wk_hip_graph_free,
    .host_alloc = hip_host_alloc,
    .host_free = hip_host_free,
    .module_load = hip_module_load,
    .function_get = hip_function_get,
    .launch = hip_launch,
    .images = wk_hip_images,
    .image_count = &wk_hip_image_count,
    .targets = wk_hip_targets,
    .blas = wk_rocm_blas_get,
    .dnn = wk_rocm_dnn_get,
};
