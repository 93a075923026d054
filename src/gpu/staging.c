/* staging.c: host-to-device uploads. From page-locked memory wick allocated (wk_host_alloc_pinned) the copy
 * is one DMA. From pageable memory of WK_GPU_STAGE_MIN bytes or more (a file mapping, a malloc'd buffer) the
 * bytes go through two page-locked buffers: the host threads fill one while the other crosses the bus, which
 * the driver's own pageable path (a single staging copy at a time) does not overlap as well. Smaller pageable
 * uploads go to the driver as they are. upload_fill stages bytes that a callback produces (the file loaders
 * read files straight into the buffers with pread). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "gpu/device.h"

#define WK_GPU_STAGE_MIN ((size_t)8 << 20)
/* A ring of WK_GPU_STAGE_BUFFERS chunks (device.h). Measured on the H100 loading 64 MiB tensors: two 32 MiB
 * buffers drained between uploads, 66% of the page-locked bandwidth; four of 4 MiB, 59% (a sync and a thread
 * fork per chunk cost more than they hid). */
#define WK_GPU_STAGE_CHUNK ((size_t)16 << 20)
#define WK_GPU_MAX_PINNED 256

/* wick's page-locked allocations, so an upload from one of them skips the staging. */
static pthread_mutex_t pinned_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    const char *p;
    size_t n;
    bool registered; /* wk_host_register's (else wk_host_alloc_pinned's) */
} pinned[WK_GPU_MAX_PINNED];
static int pinned_count;
static atomic_int pinned_any; /* pinned_count, read without the lock so that uploads skip it when 0 */

static bool is_pinned(const void *src, size_t bytes)
{
    const char *s = src;
    bool found = false;
    if (atomic_load_explicit(&pinned_any, memory_order_relaxed) == 0)
        return false;
    pthread_mutex_lock(&pinned_lock);
    for (int i = 0; i < pinned_count && !found; i++)
        found = s >= pinned[i].p && bytes <= pinned[i].n && s - pinned[i].p <= (ptrdiff_t)(pinned[i].n - bytes);
    pthread_mutex_unlock(&pinned_lock);
    return found;
}

/* Adds [p, p + n) to the table; false when it is full. */
static bool pinned_add(const void *p, size_t n, bool registered)
{
    pthread_mutex_lock(&pinned_lock);
    bool room = pinned_count < WK_GPU_MAX_PINNED;
    if (room) {
        pinned[pinned_count].p = p, pinned[pinned_count].n = n, pinned[pinned_count++].registered = registered;
        atomic_store(&pinned_any, pinned_count);
    }
    pthread_mutex_unlock(&pinned_lock);
    return room;
}

/* Removes the block starting at p, made by wick (registered false) or registered; false when there is none. */
static bool pinned_remove(const void *p, bool registered)
{
    bool found = false;
    pthread_mutex_lock(&pinned_lock);
    for (int i = 0; i < pinned_count && !found; i++)
        if (pinned[i].p == p && pinned[i].registered == registered) {
            pinned[i] = pinned[--pinned_count];
            atomic_store(&pinned_any, pinned_count);
            found = true;
        }
    pthread_mutex_unlock(&pinned_lock);
    return found;
}

wk_status wk_gpu_host_alloc_pinned(wk_device *dev, size_t bytes, void **out)
{
    wk_gpu_dev *d = wk_gpu_enter(dev);
    void *p = NULL;
    WK_TRY(d->rt->host_alloc(bytes ? bytes : 1, &p));
    if (!pinned_add(p, bytes, false)) {
        d->rt->host_free(p);
        return wk_error(WK_ERR_OUT_OF_MEMORY, "host_alloc_pinned: more than %d page-locked blocks at once",
                        WK_GPU_MAX_PINNED);
    }
    *out = p;
    return WK_OK;
}

void wk_gpu_host_free_pinned(wk_device *dev, void *ptr)
{
    wk_gpu_dev *d = wk_gpu_enter(dev);
    if (pinned_remove(ptr, false))
        d->rt->host_free(ptr);
}

wk_status wk_gpu_host_register(wk_device *dev, void *ptr, size_t bytes)
{
    wk_gpu_dev *d = wk_gpu_enter(dev);
    if (is_pinned(ptr, 1))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "host_register: %p is page-locked already", ptr);
    wk_status s = d->rt->host_register(ptr, bytes);
    if (s != WK_OK) {
        char msg[400];
        snprintf(msg, sizeof msg, "%s", wk_last_error());
        return wk_error(s, "host_register: %zu bytes at %p: %s", bytes, ptr, msg);
    }
    if (!pinned_add(ptr, bytes, true)) {
        d->rt->host_unregister(ptr);
        return wk_error(WK_ERR_OUT_OF_MEMORY, "host_register: more than %d page-locked blocks at once",
                        WK_GPU_MAX_PINNED);
    }
    return WK_OK;
}

wk_status wk_gpu_host_unregister(wk_device *dev, void *ptr)
{
    wk_gpu_dev *d = wk_gpu_enter(dev);
    if (!pinned_remove(ptr, true))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "host_unregister: %p is not the start of memory wk_host_register "
                        "page-locked", ptr);
    return d->rt->host_unregister(ptr);
}

/* A staging buffer's filler: bytes [offset, offset + n) of the source into buf. */
typedef bool (*stage_fill)(void *ctx, void *buf, size_t offset, size_t n);

/* Fills n bytes of buf from source offset `at` in 1 MiB pieces on the host threads (a single thread does not
 * saturate memory bandwidth); false when a piece failed. */
static bool fill_parallel(stage_fill fill, void *ctx, char *buf, size_t at, size_t n)
{
    const size_t piece = (size_t)1 << 20;
    long pieces = (long)((n + piece - 1) / piece);
    int failed = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(| : failed) if (pieces > 1)
#endif
    for (long i = 0; i < pieces; i++) {
        size_t off = (size_t)i * piece, len = n - off < piece ? n - off : piece;
        failed |= !fill(ctx, buf + off, at + off, len);
    }
    return !failed;
}

static bool fill_memcpy(void *ctx, void *buf, size_t offset, size_t n)
{
    memcpy(buf, (const char *)ctx + offset, n);
    return true;
}

static wk_status stage_init(wk_gpu_dev *d)
{
    for (int b = 0; b < WK_GPU_STAGE_BUFFERS; b++) {
        if (!d->stage[b])
            WK_TRY(d->rt->host_alloc(WK_GPU_STAGE_CHUNK, &d->stage[b]));
        if (!d->stage_done[b])
            WK_TRY(d->rt->event_new(&d->stage_done[b]));
    }
    return WK_OK;
}

/* Each chunk takes the next buffer of the ring: wait until that buffer's last copy is done (an event never
 * recorded counts as done), fill it, queue its copy. The copies still in flight at the end are left to finish
 * in stream order (the source is already in the buffers), so back-to-back uploads -- the tensors of a file --
 * keep the ring busy with no pause between them. */
static wk_status staged(wk_gpu_dev *d, char *dst, size_t bytes, stage_fill fill, void *ctx)
{
    WK_TRY(stage_init(d));
    wk_status s = WK_OK;
    for (size_t at = 0; at < bytes && s == WK_OK; at += WK_GPU_STAGE_CHUNK) {
        int b = d->stage_next;
        size_t n = bytes - at < WK_GPU_STAGE_CHUNK ? bytes - at : WK_GPU_STAGE_CHUNK;
        d->stage_next = (b + 1) % WK_GPU_STAGE_BUFFERS;
        if ((s = d->rt->event_wait(d->stage_done[b])) != WK_OK)
            break;
        if (!fill_parallel(fill, ctx, d->stage[b], at, n)) {
            s = wk_error(WK_ERR_IO, "upload: reading bytes [%zu, %zu) of the source failed", at, at + n);
            break;
        }
        s = d->rt->copy_h2d(wk_gpu_stream(d), dst + at, d->stage[b], n);
        if (s == WK_OK)
            s = d->rt->event_record(d->stage_done[b], wk_gpu_stream(d));
    }
    return s;
}

/* From page-locked memory one DMA, left in flight when `wait` is false; from pageable memory the driver's copy
 * (small) or the staging ring, both of which have read the source when they return. */
static wk_status upload(wk_gpu_dev *d, void *dst, const void *src, size_t bytes, bool wait)
{
    if (!bytes)
        return WK_OK;
    wk_gpu_handle stream = wk_gpu_stream(d);
    if (is_pinned(src, bytes)) {
        WK_TRY(d->rt->copy_h2d(stream, dst, src, bytes));
        return wait ? d->rt->stream_sync(stream) : WK_OK;
    }
    if (bytes < WK_GPU_STAGE_MIN || !d->rt->host_alloc)
        return d->rt->copy_h2d(stream, dst, src, bytes);
    pthread_mutex_lock(&d->stage_lock);
    wk_status s = staged(d, dst, bytes, fill_memcpy, (void *)src);
    pthread_mutex_unlock(&d->stage_lock);
    return s;
}

/* upload's contract: the caller may reuse src at once, so a DMA from page-locked memory is waited for. */
wk_status wk_gpu_upload(wk_gpu_dev *d, void *dst, const void *src, size_t bytes)
{
    return upload(d, dst, src, bytes, true);
}

wk_status wk_gpu_upload_async(wk_gpu_dev *d, void *dst, const void *src, size_t bytes)
{
    return upload(d, dst, src, bytes, false);
}

wk_status wk_gpu_upload_fill(wk_device *dev, void *dst, size_t bytes, stage_fill fill, void *ctx)
{
    wk_gpu_dev *d = wk_gpu_enter(dev);
    if (!bytes)
        return WK_OK;
    if (!d->rt->host_alloc)
        return wk_error(WK_ERR_UNSUPPORTED, "upload: %s has no page-locked memory to stage through", dev->name);
    pthread_mutex_lock(&d->stage_lock);
    wk_status s = staged(d, dst, bytes, fill, ctx);
    pthread_mutex_unlock(&d->stage_lock);
    return s;
}
