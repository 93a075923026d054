/* hip.h: what hip.c (loading, devices, memory, kernels) shares with hip_graph.c (the API's streams, events and
 * graphs): the resolved HIP runtime functions and the error helpers. Private to those two files. */
#ifndef WK_GPU_HIP_H
#define WK_GPU_HIP_H

#include "gpu/hip_api.h"
#include "gpu/runtime.h"

typedef struct wk_hip_api {
#define WK_HIP_FN_FIELD(name, params) wk_##name##_fn name;
    WK_HIP_FUNCTIONS(WK_HIP_FN_FIELD)
    WK_HIP_COPY_IN_FUNCTIONS(WK_HIP_FN_FIELD)
    WK_HIP_OPTIONAL_FUNCTIONS(WK_HIP_FN_FIELD)
    WK_HIP_GRAPH_FUNCTIONS(WK_HIP_FN_FIELD)
    WK_HIP_TEXT_FUNCTIONS(WK_HIP_FN_FIELD)
#undef WK_HIP_FN_FIELD
    /* Looked up only to tell whether it is there (never called, so not declared in hip_api.h): exported since
     * HIP 5.5 (symbol version hip_5.5) with graph memory nodes, the release from which a capture records
     * hipMallocAsync/hipFreeAsync as the graph's alloc/free nodes. Older runtimes run them at capture time, so
     * replays would use memory freed then: capture_begin refuses without it. */
    void (*hipGraphAddMemAllocNode)(void);
} wk_hip_api;

extern wk_hip_api wk_hip; /* hip.c: filled once by load, read only after */

/* "hipErrorOutOfMemory (out of memory)": HIP's own name and text for r, in buf. */
const char *wk_hip_text(wk_hipError_t r, char *buf, size_t cap);
/* wk_error(s, "<call>: <HIP's name and text>"). */
wk_status wk_hip_fail(wk_status s, const char *call, wk_hipError_t r);
/* The runtime's version as text ("5.2.21153"), after load. */
const char *wk_hip_version(void);
/* Whether a device opened so far allocates with hipMalloc rather than stream-ordered (hipMallocAsync from its
 * pool). All or none do in practice (see hip.c's any_plain). */
bool wk_hip_plain_alloc(void);

#define HIP_TRY(call, args)                                                                                  \
    do {                                                                                                     \
        wk_hipError_t r_ = wk_hip.call args;                                                                 \
        if (r_ != WK_HIP_SUCCESS)                                                                            \
            return wk_hip_fail(r_ == WK_HIP_ERROR_OUT_OF_MEMORY ? WK_ERR_OUT_OF_MEMORY : WK_ERR_BACKEND, #call, r_); \
    } while (0)

/* hip_graph.c: the runtime table's entries for the API's streams, events and graphs (runtime.h). */
wk_status wk_hip_stream_create(wk_gpu_handle *stream);
wk_status wk_hip_stream_query(wk_gpu_handle stream, bool *idle);
wk_status wk_hip_event_create(wk_gpu_handle *ev, bool timing);
wk_status wk_hip_stream_wait_event(wk_gpu_handle stream, wk_gpu_handle ev);
wk_status wk_hip_event_elapsed(wk_gpu_handle start, wk_gpu_handle end, float *ms, bool *ready);
wk_status wk_hip_host_register(void *ptr, size_t bytes);
wk_status wk_hip_host_unregister(void *ptr);
wk_status wk_hip_capture_begin(wk_gpu_handle stream);
wk_status wk_hip_capture_end(wk_gpu_handle stream, wk_gpu_handle *exec);
wk_status wk_hip_graph_launch(wk_gpu_handle exec, wk_gpu_handle stream);
void wk_hip_graph_free(wk_gpu_handle exec);

#endif
