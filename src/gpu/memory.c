/* memory.c: the GPU's memory: stream-ordered allocation from the device's pool, a cache of small freed
 * blocks, transfers, and synchronisation with the fault record turned into a status. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "gpu/device.h"

/* ---------------------------------------------------------------- memory */
/* Scratch and outputs come from the pool on the calling thread's current stream; during a capture, from the graph. */
wk_status wk_gpu_malloc(wk_gpu_dev *d, size_t bytes, void **ptr)
{
    if (bytes == 0) {
        *ptr = NULL;
        return WK_OK;
    }
    if (wk_fi_fail(WK_FI_DEVICE)) /* scratch is a device allocation too, for the sweep (core/fault.h) */
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of scratch (injected)",
                        wk_gpu_dev_name(d), bytes);
    wk_stream *s = wk_stream_of(&d->base);
    if (s->capture)
        return wk_gpu_capture_alloc(d, s, bytes, ptr);
    wk_status st = d->rt->alloc_async(d->ordinal, s->native, bytes, ptr);
    if (st == WK_ERR_OUT_OF_MEMORY && atomic_load(&d->extra_streams)) {
        wk_fi_absorb();
        wk_gpu_release_flush(d); /* memory waiting for the other streams, then one more try */
        if (d->free_stream)
            d->rt->stream_sync(d->free_stream);
        st = d->rt->alloc_async(d->ordinal, s->native, bytes, ptr);
    }
    return st;
}

/* Released on the current stream while it is the device's only one (stream order keeps that safe); with other
 * streams, after every stream's queued work (stream.c); during a capture, by the graph (graph.c). */
static void release(wk_gpu_dev *d, void *ptr, size_t bytes)
{
    wk_stream *s = wk_stream_of(&d->base);
    if (s->capture)
        wk_gpu_capture_free(d, s, ptr, bytes);
    else if (atomic_load(&d->extra_streams) == 0)
        d->rt->free_async(s->native, ptr);
    else
        wk_gpu_release_later(d, ptr, bytes);
}

void wk_gpu_free(wk_gpu_dev *d, void *ptr)
{
    if (ptr)
        release(d, ptr, 0);
}

wk_status wk_gpu_memset(wk_gpu_dev *d, void *ptr, int byte, size_t bytes)
{
    return bytes ? d->rt->memset8(wk_gpu_stream(d), ptr, byte, bytes) : WK_OK;
}

wk_status wk_gpu_copy_d2d(wk_gpu_dev *d, void *dst, const void *src, size_t bytes)
{
    return bytes ? d->rt->copy_d2d(wk_gpu_stream(d), dst, src, bytes) : WK_OK;
}

/* Size class of a small allocation, or -1. Tiny ops allocate and free an output per call: reusing
 * freed blocks of the same class on the same stream skips the driver (stream order keeps it safe: a
 * block is reused only by work queued after the work that last used it). Only the default stream uses the cache,
 * and blocks enter it only while the device has no other stream. */
static int cache_class(size_t bytes)
{
    if (bytes == 0 || bytes > ((size_t)1 << (WK_GPU_CACHE_MIN_SHIFT + WK_GPU_CACHE_CLASSES - 1)))
        return -1;
    int c = 0;
    while (((size_t)1 << (WK_GPU_CACHE_MIN_SHIFT + c)) < bytes)
        c++;
    return c;
}

/* Gives every cached block back to the pool (on out of memory, so the driver can reuse it). */
static void cache_release(wk_gpu_dev *d)
{
    pthread_mutex_lock(&d->cache_lock);
    for (int c = 0; c < WK_GPU_CACHE_CLASSES; c++)
        while (d->cache_count[c] > 0)
            wk_gpu_free(d, d->cache[c][--d->cache_count[c]]);
    pthread_mutex_unlock(&d->cache_lock);
}

/* WICK_POISON, read once by whichever thread allocates first (several may at once). */
static bool poison;
static pthread_once_t poison_once = PTHREAD_ONCE_INIT;

static void poison_init(void)
{
    const char *v = getenv("WICK_POISON");
    poison = v && *v && strcmp(v, "0") != 0;
}

wk_status wk_gpu_slot_alloc(wk_device *dev, size_t bytes, void **ptr)
{
    wk_gpu_dev *d = wk_gpu_enter(dev);
    int c = wk_stream_of(dev)->is_default ? cache_class(bytes) : -1;
    wk_status s = WK_OK;
    *ptr = NULL;
    if (c >= 0) {
        pthread_mutex_lock(&d->cache_lock);
        if (d->cache_count[c] > 0)
            *ptr = d->cache[c][--d->cache_count[c]];
        pthread_mutex_unlock(&d->cache_lock);
    }
    if (!*ptr) {
        size_t size = c >= 0 ? (size_t)1 << (WK_GPU_CACHE_MIN_SHIFT + c) : bytes;
        s = wk_gpu_malloc(d, size, ptr);
        if (s == WK_ERR_OUT_OF_MEMORY) {
            wk_fi_absorb();
            cache_release(d);
            s = wk_gpu_malloc(d, size, ptr);
        }
    }
    /* WICK_POISON=1: fresh memory is all ones (NaN for floats) so a test sees unwritten elements. */
    if (s == WK_OK && bytes) {
        pthread_once(&poison_once, poison_init);
        if (poison && (s = wk_gpu_memset(d, *ptr, 0xff, bytes)) != WK_OK)
            wk_gpu_free(d, *ptr);
    }
    return s;
}

void wk_gpu_slot_free(wk_device *dev, void *ptr, size_t bytes)
{
    wk_gpu_dev *d = wk_gpu_enter(dev);
    if (!ptr)
        return;
    if (atomic_load(&d->graph_mem_any) && wk_gpu_graph_mem_release(d, ptr, bytes))
        return; /* a graph's memory goes back to the driver, never to the cache */
    bool alone = wk_stream_of(dev)->is_default && atomic_load(&d->extra_streams) == 0;
    int c = alone ? cache_class(bytes) : -1;
    if (c >= 0) {
        pthread_mutex_lock(&d->cache_lock);
        bool kept = d->cache_count[c] < WK_GPU_CACHE_DEPTH;
        if (kept)
            d->cache[c][d->cache_count[c]++] = ptr;
        pthread_mutex_unlock(&d->cache_lock);
        if (kept)
            return;
    }
    release(d, ptr, bytes);
}

wk_status wk_gpu_slot_upload(wk_device *dev, void *dst, const void *src, size_t bytes)
{
    wk_gpu_dev *d = wk_gpu_enter(dev);
    WK_TRY(wk_gpu_refuse_capture(d, "upload", "an upload from host memory would read the host buffer again at "
                                 "every replay: upload before the capture"));
    return wk_gpu_upload(d, dst, src, bytes);
}

static const char *fault_op(int code)
{
    switch (code) {
    case WK_GPU_FAULT_INDEX_SELECT: return "index_select";
    case WK_GPU_FAULT_GATHER: return "gather";
    case WK_GPU_FAULT_SCATTER: return "scatter";
    case WK_GPU_FAULT_SCATTER_ADD: return "scatter_add";
    case WK_GPU_FAULT_INDEX_ADD: return "index_add";
    case WK_GPU_FAULT_ONE_HOT: return "one_hot";
    case WK_GPU_FAULT_ATTENTION: return "attention";
    case WK_GPU_FAULT_KV_APPEND: return "kv_append";
    }
    return "an indexing op";
}

/* Waits for the stream, then turns a fault recorded by a kernel into a status naming the op and the index. */
wk_status wk_gpu_sync_and_check(wk_gpu_dev *d, wk_gpu_handle stream)
{
    wk_gpu_fault_rec fault = {0, 0, 0};
    WK_TRY(d->rt->copy_d2h(stream, &fault, d->fault, sizeof fault));
    WK_TRY(d->rt->stream_sync(stream));
    if (fault.code == WK_GPU_FAULT_NONE)
        return WK_OK;
    WK_TRY(d->rt->memset8(stream, d->fault, 0, sizeof fault));
    if (fault.code == WK_GPU_FAULT_ATTENTION || fault.code == WK_GPU_FAULT_KV_APPEND)
        return wk_error(WK_ERR_INDEX_OUT_OF_RANGE, "%s: a sequence length or block id (%lld) is outside the cache on "
                        "%s (found on the device, reported at the next synchronisation; %s)", fault_op(fault.code),
                        (long long)fault.value, d->base.name, fault.code == WK_GPU_FAULT_KV_APPEND
                        ? "the caches are unchanged" : "the output is not valid");
    return wk_error(WK_ERR_INDEX_OUT_OF_RANGE, "%s: index %lld is outside [0, size) on %s (found on the device, "
                    "reported at the next synchronisation; the op wrote nothing for it)", fault_op(fault.code),
                    (long long)fault.value, d->base.name);
}

static const char host_wait[] = "it waits for the device";

wk_status wk_gpu_slot_download(wk_device *dev, void *dst, const void *src, size_t bytes)
{
    wk_gpu_dev *d = wk_gpu_enter(dev);
    WK_TRY(wk_gpu_refuse_capture(d, "download", host_wait));
    if (bytes)
        WK_TRY(d->rt->copy_d2h(wk_gpu_stream(d), dst, src, bytes));
    return wk_gpu_sync_and_check(d, wk_gpu_stream(d));
}

/* Every stream of the device that is not capturing, then the faults they recorded. */
wk_status wk_gpu_slot_sync(wk_device *dev)
{
    wk_gpu_dev *d = wk_gpu_enter(dev);
    WK_TRY(wk_gpu_refuse_capture(d, "device_sync", host_wait));
    if (atomic_load(&d->extra_streams)) {
        wk_gpu_handle native[WK_GPU_MAX_STREAMS];
        int n = 0;
        pthread_mutex_lock(&d->streams_lock);
        for (int i = 0; i < d->stream_count; i++)
            if (!d->streams[i]->capture)
                native[n++] = d->streams[i]->native;
        pthread_mutex_unlock(&d->streams_lock);
        for (int i = 0; i < n; i++)
            WK_TRY(d->rt->stream_sync(native[i]));
        wk_gpu_release_flush(d);
    }
    return wk_gpu_sync_and_check(d, d->base.default_stream.native);
}
