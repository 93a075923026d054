/* device.h: the GPU device's state, private to the files that manage it (backend.c: probing and the backend
 * tables; device.c: opening; memory.c: memory and synchronisation; launch.c: kernels). Slot files see only
 * gpu.h's accessors. */
#ifndef WK_GPU_DEVICE_H
#define WK_GPU_DEVICE_H

#include <pthread.h>
#include <stdatomic.h>

#include "gpu/runtime.h"

#define WK_GPU_MAX_IMAGES 32
/* Small-block cache: size classes of 2^8 .. 2^20 bytes, a few blocks each (memory.c). */
#define WK_GPU_CACHE_MIN_SHIFT 8
#define WK_GPU_CACHE_CLASSES 13
#define WK_GPU_CACHE_DEPTH 32
/* The ring of staging buffers (staging.c). */
#define WK_GPU_STAGE_BUFFERS 3
/* Streams of the API a device serves at once besides its default (stream.c), and the releases made while it has
 * some that wait, in one batch, for every stream's work before their memory goes back to the pool. */
#define WK_GPU_MAX_STREAMS 64
#define WK_GPU_PENDING_FREES 32
#define WK_GPU_PENDING_BYTES ((size_t)64 << 20)

struct wk_gpu_dev {
    wk_device base; /* base.impl points back here */
    const wk_gpu_runtime *rt;
    int ordinal;
    wk_gpu_props props;
    int lanes; /* the logical warp width the width-dependent kernels run at (device.c, pick_lanes) */
    bool overlap; /* kernels launched with WK_GPU_LAUNCH_OVERLAP (device.c, pick_overlap) */
    wk_gpu_handle ctx, stream;
    wk_gpu_handle modules[WK_GPU_MAX_IMAGES]; /* modules[i] from rt->images[i] */
    int module_count;
    wk_gpu_kernel_cache *kernels;
    int *fault; /* device address of the fault record (wk_gpu_fault_rec, layout.h) */
    /* Freed tensor storage of small sizes, reused without a driver call (memory.c). */
    pthread_mutex_t cache_lock;
    void *cache[WK_GPU_CACHE_CLASSES][WK_GPU_CACHE_DEPTH];
    int cache_count[WK_GPU_CACHE_CLASSES];
    /* Page-locked buffers for large uploads from pageable memory, made on first use (staging.c). */
    pthread_mutex_t stage_lock;
    void *stage[WK_GPU_STAGE_BUFFERS];
    wk_gpu_handle stage_done[WK_GPU_STAGE_BUFFERS]; /* recorded after each buffer's copy */
    int stage_next;                                 /* the ring's next buffer */
    /* The API's streams (stream.c): the default is base.default_stream; these are the others, and the side stream
     * on which batched releases wait for all of them. */
    pthread_mutex_t streams_lock;
    wk_stream *streams[WK_GPU_MAX_STREAMS];
    int stream_count;
    atomic_int extra_streams; /* stream_count, read without the lock: 0 keeps the one-stream fast paths */
    wk_gpu_handle free_stream;
    void *pending[WK_GPU_PENDING_FREES];
    int pending_count;
    size_t pending_bytes;
    /* The outputs of captures (graph.c): never cached; returned to the driver only while a launch has them
     * allocated. */
    struct wk_gpu_graph_mem *graph_mem;
    int graph_mem_count, graph_mem_cap;
    atomic_int graph_mem_any;
};

/* Per vendor: its devices, opened on first use and kept for the process (backend.c). */
typedef struct wk_gpu_vendor {
    const wk_gpu_runtime *rt;
    const wk_backend *backend;
    pthread_mutex_t lock;
    wk_gpu_dev *devs[WK_GPU_MAX_DEVICES];
    bool probed;
    wk_status probe_status;
    int device_count;
    char detail[640];
} wk_gpu_vendor;

/* device.c */
/* Makes the device's context current on the calling thread (once per thread and device switch). */
wk_gpu_dev *wk_gpu_enter(wk_device *dev);
/* Opens device `ordinal` of the vendor: context, stream, modules, fault record, width check. */
wk_status wk_gpu_dev_open(wk_gpu_vendor *v, int ordinal, wk_gpu_dev **out);

/* The backend slots native_stream and order_stream. */
wk_status wk_gpu_native_stream(wk_device *dev, uintptr_t *out);
wk_status wk_gpu_order_stream(wk_device *dev, int64_t stream);

/* staging.c: uploads (direct from wick's page-locked memory, through the staging buffers from pageable memory
 * of WK_GPU_STAGE_MIN bytes or more), and the pinned-memory slots. */
wk_status wk_gpu_upload(wk_gpu_dev *d, void *dst, const void *src, size_t bytes);
/* The same, returning at once from page-locked memory (the copy in flight on the current stream). */
wk_status wk_gpu_upload_async(wk_gpu_dev *d, void *dst, const void *src, size_t bytes);
/* wk_host_register / wk_host_unregister. */
wk_status wk_gpu_host_register(wk_device *dev, void *ptr, size_t bytes);
wk_status wk_gpu_host_unregister(wk_device *dev, void *ptr);
wk_status wk_gpu_upload_fill(wk_device *dev, void *dst, size_t bytes,
                             bool (*fill)(void *ctx, void *buf, size_t offset, size_t n), void *ctx);
wk_status wk_gpu_host_alloc_pinned(wk_device *dev, size_t bytes, void **out);
void wk_gpu_host_free_pinned(wk_device *dev, void *ptr);

/* stream.c: the backend's stream table (wick.h "streams"), and releases while d has more than its default stream:
 * batched, each waiting on the device for the work queued so far on every stream of d. */
extern const wk_stream_backend wk_gpu_streams;
void wk_gpu_release_later(wk_gpu_dev *d, void *ptr, size_t bytes);
void wk_gpu_release_flush(wk_gpu_dev *d); /* the batch now (a sync, out of memory) */

/* graph.c: memory during a capture on s (the calling thread's current stream): allocations come from the graph,
 * releases of the graph's own memory are recorded in it, and any other release fails the capture (kept for later).
 * After the capture, the graph's memory that tensors hold is returned to the driver, never cached. */
wk_status wk_gpu_capture_alloc(wk_gpu_dev *d, wk_stream *s, size_t bytes, void **ptr);
void wk_gpu_capture_free(wk_gpu_dev *d, wk_stream *s, void *ptr, size_t bytes);
/* True when ptr is a capture's output: then released as graph memory is (graph.c), not by the caller. */
bool wk_gpu_graph_mem_release(wk_gpu_dev *d, void *ptr, size_t bytes);
wk_status wk_gpu_graph_begin(wk_stream *s);
wk_status wk_gpu_graph_end(wk_stream *s, wk_graph *g);
wk_status wk_gpu_graph_launch(wk_graph *g, wk_stream *s);
void wk_gpu_graph_destroy(wk_graph *g);

/* memory.c: the backend slots alloc, free, upload, download and sync; waiting for one stream and reporting faults. */
wk_status wk_gpu_sync_and_check(wk_gpu_dev *d, wk_gpu_handle stream);
wk_status wk_gpu_slot_alloc(wk_device *dev, size_t bytes, void **ptr);
void wk_gpu_slot_free(wk_device *dev, void *ptr, size_t bytes);
wk_status wk_gpu_slot_upload(wk_device *dev, void *dst, const void *src, size_t bytes);
wk_status wk_gpu_slot_download(wk_device *dev, void *dst, const void *src, size_t bytes);
wk_status wk_gpu_slot_sync(wk_device *dev);

#endif
