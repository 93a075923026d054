/* hip_graph.c: the HIP runtime's streams, events and graphs behind the runtime table's entries for the API's
 * streams (wick.h "streams, events, graphs"; gpu/stream.c and gpu/graph.c call them), as cuda.c does them on
 * the CUDA driver API. The graph functions are optional symbols (hip_api.h): capture_begin checks for them, and
 * for stream-ordered allocation, before anything is recorded, so the library loads on runtimes without them. */
#include "gpu/hip.h"

wk_status wk_hip_stream_create(wk_gpu_handle *stream)
{
    wk_hipStream_t s;
    HIP_TRY(hipStreamCreateWithFlags, (&s, WK_HIP_STREAM_NON_BLOCKING));
    *stream = s;
    return WK_OK;
}

wk_status wk_hip_stream_query(wk_gpu_handle stream, bool *idle)
{
    wk_hipError_t r = wk_hip.hipStreamQuery((wk_hipStream_t)stream);
    *idle = r != WK_HIP_ERROR_NOT_READY;
    return *idle && r != WK_HIP_SUCCESS ? wk_hip_fail(WK_ERR_BACKEND, "hipStreamQuery", r) : WK_OK;
}

wk_status wk_hip_event_create(wk_gpu_handle *ev, bool timing)
{
    wk_hipEvent_t e;
    unsigned flags = timing ? (unsigned)WK_HIP_EVENT_DEFAULT : (unsigned)WK_HIP_EVENT_DISABLE_TIMING;
    HIP_TRY(hipEventCreateWithFlags, (&e, flags));
    *ev = e;
    return WK_OK;
}

wk_status wk_hip_stream_wait_event(wk_gpu_handle stream, wk_gpu_handle ev)
{
    HIP_TRY(hipStreamWaitEvent, ((wk_hipStream_t)stream, (wk_hipEvent_t)ev, 0));
    return WK_OK;
}

wk_status wk_hip_event_elapsed(wk_gpu_handle start, wk_gpu_handle end, float *ms, bool *ready)
{
    wk_hipError_t r = wk_hip.hipEventElapsedTime(ms, (wk_hipEvent_t)start, (wk_hipEvent_t)end);
    *ready = r != WK_HIP_ERROR_NOT_READY;
    return *ready && r != WK_HIP_SUCCESS ? wk_hip_fail(WK_ERR_BACKEND, "hipEventElapsedTime", r) : WK_OK;
}

wk_status wk_hip_host_register(void *ptr, size_t bytes)
{
    HIP_TRY(hipHostRegister, (ptr, bytes, WK_HIP_HOST_REGISTER_PORTABLE));
    return WK_OK;
}

wk_status wk_hip_host_unregister(void *ptr)
{
    HIP_TRY(hipHostUnregister, (ptr));
    return WK_OK;
}

/* The first function a capture needs that this runtime lacks; NULL when it has them all. */
static const char *graph_missing(void)
{
#define WK_HIP_MISSING(name, params)                                                                         \
    if (!wk_hip.name)                                                                                        \
        return #name;
    WK_HIP_GRAPH_FUNCTIONS(WK_HIP_MISSING)
    WK_HIP_MISSING(hipGraphAddMemAllocNode, ())
#undef WK_HIP_MISSING
    return NULL;
}

/* A capture records the graph's allocations as alloc/free nodes, which needs the graph memory nodes of HIP 5.5
 * (hip.h: hipGraphAddMemAllocNode) and stream-ordered allocation: hipMalloc/hipFree cannot be recorded. */
wk_status wk_hip_capture_begin(wk_gpu_handle stream)
{
    const char *missing = graph_missing();
    if (missing)
        return wk_error(WK_ERR_UNSUPPORTED, "stream_begin_capture: this HIP runtime (libamdhip64 %s) lacks %s: graph "
                        "capture needs HIP 5.5 or newer (ROCm 5.5: graph memory nodes, which record the graph's "
                        "allocations)", wk_hip_version(), missing);
    if (wk_hip_plain_alloc())
        return wk_error(WK_ERR_UNSUPPORTED, "stream_begin_capture: HIP allocates with hipMalloc here, which a graph "
                        "cannot record: capture needs stream-ordered allocation (hipMallocAsync from the device's "
                        "memory pool; the device reports no pools (hipDeviceAttributeMemoryPoolsSupported, ROCm's "
                        "HIP_MEM_POOL_SUPPORT) or the runtime lacks hipMallocAsync)");
    HIP_TRY(hipStreamBeginCapture, ((wk_hipStream_t)stream, WK_HIP_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    return WK_OK;
}

wk_status wk_hip_capture_end(wk_gpu_handle stream, wk_gpu_handle *exec)
{
    wk_hipGraph_t g = NULL;
    wk_hipGraphExec_t x = NULL;
    wk_hipError_t r = wk_hip.hipStreamEndCapture((wk_hipStream_t)stream, &g);
    if (r != WK_HIP_SUCCESS) {
        if (g)
            wk_hip.hipGraphDestroy(g);
        return wk_hip_fail(WK_ERR_BACKEND, "hipStreamEndCapture", r);
    }
    r = wk_hip.hipGraphInstantiateWithFlags(&x, g, WK_HIP_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH);
    wk_hip.hipGraphDestroy(g); /* the executable graph keeps what it needs */
    if (r != WK_HIP_SUCCESS)
        return wk_hip_fail(r == WK_HIP_ERROR_OUT_OF_MEMORY ? WK_ERR_OUT_OF_MEMORY : WK_ERR_BACKEND,
                           "hipGraphInstantiateWithFlags", r);
    *exec = x;
    return WK_OK;
}

wk_status wk_hip_graph_launch(wk_gpu_handle exec, wk_gpu_handle stream)
{
    HIP_TRY(hipGraphLaunch, ((wk_hipGraphExec_t)exec, (wk_hipStream_t)stream));
    return WK_OK;
}

void wk_hip_graph_free(wk_gpu_handle exec) { wk_hip.hipGraphExecDestroy((wk_hipGraphExec_t)exec); }
