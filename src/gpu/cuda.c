/* cuda.c: the CUDA driver API (libcuda.so.1, loaded with dlopen) behind the vendor-neutral runtime table.
 * Host code needs no CUDA header; tests/abi/cuda_driver_abi.c checks cuda_api.h against cuda.h. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cuda_api.h"
#include "gpu/runtime.h"

static struct {
#define WK_CUDA_FN_FIELD(name, params) wk_##name##_fn name;
    WK_CUDA_FUNCTIONS(WK_CUDA_FN_FIELD)
#undef WK_CUDA_FN_FIELD
    wk_cuLaunchKernelEx_fn cuLaunchKernelEx;     /* NULL on drivers before CUDA 12.0 */
    wk_cuMemPoolSetAccess_fn cuMemPoolSetAccess; /* NULL: no peer access (cuda_peer_access says so) */
} cu;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static wk_status load_status = WK_ERR_DEVICE;
static char load_why[512];
static char driver_version_text[32];

/* "CUDA_ERROR_OUT_OF_MEMORY (out of memory)": the driver's own name and text for r. */
static const char *cuda_text(wk_CUresult r, char *buf, size_t cap)
{
    const char *name = NULL, *text = NULL;
    if (cu.cuGetErrorName)
        cu.cuGetErrorName(r, &name);
    if (cu.cuGetErrorString)
        cu.cuGetErrorString(r, &text);
    snprintf(buf, cap, "%s (%s)", name ? name : "unknown CUDA error", text ? text : "no description");
    return buf;
}

static wk_status cuda_fail(wk_status s, const char *call, wk_CUresult r)
{
    char buf[256];
    return wk_error(s, "%s: %s", call, cuda_text(r, buf, sizeof buf));
}

#define CU_TRY(call, args)                                                                                   \
    do {                                                                                                     \
        wk_CUresult r_ = cu.call args;                                                                       \
        if (r_ != WK_CUDA_SUCCESS)                                                                           \
            return cuda_fail(r_ == WK_CUDA_ERROR_OUT_OF_MEMORY ? WK_ERR_OUT_OF_MEMORY : WK_ERR_BACKEND, #call, r_); \
    } while (0)

static void load_driver(void)
{
    static const char *const names[] = {"libcuda.so.1", "libcuda.so", NULL};
    char why[400];
    void *h = wk_gpu_dlopen_first("WICK_CUDA_DRIVER", names, why, sizeof why);
    if (!h) {
        snprintf(load_why, sizeof load_why, "looked for the CUDA driver (libcuda.so.1): not loadable: %s", why);
        return;
    }
#define WK_CUDA_RESOLVE(name, params)                                                                        \
    if (!wk_gpu_dlsym(h, #name, &cu.name)) {                                                                 \
        snprintf(load_why, sizeof load_why, "libcuda.so.1 lacks %s (driver too old for wick)", #name);       \
        return;                                                                                              \
    }
    WK_CUDA_FUNCTIONS(WK_CUDA_RESOLVE)
#undef WK_CUDA_RESOLVE
    if (!wk_gpu_dlsym(h, "cuLaunchKernelEx", &cu.cuLaunchKernelEx))
        cu.cuLaunchKernelEx = NULL;
    if (!wk_gpu_dlsym(h, "cuMemPoolSetAccess", &cu.cuMemPoolSetAccess))
        cu.cuMemPoolSetAccess = NULL;
    wk_CUresult r = cu.cuInit(0);
    if (r != WK_CUDA_SUCCESS) {
        const char *name = NULL;
        cu.cuGetErrorName(r, &name);
        snprintf(load_why, sizeof load_why, "libcuda.so.1 loaded but cuInit failed: %s", name ? name : "?");
        return;
    }
    int v = 0;
    cu.cuDriverGetVersion(&v);
    snprintf(driver_version_text, sizeof driver_version_text, "%d.%d", v / 1000, (v % 1000) / 10);
    load_status = WK_OK;
}

static wk_status cuda_load(const char **why)
{
    pthread_once(&load_once, load_driver);
    if (load_status != WK_OK && why)
        *why = load_why;
    return load_status;
}

static const char *cuda_driver_version(void) { return driver_version_text; }

static wk_status cuda_device_count(int *count)
{
    *count = 0;
    CU_TRY(cuDeviceGetCount, (count));
    return WK_OK;
}

static wk_CUmemoryPool pools[WK_GPU_MAX_DEVICES];

static wk_status cuda_device_open(int ordinal, wk_gpu_props *props, wk_gpu_handle *ctx, wk_gpu_handle *stream)
{
    wk_CUdevice dev;
    wk_CUcontext c;
    wk_CUstream s;
    int major = 0, minor = 0, pools_ok = 0;
    if (ordinal >= WK_GPU_MAX_DEVICES)
        return wk_error(WK_ERR_DEVICE, "cuda:%d: wick handles at most %d devices", ordinal, WK_GPU_MAX_DEVICES);
    CU_TRY(cuDeviceGet, (&dev, ordinal));
    CU_TRY(cuDeviceGetName, (props->name, (int)sizeof props->name, dev));
    CU_TRY(cuDeviceGetAttribute, (&props->warp_size, WK_CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev));
    CU_TRY(cuDeviceGetAttribute, (&props->sm_count, WK_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    CU_TRY(cuDeviceGetAttribute, (&major, WK_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CU_TRY(cuDeviceGetAttribute, (&minor, WK_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    CU_TRY(cuDeviceGetAttribute, (&pools_ok, WK_CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev));
    CU_TRY(cuDeviceTotalMem_v2, (&props->total_mem, dev));
    snprintf(props->arch, sizeof props->arch, "sm_%d%d", major, minor);
    if (!pools_ok)
        return wk_error(WK_ERR_DEVICE, "cuda:%d (%s) lacks stream-ordered memory pools, which wick needs", ordinal,
                        props->name);
    CU_TRY(cuDevicePrimaryCtxRetain, (&c, dev));
    CU_TRY(cuCtxSetCurrent, (c));
    CU_TRY(cuStreamCreate, (&s, WK_CU_STREAM_NON_BLOCKING));
    /* Keep freed memory in the pool: small ops then never reach the driver's allocator. */
    wk_CUmemoryPool pool;
    uint64_t keep = UINT64_MAX;
    CU_TRY(cuDeviceGetDefaultMemPool, (&pool, dev));
    CU_TRY(cuMemPoolSetAttribute, (pool, WK_CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep));
    /* Memory freed on one stream is reused by another only once the free is seen complete, never by making the
     * other stream wait (which would tie the API's streams together: gpu/stream.c frees on a side stream). */
    int no = 0;
    CU_TRY(cuMemPoolSetAttribute, (pool, WK_CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, &no));
    pools[ordinal] = pool;
    *ctx = c;
    *stream = s;
    return WK_OK;
}

static wk_status cuda_make_current(wk_gpu_handle ctx)
{
    CU_TRY(cuCtxSetCurrent, ((wk_CUcontext)ctx));
    return WK_OK;
}

static wk_status cuda_alloc_async(int ordinal, wk_gpu_handle stream, size_t bytes, void **ptr)
{
    wk_CUdeviceptr p = 0;
    wk_CUresult r = cu.cuMemAllocAsync(&p, bytes, (wk_CUstream)stream);
    if (r == WK_CUDA_ERROR_OUT_OF_MEMORY) {
        /* The pool may hold freed blocks of other sizes: let queued work finish, give them back, retry. */
        cu.cuStreamSynchronize((wk_CUstream)stream);
        cu.cuMemPoolTrimTo(pools[ordinal], 0);
        r = cu.cuMemAllocAsync(&p, bytes, (wk_CUstream)stream);
    }
    if (r != WK_CUDA_SUCCESS) {
        char buf[256];
        return wk_error(r == WK_CUDA_ERROR_OUT_OF_MEMORY ? WK_ERR_OUT_OF_MEMORY : WK_ERR_BACKEND,
                        "alloc: %zu bytes on cuda:%d: cuMemAllocAsync: %s", bytes, ordinal,
                        cuda_text(r, buf, sizeof buf));
    }
    *ptr = (void *)(uintptr_t)p;
    return WK_OK;
}

static wk_status cuda_free_async(wk_gpu_handle stream, void *ptr)
{
    CU_TRY(cuMemFreeAsync, ((wk_CUdeviceptr)(uintptr_t)ptr, (wk_CUstream)stream));
    return WK_OK;
}

static wk_status cuda_copy_h2d(wk_gpu_handle stream, void *dst, const void *src, size_t bytes)
{
    CU_TRY(cuMemcpyHtoDAsync_v2, ((wk_CUdeviceptr)(uintptr_t)dst, src, bytes, (wk_CUstream)stream));
    return WK_OK;
}

static wk_status cuda_copy_d2h(wk_gpu_handle stream, void *dst, const void *src, size_t bytes)
{
    CU_TRY(cuMemcpyDtoHAsync_v2, (dst, (wk_CUdeviceptr)(uintptr_t)src, bytes, (wk_CUstream)stream));
    return WK_OK;
}

static wk_status cuda_copy_d2d(wk_gpu_handle stream, void *dst, const void *src, size_t bytes)
{
    CU_TRY(cuMemcpyDtoDAsync_v2,
           ((wk_CUdeviceptr)(uintptr_t)dst, (wk_CUdeviceptr)(uintptr_t)src, bytes, (wk_CUstream)stream));
    return WK_OK;
}

static wk_status cuda_copy_peer(wk_gpu_handle stream, void *dst, wk_gpu_handle dst_ctx, const void *src,
                                wk_gpu_handle src_ctx, size_t bytes)
{
    CU_TRY(cuMemcpyPeerAsync, ((wk_CUdeviceptr)(uintptr_t)dst, (wk_CUcontext)dst_ctx, (wk_CUdeviceptr)(uintptr_t)src,
                               (wk_CUcontext)src_ctx, bytes, (wk_CUstream)stream));
    return WK_OK;
}

static wk_status cuda_peer_access(int ordinal, int peer, bool *ok)
{
    wk_CUdevice dev, pdev;
    int can = 0;
    *ok = false;
    if (!cu.cuMemPoolSetAccess || ordinal >= WK_GPU_MAX_DEVICES || peer >= WK_GPU_MAX_DEVICES || !pools[peer])
        return WK_OK;
    CU_TRY(cuDeviceGet, (&dev, ordinal));
    CU_TRY(cuDeviceGet, (&pdev, peer));
    CU_TRY(cuDeviceCanAccessPeer, (&can, dev, pdev));
    if (!can)
        return WK_OK;
    wk_CUmemAccessDesc access = {.location = {WK_CU_MEM_LOCATION_TYPE_DEVICE, ordinal},
                                 .flags = WK_CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    CU_TRY(cuMemPoolSetAccess, (pools[peer], &access, 1));
    *ok = true;
    return WK_OK;
}

static wk_status cuda_memset8(wk_gpu_handle stream, void *dst, int byte, size_t bytes)
{
    CU_TRY(cuMemsetD8Async, ((wk_CUdeviceptr)(uintptr_t)dst, (unsigned char)byte, bytes, (wk_CUstream)stream));
    return WK_OK;
}

static wk_status cuda_stream_new(wk_gpu_handle *stream)
{
    wk_CUstream s;
    int least = 0, greatest = 0;
    CU_TRY(cuCtxGetStreamPriorityRange, (&least, &greatest));
    CU_TRY(cuStreamCreateWithPriority, (&s, WK_CU_STREAM_NON_BLOCKING, greatest));
    *stream = s;
    return WK_OK;
}

static void cuda_stream_free(wk_gpu_handle stream) { cu.cuStreamDestroy_v2((wk_CUstream)stream); }

static wk_status cuda_stream_sync(wk_gpu_handle stream)
{
    CU_TRY(cuStreamSynchronize, ((wk_CUstream)stream));
    return WK_OK;
}

static wk_status cuda_stream_order(wk_gpu_handle from, wk_gpu_handle to)
{
    wk_CUevent e;
    CU_TRY(cuEventCreate, (&e, WK_CU_EVENT_DISABLE_TIMING));
    wk_CUresult r = cu.cuEventRecord(e, (wk_CUstream)from);
    if (r == WK_CUDA_SUCCESS)
        r = cu.cuStreamWaitEvent((wk_CUstream)to, e, 0);
    cu.cuEventDestroy_v2(e); /* released once the wait has been satisfied */
    if (r != WK_CUDA_SUCCESS) {
        char buf[256];
        return wk_error(WK_ERR_BACKEND, "cuda: ordering stream %p after wick's stream: %s", to,
                        cuda_text(r, buf, sizeof buf));
    }
    return WK_OK;
}

static wk_status cuda_event_new(wk_gpu_handle *ev)
{
    wk_CUevent e;
    CU_TRY(cuEventCreate, (&e, WK_CU_EVENT_DISABLE_TIMING));
    *ev = e;
    return WK_OK;
}

static wk_status cuda_event_record(wk_gpu_handle ev, wk_gpu_handle stream)
{
    CU_TRY(cuEventRecord, ((wk_CUevent)ev, (wk_CUstream)stream));
    return WK_OK;
}

static wk_status cuda_event_wait(wk_gpu_handle ev)
{
    CU_TRY(cuEventSynchronize, ((wk_CUevent)ev));
    return WK_OK;
}

static wk_status cuda_event_query(wk_gpu_handle ev, bool *done)
{
    wk_CUresult r = cu.cuEventQuery((wk_CUevent)ev);
    *done = r != WK_CUDA_ERROR_NOT_READY;
    return *done && r != WK_CUDA_SUCCESS ? cuda_fail(WK_ERR_BACKEND, "cuEventQuery", r) : WK_OK;
}

static void cuda_event_free(wk_gpu_handle ev) { cu.cuEventDestroy_v2((wk_CUevent)ev); }

static wk_status cuda_stream_create(wk_gpu_handle *stream)
{
    wk_CUstream s;
    CU_TRY(cuStreamCreate, (&s, WK_CU_STREAM_NON_BLOCKING));
    *stream = s;
    return WK_OK;
}

static wk_status cuda_stream_query(wk_gpu_handle stream, bool *idle)
{
    wk_CUresult r = cu.cuStreamQuery((wk_CUstream)stream);
    *idle = r != WK_CUDA_ERROR_NOT_READY;
    return *idle && r != WK_CUDA_SUCCESS ? cuda_fail(WK_ERR_BACKEND, "cuStreamQuery", r) : WK_OK;
}

static wk_status cuda_event_create(wk_gpu_handle *ev, bool timing)
{
    wk_CUevent e;
    CU_TRY(cuEventCreate, (&e, timing ? 0u : (unsigned)WK_CU_EVENT_DISABLE_TIMING));
    *ev = e;
    return WK_OK;
}

static wk_status cuda_stream_wait_event(wk_gpu_handle stream, wk_gpu_handle ev)
{
    CU_TRY(cuStreamWaitEvent, ((wk_CUstream)stream, (wk_CUevent)ev, 0));
    return WK_OK;
}

static wk_status cuda_event_elapsed(wk_gpu_handle start, wk_gpu_handle end, float *ms, bool *ready)
{
    wk_CUresult r = cu.cuEventElapsedTime(ms, (wk_CUevent)start, (wk_CUevent)end);
    *ready = r != WK_CUDA_ERROR_NOT_READY;
    return *ready && r != WK_CUDA_SUCCESS ? cuda_fail(WK_ERR_BACKEND, "cuEventElapsedTime", r) : WK_OK;
}

static wk_status cuda_host_register(void *ptr, size_t bytes)
{
    CU_TRY(cuMemHostRegister_v2, (ptr, bytes, WK_CU_MEMHOSTREGISTER_PORTABLE));
    return WK_OK;
}

static wk_status cuda_host_unregister(void *ptr)
{
    CU_TRY(cuMemHostUnregister, (ptr));
    return WK_OK;
}

static wk_status cuda_capture_begin(wk_gpu_handle stream)
{
    CU_TRY(cuStreamBeginCapture_v2, ((wk_CUstream)stream, WK_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    return WK_OK;
}

static wk_status cuda_capture_end(wk_gpu_handle stream, wk_gpu_handle *exec)
{
    wk_CUgraph g = NULL;
    wk_CUgraphExec x = NULL;
    wk_CUresult r = cu.cuStreamEndCapture((wk_CUstream)stream, &g);
    if (r != WK_CUDA_SUCCESS) {
        if (g)
            cu.cuGraphDestroy(g);
        return cuda_fail(WK_ERR_BACKEND, "cuStreamEndCapture", r);
    }
    r = cu.cuGraphInstantiateWithFlags(&x, g, WK_CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH);
    cu.cuGraphDestroy(g); /* the executable graph keeps what it needs */
    if (r != WK_CUDA_SUCCESS)
        return cuda_fail(r == WK_CUDA_ERROR_OUT_OF_MEMORY ? WK_ERR_OUT_OF_MEMORY : WK_ERR_BACKEND,
                         "cuGraphInstantiateWithFlags", r);
    *exec = x;
    return WK_OK;
}

static wk_status cuda_graph_launch(wk_gpu_handle exec, wk_gpu_handle stream)
{
    CU_TRY(cuGraphLaunch, ((wk_CUgraphExec)exec, (wk_CUstream)stream));
    return WK_OK;
}

static void cuda_graph_free(wk_gpu_handle exec) { cu.cuGraphExecDestroy((wk_CUgraphExec)exec); }

static wk_status cuda_host_alloc(size_t bytes, void **ptr)
{
    wk_CUresult r = cu.cuMemAllocHost_v2(ptr, bytes);
    if (r != WK_CUDA_SUCCESS) {
        char buf[256];
        return wk_error(WK_ERR_OUT_OF_MEMORY, "cuda: %zu bytes of page-locked host memory: %s", bytes,
                        cuda_text(r, buf, sizeof buf));
    }
    return WK_OK;
}

static void cuda_host_free(void *ptr) { cu.cuMemFreeHost(ptr); }

static wk_status cuda_module_load(const wk_gpu_image *image, wk_gpu_handle *module)
{
    wk_CUmodule m;
    wk_CUresult r = cu.cuModuleLoadData(&m, image->data);
    if (r != WK_CUDA_SUCCESS) {
        char buf[256];
        return wk_error(WK_ERR_DEVICE, "kernel module '%s' (built for %s) does not load on this GPU: "
                        "cuModuleLoadData: %s", image->name, wk_cuda_targets, cuda_text(r, buf, sizeof buf));
    }
    *module = m;
    return WK_OK;
}

static wk_status cuda_function_get(wk_gpu_handle module, const char *name, wk_gpu_handle *fn)
{
    wk_CUfunction f = NULL;
    wk_CUresult r = cu.cuModuleGetFunction(&f, (wk_CUmodule)module, name);
    *fn = NULL;
    if (r == WK_CUDA_ERROR_NOT_FOUND)
        return WK_OK;
    if (r != WK_CUDA_SUCCESS)
        return cuda_fail(WK_ERR_BACKEND, "cuModuleGetFunction", r);
    *fn = f;
    return WK_OK;
}

static wk_status cuda_launch(wk_gpu_handle fn, wk_gpu_dim grid, wk_gpu_dim block, unsigned smem, wk_gpu_handle stream,
                             void **args, unsigned flags)
{
    if ((flags & WK_GPU_LAUNCH_OVERLAP) && cu.cuLaunchKernelEx) {
        wk_CUlaunchAttribute attr = {.id = WK_CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION};
        attr.value.programmaticStreamSerializationAllowed = 1;
        wk_CUlaunchConfig cfg = {grid.x, grid.y, grid.z, block.x, block.y, block.z, smem, (wk_CUstream)stream,
                                 &attr, 1};
        CU_TRY(cuLaunchKernelEx, (&cfg, (wk_CUfunction)fn, args, NULL));
        return WK_OK;
    }
    CU_TRY(cuLaunchKernel, ((wk_CUfunction)fn, grid.x, grid.y, grid.z, block.x, block.y, block.z, smem,
                            (wk_CUstream)stream, args, NULL));
    return WK_OK;
}

const wk_gpu_runtime wk_cuda_runtime = {
    .backend = "cuda",
    .vendor_lib = "libcuda.so.1",
    .load = cuda_load,
    .driver_version = cuda_driver_version,
    .device_count = cuda_device_count,
    .device_open = cuda_device_open,
    .make_current = cuda_make_current,
    .alloc_async = cuda_alloc_async,
    .free_async = cuda_free_async,
    .copy_h2d = cuda_copy_h2d,
    .copy_d2h = cuda_copy_d2h,
    .copy_d2d = cuda_copy_d2d,
    .memset8 = cuda_memset8,
    .copy_peer = cuda_copy_peer,
    .peer_access = cuda_peer_access,
    .stream_new = cuda_stream_new,
    .stream_free = cuda_stream_free,
    .stream_sync = cuda_stream_sync,
    .stream_order = cuda_stream_order,
    .event_new = cuda_event_new,
    .event_record = cuda_event_record,
    .event_wait = cuda_event_wait,
    .event_query = cuda_event_query,
    .event_free = cuda_event_free,
    .stream_create = cuda_stream_create,
    .stream_query = cuda_stream_query,
    .event_create = cuda_event_create,
    .stream_wait_event = cuda_stream_wait_event,
    .event_elapsed = cuda_event_elapsed,
    .host_register = cuda_host_register,
    .host_unregister = cuda_host_unregister,
    .capture_begin = cuda_capture_begin,
    .capture_end = cuda_capture_end,
    .graph_launch = cuda_graph_launch,
    .graph_free = cuda_graph_free,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .module_load = cuda_module_load,
    .function_get = cuda_function_get,
    .launch = cuda_launch,
    .images = wk_cuda_images,
    .image_count = &wk_cuda_image_count,
    .targets = wk_cuda_targets,
    .blas = wk_cuda_blas_get,
    .dnn = wk_cuda_dnn_get,
};
