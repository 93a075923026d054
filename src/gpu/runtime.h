/* runtime.h: the vendor-neutral driver table the GPU backend runs on. cuda.c fills it from libcuda.so.1
 * (the CUDA driver API); hip.c and hip_graph.c fill it from libamdhip64. Every entry returns a wick status whose
 * message (wk_last_error) carries the vendor's own error name and text. */
#ifndef WK_GPU_RUNTIME_H
#define WK_GPU_RUNTIME_H

#include "gpu/gpu.h"

/* A launch that may begin while the stream's previous kernel is still running (CUDA's programmatic dependent
 * launch, sm_90 and later): every wick kernel first waits in wk_grid_wait (kernels/compat.h) until that kernel has
 * completed and its writes are visible, so the order is the stream's; what overlaps is the launch itself and the
 * blocks' start, a few microseconds of every small kernel. */
#define WK_GPU_LAUNCH_OVERLAP 1u

/* One embedded kernel module (a fatbin or code-object bundle made at build time from kernels/<name>.cu). */
typedef struct wk_gpu_image {
    const char *name;
    const unsigned char *data; /* self-describing (fatbin / offload bundle header), so no size */
} wk_gpu_image;

typedef struct wk_gpu_props {
    char name[96];          /* "NVIDIA H100 80GB HBM3" */
    char arch[32];          /* "sm_90", "gfx90a" */
    int warp_size;          /* 32 or 64 */
    int sm_count;
    size_t total_mem;
} wk_gpu_props;

typedef void *wk_gpu_handle; /* a vendor context, stream, module or function */

struct wk_gpu_runtime {
    const char *backend;      /* "cuda" */
    const char *vendor_lib;   /* what load() looks for, for messages: "libcuda.so.1" */
    /* Loads the driver library and resolves every symbol once per process (thread-safe). On failure
     * *why says what was looked for and what was missing. */
    wk_status (*load)(const char **why);
    /* Driver version as text ("13.0"), after load. */
    const char *(*driver_version)(void);
    wk_status (*device_count)(int *count);
    /* Opens device `ordinal`: fills props, returns its context and a new non-blocking stream. */
    wk_status (*device_open)(int ordinal, wk_gpu_props *props, wk_gpu_handle *ctx, wk_gpu_handle *stream);
    /* Makes ctx current on the calling thread. */
    wk_status (*make_current)(wk_gpu_handle ctx);
    /* Stream-ordered allocation from the device's pool (kept, not returned to the OS, between ops).
     * Out of memory is WK_ERR_OUT_OF_MEMORY after one attempt to release cached memory. */
    wk_status (*alloc_async)(int ordinal, wk_gpu_handle stream, size_t bytes, void **ptr);
    wk_status (*free_async)(wk_gpu_handle stream, void *ptr);
    wk_status (*copy_h2d)(wk_gpu_handle stream, void *dst, const void *src, size_t bytes);
    wk_status (*copy_d2h)(wk_gpu_handle stream, void *dst, const void *src, size_t bytes);
    wk_status (*copy_d2d)(wk_gpu_handle stream, void *dst, const void *src, size_t bytes);
    wk_status (*memset8)(wk_gpu_handle stream, void *dst, int byte, size_t bytes);
    /* Optional (NULL where the vendor's is not wired: no peer copies). A copy from one device's memory to another's
     * by the stream's device's copy engines; and device `ordinal`'s access to the memory pool of device `peer`
     * (reads and writes by its copies and kernels, on every allocation of that pool from now on), *ok false where the
     * two have no direct path. */
    wk_status (*copy_peer)(wk_gpu_handle stream, void *dst, wk_gpu_handle dst_ctx, const void *src,
                           wk_gpu_handle src_ctx, size_t bytes);
    wk_status (*peer_access)(int ordinal, int peer, bool *ok);
    /* Another non-blocking stream on the current context, of the highest priority (a communicator's side stream:
     * its kernels take the multiprocessors that a running GEMM's blocks free, so communication overlaps it). */
    wk_status (*stream_new)(wk_gpu_handle *stream);
    void (*stream_free)(wk_gpu_handle stream);
    wk_status (*stream_sync)(wk_gpu_handle stream);
    /* Work queued on `to` from now on waits for all work queued on `from` so far (an event). */
    wk_status (*stream_order)(wk_gpu_handle from, wk_gpu_handle to);
    /* Events (timing off): record on a stream, wait on the host. */
    wk_status (*event_new)(wk_gpu_handle *ev);
    wk_status (*event_record)(wk_gpu_handle ev, wk_gpu_handle stream);
    wk_status (*event_wait)(wk_gpu_handle ev);
    /* *done: whether the work before the record has finished (never blocks). */
    wk_status (*event_query)(wk_gpu_handle ev, bool *done);
    void (*event_free)(wk_gpu_handle ev);
    /* ---- streams, events and graphs for the API's streams (wick.h "streams"; gpu/stream.c, gpu/graph.c) */
    /* A non-blocking stream of normal priority on the current context. */
    wk_status (*stream_create)(wk_gpu_handle *stream);
    wk_status (*stream_query)(wk_gpu_handle stream, bool *idle);
    /* An event, with timing or not. */
    wk_status (*event_create)(wk_gpu_handle *ev, bool timing);
    /* Work queued on stream from now on waits for ev's mark. */
    wk_status (*stream_wait_event)(wk_gpu_handle stream, wk_gpu_handle ev);
    /* Milliseconds between two timing events; *ready false (and WK_OK) when end's mark is not reached yet. */
    wk_status (*event_elapsed)(wk_gpu_handle start, wk_gpu_handle end, float *ms, bool *ready);
    /* Page-locks caller memory (portable) / undoes it. */
    wk_status (*host_register)(void *ptr, size_t bytes);
    wk_status (*host_unregister)(void *ptr);
    /* Starts recording the calling thread's work on stream (work of other threads and streams runs as usual;
     * calls that would wait for the device fail instead of invalidating other threads' captures). */
    wk_status (*capture_begin)(wk_gpu_handle stream);
    /* Ends the capture (always) and makes a replayable graph whose allocations are freed at its next launch. */
    wk_status (*capture_end)(wk_gpu_handle stream, wk_gpu_handle *exec);
    wk_status (*graph_launch)(wk_gpu_handle exec, wk_gpu_handle stream);
    void (*graph_free)(wk_gpu_handle exec);
    /* Page-locked host memory (portable across the process's contexts). */
    wk_status (*host_alloc)(size_t bytes, void **ptr);
    void (*host_free)(void *ptr);
    wk_status (*module_load)(const wk_gpu_image *image, wk_gpu_handle *module);
    /* *fn = NULL (and WK_OK) when the module has no such function. */
    wk_status (*function_get)(wk_gpu_handle module, const char *name, wk_gpu_handle *fn);
    /* flags: WK_GPU_LAUNCH_OVERLAP, where the runtime has it (else ignored). */
    wk_status (*launch)(wk_gpu_handle fn, wk_gpu_dim grid, wk_gpu_dim block, unsigned smem, wk_gpu_handle stream,
                        void **args, unsigned flags);
    /* The kernels embedded for this vendor at build time, and their targets ("sm_80 sm_90 compute_90"). */
    const wk_gpu_image *images;
    const int *image_count;
    const char *targets;
    /* Vendor libraries (may be NULL when the vendor has none wired). */
    const wk_gpu_blas *(*blas)(wk_gpu_dev *d, const char **why);
    const wk_gpu_dnn *(*dnn)(wk_gpu_dev *d, const char **why);
};

extern const wk_gpu_runtime wk_cuda_runtime; /* cuda.c */
extern const wk_gpu_runtime wk_hip_runtime;  /* hip.c */

/* Build-time tables (generated: gpu_images_cuda.c). */
extern const wk_gpu_image wk_cuda_images[];
extern const int wk_cuda_image_count;
extern const char wk_cuda_targets[];
extern const wk_gpu_image wk_hip_images[]; /* generated: gpu_images_hip.c */
extern const int wk_hip_image_count;
extern const char wk_hip_targets[];

/* cublas.c / conv_cudnn.c */
const wk_gpu_blas *wk_cuda_blas_get(wk_gpu_dev *d, const char **why);
const wk_gpu_dnn *wk_cuda_dnn_get(wk_gpu_dev *d, const char **why);
/* rocblas.c / conv_miopen.c */
const wk_gpu_blas *wk_rocm_blas_get(wk_gpu_dev *d, const char **why);
const wk_gpu_dnn *wk_rocm_dnn_get(wk_gpu_dev *d, const char **why);

/* Shared by the vendor loaders: dlopen the first of names[] that loads (env_override, when set in the
 * environment, is tried alone). *why lists what was tried on failure. */
void *wk_gpu_dlopen_first(const char *env_override, const char *const *names, char *why, size_t why_cap);
/* Stores dlsym(lib, symbol) into the function pointer at fn_slot; false when the symbol is missing.
 * (POSIX allows the object-to-function pointer conversion; ISO C does not, hence the copy.) */
bool wk_gpu_dlsym(void *lib, const char *symbol, void *fn_slot);

#endif
