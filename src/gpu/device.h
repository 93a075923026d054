/* device.h: the GPU device's state, private to the files that manage it (backend.c: probing and the backend
 * tables; device.c: opening; memory.c: memory and synchronisation; launch.c: kernels). Slot files see only
 * gpu.h's accessors. */
#ifndef WK_GPU_DEVICE_H
#define WK_GPU_DEVICE_H

#include <pthread.h>

#include "gpu/runtime.h"

#define WK_GPU_MAX_IMAGES 32
/* Small-block cache: size classes of 2^8 .. 2^20 bytes, a few blocks each (memory.c). */
#define WK_GPU_CACHE_MIN_SHIFT 8
#define WK_GPU_CACHE_CLASSES 13
#define WK_GPU_CACHE_DEPTH 32
/* The ring of staging buffers (staging.c). */
#define WK_GPU_STAGE_BUFFERS 3

struct wk_gpu_dev {
    wk_device base; /* base.impl points back here */
    const wk_gpu_runtime *rt;
    int ordinal;
    wk_gpu_props props;
    int lanes; /* the logical warp width the width-dependent kernels run at (device.c, pick_lanes) */
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
wk_status wk_gpu_upload_fill(wk_device *dev, void *dst, size_t bytes,
                             bool (*fill)(void *ctx, void *buf, size_t offset, size_t n), void *ctx);
wk_status wk_gpu_host_alloc_pinned(wk_device *dev, size_t bytes, void **out);
void wk_gpu_host_free_pinned(wk_device *dev, void *ptr);

/* memory.c: the backend slots alloc, free, upload, download and sync. */
wk_status wk_gpu_slot_alloc(wk_device *dev, size_t bytes, void **ptr);
void wk_gpu_slot_free(wk_device *dev, void *ptr, size_t bytes);
wk_status wk_gpu_slot_upload(wk_device *dev, void *dst, const void *src, size_t bytes);
wk_status wk_gpu_slot_download(wk_device *dev, void *dst, const void *src, size_t bytes);
wk_status wk_gpu_slot_sync(wk_device *dev);

#endif
