/* staging.c: host-to-device uploads. From page-locked memory wick allocated (wk_host_alloc_pinned) the copy
 * is one DMA. From pageable memory of WK_GPU_STAGE_MIN bytes or more (a file mapping, a malloc'd buffer) the
 * bytes go through two page-locked buffers: the host threads fill one while the other crosses the bus, which
 * the driver's own pageable path (a single staging copy at a time) does not overlap as well. Smaller pageable
 * uploads go to the driver as they are. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/error.h"
#include "gpu/device.h"

#define WK_GPU_STAGE_MIN ((size_t)8 << 20)
#define WK_GPU_STAGE_CHUNK ((size_t)32 << 20)
#define WK_GPU_MAX_PINNED 256

/* wick's page-locked allocations, so an upload from one of them skips the staging. */
static pthread_mutex_t pinned_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    const char *p;
    size_t n;
} pinned[WK_GPU_MAX_PINNED];
static int pinned_count;

static bool is_pinned(const void *src, size_t bytes)
{
    const char *s = src;
    bool found = false;
    pthread_mutex_lock(&pinned_lock);
    for (int i = 0; i < pinned_count && !found; i++)
        found = s >= pinned[i].p && bytes <= pinned[i].n && s - pinned[i].p <= (ptrdiff_t)(pinned[i].n - bytes);
    pthread_mutex_unlock(&pinned_lock);
    return found;
}

wk_status wk_gpu_host_alloc_pinned(wk_device *dev, size_t bytes, void **out)
{
    wk_gpu_dev *d = wk_gpu_enter(dev);
    void *p = NULL;
    WK_TRY(d->rt->host_alloc(bytes ? bytes : 1, &p));
    pthread_mutex_lock(&pinned_lock);
    bool room = pinned_count < WK_GPU_MAX_PINNED;
    if (room)
        pinned[pinned_count].p = p, pinned[pinned_count++].n = bytes;
    pthread_mutex_unlock(&pinned_lock);
    if (!room) {
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
    bool found = false;
    pthread_mutex_lock(&pinned_lock);
    for (int i = 0; i < pinned_count && !found; i++)
        if (pinned[i].p == ptr) {
            pinned[i] = pinned[--pinned_count];
            found = true;
        }
    pthread_mutex_unlock(&pinned_lock);
    if (found)
        d->rt->host_free(ptr);
}

/* memcpy on the host threads (a single thread does not saturate memory bandwidth). */
static void copy_host(char *dst, const char *src, size_t n)
{
#ifdef _OPENMP
    const size_t piece = (size_t)1 << 20;
    long pieces = (long)((n + piece - 1) / piece);
#pragma omp parallel for schedule(static) if (pieces > 1)
    for (long i = 0; i < pieces; i++) {
        size_t at = (size_t)i * piece, len = n - at < piece ? n - at : piece;
        memcpy(dst + at, src + at, len);
    }
#else
    memcpy(dst, src, n);
#endif
}

static wk_status stage_init(wk_gpu_dev *d)
{
    for (int b = 0; b < 2; b++) {
        if (!d->stage[b])
            WK_TRY(d->rt->host_alloc(WK_GPU_STAGE_CHUNK, &d->stage[b]));
        if (!d->stage_done[b])
            WK_TRY(d->rt->event_new(&d->stage_done[b]));
    }
    return WK_OK;
}

/* Chunk k goes through buffer k % 2: wait for that buffer's previous copy, fill it, queue its copy. */
static wk_status staged(wk_gpu_dev *d, char *dst, const char *src, size_t bytes)
{
    WK_TRY(stage_init(d));
    bool used[2] = {false, false};
    wk_status s = WK_OK;
    for (size_t at = 0, k = 0; at < bytes && s == WK_OK; at += WK_GPU_STAGE_CHUNK, k++) {
        int b = (int)(k % 2);
        size_t n = bytes - at < WK_GPU_STAGE_CHUNK ? bytes - at : WK_GPU_STAGE_CHUNK;
        if (used[b] && (s = d->rt->event_wait(d->stage_done[b])) != WK_OK)
            break;
        copy_host(d->stage[b], src + at, n);
        s = d->rt->copy_h2d(d->stream, dst + at, d->stage[b], n);
        if (s == WK_OK)
            s = d->rt->event_record(d->stage_done[b], d->stream);
        used[b] = true;
    }
    /* the buffers are reused by the next upload: wait for both copies still in flight */
    for (int b = 0; b < 2; b++)
        if (used[b]) {
            wk_status w = d->rt->event_wait(d->stage_done[b]);
            s = s != WK_OK ? s : w;
        }
    return s;
}

wk_status wk_gpu_upload(wk_gpu_dev *d, void *dst, const void *src, size_t bytes)
{
    if (!bytes)
        return WK_OK;
    if (is_pinned(src, bytes)) {
        /* DMA straight from the caller's page-locked memory: asynchronous, so wait for it before returning
         * (upload's contract: the caller may reuse src at once). */
        WK_TRY(d->rt->copy_h2d(d->stream, dst, src, bytes));
        return d->rt->stream_sync(d->stream);
    }
    if (bytes < WK_GPU_STAGE_MIN || !d->rt->host_alloc)
        return d->rt->copy_h2d(d->stream, dst, src, bytes);
    pthread_mutex_lock(&d->stage_lock);
    wk_status s = staged(d, dst, src, bytes);
    pthread_mutex_unlock(&d->stage_lock);
    return s;
}
